//! The per-interval series: completions counted in the interval containing their completion time, per
//! direction, on a monotonic clock measured from the phase start (cases C01, C03, C11).
//!
//! Interval `k` covers `[k·Δ, (k+1)·Δ)` ns. In a time-bounded phase of duration D, no I/O starts at or after
//! D, and the I/Os in flight at D (the *drain*) complete in the last row, which is always partial: the short
//! interval D falls in, or, when D is a whole number of intervals, a row of its own, `[D, end)`. So a
//! completion after the bound never stretches a full row. All arithmetic is in u64 nanoseconds (584 years)
//! or wider.
//! Several workers record independently; the [`Series`] merges their closed intervals and releases a row
//! once every worker has moved past it, so rows are final when written and their counts add up exactly to
//! the phase totals.

use crate::vocab::{Direction, PerDir};
use std::ops::{Index, IndexMut};

/// Maps completion times to interval indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalClock {
    /// Interval length Δ, ns (> 0).
    pub interval_ns: u64,
    /// For a time-bounded phase of duration D: the nominal end D in ns. Completions at or after D (the I/Os
    /// in flight when the bound is reached) are counted in the drain ([`IntervalClock::drain_index`]).
    pub bound_ns: Option<u64>,
}

impl IntervalClock {
    /// Index of the last interval that starts before the bound of a time-bounded phase.
    pub fn last_index(&self) -> Option<u64> {
        self.bound_ns
            .map(|d| d.div_ceil(self.interval_ns).max(1) - 1)
    }

    /// Index of the drain of a time-bounded phase, the row holding the completions at or after the bound:
    /// `floor(D/Δ)`, which is the last interval itself when D falls inside it (that row is partial anyway)
    /// and the row after it when D is a whole number of intervals.
    pub fn drain_index(&self) -> Option<u64> {
        self.bound_ns.map(|d| d / self.interval_ns)
    }

    /// Interval index of a completion at `t_ns` after the phase start.
    #[inline]
    pub fn index_of(&self, t_ns: u64) -> u64 {
        match self.bound_ns {
            Some(d) if t_ns >= d => d / self.interval_ns,
            _ => t_ns / self.interval_ns,
        }
    }

    /// The end of interval `k`, ns: `(k + 1)·Δ`, or never (`u64::MAX`) for the drain of a time-bounded
    /// phase, which takes every completion after the bound.
    pub fn end_of(&self, k: u64) -> u64 {
        match self.drain_index() {
            Some(drain) if k >= drain => u64::MAX,
            _ => k.saturating_add(1).saturating_mul(self.interval_ns),
        }
    }
}

/// One direction's counts in one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DirInterval {
    /// Completed I/Os.
    pub ops: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// Sum of latencies, ns.
    pub lat_sum_ns: u128,
    /// Largest latency, ns.
    pub lat_max_ns: u64,
}

impl DirInterval {
    /// Adds one completion.
    #[inline]
    pub fn add(&mut self, bytes: u64, lat_ns: u64) {
        self.ops += 1;
        self.bytes += bytes;
        self.lat_sum_ns += lat_ns as u128;
        self.lat_max_ns = self.lat_max_ns.max(lat_ns);
    }

    /// Adds `n` completions of `bytes` each that took `lat_ns` each: the same counts as `n` calls of
    /// [`DirInterval::add`].
    #[inline]
    pub fn add_n(&mut self, bytes: u64, lat_ns: u64, n: u64) {
        self.ops += n;
        self.bytes += bytes * n;
        self.lat_sum_ns += lat_ns as u128 * n as u128;
        self.lat_max_ns = self.lat_max_ns.max(lat_ns);
    }

    /// Adds another worker's counts for the same interval.
    pub fn merge(&mut self, o: &DirInterval) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.lat_sum_ns += o.lat_sum_ns;
        self.lat_max_ns = self.lat_max_ns.max(o.lat_max_ns);
    }
}

