//! CPU time of the calling thread, to tell whether wkrun itself (the host), not the device, set a phase's pace.

use std::io;

/// The CPU time the calling thread has used so far (user and system), ns: `clock_gettime`
/// (`CLOCK_THREAD_CPUTIME_ID`). One syscall-free vDSO call or one syscall; call it per phase, not per I/O.
///
/// # Errors
/// The OS error when the clock cannot be read.
pub fn thread_cpu_ns() -> io::Result<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call; the clock id is a constant.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    Ok(secs.saturating_mul(1_000_000_000).saturating_add(nanos))
}

/// The time the calling thread has spent runnable but waiting for a CPU so far, ns: the second field of
/// `/proc/thread-self/schedstat` (the scheduler's run delay). `None` where the kernel does not keep it
/// (no `CONFIG_SCHED_INFO`) or /proc is not mounted. Two reads per phase and thread, not per I/O.
pub fn thread_run_delay_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// CPU time the whole process has used so far, ns: (user, system), from `getrusage(RUSAGE_SELF)`. Counts
/// every thread of the process, those that ended too (the kernel folds an exiting thread's time into the
/// process's), at the kernel's accounting granularity (a tick, or finer with `CONFIG_VIRT_CPU_ACCOUNTING`).
///
/// # Errors
/// The OS error when the usage cannot be read.
pub fn process_times_ns() -> io::Result<(u64, u64)> {
    // SAFETY: rusage is plain data; all-zero is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage for the duration of the call; RUSAGE_SELF is a constant.
    let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let ns = |t: libc::timeval| {
        let secs = u64::try_from(t.tv_sec).unwrap_or(0);
        let micros = u64::try_from(t.tv_usec).unwrap_or(0);
        secs.saturating_mul(1_000_000_000)
            .saturating_add(micros.saturating_mul(1000))
    };
    Ok((ns(ru.ru_utime), ns(ru.ru_stime)))
}

/// The CPUs the calling thread may run on (its affinity mask), in order.
///
/// # Errors
/// The OS error when the mask cannot be read.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed; pid 0 is the calling thread.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_ISSET reads the set within its size (i < CPU_SETSIZE).
    Ok((0..max)
        .filter(|&i| unsafe { libc::CPU_ISSET(i, &set) })
        .collect())
}

/// Pins the calling thread to CPU `cpu` (threads it starts afterwards inherit the pin).
///
/// # Errors
/// The OS error when the affinity cannot be set.
pub fn pin_to(cpu: usize) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: CPU_SET writes within the set (the caller's cpu comes from `allowed_cpus`, below CPU_SETSIZE;
    // libc's CPU_SET ignores an index past the set's end).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::thread_cpu_ns;

    #[test]
    fn a_thread_pinned_to_an_allowed_cpu_runs_only_there() {
        let cpus = super::allowed_cpus().expect("affinity");
        assert!(!cpus.is_empty());
        let last = *cpus.last().expect("a CPU");
        let on = std::thread::spawn(move || {
            super::pin_to(last).expect("pin");
            super::allowed_cpus().expect("affinity")
        })
        .join()
        .expect("thread");
        assert_eq!(on, vec![last]);
    }

    #[test]
    fn process_times_grow_with_a_busy_thread_and_a_syscall_loop() {
        // Busy until the thread itself has used 40 ms of CPU (a loaded machine gives it less per wall ms).
        let busy = |work: fn()| {
            let t0 = thread_cpu_ns().expect("thread CPU clock");
            while thread_cpu_ns().expect("thread CPU clock") - t0 < 40_000_000 {
                work();
            }
        };
        let (u0, s0) = super::process_times_ns().expect("getrusage");
        // A busy loop on another thread counts in the process's time, mostly user time.
        std::thread::spawn(move || {
            busy(|| {
                std::hint::black_box((0..1000u64).sum::<u64>());
            })
        })
        .join()
        .expect("thread");
        let (u1, s1) = super::process_times_ns().expect("getrusage");
        assert!(
            (u1 + s1) - (u0 + s0) >= 30_000_000,
            "40 ms of a thread's CPU gave {} ns to the process",
            (u1 + s1) - (u0 + s0)
        );
        assert!(u1 > u0, "no user time ({u0} -> {u1})");
        // Syscalls count in system time.
        busy(|| {
            let _ = std::fs::metadata("/proc/self/stat");
        });
        let (_, s2) = super::process_times_ns().expect("getrusage");
        assert!(
            s2 > s1,
            "40 ms of stat() calls gave no system time ({s1} -> {s2})"
        );
    }

    #[test]
    fn a_busy_loop_adds_cpu_time_and_a_sleep_almost_none() {
        let t0 = thread_cpu_ns().expect("thread CPU clock");
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let t1 = thread_cpu_ns().expect("thread CPU clock");
        assert!(t1 > t0, "a busy loop uses CPU time ({t0} -> {t1})");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let t2 = thread_cpu_ns().expect("thread CPU clock");
        assert!(
            t2 - t1 < 20_000_000,
            "a 50 ms sleep used {} ns of CPU",
            t2 - t1
        );
    }
}
