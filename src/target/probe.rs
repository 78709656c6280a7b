//! Reading a target's geometry without writing to it.

use super::reopen::{Reopen, open_probed};
use super::safety::{LOOP_DEPTH, disk_of, loop_backing, parse_dev};
use super::{CachedLoop, Identity, TargetInfo, TargetKind};
use crate::sys;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why a target cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The path exists but is neither a regular file nor a block device.
    #[error("{0}: not a regular file or a block device")]
    NotFileOrDevice(PathBuf),
    /// A syscall failed while probing.
    #[error("cannot {what} {path}: {source}{}", sys::limits::errno_note(source))]
    Io {
        /// The target.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The OS error.
        source: io::Error,
    },
    /// The folder of a file to create cannot be found (wkrun creates the file, not its folder).
    #[error(
        "cannot create the target file {}: its folder {}: {source}; wkrun creates a missing target file but not its folder: create the folder, or name another target with --target PATH; nothing was created",
        path.display(),
        folder.display()
    )]
    NoFolder {
        /// The target.
        path: PathBuf,
        /// The folder it would be created in.
        folder: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The file to create would be empty.
    #[error("{0}: a file target must be larger than 0 bytes (--target-size or [target].size)")]
    ZeroSize(PathBuf),
    /// The target has no capacity.
    #[error("{0}: the target is empty (0 bytes)")]
    Empty(PathBuf),
    /// A loop device with no file attached (its capacity is 0).
    #[error(
        "{0}: the target is empty (0 bytes): a loop device with no file attached; attach a file: losetup --direct-io=on -f --show FILE (it prints the loop device to name)"
    )]
    EmptyLoop(PathBuf),
    /// The path is a symbolic link to nothing: wkrun does not create a target through a link.
    #[error(
        "{0} is a symbolic link to {1}, which does not exist; wkrun does not create a target through a link: create the file first, or name it without the link"
    )]
    DanglingLink(PathBuf, PathBuf),
    /// The path named something else when it was opened than when it was looked up (replaced meanwhile).
    #[error("{0} changed while it was being probed (it was replaced); nothing was written to it")]
    Changed(PathBuf),
    /// The path is (or would be created) on one of the kernel's pseudo file systems (sysfs, procfs, ...).
    #[error(
        "{path} is on {fs}, a pseudo file system of the kernel: its files are the kernel's settings and state, not storage, so it cannot be a target; nothing was written to it"
    )]
    PseudoFs {
        /// The target.
        path: PathBuf,
        /// The file system's name (`sysfs`, `procfs`, ...).
        fs: &'static str,
    },
    /// A path in /dev that does not exist: a device name typed wrong, not a file to create among the nodes.
    #[error(
        "{} does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); {}; nothing was created",
        path.display(),
        match closest {
            Some(c) => format!("the closest block device is {} (lsblk lists them)", c.display()),
            None => "no block device in /dev has a name close to it (lsblk lists them)".to_string(),
        }
    )]
    NoSuchDevice {
        /// The target.
        path: PathBuf,
        /// The existing block device whose name is closest to the one given, when it is close (at most one
        /// edit in three characters).
        closest: Option<PathBuf>,
    },
    /// The file to create is larger than the process may make (RLIMIT_FSIZE).
    #[error(
        "{}: cannot create a file of {size} B ({}): {} is {limit} B; give a smaller --target-size (or [target] size) or raise the limit; nothing was created",
        path.display(),
        crate::units::fmt_bytes(*size),
        sys::limits::Limit::FileSize.name()
    )]
    OverFileSizeLimit {
        /// The target.
        path: PathBuf,
        /// The size it would be created with.
        size: u64,
        /// The limit, bytes.
        limit: u64,
    },
    /// The file to create is larger than any file can be (2^63 - 1 B, the largest file offset): bad input.
    #[error(
        "{}: cannot create a file of {size} B ({}): no file can be larger than {} B (2^63 - 1); give a smaller --target-size (or [target] size); nothing was created",
        path.display(),
        crate::units::fmt_bytes(*size),
        i64::MAX
    )]
    TooLarge {
        /// The target.
        path: PathBuf,
        /// The size it would be created with.
        size: u64,
    },
    /// The file to create does not fit on its file system (the run would preallocate it).
    #[error(
        "{}: cannot create a file of {size} B ({}): the file system it would be on has {free} B free; give a smaller --target-size (or [target] size) or a folder on a file system with room; nothing was created",
        path.display(),
        crate::units::fmt_bytes(*size)
    )]
    NoRoom {
        /// The target.
        path: PathBuf,
        /// The size it would be created with.
        size: u64,
        /// Bytes free for it.
        free: u64,
    },
}

