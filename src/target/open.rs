//! Opening a target for I/O, and creating a file target. Nothing here runs before the plan is valid.

use super::{TargetInfo, kinds};
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

/// Opens the target (a file or block device) for reading, and for writing with `write`. With `direct`,
/// O_DIRECT (buffers, offsets and lengths must then be aligned to the logical block size). Block devices are
/// opened for writing with O_EXCL, which the kernel refuses while the device is mounted or claimed by another
/// holder (RAID, LVM, device mapper).
///
/// # Errors
/// The OS error; EBUSY on a block device means it is in use. `ErrorKind::InvalidInput` for a simulated drive,
/// which is not on the host ([`TargetInfo::opens_on_host`]).
pub fn open_io(target: &TargetInfo, direct: bool, write: bool) -> io::Result<File> {
    let kind = kinds::of(target.kind).facts();
    if !kind.on_host {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, not a file or device to open",
                target.path.display(),
                kind.noun
            ),
        ));
    }
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if kind.exclusive_when_writing && write {
        flags |= libc::O_EXCL;
    }
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(flags)
        .open(&target.path)
}