/// Every direction's counts in one interval; `counts[Direction::Read]` is the reads'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntervalCounts {
    /// Each direction's counts.
    pub by_dir: PerDir<DirInterval>,
    /// I/Os that failed in the interval (with `on_error = "continue"`), and a verify phase's blocks that did
    /// not verify.
    pub errors: u64,
}

impl IntervalCounts {
    /// Adds another worker's counts.
    pub fn merge(&mut self, o: &IntervalCounts) {
        self.by_dir.merge_with(&o.by_dir, DirInterval::merge);
        self.errors += o.errors;
    }

    /// True when nothing completed or failed.
    pub fn is_empty(&self) -> bool {
        self.by_dir.0.iter().all(|d| d.ops == 0) && self.errors == 0
    }
}

impl Index<Direction> for IntervalCounts {
    type Output = DirInterval;
    #[inline(always)]
    fn index(&self, d: Direction) -> &DirInterval {
        &self.by_dir[d]
    }
}

impl IndexMut<Direction> for IntervalCounts {
    #[inline(always)]
    fn index_mut(&mut self, d: Direction) -> &mut DirInterval {
        &mut self.by_dir[d]
    }
}

/// Merges the closed intervals of several workers into final rows, in order, with no gaps.
pub struct Series {
    clock: IntervalClock,
    /// Per worker: every interval below this index is closed.
    watermarks: Vec<u64>,
    /// Counts of intervals `base..`, not yet released.
    pending: std::collections::VecDeque<IntervalCounts>,
    base: u64,
    /// Phase totals accumulated from released rows.
    totals: IntervalCounts,
}

impl Series {
    /// A series for `workers` workers.
    pub fn new(clock: IntervalClock, workers: usize) -> Series {
        Series {
            clock,
            watermarks: vec![0; workers],
            pending: Default::default(),
            base: 0,
            totals: Default::default(),
        }
    }

    /// Worker `w` closed interval `index` with `counts` and is now recording interval `now_in` (all
    /// intervals below `now_in` are closed for it; `u64::MAX` when it has finished).
    pub fn close(&mut self, w: usize, index: u64, counts: &IntervalCounts, now_in: u64) {
        // Every worker's intervals arrive in order and rows are released only below every watermark, so a
        // closed interval is never below the released ones: the series' sums stay equal to the totals.
        debug_assert!(
            counts.is_empty() || index >= self.base,
            "interval {index} closed after its row was written"
        );
        if !counts.is_empty() {
            let slot = (index - self.base.min(index)) as usize;
            if index >= self.base {
                if self.pending.len() <= slot {
                    self.pending.resize(slot + 1, IntervalCounts::default());
                }
                self.pending[slot].merge(counts);
            }
        }
        self.watermarks[w] = self.watermarks[w].max(now_in);
    }

    /// Releases the rows every worker has closed, as `(index, counts)`. The phase's last interval before the
    /// bound and the drain are left for [`Series::finish`], which knows the phase's true end.
    pub fn ready(&mut self) -> Vec<(u64, IntervalCounts)> {
        let done_below = self.watermarks.iter().copied().min().unwrap_or(u64::MAX);
        if done_below == u64::MAX {
            return Vec::new();
        }
        let limit = match self.clock.last_index() {
            Some(last) => done_below.min(last),
            None => done_below,
        };
        let mut out = Vec::new();
        while self.base < limit {
            let c = self.pending.pop_front().unwrap_or_default();
            self.totals.merge(&c);
            out.push((self.base, c));
            self.base += 1;
        }
        out
    }

