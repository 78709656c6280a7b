//! Latency percentiles per interval against time, log y: per run, the interval's p50 (a thin line), p99
//! (a line with a square at each interval) and p99.9 (a line), from the series CSV's percentile columns
//! (the interval's histogram, every worker's added up). Results written before those columns have none to
//! draw, and no chart.

use super::time::{Mark, Marker, TimePlot, TimeSeries};
use super::{
    Axis, Chart, MAX_POINTS, PlotError, Points, capital, colour, drives, log_range, subject,
};
use crate::report::runs::{PhaseGroup, RunData};
use crate::vocab::Direction;

/// The percentiles drawn: their names, as the legend gives them, and their marks.
const DRAWN: [(&str, Mark); 3] = [
    ("p50", Mark::ThinPath),
    ("p99", Mark::Line),
    ("p99.9", Mark::Path),
];

/// One run's percentiles per interval of a direction: for p50, p99 and p99.9, `(t_s, µs)` of each
/// interval that completed I/O in the direction.
#[derive(Debug, Clone, PartialEq)]
pub struct PctSeries {
    /// The run (its index).
    pub run: usize,
    /// Per percentile (p50, p99, p99.9), its points.
    pub points: [Vec<(f64, f64)>; 3],
}

/// Each run's percentile points of `dir` in the phase; empty when no run's series has them.
pub fn pct_points(runs: &[RunData], group: &PhaseGroup, dir: Direction) -> Vec<PctSeries> {
    let series: Vec<PctSeries> = group
        .members
        .iter()
        .map(|&(r, p)| {
            let (_, rows) = runs[r].plotted(p);
            let points = [0, 1, 2].map(|i| {
                rows.iter()
                    .filter_map(|row| row[dir].lat_pct_us[i].map(|us| (row.t_s, us)))
                    .collect()
            });
            PctSeries { run: r, points }
        })
        .collect();
    match series
        .iter()
        .any(|s| s.points.iter().any(|p| !p.is_empty()))
    {
        true => series,
        false => Vec::new(),
    }
}

/// The end of the x axis (the last interval's end plus 2 %) and the y axis's decades.
pub fn pct_ranges(series: &[PctSeries]) -> (f64, (f64, f64)) {
    let all = || series.iter().flat_map(|s| s.points.iter().flatten());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02;
    let lo = all().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = all().map(|p| p.1).fold(0.0, f64::max);
    (x1, log_range(lo, hi))
}

/// p50, p99 and p99.9 of `dir` per interval against time, log y, with `markers`; `None` when no run has
/// percentile columns for the phase.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn pct_time_series(
    runs: &[RunData],
    group: &PhaseGroup,
    dir: Direction,
    markers: &[Marker],
) -> Result<Option<Chart>, PlotError> {
    let series = pct_points(runs, group, dir);
    if series.is_empty() {
        return Ok(None);
    }
    let (x1, decades) = pct_ranges(&series);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let d = dir.name();
    let share = MAX_POINTS / (3 * series.len()).max(1);
    let mut out = Vec::new();
    for s in &series {
        for (i, (name, mark)) in DRAWN.iter().enumerate() {
            let label = match i {
                0 => format!("{}: {name}", runs[s.run].legend()),
                _ => name.to_string(),
            };
            let pts: Points = s.points[i].clone();
            out.push(TimeSeries::thinned(
                s.run,
                Some(label),
                colour(s.run),
                *mark,
                &pts,
                share,
            ));
        }
    }
    let tp = TimePlot {
        title: format!(
            "{} latency percentiles per interval — {}",
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
    let n: usize = series.iter().map(|s| s.points[1].len()).sum();
    let caption = format!(
        "{n} intervals with {d}s: each interval's p50 (thin line), p99 (squares) and p99.9 (line), from its \
latency histogram (every worker's added up)."
    );
    Ok(Some(Chart {
        caption,
        svg: tp.draw()?,
        title: tp.title,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{group, row, series_run};

    #[test]
    fn points_are_the_percentile_columns_of_rows_with_the_direction() {
        // Rows: reads only, writes only, both, nothing. Reads' columns (10, 20, 20) µs, writes' (30, 40, 40).
        let rows = vec![
            row(1.0, 5, 0),
            row(2.0, 0, 5),
            row(3.0, 5, 5),
            row(4.0, 0, 0),
        ];
        let runs = [series_run("a", "sim:a", rows.clone())];
        let g = group("p", &[(0, 0)]);
        let reads = pct_points(&runs, &g, Direction::Read);
        let at = |v: f64| vec![(1.0, v), (3.0, v)];
        assert_eq!(
            reads,
            vec![PctSeries {
                run: 0,
                points: [at(10.0), at(20.0), at(20.0)],
            }]
        );
        assert_eq!(pct_ranges(&reads), (3.0 * 1.02, (10.0, 100.0)));
        let c = pct_time_series(&runs, &g, Direction::Write, &[])
            .expect("draws")
            .expect("a chart");
        assert_eq!(
            c.title,
            "Write latency percentiles per interval — spec · p · sim:a"
        );
        assert!(
            c.caption.starts_with("2 intervals with writes"),
            "{}",
            c.caption
        );
        // Rows without percentile columns (older results): no chart.
        let mut old = rows;
        for r in &mut old {
            for (_, d) in r.by_dir.iter_mut() {
                d.lat_pct_us = [None; 3];
            }
        }
        let runs = [series_run("a", "sim:a", old)];
        assert!(pct_points(&runs, &g, Direction::Read).is_empty());
        assert_eq!(
            pct_time_series(&runs, &g, Direction::Read, &[])
                .ok()
                .flatten()
                .map(|c| c.title),
            None
        );
    }
}
