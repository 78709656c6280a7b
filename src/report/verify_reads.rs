//! A writing fio job's verify reads, which fio counts in the job and wkrun in a phase of its own (trial 19
//! item 3): fio's job with `verify` and `do_verify=1` reads back what it wrote and reports those reads in
//! the job's own `read` figures, while `wkrun import fio` makes the job two phases, its writes and a
//! `verify` phase after them. `compare` pairs phases by name, so fio's job (writes and verify reads) stood
//! beside wkrun's writes alone (read IOPS 7,915 → 0, -100 %) and counted in the composite; the pair is
//! found here, and compare shows its rows without a change, with a note, and leaves it out of the
//! composite.

use crate::results::{PhaseResult, Results};
use crate::spec::PhaseKind;

/// One such pair: fio's job and wkrun's writing phase of the same name, and the verify phase after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySplit {
    /// The column (run) of fio's output.
    pub fio: usize,
    /// The column (run) of wkrun's results.
    pub ours: usize,
    /// The job's name, and wkrun's writing phase's.
    pub phase: String,
    /// wkrun's verify phase that read the writes back.
    pub verify: String,
}

/// The verify phase of `ours` (wkrun's results) that holds the reads fio's job `name` of `fio` (fio's
/// output) counts as its own: fio's job both read and wrote, wkrun's workload of that name only wrote,
/// and the phase right after it is a verify phase imported from the same job (`params.imported_from`).
pub fn verify_phase<'a>(fio: &Results, ours: &'a Results, name: &str) -> Option<&'a PhaseResult> {
    if fio.source.is_none() || ours.source.is_some() {
        return None;
    }
    let job = fio.phases.iter().find(|p| p.name == name)?;
    let at = ours
        .phases
        .iter()
        .position(|p| p.name == name && p.kind == PhaseKind::Workload)?;
    let (mine, next) = (&ours.phases[at], ours.phases.get(at + 1)?);
    let from = mine.params.imported_from.as_ref()?;
    (job.read.ops > 0
        && job.write.ops > 0
        && mine.read.ops == 0
        && mine.write.ops > 0
        && next.kind == PhaseKind::Verify
        && next.params.imported_from.as_ref() == Some(from))
    .then_some(next)
}

/// Whether phase `name` of `a` and of `b` are such a pair, either way round.
pub fn split_pair(a: &Results, b: &Results, name: &str) -> bool {
    verify_phase(a, b, name).is_some() || verify_phase(b, a, name).is_some()
}

/// The pairs of the first run (column 0) with each other run, either way round: what compare's changes
/// and composite set against the first run.
pub fn splits(runs: &[&Results]) -> Vec<VerifySplit> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, run) in runs.iter().enumerate().skip(1) {
        for (fio, ours, f, o) in [(0, k, *first, *run), (k, 0, *run, *first)] {
            if f.source.is_none() || o.source.is_some() {
                continue;
            }
            for job in &f.phases {
                if let Some(v) = verify_phase(f, o, &job.name) {
                    out.push(VerifySplit {
                        fio,
                        ours,
                        phase: job.name.clone(),
                        verify: v.name.clone(),
                    });
                }
            }
        }
    }
    out
}
