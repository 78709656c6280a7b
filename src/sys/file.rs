//! File syscalls not in `std`: hole punching, the O_DIRECT alignment a file needs (statx STATX_DIOALIGN),
//! switching O_DIRECT on an open file (fcntl F_SETFL), and whether a file's filesystem is read-only (fstatvfs).

use std::io;
use std::os::fd::AsRawFd;

/// Deallocates `[start, start + len)` of a regular file, keeping its size (fallocate PUNCH_HOLE|KEEP_SIZE).
/// The range then reads as zeros.
pub fn punch_hole(f: &impl AsRawFd, start: u64, len: u64) -> io::Result<()> {
    // SAFETY: fallocate takes only integers; an invalid fd or range is reported as an error return.
    let r = unsafe {
        libc::fallocate(
            f.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            start as libc::off_t,
            len as libc::off_t,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// O_DIRECT alignment of an open file: `(memory alignment, offset alignment)` in bytes, from statx
/// STATX_DIOALIGN (Linux 6.1+). `None` when the kernel or filesystem does not report it or refuses O_DIRECT.
pub fn dio_alignment(f: &impl AsRawFd) -> io::Result<Option<(u32, u32)>> {
    // SAFETY: an all-zero statx struct is a valid value (plain integers).
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let empty = c"";
    // SAFETY: the path is a valid C string; with AT_EMPTY_PATH statx describes the fd and writes into `st`, a live local.
    let r = unsafe {
        libc::statx(
            f.as_raw_fd(),
            empty.as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut st,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    if st.stx_mask & libc::STATX_DIOALIGN == 0 || st.stx_dio_offset_align == 0 {
        return Ok(None);
    }
    Ok(Some((st.stx_dio_mem_align, st.stx_dio_offset_align)))
}

/// Switches O_DIRECT on or off for the open file description of `f` (fcntl F_GETFL, then F_SETFL), the other
/// status flags kept. Every fd sharing the description sees the change.
///
/// # Errors
/// The OS error; EINVAL when the file's filesystem has no O_DIRECT (as `open(O_DIRECT)` would fail).
pub fn set_direct(f: &impl AsRawFd, direct: bool) -> io::Result<()> {
    // SAFETY: F_GETFL takes no argument and only reads the fd's flags; an invalid fd is an error return.
    let flags = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let want = match direct {
        true => flags | libc::O_DIRECT,
        false => flags & !libc::O_DIRECT,
    };
    if want == flags {
        return Ok(());
    }
    // SAFETY: F_SETFL takes an integer of flags; the kernel ignores the access mode and refuses what it cannot do.
    let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETFL, want) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Whether the filesystem holding the open file `f` is mounted read-only (fstatvfs, ST_RDONLY).
///
/// # Errors
/// The OS error from fstatvfs.
pub fn on_read_only_fs(f: &impl AsRawFd) -> io::Result<bool> {
    // SAFETY: an all-zero statvfs struct is a valid value (plain integers).
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: fstatvfs writes one statvfs into `st`, a live local; an invalid fd is an error return.
    let r = unsafe { libc::fstatvfs(f.as_raw_fd(), &mut st) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.f_flag & libc::ST_RDONLY != 0)
}
