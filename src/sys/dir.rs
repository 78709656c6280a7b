//! A folder held open by its descriptor ([`Dir`]): files are created, renamed, removed and read relative to
//! it (the `*at` syscalls), never through a symbolic link, and it can be locked (flock). [`RowFile`] appends
//! whole rows to a file and takes back a row that could not be written in full.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// A folder open by its descriptor. Every name given to its methods must be a plain file name: not empty,
/// not `.` or `..`, without `/` or NUL (otherwise `InvalidInput`).
#[derive(Debug)]
pub struct Dir {
    fd: File,
}

impl std::os::fd::AsRawFd for Dir {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.fd.as_raw_fd()
    }
}

/// `name` as a C string, when it is a plain file name.
fn plain(name: &str) -> io::Result<CString> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not a plain file name"),
        ));
    }
    CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a file name"))
}

/// The result of a syscall returning -1 on error.
fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl Dir {
    /// Opens the folder `path` (O_DIRECTORY|O_NOFOLLOW): its last component must be a folder, not a
    /// symbolic link to one (`ENOTDIR` for both).
    ///
    /// # Errors
    /// The OS error of open(2).
    pub fn open(path: &Path) -> io::Result<Dir> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a path"))?;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        let fd = check(unsafe { libc::open(c.as_ptr(), flags) })?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let fd = unsafe { File::from_raw_fd(fd) };
        Ok(Dir { fd })
    }

    /// Takes an exclusive advisory lock on the folder without waiting (flock LOCK_EX|LOCK_NB), held until
    /// this descriptor closes. `Ok(false)` when another open descriptor holds it.
    ///
    /// # Errors
    /// The OS error of flock(2) other than `EWOULDBLOCK`.
    pub fn try_lock(&self) -> io::Result<bool> {
        self.try_flock(libc::LOCK_EX)
    }

    /// Takes a shared advisory lock on the folder without waiting (flock LOCK_SH|LOCK_NB), held until this
    /// descriptor closes. `Ok(false)` when another open descriptor holds it exclusively.
    ///
    /// # Errors
    /// The OS error of flock(2) other than `EWOULDBLOCK`.
    pub fn try_lock_shared(&self) -> io::Result<bool> {
        self.try_flock(libc::LOCK_SH)
    }

    fn try_flock(&self, how: libc::c_int) -> io::Result<bool> {
        // SAFETY: flock takes only integers; a bad descriptor is reported as an error return.
        match check(unsafe { libc::flock(self.fd.as_raw_fd(), how | libc::LOCK_NB) }) {
            Ok(_) => Ok(true),
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn open_at(&self, name: &str, flags: libc::c_int) -> io::Result<File> {
        let c = plain(name)?;
        let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        let mode: libc::c_uint = 0o666;
        // SAFETY: `c` is a valid NUL-terminated name that outlives the call; the mode is an integer.
        let fd = check(unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags, mode) })?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// Creates the file `name` for writing (mode 0666 less the umask); fails with `EEXIST` when anything of
    /// that name exists, a symbolic link included (O_CREAT|O_EXCL|O_NOFOLLOW).
    ///
    /// # Errors
    /// The OS error of openat(2).
    pub fn create_new(&self, name: &str) -> io::Result<File> {
        self.open_at(name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL)
    }

    /// Opens the file `name` for reading; fails with `ELOOP` when it is a symbolic link.
    ///
    /// # Errors
    /// The OS error of openat(2).
    pub fn open_read(&self, name: &str) -> io::Result<File> {
        self.open_at(name, libc::O_RDONLY)
    }

    /// Renames `from` to `to` inside the folder, replacing `to` (a link named `to` is replaced, not
    /// followed).
    ///
    /// # Errors
    /// The OS error of renameat(2).
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let (a, b) = (plain(from)?, plain(to)?);
        let fd = self.fd.as_raw_fd();
        // SAFETY: both names are valid NUL-terminated strings that outlive the call.
        check(unsafe { libc::renameat(fd, a.as_ptr(), fd, b.as_ptr()) }).map(|_| ())
    }

    /// Removes the name `name` (a file or a symbolic link, never what a link points to).
    ///
    /// # Errors
    /// The OS error of unlinkat(2) (`ENOENT` when there is none, `EISDIR` for a folder).
    pub fn remove(&self, name: &str) -> io::Result<()> {
        let c = plain(name)?;
        // SAFETY: `c` is a valid NUL-terminated name that outlives the call.
        check(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) }).map(|_| ())
    }

    /// Whether anything named `name` exists in the folder (a dangling symbolic link counts).
    ///
    /// # Errors
    /// The OS error of fstatat(2) other than `ENOENT`.
    pub fn exists(&self, name: &str) -> io::Result<bool> {
        let c = plain(name)?;
        // SAFETY: an all-zero stat struct is a valid value (plain integers).
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `c` is a valid NUL-terminated name; fstatat writes into `st`, a live local.
        let r = unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        match check(r) {
            Ok(_) => Ok(true),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Flushes the folder's entries to stable storage (fsync on the folder).
    ///
    /// # Errors
    /// The OS error of fsync(2).
    pub fn sync(&self) -> io::Result<()> {
        self.fd.sync_all()
    }

    /// Another descriptor of the same open folder (dup(2)): it shares the lock.
    ///
    /// # Errors
    /// The OS error of dup(2).
    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
        })
    }

    /// The path that names the folder now, as the kernel keeps it (/proc/self/fd): where it was moved to,
    /// or `None` when it was removed or the path cannot be read.
    pub fn current_path(&self) -> Option<std::path::PathBuf> {
        let p = std::fs::read_link(format!("/proc/self/fd/{}", self.fd.as_raw_fd())).ok()?;
        (!p.as_os_str().as_bytes().ends_with(b" (deleted)")).then_some(p)
    }

    /// The folder's device and inode numbers.
    ///
    /// # Errors
    /// The OS error of fstat(2).
    pub fn id(&self) -> io::Result<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        let m = self.fd.metadata()?;
        Ok((m.dev(), m.ino()))
    }
}

