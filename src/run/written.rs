//! What the earlier phases of a run wrote, for case C10: reads of never-written or trimmed space are not the
//! drive's speed, so a workload reading where no earlier phase wrote gets a warning.
//!
//! The written bytes are a set of disjoint ranges: fills, restores and workloads add what their op stream
//! wrote (a pure function of the seed: the first `n` ops of the stream for a phase that completed `n`);
//! erases remove what they cover. Memory grows with the number of separate ranges, not with the target
//! (a few random writes on a 16 TiB file hold a few ranges); past [`MAX_RANGES`], the narrowest gaps are
//! taken as written until half as many are left, so that a long random-write workload over a large span
//! stays within about 64 MiB at the cost of under-counting the smallest unwritten gaps.

use crate::buf::try_vec;
use crate::ops::{OpStream, Sizes};
use crate::plan::ByteRange;
use crate::vocab::Direction;
use std::collections::BTreeMap;

/// Most separate written ranges kept (each about 40 bytes in the map).
pub const MAX_RANGES: usize = 1 << 20;
/// Ops replayed between two checks of whether the phase's range is all written (then replay stops).
const CHECK_EVERY: u64 = 1 << 20;
/// Most bits of the bitmap a replay marks its writes in (4 MiB: a span of 128 GiB in 4 KiB blocks); a
/// larger span is replayed into the ranges directly.
const BITMAP_BITS: u64 = 1 << 25;

/// The byte ranges written by the phases so far: start -> end, disjoint and not adjacent.
#[derive(Debug, Default)]
pub struct Written {
    ranges: BTreeMap<u64, u64>,
}

impl Written {
    /// What a file target held before the run: the ranges its file system holds data in (written blocks;
    /// holes and preallocated blocks never written are not), as far as [`MAX_RANGES`] of them; nothing when
    /// the file system cannot tell.
    pub fn on_file(f: &std::fs::File, len: u64) -> Written {
        let mut w = Written::default();
        let _ = crate::sys::file::data_ranges(f, 0, len, MAX_RANGES, |a, b| w.add(a, b));
        w
    }

    /// `[a, b)` was written.
    ///
    /// Called once per write when a phase's op stream is replayed (millions of times), so it allocates
    /// nothing and returns at once when a range already covers `[a, b)`, the common case once a random
    /// workload has covered most of its span.
    pub fn add(&mut self, a: u64, b: u64) {
        if a >= b {
            return;
        }
        let (mut lo, mut hi) = (a, b);
        // Every range that overlaps or touches [a, b] merges into it, the last one starting at or before b
        // first.
        while let Some((&s, &e)) = self.ranges.range(..=b).next_back() {
            if e < a {
                break;
            }
            if s <= a && e >= b {
                return;
            }
            self.ranges.remove(&s);
            lo = lo.min(s);
            hi = hi.max(e);
        }
        self.ranges.insert(lo, hi);
        if self.ranges.len() > MAX_RANGES {
            self.coarsen();
        }
    }

    /// `[a, b)` was erased: ranges straddling it keep their parts on either side.
    pub fn erase(&mut self, a: u64, b: u64) {
        if a >= b {
            return;
        }
        let hit: Vec<(u64, u64)> = self
            .ranges
            .range(..b)
            .rev()
            .take_while(|&(_, &e)| e > a)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in hit {
            self.ranges.remove(&s);
            if s < a {
                self.ranges.insert(s, a);
            }
            if e > b {
                self.ranges.insert(b, e);
            }
        }
    }

    /// Takes the narrowest gaps between ranges as written, until at most half of [`MAX_RANGES`] are left.
    fn coarsen(&mut self) {
        let v: Vec<(u64, u64)> = self.ranges.iter().map(|(&s, &e)| (s, e)).collect();
        let mut gaps: Vec<u64> = v.windows(2).map(|w| w[1].0 - w[0].1).collect();
        let merges = v.len() - MAX_RANGES / 2;
        let (_, &mut limit, _) = gaps.select_nth_unstable(merges - 1);
        // Every gap narrower than `limit` goes, and as many as `limit` wide as make up the count.
        let narrower = gaps.iter().filter(|&&g| g < limit).count();
        let mut equal_left = merges - narrower;
        let mut out = BTreeMap::new();
        let (mut s0, mut e0) = v[0];
        for &(s, e) in &v[1..] {
            let gap = s - e0;
            let merge = gap < limit || (gap == limit && equal_left > 0);
            if gap == limit && merge {
                equal_left -= 1;
            }
            if merge {
                e0 = e;
            } else {
                out.insert(s0, e0);
                (s0, e0) = (s, e);
            }
        }
        out.insert(s0, e0);
        self.ranges = out;
    }

