//! Plots against time, the one drawing every time plot shares: series of points (dots, hollow dots,
//! triangles or lines), each thinned past its share of points to medians over a translucent min–max
//! envelope ([`super::thin()`]), horizontal guide rows, and markers of moments and spans of time (the steady
//! window, the start of a results window, the moment the drive was filled once), with the legend below the
//! plot, one row per drive. The time axis is in seconds, minutes or hours after its length
//! ([`super::scale::time_axis`]). [`markers`] works out a phase's markers from its results and series.
//!
//! The drawing order keeps what a reader needs on top: markers first, then every envelope, then the
//! series from the last drive to the first, so that the first drive named on the command line (the one
//! the tables compare the others against) is drawn over the others; dots are translucent, so where two
//! drives overlap both show.

use super::predicted::DASH_ALPHA;
use super::scale::{TimeUnit, span_in, span_text, time_axis, time_in, time_text};
use super::thin::thin;
use super::{
    Axis, Body, FONT, LegendEntry, Plane, PlotError, Points, Swatch, plot_on, render, why,
};
use crate::report::model::filled_once_s;
use crate::report::runs::RunData;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A line through at most this many points gets a square at each; a longer one is a plain line.
pub const SQUARES_UP_TO: usize = 150;

/// [`Mark::Line`] for a series of up to [`SQUARES_UP_TO`] points, [`Mark::Path`] for a longer one.
pub fn line_for(points: usize) -> Mark {
    if points <= SQUARES_UP_TO {
        Mark::Line
    } else {
        Mark::Path
    }
}

/// How a series' points are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A filled dot (`<circle>`) per point.
    Dot,
    /// A hollow dot per point (a value the axis cannot show, drawn on a special row).
    Hollow,
    /// A filled triangle (`<polygon>`) per point.
    Triangle,
    /// A line through the points, a small square at each.
    Line,
    /// A line through the points, nothing at each (a long series of intervals).
    Path,
    /// A thin line through the points, nothing at each (writes, beside reads' thick line).
    ThinPath,
}

/// One series of a time plot.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSeries {
    /// The drive (run index) it belongs to: its legend item goes in that drive's row.
    pub run: Option<usize>,
    /// Its legend item's words; `None`: none.
    pub name: Option<String>,
    /// Its colour.
    pub colour: RGBColor,
    /// How its points are drawn.
    pub mark: Mark,
    /// `(t_s, value)`.
    pub points: Points,
    /// When the series was thinned, per bucket `(t_s, lowest, highest)`: drawn as a translucent band.
    pub envelope: Vec<(f64, f64, f64)>,
    /// A line drawn dashed (a prediction's, [`super::predicted`]).
    pub dashed: bool,
}

impl TimeSeries {
    /// The series of drive `run` drawing `points` within `max` of them ([`thin`]: past `max`, a point per
    /// bucket at its median, over the buckets' envelope).
    pub fn thinned(
        run: usize,
        name: Option<String>,
        colour: RGBColor,
        mark: Mark,
        points: &[(f64, f64)],
        max: usize,
    ) -> TimeSeries {
        let t = thin(points, max);
        TimeSeries {
            run: Some(run),
            name,
            colour,
            mark,
            points: t.points,
            // Hollow points all sit on one row: no band.
            envelope: if mark == Mark::Hollow {
                Vec::new()
            } else {
                t.envelope
            },
            dashed: false,
        }
    }
}

/// A moment (`from_s == to_s`: a vertical line) or span of time (a pale band) marked on a time plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// The drive (run index) whose phase it marks: its legend item goes in that drive's row.
    pub run: Option<usize>,
    /// Its legend item: what and when; empty: none (a member's line its series' item names).
    pub label: String,
    /// The word drawn at its top inside the plot (short); empty: none.
    pub tag: String,
    /// Start, s from the phase's start.
    pub from_s: f64,
    /// End, s; equal to `from_s` for a moment.
    pub to_s: f64,
    /// Its colour.
    pub colour: RGBColor,
    /// A legend item that gives its time: the words before and after it, the time written in the unit of
    /// the plot's axis when drawn ([`Marker::label_in`]); `None`: `label` as it is.
    pub words: Option<(String, String)>,
    /// A tag that is its time, after these words (a window's start: `23.3 min`, `used: 23.3 min`), written in
    /// the unit of the plot's axis when drawn; `None`: `tag` as it is.
    pub tag_time: Option<String>,
}

