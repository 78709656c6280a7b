//! The erase runner: the span erased through the target's interface ([`crate::target::erase`]): holes
//! punched in a file, discard or zero-out on a block device, a discard on the simulated drive.

use super::{Ctx, Observer, PhaseEnd};
use crate::plan::{EraseWork, PhasePlan};
use crate::results::{DeviceResult, PhaseResult};
use crate::target::erase::{Access, erase};
use std::io;

/// Runs an erase phase: the span erased with the work's method (for `auto`, the first the target supports);
/// the result says which method was used and how long it took (on a simulated drive, in drive time).
pub fn run(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    work: &EraseWork,
    mut pr: PhaseResult,
) -> PhaseEnd {
    let (start, len) = (phase.span.start, phase.span.len);
    let target = &ctx.plan.target;
    let access = match (ctx.sim, ctx.target) {
        (Some(device), _) => Access::Sim(device),
        (None, Some(held)) => Access::Host(held.file()),
        (None, None) => return PhaseEnd::NotRun("internal error: no target to erase".into()),
    };
    let before = ctx.sim.map(|d| lock(d).counters());
    let t0 = std::time::Instant::now();
    let erased = erase(target, access, work.method, start, len, ctx.stop);
    ctx.obs.phase_end();
    pr.duration_s = t0.elapsed().as_secs_f64();
    match erased {
        Ok(e) => {
            pr.erase_method = Some(e.method_used);
            pr.erased_bytes = Some(len);
            let mut clock = "";
            if let (Some(ns), Some(device), Some(before)) = (e.drive_time_ns, ctx.sim, before) {
                pr.duration_s = ns as f64 / 1e9;
                pr.device = Some(DeviceResult::new(
                    &lock(device).counters().since(&before),
                    None,
                ));
                clock = " of drive time";
            }
            ctx.result(&format!(
                "      erased {len} B with {} in {:.3} s{clock}",
                e.method_used.as_str(),
                pr.duration_s
            ));
            PhaseEnd::Done(pr)
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
            pr.completed = false;
            ctx.result(&format!(
                "      {} after {:.3} s: the erase did not finish",
                super::io_phase::interrupted_word(),
                pr.duration_s
            ));
            PhaseEnd::Interrupted(pr)
        }
        Err(e) => PhaseEnd::NotRun(format!(
            "phase \"{}\": erase of [{start}, {}) failed: {e}",
            phase.name,
            start + len
        )),
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
