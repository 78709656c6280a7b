//! The SVG plots of `wkrun report`, drawn with plotters' SVG backend (text is left to the viewer's fonts,
//! so no font is read at run time). One module per kind of plot, each with one function returning a
//! [`Chart`] (the SVG text, its title and a caption for the HTML page): [`iops::iops_scatter`],
//! [`latency::latency_series`], [`bandwidth::bandwidth_series`], [`aggregates::aggregate_chart`],
//! [`overlay::overlay_chart`], [`percentiles::percentiles`] and [`sweep::label_chart`]. Each first works
//! out what to draw (points, axis ranges, labels: plain functions of the runs) and then draws it with the
//! helpers here and in [`time`], which every plot shares: rendering to SVG, the chart frame, the axes and
//! their ticks ([`Axis`]: a log axis has a `0` row only when zeros are drawn, and no tick twice), the
//! legend (below the plot, never on the data), markers (bands and lines at given seconds), the colours,
//! the tick numbers ([`short_number`]) and the thinning of long series ([`thin()`]).
//!
//! Markers, so that a reader (or a test) can count them: every interval of an IOPS scatter is one
//! `<circle>` (up to [`MAX_POINTS`] per plot, see [`thin()`]), filled when drawn at its value, hollow when it
//! cannot be (0 IOPS on a log axis: drawn on the row labelled `0`; above `--ymax` on a linear axis: drawn
//! on the top row). In the latency plot each interval with completions is one `<circle>` (its mean) and
//! one `<polygon>` triangle (its max). Legend swatches are rectangles or lines, never circles.

pub mod aggregates;
pub mod bandwidth;
pub mod battery;
pub mod canvas;
pub mod cells;
pub mod convergence;
pub mod device;
pub mod histogram;
pub mod iops;
pub mod latency;
pub mod lines;
pub mod overlay;
pub mod palette;
pub mod pct_time;
pub mod percentiles;
pub mod predicted;
pub mod ranked;
pub mod scale;
pub mod ss_window;
pub mod sweep;
pub mod thin;
pub mod time;

pub use canvas::{FONT, LegendEntry, legend_grid};
pub use palette::{RUN_COLOURS, colour};
pub use thin::thin;

use super::runs::RunData;
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;

/// Width and height of every plot's drawing (title and plot), px; a title on two lines adds a line, the
/// legend adds rows below it.
pub const SIZE: (u32, u32) = (960, 540);
/// At most this many points are drawn on one plot; longer series are thinned ([`thin()`]), so an SVG stays
/// under about a megabyte whatever the length of the run.
pub const MAX_POINTS: usize = 4000;

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
/// A chart's drawing context: x and y axes with the ranges and ticks [`Axis`] chose (`Y` is always
/// [`Coord`]; the helpers that draw on it are written for any f64 axis).
type Plane<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Coord, Y>>;

/// An [`Axis`] as plotters' coordinate: linear or log, with exactly the axis's ticks and light lines.
#[derive(Debug, Clone)]
pub struct Coord(Axis);

impl Ranged for Coord {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let a = &self.0;
        let f = |x: f64| {
            if a.log {
                x.max(f64::MIN_POSITIVE).ln()
            } else {
                x
            }
        };
        let (lo, hi) = (f(a.lo), f(a.hi));
        if hi == lo {
            return (limit.0 + limit.1) / 2;
        }
        let share = (f(*v) - lo) / (hi - lo);
        let len = f64::from(limit.1 - limit.0);
        limit.0 + (len * share.clamp(-10.0, 10.0) + 1e-3).floor() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.0.light.clone()
        } else {
            self.0.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.0.lo..self.0.hi
    }
}

/// plotters' error as text.
fn why(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// What a legend entry's swatch looks like.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A filled square (points drawn filled, bars).
    Filled(RGBColor),
    /// An outlined square (hollow points).
    Hollow(RGBColor),
    /// A short thick line (a line series, a marker line; reads where a thin line is writes).
    Line(RGBColor),
    /// A short thin line (writes, beside reads' thick line).
    Thin(RGBColor),
    /// A short thick dashed line (a prediction's line, [`predicted`]).
    Dashed(RGBColor),
    /// A pale square (a marked band of time, an envelope).
    Band(RGBColor),
    /// A pale square outlined in the colour (writes' bars, beside reads' filled ones).
    Outlined(RGBColor),
}

