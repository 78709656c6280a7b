//! Charts across the phases of a sweep or matrix (a [`LabelGroup`]): a category per phase, per run a bar
//! (total IOPS) or a marker (latency) at the mean, with whiskers from min to max.

use super::{
    Axis, Body, Chart, LegendEntry, Plane, PlotError, Swatch, colour, log_range, plot_on, render,
    short_number, subject, why,
};
use crate::report::runs::{LabelGroup, RunData, member_at, total_iops_full_rows};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// What a chart across a label group shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelMetric {
    /// Total IOPS: bars at the mean, whiskers from the lowest to the highest full interval.
    Iops,
    /// Latency of reads and writes together: the mean, whiskers from the minimum to the maximum.
    Latency,
}

/// One bar or marker of a label chart: `(mean, min, max)` of the phase `name` of `run`; IOPS over the
/// window `window` (as the results give it) when given.
pub fn label_value(
    run: &RunData,
    name: &str,
    metric: LabelMetric,
    window: Option<&str>,
) -> Option<(f64, f64, f64)> {
    let i = crate::report::runs::member_at(&run.results, name)?;
    let (p, rows) = run.phase(i);
    match metric {
        LabelMetric::Iops => {
            if let Some(w) = window {
                let s = p.windows.iter().find(|x| x.spec == w)?.iops.as_ref()?;
                return Some((s.avg, s.min, s.max));
            }
            let v = total_iops_full_rows(rows);
            let mean = p.iops();
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(0.0, f64::max);
            Some(if v.is_empty() {
                (mean, mean, mean)
            } else {
                (mean, min, max)
            })
        }
        LabelMetric::Latency => {
            let l = p.total.latency_ns.as_ref()?;
            Some((l.mean / 1e3, l.min as f64 / 1e3, l.max as f64 / 1e3))
        }
    }
}

/// The window every phase of a label group has first in `windows` (the same spec in all), if any: IOPS
/// charts then show that window's statistics.
pub fn common_window(runs: &[RunData], g: &LabelGroup) -> Option<String> {
    let mut w: Option<String> = None;
    for run in runs {
        for name in &g.phases {
            let Some(p) = member_at(&run.results, name).map(|i| &run.results.phases[i]) else {
                continue;
            };
            let first = p.windows.first()?;
            first.iops.as_ref()?;
            match &w {
                None => w = Some(first.spec.clone()),
                Some(s) if *s != first.spec => return None,
                Some(_) => {}
            }
        }
    }
    w
}

/// A bar or marker of a label chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelBar {
    /// The run (its index).
    pub run: usize,
    /// The category (the phase's index in the group).
    pub category: usize,
    /// Where the bar or marker is.
    pub mean: f64,
    /// The whisker's bottom.
    pub min: f64,
    /// The whisker's top.
    pub max: f64,
}

/// Every bar of the chart, per run then per category; a phase a run lacks has none.
pub fn label_bars(
    runs: &[RunData],
    g: &LabelGroup,
    metric: LabelMetric,
    window: Option<&str>,
) -> Vec<LabelBar> {
    let mut bars = Vec::new();
    for (run, r) in runs.iter().enumerate() {
        for (category, name) in g.phases.iter().enumerate() {
            if let Some((mean, min, max)) = label_value(r, name, metric, window) {
                bars.push(LabelBar {
                    run,
                    category,
                    mean,
                    min,
                    max,
                });
            }
        }
    }
    bars
}

/// The category names on the x axis: the label values at whole numbers, nothing elsewhere.
pub fn category_label(cats: &[String], v: f64) -> String {
    let k = v.round();
    if (v - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < cats.len() {
        cats[k as usize].clone()
    } else {
        String::new()
    }
}

/// Where the bars of each run go: width of each (0.8 of a category shared by `runs` runs) and the offset
/// of run `r`'s from its category's centre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slots {
    /// Width of one run's slot.
    pub width: f64,
    runs: f64,
}

impl Slots {
    /// Slots for `runs` runs (at least one).
    pub fn new(runs: usize) -> Slots {
        let nr = runs.max(1);
        Slots {
            width: 0.8 / nr as f64,
            runs: nr as f64,
        }
    }

    /// The x of run `r`'s bar in category `category`.
    pub fn x(&self, r: usize, category: usize) -> f64 {
        category as f64 + (r as f64 - (self.runs - 1.0) / 2.0) * self.width
    }
}

