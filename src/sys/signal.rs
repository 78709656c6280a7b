//! SIGINT/SIGTERM: the first sets a flag that stops the run at the next I/O boundary; the handler is then
//! reset to the default, so a second signal ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set by the first SIGINT or SIGTERM.
pub static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that set [`STOP`].
pub static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    SIGNAL.store(sig, Ordering::SeqCst);
    // SAFETY: signal() is async-signal-safe; restoring the default disposition makes a second signal fatal.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: on_signal only touches atomics and calls signal(), both async-signal-safe.
        unsafe {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
}
