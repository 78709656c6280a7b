//! Other programs holding a block device or a file open: found by scanning `/proc/PID/fd` of every process
//! (each descriptor's link read, and the file it names examined, compared by [`Identity`]: the device number
//! of a block device, whichever node names it; the device and inode of a file). A program writing a device
//! without an exclusive open (fio, dd) shows only here: the kernel's `O_EXCL` check does not see it.
//!
//! Limits: a process whose `/proc` entries cannot be read (another user's, without the privilege) is not
//! seen; a program that opens the device after the check is not refused (the run's own `O_EXCL` open keeps
//! out only exclusive openers); a descriptor is all it sees (a memory mapping whose descriptor was closed is not).

use super::Identity;
use std::fs;
use std::path::Path;

/// A process, other than this one, holding one of the files or devices looked for open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opener {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`), empty when unreadable.
    pub comm: String,
    /// The path its descriptor names (the link of `/proc/PID/fd/N`).
    pub path: String,
    /// Which of the files or devices looked for it holds.
    pub of: Identity,
}

impl Opener {
    /// `pid 1234 (fio) has /dev/loop3 open`.
    pub fn words(&self) -> String {
        format!(
            "pid {} ({}) has {} open",
            self.pid,
            crate::text::escaped(&self.comm),
            crate::text::escaped(&self.path)
        )
    }
}

/// The first process (by pid, other than this one and those of `skip`) holding one of `wanted` open
/// through a descriptor, from `/proc`; `None` when none is seen. Entries that cannot be read (a process gone meanwhile, another
/// user's) are skipped, and so are descriptors that name no path (pipes, sockets). A momentary open (udev's
/// probe of a device just attached or closed after writing) is not a program using it: one is seen only
/// when some process still holds it after [`SETTLE_LOOKS`] more looks [`SETTLE`] apart.
pub fn opener(wanted: &[Identity], skip: &[u32]) -> Option<Opener> {
    let mut skip = skip.to_vec();
    skip.push(std::process::id());
    let mut found = opener_in(Path::new("/proc"), wanted, &skip)?;
    for _ in 0..SETTLE_LOOKS {
        std::thread::sleep(SETTLE);
        found = opener_in(Path::new("/proc"), wanted, &skip)?;
    }
    Some(found)
}

/// How many more times [`opener`] looks once it has seen a process holding the file open.
pub const SETTLE_LOOKS: u32 = 2;

/// The time between [`opener`]'s looks.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

fn opener_in(proc: &Path, wanted: &[Identity], skip: &[u32]) -> Option<Opener> {
    let mut pids: Vec<u32> = fs::read_dir(proc)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|p| !skip.contains(p))
        .collect();
    pids.sort_unstable();
    pids.into_iter().find_map(|pid| {
        let dir = proc.join(pid.to_string());
        let (path, of) = held(&dir.join("fd"), wanted)?;
        let comm = fs::read_to_string(dir.join("comm")).unwrap_or_default();
        Some(Opener {
            pid,
            comm: comm.trim_end_matches('\n').to_string(),
            path,
            of,
        })
    })
}

/// The path of a descriptor in the folder `fds` (a process's `fd`) that names one of `wanted`, and which.
fn held(fds: &Path, wanted: &[Identity]) -> Option<(String, Identity)> {
    fs::read_dir(fds).ok()?.flatten().find_map(|fd| {
        let link = fs::read_link(fd.path()).ok()?;
        // `socket:[N]`, `pipe:[N]`, `anon_inode:...` are no file.
        if !link.is_absolute() {
            return None;
        }
        let id = Identity::of(&fs::metadata(fd.path()).ok()?)?;
        wanted
            .contains(&id)
            .then(|| (link.display().to_string(), id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;
    use std::process::{Command, Stdio};

    #[test]
    fn a_child_holding_a_file_open_is_found_and_this_process_is_not() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("held.img");
        fs::write(&f, b"x").unwrap();
        let m = fs::metadata(&f).unwrap();
        let id = Identity::File {
            dev: m.dev(),
            ino: m.ino(),
        };
        // This process holding it is not "another" program.
        let mine = fs::File::open(&f).unwrap();
        assert_eq!(opener(&[id], &[]), None);
        // A `sleep` with the file on its standard input.
        let mut child = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::from(fs::File::open(&f).unwrap()))
            .spawn()
            .unwrap();
        let found = opener(&[id], &[]);
        child.kill().unwrap();
        child.wait().unwrap();
        drop(mine);
        let want = Opener {
            pid: child.id(),
            comm: "sleep".into(),
            path: f.display().to_string(),
            of: id,
        };
        assert_eq!(found, Some(want.clone()));
        assert_eq!(
            want.words(),
            format!("pid {} (sleep) has {} open", child.id(), f.display())
        );
        // Once it has ended, nothing holds it.
        assert_eq!(opener(&[id], &[]), None);
    }
}
