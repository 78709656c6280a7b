//! Issue 13 item 10: a phase whose numbers would describe something other than the device says so, in
//! `wkrun plan` (text and JSON) and in its results' `warnings`: writes that are not whole physical blocks
//! (read-modify-write), buffered I/O (the page cache), a queue deeper than the block device holds, psync
//! threads past the CPUs; and at run time a submitting thread busy nearly all the phase (the host's pace).

use crate::common::*;
use std::path::Path;

const RMW: &str = "read-modify-write: the write numbers describe it, not plain writes; use block sizes that are multiples of 4096 B: writes of 512 B are not whole physical blocks of the target (4096 B): the device must read, modify and write whole blocks";
const PAGE_CACHE: &str = "direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device";

/// Runs `s.toml` in `dir` on the block device `dev` (with its consent) into `out`; asserts exit 0 and returns
/// results.json.
fn run_on_device(dir: &Path, dev: &str) -> serde_json::Value {
    let args = [
        "s.toml",
        "--target",
        dev,
        "--allow-destroy",
        dev,
        "-q",
        "-o",
        "out",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(code, 0, "{err}");
    strict_results(&dir.join("out")).1
}

/// Runs `s.toml` in `dir` on a new 8 MiB file target into `out`; asserts exit 0 and returns results.json
/// and stderr.
fn run_on_file(dir: &Path) -> (serde_json::Value, String) {
    run_on_file_with(dir, &[])
}

/// [`run_on_file`] with `extra` arguments.
fn run_on_file_with(dir: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    run_on_file_of(dir, "8MiB", extra)
}

/// [`run_on_file_with`] on a file of `size`.
fn run_on_file_of(dir: &Path, size: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec![
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        size,
        "-o",
        "out",
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(code, 0, "{err}");
    (strict_results(&dir.join("out")).1, err)
}

/// The warning of a phase (a fill when `fill`) writing into `n` B of holes of the file the run created,
/// from its start: its unwritten blocks when `results` say it was preallocated, else its holes.
fn holes(results: &serde_json::Value, n: u64, fill: bool) -> String {
    let (action, after) = match fill {
        true => (
            "expected of a fill",
            "; the phases after it write into written blocks",
        ),
        false => ("run a fill first", ""),
    };
    match results["target"]["preallocated"].as_bool() == Some(true) {
        true => format!(
            "writes into unwritten (preallocated) blocks: latencies include the file system's allocation work; {action}: {n} B (100.0 %) of the write range [0, {n}) were never written since wkrun created and preallocated the file (fio lays out a file it creates): at the first write into each block the file system marks it written, so this first run's write numbers include that work{after}"
        ),
        false => format!(
            "writes into holes: latencies include the file system's allocation work; {action}: {n} B (100.0 %) of the write range [0, {n}) are holes in the file (never written, or punched): at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work{after}"
        ),
    }
}

fn workload(name: &str, bs: &str, read: u32, extra: &str) -> String {
    format!(
        "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nblock_size = \"{bs}\"\nread_percent = {read}\nsize = \"1MiB\"\n{extra}"
    )
}

/// The warnings of every phase, from `plan --json` or results.json.
/// Without the host-pace warning, which depends on the machine's load (checked on its own below).
fn warnings(doc: &serde_json::Value) -> Vec<Vec<String>> {
    doc["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| device_warnings(p.get("warnings")))
        .collect()
}

#[test]
fn sub_block_writes_on_the_simulated_drive_warn_of_read_modify_write() {
    let dir = tempdir();
    let body = [
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"4KiB\"\nspan = \"16MiB\"\n"
            .to_string(),
        workload("w512", "512B", 0, "span = \"16MiB\"\n"),
        workload("rw512", "512B", 65, "span = \"16MiB\"\n"),
        workload("r512", "512B", 100, "span = \"16MiB\"\n"),
        workload("w4k", "4KiB", 0, "span = \"16MiB\"\n"),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("rmw", &body));
    let want = vec![
        vec![],
        vec![RMW.to_string()],
        vec![RMW.to_string()],
        vec![],
        vec![],
    ];
    let sim = "sim:capacity=1GiB,op=7%";
    let plan = plan_json(dir.path(), Path::new("s.toml"), Path::new(sim), &[]);
    assert_eq!(warnings(&plan), want, "plan --json");
    let (code, text, _) = code_out_err(&wkrun(dir.path(), &["plan", "s.toml", "--target", sim]));
    assert_eq!(code, 0);
    assert_eq!(
        text.matches(&format!("warning: {RMW}")).count(),
        2,
        "{text}"
    );
    let (code, _, err) = code_out_err(&wkrun(
        dir.path(),
        &["s.toml", "--target", sim, "-o", "out"],
    ));
    assert_eq!(code, 0, "{err}");
    // On the console, once for both phases, on one line (issue 24 item 5).
    // What to do comes first, and the cut keeps it (issue 24 leftovers).
    // The cut line ends with the command that prints it whole, naming the results folder.
    let line = "warning: phases w512, rw512: read-modify-write: the write numbers describe it, not plain writes; use block sizes that are multiples of 4096 B: writes of 512 B are not… (in full: wkrun warnings out)";
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("read-modify-write"))
            .collect::<Vec<_>>(),
        [line]
    );
    let (_, results) = strict_results(&dir.path().join("out"));
    assert_eq!(warnings(&results), want, "results.json");
    for i in 0..want.len() {
        assert_eq!(
            host(&results, i),
            None,
            "the simulated drive's time is virtual"
        );
    }
}

#[test]
fn buffered_io_on_a_file_warns_of_the_page_cache() {
    let dir = tempdir();
    let body = [
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\n".to_string(),
        workload("buffered", "4KiB", 50, "direct = false\n"),
        workload("direct", "4KiB", 50, ""),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("cache", &body));
    let (results, err) = run_on_file(dir.path());
    assert_eq!(
        warnings(&results),
        vec![
            vec![holes(&results, 8 << 20, true)],
            vec![PAGE_CACHE.to_string()],
            vec![]
        ],
        "the fill writes into the new sparse file's holes; only the buffered phase warns of the cache"
    );
    // On the console the fill's holes are a note, not a warning (trial 13 F8): its results keep it whole.
    let said = |word: &str| {
        err.lines()
            .filter(|l| l.starts_with(&format!("{word}: phase fill: writes into")))
            .count()
    };
    assert_eq!((said("note"), said("warning")), (1, 0), "{err}");
}

/// Trial 24c F9: a fill after this run's own erase of its range writes into the holes the erase punched:
/// the warning keeps its key and says that is expected, naming the erase; where the last erase touching the
/// range held only part of it, the plain text (the holes may be the file's own).
#[test]
fn holes_after_the_runs_own_erase_are_expected() {
    let dir = tempdir();
    let erase = |name: &str, span: &str| {
        format!("[[phase]]\nname = \"{name}\"\nkind = \"erase\"\nspan = \"{span}\"\n")
    };
    let fill = |name: &str| format!("[[phase]]\nname = \"{name}\"\nkind = \"fill\"\n");
    let body = [
        erase("purge", "100%"),
        fill("fill"),
        erase("half", "50%"),
        fill("refill"),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("holes", &body));
    let (results, err) = run_on_file(dir.path());
    let expected = "writes into holes: as expected after this run's erase (phase \"purge\"): 8388608 B (100.0 %) of the write range [0, 8388608) are holes in the file: at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work";
    // Half erased: holes the erase punched, not the preallocated file's unwritten blocks.
    let plain = "writes into holes: latencies include the file system's allocation work; expected of a fill: 4194304 B (50.0 %) of the write range [0, 8388608) are holes in the file (never written, or punched): at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work; the phases after it write into written blocks";
    assert_eq!(
        warnings(&results),
        vec![
            vec![],
            vec![expected.to_string()],
            vec![],
            vec![plain.to_string()]
        ]
    );
    // On the console the clause comes before the cut; holes this run's erase made are a note, not a
    // warning: nothing to fix (issue 24 leftovers). The results keep it among the warnings; the cut line
    // names the command that prints them whole, with the results folder.
    let line = "note: phase fill: writes into holes: as expected after this run's erase (phase \"purge\"): 8388608 B (100.0 %) of the write range [0, 8388608) are holes in the file: at… (in full: wkrun warnings out)";
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("as expected"))
            .collect::<Vec<_>>(),
        [line]
    );
    // The fill into the holes the run did not all make is a note too: laying blocks out is what a fill
    // does (trial 13 F8; it was a warning).
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("expected of a fill"))
            .collect::<Vec<_>>(),
        [
            "note: phase refill: writes into holes: latencies include the file system's allocation work; expected of a fill: 4194304 B (50.0 %) of the write range [0, 8388608) are… (in full: wkrun warnings out)"
        ]
    );
}

