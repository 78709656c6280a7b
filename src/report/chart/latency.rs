//! Latency per interval against time, log y: per run, a circle at each interval's mean latency and a
//! triangle at its largest, for the intervals that completed I/O in the direction.

use super::{
    Axes, Chart, PlotError, capital, colour, draw_axes, draw_legend, frame, log_range, render,
    short_number, subject, swatch, why,
};
use crate::report::runs::{Dir, PhaseGroup, RunData};
use plotters::prelude::*;

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
pub fn latency_points(runs: &[RunData], group: &PhaseGroup, dir: Dir) -> Vec<LatencySeries> {
    group
        .members
        .iter()
        .map(|&(r, p)| {
            let (_, rows) = runs[r].phase(p);
            let points: Vec<_> = rows
                .iter()
                .filter_map(|row| dir.lat_us(row).map(|(m, x)| (row.t_s, m, x)))
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
pub fn caption(series: &[LatencySeries], dir: Dir) -> String {
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
/// (max) per interval that completed I/O in that direction.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn latency_series(runs: &[RunData], group: &PhaseGroup, dir: Dir) -> Result<Chart, PlotError> {
    let series = latency_points(runs, group, dir);
    let (x1, (y0, y1)) = latency_ranges(&series);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let d = dir.name();
    let title = format!(
        "{} latency per interval, mean and max — {}",
        capital(d),
        subject(runs, &members, &group.name)
    );
    let svg = render(&title, |root| {
        let mut chart = frame(root, &title, 45)
            .build_cartesian_2d(0.0..x1, (y0..y1).log_scale())
            .map_err(why)?;
        let axes = Axes {
            x_desc: "time since the phase's start (s)",
            y_desc: &format!("{d} latency (µs)"),
            x_ticks: &|v| short_number(*v),
            y_ticks: &|v| short_number(*v),
            x_labels: None,
            x_mesh: true,
        };
        draw_axes(&mut chart, &axes)?;
        for s in &series {
            let c = colour(s.run);
            chart
                .draw_series(
                    s.points
                        .iter()
                        .map(|&(t, m, _)| Circle::new((t, m), 2, c.filled())),
                )
                .map_err(why)?
                .label(format!("{}: mean", runs[s.run].legend()))
                .legend(swatch(c.filled(), 4));
            chart
                .draw_series(
                    s.points
                        .iter()
                        .map(|&(t, _, x)| TriangleMarker::new((t, x), 3, c.mix(0.45).filled())),
                )
                .map_err(why)?
                .label(format!("{}: max (triangles)", runs[s.run].label))
                .legend(swatch(c.mix(0.45).filled(), 4));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
    })?;
    Ok(Chart {
        title,
        caption: caption(&series, dir),
        svg,
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
        let reads = latency_points(&runs, &g, Dir::Read);
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
            caption(&reads, Dir::Read),
            "2 intervals with reads: a circle at the interval's mean read latency and a triangle at its \
largest. 2 intervals completed no reads and have no latency to show."
        );
        let writes = latency_points(&runs, &g, Dir::Write);
        assert_eq!(writes[0].points, vec![(2.0, 30.0, 40.0), (3.0, 30.0, 40.0)]);
        let c = latency_series(&runs, &g, Dir::Write).expect("draws");
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
