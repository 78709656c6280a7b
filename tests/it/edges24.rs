//! Issue 24's leftovers: a results file read in memory bounded by a stated multiple of its size; an output
//! folder holding others' files refused; a phase during which the process was stopped (SIGSTOP) warned of;
//! `--set name=` refused, `--set phase.NAME.name=` renaming one phase.

use crate::common::*;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The documented bound (docs/safety.md, "Bounded work and cleanup"): the room `validate` asks for to read
/// and check a `results.json` of small phases is at most this many times its size beyond what a small one
/// takes (the room is counted from the file's shape: docs/safety.md).
const RESULTS_MEMORY_MULTIPLE: u64 = 4;

/// `wkrun s.toml --target t.img --target-size 1MiB MORE` in `cwd`: its exit code, stdout and stderr.
fn run_new_target(cwd: &Path, more: &[&str]) -> (i32, String, String) {
    let mut args = vec!["s.toml", "--target", "t.img", "--target-size", "1MiB"];
    args.extend_from_slice(more);
    code_out_err(&wkrun(cwd, &args))
}

/// `wkrun ARGS` in `cwd` under `prlimit --as=LIMIT`: its exit code, stdout and stderr.
pub(crate) fn under_as(cwd: &Path, limit: u64, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg(wkrun_bin())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run prlimit");
    code_out_err(&out)
}

/// The smallest address-space limit, to 256 KiB, under which `wkrun validate FILE` exits 0 (bisected between
/// 8 MiB and 1 GiB).
fn least_as(cwd: &Path, file: &str) -> u64 {
    let (mut lo, mut hi) = (8u64 << 20, 1u64 << 30);
    assert_eq!(
        under_as(cwd, hi, &["validate", file]).0,
        0,
        "{file} under 1 GiB"
    );
    while hi - lo > 256 << 10 {
        let mid = (lo + hi) / 2;
        match under_as(cwd, mid, &["validate", file]).0 {
            0 => hi = mid,
            _ => lo = mid,
        }
    }
    hi
}

/// A results folder `to` holding the run `from`'s first phase (with its files) and then copies of its second
/// phase, each renamed and reindexed and naming no file, up to at least `bytes` of `results.json`: a results
/// file of many small phases (the most tree per byte). Returns its number of phases and size.
fn grown(from: &Path, to: &Path, bytes: u64) -> (usize, u64) {
    fs::create_dir_all(to).unwrap();
    let mut doc = results(from);
    for e in fs::read_dir(from).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.starts_with("00-") {
            fs::copy(from.join(&name), to.join(&name)).unwrap();
        }
    }
    let mut model = doc["phases"][1].clone();
    let m = model.as_object_mut().unwrap();
    for k in [
        "series_csv",
        "hist_log",
        "counters_csv",
        "latency_histograms",
    ] {
        m.remove(k);
    }
    let one = serde_json::to_string_pretty(&model).unwrap().len() as u64;
    let n = (bytes / one + 1) as usize;
    // Each copy starts after the one before ended (validate holds phases one after another): its series
    // `step` ns after the one before, a whole millisecond past its duration.
    let t0 = model["series_t0_unix_ns"].as_u64().unwrap();
    let step =
        (model["duration_s"].as_f64().unwrap() * 1e9) as u64 / 1_000_000 * 1_000_000 + 2_000_000;
    let last_end = t0 + n as u64 * step;
    doc["finished_at"] = wkrun::launch::rfc3339_ns(last_end).into();
    let phases = doc["phases"].as_array_mut().unwrap();
    phases.truncate(1);
    for i in 1..=n {
        let mut p = model.clone();
        p["index"] = i.into();
        p["name"] = format!("w{i}").into();
        let at = t0 + (i as u64 - 1) * step;
        p["series_t0_unix_ns"] = at.into();
        p["started_at"] = wkrun::launch::rfc3339_ns(at / 1_000_000 * 1_000_000).into();
        // Each copy's stream seed that of its seed and its new name, as a run records it.
        if let Some(seed) = p["params"]["seed"].as_u64() {
            p["params"]["stream_seed"] = wkrun::ops::phase_seed(seed, &format!("w{i}")).into();
        }
        phases.push(p);
    }
    // The plan the run kept is of its two phases: the grown file's is left out (optional).
    doc.as_object_mut().unwrap().remove("planned_phases");
    let text = serde_json::to_string_pretty(&doc).unwrap();
    fs::write(to.join("results.json"), &text).unwrap();
    (n + 1, text.len() as u64)
}

