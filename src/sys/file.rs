//! File syscalls not in `std`: preallocation, advisory locks (and who holds one), hole punching, finding holes (lseek SEEK_HOLE/SEEK_DATA), the O_DIRECT alignment a file needs (statx STATX_DIOALIGN),
//! switching O_DIRECT on an open file (fcntl F_SETFL), whether a file's filesystem is read-only (fstatvfs), and
//! whether a path lies on one of the kernel's pseudo file systems or on one in memory (statfs).

use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// The kernel's pseudo file systems (statfs `f_type`, from `linux/magic.h`) and their names: their files are
/// the kernel's settings and state (sysfs attributes, /proc entries, cgroup controls), not storage.
const PSEUDO_FS: [(u32, &str); 17] = [
    (0x9fa0, "procfs"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x6265_6570, "configfs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x1cd1, "devpts"),
    (0x7363_6673, "securityfs"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x4341_5d53, "smackfs"),
    (0x6165_676c, "pstore"),
    (0xde5e_81e4, "efivarfs"),
    (0xcafe_4a11, "bpf"),
    (0x6573_5543, "fusectl"),
    (0x4249_4e4d, "binfmt_misc"),
    (0x6e73_6673, "nsfs"),
];

/// The name of the pseudo file system `path` lies on (`"sysfs"`, `"procfs"`, `"cgroup2"`, ...; see
/// `PSEUDO_FS`), or `None` for any other file system. The path is followed as `stat` follows it.
///
/// # Errors
/// The OS error of statfs (`ENOENT` when the path does not exist).
pub fn pseudo_fs(path: &Path) -> io::Result<Option<&'static str>> {
    fs_named(&PSEUDO_FS, path)
}

/// The file systems whose files live in the host's memory (statfs `f_type`, from `linux/magic.h`): tmpfs
/// (also /dev/shm) and ramfs.
const MEMORY_FS: [(u32, &str); 2] = [(0x0102_1994, "tmpfs"), (0x8584_58f6, "ramfs")];

/// The name of the in-memory file system `path` lies on (`"tmpfs"` or `"ramfs"`), or `None` for any other.
/// The path is followed as `stat` follows it.
///
/// # Errors
/// The OS error of statfs (`ENOENT` when the path does not exist).
pub fn memory_fs(path: &Path) -> io::Result<Option<&'static str>> {
    fs_named(&MEMORY_FS, path)
}

/// The name in `table` (statfs `f_type`, name) of the file system `path` lies on, or `None`.
fn fs_named(table: &[(u32, &'static str)], path: &Path) -> io::Result<Option<&'static str>> {
    let magic = fs_magic(path)?;
    Ok(table.iter().find(|(m, _)| *m == magic).map(|(_, n)| *n))
}

/// The statfs `f_type` of the file system `path` lies on.
fn fs_magic(path: &Path) -> io::Result<u32> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: an all-zero statfs struct is a valid value (plain integers).
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid C string and statfs writes one struct into `st`, a live local.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // f_type is a signed word; the magics are 32-bit values.
    Ok(st.f_type as u32)
}

/// Whether the file system `path` lies on is mounted read-only (statvfs's `ST_RDONLY`). The path is
/// followed as `stat` follows it.
///
/// # Errors
/// The OS error of statvfs (`ENOENT` when the path does not exist).
pub fn read_only_fs(path: &Path) -> io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: an all-zero statvfs struct is a valid value (plain integers).
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid C string and statvfs writes one struct into `st`, a live local.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.f_flag & libc::ST_RDONLY != 0)
}

/// Allocates the blocks of `[0, len)` of a regular file (fallocate mode 0: the file system reserves them, reads
/// still return zeros, and the size grows to `len` if it was smaller).
///
/// # Errors
/// The OS error: `EOPNOTSUPP` when the file system cannot preallocate, `ENOSPC` or `EDQUOT` when it has no room.
pub fn preallocate(f: &impl AsRawFd, len: u64) -> io::Result<()> {
    // SAFETY: fallocate takes only integers; an invalid fd or range is reported as an error return.
    let r = unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, len as libc::off_t) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Drops the page cache of `[start, start + len)` of a file (posix_fadvise POSIX_FADV_DONTNEED), once its
