//! Write verification: phases with `verify = true` stamp every 512-byte sector they write with a header and a
//! checksum; a `verify` phase reads its span back and classifies each sector.
//!
//! Sector layout (little-endian), [`SECTOR`] = 512 bytes:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `wkrnVfy1` |
//! | 8..16 | the sector's byte offset on the target |
//! | 16..24 | seed of the writing phase |
//! | 24..32 | op index of the write in its phase's stream (the write sequence) |
//! | 32..36 | index of the writing phase in the run |
//! | 36..40 | 0 (reserved) |
//! | 40..48 | checksum: XXH3-64 of bytes 48..512, seeded with XXH3-64 of bytes 0..40 |
//! | 48..512 | the phase's data pattern, as without verification |
//!
//! The expected content of a sector ([`LastWriter`]) comes from the plan: op streams are pure functions of the
//! seed and the op index, so replaying the earlier phases of the run gives the last write to each sector
//! ([`VerifyMap::build`]). The map holds one `u64` per *unit*, the greatest common divisor of the block sizes and span
//! starts involved (at least 512 bytes), and is bounded by [`MAX_MAP_UNITS`].

use crate::engine::{ReadCheck, Recorder};
use crate::ops::{Op, OpKind};
use crate::plan::PhasePlan;
use crate::spec::{EraseMethod, PhaseKind};
use crate::target::TargetKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// Bytes per stamped sector.
pub const SECTOR: usize = 512;
/// Bytes of the header at the start of each sector.
pub const HEADER: usize = 48;
/// The magic at the start of every stamped sector.
pub const MAGIC: [u8; 8] = *b"wkrnVfy1";
/// Most units the last-writer map of one verify phase may hold: 16 Mi entries of 8 bytes (128 MiB), e.g. a
/// 64 GiB span at 4 KiB units, 8 GiB at 512-byte units. The plan refuses more.
pub const MAX_MAP_UNITS: u64 = 1 << 24;
/// Largest op index a verified write may have (48 bits, the width of the map's op field).
pub const MAX_OP_INDEX: u64 = (1 << 48) - 1;

/// What a `verify` phase checks each sector against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// The last write to the sector by an earlier phase of the run, computed from the plan: finds zeroed,
    /// stale (an older write) and corrupted sectors. Needs every earlier phase that writes in the span to be
    /// byte-bounded (no `duration`, no `ramp`).
    LastWriter,
    /// Only that each sector holds a valid stamp for its own offset (or zeros): finds zeroed and corrupted
    /// sectors, not stale ones. For spans written by time-bounded phases or by another run.
    Header,
}

/// Who stamped a sector: the writing phase, its seed and the op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Index of the writing phase in the run.
    pub phase: u32,
    /// Its seed.
    pub seed: u64,
}

impl Stamp {
    /// Stamps every 512-byte sector of `buf`, the data of `op` (its length a multiple of 512, its offset too).
    pub fn apply(&self, buf: &mut [u8], op: &Op) {
        for (k, s) in buf.chunks_exact_mut(SECTOR).enumerate() {
            s[..8].copy_from_slice(&MAGIC);
            s[8..16].copy_from_slice(&(op.offset + (k * SECTOR) as u64).to_le_bytes());
            s[16..24].copy_from_slice(&self.seed.to_le_bytes());
            s[24..32].copy_from_slice(&op.index.to_le_bytes());
            s[32..36].copy_from_slice(&self.phase.to_le_bytes());
            s[36..40].fill(0);
            let sum = checksum(s);
            s[40..48].copy_from_slice(&sum.to_le_bytes());
        }
    }
}

fn checksum(s: &[u8]) -> u64 {
    xxh3_64_with_seed(&s[HEADER..], xxh3_64(&s[..40]))
}

fn word(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(b)
}

