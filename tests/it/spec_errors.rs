//! Bad input: every bad spec or command line gets its own clear error naming the file, line, column and
//! field, exits 2 and writes nothing (the target keeps its bytes, no results folder appears). Also the plan
//! cases whose numbers come from the spec and the target's geometry alone: C02 (O_DIRECT alignment on a
//! 4096-byte-sector device), C04 (span rounding) and C11 (long durations).

use crate::common::{
    LoopDev, code_out_err, dir_listing, loop_guard, patterned_file, plan_json, read, skip,
    spec_text, tempdir, wkrun, write_file,
};
use std::fs;
use std::path::Path;

/// Length of the patterned file target that refused runs must leave untouched.
const TARGET_LEN: usize = 64 << 10;

/// A block-size mix.
const MIX: &str = "{ \"4KiB\" = 50, \"64KiB\" = 50 }";

/// The smallest valid phase (lines 5-7 of a [`spec_text`] spec).
const ERASE: &str = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n";

/// A spec whose phase "w" is a workload: `[[phase]]` on line 5, `name` 6, `kind` 7, then `rest` from line 8.
fn workload(rest: &str) -> String {
    spec_text(
        "t",
        &format!("[[phase]]\nname = \"w\"\nkind = \"workload\"\n{rest}"),
    )
}

/// A spec whose workload "w" has `lines` from line 8, then its bounds (`read_percent = 0`, `duration = "1s"`).
fn line8(lines: &str) -> String {
    workload(&format!("{lines}\nread_percent = 0\nduration = \"1s\"\n"))
}

/// A spec whose workload "w" has its bounds on lines 8 and 9 (`read_percent = 0`, `duration = "1s"`), then
/// `lines` from line 10.
fn line10(lines: &str) -> String {
    workload(&format!("read_percent = 0\nduration = \"1s\"\n{lines}\n"))
}

/// [`line8`] with `direct = true` on line 8 and `line` on line 9.
fn sized(line: &str) -> String {
    line8(&format!("direct = true\n{line}"))
}

/// A spec with `body` from line 5.
fn spec(body: &str) -> String {
    spec_text("t", body)
}

/// One bad spec and the error it must give.
struct Bad {
    /// File name of the spec, in the test's folder (which is also the working directory).
    file: &'static str,
    /// The file's bytes.
    bytes: Vec<u8>,
    /// The first stderr line, exactly; a trailing `…` makes it a prefix.
    first: String,
    /// The text of the `help:` line, exactly; a trailing `…` makes it a prefix.
    help: Option<String>,
    /// The error needs the target's geometry or files beside the spec, so it is found by `plan` and `run`;
    /// `wkrun validate` (no I/O) accepts the spec.
    at_plan: bool,
}

/// A bad spec whose first error line is `error: FILE` followed by `after_file` (`:LINE:COL: FIELD: MESSAGE`).
fn bad(file: &'static str, bytes: impl Into<Vec<u8>>, after_file: impl AsRef<str>) -> Bad {
    Bad {
        file,
        bytes: bytes.into(),
        first: format!("error: {file}{}", after_file.as_ref()),
        help: None,
        at_plan: false,
    }
}

impl Bad {
    fn help(mut self, h: impl Into<String>) -> Bad {
        self.help = Some(h.into());
        self
    }
    fn at_plan(mut self) -> Bad {
        self.at_plan = true;
        self
    }
}

/// `text` equals `want`, or starts with it when `want` ends with `…`.
fn fits(text: &str, want: &str) -> bool {
    match want.strip_suffix('…') {
        Some(prefix) => text.starts_with(prefix),
        None => text == want,
    }
}

/// Runs `wkrun ARGS` in `dir` and checks the refusal: exit 2, nothing on stdout, the first stderr line and the
/// help line. Returns stderr.
fn expect_refusal(
    dir: &Path,
    args: &[&str],
    first: &str,
    help: Option<&str>,
) -> Result<String, String> {
    let (code, out, err) = code_out_err(&wkrun(dir, args));
    let cmd = args.join(" ");
    if code != 2 {
        return Err(format!(
            "`wkrun {cmd}`: exit code {code}, want 2\n--- stdout\n{out}--- stderr\n{err}"
        ));
    }
    if !out.is_empty() {
        return Err(format!(
            "`wkrun {cmd}`: printed on stdout although it failed:\n{out}"
        ));
    }
    let line1 = err.lines().next().unwrap_or("");
    if !fits(line1, first) {
        return Err(format!(
            "`wkrun {cmd}`: first stderr line\n  got:  {line1}\n  want: {first}\n--- stderr\n{err}"
        ));
    }
    if let Some(h) = help {
        let got: Vec<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix("  help: "))
            .collect();
        if !got.iter().any(|g| fits(g, h)) {
            return Err(format!(
                "`wkrun {cmd}`: help\n  got:  {got:?}\n  want: {h}\n--- stderr\n{err}"
            ));
        }
    }
    Ok(err)
}

