//! Opening a target for I/O, and creating a file target. Nothing here runs before the plan is valid.
//!
//! A run opens its target once, before its first phase, and holds it to the end ([`Held`]): every phase reads,
//! writes and erases through that one open file, so the path is not looked up again while the run writes. The
//! open is checked against what the path named when it was probed ([`TargetInfo::identity`]).

use super::reopen::{Reopen, open_again, open_probed};
use super::{Identity, TargetInfo, kinds};
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// A file target wkrun created: what it is, and whether its blocks were allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Created {
    /// The identity of the file created.
    pub identity: Identity,
    /// True when the file system allocated every block (fallocate); false when it cannot preallocate
    /// (`EOPNOTSUPP`) and the file was left sparse.
    pub preallocated: bool,
}

/// Creates a file of `size` bytes at `path`, with its blocks allocated (fallocate, as fio's `fallocate=native`)
/// so that no measured write pays for the file system's block allocation and a file system without room for
/// the target says so before the run, not in its middle. A file system that cannot preallocate leaves it
/// sparse. Fails if the path already exists (never truncates). When the file cannot be given its size or its
/// blocks (`EFBIG`, `ENOSPC`, a quota), the file just created is removed again (if the path still names it): a
/// failed creation leaves nothing behind.
///
/// # Errors
/// The OS error from creating, sizing or preallocating the file.
pub fn create_file(path: &Path, size: u64) -> io::Result<Created> {
    let f = OpenOptions::new().write(true).create_new(true).open(path)?;
    let identity = f.metadata().ok().and_then(|m| Identity::of(&m));
    let sized = f.set_len(size).and_then(|()| {
        match crate::sys::file::preallocate(&f, size) {
            Ok(()) => Ok(true),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::ENOSYS)) => Ok(false),
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!(
                    "cannot allocate its {size} B ({}): {e}; give a smaller size (--target-size or [target] size) or a folder on a file system with room",
                    crate::units::fmt_bytes(size)
                ),
            )),
        }
    });
    let preallocated = match sized {
        Ok(p) => p,
        Err(e) => {
            drop(f);
            let named = std::fs::symlink_metadata(path)
                .ok()
                .and_then(|m| Identity::of(&m));
            if identity.is_some() && named == identity {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
    };
    let identity =
        identity.ok_or_else(|| io::Error::other("the created target is not a regular file"))?;
    Ok(Created {
        identity,
        preallocated,
    })
}

/// A host target opened for the whole run: the open file every phase uses, and what it is.
///
/// Opened for reading, and for writing when the run writes; a block device the run writes is opened with
/// O_EXCL, so that while the run lasts (between phases too) the kernel refuses to mount it or to let another
/// program claim it exclusively. O_DIRECT is switched per phase on the open file ([`Held::set_direct`]).
#[derive(Debug)]
pub struct Held {
    file: File,
    identity: Identity,
    path: PathBuf,
    noun: &'static str,
    /// Whether it is open for writing too.
    write: bool,
    /// The node of a block device's whole disk and the file under a loop device target, held open for
    /// their locks ([`claim_storage`]).
    _claimed: Vec<File>,
}

/// Why the target could not be held for the run.
#[derive(Debug, thiserror::Error)]
pub enum HoldError {
    /// The path no longer names what was probed and checked (it was replaced); nothing was written to it.
    #[error("{0}")]
    Changed(String),
    /// It could not be opened (in use, no permission, gone, read-only).
    #[error("{0}")]
    Failed(String),
    /// A file target another process holds (another wkrun run on the same file); nothing was written to it.
    #[error("{0}")]
    InUse(String),
}

impl Held {
    /// Opens `target` for the run: for reading, and for writing with `write` (a block device then with O_EXCL).
    /// The path is first opened with O_PATH, which opens nothing on the device, and its identity compared with
    /// the one probed; the open for I/O then reopens that very file through `/proc/self/fd` (or, without
    /// `/proc`, the path again) and is compared once more. A block device that is read-only is refused when
    /// `write`.
    ///
    /// # Errors
    /// [`HoldError::Changed`] when the path names something else than was probed (or the target was never
    /// probed); [`HoldError::Failed`] with the OS error otherwise (EBUSY: the device is in use).
    pub fn open(target: &TargetInfo, write: bool) -> Result<Held, HoldError> {
        Held::open_in(target, write, &Claims::default())
    }

    /// [`Held::open`] without the claims (the lock of a file target, of a block device's disk and of the
    /// file under a loop device): a second open of the target by a run that holds it already (the write
    /// cache's control), whose locks, on another open file, would meet the run's own.
    ///
    /// # Errors
    /// As [`Held::open`].
    pub fn open_unclaimed(target: &TargetInfo, write: bool) -> Result<Held, HoldError> {
        let all = Claims {
            files: Vec::new(),
            all: true,
        };
        Held::open_in(target, write, &all)
    }

    /// [`Held::open`] for one target of a run on several, whose disks and loop devices' files `claims` holds
    /// for the whole run: a disk or file it holds (with the access `write` needs) is not claimed again.
    ///
    /// # Errors
    /// As [`Held::open`].
    pub fn open_in(target: &TargetInfo, write: bool, claims: &Claims) -> Result<Held, HoldError> {
        let kind = kinds::of(target.kind).facts();
        let path = &target.path;
        let shown = path.display();
        let Some(expected) = target.identity.filter(|_| kind.on_host) else {
            return Err(HoldError::Changed(format!(
                "{shown} ({}) was not probed on this host: what it should be is unknown; nothing was opened",
                kind.noun
            )));
        };
        if expected.kind() != target.kind {
            return Err(HoldError::Changed(format!(
                "{shown} was probed as {}, not {}; nothing was opened",
                kinds::of(expected.kind()).facts().noun,
                kind.noun
            )));
        }
        let failed = |what: &str, e: io::Error| HoldError::Failed(format!("{what} {shown}: {e}"));
        let mut flags = 0;
        if write && kind.exclusive_when_writing {
            flags |= libc::O_EXCL;
        }
        let file = match open_probed(path, expected, write, flags) {
            Ok(f) => f,
            Err(Reopen::Failed(e)) => return Err(failed("cannot open", e)),
            Err(Reopen::Changed(now)) => {
                return Err(HoldError::Changed(format!(
                    "{shown} changed after it was checked: it was {}, it is now {}; nothing was written to it",
                    Identity::describe(Some(expected)),
                    Identity::describe(now)
                )));
            }
        };
        if write && let Identity::Block { .. } = expected {
            match crate::sys::block::read_only(&file) {
                Ok(false) => {}
                Ok(true) => {
                    return Err(HoldError::Failed(format!(
                        "{shown} is read-only (blockdev --setro, losetup --read-only or the hardware); nothing was written to it"
                    )));
                }
                Err(e) => return Err(failed("cannot read the read-only flag (BLKROGET) of", e)),
            }
        }
        let claimed = match expected {
            Identity::File { dev, ino } => {
                if !claims.holds((dev, ino), write) {
                    claim(&file, write, (dev, ino), &shown.to_string()).map_err(|why| {
                        HoldError::InUse(format!("{why}; nothing was written to it"))
                    })?;
                }
                Vec::new()
            }
            Identity::Block { rdev } => claim_storage(rdev, write, &shown.to_string(), claims)?,
        };
        Ok(Held {
            file,
            identity: expected,
            path: path.clone(),
            noun: kind.noun,
            write,
            _claimed: claimed,
        })
    }

    /// The open file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The path it was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The held target opened once more, as an open file description of its own (for one worker of a phase,
    /// so that the workers' I/O system calls do not all take their reference on one shared open file):
    /// through `/proc/self/fd` of the held file, never by the path; for reading, and writing when the run
    /// writes; with O_DIRECT when `direct`; without O_EXCL and without a lock (the held file keeps a block
    /// device's exclusive claim and the run's locks, and the run holds it as long). Compared with the
    /// probed identity once more. `Ok(None)` without `/proc` (the worker then shares the held file).
    ///
    /// # Errors
    /// The OS error; when what opened is not the held target, an error saying what it is.
    pub fn open_again(&self, direct: bool) -> io::Result<Option<File>> {
        let flags = if direct { libc::O_DIRECT } else { 0 };
        match open_again(&self.file, self.identity, (self.write, flags), None) {
            Ok(f) => Ok(Some(f)),
            Err(Reopen::Failed(e)) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(Reopen::Failed(e)) => Err(e),
            Err(Reopen::Changed(now)) => Err(io::Error::other(format!(
                "it is {}, not {}, which the run holds; nothing was written to it",
                Identity::describe(now),
                Identity::describe(Some(self.identity))
            ))),
        }
    }

    /// Switches O_DIRECT on or off for what follows (between phases: no I/O may be in flight).
    ///
    /// # Errors
    /// The OS error; EINVAL when the target's filesystem has no O_DIRECT.
    pub fn set_direct(&self, direct: bool) -> io::Result<()> {
        crate::sys::file::set_direct(&self.file, direct)
    }

    /// A warning when the path no longer names the held target (it was moved, removed or replaced during the
    /// run); the run goes on with the target it holds. `None` while the path still names it.
    pub fn path_moved(&self) -> Option<String> {
        let now = std::fs::metadata(&self.path).map(|m| Identity::of(&m));
        if now.as_ref().is_ok_and(|n| *n == Some(self.identity)) {
            return None;
        }
        let noun = self.noun.trim_start_matches("a ");
        Some(format!(
            "{} no longer names the {noun} this run opened (it was moved, removed or replaced during the run; it now names {}); the run goes on with the {noun} it opened",
            self.path.display(),
            now.map_or_else(|_| "nothing".to_string(), Identity::describe),
        ))
    }
}

/// A lock a run on a block device takes besides its own open, on storage that other devices or files
/// share: the open file to lock, its `(dev, ino)`, and the subject of a refusal's sentence.
struct Lock {
    file: File,
    id: (u64, u64),
    subject: String,
}

/// The locks of a run on the block device `rdev` (named `shown`): first the node of its whole disk (itself,
/// or the disk it is a partition of; [`super::safety::whole_disk`]), which every run on the disk or on a
/// partition of it claims; then the regular file under a loop device (or partition of one), through loop
/// devices stacked on it (a loop over a file can be attached twice, and the file can be a target itself).
/// Each is opened read-only and checked to be what was found; one that cannot be found or opened is left
/// out (the run goes on unclaimed there, as on a file system without flock).
fn locks_of(rdev: u64, shown: &str) -> Vec<Lock> {
    let mut locks = Vec::new();
    if let Some((disk, partition)) = super::safety::whole_disk(rdev) {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        // O_NONBLOCK: a drive without a medium opens all the same; nothing is read through it.
        let opened = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&disk);
        if let Ok(file) = opened
            && let Ok(m) = file.metadata()
            && std::fs::metadata(&disk).is_ok_and(|d| d.rdev() == m.rdev() && d.ino() == m.ino())
        {
            let subject = super::safety::disk_subject(shown, &disk, partition);
            let id = (m.dev(), m.ino());
            locks.push(Lock { file, id, subject });
        }
    }
    if let Some((path, Identity::File { dev, ino })) = super::safety::file_under_loop(rdev)
        && let Ok(file) = File::open(&path)
        // The file found, not one put in its place since.
        && file.metadata().ok().and_then(|m| Identity::of(&m)) == Some(Identity::File { dev, ino })
    {
        let subject = super::safety::loop_subject(shown, rdev, &path);
        locks.push(Lock {
            file,
            id: (dev, ino),
            subject,
        });
    }
    locks
}

