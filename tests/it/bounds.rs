//! Bounds (issue 13, items 5, 6 and 7): every file a user names is read within a stated limit (a spec at most
//! 16 MiB, a results file at most 1 GiB, a series CSV at most 10,000,000 rows of 4 KiB), and only a regular
//! file is read, so `/dev/zero` is refused at once in little memory; a spec expanding past 100,000 phases is refused before any is built; a
//! run's cost is linear in its phases; a refused target creation or output folder leaves nothing behind;
//! errors show control characters escaped and hints only real values.

use crate::common::*;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `wkrun ARGS` in `cwd` under `/usr/bin/time`: exit code, stderr and peak RSS in KiB (`None` without
/// `/usr/bin/time`, when the command runs bare).
fn measured(cwd: &Path, args: &[&str]) -> (i32, String, Option<u64>) {
    let rss_file = cwd.join("rss.txt");
    let timed = Path::new("/usr/bin/time").exists();
    let out = if timed {
        Command::new("/usr/bin/time")
            .args(["-f", "%M", "-o"])
            .arg(&rss_file)
            .arg(wkrun_bin())
            .args(args)
            .current_dir(cwd)
            .output()
            .expect("run wkrun under /usr/bin/time")
    } else {
        wkrun(cwd, args)
    };
    let rss = timed
        .then(|| fs::read_to_string(&rss_file).ok())
        .flatten()
        .and_then(|t| t.lines().last()?.trim().parse().ok());
    let (code, _, err) = code_out_err(&out);
    (code, err, rss)
}

/// Peak RSS under 256 MiB, when it could be measured.
fn assert_small(test: &str, rss: Option<u64>) {
    match rss {
        Some(kib) => assert!(kib < 256 << 10, "peak RSS {kib} KiB, over 256 MiB"),
        None => skip(test, "no /usr/bin/time: peak memory not measured"),
    }
}

/// `/dev/zero` is refused as what it is (a device is never read as a spec or results file), at once.
#[test]
fn validate_dev_zero_is_refused_as_a_device_in_bounded_memory() {
    let dir = tempdir();
    let t = Instant::now();
    let (code, err, rss) = measured(dir.path(), &["validate", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        "error: /dev/zero: cannot read the spec file: it is a character device, not a regular file"
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_small("validate_dev_zero", rss);
}

/// A spec file one byte past 16 MiB (sparse) is refused from its size, before it is read.
#[test]
fn a_spec_file_past_its_limit_is_refused_naming_the_limit() {
    let dir = tempdir();
    let big = dir.path().join("big.toml");
    sparse_file(&big, (16 << 20) + 1);
    let (code, err, rss) = measured(dir.path(), &["validate", "big.toml"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        "error: big.toml: the spec file is larger than 16MiB, the largest spec wkrun reads"
    );
    assert_small("a_spec_file_past_its_limit", rss);
}

#[test]
fn compare_dev_zero_exits_2_in_bounded_memory() {
    let dir = tempdir();
    let (code, err, rss) = measured(dir.path(), &["compare", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        "error: cannot read /dev/zero: it is a character device, not a regular file"
    );
    assert_small("compare_dev_zero", rss);
}

/// A results file one byte past 512 MiB (sparse) is refused from its size, before it is read.
#[test]
fn a_results_file_past_its_limit_is_refused_naming_the_limit() {
    let dir = tempdir();
    let big = dir.path().join("results.json");
    sparse_file(&big, (512 << 20) + 1);
    for cmd in ["compare", "report"] {
        let (code, err, rss) = measured(dir.path(), &[cmd, big.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert_eq!(
            err.trim(),
            format!(
                "error: {}: larger than 512MiB, the largest results file wkrun reads",
                big.display()
            ),
            "{cmd}"
        );
        assert_small("a_results_file_past_its_limit", rss);
    }
}

/// `n` workload phases of 1 ms on the null engine, one 1 ms row each.
fn many_phases(n: usize) -> String {
    let mut body = String::from("[target]\nsize = \"1MiB\"\n[defaults]\nengine = \"null\"\n");
    for i in 0..n {
        body += &format!(
            "[[phase]]\nname = \"p{i}\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
             read_percent = 0\nduration = \"1ms\"\ninterval = \"1ms\"\n"
        );
    }
    spec_text("many", &body)
}

/// A run of 1,000 one-millisecond phases records every one: results.json holds them all, completed, valid
/// against the strict types (each phase was validated once as it came, the rest of the document at each write;
/// the unit tests of `results::write` count the validations).
#[test]
fn a_run_of_a_thousand_one_ms_phases_records_every_phase() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "many.toml", &many_phases(1000));
    let out = wkrun(d, &["many.toml", "--target", "t.img", "-o", "out", "-q"]);
    let (code, _, err) = code_out_err(&out);
    assert_eq!(code, 0, "{err}");
    let (results, _) = strict_results(&d.join("out"));
    assert_eq!(results.status, wkrun::results::Status::Completed);
    assert_eq!(results.phases.len(), 1000);
    for (i, p) in results.phases.iter().enumerate() {
        assert_eq!((p.index, p.name.as_str()), (i, format!("p{i}").as_str()));
    }
}

/// `report` on results whose series CSV is a 64 GiB file of zeros (sparse): refused at its first line's
/// limit, exit 2, nothing written; a `series_csv` naming `/dev/zero` is refused too.
#[test]
fn report_on_a_results_file_whose_series_csv_is_huge_exits_2() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "one.toml", &many_phases(1));
    let out = wkrun(d, &["one.toml", "--target", "t.img", "-o", "run", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", code_out_err(&out).2);
    let csv = d.join("run/00-p0.csv");
    fs::remove_file(&csv).unwrap();
    sparse_file(&csv, 64 << 30);
    let (code, err, rss) = measured(d, &["report", "run/results.json", "-o", "rep"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "error: {}: line 1 is longer than 4KiB, the longest line wkrun reads in a series CSV",
            Path::new("run").join("00-p0.csv").display()
        )
    );
    assert!(!d.join("rep").exists(), "a report folder was written");
    assert_small("report_huge_series_csv", rss);

    let text = fs::read_to_string(d.join("run/results.json")).unwrap();
    let zero = text.replace("\"00-p0.csv\"", "\"/dev/zero\"");
    assert_ne!(text, zero);
    fs::write(d.join("run/results.json"), zero).unwrap();
    let (code, err, _) = measured(d, &["report", "run/results.json", "-o", "rep"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("\"/dev/zero\""), "{err}");
}

/// A phase with matrix lists of 1,000 queue depths and 10,000 block sizes (10,000,000 phases) is refused at once, located at
/// its `[[phase]]`; so is a sweep whose copies pass the limit by two.
#[test]
fn a_spec_past_the_phase_limit_is_refused_with_its_location_before_expanding() {
    let dir = tempdir();
    let d = dir.path();
    let qd: Vec<String> = (1..=1000).map(|i| i.to_string()).collect();
    let bs: Vec<String> = (1..=10_000).map(|i| format!("\"{i}KiB\"")).collect();
    let body = format!(
        "[[phase]]\nname = \"m\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n\
         queue_depth = [{}]\nblock_size = [{}]\n",
        qd.join(","),
        bs.join(",")
    );
    write_file(d, "t.toml", &spec_text("big", &body));
    let t = Instant::now();
    let (code, err, rss) = measured(d, &["validate", "t.toml"]);
    assert_eq!(code, 2, "{err}");
    let first = err.lines().next().unwrap();
    assert_eq!(
        first,
        "error: t.toml:5:1: phase[0]: sweeps and matrices expand the spec to more than 100000 phases, \
         the most a spec may have: phase \"m\" makes 10000000"
    );
    assert!(
        err.ends_with("help: shorten the lists, or split the spec into several\n"),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_small("phase_limit", rss);

    // 3 plain phases, then one with 50,000 block sizes swept twice: 3 + 100,000 = 100,003.
    let sizes: Vec<String> = (1..=50_000).map(|i| format!("\"{i}KiB\"")).collect();
    let mut body = String::new();
    for n in ["a", "b", "c"] {
        body += &format!("[[phase]]\nname = \"{n}\"\nkind = \"erase\"\n");
    }
    body += &format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\nblock_size = [{}]\n\
         [[sweep]]\nname = \"q\"\nphases = [\"w\"]\nqueue_depth = [1, 2]\n",
        sizes.join(",")
    );
    write_file(d, "s.toml", &spec_text("sw", &body));
    let (code, err, _) = measured(d, &["validate", "s.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(
            "error: s.toml:14:1: phase[3]: sweeps and matrices expand the spec to more than 100000 phases, \
             the most a spec may have: phase \"w\" makes 100000 (the phases before it make 3)\n"
        ),
        "{err}"
    );
}

/// 10,000 phases from one `[[phase]]` (100 queue depths × 100 read shares) validate, counted.
#[test]
fn ten_thousand_expanded_phases_validate() {
    let dir = tempdir();
    let d = dir.path();
    let qd: Vec<String> = (1..=100).map(|i| i.to_string()).collect();
    let read: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let body = format!(
        "[[phase]]\nname = \"m\"\nkind = \"workload\"\nduration = \"1s\"\n\
         queue_depth = [{}]\nread_percent = [{}]\n",
        qd.join(","),
        read.join(",")
    );
    write_file(d, "t.toml", &spec_text("m", &body));
    let out = wkrun(d, &["validate", "t.toml"]);
    let (code, stdout, err) = code_out_err(&out);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        stdout.trim(),
        "t.toml: ok (1 phase, 10000 after expanding sweeps and matrices)"
    );
}

/// A phase in two sweeps is refused naming both, also when the first sweep has a single value (which used
/// to leave the phase's name unchanged and let the second sweep take it again).
#[test]
fn a_phase_in_two_sweeps_is_refused_naming_both() {
    let dir = tempdir();
    let d = dir.path();
    for first in ["[\"50%\"]", "[\"50%\", \"25%\"]"] {
        let body = format!(
            "[[phase]]\nname = \"a\"\nkind = \"erase\"\n[[phase]]\nname = \"b\"\nkind = \"erase\"\n\
             [[sweep]]\nname = \"one\"\nphases = [\"a\"]\nspan = {first}\n\
             [[sweep]]\nname = \"two\"\nphases = [\"a\", \"b\"]\nspan = [\"10%\", \"20%\"]\n"
        );
        write_file(d, "t.toml", &spec_text("s", &body));
        let (code, _, err) = code_out_err(&wkrun(d, &["validate", "t.toml"]));
        assert_eq!(code, 2, "{err}");
        assert_eq!(
            err.lines().next().unwrap(),
            "error: t.toml:17:1: sweep[1].phases: phase \"a\" is already repeated by sweep \"one\" \
             (sweep[0]); sweep \"two\" cannot repeat it too",
            "first sweep {first}"
        );
    }
}

/// A NUL in a quoted key is shown as `\0` in the field path, the message and the source line, never raw.
#[test]
fn a_nul_in_a_key_is_shown_escaped() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"erase\"\n\"que\\u0000ue\" = 1\n";
    write_file(d, "t.toml", &spec_text("n", body));
    let out = wkrun(d, &["validate", "t.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!out.stderr.contains(&0), "a raw NUL in stderr");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(
            "error: t.toml:8:1: phase[0] \"w\".que\\0ue: unknown key `que\\0ue`\n   |\n 8 | \"que\\u0000ue\" = 1\n"
        ),
        "{err}"
    );
}

/// A bare `nan` duration is told to use a unit with a real example, not `"NaNs"`.
#[test]
fn a_bare_nan_gets_a_real_example() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = nan\n";
    write_file(d, "t.toml", &spec_text("n", body));
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", "t.toml"]));
    assert_eq!(code, 2);
    assert_eq!(
        err.lines().next().unwrap(),
        "error: t.toml:9:12: phase[0] \"w\".duration: bare number NaN has no unit; write the duration as a \
         string with its unit, e.g. \"30s\""
    );
}

/// A spec whose one phase writes the target (so wkrun creates it).
const WRITER: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                      read_percent = 0\nduration = \"100ms\"\n";

/// A 32 TiB target file on a 64 MiB ext4 (whose files end at 16 TiB): `File too large`, exit 2, and no file
/// (an empty one used to stay, and every later run failed on "the target is empty"), no output folder.
#[test]
fn a_failed_target_creation_on_ext4_leaves_no_file() {
    let test = "a_failed_target_creation_on_ext4_leaves_no_file";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let dev = match LoopDev::new(d, 64, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    match Command::new("mkfs.ext4").arg("-q").arg(&dev.dev).output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return skip(
                test,
                &format!("mkfs.ext4: {}", String::from_utf8_lossy(&o.stderr)),
            );
        }
        Err(e) => return skip(test, &format!("mkfs.ext4: {e}")),
    }
    let mnt = match Mount::new(d.join("ext"), &[dev.dev.to_str().unwrap()]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    write_file(d, "w.toml", &spec_text("w", WRITER));
    let big = mnt.dir.join("big.img");
    for out in ["out0", "out1"] {
        let (code, _, err) = code_out_err(&wkrun(
            d,
            &[
                "w.toml",
                "--target",
                big.to_str().unwrap(),
                "--target-size",
                "32TiB",
                "-o",
                out,
            ],
        ));
        // A file system without room is a resource limit: exit 1.
        assert_eq!(code, 1, "{err}");
        // Refused by the probe since it cannot fit (once: ext4's EFBIG when the file was made).
        let prefix = format!(
            "error: {}: cannot create a file of 35184372088832 B (32TiB): the file system it would be on has ",
            big.display()
        );
        assert!(
            err.trim().starts_with(&prefix)
                && err.trim().ends_with(&format!(
                    " B free; give a smaller --target-size (or [target] size) or a folder on a file system with room; nothing was created; the run did not start: {out}/results.json says \"failed\""
                )),
            "{err}"
        );
        assert!(
            !big.exists(),
            "a refused target creation left big.img behind"
        );
        // A resource limit: the output folder holds results.json saying "failed" with why, no phase.
        let (_, r) = strict_results(&d.join(out));
        assert_eq!(
            (r["status"].as_str(), r["phases"].as_array().map(Vec::len)),
            (Some("failed"), Some(0))
        );
    }
    drop(mnt);
}

/// An output folder that cannot be made (under a regular file; on a read-only tmpfs) is refused, exit 2,
/// before the target file is created: no target afterwards.
#[test]
fn an_unwritable_output_folder_is_refused_before_the_target_is_created() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "w.toml", &spec_text("w", WRITER));
    write_file(d, "file", "x");
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &[
            "w.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            "file/out",
        ],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("file/out"), "{err}");
    assert!(
        !d.join("t.img").exists(),
        "the target was created before the output folder was refused"
    );

    let ro = match Mount::new(d.join("ro"), &["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"]) {
        Ok(m) => m,
        Err(why) => return skip("an_unwritable_output_folder (read-only tmpfs)", &why),
    };
    let out = ro.dir.join("out");
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &[
            "w.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            out.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Read-only file system"), "{err}");
    assert!(
        !d.join("t.img").exists(),
        "the target was created before the output folder was refused"
    );
    drop(ro);
}

