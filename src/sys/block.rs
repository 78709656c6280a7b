//! Block-device ioctls: geometry (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET), the read-only flag (BLKROGET) and erase (BLKDISCARD, BLKSECDISCARD,
//! BLKZEROOUT), from `<linux/fs.h>`; zone report and reset (BLKREPORTZONE, BLKRESETZONE) from `<linux/blkzoned.h>`.

use std::io;
use std::os::fd::AsRawFd;

// _IOR(0x12, 114, size_t) and friends, from <linux/fs.h>.
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKPBSZGET: libc::c_ulong = 0x127b;
const BLKDISCARD: libc::c_ulong = 0x1277;
const BLKSECDISCARD: libc::c_ulong = 0x127d;
const BLKZEROOUT: libc::c_ulong = 0x127f;
const BLKROGET: libc::c_ulong = 0x125e;
/// _IOW(0x12, 131, struct blk_zone_range), from <linux/blkzoned.h>.
const BLKRESETZONE: libc::c_ulong = 0x4010_1283;
/// _IOWR(0x12, 130, struct blk_zone_report), from <linux/blkzoned.h>.
const BLKREPORTZONE: libc::c_ulong = 0xc010_1282;
/// `struct blk_zone`: 64 bytes (start, len, wp in sectors; type, cond, non_seq, reset, 4 reserved bytes;
/// capacity in sectors; 24 reserved bytes).
const BLK_ZONE_BYTES: usize = 64;
/// `BLK_ZONE_COND_FULL`.
const BLK_ZONE_COND_FULL: u8 = 0xe;
/// Zones asked for per BLKREPORTZONE.
const REPORT_BATCH: usize = 256;

/// One zone as BLKREPORTZONE reports it, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneReport {
    /// First byte of the zone.
    pub start: u64,
    /// Bytes it can hold (its capacity: at most its size).
    pub capacity: u64,
    /// Bytes written since its last reset: its write pointer less its start; `capacity` when full.
    pub written: u64,
}

/// Parses one `struct blk_zone` (64 bytes).
pub fn parse_zone(b: &[u8]) -> ZoneReport {
    let u = |at: usize| u64::from_ne_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let (start, len, wp, cond, cap) = (u(0), u(8), u(16), b[25], u(32));
    // A report without capacities (before Linux 5.9, flag BLK_ZONE_REP_CAPACITY unset) leaves it 0.
    let capacity = if cap == 0 { len } else { cap } * 512;
    let written = if cond == BLK_ZONE_COND_FULL {
        capacity
    } else {
        (wp.saturating_sub(start) * 512).min(capacity)
    };
    ZoneReport {
        start: start * 512,
        capacity,
        written,
    }
}

/// The zones of a zoned block device that start in `[start, start + len)` bytes (BLKREPORTZONE), in order.
pub fn report_zones(f: &impl AsRawFd, start: u64, len: u64) -> io::Result<Vec<ZoneReport>> {
    let mut out = Vec::new();
    let end = start + len;
    let mut at = start;
    let mut buf = vec![0u64; (16 + REPORT_BATCH * BLK_ZONE_BYTES) / 8];
    while at < end {
        buf.fill(0);
        buf[0] = at / 512;
        // nr_zones, then flags 0.
        buf[1] = u64::from_ne_bytes({
            let mut h = [0u8; 8];
            h[..4].copy_from_slice(&(REPORT_BATCH as u32).to_ne_bytes());
            h
        });
        // SAFETY: BLKREPORTZONE reads the 16-byte header (sector, nr_zones, flags) and writes at most
        // nr_zones (REPORT_BATCH) 64-byte zones after it; the buffer holds exactly that, 8-byte aligned.
        let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKREPORTZONE as _, buf.as_mut_ptr()) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let bytes: Vec<u8> = buf.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let n = u32::from_ne_bytes(bytes[8..12].try_into().unwrap_or([0; 4])) as usize;
        if n == 0 {
            break;
        }
        for i in 0..n.min(REPORT_BATCH) {
            let z = parse_zone(&bytes[16 + i * BLK_ZONE_BYTES..16 + (i + 1) * BLK_ZONE_BYTES]);
            if z.start >= end {
                return Ok(out);
            }
            out.push(z);
        }
        // The next report starts after the last zone reported (its size, not its capacity).
        let last = &bytes[16 + (n.min(REPORT_BATCH) - 1) * BLK_ZONE_BYTES..];
        let (s, l) = (
            u64::from_ne_bytes(last[0..8].try_into().unwrap_or([0; 8])),
            u64::from_ne_bytes(last[8..16].try_into().unwrap_or([0; 8])),
        );
        at = (s + l.max(1)) * 512;
    }
    Ok(out)
}