/// Claims the storage of a block device target for the run ([`locks_of`]: its whole disk's node, and the
/// regular file under a loop device) as a file target is claimed ([`claim`]), each open for the run: runs
/// on two partitions of one disk, on a disk and its partition, or on a file and a loop device over it
/// write the same storage, and each refuses the other. A lock that `claims` holds already for this run
/// (with the access `write` needs) is not taken again.
fn claim_storage(
    rdev: u64,
    write: bool,
    shown: &str,
    claims: &Claims,
) -> Result<Vec<File>, HoldError> {
    let mut held = Vec::new();
    for lock in locks_of(rdev, shown) {
        if claims.holds(lock.id, write) {
            continue;
        }
        claim(&lock.file, write, lock.id, &lock.subject)
            .map_err(|why| HoldError::InUse(format!("{why}; nothing was written to it")))?;
        held.push(lock.file);
    }
    Ok(held)
}

/// The disks and the files under the loop devices of one run on several targets, each claimed once for
/// the whole run with the strongest access any of its targets needs: exclusive when one of them writes,
/// shared when all only read. Two partitions of one disk share its claim (and, of a loop device, its file;
/// or loop devices stacked over two partitions of one); claimed per target, the second target's claim met
/// the first's, and the claim ended with the target that had taken it, while the other still ran. The
/// targets' holds ([`Held::open_in`]) leave these to it; dropping it ends the claims.
#[derive(Debug, Default)]
pub struct Claims {
    files: Vec<Claimed>,
    /// Everything counts as held ([`Held::open_unclaimed`]).
    all: bool,
}

