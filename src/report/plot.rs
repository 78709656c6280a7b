//! The SVG plots of `wkrun report`, drawn with plotters' SVG backend (text is left to the viewer's fonts,
//! so no font is read at run time). One function per kind of plot, each returning a [`Chart`]: the SVG
//! text, its title and a caption for the HTML page.
//!
//! Markers, so that a reader (or a test) can count them: every interval of an IOPS scatter is one
//! `<circle>`, filled when drawn at its value, hollow when it cannot be (0 IOPS on a log axis: drawn on the
//! floor row labelled `0`; above `--ymax` on a linear axis: drawn on the top row). In the latency plot
//! each interval with completions is one `<circle>` (its mean) and one `<polygon>` triangle (its max).
//! Legend swatches are rectangles.

use super::runs::{Dir, LabelGroup, PhaseGroup, RunData, total_iops_full_rows};
use crate::results::PhaseResult;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Width and height of every plot, px.
pub const SIZE: (u32, u32) = (960, 540);
const FONT: &str = "sans-serif";

/// One colour per run, in run order (repeating after eight runs).
pub const RUN_COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
    RGBColor(127, 127, 127),
];

fn colour(run: usize) -> RGBColor {
    RUN_COLOURS[run % RUN_COLOURS.len()]
}

/// A drawing failed (plotters' error, as text).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw {what}: {why}")]
pub struct PlotError {
    /// The plot.
    pub what: String,
    /// plotters' error.
    pub why: String,
}

/// A finished plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The title drawn on the plot.
    pub title: String,
    /// What the plot shows, for the HTML caption (point counts, how zeros are drawn).
    pub caption: String,
    /// The SVG document.
    pub svg: String,
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// Points `(x, y)` of one series.
type Points = Vec<(f64, f64)>;
/// Per interval `(t_s, mean, max)`, µs.
type LatPoints = Vec<(f64, f64, f64)>;

/// Renders a plot into an SVG string; `draw` returns plotters' errors as text.
fn render(
    what: &str,
    draw: impl FnOnce(&Area<'_>) -> Result<(), String>,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let r = root
            .fill(&WHITE)
            .map_err(|e| e.to_string())
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(|e| e.to_string()));
        r.map_err(|why| PlotError {
            what: what.to_string(),
            why,
        })?;
    }
    Ok(svg)
}

/// Short numbers for tick labels: `0.01`, `2.5`, `100`, `1k`, `12.5k`, `3M`.
pub fn short_number(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(format!("{:.2}", v / 1e9)))
    } else if a >= 1e6 {
        format!("{}M", trim(format!("{:.2}", v / 1e6)))
    } else if a >= 1e3 {
        format!("{}k", trim(format!("{:.2}", v / 1e3)))
    } else if a >= 1.0 || a == 0.0 {
        trim(format!("{v:.2}"))
    } else {
        trim(format!("{v:.4}"))
    }
}

/// The title's tail: `spec · phase · target(s)`.
pub fn subject(runs: &[RunData], members: &[usize], phase: &str) -> String {
    let mut specs: Vec<String> = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    for &r in members {
        let s = &runs[r].results.spec.name;
        if !specs.contains(s) {
            specs.push(s.clone());
        }
        let t = runs[r].target_name();
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    format!("{} · {phase} · {}", specs.join(" / "), targets.join(" / "))
}

/// Powers of ten around `[lo, hi]` (both > 0): `(10^floor(log lo), 10^ceil(log hi))`, at least a decade apart.
fn decades(lo: f64, hi: f64) -> (f64, f64) {
    let a = lo.log10().floor();
    let mut b = hi.log10().ceil();
    if b <= a {
        b = a + 1.0;
    }
    (10f64.powf(a), 10f64.powf(b))
}

/// How an IOPS scatter's y axis is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Log scale; intervals with 0 IOPS on a floor row a decade below the smallest non-zero value's decade.
    Log,
    /// Linear from 0; `ymax` fixes the top (IOPS), and intervals above it are drawn on the top row.
    Linear {
        /// The ceiling, IOPS; `None`: the largest value plus 5 %.
        ymax: Option<f64>,
    },
}