const MARK_GREY: RGBColor = RGBColor(87, 96, 106);
const STEADY_GREEN: RGBColor = RGBColor(46, 160, 67);

impl Marker {
    /// A band from `from_s` to `to_s`.
    pub fn band(label: String, tag: &str, from_s: f64, to_s: f64, colour: RGBColor) -> Marker {
        Marker {
            run: None,
            label,
            tag: tag.into(),
            from_s,
            to_s,
            colour,
            words: None,
            tag_time: None,
        }
    }

    /// Its legend item with its time in the unit `u` of the plot's axis (the label as it is when it gives
    /// no time): a legend mixed `263 s` and `30.9 min`.
    pub fn label_in(&self, u: TimeUnit) -> String {
        match &self.words {
            Some((a, b)) if self.to_s > self.from_s => {
                format!("{a}{}{b}", span_in(self.from_s, self.to_s, u))
            }
            Some((a, b)) => format!("{a}{}{b}", time_in(self.from_s, u)),
            None => self.label.clone(),
        }
    }

    /// Its tag, a time in the unit `u` when it is one.
    pub fn tag_in(&self, u: TimeUnit) -> String {
        match &self.tag_time {
            Some(p) if !self.tag.is_empty() => format!("{p}{}", time_in(self.from_s, u)),
            _ => self.tag.clone(),
        }
    }

    /// The marker with its legend item `words` around its time ([`Marker::label_in`]).
    fn timed(mut self, before: &str, after: &str) -> Marker {
        self.words = Some((before.into(), after.into()));
        self
    }

    /// A line at `at_s`.
    pub fn line(label: String, tag: &str, at_s: f64, colour: RGBColor) -> Marker {
        Marker::band(label, tag, at_s, at_s, colour)
    }

    /// The steady window, from `from_s` to `to_s` (s from the phase's start).
    pub fn steady(from_s: f64, to_s: f64) -> Marker {
        Marker::band(
            format!("steady window {}", span_text(from_s, to_s)),
            "steady",
            from_s,
            to_s,
            STEADY_GREEN,
        )
        .timed("steady window ", "")
    }

    /// The start of the results window `spec` at `start_s`.
    pub fn window(spec: &str, start_s: f64) -> Marker {
        let mut m = Marker::line(
            format!("window {spec} starts at {}", time_text(start_s)),
            &time_text(start_s),
            start_s,
            MARK_GREY,
        )
        .timed(&format!("window {spec} starts at "), "");
        m.tag_time = Some(String::new());
        m
    }

    /// The moment the phase had written its span once, `at_s`, on a target that is a `thing`
    /// ([`crate::target::TargetKind::thing`]: `file`, `drive`).
    pub fn filled(at_s: f64, colour: RGBColor, who: &str, thing: &str) -> Marker {
        Marker::line(
            format!("{who}{thing} span written once at {}", time_text(at_s)),
            "filled once",
            at_s,
            colour,
        )
        .timed(&format!("{who}{thing} span written once at "), "")
    }

    /// Whether it shows between `x0` and `x1`.
    fn within(&self, x0: f64, x1: f64) -> bool {
        self.to_s >= x0 && self.from_s <= x1
    }
}

/// The markers of phase `p` of `run`: its steady window (`steady_state.window_start_s` to `window_end_s`;
/// in results without them, the rule's window ending where steady state was reached, `at_s − window_s` to
/// `at_s`), the start of each results window that does not start at 0, and
/// for a workload that writes, the moment its span had been written once ([`filled_once_s`]).
pub fn markers(run: &RunData, p: usize) -> Vec<Marker> {
    let (phase, rows) = run.phase(p);
    let mut out = Vec::new();
    if let Some(s) = &phase.steady_state
        && let (true, Some(at)) = (s.reached, s.at_s)
    {
        let start = s.window_start_s.unwrap_or((at - s.window_s).max(0.0));
        out.push(Marker::steady(start, s.window_end_s.unwrap_or(at)));
    }
    for w in &phase.windows {
        if w.start_s > 0.0 && w.iops.is_some() {
            out.push(Marker::window(&w.spec, w.start_s));
        }
    }
    if phase.kind == crate::spec::PhaseKind::Workload
        && let Some(t) = filled_once_s(rows, phase.span_written_against())
    {
        out.push(Marker::filled(
            t,
            MARK_GREY,
            "",
            run.results.target.kind.thing(),
        ));
    }
    out
}

