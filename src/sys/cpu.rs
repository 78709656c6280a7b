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

#[cfg(test)]
mod tests {
    use super::thread_cpu_ns;

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
