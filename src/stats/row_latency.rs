//! The latency histograms of the series rows being collected: the interval histograms of every recorder
//! (the engine's `Recorder`) added into their row's, per direction, until the row is released. Adding
//! histograms bucket by bucket is exact: a row's histogram is the one of the union of its recorders'
//! latencies, so its percentiles are those of every I/O the row counts, never averaged percentiles.

//!
//! A recorder that cannot keep one histogram per interval (the collector is behind it) folds several
//! intervals into one histogram (the engine's `IntervalLat`): the rows of those intervals form a
//! *fold*, whose latencies, every recorder's, are added into its last row; the other rows of the fold have
//! none ([`RowLatency::take`] gives `None` for them).
//!
//! The collector folds too ([`RowLatency::cap`]): while one recorder has not closed an interval (a worker
//! that completes nothing for a while), the other recorders' rows wait for it, each with its histograms
//! (some 270 KB per direction); past [`MAX_WAITING_ROWS`] such rows, their histograms are added into the
//! last one's and the rows made a fold, so that the memory held stays bounded however long the stall. Counts
//! are the series' and stay exact; only the folded rows' percentiles are lost.

use super::latency::{Hist, new_histogram};
use crate::vocab::{Direction, PerDir};
use std::collections::VecDeque;

/// One row's histograms: per direction, `None` without a completion.
pub type RowHists = PerDir<Option<Hist>>;

/// Rows `lo..=hi` whose latencies go into one histogram, and how many recorders are still folding into it
/// (the fold is complete when none is and its last row is taken).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fold {
    lo: u64,
    hi: u64,
    open: usize,
}

/// A row's latencies as taken: its histograms, of the rows from `from` on when `from` is before the row
/// (the last row of a fold), else of the row alone.
#[derive(Debug)]
pub struct Taken {
    /// Per direction.
    pub hists: RowHists,
    /// The first row they hold latencies of.
    pub from: u64,
}

/// The most rows waiting with histograms of their own in the collector ([`RowLatency::cap`]).
pub const MAX_WAITING_ROWS: usize = 64;

/// The most emptied histograms kept for reuse.
const MAX_POOL: usize = 4 * MAX_WAITING_ROWS;

/// The histograms of the rows not yet released, from row `base` on, the folds among them, and emptied
/// histograms to reuse.
#[derive(Default)]
pub struct RowLatency {
    base: u64,
    pending: VecDeque<RowHists>,
    pool: Vec<Hist>,
    folds: Vec<Fold>,
    /// The last row of the collector's latest fold ([`RowLatency::cap`]), and the rows it put in folds.
    capped: (Option<u64>, u64),
}

impl RowLatency {
    /// No rows yet.
    pub fn new() -> RowLatency {
        RowLatency::default()
    }

    /// Adds `h`, direction `d`'s histogram of one recorder's interval `index`, to row `index`'s: moves it
    /// there, leaving `h` an empty histogram, when the row has none yet (the one recorder of a row costs no
    /// addition). A row already released takes nothing more (the series never releases a row a recorder
    /// has not closed).
    pub fn add(&mut self, index: u64, d: Direction, h: &mut Hist) {
        // A row of the collector's latest fold, not yet taken: into the row that holds the fold's.
        let index = match self.capped.0 {
            Some(hi) if index < hi && hi >= self.base => hi,
            _ => index,
        };
        let Some(slot) = index.checked_sub(self.base) else {
            return;
        };
        let slot = slot as usize;
        if self.pending.len() <= slot {
            self.pending.resize_with(slot + 1, RowHists::default);
        }
        match &mut self.pending[slot][d] {
            // Same bounds: adding cannot fail.
            Some(row) => {
                let _ = row.add(&*h);
            }
            None => {
                let empty = self.pool.pop().unwrap_or_else(new_histogram);
                self.pending[slot][d] = Some(std::mem::replace(h, empty));
            }
        }
    }

    /// Caps the rows waiting with histograms of their own at `max`: with more (the rows after the
    /// collector's latest fold), every waiting row's histograms are added into the last one's and the rows
    /// from the first waiting one to it made a fold (its latencies taken with its last row, the others'
    /// `None`), as a recorder's fold. Returns the rows put in a fold by this call.
    pub fn cap(&mut self, max: usize) -> u64 {
        let end = self.base + self.pending.len() as u64;
        let first = self.capped.0.map_or(self.base, |h| self.base.max(h + 1));
        if end.saturating_sub(first) <= max as u64 {
            return 0;
        }
        let last = self.pending.len() - 1;
        for i in 0..last {
            let row = std::mem::take(&mut self.pending[i]);
            for (d, h) in row.0.into_iter().enumerate() {
                let Some(h) = h else { continue };
                match &mut self.pending[last].0[d] {
                    // Same bounds: adding cannot fail.
                    Some(into) => {
                        let _ = into.add(&h);
                        self.recycle_one(h);
                    }
                    slot @ None => *slot = Some(h),
                }
            }
        }
        let hi = end - 1;
        self.span(self.base, hi, 0);
        let new = hi + 1 - first;
        self.capped = (Some(hi), self.capped.1 + new);
        new
    }

