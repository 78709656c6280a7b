//! A battery of workloads across drives or sweep members as grouped bars (seed 004's fresh, simulated-used
//! and used drive side by side): a group per workload, in it a bar per column, where a column is a sweep's
//! member in a run (anthology's `filled=25%` and `filled=100%`), or a run when the composite of `wkrun
//! compare` scores two or more workloads (every workload it scores, sweep and matrix members too, paired as
//! it pairs them). Each bar is the workload's lead figure against the first column's, as the composite of
//! `wkrun compare` takes it ([`crate::report::compare::pair_lead`]: the first headline level both phases
//! have, positive, else total IOPS; inverted where lower is better), in percent: 100 % is par, a taller bar is better,
//! whatever the mix of IOPS, bandwidths and latencies. A drive keeps its colour; its members are shades of
//! it, dark to light in the sweep's order.

use super::canvas::{text_width, title_height, title_lines, xml};
use super::palette::shade;
use super::sweep::{Slots, category_label};
use super::{
    Axis, Body, Chart, FONT, LegendEntry, Plane, PlotError, SIZE, Swatch, colour, plot_on, render,
    subject, why,
};
use crate::report::compare::{self, Lead, pair_lead};
use crate::report::members;
use crate::report::runs::{RunData, label_groups};
use crate::results::PhaseResult;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A column of a battery: a run, or a sweep's member in a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The run.
    pub run: usize,
    /// The member: its place among the sweep's values, and its name (`filled=25%`); `None` for a run.
    pub member: Option<(usize, String)>,
}

/// A bar of a battery ([`Battery::pairs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The workload (the group).
    pub workload: usize,
    /// The column.
    pub column: usize,
    /// The phases set side by side, `(run, index in its results)`: the first column's, then the bar's.
    pub phases: [(usize, usize); 2],
    /// Their lead figure.
    pub lead: Lead,
}

/// A battery: workloads (the groups) by columns (the bars of each group).
#[derive(Debug, Clone, PartialEq)]
pub struct Battery {
    /// The sweep compared (`filled`), or `None` for runs compared.
    pub sweep: Option<String>,
    /// How many values the sweep has (the shades of a drive's colour).
    pub members: usize,
    /// The workloads, by name (without the sweep's label).
    pub workloads: Vec<String>,
    /// The columns, run by run.
    pub columns: Vec<Column>,
    /// `phases[w][c]`: workload `w`'s phase in column `c`, by its index in the run's results.
    pub phases: Vec<Vec<Option<usize>>>,
}

impl Battery {
    /// Each bar, `(workload, column, percent of the first column's)`: the ratio of the lead figures
    /// ([`Lead::ratio`]) against the first column that has the workload; none where the column lacks the
    /// workload or shares no lead figure with that one.
    pub fn bars(&self, runs: &[RunData]) -> Vec<(usize, usize, f64)> {
        self.pairs(runs)
            .into_iter()
            .map(|b| (b.workload, b.column, b.lead.ratio() * 100.0))
            .collect()
    }

    /// What each bar sets side by side, in the bars' order ([`Self::bars`]): the workload's phase in the
    /// first column that has it and in the bar's column, and their lead figure ([`pair_lead`]), which the
    /// report's headline tables show.
    pub fn pairs(&self, runs: &[RunData]) -> Vec<Bar> {
        let phase =
            |c: usize, p: usize| -> &PhaseResult { &runs[self.columns[c].run].results.phases[p] };
        let mut out = Vec::new();
        for (w, row) in self.phases.iter().enumerate() {
            let Some((c0, p0)) = row.iter().enumerate().find_map(|(c, p)| p.map(|p| (c, p))) else {
                continue;
            };
            for (c, p) in row.iter().enumerate() {
                let Some(p) = *p else { continue };
                if let Some(lead) = pair_lead(phase(c0, p0), phase(c, p)) {
                    out.push(Bar {
                        workload: w,
                        column: c,
                        phases: [(self.columns[c0].run, p0), (self.columns[c].run, p)],
                        lead,
                    });
                }
            }
        }
        out
    }

    /// The colour of column `c`: its drive's, shaded by its member.
    fn colour(&self, c: usize) -> RGBColor {
        let col = &self.columns[c];
        match &col.member {
            Some((k, _)) => shade(colour(col.run), *k, self.members),
            None => colour(col.run),
        }
    }
}

