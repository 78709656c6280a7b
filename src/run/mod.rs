//! Running a plan: phases in order on one target, each by the runner of its kind ([`erase`], [`io_phase`],
//! [`verify`]); every event goes to one [`Observer`], which always includes `results.json` (rewritten
//! atomically and validated at the start, after every phase and at the end). One series CSV per I/O phase.

mod backlog;
pub mod counters;
pub mod erase;
mod health;
mod host;
mod interrupt;
pub mod io_phase;
mod limits;
pub mod measure;
pub mod multi;
pub mod observer;
mod prepare;
pub mod progress;
mod rounds;
mod schedule;
mod search;
mod series_files;
pub mod verify;
mod written;

pub use host::host_info;
pub use limits::{
    BASE_FILES, FILES_PER_TARGET, OPEN_AT_CHECK, check_address_space, check_memory,
    check_open_files, ensure_open_files, limit_notes, phase_space,
};
pub use observer::Observer;
pub use prepare::{create_target, created_line, remove_created};

use crate::engine::errors::FailedWrites;
use crate::plan::{PhasePlan, Plan, Work, results_size};
use crate::results::outdir::{OutDir, OutDirError};
use crate::results::write::{ResultsWriter, WriteError};
use crate::results::{DirStats, PhaseResult, RESULTS_FORMAT, Results, SpecRef, Status};
use crate::sim::SimDevice;
use crate::spec::LoadedSpec;
use crate::target::cache::CacheHold;
use crate::target::open::{Claims, Held, HoldError};
use crate::target::safety::Consent;
use observer::Both;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;
use written::Written;

/// Why a run stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Something failed before or during a phase (I/O error, cannot open, cannot write results). The results
    /// written so far say `"status": "failed"` where they could be written.
    #[error("{0}")]
    Failed(String),
    /// The results could not be written.
    #[error(transparent)]
    Results(#[from] WriteError),
    /// Stopped by a signal; partial results were written.
    #[error("interrupted")]
    Interrupted,
    /// The consent does not cover this plan's target or its writes: nothing was written.
    #[error("{0}")]
    Refused(String),
}

/// Current time as RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// Now, as the end of the run `r`: not before any time it recorded (its start, each phase's start and last
/// completion), so that a
/// wall clock stepped back during the run (NTP) writes no end before them, which `wkrun validate` refuses
/// (`results::possible`).
fn end_time(r: &Results) -> String {
    let now = now_rfc3339();
    let ns = |t: &str| crate::launch::parse_rfc3339(t).ok();
    let recorded = std::iter::once(&r.started_at).chain(r.phases.iter().map(|p| &p.started_at));
    let end = recorded.fold(now, |end, t| match (ns(t), ns(&end)) {
        (Some(t_ns), Some(end_ns)) if t_ns > end_ns => t.clone(),
        _ => end,
    });
    // Nor before a phase's last completion.
    crate::results::times_check::not_before(end, crate::results::times_check::last_end(&r.phases))
}

/// How a phase ended, as its runner reports it.
pub enum PhaseEnd {
    /// It ran to its end.
    Done(PhaseResult),
    /// A signal stopped it; its partial result is recorded.
    Interrupted(PhaseResult),
    /// It failed after producing a result (an I/O error, sectors that did not verify): recorded, then the run
    /// fails with the message.
    Failed(PhaseResult, String),
    /// It could not run at all (cannot open the target, the image or its CSV): the run fails with the message.
    NotRun(String),
}

/// What the measuring code of a phase needs of the run: the plan, the stop flag, the target held open and the
/// simulated drive.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    /// The plan being run.
    pub plan: &'a Plan,
    /// Set by a signal: stop at the next I/O boundary.
    pub stop: &'a AtomicBool,
    /// The target, opened once for the whole run; `None` when no phase opens it (the `null` engine, a
    /// simulated drive).
    pub target: Option<&'a Held>,
    /// The simulated drive, for a simulated target (one drive, factory-new, for the whole run).
    pub sim: Option<&'a Mutex<SimDevice>>,
}

