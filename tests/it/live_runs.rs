//! Results of runs that have not ended (attack 24): a folder a run still writes into is not merged (F7).

use crate::common::*;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One write workload capped at 200 IOPS (so its CPU is little) lasting `duration`.
fn capped(duration: &str) -> String {
    format!(
        "[defaults]\nengine = \"psync\"\ndirect = false\nblock_size = \"4KiB\"\n\
         [[phase]]\nname = \"rw\"\nkind = \"workload\"\nread_percent = 0\nduration = \"{duration}\"\nrate_iops = 200\n"
    )
}

/// `wkrun s.toml --target T --target-size 16MiB -o OUT -q`, started in `dir` and not waited for.
fn start(dir: &Path, target: &str, out: &str) -> Child {
    Command::new(wkrun_bin())
        .args([
            "s.toml",
            "--target",
            target,
            "--target-size",
            "16MiB",
            "-o",
            out,
            "-q",
        ])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start wkrun")
}

/// Waits (up to 30 s) until `path` exists.
fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} not made in 30 s",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_folder_whose_run_is_still_going_is_not_merged() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("live", &capped("30s")));
    let mut child = start(d.path(), "a.img", "a");
    wait_for(&d.path().join("a/results.json"));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["merge", "-o", "m", "a"]));
    let pid = child.id();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        err,
        format!(
            "error: a is the output folder of a wkrun run still going (pid {pid}): its results are not final; merge it once that run has ended\n"
        )
    );
    assert_eq!(out, "");
    assert!(!d.path().join("m").exists());
    // A run that has ended (here killed: its folder's lock went with it) is merged.
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["merge", "-o", "m", "a"]));
    assert_eq!(code, 0, "{err}");
}

