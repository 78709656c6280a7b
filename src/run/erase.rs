//! The erase runner: punch holes in files; BLKSECDISCARD, BLKDISCARD or BLKZEROOUT on block devices, split
//! into ranges the device accepts (case C09); a discard on the simulated drive.

use super::{Ctx, Observer, PhaseEnd};
use crate::plan::{EraseWork, PhasePlan};
use crate::results::PhaseResult;
use crate::sys::block::{RangeOp, range_op};
use crate::sys::file::punch_hole;
use crate::target::{TargetInfo, TargetKind};
use crate::vocab::EraseMethod;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest range given to one ioctl when the device states no discard limit: 1 GiB.
const DEFAULT_CHUNK: u64 = 1 << 30;

/// Erases `[start, start + len)` of `target` with `method`; returns the method used (for `auto`, the first the
/// target supports).
///
/// Block devices are erased in ranges of at most `discard_max_bytes` (1 GiB for zero-out); `stop` is checked
/// between ranges.
///
/// # Errors
/// The OS error of the method used; for an explicit method, its failure (no silent fallback);
/// `ErrorKind::Interrupted` when `stop` was set between ranges.
pub fn erase(
    target: &TargetInfo,
    file: &File,
    method: EraseMethod,
    start: u64,
    len: u64,
    stop: &AtomicBool,
) -> io::Result<EraseMethod> {
    match (target.kind, method) {
        (_, EraseMethod::NvmeFormat) => {
            crate::sys::nvme::format_user_data_erase(file)?;
            Ok(EraseMethod::NvmeFormat)
        }
        (TargetKind::File, EraseMethod::Auto | EraseMethod::PunchHole) => {
            punch_hole(file, start, len)?;
            Ok(EraseMethod::PunchHole)
        }
        (TargetKind::File, m) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("{} is for block devices", m.as_str()),
        )),
        (TargetKind::Block, EraseMethod::PunchHole) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "punch-hole is for files",
        )),
        (TargetKind::Block, EraseMethod::Auto) => {
            let mut last = None;
            for m in [
                EraseMethod::SecureDiscard,
                EraseMethod::Discard,
                EraseMethod::ZeroOut,
            ] {
                if matches!(m, EraseMethod::SecureDiscard | EraseMethod::Discard)
                    && target.discard_max_bytes == Some(0)
                {
                    continue;
                }
                match block_erase(target, file, m, start, len, stop) {
                    Ok(()) => return Ok(m),
                    Err(e) if unsupported(&e) => last = Some(e),
                    Err(e) => return Err(e),
                }
            }
            Err(last.unwrap_or_else(|| {
                io::Error::new(
                    io::ErrorKind::Unsupported,
                    "no erase method works on this device",
                )
            }))
        }
        (TargetKind::Block, m) => block_erase(target, file, m, start, len, stop).map(|()| m),
        (TargetKind::Sim, _) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a simulated drive is erased by erase_sim",
        )),
    }
}

fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOTTY)
    )
}

fn block_erase(
    target: &TargetInfo,
    file: &File,
    m: EraseMethod,
    start: u64,
    len: u64,
    stop: &AtomicBool,
) -> io::Result<()> {
    let op = match m {
        EraseMethod::SecureDiscard => RangeOp::SecureDiscard,
        EraseMethod::Discard => RangeOp::Discard,
        _ => RangeOp::ZeroOut,
    };
    let lbs = target.logical_block_size.max(1) as u64;
    let limit = match (op, target.discard_max_bytes) {
        (RangeOp::ZeroOut, _) | (_, None | Some(0)) => DEFAULT_CHUNK,
        (_, Some(max)) => (max / lbs * lbs).clamp(lbs, DEFAULT_CHUNK),
    };
    let mut off = start;
    while off < start + len {
        if stop.load(Ordering::Relaxed) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "interrupted between erase ranges",
            ));
        }
        let n = limit.min(start + len - off);
        range_op(file, op, off, n)?;
        off += n;
    }
    Ok(())
}

/// Erases `[start, start + len)` of a simulated drive: a discard of every whole 4 KiB unit in it (TRIM; for
/// a secure erase too, since the model keeps no data), after which blocks left empty are erased. Returns the
/// method reported (auto is discard) and the virtual time it took, ns.
pub fn erase_sim(
    device: &std::sync::Mutex<crate::sim::SimDevice>,
    method: EraseMethod,
    start: u64,
    len: u64,
) -> (EraseMethod, u64) {
    let mut d = device.lock().unwrap_or_else(|p| p.into_inner());
    let t0 = d.clock();
    let done = d.discard(t0, start, len);
    d.advance_clock(done);
    let used = match method {
        EraseMethod::SecureDiscard => EraseMethod::SecureDiscard,
        _ => EraseMethod::Discard,
    };
    (used, done - t0)
}

/// Runs an erase phase: the span erased with the work's method (for `auto`, the first the target supports);
/// the result says which method was used and how long it took (on a simulated drive, in drive time).
pub fn run(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    work: &EraseWork,
    mut pr: PhaseResult,
) -> PhaseEnd {
    let (start, len) = (phase.span.start, phase.span.len);
    if let Some(device) = ctx.sim {
        let before = device.lock().unwrap_or_else(|p| p.into_inner()).counters();
        let (used, ns) = erase_sim(device, work.method, start, len);
        let after = device.lock().unwrap_or_else(|p| p.into_inner()).counters();
        pr.erase_method = Some(used);
        pr.erased_bytes = Some(len);
        pr.duration_s = ns as f64 / 1e9;
        pr.device = Some(crate::results::DeviceResult::new(
            &after.since(&before),
            None,
        ));
        ctx.log(&format!(
            "      erased {len} B with {} in {:.3} s of drive time",
            used.as_str(),
            pr.duration_s
        ));
        return PhaseEnd::Done(pr);
    }
    let target = &ctx.plan.target;
    let file = match crate::target::open::open_io(target, false, true) {
        Ok(f) => f,
        Err(e) => {
            return PhaseEnd::NotRun(format!(
                "phase \"{}\": cannot open {}: {e}",
                phase.name,
                target.path.display()
            ));
        }
    };
    let t0 = std::time::Instant::now();
    let erased = erase(target, &file, work.method, start, len, ctx.stop);
    ctx.obs.phase_end();
    pr.duration_s = t0.elapsed().as_secs_f64();
    match erased {
        Ok(used) => {
            pr.erase_method = Some(used);
            pr.erased_bytes = Some(len);
            ctx.log(&format!(
                "      erased {len} B with {} in {:.3} s",
                used.as_str(),
                pr.duration_s
            ));
            PhaseEnd::Done(pr)
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
            pr.completed = false;
            PhaseEnd::Interrupted(pr)
        }
        Err(e) => PhaseEnd::NotRun(format!(
            "phase \"{}\": erase of [{start}, {}) failed: {e}",
            phase.name,
            start + len
        )),
    }
}