/// The batteries of a report: one per sweep (one label key) over at least two workloads, its members in
/// each run as columns; and, for at least two runs, one over the workloads the composite of `wkrun compare`
/// scores, when there are two or more (`across_runs`).
pub fn batteries(runs: &[RunData]) -> Vec<Battery> {
    let mut keys: Vec<String> = Vec::new();
    for g in label_groups(runs) {
        if g.keys.len() == 1 && !keys.contains(&g.keys[0]) {
            keys.push(g.keys[0].clone());
        }
    }
    let mut out: Vec<Battery> = keys.iter().filter_map(|k| of_sweep(runs, k)).collect();
    out.extend(across_runs(runs));
    out
}

/// The value of the label `key` of phase `p`, when it is a workload with that one label: a member of a
/// sweep's battery ([`of_sweep`]).
fn member_of<'a>(p: &'a PhaseResult, key: &str) -> Option<&'a str> {
    (p.labels.len() == 1 && compare::is_workload(p))
        .then(|| members::value_of(p, key))
        .flatten()
}

/// The battery of the sweep (or matrix list) `key` over two or more workloads, `None` otherwise. What is a
/// workload and what is a member is read as `wkrun compare --by KEY` reads it (trial 28 M3): a phase with
/// the label `key` ([`members::value_of`]), a workload as the composite scores one
/// ([`compare::is_workload`]: no fill, restore or erase), paired across members by its name without the
/// label ([`members::pair_name`]). A fio job named `fill[filled=25%]` has no label (fio's JSON has none):
/// no member, as `compare --by filled` refuses it; wkrun's own fill phases are no workload.
fn of_sweep(runs: &[RunData], key: &str) -> Option<Battery> {
    let member = |p| member_of(p, key);
    let (mut workloads, mut values): (Vec<String>, Vec<&str>) = (Vec::new(), Vec::new());
    for p in runs.iter().flat_map(|r| &r.results.phases) {
        let Some(v) = member(p) else { continue };
        let name = members::pair_name(p, key);
        if !workloads.contains(&name) {
            workloads.push(name);
        }
        if !values.contains(&v) {
            values.push(v);
        }
    }
    if workloads.len() < 2 {
        return None;
    }
    let mut b = Battery {
        sweep: Some(key.to_string()),
        members: values.len(),
        phases: vec![Vec::new(); workloads.len()],
        workloads,
        columns: Vec::new(),
    };
    for (run, r) in runs.iter().enumerate() {
        for (k, v) in values.iter().enumerate() {
            let at = |w: &String| {
                (r.results.phases.iter())
                    .position(|p| member(p) == Some(v) && members::pair_name(p, key) == *w)
            };
            let found: Vec<Option<usize>> = b.workloads.iter().map(at).collect();
            if found.iter().all(Option::is_none) {
                continue;
            }
            b.columns.push(Column {
                run,
                member: Some((k, format!("{key}={v}"))),
            });
            for (w, p) in found.into_iter().enumerate() {
                b.phases[w].push(p);
            }
        }
    }
    Some(b)
}

/// The most workloads a battery of runs is charted for: past it (two runs of a PTS trial: hundreds of
/// round phases) the groups would be too narrow to read, and [`undrawn`] stands in for the chart.
pub const MOST_WORKLOADS: usize = 24;

/// The line that stands in for battery `b` of `runs` where it is not drawn: a battery of runs over more
/// than [`MOST_WORKLOADS`] workloads, saying how many it has in all and how many each later run's
/// composite scores ([`compare::Score::over`], as the headline tables say it: trial 28 L1, a run
/// interrupted after 8 of 25 was said to be scored over 25). `None` for a battery that is drawn.
pub fn undrawn(runs: &[RunData], b: &Battery) -> Option<String> {
    if b.sweep.is_some() || b.workloads.len() <= MOST_WORKLOADS {
        return None;
    }
    let results: Vec<&crate::results::Results> = runs.iter().map(|r| &r.results).collect();
    let ran = runs.iter().map(|r| (&r.results, r.file.as_path()));
    let stopped = crate::report::not_run::stopped_in_names(ran);
    let each: Vec<String> = compare::scores(&results, &stopped)
        .iter()
        .zip(runs)
        .skip(1)
        .map(|(s, r)| format!("{} over {}", r.label, s.over()))
        .collect();
    Some(format!(
        "The composite scores {} workloads in all ({}), too many to chart (at most {MOST_WORKLOADS}): the headline tables above list them.",
        b.workloads.len(),
        each.join("; ")
    ))
}

