//! The numbers of a PTS report, pure functions of a run's results and series: the measurement window's
//! tables (a cell figure by two labels, the latency of each cell with its five nines), the points of the
//! 2-D plots. What the page shows and what the tests recompute.

use crate::report::runs::RunData;
use crate::results::PhaseResult;
use crate::results::rounds::{CellResult, Figures, RoundBlockResult};

/// The phase of index `index` of `run`, and its position in `run.results.phases`.
pub fn phase(run: &RunData, index: usize) -> Option<(usize, &PhaseResult)> {
    run.results
        .phases
        .iter()
        .enumerate()
        .find(|(_, p)| p.index == index)
}

/// The value of label `key` of phase `p` (`bs` → `4KiB`).
pub fn label<'a>(p: &'a PhaseResult, key: &str) -> Option<&'a str> {
    p.labels
        .iter()
        .find(|l| l.key == key)
        .map(|l| l.value.as_str())
}

/// A cell's first phase of the window (its labels and parameters are those of every round's).
pub fn cell_phase<'a>(run: &'a RunData, c: &CellResult) -> Option<&'a PhaseResult> {
    c.phases.iter().find_map(|i| phase(run, *i).map(|p| p.1))
}

/// A table of one cell figure by two of the cells' labels: rows by `row_key`, columns by `col_key`, each in
/// the order the cells first give them.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelTable {
    /// The row labels' values.
    pub rows: Vec<String>,
    /// The column labels' values.
    pub cols: Vec<String>,
    /// `values[row][col]`; `None` where no cell has both.
    pub values: Vec<Vec<Option<f64>>>,
}

/// The figure `f` of each cell of block `b` by its labels `row_key` and `col_key`.
pub fn label_table(
    run: &RunData,
    b: &RoundBlockResult,
    (row_key, col_key): (&str, &str),
    f: impl Fn(&Figures) -> f64,
) -> LabelTable {
    let mut t = LabelTable {
        rows: vec![],
        cols: vec![],
        values: vec![],
    };
    let mut at = Vec::new();
    for c in &b.cells {
        let Some(p) = cell_phase(run, c) else {
            continue;
        };
        let (Some(r), Some(k)) = (label(p, row_key), label(p, col_key)) else {
            continue;
        };
        let pos = |v: &mut Vec<String>, x: &str| match v.iter().position(|y| y == x) {
            Some(i) => i,
            None => {
                v.push(x.to_string());
                v.len() - 1
            }
        };
        at.push((pos(&mut t.rows, r), pos(&mut t.cols, k), f(&c.figures)));
    }
    t.values = vec![vec![None; t.cols.len()]; t.rows.len()];
    for (r, k, v) in at {
        t.values[r][k] = Some(v);
    }
    t
}

/// The smallest latency (ns) of the `[value_ns, count]` pairs at or below which at least the fraction `q`
/// of the I/Os completed; `None` without an I/O.
pub fn percentile(pairs: &[[u64; 2]], q: f64) -> Option<u64> {
    let mut v: Vec<[u64; 2]> = pairs.to_vec();
    v.sort_unstable();
    let total: u64 = v.iter().map(|p| p[1]).sum();
    if total == 0 {
        return None;
    }
    let need = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut sum = 0;
    v.iter().find_map(|[value, count]| {
        sum += count;
        (sum >= need).then_some(*value)
    })
}

/// Both directions' histogram pairs of the phases `indices` of `run`, together.
pub fn histograms(run: &RunData, indices: &[usize]) -> Vec<[u64; 2]> {
    indices
        .iter()
        .filter_map(|i| phase(run, *i))
        .filter_map(|(_, p)| p.latency_histograms.as_ref())
        .flat_map(|h| h.read.iter().chain(&h.write).copied())
        .collect()
}

/// The response times of a cell over the window: the mean of its rounds' mean latencies, the largest of
/// their maxima and the 99.999th percentile of all their I/Os (their histograms together, at most the
/// largest), µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellLatency {
    /// Average response time, µs.
    pub mean_us: f64,
    /// Largest response time, µs.
    pub max_us: f64,
    /// Five-nines response time, µs; `None` without histograms.
    pub nines_us: Option<f64>,
}

/// The response times of cell `c` of `run` over the window.
pub fn cell_latency(run: &RunData, c: &CellResult) -> CellLatency {
    let max_ns = c
        .phases
        .iter()
        .filter_map(|i| phase(run, *i))
        .filter_map(|(_, p)| p.total.latency_ns.as_ref().map(|l| l.max))
        .max()
        .unwrap_or(0);
    // A histogram's value is its bucket's highest: the five nines of a few I/Os can be the top of the
    // largest one's bucket, above the largest measured (results' own percentiles are capped so too).
    let nines_ns = percentile(&histograms(run, &c.phases), 0.99999).map(|n| n.min(max_ns));
    CellLatency {
        mean_us: c.figures.lat_mean_ns / 1e3,
        max_us: max_ns as f64 / 1e3,
        nines_us: nines_ns.map(|n| n as f64 / 1e3),
    }
}

/// A cell's figure against its block size, one curve per value of label `by` (`read`): `(label value,
/// [(block size bytes, figure)])`, in the cells' order.
pub fn per_block_size(
    run: &RunData,
    b: &RoundBlockResult,
    by: &str,
    f: impl Fn(&Figures) -> f64,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut out: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for c in &b.cells {
        let Some(p) = cell_phase(run, c) else {
            continue;
        };
        let (Some(v), Some(bs)) = (label(p, by), p.params.block_size_bytes) else {
            continue;
        };
        let point = (bs as f64, f(&c.figures));
        match out.iter_mut().find(|(k, _)| k == v) {
            Some((_, pts)) => pts.push(point),
            None => out.push((v.to_string(), vec![point])),
        }
    }
    for (_, pts) in &mut out {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The per-interval points of phase position `k` of `run`: `(t_s + offset, y(row))` of its full rows.
pub fn rows_against_time(
    run: &RunData,
    k: usize,
    offset: f64,
    y: impl Fn(&crate::results::series_csv::SeriesRow) -> f64,
) -> Vec<(f64, f64)> {
    run.phase(k)
        .1
        .iter()
        .filter(|r| r.partial == 0)
        .map(|r| (r.t_s + offset, y(r)))
        .collect()
}

/// IOPS against total bytes written (GB, 10⁹ B) of phase position `k`: per full row, its total IOPS at the
/// bytes written by its end.
pub fn iops_against_written(run: &RunData, k: usize) -> Vec<(f64, f64)> {
    let mut sum = 0u64;
    let mut out = Vec::new();
    for r in run.phase(k).1 {
        sum += r[crate::vocab::Direction::Write].bytes;
        if r.partial == 0 {
            out.push((sum as f64 / 1e9, r.rate(|d| d.iops)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_first_value_that_reaches_the_share() {
        let pairs = [[300, 1], [100, 99_998], [200, 1]];
        assert_eq!(percentile(&pairs, 0.5), Some(100));
        // 100,000 I/Os: 99.999 % is 99,999 of them, reached at 200.
        assert_eq!(percentile(&pairs, 0.99999), Some(200));
        assert_eq!(percentile(&pairs, 1.0), Some(300));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[[5, 0]], 0.5), None);
    }
}
