//! Every line wkrun prints on stdout or stderr goes out in one `write(2)` with its newline, so that a
//! launcher tagging each line it reads (`mpirun --tag-output`, `srun --label`) never splits one: checked on
//! the real binary under `strace -f -e trace=write` (skipped, visibly, where strace is missing).

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// The `(fd, text)` of each `write` to fd 1 or 2 in an strace log (`-f`: a pid before each call; a call
/// interrupted by another thread's is `write(2, "...", N <unfinished ...>`, its string printed there).
fn console_writes(log: &str) -> Writes {
    let mut out = Vec::new();
    for line in log.lines() {
        let Some(at) = line.find("write(") else {
            continue;
        };
        let rest = &line[at + "write(".len()..];
        let Some((fd, rest)) = rest.split_once(", \"") else {
            continue;
        };
        let Ok(fd) = fd.parse::<u32>() else { continue };
        if fd != 1 && fd != 2 {
            continue;
        }
        // The string up to its closing quote, strace's escapes undone (`\n`, `\"`, octal bytes `\303`).
        let mut bytes = Vec::new();
        let mut it = rest.bytes().peekable();
        while let Some(c) = it.next() {
            match c {
                b'"' => break,
                b'\\' => match it.next() {
                    Some(b'n') => bytes.push(b'\n'),
                    Some(b't') => bytes.push(b'\t'),
                    Some(d @ b'0'..=b'7') => {
                        // At most three digits: an en dash before a number (`17–66 %`, a grouped
                        // warning's range) is `\342\200\22366`, whose `66` is text.
                        let mut v = u32::from(d - b'0');
                        for _ in 0..2 {
                            let Some(&n @ b'0'..=b'7') = it.peek() else {
                                break;
                            };
                            v = v * 8 + u32::from(n - b'0');
                            it.next();
                        }
                        bytes.push(v as u8);
                    }
                    Some(e) => bytes.push(e),
                    None => break,
                },
                c => bytes.push(c),
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        out.push((fd, text));
    }
    out
}

/// The `(fd, text)` of each console write.
type Writes = Vec<(u32, String)>;

/// Runs `wkrun ARGS` in `d` under strace; its exit code, stdout and stderr, and the console writes it made.
/// `None` when strace cannot run here.
fn traced(d: &Path, args: &[&str]) -> Option<(i32, [String; 2], Writes)> {
    let log = d.join("strace.log");
    let o = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=write", "-s", "65536", "-o"])
        .arg(&log)
        .arg(wkrun_bin())
        .args(args)
        .current_dir(d)
        .output()
        .ok()?;
    let text = std::fs::read_to_string(&log).ok()?;
    let (code, out, err) = code_out_err(&o);
    Some((code, [out, err], console_writes(&text)))
}

/// Asserts that each write is whole lines (ends with its newline) and that together they are stdout's and
/// stderr's text.
fn assert_whole_lines(what: &str, writes: &[(u32, String)], [stdout, stderr]: &[String; 2]) {
    assert!(!writes.is_empty(), "{what}: no console write traced");
    for (fd, w) in writes {
        assert!(
            w.ends_with('\n'),
            "{what}: a write to fd {fd} without its newline: {w:?}"
        );
    }
    for (fd, text) in [(1, stdout), (2, stderr)] {
        let got: String = writes
            .iter()
            .filter(|(f, _)| *f == fd)
            .map(|(_, w)| w.as_str())
            .collect();
        assert_eq!(&got, text, "{what}: fd {fd}");
    }
}

#[test]
fn every_console_line_is_one_write_with_its_newline() {
    let test = "lines::every_console_line_is_one_write_with_its_newline";
    if Command::new("strace").arg("-V").output().is_err() {
        return skip(test, "strace is not installed (apt-get install -y strace)");
    }
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 4 << 20);
    sparse_file(&d.join("b.img"), 4 << 20);
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nengine = \"psync\"\nworkers = 2\n\
                [[phase]]\nname = \"rr\"\nkind = \"workload\"\nengine = \"psync\"\nread_percent = 100\n\
                block_size = \"4KiB\"\nsize = \"256KiB\"\n";
    write_file(d, "spec.toml", &spec_text("lines", body));
    // One target, then two (log lines prefixed with the label, from a thread per target).
    let Some((code, both, writes)) = traced(d, &["spec.toml", "--target", "a.img", "-o", "one"])
    else {
        return skip(test, "strace cannot trace here (ptrace refused?)");
    };
    assert_eq!(code, 0, "{both:?}");
    assert_whole_lines("one target", &writes, &both);
    // The summary on stdout (results, two phases of two lines or more, done, next), the rest on stderr.
    assert!(both[0].lines().count() >= 9, "{both:?}");
    assert!(!both[1].is_empty(), "{both:?}");
    let (code, both, writes) = traced(
        d,
        &[
            "spec.toml",
            "--target",
            "a.img",
            "--target",
            "b.img",
            "-o",
            "two",
        ],
    )
    .expect("traced");
    assert_eq!(code, 0, "{both:?}");
    assert_whole_lines("two targets", &writes, &both);
    assert!(both[0].contains("\n[t1-b.img] "), "{both:?}");
    assert!(both[1].contains("[t1-b.img] "), "{both:?}");
    // A plan (stdout, with a note on stderr) and an error.
    let (code, both, writes) = traced(
        d,
        &[
            "plan",
            "spec.toml",
            "--target",
            "a.img",
            "--target-size",
            "4MiB",
        ],
    )
    .expect("traced");
    assert_eq!(code, 0, "{both:?}");
    assert_eq!(
        both[1],
        "note: a.img exists: the target size setting is ignored (it applies only to a file wkrun creates)\n"
    );
    assert_whole_lines("plan", &writes, &both);
    assert!(writes.iter().any(|(fd, _)| *fd == 1));
    let (code, both, writes) =
        traced(d, &["spec.toml", "--target", "a.img", "-o", "one"]).expect("traced");
    assert_eq!(code, 2, "{both:?}");
    assert_whole_lines("refused", &writes, &both);
}