impl ProbeError {
    /// The exit status of a command this refusal stops: 1 for a resource limit (the file-size limit, a file
    /// system without room for the file to create, a probe that ran out of open files or memory), else 2
    /// (bad input).
    pub fn exit_code(&self) -> u8 {
        match self {
            ProbeError::OverFileSizeLimit { .. } | ProbeError::NoRoom { .. } => 1,
            ProbeError::Io { source, .. } if sys::limits::is_resource_limit(source) => 1,
            _ => 2,
        }
    }
}

fn io_err<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(io::Error) -> ProbeError + 'a {
    move |source| ProbeError::Io {
        path: path.to_path_buf(),
        what,
        source,
    }
}

/// Probes `path`. When it does not exist, describes the sparse file of `create_size` bytes wkrun would
/// create (`created = true`), with the block size of the filesystem it would live on.
///
/// # Errors
/// [`ProbeError`] when the path is of another type, cannot be opened for reading, or is empty.
pub fn probe(path: &Path, create_size: u64) -> Result<TargetInfo, ProbeError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return prospective(path, create_size),
        Err(e) => return Err(io_err(path, "stat")(e)),
    };
    let ft = meta.file_type();
    if ft.is_block_device() {
        return probe_block(path, &meta);
    }
    if !ft.is_file() {
        return Err(ProbeError::NotFileOrDevice(path.to_path_buf()));
    }
    // Before the size: a /proc file says it is empty.
    not_pseudo(path, path)?;
    if meta.len() == 0 {
        return Err(ProbeError::Empty(path.to_path_buf()));
    }
    let (f, identity) = open_same(path, &meta)?;
    let lbs = match sys::file::dio_alignment(&f) {
        Ok(Some((_, off))) if off > 0 => off,
        _ => fs_device_lbs(meta.dev()).unwrap_or(512),
    };
    let memory_fs = sys::file::memory_fs(path).ok().flatten();
    Ok(TargetInfo {
        identity: Some(identity),
        page_cached_loop: cached_loop(meta.dev()),
        queue_depth_max: fs_queue_depth_max(meta.dev()),
        memory_fs,
        no_direct: no_direct(path, identity, memory_fs),
        write_cache: Some(file_write_cache()),
        ..TargetInfo::new(
            path,
            TargetKind::File,
            meta.len(),
            lbs,
            (meta.blksize() as u32).max(lbs),
        )
    })
}

/// Why the existing file `path` (probed as `identity`, on `memory_fs`, if any) cannot be opened with
/// O_DIRECT, or `None` when it can. The open is for reading only and does nothing to the file.
fn no_direct(path: &Path, identity: Identity, memory_fs: Option<&str>) -> Option<String> {
    let e = match open_probed(path, identity, false, libc::O_DIRECT) {
        Err(Reopen::Failed(e)) if e.raw_os_error() == Some(libc::EINVAL) => e,
        // Another file now: the hold of the run finds it changed.
        _ => return None,
    };
    let on = match memory_fs {
        Some(fs) => format!("it is on {fs}, which has no direct I/O: "),
        None => String::new(),
    };
    Some(format!(
        "{on}opening it with O_DIRECT fails ({})",
        sys::os_text(&e)
    ))
}

