//! Ranked bars (`wkrun report RESULTS --against-library`): one chart per headline figure of the first
//! run, a horizontal bar per run that has the figure (the first run and the library's runs of the same
//! spec), best at the top, the first run's bar in its colour and the others grey.
//!
//! [`ranked_figures`] works out what to draw (plain numbers, tested exactly); [`ranked_chart`] draws one.

use super::{Chart, PlotError, colour, linear_ticks, short_number, without_controls};
use crate::report::compare::{TOTAL_IOPS, figure_in, pair_lead, unit_decimals};
use crate::report::runs::RunData;
use crate::results::{Better, PhaseResult};
use crate::spec::PhaseKind;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::fmt::Write as _;

/// One bar: a run and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedBar {
    /// 0 for the run ranked (highlighted), 1 + i for `others[i]`.
    pub run: usize,
    /// The run's name: its label, then its marks (compare's, and why it is not ranked,
    /// [`Unranked::mark`]).
    pub name: String,
    /// How many of `name`'s characters are the label: the rest are its marks, kept whole when the
    /// chart cuts a long name (the private `fit`).
    pub label_chars: usize,
    /// The figure's value.
    pub value: f64,
    /// Why the bar is drawn apart, out of the rank order; empty for a ranked bar.
    pub unranked: Vec<Unranked>,
}

/// Why a run's bar is not ranked ([`RankedFigure::apart`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Unranked {
    /// Its phase did not complete (`completed: false`): its figures cover part of it.
    Incomplete,
    /// It ran with other `--set` overrides than the ranked run (`spec.overrides`), as given: `duration=4s`;
    /// `None` for none (the ranked run had some).
    Overrides(Option<String>),
}

impl Unranked {
    /// The words of the bar's mark: `incomplete`, `--set duration="4s"`, `no --set`.
    fn words(&self) -> String {
        match self {
            Unranked::Incomplete => "incomplete".into(),
            Unranked::Overrides(Some(o)) => format!("--set {o}"),
            Unranked::Overrides(None) => "no --set".into(),
        }
    }

    /// The mark of a bar not ranked for `why`: ` [not ranked: incomplete]`, ` [not ranked: --set
    /// duration="4s"]`, both reasons `; `-separated; empty for none.
    pub fn mark(why: &[Unranked]) -> String {
        match why.is_empty() {
            true => String::new(),
            false => {
                let w: Vec<String> = why.iter().map(Unranked::words).collect();
                format!(" [not ranked: {}]", w.join("; "))
            }
        }
    }

    /// Why `r`'s phase `completed` or not is not ranked beside `this`: incomplete, other overrides.
    fn of(this: &RunData, r: &RunData, completed: bool) -> Vec<Unranked> {
        let mut why = Vec::new();
        if !completed {
            why.push(Unranked::Incomplete);
        }
        let o = &r.results.spec.overrides;
        if *o != this.results.spec.overrides {
            why.push(Unranked::Overrides(
                (!o.is_empty()).then(|| crate::report::compare::overrides_text(o)),
            ));
        }
        why
    }
}

/// One headline figure across runs, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedFigure {
    /// The phase's name.
    pub phase: String,
    /// The figure's key (`phases[].headline[].key`; [`TOTAL_IOPS`] for the phase's IOPS, phase mean where
    /// its headline lacks it).
    pub key: String,
    /// Its label.
    pub label: String,
    /// Its unit.
    pub unit: String,
    /// Which way is better: the order of the bars.
    pub better: Better,
    /// The bars, best first; ties in run order.
    pub bars: Vec<RankedBar>,
    /// The runs not ranked ([`Unranked`]: whose phase did not complete, their figures covering part of it;
    /// made with other `--set` overrides than the ranked run), in run order, named with their mark: drawn
    /// below the ranked bars, out of the rank order.
    pub apart: Vec<RankedBar>,
}

impl RankedFigure {
    /// The ranked run's place, from 1 (the best).
    pub fn rank(&self) -> usize {
        self.bars
            .iter()
            .position(|b| b.run == 0)
            .map_or(0, |i| i + 1)
    }

    /// How many runs are drawn apart for a reason `is` picks.
    fn apart_for(&self, is: impl Fn(&Unranked) -> bool) -> usize {
        self.apart
            .iter()
            .filter(|b| b.unranked.iter().any(&is))
            .count()
    }
}

