//! The op stream: which I/O comes next (read or write, offset, length), as a pure function of the seed and
//! the op's index, independent of the engine and of how many workers share the stream.
//!
//! Random offsets are block-aligned and uniform over the span (with replacement), drawn from a seeded
//! `rand_pcg` PCG-64 (MCG) generator; the read/write choice is a second draw. Every op consumes exactly two
//! draws, so op `i` is reached by jumping the generator ahead by `2 i` (PCG's O(log n) advance): workers claim
//! chunks of op indices from a shared atomic counter and generate their chunk locally.

use rand_core::Rng;
use rand_pcg::Pcg64Mcg;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A read.
    Read,
    /// A write.
    Write,
}

/// One I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Op {
    /// Position in the stream (0-based); also selects the op's data.
    pub index: u64,
    /// Read or write.
    pub kind: OpKind,
    /// Byte offset on the target.
    pub offset: u64,
    /// Bytes.
    pub len: u32,
}

/// Offset order of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Uniform random blocks, with replacement.
    Random,
    /// Consecutive blocks from the span's start, wrapping at its end.
    Sequential,
}

/// The definition of an op stream: everything an op depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpStream {
    /// First byte of the span.
    pub span_start: u64,
    /// Span length in bytes: a whole number of blocks, except that a final partial block is allowed for
    /// sequential streams (a restored image's tail), which then gets a short last op.
    pub span_len: u64,
    /// Bytes per op.
    pub block_size: u64,
    /// Offset order.
    pub order: Order,
    /// Percentage of reads, 0..=100.
    pub read_percent: u8,
    /// Generator seed.
    pub seed: u64,
    /// Number of ops, or `None` for a time-bounded stream.
    pub total_ops: Option<u64>,
}

/// Number of ops a worker claims at once (fewer near the end of a short stream).
const MAX_CHUNK: u64 = 1024;

impl OpStream {
    fn blocks(&self) -> u64 {
        self.span_len.div_ceil(self.block_size)
    }

    fn rng_at(&self, index: u64) -> Pcg64Mcg {
        let state = ((self.seed as u128) << 64)
            ^ 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645
            ^ self.seed as u128;
        let mut rng = Pcg64Mcg::new(state);
        rng.advance(2 * index as u128);
        rng
    }

    fn make(&self, index: u64, r_off: u64, r_rw: u64) -> Op {
        let blocks = self.blocks();
        let block = match self.order {
            Order::Random => ((r_off as u128 * blocks as u128) >> 64) as u64,
            Order::Sequential => index % blocks,
        };
        let offset = self.span_start + block * self.block_size;
        let len = (self.span_start + self.span_len - offset).min(self.block_size) as u32;
        let kind = if (((r_rw as u128) * 100) >> 64) < self.read_percent as u128 {
            OpKind::Read
        } else {
            OpKind::Write
        };
        Op {
            index,
            kind,
            offset,
            len,
        }
    }

    /// The ops with indices in `range`, in order.
    pub fn ops(&self, range: Range<u64>) -> Ops<'_> {
        Ops {
            stream: self,
            rng: self.rng_at(range.start),
            next: range.start,
            end: range.end,
        }
    }

    /// Op `index` alone (for tests and verification; engines iterate [`OpStream::ops`]).
    pub fn op(&self, index: u64) -> Op {
        let mut rng = self.rng_at(index);
        let (a, b) = (rng.next_u64(), rng.next_u64());
        self.make(index, a, b)
    }
}

/// Iterator over a contiguous range of a stream's ops.
pub struct Ops<'a> {
    stream: &'a OpStream,
    rng: Pcg64Mcg,
    next: u64,
    end: u64,
}

impl Iterator for Ops<'_> {
    type Item = Op;
    #[inline]
    fn next(&mut self) -> Option<Op> {
        if self.next >= self.end {
            return None;
        }
        let (a, b) = (self.rng.next_u64(), self.rng.next_u64());
        let op = self.stream.make(self.next, a, b);
        self.next += 1;
        Some(op)
    }
}