    /// After every worker finished: releases all remaining rows. The last row is the one containing `end_ns`
    /// (the phase's end); for a time-bounded phase that ran to its bound (`cut_short` = false), the rows up
    /// to the bound are fixed by the duration, so a 4 s phase has exactly 4 rows before its drain, and the
    /// drain is a row of its own when the phase ended after a bound that is a whole number of intervals.
    pub fn finish(&mut self, end_ns: u64, cut_short: bool) -> Vec<(u64, IntervalCounts)> {
        let by_time = end_ns / self.clock.interval_ns;
        let last = match (self.clock.bound_ns, self.clock.last_index()) {
            (Some(d), Some(l)) if end_ns > d => l.max(d / self.clock.interval_ns),
            (_, Some(l)) if !cut_short => l,
            (_, Some(l)) => by_time.min(l),
            _ => by_time,
        };
        let mut out = Vec::new();
        while self.base <= last || !self.pending.is_empty() {
            let c = self.pending.pop_front().unwrap_or_default();
            self.totals.merge(&c);
            out.push((self.base, c));
            self.base += 1;
        }
        out
    }

    /// Totals of every released row.
    pub fn totals(&self) -> IntervalCounts {
        self.totals
    }

    /// Whether row `index` holds the drain of a time-bounded phase (a partial row, whatever its length).
    pub fn is_drain(&self, index: u64) -> bool {
        self.clock.drain_index() == Some(index)
    }

