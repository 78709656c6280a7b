//! The signals whose default action ends the process and that a process may catch (SIGINT, SIGTERM, SIGHUP
//! when the terminal closes, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGIO, SIGPWR,
//! SIGSTKFLT and the real-time signals): the first sets a flag that stops the run at the next I/O boundary
//! and is remembered ([`first`]) so that results can name it and the exit code be 128 + its number; a
//! second one (of any of them), 200 ms or more after the first, ends the process at once (that signal's
//! default action), except while a run's `results.json` does not say yet that it was interrupted
//! ([`await_mark`]): then as soon as it does ([`marked`], a few milliseconds after the first signal), or
//! at a third signal.
//!
//! SIGHUP ignored when wkrun started stays ignored ([`install`] leaves it), as `nohup` means it; the other
//! stop signals are handled whatever their action at the start (a shell starts a background job with
//! SIGINT and SIGQUIT ignored, and a script stops it with `kill -INT`).
//!
//! Left alone: the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT), which a handler
//! cannot recover from; SIGPIPE, which Rust ignores (a write then fails with EPIPE); SIGXFSZ is ignored
//! ([`ignore_file_size_signal`], from the start of `main`) so that a write beyond RLIMIT_FSIZE fails with EFBIG, a resource limit that fails the run.
//!
//! Copies of one signal arriving within 200 ms count as one: `timeout(1)` forwards a SIGINT both to its child
//! and to its process group, so the child gets it twice at once, which must not kill it before it has written
//! its partial results.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};

/// Set by the first of the [`stop_signals`].
pub static STOP: AtomicBool = AtomicBool::new(false);

/// The number of the first signal received, 0 before any.
static FIRST_SIG: AtomicI32 = AtomicI32::new(0);

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

/// Runs whose results do not say yet that the first signal stopped them ([`await_mark`]).
static UNMARKED: AtomicUsize = AtomicUsize::new(0);

/// A second signal held back until every run's results say they were interrupted; 0 when none.
static HELD: AtomicI32 = AtomicI32::new(0);

/// Ends the process as `sig` would have without a handler.
fn die(sig: libc::c_int) {
    // SAFETY: signal and raise are async-signal-safe; restoring the default action and raising the signal
    // ends the process as the signal would have without a handler.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    let now = monotonic_ns();
    // After a stop no signal made ([`stop_unsignalled`]) the first signal is still the first.
    if !STOP.swap(true, Ordering::SeqCst) || FIRST_SIG.load(Ordering::SeqCst) == 0 {
        FIRST_NS.store(now, Ordering::SeqCst);
        FIRST_SIG.store(sig, Ordering::SeqCst);
        return;
    }
    if now.saturating_sub(FIRST_NS.load(Ordering::SeqCst)) < SECOND_SIGNAL_AFTER_NS {
        return;
    }
    // A run's results still say `running`: held until they say `interrupted` (a third signal is not).
    if UNMARKED.load(Ordering::SeqCst) > 0
        && HELD
            .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        && UNMARKED.load(Ordering::SeqCst) > 0
    {
        return;
    }
    die(sig);
}

/// A run whose results.json is to say it was interrupted before a second signal ends the process: call
/// [`marked`] once it does (or once the run has ended).
pub fn await_mark() {
    UNMARKED.fetch_add(1, Ordering::SeqCst);
}

/// The run of [`await_mark`] has results that say it was interrupted, or has ended: a second signal held
/// back until then ends the process now, when no other run is still to say it.
pub fn marked() {
    if UNMARKED.fetch_sub(1, Ordering::SeqCst) == 1 {
        let held = HELD.load(Ordering::SeqCst);
        if held != 0 {
            die(held);
        }
    }
}

/// The named signals that stop a run; [`stop_signals`] adds the real-time ones.
const NAMED: [(libc::c_int, &str); 13] = [
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGQUIT, "SIGQUIT"),
    (libc::SIGUSR1, "SIGUSR1"),
    (libc::SIGUSR2, "SIGUSR2"),
    (libc::SIGALRM, "SIGALRM"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGSTKFLT, "SIGSTKFLT"),
    (libc::SIGXCPU, "SIGXCPU"),
    (libc::SIGVTALRM, "SIGVTALRM"),
    (libc::SIGPROF, "SIGPROF"),
    (libc::SIGIO, "SIGIO"),
    (libc::SIGPWR, "SIGPWR"),
];

