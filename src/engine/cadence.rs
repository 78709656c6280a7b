//! A phase's arrivals applied in an engine's loop: when each op is due (its intended issue time, under a
//! rate cap, evenly spaced or Poisson, and after think time) and when the loop thinks. One [`Cadence`] per
//! thread that issues I/O; the schedule itself is the job's ([`Job::slot`], [`crate::vocab::Arrivals`]).

use super::Job;
use crate::ops::Op;
use crate::vocab::{Cursors, Think};

/// One issuing thread's place in the phase's arrivals.
pub(super) struct Cadence {
    cursors: Cursors,
    think: Option<Think>,
    /// Whether ops have intended issue times at all (a rate cap or think time).
    scheduled: bool,
    /// I/Os issued in the current burst.
    issued: u64,
    /// When the current burst was released (the end of the last think time), ns.
    release_ns: u64,
    /// Think times taken.
    pub thinks: u64,
}

impl Cadence {
    /// The cadence of `job`, at the phase's start.
    pub fn new(job: &Job<'_>) -> Cadence {
        Cadence {
            cursors: Cursors::default(),
            think: job.arrivals.think,
            scheduled: job.scheduled(),
            issued: 0,
            release_ns: 0,
            thinks: 0,
        }
    }

    /// Whether the loop has issued the current burst: it lets every I/O in flight complete, then calls
    /// [`Cadence::think`] before it issues the next.
    #[inline(always)]
    pub fn burst_done(&self) -> bool {
        self.think.is_some_and(|t| self.issued >= t.every)
    }

    /// The queue is empty after a burst at `now_ns`: the next burst is released after the think time.
    pub fn think(&mut self, now_ns: u64) {
        if let Some(t) = self.think {
            self.release_ns = now_ns.saturating_add(t.ns);
            self.issued = 0;
            self.thinks += 1;
        }
    }

    /// The loop issued an op.
    #[inline(always)]
    pub fn issued(&mut self) {
        self.issued += 1;
    }

    /// When `op` is due ([`Due`]): its intended issue time under the schedule (`at` 0, intended
    /// [`UNSCHEDULED`], without one); `None` when it must not be issued: its slot under the rate cap ends
    /// after the time bound, or its burst is released at or after it.
    #[inline(always)]
    pub fn due(&mut self, job: &Job<'_>, op: &Op) -> Option<Due> {
        if !self.scheduled {
            return Some(Due {
                at: 0,
                intended: UNSCHEDULED,
            });
        }
        let mut at = self.release_ns;
        let slot = job.slot(op, &mut self.cursors);
        if let Some((start, end)) = slot {
            if job.deadline_ns.is_some_and(|d| end > d) {
                return None;
            }
            at = at.max(start);
        }
        if self.release_ns > 0 && job.deadline_ns.is_some_and(|d| at >= d) {
            return None;
        }
        // A direction without a cap of its own under a per-direction cap, and no think time: the op has
        // no intended time (it is issued when the loop reaches it), so it is timed from its issue.
        let intended = match slot.is_some() || self.think.is_some() {
            true => at,
            false => UNSCHEDULED,
        };
        Some(Due { at, intended })
    }

    /// Whether ops have intended issue times (their latency from it is recorded too).
    #[inline(always)]
    pub fn scheduled(&self) -> bool {
        self.scheduled
    }
}

/// The intended issue time of an op that has none (no schedule, or its direction has no cap of its own
/// and the phase no think time): [`from_intended`] then times it from its issue.
pub(super) const UNSCHEDULED: u64 = u64::MAX;

/// When an op is due, from [`Cadence::due`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Due {
    /// The earliest time the loop may issue it, ns from the phase start (0: at once).
    pub at: u64,
    /// Its intended issue time, ns from the phase start, or [`UNSCHEDULED`].
    pub intended: u64,
}

/// An op's latency from its intended issue time, the one rule of every engine: from `intended` to
/// `done`, or from its issue (`issued`) when it has no intended time ([`UNSCHEDULED`]; no engine issues
/// an op before its intended time): never less than its latency from submission.
#[inline(always)]
pub(super) fn from_intended(intended: u64, issued: u64, done: u64) -> u64 {
    done.saturating_sub(intended.min(issued))
}
