//! The erase runner: the span erased through the target's interface ([`crate::target::erase`]): holes
//! punched in a file, discard or zero-out on a block device, a discard on the simulated drive.

use super::{Ctx, Observer, PhaseEnd};
use crate::plan::{EraseWork, PhasePlan};
use crate::results::{DeviceResult, PhaseResult};
use crate::target::erase::{Access, Erased, erase};
use std::io;
use std::sync::atomic::Ordering;

/// Runs an erase phase: the span erased with the work's method (for `auto`, the first the target supports);
/// the result says which method was used and how long it took (on a simulated drive, in drive time).
pub fn run(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    work: &EraseWork,
    mut pr: PhaseResult,
) -> PhaseEnd {
    let (start, len) = (phase.span.start, phase.span.len);
    let (plan, stop) = (ctx.plan, ctx.stop);
    let target = &plan.target;
    let access = match (ctx.sim, ctx.target) {
        (Some(device), _) => Access::Sim(device),
        (None, Some(held)) => Access::Host(held.file()),
        (None, None) => return PhaseEnd::NotRun("internal error: no target to erase".into()),
    };
    let before = ctx.sim.map(|d| lock(d).counters());
    let t0 = std::time::Instant::now();
    let erased = said_while(ctx, || erase(target, access, work.method, start, len, stop));
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

/// What a stop during an erase says at once (trial 23 X4: a SIGINT 13 s into a 39 s discard of a loop device
/// was met with silence until it ended). The kernel finishes a discard, secure discard or zero-out it has
/// begun, and a second signal does not end wkrun sooner (measured: a second SIGINT 3 s into a 16.5 s
/// discard of a loop device; wkrun ended once the discard was done, 13.8 s later, the erase recorded; a
/// SIGINT that killed `blkdiscard` 3 s into a discard ended it 69 s later).
pub const STOPPING_AFTER_ERASE: &str = "stopping after the erase in progress: the device finishes the range it was given first (a second Ctrl-C ends wkrun no sooner)";

/// Runs `erase` on a thread of its own while this one watches the stop flag, and says
/// [`STOPPING_AFTER_ERASE`] on the console as soon as a stop comes before the erase has ended (its ioctl
/// cannot be cut short); inline, with nothing said, when no thread can be made (a resource limit).
fn said_while(
    ctx: &mut Ctx<'_>,
    erase: impl FnOnce() -> io::Result<Erased> + Send,
) -> io::Result<Erased> {
    let stop = ctx.stop;
    let job = std::sync::Mutex::new(Some(erase));
    let take = || job.lock().unwrap_or_else(|p| p.into_inner()).take();
    let ran = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("wkrun-erase".into())
            .spawn_scoped(s, || take().map(|f| f()));
        let Ok(worker) = worker else {
            return None;
        };
        let mut said = false;
        while !worker.is_finished() {
            if !said && stop.load(Ordering::SeqCst) {
                ctx.log(&format!("note: {STOPPING_AFTER_ERASE}"));
                said = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        match worker.join() {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    match ran {
        Some(out) => out,
        // No thread could be made: the erase is still to run, here.
        None => take().map_or_else(|| Err(io::Error::other("the erase did not run")), |f| f()),
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
