//! The latency percentile curve of a phase, reads, writes and trims, one colour per drive (reads circles
//! and a thick line, writes triangles and a thin line, trims crosses and a thin line): p0..p99.99 from the phase's latency histogram (as
//! recorded in results.json), x in nines, y in the unit that fits each tick.

use super::scale::latency_text;
use super::{
    Axis, Body, Chart, LegendEntry, PlotError, Points, Swatch, TickText, colour, log_range,
    plot_on, render, subject, why,
};
use crate::report::runs::{PhaseGroup, RunData};
use crate::results::PhaseResult;
use crate::vocab::Direction;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The percentiles a phase's results give, with their x position in "nines" (−log10(1 − p)): p0 (the
/// minimum) at 0, p50 at 0.30, p90 at 1, p99 at 2, p99.9 at 3, p99.99 at 4. Latencies in µs.
pub fn percentile_points(p: &PhaseResult, dir: Direction) -> Option<Vec<(f64, f64)>> {
    let l = p.dir(dir).latency_ns.as_ref()?;
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

/// One curve: a direction of a run's phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The run (its index).
    pub run: usize,
    /// Reads, writes or trims.
    pub dir: Direction,
    /// [`percentile_points`].
    pub points: Points,
    /// The largest latency, µs (named in the legend).
    pub max_us: f64,
}

/// The curves of the phase: per run, reads, writes then trims, those with a latency summary.
pub fn percentile_curves(runs: &[RunData], group: &PhaseGroup) -> Vec<Curve> {
    let mut curves = Vec::new();
    for &(r, p) in &group.members {
        let (phase, _) = runs[r].phase(p);
        for dir in Direction::ALL {
            if let (Some(points), Some(l)) = (
                percentile_points(phase, dir),
                phase.dir(dir).latency_ns.as_ref(),
            ) {
                curves.push(Curve {
                    run: r,
                    dir,
                    points,
                    max_us: l.max as f64 / 1e3,
                });
            }
        }
    }
    curves
}

/// The y axis's decades: around every percentile of every curve.
pub fn percentile_range(curves: &[Curve]) -> (f64, f64) {
    let values = || curves.iter().flat_map(|c| c.points.iter().map(|p| p.1));
    let lo = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let hi = values().fold(0.0, f64::max);
    log_range(lo, hi)
}

/// Where the x ticks are: every percentile drawn, p0, p50 (at log10 2 nines), p90 ... p99.99.
pub const NINES: [f64; 6] = [0.0, std::f64::consts::LOG10_2, 1.0, 2.0, 3.0, 4.0];

/// An x tick label: `p0`, `p50`, `p90`, `p99`, `p99.9`, `p99.99` at their nines, nothing elsewhere.
pub fn nines_label(v: f64) -> String {
    let names = ["p0", "p50", "p90", "p99", "p99.9", "p99.99"];
    NINES
        .iter()
        .position(|n| (v - n).abs() < 1e-6)
        .map_or(String::new(), |k| names[k].to_string())
}

/// A curve's colour: its drive's.
pub fn curve_colour(c: &Curve) -> plotters::style::RGBColor {
    colour(c.run)
}

/// The legend: a row per drive, its reads (thick line) and writes (thin line), each with its maximum.
fn curve_legend(runs: &[RunData], curves: &[Curve]) -> Vec<LegendEntry> {
    let mut rows: Vec<LegendEntry> = Vec::new();
    for c in curves {
        let what = format!("{}s (max {})", c.dir.name(), latency_text(c.max_us));
        let swatch = match c.dir {
            Direction::Read => Swatch::Line(curve_colour(c)),
            Direction::Write | Direction::Trim => Swatch::Thin(curve_colour(c)),
        };
        match rows.last_mut() {
            Some(e) if e.run.as_ref().is_some_and(|r| r.0 == c.run) => e.push(what, swatch),
            _ => rows.push(
                LegendEntry::drive(
                    c.run,
                    &runs[c.run].label,
                    format!("{}: {what}", runs[c.run].legend()),
                    swatch,
                )
                .with_note(super::predicted::legend_note(&runs[c.run])),
            ),
        }
    }
    rows
}