/// Every signal that stops a run: the named ones, then SIGRTMIN to SIGRTMAX (those the C library leaves to
/// programs).
pub fn stop_signals() -> Vec<libc::c_int> {
    let mut all: Vec<libc::c_int> = NAMED.iter().map(|&(s, _)| s).collect();
    all.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    all
}

/// The signal's name: `SIGTERM`, `SIGRTMIN+3`; its number for one wkrun does not catch.
pub fn name(sig: libc::c_int) -> String {
    if let Some((_, n)) = NAMED.iter().find(|&&(s, _)| s == sig) {
        return (*n).to_string();
    }
    match sig - libc::SIGRTMIN() {
        0 => "SIGRTMIN".to_string(),
        k if k > 0 && sig <= libc::SIGRTMAX() => format!("SIGRTMIN+{k}"),
        _ => format!("signal {sig}"),
    }
}

/// Stops the run as the first signal would, at its next I/O boundary, with no signal named ([`first`] stays
/// `None` until one comes, which then counts as the first): the run's summary could not be written to
/// standard output.
pub fn stop_unsignalled() {
    STOP.store(true, Ordering::SeqCst);
}

/// The first signal received since [`install`], if any.
pub fn first() -> Option<libc::c_int> {
    match FIRST_SIG.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Sends `sig` to the process `pid` (a child this process started and has not waited for yet, so that the
/// number names no other process).
///
/// # Errors
/// The OS error (`ESRCH` when it has ended and been waited for).
pub fn send(pid: u32, sig: libc::c_int) -> std::io::Result<()> {
    let pid = libc::pid_t::try_from(pid)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| std::io::Error::from_raw_os_error(libc::ESRCH))?;
    // SAFETY: kill has no memory effects; `pid` is positive (a process, not a group).
    match unsafe { libc::kill(pid, sig) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Ignores SIGXFSZ, so that making or writing a file past RLIMIT_FSIZE fails with EFBIG (an error wkrun
/// reports) instead of killing the process. Call at the start, before any file is created.
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN has no memory effects.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

/// Makes the process `cmd` starts end with this one: the kernel sends it SIGTERM when this process ends
/// (PR_SET_PDEATHSIG), even by SIGKILL, which leaves no time to forward a signal. Where this process has
/// already ended when the child asks, the child does not start (the spawn fails). The child starts with
/// the [`stop_signals`] held back (blocked; a wkrun run releases them once its handler is in place,
/// [`install`]): one that comes before, passed on by this process or sent to the process group as
/// `timeout(1)` sends it, waits for the handler instead of ending the child with no results (attack 13
/// F3: 11 in 29 signals near the start of `sim predict`'s run did). SIGTERM is set to its default action in
/// the child, so the death signal is never one it ignores (an ignored SIGTERM is kept across exec).
pub fn end_child_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    let held = stop_set();
    let ask = move || {
        // SAFETY: pthread_sigmask is async-signal-safe and reads one live sigset_t (a copy in the closure).
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &held, std::ptr::null_mut()) };
        // The death signal must not be one the child ignores: a SIGTERM this process was started with
        // ignored (and so its child, across exec) would let the child outlive it (review of session 15).
        // SAFETY: signal() is async-signal-safe; SIG_DFL is a valid disposition for SIGTERM.
        unsafe { libc::signal(libc::SIGTERM, libc::SIG_DFL) };
        // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid are async-signal-safe and touch no memory of the
        // process, as a function run between fork and exec must.
        let set = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong) };
        if set != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
        }
        Ok(())
    };
    // SAFETY: `ask` only calls async-signal-safe functions and allocates nothing on its success path.
    unsafe { cmd.pre_exec(ask) };
}

/// The [`stop_signals`] as a signal set.
fn stop_set() -> libc::sigset_t {
    // SAFETY: an all-zero sigset_t is a valid value that sigemptyset then initialises.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a live sigset_t; sigemptyset and sigaddset only write it.
    unsafe { libc::sigemptyset(&mut set) };
    for sig in stop_signals() {
        // SAFETY: as above; `sig` is a valid signal number.
        unsafe { libc::sigaddset(&mut set, sig) };
    }
    set
}

/// The calling thread's stop signals held back (blocked) while it lives ([`hold_stop_signals`]); one
/// that arrives meanwhile is delivered when it is dropped. Not `Send`: the mask is a thread's, and a drop
/// on another thread would set that thread's.
pub struct Held(libc::sigset_t, std::marker::PhantomData<*const ()>);