/// What a phase runner works with: the run's environment, its output folder, what earlier phases wrote, the
/// results so far, and the observer that hears every event and records the results.
pub struct Ctx<'a> {
    /// The plan being run.
    pub plan: &'a Plan,
    /// Where series CSVs go: the run's output folder, open and locked.
    pub out_dir: &'a OutDir,
    /// Set by a signal: stop at the next I/O boundary.
    pub stop: &'a AtomicBool,
    /// The target, opened once for the whole run; `None` when no phase opens it.
    pub target: Option<&'a Held>,
    /// The simulated drive, for a simulated target.
    pub sim: Option<&'a Mutex<SimDevice>>,
    written: Written,
    /// The bytes each I/O phase run so far trimmed (its ramp's included), by phase index: how many of the
    /// holes a later phase finds its trims can account for ([`crate::plan::Plan::holes_check`]).
    trimmed: std::collections::BTreeMap<usize, u64>,
    /// The failed writes of the phases run so far (`on_error = "continue"`), by phase index, for verification.
    failed_writes: Vec<(usize, FailedWrites)>,
    results: Results,
    /// Hears every event: `results.json` and the caller's observer.
    pub obs: Both<'a>,
    /// The volatile write cache set for the run (`[target] write_cache`), set back when the run ends.
    cache: Option<CacheHold>,
    /// The writer of `results.json` (also behind `obs`): what the results take, for the run's account.
    writer: &'a Mutex<ResultsWriter>,
}

impl<'a> Ctx<'a> {
    /// The result of the phase run last, if any (the one before the running phase).
    pub fn previous(&self) -> Option<&PhaseResult> {
        self.results.phases.last()
    }

    /// A log line for humans (stderr).
    pub fn log(&mut self, line: &str) {
        self.obs.log(line);
    }

    /// A line of the run's result summary (stdout).
    pub fn result(&mut self, line: &str) {
        self.obs.result(line);
    }

    /// A warning of the running phase: kept in full in its results, said on one line on the console.
    pub fn warn(&mut self, pr: &mut PhaseResult, w: String) {
        self.obs.warning(&[pr.name.as_str()], &w);
        pr.warnings.push(w);
    }

    /// A note of the running phase ([`Observer::note`]): kept in its results' warnings, said on the console
    /// as `note: ...`.
    pub fn note(&mut self, pr: &mut PhaseResult, n: String) {
        debug_assert!(
            crate::results::model::is_note(&n),
            "a note the report would call a warning: {n}"
        );
        self.obs.note(&[pr.name.as_str()], &n);
        pr.warnings.push(n);
    }

