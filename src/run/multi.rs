//! Several targets in one run: one plan per target (the same spec resolved against each target's geometry),
//! each run by [`super::execute`]'s loop on a thread of its own, phase by phase: a [`Gate`] starts each phase
//! on every target together, once all have finished the one before. Each target writes its own results
//! folder; `wkrun merge`'s code sums them into the run's aggregate (in `src/main.rs`, which owns the folders).
//!
//! A target that fails stops the run: the others finish the phase they are running and stop at the gate,
//! their results saying so. A signal stops every target at its next I/O boundary.

use super::observer::{Console, Observer};
use super::{RunError, execute_gated};
use crate::plan::{PhasePlan, Plan};
use crate::results::Results;
use crate::results::outdir::OutDir;
use crate::results::series_csv::SeriesRow;
use crate::results::write::WriteError;
use crate::spec::LoadedSpec;
use crate::target::safety::Consent;
use std::sync::atomic::AtomicBool;
use std::sync::{Condvar, Mutex, MutexGuard};

/// A barrier per phase for the runs of several targets, which a run may leave (it ended, failed or was
/// interrupted): a phase starts on every target still running once all of them have arrived at it.
pub struct Gate {
    state: Mutex<GateState>,
    cv: Condvar,
    /// Whether a run has said what is true of the host, not of its target (the clock note).
    host_said: AtomicBool,
}

struct GateState {
    /// Runs that have not left.
    live: usize,
    /// Runs waiting at the current phase.
    arrived: usize,
    /// Incremented each time the waiting runs are let through.
    generation: u64,
    /// The first failure a run left with.
    failed: Option<String>,
}

impl Gate {
    /// A gate for `runs` runs.
    pub fn new(runs: usize) -> Gate {
        Gate {
            state: Mutex::new(GateState {
                live: runs,
                arrived: 0,
                generation: 0,
                failed: None,
            }),
            cv: Condvar::new(),
            host_said: AtomicBool::new(false),
        }
    }

    /// Whether this run is the one to say what is true of the whole host (true once, for the first asking):
    /// the runs share the host, so such a note is printed once, not once per target.
    pub fn say_for_host(&self) -> bool {
        !self
            .host_said
            .swap(true, std::sync::atomic::Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until every run still running has arrived at this phase.
    ///
    /// # Errors
    /// Another run failed: this one must stop (the message says which and why).
    pub fn arrive(&self) -> Result<(), String> {
        let stopped = |m: &str| format!("stopped before this phase: {m}");
        let mut s = self.lock();
        if let Some(m) = &s.failed {
            return Err(stopped(m));
        }
        s.arrived += 1;
        if s.arrived >= s.live {
            s.arrived = 0;
            s.generation += 1;
            self.cv.notify_all();
            return Ok(());
        }
        let generation = s.generation;
        loop {
            s = self.cv.wait(s).unwrap_or_else(|p| p.into_inner());
            if s.generation != generation {
                return Ok(());
            }
            if let Some(m) = s.failed.clone() {
                s.arrived -= 1;
                return Err(stopped(&m));
            }
        }
    }

    /// A run ended: with `failure`, the others stop at their next phase (those waiting at once); without,
    /// the runs waiting for it are let through when they are all that is left.
    pub fn leave(&self, failure: Option<String>) {
        let mut s = self.lock();
        s.live = s.live.saturating_sub(1);
        if failure.is_some() {
            // The runs waiting stop (they see the failure); none is let through.
            if s.failed.is_none() {
                s.failed = failure;
            }
        } else if s.arrived > 0 && s.arrived >= s.live {
            s.arrived = 0;
            s.generation += 1;
        }
        self.cv.notify_all();
    }
}

/// One target's part of a run on several targets.
pub struct TargetRun<'a> {
    /// Its name in log lines and its results folder's name (`t0-a.img`).
    pub label: String,
    /// The spec resolved against this target.
    pub plan: &'a Plan,
    /// The consent for this target ([`crate::target::safety::consent`]).
    pub consent: &'a Consent,
    /// Its results folder, open and locked.
    pub out_dir: &'a OutDir,
}

/// Log lines prefixed with the target's label, for the runs of several targets sharing one terminal.
struct Prefixed<'a> {
    label: &'a str,
    inner: Console,
    /// The run's first result line, said once by whichever target records its results first.
    first: Option<(&'a std::sync::Once, &'a str)>,
}

