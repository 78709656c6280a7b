//! IOPS per interval against time, one series per run: a scatter of one point per interval. On a log axis
//! the intervals with 0 IOPS are drawn hollow on a floor row labelled `0`; on a linear axis with a fixed
//! ceiling (`--ymax`) those above it are drawn hollow on the top row.

use super::time::{Mark, Marker, TimePlot, TimeSeries};
use super::{
    Axis, Chart, MAX_POINTS, PlotError, Points, capital, colour, drives, log_range, short_number,
    subject,
};
use crate::report::runs::{PhaseGroup, RunData};
use crate::vocab::Direction;
use plotters::style::RGBColor;

/// How an IOPS scatter's y axis is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Log scale; intervals with 0 IOPS on a floor row a decade below the smallest non-zero value's decade.
    Log,
    /// Linear from 0; `ymax` fixes the top (IOPS), and intervals above it are drawn on the top row.
    Linear {
        /// The ceiling, IOPS; `None`: the largest value plus 5 %.
        ymax: Option<f64>,
    },
}

/// One run's points on an IOPS scatter, `(t_s, IOPS)`.
#[derive(Debug, Clone, PartialEq)]
pub struct IopsSeries {
    /// The run (its index).
    pub run: usize,
    /// The intervals drawn at their value.
    pub plain: Points,
    /// The intervals drawn hollow on the special row, at that row's height (see [`Scale`]).
    pub special: Points,
}

/// What an IOPS scatter draws: its axes' ranges and each run's points.
#[derive(Debug, Clone, PartialEq)]
pub struct IopsPlot {
    /// The x axis, s from the phase's start: the window, or 0 to the last interval's end plus 2 %.
    pub x: (f64, f64),
    /// The floor row on a log axis (a decade below the lowest decade of a non-zero value); 0 on a linear one.
    pub floor: f64,
    /// The top of the data range: the highest decade (log), the ceiling, or the largest value plus 5 %.
    pub top: f64,
    /// One per run that has the phase, in run order.
    pub series: Vec<IopsSeries>,
}

impl IopsPlot {
    /// How many intervals are drawn hollow.
    pub fn specials(&self) -> usize {
        self.series.iter().map(|s| s.special.len()).sum()
    }

    /// How many intervals are drawn.
    pub fn intervals(&self) -> usize {
        self.series
            .iter()
            .map(|s| s.plain.len() + s.special.len())
            .sum()
    }
}

/// Each run's `(t_s, IOPS)` of `dir` in the phase, one point per full series row ([`RunData::plotted`]; per
/// row that lies entirely inside `window`, seconds, when given: [`RunData::plotted_in`]).
pub fn iops_points(
    runs: &[RunData],
    group: &PhaseGroup,
    dir: Direction,
    window: Option<(f64, f64)>,
) -> Vec<(usize, Points)> {
    group
        .members
        .iter()
        .map(|&(r, p)| {
            let pts = runs[r]
                .plotted_in(p, window)
                .iter()
                .map(|row| (row.t_s, row[dir].iops))
                .collect();
            (r, pts)
        })
        .collect()
}

/// The floor and top of the y data range (see [`IopsPlot`]) for values up to `max` whose smallest
/// non-zero one is `min_pos` (∞ when there is none).
pub fn y_range(scale: Scale, min_pos: f64, max: f64) -> (f64, f64) {
    match scale {
        Scale::Log => {
            let (lo, hi) = log_range(min_pos, max);
            (lo / 10.0, hi)
        }
        Scale::Linear { ymax: Some(y) } => (0.0, y),
        Scale::Linear { ymax: None } => (0.0, if max > 0.0 { max * 1.05 } else { 1.0 }),
    }
}

