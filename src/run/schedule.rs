//! Starting phases on a common schedule (`--start-at`, `--phase-grid`): waiting for a phase's start, and the
//! run's `launch` record (rank, requested start, each phase's offset against it, the clock's discipline).

use super::PhaseEnd;
use crate::launch::{Launch, now_unix_ns, rfc3339_ns};
use crate::plan::Plan;
use crate::results::{ClockSync, LaunchResult, PhaseStart};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The longest single sleep while waiting, so that a signal stops the wait promptly.
const WAIT_STEP: Duration = Duration::from_millis(100);

/// The `launch` record of a run starting now; `None` when no launcher asked anything (no rank, no start).
pub fn launch_result(plan: &Plan) -> Option<LaunchResult> {
    let l: &Launch = &plan.launch;
    if *l == Launch::default() {
        return None;
    }
    let clock = crate::sys::clock::clock_state().ok().map(|c| ClockSync {
        synchronized: c.synchronized,
        max_error_us: c.max_error_us,
        est_error_us: c.est_error_us,
    });
    Some(LaunchResult {
        rank: l.rank.as_ref().map(|r| r.rank),
        rank_source: l.rank.as_ref().map(|r| r.source.clone()),
        start_at: l.start_at_unix_ns.map(rfc3339_ns),
        start_at_unix_ns: l.start_at_unix_ns,
        phase_grid_s: l.phase_grid_ns.map(|g| g as f64 / 1e9),
        phase_starts: Vec::new(),
        clock: l.start_at_unix_ns.and(clock),
    })
}

/// Waits until the wall clock reads `at_unix_ns` (at once when it is past); the wall clock when the wait
/// ended, or `None` when `stop` was set meanwhile.
pub fn wait_until(at_unix_ns: u64, stop: &AtomicBool) -> Option<u64> {
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let now = now_unix_ns();
        if now >= at_unix_ns {
            return Some(now);
        }
        std::thread::sleep(Duration::from_nanos(at_unix_ns - now).min(WAIT_STEP));
    }
}

/// The start of a phase that ran on the schedule: t = 0 of its series when it has one, else `woke`.
pub fn phase_start(index: usize, requested: u64, woke: u64, end: &PhaseEnd) -> PhaseStart {
    let t0 = match end {
        PhaseEnd::Done(pr) | PhaseEnd::Interrupted(pr) | PhaseEnd::Failed(pr, _) => {
            pr.series_t0_unix_ns
        }
        PhaseEnd::NotRun(_) => None,
    };
    let started = t0.unwrap_or(woke);
    PhaseStart {
        index,
        requested_unix_ns: requested,
        started_unix_ns: started,
        offset_ns: i64::try_from(i128::from(started) - i128::from(requested)).unwrap_or(i64::MAX),
    }
}

/// The log line before a wait.
pub fn waiting_line(index: usize, at_unix_ns: u64) -> String {
    let ahead = at_unix_ns.saturating_sub(now_unix_ns()) as f64 / 1e9;
    format!(
        "waiting until {} (in {ahead:.3} s) to start phase {index}",
        rfc3339_ns(at_unix_ns)
    )
}

/// A note when the run waits for a common start on a clock the kernel marks unsynchronized: the start it
/// waits for and the kernel's own error bound.
pub fn clock_note(l: Option<&LaunchResult>) -> Option<String> {
    let l = l?;
    let c = l.clock?;
    (!c.synchronized).then(|| {
        format!(
            "note: the kernel marks this host's clock unsynchronized (no NTP or PTP daemon disciplines it; its maximum error is {:.1} s): the hosts may not agree on when {} comes; check their clocks (chronyc tracking, timedatectl)",
            c.max_error_us as f64 / 1e6,
            l.start_at.as_deref().unwrap_or("the start")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_note_names_the_start_and_the_kernels_error() {
        let clock = |synchronized| ClockSync {
            synchronized,
            max_error_us: 16_000_000,
            est_error_us: 16_000_000,
        };
        let mut l = LaunchResult {
            rank: Some(0),
            rank_source: Some("--rank".into()),
            start_at: Some("2026-12-01T16:27:21.000000000Z".into()),
            start_at_unix_ns: Some(1_796_142_441_000_000_000),
            phase_grid_s: None,
            phase_starts: Vec::new(),
            clock: Some(clock(false)),
        };
        assert_eq!(
            clock_note(Some(&l)).as_deref(),
            Some(
                "note: the kernel marks this host's clock unsynchronized (no NTP or PTP daemon disciplines it; its maximum error is 16.0 s): the hosts may not agree on when 2026-12-01T16:27:21.000000000Z comes; check their clocks (chronyc tracking, timedatectl)"
            )
        );
        l.clock = Some(clock(true));
        assert_eq!(clock_note(Some(&l)), None);
        assert_eq!(clock_note(None), None);
    }
}