    /// The environment of the measuring code.
    pub fn env(&self) -> Env<'a> {
        Env {
            plan: self.plan,
            stop: self.stop,
            target: self.target,
            sim: self.sim,
        }
    }

    /// Records the results as they stand.
    fn record(&mut self) -> Result<(), WriteError> {
        self.obs.results(&self.results)
    }

    /// Records the results of a run going on; when they cannot be written (a full disk), the run fails,
    /// which writes them once more with the status `failed` (the room the writer kept is given back for
    /// that write).
    fn record_running(&mut self) -> Result<(), RunError> {
        match self.record() {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(None, e.to_string())),
        }
    }

    /// Adds a finished phase, judges its block of rounds when it ends a round ([`rounds::after_phase`]), and
    /// records ([`Ctx::record_running`]); a phase whose results would take results.json past the readers'
    /// limit ends the run, without it ([`Ctx::keep`]).
    fn push(&mut self, pr: PhaseResult) -> Result<(), RunError> {
        let index = pr.index;
        if let Err(msg) = self.keep(pr) {
            return Err(self.fail(None, msg));
        }
        rounds::after_phase(self, index);
        search::after_phase(self, index);
        self.record_running()
    }

    /// Ends the run with `status` (with the phase's partial result, if any, unless it would take
    /// results.json past the readers' limit: then the run fails, without it, [`Ctx::keep`]) and records. A
    /// write cache set for the run is set back first; when it cannot be, a run that completed fails, with
    /// the reason. A run that stopped early says the phases it planned and never ran (`not run: rw2, rw3`,
    /// [`crate::results::planned::not_run_line`]) as its summary's last line.
    fn finish(&mut self, status: Status, pr: Option<PhaseResult>) -> Result<(), WriteError> {
        let mut status = status;
        if let Some(Err(msg)) = pr.map(|pr| self.keep(pr)) {
            self.obs.log(&format!("error: {msg}"));
            self.results.error = Some(match self.results.error.take() {
                Some(e) => format!("{e}; and {msg}"),
                None => msg,
            });
            status = Status::Failed;
        }
        health::after(self);
        if let Some(msg) = self.restore_cache() {
            self.obs.log(&format!("error: {msg}"));
            match (status, &mut self.results.error) {
                (Status::Failed, Some(e)) => *e = format!("{e}; and {msg}"),
                (Status::Interrupted, _) => {}
                _ => {
                    status = Status::Failed;
                    self.results.error = Some(msg);
                }
            }
        }
        self.results.status = status;
        self.results.finished_at = Some(end_time(&self.results));
        // A run that stopped early: the phases it planned and never ran.
        if let Some(line) = crate::results::planned::not_run_line(&self.results.not_run()) {
            self.result(&line);
        }
        self.record()
    }

    /// Adds a phase's result when results.json stays within the readers' limit with it
    /// ([`results_size::fits`]); otherwise leaves it out and says so, naming the phase and the limit.
    fn keep(&mut self, pr: PhaseResult) -> Result<(), String> {
        let (index, name) = (pr.index, pr.name.clone());
        self.results.phases.push(pr);
        let bytes = interrupt::lock(self.writer)
            .bytes_with(&self.results)
            .map_err(|e| e.to_string())?;
        if results_size::fits(bytes) {
            return Ok(());
        }
        self.results.phases.pop();
        interrupt::lock(self.writer).forget_from(self.results.phases.len());
        Err(results_size::past_limit(index, &name, bytes))
    }

    /// The run's account before `phase`: the results so far, as results.json takes them, and the phase's
    /// room within the readers' limit ([`results_size::account`]); the message that ends the run if not.
    fn account(&mut self, phase: &PhasePlan) -> Result<(), String> {
        let bytes = interrupt::lock(self.writer)
            .bytes_with(&self.results)
            .map_err(|e| e.to_string())?;
        results_size::account(bytes, phase)
    }

    /// Sets back the write cache set for the run, recording the state read back (or why it could not be);
    /// the reason when it could not be.
    fn restore_cache(&mut self) -> Option<String> {
        let hold = self.cache.take()?;
        let result = hold.restore();
        let run = self
            .results
            .target
            .write_cache
            .as_mut()
            .and_then(|w| w.run.as_mut());
        match result {
            Ok(state) => {
                if let Some(r) = run {
                    r.restored = Some(state);
                }
                self.obs.log(&format!(
                    "volatile write cache of {} set back to {}",
                    self.plan.target.path.display(),
                    state.as_str()
                ));
                None
            }
            Err(msg) => {
                if let Some(r) = run {
                    r.restore_error = Some(msg.clone());
                }
                Some(msg)
            }
        }
    }

    /// Sets the volatile write cache for the run when the plan says so, recording what was found and set.
    fn set_cache(&mut self) -> Result<(), RunError> {
        let Some(want) = self.plan.write_cache else {
            return Ok(());
        };
        match crate::target::cache::set_for_run(&self.plan.target, want) {
            Ok((hold, run)) => {
                self.obs.log(&format!(
                    "volatile write cache of {}: {}, set {} for the run",
                    self.plan.target.path.display(),
                    run.before.as_str(),
                    run.during.as_str()
                ));
                self.cache = Some(hold);
                if let Some(w) = self.results.target.write_cache.as_mut() {
                    w.run = Some(run);
                }
                self.record_running()
            }
            Err(msg) => Err(self.fail(None, msg)),
        }
    }

    /// Ends the run as failed and records what it can.
    fn fail(&mut self, pr: Option<PhaseResult>, msg: String) -> RunError {
        self.results.error = Some(msg.clone());
        match self.finish(Status::Failed, pr) {
            Ok(()) => RunError::Failed(msg),
            // The run failed writing its results: said once.
            Err(e) if e.to_string() == msg => RunError::Failed(msg),
            // It failed writing its results, and the last write of them failed too: the last error says it
            // (the file-size limit was said twice, once of each write).
            Err(e) if e.same_file(&msg) => RunError::Failed(e.to_string()),
            Err(e) => RunError::Failed(format!("{msg}; and the results could not be written: {e}")),
        }
    }

    /// Ends the run as interrupted, naming the signal that stopped it (when one did); a run that stopped
    /// because stdout did not take its summary ([`progress::stdout_error`]) failed, naming it.
    fn interrupted(&mut self, pr: Option<PhaseResult>) -> RunError {
        if let Some(e) = progress::stdout_error() {
            return self.fail(pr, e.to_string());
        }
        // A partial phase whose results would pass the readers' limit fails the run, without it.
        if let Some(Err(msg)) = pr.map(|pr| self.keep(pr)) {
            return self.fail(None, msg);
        }
        self.results.signal = crate::sys::signal::first().map(crate::sys::signal::name);
        match self.finish(Status::Interrupted, None) {
            Ok(()) => RunError::Interrupted,
            Err(e) => RunError::Results(e),
        }
    }
}

/// Runs every phase of `plan` from [`Plan::start_at`], writing `results.json` and the series CSVs into
/// `out_dir` (opened with [`OutDir::for_run`]). `consent` (from [`crate::target::safety::consent`]) must cover the plan's
/// target and its writes: it is checked again here, before anything is written. The target must exist (a
/// file target the plan marks `created` has been created by the caller). When a phase opens it, the target is
/// opened once, before the first phase, and held to the end ([`Held`]: a block device the run writes stays
/// claimed with O_EXCL between phases); it must still be what the plan probed. `obs` hears every event besides
/// the results file; `stop` interrupts at the next I/O boundary.
///
/// # Errors
/// [`RunError::Refused`] when the consent does not cover the plan, or the target's path names something else
/// than was probed (nothing written); otherwise a [`RunError`] with `results.json` holding every phase up to
/// the failure, with the status.
pub fn execute(
    spec: &LoadedSpec,
    plan: &Plan,
    consent: &Consent,
    out_dir: &OutDir,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
) -> Result<Results, RunError> {
    execute_gated(spec, plan, consent, out_dir, stop, obs, None)
}

