//! `wkrun compare`: several runs side by side, one column per run and one row per phase and metric, with
//! each later run's relative change against the first.
//!
//! [`compare`] is a pure function from parsed results to a [`Comparison`]; [`render_table`],
//! [`render_markdown`] and [`render_csv`] turn that into text.
//!
//! Phases are matched by name (names are unique within a run): the first run's phases in its order, then
//! those only later runs have, in the order they first appear. A prediction's phase whose workload differs
//! from a measured namesake's (as the report pairs them: `plan/pairing.rs`) is compared apart, on rows of
//! its own after them, and a line under the table says how they differ. Erase phases, which measure no I/O, are left
//! out. A phase a run lacks shows `missing` in that run's column; a metric without data (the read latency
//! of a run without reads) shows `-`.
//!
//! Each phase leads with its headline figures (`phases[].headline`, matched across runs by key), then the
//! whole-phase metrics. Runs that differ in `--set` overrides, or a phase whose parameters differ between
//! runs, get a row saying how; with two runs or more, the last row is the composite ([`composite`]).

use crate::report::verify_reads::{self, VerifySplit};
use crate::results::headline::{self, Covers, can_lead, is_level};
use crate::results::{
    BUSY_HOST, Better, DirStats, Figure, KeptWaits, PhaseResult, Results, Status,
};
use crate::spec::PhaseKind;
use crate::stats::LatencySummary;
use crate::vocab::Direction;
use std::path::{Path, PathBuf};

/// One run to compare: the file it came from and its results.
#[derive(Debug, Clone)]
pub struct Run {
    /// The results file, as given (used in the column header when runs would otherwise look alike).
    pub file: PathBuf,
    /// Its contents.
    pub results: Results,
}

/// A latency statistic of one direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatStat {
    /// The phase mean.
    Mean,
    /// p50 (the median).
    P50,
    /// p99.
    P99,
    /// p99.9.
    P999,
    /// The largest.
    Max,
}

impl LatStat {
    /// Every statistic, in row order.
    pub const ALL: [LatStat; 5] = [
        LatStat::Mean,
        LatStat::P50,
        LatStat::P99,
        LatStat::P999,
        LatStat::Max,
    ];

    /// The label's words after the direction: `latency p99 (µs)`.
    fn words(self) -> &'static str {
        match self {
            LatStat::Mean => "latency, phase mean (µs)",
            LatStat::P50 => "latency p50 (µs)",
            LatStat::P99 => "latency p99 (µs)",
            LatStat::P999 => "latency p99.9 (µs)",
            LatStat::Max => "latency max (µs)",
        }
    }

    /// The statistic of a summary, ns.
    fn of(self, l: &LatencySummary) -> f64 {
        match self {
            LatStat::Mean => l.mean,
            LatStat::P50 => l.p50 as f64,
            LatStat::P99 => l.p99 as f64,
            LatStat::P999 => l.p99_9 as f64,
            LatStat::Max => l.max as f64,
        }
    }

    /// The statistic of a direction, ns: the mean and max also where it has no percentiles
    /// ([`DirStats::moments`]: fio's clones without json+ bins).
    fn of_dir(self, d: &DirStats) -> Option<f64> {
        match (self, &d.latency_ns, d.moments()) {
            (_, Some(l), _) => Some(self.of(l)),
            (LatStat::Mean, None, Some(m)) => Some(m.mean),
            (LatStat::Max, None, Some(m)) => Some(m.max as f64),
            // Those of fio's percentiles its output gives where it lacks others (attack 21).
            (s, None, _) => {
                let p = d.latency_percentiles_ns?;
                let v = match s {
                    LatStat::P50 => p.p50,
                    LatStat::P99 => p.p99,
                    LatStat::P999 => p.p99_9,
                    LatStat::Mean | LatStat::Max => None,
                };
                v.map(|ns| ns as f64)
            }
        }
    }
}

/// One metric of a phase: a row of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Every direction's IOPS added (read.iops + write.iops + trim.iops: [`PhaseResult::iops`]).
    TotalIops,
    /// One direction's IOPS (`read.iops`).
    Iops(Direction),
    /// total.bw_bytes_per_s.
    Bandwidth,
    /// A latency statistic of one direction, µs.
    Lat(Direction, LatStat),
    /// The mean or the largest latency of every direction together (`total.latency_ns`, or its moments:
    /// fio's mixed job without json+ bins), µs: a mixed cell's op-weighted mean and its largest latency
    /// (case C08). A row only where some run's phase did more than one direction (in the others it says
    /// what that direction's rows say).
    TotalLat(LatStat),
    /// The phase's flushes (`sync.flushes.ops`: fsync or fdatasync calls after every N writes).
    Flushes,
    /// A latency statistic of the flushes (`sync.flushes.latency_ns`), µs: mean, p99 or max.
    FlushLat(LatStat),
    /// A simulated drive's bytes written by the host in the phase (`device.host_write_bytes`), GB.
    HostWrites,
    /// A simulated drive's bytes programmed to flash (NAND) in the phase (`device.flash_write_bytes`), GB.
    FlashWrites,
    /// A simulated drive's write amplification over the phase (`device.write_amplification`).
    WriteAmplification,
    /// The steady-state verdict (a row only when some run's phase has one).
    SteadyState,
    /// A headline figure of the phase (`phases[].headline`), shown with this many decimals; the row's
    /// label names it.
    Headline {
        /// Decimals shown.
        decimals: usize,
    },
    /// The phase's parameters that differ between runs (a row only when some do).
    Parameters,
    /// How an io_uring phase waited for completions after its probe (`host.completion_waits.kept`), a row
    /// only when the runs differ in it.
    CompletionWaits,
    /// The runs' `--set` overrides (a row only when they differ).
    Overrides,
    /// The runs' spec files: name, version and SHA-256 prefix (a row only when the files differ).
    Spec,
    /// The composite score against the first run ([`composite`]).
    Composite,
}

impl Metric {
    /// The whole-phase numeric metrics, in row order (the steady-state verdict follows them): IOPS (every
    /// direction's, trims included), each direction's IOPS, bandwidth, then each direction's latencies
    /// (reads, writes, trims: a direction no run did leaves its rows out), the mean and largest latency of
    /// every direction together (a mixed phase's: [`Metric::TotalLat`]), the flushes (count, mean, p99 and
    /// max latency, as fio's `sync` block; left out where no run flushed), then a simulated drive's writes.
    pub fn numeric() -> Vec<Metric> {
        let dirs = Direction::ALL;
        let mut m = vec![Metric::TotalIops];
        m.extend(dirs.map(Metric::Iops));
        m.push(Metric::Bandwidth);
        for d in dirs {
            m.extend(LatStat::ALL.map(|s| Metric::Lat(d, s)));
        }
        m.extend([LatStat::Mean, LatStat::Max].map(Metric::TotalLat));
        m.push(Metric::Flushes);
        m.extend([LatStat::Mean, LatStat::P99, LatStat::Max].map(Metric::FlushLat));
        m.extend([
            Metric::HostWrites,
            Metric::FlashWrites,
            Metric::WriteAmplification,
        ]);
        m
    }

    /// The row label, with the unit (headline rows carry their own, [`Row::label`]).
    pub fn label(self) -> String {
        match self {
            Metric::TotalIops => TOTAL_IOPS_LABEL.into(),
            Metric::Iops(d) => format!("{d} IOPS, phase mean"),
            Metric::Bandwidth => "bandwidth, phase mean (MB/s)".into(),
            Metric::Lat(d, s) => format!("{d} {}", s.words()),
            Metric::TotalLat(s) => s.words().into(),
            Metric::Flushes => "flushes (fsync/fdatasync calls)".into(),
            Metric::FlushLat(s) => format!("flush {}", s.words()),
            Metric::HostWrites => "host writes, simulated drive (GB)".into(),
            Metric::FlashWrites => "NAND writes, simulated drive (GB)".into(),
            Metric::WriteAmplification => "write amplification, simulated drive".into(),
            Metric::SteadyState => "steady state".into(),
            Metric::Headline { .. } => "headline".into(),
            Metric::Parameters => "parameters that differ".into(),
            Metric::CompletionWaits => "io_uring completion waits".into(),
            Metric::Overrides => "--set overrides".into(),
            Metric::Spec => "spec".into(),
            Metric::Composite => "composite (geometric mean of ratios to the first run)".into(),
        }
    }

    /// Decimals shown for the metric's values.
    fn decimals(self) -> usize {
        match self {
            Metric::TotalIops | Metric::Iops(_) => 1,
            Metric::Flushes => 0,
            Metric::Headline { decimals } => decimals,
            Metric::Composite
            | Metric::WriteAmplification
            | Metric::HostWrites
            | Metric::FlashWrites => 3,
            _ => 2,
        }
    }

    /// The metric's value for a phase; `None` when it has no data (a latency without I/O in that direction)
    /// or is not a whole-phase number.
    pub fn value(self, p: &PhaseResult) -> Option<f64> {
        match self {
            Metric::TotalIops => Some(p.iops()),
            // fio's job reported in its mixed block alone: its directions' I/Os are unknown, not 0.
            Metric::Iops(d) => (!p.split_unknown()).then(|| p.dir(d).iops),
            Metric::Bandwidth => Some(p.total.bw_bytes_per_s / 1e6),
            Metric::Lat(d, s) => s.of_dir(p.dir(d)).map(|ns| ns / 1000.0),
            Metric::TotalLat(s) => s.of_dir(&p.total).map(|ns| ns / 1000.0),
            Metric::Flushes => flushes(p).map(|f| f.ops as f64),
            Metric::FlushLat(s) => flushes(p)?.latency_ns.as_ref().map(|l| s.of(l) / 1000.0),
            Metric::HostWrites => p.device.as_ref().map(|d| d.host_write_bytes as f64 / 1e9),
            Metric::FlashWrites => p.device.as_ref().map(|d| d.flash_write_bytes as f64 / 1e9),
            Metric::WriteAmplification => p.device.as_ref().and_then(|d| d.write_amplification),
            _ => None,
        }
    }

    /// What a whole-phase numeric metric measures, when another row can say the same of a phase ([`same`]):
    /// `None` for the percentiles, which no other row restates.
    fn quantity(self) -> Option<&'static str> {
        match self {
            Metric::TotalIops | Metric::Iops(_) => Some("iops"),
            Metric::Bandwidth => Some("mb_s"),
            Metric::Lat(_, LatStat::Mean) | Metric::TotalLat(LatStat::Mean) => Some("lat_mean"),
            Metric::Lat(_, LatStat::Max) => Some("lat_max"),
            _ => None,
        }
    }

    /// The value as shown.
    pub fn format_value(self, v: f64) -> String {
        format!("{v:.*}", self.decimals())
    }
}

/// Whether phase `p` did I/O in more than one direction (a mixed cell: reads and writes).
fn mixed(p: &PhaseResult) -> bool {
    Direction::ALL.iter().filter(|&&d| p.dir(d).ops > 0).count() > 1
}

/// A phase's flushes (`sync.flushes`), where it made any.
fn flushes(p: &PhaseResult) -> Option<&crate::results::FlushResult> {
    p.sync.as_ref()?.flushes.as_ref()
}

/// Decimals for a headline figure's unit: IOPS 1, MB/s 2, µs 2, s 1, others 3.
pub fn unit_decimals(unit: &str) -> usize {
    match unit {
        "IOPS" | "s" => 1,
        "MB/s" | "µs" => 2,
        _ => 3,
    }
}

/// A headline figure's row label: its label, then its unit in parentheses (unless the unit is IOPS and the
/// label says so).
pub fn figure_label(f: &Figure) -> String {
    if f.unit == "IOPS" && f.label.contains("IOPS") {
        f.label.clone()
    } else {
        format!("{} ({})", f.label, f.unit)
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
    /// A steady-state verdict or the parameters that differ, as text (`reached at 12.0 s`, `not reached`).
    Text(String),
    /// A headline figure whose runs cover unlike rows ([`unlike_rows`]): the value, the rows it covers
    /// (`10..20 s`) and its change against the first run's where its rows are alike the first's
    /// ([`alike_changes`]); or a composite score that rests on fewer workloads than its run has in common
    /// with the first run, and how many (`1 of 3 workloads`, [`Score::over`]).
    Over {
        /// The value, in the metric's unit.
        value: f64,
        /// What it covers: the rows, in seconds, or the workloads scored.
        rows: String,
        /// (value − first) / first × 100, where comparable.
        change_pct: Option<f64>,
    },
    /// The cell of a phase that did not complete but measured I/O (a run interrupted 11 s into a 30 s
    /// phase): its figure, over the part it ran, and why it stopped (`interrupted`), shown after it.
    Cut {
        /// The figure as it would be shown.
        cell: Box<Cell>,
        /// Why the phase stopped: its run's status.
        why: &'static str,
    },
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
            Cell::Over {
                change_pct: Some(c),
                ..
            } => format!("{} ({})", self.plain(metric), format_change(*c)),
            Cell::Cut { cell, why } => format!("{} [{why}]", cell.display(metric)),
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
            Cell::Over { value, rows, .. } => {
                format!("{} over {rows}", metric.format_value(*value))
            }
            Cell::Cut { cell, why } => format!("{} [{why}]", cell.plain(metric)),
        }
    }

    /// The change alone as a plain number of percent with one decimal (`-41.0`), for the CSV; empty when
    /// there is none.
    pub fn change_number(&self) -> String {
        match self {
            Cell::Number {
                change_pct: Some(c),
                ..
            }
            | Cell::Over {
                change_pct: Some(c),
                ..
            } => {
                let r = round1(*c);
                format!("{r:.1}")
            }
            Cell::Cut { cell, .. } => cell.change_number(),
            _ => String::new(),
        }
    }
}

/// `x` rounded to one decimal, without a negative zero.
fn round1(x: f64) -> f64 {
    let r = (x * 10.0).round() / 10.0;
    if r == 0.0 { 0.0 } else { r }
}

/// A relative change in percent, signed, one decimal: `+12.3 %`, `-4.0 %`, `+0.0 %`.
pub fn format_change(pct: f64) -> String {
    format!("{:+.1} %", round1(pct))
}

/// One row: a phase and a metric, one cell per run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The phase name (`(runs)` for the overrides row, `(all phases)` for the composite).
    pub phase: String,
    /// The metric.
    pub metric: Metric,
    /// The row's label as shown: the metric's, or a headline figure's with its unit.
    pub label: String,
    /// One cell per run, in the order of the runs.
    pub cells: Vec<Cell>,
    /// A note on the row, numbered under the table ([`notes`]): figures of unlike rows, figures left out
    /// of the composite.
    pub note: Option<Note>,
}

/// A note on a row of a comparison, said in words by [`Note::text`] with the comparison's columns.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// A headline figure whose runs cover unlike rows ([`headline::unlike`]): what each run's covers
    /// (`None` where it has none), and what its item asks ([`headline::asked`]). Its row has no change.
    Unlike {
        /// What the item asks: `the window`.
        asked: &'static str,
        /// Each run's rows.
        covers: Vec<Option<Covers>>,
    },
    /// The composite's: the workloads each column's score rests on, by its index, when fewer than its run
    /// has in common with the first (`over 1 of 3 workloads: rw2 interrupted, rw3 not run`,
    /// [`Score::rests`]), the lead figures left out for unlike rows, as `LABEL of PHASE`, and the
    /// workloads scored on a figure one of the pair lacks ([`composite_note`]).
    Composite {
        /// Each later column's workloads scored, where some are not.
        rests: Vec<(usize, String)>,
        /// Whether a workload of `rests` is left out for not completing (interrupted, failed, running): only then does
        /// the note say why such a phase is left out.
        partial: bool,
        /// Each later column's lead figures left out for rows unlike the first column's.
        unlike: Vec<(usize, String)>,
        /// Each later column's workloads scored on another lead figure than one of the pair leads with on
        /// its own, which the other's headline figures lack: `rw on IOPS, phase mean (IOPS, steady window
        /// mean, the first run's lead, has no value among this run's headline figures)` ([`pair_lead`]).
        led: Vec<(usize, String)>,
    },
    /// fio's job counts its verify reads, which wkrun measured as a phase of their own
    /// ([`crate::report::verify_reads`]): the rows of both phases have no change, and the job is left out
    /// of the composite.
    VerifyReads(Vec<VerifySplit>),
    /// fio's job whose syncs are not one per N of its writes ([`crate::fio::json::syncs_apart`]): each
    /// column's, by its index, with the phase's warning saying why. Its flush rows have no change.
    Syncs(Vec<(usize, String)>),
    /// fio's job reported in its `mixed` block alone (`unified_rw_reporting=1`,
    /// [`crate::fio::json::split_unknown`]): each column's, by its index, with the phase's warning. Its
    /// direction rows show `-` there.
    Split(Vec<(usize, String)>),
    /// A phase that ended at steady state (fio's job fio stopped there, trial 26 M1) beside one that ran on
    /// (`stopped_apart`): each column's window, by its index. Its whole-phase rows have no change.
    SteadyStop(Vec<(usize, String)>),
}

impl Note {
    /// The note in words, naming the runs by `columns`.
    pub fn text(&self, columns: &[String]) -> String {
        let col = |i: usize| columns.get(i).map_or("?", String::as_str);
        match self {
            Note::Unlike { asked, covers } => {
                let each: Vec<String> = covers
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| Some(format!("{}: {}", col(i), c.as_ref()?.words(asked))))
                    .collect();
                format!(
                    "not compared: {}; a figure is set against the first run's only over the same kind of rows (what it asks in both, else the same rows in both): a figure over other rows has no change and is left out of the composite",
                    each.join("; ")
                )
            }
            Note::Composite {
                rests,
                partial,
                unlike,
                led,
            } => {
                let each = |items: &[(usize, String)]| -> Vec<String> {
                    items
                        .iter()
                        .map(|(i, f)| format!("{}: {f}", col(*i)))
                        .collect()
                };
                let mut said = Vec::new();
                if !rests.is_empty() {
                    let why = match partial {
                        true => {
                            "; a phase that did not complete is left out (its figures cover part of it)"
                        }
                        false => "",
                    };
                    said.push(format!("the composite of {}{why}", each(rests).join("; ")));
                }
                if !unlike.is_empty() {
                    said.push(format!(
                        "left out of the composite, their rows unlike the first column's: {}; such a phase is scored on its next lead figure, else on its IOPS, phase mean",
                        each(unlike).join("; ")
                    ));
                }
                if !led.is_empty() {
                    said.push(format!(
                        "a workload is scored on the first lead figure both runs' headline figures have, else on its IOPS, phase mean: {}",
                        each(led).join("; ")
                    ));
                }
                said.join(". ")
            }
            Note::VerifyReads(splits) => {
                let q = |n: &str| crate::text::escaped(n).into_owned();
                let each: Vec<String> = splits
                    .iter()
                    .map(|v| {
                        format!(
                            "{}'s job \"{}\" counts its verify reads (fio's verify with do_verify) with its writes, where {} measured them apart, as phase \"{}\" after its writes",
                            col(v.fio),
                            q(&v.phase),
                            col(v.ours),
                            q(&v.verify)
                        )
                    })
                    .collect();
                format!(
                    "not compared: {}; so these rows have no change and the job is left out of the composite",
                    each.join("; ")
                )
            }
            Note::Syncs(said) => format!(
                "not compared: {}; these flush rows have no change (the composite never scores flushes)",
                each_said(said, col)
            ),
            Note::Split(said) => format!("unknown, shown -: {}", each_said(said, col)),
            Note::SteadyStop(said) => format!(
                "not compared: {}; a phase stopped at steady state and one that ran on measured different windows, so these whole-phase rows have no change; the steady-state rows set the windows each judged side by side, and the composite scores the pair on its steady window means where both have one, else leaves it out",
                each_said(said, col)
            ),
        }
    }
}

/// Each column's warning of `said`, named by `col`, escaped, joined by `; `.
fn each_said<'a>(said: &[(usize, String)], col: impl Fn(usize) -> &'a str) -> String {
    let each: Vec<String> = said
        .iter()
        .map(|(i, w)| format!("{}: {}", col(*i), crate::text::escaped(w)))
        .collect();
    each.join("; ")
}

/// The notes of `c`'s rows in words, each said once, in order of first appearance (the rows of a
/// window's avg, min, max and stddev share one), and the number of each row's note: `[N]` under the table
/// is the N-th ([`marked_labels`]).
fn noted(c: &Comparison) -> (Vec<String>, Vec<Option<usize>>) {
    let mut said: Vec<String> = Vec::new();
    let numbers = c
        .rows
        .iter()
        .map(|r| {
            let t = r.note.as_ref()?.text(&c.columns);
            Some(note_number(&mut said, t))
        })
        .collect();
    (said, numbers)
}

