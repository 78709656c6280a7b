//! `wkrun compare` (issue 5, item 3): runs side by side, matched by phase name, with the relative change
//! against the first run. Exact numbers come from hand-made results files written through the
//! `wkrun::results` types; real runs on a small file target check that real results.json files compare.

use crate::common::*;
use std::path::{Path, PathBuf};
use wkrun::results::{DirStats, HostInfo, PhaseResult, Results, SpecRef, Status, SteadyState};
use wkrun::spec::PhaseKind;
use wkrun::stats::LatencySummary;
use wkrun::stats::steady::{Rule, SniaRule, Verdict};
use wkrun::target::{TargetInfo, TargetKind};

// ---------------------------------------------------------------------------------------------------------
// Hand-made results.

fn lat(mean_ns: f64, p99: u64, p99_9: u64, max: u64) -> LatencySummary {
    LatencySummary {
        // Not above the percentiles or the mean: a summary `wkrun validate` finds plausible.
        min: 1000.min(p99).min(mean_ns as u64),
        mean: mean_ns,
        stddev: 0.0,
        max,
        p50: p99,
        p90: p99,
        p99,
        p99_9,
        p99_99: max,
    }
}

/// A 2-second 4 KiB workload with `reads` and `writes` I/Os (IOPS are half the counts).
fn workload(
    index: usize,
    name: &str,
    reads: u64,
    writes: u64,
    rl: Option<LatencySummary>,
    wl: Option<LatencySummary>,
) -> PhaseResult {
    let d = 2.0;
    let total_lat = rl.clone().or(wl.clone());
    PhaseResult {
        index,
        name: name.into(),
        kind: PhaseKind::Workload,
        labels: vec![],
        params: serde_json::from_value(serde_json::json!({
            "span_start_bytes": 0, "span_bytes": 1 << 30, "block_size_bytes": 4096
        }))
        .expect("params"),
        started_at: "2026-03-01T00:00:00.000Z".into(),
        measured_started_at: None,
        series_t0_unix_ns: None,
        duration_s: d,
        completed: true,
        read: DirStats::new(reads, reads * 4096, d, rl),
        write: DirStats::new(writes, writes * 4096, d, wl),
        total: DirStats::new(reads + writes, (reads + writes) * 4096, d, total_lat),
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

fn steady(at_s: Option<f64>) -> SteadyState {
    SteadyState {
        criterion: Rule::Snia(SniaRule::default()),
        reached: at_s.is_some(),
        at_s,
        left_at_s: None,
        window_s: 5.0,
        ended_phase: false,
        verdict: Verdict {
            reached: at_s.is_some(),
            at_round: at_s.map(|a| a as usize - 1),
            at_round_number: at_s.map(|a| a as usize),
            window_first_round: 0,
            window_rounds: 5,
            window_mean: 100.0,
            window_min: 95.0,
            window_max: 105.0,
            slope: 0.0,
            data_excursion: Some(0.1),
            slope_excursion: Some(0.0),
            max_deviation: 5.0,
            rounds_seen: 20,
            gave_up: false,
            left: None,
            judged_from_round: Some(0),
            start: None,
        },
        judged_from_s: Some(0.0),
        judged_from_reason: "from the first round (no steady_after)".into(),
        window_start_s: at_s.map(|a| a - 5.0),
        window_end_s: at_s,
        earliest_at_s: Some(5.0),
        at_rule_floor: at_s == Some(5.0),
        not_judged: None,
    }
}

/// A run of `spec` on `target` started at `started` (each phase then, as none starts before its run).
fn results(spec: &str, target: &str, started: &str, mut phases: Vec<PhaseResult>) -> Results {
    for p in &mut phases {
        p.started_at = started.into();
    }
    Results {
        format: 1,
        wkrun_version: env!("CARGO_PKG_VERSION").into(),
        started_at: started.into(),
        finished_at: Some(started.into()),
        status: Status::Completed,
        error: None,
        signal: None,
        spec: SpecRef {
            name: spec.into(),
            version: "1".into(),
            sha256: "0".repeat(64),
            path: "spec.toml".into(),
            overrides: vec![],
        },
        host: HostInfo {
            hostname: "test".into(),
            kernel: "6.1.0".into(),
            cpus: 4,
        },
        target: TargetInfo {
            model: Some("Drive".into()),
            discard_max_bytes: Some(0),
            ..TargetInfo::new(target, TargetKind::Block, 1 << 30, 512, 4096)
        },
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

/// Writes `r` as `dir/<name>/results.json`, checks it is a valid results document and returns its path.
fn write_results(dir: &Path, name: &str, r: &Results) -> PathBuf {
    let sub = dir.join(name);
    std::fs::create_dir_all(&sub).expect("mkdir");
    let text = serde_json::to_string_pretty(r).expect("serialize");
    std::fs::write(sub.join("results.json"), text).expect("write results");
    strict_results(&sub);
    sub.join("results.json")
}

/// Seed 004's shape: a fresh, a simulated-used and a used drive; the used one lacks phase "seq-read"
/// and has "trim" the others lack.
fn three_runs(dir: &Path) -> Vec<PathBuf> {
    let fresh = results(
        "fresh",
        "/dev/sda",
        "2026-03-01T00:00:00.000Z",
        vec![
            {
                let mut p = workload(
                    0,
                    "rand-write",
                    0,
                    20_000,
                    None,
                    Some(lat(100_000.0, 400_000, 800_000, 2_000_000)),
                );
                p.steady_state = Some(steady(Some(12.0)));
                p
            },
            workload(
                1,
                "mix",
                3000,
                1000,
                Some(lat(50_000.0, 90_000, 120_000, 150_000)),
                Some(lat(20_000.0, 30_000, 40_000, 50_000)),
            ),
            workload(
                2,
                "seq-read",
                8000,
                0,
                Some(lat(10_000.0, 20_000, 30_000, 40_000)),
                None,
            ),
        ],
    );
    let simulated = results(
        "simulated-used",
        "/dev/sda",
        "2026-03-02T00:00:00.000Z",
        vec![
            {
                let mut p = workload(
                    0,
                    "rand-write",
                    0,
                    15_000,
                    None,
                    Some(lat(133_000.0, 500_000, 1_000_000, 3_000_000)),
                );
                p.steady_state = Some(steady(None));
                p
            },
            workload(
                1,
                "mix",
                3300,
                900,
                Some(lat(55_000.0, 99_000, 120_000, 165_000)),
                Some(lat(25_000.0, 30_000, 40_000, 40_000)),
            ),
            workload(
                2,
                "seq-read",
                6000,
                0,
                Some(lat(12_500.0, 20_000, 30_000, 40_000)),
                None,
            ),
        ],
    );
    let used = results(
        "used",
        "/dev/sdb",
        "2026-03-03T00:00:00.000Z",
        vec![
            workload(
                0,
                "mix",
                1500,
                500,
                Some(lat(100_000.0, 180_000, 240_000, 300_000)),
                Some(lat(40_000.0, 60_000, 80_000, 100_000)),
            ),
            workload(
                1,
                "rand-write",
                0,
                10_000,
                None,
                Some(lat(200_000.0, 800_000, 1_600_000, 4_000_000)),
            ),
            workload(
                2,
                "trim",
                0,
                100,
                None,
                Some(lat(1_000_000.0, 1_000_000, 1_000_000, 1_000_000)),
            ),
        ],
    );
    vec![
        write_results(dir, "fresh", &fresh),
        write_results(dir, "simulated", &simulated),
        write_results(dir, "used", &used),
    ]
}

fn compare_out(dir: &Path, files: &[PathBuf], extra: &[&str]) -> String {
    let mut args = vec!["compare"];
    args.extend(files.iter().map(|f| f.to_str().expect("utf-8 path")));
    args.extend_from_slice(extra);
    let (code, out, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(code, 0, "wkrun compare failed: {err}");
    out
}

/// The CSV output as records (header first).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("csv record").iter().map(String::from).collect())
        .collect()
}

fn record<'a>(recs: &'a [Vec<String>], phase: &str, metric: &str) -> &'a [String] {
    recs.iter()
        .find(|r| r[0] == phase && r[1] == metric)
        .unwrap_or_else(|| panic!("no row {phase} / {metric}"))
}

#[test]
fn exact_values_and_changes_in_csv() {
    let d = tempdir();
    let files = three_runs(d.path());
    let recs = csv_records(&compare_out(d.path(), &files, &["--format", "csv"]));
    // Each run is in its own folder: columns are named by the folders.
    let fresh = "fresh";
    let sim = "simulated";
    let used = "used";
    assert_eq!(
        recs[0],
        [
            "phase".to_string(),
            "metric".into(),
            fresh.into(),
            sim.into(),
            format!("{sim} change (%)"),
            used.into(),
            format!("{used} change (%)"),
        ]
    );
    assert!(
        recs.iter().all(|r| r.len() == 7),
        "every record has 7 fields"
    );

    // Phases in the first run's order, then "trim", which only the third run has.
    let mut phases: Vec<&str> = recs[1..].iter().map(|r| r[0].as_str()).collect();
    phases.dedup();
    assert_eq!(
        phases,
        ["rand-write", "mix", "seq-read", "trim", "(all phases)"]
    );
    // The composite (seed 004's overall score): per phase shared with the first run, the ratio of its lead
    // figure (total IOPS: no headline here) to the first run's, geometric mean. Simulated-used: 7500/10000,
    // 2100/2000, 3000/4000; used: 5000/10000, 1000/2000 (no seq-read).
    let sim_score = (0.75f64 * 1.05 * 0.75).cbrt();
    let comp = record(
        &recs,
        "(all phases)",
        "composite (geometric mean of ratios to the first run)",
    );
    assert_eq!(
        comp[2..],
        [
            "1.000".to_string(),
            format!("{sim_score:.3}"),
            format!("{:.1}", (sim_score - 1.0) * 100.0),
            "0.500".into(),
            "-50.0".into()
        ]
    );

    let row = |p: &str, m: &str| record(&recs, p, m)[2..].to_vec();
    // IOPS over 2 s: 10000 → 7500 (-25 %) → 5000 (-50 %).
    assert_eq!(
        row("rand-write", "IOPS, phase mean"),
        ["10000.0", "7500.0", "-25.0", "5000.0", "-50.0"]
    );
    assert_eq!(
        row("rand-write", "bandwidth, phase mean (MB/s)"),
        ["40.96", "30.72", "-25.0", "20.48", "-50.0"]
    );
    // Latency: a rise shows as a positive change.
    assert_eq!(
        row("rand-write", "write latency, phase mean (µs)"),
        ["100.00", "133.00", "33.0", "200.00", "100.0"]
    );
    assert_eq!(
        row("rand-write", "write latency p99.9 (µs)"),
        ["800.00", "1000.00", "25.0", "1600.00", "100.0"]
    );
    assert_eq!(
        row("rand-write", "write latency max (µs)"),
        ["2000.00", "3000.00", "50.0", "4000.00", "100.0"]
    );
    // No reads in any run: no read latency rows (issue 24 item 11), no read IOPS row; and no write IOPS
    // row, which would restate its IOPS (issue 24, round 2).
    assert!(
        !recs
            .iter()
            .any(|r| r[0] == "rand-write" && r[1].starts_with("read ")),
        "{recs:?}"
    );
    assert!(
        !recs
            .iter()
            .any(|r| r[0] == "rand-write" && r[1].starts_with("write IOPS")),
        "{recs:?}"
    );
    // The steady-state verdict, where a run has one.
    assert_eq!(
        row("rand-write", "steady state"),
        ["reached at 12.0 s", "not reached", "", "-", ""]
    );
    assert!(
        recs.iter()
            .all(|r| r[0] == "rand-write" || r[1] != "steady state")
    );

    // Mixed: 2000 IOPS → 2100 (+5 %) → 1000 (-50 %); per direction.
    assert_eq!(
        row("mix", "IOPS, phase mean"),
        ["2000.0", "2100.0", "5.0", "1000.0", "-50.0"]
    );
    assert_eq!(
        row("mix", "read IOPS, phase mean"),
        ["1500.0", "1650.0", "10.0", "750.0", "-50.0"]
    );
    assert_eq!(
        row("mix", "write IOPS, phase mean"),
        ["500.0", "450.0", "-10.0", "250.0", "-50.0"]
    );
    assert_eq!(
        row("mix", "read latency p99 (µs)"),
        ["90.00", "99.00", "10.0", "180.00", "100.0"]
    );
    assert_eq!(
        row("mix", "read latency p99.9 (µs)"),
        ["120.00", "120.00", "0.0", "240.00", "100.0"]
    );
    assert_eq!(
        row("mix", "write latency max (µs)"),
        ["50.00", "40.00", "-20.0", "100.00", "100.0"]
    );

    // A phase missing from a run is shown, as missing.
    assert_eq!(
        row("seq-read", "IOPS, phase mean"),
        ["4000.0", "3000.0", "-25.0", "missing", ""]
    );
    assert_eq!(
        row("seq-read", "read latency, phase mean (µs)"),
        ["10.00", "12.50", "25.0", "missing", ""]
    );
    assert_eq!(
        row("trim", "IOPS, phase mean"),
        ["missing", "missing", "", "50.0", ""]
    );
    assert_eq!(
        recs.iter().filter(|r| r[0] == "trim").count(),
        7,
        "every metric row of a phase only the last run has, but read IOPS and latency (it writes only) and \
         write IOPS (its IOPS)"
    );
}

#[test]
fn table_and_markdown_show_the_same_numbers() {
    let d = tempdir();
    let files = three_runs(d.path());
    let table = compare_out(d.path(), &files, &[]);
    assert_eq!(
        table,
        compare_out(d.path(), &files, &["--format", "table"]),
        "table is the default"
    );
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("phase"), "{table}");
    assert!(lines[0].contains("fresh") && lines[0].contains("simulated"));
    // Aligned: every row as wide as the header (the last column is right-aligned).
    let width = lines[0].chars().count();
    for l in lines.iter().skip(1).filter(|l| !l.is_empty()) {
        assert_eq!(l.chars().count(), width, "misaligned line {l:?}\n{table}");
    }
    let iops = lines
        .iter()
        .find(|l| l.starts_with("rand-write") && l.contains("IOPS, phase mean"))
        .expect("rand-write IOPS line");
    let cells: Vec<&str> = iops
        .split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(
        cells,
        [
            "rand-write",
            "IOPS, phase mean",
            "10000.0",
            "7500.0 (-25.0 %)",
            "5000.0 (-50.0 %)"
        ]
    );
    assert!(
        lines.iter().any(|l| l.starts_with("seq-read")
            && l.contains("IOPS, phase mean")
            && l.trim_end().ends_with("missing")),
        "{table}"
    );

    let md = compare_out(d.path(), &files, &["--format", "markdown"]);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines[0], "| phase | metric | fresh | simulated | used |");
    assert_eq!(lines[1], "|---|---|---:|---:|---:|");
    for want in [
        "| rand-write | IOPS, phase mean | 10000.0 | 7500.0 (-25.0 %) | 5000.0 (-50.0 %) |",
        "| rand-write | write latency, phase mean (µs) | 100.00 | 133.00 (+33.0 %) | 200.00 (+100.0 %) |",
        "| rand-write | steady state | reached at 12.0 s | not reached | - |",
        "| seq-read | IOPS, phase mean | 4000.0 | 3000.0 (-25.0 %) | missing |",
        "| trim | IOPS, phase mean | missing | missing | 50.0 |",
    ] {
        assert!(lines.contains(&want), "no line {want:?} in\n{md}");
    }
}