/// [`expect_refusal`] without a help line to check, panicking with its message when the refusal is not as
/// wanted. Returns stderr.
fn refused(dir: &Path, args: &[&str], first: &str) -> String {
    expect_refusal(dir, args, first, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes `text` to `dir/file` and checks that `wkrun validate FILE` refuses it with the first stderr line
/// `first` ([`refused`]). Returns stderr.
fn validate_refused(dir: &Path, file: &str, text: &str, first: &str) -> String {
    write_file(dir, file, text);
    refused(dir, &["validate", file], first)
}

/// The words of a command line (split at spaces): `words("plan t.toml --json")`.
fn words(line: &str) -> Vec<&str> {
    line.split(' ').collect()
}

/// `wkrun plan --json SPEC --target TARGET` in `dir` (exit 0), as JSON.
fn plan_value(dir: &Path, spec: &str, target: &str) -> serde_json::Value {
    plan_json(dir, Path::new(spec), Path::new(target), &[])
}

/// Checks one bad spec with `run`, `plan`, `plan --json` and `validate` against a patterned file target.
fn check_bad(b: &Bad) -> Result<(), String> {
    let d = tempdir();
    let dir = d.path();
    fs::write(dir.join(b.file), &b.bytes).map_err(|e| e.to_string())?;
    let target = dir.join("target.img");
    patterned_file(&target, TARGET_LEN);
    let bytes_before = read(&target);
    let listing_before = dir_listing(dir);
    let (f, help) = (b.file, b.help.as_deref());
    for args in [
        &[f, "--target", "target.img", "-o", "out"][..],
        &["run", f, "--target", "target.img", "--output", "out"],
        &["plan", f, "--target", "target.img"],
        &["plan", f, "--target", "target.img", "--json"],
    ] {
        expect_refusal(dir, args, &b.first, help)?;
    }
    if b.at_plan {
        let (code, out, err) = code_out_err(&wkrun(dir, &["validate", b.file]));
        if code != 0 || !out.starts_with(&format!("{}: ok (", b.file)) {
            return Err(format!(
                "`wkrun validate` (no target, no I/O) should accept it: exit {code}\n{out}{err}"
            ));
        }
    } else {
        expect_refusal(dir, &["validate", b.file], &b.first, help)?;
        // `export fio` refuses what `validate` does, and writes no job file (attack 27 F3).
        expect_refusal(
            dir,
            &["export", "fio", b.file, "-o", "out.fio"],
            &b.first,
            help,
        )?;
    }
    if read(&target) != bytes_before {
        return Err("the target's bytes changed".into());
    }
    let listing_after = dir_listing(dir);
    if listing_after != listing_before {
        return Err(format!(
            "files appeared or vanished: before {listing_before:?}, after {listing_after:?}"
        ));
    }
    Ok(())
}

/// Logical block size wkrun reports for a file target in a fresh temporary folder (the O_DIRECT alignment).
fn file_target_lbs() -> u64 {
    let d = tempdir();
    write_file(d.path(), "ok.toml", &spec(ERASE));
    patterned_file(&d.path().join("target.img"), TARGET_LEN);
    plan_value(d.path(), "ok.toml", "target.img")["target"]["logical_block_size"]
        .as_u64()
        .expect("logical_block_size")
}

/// Every bad spec of the table, with its error. `lbs`: the file target's logical block size.
fn bad_specs(lbs: u64) -> Vec<Bad> {
    let mut rows = vec![
        // Unknown and misspelled keys, at every level and in every phase kind.
        bad("top-unknown.toml", format!("format = 1\nbogus = true\n[spec]\nname = \"t\"\nversion = \"1\"\n{ERASE}"),
            ":2:1: bogus: unknown key `bogus`")
            .help("known keys here: format, spec, target, defaults, phase, sweep, repeat"),
        bad("top-typo.toml", spec(&format!("[defualts]\nseed = 1\n{ERASE}")), ":5:2: defualts: unknown key `defualts`")
            .help("did you mean `defaults`?"),
        bad("spec-typo.toml", spec(&format!("descripton = \"x\"\n{ERASE}")),
            ":5:1: spec.descripton: unknown key `descripton`")
            .help("did you mean `description`?"),
        bad("target-typo.toml", spec(&format!("[target]\npth = \"x.img\"\n{ERASE}")),
            ":6:1: target.pth: unknown key `pth`")
            .help("did you mean `path`?"),
        bad("wc-file.toml", spec(&format!("[target]\nwrite_cache = \"off\"\n{ERASE}")),
            ":6:1: target.write_cache: write_cache = \"off\" cannot be set on target.img: a regular file has no write cache of its own: the volatile write cache of the device under its file system is not read or set through a file")
            .help("use write_cache = \"keep\" (the default), or run on an NVMe namespace or a SCSI or SATA disk")
            .at_plan(),
        bad("zbd-file.toml", spec("[[phase]]\nname = \"f\"\nkind = \"fill\"\nzone_mode = \"zbd\"\nblock_size = \"4KiB\"\n"),
            ":8:1: phase[0] \"f\".zone_mode: zone_mode = \"zbd\" writes at zones' write pointers, but target.img is not a zoned block device")
            .help("drop zone_mode (or run on a host-managed zoned device)")
            .at_plan(),
        bad("zbd-verify.toml", spec("[[phase]]\nname = \"v\"\nkind = \"verify\"\nzone_mode = \"zbd\"\n"),
            ":8:1: phase[0] \"v\".zone_mode: key `zone_mode` does not apply to a phase of kind \"verify\""),
        bad("polled-file.toml", workload("engine = \"io_uring\"\npolled = true\nread_percent = 100\nduration = \"1s\"\n"),
            ":9:1: phase[0] \"w\".polled: polled = true cannot work here: target.img is not a block device, and only a block device's poll queues can be polled")
            .help("drop polled (completions then come by interrupt)")
            .at_plan(),
        bad("sqpoll-libaio.toml", workload("engine = \"libaio\"\nsq_poll = true\nread_percent = 100\nduration = \"1s\"\n"),
            ":9:1: phase[0] \"w\".sq_poll: sq_poll = true asks for a submission polling thread (IORING_SETUP_SQPOLL), an io_uring ring's setting; engine \"libaio\" has none")
            .help("use engine = \"io_uring\"")
            .at_plan(),
        bad("wc-value.toml", spec(&format!("[target]\nwrite_cache = \"of\"\n{ERASE}")),
            ":6:15: target.write_cache: unknown value `of`, expected one of `keep`, `on`, `off`"),
        bad("defaults-typo.toml", spec(&format!("[defaults]\nqueue_dept = 4\n{ERASE}")),
            ":6:1: defaults.queue_dept: unknown key `queue_dept`")
            .help("did you mean `queue_depth`?"),
        bad("erase-typo.toml", spec("[[phase]]\nname = \"purge\"\nkind = \"erase\"\nmethd = \"auto\"\n"),
            ":8:1: phase[0] \"purge\".methd: unknown key `methd`")
            .help("did you mean `method`?"),
        bad("fill-typo.toml", spec("[[phase]]\nname = \"fill\"\nkind = \"fill\"\n    pases = 2\n"),
            ":8:5: phase[0] \"fill\".pases: unknown key `pases`")
            .help("did you mean `passes`?"),
        bad("restore-typo.toml",
            spec(&format!("{ERASE}\n[[phase]]\nname = \"restore\"\nkind = \"restore-image\"\nimage = \"synthetic\"\nimage_szie = \"1MiB\"\n")),
            ":13:1: phase[1] \"restore\".image_szie: unknown key `image_szie`")
            .help("did you mean `image_size`?"),
        bad("workload-typo.toml", workload("read_percnt = 0\nduration = \"1s\"\n"),
            ":8:1: phase[0] \"w\".read_percnt: unknown key `read_percnt`")
            .help("did you mean `read_percent`?"),
        bad("inline-typo.toml",
            "format = 1\nphase = [{ name = \"w\", kind = \"workload\", duraton = \"1s\", read_percent = 0 }]\n[spec]\nname = \"t\"\nversion = \"1\"\n",
            ":2:43: phase[0] \"w\".duraton: unknown key `duraton`")
            .help("did you mean `duration`?"),
        // Keys that exist but not for the phase's kind.
        bad("not-for-workload.toml", line8("image = \"synthetic\""),
            ":8:1: phase[0] \"w\".image: key `image` does not apply to a phase of kind \"workload\"")
            .help(format!(
                "keys for kind \"workload\": {}",
                wkrun::spec::rules::keys_for(wkrun::spec::PhaseKind::Workload).join(", ")
            )),
        bad("not-for-erase.toml", spec("[[phase]]\nname = \"purge\"\nkind = \"erase\"\nblock_size = \"4KiB\"\n"),
            ":8:1: phase[0] \"purge\".block_size: key `block_size` does not apply to a phase of kind \"erase\"")
            .help("keys for kind \"erase\": name, kind, description, imported_from, span, offset, method"),
        // Wrong types and out-of-range numbers, in plain words (not serde's type names).
        bad("qd-string.toml", line8("queue_depth = \"8\""),
            ":8:15: phase[0] \"w\".queue_depth: invalid type: string \"8\", expected a whole number"),
        bad("seed-negative.toml", line8("seed = -1"),
            ":8:8: phase[0] \"w\".seed: invalid value: integer `-1`, expected a non-negative whole number"),
        bad("steady-string.toml", line8("steady_state = \"snia\""),
            ":8:16: phase[0] \"w\".steady_state: invalid type: string \"snia\", expected a table such as { rule = \"snia\" }"),
        // Found by the attack of issue 24, round 2: said "expected struct Track".
        bad("track-number.toml", spec("[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = [70, 0]\nduration = \"1s\"\n[[repeat]]\nname = \"ss\"\nphases = [\"w\"]\ntrack = 5\n"),
            ":13:9: repeat[0].track: invalid type: integer `5`, expected a table such as { phase = \"iops[read=0]\", metric = \"write_iops\" }"),
        bad("qd-huge.toml", line8("queue_depth = 99999999999999999999"),
            ":8:15: phase[0] \"w\".queue_depth: the number 99999999999999999999 is too large"),
        // A misspelled key inside a phase's table is matched against that table's keys, not the phase's.
        bad("steady-key.toml", line8("steady_state = { rule = \"snia\", windw = 5 }"),
            ":8:16: phase[0] \"w\".steady_state: unknown key `windw`")
            .help("did you mean `window`?"),
        bad("steady-rounds.toml", line8("steady_state = { rule = \"snia\", max_round = 40 }"),
            ":8:16: phase[0] \"w\".steady_state: unknown key `max_round`")
            .help("did you mean `max_rounds`?"),
        bad("rate-key.toml", line8("rate_iops = { totl = 5 }"),
            ":8:13: phase[0] \"w\".rate_iops: unknown key `totl`")
            .help("did you mean `total`?"),
        // An abbreviated value.
        bad("pattern-abbrev.toml", line8("pattern = \"seq\""),
            ":8:11: phase[0] \"w\".pattern: unknown value `seq`, expected `random` or `sequential`")
            .help("did you mean `sequential`?"),
        // Durations need their unit.
        bad("duration-bare.toml", workload("read_percent = 0\nduration = 5\n"),
            ":9:12: phase[0] \"w\".duration: bare number 5 has no unit; write a duration as a string with its unit, e.g. \"5s\""),
        bad("duration-no-unit.toml", workload("read_percent = 0\nduration = \"5\"\n"),
            ":9:12: phase[0] \"w\".duration: duration \"5\" has no unit; write \"5s\" for seconds, \"5min\" for minutes or \"5ms\" for milliseconds"),
        // Ranges.
        bad("span-101.toml", line10("span = \"101%\""),
            ":10:1: phase[0] \"w\".span: span = \"101%\" is outside 0..100 % of the target")
            .help("a span is at most \"100%\" of the target's capacity"),
        bad("offset-plus-span.toml", line10("offset = \"50%\"\nspan = \"60%\""),
            ":11:1: phase[0] \"w\".span: offset 50% + span 60% is over 100 % of the target"),
        bad("qd-0.toml", line10("queue_depth = 0"),
            ":10:1: phase[0] \"w\".queue_depth: queue_depth = 0 is out of range")
            .help("queue_depth is 1 to 1024"),
        bad("qd-5000.toml", line10("queue_depth = 5000"),
            ":10:1: phase[0] \"w\".queue_depth: queue_depth = 5000 is out of range")
            .help("queue_depth is 1 to 1024"),
        bad("bs-0.toml", line10("block_size = 0"),
            ":10:1: phase[0] \"w\".block_size: block_size is 0")
            .help("e.g. block_size = \"4KiB\""),
        bad("defaults-bs-0.toml", spec("[defaults]\nblock_size = \"0KiB\"\n[[phase]]\nname = \"f\"\nkind = \"fill\"\n"),
            ":6:1: defaults.block_size: block_size is 0")
            .help("e.g. block_size = \"4KiB\""),
        bad("read-101.toml", workload("read_percent = 101\nduration = \"1s\"\n"),
            ":8:1: phase[0] \"w\".read_percent: read_percent = 101 is outside 0..100")
            .help("0..100"),
        // Required keys and bounds.
        bad("read-missing.toml", workload("duration = \"1s\"\n"), ":5:1: phase[0] \"w\": missing key `read_percent`")
            .help("read_percent = 0 for all writes, 100 for all reads, 65 for a 65/35 mix"),
        bad("both-bounds.toml", line10("size = \"100%\""),
            ":10:1: phase[0] \"w\".size: both `duration` and `size` are set")
            .help("keep one bound: duration = \"...\" or size = \"...\" (size is the bytes to transfer, fio's io_size; the region the I/Os fall in is span)"),
        bad("no-bound.toml", workload("read_percent = 0\n"),
            ":5:1: phase[0] \"w\": a workload needs a bound: `duration` or `size`")
            .help("e.g. duration = \"60s\" or size = \"100%\" (of the span)"),
        bad("kind-missing-2nd.toml", spec(&format!("{ERASE}[[phase]]\nname = \"w\"\nread_percent = 0\n")),
            ":8:1: phase[1] \"w\".kind: missing key `kind`"),
        // Names.
        bad("duplicate-name.toml", spec("[[phase]]\nname = \"x\"\nkind = \"erase\"\n[[phase]]\nname = \"x\"\nkind = \"fill\"\n"),
            ":9:1: phase[1] \"x\".name: phase name \"x\" is already used by phase[0]")
            .help("phase names must be unique"),
        bad("bad-name.toml", spec("[[phase]]\nname = \"a/b\"\nkind = \"erase\"\n"),
            ":6:1: phase[0] \"a/b\".name: phase name \"a/b\" is not usable in a file name")
            .help("use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the phase's CSV file)"),
        // Issue 24 item 22: a name past the length limit says so (it was told to use ASCII letters).
        bad("long-name.toml", spec(&format!("[[phase]]\nname = \"{}\"\nkind = \"erase\"\n", "a".repeat(121))),
            // A name echoed is cut to 80 characters (a 400 KB value was echoed whole).
            format!(":6:1: phase[0] \"{a}… (121 bytes)\".name: phase name \"{a}… (121 bytes)\" is not usable in a file name", a = "a".repeat(80)))
            .help("a name is at most 120 characters (it names the phase's CSV file); this one has 121"),
        bad("unknown-kind.toml", spec("[[phase]]\nname = \"w\"\nkind = \"workloda\"\nread_percent = 0\nduration = \"1s\"\n"),
            ":7:8: phase[0] \"w\".kind: unknown value `workloda`, expected one of `erase`, `fill`, `restore-image`, `workload`, `verify`")
            .help("did you mean `workload`?"),
        // The file as a whole.
        bad("format-2.toml", format!("format = 2\n[spec]\nname = \"t\"\nversion = \"1\"\n{ERASE}"),
            ":1:10: format: unknown spec format 2; this wkrun reads format 1")
            .help("a newer wkrun may read it; otherwise write the spec in format 1…"),
        bad("format-missing.toml", format!("[spec]\nname = \"t\"\nversion = \"1\"\n{ERASE}"),
            ":1:1: format: missing `format`: the spec format version")
            .help("add `format = 1` as the first line"),
        bad("empty.toml", "", ": the spec file is empty")
            .help("a spec needs at least `format = 1`, a [spec] table with name and version, and one [[phase]]"),
        bad("not-utf8.toml", b"format = 1\n[spec]\nname = \"t\xff\"\nversion = \"1\"\n".to_vec(),
            ":3:10: the spec file is not valid UTF-8 (invalid byte at offset 27)")
            .help("TOML files must be UTF-8; re-save the file as UTF-8"),
        bad("bad-toml.toml", "format = 1\n[spec\nname = \"t\"\n", ":2:6: not valid TOML: unclosed table, expected `]`"),
        bad("duplicate-key.toml", "format = 1\n[spec]\nname = \"t\"\nname = \"u\"\n", ":4:1: not valid TOML: duplicate key"),
        // Values.
        bad("engine-typo.toml", line8("engine = \"libaoi\""),
            ":8:10: phase[0] \"w\".engine: unknown value `libaoi`, expected one of `psync`, `libaio`, `io_uring`, `null`")
            .help("did you mean `libaio`?"),
        bad("engine-typo-defaults.toml",
            spec("[defaults]\nengine = \"iouring\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n"),
            ":6:10: defaults.engine: unknown value `iouring`, expected one of `psync`, `libaio`, `io_uring`, `null`")
            .help("did you mean `io_uring`?"),
        bad("data-rnd.toml", line8("data = \"rnd\""),
            ":8:8: phase[0] \"w\".data: unknown data pattern \"rnd\"; use \"random\", \"zeros\" or \"compressible:N%\" (e.g. \"compressible:50%\")"),
        // The target section (found by the attack session: `[[target]]` read as "expected path string", an
        // empty path or a bad simulated entry of `paths` reported without file or line, and `path =
        // "sim:..."` creating a 1 GiB file of that name).
        bad("target-tables.toml", spec(&format!("[[target]]\npath = \"a.img\"\n[[target]]\npath = \"b.img\"\n{ERASE}")),
            ":5:3: target: [[target]] makes a list of tables, and a spec has one [target] table")
            .help("several targets are one [target] table with paths = [\"a.img\", \"/dev/nvme1n1\"]"),
        bad("target-empty-path.toml", spec(&format!("[target]\npath = \"\"\n{ERASE}")),
            ":6:1: target.path: the path is empty")
            .help("name a file or a block device, e.g. \"/dev/nvme1n1\" or \"t.img\""),
        bad("target-sim-path.toml", spec(&format!("[target]\npath = \"sim:capacity=2GiB\"\n{ERASE}")),
            ":6:1: target.path: path names a file, so \"sim:capacity=2GiB\" would create a file of that name")
            .help("a simulated drive is sim = { capacity = \"2GiB\" } (or an entry of paths); a file of that name is \"./sim:...\""),
        bad("target-empty-paths.toml", spec(&format!("[target]\npaths = [\"a.img\", \"\"]\n{ERASE}")),
            ":6:19: target.paths[1]: the path is empty"),
        bad("target-bad-sim.toml", spec(&format!("[target]\npaths = [\"a.img\", \"sim:capacity=bogus\"]\n{ERASE}")),
            ":6:19: target.paths[1]: size \"bogus\" has no number; write e.g. \"4KiB\" or \"1GiB\""),
        // A list holding one value twice said the phase's name was already used (by itself): it says so.
        bad("matrix-twice.toml", workload("read_percent = [0, 0]\nduration = \"1s\"\n"),
            ":8:1: phase[0].read_percent: the read_percent list holds 0 twice: each value of a list makes phases of its own, named by the value (read=0), so two would share a name; list each value once"),
        bad("sweep-twice.toml", spec("[[phase]]\nname = \"f\"\nkind = \"fill\"\n[[sweep]]\nname = \"op\"\nphases = [\"f\"]\nspan = [\"50%\", \"25%\", \"50%\"]\n"),
            ":11:1: sweep[0].span: the span list holds 50% twice: each value of a list makes phases of its own, named by the value (op=50%), so two would share a name; list each value once"),
        bad("target-mixed-clocks.toml", spec(&format!("[target]\npaths = [\"a.img\", \"sim:capacity=1GiB\"]\n{ERASE}")),
            ":6:19: target.paths[1]: \"sim:capacity=1GiB\" (target.paths[1]) is a simulated drive and \"a.img\" (target.paths[0]) a real target: a simulated drive runs in virtual time, so its phases do not overlap the real target's in time and their sum would add virtual-time rates to wall-clock ones; run them separately and `wkrun compare` the two results folders")
            .help("list simulated drives alone, or files and block devices alone"),
        bad("target-rank-template.toml", spec(&format!("[target]\npath = \"t{{rank}}.img\"\n{ERASE}")),
            ":6:1: target.path: {rank} is expanded on the command line only (--target, -o, --allow-destroy), not in the spec: every host would use \"t{rank}.img\" as written")
            .help("give the target on the command line: --target with the template (docs/hosts.md)"),
        // Access distributions (issue 26): values out of range where they are written, combinations the
        // rules refuse, fio's name, zones past the span (by the plan).
        bad("dist-zipf.toml", line8("distribution = \"zipf:0\""),
            ":8:16: phase[0] \"w\".distribution: distribution \"zipf:0\": zipf θ must be above 0"),
        bad("dist-pareto.toml", line8("distribution = \"pareto:1\""),
            ":8:16: phase[0] \"w\".distribution: distribution \"pareto:1\": pareto h must be between 0 and 1 (exclusive), as fio's; h = 0.2 sends 80 % of I/Os to the hottest 20 % of blocks"),
        bad("dist-normal.toml", line8("distribution = \"normal:0\""),
            ":8:16: phase[0] \"w\".distribution: distribution \"normal:0\": normal σ (a fraction of the span) must be above 0"),
        bad("dist-zoned-io.toml", line8("distribution = \"zoned:50/5:30/15:10/80\""),
            ":8:16: phase[0] \"w\".distribution: distribution \"zoned:50/5:30/15:10/80\": the zones' shares of the I/Os sum to 90 %, not 100 %"),
        bad("dist-zoned-span.toml", line8("distribution = \"zoned:50/5:30/15:20/70\""),
            ":8:16: phase[0] \"w\".distribution: distribution \"zoned:50/5:30/15:20/70\": the zones' shares of the span sum to 90 %, not 100 %"),
        bad("dist-full.toml", line8("coverage = \"full\"\ndistribution = \"zipf:1.2\""),
            ":9:1: phase[0] \"w\".distribution: distribution = \"zipf:1.2\" draws offsets with replacement from its law, which has no full-coverage order (coverage = \"full\" visits every block once per pass)")
            .help("drop coverage, or drop distribution"),
        bad("dist-fio-name.toml", line8("random_distribution = \"zipf:1.2\""),
            ":8:1: phase[0] \"w\".random_distribution: unknown key `random_distribution`")
            .help("`random_distribution` is `distribution` in wkrun, spelt the same (distribution = \"zoned:50/5:30/15:20/80\"; fio's \"random\" is \"uniform\"; a normal's deviation is a fraction of the span, fio's normal:10 is normal:0.1)"),
        bad("dist-zoned-abs.toml", sized("distribution = \"zoned_abs:50/32KiB:50/64KiB\""),
            ":9:1: phase[0] \"w\".distribution: distribution = \"zoned_abs:50/32KiB:50/64KiB\": the zones' sizes sum to 96KiB, more than the span's 64KiB (65536 B)")
            .at_plan(),
        // Attack 27 F3: rules that need no target, once the plan's alone (validate and export passed them).
        bad("mix-size.toml", workload(&format!("block_size = {MIX}\nread_percent = 0\nsize = \"1MiB\"\n")),
            ":8:1: phase[0] \"w\".block_size: a block-size mix needs a `duration` bound (a byte bound would be met only on average)"),
        bad("mix-seq.toml", line8(&format!("pattern = \"sequential\"\nblock_size = {MIX}")),
            ":9:1: phase[0] \"w\".block_size: a block-size mix needs pattern = \"random\" with uniform coverage"),
        bad("mix-full.toml", line8(&format!("block_size = {MIX}\ncoverage = \"full\"")),
            ":8:1: phase[0] \"w\".block_size: a block-size mix needs pattern = \"random\" with uniform coverage"),
        bad("mix-fill.toml", spec(&format!("[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = {MIX}\n")),
            ":8:1: phase[0] \"f\".block_size: a block-size mix is for workloads"),
        bad("full-seq.toml", line8("pattern = \"sequential\"\ncoverage = \"full\""),
            ":9:1: phase[0] \"w\".coverage: coverage = \"full\" applies to pattern = \"random\""),
        bad("size-small.toml", workload("block_size = \"64KiB\"\nread_percent = 0\nsize = \"4KiB\"\n"),
            ":10:1: phase[0] \"w\".size: size 4KiB (4096 B) is less than one block (65536 B)"),
        bad("fill-size-small.toml", spec("[[phase]]\nname = \"f\"\nkind = \"fill\"\nsize = \"64KiB\"\n"),
            ":8:1: phase[0] \"f\".size: size 64KiB (65536 B) is less than one block (131072 B)"),
        bad("buffers-qd.toml", line8("block_size = \"16MiB\"\nqueue_depth = 256"),
            ":9:1: phase[0] \"w\".queue_depth: queue_depth 256 × block size 16MiB needs 4GiB of I/O buffers, more than 2GiB"),
        bad("buffers-workers.toml", line8("block_size = \"16MiB\"\nqueue_depth = 64\nworkers = 4"),
            ":10:1: phase[0] \"w\".workers: workers 4 × queue_depth 64 × block size 16MiB needs 4GiB of I/O buffers, more than 2GiB"),
        bad("intervals.toml", workload("read_percent = 0\nduration = \"100000h\"\n"),
            ":5:1: phase[0] \"w\".interval: 100000h / 1s gives 360000000 intervals, more than 10000000")
            .help("use a longer interval"),
        bad("verify-sectors.toml", spec("[[phase]]\nname = \"v\"\nkind = \"verify\"\nblock_size = \"1000B\"\n"),
            ":8:1: phase[0] \"v\".block_size: verification works on 512-byte sectors, and the block size 1000 B is not a multiple of 512"),
        // Attack 27 F1: a rate cap only on a direction the workload never issues paces nothing.
        bad("cap-trims.toml", workload("read_percent = 0\ntrim_percent = 100\nrate_iops = { write = 100 }\nduration = \"1s\"\n"),
            ":10:1: phase[0] \"w\".rate_iops: rate_iops caps writes at 100/s, and this phase issues no writes (read_percent = 0 and trim_percent = 100): the cap would pace nothing and the phase would run uncapped")
            .help("cap a direction the phase issues, or give one total cap (rate_iops = N), which paces every I/O, trims included"),
        // Attack 28 F5: a cap of 2^63 or more passed validate, ran, and its results did not read back.
        bad("cap-huge.toml", line8("rate_iops = 18446744073709551615"),
            ":8:1: phase[0] \"w\".rate_iops: rate_iops = 18446744073709551615 is more than 4294967296 I/Os per second (2^32), far above what any device does")
            .help("omit rate_iops for no cap"),
        bad("cap-2p63.toml", line8("rate_iops = 9223372036854775808"),
            ":8:1: phase[0] \"w\".rate_iops: rate_iops = 9223372036854775808 is more than 4294967296 I/Os per second (2^32), far above what any device does")
            .help("omit rate_iops for no cap"),
        bad("cap-huge-write.toml", line8("rate_iops = { write = 4294967297 }"),
            ":8:1: phase[0] \"w\".rate_iops: rate_iops.write = 4294967297 is more than 4294967296 I/Os per second (2^32), far above what any device does")
            .help("omit rate_iops for no cap"),
        // Attack 28 F14: `{}` was a cap of nothing, run uncapped and exported as rate_iops=0,0.
        bad("cap-empty.toml", line8("rate_iops = {}"),
            ":8:1: phase[0] \"w\".rate_iops: rate_iops = {} caps nothing")
            .help("give rate_iops = N, or { read = N, write = M, total = T }; omit rate_iops for no cap"),
        bad("cap-reads.toml", line8("rate_iops = { read = 100 }"),
            ":8:1: phase[0] \"w\".rate_iops: rate_iops caps reads at 100/s, and this phase issues no reads (read_percent = 0): the cap would pace nothing and the phase would run uncapped"),
        // Attack 28 F6: refused by the plan on every target, once passed by validate and export.
        bad("span-workers.toml", line8("block_size = \"4KiB\"\nspan = \"8KiB\"\nworkers = 4"),
            ":10:1: phase[0] \"w\".workers: workers = 4 is more than the span's 2 blocks of 4096 B allow: with workers_split = \"partitioned\" each worker needs a part of at least one block")
            .help("use fewer workers, a larger span, or workers_split = \"shared\" (each worker draws from the whole span)"),
        bad("span-workers-fill.toml", spec("[[phase]]\nname = \"f\"\nkind = \"fill\"\nworkers = 3\nblock_size = \"4KiB\"\nspan = \"8KiB\"\n"),
            ":8:1: phase[0] \"f\".workers: workers = 3 is more than the span's 2 blocks of 4096 B allow: with workers_split = \"partitioned\" each worker needs a part of at least one block")
            .help("use fewer workers or a larger span"),
        bad("span-workers-mix.toml", line8("block_size = { \"4KiB\" = 50, \"6KiB\" = 50 }\npattern = \"random\"\nspan = \"12KiB\"\nworkers = 2"),
            ":11:1: phase[0] \"w\".workers: workers = 2 cut the span's 3 blocks of 4096 B into parts of at least 1 block(s), 4096 B, less than the largest block size, 6144 B: with workers_split = \"partitioned\" each worker needs a part of at least one block of the largest size")
            .help("use fewer workers, a larger span, or workers_split = \"shared\" (each worker draws from the whole span)"),
        // Attack 29 F3: a byte offset of no whole block, refused by the plan on every target.
        bad("offset-1000.toml", line8("block_size = \"4KiB\"\noffset = \"1000B\""),
            ":9:1: phase[0] \"w\".offset: offset 1000 B is not a multiple of the block size (4096 B)")
            .help("give an offset of whole blocks, or a percentage (rounded up to a whole block)"),
        bad("offset-1000-buffered.toml", line8("direct = false\noffset = \"1000B\""),
            ":9:1: phase[0] \"w\".offset: offset 1000 B is not a multiple of the block size (4096 B)"),
        bad("offset-32-direct.toml", sized("offset = \"32B\""),
            ":9:1: phase[0] \"w\".offset: offset 32 B is not a multiple of the block size (4096 B)"),
        bad("fill-offset-1000.toml", spec("[[phase]]\nname = \"f\"\nkind = \"fill\"\noffset = \"1000B\"\n"),
            ":8:1: phase[0] \"f\".offset: offset 1000 B is not a multiple of the block size (131072 B)"),
        // Attack 29 F9: 1000 B holds one whole block of 512 B (validate counted 2, the plan 1).
        bad("span-1000-w2.toml", line8("block_size = \"512B\"\nspan = \"1000B\"\nworkers = 2"),
            ":10:1: phase[0] \"w\".workers: workers = 2 is more than the span's 1 block of 512 B allow: with workers_split = \"partitioned\" each worker needs a part of at least one block")
            .help("use fewer workers, a larger span, or workers_split = \"shared\" (each worker draws from the whole span)"),
        bad("span-1000-w3.toml", line8("block_size = \"512B\"\nspan = \"1000B\"\nworkers = 3"),
            ":10:1: phase[0] \"w\".workers: workers = 3 is more than the span's 1 block of 512 B allow: with workers_split = \"partitioned\" each worker needs a part of at least one block"),
        bad("bs-1000-direct.toml", sized("block_size = \"1000B\""),
            ":9:1: phase[0] \"w\".block_size: block_size 1000B (1000 B) is not a multiple of 512 B, which every target's logical block size is, and O_DIRECT requires")
            .help("use a multiple of 512 B, or direct = false"),
        // Trial 27 L4: fio's [global] habit, a phase key in [defaults], says where the key goes.
        bad("defaults-duration.toml", spec(&format!("[defaults]\nduration = \"5s\"\n{ERASE}")),
            ":6:1: defaults.duration: unknown key `duration`")
            .help("`duration` is a [[phase]] key (kinds: workload), and [defaults] takes only the keys every I/O phase shares: set `duration` in each [[phase]] that uses it (fio's [global] options go to each job)"),
        // Found at plan time, against the target (a file of TARGET_LEN bytes) or the spec's folder.
        bad("span-past-end.toml", sized("span = \"1MiB\""),
            ":9:1: phase[0] \"w\".span: offset 0 B + span 1048576 B = 1048576 B is past the end of the target (65536 B)")
            .at_plan(),
        bad("image-missing.toml", spec("[[phase]]\nname = \"restore\"\nkind = \"restore-image\"\nimage = \"missing.img\"\nblock_size = \"4KiB\"\n"),
            ":8:1: phase[0] \"restore\".image: cannot read the image missing.img: No such file or directory (os error 2)")
            .at_plan(),
    ];
    // Whole sectors that are not whole logical blocks of this target (a file system of 4 KiB ones): the
    // plan's alone. (A size of no whole sector is refused by the rules: bs-1000-direct.)
    if lbs > 512 {
        let b = lbs + 512;
        rows.push(bad("bs-sectors-direct.toml", sized(&format!("block_size = \"{b}B\"")),
            format!(":9:1: phase[0] \"w\".block_size: block_size {b}B ({b} B) is not a multiple of the target's logical block size ({lbs} B), which O_DIRECT requires"))
            .help(format!("use a multiple of {lbs} B, or direct = false"))
            .at_plan());
    }
    rows
}

#[test]
fn bad_specs_each_give_their_own_located_error_exit_2_and_write_nothing() {
    let rows = bad_specs(file_target_lbs());
    let mut seen = std::collections::HashSet::new();
    for r in &rows {
        assert!(
            seen.insert(r.first.clone()),
            "two bad specs give the same error: {}",
            r.first
        );
    }
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = rows
            .iter()
            .map(|r| s.spawn(move || check_bad(r).err().map(|e| format!("{}: {e}", r.file))))
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("row thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} bad specs failed:\n\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n\n")
    );
}

/// A missing key in the only phase is located in that phase: `phase[0] "w".kind`, every time. (With one
/// phase, the `phase` array and `phase[0]` cover the same bytes, so the field must not depend on which of the
/// two a lookup happens to meet first.)
#[test]
fn missing_kind_in_the_only_phase_is_named_phase_0_every_time() {
    let d = tempdir();
    write_file(
        d.path(),
        "k.toml",
        &spec("[[phase]]\nname = \"w\"\nread_percent = 0\n"),
    );
    let mut got = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..20 {
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "k.toml"]));
        assert_eq!(code, 2, "{err}");
        *got.entry(err.lines().next().unwrap_or("").to_string())
            .or_default() += 1;
    }
    let want = "error: k.toml:5:1: phase[0] \"w\".kind: missing key `kind`";
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        [want],
        "first lines over 20 runs (line → count): {got:?}"
    );
}

