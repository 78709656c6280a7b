//! The size of the `results.json` a plan writes, estimated from the plan, and the readers' limit it is held
//! to ([`MAX_RESULTS_BYTES`]), so that a run does not write results that `validate`, `report`, `compare`,
//! `merge` and `sim fit` would then refuse.
//!
//! A phase's results are a few KB of fixed fields (its parameters, totals, latency summaries, warnings) and
//! its latency histograms: one `[value_ns, count]` pair per histogram bucket that some I/O fell in, for
//! each direction it does. The fixed part is bounded from the plan's counts (workers, windows, block sizes,
//! aggregate groups, headline figures); the histograms cannot be, short of the full 33,792 buckets a
//! direction (1.1 MB of text). So the limit is held twice:
//!
//! - before anything runs, [`check`] refuses a plan that surely cannot fit: its fixed parts and the
//!   histogram pairs its phases surely write, one a direction (none for a phase bounded by no I/O),
//!   [`least_phase_bytes`];
//! - during the run, before each phase, [`account`] holds the results written so far, their real size,
//!   and the phase's room, [`phase_bytes`], to the limit: a direction is given [`HISTOGRAM_PAIRS`] pairs (at
//!   most one per I/O when the phase is bounded by its I/Os), calibrated on what runs write: the most
//!   pairs a direction held were 3,803 (libaio on a file, queue depth 256, 2 s) and 1,571 (null engine,
//!   queue depth 1024, 2 workers, 5 s). A phase whose histograms turn out larger than its room is caught
//!   after it ([`fits`]), before results.json passes the limit.

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

/// The room the results of these phases are given, in bytes: [`RUN_BYTES`] and each phase's
/// [`phase_bytes`].
pub fn results_bytes(phases: &[PhasePlan]) -> u64 {
    phases
        .iter()
        .map(phase_bytes)
        .fold(RUN_BYTES, u64::saturating_add)
}

/// The least the results of these phases surely take, as [`check`] counts it: [`RUN_BYTES`] and each
/// phase's [`least_phase_bytes`].
pub fn least_results_bytes(phases: &[PhasePlan]) -> u64 {
    phases
        .iter()
        .map(least_phase_bytes)
        .fold(RUN_BYTES, u64::saturating_add)
}

/// The room one phase's results are given, in bytes: its fixed parts and [`HISTOGRAM_PAIRS`] histogram
/// pairs a direction (at most one per I/O when its I/Os bound it).
pub fn phase_bytes(p: &PhasePlan) -> u64 {
    sized(p, |ops| {
        ops.map_or(HISTOGRAM_PAIRS, |n| n.min(HISTOGRAM_PAIRS))
    })
}

/// What one phase's results surely take, in bytes: its fixed parts and one histogram pair a direction
/// (none when its I/Os are bounded to none).
pub fn least_phase_bytes(p: &PhasePlan) -> u64 {
    sized(p, |ops| ops.map_or(1, |n| n.min(1)))
}

/// One phase's fixed parts, with `pairs(ops)` histogram pairs a direction for a phase its I/Os bound to
/// `ops` (`None`: bounded by time).
fn sized(p: &PhasePlan, pairs: impl Fn(Option<u64>) -> u64) -> u64 {
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
        Work::Verify(v) => directions_bytes(1, v.io.workers, pairs(Some(v.ops))),
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
            directions_bytes(dirs, w.io.workers, pairs(w.bound.ops()))
                .saturating_add(entries.saturating_mul(ENTRY_BYTES))
        }
    };
    fixed.saturating_add(io)
}

/// What `dirs` directions take in a phase of `workers` workers: their totals in the phase and in each worker
/// (when more than one), and their histograms, of `pairs` pairs each.
fn directions_bytes(dirs: u64, workers: u32, pairs: u64) -> u64 {
    let workers = u64::from(workers);
    let per_worker = match workers {
        0 | 1 => 0,
        n => n * (WORKER_BYTES + dirs * DIRECTION_BYTES),
    };
    // The phase's total has a summary of its own beside each direction's.
    (dirs + 1) * DIRECTION_BYTES + per_worker + dirs * pairs * PAIR_BYTES
}