/// One disk node or file a [`Claims`] holds: its `(dev, ino)`, whether exclusively, and the open file
/// holding the lock.
#[derive(Debug)]
struct Claimed {
    id: (u64, u64),
    write: bool,
    _file: File,
}

impl Claims {
    /// Claims the storage of each block device target of `targets` (each target with whether its run
    /// writes it): its whole disk, and the file under a loop device, each once, exclusively when any
    /// target on it writes. Targets that are files are claimed by their own hold, as for one target.
    ///
    /// # Errors
    /// Another wkrun run holds one of them: `TARGET is a partition of DISK, which is in use by another
    /// wkrun run (pid N), which reads or writes it` (or `is a loop device of FILE, which`), naming the first
    /// target that needs the access refused.
    pub fn take(targets: &[(&TargetInfo, bool)]) -> Result<Claims, String> {
        // Per disk or file: the lock, the target needing the strongest access, and whether that one writes.
        let mut wanted: Vec<(Lock, bool)> = Vec::new();
        for &(t, write) in targets {
            let Some(Identity::Block { rdev }) = t.identity else {
                continue;
            };
            for lock in locks_of(rdev, &t.path.display().to_string()) {
                match wanted.iter_mut().find(|w| w.0.id == lock.id) {
                    Some(w) if write && !w.1 => *w = (lock, true),
                    Some(_) => {}
                    None => wanted.push((lock, write)),
                }
            }
        }
        let mut claims = Claims::default();
        for (lock, write) in wanted {
            claim(&lock.file, write, lock.id, &lock.subject)?;
            claims.files.push(Claimed {
                id: lock.id,
                write,
                _file: lock.file,
            });
        }
        Ok(claims)
    }

