//! The read check of a verify phase: every sector read is parsed ([`crate::stamp::parse`]) and compared with
//! what the plan says it should hold ([`VerifyMap`]).

use super::summary::{Class, Mismatch, VerifySummary};
use crate::engine::{ReadCheck, Recorder};
use crate::ops::Op;
use crate::plan::replay::{LastWriter, VerifyMap};
use crate::stamp::{Found, SECTOR, parse};
use crate::vocab::Expect;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The read check of a verify phase: classifies every sector read, counts per class, keeps the first
/// `max_listed` mismatches by offset.
pub struct Checker {
    expect: Expect,
    map: Option<VerifyMap>,
    max_listed: usize,
    counts: [AtomicU64; 8],
    listed: Mutex<BTreeMap<u64, Mismatch>>,
}

const CLASSES: [Class; 8] = [
    Class::Ok,
    Class::Reordered,
    Class::Unchecked,
    Class::Zeroed,
    Class::Stale,
    Class::Corrupted,
    Class::Unexpected,
    Class::WriteFailed,
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
            (LastWriter::WriteFailed, _) => Class::WriteFailed,
            (LastWriter::Zeros, Found::Zeros) => Class::Ok,
            (LastWriter::Zeros, Found::Stamp { offset: o, .. }) if o == offset => Class::Stale,
            (LastWriter::Zeros, _) => Class::Corrupted,
            (LastWriter::Trimmed { .. }, Found::Zeros) => Class::Ok,
            (LastWriter::Write { .. }, Found::Zeros) => Class::Zeroed,
            (LastWriter::Write { .. } | LastWriter::Trimmed { .. }, Found::Garbage) => {
                Class::Corrupted
            }
            (
                LastWriter::Write { .. } | LastWriter::Trimmed { .. },
                Found::Stamp { offset: o, .. },
            ) if o != offset => Class::Corrupted,
            (
                LastWriter::Write { slot, op } | LastWriter::Trimmed { slot, op },
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
                LastWriter::Trimmed { slot, op } => {
                    let w = &m.writers[slot as usize];
                    format!(
                        "zeros or {} (trimmed since)",
                        self.describe_writer(w.phase, w.seed, op)
                    )
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
            write_failed: c(Class::WriteFailed),
            mismatched,
            mismatches: listed,
        }
    }
}

impl ReadCheck for Checker {
    fn check(&self, op: &Op, data: &[u8], t_ns: u64, rec: &mut Recorder) {
        let mut local = [0u64; 8];
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