/// `o`'s phase named `name` but an erase.
fn twin<'a>(o: &'a RunData, name: &str) -> Option<&'a PhaseResult> {
    let mut q = o.results.phases.iter();
    q.find(|q| q.kind != PhaseKind::Erase && q.name == name)
}

/// A figure to rank: its key, label, unit and direction.
struct Ranking<'a> {
    key: &'a str,
    label: &'a str,
    unit: &'a str,
    better: Better,
}

/// The figures of `this` to rank among `others`: per phase of `this` with I/O (in order), each headline
/// figure with a direction and a value, beside every other run's phase of the same name that has a value
/// of the same figure (matched by key); a figure no other run has is left out. A workload whose headline
/// lacks its IOPS, phase mean is ranked on it too where it is the lead figure of the phase beside another
/// run's ([`pair_lead`]: a run too short for the steady window that heads it, trial 26 M2), so that the
/// workload has the bars the composite scores it on. A run made with other `--set` overrides than `this`,
/// or whose phase did not complete, is drawn apart, not ranked ([`Unranked`]).
pub fn ranked_figures(this: &RunData, others: &[&RunData]) -> Vec<RankedFigure> {
    let mut out = Vec::new();
    for p in this
        .results
        .phases
        .iter()
        .filter(|p| p.kind != PhaseKind::Erase)
    {
        for f in &p.headline {
            let Some(better) = f.better.filter(|_| f.value.is_some()) else {
                continue;
            };
            let r = Ranking {
                key: &f.key,
                label: &f.label,
                unit: &f.unit,
                better,
            };
            out.extend(rank_one(this, others, p, &r));
        }
        let on_iops = |o: &&RunData| {
            twin(o, &p.name)
                .and_then(|q| pair_lead(p, q))
                .map(|l| l.key)
                == Some(TOTAL_IOPS.into())
        };
        let headed = p.headline.iter().any(|f| f.key == TOTAL_IOPS);
        if p.kind == PhaseKind::Workload && !headed && others.iter().any(on_iops) {
            let r = Ranking {
                key: TOTAL_IOPS,
                label: "IOPS, phase mean",
                unit: "IOPS",
                better: Better::Higher,
            };
            out.extend(rank_one(this, others, p, &r));
        }
    }
    out
}

/// Figure `f` of `this`'s phase `p` ranked among `others`' phases of its name that have it with a value
/// ([`figure_in`]); `None` when no other run has it.
fn rank_one(
    this: &RunData,
    others: &[&RunData],
    p: &PhaseResult,
    f: &Ranking,
) -> Option<RankedFigure> {
    // Each name marked as compare marks its column ([`crate::report::compare::marks`]).
    let sums: Vec<_> = std::iter::once(this)
        .chain(others.iter().copied())
        .map(|r| crate::report::runs::Summed::of(&r.results))
        .collect();
    let mixed = sums.iter().any(|s| Some(s) != sums.first());
    let (mut bars, mut apart) = (Vec::new(), Vec::new());
    let mut place = |run: usize, r: &RunData, q: &PhaseResult| {
        let Some(value) = figure_in(q, f.key).and_then(|v| v.0) else {
            return;
        };
        let unranked = Unranked::of(this, r, q.completed);
        let name = format!(
            "{}{}{}",
            r.label,
            crate::report::compare::marks(&r.results, mixed),
            Unranked::mark(&unranked)
        );
        let bar = RankedBar {
            run,
            name,
            label_chars: r.label.chars().count(),
            value,
            unranked,
        };
        match bar.unranked.is_empty() {
            true => bars.push(bar),
            false => apart.push(bar),
        }
    };
    place(0, this, p);
    for (i, o) in others.iter().enumerate() {
        if let Some(q) = twin(o, &p.name) {
            place(i + 1, o, q);
        }
    }
    if bars.len() + apart.len() < 2 {
        return None;
    }
    // Stable: equal values stay in run order.
    bars.sort_by(|a, b| match f.better {
        Better::Higher => b.value.total_cmp(&a.value),
        Better::Lower => a.value.total_cmp(&b.value),
    });
    Some(RankedFigure {
        phase: p.name.clone(),
        key: f.key.into(),
        label: f.label.into(),
        unit: f.unit.into(),
        better: f.better,
        bars,
        apart,
    })
}

