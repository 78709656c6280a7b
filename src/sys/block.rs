//! Block-device ioctls: geometry (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET), the read-only flag (BLKROGET) and erase (BLKDISCARD, BLKSECDISCARD,
//! BLKZEROOUT), from `<linux/fs.h>`; zone reset (BLKRESETZONE) from `<linux/blkzoned.h>`.

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