    /// The `[start, end)` ns of row `index`: `[kΔ, (k+1)Δ)`, except that the last row, and the drain, end at
    /// the phase's true end `end_ns` (the bound, or later when I/Os in flight at the bound completed after
    /// it).
    pub fn row_span(&self, index: u64, is_last: bool, end_ns: u64) -> (u64, u64) {
        let d = self.clock.interval_ns;
        let start = index * d;
        if is_last || self.is_drain(index) {
            (start, end_ns.max(start))
        } else {
            (start, start + d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(reads: u64, writes: u64) -> IntervalCounts {
        let mut x = IntervalCounts::default();
        for _ in 0..reads {
            x[Direction::Read].add(4096, 10);
        }
        for _ in 0..writes {
            x[Direction::Write].add(4096, 10);
        }
        x
    }

    #[test]
    fn c11_bucket_indices_are_exact_in_64_bit() {
        for d in [1_000_000u64, 5_000_000_000, 25_000_000_000, 60_000_000_000] {
            let clock = IntervalClock {
                interval_ns: d,
                bound_ns: None,
            };
            for end in [11_000_000_000u64, 36_000_000_000_000] {
                // Completion times every 7 ms up to `end`: each interval's count is computed independently.
                let step = 7_000_000;
                let mut counts = std::collections::HashMap::new();
                let mut t = 0;
                while t < end {
                    *counts.entry(clock.index_of(t)).or_insert(0u64) += 1;
                    t += step * 997; // sparse sampling keeps the 10 h timeline fast
                }
                for (k, n) in counts {
                    let lo = (k * d).div_ceil(step * 997);
                    let hi = ((k + 1) * d).div_ceil(step * 997);
                    assert_eq!(
                        n,
                        hi.min(end.div_ceil(step * 997)) - lo,
                        "interval {d} ns, index {k}"
                    );
                }
            }
            let last_t = 36_000_000_000_000 - 1;
            assert_eq!(clock.index_of(last_t), last_t / d);
        }
        // 500 min with 1 min intervals: 500 intervals.
        let clock = IntervalClock {
            interval_ns: 60_000_000_000,
            bound_ns: Some(30_000_000_000_000),
        };
        assert_eq!(clock.last_index(), Some(499));
    }

    #[test]
    fn c01_rows_wait_for_every_worker_and_gaps_are_zero_rows() {
        let clock = IntervalClock {
            interval_ns: 1_000_000_000,
            bound_ns: Some(3_500_000_000),
        };
        let mut s = Series::new(clock, 2);
        s.close(0, 0, &c(3, 0), 2);
        assert!(s.ready().is_empty(), "worker 1 has not closed interval 0");
        s.close(1, 0, &c(0, 4), 1);
        let r = s.ready();
        assert_eq!(r.len(), 1);
        assert_eq!(
            r[0].1[Direction::Read].ops + r[0].1[Direction::Write].ops,
            7
        );
        s.close(1, 3, &c(1, 1), u64::MAX);
        s.close(0, 2, &c(2, 0), u64::MAX);
        let mut rows = s.ready();
        assert!(
            rows.is_empty(),
            "every worker finished: the rest waits for finish()"
        );
        rows.extend(s.finish(3_500_200_000, false));
        let idx: Vec<u64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(idx, vec![1, 2, 3], "the drain is in the partial row");
        assert!(
            rows[0].1.is_empty(),
            "interval 1 had no completions: a zero row"
        );
        assert_eq!(s.totals()[Direction::Read].ops, 6);
        assert_eq!(s.totals()[Direction::Write].ops, 5);
        assert_eq!(
            s.row_span(3, true, 3_500_200_000),
            (3_000_000_000, 3_500_200_000)
        );
        assert!(s.is_drain(3) && !s.is_drain(2));
        assert_eq!(
            s.row_span(1, false, 3_500_200_000),
            (1_000_000_000, 2_000_000_000)
        );
    }

    #[test]
    fn completions_after_the_bound_go_to_the_drain_and_never_stretch_a_full_row() {
        let clock = IntervalClock {
            interval_ns: 1_000_000_000,
            bound_ns: Some(4_000_000_000),
        };
        assert_eq!(
            (clock.last_index(), clock.drain_index()),
            (Some(3), Some(4))
        );
        assert_eq!(clock.index_of(3_999_999_999), 3);
        assert_eq!(clock.index_of(4_000_000_000), 4);
        assert_eq!(clock.index_of(9_000_000_000), 4, "however late");
        assert_eq!(clock.end_of(3), 4_000_000_000);
        assert_eq!(clock.end_of(4), u64::MAX);
        let mut s = Series::new(clock, 1);
        s.close(0, 3, &c(0, 5), 4);
        assert!(
            s.ready().iter().all(|r| r.0 < 3),
            "the last two wait for finish"
        );
        s.close(0, 4, &c(0, 32), u64::MAX);
        let rows = s.finish(5_475_200_000, false);
        let got: Vec<(u64, u64, (u64, u64))> = rows
            .iter()
            .map(|(k, c)| {
                (
                    *k,
                    c[Direction::Write].ops,
                    s.row_span(*k, *k == 4, 5_475_200_000),
                )
            })
            .collect();
        assert_eq!(
            got.last().copied(),
            Some((4, 32, (4_000_000_000, 5_475_200_000))),
            "a 1.4752 s drain is a row of its own"
        );
        assert_eq!(got[got.len() - 2], (3, 5, (3_000_000_000, 4_000_000_000)));
        assert!(s.is_drain(4) && !s.is_drain(3));
        // Ended exactly at the bound, nothing after it: no drain row.
        let mut s = Series::new(clock, 1);
        s.close(0, 3, &c(0, 5), u64::MAX);
        let rows = s.finish(4_000_000_000, false);
        assert_eq!(rows.last().map(|r| r.0), Some(3));
        // An interval that does not divide the bound: the drain joins the partial interval the bound is in.
        let clock = IntervalClock {
            interval_ns: 1_500_000_000,
            bound_ns: Some(7_000_000_000),
        };
        assert_eq!(
            (clock.last_index(), clock.drain_index()),
            (Some(4), Some(4))
        );
        assert_eq!(clock.index_of(6_999_999_999), 4);
        assert_eq!(clock.index_of(7_100_000_000), 4);
        assert_eq!(clock.end_of(3), 6_000_000_000);
        let mut s = Series::new(clock, 1);
        s.close(0, 4, &c(1, 0), u64::MAX);
        assert_eq!(s.finish(7_100_000_000, false).len(), 5);
        assert_eq!(
            s.row_span(4, true, 7_100_000_000),
            (6_000_000_000, 7_100_000_000)
        );
    }
}
