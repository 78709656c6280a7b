//! A block device: written only with consent (`--allow-destroy`), opened exclusively; erased with
//! BLKSECDISCARD, BLKDISCARD or BLKZEROOUT in ranges the device accepts (case C09), an NVMe format, or a reset
//! of a zoned device's zones.

use super::{Facts, Job, Kind, host_file, nvme_format, nvme_format_problem};
use crate::sys::block::{RangeOp, range_op};
use crate::target::TargetInfo;
use crate::target::erase::Erased;
use crate::vocab::EraseMethod;
use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::sync::atomic::Ordering;

/// Largest range given to one ioctl when the device states no discard limit: 1 GiB.
const DEFAULT_CHUNK: u64 = 1 << 30;

/// A block device (`/dev/...`).
pub(super) struct Block;

/// Block devices: on the host, written only with consent, opened exclusively for writing.
const FACTS: Facts = Facts {
    noun: "a block device",
    thing: "drive",
    on_host: true,
    writes_need_allow_destroy: true,
    exclusive_when_writing: true,
    auto_erase: "auto: first of secure-discard, discard, zero-out (zone-reset on a zoned device)",
};

impl Kind for Block {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }

    /// The device number recorded when the target was probed; for a target never probed, the one its path
    /// names now.
    fn device_number(&self, t: &TargetInfo) -> Option<u64> {
        match t.identity {
            Some(crate::target::Identity::Block { rdev }) => Some(rdev),
            Some(crate::target::Identity::File { .. }) => None,
            None => fs::metadata(&t.path)
                .ok()
                .filter(|m| m.file_type().is_block_device())
                .map(|m| m.rdev()),
        }
    }

    /// A block device is trimmed by BLKDISCARD: refused where the device takes no discard.
    fn trim_problem(&self, t: &TargetInfo) -> Option<String> {
        (t.discard_max_bytes == Some(0)).then(|| {
            format!(
                "are discards (BLKDISCARD), and {} cannot discard (queue/discard_max_bytes is 0)",
                t.path.display()
            )
        })
    }

    fn erase_problem(
        &self,
        t: &TargetInfo,
        method: EraseMethod,
        span: (u64, u64),
    ) -> Option<String> {
        match method {
            EraseMethod::NvmeFormat => nvme_format_problem(t, span),
            EraseMethod::ZoneReset => zone_reset_problem(t, span),
            EraseMethod::Auto if t.zoned.is_some() => zone_reset_problem(t, span)
                .map(|why| format!("(zone-reset on this zoned device) {why}")),
            EraseMethod::PunchHole => {
                Some("is for files; this target is a block device".to_string())
            }
            EraseMethod::Discard | EraseMethod::SecureDiscard if t.discard_max_bytes == Some(0) => {
                Some(format!(
                    "needs discard support, and {} cannot discard (queue/discard_max_bytes is 0)",
                    t.path.display()
                ))
            }
            EraseMethod::Auto
            | EraseMethod::Discard
            | EraseMethod::SecureDiscard
            | EraseMethod::ZeroOut => None,
        }
    }

    /// `auto` is the first of secure-discard, discard and zero-out that the device supports (the discards are
    /// skipped when `discard_max_bytes` is 0). The span is erased in ranges of at most `discard_max_bytes`
    /// (1 GiB for zero-out); `stop` is checked between ranges.
    fn erase(&self, job: Job<'_>) -> io::Result<Erased> {
        let file = host_file(&job)?;
        let op = match job.method {
            EraseMethod::NvmeFormat => return nvme_format(file),
            EraseMethod::ZoneReset => return zone_reset(&job, file),
            EraseMethod::Auto if job.t.zoned.is_some() => return zone_reset(&job, file),
            EraseMethod::PunchHole => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "punch-hole is for files",
                ));
            }
            EraseMethod::Auto => return auto(&job, file),
            EraseMethod::SecureDiscard => RangeOp::SecureDiscard,
            EraseMethod::Discard => RangeOp::Discard,
            EraseMethod::ZeroOut => RangeOp::ZeroOut,
        };
        ranges(&job, file, op).map(|()| Erased::host(job.method))
    }
}

