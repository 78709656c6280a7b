//! The SNIA PTS specs of `specs/snia/` (issue 29) at trial scale on a 64 MiB simulated drive: each runs end
//! to end, and its plan, phase names, round counts, windows and verdicts are exact. Each round's tracking
//! value is recomputed from its phase (the series CSV for rates), and the window the oracle of
//! `rounds.rs` finds steady is the one the run reports.

use crate::common::*;
use crate::published::{hold, thousands};
use crate::rounds::{SIM, by_index, csv_rate, pts_steady_at};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Runs `specs/snia/NAME.toml` on the small simulated drive with `args` added; returns the results folder
/// (kept alive by the returned temporary folder) and its results.
pub(crate) fn run_pts(name: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf, Value) {
    let dir = tempdir();
    let (out, r) = run_pts_in(dir.path(), name, args);
    (dir, out, r)
}

/// [`run_pts`] in `dir`: the results folder `dir/out` and its results.
fn run_pts_in(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, Value) {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("specs/snia/{name}.toml"));
    let mut all = vec![spec.to_str().expect("utf-8"), "--target", SIM];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "out", "-q"]);
    let (code, _, err) = code_out_err(&wkrun(dir, &all));
    assert_eq!(code, 0, "{name}: {err}");
    let out = dir.join("out");
    let (_, r) = strict_results(&out);
    (out, r)
}

/// A run of a PTS spec ([`run_pts`]) and its report (`wkrun report out -o rep`, its page).
pub(crate) struct PtsRun {
    pub out: PathBuf,
    pub r: Value,
    pub page: String,
}

/// [`run_pts`] of `name` with `args` in `dir`, and its report.
pub(crate) fn run_and_report_in(dir: &Path, name: &str, args: &[&str]) -> PtsRun {
    let (out, r) = run_pts_in(dir, name, args);
    let (code, _, err) = code_out_err(&wkrun(dir, &["report", "out", "-o", "rep"]));
    assert_eq!(code, 0, "report {name}: {err}");
    let page = std::fs::read_to_string(dir.join("rep/index.html")).expect("index.html");
    PtsRun { out, r, page }
}

/// The trial runs a test here and one of `pts_report` both read, the same command each: made once.
pub(crate) static THROUGHPUT: Shared<PtsRun> = Shared::new(2);
pub(crate) static WSAT: Shared<PtsRun> = Shared::new(2);
pub(crate) static XSR: Shared<PtsRun> = Shared::new(2);

/// The throughput test's trial run (2 s rounds), shared.
pub(crate) fn throughput() -> Held<PtsRun> {
    THROUGHPUT.get(|d| run_and_report_in(d, "throughput", &["--set", "duration=2s"]))
}

/// The whole WSAT test, shared.
pub(crate) fn wsat() -> Held<PtsRun> {
    WSAT.get(|d| run_and_report_in(d, "wsat", &[]))
}

/// The XSR test at 5 minutes a group, shared.
pub(crate) fn xsr() -> Held<PtsRun> {
    XSR.get(|d| run_and_report_in(d, "xsr", &["--set", "duration=5min"]))
}

/// What specs/README.md's trial column says of a block of rounds and the run (`steady at round 5 (window 1
/// to 5), 47 phases run`): the round it was steady at, its window's first and last rounds, the phases run.
fn trial_words(r: &Value, b: &Value) -> Vec<(&'static str, String)> {
    vec![
        ("steady_round", u(b, "/steady_at_round").to_string()),
        ("window_first", u(b, "/window/first").to_string()),
        ("window_last", u(b, "/window/last").to_string()),
        ("phases", names(r).len().to_string()),
    ]
}

/// The names of the phases that ran, in order.
fn names(r: &Value) -> Vec<String> {
    r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| p["name"].as_str().expect("name").to_string())
        .collect()
}

/// Checks block `b`: each round's tracking value is its tracking phase's figure (`metric`: write_iops,
/// write_bw_bytes_per_s, iops from the CSV; write_lat_mean_ns from the phase's latency), the first steady
/// window by the oracle ends at `steady_last` (a 1-based round; `None`: the oracle finds no steady window,
/// and the block says it is not steady) and the window mean is the mean of its rounds. Returns the
/// tracking values.
fn check_block(
    out: &Path,
    r: &Value,
    b: &Value,
    metric: &str,
    steady_last: Option<u64>,
) -> Vec<f64> {
    let phases = by_index(r);
    let values: Vec<f64> = b["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|round| {
            let p = phases[&round["tracking_phase"].as_u64().expect("tracking_phase")];
            let want = match metric {
                "write_iops" => csv_rate(out, p, "write"),
                "write_bw_bytes_per_s" => {
                    csv_rate(out, p, "write")
                        * p["params"]["block_size_bytes"].as_f64().expect("bs")
                }
                "iops" => csv_rate(out, p, "read") + csv_rate(out, p, "write"),
                "write_lat_mean_ns" => p["write"]["latency_ns"]["mean"].as_f64().expect("mean"),
                _ => unreachable!("{metric}"),
            };
            let got = round["tracking_value"].as_f64().expect("tracking_value");
            assert!(
                (got - want).abs() <= 1e-9 * want,
                "{}: {got} vs {want}",
                p["name"]
            );
            got
        })
        .collect();
    let w = u(b, "/window/last") - u(b, "/window/first") + 1;
    let at = pts_steady_at(&values, w as usize, 0.2, 0.1);
    assert_eq!(at, steady_last.map(|s| s as usize - 1), "{values:?}");
    let last = steady_last.unwrap_or_else(|| u(b, "/window/last"));
    assert_eq!(u(b, "/window/last"), last);
    let x = &values[(last - w) as usize..last as usize];
    let mean = x.iter().sum::<f64>() / w as f64;
    let got = b["window_mean"].as_f64().expect("window_mean");
    assert!((got - mean).abs() <= 1e-9 * mean, "{got} vs {mean}");
    assert_eq!(b["steady"], steady_last.is_some());
    values
}