/// Refuses phases whose results surely pass [`MAX_RESULTS_BYTES`] ([`least_results_bytes`]), naming their
/// number and the limit.
pub fn check(phases: &[PhasePlan]) -> Result<(), String> {
    let bytes = least_results_bytes(phases);
    if bytes <= MAX_RESULTS_BYTES {
        return Ok(());
    }
    Err(format!(
        "the results of these {} phases could take {bytes} bytes (estimated from the plan: up to {} bytes a phase), more than {} ({MAX_RESULTS_BYTES} bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take",
        phases.len(),
        phases.iter().map(least_phase_bytes).max().unwrap_or(0),
        crate::units::fmt_bytes(MAX_RESULTS_BYTES),
    ))
}

/// A note when the room of `phases` ([`results_bytes`]) passes [`MAX_RESULTS_BYTES`], though what they
/// surely take does not ([`check`]): the run may stop before a phase, by its account ([`account`]).
pub fn room_note<'a>(phases: impl Iterator<Item = &'a PhasePlan>) -> Option<String> {
    let (n, room) = phases.fold((0_usize, RUN_BYTES), |(n, b), p| {
        (n + 1, b.saturating_add(phase_bytes(p)))
    });
    (room > MAX_RESULTS_BYTES).then(|| format!(
        "the results of these {n} phases are given room for up to {room} bytes ({HISTOGRAM_PAIRS} latency histogram pairs a direction), more than {} ({MAX_RESULTS_BYTES} bytes), the largest results file wkrun's readers take: the run accounts what each phase writes and stops, failed, before a phase whose room would take results.json past it, keeping the phases before; a spec split into several runs avoids that",
        crate::units::fmt_bytes(MAX_RESULTS_BYTES),
    ))
}

/// Whether a results document of `bytes` leaves [`RUN_BYTES`] under [`MAX_RESULTS_BYTES`] for what the
/// run's last write adds to its own fields (its end, an error, the device's counters after the run).
pub fn fits(bytes: u64) -> bool {
    bytes.saturating_add(RUN_BYTES) <= MAX_RESULTS_BYTES
}

/// The run's account before phase `p`: `written`, the bytes of results.json as it stands (every phase so
/// far, written or yet to be), and the phase's room ([`phase_bytes`]) must [`fits`]; otherwise the
/// message that ends the run before the phase, naming it and the limit.
pub fn account(written: u64, p: &PhasePlan) -> Result<(), String> {
    let room = phase_bytes(p);
    if fits(written.saturating_add(room)) {
        return Ok(());
    }
    Err(format!(
        "phase {} \"{}\" not run: results.json takes {written} bytes so far, and the phase's results could take up to {room} bytes (estimated from the plan), which with {RUN_BYTES} bytes kept for the run's end could pass {} ({MAX_RESULTS_BYTES} bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take; run the rest in another run (--from {})",
        p.index,
        crate::text::escaped(&p.name),
        crate::units::fmt_bytes(MAX_RESULTS_BYTES),
        p.index,
    ))
}

