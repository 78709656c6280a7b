//! Consent to write, and refusing targets that are read-only or in use. A run needs a [`Consent`], which only
//! [`consent`] issues: for a block device that the run writes, only when `--allow-destroy` names that device,
//! the device is not read-only and nothing uses it (mounted, swap, held by RAID, LVM or device mapper, or open
//! exclusively); for a file that the run writes, only when its filesystem is not read-only and it is not the
//! backing file of a loop device in use (directly or through loop devices stacked on it) nor a swap file in
//! use. Opening with O_EXCL when the run holds the target
//! ([`super::open::Held`]) is the kernel's final word; these checks give the reason in words before anything
//! is opened for writing.

use super::reopen::Reopen;
use super::{Identity, TargetInfo, TargetKind, kinds};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why the target must not be written because something uses it, or `None` when nothing is known to: a block
/// device mounted, used as swap, held by RAID, LVM or device mapper, or open exclusively; a file (or device)
/// that is the backing file of a loop device in such use, or under loop devices stacked up to one in such use;
/// a swap file in use; a file or device another program holds open (a file that is not the run's own new one).
pub fn in_use_reason(t: &TargetInfo) -> Option<String> {
    match t.kind {
        TargetKind::Block => {
            let rdev = kinds::of(t.kind).device_number(t)?;
            device_in_use(rdev, &t.path)
                .or_else(|| backing_in_use(t))
                .or_else(|| under_loop_in_use(rdev, 0).map(|why| format!("it {why}")))
        }
        TargetKind::File if !t.created => backing_in_use(t).or_else(|| file_open_elsewhere(t)),
        TargetKind::File | TargetKind::Sim => None,
    }
}

/// A file target that another program holds open ([`super::openers`]): fio or dd writing the same file,
/// whose I/O would mix with the run's and whose writes the run would overwrite. Another wkrun run holding
/// the file's claim (its flock) is left to the claim, which refuses it in its own words.
fn file_open_elsewhere(t: &TargetInfo) -> Option<String> {
    let id @ Identity::File { dev, ino } = t.identity? else {
        return None;
    };
    let runs = crate::sys::file::flock_holders(dev, ino);
    let o = super::openers::opener(&[id], &runs)?;
    Some(format!("it is open in another program: {}", o.words()))
}

/// A target another wkrun run holds (its flock, seen in /proc/locks), in words: a file target; for a block
/// device, the node of its whole disk (a run on a device or on any partition of it claims the disk,
/// found through sysfs), then the file under a loop device target, followed down loop devices stacked on it (the
/// run on the file and the run on the loop device write the same storage). `wkrun plan` notes it, since the
/// run would be refused when it claims the disk or file (`target::open`), a run that writes while another
/// run reads or writes, one that reads while another writes; a run on several targets is refused for it
/// before anything is made.
pub fn held_by_a_run(t: &TargetInfo) -> Option<String> {
    let shown = t.path.display().to_string();
    let (subject, pid) = match t.identity? {
        Identity::File { dev, ino } => (shown, crate::sys::file::flock_holder(dev, ino)?),
        Identity::Block { rdev } => disk_held(rdev, &shown).or_else(|| {
            let (file, Identity::File { dev, ino }) = file_under_loop(rdev)? else {
                return None;
            };
            let pid = crate::sys::file::flock_holder(dev, ino)?;
            Some((loop_subject(&shown, rdev, &file), pid))
        })?,
    };
    Some(format!(
        "{subject} is in use by another wkrun run (pid {pid}): a run that writes it is refused while that run goes on, and a run that reads it while that run writes it"
    ))
}

/// The wkrun runs holding a claim the block device `rdev` is under (`target::open`'s flocks): on its whole
/// disk's node, and on the regular file under it when it is a loop device (or a partition of one). Their
/// descriptors are those of runs, which the claims refuse in their own words (`in use by another wkrun
/// run (pid N)`), not another program's ([`open_elsewhere`]).
fn claimants(rdev: u64) -> Vec<u32> {
    let disk = whole_disk(rdev).and_then(|(d, _)| fs::metadata(d).ok());
    let disk = disk.map(|m| (m.dev(), m.ino()));
    let file = match file_under_loop(rdev) {
        Some((_, Identity::File { dev, ino })) => Some((dev, ino)),
        _ => None,
    };
    (disk.into_iter().chain(file))
        .flat_map(|(dev, ino)| crate::sys::file::flock_holders(dev, ino))
        .collect()
}

/// The subject naming the whole disk of the block device `rdev` (that `shown` names) and the pid of another
/// wkrun run that holds the disk's claim (a flock on its node); `None` when none does.
fn disk_held(rdev: u64, shown: &str) -> Option<(String, u32)> {
    let (disk, partition) = whole_disk(rdev)?;
    let m = fs::metadata(&disk).ok()?;
    let pid = crate::sys::file::flock_holder(m.dev(), m.ino())?;
    Some((disk_subject(shown, &disk, partition), pid))
}