/// Why `zone-reset` cannot erase `span` of `t`: not zoned, or not whole zones.
fn zone_reset_problem(t: &TargetInfo, (start, len): (u64, u64)) -> Option<String> {
    let Some(z) = &t.zoned else {
        return Some(format!(
            "is for zoned block devices, and {} is not zoned (sysfs queue/zoned is none)",
            t.path.display()
        ));
    };
    let zs = z.zone_size_bytes;
    let end = start + len;
    if start.is_multiple_of(zs) && (end.is_multiple_of(zs) || end == t.capacity_bytes) {
        return None;
    }
    Some(format!(
        "resets whole zones, but the span [{start}, {end}) does not begin and end at zone boundaries of {} (zones of {zs} B); use an offset and span that are multiples of {zs} B",
        t.path.display()
    ))
}

/// `zone-reset`: the write pointers of the span's zones reset, at most 1 GiB of zones (at least one zone)
/// per ioctl; `stop` is checked before each.
fn zone_reset(job: &Job<'_>, file: &fs::File) -> io::Result<Erased> {
    let zs = job
        .t
        .zoned
        .as_ref()
        .map_or(DEFAULT_CHUNK, |z| z.zone_size_bytes);
    let chunk = (DEFAULT_CHUNK / zs).max(1) * zs;
    let (start, end) = (job.start, job.start + job.len);
    let mut off = start;
    while off < end {
        if job.stop.load(Ordering::Relaxed) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "interrupted between zone resets",
            ));
        }
        let n = chunk.min(end - off);
        crate::sys::block::reset_zones(file, off, n)?;
        off += n;
    }
    Ok(Erased::host(EraseMethod::ZoneReset))
}

/// `auto`: the first method the device supports; for an error other than "not supported", that error.
fn auto(job: &Job<'_>, file: &fs::File) -> io::Result<Erased> {
    let mut last = None;
    for (m, op) in [
        (EraseMethod::SecureDiscard, RangeOp::SecureDiscard),
        (EraseMethod::Discard, RangeOp::Discard),
        (EraseMethod::ZeroOut, RangeOp::ZeroOut),
    ] {
        if op != RangeOp::ZeroOut && job.t.discard_max_bytes == Some(0) {
            continue;
        }
        match ranges(job, file, op) {
            Ok(()) => return Ok(Erased::host(m)),
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

fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOTTY)
    )
}

/// The largest range given to one ioctl of `op`: `discard_max_bytes` rounded down to whole logical blocks
/// (at least one, at most 1 GiB) for discards; 1 GiB for zero-out or when the device states no limit.
fn chunk_limit(op: RangeOp, lbs: u32, discard_max_bytes: Option<u64>) -> u64 {
    let lbs = lbs.max(1) as u64;
    match (op, discard_max_bytes) {
        (RangeOp::ZeroOut, _) | (_, None | Some(0)) => DEFAULT_CHUNK,
        (_, Some(max)) => (max / lbs * lbs).clamp(lbs, DEFAULT_CHUNK),
    }
}

/// `op` over the job's span in ranges the device accepts; its `stop` is checked before each.
fn ranges(job: &Job<'_>, file: &fs::File, op: RangeOp) -> io::Result<()> {
    let Job {
        t,
        start,
        len,
        stop,
        ..
    } = *job;
    let limit = chunk_limit(op, t.logical_block_size, t.discard_max_bytes);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discards_go_in_whole_blocks_of_at_most_discard_max_bytes() {
        let gib = DEFAULT_CHUNK;
        assert_eq!(chunk_limit(RangeOp::Discard, 512, Some(1 << 20)), 1 << 20);
        assert_eq!(
            chunk_limit(RangeOp::SecureDiscard, 4096, Some(10_000)),
            8192
        );
        // Below one block: one block; above 1 GiB: 1 GiB; no limit stated (or none at all): 1 GiB.
        assert_eq!(chunk_limit(RangeOp::Discard, 4096, Some(100)), 4096);
        assert_eq!(chunk_limit(RangeOp::Discard, 512, Some(4 * gib)), gib);
        assert_eq!(chunk_limit(RangeOp::Discard, 512, None), gib);
        assert_eq!(chunk_limit(RangeOp::Discard, 512, Some(0)), gib);
        // Zero-out ignores the discard limit.
        assert_eq!(chunk_limit(RangeOp::ZeroOut, 512, Some(1 << 20)), gib);
    }
}
