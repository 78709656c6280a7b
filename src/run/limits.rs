//! What this process's resource limits mean for a plan before it runs: the notes `wkrun plan` prints.

use crate::plan::Plan;
use crate::sys::limits::{Limit, address_space_shortfall, can_lock_any_memory, open_files};
use crate::sys::uring::UringQueue;
use crate::vocab::EngineKind;

/// A note per io_uring phase whose registered buffers (`queue_depth` × the largest block, in whole pages) need
/// more locked memory than RLIMIT_MEMLOCK allows this process: such a phase runs with unregistered buffers
/// and a warning. None when the process may lock any amount (CAP_IPC_LOCK) or the limit is unlimited.
pub fn limit_notes(plan: &Plan) -> Vec<String> {
    let limit = match Limit::LockedMemory.soft() {
        Some(l) if !can_lock_any_memory() => l,
        _ => return Vec::new(),
    };
    plan.to_run()
        .filter_map(|p| {
            let io = p.io().filter(|io| io.engine == EngineKind::IoUring)?;
            let (qd, len) = (io.queue_depth as u64, io.largest_block());
            let needs = UringQueue::registration_bytes(qd, len);
            (needs > limit).then(|| {
                format!(
                    "phase {} \"{}\": io_uring registers {qd} I/O buffers of {len} B, {needs} B of locked memory, more than {} allows ({limit} B): the phase will run with unregistered buffers (a warning in its results); raise the limit (ulimit -l {} or more) to register them",
                    p.index,
                    p.name,
                    Limit::LockedMemory.name(),
                    needs.div_ceil(1024)
                )
            })
        })
        .collect()
}

/// Files a run holds open at once, at most: [`BASE_FILES`] for the run and its output folder, [`FILES_PER_TARGET`]
/// more for each target beyond the first (its file or device, its folder and lock, a CSV, results.json being
/// replaced, the room kept), and the workers' own files of each target's phase that has most (an io_uring
/// ring per worker; a libaio or psync worker past the first, an open file of the target). An upper
/// bound: measured (the least limit it ran under, less the files open when it started), a run on one file
/// or simulated drive, psync, libaio or io_uring with one worker, took 5, with `workers = 4` on io_uring
/// 9 and with `workers = 16` 21; 16 file targets on psync ran with 70 open files at most, where this gives
/// 98.
pub const BASE_FILES: u64 = 8;
/// See [`BASE_FILES`].
pub const FILES_PER_TARGET: u64 = 6;
/// Files a run has open of its own when it checks the open-file limit ([`check_open_files`]), counted
/// among those open then: its output folder, opened and locked before the check (so that a folder another
/// run holds is refused first). A process that starts a run and advises a limit for it counts them beside
/// [`BASE_FILES`] (attack 13 F11: `sim predict` advised 13, and its run refused 13 and asked 14).
pub const OPEN_AT_CHECK: u64 = 1;

/// The files the workers of the phase of `plan` that has most hold open at once of their own: an io_uring
/// ring per worker, and an open file of the target per worker past the first on an engine that gives them
/// one ([`crate::engine::Caps::file_per_worker`]).
fn worker_files(plan: &Plan) -> u64 {
    plan.to_run()
        .filter_map(|p| p.io())
        .map(|io| {
            let workers = u64::from(io.workers.max(1));
            let rings = if io.engine == EngineKind::IoUring {
                workers
            } else {
                0
            };
            let files = match crate::engine::caps(io.engine).file_per_worker {
                true => workers - 1,
                false => 0,
            };
            rings + files
        })
        .max()
        .unwrap_or(0)
}

/// Makes sure the open-file limit (RLIMIT_NOFILE, `ulimit -n`) leaves `needs` files beside those open now,
/// raising its soft limit up to the hard one where it is lower (as a shell's `ulimit -n` may); `what`
/// names what needs them ("a run", "sim fit") and `how` what else helps. Checked before anything is
/// made, so nothing is written.
///
/// # Errors
/// What is needed, the limit and its hard limit, and how to raise it.
pub fn ensure_open_files(what: &str, needs: u64, how: &str) -> Result<(), String> {
    let Some(limit) = Limit::OpenFiles.soft() else {
        return Ok(());
    };
    let open = open_files().unwrap_or(3);
    let want = open + needs;
    if want <= limit || Limit::OpenFiles.raise_to(want) {
        return Ok(());
    }
    let hard = Limit::OpenFiles
        .hard()
        .map_or(String::new(), |h| format!(" (its hard limit {h})"));
    Err(format!(
        "{what} needs up to {needs} open files at once beside the {open} wkrun has open now (its standard input, output and error, those it inherited and those it opened), and {} is {limit}{hard}: raise it to at least {want} (ulimit -n {want}){how}; nothing was written",
        Limit::OpenFiles.name(),
    ))
}