/// [`execute`], with each phase started only when every target of the run has reached it (`gate`: one
/// [`multi::Gate`] shared by the runs of several targets; `None` for a run on one target).
pub(crate) fn execute_gated(
    spec: &LoadedSpec,
    plan: &Plan,
    consent: &Consent,
    out_dir: &OutDir,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
    gate: Option<&multi::Gate>,
) -> Result<Results, RunError> {
    consent
        .check(&plan.target, plan.writes())
        .map_err(RunError::Refused)?;
    let held = match hold(plan, gate.map(multi::Gate::claims)) {
        Err(HoldError::Changed(msg) | HoldError::InUse(msg)) => return Err(RunError::Refused(msg)),
        Err(HoldError::Failed(msg)) => Err(msg),
        Ok(h) => Ok(h),
    };
    let mut writer = ResultsWriter::for_run(out_dir);
    if gate.is_some() {
        // Kept once every target has its first results.json ([`first_everywhere`]).
        writer.defer_room();
    }
    let writer = Mutex::new(writer);
    interrupt::watching(&writer, stop, || {
        run_held(spec, plan, out_dir, stop, obs, gate, held, &writer)
    })
}

/// [`execute_gated`] once the target is held (or could not be) and the results writer made.
#[allow(clippy::too_many_arguments)]
fn run_held(
    spec: &LoadedSpec,
    plan: &Plan,
    out_dir: &OutDir,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
    gate: Option<&multi::Gate>,
    held: Result<Option<Held>, String>,
    writer: &Mutex<ResultsWriter>,
) -> Result<Results, RunError> {
    let mut shared = interrupt::Shared(writer);
    // A simulated target: one drive, factory-new, for the whole run.
    let (device, device_error) = match plan.target.sim.as_ref().map(|t| SimDevice::new(&t.params)) {
        None => (None, None),
        Some(Ok(d)) => (Some(Mutex::new(d)), None),
        Some(Err(e)) => (None, Some(e)),
    };
    let mut ctx = Ctx {
        plan,
        out_dir,
        stop,
        target: held.as_ref().ok().and_then(Option::as_ref),
        sim: device.as_ref(),
        written: Written::default(),
        trimmed: Default::default(),
        failed_writes: Vec::new(),
        results: start(spec, plan),
        obs: Both(&mut shared, obs),
        cache: None,
        writer,
    };
    ctx.record_running()?;
    first_everywhere(&mut ctx, gate)?;
    if let Some(e) = device_error {
        return Err(ctx.fail(None, format!("simulated target: {e}")));
    }
    if let Err(msg) = &held {
        return Err(ctx.fail(None, msg.clone()));
    }
    // A file the run did not create may hold what earlier runs wrote: its file system says where.
    if let Some(held) = ctx.target
        && plan.target.kind == crate::target::TargetKind::File
        && !plan.target.created
    {
        ctx.written = Written::on_file(held.file(), plan.target.capacity_bytes);
    }
    announce(&mut ctx, gate);
    health::before(&mut ctx);
    ctx.set_cache()?;
    prepare::lay_out(&mut ctx)?;
    run_phases(&mut ctx, gate)?;
    ctx.finish(Status::Completed, None)?;
    if ctx.results.status == Status::Failed {
        // The write cache could not be set back.
        return Err(RunError::Failed(
            ctx.results.error.clone().unwrap_or_default(),
        ));
    }
    Ok(ctx.results)
}

/// With other targets (`gate`), waits until each has written its first results.json, then keeps room for
/// this run's last: a room kept sooner could take the room of another's first file on a shared, nearly
/// full file system (and leave that target without results).
///
/// # Errors
/// Another target failed before recording its first results.
fn first_everywhere(ctx: &mut Ctx<'_>, gate: Option<&multi::Gate>) -> Result<(), RunError> {
    let Some(gate) = gate else {
        return Ok(());
    };
    if let Err(msg) = gate.arrive() {
        return Err(ctx.fail(None, msg));
    }
    ctx.obs.first_recorded_everywhere();
    Ok(())
}

