//! Predictions (`wkrun sim predict`, results with `prediction`) drawn over a measurement of their spec:
//! on time plots a prediction is a dashed line (its points joined, no dots: the measurement's dots stay
//! readable under it) in the colour of the run it is paired with ([`measured_run`]: the run it was fitted
//! to when that ran the same spec and phases, else the first run of them, such as the long run measured
//! later) darkened by a third (the same colour family), else in its own; its legend reads `predicted from
//! MEASURED`, the fitted drive whole on a second line ([`crate::report::runs::RunData::legend`],
//! [`legend_note`]).
//!
//! plotters' SVG backend writes no dash, so a dashed line is drawn at the opacity [`DASH_ALPHA`], which
//! nothing else in a report uses, and [`dashed`] turns that opacity into a `stroke-dasharray` ([`DASH`]).

use super::palette::{colour, darker};
use super::time::{Mark, TimeSeries};
use crate::report::runs::RunData;
use plotters::style::RGBColor;
use std::path::{Path, PathBuf};

/// The dash pattern of a prediction's line (SVG `stroke-dasharray`: 7 px drawn, 4 px gap).
pub const DASH: &str = "7 4";
/// The opacity a dashed line is drawn at, turned into [`DASH`] by [`dashed`].
pub const DASH_ALPHA: f64 = 0.996;

/// The index in `runs` of the measured run prediction `r` is paired with (drawn over): of the runs that
/// ran its spec and phases with their workloads ([`crate::results::model::Results::pairing`]) and are no prediction, the
/// one it was fitted to when it is among them, else the first. A prediction of another spec than the run
/// it was fitted to (a sweep predicted from a short consistency run) is thus drawn over a later run of the
/// sweep itself.
pub fn measured_run(runs: &[RunData], r: usize) -> Option<usize> {
    let ours = &runs.get(r)?.results;
    ours.prediction.as_ref()?;
    let fitted = fitted_run(runs, r);
    let same =
        |m: &usize| runs[*m].results.prediction.is_none() && runs[*m].results.pairing(ours).is_ok();
    fitted.filter(same).or_else(|| (0..runs.len()).find(same))
}

/// The index in `runs` of the measured run prediction `r` was fitted to, if it is in the report: the run
/// that started when the prediction records (`measured_run_started_at`) on the target it records
/// (`measured_run_target`: the targets of a run of several and their aggregate share one start, review
/// M7), the one of the same results file (`measured`) first when several are left (results without
/// `measured_run_target`); else (results without either) the same results file.
pub fn fitted_run(runs: &[RunData], r: usize) -> Option<usize> {
    let p = runs.get(r)?.results.prediction.as_ref()?;
    let want = results_file(Path::new(&p.measured));
    let same_file = |i: &usize| results_file(&runs[*i].file) == want;
    let mut measured = (0..runs.len()).filter(|&i| runs[i].results.prediction.is_none());
    let Some(at) = &p.measured_run_started_at else {
        return measured.find(same_file);
    };
    let target = p.measured_run_target.as_deref();
    let started: Vec<usize> = measured
        .filter(|&i| {
            let m = &runs[i].results;
            &m.started_at == at && target.is_none_or(|t| m.target.path.display().to_string() == t)
        })
        .collect();
    started
        .iter()
        .copied()
        .find(same_file)
        .or(started.first().copied())
}

/// The second legend line of run `r`'s row: a prediction's drive, whole (`fitted drive: sim:...`, or
/// `given drive: sim:...` when it was given with `--fitted`, not fitted by the prediction); `None` for a
/// measurement.
pub fn legend_note(run: &RunData) -> Option<String> {
    let p = run.results.prediction.as_ref()?;
    let what = match p.target_given {
        true => "given drive",
        false => "fitted drive",
    };
    Some(format!("{what}: {}", p.fitted_target))
}

/// A results file or its folder as the canonical path of the file (as given when it cannot be resolved).
fn results_file(p: &Path) -> PathBuf {
    let f = match p.is_dir() {
        true => p.join("results.json"),
        false => p.to_path_buf(),
    };
    f.canonicalize().unwrap_or(f)
}

/// The colour of run `r`'s series: a prediction of a run in the report takes that run's colour a third
/// darker; every other run its own ([`colour`]).
pub fn run_colour(runs: &[RunData], r: usize) -> RGBColor {
    match measured_run(runs, r) {
        Some(m) => darker(colour(m), 1.0 / 3.0),
        None => colour(r),
    }
}

/// Restyles the series of predictions among `series`: dashed, dots joined into a line, in
/// [`run_colour`]. A measurement's series are left as they are.
pub fn restyle(series: &mut [TimeSeries], runs: &[RunData]) {
    for s in series.iter_mut() {
        let Some(r) = s.run else { continue };
        if runs.get(r).is_none_or(|x| x.results.prediction.is_none()) {
            continue;
        }
        s.dashed = true;
        s.colour = run_colour(runs, r);
        if matches!(s.mark, Mark::Dot | Mark::Triangle | Mark::Line) {
            s.mark = Mark::Path;
            s.envelope.clear();
        }
    }
}

/// `svg` with every line drawn at [`DASH_ALPHA`] dashed ([`DASH`]) and opaque.
pub fn dashed(svg: String) -> String {
    let mark = format!("opacity=\"{DASH_ALPHA}\"");
    match svg.contains(&mark) {
        true => svg.replace(&mark, &format!("opacity=\"1\" stroke-dasharray=\"{DASH}\"")),
        false => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_marked_opacity_becomes_a_dash() {
        let svg =
            "<polyline opacity=\"0.996\" stroke=\"#0072B2\"/><polyline opacity=\"1\"/>".to_string();
        assert_eq!(
            dashed(svg),
            "<polyline opacity=\"1\" stroke-dasharray=\"7 4\" stroke=\"#0072B2\"/><polyline opacity=\"1\"/>"
        );
    }
}
