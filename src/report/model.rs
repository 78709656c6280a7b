//! What a report is made of: per sweep and per phase, its figures (a chart and its file name), the table
//! of a matrix, which part of the page each belongs to ([`Report::page_order`]: results first, the fills
//! that prepared the drive after them), and the options it was drawn with. [`super::build`] assembles it;
//! [`super::html`] renders it.

use super::chart::Chart;
use super::runs::{LabelGroup, PhaseGroup};
use super::table::MatrixTable;
use crate::results::series_csv::SeriesRow;
use crate::spec::PhaseKind;
use crate::stats::window::WindowSpec;
use crate::vocab::Direction;

/// The part of the page a section is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// What was measured: workloads (and verify phases), first.
    Results,
    /// What prepared the drive: fills and image restores, after the results.
    Preparation,
}

impl Part {
    /// The part of a phase of kind `kind`.
    pub fn of(kind: PhaseKind) -> Part {
        match kind {
            PhaseKind::Fill | PhaseKind::RestoreImage => Part::Preparation,
            _ => Part::Results,
        }
    }
}

/// A section, by its place in [`Report::sweeps`] or [`Report::phases`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionRef {
    /// `sweeps[k]`.
    Sweep(usize),
    /// `phases[k]`.
    Phase(usize),
}

/// What to draw.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Fixed ceiling of the linear IOPS plots, I/Os per s (`--ymax`); `None`: fitted to the data.
    pub ymax: Option<f64>,
    /// The zoom window (`--window`), as written and parsed; `None`: no zoom plots.
    pub window: Option<(String, WindowSpec)>,
    /// The library's runs the first run's headline figures are ranked among, with the other runs given
    /// (`--against-library`); empty: no ranked charts.
    pub against: Vec<super::runs::RunData>,
    /// Each chart also as PNG beside its SVG (`--png`, [`crate::report::png`]).
    pub png: bool,
}

/// A plot and the file it is written to (relative to the report folder).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// File name, `NN-<phase>-<plot>.svg`, NN the phase's number (characters outside `A-Za-z0-9._-` replaced).
    pub file: String,
    /// The plot.
    pub chart: Chart,
}

/// The plots of one phase name.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSection {
    /// The phase in each run.
    pub group: PhaseGroup,
    /// Its plots, in page order; none in a report of [`super::build::plan`], whose sections' plots are
    /// drawn as the page is written.
    pub figures: Vec<Figure>,
    /// Its part of the page.
    pub part: Part,
    /// A cell of a matrix (whose table sums it up): its plots are folded away on the page.
    pub folded: bool,
    /// A phase of a round of a block of rounds (a PTS test's rounds): the block's name. Such a phase has no
    /// plots of its own (the block's section, [`super::pts`], plots and tabulates its rounds), and the
    /// page folds the block's phases into one list ([`Report::page_order`]).
    pub rounds: Option<String>,
}

/// The plots across one sweep or matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSection {
    /// The phases charted.
    pub group: LabelGroup,
    /// The members overlaid on time plots, then IOPS and latency charts across them; none in a report of
    /// [`super::build::plan`], whose sections' plots are drawn as the page is written.
    pub figures: Vec<Figure>,
    /// Its part of the page.
    pub part: Part,
    /// The table of a two-key matrix.
    pub table: Option<MatrixTable>,
}

/// Every plot of a report, in page order.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// One section per I/O phase name.
    pub phases: Vec<PhaseSection>,
    /// One section per sweep or matrix.
    pub sweeps: Vec<SweepSection>,
    /// The first run's headline figures ranked among the library's runs (`--against-library`).
    pub ranked: Vec<Figure>,
    /// The batteries of workloads across drives or sweep members (seed 004), at the top of the page.
    pub batteries: Vec<Figure>,
    /// The lines that stand in for batteries not drawn, too wide to read
    /// ([`super::chart::battery::undrawn`]).
    pub battery_notes: Vec<String>,
    /// The SNIA PTS sections ([`super::pts`]): one per run of a `specs/snia/` spec or with blocks of rounds.
    pub pts: Vec<super::pts::PtsSection>,
}

