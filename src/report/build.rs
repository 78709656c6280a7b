//! `wkrun report`: every plot of a set of runs ([`make`], in memory) and the report folder ([`write()`]): the
//! SVG files and `index.html`.
//!
//! Per I/O phase (matched by name across runs), for each direction with I/O: IOPS per interval on a log
//! axis and on a linear axis, a zoom on `--window`, and latency per interval; then one percentile curve per
//! phase. Per sweep or matrix (phases sharing a base name and label keys): total IOPS and latency across
//! its phases.

use super::chart::iops::{Scale, iops_scatter};
use super::chart::latency::latency_series;
use super::chart::percentiles::percentiles;
use super::chart::sweep::{LabelMetric, label_chart};
use super::chart::{Chart, PlotError};
use super::html;
use super::model::{Figure, Options, PhaseSection, Report, SweepSection};
use super::runs::{Dir, LabelGroup, PhaseGroup, RunData, label_groups, phase_groups};
use crate::results::outdir::OutDir;
use crate::stats::window::WindowSpec;
use std::path::PathBuf;

/// A file name part made of `A-Za-z0-9._-` only: `saturate[op=93%]` → `saturate_op-93pct`.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' => s.push(c),
            '%' => s.push_str("pct"),
            '=' => s.push('-'),
            ']' => {}
            _ => s.push('_'),
        }
    }
    s
}

/// The zoom window of a phase in seconds from its start, `(from, to)`, given the end of its last interval
/// `end_s`: `A..B` is A to B (B defaults to `end_s`), `first D` is 0 to D, `last D` is `end_s − D` to `end_s`.
pub fn window_seconds(w: &WindowSpec, end_s: f64) -> (f64, f64) {
    let s = |ns: u64| ns as f64 / 1e9;
    match *w {
        WindowSpec::Range { start_ns, end_ns } => (s(start_ns), end_ns.map_or(end_s, s)),
        WindowSpec::First { len_ns } => (0.0, s(len_ns)),
        WindowSpec::Last { len_ns } => ((end_s - s(len_ns)).max(0.0), end_s),
    }
}

/// The directions in which any run of the phase completed I/O.
pub fn directions(runs: &[RunData], g: &PhaseGroup) -> Vec<Dir> {
    Dir::BOTH
        .into_iter()
        .filter(|d| {
            g.members.iter().any(|&(r, p)| {
                let (phase, rows) = runs[r].phase(p);
                d.stats(phase).ops > 0 || rows.iter().any(|row| d.ops(row) > 0)
            })
        })
        .collect()
}

/// The start of a phase's file names: its number in the first run that has it, as in its CSV name, and its
/// name (`r2-` in front when that run is not the first: numbers of different runs may collide).
fn phase_base(runs: &[RunData], g: &PhaseGroup) -> String {
    let (r0, p0) = g.members[0];
    let index = runs[r0].results.phases[p0].index;
    if r0 == 0 {
        format!("{index:02}-{}", slug(&g.name))
    } else {
        format!("r{}-{index:02}-{}", r0 + 1, slug(&g.name))
    }
}

/// The `--window` zoom of a phase in seconds from its start, when asked for and not empty.
fn zoom(runs: &[RunData], g: &PhaseGroup, opts: &Options) -> Option<(f64, f64)> {
    let (_, w) = opts.window.as_ref()?;
    let end = g
        .members
        .iter()
        .flat_map(|&(r, p)| runs[r].phase(p).1.last().map(|row| row.t_s))
        .fold(0.0, f64::max);
    let (a, b) = window_seconds(w, end);
    (b > a).then_some((a, b))
}

