//! `wkrun compare`: several runs side by side, one column per run and one row per phase and metric, with
//! each later run's relative change against the first.
//!
//! [`compare`] is a pure function from parsed results to a [`Comparison`]; [`render_table`],
//! [`render_markdown`] and [`render_csv`] turn that into text.
//!
//! Phases are matched by name (names are unique within a run): the first run's phases in its order, then
//! those only later runs have, in the order they first appear. Erase phases, which measure no I/O, are left
//! out. A phase a run lacks shows `missing` in that run's column; a metric without data (the read latency
//! of a run without reads) shows `-`.

use crate::results::{PhaseResult, Results, Status};
use crate::spec::PhaseKind;
use crate::stats::LatencySummary;
use std::path::PathBuf;

/// One run to compare: the file it came from and its results.
#[derive(Debug, Clone)]
pub struct Run {
    /// The results file, as given (used in the column header when runs would otherwise look alike).
    pub file: PathBuf,
    /// Its contents.
    pub results: Results,
}

/// One metric of a phase: a row of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// read.iops + write.iops.
    TotalIops,
    /// read.iops.
    ReadIops,
    /// write.iops.
    WriteIops,
    /// total.bw_bytes_per_s.
    Bandwidth,
    /// Read latency mean, µs.
    ReadLatMean,
    /// Read latency p99, µs.
    ReadLatP99,
    /// Read latency p99.9, µs.
    ReadLatP999,
    /// Read latency max, µs.
    ReadLatMax,
    /// Write latency mean, µs.
    WriteLatMean,
    /// Write latency p99, µs.
    WriteLatP99,
    /// Write latency p99.9, µs.
    WriteLatP999,
    /// Write latency max, µs.
    WriteLatMax,
    /// The steady-state verdict (a row only when some run's phase has one).
    SteadyState,
}

impl Metric {
    /// The numeric metrics, in row order (the steady-state verdict follows them).
    pub const NUMERIC: [Metric; 12] = [
        Metric::TotalIops,
        Metric::ReadIops,
        Metric::WriteIops,
        Metric::Bandwidth,
        Metric::ReadLatMean,
        Metric::ReadLatP99,
        Metric::ReadLatP999,
        Metric::ReadLatMax,
        Metric::WriteLatMean,
        Metric::WriteLatP99,
        Metric::WriteLatP999,
        Metric::WriteLatMax,
    ];

    /// The row label, with the unit.
    pub fn label(self) -> &'static str {
        match self {
            Metric::TotalIops => "total IOPS",
            Metric::ReadIops => "read IOPS",
            Metric::WriteIops => "write IOPS",
            Metric::Bandwidth => "bandwidth (B/s)",
            Metric::ReadLatMean => "read lat mean (µs)",
            Metric::ReadLatP99 => "read lat p99 (µs)",
            Metric::ReadLatP999 => "read lat p99.9 (µs)",
            Metric::ReadLatMax => "read lat max (µs)",
            Metric::WriteLatMean => "write lat mean (µs)",
            Metric::WriteLatP99 => "write lat p99 (µs)",
            Metric::WriteLatP999 => "write lat p99.9 (µs)",
            Metric::WriteLatMax => "write lat max (µs)",
            Metric::SteadyState => "steady state",
        }
    }

    /// Decimals shown for the metric's values.
    fn decimals(self) -> usize {
        match self {
            Metric::Bandwidth => 0,
            Metric::TotalIops | Metric::ReadIops | Metric::WriteIops => 1,
            _ => 2,
        }
    }

    /// The metric's value for a phase; `None` when it has no data (a latency without I/O in that direction)
    /// or is not numeric.
    pub fn value(self, p: &PhaseResult) -> Option<f64> {
        let us = |l: &Option<LatencySummary>, f: fn(&LatencySummary) -> f64| {
            l.as_ref().map(|l| f(l) / 1000.0)
        };
        match self {
            Metric::TotalIops => Some(p.read.iops + p.write.iops),
            Metric::ReadIops => Some(p.read.iops),
            Metric::WriteIops => Some(p.write.iops),
            Metric::Bandwidth => Some(p.total.bw_bytes_per_s),
            Metric::ReadLatMean => us(&p.read.latency_ns, |l| l.mean),
            Metric::ReadLatP99 => us(&p.read.latency_ns, |l| l.p99 as f64),
            Metric::ReadLatP999 => us(&p.read.latency_ns, |l| l.p99_9 as f64),
            Metric::ReadLatMax => us(&p.read.latency_ns, |l| l.max as f64),
            Metric::WriteLatMean => us(&p.write.latency_ns, |l| l.mean),
            Metric::WriteLatP99 => us(&p.write.latency_ns, |l| l.p99 as f64),
            Metric::WriteLatP999 => us(&p.write.latency_ns, |l| l.p99_9 as f64),
            Metric::WriteLatMax => us(&p.write.latency_ns, |l| l.max as f64),
            Metric::SteadyState => None,
        }
    }

    /// The value as shown.
    pub fn format_value(self, v: f64) -> String {
        format!("{v:.*}", self.decimals())
    }
}

