//! Results of runs that have not ended (attack 24): a folder a run still writes into is not merged (F7); the
//! phase a killed run was in is said to be where it stopped, not never run (F8); a merge says which planned
//! phases no host ran (F12).

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
        .args(on_a_new_file("s.toml", target, out))
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start wkrun")
}

/// Waits (up to 30 s) until `path` holds at least `lines` lines (0: until it exists).
fn wait_for(path: &Path, lines: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let count = || std::fs::read_to_string(path).map(|t| t.lines().count());
    while !count().is_ok_and(|n| n >= lines) {
        let why = format!("{} has not {lines} lines in 30 s", path.display());
        assert!(Instant::now() < deadline, "{why}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_folder_whose_run_is_still_going_is_not_merged() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("live", &capped("30s")));
    let mut child = start(d.path(), "a.img", "a");
    wait_for(&d.path().join("a/results.json"), 0);
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

/// A fill and three writes of 300 I/Os each at 200 IOPS (1.5 s each), rows every 100 ms.
const THREE: &str = "[defaults]\nengine = \"psync\"\ndirect = false\nblock_size = \"4KiB\"\ninterval = \"100ms\"\n\
                     [[phase]]\nname = \"fill\"\nkind = \"fill\"\nsize = \"1MiB\"\n\
                     [[phase]]\nname = \"rw1\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1200KiB\"\nrate_iops = 200\n\
                     [[phase]]\nname = \"rw2\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1200KiB\"\nrate_iops = 200\n\
                     [[phase]]\nname = \"rw3\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1200KiB\"\nrate_iops = 200\n";

/// The killed run in `dir/b` (left "running" with fill and rw1) stopped in rw2: `wkrun report b` says so
/// and lists rw3 alone as never run, and `wkrun merge -o m a b` (beside the run that completed) says so on
/// stderr, which it returns.
fn said_stopped_in_rw2(dir: &Path) -> String {
    let (_, r) = strict_results(&dir.join("b"));
    assert_eq!(r["status"], "running");
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(2));
    let (code, _, err) = code_out_err(&wkrun(dir, &["report", "b", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(dir.join("rep/index.html")).expect("report");
    let label = r["label"].as_str().expect("label");
    let said = format!(
        "{label}: stopped in rw2 (the run ended without writing its results: killed?), and 1 planned phase after it never ran.</p>"
    );
    assert!(html.contains(&said), "{said:?} in the report");
    assert!(html.contains("<li><a href=\"#not-run\">stopped in rw2 (the run ended without writing its results: killed?); not run: rw3</a></li>"));
    assert!(
        !html.contains("<td class=\"l\">rw2</td>"),
        "rw2 is not listed as never run"
    );
    let (code, out, err) = code_out_err(&wkrun(dir, &["merge", "-o", "m", "a", "b"]));
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("not run:"), "{out}");
    let stopped = "warning: host 1 (b/results.json) holds 2 of the 4 merged phases: its run stopped in rw2 (the run ended without writing its results: killed?)\n";
    assert!(err.starts_with(stopped), "{stopped:?} first in\n{err}");
    let rw2 = "warning: phase 2 \"rw2\": not every host measured this phase: host 1 stopped in it (the run ended without writing its results: killed?), so the merged figures are those of 1 of the 2 hosts, not the 2 together\n";
    assert!(err.contains(rw2), "{rw2:?} in\n{err}");
    err
}

/// Attack 24 F8 and F12: a run SIGKILLed in rw2, whose `02-rw2.csv` holds a row, stopped in rw2: the
/// report and `wkrun merge` say so, not that it never ran or never began it; a merge prints the planned
/// phases no host ran as a run does.
#[test]
fn a_phase_a_killed_run_was_in_is_said_to_be_where_it_stopped() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("killed", THREE));
    let mut done = start(d.path(), "a.img", "a");
    let mut killed = start(d.path(), "b.img", "b");
    // A row past its header.
    wait_for(&d.path().join("b/02-rw2.csv"), 2);
    let _ = killed.kill();
    let _ = killed.wait();
    assert!(done.wait().expect("wait").success());
    let err = said_stopped_in_rw2(d.path());
    // Attack 25 F6: compare's composite says it as the report does, not "not run", and the report's
    // composite too.
    let (_, r) = strict_results(&d.path().join("b"));
    let label = r["label"].as_str().expect("label");
    let (code, table, cerr) = code_out_err(&wkrun(d.path(), &["compare", "a", "b"]));
    assert_eq!((code, cerr.as_str()), (0, ""));
    let rests = "over 1 of 3 workloads: stopped in rw2 (the run ended without writing its results: killed?), rw3 not run";
    let note = format!("\n[1] the composite of {label} [running]: {rests}\n");
    assert!(table.contains(&note), "{note:?} in\n{table}");
    let (code, _, rerr) = code_out_err(&wkrun(d.path(), &["report", "a", "b", "-o", "rep2"]));
    assert_eq!(code, 0, "{rerr}");
    let html = std::fs::read_to_string(d.path().join("rep2/index.html")).expect("report");
    let said = format!("<p class=\"meta\">Composite: the composite of {label}: {rests}</p>");
    assert!(html.contains(&said), "{said:?} in the report");
    let rw3 = "warning: phase 3 \"rw3\": not every host measured this phase: host 1 never began it (its run ended before this phase began: its status in cluster.hosts says how), so the merged figures are those of 1 of the 2 hosts, not the 2 together\n";
    assert!(err.contains(rw3), "{rw3:?} in\n{err}");
    assert!(!err.contains("ended running"), "{err}");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "m"]));
    assert_eq!(code, 0, "{err}");
    // Forged marks are refused, each naming the field.
    let file = d.path().join("m/results.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("merged")).expect("json");
    v["phases"][1]["hosts"][1]["stopped_in"] = true.into();
    v["phases"][2]["hosts"][1]["stopped_in"] = false.into();
    std::fs::write(&file, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "m"]));
    assert_eq!(code, 2, "{err}");
    for says in [
        "  phases[1].hosts[1].stopped_in: true of a part with a started_at: a host stopped in a phase has no results of it\n",
        "  phases[2].hosts[1].stopped_in: false: a merge writes it only as true\n",
    ] {
        assert!(err.contains(says), "{says:?} in\n{err}");
    }
    // Merged alone, the planned phases no host ran are said as a run says them (F12).
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["merge", "-o", "m1", "b"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("\nnot run: rw2, rw3\n"), "{out}");
}

