//! The resource limits (getrlimit) an engine's setup can run into, in words for error messages and notes.

/// A resource limit of this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// RLIMIT_NPROC: processes and threads of this user, all processes together (root is exempt).
    Processes,
    /// RLIMIT_MEMLOCK: locked (pinned) memory, bytes; io_uring's registered buffers count against it.
    LockedMemory,
    /// RLIMIT_AS: the process's address space, bytes; every allocation counts against it.
    AddressSpace,
    /// RLIMIT_FSIZE: the largest file the process may make or write, bytes (`ulimit -f` counts KiB).
    FileSize,
    /// RLIMIT_NOFILE: files this process may hold open at once (one more than the highest descriptor).
    OpenFiles,
    /// RLIMIT_STACK: the main thread's stack, bytes (threads the program starts set their own).
    Stack,
}

impl Limit {
    fn resource(self) -> libc::__rlimit_resource_t {
        match self {
            Limit::Processes => libc::RLIMIT_NPROC,
            Limit::LockedMemory => libc::RLIMIT_MEMLOCK,
            Limit::AddressSpace => libc::RLIMIT_AS,
            Limit::FileSize => libc::RLIMIT_FSIZE,
            Limit::OpenFiles => libc::RLIMIT_NOFILE,
            Limit::Stack => libc::RLIMIT_STACK,
        }
    }

    /// The limit in words, with its name and the shell's `ulimit` flag.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Processes => {
                "the limit on this user's processes and threads (RLIMIT_NPROC, ulimit -u)"
            }
            Limit::LockedMemory => "the locked-memory limit (RLIMIT_MEMLOCK, ulimit -l)",
            Limit::AddressSpace => "the address-space limit (RLIMIT_AS, ulimit -v)",
            Limit::FileSize => "the file-size limit (RLIMIT_FSIZE, ulimit -f)",
            Limit::OpenFiles => "the limit on open files (RLIMIT_NOFILE, ulimit -n)",
            Limit::Stack => "the stack limit (RLIMIT_STACK, ulimit -s)",
        }
    }

    /// The soft limit of this process: a count of processes, or bytes; `None` when unlimited (or unknown).
    pub fn soft(self) -> Option<u64> {
        self.get()
            .map(|r| r.rlim_cur)
            .filter(|&v| v != libc::RLIM_INFINITY)
    }

    /// The soft and hard limits, or `None` when they cannot be read.
    fn get(self) -> Option<libc::rlimit> {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit to a valid pointer.
        let rc = unsafe { libc::getrlimit(self.resource(), &mut r) };
        (rc == 0).then_some(r)
    }

    /// Raises the soft limit to the hard limit (to `want` where the hard limit is unlimited), as far as
    /// `want` at least, when it is below `want`: true when the soft limit is `want` or more afterwards. The
    /// hard limit only root may raise, and is left as it is.
    pub fn raise_to(self, want: u64) -> bool {
        let Some(r) = self.get() else {
            return false;
        };
        if r.rlim_cur == libc::RLIM_INFINITY || r.rlim_cur >= want {
            return true;
        }
        if r.rlim_max != libc::RLIM_INFINITY && r.rlim_max < want {
            return false;
        }
        let to = match r.rlim_max {
            libc::RLIM_INFINITY => want,
            hard => hard,
        };
        let raised = libc::rlimit {
            rlim_cur: to,
            rlim_max: r.rlim_max,
        };
        // SAFETY: setrlimit reads one rlimit from a valid pointer; the soft limit stays within the hard one.
        if unsafe { libc::setrlimit(self.resource(), &raised) } == 0 {
            return true;
        }
        // The hard limit may be above the kernel's own cap (fs.nr_open): then only as far as is needed.
        let needed = libc::rlimit {
            rlim_cur: want,
            rlim_max: r.rlim_max,
        };
        // SAFETY: as above.
        unsafe { libc::setrlimit(self.resource(), &needed) == 0 }
    }

    /// The hard limit of this process; `None` when unlimited (or unknown).
    pub fn hard(self) -> Option<u64> {
        self.get()
            .map(|r| r.rlim_max)
            .filter(|&v| v != libc::RLIM_INFINITY)
    }

    /// `"; <name> is <value>"` when the limit is set, else an empty string: the tail of an error message.
    /// The process limit is left out for root, which it does not bind.
    pub fn note(self) -> String {
        let unit = match self {
            Limit::Processes | Limit::OpenFiles => "",
            Limit::LockedMemory | Limit::AddressSpace | Limit::FileSize | Limit::Stack => " B",
        };
        // SAFETY: geteuid takes nothing and cannot fail.
        if self == Limit::Processes && unsafe { libc::geteuid() } == 0 {
            return String::new();
        }
        self.soft()
            .map_or(String::new(), |v| format!("; {} is {v}{unit}", self.name()))
    }
}

