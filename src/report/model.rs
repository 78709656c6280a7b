//! What a report is made of: per sweep and per phase, its figures (a chart and its file name), the table
//! of a matrix, which part of the page each belongs to ([`Report::page_order`]: results first, the fills
//! that prepared the drive after them), and the options it was drawn with. [`super::build`] assembles it;
//! [`super::html`] renders it.

use super::chart::Chart;
use super::runs::{LabelGroup, PhaseGroup};
use super::table::MatrixTable;
use crate::spec::PhaseKind;
use crate::stats::window::WindowSpec;

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
    /// Its plots, in page order.
    pub figures: Vec<Figure>,
    /// Its part of the page.
    pub part: Part,
    /// A cell of a matrix (whose table sums it up): its plots are folded away on the page.
    pub folded: bool,
}

/// The plots across one sweep or matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSection {
    /// The phases charted.
    pub group: LabelGroup,
    /// The members overlaid on time plots, then IOPS and latency charts across them.
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
}

impl Report {
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