/// Refuses a run on the targets of `plans` that the open-file limit (RLIMIT_NOFILE) would stop part way,
/// with some results unwritten ([`ensure_open_files`]; the limit is raised to its hard limit when that is
/// enough).
///
/// # Errors
/// What the run needs, what the limit allows, and how to raise it.
pub fn check_open_files(plans: &[&Plan]) -> Result<(), String> {
    let targets = plans.len() as u64;
    let needs = BASE_FILES
        + FILES_PER_TARGET * targets.saturating_sub(1)
        + plans.iter().map(|p| worker_files(p)).sum::<u64>();
    let (what, how) = match targets {
        1 => ("a run".to_string(), ""),
        n => (
            format!("a run on {n} targets"),
            " or run on fewer targets at once",
        ),
    };
    ensure_open_files(&what, needs, how)
}

/// Address space a run keeps free for itself beyond its targets (its results, messages, the report of the
/// aggregate), under an address-space limit: see [`check_address_space`].
pub const RUN_SPACE: u64 = 4 << 20;
/// Address space each target's run takes beyond its phases' own threads and buffers: its thread, the
/// collector and counter threads of a phase (2 MiB stacks each), the latency histograms (264 KiB each)
/// and the allocator's room. Measured on the debug build with a psync phase at QD1 (3 MiB of its own):
/// each target beyond the first raised the least limit a run completed under by 9 to 11 MiB.
pub const TARGET_SPACE: u64 = 8 << 20;
/// Address space one thread of a phase takes, counted alike before the run ([`check_address_space`]) and
/// before the phase starts its threads (`run/measure.rs`): the standard library's default stack (2 MiB),
/// its guard page and signal stack, and the latency histograms its recorder allocates (264 KiB each: one
/// per direction for the phase, and for each direction issued the current interval's and its spare: 1.8
/// MiB for reads and writes), rounded up.
pub const PHASE_THREAD_SPACE: u64 = 5 << 20;
/// Room a phase that starts threads keeps besides them and its buffers: the runner's own allocations while
/// the phase starts (under the limit, malloc keeps to one arena:
/// `sys::limits::one_malloc_arena_under_address_limit`).
pub const PHASE_MARGIN: u64 = 1 << 20;

/// The address space of a phase that starts `threads` threads with `buffers` B of I/O buffers: the one
/// definition the run's check ([`check_address_space`]) and the phase's own check before its threads
/// start hold against the limit. A phase that starts no thread needs its buffers alone (the engine
/// allocates them fallibly).
pub fn phase_space(threads: u64, buffers: u64) -> u64 {
    match threads {
        0 => buffers,
        _ => threads
            .saturating_mul(PHASE_THREAD_SPACE)
            .saturating_add(buffers)
            .saturating_add(PHASE_MARGIN),
    }
}

/// The threads a phase of `workers` workers on `engine` with `queue_depth` I/Os each in flight starts:
/// with several workers, a thread per worker; and each worker's engine its own (psync: one per queue slot,
/// [`crate::engine::Caps::thread_per_slot`]). The one count the run's check ([`check_address_space`]) and
/// the phase's own check before its threads start (`run/measure.rs`) take, with [`phase_space`].
pub fn phase_threads(engine: EngineKind, workers: u32, queue_depth: u32) -> u64 {
    let workers = u64::from(workers.max(1));
    let per_worker = match crate::engine::caps(engine).thread_per_slot {
        true => u64::from(queue_depth),
        false => 0,
    };
    let own = match workers {
        1 => 0,
        n => n,
    };
    workers.saturating_mul(per_worker).saturating_add(own)
}

/// What a run needs, in parts that add up to it (the parts of each target's largest phase summed over
/// the targets): see [`check_address_space`] and [`check_memory`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Need {
    targets: u64,
    threads: u64,
    buffers: u64,
    margin: u64,
    trace: u64,
    tables: u64,
    sims: u64,
}

