//! Robustness against odd input (the attacker's findings of session 4): a FIFO or another file that is not
//! a regular file, given where a spec or a results file is read, is refused from its type without being
//! opened for reading (exit 2, saying what it is, nothing written); validation reports every bad element of
//! a list and locates many errors in one pass; `--set` values broken by a rule name the `--set`.

use crate::common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `wkrun ARGS` in `dir`, killed after 20 s: exit code and stderr; `None` when it had to be killed (it
/// blocked).
fn bounded(dir: &Path, args: &[&str]) -> Option<(i32, String)> {
    let mut child = Command::new(wkrun_bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn wkrun");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().expect("output");
    Some((
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// A FIFO nobody writes to, given as a spec (`validate`, `plan`, `run`), as a results file (`compare`,
/// `report`, `merge`), as the results.json of a folder, or as a series CSV `report` reads: each command
/// exits 2 at once saying it is a FIFO, and writes nothing. Before: `validate` blocked forever.
#[test]
fn a_fifo_as_a_spec_or_results_file_is_refused_without_blocking() {
    let d = tempdir();
    let dir = d.path();
    mkfifo(&dir.join("p"));
    let spec =
        "error: p: cannot read the spec file: it is a FIFO (named pipe), not a regular file\n";
    let results = "error: cannot read p: it is a FIFO (named pipe), not a regular file\n";
    let cases: [(&[&str], &str); 6] = [
        (&["validate", "p"], spec),
        (&["plan", "p", "--target", "t.img"], spec),
        (&["p", "--target", "t.img", "-o", "out"], spec),
        (&["compare", "p"], results),
        (&["report", "p", "-o", "rep"], results),
        (&["merge", "p", "-o", "m"], results),
    ];
    let before = dir_listing(dir);
    for (args, want) in cases {
        let got = bounded(dir, args);
        assert_eq!(got, Some((2, want.to_string())), "{args:?}");
        assert_eq!(dir_listing(dir), before, "{args:?}: nothing written");
    }
    // A results folder whose results.json is a FIFO, then a real run whose series CSV is replaced by one.
    std::fs::create_dir(dir.join("f")).expect("mkdir");
    mkfifo(&dir.join("f/results.json"));
    let got = bounded(dir, &["report", "f", "-o", "rep"]);
    assert_eq!(
        got,
        Some((
            2,
            "error: cannot read f/results.json: it is a FIFO (named pipe), not a regular file\n"
                .into()
        ))
    );
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\n\
                duration = \"10ms\"\ninterval = \"5ms\"\n";
    write_file(dir, "s.toml", &spec_text("s", body));
    let run = bounded(
        dir,
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            "r",
            "-q",
        ],
    );
    assert_eq!(run.map(|r| r.0), Some(0));
    std::fs::remove_file(dir.join("r/00-w.csv")).expect("rm csv");
    mkfifo(&dir.join("r/00-w.csv"));
    let got = bounded(dir, &["report", "r", "-o", "rep"]).expect("report did not block");
    assert_eq!(got.0, 2, "{}", got.1);
    assert!(
        got.1.contains("00-w.csv")
            && got
                .1
                .contains("it is a FIFO (named pipe), not a regular file"),
        "{}",
        got.1
    );
    assert!(!dir.join("rep").exists(), "nothing written");
}

/// Every bad element of a matrix list and of a sweep's list is reported, and the rest of the file is still
/// checked (an unknown key after them, the rules of the other phases and of the list's good values).
/// Before: `validate` stopped at the first bad element.
#[test]
fn every_bad_element_of_a_matrix_or_sweep_list_is_reported() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = [0, 150, 50]\n\
                block_size = [\"4KiB\", \"bogus\", \"8KiB\", \"zz\"]\nduration = \"1s\"\n\
                [[phase]]\nname = \"f\"\nkind = \"fill\"\nqueue_depth = 0\nbogus = 1\n\
                [[sweep]]\nname = \"op\"\nphases = [\"f\"]\nspan = [\"100%\", \"abc\", \"50%\", \"-3%\"]\n";
    write_file(d.path(), "m.toml", &spec_text("m", body));
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "m.toml"]));
    assert_eq!(code, 2, "{err}");
    let firsts: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(
        firsts,
        [
            "error: m.toml:8:1: [[phase]] 0 \"w\" (expanded: \"w[bs=4KiB,read=150]\").read_percent: read_percent = 150 is outside 0..100 (in 2 of the 6 phases [[phase]] \"w\" expands into)",
            "error: m.toml:9:23: phase[0] \"w\".block_size[1]: size \"bogus\" has no number; write e.g. \"4KiB\" or \"1GiB\"",
            "error: m.toml:9:40: phase[0] \"w\".block_size[3]: size \"zz\" has no number; write e.g. \"4KiB\" or \"1GiB\"",
            "error: m.toml:14:1: [[phase]] 1 \"f\" (expanded: \"f[op=100%]\").queue_depth: queue_depth = 0 is out of range (in 2 of the 2 phases [[phase]] \"f\" expands into)",
            "error: m.toml:15:1: phase[1] \"f\".bogus: unknown key `bogus`",
            "error: m.toml:19:17: sweep[0].span[1]: size \"abc\" has no number; write e.g. \"4KiB\" or \"1GiB\"",
            "error: m.toml:19:31: sweep[0].span[3]: percentage \"-3%\" is not a number followed by %",
        ]
    );
}

/// A generated spec of 5,000 phases (about 400 KB) with an unknown key in every 125th phase and a bad
/// block size in every 1000th: exactly those 45 errors, each at its own line, in file order (the file is
/// parsed once and each error costs its own table, not the whole file: see docs/safety.md for the time of
/// a 16 MiB spec).
#[test]
fn many_errors_in_a_large_spec_are_each_reported_at_their_line() {
    let d = tempdir();
    let mut text = spec_text("big", "");
    let mut want = Vec::new();
    // Lines so far, counted as they are added (counting the growing text again each time took most of the
    // test's time).
    let mut lines = text.lines().count();
    for i in 0..5000 {
        let line = lines + 1;
        text += &format!(
            "[[phase]]\nname = \"p{i}\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n"
        );
        lines += 5;
        if i % 125 == 0 {
            text += &format!("bogus_{i} = 1\n");
            lines += 1;
            want.push(format!(
                "error: big.toml:{}:1: phase[{i}] \"p{i}\".bogus_{i}: unknown key `bogus_{i}`",
                line + 5
            ));
        }
        if i % 1000 == 999 {
            text += "block_size = [\"4KiB\", \"4XB\"]\n";
            lines += 1;
            let at = lines;
            want.push(format!(
                "error: big.toml:{at}:23: phase[{i}] \"p{i}\".block_size[1]: size \"4XB\" has an unknown unit \"XB\""
            ));
        }
    }
    assert_eq!(lines, text.lines().count());
    std::fs::write(d.path().join("big.toml"), &text).expect("write");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "big.toml"]));
    assert_eq!(code, 2);
    let got: Vec<String> = err
        .lines()
        .filter(|l| l.starts_with("error: "))
        .map(|l| l.split("; ").next().unwrap_or(l).to_string())
        .collect();
    assert_eq!(got.len(), 45);
    assert_eq!(got, want);
}