/// The IOPS per interval of `dir` in one phase, one series per run, against time: a scatter of one point per
/// interval (per series row whose end `t_s` lies in `window`, seconds, when given).
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn iops_scatter(
    runs: &[RunData],
    group: &PhaseGroup,
    dir: Dir,
    scale: Scale,
    window: Option<(f64, f64)>,
) -> Result<Chart, PlotError> {
    // (run, points) with points (t_s, iops).
    let series: Vec<(usize, Vec<(f64, f64)>)> = group
        .members
        .iter()
        .map(|&(r, p)| {
            let (_, rows) = runs[r].phase(p);
            let pts = rows
                .iter()
                .filter(|row| window.is_none_or(|(a, b)| row.t_s >= a && row.t_s <= b))
                .map(|row| (row.t_s, dir.iops(row)))
                .collect();
            (r, pts)
        })
        .collect();
    let all = || series.iter().flat_map(|(_, p)| p.iter());
    let (x0, x1) = match window {
        Some((a, b)) => (a, b),
        None => (0.0, all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02),
    };
    let max = all().map(|p| p.1).fold(0.0, f64::max);
    let min_pos = all()
        .map(|p| p.1)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let d = dir.name();
    let (kind, special_word) = match scale {
        Scale::Log => ("log scale", "with 0 IOPS"),
        Scale::Linear { ymax: Some(_) } => ("linear, fixed ceiling", "above the ceiling"),
        Scale::Linear { ymax: None } => ("linear scale", ""),
    };
    let zoom = window.map_or(String::new(), |(a, b)| {
        format!(", {}..{} s", short_number(a), short_number(b))
    });
    let title = format!(
        "{} IOPS per interval ({kind}{zoom}) — {}",
        capital(d),
        subject(runs, &members, &group.name)
    );
    let total: usize = series.iter().map(|(_, p)| p.len()).sum();
    let mut specials = 0usize;
    let mut legend: Vec<(usize, String, bool)> = Vec::new();
    // Split each run's points into those drawn at their value and those drawn hollow on a special row.
    let (floor, top) = match scale {
        Scale::Log => {
            let (lo, hi) = if min_pos.is_finite() {
                decades(min_pos, max)
            } else {
                (1.0, 10.0)
            };
            (lo / 10.0, hi)
        }
        Scale::Linear { ymax: Some(y) } => (0.0, y),
        Scale::Linear { ymax: None } => (0.0, if max > 0.0 { max * 1.05 } else { 1.0 }),
    };
    let mut split: Vec<(usize, Points, Points)> = Vec::new();
    for (r, pts) in &series {
        let (mut plain, mut special) = (Vec::new(), Vec::new());
        for &(t, v) in pts {
            match scale {
                Scale::Log if v <= 0.0 => special.push((t, floor)),
                Scale::Linear { ymax: Some(y) } if v > y => special.push((t, y)),
                _ => plain.push((t, v)),
            }
        }
        specials += special.len();
        legend.push((
            *r,
            format!("{} ({} intervals)", runs[*r].legend(), pts.len()),
            true,
        ));
        if !special.is_empty() {
            legend.push((
                *r,
                format!(
                    "{}: {} of {} intervals {special_word}, hollow on the {} row",
                    runs[*r].label,
                    special.len(),
                    pts.len(),
                    if scale == Scale::Log { "\"0\"" } else { "top" }
                ),
                false,
            ));
        }
        split.push((*r, plain, special));
    }
    let y_desc = format!("{d} IOPS (I/Os per s)");
    let x_desc = "time since the phase's start (s)";
    let svg = render(&title, |root| {
        let mut b = ChartBuilder::on(root);
        b.caption(&title, (FONT, 17))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70);
        let labels = |v: &f64| {
            if scale == Scale::Log && (v / floor - 1.0).abs() < 1e-9 {
                "0".to_string()
            } else {
                short_number(*v)
            }
        };
        macro_rules! body {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(x_desc)
                    .y_desc(&y_desc)
                    .y_label_formatter(&labels)
                    .x_label_formatter(&|v| short_number(*v))
                    .light_line_style(RGBColor(238, 238, 238))
                    .label_style((FONT, 13))
                    .axis_desc_style((FONT, 14))
                    .draw()
                    .map_err(|e| e.to_string())?;
                if specials > 0 {
                    // The special row: a thin grey line across the plot.
                    let row = if scale == Scale::Log { floor } else { top };
                    chart
                        .draw_series(LineSeries::new(
                            vec![(x0, row), (x1, row)],
                            RGBColor(170, 170, 170).stroke_width(1),
                        ))
                        .map_err(|e| e.to_string())?;
                }
                for (r, plain, special) in &split {
                    let c = colour(*r);
                    let s = chart
                        .draw_series(
                            plain
                                .iter()
                                .map(|&p| Circle::new(p, 2, c.mix(0.75).filled())),
                        )
                        .map_err(|e| e.to_string())?;
                    let (_, text, _) = legend
                        .iter()
                        .find(|(lr, _, filled)| lr == r && *filled)
                        .expect("legend entry per run");
                    s.label(text).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled())
                    });
                    let s = chart
                        .draw_series(
                            special
                                .iter()
                                .map(|&p| Circle::new(p, 3, c.stroke_width(1))),
                        )
                        .map_err(|e| e.to_string())?;
                    if let Some((_, text, _)) =
                        legend.iter().find(|(lr, _, filled)| lr == r && !*filled)
                    {
                        s.label(text).legend(move |(x, y)| {
                            Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.stroke_width(1))
                        });
                    }
                }
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(160, 160, 160))
                    .label_font((FONT, 13))
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(|e| e.to_string())?;
            }};
        }
        match scale {
            Scale::Log => body!(
                b.build_cartesian_2d(x0..x1, (floor / 2.0..top).log_scale())
                    .map_err(|e| e.to_string())?
            ),
            Scale::Linear { .. } => body!(
                b.build_cartesian_2d(x0..x1, 0.0..top * 1.02)
                    .map_err(|e| e.to_string())?
            ),
        }
        Ok(())
    })?;
    let mut caption =
        format!("{total} points, one per interval (at the interval's end); one colour per run.");
    match scale {
        Scale::Log if specials > 0 => caption.push_str(&format!(
            " {specials} intervals had 0 {d} IOPS, which a log axis cannot show: they are drawn hollow on the row labelled 0, below the lowest decade."
        )),
        Scale::Linear { ymax: Some(y) } if specials > 0 => caption.push_str(&format!(
            " {specials} intervals were above the ceiling of {} IOPS: they are drawn hollow on the top row.",
            short_number(y)
        )),
        _ => {}
    }
    Ok(Chart {
        title,
        caption,
        svg,
    })
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Mean and largest latency of `dir` per interval against time, log y: one circle (mean) and one triangle
/// (max) per interval that completed I/O in that direction.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn latency_series(runs: &[RunData], group: &PhaseGroup, dir: Dir) -> Result<Chart, PlotError> {
    // (run, [(t, mean, max)], intervals without completions)
    let series: Vec<(usize, LatPoints, usize)> = group
        .members
        .iter()
        .map(|&(r, p)| {
            let (_, rows) = runs[r].phase(p);
            let pts: LatPoints = rows
                .iter()
                .filter_map(|row| dir.lat_us(row).map(|(m, x)| (row.t_s, m, x)))
                .collect();
            let empty = rows.len() - pts.len();
            (r, pts, empty)
        })
        .collect();
    let all = || series.iter().flat_map(|(_, p, _)| p.iter());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02;
    let lo = all().map(|p| p.1.min(p.2)).fold(f64::INFINITY, f64::min);
    let hi = all().map(|p| p.2.max(p.1)).fold(0.0, f64::max);
    let (y0, y1) = if lo.is_finite() && lo > 0.0 {
        decades(lo, hi)
    } else {
        (1.0, 10.0)
    };
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let d = dir.name();
    let title = format!(
        "{} latency per interval, mean and max — {}",
        capital(d),
        subject(runs, &members, &group.name)
    );
    let svg = render(&title, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(&title, (FONT, 17))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x1, (y0..y1).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("time since the phase's start (s)")
            .y_desc(format!("{d} latency (µs)"))
            .x_label_formatter(&|v| short_number(*v))
            .y_label_formatter(&|v| short_number(*v))
            .light_line_style(RGBColor(238, 238, 238))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(|e| e.to_string())?;
        for (r, pts, _) in &series {
            let c = colour(*r);
            chart
                .draw_series(
                    pts.iter()
                        .map(|&(t, m, _)| Circle::new((t, m), 2, c.filled())),
                )
                .map_err(|e| e.to_string())?
                .label(format!("{}: mean", runs[*r].legend()))
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled()));
            chart
                .draw_series(
                    pts.iter()
                        .map(|&(t, _, x)| TriangleMarker::new((t, x), 3, c.mix(0.45).filled())),
                )
                .map_err(|e| e.to_string())?
                .label(format!("{}: max (triangles)", runs[*r].label))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.mix(0.45).filled())
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT, 13))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| e.to_string())?;
        Ok(())
    })?;
    let points: usize = series.iter().map(|(_, p, _)| p.len()).sum();
    let empty: usize = series.iter().map(|(_, _, e)| e).sum();
    let mut caption = format!(
        "{points} intervals with {d}s: a circle at the interval's mean {d} latency and a triangle at its largest."
    );
    if empty > 0 {
        caption.push_str(&format!(
            " {empty} intervals completed no {d}s and have no latency to show."
        ));
    }
    Ok(Chart {
        title,
        caption,
        svg,
    })
}