/// What a sector holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// All zeros.
    Zeros,
    /// A valid stamp.
    Stamp {
        /// The offset in the header.
        offset: u64,
        /// The writing phase.
        phase: u32,
        /// Its seed.
        seed: u64,
        /// The op index.
        op: u64,
    },
    /// Neither zeros nor a stamp with a matching checksum.
    Garbage,
}

/// Reads one sector.
pub fn parse(s: &[u8]) -> Found {
    if s.iter().all(|&b| b == 0) {
        return Found::Zeros;
    }
    if s.len() != SECTOR || s[..8] != MAGIC || word(s, 40) != checksum(s) {
        return Found::Garbage;
    }
    let mut p = [0u8; 4];
    p.copy_from_slice(&s[32..36]);
    Found::Stamp {
        offset: word(s, 8),
        seed: word(s, 16),
        op: word(s, 24),
        phase: u32::from_le_bytes(p),
    }
}

/// The expected content of a map unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastWriter {
    /// Not written by this run's phases: not checked.
    Untouched,
    /// Erased to zeros (punch-hole, zero-out).
    Zeros,
    /// Content unknown (a discard, a restored image, a write without `verify`): not checked.
    Unknown,
    /// Written last by op `op` of the `slot`-th verified writer.
    Write {
        /// Position in [`VerifyMap::writers`].
        slot: u16,
        /// Op index.
        op: u64,
    },
}

impl LastWriter {
    fn encode(self) -> u64 {
        match self {
            LastWriter::Untouched => 0,
            LastWriter::Zeros => 1 << 48,
            LastWriter::Unknown => 2 << 48,
            LastWriter::Write { slot, op } => ((slot as u64 + 3) << 48) | (op & MAX_OP_INDEX),
        }
    }

