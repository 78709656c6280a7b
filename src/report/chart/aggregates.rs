//! Averages of total IOPS over groups of intervals (seed 003's 500 minutes of one-minute averages): the
//! groups `results.json` gives (`aggregates`, from the spec's `aggregate`), or, for a long phase without
//! them, one-minute averages of its full series rows. One line per run, over the per-interval points.

use super::time::{Mark, Marker, TimePlot, TimeSeries, line_for};
use super::{Axis, Chart, MAX_POINTS, PlotError, Points, colour, drives, short_number, subject};
use crate::report::runs::{PhaseGroup, RunData};
use crate::results::PhaseResult;
use crate::results::series_csv::SeriesRow;

/// A phase at least this long (s) without `aggregates` in its results gets one-minute averages anyway.
pub const LONG_PHASE_S: f64 = 600.0;

/// The averages of a phase: `(group length s, points)`, each point `(middle of the group s, mean total
/// IOPS)`. From the results' `aggregates` when there are some; else, for a phase of at least
/// [`LONG_PHASE_S`] with a whole number of intervals per minute, one-minute means of its full rows
/// (as `results` would have computed them, [`crate::stats::window::aggregate`]). `None` otherwise.
pub fn averages(p: &PhaseResult, rows: &[SeriesRow]) -> Option<(f64, Points)> {
    if let Some(a) = &p.aggregates {
        let pts = a
            .groups
            .iter()
            .map(|g| ((g.start_ns + g.end_ns) as f64 / 2e9, g.avg))
            .collect();
        return Some((a.every_s, pts));
    }
    let last = rows.last()?;
    let interval_ns = (rows.first()?.interval_s * 1e9).round() as u64;
    if last.t_s < LONG_PHASE_S || interval_ns == 0 {
        return None;
    }
    let values: Vec<f64> = rows
        .iter()
        .filter(|r| r.partial == 0)
        .map(|r| r.rate(|d| d.iops))
        .collect();
    let groups = crate::stats::window::aggregate(&values, interval_ns, 60_000_000_000).ok()?;
    let pts = groups
        .iter()
        .map(|g| ((g.start_ns + g.end_ns) as f64 / 2e9, g.avg))
        .collect();
    Some((60.0, pts))
}

/// "one-minute", "10-second": a group length in words.
pub fn every_words(every_s: f64) -> String {
    if every_s >= 60.0 && (every_s / 60.0).fract() == 0.0 {
        let m = every_s / 60.0;
        if m == 1.0 {
            "one-minute".into()
        } else {
            format!("{}-minute", short_number(m))
        }
    } else {
        format!("{}-second", short_number(every_s))
    }
}

/// Total IOPS per interval of a phase's rows, `(t_s, IOPS)`.
pub fn total_points(rows: &[SeriesRow]) -> Points {
    rows.iter().map(|r| (r.t_s, r.rate(|d| d.iops))).collect()
}

/// The averages of one phase, a line per run that has them, over the total IOPS of each interval (pale
/// dots), with `markers`. `None` when no run has averages ([`averages`]).
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn aggregate_chart(
    runs: &[RunData],
    group: &PhaseGroup,
    markers: &[Marker],
) -> Result<Option<Chart>, PlotError> {
    let mut series = Vec::new();
    let mut every = None;
    let mut x1: f64 = 1e-3;
    let mut top: f64 = 0.0;
    let share = MAX_POINTS / (group.members.len()).max(1);
    for &(r, p) in &group.members {
        let (phase, rows) = runs[r].phase(p);
        let Some((e, avg)) = averages(phase, rows) else {
            continue;
        };
        every = Some(e);
        let dots = total_points(&runs[r].plotted(p).1);
        for &(t, v) in dots.iter().chain(&avg) {
            x1 = x1.max(t);
            top = top.max(v);
        }
        let c = colour(r);
        let pale = super::palette::lighter(c, 0.55);
        series.push(TimeSeries::thinned(r, None, pale, Mark::Dot, &dots, share));
        let name = format!(
            "{}: {} averages ({} groups)",
            runs[r].legend(),
            every_words(e),
            avg.len()
        );
        series.push(TimeSeries {
            run: Some(r),
            name: Some(name),
            colour: c,
            mark: line_for(avg.len()),
            points: avg,
            envelope: Vec::new(),
            dashed: false,
        });
    }
    let Some(every) = every else {
        return Ok(None);
    };
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let tp = TimePlot {
        title: format!(
            "Total IOPS, {} averages — {}",
            every_words(every),
            subject(runs, &members, &group.name)
        ),
        x: Axis::linear(0.0, x1 * 1.02),
        y: Axis::linear(0.0, if top > 0.0 { top * 1.05 } else { 1.0 }),
        y_desc: "total IOPS (I/Os per s)".into(),
        series,
        rows: vec![],
        markers: markers.to_vec(),
        drives: drives(runs),
    };
    Ok(Some(Chart {
        caption: format!(
            "A square per group of intervals at its middle: the mean total IOPS of the group's full intervals; pale dots: each interval's total IOPS. Groups of {} s.",
            short_number(every)
        ),
        svg: tp.draw()?,
        title: tp.title,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{group, phase, row, run};

    #[test]
    fn results_aggregates_are_plotted_at_the_middle_of_each_group() {
        let mut p = phase("p", 1);
        p.aggregates = Some(crate::results::Aggregates {
            every_s: 60.0,
            groups: crate::stats::window::aggregate(
                &[10.0, 20.0, 30.0],
                30_000_000_000,
                60_000_000_000,
            )
            .expect("groups"),
        });
        assert_eq!(
            averages(&p, &[]),
            Some((60.0, vec![(30.0, 15.0), (75.0, 30.0)]))
        );
        let runs = [run("a", "sim:a", vec![(p, Some(vec![row(1.0, 0, 3)]))])];
        let c = aggregate_chart(&runs, &group("p", &[(0, 0)]), &[])
            .expect("draws")
            .expect("has averages");
        assert_eq!(
            c.title,
            "Total IOPS, one-minute averages — spec · p · sim:a"
        );
        assert!(c.svg.contains("a on sim:a: one-minute averages (2 groups)"));
    }

    #[test]
    fn a_long_phase_without_aggregates_gets_one_minute_means_of_its_full_rows() {
        // 601 one-second rows: t = 1..601 s, i writes in row i; the last is partial and left out.
        let mut rows: Vec<SeriesRow> = (1..=601).map(|i| row(i as f64, 0, i)).collect();
        rows[600].partial = 1;
        let p = phase("p", 1);
        let (every, pts) = averages(&p, &rows).expect("long enough");
        assert_eq!(every, 60.0);
        assert_eq!(pts.len(), 10);
        // Group k holds rows 60k+1 ..= 60k+60: mean 60k + 30.5.
        for (k, (t, v)) in pts.iter().enumerate() {
            assert_eq!(*t, 60.0 * k as f64 + 30.0);
            assert_eq!(*v, 60.0 * k as f64 + 30.5);
        }
        assert_eq!(averages(&p, &rows[..599]), None, "shorter than 10 min");
        assert_eq!(every_words(60.0), "one-minute");
        assert_eq!(every_words(300.0), "5-minute");
        assert_eq!(every_words(10.0), "10-second");
    }
}
