//! The plan's part of the warning of writes into holes (the run's `run/io_phase.rs` measures the holes):
//! which phases look for holes in their write range before they run, and which erase of the run, if any,
//! left them there (trial 24c F9: holes an erase of this run punched are expected, not a setup to fix), and
//! which phases of the run before it punched holes there by trimming, and in how much of the range (trial 19
//! F1: the run compares the holes with the bytes those phases trimmed).

use super::{ByteRange, PhasePlan, Plan, Work};
use crate::target::TargetKind;

/// What a phase looks for before it runs: holes in its write range, and whose they would be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HolesCheck {
    /// The range the phase writes into, where the run counts the file's holes.
    pub range: ByteRange,
    /// The index of the erase of this run (from [`Plan::start_at`]) that last touched the range before the
    /// phase, when it held all of it: every hole there is then one it punched or a later phase left.
    pub after_erase: Option<usize>,
    /// Whether an erase of this run touched the range before the phase (all of it or part): holes there
    /// may be punched ones, not the unwritten blocks of a file this run preallocated.
    pub erased_before: bool,
    /// The phases of this run before it whose trims punch holes in the range, in run order: holes there may
    /// be theirs, not a fill left out (trial 18 F4), as far as the bytes they trimmed go (trial 19 F1).
    pub trims: Vec<TrimsBefore>,
}

/// A phase of the run, before the one looking for holes, whose trims punch holes in its write range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrimsBefore {
    /// The phase's index.
    pub index: usize,
    /// Bytes of the write range its span covers: the most of the range its trims can have punched.
    pub overlap: u64,
}

/// Whether a phase's trims punch holes in a file target: it trims, on an engine that does I/O on the
/// target itself (not the `null` engine, which only counts its trims, nor the simulated drive's, whose
/// trims reach the simulated drive, not a file).
fn punches_holes(p: &PhasePlan) -> bool {
    let Work::Io(w) = &p.work else {
        return false;
    };
    let caps = crate::engine::caps(w.io.engine);
    w.trim_percent > 0 && caps.does_io && caps.opens_target
}

impl Plan {
    /// The holes check of `phase`: a phase that writes to a file target (the filesystem allocates a block at
    /// each first write into a hole); `None` for any other.
    pub fn holes_check(&self, phase: &PhasePlan) -> Option<HolesCheck> {
        let Work::Io(work) = &phase.work else {
            return None;
        };
        // Trims punch holes and write nothing (trial 18 F4: a trim-only phase was told to run a fill first).
        let writes = u16::from(work.read_percent) + u16::from(work.trim_percent) < 100
            && crate::engine::caps(work.io.engine).does_io;
        if self.target.kind != TargetKind::File || !writes {
            return None;
        }
        let range = phase.range();
        let last_erase = self
            .phases
            .iter()
            .take(phase.index)
            .skip(self.start_at)
            .rev()
            .find(|p| {
                matches!(p.work, Work::Erase(_))
                    && p.span.start < range.end()
                    && p.span.end() > range.start
            });
        let trims = self
            .phases
            .iter()
            .take(phase.index)
            .skip(self.start_at)
            .filter(|p| punches_holes(p))
            .filter_map(|p| {
                let overlap = p
                    .span
                    .end()
                    .min(range.end())
                    .saturating_sub(p.span.start.max(range.start));
                (overlap > 0).then_some(TrimsBefore {
                    index: p.index,
                    overlap,
                })
            })
            .collect();
        let after_erase = last_erase
            .filter(|p| p.span.start <= range.start && p.span.end() >= range.end())
            .map(|p| p.index);
        Some(HolesCheck {
            range,
            after_erase,
            erased_before: last_erase.is_some(),
            trims,
        })
    }
}
