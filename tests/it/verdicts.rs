//! Steady-state verdicts a reader can trust (issue 29 item 5): a rule whose judging never began says "not
//! judged" with its reason, not "not reached", in results, report and compare; a verdict reached at the
//! first window the rule could judge is flagged as the rule's floor, with that earliest time beside it. The
//! expected values are recomputed from the series CSV (the oracle of `rounds.rs` for the PTS rule).

use crate::common::*;
use crate::rounds::pts_steady_at;
use std::path::{Path, PathBuf};

/// A small simulated drive: its random reads run at one level, a flat series.
const SIM: &str = "sim:capacity=64MiB,op=7%,block=256KiB";

/// A 4 KiB random-read workload of `secs` seconds in 1 s intervals, with the SNIA rule and `extra` keys.
fn flat(dir: &Path, secs: u32, extra: &str) -> PathBuf {
    let body = format!(
        r#"
[[phase]]
name = "flat"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 4
read_percent = 100
duration = "{secs}s"
steady_state = {{ rule = "snia" }}
{extra}
"#
    );
    run_ok(dir, "verdicts", &body, Path::new(SIM))
}

/// The full rows' total IOPS of phase 0 (one round each).
fn rounds(out: &Path, r: &serde_json::Value) -> Vec<f64> {
    let csv = out.join(r["phases"][0]["series_csv"].as_str().expect("csv"));
    csv_rows(&csv)
        .iter()
        .filter(|row| n(row, "partial") == 0)
        .map(|row| f(row, "read_iops") + f(row, "write_iops"))
        .collect()
}

/// `wkrun report` of `out` into `dir/rep`: the page.
fn report_page(dir: &Path, out: &Path) -> String {
    let rep = dir.join("rep");
    let o = wkrun(
        dir,
        &[
            "report",
            out.to_str().expect("utf-8"),
            "-o",
            rep.to_str().expect("utf-8"),
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(rep.join("index.html")).expect("index.html")
}

/// A flat drive with `steady_after = { drop = 0.5 }`: no round falls below half the peak, so no round is
/// judged; the results, the report and compare say "not judged" and why, naming the peak (the highest round
/// of the CSV).
#[test]
fn a_flat_drive_is_not_judged_and_says_why() {
    let d = tempdir();
    let out = flat(d.path(), 8, "steady_after = { drop = 0.5 }");
    let (_, r) = strict_results(&out);
    let s = &r["phases"][0]["steady_state"];
    let v = rounds(&out, &r);
    assert_eq!(v.len(), 8);
    let peak = v.iter().copied().fold(f64::MIN, f64::max);
    assert!(v.iter().all(|x| *x >= 0.5 * peak), "{v:?}");
    let why = format!("no round fell below 0.5 × the peak {peak:.1} (steady_after.drop 0.5)");
    assert_eq!(s["not_judged"], why.as_str());
    assert_eq!(s["reached"], false);
    assert_eq!(s["at_rule_floor"], false);
    assert_eq!(s["earliest_at_s"], serde_json::Value::Null);
    assert_eq!(s["judged_from_reason"], format!("never: {why}"));
    let line = format!("not judged: {why}");
    let page = report_page(d.path(), &out);
    assert!(page.contains(&line), "report: {line}");
    assert!(!page.contains("not reached"));
    let (code, text, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "compare",
            out.to_str().expect("utf-8"),
            out.to_str().expect("utf-8"),
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        text.matches(&line).count(),
        2,
        "compare, both columns:\n{text}"
    );
}

/// A flat drive judged from the first round: the first window (rounds 1 to 5) is steady by the oracle, so
/// steady state is reached at 5 s, the earliest the rule allows, and flagged as the rule's floor.
#[test]
fn steady_at_the_first_window_is_flagged_as_the_rules_floor() {
    let d = tempdir();
    let out = flat(d.path(), 8, "");
    let (_, r) = strict_results(&out);
    let s = &r["phases"][0]["steady_state"];
    assert_eq!(pts_steady_at(&rounds(&out, &r), 5, 0.2, 0.1), Some(4));
    assert_eq!(
        (s["at_s"].as_f64(), s["earliest_at_s"].as_f64()),
        (Some(5.0), Some(5.0))
    );
    assert_eq!(s["at_rule_floor"], true);
    assert_eq!(s["not_judged"], serde_json::Value::Null);
    let page = report_page(d.path(), &out);
    assert!(
        page.contains("reached at 5.0 s, the earliest the rule allows (its first window)"),
        "report"
    );
}

/// A phase of 3 rounds against a 5-round window: judged from the first round but never a full window, so
/// "not judged" with the count.
#[test]
fn fewer_rounds_than_the_window_are_not_judged() {
    let d = tempdir();
    let out = flat(d.path(), 3, "");
    let (_, r) = strict_results(&out);
    let s = &r["phases"][0]["steady_state"];
    assert_eq!(
        s["not_judged"],
        "3 rounds of 1 s judged, fewer than the window of 5"
    );
    assert_eq!(s["earliest_at_s"].as_f64(), Some(5.0));
    assert_eq!(s["reached"], false);
}