/// The curves to draw.
struct Curves<'a>(&'a [Curve], usize);

impl Body for Curves<'_> {
    /// Each curve: its line (thick for reads), then a marker per percentile (circles for reads, triangles
    /// for writes, crosses for trims).
    fn draw<Y>(&self, chart: &mut super::Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        // The last drive first, so that the first drive named is drawn on top (as on the time plots).
        for c in self.0.iter().rev() {
            let colour = curve_colour(c);
            let width = if c.dir == Direction::Read { 2 } else { 1 };
            chart
                .draw_series(LineSeries::new(
                    c.points.clone(),
                    colour.stroke_width(width),
                ))
                .map_err(why)?;
            match c.dir {
                Direction::Read => chart.draw_series(
                    c.points
                        .iter()
                        .map(|&p| Circle::new(p, 3, colour.filled()).into_dyn()),
                ),
                Direction::Write => chart.draw_series(
                    c.points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, 4, colour.filled()).into_dyn()),
                ),
                Direction::Trim => chart.draw_series(
                    c.points
                        .iter()
                        .map(|&p| Cross::new(p, 4, colour.stroke_width(2)).into_dyn()),
                ),
            }
            .map_err(why)?;
            if self.1 == 1 {
                // One run: each percentile's value beside its point, reads to the left and writes to
                // the right, each above its point where it is the higher curve and below where it is
                // the lower, so that no value sits by the other curve's point.
                let other = self.0.iter().find(|o| o.run == c.run && o.dir != c.dir);
                let h = match c.dir {
                    Direction::Read => HPos::Right,
                    Direction::Write | Direction::Trim => HPos::Left,
                };
                let dx = if c.dir == Direction::Read { -5 } else { 5 };
                let style = (super::FONT, 11)
                    .into_font()
                    .color(&colour)
                    .pos(Pos::new(h, VPos::Top));
                chart
                    .draw_series(c.points.iter().enumerate().map(|(i, &p)| {
                        let higher = other
                            .and_then(|o| o.points.get(i))
                            .is_none_or(|q| p.1 > q.1 || (p.1 == q.1 && c.dir == Direction::Read));
                        let dy = if higher { -15 } else { 4 };
                        EmptyElement::at(p) + Text::new(point_label(p.1), (dx, dy), style.clone())
                    }))
                    .map_err(why)?;
            }
        }
        Ok(())
    }
}

/// The value written beside a percentile point, given in µs, in the unit that fits it: `77.4 µs`,
/// `3.38 ms`, `500 ns`.
pub fn point_label(us: f64) -> String {
    latency_text(us)
}

