//! What this process's resource limits mean for a plan before it runs: the notes `wkrun plan` prints.

use crate::plan::Plan;
use crate::sys::limits::{Limit, can_lock_any_memory, open_files};
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

/// Files a run holds open at once, at most: [`BASE_FILES`] for the run and its output folder, and
/// [`FILES_PER_TARGET`] more for each target beyond the first (its file or device, its folder and lock,
/// a CSV, results.json being replaced, the room kept, an io_uring ring). An upper bound: measured, 16 file
/// targets on psync ran with 70 open files at most, where this gives 98.
pub const BASE_FILES: u64 = 8;
/// See [`BASE_FILES`].
pub const FILES_PER_TARGET: u64 = 6;

/// Refuses a run of `targets` targets that the open-file limit (RLIMIT_NOFILE) would stop part way, with
/// some targets' results unwritten: checked before anything is made, so nothing is written.
///
/// # Errors
/// What the run needs, what the limit allows, and how to raise it.
pub fn check_open_files(targets: usize) -> Result<(), String> {
    let Some(limit) = Limit::OpenFiles.soft() else {
        return Ok(());
    };
    let open = open_files().unwrap_or(3);
    let needs = BASE_FILES + FILES_PER_TARGET * (targets as u64).saturating_sub(1);
    if open + needs <= limit {
        return Ok(());
    }
    let what = match targets {
        1 => "a run".to_string(),
        n => format!("a run on {n} targets"),
    };
    Err(format!(
        "{what} needs up to {needs} open files at once beside the {open} open now, and {} is {limit}: raise it (ulimit -n {}) or run on fewer targets at once; nothing was written",
        Limit::OpenFiles.name(),
        (open + needs).next_power_of_two().max(1024)
    ))
}