/// The battery of the workloads `wkrun compare`'s composite scores (two or more), a column per run: the
/// first run's workload phases each paired with a later run's as the composite pairs them
/// (`compare::twins`, one rule, so the bars of a later run are the ratios its composite averages), in the
/// first run's order; `None` otherwise. A fill is no workload there, nor fio's fill job beside wkrun's fill
/// phase (the chart paired them, the composite did not). A matrix's or a sweep's members are workloads
/// like any other, each paired by its name (trial 27 M4: `lat[qd=1]`, `lat[qd=4]`, `lat[qd=16]` were
/// scored and not drawn).
fn across_runs(runs: &[RunData]) -> Option<Battery> {
    let (first, rest) = runs.split_first()?;
    let at =
        |r: &RunData, p: &PhaseResult| r.results.phases.iter().position(|q| std::ptr::eq(q, p));
    // (the first run's phase, its twin in each run) for each workload scored in a later run.
    let mut rows: Vec<(usize, Vec<Option<usize>>)> = Vec::new();
    for (c, r) in rest.iter().enumerate() {
        let pairs = crate::report::compare::twins(&first.results, &r.results);
        for (b, p) in pairs {
            let (Some(i), Some(j)) = (at(first, b), at(r, p)) else {
                continue;
            };
            let w = match rows.iter().position(|(k, _)| *k == i) {
                Some(w) => w,
                None => {
                    let mut row = vec![None; runs.len()];
                    row[0] = Some(i);
                    rows.push((i, row));
                    rows.len() - 1
                }
            };
            rows[w].1[c + 1] = Some(j);
        }
    }
    if rows.len() < 2 {
        return None;
    }
    rows.sort_by_key(|(i, _)| *i);
    Some(Battery {
        sweep: None,
        members: 1,
        workloads: rows
            .iter()
            .map(|(i, _)| first.results.phases[*i].name.clone())
            .collect(),
        columns: (0..runs.len())
            .map(|run| Column { run, member: None })
            .collect(),
        phases: rows.into_iter().map(|(_, row)| row).collect(),
    })
}

/// The legend: a row per drive, its members' shades after it.
fn legend(runs: &[RunData], b: &Battery) -> Vec<LegendEntry> {
    let mut rows: Vec<LegendEntry> = Vec::new();
    for (c, col) in b.columns.iter().enumerate() {
        let run = &runs[col.run];
        let (text, swatch) = match &col.member {
            Some((_, name)) => (name.clone(), Swatch::Filled(b.colour(c))),
            None => (run.legend(), Swatch::Filled(colour(col.run))),
        };
        match rows.last_mut() {
            Some(e) if e.run.as_ref().is_some_and(|r| r.0 == col.run) => e.push(text, swatch),
            _ => {
                let mut e =
                    LegendEntry::drive(col.run, &run.label, "", Swatch::Filled(colour(col.run)))
                        .with_note(super::predicted::legend_note(run));
                match col.member {
                    Some(_) => {
                        e.items[0].text = format!("{}:", run.legend());
                        e.push(text, swatch);
                    }
                    None => e.items[0].text = text,
                }
                rows.push(e);
            }
        }
    }
    rows
}

/// How a battery's values are written by its bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Values {
    /// Level above each bar, where a bar is wide enough.
    Level,
    /// Upwards above each bar, where a bar is too narrow for its value level (trial 28 M4: 12 workloads).
    Upright,
}

/// The bars to draw.
struct Bars<'a> {
    b: &'a Battery,
    bars: &'a [(usize, usize, f64)],
    slots: Slots,
    values: Values,
    /// Each bar's rectangle as drawn, `(left, top, right, bottom)` px in the plot: where its `<title>` goes.
    drawn: std::cell::RefCell<Vec<(i32, i32, i32, i32)>>,
}