impl Prefixed<'_> {
    /// The label as lines show it: whole up to [`LABEL_SHOWN`] bytes, else its start and `…` (`t0-` keeps
    /// targets apart), so that a long path leaves a warning's line room for the warning.
    fn shown(&self) -> String {
        match self.label.len() > LABEL_SHOWN {
            true => {
                let mut end = LABEL_SHOWN - 1;
                while !self.label.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}…", &self.label[..end])
            }
            false => self.label.to_string(),
        }
    }
}

/// The most bytes of a target's label in its log lines' prefix.
const LABEL_SHOWN: usize = 40;

impl Observer for Prefixed<'_> {
    fn log(&mut self, line: &str) {
        self.inner.log(&format!("[{}] {line}", self.shown()));
    }
    fn result(&mut self, line: &str) {
        self.inner.result(&format!("[{}] {line}", self.shown()));
    }
    fn warning(&mut self, phases: &[&str], text: &str) {
        // The label's room taken from the line's, so that the whole line keeps to the width.
        let label = self.shown();
        let width = super::observer::WARNING_WIDTH.saturating_sub(label.len() + 3);
        let line = super::observer::warning_line(phases, text, width);
        self.inner.log(&format!("[{label}] {line}"));
    }
    fn phase_start(&mut self, number: usize, of: usize, phase: &PhasePlan) {
        self.inner.phase_start(number, of, phase);
    }
    fn row(&mut self, row: &SeriesRow) {
        self.inner.row(row);
    }
    fn phase_end(&mut self) {
        self.inner.phase_end();
    }
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        if let Some((once, line)) = self.first.take() {
            once.call_once(|| self.inner.result(line));
        }
        self.inner.results(results)
    }
}

/// Runs every target's plan at once, phase by phase (a [`Gate`]), one thread per target, each writing its
/// own results folder; log lines on stderr prefixed with the target's label (none with `quiet`; no live
/// progress line). `first` is said (stdout) once, when the first target records its results: the run then
/// really writes. Returns each target's outcome, in order, as [`super::execute`] would.
pub fn execute_many(
    spec: &LoadedSpec,
    runs: &[TargetRun<'_>],
    stop: &AtomicBool,
    quiet: bool,
    first: &str,
) -> Vec<Result<Results, RunError>> {
    let gate = Gate::new(runs.len());
    let gate = &gate;
    let said = std::sync::Once::new();
    let said = &said;
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .map(|r| {
                let work = move || {
                    let mut obs = Prefixed {
                        label: &r.label,
                        inner: Console::new(quiet, false),
                        first: Some((said, first)),
                    };
                    let res = execute_gated(
                        spec,
                        r.plan,
                        r.consent,
                        r.out_dir,
                        stop,
                        &mut obs,
                        Some(gate),
                    );
                    gate.leave(failure(&r.label, &res));
                    res
                };
                std::thread::Builder::new()
                    .name(format!("wkrun-{}", r.label))
                    .spawn_scoped(scope, work)
                    .map_err(|e| {
                        let msg = format!("{}: cannot start its thread: {e}", r.label);
                        gate.leave(Some(msg.clone()));
                        msg
                    })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(RunError::Failed("its thread panicked".into()))),
                Err(msg) => Err(RunError::Failed(msg)),
            })
            .collect()
    })
}

/// What a target's run tells the others when it ends: `None` when it completed or was interrupted (a signal
/// stops them all anyway).
fn failure(label: &str, res: &Result<Results, RunError>) -> Option<String> {
    match res {
        Ok(_) | Err(RunError::Interrupted) => None,
        Err(e) => Some(format!("target {label} failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_phase_starts_only_when_every_run_has_arrived() {
        let gate = Gate::new(3);
        let passed = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    gate.arrive().unwrap();
                    passed.fetch_add(1, Ordering::SeqCst);
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert_eq!(passed.load(Ordering::SeqCst), 0);
            gate.arrive().unwrap();
        });
        assert_eq!(passed.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_run_that_leaves_lets_the_others_through_and_a_failure_stops_them() {
        let gate = Gate::new(2);
        std::thread::scope(|s| {
            let h = s.spawn(|| gate.arrive());
            std::thread::sleep(std::time::Duration::from_millis(20));
            gate.leave(None);
            assert_eq!(h.join().unwrap(), Ok(()));
        });
        let gate = Gate::new(2);
        std::thread::scope(|s| {
            let h = s.spawn(|| gate.arrive());
            std::thread::sleep(std::time::Duration::from_millis(20));
            gate.leave(Some("target t1 failed: boom".into()));
            assert_eq!(
                h.join().unwrap(),
                Err("stopped before this phase: target t1 failed: boom".into())
            );
        });
        assert!(gate.arrive().is_err());
    }
}