/// Issue 24: `wkrun validate` of a 100 MB results.json took 2.98 GB (about 30 times its size; 8.8 times on
/// this file's kind of content) as one JSON tree, then the typed copy. Read a phase at a time, and its room
/// counted from its shape before it is read (attack24c F16), a results file of several MB of small phases
/// is refused under what a small one needs plus 3 times its size (exit 1, naming the limit), and validates
/// under the limit the refusal names, which is within what a small one needs plus
/// [`RESULTS_MEMORY_MULTIPLE`] times its size.
#[test]
fn validate_reads_a_results_file_within_the_room_it_asks_for() {
    let test = "edges24::validate_reads_a_results_file_within_the_room_it_asks_for";
    if Command::new("prlimit").arg("--version").output().is_err() {
        return skip(test, "prlimit (util-linux) is not installed");
    }
    let d = tempdir();
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nengine = \"null\"\nblock_size = \"64KiB\"\n\n\
                [[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                read_percent = 70\nblock_size = \"4KiB\"\nsize = \"1MiB\"\n";
    write_file(d.path(), "s.toml", &spec_text("mem", body));
    let (code, _, err) = run_new_target(d.path(), &["-o", "small", "-q"]);
    assert_eq!(code, 0, "{err}");
    let (phases, size) = grown(&d.path().join("small"), &d.path().join("big"), 6 << 20);
    assert!(size >= 6 << 20, "{size} B");
    let small = least_as(d.path(), "small/results.json");
    let (code, _, err) = under_as(
        d.path(),
        small + 3 * size,
        &["validate", "big/results.json"],
    );
    assert_eq!(code, 1, "{err}");
    let enough = crate::load_room::number_after(&err, "raise it to at least ");
    assert!(
        enough <= small + RESULTS_MEMORY_MULTIPLE * size,
        "{enough} B asked, {small} B + {RESULTS_MEMORY_MULTIPLE} × {size} B"
    );
    let (code, out, err) = under_as(d.path(), enough, &["validate", "big/results.json"]);
    assert_eq!(code, 0, "under {enough} B: {err}");
    assert_eq!(
        out,
        format!("big/results.json: ok (results, {phases} phases, 1 series CSV)\n")
    );
}