/// The number of note `t` among the notes `said` so far, 1-based: its own when said already, else the next
/// one, `t` added.
pub fn note_number(said: &mut Vec<String>, t: String) -> usize {
    match said.iter().position(|s| *s == t) {
        Some(k) => k + 1,
        None => {
            said.push(t);
            said.len()
        }
    }
}

/// The notes of `c`'s rows in words, each once: the N-th is `[N]` under the table.
pub fn notes(c: &Comparison) -> Vec<String> {
    noted(c).0
}

/// The labels of `c`'s rows as shown: a noted row's with its note's number, `IOPS, 1400s.., avg [1]`.
pub fn marked_labels(c: &Comparison) -> Vec<String> {
    c.rows
        .iter()
        .zip(noted(c).1)
        .map(|(r, n)| match n {
            Some(n) => format!("{} [{n}]", r.label),
            None => r.label.clone(),
        })
        .collect()
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
    /// The row of `phase` and `metric`, if any (the first, for headline rows: see [`Self::labelled`]).
    pub fn row(&self, phase: &str, metric: Metric) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.phase == phase && r.metric == metric)
    }

    /// The row of `phase` labelled `label`, if any.
    pub fn labelled(&self, phase: &str, label: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.phase == phase && r.label == label)
    }
}

/// Cells of numbers, each after the first with its change against the first (none when the first is
/// missing or 0).
fn number_cells(values: &[Option<Option<f64>>]) -> Vec<Cell> {
    let base = values[0].flatten().filter(|b| *b != 0.0);
    values
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
        .collect()
}

/// The phase names to compare, in order: the first run's, then those only later runs have.
fn phase_names(runs: &[Run]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for run in runs {
        for p in &run.results.phases {
            if compared(p) && seen.insert(p.name.as_str()) {
                names.push(&p.name);
            }
        }
    }
    names
}

/// The first phase of each name in `phases` that `keep` keeps, by name: a lookup in constant time, so a
/// comparison is linear in phases (a search of the list per phase made 100,000 phases take minutes).
fn by_name(
    phases: &[PhaseResult],
    keep: impl Fn(&PhaseResult) -> bool,
) -> std::collections::HashMap<&str, &PhaseResult> {
    let mut map = std::collections::HashMap::with_capacity(phases.len());
    for p in phases.iter().filter(|p| keep(p)) {
        map.entry(p.name.as_str()).or_insert(p);
    }
    map
}

/// Whether `compare` has rows for phase `p`: not an erase (it measures no I/O), nor fio's job on an engine
/// that does no storage I/O ([`crate::fio::json::no_storage_io`]: cpuio, exec, file operations), which [`left_out`] names.
fn compared(p: &PhaseResult) -> bool {
    p.kind != PhaseKind::Erase && crate::fio::json::no_storage_io(p).is_none()
}

/// A line for each phase `compare` leaves out for doing no storage I/O (fio's cpuio job,
/// [`crate::fio::json::no_storage_io`]): its column's heading, the phase and why (trial 21 A1: fio's
/// cpuio job was refused as "more I/Os than its io_bytes").
fn left_out(runs: &[Run]) -> impl Iterator<Item = String> {
    runs.iter().zip(headers(runs)).flat_map(|(r, h)| {
        (r.results.phases.iter())
            .filter_map(|p| Some((p, crate::fio::json::no_storage_io(p)?)))
            .map(|(p, why)| {
                format!(
                    "{h}: job \"{}\" left out: {why}",
                    crate::text::escaped(&p.name)
                )
            })
            .collect::<Vec<_>>()
    })
}

/// Why `runs` cannot be compared when a run has phases but none that `compare` shows: each of them fio's job
/// that did no storage I/O ([`crate::fio::json::no_storage_io`]), named with the reason; `None` otherwise.
pub fn nothing_to_compare(runs: &[Run]) -> Option<String> {
    runs.iter().find_map(|r| {
        let ps = &r.results.phases;
        let why: Vec<String> = ps
            .iter()
            .filter_map(|p| {
                let w = crate::fio::json::no_storage_io(p)?;
                Some(format!("job \"{}\": {w}", crate::text::escaped(&p.name)))
            })
            .collect();
        (!ps.is_empty() && why.len() == ps.len()).then(|| {
            format!(
                "{}: nothing to compare: {}",
                crate::text::escaped(&r.file.display().to_string()),
                why.join("; ")
            )
        })
    })
}

/// Compares `runs`, the first being the baseline.
pub fn compare(runs: &[Run]) -> Comparison {
    let columns = headers(runs);
    let mut rows: Vec<Row> = [spec_row(runs), overrides_row(runs)]
        .into_iter()
        .flatten()
        .collect();
    let mut named: Vec<_> = runs
        .iter()
        .map(|r| by_name(&r.results.phases, compared))
        .collect();
    // A prediction's phase of another workload than its measured namesake's: on rows of its own.
    let apart = apart(runs);
    for a in &apart {
        named[a.run].remove(a.name);
    }
    let foreign: Vec<bool> = runs.iter().map(|r| r.results.source.is_some()).collect();
    let why: Vec<&'static str> = runs.iter().map(|r| stopped_by(r.results.status)).collect();
    let results: Vec<&Results> = runs.iter().map(|r| &r.results).collect();
    let splits = verify_reads::splits(&results);
    for name in phase_names(runs) {
        let phases: Vec<Option<&PhaseResult>> =
            named.iter().map(|m| m.get(name).copied()).collect();
        let from = rows.len();
        phase_rows(name, &phases, &foreign, &mut rows);
        mark_unfinished(&phases, &why, &mut rows[from..]);
        taken_as_done(runs, name, &mut rows[from..]);
        split_rows(name, &splits, &mut rows[from..]);
        sync_rows(&phases, &mut rows[from..]);
        unknown_split_rows(&phases, &mut rows[from..]);
        steady_stop_rows(&phases, &mut rows[from..]);
        if apart.iter().any(|a| a.name == name) {
            let phases: Vec<Option<&PhaseResult>> = (0..runs.len())
                .map(|i| apart.iter().find(|a| a.run == i && a.name == name))
                .map(|a| a.map(|a| a.phase))
                .collect();
            let from = rows.len();
            phase_rows(&apart_name(name), &phases, &foreign, &mut rows);
            mark_unfinished(&phases, &why, &mut rows[from..]);
        }
    }
    if runs.len() > 1 {
        let ran = runs.iter().map(|r| (&r.results, r.file.as_path()));
        let stopped = super::not_run::stopped_in_names(ran);
        let scores = scores(&results, &stopped);
        let mut row = composite_row(&scores, Metric::Composite.label());
        row.note = composite_note(&results, &scores);
        rows.push(row);
    }
    Comparison { columns, rows }
}

/// Why a run's phases that did not complete stopped, after its status: `interrupted`, `failed`, `running`
/// (a run still going), `not completed` (a completed run's phase that did not: none is written so).
fn stopped_by(status: Status) -> &'static str {
    match status {
        Status::Interrupted => "interrupted",
        Status::Failed => "failed",
        Status::Running => "running",
        Status::Completed => "not completed",
    }
}

/// Whether phase `p` measured nothing ([`PhaseResult::unmeasured`]): it has no figures, not figures of 0,
/// so it is not compared.
pub fn unmeasured(p: &PhaseResult) -> bool {
    p.unmeasured()
}

/// Marks the cells of the phases (`phases`, one per run) that did not complete in their `rows`, but for the
/// parameters they ran with: `not measured` for one that measured nothing ([`unmeasured`]), else each
/// figure with why its run stopped (`why`, per run: [`Cell::Cut`]).
fn mark_unfinished(phases: &[Option<&PhaseResult>], why: &[&'static str], rows: &mut [Row]) {
    let kept = |r: &&mut Row| !matches!(r.metric, Metric::Parameters | Metric::CompletionWaits);
    for r in rows.iter_mut().filter(kept) {
        for ((c, p), why) in r.cells.iter_mut().zip(phases).zip(why) {
            match p.filter(|p| !p.completed) {
                Some(p) if unmeasured(p) => *c = Cell::Text("not measured".into()),
                Some(_) if *c != Cell::NoData => {
                    let cell = Box::new(std::mem::replace(c, Cell::NoData));
                    *c = Cell::Cut { cell, why };
                }
                _ => {}
            }
        }
    }
}

/// The rows of phase `name` when it is a fio job that counts its verify reads beside wkrun's writing
/// phase, or wkrun's verify phase after it ([`verify_reads::splits`]): each with the note, and no change
/// in the column set against the first run's.
fn split_rows(name: &str, splits: &[VerifySplit], rows: &mut [Row]) {
    let mine: Vec<VerifySplit> = splits
        .iter()
        .filter(|v| v.phase == name || v.verify == name)
        .cloned()
        .collect();
    if mine.is_empty() {
        return;
    }
    for r in rows {
        for v in &mine {
            let col = v.fio.max(v.ours);
            if let Some(Cell::Number { change_pct, .. } | Cell::Over { change_pct, .. }) =
                r.cells.get_mut(col)
            {
                *change_pct = None;
            }
        }
        r.note = Some(Note::VerifyReads(mine.clone()));
    }
}

/// Each run's (by its index) warning that `which` finds in its phase of `phases`, where it has one.
fn warned(
    phases: &[Option<&PhaseResult>],
    which: fn(&PhaseResult) -> Option<&str>,
) -> Vec<(usize, String)> {
    phases
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, which((*p)?)?.to_string())))
        .collect()
}

/// The flush rows of a phase when one of its runs is fio's job whose syncs are not one per N writes
/// ([`crate::fio::json::syncs_apart`]: fio syncs again before each I/O while its write count stays a
/// multiple of N): each with the note, and no change in any column (trial 21 T1: fio's 1037 syncs for 6512
/// writes beside wkrun's 294 for 4714 read as -71.6 %).
fn sync_rows(phases: &[Option<&PhaseResult>], rows: &mut [Row]) {
    let said = warned(phases, crate::fio::json::syncs_apart);
    if said.is_empty() {
        return;
    }
    let flush = |m: Metric| matches!(m, Metric::Flushes | Metric::FlushLat(_));
    for r in rows.iter_mut().filter(|r| flush(r.metric)) {
        r.cells.iter_mut().for_each(unchanged);
        r.note = Some(Note::Syncs(said.clone()));
    }
}

/// The direction rows (each direction's IOPS and latency) of a phase when one of its runs is fio's job
/// reported in its `mixed` block alone ([`crate::fio::json::split_unknown`]: `unified_rw_reporting=1`),
/// whose cells there are `-`: each with the note saying why (attack 22 F4: such a job read as 0 IOPS with
/// no word).
fn unknown_split_rows(phases: &[Option<&PhaseResult>], rows: &mut [Row]) {
    let said = warned(phases, crate::fio::json::split_unknown);
    if said.is_empty() {
        return;
    }
    let direction = |m: Metric| matches!(m, Metric::Iops(_) | Metric::Lat(..));
    for r in rows.iter_mut().filter(|r| direction(r.metric)) {
        r.note = Some(Note::Split(said.clone()));
    }
}

/// Whether phase `p` ended at steady state: fio's job that fio stopped there, a wkrun phase with `until =
/// "steady"`.
fn ended_steady(p: &PhaseResult) -> bool {
    p.steady_state.as_ref().is_some_and(|s| s.ended_phase)
}

/// Whether of two twins one ended at steady state and the other ran on (trial 26 M1: fio's job stopped
/// at steady state after 5.6 s of its 20 s beside wkrun's phase of 20 s): their whole-phase figures cover
/// different windows. The one definition for the rows' note ([`steady_stop_rows`]) and the composite.
fn stopped_apart(a: &PhaseResult, b: &PhaseResult) -> bool {
    ended_steady(a) != ended_steady(b)
}

/// The steady window means of `base` and its twin `p` as their lead figure, when both have one of the same
/// metric ([`headline::is_steady_mean`], by its key), positive: what a pair [`stopped_apart`] is set side
/// by side on ([`pair_lead`]).
fn steady_lead(base: &PhaseResult, p: &PhaseResult) -> Option<Lead> {
    let f = (base.headline.iter()).find(|f| headline::is_steady_mean(&f.key))?;
    let (b, better) = leading(f)?;
    let (v, _) = (p.headline.iter())
        .find(|g| g.key == f.key)
        .and_then(leading)?;
    Some(Lead {
        key: f.key.clone(),
        label: f.label.clone(),
        unit: f.unit.clone(),
        better,
        values: (b, v),
    })
}

/// The rows of a phase (`phases`, one per run) where one run's ended at steady state and another's ran on
/// ([`stopped_apart`]): every row but its parameters and steady-state rows with no change and the note
/// saying each run's window (trial 26 M1: fio's 16580 IOPS over 5.6 s beside wkrun's 8259.2 over 20 s read
/// as -50.2 %, with no word).
fn steady_stop_rows(phases: &[Option<&PhaseResult>], rows: &mut [Row]) {
    let present: Vec<&PhaseResult> = phases.iter().flatten().copied().collect();
    let apart = present
        .iter()
        .any(|a| present.iter().any(|b| stopped_apart(a, b)));
    if !apart {
        return;
    }
    let said: Vec<(usize, String)> = phases
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let p = (*p)?;
            let at = p.steady_state.as_ref().and_then(|s| s.at_s);
            Some(match (ended_steady(p), at) {
                (true, Some(at)) => (i, format!("ended at steady state at {at:.1} s")),
                _ => (i, format!("ran its whole {:.1} s", p.duration_s)),
            })
        })
        .collect();
    let steady: Vec<String> = present
        .iter()
        .flat_map(|p| headline::figures(&[crate::stats::derived::Headline::Steady], p))
        .map(|f| f.label)
        .collect();
    let whole = |r: &Row| {
        !matches!(
            r.metric,
            Metric::Parameters | Metric::CompletionWaits | Metric::SteadyState
        ) && !steady.iter().any(|l| r.label.starts_with(l.as_str()))
    };
    for r in rows.iter_mut().filter(|r| whole(r) && r.note.is_none()) {
        r.cells.iter_mut().for_each(unchanged);
        r.note = Some(Note::SteadyStop(said.clone()));
    }
}

/// A cell without its change against the first run (a cut phase's figure too).
fn unchanged(c: &mut Cell) {
    match c {
        Cell::Number { change_pct, .. } | Cell::Over { change_pct, .. } => *change_pct = None,
        Cell::Cut { cell, .. } => unchanged(cell),
        _ => {}
    }
}

/// A prediction's phase compared apart from its measured namesake ([`apart`]).
struct Apart<'a> {
    /// The prediction's index among the runs.
    run: usize,
    /// The phase's name.
    name: &'a str,
    /// The prediction's phase.
    phase: &'a PhaseResult,
    /// The measured run whose namesake has another workload, and how they differ: each parameter with its
    /// value in the prediction's phase and in the measured one.
    measured: (usize, Vec<(String, String, String)>),
}

/// The phases of predictions (results with `prediction`) that are not compared with their namesakes in
/// the measured runs: those whose workload differs from that of the measured phase they predict ([`predicts`])
/// ([`PhaseResult::workload_diffs`]: span, block sizes, read share, pattern, queue depth, workers and the
/// rest; the duration may differ), as the report pairs a prediction with a measurement. By name alone, a
/// prediction of 64 KiB writes stood beside a measurement of 4 KiB ones as its prediction (review M7). The
/// runs read from another tool's output, which lack parameters, are left out.
fn apart(runs: &[Run]) -> Vec<Apart<'_>> {
    let measured = |j: usize| {
        let r = &runs[j].results;
        r.prediction.is_none() && r.source.is_none()
    };
    let mut out = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if r.results.prediction.is_none() {
            continue;
        }
        let ours = r
            .results
            .phases
            .iter()
            .filter(|p| p.kind != PhaseKind::Erase);
        for p in ours {
            let differs = (0..runs.len()).filter(|&j| measured(j)).find_map(|j| {
                let theirs = runs[j].results.phases.iter().find(|m| predicts(p, m))?;
                let diffs = p.workload_diffs(theirs);
                (!diffs.is_empty()).then_some((j, diffs))
            });
            if let Some(m) = differs {
                out.push(Apart {
                    run: i,
                    name: &p.name,
                    phase: p,
                    measured: m,
                });
            }
        }
    }
    out
}

/// Whether a prediction's phase `p` is the prediction of the measured phase `m`: the one definition of
/// the predicted phase of a measured phase, for the rows ([`apart`]) and the composite (`apart_pair`)
/// alike. Of the same name and the same labels (sweep and matrix values): `compare --by` renames each
/// member's phases to their name without the label compared by ([`super::members::pair_name`]), so a
/// name alone paired a member's prediction with another member's measurement (trial 25 F3: every predicted
/// phase of `compare TRUTH PREDICTED --by op` was on rows of its own, "predicted for another workload").
fn predicts(p: &PhaseResult, m: &PhaseResult) -> bool {
    p.name == m.name && p.labels == m.labels
}

/// Whether phase `pa` of run `a` and its namesake `pb` of run `b` are a prediction's and a measurement's
/// (neither read from another tool's output), the one the other's ([`predicts`]), of different workloads,
/// which [`compare`] does not pair ([`apart`]). A prediction's phase beside another member's measurement
/// (`compare --by`) is compared as the measured members are: their workloads differ by design.
fn apart_pair((a, pa): (&Results, &PhaseResult), (b, pb): (&Results, &PhaseResult)) -> bool {
    a.prediction.is_some() != b.prediction.is_some()
        && a.source.is_none()
        && b.source.is_none()
        && predicts(pa, pb)
        && !pa.workload_diffs(pb).is_empty()
}

/// The phase of the rows of a prediction's phase `name` compared apart ([`apart`]).
fn apart_name(name: &str) -> String {
    format!("{name} (predicted, another workload)")
}

/// A line for each prediction's phase compared apart ([`apart`]): its column's heading, the measured run's
/// and how their workloads differ.
fn apart_lines(runs: &[Run]) -> Vec<String> {
    let h = headers(runs);
    let q = |n: &str| crate::text::escaped(n).into_owned();
    apart(runs)
        .into_iter()
        .map(|a| {
            let (j, diffs) = &a.measured;
            let (ours, theirs): (Vec<String>, Vec<String>) = diffs
                .iter()
                .map(|(k, x, y)| (format!("{k} {}", q(x)), format!("{k} {}", q(y))))
                .unzip();
            format!(
                "{}: phase \"{}\" is not compared with {}'s: its workload has {}, the measurement's {} (only the duration may differ); its rows are \"{}\"",
                h[a.run],
                q(a.name),
                h[*j],
                ours.join(", "),
                theirs.join(", "),
                q(&apart_name(a.name))
            )
        })
        .collect()
}

/// What a reader must know before reading the comparison: when `c` gives a composite score against its
/// first column, [`host_notes`] of its runs, named by their column headers. Said above the table (trial 13
/// F13: under 60 rows, read after the composite).
pub fn host_caveats(runs: &[Run], c: &Comparison) -> Vec<String> {
    let scored = c
        .rows
        .iter()
        .filter(|r| r.metric == Metric::Composite)
        .any(|r| {
            r.cells
                .iter()
                .skip(1)
                .any(|x| matches!(x, Cell::Number { .. }))
        });
    if !scored {
        return Vec::new();
    }
    let results: Vec<&Results> = runs.iter().map(|r| &r.results).collect();
    host_notes(&results, &headers(runs))
}

/// The runs among `runs` whose numbers describe the host rather than a drive (`not_a_drive`: a file, a
/// loop device without direct I/O, buffered workloads, a busy host), those of one reason on one line,
/// named by `names` (one per run): on a file, the fresh against used comparison is noise. `wkrun compare`
/// says them above its table ([`host_caveats`]), the report above its tables of changes.
pub fn host_notes(runs: &[&Results], names: &[String]) -> Vec<String> {
    // Each reason (with the target it names) and the names of its runs, in the order of the runs.
    let mut host: Vec<(HostNumbers, Vec<String>)> = Vec::new();
    for (r, h) in runs.iter().zip(names) {
        let Some(why) = not_a_drive(r) else {
            continue;
        };
        match host.iter_mut().find(|(w, _)| *w == why) {
            Some((_, named)) => named.push(h.clone()),
            None => host.push((why, vec![h.clone()])),
        }
    }
    host.into_iter()
        .map(|((what, path, detail), named)| {
            // The target after the reason, unless the one run's name is its path.
            let path = path
                .filter(|p| named != [p.clone()])
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            format!(
                "{}: {what}{path}: {detail}, so the changes and the composite may be noise, differing from run to run",
                named.join(", ")
            )
        })
        .collect()
}

