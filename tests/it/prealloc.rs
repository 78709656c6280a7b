//! A file target wkrun creates is preallocated: its blocks exist before the first phase, so no measured
//! write pays for block allocation, and a file system without room refuses the run before anything runs.

use crate::common::*;
use std::path::{Path, PathBuf};

const SPEC: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 2\nread_percent = 0\nsize = \"8MiB\"\n";

/// Two created targets (the scale check's run): each holds its whole 64 MiB on disk before any write, its
/// results say `created` and `preallocated`, and each got exactly its 2048 writes of 4 KiB.
#[test]
fn created_file_targets_have_their_blocks_allocated() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("prealloc", SPEC));
    let args = [
        "s.toml",
        "--target",
        "a.img",
        "--target",
        "c.img",
        "--target-size",
        "64MiB",
        "-o",
        "r",
        "-q",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    for (i, name) in ["a.img", "c.img"].iter().enumerate() {
        let r = results(&d.path().join(format!("r/t{i}-{name}")));
        check_results_file(&d.path().join(format!("r/t{i}-{name}/results.json")));
        assert_eq!(r["target"]["created"], true, "{name}");
        assert_eq!(u(&phase(&r, 0)["write"], "/ops"), 2048, "{name}");
        assert_eq!(u(&phase(&r, 0)["write"], "/bytes"), 8 << 20, "{name}");
        if r["target"]["preallocated"] != true {
            return skip(
                "prealloc::created_file_targets_have_their_blocks_allocated",
                "this file system cannot preallocate (fallocate EOPNOTSUPP): the targets were created sparse",
            );
        }
        let on_disk = allocated_blocks(&d.path().join(name)) * 512;
        assert!(on_disk >= 64 << 20, "{name}: {on_disk} B allocated");
    }
}

/// A 64 MiB target on a 4 MiB tmpfs: exit 2 naming the file, its size and the way out; no file is left on
/// the file system and no results folder is made.
#[test]
fn a_file_system_without_room_for_the_target_refuses_the_run() {
    let test = "prealloc::a_file_system_without_room_for_the_target_refuses_the_run";
    if !is_root() {
        return skip(test, "not running as root: mounting a tmpfs needs root");
    }
    let d = tempdir();
    let mnt = match Mount::tmpfs(d.path().join("mnt"), "4m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    write_file(d.path(), "s.toml", &spec_text("prealloc", SPEC));
    let target = mnt.dir.join("t.img");
    let t = target.to_str().expect("path");
    let args = ["s.toml", "--target", t, "--target-size", "64MiB", "-o", "r"];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    // A file system without room is a resource limit: exit 1.
    assert_eq!(code, 1, "{err}");
    // Refused by the probe, before anything is made (issue 24 item 22); `wkrun plan` says the same.
    let want = format!(
        "error: {t}: cannot create a file of 67108864 B (64MiB): the file system it would be on has 4194304 B free; give a smaller --target-size (or [target] size) or a folder on a file system with room; nothing was created"
    );
    // A resource limit: results.json says "failed" with why (a run refused so left none).
    assert_eq!(
        err.trim_end(),
        format!("{want}; the run did not start: r/results.json says \"failed\"")
    );
    assert_eq!(dir_listing(&mnt.dir), Vec::<String>::new());
    let (_, r) = strict_results(&d.path().join("r"));
    assert_eq!(r["error"].as_str(), want.strip_prefix("error: "));
    let (code, _, err) = code_out_err(&wkrun(d.path(), &[&["plan"][..], &args[..5]].concat()));
    assert_eq!((code, err.trim_end()), (1, want.as_str()));
    // A size past the largest file size (`--target-size 10000000000000000000B`, once "out of range integral
    // type conversion attempted", then "no room", exit 1) is bad input: exit 2 (review 40 L9).
    let big = [
        "s.toml",
        "--target",
        t,
        "--target-size",
        "10000000000000000000B",
        "-o",
        "r2",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &big));
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: {t}: cannot create a file of 10000000000000000000 B (9765625000000000KiB): no file can be larger than 9223372036854775807 B (2^63 - 1); give a smaller --target-size (or [target] size); nothing was created\n"
        )
    );
    assert_eq!(dir_listing(&mnt.dir), Vec::<String>::new());
}

/// A target to create that fits its file system but leaves the output folder's, the same one, less than the
/// 64 KiB the results need: refused (exit 1, a full disk) before the target is made, naming the room and what the target
/// takes; one target or several (their sizes added). It once made the target and failed at results.json,
/// exit 1 (issue 24, round 2). A resource limit, so the run's results.json says "failed" with why, and
/// with several targets each target's and the aggregate's (they once wrote nothing, while a refusal by
/// the open-file limit wrote them).
#[test]
fn a_target_that_would_leave_no_room_for_the_results_is_refused_first() {
    let test = "prealloc::a_target_that_would_leave_no_room_for_the_results_is_refused_first";
    if !is_root() {
        return skip(test, "not running as root: mounting a tmpfs needs root");
    }
    let d = tempdir();
    let mnt = match Mount::tmpfs(d.path().join("mnt"), "16m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    write_file(d.path(), "s.toml", &spec_text("prealloc", SPEC));
    let m = mnt.dir.to_str().expect("path");
    let (a, b) = (format!("{m}/a.img"), format!("{m}/b.img"));
    let (o1, o2) = (format!("{m}/o1"), format!("{m}/o2"));
    let one = [
        "s.toml",
        "--target",
        &a,
        "--target-size",
        "16352KiB",
        "-o",
        &o1,
    ];
    let two = [&one[..5], &["-o", &o2, "--target", &b]].concat();
    let cases = [
        (
            &one[..],
            &o1,
            "target",
            "file to create on it takes",
            16744448u64,
        ),
        (
            &two[..],
            &o2,
            "targets",
            "files to create on it take",
            2 * 16744448,
        ),
    ];
    // The tmpfs's 16 MiB, less the page the first run's results.json takes for the second.
    for (free, (args, out, what, files, bytes)) in [16777216, 16773120].into_iter().zip(cases) {
        let (code, stdout, err) = code_out_err(&wkrun(d.path(), args));
        // A full disk is a resource limit: exit 1, no target created.
        assert_eq!(code, 1, "{err}");
        let why = format!(
            "no room for the results beside the {what} to create: the output folder {out}'s file system has {free} B free, and the target {files} {bytes} B, which would leave less than the 65536 B a run's results need; choose another --output folder or target path, or a smaller --target-size"
        );
        let several = args.len() > one.len();
        let written = match several {
            false => format!("{out}/results.json says"),
            true => format!("{out}/results.json and each target's results.json say"),
        };
        assert_eq!(
            err,
            format!("error: {why}; the run did not start: {written} \"failed\"\n")
        );
        assert_eq!(stdout, "");
        let mut folders = vec![PathBuf::from(out)];
        if several {
            folders.extend(["t0-a.img", "t1-b.img"].map(|t| Path::new(out).join(t)));
        }
        for dir in &folders {
            let (_, r) = strict_results(dir);
            assert_eq!(
                (
                    &r["status"],
                    &r["error"],
                    r["phases"].as_array().map(Vec::len)
                ),
                (&"failed".into(), &why.as_str().into(), Some(0)),
                "{}",
                dir.display()
            );
        }
    }
    let listed = dir_listing(&mnt.dir);
    assert_eq!(
        listed,
        [
            "o1",
            "o1/results.json",
            "o2",
            "o2/results.json",
            "o2/t0-a.img",
            "o2/t0-a.img/results.json",
            "o2/t1-b.img",
            "o2/t1-b.img/results.json"
        ]
    );
}