/// The top of an IOPS chart (the highest whisker or bar plus 8 %, at least 1) and the decades of a latency
/// chart (around every positive value).
pub fn bar_ranges(bars: &[LabelBar]) -> (f64, (f64, f64)) {
    let hi = bars.iter().map(|v| v.max.max(v.mean)).fold(0.0, f64::max);
    let lo = bars
        .iter()
        .map(|v| v.min.min(v.mean))
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    ((hi * 1.08).max(1.0), log_range(lo, hi))
}

/// The chart's title: `IOPS across bs, read — spec · base[bs, read] · targets`.
pub fn title(runs: &[RunData], g: &LabelGroup, metric: LabelMetric) -> String {
    let members: Vec<usize> = (0..runs.len()).collect();
    let keys = g.keys.join(", ");
    let what = match metric {
        LabelMetric::Iops => "IOPS",
        LabelMetric::Latency => "Latency",
    };
    format!(
        "{what} across {keys} — {}",
        subject(runs, &members, &format!("{}[{keys}]", g.base))
    )
}

fn caption(metric: LabelMetric, window: Option<&str>) -> String {
    match (metric, window) {
        (LabelMetric::Iops, Some(w)) => format!(
            "One bar per phase and run: the mean total IOPS over the window {w}, whiskers from its lowest to its highest interval."
        ),
        (LabelMetric::Iops, None) => "One bar per phase and run: the phase's total IOPS (I/Os / duration), whiskers from its lowest to its highest full interval.".into(),
        (LabelMetric::Latency, _) => "One marker per phase and run: the mean latency of reads and writes together, whiskers from the smallest to the largest latency.".into(),
    }
}

/// The text written above a bar or marker: its mean, IOPS whole from 10 up (`269`, `2.44k`), latency in
/// the unit that fits it (`71.2 µs`, `12 ms`).
pub fn value_label(metric: LabelMetric, mean: f64) -> String {
    match metric {
        LabelMetric::Iops if (10.0..1000.0).contains(&mean) => format!("{mean:.0}"),
        LabelMetric::Iops => short_number(mean),
        LabelMetric::Latency => super::scale::latency_text(mean),
    }
}

/// The bars of one chart and what places and names them.
struct Bars<'a> {
    runs: &'a [RunData],
    bars: &'a [LabelBar],
    slots: Slots,
    metric: LabelMetric,
}

impl Bars<'_> {
    fn of(&self, r: usize) -> impl Iterator<Item = &LabelBar> {
        self.bars.iter().filter(move |v| v.run == r)
    }

    fn legend(&self) -> Vec<LegendEntry> {
        (0..self.runs.len())
            .filter(|r| self.of(*r).next().is_some())
            .map(|r| {
                LegendEntry::drive(
                    r,
                    &self.runs[r].label,
                    format!("{}: mean, whiskers min–max", self.runs[r].legend()),
                    Swatch::Filled(colour(r)),
                )
                .with_note(super::predicted::legend_note(&self.runs[r]))
            })
            .collect()
    }
}

impl Body for Bars<'_> {
    /// Per run: IOPS bars at the mean or latency markers, the whiskers, and the mean's value above each.
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        for r in 0..self.runs.len() {
            let c = colour(r);
            let w2 = self.slots.width * 0.4;
            let x = |v: &LabelBar| self.slots.x(r, v.category);
            if self.metric == LabelMetric::Iops {
                chart
                    .draw_series(self.of(r).map(|v| {
                        Rectangle::new([(x(v) - w2, 0.0), (x(v) + w2, v.mean)], c.mix(0.7).filled())
                    }))
                    .map_err(why)?;
            }
            for v in self.of(r) {
                whisker(chart, x(v), w2 * 0.5, v.min, v.max)?;
            }
            if self.metric == LabelMetric::Latency {
                chart
                    .draw_series(
                        self.of(r)
                            .map(|v| Circle::new((x(v), v.mean), 4, c.filled())),
                    )
                    .map_err(why)?;
            }
            // The value, centred above the whisker's top.
            let style = (super::FONT, 12)
                .into_font()
                .color(&RGBColor(31, 35, 40))
                .pos(Pos::new(HPos::Center, VPos::Bottom));
            chart
                .draw_series(self.of(r).map(|v| {
                    EmptyElement::at((x(v), v.max.max(v.mean)))
                        + Text::new(value_label(self.metric, v.mean), (0, -4), style.clone())
                }))
                .map_err(why)?;
        }
        Ok(())
    }
}

