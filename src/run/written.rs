//! What the earlier phases of a run wrote, for case C10: reads of never-written or trimmed space are not the
//! drive's speed, so a workload reading where no earlier phase wrote gets a warning.
//!
//! The target is tracked in *units* of 512 bytes (more on a target over 128 GiB, so that the map stays
//! within 32 MiB): one bit per unit, set when an earlier phase wrote the whole unit. Fills, restores and
//! workloads mark what their op stream wrote (a pure function of the seed: the first `n` ops of the stream
//! for a phase that completed `n`); erases clear what they touch.

use crate::ops::{OpKind, OpStream};
use crate::plan::ByteRange;

/// Smallest unit tracked, bytes.
const MIN_UNIT: u64 = 512;
/// Most units tracked: the map is at most 32 MiB.
const MAX_UNITS: u64 = 1 << 28;
/// Ops replayed between two checks of whether the phase's range is all written (then replay stops).
const CHECK_EVERY: u64 = 1 << 20;

/// The units of the target written by the phases so far.
#[derive(Debug, Default)]
pub struct Written {
    unit: u64,
    /// One bit per unit; empty when the map could not be allocated (then nothing is warned about).
    bits: Vec<u64>,
}

impl Written {
    /// Nothing written yet on a target of `capacity` bytes; a map that cannot be allocated tracks nothing
    /// (and no warning is given).
    pub fn new(capacity: u64) -> Written {
        let mut unit = MIN_UNIT;
        while capacity.div_ceil(unit) > MAX_UNITS {
            unit *= 2;
        }
        let words = capacity.div_ceil(unit).div_ceil(64) as usize;
        let bits =
            crate::buf::try_vec(words, 0u64, "the map of written blocks").unwrap_or_default();
        Written { unit, bits }
    }

    /// Units in the map.
    fn units(&self) -> u64 {
        self.bits.len() as u64 * 64
    }

    fn get(&self, u: u64) -> bool {
        self.bits[(u / 64) as usize] >> (u % 64) & 1 == 1
    }

