//! The op stream: which I/O comes next (read or write, offset, length), as a pure function of the seed and
//! the op's index, independent of the engine and of how many workers share the stream.
//!
//! - Offsets: `sequential` walks the span block by block, wrapping at its end; `random` draws a block-aligned
//!   offset uniformly over the span (with replacement) from a seeded `rand_pcg` PCG-64 (MCG), or from a
//!   skewed law ([`dist`]: zipf, pareto, normal, zones) with the same one draw; `random` with full coverage
//!   visits every block exactly once per pass in the order of a keyed permutation
//!   ([`permute::Permutation`]).
//! - Direction: in every group of 100 consecutive ops exactly the [`Mix`]'s percentage of each direction
//!   (`read_percent` reads, `trim_percent` trims, the rest writes), at positions shuffled per group from the
//!   seed, so each share is exact over the run (10 000 ops at 50 % reads and 20 % trims are exactly 5 000
//!   reads, 2 000 trims and 3 000 writes) and random in order.
//! - Length: the block size, or for a weighted mix one size drawn per op by weight.
//!
//! Every op consumes exactly two draws of the PCG stream (offset, size), so op `i` is reached by jumping the
//! generator ahead by `2 i` (PCG's O(log n) advance): workers claim chunks of op indices from a shared atomic
//! counter and generate their chunk locally.

pub mod dist;
pub mod permute;
pub mod zones;

use crate::data::mix64;
use crate::vocab::{Direction, PerDir};
use permute::Permutation;
use rand_core::Rng;
use rand_pcg::Pcg64Mcg;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// The seed of the op stream of the phase named `name` (its full, expanded name: `stability[read=70]`) in a
/// spec of seed `seed`: a hash of both, so no two phases of a run draw the same offsets and data, and a
/// phase's stream depends on nothing else (not on the phases before it, `--from`, or which sweep members
/// run). The name is taken 8 bytes at a time (little-endian, the last word padded with zeros), then its
/// length.
pub fn phase_seed(seed: u64, name: &str) -> u64 {
    let mut h = mix64(seed ^ 0x7068_6173_652d_7365); // "phase-se"
    for word in name.as_bytes().chunks(8) {
        let mut b = [0u8; 8];
        b[..word.len()].copy_from_slice(word);
        h = mix64(h ^ u64::from_le_bytes(b));
    }
    mix64(h ^ name.len() as u64)
}

/// The seed of worker `w`'s op stream (and data) in a phase seeded `seed`: worker 0 keeps the phase's seed
/// (one worker runs as before workers existed); the others get a mix of both.
pub fn worker_seed(seed: u64, w: u32) -> u64 {
    if w == 0 {
        seed
    } else {
        mix64(seed ^ mix64(0x776f_726b_6572 ^ w as u64))
    }
}

/// The op mix: the percentage of a stream's ops in each direction, summing to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mix(PerDir<u8>);

impl Mix {
    /// `read_percent` % reads (0..=100, larger is taken as 100), the rest writes.
    pub fn read_write(read_percent: u8) -> Mix {
        let r = read_percent.min(100);
        let mut m = PerDir::default();
        m[Direction::Read] = r;
        m[Direction::Write] = 100 - r;
        Mix(m)
    }

    /// `read_percent` % reads, `trim_percent` % trims, the rest writes; `None` when the two add up to more
    /// than 100 (the spec's rules refuse that before a plan is made).
    pub fn new(read_percent: u8, trim_percent: u8) -> Option<Mix> {
        let rest = 100u8.checked_sub(read_percent)?.checked_sub(trim_percent)?;
        let mut m = PerDir::default();
        m[Direction::Read] = read_percent;
        m[Direction::Trim] = trim_percent;
        m[Direction::Write] = rest;
        Some(Mix(m))
    }

    /// The percentage of ops in direction `d`.
    pub fn percent(&self, d: Direction) -> u8 {
        self.0[d]
    }

    /// Whether the stream has ops in more than one direction (their positions are then shuffled).
    pub fn is_mixed(&self) -> bool {
        self.0.iter().filter(|(_, p)| **p > 0).count() > 1
    }
}