/// `e` as it was, or, when it is EFBIG (a write past RLIMIT_FSIZE), naming that limit and its value.
pub fn explain_file_size(e: std::io::Error) -> std::io::Error {
    if e.raw_os_error() != Some(libc::EFBIG) {
        return e;
    }
    let limit = Limit::FileSize
        .soft()
        .map_or(String::new(), |v| format!(" ({v} B)"));
    std::io::Error::other(format!(
        "{}: the file reached {}{limit}",
        crate::sys::os_text(&e),
        Limit::FileSize.name()
    ))
}

/// Files this process has open now (the entries of /proc/self/fd, less the one reading it), or `None`.
pub fn open_files() -> Option<u64> {
    let n = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
    Some(n.saturating_sub(1))
}

/// What an OS error of running out of file descriptors owes to a limit, as the tail of its message: for
/// `EMFILE`, `"; <the open-file limit> is N"`; for `ENFILE`, the system-wide limit (`fs.file-max`); else
/// an empty string.
pub fn errno_note(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EMFILE) => match Limit::OpenFiles.note() {
            n if n.is_empty() => format!("; {} was reached", Limit::OpenFiles.name()),
            n => n,
        },
        Some(libc::ENFILE) => {
            "; the system's limit on open files (fs.file-max, /proc/sys/fs/file-max) was reached"
                .to_string()
        }
        _ => String::new(),
    }
}

/// `"; the cgroup's pids.max is N (pids.current M, FILE)"` when a pids controller of this process's cgroup
/// (or of one above it) limits its tasks, else an empty string: a thread that cannot be made under a
/// container's or a systemd unit's limit is that limit's doing, whoever the user is.
pub fn cgroup_pids_note() -> String {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    for (dir, _) in cgroup_dirs(&groups, "pids") {
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        if let Some(max) = read("pids.max").and_then(|m| m.trim().parse::<u64>().ok()) {
            let current = read("pids.current")
                .map_or(String::new(), |c| format!("pids.current {}, ", c.trim()));
            return format!("; the cgroup's pids.max is {max} ({current}{dir}/pids.max)");
        }
    }
    String::new()
}

/// The folders of the cgroups over this process that `controller` ("pids", "memory") may limit, from the
/// text of /proc/self/cgroup `groups` (v2's `0::PATH`, v1's `N:CONTROLLERS:PATH`): each cgroup's folder
/// and each above it up to its hierarchy's root, leaf first, with whether it is cgroup v1's (the
/// controller's own hierarchy). v2's are looked for under /sys/fs/cgroup and, in a hybrid layout, under
/// /sys/fs/cgroup/unified.
pub fn cgroup_dirs(groups: &str, controller: &str) -> Vec<(String, bool)> {
    let mut dirs = Vec::new();
    for line in groups.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let (roots, v1) = match controllers {
            "" => (
                vec![
                    "/sys/fs/cgroup".to_string(),
                    "/sys/fs/cgroup/unified".into(),
                ],
                false,
            ),
            c if c.split(',').any(|c| c == controller) => {
                (vec![format!("/sys/fs/cgroup/{controller}")], true)
            }
            _ => continue,
        };
        for root in roots {
            let mut dir = path.trim_end_matches('/').to_string();
            loop {
                dirs.push((format!("{root}{dir}"), v1));
                match dir.rfind('/') {
                    Some(at) => dir.truncate(at),
                    None => break,
                }
            }
        }
    }
    dirs
}

