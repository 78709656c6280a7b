//! The latency histograms of the series rows being collected: the interval histograms of every recorder
//! (the engine's `Recorder`) added into their row's, per direction, until the row is released. Adding
//! histograms bucket by bucket is exact: a row's histogram is the one of the union of its recorders'
//! latencies, so its percentiles are those of every I/O the row counts, never averaged percentiles.

use super::latency::{Hist, new_histogram};
use crate::vocab::{Direction, PerDir};
use std::collections::VecDeque;

/// One row's histograms: per direction, `None` without a completion.
pub type RowHists = PerDir<Option<Hist>>;

/// The histograms of the rows not yet released, from row `base` on, and emptied ones to reuse.
#[derive(Default)]
pub struct RowLatency {
    base: u64,
    pending: VecDeque<RowHists>,
    pool: Vec<Hist>,
}

impl RowLatency {
    /// No rows yet.
    pub fn new() -> RowLatency {
        RowLatency::default()
    }

    /// Adds `h`, direction `d`'s histogram of one recorder's interval `index`, to row `index`'s. A row
    /// already released takes nothing more (the series never releases a row a recorder has not closed).
    pub fn add(&mut self, index: u64, d: Direction, h: &Hist) {
        let Some(slot) = index.checked_sub(self.base) else {
            return;
        };
        let slot = slot as usize;
        if self.pending.len() <= slot {
            self.pending.resize_with(slot + 1, RowHists::default);
        }
        let pool = &mut self.pool;
        let row =
            self.pending[slot][d].get_or_insert_with(|| pool.pop().unwrap_or_else(new_histogram));
        // Same bounds: adding cannot fail.
        let _ = row.add(h);
    }

    /// Takes row `index`'s histograms; rows are taken in order (a row skipped is emptied).
    pub fn take(&mut self, index: u64) -> RowHists {
        while self.base < index {
            let skipped = self.pending.pop_front().unwrap_or_default();
            self.recycle(skipped);
            self.base += 1;
        }
        if index < self.base {
            return RowHists::default();
        }
        self.base += 1;
        self.pending.pop_front().unwrap_or_default()
    }

    /// Keeps a taken row's histograms, emptied, for later rows.
    pub fn recycle(&mut self, row: RowHists) {
        for mut h in row.0.into_iter().flatten() {
            h.reset();
            self.pool.push(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::latency::{percentile_of, record_into};

    /// Two recorders' interval histograms added per row are the histogram of the union: its percentiles
    /// equal the sorted union's by the histogram's rank rule, within its precision.
    #[test]
    fn rows_add_recorders_exactly() {
        let mut rows = RowLatency::new();
        let mut all: Vec<Vec<u64>> = vec![Vec::new(); 3];
        for rec in 0..2u64 {
            for k in 0..3u64 {
                let mut h = new_histogram();
                for i in 0..1_000u64 {
                    let ns = 1_000 + (i * 7_919 + rec * 104_729 + k * 31) % 900_000;
                    record_into(&mut h, ns);
                    all[k as usize].push(ns);
                }
                rows.add(k, Direction::Write, &h);
            }
        }
        for (k, lats) in all.iter_mut().enumerate() {
            let row = rows.take(k as u64);
            assert!(row[Direction::Read].is_none());
            let h = row[Direction::Write].as_ref().unwrap();
            assert_eq!(h.len(), 2_000);
            lats.sort_unstable();
            let max = *lats.last().unwrap();
            for p in [50.0, 99.0, 99.9] {
                let rank = ((p / 100.0 * 2_000f64).ceil() as usize).max(1);
                let x = lats[rank - 1];
                let v = percentile_of(h, p, max).unwrap();
                assert!(v >= x && v - x <= x / 1024, "row {k} p{p}: {v} for {x}");
            }
            rows.recycle(row);
        }
        assert_eq!(rows.pool.len(), 3);
        assert!(rows.pool.iter().all(|h| h.is_empty()));
        // A released row takes nothing more.
        rows.add(1, Direction::Read, &new_histogram());
        assert!(rows.pending.is_empty());
    }
}