/// One cell: a run's value of a metric for a phase.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// The run has no phase of that name.
    Missing,
    /// The phase has no data for the metric (e.g. read latency without reads; no steady-state rule).
    NoData,
    /// A number, and for runs after the first its change against the first run in percent (`None` in the
    /// first column, or when the first run has no value or a value of 0).
    Number {
        /// The value, in the metric's unit.
        value: f64,
        /// (value − first) / first × 100.
        change_pct: Option<f64>,
    },
    /// A steady-state verdict, as text (`reached at 12.0 s`, `not reached`).
    Text(String),
}

impl Cell {
    /// The cell as shown in a table: the value, then the change in parentheses.
    pub fn display(&self, metric: Metric) -> String {
        match self {
            Cell::Number {
                value,
                change_pct: Some(c),
            } => format!("{} ({})", metric.format_value(*value), format_change(*c)),
            Cell::Number { value, .. } => metric.format_value(*value),
            other => other.plain(metric),
        }
    }

    /// The cell without the change: the value, `missing`, `-` or the text.
    pub fn plain(&self, metric: Metric) -> String {
        match self {
            Cell::Missing => "missing".into(),
            Cell::NoData => "-".into(),
            Cell::Number { value, .. } => metric.format_value(*value),
            Cell::Text(t) => t.clone(),
        }
    }

    /// The change alone, as in [`format_change`]; empty when there is none.
    pub fn change(&self) -> String {
        match self {
            Cell::Number {
                change_pct: Some(c),
                ..
            } => format_change(*c),
            _ => String::new(),
        }
    }
}

/// A relative change in percent, signed, one decimal: `+12.3 %`, `-4.0 %`, `+0.0 %`.
pub fn format_change(pct: f64) -> String {
    let mut r = (pct * 10.0).round() / 10.0;
    if r == 0.0 {
        r = 0.0; // no "-0.0"
    }
    format!("{r:+.1} %")
}

/// One row: a phase and a metric, one cell per run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The phase name.
    pub phase: String,
    /// The metric.
    pub metric: Metric,
    /// One cell per run, in the order of the runs.
    pub cells: Vec<Cell>,
}

/// Runs side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// One column header per run: spec name, target path and start time; the file as given when two runs
    /// would have the same header. A run that did not complete has its status appended.
    pub columns: Vec<String>,
    /// The rows, phase by phase.
    pub rows: Vec<Row>,
}

impl Comparison {
    /// The row of `phase` and `metric`, if any.
    pub fn row(&self, phase: &str, metric: Metric) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.phase == phase && r.metric == metric)
    }
}