/// Whether `bytes` of address space are free now, under the address-space limit: true when no limit is set
/// (address space is then not what runs out), else whether a mapping of that size (no access, nothing
/// committed) can be made, at once unmapped again. Threads need address space for their stacks and the
/// standard library aborts the process when a new thread cannot map its signal stack, so a phase checks
/// first ([`Limit::AddressSpace`]).
pub fn address_space_free(bytes: u64) -> bool {
    if Limit::AddressSpace.soft().is_none() || bytes == 0 {
        return true;
    }
    let Ok(len) = usize::try_from(bytes) else {
        return false;
    };
    // SAFETY: an anonymous private mapping with no access, at an address the kernel chooses; nothing reads
    // or writes it, and it is unmapped with the length it was made with.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return false;
        }
        libc::munmap(p, len);
    }
    true
}

/// The address space this process maps now (the first field of /proc/self/statm, in bytes), or `None`.
pub fn address_space_used() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    Some(pages * 4096)
}

/// Address space short of a need under the address-space limit: the limit, what the process maps now, and
/// a limit that would leave the need free (1 MiB more, in whole MiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shortfall {
    /// The soft limit, bytes.
    pub limit: u64,
    /// The address space mapped now, bytes.
    pub used: u64,
    /// A limit that leaves the need free, bytes.
    pub enough: u64,
}

impl Shortfall {
    /// `"{what} needs about {need} B of address space beyond the {used} B wkrun maps now ({detail}), and
    /// the address-space limit ... is {limit} B: raise it to at least {enough} B (ulimit -v K) or remove
    /// it"`: the error of a command refused for it.
    pub fn message(&self, what: &str, need: u64, detail: &str) -> String {
        format!(
            "{what} needs about {need} B of address space beyond the {} B wkrun maps now ({detail}), and {} is {} B: raise it to at least {} B (ulimit -v {}) or remove it",
            self.used,
            Limit::AddressSpace.name(),
            self.limit,
            self.enough,
            self.enough / 1024
        )
    }
}

/// Under an address-space limit that does not leave `need` bytes free now, by how much ([`Shortfall`]);
/// `None` without a limit or when they are free.
pub fn address_space_shortfall(need: u64) -> Option<Shortfall> {
    let limit = Limit::AddressSpace.soft()?;
    if address_space_free(need) {
        return None;
    }
    let used = address_space_used().unwrap_or(limit);
    let enough = (used.saturating_add(need).div_ceil(1 << 20) + 1) << 20;
    Some(Shortfall {
        limit,
        used,
        enough,
    })
}

/// The memory the machine can give a process now: `MemAvailable` of /proc/meminfo, and what the tightest
/// cgroup memory limit over this process leaves (cgroup v2 `memory.max` less `memory.current`, or v1
/// `memory.limit_in_bytes` less `memory.usage_in_bytes`, of its cgroup and each above it, the usage less
/// its reclaimable page cache: [`tightest_cgroup`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Memory {
    /// `MemAvailable`, bytes (`None`: not read).
    pub available: Option<u64>,
    /// The tightest cgroup limit: its folder, the limit and the usage less reclaimable page cache, bytes
    /// (`None`: none set).
    pub cgroup: Option<(String, u64, u64)>,
}

impl Memory {
    /// The memory of this process now ([`Memory`]), read from /proc and /sys/fs/cgroup.
    pub fn now() -> Memory {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        Memory {
            available: mem_available(&meminfo),
            cgroup: tightest_cgroup(&groups, |f| std::fs::read_to_string(f).ok()),
        }
    }

