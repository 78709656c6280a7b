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
/// replaced, the room kept), and an io_uring ring per worker of each target's phase that has most. An upper
/// bound: measured (the least limit it ran under, less the files open when it started), a run on one file
/// or simulated drive, psync, libaio or io_uring with one worker, took 5, with `workers = 4` on io_uring
/// 9 and with `workers = 16` 21; 16 file targets on psync ran with 70 open files at most, where this gives
/// 98.
pub const BASE_FILES: u64 = 8;
/// See [`BASE_FILES`].
pub const FILES_PER_TARGET: u64 = 6;

/// The io_uring rings the phase of `plan` that has most holds open at once: one per worker.
fn rings(plan: &Plan) -> u64 {
    plan.to_run()
        .filter_map(|p| p.io())
        .filter(|io| io.engine == EngineKind::IoUring)
        .map(|io| u64::from(io.workers.max(1)))
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
        "{what} needs up to {needs} open files at once beside the {open} open now, and {} is {limit}{hard}: raise it to at least {want} (ulimit -n {want}){how}; nothing was written",
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
        + plans.iter().map(|p| rings(p)).sum::<u64>();
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
/// Address space one thread of a phase takes: a 2 MiB stack, its guard page and signal stack.
pub const PHASE_THREAD_SPACE: u64 = 3 << 20;

/// The address space the phase of `plan` that needs most takes: its threads (a psync worker's thread per
/// queue slot, a thread per worker beyond the first), I/O buffers (a queue's worth per worker) and per-I/O
/// trace ([`trace_space`]); the threads only with `stacks`.
fn largest_phase_space(plan: &Plan, stacks: bool) -> u64 {
    plan.to_run()
        .filter_map(|p| p.io())
        .map(|io| {
            let workers = u64::from(io.workers.max(1));
            let per_worker = match crate::engine::caps(io.engine).thread_per_slot {
                true => u64::from(io.queue_depth),
                false => 0,
            };
            let threads =
                (workers * per_worker + u64::from(workers > 1) * workers) * u64::from(stacks);
            let buffers = workers
                .saturating_mul(u64::from(io.queue_depth))
                .saturating_mul(io.largest_block());
            threads
                .saturating_mul(PHASE_THREAD_SPACE)
                .saturating_add(buffers)
                .saturating_add(trace_space(io.trace))
        })
        .max()
        .unwrap_or(0)
}

/// The room a per-I/O trace of `trace` I/Os reserves before its phase: 32 B an I/O.
fn trace_space(trace: u64) -> u64 {
    trace.saturating_mul(crate::stats::trace::TRACE_ROW_BYTES)
}

/// Refuses a run whose need, as [`check_address_space`] counts it less the threads' stacks (address space
/// a thread hardly touches), is more than the machine's available memory or what a cgroup's memory limit
/// leaves ([`crate::sys::limits::Memory`]). Checked before anything is made, so nothing is written.
///
/// # Errors
/// What the run needs and what MemAvailable or the cgroup limit holds.
pub fn check_memory(plans: &[&Plan]) -> Result<(), String> {
    let need = plans.iter().fold(RUN_SPACE, |n, p| {
        n.saturating_add(TARGET_SPACE.saturating_add(largest_phase_space(p, false)))
    });
    let what = match plans.len() {
        1 => "a run".to_string(),
        n => format!("a run on {n} targets"),
    };
    let detail = format!(
        "{RUN_SPACE} B for the run, and for each target {TARGET_SPACE} B with its largest phase's I/O buffers and per-I/O trace: docs/safety.md"
    );
    match crate::sys::limits::Memory::now().shortfall(&what, need, &detail) {
        Some(short) => Err(format!("{short}; nothing was written")),
        None => Ok(()),
    }
}

/// Refuses a run that an address-space limit (RLIMIT_AS, `ulimit -v`) would leave without the room it
/// needs: `RUN_SPACE`, and for each target `TARGET_SPACE` with its largest phase's threads and
/// buffers, all targets together (they run at once). Checked before anything is made, so nothing is
/// written; under less, a thread's stack or an allocation of the standard library would fail where the
/// process can only abort. An upper estimate: a run may need less.
///
/// # Errors
/// What the run needs, the limit, and a limit that leaves it.
pub fn check_address_space(plans: &[&Plan]) -> Result<(), String> {
    let need = plans.iter().fold(RUN_SPACE, |n, p| {
        n.saturating_add(TARGET_SPACE.saturating_add(largest_phase_space(p, true)))
    });
    let Some(short) = address_space_shortfall(need) else {
        return Ok(());
    };
    let what = match plans.len() {
        1 => "a run".to_string(),
        n => format!("a run on {n} targets"),
    };
    // The largest trace, named where there is one: a `trace` of millions of I/Os is most of a need.
    let trace = plans
        .iter()
        .flat_map(|p| p.to_run().filter_map(|ph| ph.io()).map(|io| io.trace))
        .max()
        .filter(|&t| t > 0)
        .map_or(String::new(), |t| {
            format!(
                " and per-I/O trace (trace = {t}: {} B reserved before its phase)",
                trace_space(t)
            )
        });
    let buffers = match trace.is_empty() {
        true => " and I/O buffers",
        false => ", I/O buffers",
    };
    let detail = format!(
        "{RUN_SPACE} B for the run, and for each target {TARGET_SPACE} B with its largest phase's threads{buffers}{trace}"
    );
    Err(format!(
        "{}; nothing was written",
        short.message(&what, need, &detail)
    ))
}