/// One I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Op {
    /// Position in the stream (0-based); also selects the op's data.
    pub index: u64,
    /// Read, write or trim.
    pub dir: Direction,
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
    /// Every block once per pass, in a random order (`coverage = "full"`).
    RandomFull,
    /// Consecutive blocks from the span's start, wrapping at its end.
    Sequential,
}

/// Op lengths: one block size, or a weighted mix (like fio's bssplit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sizes {
    /// Every op has this many bytes.
    Fixed(u64),
    /// `(bytes, weight)` entries with positive weights; offsets are aligned to the smallest size.
    Mix(Vec<(u64, u32)>),
}

impl Sizes {
    /// The offset alignment unit: the block size, or the smallest size of a mix.
    pub fn unit(&self) -> u64 {
        match self {
            Sizes::Fixed(b) => *b,
            Sizes::Mix(v) => v.iter().map(|e| e.0).min().unwrap_or(1),
        }
    }

    /// The largest op length (the buffer size an engine needs).
    pub fn max(&self) -> u64 {
        match self {
            Sizes::Fixed(b) => *b,
            Sizes::Mix(v) => v.iter().map(|e| e.0).max().unwrap_or(1),
        }
    }

    /// Every op length, in spec order.
    pub fn lengths(&self) -> Vec<u64> {
        match self {
            Sizes::Fixed(b) => vec![*b],
            Sizes::Mix(v) => v.iter().map(|e| e.0).collect(),
        }
    }

    fn pick(&self, r: u64) -> u64 {
        match self {
            Sizes::Fixed(b) => *b,
            Sizes::Mix(v) => {
                let total: u64 = v.iter().map(|e| e.1 as u64).sum();
                let mut x = ((r as u128 * total as u128) >> 64) as u64;
                for &(bytes, w) in v {
                    if x < w as u64 {
                        return bytes;
                    }
                    x -= w as u64;
                }
                v.last().map_or(1, |e| e.0)
            }
        }
    }
}

/// The definition of an op stream: everything an op depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpStream {
    /// First byte of the span.
    pub span_start: u64,
    /// Span length in bytes: a whole number of units, except that a final partial block is allowed for
    /// sequential streams (a restored image's tail), which then gets a short last op.
    pub span_len: u64,
    /// Op lengths.
    pub sizes: Sizes,
    /// Offset order.
    pub order: Order,
    /// The share of each direction.
    pub mix: Mix,
    /// Generator seed.
    pub seed: u64,
    /// Where random offsets fall ([`Order::Random`] only; uniform otherwise).
    pub access: dist::Access,
    /// Number of ops, or `None` for a time-bounded stream.
    pub total_ops: Option<u64>,
}

/// Number of ops a worker claims at once (fewer near the end of a short stream).
const MAX_CHUNK: u64 = 1024;
/// Ops per direction group: each group has exactly each direction's percentage of the mix.
const GROUP: u64 = 100;

impl OpStream {
    /// Blocks of the span, in units of [`Sizes::unit`].
    pub fn blocks(&self) -> u64 {
        self.span_len.div_ceil(self.sizes.unit())
    }

    fn rng_at(&self, index: u64) -> Pcg64Mcg {
        let state = ((self.seed as u128) << 64)
            ^ 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645
            ^ self.seed as u128;
        let mut rng = Pcg64Mcg::new(state);
        rng.advance(2 * index as u128);
        rng
    }

    /// The directions of group `g`: `dirs[k]` is the direction of op `g·100 + k`.
    fn group_dirs(&self, g: u64) -> [Direction; GROUP as usize] {
        let mut slots = [Direction::Write; GROUP as usize];
        let mut at = 0;
        for (d, &percent) in self.mix.0.iter() {
            let end = (at + percent as usize).min(slots.len());
            slots[at..end].fill(d);
            at = end;
        }
        if self.mix.is_mixed() {
            let mut rng =
                Pcg64Mcg::new(((mix64(self.seed ^ 0x7265_6164) as u128) << 64) | mix64(g) as u128);
            for i in (1..slots.len()).rev() {
                let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
                slots.swap(i, j);
            }
        }
        slots
    }

