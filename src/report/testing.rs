//! Results made in memory for the report tests: a phase with no I/O, series rows of given IOPS and
//! latency, a results document, a run on a simulated target.

use super::runs::{PhaseGroup, RunData};
use crate::results::series_csv::{DirColumns, SeriesRow};
use crate::results::{DirStats, HostInfo, PhaseResult, Results, SpecRef, Status, WindowResult};
use crate::spec::{Label, PhaseKind};
use crate::stats::LatencySummary;
use crate::target::{TargetInfo, TargetKind};
use crate::vocab::{Direction, PerDir};

/// A 1-second workload phase named `name`, number `index`, with no I/O and no latency.
pub fn phase(name: &str, index: usize) -> PhaseResult {
    let none = || DirStats::new(0, 0, 1.0, None);
    PhaseResult {
        index,
        name: name.into(),
        kind: PhaseKind::Workload,
        labels: vec![],
        params: serde_json::from_value(
            serde_json::json!({"span_start_bytes": 0, "span_bytes": 1 << 20}),
        )
        .expect("phase params"),
        started_at: "2026-01-01T00:00:00.000Z".into(),
        measured_started_at: None,
        series_t0_unix_ns: None,
        duration_s: 1.0,
        completed: true,
        read: none(),
        write: none(),
        total: none(),
        series_csv: None,
        hist_log: None,
        trace: None,
        coverage: None,
        read_share: None,
        ops_by_size: vec![],
        steady_state: None,
        windows: vec![],
        aggregates: None,
        headline: vec![],
        derived: None,
        intervals: None,
        erase_method: None,
        erased_bytes: None,
        errors: None,
        verify: None,
        warnings: vec![],
        host: None,
        workers: Vec::new(),
        device: None,
        cpu: None,
        kernel: None,
        counters_csv: None,
        health: None,
        hosts: Vec::new(),
        latency_histograms: None,
        arrivals: None,
        latency_target: None,
        trim: None,
        sync: None,
        zones: None,
    }
}

/// `phase` with labels `(key, value)`.
pub fn labelled(name: &str, index: usize, labels: &[(&str, &str)]) -> PhaseResult {
    let mut p = phase(name, index);
    p.labels = labels
        .iter()
        .map(|(k, v)| Label {
            key: (*k).into(),
            value: (*v).into(),
            sweep: None,
        })
        .collect();
    p
}

/// Latency percentiles, ns; p50 and p90 as given, the rest from `p99` up.
pub fn latency(min: u64, p50: u64, p90: u64, p99: u64, p99_9: u64, p99_99: u64) -> LatencySummary {
    LatencySummary {
        min,
        mean: p50 as f64,
        stddev: 0.0,
        max: p99_99 * 2,
        p50,
        p90,
        p99,
        p99_9,
        p99_99,
    }
}

/// A full 1-second row ending at `t_s` with `read` and `write` IOPS (and as many ops); latency (mean, max)
/// in µs for a direction with I/O: `(10, 20)` for reads, `(30, 40)` for writes.
pub fn row(t_s: f64, read: u64, write: u64) -> SeriesRow {
    let lat = |ops: u64, v: f64| (ops > 0).then_some(v);
    SeriesRow {
        t_s,
        interval_s: 1.0,
        partial: 0,
        by_dir: PerDir::from_fn(|d| {
            let (ops, mean, max) = match d {
                Direction::Read => (read, 10.0, 20.0),
                Direction::Write => (write, 30.0, 40.0),
                Direction::Trim => (0, 0.0, 0.0),
            };
            DirColumns {
                ops,
                iops: ops as f64,
                bytes: ops * 4096,
                bw_bytes_per_s: (ops * 4096) as f64,
                lat_mean_us: lat(ops, mean),
                lat_max_us: lat(ops, max),
                lat_pct_us: [lat(ops, mean), lat(ops, max), lat(ops, max)],
            }
        }),
        errors: 0,
    }
}