/// A plot against time.
#[derive(Debug, Clone, PartialEq)]
pub struct TimePlot {
    /// The title drawn on top.
    pub title: String,
    /// The time axis, s.
    pub x: Axis,
    /// The value axis.
    pub y: Axis,
    /// What the y axis shows, with its unit.
    pub y_desc: String,
    /// The series, drawn in order.
    pub series: Vec<TimeSeries>,
    /// Horizontal grey rows (the `0` row of a log axis, the top row of a capped linear one).
    pub rows: Vec<f64>,
    /// The markers, drawn under the series.
    pub markers: Vec<Marker>,
    /// The drives' labels and their rows' second lines (a prediction's fitted drive), by run index (the
    /// legend's rows).
    pub drives: Vec<(String, Option<String>)>,
}

impl TimePlot {
    /// The legend: a row per drive (in run order) with its named series, then its markers within the time
    /// axis; items of no drive in a last row.
    pub fn legend(&self) -> Vec<LegendEntry> {
        let mut rows: Vec<LegendEntry> = Vec::new();
        let mut shared: Option<LegendEntry> = None;
        let mut add = |run: Option<usize>, text: &str, swatch: Swatch| match run {
            Some(r) => match rows
                .iter_mut()
                .find(|e| e.run.as_ref().is_some_and(|x| x.0 == r))
            {
                Some(e) => e.push(text, swatch),
                None => {
                    let (label, note) = self.drives.get(r).cloned().unwrap_or_default();
                    rows.push(LegendEntry::drive(r, &label, text, swatch).with_note(note));
                }
            },
            None => match shared.as_mut() {
                Some(e) => e.push(text, swatch),
                None => shared = Some(LegendEntry::new(text, swatch)),
            },
        };
        for s in &self.series {
            let swatch = match s.mark {
                Mark::Line | Mark::Path | Mark::ThinPath if s.dashed => Swatch::Dashed(s.colour),
                Mark::Dot | Mark::Triangle => Swatch::Filled(s.colour),
                Mark::Hollow => Swatch::Hollow(s.colour),
                Mark::Line | Mark::Path => Swatch::Line(s.colour),
                Mark::ThinPath => Swatch::Thin(s.colour),
            };
            if let Some(n) = &s.name {
                add(s.run, n, swatch);
            }
        }
        let unit = self.unit();
        for m in self.shown_markers().filter(|m| !m.label.is_empty()) {
            let swatch = if m.to_s > m.from_s {
                Swatch::Band(m.colour)
            } else {
                Swatch::Line(m.colour)
            };
            add(m.run, &m.label_in(unit), swatch);
        }
        rows.sort_by_key(|e| e.run.as_ref().map_or(usize::MAX, |r| r.0));
        rows.extend(shared);
        rows
    }

    /// The unit of the plot's time axis ([`time_axis`]), in which its legend and tags give times.
    pub fn unit(&self) -> TimeUnit {
        time_axis(self.x.lo, self.x.hi).1
    }

    fn shown_markers(&self) -> impl Iterator<Item = &Marker> {
        self.markers
            .iter()
            .filter(|m| m.within(self.x.lo, self.x.hi))
    }

    /// Draws the plot, its time axis in the unit of its length ([`time_axis`]).
    ///
    /// # Errors
    /// [`PlotError`] from plotters.
    pub fn draw(&self) -> Result<String, PlotError> {
        let (x, unit) = time_axis(self.x.lo, self.x.hi);
        let x_desc = format!("time since the phase's start ({})", unit.symbol());
        render(&self.title, &self.legend(), |root| {
            plot_on(
                root,
                (&x, &self.y),
                (&x_desc, &self.y_desc),
                &|v| x.label(*v),
                true,
                self,
            )
        })
    }
}

