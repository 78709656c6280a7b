//! The folder a run or a report writes into ([`OutDir`]): created when missing, held open by its descriptor,
//! and for a run locked for the run's lifetime. Nothing in it is written through a symbolic link: a file is
//! created anew (an existing file or link of its name is removed first, never opened) or written to a fresh
//! temporary file and renamed over its name.

use crate::sys::dir::Dir;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output folder cannot be used. Nothing was written into it.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// The folder's own name is a symbolic link.
    #[error(
        "the {what} {} is a symbolic link; wkrun does not write through links: give the folder it points to",
        path.display()
    )]
    Link {
        /// "output folder" or "report folder".
        what: &'static str,
        /// The folder.
        path: PathBuf,
    },
    /// The folder (or a parent) cannot be created, or it cannot be opened.
    #[error("cannot create the {what} {}: {source}{}", path.display(), crate::sys::limits::errno_note(source))]
    Create {
        /// "output folder" or "report folder".
        what: &'static str,
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// Another process holds the folder's lock: another run writes into it.
    #[error(
        "the output folder {} is in use by another wkrun run{}; choose another --output folder",
        path.display(),
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    InUse {
        /// The folder.
        path: PathBuf,
        /// The process holding the lock, when /proc/locks tells.
        pid: Option<u32>,
    },
    /// A file cannot be made in the folder (no permission, an immutable folder, a read-only file system).
    #[error(
        "cannot write into the output folder {}: {source}{}",
        path.display(),
        not_writable_tail(source)
    )]
    NotWritable {
        /// The folder.
        path: PathBuf,
        /// The OS error of making a file there.
        source: io::Error,
    },
    /// The folder is, or would be made, on no storage: a pseudo file system (sysfs, procfs) or among `/dev`'s
    /// device nodes.
    #[error(
        "the {what} {} would be on {on}, not on storage; choose another folder",
        path.display()
    )]
    NotStorage {
        /// "output folder" or "report folder".
        what: &'static str,
        /// The folder.
        path: PathBuf,
        /// What it would be on.
        on: &'static str,
    },
    /// The target files a run creates would leave the folder's file system less room than its results need
    /// ([`OutDir::room_beside`]): a full disk, a resource limit.
    #[error(
        "no room for the results beside the target{} to create: the output folder {}'s file system has {free} B free, and the target file{} to create on it take{} {bytes} B, which would leave less than the {MIN_ROOM} B a run's results need; choose another --output folder or target path, or a smaller --target-size",
        if *files == 1 { "" } else { "s" },
        path.display(),
        if *files == 1 { "" } else { "s" },
        if *files == 1 { "s" } else { "" }
    )]
    NoRoomBeside {
        /// The folder.
        path: PathBuf,
        /// Bytes free on its file system.
        free: u64,
        /// The target files to create on it.
        files: usize,
        /// The bytes they take, allocated.
        bytes: u64,
    },
    /// The folder already holds the results of a run.
    #[error("{} already holds results.json; choose another --output folder", path.display())]
    HasResults {
        /// The folder.
        path: PathBuf,
    },
    /// The folder holds files that are not wkrun's (`-o /`, `-o ~`): results are written only into a new or
    /// empty folder, or one holding only what a run writes.
    #[error(
        "the output folder {} is not empty and holds files that are not wkrun's ({}); wkrun writes results only into a new or empty folder: choose another --output folder (such as {})",
        path.display(),
        crate::text::escaped(&others.join(", ")),
        path.join("wkrun-results").display()
    )]
    NotEmpty {
        /// The folder.
        path: PathBuf,
        /// Some of what it holds that is not wkrun's (at most [`SHOWN_OTHERS`], then how many more).
        others: Vec<String>,
    },
}

/// The end of [`OutDirError::NotWritable`]'s message: what to do. Another folder helps unless the process
/// ran out of file descriptors (the limit is named instead).
fn not_writable_tail(e: &io::Error) -> String {
    use crate::sys::limits::Limit;
    // Under the file-size limit another folder does not help: the limit is named (the error of the
    // folder's check names it already, an OS error EFBIG does not).
    match (e.raw_os_error(), e.kind()) {
        (Some(libc::EFBIG), _) => {
            return format!("{}: raise it (ulimit -f)", Limit::FileSize.note());
        }
        (_, io::ErrorKind::FileTooLarge) => return ": raise it (ulimit -f) or remove it".into(),
        _ => {}
    }
    match crate::sys::limits::errno_note(e) {
        n if n.is_empty() => "; choose another --output folder".to_string(),
        n => format!("{n}: raise it (ulimit -n)"),
    }
}