/// The note of the 2 MiB of holes the phase `trim` punched, when the workload `w` after it writes the file.
const TRIMS_NOTE: &str = "writes into holes: as expected after this run's trims (phase \"trim\"): 2097152 B (25.0 %) of the write range [0, 8388608) are holes in the file, punched by its trims (or never written): at the first write into each the filesystem allocates the block, so the write numbers include that work";

/// Runs a fill, the phase `trim` (64 KiB sequential trims, with `lines`), and the workload `w` that writes
/// 1 MiB in 4 KiB random writes over the 8 MiB file: the results and stderr.
fn fill_trim_write(lines: &str) -> (serde_json::Value, String) {
    let dir = tempdir();
    let body = [
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\n".to_string(),
        format!("[[phase]]\nname = \"trim\"\nkind = \"workload\"\npattern = \"sequential\"\nblock_size = \"64KiB\"\nread_percent = 0\ntrim_percent = 100\n{lines}"),
        workload("w", "4KiB", 0, ""),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("trimholes", &body));
    run_on_file(dir.path())
}

/// Trial 18 F4: the holes a phase's trims punched were blamed on a missing fill ("run a fill first", after
/// a fill), and a trim-only phase, which writes nothing, was warned of writing into holes. Now the phase
/// after the trims gets a note naming them, and the trim phase nothing.
#[test]
fn holes_after_the_runs_own_trims_are_expected() {
    let (results, err) = fill_trim_write("size = \"2MiB\"\n");
    // The trim phase: no holes warning (its 32 trims' tail is another's).
    let trim = warnings(&results)[1].clone();
    assert!(trim.iter().all(|w| !w.contains("holes")), "{trim:?}");
    assert_eq!(warnings(&results)[2], [TRIMS_NOTE.to_string()]);
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("after this run's trims"))
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("note: phase w: writes into holes: as expected after this run's trims"),
        "{err}"
    );
}