/// The percentiles a phase's results give, with their x position in "nines" (−log10(1 − p)): p0 (the
/// minimum) at 0, p50 at 0.30, p90 at 1, p99 at 2, p99.9 at 3, p99.99 at 4. Latencies in µs.
pub fn percentile_points(p: &PhaseResult, dir: Dir) -> Option<Vec<(f64, f64)>> {
    let l = dir.stats(p).latency_ns.as_ref()?;
    let us = |ns: u64| ns as f64 / 1e3;
    Some(vec![
        (0.0, us(l.min)),
        (2f64.log10(), us(l.p50)),
        (1.0, us(l.p90)),
        (2.0, us(l.p99)),
        (3.0, us(l.p99_9)),
        (4.0, us(l.p99_99)),
    ])
}

/// The latency percentile curve of a phase, reads and writes, one colour per run: p0..p99.99 from the
/// phase's latency histogram (as recorded in results.json), x in nines.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn percentiles(runs: &[RunData], group: &PhaseGroup) -> Result<Chart, PlotError> {
    let mut curves: Vec<(usize, Dir, Points, f64)> = Vec::new();
    for &(r, p) in &group.members {
        let (phase, _) = runs[r].phase(p);
        for dir in Dir::BOTH {
            if let (Some(pts), Some(l)) = (
                percentile_points(phase, dir),
                dir.stats(phase).latency_ns.as_ref(),
            ) {
                curves.push((r, dir, pts, l.max as f64 / 1e3));
            }
        }
    }
    let lo = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|p| p.1))
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let hi = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let (y0, y1) = if lo.is_finite() {
        decades(lo, hi)
    } else {
        (1.0, 10.0)
    };
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let title = format!(
        "Latency percentiles — {}",
        subject(runs, &members, &group.name)
    );
    let svg = render(&title, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(&title, (FONT, 17))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.2..4.3, (y0..y1).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("percentile, in nines (1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99)")
            .y_desc("latency (µs)")
            .x_labels(10)
            .x_label_formatter(&|v: &f64| {
                let names = ["p0", "p90", "p99", "p99.9", "p99.99"];
                let k = v.round();
                if (v - k).abs() < 1e-6 && (0.0..=4.0).contains(&k) {
                    names[k as usize].to_string()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| short_number(*v))
            .light_line_style(RGBColor(238, 238, 238))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(|e| e.to_string())?;
        for (r, dir, pts, max) in &curves {
            let c = colour(*r);
            let width = if *dir == Dir::Read { 2 } else { 1 };
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(width)))
                .map_err(|e| e.to_string())?
                .label(format!(
                    "{}: {} (max {} µs)",
                    runs[*r].legend(),
                    dir.name(),
                    short_number(*max)
                ))
                .legend(move |(x, y)| Rectangle::new([(x, y - 1), (x + 12, y + 1)], c.filled()));
            match dir {
                Dir::Read => chart.draw_series(
                    pts.iter()
                        .map(|&p| Circle::new(p, 3, c.filled()).into_dyn()),
                ),
                Dir::Write => chart.draw_series(
                    pts.iter()
                        .map(|&p| TriangleMarker::new(p, 4, c.filled()).into_dyn()),
                ),
            }
            .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT, 13))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        Ok(())
    })?;
    Ok(Chart {
        title,
        caption: "Latency percentiles of the whole phase from its latency histogram: p0 (the minimum), p50, p90, p99, p99.9, p99.99; reads with circles and a thick line, writes with triangles and a thin line. The maximum is in the legend.".into(),
        svg,
    })
}