/// The queue limit ([`queue_depth_max`]) of the block device holding a file system (`st_dev`): the whole
/// disk's for a partition; `None` for a file system on no block device (tmpfs, NFS).
fn fs_queue_depth_max(dev: u64) -> Option<u32> {
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ));
    let disk = fs::canonicalize(disk_of(dev).unwrap_or(sys)).ok()?;
    queue_depth_max(&disk)
}

/// Opens `path` for reading and checks that the open file is what `meta` (the path looked up just before)
/// described: its identity is that of everything the probe reads from the open file.
fn open_same(path: &Path, meta: &fs::Metadata) -> Result<(File, Identity), ProbeError> {
    let expected = Identity::of(meta).ok_or_else(|| ProbeError::Changed(path.to_path_buf()))?;
    match open_probed(path, expected, false, 0) {
        Ok(f) => Ok((f, expected)),
        Err(Reopen::Changed(_)) => Err(ProbeError::Changed(path.to_path_buf())),
        Err(Reopen::Failed(e)) => Err(io_err(path, "open")(e)),
    }
}

fn prospective(path: &Path, size: u64) -> Result<TargetInfo, ProbeError> {
    if let Ok(to) = fs::read_link(path) {
        return Err(ProbeError::DanglingLink(path.to_path_buf(), to));
    }
    if size == 0 {
        return Err(ProbeError::ZeroSize(path.to_path_buf()));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if in_dev(path) {
        return Err(ProbeError::NoSuchDevice {
            path: path.to_path_buf(),
            closest: closest_device(&absolute(path)),
        });
    }
    let pmeta = fs::metadata(&parent).map_err(|source| ProbeError::NoFolder {
        path: path.to_path_buf(),
        folder: parent.clone(),
        source,
    })?;
    not_pseudo(path, &parent)?;
    if size > i64::MAX as u64 {
        return Err(ProbeError::TooLarge {
            path: path.to_path_buf(),
            size,
        });
    }
    if let Some(limit) = sys::limits::Limit::FileSize.soft()
        && size > limit
    {
        return Err(ProbeError::OverFileSizeLimit {
            path: path.to_path_buf(),
            size,
            limit,
        });
    }
    // The run preallocates the file: one that cannot fit is refused now, before anything is made.
    let free = fs::File::open(&parent)
        .and_then(|d| sys::file::free_bytes(&d))
        .unwrap_or(u64::MAX);
    if size > free {
        return Err(ProbeError::NoRoom {
            path: path.to_path_buf(),
            size,
            free,
        });
    }
    let lbs = fs_device_lbs(pmeta.dev()).unwrap_or(512);
    let pbs = (pmeta.blksize() as u32).max(lbs);
    let memory_fs = sys::file::memory_fs(&parent).ok().flatten();
    Ok(TargetInfo {
        created: true,
        page_cached_loop: cached_loop(pmeta.dev()),
        queue_depth_max: fs_queue_depth_max(pmeta.dev()),
        memory_fs,
        no_direct: (memory_fs == Some("ramfs")).then(|| {
            format!(
                "{} is on ramfs, which has no direct I/O (O_DIRECT)",
                parent.display()
            )
        }),
        write_cache: Some(file_write_cache()),
        ..TargetInfo::new(path, TargetKind::File, size, lbs, pbs)
    })
}

/// Refuses `target` when `on` (the target, or the folder it would be made in) lies on a pseudo file system.
fn not_pseudo(target: &Path, on: &Path) -> Result<(), ProbeError> {
    match sys::file::pseudo_fs(on) {
        Ok(Some(fs)) => Err(ProbeError::PseudoFs {
            path: target.to_path_buf(),
            fs,
        }),
        Ok(None) => Ok(()),
        Err(e) => Err(io_err(target, "find the file system of")(e)),
    }
}

/// Why a folder at `path` (existing or to be made) would not be on storage: the pseudo file system its
/// nearest existing folder is on (`"sysfs"`, `"procfs"`, ...), or `"/dev's device nodes"` for `/dev`'s own
/// file system; `None` for storage. For an output folder (`-o /dev/x` was made among the device nodes).
pub fn not_storage(path: &Path) -> Option<&'static str> {
    if in_dev(&path.join("x")) {
        return Some("/dev's device nodes");
    }
    let existing = path
        .ancestors()
        .map(|a| match a.as_os_str().is_empty() {
            true => Path::new("."),
            false => a,
        })
        .find(|a| a.exists())?;
    sys::file::pseudo_fs(existing).ok().flatten()
}