/// [`THREE`] with a 3 s ramp before rw2's measured second: rw2 makes its series CSV only after it.
const RAMPED: &str = "[defaults]\nengine = \"psync\"\ndirect = false\nblock_size = \"4KiB\"\ninterval = \"100ms\"\n\
                      [[phase]]\nname = \"fill\"\nkind = \"fill\"\nsize = \"1MiB\"\n\
                      [[phase]]\nname = \"rw1\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1200KiB\"\nrate_iops = 200\n\
                      [[phase]]\nname = \"rw2\"\nkind = \"workload\"\nread_percent = 0\nramp = \"3s\"\nduration = \"1s\"\nrate_iops = 200\n\
                      [[phase]]\nname = \"rw3\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1200KiB\"\nrate_iops = 200\n";

/// The number of phases in `dir`'s results.json, 0 while it cannot be read (it is replaced whole).
fn phases_in(dir: &Path) -> usize {
    let text = std::fs::read(dir.join("results.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_slice(&text).unwrap_or_default();
    v["phases"].as_array().map_or(0, Vec::len)
}

/// Session 20 F8: a run SIGKILLed in rw2's ramp, before `02-rw2.csv` exists, said rw2 "never ran" (the
/// report: `2 planned phases never ran: the run stopped before them`; the merge: `never began it`), though
/// its results' last version, holding fill and rw1 and saying "running", shows it went on into rw2. The
/// report, `wkrun merge` and the merged folder's `stopped_in` (which `validate` passes) say it stopped in
/// rw2, as for a run killed with rw2's CSV.
#[test]
fn a_run_killed_before_its_phase_made_a_csv_stopped_in_that_phase() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("killed", RAMPED));
    let mut done = start(d.path(), "a.img", "a");
    let mut killed = start(d.path(), "b.img", "b");
    let b = d.path().join("b");
    let deadline = Instant::now() + Duration::from_secs(30);
    while phases_in(&b) < 2 {
        assert!(
            Instant::now() < deadline,
            "b/results.json holds no 2 phases in 30 s"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = killed.kill();
    let _ = killed.wait();
    assert!(done.wait().expect("wait").success());
    assert!(!b.join("02-rw2.csv").exists(), "rw2 was past its ramp");
    said_stopped_in_rw2(d.path());
    let (_, m) = strict_results(&d.path().join("m"));
    let marks: Vec<&serde_json::Value> = (0..4)
        .map(|i| &m["phases"][i]["hosts"][1]["stopped_in"])
        .collect();
    assert_eq!(
        marks,
        [
            &serde_json::Value::Null,
            &serde_json::Value::Null,
            &true.into(),
            &serde_json::Value::Null
        ]
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", "m"]));
    assert_eq!(code, 0, "{out}{err}");
}