    /// The rows the collector put in folds ([`RowLatency::cap`]) so far.
    pub fn capped_rows(&self) -> u64 {
        self.capped.1
    }

    /// A recorder closed interval `index` folded: its latencies from interval `first` (`index` itself when
    /// this starts its fold) to `index` come with a later interval's histograms.
    pub fn folding(&mut self, first: u64, index: u64) {
        self.span(first, index, isize::from(first == index));
    }

    /// A recorder's histograms of interval `index` hold the latencies of its intervals from `first` on
    /// (it had folded them, `first` < `index`): its fold ends at `index`; add them with [`RowLatency::add`].
    pub fn unfolded(&mut self, first: u64, index: u64) {
        self.span(first, index, -1);
    }

    /// Rows `lo..=hi` go into one fold, with `open` more (or fewer) recorders folding into it: merged with
    /// every fold it overlaps.
    fn span(&mut self, lo: u64, hi: u64, open: isize) {
        let mut f = Fold { lo, hi, open: 0 };
        let mut n = 0isize;
        self.folds.retain(|g| {
            let overlaps = g.lo <= f.hi && g.hi >= f.lo;
            if overlaps {
                f.lo = f.lo.min(g.lo);
                f.hi = f.hi.max(g.hi);
                n += g.open as isize;
            }
            !overlaps
        });
        f.open = (n + open).max(0) as usize;
        let at = self.folds.partition_point(|g| g.lo < f.lo);
        self.folds.insert(at, f);
    }

    /// Takes row `index`'s histograms, `None` for a row of a fold but its last (its latencies are in a
    /// later row's); rows are taken in order (a row skipped is taken and dropped).
    pub fn take(&mut self, index: u64) -> Option<Taken> {
        while self.base < index {
            if let Some(t) = self.take_next() {
                self.recycle(t.hists);
            }
        }
        if index < self.base {
            return Some(Taken {
                hists: RowHists::default(),
                from: index,
            });
        }
        self.take_next()
    }

    /// Takes row `base`: a row of its own, the last of a complete fold, or another row of a fold, whose
    /// histograms are then carried into the next row (which joins the fold if it was the last).
    fn take_next(&mut self) -> Option<Taken> {
        let k = self.base;
        self.base += 1;
        let row = self.pending.pop_front().unwrap_or_default();
        let Some(i) = self.folds.iter().position(|f| f.lo <= k && k <= f.hi) else {
            return Some(Taken {
                hists: row,
                from: k,
            });
        };
        let f = self.folds[i];
        if f.hi == k && f.open == 0 {
            self.folds.remove(i);
            return Some(Taken {
                hists: row,
                from: f.lo,
            });
        }
        if f.hi == k {
            self.span(k, k + 1, 0);
        }
        if self.pending.is_empty() {
            self.pending.push_back(RowHists::default());
        }
        for (d, h) in row.0.into_iter().enumerate() {
            let Some(h) = h else { continue };
            let next = &mut self.pending[0].0[d];
            match next {
                Some(n) => {
                    let _ = n.add(&h);
                    self.recycle_one(h);
                }
                None => *next = Some(h),
            }
        }
        None
    }

    /// Keeps a taken row's histograms, emptied, for later rows.
    pub fn recycle(&mut self, row: RowHists) {
        for h in row.0.into_iter().flatten() {
            self.recycle_one(h);
        }
    }