/// What a reader must know to read the comparison, one line per run that needs one, named by its column
/// header, said under the table: which of fio's latencies a run read from fio's JSON gives
/// ([`crate::fio::json::latency_caveat`]); for each prediction whose fit warned, its first warning
/// (`prediction.fit_warnings`); each phase left out for doing no storage I/O (`left_out`: fio's cpuio
/// job); for each phase of a prediction compared apart from its measured namesake, whose workload differs,
/// how (`apart`); each phase of fio's report of a group of unlike jobs, whose parameters are unknown
/// (`unlike_groups`); the phases of each run that ran buffered I/O, and what the page cache made of them
/// (`cached`); each run's latency-target searches, their answers and the steps they skipped (`searches`).
///
/// And, once for all, the runs whose phases are in no other run (`unpaired`): their columns stand
/// beside the others' `missing` only.
pub fn caveats(runs: &[Run]) -> Vec<String> {
    runs.iter()
        .zip(headers(runs))
        .filter_map(|(r, h)| {
            crate::fio::json::latency_caveat(&r.results).map(|c| format!("{h}: {c}"))
        })
        .chain(fit_warned(runs))
        .chain(left_out(runs))
        .chain(apart_lines(runs))
        .chain(ran_apart(runs))
        .chain(no_io_phase(runs))
        .chain(unlike_groups(runs))
        .chain(cached(runs))
        .chain(searches(runs))
        .chain(unpaired(runs))
        .collect()
}

/// A line for each latency-target search of each run (trial 26 L1: neither `compare` nor `compare --by qd`
/// gave the answer the search is for): its column's heading, the search and what it found, ran and skipped
/// ([`crate::results::search::summary`]).
fn searches(runs: &[Run]) -> impl Iterator<Item = String> {
    runs.iter().zip(headers(runs)).flat_map(|(r, h)| {
        let planned = r.results.planned_phases.as_deref();
        let latency = |l: u64| crate::units::latency(l as f64);
        (r.results.latency_searches.iter())
            .map(|s| {
                format!(
                    "{h}: search \"{}\": {}",
                    crate::text::escaped(&s.name),
                    crate::results::search::summary(s, planned, &latency)
                )
            })
            .collect::<Vec<_>>()
    })
}

/// A line for each phase read from fio's report of a group of unlike jobs ([`crate::fio::json::unlike_group`]):
/// its column's heading, the phase and the warning, which says which parameters are unknown (attack 25: such
/// a group read as the last job's 4096 B blocks on psync, beside its 64 KiB reads at iodepth 32).
fn unlike_groups(runs: &[Run]) -> impl Iterator<Item = String> {
    runs.iter().zip(headers(runs)).flat_map(|(r, h)| {
        (r.results.phases.iter()).filter_map(move |p| {
            let w = crate::fio::json::unlike_group(p)?;
            let name = crate::text::escaped(&p.name);
            Some(format!(
                "{h}: phase \"{name}\": {}",
                crate::text::escaped(w)
            ))
        })
    })
}

/// A line for each run whose phases ran buffered I/O, those of one text together (trial 24 F2: fio's
/// buffered job beside its import compared at +1086 % with no word of the page cache): its column's heading,
/// the phases and what the cache made of their numbers: for a wkrun phase, the start of its caution
/// ([`crate::plan::buffered`]) and what wkrun does not do before it that fio does by default
/// ([`crate::plan::KEEPS_CACHED`]); for fio's job, its warning ([`crate::fio::json::buffered_job`]), which
/// says whether fio dropped the file's cached pages before it.
fn cached(runs: &[Run]) -> impl Iterator<Item = String> {
    use crate::plan::{BUFFERED, KEEPS_CACHED, PAGE_CACHE_SETS};
    let kept = format!(
        "{BUFFERED}: {PAGE_CACHE_SETS}; {KEEPS_CACHED} (fio's invalidate=1, its default, drops them), so pages cached before it (by the file's layout or an earlier phase) are answered from memory"
    );
    let said = move |w: &String| match crate::plan::buffered(w) {
        true => Some(kept.clone()),
        false => crate::fio::json::buffered_job(w).then(|| crate::text::escaped(w).into_owned()),
    };
    runs.iter().zip(headers(runs)).flat_map(move |(r, h)| {
        let mut texts: Vec<(String, Vec<String>)> = Vec::new();
        for p in r.results.phases.iter().filter(|p| compared(p)) {
            let Some(t) = p.warnings.iter().find_map(&said) else {
                continue;
            };
            let name = format!("\"{}\"", crate::text::escaped(&p.name));
            match texts.iter_mut().find(|(said, _)| *said == t) {
                Some((_, names)) => names.push(name),
                None => texts.push((t, vec![name])),
            }
        }
        let lines = texts.into_iter().map(|(t, names)| {
            let s = if names.len() == 1 { "" } else { "s" };
            format!("{h}: phase{s} {}: {t}", names.join(", "))
        });
        lines.collect::<Vec<_>>()
    })
}

/// A line for each run that completed no I/O phase (trial 23 X3: a run interrupted in its first erase was
/// an empty table): its column's heading and where the run ended, `interrupted by SIGINT after phase 0
/// "purge" (erase)`. fio's runs of jobs that did no storage I/O are said by [`left_out`].
fn no_io_phase(runs: &[Run]) -> impl Iterator<Item = String> {
    runs.iter().zip(headers(runs)).filter_map(|(r, h)| {
        let res = &r.results;
        let foreign = res.source.is_some() && !res.phases.is_empty();
        if foreign || res.phases.iter().any(|p| compared(p) && p.completed) {
            return None;
        }
        let q = |n: &str| crate::text::escaped(n).into_owned();
        let kind = |p: &PhaseResult| {
            serde_json::to_value(p.kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        };
        let place = match res.phases.last() {
            None => "before its first phase ended".to_string(),
            Some(p) => format!(
                "{} phase {} \"{}\" ({})",
                if p.completed { "after" } else { "in" },
                p.index,
                q(&p.name),
                kind(p)
            ),
        };
        let how = match res.status {
            Status::Interrupted => match &res.signal {
                Some(s) => format!("the run was interrupted by {} {place}", q(s)),
                None => format!("the run was interrupted {place}"),
            },
            // Its results hold no phase, but a phase may have ended: one whose results could not be
            // written (attack 26 F7: the output filesystem full after rw1 completed). Its error says which.
            Status::Failed => match (&res.error, res.phases.is_empty()) {
                (Some(e), true) => {
                    format!("the run failed and its results hold no phase: {}", q(e))
                }
                _ => format!("the run failed {place}"),
            },
            Status::Running => format!("the run is still running, or was killed, {place}"),
            Status::Completed => return Some(format!("{h}: no I/O phase: the run ran none")),
        };
        Some(format!("{h}: no I/O phase completed: {how}"))
    })
}

/// The cells of phase `name` in the runs that started past it with `--from` (trial 23 X3: they showed
/// `missing`): those whose results record it as taken as done ([`Results::took_as_done`]), `taken as done
/// (--from)`. Results without the record (older ones) keep `missing`.
fn taken_as_done(runs: &[Run], name: &str, rows: &mut [Row]) {
    let done: Vec<bool> = runs.iter().map(|r| r.results.took_as_done(name)).collect();
    for r in rows.iter_mut() {
        for (c, d) in r.cells.iter_mut().zip(&done) {
            if *d && *c == Cell::Missing {
                *c = Cell::Text(TAKEN_AS_DONE.into());
            }
        }
    }
}

/// The cell of a phase a run started with `--from` past it took as done (its `from_phase.taken_as_done`).
pub const TAKEN_AS_DONE: &str = "taken as done (--from)";

/// A line for each merged phase that some of its parts measured nothing in, and for each whose hosts did
/// not run it at the same time: its column's heading, the phase and the merge's warning, which says what
/// its figures cover (attack 21 A5: a merge of two hosts, one interrupted during its ramp, compared at
/// +0.0 % with the other alone, with no word) or why its rates are below the hosts' together (trial 20: a
/// merge of two runs made 6.8 s apart compared at -46.9 % with no word).
fn ran_apart(runs: &[Run]) -> impl Iterator<Item = String> {
    use super::merge::{APART_WARNING, Unit};
    let said = [
        Unit::Host.unmeasured(),
        Unit::Target.unmeasured(),
        APART_WARNING,
    ];
    runs.iter().zip(headers(runs)).flat_map(move |(r, h)| {
        let phases = r.results.phases.iter();
        let warned = phases.flat_map(|p| {
            let w = p.warnings.iter();
            w.filter(|w| said.iter().any(|s| w.starts_with(s)))
                .map(move |w| (p, w))
        });
        warned
            .map(|(p, w)| {
                format!(
                    "{h}: phase \"{}\": {}",
                    crate::text::escaped(&p.name),
                    crate::text::escaped(w)
                )
            })
            .collect::<Vec<_>>()
    })
}

/// A line for each prediction whose fit warned (`prediction.fit_warnings`): its column's heading, how many
/// warnings, and the first (trial 40: a prediction 5 to 28 % off kept no trace of its fit's "off by tens
/// of %").
fn fit_warned(runs: &[Run]) -> impl Iterator<Item = String> {
    runs.iter().zip(headers(runs)).filter_map(|(r, h)| {
        let w = &r.results.prediction.as_ref()?.fit_warnings;
        let first = w.first()?;
        let more = match w.len() {
            1 => String::new(),
            n => format!(
                " (and {} more: results.json, prediction.fit_warnings)",
                n - 1
            ),
        };
        Some(format!(
            "{h}: a prediction whose fit warned: {}{more}",
            crate::text::escaped(first)
        ))
    })
}

/// Why a run's numbers describe the host rather than a drive: where it ran, the target to name with it, and
/// what its numbers describe.
type HostNumbers = (String, Option<String>, &'static str);

/// Why the numbers of `r` describe the host rather than a drive ([`HostNumbers`]): its target is a file (the
/// file system and the page cache under it answer; on a file system in memory, RAM, in the words of the
/// run's own caution: [`crate::plan::in_memory`]), lies on a loop device without direct I/O, or a
/// workload ran with `direct = false`, or a block device's run was warned of a busy host; `None` for a
/// drive's own numbers (a block device read directly on a quiet host, the simulated drive) and for
/// workloads that all ran on the `null` engine (no I/O: they describe wkrun).
fn not_a_drive(r: &Results) -> Option<HostNumbers> {
    use crate::target::TargetKind;
    use crate::vocab::EngineKind;
    let t = &r.target;
    let workloads = || r.phases.iter().filter(|p| p.kind == PhaseKind::Workload);
    if !workloads().any(|p| p.params.engine != Some(EngineKind::Null)) {
        return None;
    }
    let shown =
        |p: &std::path::Path| Some(crate::text::escaped(&p.display().to_string()).into_owned());
    let cache = "the numbers describe the host's page cache as much as a drive";
    // A file on a file system in memory, as the run's caution says (the target's file system is not kept).
    let in_memory = || {
        let said = workloads().flat_map(|p| p.warnings.iter());
        said.filter_map(|w| crate::plan::in_memory(w)).next()
    };
    let busy = || {
        let warned = |p: &&PhaseResult| p.warnings.iter().any(|w| w.starts_with(BUSY_HOST));
        workloads().any(|p| warned(&p)).then_some((
            "on a busy host".into(),
            None,
            "a submitting thread waited for a CPU (its phases' warnings say how long: wkrun warnings), so the rates are the host's as much as the device's",
        ))
    };
    match (&t.page_cached_loop, t.kind) {
        (_, TargetKind::Sim) => None,
        (Some(l), _) => Some((
            "on a loop device without direct I/O".into(),
            shown(&l.device),
            cache,
        )),
        (None, TargetKind::File) => Some(match in_memory() {
            Some(fs) => (
                format!("on {fs}, {}", crate::plan::IN_MEMORY),
                shown(&t.path),
                crate::plan::DESCRIBES_RAM,
            ),
            None => (
                "on a file".into(),
                shown(&t.path),
                "the numbers describe the file and the file system and page cache under it, not an SSD",
            ),
        }),
        (None, TargetKind::Block) if t.file_backed_loop.is_some() => Some((
            "on a loop device over a file".into(),
            t.file_backed_loop
                .as_ref()
                .and_then(|l| shown(&l.backing_file)),
            "the numbers describe the file and the file system and storage under it, not an SSD",
        )),
        (None, TargetKind::Block) if workloads().any(|p| p.params.direct == Some(false)) => {
            Some(("with workloads of direct = false".into(), None, cache))
        }
        // A device read directly, whose numbers a busy host still shaped (trial 14: two runs on a loop
        // device 35.7 % apart on a loaded machine, with no word).
        (None, TargetKind::Block) => busy(),
    }
}

/// A line naming the runs (by column header) that share no compared phase name with any other run, when
/// there are two runs or more and such a run: phases are paired by name, so a fio job named otherwise
/// than the wkrun phase it was run beside pairs with nothing (found by the newcomer trial: fio's
/// `--name=randread` beside a phase `rand-read` gave a table of `missing` and no word why).
fn unpaired(runs: &[Run]) -> Option<String> {
    let names: Vec<Vec<&str>> = runs
        .iter()
        .map(|r| {
            let phases = r.results.phases.iter();
            phases
                .filter(|p| compared(p))
                .map(|p| p.name.as_str())
                .collect()
        })
        .collect();
    let alone: Vec<String> = headers(runs)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| {
            let others = names.iter().enumerate().filter(|(j, _)| j != i);
            // A run with no phase to compare is said by [`no_io_phase`].
            runs.len() > 1
                && !names[*i].is_empty()
                && !others.flat_map(|(_, n)| n).any(|n| names[*i].contains(n))
        })
        .map(|(_, h)| h)
        .collect();
    (!alone.is_empty()).then(|| {
        format!(
            "no phase of {} is in another run: compare pairs phases by name (fio's by its job's name: fio --name=PHASE)",
            alone.join(", ")
        )
    })
}

/// The composite row (phase `(all phases)`) of `scores` ([`scores`]), labelled `label`: each score with its
/// change (score − 1) × 100, none for the first column; a later column's score that rests on fewer
/// workloads than its run has in common with the first (`twin`) says over how many (`0.974 over 1 of 3
/// workloads`).
pub fn composite_row(scores: &[Score], label: String) -> Row {
    Row {
        note: None,
        phase: "(all phases)".into(),
        metric: Metric::Composite,
        label,
        cells: scores
            .iter()
            .enumerate()
            .map(|(i, s)| match s.value {
                None => Cell::NoData,
                Some(ratio) => {
                    let change_pct = (i > 0).then_some((ratio - 1.0) * 100.0);
                    match (i > 0 && !s.left.is_empty()).then(|| s.over()) {
                        Some(rows) => Cell::Over {
                            value: ratio,
                            rows,
                            change_pct,
                        },
                        None => Cell::Number {
                            value: ratio,
                            change_pct,
                        },
                    }
                }
            })
            .collect(),
    }
}

/// A phase's rows: parameters that differ, headline figures, whole-phase metrics, the steady verdict.
/// `foreign[i]`: run i was read from another tool's output (fio's JSON), whose phases lack parameters that
/// tool does not give.
fn phase_rows(name: &str, phases: &[Option<&PhaseResult>], foreign: &[bool], rows: &mut Vec<Row>) {
    let first = rows.len();
    let row = |metric: Metric, label: String, cells: Vec<Cell>| Row {
        note: None,
        phase: name.to_string(),
        metric,
        label,
        cells,
    };
    if let Some(cells) = differing_params(phases, foreign) {
        rows.push(row(Metric::Parameters, Metric::Parameters.label(), cells));
    }
    if let Some(cells) = differing_waits(phases) {
        rows.push(row(
            Metric::CompletionWaits,
            Metric::CompletionWaits.label(),
            cells,
        ));
    }
    // The quantity ([`Metric::quantity`]) and cells of each row so far that another may restate, with the
    // index in `rows` of a headline row.
    let mut shown: Vec<(&str, Vec<Cell>, Option<usize>)> = Vec::new();
    // Headline rows a whole-phase row says in full.
    let mut restated: Vec<usize> = Vec::new();
    let mut keys: Vec<&Figure> = Vec::new();
    for p in phases.iter().flatten() {
        for f in &p.headline {
            if !keys.iter().any(|k| k.key == f.key) {
                keys.push(f);
            }
        }
    }
    for k in keys {
        let values: Vec<Option<Option<f64>>> = phases
            .iter()
            .map(|p| {
                p.map(|p| {
                    p.headline
                        .iter()
                        .find(|f| f.key == k.key)
                        .and_then(|f| f.value)
                })
            })
            .collect();
        let metric = Metric::Headline {
            decimals: unit_decimals(&k.unit),
        };
        if let Some(covers) = unlike_rows(phases, &k.key) {
            let (label, cells, note) = unlike_row(k, metric, &values, covers);
            let mut r = row(metric, label, cells);
            r.note = Some(note);
            rows.push(r);
            continue;
        }
        let mut cells = number_cells(&values);
        // A time that is a fact, not a score (when the worst interval ended, when the span was written
        // once): no change against the first run.
        if k.better.is_none() {
            for c in &mut cells {
                if let Cell::Number { change_pct, .. } = c {
                    *change_pct = None;
                }
            }
        }
        if let Some(q) = same(&k.key) {
            shown.push((q, cells.clone(), Some(rows.len())));
        }
        rows.push(row(metric, figure_label(k), cells));
    }
    for metric in Metric::numeric() {
        let values: Vec<Option<Option<f64>>> =
            phases.iter().map(|p| p.map(|p| metric.value(p))).collect();
        // A metric no run has a value of (read latency of a fill that only writes) is left out, and so is
        // a direction's IOPS where no run did I/O in that direction, and a simulated drive's writes where no
        // run wrote (a read phase).
        let numbers = || values.iter().flatten().flatten();
        let direction = matches!(
            metric,
            Metric::Iops(_) | Metric::HostWrites | Metric::FlashWrites
        );
        if numbers().next().is_none() || (direction && numbers().all(|v| *v == 0.0)) {
            continue;
        }
        // Every I/O together only where some run's phase did more than one direction: in the others it
        // is that direction's. Its max is said beside its mean though it equals a direction's max.
        if matches!(metric, Metric::TotalLat(_)) && !phases.iter().flatten().any(|p| mixed(p)) {
            continue;
        }
        let cells = number_cells(&values);
        // A row that says what an earlier one says (the headline's phase-mean IOPS is the whole-phase
        // IOPS; a read-only phase's read IOPS its IOPS, its read latency mean the phase's) is left out; a
        // headline row it says in full, and in the runs without that headline too (fio's JSON beside a
        // fill, which has no headline: trial 13 F9), is left out instead.
        if let Some(q) = metric.quantity() {
            if shown
                .iter()
                .any(|(u, c, _)| *u == q && same_cells(c, &cells))
            {
                continue;
            }
            restated.extend(
                shown
                    .iter()
                    .filter(|(u, c, _)| *u == q && within(c, &cells))
                    .filter_map(|s| s.2),
            );
            shown.push((q, cells.clone(), None));
        }
        rows.push(row(metric, metric.label(), cells));
    }
    restated.sort_unstable();
    restated.dedup();
    for i in restated.into_iter().rev() {
        rows.remove(i);
    }
    if let Some(cells) = steady_cells(phases) {
        rows.push(row(Metric::SteadyState, Metric::SteadyState.label(), cells));
    }
    unique_labels(&mut rows[first..]);
}

/// The label, cells and note of the row of headline figure `k` whose runs cover unlike rows (`covers`, from
/// [`unlike_rows`]): labelled as its item asks, each value with its rows, no change (trial 15: a clipped
/// window's whole phase against a real window's read as a 6 % loss).
fn unlike_row(
    k: &Figure,
    metric: Metric,
    values: &[Option<Option<f64>>],
    covers: Vec<Option<Covers>>,
) -> (String, Vec<Cell>, Note) {
    let flat: Vec<Option<f64>> = values.iter().map(|v| v.flatten()).collect();
    let changes = alike_changes(k.better, &flat, &covers);
    let cells = values
        .iter()
        .zip(&covers)
        .zip(changes)
        .map(|((v, c), change)| match (v, c) {
            (None, _) => Cell::Missing,
            (Some(None), _) => Cell::NoData,
            (Some(Some(v)), Some(c)) => Cell::Over {
                value: *v,
                rows: c.rows(),
                change_pct: change,
            },
            (Some(Some(v)), None) => Cell::Text(metric.format_value(*v)),
        })
        .collect();
    let asked = Figure {
        label: headline::asked_label(&k.key, &k.label),
        ..k.clone()
    };
    let note = Note::Unlike {
        asked: headline::asked(&k.key),
        covers,
    };
    (figure_label(&asked), cells, note)
}

/// Each run's change against the first run's value of the headline figure `k`, where the run's rows are
/// alike the first's ([`Covers::alike`]) though another run's are not: a row marked not compared still
/// compares those, as the composite does (attack 17 F3: of three runs, the third's composite came from a
/// row that showed it no change). `None` for the first run, an unlike run, a missing value, a first value
/// of 0 and a figure that is a fact, not a score.
pub fn alike_changes(
    better: Option<Better>,
    values: &[Option<f64>],
    covers: &[Option<Covers>],
) -> Vec<Option<f64>> {
    let value = |i: usize| values.get(i).copied().flatten();
    let first = value(0).filter(|b| *b != 0.0 && better.is_some());
    let base = covers.first().cloned().flatten();
    (0..values.len())
        .map(|i| {
            let (b, c, v) = (first?, covers.get(i)?.as_ref()?, value(i)?);
            (i > 0 && base.as_ref()?.alike(c)).then_some((v - b) / b.abs() * 100.0)
        })
        .collect()
}

/// The rows each run's figure `key` covers ([`headline::covers`]), when a run's are unlike the first run's
/// ([`headline::unlike`]); `None` when every run's may be set against the first's.
pub fn unlike_rows(phases: &[Option<&PhaseResult>], key: &str) -> Option<Vec<Option<Covers>>> {
    let base = phases.first().copied().flatten()?;
    phases
        .iter()
        .skip(1)
        .flatten()
        .any(|p| headline::unlike(base, p, key).is_some())
        .then(|| {
            phases
                .iter()
                .map(|p| p.and_then(|p| headline::covers(p, key)))
                .collect()
        })
}

/// Whether the cells `a` of a headline row are all in `b`: where `a` has a number, `b` the same
/// ([`same_cells`]); where `a` has none (a run without that headline), `b` anything; a missing phase
/// missing in both.
fn within(a: &[Cell], b: &[Cell]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match x {
            Cell::Number { .. } => same_cells(std::slice::from_ref(x), std::slice::from_ref(y)),
            Cell::NoData => !matches!(y, Cell::Missing),
            _ => x == y,
        })
}

