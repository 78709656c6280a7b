//! Opening a target for I/O, and creating a file target. Nothing here runs before the plan is valid.

use super::{TargetInfo, TargetKind};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Creates a sparse file of `size` bytes at `path`; fails if the path already exists (never truncates).
///
/// # Errors
/// The OS error from creating or sizing the file.
pub fn create_sparse(path: &Path, size: u64) -> io::Result<()> {
    let f = OpenOptions::new().write(true).create_new(true).open(path)?;
    f.set_len(size)
}

/// Opens the target for reading and writing. With `direct`, O_DIRECT (buffers, offsets and lengths must then be
/// aligned to the logical block size). Block devices are opened with O_EXCL, which the kernel refuses while the
/// device is mounted or claimed by another holder (RAID, LVM, device mapper).
///
/// # Errors
/// The OS error; EBUSY on a block device means it is in use.
pub fn open_io(target: &TargetInfo, direct: bool, write: bool) -> io::Result<File> {
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if target.kind == TargetKind::Block && write {
        flags |= libc::O_EXCL;
    }
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(flags)
        .open(&target.path)
}
