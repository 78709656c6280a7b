//! Replaying the plan's writes: which write each sector of a verify phase's span should hold last. Op streams
//! are pure functions of the seed and the op index, so replaying the earlier phases of the run gives the last
//! write to each sector ([`VerifyMap::build`]). The map holds one `u64` per *unit*, the greatest common divisor
//! of the block sizes and span starts involved (at least 512 bytes), and is bounded by [`MAX_MAP_UNITS`].

use super::{ByteRange, IoWork, PhasePlan, Work, WriteSource};
use crate::buf::try_vec;
use crate::stamp::{MAX_OP_INDEX, SECTOR};
use crate::target::TargetKind;
use crate::vocab::Direction;
use crate::vocab::PhaseKind;
use std::ops::Range;

/// Most units the last-writer map of one verify phase may hold: 16 Mi entries of 8 bytes (128 MiB), e.g. a
/// 64 GiB span at 4 KiB units, 8 GiB at 512-byte units. The plan refuses more.
pub const MAX_MAP_UNITS: u64 = 1 << 24;

/// The expected content of a map unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastWriter {
    /// Not written by this run's phases: not checked.
    Untouched,
    /// Erased to zeros (punch-hole, zero-out).
    Zeros,
    /// Content unknown (a discard, a restored image, a write without `verify`): not checked.
    Unknown,
    /// Written last by a verified write that failed (`on_error = "continue"`): the sector may hold the older
    /// content, part of the write, or anything; not a mismatch.
    WriteFailed,
    /// Written last by op `op` of the `slot`-th verified writer.
    Write {
        /// Position in [`VerifyMap::writers`].
        slot: u16,
        /// Op index.
        op: u64,
    },
    /// Written by op `op` of the `slot`-th verified writer, then discarded (BLKDISCARD) on a block device:
    /// the sector reads back as zeros or as that write left it (the kernel promises neither; wkrun accepts
    /// both). A trim on a file punches a hole, which reads back as zeros: [`LastWriter::Zeros`]. Kept in the
    /// map as the write, with the unit's bit set in [`VerifyMap`]'s bitmap of trimmed units.
    Trimmed {
        /// Position in [`VerifyMap::writers`].
        slot: u16,
        /// Op index of the write before the trim.
        op: u64,
    },
}

impl LastWriter {
    fn encode(self) -> u64 {
        match self {
            LastWriter::Untouched => 0,
            LastWriter::Zeros => 1 << 48,
            LastWriter::Unknown => 2 << 48,
            LastWriter::WriteFailed => (2 << 48) | 1,
            LastWriter::Write { slot, op } | LastWriter::Trimmed { slot, op } => {
                ((slot as u64 + 3) << 48) | (op & MAX_OP_INDEX)
            }
        }
    }

    fn decode(v: u64) -> LastWriter {
        match v >> 48 {
            0 => LastWriter::Untouched,
            1 => LastWriter::Zeros,
            2 if v & MAX_OP_INDEX == 1 => LastWriter::WriteFailed,
            2 => LastWriter::Unknown,
            t => LastWriter::Write {
                slot: (t - 3) as u16,
                op: v & MAX_OP_INDEX,
            },
        }
    }
}

/// A phase whose writes are stamped.
#[derive(Debug, Clone)]
pub struct Writer {
    /// Its index in the run.
    pub phase: u32,
    /// Its name.
    pub name: String,
    /// Its seed.
    pub seed: u64,
    /// Its queue depth: above 1, writes to one sector may complete out of order.
    pub queue_depth: u32,
    /// How far apart in its op stream two of its writes may be and still have been in flight together (so
    /// complete in either order): op `j` may land after op `i > j` only if `i - j < reorder_window`. From
    /// [`reorder_window`].
    pub reorder_window: u64,
}

/// The reorder window of a verified writing phase: how far apart in its op stream (op indices) two of its
/// writes may be and still have been in flight at the same time, so that the earlier one may land last:
/// `queue_depth`.
///
/// - `libaio`, `io_uring`, `null`: one thread submits the ops in stream order and keeps at most `queue_depth`
///   in flight, so op `j` can still be in flight when op `i > j` is submitted only if `i - j < queue_depth`
///   (with completions in about submission order).
/// - `psync`: `queue_depth` threads, which for a verified phase claim one op of the shared stream at a time
///   within a sliding window (`ops::SharedOps::windowed`): op `i` is claimed only once every op up to
///   `i - queue_depth` is done, so the bound holds however the threads are scheduled.
///
/// Both assume that a write the device reported done is done: a write held in the device while
/// `queue_depth` or more later writes complete, and then landing over one of them, shows as `stale`, as a
/// lost write would. (Measured: no reordering at all in clean runs at QD8 on files, any engine.)
pub fn reorder_window(p: &PhasePlan) -> u64 {
    p.io().map_or(1, |io| io.queue_depth).max(1) as u64
}