/// What a chart across a label group shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelMetric {
    /// Total IOPS: bars at the mean, whiskers from the lowest to the highest full interval.
    Iops,
    /// Latency of reads and writes together: the mean, whiskers from the minimum to the maximum.
    Latency,
}

/// One bar or marker of a label chart: `(mean, min, max)`.
fn label_value(
    run: &RunData,
    name: &str,
    metric: LabelMetric,
    window: Option<&str>,
) -> Option<(f64, f64, f64)> {
    let i = run.results.phases.iter().position(|p| p.name == name)?;
    let (p, rows) = run.phase(i);
    match metric {
        LabelMetric::Iops => {
            if let Some(w) = window {
                let s = p.windows.iter().find(|x| x.spec == w)?.iops.as_ref()?;
                return Some((s.avg, s.min, s.max));
            }
            let v = total_iops_full_rows(rows);
            let mean = p.read.iops + p.write.iops;
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(0.0, f64::max);
            Some(if v.is_empty() {
                (mean, mean, mean)
            } else {
                (mean, min, max)
            })
        }
        LabelMetric::Latency => {
            let l = p.total.latency_ns.as_ref()?;
            Some((l.mean / 1e3, l.min as f64 / 1e3, l.max as f64 / 1e3))
        }
    }
}

/// The window every phase of a label group has first in `windows` (the same spec in all), if any: IOPS
/// charts then show that window's statistics.
pub fn common_window(runs: &[RunData], g: &LabelGroup) -> Option<String> {
    let mut w: Option<String> = None;
    for run in runs {
        for name in &g.phases {
            let Some(p) = run.results.phases.iter().find(|p| &p.name == name) else {
                continue;
            };
            let first = p.windows.first()?;
            first.iops.as_ref()?;
            match &w {
                None => w = Some(first.spec.clone()),
                Some(s) if *s != first.spec => return None,
                Some(_) => {}
            }
        }
    }
    w
}