/// An error that a `--set` value causes through another key names that `--set`, not the spec's line: the
/// interval count of `--set duration=100000h` (the interval itself is the default; before, the error
/// pointed at the `[[phase]]` line), and a rule that a `--set duration` breaks for the file's headline.
/// Exit 2, nothing written.
#[test]
fn errors_caused_by_a_set_value_name_the_set() {
    let d = tempdir();
    let dir = d.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"10s\"\n\
                headline = [\"at 8s\"]\n";
    write_file(dir, "s.toml", &spec_text("s", body));
    let before = dir_listing(dir);
    let cases = [
        (
            "duration=100000h",
            "error: s.toml: --set duration=100000h: phase[0] \"w\".interval: 100000h / 1s gives 360000000 \
             intervals, more than 10000000\n  help: use a longer interval\n",
        ),
        (
            "duration=5s",
            "error: s.toml: after --set duration=5s: phase[0] \"w\".headline: headline \"at 8s\" leaves no \
             figures after it: the phase measures 5s (duration) in intervals of 1s; the latest point with \
             figures after it is \"at 4s\"\n  help: give a point inside the phase, or a longer duration\n",
        ),
    ];
    for (set, want) in cases {
        for cmd in [&["plan", "s.toml"][..], &["s.toml", "-o", "out"]] {
            let mut args = cmd.to_vec();
            args.extend(["--target", "t.img", "--target-size", "1MiB", "--set", set]);
            let (code, out, err) = code_out_err(&wkrun(dir, &args));
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (2, "", want),
                "{args:?}"
            );
            assert_eq!(dir_listing(dir), before, "{args:?}: nothing written");
        }
    }
}

/// `--set KEY=VALUE` for a key no phase of the spec takes (found by the attack session: `--set workers=3` on
/// a spec of erase and verify phases ran, recorded the override, and changed nothing): exit 2, naming the
/// phases' kinds, nothing written.
#[test]
fn a_set_that_no_phase_takes_is_refused() {
    let d = tempdir();
    let dir = d.path();
    let body = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"check\"\nkind = \"verify\"\nexpect = \"header\"\n";
    write_file(dir, "s.toml", &spec_text("s", body));
    let before = dir_listing(dir);
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "1MiB",
        "-o",
        "out",
        "--set",
        "workers=3",
    ];
    let (code, out, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: s.toml: --set workers=3: no phase of this spec takes `workers` (its phases: erase, verify), so it would change nothing\n"
        )
    );
    assert_eq!(dir_listing(dir), before, "nothing written");
}

/// Issue 24 item 22: a rule broken by thousands of phases (3,000 phases sharing a name) is reported for the
/// first 50, then `more errors may follow these 50`, as serde's errors are; it printed 2,999.
#[test]
fn a_rule_broken_by_thousands_of_phases_is_reported_fifty_times() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"x\"\nkind = \"erase\"\n".repeat(3000);
    write_file(d.path(), "dup.toml", &spec_text("dup", &body));
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "dup.toml"]));
    assert_eq!(code, 2);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 51, "{}", &err[..err.len().min(2000)]);
    assert!(
        errors[..50]
            .iter()
            .all(|e| e.contains(".name: phase name \"x\" is already used by phase[0]"))
    );
    assert_eq!(
        errors[50],
        "error: dup.toml: more errors may follow these 50"
    );
}