/// Whether `path` (which does not exist) would be made among the device nodes: its nearest existing folder
/// is `/dev` or under it, on the file system of `/dev` itself (so not `/dev/shm`, a file system of its own).
fn in_dev(path: &Path) -> bool {
    let dev = Path::new("/dev");
    let Some(folder) = path
        .ancestors()
        .skip(1)
        .map(|a| {
            if a.as_os_str().is_empty() {
                Path::new(".")
            } else {
                a
            }
        })
        .find_map(|a| fs::canonicalize(a).ok())
    else {
        return false;
    };
    let same_fs = match (fs::metadata(&folder), fs::metadata(dev)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => false,
    };
    // /dev's own file system (a devtmpfs) seen through another path (a bind mount of /dev in a chroot or a
    // container, a second devtmpfs mount) is /dev all the same; where /dev is no file system of its own, only
    // paths under it are.
    let own = match (fs::metadata(dev), fs::metadata("/")) {
        (Ok(d), Ok(r)) => d.dev() != r.dev(),
        _ => false,
    };
    same_fs && (folder.starts_with(dev) || own)
}

/// `path` with its folder's links and `..` resolved (as far as the folder exists).
fn absolute(path: &Path) -> PathBuf {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    match (
        fs::canonicalize(folder.unwrap_or(Path::new("."))),
        path.file_name(),
    ) {
        (Ok(f), Some(name)) => f.join(name),
        _ => path.to_path_buf(),
    }
}