/// A misspelled key in a phase is matched against the keys of the phase's kind: an erase phase must not be
/// offered `passes` (a fill key, which the kind rule then refuses) nor be told it may use workload keys.
#[test]
fn misspelled_phase_key_is_matched_against_the_keys_of_its_kind() {
    let d = tempdir();
    let err = validate_refused(
        d.path(),
        "erase.toml",
        &spec("[[phase]]\nname = \"purge\"\nkind = \"erase\"\npases = 1\n"),
        "error: erase.toml:8:1: phase[0] \"purge\".pases: unknown key `pases`",
    );
    assert!(
        err.contains("`method`") || err.contains(" method"),
        "the erase keys are offered:\n{err}"
    );
    for other_kind in ["passes", "read_percent", "image", "block_size"] {
        assert!(
            !err.contains(other_kind),
            "an erase phase is offered `{other_kind}`, which does not apply to it:\n{err}"
        );
    }
}

/// Numbers beyond the Rust type of a key get the same words as the rule for that key, not `expected u8`.
#[test]
fn numbers_beyond_their_type_get_the_keys_range_in_words() {
    let d = tempdir();
    let rows = [
        (
            "read-300.toml",
            "read_percent = 300\nduration = \"1s\"\n",
            "read_percent",
            "0..100",
            "u8",
        ),
        (
            "read-neg.toml",
            "read_percent = -1\nduration = \"1s\"\n",
            "read_percent",
            "0..100",
            "u8",
        ),
        (
            "qd-neg.toml",
            "queue_depth = -1\nread_percent = 0\nduration = \"1s\"\n",
            "queue_depth",
            "1 to 1024",
            "u32",
        ),
        (
            "qd-huge.toml",
            "queue_depth = 5000000000\nread_percent = 0\nduration = \"1s\"\n",
            "queue_depth",
            "1 to 1024",
            "u32",
        ),
    ];
    let mut failures = Vec::new();
    for (file, rest, key, range, rust_type) in rows {
        write_file(d.path(), file, &workload(rest));
        let first = format!("error: {file}:8:…");
        match expect_refusal(d.path(), &["validate", file], &first, None) {
            Err(e) => failures.push(e),
            Ok(err) => {
                if !err.contains(&format!("phase[0] \"w\".{key}: "))
                    || !err.contains(range)
                    || err.contains(rust_type)
                {
                    failures.push(format!("{file}: want the field, the range \"{range}\" and no Rust type name \"{rust_type}\":\n{err}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The help of an unknown format points at a document; it must exist in the repository.
#[test]
fn format_error_help_names_a_document_that_exists() {
    let d = tempdir();
    let err = validate_refused(
        d.path(),
        "f.toml",
        &format!("format = 2\n[spec]\nname = \"t\"\nversion = \"1\"\n{ERASE}"),
        "error: f.toml:1:10: format: unknown spec format 2…",
    );
    let help = err
        .lines()
        .find_map(|l| l.strip_prefix("  help: "))
        .expect("a help line");
    let doc = help
        .split(['(', ')'])
        .find(|w| w.ends_with(".md"))
        .expect("the help names a .md document");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
    assert!(
        path.is_file(),
        "the help says to read {doc}, which is not in the repository ({})",
        path.display()
    );
}

#[test]
fn validate_checks_every_file_and_prints_every_error() {
    let d = tempdir();
    let dir = d.path();
    let good_a = workload(
        "read_percent = 0\nduration = \"1s\"\n[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nsize = \"100%\"\n",
    );
    write_file(dir, "good-a.toml", &good_a);
    write_file(
        dir,
        "good-b.toml",
        &spec(&format!(
            "{ERASE}[[phase]]\nname = \"fill\"\nkind = \"fill\"\n"
        )),
    );
    write_file(dir, "bad-qd.toml", &line8("queue_depth = 0"));
    write_file(
        dir,
        "bad-typo.toml",
        &workload("read_percent = 0\nduraton = \"1s\"\n"),
    );
    let listing = dir_listing(dir);

    let all = words("validate good-a.toml bad-qd.toml good-b.toml bad-typo.toml");
    let (code, out, err) = code_out_err(&wkrun(dir, &all));
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        out,
        "good-a.toml: ok (2 phases)\ngood-b.toml: ok (2 phases)\n"
    );
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 2, "one error per bad file:\n{err}");
    assert_eq!(
        errors[0],
        "error: bad-qd.toml:8:1: phase[0] \"w\".queue_depth: queue_depth = 0 is out of range",
        "{err}"
    );
    assert!(
        errors[1]
            .starts_with("error: bad-typo.toml:9:1: phase[0] \"w\".duraton: unknown key `duraton`"),
        "{err}"
    );
    assert!(err.contains("  help: did you mean `duration`?"), "{err}");

    let (code, out, err) = code_out_err(&wkrun(dir, &["validate", "good-a.toml", "good-b.toml"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            0,
            "good-a.toml: ok (2 phases)\ngood-b.toml: ok (2 phases)\n",
            ""
        )
    );

    let (code, _, _) = code_out_err(&wkrun(dir, &["validate", "bad-typo.toml"]));
    assert_eq!(code, 2);
    assert_eq!(dir_listing(dir), listing, "validate wrote nothing");
}

/// A cap on a direction the phase never issues is harmless beside one it does (attack 27 F1: only a phase
/// left uncapped is refused): per-direction caps over a `read_percent` matrix with 0 and 100 in it validate.
#[test]
fn a_cap_beside_one_the_phase_uses_is_accepted() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = [0, 100]\nrate_iops = { read = 100, write = 100 }\nduration = \"1s\"\n";
    write_file(d.path(), "caps.toml", &spec(body));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", "caps.toml"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            0,
            "caps.toml: ok (1 phase, 2 after expanding sweeps and matrices)\n",
            ""
        )
    );
}

#[test]
fn every_spec_in_specs_validates_with_the_cli() {
    let specs_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let mut paths: Vec<String> = fs::read_dir(&specs_dir)
        .expect("specs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("toml"))
        .map(|p| p.display().to_string())
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no specs in {}", specs_dir.display());
    let d = tempdir();
    let mut args = vec!["validate"];
    args.extend(paths.iter().map(String::as_str));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err, "");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), paths.len(), "{out}");
    for (line, p) in lines.iter().zip(&paths) {
        assert!(
            line.starts_with(&format!("{p}: ok ("))
                && (line.ends_with(" phases)")
                    || line.ends_with(" after expanding sweeps and matrices)")),
            "{line}"
        );
    }
}

#[test]
fn no_spec_given_exits_2_and_creates_nothing() {
    let d = tempdir();
    for args in [&[][..], &["run"][..], &["--target", "t.img"][..]] {
        let err = refused(
            d.path(),
            args,
            "error: no spec file given; usage: wkrun SPEC [--target PATH] [-o DIR] (see wkrun --help)",
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    for (args, missing) in [(&["validate"][..], "<FILE>..."), (&["plan"][..], "<SPEC>")] {
        let (code, _, err) = code_out_err(&wkrun(d.path(), args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("the following required arguments were not provided")
                && err.contains(missing),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        dir_listing(d.path()),
        Vec::<String>::new(),
        "no default target, no results folder"
    );
}

#[test]
fn nonexistent_spec_file_exits_2_naming_the_path() {
    let d = tempdir();
    let want = "error: nowhere/missing.toml: cannot read the spec file: No such file or directory (os error 2)";
    for args in [
        &["nowhere/missing.toml"][..],
        &["plan", "nowhere/missing.toml"][..],
    ] {
        refused(d.path(), args, want);
    }
    // validate takes a spec or results: what is not there is said not to exist, as either.
    refused(
        d.path(),
        &["validate", "nowhere/missing.toml"],
        "error: nowhere/missing.toml: does not exist (give a spec file, or a results folder or its results.json)",
    );
    assert_eq!(
        dir_listing(d.path()),
        Vec::<String>::new(),
        "no default target, no results folder"
    );
}

#[test]
fn bad_spec_with_the_default_target_creates_nothing() {
    let d = tempdir();
    write_file(d.path(), "bad.toml", &line8("queue_depth = 0"));
    refused(
        d.path(),
        &["bad.toml"],
        "error: bad.toml:8:1: phase[0] \"w\".queue_depth: queue_depth = 0 is out of range",
    );
    assert_eq!(
        dir_listing(d.path()),
        ["bad.toml"],
        "no wkrun-target.img, no wkrun-results/"
    );
}

#[test]
fn bad_target_size_exits_2_and_creates_nothing() {
    let d = tempdir();
    write_file(d.path(), "ok.toml", &spec(ERASE));
    let listing = dir_listing(d.path());
    let unit = "error: --target-size: size \"12q\" has an unknown unit \"q\"; use B, KiB, MiB, GiB, TiB, PiB (binary), KB, MB, GB, TB, PB (decimal) or k/M/G/T/P (binary, as in fio)";
    for line in [
        "ok.toml --target new.img --target-size 12q -o out",
        "plan ok.toml --target new.img --target-size 12q",
    ] {
        refused(d.path(), &words(line), unit);
    }
    refused(
        d.path(),
        &words("ok.toml --target new.img --target-size 0 -o out"),
        "error: new.img: a file target must be larger than 0 bytes (--target-size or [target].size)",
    );
    assert_eq!(
        dir_listing(d.path()),
        listing,
        "new.img and out/ must not exist"
    );
}

#[test]
fn output_folder_holding_results_json_is_refused_and_left_alone() {
    let d = tempdir();
    let dir = d.path();
    write_file(
        dir,
        "ok.toml",
        &workload("read_percent = 0\nsize = \"100%\"\n"),
    );
    let target = dir.join("target.img");
    patterned_file(&target, TARGET_LEN);
    let bytes = read(&target);
    fs::create_dir(dir.join("out")).expect("mkdir out");
    let previous = "{\"format\": 1, \"status\": \"completed\", \"note\": \"an earlier run\"}\n";
    write_file(&dir.join("out"), "results.json", previous);
    let listing = dir_listing(dir);
    for line in [
        "ok.toml --target target.img -o out",
        "run ok.toml --target target.img --output out",
    ] {
        let first = "error: out already holds results.json; choose another --output folder";
        refused(dir, &words(line), first);
    }
    assert_eq!(
        fs::read_to_string(dir.join("out/results.json")).expect("results.json"),
        previous
    );
    assert_eq!(read(&target), bytes, "the target is untouched");
    assert_eq!(
        dir_listing(dir),
        listing,
        "no CSV, no temp file, nothing else"
    );
}

/// Runs `wkrun plan SPEC --target TARGET` in `dir`; exit 0 expected; returns stdout (the text plan).
fn plan_ok(dir: &Path, spec: &str, target: &str) -> String {
    let args = ["plan", spec, "--target", target];
    let (code, out, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(code, 0, "wkrun {}: {err}", args.join(" "));
    out
}

/// The `rounding: ` notes of the text plan, in order.
fn rounding_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("rounding: "))
        .collect()
}

#[test]
fn c04_plan_rounds_offset_up_and_span_down_and_shows_both() {
    let d = tempdir();
    let dir = d.path();
    let seq = |extra: &str| {
        workload(&format!(
            "pattern = \"sequential\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"100%\"\n{extra}"
        ))
    };
    write_file(
        dir,
        "c04-33.toml",
        &seq("offset = \"33%\"\nspan = \"33%\"\n"),
    );
    write_file(dir, "c04-100.toml", &seq("span = \"100%\"\n"));
    fs::File::create(dir.join("t10.img"))
        .and_then(|f| f.set_len(10_485_760))
        .expect("10 MiB target");
    fs::File::create(dir.join("t30.img"))
        .and_then(|f| f.set_len(30 * 1024))
        .expect("30 KiB target");

    // 10 MiB, offset 33 %, span 33 %: 3,460,300.8 B each; start up to 3,461,120, length down to 844 blocks.
    let v = plan_value(dir, "c04-33.toml", "t10.img");
    assert_eq!(v["target"]["capacity_bytes"], 10_485_760);
    let p = &v["phases"][0]["params"];
    assert_eq!(p["span_start_bytes"], 3_461_120);
    assert_eq!(p["span_bytes"], 3_457_024);
    assert_eq!(p["block_size_bytes"], 4096);
    assert_eq!(p["ops"], 844);
    assert_eq!(p["expected_bytes"], 3_457_024);
    let last_write =
        p["span_start_bytes"].as_u64().unwrap() + p["span_bytes"].as_u64().unwrap() - 4096;
    assert_eq!(last_write, 6_914_048);
    let notes_33 = [
        "offset 33% of 10485760 B = 3460300.8 B, rounded up to the block boundary 3461120 B",
        "span 33% of 10485760 B = 3460300.8 B, rounded down to 3457024 B (844 blocks of 4KiB); 3276 B left unused",
    ];
    assert_eq!(v["phases"][0]["rounding"], serde_json::json!(notes_33));
    let text = plan_ok(dir, "c04-33.toml", "t10.img");
    assert!(text.contains(" [3461120, 6918144) "), "{text}");
    assert_eq!(rounding_lines(&text), notes_33, "{text}");

    // 30 KiB, span 100 %: 7 blocks, 28,672 B, 2,048 B unused.
    let v = plan_value(dir, "c04-100.toml", "t30.img");
    let p = &v["phases"][0]["params"];
    assert_eq!(
        (
            p["span_start_bytes"].as_u64(),
            p["span_bytes"].as_u64(),
            p["ops"].as_u64()
        ),
        (Some(0), Some(28_672), Some(7))
    );
    let notes_100 = [
        "span 100% of 30720 B = 30720 B, rounded down to 28672 B (7 blocks of 4KiB); 2048 B left unused",
    ];
    assert_eq!(v["phases"][0]["rounding"], serde_json::json!(notes_100));
    let text = plan_ok(dir, "c04-100.toml", "t30.img");
    assert!(text.contains(" [0, 28672) "), "{text}");
    assert_eq!(rounding_lines(&text), notes_100, "{text}");
}

#[test]
fn c11_plan_500min() {
    let d = tempdir();
    let dir = d.path();
    write_file(
        dir,
        "c11.toml",
        &workload("read_percent = 0\nduration = \"500min\"\ninterval = \"1m\"\n"),
    );
    patterned_file(&dir.join("target.img"), TARGET_LEN);
    let text = plan_ok(dir, "c11.toml", "target.img");
    let row = text
        .lines()
        .find(|l| l.contains(" workload "))
        .expect("the phase's row");
    assert!(row.contains(" time 500min "), "{text}");
    assert!(
        text.lines().any(|l| l.trim() == "500 intervals of 1min"),
        "{text}"
    );
    let v = plan_value(dir, "c11.toml", "target.img");
    let p = &v["phases"][0]["params"];
    assert_eq!(p["duration_ns"], 30_000_000_000_000u64);
    assert_eq!(p["interval_ns"], 60_000_000_000u64);
    assert_eq!(
        p["duration_ns"].as_u64().unwrap() / p["interval_ns"].as_u64().unwrap(),
        500
    );
}

/// The loop device's write counter, checking first that /sys/block/<dev>/stat can be read.
fn sectors_written(lo: &LoopDev) -> u64 {
    let stat = format!("/sys/block/{}/stat", lo.sys_name());
    assert!(Path::new(&stat).is_file(), "{stat} is missing");
    lo.sectors_written()
}

#[test]
fn c02_unaligned_direct_io_on_a_4096_byte_sector_device_is_refused_at_plan_time() {
    let d = tempdir();
    let dir = d.path();
    let _lock = loop_guard();
    let lo = match LoopDev::new(dir, 64, 4096) {
        Ok(lo) => lo,
        Err(why) => {
            return skip(
                "c02_unaligned_direct_io_on_a_4096_byte_sector_device_is_refused_at_plan_time",
                &why,
            );
        }
    };
    let dev = lo.dev.display().to_string();
    write_file(dir, "ok.toml", &spec(ERASE));
    let v = plan_value(dir, "ok.toml", &dev);
    assert_eq!(v["target"]["kind"], "block");
    assert_eq!(
        v["target"]["logical_block_size"], 4096,
        "losetup --sector-size 4096 gives 4096-byte logical blocks"
    );

    let cells = [
        (
            "c02-bs512.toml",
            "block_size = \"512B\"",
            "block_size: block_size 512B (512 B)",
            true,
        ),
        (
            "c02-bs1536.toml",
            "block_size = \"1536B\"",
            "block_size: block_size 1536B (1536 B)",
            true,
        ),
    ];
    // A byte offset of no whole block (`offset = "32B"`) is the rules' on every target: offset-32-direct.
    let written = sectors_written(&lo);
    for (file, line, what, help) in cells {
        write_file(dir, file, &sized(line));
        let first = format!(
            "error: {file}:9:1: phase[0] \"w\".{what} is not a multiple of the target's logical block size (4096 B), which O_DIRECT requires"
        );
        let help = help.then_some("use a multiple of 4096 B, or direct = false");
        let (code, out, err) = code_out_err(&wkrun(dir, &["validate", file]));
        assert_eq!(
            code, 0,
            "the spec itself is valid; only this target refuses it: {out}{err}"
        );
        for args in [
            &["plan", file, "--target", &dev][..],
            &["plan", file, "--target", &dev, "--json"][..],
            &[file, "--target", &dev, "--allow-destroy", &dev, "-o", "out"][..],
        ] {
            expect_refusal(dir, args, &first, help).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    assert_eq!(sectors_written(&lo), written, "no I/O reached {dev}");
    assert!(!dir.join("out").exists(), "no results folder");
}

#[test]
fn block_device_needs_allow_destroy_naming_that_device() {
    const TEST: &str = "block_device_needs_allow_destroy_naming_that_device";
    let d = tempdir();
    let dir = d.path();
    let _lock = loop_guard();
    let (a, b) = match (LoopDev::new(dir, 8, 512), LoopDev::new(dir, 9, 512)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => return skip(TEST, &why),
    };
    let (dev, other) = (a.dev.display().to_string(), b.dev.display().to_string());
    let backing = a.backing.display().to_string();
    write_file(
        dir,
        "fill.toml",
        &spec("[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\n"),
    );
    let (wa, wb) = (sectors_written(&a), sectors_written(&b));

    let no_flag = format!(
        "error: {dev} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {dev} to confirm"
    );
    refused(dir, &["fill.toml", "--target", &dev, "-o", "out"], &no_flag);
    for wrong in [&other, &backing] {
        let first = format!(
            "error: --allow-destroy names {wrong}, but the target is {dev}; name the target device itself"
        );
        let args = [
            "fill.toml",
            "--target",
            &dev,
            "--allow-destroy",
            wrong,
            "-o",
            "out",
        ];
        refused(dir, &args, &first);
    }
    assert_eq!(
        (sectors_written(&a), sectors_written(&b)),
        (wa, wb),
        "nothing written to {dev} or {other}"
    );
    assert!(!dir.join("out").exists(), "no results folder");
    let backing_bytes = read(&a.backing);
    assert!(
        backing_bytes.iter().all(|&x| x == 0),
        "the device still reads as zeros"
    );
}

/// `plan` and a run report the first error of every phase that cannot run on the target, each located at
/// its key, in phase order (they stopped at the first phase); nothing is written.
#[test]
fn plan_errors_of_every_phase_are_reported() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"a\"\nkind = \"workload\"\nspan = \"2GiB\"\nread_percent = 0\nduration = \"1s\"\n\
                [[phase]]\nname = \"b\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n\
                [[phase]]\nname = \"c\"\nkind = \"workload\"\nworkers = 4\nread_percent = 0\nduration = \"1s\"\n";
    write_file(d.path(), "s.toml", &spec_text("pe", body));
    let first_line = spec_text("pe", "").lines().count() + 1;
    let (a, c) = (first_line + 3, first_line + 14);
    for cmd in [&["plan"][..], &["run", "-o", "out"][..]] {
        let mut args = cmd.to_vec();
        args.extend(["s.toml", "--target", "sim:capacity=1GiB"]);
        let before = dir_listing(d.path());
        let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(
            errors,
            [
                format!(
                    "error: s.toml:{a}:1: phase[0] \"a\".span: offset 0 B + span 2147483648 B = 2147483648 B is past the end of the target (1073741824 B)"
                ),
                format!(
                    "error: s.toml:{c}:1: phase[2] \"c\".workers: workers = 4: the simulated drive runs one worker (its virtual clock is one submitter's)"
                ),
            ],
            "{args:?}"
        );
        assert_eq!(dir_listing(d.path()), before, "{args:?} wrote something");
    }
}

/// A key that takes one of a set of names takes a string only: serde's table form of a name
/// (`on_error = { stop = {} }`), an array or a number is refused at the value, in TOML's words with the
/// names it takes (issue 26: `sync = true` listed none), and `--set` says the same.
#[test]
fn named_values_take_a_string_only() {
    let d = tempdir();
    let phase = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1MiB\"\n";
    for (line, want) in [
        (
            "completion_waits = { each = {} }",
            "10:20: phase[0] \"w\".completion_waits: invalid type: table, expected a string, `probe` or `each`",
        ),
        (
            "on_error = { stop = {} }",
            "10:12: phase[0] \"w\".on_error: invalid type: table, expected a string, `stop` or `continue`",
        ),
        (
            "coverage = [\"full\"]",
            "10:12: phase[0] \"w\".coverage: invalid type: array, expected a string, `uniform` or `full`",
        ),
        (
            "workers_split = 1",
            "10:17: phase[0] \"w\".workers_split: invalid type: integer `1`, expected a string, `shared` or `partitioned`",
        ),
    ] {
        let text = spec_text("n", &format!("{phase}{line}\n"));
        validate_refused(d.path(), "n.toml", &text, &format!("error: n.toml:{want}"));
    }
    let kind = spec_text("n", &phase.replace("\"workload\"", "{ workload = {} }"));
    validate_refused(
        d.path(),
        "k.toml",
        &kind,
        "error: k.toml:7:8: phase[0] \"w\".kind: invalid type: table, expected a string, one of `erase`, `fill`, `restore-image`, `workload`, `verify`",
    );
    write_file(d.path(), "ok.toml", &spec_text("n", phase));
    refused(
        d.path(),
        &words("plan ok.toml --target t.img --target-size 8MiB --set completion_waits={each={}}"),
        "error: ok.toml: --set completion_waits={each={}}: invalid type: table, expected a string, `probe` or `each`",
    );
    assert!(!d.path().join("t.img").exists());
}

/// Trial 21 T5: a window written as a table (`{ name = "late", from = "4s", to = "8s" }`) was told only
/// `expected a string`; the refusal now gives a window's forms, as the window parser gives them, and
/// `windows` given one string where it takes a list gives an example list. `--set` says the same.
#[test]
fn a_window_that_is_not_a_string_is_refused_with_its_forms() {
    let d = tempdir();
    let phase =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"8s\"\n";
    let forms = "a window as a string, e.g. \"4s..8s\" (the forms: \"1400s..\", \"0..60s\", \"600s..1800s\", \"first 5m\" or \"last 20m\")";
    for (line, want) in [
        (
            "windows = [{ name = \"late\", from = \"4s\", to = \"8s\" }]",
            format!("10:12: phase[0] \"w\".windows[0]: invalid type: table, expected {forms}"),
        ),
        (
            "windows = [4]",
            format!("10:12: phase[0] \"w\".windows[0]: invalid type: integer `4`, expected {forms}"),
        ),
        (
            "windows = \"4s..8s\"",
            "10:11: phase[0] \"w\".windows: invalid type: string \"4s..8s\", expected a list of windows, e.g. [\"4s..8s\"]".to_string(),
        ),
    ] {
        let text = spec_text("n", &format!("{phase}{line}\n"));
        validate_refused(d.path(), "n.toml", &text, &format!("error: n.toml:{want}"));
    }
    write_file(d.path(), "ok.toml", &spec_text("n", phase));
    refused(
        d.path(),
        &words("plan ok.toml --target t.img --target-size 8MiB --set phase.w.windows=[{from=1}]"),
        &format!(
            "error: ok.toml: --set phase.w.windows=[{{from=1}}]: invalid type: table, expected {forms}"
        ),
    );
    assert!(!d.path().join("t.img").exists());
}

/// The attack of issue 24: a size or duration holding an invisible character (U+0085 NEL, which `trim` took
/// for white space, or U+2028) validated as if it were not there. Refused with exit 2, file, line and key,
/// the code point named; a `--target-size` so written creates nothing.
#[test]
fn a_size_with_an_invisible_character_is_refused_naming_it() {
    let d = tempdir();
    let tail = "; write it with plain ASCII characters";
    validate_refused(
        d.path(),
        "nel.toml",
        &workload("block_size = \"4KiB\\u0085\"\nduration = \"1s\"\n"),
        &format!(
            "error: nel.toml:8:14: phase[0] \"w\".block_size: size \"4KiB\\u{{85}}\" holds the invisible character U+0085{tail}"
        ),
    );
    validate_refused(
        d.path(),
        "ls.toml",
        &workload("duration = \"1s\\u2028\"\n"),
        &format!(
            "error: ls.toml:8:12: phase[0] \"w\".duration: duration \"1s\\u{{2028}}\" holds the invisible character U+2028{tail}"
        ),
    );
    write_file(d.path(), "ok.toml", &spec(ERASE));
    let listing = dir_listing(d.path());
    refused(
        d.path(),
        &[
            "plan",
            "ok.toml",
            "--target",
            "new.img",
            "--target-size",
            "4MiB\u{85}",
        ],
        &format!(
            "error: --target-size: size \"4MiB\\u{{85}}\" holds the invisible character U+0085{tail}"
        ),
    );
    assert_eq!(dir_listing(d.path()), listing, "new.img must not exist");
    // Windows, headline items and distributions were trimmed before their durations were parsed, so
    // `"last\u{a0}20m"` passed (review 40, M6): refused before any trim, the code point named.
    for (file, key, value, what, shown, at) in [
        (
            "win.toml",
            "windows",
            "[\"last\\u00a020s\"]",
            "window",
            "last\\u{a0}20s",
            "8:1",
        ),
        (
            "head.toml",
            "headline",
            "[\"at 5s\\u0085\"]",
            "headline",
            "at 5s\\u{85}",
            "8:1",
        ),
        (
            "dist.toml",
            "distribution",
            "\"zipf:1.2\\u200b\"",
            "distribution",
            "zipf:1.2\\u{200b}",
            "8:16",
        ),
    ] {
        let cp = match what {
            "window" => "00A0",
            "headline" => "0085",
            _ => "200B",
        };
        validate_refused(
            d.path(),
            file,
            &workload(&format!(
                "{key} = {value}\nread_percent = 0\npattern = \"random\"\nduration = \"30s\"\n"
            )),
            &format!(
                "error: {file}:{at}: phase[0] \"w\".{key}: {what} \"{shown}\" holds the invisible character U+{cp}{tail}"
            ),
        );
    }
}
