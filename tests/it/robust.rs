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