impl Body for TimePlot {
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let (x0, x1) = (self.x.lo, self.x.hi);
        let unit = self.unit();
        let (y0, y1) = (self.y.lo, self.y.hi);
        for (i, m) in self.shown_markers().enumerate() {
            let (a, b) = (m.from_s.max(x0), m.to_s.min(x1));
            if b > a {
                chart
                    .draw_series([Rectangle::new(
                        [(a, y0), (b, y1)],
                        m.colour.mix(0.13).filled(),
                    )])
                    .map_err(why)?;
            } else {
                chart
                    .draw_series([PathElement::new(
                        vec![(a, y0), (a, y1)],
                        m.colour.stroke_width(if m.tag.is_empty() { 1 } else { 2 }),
                    )])
                    .map_err(why)?;
            }
            if !m.tag.is_empty() {
                // Right of the line, or left of it in the right part of the plot, so that a tag near
                // the end (a window starting late, the span written once at the end) is not cut off.
                let right_part = x1 > x0 && (a - x0) / (x1 - x0) > 0.6;
                let (anchor, dx) = match right_part {
                    true => (HPos::Right, -4),
                    false => (HPos::Left, 4),
                };
                let style = (FONT, 12)
                    .into_font()
                    .color(&m.colour)
                    .pos(Pos::new(anchor, VPos::Top));
                let text = EmptyElement::at((a, y1))
                    + Text::new(m.tag_in(unit), (dx, 3 + 14 * i as i32), style);
                chart.draw_series([text]).map_err(why)?;
            }
        }
        for &r in &self.rows {
            chart
                .draw_series([PathElement::new(
                    vec![(x0, r), (x1, r)],
                    RGBColor(170, 170, 170).stroke_width(1),
                )])
                .map_err(why)?;
        }
        // Every envelope under every series; points under lines; the last drive first, the first on top.
        for s in &self.series {
            draw_envelope(chart, s)?;
        }
        let line = |s: &&TimeSeries| matches!(s.mark, Mark::Line | Mark::Path | Mark::ThinPath);
        for s in self.series.iter().rev().filter(|s| !line(s)) {
            draw_series(chart, s)?;
        }
        for s in self.series.iter().rev().filter(line) {
            draw_series(chart, s)?;
        }
        Ok(())
    }
}

/// Draws a thinned series' envelope: a translucent band through each bucket's lowest and highest value.
fn draw_envelope<Y>(chart: &mut Plane<'_, '_, Y>, s: &TimeSeries) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    if s.envelope.is_empty() {
        return Ok(());
    }
    let mut edge: Vec<(f64, f64)> = s.envelope.iter().map(|e| (e.0, e.2)).collect();
    edge.extend(s.envelope.iter().rev().map(|e| (e.0, e.1)));
    chart
        .draw_series([Polygon::new(edge, s.colour.mix(0.18).filled())])
        .map(drop)
        .map_err(why)
}