/// The last writer of every unit of a verify phase's span.
pub struct VerifyMap {
    /// First byte of the span.
    pub start: u64,
    /// Bytes per unit.
    pub unit: u64,
    /// The verified writers, by slot.
    pub writers: Vec<Writer>,
    entries: Vec<u64>,
    /// One bit per unit, set where a write's unit was trimmed since on a block device; empty until the
    /// first such trim.
    trimmed: Vec<u64>,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn overlaps(a: ByteRange, b: ByteRange) -> bool {
    a.start < b.end() && b.start < a.end()
}

/// The earlier phases that write (or erase) in the span of `phases[i]`, with the bytes they write; the
/// phases in `skipped` (a block of rounds that ended before them) did not run and write nothing.
fn writers_before<'a>(
    phases: &'a [PhasePlan],
    i: usize,
    skipped: &'a [Range<usize>],
) -> impl Iterator<Item = (&'a PhasePlan, ByteRange)> {
    let span = phases[i].span;
    phases[..i]
        .iter()
        .filter(|p| !skipped.iter().any(|r| r.contains(&p.index)))
        .filter_map(move |p| {
            p.written_range()
                .filter(|&r| overlaps(r, span))
                .map(|r| (p, r))
        })
}

/// The I/O work of a fill or workload (the phases whose writes follow an op stream).
fn stream_writer(p: &PhasePlan) -> Option<&IoWork> {
    match &p.work {
        Work::Io(w) if matches!(p.kind, PhaseKind::Fill | PhaseKind::Workload) => Some(w),
        _ => None,
    }
}

fn stamped(w: &IoWork) -> bool {
    matches!(w.writes, WriteSource::Data { stamped: true, .. })
}

/// The unit of the last-writer map of the verify phase `phases[i]`, in bytes; checks that its expected
/// content can be known.
///
/// # Errors
/// Why not, in words (the plan reports it at the verify phase's `expect` key): an earlier phase writing in the
/// span is time-bounded or has a ramp, a verified write's op index does not fit in 48 bits, or the map would
/// exceed [`MAX_MAP_UNITS`].
pub fn map_unit(phases: &[PhasePlan], i: usize) -> Result<u64, String> {
    let v = &phases[i];
    let block = v.io().map_or(SECTOR as u64, |io| io.block_size);
    let mut unit = gcd(v.span.start, block);
    for (p, range) in writers_before(phases, i, &[]) {
        let Some(w) = stream_writer(p) else {
            continue;
        };
        let Some(ops) = w.bound.ops().filter(|_| w.measure.ramp_ns.is_none()) else {
            let duration = w.bound.ops().is_none();
            let ramp = w.measure.ramp_ns.is_some();
            return Err(crate::spec::rules::timed_writer_unknown(
                p.index, &p.name, duration, ramp,
            ));
        };
        if stamped(w) && w.io.workers > 1 && w.io.split == crate::vocab::WorkersSplit::Shared {
            return Err(crate::spec::rules::shared_writers_unknown(
                p.index,
                &p.name,
                w.io.workers,
            ));
        }
        if stamped(w) {
            if ops > MAX_OP_INDEX {
                return Err(format!(
                    "phase {} \"{}\" has more than 2^48 I/Os to verify",
                    p.index, p.name
                ));
            }
            unit = gcd(unit, gcd(range.start, w.io.block_size));
        }
    }
    let unit = unit.max(SECTOR as u64);
    let units = v.span.len.div_ceil(unit);
    if units > MAX_MAP_UNITS {
        return Err(format!(
            "the span holds {units} units of {unit} B to track, more than {MAX_MAP_UNITS} (128 MiB of memory); verify a smaller span, or use expect = \"header\""
        ));
    }
    Ok(unit)
}