/// `-o` naming a folder that holds a user's files (`-o /`, `-o .` at home) is refused, exit 2, naming what
/// it holds, with nothing made (no target either); an empty folder, one holding only what a run writes and
/// an empty `lost+found` (a fresh file system's root) are taken.
#[test]
fn an_output_folder_holding_other_files_is_refused() {
    let d = tempdir();
    write_file(
        d.path(),
        "s.toml",
        &spec_text(
            "o",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n",
        ),
    );
    let mine = d.path().join("mine");
    fs::create_dir_all(mine.join("docs")).unwrap();
    for f in ["notes.txt", "a.csv", "b", "c", "docs/x"] {
        fs::write(mine.join(f), "keep").unwrap();
    }
    let (code, out, err) = run_new_target(d.path(), &["-o", "mine"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        "error: the output folder mine is not empty and holds files that are not wkrun's (a.csv, b, c, 2 more); \
         wkrun writes results only into a new or empty folder: choose another --output folder (such as mine/wkrun-results)\n"
    );
    let mut left: Vec<String> = fs::read_dir(&mine)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["a.csv", "b", "c", "docs", "notes.txt"]);
    assert!(!d.path().join("t.img").exists(), "the target was made");
    // Taken: an empty lost+found, a killed run's leftovers (a reserve, a series CSV), a target's folder of
    // them.
    let taken = d.path().join("taken");
    fs::create_dir_all(taken.join("lost+found")).unwrap();
    fs::create_dir_all(taken.join("t1")).unwrap();
    fs::write(taken.join("results.json.reserve"), "").unwrap();
    fs::write(taken.join("00-old.csv"), "").unwrap();
    fs::write(taken.join("t1/00-old.hlog"), "").unwrap();
    let (code, _, err) = run_new_target(d.path(), &["-o", "taken", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(results(&taken)["status"], "completed");
}

/// Issue 24: a process stopped (SIGSTOP, ctrl-Z) during a time-bound phase: the phase's time includes the
/// stop. The phase it happened in says so (warnings, console); the next phase, not stopped, does not; the
/// series shows the intervals without I/O.
#[test]
fn a_phase_during_which_the_process_was_stopped_is_warned_of() {
    let d = tempdir();
    let body = "[defaults]\nengine = \"psync\"\ndirect = false\nblock_size = \"4KiB\"\ninterval = \"100ms\"\n\n\
                [[phase]]\nname = \"stopped\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 100\n\
                duration = \"3s\"\n\n[[phase]]\nname = \"after\"\nkind = \"workload\"\npattern = \"random\"\n\
                read_percent = 100\nduration = \"300ms\"\n";
    write_file(d.path(), "s.toml", &spec_text("stop", body));
    patterned_file(&d.path().join("t.img"), 1 << 20);
    let child = Command::new(wkrun_bin())
        .args(["s.toml", "--target", "t.img", "-o", "out"])
        .current_dir(d.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    // The first phase has begun once its series has rows.
    let csv = d.path().join("out/00-stopped.csv");
    let t = Instant::now();
    while fs::read_to_string(&csv).map_or(0, |s| s.lines().count()) < 3 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the phase never began"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = |sig: &str| {
        assert!(
            Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        )
    };
    kill("-STOP");
    std::thread::sleep(Duration::from_millis(1000));
    kill("-CONT");
    let out = child.wait_with_output().unwrap();
    let (code, _, err) = code_out_err(&out);
    assert_eq!(code, 0, "{err}");
    let r = results(&d.path().join("out"));
    let said = |i: usize| -> Vec<String> {
        phase(&r, i)["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str())
            .filter(|w| w.starts_with("stopped: "))
            .map(str::to_string)
            .collect()
    };
    let w = said(0);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "stopped: the process was stopped (SIGSTOP, or ctrl-Z) and continued 1 time during this phase, the last "
        ),
        "{}",
        w[0]
    );
    assert!(w[0].ends_with(" s after it began: its time includes the stop, when no I/O ran (a time bound went on), so its rates are lower than the device's; the series shows the intervals without I/O"), "{}", w[0]);
    // The continue came 1 s or more after the phase's third row, within the 3 s phase.
    let at: f64 = w[0]
        .split("the last ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1.0..=3.5).contains(&at), "{at}");
    assert!(said(1).is_empty(), "{:?}", said(1));
    assert!(
        err.contains("warning: phase stopped: stopped: the process was stopped"),
        "{err}"
    );
    // At least 8 of the stop's 10 intervals of 100 ms saw no read.
    let idle = csv_rows(&csv)
        .iter()
        .filter(|row| n(row, "read_ops") == 0)
        .count();
    assert!(idle >= 8, "{idle} intervals without I/O");
}

/// `--set name=V` would give every phase one name (or was meant as the run's name): refused, exit 2, saying
/// how to rename one phase; `--set phase.NAME.name=NEW` renames that phase.
#[test]
fn set_name_is_refused_and_one_phase_is_renamed() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"a\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n\n\
                [[phase]]\nname = \"b\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &spec_text("n", body));
    let (code, out, err) = run_new_target(d.path(), &["--set", "name=x", "-o", "o1"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: s.toml: --set name=x: `name` is each phase's own name, and --set cannot give every phase one; \
         rename one phase with --set phase.NAME.name=NEW (the spec's [spec] name, which names the results folder, \
         is not changed by --set: choose the folder with -o)\n"
    );
    assert!(!d.path().join("o1").exists() && !d.path().join("t.img").exists());
    let (code, _, err) = run_new_target(d.path(), &["--set", "phase.b.name=c", "-o", "o2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--set phase.b.name=c: phase c\n"), "{err}");
    let r = results(&d.path().join("o2"));
    assert_eq!(
        (&phase(&r, 0)["name"], &phase(&r, 1)["name"]),
        (&"a".into(), &"c".into())
    );
    assert_eq!(phase(&r, 1)["series_csv"], "01-c.csv");
}

/// Attack 24c, finding 18: on the simulated drive a stop lowers no rate (its time is virtual: the phase
/// does not go on while the process is stopped), so a phase stopped and continued gets no "stopped:" warning
/// and its series has a row for every virtual second, each with writes.
#[test]
fn a_stop_during_a_phase_on_the_simulated_drive_is_not_warned_of() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                queue_depth = 32\nread_percent = 0\nduration = \"300s\"\n";
    write_file(d.path(), "s.toml", &spec_text("simstop", body));
    let mut child = Command::new(wkrun_bin())
        .args([
            "s.toml",
            "--target",
            "sim:capacity=256MiB,op=20%",
            "-o",
            "out",
            "-q",
        ])
        .current_dir(d.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let csv = d.path().join("out/00-w.csv");
    let t = Instant::now();
    while fs::read_to_string(&csv).map_or(0, |s| s.lines().count()) < 3 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the phase never began"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let kill = |sig: &str| {
        let ok = Command::new("kill").args([sig, &pid]).status().unwrap();
        assert!(ok.success());
    };
    kill("-STOP");
    std::thread::sleep(Duration::from_millis(500));
    let stopped_in_phase = child.try_wait().unwrap().is_none();
    kill("-CONT");
    let out = child.wait_with_output().unwrap();
    let (code, _, err) = code_out_err(&out);
    assert_eq!(code, 0, "{err}");
    assert!(stopped_in_phase);
    let r = results(&d.path().join("out"));
    let all = phase(&r, 0)["warnings"].to_string();
    assert!(!all.contains("stopped: "), "{all}");
    assert!(!err.contains("stopped: "), "{err}");
    let rows = csv_rows(&csv);
    let full = rows.iter().filter(|row| n(row, "partial") == 0).count();
    assert_eq!(full, 300, "a full row per virtual second");
    assert!(rows.iter().all(|row| n(row, "write_ops") > 0));
}