/// The chart's width, px; its height grows with the number of bars.
const WIDTH: u32 = 960;
/// Height of one bar's row, px.
const ROW: u32 = 26;
/// Room above the bars (title and subtitle) and below them (the value axis), px.
const TOP: u32 = 64;
const BOTTOM: u32 = 40;
/// Where the names end and the bars begin, and where the axis ends, px.
const NAMES_END: i32 = 330;
const BARS_START: i32 = 340;
const BARS_END: i32 = 900;
/// The longest name drawn, in characters (a longer one is cut, with `…`; the page lists the full names).
const NAME_CHARS: usize = 40;
/// The other runs' bars.
const OTHERS: RGBColor = RGBColor(176, 176, 176);
const INK: RGBColor = RGBColor(31, 35, 40);

/// A bar's name in at most `n` characters where its marks leave room: the label cut (ending `…`) so that
/// the marks stay whole (attack 23: `[sum of 2 targets]` was cut off a long path), the label keeping at
/// least 6 characters.
fn fit(b: &RankedBar, n: usize) -> String {
    let marks: String = b.name.chars().skip(b.label_chars).collect();
    let label: String = b.name.chars().take(b.label_chars).collect();
    let room = n.saturating_sub(marks.chars().count()).max(6);
    format!("{}{marks}", cut(&label, room))
}

/// `s` cut to `n` characters, the last one `…` when cut.
fn cut(s: &str, n: usize) -> String {
    match s.chars().count() > n {
        true => s.chars().take(n - 1).chain(['…']).collect(),
        false => s.to_string(),
    }
}

/// `v` with the decimals of its unit, and the unit.
fn value_text(v: f64, unit: &str) -> String {
    format!("{v:.*} {unit}", unit_decimals(unit))
}

/// What the caption says of the runs drawn apart ([`RankedFigure::apart`]), each reason a sentence: ` 1 run
/// whose phase did not complete (its figures cover part of it) is listed below the ranking, not ranked.`;
/// empty when none is.
fn apart_words(f: &RankedFigure) -> String {
    let runs = |k: usize| match k {
        1 => ("1 run".to_string(), "is"),
        k => (format!("{k} runs"), "are"),
    };
    let mut o = String::new();
    let incomplete = f.apart_for(|u| *u == Unranked::Incomplete);
    if incomplete > 0 {
        let (n, be) = runs(incomplete);
        let _ = write!(
            o,
            " {n} whose phase did not complete (its figures cover part of it) {be} listed below the ranking, not ranked."
        );
    }
    let set = f.apart_for(|u| matches!(u, Unranked::Overrides(_)));
    if set > 0 {
        let (n, be) = runs(set);
        let _ = write!(
            o,
            " {n} made with other --set overrides than this run's {be} listed below the ranking, marked with them, not ranked."
        );
    }
    o
}