/// Makes a phase's row labels unique: a headline figure whose label a whole-phase row also has (an
/// `IOPS, phase mean` recorded by an older wkrun, of reads and writes only, beside the whole-phase one that
/// adds trims) is marked `(headline)`; any label still repeated is numbered (`(2)`, `(3)`).
fn unique_labels(rows: &mut [Row]) {
    let count = |rows: &[Row], l: &str| rows.iter().filter(|r| r.label == l).count();
    for i in 0..rows.len() {
        if matches!(rows[i].metric, Metric::Headline { .. }) && count(rows, &rows[i].label) > 1 {
            rows[i].label.push_str(" (headline)");
        }
    }
    for i in 0..rows.len() {
        let seen = rows[..i]
            .iter()
            .filter(|r| r.label == rows[i].label)
            .count();
        if seen > 0 {
            rows[i].label = format!("{} ({})", rows[i].label, seen + 1);
        }
    }
}

/// The steady-state verdict of each run's phase (`reached at 12.0 s`, `not reached`), when some run's phase
/// has one.
fn steady_cells(phases: &[Option<&PhaseResult>]) -> Option<Vec<Cell>> {
    phases
        .iter()
        .flatten()
        .any(|p| p.steady_state.is_some())
        .then(|| {
            phases
                .iter()
                .map(|p| match p {
                    None => Cell::Missing,
                    Some(p) => match &p.steady_state {
                        None => Cell::NoData,
                        Some(s) => Cell::Text(s.verdict_text()),
                    },
                })
                .collect()
        })
}

/// The whole-phase metric that says what a headline figure keyed `key` says of its phase, and which way
/// is better: the `mean` item's IOPS, bandwidth and mean latency, the `latency` item's means and maxima;
/// `None` for the others.
fn whole_phase(key: &str) -> Option<(Metric, Better)> {
    use Direction::{Read, Write};
    let lat = |m: Metric| Some((m, Better::Lower));
    match key {
        TOTAL_IOPS => Some((Metric::TotalIops, Better::Higher)),
        "mean mb_s" => Some((Metric::Bandwidth, Better::Higher)),
        "mean lat_mean_us" => lat(Metric::TotalLat(LatStat::Mean)),
        "latency read mean_us" => lat(Metric::Lat(Read, LatStat::Mean)),
        "latency write mean_us" => lat(Metric::Lat(Write, LatStat::Mean)),
        "latency read max_us" => lat(Metric::Lat(Read, LatStat::Max)),
        "latency write max_us" => lat(Metric::Lat(Write, LatStat::Max)),
        _ => None,
    }
}

/// The quantity ([`Metric::quantity`]) a headline figure keyed `key` gives of its phase, when a whole-phase
/// metric can restate it ([`whole_phase`]).
fn same(key: &str) -> Option<&'static str> {
    whole_phase(key)?.0.quantity()
}

/// The figure keyed `key` of phase `p`, its value and which way is better: its headline figure's; for a
/// phase whose headline lacks the figure, the whole-phase metric's that says the same (`whole_phase`: a
/// wkrun fill, which has no headline, beside fio's job headed by its mean; a phase headed by its steady
/// window, compared on its IOPS, phase mean by [`pair_lead`]), as `wkrun compare`'s whole-phase rows
/// give it; `None` when it has neither.
pub fn figure_in(p: &PhaseResult, key: &str) -> Option<(Option<f64>, Option<Better>)> {
    match p.headline.iter().find(|f| f.key == key) {
        Some(f) => Some((f.value, f.better)),
        None => whole_phase(key).map(|(m, better)| (m.value(p), Some(better))),
    }
}

/// Whether two rows' cells say the same: the same kind of cell in every column, numbers equal to a part in
/// 10⁹ (one figure computed two ways).
fn same_cells(a: &[Cell], b: &[Cell]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Cell::Number { value: v, .. }, Cell::Number { value: w, .. }) => {
                (v - w).abs() <= 1e-9 * v.abs().max(w.abs())
            }
            _ => x == y,
        })
}

/// A phase's parameters as `key=value` pairs (top-level fields of `params`; a nested value as compact JSON),
/// but `worker_parts`: it follows from `workers`, `workers_split`, the span, the bound and `seed`, which show
/// when they differ, and as JSON it made a column hundreds of characters wide. `completion_waits` is the
/// way used ([`waits_used`]), except in a run of another tool (`foreign`), whose span is left out (unknown)
/// where that tool did not give it in bytes (fio's job without `size`: [`crate::fio::json::unknown_span`]),
/// and whose engine is that tool's name for it where wkrun has no such engine (fio's `falloc`:
/// [`crate::fio::json::other_engine`]), and whose read share is `unknown` where that tool's rate cap on one
/// direction left it to the device ([`crate::fio::json::device_share`]).
fn param_pairs(p: &PhaseResult, foreign: bool) -> Vec<(String, String)> {
    let Ok(serde_json::Value::Object(mut m)) = serde_json::to_value(&p.params) else {
        return Vec::new();
    };
    if let Some(w) = waits_used(p).filter(|_| !foreign) {
        m.insert("completion_waits".into(), w.into());
    }
    if let Some(e) = crate::fio::json::other_engine(p).filter(|_| foreign) {
        m.insert("engine".into(), e.into());
    }
    if crate::fio::json::device_share(p).is_some() && foreign {
        m.insert("read_percent".into(), "unknown".into());
    }
    if foreign {
        for k in crate::fio::json::SAID_WHEN_ABSENT {
            m.entry(k).or_insert_with(|| "-".into());
        }
    }
    let span_unknown = foreign && crate::fio::json::unknown_span(p).is_some();
    m.into_iter()
        .filter(|(k, _)| k != "worker_parts")
        .filter(|(k, _)| !(span_unknown && k.starts_with("span_")))
        .map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (k, v)
        })
        .collect()
}

/// How a wkrun io_uring phase that did not probe for batched completion waits (`params.completion_waits`
/// absent) waited: `"each"`, one completion at a time (`completion_waits = "each"` in the spec, or a phase
/// the probe does not apply to), when it waited for one at a time (`completions_per_wait` absent). `None`
/// otherwise: a phase that probed says `probe` (the way it kept is the completion-waits row), and another
/// engine has no such setting.
fn waits_used(p: &PhaseResult) -> Option<&'static str> {
    let q = &p.params;
    (q.engine == Some(crate::vocab::EngineKind::IoUring)
        && q.completion_waits.is_none()
        && q.completions_per_wait.is_none())
    .then_some("each")
}

/// Parameter `k` of phase `p` as compared with other runs', where it is not compared as shown: a rate cap
/// by what it does on the phase's directions ([`crate::vocab::Rate::acting_on`]; trial 27 L2: fio's read
/// job capped at `{"read":2000}` beside wkrun's `{"total":2000}` of reads only was shown as differing).
/// `None` for every other parameter, and for a cap of a phase whose mix is not recorded.
fn compared_value(p: &PhaseResult, k: &str) -> Option<String> {
    let q = &p.params;
    let cap = q.rate_iops.filter(|_| k == "rate_iops")?;
    let on = cap.acting_on(q.read_percent?, q.trim_percent.unwrap_or(0));
    serde_json::to_string(&on).ok()
}

/// Whether phase `p`'s recorded stream seed is the one its seed and name give
/// ([`crate::plan::PhaseParams::stream_seed_of`]), as every run of wkrun records it: no parameter of its
/// own, so not one that differs between phases of other names (`compare`'s parameters that differ; a
/// sweep's members paired by `compare --by`, [`super::members::split`]).
pub(crate) fn derived_seed(p: &PhaseResult) -> bool {
    (p.params.stream_seed).is_some_and(|s| p.params.stream_seed_of(&p.name) == Some(s))
}

/// The `key=value` of each parameter that is not the same in every run that has the phase (absent counts
/// as a value, `-`, except in a `foreign` run, whose tool does not give every parameter: there it is
/// unknown, compared with nothing and not shown), per run; `None` when they all agree (or fewer than two
/// runs have the phase).
fn differing_params(phases: &[Option<&PhaseResult>], foreign: &[bool]) -> Option<Vec<Cell>> {
    let pairs: Vec<Option<Vec<(String, String)>>> = phases
        .iter()
        .enumerate()
        .map(|(i, p)| p.map(|p| param_pairs(p, foreign.get(i).copied().unwrap_or(false))))
        .collect();
    if pairs.iter().flatten().count() < 2 {
        return None;
    }
    let mut keys: Vec<&str> = Vec::new();
    for ps in pairs.iter().flatten() {
        for (k, _) in ps.iter() {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    // Run i's value of `k`: `-` where absent, `None` where unknown.
    let get = |i: usize, k: &str| -> Option<String> {
        let ps = pairs[i].as_ref()?;
        match ps.iter().find(|(q, _)| q == k) {
            Some((_, v)) => Some(v.clone()),
            None if foreign.get(i).copied().unwrap_or(false) => None,
            None => Some("-".into()),
        }
    };
    // Run i's value of `k` as compared: a rate cap by what it does (`compared_value`).
    let compared = |i: usize, k: &str| {
        let v = get(i, k)?;
        Some(phases[i].and_then(|p| compared_value(p, k)).unwrap_or(v))
    };
    let differ: Vec<&str> = keys
        .into_iter()
        .filter(|k| {
            let mut values = (0..pairs.len()).filter_map(|i| compared(i, k));
            values
                .next()
                .is_some_and(|first| values.any(|v| v != first))
        })
        .collect();
    // Trial 26 L6: a stream seed that is the hash of each phase's seed and name, as a run records it,
    // differs where the names do: not a parameter that differs; `seed` shows when the seeds do. (A
    // sweep's members, paired under one name by `compare --by`, have theirs left out before: trial 27 L1.)
    let differ: Vec<&str> = (differ.into_iter())
        .filter(|k| *k != "stream_seed" || !phases.iter().flatten().all(|p| derived_seed(p)))
        .collect();
    if differ.is_empty() {
        return None;
    }
    Some(
        (0..pairs.len())
            .map(|i| match pairs[i] {
                None => Cell::Missing,
                Some(_) => {
                    let shown: Vec<String> = differ
                        .iter()
                        .filter_map(|k| Some(format!("{k}={}", get(i, k)?)))
                        .collect();
                    match shown.is_empty() {
                        true => Cell::NoData,
                        false => Cell::Text(shown.join(" ")),
                    }
                }
            })
            .collect(),
    )
}

/// The way each run's io_uring phase waited for completions after its probe (`batched (latency up to 20 µs
/// long)`, `per completion`, `-` where it did not probe: [`KeptWaits::words`]), when not the same in every
/// run that has the phase: the same spec on the same device can keep either way, and the latencies then
/// differ by up to the minimum wait (trial 15: `batched after 1 round` meant nothing without results.md).
fn differing_waits(phases: &[Option<&PhaseResult>]) -> Option<Vec<Cell>> {
    let kept = |p: &PhaseResult| Some(p.host.as_ref()?.completion_waits.as_ref()?.kept);
    let present: Vec<Option<KeptWaits>> = phases.iter().flatten().map(|p| kept(p)).collect();
    if present.len() < 2 || present.iter().all(|k| *k == present[0]) {
        return None;
    }
    let text = |k: Option<KeptWaits>| k.map_or("-".to_string(), KeptWaits::words);
    Some(
        phases
            .iter()
            .map(|p| p.map_or(Cell::Missing, |p| Cell::Text(text(kept(p)))))
            .collect(),
    )
}

/// The spec file of each run (`name version sha256:0123456789ab`), when the files are not the same for all.
fn spec_row(runs: &[Run]) -> Option<Row> {
    let first = &runs.first()?.results.spec;
    if runs.iter().all(|r| r.results.spec.sha256 == first.sha256) {
        return None;
    }
    Some(Row {
        note: None,
        phase: "(runs)".into(),
        metric: Metric::Spec,
        label: Metric::Spec.label(),
        cells: runs
            .iter()
            .map(|r| {
                let s = &r.results.spec;
                let sha = s.sha256.get(..12).unwrap_or(&s.sha256);
                Cell::Text(format!("{} {} sha256:{sha}", s.name, s.version))
            })
            .collect(),
    })
}

/// The `--set` overrides of each run, when they are not the same for all (`none` for a run without).
fn overrides_row(runs: &[Run]) -> Option<Row> {
    let sets: Vec<&Vec<String>> = runs.iter().map(|r| &r.results.spec.overrides).collect();
    if sets.iter().all(|s| *s == sets[0]) {
        return None;
    }
    Some(Row {
        note: None,
        phase: "(runs)".into(),
        metric: Metric::Overrides,
        label: Metric::Overrides.label(),
        cells: sets.iter().map(|s| Cell::Text(overrides_text(s))).collect(),
    })
}

/// A run's `--set` overrides as `compare` shows them (`duration="4s" qd=8`, `none`), and the report's
/// ranking against the library (`[not ranked: --set duration="4s"]`).
pub fn overrides_text(overrides: &[String]) -> String {
    match overrides.is_empty() {
        true => "none".into(),
        false => overrides.join(" "),
    }
}

/// The key of a phase's total IOPS as a lead figure ([`pair_lead`]): the `mean` headline item's IOPS,
/// which is the whole phase's ([`PhaseResult::iops`]), so a phase headed by its `mean` and one without it
/// lead on the one figure.
pub const TOTAL_IOPS: &str = "mean iops";

/// The label of a phase's total IOPS, as a row ([`Metric::TotalIops`]) and as a lead figure.
const TOTAL_IOPS_LABEL: &str = "IOPS, phase mean";

/// The figure a pair of phases is set side by side on ([`pair_lead`]): what the composite's ratio
/// ([`composite`]), the report's "Workloads compared" bars and its headline tables take.
#[derive(Debug, Clone, PartialEq)]
pub struct Lead {
    /// The figure's key ([`TOTAL_IOPS`] for the phase's total IOPS).
    pub key: String,
    /// Its label: `IOPS, steady window mean`, `IOPS, phase mean`.
    pub label: String,
    /// Its unit: `IOPS`, `µs`.
    pub unit: String,
    /// Which way is better.
    pub better: Better,
    /// Its value in the first run's phase and in its twin, both positive.
    pub values: (f64, f64),
}

impl Lead {
    /// The twin's value over the first's, inverted where lower is better: above 1 is better.
    pub fn ratio(&self) -> f64 {
        let (b, v) = self.values;
        match self.better {
            Better::Higher => v / b,
            Better::Lower => b / v,
        }
    }
}

/// A headline figure that can lead ([`can_lead`]).
fn leading(f: &Figure) -> Option<(f64, Better)> {
    can_lead(&f.key, f.value, f.better)
}

/// The lead figure of a pair of phases, the one definition: of `base` (the first run's) and its twin `p`,
/// the first of `base`'s headline figures that can lead (a level with a direction, [`is_level`]) that `p`
/// has too, both positive, and not over rows unlike `base`'s (`unlike_leads`); else, when the two share
/// no such figure (a run too short for its steady window, whose window mean is null; fio's job, headed by
/// its mean, beside a wkrun phase headed by its steady window; a headline without a level), their total
/// IOPS, the whole phase in both, higher is better. `None` when that is not positive in both. A pair of
/// which one ended at steady state and the other ran on (`stopped_apart`) is set side by side on their
/// steady window means only (`steady_lead`), or not at all.
pub fn pair_lead(base: &PhaseResult, p: &PhaseResult) -> Option<Lead> {
    if stopped_apart(base, p) {
        return steady_lead(base, p);
    }
    let left = unlike_leads(base, p);
    let theirs = |key: &str| p.headline.iter().find(|g| g.key == key).and_then(leading);
    let shared = base
        .headline
        .iter()
        .filter(|f| !left.iter().any(|l| l.key == f.key))
        .find_map(|f| {
            let (b, better) = leading(f)?;
            let (v, _) = theirs(&f.key)?;
            Some(Lead {
                key: f.key.clone(),
                label: f.label.clone(),
                unit: f.unit.clone(),
                better,
                values: (b, v),
            })
        });
    shared.or_else(|| {
        let positive = |p: &PhaseResult| Metric::TotalIops.value(p).filter(|v| *v > 0.0);
        Some(Lead {
            key: TOTAL_IOPS.into(),
            label: TOTAL_IOPS_LABEL.into(),
            unit: "IOPS".into(),
            better: Better::Higher,
            values: (positive(base)?, positive(p)?),
        })
    })
}

/// The key and label of the figure a phase leads with on its own: its first headline figure that can
/// lead, else its total IOPS ([`TOTAL_IOPS`]).
fn own_lead(p: &PhaseResult) -> (&str, &str) {
    p.headline
        .iter()
        .find(|f| leading(f).is_some())
        .map_or((TOTAL_IOPS, TOTAL_IOPS_LABEL), |f| {
            (f.key.as_str(), f.label.as_str())
        })
}

/// What the composite's note says of a pair of phases scored on another lead figure ([`pair_lead`]) than
/// one of them leads with on its own ([`own_lead`]), which the other's headline figures lack, or lack a
/// value of: `rw on IOPS, phase mean (IOPS, steady window mean, the first run's lead, has no value among
/// this run's headline figures)`; `None` when each leads with the pair's figure, or when a figure over
/// unlike rows was left out (said by the note's own clause), or when one stopped at steady state and the
/// other ran on (said by the rows' note, [`steady_stop_rows`]).
fn led_on(base: &PhaseResult, p: &PhaseResult) -> Option<String> {
    if !unlike_leads(base, p).is_empty() || stopped_apart(base, p) {
        return None;
    }
    let lead = pair_lead(base, p)?;
    let ((key, own), whose, other, others) = [
        (own_lead(base), "the first run's", p, "this run's"),
        (own_lead(p), "this run's", base, "the first run's"),
    ]
    .into_iter()
    .find(|((k, _), ..)| *k != lead.key)?;
    // Trial 27 L3: `(IOPS, phase mean not in both)` beside rows showing it in both runs: it is the
    // headline figures that lack it, or its value.
    let lacks = match other.headline.iter().any(|f| f.key == key) {
        true => "has no value among",
        false => "is not among",
    };
    Some(format!(
        "{} on {} ({own}, {whose} lead, {lacks} {others} headline figures)",
        crate::text::escaped(&base.name),
        lead.label
    ))
}

/// The lead figures of `base` (headline levels with a direction and a value) that its twin `p` has too,
/// with a value, over rows unlike `base`'s ([`headline::unlike`]): left out of their ratio ([`pair_lead`]).
fn unlike_leads<'a>(base: &'a PhaseResult, p: &PhaseResult) -> Vec<&'a Figure> {
    let valued = |f: &&Figure| f.value.is_some();
    base.headline
        .iter()
        .filter(valued)
        .filter(|f| is_level(&f.key) && f.better.is_some())
        .filter(|f| p.headline.iter().filter(valued).any(|g| g.key == f.key))
        .filter(|f| headline::unlike(base, p, &f.key).is_some())
        .collect()
}