/// Capacity of a block device in bytes (BLKGETSIZE64).
pub fn size_bytes(f: &impl AsRawFd) -> io::Result<u64> {
    let mut v: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which points to a live local.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as _, &mut v as *mut u64) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(v)
    }
}

/// Logical block size in bytes (BLKSSZGET): the smallest unit the device addresses.
pub fn logical_block_size(f: &impl AsRawFd) -> io::Result<u32> {
    let mut v: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which points to a live local.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKSSZGET as _, &mut v as *mut libc::c_int) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(v as u32)
    }
}

/// Physical block size in bytes (BLKPBSZGET).
pub fn physical_block_size(f: &impl AsRawFd) -> io::Result<u32> {
    let mut v: libc::c_uint = 0;
    // SAFETY: BLKPBSZGET writes one unsigned int through the pointer, which points to a live local.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKPBSZGET as _, &mut v as *mut libc::c_uint) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(v)
    }
}

/// Whether the block device is read-only (BLKROGET): set by `blockdev --setro`, `losetup --read-only` or the
/// hardware; writes then fail with EPERM although the device opens for writing.
pub fn read_only(f: &impl AsRawFd) -> io::Result<bool> {
    let mut v: libc::c_int = 0;
    // SAFETY: BLKROGET writes one int through the pointer, which points to a live local.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKROGET as _, &mut v as *mut libc::c_int) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(v != 0)
    }
}

/// Which range ioctl an erase uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeOp {
    /// BLKDISCARD (TRIM).
    Discard,
    /// BLKSECDISCARD (secure discard).
    SecureDiscard,
    /// BLKZEROOUT (write zeroes).
    ZeroOut,
}

/// Applies a range ioctl to `[start, start + len)` bytes. Both must be multiples of the logical block size.
pub fn range_op(f: &impl AsRawFd, op: RangeOp, start: u64, len: u64) -> io::Result<()> {
    let req = match op {
        RangeOp::Discard => BLKDISCARD,
        RangeOp::SecureDiscard => BLKSECDISCARD,
        RangeOp::ZeroOut => BLKZEROOUT,
    };
    let range: [u64; 2] = [start, len];
    // SAFETY: the range ioctls read two u64 (start, length) through the pointer, which points to a live local.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), req as _, range.as_ptr()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Resets the write pointer of every zone in `[start, start + len)` bytes of a zoned block device
/// (BLKRESETZONE); both must be whole zones (the last zone may be smaller). Needs the device open for writing.
pub fn reset_zones(f: &impl AsRawFd, start: u64, len: u64) -> io::Result<()> {
    // struct blk_zone_range { __u64 sector; __u64 nr_sectors; }, in 512-byte sectors.
    let range: [u64; 2] = [start / 512, len / 512];
    // SAFETY: BLKRESETZONE reads one struct blk_zone_range (two u64) through the pointer, which points to a
    // live local.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKRESETZONE as _, range.as_ptr()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `struct blk_zone` with `start`, `len`, `wp`, `capacity` in sectors and condition `cond`.
    fn zone(start: u64, len: u64, wp: u64, cond: u8, capacity: u64) -> [u8; BLK_ZONE_BYTES] {
        let mut b = [0u8; BLK_ZONE_BYTES];
        b[0..8].copy_from_slice(&start.to_ne_bytes());
        b[8..16].copy_from_slice(&len.to_ne_bytes());
        b[16..24].copy_from_slice(&wp.to_ne_bytes());
        b[24] = 2; // BLK_ZONE_TYPE_SEQWRITE_REQ
        b[25] = cond;
        b[32..40].copy_from_slice(&capacity.to_ne_bytes());
        b
    }

    #[test]
    fn zones_parse_in_bytes() {
        // Implicitly open, 8 sectors written, of a 32768-sector zone at sector 65536.
        let z = parse_zone(&zone(65536, 32768, 65544, 2, 32768));
        assert_eq!((z.start, z.capacity, z.written), (33554432, 16777216, 4096));
        // Full: its capacity, whatever the write pointer says; a capacity below the size.
        let z = parse_zone(&zone(0, 32768, u64::MAX, BLK_ZONE_COND_FULL, 16384));
        assert_eq!((z.start, z.capacity, z.written), (0, 8388608, 8388608));
        // No capacity reported: the zone's size.
        let z = parse_zone(&zone(0, 32768, 0, 1, 0));
        assert_eq!((z.capacity, z.written), (16777216, 0));
    }
}
