//! A folder `wkrun merge` wrote, held to its hosts (attack 21): a host that measured nothing in a phase (its
//! run interrupted during the ramp) is said by the merge, its summary, `compare` and the merged results,
//! and required by `validate`; a merged folder's per-host fields are held to the host's own results where
//! they are found, a part's span to its host's capacity, and the warnings the merge derives from its hosts'
//! times to those times.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// One workload on the `null` engine: a 2 s ramp, then 0.3 s measured.
const RAMPED: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                      block_size = \"4KiB\"\nread_percent = 50\nramp = \"2s\"\nduration = \"300ms\"\n";

/// One workload on the `null` engine, 0.2 s measured.
const SHORT: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                     block_size = \"4KiB\"\nread_percent = 50\nduration = \"200ms\"\n";

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

/// Runs `s.toml` in `d` on the 64 MiB `target` into `out`, to its end.
fn run(d: &Path, target: &str, out: &str) {
    sparse_file(&d.join(target), 64 << 20);
    let (code, _, err) = code_out_err(&wkrun(d, &["s.toml", "--target", target, "-o", out]));
    assert_eq!(code, 0, "{err}");
}

/// Runs `s.toml` in `d` on the 64 MiB `target` into `out` and stops it with SIGINT 0.3 s after it
/// prints its phase's first line (`[phase 0] ...`, at the phase's start): during the 2 s ramp.
fn interrupted_in_ramp(d: &Path, target: &str, out: &str) {
    use std::io::BufRead;
    sparse_file(&d.join(target), 64 << 20);
    let mut child = Command::new(wkrun_bin())
        .args(["s.toml", "--target", target, "-o", out])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wkrun");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = std::io::BufReader::new(stdout).lines();
    let started = lines.any(|l| l.is_ok_and(|l| l.starts_with("[phase 0]")));
    assert!(started, "no [phase 0] line");
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill takes a pid and a signal number; the child is ours and has not been reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    lines.for_each(drop);
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(130), "{o:?}");
}

/// The warning the merge gives a phase that host 1 measured nothing in, of 2 hosts.
const HOST_1_MEASURED_NOTHING: &str = "not every host measured this phase: host 1 measured nothing in it (its run stopped before the measured part began, or failed at its first I/O: its own warning says why, below), so the merged figures are those of 1 of the 2 hosts, not the 2 together";