/// A workload phase of the first run and its twin in another run, as the composite pairs them (`twin`):
/// the pair, or why the phase is not scored.
type Twin<'a> = Result<(&'a PhaseResult, &'a PhaseResult), (&'a str, &'static str)>;

/// The workloads the first run (`first`) and `run` have in common: the first run's workload phases that
/// `run` has too, or would have had (`run` stopped before it: [`Results::did_not_run`]), each paired by
/// name with `run`'s or said why not: `not run`, a prediction's phase and a measured one of another workload
/// (`apart_pair`), fio's job counting its verify reads, a phase that measured nothing in either (`not
/// measured`: no score, not a loss of 100 %), one that ended at steady state beside one that ran on
/// without a steady window mean in both ([`stopped_apart`]), and one that did not complete in either (`interrupted`,
/// `failed`: its figures cover the part it ran, its twin's the whole phase). The phase `run` was in when it
/// ended without writing its results (`stopped_in`, [`super::not_run::stopped_in`]) is [`STOPPED_IN`], as
/// the report says it. A phase a completed `run` lacks is not in common (another spec's run).
fn twin<'a>(first: &'a Results, run: &'a Results, stopped_in: Option<&str>) -> Vec<Twin<'a>> {
    // A job that did no storage I/O (fio's cpuio) is no workload to score, on either side.
    let storage = |p: &PhaseResult| crate::fio::json::no_storage_io(p).is_none();
    let mine = by_name(&run.phases, is_workload);
    let common = |b: &&PhaseResult| {
        storage(b) && (mine.contains_key(b.name.as_str()) || run.did_not_run(&b.name))
    };
    workloads(first)
        .into_iter()
        .filter(common)
        .map(|b| {
            let why = |w| Err((b.name.as_str(), w));
            let Some(&p) = mine.get(b.name.as_str()) else {
                return match stopped_in == Some(b.name.as_str()) {
                    true => why(STOPPED_IN),
                    false => why("not run"),
                };
            };
            if apart_pair((first, b), (run, p)) {
                return why("predicted for another workload");
            }
            if verify_reads::split_pair(first, run, &b.name) {
                return why("counted with its verify reads");
            }
            if unmeasured(b) || unmeasured(p) {
                return why("not measured");
            }
            let device = |x: &PhaseResult| crate::fio::json::device_share(x).is_some();
            if device(b) != device(p) {
                return why("its read share left to the device by fio's cap on one direction");
            }
            if stopped_apart(b, p) && steady_lead(b, p).is_none() {
                return why("stopped at steady state in one run only");
            }
            match (b.completed, p.completed) {
                (true, true) => Ok((b, p)),
                (false, _) => why(stopped_by(first.status)),
                (true, false) => why(stopped_by(run.status)),
            }
        })
        .collect()
}

/// The workload phases of `run` paired with the first run's (`first`) by name, as the composite pairs them
/// (`twin`): the pairs it scores, those with a lead figure ([`pair_lead`]; not one `without a lead figure
/// in both`), which the report's "Workloads compared" bars of runs set side by side (`chart::battery`),
/// each a bar.
pub(crate) fn twins<'a>(
    first: &'a Results,
    run: &'a Results,
) -> Vec<(&'a PhaseResult, &'a PhaseResult)> {
    let pairs = twin(first, run, None).into_iter().flatten();
    pairs.filter(|(b, p)| pair_lead(b, p).is_some()).collect()
}

/// A run's composite score ([`scores`]) and the first run's workloads it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// The geometric mean of the ratios; `None` when no workload is scored.
    pub value: Option<f64>,
    /// How many workloads the run has in common with the first run (`twin`).
    pub of: usize,
    /// The workloads in common not scored, each with why: `("rw3", "not run")`.
    pub left: Vec<(String, &'static str)>,
}

impl Score {
    /// How many workloads the score rests on: `1 of 3 workloads`.
    pub fn over(&self) -> String {
        let of = self.of;
        let n = of - self.left.len();
        format!("{n} of {of} workload{}", if of == 1 { "" } else { "s" })
    }

    /// The workloads scored, and why the others are not: `over 1 of 3 workloads: rw2 interrupted, rw3 not
    /// run`; with none scored (a `-`), `no workload of 3 scored: rw1 interrupted, rw2 not run, rw3 not run`
    /// (trial 24 F5: a run interrupted in its first workload had a bare `-`).
    pub fn rests(&self) -> String {
        let why: Vec<String> = self
            .left
            .iter()
            .map(|(name, why)| match *why {
                STOPPED_IN => {
                    crate::results::planned::stopped_in_words(&crate::text::escaped(name))
                }
                _ => format!("{} {why}", crate::text::escaped(name)),
            })
            .collect();
        match self.left.len() == self.of {
            true => format!("no workload of {} scored: {}", self.of, why.join(", ")),
            false => format!("over {}: {}", self.over(), why.join(", ")),
        }
    }
}

/// The note on the composite of `runs` ([`composite`]), whose scores are `scores`: each later run's
/// workloads scored where fewer than it has in common with the first ([`Score::rests`]; a run without a
/// score has `-`, noted when it has workloads in common, none scored), its lead figures left out for
/// rows unlike the first run's, as `LABEL of PHASE`, and its workloads scored on another lead figure than
/// one of the pair leads with on its own, which the other lacks (`led_on`: a run too short for its steady
/// window beside one that reached it); `None` when there is none of these.
pub fn composite_note(runs: &[&Results], scores: &[Score]) -> Option<Note> {
    let first = runs.first()?;
    let rests: Vec<(usize, String)> = scores
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, s)| !s.left.is_empty())
        .map(|(i, s)| (i, s.rests()))
        .collect();
    let (mut unlike, mut led) = (Vec::new(), Vec::new());
    for (i, run) in runs.iter().enumerate().skip(1) {
        let pairs = twins(first, run);
        let on: Vec<String> = pairs.iter().filter_map(|(b, p)| led_on(b, p)).collect();
        if !on.is_empty() {
            led.push((i, on.join(", ")));
        }
        for (b, p) in pairs {
            for f in unlike_leads(b, p) {
                unlike.push((
                    i,
                    format!("{} of {}", headline::asked_label(&f.key, &f.label), b.name),
                ));
            }
        }
    }
    // Trial 24: the clause on phases that did not complete was said of fio's verify job too.
    let stopped = [
        Status::Interrupted,
        Status::Failed,
        Status::Running,
        Status::Completed,
    ]
    .map(stopped_by);
    let partial = scores
        .iter()
        .skip(1)
        .any(|s| s.left.iter().any(|(_, why)| stopped.contains(why)));
    (!rests.is_empty() || !unlike.is_empty() || !led.is_empty()).then_some(Note::Composite {
        rests,
        partial,
        unlike,
        led,
    })
}

/// A run's workload phases.
fn workloads(r: &Results) -> Vec<&PhaseResult> {
    r.phases.iter().filter(|p| is_workload(p)).collect()
}

/// Whether phase `p` is a workload the composite scores: of kind workload (a fill, a restore or an erase
/// prepares the drive) and doing storage I/O (not fio's cpuio job). The one rule of what is a workload
/// for `wkrun compare`, `compare --by` and the report's batteries.
pub(crate) fn is_workload(p: &PhaseResult) -> bool {
    p.kind == PhaseKind::Workload && compared(p)
}

/// The composite score of each run against the first: the geometric mean, over the workload phases both
/// have (fills, restores and erases prepare the drive; they are not the benchmark), of the ratio of the
/// phase's lead figure in the run to the first run's ([`pair_lead`], the one definition): run / first for a
/// figure where higher is better, first / run where lower is better. The lead figure is the phase's first
/// headline figure that is a level (a mean: the steady window's, a window's average, the phase's IOPS;
/// never an extreme such as the worst interval, [`is_level`]) and that both runs have, positive (a run that
/// never reached steady state is compared on the next level, a window's average); total IOPS when the
/// phase's headline has no level, or when the two phases' headlines share no lead figure, positive in both
/// (a run too short for its steady window, whose window mean is null; fio's JSON beside a wkrun run). So
/// 1 is par, 0.9 is a 10 % loss overall, whatever the mix of IOPS and latencies; each phase weighs the
/// same. A prediction's phase and a measured one of another workload are no pair (`apart_pair`), nor is a
/// phase that measured nothing ([`unmeasured`]: a run interrupted in its ramp) or did not complete (its
/// figures cover part of the phase; trial 21 T3) with any, nor fio's job whose cap on one direction left its
/// read share to the device with a phase whose share is known ([`crate::fio::json::device_share`]; attack
/// 28 F8) (`twin`). `None` for a run that shares no such
/// phase with the first; the first run's own score is 1.
pub fn composite(runs: &[&Results]) -> Vec<Option<f64>> {
    scores(runs, &[]).into_iter().map(|s| s.value).collect()
}

/// Why a workload is not scored when its run ended in it without writing its results (`twin`): said by
/// [`Score::rests`] as the report says it, `stopped in rw2 (the run ended without writing its results:
/// killed?)` ([`crate::results::planned::stopped_in_words`]).
const STOPPED_IN: &str = "stopped in";

/// Each run's composite score ([`composite`]) with the workloads of the first run it leaves out and why
/// (`twin`; `without a lead figure in both` for a pair without a positive figure to set side by side, not
/// even their total IOPS: [`pair_lead`]);
/// `stopped_in`, per run, the phase it ended in without writing its results
/// ([`super::not_run::stopped_in`]; none given for a run past the slice's end).
pub fn scores(runs: &[&Results], stopped_in: &[Option<&str>]) -> Vec<Score> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    runs.iter()
        .enumerate()
        .map(|(i, run)| {
            let (mut logs, mut left) = (Vec::new(), Vec::new());
            let twins = twin(first, run, stopped_in.get(i).copied().flatten());
            let of = twins.len();
            for t in twins {
                match t.map(|(b, p)| (b, pair_lead(b, p).map(|l| l.ratio().ln()))) {
                    Ok((_, Some(l))) => logs.push(l),
                    Ok((b, None)) => left.push((b.name.clone(), "without a lead figure in both")),
                    Err((name, why)) => left.push((name.to_string(), why)),
                }
            }
            let value =
                (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp());
            Score { value, of, left }
        })
        .collect()
}

/// The marks of a run's name beside others (compare's column headers, the library's ranked bars): its sum
/// (`[sum of 2 targets]`, `[merge of 3 hosts]`) when the runs do not all add up the same (`mixed`), and a
/// status other than completed (`[interrupted]`, `[running]`, `[failed]`); each after a space.
pub(crate) fn marks(r: &Results, mixed: bool) -> String {
    let sum = match super::runs::Summed::of(r).mark() {
        Some(m) if mixed => format!(" [{m}]"),
        _ => String::new(),
    };
    let status = match r.status {
        Status::Completed => "",
        Status::Running => " [running]",
        Status::Interrupted => " [interrupted]",
        Status::Failed => " [failed]",
    };
    format!("{sum}{status}")
}

/// Column headers: each run's `label` when every run has one (with its folder when two runs share a label,
/// the folder as given when two folders have one name: [`super::runs::folder_names`]; numbered when one
/// folder is given twice); else the name of the folder holding each results file when every run has one and they all
/// differ (runs kept as `fresh/`, `used/`, ... are headed so, as `wkrun report` labels them); else
/// `spec target started_at`, or the file as given when that is ambiguous (and a `#n` suffix when even the
/// file is given twice). When the runs do not all add up the same ([`Summed`]: one target, the sum of a run
/// on several, a merge of hosts), each sum is marked (`[sum of 2 targets]`, `[merge of 3 hosts]`): its
/// figures beside one target's are not one drive's against another's (trial 19 F3).
pub(super) fn headers(runs: &[Run]) -> Vec<String> {
    use super::runs::Summed;
    let sums: Vec<Summed> = runs.iter().map(|r| Summed::of(&r.results)).collect();
    let mixed = sums.iter().any(|s| Some(s) != sums.first());
    let status = |r: &Results| marks(r, mixed);
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
    // Labelled runs by their labels; two runs under one label (two runs on one drive) by label and folder
    // (the folder as given when two folders have one name), one folder given twice numbered.
    let files: Vec<&Path> = runs.iter().map(|r| r.file.as_path()).collect();
    let labelled: Option<Vec<String>> = runs
        .iter()
        .zip(super::runs::folder_names(&files))
        .map(|(r, f)| {
            let l = r.results.label.as_ref()?;
            let shared = runs
                .iter()
                .filter(|o| o.results.label.as_ref() == Some(l))
                .count()
                > 1;
            Some(match shared {
                true => format!("{l} ({f})"),
                false => l.clone(),
            })
        })
        .collect();
    if let Some(names) = labelled {
        return numbered_apart(names)
            .into_iter()
            .zip(runs)
            .map(|(n, r)| format!("{n}{}", status(&r.results)))
            .collect();
    }
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
            // A folder merged from several hosts is named by its hosts, not by the first host's target.
            let target = match super::runs::merged_hosts(&r.results) {
                Some(_) => super::runs::target_name(&r.results),
                None => r.results.target.path.display().to_string(),
            };
            format!("{} {target} {}", r.results.spec.name, r.results.started_at)
        })
        .collect();
    let out: Vec<String> = runs
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
    numbered_apart(out)
        .iter()
        .zip(runs)
        .map(|(h, r)| format!("{h}{}", status(&r.results)))
        .collect()
}

/// `headers` with ` #1`, ` #2`, ... after each that more than one has, in order.
fn numbered_apart(mut headers: Vec<String>) -> Vec<String> {
    let snapshot = headers.clone();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for h in headers.iter_mut() {
        if snapshot.iter().filter(|m| *m == h).count() > 1 {
            let k = seen.entry(h.clone()).or_insert(0);
            *k += 1;
            *h = format!("{h} #{k}");
        }
    }
    headers
}

/// The header row and body rows as the table and Markdown renderers show them.
fn display_grid(c: &Comparison) -> (Vec<String>, Vec<Vec<String>>) {
    // One cell, one line: a line break in a name from a results file (a phase, a path) is shown escaped,
    // never starting a row of its own.
    let cell = |s: &str| crate::text::escaped(s).into_owned();
    let mut header = vec!["phase".to_string(), "metric".to_string()];
    header.extend(c.columns.iter().map(|h| cell(h)));
    let body = c
        .rows
        .iter()
        .zip(marked_labels(c))
        .map(|(r, label)| {
            let mut v = vec![cell(&r.phase), cell(&label)];
            v.extend(r.cells.iter().map(|x| cell(&x.display(r.metric))));
            v
        })
        .collect();
    (header, body)
}

/// A plain-text table with aligned columns: names left-aligned, values right-aligned, a blank line between
/// phases. With the terminal's `width`, it fits: a run's name wraps onto several header lines (at spaces, to
/// its values' width, at least [`MIN_WRAP`] cells), and runs that would still make it wider are shown in
/// further blocks of columns, each with the phase and metric columns and the first run's (many drives
/// compared: 20 runs make several blocks), and a value too long for a column is a numbered note below the
/// table, the notes wrapped to the width. A width narrower than the table can be ([`too_narrow`]) lays it
/// out at its narrowest. Without a width (a pipe, a file), one table of full-length lines.
pub fn render_table(c: &Comparison, width: Option<usize>) -> String {
    // No row at all (one run that completed no I/O phase): no table; the notes say why ([`no_io_phase`]).
    if c.rows.is_empty() {
        return String::new();
    }
    let (header, mut body) = display_grid(c);
    let said = notes(c);
    let mut notes = numbered(&said, 0, width);
    if let Some(w) = width {
        notes.push_str(&long_values_as_notes(&mut body, w, said.len()));
    }
    let (heads, widths) = layout(&header, &body, width);
    // Narrower than the table can be: laid out at its narrowest ([`narrowest`]); the notes keep `width`.
    let fit = width.map(|w| w.max(narrowest(&widths, &body)));
    let blocks = column_blocks(&widths, fit);
    let mut out = String::new();
    for (k, cols) in blocks.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        table_block(&mut out, c, (&heads, &body), &widths, cols);
    }
    out + &notes
}

/// The narrowest a terminal table of `c` can be, in cells, when that is more than `width`: its phase,
/// metric and first run's columns beside its widest other run's (every block of columns holds one at
/// least), or a phase beside a label on a line of its own, whichever is wider. `None` when the table fits
/// `width`. `compare` says it on stderr and lays the table out that wide.
pub fn too_narrow(c: &Comparison, width: usize) -> Option<usize> {
    let (header, mut body) = display_grid(c);
    long_values_as_notes(&mut body, width, 0);
    let (_, widths) = layout(&header, &body, Some(width));
    Some(narrowest(&widths, &body)).filter(|&n| n > width)
}

/// See [`too_narrow`]: the widest line of a table of column `widths` and rows `body` laid out one other run
/// a block.
fn narrowest(widths: &[usize], body: &[Vec<String>]) -> usize {
    let other = widths.iter().skip(3).map(|w| w + 2).max().unwrap_or(0);
    let block = widths.iter().take(3).map(|w| w + 2).sum::<usize>() - 2 + other;
    let label = body
        .iter()
        .map(|r| crate::text::cells(&r[1]))
        .filter(|&l| l > widths[1])
        .map(|l| widths[0] + 2 + l)
        .max()
        .unwrap_or(0);
    block.max(label)
}

/// The header lines of each column (a run's name wrapped on a terminal) and each column's width, for a
/// table of `header` and `body` on a terminal `width` cells wide (or none).
fn layout(
    header: &[String],
    body: &[Vec<String>],
    width: Option<usize>,
) -> (Vec<Vec<String>>, Vec<usize>) {
    use crate::text;
    // Terminal cells, not characters: a CJK phase name takes two cells a character. On a terminal, a cell
    // longer than its column's cap (the composite's label, the parameters that differ) does not widen it:
    // a long label goes on a line of its own, a long value runs past its column.
    let cap = |i: usize| match (width, i) {
        (None, _) => usize::MAX,
        (Some(_), 0) => usize::MAX,
        (Some(_), 1) => LONG_LABEL,
        (Some(_), _) => LONG_VALUE,
    };
    let mut values = vec![0; header.len()];
    for row in body {
        for (i, cell) in row.iter().enumerate() {
            let w = text::cells(cell);
            if w <= cap(i) {
                values[i] = values[i].max(w);
            }
        }
    }
    let heads: Vec<Vec<String>> = header
        .iter()
        .enumerate()
        .map(|(i, h)| match (i >= 2, width) {
            (true, Some(_)) => text::wrap(h, values[i].max(MIN_WRAP)),
            _ => vec![h.clone()],
        })
        .collect();
    let widths: Vec<usize> = heads
        .iter()
        .zip(&values)
        .map(|(h, v)| h.iter().map(|l| text::cells(l)).max().unwrap_or(0).max(*v))
        .collect();
    let widths = long_labels(widths, body, width);
    (heads, widths)
}

/// On a terminal `width` cells wide: each run's value longer than [`LONG_VALUE`] cells (a steady-state
/// verdict's reason, a long parameter) replaced in `body` by `[N]`, and its text said once below the table,
/// `[N] TEXT`, wrapped to the width (trial 40: a 200-character verdict made every line of a 120-column
/// table 495 cells wide).
fn long_values_as_notes(body: &mut [Vec<String>], width: usize, from: usize) -> String {
    use crate::text;
    let mut said: Vec<String> = Vec::new();
    for row in body.iter_mut() {
        for cell in row.iter_mut().skip(2) {
            if text::cells(cell) <= LONG_VALUE {
                continue;
            }
            let n = match said.iter().position(|t| t == cell) {
                Some(k) => from + k + 1,
                None => {
                    said.push(std::mem::take(cell));
                    from + said.len()
                }
            };
            *cell = format!("[{n}]");
        }
    }
    numbered(&said, from, Some(width))
}

/// Notes under a table, `[N] TEXT` from N = `from` + 1, each after a blank line, wrapped to `width` when
/// given.
fn numbered(said: &[String], from: usize, width: Option<usize>) -> String {
    use crate::text;
    let mut out = String::new();
    for (k, t) in said.iter().enumerate() {
        let mark = format!("[{}] ", from + k + 1);
        let indent = " ".repeat(mark.len());
        let lines = match width {
            Some(w) => text::wrap(t, w.saturating_sub(mark.len()).max(MIN_WRAP)),
            None => vec![t.clone()],
        };
        out.push('\n');
        for (j, l) in lines.iter().enumerate() {
            let lead = if j == 0 { &mark } else { &indent };
            out.push_str(&format!("{lead}{l}\n"));
        }
    }
    out
}

/// On a terminal, the widest metric label that sets its column's width (longer ones go on a line of their
/// own) and the widest value that sets a run column's.
const LONG_LABEL: usize = 40;
const LONG_VALUE: usize = 24;

/// The least width a run's name wraps to on a terminal.
pub const MIN_WRAP: usize = 16;

