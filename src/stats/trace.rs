//! The per-I/O trace (`trace = N`): each completion's time, direction, offset, length and latency, kept in
//! memory reserved before the phase starts (so that the I/O path never allocates for it) and written as a
//! CSV after the phase. A phase keeps at most N rows: each of its R recorders (a worker's, or a psync queue
//! slot's thread) keeps its first ⌊N / R⌋ completions, the first N mod R recorders one more, and counts the
//! completions past its share as dropped.

use crate::vocab::Direction;

/// Most I/Os a phase's trace may keep (`trace = N`): 3.2 GB of memory during the phase.
pub const MAX_TRACE: u64 = 100_000_000;

/// One traced completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRow {
    /// Completion time, ns from the phase's t = 0 (the clock reading that put the I/O in its interval).
    pub t_ns: u64,
    /// Latency, ns (the I/O was submitted at `t_ns - lat_ns`).
    pub lat_ns: u64,
    /// Byte offset on the target.
    pub offset: u64,
    /// Length, bytes.
    pub len: u32,
    /// Direction.
    pub dir: Direction,
}

/// Bytes one traced I/O takes in memory during the phase.
pub const TRACE_ROW_BYTES: u64 = std::mem::size_of::<TraceRow>() as u64;

/// A recorder's trace: room for its share, reserved at setup, and the completions that did not fit.
#[derive(Debug, Default)]
pub struct TraceBuf {
    rows: Vec<TraceRow>,
    /// Completions past the share, not kept.
    pub dropped: u64,
}

impl TraceBuf {
    /// Room for `cap` rows, reserved now.
    ///
    /// # Errors
    /// The memory cannot be reserved.
    pub fn with_cap(cap: u64) -> Result<TraceBuf, std::collections::TryReserveError> {
        let mut rows = Vec::new();
        rows.try_reserve_exact(usize::try_from(cap).unwrap_or(usize::MAX))?;
        Ok(TraceBuf { rows, dropped: 0 })
    }

    /// Rows it may keep.
    pub fn cap(&self) -> usize {
        self.rows.capacity()
    }

    /// Keeps `r` if there is room (never growing the reservation), else counts it as dropped.
    #[inline(always)]
    pub fn push(&mut self, r: TraceRow) {
        if self.rows.len() < self.rows.capacity() {
            self.rows.push(r);
        } else {
            self.dropped += 1;
        }
    }

    /// Adds another recorder's rows and drops (after the phase).
    pub fn merge(&mut self, o: TraceBuf) {
        if self.rows.is_empty() {
            self.rows = o.rows;
        } else {
            self.rows.extend_from_slice(&o.rows);
        }
        self.dropped += o.dropped;
    }

    /// The rows kept, in order of completion time (a recorder's in its order).
    pub fn into_sorted(self) -> Vec<TraceRow> {
        let mut rows = self.rows;
        rows.sort_by_key(|r| r.t_ns);
        rows
    }

    /// Rows kept.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Recorder `r`'s share of a phase's trace of at most `cap` rows over `recorders` recorders.
pub fn share(cap: u64, recorders: u64, r: u64) -> u64 {
    let n = recorders.max(1);
    cap / n + u64::from(r < cap % n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_cap_and_a_full_buffer_drops() {
        for (cap, n) in [(10u64, 3u64), (2, 5), (1_000_000, 7), (0, 4)] {
            let sum: u64 = (0..n).map(|r| share(cap, n, r)).sum();
            assert_eq!(sum, cap, "cap {cap} over {n}");
            assert!((0..n).all(|r| share(cap, n, r) >= cap / n));
        }
        let mut t = TraceBuf::with_cap(2).unwrap();
        let row = |t_ns| TraceRow {
            t_ns,
            lat_ns: 1,
            offset: 0,
            len: 4096,
            dir: Direction::Read,
        };
        for ns in [30, 10, 20] {
            t.push(row(ns));
        }
        assert_eq!((t.len(), t.dropped, t.cap()), (2, 1, 2));
        let mut u = TraceBuf::with_cap(1).unwrap();
        u.push(row(5));
        t.merge(u);
        let got: Vec<u64> = t.into_sorted().iter().map(|r| r.t_ns).collect();
        assert_eq!(got, [5, 10, 30]);
    }
}