/// Holds the [`stop_signals`] back in the calling thread until the returned [`Held`] is dropped, so that
/// one arriving while a child run is started waits here (and is passed on) instead of being lost. The
/// child's own hold is [`end_child_with_parent`]'s: std clears a forked child's mask before the closures
/// it runs before exec, so a signal in the few instructions between the two reaches the child's copy of
/// this process's handler and is lost at exec; the parent, signalled too (a process group) or alone,
/// passes its first stop signal on.
pub fn hold_stop_signals() -> Held {
    let set = stop_set();
    // SAFETY: an all-zero sigset_t is a valid value, which pthread_sigmask overwrites with the old mask.
    let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live sigset_t values; pthread_sigmask has no other memory effects.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old) };
    Held(old, std::marker::PhantomData)
}

impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved by hold_stop_signals, a live sigset_t.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
    }
}

/// How many times the process was continued after a stop (SIGCONT: after SIGSTOP, or ctrl-Z's SIGTSTP).
static CONTINUED: AtomicU64 = AtomicU64::new(0);

/// CLOCK_MONOTONIC time of the last continue, ns.
static CONTINUED_NS: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_continue(_: libc::c_int) {
    CONTINUED_NS.store(monotonic_ns(), Ordering::SeqCst);
    CONTINUED.fetch_add(1, Ordering::SeqCst);
}

/// How many times the process was continued after a stop so far, and when the last time was (CLOCK_MONOTONIC,
/// ns; 0 before any), once [`install`] has run. A stop itself (SIGSTOP) cannot be caught; its end can.
pub fn continued() -> (u64, u64) {
    (
        CONTINUED.load(Ordering::SeqCst),
        CONTINUED_NS.load(Ordering::SeqCst),
    )
}

/// CLOCK_MONOTONIC now, ns: the clock of [`continued`].
pub fn now_ns() -> u64 {
    monotonic_ns()
}

/// Whether `sig`'s action is now to be ignored (SIG_IGN), as the program that started this process left it.
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: an all-zero sigaction is a valid value, which sigaction overwrites with the current action.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a null new action only reads the current one into `old`, a live sigaction.
    let read = unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
    read == 0 && old.sa_sigaction == libc::SIG_IGN
}

/// Installs the handler for [`stop_signals`] (but SIGHUP when it is ignored then, which stays ignored:
/// `nohup wkrun ...` goes on when the terminal closes), counts continues ([`continued`]) and ignores SIGXFSZ
/// ([`ignore_file_size_signal`]); then releases the stop signals a parent `wkrun` started this process
/// with held back ([`end_child_with_parent`]): one that came meanwhile is handled now.
pub fn install() {
    // SAFETY: an all-zero sigaction is a valid value (no flags, empty mask) that is filled in below.
    let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
    act.sa_sigaction = on_continue as *const () as libc::sighandler_t;
    act.sa_flags = libc::SA_RESTART;
    // SAFETY: sa_mask is a live field of `act`; sigemptyset only writes it.
    unsafe { libc::sigemptyset(&mut act.sa_mask) };
    // SAFETY: `act` is fully initialised; on_continue only uses atomics and clock_gettime, which are
    // async-signal-safe. SIGCONT still continues the process whatever its handler.
    unsafe { libc::sigaction(libc::SIGCONT, &act, std::ptr::null_mut()) };
    // SIGHUP ignored when wkrun started stays ignored: `nohup` ignores it so that the terminal closing does
    // not stop the program. Not SIGINT or SIGQUIT, which a shell starts a background job with ignored:
    // `wkrun ... &` then `kill -INT $!` is how a script stops a run (the VM suite's tests do).
    for sig in stop_signals()
        .into_iter()
        .filter(|&s| s != libc::SIGHUP || !ignored(s))
    {
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
    ignore_file_size_signal();
    let set = stop_set();
    // SAFETY: `set` is a live sigset_t; unblocking has no memory effects beyond running the handler above.
    unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_as_kill_l_names_them() {
        assert_eq!(name(libc::SIGTERM), "SIGTERM");
        assert_eq!(name(libc::SIGUSR2), "SIGUSR2");
        assert_eq!(name(libc::SIGRTMIN()), "SIGRTMIN");
        assert_eq!(name(libc::SIGRTMIN() + 3), "SIGRTMIN+3");
        assert_eq!(name(libc::SIGSEGV), "signal 11");
        let all = stop_signals();
        assert!(all.contains(&libc::SIGALRM) && all.contains(&libc::SIGRTMAX()));
        assert!(!all.contains(&libc::SIGSEGV) && !all.contains(&libc::SIGPIPE));
    }
}