    /// When `need` bytes are more than either gives: `"{what} needs about {need} B of memory ({detail}),
    /// more than ..."` naming MemAvailable or the cgroup limit; `None` when both hold it (or neither was read).
    pub fn shortfall(&self, what: &str, need: u64, detail: &str) -> Option<String> {
        if let Some((dir, max, current)) = &self.cgroup {
            let left = max.saturating_sub(*current);
            if need > left {
                return Some(format!(
                    "{what} needs about {need} B of memory ({detail}), more than the {left} B its cgroup's memory limit leaves ({dir}: limit {max} B, in use {current} B besides reclaimable page cache); raise the limit or free memory"
                ));
            }
        }
        let available = self.available?;
        (need > available).then(|| {
            format!(
                "{what} needs about {need} B of memory ({detail}), more than the machine has available (MemAvailable in /proc/meminfo: {available} B); free memory or use a machine with more"
            )
        })
    }
}

/// `MemAvailable` of the text of /proc/meminfo, in bytes.
pub fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let n: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// The cgroup memory limit that leaves least, over the cgroups of /proc/self/cgroup's text `groups`
/// ([`cgroup_dirs`]): its folder, limit and usage less its reclaimable page cache (v2's `memory.current`
/// less `inactive_file` of `memory.stat`, v1's `memory.usage_in_bytes` less `total_inactive_file`: a
/// cgroup full of the cache of a buffered fill has that much to give at once); `read` reads a file. A
/// limit of `max` (v2) or at least 2^62 (v1's unlimited) is none.
pub fn tightest_cgroup(
    groups: &str,
    read: impl Fn(&str) -> Option<String>,
) -> Option<(String, u64, u64)> {
    let mut best: Option<(String, u64, u64)> = None;
    for (folder, v1) in cgroup_dirs(groups, "memory") {
        let (max_file, cur_file, cache) = match v1 {
            false => ("memory.max", "memory.current", "inactive_file"),
            true => (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
            ),
        };
        let num = |f: &str| read(&format!("{folder}/{f}"))?.trim().parse::<u64>().ok();
        let (Some(max), Some(cur)) = (num(max_file), num(cur_file)) else {
            continue;
        };
        let inactive = read(&format!("{folder}/memory.stat"))
            .and_then(|t| stat_value(&t, cache))
            .unwrap_or(0);
        let used = cur.saturating_sub(inactive);
        if max < 1 << 62
            && best
                .as_ref()
                .is_none_or(|(_, m, u)| max.saturating_sub(used) < m.saturating_sub(*u))
        {
            best = Some((folder, max, used));
        }
    }
    best
}

/// The value of `key` in the text of a cgroup's `memory.stat` (lines `KEY VALUE`).
fn stat_value(stat: &str, key: &str) -> Option<u64> {
    stat.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// The address space wkrun needs free when it starts, beyond what the program and its libraries map: under
/// less, an allocation of its own could fail where it cannot be reported (the standard library aborts).
pub const START_ROOM: u64 = 4 << 20;

/// Under an address-space limit (`ulimit -v`) that leaves less than [`START_ROOM`] free once the program is
/// loaded: the limit, and a limit that leaves it (whole MiB); `None` otherwise. Allocates
/// nothing (it maps and unmaps regions to find the room: a binary search to the page), so it can be the
/// first thing `main` does.
pub fn address_space_too_small() -> Option<(u64, u64)> {
    let limit = Limit::AddressSpace.soft()?;
    if address_space_free(START_ROOM) {
        return None;
    }
    // The most that can be mapped: in [lo, hi), to 4 KiB.
    let (mut lo, mut hi) = (0u64, START_ROOM);
    while hi - lo > 4096 {
        let mid = (lo + hi) / 2 / 4096 * 4096;
        match address_space_free(mid.max(4096)) {
            true => lo = mid.max(4096),
            false => hi = mid.max(4096),
        }
    }
    // What the process maps at start varies with the limit (a few hundred KiB): 1 MiB more than the room
    // missing now.
    let enough = ((limit + START_ROOM - lo).div_ceil(1 << 20) + 1) << 20;
    Some((limit, enough))
}

/// Under an address-space limit (`ulimit -v`), keeps glibc's malloc to its main arena: each thread that
/// allocates would otherwise reserve an arena of 64 MiB of address space (up to 8 per CPU) as it goes,
/// which the limit does not leave room for and the check before a phase cannot foresee. Call once at the
/// start, before other threads exist; does nothing without the limit (or outside glibc).
pub fn one_malloc_arena_under_address_limit() {
    if Limit::AddressSpace.soft().is_none() {
        return;
    }
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt sets a tunable of glibc's allocator; called at the start, on the only thread.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Whether this process may lock any amount of memory (CAP_IPC_LOCK in its effective set, as root usually
/// has): then RLIMIT_MEMLOCK does not limit io_uring's registered buffers. False when it cannot be read.
pub fn can_lock_any_memory() -> bool {
    const CAP_IPC_LOCK: u32 = 14;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << CAP_IPC_LOCK) != 0)
}