/// The run's first log lines: its phases, where `--from` starts (and what the phases before it leave
/// written), the plan's warnings, the launch's clock.
fn announce(ctx: &mut Ctx<'_>, gate: Option<&multi::Gate>) {
    let plan = ctx.plan;
    ctx.log(&match plan.phases.len() {
        1 => "1 phase, numbered 0".to_string(),
        n => format!("{n} phases, numbered 0 to {}", n.saturating_sub(1)),
    });
    // Where --from starts, as the results record it.
    if let Some(line) = ctx.results.from_phase.as_ref().map(|f| f.start_line()) {
        ctx.log(&line);
    }
    for phase in plan.phases.iter().take(plan.start_at) {
        io_phase::assume_done(&mut ctx.written, phase);
    }
    // The plan's notes, after the lines that say which phases run: with several targets once, naming the
    // targets when not all have it.
    let notes = match gate {
        Some(g) => g.take_notes(),
        None => crate::plan::notes(plan),
    };
    for n in notes {
        ctx.obs.run_note(&format!("note: {n}"));
    }
    // The plan's warnings, each once with the phases that have it (the phases' results keep their own).
    let phases = plan
        .to_run()
        .map(|p| (p.name.as_str(), p.warnings.as_slice()));
    for (text, names) in observer::grouped(phases) {
        ctx.obs.warning(&names, &text);
    }
    if let Some(n) = schedule::clock_note(ctx.results.launch.as_ref())
        && gate.is_none_or(multi::Gate::say_for_host)
    {
        ctx.log(&n);
    }
}

/// Runs the phases from [`Plan::start_at`] in order, each by the runner of its kind, except those of a block
/// of rounds that was steady before them ([`rounds::skipped`]) and the steps of a latency-target search
/// after one over its target ([`search::skipped`]); with several targets they still pass the gate); stops at the first that does not end done.
fn run_phases(ctx: &mut Ctx<'_>, gate: Option<&multi::Gate>) -> Result<(), RunError> {
    let plan = ctx.plan;
    let mut first = true;
    for phase in plan.to_run() {
        // Several targets: every one starts the phase together; a target that failed stops the others here.
        if let Some(Err(msg)) = gate.map(multi::Gate::arrive) {
            return Err(ctx.fail(None, msg));
        }
        if ctx.stop.load(Ordering::Relaxed) {
            return Err(ctx.interrupted(None));
        }
        if rounds::skipped(plan, &ctx.results, phase.index)
            || search::skipped(plan, &ctx.results, phase.index)
        {
            continue;
        }
        // Not a phase whose results could take results.json past the readers' limit.
        if let Err(msg) = ctx.account(phase) {
            return Err(ctx.fail(None, msg));
        }
        let scheduled = scheduled_start(ctx, phase, first)?;
        first = false;
        let end = run_phase(ctx, phase);
        if let (Some((at, woke)), Some(l)) = (scheduled, ctx.results.launch.as_mut()) {
            l.phase_starts
                .push(schedule::phase_start(phase.index, at, woke, &end));
        }
        match end {
            PhaseEnd::Done(pr) => {
                if let Work::Erase(_) = phase.work {
                    ctx.written.erase(phase.span.start, phase.span.end());
                }
                ctx.push(pr)?;
            }
            PhaseEnd::Interrupted(pr) => return Err(ctx.interrupted(Some(pr))),
            PhaseEnd::Failed(pr, msg) => return Err(ctx.fail(Some(pr), msg)),
            PhaseEnd::NotRun(msg) => return Err(ctx.fail(None, msg)),
        }
    }
    Ok(())
}

/// On a common schedule (`--start-at`): waits for the phase's start; the requested time and the wall clock
/// when the wait ended, `None` without a schedule for this phase.
fn scheduled_start(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    first: bool,
) -> Result<Option<(u64, u64)>, RunError> {
    let Some(at) = ctx
        .plan
        .launch
        .phase_start(first, crate::launch::now_unix_ns())
    else {
        return Ok(None);
    };
    ctx.log(&schedule::waiting_line(phase.index, at));
    match schedule::wait_until(at, ctx.stop) {
        Some(woke) => Ok(Some((at, woke))),
        None => Err(ctx.interrupted(None)),
    }
}

/// The target opened for the run, when a phase that runs opens it: for writing when the run writes. With
/// `claims` (a run on several targets), the loop devices' files it holds for the run are not claimed again.
fn hold(plan: &Plan, claims: Option<&Claims>) -> Result<Option<Held>, HoldError> {
    if !holds_target(plan) {
        return Ok(None);
    }
    match claims {
        Some(c) => Held::open_in(&plan.target, plan.writes(), c).map(Some),
        None => Held::open(&plan.target, plan.writes()).map(Some),
    }
}

/// Whether the run of `plan` opens and holds its target: a phase that runs opens it.
pub fn holds_target(plan: &Plan) -> bool {
    let kind = plan.target.kind;
    plan.to_run().any(|p| p.opens_target(kind))
}