/// written pages are flushed: later buffered reads of the range go to the device.
///
/// # Errors
/// The error posix_fadvise returns.
pub fn drop_cached(f: &impl AsRawFd, start: u64, len: u64) -> io::Result<()> {
    // SAFETY: posix_fadvise takes only integers; a bad fd or range is reported as an error return.
    let r = unsafe {
        libc::posix_fadvise(
            f.as_raw_fd(),
            start as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        )
    };
    match r {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// `RWF_DSYNC`, a per-I/O flag of pwritev2, io_uring and AIO: the write is durable when it completes (as
/// under O_DSYNC; on a block device with a volatile write cache the kernel makes it a FUA write, or a write
/// followed by a cache flush where the device has no FUA).
pub const RWF_DSYNC: u32 = libc::RWF_DSYNC as u32;
/// `RWF_SYNC`: as [`RWF_DSYNC`], and the file's metadata too (as under O_SYNC).
pub const RWF_SYNC: u32 = libc::RWF_SYNC as u32;

/// Writes `buf` at `offset` with the per-I/O `flags` (`RWF_*`), one pwritev2; returns the bytes written.
pub fn pwrite_flags(f: &impl AsRawFd, buf: &[u8], offset: u64, flags: u32) -> io::Result<usize> {
    let iov = libc::iovec {
        iov_base: buf.as_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: `iov` points at `buf`, alive and unaliased for the call; the kernel only reads it (a write).
    let r = unsafe {
        libc::pwritev2(
            f.as_raw_fd(),
            &iov,
            1,
            offset as libc::off_t,
            flags as libc::c_int,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// How a trim reaches an open target, decided once from what the file is: a block device is discarded
/// (BLKDISCARD), a regular file gets a hole punched (fallocate PUNCH_HOLE|KEEP_SIZE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trim {
    /// BLKDISCARD of the range.
    Discard,
    /// A hole punched in the range.
    PunchHole,
}

impl Trim {
    /// How `f` is trimmed: by what its file type is (fstat).
    ///
    /// # Errors
    /// The OS error of fstat.
    pub fn of(f: &std::fs::File) -> io::Result<Trim> {
        use std::os::unix::fs::FileTypeExt;
        Ok(match f.metadata()?.file_type().is_block_device() {
            true => Trim::Discard,
            false => Trim::PunchHole,
        })
    }

    /// Trims `[start, start + len)` of `f`.
    ///
    /// # Errors
    /// The OS error of the ioctl or of fallocate.
    pub fn run(self, f: &impl AsRawFd, start: u64, len: u64) -> io::Result<()> {
        match self {
            Trim::Discard => super::block::range_op(f, super::block::RangeOp::Discard, start, len),
            Trim::PunchHole => punch_hole(f, start, len),
        }
    }
}

/// Whether the file system of a regular file can punch holes (fallocate PUNCH_HOLE), asked without
/// changing a byte: a hole punched past the end (KEEP_SIZE) of `file` (open for writing), or, for a file
/// that does not exist yet (`None`), in an unnamed temporary file of its folder `dir` (O_TMPFILE, gone when
/// closed). `Ok(false)` when the file system refuses the mode (EOPNOTSUPP); an error when it cannot tell
/// (the folder takes no O_TMPFILE).
pub fn can_punch_holes(file: Option<&std::fs::File>, dir: &Path) -> io::Result<bool> {
    use std::os::unix::fs::OpenOptionsExt;
    let tmp;
    let f = match file {
        Some(f) => f,
        None => {
            tmp = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_TMPFILE)
                .mode(0o600)
                .open(dir)?;
            &tmp
        }
    };
    let past_end = f.metadata()?.len().next_multiple_of(1 << 20) + (1 << 20);
    match punch_hole(f, past_end, 4096) {
        Ok(()) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(false),
        Err(e) => Err(e),
    }
}

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

/// The statvfs of the filesystem holding the open file `f`.
fn fstatvfs(f: &impl AsRawFd) -> io::Result<libc::statvfs> {
    // SAFETY: an all-zero statvfs struct is a valid value (plain integers).
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: fstatvfs writes one statvfs into `st`, a live local; an invalid fd is an error return.
    let r = unsafe { libc::fstatvfs(f.as_raw_fd(), &mut st) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// Whether the filesystem holding the open file `f` is mounted read-only (fstatvfs, ST_RDONLY).
///
/// # Errors
/// The OS error from fstatvfs.
pub fn on_read_only_fs(f: &impl AsRawFd) -> io::Result<bool> {
    Ok(fstatvfs(f)?.f_flag & libc::ST_RDONLY != 0)
}

/// Whether the open file `f` is immutable (`chattr +i`) or append-only (`chattr +a`), from its inode flags
/// (FS_IOC_GETFLAGS): `(immutable, append_only)`. Either makes every positioned write fail.
///
/// # Errors
/// The OS error of the ioctl (`ENOTTY` where the file system has no such flags).
pub fn write_protection(f: &impl AsRawFd) -> io::Result<(bool, bool)> {
    const IMMUTABLE: libc::c_long = 0x10;
    const APPEND: libc::c_long = 0x20;
    let mut flags: libc::c_long = 0;
    // SAFETY: FS_IOC_GETFLAGS writes the inode's flags into `flags`, a live local of the size it takes
    // (the kernel writes an int; a long holds it); a bad descriptor is an error return.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((flags & IMMUTABLE != 0, flags & APPEND != 0))
}

/// The bytes an unprivileged writer may still allocate on the filesystem holding the open file `f`
/// (fstatvfs: `f_bavail` × `f_frsize`); `u64::MAX` for a file system that reports no size at all (no
/// blocks: a tmpfs mounted without a limit, `size=0`), whose room is not known.
///
/// # Errors
/// The OS error from fstatvfs.
pub fn free_bytes(f: &impl AsRawFd) -> io::Result<u64> {
    let st = fstatvfs(f)?;
    if st.f_blocks == 0 {
        return Ok(u64::MAX);
    }
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// The bytes of `[start, start + len)` of a regular file that are holes (never written, or punched), found with
/// lseek SEEK_HOLE/SEEK_DATA, looking at no more than `max_holes` holes: `(bytes, whether all were seen)`. The
/// file offset moves (I/O uses positioned reads and writes).
///
/// # Errors
/// The OS error of lseek (EINVAL where the filesystem cannot tell).
pub fn hole_bytes(
    f: &impl AsRawFd,
    start: u64,
    len: u64,
    max_holes: usize,
) -> io::Result<(u64, bool)> {
    let seek = |at: u64, whence: libc::c_int| seek(f, at, whence);
    let end = start.saturating_add(len);
    let (mut pos, mut bytes) = (start, 0u64);
    for _ in 0..max_holes {
        let Some(hole) = seek(pos, libc::SEEK_HOLE)?.filter(|&h| h < end) else {
            return Ok((bytes, true));
        };
        let data = seek(hole, libc::SEEK_DATA)?.unwrap_or(end).min(end);
        bytes += data - hole;
        pos = data;
        if pos >= end {
            return Ok((bytes, true));
        }
    }
    Ok((bytes, false))
}

/// The ranges of `[start, start + len)` of a regular file that hold data (written blocks), found with lseek
/// SEEK_DATA/SEEK_HOLE, at most `max` of them, each passed to `each` as `(start, end)`; `Ok(false)` when there
/// were more. On ext4, XFS, btrfs and tmpfs a preallocated block not written yet (an unwritten extent) is a
/// hole. The file offset moves.
///
/// # Errors
/// The OS error of lseek (EINVAL where the filesystem cannot tell).
pub fn data_ranges(
    f: &impl AsRawFd,
    start: u64,
    len: u64,
    max: usize,
    mut each: impl FnMut(u64, u64),
) -> io::Result<bool> {
    let end = start.saturating_add(len);
    let mut pos = start;
    for _ in 0..max {
        let Some(data) = seek(f, pos, libc::SEEK_DATA)?.filter(|&d| d < end) else {
            return Ok(true);
        };
        let hole = seek(f, data, libc::SEEK_HOLE)?.unwrap_or(end).min(end);
        each(data, hole);
        pos = hole;
        if pos >= end {
            return Ok(true);
        }
    }
    Ok(false)
}

/// lseek to `at` with `whence`: the new offset, `None` for ENXIO (no data, or no hole, past `at`).
fn seek(f: &impl AsRawFd, at: u64, whence: libc::c_int) -> io::Result<Option<u64>> {
    // SAFETY: lseek takes only integers; a bad fd or offset is reported as an error return.
    let r = unsafe { libc::lseek(f.as_raw_fd(), at as libc::off_t, whence) };
    match r {
        r if r >= 0 => Ok(Some(r as u64)),
        _ => match io::Error::last_os_error() {
            e if e.raw_os_error() == Some(libc::ENXIO) => Ok(None),
            e => Err(e),
        },
    }
}

/// Takes an advisory lock on the open file without waiting (flock LOCK_EX or LOCK_SH, with LOCK_NB), held until
/// the file's open description closes. `Ok(false)` when another open description holds a conflicting one.
///
/// # Errors
/// The OS error of flock(2) other than `EWOULDBLOCK` (`ENOLCK` where the file system has no locks).
pub fn try_flock(f: &impl AsRawFd, exclusive: bool) -> io::Result<bool> {
    let op = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    // SAFETY: flock takes only integers; a bad descriptor is reported as an error return.
    if unsafe { libc::flock(f.as_raw_fd(), op | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// A process other than this one holding a granted flock on the file `(dev, ino)` (`st_dev`, `st_ino`),
/// from /proc/locks (`N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE ...`, device numbers in hex); `None` when
/// there is none or it cannot be told.
pub fn flock_holder(dev: u64, ino: u64) -> Option<u32> {
    flock_holders(dev, ino)
        .into_iter()
        .find(|&p| p != std::process::id())
}

/// Every process holding a granted flock on the file `(dev, ino)`, from /proc/locks, in its order; empty
/// when there is none or it cannot be read.
pub fn flock_holders(dev: u64, ino: u64) -> Vec<u32> {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let want = format!("{major:02x}:{minor:02x}:{ino}");
    let text = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    holders_in(&text, &want)
}

/// The pids of the granted FLOCKs on `id` (`MAJ:MIN:INODE`) in the text of /proc/locks.
fn holders_in(text: &str, id: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            // Waiting requests read `N: -> FLOCK ...`: the field after the number is "->", not a lock kind.
            (f.get(1) == Some(&"FLOCK") && f.get(5) == Some(&id))
                .then(|| f.get(4)?.parse().ok())
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod lock_tests {
    #[test]
    fn proc_locks_lines_give_the_holder() {
        let text = "1: POSIX  ADVISORY  WRITE 10 00:2f:77 0 EOF\n\
                    2: FLOCK  ADVISORY  WRITE 4242 00:2f:77 0 EOF\n\
                    2: -> FLOCK  ADVISORY  WRITE 99 00:2f:77 0 EOF\n";
        assert_eq!(super::holders_in(text, "00:2f:77"), [4242]);
        assert_eq!(super::holders_in(text, "00:2f:78"), Vec::<u32>::new());
    }
}

#[cfg(test)]
mod hole_tests {
    use super::hole_bytes;
    use std::os::unix::fs::FileExt;

    #[test]
    fn hole_bytes_counts_the_unwritten_parts_of_a_range() {
        let dir = tempfile::tempdir().expect("temp dir");
        let f = std::fs::File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("h.img"))
            .expect("create");
        f.set_len(1 << 20).expect("size");
        if hole_bytes(&f, 0, 1 << 20, 10).ok().map(|h| h.0) != Some(1 << 20) {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr().lock(),
                format_args!(
                    "SKIPPED sys::file::hole_bytes: this filesystem does not report holes\n"
                ),
            );
            return;
        }
        f.write_all_at(&[7u8; 4096], 0).expect("write");
        f.write_all_at(&[7u8; 4096], 512 << 10).expect("write");
        assert_eq!(
            hole_bytes(&f, 0, 1 << 20, 10).expect("holes"),
            ((1 << 20) - 8192, true)
        );
        // A range inside the second write, and one that starts in a hole.
        assert_eq!(
            hole_bytes(&f, 512 << 10, 4096, 10).expect("holes"),
            (0, true)
        );
        assert_eq!(hole_bytes(&f, 4096, 8192, 10).expect("holes"), (8192, true));
        // Looking at one hole only: the first, and not all were seen.
        assert_eq!(
            hole_bytes(&f, 0, 1 << 20, 1).expect("holes"),
            ((512 << 10) - 4096, false)
        );
    }
}
