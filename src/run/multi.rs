//! Several targets in one run: one plan per target (the same spec resolved against each target's geometry),
//! each run by [`super::execute`]'s loop on a thread of its own, phase by phase: a [`Gate`] starts each phase
//! on every target together, once all have finished the one before. Each target writes its own results
//! folder; `wkrun merge`'s code sums them into the run's aggregate (in `src/main.rs`, which owns the folders).
//!
//! A target that fails stops the run: the others finish the phase they are running and stop at the gate,
//! their results saying so. A signal stops every target at its next I/O boundary.

use super::observer::{Console, Observer, Repeats, Said};
use super::{RunError, execute_gated};
use crate::plan::{PhasePlan, Plan};
use crate::results::Results;
use crate::results::outdir::OutDir;
use crate::results::series_csv::SeriesRow;
use crate::results::write::WriteError;
use crate::spec::LoadedSpec;
use crate::target::open::Claims;
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
    /// The notes of the targets' plans, each once ([`plan_notes`]), until the first run to ask says them.
    notes: Mutex<Vec<String>>,
    /// The files under the targets' loop devices, claimed once for the whole run.
    claims: Claims,
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
            notes: Mutex::new(Vec::new()),
            claims: Claims::default(),
        }
    }

    /// The files the run claims for all its targets ([`Claims`]), which no target claims again.
    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    /// The notes of the run's plans ([`plan_notes`]), for the first run to ask: said once, not per target.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|p| p.into_inner()))
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
    /// The warnings and notes said, by kind: a later phase's of a kind said is held for the run's end.
    repeats: Repeats,
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

impl Prefixed<'_> {
    /// A warning's or a note's line, prefixed: the label's room taken from the line's, so that the whole
    /// line keeps to the width.
    fn said(&mut self, said: Said, phases: &[&str], text: &str) {
        let label = self.shown();
        let width = super::observer::WARNING_WIDTH.saturating_sub(label.len() + 3);
        let line = self.inner.line_of(said, phases, text, width);
        self.inner.log(&format!("[{label}] {line}"));
    }
}

/// The most bytes of a target's label in its log lines' prefix.
const LABEL_SHOWN: usize = 40;

impl Observer for Prefixed<'_> {
    fn log(&mut self, line: &str) {
        self.inner.log(&format!("[{}] {line}", self.shown()));
    }
    fn run_note(&mut self, line: &str) {
        self.inner.run_note(line);
    }
    fn result(&mut self, line: &str) {
        self.inner.result(&format!("[{}] {line}", self.shown()));
    }
    fn warning(&mut self, phases: &[&str], text: &str) {
        if self.repeats.first(Said::Warning, phases, text) {
            self.said(Said::Warning, phases, text);
        }
    }
    fn note(&mut self, phases: &[&str], text: &str) {
        if self.repeats.first(Said::Note, phases, text) {
            self.said(Said::Note, phases, text);
        }
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
        if results.status != crate::results::Status::Running {
            for (said, names, text) in self.repeats.take() {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                self.said(said, &names, &text);
            }
        }
        self.inner.results(results)
    }
}

/// The notes of the targets' plans ([`crate::plan::notes`]: a window longer than its phase, results whose room passes the readers' limit), each
/// once: as it is when every target has it, else after the targets that have it (`targets t0-a, t1-b:
/// ...`).
pub fn plan_notes(runs: &[TargetRun<'_>]) -> Vec<String> {
    let each: Vec<(&str, Vec<String>)> = runs
        .iter()
        .map(|r| (r.label.as_str(), crate::plan::notes(r.plan)))
        .collect();
    once_each(&each)
}

/// Each target's notes (label, notes) said once ([`plan_notes`]; `wkrun plan` of several targets, whose
/// labels are their numbers: `target 1: ...`).
pub fn once_each(each: &[(&str, Vec<String>)]) -> Vec<String> {
    let mut found: Vec<(&str, Vec<&str>)> = Vec::new();
    for (label, notes) in each {
        for n in notes {
            match found.iter_mut().find(|(t, _)| t == n) {
                Some((_, labels)) => labels.push(label),
                None => found.push((n, vec![label])),
            }
        }
    }
    found
        .into_iter()
        .map(|(n, labels)| match labels.len() == each.len() {
            true => n.to_string(),
            false => format!(
                "{} {}: {n}",
                if labels.len() == 1 {
                    "target"
                } else {
                    "targets"
                },
                labels.join(", ")
            ),
        })
        .collect()
}

/// Runs every target's plan at once, phase by phase (a [`Gate`]), one thread per target, each writing its
/// own results folder; log lines on stderr prefixed with the target's label (none with `quiet`; no live
/// progress line). `first` is said (stdout) once, when the first target records its results: the run then
/// really writes. `claims` (the files under the targets' loop devices, [`Claims::take`]) are held until
/// every target has ended. Returns each target's outcome, in order, as [`super::execute`] would.
pub fn execute_many(
    spec: &LoadedSpec,
    runs: &[TargetRun<'_>],
    claims: Claims,
    stop: &AtomicBool,
    quiet: bool,
    first: &str,
) -> Vec<Result<Results, RunError>> {
    let mut gate = Gate::new(runs.len());
    gate.claims = claims;
    *gate.notes.lock().unwrap_or_else(|p| p.into_inner()) = plan_notes(runs);
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
                        inner: Console::new(quiet, false).in_folder(r.out_dir.path()),
                        first: Some((said, first)),
                        repeats: Repeats::default(),
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

    /// Code review L2: a note every target has is said once as it is; one only some have names them.
    #[test]
    fn plan_notes_are_said_once_naming_the_targets_when_not_all_have_them() {
        let n = |t: &str| t.to_string();
        let each = [
            ("t0-a", vec![n("both"), n("a and c")]),
            ("t1-b", vec![n("both")]),
            ("t2-c", vec![n("both"), n("a and c"), n("c")]),
        ];
        assert_eq!(
            once_each(&each),
            ["both", "targets t0-a, t2-c: a and c", "target t2-c: c"]
        );
    }
}