/// Runs one phase by the runner of its kind.
fn run_phase(ctx: &mut Ctx<'_>, phase: &PhasePlan) -> PhaseEnd {
    ctx.result(&format!(
        "[phase {}] {} \"{}\": {}",
        phase.index,
        phase.kind.as_str(),
        phase.name,
        summary(phase)
    ));
    ctx.obs
        .phase_start(phase.index, ctx.plan.phases.len(), phase);
    let mut pr = phase_result(phase);
    // Not before the phase before it ended, whatever the wall clock did meanwhile.
    let before = crate::results::times_check::last_end(&ctx.results.phases);
    pr.started_at = crate::results::times_check::not_before(pr.started_at, before);
    // Said on the console at the start of the run ([`observer::grouped`]).
    pr.warnings.extend(phase.warnings.iter().cloned());
    // The held target is used whatever its path names now; a path that moved is worth a word.
    if let Some(w) = ctx.target.and_then(Held::path_moved) {
        ctx.warn(&mut pr, w);
    }
    match &phase.work {
        Work::Erase(w) => erase::run(ctx, phase, w, pr),
        Work::Io(w) => io_phase::run(ctx, phase, w, pr),
        Work::Verify(w) => verify::run(ctx, phase, w, pr),
    }
}

/// Records a run that a resource limit refused before it started (the open-file, address-space or memory
/// limit): `results.json` in `out_dir` saying `"failed"` with `why`, no phase run.
///
/// # Errors
/// Why it could not be written (a full disk, the file-size limit).
pub fn record_refused(
    spec: &LoadedSpec,
    plan: &Plan,
    out_dir: &OutDir,
    why: &str,
) -> Result<(), WriteError> {
    let mut r = start(spec, plan);
    r.status = Status::Failed;
    r.error = Some(why.to_string());
    r.finished_at = Some(r.started_at.clone());
    ResultsWriter::new(out_dir).write(&r)
}

/// The results of a run that starts now.
fn start(spec: &LoadedSpec, plan: &Plan) -> Results {
    Results {
        format: RESULTS_FORMAT,
        wkrun_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: now_rfc3339(),
        finished_at: None,
        status: Status::Running,
        error: None,
        signal: None,
        spec: SpecRef {
            name: plan.spec_name.clone(),
            version: plan.spec_version.clone(),
            sha256: spec.sha256.clone(),
            path: spec.path.display().to_string(),
            overrides: spec.overrides.clone(),
        },
        host: host_info(),
        target: crate::target::TargetInfo {
            // Trial 24 F7: a run of null-engine phases named a file it never made.
            unopened: !holds_target(plan) && plan.target.kind != crate::target::TargetKind::Sim,
            ..plan.target.clone()
        },
        label: Some(plan.label.clone()),
        launch: schedule::launch_result(plan),
        cluster: None,
        source: None,
        round_blocks: Vec::new(),
        latency_searches: Vec::new(),
        prediction: plan
            .prediction
            .as_ref()
            .map(|p| crate::results::model::Prediction {
                measured: p.measured.clone(),
                fitted_target: p.fitted_target.clone(),
                measured_run_started_at: p.measured_run_started_at.clone(),
                measured_run_target: p.measured_run_target.clone(),
                fit_warnings: p.fit_warnings.clone(),
                notes: p.notes.clone(),
                target_given: p.target_given,
            }),
        health: None,
        planned_phases: Some(crate::results::PlannedPhase::list(plan)),
        from_phase: crate::results::FromPhase::of(plan),
        phases: Vec::new(),
    }
}

/// A phase's result before it runs: its plan's parameters, nothing measured.
fn phase_result(phase: &PhasePlan) -> PhaseResult {
    PhaseResult {
        index: phase.index,
        name: phase.name.clone(),
        kind: phase.kind,
        labels: phase.labels.clone(),
        params: phase.params(),
        started_at: now_rfc3339(),
        measured_started_at: None,
        series_t0_unix_ns: None,
        duration_s: 0.0,
        completed: true,
        read: DirStats::zero(),
        write: DirStats::zero(),
        total: DirStats::zero(),
        series_csv: None,
        hist_log: None,
        trace: None,
        steady_state: None,
        windows: Vec::new(),
        aggregates: None,
        headline: Vec::new(),
        derived: None,
        coverage: None,
        read_share: None,
        ops_by_size: Vec::new(),
        intervals: None,
        erase_method: None,
        erased_bytes: None,
        errors: None,
        verify: None,
        warnings: Vec::new(),
        host: None,
        workers: Vec::new(),
        device: None,
        cpu: None,
        kernel: None,
        counters_csv: None,
        health: None,
        hosts: Vec::new(),
        latency_histograms: None,
        arrivals: None,
        latency_target: None,
        trim: None,
        sync: None,
        zones: None,
    }
}

