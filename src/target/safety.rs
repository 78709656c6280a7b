//! Refusing targets that are in use: a block device (or one of its partitions) that is mounted, used as swap,
//! or held by another device (RAID, LVM, device mapper). Opening with O_EXCL is the kernel's final word; these
//! checks give the reason in words before anything is opened for writing.

use super::{TargetInfo, TargetKind};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why the target must not be written, or `None` when nothing is known to use it.
pub fn in_use_reason(t: &TargetInfo) -> Option<String> {
    if t.kind != TargetKind::Block {
        return None;
    }
    let rdev = fs::metadata(&t.path).ok()?.rdev();
    let mut devs = vec![(
        libc::major(rdev),
        libc::minor(rdev),
        t.path.display().to_string(),
    )];
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    devs.extend(partitions(&sys));
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let is_ours = |dev_number: u64| {
        devs.iter()
            .any(|(a, b, _)| libc::major(dev_number) == *a && libc::minor(dev_number) == *b)
    };
    for line in mountinfo.lines() {
        // Fields: id parent major:minor root mount-point options ... - fstype source super-options. btrfs
        // reports an anonymous major:minor, so the source device is checked too.
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 5 {
            continue;
        }
        let by_number = devs
            .iter()
            .find(|(maj, min, _)| f[2] == format!("{maj}:{min}"))
            .map(|d| d.2.clone());
        let source = f
            .iter()
            .position(|&x| x == "-")
            .and_then(|i| f.get(i + 2))
            .copied()
            .unwrap_or("");
        let by_source = source
            .starts_with("/dev/")
            .then(|| fs::metadata(source).ok())
            .flatten()
            .filter(|m| {
                std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) && is_ours(m.rdev())
            })
            .map(|_| source.to_string());
        if let Some(name) = by_number.or(by_source) {
            return Some(format!("{name} is mounted at {}", f[4]));
        }
    }
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    for line in swaps.lines().skip(1) {
        if let Some(dev) = line.split_whitespace().next()
            && let Ok(m) = fs::metadata(dev)
            && devs
                .iter()
                .any(|(a, b, _)| libc::major(m.rdev()) == *a && libc::minor(m.rdev()) == *b)
        {
            return Some(format!("{dev} is in use as swap"));
        }
    }
    for (maj, min, name) in &devs {
        let holders = PathBuf::from(format!("/sys/dev/block/{maj}:{min}/holders"));
        if let Ok(mut it) = fs::read_dir(&holders)
            && let Some(Ok(h)) = it.next()
        {
            return Some(format!(
                "{name} is held by {} (part of a RAID, LVM or device-mapper stack)",
                h.file_name().to_string_lossy()
            ));
        }
    }
    // The kernel's own answer: an exclusive open fails with EBUSY while anything holds the device.
    use std::os::unix::fs::OpenOptionsExt;
    match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&t.path)
    {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(format!(
            "{} is in use (an exclusive open fails: {e})",
            t.path.display()
        )),
        _ => None,
    }
}

/// The partitions of a disk, from sysfs: `(major, minor, /dev name)`.
fn partitions(sys: &Path) -> Vec<(u32, u32, String)> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(sys) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if !p.join("partition").exists() {
            continue;
        }
        if let Ok(dev) = fs::read_to_string(p.join("dev"))
            && let Some((a, b)) = dev.trim().split_once(':')
            && let (Ok(a), Ok(b)) = (a.parse(), b.parse())
        {
            out.push((a, b, format!("/dev/{}", e.file_name().to_string_lossy())));
        }
    }
    out
}

/// Whether `named` (the `--allow-destroy` argument) names the same device as `target`.
pub fn same_device(named: &Path, target: &Path) -> bool {
    match (fs::metadata(named), fs::metadata(target)) {
        (Ok(a), Ok(b)) => {
            a.rdev() == b.rdev()
                && a.file_type().is_block_device_like()
                && b.file_type().is_block_device_like()
        }
        _ => false,
    }
}

trait BlockLike {
    fn is_block_device_like(&self) -> bool;
}

impl BlockLike for fs::FileType {
    fn is_block_device_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_block_device()
    }
}
