//! The plan's part of the warning of writes into holes (the run's `run/io_phase.rs` measures the holes):
//! which phases look for holes in their write range before they run, and which erase of the run, if any,
//! left them there (trial 24c F9: holes an erase of this run punched are expected, not a setup to fix).

use super::{ByteRange, PhasePlan, Plan, Work};
use crate::target::TargetKind;

/// What a phase looks for before it runs: holes in its write range, and whose they would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HolesCheck {
    /// The range the phase writes into, where the run counts the file's holes.
    pub range: ByteRange,
    /// The index of the erase of this run (from [`Plan::start_at`]) that last touched the range before the
    /// phase, when it held all of it: every hole there is then one it punched or a later phase left.
    pub after_erase: Option<usize>,
    /// Whether an erase of this run touched the range before the phase (all of it or part): holes there
    /// may be punched ones, not the unwritten blocks of a file this run preallocated.
    pub erased_before: bool,
    /// The index of the last phase of this run before it that trims in the range (its trims punch holes
    /// in a file), if any: holes there are then its, not a fill left out (trial 18 F4).
    pub trimmed_by: Option<usize>,
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
        let trimmed_by = self
            .phases
            .iter()
            .take(phase.index)
            .skip(self.start_at)
            .rev()
            .find(|p| {
                matches!(&p.work, Work::Io(w) if w.trim_percent > 0)
                    && p.span.start < range.end()
                    && p.span.end() > range.start
            })
            .map(|p| p.index);
        let after_erase = last_erase
            .filter(|p| p.span.start <= range.start && p.span.end() >= range.end())
            .map(|p| p.index);
        Some(HolesCheck {
            range,
            after_erase,
            erased_before: last_erase.is_some(),
            trimmed_by,
        })
    }
}
