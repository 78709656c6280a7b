//! The steady-state convergence plot of a block of rounds (SNIA PTS): the tracking variable of each round
//! against the round number, the measurement window's rounds drawn again in their own colour.

use super::lines::{Curve, XyAxes, fitted, xy_chart};
use super::{Axis, Chart, PlotError, Points, colour};
use crate::results::rounds::RoundBlockResult;

/// The points drawn: every round's `(round, value × scale)`, and those of the measurement window.
pub fn points(b: &RoundBlockResult, scale: f64) -> (Points, Points) {
    let all: Points = b
        .rounds
        .iter()
        .map(|r| (f64::from(r.index), r.tracking_value * scale))
        .collect();
    let window = b.window.map_or_else(Vec::new, |w| {
        all.iter()
            .copied()
            .filter(|(x, _)| (f64::from(w.first)..=f64::from(w.last)).contains(x))
            .collect()
    });
    (all, window)
}

/// The convergence plot of block `b`: its tracking variable (`what`, in `unit` once multiplied by `scale`)
/// per round, from round 1 to its last.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn convergence_chart(
    b: &RoundBlockResult,
    subject: &str,
    (what, unit, scale): (&str, &str, f64),
) -> Result<Chart, PlotError> {
    let (all, window) = points(b, scale);
    let last = all.last().map_or(1.0, |p| p.0);
    let mut curves = vec![Curve::marked(
        format!("{what} of each round ({} rounds)", all.len()),
        all.clone(),
        colour(0),
    )];
    if let Some(w) = b.window {
        curves.push(Curve::marked(
            format!("measurement window, rounds {} to {}", w.first, w.last),
            window,
            colour(1),
        ));
    }
    let axes = XyAxes {
        x: Axis::linear(0.0, last + 1.0),
        y: fitted(all.iter().map(|p| p.1), false),
        x_desc: "round".into(),
        y_desc: format!("{what}, {unit}"),
    };
    let verdict = match (b.steady_at_round, &b.not_judged) {
        (Some(r), _) => format!("steady at round {r}"),
        (None, Some(why)) => format!("not judged: {why}"),
        (None, None) => format!("not steady in {} rounds", all.len()),
    };
    xy_chart(
        &format!("Steady-state convergence — {subject}"),
        format!(
            "The tracking variable, {what}, of each complete round of block \"{}\" ({verdict}); the measurement window's rounds in the second colour.",
            b.name
        ),
        &axes,
        &curves,
    )
}
