//! The SVG plots of `wkrun report`, drawn with plotters' SVG backend (text is left to the viewer's fonts,
//! so no font is read at run time). One module per kind of plot, each with one function returning a
//! [`Chart`] (the SVG text, its title and a caption for the HTML page): [`iops::iops_scatter`],
//! [`latency::latency_series`], [`percentiles::percentiles`] and [`sweep::label_chart`]. Each first works
//! out what to draw (points, axis ranges, labels: plain functions of the runs) and then draws it with the
//! helpers here, which every plot shares: rendering to SVG, the chart frame, axes and legend styles, the run
//! colours and the tick numbers ([`short_number`]).
//!
//! Markers, so that a reader (or a test) can count them: every interval of an IOPS scatter is one
//! `<circle>`, filled when drawn at its value, hollow when it cannot be (0 IOPS on a log axis: drawn on the
//! floor row labelled `0`; above `--ymax` on a linear axis: drawn on the top row). In the latency plot
//! each interval with completions is one `<circle>` (its mean) and one `<polygon>` triangle (its max).
//! Legend swatches are rectangles.

pub mod iops;
pub mod latency;
pub mod percentiles;
pub mod sweep;

use super::runs::RunData;
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
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

/// Points `(x, y)` of one series.
pub type Points = Vec<(f64, f64)>;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A chart's drawing context: x linear (f64), y of type `Y` (linear or log, f64).
type Plane<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Y>>;

/// plotters' error as text.
fn why(e: impl std::fmt::Display) -> String {
    e.to_string()
}

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
            .map_err(why)
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(why));
        r.map_err(|why| PlotError {
            what: what.to_string(),
            why,
        })?;
    }
    Ok(svg)
}

/// The frame every plot shares: the title on top, margins, and room for the x axis's labels (`x_area`
/// px high) and the y axis's (70 px wide).
fn frame<'a, 'b>(
    root: &'a Area<'b>,
    title: &str,
    x_area: u32,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.caption(title, (FONT, 17))
        .margin(12)
        .x_label_area_size(x_area)
        .y_label_area_size(70);
    b
}

/// A formatter of tick values.
type Ticks<'f> = &'f dyn Fn(&f64) -> String;

/// The axes of a plot: what each one shows and how its ticks are labelled.
struct Axes<'f> {
    x_desc: &'f str,
    y_desc: &'f str,
    x_ticks: Ticks<'f>,
    y_ticks: Ticks<'f>,
    /// How many x ticks plotters is asked for; `None`: its default.
    x_labels: Option<usize>,
    /// Vertical grid lines (off for category axes).
    x_mesh: bool,
}

/// Draws the grid, the axes, their tick labels and descriptions, in the style every plot shares.
fn draw_axes<Y>(chart: &mut Plane<'_, '_, Y>, a: &Axes<'_>) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut mesh = chart.configure_mesh();
    if !a.x_mesh {
        mesh.disable_x_mesh();
    }
    if let Some(n) = a.x_labels {
        mesh.x_labels(n);
    }
    mesh.x_desc(a.x_desc)
        .y_desc(a.y_desc)
        .x_label_formatter(a.x_ticks)
        .y_label_formatter(a.y_ticks)
        .light_line_style(RGBColor(238, 238, 238))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()
        .map_err(why)
}

/// Draws the legend box of the labelled series at `pos`.
fn draw_legend<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    pos: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(160, 160, 160))
        .label_font((FONT, 13))
        .position(pos)
        .draw()
        .map_err(why)
}

/// A legend swatch: a rectangle 12 px wide and `2 × half` px high in `style`.
fn swatch(style: ShapeStyle, half: i32) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - half), (x + 12, y + half)], style)
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
pub fn decades(lo: f64, hi: f64) -> (f64, f64) {
    let a = lo.log10().floor();
    let mut b = hi.log10().ceil();
    if b <= a {
        b = a + 1.0;
    }
    (10f64.powf(a), 10f64.powf(b))
}

/// The range of a log axis for values from `lo` (the smallest, > 0 when there is one; ∞ or ≤ 0 when there
/// is none) to `hi`: [`decades`], or 1 to 10 when there is nothing to show.
fn log_range(lo: f64, hi: f64) -> (f64, f64) {
    if lo.is_finite() && lo > 0.0 {
        decades(lo, hi)
    } else {
        (1.0, 10.0)
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_number_scales_and_trims() {
        let cases = [
            (0.0, "0"),
            (0.01, "0.01"),
            (0.00012345, "0.0001"),
            (-0.5, "-0.5"),
            (1.0, "1"),
            (2.5, "2.5"),
            (100.0, "100"),
            (999.994, "999.99"),
            (1000.0, "1k"),
            (12_500.0, "12.5k"),
            (12_346.0, "12.35k"),
            (-2000.0, "-2k"),
            (3e6, "3M"),
            (1.25e6, "1.25M"),
            (7e9, "7G"),
            (12.3e9, "12.3G"),
        ];
        for (v, want) in cases {
            assert_eq!(short_number(v), want, "short_number({v})");
        }
    }

    #[test]
    fn decades_round_out_to_powers_of_ten() {
        assert_eq!(decades(3.0, 250.0), (1.0, 1000.0));
        let (lo, hi) = decades(0.02, 0.5);
        assert!((lo - 0.01).abs() < 1e-15 && hi == 1.0, "{lo} {hi}");
        // Both in one decade, or on one power of ten: still a decade apart.
        assert_eq!(decades(20.0, 30.0), (10.0, 100.0));
        assert_eq!(decades(100.0, 100.0), (100.0, 1000.0));
        assert_eq!(decades(1.0, 10.0), (1.0, 10.0));
    }

    #[test]
    fn log_range_falls_back_to_one_decade_when_there_is_nothing_positive() {
        assert_eq!(log_range(f64::INFINITY, 0.0), (1.0, 10.0));
        assert_eq!(log_range(0.0, 5.0), (1.0, 10.0));
        assert_eq!(log_range(4.0, 5.0), (1.0, 10.0));
        assert_eq!(log_range(40.0, 5000.0), (10.0, 10000.0));
    }

    #[test]
    fn capital_upper_cases_the_first_letter_only() {
        assert_eq!(capital("read"), "Read");
        assert_eq!(capital("write iops"), "Write iops");
        assert_eq!(capital(""), "");
    }

    #[test]
    fn run_colours_repeat_after_eight_runs() {
        assert_eq!(colour(0), RGBColor(31, 119, 180));
        assert_eq!(colour(8), colour(0));
        assert_eq!(colour(9), RGBColor(214, 39, 40));
    }

    #[test]
    fn subject_names_each_spec_and_target_once() {
        use crate::report::testing::{phase, run};
        let a = run("a", "sim:capacity=1GiB", vec![(phase("p", 0), None)]);
        let b = run("b", "sim:capacity=1GiB", vec![(phase("p", 0), None)]);
        let c = run("c", "sim:capacity=2GiB", vec![(phase("p", 0), None)]);
        let runs = [a, b, c];
        assert_eq!(subject(&runs, &[0, 1], "p"), "spec · p · sim:capacity=1GiB");
        assert_eq!(
            subject(&runs, &[0, 1, 2], "p[x]"),
            "spec · p[x] · sim:capacity=1GiB / sim:capacity=2GiB"
        );
    }
}