/// Trial 19 F1: the note of holes after this run's trims blamed one 4 KiB trim for the 16 MiB of holes a
/// sequential write found on the file this run created, and trims on the `null` engine, which punch none,
/// for all of them. Holes past what the trims can have punched are the warning of the preallocated file's
/// unwritten blocks, saying how many bytes the trims account for at most (none on the `null` engine).
#[test]
fn holes_past_the_runs_trims_are_not_blamed_on_them() {
    let unwritten = "writes into unwritten (preallocated) blocks: latencies include the file system's allocation work; run a fill first: 16777216 B (100.0 %) of the write range [0, 16777216) were never written since wkrun created and preallocated the file (fio lays out a file it creates): at the first write into each block the file system marks it written, so this first run's write numbers include that work";
    let cases = [
        (
            "size = \"4KiB\"\n",
            "; at most 4096 B of them are holes this run's trims punched (phase \"t1\")",
        ),
        ("size = \"16MiB\"\nengine = \"null\"\n", ""),
    ];
    for (trims, clause) in cases {
        let dir = tempdir();
        let body = format!(
            "[[phase]]\nname = \"t1\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\ntrim_percent = 100\n{trims}[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"64KiB\"\nread_percent = 0\nsize = \"16MiB\"\npattern = \"sequential\"\n"
        );
        write_file(dir.path(), "s.toml", &spec_text("holes", &body));
        let (results, err) = run_on_file_of(dir.path(), "16MiB", &[]);
        assert_eq!(
            warnings(&results)[1],
            [format!("{unwritten}{clause}")],
            "{trims}"
        );
        assert!(!err.contains("after this run's trims"), "{err}");
        assert!(
            err.contains("warning: phase w: writes into unwritten (preallocated) blocks"),
            "{err}"
        );
    }
}

/// The trims of a phase's ramp punch holes too, though its results count only the measured part's: a ramp
/// of 1 s over a 2 MiB span trims all of it many times over (64 KiB trims), the measured part 64 KiB, and
/// the 2 MiB of holes the workload after it finds are still the trims' note.
#[test]
fn holes_a_ramps_trims_punched_are_expected() {
    let (results, err) = fill_trim_write("span = \"2MiB\"\nramp = \"1s\"\nsize = \"64KiB\"\n");
    assert_eq!(
        results["phases"][1]["trim"]["bytes"].as_u64(),
        Some(64 << 10),
        "only the measured part's trims are counted"
    );
    assert_eq!(warnings(&results)[2], [TRIMS_NOTE.to_string()], "{err}");
}

/// The plan says which erase left a phase's holes; a steady block of rounds skips its rounds left, so a
/// phase after it names the erase of the last round run, and `--from` leaves out the erases before it (taken
/// as done, not this run's). A block of rounds (an erase of the whole file, then 1 MiB written sequentially
/// from its start) steady at its second round (a loose rule over 2 rounds), then a fill: the fill writes into
/// the 7 MiB of holes past the last round's 1 MiB.
#[test]
fn holes_after_a_block_of_rounds_name_the_last_erase_run() {
    let body = r#"
[[phase]]
name = "purge"
kind = "erase"
[[phase]]
name = "w"
kind = "workload"
pattern = "sequential"
read_percent = 0
block_size = "4KiB"
size = "1MiB"
[[phase]]
name = "fill"
kind = "fill"
[[repeat]]
name = "r"
phases = ["purge", "w"]
track = { phase = "w", metric = "write_iops" }
max_rounds = 4
window = 2
data_excursion = 100.0
slope_excursion = 100.0
"#;
    let total = 8u64 << 20;
    let after = |erase: &str, bytes: u64| {
        format!(
            "writes into holes: as expected after this run's erase (phase \"{erase}\"): {bytes} B ({:.1} %) of the write range [0, {total}) are holes in the file: at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work",
            bytes as f64 * 100.0 / total as f64
        )
    };
    let dir = tempdir();
    write_file(dir.path(), "s.toml", &spec_text("holes", body));
    let (results, _) = run_on_file(dir.path());
    let ran: Vec<u64> = crate::rounds::by_index(&results).into_keys().collect();
    assert_eq!(
        ran,
        [0, 1, 2, 3, 8],
        "steady at round 2: rounds 3 and 4 skipped"
    );
    assert_eq!(
        warnings(&results),
        vec![
            vec![],
            vec![after("purge[round=1]", total)],
            vec![],
            vec![after("purge[round=2]", total)],
            vec![after("purge[round=2]", total - (1 << 20))],
        ]
    );
    // From round 1's workload on a new sparse file: round 1's erase is taken as done, so its holes are the
    // file's own; the block judges rounds 2 and 3, steady at round 3, whose erase the fill names.
    let dir = tempdir();
    write_file(dir.path(), "s.toml", &spec_text("holes", body));
    let (results, err) = run_on_file_with(dir.path(), &["--from", "w[round=1]"]);
    // A workload's holes stay a warning: run a fill first (trial 13 F8 made only a fill's a note).
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("warning: phase w[round=1]: writes into"))
            .count(),
        1,
        "{err}"
    );
    assert_eq!(
        warnings(&results),
        vec![
            vec![holes(&results, total, false)],
            vec![],
            vec![after("purge[round=2]", total)],
            vec![],
            vec![after("purge[round=3]", total)],
            vec![after("purge[round=3]", total - (1 << 20))],
        ]
    );
}

/// The caution of a loop device without direct I/O: `/dev/loopN is` (or `the target lies on /dev/loopN,`) as
/// `what`, its backing file as `backing`.
fn cached_loop(what: &str, backing: &Path) -> String {
    format!(
        "{what} a loop device without direct I/O: set it up with losetup --direct-io=on: its I/O goes through the page cache of its backing file {} (loop/dio = 0), which can answer reads from memory and absorbs writes, so these numbers describe the host's cache as much as the device",
        backing.display()
    )
}