    /// Marks the writes among the first `ops` ops of `stream`; stops early once the stream's span is all
    /// written.
    ///
    /// A span of at most [`BITMAP_BITS`] units (the largest size that divides every op length) is
    /// replayed into a bitmap first, one bit per unit (a few ns per write, where a map lookup per write
    /// took about 60 ns: a 3 s psync run at 550k writes per second spent a tenth of its CPU time there),
    /// whose runs then become ranges; a larger span, or a bitmap that cannot be allocated, goes into the
    /// ranges directly.
    pub fn add_stream(&mut self, stream: &OpStream, ops: u64) {
        self.add_stream_within(stream, ops, BITMAP_BITS);
    }

    /// [`Written::add_stream`] with a bitmap of at most `max_bits` bits.
    fn add_stream_within(&mut self, stream: &OpStream, ops: u64, max_bits: u64) {
        if let Some(bits) = Bitmap::replay(stream, ops, max_bits) {
            for (a, b) in bits.runs() {
                self.add(a, b);
            }
            return;
        }
        let (start, end) = (stream.span_start, stream.span_start + stream.span_len);
        let mut i = 0;
        while i < ops {
            let next = (i + CHECK_EVERY).min(ops);
            for op in stream.ops(i..next) {
                if op.dir == Direction::Write {
                    self.add(op.offset, op.offset + op.len as u64);
                }
            }
            i = next;
            if self.missing(start, end).0 == 0 {
                break;
            }
        }
    }

    /// Bytes of `[a, b)` that no written range covers, and the first such gap.
    pub fn missing(&self, a: u64, b: u64) -> (u64, Option<(u64, u64)>) {
        if a >= b {
            return (0, None);
        }
        let first = self
            .ranges
            .range(..a)
            .next_back()
            .filter(|&(_, &e)| e > a)
            .map(|(&s, &e)| (s, e));
        let mut reach = a;
        let mut bytes = 0;
        let mut gap = None;
        for (s, e) in first
            .into_iter()
            .chain(self.ranges.range(a..b).map(|(&s, &e)| (s, e)))
        {
            if s > reach {
                bytes += s - reach;
                gap.get_or_insert((reach, s));
            }
            reach = reach.max(e);
            if reach >= b {
                break;
            }
        }
        if reach < b {
            bytes += b - reach;
            gap.get_or_insert((reach, b));
        }
        (bytes, gap)
    }

    /// The warning for a workload reading `span`, when 1 % or more of it was not written by an earlier phase
    /// (a sliver left by rounding is not worth one).
    ///
    /// `file`: the target is a file, whose data before the run its file system told ([`Written::on_file`]).
    pub fn read_warning(&self, span: ByteRange, file: bool) -> Option<String> {
        let (start, end) = (span.start, span.end());
        let (missing, first) = self.missing(start, end);
        let (g0, g1) = first?;
        if (missing as u128 * 100) < span.len as u128 {
            return None;
        }
        // On a device, wkrun sees only this run's writes: a device an earlier run filled is said to be
        // unwritten for every read-only phase (trial 15), so the warning says what to do then.
        let (what, earlier) = match file {
            true => ("holds no written data", ""),
            false => (
                "was not written in this run",
                "; if an earlier run filled it, they do and this warning does not apply (wkrun sees only this run's writes)",
            ),
        };
        Some(format!(
            "never-written reads: {:.1} % of the span {what}: add a fill phase before this one, or reads there may not reach the device (read span [{start}, {end}), first gap [{g0}, {g1})){earlier}",
            missing as f64 * 100.0 / span.len as f64,
        ))
    }
}