/// Draws one series' points.
fn draw_series<Y>(chart: &mut Plane<'_, '_, Y>, s: &TimeSeries) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let c = s.colour;
    // A dashed line is drawn at the opacity the SVG's dash replaces ([`super::predicted::dashed`]).
    let line = match s.dashed {
        true => c.mix(DASH_ALPHA),
        false => c.mix(1.0),
    };
    match s.mark {
        Mark::Dot => chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, 2, c.mix(0.75).filled())),
            )
            .map(drop),
        Mark::Hollow => chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, 3, c.stroke_width(1))),
            )
            .map(drop),
        Mark::Triangle => chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&p| TriangleMarker::new(p, 3, c.mix(0.45).filled())),
            )
            .map(drop),
        Mark::ThinPath => chart
            .draw_series(LineSeries::new(s.points.clone(), line.stroke_width(1)))
            .map(drop),
        Mark::Line | Mark::Path => {
            chart
                .draw_series(LineSeries::new(s.points.clone(), line.stroke_width(2)))
                .map_err(why)?;
            if s.mark == Mark::Path {
                return Ok(());
            }
            chart
                .draw_series(s.points.iter().map(|&(x, y)| {
                    EmptyElement::at((x, y)) + Rectangle::new([(-2, -2), (2, 2)], c.filled())
                }))
                .map(drop)
        }
    }
    .map_err(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::row;

    /// The newcomer's trial: one legend said `263 s` and `30.9 min`. Every time in a plot's legend and tags is
    /// in the unit of its axis: minutes for a 33-minute phase.
    #[test]
    fn a_legend_gives_its_times_in_the_axis_unit() {
        let plot = TimePlot {
            title: "t".into(),
            x: Axis::linear(0.0, 2000.0),
            y: Axis::linear(0.0, 10.0),
            y_desc: "y".into(),
            series: vec![],
            rows: vec![],
            markers: vec![
                Marker::filled(263.0, MARK_GREY, "", "drive"),
                Marker::steady(40.0, 100.0),
                Marker::window("1400s..", 1854.0),
            ],
            drives: vec![("a".into(), None)],
        };
        assert_eq!(plot.unit(), TimeUnit::Minutes);
        let texts: Vec<String> = plot
            .legend()
            .iter()
            .flat_map(|e| e.items.iter().map(|i| i.text.clone()))
            .collect();
        assert_eq!(
            texts,
            [
                "drive span written once at 4.38 min",
                "steady window 0.667–1.67 min",
                "window 1400s.. starts at 30.9 min"
            ]
        );
        assert_eq!(plot.markers[2].tag_in(plot.unit()), "30.9 min");
        // On a plot of seconds, the same marker says seconds.
        assert_eq!(
            plot.markers[0].label_in(TimeUnit::Seconds),
            "drive span written once at 263 s"
        );
    }

    /// Issue 24 item 12: a marker's tag in the right part of the plot is drawn left of its line (anchored at
    /// its end), so that it is not cut off at the plot's edge; one in the left part, right of it.
    #[test]
    fn tags_near_the_right_edge_end_at_their_line() {
        let m = |tag: &str, at: f64| Marker {
            run: Some(0),
            label: format!("{tag} at {at}"),
            tag: tag.into(),
            from_s: at,
            to_s: at,
            colour: MARK_GREY,
            words: None,
            tag_time: None,
        };
        let plot = TimePlot {
            title: "t".into(),
            x: Axis::linear(0.0, 100.0),
            y: Axis::linear(0.0, 10.0),
            y_desc: "y".into(),
            series: vec![],
            rows: vec![],
            markers: vec![m("early", 10.0), m("filled once", 95.0)],
            drives: vec![("a".into(), None)],
        };
        let svg = plot.draw().expect("draws");
        let anchor = |tag: &str| {
            let at = svg.find(&format!(">\n{tag}\n<")).expect(tag);
            let start = svg[..at].rfind("<text").expect("its element");
            svg[start..at].contains("text-anchor=\"end\"")
        };
        assert!(anchor("filled once"), "{svg}");
        assert!(!anchor("early"), "{svg}");
    }

    #[test]
    fn markers_come_from_the_steady_verdict_windows_and_writes() {
        use crate::report::testing::{phase, run};
        let mut p = phase("p", 1);
        p.params.span_bytes = 163_840;
        let mut r = run(
            "a",
            "sim:a",
            vec![(
                p,
                Some(vec![row(1.0, 0, 10), row(2.0, 5, 20), row(3.0, 0, 30)]),
            )],
        );
        let v: serde_json::Value = serde_json::json!({
            "criterion": {"rule": "snia", "window": 2, "max_rounds": 25, "data_excursion": 0.2, "slope_excursion": 0.1},
            "reached": true, "at_s": 3.0, "window_s": 2.0, "ended_phase": false,
            "verdict": {"reached": true, "at_round": 2, "at_round_number": 3, "window_first_round": 1,
              "window_rounds": 2, "window_mean": 25.0, "window_min": 20.0, "window_max": 30.0, "slope": 10.0,
              "data_excursion": 0.4, "slope_excursion": 0.4, "max_deviation": 5.0, "rounds_seen": 3,
              "gave_up": false, "left": null}
        });
        r.results.phases[0].steady_state = Some(serde_json::from_value(v).expect("verdict"));
        r.results.phases[0].windows = vec![crate::report::testing::window(
            "2s..",
            (2.0, 3.0),
            30.0,
            30.0,
            30.0,
        )];
        let m = markers(&r, 0);
        let labels: Vec<(&str, f64, f64)> = m
            .iter()
            .map(|m| (m.label.as_str(), m.from_s, m.to_s))
            .collect();
        assert_eq!(labels[0], ("steady window 1–3 s", 1.0, 3.0));
        assert_eq!(labels[1], ("window 2s.. starts at 2 s", 2.0, 2.0));
        assert_eq!(labels[2].0, "drive span written once at 2.33 s");
    }
}