#[test]
fn same_looking_runs_are_named_by_file() {
    let d = tempdir();
    let r = results(
        "same",
        "/dev/sda",
        "2026-03-01T00:00:00.000Z",
        vec![workload(0, "w", 0, 2, None, Some(lat(1.0, 1, 1, 1)))],
    );
    let a = write_results(d.path(), "a", &r);
    let b = write_results(d.path(), "b", &r);
    let recs = csv_records(&compare_out(
        d.path(),
        &[a.clone(), b.clone()],
        &["--format", "csv"],
    ));
    // Runs in different folders are named by them.
    assert_eq!((recs[0][2].as_str(), recs[0][3].as_str()), ("a", "b"));
    // The same file twice: no folder tells them apart, and their spec, target and start are the same,
    // so the file as given, numbered.
    let recs = csv_records(&compare_out(
        d.path(),
        &[a.clone(), a.clone()],
        &["--format", "csv"],
    ));
    assert_eq!(recs[0][2], format!("{} #1", a.display()));
    assert_eq!(recs[0][3], format!("{} #2", a.display()));
    // One run alone is a valid comparison: no change columns.
    let recs = csv_records(&compare_out(d.path(), &[a], &["--format", "csv"]));
    assert_eq!(
        recs[0],
        ["phase", "metric", "same /dev/sda 2026-03-01T00:00:00.000Z"]
    );
}