impl Need {
    /// The parts of `plans`' run: for each target the phase that needs most, its threads only with
    /// `stacks` (the memory check leaves them out), and a simulated drive's mapping tables.
    fn of(plans: &[&Plan], stacks: bool) -> Need {
        plans.iter().fold(Need::default(), |n, p| {
            let (threads, buffers, trace) = largest_phase(p, stacks);
            let margin = phase_space(threads, 0).saturating_sub(threads * PHASE_THREAD_SPACE);
            Need {
                targets: n.targets + 1,
                threads: n.threads.saturating_add(threads),
                buffers: n.buffers.saturating_add(buffers),
                margin: n.margin.saturating_add(margin),
                trace: n.trace.saturating_add(trace),
                tables: n.tables.saturating_add(sim_tables(p)),
                sims: n.sims + u64::from(p.target.sim.is_some()),
            }
        })
    }

    /// The whole need, bytes.
    fn total(&self) -> u64 {
        [
            RUN_SPACE,
            self.targets.saturating_mul(TARGET_SPACE),
            self.threads.saturating_mul(PHASE_THREAD_SPACE),
            self.buffers,
            self.margin,
            self.trace,
            self.tables,
        ]
        .into_iter()
        .fold(0u64, u64::saturating_add)
    }

    /// The parts in words, each with its bytes, in the order they add up: `"4194304 B for the run,
    /// 8388608 B for the target, and for its largest phase 1363148800 B for 260 threads of 5242880 B,
    /// 268435456 B of I/O buffers, 1048576 B of room as it starts"`, then the per-I/O trace (naming
    /// `trace`, the largest). A simulated drive's mapping tables, which last the run, are a part of their
    /// own before the largest phase's (they were listed among that phase's parts).
    fn parts(&self, largest_trace: u64) -> String {
        let mut s = match self.targets {
            1 => format!("{RUN_SPACE} B for the run, {TARGET_SPACE} B for the target"),
            n => format!(
                "{RUN_SPACE} B for the run, {} B for the {n} targets ({TARGET_SPACE} B each)",
                n * TARGET_SPACE
            ),
        };
        if self.tables > 0 {
            let drives = match self.sims {
                1 => "the simulated drive's",
                _ => "the simulated drives'",
            };
            s += &format!(", {} B for {drives} mapping tables", self.tables);
        }
        s += match self.targets {
            1 => ", and for its largest phase",
            _ => ", and for the largest phase of each",
        };
        if self.threads > 0 {
            let plural = if self.threads == 1 { "" } else { "s" };
            s += &format!(
                " {} B for {} thread{plural} of {PHASE_THREAD_SPACE} B,",
                self.threads * PHASE_THREAD_SPACE,
                self.threads
            );
        }
        s += &format!(" {} B of I/O buffers", self.buffers);
        if self.margin > 0 {
            s += &format!(", {} B of room as it starts", self.margin);
        }
        if self.trace > 0 {
            s += &format!(
                ", {} B of per-I/O trace (trace = {largest_trace}: {} B reserved before its phase)",
                self.trace,
                trace_space(largest_trace)
            );
        }
        s
    }
}

/// The memory a simulated drive's mapping tables take ([`crate::sim::SimTarget::table_bytes`]); 0 for
/// another target.
fn sim_tables(plan: &Plan) -> u64 {
    plan.target.sim.as_ref().map_or(0, |s| s.table_bytes())
}

/// The phase of `plan` that needs most address space ([`phase_space`] and its per-I/O trace,
/// [`trace_space`]): its threads ([`phase_threads`], counted only with `stacks`), I/O buffers (a queue's worth per worker) and trace room.
fn largest_phase(plan: &Plan, stacks: bool) -> (u64, u64, u64) {
    plan.to_run()
        .filter_map(|p| p.io())
        .map(|io| {
            let workers = u64::from(io.workers.max(1));
            let threads = match stacks {
                true => phase_threads(io.engine, io.workers, io.queue_depth),
                false => 0,
            };
            let buffers = workers
                .saturating_mul(u64::from(io.queue_depth))
                .saturating_mul(io.largest_block());
            (threads, buffers, trace_space(io.trace))
        })
        .max_by_key(|&(threads, buffers, trace)| {
            phase_space(threads, buffers).saturating_add(trace)
        })
        .unwrap_or((0, 0, 0))
}

/// The room a per-I/O trace of `trace` I/Os reserves before its phase: 32 B an I/O.
fn trace_space(trace: u64) -> u64 {
    trace.saturating_mul(crate::stats::trace::TRACE_ROW_BYTES)
}

/// `"a run"`, or `"a run on N targets"`.
fn a_run(plans: &[&Plan]) -> String {
    match plans.len() {
        1 => "a run".to_string(),
        n => format!("a run on {n} targets"),
    }
}

