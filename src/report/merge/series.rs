//! One phase's series merged across hosts: each host's rows put on a common wall-clock grid and added up.
//!
//! The grid starts at the earliest host's t = 0 (`series_t0_unix_ns`) and has the phase's interval Δ. A
//! host's row covers `[t0 + t_s − interval_s, t0 + t_s]` on the wall clock; it goes whole into the grid
//! interval holding its midpoint (a row is never split: that would need each I/O's time). With hosts started
//! within Δ/2 of each other, every host's k-th row lands in grid interval k. Counts (ops, bytes, errors) are
//! added, so the merged ops are exactly the sum of the hosts'; rates are the sum of the hosts' rates; the
//! mean latency is weighted by ops, the max is the largest. The last grid interval ends at the latest host's
//! end (partial when any host's row in it is).

use crate::report::bounded::MAX_SERIES_ROWS;
use crate::results::series_csv::SeriesRow;
use crate::vocab::PerDir;

/// One host's series of a phase: t = 0 of its rows relative to the grid's start, ns, and the rows.
pub struct HostSeries<'a> {
    /// The host's t = 0 minus the grid's start, ns (0 for the earliest host).
    pub shift_ns: u64,
    /// The host's rows, in order.
    pub rows: &'a [SeriesRow],
}

/// A grid interval being filled.
#[derive(Default, Clone)]
struct Cell {
    row: Option<SeriesRow>,
    /// Per direction, the sum of the hosts' latencies (mean × ops), µs.
    lat_sum: PerDir<f64>,
    end_ns: u64,
}

/// The grid interval of a row: the one holding its midpoint, or for a row longer than the interval (a
/// drain, `[D, end)` after a time bound, may be) the midpoint of its first interval's length, so that it
/// leaves no grid interval before it empty.
pub fn cell_of(shift_ns: u64, row: &SeriesRow, interval_ns: u64) -> u64 {
    let first_s = row.interval_s.min(interval_ns as f64 / 1e9);
    let mid_s = row.t_s - row.interval_s + first_s / 2.0;
    let mid_ns = shift_ns as f64 + (mid_s * 1e9).max(0.0);
    (mid_ns / interval_ns as f64).floor() as u64
}

/// The merged rows of `hosts` on a grid of `interval_ns` from the earliest host's t = 0.
///
/// # Errors
/// The grid would take more than [`MAX_SERIES_ROWS`] intervals (hosts whose series start far apart, such as
/// results of runs on different days, or a crafted interval): the number of intervals and the spread.
pub fn merge_rows(hosts: &[HostSeries<'_>], interval_ns: u64) -> Result<Vec<SeriesRow>, String> {
    let interval_ns = interval_ns.max(1);
    let last = hosts
        .iter()
        .flat_map(|h| h.rows.iter().map(|r| cell_of(h.shift_ns, r, interval_ns)))
        .max();
    if let Some(k) = last.filter(|&k| k >= MAX_SERIES_ROWS) {
        let spread = hosts.iter().map(|h| h.shift_ns).max().unwrap_or(0) as f64 / 1e9;
        return Err(format!(
            "the hosts' series would take {} intervals of {} s on one grid, more than {MAX_SERIES_ROWS}: their starts are {spread:.0} s apart (results of runs at different times?)",
            k.saturating_add(1),
            interval_ns as f64 / 1e9
        ));
    }
    let mut cells: Vec<Cell> = Vec::new();
    for h in hosts {
        for row in h.rows {
            let k = cell_of(h.shift_ns, row, interval_ns) as usize;
            if cells.len() <= k {
                cells.resize(k + 1, Cell::default());
            }
            add(&mut cells[k], h.shift_ns, row);
        }
    }
    let n = cells.len();
    Ok(cells
        .into_iter()
        .enumerate()
        .map(|(k, c)| finish(k as u64, c, interval_ns, k + 1 == n))
        .collect())
}

/// Adds one host's row to a grid interval.
fn add(c: &mut Cell, shift_ns: u64, r: &SeriesRow) {
    // Saturating: a row's times are checked finite and not negative ([`super::sums::check`]), not small.
    let end_ns = shift_ns.saturating_add((r.t_s * 1e9).round() as u64);
    c.end_ns = c.end_ns.max(end_ns);
    for (d, sum) in c.lat_sum.iter_mut() {
        *sum += r[d].lat_mean_us.unwrap_or(0.0) * r[d].ops as f64;
    }
    let Some(m) = c.row.as_mut() else {
        let mut first = r.clone();
        // Percentiles do not add up: the merged ones come from the added histograms (`merge/hlog.rs`).
        for (_, d) in first.by_dir.iter_mut() {
            d.lat_pct_us = [None; 3];
        }
        c.row = Some(first);
        return;
    };
    let max = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    };
    m.partial |= r.partial;
    m.by_dir.merge_with(&r.by_dir, |m, r| {
        m.ops += r.ops;
        m.iops += r.iops;
        m.bytes += r.bytes;
        m.bw_bytes_per_s += r.bw_bytes_per_s;
        m.lat_max_us = max(m.lat_max_us, r.lat_max_us);
    });
    m.errors += r.errors;
}

