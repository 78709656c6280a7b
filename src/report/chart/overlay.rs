//! The members of a sweep on one time plot (seed 000's 100 % and 75 % spans, seed 002's zeros and
//! incompressible data, seed 003's five spans): one series per member (and run), named after its label
//! (`op=93%`: the sweep's name, not the key it varies). Each drive keeps its colour; its members are
//! shades of it, dark to light in the sweep's order ([`super::palette::shade`]), so that a drive's members
//! read as one family and two drives stay apart. Total IOPS per interval (log or linear), their averages
//! ([`super::aggregates::averages`]), or bandwidth per interval for sequential phases.

use super::aggregates::{averages, every_words, total_points};
use super::palette::shade;
use super::scale::time_in;
use super::time::{Mark, Marker, TimePlot, TimeSeries, line_for};
use super::{Axis, Chart, MAX_POINTS, PlotError, Points, colour, drives, subject};
use crate::report::model::filled_once_s;
use crate::report::runs::{LabelGroup, RunData, member_at};

/// What an overlay shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayMetric {
    /// Total IOPS per interval, log axis (0 IOPS hollow on a `0` row).
    IopsLog,
    /// Total IOPS per interval, linear axis.
    IopsLinear,
    /// Averages of total IOPS over groups of intervals.
    Averages,
    /// Bandwidth, reads and writes together, per interval (MB/s).
    Bandwidth,
}

/// One series of an overlay: a member of the sweep in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberSeries {
    /// The run (its index).
    pub run: usize,
    /// The phase's index in that run's results.
    pub phase: usize,
    /// The member's position in the group (its colour).
    pub member: usize,
    /// Its name in the legend (in its drive's row): `op=93%`.
    pub name: String,
    /// Its points `(t_s, value)`.
    pub points: Points,
}

/// The series of the overlay, per run then per member of `g` that the run has; for [`OverlayMetric::Averages`],
/// the members without averages have none.
pub fn overlay_series(
    runs: &[RunData],
    g: &LabelGroup,
    metric: OverlayMetric,
) -> Vec<MemberSeries> {
    let mut out = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for (k, name) in g.phases.iter().enumerate() {
            let Some(p) = member_at(&run.results, name) else {
                continue;
            };
            let (phase, rows) = run.plotted(p);
            let points = match metric {
                OverlayMetric::IopsLog | OverlayMetric::IopsLinear => total_points(&rows),
                OverlayMetric::Averages => match averages(phase, run.phase(p).1) {
                    Some((_, pts)) => pts,
                    None => continue,
                },
                OverlayMetric::Bandwidth => rows
                    .iter()
                    .map(|row| {
                        let b = row.count(|d| d.bytes) as f64;
                        let v = if row.interval_s > 0.0 {
                            b / row.interval_s / 1e6
                        } else {
                            0.0
                        };
                        (row.t_s, v)
                    })
                    .collect(),
            };
            out.push(MemberSeries {
                run: r,
                phase: p,
                member: k,
                name: format!("{}={}", g.keys.join(","), g.values[k]),
                points,
            });
        }
    }
    out
}

/// The colour of a member's series (and its markers): its drive's colour, shaded by its place in the
/// sweep.
fn member_colour(g: &LabelGroup, s: &MemberSeries) -> plotters::style::RGBColor {
    shade(colour(s.run), s.member, g.phases.len())
}

/// When a member wrote its span once, s from its start (a workload's only).
fn member_filled_s(runs: &[RunData], s: &MemberSeries) -> Option<f64> {
    let (phase, rows) = runs[s.run].phase(s.phase);
    (phase.kind == crate::spec::PhaseKind::Workload)
        .then(|| filled_once_s(rows, phase.span_written_against()))
        .flatten()
}