/// A stream shared by several workers: each claims the next chunk of op indices.
pub struct SharedOps {
    stream: OpStream,
    next: AtomicU64,
    chunk: u64,
}

impl SharedOps {
    /// Shares `stream` among `workers` workers; chunks are small enough that every worker gets work.
    pub fn new(stream: OpStream, workers: u32) -> SharedOps {
        let chunk = match stream.total_ops {
            Some(n) => (n / (4 * workers.max(1) as u64)).clamp(1, MAX_CHUNK),
            None => MAX_CHUNK,
        };
        SharedOps {
            stream,
            next: AtomicU64::new(0),
            chunk,
        }
    }

    /// The stream.
    pub fn stream(&self) -> &OpStream {
        &self.stream
    }

    /// Claims the next chunk; `None` when a bounded stream is exhausted.
    pub fn claim(&self) -> Option<Ops<'_>> {
        let start = self.next.fetch_add(self.chunk, Ordering::Relaxed);
        let end = match self.stream.total_ops {
            Some(n) if start >= n => return None,
            Some(n) => (start + self.chunk).min(n),
            None => start + self.chunk,
        };
        Some(self.stream.ops(start..end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(order: Order, rp: u8, total: Option<u64>) -> OpStream {
        OpStream {
            span_start: 8192,
            span_len: 64 * 4096,
            block_size: 4096,
            order,
            read_percent: rp,
            seed: 7,
            total_ops: total,
        }
    }

    #[test]
    fn ranges_agree_with_single_ops() {
        let s = stream(Order::Random, 30, None);
        let all: Vec<Op> = s.ops(0..500).collect();
        let mid: Vec<Op> = s.ops(123..200).collect();
        assert_eq!(&all[123..200], &mid[..]);
        assert_eq!(all[499], s.op(499));
    }

    #[test]
    fn random_offsets_stay_in_span_and_aligned() {
        let s = stream(Order::Random, 50, None);
        for op in s.ops(0..20_000) {
            assert!(
                op.offset >= 8192 && op.offset + 4096 <= 8192 + 64 * 4096,
                "{op:?}"
            );
            assert_eq!(op.offset % 4096, 0);
            assert_eq!(op.len, 4096);
        }
    }

    #[test]
    fn read_share_is_exact_in_expectation() {
        // 100,000 draws at 30 %: standard deviation is 0.00145; allow 4 of them.
        let s = stream(Order::Random, 30, None);
        let reads = s.ops(0..100_000).filter(|o| o.kind == OpKind::Read).count();
        assert!((reads as f64 / 1e5 - 0.30).abs() < 0.0058, "{reads}");
        assert_eq!(
            stream(Order::Random, 0, None)
                .ops(0..1000)
                .filter(|o| o.kind == OpKind::Read)
                .count(),
            0
        );
        assert_eq!(
            stream(Order::Random, 100, None)
                .ops(0..1000)
                .filter(|o| o.kind == OpKind::Read)
                .count(),
            1000
        );
    }

    #[test]
    fn sequential_wraps_and_short_tail() {
        let s = OpStream {
            span_start: 0,
            span_len: 10_000,
            block_size: 4096,
            order: Order::Sequential,
            read_percent: 0,
            seed: 1,
            total_ops: Some(3),
        };
        let v: Vec<(u64, u32)> = s.ops(0..4).map(|o| (o.offset, o.len)).collect();
        assert_eq!(v, vec![(0, 4096), (4096, 4096), (8192, 1808), (0, 4096)]);
    }

    #[test]
    fn shared_claims_cover_every_index_once() {
        let shared = SharedOps::new(stream(Order::Sequential, 0, Some(1000)), 8);
        let mut seen = vec![0u32; 1000];
        while let Some(ops) = shared.claim() {
            for op in ops {
                seen[op.index as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
    }
}