/// One chart across the phases of a sweep or matrix: a category per phase, a bar (IOPS) or marker
/// (latency) per run at the mean, with whiskers from min to max and the mean written beside each.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn label_chart(
    runs: &[RunData],
    g: &LabelGroup,
    metric: LabelMetric,
) -> Result<Chart, PlotError> {
    let window = match metric {
        LabelMetric::Iops => common_window(runs, g),
        LabelMetric::Latency => None,
    };
    let bars = label_bars(runs, g, metric, window.as_deref());
    let b = Bars {
        runs,
        bars: &bars,
        slots: Slots::new(runs.len()),
        metric,
    };
    let (iops_top, decades) = bar_ranges(&bars);
    let n = g.phases.len();
    let title = title(runs, g, metric);
    let x_desc = format!("phase of {}: {}", g.base, g.keys.join(", "));
    let y_desc = match (metric, &window) {
        (LabelMetric::Iops, Some(w)) => format!("total IOPS (I/Os per s), window {w}"),
        (LabelMetric::Iops, None) => "total IOPS (I/Os per s)".into(),
        (LabelMetric::Latency, _) => "latency, reads and writes (log scale)".into(),
    };
    let x = Axis::categories(n);
    let y = match metric {
        LabelMetric::Iops => Axis::linear(0.0, iops_top),
        LabelMetric::Latency => Axis::decades(decades, false).latency(),
    };
    let svg = render(&title, &b.legend(), |root| {
        let x_ticks = |v: &f64| category_label(&g.values, *v);
        plot_on(root, (&x, &y), (&x_desc, &y_desc), &x_ticks, false, &b)
    })?;
    Ok(Chart {
        title,
        caption: caption(metric, window.as_deref()),
        svg,
    })
}