impl Body for Bars<'_> {
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let half = self.slots.width * 0.42;
        let n = self.b.workloads.len() as f64;
        chart
            .draw_series([PathElement::new(
                vec![(-0.5, 100.0), (n - 0.5, 100.0)],
                RGBColor(87, 96, 106).stroke_width(1),
            )])
            .map_err(why)?;
        for &(w, c, pct) in self.bars {
            let x = self.slots.x(c, w);
            let (a, b) = (
                chart.backend_coord(&(x - half, pct)),
                chart.backend_coord(&(x + half, 0.0)),
            );
            self.drawn.borrow_mut().push((a.0, a.1, b.0, b.1));
            chart
                .draw_series([Rectangle::new(
                    [(x - half, 0.0), (x + half, pct)],
                    self.b.colour(c).filled(),
                )])
                .map_err(why)?;
        }
        let (font, ink) = ((FONT, 11).into_font(), RGBColor(31, 35, 40));
        let (style, shift) = match self.values {
            Values::Level => (
                font.color(&ink).pos(Pos::new(HPos::Center, VPos::Bottom)),
                (0, -3),
            ),
            Values::Upright => (
                font.transform(FontTransform::Rotate270)
                    .color(&ink)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
                (0, -4),
            ),
        };
        chart
            .draw_series(self.bars.iter().map(|&(w, c, pct)| {
                EmptyElement::at((self.slots.x(c, w), pct))
                    + Text::new(format!("{pct:.1} %"), shift, style.clone())
            }))
            .map_err(why)?;
        Ok(())
    }
}

/// The x axis's words for workload `w` of `b`: its name where every name fits its group (`room` px), else
/// its number from 1, the legend's key rows naming each ([`key_rows`]).
fn tick_names(b: &Battery, room: f64) -> (Vec<String>, bool) {
    let fit = b.workloads.iter().all(|w| text_width(w, TICK_PX) <= room);
    let names = match fit {
        true => b.workloads.clone(),
        false => (1..=b.workloads.len()).map(|i| i.to_string()).collect(),
    };
    (names, !fit)
}

/// Size of the x axis's words, px (plotters' label font of every plot).
const TICK_PX: f64 = 10.5;

/// The legend's key to numbered workloads: a row per workload, `3 4k-random-read-qd32`, in a pale grey
/// square (no drive's colour).
fn key_rows(b: &Battery) -> Vec<LegendEntry> {
    b.workloads
        .iter()
        .enumerate()
        .map(|(i, w)| LegendEntry::new(format!("{} {w}", i + 1), Swatch::Band(KEY_GREY)))
        .collect()
}

/// The grey of the line at 100 % and of the key rows' squares.
const KEY_GREY: RGBColor = RGBColor(87, 96, 106);

/// What bar `bar` of `b` is, for its `<title>`: `3 4k-random-read-qd32, filled=100% on d: 92.3 % (IOPS,
/// phase mean: 18882.3 against 20450.1 IOPS)`; its number only where the axis numbers the workloads.
fn bar_title(runs: &[RunData], b: &Battery, bar: &Bar, numbered: bool) -> String {
    let col = &b.columns[bar.column];
    let column = match &col.member {
        Some((_, m)) => format!("{m} on {}", runs[col.run].label),
        None => runs[col.run].label.clone(),
    };
    let number = match numbered {
        true => format!("{} ", bar.workload + 1),
        false => String::new(),
    };
    let l = &bar.lead;
    format!(
        "{number}{}, {column}: {:.1} % ({}: {:.1} against {:.1} {})",
        b.workloads[bar.workload],
        l.ratio() * 100.0,
        l.label,
        l.values.1,
        l.values.0,
        l.unit
    )
}

/// `svg` (a chart [`render`] made, its plot `top` px below its top) with a `<title>` over each bar
/// (`drawn`, in the plot's pixels), which a browser shows as the bar's tooltip: plotters draws no titles.
fn with_bar_titles(
    mut svg: String,
    top: u32,
    drawn: &[(i32, i32, i32, i32)],
    titles: &[String],
) -> String {
    let end = svg.rfind("</svg>").unwrap_or(svg.len());
    let mut o = format!("<g class=\"bars\" transform=\"translate(0,{top})\">\n");
    for (&(l, t, r, bo), title) in drawn.iter().zip(titles) {
        o.push_str(&format!(
            "<g class=\"bar\"><title>{}</title><rect x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" fill=\"#000000\" fill-opacity=\"0\"/></g>\n",
            xml(title),
            (r - l).max(1),
            (bo - t).max(1)
        ));
    }
    o.push_str("</g>\n");
    svg.insert_str(end, &o);
    svg
}