/// The plots of one phase: per direction with I/O (when a run has series rows), IOPS on a log and a linear
/// axis, the zoom, latency per interval; then the percentiles when a run has latency.
fn phase_section(
    runs: &[RunData],
    g: PhaseGroup,
    opts: &Options,
) -> Result<PhaseSection, PlotError> {
    let base = phase_base(runs, &g);
    let mut figures = Vec::new();
    let mut add = |suffix: &str, chart: Chart| {
        figures.push(Figure {
            file: format!("{base}-{suffix}.svg"),
            chart,
        })
    };
    let has_rows = g
        .members
        .iter()
        .any(|&(r, p)| !runs[r].phase(p).1.is_empty());
    let linear = Scale::Linear { ymax: opts.ymax };
    for d in directions(runs, &g) {
        let n = d.name();
        if has_rows {
            add(
                &format!("iops-log-{n}"),
                iops_scatter(runs, &g, d, Scale::Log, None)?,
            );
            add(
                &format!("iops-linear-{n}"),
                iops_scatter(runs, &g, d, linear, None)?,
            );
            if let Some(w) = zoom(runs, &g, opts) {
                add(
                    &format!("zoom-{n}"),
                    iops_scatter(runs, &g, d, linear, Some(w))?,
                );
            }
            add(&format!("latency-{n}"), latency_series(runs, &g, d)?);
        }
    }
    if g.members.iter().any(|&(r, p)| {
        let (phase, _) = runs[r].phase(p);
        phase.read.latency_ns.is_some() || phase.write.latency_ns.is_some()
    }) {
        add("percentiles", percentiles(runs, &g)?);
    }
    Ok(PhaseSection { group: g, figures })
}

/// The charts across the `k`-th sweep or matrix: total IOPS and latency.
fn sweep_section(runs: &[RunData], k: usize, lg: LabelGroup) -> Result<SweepSection, PlotError> {
    let base = format!("sweep{k:02}-{}", slug(&lg.base));
    let figures = vec![
        Figure {
            file: format!("{base}-iops.svg"),
            chart: label_chart(runs, &lg, LabelMetric::Iops)?,
        },
        Figure {
            file: format!("{base}-latency.svg"),
            chart: label_chart(runs, &lg, LabelMetric::Latency)?,
        },
    ];
    Ok(SweepSection { group: lg, figures })
}

/// Draws every plot of `runs`.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn make(runs: &[RunData], opts: &Options) -> Result<Report, PlotError> {
    let phases = phase_groups(runs)
        .into_iter()
        .map(|g| phase_section(runs, g, opts))
        .collect::<Result<_, _>>()?;
    let sweeps = label_groups(runs)
        .into_iter()
        .enumerate()
        .map(|(k, lg)| sweep_section(runs, k, lg))
        .collect::<Result<_, _>>()?;
    Ok(Report { phases, sweeps })
}

/// Why the report folder could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    /// The file or folder.
    pub path: PathBuf,
    /// The OS error.
    pub source: std::io::Error,
}

/// Writes the report into `dir` (opened with [`OutDir::open`]): every SVG, then `index.html`, each to a new
/// temporary file renamed over its name ([`OutDir::replace`]), so a file or symbolic link of the same name
/// is replaced, never written through; nothing else in `dir` is touched. Returns the files written,
/// `index.html` last.
///
/// # Errors
/// [`WriteError`] naming the file.
pub fn write(
    dir: &OutDir,
    runs: &[RunData],
    report: &Report,
    opts: &Options,
) -> Result<Vec<PathBuf>, WriteError> {
    let mut written = Vec::new();
    let put = |name: &str, text: &str, written: &mut Vec<PathBuf>| {
        let path = dir.join(name);
        dir.replace(name, text.as_bytes(), false)
            .map_err(|source| WriteError {
                path: path.clone(),
                source,
            })?;
        written.push(path);
        Ok(())
    };
    for f in report
        .sweeps
        .iter()
        .flat_map(|s| &s.figures)
        .chain(report.phases.iter().flat_map(|s| &s.figures))
    {
        put(&f.file, &f.chart.svg, &mut written)?;
    }
    put("index.html", &html::index(runs, report, opts), &mut written)?;
    Ok(written)
}