/// What to draw of the points `iops_points` gives: axis ranges, and each run's points split into those
/// drawn at their value and those drawn hollow on the special row.
pub fn iops_plot(
    series: Vec<(usize, Points)>,
    scale: Scale,
    window: Option<(f64, f64)>,
) -> IopsPlot {
    let all = || series.iter().flat_map(|(_, p)| p.iter());
    let x = match window {
        Some((a, b)) => (a, b),
        None => (0.0, all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02),
    };
    let max = all().map(|p| p.1).fold(0.0, f64::max);
    let min_pos = all()
        .map(|p| p.1)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let (floor, top) = y_range(scale, min_pos, max);
    let series = series
        .into_iter()
        .map(|(run, pts)| {
            let (mut plain, mut special) = (Vec::new(), Vec::new());
            for (t, v) in pts {
                match scale {
                    Scale::Log if v <= 0.0 => special.push((t, floor)),
                    Scale::Linear { ymax: Some(y) } if v > y => special.push((t, y)),
                    _ => plain.push((t, v)),
                }
            }
            IopsSeries {
                run,
                plain,
                special,
            }
        })
        .collect();
    IopsPlot {
        x,
        floor,
        top,
        series,
    }
}

/// The legend items of a run (in its row): its filled points, and its hollow ones when it has any.
pub fn legend_entries(run: &RunData, s: &IopsSeries, scale: Scale) -> (String, Option<String>) {
    let n = s.plain.len() + s.special.len();
    let filled = format!("{} ({n} intervals)", run.legend());
    let hollow = (!s.special.is_empty()).then(|| {
        let (word, row) = match scale {
            Scale::Log => ("with 0 IOPS", "\"0\""),
            Scale::Linear { ymax: Some(_) } => ("above the ceiling", "top"),
            Scale::Linear { ymax: None } => ("", "top"),
        };
        format!("{} of {n} {word}, hollow on the {row} row", s.special.len())
    });
    (filled, hollow)
}

fn title(
    runs: &[RunData],
    group: &PhaseGroup,
    dir: Direction,
    scale: Scale,
    window: Option<(f64, f64)>,
) -> String {
    let kind = match scale {
        Scale::Log => "log scale",
        Scale::Linear { ymax: Some(_) } => "linear, fixed ceiling",
        Scale::Linear { ymax: None } => "linear scale",
    };
    let zoom = window.map_or(String::new(), |(a, b)| {
        format!(", {}", super::scale::range_text(a, b, ".."))
    });
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    format!(
        "{} IOPS per interval ({kind}{zoom}) — {}",
        capital(dir.name()),
        subject(runs, &members, &group.name)
    )
}

/// The caption: how many points, and where the hollow ones are.
pub fn caption(plot: &IopsPlot, scale: Scale, dir: Direction) -> String {
    let (total, specials, d) = (plot.intervals(), plot.specials(), dir.name());
    let mut caption =
        format!("{total} points, one per interval (at the interval's end); one colour per run.");
    match scale {
        Scale::Log if specials > 0 => caption.push_str(&format!(
            " {specials} intervals had 0 {d} IOPS, which a log axis cannot show: they are drawn hollow on the row labelled 0, below the lowest decade."
        )),
        Scale::Linear { ymax: Some(y) } if specials > 0 => caption.push_str(&format!(
            " {specials} intervals were above the ceiling of {} IOPS: they are drawn hollow on the top row.",
            short_number(y)
        )),
        _ => {}
    }
    caption
}

/// The y axis of the plot: log with a `0` row only when a zero is drawn on it, or linear from 0.
pub fn y_axis(plot: &IopsPlot, scale: Scale) -> Axis {
    match scale {
        Scale::Log => {
            let zeros = plot.specials() > 0;
            // The decades are [floor × 10, top]; the floor is the 0 row.
            Axis::decades((plot.floor * 10.0, plot.top), zeros)
        }
        Scale::Linear { .. } => Axis::linear(0.0, plot.top * 1.02),
    }
}

/// The series of the drawing: per run its filled points, then its hollow ones, each thinned to its share
/// of [`MAX_POINTS`].
fn time_series(
    plot: &IopsPlot,
    legends: &[(String, Option<String>)],
    colours: &dyn Fn(usize) -> RGBColor,
) -> Vec<TimeSeries> {
    let lists = plot
        .series
        .iter()
        .map(|s| usize::from(!s.plain.is_empty()) + usize::from(!s.special.is_empty()))
        .sum::<usize>();
    let share = MAX_POINTS / lists.max(1);
    let mut out = Vec::new();
    for (s, (filled, hollow)) in plot.series.iter().zip(legends) {
        let c = colours(s.run);
        let name = Some(filled.clone());
        out.push(TimeSeries::thinned(
            s.run,
            name,
            c,
            Mark::Dot,
            &s.plain,
            share,
        ));
        if !s.special.is_empty() {
            let name = hollow.clone();
            out.push(TimeSeries::thinned(
                s.run,
                name,
                c,
                Mark::Hollow,
                &s.special,
                share,
            ));
        }
    }
    out
}