/// The merged row of grid interval `k`; the `last` one ends at the latest host's end, also when a host's
/// last row is longer than the interval (a drain: the I/Os still in flight at a time bound, which on a
/// simulated drive may take more than an interval).
fn finish(k: u64, c: Cell, interval_ns: u64, last: bool) -> SeriesRow {
    let start = k.saturating_mul(interval_ns);
    let next = start.saturating_add(interval_ns);
    let mut row = c.row.unwrap_or_else(|| {
        // No host had a row here (a gap): an interval with nothing done.
        let mut z = SeriesRow::new(0, interval_ns, interval_ns, &Default::default());
        z.partial = 0;
        z
    });
    let end = match (row.partial, last) {
        (0, true) => c.end_ns.max(next),
        (0, false) => next,
        (_, true) => c.end_ns.max(start),
        (_, false) => c.end_ns.clamp(start, next),
    };
    row.t_s = end as f64 / 1e9;
    row.interval_s = (end - start) as f64 / 1e9;
    let mean = |sum: f64, ops: u64| (ops > 0).then(|| sum / ops as f64);
    for (d, cols) in row.by_dir.iter_mut() {
        cols.lat_mean_us = mean(c.lat_sum[d], cols.ops);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{DirInterval, IntervalCounts};
    use crate::vocab::Direction;

    fn row(start_ms: u64, end_ms: u64, reads: u64, lat_us: u64) -> SeriesRow {
        let d = DirInterval {
            ops: reads,
            bytes: reads * 4096,
            lat_sum_ns: u128::from(reads * lat_us * 1000),
            lat_max_ns: lat_us * 2000,
        };
        let mut c = IntervalCounts::default();
        c[Direction::Read] = d;
        SeriesRow::new(start_ms * 1_000_000, end_ms * 1_000_000, 1_000_000_000, &c)
    }

    #[test]
    fn rows_of_hosts_started_apart_land_in_the_same_grid_interval_and_add_up() {
        // Host a from the grid start; host b 3 ms later; both 2 full rows and a partial third.
        let a = [
            row(0, 1000, 100, 10),
            row(1000, 2000, 110, 10),
            row(2000, 2400, 40, 10),
        ];
        let b = [
            row(0, 1000, 50, 40),
            row(1000, 2000, 60, 40),
            row(2000, 2500, 30, 40),
        ];
        let m = merge_rows(
            &[
                HostSeries {
                    shift_ns: 0,
                    rows: &a,
                },
                HostSeries {
                    shift_ns: 3_000_000,
                    rows: &b,
                },
            ],
            1_000_000_000,
        )
        .unwrap();
        assert_eq!(m.len(), 3);
        let ops: Vec<u64> = m.iter().map(|r| r[Direction::Read].ops).collect();
        assert_eq!(ops, [150, 170, 70]);
        let t: Vec<f64> = m.iter().map(|r| r.t_s).collect();
        assert_eq!(t, [1.0, 2.0, 2.503]);
        assert_eq!((m[0].partial, m[2].partial), (0, 1));
        assert_eq!(m[0][Direction::Read].iops, 150.0);
        assert_eq!(m[0][Direction::Read].bytes, 150 * 4096);
        // Mean latency weighted by ops: (100·10 + 50·40) / 150 µs; max the larger.
        assert_eq!(m[0][Direction::Read].lat_mean_us, Some(20.0));
        assert_eq!(m[0][Direction::Read].lat_max_us, Some(80.0));
        assert_eq!(m[2].interval_s, 0.503);
    }

    #[test]
    fn a_gap_is_an_empty_interval_and_midpoints_decide_the_interval() {
        let a = [row(0, 1000, 5, 1), row(2000, 3000, 7, 1)];
        let m = merge_rows(
            &[HostSeries {
                shift_ns: 0,
                rows: &a,
            }],
            1_000_000_000,
        )
        .unwrap();
        assert_eq!(
            m.iter().map(|r| r[Direction::Read].ops).collect::<Vec<_>>(),
            [5, 0, 7]
        );
        assert_eq!(
            (m[1].t_s, m[1].partial, m[1][Direction::Read].lat_mean_us),
            (2.0, 0, None)
        );
        // A row shifted by 0.6 of an interval has its midpoint in the next one.
        assert_eq!(cell_of(600_000_000, &a[0], 1_000_000_000), 1);
        assert_eq!(cell_of(400_000_000, &a[0], 1_000_000_000), 0);
    }

    /// A last row longer than the interval (a simulated drive's, holding the I/Os in flight at the bound)
    /// ends the merged series at the latest host's end, as docs/hosts.md says, not on the grid.
    #[test]
    fn an_overlong_last_row_ends_at_the_latest_hosts_end() {
        let a = [row(0, 1000, 5, 1), row(1000, 2050, 7, 1)];
        let b = [row(0, 1000, 5, 1), row(1000, 2030, 3, 1)];
        let hosts = [
            HostSeries {
                shift_ns: 0,
                rows: &a,
            },
            HostSeries {
                shift_ns: 0,
                rows: &b,
            },
        ];
        let m = merge_rows(&hosts, 1_000_000_000).unwrap();
        let ends: Vec<(f64, f64, u8)> =
            m.iter().map(|r| (r.t_s, r.interval_s, r.partial)).collect();
        assert_eq!(ends, [(1.0, 1.0, 0), (2.05, 1.05, 0)]);
        assert_eq!(m[1][Direction::Read].ops, 10);
    }

    /// Hosts whose series start years apart (or a crafted t0 or interval) would need a grid of more than
    /// MAX_SERIES_ROWS intervals: refused with the numbers, before anything is allocated (it aborted).
    #[test]
    fn hosts_far_apart_are_refused_before_the_grid_is_made() {
        let a = [row(0, 1000, 5, 1)];
        let hosts = |shift_ns| {
            [
                HostSeries {
                    shift_ns: 0,
                    rows: &a,
                },
                HostSeries { shift_ns, rows: &a },
            ]
        };
        // Five seconds apart: six intervals; 10,000,000 s apart: one interval too many.
        assert!(merge_rows(&hosts(5_000_000_000), 1_000_000_000).is_ok_and(|m| m.len() == 6));
        assert_eq!(
            merge_rows(&hosts(10_000_000_000_000_000), 1_000_000_000).unwrap_err(),
            "the hosts' series would take 10000001 intervals of 1 s on one grid, more than 10000000: their starts are 10000000 s apart (results of runs at different times?)"
        );
        assert!(merge_rows(&hosts(u64::MAX), 1).is_err());
    }
}