/// The markers of an overlay: per member that wrote its span once, a thin line in its colour (its legend
/// item names the moment); the start of each results window not at 0 (once per window and start, in a
/// legend row of its own: every drive's members share it).
fn overlay_markers(runs: &[RunData], g: &LabelGroup, series: &[MemberSeries]) -> Vec<Marker> {
    let mut out: Vec<Marker> = Vec::new();
    for s in series {
        if let Some(t) = member_filled_s(runs, s) {
            let thing = runs[s.run].results.target.kind.thing();
            let mut m = Marker::filled(t, member_colour(g, s), "", thing);
            m.tag.clear();
            m.run = Some(s.run);
            // One legend item for every member's line (in a row of no drive), so that no line is left
            // without words where the legend shortens the members' own items to their names.
            m.words = None;
            m.label = match out.iter().any(|o| o.words.is_none() && !o.label.is_empty()) {
                true => String::new(),
                false => {
                    m.run = None;
                    format!("thin line in a member's colour: its {thing} span written once")
                }
            };
            out.push(m);
        }
        for w in &runs[s.run].phase(s.phase).0.windows {
            if w.start_s > 0.0 && w.iops.is_some() && !out.iter().any(|m| m.from_s == w.start_s) {
                out.push(Marker::window(&w.spec, w.start_s));
            }
        }
    }
    out
}

/// The time plot of an overlay (without drawing it); `None` when there is nothing to draw.
pub fn overlay_plot(runs: &[RunData], g: &LabelGroup, metric: OverlayMetric) -> Option<TimePlot> {
    let series = overlay_series(runs, g, metric);
    if series.len() < 2 {
        return None;
    }
    let all = || series.iter().flat_map(|s| s.points.iter());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02;
    let max = all().map(|p| p.1).fold(0.0, f64::max);
    let min_pos = all()
        .map(|p| p.1)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let zeros = metric == OverlayMetric::IopsLog && all().any(|p| p.1 <= 0.0);
    let y = match metric {
        OverlayMetric::IopsLog => Axis::log(min_pos, max, zeros),
        _ => Axis::linear(0.0, if max > 0.0 { max * 1.05 } else { 1.0 }),
    };
    let share = MAX_POINTS / series.len().max(1);
    // Times in legends in the unit of the time axis.
    let unit = super::scale::time_axis(0.0, x1).1;
    let mut out = Vec::new();
    for s in &series {
        if !out.iter().any(|o: &TimeSeries| o.run == Some(s.run)) {
            // The drive's row starts with the drive, in its own colour (no points).
            out.push(TimeSeries {
                run: Some(s.run),
                name: Some(format!("{}:", runs[s.run].legend())),
                colour: colour(s.run),
                mark: Mark::Dot,
                points: vec![],
                envelope: vec![],
                dashed: false,
            });
        }
        let c = member_colour(g, s);
        let (plain, zero): (Points, Points) = match (metric, y.zero_row) {
            (OverlayMetric::IopsLog, Some(z)) => {
                let (p, zs): (Points, Points) = s.points.iter().partition(|p| p.1 > 0.0);
                (p, zs.into_iter().map(|(t, _)| (t, z)).collect())
            }
            _ => (s.points.clone(), vec![]),
        };
        let mark = match metric {
            OverlayMetric::IopsLog | OverlayMetric::IopsLinear => Mark::Dot,
            OverlayMetric::Averages | OverlayMetric::Bandwidth => line_for(plain.len()),
        };
        // A member with zeros shares its points between the two lists.
        let mine = if zero.is_empty() { share } else { share / 2 };
        let filled = member_filled_s(runs, s).map_or(String::new(), |t| {
            format!("; filled once {}", time_in(t, unit))
        });
        let name = format!("{} ({} points{filled})", s.name, s.points.len());
        out.push(TimeSeries::thinned(
            s.run,
            Some(name),
            c,
            mark,
            &plain,
            mine,
        ));
        if !zero.is_empty() {
            let name = format!(
                "{}: {} with 0 IOPS, hollow on the \"0\" row",
                s.name,
                zero.len()
            );
            out.push(TimeSeries::thinned(
                s.run,
                Some(name),
                c,
                Mark::Hollow,
                &zero,
                mine,
            ));
        }
    }
    let members: Vec<usize> = (0..runs.len()).collect();
    let what = match metric {
        OverlayMetric::IopsLog => "Total IOPS per interval (log scale)".to_string(),
        OverlayMetric::IopsLinear => "Total IOPS per interval (linear scale)".to_string(),
        OverlayMetric::Averages => {
            let every = series
                .iter()
                .find_map(|s| averages(runs[s.run].phase(s.phase).0, runs[s.run].phase(s.phase).1))
                .map_or(60.0, |a| a.0);
            format!("Total IOPS, {} averages", every_words(every))
        }
        OverlayMetric::Bandwidth => "Bandwidth per interval".to_string(),
    };
    let keys = g.keys.join(", ");
    Some(TimePlot {
        title: format!(
            "{what}, each {keys} — {}",
            subject(runs, &members, &format!("{}[{keys}]", g.base))
        ),
        x: Axis::linear(0.0, x1),
        rows: y.zero_row.into_iter().collect(),
        y,
        y_desc: match metric {
            OverlayMetric::Bandwidth => "bandwidth (MB/s, 10⁶ bytes per s)".into(),
            _ => "total IOPS (I/Os per s)".into(),
        },
        series: out,
        markers: overlay_markers(runs, g, &series),
        drives: drives(runs),
    })
}