#[test]
fn bad_files_exit_2_naming_the_file() {
    let d = tempdir();
    let good = three_runs(d.path()).remove(0);
    let good = good.to_str().expect("utf-8");
    let spec = write_file(d.path(), "spec.toml", &spec_text("x", ""));
    let other = write_file(d.path(), "other.json", r#"{"name": "not results"}"#);
    let future = write_file(
        d.path(),
        "future.json",
        &std::fs::read_to_string(good)
            .expect("read")
            .replacen("\"format\": 1", "\"format\": 2", 1),
    );
    let broken = write_file(
        d.path(),
        "broken.json",
        r#"{"format": 1, "status": "completed"}"#,
    );
    for (file, why) in [
        (d.path().join("absent.json"), "cannot read"),
        (spec, "not JSON"),
        (other, "no integer `format`"),
        (future, "results format 2"),
        (
            broken,
            "does not match the results schema (6 violations):\n  (the document): \"wkrun_version\" is a required property",
        ),
    ] {
        let f = file.to_str().expect("utf-8");
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", good, f]));
        assert_eq!(code, 2, "{f}: {err}");
        assert!(out.is_empty(), "nothing on stdout: {out}");
        assert!(err.contains(f) && err.contains(why), "{f}: {err}");
    }
    // No file, or an unknown format: clap's usage error, also exit 2.
    assert_eq!(code_out_err(&wkrun(d.path(), &["compare"])).0, 2);
    let (code, _, _) = code_out_err(&wkrun(d.path(), &["compare", good, "--format", "html"]));
    assert_eq!(code, 2);
}

// ---------------------------------------------------------------------------------------------------------
// Real runs.

const BASE: &str = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
queue_depth = 2

[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
read_percent = 50
block_size = "4KiB"
queue_depth = 1
duration = "300ms"
seed = 1
"#;

const EXTRA: &str = r#"
[[phase]]
name = "reads"
kind = "workload"
pattern = "random"
read_percent = 100
block_size = "4KiB"
queue_depth = 1
duration = "300ms"
"#;

#[test]
fn two_real_runs() {
    let (d, target) = sparse_target_dir(8 << 20);
    let mut outs = Vec::new();
    for (sub, body) in [("a", BASE.to_string()), ("b", format!("{BASE}{EXTRA}"))] {
        let dir = d.path().join(sub);
        std::fs::create_dir(&dir).expect("mkdir");
        outs.push(run_ok(&dir, "cmp", &body, &target));
    }
    let typed: Vec<Results> = outs.iter().map(|o| strict_results(o).0).collect();
    let files: Vec<PathBuf> = outs.iter().map(|o| o.join("results.json")).collect();
    let recs = csv_records(&compare_out(d.path(), &files, &["--format", "csv"]));

    // One label (the target), folders of one name (`a/out`, `b/out`): each headed by its folder as given.
    let header = |i: usize| {
        let label = typed[i].label.as_deref().expect("a label");
        format!("{label} ({})", outs[i].display())
    };
    assert_eq!(recs[0][2], header(0));
    assert_eq!(recs[0][3], header(1));
    let mut phases: Vec<&str> = recs[1..].iter().map(|r| r[0].as_str()).collect();
    phases.dedup();
    assert_eq!(phases, ["(runs)", "fill", "mix", "reads", "(all phases)"]);
    // The second spec file has an extra phase: the spec row says the files differ.
    let spec_cell = |r: &Results| format!("cmp 1 sha256:{}", &r.spec.sha256[..12]);
    assert_eq!(
        record(&recs, "(runs)", "spec")[2..4],
        [spec_cell(&typed[0]), spec_cell(&typed[1])]
    );
    assert_ne!(typed[0].spec.sha256, typed[1].spec.sha256);
    // A workload's default headline ("mean") leads it: the results' own figures.
    let mix_rows: Vec<&Vec<String>> = recs.iter().filter(|r| r[0] == "mix").collect();
    let lead = &typed[0]
        .phases
        .iter()
        .find(|p| p.name == "mix")
        .expect("mix")
        .headline;
    assert_eq!(lead[0].key, "mean iops");
    assert_eq!(mix_rows[0][1], "IOPS, phase mean");
    assert_eq!(
        mix_rows[0][2],
        format!("{:.1}", lead[0].value.expect("a value"))
    );

    // The numbers are the results' own, and the change is computed from them.
    let mix = |r: &Results| {
        r.phases
            .iter()
            .find(|p| p.name == "mix")
            .expect("mix")
            .clone()
    };
    let (a, b) = (mix(&typed[0]), mix(&typed[1]));
    let (ia, ib) = (a.read.iops + a.write.iops, b.read.iops + b.write.iops);
    // The headline's phase mean is the whole-phase IOPS: one row says it (issue 24, round 2).
    assert_eq!(
        recs.iter()
            .filter(|r| r[0] == "mix" && r[1] == "IOPS, phase mean")
            .count(),
        1
    );
    let row = record(&recs, "mix", "IOPS, phase mean");
    assert_eq!(row[2], format!("{ia:.1}"));
    assert_eq!(row[3], format!("{ib:.1}"));
    let change: f64 = row[4].parse().expect("a plain number of percent");
    assert!(
        (change - (ib - ia) / ia * 100.0).abs() <= 0.05 + 1e-9,
        "{row:?}"
    );
    let rl = |p: &PhaseResult| p.read.latency_ns.as_ref().expect("reads").p99 as f64 / 1000.0;
    assert_eq!(
        record(&recs, "mix", "read latency p99 (µs)")[2],
        format!("{:.2}", rl(&a))
    );
    // The fill writes only: no read latency rows.
    assert!(
        !recs
            .iter()
            .any(|r| r[0] == "fill" && r[1].starts_with("read latency"))
    );
    // The extra phase only the second run has.
    let reads = record(&recs, "reads", "IOPS, phase mean");
    assert_eq!(reads[2], "missing");
    assert_ne!(reads[3], "missing");
    assert_eq!(reads[4], "");

    let table = compare_out(d.path(), &files, &[]);
    assert!(table.contains("missing"), "{table}");
}

/// A results folder stands for its results.json, in compare and in report.
#[test]
fn a_results_folder_stands_for_its_results_json() {
    let dir = tempdir();
    let files = three_runs(dir.path());
    let folders: Vec<PathBuf> = files
        .iter()
        .map(|f| f.parent().expect("results folder").to_path_buf())
        .collect();
    for format in ["table", "csv"] {
        assert_eq!(
            compare_out(dir.path(), &folders, &["--format", format]),
            compare_out(dir.path(), &files, &["--format", format]),
            "compare --format {format}: folders and their results.json differ"
        );
    }
}

/// `compare` on a terminal that reports 0 columns (some ptys do): the width is unknown, not 79; the table
/// is fitted to `$COLUMNS` when set, else to 100 cells, exactly as `render_table` fits it to that width
/// (issue 24, round 2).
#[test]
fn a_terminal_of_0_columns_is_fitted_to_columns_or_100() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        return skip(
            "compare::a_terminal_of_0_columns_is_fitted_to_columns_or_100",
            "script (util-linux) not installed",
        );
    }
    let d = tempdir();
    let files = three_runs(d.path());
    let names: Vec<&str> = files.iter().map(|f| f.to_str().expect("path")).collect();
    let runs: Vec<wkrun::report::compare::Run> = files
        .iter()
        .map(|f| wkrun::report::compare::Run {
            file: f.clone(),
            results: wkrun::report::read_results(f).expect("results"),
        })
        .collect();
    let c = wkrun::report::compare::compare(&runs);
    // The two widths fit this table differently, so the output tells which was used.
    assert_ne!(
        wkrun::report::compare::render_table(&c, Some(200)),
        wkrun::report::compare::render_table(&c, Some(100))
    );
    for (columns, width) in [(None, 100), (Some("200"), 200)] {
        let cmd = format!(
            "stty cols 0 rows 20; {}{} compare {}",
            columns.map_or(String::new(), |c| format!("COLUMNS={c} ")),
            wkrun_bin(),
            names.join(" ")
        );
        let o = std::process::Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .env("TERM", "xterm")
            .env_remove("COLUMNS")
            .stdin(std::process::Stdio::null())
            .current_dir(d.path())
            .output()
            .expect("run script");
        let out = String::from_utf8_lossy(&o.stdout).replace("\r\n", "\n");
        assert_eq!(
            out,
            wkrun::report::compare::render_table(&c, Some(width)),
            "COLUMNS {columns:?}"
        );
    }
}