/// The subject of a sentence about the file under the loop device (or partition of one) `rdev` that `shown`
/// names: `/dev/loop3 is a loop device of /x/lp.img, which` (`is a partition of a loop device of` for a
/// partition).
pub(super) fn loop_subject(shown: &str, rdev: u64, file: &Path) -> String {
    let is = match disk_of(rdev) {
        Some(_) => "is a partition of a loop device of",
        None => "is a loop device of",
    };
    format!("{shown} {is} {}, which", file.display())
}

/// The regular file under the loop device `rdev` (or under the loop device a partition `rdev` is part of),
/// followed down loop devices stacked on loop devices up to [`LOOP_DEPTH`] levels: its path and identity.
/// `None` when `rdev` is not a loop device, what lies under it is a device, or it cannot be found.
pub(super) fn file_under_loop(rdev: u64) -> Option<(PathBuf, Identity)> {
    let mut dev = rdev;
    for _ in 0..LOOP_DEPTH {
        match loop_backing(dev)? {
            (_, Identity::Block { rdev: under }) => dev = under,
            file => return Some(file),
        }
    }
    None
}

/// The whole disk that the block device `rdev` is, or that it is a partition of (sysfs: a partition's
/// folder, `/sys/class/block/NAME/partition` beside it, sits in its disk's): the disk's `/dev` node, named
/// by the disk's `uevent` (`DEVNAME`), checked to be the block device that sysfs gives as the disk, and
/// whether `rdev` is a partition. `None` when sysfs or the node cannot be found.
pub(super) fn whole_disk(rdev: u64) -> Option<(PathBuf, bool)> {
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    let part = disk_of(rdev);
    let disk = match &part {
        Some(d) => d.clone(),
        None => fs::canonicalize(&sys).ok()?,
    };
    let want = parse_dev(fs::read_to_string(disk.join("dev")).ok()?.trim())?;
    let uevent = fs::read_to_string(disk.join("uevent")).unwrap_or_default();
    let name = uevent
        .lines()
        .find_map(|l| l.strip_prefix("DEVNAME="))
        .map(str::to_string)
        .or_else(|| Some(disk.file_name()?.to_string_lossy().into_owned()))?;
    let node = Path::new("/dev").join(name);
    let m = fs::metadata(&node).ok()?;
    (std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) && m.rdev() == want)
        .then_some((node, part.is_some()))
}

/// The subject of a sentence about the whole disk `disk` (its node) of the block device that `shown` names,
/// a `partition` of it or not: `/dev/sdb2 is a partition of /dev/sdb, which`, or `shown` for the disk.
pub(super) fn disk_subject(shown: &str, disk: &Path, partition: bool) -> String {
    match partition {
        true => format!("{shown} is a partition of {}, which", disk.display()),
        false => shown.to_string(),
    }
}

/// How deep [`under_loop_in_use`] and [`storage_under`] follow loop devices stacked on loop devices.
pub(super) const LOOP_DEPTH: u32 = 8;

/// The backing file (or device) of the loop device `rdev`, or of the loop device a partition `rdev` is part
/// of, with its identity, or `None` when `rdev` is neither or its backing file cannot be found (deleted,
/// another mount namespace).
pub(super) fn loop_backing(rdev: u64) -> Option<(PathBuf, Identity)> {
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    let disk = disk_of(rdev).unwrap_or(sys);
    let backing = fs::read_to_string(disk.join("loop/backing_file")).ok()?;
    let path = PathBuf::from(backing.trim_end_matches('\n'));
    let id = fs::metadata(&path).ok().and_then(|m| Identity::of(&m))?;
    Some((path, id))
}

/// The sysfs folder of the disk that the partition `rdev` is part of; `None` when `rdev` is not a partition.
pub(super) fn disk_of(rdev: u64) -> Option<PathBuf> {
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    // A partition's folder sits in its disk's.
    match sys.join("partition").exists() {
        true => Some(fs::canonicalize(&sys).ok()?.parent()?.to_path_buf()),
        false => None,
    }
}

/// Why the storage under the loop device `rdev` (or the partition of one) must not be written (`is a loop
/// device of ...`, without its subject), or `None`: its backing device is in use
/// (mounted, swap, held, open exclusively; or, a loop device itself, what lies under it), or another loop
/// device on the same backing file or device is (the same storage by another device: writing `rdev` writes
/// the mounted filesystem).
fn under_loop_in_use(rdev: u64, depth: u32) -> Option<String> {
    if depth >= LOOP_DEPTH {
        return None;
    }
    let (path, id) = loop_backing(rdev)?;
    let shown = path.display();
    let is = match disk_of(rdev) {
        Some(_) => "is a partition of a loop device of",
        None => "is a loop device of",
    };
    if let Identity::Block { rdev: b } = id
        && let Some(why) = device_in_use(b, &path)
            .or_else(|| under_loop_in_use(b, depth + 1).map(|why| format!("{shown} {why}")))
    {
        return Some(format!("{is} {shown}, and {why}"));
    }
    // The loop device itself (for a partition, the disk holding it) is not "another" one.
    let own = disk_of(rdev)
        .and_then(|d| fs::read_to_string(d.join("dev")).ok())
        .and_then(|d| parse_dev(d.trim()))
        .unwrap_or(rdev);
    if let Some(why) = swap_file(id) {
        return Some(format!("{is} {shown}, which {why}"));
    }
    // A program writing the backing file itself (fio on the file under the loop device).
    if let (Identity::File { .. }, Some(o)) = (id, super::openers::opener(&[id], &claimants(rdev)))
    {
        return Some(format!(
            "{is} {shown}, which is open in another program: {}",
            o.words()
        ));
    }
    let chain = loop_in_use_over(id, Some(own), depth)?;
    Some(format!(
        "{is} {shown}, which is also the backing file of {chain}"
    ))
}