/// The column `widths` with the metric column as wide as the longest label in `body` when the table still
/// fits `width` that way, in as many blocks of columns ([`column_blocks`]): a row stays on one line
/// wherever it fits (trial: at `--width 150` a 100-column table put `latency mean before the span written
/// once (µs)` on a line of its own, so `grep` found its label without its values); else as they are,
/// a label longer than [`LONG_LABEL`] on a line of its own.
fn long_labels(widths: Vec<usize>, body: &[Vec<String>], width: Option<usize>) -> Vec<usize> {
    let longest = body.iter().map(|r| crate::text::cells(&r[1])).max();
    let (Some(max), Some(longest)) = (width, longest) else {
        return widths;
    };
    if longest <= widths[1] {
        return widths;
    }
    let mut wide = widths.clone();
    wide[1] = longest;
    let blocks = column_blocks(&wide, width);
    let widest = blocks
        .iter()
        .map(|b| [0, 1].iter().chain(b).map(|&i| wide[i] + 2).sum::<usize>() - 2)
        .max()
        .unwrap_or(0);
    match widest <= max && blocks.len() <= column_blocks(&widths, width).len() {
        true => wide,
        false => widths,
    }
}

/// The run columns (indices into the grid, from 2) of each block of a table `width` cells wide at most:
/// all in one when they fit; else each block leads with the first run (the baseline every change is
/// against) and holds as many of the others as fit beside it and the phase and metric columns, at least
/// one.
fn column_blocks(widths: &[usize], width: Option<usize>) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (2..widths.len()).collect();
    let line = |cols: &mut dyn Iterator<Item = usize>| -> usize {
        cols.map(|i| widths[i] + 2).sum::<usize>().saturating_sub(2)
    };
    let Some(max) = width.filter(|&m| line(&mut (0..widths.len())) > m) else {
        return vec![all];
    };
    let fixed = line(&mut (0..3.min(widths.len())));
    let mut blocks: Vec<Vec<usize>> = vec![vec![2]];
    let mut used = fixed;
    for (i, w) in widths.iter().enumerate().skip(3) {
        let last = blocks.last_mut().expect("a block");
        if last.len() > 1 && used + 2 + w > max {
            blocks.push(vec![2, i]);
            used = fixed + 2 + w;
        } else {
            last.push(i);
            used += 2 + w;
        }
    }
    blocks
}

