//! `wkrun report`: the sections of a report of a set of runs ([`plan`]) and the report folder
//! ([`write()`]): the SVG files and `index.html`, each section's plots drawn as the page comes to it and
//! dropped once written.
//!
//! Per I/O phase (matched by name across runs): bandwidth per interval (first for sequential phases), for
//! each direction with I/O IOPS per interval on a log and a linear axis, a zoom on both (`--window`, or the
//! phase's first results window not starting at 0), latency per interval; the averages of total IOPS
//! (`aggregates`); one percentile curve per phase. Time plots mark the steady window, the start of results
//! windows and the moment the phase had written its span once. Per sweep (phases sharing a base name and
//! one label key): its members overlaid on time plots; per sweep or matrix: total IOPS and latency across
//! its phases, and a matrix's table. Results come first on the page, fills after them
//! ([`Report::page_order`]).

use super::chart::aggregates::aggregate_chart;
use super::chart::bandwidth::bandwidth_series;
use super::chart::battery::{batteries, battery_chart, undrawn};
use super::chart::cells::{CellStat, cell_bars, cell_chart};
use super::chart::iops::{Scale, iops_scatter};
use super::chart::latency::latency_series;
use super::chart::overlay::{OverlayMetric, overlay_chart};
use super::chart::percentiles::percentiles;
use super::chart::sweep::{LabelMetric, label_chart};
use super::chart::time::{Marker, markers};
use super::chart::{Chart, PlotError};
use super::html;
use super::model::{Figure, Options, Part, PhaseSection, Report, SectionRef, SweepSection};
use super::png::{PngError, Rasteriser, png_name};
use super::room::Drawing;
use super::runs::{LabelGroup, PhaseGroup, RunData, label_groups, phase_groups};
use super::table::matrix_table;
use crate::results::outdir::{OutDir, slug};
use crate::spec::Pattern;
use crate::spec::PhaseKind;
use crate::stats::window::WindowSpec;
use crate::vocab::Direction;
use std::path::PathBuf;

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