/// Renders a plot into an SVG string: `title` on top ([`canvas::title_lines`]), the drawing `draw` makes
/// below it, `legend` in rows below that ([`canvas::compose`]); `draw` returns plotters' errors as text.
fn render(
    title: &str,
    legend: &[LegendEntry],
    draw: impl FnOnce(&Area<'_>) -> Result<(), String>,
) -> Result<String, PlotError> {
    let plot_h = SIZE.1 - canvas::TITLE_BLOCK;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (SIZE.0, plot_h)).into_drawing_area();
        let r = root
            .fill(&WHITE)
            .map_err(why)
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(why));
        r.map_err(|why| PlotError {
            what: title.to_string(),
            why,
        })?;
    }
    let svg = predicted::dashed(svg);
    // Held until the page is written (a report of 2,000 phases holds 14,000): no spare capacity.
    let mut svg = without_controls(canvas::compose(title, &svg, plot_h, legend));
    svg.shrink_to_fit();
    Ok(svg)
}

/// `svg` without the control characters XML 1.0 forbids (all but tab, line feed and carriage return):
/// a phase name or a target path holding an ESC or a BEL made every plot ill-formed XML. plotters writes
/// none of its own, so only text from results is touched.
pub fn without_controls(svg: String) -> String {
    match svg.chars().any(forbidden_in_xml) {
        true => svg.chars().filter(|&c| !forbidden_in_xml(c)).collect(),
        false => svg,
    }
}

/// A character XML 1.0 does not allow in a document (a C0 control but tab, line feed and carriage
/// return), or one it discourages and a terminal acts on (DEL and the C1 controls).
fn forbidden_in_xml(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// The frame every plot shares (its title is drawn above it, [`render`]): margins, and room for the x
/// axis's labels (`x_area` px high) and the y axis's (70 px wide).
fn frame<'a, 'b>(root: &'a Area<'b>, x_area: u32) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.margin(12)
        .margin_top(6)
        .margin_right(24)
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
    mesh.x_desc(a.x_desc)
        .y_desc(a.y_desc)
        .x_label_formatter(a.x_ticks)
        .y_label_formatter(a.y_ticks)
        .bold_line_style(RGBColor(222, 222, 222))
        .light_line_style(RGBColor(242, 242, 242))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()
        .map_err(why)
}

/// One axis of a plot: its range, whether it is logarithmic, its ticks (labelled) and light grid lines,
/// and on a log axis the row standing for 0 (drawn only when a zero is drawn on it).
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The low end.
    pub lo: f64,
    /// The high end.
    pub hi: f64,
    /// Log scale.
    pub log: bool,
    /// Where the labelled ticks are, ascending, no two with the same label.
    pub ticks: Vec<f64>,
    /// Light grid lines.
    pub light: Vec<f64>,
    /// The row of zeros on a log axis, labelled `0`; `None` when no zero is drawn.
    pub zero_row: Option<f64>,
    /// How its ticks are labelled.
    pub text: TickText,
}

/// How an axis's ticks are labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TickText {
    /// Short numbers ([`short_number`]): `500`, `2.5k`.
    #[default]
    Number,
    /// Latencies given in µs, each in the unit that keeps it short ([`scale::latency_text`]): `100 µs`,
    /// `1 ms`, `1 s`.
    Latency,
    /// Times given in s, in the unit's numbers (`5`, `10` on an axis in minutes, [`scale::time_axis`]).
    Time(scale::TimeUnit),
}

impl Axis {
    /// A linear axis from `lo` to `hi` with about eight round ticks ([`linear_ticks`]).
    pub fn linear(lo: f64, hi: f64) -> Axis {
        let ticks = linear_ticks(lo, hi);
        let light = ticks.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
        Axis {
            lo,
            hi,
            log: false,
            ticks,
            light,
            zero_row: None,
            text: TickText::Number,
        }
    }

    /// A log axis over the decades around `min_pos` (the smallest value > 0; ∞ when none) and `max`
    /// (powers of ten, see [`decades`]); with `zeros`, a row labelled `0` a decade below the lowest decade, and the axis
    /// reaching half a decade below it. Without zeros, no `0` row.
    pub fn log(min_pos: f64, max: f64, zeros: bool) -> Axis {
        Axis::decades(log_range(min_pos, max), zeros)
    }