/// One line on what a phase does: its byte range, and for I/O its block size, workers, queue depth and
/// bound (`4 workers × QD8`: 32 I/Os in flight), and its unmeasured ramp before it (`5s after a 1s ramp`:
/// the phase takes both; trial 13 F12: a 5 s phase took 6 s and the line said 5 s).
fn summary(p: &PhasePlan) -> String {
    let r = p.range();
    let range = format!("[{}, {})", r.start, r.end());
    let Some(io) = p.io() else {
        return range;
    };
    let bound = match p.bound() {
        Some(crate::plan::Bound::Time { ns }) => format!(", {}", crate::units::Duration(ns)),
        Some(crate::plan::Bound::Ops { bytes, .. }) => format!(", {bytes} B"),
        None => String::new(),
    };
    let ramp = match &p.work {
        crate::plan::Work::Io(w) => w.measure.ramp_ns.filter(|&ns| ns > 0),
        _ => None,
    };
    let bound = match ramp {
        Some(ns) => format!("{bound} after a {} ramp", crate::units::Duration(ns)),
        None => bound,
    };
    let workers = match io.workers {
        0 | 1 => String::new(),
        w => format!("{w} workers × "),
    };
    format!(
        "{range}, {} blocks, {workers}QD{}{bound}",
        sizes_text(&io.sizes()),
        io.queue_depth
    )
}

/// A phase's block sizes in words: `4096 B`, or a mix with each size's share of the I/Os,
/// `4096 B 80 % / 65536 B 20 %` (trial 24b item 5: not the mix's first size).
fn sizes_text(sizes: &crate::ops::Sizes) -> String {
    match sizes {
        crate::ops::Sizes::Fixed(b) => format!("{b} B"),
        crate::ops::Sizes::Mix(v) => {
            let sum: u64 = v.iter().map(|e| u64::from(e.1)).sum::<u64>().max(1);
            let parts: Vec<String> = v
                .iter()
                .map(|&(b, w)| {
                    let pct = f64::from(w) * 100.0 / sum as f64;
                    match pct.fract() == 0.0 {
                        true => format!("{b} B {pct:.0} %"),
                        false => format!("{b} B {pct:.1} %"),
                    }
                })
                .collect();
            parts.join(" / ")
        }
    }
}

