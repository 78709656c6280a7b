//! A full disk at the end of a run (robustness, item 2): the output folder's file system filled by a file
//! target on the same tmpfs. The run keeps room for its last `results.json` (`results.json.reserve`), so the
//! file says `"failed"` with the error, never the `"running"` of its last version; the reserve is gone
//! afterwards. When even the room kept is too small for the last document, the phases written before are
//! written with `"failed"` and an error naming what is missing.

use crate::common::*;
use std::fs;
use std::io::Write;
use std::path::Path;
use wkrun::results::outdir::OutDir;
use wkrun::results::write::{RESERVE, ResultsWriter, WriteError, reserve_for};
use wkrun::results::{Results, Status};

/// A tmpfs of `size` at `d/mnt` holding a sparse 64 MiB `t.img` and the spec `s.toml` in `d`; `None` (after
/// printing SKIPPED) when it cannot be mounted.
fn full_mount(test: &str, d: &Path, size: &str, body: &str) -> Option<Mount> {
    let m = match Mount::tmpfs(d.join("mnt"), size) {
        Ok(m) => m,
        Err(why) => {
            skip(test, &why);
            return None;
        }
    };
    sparse_file(&m.dir.join("t.img"), 64 << 20);
    write_file(d, "s.toml", &spec_text("full", body));
    Some(m)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const WRITE: &str = "[defaults]\nengine = \"psync\"\ndirect = false\n\
                     [[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"sequential\"\n\
                     block_size = \"64KiB\"\nread_percent = 0\ninterval = \"100ms\"\nduration = \"1s\"\n";

/// The attack of the last session: a workload fills the tmpfs its output folder is on; the write that finds
/// it full fails the phase, and results.json says so (it used to stay at its first, "running", version).
#[test]
fn a_write_that_fills_the_disk_leaves_results_failed() {
    let test = "diskfull::a_write_that_fills_the_disk_leaves_results_failed";
    let d = tempdir();
    let Some(m) = full_mount(test, d.path(), "8m", WRITE) else {
        return;
    };
    let o = wkrun(
        d.path(),
        &["s.toml", "--target", "mnt/t.img", "-o", "mnt/out", "-q"],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: phase 0 \"w\": write of 65536 B at offset ")
            && !err.contains("results"),
        "{err}"
    );
    // The write that found the disk full says so, as ENOSPC or as a short write on a full file system
    // (issue 24 item 22: it said "short transfer" alone).
    assert!(
        err.ends_with("failed: No space left on device (errno 28)\n")
            || err.contains(
                ": the file system holding the target is full (no space left on device)\n"
            ),
        "{err}"
    );
    let out = m.dir.join("out");
    assert_eq!(
        names(&out),
        ["00-w.counters.csv", "00-w.csv", "00-w.hlog", "results.json"]
    );
    let (_, r) = strict_results(&out);
    assert_eq!(r["status"], "failed");
    assert_eq!(
        format!("error: {}\n", r["error"].as_str().expect("error")),
        err
    );
    assert_eq!(phase(&r, 0)["completed"], false);
}

/// The phase itself survives the full disk (`on_error = "continue"`) and ends; the rewrite of results.json
/// after it finds no room, and the run fails with that error written into results.json, thanks to the room
/// kept (before: exit 1 and results.json left saying "running").
#[test]
fn results_that_find_the_disk_full_after_a_phase_still_say_failed() {
    let test = "diskfull::results_that_find_the_disk_full_after_a_phase_still_say_failed";
    let body = format!(
        "{WRITE}on_error = \"continue\"\n[[phase]]\nname = \"r\"\nkind = \"workload\"\n\
         read_percent = 100\nduration = \"1s\"\n"
    );
    let d = tempdir();
    let Some(m) = full_mount(test, d.path(), "8m", &body) else {
        return;
    };
    let o = wkrun(
        d.path(),
        &["s.toml", "--target", "mnt/t.img", "-o", "mnt/out", "-q"],
    );
    let (code, _, err) = code_out_err(&o);
    let msg = "cannot write mnt/out/results.json: No space left on device (os error 28)";
    assert_eq!(
        (code, err.as_str()),
        (1, format!("error: {msg}\n").as_str())
    );
    let out = m.dir.join("out");
    assert_eq!(
        names(&out),
        ["00-w.counters.csv", "00-w.csv", "00-w.hlog", "results.json"]
    );
    let (_, r) = strict_results(&out);
    assert_eq!(r["status"], "failed");
    assert_eq!(r["error"], msg);
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(1));
    assert_eq!(phase(&r, 0)["completed"], true);
    assert!(u(phase(&r, 0), "/errors/write") > 0);
}

