//! The per-interval series CSV (cases C01, C03): rows per interval, exact sums per direction, the partial tail
//! interval, counts versus rates; and the series of fill and restore phases.

use crate::common::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

type Row = HashMap<String, String>;

/// How far past its time bound a phase may end: the I/O in flight at the bound completes after it (QD1 here),
/// which on a test machine busy with other tests' I/O has been seen to take over 20 ms. Far below the
/// differences that matter (a missing or full-length tail is off by 0.5 s), so a wrong tail still fails.
const TAIL_SLACK_S: f64 = 0.1;

/// A 16 MiB file filled first (so reads read written data), then `workload`.
fn run_workload(workload: &str) -> (tempfile::TempDir, PathBuf, serde_json::Value) {
    let (d, target) = sparse_target_dir(16 << 20);
    let body = format!(
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"1MiB\"\nqueue_depth = 2\n\n{workload}"
    );
    let out = run_ok(d.path(), "series", &body, &target);
    let (_, r) = strict_results(&out);
    (d, out, r)
}

/// Per direction, the CSV's op and byte counts add up exactly to the phase's totals in results.json; each
/// row's rates are its counts over its own length; `intervals` is the number of rows.
fn assert_sums_and_rates(out: &Path, r: &serde_json::Value, i: usize) -> Vec<Row> {
    let rows = phase_rows(out, r, i);
    let p = phase(r, i);
    assert_eq!(u(p, "/intervals"), rows.len() as u64, "intervals = rows");
    for dir in ["read", "write"] {
        let ops: u64 = rows.iter().map(|row| n(row, &format!("{dir}_ops"))).sum();
        let bytes: u64 = rows.iter().map(|row| n(row, &format!("{dir}_bytes"))).sum();
        assert_eq!(
            ops,
            u(p, &format!("/{dir}/ops")),
            "sum of {dir}_ops over rows = phase total"
        );
        assert_eq!(
            bytes,
            u(p, &format!("/{dir}/bytes")),
            "sum of {dir}_bytes over rows = phase total"
        );
        for (k, row) in rows.iter().enumerate() {
            let len = f(row, "interval_s");
            assert!(len > 0.0, "row {k}: interval_s {len}");
            assert_eq!(
                f(row, &format!("{dir}_iops")),
                n(row, &format!("{dir}_ops")) as f64 / len,
                "row {k}: {dir}_iops = {dir}_ops / interval_s"
            );
            assert_eq!(
                f(row, &format!("{dir}_bw_bytes_per_s")),
                n(row, &format!("{dir}_bytes")) as f64 / len,
                "row {k}: {dir}_bw_bytes_per_s = {dir}_bytes / interval_s"
            );
            let has = n(row, &format!("{dir}_ops")) > 0;
            for col in ["lat_mean_us", "lat_max_us"] {
                let v = &row[&format!("{dir}_{col}")];
                assert_eq!(
                    !v.is_empty(),
                    has,
                    "row {k}: {dir}_{col} = {v:?} with {} ops",
                    n(row, &format!("{dir}_ops"))
                );
            }
        }
    }
    rows
}

/// A seconds column in whole nanoseconds (the CSV holds ns / 1e9).
fn ns(row: &Row, col: &str) -> u64 {
    (f(row, col) * 1e9).round() as u64
}

/// Rows before the last: end at (k+1)·Δ exactly, length Δ, not partial.
fn assert_whole_rows(rows: &[Row], interval_ns: u64) {
    for (k, row) in rows[..rows.len() - 1].iter().enumerate() {
        let end = ((k as u64 + 1) * interval_ns) as f64 / 1e9;
        assert_eq!(f(row, "t_s"), end, "row {k} ends at (k+1)·Δ, no drift");
        assert_eq!(
            f(row, "interval_s"),
            interval_ns as f64 / 1e9,
            "row {k} is one interval long"
        );
        assert_eq!(n(row, "partial"), 0, "row {k} is whole");
    }
}

#[test]
fn c01_mixed_4s_has_four_rows_and_exact_sums() {
    let (_d, out, r) = run_workload(
        r#"[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
read_percent = 50
block_size = "4KiB"
queue_depth = 1
interval = "1s"
duration = "4s"
"#,
    );
    let rows = assert_sums_and_rates(&out, &r, 1);
    let header: Vec<String> = csv::Reader::from_path(out.join("01-mix.csv"))
        .expect("csv")
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(header[0], "t_s", "first column is t_s");
    for col in [
        "read_iops",
        "write_iops",
        "read_bw_bytes_per_s",
        "write_bw_bytes_per_s",
        "read_lat_mean_us",
        "read_lat_max_us",
        "write_lat_mean_us",
        "write_lat_max_us",
        "read_ops",
        "write_ops",
        "interval_s",
        "partial",
    ] {
        assert!(
            header.iter().any(|h| h == col),
            "column {col} in {header:?}"
        );
    }
    // A 4 s phase with 1 s intervals has 4 rows, then the drain (the I/O in flight at 4 s, when there was
    // one: at QD1, at most one).
    let (full, drain) = split_drain(&rows, 4_000_000_000, 1_000_000_000, 1);
    assert_whole_rows(full, 1_000_000_000);
    let last = drain.unwrap_or(&full[3]);
    let t = f(last, "t_s");
    assert!(
        (4.0..4.0 + TAIL_SLACK_S).contains(&t),
        "the last row ends at the phase end, at or just after 4 s, got {t}"
    );
    assert!(
        n(&rows[0], "read_ops") > 0 && n(&rows[0], "write_ops") > 0,
        "both directions in the first row: {:?}",
        rows[0]
    );
    let p = phase(&r, 1);
    assert!(u(p, "/read/ops") > 0 && u(p, "/write/ops") > 0);
}

