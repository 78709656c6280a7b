//! SIGINT/SIGTERM: the first sets a flag that stops the run at the next I/O boundary; the handler is
//! installed with SA_RESETHAND, so a second signal ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first SIGINT or SIGTERM.
pub static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: an all-zero sigaction is a valid value (no flags, empty mask) that is filled in below.
        let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
        act.sa_sigaction = on_signal as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
        // SAFETY: sa_mask is a live field of `act`; sigemptyset only writes it.
        unsafe { libc::sigemptyset(&mut act.sa_mask) };
        // SAFETY: `act` is fully initialised; on_signal only stores to an atomic, which is async-signal-safe.
        unsafe { libc::sigaction(sig, &act, std::ptr::null_mut()) };
    }
}