    /// A log axis from the power of ten `lo` to the power of ten `hi`, with a `0` row below when `zeros`
    /// (see [`Axis::log`]).
    pub fn decades((lo, hi): (f64, f64), zeros: bool) -> Axis {
        let mut ticks = log_ticks(lo, hi);
        let mut light = log_light(lo, hi);
        let (bottom, zero_row) = if zeros {
            let z = lo / 10.0;
            ticks.insert(0, z);
            light.insert(0, lo);
            (z / 10f64.powf(0.5), Some(z))
        } else {
            (lo, None)
        };
        Axis {
            lo: bottom,
            hi,
            log: true,
            ticks,
            light,
            zero_row,
            text: TickText::Number,
        }
    }

    /// A category axis of `n` categories at 0 … n − 1, half a category of room each side, a tick at each.
    pub fn categories(n: usize) -> Axis {
        Axis {
            lo: -0.5,
            hi: n as f64 - 0.5,
            log: false,
            ticks: (0..n).map(|k| k as f64).collect(),
            light: vec![],
            zero_row: None,
            text: TickText::Number,
        }
    }

    /// The same axis with its ticks labelled as latencies ([`TickText::Latency`]).
    pub fn latency(self) -> Axis {
        Axis {
            text: TickText::Latency,
            ..self
        }
    }

    /// The label of tick `v`: `0` on the zero row, else after [`Axis::text`].
    pub fn label(&self, v: f64) -> String {
        match (self.zero_row, self.text) {
            (Some(z), _) if (v / z - 1.0).abs() < 1e-9 => "0".to_string(),
            (_, TickText::Number) => short_number(v),
            (_, TickText::Latency) => scale::latency_text(v),
            (_, TickText::Time(u)) => short_number(v / u.seconds()),
        }
    }

    /// The labels of every tick, in order.
    pub fn labels(&self) -> Vec<String> {
        self.ticks.iter().map(|v| self.label(*v)).collect()
    }

    fn coord(&self) -> Coord {
        Coord(self.clone())
    }
}

/// What a plot draws on its plane once the axes are there; generic over the y axis's kind.
trait Body {
    /// Draws the data (and markers) on `chart`.
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>;
}

/// Builds the plane of a plot on `root` with the axes `x` (linear) and `y` (linear or log), draws the grid
/// and ticks (`desc`: x and y descriptions; `x_ticks`: the x labels), then `body`.
fn plot_on<B: Body>(
    root: &Area<'_>,
    (x, y): (&Axis, &Axis),
    desc: (&str, &str),
    x_ticks: Ticks<'_>,
    x_mesh: bool,
    body: &B,
) -> Result<(), String> {
    let mut b = frame(root, 48);
    let y_ticks = |v: &f64| y.label(*v);
    let axes = Axes {
        x_desc: desc.0,
        y_desc: desc.1,
        x_ticks,
        y_ticks: &y_ticks,
        x_mesh,
    };
    let mut chart = b.build_cartesian_2d(x.coord(), y.coord()).map_err(why)?;
    draw_axes(&mut chart, &axes)?;
    body.draw(&mut chart)
}

/// `10^k`, exact for the powers a plot uses.
pub fn pow10(k: i32) -> f64 {
    format!("1e{k}").parse().unwrap_or(f64::NAN)
}

/// The labelled ticks of a log axis from `lo` to `hi` (powers of ten, `lo < hi`): every power of ten,
/// and 2× and 5× each when the axis spans at most two decades; never two ticks with one label.
/// Past 20 decades, every n-th decade from the lowest, and the highest.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = decade_exponents(lo, hi);
    let stride = usize::try_from((b - a) / MAX_LOG_TICKS + 1).unwrap_or(1);
    let mut ticks = Vec::new();
    for k in (a..=b).step_by(stride).chain((stride > 1).then_some(b)) {
        let p = pow10(k);
        ticks.push(p);
        if b - a <= 2 && k < b {
            ticks.push(2.0 * p);
            ticks.push(5.0 * p);
        }
    }
    dedup_labels(ticks)
}

/// The most labelled decades on a log axis: 20 (an axis over more shows every n-th).
const MAX_LOG_TICKS: i32 = 20;

/// The exponents of the powers of ten `lo` and `hi`, each kept within what an `f64` holds (10^-307 to 10^307):
/// an axis over 0, a subnormal or an infinity still has a bounded number of decades.
fn decade_exponents(lo: f64, hi: f64) -> (i32, i32) {
    let exp = |v: f64| {
        let e = v.log10().round();
        if e.is_nan() {
            0
        } else {
            e.clamp(-307.0, 307.0) as i32
        }
    };
    (exp(lo), exp(hi))
}