/// Compares `runs`, the first being the baseline.
pub fn compare(runs: &[Run]) -> Comparison {
    let columns = headers(runs);
    let mut names: Vec<&str> = Vec::new();
    for run in runs {
        for p in &run.results.phases {
            if p.kind != PhaseKind::Erase && !names.contains(&p.name.as_str()) {
                names.push(&p.name);
            }
        }
    }
    let mut rows = Vec::new();
    for name in names {
        let phases: Vec<Option<&PhaseResult>> = runs
            .iter()
            .map(|r| {
                r.results
                    .phases
                    .iter()
                    .find(|p| p.name == name && p.kind != PhaseKind::Erase)
            })
            .collect();
        for metric in Metric::NUMERIC {
            let values: Vec<Option<Option<f64>>> =
                phases.iter().map(|p| p.map(|p| metric.value(p))).collect();
            let base = values[0].flatten().filter(|b| *b != 0.0);
            let cells = values
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    None => Cell::Missing,
                    Some(None) => Cell::NoData,
                    Some(Some(value)) => Cell::Number {
                        value: *value,
                        change_pct: base
                            .filter(|_| i > 0)
                            .map(|b| (value - b) / b.abs() * 100.0),
                    },
                })
                .collect();
            rows.push(Row {
                phase: name.to_string(),
                metric,
                cells,
            });
        }
        if phases.iter().flatten().any(|p| p.steady_state.is_some()) {
            let cells = phases
                .iter()
                .map(|p| match p {
                    None => Cell::Missing,
                    Some(p) => match &p.steady_state {
                        None => Cell::NoData,
                        Some(s) => Cell::Text(match (s.reached, s.at_s) {
                            (true, Some(at)) => format!("reached at {at:.1} s"),
                            (true, None) => "reached".into(),
                            (false, _) => "not reached".into(),
                        }),
                    },
                })
                .collect();
            rows.push(Row {
                phase: name.to_string(),
                metric: Metric::SteadyState,
                cells,
            });
        }
    }
    Comparison { columns, rows }
}

/// Column headers: the name of the folder holding each results file when every run has one and they all
/// differ (runs kept as `fresh/`, `used/`, ... are headed so, as `wkrun report` labels them); else
/// `spec target started_at`, or the file as given when that is ambiguous (and a `#n` suffix when even the
/// file is given twice).
fn headers(runs: &[Run]) -> Vec<String> {
    let status = |r: &Results| match r.status {
        Status::Completed => String::new(),
        Status::Running => " [running]".into(),
        Status::Interrupted => " [interrupted]".into(),
        Status::Failed => " [failed]".into(),
    };
    let folders: Vec<Option<String>> = runs
        .iter()
        .map(|r| {
            r.file
                .parent()
                .and_then(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        })
        .collect();
    let distinct = folders.iter().enumerate().all(|(i, f)| {
        f.as_ref()
            .is_some_and(|f| !folders[..i].iter().any(|g| g.as_ref() == Some(f)))
    });
    if distinct && runs.len() > 1 {
        return folders
            .into_iter()
            .zip(runs)
            .map(|(f, r)| format!("{}{}", f.unwrap_or_default(), status(&r.results)))
            .collect();
    }
    let natural: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r.results.spec.name,
                r.results.target.path.display(),
                r.results.started_at
            )
        })
        .collect();
    let mut out: Vec<String> = runs
        .iter()
        .zip(&natural)
        .map(|(r, n)| {
            if natural.iter().filter(|m| *m == n).count() > 1 {
                r.file.display().to_string()
            } else {
                n.clone()
            }
        })
        .collect();
    let snapshot = out.clone();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for h in out.iter_mut() {
        if snapshot.iter().filter(|m| *m == h).count() > 1 {
            let k = seen.entry(h.clone()).or_insert(0);
            *k += 1;
            *h = format!("{h} #{k}");
        }
    }
    out.iter()
        .zip(runs)
        .map(|(h, r)| format!("{h}{}", status(&r.results)))
        .collect()
}

/// The header row and body rows as the table and Markdown renderers show them.
fn display_grid(c: &Comparison) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["phase".to_string(), "metric".to_string()];
    header.extend(c.columns.iter().cloned());
    let body = c
        .rows
        .iter()
        .map(|r| {
            let mut v = vec![r.phase.clone(), r.metric.label().to_string()];
            v.extend(r.cells.iter().map(|cell| cell.display(r.metric)));
            v
        })
        .collect();
    (header, body)
}

