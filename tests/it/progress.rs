//! The live progress display of a run (issue 5, item 4): on a terminal (a pseudo-terminal from util-linux
//! `script`) one line per phase with its position, time left, IOPS, bandwidth and latency; without a
//! terminal only the plain log lines; with `--quiet` nothing.

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// An erase and a 1-second workload on a 4 MiB file: phases 1/2 and 2/2.
fn spec(dir: &Path) -> String {
    let text = spec_text(
        "progress",
        &format!(
            "[target]\npath = \"{}\"\nsize = \"4MiB\"\n\
             [[phase]]\nname = \"purge\"\nkind = \"erase\"\n\
             [[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\n\
             duration = \"1s\"\ninterval = \"100ms\"\n",
            dir.join("t.img").display()
        ),
    );
    write_file(dir, "p.toml", &text).display().to_string()
}

/// Runs `wkrun ARGS` on a pseudo-terminal; the terminal's output (stdout and stderr together) and the exit
/// code. `None` when `script` is not installed.
fn on_pty(cwd: &Path, args: &str) -> Option<(i32, String)> {
    if Command::new("script").arg("--version").output().is_err() {
        return None;
    }
    let o = Command::new("script")
        .args(["-qfec", &format!("{} {args}", wkrun_bin()), "/dev/null"])
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::null())
        .current_dir(cwd)
        .output()
        .expect("run script");
    Some((
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    ))
}

#[test]
fn progress_line_on_a_terminal() {
    let tmp = tempdir();
    let s = spec(tmp.path());
    let Some((code, out)) = on_pty(tmp.path(), &format!("{s} -o out")) else {
        skip(
            "progress_line_on_a_terminal",
            "script (util-linux) not installed",
        );
        return;
    };
    assert_eq!(code, 0, "{out}");
    // The erase: a spinner line; the workload: a bar, time done and left, the last interval's rates.
    assert!(out.contains("phase 1/2 purge "), "{out}");
    assert!(out.contains("phase 2/2 w ["), "{out}");
    assert!(out.contains("/1 s, "), "{out}");
    assert!(out.contains(" s left · "), "{out}");
    assert!(out.contains(" IOPS · "), "{out}");
    assert!(out.contains(" MB/s · lat "), "{out}");
    assert!(out.contains(" µs"), "{out}");
    // The log lines still print, above the bar.
    assert!(out.contains("[phase 1] workload \"w\": [0, 4194304), 4096 B blocks, QD1, 1s"));
    assert!(out.contains("done: out/results.json"));
    assert!(tmp.path().join("out/results.json").is_file());
}

#[test]
fn plain_log_lines_without_a_terminal() {
    let tmp = tempdir();
    let s = spec(tmp.path());
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &[&s, "-o", "out"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "created {} (4194304 B, sparse)",
            tmp.path().join("t.img").display()
        )
    );
    assert_eq!(lines[1], "results: out");
    assert_eq!(lines[2], "2 phases, numbered 0 to 1");
    assert_eq!(lines[3], "[phase 0] erase \"purge\": [0, 4194304)");
    assert_eq!(
        lines[5],
        "[phase 1] workload \"w\": [0, 4194304), 4096 B blocks, QD1, 1s"
    );
    // The purge punched the whole span: the workload writes into holes of the file.
    assert_eq!(
        lines[6],
        "      warning: 4194304 B (100.0 %) of the write range [0, 4194304) are holes in the file (never written, or punched): the filesystem allocates blocks at the first write into each, so the write numbers include its block allocation"
    );
    assert!(lines[7].starts_with("      0 reads, "), "{}", lines[7]);
    assert!(
        lines[8].starts_with("      latency: write mean "),
        "{}",
        lines[8]
    );
    assert_eq!(lines[9], "done: out/results.json");
    assert_eq!(lines.len(), 10, "{err}");
    assert!(!err.contains("phase 2/2"), "no progress line: {err}");
    assert!(!err.contains('\x1b'), "no escape codes: {err:?}");
}

#[test]
fn quiet_prints_nothing_with_or_without_a_terminal() {
    let tmp = tempdir();
    let s = spec(tmp.path());
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &[&s, "-o", "a", "--quiet"]));
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    if let Some((code, out)) = on_pty(tmp.path(), &format!("{s} -o b -q")) {
        assert_eq!((code, out.as_str()), (0, ""));
        assert!(tmp.path().join("b/results.json").is_file());
    } else {
        skip(
            "quiet_prints_nothing_with_or_without_a_terminal",
            "script (util-linux) not installed: the terminal half did not run",
        );
    }
}