/// Whether `e` is a resource running out rather than a bad input: a full file system or quota (ENOSPC,
/// EDQUOT), the file-size limit (EFBIG), the open-file limits (EMFILE, ENFILE), memory (ENOMEM).
pub fn is_resource_limit(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(
            libc::ENOSPC | libc::EDQUOT | libc::EFBIG | libc::EMFILE | libc::ENFILE | libc::ENOMEM
        )
    ) || matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull
            | std::io::ErrorKind::QuotaExceeded
            | std::io::ErrorKind::FileTooLarge
            | std::io::ErrorKind::OutOfMemory
    )
}

#[cfg(test)]
mod tests {
    use super::{Limit, Memory, mem_available, tightest_cgroup};

    /// The decision from given files, against a computation of its own: the cgroup v2 limit of this
    /// machine cannot be set here (its memory controller is cgroup v1's, held by the session), so the
    /// files are given.
    #[test]
    fn memory_short_of_a_need_names_meminfo_or_the_cgroup() {
        let meminfo = "MemTotal:  8000000 kB\nMemFree:  1000 kB\nMemAvailable:   2000000 kB\n";
        assert_eq!(mem_available(meminfo), Some(2_000_000 * 1024));
        assert_eq!(mem_available("MemFree: 1 kB\n"), None);
        let files = |f: &str| match f {
            "/sys/fs/cgroup/a/b/memory.max" => Some("max\n".to_string()),
            "/sys/fs/cgroup/a/b/memory.current" => Some("100\n".to_string()),
            "/sys/fs/cgroup/a/memory.max" => Some("1073741824\n".to_string()),
            "/sys/fs/cgroup/a/memory.current" => Some("73741824\n".to_string()),
            "/sys/fs/cgroup/memory.max" => Some("2147483648\n".to_string()),
            "/sys/fs/cgroup/memory.current" => Some("0\n".to_string()),
            _ => None,
        };
        let cg = tightest_cgroup("0::/a/b\n", files);
        assert_eq!(
            cg,
            Some(("/sys/fs/cgroup/a".to_string(), 1 << 30, 73_741_824))
        );
        // v1's unlimited is none.
        let v1 = |f: &str| match f {
            "/sys/fs/cgroup/memory/x/memory.limit_in_bytes" => Some("9223372036854771712".into()),
            "/sys/fs/cgroup/memory/x/memory.usage_in_bytes" => Some("5".into()),
            _ => None,
        };
        assert_eq!(tightest_cgroup("4:memory:/x\n2:cpu:/\n", v1), None);
        let m = Memory {
            available: mem_available(meminfo),
            cgroup: cg,
        };
        let left = (1u64 << 30) - 73_741_824;
        assert_eq!(left, 1_000_000_000);
        assert_eq!(m.shortfall("a report", left, "d"), None);
        assert_eq!(
            m.shortfall("a report", left + 1, "d").unwrap(),
            "a report needs about 1000000001 B of memory (d), more than the 1000000000 B its cgroup's memory limit leaves (/sys/fs/cgroup/a: limit 1073741824 B, in use 73741824 B besides reclaimable page cache); raise the limit or free memory"
        );
        let free = Memory {
            available: Some(2_048_000_000),
            cgroup: None,
        };
        assert_eq!(free.shortfall("a run", 2_048_000_000, "d"), None);
        assert_eq!(
            free.shortfall("a run", 2_048_000_001, "d").unwrap(),
            "a run needs about 2048000001 B of memory (d), more than the machine has available (MemAvailable in /proc/meminfo: 2048000000 B); free memory or use a machine with more"
        );
        assert_eq!(Memory::default().shortfall("a run", u64::MAX, "d"), None);
    }