/// A plain-text table with aligned columns: names left-aligned, values right-aligned, a blank line between
/// phases.
pub fn render_table(c: &Comparison) -> String {
    let (header, body) = display_grid(c);
    // Terminal cells, not characters: a CJK phase name takes two cells a character.
    let width = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for row in &body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let pad = " ".repeat(widths[i] - width(s));
                if i < 2 {
                    format!("{s}{pad}")
                } else {
                    format!("{pad}{s}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(&header);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&(rule.join("  ") + "\n"));
    for (i, row) in body.iter().enumerate() {
        if i > 0 && c.rows[i].phase != c.rows[i - 1].phase {
            out.push('\n');
        }
        out.push_str(&line(row));
    }
    out
}

/// A GitHub-flavoured Markdown table (numbers right-aligned).
pub fn render_markdown(c: &Comparison) -> String {
    let (header, body) = display_grid(c);
    let esc = |s: &str| s.replace('|', "\\|");
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells.iter().map(|s| esc(s)).collect();
        format!("| {} |\n", parts.join(" | "))
    };
    let mut out = line(&header);
    let align: Vec<&str> = (0..header.len())
        .map(|i| if i < 2 { "---" } else { "---:" })
        .collect();
    out.push_str(&format!("|{}|\n", align.join("|")));
    for row in &body {
        out.push_str(&line(row));
    }
    out
}

/// CSV, header row first: `phase`, `metric`, then each run's column, each run after the first followed by
/// its change column (`<run> change`, e.g. `+12.3 %`; empty when there is none). Values are as in the
/// table, without the change.
pub fn render_csv(c: &Comparison) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    let mut header = vec!["phase".to_string(), "metric".to_string()];
    for (i, col) in c.columns.iter().enumerate() {
        header.push(col.clone());
        if i > 0 {
            header.push(format!("{col} change"));
        }
    }
    // Writing to a Vec cannot fail, and every record has the header's length.
    w.write_record(&header).expect("csv to memory");
    for r in &c.rows {
        let mut rec = vec![r.phase.clone(), r.metric.label().to_string()];
        for (i, cell) in r.cells.iter().enumerate() {
            rec.push(cell.plain(r.metric));
            if i > 0 {
                rec.push(cell.change());
            }
        }
        w.write_record(&rec).expect("csv to memory");
    }
    let bytes = w.into_inner().expect("csv to memory");
    String::from_utf8(bytes).expect("csv of UTF-8 strings is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::{DirStats, SteadyState};
    use crate::stats::steady::{Rule, SniaRule, Verdict};
    use crate::target::TargetKind;

    fn lat(mean_ns: f64, p99: u64, p99_9: u64, max: u64) -> LatencySummary {
        LatencySummary {
            min: 1,
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

    /// A 1-second 4 KiB workload: IOPS equal the op counts.
    fn phase(name: &str, reads: u64, writes: u64, rl: Option<LatencySummary>) -> PhaseResult {
        let wl = (writes > 0).then(|| lat(50_000.0, 60_000, 70_000, 80_000));
        let mut p = testing::phase(name, 0);
        p.read = DirStats::new(reads, reads * 4096, 1.0, rl);
        p.write = DirStats::new(writes, writes * 4096, 1.0, wl);
        p.total = DirStats::new(reads + writes, (reads + writes) * 4096, 1.0, None);
        p
    }

    fn run(file: &str, spec: &str, started: &str, phases: Vec<PhaseResult>) -> Run {
        Run {
            file: file.into(),
            results: testing::results(spec, started, "/dev/x", TargetKind::File, phases),
        }
    }

    fn steady(reached: bool, at_s: Option<f64>) -> SteadyState {
        SteadyState {
            criterion: Rule::Snia(SniaRule::default()),
            reached,
            at_s,
            left_at_s: None,
            window_s: 5.0,
            ended_phase: false,
            verdict: Verdict {
                reached,
                at_round: None,
                at_round_number: None,
                window_first_round: 0,
                window_rounds: 5,
                window_mean: 1.0,
                window_min: 1.0,
                window_max: 1.0,
                slope: 0.0,
                data_excursion: Some(0.0),
                slope_excursion: Some(0.0),
                max_deviation: 0.0,
                rounds_seen: 5,
                gave_up: false,
                left: None,
            },
        }
    }

    fn two() -> Comparison {
        let a = run(
            "a.json",
            "s",
            "2026-01-01T00:00:00.000Z",
            vec![
                phase(
                    "mix",
                    1000,
                    500,
                    Some(lat(100_000.0, 200_000, 300_000, 400_000)),
                ),
                phase("w", 0, 800, None),
            ],
        );
        let b = run(
            "b.json",
            "s",
            "2026-01-02T00:00:00.000Z",
            vec![
                phase("extra", 10, 0, Some(lat(1000.0, 1000, 1000, 1000))),
                phase(
                    "mix",
                    1100,
                    400,
                    Some(lat(112_346.0, 180_000, 300_000, 500_000)),
                ),
            ],
        );
        compare(&[a, b])
    }

    fn num(c: &Comparison, phase: &str, m: Metric, i: usize) -> (f64, Option<f64>) {
        match &c.row(phase, m).unwrap().cells[i] {
            Cell::Number { value, change_pct } => (*value, *change_pct),
            other => panic!("{phase} {m:?} run {i}: {other:?}"),
        }
    }

    #[test]
    fn values_and_changes() {
        let c = two();
        assert_eq!(num(&c, "mix", Metric::TotalIops, 0), (1500.0, None));
        assert_eq!(num(&c, "mix", Metric::TotalIops, 1), (1500.0, Some(0.0)));
        assert_eq!(num(&c, "mix", Metric::ReadIops, 1), (1100.0, Some(10.0)));
        assert_eq!(num(&c, "mix", Metric::WriteIops, 1), (400.0, Some(-20.0)));
        let (v, ch) = num(&c, "mix", Metric::ReadLatMean, 1);
        assert_eq!(v, 112.346);
        assert!((ch.unwrap() - 12.346).abs() < 1e-9);
        assert_eq!(num(&c, "mix", Metric::ReadLatP99, 1), (180.0, Some(-10.0)));
        assert_eq!(num(&c, "mix", Metric::ReadLatMax, 1), (500.0, Some(25.0)));
        assert_eq!(
            c.row("mix", Metric::ReadLatMean).unwrap().cells[1].display(Metric::ReadLatMean),
            "112.35 (+12.3 %)"
        );
    }

    #[test]
    fn phase_order_missing_and_no_data() {
        let c = two();
        let mut phases: Vec<&str> = c.rows.iter().map(|r| r.phase.as_str()).collect();
        phases.dedup();
        assert_eq!(phases, ["mix", "w", "extra"]);
        assert_eq!(c.rows.len(), 3 * Metric::NUMERIC.len());
        let w = c.row("w", Metric::TotalIops).unwrap();
        assert_eq!(w.cells[1], Cell::Missing);
        let e = c.row("extra", Metric::ReadIops).unwrap();
        assert_eq!(e.cells[0], Cell::Missing);
        assert_eq!(
            e.cells[1],
            Cell::Number {
                value: 10.0,
                change_pct: None
            }
        );
        assert_eq!(
            c.row("w", Metric::ReadLatMean).unwrap().cells[0],
            Cell::NoData
        );
        assert_eq!(
            c.row("extra", Metric::WriteLatMax).unwrap().cells[1],
            Cell::NoData
        );
        // A zero baseline has no relative change.
        assert_eq!(num(&c, "extra", Metric::WriteIops, 1), (0.0, None));
    }

    #[test]
    fn headers_are_the_run_folders_when_they_differ() {
        let t = "2026-01-01T00:00:00.000Z";
        let p = || vec![phase("mix", 1, 1, None)];
        let mut used = run("runs/used/results.json", "s", t, p());
        used.results.status = Status::Failed;
        let c = compare(&[
            run("runs/fresh/results.json", "s", t, p()),
            run("runs/simulated-used/results.json", "s", t, p()),
            used,
        ]);
        assert_eq!(c.columns, ["fresh", "simulated-used", "used [failed]"]);
    }

    #[test]
    fn headers_fall_back_to_the_file_when_ambiguous() {
        let c = two();
        assert_eq!(
            c.columns,
            [
                "s /dev/x 2026-01-01T00:00:00.000Z",
                "s /dev/x 2026-01-02T00:00:00.000Z"
            ]
        );
        let p = || vec![phase("mix", 1, 1, None)];
        let t = "2026-01-01T00:00:00.000Z";
        let mut x = run("x/results.json", "s", t, p());
        x.results.status = Status::Interrupted;
        let c = compare(&[
            x,
            run("y/results.json", "s", t, p()),
            run("y/results.json", "s", t, p()),
            run("z.json", "other", t, p()),
        ]);
        assert_eq!(
            c.columns,
            [
                "x/results.json [interrupted]",
                "y/results.json #1",
                "y/results.json #2",
                "other /dev/x 2026-01-01T00:00:00.000Z"
            ]
        );
    }

    #[test]
    fn steady_state_row_only_when_present() {
        let mut p1 = phase("ss", 5, 0, Some(lat(1.0, 1, 1, 1)));
        p1.steady_state = Some(steady(true, Some(12.0)));
        let mut p2 = p1.clone();
        p2.steady_state = Some(steady(false, None));
        let p3 = phase("ss", 5, 0, Some(lat(1.0, 1, 1, 1)));
        let t = "2026-01-01T00:00:00.000Z";
        let c = compare(&[
            run("a", "a", t, vec![p1]),
            run("b", "b", t, vec![p2]),
            run("c", "c", t, vec![p3]),
            run("d", "d", t, vec![]),
        ]);
        let r = c.row("ss", Metric::SteadyState).unwrap();
        assert_eq!(
            r.cells,
            [
                Cell::Text("reached at 12.0 s".into()),
                Cell::Text("not reached".into()),
                Cell::NoData,
                Cell::Missing
            ]
        );
        assert!(two().row("mix", Metric::SteadyState).is_none());
    }

    #[test]
    fn erase_phases_are_left_out() {
        let mut e = phase("purge", 0, 0, None);
        e.kind = PhaseKind::Erase;
        let c = compare(&[run("a", "a", "t", vec![e, phase("m", 1, 0, None)])]);
        assert!(c.rows.iter().all(|r| r.phase == "m"));
    }

    #[test]
    fn change_formatting() {
        assert_eq!(format_change(12.345), "+12.3 %");
        assert_eq!(format_change(-4.0), "-4.0 %");
        assert_eq!(format_change(-0.04), "+0.0 %");
        assert_eq!(format_change(0.0), "+0.0 %");
    }

    #[test]
    fn renderers() {
        let c = two();
        let t = render_table(&c);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("phase"));
        assert!(lines[1].starts_with("-----"));
        // Every non-blank line has the same width: aligned columns.
        let w = lines[0].chars().count();
        let row = lines
            .iter()
            .find(|l| l.starts_with("mix    read IOPS"))
            .unwrap();
        assert!(row.ends_with("1100.0 (+10.0 %)"), "{row}");
        assert_eq!(row.chars().count(), w);
        assert!(t.contains("missing"));

        let md = render_markdown(&c);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[1], "|---|---|---:|---:|");
        assert!(lines.contains(&"| mix | write IOPS | 500.0 | 400.0 (-20.0 %) |"));
        assert_eq!(lines.len(), 2 + c.rows.len());

        let csv = render_csv(&c);
        let mut r = csv::Reader::from_reader(csv.as_bytes());
        let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(h.len(), 5);
        assert_eq!(h[4], format!("{} change", c.columns[1]));
        let recs: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(recs.len(), c.rows.len());
        let rec = recs
            .iter()
            .find(|r| &r[0] == "mix" && &r[1] == "write IOPS")
            .unwrap();
        assert_eq!(
            rec.iter().collect::<Vec<_>>(),
            ["mix", "write IOPS", "500.0", "400.0", "-20.0 %"]
        );
    }
}