/// One block of a paged compare table: its column names (from the header's last line, cut where the
/// rule's dashes are) and body rows, each a list of cells.
struct Block {
    names: Vec<String>,
    widths: Vec<usize>,
    rows: Vec<Vec<String>>,
}

/// Cuts a paged table into its blocks: each starts with its header line (`phase  metric ...`: run names
/// short enough not to wrap), then a rule of dashes whose runs give the columns, then its rows up to the
/// next block's header; blank lines are skipped.
fn blocks(table: &str) -> Vec<Block> {
    let lines: Vec<&str> = table.lines().collect();
    let mut out: Vec<Block> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with("---") {
            continue;
        }
        let mut spans = Vec::new();
        let mut at = 0;
        for dashes in l.split("  ") {
            spans.push((at, at + dashes.len()));
            at += dashes.len() + 2;
        }
        // By character: every character here takes one terminal cell (`µ` too).
        let cut = |line: &str| -> Vec<String> {
            let chars: Vec<char> = line.chars().collect();
            spans
                .iter()
                .map(|&(a, b)| {
                    let cell: String = chars[a.min(chars.len())..b.min(chars.len())]
                        .iter()
                        .collect();
                    cell.trim().to_string()
                })
                .collect()
        };
        let names = cut(lines[i - 1]);
        let rows = lines[i + 1..]
            .iter()
            .take_while(|r| !r.starts_with("phase ") && !r.starts_with("---"))
            .filter(|r| !r.is_empty())
            .map(|r| cut(r))
            .collect();
        out.push(Block {
            names,
            widths: spans.iter().map(|(a, b)| b - a).collect(),
            rows,
        });
    }
    out
}