/// Allocates the first `len` bytes of `file` on its file system (fallocate(2), mode 0: the file grows to
/// `len` when shorter; blocks already allocated stay), so that later writes into them cannot fail for
/// lack of space.
///
/// # Errors
/// The OS error: `ENOSPC` when the file system has not that much room, `EOPNOTSUPP` when it cannot
/// allocate ahead.
pub fn allocate(file: &File, len: u64) -> io::Result<()> {
    let len = libc::off_t::try_from(len)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "length past off_t"))?;
    // SAFETY: fallocate takes a descriptor and integers; a bad descriptor is reported as an error return.
    check(unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) }).map(|_| ())
}

/// A file written as whole rows, each appended at the end of the last whole row (one write(2) when it
/// fits). When a row cannot be written in full (a disk full, an I/O error), the file is truncated back to
/// the rows before it, the error returned, and every later append refused: the file always ends with a
/// whole row.
#[derive(Debug)]
pub struct RowFile {
    file: File,
    len: u64,
    failed: bool,
    /// A file-size limit of the tests' own (RLIMIT_FSIZE without the signal): bytes past it are refused.
    #[cfg(test)]
    limit: Option<u64>,
}

impl RowFile {
    /// Rows appended to `file`, which is empty (just created).
    pub fn new(file: File) -> RowFile {
        RowFile {
            file,
            len: 0,
            failed: false,
            #[cfg(test)]
            limit: None,
        }
    }

    /// Refuses bytes past `bytes`, as the file-size limit does (the write up to it, then `EFBIG`).
    #[cfg(test)]
    pub fn limit(&mut self, bytes: u64) {
        self.limit = Some(bytes);
    }