/// The line after a run's `done:` that suggests what to do with its results folder `dir`:
/// `next: wkrun report DIR (plots, index.html); wkrun compare DIR OTHER (side by side with another run)`,
/// with `wkrun compare DIR --by NAME (the sweep's members side by side); ` before the last for a plan with a
/// sweep of more than one member (`NAME` its name; when it has none, one such command per matrix key of
/// more than one value, `(the matrix's values side by side)`); `DIR` as a shell word that pastes back
/// ([`crate::text::shell_word`]). For a prediction (`wkrun sim predict`) that its measurement
/// (`MEASURED`) pairs with ([`crate::plan::pairing::pairing`]: the same spec, phases and workloads), the
/// report and the comparison of both instead: `next: wkrun report MEASURED DIR (the prediction drawn over
/// its measurement); wkrun compare MEASURED DIR (side by side with its measurement)`; for one it does not,
/// the report of the prediction, why the measurement has no phase to compare (`unpaired_text`) and, for
/// later, the report and comparison of a run of the spec on the drive (`LONGRUN`) against it.
pub fn next_line(dir: &std::path::Path, plan: &Plan) -> String {
    use std::os::unix::ffi::OsStrExt;
    let d = crate::text::shell_word(dir.as_os_str().as_bytes());
    // A sweep's members side by side (each matrix key's values when the spec has no sweep: trial 13 F15,
    // only the first key was named), when it has more than one: `compare --by` refuses a name of one value.
    let labels = || plan.phases.iter().flat_map(|p| &p.labels);
    let by: Vec<(&str, &str)> = match labels().find_map(|l| l.sweep.as_deref()) {
        Some(n) => vec![(n, "the sweep's members")],
        None => {
            let mut keys: Vec<(&str, &str)> = Vec::new();
            for l in labels() {
                if !keys.iter().any(|(k, _)| *k == l.key) {
                    keys.push((l.key.as_str(), "the matrix's values"));
                }
            }
            keys
        }
    };
    let values = |n: &str| {
        let of = |l: &&crate::spec::Label| l.sweep.as_deref().unwrap_or(&l.key) == n;
        let mut v: Vec<&str> = labels().filter(of).map(|l| l.value.as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let by: String = by
        .into_iter()
        .filter(|(n, _)| values(n) > 1)
        .map(|(n, what)| {
            format!(
                "wkrun compare {d} --by {} ({what} side by side); ",
                crate::text::shell_word(n.as_bytes())
            )
        })
        .collect();
    let Some(p) = &plan.prediction else {
        return format!(
            "next: wkrun report {d} (plots, index.html); {by}wkrun compare {d} OTHER (side by side with another run)"
        );
    };
    let m = crate::text::shell_word(measured_folder(&p.measured).as_bytes());
    match &p.paired {
        Ok(()) => format!(
            "next: wkrun report {m} {d} (the prediction drawn over its measurement); {by}wkrun compare {m} {d} (side by side with its measurement)"
        ),
        Err(why) => {
            let spec = crate::text::shell_word(plan.spec_path.as_os_str().as_bytes());
            let (why, set) = unpaired_text(why);
            format!(
                "next: wkrun report {d} (the prediction's plots, index.html); {by}{m} {why}, so it has no phase to compare with the prediction: measure {spec}{set} on the drive later (the long run) and compare it against the prediction: wkrun report LONGRUN {d} (the prediction drawn over it); wkrun compare LONGRUN {d}"
            )
        }
    }
}

/// Why a measurement has no phase to compare with its prediction, as `next:` says it after the measured
/// folder's name (`ran another spec`; `ran ... with other workloads: its phase "A" has block_size_bytes
/// 4096, the prediction's "B" 65536`), and what to add to the long run's command (` with the
/// prediction's --set` when the spec is the same).
fn unpaired_text(why: &crate::plan::pairing::Unpaired) -> (String, &'static str) {
    use crate::plan::pairing::Unpaired;
    let q = |n: &str| crate::text::escaped(n).into_owned();
    match why {
        Unpaired::OtherSpec => ("ran another spec".into(), ""),
        Unpaired::NoPhases => ("cannot be read or has no phases".into(), ""),
        Unpaired::Missing { name } => (
            format!(
                "ran the same spec with other phases (none named \"{}\" as the prediction's)",
                q(name)
            ),
            " with the prediction's --set",
        ),
        Unpaired::Workload { a, b, diffs } => {
            let (theirs, ours): (Vec<String>, Vec<String>) = diffs
                .iter()
                .map(|(k, x, y)| (format!("{k} {}", q(x)), format!("{k} {}", q(y))))
                .unzip();
            (
                format!(
                    "ran the same spec with other workloads (its phase \"{}\" has {}, the prediction's \"{}\" {}; only the duration may differ)",
                    q(a),
                    theirs.join(", "),
                    q(b),
                    ours.join(", ")
                ),
                " with the prediction's --set",
            )
        }
    }
}

/// The measured results a prediction names (`measured`, a results file), as a user names them: the folder
/// of a `results.json` (`.` for one in the current folder), another file as it is.
fn measured_folder(measured: &str) -> &str {
    match measured.strip_suffix("results.json") {
        Some("") => ".",
        Some(dir) if dir.ends_with('/') && dir.len() > 1 => &dir[..dir.len() - 1],
        _ => measured,
    }
}

/// The default output folder: `wkrun-results/<spec name>-<UTC time>` under the current directory.
pub fn default_output_dir(spec_name: &str) -> PathBuf {
    let t = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(':', "");
    PathBuf::from("wkrun-results").join(format!("{spec_name}-{t}"))
}

/// How many folders [`open_default_output`] tries after the first: runs of one spec started in one second.
const DEFAULT_OUTPUT_TRIES: u32 = 1000;

/// Opens and locks the run's default output folder: [`default_output_dir`] (with `-rankN` for a host's
/// `rank`), or, when another run of the same spec started in the same second holds that folder or has
/// written its results there, the first of `...-2`, `...-3`, ... that is free. (The timed name alone made the
/// second of two runs started together, or one after a sub-second run, exit 2: the folder was in use or
/// held results.)
///
/// # Errors
/// [`OutDirError`] of the first folder that cannot be used for another reason (a symbolic link, no
/// permission, no room), or of the last one tried when every one is taken.
pub fn open_default_output(spec_name: &str, rank: Option<u32>) -> Result<OutDir, OutDirError> {
    let mut base = default_output_dir(spec_name).into_os_string();
    if let Some(r) = rank {
        base.push(format!("-rank{r}"));
    }
    let mut n = 1;
    loop {
        let mut path = base.clone();
        if n > 1 {
            path.push(format!("-{n}"));
        }
        match OutDir::for_run(std::path::Path::new(&path)) {
            Err(OutDirError::InUse { .. } | OutDirError::HasResults { .. })
                if n <= DEFAULT_OUTPUT_TRIES =>
            {
                n += 1
            }
            r => return r,
        }
    }
}