/// The block device in `/dev` (or in the folder of `path`, such as `/dev/mapper`) whose name is closest to
/// `path`'s (an absolute path), by edit distance of the file names, folders left out (ties: the first by name), of
/// those with a size above 0 (an unattached loop device, 0 B, is not suggested), when it is close ([`near`]).
fn closest_device(path: &Path) -> Option<PathBuf> {
    let dev = Path::new("/dev");
    // Names compared without their folder: `/dev/mapper/slow` is not one edit in three from
    // `/dev/mapper/lin` (3 edits in 11 characters with `mapper/`, 3 in 4 without).
    let base = |p: &Path| {
        p.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    let wanted = base(path);
    let mut folders = vec![dev.to_path_buf()];
    if let Some(parent) = path.parent()
        && parent != dev
        && parent.starts_with(dev)
    {
        folders.push(parent.to_path_buf());
    }
    folders
        .iter()
        .filter_map(|f| fs::read_dir(f).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .filter(|p| fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device() && has_size(&m)))
        .filter(|p| !another_of_its_kind(&wanted, &base(p)))
        .map(|p| (strsim::damerau_levenshtein(&wanted, &base(&p)), p))
        .filter(|(d, _)| near(&wanted, *d))
        .min()
        .map(|(_, p)| p)
}

/// Whether a device name `distance` edits from `wanted` is close enough to suggest for it: at most one edit
/// in three characters of `wanted` (one for a name of up to 5, two for `nvme0n9`). `/dev/nvme0n9`, typed on
/// a host without NVMe, was told "the closest block device is /dev/loop0p1", 6 edits away: an unrelated
/// device.
fn near(wanted: &str, distance: usize) -> bool {
    distance <= (wanted.chars().count() / 3).max(1)
}

/// Whether `name` is another device of the kind `wanted` names, told apart only by its index: its digits
/// (`loop4` for `loop0`, `nvme0n1` for `nvme0n9`) or, for `sd`, `vd`, `hd` and `xvd` disks, the letters
/// after them (`sdb` for `sdc`). Such a name is not a typo's fix but someone else's device (trial 13 F4:
/// `/dev/loop0`, absent, was told "the closest block device is /dev/loop4", another user's loop device).
fn another_of_its_kind(wanted: &str, name: &str) -> bool {
    // Each index (a run of digits; a lettered disk's letters) as `#`.
    let kind = |s: &str| -> String {
        let lettered = ["xvd", "sd", "vd", "hd"]
            .iter()
            .find_map(|p| s.strip_prefix(p).map(|rest| (*p, rest)));
        let (head, rest) = match lettered {
            Some((p, rest)) => {
                let letters = rest.len()
                    - rest
                        .trim_start_matches(|c: char| c.is_ascii_lowercase())
                        .len();
                (format!("{p}#"), &rest[letters..])
            }
            None => (String::new(), s),
        };
        let mut out = head;
        for c in rest.chars() {
            match c.is_ascii_digit() {
                true if out.ends_with('#') => {}
                true => out.push('#'),
                false => out.push(c),
            }
        }
        out
    };
    wanted != name && kind(wanted) == kind(name)
}

/// Whether the block device of `m` holds any sectors (sysfs `size` above 0): an unattached loop device or an
/// empty drive bay is no device to suggest. True when sysfs does not say.
fn has_size(m: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (maj, min) = (libc::major(m.rdev()), libc::minor(m.rdev()));
    read_sys(Path::new(&format!("/sys/dev/block/{maj}:{min}/size")))
        .and_then(|s| s.parse::<u64>().ok())
        .is_none_or(|sectors| sectors > 0)
}

/// Logical block size of the block device holding a filesystem (`st_dev`), from sysfs.
fn fs_device_lbs(dev: u64) -> Option<u32> {
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let base = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    for q in [
        base.join("queue/logical_block_size"),
        base.join("../queue/logical_block_size"),
    ] {
        if let Some(v) = read_sys(&q).and_then(|s| s.parse().ok())
            && v > 0
        {
            return Some(v);
        }
    }
    None
}

fn read_sys(p: &Path) -> Option<String> {
    fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Major number of the loop devices (Linux's `LOOP_MAJOR`).
const LOOP_MAJOR: u32 = 7;

/// The error of a block device of 0 bytes, device number `rdev`: a loop device's says how to attach a file.
fn empty_device(path: &Path, rdev: u64) -> ProbeError {
    match libc::major(rdev) {
        LOOP_MAJOR => ProbeError::EmptyLoop(path.to_path_buf()),
        _ => ProbeError::Empty(path.to_path_buf()),
    }
}

fn probe_block(path: &Path, meta: &fs::Metadata) -> Result<TargetInfo, ProbeError> {
    let (f, identity) = open_same(path, meta)?;
    let capacity =
        sys::block::size_bytes(&f).map_err(io_err(path, "read the capacity (BLKGETSIZE64) of"))?;
    if capacity == 0 {
        return Err(empty_device(path, meta.rdev()));
    }
    let lbs = sys::block::logical_block_size(&f)
        .map_err(io_err(path, "read the logical block size (BLKSSZGET) of"))?
        .max(512);
    let pbs = sys::block::physical_block_size(&f)
        .map_err(io_err(path, "read the physical block size (BLKPBSZGET) of"))?;
    let rdev = meta.rdev();
    let sysdir = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    // A partition's queue and device attributes are those of its parent disk.
    let partition = sysdir.join("partition").exists();
    let disk = if partition { sysdir.join("..") } else { sysdir };
    let attr = |name: &str| read_sys(&disk.join("device").join(name));
    // A partition answers the namespace-id ioctl too, but formatting would erase the whole namespace.
    let nvme_namespace = if partition {
        None
    } else {
        sys::nvme::namespace_id(&f).ok()
    };
    Ok(TargetInfo {
        model: attr("model"),
        serial: attr("serial"),
        firmware: attr("firmware_rev").or_else(|| attr("rev")),
        discard_max_bytes: read_sys(&disk.join("queue/discard_max_bytes"))
            .and_then(|s| s.parse().ok()),
        queue_depth_max: queue_depth_max(&disk),
        page_cached_loop: cached_loop(rdev),
        file_backed_loop: file_loop(rdev),
        nvme_namespace,
        nvme: nvme_namespace.and_then(|_| nvme_identity(&f)),
        zoned: zoned(&disk, lbs),
        io_poll: read_sys(&disk.join("queue/io_poll")).and_then(|v| match v.as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        }),
        write_cache: Some(write_cache(path, &f, &disk, nvme_namespace.is_some())),
        identity: Some(identity),
        ..TargetInfo::new(path, TargetKind::Block, capacity, lbs, pbs)
    })
}

/// What Identify Namespace says of the namespace open as `f`; `None` when the command is refused (without
/// CAP_SYS_ADMIN) or fails.
fn nvme_identity(f: &File) -> Option<super::NvmeNamespace> {
    let id = sys::nvme::identify_namespace(f).ok()?;
    Some(super::NvmeNamespace {
        size_blocks: id.size_blocks,
        capacity_blocks: id.capacity_blocks,
        utilization_blocks: id.utilization_blocks,
        lba_format: id.format.lbaf,
        lba_formats: id
            .lba_formats
            .iter()
            .map(|l| super::LbaFormat {
                data_bytes: l.data_bytes,
                metadata_bytes: l.metadata_bytes,
                relative_performance: l.relative_performance,
            })
            .collect(),
    })
}

/// A file's write cache: not the file's to read or set.
fn file_write_cache() -> super::WriteCache {
    super::WriteCache {
        state: None,
        read_from: None,
        kernel: None,
        settable: false,
        control: None,
        unavailable: Some(
            "a regular file has no write cache of its own: the volatile write cache of the device under its file system is not read or set through a file".into(),
        ),
        run: None,
    }
}

/// The volatile write cache of the block device open as `f` (its disk's sysfs folder `disk`): on an NVMe
/// namespace (`nvme`), the controller's (Identify Controller, Get Features), settable; otherwise the kernel's
/// view from sysfs `queue/write_cache`, which wkrun does not set.
fn write_cache(path: &Path, f: &File, disk: &Path, nvme: bool) -> super::WriteCache {
    use crate::vocab::CacheState;
    let kernel = read_sys(&disk.join("queue/write_cache"));
    let from_kernel = kernel.as_deref().and_then(|k| match k {
        "write back" => Some(CacheState::On),
        "write through" => Some(CacheState::Off),
        _ => None,
    });
    let by_kernel = |why: String| super::WriteCache {
        state: from_kernel,
        read_from: from_kernel.map(|_| super::CacheSource::Sysfs),
        kernel: kernel.clone(),
        settable: false,
        control: None,
        unavailable: Some(why),
        run: None,
    };
    let dev = path.display();
    if !nvme {
        if let Some(w) = scsi_write_cache(disk, kernel.clone()) {
            return w;
        }
        return by_kernel(format!(
            "{dev} is neither an NVMe namespace nor a SCSI or SATA disk (sysfs has no device/scsi_disk for it): wkrun sets an NVMe controller's volatile write cache (Set Features) or a SCSI or SATA disk's (scsi_disk cache_type, sent to the disk as MODE SELECT); sysfs queue/write_cache, which it reads, says only whether the kernel sends the device cache flushes, and writing it leaves the device's cache as it is"
        ));
    }
    let present = match sys::nvme::volatile_write_cache_present(f) {
        Ok(p) => p,
        Err(e) => {
            return by_kernel(format!(
                "the NVMe controller of {dev} did not answer Identify Controller ({}; it needs root)",
                sys::os_text(&e)
            ));
        }
    };
    if !present {
        return super::WriteCache {
            state: None,
            ..by_kernel(format!(
                "the NVMe controller of {dev} has no volatile write cache (Identify Controller VWC bit 0 is 0)"
            ))
        };
    }
    match sys::nvme::volatile_write_cache(f) {
        Ok(on) => super::WriteCache {
            state: Some(CacheState::from_enabled(on)),
            read_from: Some(super::CacheSource::Nvme),
            kernel,
            settable: true,
            control: None,
            unavailable: None,
            run: None,
        },
        Err(e) => by_kernel(format!(
            "the NVMe controller of {dev} refused Get Features (Volatile Write Cache): {}",
            sys::os_text(&e)
        )),
    }
}

/// A SCSI or SATA disk's write cache, from its SCSI disk driver's `cache_type` (under the disk's sysfs folder
/// `disk`: `device/scsi_disk/H:C:T:L/cache_type`); `None` for a disk that is not one (loop, zram, virtio).
/// Settable when the file can be opened for writing (root) and reads a state.
fn scsi_write_cache(disk: &Path, kernel: Option<String>) -> Option<super::WriteCache> {
    let entry = fs::read_dir(disk.join("device/scsi_disk"))
        .ok()?
        .flatten()
        .next()?;
    let file = entry.path().join("cache_type");
    let state = read_sys(&file).and_then(|t| crate::target::cache::scsi_state(&t));
    let writable = fs::OpenOptions::new().write(true).open(&file).is_ok();
    let settable = writable && state.is_some();
    Some(super::WriteCache {
        state,
        read_from: state.map(|_| super::CacheSource::ScsiDisk),
        kernel,
        settable,
        control: Some(file.display().to_string()),
        unavailable: (!settable).then(|| {
            format!(
                "{} cannot be written, or reads no write cache state (writing it needs root)",
                file.display()
            )
        }),
        run: None,
    })
}

/// The zones of the disk at `disk` (its sysfs folder), whose logical block size is `lbs`: `None` unless
/// `queue/zoned` says `host-managed` or `host-aware` with a zone size.
fn zoned(disk: &Path, lbs: u32) -> Option<super::Zoned> {
    let q = |name: &str| read_sys(&disk.join("queue").join(name));
    let n = |name: &str| q(name).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let model = match q("zoned")?.as_str() {
        "host-managed" => super::ZoneModel::HostManaged,
        "host-aware" => super::ZoneModel::HostAware,
        _ => return None,
    };
    let zone_size_bytes = n("chunk_sectors") * 512;
    if zone_size_bytes == 0 {
        return None;
    }
    Some(super::Zoned {
        model,
        zone_size_bytes,
        zones: n("nr_zones"),
        max_open_zones: n("max_open_zones") as u32,
        max_active_zones: n("max_active_zones") as u32,
        write_granularity_bytes: match n("zone_write_granularity") as u32 {
            0 => lbs,
            g => g,
        },
    })
}

/// The most I/Os the disk at `disk` (its sysfs folder) holds at once: the smaller of the block layer's
/// request slots (`queue/nr_requests`) and the SCSI device's queue (`device/queue_depth`, SCSI and SATA
/// only); `None` when sysfs gives neither (or 0).
fn queue_depth_max(disk: &Path) -> Option<u32> {
    ["queue/nr_requests", "device/queue_depth"]
        .iter()
        .filter_map(|name| read_sys(&disk.join(name)).and_then(|s| s.parse::<u32>().ok()))
        .filter(|&v| v > 0)
        .min()
}

/// The loop device without direct I/O (sysfs `loop/dio` = 0) that the block device `rdev` (a device target's,
/// or the one holding a file target's file system) is or lies on, as [`loop_under`] follows them.
fn cached_loop(rdev: u64) -> Option<CachedLoop> {
    loop_under(rdev, 0, &|disk, _| {
        read_sys(&disk.join("loop/dio")).is_some_and(|d| d == "0")
    })
}

/// The loop device whose backing is a regular file that the block device `rdev` is or lies on, direct I/O
/// or not, as [`loop_under`] follows them: the device's numbers are then a file system's and its storage's.
fn file_loop(rdev: u64) -> Option<CachedLoop> {
    loop_under(rdev, 0, &|_, backing| {
        matches!(backing, Some(Identity::File { .. }))
    })
}

/// The first loop device that `pick` (given its sysfs folder and its backing's identity) chooses among those
/// the block device `rdev` is or lies on: the disk of a partition, the members of a device-mapper or RAID
/// device (`slaves/`), the backing device of a loop device, followed down [`LOOP_DEPTH`] levels.
fn loop_under(
    rdev: u64,
    depth: u32,
    pick: &dyn Fn(&Path, Option<&Identity>) -> bool,
) -> Option<CachedLoop> {
    if depth >= LOOP_DEPTH {
        return None;
    }
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    let disk = fs::canonicalize(disk_of(rdev).unwrap_or(sys)).ok()?;
    if disk.join("loop").is_dir() {
        let backing = loop_backing(rdev).map(|(_, id)| id);
        if pick(&disk, backing.as_ref()) {
            return Some(CachedLoop {
                device: Path::new("/dev").join(disk.file_name()?),
                backing_file: read_sys(&disk.join("loop/backing_file"))
                    .map(PathBuf::from)
                    .unwrap_or_default(),
            });
        }
        return match backing? {
            Identity::Block { rdev: under } => loop_under(under, depth + 1, pick),
            Identity::File { .. } => None,
        };
    }
    fs::read_dir(disk.join("slaves"))
        .ok()?
        .flatten()
        .filter_map(|m| read_sys(&m.path().join("dev")).and_then(|d| parse_dev(&d)))
        .find_map(|m| loop_under(m, depth + 1, pick))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24: a name is suggested for a typo only when at most one edit in three characters away.
    #[test]
    fn only_a_device_of_a_close_name_is_suggested() {
        let d = strsim::damerau_levenshtein;
        assert_eq!(d("nvme0n9", "loop0p1"), 6);
        assert!(!near("nvme0n9", 6));
        assert_eq!(d("nvme0n9", "nvme0n1"), 1);
        assert!(near("nvme0n9", 1));
        assert_eq!(d("nvme0n9", "nvme1n1"), 2);
        assert!(near("nvme0n9", 2));
        assert_eq!(d("nvme0n9", "nvme0n1p1"), 3);
        assert!(!near("nvme0n9", 3));
        assert_eq!(
            (d("lop3", "loop3"), d("sdb", "sda"), d("sdb", "vda")),
            (1, 1, 2)
        );
        assert!(near("lop3", 1) && near("sdb", 1) && !near("sdb", 2));
        // Another device of the same kind is never the fix of a typo (trial 13 F4).
        for (wanted, other) in [
            ("loop0", "loop4"),
            ("loop0", "loop12"),
            ("nvme0n9", "nvme0n1"),
            ("nvme0n1p3", "nvme0n1p1"),
            ("sdc", "sdb"),
            ("sdc1", "sdb1"),
            ("xvda", "xvdb"),
        ] {
            assert!(another_of_its_kind(wanted, other), "{wanted} {other}");
        }
        for (wanted, other) in [
            ("lop3", "loop3"),
            ("loop3", "loop3"),
            ("nvme0n1", "nvme0n1p1"),
            ("sdb", "vda"),
            ("sbd", "sdb"),
            ("dm0", "dm-0"),
        ] {
            assert!(!another_of_its_kind(wanted, other), "{wanted} {other}");
        }
        assert_eq!(
            ProbeError::NoSuchDevice {
                path: "/dev/nvme0n9".into(),
                closest: None
            }
            .to_string(),
            "/dev/nvme0n9 does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); no block device in /dev has a name close to it (lsblk lists them); nothing was created"
        );
    }

    /// Trial 24c F13: a loop device of 0 bytes has no file attached, and the error says how to attach one;
    /// another empty device keeps the plain error.
    #[test]
    fn an_empty_loop_device_says_how_to_attach_a_file() {
        assert_eq!(
            empty_device(Path::new("/dev/loop0"), libc::makedev(7, 0)).to_string(),
            "/dev/loop0: the target is empty (0 bytes): a loop device with no file attached; attach a file: losetup --direct-io=on -f --show FILE (it prints the loop device to name)"
        );
        assert_eq!(
            empty_device(Path::new("/dev/sdz"), libc::makedev(8, 0)).to_string(),
            "/dev/sdz: the target is empty (0 bytes)"
        );
    }
}