/// The light grid lines of a log axis: 2× to 9× each decade, up to four decades.
fn log_light(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = decade_exponents(lo, hi);
    if b - a > 4 {
        return Vec::new();
    }
    (a..b)
        .flat_map(|k| (2..10).map(move |m| f64::from(m) * pow10(k)))
        .collect()
}

/// About eight round ticks from `lo` to `hi`: multiples of 1, 2, 2.5 or 5 × 10^k, the first at or above
/// `lo`, the last at or below `hi`; never two ticks with one label.
pub fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let raw = (hi - lo) / 8.0;
    let k = raw.log10().floor() as i32;
    // i × m × 10^k, divided rather than multiplied by a negative power (0.6, not 0.6000000000000001).
    let at = |i: f64, m: f64| {
        if k >= 0 {
            i * m * pow10(k)
        } else {
            i * m / pow10(-k)
        }
    };
    let m = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|m| at(1.0, *m) >= raw)
        .unwrap_or(10.0);
    let step = at(1.0, m);
    let (first, last) = ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor());
    // A range too narrow for a step an f64 holds (subnormal: 10^-309 is 0), or too wide: no ladder of steps.
    if !(step > 0.0
        && step.is_finite()
        && first.is_finite()
        && last.is_finite()
        && last - first <= 100.0)
    {
        return vec![lo];
    }
    let (first, last) = (first as i64, last as i64);
    dedup_labels((first..=last).map(|i| at(i as f64, m)).collect())
}

/// Drops a tick whose label equals the one before it.
fn dedup_labels(ticks: Vec<f64>) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::with_capacity(ticks.len());
    for t in ticks {
        if out
            .last()
            .is_none_or(|l| short_number(*l) != short_number(t))
        {
            out.push(t);
        }
    }
    out
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

/// The drives' labels, by run index: the rows of a legend.
pub fn drives(runs: &[RunData]) -> Vec<(String, Option<String>)> {
    runs.iter()
        .map(|r| (r.label.clone(), predicted::legend_note(r)))
        .collect()
}

/// The title's tail: `spec · phase · target(s)`; past three targets, `N targets` (the legend names them).
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
    // Many drives: how many (the legend names each).
    if targets.len() > 3 {
        targets = vec![format!("{} targets", targets.len())];
    }
    format!("{} · {phase} · {}", specs.join(" / "), targets.join(" / "))
}

