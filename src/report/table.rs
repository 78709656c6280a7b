//! The table of a matrix (seed 002's latency matrix: block sizes × read shares, 3 × 3 cells): one row per
//! value of the first label key, one column per value of the second, in each cell every run's latency
//! (mean and largest: reads, writes, and every direction together, the figure seed 002 gives of a mixed
//! cell) and IOPS, straight from `results.json`.

use super::runs::{LabelGroup, RunData, member_at};
use crate::results::DirStats;

/// Mean and largest latency of one direction, µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Mean, µs.
    pub mean_us: f64,
    /// Largest, µs.
    pub max_us: f64,
}

impl Latency {
    /// A direction's (or the total's) mean and largest latency: its summary's, else its moments (fio's
    /// mixed job without json+ bins has no percentiles of its total); `None` without latencies.
    fn of(d: &DirStats) -> Option<Latency> {
        let l = d.moments()?;
        Some(Latency {
            mean_us: l.mean / 1e3,
            max_us: l.max as f64 / 1e3,
        })
    }
}

/// One run's numbers in one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRun {
    /// The run (its index).
    pub run: usize,
    /// The phase (its full name).
    pub phase: String,
    /// Reads' latency; `None` without reads.
    pub read: Option<Latency>,
    /// Writes' latency; `None` without writes.
    pub write: Option<Latency>,
    /// Every direction together (`total`): the mean weighted by op counts, the largest of the maxima;
    /// `None` without I/O.
    pub total: Option<Latency>,
    /// Total IOPS of the phase.
    pub iops: f64,
}

/// A matrix as a table.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixTable {
    /// The key of the rows (`bs`).
    pub row_key: String,
    /// The key of the columns (`read`).
    pub col_key: String,
    /// Row values, in order of first appearance (`512B`, `4KiB`, `8KiB`).
    pub rows: Vec<String>,
    /// Column values (`100`, `65`, `0`).
    pub cols: Vec<String>,
    /// `cells[row][col]`: each run's numbers for that phase (empty when no run has it).
    pub cells: Vec<Vec<Vec<CellRun>>>,
}

/// The table of a label group with two keys (a two-list matrix); `None` for any other group.
pub fn matrix_table(runs: &[RunData], g: &LabelGroup) -> Option<MatrixTable> {
    if g.keys.len() != 2 {
        return None;
    }
    let mut t = MatrixTable {
        row_key: g.keys[0].clone(),
        col_key: g.keys[1].clone(),
        rows: Vec::new(),
        cols: Vec::new(),
        cells: Vec::new(),
    };
    // (row, col) of each phase, from its labels in the first run that has it.
    let mut place = Vec::new();
    for name in &g.phases {
        let labels = runs
            .iter()
            .find_map(|r| member_at(&r.results, name).map(|i| &r.results.phases[i]))
            .map(|p| &p.labels)?;
        let value = |key: &str| {
            labels
                .iter()
                .find(|l| super::members::label_name(l) == key)
                .map(|l| l.value.clone())
        };
        let (rv, cv) = (value(&t.row_key)?, value(&t.col_key)?);
        let index = |list: &mut Vec<String>, v: String| {
            list.iter().position(|x| *x == v).unwrap_or_else(|| {
                list.push(v);
                list.len() - 1
            })
        };
        place.push((index(&mut t.rows, rv), index(&mut t.cols, cv)));
    }
    t.cells = vec![vec![Vec::new(); t.cols.len()]; t.rows.len()];
    for (run, r) in runs.iter().enumerate() {
        for (name, &(i, j)) in g.phases.iter().zip(&place) {
            if let Some(p) = member_at(&r.results, name).map(|i| &r.results.phases[i]) {
                t.cells[i][j].push(CellRun {
                    run,
                    phase: name.clone(),
                    read: Latency::of(&p.read),
                    write: Latency::of(&p.write),
                    total: Latency::of(&p.total),
                    iops: p.iops(),
                });
            }
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{labelled, latency, run};
    use crate::results::DirStats;

    #[test]
    fn cells_are_the_results_values_of_each_phase() {
        let cell = |bs: &str, rd: &str, i, r_ns: u64, w_ns: u64| {
            let mut p = labelled(
                &format!("lat[bs={bs},read={rd}]"),
                i,
                &[("bs", bs), ("read", rd)],
            );
            if r_ns > 0 {
                p.read = DirStats::new(
                    10,
                    40960,
                    1.0,
                    Some(latency(1, r_ns, r_ns, r_ns, r_ns, r_ns)),
                );
            }
            if w_ns > 0 {
                p.write = DirStats::new(
                    5,
                    20480,
                    1.0,
                    Some(latency(1, w_ns, w_ns, w_ns, w_ns, w_ns)),
                );
            }
            (p, None)
        };
        let r = run(
            "a",
            "sim:a",
            vec![
                cell("4KiB", "100", 1, 2_000, 0),
                cell("4KiB", "0", 2, 0, 3_000),
                cell("8KiB", "100", 3, 4_000, 0),
                cell("8KiB", "0", 4, 0, 5_500),
            ],
        );
        let g = LabelGroup {
            base: "lat".into(),
            keys: vec!["bs".into(), "read".into()],
            phases: r.results.phases.iter().map(|p| p.name.clone()).collect(),
            values: vec![],
        };
        let t = matrix_table(&[r], &g).expect("two keys");
        assert_eq!(
            (t.rows.clone(), t.cols.clone()),
            (
                vec!["4KiB".to_string(), "8KiB".into()],
                vec!["100".to_string(), "0".into()]
            )
        );
        // The helper's mean is p50 and its max twice p99.99.
        let c = &t.cells[1][1][0];
        assert_eq!(c.phase, "lat[bs=8KiB,read=0]");
        assert_eq!(c.read, None);
        assert_eq!(
            c.write,
            Some(Latency {
                mean_us: 5.5,
                max_us: 11.0
            })
        );
        assert_eq!(c.iops, 5.0);
        assert_eq!(
            t.cells[0][0][0].read,
            Some(Latency {
                mean_us: 2.0,
                max_us: 4.0
            })
        );
        let one_key = LabelGroup {
            keys: vec!["bs".into()],
            ..g
        };
        assert_eq!(matrix_table(&[], &one_key), None);
    }
}