/// Draws one ranked figure: a row per run, best at the top, `RANK. NAME` left of its bar and the value
/// right of it, the ranked run's bar in the first run's colour and its name in bold.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn ranked_chart(f: &RankedFigure, spec: &str) -> Result<Chart, PlotError> {
    let n = f.bars.len();
    let rows = n + f.apart.len();
    let height = TOP + ROW * rows as u32 + BOTTOM;
    let title = format!("{} · {} · {}", spec, f.phase, f.label);
    let way = match f.better {
        Better::Higher => "higher is better",
        Better::Lower => "lower is better",
    };
    let place = match f.rank() {
        0 => format!("not ranked, its phase did not complete ({n} ranked)"),
        r => format!("rank {r} of {n}"),
    };
    let subtitle = format!(
        "{}: {place} · {way} · best at the top",
        f.bars
            .iter()
            .chain(&f.apart)
            .find(|b| b.run == 0)
            .map_or("", |b| &b.name),
    );
    let top = f
        .bars
        .iter()
        .chain(&f.apart)
        .map(|b| b.value)
        .fold(0.0, f64::max);
    let hi = if top > 0.0 { top * 1.15 } else { 1.0 };
    let x =
        |v: f64| BARS_START + ((v.max(0.0) / hi) * f64::from(BARS_END - BARS_START)).round() as i32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let font = |size: i32| ("sans-serif", size).into_font().color(&INK);
        let bold = ("sans-serif", 13)
            .into_font()
            .style(FontStyle::Bold)
            .color(&INK);
        let at = |h: HPos| Pos::new(h, VPos::Center);
        let draw = || -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
            root.fill(&WHITE)?;
            root.draw(&Text::new(cut(&title, 110), (12, 16), font(17)))?;
            root.draw(&Text::new(cut(&subtitle, 120), (12, 40), font(13)))?;
            let axis_y = (TOP + ROW * rows as u32) as i32 + 4;
            for t in linear_ticks(0.0, hi) {
                let tx = x(t);
                root.draw(&PathElement::new(
                    vec![(tx, TOP as i32 - 4), (tx, axis_y)],
                    RGBColor(230, 230, 230).stroke_width(1),
                ))?;
                let label = font(12).pos(Pos::new(HPos::Center, VPos::Top));
                root.draw(&Text::new(short_number(t), (tx, axis_y + 4), label))?;
            }
            let unit = font(12).pos(Pos::new(HPos::Right, VPos::Top));
            root.draw(&Text::new(f.unit.clone(), (BARS_END, axis_y + 20), unit))?;
            for (i, b) in f.bars.iter().chain(&f.apart).enumerate() {
                let y0 = (TOP + ROW * i as u32) as i32;
                let mid = y0 + ROW as i32 / 2;
                let (fill, name_font) = match b.run {
                    0 => (colour(0), bold.clone()),
                    _ => (OTHERS, font(13)),
                };
                root.draw(&Rectangle::new(
                    [
                        (BARS_START, y0 + 4),
                        (x(b.value).max(BARS_START + 1), y0 + ROW as i32 - 4),
                    ],
                    fill.filled(),
                ))?;
                let name = match i < n {
                    true => format!("{}. {}", i + 1, fit(b, NAME_CHARS)),
                    false => format!("– {}", fit(b, NAME_CHARS)),
                };
                root.draw(&Text::new(
                    name,
                    (NAMES_END, mid),
                    name_font.pos(at(HPos::Right)),
                ))?;
                let v = value_text(b.value, &f.unit);
                root.draw(&Text::new(
                    v,
                    (x(b.value) + 6, mid),
                    font(12).pos(at(HPos::Left)),
                ))?;
            }
            root.present()
        };
        draw().map_err(|e| PlotError {
            what: title.clone(),
            why: e.to_string(),
        })?;
    }
    let this = f.bars.iter().chain(&f.apart).find(|b| b.run == 0);
    let caption = format!(
        "{} of phase {}: {} {} ({}); {way}.{} The grey bars are the other runs of spec {spec} (those given, then the \
library's); their full names are in the table above.",
        f.label,
        f.phase,
        this.map_or("", |b| &b.name),
        match f.rank() {
            0 => "is not ranked, its phase did not complete".to_string(),
            r => format!("ranks {r} of {n}"),
        },
        this.map_or(String::new(), |b| value_text(b.value, &f.unit)),
        apart_words(f),
    );
    Ok(Chart {
        title,
        caption,
        svg: without_controls(svg),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::Figure;

    fn figure(key: &str, value: Option<f64>, better: Option<Better>) -> Figure {
        Figure {
            key: key.into(),
            label: key.to_uppercase(),
            value,
            unit: "IOPS".into(),
            better,
        }
    }

    /// A run labelled `label` whose phase `w` has the figures `avg` (higher is better) and `lat` (lower).
    fn run(label: &str, avg: Option<f64>, lat: f64) -> RunData {
        let mut p = testing::phase("w", 0);
        p.headline = vec![
            figure("avg", avg, Some(Better::Higher)),
            figure("lat", Some(lat), Some(Better::Lower)),
            figure("at", Some(3.0), None),
        ];
        testing::run(label, "sim:a", vec![(p, None)])
    }

    #[test]
    fn figures_are_ranked_best_first_with_ties_in_run_order() {
        let this = run("new", Some(200.0), 80.0);
        let others = [
            run("a", Some(300.0), 90.0),
            run("b", None, 70.0),
            run("c", Some(200.0), 80.0),
            run("d", Some(100.0), 60.0),
        ];
        let r = ranked_figures(&this, &others.iter().collect::<Vec<_>>());
        // `at` has no direction: not ranked.
        assert_eq!(r.len(), 2);
        let got = |k: usize| -> Vec<(usize, &str, f64)> {
            r[k].bars
                .iter()
                .map(|b| (b.run, b.name.as_str(), b.value))
                .collect()
        };
        assert_eq!(
            got(0),
            [
                (1, "a", 300.0),
                (0, "new", 200.0),
                (3, "c", 200.0),
                (4, "d", 100.0)
            ]
        );
        assert_eq!((r[0].key.as_str(), r[0].rank()), ("avg", 2));
        assert_eq!(
            got(1),
            [
                (4, "d", 60.0),
                (2, "b", 70.0),
                (0, "new", 80.0),
                (3, "c", 80.0),
                (1, "a", 90.0)
            ]
        );
        assert_eq!(r[1].rank(), 3);
        // Alone, nothing to rank.
        assert!(ranked_figures(&this, &[]).is_empty());
    }

    /// The bars' names carry compare's marks ([`crate::report::compare::marks`]): an interrupted run's
    /// `[interrupted]`, a sum of two targets beside one target's `[sum of 2 targets]` (trial 22 item 2).
    #[test]
    fn bars_are_marked_as_compare_marks_columns() {
        let this = run("new", Some(200.0), 80.0);
        let mut cut = run("cut", Some(300.0), 90.0);
        cut.results.status = crate::results::Status::Interrupted;
        let mut sum = run("both", Some(250.0), 70.0);
        sum.results.target.path = "a.img + b.img".into();
        sum.results.cluster = Some(crate::results::Cluster {
            hosts: ["a.img", "b.img"]
                .iter()
                .map(|p| testing::cluster_host(p))
                .collect(),
            alignment: String::new(),
        });
        let r = ranked_figures(&this, &[&cut, &sum]);
        let names: Vec<&str> = r[0].bars.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            ["cut [interrupted]", "both [sum of 2 targets]", "new"]
        );
        // The interrupted run's phase did not complete: listed apart, out of the rank order.
        cut.results.phases[0].completed = false;
        let r = ranked_figures(&this, &[&cut, &sum]);
        let names: Vec<&str> = r[0].bars.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["both [sum of 2 targets]", "new"]);
        assert_eq!(r[0].rank(), 2);
        let apart: Vec<(&str, f64)> = r[0]
            .apart
            .iter()
            .map(|b| (b.name.as_str(), b.value))
            .collect();
        assert_eq!(
            apart,
            [("cut [interrupted] [not ranked: incomplete]", 300.0)]
        );
        let c = ranked_chart(&r[0], "lib").expect("drawn");
        assert!(c.svg.contains("new: rank 2 of 2"), "{}", c.svg);
        assert!(
            c.caption.contains("new ranks 2 of 2 (200.0 IOPS)"),
            "{}",
            c.caption
        );
        assert!(c.caption.contains("1 run whose phase did not complete (its figures cover part of it) is listed below the ranking, not ranked."), "{}", c.caption);
    }

    /// Trial 26 M2, L7: a workload whose lead figure (`avg`) another run lacks is ranked on its IOPS, phase
    /// mean too, the figure the composite scores the pair on; a run made with other `--set` overrides is
    /// drawn apart, marked with them, not ranked, and the caption says so; beside a run with overrides, one
    /// without is marked `no --set`.
    #[test]
    fn runs_of_other_overrides_stand_apart_and_a_lead_others_lack_ranks_the_iops() {
        let iops = |mut r: RunData, n: u64| {
            let p = &mut r.results.phases[0];
            p.write = crate::results::DirStats::new(n, n * 4096, 1.0, None);
            p.total = crate::results::DirStats::new(n, n * 4096, 1.0, None);
            r
        };
        let this = iops(run("new", Some(200.0), 80.0), 1000);
        let short = iops(run("short", None, 70.0), 1500);
        let mut set = iops(run("set", Some(300.0), 60.0), 500);
        set.results.spec.overrides = vec!["duration=\"4s\"".into()];
        let r = ranked_figures(&this, &[&short, &set]);
        type Named = Vec<(String, f64)>;
        let got = |f: &RankedFigure| -> (Named, Named) {
            let each = |b: &[RankedBar]| b.iter().map(|b| (b.name.clone(), b.value)).collect();
            (each(&f.bars), each(&f.apart))
        };
        let keys: Vec<&str> = r.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, ["avg", "lat", "mean iops"]);
        let set_mark = |v: f64| vec![("set [not ranked: --set duration=\"4s\"]".to_string(), v)];
        assert_eq!(got(&r[0]), (vec![("new".into(), 200.0)], set_mark(300.0)));
        assert_eq!(
            got(&r[2]),
            (
                vec![("short".into(), 1500.0), ("new".into(), 1000.0)],
                set_mark(500.0)
            )
        );
        assert_eq!(
            (r[2].label.as_str(), r[2].unit.as_str(), r[2].rank()),
            ("IOPS, phase mean", "IOPS", 2)
        );
        let c = ranked_chart(&r[2], "lib").expect("drawn");
        assert!(c.caption.ends_with("new ranks 2 of 2 (1000.0 IOPS); higher is better. 1 run made with other --set overrides than this run's is listed below the ranking, marked with them, not ranked. The grey bars are the other runs of spec lib (those given, then the library's); their full names are in the table above."), "{}", c.caption);
        // Ranked among runs without overrides, the run with some sets them apart; both reasons are said.
        let mut cut = iops(run("cut", Some(100.0), 90.0), 100);
        cut.results.phases[0].completed = false;
        let r = ranked_figures(&set, &[&this, &cut]);
        assert_eq!(
            got(&r[0]),
            (
                vec![("set".into(), 300.0)],
                vec![
                    ("new [not ranked: no --set]".into(), 200.0),
                    ("cut [not ranked: incomplete; no --set]".into(), 100.0)
                ]
            )
        );
    }

    /// A long label is cut before its marks, which the chart draws whole (attack 23: a two-target sum named
    /// by its paths lost `[sum of 2 targets]` to the cut): 40 characters in all, the label's last `…`.
    #[test]
    fn a_long_name_is_cut_before_its_marks() {
        let this = run("new", Some(200.0), 80.0);
        let long = "/work/attack23/lib/qb.img + /work/attack23/lib/qc.img";
        let mut sum = run(long, Some(250.0), 70.0);
        sum.results.target.path = "qb.img + qc.img".into();
        sum.results.cluster = Some(crate::results::Cluster {
            hosts: ["qb.img", "qc.img"]
                .iter()
                .map(|p| testing::cluster_host(p))
                .collect(),
            alignment: String::new(),
        });
        let r = ranked_figures(&this, &[&sum]);
        let drawn = fit(&r[0].bars[0], NAME_CHARS);
        assert_eq!(drawn, "/work/attack23/lib/q… [sum of 2 targets]");
        assert_eq!(drawn.chars().count(), NAME_CHARS);
        let c = ranked_chart(&r[0], "lib").expect("drawn");
        assert!(
            c.svg
                .contains("1. /work/attack23/lib/q… [sum of 2 targets]"),
            "{}",
            c.svg
        );
        // A short name is drawn as it is.
        assert_eq!(fit(&r[0].bars[1], NAME_CHARS), "new");
    }

    /// One bar per run, the ranked run's alone in its colour, the rest grey; its rank in the subtitle.
    #[test]
    fn the_chart_highlights_one_bar() {
        let this = run("new", Some(200.0), 80.0);
        let others: Vec<RunData> = (0..19)
            .map(|i| {
                run(
                    &format!("drive {i}"),
                    Some(100.0 + 10.0 * f64::from(i)),
                    50.0,
                )
            })
            .collect();
        let r = ranked_figures(&this, &others.iter().collect::<Vec<_>>());
        let c = ranked_chart(&r[0], "lib").expect("drawn");
        let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert_eq!(c.svg.matches(&fill(colour(0))).count(), 1, "{}", c.svg);
        assert_eq!(c.svg.matches(&fill(OTHERS)).count(), 19);
        // Eight runs above 200 (210 to 280); drive 10's 200 ties and comes after the ranked run.
        assert_eq!(r[0].rank(), 9);
        assert!(c.svg.contains("new: rank 9 of 20"), "{}", c.svg);
        assert!(c.svg.contains("9. new"));
        assert!(
            c.caption.contains("new ranks 9 of 20 (200.0 IOPS)"),
            "{}",
            c.caption
        );
        roxmltree::Document::parse(&c.svg).expect("well-formed SVG");
    }
}
