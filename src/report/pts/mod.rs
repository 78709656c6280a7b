//! The SNIA PTS report (issue 29): for a run of one of the specs of `specs/snia/`, one section per test
//! with the standard's set-up table, its steady-state convergence and measurement-window plots, the
//! measurement window's tables and the 2-D plots the standard shows.
//!
//! A run is a PTS run when its spec's name is `snia-pts-<test>` (the names of `specs/snia/*.toml`:
//! `snia-pts-iops`, `-throughput`, `-latency`, `-wsat`, `-hir`, `-xsr`, `-dirth`): the name says which test's
//! tables and plots to draw, which the results alone cannot (WSAT and XSR have no block of rounds; a block
//! of rounds is no PTS test by itself). A run of another spec with blocks of rounds (`round_blocks`) gets
//! the generic part: each block's convergence and window plots and a table of its cells.

mod content;
mod dirth;
pub mod numbers;
pub mod page;

use super::chart::PlotError;
use super::model::Figure;
use super::runs::RunData;

/// A PTS test, by the name of its spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtsTest {
    /// IOPS.
    Iops,
    /// Throughput.
    Throughput,
    /// Latency.
    Latency,
    /// Write Saturation.
    Wsat,
    /// Host Idle Recovery.
    Hir,
    /// Cross Stimulus Recovery.
    Xsr,
    /// Demand Intensity / Response Time Histogram.
    Dirth,
}

impl PtsTest {
    /// Every test, in the standard's order.
    pub const ALL: [PtsTest; 7] = [
        PtsTest::Iops,
        PtsTest::Throughput,
        PtsTest::Latency,
        PtsTest::Wsat,
        PtsTest::Hir,
        PtsTest::Xsr,
        PtsTest::Dirth,
    ];

    /// The short name, as in the spec's name and file (`iops`).
    pub fn key(self) -> &'static str {
        match self {
            PtsTest::Iops => "iops",
            PtsTest::Throughput => "throughput",
            PtsTest::Latency => "latency",
            PtsTest::Wsat => "wsat",
            PtsTest::Hir => "hir",
            PtsTest::Xsr => "xsr",
            PtsTest::Dirth => "dirth",
        }
    }

    /// The test of a spec named `snia-pts-<key>`.
    pub fn of(spec_name: &str) -> Option<PtsTest> {
        let key = spec_name.strip_prefix("snia-pts-")?;
        PtsTest::ALL.into_iter().find(|t| t.key() == key)
    }

    /// The test's name and its section of the PTS (PTS-E 1.1's numbering, unchecked against v2.0.2: docs/snia.md).
    pub fn title(self) -> &'static str {
        match self {
            PtsTest::Iops => "IOPS test (PTS section 7)",
            PtsTest::Throughput => "Throughput test (PTS section 8)",
            PtsTest::Latency => "Latency test (PTS section 9)",
            PtsTest::Wsat => "Write Saturation test, WSAT (PTS section 10)",
            PtsTest::Hir => "Host Idle Recovery test, HIR (PTS section 11)",
            PtsTest::Xsr => "Cross Stimulus Recovery test, XSR (PTS section 12)",
            PtsTest::Dirth => {
                "Demand Intensity / Response Time Histogram test, DIRTH (PTS section 14)"
            }
        }
    }
}

/// A table of a PTS section.
#[derive(Debug, Clone, PartialEq)]
pub struct PtsTable {
    /// Its `id` on the page (`pts-iops-table`).
    pub id: String,
    /// What it shows.
    pub caption: String,
    /// The column headings.
    pub head: Vec<String>,
    /// The rows, each as many cells as headings; the first names the row.
    pub rows: Vec<Vec<String>>,
}

/// The section of one PTS run.
#[derive(Debug, Clone, PartialEq)]
pub struct PtsSection {
    /// The run (its index).
    pub run: usize,
    /// The test; `None` for a run of another spec with blocks of rounds.
    pub test: Option<PtsTest>,
    /// Its `id` on the page: `pts-iops` (with `-N`, the run's number from 1, when several runs are shown).
    pub anchor: String,
    /// The heading.
    pub title: String,
    /// The test set-up table: `(item, value)`.
    pub setup: Vec<(String, String)>,
    /// The tables, in page order.
    pub tables: Vec<PtsTable>,
    /// The plots, in page order.
    pub figures: Vec<Figure>,
}

/// The PTS sections of `runs`: one per run of a PTS spec or with blocks of rounds, in run order.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn sections(runs: &[RunData]) -> Result<Vec<PtsSection>, PlotError> {
    let mut out = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let test = PtsTest::of(&run.results.spec.name);
        if test.is_none() && run.results.round_blocks.is_empty() {
            continue;
        }
        let key = test.map_or("rounds", PtsTest::key);
        let anchor = match runs.len() {
            1 => format!("pts-{key}"),
            _ => format!("pts-{key}-{}", k + 1),
        };
        let title = match test {
            Some(t) => format!("SNIA PTS: {} — {}", t.title(), run.label),
            None => format!("Blocks of rounds — {}", run.label),
        };
        let mut s = PtsSection {
            run: k,
            test,
            setup: content::setup(run, test),
            title,
            anchor,
            tables: vec![],
            figures: vec![],
        };
        content::fill(run, &mut s)?;
        out.push(s);
    }
    Ok(out)
}