/// Throughput (section 8): two tests in one run, 128 KiB then 1024 KiB, each purge, 128 MiB of 128 KiB
/// preconditioning and rounds of 100 % read then 100 % write; both steady at round 5, rounds 6 to 25
/// skipped: 24 phases run of 104.
#[test]
fn the_pts_throughput_spec_runs_at_trial_scale() {
    let run = throughput();
    let (out, r) = (&run.value.out, &run.value.r);
    let n = names(r);
    assert_eq!(n.len(), 24);
    assert_eq!(
        &n[..4],
        [
            "purge-128k",
            "precondition-128k",
            "tp128k[round=1,read=100]",
            "tp128k[round=1,read=0]"
        ]
    );
    assert_eq!(
        &n[12..16],
        [
            "purge-1024k",
            "precondition-1024k",
            "tp1024k[round=1,read=100]",
            "tp1024k[round=1,read=0]"
        ]
    );
    let p = by_index(r);
    assert_eq!(p[&52]["name"], "purge-1024k");
    for i in [1, 53] {
        assert_eq!(p[&i]["write"]["bytes"], 2 * 64 * 1024 * 1024);
    }
    let blocks = r["round_blocks"].as_array().expect("round_blocks");
    assert_eq!(blocks.len(), 2);
    for (b, name, skip) in [
        (&blocks[0], "tp128k", (12, 51)),
        (&blocks[1], "tp1024k", (64, 103)),
    ] {
        assert_eq!(b["name"], name);
        assert_eq!(b["window"], json!({"first": 1, "last": 5}));
        assert_eq!(
            b["skipped"],
            json!({"first_round": 6, "last_round": 25, "first_phase": skip.0, "last_phase": skip.1})
        );
        check_block(out, r, b, "write_bw_bytes_per_s", Some(5));
        // Steady at round 5, the first the rule could judge: the count is the rule's floor.
        assert_eq!(
            (&b["earliest_steady_round"], &b["at_rule_floor"]),
            (&json!(5), &json!(true))
        );
    }
    // specs/README.md: "both blocks steady at round 5, 24 phases run".
    assert_eq!(blocks[0]["steady_at_round"], blocks[1]["steady_at_round"]);
    let mut words = trial_words(r, &blocks[0]);
    words.retain(|(k, _)| !k.starts_with("window"));
    hold("snia.throughput", &words);
}

/// Latency (section 9): 9 cells a round at QD1 (8 KiB, 4 KiB, 512 B × 100/65/0 % reads); the 4 KiB write
/// mean latency is steady at round 5 (window 1 to 5, the earliest the rule allows); 47 phases run of 227.
#[test]
fn the_pts_latency_spec_runs_at_trial_scale() {
    let (_d, out, r) = run_pts("latency", &["--set", "duration=2s"]);
    let n = names(&r);
    assert_eq!(n.len(), 2 + 5 * 9);
    assert_eq!(
        &n[..3],
        ["purge", "precondition", "latency[round=1,bs=8KiB,read=100]"]
    );
    assert_eq!(n[10], "latency[round=1,bs=512B,read=0]");
    assert_eq!(n[46], "latency[round=5,bs=512B,read=0]");
    let b = &r["round_blocks"][0];
    assert_eq!(b["window"], json!({"first": 1, "last": 5}));
    assert_eq!(
        b["skipped"],
        json!({"first_round": 6, "last_round": 25, "first_phase": 47, "last_phase": 226})
    );
    for round in b["rounds"].as_array().expect("rounds") {
        let i = u(round, "/index");
        assert_eq!(u(round, "/tracking_phase"), 2 + (i - 1) * 9 + 5);
    }
    check_block(&out, &r, b, "write_lat_mean_ns", Some(5));
    let p = by_index(&r);
    for i in 2..47u64 {
        assert_eq!(p[&i]["params"]["queue_depth"], 1);
    }
    hold("snia.latency", &trial_words(&r, b));
}

