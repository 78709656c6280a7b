//! Latency per interval against time, log y (each tick in the unit that fits it: `100 µs`, `1 ms`): per
//! run, a circle at each interval's mean latency and a triangle at its largest, for the intervals that
//! completed I/O in the direction.

use super::time::{Mark, Marker, TimePlot, TimeSeries};
use super::{
    Axis, Chart, MAX_POINTS, PlotError, Points, capital, colour, drives, log_range, subject,
};
use crate::report::runs::{PhaseGroup, RunData};
use crate::vocab::Direction;

/// One run's latency per interval.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencySeries {
    /// The run (its index).
    pub run: usize,
    /// Per interval with completions, `(t_s, mean, max)`, µs.
    pub points: Vec<(f64, f64, f64)>,
    /// How many intervals completed nothing in the direction (no latency to show).
    pub empty: usize,
}

/// Each run's latency points of `dir` in the phase.
pub fn latency_points(runs: &[RunData], group: &PhaseGroup, dir: Direction) -> Vec<LatencySeries> {
    group
        .members
        .iter()
        .map(|&(r, p)| {
            let (_, rows) = runs[r].plotted(p);
            let points: Vec<_> = rows
                .iter()
                .filter_map(|row| row[dir].lat_us().map(|(m, x)| (row.t_s, m, x)))
                .collect();
            LatencySeries {
                run: r,
                empty: rows.len() - points.len(),
                points,
            }
        })
        .collect()
}

/// The end of the x axis (the last interval's end plus 2 %) and the y axis's decades.
pub fn latency_ranges(series: &[LatencySeries]) -> (f64, (f64, f64)) {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02;
    let lo = all().map(|p| p.1.min(p.2)).fold(f64::INFINITY, f64::min);
    let hi = all().map(|p| p.2.max(p.1)).fold(0.0, f64::max);
    (x1, log_range(lo, hi))
}

/// The caption: how many intervals are drawn, and how many have nothing to draw.
pub fn caption(series: &[LatencySeries], dir: Direction) -> String {
    let d = dir.name();
    let points: usize = series.iter().map(|s| s.points.len()).sum();
    let empty: usize = series.iter().map(|s| s.empty).sum();
    let mut caption = format!(
        "{points} intervals with {d}s: a circle at the interval's mean {d} latency and a triangle at its largest."
    );
    if empty > 0 {
        caption.push_str(&format!(
            " {empty} intervals completed no {d}s and have no latency to show."
        ));
    }
    caption
}

/// Mean and largest latency of `dir` per interval against time, log y: one circle (mean) and one triangle
/// (max) per interval that completed I/O in that direction (thinned past [`MAX_POINTS`]), with `markers`.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn latency_series(
    runs: &[RunData],
    group: &PhaseGroup,
    dir: Direction,
    markers: &[Marker],
) -> Result<Chart, PlotError> {
    let series = latency_points(runs, group, dir);
    let (x1, decades) = latency_ranges(&series);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let d = dir.name();
    let share = MAX_POINTS / (2 * series.len()).max(1);
    let mut out = Vec::new();
    for s in &series {
        let c = colour(s.run);
        let means: Points = s.points.iter().map(|&(t, m, _)| (t, m)).collect();
        let maxes: Points = s.points.iter().map(|&(t, _, x)| (t, x)).collect();
        // A prediction's mean and max are dashed lines ([`super::predicted::restyle`]), not circles and
        // triangles: the max the upper one.
        let predicted = runs[s.run].results.prediction.is_some();
        let (mean_is, max_is) = match predicted {
            true => ("mean (dashed, lower)", "max (dashed, upper)"),
            false => ("mean (circles)", "max (triangles)"),
        };
        let mean = Some(format!("{}: {mean_is}", runs[s.run].legend()));
        out.push(TimeSeries::thinned(
            s.run,
            mean,
            c,
            Mark::Dot,
            &means,
            share,
        ));
        let max = Some(max_is.to_string());
        out.push(TimeSeries::thinned(
            s.run,
            max,
            c,
            Mark::Triangle,
            &maxes,
            share,
        ));
    }
    super::predicted::restyle(&mut out, runs);
    let tp = TimePlot {
        title: format!(
            "{} latency per interval, mean and max — {}",
            capital(d),
            subject(runs, &members, &group.name)
        ),
        x: Axis::linear(0.0, x1),
        y: Axis::decades(decades, false).latency(),
        y_desc: format!("{d} latency (log scale)"),
        series: out,
        rows: vec![],
        markers: markers.to_vec(),
        drives: drives(runs),
    };
    let mut caption = caption(&series, dir);
    let total: usize = series.iter().map(|s| 2 * s.points.len()).sum();
    let drawn: usize = tp.series.iter().map(|s| s.points.len()).sum();
    if drawn < total {
        caption.push_str(&super::iops::thinned(drawn, total));
    }
    Ok(Chart {
        caption,
        svg: tp.draw()?,
        title: tp.title,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{group, row, series_run};

    #[test]
    fn points_are_the_rows_with_completions_in_the_direction() {
        // Rows: reads only, writes only, both, nothing. Reads (10, 20) µs, writes (30, 40) µs.
        let rows = vec![
            row(1.0, 5, 0),
            row(2.0, 0, 5),
            row(3.0, 5, 5),
            row(4.0, 0, 0),
        ];
        let runs = [series_run("a", "sim:a", rows)];
        let g = group("p", &[(0, 0)]);
        let reads = latency_points(&runs, &g, Direction::Read);
        assert_eq!(
            reads,
            vec![LatencySeries {
                run: 0,
                points: vec![(1.0, 10.0, 20.0), (3.0, 10.0, 20.0)],
                empty: 2,
            }]
        );
        // 10..20 µs: the decade 10..100; x to the last read's end plus 2 %.
        assert_eq!(latency_ranges(&reads), (3.0 * 1.02, (10.0, 100.0)));
        assert_eq!(
            caption(&reads, Direction::Read),
            "2 intervals with reads: a circle at the interval's mean read latency and a triangle at its \
largest. 2 intervals completed no reads and have no latency to show."
        );
        let writes = latency_points(&runs, &g, Direction::Write);
        assert_eq!(writes[0].points, vec![(2.0, 30.0, 40.0), (3.0, 30.0, 40.0)]);
        let c = latency_series(&runs, &g, Direction::Write, &[]).expect("draws");
        assert_eq!(c.svg.matches("<circle").count(), 2);
        assert_eq!(c.svg.matches("<polygon").count(), 2);
        assert_eq!(
            c.title,
            "Write latency per interval, mean and max — spec · p · sim:a"
        );
    }

    #[test]
    fn ranges_without_points_are_one_decade() {
        let empty = [LatencySeries {
            run: 0,
            points: vec![],
            empty: 3,
        }];
        assert_eq!(latency_ranges(&empty), (1e-3 * 1.02, (1.0, 10.0)));
    }
}