/// The units of a stream's span that its writes covered: bit `i` is `[start + i × unit, + unit)`.
struct Bitmap {
    start: u64,
    unit: u64,
    words: Vec<u64>,
    bits: u64,
}

impl Bitmap {
    /// The writes among the first `ops` ops of `stream`, or `None` when its span has more than
    /// `max_bits` units (or is no whole number of them) or the bitmap cannot be allocated. Stops once
    /// every unit is written.
    fn replay(stream: &OpStream, ops: u64, max_bits: u64) -> Option<Bitmap> {
        let unit = match &stream.sizes {
            Sizes::Fixed(n) => *n,
            Sizes::Mix(m) => m.iter().fold(0, |g, &(n, _)| gcd(g, n)),
        };
        if unit == 0
            || !stream.span_len.is_multiple_of(unit)
            || !stream.span_start.is_multiple_of(unit)
        {
            return None;
        }
        let bits = stream.span_len / unit;
        if bits > max_bits {
            return None;
        }
        let words = try_vec(bits.div_ceil(64) as usize, 0u64, "the replay bitmap").ok()?;
        let mut map = Bitmap {
            start: stream.span_start,
            unit,
            words,
            bits,
        };
        let mut set = 0u64;
        for op in stream.ops(0..ops) {
            if op.dir != Direction::Write {
                continue;
            }
            let first = (op.offset - map.start) / unit;
            for i in first..first + op.len as u64 / unit {
                let (w, b) = ((i / 64) as usize, 1u64 << (i % 64));
                if map.words[w] & b == 0 {
                    map.words[w] |= b;
                    set += 1;
                }
            }
            if set == bits {
                break;
            }
        }
        Some(map)
    }