/// The largest per-I/O trace of the phases of `plans` (0 without one): a `trace` of millions of I/Os is
/// most of a need, so it is named.
fn largest_trace(plans: &[&Plan]) -> u64 {
    plans
        .iter()
        .flat_map(|p| p.to_run().filter_map(|ph| ph.io()).map(|io| io.trace))
        .max()
        .unwrap_or(0)
}

/// Refuses a run whose need, as [`check_address_space`] counts it less the threads' stacks (address space
/// a thread hardly touches), is more than the machine's available memory or what a cgroup's memory limit
/// leaves ([`crate::sys::limits::Memory`]): the run's and each target's room, the largest phase's I/O
/// buffers and per-I/O trace, and a simulated drive's mapping tables. Checked before anything is made, so
/// nothing is written.
///
/// # Errors
/// What the run needs, in parts that add up to it, and what MemAvailable or the cgroup limit holds.
pub fn check_memory(plans: &[&Plan]) -> Result<(), String> {
    let need = Need::of(plans, false);
    let detail = format!("{}: docs/safety.md", need.parts(largest_trace(plans)));
    match crate::sys::limits::Memory::now().shortfall(&a_run(plans), need.total(), &detail) {
        Some(short) => Err(format!("{short}; nothing was written")),
        None => Ok(()),
    }
}

/// Refuses a run that an address-space limit (RLIMIT_AS, `ulimit -v`) would leave without the room it
/// needs: `RUN_SPACE`, and for each target `TARGET_SPACE` with its largest phase's threads, buffers and
/// room ([`phase_space`], what the phase checks again before it starts its threads), per-I/O trace and a
/// simulated drive's mapping tables, all targets together (they run at once). Checked before anything is
/// made, so nothing is written; under less, a thread's stack or an allocation of the standard library
/// would fail where the process can only abort. An upper estimate: a run may need less.
///
/// # Errors
/// What the run needs, in parts that add up to it, the limit, and a limit that leaves it.
pub fn check_address_space(plans: &[&Plan]) -> Result<(), String> {
    let need = Need::of(plans, true);
    let Some(short) = address_space_shortfall(need.total()) else {
        return Ok(());
    };
    let detail = need.parts(largest_trace(plans));
    Err(format!(
        "{}; nothing was written",
        short.message(&a_run(plans), need.total(), &detail)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threads a phase starts, one count for the run's check and the phase's (review L3: two rules
    /// counted them): psync one per queue slot of each worker, and with several workers a thread each; the
    /// queue engines none of their own.
    #[test]
    fn a_phases_threads_are_its_workers_and_their_engines() {
        let cases = [
            (EngineKind::Psync, 1, 1, 1),
            (EngineKind::Psync, 1, 8, 8),
            (EngineKind::Psync, 4, 8, 36),
            (EngineKind::Psync, 256, 1, 512),
            (EngineKind::IoUring, 1, 32, 0),
            (EngineKind::IoUring, 4, 32, 4),
            (EngineKind::Libaio, 2, 16, 2),
            (EngineKind::Null, 3, 1, 3),
            (EngineKind::Sim, 1, 4, 0),
            // No workers counts as one, as a plan never has fewer.
            (EngineKind::Psync, 0, 2, 2),
        ];
        for (engine, workers, qd, threads) in cases {
            assert_eq!(
                phase_threads(engine, workers, qd),
                threads,
                "{engine:?} {workers} workers at QD{qd}"
            );
        }
    }

    /// The parts of a need on two simulated drives: their mapping tables a part of their own, not among the
    /// largest phase's (the message listed them there), and the parts add up to the total stated.
    #[test]
    fn the_mapping_tables_are_their_own_part_and_the_parts_add_up() {
        let need = Need {
            targets: 2,
            threads: 4,
            buffers: 1_048_576,
            margin: 2 * PHASE_MARGIN,
            trace: 3200,
            tables: 555_661_312,
            sims: 2,
        };
        assert_eq!(
            need.parts(100),
            "4194304 B for the run, 16777216 B for the 2 targets (8388608 B each), 555661312 B for the simulated drives' mapping tables, and for the largest phase of each 20971520 B for 4 threads of 5242880 B, 1048576 B of I/O buffers, 2097152 B of room as it starts, 3200 B of per-I/O trace (trace = 100: 3200 B reserved before its phase)"
        );
        let addends = [
            4_194_304u64,
            16_777_216,
            555_661_312,
            20_971_520,
            1_048_576,
            2_097_152,
            3200,
        ];
        assert_eq!(addends.iter().sum::<u64>(), need.total());
        assert_eq!(need.total(), 600_753_280);
    }
}