/// Why the block device `rdev` (named by the node `node`) must not be written, or `None` when nothing is known
/// to use it: it or one of its partitions is mounted, used as swap or held by RAID, LVM or device mapper, or an
/// exclusive open of `node` fails.
fn device_in_use(rdev: u64, node: &Path) -> Option<String> {
    let mut devs = vec![(
        libc::major(rdev),
        libc::minor(rdev),
        node.display().to_string(),
    )];
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    devs.extend(partitions(&sys));
    mounted(&devs)
        .or_else(|| swap(&devs))
        .or_else(|| held(&devs))
        .or_else(|| exclusive_open_fails(rdev, node))
        .or_else(|| open_elsewhere(rdev, &devs))
}

/// A device of `devs` (the block device `rdev` and its partitions) that another process holds open
/// ([`super::openers`]; a wkrun run holding its claims is left to them, [`claimants`]): a program writing
/// it without an exclusive open (fio, dd), which the kernel's `O_EXCL` check does not see (attack 24 F10).
fn open_elsewhere(rdev: u64, devs: &[(u32, u32, String)]) -> Option<String> {
    let ids: Vec<Identity> = (devs.iter())
        .map(|&(a, b, _)| Identity::Block {
            rdev: libc::makedev(a, b),
        })
        .collect();
    let o = super::openers::opener(&ids, &claimants(rdev))?;
    let name = (devs.iter().zip(&ids))
        .find(|(_, id)| **id == o.of)
        .map_or(o.path.clone(), |(d, _)| d.2.clone());
    Some(format!("{name} is open in another program: {}", o.words()))
}

/// A device of `devs` (`(major, minor, name)`) that is mounted, from /proc/self/mountinfo.
fn mounted(devs: &[(u32, u32, String)]) -> Option<String> {
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
    None
}

/// A device of `devs` in use as swap, from /proc/swaps.
fn swap(devs: &[(u32, u32, String)]) -> Option<String> {
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
    None
}

/// A device of `devs` with a holder in sysfs (RAID, LVM, device mapper).
fn held(devs: &[(u32, u32, String)]) -> Option<String> {
    for (maj, min, name) in devs {
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
    None
}

/// The kernel's own answer: an exclusive open fails with EBUSY while anything holds the device.
fn exclusive_open_fails(rdev: u64, node: &Path) -> Option<String> {
    // The node opened again as the device checked (attack 13 F1: a FIFO swapped in blocked the open).
    match super::reopen::open_probed(node, Identity::Block { rdev }, false, libc::O_EXCL) {
        Err(Reopen::Failed(e)) if e.raw_os_error() == Some(libc::EBUSY) => {
            // A wkrun run on it or on a part of its disk holds the disk's claim: the likely holder, named.
            let shown = node.display().to_string();
            let who = match disk_held(rdev, &shown) {
                Some((s, p)) if s == shown => {
                    format!("; another wkrun run (pid {p}) holds it or a partition of it")
                }
                Some((s, p)) => format!("; {s} is in use by another wkrun run (pid {p})"),
                None => String::new(),
            };
            Some(format!(
                "{} is in use (an exclusive open fails: {e}){who}",
                node.display()
            ))
        }
        _ => None,
    }
}

/// Why the target must not be written because it backs a loop device that is in use (mounted, swap, held,
/// open exclusively), directly or through loop devices stacked on it: found through
/// `/sys/block/loop*/loop/backing_file`, compared by identity (device and inode of a file, device number of a
/// device); or, a file, because it is in use as swap.
fn backing_in_use(t: &TargetInfo) -> Option<String> {
    let want = t
        .identity
        .or_else(|| fs::metadata(&t.path).ok().and_then(|m| Identity::of(&m)))?;
    if let Some(why) = swap_file(want) {
        return Some(format!("it {why}"));
    }
    let chain = loop_in_use_over(want, None, 0)?;
    Some(format!("it is the backing file of {chain}"))
}

/// A loop device over the file or device `want` (other than `skip`) that is in use, or over which (or over a
/// partition of which) another loop device is in use, followed upward through loop devices stacked on loop
/// devices up to [`LOOP_DEPTH`] levels from `depth`: the chain in words, from the loop device over `want` to
/// the one in use and why (as [`device_in_use`] says it): `/dev/loop1, which is the backing file of
/// /dev/loop2, and /dev/loop2 is mounted at /mnt`.
fn loop_in_use_over(want: Identity, skip: Option<u64>, depth: u32) -> Option<String> {
    if depth >= LOOP_DEPTH {
        return None;
    }
    for (node, rdev) in loops_over(want) {
        if Some(rdev) == skip {
            continue;
        }
        let shown = node.display();
        if let Some(why) = device_in_use(rdev, &node) {
            return Some(format!("{shown}, and {why}"));
        }
        // What is stacked on this loop device, or on one of its partitions.
        let sys = PathBuf::from(format!(
            "/sys/dev/block/{}:{}",
            libc::major(rdev),
            libc::minor(rdev)
        ));
        let mut layers = vec![(rdev, String::new())];
        layers.extend(
            partitions(&sys)
                .into_iter()
                .map(|(a, b, name)| (libc::makedev(a, b), format!(", whose partition {name}"))),
        );
        for (dev, whose) in layers {
            if let Some(up) = loop_in_use_over(Identity::Block { rdev: dev }, None, depth + 1) {
                return Some(format!("{shown}{whose}, which is the backing file of {up}"));
            }
        }
    }
    None
}

/// The loop devices whose backing file (or device) is `want`: their `/dev` node and device number.
fn loops_over(want: Identity) -> Vec<(PathBuf, u64)> {
    let Ok(entries) = fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let Ok(backing) = fs::read_to_string(e.path().join("loop/backing_file")) else {
            continue;
        };
        let backs_it = fs::metadata(backing.trim_end_matches('\n'))
            .ok()
            .and_then(|m| Identity::of(&m))
            == Some(want);
        let rdev = fs::read_to_string(e.path().join("dev"))
            .ok()
            .and_then(|d| parse_dev(d.trim()));
        if let (true, Some(rdev)) = (backs_it, rdev) {
            out.push((Path::new("/dev").join(e.file_name()), rdev));
        }
    }
    out.sort();
    out
}