/// What group `g` is, as its overlays' captions say it: `sweep`, or `matrix` for the values of a matrix
/// list (`engine = [..]`: its phases' labels have no sweep; trial 28 L2 called it a sweep).
fn group_word(runs: &[RunData], g: &LabelGroup) -> &'static str {
    let first = runs.iter().find_map(|r| {
        let at = g.phases.iter().find_map(|n| member_at(&r.results, n))?;
        Some(&r.results.phases[at])
    });
    match first.is_some_and(|p| p.labels.iter().all(|l| l.sweep.is_none())) {
        true => "matrix",
        false => "sweep",
    }
}

/// Whether a member drawn (`series`) trimmed: its points then count trims with the reads and writes
/// (total IOPS, bytes), and the caption says so (trial 28 L2: "reads and writes together" of points that
/// held trims).
fn trimmed(runs: &[RunData], series: &[MemberSeries]) -> bool {
    series.iter().any(|s| {
        let p = &runs[s.run].results.phases[s.phase];
        p.trim.as_ref().is_some_and(|t| t.ops > 0)
    })
}

/// The members of the sweep `g` on one time plot, one colour and legend entry per member; `None` when
/// fewer than two members have something to draw.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn overlay_chart(
    runs: &[RunData],
    g: &LabelGroup,
    metric: OverlayMetric,
) -> Result<Option<Chart>, PlotError> {
    let Some(tp) = overlay_plot(runs, g, metric) else {
        return Ok(None);
    };
    let all = overlay_series(runs, g, metric);
    let n = all.len();
    let (group, trims) = (group_word(runs, g), trimmed(runs, &all));
    let members = format!(
        "{n} members of the {group}, each a shade of its drive's colour (dark to light in the {group}'s order)"
    );
    let caption = match metric {
        OverlayMetric::Averages => format!(
            "{members}: the mean total IOPS ({}) of each group of intervals, at the group's middle.",
            match trims {
                true => "reads, writes and trims",
                false => "reads and writes",
            }
        ),
        OverlayMetric::Bandwidth => format!(
            "{members}: bytes {} in each interval over its length.",
            match trims {
                true => "read, written and trimmed",
                false => "read and written",
            }
        ),
        _ => format!(
            "{members}: a point per interval (at its end), {} together{}.",
            match trims {
                true => "reads, writes and trims",
                false => "reads and writes",
            },
            if tp.y.zero_row.is_some() {
                "; intervals with 0 IOPS hollow on the row labelled 0"
            } else {
                ""
            }
        ),
    };
    let total: usize = all.iter().map(|s| s.points.len()).sum();
    let drawn: usize = tp.series.iter().map(|s| s.points.len()).sum();
    let caption = if drawn < total {
        caption + &super::iops::thinned(drawn, total)
    } else {
        caption
    };
    Ok(Some(Chart {
        caption,
        svg: tp.draw()?,
        title: tp.title,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{labelled, row, run};

    fn sweep() -> (Vec<RunData>, LabelGroup) {
        let p = |name: &str, i, v: &str| labelled(name, i, &[("span", v)]);
        let r = run(
            "a",
            "sim:a",
            vec![
                (
                    p("sat[op=100%]", 1, "100%"),
                    Some(vec![row(1.0, 0, 10), row(2.0, 0, 0)]),
                ),
                (
                    p("sat[op=50%]", 3, "50%"),
                    Some(vec![row(1.0, 0, 30), row(2.0, 0, 40)]),
                ),
                (p("sat[op=25%]", 5, "25%"), Some(vec![row(1.0, 0, 50)])),
            ],
        );
        let g = LabelGroup {
            base: "sat".into(),
            keys: vec!["span".into()],
            phases: vec![
                "sat[op=100%]".into(),
                "sat[op=50%]".into(),
                "sat[op=25%]".into(),
            ],
            values: vec!["100%".into(), "50%".into(), "25%".into()],
        };
        (vec![r], g)
    }

    /// Trial 28 L2: the caption said "reads and writes together" of points that held trims, and "members of
    /// the sweep" of a matrix list's values. It names the directions counted and the kind of group.
    #[test]
    fn the_caption_says_what_is_counted_and_what_the_group_is() {
        let (mut runs, g) = sweep();
        let caption = |runs: &[RunData], m| {
            overlay_chart(runs, &g, m)
                .expect("draws")
                .expect("chart")
                .caption
        };
        let members = |group: &str| {
            format!(
                "3 members of the {group}, each a shade of its drive's colour (dark to light in the {group}'s order)"
            )
        };
        assert_eq!(
            caption(&runs, OverlayMetric::IopsLog),
            format!(
                "{}: a point per interval (at its end), reads and writes together; intervals with 0 IOPS hollow on the row labelled 0.",
                members("matrix")
            )
        );
        for p in &mut runs[0].results.phases {
            p.labels[0].sweep = Some("op".into());
        }
        runs[0].results.phases[1].trim = Some(crate::results::DirStats::new(5, 20480, 1.0, None));
        assert_eq!(
            caption(&runs, OverlayMetric::IopsLinear),
            format!(
                "{}: a point per interval (at its end), reads, writes and trims together.",
                members("sweep")
            )
        );
        assert_eq!(
            caption(&runs, OverlayMetric::Bandwidth),
            format!(
                "{}: bytes read, written and trimmed in each interval over its length.",
                members("sweep")
            )
        );
    }

    #[test]
    fn one_chart_has_a_series_per_member_named_after_it() {
        let (runs, g) = sweep();
        let s = overlay_series(&runs, &g, OverlayMetric::IopsLog);
        let got: Vec<(&str, &Points)> = s.iter().map(|m| (m.name.as_str(), &m.points)).collect();
        assert_eq!(
            got,
            vec![
                ("span=100%", &vec![(1.0, 10.0), (2.0, 0.0)]),
                ("span=50%", &vec![(1.0, 30.0), (2.0, 40.0)]),
                ("span=25%", &vec![(1.0, 50.0)]),
            ]
        );
        let tp = overlay_plot(&runs, &g, OverlayMetric::IopsLog).expect("three members");
        let names: Vec<&str> = tp.series.iter().filter_map(|s| s.name.as_deref()).collect();
        assert_eq!(
            names,
            [
                "a on sim:a:",
                "span=100% (2 points)",
                "span=100%: 1 with 0 IOPS, hollow on the \"0\" row",
                "span=50% (2 points)",
                "span=25% (1 points)"
            ]
        );
        // One legend row for the one drive: the drive in its colour, then its members dark to light.
        let legend = tp.legend();
        assert_eq!(legend.len(), 1);
        let swatches: Vec<_> = legend[0].items.iter().map(|i| i.swatch).collect();
        use super::super::Swatch;
        let c = colour(0);
        assert_eq!(
            swatches,
            [
                Swatch::Filled(c),
                Swatch::Filled(shade(c, 0, 3)),
                Swatch::Hollow(shade(c, 0, 3)),
                Swatch::Filled(shade(c, 1, 3)),
                Swatch::Filled(shade(c, 2, 3))
            ]
        );
        // 10..50 IOPS: the decade 10..100, and a 0 row at 1 for the one zero.
        assert_eq!(tp.y.labels(), ["0", "10", "20", "50", "100"]);
        let c = overlay_chart(&runs, &g, OverlayMetric::IopsLog)
            .expect("draws")
            .expect("chart");
        assert_eq!(
            c.title,
            "Total IOPS per interval (log scale), each span — spec · sat[span] · sim:a"
        );
        assert_eq!(c.svg.matches("<circle").count(), 5);
        // No zero in the linear overlay and no 0 row.
        let lin = overlay_plot(&runs, &g, OverlayMetric::IopsLinear).expect("plot");
        // The drive's own row start (no points), then its three members.
        assert_eq!((lin.y.zero_row, lin.series.len()), (None, 4));
        // No member has averages (short, no aggregates): no chart.
        assert!(overlay_plot(&runs, &g, OverlayMetric::Averages).is_none());
    }
}