/// Powers of ten around `[lo, hi]` (both > 0): `(10^floor(log lo), 10^ceil(log hi))`, at least a decade apart.
/// Exponents are kept from -307 to 307 (an infinity or a subnormal value ends the axis there).
pub fn decades(lo: f64, hi: f64) -> (f64, f64) {
    let bound = |e: f64| {
        if e.is_nan() {
            0.0
        } else {
            e.clamp(-307.0, 307.0)
        }
    };
    let a = bound(lo.log10().floor()).min(306.0);
    let mut b = bound(hi.log10().ceil());
    if b <= a {
        b = a + 1.0;
    }
    (pow10(a as i32), pow10(b as i32))
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

    /// An ESC or a BEL from a phase name or target path made every plot ill-formed XML (issue 24 item 20).
    #[test]
    fn control_characters_are_left_out_of_svg_text() {
        assert_eq!(
            without_controls("<text>t\u{1b}]0;x\u{7}.img\u{9b}</text>\n\t".to_string()),
            "<text>t]0;x.img</text>\n\t"
        );
        assert_eq!(without_controls("µ <ok/>".to_string()), "µ <ok/>");
    }

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
        let many: Vec<RunData> = (0..5)
            .map(|i| run("r", &format!("t{i}"), vec![(phase("p", 0), None)]))
            .collect();
        assert_eq!(
            subject(&many, &[0, 1, 2, 3, 4], "p"),
            "spec · p · 5 targets"
        );
    }

    /// Labels of plotters' own log key points (what the plots used before [`Axis`]).
    fn plotters_log_labels(lo: f64, hi: f64) -> Vec<String> {
        use plotters::coord::ranged1d::BoldPoints;
        let c: LogCoord<f64> = (lo..hi).log_scale().into();
        c.key_points(BoldPoints(10))
            .iter()
            .map(|v| short_number(*v))
            .collect()
    }

    #[test]
    fn log_axis_has_a_zero_row_only_when_zeros_are_drawn() {
        // Values 50..2000 without a zero: the decades 10..10k and nothing below (the old IOPS plots
        // always had a "0" row a decade under the data).
        let a = Axis::log(50.0, 2000.0, false);
        assert_eq!(a.labels(), ["10", "100", "1k", "10k"]);
        assert_eq!((a.lo, a.hi, a.zero_row), (10.0, 10_000.0, None));
        // With zeros: a row labelled 0 at 1, the axis half a decade below it.
        let z = Axis::log(50.0, 2000.0, true);
        assert_eq!(z.labels(), ["0", "10", "100", "1k", "10k"]);
        assert_eq!(z.zero_row, Some(1.0));
        assert!((z.lo - 1.0 / 10f64.sqrt()).abs() < 1e-12, "{}", z.lo);
        assert_eq!(z.label(1.0), "0");
        assert_eq!(a.label(1.0), "1");
    }

    #[test]
    fn log_axis_never_labels_a_tick_twice() {
        // plotters' key points on one decade end with the top twice: the doubled "1k" and "10" ticks.
        assert_eq!(
            plotters_log_labels(100.0, 1000.0).last_chunk::<2>(),
            Some(&["1k".to_string(), "1k".to_string()])
        );
        assert_eq!(
            plotters_log_labels(1.0, 10.0).last_chunk::<2>(),
            Some(&["10".to_string(), "10".to_string()])
        );
        // The axes of the same ranges.
        assert_eq!(
            Axis::decades((100.0, 1000.0), false).labels(),
            ["100", "200", "500", "1k"]
        );
        assert_eq!(
            Axis::decades((1.0, 10.0), false).labels(),
            ["1", "2", "5", "10"]
        );
        assert_eq!(
            Axis::decades((0.01, 1.0), false).labels(),
            ["0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1"]
        );
        assert_eq!(
            Axis::decades((1.0, 1e6), false).labels(),
            ["1", "10", "100", "1k", "10k", "100k", "1M"]
        );
        for (lo, hi) in [(1e-3, 1.0), (1.0, 10.0), (10.0, 1e4), (1e2, 1e9)] {
            let labels = Axis::decades((lo, hi), true).labels();
            let mut unique = labels.clone();
            unique.dedup();
            assert_eq!(labels, unique, "{lo}..{hi}");
        }
    }

    #[test]
    fn linear_ticks_are_round_and_distinct() {
        assert_eq!(
            linear_ticks(0.0, 2100.0),
            [0.0, 500.0, 1000.0, 1500.0, 2000.0]
        );
        assert_eq!(linear_ticks(0.0, 1.0), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(
            linear_ticks(1400.0, 2000.0),
            [1400.0, 1500.0, 1600.0, 1700.0, 1800.0, 1900.0, 2000.0]
        );
        assert_eq!(
            Axis::linear(0.0, 2592.0).labels(),
            ["0", "500", "1k", "1.5k", "2k", "2.5k"]
        );
        assert_eq!(linear_ticks(5.0, 5.0), [5.0]);
    }

    /// Found by the attack session: `--ymax=1e-308` (a step of 10^-309, which an f64 holds as 0) asked for
    /// 2^63 ticks (exit 101, capacity overflow), and an infinite value for 2^31 decades (memory, then 134).
    #[test]
    fn ticks_of_extreme_ranges_are_few() {
        for hi in [1e-308, 2.3e-308, 1e-320, 2e-308 * 1.05] {
            assert_eq!(linear_ticks(0.0, hi), [0.0], "{hi}");
        }
        assert_eq!(linear_ticks(-1e308, 1e308), [-1e308]);
        assert_eq!(linear_ticks(0.0, 1.7e308).len(), 7);
        assert_eq!(decades(1.0, f64::INFINITY), (1.0, 1e307));
        assert_eq!(decades(0.0, 1e-320), (1e-307, 1e-306));
        let ticks = log_ticks(1e-307, 1e307);
        // Every 31st decade from the lowest (614 decades), the labels that read alike (`0`) once.
        let every: Vec<f64> = (0..10).map(|i| pow10(3 + 31 * i)).collect();
        assert_eq!(ticks, [&[1e-307][..], &every, &[1e307]].concat());
        assert_eq!(log_ticks(1.0, f64::INFINITY).last(), Some(&1e307));
        assert_eq!(
            Axis::decades(decades(2e-308, 1.7e308), true).ticks,
            [&[1e-308][..], &ticks].concat()
        );
    }
}