    /// Positions where an op of `len` bytes fits entirely in the span, in units.
    fn fits(&self, len: u64) -> u64 {
        (self.span_len - len) / self.sizes.unit() + 1
    }

    #[inline(always)]
    fn make(
        &self,
        index: u64,
        r_off: u64,
        r_size: u64,
        dir: Direction,
        perm: Option<&Permutation>,
        k: &Consts<'_>,
    ) -> Op {
        let unit = k.unit;
        let blocks = k.blocks;
        let len = self.sizes.pick(r_size);
        let block = match (self.order, perm) {
            (Order::Sequential, _) => index % blocks,
            (Order::RandomFull, Some(p)) => p.apply(index % blocks),
            _ => {
                let fits = if k.fixed_fits > 0 {
                    k.fixed_fits
                } else {
                    self.fits(len)
                };
                match k.sampler.block(r_off) {
                    // A skewed draw, moved back where an op of this length ends in the span.
                    Some(b) => b.min(fits - 1),
                    None => ((r_off as u128 * fits as u128) >> 64) as u64,
                }
            }
        };
        let offset = self.span_start + block * unit;
        let len = (self.span_start + self.span_len - offset).min(len) as u32;
        Op {
            index,
            dir,
            offset,
            len,
        }
    }

    fn pass_permutation(&self, pass: u64) -> Option<Permutation> {
        (self.order == Order::RandomFull)
            .then(|| Permutation::new(self.blocks(), mix64(self.seed) ^ mix64(pass)))
    }

    /// Number of ops in direction `dir` among ops `0..index` (exact: every group of 100 holds the mix's
    /// percentage of each direction).
    pub fn before(&self, dir: Direction, index: u64) -> u64 {
        let g = index / GROUP;
        let within = (index % GROUP) as usize;
        let partial = if within == 0 {
            0
        } else {
            self.group_dirs(g)[..within]
                .iter()
                .filter(|&&d| d == dir)
                .count() as u64
        };
        g * self.mix.percent(dir) as u64 + partial
    }

    /// The ops with indices in `range`, in order.
    pub fn ops(&self, range: Range<u64>) -> Ops<'_> {
        let fixed_fits = match self.sizes {
            Sizes::Fixed(b) if self.span_len >= b && self.order == Order::Random => self.fits(b),
            _ => 0,
        };
        Ops {
            stream: self,
            k: Consts {
                unit: self.sizes.unit(),
                blocks: self.blocks(),
                fixed_fits,
                sampler: match self.order {
                    Order::Random => {
                        dist::Sampler::new(&self.access, self.blocks(), self.sizes.unit())
                    }
                    _ => dist::Sampler::Uniform,
                },
            },
            rng: self.rng_at(range.start),
            next: range.start,
            end: range.end,
            group: None,
            perm: None,
            zones: None,
        }
    }

    /// Op `index` alone (for tests and verification; engines iterate [`OpStream::ops`]).
    pub fn op(&self, index: u64) -> Op {
        let mut it = self.ops(index..index + 1);
        it.next().unwrap_or(Op {
            index,
            dir: Direction::Write,
            offset: self.span_start,
            len: 0,
        })
    }
}

/// What every op of a stream shares, computed once per range rather than once per op (divisions).
struct Consts<'a> {
    /// [`Sizes::unit`].
    unit: u64,
    /// [`OpStream::blocks`].
    blocks: u64,
    /// For a fixed size and random order: the positions where an op fits; 0 otherwise.
    fixed_fits: u64,
    /// A random stream's skewed law ([`dist::Sampler::Uniform`] for uniform offsets and other orders).
    sampler: dist::Sampler<'a>,
}

/// Iterator over a contiguous range of a stream's ops.
pub struct Ops<'a> {
    stream: &'a OpStream,
    k: Consts<'a>,
    rng: Pcg64Mcg,
    next: u64,
    end: u64,
    group: Option<(u64, [Direction; GROUP as usize])>,
    perm: Option<(u64, Permutation)>,
    /// Zone-aware writes: each write placed at its zone's write pointer.
    zones: Option<&'a zones::ZoneWrites>,
}

