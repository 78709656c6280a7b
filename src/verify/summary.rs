//! What a verify phase found: each sector's class, the listed mismatches, the counts.

use crate::vocab::Expect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a sector compared.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// As expected.
    Ok,
    /// Within a phase with queue depth above 1: an earlier write of that phase to this sector, close enough in
    /// its op stream to have been in flight together with the expected one (the reorder window, its queue depth), so it may
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
    /// Last written by a write that failed and was counted (`on_error = "continue"`, e.g. ENOSPC): the sector
    /// may hold the older content, part of the write, or anything. Not a mismatch.
    WriteFailed,
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
    /// expected one (queue depth above 1, within the phase's reorder window, its queue depth), accepted.
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
    /// Sectors whose last write failed and was counted (`on_error = "continue"`), not checked: they may hold
    /// anything. Not mismatched. With more than 4096 separate failed ranges in a phase, every sector from its
    /// first to its last failed byte is counted here (the phase's warning says so).
    #[serde(default)]
    pub write_failed: u64,
    /// Mismatched sectors: zeroed + stale + corrupted + unexpected.
    pub mismatched: u64,
    /// The first mismatched sectors by offset, at most the phase's `max_listed`.
    pub mismatches: Vec<Mismatch>,
}
