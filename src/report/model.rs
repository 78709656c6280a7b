//! What a report is made of, in page order: per sweep and per phase, its figures (a chart and its file
//! name), and the options it was drawn with. [`super::build`] assembles it; [`super::html`] renders it.

use super::chart::Chart;
use super::runs::{LabelGroup, PhaseGroup};
use crate::stats::window::WindowSpec;

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
}

/// The plots across one sweep or matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSection {
    /// The phases charted.
    pub group: LabelGroup,
    /// IOPS and latency charts.
    pub figures: Vec<Figure>,
}

/// Every plot of a report, in page order.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// One section per I/O phase name.
    pub phases: Vec<PhaseSection>,
    /// One section per sweep or matrix.
    pub sweeps: Vec<SweepSection>,
}