/// Whether the regular file `want` is in use as swap (a swap file of /proc/swaps, compared by device and
/// inode): `is in use as swap (swapon)`, or `None`.
fn swap_file(want: Identity) -> Option<String> {
    let Identity::File { .. } = want else {
        return None;
    };
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    let in_use = swaps.lines().skip(1).any(|line| {
        // The kernel shows a space in a name as `\040` (and a tab, newline, backslash the same way).
        let name = line.split_whitespace().next().unwrap_or("");
        fs::metadata(unescape_octal(name))
            .ok()
            .and_then(|m| Identity::of(&m))
            == Some(want)
    });
    in_use.then(|| "is in use as swap (swapoff it first)".to_string())
}

/// A name as /proc shows it, its `\ooo` octal escapes undone.
fn unescape_octal(s: &str) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let code = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)))
            .map(|d| d.iter().fold(0u32, |n, c| n * 8 + u32::from(c - b'0')));
        match code.and_then(|c| u8::try_from(c).ok()) {
            Some(c) => {
                out.push(c);
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    std::ffi::OsString::from_vec(out)
}

/// `major:minor` as a device number.
pub(super) fn parse_dev(text: &str) -> Option<u64> {
    let (a, b) = text.split_once(':')?;
    Some(libc::makedev(a.parse().ok()?, b.parse().ok()?))
}

/// Why the target cannot be written at all, or `None`: a block device that is read-only (BLKROGET), a file on a
/// filesystem mounted read-only, immutable or append-only, or a program that is running (ETXTBSY).
pub fn read_only_reason(t: &TargetInfo) -> Option<String> {
    if t.created || !kinds::of(t.kind).facts().on_host {
        return None;
    }
    // The target opened again as it was probed (attack 13 F1: by its path, a FIFO swapped in blocked).
    let id = t.identity?;
    let f = super::reopen::open_probed(&t.path, id, false, 0).ok()?;
    match t.kind {
        TargetKind::Block => crate::sys::block::read_only(&f)
            .ok()?
            .then(|| format!("{} is read-only (blockdev --setro, losetup --read-only or write-protected hardware)", t.path.display())),
        TargetKind::File => {
            let shown = t.path.display();
            if crate::sys::file::on_read_only_fs(&f).ok()? {
                return Some(format!("{shown} is on a filesystem mounted read-only"));
            }
            // A program being run: the kernel refuses to open it for writing (ETXTBSY). Opening without
            // O_TRUNC or O_CREAT changes nothing.
            if let Err(Reopen::Failed(e)) = super::reopen::open_probed(&t.path, id, true, 0)
                && e.raw_os_error() == Some(libc::ETXTBSY)
            {
                return Some(format!(
                    "{shown} is a program that is running: the kernel refuses to open it for writing ({})",
                    crate::sys::os_text(&e)
                ));
            }
            match crate::sys::file::write_protection(&f).ok()? {
                (true, _) => Some(format!("{shown} is immutable (chattr +i): no write to it can succeed; chattr -i to write it")),
                (false, true) => Some(format!("{shown} is append-only (chattr +a): a write inside it cannot succeed; chattr -a to write it")),
                (false, false) => None,
            }
        }
        TargetKind::Sim => None,
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

/// Why the targets of one run must not run together, or `None`: two of them are the same file or device,
/// whatever paths name them (a link, another node of the device, `/dev/block/MAJ:MIN`): compared by the
/// identity the probe recorded ([`Identity`]: device and inode of a file, device number of a device), and a
/// file still to be created by its folder's real path and its name; a target inside another: a partition
/// of a device that is a target, the backing file of a loop device that is a target (or what lies inside
/// that); and two loop devices on one backing file or device (or on a device and its partition). Two
/// simulated drives are two drives.
pub fn duplicate(targets: &[&TargetInfo]) -> Option<String> {
    let key = |t: &TargetInfo| -> Option<String> {
        if let Some(id) = t.identity {
            return Some(Identity::describe(Some(id)));
        }
        if !t.opens_on_host() {
            return None;
        }
        let parent = t.path.parent().filter(|p| !p.as_os_str().is_empty());
        let dir = fs::canonicalize(parent.unwrap_or(Path::new("."))).ok()?;
        Some(dir.join(t.path.file_name()?).display().to_string())
    };
    let keys: Vec<Option<String>> = targets.iter().map(|t| key(t)).collect();
    for (i, a) in keys.iter().enumerate() {
        let Some(a) = a else { continue };
        if let Some(j) = keys[..i].iter().position(|b| b.as_ref() == Some(a)) {
            return Some(format!(
                "targets {j} ({}) and {i} ({}) are the same target ({a}): name each file or device once",
                targets[j].path.display(),
                targets[i].path.display()
            ));
        }
    }
    // A device's partitions and a loop device's backing file are its storage too.
    let under: Vec<Vec<(&'static str, Identity, String)>> = targets
        .iter()
        .map(|t| match t.identity {
            Some(Identity::Block { rdev }) => storage_under(rdev, 0),
            _ => Vec::new(),
        })
        .collect();
    for (i, t) in targets.iter().enumerate() {
        for (what, inner, _) in &under[i] {
            let inner = Identity::describe(Some(*inner));
            if let Some(j) = keys.iter().position(|k| k.as_ref() == Some(&inner)) {
                return Some(format!(
                    "target {j} ({}) is {what} target {i} ({}): they share their storage; name each once",
                    targets[j].path.display(),
                    t.path.display()
                ));
            }
        }
    }
    // Two loop devices of one file (or of one device, or of a device and its partition) are one storage;
    // two partitions of one disk are not (each lies on its own part of it).
    let disk = |t: &TargetInfo| match t.identity {
        Some(Identity::Block { rdev }) => disk_of(rdev),
        _ => None,
    };
    for i in 0..targets.len() {
        for j in 0..i {
            if disk(targets[i]).is_some() && disk(targets[i]) == disk(targets[j]) {
                continue;
            }
            if let Some((_, _, common)) = under[i]
                .iter()
                .find(|(_, a, _)| under[j].iter().any(|(_, b, _)| b == a))
            {
                return Some(format!(
                    "targets {j} ({}) and {i} ({}) share their storage (both lie on {common}): name each once",
                    targets[j].path.display(),
                    targets[i].path.display(),
                ));
            }
        }
    }
    None
}

/// What lies inside the block device `rdev`, each with how it relates to it ("a partition of", "the backing
/// file of", "inside") and its name: its partitions and, for a loop device, its backing file or device and
/// what lies inside that (loop devices on loop devices), to [`LOOP_DEPTH`] levels.
fn storage_under(rdev: u64, depth: u32) -> Vec<(&'static str, Identity, String)> {
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    let mut out: Vec<(&'static str, Identity, String)> = partitions(&sys)
        .into_iter()
        .map(|(a, b, name)| {
            let rdev = libc::makedev(a, b);
            ("a partition of", Identity::Block { rdev }, name)
        })
        .collect();
    if depth < LOOP_DEPTH
        && let Some((path, id)) = loop_backing(rdev)
    {
        let what = match disk_of(rdev) {
            Some(_) => "the backing file of the loop device holding",
            None => "the backing file of",
        };
        out.push((what, id, path.display().to_string()));
        if let Identity::Block { rdev: b } = id {
            out.extend(
                storage_under(b, depth + 1)
                    .into_iter()
                    .map(|(_, id, name)| ("inside", id, name)),
            );
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

/// Consent to run on one target: issued only by [`consent`], after the checks; it records the target as checked
/// (path, kind and device number) and whether the run may write, so that the runner can check, before it
/// writes, that the consent is for the target in front of it ([`Consent::check`]).
#[derive(Debug)]
#[must_use]
pub struct Consent {
    /// The target's path, as checked.
    path: PathBuf,
    /// The target's kind.
    kind: TargetKind,
    /// The device number of a block device, as checked.
    device: Option<u64>,
    /// Whether the run may write.
    writes: bool,
}

/// Decides whether a run on `target` may start (before anything is opened for writing): `writes` says whether
/// the run writes (or erases), `allow_destroy` is the `--allow-destroy` argument.
///
/// Refused: `--allow-destroy` naming anything when the target is not a block device (the user meant a device
/// and forgot `--target`: running on the file or the simulated drive instead would look like a test of the
/// device); a target that the run writes when it is read-only ([`read_only_reason`]: a read-only device, a file
/// on a read-only filesystem) or in use ([`in_use_reason`]: a device mounted or held, a file backing a loop
/// device in use); a block device that the run writes when `--allow-destroy` does not name it. Every other run
/// is allowed: one that only reads, and one on a file or a simulated drive.
///
/// # Errors
/// Why the run must not start, in the words printed to the user.
pub fn consent(
    target: &TargetInfo,
    writes: bool,
    allow_destroy: Option<&Path>,
) -> Result<Consent, String> {
    let t = target;
    let kind = kinds::of(t.kind);
    let facts = kind.facts();
    // The kind is what the probe found, not what a caller says: a device relabelled as a file is refused.
    if let Some(found) = t.identity.map(Identity::kind).filter(|&k| k != t.kind) {
        return Err(format!(
            "{} is {}, not {}; nothing was written to it",
            t.path.display(),
            kinds::of(found).facts().noun,
            facts.noun
        ));
    }
    if let (Some(d), false) = (allow_destroy, facts.writes_need_allow_destroy) {
        // `--target t.img --allow-destroy t.img`: the user named the file itself, not another device.
        let itself = d == t.path
            || t.identity.is_some()
                && fs::metadata(d).ok().and_then(|m| Identity::of(&m)) == t.identity;
        if itself {
            return Err(format!(
                "--allow-destroy names {}, which is the target itself, {}: only a block device needs --allow-destroy; drop it",
                d.display(),
                facts.noun
            ));
        }
        if fs::symlink_metadata(d).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            return Err(format!(
                "--allow-destroy names {}, which does not exist, and the target is {} ({}); drop --allow-destroy, or name the device as it is",
                d.display(),
                t.path.display(),
                facts.noun
            ));
        }
        return Err(format!(
            "--allow-destroy names {}, but the target is {} ({}); add --target {} to run on that device, or drop --allow-destroy",
            d.display(),
            t.path.display(),
            facts.noun,
            d.display()
        ));
    }
    let granted = || Consent {
        path: t.path.clone(),
        kind: t.kind,
        device: kind.device_number(t),
        writes,
    };
    if !writes {
        return Ok(granted());
    }
    let dev = t.path.display();
    if let Some(why) = read_only_reason(t).or_else(|| in_use_reason(t)) {
        return Err(format!("refusing to write to {dev}: {why}"));
    }
    if !facts.writes_need_allow_destroy {
        return Ok(granted());
    }
    match allow_destroy {
        Some(d) if same_device(d, &t.path) => Ok(granted()),
        Some(d) => Err(format!(
            "--allow-destroy names {}, but the target is {dev}; name the target device itself",
            d.display()
        )),
        None => Err(format!(
            "{dev} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {dev} to confirm"
        )),
    }
}

impl Consent {
    /// Whether this consent is for `target`: the same path and kind and, for a block device, the path still
    /// names the device that was checked.
    pub fn covers(&self, target: &TargetInfo) -> bool {
        self.path == target.path
            && self.kind == target.kind
            && kinds::of(target.kind).device_number(target) == self.device
    }

    /// Whether the run may write to its target.
    pub fn allows_writes(&self) -> bool {
        self.writes
    }

    /// Checks, before a run starts or writes, that this consent is for `target` and, with `writes`, allows
    /// writing.
    ///
    /// # Errors
    /// Which of the two it is not.
    pub fn check(&self, target: &TargetInfo, writes: bool) -> Result<(), String> {
        if !self.covers(target) {
            return Err(if self.path == target.path && self.kind == target.kind {
                format!(
                    "{} is no longer the device that was checked before the run; nothing was written to it",
                    target.path.display()
                )
            } else {
                format!(
                    "the consent to run is for {}, not {}; nothing was written to it",
                    self.path.display(),
                    target.path.display()
                )
            });
        }
        if writes && !self.writes {
            return Err(format!(
                "the consent to run on {} is for a run that only reads; nothing was written to it",
                target.path.display()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::sync::{Mutex, MutexGuard};

    fn file_target(path: &str) -> TargetInfo {
        TargetInfo {
            created: true,
            ..TargetInfo::new(path, TargetKind::File, 1 << 20, 512, 4096)
        }
    }

    fn sim_target() -> TargetInfo {
        let p =
            crate::sim::SimParams::parse_target("sim:capacity=64MiB,op=7%,block=256KiB").unwrap();
        TargetInfo::sim(p).unwrap()
    }

    /// One test at a time makes loop devices (two `losetup --find` at once can race for a device).
    static LOOP_LOCK: Mutex<()> = Mutex::new(());

    /// Loop devices over sparse files in a temporary folder, detached on drop.
    struct Loops {
        devs: Vec<PathBuf>,
        dir: tempfile::TempDir,
        _lock: MutexGuard<'static, ()>,
    }

    impl Loops {
        /// `n` 1 MiB loop devices, or `None` after printing why `test` skips.
        fn new(test: &str, n: usize) -> Option<Loops> {
            let skip = |why: &str| {
                let _ = std::io::Write::write_fmt(
                    &mut std::io::stderr().lock(),
                    format_args!("SKIPPED {test}: {why}\n"),
                );
                None
            };
            let uid = Command::new("id").arg("-u").output().ok();
            if uid.map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0") != Some(true) {
                return skip("not running as root: loop devices need root");
            }
            let lock = LOOP_LOCK.lock().unwrap_or_else(|p| p.into_inner());
            let mut loops = Loops {
                devs: Vec::new(),
                dir: tempfile::tempdir().unwrap(),
                _lock: lock,
            };
            for i in 0..n {
                let backing = loops.dir.path().join(format!("backing-{i}.img"));
                std::fs::File::create(&backing)
                    .and_then(|f| f.set_len(1 << 20))
                    .unwrap();
                let out = match Command::new("losetup")
                    .args(["--find", "--show", "--direct-io=on"])
                    .arg(&backing)
                    .output()
                {
                    Ok(o) if o.status.success() => o,
                    Ok(o) => {
                        let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
                        return skip(&format!("losetup failed: {why}"));
                    }
                    Err(e) => return skip(&format!("no losetup (util-linux): {e}")),
                };
                let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
                loops.devs.push(PathBuf::from(dev));
            }
            Some(loops)
        }

        fn target(&self, i: usize) -> TargetInfo {
            super::super::probe(&self.devs[i], 0).unwrap()
        }
    }

    impl Drop for Loops {
        fn drop(&mut self) {
            for d in &self.devs {
                let _ = Command::new("losetup").arg("-d").arg(d).status();
            }
        }
    }

    #[test]
    fn a_block_device_that_the_run_writes_needs_allow_destroy_naming_it() {
        let test = "target::safety::tests::a_block_device_that_the_run_writes_needs_allow_destroy_naming_it";
        let Some(loops) = Loops::new(test, 2) else {
            return;
        };
        let t = loops.target(0);
        let dev = t.path.display().to_string();
        let other = loops.devs[1].display().to_string();
        assert_eq!(t.kind, TargetKind::Block);

        let err = consent(&t, true, None).unwrap_err();
        assert_eq!(
            err,
            format!(
                "{dev} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {dev} to confirm"
            )
        );
        for named in [other.as_str(), "/dev/null", "t.img", "/no/such/device"] {
            let err = consent(&t, true, Some(Path::new(named))).unwrap_err();
            assert_eq!(
                err,
                format!(
                    "--allow-destroy names {named}, but the target is {dev}; name the target device itself"
                )
            );
        }

        let c = consent(&t, true, Some(Path::new(&dev))).unwrap();
        assert!(c.covers(&t) && c.allows_writes());
        assert_eq!(c.check(&t, true), Ok(()));
        // Another device, a file, a simulated drive: not covered.
        let t1 = loops.target(1);
        assert!(!c.covers(&t1));
        assert_eq!(
            c.check(&t1, true).unwrap_err(),
            format!("the consent to run is for {dev}, not {other}; nothing was written to it")
        );
        assert!(!c.covers(&file_target(&dev)));
        assert!(!c.covers(&sim_target()));

        // A run that only reads needs no --allow-destroy, and its consent does not cover writing.
        let r = consent(&t, false, None).unwrap();
        assert!(r.covers(&t) && !r.allows_writes());
        assert_eq!(r.check(&t, false), Ok(()));
        assert_eq!(
            r.check(&t, true).unwrap_err(),
            format!(
                "the consent to run on {dev} is for a run that only reads; nothing was written to it"
            )
        );
    }

    /// The consent records the device a path named when it was checked: a path that names another device
    /// by the time of the run is not covered.
    #[test]
    fn a_device_relabelled_as_a_file_is_refused() {
        let test = "target::safety::a_device_relabelled_as_a_file_is_refused";
        let Some(loops) = Loops::new(test, 1) else {
            return;
        };
        let mut t = loops.target(0);
        t.kind = TargetKind::File;
        let dev = t.path.display().to_string();
        for writes in [true, false] {
            assert_eq!(
                consent(&t, writes, None).unwrap_err(),
                format!("{dev} is a block device, not a file; nothing was written to it")
            );
        }
    }

    #[test]
    fn a_path_that_names_another_device_at_run_time_is_not_covered() {
        let test =
            "target::safety::tests::a_path_that_names_another_device_at_run_time_is_not_covered";
        let Some(loops) = Loops::new(test, 2) else {
            return;
        };
        let link = loops.dir.path().join("disk");
        std::os::unix::fs::symlink(&loops.devs[0], &link).unwrap();
        let t = super::super::probe(&link, 0).unwrap();
        let c = consent(&t, true, Some(&link)).unwrap();
        assert!(c.covers(&t));
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&loops.devs[1], &link).unwrap();
        let now = super::super::probe(&link, 0).unwrap();
        assert!(!c.covers(&now));
        assert_eq!(
            c.check(&now, true).unwrap_err(),
            format!(
                "{} is no longer the device that was checked before the run; nothing was written to it",
                link.display()
            )
        );
    }

    #[test]
    fn allow_destroy_with_a_file_or_a_simulated_drive_is_refused() {
        for (t, noun) in [
            (file_target("t.img"), "a file"),
            (sim_target(), "a simulated drive"),
        ] {
            // Whether the run writes or not: the user meant a device.
            for writes in [true, false] {
                let err = consent(&t, writes, Some(Path::new("/dev/null"))).unwrap_err();
                assert_eq!(
                    err,
                    format!(
                        "--allow-destroy names /dev/null, but the target is {} ({noun}); add --target /dev/null to run on that device, or drop --allow-destroy",
                        t.path.display()
                    )
                );
            }
        }
        // The file itself named (found by the attack session: the message said to add --target t.img).
        let err = consent(&file_target("t.img"), true, Some(Path::new("t.img"))).unwrap_err();
        assert_eq!(
            err,
            "--allow-destroy names t.img, which is the target itself, a file: only a block device needs --allow-destroy; drop it"
        );
    }

    #[test]
    fn a_file_or_a_simulated_drive_needs_no_allow_destroy() {
        let file = file_target("t.img");
        let c = consent(&file, true, None).unwrap();
        assert!(c.covers(&file) && c.allows_writes());
        assert_eq!(c.check(&file, true), Ok(()));
        // The file wkrun creates is planned again once it exists: the same path and kind are covered.
        let mut created = file.clone();
        created.logical_block_size = 4096;
        assert!(c.covers(&created));
        assert!(!c.covers(&file_target("u.img")));
        assert!(!c.covers(&sim_target()));

        let sim = sim_target();
        let s = consent(&sim, true, None).unwrap();
        assert!(s.covers(&sim) && s.allows_writes());
        assert!(!s.covers(&file));
        let other = TargetInfo::sim(
            crate::sim::SimParams::parse_target("sim:capacity=128MiB,op=7%,block=256KiB").unwrap(),
        )
        .unwrap();
        assert!(!s.covers(&other));
    }

    /// A `sleep` holding `path` open for writing on its standard output (as fio holds a device it writes,
    /// without O_EXCL); killed and reaped on drop.
    struct Holder(std::process::Child);

    impl Holder {
        fn new(path: &Path) -> Holder {
            let f = fs::OpenOptions::new().write(true).open(path).unwrap();
            let child = Command::new("sleep")
                .arg("60")
                .stdout(std::process::Stdio::from(f))
                .spawn()
                .unwrap();
            Holder(child)
        }
    }

    impl Drop for Holder {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Attack 24 F10: a loop device another program holds open (not exclusively) is in use, and so are its
    /// backing file and, for a program holding the backing file, the loop device; held by nothing, neither.
    #[test]
    fn a_device_or_backing_file_another_program_holds_open_is_in_use() {
        let test =
            "target::safety::tests::a_device_or_backing_file_another_program_holds_open_is_in_use";
        let Some(loops) = Loops::new(test, 1) else {
            return;
        };
        let t = loops.target(0);
        let dev = t.path.display().to_string();
        let backing = loops.dir.path().join("backing-0.img");
        let file = super::super::probe(&backing, 0).unwrap();
        let shown = backing.display().to_string();
        // Held by nothing: written.
        assert_eq!(in_use_reason(&t), None);
        assert_eq!(in_use_reason(&file), None);
        assert!(consent(&t, true, Some(Path::new(&dev))).is_ok());
        {
            let h = Holder::new(&loops.devs[0]);
            let pid = h.0.id();
            let held =
                format!("{dev} is open in another program: pid {pid} (sleep) has {dev} open");
            assert_eq!(in_use_reason(&t).as_deref(), Some(held.as_str()));
            assert_eq!(
                consent(&t, true, Some(Path::new(&dev))).unwrap_err(),
                format!("refusing to write to {dev}: {held}")
            );
            // A run that only reads is not refused.
            assert!(consent(&t, false, None).is_ok());
            assert_eq!(
                in_use_reason(&file),
                Some(format!("it is the backing file of {dev}, and {held}"))
            );
        }
        {
            let h = Holder::new(&backing);
            let pid = h.0.id();
            assert_eq!(
                in_use_reason(&t),
                Some(format!(
                    "it is a loop device of {shown}, which is open in another program: pid {pid} (sleep) has {shown} open"
                ))
            );
        }
        // Once they have ended, nothing holds either.
        assert_eq!(in_use_reason(&t), None);
        assert_eq!(in_use_reason(&file), None);
    }

    /// A plain file target another program holds open (fio writing the same file) is in use: a run that
    /// writes is refused naming the program; one that reads is not; held by nothing, it is written.
    #[test]
    fn a_file_another_program_holds_open_is_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.img");
        fs::write(&path, vec![0u8; 8192]).unwrap();
        let t = super::super::probe(&path, 0).unwrap();
        assert_eq!(in_use_reason(&t), None);
        {
            let h = Holder::new(&path);
            let (pid, shown) = (h.0.id(), path.display());
            let held = format!("it is open in another program: pid {pid} (sleep) has {shown} open");
            assert_eq!(in_use_reason(&t).as_deref(), Some(held.as_str()));
            assert_eq!(
                consent(&t, true, None).unwrap_err(),
                format!("refusing to write to {shown}: {held}")
            );
            assert!(consent(&t, false, None).is_ok());
        }
        assert_eq!(in_use_reason(&t), None);
        assert!(consent(&t, true, None).is_ok());
    }
}