/// A run's results as the report fixture holds them, with no phases and `status` running: the start of a
/// run.
fn fixture() -> Results {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report/run-a");
    let text = fs::read_to_string(dir.join("results.json")).expect("fixture");
    let mut r: Results = serde_json::from_str(&text).expect("fixture results");
    r.status = Status::Running;
    r.finished_at = None;
    r
}

/// Fills the file system of `dir` with `dir/filler` until it has no room left.
fn fill(dir: &Path) {
    let mut f = fs::File::create(dir.join("filler")).expect("filler");
    let chunk = vec![0x5au8; 4096];
    while f.write_all(&chunk).is_ok() {}
}

/// The writer's reserve, exactly: the document plus 256 KiB while it has no phases; released before the last
/// write, which fits on the full tmpfs; a last document larger than the room kept is written without the
/// phase that does not fit, as "failed" with the error naming it.
#[test]
fn the_room_kept_takes_the_last_write_or_its_shortened_form() {
    let test = "diskfull::the_room_kept_takes_the_last_write_or_its_shortened_form";
    let d = tempdir();
    for (case, big) in [("fits", false), ("too-large", true)] {
        let m = match Mount::tmpfs(d.path().join(case), "2m") {
            Ok(m) => m,
            Err(why) => return skip(test, &why),
        };
        let out = OutDir::for_run(&m.dir.join("out")).expect("out");
        let mut w = ResultsWriter::for_run(&out);
        let mut r = fixture();
        let phases = std::mem::take(&mut r.phases);
        w.write(&r).expect("first write");
        let len = fs::metadata(m.dir.join("out/results.json"))
            .expect("results")
            .len();
        assert_eq!(w.reserved(), reserve_for(len, 0), "{case}");
        assert_eq!(w.reserved(), len + (256 << 10), "{case}");
        assert_eq!(
            fs::metadata(m.dir.join("out").join(RESERVE))
                .expect("reserve")
                .len(),
            w.reserved()
        );
        fill(&m.dir);
        let mut p = phases[0].clone();
        if big {
            // A warning of 600 KiB: more than the 256 KiB margin.
            p.warnings.push("x".repeat(600 << 10));
        }
        r.phases.push(p);
        r.status = Status::Failed;
        r.error = Some("boom".into());
        let got = w.write(&r);
        let (_, v) = strict_results(&m.dir.join("out"));
        assert_eq!(names(&m.dir.join("out")), ["results.json"], "{case}");
        assert_eq!(v["status"], "failed", "{case}");
        if !big {
            assert!(got.is_ok(), "{got:?}");
            assert_eq!(v["error"], "boom");
            assert_eq!(v["phases"].as_array().map(Vec::len), Some(1));
            continue;
        }
        assert!(
            matches!(got, Err(WriteError::Shortened { kept: 0, .. })),
            "{got:?}"
        );
        assert_eq!(
            v["error"],
            "boom; results.json could not be written in full (No space left on device (os error 28)): \
             the result of phase 0 is missing"
        );
        assert_eq!(v["phases"].as_array().map(Vec::len), Some(0));
    }
}