/// Issue 25 item 7: twenty labelled runs on a terminal 100 cells wide. The table pages into blocks of
/// columns: no line is wider than 100, each block starts with the phase and metric columns and the first
/// run (the baseline of every change) and holds as many other runs as fit (the next would not), every
/// other run is named in exactly one block, and each block's values are its runs' own (run i: IOPS
/// 500 + 5i, its change against the first). A pipe without --width gets one table.
#[test]
fn twenty_labelled_runs_page_into_blocks_that_fit() {
    let d = tempdir();
    let files: Vec<PathBuf> = (0..20u64)
        .map(|i| {
            let mut r = results(
                "twenty",
                "/dev/sda",
                "2026-03-01T00:00:00.000Z",
                vec![workload(
                    0,
                    "w",
                    1000 + 10 * i,
                    0,
                    Some(lat(50_000.0, 90_000, 95_000, 99_000)),
                    None,
                )],
            );
            r.label = Some(format!("drive {i:02}"));
            write_results(d.path(), &format!("r{i:02}"), &r)
        })
        .collect();
    let t = compare_out(d.path(), &files, &["--width", "100"]);
    for l in t.lines() {
        assert!(l.chars().count() <= 100, "{} cells: {l}", l.chars().count());
    }
    let bs = blocks(&t);
    assert!(bs.len() >= 3, "{t}");
    let mut named: Vec<String> = Vec::new();
    for (k, b) in bs.iter().enumerate() {
        assert_eq!(&b.names[..3], ["phase", "metric", "drive 00"], "{t}");
        let runs = &b.names[2..];
        assert!(runs.len() >= 2);
        if let Some(next) = bs.get(k + 1) {
            // The next block's first run would not have fit: the block is as full as it can be.
            let used: usize = b.widths.iter().sum::<usize>() + 2 * (b.widths.len() - 1);
            assert!(
                used + 2 + next.widths[3] > 100,
                "block {k}: {used} + {}",
                next.widths[3]
            );
        }
        let iops = b
            .rows
            .iter()
            .find(|r| r[0] == "w" && r[1] == "IOPS, phase mean")
            .unwrap_or_else(|| panic!("block {k} has no total IOPS row: {t}"));
        for (j, name) in runs.iter().enumerate() {
            let i: u32 = name
                .trim_start_matches("drive ")
                .parse()
                .expect("a run's name");
            let v = 500.0 + 5.0 * f64::from(i);
            let want = match i {
                0 => format!("{v:.1}"),
                _ => format!("{v:.1} (+{:.1} %)", f64::from(i)),
            };
            assert_eq!(iops[2 + j], want, "block {k}, {name}");
        }
        assert_eq!(
            b.rows.iter().filter(|r| r[0] == "(all phases)").count(),
            1,
            "block {k}: {t}"
        );
        named.extend(runs[1..].iter().cloned());
    }
    let want: Vec<String> = (1..20).map(|i| format!("drive {i:02}")).collect();
    assert_eq!(named, want);
    // A pipe (no terminal, no --width): one block of full-length lines.
    let p = compare_out(d.path(), &files, &[]);
    assert_eq!(blocks(&p).len(), 1);
    assert_eq!(blocks(&p)[0].names.len(), 22);
    // Bad widths are refused.
    let (c, _, e) = code_out_err(&wkrun(
        d.path(),
        &["compare", "r00", "r01", "--width", "10"],
    ));
    assert_eq!(c, 2);
    assert!(e.contains("--width"), "{e}");
}

