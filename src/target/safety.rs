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
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 5 {
            continue;
        }
        for (maj, min, name) in &devs {
            if f[2] == format!("{maj}:{min}") {
                return Some(format!("{name} is mounted at {}", f[4]));
            }
        }
    }
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    for line in swaps.lines().skip(1) {
        if let Some(dev) = line.split_whitespace().next() {
            if let Ok(m) = fs::metadata(dev) {
                if devs
                    .iter()
                    .any(|(a, b, _)| libc::major(m.rdev()) == *a && libc::minor(m.rdev()) == *b)
                {
                    return Some(format!("{dev} is in use as swap"));
                }
            }
        }
    }
    for (maj, min, name) in &devs {
        let holders = PathBuf::from(format!("/sys/dev/block/{maj}:{min}/holders"));
        if let Ok(mut it) = fs::read_dir(&holders) {
            if let Some(Ok(h)) = it.next() {
                return Some(format!(
                    "{name} is held by {} (part of a RAID, LVM or device-mapper stack)",
                    h.file_name().to_string_lossy()
                ));
            }
        }
    }
    None
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
        if let Ok(dev) = fs::read_to_string(p.join("dev")) {
            if let Some((a, b)) = dev.trim().split_once(':') {
                if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                    out.push((a, b, format!("/dev/{}", e.file_name().to_string_lossy())));
                }
            }
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