/// The IOPS per interval of `dir` in one phase, one series per run, against time: a scatter of one point per
/// interval (per series row entirely inside `window`, seconds, when given), with `markers`.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn iops_scatter(
    runs: &[RunData],
    group: &PhaseGroup,
    dir: Direction,
    scale: Scale,
    window: Option<(f64, f64)>,
    markers: &[Marker],
) -> Result<Chart, PlotError> {
    let plot = iops_plot(iops_points(runs, group, dir, window), scale, window);
    let legends: Vec<_> = plot
        .series
        .iter()
        .map(|s| legend_entries(&runs[s.run], s, scale))
        .collect();
    let y = y_axis(&plot, scale);
    let rows = match scale {
        _ if plot.specials() == 0 => vec![],
        Scale::Log => vec![plot.floor],
        Scale::Linear { .. } => vec![plot.top],
    };
    let mut series = time_series(&plot, &legends, &colour);
    super::predicted::restyle(&mut series, runs);
    let tp = TimePlot {
        title: title(runs, group, dir, scale, window),
        x: Axis::linear(plot.x.0, plot.x.1),
        y,
        y_desc: format!("{} IOPS (I/Os per s)", dir.name()),
        series,
        rows,
        markers: markers.to_vec(),
        drives: drives(runs),
    };
    let mut caption = caption(&plot, scale, dir);
    let drawn: usize = tp.series.iter().map(|s| s.points.len()).sum();
    if drawn < plot.intervals() {
        caption.push_str(&thinned(drawn, plot.intervals()));
    }
    Ok(Chart {
        caption,
        svg: tp.draw()?,
        title: tp.title,
    })
}