/// The most names of files that are not wkrun's a [`OutDirError::NotEmpty`] names.
pub const SHOWN_OTHERS: usize = 3;

/// What of the folder `path` is not wkrun's: every entry but the files a run or a merge writes
/// ([`is_run_file`], `NN-<phase>.hlog`), the folders of a run's targets holding only those, and an empty
/// `lost+found` (the root of a fresh file system). At most [`SHOWN_OTHERS`] names, then `N more`.
fn not_wkruns(path: &Path) -> io::Result<Vec<String>> {
    let own = |name: &str| {
        is_run_file(name)
            || name.ends_with(".hlog") && is_run_file(&format!("{}.csv", &name[..name.len() - 5]))
    };
    let mut others: Vec<String> = Vec::new();
    for e in std::fs::read_dir(path)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let folder = e.file_type()?.is_dir();
        let mine = match folder {
            false => own(&name),
            // A target's folder of a run on several targets, or a fresh file system's lost+found.
            true => std::fs::read_dir(e.path()).is_ok_and(|mut d| {
                d.all(|f| f.is_ok_and(|f| own(&f.file_name().to_string_lossy())))
            }),
        };
        if !mine {
            others.push(format!("{name}{}", if folder { "/" } else { "" }));
        }
    }
    // The first names in order, so that the message is the same each time.
    others.sort_unstable();
    let more = others.len().saturating_sub(SHOWN_OTHERS);
    others.truncate(SHOWN_OTHERS);
    if more > 0 {
        others.push(format!("{more} more"));
    }
    Ok(others)
}

/// An open output folder; cloning shares the descriptor (and the lock, for a run's folder).
#[derive(Debug, Clone)]
pub struct OutDir {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    dir: Dir,
    path: PathBuf,
    created: bool,
}

/// Whether a run writes a file of this name into its output folder (and may remove or replace what has
/// it): `results.json`, `results.json.<anything>` (the reserve, temporary files) and `NN-<phase>.csv`
/// (series and device CSVs).
pub fn is_run_file(name: &str) -> bool {
    let csv = name.ends_with(".csv")
        && name
            .split_once('-')
            .is_some_and(|(n, _)| n.len() >= 2 && n.bytes().all(|b| b.is_ascii_digit()));
    csv || name == "results.json" || name.starts_with("results.json.")
}

/// A file name part that needs no quoting in a shell, made of `A-Za-z0-9._-` only, from a phase's name:
/// `saturate[op=93%]` → `saturate_op-93pct`, `w[bs=4KiB,read=65]` → `w_bs-4KiB_read-65`. The one
/// definition for every file a run, a merge or a report names after a phase (series and device CSVs, SVG
/// plots); the phase's own name stays in `results.json`.
pub fn slug(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' => s.push(c),
            '%' => s.push_str("pct"),
            '=' => s.push('-'),
            ']' => {}
            _ => s.push('_'),
        }
    }
    s
}

/// Numbers the temporary files of this process (with its pid, a name no other writer uses).
static TEMP: AtomicU64 = AtomicU64::new(0);

/// The least room a run's output folder must have: the first results.json and a series CSV's first rows.
pub const MIN_ROOM: u64 = 64 * 1024;

/// The least file size (RLIMIT_FSIZE) a run's output folder needs: a first results.json and series rows.
pub const MIN_FILE: u64 = 64 * 1024;

impl OutDirError {
    /// The exit status of a command this refusal stops: 1 when a resource limit refused the folder (a full
    /// file system or quota, the file-size limit, the open-file limit, memory), else 2 (bad input).
    pub fn exit_code(&self) -> u8 {
        match self {
            OutDirError::NotWritable { source, .. } | OutDirError::Create { source, .. }
                if crate::sys::limits::is_resource_limit(source) =>
            {
                1
            }
            OutDirError::NoRoomBeside { .. } => 1,
            _ => 2,
        }
    }

    /// The message of a command this refusal stops: for a resource limit (exit 1) ending "; nothing was
    /// written", which a refusal for bad input (exit 2) says by its exit status.
    pub fn refusal(&self) -> String {
        match self.exit_code() {
            1 => format!("{self}; nothing was written"),
            _ => self.to_string(),
        }
    }
}