/// WSAT: the whole test (no --set) on the small drive: 4 times 64 MiB of 4 KiB random writes, 65,536 I/Os,
/// in 1-minute rows.
#[test]
fn the_pts_wsat_spec_runs_whole_on_a_small_drive() {
    let run = wsat();
    let (out, r) = (&run.value.out, &run.value.r);
    assert_eq!(names(r), ["purge", "wsat"]);
    let w = &r["phases"][1];
    assert_eq!((u(w, "/write/ops"), u(w, "/read/ops")), (65536, 0));
    assert_eq!(u(w, "/write/bytes"), 4 * 64 * 1024 * 1024);
    let rows = csv_rows(&out.join(w["series_csv"].as_str().expect("csv")));
    assert_eq!(f(&rows[0], "t_s"), 60.0);
    assert_eq!(rows.iter().map(|x| n(x, "write_ops")).sum::<u64>(), 65536);
    hold(
        "snia.wsat",
        &[("writes", thousands(u(w, "/write/ops") as f64))],
    );
}

/// XSR: SEQ 1024 KiB, RND 8 KiB, SEQ 1024 KiB writes, 5 min each at trial scale.
#[test]
fn the_pts_xsr_spec_runs_at_trial_scale() {
    let run = xsr();
    let r = &run.value.r;
    assert_eq!(names(r), ["purge", "seq-1024k-1", "rnd-8k", "seq-1024k-2"]);
    let ops: Vec<(u64, u64, u64)> = (1..4)
        .map(|i| {
            let p = &r["phases"][i];
            (
                u(p, "/write/ops"),
                u(p, "/read/ops"),
                u(p, "/params/block_size_bytes"),
            )
        })
        .collect();
    assert_eq!(
        ops,
        [(2653, 0, 1 << 20), (44609, 0, 8192), (2389, 0, 1 << 20)]
    );
    let writes = |i: usize| thousands(ops[i].0 as f64);
    hold(
        "snia.xsr",
        &[
            ("writes.1", writes(0)),
            ("writes.2", writes(1)),
            ("writes.3", writes(2)),
        ],
    );
}

/// HIR: saturation, then for each wait state a block of exactly 20 cycles (burst, idle) and a baseline:
/// 2 + 5 × (40 + 1) = 207 phases, every block running its 20 rounds (its window is all of them).
#[test]
fn the_pts_hir_spec_runs_at_trial_scale() {
    let (_d, out, r) = run_pts("hir", &["--set", "duration=2s"]);
    let n = names(&r);
    assert_eq!(n.len(), 207);
    assert_eq!(
        &n[..4],
        ["purge", "wsat", "burst-w5[round=1]", "idle-w5[round=1]"]
    );
    assert_eq!(n[42], "baseline-w5");
    assert_eq!(n[206], "baseline-w50");
    let blocks = r["round_blocks"].as_array().expect("round_blocks");
    let got: Vec<&str> = blocks
        .iter()
        .map(|b| b["name"].as_str().expect("name"))
        .collect();
    assert_eq!(got, ["w5", "w10", "w15", "w25", "w50"]);
    let cycles: Vec<u64> = blocks
        .iter()
        .map(|b| b["rounds"].as_array().expect("rounds").len() as u64)
        .collect();
    assert_eq!(cycles, [20; 5]);
    hold(
        "snia.hir",
        &[
            ("phases", n.len().to_string()),
            ("cycles", cycles[0].to_string()),
        ],
    );
    for b in blocks {
        assert_eq!(b["window"], json!({"first": 1, "last": 20}));
        assert_eq!(b["skipped"], Value::Null);
        // Each block's 20 bursts fall from about 2500 to 550 IOPS (the bursts after 2 s of saturation
        // still find the drive's spare area): no steady window, by the oracle or the block.
        check_block(&out, &r, b, "write_iops", None);
    }
    let p = by_index(&r);
    let idle = p[&3];
    assert_eq!(idle["params"]["read_percent"], 100);
    assert_eq!((u(idle, "/read/ops"), u(idle, "/write/ops")), (2, 0));
}

/// DIRTH: rounds of 7 queue depths (32 down to 1), the QD32 IOPS steady at round 6 (window 2 to 6), then
/// the three histogram runs: 2 + 6 × 7 + 3 = 47 phases of 180.
#[test]
fn the_pts_dirth_spec_runs_at_trial_scale() {
    let (_d, out, r) = run_pts("dirth", &["--set", "duration=2s"]);
    let n = names(&r);
    assert_eq!(n.len(), 47);
    assert_eq!(
        &n[2..9],
        [32, 16, 8, 6, 4, 2, 1].map(|q| format!("dirth[round=1,qd={q}]"))
    );
    assert_eq!(&n[44..], ["hist[qd=32]", "hist[qd=8]", "hist[qd=1]"]);
    let b = &r["round_blocks"][0];
    assert_eq!(b["window"], json!({"first": 2, "last": 6}));
    assert_eq!(
        b["skipped"],
        json!({"first_round": 7, "last_round": 25, "first_phase": 44, "last_phase": 176})
    );
    check_block(&out, &r, b, "iops", Some(6));
    hold("snia.dirth", &trial_words(&r, b));
    let hist = by_index(&r)[&177];
    assert_eq!(hist["name"], "hist[qd=32]");
    assert_eq!(
        histogram_count(hist, "read") + histogram_count(hist, "write"),
        u(hist, "/read/ops") + u(hist, "/write/ops")
    );
}