/// A deferred writer (one of several targets) keeps no room at its first write, and exactly the room a
/// run's writer keeps once asked; a first write that finds no room beside a reserve just made gives the
/// reserve back and writes its file (a run must have its results.json before it has room kept).
#[test]
fn a_deferred_room_is_kept_when_asked_and_a_first_file_comes_before_its_room() {
    let test =
        "diskfull::a_deferred_room_is_kept_when_asked_and_a_first_file_comes_before_its_room";
    let d = tempdir();
    let m = match Mount::tmpfs(d.path().join("m"), "2m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let mut r = fixture();
    r.phases.clear();
    let out = OutDir::for_run(&m.dir.join("deferred")).expect("out");
    let mut w = ResultsWriter::for_run(&out);
    w.defer_room();
    w.write(&r).expect("first write");
    let len = fs::metadata(m.dir.join("deferred/results.json"))
        .expect("results")
        .len();
    assert_eq!(w.reserved(), 0);
    assert!(!m.dir.join("deferred").join(RESERVE).exists());
    w.keep_room_now();
    assert_eq!(w.reserved(), len + (256 << 10));
    w.release();
    // A file system left with 16 KiB: the reserve made before the first write takes it all (before a
    // document is known, the 16 KiB of slack), then is given back for the document.
    let out = OutDir::for_run(&m.dir.join("tight")).expect("out");
    fill(&m.dir);
    let filler = fs::OpenOptions::new()
        .write(true)
        .open(m.dir.join("filler"))
        .expect("filler");
    let full = filler.metadata().expect("filler").len();
    filler.set_len(full - (16 << 10)).expect("filler");
    let mut w = ResultsWriter::for_run(&out);
    w.write(&r).expect("the first write gives the room back");
    assert_eq!(w.reserved(), 0);
    let (_, v) = strict_results(&m.dir.join("tight"));
    assert_eq!(v["status"], "running");
}

/// `wkrun merge` into a folder on a full tmpfs: refused (exit 2, the room it has and needs), and nothing of
/// the merge left. Before: an empty CSV was left; then exit 1 naming the file that did not fit. Case "csv":
/// no room even for the CSV; case "results": 8 KiB, where the CSV fits and results.json does not.
#[test]
fn merge_on_a_full_disk_leaves_nothing() {
    let test = "diskfull::merge_on_a_full_disk_leaves_nothing";
    let d = tempdir();
    let dir = d.path();
    let small =
        "[[phase]]\nname = \"w\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"64KiB\"\n";
    write_file(dir, "s.toml", &spec_text("small", small));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "1MiB",
        "-o",
        "a",
        "-q",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(code, 0, "{err}");
    for case in ["csv", "results"] {
        let m = match Mount::tmpfs(dir.join(case), "8k") {
            Ok(m) => m,
            Err(why) => return skip(test, &why),
        };
        // For "csv", the mount full but without a name in it: a file filling it, held open and unlinked.
        let holder = (case == "csv").then(|| {
            let f = fs::File::create(m.dir.join("hold")).expect("hold");
            let mut f2 = f.try_clone().expect("dup");
            let chunk = vec![1u8; 4096];
            while f2.write_all(&chunk).is_ok() {}
            fs::remove_file(m.dir.join("hold")).expect("unlink");
            f
        });
        let out = format!("{case}/m");
        let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "a", "-o", &out]));
        // Refused before writing (issue 24 item 22: an output folder needs 64 KiB free); before, exit 1
        // naming the file that did not fit (00-w.csv, or results.json).
        let free = if case == "csv" { 0 } else { 8192 };
        assert_eq!(
            (code, err),
            (
                1,
                format!(
                    "error: cannot write into the output folder {out}: its file system has {free} B free, less than the 65536 B a run's results need at least; choose another --output folder; nothing was written\n"
                )
            ),
            "{case}"
        );
        assert_eq!(dir_listing(&m.dir), Vec::<String>::new(), "{case}");
        drop(holder);
    }
}

/// An output folder on a file system with room for nothing but the first `results.json` (a 4 KiB tmpfs,
/// found by the attack session: the phase could not create its CSV, and results.json stayed saying
/// "running"; then exit 1 with "failed"). Since issue 24 item 22 a run needs 64 KiB free in its output
/// folder's file system to start: refused with exit 1 (a full disk is a resource limit) before the target is touched, and no folder left
/// (a completely full file system used to leave an empty one).
#[test]
fn a_folder_with_no_room_to_keep_still_ends_failed() {
    let test = "diskfull::a_folder_with_no_room_to_keep_still_ends_failed";
    let d = tempdir();
    let m = match Mount::tmpfs(d.path().join("mnt"), "4k") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    sparse_file(&d.path().join("t.img"), 16 << 20);
    write_file(d.path(), "s.toml", &spec_text("full", WRITE));
    let o = wkrun(
        d.path(),
        &["s.toml", "--target", "t.img", "-o", "mnt/out", "-q"],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "error: cannot write into the output folder mnt/out: its file system has 4096 B free, less than the 65536 B a run's results need at least; choose another --output folder; nothing was written\n"
        )
    );
    assert_eq!(names(&m.dir), Vec::<String>::new(), "no folder left");
}