/// The latency percentile curve of a phase, reads and writes, one colour per run: p0..p99.99 from the
/// phase's latency histogram (as recorded in results.json), x in nines, each percentile named on the axis.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn percentiles(runs: &[RunData], group: &PhaseGroup) -> Result<Chart, PlotError> {
    let curves = percentile_curves(runs, group);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let title = format!(
        "Latency percentiles — {}",
        subject(runs, &members, &group.name)
    );
    let legend = curve_legend(runs, &curves);
    let x = Axis {
        lo: -0.2,
        hi: 4.3,
        log: false,
        ticks: NINES.to_vec(),
        light: vec![],
        zero_row: None,
        text: TickText::Number,
    };
    let y = Axis::decades(percentile_range(&curves), false).latency();
    let svg = render(&title, &legend, |root| {
        plot_on(
            root,
            (&x, &y),
            (
                "percentile, in nines (1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99)",
                "latency (log scale)",
            ),
            &|v| nines_label(*v),
            true,
            &Curves(&curves, runs.len()),
        )
    })?;
    Ok(Chart {
        title,
        caption: "Latency percentiles of the whole phase from its latency histogram: p0 (the minimum), p50, p90, p99, p99.9, p99.99 (with one run, each value beside its point); one colour per drive, reads with circles and a thick line, writes with triangles and a thin line, trims with crosses and a thin line. The maximum is in the legend.".into(),
        svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{group, latency, phase, run};
    use crate::results::DirStats;

    #[test]
    fn points_are_the_percentiles_in_microseconds_at_their_nines() {
        let mut p = phase("p", 1);
        assert_eq!(percentile_points(&p, Direction::Read), None);
        p.read = DirStats::new(
            10,
            40960,
            1.0,
            Some(latency(1_500, 20_000, 30_000, 40_000, 50_000, 60_000)),
        );
        assert_eq!(
            percentile_points(&p, Direction::Read),
            Some(vec![
                (0.0, 1.5),
                (std::f64::consts::LOG10_2, 20.0),
                (1.0, 30.0),
                (2.0, 40.0),
                (3.0, 50.0),
                (4.0, 60.0),
            ])
        );
        assert_eq!(percentile_points(&p, Direction::Write), None);
    }

    #[test]
    fn curves_go_per_run_reads_then_writes_and_span_their_decades() {
        let mut p = phase("p", 1);
        p.read = DirStats::new(
            1,
            4096,
            1.0,
            Some(latency(500, 2_000, 3_000, 4_000, 5_000, 6_000)),
        );
        p.write = DirStats::new(
            1,
            4096,
            1.0,
            Some(latency(9_000, 10_000, 11_000, 12_000, 13_000, 140_000)),
        );
        let mut q = phase("p", 1);
        q.write = p.write.clone();
        let runs = [
            run("a", "sim:a", vec![(p, None)]),
            run("b", "sim:b", vec![(q, None)]),
        ];
        let g = group("p", &[(0, 0), (1, 0)]);
        let curves = percentile_curves(&runs, &g);
        let keys: Vec<_> = curves.iter().map(|c| (c.run, c.dir, c.max_us)).collect();
        // The helper's max is twice p99.99.
        assert_eq!(
            keys,
            vec![
                (0, Direction::Read, 12.0),
                (0, Direction::Write, 280.0),
                (1, Direction::Write, 280.0)
            ]
        );
        // 0.5 µs (the read minimum) to 140 µs: 0.1 to 1000 µs.
        let (lo, hi) = percentile_range(&curves);
        assert!((lo - 0.1).abs() < 1e-15 && hi == 1000.0, "{lo} {hi}");
        assert_eq!(percentile_range(&[]), (1.0, 10.0));
        let c = percentiles(&runs, &g).expect("draws");
        assert_eq!(c.svg.matches("<circle").count(), 6);
        assert_eq!(c.svg.matches("<polygon").count(), 12);
        // One run: every point's value written beside it (p50 of the reads: 2 µs).
        let one = percentiles(&runs[..1], &group("p", &[(0, 0)])).expect("draws");
        assert!(one.svg.contains(">\n2 µs\n<"), "p50 value");
        assert_eq!(point_label(77.4), "77.4 µs");
        assert_eq!(point_label(3381.0), "3.38 ms");
        assert_eq!(point_label(0.5), "500 ns");
        // One legend row per drive: run a's reads and writes in its colour, b's writes in its own.
        let legend = curve_legend(&runs, &curves);
        let rows: Vec<(Option<usize>, Vec<Swatch>)> = legend
            .iter()
            .map(|e| {
                (
                    e.run.as_ref().map(|r| r.0),
                    e.items.iter().map(|i| i.swatch).collect(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (
                    Some(0),
                    vec![Swatch::Line(colour(0)), Swatch::Thin(colour(0))]
                ),
                (Some(1), vec![Swatch::Thin(colour(1))])
            ]
        );
        assert_eq!(
            legend[0].text(),
            "a on sim:a: reads (max 12 µs) · writes (max 280 µs)"
        );
    }

    #[test]
    fn nines_label_names_whole_nines_only() {
        let got: Vec<String> = [
            -0.2,
            0.0,
            std::f64::consts::LOG10_2,
            0.5,
            1.0,
            2.0,
            2.0000001,
            3.0,
            4.0,
            4.3,
        ]
        .into_iter()
        .map(nines_label)
        .collect();
        assert_eq!(
            got,
            [
                "", "p0", "p50", "", "p90", "p99", "p99", "p99.9", "p99.99", ""
            ]
        );
    }
}