    /// Whether the disk node or file `id` is claimed here, exclusively when `write`.
    fn holds(&self, id: (u64, u64), write: bool) -> bool {
        self.all || self.files.iter().any(|c| c.id == id && (c.write || !write))
    }
}

/// Claims a file target for the run with an advisory lock held while the file stays open: exclusive for a run
/// that writes, shared for one that only reads, so that two wkrun runs never write the same file at once (a
/// block device is claimed by its exclusive open instead). A file system without flock runs unclaimed.
///
/// # Errors
/// Another process holds it: `SHOWN is in use by another wkrun run (pid N), which reads or writes it`.
fn claim(file: &File, write: bool, (dev, ino): (u64, u64), shown: &str) -> Result<(), String> {
    match crate::sys::file::try_flock(file, write) {
        Ok(true) | Err(_) => Ok(()),
        Ok(false) => {
            let holder = crate::sys::file::flock_holder(dev, ino)
                .map_or_else(String::new, |p| format!(" (pid {p})"));
            Err(format!(
                "{shown} is in use by another wkrun run{holder}, which {} it",
                if write { "reads or writes" } else { "writes" }
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;

    /// A 1 MiB file of zeros in a fresh folder, probed.
    fn probed(dir: &Path, name: &str) -> TargetInfo {
        let p = dir.join(name);
        File::create(&p).unwrap().set_len(1 << 20).unwrap();
        super::super::probe(&p, 0).unwrap()
    }

    /// The status flags of an open file, from /proc/self/fdinfo (octal).
    fn fd_flags(f: &File) -> i32 {
        let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", f.as_raw_fd())).unwrap();
        let line = info.lines().find(|l| l.starts_with("flags:")).unwrap();
        i32::from_str_radix(line.trim_start_matches("flags:").trim(), 8).unwrap()
    }

    #[test]
    fn a_run_that_writes_holds_the_probed_file_for_reading_and_writing() {
        let d = tempfile::tempdir().unwrap();
        let t = probed(d.path(), "t.img");
        let h = Held::open(&t, true).unwrap();
        assert_eq!(fd_flags(h.file()) & libc::O_ACCMODE, libc::O_RDWR);
        h.file().write_all_at(b"held", 4096).unwrap();
        assert_eq!(&std::fs::read(&t.path).unwrap()[4096..4100], b"held");
        assert_eq!(h.path_moved(), None);
    }

    #[test]
    fn a_run_that_only_reads_holds_the_file_read_only() {
        let d = tempfile::tempdir().unwrap();
        let t = probed(d.path(), "t.img");
        let h = Held::open(&t, false).unwrap();
        assert_eq!(fd_flags(h.file()) & libc::O_ACCMODE, libc::O_RDONLY);
        let e = h.file().write_at(b"x", 0).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EBADF));
    }

    #[test]
    fn o_direct_is_switched_on_the_open_file() {
        let d = tempfile::tempdir().unwrap();
        let t = probed(d.path(), "t.img");
        let h = Held::open(&t, true).unwrap();
        assert_eq!(fd_flags(h.file()) & libc::O_DIRECT, 0);
        if let Err(e) = h.set_direct(true) {
            eprintln!(
                "SKIPPED target::open::tests::o_direct_is_switched_on_the_open_file: no O_DIRECT here: {e}"
            );
            return;
        }
        assert_eq!(fd_flags(h.file()) & libc::O_DIRECT, libc::O_DIRECT);
        h.set_direct(false).unwrap();
        assert_eq!(fd_flags(h.file()) & libc::O_DIRECT, 0);
    }

    /// A worker's open file: the held target again, with the run's access and the O_DIRECT asked for, an
    /// open file description of its own (its flags are not the held file's).
    #[test]
    fn a_worker_opens_the_held_file_again_with_its_access() {
        let d = tempfile::tempdir().unwrap();
        let t = probed(d.path(), "t.img");
        std::fs::write(&t.path, vec![7u8; 1 << 20]).unwrap();
        let h = Held::open(&t, false).unwrap();
        let again = h.open_again(false).unwrap().expect("/proc is mounted");
        assert_eq!(fd_flags(&again) & libc::O_ACCMODE, libc::O_RDONLY);
        let e = again.write_at(b"x", 0).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EBADF));
        let mut b = [0u8; 4];
        again.read_exact_at(&mut b, 4096).unwrap();
        assert_eq!(b, [7; 4]);
        // Its shared lock would refuse the run that writes.
        drop(h);
        let w = Held::open(&t, true).unwrap();
        let direct = match w.open_again(true) {
            Ok(f) => f.expect("/proc is mounted"),
            Err(e) => {
                eprintln!(
                    "SKIPPED target::open::tests::a_worker_opens_the_held_file_again_with_its_access: no O_DIRECT here: {e}"
                );
                return;
            }
        };
        assert_eq!(
            fd_flags(&direct) & (libc::O_ACCMODE | libc::O_DIRECT),
            libc::O_RDWR | libc::O_DIRECT
        );
        assert_eq!(fd_flags(w.file()) & libc::O_DIRECT, 0);
    }

    /// Replaced between the probe and the open: refused, naming both; the new file is not written.
    #[test]
    fn a_path_replaced_after_the_probe_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let t = probed(d.path(), "t.img");
        let Some(Identity::File { dev, ino }) = t.identity else {
            panic!("a probed file has a file identity: {:?}", t.identity);
        };
        std::fs::rename(&t.path, d.path().join("old.img")).unwrap();
        let mut other = File::create(&t.path).unwrap();
        other.write_all(b"not yours").unwrap();
        let new_ino = std::fs::metadata(&t.path).map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.ino()
        });
        let err = Held::open(&t, true).unwrap_err().to_string();
        let mm = format!("{}:{}", libc::major(dev), libc::minor(dev));
        assert_eq!(
            err,
            format!(
                "{} changed after it was checked: it was the file with inode {ino} on device {mm}, it is now the file with inode {} on device {mm}; nothing was written to it",
                t.path.display(),
                new_ino.unwrap()
            )
        );
        assert_eq!(std::fs::read(&t.path).unwrap(), b"not yours");
        // A folder in its place: neither a file nor a device.
        std::fs::remove_file(&t.path).unwrap();
        std::fs::create_dir(&t.path).unwrap();
        let err = Held::open(&t, false).unwrap_err();
        assert!(matches!(err, HoldError::Changed(_)), "{err:?}");
        assert!(
            err.to_string()
                .contains("it is now neither a regular file nor a block device"),
            "{err}"
        );
    }

    /// Moved during the run: the held file is still the one written, and the warning says so.
    #[test]
    fn a_path_moved_during_the_run_leaves_the_held_file_in_use() {
        let d = tempfile::tempdir().unwrap();
        let t = probed(d.path(), "t.img");
        let h = Held::open(&t, true).unwrap();
        let moved = d.path().join("moved.img");
        std::fs::rename(&t.path, &moved).unwrap();
        let shown = t.path.display();
        assert_eq!(
            h.path_moved().unwrap(),
            format!(
                "{shown} no longer names the file this run opened (it was moved, removed or replaced during the run; it now names nothing); the run goes on with the file it opened"
            )
        );
        std::os::unix::fs::symlink("/dev/null", &t.path).unwrap();
        assert!(
            h.path_moved()
                .unwrap()
                .contains("it now names neither a regular file nor a block device"),
        );
        h.file().write_all_at(b"still", 0).unwrap();
        assert_eq!(&std::fs::read(&moved).unwrap()[..5], b"still");
    }

    #[test]
    fn a_target_never_probed_is_not_opened() {
        let d = tempfile::tempdir().unwrap();
        let mut t = probed(d.path(), "t.img");
        t.identity = None;
        let err = Held::open(&t, true).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{} (a file) was not probed on this host: what it should be is unknown; nothing was opened",
                t.path.display()
            )
        );
    }
}
