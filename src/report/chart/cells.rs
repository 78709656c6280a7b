//! The latency matrix as grouped bars (seed 002's "average latency" and "maximum latency" charts): a group
//! per cell of the matrix (`512B, 100` … `8KiB, 0`), in it per drive a bar for its reads and one for its
//! writes (a cell without I/O in a direction has no bar there), at the cell's mean or largest latency, on
//! a log axis (maxima span a few µs to a second). Reads are filled in the drive's colour, writes pale with
//! an outline in it; each bar's value is written above it while there are few enough bars to read them.

use super::scale::latency_text;
use super::sweep::{Slots, category_label};
use super::{
    Axis, Body, Chart, FONT, LegendEntry, Plane, PlotError, Swatch, colour, decades,
    palette::lighter, plot_on, render, subject, why,
};
use crate::report::runs::{LabelGroup, RunData};
use crate::vocab::Direction;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Which latency of a cell the bars show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellStat {
    /// The mean of the cell's I/Os in the direction.
    Mean,
    /// The largest.
    Max,
}

impl CellStat {
    fn words(self) -> &'static str {
        match self {
            CellStat::Mean => "Mean",
            CellStat::Max => "Maximum",
        }
    }
}

/// One bar: a drive's latency of one direction in one cell, µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellBar {
    /// The cell (its place in the group's phases).
    pub cell: usize,
    /// The drive (run index).
    pub run: usize,
    /// Reads or writes.
    pub dir: Direction,
    /// The latency, µs.
    pub us: f64,
}

/// The bars of a matrix: per cell (in the group's order), per run that has the cell, its reads' then its
/// writes' latency (`stat`), for the directions with I/O.
pub fn cell_bars(runs: &[RunData], g: &LabelGroup, stat: CellStat) -> Vec<CellBar> {
    let mut out = Vec::new();
    for (cell, name) in g.phases.iter().enumerate() {
        for (run, r) in runs.iter().enumerate() {
            let Some(p) =
                crate::report::runs::member_at(&r.results, name).map(|i| &r.results.phases[i])
            else {
                continue;
            };
            for dir in Direction::CORE {
                if let Some(l) = p.dir(dir).latency_ns.as_ref() {
                    let ns = match stat {
                        CellStat::Mean => l.mean,
                        CellStat::Max => l.max as f64,
                    };
                    out.push(CellBar {
                        cell,
                        run,
                        dir,
                        us: ns / 1e3,
                    });
                }
            }
        }
    }
    out
}

/// Bars are labelled with their value up to this many.
pub const LABELLED_BARS: usize = 48;

/// The bars and what places them.
struct Bars<'a> {
    bars: &'a [CellBar],
    slots: Slots,
    /// The bottom of the axis (where bars start).
    floor: f64,
}

impl Bars<'_> {
    /// A bar's slot: two per drive, reads then writes.
    fn x(&self, b: &CellBar) -> f64 {
        self.slots
            .x(2 * b.run + usize::from(b.dir == Direction::Write), b.cell)
    }
}

impl Body for Bars<'_> {
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let half = self.slots.width * 0.42;
        for b in self.bars {
            let c = colour(b.run);
            let (x, top) = (self.x(b), b.us.max(self.floor));
            let corners = [(x - half, self.floor), (x + half, top)];
            let drawn = match b.dir {
                Direction::Read => chart.draw_series([Rectangle::new(corners, c.filled())]),
                Direction::Write | Direction::Trim => chart.draw_series([
                    Rectangle::new(corners, lighter(c, 0.6).filled()),
                    Rectangle::new(corners, c.stroke_width(1)),
                ]),
            };
            drawn.map_err(why)?;
        }
        if self.bars.len() <= LABELLED_BARS {
            // The value above each bar, written upwards.
            let style = (FONT, 11)
                .into_font()
                .transform(FontTransform::Rotate270)
                .color(&RGBColor(31, 35, 40))
                .pos(Pos::new(HPos::Left, VPos::Center));
            chart
                .draw_series(self.bars.iter().map(|b| {
                    EmptyElement::at((self.x(b), b.us.max(self.floor)))
                        + Text::new(latency_text(b.us), (0, -4), style.clone())
                }))
                .map_err(why)?;
        }
        Ok(())
    }
}

/// The legend: a row per drive with bars, its reads (filled) and its writes (pale).
fn legend(runs: &[RunData], bars: &[CellBar]) -> Vec<LegendEntry> {
    let mut rows: Vec<LegendEntry> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let has = |d: Direction| bars.iter().any(|b| b.run == r && b.dir == d);
        let c = colour(r);
        let mut row: Option<LegendEntry> = None;
        for (d, what, swatch) in [
            (Direction::Read, "reads", Swatch::Filled(c)),
            (Direction::Write, "writes", Swatch::Outlined(c)),
        ] {
            if !has(d) {
                continue;
            }
            match row.as_mut() {
                Some(e) => e.push(what, swatch),
                None => {
                    let text = format!("{}: {what}", run.legend());
                    row = Some(
                        LegendEntry::drive(r, &run.label, text, swatch)
                            .with_note(super::predicted::legend_note(run)),
                    );
                }
            }
        }
        rows.extend(row);
    }
    rows
}