/// One block of the table: the header lines (bottom-aligned), a rule, the body's phase and metric columns
/// and the run columns `cols`.
fn table_block(
    out: &mut String,
    c: &Comparison,
    (heads, body): (&[Vec<String>], &[Vec<String>]),
    widths: &[usize],
    cols: &[usize],
) {
    use crate::text;
    let shown: Vec<usize> = [0, 1].into_iter().chain(cols.iter().copied()).collect();
    let line = |cell: &dyn Fn(usize) -> String| -> String {
        let parts: Vec<String> = shown
            .iter()
            .map(|&i| text::pad(&cell(i), widths[i], i >= 2))
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let lines = shown.iter().map(|&i| heads[i].len()).max().unwrap_or(1);
    for l in 0..lines {
        out.push_str(&line(&|i| {
            let h = &heads[i];
            let skip = lines - h.len();
            l.checked_sub(skip).map_or(String::new(), |j| h[j].clone())
        }));
    }
    let rule: Vec<String> = shown.iter().map(|&i| "-".repeat(widths[i])).collect();
    out.push_str(&(rule.join("  ") + "\n"));
    for (r, row) in body.iter().enumerate() {
        if r > 0 && c.rows[r].phase != c.rows[r - 1].phase {
            out.push('\n');
        }
        if text::cells(&row[1]) > widths[1] {
            // A label longer than its column: on its own line, the values under it.
            out.push_str(&format!(
                "{}  {}\n",
                text::pad(&row[0], widths[0], false),
                row[1]
            ));
            out.push_str(&line(&|i| {
                if i < 2 { String::new() } else { row[i].clone() }
            }));
        } else {
            out.push_str(&line(&|i| row[i].clone()));
        }
    }
}

/// A GitHub-flavoured Markdown table (numbers right-aligned).
pub fn render_markdown(c: &Comparison) -> String {
    if c.rows.is_empty() {
        return String::new();
    }
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
    out + &numbered(&notes(c), 0, None)
}

/// CSV, header row first: `phase`, `metric`, then each run's column, each run after the first followed by
/// its change column (`<run> change (%)`: a plain number of percent, e.g. `-41.0`; empty when there is
/// none). Values are as in the table, without the change.
pub fn render_csv(c: &Comparison) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    let mut header = vec!["phase".to_string(), "metric".to_string()];
    for (i, col) in c.columns.iter().enumerate() {
        header.push(col.clone());
        if i > 0 {
            header.push(format!("{col} change (%)"));
        }
    }
    // Writing to a Vec cannot fail, and every record has the header's length.
    w.write_record(&header).expect("csv to memory");
    for r in &c.rows {
        let mut rec = vec![r.phase.clone(), r.label.clone()];
        for (i, cell) in r.cells.iter().enumerate() {
            rec.push(cell.plain(r.metric));
            if i > 0 {
                rec.push(cell.change_number());
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
    use crate::plan::WorkerPart;
    use crate::report::testing;
    use crate::results::{DirStats, Figure, SteadyState};
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
                judged_from_round: Some(0),
                start: None,
            },
            judged_from_s: Some(0.0),
            judged_from_reason: String::new(),
            window_start_s: None,
            window_end_s: None,
            earliest_at_s: Some(5.0),
            at_rule_floor: false,
            not_judged: None,
        }
    }

    /// A phase with 500 reads, 300 writes and 200 trims in a second whose headline `mean iops` was recorded
    /// of reads and writes only (800, as wkrun before trims were in it): the whole-phase IOPS adds the trims
    /// (1000), the two rows' labels differ, and every label of the phase is unique.
    #[test]
    fn trims_are_in_the_iops_and_every_label_is_unique() {
        let mut p = phase("mix", 500, 300, Some(lat(1000.0, 2000, 3000, 4000)));
        p.trim = Some(DirStats::new(200, 200 * 4096, 1.0, None));
        p.headline = vec![Figure {
            key: "mean iops".into(),
            label: "IOPS, phase mean".into(),
            value: Some(800.0),
            unit: "IOPS".into(),
            better: Some(Better::Higher),
        }];
        p.sync = Some(crate::results::SyncResult {
            write_flag: None,
            flagged_writes: 0,
            flushes: Some(crate::results::FlushResult {
                call: "fsync".into(),
                every_writes: 3,
                ops: 100,
                latency_ns: Some(lat(5000.0, 9000, 9500, 12_000)),
            }),
        });
        let runs = [
            run("a.json", "s", "2026-01-01T00:00:00.000Z", vec![p.clone()]),
            run("b.json", "s", "2026-01-02T00:00:00.000Z", vec![p]),
        ];
        let c = compare(&runs);
        assert_eq!(num(&c, "mix", Metric::TotalIops, 0), (1000.0, None));
        assert_eq!(
            num(&c, "mix", Metric::Iops(Direction::Trim), 0),
            (200.0, None)
        );
        assert_eq!(num(&c, "mix", Metric::Flushes, 1), (100.0, Some(0.0)));
        assert_eq!(
            num(&c, "mix", Metric::FlushLat(LatStat::P99), 0),
            (9.0, None)
        );
        assert_eq!(
            num(&c, "mix", Metric::FlushLat(LatStat::Max), 0),
            (12.0, None)
        );
        let labels: Vec<&str> = c.rows.iter().map(|r| r.label.as_str()).collect();
        for l in &labels {
            assert_eq!(
                labels.iter().filter(|m| *m == l).count(),
                1,
                "{l}: {labels:?}"
            );
        }
        let headline = c
            .labelled("mix", "IOPS, phase mean (headline)")
            .expect("headline row");
        assert_eq!(
            headline.cells[0],
            Cell::Number {
                value: 800.0,
                change_pct: None
            }
        );
        assert_eq!(
            c.labelled("mix", "IOPS, phase mean").map(|r| r.metric),
            Some(Metric::TotalIops)
        );
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

    /// Trial (interrupted in a ramp): a phase a stop ended before it measured anything is `not measured`,
    /// not 0 (-100.0 %), and out of the composite; one cut short after measuring shows its figures marked
    /// with why its run stopped, their change kept.
    #[test]
    fn unfinished_phases_are_marked_and_unmeasured_ones_not_compared() {
        let good = run(
            "good/results.json",
            "s",
            "2026-01-01T00:00:00.000Z",
            vec![
                phase("a", 1000, 0, None),
                phase("b", 0, 800, None),
                phase("c", 500, 0, None),
                phase("d", 100, 0, None),
            ],
        );
        let mut ramp = phase("a", 0, 0, None);
        ramp.completed = false;
        let mut cut = phase("b", 0, 600, None);
        cut.completed = false;
        let mut stopped = run(
            "stopped/results.json",
            "s",
            "2026-01-02T00:00:00.000Z",
            vec![cut, ramp, phase("c", 400, 0, None)],
        );
        stopped.results.status = Status::Interrupted;
        let c = compare(&[good, stopped]);
        let cells = |phase: &str, m: Metric| -> Vec<String> {
            let r = c.row(phase, m).unwrap();
            r.cells.iter().map(|x| x.display(r.metric)).collect()
        };
        assert_eq!(cells("a", Metric::TotalIops), ["1000.0", "not measured"]);
        assert_eq!(
            cells("b", Metric::TotalIops),
            ["800.0", "600.0 (-25.0 %) [interrupted]"]
        );
        assert_eq!(
            c.row("b", Metric::TotalIops).unwrap().cells[1].change_number(),
            "-25.0"
        );
        // The composite is c's alone, 400 / 500, over 1 of the 4 workloads: b's 600 is over the part of
        // the phase it ran (trial 21 T3: it was scored on it), a measured nothing, d did not run.
        assert_eq!(
            cells("(all phases)", Metric::Composite),
            ["1.000", "0.800 over 1 of 4 workloads (-20.0 %)"]
        );
        assert_eq!(
            c.row("(all phases)", Metric::Composite).unwrap().cells[1].change_number(),
            "-20.0"
        );
        assert_eq!(
            notes(&c),
            [
                "the composite of stopped [interrupted]: over 1 of 4 workloads: a not measured, b interrupted, d not run; a phase that did not complete is left out (its figures cover part of it)"
            ]
        );
        let t = render_table(&c, None);
        assert!(!t.contains("-100.0 %"), "{t}");
    }

    /// Trial 23 X1: a mixed phase's latency of every I/O together (seed 002's figure of a 65 % read cell)
    /// is one row from each run's total, fio's (its moments: no json+ bins) as wkrun's (its summary), where
    /// wkrun's column said `-` beside fio's headline figure; its max beside it. In a phase of one direction
    /// the rows are left out: they would say what that direction's say.
    #[test]
    fn a_mixed_phase_compares_its_latency_together_from_the_totals() {
        use crate::stats::LatencyMoments;
        use crate::stats::derived::Headline;
        // Oracle: the directions' means weighted by their op counts, the largest of their maxima.
        let together = |r: (u64, f64), w: (u64, f64)| {
            (r.0 as f64 * r.1 + w.0 as f64 * w.1) / (r.0 + w.0) as f64
        };
        let mut fio = phase(
            "mix",
            650,
            350,
            Some(lat(100_000.0, 200_000, 300_000, 400_000)),
        );
        fio.total.latency_moments_ns = Some(LatencyMoments {
            min: 1,
            mean: together((650, 100_000.0), (350, 50_000.0)),
            stddev: 0.0,
            max: 400_000,
        });
        fio.headline = headline::figures(&[Headline::Mean], &fio);
        let mut ours = phase(
            "mix",
            600,
            400,
            Some(lat(120_000.0, 200_000, 300_000, 900_000)),
        );
        let mean = together((600, 120_000.0), (400, 50_000.0));
        ours.total.latency_ns = Some(lat(mean, 200_000, 300_000, 900_000));
        ours.headline = headline::figures(&[Headline::Latency], &ours);
        let mut single = phase("r", 10, 0, Some(lat(1000.0, 1000, 1000, 1000)));
        single.total.latency_ns = single.read.latency_ns.clone();
        let c = compare(&[
            run(
                "fio.json",
                "s",
                "2026-01-01T00:00:00.000Z",
                vec![fio, single.clone()],
            ),
            run(
                "ours/results.json",
                "s",
                "2026-01-02T00:00:00.000Z",
                vec![ours, single],
            ),
        ]);
        assert_eq!(together((650, 100_000.0), (350, 50_000.0)), 82_500.0);
        assert_eq!(mean, 92_000.0);
        let shown = |m: Metric| -> Vec<String> {
            let r = c.row("mix", m).unwrap();
            r.cells.iter().map(|x| x.display(m)).collect()
        };
        assert_eq!(
            shown(Metric::TotalLat(LatStat::Mean)),
            ["82.50", "92.00 (+11.5 %)"]
        );
        assert_eq!(
            shown(Metric::TotalLat(LatStat::Max)),
            ["400.00", "900.00 (+125.0 %)"]
        );
        // One row of that label: fio's headline figure, which it restates, is left out.
        let labels: Vec<&str> = c
            .rows
            .iter()
            .filter(|r| r.phase == "mix")
            .map(|r| r.label.as_str())
            .collect();
        assert_eq!(
            labels
                .iter()
                .filter(|l| **l == "latency, phase mean (µs)")
                .count(),
            1,
            "{labels:?}"
        );
        assert_eq!(
            labels.iter().filter(|l| **l == "latency max (µs)").count(),
            1,
            "{labels:?}"
        );
        assert_eq!(c.row("r", Metric::TotalLat(LatStat::Mean)), None);
        assert_eq!(c.row("r", Metric::TotalLat(LatStat::Max)), None);
    }

    /// Trial 23 X3: a run interrupted in its first phase, an erase, completed no I/O phase: no table (it
    /// had a header over no rows) and a note that says so and where the run ended.
    #[test]
    fn a_run_that_completed_no_io_phase_says_so() {
        let mut purge = testing::phase("purge", 0);
        purge.kind = PhaseKind::Erase;
        let mut r = run(
            "lat-int/results.json",
            "s",
            "2026-01-01T00:00:00.000Z",
            vec![purge],
        );
        r.results.status = Status::Interrupted;
        r.results.signal = Some("SIGINT".into());
        let runs = [r];
        let c = compare(&runs);
        assert_eq!(
            (c.rows.len(), render_table(&c, None), render_markdown(&c)),
            (0, String::new(), String::new())
        );
        let h = &headers(&runs)[0];
        assert_eq!(
            caveats(&runs),
            [format!(
                "{h}: no I/O phase completed: the run was interrupted by SIGINT after phase 0 \"purge\" (erase)"
            )]
        );
        // Beside a run that has phases, the same note, and no "no phase of ... is in another run" for it.
        let other = run(
            "b/results.json",
            "s",
            "2026-01-02T00:00:00.000Z",
            vec![phase("w", 0, 10, None)],
        );
        let runs = [runs[0].clone(), other];
        let h = headers(&runs);
        assert_eq!(
            caveats(&runs),
            [
                format!(
                    "{}: no I/O phase completed: the run was interrupted by SIGINT after phase 0 \"purge\" (erase)",
                    h[0]
                ),
                format!(
                    "no phase of {} is in another run: compare pairs phases by name (fio's by its job's name: fio --name=PHASE)",
                    h[1]
                ),
            ]
        );
    }

    /// Attack 26 F7: a run whose output filesystem filled after its first phase completed failed with no
    /// phase in its results; the note gives its error, not "before its first phase ended" (false: rw1
    /// completed and was printed). A failed run without an error keeps the general words.
    #[test]
    fn a_failed_run_with_no_phase_recorded_gives_its_error() {
        let mut r = run("full/results.json", "s", "2026-01-01T00:00:00.000Z", vec![]);
        r.results.status = Status::Failed;
        r.results.error = Some(
            "cannot write full/results.json: No space left on device (os error 28); the result of phase 0 is missing".into(),
        );
        let runs = [r];
        let h = &headers(&runs)[0];
        assert_eq!(
            caveats(&runs),
            [format!(
                "{h}: no I/O phase completed: the run failed and its results hold no phase: cannot write full/results.json: No space left on device (os error 28); the result of phase 0 is missing"
            )]
        );
        let mut r = runs[0].clone();
        r.results.error = None;
        let runs = [r];
        assert_eq!(
            caveats(&runs),
            [format!(
                "{h}: no I/O phase completed: the run failed before its first phase ended"
            )]
        );
    }

    /// Trial 23 X3: a run started with `--from` took the phases before it as done: its results record them
    /// (`from_phase`) and their cells say so, not `missing`; a run without the record (older results)
    /// keeps `missing`, whatever its first phase's index.
    #[test]
    fn phases_before_from_are_taken_as_done() {
        let t = "2026-01-01T00:00:00.000Z";
        let mut whole = run(
            "a/results.json",
            "s",
            t,
            vec![
                phase("fill", 0, 100, None),
                phase("w", 0, 10, None),
                phase("late", 5, 0, None),
            ],
        );
        whole.results.phases[1].index = 1;
        whole.results.phases[2].index = 2;
        let mut from = run("b/results.json", "s", t, vec![phase("w", 0, 12, None)]);
        from.results.phases[0].index = 1;
        let mut other = from.clone();
        other.file = "c/results.json".into();
        from.results.from_phase = Some(crate::results::FromPhase {
            index: 1,
            name: "w".into(),
            taken_as_done: vec![crate::results::PlannedPhase {
                index: 0,
                name: "fill".into(),
                kind: PhaseKind::Workload,
            }],
        });
        let c = compare(&[whole, from, other]);
        let shown = |phase: &str| -> Vec<String> {
            let r = c.row(phase, Metric::TotalIops).unwrap();
            r.cells.iter().map(|x| x.display(r.metric)).collect()
        };
        assert_eq!(shown("fill"), ["100.0", TAKEN_AS_DONE, "missing"]);
        // A phase after the first it ran is not taken as done: it did not run.
        assert_eq!(shown("late"), ["5.0", "missing", "missing"]);
        assert_eq!(TAKEN_AS_DONE, "taken as done (--from)");
    }

    #[test]
    fn values_and_changes() {
        let c = two();
        assert_eq!(num(&c, "mix", Metric::TotalIops, 0), (1500.0, None));
        assert_eq!(num(&c, "mix", Metric::TotalIops, 1), (1500.0, Some(0.0)));
        assert_eq!(
            num(&c, "mix", Metric::Iops(Direction::Read), 1),
            (1100.0, Some(10.0))
        );
        assert_eq!(
            num(&c, "mix", Metric::Iops(Direction::Write), 1),
            (400.0, Some(-20.0))
        );
        let (v, ch) = num(&c, "mix", Metric::Lat(Direction::Read, LatStat::Mean), 1);
        assert_eq!(v, 112.346);
        assert!((ch.unwrap() - 12.346).abs() < 1e-9);
        assert_eq!(
            num(&c, "mix", Metric::Lat(Direction::Read, LatStat::P99), 1),
            (180.0, Some(-10.0))
        );
        assert_eq!(
            num(&c, "mix", Metric::Lat(Direction::Read, LatStat::Max), 1),
            (500.0, Some(25.0))
        );
        assert_eq!(
            c.row("mix", Metric::Lat(Direction::Read, LatStat::Mean))
                .unwrap()
                .cells[1]
                .display(Metric::Lat(Direction::Read, LatStat::Mean)),
            "112.35 (+12.3 %)"
        );
    }

    /// The newcomer's trial: a simulated drive's write amplification, in results, was in no comparison.
    /// Host and NAND writes in GB and their ratio are rows; the ratio's change is a rise (worse).
    #[test]
    fn a_simulated_drives_write_amplification_is_compared() {
        let device = |host: u64, flash: u64| crate::results::DeviceResult {
            device_csv: None,
            host_write_bytes: host,
            flash_write_bytes: flash,
            gc_copy_bytes: flash - host,
            erased_blocks: 0,
            trimmed_bytes: 0,
            free_blocks: 0,
            write_amplification: Some(flash as f64 / host as f64),
        };
        let mut a = crate::report::testing::phase("w", 0);
        a.device = Some(device(2_000_000_000, 3_000_000_000));
        let mut b = a.clone();
        b.device = Some(device(2_000_000_000, 4_200_000_000));
        let at = "2026-01-01T00:00:00.000Z";
        let c = compare(&[
            run("a/results.json", "s", at, vec![a.clone()]),
            run("b/results.json", "s", at, vec![b]),
        ]);
        let shown = |m: Metric| {
            let r = c.row("w", m).unwrap();
            (
                r.label.clone(),
                r.cells[0].display(m),
                r.cells[1].display(m),
            )
        };
        assert_eq!(
            shown(Metric::HostWrites),
            (
                "host writes, simulated drive (GB)".into(),
                "2.000".into(),
                "2.000 (+0.0 %)".into()
            )
        );
        assert_eq!(
            shown(Metric::FlashWrites),
            (
                "NAND writes, simulated drive (GB)".into(),
                "3.000".into(),
                "4.200 (+40.0 %)".into()
            )
        );
        assert_eq!(
            shown(Metric::WriteAmplification),
            (
                "write amplification, simulated drive".into(),
                "1.500".into(),
                "2.100 (+40.0 %)".into()
            )
        );
        // A phase that only reads wrote nothing: no drive rows but the ratio, which it has not either.
        a.device = Some(device(0, 0));
        a.device.as_mut().unwrap().write_amplification = None;
        let c = compare(&[run("a/results.json", "s", at, vec![a])]);
        for m in [
            Metric::HostWrites,
            Metric::FlashWrites,
            Metric::WriteAmplification,
        ] {
            assert!(c.row("w", m).is_none(), "{m:?}");
        }
    }

    #[test]
    fn phase_order_missing_and_no_data() {
        let c = two();
        let mut phases: Vec<&str> = c.rows.iter().map(|r| r.phase.as_str()).collect();
        phases.dedup();
        assert_eq!(phases, ["mix", "w", "extra", "(all phases)"]);
        // Rows no run has a value of are left out: "w" has no reads, "extra" no writes (10 latency rows of
        // 3 × 14), nor their read and write IOPS (all 0); and rows that restate another: the write IOPS of
        // "w", which only writes, and the read IOPS of "extra", which only reads, are their IOPS. No phase
        // ran on a simulated drive: no drive rows (3 × 3).
        // No phase trims or flushes: the trims' IOPS and latency rows (3 × 6) and the flushes' count and
        // latency rows (3 × 4) are left out too; and every I/O's latency together (3 × 2): "mix"'s total has
        // no latency here, "w" and "extra" did one direction.
        let trims = Metric::numeric()
            .into_iter()
            .filter(|m| {
                matches!(
                    m,
                    Metric::Iops(Direction::Trim)
                        | Metric::Lat(Direction::Trim, _)
                        | Metric::Flushes
                        | Metric::FlushLat(_)
                )
            })
            .count();
        assert_eq!(trims, 6 + 4);
        assert_eq!(
            c.rows.len(),
            3 * (Metric::numeric().len() - trims) + 1 - 10 - 4 - 9 - 6
        );
        for (phase, m) in [
            ("w", Metric::Iops(Direction::Read)),
            ("w", Metric::Iops(Direction::Write)),
        ] {
            assert!(c.row(phase, m).is_none(), "{phase} {m:?}");
        }
        for (phase, m) in [
            ("extra", Metric::Iops(Direction::Read)),
            ("extra", Metric::Iops(Direction::Write)),
        ] {
            assert!(c.row(phase, m).is_none(), "{phase} {m:?}");
        }
        let w = c.row("w", Metric::TotalIops).unwrap();
        assert_eq!(w.cells[1], Cell::Missing);
        let e = c.row("extra", Metric::TotalIops).unwrap();
        assert_eq!(e.cells[0], Cell::Missing);
        assert_eq!(
            e.cells[1],
            Cell::Number {
                value: 10.0,
                change_pct: None
            }
        );
        assert!(
            c.row("w", Metric::Lat(Direction::Read, LatStat::Mean))
                .is_none(),
            "no run of w reads"
        );
        assert!(
            c.row("extra", Metric::Lat(Direction::Write, LatStat::Max))
                .is_none()
        );
        assert_eq!(
            c.row("mix", Metric::Lat(Direction::Read, LatStat::Mean))
                .unwrap()
                .cells
                .len(),
            2,
            "a metric some run has stays"
        );
        // A zero baseline has no relative change.
        assert_eq!(
            number_cells(&[Some(Some(0.0)), Some(Some(5.0))])[1],
            Cell::Number {
                value: 5.0,
                change_pct: None
            }
        );
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

    /// Runs in folders of one name are headed by spec, target and start; a folder merged from hosts by its
    /// hosts (`3 hosts: ...`), not by the first host's target, and marked as a merge beside one target's run
    /// (trial 19 F3), as is the sum of a run on several targets.
    #[test]
    fn a_merged_folder_is_headed_by_its_hosts() {
        use crate::results::Cluster;
        let p = || vec![phase("mix", 1, 1, None)];
        let mut merged = run("a/m/results.json", "s", "2026-01-01T00:00:00.000Z", p());
        merged.results.cluster = Some(Cluster {
            hosts: ["/dev/x", "t1.img", "t2.img"]
                .iter()
                .map(|p| testing::cluster_host(p))
                .collect(),
            alignment: String::new(),
        });
        let one = run("b/m/results.json", "s", "2026-01-02T00:00:00.000Z", p());
        assert_eq!(
            compare(&[merged, one]).columns,
            [
                "s 3 hosts: /dev/x + t1.img + t2.img 2026-01-01T00:00:00.000Z [merge of 3 hosts]",
                "s /dev/x 2026-01-02T00:00:00.000Z"
            ]
        );
        // The sum of a run on two targets (its target the paths joined) is marked beside one target's
        // run, under its label; two sums alike are not.
        let mut sum = run("a/s/results.json", "s", "2026-01-03T00:00:00.000Z", p());
        sum.results.target.path = "a.img + b.img".into();
        sum.results.cluster = Some(Cluster {
            hosts: ["a.img", "b.img"]
                .iter()
                .map(|p| testing::cluster_host(p))
                .collect(),
            alignment: String::new(),
        });
        sum.results.label = Some("two".into());
        let mut one = run("b/o/results.json", "s", "2026-01-02T00:00:00.000Z", p());
        one.results.label = Some("one".into());
        assert_eq!(
            compare(&[one, sum.clone()]).columns,
            ["one", "two [sum of 2 targets]"]
        );
        let mut twin = sum.clone();
        twin.results.label = Some("twin".into());
        assert_eq!(compare(&[sum, twin]).columns, ["two", "twin"]);
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
    fn the_wait_kept_after_the_probe_is_a_row_only_where_runs_differ() {
        use crate::results::{HostResult, RoundVerdict, WaitsProbe, WaitsRound};
        let waits = |kept: KeptWaits, verdicts: &[RoundVerdict]| {
            let mut p = phase("q", 0, 100, None);
            p.host = Some(HostResult {
                submit_cpu_fraction: 0.5,
                cpu_wait_fraction: None,
                submit_threads: 1,
                completion_waits: Some(WaitsProbe {
                    kept,
                    each_iops: 100.0,
                    batched_iops: 120.0,
                    rounds: verdicts
                        .iter()
                        .map(|&verdict| WaitsRound {
                            each_iops: 100.0,
                            batched_iops: 120.0,
                            verdict,
                        })
                        .collect(),
                }),
            });
            p
        };
        let won = waits(
            KeptWaits::Batched,
            &[RoundVerdict::Unsure, RoundVerdict::Won],
        );
        let lost = waits(KeptWaits::Each, &[RoundVerdict::Lost]);
        let unprobed = phase("q", 0, 100, None);
        let t = "2026-01-01T00:00:00.000Z";
        let c = compare(&[
            run("a", "a", t, vec![won.clone()]),
            run("b", "b", t, vec![lost]),
            run("c", "c", t, vec![unprobed]),
            run("d", "d", t, vec![]),
        ]);
        let r = c.row("q", Metric::CompletionWaits).unwrap();
        assert_eq!(r.label, "io_uring completion waits");
        assert_eq!(
            r.cells,
            [
                Cell::Text("batched (latency up to 20 µs long)".into()),
                Cell::Text("per completion".into()),
                Cell::Text("-".into()),
                Cell::Missing
            ]
        );
        // The same way kept in every run (rounds aside): no row.
        let again = waits(KeptWaits::Batched, &[RoundVerdict::Won]);
        let c = compare(&[run("a", "a", t, vec![won]), run("b", "b", t, vec![again])]);
        assert!(c.row("q", Metric::CompletionWaits).is_none());
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

    /// Issue 24 item 11, issue 25 item 7: on a terminal, long run names wrap and twenty runs make blocks of
    /// columns that each fit, every run in exactly one block, each block with the phase and metric columns.
    #[test]
    fn a_table_fits_the_terminal_in_blocks_of_columns() {
        let names: Vec<String> = (0..20)
            .map(|i| {
                format!("consistency sim:capacity=2GiB,op={i}%,dies=1 2026-12-04T18:09:43.{i:03}Z")
            })
            .collect();
        let cells: Vec<Cell> = (0..20)
            .map(|i| Cell::Number {
                value: 1000.0 + f64::from(i),
                change_pct: (i > 0).then_some(f64::from(i) / 10.0),
            })
            .collect();
        let c = Comparison {
            columns: names.clone(),
            rows: vec![Row {
                note: None,
                phase: "random-write".into(),
                metric: Metric::TotalIops,
                label: Metric::TotalIops.label(),
                cells,
            }],
        };
        let t = render_table(&c, Some(100));
        assert!(t.lines().all(|l| crate::text::cells(l) <= 100), "{t}");
        // Every block has the phase's row and leads with the first run, the baseline; every other run's
        // value and its header's date line are in one block.
        let blocks = t.split("\n\n").count();
        assert!(
            blocks > 1 && t.matches("random-write").count() == blocks,
            "{t}"
        );
        for i in 0..20 {
            let times = if i == 0 { blocks } else { 1 };
            assert_eq!(
                t.matches(&format!("{}.0", 1000 + i)).count(),
                times,
                "run {i}: {t}"
            );
            assert_eq!(
                t.matches(&format!("18:09:43.{i:03}Z")).count(),
                times,
                "run {i}: {t}"
            );
        }
        // Without a width (a pipe): one line per row, names whole.
        let p = render_table(&c, None);
        assert_eq!(p.lines().count(), 3);
        assert!(p.lines().next().unwrap().contains(&names[19]));
    }

    /// Trial: at `--width 150` a table about 100 columns wide put a long label on a line of its own, its
    /// values on the next, so `grep LABEL` found no value. A row stays on one line where it fits; where
    /// it does not (`--width 60`), the label goes on its own line as before.
    #[test]
    fn a_long_label_keeps_its_row_on_one_line_where_it_fits() {
        let mut c = two();
        let label = "latency mean before the span written once (µs)";
        let row = c.rows.iter_mut().find(|r| r.phase == "mix").expect("mix");
        row.label = label.into();
        let t = render_table(&c, Some(150));
        let line = t.lines().find(|l| l.contains(label)).expect("the row");
        assert_eq!(
            line.split("  ")
                .filter(|w| !w.is_empty())
                .map(str::trim)
                .collect::<Vec<_>>(),
            ["mix", label, "1500.0", "1500.0 (+0.0 %)"],
            "{t}"
        );
        let width = t.lines().map(crate::text::cells).max().unwrap_or(0);
        assert_eq!(crate::text::cells(line), width, "{t}");
        assert!(width <= 150, "{t}");
        let narrow = render_table(&c, Some(60));
        let own = narrow
            .lines()
            .find(|l| l.contains(label))
            .expect("the label");
        assert_eq!(
            own.split("  ").filter(|w| !w.is_empty()).count(),
            2,
            "{narrow}"
        );
    }

    /// Trial 40: a steady-state verdict's 150-character reason widened every line of a 120-column table to
    /// 495 cells. On a terminal it is a numbered note under the table; a pipe keeps it in its cell.
    #[test]
    fn a_long_value_is_a_note_under_a_terminal_table() {
        let mut c = two();
        let why = "not judged: no round fell below 0.5 × the peak 1040.6 (steady_after.drop 0.5); the drop may lie inside the first round, which its average hides";
        let row = c.rows.iter_mut().find(|r| r.phase == "mix").expect("mix");
        row.cells = vec![Cell::Text(why.into()), Cell::Text(why.into())];
        let t = render_table(&c, Some(100));
        assert!(t.lines().all(|l| crate::text::cells(l) <= 100), "{t}");
        let line = t.lines().find(|l| l.starts_with("mix")).expect("mix row");
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            cells,
            ["mix", "IOPS,", "phase", "mean", "[1]", "[1]"],
            "{line}"
        );
        let notes: Vec<&str> = t.lines().skip_while(|l| !l.starts_with("[1] ")).collect();
        assert_eq!(
            notes,
            [
                "[1] not judged: no round fell below 0.5 × the peak 1040.6 (steady_after.drop 0.5); the drop may lie",
                "    inside the first round, which its average hides",
            ],
            "{t}"
        );
        assert!(render_table(&c, None).contains(why));
    }

    #[test]
    fn renderers() {
        let c = two();
        let t = render_table(&c, None);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("phase"));
        assert!(lines[1].starts_with("-----"));
        // Every non-blank line has the same width: aligned columns.
        let w = lines[0].chars().count();
        let row = lines
            .iter()
            .find(|l| l.starts_with("mix           read IOPS, phase mean"))
            .unwrap();
        assert!(row.ends_with("1100.0 (+10.0 %)"), "{row}");
        assert_eq!(row.chars().count(), w);
        assert!(t.contains("missing"));

        let md = render_markdown(&c);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[1], "|---|---|---:|---:|");
        assert!(lines.contains(&"| mix | write IOPS, phase mean | 500.0 | 400.0 (-20.0 %) |"));
        assert_eq!(lines.len(), 2 + c.rows.len());

        let csv = render_csv(&c);
        let mut r = csv::Reader::from_reader(csv.as_bytes());
        let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(h.len(), 5);
        assert_eq!(h[4], format!("{} change (%)", c.columns[1]));
        let recs: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(recs.len(), c.rows.len());
        let rec = recs
            .iter()
            .find(|r| &r[0] == "mix" && &r[1] == "write IOPS, phase mean")
            .unwrap();
        assert_eq!(
            rec.iter().collect::<Vec<_>>(),
            ["mix", "write IOPS, phase mean", "500.0", "400.0", "-20.0"]
        );
        // Every change column holds a plain number or nothing.
        for rec in &recs {
            assert!(
                rec[4].is_empty() || rec[4].parse::<f64>().is_ok(),
                "{rec:?}"
            );
        }
    }

    fn figure(
        key: &str,
        label: &str,
        value: Option<f64>,
        unit: &str,
        better: Option<Better>,
    ) -> Figure {
        Figure {
            key: key.into(),
            label: label.into(),
            value,
            unit: unit.into(),
            better,
        }
    }

    #[test]
    fn headline_rows_lead_each_phase_matched_by_key() {
        let mut a = phase("sat", 0, 1000, None);
        a.headline = vec![
            figure(
                "window last 20min avg",
                "IOPS, last 20min, avg",
                Some(400.0),
                "IOPS",
                Some(Better::Higher),
            ),
            figure(
                "fill_once at_s",
                "time to write the span once",
                Some(1500.0),
                "s",
                None,
            ),
        ];
        let mut b = phase("sat", 0, 900, None);
        // b lacks the fill figure's value and lists the window second: matched by key, not position.
        b.headline = vec![
            figure(
                "fill_once at_s",
                "time to write the span once",
                None,
                "s",
                None,
            ),
            figure(
                "window last 20min avg",
                "IOPS, last 20min, avg",
                Some(300.0),
                "IOPS",
                Some(Better::Higher),
            ),
        ];
        let t = "2026-01-01T00:00:00.000Z";
        let c = compare(&[run("a", "s", t, vec![a]), run("b", "s", t, vec![b])]);
        let labels: Vec<&str> = c.rows.iter().take(3).map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "IOPS, last 20min, avg",
                "time to write the span once (s)",
                "IOPS, phase mean"
            ]
        );
        assert_eq!(
            c.rows[0].cells,
            [
                Cell::Number {
                    value: 400.0,
                    change_pct: None
                },
                Cell::Number {
                    value: 300.0,
                    change_pct: Some(-25.0)
                }
            ]
        );
        assert_eq!(c.rows[1].cells[1], Cell::NoData);
        assert_eq!(c.rows[1].cells[0].display(c.rows[1].metric), "1500.0");
        // The composite takes each phase's first figure with a direction: 300 / 400.
        let comp = c.row("(all phases)", Metric::Composite).unwrap();
        assert_eq!(
            comp.cells,
            [
                Cell::Number {
                    value: 1.0,
                    change_pct: None
                },
                Cell::Number {
                    value: 0.75,
                    change_pct: Some(-25.0)
                }
            ]
        );
    }

    /// Trial 13 F9: `wkrun compare DIR fio.json` showed a fill's mean twice, once as fio's headline (which
    /// wkrun's fill has none of) and once as the whole-phase row: one row each now, the whole-phase one,
    /// which has both runs' values.
    #[test]
    fn a_headline_one_run_lacks_is_not_said_twice() {
        let mut fill = phase("fill", 0, 400, None);
        fill.kind = PhaseKind::Fill;
        let mut fio = phase("fill", 0, 800, None);
        fio.headline = vec![
            figure(
                "mean iops",
                "IOPS, phase mean",
                Some(800.0),
                "IOPS",
                Some(Better::Higher),
            ),
            figure(
                "mean mb_s",
                "bandwidth, phase mean",
                Some(3.2768),
                "MB/s",
                Some(Better::Higher),
            ),
            figure(
                "mean lat_mean_us",
                "latency, phase mean",
                Some(50.0),
                "µs",
                Some(Better::Lower),
            ),
        ];
        let t = "2026-01-01T00:00:00.000Z";
        let c = compare(&[run("a", "s", t, vec![fill]), run("b", "s", t, vec![fio])]);
        let labels: Vec<&str> = c
            .rows
            .iter()
            .filter(|r| r.phase == "fill")
            .map(|r| r.label.as_str())
            .collect();
        assert_eq!(
            labels,
            [
                "IOPS, phase mean",
                "bandwidth, phase mean (MB/s)",
                "write latency, phase mean (µs)",
                "write latency p50 (µs)",
                "write latency p99 (µs)",
                "write latency p99.9 (µs)",
                "write latency max (µs)"
            ]
        );
        let table = render_table(&c, None);
        let lines: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with("fill "))
            .take(3)
            .collect();
        assert_eq!(
            lines,
            [
                "fill          IOPS, phase mean                                       400.0  800.0 (+100.0 %)",
                "fill          bandwidth, phase mean (MB/s)                            1.64   3.28 (+100.0 %)",
                "fill          write latency, phase mean (µs)                         50.00    50.00 (+0.0 %)"
            ]
        );
        // A headline every run has, equal to the whole-phase row, is still the one said (the plain row
        // left out).
        let mut a = phase("w", 0, 400, None);
        a.headline = vec![figure(
            "mean iops",
            "IOPS, phase mean",
            Some(400.0),
            "IOPS",
            Some(Better::Higher),
        )];
        let c = compare(&[run("a", "s", t, vec![a.clone()]), run("b", "s", t, vec![a])]);
        let iops: Vec<(&str, bool)> = c
            .rows
            .iter()
            .filter(|r| r.label.starts_with("IOPS"))
            .map(|r| {
                (
                    r.label.as_str(),
                    matches!(r.metric, Metric::Headline { .. }),
                )
            })
            .collect();
        assert_eq!(iops, [("IOPS, phase mean", true)]);
    }

    #[test]
    fn composite_is_the_geometric_mean_of_ratios() {
        // Phase "r": lead = total IOPS (no headline), 1000 → 810 (ratio 0.81). Phase "l": lead = a latency
        // (lower is better), 100 → 400 µs (ratio 100/400 = 0.25). Geometric mean √(0.81 · 0.25) = 0.45.
        let lat = |v: f64| {
            vec![figure(
                "latency write mean_us",
                "write latency mean",
                Some(v),
                "µs",
                Some(Better::Lower),
            )]
        };
        let mut l1 = phase("l", 0, 5, None);
        l1.headline = lat(100.0);
        let mut l2 = phase("l", 0, 5, None);
        l2.headline = lat(400.0);
        // A fill, 10x slower in run b, prepares the drive and is not in the score.
        let fill = |writes: u64| {
            let mut f = phase("f", 0, writes, None);
            f.kind = PhaseKind::Fill;
            f
        };
        let t = "t";
        let runs = [
            run("a", "a", t, vec![fill(1000), phase("r", 1000, 0, None), l1]),
            run("b", "b", t, vec![fill(100), phase("r", 810, 0, None), l2]),
            run("c", "c", t, vec![phase("x", 1, 0, None)]),
        ];
        let c = composite(&runs.iter().map(|r| &r.results).collect::<Vec<_>>());
        assert_eq!(c[0], Some(1.0));
        assert!((c[1].unwrap() - 0.45).abs() < 1e-12, "{c:?}");
        assert_eq!(c[2], None);
        let cmp = compare(&runs);
        let row = cmp.row("(all phases)", Metric::Composite).unwrap();
        assert_eq!(row.cells[1].display(Metric::Composite), "0.450 (-55.0 %)");
        assert_eq!(row.cells[2], Cell::NoData);
    }

    /// The lead figure is a level, never an extreme: the worst interval (first in seed 000's headline) is
    /// passed over for the steady window's mean; where one run never reached steady state, the next level
    /// both have, the window's average, leads.
    #[test]
    fn the_composite_leads_with_a_level_both_runs_have() {
        let figs = |worst: f64, steady: Option<f64>, avg: f64| {
            vec![
                figure(
                    "worst iops",
                    "worst",
                    Some(worst),
                    "IOPS",
                    Some(Better::Higher),
                ),
                figure(
                    "steady at_s",
                    "time",
                    steady.map(|_| 720.0),
                    "s",
                    Some(Better::Lower),
                ),
                figure(
                    "steady window_mean",
                    "steady",
                    steady,
                    "IOPS",
                    Some(Better::Higher),
                ),
                figure(
                    "window 1400s.. avg",
                    "avg",
                    Some(avg),
                    "IOPS",
                    Some(Better::Higher),
                ),
            ]
        };
        let ph = |name: &str, h: Vec<Figure>| {
            let mut p = phase(name, 0, 5, None);
            p.headline = h;
            p
        };
        let t = "t";
        let runs = [
            run(
                "a",
                "a",
                t,
                vec![
                    ph("s100", figs(172.0, Some(270.0), 269.0)),
                    ph("s75", figs(796.0, Some(1246.0), 1253.0)),
                ],
            ),
            // s100: steady 270 → 945 (3.5); s75: not steady in b, 1253 → 2506 on the window (2.0).
            run(
                "b",
                "b",
                t,
                vec![
                    ph("s100", figs(1.0, Some(945.0), 940.0)),
                    ph("s75", figs(9999.0, None, 2506.0)),
                ],
            ),
        ];
        let c = composite(&runs.iter().map(|r| &r.results).collect::<Vec<_>>());
        let want = (3.5f64 * 2.0).sqrt();
        assert!((c[1].unwrap() - want).abs() < 1e-12, "{c:?}, want {want}");
    }

    /// Trial 27 L3: fio's job headed by its IOPS, phase mean, then its steady window mean, beside wkrun's
    /// phase headed by its steady window: scored on the steady window mean, the note saying the first
    /// run's lead is not among the other's headline figures (the rows show both runs' IOPS, phase mean).
    #[test]
    fn a_lead_the_other_headline_lacks_is_said_so() {
        let mean = |v: f64| {
            figure(
                "steady window_mean",
                "IOPS, steady window mean",
                Some(v),
                "IOPS",
                Some(Better::Higher),
            )
        };
        let mut fio = phase("ssr", 1000, 0, None);
        fio.headline = vec![
            figure(
                TOTAL_IOPS,
                "IOPS, phase mean",
                Some(1000.0),
                "IOPS",
                Some(Better::Higher),
            ),
            mean(1100.0),
        ];
        let mut wk = phase("ssr", 900, 0, None);
        wk.headline = vec![mean(1045.0)];
        let t = "t";
        let (a, b) = (run("a", "s", t, vec![fio]), run("b", "s", t, vec![wk]));
        let runs = [&a.results, &b.results];
        let s = scores(&runs, &[]);
        assert_eq!(s[1].value.map(|v| (v * 1e9).round()), Some(0.95e9));
        let cols = ["a".to_string(), "b".to_string()];
        assert_eq!(
            composite_note(&runs, &s).unwrap().text(&cols),
            "a workload is scored on the first lead figure both runs' headline figures have, else on its IOPS, phase mean: b: ssr on IOPS, steady window mean (IOPS, phase mean, the first run's lead, is not among this run's headline figures)"
        );
    }

    /// Trial 26 M2: a run too short for its steady window (window mean null) beside one that reached it
    /// shares no lead figure: the workload is scored on its total IOPS, as the docs say, not left out
    /// `without a lead figure in both`, and the composite's note says which figure led, whichever run is
    /// first. A phase each leads on its own with the pair's figure is not noted. The note says whose lead
    /// the pair is not scored on and what the other's headline figures lack (trial 27 L3).
    #[test]
    fn a_steady_window_one_run_lacks_scores_the_workload_on_its_iops() {
        let steady = |mean: Option<f64>| {
            vec![
                figure(
                    "steady at_s",
                    "time to steady state",
                    mean.map(|_| 5.0),
                    "s",
                    Some(Better::Lower),
                ),
                figure(
                    "steady window_mean",
                    "IOPS, steady window mean",
                    mean,
                    "IOPS",
                    Some(Better::Higher),
                ),
            ]
        };
        let rw = |writes: u64, mean: Option<f64>| {
            let mut p = phase("randwrite", 0, writes, None);
            p.headline = steady(mean);
            p
        };
        let t = "t";
        // randwrite: 8000 → 4000 IOPS (0.5); mix: 1000 → 900 (0.9), no headline. √(0.5 · 0.9).
        let full = run(
            "a",
            "s",
            t,
            vec![rw(8000, Some(10_000.0)), phase("mix", 700, 300, None)],
        );
        let short = run(
            "b",
            "s",
            t,
            vec![rw(4000, None), phase("mix", 630, 270, None)],
        );
        let lead = pair_lead(&full.results.phases[0], &short.results.phases[0]).unwrap();
        assert_eq!(
            (lead.key.as_str(), lead.label.as_str(), lead.values),
            (TOTAL_IOPS, "IOPS, phase mean", (8000.0, 4000.0))
        );
        assert_eq!(lead.ratio(), 0.5);
        let runs = [&full.results, &short.results];
        let s = scores(&runs, &[]);
        assert!(
            (s[1].value.unwrap() - 0.45f64.sqrt()).abs() < 1e-12,
            "{s:?}"
        );
        assert_eq!((s[1].of, s[1].left.len()), (2, 0));
        let cols = ["a".to_string(), "b".to_string()];
        let said = "a workload is scored on the first lead figure both runs' headline figures have, else on its IOPS, phase mean: b: randwrite on IOPS, phase mean (IOPS, steady window mean, the first run's lead, has no value among this run's headline figures)";
        assert_eq!(composite_note(&runs, &s).unwrap().text(&cols), said);
        // The short run first: 4000 → 8000 (2.0), 900 → 1000; the same figure led, said alike.
        let back = [&short.results, &full.results];
        let s = scores(&back, &[]);
        assert!(
            (s[1].value.unwrap() - (2.0f64 / 0.9).sqrt()).abs() < 1e-12,
            "{s:?}"
        );
        let said = "a workload is scored on the first lead figure both runs' headline figures have, else on its IOPS, phase mean: b: randwrite on IOPS, phase mean (IOPS, steady window mean, this run's lead, has no value among the first run's headline figures)";
        assert_eq!(composite_note(&back, &s).unwrap().text(&cols), said);
        // Both too short: each leads on its IOPS on its own, nothing to say.
        let both = [&short.results, &short.results];
        assert_eq!(composite_note(&both, &scores(&both, &[])), None);
    }

    /// A headline time that is a fact (`better` absent: when the worst interval ended) gets no change; a
    /// score (time to steady state, lower is better) does.
    #[test]
    fn a_fact_has_no_change_and_a_score_has() {
        let figs = |end: f64, steady: f64| {
            vec![
                figure("worst at_s", "worst interval ends at", Some(end), "s", None),
                figure(
                    "steady at_s",
                    "time to steady state",
                    Some(steady),
                    "s",
                    Some(Better::Lower),
                ),
            ]
        };
        let mut a = phase("w", 0, 5, None);
        a.headline = figs(18.0, 720.0);
        let mut b = phase("w", 0, 5, None);
        b.headline = figs(80.0, 360.0);
        let t = "t";
        let c = compare(&[run("a", "s", t, vec![a]), run("b", "s", t, vec![b])]);
        let cells = |label: &str| {
            c.rows
                .iter()
                .find(|r| r.phase == "w" && r.label.starts_with(label))
                .map(|r| r.cells.clone())
                .unwrap_or_else(|| panic!("{label}"))
        };
        assert_eq!(
            cells("worst interval ends at")[1],
            Cell::Number {
                value: 80.0,
                change_pct: None
            }
        );
        assert_eq!(
            cells("time to steady state")[1],
            Cell::Number {
                value: 360.0,
                change_pct: Some(-50.0)
            }
        );
    }

    #[test]
    fn p50_rows() {
        let c = two();
        // lat(): p50 is the p99 given, 200 µs → 180 µs.
        assert_eq!(
            num(&c, "mix", Metric::Lat(Direction::Read, LatStat::P50), 1),
            (180.0, Some(-10.0))
        );
        assert_eq!(
            num(&c, "mix", Metric::Lat(Direction::Write, LatStat::P50), 0),
            (60.0, None)
        );
    }

    /// Trial 26 L6: a stream seed that is the hash of the phase's seed and name, as a run records it, is not
    /// a parameter that differs (phases of other names, paired by `--by`, have other streams by design);
    /// the seed shows when it differs, and a stream seed that is not so derived shows.
    #[test]
    fn a_derived_stream_seed_is_not_shown_as_differing() {
        let with = |name: &str, seed: u64, stream: Option<u64>| {
            let mut p = phase(name, 10, 0, None);
            p.params.seed = Some(seed);
            p.params.stream_seed = Some(stream.unwrap_or(crate::ops::phase_seed(seed, name)));
            p
        };
        let (a, b) = (with("fresh", 1, None), with("used", 1, None));
        assert_eq!(
            differing_params(&[Some(&a), Some(&b)], &[false, false]),
            None
        );
        let b = with("used", 2, None);
        assert_eq!(
            differing_params(&[Some(&a), Some(&b)], &[false, false]),
            Some(vec![
                Cell::Text("seed=1".into()),
                Cell::Text("seed=2".into())
            ])
        );
        let b = with("used", 1, Some(99));
        assert_eq!(
            differing_params(&[Some(&a), Some(&b)], &[false, false]),
            Some(vec![
                Cell::Text(format!(
                    "stream_seed={}",
                    crate::ops::phase_seed(1, "fresh")
                )),
                Cell::Text("stream_seed=99".into())
            ])
        );
    }

    /// Trial 27 L2: fio's read job capped `{"read":2000}` beside wkrun's reads capped `{"total":2000}` is
    /// the same cap; a mix's read cap and total cap are not, and are shown as written.
    #[test]
    fn rate_caps_differ_by_what_they_do() {
        let capped = |read: u8, cap: &str| {
            let mut p = phase("capped", 10, 0, None);
            p.params.read_percent = Some(read);
            p.params.rate_iops = Some(serde_json::from_str(cap).expect("cap"));
            p
        };
        let (a, b) = (
            capped(100, r#"{"read":2000}"#),
            capped(100, r#"{"total":2000}"#),
        );
        assert_eq!(
            differing_params(&[Some(&a), Some(&b)], &[false, false]),
            None
        );
        let (a, b) = (
            capped(70, r#"{"read":2000}"#),
            capped(70, r#"{"total":2000}"#),
        );
        assert_eq!(
            differing_params(&[Some(&a), Some(&b)], &[false, false]),
            Some(vec![
                Cell::Text(r#"rate_iops={"read":2000}"#.into()),
                Cell::Text(r#"rate_iops={"total":2000}"#.into())
            ])
        );
        let b = capped(100, r#"{"total":1000}"#);
        assert_eq!(
            differing_params(
                &[Some(&capped(100, r#"{"read":2000}"#)), Some(&b)],
                &[false, false]
            ),
            Some(vec![
                Cell::Text(r#"rate_iops={"read":2000}"#.into()),
                Cell::Text(r#"rate_iops={"total":1000}"#.into())
            ])
        );
    }

    /// Trial 27 M3 and L2: a cap per direction in the read share, or on the one direction a phase does,
    /// is the total cap it equals; shown as each run has it when some other parameter differs.
    #[test]
    fn a_cap_per_direction_equal_to_a_total_is_not_a_difference() {
        use crate::vocab::Rate;
        let capped = |read_percent: u8, total, read, write| {
            let mut p = phase("m", 10, 10, None);
            p.params.read_percent = Some(read_percent);
            p.params.rate_iops = Some(Rate { total, read, write });
            p
        };
        let t = "t";
        let rows = |a: PhaseResult, b: PhaseResult| {
            let c = compare(&[run("a", "s", t, vec![a]), run("b", "s", t, vec![b])]);
            c.row("m", Metric::Parameters).map(|r| r.cells.clone())
        };
        for (rp, read, write) in [
            (50, Some(250), Some(250)),
            (70, Some(350), Some(150)),
            (100, Some(500), None),
            (0, None, Some(500)),
        ] {
            let total = capped(rp, Some(500), None, None);
            assert_eq!(rows(total, capped(rp, None, read, write)), None, "{rp}");
        }
        let cell = |s: &str| Cell::Text(s.into());
        assert_eq!(
            rows(
                capped(50, Some(500), None, None),
                capped(50, None, Some(249), Some(249))
            ),
            Some(vec![
                cell("rate_iops={\"total\":500}"),
                cell("rate_iops={\"read\":249,\"write\":249}")
            ])
        );
        let mut trims = capped(50, None, Some(250), Some(250));
        trims.params.trim_percent = Some(10);
        assert!(rows(capped(50, Some(500), None, None), trims).is_some());
        let huge = Rate {
            total: None,
            read: Some(u64::MAX),
            write: Some(u64::MAX),
        };
        assert_eq!(huge.acting_on(50, 0), huge);
        // Attack 29 F4: direction caps the total keeps under are absent: `{ read = 300, write = 300,
        // total = 400 }` at 70 % runs as 400 and as fio's 280,120; a read cap of 100 beside it binds.
        let inert = || capped(70, Some(400), Some(300), Some(300));
        assert_eq!(rows(capped(70, Some(400), None, None), inert()), None);
        assert_eq!(rows(inert(), capped(70, None, Some(280), Some(120))), None);
        assert_eq!(
            rows(
                capped(70, Some(400), None, None),
                capped(70, Some(400), Some(100), None)
            ),
            Some(vec![
                cell("rate_iops={\"total\":400}"),
                cell("rate_iops={\"total\":400,\"read\":100}")
            ])
        );
    }

    #[test]
    fn differing_parameters_and_overrides_are_shown() {
        let mut p1 = phase("m", 10, 0, None);
        let mut p2 = phase("m", 10, 0, None);
        p1.params.queue_depth = Some(4);
        p2.params.queue_depth = Some(32);
        p2.params.seed = Some(7);
        let t = "t";
        let mut b = run("b", "s", t, vec![p2]);
        b.results.spec.overrides = vec!["queue_depth=32".into(), "seed=7".into()];
        b.results.spec.sha256 = format!("abcdef{}", "0".repeat(58));
        let c = compare(&[run("a", "s", t, vec![p1]), b, run("c", "s", t, vec![])]);
        let spec = c.row("(runs)", Metric::Spec).unwrap();
        // The test results' hash is "00" (shown whole); a real one is cut to 12 digits.
        assert_eq!(
            spec.cells,
            [
                Cell::Text("s 1 sha256:00".into()),
                Cell::Text("s 1 sha256:abcdef000000".into()),
                Cell::Text("s 1 sha256:00".into())
            ]
        );
        let o = c.row("(runs)", Metric::Overrides).unwrap();
        assert_eq!(
            o.cells,
            [
                Cell::Text("none".into()),
                Cell::Text("queue_depth=32 seed=7".into()),
                Cell::Text("none".into())
            ]
        );
        let p = c.row("m", Metric::Parameters).unwrap();
        assert_eq!(
            p.cells,
            [
                Cell::Text("queue_depth=4 seed=-".into()),
                Cell::Text("queue_depth=32 seed=7".into()),
                Cell::Missing
            ]
        );
        // Workers on spans of two sizes: the span and the op count show, not each worker's part.
        let parts = |n: u64| {
            (0..2)
                .map(|w| WorkerPart {
                    worker: w as u32,
                    span_start_bytes: w * n / 2,
                    span_bytes: n / 2,
                    seed: w + 1,
                    ops: Some(n / 8192),
                })
                .collect::<Vec<_>>()
        };
        let (mut w1, mut w2) = (phase("w", 10, 0, None), phase("w", 10, 0, None));
        for (p, n) in [(&mut w1, 1u64 << 20), (&mut w2, 1 << 21)] {
            p.params.workers = Some(2);
            p.params.span_bytes = n;
            p.params.ops = Some(n / 4096);
            p.params.worker_parts = parts(n);
        }
        let c = compare(&[run("a", "s", t, vec![w1]), run("b", "s", t, vec![w2])]);
        assert_eq!(
            c.row("w", Metric::Parameters).unwrap().cells,
            [
                Cell::Text("span_bytes=1048576 ops=256".into()),
                Cell::Text("span_bytes=2097152 ops=512".into())
            ]
        );
        // Alike runs have neither row.
        let same = two();
        assert!(same.row("mix", Metric::Parameters).is_none());
        assert!(
            same.rows
                .iter()
                .all(|r| r.metric != Metric::Overrides && r.metric != Metric::Spec)
        );
    }

    /// Where a composite is given, each run whose numbers describe the host gets a note, by its heading: a
    /// file (with its path), a loop device without direct I/O, a block device with a buffered phase; a
    /// block device read directly and the simulated drive get none, and one run alone (no composite) none.
    #[test]
    fn runs_on_the_host_get_a_note_where_a_composite_is_given() {
        use crate::target::CachedLoop;
        let t = "2026-01-01T00:00:00.000Z";
        let p = || {
            vec![phase(
                "mix",
                100,
                100,
                Some(lat(40_000.0, 50_000, 60_000, 70_000)),
            )]
        };
        let on = |dir: &str, kind: TargetKind| {
            let mut r = run(&format!("{dir}/results.json"), "s", t, p());
            r.results.target.kind = kind;
            r
        };
        let mut looped = on("loop", TargetKind::Block);
        looped.results.target.page_cached_loop = Some(CachedLoop {
            device: "/dev/loop3".into(),
            backing_file: "/srv/b.img".into(),
        });
        let mut buffered = on("buffered", TargetKind::Block);
        buffered.results.phases[0].params.direct = Some(false);
        let mut over_file = on("overfile", TargetKind::Block);
        over_file.results.target.file_backed_loop = Some(CachedLoop {
            device: "/dev/loop4".into(),
            backing_file: "/srv/c.img".into(),
        });
        let runs = [
            on("direct", TargetKind::Block),
            looped,
            over_file,
            buffered,
            on("sim", TargetKind::Sim),
            on("file", TargetKind::File),
        ];
        let tail = "so the changes and the composite may be noise, differing from run to run";
        assert_eq!(
            host_caveats(&runs, &compare(&runs)),
            [
                format!(
                    "loop: on a loop device without direct I/O (/dev/loop3): the numbers describe the host's page cache as much as a drive, {tail}"
                ),
                format!(
                    "overfile: on a loop device over a file (/srv/c.img): the numbers describe the file and the file system and storage under it, not an SSD, {tail}"
                ),
                format!(
                    "buffered: with workloads of direct = false: the numbers describe the host's page cache as much as a drive, {tail}"
                ),
                format!(
                    "file: on a file (/dev/x): the numbers describe the file and the file system and page cache under it, not an SSD, {tail}"
                ),
            ]
        );
        // Two runs on one file: one line naming both; a run whose workloads ran on the null engine (no I/O) none.
        let mut null = on("null", TargetKind::File);
        null.results.phases[0].params.engine = Some(crate::vocab::EngineKind::Null);
        let two = [on("a", TargetKind::File), on("b", TargetKind::File), null];
        assert_eq!(
            host_caveats(&two, &compare(&two)),
            [format!(
                "a, b: on a file (/dev/x): the numbers describe the file and the file system and page cache under it, not an SSD, {tail}"
            )]
        );
        let one = &runs[5..];
        assert_eq!(host_caveats(one, &compare(one)), Vec::<String>::new());
        // A block device read directly, but on a busy host (its phase warned so): a note; a simulated
        // drive's virtual time none, warned or not.
        let warned = |mut r: Run| {
            r.results.phases[0].warnings = vec![format!(
                "{BUSY_HOST} the rates are below the device's; rerun on an idle host: a submitting thread waited for a CPU 58 % of the phase"
            )];
            r
        };
        let busy = [
            on("quiet", TargetKind::Block),
            warned(on("busy", TargetKind::Block)),
            warned(on("sim", TargetKind::Sim)),
        ];
        assert_eq!(
            host_caveats(&busy, &compare(&busy)),
            [format!(
                "busy: on a busy host: a submitting thread waited for a CPU (its phases' warnings say how long: wkrun warnings), so the rates are the host's as much as the device's, {tail}"
            )]
        );
    }
}