/// The failed writes of one phase that ran: its index and the `[start, end)` byte ranges of its writes that
/// failed (`on_error = "continue"`).
#[derive(Debug, Clone, Copy)]
pub struct FailedRanges<'a> {
    /// The phase's index in the run.
    pub phase: usize,
    /// Sorted `[start, end)` byte ranges.
    pub ranges: &'a [(u64, u64)],
}

impl VerifyMap {
    /// Replays the writes and erases of `phases[..i]` (the op stream of each, [`PhasePlan::op_stream`]) over
    /// the span of the verify phase `phases[i]`, assuming each ran to its end, except the phases of
    /// `skipped` (the rounds a block of rounds skipped: they did not run); the verified writes of `failed`
    /// (the failed writes of the phases that ran) are marked [`LastWriter::WriteFailed`].
    ///
    /// # Errors
    /// As [`map_unit`]; or the map (at most [`MAX_MAP_UNITS`] × 8 B) cannot be allocated.
    pub fn build(
        phases: &[PhasePlan],
        i: usize,
        target_kind: TargetKind,
        failed: &[FailedRanges<'_>],
        skipped: &[Range<usize>],
    ) -> Result<VerifyMap, String> {
        let unit = map_unit(phases, i)?;
        let span = phases[i].span;
        let what = format!("the verify map (8 B per {unit}-byte unit of the span)");
        let entries =
            try_vec(span.len.div_ceil(unit) as usize, 0, &what).map_err(|e| e.to_string())?;
        let mut m = VerifyMap {
            start: span.start,
            unit,
            writers: Vec::new(),
            entries,
            trimmed: Vec::new(),
        };
        for (p, range) in writers_before(phases, i, skipped) {
            match &p.work {
                Work::Erase(e) => {
                    let zeros = crate::target::erase::reads_back_zeros(target_kind, Some(e.method));
                    let w = if zeros {
                        LastWriter::Zeros
                    } else {
                        LastWriter::Unknown
                    };
                    m.mark(range.start, range.len, w);
                }
                Work::Io(w) if stream_writer(p).is_some() => {
                    m.replay(p, w, target_kind);
                    if stamped(w) {
                        let ranges = failed.iter().filter(|f| f.phase == p.index);
                        for &(a, b) in ranges.flat_map(|f| f.ranges) {
                            let (a, b) = (a.max(range.start), b.min(range.end()));
                            if a < b {
                                m.mark(a, b - a, LastWriter::WriteFailed);
                            }
                        }
                    }
                }
                _ => m.mark(range.start, range.len, LastWriter::Unknown),
            }
        }
        Ok(m)
    }

    /// Marks every write of the fill or workload `p`, by the op stream of each of its workers (a verified
    /// writer slot per worker, with the worker's seed its stamps carry).
    fn replay(&mut self, p: &PhasePlan, w: &IoWork, target_kind: TargetKind) {
        if w.bound.ops().is_none() {
            return;
        }
        for wp in p.workers() {
            let slot = stamped(w).then(|| {
                self.writers.push(Writer {
                    phase: p.index as u32,
                    name: p.name.clone(),
                    seed: wp.seed,
                    queue_depth: w.io.queue_depth,
                    reorder_window: reorder_window(p),
                });
                (self.writers.len() - 1) as u16
            });
            let (Some(stream), Some(n)) = (p.worker_stream(&wp), wp.ops) else {
                continue;
            };
            for op in stream.ops(0..n) {
                match op.dir {
                    Direction::Write => {}
                    Direction::Trim => {
                        self.trim(op.offset, op.len as u64, target_kind);
                        continue;
                    }
                    Direction::Read => continue,
                }
                let lw = match slot {
                    Some(slot) => LastWriter::Write { slot, op: op.index },
                    None => LastWriter::Unknown,
                };
                self.mark(op.offset, op.len as u64, lw);
            }
        }
    }

    /// Sets every unit overlapping `[at, at + len)`; a unit only partly covered becomes unknown.
    fn mark(&mut self, at: u64, len: u64, w: LastWriter) {
        for (k, whole) in self.units(at, len) {
            self.entries[k as usize] = if whole { w } else { LastWriter::Unknown }.encode();
            self.set_trimmed(k, false);
        }
    }

    /// The units overlapping `[at, at + len)` inside the span: each unit's index and whether the range
    /// covers it whole.
    fn units(&self, at: u64, len: u64) -> impl Iterator<Item = (u64, bool)> + use<> {
        let (start, unit) = (self.start, self.unit);
        let end = start + self.entries.len() as u64 * unit;
        let (a, b) = (at.max(start), (at + len).min(end));
        let (first, last) = match a < b {
            true => ((a - start) / unit, (b - start).div_ceil(unit)),
            false => (0, 0),
        };
        (first..last).map(move |k| {
            let u0 = start + k * unit;
            (k, u0 >= at && u0 + unit <= at + len)
        })
    }

    /// Sets or clears unit `k`'s bit in the bitmap of trimmed units (made at the first bit set).
    fn set_trimmed(&mut self, k: u64, on: bool) {
        if self.trimmed.is_empty() {
            if !on {
                return;
            }
            self.trimmed = vec![0; self.entries.len().div_ceil(64)];
        }
        let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
        match on {
            true => self.trimmed[word] |= bit,
            false => self.trimmed[word] &= !bit,
        }
    }

    /// Whether unit `k`'s write was trimmed since.
    fn is_trimmed(&self, k: usize) -> bool {
        self.trimmed
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }

    /// Marks a trim of `[at, at + len)`: on a file a punched hole (zeros); on a block device a discard, after
    /// which each unit reads back as zeros or as before ([`LastWriter::Trimmed`]; a unit of unknown or
    /// untouched content stays unchecked). A unit only partly covered becomes unknown.
    fn trim(&mut self, at: u64, len: u64, target_kind: TargetKind) {
        if target_kind == TargetKind::File {
            return self.mark(at, len, LastWriter::Zeros);
        }
        for (k, whole) in self.units(at, len) {
            let u0 = self.start + k * self.unit;
            match (whole, LastWriter::decode(self.entries[k as usize])) {
                (true, LastWriter::Write { .. }) => self.set_trimmed(k, true),
                (true, LastWriter::Zeros | LastWriter::WriteFailed) => {}
                _ => self.mark(u0, self.unit, LastWriter::Unknown),
            }
        }
    }

    /// The last writer of the sector at byte `offset`.
    pub fn at(&self, offset: u64) -> LastWriter {
        let k = (offset.saturating_sub(self.start) / self.unit) as usize;
        match self.entries.get(k).map(|&e| LastWriter::decode(e)) {
            Some(LastWriter::Write { slot, op }) if self.is_trimmed(k) => {
                LastWriter::Trimmed { slot, op }
            }
            Some(w) => w,
            None => LastWriter::Untouched,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_writer_encoding_round_trips() {
        for w in [
            LastWriter::Untouched,
            LastWriter::Zeros,
            LastWriter::Unknown,
            LastWriter::WriteFailed,
            LastWriter::Write { slot: 0, op: 0 },
            LastWriter::Write {
                slot: 40000,
                op: MAX_OP_INDEX,
            },
        ] {
            assert_eq!(LastWriter::decode(w.encode()), w);
        }
    }

    #[test]
    fn trims_leave_zeros_on_a_file_and_zeros_or_the_write_before_on_a_block_device() {
        let map = || VerifyMap {
            start: 0,
            unit: 4096,
            writers: Vec::new(),
            entries: vec![0; 4],
            trimmed: Vec::new(),
        };
        let w = |op| LastWriter::Write { slot: 0, op };
        let mut m = map();
        m.mark(0, 3 * 4096, w(1));
        m.trim(0, 4096, TargetKind::Block);
        m.trim(4096 + 512, 512, TargetKind::Block);
        m.trim(3 * 4096, 4096, TargetKind::Block);
        assert_eq!(m.at(0), LastWriter::Trimmed { slot: 0, op: 1 });
        assert_eq!(m.at(4096), LastWriter::Unknown, "a unit trimmed in part");
        assert_eq!(m.at(2 * 4096), w(1));
        assert_eq!(
            m.at(3 * 4096),
            LastWriter::Unknown,
            "never written, then trimmed"
        );
        // A write after the trim is expected again.
        m.mark(0, 4096, w(9));
        assert_eq!(m.at(0), w(9));
        let mut f = map();
        f.mark(0, 4 * 4096, w(1));
        f.trim(4096, 4096, TargetKind::File);
        assert_eq!(f.at(4096), LastWriter::Zeros);
        assert_eq!(f.at(0), w(1));
    }
}
