//! Cautions: where a phase's numbers would describe something other than the device, said before the run
//! (`wkrun plan`) and kept with the phase's results (`warnings`). Each is a fact of the plan and the target's
//! geometry; the run adds what only it can see (reads of never-written blocks, case C10).

use super::{IoWork, PhasePlan, Work, WriteSource};
use crate::engine::caps;
use crate::target::{TargetInfo, TargetKind};

/// The cautions of `phase` on `target`, in words.
pub fn cautions(phase: &PhasePlan, target: &TargetInfo) -> Vec<String> {
    let Work::Io(w) = &phase.work else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(read_modify_write(phase, w, target));
    out.extend(page_cache(w, target));
    out
}

/// Writes smaller than the target's physical block, or not aligned to it: the device (or the filesystem of a
/// file target) reads, modifies and writes whole physical blocks, so the numbers describe that.
fn read_modify_write(phase: &PhasePlan, w: &IoWork, t: &TargetInfo) -> Option<String> {
    let pbs = t.physical_block_size as u64;
    let writes = w.read_percent < 100 && matches!(w.writes, WriteSource::Data { .. });
    if !writes || pbs <= 1 {
        return None;
    }
    let sizes = w.io.sizes();
    let odd = sizes
        .lengths()
        .into_iter()
        .find(|&b| !b.is_multiple_of(pbs));
    let start_odd = !phase.span.start.is_multiple_of(pbs);
    if odd.is_none() && !start_odd {
        return None;
    }
    let what = match (odd, start_odd) {
        (Some(b), _) => {
            format!("writes of {b} B are not whole physical blocks of the target ({pbs} B)")
        }
        (None, _) => format!(
            "the span starts at {} B, not on a physical block of the target ({pbs} B), so every write straddles two",
            phase.span.start
        ),
    };
    let who = match t.kind {
        TargetKind::File => "the filesystem under the file",
        _ => "the device",
    };
    Some(format!(
        "{what}: {who} must read, modify and write whole blocks (read-modify-write), so the write numbers describe that, not plain writes of this size"
    ))
}

/// Buffered I/O on a host target: the page cache answers reads and absorbs writes.
fn page_cache(w: &IoWork, t: &TargetInfo) -> Option<String> {
    if w.io.direct || !caps(w.io.engine).opens_target || t.kind == TargetKind::Sim {
        return None;
    }
    Some(
        "direct = false: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device"
            .to_string(),
    )
}