/// The message that ends a run whose phase `index` (`name`) made results.json `bytes` long, past what
/// [`fits`]: the phase's results are not kept.
pub fn past_limit(index: usize, name: &str, bytes: u64) -> String {
    format!(
        "phase {index} \"{}\": its results would make results.json {bytes} bytes, which with {RUN_BYTES} bytes kept for the run's end could pass {} ({MAX_RESULTS_BYTES} bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take: its histograms held more pairs than the room the run gave them; its results are not kept; run it and the rest in another run (--from {index})",
        crate::text::escaped(name),
        crate::units::fmt_bytes(MAX_RESULTS_BYTES),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{TargetInfo, TargetKind};
    use std::path::Path;

    /// The phases of `body`, null-engine workloads, planned on a 1 GiB file.
    fn phases(body: &str) -> Vec<PhasePlan> {
        let text = format!(
            "format = 1\n[spec]\nname = \"s\"\nversion = \"1\"\n[defaults]\nengine = \"null\"\n{body}"
        );
        let spec = crate::spec::load::load_str(Path::new("s.toml"), &text).unwrap();
        let target = TargetInfo::new(
            std::path::PathBuf::from("t.img"),
            TargetKind::File,
            1 << 30,
            512,
            4096,
        );
        super::super::resolve(&spec, &target).unwrap().phases
    }

    /// A one-direction phase of 1 s, named `a` (its name four times): room and least, in bytes, from the
    /// constants (docs/results.md).
    #[test]
    fn a_phase_of_reads_for_a_second() {
        let p = &phases(
            "[[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 100\nduration = \"1s\"\n",
        )[0];
        let fixed = PHASE_BYTES + WARNINGS_BYTES + 4 + 2 * DIRECTION_BYTES + 2 * ENTRY_BYTES;
        assert_eq!(fixed, 13_316);
        assert_eq!(least_phase_bytes(p), fixed + PAIR_BYTES);
        assert_eq!(phase_bytes(p), fixed + HISTOGRAM_PAIRS * PAIR_BYTES);
        assert_eq!(phase_bytes(p), 144_388);
    }

    /// A phase bounded by 3 I/Os is given room for 3 pairs a direction; by none, none.
    #[test]
    fn a_phase_bounded_by_its_ios_has_at_most_a_pair_an_io() {
        let ps = phases(
            "[[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 100\nsize = \"12KiB\"\n",
        );
        let fixed = PHASE_BYTES + WARNINGS_BYTES + 4 + 2 * DIRECTION_BYTES + 2 * ENTRY_BYTES;
        assert_eq!(phase_bytes(&ps[0]), fixed + 3 * PAIR_BYTES);
        assert_eq!(least_phase_bytes(&ps[0]), fixed + PAIR_BYTES);
    }

    /// The run's account before a phase: the bytes written so far, the phase's room and [`RUN_BYTES`] at
    /// most [`MAX_RESULTS_BYTES`]; one byte more ends the run before the phase, naming it and the limit.
    #[test]
    fn the_account_lets_a_phase_run_while_its_room_fits() {
        let ps = phases(
            "[[phase]]\nname = \"first\"\nkind = \"workload\"\nread_percent = 100\nsize = \"12KiB\"\n\
             [[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 100\nduration = \"1s\"\n",
        );
        let p = &ps[1];
        let most = MAX_RESULTS_BYTES - RUN_BYTES - 144_388;
        assert_eq!(most, 536_660_988);
        assert_eq!(account(most, p), Ok(()));
        assert_eq!(
            account(most + 1, p),
            Err("phase 1 \"a\" not run: results.json takes 536660989 bytes so far, and the phase's results could take up to 144388 bytes (estimated from the plan), which with 65536 bytes kept for the run's end could pass 512MiB (536870912 bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take; run the rest in another run (--from 1)".to_string())
        );
        // The plan says when the run may stop so: 3,717 such phases have room, 3,718 not.
        assert_eq!((MAX_RESULTS_BYTES - RUN_BYTES) / 144_388, 3_717);
        assert_eq!(room_note(std::iter::repeat_n(p, 3_717)), None);
        assert_eq!(
            room_note(std::iter::repeat_n(p, 3_718)).as_deref(),
            Some(
                "the results of these 3718 phases are given room for up to 536900120 bytes (4096 latency histogram pairs a direction), more than 512MiB (536870912 bytes), the largest results file wkrun's readers take: the run accounts what each phase writes and stops, failed, before a phase whose room would take results.json past it, keeping the phases before; a spec split into several runs avoids that"
            )
        );
        // After a phase: a document that leaves the run's end its room fits, one byte more does not.
        assert!(fits(MAX_RESULTS_BYTES - RUN_BYTES));
        assert!(!fits(MAX_RESULTS_BYTES - RUN_BYTES + 1));
        assert!(!fits(u64::MAX));
    }
}