/// A completed results document of spec `spec` on the target `path` of kind `kind` (1 MiB, 512 B logical
/// blocks), started and finished at `at`.
pub fn results(
    spec: &str,
    at: &str,
    path: &str,
    kind: TargetKind,
    phases: Vec<PhaseResult>,
) -> Results {
    Results {
        format: 1,
        wkrun_version: "0.1.0".into(),
        started_at: at.into(),
        finished_at: Some(at.into()),
        status: Status::Completed,
        error: None,
        signal: None,
        spec: SpecRef {
            name: spec.into(),
            version: "1".into(),
            sha256: "00".into(),
            path: "spec.toml".into(),
            overrides: vec![],
        },
        host: HostInfo {
            hostname: "h".into(),
            kernel: "k".into(),
            cpus: 1,
        },
        target: TargetInfo::new(path, kind, 1 << 20, 512, 4096),
        label: None,
        launch: None,
        cluster: None,
        source: None,
        round_blocks: Vec::new(),
        latency_searches: Vec::new(),
        prediction: None,
        health: None,
        planned_phases: None,
        from_phase: None,
        phases,
    }
}

/// A run labelled `label` of spec `spec` on the simulated drive `target` (its name in titles), with its
/// phases and their series rows.
pub fn run(
    label: &str,
    target: &str,
    phases: Vec<(PhaseResult, Option<Vec<SeriesRow>>)>,
) -> RunData {
    let (phases, series): (Vec<_>, Vec<_>) = phases.into_iter().unzip();
    RunData {
        file: format!("{label}/results.json").into(),
        label: label.into(),
        results: results(
            "spec",
            "2026-01-01T00:00:00.000Z",
            target,
            TargetKind::Sim,
            phases,
        ),
        series,
        device: Vec::new(),
    }
}

/// A run with one phase, `p` (number 1), and its series rows.
pub fn series_run(label: &str, target: &str, rows: Vec<SeriesRow>) -> RunData {
    run(label, target, vec![(phase("p", 1), Some(rows))])
}

/// The phase `name` in the runs and phase indices `members`.
pub fn group(name: &str, members: &[(usize, usize)]) -> PhaseGroup {
    PhaseGroup {
        name: name.into(),
        kind: PhaseKind::Workload,
        members: members.to_vec(),
    }
}

/// A complete window `spec` from `start_s` to `end_s` whose IOPS are one slice of mean `avg` between `min`
/// (also its p1) and `max` (also its p99).
pub fn window(
    spec: &str,
    (start_s, end_s): (f64, f64),
    avg: f64,
    min: f64,
    max: f64,
) -> WindowResult {
    WindowResult {
        spec: spec.into(),
        start_s,
        end_s,
        complete: true,
        iops: Some(crate::stats::window::SliceStats {
            count: 1,
            avg,
            min,
            max,
            stddev: 0.0,
            p1: min,
            p99: max,
            consistency: None,
        }),
        clipped: None,
    }
}

/// A host of a merged folder (`cluster.hosts[]`) that ran on `path`, with no rank.
pub fn cluster_host(path: &str) -> crate::results::ClusterHost {
    crate::results::ClusterHost {
        rank: None,
        rank_source: None,
        results: format!("{path}/results.json"),
        hostname: "h".into(),
        target_path: path.into(),
        capacity_bytes: 1 << 20,
        target_kind: None,
        status: Status::Completed,
        started_at: "2026-01-01T00:00:00.000Z".into(),
        start_offset_ns: None,
        clock: None,
    }
}

/// A block of rounds as results hold it: block "b", one cell `p` tracked by total IOPS, rounds 1 to 4 of
/// 80, 90, 100, 110, window rounds 1 to 4, not steady, no cells.
pub fn round_block() -> serde_json::Value {
    let rounds: Vec<serde_json::Value> = [80.0, 90.0, 100.0, 110.0]
        .iter()
        .enumerate()
        .map(|(i, v)| serde_json::json!({"index": i + 1, "tracking_value": v, "tracking_phase": i + 1}))
        .collect();
    serde_json::json!({
        "name": "b",
        "plan": {
            "name": "b", "first_phase": 1, "phases_per_round": 1, "max_rounds": 4, "cells": ["p"],
            "track": {"phase": "p", "cell": 0, "metric": "iops"},
            "rule": {"window": 4, "max_rounds": 4, "data_excursion": 0.2, "slope_excursion": 0.1}
        },
        "rounds": rounds,
        "window": {"first": 1, "last": 4},
        "window_mean": 95.0, "window_min": 80.0, "window_max": 110.0, "range": 30.0, "slope": 10.0,
        "data_excursion": 0.3157894736842105, "slope_excursion": 0.3157894736842105,
        "steady": false, "steady_at_round": null, "ended": "max_rounds", "skipped": null, "cells": []
    })
}
