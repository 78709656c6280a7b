//! What this process's resource limits mean for a plan before it runs: the notes `wkrun plan` prints.

use crate::plan::Plan;
use crate::sys::limits::{Limit, can_lock_any_memory};
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
