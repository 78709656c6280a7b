//! The kernel's view of the wall clock's discipline (`adjtimex(2)` with no change asked), recorded with runs
//! that start together on several hosts.

use std::io;

/// What `adjtimex` reports of the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockState {
    /// False when `STA_UNSYNC` is set: no NTP or PTP daemon disciplines the clock.
    pub synchronized: bool,
    /// Maximum error, µs (`maxerror`).
    pub max_error_us: i64,
    /// Estimated error, µs (`esterror`).
    pub est_error_us: i64,
}

/// Reads the clock's state; changes nothing (`modes` 0, which needs no privilege).
///
/// # Errors
/// The OS error when the call fails.
pub fn clock_state() -> io::Result<ClockState> {
    // SAFETY: an all-zero `timex` is a valid value of this plain C struct (integers only).
    let mut tx: libc::timex = unsafe { std::mem::zeroed() };
    tx.modes = 0;
    // SAFETY: `tx` is a valid, writable timex for the duration of the call; modes 0 only reads.
    let r = unsafe { libc::adjtimex(&mut tx) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ClockState {
        synchronized: r != libc::TIME_ERROR && tx.status & libc::STA_UNSYNC == 0,
        max_error_us: tx.maxerror,
        est_error_us: tx.esterror,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_state_reads_without_privilege_or_change() {
        let s = super::clock_state().expect("adjtimex(modes = 0)");
        assert!(s.max_error_us >= 0 && s.est_error_us >= 0, "{s:?}");
    }
}