    /// The byte ranges of the runs of written units, in order.
    fn runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let at = |i: u64| self.start + i * self.unit;
        let mut i = 0u64;
        std::iter::from_fn(move || {
            i = self.next(i, true)?;
            let end = self.next(i, false).unwrap_or(self.bits);
            let run = (at(i), at(end));
            i = end;
            Some(run)
        })
    }

    /// The first unit from `i` whose bit is `value`, or `None` past the last.
    fn next(&self, mut i: u64, value: bool) -> Option<u64> {
        while i < self.bits {
            let w = self.words[(i / 64) as usize];
            let word = (if value { w } else { !w }) >> (i % 64);
            if word != 0 {
                return Some((i + word.trailing_zeros() as u64).min(self.bits));
            }
            i = (i / 64 + 1) * 64;
        }
        None
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erase_splits_and_missing_counts_the_gaps() {
        let mut w = Written::default();
        w.add(0, 100);
        w.add(200, 300);
        w.erase(50, 250);
        assert_eq!(w.ranges, BTreeMap::from([(0, 50), (250, 300)]));
        assert_eq!(w.missing(0, 400), (300, Some((50, 250))));
        assert_eq!(w.missing(0, 50), (0, None));
        assert_eq!(w.missing(260, 280), (0, None));
        assert_eq!(w.missing(40, 60), (10, Some((50, 60))));
        // Adjacent and overlapping writes merge into one range.
        w.add(50, 250);
        w.add(290, 310);
        assert_eq!(w.ranges, BTreeMap::from([(0, 310)]));
        w.erase(0, 1000);
        assert!(w.ranges.is_empty());
    }

    #[test]
    fn past_the_limit_the_narrowest_gaps_are_taken_as_written() {
        let mut w = Written::default();
        // Ranges of 10 bytes, the gap after the i-th one 1 byte wide for odd i, 5 for even i.
        let mut at = 0;
        for i in 0..=MAX_RANGES as u64 {
            w.add(at, at + 10);
            at += 10 + if i % 2 == 1 { 1 } else { 5 };
        }
        // Half are left: every 1-byte gap was merged, and one 5-byte gap (the first) to make the count.
        assert_eq!(w.ranges.len(), MAX_RANGES / 2);
        let v: Vec<(u64, u64)> = w.ranges.iter().map(|(&s, &e)| (s, e)).collect();
        assert!(v.windows(2).all(|p| p[1].0 - p[0].1 == 5));
        assert_eq!(v[0], (0, 36));
        assert_eq!(w.missing(0, 60), (5, Some((36, 41))));
    }

    /// Replaying a stream gives exactly the union of its writes, computed by an independent oracle (a
    /// bitmap of 512-byte sectors), for random (with repeats), full-coverage and sequential streams with
    /// reads among the writes, a block-size mix whose sizes are not multiples of the smallest, a replay
    /// that goes past one check of coverage and one that covers the whole span, each through the bitmap and
    /// through the ranges directly (a bitmap of 0 bits).
    #[test]
    fn a_replayed_stream_holds_the_union_of_its_writes() {
        use crate::ops::{Order, Sizes};
        let cases = [
            (Order::Random, Sizes::Fixed(4096), 300_000),
            (Order::RandomFull, Sizes::Fixed(4096), 100_000),
            (Order::Sequential, Sizes::Fixed(65536), 50_000),
            // Past CHECK_EVERY with the span not yet all written: a second, partial round of replay.
            (Order::Random, Sizes::Fixed(512), 1_100_000),
            // 4 KiB and 6 KiB at 4 KiB offsets: a bitmap of 2 KiB units.
            (
                Order::Random,
                Sizes::Mix(vec![(4096, 1), (6144, 1)]),
                200_000,
            ),
            // Every block twice over: the bitmap stops when all are written.
            (Order::RandomFull, Sizes::Fixed(65536), 9_000),
        ];
        for ((order, sizes, ops), max_bits) in cases
            .into_iter()
            .flat_map(|c| [(c.clone(), BITMAP_BITS), (c, 0)])
        {
            let stream = OpStream {
                span_start: 1 << 20,
                span_len: 1 << 28,
                sizes,
                order,
                mix: crate::ops::Mix::read_write(30),
                seed: 11,
                access: crate::ops::dist::Access::UNIFORM,
                total_ops: None,
            };
            let mut w = Written::default();
            w.add_stream_within(&stream, ops, max_bits);
            // The oracle: every 512-byte sector of the span a write of the first `ops` ops covers.
            let sector = |x: u64| ((x - stream.span_start) / 512) as usize;
            let mut bits = vec![false; (stream.span_len / 512) as usize];
            for op in stream.ops(0..ops).filter(|op| op.dir == Direction::Write) {
                bits[sector(op.offset)..sector(op.offset + op.len as u64)].fill(true);
            }
            let mut want = BTreeMap::new();
            let mut run: Option<usize> = None;
            for (i, &b) in bits.iter().chain([&false]).enumerate() {
                match (b, run) {
                    (true, None) => run = Some(i),
                    (false, Some(r)) => {
                        let at = |k: usize| stream.span_start + 512 * k as u64;
                        want.insert(at(r), at(i));
                        run = None;
                    }
                    _ => {}
                }
            }
            assert_eq!(
                w.ranges, want,
                "{order:?} {:?} bitmap {max_bits}",
                stream.sizes
            );
            assert!(!want.is_empty());
        }
    }

    #[test]
    fn the_warning_needs_one_percent_unwritten() {
        let span = ByteRange {
            start: 0,
            len: 10_000,
        };
        let mut w = Written::default();
        w.add(0, 9_950);
        // 50 of 10000 bytes (0.5 %): no warning; 100 bytes (1 %): a warning naming the first gap.
        assert_eq!(w.read_warning(span, false), None);
        let mut w = Written::default();
        w.add(0, 9_900);
        assert_eq!(
            w.read_warning(span, false).unwrap_or_default(),
            "never-written reads: 1.0 % of the span was not written in this run: add a fill phase before this one, or reads there may not reach the device (read span [0, 10000), first gap [9900, 10000)); if an earlier run filled it, they do and this warning does not apply (wkrun sees only this run's writes)"
        );
        assert_eq!(
            w.read_warning(span, true).unwrap_or_default(),
            "never-written reads: 1.0 % of the span holds no written data: add a fill phase before this one, or reads there may not reach the device (read span [0, 10000), first gap [9900, 10000))"
        );
    }
}