impl Report {
    /// Every figure: the batteries, the sweeps', then the phases'.
    pub fn figures(&self) -> impl Iterator<Item = &Figure> {
        self.batteries
            .iter()
            .chain(self.sweeps.iter().flat_map(|s| &s.figures))
            .chain(self.pts.iter().flat_map(|s| &s.figures))
            .chain(self.phases.iter().flat_map(|s| &s.figures))
            .chain(&self.ranked)
    }

    /// The sections in page order: the results (sweeps, then phases), then the preparation (sweeps, then
    /// phases), each in its own order.
    pub fn page_order(&self) -> Vec<SectionRef> {
        let mut out = Vec::new();
        for part in [Part::Results, Part::Preparation] {
            for (k, s) in self.sweeps.iter().enumerate() {
                if s.part == part {
                    out.push(SectionRef::Sweep(k));
                }
            }
            for (k, s) in self.phases.iter().enumerate() {
                if s.part == part {
                    out.push(SectionRef::Phase(k));
                }
            }
        }
        out
    }
}

/// When the phase's writes added up to `span_bytes` (its span written once over), s from its start: the
/// cumulative `write_bytes` of the series rows, the crossing row interpolated linearly over its interval.
/// `None` when the phase wrote less than its span, or the span is 0. The report's only source of this
/// moment (the "drive filled once" marker): should `results.json` give it, this is the one place to read it.
pub fn filled_once_s(rows: &[SeriesRow], span_bytes: u64) -> Option<f64> {
    if span_bytes == 0 {
        return None;
    }
    let mut sum: u64 = 0;
    for r in rows {
        let written = r[Direction::Write].bytes;
        let next = sum.saturating_add(written);
        if next >= span_bytes && written > 0 {
            let need = (span_bytes - sum) as f64 / written as f64;
            return Some(r.t_s - r.interval_s + need * r.interval_s);
        }
        sum = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::row;

    #[test]
    fn filled_once_interpolates_inside_the_crossing_row() {
        // Rows of 10, 20, 30 writes of 4096 B: 40960, 122880, 245760 B by 1, 2, 3 s.
        let rows = vec![row(1.0, 0, 10), row(2.0, 5, 20), row(3.0, 0, 30)];
        // 163840 B: 40960 short after 2 s, of the third row's 122880: a third of its second.
        let t = filled_once_s(&rows, 163_840).expect("reached");
        assert!((t - (2.0 + 1.0 / 3.0)).abs() < 1e-12, "{t}");
        assert_eq!(filled_once_s(&rows, 40_960), Some(1.0));
        assert_eq!(filled_once_s(&rows, 245_760), Some(3.0));
        assert_eq!(filled_once_s(&rows, 245_761), None);
        assert_eq!(filled_once_s(&rows, 0), None);
        assert_eq!(filled_once_s(&[], 1), None);
    }

    #[test]
    fn page_order_puts_results_before_the_preparation() {
        let section = |name: &str, kind: PhaseKind| PhaseSection {
            group: PhaseGroup {
                name: name.into(),
                kind,
                members: vec![(0, 0)],
            },
            figures: vec![],
            part: Part::of(kind),
            folded: false,
            rounds: None,
        };
        let sweep = |base: &str, part: Part| SweepSection {
            group: LabelGroup {
                base: base.into(),
                keys: vec!["span".into()],
                phases: vec![],
                values: vec![],
            },
            figures: vec![],
            part,
            table: None,
        };
        // In run order: fill, workload, restore, workload; the fills' sweep first.
        let r = Report {
            phases: vec![
                section("fill", PhaseKind::Fill),
                section("w1", PhaseKind::Workload),
                section("restore", PhaseKind::RestoreImage),
                section("w2", PhaseKind::Workload),
            ],
            sweeps: vec![sweep("fill", Part::Preparation), sweep("w", Part::Results)],
            ranked: vec![],
            batteries: vec![],
            battery_notes: vec![],
            pts: vec![],
        };
        use SectionRef::{Phase, Sweep};
        assert_eq!(
            r.page_order(),
            [Sweep(1), Phase(1), Phase(3), Sweep(0), Phase(0), Phase(2)]
        );
    }
}