/// Attack 21 A5: one host interrupted during its ramp, one that ran in full. The merge's figures are the
/// complete host's exactly, and everything that shows them says they cover 1 of the 2 hosts: the
/// summary line, stderr, the merged phase's first warning, `compare`'s note. `validate` holds the merge
/// to its hosts' results, found where `merge` was given them, and requires the warning.
#[test]
fn a_host_interrupted_in_its_ramp_is_said_to_have_measured_nothing() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("ramped", RAMPED));
    run(d, "c.img", "c");
    interrupted_in_ramp(d, "i.img", "i");
    let (code, out, err) = code_out_err(&wkrun(d, &["merge", "c", "i", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let c = json(&d.join("c/results.json"));
    let cp: wkrun::results::PhaseResult =
        serde_json::from_value(c["phases"][0].clone()).expect("phase");
    // Its latency line is the complete host's (the other measured none), and no own-rates line: the
    // hosts' own rates add to the merged one.
    let (merged, _) = strict_results(&d.join("m"));
    let lines: String = expected_sum_lines("  ", "hosts", &merged.phases[0])
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        lines,
        format!("        {}\n", cp.latency_text().expect("latency"))
    );
    assert_eq!(
        out,
        format!(
            "merged 2 hosts, 1 phases: m/results.json\n  phase 0 \"w\": interrupted: {} (1 of 2 hosts measured)\n{lines}",
            cp.totals_text()
        )
    );
    let warning = format!("warning: phase 0 \"w\": {HOST_1_MEASURED_NOTHING}\n");
    assert_eq!(err, warning);
    let m = json(&d.join("m/results.json"));
    let p = &m["phases"][0];
    assert_eq!(p["warnings"][0], HOST_1_MEASURED_NOTHING);
    // The complete host's figures and clock, exactly: the other part is at no time.
    for k in ["read", "write", "total"] {
        assert_eq!(p[k]["ops"], c["phases"][0][k]["ops"], "{k}");
    }
    assert_eq!(p["series_t0_unix_ns"], c["phases"][0]["series_t0_unix_ns"]);
    assert_eq!(p["duration_s"], c["phases"][0]["duration_s"]);
    assert_eq!(p["hosts"][1]["duration_s"], 0.0);
    let (code, out, err) = code_out_err(&wkrun(d, &["compare", "c", "m"]));
    assert_eq!(code, 0, "{err}");
    let note = format!("phase \"w\": {HOST_1_MEASURED_NOTHING}");
    assert_eq!(
        (err.lines().chain(out.lines()))
            .filter(|l| l.starts_with("note: ") && l.ends_with(&note))
            .count(),
        1,
        "{out}{err}"
    );
    let (code, out, err) = code_out_err(&wkrun(d, &["validate", "m"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            // One host was interrupted: the merged run's status says so.
            "m: ok (results, interrupted, 1 phase, 1 series CSV, 2 hosts' results)\n"
        ),
        "{err}"
    );
    // The warning removed: refused, naming it.
    let (code, err) = validate_without_its_first_warning(d, &m, 0);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: m/results.json: phase 0 \"w\": warnings: absent where the merge derives from its hosts' times and counts (hosts[].series_t0_unix_ns, duration_s, completed, ops) {HOST_1_MEASURED_NOTHING:?}: a merged phase keeps the warnings its hosts' parts give\n"
        )
    );
    // A plan its hosts did not make (trial 22: a phase after the one the interrupted run ran, which its own
    // rules allow): refused against each host's results.
    let mut forged = m.clone();
    let plan = forged["planned_phases"].as_array_mut().expect("a plan");
    plan.push(serde_json::json!({"index": 1, "name": "x", "kind": "workload"}));
    write_file(d, "m/results.json", &forged.to_string());
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", "m"]));
    assert_eq!(code, 2, "{err}");
    let said = |host: &str| {
        format!(
            "{}: planned_phases holds 2 items is not {}'s, 1 items: a merge keeps the plan of the runs it merges",
            Path::new("m/results.json").display(),
            Path::new(host).join("results.json").display()
        )
    };
    assert!(
        err.contains(&said("c")) && err.contains(&said("i")),
        "{err}"
    );
}