#[test]
fn c01_tail_interval_of_3500ms_is_kept_and_partial() {
    let (_d, out, r) = run_workload(
        r#"[[phase]]
name = "mix"
kind = "workload"
read_percent = 50
queue_depth = 1
interval = "1s"
duration = "3500ms"
"#,
    );
    let rows = assert_sums_and_rates(&out, &r, 1);
    assert_eq!(
        rows.len(),
        4,
        "3.5 s with 1 s intervals: 3 whole rows and a partial one"
    );
    assert_whole_rows(&rows, 1_000_000_000);
    let last = &rows[3];
    assert_eq!(n(last, "partial"), 1, "the last row says it is partial");
    let len = f(last, "interval_s");
    assert!(
        (0.5..0.5 + TAIL_SLACK_S).contains(&len),
        "the last row is 500 ms long, got {len} s"
    );
    assert!(
        (3.5..3.5 + TAIL_SLACK_S).contains(&f(last, "t_s")),
        "{last:?}"
    );
}

#[test]
fn c01_one_second_run_with_1500ms_interval_has_one_partial_row() {
    let (_d, out, r) = run_workload(
        r#"[[phase]]
name = "mix"
kind = "workload"
read_percent = 50
queue_depth = 1
interval = "1500ms"
duration = "1s"
"#,
    );
    let rows = assert_sums_and_rates(&out, &r, 1);
    assert_eq!(
        rows.len(),
        1,
        "a 1 s run with a 1.5 s interval still has its one (partial) row"
    );
    let row = &rows[0];
    assert_eq!(n(row, "partial"), 1);
    let t = f(row, "t_s");
    assert!((1.0..1.0 + TAIL_SLACK_S).contains(&t), "{row:?}");
    assert_eq!(
        ns(row, "interval_s"),
        ns(row, "t_s"),
        "the row spans the whole phase"
    );
    assert!(n(row, "read_ops") > 0 && n(row, "write_ops") > 0, "{row:?}");
}

#[test]
fn c03_200ms_rows_carry_counts_and_rates() {
    let (_d, out, r) = run_workload(
        r#"[[phase]]
name = "rr"
kind = "workload"
pattern = "random"
read_percent = 100
block_size = "4KiB"
queue_depth = 1
interval = "200ms"
duration = "2s"
"#,
    );
    let rows = assert_sums_and_rates(&out, &r, 1);
    // 2 s in 200 ms intervals, then the drain (the read in flight at 2 s, if any).
    let (full, drain) = split_drain(&rows, 2_000_000_000, 200_000_000, 1);
    assert_whole_rows(full, 200_000_000);
    let last = drain.unwrap_or(&full[9]);
    assert!(
        (2.0..2.0 + TAIL_SLACK_S).contains(&f(last, "t_s")),
        "{last:?}"
    );
    for row in &rows {
        assert_eq!(n(row, "write_ops"), 0, "a read-only phase");
        assert_eq!(
            f(row, "read_iops"),
            n(row, "read_ops") as f64 / f(row, "interval_s"),
            "rate = count / interval_s"
        );
    }
    // Rows 1..5 cover exactly the first second [0, 1 s): their counts add up to that second's total, and
    // their rates are five times larger than counts (per second over 0.2 s), so summing rates is wrong.
    assert_eq!(f(&rows[4], "t_s"), 1.0);
    let first_second: u64 = rows[..5].iter().map(|row| n(row, "read_ops")).sum();
    let second_second: u64 = rows[5..].iter().map(|row| n(row, "read_ops")).sum(); // with the drain
    assert!(first_second > 0);
    let rate_sum: f64 = rows[..5].iter().map(|row| f(row, "read_iops")).sum();
    assert!(
        (rate_sum - 5.0 * first_second as f64).abs() < 1e-6 * rate_sum,
        "rates {rate_sum} vs counts {first_second}"
    );
    let mean_rate_over_first_second: f64 = rows[..5]
        .iter()
        .map(|row| f(row, "read_iops") * f(row, "interval_s"))
        .sum::<f64>()
        / 1.0;
    assert!(
        (mean_rate_over_first_second - first_second as f64).abs() < 1e-6,
        "Σ rate·interval_s over the first second = its count"
    );
    assert_eq!(
        first_second + second_second,
        u(phase(&r, 1), "/read/ops"),
        "sum over all rows = phase total"
    );
}