/// The mean or largest latency (`stat`) of each cell of the matrix `g`, reads and writes, per drive, as
/// grouped bars on a log axis.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn cell_chart(runs: &[RunData], g: &LabelGroup, stat: CellStat) -> Result<Chart, PlotError> {
    let bars = cell_bars(runs, g, stat);
    let keys = g.keys.join(", ");
    let members: Vec<usize> = (0..runs.len()).collect();
    let title = format!(
        "{} latency per cell, reads and writes — {}",
        stat.words(),
        subject(runs, &members, &format!("{}[{keys}]", g.base))
    );
    let lo = bars.iter().map(|b| b.us).filter(|v| *v > 0.0);
    let (lo, hi) = (
        lo.clone().fold(f64::INFINITY, f64::min),
        bars.iter().map(|b| b.us).fold(0.0, f64::max),
    );
    let range = if lo.is_finite() {
        decades(lo, hi)
    } else {
        (1.0, 10.0)
    };
    // Half a decade above the top decade: room for the values written above the bars.
    let mut y = Axis::decades(range, false).latency();
    y.hi *= 10f64.sqrt();
    let n = g.phases.len();
    let x = Axis::categories(n);
    let body = Bars {
        bars: &bars,
        slots: Slots::new(2 * runs.len()),
        floor: y.lo,
    };
    let x_desc = format!("cell of {}: {keys}", g.base);
    let y_desc = format!("{} latency (log scale)", stat.words().to_lowercase());
    let svg = render(&title, &legend(runs, &bars), |root| {
        let x_ticks = |v: &f64| category_label(&g.values, *v);
        plot_on(root, (&x, &y), (&x_desc, &y_desc), &x_ticks, false, &body)
    })?;
    let values = match bars.len() <= LABELLED_BARS {
        true => ", its value written above it",
        false => "",
    };
    Ok(Chart {
        caption: format!(
            "{} latency of each cell's reads (filled) and writes (pale), one colour per drive{values}; a cell without I/O in a direction has no bar for it. Log scale.",
            stat.words()
        ),
        svg,
        title,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{labelled, latency, run};
    use crate::results::DirStats;

    /// Cells `lat[bs=B,read=R]`: reads at `r_ns` mean (max twice p99.99, the helper's), writes at `w_ns`.
    fn matrix() -> (Vec<RunData>, LabelGroup) {
        let cell = |bs: &str, rd: &str, i, r_ns: u64, w_ns: u64| {
            let mut p = labelled(
                &format!("lat[bs={bs},read={rd}]"),
                i,
                &[("bs", bs), ("read", rd)],
            );
            let l = |ns: u64| Some(latency(1, ns, ns, ns, ns, ns));
            if r_ns > 0 {
                p.read = DirStats::new(10, 40960, 1.0, l(r_ns));
            }
            if w_ns > 0 {
                p.write = DirStats::new(5, 20480, 1.0, l(w_ns));
            }
            (p, None)
        };
        let a = run(
            "fresh",
            "sim:a",
            vec![
                cell("4KiB", "100", 1, 70_000, 0),
                cell("4KiB", "0", 2, 0, 20_000),
            ],
        );
        let b = run("used", "sim:b", vec![cell("4KiB", "0", 1, 0, 1_100_000)]);
        let g = LabelGroup {
            base: "lat".into(),
            keys: vec!["bs".into(), "read".into()],
            phases: vec!["lat[bs=4KiB,read=100]".into(), "lat[bs=4KiB,read=0]".into()],
            values: vec!["4KiB, 100".into(), "4KiB, 0".into()],
        };
        (vec![a, b], g)
    }

    #[test]
    fn a_bar_per_drive_and_direction_with_io_in_each_cell() {
        let (runs, g) = matrix();
        let bar = |cell, run, dir, us| CellBar { cell, run, dir, us };
        assert_eq!(
            cell_bars(&runs, &g, CellStat::Mean),
            [
                bar(0, 0, Direction::Read, 70.0),
                bar(1, 0, Direction::Write, 20.0),
                bar(1, 1, Direction::Write, 1_100.0),
            ]
        );
        // The helper's max is twice p99.99.
        assert_eq!(cell_bars(&runs, &g, CellStat::Max)[2].us, 2_200.0);
    }

    #[test]
    fn the_chart_draws_each_bar_in_its_drives_colour_with_its_value() {
        let (runs, g) = matrix();
        let c = cell_chart(&runs, &g, CellStat::Max).expect("draws");
        assert_eq!(
            c.title,
            "Maximum latency per cell, reads and writes — spec · lat[bs, read] · sim:a / sim:b"
        );
        let doc = roxmltree::Document::parse(&c.svg).expect("XML");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        // Values in the unit that fits, above the bars; ticks on the log axis in units too.
        for t in ["140 µs", "40 µs", "2.2 ms", "1 ms", "4KiB, 100", "4KiB, 0"] {
            assert!(texts.contains(&t), "{t} in {texts:?}");
        }
        // Bars: a filled rectangle per read bar, a pale one and its outline per write bar.
        let rects = |fill: &str| {
            doc.descendants()
                .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(fill))
                .count()
        };
        assert_eq!(rects("#0072B2"), 1, "fresh's read bar");
        assert_eq!(
            rects(&super::super::palette::hex(lighter(colour(1), 0.6)).to_uppercase()),
            1
        );
        let legend: Vec<String> = legend(&runs, &cell_bars(&runs, &g, CellStat::Max))
            .iter()
            .map(LegendEntry::text)
            .collect();
        assert_eq!(
            legend,
            ["fresh on sim:a: reads · writes", "used on sim:b: writes"]
        );
    }
}