/// The battery `b` as grouped bars: per workload, each column's lead figure in percent of the first
/// column's, a line at 100 %, each bar's value above it (upwards where the bar is narrow) and its whole
/// description in its `<title>`; the workloads named under their groups, or numbered there where a name
/// would not fit, the legend's key rows naming them (trial 28 M4: 12 names all cut to `4k-rando…`).
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn battery_chart(runs: &[RunData], b: &Battery) -> Result<Chart, PlotError> {
    let pairs = b.pairs(runs);
    let bars: Vec<(usize, usize, f64)> = pairs
        .iter()
        .map(|p| (p.workload, p.column, p.lead.ratio() * 100.0))
        .collect();
    let first = &b.columns[0];
    let base = match &first.member {
        Some((_, name)) => format!("{name} on {}", runs[first.run].label),
        None => runs[first.run].label.clone(),
    };
    // The runs with a column: a run without the sweep's members (fio's JSON beside wkrun's run) is not named.
    let mut runs_in: Vec<usize> = b.columns.iter().map(|c| c.run).collect();
    runs_in.dedup();
    let what = format!("{} workloads", b.workloads.len());
    let title = format!(
        "Each workload against {base}, lead figure (%) — {}",
        subject(runs, &runs_in, &what)
    );
    let n = b.workloads.len();
    let slots = Slots::new(b.columns.len());
    let group_px = f64::from(SIZE.0 - 110) / n as f64;
    let values = match slots.width * group_px * 0.84 >= text_width("100.0 %", 11.0) {
        true => Values::Level,
        false => Values::Upright,
    };
    // Room above the highest bar for its value, written upwards.
    let room = match values {
        Values::Level => 1.12,
        Values::Upright => 1.3,
    };
    let top = bars.iter().map(|v| v.2).fold(100.0, f64::max) * room;
    let x = Axis::categories(n);
    let y = Axis::linear(0.0, top);
    let body = Bars {
        b,
        bars: &bars,
        slots,
        values,
        drawn: std::cell::RefCell::new(Vec::new()),
    };
    let (names, numbered) = tick_names(b, group_px - 8.0);
    let x_desc = match (&b.sweep, numbered) {
        (Some(s), false) => format!("workload (each run across {s})"),
        (Some(s), true) => format!("workload, numbered as in the key below (each run across {s})"),
        (None, false) => "workload".to_string(),
        (None, true) => "workload, numbered as in the key below".to_string(),
    };
    let y_desc = format!("lead figure, % of {base} (higher is better)");
    let mut legend = legend(runs, b);
    if numbered {
        legend.extend(key_rows(b));
    }
    let svg = render(&title, &legend, |root| {
        let x_ticks = |v: &f64| category_label(&names, *v);
        plot_on(root, (&x, &y), (&x_desc, &y_desc), &x_ticks, false, &body)
    })?;
    let titles: Vec<String> = pairs
        .iter()
        .map(|p| bar_title(runs, b, p, numbered))
        .collect();
    let plot_top = title_height(title_lines(&title).len());
    let svg = with_bar_titles(svg, plot_top, &body.drawn.borrow(), &titles);
    Ok(Chart {
        caption: format!(
            "Each workload's lead figure (its first headline level both have, else its IOPS, phase mean; inverted where lower is better, so a taller bar is better) in percent of {base}'s, the ratio the composite of wkrun compare averages, written above its bar; the line is 100 %. One colour per drive{}.{}",
            match b.sweep {
                Some(_) => ", its sweep's members in shades of it, dark to light",
                None => "",
            },
            match numbered {
                true =>
                    " The workloads are numbered under their bars, too many for their names: the key below the chart names them. A bar's tooltip names its workload, its column and the figures set side by side.",
                false =>
                    " A bar's tooltip names its workload, its column and the figures set side by side.",
            }
        ),
        svg,
        title,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::testing::{labelled, phase, run};
    use crate::results::{Better, DirStats, Figure};
    use crate::spec::PhaseKind;

    /// A workload `name` of `iops` writes over 1 s, in the sweep `filled` at `v` when given; its headline a
    /// mean latency of `lat_us` when given (lower is better).
    fn w(name: &str, i: usize, v: Option<&str>, iops: u64, lat_us: Option<f64>) -> PhaseResult {
        let mut p = match v {
            Some(v) => {
                let mut p = labelled(&format!("{name}[filled={v}]"), i, &[("span", v)]);
                p.labels[0].sweep = Some("filled".into());
                p
            }
            None => phase(name, i),
        };
        p.write = DirStats::new(iops, iops * 4096, 1.0, None);
        if let Some(us) = lat_us {
            p.headline = vec![Figure {
                key: "mean lat_mean_us".into(),
                label: "mean latency".into(),
                value: Some(us),
                unit: "µs".into(),
                better: Some(Better::Lower),
            }];
        }
        p
    }

    #[test]
    fn a_sweep_over_workloads_is_a_battery_of_its_members() {
        let r = run(
            "sim",
            "sim:a",
            vec![
                (w("read", 1, Some("25%"), 1000, None), None),
                (w("write", 2, Some("25%"), 400, Some(50.0)), None),
                (w("read", 3, Some("100%"), 900, None), None),
                (w("write", 4, Some("100%"), 100, Some(200.0)), None),
            ],
        );
        let runs = [r];
        let b = batteries(&runs);
        assert_eq!(b.len(), 1);
        let b = &b[0];
        assert_eq!(b.workloads, ["read", "write"]);
        assert_eq!(
            b.columns,
            [
                Column {
                    run: 0,
                    member: Some((0, "filled=25%".into()))
                },
                Column {
                    run: 0,
                    member: Some((1, "filled=100%".into()))
                }
            ]
        );
        // IOPS 900 of 1000: 90 %; latency 200 µs against 50: a quarter (lower is better).
        let bars = b.bars(&runs);
        assert_eq!(bars.len(), 4);
        assert_eq!((bars[0], bars[2]), ((0, 0, 100.0), (1, 0, 100.0)));
        assert!((bars[1].2 - 90.0).abs() < 1e-9, "{bars:?}");
        assert!((bars[3].2 - 25.0).abs() < 1e-9, "{bars:?}");
        let c = battery_chart(&runs, b).expect("draws");
        assert_eq!(
            c.title,
            "Each workload against filled=25% on sim, lead figure (%) — spec · 2 workloads · sim:a"
        );
        for t in ["90.0 %", "25.0 %", "read", "write"] {
            assert!(c.svg.contains(&format!(">\n{t}\n<")), "{t}");
        }
        // The drive's row: the drive, then its members dark to light.
        let l = legend(&runs, b);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].text(), "sim on sim:a: · filled=25% · filled=100%");
        assert_eq!(l[0].items[1].swatch, Swatch::Filled(shade(colour(0), 0, 2)));
    }

    /// Trial 28 M3: fio's JSON of the exported anthology beside wkrun's run. fio's jobs are named
    /// `read[filled=25%]` but carry no labels, and its `fill[filled=25%]` job is a workload to fio; wkrun's
    /// fills are of kind fill. `battery-filled` charted "fill" as a workload and fio's jobs as members,
    /// where `compare --by filled` refuses fio's JSON and leaves fills out. The battery reads members and
    /// workloads as `compare --by` does: wkrun's workloads, wkrun's columns.
    #[test]
    fn a_sweep_battery_takes_members_and_workloads_as_compare_by_does() {
        let unlabelled = |name: &str, i: usize, iops: u64| {
            let mut p = phase(name, i);
            p.write = DirStats::new(iops, iops * 4096, 1.0, None);
            (p, None)
        };
        let fio = run(
            "fio",
            "f.img",
            vec![
                unlabelled("fill[filled=25%]", 0, 90),
                unlabelled("read[filled=25%]", 1, 1000),
                unlabelled("write[filled=25%]", 2, 400),
                unlabelled("fill[filled=100%]", 3, 80),
                unlabelled("read[filled=100%]", 4, 900),
                unlabelled("write[filled=100%]", 5, 100),
            ],
        );
        let fill = |i: usize, v: &str| {
            let mut p = w("fill", i, Some(v), 100, None);
            p.kind = PhaseKind::Fill;
            (p, None)
        };
        let wk = run(
            "wkrun",
            "sim:b",
            vec![
                fill(0, "25%"),
                (w("read", 1, Some("25%"), 800, None), None),
                (w("write", 2, Some("25%"), 200, None), None),
                fill(3, "100%"),
                (w("read", 4, Some("100%"), 400, None), None),
                (w("write", 5, Some("100%"), 150, None), None),
            ],
        );
        let runs = [fio, wk];
        let got = batteries(&runs);
        let sweep: Vec<&Battery> = got.iter().filter(|b| b.sweep.is_some()).collect();
        assert_eq!(sweep.len(), 1);
        let b = sweep[0];
        assert_eq!(b.workloads, ["read", "write"]);
        let cols: Vec<(usize, &str)> = (b.columns.iter())
            .map(|c| (c.run, c.member.as_ref().map_or("", |m| m.1.as_str())))
            .collect();
        assert_eq!(cols, [(1, "filled=25%"), (1, "filled=100%")]);
        assert_eq!(b.phases, [[Some(1), Some(4)], [Some(2), Some(5)]]);
        let bars: Vec<f64> = b.bars(&runs).iter().map(|x| x.2).collect();
        assert_eq!(bars, [100.0, 50.0, 100.0, 75.0]);
        // `compare --by filled` on wkrun's run: the same two workloads, its composite over them.
        let one = [crate::report::compare::Run {
            file: "wkrun/results.json".into(),
            results: runs[1].results.clone(),
        }];
        let c = crate::report::members::compare_by(&one, "filled").expect("compares");
        let composite = (c.rows.iter())
            .find(|r| r.metric == crate::report::compare::Metric::Composite)
            .expect("composite");
        let crate::report::compare::Cell::Number { value, .. } = composite.cells[1] else {
            panic!("{composite:?}")
        };
        // The geometric mean of the bars of filled=100%: 50 % and 75 %.
        assert_eq!(
            (value * 1e9).round(),
            ((0.5f64 * 0.75).sqrt() * 1e9).round()
        );
        let fio_one = [crate::report::compare::Run {
            file: "fio/results.json".into(),
            results: runs[0].results.clone(),
        }];
        assert_eq!(
            crate::report::members::compare_by(&fio_one, "filled").map(|_| ()),
            Err(
                "--by filled: no phase of fio/results.json has a label filled (its labels: none)"
                    .into()
            )
        );
    }

    #[test]
    fn runs_sharing_workloads_are_a_battery_of_runs() {
        let a = run(
            "fresh",
            "sim:a",
            vec![
                (w("r", 0, None, 1000, None), None),
                (w("q", 1, None, 50, None), None),
            ],
        );
        let b = run(
            "used",
            "sim:b",
            vec![
                (w("q", 0, None, 40, None), None),
                (w("r", 1, None, 800, None), None),
            ],
        );
        let runs = [a, b];
        let got = batteries(&runs);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].workloads, ["r", "q"]);
        assert_eq!(got[0].phases, [[Some(0), Some(1)], [Some(1), Some(0)]]);
        let bars = got[0].bars(&runs);
        assert!((bars[1].2 - 80.0).abs() < 1e-9 && (bars[3].2 - 80.0).abs() < 1e-9);
        assert_eq!(legend(&runs, &got[0]).len(), 2);
        // One run without a sweep: nothing to compare.
        assert!(batteries(&runs[..1]).is_empty());
    }

    /// Lead 27: fio's fill job (a workload to fio) beside wkrun's fill phase is not a bar, as the composite
    /// does not score it; nor is a workload the first run lacks. The bars are the composite's pairs.
    #[test]
    fn the_bars_of_runs_are_the_workloads_the_composite_scores() {
        let fio = run(
            "fio",
            "f.img",
            vec![
                (w("fill", 0, None, 90, None), None),
                (w("r", 1, None, 1000, None), None),
                (w("q", 2, None, 50, None), None),
            ],
        );
        let mut fill = w("fill", 0, None, 100, None);
        fill.kind = PhaseKind::Fill;
        let b = run(
            "wkrun",
            "sim:b",
            vec![
                (fill, None),
                (w("extra", 1, None, 7, None), None),
                (w("q", 2, None, 40, None), None),
                (w("r", 3, None, 800, None), None),
            ],
        );
        let runs = [fio, b];
        let got = batteries(&runs);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].workloads, ["r", "q"]);
        assert_eq!(got[0].phases, [[Some(1), Some(3)], [Some(2), Some(2)]]);
        let bars: Vec<f64> = got[0].bars(&runs).iter().map(|b| b.2).collect();
        assert_eq!(bars, [100.0, 80.0, 100.0, 80.0]);
        let ratios = crate::report::compare::composite(&[&runs[0].results, &runs[1].results]);
        assert_eq!(ratios[1].map(|s| (s * 1e9).round()), Some(0.8e9));
    }

    /// Trial 27 M4: `report r1 r3` drew 4 bars where the composite scored 7 workloads, leaving out the
    /// matrix's members `lat[qd=1]` … . Now every workload the composite scores is a bar, a matrix's and a
    /// sweep's members too (a sweep over one workload has no battery of its own), and the bars' geometric
    /// mean is the composite.
    #[test]
    fn matrix_and_sweep_members_are_bars_as_the_composite_scores_them() {
        let member = |name: &str, i: usize, key: &str, v: &str, sweep: bool, iops: u64| {
            let mut p = labelled(&format!("{name}[{key}={v}]"), i, &[(key, v)]);
            if sweep {
                p.labels[0].sweep = Some(key.into());
            }
            p.write = DirStats::new(iops, iops * 4096, 1.0, None);
            (p, None)
        };
        let of = |label: &str, iops: [u64; 5]| {
            run(
                label,
                "sim:a",
                vec![
                    (w("r", 0, None, iops[0], None), None),
                    member("lat", 1, "qd", "1", false, iops[1]),
                    member("lat", 2, "qd", "4", false, iops[2]),
                    member("w", 3, "filled", "25%", true, iops[3]),
                    member("w", 4, "filled", "100%", true, iops[4]),
                ],
            )
        };
        let runs = [
            of("r1", [1000, 100, 400, 50, 20]),
            of("r3", [800, 90, 200, 40, 10]),
        ];
        let got = batteries(&runs);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].sweep, None);
        assert_eq!(
            got[0].workloads,
            [
                "r",
                "lat[qd=1]",
                "lat[qd=4]",
                "w[filled=25%]",
                "w[filled=100%]"
            ]
        );
        let bars: Vec<(usize, usize, f64)> = got[0]
            .bars(&runs)
            .into_iter()
            .map(|(w, c, p)| (w, c, (p * 1e9).round() / 1e9))
            .collect();
        let want: Vec<(usize, usize, f64)> = [80.0, 90.0, 50.0, 80.0, 50.0]
            .into_iter()
            .enumerate()
            .flat_map(|(w, p)| [(w, 0, 100.0), (w, 1, p)])
            .collect();
        assert_eq!(bars, want);
        // The composite: over the 5 workloads, the geometric mean of the bars of r3.
        let scores = crate::report::compare::scores(&[&runs[0].results, &runs[1].results], &[]);
        assert_eq!(scores[1].over(), "5 of 5 workloads");
        let mean = (0.8f64 * 0.9 * 0.5 * 0.8 * 0.5).powf(0.2);
        assert_eq!(
            scores[1].value.map(|s| (s * 1e9).round()),
            Some((mean * 1e9).round())
        );
    }

    /// Two runs of `n` workloads `w0` … each, the second at 80 % of the first's IOPS.
    pub(crate) fn runs_of(n: usize) -> [RunData; 2] {
        let of = |label: &str, iops: u64| {
            let phases = (0..n)
                .map(|i| (w(&format!("w{i}"), i, None, iops, None), None))
                .collect();
            run(label, "sim:a", phases)
        };
        [of("r1", 1000), of("r2", 800)]
    }

    /// A battery of runs is drawn for at most 24 workloads; past them, the line that stands in for it says
    /// how many the composite scores. A sweep's battery is drawn however many workloads it has.
    #[test]
    fn past_24_workloads_a_battery_of_runs_is_a_line() {
        let got: Vec<(usize, Option<String>)> = [2, 24, 25, 300]
            .into_iter()
            .map(|n| {
                let runs = runs_of(n);
                let b = batteries(&runs);
                assert_eq!(b.len(), 1, "{n}");
                (b[0].workloads.len(), undrawn(&runs, &b[0]))
            })
            .collect();
        let line = |n: usize| {
            format!(
                "The composite scores {n} workloads in all (r2 over {n} of {n} workloads), too many to chart (at most 24): the headline tables above list them."
            )
        };
        assert_eq!(
            got,
            [
                (2, None),
                (24, None),
                (25, Some(line(25))),
                (300, Some(line(300)))
            ]
        );
        let runs = runs_of(25);
        let mut b = batteries(&runs).remove(0);
        b.sweep = Some("filled".into());
        assert_eq!(undrawn(&runs, &b), None);
    }

    /// Trial 28 L1: `report r1 r3 r2`, r3 interrupted after 8 of the 25 workloads, said "The composite
    /// scores 25 workloads"; the line says how many each run's composite scores, as the headline tables do.
    #[test]
    fn the_line_says_what_each_runs_composite_scores() {
        let [r1, r2] = runs_of(25);
        let mut r3 = runs_of(8)[1].clone();
        r3.label = "r3".into();
        r3.file = "r3/results.json".into();
        r3.results.status = crate::results::Status::Interrupted;
        let runs = [r1, r3, r2];
        let b = batteries(&runs);
        assert_eq!(b[0].workloads.len(), 25);
        assert_eq!(
            undrawn(&runs, &b[0]).as_deref(),
            Some(
                "The composite scores 25 workloads in all (r3 over 8 of 25 workloads; r2 over 25 of 25 workloads), too many to chart (at most 24): the headline tables above list them."
            )
        );
    }
}
