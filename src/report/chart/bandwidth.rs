//! Bandwidth per interval against time (what matters for sequential phases such as a fill): per run and
//! direction with I/O (reads, writes and trims), a line through each interval's MB/s (10⁶ bytes per second),
//! on a linear axis from 0.

use super::time::{Mark, Marker, TimePlot, TimeSeries, line_for};
use super::{Axis, Chart, MAX_POINTS, PlotError, Points, colour, drives, subject};
use crate::report::runs::{PhaseGroup, RunData};
use crate::vocab::Direction;

/// One line of the plot: a run's direction.
#[derive(Debug, Clone, PartialEq)]
pub struct BandwidthLine {
    /// The run (its index).
    pub run: usize,
    /// Reads, writes or trims.
    pub dir: Direction,
    /// `(t_s, MB/s)` per series row: the row's bytes over its interval, in 10⁶ bytes per second.
    pub points: Points,
}

/// The lines of the phase: per run, reads, writes then trims, each direction that moved bytes in some row
/// (trial 16: a trim-only phase's plot was empty, a mixed phase's left its trims out).
pub fn bandwidth_lines(runs: &[RunData], group: &PhaseGroup) -> Vec<BandwidthLine> {
    let mut out = Vec::new();
    for &(r, p) in &group.members {
        let (_, rows) = runs[r].plotted(p);
        for dir in Direction::ALL {
            let bytes = |row: &crate::results::series_csv::SeriesRow| row[dir].bytes;
            if !rows.iter().any(|row| bytes(row) > 0) {
                continue;
            }
            let points = rows
                .iter()
                .map(|row| {
                    let mbps = if row.interval_s > 0.0 {
                        bytes(row) as f64 / row.interval_s / 1e6
                    } else {
                        0.0
                    };
                    (row.t_s, mbps)
                })
                .collect();
            out.push(BandwidthLine {
                run: r,
                dir,
                points,
            });
        }
    }
    out
}

/// Bandwidth per interval of one phase, a line per run and direction, with `markers`.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn bandwidth_series(
    runs: &[RunData],
    group: &PhaseGroup,
    markers: &[Marker],
) -> Result<Chart, PlotError> {
    let lines = bandwidth_lines(runs, group);
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02;
    let top = all().map(|p| p.1).fold(0.0, f64::max);
    let share = MAX_POINTS / lines.len().max(1);
    // One colour per drive: reads a thick line, writes a thin one, trims triangles, each the way a lone
    // direction is drawn where the run has no other; the drive named once, first in its row.
    let mut series: Vec<TimeSeries> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let first = k == 0 || lines[k - 1].run != l.run;
            let name = match first {
                true => format!("{}: {}s", runs[l.run].legend(), l.dir.name()),
                false => format!("{}s", l.dir.name()),
            };
            let has = |d: Direction| lines.iter().any(|o| o.run == l.run && o.dir == d);
            let mark = match l.dir {
                Direction::Write if has(Direction::Read) => Mark::ThinPath,
                Direction::Trim if has(Direction::Read) || has(Direction::Write) => Mark::Triangle,
                _ => line_for(l.points.len()),
            };
            TimeSeries::thinned(l.run, Some(name), colour(l.run), mark, &l.points, share)
        })
        .collect();
    super::predicted::restyle(&mut series, runs);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let tp = TimePlot {
        title: format!(
            "Bandwidth per interval — {}",
            subject(runs, &members, &group.name)
        ),
        x: Axis::linear(0.0, x1),
        y: Axis::linear(0.0, if top > 0.0 { top * 1.08 } else { 1.0 }),
        y_desc: "bandwidth (MB/s, 10⁶ bytes per s)".into(),
        series,
        rows: vec![],
        markers: markers.to_vec(),
        drives: drives(runs),
    };
    let n: usize = lines.iter().map(|l| l.points.len()).sum();
    Ok(Chart {
        caption: format!(
            "{n} points: each interval's bytes over its length, one line per run and direction (reads thick, writes thin where a run has both, trims triangles beside either)."
        ),
        svg: tp.draw()?,
        title: tp.title,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{group, row, series_run};

    #[test]
    fn lines_are_the_rows_bytes_over_their_interval_in_mb_per_s() {
        let mut half = row(1.5, 100, 0);
        half.interval_s = 0.5;
        half.partial = 1;
        let runs = [series_run(
            "a",
            "sim:a",
            vec![row(1.0, 250, 0), half.clone()],
        )];
        let g = group("p", &[(0, 0)]);
        let lines = bandwidth_lines(&runs, &g);
        // 250 × 4096 B over 1 s; the partial row is not drawn. No writes: no write line.
        assert_eq!(
            lines,
            vec![BandwidthLine {
                run: 0,
                dir: Direction::Read,
                points: vec![(1.0, 1.024)],
            }]
        );
        // A phase of partial rows only (shorter than an interval) is drawn: 100 × 4096 B over 0.5 s.
        let runs = [series_run("a", "sim:a", vec![half])];
        assert_eq!(bandwidth_lines(&runs, &g)[0].points, vec![(1.5, 0.8192)]);
        let c = bandwidth_series(&runs, &g, &[]).expect("draws");
        assert_eq!(c.title, "Bandwidth per interval — spec · p · sim:a");
        assert!(c.svg.contains("a on sim:a: reads"));
        assert!(c.svg.contains("bandwidth (MB/s, 10⁶ bytes per s)"));
    }
}