impl Iterator for Ops<'_> {
    type Item = Op;
    #[inline(always)]
    fn next(&mut self) -> Option<Op> {
        if self.next >= self.end {
            return None;
        }
        let s = self.stream;
        let i = self.next;
        let (r_off, r_size) = (self.rng.next_u64(), self.rng.next_u64());
        let g = i / GROUP;
        if self.group.as_ref().is_none_or(|(cached, _)| *cached != g) {
            self.group = Some((g, s.group_dirs(g)));
        }
        let dir = self
            .group
            .as_ref()
            .map_or(Direction::Write, |(_, dirs)| dirs[(i % GROUP) as usize]);
        if s.order == Order::RandomFull {
            let pass = i / self.k.blocks;
            if self.perm.as_ref().is_none_or(|(p, _)| *p != pass) {
                self.perm = s.pass_permutation(pass).map(|p| (pass, p));
            }
        }
        let mut op = s.make(
            i,
            r_off,
            r_size,
            dir,
            self.perm.as_ref().map(|(_, p)| p),
            &self.k,
        );
        self.next += 1;
        if let Some(z) = self.zones {
            op.offset = self.placed(z, op.index, op.dir, op.offset, op.len)?;
        }
        Some(op)
    }
}

impl Ops<'_> {
    /// The offset of an op placed by zone-aware writes; `None`, and the range ends, when it cannot be.
    /// Out of line and given the op's fields, not the op: the op stays in registers from
    /// [`OpStream::make`] to where it is used (copied through memory, its narrow fields stored one by one
    /// and loaded as whole words, it stalled each op's issue on store forwarding).
    #[cold]
    #[inline(never)]
    fn placed(
        &mut self,
        z: &zones::ZoneWrites,
        index: u64,
        dir: Direction,
        offset: u64,
        len: u32,
    ) -> Option<u64> {
        let placed = z.place(Op {
            index,
            dir,
            offset,
            len,
        });
        if placed.is_none() {
            self.next = self.end;
        }
        placed.map(|op| op.offset)
    }
}

/// A stream shared by several workers: each claims the next chunk of op indices.
pub struct SharedOps {
    stream: OpStream,
    next: AtomicU64,
    chunk: u64,
    /// First index of this run of the stream; a bounded stream issues `total_ops` from here.
    first: u64,
    /// With a window: op `i` is claimed only once every op before `i − depth + 1` is done.
    window: Option<Window>,
    /// Zone-aware writes (`zone_mode = "zbd"`).
    zones: Option<std::sync::Arc<zones::ZoneWrites>>,
}

/// The sliding window of a [`SharedOps`] claimed one op at a time: at most `depth` ops claimed and not yet
/// done, the oldest of them at most `depth − 1` before the newest, as with one thread keeping `depth` I/Os
/// in flight. So an op that lands after a later one of the stream is less than `depth` before it, however
/// long a thread is held between claiming its op and issuing it.
struct Window {
    depth: u64,
    state: Mutex<WindowState>,
    moved: Condvar,
}

struct WindowState {
    /// The oldest op not yet done.
    low: u64,
    /// Done flags of ops `low..low + depth`, at `index % depth`.
    done: Vec<bool>,
    /// No more claims: a worker stopped.
    closed: bool,
}

impl SharedOps {
    /// Shares `stream` among `workers` workers; chunks are small enough that every worker gets work.
    pub fn new(stream: OpStream, workers: u32) -> SharedOps {
        let chunk = match (stream.order, stream.total_ops) {
            // Several workers on a sequential stream take one op at a time, so the I/Os in flight stay
            // adjacent (a chunk each would make queue_depth interleaved streams far apart).
            (Order::Sequential, _) if workers > 1 => 1,
            (_, Some(n)) => (n / (4 * workers.max(1) as u64)).clamp(1, MAX_CHUNK),
            (_, None) => MAX_CHUNK,
        };
        SharedOps {
            stream,
            next: AtomicU64::new(0),
            chunk,
            first: 0,
            window: None,
            zones: None,
        }
    }

    /// Like [`SharedOps::new`], but starting at op `first` (after an unmeasured ramp): a bounded stream then
    /// issues its `total_ops` from there.
    pub fn starting_at(stream: OpStream, workers: u32, first: u64) -> SharedOps {
        let mut s = SharedOps::new(stream, workers);
        s.next = AtomicU64::new(first);
        s.first = first;
        s
    }

