//! The size of the `results.json` a plan writes, estimated from the plan before anything runs, and the
//! readers' limit it is held to: a plan whose results could pass [`MAX_RESULTS_BYTES`] is refused
//! ([`check`]), so a run does not write results that `validate`, `report`, `compare`, `merge` and
//! `sim fit` would then refuse, as long as its histograms stay within the room calibrated below.
//!
//! A phase's results are a few KB of fixed fields (its parameters, totals, latency summaries, warnings) and
//! its latency histograms: one `[value_ns, count]` pair per histogram bucket that some I/O fell in, for
//! each direction it does. The fixed part is bounded from the plan's counts (workers, windows, block sizes,
//! aggregate groups, headline figures); the histograms cannot be, short of the full 33,792 buckets a
//! direction (1.1 MB of text), which would refuse any run past about 250 time-bounded phases of reads
//! and writes. A phase
//! bounded by its I/Os has at most one pair per I/O; otherwise a direction is given room for
//! [`HISTOGRAM_PAIRS`] pairs, calibrated on what runs write: the most pairs a direction held were 3,803
//! (libaio on a file, queue depth 256, 2 s) and 1,571 (null engine, queue depth 1024, 2 workers, 5 s). A
//! longer phase on a device whose latencies spread over many decades can hold more; its results, kept on
//! disk, are then refused by the readers naming the limit.

use super::{PhasePlan, Work};
use crate::vocab::Direction;

/// The largest `results.json` wkrun's readers take: 512 MiB. A results file is read as its text and then
/// a phase at a time, in at most 3 times its size beside what a small one takes.
pub const MAX_RESULTS_BYTES: u64 = 512 << 20;

/// The run's own fields around its phases (host, target, launch, blocks of rounds, searches): at most
/// 64 KiB.
pub const RUN_BYTES: u64 = 64 << 10;
/// A phase's fixed fields with one worker, its text aside (measured: 3.3 to 3.9 KB).
pub const PHASE_BYTES: u64 = 6 << 10;
/// Room for a phase's warnings (measured: 0.4 to 1.1 KB).
pub const WARNINGS_BYTES: u64 = 4 << 10;
/// Each direction's totals and latency summary, in the phase and in each worker (measured: about 0.6 KB).
pub const DIRECTION_BYTES: u64 = 1 << 10;
/// A worker's own fields beside its directions, when a phase has more than one (measured: about 0.5 KB).
pub const WORKER_BYTES: u64 = 1 << 10;
/// A window's, an aggregate group's, a block size's or a headline figure's entry (at most about 0.3 KB).
pub const ENTRY_BYTES: u64 = 512;
/// The pairs a direction's latency histogram is given room for, when the phase's I/Os do not bound them.
pub const HISTOGRAM_PAIRS: u64 = 4096;
/// A histogram pair as written, `[value_ns, count],` on its own indented line (measured: 22 to 27 bytes).
pub const PAIR_BYTES: u64 = 32;

/// The estimated size of the results of these phases, in bytes: [`RUN_BYTES`] and each phase's
/// [`phase_bytes`].
pub fn results_bytes(phases: &[PhasePlan]) -> u64 {
    phases
        .iter()
        .map(phase_bytes)
        .fold(RUN_BYTES, u64::saturating_add)
}

/// The estimated size of one phase's results, in bytes.
pub fn phase_bytes(p: &PhasePlan) -> u64 {
    // The name is written in the phase and in its files' names (series, histogram log, counters).
    let text = 4 * p.name.len() as u64
        + p.labels
            .iter()
            .map(|l| {
                32 + (l.key.len() + l.value.len()) as u64
                    + l.sweep.as_ref().map_or(0, |s| s.len() as u64)
            })
            .sum::<u64>()
        + p.warnings.iter().map(|w| 8 + w.len() as u64).sum::<u64>()
        + p.rounding.iter().map(|r| 8 + r.len() as u64).sum::<u64>()
        + p.imported_from.as_ref().map_or(0, |s| s.len() as u64);
    let fixed = PHASE_BYTES + WARNINGS_BYTES + text;
    let io = match &p.work {
        Work::Erase(_) => 0,
        Work::Verify(v) => directions_bytes(1, v.io.workers, Some(v.ops)),
        Work::Io(w) => {
            let mix = w.mix();
            let dirs = Direction::ALL
                .iter()
                .filter(|d| mix.percent(**d) > 0)
                .count() as u64;
            let m = &w.measure;
            let groups = match (m.aggregate_ns, w.bound.duration_ns()) {
                (Some(a), Some(d)) if a > 0 => d.div_ceil(a),
                _ => 0,
            };
            let sizes = w.io.mix.as_ref().map_or(1, Vec::len) as u64;
            let entries = groups + sizes + (m.windows.len() + m.headline.len()) as u64;
            directions_bytes(dirs, w.io.workers, w.bound.ops())
                .saturating_add(entries.saturating_mul(ENTRY_BYTES))
        }
    };
    fixed.saturating_add(io)
}

/// What `dirs` directions take in a phase of `workers` workers: their totals in the phase and in each worker
/// (when more than one), and their histograms, of at most one pair per I/O when `ops` bounds them.
fn directions_bytes(dirs: u64, workers: u32, ops: Option<u64>) -> u64 {
    let workers = u64::from(workers);
    let per_worker = match workers {
        0 | 1 => 0,
        n => n * (WORKER_BYTES + dirs * DIRECTION_BYTES),
    };
    let pairs = ops.map_or(HISTOGRAM_PAIRS, |n| n.min(HISTOGRAM_PAIRS));
    // The phase's total has a summary of its own beside each direction's.
    (dirs + 1) * DIRECTION_BYTES + per_worker + dirs * pairs * PAIR_BYTES
}

/// Refuses phases whose results could pass [`MAX_RESULTS_BYTES`], naming their number and the limit.
pub fn check(phases: &[PhasePlan]) -> Result<(), String> {
    let bytes = results_bytes(phases);
    if bytes <= MAX_RESULTS_BYTES {
        return Ok(());
    }
    Err(format!(
        "the results of these {} phases could take {bytes} bytes (estimated from the plan: up to {} bytes a phase), more than {} ({MAX_RESULTS_BYTES} bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take",
        phases.len(),
        phases.iter().map(phase_bytes).max().unwrap_or(0),
        crate::units::fmt_bytes(MAX_RESULTS_BYTES),
    ))
}