/// Attack 21 A3: a merge of two real runs, made one after the other, with its per-host fields forged.
/// Each is refused naming the field, the merged folder's value and the host's own (its results found as
/// `merge` was given them); a span past its host's capacity is refused without them; and the warning that
/// the hosts did not run the phase at the same time, derived from the hosts' times, is required.
#[test]
fn forged_host_fields_of_a_merge_are_held_to_the_hosts() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("short", SHORT));
    run(d, "a.img", "a");
    run(d, "b.img", "b");
    let (code, _, err) = code_out_err(&wkrun(d, &["merge", "a", "b", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let m = json(&d.join("m/results.json"));
    let b = json(&d.join("b/results.json"));
    let (code, out, err) = code_out_err(&wkrun(d, &["validate", "m"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "m: ok (results, 1 phase, 1 series CSV, 2 hosts' results)\n"
        ),
        "{err}"
    );
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut f = m.clone();
        edit(&mut f);
        write_file(d, "m/results.json", &f.to_string());
        let (code, _, err) = code_out_err(&wkrun(d, &["validate", "m"]));
        assert_eq!(code, 2, "{err}");
        err
    };
    let err = refused(&|f| f["cluster"]["hosts"][1]["capacity_bytes"] = (128u64 << 20).into());
    assert_eq!(
        err,
        "error: m/results.json: cluster.hosts[1].capacity_bytes 134217728 is not b/results.json's, 67108864: a host's entry is its own results'\n"
    );
    let err = refused(&|f| f["phases"][0]["hosts"][1]["span_bytes"] = (1u64 << 30).into());
    assert!(
        err.contains("phases[0].hosts[1].span_bytes: 1073741824 is past its host's target, cluster.hosts[1].capacity_bytes 67108864: a host's span lies within its target"),
        "{err}"
    );
    assert!(
        err.contains("error: m/results.json: phases[0].hosts[1].span_bytes 1073741824 is not what b/results.json holds of phase 0 \"w\", 67108864: a host's part is its own phase's figures"),
        "{err}"
    );
    let p99 = &b["phases"][0]["write"]["latency_ns"]["p99"];
    let err =
        refused(&|f| f["phases"][0]["hosts"][1]["write"]["latency_ns"]["p99"] = 200000.into());
    assert!(
        err.contains(&format!("error: m/results.json: phases[0].hosts[1].write.latency_ns.p99 200000 is not what b/results.json holds of phase 0 \"w\", {p99}: a host's part is its own phase's figures")),
        "{err}"
    );
    // The runs were made one after the other: the merge said so, and that warning is required.
    let apart = m["phases"][0]["warnings"][0].as_str().expect("warning");
    assert!(
        apart.starts_with("the hosts did not run this phase at the same time: host 1 started it "),
        "{apart}"
    );
    let err = refused(&|f| f["phases"][0]["warnings"] = Value::Array(Vec::new()));
    assert_eq!(
        err,
        format!(
            "error: m/results.json: phase 0 \"w\": warnings: absent where the merge derives from its hosts' times and counts (hosts[].series_t0_unix_ns, duration_s, completed, ops) {apart:?}: a merged phase keeps the warnings its hosts' parts give\n"
        )
    );
    // Without the hosts' folders, the entry cannot be held to them: validate says what it held.
    write_file(d, "m/results.json", &m.to_string());
    std::fs::rename(d.join("b"), d.join("b-moved")).expect("move");
    let (code, out, err) = code_out_err(&wkrun(d, &["validate", "m"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "m: ok (results, 1 phase, 1 series CSV, 1 host's results)\n"
        ),
        "{err}"
    );
}

/// Two workloads on the `null` engine, 0.2 s each.
const TWO: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                   block_size = \"4KiB\"\nread_percent = 50\nduration = \"200ms\"\n\
                   [[phase]]\nname = \"r\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                   block_size = \"4KiB\"\nread_percent = 100\nduration = \"200ms\"\n";

/// Runs `s.toml` in `d` on the 64 MiB `target` into `out` as rank `rank`, to its end.
fn run_ranked(d: &Path, target: &str, out: &str, rank: &str) {
    sparse_file(&d.join(target), 64 << 20);
    let args = ["s.toml", "--target", target, "-o", out, "--rank", rank];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
}

/// Runs `s.toml` in `d` on the 64 MiB `target` into `out` as rank `rank`, asked to start in 60 s, and
/// stops it with SIGINT during the wait (once its results.json says the wait began): exit 130, its
/// results interrupted with no phase.
fn interrupted_in_wait(d: &Path, target: &str, out: &str, rank: &str) {
    sparse_file(&d.join(target), 64 << 20);
    let args = ["s.toml", "--target", target, "-o", out, "--rank", rank];
    let mut child = Command::new(wkrun_bin())
        .args(args)
        .args(["--start-at", "+60", "-q"])
        .current_dir(d)
        .spawn()
        .expect("start wkrun");
    let results = d.join(out).join("results.json");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !results.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill takes a pid and a signal number; the child is ours and has not been reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    assert_eq!(child.wait().expect("wait").code(), Some(130));
}

/// The warning the merge gives a phase that rank 2 never began, of 3 hosts.
const RANK_2_NEVER_BEGAN: &str = "not every host measured this phase: rank 2 never began it (its run ended before this phase began: its status in cluster.hosts says how), so the merged figures are those of 2 of the 3 hosts, not the 3 together";

/// Trial 22 M1: rank 2 stopped by SIGINT during `--start-at`'s wait (its results: interrupted, no phase)
/// beside ranks 0 and 1 that ran both phases. The merge keeps both phases, each the two ranks' ops added
/// and rank 2's part blank; each is warned of and marked `2 of 3 hosts measured`; the merge is
/// interrupted and its stderr names rank 2 with its own status. `validate` accepts it, holding it to the
/// three hosts' results, and requires the warning. Before, the merge held 0 phases, silently.
#[test]
fn a_host_stopped_in_the_wait_for_its_start_keeps_the_others_phases() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("two", TWO));
    run_ranked(d, "a.img", "a", "0");
    run_ranked(d, "b.img", "b", "1");
    interrupted_in_wait(d, "c.img", "c", "2");
    let c = json(&d.join("c/results.json"));
    assert_eq!(
        (c["status"].as_str(), c["phases"].as_array().map(Vec::len)),
        (Some("interrupted"), Some(0))
    );
    let (code, out, err) = code_out_err(&wkrun(d, &["merge", "c", "a", "b", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let (a, b) = (
        json(&d.join("a/results.json")),
        json(&d.join("b/results.json")),
    );
    let (merged, m) = strict_results(&d.join("m"));
    assert_eq!(
        (merged.phases.len(), m["status"].as_str()),
        (2, Some("interrupted"))
    );
    let ops = |v: &Value, i: usize, k: &str| v["phases"][i][k]["ops"].as_u64().expect("ops");
    for i in 0..2 {
        let p = &m["phases"][i];
        for k in ["read", "write", "total"] {
            assert_eq!(
                ops(&m, i, k),
                ops(&a, i, k) + ops(&b, i, k),
                "phase {i} {k}"
            );
        }
        assert!(ops(&m, i, "total") > 0);
        let blank = &p["hosts"][2];
        assert_eq!(
            (
                blank.get("started_at"),
                &blank["duration_s"],
                &blank["completed"]
            ),
            (None, &Value::from(0.0), &Value::from(false))
        );
        assert_eq!(
            (
                blank["read"]["ops"].as_u64(),
                blank["write"]["ops"].as_u64()
            ),
            (Some(0), Some(0))
        );
        assert_eq!(p["completed"], false);
        assert_eq!(p["warnings"][0], RANK_2_NEVER_BEGAN);
    }
    // Ranks 0 and 1 ran one after the other: that warning comes too, and is not this test's.
    let said: Vec<&str> = err
        .lines()
        .filter(|l| !l.contains("did not run this phase at the same time"))
        .collect();
    assert_eq!(
        said,
        [
            "warning: rank 2 (c/results.json) began none of the 2 merged phases: its run was interrupted by SIGINT before phase 0 \"w\" began".to_string(),
            format!("warning: phase 0 \"w\": {RANK_2_NEVER_BEGAN}"),
            format!("warning: phase 1 \"r\": {RANK_2_NEVER_BEGAN}"),
        ]
    );
    let totals: Vec<&str> = out.lines().filter(|l| l.starts_with("  phase ")).collect();
    assert_eq!(totals.len(), 2, "{out}");
    for (i, p) in merged.phases.iter().enumerate() {
        assert_eq!(
            totals[i],
            format!(
                "  phase {i} \"{}\": interrupted: {} (2 of 3 hosts measured)",
                p.name,
                p.totals_text()
            )
        );
    }
    let (code, out, err) = code_out_err(&wkrun(d, &["validate", "m"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "m: ok (results, interrupted, 2 phases, 2 series CSVs, 3 hosts' results)\n"
        ),
        "{err}"
    );
    let (code, err) = validate_without_its_first_warning(d, &m, 1);
    assert_eq!(code, 2);
    // The warning in its place is the one after it (the runs' times), if any, else none.
    assert!(
        err.starts_with("error: m/results.json: phase 1 \"r\": warnings: "),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            " where the merge derives from its hosts' times and counts (hosts[].series_t0_unix_ns, duration_s, completed, ops) {RANK_2_NEVER_BEGAN:?}: a merged phase keeps the warnings its hosts' parts give\n"
        )),
        "{err}"
    );
}

/// `wkrun validate` of merge folder `d/m` whose results (`m`) lack phase `i`'s first warning: its exit code
/// and stderr.
fn validate_without_its_first_warning(d: &Path, m: &Value, i: usize) -> (i32, String) {
    let mut forged = m.clone();
    forged["phases"][i]["warnings"]
        .as_array_mut()
        .expect("warnings")
        .remove(0);
    write_file(d, "m/results.json", &forged.to_string());
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", "m"]));
    (code, err)
}