    fn recycle_one(&mut self, mut h: Hist) {
        if self.pool.len() >= MAX_POOL {
            return;
        }
        // An empty histogram's buckets are all zero already (33,792 of them to clear otherwise).
        if !h.is_empty() {
            h.reset();
        }
        self.pool.push(h);
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
                rows.add(k, Direction::Write, &mut h);
                // The row's first histogram is moved in, the second added.
                assert_eq!(h.len(), if rec == 0 { 0 } else { 1_000 });
            }
        }
        for (k, lats) in all.iter_mut().enumerate() {
            let Some(Taken { hists: row, from }) = rows.take(k as u64) else {
                panic!("row {k} folded")
            };
            assert_eq!(from, k as u64);
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
        rows.add(1, Direction::Read, &mut new_histogram());
        assert!(rows.pending.is_empty());
    }

    fn hist(n: u64, ns: u64) -> Hist {
        let mut h = new_histogram();
        for _ in 0..n {
            record_into(&mut h, ns);
        }
        h
    }

    fn count(t: &Option<Taken>) -> Option<(u64, u64)> {
        t.as_ref().map(|t| {
            let n = t.hists[Direction::Read].as_ref().map_or(0, |h| h.len());
            (t.from, n)
        })
    }

    /// Two recorders, one folding rows 2..=4 (its histogram of them comes with row 4), the other not: rows
    /// 2 and 3 are folded, row 4 holds both recorders' latencies of rows 2..=4, the rest are their own. A
    /// fold still open when its last row so far is taken grows into the next row.
    #[test]
    fn a_fold_is_taken_whole_in_its_last_row() {
        let mut rows = RowLatency::new();
        // Recorder B: 10 reads per row, 0..=6.
        for k in 0..=6 {
            rows.add(k, Direction::Read, &mut hist(10, 1_000 + k));
        }
        // Recorder A: 1 read in rows 0 and 1; folds 2, 3; sends 2..=4 (3 reads) with 4; 1 read in 5, 6.
        rows.add(0, Direction::Read, &mut hist(1, 5));
        rows.add(1, Direction::Read, &mut hist(1, 5));
        rows.folding(2, 2);
        rows.folding(2, 3);
        let mut got: Vec<Option<(u64, u64)>> = (0..4).map(|k| count(&rows.take(k))).collect();
        // Row 3 was taken with A still folding: row 4 joined the fold.
        rows.unfolded(2, 4);
        rows.add(4, Direction::Read, &mut hist(3, 7));
        rows.add(5, Direction::Read, &mut hist(1, 5));
        rows.add(6, Direction::Read, &mut hist(1, 5));
        got.extend((4..7).map(|k| count(&rows.take(k))));
        assert_eq!(
            got,
            [
                Some((0, 11)),
                Some((1, 11)),
                None,
                None,
                Some((2, 33)),
                Some((5, 11)),
                Some((6, 11))
            ]
        );
        assert!(rows.folds.is_empty());
        // Two folds that overlap become one: rows 1..=3 and 3..=5, both sent with their last row.
        let mut rows = RowLatency::new();
        rows.folding(1, 1);
        rows.folding(3, 3);
        rows.unfolded(1, 3);
        rows.add(3, Direction::Read, &mut hist(3, 9));
        rows.unfolded(3, 5);
        rows.add(5, Direction::Read, &mut hist(3, 9));
        let got: Vec<Option<(u64, u64)>> = (0..6).map(|k| count(&rows.take(k))).collect();
        assert_eq!(got, [Some((0, 0)), None, None, None, None, Some((1, 6))]);
    }

    /// A stalled recorder: recorder B closes rows 0..1000 (2 reads each), recorder A none until the end,
    /// then all of them at once (1 read each). Capped at 64 after every close, the rows waiting with
    /// histograms of their own never exceed 64 (nor the emptied histograms kept 4 × 64), and every read
    /// is taken exactly once: folded rows `None`, each fold's last row holding all its rows' reads.
    #[test]
    fn the_collector_folds_rows_waiting_for_a_stalled_recorder() {
        let mut rows = RowLatency::new();
        let own = |r: &RowLatency| {
            let first = r.capped.0.map_or(r.base, |h| r.base.max(h + 1));
            (r.base + r.pending.len() as u64).saturating_sub(first)
        };
        let mut capped = 0;
        for k in 0..1_000 {
            rows.add(k, Direction::Read, &mut hist(2, 1_000 + k));
            capped += rows.cap(MAX_WAITING_ROWS);
            assert!(own(&rows) <= MAX_WAITING_ROWS as u64, "row {k}");
            let held = rows
                .pending
                .iter()
                .filter(|r| r[Direction::Read].is_some())
                .count();
            assert!(held <= MAX_WAITING_ROWS + 1, "row {k}: {held} histograms");
        }
        // 1000 rows, a fold each time 65 wait: 15 folds of 65, 64 more since ⌊1000/65⌋ = 15 → 975 rows.
        assert_eq!((capped, rows.capped_rows()), (975, 975));
        for k in 0..1_000 {
            rows.add(k, Direction::Read, &mut hist(1, 7));
            rows.cap(MAX_WAITING_ROWS);
            assert!(rows.pool.len() <= MAX_POOL);
        }
        let (mut reads, mut folded, mut whole) = (0, 0, 0);
        for k in 0..1_000 {
            match rows.take(k) {
                Some(t) => {
                    reads += t.hists[Direction::Read].as_ref().map_or(0, |h| h.len());
                    whole += u64::from(t.from == k);
                }
                None => folded += 1,
            }
        }
        assert_eq!(reads, 3_000, "every read once");
        // One fold, rows 0..=974, its latencies in row 974; the other 25 rows their own.
        assert_eq!((folded, whole), (974, 25));
    }
}