    /// A cgroup whose usage is its limit, most of it page cache the kernel would reclaim (a buffered fill):
    /// what it leaves is the limit less the usage less `inactive_file` (v2) or `total_inactive_file` (v1).
    /// A hybrid layout's v2 folder under /sys/fs/cgroup/unified is read too.
    #[test]
    fn a_cgroup_full_of_page_cache_leaves_its_cache() {
        let gib = 1u64 << 30;
        let v2 = |f: &str| match f {
            "/sys/fs/cgroup/unified/a/memory.max" => Some(format!("{gib}\n")),
            "/sys/fs/cgroup/unified/a/memory.current" => Some(format!("{gib}\n")),
            "/sys/fs/cgroup/unified/a/memory.stat" => Some(
                "anon 100000000\nfile 973741824\nactive_file 73741824\ninactive_file 900000000\n"
                    .into(),
            ),
            _ => None,
        };
        let cg = tightest_cgroup("0::/a\n", v2);
        assert_eq!(
            cg,
            Some((
                "/sys/fs/cgroup/unified/a".to_string(),
                gib,
                gib - 900_000_000
            ))
        );
        let m = Memory {
            available: None,
            cgroup: cg,
        };
        assert_eq!(m.shortfall("a run", 900_000_000, "d"), None);
        assert_eq!(
            m.shortfall("a run", 900_000_001, "d").unwrap(),
            "a run needs about 900000001 B of memory (d), more than the 900000000 B its cgroup's memory limit leaves (/sys/fs/cgroup/unified/a: limit 1073741824 B, in use 173741824 B besides reclaimable page cache); raise the limit or free memory"
        );
        // v1: total_inactive_file (inactive_file, of this cgroup alone, is not the one read).
        let v1 = |f: &str| match f {
            "/sys/fs/cgroup/memory/x/memory.limit_in_bytes" => Some("2000000\n".into()),
            "/sys/fs/cgroup/memory/x/memory.usage_in_bytes" => Some("2000000\n".into()),
            "/sys/fs/cgroup/memory/x/memory.stat" => {
                Some("cache 1500000\ninactive_file 5\ntotal_inactive_file 1500000\n".into())
            }
            _ => None,
        };
        assert_eq!(
            tightest_cgroup("4:memory:/x\n", v1),
            Some(("/sys/fs/cgroup/memory/x".to_string(), 2_000_000, 500_000))
        );
        let dirs = super::cgroup_dirs("5:pids:/u/s\n0::/w\n", "pids");
        let dirs: Vec<(&str, bool)> = dirs.iter().map(|(d, v)| (d.as_str(), *v)).collect();
        assert_eq!(
            dirs,
            [
                ("/sys/fs/cgroup/pids/u/s", true),
                ("/sys/fs/cgroup/pids/u", true),
                ("/sys/fs/cgroup/pids", true),
                ("/sys/fs/cgroup/w", false),
                ("/sys/fs/cgroup", false),
                ("/sys/fs/cgroup/unified/w", false),
                ("/sys/fs/cgroup/unified", false),
            ]
        );
    }

    #[test]
    fn reads_the_limits_of_this_process() {
        for l in [
            Limit::Processes,
            Limit::LockedMemory,
            Limit::AddressSpace,
            Limit::FileSize,
        ] {
            // SAFETY: geteuid takes nothing and cannot fail.
            let root = unsafe { libc::geteuid() } == 0;
            let expected = match (l.soft(), l) {
                (None, _) => String::new(),
                // Root is exempt from the process limit, and is not told of it.
                (Some(_), Limit::Processes) if root => String::new(),
                (Some(v), Limit::Processes) => format!("; {} is {v}", l.name()),
                (Some(v), _) => format!("; {} is {v} B", l.name()),
            };
            assert_eq!(l.note(), expected);
        }
        assert!(Limit::LockedMemory.name().contains("RLIMIT_MEMLOCK"));
    }
}