/// A vertical whisker at `x` from `lo` to `hi` with caps `half` wide.
fn whisker<Y>(
    chart: &mut Plane<'_, '_, Y>,
    x: f64,
    half: f64,
    lo: f64,
    hi: f64,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let style = BLACK.stroke_width(1);
    chart
        .draw_series([
            PathElement::new(vec![(x, lo), (x, hi)], style),
            PathElement::new(vec![(x - half, lo), (x + half, lo)], style),
            PathElement::new(vec![(x - half, hi), (x + half, hi)], style),
        ])
        .map_err(why)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{labelled, latency, row, run};
    use crate::results::{DirStats, PhaseResult, WindowResult};

    fn window(spec: &str, avg: f64, min: f64, max: f64) -> WindowResult {
        crate::report::testing::window(spec, (0.0, 1.0), avg, min, max)
    }

    /// `sat[op=N]` with `read` reads and `write` writes over its 1 s, and a total latency summary.
    fn sat(op: &str, index: usize, read: u64, write: u64) -> PhaseResult {
        let mut p = labelled(&format!("sat[op={op}]"), index, &[("span", op)]);
        p.read = DirStats::new(read, read * 4096, 1.0, None);
        p.write = DirStats::new(write, write * 4096, 1.0, None);
        p.total = DirStats::new(
            read + write,
            (read + write) * 4096,
            1.0,
            Some(latency(2_000, 5_000, 6_000, 7_000, 8_000, 9_000)),
        );
        p
    }

    fn group() -> LabelGroup {
        LabelGroup {
            base: "sat".into(),
            keys: vec!["span".into()],
            phases: vec!["sat[op=90%]".into(), "sat[op=50%]".into()],
            values: vec!["90%".into(), "50%".into()],
        }
    }

    #[test]
    fn iops_bars_are_the_phase_mean_with_full_interval_whiskers() {
        // Full rows 80 and 120 total IOPS; the partial last row (500) does not count.
        let mut last = row(3.0, 500, 0);
        last.partial = 1;
        let a = run(
            "a",
            "sim:a",
            vec![
                (
                    sat("90%", 1, 60, 40),
                    Some(vec![row(1.0, 50, 30), row(2.0, 70, 50), last]),
                ),
                (sat("50%", 2, 10, 0), Some(vec![])),
            ],
        );
        let b = run("b", "sim:b", vec![(sat("50%", 1, 0, 30), None)]);
        let runs = [a, b];
        let bars = label_bars(&runs, &group(), LabelMetric::Iops, None);
        let bar = |run, category, mean, min, max| LabelBar {
            run,
            category,
            mean,
            min,
            max,
        };
        assert_eq!(
            bars,
            vec![
                bar(0, 0, 100.0, 80.0, 120.0),
                // No series: the whiskers collapse on the mean.
                bar(0, 1, 10.0, 10.0, 10.0),
                bar(1, 1, 30.0, 30.0, 30.0),
            ]
        );
        assert_eq!(bar_ranges(&bars).0, 120.0 * 1.08);
        assert_eq!(common_window(&runs, &group()), None);
        let lat = label_bars(&runs, &group(), LabelMetric::Latency, None);
        assert_eq!(lat[0], bar(0, 0, 5.0, 2.0, 18.0));
        // 2..18 µs: the decades 1..100.
        assert_eq!(bar_ranges(&lat).1, (1.0, 100.0));
        assert_eq!(
            title(&runs, &group(), LabelMetric::Latency),
            "Latency across span — spec · sat[span] · sim:a / sim:b"
        );
    }

    #[test]
    fn a_window_every_phase_has_first_is_charted_instead() {
        let mut p = sat("90%", 1, 60, 40);
        let mut q = sat("50%", 2, 10, 0);
        p.windows = vec![
            window("5s..", 90.0, 70.0, 95.0),
            window("last 1s", 1.0, 1.0, 1.0),
        ];
        q.windows = vec![window("5s..", 9.0, 7.0, 9.5)];
        let runs = [run(
            "a",
            "sim:a",
            vec![(p.clone(), None), (q.clone(), None)],
        )];
        assert_eq!(common_window(&runs, &group()).as_deref(), Some("5s.."));
        assert_eq!(
            label_value(&runs[0], "sat[op=50%]", LabelMetric::Iops, Some("5s..")),
            Some((9.0, 7.0, 9.5))
        );
        assert_eq!(
            label_value(&runs[0], "sat[op=50%]", LabelMetric::Iops, Some("last 1s")),
            None
        );
        assert_eq!(label_value(&runs[0], "nope", LabelMetric::Iops, None), None);
        // Another first window, or none, in any phase: no common window.
        q.windows = vec![window("last 1s", 9.0, 7.0, 9.5)];
        let other = [run("a", "sim:a", vec![(p.clone(), None), (q, None)])];
        assert_eq!(common_window(&other, &group()), None);
        let bare = [run(
            "a",
            "sim:a",
            vec![(p, None), (sat("50%", 2, 1, 1), None)],
        )];
        assert_eq!(common_window(&bare, &group()), None);
        let c = label_chart(&runs, &group(), LabelMetric::Iops).expect("draws");
        assert!(c.caption.contains("over the window 5s.."));
    }

    #[test]
    fn bars_carry_their_mean_as_text() {
        assert_eq!(value_label(LabelMetric::Iops, 269.16), "269");
        assert_eq!(value_label(LabelMetric::Iops, 2441.9), "2.44k");
        assert_eq!(value_label(LabelMetric::Iops, 7.5), "7.5");
        assert_eq!(value_label(LabelMetric::Latency, 12_034.3), "12 ms");
        assert_eq!(value_label(LabelMetric::Latency, 55.55), "55.5 µs");
        let a = run(
            "a",
            "sim:a",
            vec![(sat("90%", 1, 61, 40), None), (sat("50%", 2, 10, 0), None)],
        );
        let c = label_chart(std::slice::from_ref(&a), &group(), LabelMetric::Iops).expect("draws");
        // Means 101 and 10 IOPS (no tick has either label), each written once above its bar.
        for label in [">\n101\n<", ">\n10\n<"] {
            assert_eq!(c.svg.matches(label).count(), 1, "{label:?} in the SVG");
        }
        let c = label_chart(&[a], &group(), LabelMetric::Latency).expect("draws");
        // Above each of the two markers, and the axis's tick at 5 µs.
        assert_eq!(c.svg.matches(">\n5 µs\n<").count(), 3);
    }

    #[test]
    fn slots_share_eight_tenths_of_a_category() {
        let one = Slots::new(1);
        assert_eq!((one.width, one.x(0, 2)), (0.8, 2.0));
        let s = Slots::new(4);
        assert_eq!(s.width, 0.2);
        let xs: Vec<f64> = (0..4).map(|r| s.x(r, 1)).collect();
        let want = [
            1.0 - 1.5 * 0.2,
            1.0 - 0.5 * 0.2,
            1.0 + 0.5 * 0.2,
            1.0 + 1.5 * 0.2,
        ];
        for (x, w) in xs.iter().zip(want) {
            assert!((x - w).abs() < 1e-12, "{xs:?}");
        }
        assert_eq!(Slots::new(0), Slots::new(1));
    }

    #[test]
    fn categories_are_named_at_whole_numbers_only() {
        let cats = ["4KiB, 65".to_string(), "8KiB, 100".to_string()];
        let got: Vec<String> = [-0.5, 0.0, 0.5, 1.0, 1.0000001, 2.0]
            .into_iter()
            .map(|v| category_label(&cats, v))
            .collect();
        assert_eq!(got, ["", "4KiB, 65", "", "8KiB, 100", "8KiB, 100", ""]);
    }
}