    /// Appends one row (its bytes, line end included).
    ///
    /// # Errors
    /// The OS error of the write that failed (`WriteZero` when the file takes no more bytes and says no
    /// more), or, after a failed row, an error saying the file is incomplete.
    pub fn append(&mut self, row: &[u8]) -> io::Result<()> {
        if self.failed {
            return Err(io::Error::other(
                "an earlier row could not be written: no more rows are appended",
            ));
        }
        let mut done = 0;
        while done < row.len() {
            let at = self.len + done as u64;
            #[cfg(test)]
            let row = match self.limit {
                Some(l) if l <= at => {
                    return Err(self.take_back(io::Error::from_raw_os_error(libc::EFBIG)));
                }
                Some(l) => &row[..row.len().min(done + (l - at) as usize)],
                None => row,
            };
            match self.file.write_at(&row[done..], at) {
                Ok(0) => return Err(self.take_back(io::ErrorKind::WriteZero.into())),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.take_back(e)),
            }
        }
        self.len += row.len() as u64;
        Ok(())
    }

    /// Truncates the file to `len` bytes, its length after a row appended earlier ([`RowFile::len`]), and
    /// refuses later rows: a file written beside another that could not take the rows after it.
    ///
    /// # Errors
    /// The OS error truncating the file.
    pub fn cut(&mut self, len: u64) -> io::Result<()> {
        self.failed = true;
        self.len = self.len.min(len);
        self.file.set_len(self.len)
    }

    /// Truncates the file to its whole rows and refuses later rows; returns `e`.
    fn take_back(&mut self, e: io::Error) -> io::Error {
        self.failed = true;
        let _ = self.file.set_len(self.len);
        e
    }

    /// Bytes of whole rows in the file.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no row was appended.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_be_plain() {
        for bad in ["", ".", "..", "a/b", "/etc/passwd", "../x"] {
            assert_eq!(
                plain(bad).unwrap_err().kind(),
                io::ErrorKind::InvalidInput,
                "{bad:?}"
            );
        }
        assert!(plain("00-w.csv").is_ok());
        assert!(plain("a\0b").is_err());
    }

    #[test]
    fn create_new_never_follows_or_reuses_a_name() {
        let t = tempfile::tempdir().unwrap();
        let victim = t.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, t.path().join("link")).unwrap();
        let d = Dir::open(t.path()).unwrap();
        let e = d.create_new("link").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EEXIST));
        assert_eq!(
            d.open_read("link").unwrap_err().raw_os_error(),
            Some(libc::ELOOP)
        );
        assert!(d.exists("link").unwrap());
        d.remove("link").unwrap();
        assert!(!d.exists("link").unwrap());
        d.create_new("link").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(
            !std::fs::symlink_metadata(t.path().join("link"))
                .unwrap()
                .is_symlink()
        );
    }

    #[test]
    fn a_folder_symlink_is_not_opened() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("real")).unwrap();
        std::os::unix::fs::symlink(t.path().join("real"), t.path().join("link")).unwrap();
        let e = Dir::open(&t.path().join("link")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR));
        assert!(Dir::open(&t.path().join("real")).is_ok());
    }

    #[test]
    fn the_lock_is_exclusive_across_descriptors() {
        let t = tempfile::tempdir().unwrap();
        let a = Dir::open(t.path()).unwrap();
        let b = Dir::open(t.path()).unwrap();
        assert!(a.try_lock().unwrap());
        assert!(!b.try_lock().unwrap());
        drop(a);
        assert!(b.try_lock().unwrap());
    }

    #[test]
    fn rows_append_in_order() {
        let t = tempfile::tempdir().unwrap();
        let d = Dir::open(t.path()).unwrap();
        let mut r = RowFile::new(d.create_new("r.csv").unwrap());
        r.append(b"a,b\n").unwrap();
        r.append(b"1,2\n").unwrap();
        assert_eq!(r.len(), 8);
        assert_eq!(
            std::fs::read_to_string(t.path().join("r.csv")).unwrap(),
            "a,b\n1,2\n"
        );
    }
}
