//! SIGINT, SIGTERM and SIGHUP (the terminal closed): the first sets a flag that stops the run at the next I/O
//! boundary; a second one (of any of the three), 200 ms or more after the first, ends the process at once
//! (that signal's default action).
//!
//! Copies of one signal arriving within 200 ms count as one: `timeout(1)` forwards a SIGINT both to its child
//! and to its process group, so the child gets it twice at once, which must not kill it before it has written
//! its partial results.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Set by the first SIGINT, SIGTERM or SIGHUP.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// CLOCK_MONOTONIC time of the first signal, ns.
static FIRST_NS: AtomicU64 = AtomicU64::new(0);

/// A second signal this long after the first ends the process; closer ones are copies of the first.
pub const SECOND_SIGNAL_AFTER_NS: u64 = 200_000_000;

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to a valid pointer; it is async-signal-safe.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

extern "C" fn on_signal(sig: libc::c_int) {
    let now = monotonic_ns();
    if !STOP.swap(true, Ordering::SeqCst) {
        FIRST_NS.store(now, Ordering::SeqCst);
        return;
    }
    if now.saturating_sub(FIRST_NS.load(Ordering::SeqCst)) >= SECOND_SIGNAL_AFTER_NS {
        // SAFETY: signal and raise are async-signal-safe; restoring the default action and raising the signal
        // ends the process as the signal would have without a handler.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// The signals that stop a run: interrupt (Ctrl-C), terminate, and hang-up (the terminal closed).
pub const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Installs the handler for [`STOP_SIGNALS`].
pub fn install() {
    for sig in STOP_SIGNALS {
        // SAFETY: an all-zero sigaction is a valid value (no flags, empty mask) that is filled in below.
        let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
        act.sa_sigaction = on_signal as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_RESTART;
        // SAFETY: sa_mask is a live field of `act`; sigemptyset only writes it.
        unsafe { libc::sigemptyset(&mut act.sa_mask) };
        // SAFETY: `act` is fully initialised; on_signal only uses atomics, clock_gettime, signal and raise,
        // which are async-signal-safe.
        unsafe { libc::sigaction(sig, &act, std::ptr::null_mut()) };
    }
}