/// Two sweeps of one name, or a sweep named after another key's matrix label, would give phases two labels
/// of one name (`a[bs=10%,bs=4KiB]`, and `compare --by bs` dropped members; found by the attacker): refused.
/// A sweep named after the key it sweeps (`data` sweeping `data`) is the same label and is accepted.
#[test]
fn sweep_names_that_would_collide_are_refused() {
    let dir = tempdir();
    let d = dir.path();
    let phases =
        "[[phase]]\nname = \"a\"\nkind = \"erase\"\n[[phase]]\nname = \"b\"\nkind = \"erase\"\n";
    let cases = [
        (
            "[[sweep]]\nname = \"op\"\nphases = [\"a\"]\nspan = [\"10%\"]\n[[sweep]]\nname = \"op\"\nphases = [\"b\"]\nspan = [\"20%\"]\n",
            Some(
                "error: t.toml:16:1: sweep[1].name: sweep name \"op\" is already the name of sweep[0]",
            ),
        ),
        (
            "[[sweep]]\nname = \"bs\"\nphases = [\"a\"]\nspan = [\"10%\"]\n",
            Some(
                "error: t.toml:12:1: sweep[0].name: sweep name \"bs\" is a matrix label (a list of a key labels its phases with it)",
            ),
        ),
        (
            "[[sweep]]\nname = \"span\"\nphases = [\"a\"]\nspan = [\"10%\"]\n",
            None,
        ),
        // A name its phases' names cannot hold: said once, at the sweep's `name` (it was said at each
        // phase's `name`, line 5: issue 24, round 2).
        (
            "[[sweep]]\nname = \"my op\"\nphases = [\"a\", \"b\"]\nspan = [\"10%\", \"20%\"]\n",
            Some(
                "error: t.toml:12:1: sweep[0].name: sweep name \"my op\" is not usable in the names of its phases (they would be named like \"PHASE[my op=VALUE]\", which name their CSV files)",
            ),
        ),
    ];
    for (sweeps, want) in cases {
        write_file(d, "t.toml", &spec_text("s", &format!("{phases}{sweeps}")));
        let (code, _, err) = code_out_err(&wkrun(d, &["validate", "t.toml"]));
        match want {
            Some(w) => {
                assert_eq!(code, 2, "{err}");
                assert_eq!(err.lines().next().unwrap(), w);
                assert_eq!(err.matches("error: ").count(), 1, "{err}");
            }
            None => assert_eq!(code, 0, "{err}"),
        }
    }
}

/// `steady_after.written` on a read-only workload could never be met (it counts the phase's writes): refused
/// like `headline = ["fill_once"]` there (attacker).
#[test]
fn steady_after_written_on_a_read_only_workload_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nduration = \"10s\"\nsteady_state = { rule = \"snia\" }\nsteady_after = { written = \"1%\" }\n";
    write_file(d, "t.toml", &spec_text("s", body));
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", "t.toml"]));
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.lines().next().unwrap(),
        "error: t.toml:11:1: phase[0] \"r\".steady_after: steady_after written counts the phase's writes, and this workload only reads (read_percent = 100): judging would never begin"
    );
}
