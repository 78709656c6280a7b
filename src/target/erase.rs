//! Erase phases: punch holes in files; BLKSECDISCARD, BLKDISCARD or BLKZEROOUT on block devices, split into
//! ranges the device accepts (case C09).

use crate::vocab::EraseMethod;
use crate::sys::block::{RangeOp, range_op};
use crate::sys::file::punch_hole;
use crate::target::{TargetInfo, TargetKind};
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