    /// Sets (`on`) or clears the units `[u0, u1)`, a word at a time where it can.
    fn set(&mut self, u0: u64, u1: u64, on: bool) {
        let mut u = u0;
        while u < u1 {
            let (w, b) = ((u / 64) as usize, u % 64);
            let n = (64 - b).min(u1 - u);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << b
            };
            if on {
                self.bits[w] |= mask;
            } else {
                self.bits[w] &= !mask;
            }
            u += n;
        }
    }

    /// Written units among `[u0, u1)`.
    fn count(&self, u0: u64, u1: u64) -> u64 {
        let mut u = u0;
        let mut total = 0;
        while u < u1 {
            let (w, b) = ((u / 64) as usize, u % 64);
            let n = (64 - b).min(u1 - u);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << b
            };
            total += (self.bits[w] & mask).count_ones() as u64;
            u += n;
        }
        total
    }

    /// `[a, b)` was written: the units it covers whole are marked.
    pub fn add(&mut self, a: u64, b: u64) {
        let end = self.units();
        let (u0, u1) = (a.div_ceil(self.unit).min(end), (b / self.unit).min(end));
        if u0 < u1 {
            self.set(u0, u1, true);
        }
    }

    /// `[a, b)` was erased: every unit it touches is cleared.
    pub fn erase(&mut self, a: u64, b: u64) {
        let end = self.units();
        let (u0, u1) = ((a / self.unit).min(end), b.div_ceil(self.unit).min(end));
        if u0 < u1 {
            self.set(u0, u1, false);
        }
    }

    /// Marks the writes among the first `ops` ops of `stream`; stops early once the stream's span is all
    /// written.
    pub fn add_stream(&mut self, stream: &OpStream, ops: u64) {
        let (start, end) = (stream.span_start, stream.span_start + stream.span_len);
        let mut i = 0;
        while i < ops && !self.bits.is_empty() {
            let next = (i + CHECK_EVERY).min(ops);
            for op in stream.ops(i..next) {
                if op.kind == OpKind::Write {
                    self.add(op.offset, op.offset + op.len as u64);
                }
            }
            i = next;
            if self.missing(start, end).0 == 0 {
                break;
            }
        }
    }

    /// Bytes of `[a, b)` in units not written, and the first run of such units (clipped to `[a, b)`).
    pub fn missing(&self, a: u64, b: u64) -> (u64, Option<(u64, u64)>) {
        if self.bits.is_empty() || a >= b {
            return (0, None);
        }
        let unit = self.unit;
        let (u0, u1) = (a / unit, b.div_ceil(unit).min(self.units()));
        if u0 >= u1 {
            return (0, None);
        }
        let unwritten = (u1 - u0) - self.count(u0, u1);
        if unwritten == 0 {
            return (0, None);
        }
        let Some(g0) = (u0..u1).find(|&u| !self.get(u)) else {
            return (0, None);
        };
        let g1 = (g0..u1).find(|&u| self.get(u)).unwrap_or(u1);
        // The units at either end may reach outside [a, b): take off what lies outside.
        let mut bytes = unwritten * unit;
        if !self.get(u0) {
            bytes -= a - u0 * unit;
        }
        if !self.get(u1 - 1) {
            bytes -= (u1 * unit).saturating_sub(b);
        }
        (bytes, Some(((g0 * unit).max(a), (g1 * unit).min(b))))
    }

    /// The warning for a workload reading `span`, when 1 % or more of it was not written by an earlier phase
    /// (a sliver left by rounding is not worth one).
    pub fn read_warning(&self, span: ByteRange) -> Option<String> {
        let (start, end) = (span.start, span.end());
        let (missing, first) = self.missing(start, end);
        let (g0, g1) = first?;
        if (missing as u128 * 100) < span.len as u128 {
            return None;
        }
        Some(format!(
            "{:.1} % of the read span [{start}, {end}) was not written earlier in this run (first gap [{g0}, {g1})): reads there may not reach the flash; precondition with a fill",
            missing as f64 * 100.0 / span.len as f64,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erase_splits_and_missing_counts_the_gaps() {
        let mut w = Written::new(1 << 20);
        w.add(0, 51_200);
        w.add(102_400, 153_600);
        w.erase(25_600, 128_000);
        // Written: [0, 25600) and [128000, 153600).
        assert_eq!(
            w.missing(0, 204_800),
            (102_400 + 51_200, Some((25_600, 128_000)))
        );
        assert_eq!(w.missing(0, 25_600), (0, None));
        assert_eq!(w.missing(128_000, 153_600), (0, None));
        // Ends inside units: only the bytes inside [a, b) count.
        assert_eq!(w.missing(25_000, 26_000), (400, Some((25_600, 26_000))));
        assert_eq!(w.missing(153_600, 154_000), (400, Some((153_600, 154_000))));
        // A write marks only whole units; an erase clears every unit it touches.
        let mut w = Written::new(1 << 20);
        w.add(100, 1100);
        assert_eq!(w.missing(0, 1536).0, 1024);
        w.add(0, 4096);
        w.erase(1000, 1001);
        assert_eq!(w.missing(0, 4096), (512, Some((512, 1024))));
    }

    #[test]
    fn large_targets_use_larger_units() {
        assert_eq!(Written::new(1 << 30).unit, 512);
        assert_eq!(Written::new(128 << 30).unit, 512);
        assert_eq!(Written::new((128 << 30) + 1).unit, 1024);
        assert_eq!(Written::new(4 << 40).unit, 16384);
    }

    #[test]
    fn the_warning_needs_one_percent_unwritten() {
        let span = ByteRange {
            start: 0,
            len: 102_400,
        };
        let mut w = Written::new(1 << 20);
        w.add(0, 101_888);
        // 512 of 102400 bytes (0.5 %): no warning; 1024 bytes (1 %): a warning naming the first gap.
        assert_eq!(w.read_warning(span), None);
        let mut w = Written::new(1 << 20);
        w.add(0, 101_376);
        assert_eq!(
            w.read_warning(span).unwrap_or_default(),
            "1.0 % of the read span [0, 102400) was not written earlier in this run (first gap [101376, 102400)): reads there may not reach the flash; precondition with a fill"
        );
    }
}