/// The caption's note on a thinned plot.
pub fn thinned(drawn: usize, total: usize) -> String {
    format!(
        " The {total} intervals are drawn as {drawn} points: each the median of a run of consecutive intervals, over a pale band from the run's lowest to its highest value."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{group, row, series_run};

    /// Two runs of one phase: run 0 with reads 0, 50, 0, 2000 IOPS at 1..4 s; run 1 with 300 at 1 s and
    /// 0 at 2 s.
    fn runs() -> (Vec<RunData>, PhaseGroup) {
        let a = series_run(
            "a",
            "sim:a",
            vec![
                row(1.0, 0, 7),
                row(2.0, 50, 7),
                row(3.0, 0, 7),
                row(4.0, 2000, 7),
            ],
        );
        let b = series_run("b", "sim:b", vec![row(1.0, 300, 0), row(2.0, 0, 0)]);
        (vec![a, b], group("p", &[(0, 0), (1, 0)]))
    }

    #[test]
    fn points_are_one_per_row_of_the_direction_in_the_window() {
        let (runs, g) = runs();
        assert_eq!(
            iops_points(&runs, &g, Direction::Read, None),
            vec![
                (0, vec![(1.0, 0.0), (2.0, 50.0), (3.0, 0.0), (4.0, 2000.0)]),
                (1, vec![(1.0, 300.0), (2.0, 0.0)]),
            ]
        );
        // The rows entirely inside 1..3 s: those ending at 2 and 3 s, not the one ending at 1 s.
        assert_eq!(
            iops_points(&runs, &g, Direction::Write, Some((1.0, 3.0))),
            vec![(0, vec![(2.0, 7.0), (3.0, 7.0)]), (1, vec![(2.0, 0.0)])]
        );
        assert_eq!(
            iops_points(&runs, &g, Direction::Write, Some((2.0, 3.0))),
            vec![(0, vec![(3.0, 7.0)]), (1, vec![])]
        );
    }

    /// Trial 24 F3: a zoom draws the rows its results window takes (rows entirely inside it), so its points
    /// are the window's `count`, and their lowest and highest the window's `min` and `max`: seed 000's
    /// `1400s..` over 2000 one-second rows is 600 points (not 601, with the row from 1399 to 1400 s), seed
    /// 003's `last 20m` over 300 minutes 1200.
    #[test]
    fn a_zoom_draws_the_rows_of_its_results_window() {
        use crate::report::build::window_seconds;
        use crate::stats::window::WindowSpec;
        for (spec, rows, want) in [("1400s..", 2000, 600), ("last 20m", 18_000, 1200)] {
            let w = WindowSpec::parse(spec).expect("window");
            // Writes cycling 100..=199 IOPS, the row just before the window (from 1399 to 1400 s) the lowest
            // of all (1) and the last row the highest (5000).
            let mut iops: Vec<u64> = (0..rows).map(|k| 100 + k % 100).collect();
            let first = w.resolve(1_000_000_000, rows as usize).rows.start;
            iops[first - 1] = 1;
            iops[rows as usize - 1] = 5000;
            let values: Vec<f64> = iops.iter().map(|&x| x as f64).collect();
            let stats = w.stats(&values, 1_000_000_000).1.expect("stats");
            let series = iops
                .iter()
                .enumerate()
                .map(|(k, &x)| row(k as f64 + 1.0, 0, x))
                .collect();
            let runs = [series_run("a", "sim:a", series)];
            let g = group("p", &[(0, 0)]);
            let window = window_seconds(&w, rows as f64);
            let pts = &iops_points(&runs, &g, Direction::Write, Some(window))[0].1;
            let (lo, hi) = pts.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
                (a.min(p.1), b.max(p.1))
            });
            assert_eq!((pts.len(), lo, hi), (want, stats.min, stats.max), "{spec}");
            assert_eq!(
                (stats.count, stats.min, stats.max),
                (want, 100.0, 5000.0),
                "{spec}"
            );
        }
    }

    #[test]
    fn log_scatter_puts_zero_intervals_on_the_floor_a_decade_below() {
        let (runs, g) = runs();
        let plot = iops_plot(
            iops_points(&runs, &g, Direction::Read, None),
            Scale::Log,
            None,
        );
        // Non-zero values 50..2000: decades 10..10 000, floor row at 1.
        assert_eq!((plot.floor, plot.top), (1.0, 10_000.0));
        assert_eq!(plot.x, (0.0, 4.0 * 1.02));
        assert_eq!(
            plot.series,
            vec![
                IopsSeries {
                    run: 0,
                    plain: vec![(2.0, 50.0), (4.0, 2000.0)],
                    special: vec![(1.0, 1.0), (3.0, 1.0)],
                },
                IopsSeries {
                    run: 1,
                    plain: vec![(1.0, 300.0)],
                    special: vec![(2.0, 1.0)],
                },
            ]
        );
        assert_eq!((plot.intervals(), plot.specials()), (6, 3));
        // The log axis: a 0 row (at the floor) under 10, 100, 1k, 10k.
        let y = y_axis(&plot, Scale::Log);
        assert_eq!(y.labels(), ["0", "10", "100", "1k", "10k"]);
        assert_eq!((y.zero_row, y.hi), (Some(1.0), 10_000.0));
        assert_eq!(
            caption(&plot, Scale::Log, Direction::Read),
            "6 points, one per interval (at the interval's end); one colour per run. 3 intervals had 0 read \
IOPS, which a log axis cannot show: they are drawn hollow on the row labelled 0, below the lowest decade."
        );
        assert_eq!(
            legend_entries(&runs[0], &plot.series[0], Scale::Log),
            (
                "a on sim:a (4 intervals)".to_string(),
                Some("2 of 4 with 0 IOPS, hollow on the \"0\" row".to_string())
            )
        );
    }

    #[test]
    fn linear_scatter_with_a_ceiling_puts_higher_intervals_on_the_top_row() {
        let (runs, g) = runs();
        let scale = Scale::Linear { ymax: Some(100.0) };
        let window = Some((1.0, 4.0));
        let plot = iops_plot(
            iops_points(&runs, &g, Direction::Read, window),
            scale,
            window,
        );
        assert_eq!((plot.x, plot.floor, plot.top), ((1.0, 4.0), 0.0, 100.0));
        assert_eq!(
            plot.series,
            vec![
                IopsSeries {
                    run: 0,
                    plain: vec![(2.0, 50.0), (3.0, 0.0)],
                    special: vec![(4.0, 100.0)],
                },
                IopsSeries {
                    run: 1,
                    plain: vec![(2.0, 0.0)],
                    special: vec![],
                },
            ]
        );
        assert_eq!(
            legend_entries(&runs[1], &plot.series[1], scale),
            ("b on sim:b (1 intervals)".to_string(), None)
        );
        assert!(caption(&plot, scale, Direction::Read).ends_with(
            " 1 intervals were above the ceiling of 100 IOPS: they are drawn hollow on the top row."
        ));
        assert_eq!(
            title(&runs, &g, Direction::Read, scale, window),
            "Read IOPS per interval (linear, fixed ceiling, 1..4 s) — spec · p · sim:a / sim:b"
        );
    }

    #[test]
    fn linear_scatter_fits_its_top_to_the_data() {
        assert_eq!(
            y_range(Scale::Linear { ymax: None }, 50.0, 2000.0),
            (0.0, 2100.0)
        );
        assert_eq!(
            y_range(Scale::Linear { ymax: None }, f64::INFINITY, 0.0),
            (0.0, 1.0)
        );
        // No non-zero value on a log axis: floor 0.1 under the decade 1..10.
        assert_eq!(y_range(Scale::Log, f64::INFINITY, 0.0), (0.1, 10.0));
        let plot = iops_plot(vec![(0, vec![])], Scale::Linear { ymax: None }, None);
        assert_eq!(plot.x, (0.0, 1e-3 * 1.02));
    }

    /// Issue 25 item 5: a long series is drawn as medians over a min–max envelope, not as each bucket's
    /// lowest and highest point.
    #[test]
    fn a_long_series_is_drawn_as_medians_over_its_envelope() {
        // 30,000 one-second rows (500 minutes), writes cycling 100..=199 IOPS, one row at 7.
        let mut rows: Vec<_> = (1..=30_000)
            .map(|i| row(i as f64, 0, 100 + i % 100))
            .collect();
        rows[12_345] = row(12_346.0, 0, 7);
        let runs = [series_run("a", "sim:a", rows)];
        let g = group("p", &[(0, 0)]);
        let c = iops_scatter(&runs, &g, Direction::Write, Scale::Log, None, &[]).expect("draws");
        assert_eq!(c.svg.matches("<circle").count(), MAX_POINTS);
        assert_eq!(c.svg.matches("<polygon").count(), 1, "the envelope");
        assert!(c.caption.ends_with(
            " The 30000 intervals are drawn as 4000 points: each the median of a run of consecutive intervals, over a pale band from the run's lowest to its highest value."
        ), "{}", c.caption);
        assert!(c.svg.len() < 450_000, "{} bytes", c.svg.len());
        // The worst interval is the envelope's floor: the axis reaches down to its decade.
        let plot = iops_plot(
            iops_points(&runs, &g, Direction::Write, None),
            Scale::Log,
            None,
        );
        assert_eq!(y_axis(&plot, Scale::Log).labels(), ["1", "10", "100", "1k"]);
        let kept = super::super::thin(&plot.series[0].plain, MAX_POINTS);
        assert!(kept.envelope.iter().any(|e| e.1 == 7.0));
        assert!(kept.points.iter().all(|p| p.1 >= 100.0));
        // 500 minutes: the time axis is in hours.
        assert!(
            c.svg
                .contains(">\ntime since the phase&apos;s start (h)\n<"),
            "hours"
        );
    }

    #[test]
    fn scatter_svg_has_a_circle_per_interval() {
        let (runs, g) = runs();
        let c = iops_scatter(&runs, &g, Direction::Read, Scale::Log, None, &[]).expect("draws");
        assert_eq!(c.svg.matches("<circle").count(), 6);
        assert!(c.title.starts_with("Read IOPS per interval (log scale) — "));
    }
}