    /// Claims one op at a time: for rate-capped streams, whose ops must be issued in time order across
    /// workers (a chunk each would give every worker a distant slice of time).
    pub fn one_at_a_time(mut self) -> SharedOps {
        self.chunk = 1;
        self
    }

    /// Places each write at its zone's write pointer ([`zones::ZoneWrites`]).
    pub fn zoned(mut self, zones: Option<std::sync::Arc<zones::ZoneWrites>>) -> SharedOps {
        self.zones = zones;
        self
    }

    /// The stream.
    pub fn stream(&self) -> &OpStream {
        &self.stream
    }

    /// The next op index not yet claimed.
    pub fn position(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }

    /// Claims one op at a time within a sliding window of `depth` ops (see `Window`): for verified writes by
    /// `depth` threads, whose replay assumes that an op lands after a later one only if it is less than
    /// `depth` before it. Each worker must call [`SharedOps::done`] for every op it claimed and
    /// [`SharedOps::close`] when it stops.
    pub fn windowed(mut self, depth: u64) -> SharedOps {
        let first = self.first;
        self.chunk = 1;
        let depth = depth.max(1);
        self.window = Some(Window {
            depth,
            state: Mutex::new(WindowState {
                low: first,
                done: vec![false; depth as usize],
                closed: false,
            }),
            moved: Condvar::new(),
        });
        self
    }

    /// Marks op `index` (claimed from this stream) done: issued and completed, failed, or skipped. Frees
    /// its place in the window; without a window, nothing.
    pub fn done(&self, index: u64) {
        let Some(w) = &self.window else {
            return;
        };
        let mut s = w.state.lock().unwrap_or_else(|p| p.into_inner());
        if index < s.low || index >= s.low + w.depth {
            return;
        }
        let depth = w.depth;
        s.done[(index % depth) as usize] = true;
        while s.done[(s.low % depth) as usize] {
            let at = (s.low % depth) as usize;
            s.done[at] = false;
            s.low += 1;
        }
        w.moved.notify_all();
    }

    /// Ends claiming: later claims get `None`, and workers waiting for the window wake up. A worker that
    /// stops calls it (its claimed ops may never be done); without a window, nothing.
    pub fn close(&self) {
        if let Some(w) = &self.window {
            w.state.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
            w.moved.notify_all();
        }
    }

    /// Claims the next chunk; `None` when a bounded stream is exhausted (or a windowed stream closed).
    pub fn claim(&self) -> Option<Ops<'_>> {
        if let Some(w) = &self.window {
            let mut s = w.state.lock().unwrap_or_else(|p| p.into_inner());
            // Claims happen under the lock, so `next` moves in step with the window.
            while !s.closed && self.next.load(Ordering::Relaxed) >= s.low + w.depth {
                s = w.moved.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            if s.closed {
                return None;
            }
            return self.take();
        }
        self.take()
    }