/// Runs that share no phase name (the newcomer trial's fio `--name=randread` beside wkrun's `rand-read`):
/// a note under the table names each run whose phases are in no other run and says phases pair by name;
/// in CSV it goes to stderr. Runs that share a phase get no such note.
#[test]
fn runs_sharing_no_phase_are_named_in_a_note() {
    let dir = tempdir();
    let d = dir.path();
    let t = "2026-03-01T00:00:00.000Z";
    let one = |name: &str| {
        vec![workload(
            0,
            name,
            100,
            0,
            Some(lat(1e4, 2e4 as u64, 3e4 as u64, 4e4 as u64)),
            None,
        )]
    };
    let a = write_results(d, "a", &results("s", "/dev/sda", t, one("rand-read")));
    let b = write_results(d, "b", &results("s", "/dev/sda", t, one("randread")));
    let c = write_results(d, "c", &results("s", "/dev/sda", t, one("rand-read")));
    let note = "note: no phase of b is in another run: compare pairs phases by name (fio's by its job's name: fio --name=PHASE)\n";
    let out = compare_out(d, &[a.clone(), b.clone(), c.clone()], &[]);
    assert!(out.ends_with(&format!("\n\n{note}")), "{out}");
    let o = wkrun(
        d,
        &[
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--format",
            "csv",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    let both = "note: no phase of a, b is in another run: compare pairs phases by name (fio's by its job's name: fio --name=PHASE)\n";
    assert_eq!((code, err.as_str()), (0, both), "{out}");
    assert!(!compare_out(d, &[a, c], &[]).contains("note:"));
}

// ---------------------------------------------------------------------------------------------------------
// Trial 15 finding 1: a clipped window against a real one.

/// consistency.toml, the seed spec of the clipped-window tests.
const CONSISTENCY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/specs/consistency.toml");

/// Its sweep at 100 % spare area, with the window and headline `60s..`.
const WINDOW_60S: [&str; 6] = [
    "--set",
    "sweep.spare-area=100%",
    "--set",
    r#"windows=["60s.."]"#,
    "--set",
    r#"headline=["worst","steady","60s.."]"#,
];

/// The runs of trial 15's finding 1, shortened: `specs/consistency.toml` measured for 40 s on a simulated
/// drive (its window `60s..` starts after the phase's end: the whole phase instead) and predicted for
/// 100 s from that run (the window's real rows, 60..100 s). Returns the folder and the two runs' names.
fn clipped_and_real(d: &Path) -> [String; 2] {
    let spec = CONSISTENCY;
    let same = WINDOW_60S;
    let mut run = vec![spec];
    run.extend(same);
    run.extend([
        "--set",
        "duration=40s",
        "--target",
        "sim:capacity=256MiB,op=12%",
        "-o",
        "short",
        "-q",
    ]);
    let o = wkrun(d, &run);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
    let mut predict = vec!["sim", "predict", "short", spec];
    predict.extend(same);
    predict.extend(["--set", "duration=100s", "-o", "pred2"]);
    let o = wkrun(d, &predict);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
    ["short".into(), "pred2".into()]
}

/// The composite row's label.
const COMPOSITE: &str = "composite (geometric mean of ratios to the first run)";

/// The header and rows of `compare --format csv`'s output.
fn csv_table(out: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut csv = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    let rows = csv
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The row of phase `phase` labelled `label` among `rows` ([`csv_table`]).
fn phase_row<'a>(rows: &'a [Vec<String>], phase: &str, label: &str) -> &'a Vec<String> {
    rows.iter()
        .find(|r| r[0] == phase && r[1] == label)
        .unwrap_or_else(|| panic!("no row {phase} {label}: {rows:?}"))
}

/// The total IOPS of `run`'s phase 2 recomputed from its counts: ops over its duration.
fn phase_iops(d: &Path, run: &str) -> f64 {
    let r = crate::common::results(&d.join(run));
    let p = phase(&r, 2);
    (u(p, "/write/ops") + u(p, "/read/ops")) as f64 / p["duration_s"].as_f64().unwrap()
}

/// Asserts that the composite of `runs`' CSV `rows` (with `err`, stderr) left out the second run's (column
/// `h1`) window avg of phase `name` and scored the phase on its phase mean, the whole phase in both runs,
/// recomputed from the counts.
fn scored_on_phase_mean(
    d: &Path,
    runs: [&str; 2],
    (rows, err): (&[Vec<String>], &str),
    (h1, name): (&str, &str),
) {
    let ratio = phase_iops(d, runs[1]) / phase_iops(d, runs[0]);
    assert_eq!(
        phase_row(rows, "(all phases)", COMPOSITE)[2..],
        [
            "1.000".to_string(),
            format!("{ratio:.3}"),
            format!("{:.1}", (ratio - 1.0) * 100.0)
        ]
    );
    let left = format!(
        "note: (all phases) {COMPOSITE}: left out of the composite, their rows unlike the first column's: {h1}: IOPS, 1min.., avg of {name}; such a phase is scored on its next lead figure, else on its IOPS, phase mean\n"
    );
    assert!(err.contains(&left), "{err}");
}

/// The mean of total IOPS over the full rows of `run`'s phase `i` that start at `from_s` or later: the
/// window's average recomputed from the series CSV.
fn full_rows_avg(d: &Path, run: &str, i: usize, from_s: f64) -> f64 {
    let r = crate::common::results(&d.join(run));
    let rows: Vec<f64> = phase_rows(&d.join(run), &r, i)
        .iter()
        .filter(|row| n(row, "partial") == 0 && f(row, "t_s") - f(row, "interval_s") >= from_s)
        .map(|row| f(row, "read_iops") + f(row, "write_iops"))
        .collect();
    rows.iter().sum::<f64>() / rows.len() as f64
}

/// Finding 1 (trial 15): `compare` set a clipped window's figures (the whole 40 s phase) against a real
/// window's (60..100 s) on one row labelled from the first run, with changes and a composite of them.
/// Now each cell says its rows, the row has no change, a note says why, and the composite is of the
/// like-for-like phase mean, as the test recomputes it.
#[test]
fn a_clipped_window_is_not_compared_with_a_real_one() {
    let d = tempdir();
    let d = d.path();
    let [short, pred] = clipped_and_real(d);
    let name = "random-write[spare-area=100%]";
    let o = wkrun(d, &["compare", &short, &pred, "--format", "csv"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (header, rows) = csv_table(&out);
    let row = |label: &str| phase_row(&rows, name, label);
    // The row is labelled as the spec asks, each cell with its rows, no change.
    let avg = row("IOPS, 1min.., avg");
    let (a, b) = (
        full_rows_avg(d, &short, 2, 0.0),
        full_rows_avg(d, &pred, 2, 60.0),
    );
    assert_eq!(
        avg[2..],
        [
            format!("{a:.1} over 0..40 s"),
            format!("{b:.1} over 60..100 s"),
            String::new()
        ]
    );
    for stat in ["min", "max", "stddev"] {
        assert_eq!(row(&format!("IOPS, 1min.., {stat}"))[4], "", "{stat}");
    }
    assert!(!out.contains("whole phase (window"), "{out}");
    let (h0, h1) = (&header[2], &header[3]);
    let note = format!(
        "note: {name} IOPS, 1min.., avg: not compared: {h0}: the whole phase instead, 0..40 s; {h1}: the window, 60..100 s; a figure is set against the first run's only over the same kind of rows (what it asks in both, else the same rows in both): a figure over other rows has no change and is left out of the composite\n"
    );
    assert!(err.contains(&note), "{err}");
    scored_on_phase_mean(d, [&short, &pred], (&rows, &err), (h1, name));
    // The table numbers the notes, one for the window's four rows, and marks the rows.
    let o = wkrun(d, &["compare", &short, &pred]);
    let table = code_out_err(&o).1;
    assert!(table.contains("IOPS, 1min.., max [1]"), "{table}");
    assert!(table.contains("\n[1] not compared: "), "{table}");
    assert!(table.contains("\n[2] left out of the composite"), "{table}");
    assert!(!table.contains("[3]"), "{table}");
    // The report's headline table: no change on the window's figures, the note under it.
    let o = wkrun(d, &["report", &short, &pred, "-o", "rep"]);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
    let page = std::fs::read_to_string(d.join("rep/index.html")).unwrap();
    assert!(
        page.contains(&format!("<td>{b:.1} over 60..100 s</td>")),
        "{page}"
    );
    assert!(page.contains(&format!("<td>{a:.1} over 0..40 s [1]</td>")));
    assert!(page.contains("<th>IOPS, 1min.., avg (IOPS)</th>"));
    assert!(page.contains(&format!("[1] {name}: not compared: ")));
}

/// Runs consistency.toml (spare area 100 %, window and headline `60s..`) for `secs` s on a 256 MiB simulated
/// drive into `d/OUT`: too short for the window, which takes the whole phase instead.
fn clipped_run(d: &Path, secs: u32, out: &str) {
    clipped_run_with(d, secs, out, &[]);
}

/// [`clipped_run`] with `extra` arguments.
fn clipped_run_with(d: &Path, secs: u32, out: &str, extra: &[&str]) {
    let duration = format!("duration={secs}s");
    let mut args = vec![CONSISTENCY];
    args.extend(WINDOW_60S);
    args.extend(extra);
    args.extend([
        "--set",
        &duration,
        "--target",
        "sim:capacity=256MiB,op=12%",
        "-o",
        out,
        "-q",
    ]);
    let o = wkrun(d, &args);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
}

/// A window clipped to the whole phase in both runs, of phases of different lengths (10 s and 20 s), was
/// compared as alike (its avg row with a change, and the composite of it). Now it is not compared, as one
/// clipped against a real window is not: each cell says its rows, no change, a note says why, and the
/// composite is of the phase mean, as the test recomputes it from the counts.
#[test]
fn windows_clipped_to_phases_of_different_lengths_are_not_compared() {
    let d = tempdir();
    let d = d.path();
    clipped_run(d, 10, "s10");
    clipped_run(d, 20, "s20");
    let name = "random-write[spare-area=100%]";
    let o = wkrun(d, &["compare", "s10", "s20", "--format", "csv"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (header, rows) = csv_table(&out);
    let row = |label: &str| phase_row(&rows, name, label);
    let (a, b) = (
        full_rows_avg(d, "s10", 2, 0.0),
        full_rows_avg(d, "s20", 2, 0.0),
    );
    assert_eq!(
        row("IOPS, 1min.., avg")[2..],
        [
            format!("{a:.1} over 0..10 s"),
            format!("{b:.1} over 0..20 s"),
            String::new()
        ]
    );
    for stat in ["min", "max", "stddev"] {
        assert_eq!(row(&format!("IOPS, 1min.., {stat}"))[4], "", "{stat}");
    }
    let (h0, h1) = (&header[2], &header[3]);
    let note = format!(
        "note: {name} IOPS, 1min.., avg: not compared: {h0}: the whole phase instead, 0..10 s; {h1}: the whole phase instead, 0..20 s; a figure is set against the first run's only over the same kind of rows (what it asks in both, else the same rows in both): a figure over other rows has no change and is left out of the composite\n"
    );
    assert!(err.contains(&note), "{err}");
    scored_on_phase_mean(d, ["s10", "s20"], (&rows, &err), (h1, name));
    // The report's headline table: no change, the note under it.
    let o = wkrun(d, &["report", "s10", "s20", "-o", "rep"]);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
    let page = std::fs::read_to_string(d.join("rep/index.html")).unwrap();
    assert!(
        page.contains(&format!("<td>{a:.1} over 0..10 s [1]</td>")),
        "{page}"
    );
    assert!(page.contains(&format!("<td>{b:.1} over 0..20 s</td>")));
    assert!(page.contains(&format!("[1] {name}: not compared: ")));
    // Two runs of one length are still compared: the same rows in both (another seed: other numbers).
    clipped_run_with(d, 10, "t10", &["--set", "seed=7"]);
    let o = wkrun(d, &["compare", "s10", "t10", "--format", "csv"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not compared"), "{err}");
    let c = full_rows_avg(d, "t10", 2, 0.0);
    let label = "IOPS, whole phase (window 1min.. starts after the phase's end, 10s), avg";
    assert_eq!(
        phase_row(&csv_table(&out).1, name, label)[2..],
        [
            format!("{a:.1}"),
            format!("{c:.1}"),
            format!("{:.1}", (c / a - 1.0) * 100.0)
        ]
    );
    // Three runs, the second's rows unlike the first's, the third's alike (attack 17 F3: the third's
    // composite came from a row that showed it no change): the row is noted, the third's cell has its
    // change, and its composite is of that figure; the second's is of the phase mean.
    let o = wkrun(d, &["compare", "s10", "s20", "t10", "--format", "csv"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let rows = csv_table(&out).1;
    let change = |x: f64| format!("{:.1}", (x / a - 1.0) * 100.0);
    assert_eq!(
        phase_row(&rows, name, "IOPS, 1min.., avg")[2..],
        [
            format!("{a:.1} over 0..10 s"),
            format!("{b:.1} over 0..20 s"),
            String::new(),
            format!("{c:.1} over 0..10 s"),
            change(c)
        ]
    );
    let mean = phase_iops(d, "s20") / phase_iops(d, "s10");
    assert_eq!(
        phase_row(&rows, "(all phases)", COMPOSITE)[2..],
        [
            "1.000".to_string(),
            format!("{mean:.3}"),
            format!("{:.1}", (mean - 1.0) * 100.0),
            format!("{:.3}", c / a),
            change(c)
        ]
    );
    let o = wkrun(d, &["report", "s10", "s20", "t10", "-o", "rep3"]);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
    let page = std::fs::read_to_string(d.join("rep3/index.html")).unwrap();
    // The cell's change, marked better or worse where it is past the noise (the report's spans).
    let pct = format!("({:+.1} %)", (c / a - 1.0) * 100.0);
    let cells = [
        format!("<td>{c:.1} over 0..10 s {pct}</td>"),
        format!("<td>{c:.1} over 0..10 s <span class=\"better\">{pct}</span></td>"),
        format!("<td>{c:.1} over 0..10 s <span class=\"worse\">{pct}</span></td>"),
    ];
    assert!(
        cells.iter().any(|cell| page.contains(cell.as_str())),
        "{:?}",
        page.lines()
            .filter(|l| l.contains(" over "))
            .collect::<Vec<_>>()
    );
}

/// Two runs of one spec on one drive get one label, and each was kept in a folder `out` (`a/out`, `b/out`):
/// `compare` headed them by spec, target and start, which says neither the label nor the folder. Now
/// each is headed by the label and its folder as given, and one folder given twice is numbered; `report`
/// names them so too.
#[test]
fn runs_of_one_label_in_folders_of_one_name_are_headed_by_their_folders() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 50\n\
                interval = \"100ms\"\nduration = \"1s\"\n";
    write_file(d, "s.toml", &spec_text("q", body));
    for out in ["a/out", "b/out"] {
        let o = wkrun(
            d,
            &[
                "s.toml",
                "-q",
                "--target",
                "sim:capacity=256MiB,op=12%",
                "-o",
                out,
            ],
        );
        assert!(o.status.success(), "{}", code_out_err(&o).2);
    }
    let label = "sim:capacity=256MiB,op=12%,dies=1";
    let header = |args: &[&str]| {
        let (code, out, err) = code_out_err(&wkrun(d, args));
        assert_eq!(code, 0, "{err}");
        out.lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        header(&["compare", "a/out", "b/out", "--format", "csv"]),
        format!(
            "phase,metric,\"{label} (a/out)\",\"{label} (b/out)\",\"{label} (b/out) change (%)\""
        )
    );
    assert_eq!(
        header(&["compare", "a/out", "a/out", "--format", "csv"]),
        format!(
            "phase,metric,\"{label} (a/out) #1\",\"{label} (a/out) #2\",\"{label} (a/out) #2 change (%)\""
        )
    );
    let o = wkrun(d, &["report", "a/out", "b/out", "-o", "rep"]);
    assert!(o.status.success(), "{}", code_out_err(&o).2);
    let page = std::fs::read_to_string(d.join("rep/index.html")).expect("index.html");
    for f in ["a/out", "b/out"] {
        assert!(page.contains(&format!("{label} ({f})")), "{f}");
    }
}

/// The narrowest a terminal table of `markdown` (`compare --format markdown`, the same cells) can be,
/// recomputed from its cells: the phase, metric (labels of at most 40 cells; a longer one is on a line of
/// its own after the phase) and first run's columns beside the widest other run's (values of at most 24
/// cells; run names short enough not to wrap), two cells between columns.
fn narrowest_of(markdown: &str) -> usize {
    let cells = wkrun::text::cells;
    let rows: Vec<Vec<&str>> = markdown
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|---"))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    let col = |i: usize, cap: usize| {
        rows.iter()
            .map(|r| cells(r[i]))
            .filter(|&w| w <= cap)
            .max()
            .unwrap_or(0)
    };
    let (phase, metric) = (col(0, usize::MAX), col(1, 40));
    let others = (3..rows[0].len()).map(|i| col(i, 24)).max().unwrap_or(0);
    let block = phase + 2 + metric + 2 + col(2, 24) + 2 + others;
    let label = rows.iter().map(|r| cells(r[1])).max().unwrap_or(0);
    block.max(phase + 2 + label)
}

/// Newcomer trial: `compare A B C --width 40` printed table lines of 78 to 83 cells and note lines of 347.
/// At --width 40 and 60 every note (numbered under the table, `note:` after it) is wrapped to the width;
/// a table narrower than its phase, metric and first two runs' columns can be is laid out at that
/// narrowest width, which stderr states once and which a table line reaches exactly.
#[test]
fn notes_wrap_to_the_width_and_a_too_narrow_table_says_its_narrowest() {
    let d = tempdir();
    let mut files = three_runs(d.path());
    // Notes above the table (the used drive's run is on a file) and under it (a fio job named otherwise).
    let mut used = wkrun::report::read_results(&files[2]).expect("results");
    used.target.kind = TargetKind::File;
    used.target.path = "/srv/scratch/used.img".into();
    let sub = files[2]
        .parent()
        .and_then(Path::file_name)
        .expect("a folder");
    files[2] = write_results(d.path(), &sub.to_string_lossy(), &used);
    let fio = vec![workload(
        0,
        "randread",
        1000,
        0,
        Some(lat(50_000.0, 90_000, 95_000, 99_000)),
        None,
    )];
    files.push(write_results(
        d.path(),
        "fio",
        &results("fio", "/dev/sda", "2026-03-04T00:00:00.000Z", fio),
    ));
    let least = narrowest_of(&compare_out(d.path(), &files, &["--format", "markdown"]));
    let cells = wkrun::text::cells;
    for width in [40, 60] {
        let mut args = vec!["compare".to_string()];
        args.extend(files.iter().map(|f| f.display().to_string()));
        args.extend(["--width".into(), width.to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
        assert_eq!(code, 0, "{err}");
        let lines: Vec<&str> = out.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with("phase"))
            .expect("a table");
        let end = (start..lines.len())
            .find(|&i| lines[i].starts_with("[1] ") || lines[i].starts_with("note: "))
            .unwrap_or_else(|| panic!("notes under the table:\n{out}\n{err}"));
        let (table, notes) = (
            &lines[start..end],
            [&lines[..start], &lines[end..]].concat(),
        );
        assert!(notes.len() > 3, "{out}");
        for l in &notes {
            assert!(
                cells(l) <= width,
                "--width {width}: note line of {} cells: {l}",
                cells(l)
            );
        }
        let widest = table.iter().map(|l| cells(l)).max().unwrap_or(0);
        let said = format!("the table is at least {least} cells wide");
        match least > width {
            true => {
                assert_eq!(widest, least, "--width {width}:\n{out}");
                assert_eq!(err.replace("\n  ", " ").matches(&said).count(), 1, "{err}");
                assert!(err.lines().all(|l| cells(l) <= width), "{err}");
            }
            false => {
                assert!(widest <= width, "--width {width}:\n{out}");
                assert_eq!(err, "");
            }
        }
    }
}

/// Trial 23 X1: seed 002's latency of a mixed cell, every I/O together (`total.latency_ns`: the directions'
/// means weighted by their op counts, the largest of their maxima, recomputed here from `read` and `write`),
/// is shown for wkrun's own run: in compare's rows `latency, phase mean (µs)` and `latency max (µs)`, in
/// the report's matrix table (`together MEAN / MAX`) and on the console's latency line (`together mean M,
/// max N`). Before, compare showed `-`, and the table and the console only each direction.
#[test]
fn a_mixed_cells_latency_together_is_compared_reported_and_said() {
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"lat\"\nkind = \"workload\"\npattern = \"random\"\n\
                block_size = [\"4KiB\", \"8KiB\"]\nread_percent = [65, 0]\nsize = \"512KiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("mixlat", body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "4MiB",
        "-o",
        "out",
    ];
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &args));
    assert_eq!(code, 0, "{err}");
    let (typed, _) = strict_results(&tmp.path().join("out"));
    let cell = &typed.phases[0];
    assert_eq!(cell.name, "lat[bs=4KiB,read=65]");
    let (r, w) = (&cell.read, &cell.write);
    assert_eq!(r.ops + w.ops, 128, "512 KiB of 4 KiB blocks");
    let (rl, wl) = (r.latency_ns.clone().unwrap(), w.latency_ns.clone().unwrap());
    let mean = (r.ops as f64 * rl.mean + w.ops as f64 * wl.mean) / (r.ops + w.ops) as f64;
    let max = rl.max.max(wl.max);
    let total = cell.total.latency_ns.clone().expect("total latency");
    assert!(
        (total.mean - mean).abs() <= 1e-9 * mean,
        "{} {mean}",
        total.mean
    );
    assert_eq!(total.max, max);
    // The console's latency line of the mixed cell ends with it; a write-only cell's has no such part.
    let said = format!(
        "; together mean {}, max {}",
        lat_text(mean),
        lat_text(max as f64)
    );
    assert!(summary_lines(&out, 0)[1].ends_with(&said), "{out}");
    assert!(!summary_lines(&out, 1)[1].contains("together"), "{out}");
    // compare: the two rows from the total; a write-only cell has no max of them (its write rows say it).
    let o = wkrun(tmp.path(), &["compare", "out", "--format", "csv"]);
    let (code, csv, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    // The CSV quotes a field with a comma only.
    let field = |f: &str| match f.contains(',') {
        true => format!("\"{f}\""),
        false => f.to_string(),
    };
    let value = |phase: &str, metric: &str| {
        let start = format!("{},{},", field(phase), field(metric));
        csv.lines()
            .find(|l| l.starts_with(&start))
            .map(|l| l[start.len()..].to_string())
    };
    assert_eq!(
        value("lat[bs=4KiB,read=65]", "latency, phase mean (µs)"),
        Some(format!("{:.2}", mean / 1e3)),
        "{csv}"
    );
    assert_eq!(
        value("lat[bs=4KiB,read=65]", "latency max (µs)"),
        Some(format!("{:.2}", max as f64 / 1e3)),
        "{csv}"
    );
    // (Its `latency, phase mean (µs)` is the default headline's `mean` item.)
    assert_eq!(
        value("lat[bs=4KiB,read=0]", "latency max (µs)"),
        None,
        "{csv}"
    );
    // The report's matrix table: reads, writes and both together in the cell.
    let o = wkrun(tmp.path(), &["report", "out"]);
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    let html = std::fs::read_to_string(tmp.path().join("out/report/index.html")).unwrap();
    let want = format!(
        "read {:.1} / {:.1}<br>write {:.1} / {:.1}<br>together {:.1} / {:.1}<br>",
        rl.mean / 1e3,
        rl.max as f64 / 1e3,
        wl.mean / 1e3,
        wl.max as f64 / 1e3,
        mean / 1e3,
        max as f64 / 1e3
    );
    assert!(html.contains(&want), "{want}");
}