/// The directions in which any run of the phase completed I/O, in [`Direction::ALL`]'s order.
pub fn directions(runs: &[RunData], g: &PhaseGroup) -> Vec<Direction> {
    Direction::ALL
        .into_iter()
        .filter(|&d| {
            g.members.iter().any(|&(r, p)| {
                let (phase, rows) = runs[r].phase(p);
                phase.dir(d).ops > 0 || rows.iter().any(|row| row[d].ops > 0)
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

/// The zoom of a phase in seconds from its start: `--window` when given (and not empty); else the first
/// results window of its first run that does not start at 0 (seed 000's `1400s..`, seed 003's `last 20m`).
pub fn zoom(runs: &[RunData], g: &PhaseGroup, opts: &Options) -> Option<(f64, f64)> {
    if let Some((_, w)) = opts.window.as_ref() {
        // The end of the full rows, as a results window's `last D` counts it (a phase's drain, its partial
        // last row, would move `last 20m` 0.3 s later and leave its first row out).
        let end = g
            .members
            .iter()
            .flat_map(|&(r, p)| runs[r].plotted(p).1.last().map(|row| row.t_s))
            .fold(0.0, f64::max);
        let (a, b) = window_seconds(w, end);
        // A phase with no row in the window has no zoom (it drew an empty plot).
        let inside = g
            .members
            .iter()
            .any(|&(r, p)| !runs[r].plotted_in(p, Some((a, b))).is_empty());
        return (b > a && inside).then_some((a, b));
    }
    let (r, p) = g.members[0];
    runs[r]
        .phase(p)
        .0
        .windows
        .iter()
        .find(|w| w.start_s > 0.0 && w.end_s > w.start_s)
        .map(|w| (w.start_s, w.end_s))
}

/// Why `--window` (as written, `text`, parsed `w`) draws nothing: no phase of any run has a series row that
/// lies entirely inside it ([`RunData::plotted_in`]). The message names the window and the span of the phases' series (`report --window
/// 5000s..6000s` over phases of 2 to 120 s). `None` when some phase has such a row, or no phase has rows.
pub fn window_outside(runs: &[RunData], text: &str, w: &WindowSpec) -> Option<String> {
    let mut ends: Vec<f64> = Vec::new();
    for run in runs {
        for p in 0..run.results.phases.len() {
            let (_, rows) = run.plotted(p);
            let Some(end) = rows.last().map(|r| r.t_s) else {
                continue;
            };
            let (a, b) = window_seconds(w, end);
            if b > a && !run.plotted_in(p, Some((a, b))).is_empty() {
                return None;
            }
            ends.push(end);
        }
    }
    let longest = ends.iter().copied().fold(f64::NAN, f64::max);
    let shortest = ends.iter().copied().fold(f64::NAN, f64::min);
    (!ends.is_empty()).then(|| {
        let span = match (ends.len(), shortest == longest) {
            (1, _) => format!("the phase's series ends at {}", secs(longest)),
            (_, true) => format!("the phases' series end at {}", secs(longest)),
            _ => format!(
                "the phases' series end between {} and {}",
                secs(shortest),
                secs(longest)
            ),
        };
        format!(
            "--window {text}: no phase has an interval in it ({span}, counted from each phase's start); name a window within that, such as --window 0s..{}",
            secs(longest)
        )
    })
}

/// Seconds as `--window` takes them: `120s`, `0.5s`.
fn secs(s: f64) -> String {
    let t = format!("{s:.3}");
    format!("{}s", t.trim_end_matches('0').trim_end_matches('.'))
}

/// The markers of a phase's time plots: each run's ([`markers`]), each in its run's legend row. When
/// several runs have the phase, each run's markers are told apart: drawn in its run's colour (that of its
/// points), the tag drawn in the plot prefixed with the run's label (`used: steady`).
fn phase_markers(runs: &[RunData], g: &PhaseGroup) -> Vec<Marker> {
    let mut out = Vec::new();
    for &(r, p) in &g.members {
        for mut m in markers(&runs[r], p) {
            m.run = Some(r);
            if g.members.len() > 1 {
                if !m.tag.is_empty() {
                    m.tag = format!("{}: {}", runs[r].label, m.tag);
                    if let Some(p) = m.tag_time.as_mut() {
                        *p = format!("{}: {p}", runs[r].label);
                    }
                }
                m.colour = super::chart::colour(r);
            }
            out.push(m);
        }
    }
    out
}

/// Whether a phase moves data sequentially (a fill, a restore, a sequential workload): its bandwidth plot
/// comes first.
fn sequential(runs: &[RunData], g: &PhaseGroup) -> bool {
    let (r, p) = g.members[0];
    let phase = runs[r].phase(p).0;
    Part::of(phase.kind) == Part::Preparation || phase.params.pattern == Some(Pattern::Sequential)
}

/// A phase's section without its plots ([`phase_figures`] draws them): a phase of a block of rounds is
/// marked with the block's name (it has no plots of its own).
fn phase_section(runs: &[RunData], g: PhaseGroup, folded: bool) -> PhaseSection {
    let rounds = g
        .members
        .iter()
        .find_map(|&(r, p)| round_block(&runs[r], p).map(str::to_string));
    PhaseSection {
        part: Part::of(g.kind),
        group: g,
        figures: vec![],
        folded,
        rounds,
    }
}

/// The plots of the phase section `s`: for a sequential phase its bandwidth first; per direction with I/O
/// (when a run has series rows), IOPS on a log and a linear axis, the zoom on both, latency per interval;
/// then the averages, the bandwidth (when not first) and the percentiles. Every time plot has the phase's
/// markers. None for a phase of a block of rounds.
fn phase_figures(
    runs: &[RunData],
    s: &PhaseSection,
    opts: &Options,
) -> Result<Vec<Figure>, PlotError> {
    if s.rounds.is_some() {
        return Ok(vec![]);
    }
    let g = &s.group;
    let base = phase_base(runs, g);
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
    let marks = phase_markers(runs, g);
    let seq = sequential(runs, g);
    if has_rows && seq {
        add("bandwidth", bandwidth_series(runs, g, &marks)?);
    }
    let linear = Scale::Linear { ymax: opts.ymax };
    for d in directions(runs, g) {
        if !has_rows {
            continue;
        }
        let n = d.name();
        for (scale, kind) in [(Scale::Log, "log"), (linear, "linear")] {
            add(
                &format!("iops-{kind}-{n}"),
                iops_scatter(runs, g, d, scale, None, &marks)?,
            );
        }
        if let Some(w) = zoom(runs, g, opts) {
            add(
                &format!("zoom-log-{n}"),
                iops_scatter(runs, g, d, Scale::Log, Some(w), &marks)?,
            );
            add(
                &format!("zoom-{n}"),
                iops_scatter(runs, g, d, linear, Some(w), &marks)?,
            );
        }
        add(&format!("latency-{n}"), latency_series(runs, g, d, &marks)?);
        if let Some(c) = super::chart::pct_time::pct_time_series(runs, g, d, &marks)? {
            add(&format!("percentiles-over-time-{n}"), c);
        }
    }
    if let Some(c) = aggregate_chart(runs, g, &marks)? {
        add("averages", c);
    }
    if has_rows && !seq {
        add("bandwidth", bandwidth_series(runs, g, &marks)?);
    }
    if let Some(c) = super::chart::device::wa_series(runs, g, &marks)? {
        add("write-amplification", c);
    }
    if g.members.iter().any(|&(r, p)| {
        let (phase, _) = runs[r].phase(p);
        Direction::ALL
            .iter()
            .any(|&d| phase.dir(d).latency_ns.is_some())
    }) {
        add("percentiles", percentiles(runs, g)?);
    }
    Ok(figures)
}

/// The block of rounds whose rounds the `p`-th phase of `run` is one of: its name (`None` for a phase
/// outside every block).
pub fn round_block(run: &RunData, p: usize) -> Option<&str> {
    let index = run.results.phases[p].index;
    run.results.round_blocks.iter().find_map(|b| {
        let first = b.plan.first_phase;
        let all = b
            .plan
            .phases_per_round
            .saturating_mul(b.plan.max_rounds as usize);
        (index >= first && index - first < all).then_some(b.name.as_str())
    })
}

/// `stem`, or `stem-2`, `stem-3`, ..., the first not in `taken`, which then holds it.
fn unused(taken: &mut std::collections::HashSet<String>, stem: String) -> String {
    let mut name = stem.clone();
    let mut n = 1;
    while !taken.insert(name.clone()) {
        n += 1;
        name = format!("{stem}-{n}");
    }
    name
}

/// A sweep's or matrix's section without its plots ([`sweep_figures`] draws them): its part of the page
/// (that of its phases' kind) and a matrix's table.
fn sweep_section(runs: &[RunData], lg: LabelGroup) -> SweepSection {
    let kind = runs
        .iter()
        .flat_map(|r| &r.results.phases)
        .find(|p| lg.phases.contains(&p.name) && !p.labels.is_empty())
        .map_or(PhaseKind::Workload, |p| p.kind);
    SweepSection {
        table: matrix_table(runs, &lg),
        group: lg,
        figures: vec![],
        part: Part::of(kind),
    }
}

/// The charts across the sweep or matrix of `s` (files named `<base>-...`, `base` from [`sweep_bases`]):
/// for a sweep (one key), its members overlaid on time plots (total IOPS per interval, log and linear,
/// and their averages; bandwidth for fills); then total IOPS and latency across its phases; for a
/// two-key matrix, its table.
fn sweep_figures(runs: &[RunData], s: &SweepSection, base: &str) -> Result<Vec<Figure>, PlotError> {
    let lg = &s.group;
    let mut figures = Vec::new();
    if lg.keys.len() == 1 {
        let metrics: &[(OverlayMetric, &str)] = match s.part {
            Part::Preparation => &[(OverlayMetric::Bandwidth, "bandwidth")],
            Part::Results => &[
                (OverlayMetric::Averages, "averages"),
                (OverlayMetric::IopsLog, "iops-log"),
                (OverlayMetric::IopsLinear, "iops-linear"),
            ],
        };
        for &(m, name) in metrics {
            if let Some(chart) = overlay_chart(runs, lg, m)? {
                figures.push(Figure {
                    file: format!("{base}-overlay-{name}.svg"),
                    chart,
                });
            }
        }
    }
    for (m, name) in [
        (LabelMetric::Iops, "iops"),
        (LabelMetric::Latency, "latency"),
    ] {
        figures.push(Figure {
            file: format!("{base}-{name}.svg"),
            chart: label_chart(runs, lg, m)?,
        });
    }
    // A matrix (seed 002's latency cells): each cell's mean and largest latency as grouped bars.
    if lg.keys.len() >= 2 && !cell_bars(runs, lg, CellStat::Mean).is_empty() {
        for (stat, name) in [(CellStat::Mean, "mean"), (CellStat::Max, "max")] {
            figures.push(Figure {
                file: format!("{base}-latency-{name}.svg"),
                chart: cell_chart(runs, lg, stat)?,
            });
        }
    }
    Ok(figures)
}

/// The start of each sweep's file names, in [`Report::sweeps`]' order: named by the group's phase and
/// labels, shell-safe (`saturate-by-op`, `latency-by-bs-read`), not by its place among the groups
/// (`sweep01-saturate`: trial 13 F15); per-phase charts start with the phase's number, so none is theirs.
/// Groups whose names read alike (a fill's sweep and a workload's of one name in two runs; labels `bs,read`
/// and `bs-read`) take `-2`, `-3`: one's charts never overwrite another's.
fn sweep_bases(sweeps: &[SweepSection]) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    sweeps
        .iter()
        .map(|s| {
            let lg = &s.group;
            let stem = format!("{}-by-{}", slug(&lg.base), slug(&lg.keys.join("-")));
            unused(&mut taken, stem)
        })
        .collect()
}

/// Why a report could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum MakeError {
    /// plotters' error.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// Under an address-space limit, no room for the plots left to draw ([`Drawing::check`]).
    #[error("{0}")]
    Room(String),
}

/// The bytes of the SVGs of `figures`.
fn svg_bytes(figures: &[Figure]) -> u64 {
    figures.iter().map(|f| f.chart.svg.len() as u64).sum()
}

/// The sections of a report, every phase's and sweep's without its plots (drawn a section at a time as
/// the page is written, [`write()`]), and the plots at the top of the page drawn: the batteries, the
/// ranked charts and the PTS sections, whose number grows with the runs and sweeps, not with the phases.
/// The room to draw them is checked first ([`Drawing`]).
///
/// # Errors
/// [`MakeError`]: plotters' error, or an address-space limit that does not hold the plots to draw.
pub fn plan(runs: &[RunData], opts: &Options) -> Result<Report, MakeError> {
    // A block of rounds' phases are charted in its PTS section, not across each other.
    let in_rounds: std::collections::HashSet<&str> = runs
        .iter()
        .flat_map(|run| {
            (0..run.results.phases.len())
                .filter(|&p| round_block(run, p).is_some())
                .map(|p| run.results.phases[p].name.as_str())
        })
        .collect();
    let groups: Vec<LabelGroup> = label_groups(runs)
        .into_iter()
        .filter(|lg| !lg.phases.iter().all(|n| in_rounds.contains(n.as_str())))
        .collect();
    let in_matrix = |name: &str| {
        groups
            .iter()
            .any(|lg| lg.keys.len() >= 2 && lg.phases.iter().any(|p| p == name))
    };
    let phases: Vec<PhaseSection> = phase_groups(runs)
        .into_iter()
        .map(|g| {
            let folded = in_matrix(&g.name);
            phase_section(runs, g, folded)
        })
        .collect();
    let sweeps: Vec<SweepSection> = groups
        .into_iter()
        .map(|lg| sweep_section(runs, lg))
        .collect();
    // The top of the page first, then the sweeps and the phases, a section each.
    Drawing::new(phases.len() + sweeps.len() + 1)
        .check()
        .map_err(MakeError::Room)?;
    // A battery too wide to read is a line in its place.
    let (mut battery_notes, mut drawn) = (Vec::new(), Vec::new());
    for b in batteries(runs) {
        match undrawn(runs, &b) {
            Some(line) => battery_notes.push(line),
            None => drawn.push(b),
        }
    }
    let batteries = drawn
        .iter()
        .map(|b| {
            let file = match &b.sweep {
                Some(s) => format!("battery-{}.svg", slug(s)),
                None => "battery.svg".to_string(),
            };
            battery_chart(runs, b).map(|chart| Figure { file, chart })
        })
        .collect::<Result<_, _>>()?;
    Ok(Report {
        phases,
        sweeps,
        batteries,
        battery_notes,
        ranked: super::against::figures(runs, opts)?,
        pts: super::pts::sections(runs)?,
    })
}

/// The plots of the top of the page [`plan`] drew: the batteries, the PTS sections' and the ranked
/// charts, in the order they are written.
fn top_figures(report: &Report) -> Vec<&Figure> {
    report
        .batteries
        .iter()
        .chain(report.pts.iter().flat_map(|s| &s.figures))
        .chain(&report.ranked)
        .collect()
}

/// Draws the plots of the sections of a report, one section at a time, the room for it checked first.
struct Sections<'a> {
    runs: &'a [RunData],
    report: &'a Report,
    opts: &'a Options,
    /// Each sweep's file names' start ([`sweep_bases`]).
    bases: Vec<String>,
    room: Drawing,
    /// The plots [`plan`] drew, held until the page is written.
    top: usize,
    /// The most plots held at once: those at the top and one section's.
    most: usize,
}

impl<'a> Sections<'a> {
    fn new(runs: &'a [RunData], report: &'a Report, opts: &'a Options) -> Sections<'a> {
        let top = top_figures(report);
        let mut room = Drawing::new(report.phases.len() + report.sweeps.len() + 1);
        room.keep(top.iter().map(|f| f.chart.svg.len() as u64).sum());
        Sections {
            runs,
            report,
            opts,
            bases: sweep_bases(&report.sweeps),
            room,
            top: top.len(),
            most: top.len(),
        }
    }

    /// The plots of section `r`, drawn.
    fn draw(&mut self, r: SectionRef) -> Result<Vec<Figure>, MakeError> {
        self.room.check().map_err(MakeError::Room)?;
        let figures = match r {
            SectionRef::Sweep(k) => {
                sweep_figures(self.runs, &self.report.sweeps[k], &self.bases[k])
            }
            SectionRef::Phase(k) => phase_figures(self.runs, &self.report.phases[k], self.opts),
        }?;
        self.room.drew(svg_bytes(&figures));
        self.most = self.most.max(self.top + figures.len());
        Ok(figures)
    }
}

/// Draws every plot of `runs` and holds them all: [`plan`], then each section's plots. For tests of small
/// reports (what [`write()`] writes, it draws a section at a time).
///
/// # Errors
/// [`MakeError`]: plotters' error, or an address-space limit that does not hold the plots.
#[cfg(test)]
pub fn make(runs: &[RunData], opts: &Options) -> Result<Report, MakeError> {
    let mut report = plan(runs, opts)?;
    let order = report.page_order();
    let mut drawn = Vec::with_capacity(order.len());
    let mut sections = Sections::new(runs, &report, opts);
    for r in order {
        drawn.push((r, sections.draw(r)?));
    }
    for (r, figures) in drawn {
        match r {
            SectionRef::Sweep(k) => report.sweeps[k].figures = figures,
            SectionRef::Phase(k) => report.phases[k].figures = figures,
        }
    }
    Ok(report)
}

/// Why the report folder could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A file could not be written.
    #[error("cannot write {}: {source}{}", path.display(), crate::sys::limits::errno_note(source))]
    File {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The address space left does not hold drawing the next PNGs ([`png_threads`]).
    #[error("{0}")]
    Room(String),
    /// A section's plots could not be drawn.
    #[error(transparent)]
    Draw(#[from] MakeError),
}

/// What [`write()`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The files, `index.html` last.
    pub files: Vec<PathBuf>,
    /// The most plots held at once: those at the top of the page ([`plan`]'s) and the largest section's.
    pub most_held: usize,
}

/// Writes the report of [`plan`] into `dir` (opened with [`OutDir::open`]): the plots at the top of the
/// page, then `index.html` a section at a time, each section's plots drawn when the page comes to it,
/// written to their files and into the page, then dropped, so that only one section's plots are held
/// however many phases there are. With `--png`, each SVG is followed by its PNG, drawn a few at a time
/// as [`png_threads`] allows, checked again before each few. Each file goes to a new temporary file
/// renamed over its name ([`OutDir::replace`]), `index.html` last, so a file or symbolic link of the
/// same name is replaced, never written through; nothing else in `dir` is touched. On an error the files
/// written so far are removed.
///
/// # Errors
/// [`WriteError`] naming the file, the room PNGs need, or the section's plots that could not be drawn.
pub fn write(
    dir: &OutDir,
    runs: &[RunData],
    report: &Report,
    opts: &Options,
) -> Result<Written, WriteError> {
    let mut written = Vec::new();
    let done = write_files(dir, runs, report, opts, &mut written);
    if done.is_err() {
        for p in &written {
            if let Some(name) = p.file_name() {
                let _ = dir.remove(&name.to_string_lossy());
            }
        }
        written.clear();
    }
    done.map(|most_held| Written {
        files: written,
        most_held,
    })
}

/// [`write`]'s files, each pushed on `written` once written; the most plots held at once.
fn write_files(
    dir: &OutDir,
    runs: &[RunData],
    report: &Report,
    opts: &Options,
    written: &mut Vec<PathBuf>,
) -> Result<usize, WriteError> {
    put_figures(dir, &top_figures(report), opts.png, written)?;
    let mut sections = Sections::new(runs, report, opts);
    let mut failed = None;
    let mut next = |r: SectionRef| -> std::io::Result<Vec<Figure>> {
        let drawn = sections.draw(r).map_err(WriteError::from).and_then(|f| {
            put_figures(dir, &f.iter().collect::<Vec<_>>(), opts.png, written)?;
            Ok(f)
        });
        drawn.map_err(|e| {
            failed = Some(e);
            std::io::Error::other("a section's plots were not written")
        })
    };
    let path = dir.join("index.html");
    let page = dir.replace_with("index.html", false, |w| {
        html::write_index(w, runs, report, opts, &mut next)
    });
    if let Err(source) = page {
        return Err(failed.unwrap_or(WriteError::File { path, source }));
    }
    written.push(path);
    Ok(sections.most)
}

/// Writes the SVG file of each of `figures` (with `png`, each followed by its PNG, drawn a few at a time
/// as [`png_threads`] allows), each pushed on `written` once written.
fn put_figures(
    dir: &OutDir,
    figures: &[&Figure],
    png: bool,
    written: &mut Vec<PathBuf>,
) -> Result<(), WriteError> {
    let put = |name: &str, bytes: &[u8], written: &mut Vec<PathBuf>| -> Result<(), WriteError> {
        let path = dir.join(name);
        dir.replace(name, bytes, false)
            .map_err(|source| WriteError::File {
                path: path.clone(),
                source: crate::sys::limits::explain_file_size(source),
            })?;
        written.push(path);
        Ok(())
    };
    let mut k = 0;
    while k < figures.len() {
        let (part, pngs) = match png {
            true => {
                let t = png_threads(&figures[k..]).map_err(WriteError::Room)?;
                let part = &figures[k..(k + t).min(figures.len())];
                (part, png_files(part, t))
            }
            false => (&figures[k..], Vec::new()),
        };
        for (j, f) in part.iter().enumerate() {
            put(&f.file, f.chart.svg.as_bytes(), written)?;
            if let Some(p) = pngs.get(j) {
                let name = png_name(&f.file);
                let bytes = p.as_ref().map_err(|e| WriteError::File {
                    path: dir.join(&name),
                    source: std::io::Error::other(e.to_string()),
                })?;
                put(&name, bytes, written)?;
            }
        }
        k += part.len();
    }
    Ok(())
}

/// Address space the report keeps for its own work beside drawing PNGs, under an address-space limit: the
/// page and its figures' SVGs grow between the check and the drawing (with the latency-over-time charts,
/// a 2,000-row series' report aborted drawing at 8 MiB and completed at 12; with the readers' checks of the
/// inputs' histogram logs before it, a report aborted at 85 MiB with 12: 16 kept).
pub const REPORT_SPACE: u64 = 16 << 20;

/// Address space per byte of a chart's SVG that drawing its PNG holds beside the pixels: the parsed tree,
/// its text turned into glyph outlines, resvg's paths (an estimate, not measured: the charts use no clip
/// path, mask, filter or group opacity, so resvg makes no layer of the canvas's size).
pub const PNG_TREE_PER_BYTE: u64 = 16;

/// Address space drawing the PNG of `f` takes: its pixmap (RGBA at [`SCALE`](super::png::SCALE) times the
/// SVG's size) twice (the canvas, and as much again while it is drawn and encoded: a pixmap-sized
/// allocation failed after the canvas, 1 run in 20 just above the limit this advised when it counted the
/// pixels once, an abort: attack 13 F2), [`PNG_TREE_PER_BYTE`] per byte of its SVG, its rasteriser's copy
/// of the font, and 4 MiB (a thread's stack and signal stack, resvg's smaller layers, the encoded file). The PNGs are drawn and
/// written a few at a time ([`write()`]), so only those few are held.
/// Measured with a 960 × 567 chart (a 19,595,520 B pixmap): two threads completed from 42 MiB beyond what
/// the program maps, not under 38 (an abort).
/// The size is read from the SVG's root element; an SVG without one counts as 1000 × 1000.
pub fn png_space(f: &Figure) -> u64 {
    let attr = |name: &str| -> u64 {
        let head = f.chart.svg.split('>').next().unwrap_or("");
        head.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|t| t.split('"').next())
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .map_or(1000, |v| v.ceil() as u64)
    };
    let scale = u64::from(super::png::SCALE);
    let pixmap = (attr("width") * scale)
        .saturating_mul(attr("height") * scale)
        .saturating_mul(4 * 2);
    let tree = (f.chart.svg.len() as u64).saturating_mul(PNG_TREE_PER_BYTE);
    let font = super::chart::canvas::FONT_BYTES.len() as u64;
    pixmap
        .saturating_add(tree)
        .saturating_add(font)
        .saturating_add(4 << 20)
}

/// How many threads draw the PNGs of `figures`: as many as there are CPUs (at most four, at most one per
/// figure), fewer under an address-space limit (`ulimit -v`) that holds fewer at once, each drawing the
/// largest figure ([`png_space`]) beside [`REPORT_SPACE`]. Checked before each few are drawn ([`write()`]).
///
/// # Errors
/// Under a limit that does not hold one thread's: what drawing needs and a limit that is enough.
pub fn png_threads(figures: &[&Figure]) -> Result<usize, String> {
    let most = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(figures.len().max(1));
    let each = figures.iter().map(|f| png_space(f)).max().unwrap_or(0);
    let need = |t: usize| REPORT_SPACE.saturating_add(each.saturating_mul(t as u64));
    if let Some(t) = (1..=most)
        .rev()
        .find(|&t| crate::sys::limits::address_space_free(need(t)))
    {
        return Ok(t);
    }
    let short = crate::sys::limits::address_space_shortfall(need(1))
        .ok_or_else(|| "the address space for drawing PNGs could not be mapped".to_string())?;
    let detail = format!(
        "{REPORT_SPACE} B for the report, and {each} B to draw its largest PNG: its pixels twice (drawn and encoded), {PNG_TREE_PER_BYTE} B per byte of its SVG, the font, and 4 MiB for its thread and the file"
    );
    Err(format!(
        "{}; or leave out --png; nothing was written",
        short.message("drawing the report's PNGs", need(1), &detail)
    ))
}

/// Each figure's PNG ([`Rasteriser::png`]), in order, drawn on `threads` threads (as many as
/// [`png_threads`] gives), each with its own rasteriser.
pub fn png_files(figures: &[&Figure], threads: usize) -> Vec<Result<Vec<u8>, PngError>> {
    let threads = threads.max(1);
    let per = figures.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = figures
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    let r = Rasteriser::new();
                    part.iter().map(|f| r.png(&f.chart.svg)).collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .zip(figures.chunks(per))
            .flat_map(|(h, part)| {
                h.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|_| Err(PngError("the drawing thread failed".into())))
                        .collect()
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::phase_markers;
    use crate::report::chart::colour;
    use crate::report::runs::phase_groups;
    use crate::report::testing::{phase, row, run};

    /// Two runs of a fill and a sweep of `n` workloads (`w[bs=K]`), each phase with series rows of reads
    /// and writes: per phase, a section of plots; the sweep's section and a battery across its members.
    fn sweep_runs(n: usize) -> Vec<crate::report::runs::RunData> {
        use crate::report::testing::labelled;
        let mut fill = phase("fill", 0);
        fill.kind = crate::spec::PhaseKind::Fill;
        let mut phases = vec![(fill, Some(vec![row(1.0, 0, 10), row(2.0, 0, 12)]))];
        for i in 0..n {
            let name = format!("w[bs={i}]");
            let rows = vec![row(1.0, 5 + i as u64, 3), row(2.0, 6, 2), row(3.0, 4, 4)];
            phases.push((
                labelled(&name, i + 1, &[("bs", &i.to_string())]),
                Some(rows),
            ));
        }
        vec![run("a", "sim:a", phases.clone()), run("b", "sim:b", phases)]
    }

    /// The files of the folder `dir`, by name.
    fn folder(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .expect("the report")
            .map(|e| {
                let e = e.expect("an entry");
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read(e.path()).expect("a file"))
            })
            .collect()
    }

    /// The report written a section at a time is, file for file and byte for byte, the report of every
    /// plot held at once (`make`, as `wkrun report` drew it before): each SVG its figure's text, the page
    /// the page of the whole report.
    #[test]
    fn a_report_written_a_section_at_a_time_is_the_report_drawn_whole() {
        use crate::report::model::Options;
        let runs = sweep_runs(3);
        let opts = Options::default();
        let d = tempfile::tempdir().expect("tempdir");
        let out = crate::results::outdir::OutDir::open(&d.path().join("r"), "report folder")
            .expect("the folder");
        let report = super::plan(&runs, &opts).expect("the plan");
        let written = super::write(&out, &runs, &report, &opts).expect("written");
        let whole = super::make(&runs, &opts).expect("the report");
        let mut want: std::collections::BTreeMap<String, Vec<u8>> = whole
            .figures()
            .map(|f| (f.file.clone(), f.chart.svg.clone().into_bytes()))
            .collect();
        let page = crate::report::html::index(&runs, &whole, &opts);
        want.insert("index.html".into(), page.into_bytes());
        let got = folder(&d.path().join("r"));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &want {
            assert!(got[name] == *bytes, "{name} differs");
        }
        // Every file is in the list written, the page last.
        let names: Vec<String> = written
            .files
            .iter()
            .map(|p| {
                p.file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names.len(), want.len());
        assert_eq!(names.last().map(String::as_str), Some("index.html"));
    }

    /// Only one section's plots are held at once, beside those at the top of the page: the most held is
    /// the same for a sweep of 2 workloads and of 12, though the report's plots grow four-fold.
    #[test]
    fn the_plots_held_at_once_do_not_grow_with_the_phases() {
        use crate::report::model::Options;
        let opts = Options::default();
        let mut held = Vec::new();
        for n in [2, 12] {
            let runs = sweep_runs(n);
            let d = tempfile::tempdir().expect("tempdir");
            let out = crate::results::outdir::OutDir::open(d.path(), "report folder")
                .expect("the folder");
            let report = super::plan(&runs, &opts).expect("the plan");
            let written = super::write(&out, &runs, &report, &opts).expect("written");
            // The oracle: the report drawn whole, its top (the battery) and its largest section.
            let whole = super::make(&runs, &opts).expect("the report");
            let top = whole.batteries.len() + whole.ranked.len();
            let largest = whole
                .phases
                .iter()
                .map(|s| s.figures.len())
                .chain(whole.sweeps.iter().map(|s| s.figures.len()))
                .max()
                .expect("a section");
            assert_eq!(written.most_held, top + largest, "{n} workloads");
            held.push((written.most_held, whole.figures().count()));
        }
        // Nothing at the top (no battery: the phases have no averages), and a workload's 9 plots: per
        // direction IOPS on two axes, latency and its percentiles over time, then the bandwidth; the whole
        // report's plots grow with the phases (the fill's 5, each workload's 9, the sweep's 4).
        assert_eq!(held, [(9, 27), (9, 117)]);
    }

    /// Two runs of 24 workloads draw `battery.svg`; of 25, no battery, its line in its place on the page.
    #[test]
    fn a_battery_of_25_workloads_is_a_line_on_the_page() {
        use crate::report::model::Options;
        let opts = Options::default();
        let mut got = Vec::new();
        for n in [24, 25] {
            let runs = crate::report::chart::battery::tests::runs_of(n);
            let report = super::plan(&runs, &opts).expect("the plan");
            let files: Vec<String> = report.batteries.iter().map(|f| f.file.clone()).collect();
            let d = tempfile::tempdir().expect("tempdir");
            let out = crate::results::outdir::OutDir::open(d.path(), "report folder")
                .expect("the folder");
            super::write(&out, &runs, &report, &opts).expect("written");
            let page = std::fs::read_to_string(d.path().join("index.html")).expect("the page");
            let lines: Vec<&str> = page
                .lines()
                .filter(|l| l.contains("too many to chart"))
                .collect();
            got.push((files, report.battery_notes.clone(), lines.len()));
        }
        let line = "The composite scores 25 workloads in all (r2 over 25 of 25 workloads), too many to chart (at most 24): the headline tables above list them.";
        assert_eq!(
            got,
            [
                (vec!["battery.svg".to_string()], vec![], 0),
                (vec![], vec![line.to_string()], 1)
            ]
        );
    }

    /// The newcomer's trial: `--window` outside every phase drew 32 empty zooms and said nothing. It is
    /// refused naming the window and the phases' span; a phase without a row in a window others have gets no
    /// zoom.
    /// Sweep chart names that read alike are told apart, and a later name that is an earlier one's
    /// suffixed form is suffixed further.
    #[test]
    fn sweep_names_that_read_alike_are_numbered() {
        let mut taken = std::collections::HashSet::new();
        let names: Vec<String> = ["x-by-op", "x-by-op", "x-by-op-2", "x-by-op", "y-by-bs-read"]
            .map(|s| super::unused(&mut taken, s.to_string()))
            .to_vec();
        assert_eq!(
            names,
            [
                "x-by-op",
                "x-by-op-2",
                "x-by-op-2-2",
                "x-by-op-3",
                "y-by-bs-read"
            ]
        );
    }

    #[test]
    fn a_window_outside_every_phase_is_refused() {
        use super::{window_outside, zoom};
        use crate::report::testing::series_run;
        use crate::stats::window::WindowSpec;
        let runs = [series_run(
            "a",
            "sim:a",
            vec![row(1.0, 5, 0), row(2.0, 5, 0), row(3.0, 5, 0)],
        )];
        let w = |t: &str| WindowSpec::parse(t).expect("a window");
        assert_eq!(
            window_outside(&runs, "5000s..6000s", &w("5000s..6000s")).as_deref(),
            Some(
                "--window 5000s..6000s: no phase has an interval in it (the phase's series ends at 3s, counted from each phase's start); name a window within that, such as --window 0s..3s"
            )
        );
        assert_eq!(window_outside(&runs, "2s..", &w("2s..")), None);
        assert_eq!(window_outside(&runs, "last 1s", &w("last 1s")), None);
        let mut two = runs.to_vec();
        two.push(series_run("b", "sim:b", vec![row(1.0, 5, 0)]));
        assert_eq!(
            window_outside(&two, "10s..20s", &w("10s..20s")).as_deref(),
            Some(
                "--window 10s..20s: no phase has an interval in it (the phases' series end between 1s and 3s, counted from each phase's start); name a window within that, such as --window 0s..3s"
            )
        );
        // b's phase has no row in 2s..3s: no zoom of it alone; with a, the zoom is drawn.
        let opts = |t: &str| crate::report::model::Options {
            ymax: None,
            window: Some((t.to_string(), w(t))),
            png: false,
            against: vec![],
        };
        let g = crate::report::testing::group("p", &[(1, 0)]);
        assert_eq!(zoom(&two, &g, &opts("2s..3s")), None);
        let g = crate::report::testing::group("p", &[(0, 0), (1, 0)]);
        assert_eq!(zoom(&two, &g, &opts("2s..3s")), Some((2.0, 3.0)));
        // A drain after the bound (a partial last row ending at 3.4 s): `last 2s` is the full rows' last
        // 2 s, as the results window `last 2s` takes them, not 1.4..3.4 s.
        let mut drained = runs.to_vec();
        let mut tail = row(3.4, 5, 0);
        (tail.partial, tail.interval_s) = (1, 0.4);
        drained[0].series[0].as_mut().expect("series").push(tail);
        let g = crate::report::testing::group("p", &[(0, 0)]);
        assert_eq!(zoom(&drained, &g, &opts("last 2s")), Some((1.0, 3.0)));
    }

    /// A run whose phase `p` writes its 163840-byte span once halfway through its second row and has a window from
    /// 2 s.
    fn one(label: &str) -> crate::report::runs::RunData {
        let mut p = phase("p", 0);
        p.params.span_bytes = 163_840;
        p.windows = vec![crate::report::testing::window(
            "2s..",
            (2.0, 3.0),
            30.0,
            30.0,
            30.0,
        )];
        let rows = vec![row(1.0, 0, 10), row(2.0, 0, 60), row(3.0, 0, 30)];
        run(label, "sim:a", vec![(p, Some(rows))])
    }

    /// Two runs' markers are each in its run's colour and legend row, tagged after the run; one run's keep
    /// the plain colours and tags.
    #[test]
    fn each_runs_markers_are_in_its_colour_and_named_after_it() {
        let runs = [one("fresh"), one("used")];
        let g = &phase_groups(&runs)[0];
        let got: Vec<(String, String, _, _)> = phase_markers(&runs, g)
            .into_iter()
            .map(|m| (m.label, m.tag, m.colour, m.run))
            .collect();
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[0],
            (
                "window 2s.. starts at 2 s".to_string(),
                "fresh: 2 s".to_string(),
                colour(0),
                Some(0)
            )
        );
        assert_eq!(
            (got[1].0.as_str(), got[1].1.as_str(), got[1].2),
            (
                "drive span written once at 1.5 s",
                "fresh: filled once",
                colour(0)
            )
        );
        assert_eq!(
            (got[3].0.as_str(), got[3].1.as_str(), got[3].2, got[3].3),
            (
                "drive span written once at 1.5 s",
                "used: filled once",
                colour(1),
                Some(1)
            )
        );
        assert_ne!(colour(0), colour(1));
        let single = [one("fresh")];
        let m = phase_markers(&single, &phase_groups(&single)[0]);
        assert_eq!(
            (m[1].label.as_str(), m[1].tag.as_str()),
            ("drive span written once at 1.5 s", "filled once")
        );
        assert_ne!(m[1].colour, colour(0));
        // A file's span is the file's, not a drive's (trial 13 F15).
        let mut file = one("file");
        file.results.target.kind = crate::target::TargetKind::File;
        let file = [file];
        let m = phase_markers(&file, &phase_groups(&file)[0]);
        assert_eq!(m[1].label, "file span written once at 1.5 s");
    }
}