/// A phase whose histogram log fills the disk ends at that write (attack 24c F13: it ran on to its end),
/// and its result stays in results.json (found by an earlier attack session: the whole phase was dropped,
/// `"phases": []`): exit 1, "failed" with the log's error, the phase with its writes so far (one per ms
/// of the rows written) and `completed` false, the CSV whole rows short of the 10,000 intervals, as many
/// as `intervals`, and the folder validates (F19).
#[test]
fn a_phase_whose_csv_fills_the_disk_keeps_its_result() {
    let test = "diskfull::a_phase_whose_csv_fills_the_disk_keeps_its_result";
    let d = tempdir();
    let m = match Mount::tmpfs(d.path().join("mnt"), "1m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                read_percent = 0\nduration = \"10s\"\ninterval = \"1ms\"\nrate_iops = 1000\n";
    write_file(d.path(), "s.toml", &spec_text("full", body));
    let o = wkrun(
        d.path(),
        &[
            "s.toml",
            "--target",
            "sim:capacity=1GiB",
            "-o",
            "mnt/out",
            "-q",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    let msg = "phase \"w\": cannot write mnt/out/00-w.hlog: No space left on device (os error 28)";
    assert_eq!(
        (code, err.as_str()),
        (1, format!("error: {msg}\n").as_str())
    );
    let out = m.dir.join("out");
    assert_eq!(
        names(&out),
        ["00-w.csv", "00-w.device.csv", "00-w.hlog", "results.json"]
    );
    let (_, r) = strict_results(&out);
    assert_eq!(
        (r["status"].as_str(), r["error"].as_str()),
        (Some("failed"), Some(msg))
    );
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(1));
    let p = phase(&r, 0);
    assert_eq!(p["completed"], false);
    let writes = u(p, "/write/ops");
    assert!(writes > 0 && writes < 10_000, "{writes} writes");
    assert_eq!(u(p, "/read/ops"), 0);
    assert_eq!(p["series_csv"], "00-w.csv");
    let rows = fs::read_to_string(out.join("00-w.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    assert!(rows > 0 && rows < 10_000, "{rows} rows");
    assert_eq!(rows as u64, u(p, "/intervals"));
    assert!(p["duration_s"].as_f64().is_some_and(|s| s < 10.0), "{p}");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "mnt/out"]));
    assert_eq!(code, 0, "{err}");
}

/// `library add` on a file system too full for the entry: exit 1 saying so, and the library it made for
/// it removed (nothing left on the mount).
#[test]
fn library_add_on_a_full_disk_leaves_no_new_library() {
    let test = "diskfull::library_add_on_a_full_disk_leaves_no_new_library";
    let d = tempdir();
    let dir = d.path();
    write_file(dir, "s.toml", &spec_text("small", WRITE));
    run_s_on_sim(dir, "r");
    let m = match Mount::tmpfs(dir.join("mnt"), "48k") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let library = m.dir.join("lib.sqlite");
    let lib = library.to_str().expect("utf-8");
    let (c, _, e) = code_out_err(&wkrun(dir, &["library", "add", "r", "--library", lib]));
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("database or disk is full"), "{e}");
    assert_eq!(dir_listing(&m.dir), Vec::<String>::new());
}

/// Attack 40 F10: `report` and `man --dir` into a folder on a 64 KiB tmpfs left the SVGs (or the pages)
/// written before the first that did not fit, and their folder: exit 1 naming the file and ENOSPC, and
/// nothing of theirs left on the mount.
#[test]
fn report_and_man_on_a_full_disk_leave_nothing() {
    let test = "diskfull::report_and_man_on_a_full_disk_leave_nothing";
    let d = tempdir();
    let dir = d.path();
    let body =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 50\nduration = \"3s\"\n";
    write_file(dir, "s.toml", &spec_text("small", body));
    let sim = "sim:capacity=64MiB,op=28%,block=256KiB";
    let (code, _, err) = code_out_err(&wkrun(dir, &["s.toml", "--target", sim, "-o", "a", "-q"]));
    assert_eq!(code, 0, "{err}");
    let m = match Mount::tmpfs(dir.join("small"), "64k") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    for args in [
        &["report", "a", "-o", "small/r"][..],
        &["man", "--dir", "small/man"],
    ] {
        let (code, _, err) = code_out_err(&wkrun(dir, args));
        assert_eq!(code, 1, "{args:?}: {err}");
        let (path, why) = cannot_write(&err);
        assert!(path.starts_with(args[args.len() - 1]), "{err}");
        assert_eq!(why, "No space left on device (os error 28)", "{args:?}");
        assert_eq!(
            dir_listing(&m.dir),
            Vec::<String>::new(),
            "{args:?} left files"
        );
    }
}