    fn decode(v: u64) -> LastWriter {
        match v >> 48 {
            0 => LastWriter::Untouched,
            1 => LastWriter::Zeros,
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
///   (not chunks, whose ops may run far apart), so the ops in flight together are the last `queue_depth`
///   claimed (with the threads in step).
///
/// Both assume that the I/Os in flight progress at comparable speeds: a write held back (a psync worker
/// preempted between claiming its op and writing it, an I/O stalled in the kernel or the device) while
/// `queue_depth` or more later writes are issued, and then landing over one of them, shows as `stale`, as a
/// lost write would. (Measured: no reordering at all in clean runs at QD8 on files, any engine.)
pub fn reorder_window(p: &PhasePlan) -> u64 {
    p.params.queue_depth.unwrap_or(1).max(1) as u64
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
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Whether an earlier phase writes (or erases) bytes, and which: `(start, len)`.
fn written_range(p: &PhasePlan) -> Option<(u64, u64)> {
    let q = &p.params;
    match p.kind {
        PhaseKind::Verify => None,
        PhaseKind::Workload if q.read_percent == Some(100) => None,
        PhaseKind::RestoreImage => Some((q.span_start_bytes, q.image_bytes.unwrap_or(0))),
        _ => Some((q.span_start_bytes, q.span_bytes)),
    }
}

fn overlaps(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

/// The unit of the last-writer map of the verify phase `phases[i]`, in bytes; checks that its expected
/// content can be known.
///
/// # Errors
/// Why not, in words (the plan reports it at the verify phase's `expect` key): an earlier phase writing in the
/// span is time-bounded or has a ramp, a verified write's op index does not fit in 48 bits, or the map would
/// exceed [`MAX_MAP_UNITS`].
pub fn map_unit(phases: &[PhasePlan], i: usize) -> Result<u64, String> {
    let v = &phases[i].params;
    let span = (v.span_start_bytes, v.span_bytes);
    let mut unit = gcd(
        v.span_start_bytes,
        v.block_size_bytes.unwrap_or(SECTOR as u64),
    );
    for p in &phases[..i] {
        let Some(range) = written_range(p).filter(|&r| overlaps(r, span)) else {
            continue;
        };
        let q = &p.params;
        if matches!(p.kind, PhaseKind::Fill | PhaseKind::Workload) {
            if q.ops.is_none() || q.ramp_ns.is_some() {
                return Err(format!(
                    "phase {} \"{}\" writes in this span for a time (duration or ramp), so which blocks it wrote last is not known in advance; give it a size bound, or use expect = \"header\"",
                    p.index, p.name
                ));
            }
            if q.verify == Some(true) {
                if q.ops.is_some_and(|n| n > MAX_OP_INDEX) {
                    return Err(format!(
                        "phase {} \"{}\" has more than 2^48 I/Os to verify",
                        p.index, p.name
                    ));
                }
                unit = gcd(
                    unit,
                    gcd(range.0, q.block_size_bytes.unwrap_or(SECTOR as u64)),
                );
            }
        }
    }
    let unit = unit.max(SECTOR as u64);
    let units = v.span_bytes.div_ceil(unit);
    if units > MAX_MAP_UNITS {
        return Err(format!(
            "the span holds {units} units of {unit} B to track, more than {MAX_MAP_UNITS} (128 MiB of memory); verify a smaller span, or use expect = \"header\""
        ));
    }
    Ok(unit)
}

impl VerifyMap {
    /// Replays the writes and erases of `phases[..i]` (the op stream of each, from [`crate::run::io_phase::op_stream`])
    /// over the span of the verify phase `phases[i]`, assuming each ran to its end.
    ///
    /// # Errors
    /// As [`map_unit`].
    pub fn build(
        phases: &[PhasePlan],
        i: usize,
        target_kind: TargetKind,
    ) -> Result<VerifyMap, String> {
        let unit = map_unit(phases, i)?;
        let v = &phases[i].params;
        let mut m = VerifyMap {
            start: v.span_start_bytes,
            unit,
            writers: Vec::new(),
            entries: vec![0; v.span_bytes.div_ceil(unit) as usize],
        };
        let span = (v.span_start_bytes, v.span_bytes);
        for p in &phases[..i] {
            let Some(range) = written_range(p).filter(|&r| overlaps(r, span)) else {
                continue;
            };
            let q = &p.params;
            match p.kind {
                PhaseKind::Erase => {
                    let zeros =
                        target_kind == TargetKind::File || q.method == Some(EraseMethod::ZeroOut);
                    let w = if zeros {
                        LastWriter::Zeros
                    } else {
                        LastWriter::Unknown
                    };
                    m.mark(range.0, range.1, w);
                }
                PhaseKind::RestoreImage => m.mark(range.0, range.1, LastWriter::Unknown),
                PhaseKind::Fill | PhaseKind::Workload => {
                    let stream = crate::run::io_phase::op_stream(p);
                    let n = q.ops.unwrap_or(0);
                    let slot = (q.verify == Some(true)).then(|| {
                        m.writers.push(Writer {
                            phase: p.index as u32,
                            name: p.name.clone(),
                            seed: q.seed.unwrap_or(1),
                            queue_depth: q.queue_depth.unwrap_or(1),
                            reorder_window: reorder_window(p),
                        });
                        (m.writers.len() - 1) as u16
                    });
                    for op in stream.ops(0..n) {
                        if op.kind != OpKind::Write {
                            continue;
                        }
                        let w = match slot {
                            Some(slot) => LastWriter::Write { slot, op: op.index },
                            None => LastWriter::Unknown,
                        };
                        m.mark(op.offset, op.len as u64, w);
                    }
                }
                PhaseKind::Verify => {}
            }
        }
        Ok(m)
    }

    /// Sets every unit overlapping `[at, at + len)`; a unit only partly covered becomes unknown.
    fn mark(&mut self, at: u64, len: u64, w: LastWriter) {
        let end = self.start + self.entries.len() as u64 * self.unit;
        let (a, b) = (at.max(self.start), (at + len).min(end));
        if a >= b {
            return;
        }
        let first = (a - self.start) / self.unit;
        let last = (b - self.start).div_ceil(self.unit);
        for k in first..last {
            let u0 = self.start + k * self.unit;
            let whole = u0 >= at && u0 + self.unit <= at + len;
            self.entries[k as usize] = if whole { w } else { LastWriter::Unknown }.encode();
        }
    }

    /// The last writer of the sector at byte `offset`.
    pub fn at(&self, offset: u64) -> LastWriter {
        let k = (offset.saturating_sub(self.start) / self.unit) as usize;
        self.entries
            .get(k)
            .map_or(LastWriter::Untouched, |&e| LastWriter::decode(e))
    }
}

/// How a sector compared.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// As expected.
    Ok,
    /// Within a phase with queue depth above 1: an earlier write of that phase to this sector, close enough in
    /// its op stream to have been in flight together with the expected one ([`reorder_window`]), so it may
    /// have completed last. Accepted.
    Reordered,
    /// Not checked: not written by this run's phases, or content unknown (a discard, an image, a write without
    /// `verify`).
    Unchecked,
    /// All zeros where a write was expected.
    Zeroed,
    /// A valid stamp of an older write than expected (a lost write).
    Stale,
    /// Not a valid stamp (bad magic or checksum), or a valid stamp for another offset (a misdirected write);
    /// or data where zeros were expected.
    Corrupted,
    /// A valid stamp for this offset from a write the plan does not expect here (a newer or unknown writer).
    Unexpected,
}

impl Class {
    /// Whether this class is a mismatch (counts as an error).
    pub fn is_mismatch(self) -> bool {
        matches!(
            self,
            Class::Zeroed | Class::Stale | Class::Corrupted | Class::Unexpected
        )
    }
}

/// One sector that did not verify, as listed in the results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mismatch {
    /// Byte offset of the sector on the target.
    pub offset_bytes: u64,
    /// `zeroed`, `stale`, `corrupted` or `unexpected`.
    pub class: Class,
    /// What the sector should hold, e.g. `phase 1 "w" op 17 (seed 5)` or `zeros`; `a stamp for this offset`
    /// with `expect = "header"`.
    pub expected: String,
    /// What it holds, e.g. `zeros`, `phase 0 "fill" op 3 (seed 1)`, `no valid stamp (bad magic or checksum)`,
    /// `a stamp for offset 8192 (phase 0 op 2)`.
    pub found: String,
}

/// The result of a verify phase, in sectors of 512 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifySummary {
    /// What sectors were checked against.
    pub expect: Expect,
    /// Bytes per sector: 512.
    pub sector_bytes: u64,
    /// Unit of the last-writer map, bytes (`expect = "last-writer"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_unit_bytes: Option<u64>,
    /// Sectors read (the span, or the part read before the phase was stopped).
    pub sectors: u64,
    /// Sectors as expected.
    pub ok: u64,
    /// Sectors holding an earlier write of the expected phase that may have been in flight together with the
    /// expected one (queue depth above 1, within the phase's [`reorder_window`]), accepted.
    pub reordered: u64,
    /// Sectors not checked (not written by this run, or content unknown).
    pub unchecked: u64,
    /// Sectors all zeros where a write was expected.
    pub zeroed: u64,
    /// Sectors holding an older write than expected.
    pub stale: u64,
    /// Sectors with a bad stamp or a stamp for another offset, or data where zeros were expected.
    pub corrupted: u64,
    /// Sectors with a valid stamp for this offset from a write the plan does not expect.
    pub unexpected: u64,
    /// Mismatched sectors: zeroed + stale + corrupted + unexpected.
    pub mismatched: u64,
    /// The first mismatched sectors by offset, at most the phase's `max_listed`.
    pub mismatches: Vec<Mismatch>,
}

/// The read check of a verify phase: classifies every sector read, counts per class, keeps the first
/// `max_listed` mismatches by offset.
pub struct Checker {
    expect: Expect,
    map: Option<VerifyMap>,
    max_listed: usize,
    counts: [AtomicU64; 7],
    listed: Mutex<BTreeMap<u64, Mismatch>>,
}

const CLASSES: [Class; 7] = [
    Class::Ok,
    Class::Reordered,
    Class::Unchecked,
    Class::Zeroed,
    Class::Stale,
    Class::Corrupted,
    Class::Unexpected,
];

impl Checker {
    /// A checker; `map` is required for `Expect::LastWriter`.
    pub fn new(expect: Expect, map: Option<VerifyMap>, max_listed: usize) -> Checker {
        Checker {
            expect,
            map,
            max_listed,
            counts: Default::default(),
            listed: Mutex::new(BTreeMap::new()),
        }
    }

    fn describe_writer(&self, phase: u32, seed: u64, op: u64) -> String {
        let name = self
            .map
            .as_ref()
            .and_then(|m| m.writers.iter().find(|w| w.phase == phase))
            .map_or(String::new(), |w| format!(" \"{}\"", w.name));
        format!("phase {phase}{name} op {op} (seed {seed})")
    }

    /// Classifies the sector at `offset` holding `s`; the texts are built only for mismatches.
    fn classify(&self, offset: u64, s: &[u8]) -> (Class, Option<(String, String)>) {
        let found = parse(s);
        let found_text = |f: Found| match f {
            Found::Zeros => "zeros".to_string(),
            Found::Garbage => "no valid stamp (bad magic or checksum)".to_string(),
            Found::Stamp {
                offset: o,
                phase,
                seed,
                op,
            } if o != offset => format!(
                "a stamp for offset {o} ({})",
                self.describe_writer(phase, seed, op)
            ),
            Found::Stamp {
                phase, seed, op, ..
            } => self.describe_writer(phase, seed, op),
        };
        let expected = match (self.expect, &self.map) {
            (Expect::LastWriter, Some(m)) => m.at(offset),
            _ => {
                let class = match found {
                    Found::Zeros => Class::Zeroed,
                    Found::Garbage => Class::Corrupted,
                    Found::Stamp { offset: o, .. } if o != offset => Class::Corrupted,
                    Found::Stamp { .. } => Class::Ok,
                };
                return (
                    class,
                    class
                        .is_mismatch()
                        .then(|| ("a stamp for this offset".to_string(), found_text(found))),
                );
            }
        };
        let Some(m) = self.map.as_ref() else {
            return (Class::Unchecked, None);
        };
        let class = match (expected, found) {
            (LastWriter::Untouched | LastWriter::Unknown, _) => Class::Unchecked,
            (LastWriter::Zeros, Found::Zeros) => Class::Ok,
            (LastWriter::Zeros, Found::Stamp { offset: o, .. }) if o == offset => Class::Stale,
            (LastWriter::Zeros, _) => Class::Corrupted,
            (LastWriter::Write { .. }, Found::Zeros) => Class::Zeroed,
            (LastWriter::Write { .. }, Found::Garbage) => Class::Corrupted,
            (LastWriter::Write { .. }, Found::Stamp { offset: o, .. }) if o != offset => {
                Class::Corrupted
            }
            (
                LastWriter::Write { slot, op },
                Found::Stamp {
                    phase,
                    seed,
                    op: fop,
                    ..
                },
            ) => {
                let w = &m.writers[slot as usize];
                if (phase, seed, fop) == (w.phase, w.seed, op) {
                    Class::Ok
                } else if phase == w.phase && seed == w.seed && fop < op {
                    if op - fop < w.reorder_window {
                        Class::Reordered
                    } else {
                        Class::Stale
                    }
                } else if phase < w.phase
                    && m.writers.iter().any(|x| x.phase == phase && x.seed == seed)
                {
                    Class::Stale
                } else {
                    Class::Unexpected
                }
            }
        };
        let texts = class.is_mismatch().then(|| {
            let e = match expected {
                LastWriter::Zeros => "zeros".to_string(),
                LastWriter::Write { slot, op } => {
                    let w = &m.writers[slot as usize];
                    self.describe_writer(w.phase, w.seed, op)
                }
                _ => "anything".to_string(),
            };
            (e, found_text(found))
        });
        (class, texts)
    }

    /// The counts and listed mismatches so far.
    pub fn summary(&self, sectors: u64) -> VerifySummary {
        let c = |k: Class| {
            let i = CLASSES.iter().position(|&x| x == k).unwrap_or(0);
            self.counts[i].load(Ordering::Relaxed)
        };
        let listed = self
            .listed
            .lock()
            .map(|l| l.values().cloned().collect())
            .unwrap_or_default();
        let mismatched =
            c(Class::Zeroed) + c(Class::Stale) + c(Class::Corrupted) + c(Class::Unexpected);
        VerifySummary {
            expect: self.expect,
            sector_bytes: SECTOR as u64,
            map_unit_bytes: self.map.as_ref().map(|m| m.unit),
            sectors,
            ok: c(Class::Ok),
            reordered: c(Class::Reordered),
            unchecked: c(Class::Unchecked),
            zeroed: c(Class::Zeroed),
            stale: c(Class::Stale),
            corrupted: c(Class::Corrupted),
            unexpected: c(Class::Unexpected),
            mismatched,
            mismatches: listed,
        }
    }
}

impl ReadCheck for Checker {
    fn check(&self, op: &Op, data: &[u8], t_ns: u64, rec: &mut Recorder) {
        let mut local = [0u64; 7];
        let mut first: Option<String> = None;
        for (k, s) in data.chunks(SECTOR).enumerate() {
            let offset = op.offset + (k * SECTOR) as u64;
            let (class, texts) = self.classify(offset, s);
            local[CLASSES.iter().position(|&x| x == class).unwrap_or(0)] += 1;
            if let Some((expected, found)) = texts {
                if first.is_none() {
                    first = Some(format!(
                        "sector at offset {offset} is {}: expected {expected}, found {found}",
                        serde_json::to_value(class)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default()
                    ));
                }
                if let Ok(mut l) = self.listed.lock()
                    && (l.len() < self.max_listed
                        || l.last_key_value().is_some_and(|(&o, _)| offset < o))
                {
                    l.insert(
                        offset,
                        Mismatch {
                            offset_bytes: offset,
                            class,
                            expected,
                            found,
                        },
                    );
                    if l.len() > self.max_listed {
                        l.pop_last();
                    }
                }
            }
        }
        for (c, n) in self.counts.iter().zip(local) {
            if n > 0 {
                c.fetch_add(n, Ordering::Relaxed);
            }
        }
        let bad = local[3] + local[4] + local[5] + local[6];
        if let Some(what) = first {
            rec.mismatches(op.offset, op.len, bad, &what, t_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_round_trips_and_any_flipped_byte_is_caught() {
        let op = Op {
            index: 77,
            kind: OpKind::Write,
            offset: 1 << 20,
            len: 1024,
        };
        let mut buf = vec![0xabu8; 1024];
        Stamp { phase: 3, seed: 9 }.apply(&mut buf, &op);
        assert_eq!(
            parse(&buf[512..]),
            Found::Stamp {
                offset: (1 << 20) + 512,
                phase: 3,
                seed: 9,
                op: 77
            }
        );
        for i in [0, 9, 20, 30, 33, 41, 47, 48, 300, 511] {
            let mut b = buf[..512].to_vec();
            b[i] ^= 0x10;
            assert_eq!(parse(&b), Found::Garbage, "byte {i} flipped");
        }
        assert_eq!(parse(&[0u8; 512]), Found::Zeros);
    }

    #[test]
    fn last_writer_encoding_round_trips() {
        for w in [
            LastWriter::Untouched,
            LastWriter::Zeros,
            LastWriter::Unknown,
            LastWriter::Write { slot: 0, op: 0 },
            LastWriter::Write {
                slot: 40000,
                op: MAX_OP_INDEX,
            },
        ] {
            assert_eq!(LastWriter::decode(w.encode()), w);
        }
    }
}