/// One chart across the phases of a sweep or matrix: a category per phase, a bar (IOPS) or marker
/// (latency) per run at the mean, with whiskers from min to max.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn label_chart(
    runs: &[RunData],
    g: &LabelGroup,
    metric: LabelMetric,
) -> Result<Chart, PlotError> {
    let window = match metric {
        LabelMetric::Iops => common_window(runs, g),
        LabelMetric::Latency => None,
    };
    let n = g.phases.len();
    let nr = runs.len().max(1);
    // (run, category, mean, min, max)
    let mut vals: Vec<(usize, usize, f64, f64, f64)> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for (k, name) in g.phases.iter().enumerate() {
            if let Some((m, lo, hi)) = label_value(run, name, metric, window.as_deref()) {
                vals.push((r, k, m, lo, hi));
            }
        }
    }
    let members: Vec<usize> = (0..runs.len()).collect();
    let keys = g.keys.join(", ");
    let what = match metric {
        LabelMetric::Iops => "IOPS",
        LabelMetric::Latency => "Latency",
    };
    let title = format!(
        "{what} across {keys} — {}",
        subject(runs, &members, &format!("{}[{keys}]", g.base))
    );
    let hi = vals.iter().map(|v| v.4.max(v.2)).fold(0.0, f64::max);
    let lo = vals
        .iter()
        .map(|v| v.3.min(v.2))
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let width = 0.8 / nr as f64;
    let offset = |r: usize| (r as f64 - (nr as f64 - 1.0) / 2.0) * width;
    let cats = g.values.clone();
    let svg = render(&title, |root| {
        let mut b = ChartBuilder::on(root);
        b.caption(&title, (FONT, 17))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(70);
        let xfmt = |v: &f64| {
            let k = v.round();
            if (v - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < cats.len() {
                cats[k as usize].clone()
            } else {
                String::new()
            }
        };
        let x_desc = format!("phase of {}: {keys}", g.base);
        let legend_of = |r: usize| match metric {
            LabelMetric::Iops => format!("{}: mean, whiskers min–max", runs[r].legend()),
            LabelMetric::Latency => {
                format!("{}: mean, whiskers min–max", runs[r].legend())
            }
        };
        match metric {
            LabelMetric::Iops => {
                let mut chart = b
                    .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..(hi * 1.08).max(1.0))
                    .map_err(|e| e.to_string())?;
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .x_labels(2 * n + 1)
                    .x_label_formatter(&xfmt)
                    .y_label_formatter(&|v| short_number(*v))
                    .x_desc(&x_desc)
                    .y_desc(match &window {
                        Some(w) => format!("total IOPS (I/Os per s), window {w}"),
                        None => "total IOPS (I/Os per s)".into(),
                    })
                    .light_line_style(RGBColor(238, 238, 238))
                    .label_style((FONT, 13))
                    .axis_desc_style((FONT, 14))
                    .draw()
                    .map_err(|e| e.to_string())?;
                for r in 0..runs.len() {
                    let c = colour(r);
                    let mine: Vec<_> = vals.iter().filter(|v| v.0 == r).collect();
                    let w2 = width * 0.4;
                    chart
                        .draw_series(mine.iter().map(|v| {
                            let x = v.1 as f64 + offset(r);
                            Rectangle::new([(x - w2, 0.0), (x + w2, v.2)], c.mix(0.7).filled())
                        }))
                        .map_err(|e| e.to_string())?
                        .label(legend_of(r))
                        .legend(move |(x, y)| {
                            Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled())
                        });
                    for v in &mine {
                        let x = v.1 as f64 + offset(r);
                        whisker(&mut chart, x, w2 * 0.5, v.3, v.4)?;
                    }
                }
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(160, 160, 160))
                    .label_font((FONT, 13))
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(|e| e.to_string())?;
            }
            LabelMetric::Latency => {
                let (y0, y1) = if lo.is_finite() {
                    decades(lo, hi)
                } else {
                    (1.0, 10.0)
                };
                let mut chart = b
                    .build_cartesian_2d(-0.5..n as f64 - 0.5, (y0..y1).log_scale())
                    .map_err(|e| e.to_string())?;
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .x_labels(2 * n + 1)
                    .x_label_formatter(&xfmt)
                    .y_label_formatter(&|v| short_number(*v))
                    .x_desc(&x_desc)
                    .y_desc("latency, reads and writes (µs)")
                    .light_line_style(RGBColor(238, 238, 238))
                    .label_style((FONT, 13))
                    .axis_desc_style((FONT, 14))
                    .draw()
                    .map_err(|e| e.to_string())?;
                for r in 0..runs.len() {
                    let c = colour(r);
                    let mine: Vec<_> = vals.iter().filter(|v| v.0 == r).collect();
                    for v in &mine {
                        let x = v.1 as f64 + offset(r);
                        whisker(&mut chart, x, width * 0.2, v.3, v.4)?;
                    }
                    chart
                        .draw_series(
                            mine.iter()
                                .map(|v| Circle::new((v.1 as f64 + offset(r), v.2), 4, c.filled())),
                        )
                        .map_err(|e| e.to_string())?
                        .label(legend_of(r))
                        .legend(move |(x, y)| {
                            Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled())
                        });
                }
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(160, 160, 160))
                    .label_font((FONT, 13))
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    })?;
    let caption = match (metric, &window) {
        (LabelMetric::Iops, Some(w)) => format!(
            "One bar per phase and run: the mean total IOPS over the window {w}, whiskers from its lowest to its highest interval."
        ),
        (LabelMetric::Iops, None) => "One bar per phase and run: the phase's total IOPS (I/Os / duration), whiskers from its lowest to its highest full interval.".into(),
        (LabelMetric::Latency, _) => "One marker per phase and run: the mean latency of reads and writes together, whiskers from the smallest to the largest latency.".into(),
    };
    Ok(Chart {
        title,
        caption,
        svg,
    })
}

/// A vertical whisker at `x` from `lo` to `hi` with caps `half` wide.
fn whisker<Y>(
    chart: &mut ChartContext<
        '_,
        SVGBackend<'_>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, Y>,
    >,
    x: f64,
    half: f64,
    lo: f64,
    hi: f64,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64>,
{
    let style = BLACK.stroke_width(1);
    chart
        .draw_series([
            PathElement::new(vec![(x, lo), (x, hi)], style),
            PathElement::new(vec![(x - half, lo), (x + half, lo)], style),
            PathElement::new(vec![(x - half, hi), (x + half, hi)], style),
        ])
        .map_err(|e| e.to_string())?;
    Ok(())
}
