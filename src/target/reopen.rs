//! Opening a probed target again by its path, as the very file it was probed as: never through a path
//! that changed since it was checked, never blocking on a FIFO swapped in for it.

use super::Identity;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// What [`open_probed`] found instead of the file it was to open again.
#[derive(Debug)]
pub enum Reopen {
    /// The path names something else now (`None`: not a regular file or block device).
    Changed(Option<Identity>),
    /// The OS error of opening or stat-ing it.
    Failed(io::Error),
}

/// Opens `path` again as the file `expected` it was probed as, with `flags` (`O_DIRECT`, `O_EXCL`;
/// `O_NOCTTY` always), for reading and, with `write`, writing: first with `O_PATH`, which opens nothing on
/// a device and never blocks (a FIFO swapped in for the target blocked a plain open forever: attack 13
/// F1), compared with `expected`; then that very file through `/proc/self/fd` (without `/proc`, the path
/// again), compared once more. Every open of a probed target by its path goes through here:
/// the hold of the run (`open::Held::open`) and the probe's and safety checks' own opens.
///
/// # Errors
/// [`Reopen::Changed`] when the path no longer names `expected`; [`Reopen::Failed`] otherwise.
pub fn open_probed(
    path: &Path,
    expected: Identity,
    write: bool,
    flags: i32,
) -> Result<File, Reopen> {
    let pinned = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)
        .map_err(Reopen::Failed)
        .and_then(|f| check(f, expected))?;
    // Without /proc, the path again, blocking as before: O_NONBLOCK would stay on the file the run
    // holds, and io_uring answers EAGAIN on such a file rather than wait.
    open_again(&pinned, expected, (write, flags), Some(path))
}

/// Opens the file `open` (a checked open file of the target `expected`) once more, as a new open file
/// description of its own, through `/proc/self/fd`: never by a path, which may name something else by now.
/// For reading and, with `write`, writing, with `flags` (`O_DIRECT`, `O_EXCL`; `O_NOCTTY` always), and
/// compared with `expected` again. Without `/proc`, `path` is opened instead when given (and compared),
/// else the error is the open's (`NotFound`).
///
/// # Errors
/// [`Reopen::Changed`] when what was opened is not `expected`; [`Reopen::Failed`] otherwise.
pub fn open_again(
    open: &File,
    expected: Identity,
    (write, flags): (bool, i32),
    path: Option<&Path>,
) -> Result<File, Reopen> {
    let mut opts = OpenOptions::new();
    opts.read(true)
        .write(write)
        .custom_flags(flags | libc::O_NOCTTY);
    let file = match (
        opts.open(format!("/proc/self/fd/{}", open.as_raw_fd())),
        path,
    ) {
        (Err(e), Some(path)) if e.kind() == io::ErrorKind::NotFound => opts.open(path),
        (r, _) => r,
    }
    .map_err(Reopen::Failed)?;
    check(file, expected)
}

/// `f` when it is the file `expected`, by its identity (device and inode, or device number).
fn check(f: File, expected: Identity) -> Result<File, Reopen> {
    match f.metadata() {
        Ok(m) if Identity::of(&m) == Some(expected) => Ok(f),
        Ok(m) => Err(Reopen::Changed(Identity::of(&m))),
        Err(e) => Err(Reopen::Failed(e)),
    }
}