#[test]
fn fill_and_restore_series_add_up_to_the_phase_totals() {
    let (d, target) = sparse_target_dir(32 << 20);
    let out = run_ok(
        d.path(),
        "series",
        r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
queue_depth = 4
interval = "50ms"

[[phase]]
name = "restore"
kind = "restore-image"
image = "synthetic"
image_size = "8MiB"
block_size = "128KiB"
queue_depth = 3
interval = "50ms"
"#,
        &target,
    );
    let (typed, r) = strict_results(&out);
    assert_eq!(typed.phases[0].series_csv.as_deref(), Some("00-fill.csv"));
    assert_eq!(
        typed.phases[1].series_csv.as_deref(),
        Some("01-restore.csv")
    );
    for (i, bytes, ops) in [(0, 32u64 << 20, 512u64), (1, 8 << 20, 64)] {
        let rows = assert_sums_and_rates(&out, &r, i);
        assert_eq!(u(phase(&r, i), "/write/bytes"), bytes, "phase {i}");
        assert_eq!(u(phase(&r, i), "/write/ops"), ops, "phase {i}");
        assert!(
            rows.iter().all(|row| n(row, "read_ops") == 0),
            "phase {i} only writes"
        );
        assert_whole_rows(&rows, 50_000_000);
        let last = rows.last().expect("at least one row");
        let dur = phase(&r, i)["duration_s"].as_f64().expect("duration_s");
        assert_eq!(
            f(last, "t_s"),
            dur,
            "phase {i}: the last row ends at the phase's end"
        );
    }
}

/// The window statistics and the worst interval of phase 1 are those of its full rows, never the drain.
fn assert_judged_on_full_rows(p: &serde_json::Value, full: &[Row], what: &str) {
    let iops: Vec<f64> = full
        .iter()
        .map(|r| f(r, "read_iops") + f(r, "write_iops"))
        .collect();
    let min = iops.iter().copied().fold(f64::INFINITY, f64::min);
    let w = &p["windows"][0]["iops"];
    assert_eq!(u(w, "/count"), full.len() as u64, "{what}: window rows");
    assert_eq!(w["min"].as_f64(), Some(min), "{what}: window min");
    assert_eq!(
        p["derived"]["worst"]["iops"].as_f64(),
        Some(min),
        "{what}: worst"
    );
}

/// Issue 25: the I/Os in flight at a time bound complete in a drain row of their own, partial, so that every
/// full row is exactly one interval on every engine, and the window minimum and the worst interval are
/// full rows' (before, the last row stretched to 1.05-1.5 s at QD32 and became the minimum).
#[test]
fn the_drain_after_a_time_bound_is_a_partial_row_of_its_own_on_every_engine() {
    for engine in ["psync", "libaio", "io_uring"] {
        if let Some(why) = crate::engines::engine_unavailable(engine) {
            skip(&format!("the_drain_after_a_time_bound [{engine}]"), &why);
            continue;
        }
        let (_d, out, r) = run_workload(&format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"{engine}\"\npattern = \"random\"\n\
             read_percent = 50\nblock_size = \"4KiB\"\nqueue_depth = 32\ninterval = \"250ms\"\n\
             duration = \"2s\"\nwindows = [\"0..\"]\nheadline = [\"worst\"]\n"
        ));
        let rows = assert_sums_and_rates(&out, &r, 1);
        let (full, drain) = split_drain(&rows, 2_000_000_000, 250_000_000, 32);
        assert_judged_on_full_rows(phase(&r, 1), full, engine);
        if let Some(d) = drain {
            assert!(f(d, "t_s") > 2.0, "{engine}: {d:?}");
        }
    }
}

/// The same on the simulated drive, where the drain is exact: the 32 writes in flight at 30 s complete in
/// 0.2050 s of virtual time, in a row of their own (158 IOPS, where full seconds hold 620 and more); 30 full
/// rows before it.
#[test]
fn the_drain_on_the_simulated_drive_holds_the_whole_queue() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 0\n\
                block_size = \"4KiB\"\nqueue_depth = 32\nduration = \"30s\"\nwindows = [\"0..\"]\n\
                headline = [\"worst\"]\n";
    let out = run_ok(
        d.path(),
        "drain",
        body,
        Path::new("sim:capacity=64MiB,op=7%,block=256KiB,jitter=0%"),
    );
    let (_, r) = strict_results(&out);
    let rows = phase_rows(&out, &r, 0);
    let (full, drain) = split_drain(&rows, 30_000_000_000, 1_000_000_000, 32);
    let drain = drain.expect("the queue was full at the bound");
    assert_eq!(n(drain, "write_ops"), 32, "every write in flight at 30 s");
    assert_eq!(
        (f(drain, "t_s"), f(drain, "interval_s")),
        (30.204967448, 0.204967448)
    );
    let total: u64 = rows.iter().map(|r| n(r, "write_ops")).sum();
    assert_eq!(
        total,
        u(phase(&r, 0), "/write/ops"),
        "the totals count the drain"
    );
    assert_judged_on_full_rows(phase(&r, 0), full, "sim");
}