impl OutDir {
    /// Opens the folder `path`, creating it (with its parents) when missing. `what` names it in errors
    /// ("output folder", "report folder").
    ///
    /// # Errors
    /// [`OutDirError::Link`] when `path` itself is a symbolic link, [`OutDirError::Create`] when it cannot be
    /// created or opened (not a folder, no permission).
    pub fn open(path: &Path, what: &'static str) -> Result<OutDir, OutDirError> {
        // Without a trailing `/` or `/.`, which would make the kernel follow a link named by the last part.
        let path: &Path = &path.components().collect::<PathBuf>();
        let create = |source| OutDirError::Create {
            what,
            path: path.to_path_buf(),
            source,
        };
        // Before anything is made: no folder among the device nodes or the kernel's pseudo files.
        if let Some(on) = crate::target::not_storage(path) {
            return Err(OutDirError::NotStorage {
                what,
                path: path.to_path_buf(),
                on,
            });
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(create)?;
        }
        let created = match std::fs::create_dir(path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(create(e)),
        };
        let dir = Dir::open(path).map_err(|e| {
            match std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) {
                true => OutDirError::Link {
                    what,
                    path: path.to_path_buf(),
                },
                false => create(e),
            }
        })?;
        Ok(OutDir {
            inner: Arc::new(Inner {
                dir,
                path: path.to_path_buf(),
                created,
            }),
        })
    }

    /// Opens a run's output folder ([`OutDir::open`]) and locks it for as long as this value (or a clone)
    /// lives; refuses a folder another run holds, one that already holds `results.json`, and one where a
    /// file cannot be made (tried with a temporary file, removed at once).
    ///
    /// # Errors
    /// [`OutDirError`]; when refused, the folder is left as it was.
    pub fn for_run(path: &Path) -> Result<OutDir, OutDirError> {
        let out = OutDir::open(path, "output folder")?;
        let create = |source| OutDirError::Create {
            what: "output folder",
            path: path.to_path_buf(),
            source,
        };
        if !out.inner.dir.try_lock().map_err(create)? {
            return Err(OutDirError::InUse {
                path: path.to_path_buf(),
                pid: lock_holder(&out.inner.dir),
            });
        }
        if out.inner.dir.exists("results.json").map_err(create)? {
            return Err(OutDirError::HasResults {
                path: path.to_path_buf(),
            });
        }
        // Nothing is written among a user's own files (`-o /`, `-o .` in a home folder).
        let others = match out.inner.created {
            true => Vec::new(),
            false => not_wkruns(path).map_err(create)?,
        };
        if !others.is_empty() {
            return Err(OutDirError::NotEmpty {
                path: path.to_path_buf(),
                others,
            });
        }
        // An append-only folder (`chattr +a`) lets a file be made but not removed or renamed over: the run
        // could not replace results.json. Told by its flags, before a file is made that could not go again.
        let protection = crate::sys::file::write_protection(&out.inner.dir);
        let said = match protection {
            Ok((true, _)) => Some(
                "the folder is immutable (chattr +i): no file can be made in it; chattr -i to write it",
            ),
            Ok((false, true)) => Some(
                "the folder is append-only (chattr +a): results.json could not be replaced in it",
            ),
            _ => None,
        };
        if let Some(why) = said {
            return Err(OutDirError::NotWritable {
                path: path.to_path_buf(),
                source: io::Error::new(io::ErrorKind::PermissionDenied, why),
            });
        }
        // A file is made (and removed) as the run will make its own: an existing folder this user may not
        // write, or an immutable one, is refused here, before the target is created.
        // A file system with no room for the results is refused too (a full disk once left an empty folder
        // and exit 1 at the first write of results.json).
        let made = out.temp("results.json").and_then(|(tmp, f)| {
            let free = crate::sys::file::free_bytes(&f);
            drop(f);
            // A folder where a file can be made but not removed or replaced (append-only, `chattr +a`):
            // the run could not replace results.json either.
            out.inner.dir.remove(&tmp)?;
            if let Some(limit) = crate::sys::limits::Limit::FileSize.soft().filter(|&l| l < MIN_FILE) {
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!(
                        "{} is {limit} B, less than the {MIN_FILE} B a run's results.json may need",
                        crate::sys::limits::Limit::FileSize.name()
                    ),
                ));
            }
            match free {
                Ok(n) if n < MIN_ROOM => Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    format!("its file system has {n} B free, less than the {MIN_ROOM} B a run's results need at least"),
                )),
                _ => Ok(()),
            }
        });
        if let Err(source) = made {
            out.discard();
            return Err(OutDirError::NotWritable {
                path: path.to_path_buf(),
                source,
            });
        }
        Ok(out)
    }

    /// Refuses a run whose target files, still to be created (each a folder it goes in and the bytes it
    /// takes, allocated), would leave this folder's file system with less than [`MIN_ROOM`] free for the
    /// results: those on the same file system count. Checked before any target is made (one once was made
    /// first, and the run then failed writing `results.json`, exit 1).
    ///
    /// # Errors
    /// [`OutDirError::NoRoomBeside`], naming the room there is and what the targets take.
    pub fn room_beside(&self, targets: &[(&Path, u64)]) -> Result<(), OutDirError> {
        use std::os::unix::fs::MetadataExt;
        let dev = |p: &Path| {
            let p = if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            };
            std::fs::metadata(p).ok().map(|m| m.dev())
        };
        let Some(here) = dev(self.path()) else {
            return Ok(());
        };
        let here: Vec<u64> = targets
            .iter()
            .filter(|(d, _)| dev(d) == Some(here))
            .map(|(_, b)| *b)
            .collect();
        let bytes = here.iter().fold(0u64, |a, b| a.saturating_add(*b));
        let free = crate::sys::file::free_bytes(&self.inner.dir).unwrap_or(u64::MAX);
        if bytes == 0 || free >= bytes.saturating_add(MIN_ROOM) {
            return Ok(());
        }
        Err(OutDirError::NoRoomBeside {
            path: self.path().to_path_buf(),
            free,
            files: here.len(),
            bytes,
        })
    }

    /// Bytes free in the folder's file system (`u64::MAX` where it keeps no count); `None` when unknown.
    pub fn free_bytes(&self) -> Option<u64> {
        crate::sys::file::free_bytes(&self.inner.dir).ok()
    }

    /// The folder as given.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The path of `name` in the folder (for messages; files are opened through the descriptor).
    pub fn join(&self, name: &str) -> PathBuf {
        self.inner.path.join(name)
    }

    /// The name of the file that `path` names in this folder when it is one a run writes there
    /// ([`is_run_file`]: its `results.json`, reserve and temporary files, its series CSVs), or `None`. The
    /// folders are compared by device and inode (whatever path names them); a path whose folder does not
    /// exist is in no folder.
    pub fn run_file_named(&self, path: &Path) -> Option<String> {
        use std::os::unix::fs::MetadataExt;
        let name = path.file_name()?.to_str()?;
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        let m = std::fs::metadata(parent.unwrap_or(Path::new("."))).ok()?;
        let here = self.inner.dir.id().ok()?;
        ((m.dev(), m.ino()) == here && is_run_file(name)).then(|| name.to_string())
    }

    /// Whether `path` names this folder itself (compared by device and inode).
    pub fn is(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let here = self.inner.dir.id().ok();
        std::fs::metadata(path).is_ok_and(|m| Some((m.dev(), m.ino())) == here)
    }

    /// Where the folder is now when its path no longer names it (moved, or replaced by another folder or a
    /// link, while a run wrote into it through its descriptor): `Some(Some(path))`, its path now (checked to
    /// name it), `Some(None)` when it was removed or cannot be found; `None` while its path names it.
    pub fn moved_to(&self) -> Option<Option<PathBuf>> {
        if self.is(&self.inner.path) {
            return None;
        }
        Some(self.inner.dir.current_path().filter(|p| self.is(p)))
    }

    /// The same folder (its descriptor shared, with its lock) named by `path`, the path it has now: see
    /// [`OutDir::moved_to`]. Never removed by [`OutDir::discard`].
    ///
    /// # Errors
    /// The OS error of duplicating the descriptor.
    pub fn relocated(&self, path: PathBuf) -> io::Result<OutDir> {
        Ok(OutDir {
            inner: Arc::new(Inner {
                dir: self.inner.dir.try_clone()?,
                path,
                created: false,
            }),
        })
    }

    /// Removes the folder if [`OutDir::open`] created it and it is still empty (a run refused after its
    /// folder was made): whether it was removed (never a folder that was there before).
    pub fn discard(self) -> bool {
        self.inner.created && std::fs::remove_dir(&self.inner.path).is_ok()
    }

    /// Whether [`OutDir::open`] made the folder (it was not there before).
    pub fn made(&self) -> bool {
        self.inner.created
    }

    /// Creates the file `name` for writing, empty. A file or symbolic link of that name is removed first
    /// (never opened, so never followed); if one appears again before the file is made, the creation fails
    /// with `EEXIST`.
    ///
    /// # Errors
    /// The OS error (`EISDIR` when `name` is a folder).
    pub fn create(&self, name: &str) -> io::Result<File> {
        match self.inner.dir.remove(name) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
            Err(e) => return Err(e),
        }
        self.inner.dir.create_new(name)
    }

    /// Removes the file `name` from the folder (never what a link of that name points to).
    ///
    /// # Errors
    /// The OS error (`ENOENT` when there is none).
    pub fn remove(&self, name: &str) -> io::Result<()> {
        self.inner.dir.remove(name)
    }

    /// Replaces the file `name` with `bytes` atomically: written to a new temporary file
    /// (`<name>.<pid>.<n>.tmp`, created exclusively), synced when `durable` (and then the folder too), and
    /// renamed over `name` (a link named `name` is replaced, not followed). A reader sees the old file or
    /// the new one, never a part; on any error the temporary file is removed.
    ///
    /// # Errors
    /// The OS error (`ENOSPC` on a full disk).
    pub fn replace(&self, name: &str, bytes: &[u8], durable: bool) -> io::Result<()> {
        self.replace_through(name, durable, |f| f.write_all(bytes))
    }

    /// [`OutDir::replace`] with the bytes `write` writes, in pieces, to the temporary file (through a
    /// buffer): a file made a part at a time (`index.html`) is never held whole in memory.
    ///
    /// # Errors
    /// `write`'s error, or the OS error.
    pub fn replace_with(
        &self,
        name: &str,
        durable: bool,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        self.replace_through(name, durable, |f| {
            let mut w = io::BufWriter::with_capacity(64 << 10, f);
            write(&mut w)?;
            w.flush()
        })
    }

    /// [`OutDir::replace`] of what `write` writes into the temporary file.
    fn replace_through(
        &self,
        name: &str,
        durable: bool,
        write: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> io::Result<()> {
        let (tmp, mut f) = self.temp(name)?;
        let r = write(&mut f)
            .and_then(|()| if durable { f.sync_all() } else { Ok(()) })
            .and_then(|()| self.inner.dir.rename(&tmp, name));
        drop(f);
        if let Err(e) = r {
            let _ = self.inner.dir.remove(&tmp);
            return Err(e);
        }
        if durable {
            let _ = self.inner.dir.sync();
        }
        Ok(())
    }

    /// Creates the file `name` ([`OutDir::create`]) as a [`Reserve`] of room in the folder's file system,
    /// empty until grown.
    ///
    /// # Errors
    /// As [`OutDir::create`].
    pub fn reserve(&self, name: &str) -> io::Result<Reserve> {
        let file = self.create(name)?;
        Ok(Reserve {
            dir: self.clone(),
            name: name.to_string(),
            file: Some(file),
            len: 0,
        })
    }

    /// A new temporary file for `name`: a name nothing in the folder has.
    fn temp(&self, name: &str) -> io::Result<(String, File)> {
        let pid = std::process::id();
        let mut tries = 0;
        loop {
            let n = TEMP.fetch_add(1, Ordering::Relaxed);
            let tmp = format!("{name}.{pid}.{n}.tmp");
            match self.inner.dir.create_new(&tmp) {
                Ok(f) => return Ok((tmp, f)),
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) && tries < 100 => tries += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

/// Room kept in a folder's file system: a file whose blocks are allocated ([`Reserve::grow`]) and given back
/// by removing it ([`Reserve::release`]), so that a last write can be made when the disk is full.
#[derive(Debug)]
pub struct Reserve {
    dir: OutDir,
    name: String,
    file: Option<File>,
    len: u64,
}

impl Reserve {
    /// Bytes held.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Holds at least `len` bytes: allocated ahead (fallocate) or, where the file system cannot, written
    /// (bytes that do not compress, so that a compressing file system stores them in full). A reserve
    /// already that large, or released, is left as it is.
    ///
    /// # Errors
    /// The OS error (`ENOSPC`): the reserve keeps what it held before.
    pub fn grow(&mut self, len: u64) -> io::Result<()> {
        let Some(f) = &self.file else { return Ok(()) };
        if len <= self.len {
            return Ok(());
        }
        match crate::sys::dir::allocate(f, len) {
            Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {
                write_incompressible(f, self.len, len).inspect_err(|_| {
                    let _ = f.set_len(self.len);
                })?
            }
            r => r?,
        }
        self.len = len;
        Ok(())
    }

    /// Gives the room back: the file is closed and removed. Later calls do nothing.
    pub fn release(&mut self) {
        if self.file.take().is_some() {
            let _ = self.dir.inner.dir.remove(&self.name);
            self.len = 0;
        }
    }
}

impl Drop for Reserve {
    fn drop(&mut self) {
        self.release();
    }
}

/// Writes bytes from `from` to `to` in `f`: a xorshift sequence, which does not compress.
fn write_incompressible(f: &File, from: u64, to: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ from;
    let mut buf = vec![0u8; 64 << 10];
    let mut at = from;
    while at < to {
        for c in buf.chunks_exact_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c.copy_from_slice(&x.to_le_bytes());
        }
        let n = usize::try_from(to - at).map_or(buf.len(), |n| n.min(buf.len()));
        f.write_all_at(&buf[..n], at)?;
        at += n as u64;
    }
    Ok(())
}

/// Whether a run still writes into the folder `path`: a run holds its output folder's lock exclusively
/// until it ends ([`OutDir::for_run`]), so a shared lock that cannot be taken is a live run's. `Ok(None)`:
/// no run holds it (the shared lock was taken, and released at once); `Ok(Some(pid))`: a run does, by its
/// pid when /proc/locks tells.
///
/// # Errors
/// The folder cannot be opened, or flock(2) fails otherwise (a file system without it): whether a run
/// still writes into it cannot be told.
pub fn live_run(path: &Path) -> io::Result<Option<Option<u32>>> {
    let dir = Dir::open(&std::fs::canonicalize(path)?)?;
    Ok((!dir.try_lock_shared()?).then(|| lock_holder(&dir)))
}

/// The process holding an flock on `dir` (another than this one), from /proc/locks.
fn lock_holder(dir: &Dir) -> Option<u32> {
    let (dev, ino) = dir.id().ok()?;
    crate::sys::file::flock_holder(dev, ino)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_on_a_folder_is_refused_with_the_holder() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a/b");
        let first = OutDir::for_run(&p).unwrap();
        match OutDir::for_run(&p) {
            Err(OutDirError::InUse { pid, .. }) => {
                // This process holds the lock; it is not named as "another" run.
                assert_eq!(pid, None);
            }
            other => panic!("{other:?}"),
        }
        drop(first);
        let again = OutDir::for_run(&p).unwrap();
        again.replace("results.json", b"{}\n", true).unwrap();
        drop(again);
        assert!(matches!(
            OutDir::for_run(&p),
            Err(OutDirError::HasResults { .. })
        ));
    }

    #[test]
    fn replace_and_create_do_not_follow_links() {
        let t = tempfile::tempdir().unwrap();
        let victim = t.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let d = t.path().join("out");
        std::fs::create_dir(&d).unwrap();
        for name in ["index.html", "00-w.csv", "results.json.tmp"] {
            std::os::unix::fs::symlink(&victim, d.join(name)).unwrap();
        }
        let out = OutDir::open(&d, "report folder").unwrap();
        out.replace("index.html", b"new", false).unwrap();
        out.create("00-w.csv").unwrap().write_all(b"csv").unwrap();
        out.replace("results.json", b"{}", true).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            std::fs::read_to_string(d.join("index.html")).unwrap(),
            "new"
        );
        assert_eq!(std::fs::read_to_string(d.join("00-w.csv")).unwrap(), "csv");
        let mut names: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["00-w.csv", "index.html", "results.json", "results.json.tmp"]
        );
    }

    #[test]
    fn a_linked_folder_is_refused() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("real")).unwrap();
        std::os::unix::fs::symlink(t.path().join("real"), t.path().join("link")).unwrap();
        for given in ["link", "link/", "link/.", "link//"] {
            assert!(
                matches!(
                    OutDir::open(&t.path().join(given), "report folder"),
                    Err(OutDirError::Link { .. })
                ),
                "{given}"
            );
        }
    }
}