/// Issue 24 item 2: a loop device without direct I/O (`losetup` without `--direct-io=on`: `loop/dio` = 0)
/// measured the page cache of its backing file (183k IOPS against about 100k on the file itself) with no
/// word. The probe records the loop device and its backing file (`target.page_cached_loop`), and every phase
/// that does I/O on it is flagged in the plan (one line with "page cache") and in its results; a loop device
/// with direct I/O stacked on such a one is flagged as lying on it, and one over a file with direct I/O is not.
#[test]
fn a_loop_device_without_direct_io_warns_of_its_backing_files_page_cache() {
    let test = "cautions::a_loop_device_without_direct_io_warns_of_its_backing_files_page_cache";
    let dir = tempdir();
    let d = dir.path();
    if let Some(why) = loop_unavailable() {
        return skip(test, &why);
    }
    let _g = loop_guard();
    let backing = d.join("b.img");
    sparse_file(&backing, 16 << 20);
    let backing = std::fs::canonicalize(&backing).expect("canonical backing path");
    let cached = match LoopOver::new(&backing) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let name = cached
        .dev
        .file_name()
        .expect("loop name")
        .to_string_lossy()
        .to_string();
    let dio = std::fs::read_to_string(format!("/sys/block/{name}/loop/dio")).unwrap_or_default();
    if dio.trim() != "0" {
        return skip(
            test,
            "losetup made the loop device with direct I/O by default",
        );
    }
    let dev = cached.dev.to_str().expect("utf-8 device path");
    let body = [
        workload("w", "4KiB", 0, "engine = \"libaio\"\nqueue_depth = 4\n"),
        workload("n", "4KiB", 0, "engine = \"null\"\n"),
    ]
    .concat();
    write_file(d, "s.toml", &spec_text("loopcache", &body));
    let want = vec![vec![cached_loop(&format!("{dev} is"), &backing)], vec![]];
    let plan = plan_json(d, Path::new("s.toml"), &cached.dev, &[]);
    assert_eq!(
        plan["target"]["page_cached_loop"],
        serde_json::json!({"device": dev, "backing_file": backing})
    );
    assert_eq!(warnings(&plan), want, "plan --json");
    let (code, text, err) = code_out_err(&wkrun(d, &["plan", "s.toml", "--target", dev]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("page cache")).collect();
    assert_eq!(
        lines,
        [format!(
            "                              warning: {}",
            want[0][0]
        )]
    );
    let results = run_on_device(d, dev);
    assert_eq!(
        results["target"]["page_cached_loop"],
        plan["target"]["page_cached_loop"]
    );
    assert_eq!(warnings(&results), want, "results.json");

    // A loop device with direct I/O over the cached one: its I/O still ends in that page cache.
    let over = match std::process::Command::new("losetup")
        .args(["-f", "--show", "--direct-io=on", dev])
        .output()
    {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        other => {
            return skip(
                test,
                &format!("losetup --direct-io=on over {dev}: {other:?}"),
            );
        }
    };
    let stacked = plan_json(d, Path::new("s.toml"), Path::new(&over), &[]);
    let _ = std::process::Command::new("losetup")
        .args(["-d", &over])
        .status();
    assert_eq!(
        warnings(&stacked),
        vec![
            vec![cached_loop(&format!("the target lies on {dev},"), &backing)],
            vec![]
        ],
        "a direct-I/O loop device over {dev}"
    );
    drop(cached);

    // With direct I/O on a file: no such fact, no caution.
    let direct = match LoopDev::new(d, 16, 512) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let plan = plan_json(d, Path::new("s.toml"), &direct.dev, &[]);
    assert_eq!(plan["target"].get("page_cached_loop"), None);
    assert_eq!(warnings(&plan), vec![Vec::<String>::new(), vec![]]);
    drop(direct);

    // A file on a file system mounted from such a loop device: O_DIRECT on the file ends in that cache too.
    let cached = match LoopOver::new(&backing) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let dev = cached.dev.to_str().expect("utf-8 device path");
    match std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F", dev])
        .output()
    {
        Ok(o) if o.status.success() => {}
        other => return skip(test, &format!("mkfs.ext4 {dev}: {other:?}")),
    }
    let mnt = match Mount::new(d.join("mnt"), &[dev]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let file = plan_json(
        d,
        Path::new("s.toml"),
        &mnt.dir.join("t.img"),
        &["--target-size", "1MiB"],
    );
    assert_eq!(
        warnings(&file),
        vec![
            vec![cached_loop(&format!("the target lies on {dev},"), &backing)],
            vec![]
        ],
        "a file on ext4 on {dev}"
    );
    drop(mnt);
}

const HOST_QUEUE: &str = "queue deeper than the device's: latencies include waits in the host's queue; use queue_depth = 4 or less: queue_depth = 8 is more than the device's queue holds (4, target.queue_depth_max from sysfs): up to 4 I/Os at a time wait in the host's queue, and the device never sees more than 4 at once";

/// A loop device whose queue limits a test changed: detached and removed on drop (also when the test
/// panics), so that the change cannot reach a later user of the device.
struct Lowered {
    dev: Option<LoopDev>,
    index: u32,
}

impl Drop for Lowered {
    fn drop(&mut self) {
        drop(self.dev.take());
        if let Err(e) = remove_loop_device(self.index) {
            eprintln!(
                "note: could not remove /dev/loop{} after changing its queue limits: {e}",
                self.index
            );
        }
    }
}

impl Lowered {
    /// A new 16 MiB loop device with its request queue lowered to 4 (`queue/nr_requests`); Err(why) when
    /// that cannot be done here.
    fn new(d: &Path) -> Result<Lowered, String> {
        let dev = LoopDev::new(d, 16, 512)?;
        let name = dev.sys_name();
        let index = name.trim_start_matches("loop").parse().expect("loop index");
        let held = Lowered {
            dev: Some(dev),
            index,
        };
        let nr = format!("/sys/block/{name}/queue/nr_requests");
        if std::fs::write(&nr, "4").is_err()
            || !std::fs::read_to_string(&nr).is_ok_and(|s| s.trim() == "4")
        {
            return Err("sysfs refused queue/nr_requests = 4 on the loop device".into());
        }
        Ok(held)
    }

    /// The loop device's path.
    fn path(&self) -> &Path {
        &self.dev.as_ref().expect("live loop device").dev
    }
}

/// A loop device whose request queue was lowered to 4 (`queue/nr_requests`): a libaio phase at queue depth 8
/// is flagged before the run and in its results; one at 4 is not.
#[test]
fn a_queue_deeper_than_the_device_holds_warns_with_its_numbers() {
    let test = "a_queue_deeper_than_the_device_holds_warns_with_its_numbers";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let held = match Lowered::new(d) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let dev = held.path().to_str().expect("utf-8 device path");
    let qd = |n: u32| format!("engine = \"libaio\"\nqueue_depth = {n}\nspan = \"1MiB\"\n");
    let body = [
        workload("deep", "4KiB", 0, &qd(8)),
        workload("fits", "4KiB", 0, &qd(4)),
    ]
    .concat();
    write_file(d, "s.toml", &spec_text("qd", &body));
    let want = vec![vec![HOST_QUEUE.to_string()], vec![]];
    let (code, out, err) = code_out_err(&wkrun(d, &["plan", "--json", "s.toml", "--target", dev]));
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&out).expect("plan --json is JSON");
    assert_eq!(plan["target"]["queue_depth_max"], 4, "plan --json target");
    assert_eq!(warnings(&plan), want, "plan --json");
    let results = run_on_device(d, dev);
    assert_eq!(results["target"]["queue_depth_max"], 4, "results target");
    assert_eq!(warnings(&results), want, "results.json");
}

/// psync with one thread more than the CPUs is flagged in the plan; with as many threads as CPUs it is not.
#[test]
fn psync_with_more_threads_than_cpus_warns_of_scheduling_waits() {
    let dir = tempdir();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let psync = |n: usize| format!("engine = \"psync\"\nqueue_depth = {n}\n");
    let body = [
        workload("over", "4KiB", 0, &psync(cpus + 1)),
        workload("fits", "4KiB", 0, &psync(cpus)),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("threads", &body));
    let plan = plan_json(
        dir.path(),
        Path::new("s.toml"),
        Path::new("t.img"),
        &["--target-size", "8MiB"],
    );
    let over = format!(
        "engine = \"psync\" with queue_depth = {n} runs {n} threads on {}: latencies include CPU waits; use io_uring or libaio, which keep the queue in one thread: they share the CPUs, so latencies include waits to be scheduled, not only the device's time",
        cpus_text(cpus as u64),
        n = cpus + 1
    );
    assert_eq!(warnings(&plan), vec![vec![over], vec![]]);
    // The run's stderr line says what to do before its cut.
    let (_, err) = run_on_file(dir.path());
    let said = err
        .lines()
        .find(|l| l.contains("threads on "))
        .unwrap_or_default();
    assert!(
        said.starts_with("warning: phase over: engine = \"psync\" with queue_depth = ")
            && said.contains("latencies include CPU waits; use io_uring or libaio"),
        "{err}"
    );
}

/// The results' `host` of phase `i`: (submit_cpu_fraction, submit_threads), or `None` when absent.
fn host(results: &serde_json::Value, i: usize) -> Option<(f64, u64)> {
    let h = results["phases"][i].get("host")?;
    Some((
        h["submit_cpu_fraction"].as_f64().expect("fraction"),
        h["submit_threads"].as_u64().expect("threads"),
    ))
}

/// The `null` engine does no I/O, so its one submitting thread is CPU-bound: the fraction is near 1 and the
/// phase warns that the host may have set the pace. On a loaded machine the thread can be descheduled for a
/// while and the fraction fall below 0.95; then only the field is checked (and no warning may appear).
#[test]
fn a_cpu_bound_submitting_thread_warns_that_the_host_set_the_pace() {
    let dir = tempdir();
    let body = workload(
        "null",
        "4KiB",
        0,
        "engine = \"null\"\nqueue_depth = 32\nduration = \"300ms\"\n",
    )
    .replace("size = \"1MiB\"\n", "");
    write_file(dir.path(), "s.toml", &spec_text("cpu", &body));
    let (results, err) = run_on_file(dir.path());
    let (fraction, threads) = host(&results, 0).expect("host of the null phase");
    assert_eq!(threads, 1);
    assert!((0.0..=1.0).contains(&fraction), "{fraction}");
    assert_eq!(
        host(&results, 1),
        None,
        "the simulated drive's time is virtual"
    );
    let w = [results["phases"][0]["warnings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or("").to_string())
                .filter(|s| {
                    !is_thin_tail(s) && !s.starts_with(SHORT_PHASE) && !s.starts_with(BUSY_HOST)
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()];
    if fraction >= 0.95 {
        let text = format!(
            "the submitting thread was busy {:.0} % of the phase: wkrun (the host), not the device, may have set the pace",
            (fraction * 100.0).floor()
        );
        assert_eq!(w[0], vec![text.clone()]);
        assert_eq!(
            err.matches(&format!("warning: phase null: {text}\n"))
                .count(),
            1,
            "{err}"
        );
    } else {
        eprintln!(
            "note: the null engine's thread was busy only {fraction:.3} of the phase (a loaded machine)"
        );
        assert_eq!(w[0], Vec::<String>::new());
    }
}

/// A submitting thread that shares its one CPU with a busy loop waits for it about half the phase: the
/// results record the share (`host.cpu_wait_fraction`; the thread is gone by then, so the value is bounded,
/// not recomputed: the loop and the thread each get about half of the CPU) and the phase warns of a busy
/// host with that share, once in the results and once on stderr.
#[test]
fn a_thread_that_waits_for_a_shared_cpu_warns_of_a_busy_host() {
    if !Path::new("/proc/thread-self/schedstat").exists() {
        return skip(
            "a_thread_that_waits_for_a_shared_cpu_warns_of_a_busy_host",
            "the kernel keeps no schedstat (CONFIG_SCHED_INFO)",
        );
    }
    let cpu = wkrun::sys::cpu::allowed_cpus().expect("affinity")[0].to_string();
    let dir = tempdir();
    let body = workload(
        "null",
        "4KiB",
        0,
        "engine = \"null\"\nqueue_depth = 32\nduration = \"1s\"\n",
    )
    .replace("size = \"1MiB\"\n", "");
    write_file(dir.path(), "s.toml", &spec_text("shared", &body));
    let mut hog = std::process::Command::new("taskset")
        .args(["-c", &cpu, "sh", "-c", "while :; do :; done"])
        .spawn()
        .expect("taskset (util-linux)");
    let out = std::process::Command::new("taskset")
        .args(["-c", &cpu, wkrun_bin(), "s.toml", "--target", "t.img"])
        .args(["--target-size", "1MiB", "-o", "o"])
        .current_dir(dir.path())
        .output()
        .expect("taskset");
    let _ = hog.kill();
    let _ = hog.wait();
    let (code, _, err) = code_out_err(&out);
    assert_eq!(code, 0, "{err}");
    let results = results(&dir.path().join("o"));
    let p = &results["phases"][0];
    let waited = p["host"]["cpu_wait_fraction"]
        .as_f64()
        .expect("cpu_wait_fraction");
    // The loop and the thread share the CPU about evenly; other tests' processes only add to the wait.
    assert!((0.3..=1.0).contains(&waited), "{waited}");
    // A thread is running, waiting for a CPU or asleep: its two shares add up to at most its wall time.
    let busy = p["host"]["submit_cpu_fraction"].as_f64().expect("busy");
    assert!(busy + waited <= 1.02, "busy {busy} + waited {waited}");
    let text = format!(
        "busy host: the rates are below the device's; rerun on an idle host: a submitting thread waited for a CPU {:.0} % of the phase (other processes or more threads than CPUs held them), and completions waited with it",
        (waited * 100.0).floor()
    );
    let all: Vec<&str> = p["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert_eq!(all.iter().filter(|w| **w == text).count(), 1, "{all:?}");
    assert_eq!(err.matches("busy host: ").count(), 1, "{err}");
    // Its stderr line says what to do before the cut.
    let said = err
        .lines()
        .find(|l| l.contains("busy host: "))
        .unwrap_or_default();
    assert!(
        said.contains("busy host: the rates are below the device's; rerun on an idle host: "),
        "{said}"
    );
}

/// psync threads wait in their own syscalls: they are measured (one each) but not judged.
#[test]
fn psync_threads_are_measured_but_not_judged() {
    let dir = tempdir();
    let body = workload("psync", "4KiB", 0, "engine = \"psync\"\nqueue_depth = 2\n");
    write_file(dir.path(), "s.toml", &spec_text("psync", &body));
    let (results, _) = run_on_file(dir.path());
    let (fraction, threads) = host(&results, 0).expect("host of the psync phase");
    assert_eq!(threads, 2);
    assert!((0.0..=1.0).contains(&fraction), "{fraction}");
    let all = &results["phases"][0]["warnings"];
    assert!(!all.to_string().contains(HOST_PACE), "{all}");
}

/// Console warnings are one line each, at most 200 bytes, a warning of several phases said once with the
/// phases named; `wkrun plan` and results.json keep the whole text (issue 24 item 5: the page-cache
/// paragraph, 40 words, was printed once per phase, and again per rank).
#[test]
fn console_warnings_are_one_line_each_and_said_once_for_several_phases() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[defaults]\ndirect = false\n\
                [[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n\
                [[phase]]\nname = \"r\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 100\nduration = \"1s\"\n";
    write_file(d, "s.toml", &spec_text("warn", body));
    let args = [
        "s.toml",
        "--target",
        "w.img",
        "--target-size",
        "64MiB",
        "-o",
        "w",
    ];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    // (The fill's holes are a note: trial 13 F8.)
    let warned: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(
        warned
            .iter()
            .filter(|l| l.contains("page cache"))
            .copied()
            .collect::<Vec<_>>(),
        [
            "warning: phases f, r: direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory and… (in full: wkrun warnings w)"
        ]
    );
    for l in &warned {
        assert!(l.len() <= 200 && l.starts_with("warning: phase"), "{l}");
    }
    let r = results(&d.join("w"));
    for i in 0..2 {
        assert_eq!(r["phases"][i]["warnings"][0], PAGE_CACHE);
    }
    // `wkrun warnings DIR` says each whole after its phase, in the results' order (trial 13 F3).
    let (code, out, err) = code_out_err(&wkrun(d, &["warnings", "w"]));
    assert_eq!((code, err.as_str()), (0, ""));
    let mut want = String::new();
    for (i, p) in r["phases"].as_array().expect("phases").iter().enumerate() {
        for w in p["warnings"].as_array().into_iter().flatten() {
            want.push_str(&format!(
                "phase {i} \"{}\": {}\n",
                p["name"].as_str().expect("name"),
                w.as_str().expect("text")
            ));
        }
    }
    assert_eq!(out, want);
    for phase in ["phase 0 \"f\"", "phase 1 \"r\""] {
        assert!(out.contains(&format!("{phase}: {PAGE_CACHE}\n")), "{out}");
    }
    assert!(PAGE_CACHE.len() > 200);
    let (code, plan, _) = code_out_err(&wkrun(d, &["plan", "s.toml", "--target", "w.img"]));
    assert_eq!(code, 0);
    assert_eq!(
        plan.matches(&format!("warning: {PAGE_CACHE}\n")).count(),
        2,
        "{plan}"
    );
    // A folder `validate` and `compare` refuse (a series CSV cut to its header) is refused by `warnings`
    // too, with compare's words, exit 2 (attack 15: `warnings` read the results.json alone).
    let csv = d.join("w").join("01-r.csv");
    let text = std::fs::read_to_string(&csv).expect("01-r.csv");
    std::fs::write(&csv, format!("{}\n", text.lines().next().expect("header"))).expect("cut");
    let (code, out, err) = code_out_err(&wkrun(d, &["warnings", "w"]));
    let (ccode, _, cerr) = code_out_err(&wkrun(d, &["compare", "w"]));
    assert_eq!((code, out.as_str(), ccode), (2, "", 2));
    assert_eq!(err, cerr);
    assert!(err.contains("01-r.csv"), "{err}");
}

/// The caution of a file target `path` on the in-memory file system `fs`.
fn in_memory(path: &Path, fs: &str) -> String {
    format!(
        "{} is on {fs}, a file system in memory: its reads and writes are copies to and from the host's RAM, so these numbers describe RAM, not a drive",
        path.display()
    )
}

/// Attack of session 24, item 1: a file on tmpfs (which takes O_DIRECT on this kernel) measured RAM with no
/// word; on ramfs (no O_DIRECT) the run failed with EINVAL after creating the file. Now the tmpfs file is
/// flagged in the plan and in its results, and a direct phase on ramfs is refused with exit 2, nothing made.
#[test]
fn a_file_in_memory_is_flagged_and_direct_io_on_ramfs_refused_before_anything_is_made() {
    let test = "cautions::a_file_in_memory_is_flagged_and_direct_io_on_ramfs_refused_before_anything_is_made";
    let dir = tempdir();
    let d = dir.path();
    let tmpfs = match Mount::tmpfs(d.join("tmpfs"), "4m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let io = "engine = \"io_uring\"\nqueue_depth = 64\n";
    let body = [
        workload("w", "4KiB", 0, io),
        workload("r", "4KiB", 100, io),
        workload("n", "4KiB", 0, "engine = \"null\"\n"),
    ]
    .concat();
    write_file(d, "s.toml", &spec_text("mem", &body));
    // Written whole first, so that the run's own warnings (writes into holes, never-written reads) stay out.
    let target = tmpfs.dir.join("t.img");
    std::fs::write(&target, noise(2 << 20, 1)).expect("file on tmpfs");
    let flagged = in_memory(&target, "tmpfs");
    let want = vec![vec![flagged.clone()], vec![flagged.clone()], vec![]];
    let plan = plan_json(d, Path::new("s.toml"), &target, &[]);
    assert_eq!(warnings(&plan), want, "plan --json");
    let shown = target.to_str().expect("utf-8 path");
    let args = ["s.toml", "--target", shown];
    let (code, text, err) = code_out_err(&wkrun(d, &[&["plan"], &args[..]].concat()));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        text.matches(&format!("warning: {flagged}")).count(),
        2,
        "{text}"
    );
    let (code, _, err) = code_out_err(&wkrun(d, &[&args[..], &["-q", "-o", "out"]].concat()));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        warnings(&strict_results(&d.join("out")).1),
        want,
        "results.json"
    );
    // Trial 22 F6: compare of two runs on it says what the run says, RAM, not a drive (it said a file
    // system and page cache).
    let (code, _, err) = code_out_err(&wkrun(d, &[&args[..], &["-q", "-o", "again"]].concat()));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = code_out_err(&wkrun(d, &["compare", "out", "again"]));
    assert_eq!(code, 0, "{err}");
    let said = format!(
        ": on tmpfs, a file system in memory ({shown}): its reads and writes are copies to and from the host's RAM, so these numbers describe RAM, not a drive, so the changes and the composite may be noise, differing from run to run"
    );
    assert!(format!("{out}{err}").contains(&said), "{out}{err}");
    drop(tmpfs);

    let ramfs = match Mount::new(d.join("ramfs"), &["-t", "ramfs", "ramfs"]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let target = ramfs.dir.join("t.img");
    let shown = target.to_str().expect("utf-8 path");
    let args = ["s.toml", "--target", shown, "--target-size", "2MiB"];
    let refused = format!(
        "phase[0] \"w\".direct: direct = true cannot work on {shown}: {} is on ramfs, which has no direct I/O (O_DIRECT)",
        ramfs.dir.display()
    );
    for cmd in [&["plan"][..], &["run"]] {
        let out: &[&str] = if cmd == ["run"] { &["-o", "out2"] } else { &[] };
        let (code, _, err) = code_out_err(&wkrun(d, &[cmd, &args[..], out].concat()));
        assert_eq!(code, 2, "{cmd:?}: {err}");
        assert!(err.contains(&refused), "{cmd:?}: {err}");
        assert_eq!(dir_listing(&ramfs.dir), Vec::<String>::new(), "{cmd:?}");
        assert!(!d.join("out2").exists(), "{cmd:?}");
    }
    // An existing file there: the open with O_DIRECT is tried, and refused by the kernel.
    std::fs::write(&target, vec![0u8; 1 << 20]).expect("file on ramfs");
    let (code, _, err) = code_out_err(&wkrun(d, &["s.toml", "--target", shown, "-o", "out2"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("phase[0] \"w\".direct: direct = true cannot work on {shown}: it is on ramfs, which has no direct I/O: opening it with O_DIRECT fails (Invalid argument (errno 22))")),
        "{err}"
    );
    assert!(!d.join("out2").exists());
    // Buffered, it runs, flagged.
    let buffered = workload("b", "4KiB", 0, "direct = false\n");
    write_file(d, "b.toml", &spec_text("memb", &buffered));
    let plan = plan_json(d, Path::new("b.toml"), &target, &[]);
    assert_eq!(
        warnings(&plan),
        vec![vec![in_memory(&target, "ramfs"), PAGE_CACHE.to_string()]]
    );
    std::fs::remove_file(&target).expect("remove");
    drop(ramfs);
}

/// Attack of session 24, item 2: a file on a file system on a loop device whose queue holds 4 requests got
/// no caution at queue depth 8; the file's queue limit is now its file system's device's.
#[test]
fn a_queue_deeper_than_the_device_under_a_file_holds_warns() {
    let test = "cautions::a_queue_deeper_than_the_device_under_a_file_holds_warns";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let held = match Lowered::new(d) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let path = held.path().to_path_buf();
    match std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&path)
        .output()
    {
        Ok(o) if o.status.success() => {}
        other => return skip(test, &format!("mkfs.ext4: {other:?}")),
    }
    let mnt = match Mount::new(d.join("mnt"), &[path.to_str().expect("utf-8")]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let qd = |n: u32| format!("engine = \"io_uring\"\nqueue_depth = {n}\nspan = \"1MiB\"\n");
    let body = [
        workload("deep", "4KiB", 0, &qd(8)),
        workload("fits", "4KiB", 0, &qd(4)),
    ]
    .concat();
    write_file(d, "s.toml", &spec_text("qd", &body));
    let want = vec![vec![HOST_QUEUE.to_string()], vec![]];
    // Written whole first, so that the run's own warning of writes into holes stays out.
    let target = mnt.dir.join("t.img");
    std::fs::write(&target, noise(2 << 20, 1)).expect("file on ext4");
    let plan = plan_json(d, Path::new("s.toml"), &target, &[]);
    assert_eq!(plan["target"]["queue_depth_max"], 4, "plan --json target");
    assert_eq!(warnings(&plan), want, "plan --json");
    let shown = target.to_str().expect("utf-8 path");
    let args = ["s.toml", "--target", shown, "-q", "-o", "out"];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    let results = strict_results(&d.join("out")).1;
    assert_eq!(results["target"]["queue_depth_max"], 4, "results target");
    assert_eq!(warnings(&results), want, "results.json");
    std::fs::remove_file(&target).expect("remove the target");
    drop(mnt);
}

/// Attack of session 24, item 3: a running program as the target of a run that writes failed with exit 1
/// (ETXTBSY) after naming its results folder; now it is refused with exit 2, nothing made.
#[test]
fn a_running_program_as_a_target_is_refused_before_anything_is_made() {
    let dir = tempdir();
    let d = dir.path();
    let wk = d.join("wk");
    std::fs::copy(wkrun_bin(), &wk).expect("copy of wkrun");
    let before = read(&wk);
    write_file(
        d,
        "s.toml",
        &spec_text("busy", &workload("w", "4KiB", 0, "")),
    );
    let out = std::process::Command::new(&wk)
        .args(["s.toml", "--target", "./wk", "-o", "o"])
        .current_dir(d)
        .output()
        .expect("run the copy");
    let (code, stdout, err) = code_out_err(&out);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: refusing to write to ./wk: ./wk is a program that is running: the kernel refuses to open it for writing (Text file busy (errno 26))"
    );
    assert!(!stdout.contains("results:"), "{stdout}");
    assert!(!d.join("o").exists());
    assert_eq!(read(&wk), before);
    // A run that only reads it is a run like any other.
    write_file(
        d,
        "r.toml",
        &spec_text("busyr", &workload("r", "4KiB", 100, "")),
    );
    let plan = plan_json(d, Path::new("r.toml"), &wk, &[]);
    assert_eq!(plan["phases"][0]["name"], "r");
}

/// Issue 24 leftovers: a warning met in every phase, differing only in its numbers (here the read span of
/// never-written reads; on a loaded host the busy host's share of the phase), is said on the console when
/// the first phase meets it and once more at the end, naming every phase; the results keep each phase's.
#[test]
fn a_warning_of_every_phase_is_said_once_more_at_the_end_naming_them() {
    let dir = tempdir();
    let read = |name: &str, span: &str| {
        format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nread_percent = 100\nspan = \"{span}\"\nsize = \"64KiB\"\n"
        )
    };
    let body = [read("r1", "25%"), read("r2", "50%"), read("r3", "100%")].concat();
    write_file(dir.path(), "s.toml", &spec_text("reads", &body));
    let sim = "sim:capacity=64MiB,block=256KiB";
    let (code, _, err) = code_out_err(&wkrun(
        dir.path(),
        &["s.toml", "--target", sim, "-o", "out"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines().skip(1).collect::<Vec<_>>(),
        [
            "3 phases, numbered 0 to 2",
            "warning: phase r1: never-written reads: 100.0 % of the span was not written in this run: add a fill phase before this one, or reads there may not reach the device… (in full: wkrun warnings out)",
            "warning: phases r1, r2, r3: never-written reads: 100.0 % of the span was not written in this run: add a fill phase before this one, or reads there may not reach the… (in full: wkrun warnings out)",
        ]
    );
    let (results, _) = strict_results(&dir.path().join("out"));
    let span = |end: u64| {
        format!(
            "never-written reads: 100.0 % of the span was not written in this run: add a fill phase before this one, or reads there may not reach the device (read span [0, {end}), first gap [0, {end})); if an earlier run filled it, they do and this warning does not apply (wkrun sees only this run's writes)"
        )
    };
    let said: Vec<Vec<String>> = results
        .phases
        .iter()
        .map(|p| {
            p.warnings
                .iter()
                .filter(|w| w.starts_with("never-written"))
                .cloned()
                .collect()
        })
        .collect();
    assert_eq!(said, [[span(16 << 20)], [span(32 << 20)], [span(64 << 20)]]);
    // The line at the end says the numbers that differ as ranges.
    let texts: Vec<&str> = said.iter().map(|w| w[0].as_str()).collect();
    assert_eq!(
        wkrun::run::observer::merged(&texts),
        "never-written reads: 100.0 % of the span was not written in this run: add a fill phase before this one, or reads there may not reach the device (read span [0, 16777216–67108864), first gap [0, 16777216–67108864)); if an earlier run filled it, they do and this warning does not apply (wkrun sees only this run's writes)"
    );
}
