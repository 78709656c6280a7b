//! The measurement-window plot of a block of rounds (SNIA PTS): the window's tracking values, their
//! average, the bands ±10 % and ±20 % around it (the rule's limits: the data excursion within 20 % of the
//! average, the least-squares line within 10 %), and the least-squares line.

use super::lines::{Curve, XyAxes, fitted, xy_chart};
use super::{Axis, Chart, PlotError, colour};
use crate::results::rounds::RoundBlockResult;

/// The numbers a measurement-window plot draws, in the metric's unit times the plot's scale.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowLines {
    /// `(round, value)` of each round of the window.
    pub points: Vec<(f64, f64)>,
    /// The window's average.
    pub mean: f64,
    /// The least-squares line's values at the window's first and last rounds.
    pub slope_ends: (f64, f64),
}

impl WindowLines {
    /// The lines of block `b`'s window, values multiplied by `scale`; `None` without a window.
    pub fn of(b: &RoundBlockResult, scale: f64) -> Option<WindowLines> {
        let w = b.window?;
        let points: Vec<(f64, f64)> = b
            .rounds
            .iter()
            .filter(|r| (w.first..=w.last).contains(&r.index))
            .map(|r| (f64::from(r.index), r.tracking_value * scale))
            .collect();
        let n = points.len() as f64;
        let mean = points.iter().map(|p| p.1).sum::<f64>() / n.max(1.0);
        let xm = points.iter().map(|p| p.0).sum::<f64>() / n.max(1.0);
        let sxx: f64 = points.iter().map(|p| (p.0 - xm).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - xm) * (p.1 - mean)).sum();
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let at = |x: f64| mean + slope * (x - xm);
        Some(WindowLines {
            slope_ends: (at(f64::from(w.first)), at(f64::from(w.last))),
            points,
            mean,
        })
    }

    /// The band limits: (−20 %, −10 %, +10 %, +20 %) of the average.
    pub fn bands(&self) -> [f64; 4] {
        [0.8, 0.9, 1.1, 1.2].map(|k| k * self.mean)
    }
}

/// The measurement-window plot of block `b` (`what` in `unit` once multiplied by `scale`); `None` without a
/// window.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn window_chart(
    b: &RoundBlockResult,
    subject: &str,
    (what, unit, scale): (&str, &str, f64),
) -> Result<Option<Chart>, PlotError> {
    let Some(l) = WindowLines::of(b, scale) else {
        return Ok(None);
    };
    let (x0, x1) = (l.points[0].0, l.points[l.points.len() - 1].0);
    let flat = |y: f64| vec![(x0, y), (x1, y)];
    let [m20, m10, p10, p20] = l.bands();
    let grey = plotters::style::RGBColor(120, 120, 120);
    let curves = [
        Curve::marked(format!("{what} of each round"), l.points.clone(), colour(0)),
        Curve::thin(
            format!("average {}", super::short_number(l.mean)),
            flat(l.mean),
            colour(6),
        ),
        Curve::thin("110 % of the average", flat(p10), colour(2)),
        Curve::thin("90 % of the average", flat(m10), colour(2)),
        Curve::thin("120 % of the average", flat(p20), colour(1)),
        Curve::thin("80 % of the average", flat(m20), colour(1)),
        Curve::thin(
            "least-squares line",
            vec![(x0, l.slope_ends.0), (x1, l.slope_ends.1)],
            grey,
        ),
    ];
    let ys = l.points.iter().map(|p| p.1).chain([p20]);
    let axes = XyAxes {
        x: Axis::linear(x0 - 0.5, x1 + 0.5),
        y: fitted(ys, false),
        x_desc: "round".into(),
        y_desc: format!("{what}, {unit}"),
    };
    let verdict = if b.steady { "steady" } else { "not steady" };
    xy_chart(
        &format!("Steady-state measurement window — {subject}"),
        format!(
            "Rounds {x0} to {x1} of block \"{}\" ({verdict}): the average, ±10 % and ±20 % of it, and the least-squares line, whose excursion across the window is {}; the data excursion (max − min) is {}.",
            b.name,
            pct(b.slope_excursion),
            pct(b.data_excursion)
        ),
        &axes,
        &curves,
    )
    .map(Some)
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| {
        format!("{:.1} % of the average", v * 100.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_are_the_windows_mean_bands_and_least_squares_ends() {
        let mut b: RoundBlockResult =
            serde_json::from_value(crate::report::testing::round_block()).expect("block");
        b.window = Some(crate::results::rounds::RoundWindow { first: 2, last: 4 });
        // Rounds 2..4: 90, 100, 110 → mean 100, slope 10 per round: 90 at round 2, 110 at round 4.
        let l = WindowLines::of(&b, 1.0).expect("window");
        assert_eq!(l.points, [(2.0, 90.0), (3.0, 100.0), (4.0, 110.0)]);
        assert_eq!(l.mean, 100.0);
        assert_eq!(l.slope_ends, (90.0, 110.0));
        assert_eq!(l.bands(), [80.0, 90.0, 110.00000000000001, 120.0]);
        b.window = None;
        assert_eq!(WindowLines::of(&b, 1.0), None);
    }
}