    /// The next chunk of indices, or `None` past a bounded stream's end.
    fn take(&self) -> Option<Ops<'_>> {
        let start = self.next.fetch_add(self.chunk, Ordering::Relaxed);
        let end = match self.stream.total_ops.map(|n| self.first + n) {
            Some(n) if start >= n => return None,
            Some(n) => (start + self.chunk).min(n),
            None => start + self.chunk,
        };
        let mut ops = self.stream.ops(start..end);
        ops.zones = self.zones.as_deref();
        Some(ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(order: Order, rp: u8, total: Option<u64>) -> OpStream {
        OpStream {
            span_start: 8192,
            span_len: 64 * 4096,
            sizes: Sizes::Fixed(4096),
            order,
            mix: Mix::read_write(rp),
            seed: 7,
            access: dist::Access::UNIFORM,
            total_ops: total,
        }
    }

    #[test]
    fn ranges_agree_with_single_ops() {
        for order in [Order::Random, Order::RandomFull, Order::Sequential] {
            let s = stream(order, 30, None);
            let all: Vec<Op> = s.ops(0..500).collect();
            let mid: Vec<Op> = s.ops(123..200).collect();
            assert_eq!(&all[123..200], &mid[..]);
            assert_eq!(all[499], s.op(499));
        }
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
    fn c07_read_share_is_exact_in_every_hundred() {
        for rp in [0u8, 1, 30, 65, 70, 99, 100] {
            let s = stream(Order::Random, rp, None);
            let ops: Vec<Op> = s.ops(0..10_000).collect();
            for group in ops.chunks(100) {
                assert_eq!(
                    group.iter().filter(|o| o.dir == Direction::Read).count(),
                    rp as usize
                );
            }
        }
        // Not a fixed pattern: two groups differ.
        let s = stream(Order::Random, 50, None);
        let kinds = |g: u64| {
            s.ops(g * 100..g * 100 + 100)
                .map(|o| o.dir)
                .collect::<Vec<_>>()
        };
        assert_ne!(kinds(0), kinds(1));
    }

    #[test]
    fn before_counts_each_direction_exactly() {
        for rp in [0u8, 30, 65, 100] {
            let s = stream(Order::Random, rp, None);
            let ops: Vec<Op> = s.ops(0..1000).collect();
            for i in [0u64, 1, 99, 100, 101, 250, 999] {
                let want = ops[..i as usize]
                    .iter()
                    .filter(|o| o.dir == Direction::Read)
                    .count() as u64;
                assert_eq!(s.before(Direction::Read, i), want, "rp {rp}, i {i}");
                assert_eq!(s.before(Direction::Write, i), i - want, "rp {rp}, i {i}");
            }
        }
    }

    #[test]
    fn c07_size_mix_shares_and_zero_weight() {
        let mut s = stream(Order::Random, 70, None);
        s.span_len = 64 << 20;
        s.sizes = Sizes::Mix(vec![(4096, 10), (32768, 40), (65536, 50)]);
        let n = 10_000f64;
        let ops: Vec<Op> = s.ops(0..10_000).collect();
        for (bytes, share) in [(4096u32, 0.10f64), (32768, 0.40), (65536, 0.50)] {
            let got = ops.iter().filter(|o| o.len == bytes).count() as f64 / n;
            let sigma = (share * (1.0 - share) / n).sqrt();
            assert!(
                (got - share).abs() <= 4.0 * sigma,
                "{bytes}: {got} vs {share}"
            );
        }
        assert!(
            ops.iter()
                .all(|o| o.offset % 4096 == 0
                    && o.offset + o.len as u64 <= s.span_start + s.span_len)
        );
        s.sizes = Sizes::Mix(vec![(4096, 0), (65536, 100)]);
        assert!(
            s.ops(0..10_000).all(|o| o.len == 65536),
            "a 0-weight size was issued"
        );
    }

    #[test]
    fn c06_full_coverage_writes_every_block_once_per_pass() {
        for blocks in [1000u64, 2048, 4097] {
            let s = OpStream {
                span_start: 0,
                span_len: blocks * 4096,
                sizes: Sizes::Fixed(4096),
                order: Order::RandomFull,
                mix: Mix::read_write(0),
                seed: 3,
                access: dist::Access::UNIFORM,
                total_ops: Some(2 * blocks),
            };
            for pass in 0..2 {
                let mut seen = vec![0u32; blocks as usize];
                for op in s.ops(pass * blocks..(pass + 1) * blocks) {
                    seen[(op.offset / 4096) as usize] += 1;
                }
                assert!(seen.iter().all(|&c| c == 1), "{blocks} blocks, pass {pass}");
            }
            let first: Vec<u64> = s.ops(0..10).map(|o| o.offset).collect();
            let second: Vec<u64> = s.ops(blocks..blocks + 10).map(|o| o.offset).collect();
            assert_ne!(first, second, "each pass has its own order");
        }
    }

    #[test]
    fn sequential_wraps_and_short_tail() {
        let s = OpStream {
            span_start: 0,
            span_len: 10_000,
            sizes: Sizes::Fixed(4096),
            order: Order::Sequential,
            mix: Mix::read_write(0),
            seed: 1,
            access: dist::Access::UNIFORM,
            total_ops: Some(3),
        };
        let v: Vec<(u64, u32)> = s.ops(0..4).map(|o| (o.offset, o.len)).collect();
        assert_eq!(v, vec![(0, 4096), (4096, 4096), (8192, 1808), (0, 4096)]);
    }

    #[test]
    fn a_phase_seed_is_a_hash_of_the_seed_and_the_whole_name() {
        // An independent computation of the documented rule: SplitMix64's finaliser over the words.
        let mix = |mut z: u64| {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let w = |s: &[u8]| {
            let mut b = [0u8; 8];
            b[..s.len()].copy_from_slice(s);
            u64::from_le_bytes(b)
        };
        let h = mix(1 ^ 0x7068_6173_652d_7365);
        let h = mix(h ^ w(b"stabilit"));
        let h = mix(h ^ w(b"y[read=7"));
        let h = mix(h ^ w(b"0]"));
        assert_eq!(phase_seed(1, "stability[read=70]"), mix(h ^ 18));
        // Names that differ in a label, in their length only (a trailing zero byte), or seeds that differ:
        // other seeds.
        let all = [
            phase_seed(1, "stability[read=70]"),
            phase_seed(1, "stability[read=0]"),
            phase_seed(1, "stability[read=70]\0"),
            phase_seed(2, "stability[read=70]"),
            phase_seed(1, ""),
        ];
        let mut sorted = all.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
    }

    #[test]
    fn worker_seeds_keep_worker_0_and_differ_between_workers() {
        for seed in [0u64, 1, 42, u64::MAX] {
            assert_eq!(worker_seed(seed, 0), seed);
            let mut all: Vec<u64> = (0..256).map(|w| worker_seed(seed, w)).collect();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), 256, "seed {seed}");
        }
        assert_ne!(worker_seed(1, 1), worker_seed(2, 1));
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

    /// The index of the one op a windowed claim gives.
    fn one(ops: &SharedOps) -> Option<u64> {
        let mut c = ops.claim()?;
        let op = c.next().expect("one op");
        assert!(c.next().is_none(), "a windowed claim is one op");
        Some(op.index)
    }

    #[test]
    fn a_window_claims_at_most_depth_ops_past_the_oldest_not_done() {
        let ops = SharedOps::new(stream(Order::Random, 0, None), 4).windowed(4);
        assert_eq!(
            (0..4).map(|_| one(&ops)).collect::<Vec<_>>(),
            [Some(0), Some(1), Some(2), Some(3)]
        );
        // Ops 1 and 3 done, 0 not: op 4 still waits for op 0.
        ops.done(1);
        ops.done(3);
        std::thread::scope(|t| {
            let (tx, rx) = std::sync::mpsc::channel();
            t.spawn(|| {
                let tx = tx;
                tx.send(one(&ops)).unwrap();
                tx.send(one(&ops)).unwrap();
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(
                rx.try_recv().is_err(),
                "op 4 claimed while op 0 was not done"
            );
            // Op 0 done: the oldest not done is 2, so ops 4 and 5 may go.
            ops.done(0);
            assert_eq!(rx.recv().unwrap(), Some(4));
            assert_eq!(rx.recv().unwrap(), Some(5));
        });
        assert_eq!(ops.position(), 6);
    }

    #[test]
    fn closing_a_window_wakes_a_waiting_claim_with_none() {
        let ops = SharedOps::new(stream(Order::Random, 0, None), 2).windowed(2);
        assert_eq!((one(&ops), one(&ops)), (Some(0), Some(1)));
        std::thread::scope(|t| {
            let waiting = t.spawn(|| one(&ops));
            std::thread::sleep(std::time::Duration::from_millis(20));
            ops.close();
            assert_eq!(waiting.join().unwrap(), None);
        });
        assert_eq!(one(&ops), None);
    }

    #[test]
    fn a_bounded_window_ends_at_its_total() {
        let ops = SharedOps::starting_at(stream(Order::Random, 0, Some(3)), 8, 10).windowed(8);
        assert_eq!(
            (0..4).map(|_| one(&ops)).collect::<Vec<_>>(),
            [Some(10), Some(11), Some(12), None]
        );
    }
}
