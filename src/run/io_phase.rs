//! The I/O runner: a fill, an image restore or a workload measured ([`super::measure`]) and recorded as its
//! phase result: totals, latency percentiles, steady state, windows, aggregates, coverage, errors.

use super::measure::{self, IoOutcome};
use super::{Ctx, Observer, PhaseEnd};
use crate::engine::{IoCause, IoError, ReadCheck, errors::ErrorTally};
use crate::plan::{IoWork, PhasePlan};
use crate::results::{
    DirStats, ErrorCause, FirstError, HostResult, PhaseErrors, PhaseResult, ReadShare, SizeOps,
    WorkerResult,
};
use crate::results::{judge, series_csv};
use crate::vocab::{Direction, PhaseKind};
use std::sync::atomic::Ordering;

/// Runs a fill, restore or workload phase.
pub fn run(ctx: &mut Ctx<'_>, phase: &PhasePlan, work: &IoWork, mut pr: PhaseResult) -> PhaseEnd {
    // A phase that issues no I/O (the `null` engine) reads nothing, written or not (trial 24 F7).
    if phase.kind == PhaseKind::Workload
        && work.read_percent != 0
        && crate::engine::caps(work.io.engine).does_io
        && let Some(w) = ctx.written.read_warning(
            phase.span,
            ctx.plan.target.kind == crate::target::TargetKind::File,
        )
    {
        ctx.warn(&mut pr, w);
    }
    match holes_warning(ctx, phase) {
        Some(Holes::Warning(w)) => ctx.warn(&mut pr, w),
        Some(Holes::Note(n)) => ctx.note(&mut pr, n),
        None => {}
    }
    let o = match measured(ctx, phase, None, &mut pr) {
        Ok(o) => o,
        Err(end) => return end,
    };
    log_io_failures(ctx, &o, 0, &mut pr);
    if work.trim_percent > 0 {
        ctx.trimmed.insert(phase.index, trimmed(phase, &o));
    }
    let failed = &o.outcome.errors.failed_writes;
    if !failed.is_empty() {
        ctx.failed_writes.push((phase.index, failed.clone()));
    }
    let interrupted = ctx.stop.load(Ordering::Relaxed) && o.outcome.error.is_none();
    pr.completed = o.outcome.error.is_none() && !interrupted;
    mark_written(ctx, phase, work, &o);
    match o.ramp_stopped {
        // No totals of 0 for a phase that measured nothing (its warning says why).
        true => ctx.result(&format!(
            "      {} during its ramp, before any measurement",
            interrupted_word()
        )),
        false => log_summary(ctx, &pr, interrupted),
    }
    end_of(phase, &o, pr, interrupted)
}

/// Records what the phase wrote, for the warning of a later workload reading unwritten space, worker by
/// worker: a sequential write-only stream wrote a prefix of its part (passes wrap at its end); any other
/// stream wrote the writes among its first ops, as many as were issued (the ramp's, then the measured part's
/// completed I/Os). With several psync threads, each claiming its own chunk of the stream, the ops done at
/// the end of a timed phase may not be exactly the first ones: a chunk's worth per thread may differ.
fn mark_written(ctx: &mut Ctx<'_>, phase: &PhasePlan, work: &IoWork, o: &IoOutcome) {
    if o.totals[Direction::Write].bytes == 0 || !crate::engine::caps(work.io.engine).does_io {
        return;
    }
    let workers = phase.workers();
    let sequential = work.order == crate::ops::Order::Sequential && work.read_percent == 0;
    for (i, w) in workers.iter().enumerate() {
        let counts = match o.workers.get(i) {
            Some(t) if workers.len() > 1 => &t.counts,
            _ => &o.totals,
        };
        let first = o.first_op.get(i).copied().unwrap_or(0);
        let written = counts[Direction::Write].bytes;
        if written == 0 {
            continue;
        }
        if sequential && first == 0 {
            ctx.written
                .add(w.range.start, w.range.start + written.min(w.range.len));
        } else if let Some(stream) = phase.worker_stream(w) {
            ctx.written.add_stream(&stream, first + ops(counts));
        }
    }
}

/// The bytes a phase with trims trimmed: its measured part's, and its ramp's, the trims among the ops each
/// worker's ramp claimed (replayed from its op stream, no further than the worker's part is long: trims past
/// that punch no more of it).
fn trimmed(phase: &PhasePlan, o: &IoOutcome) -> u64 {
    let mut ramp = 0;
    for (w, &first) in phase.workers().iter().zip(&o.first_op) {
        let Some(stream) = phase.worker_stream(w).filter(|_| first > 0) else {
            continue;
        };
        let mut part = 0;
        for op in stream.ops(0..first) {
            if op.dir == Direction::Trim {
                part += u64::from(op.len);
                if part >= w.range.len {
                    break;
                }
            }
        }
        ramp += part;
    }
    o.totals[Direction::Trim].bytes + ramp
}

/// Marks what a phase taken as done (`--from`) wrote, as far as its plan says: an erase clears its span; a
/// byte- or pass-bounded phase wrote the writes among its ops, worker by worker. A time-bound phase is not
/// counted: how many ops it did is not known.
pub fn assume_done(written: &mut super::written::Written, phase: &PhasePlan) {
    if let crate::plan::Work::Erase(_) = phase.work {
        written.erase(phase.span.start, phase.span.end());
        return;
    }
    if !phase.writes() {
        return;
    }
    for w in phase.workers() {
        if let Some(stream) = phase.worker_stream(&w)
            && let Some(n) = stream.total_ops
        {
            written.add_stream(&stream, n);
        }
    }
}

/// A write that reaches past the file-size limit (RLIMIT_FSIZE) says so: it fails with EFBIG, or with
/// EINVAL under O_DIRECT, which alone reads as a misaligned I/O.
fn explain_file_size(err: &mut IoError) {
    let end = err.offset + u64::from(err.len);
    let Some(limit) = crate::sys::limits::Limit::FileSize
        .soft()
        .filter(|&l| end > l)
    else {
        return;
    };
    let IoCause::Os(e) = &err.cause else {
        return;
    };
    if err.dir == Direction::Write && matches!(e.raw_os_error(), Some(libc::EFBIG | libc::EINVAL)) {
        err.cause = IoCause::Os(std::io::Error::other(format!(
            "{}: the write ends at byte {end}, past {} ({limit} B)",
            crate::sys::os_text(e),
            crate::sys::limits::Limit::FileSize.name()
        )));
    }
}

/// A short transfer on a file says why where the file can tell: it now ends inside the I/O (shortened
/// during the run), or a write found its filesystem full (the kernel returns the bytes it could write,
/// and the error only for the next write).
fn explain_short(err: &mut IoError, file: &std::fs::File) {
    let IoCause::Short(n) = err.cause else {
        return;
    };
    let Some(meta) = file.metadata().ok().filter(|m| m.file_type().is_file()) else {
        return;
    };
    let end = err.offset + u64::from(err.len);
    let why = if meta.len() < end {
        format!(
            "the target file is now {} B, ending inside this I/O: it was shortened during the run",
            meta.len()
        )
    } else if let Some(limit) = crate::sys::limits::Limit::FileSize
        .soft()
        .filter(|&l| err.dir == Direction::Write && end > l)
    {
        // Attack 18 F6: a write across the limit comes back short, without EFBIG.
        format!(
            "the write ends at byte {end}, past {} ({limit} B): the kernel writes up to the limit only",
            crate::sys::limits::Limit::FileSize.name()
        )
    } else if err.dir == Direction::Write
        && crate::sys::file::free_bytes(file).is_ok_and(|free| free < u64::from(err.len))
    {
        "the file system holding the target is full (no space left on device)".to_string()
    } else {
        return;
    };
    err.cause = IoCause::Os(std::io::Error::other(format!(
        "short transfer: {n} of {} B: {why}",
        err.len
    )));
}

/// An I/O that failed because its block device went away says so, naming the device: the device held open
/// now has fewer bytes than when it was probed (0 B once removed: null_blk powered off, a disk unplugged, a
/// namespace detached), or it cannot tell its size, or its path no longer names it.
fn explain_gone(err: &mut IoError, target: &crate::target::TargetInfo, file: &std::fs::File) {
    if target.kind != crate::target::TargetKind::Block
        || matches!(
            err.cause,
            IoCause::Setup(..) | IoCause::Limit(_) | IoCause::Data(_)
        )
    {
        return;
    }
    let was = target.capacity_bytes;
    let size = match crate::sys::block::size_bytes(file) {
        Ok(now) if now < was => format!("it now has {now} B, {was} B when the run began"),
        Ok(_) => String::new(),
        Err(e) => format!("its size cannot be read: {}", crate::sys::os_text(&e)),
    };
    let node = match std::fs::metadata(&target.path) {
        Err(_) => "its path no longer exists".to_string(),
        Ok(m) if crate::target::Identity::of(&m) != target.identity => {
            "its path now names another device".to_string()
        }
        Ok(_) => String::new(),
    };
    let why: Vec<String> = [size, node].into_iter().filter(|s| !s.is_empty()).collect();
    if why.is_empty() {
        return;
    }
    err.cause = IoCause::Os(std::io::Error::other(format!(
        "{}; {} is gone, removed during the run: {}",
        err.cause,
        target.path.display(),
        why.join(", ")
    )));
}

/// How an I/O phase ended: failed at an I/O error, interrupted, or done.
pub fn end_of(phase: &PhasePlan, o: &IoOutcome, pr: PhaseResult, interrupted: bool) -> PhaseEnd {
    match &o.outcome.error {
        Some(err) => PhaseEnd::Failed(
            pr,
            format!("phase {} \"{}\": {err}", phase.index, phase.name),
        ),
        None if interrupted => PhaseEnd::Interrupted(pr),
        None => PhaseEnd::Done(pr),
    }
}

/// Measures the phase's I/O and records it in `pr`; a phase that could not run ends the run.
pub fn measured(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    check: Option<&dyn ReadCheck>,
    pr: &mut PhaseResult,
) -> Result<IoOutcome, PhaseEnd> {
    let csv_name = series_csv::file_name(phase.index, &phase.name);
    let mut o = run_explained(ctx, phase, check, pr, &csv_name)?;
    let first_max_us = o.judged.first_max_us;
    let short = record(phase, &mut o, pr, ctx.stop.load(Ordering::Relaxed));
    if o.ramp_stopped {
        ctx.warn(pr, ramp_stopped(phase));
    }
    pr.series_csv = Some(csv_name);
    pr.hist_log = o.hist_log.take();
    keep_trace(ctx, phase, &mut o, pr);
    // The phase's total latency needed a histogram that memory could not hold: it fails, what it measured
    // kept.
    if let Err(e) = short {
        let limit = crate::sys::limits::Limit::AddressSpace.note();
        return Err(failed(phase, pr, format!("{e}{limit}")));
    }
    shape_warnings(ctx, phase, pr, first_max_us);
    keep_counters(ctx, &mut o, pr);
    pr.zones = o.zones.map(|z| crate::results::ZonesResult {
        zones: z.zones,
        written: z.written,
        resets: z.resets,
    });
    // A zone that refused its writes, or a CSV that could not be written (a full disk), fails the run, with
    // what the phase measured kept.
    if let Some(e) = o.zone_error.take() {
        return Err(failed(phase, pr, e));
    }
    if let Some(e) = o.csv_error.take() {
        return Err(failed(phase, pr, e.to_string()));
    }
    engine_warnings(ctx, phase, &o, pr);
    Ok(o)
}

/// Runs the phase's I/O, with the host's health before and after and a stop (SIGSTOP) warned of; an I/O
/// error is explained by what happened to the target (a size limit, a short file, a target gone).
fn run_explained(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    check: Option<&dyn ReadCheck>,
    pr: &mut PhaseResult,
    csv_name: &str,
) -> Result<IoOutcome, PhaseEnd> {
    let env = ctx.env();
    let csv = measure::CsvOut {
        dir: ctx.out_dir,
        name: csv_name,
    };
    let health_before = super::health::now(ctx);
    let (continues, began_ns) = (
        crate::sys::signal::continued().0,
        crate::sys::signal::now_ns(),
    );
    let o = measure::run(&env, phase, csv, check, &mut ctx.obs);
    ctx.obs.phase_end();
    // On a virtual clock (the simulated drive) a stop lowers no rate: its time did not go on.
    let wall_clock = o.as_ref().is_ok_and(|o| o.t0_unix_ns.is_some());
    if let Some(w) = stopped_warning(continues, began_ns).filter(|_| wall_clock) {
        ctx.warn(pr, w);
    }
    pr.health = health_before
        .zip(super::health::now(ctx))
        .map(|(b, a)| crate::target::health::HealthDelta::between(&b, &a));
    let mut o = o.map_err(|e| PhaseEnd::NotRun(format!("phase \"{}\": {e}", phase.name)))?;
    if let Some(err) = o.outcome.error.as_mut() {
        explain_file_size(err);
        if let Some(held) = env.target {
            explain_short(err, held.file());
            explain_gone(err, &env.plan.target, held.file());
        }
    }
    Ok(o)
}

/// The phase marked incomplete and the run's end for it: `why` prefixed with the phase's name.
fn failed(phase: &PhasePlan, pr: &mut PhaseResult, why: String) -> PhaseEnd {
    pr.completed = false;
    PhaseEnd::Failed(pr.clone(), format!("phase \"{}\": {why}", phase.name))
}

/// Writes the phase's per-I/O trace (when asked for) and records its file; a write that failed becomes
/// the phase's CSV error.
fn keep_trace(ctx: &Ctx<'_>, phase: &PhasePlan, o: &mut IoOutcome, pr: &mut PhaseResult) {
    let Some((rows, dropped)) = o.trace.take() else {
        return;
    };
    let name = crate::results::trace_csv::file_name(phase.index, &phase.name);
    if let Err(e) = crate::results::trace_csv::write(ctx.out_dir, &name, &rows) {
        let what = format!("cannot write {}", ctx.out_dir.join(&name).display());
        o.csv_error
            .get_or_insert(measure::SetupError { what, source: e });
    }
    pr.trace = Some(crate::results::TraceResult {
        file: name,
        ios: rows.len() as u64,
        dropped,
    });
}

/// What shaped the phase's numbers besides the device: a backlog left by the phase before, and workers
/// that did unequal work (the host's scheduling shaped the phase's total).
fn shape_warnings(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    pr: &mut PhaseResult,
    first_max_us: Option<f64>,
) {
    let ramp = matches!(&phase.work, crate::plan::Work::Io(w) if w.measure.ramp_ns.is_some());
    if phase.kind == PhaseKind::Workload
        && let Some(w) = super::backlog::warning(pr, first_max_us, ctx.previous(), ramp)
    {
        ctx.warn(pr, w);
    }
    if let Some(w) = crate::results::balance::warning(pr) {
        ctx.warn(pr, w);
    }
}

/// The phase's CPU and kernel counters, and their CSV (a write that failed becomes the CSV error).
fn keep_counters(ctx: &Ctx<'_>, o: &mut IoOutcome, pr: &mut PhaseResult) {
    let Some(t) = o.counters.take() else {
        return;
    };
    pr.cpu = Some(t.cpu);
    pr.kernel = t.kernel;
    if let (Some(name), Some(e)) = (&t.csv, t.error)
        && o.csv_error.is_none()
    {
        o.csv_error = Some(measure::SetupError {
            what: format!("cannot write {}", ctx.out_dir.join(name).display()),
            source: e,
        });
    }
    pr.counters_csv = t.csv;
}

/// How the engine ran (io_uring without registered buffers) and how busy its submitting threads were:
/// warnings in the results and the log, and the host's share in `pr.host`.
fn engine_warnings(ctx: &mut Ctx<'_>, phase: &PhasePlan, o: &IoOutcome, pr: &mut PhaseResult) {
    for w in &o.outcome.warnings {
        ctx.warn(pr, w.clone());
    }
    let Some(c) = o.outcome.submit_cpu else {
        return;
    };
    pr.host = Some(HostResult {
        submit_cpu_fraction: c.busiest,
        submit_threads: c.threads,
        cpu_wait_fraction: c.waited,
        completion_waits: o.outcome.waits.clone(),
    });
    // A phase its rate cap held at the cap was paced by the cap, not by the host (trial 13 F7).
    let capped = matches!(&phase.work, crate::plan::Work::Io(w) if at_cap(w, pr));
    for w in host_bound(c).into_iter().chain(cpu_waited(c)) {
        if !capped {
            ctx.warn(pr, w);
        }
    }
}

/// The warning for a phase during which the process was stopped (SIGSTOP, or ctrl-Z: SIGTSTP) and
/// continued (SIGCONT) again: its time, and a time bound, went on while no I/O ran, so its rates are lower
/// than the device's. `continues` is [`crate::sys::signal::continued`]'s count and `began_ns` the monotonic
/// clock when the phase began.
fn stopped_warning(continues: u64, began_ns: u64) -> Option<String> {
    let (now, last_ns) = crate::sys::signal::continued();
    let n = now.saturating_sub(continues);
    (n > 0).then(|| {
        let at = last_ns.saturating_sub(began_ns) as f64 / 1e9;
        format!(
            "stopped: the process was stopped (SIGSTOP, or ctrl-Z) and continued {n} time{} during this phase, the last {at:.1} s after it began: its time includes the stop, when no I/O ran (a time bound went on), so its rates are lower than the device's; the series shows the intervals without I/O",
            if n == 1 { "" } else { "s" }
        )
    })
}

/// The share of its pacing cap's I/Os a rate-capped phase may fall short by and still count as run at its
/// cap: 1 %, a host that delayed the stream by less than that did not set its pace.
pub const CAP_SLACK: f64 = 0.01;

/// Whether the phase of `w`, with results `pr`, ran at the rate cap that paces it
/// ([`crate::plan::pacing_cap`]): its completed I/Os in the capped direction (reads and writes together
/// for `total`) over its measured time, `cap` × `duration_s`, short by no more than the larger of
/// [`CAP_SLACK`] of them and the I/Os in flight at the end (`queue_depth` × `workers`, issued on time but
/// cut off by a time bound), plus, for Poisson arrivals, three standard deviations of their count
/// (√(cap × duration_s)). Its host did not slow it then: the busy-host and host-pace warnings would blame
/// the host for a pace the cap set (trial 13 F7). `false` without a cap or a measured time.
pub fn at_cap(w: &crate::plan::IoWork, pr: &PhaseResult) -> bool {
    let Some((dir, cap)) = crate::plan::pacing_cap(w) else {
        return false;
    };
    let ops = match dir {
        Some(d) => pr.dir(d).ops,
        None => pr.read.ops + pr.write.ops,
    } as f64;
    let expected = cap as f64 * pr.duration_s;
    let in_flight = f64::from(w.io.queue_depth) * f64::from(w.io.workers.max(1));
    let mut slack = (CAP_SLACK * expected).max(in_flight);
    if w.measure.arrivals.process == crate::vocab::RateProcess::Poisson {
        slack += 3.0 * expected.sqrt();
    }
    expected > 0.0 && ops + slack >= expected
}

/// A submitting thread busy at least this share of the phase may have set its pace.
pub const HOST_BOUND: f64 = 0.95;

/// The warning for a single submitting thread busy [`HOST_BOUND`] or more of the phase: it may have been
/// wkrun, not the device, that set the pace. Several threads (psync) are not judged: each waits in its own
/// syscall, and more threads than CPUs has its own plan caution.
fn host_bound(c: crate::engine::SubmitCpu) -> Option<String> {
    (c.threads == 1 && c.busiest >= HOST_BOUND).then(|| {
        format!(
            "the submitting thread was busy {:.0} % of the phase: wkrun (the host), not the device, may have set the pace",
            (c.busiest * 100.0).floor()
        )
    })
}

/// A submitting thread that waited for a CPU at least this share of the phase: the host set part of its
/// pace.
pub const CPU_WAIT: f64 = 0.10;

/// The warning for a submitting thread that was runnable but waited for a CPU [`CPU_WAIT`] or more of the
/// phase (other processes, or more threads than CPUs, held the CPUs): a completion it could have reaped and
/// a slot it could have refilled waited with it, so the rates are the host's as much as the device's.
fn cpu_waited(c: crate::engine::SubmitCpu) -> Option<String> {
    let w = c.waited.filter(|&w| w >= CPU_WAIT)?;
    Some(format!(
        "{} the rates are below the device's; rerun on an idle host: a submitting thread waited for a CPU {:.0} % of the phase (other processes or more threads than CPUs held them), and completions waited with it",
        crate::results::BUSY_HOST,
        (w * 100.0).floor()
    ))
}

/// The warning for percentiles of `ops` latencies of one direction that rest on fewer than
/// [`TAIL_MIN`](crate::stats::latency::TAIL_MIN) latencies above them; `None` when all are estimates or
/// no latency was recorded.
fn thin_tail(dir: &str, ops: u64) -> Option<String> {
    use crate::stats::latency::{TAIL_MIN, thin_percentiles};
    if crate::engine::recording_off() {
        return None;
    }
    let thin = thin_percentiles(ops);
    let (last, rest) = thin.split_last()?;
    let names = match rest {
        [] => last.to_string(),
        _ => format!("{} and {last}", rest.join(", ")),
    };
    Some(format!(
        "{dir} latency {names}: fewer than {TAIL_MIN} of the {ops} {dir}s lie above {}, so {} the largest few latencies, not the tail",
        if rest.is_empty() { "it" } else { "each" },
        if rest.is_empty() {
            "it names one of"
        } else {
            "they name"
        },
    ))
}

/// The warning of a phase bounded by a duration whose measured part lasted `end_ns`, shorter than one
/// interval of `interval_ns`:
/// its rates are over that time (they are right, but a few I/Os at the queue's start and end make them),
/// and nothing is judged per interval. `None` for a phase of at least one interval, or of no time.
pub fn shorter_than_interval(end_ns: u64, interval_ns: u64) -> Option<String> {
    (end_ns > 0 && end_ns < interval_ns).then(|| {
        let secs = format!("{:.3} s", end_ns as f64 / 1e9);
        format!(
            "the phase lasted {secs}, under one interval ({}): give it a duration or size of several intervals; its IOPS and bandwidth are over those {secs}, with the queue filling and draining in them, and it has no full interval for per-interval figures (worst, per_second, windows, steady state)",
            crate::units::Duration(interval_ns)
        )
    })
}

/// The warning of a phase whose run was stopped during its ramp: it measured nothing (trial: it read as a
/// phase too short for its interval, its spec to blame).
pub fn ramp_stopped(phase: &PhasePlan) -> String {
    let ramp = match &phase.work {
        crate::plan::Work::Io(w) => w.measure.ramp_ns.map(crate::units::Duration),
        _ => None,
    };
    let of = ramp.map_or(String::new(), |r| format!(" (of {r})"));
    format!(
        "{} during its ramp{of}, before any measurement: the phase has no figures (its IOPS, bandwidth and latencies are not 0, they were not measured)",
        interrupted_word()
    )
}

/// Every direction's latencies together, in a recorder of their own.
///
/// # Errors
/// [`AllocError`](crate::buf::AllocError) when its histogram cannot be allocated.
fn all_of(
    lat: &crate::vocab::PerDir<crate::stats::LatencyRecorder>,
) -> Result<crate::stats::LatencyRecorder, crate::buf::AllocError> {
    let mut all = crate::stats::LatencyRecorder::new();
    for (_, l) in lat.iter() {
        all.try_merge(l)?;
    }
    Ok(all)
}

/// The phase result's measurements from the outcome; `stopped`: the run was stopped (a signal), so a phase
/// under one interval is not the spec's doing and gets no advice on its length.
///
/// # Errors
/// [`AllocError`](crate::buf::AllocError) when the memory for the total's or the arrivals' latencies
/// cannot be had; what was recorded before it stays.
fn record(
    phase: &PhasePlan,
    o: &mut IoOutcome,
    pr: &mut PhaseResult,
    stopped: bool,
) -> Result<(), crate::buf::AllocError> {
    let secs = o.outcome.end_ns as f64 / 1e9;
    pr.duration_s = secs;
    // As `run` says it after the phase (a clipped window's note gives a cut phase's length).
    pr.completed = o.outcome.error.is_none() && !stopped;
    let (c, lat) = (&o.totals, &o.outcome.latency);
    for d in Direction::ALL {
        if (Direction::CORE.contains(&d) || has_trims(phase))
            && let Some(s) = pr.dir_mut(d)
        {
            *s = DirStats::new(c[d].ops, c[d].bytes, secs, lat[d].summary());
        }
    }
    pr.sync = sync_result(phase, o);
    let all = all_of(lat)?;
    let bytes = c.by_dir.0.iter().map(|d| d.bytes).sum();
    pr.total = DirStats::new(ops(c), bytes, secs, all.summary());
    if let crate::plan::Work::Io(w) = &phase.work
        && let Some((q, target)) = w.measure.latency_target
    {
        let step = crate::results::search::TargetStep::new(q, target, all.percentile(q));
        pr.latency_target = Some(step);
    }
    pr.device = o.device.as_ref().map(|c| {
        crate::results::DeviceResult::new(
            c,
            Some(series_csv::device_file_name(phase.index, &phase.name)),
        )
    });
    pr.measured_started_at = o.measured_started_at.clone();
    // Not before the phase's start, whatever the wall clock did meanwhile (`results::times_check`).
    let started = crate::launch::parse_rfc3339(&pr.started_at).ok();
    pr.series_t0_unix_ns = (o.t0_unix_ns).map(|t| started.map_or(t, |s| t.max(s)));
    if !crate::engine::recording_off() {
        pr.latency_histograms = Some(crate::results::LatencyHistograms {
            read: lat[Direction::Read].buckets(),
            write: lat[Direction::Write].buckets(),
            trim: lat[Direction::Trim].buckets(),
            flush: o.outcome.flushes.latency.buckets(),
        });
    }
    pr.arrivals = arrivals(phase, &o.outcome)?;
    pr.read_share = ReadShare::of(pr);
    pr.ops_by_size = o
        .outcome
        .sizes
        .iter()
        .map(|&(bytes, ops)| SizeOps {
            bytes: bytes as u64,
            ops,
        })
        .collect();
    pr.coverage = Some(phase.coverage(ops(&o.totals)));
    for d in Direction::ALL {
        if let Some(w) = thin_tail(d.name(), pr.dir(d).ops)
            .filter(|_| Direction::CORE.contains(&d) || has_trims(phase))
        {
            pr.warnings.push(w);
        }
    }
    // A phase given a duration under one interval (a trial's `--set duration=300ms`); one bounded by bytes
    // that completes quickly (a small fill) is not warned of: its rates are as right, and asked for; nor is
    // one a signal stopped (its spec is not to blame).
    let timed = matches!(phase.bound(), Some(crate::plan::Bound::Time { .. })) && !stopped;
    if let Some(w) = phase
        .io()
        .filter(|_| timed)
        .and_then(|io| shorter_than_interval(o.outcome.end_ns, io.interval_ns))
    {
        pr.warnings.push(w);
    }
    if crate::engine::recording_off() {
        pr.warnings.push(format!(
            "per-I/O recording was off ({}=1, for benchmarking wkrun itself): no latencies, and the series counts each I/O in the interval its worker was last in",
            crate::engine::NO_RECORD_ENV
        ));
    }
    pr.intervals = Some(o.rows);
    pr.errors = phase_errors(&o.outcome.errors);
    if let (Some(io), crate::plan::Work::Io(work)) = (phase.io(), &phase.work) {
        let j = std::mem::take(&mut o.judged);
        judge::record(&work.measure, io.interval_ns, j, o.ended_at_steady, pr);
    }
    pr.workers = worker_results(phase, o, secs);
    Ok(())
}

/// Under a schedule (the engines kept latencies from the intended issue times): think times and those
/// latencies.
fn arrivals(
    phase: &PhasePlan,
    o: &crate::engine::Outcome,
) -> Result<Option<crate::results::ArrivalsResult>, crate::buf::AllocError> {
    let Some(lat) = o.from_intended.as_ref() else {
        return Ok(None);
    };
    let all = all_of(lat)?;
    Ok(Some(crate::results::ArrivalsResult {
        think_periods: o.thinks,
        latency_from_intended_ns: crate::results::IntendedLatency {
            read: lat[Direction::Read].summary(),
            write: lat[Direction::Write].summary(),
            trim: Some(lat[Direction::Trim].summary()),
            total: all.summary(),
        },
        unreachable_caps: match &phase.work {
            crate::plan::Work::Io(w) => crate::plan::unkept_caps(w)
                .iter()
                .map(|u| u.dir.map_or("total", |d| d.name()).to_string())
                .collect(),
            _ => Vec::new(),
        },
    }))
}

/// Whether the phase's mix has trims (its results then have `trim`, its series trim columns).
fn has_trims(phase: &PhasePlan) -> bool {
    matches!(&phase.work, crate::plan::Work::Io(w) if w.trim_percent > 0)
}

/// The phase's flushes after every N writes, if it makes any.
fn flushes(phase: &PhasePlan) -> Option<crate::plan::FlushPlan> {
    match &phase.work {
        crate::plan::Work::Io(w) => w.flush,
        _ => None,
    }
}

/// The phase's durable writes and flushes (`sync`, `fsync`, `fdatasync`); `None` when it asked for neither.
fn sync_result(phase: &PhasePlan, o: &IoOutcome) -> Option<crate::results::SyncResult> {
    let crate::plan::Work::Io(w) = &phase.work else {
        return None;
    };
    let flag = (w.sync != crate::vocab::SyncWrites::None).then_some(w.sync);
    if flag.is_none() && w.flush.is_none() {
        return None;
    }
    let f = &o.outcome.flushes;
    Some(crate::results::SyncResult {
        write_flag: flag,
        flagged_writes: flag.map_or(0, |_| o.totals[Direction::Write].ops),
        flushes: w.flush.map(|p| crate::results::FlushResult {
            call: if p.data_only { "fdatasync" } else { "fsync" }.to_string(),
            every_writes: p.every,
            ops: f.ops,
            latency_ns: f.latency.summary(),
        }),
    })
}

/// Each worker's share, with more than one worker: its planned part and what its recorders counted.
fn worker_results(phase: &PhasePlan, o: &IoOutcome, secs: f64) -> Vec<WorkerResult> {
    if o.workers.len() < 2 {
        return Vec::new();
    }
    phase
        .workers()
        .iter()
        .zip(&o.workers)
        .map(|(p, w)| {
            let dir = |d| {
                let c: &crate::stats::DirInterval = &w.counts[d];
                DirStats::new(c.ops, c.bytes, secs, w.latency[d].clone())
            };
            WorkerResult {
                worker: p.index,
                span_start_bytes: p.range.start,
                span_bytes: p.range.len,
                seed: p.seed,
                duration_s: Some(w.end_ns as f64 / 1e9),
                read: dir(Direction::Read),
                write: dir(Direction::Write),
                trim: has_trims(phase).then(|| dir(Direction::Trim)),
                flushes: flushes(phase).map(|_| w.flushes),
                errors: w.counts.errors,
            }
        })
        .collect()
}

/// I/Os completed in every direction.
fn ops(c: &crate::stats::IntervalCounts) -> u64 {
    c.by_dir.0.iter().map(|d| d.ops).sum()
}

/// The summary of a tally; `None` when nothing failed.
fn phase_errors(t: &ErrorTally) -> Option<PhaseErrors> {
    let (_, f) = t.first.as_ref().filter(|_| t.total > 0)?;
    Some(PhaseErrors {
        total: t.total,
        read: t.by_dir[Direction::Read],
        write: t.by_dir[Direction::Write],
        by_cause: t
            .by_cause
            .iter()
            .map(|(cause, errno, count)| ErrorCause {
                cause: cause.clone(),
                errno: *errno,
                count: *count,
            })
            .collect(),
        first: FirstError {
            op: f.dir.name().into(),
            offset_bytes: f.offset,
            len_bytes: f.len as u64,
            cause: f.cause.clone(),
            errno: f.errno,
            message: f.message.clone(),
        },
    })
}

/// A warning when I/Os failed and were counted (`on_error = "continue"`); `mismatched` sectors of a verify
/// phase are not I/O failures.
pub fn log_io_failures(ctx: &mut Ctx<'_>, o: &IoOutcome, mismatched: u64, pr: &mut PhaseResult) {
    let io_failures = o.outcome.errors.total - mismatched;
    if let Some(e) = pr
        .errors
        .as_ref()
        .filter(|_| o.outcome.error.is_none() && io_failures > 0)
    {
        let w = format!(
            "{} I/Os failed and were counted (on_error = \"continue\"), first: {}",
            e.total, e.first.message
        );
        ctx.warn(pr, w);
    }
}

/// The phase's summary lines (stdout): totals (after `interrupted (SIGINT): ` for a phase a signal stopped),
/// latency, steady state.
pub fn log_summary(ctx: &mut Ctx<'_>, pr: &PhaseResult, interrupted: bool) {
    let head = match interrupted {
        true => format!("{}: ", interrupted_word()),
        false => String::new(),
    };
    ctx.result(&format!("      {head}{}", pr.totals_text()));
    for line in [pr.latency_text(), pr.flush_text()].into_iter().flatten() {
        ctx.result(&format!("      {line}"));
    }
    if let Some(line) = intended_line(pr) {
        ctx.result(&line);
    }
    if let Some(ss) = &pr.steady_state {
        // To the millisecond, without float noise (1.2, not 1.2000000000000002).
        match (ss.at_s.map(|a| (a * 1e3).round() / 1e3), ss.ended_phase) {
            (Some(at), true) => ctx.result(&format!(
                "      steady state at {at} s: the phase ended there (until = \"steady\")"
            )),
            (Some(at), false) if ss.at_rule_floor => ctx.result(&format!(
                "      steady state reached at {at} s, the earliest the rule allows (its first window)"
            )),
            (Some(at), false) => ctx.result(&format!("      steady state reached at {at} s")),
            (None, _) => match (&ss.not_judged, &ss.verdict.start) {
                (Some(why), None) => ctx.result(&format!("      steady state not judged: {why}")),
                // Never judged (the line below says why): not "not reached" (trial 13 F11).
                (_, Some(_)) if ss.judged_from_s.is_none() => {}
                _ => ctx.result("      steady state not reached"),
            },
        }
        if ss.verdict.start.is_some() {
            match ss.judged_from_s {
                Some(t) => ctx.result(&format!(
                    "      judged from {} s, {}",
                    (t * 1e3).round() / 1e3,
                    ss.judged_from_reason
                )),
                None => ctx.result(&never_judged(&ss.judged_from_reason)),
            }
        }
    }
}

/// The summary's line for a steady-state rule whose judging never began, a sentence from the results'
/// `judged_from_reason` (`never: no round fell …`): `      steady state never judged: no round fell …`
/// (it read `not judged: never: …`).
pub fn never_judged(reason: &str) -> String {
    let why = reason.strip_prefix("never: ").unwrap_or(reason);
    format!("      steady state never judged: {why}.")
}

/// `interrupted (SIGINT)`: how the summary marks a phase a signal stopped (its numbers are of the part that
/// ran), naming the signal when one did.
pub fn interrupted_word() -> String {
    match crate::sys::signal::first() {
        Some(s) => format!("interrupted ({})", crate::sys::signal::name(s)),
        None => "interrupted".into(),
    }
}

/// Under a schedule, the latency from the intended issue time, as [`PhaseResult::latency_text`] and with the think
/// times taken: `      from intended issue: read mean 1.20 ms, p99 3.10 ms (9 think times)`; `None` without
/// a schedule.
pub fn intended_line(pr: &PhaseResult) -> Option<String> {
    let a = pr.arrivals.as_ref()?;
    let l = &a.latency_from_intended_ns;
    let parts: Vec<String> = Direction::ALL
        .into_iter()
        .filter_map(|d| {
            let (dir, s) = (d.name(), l.dir(d)?.as_ref()?);
            let behind = match a.unreachable_caps.iter().any(|c| c == dir) {
                true => " (behind its cap all run: grows with the duration)",
                false => "",
            };
            Some(format!(
                "{dir} mean {}, p99 {}{behind}",
                super::progress::latency(s.mean),
                super::progress::latency(s.p99 as f64)
            ))
        })
        .collect();
    let thinks = match a.think_periods {
        0 => String::new(),
        n => format!(" ({n} think time{})", if n == 1 { "" } else { "s" }),
    };
    (!parts.is_empty()).then(|| format!("      from intended issue: {}{thinks}", parts.join("; ")))
}

/// Most holes looked at in a phase's range (each is two lseek calls).
const MAX_HOLES: usize = 100_000;

/// What a phase's holes are worth: a warning, or a note when this run's erase or trims made them or the
/// phase is a fill.
enum Holes {
    /// Holes the run did not make (or the unwritten blocks of the file it created) under a workload: run a
    /// fill first.
    Warning(String),
    /// Holes this run's erase punched, or no more than its trims did, or holes a fill writes into (laying out blocks is what a fill is
    /// for, trial 13 F8): as expected, no setup to fix.
    Note(String),
}

/// The warning of a phase that writes into holes of a file target (never written, or punched): the filesystem
/// allocates blocks at each first write there, so the numbers include that. Holes under 1 % of the range are
/// not worth one. The plan says which phases look ([`crate::plan::Plan::holes_check`]) and the erase of this
/// run that held all of the range last before the phase, if any: every hole there is one it punched or a
/// later phase left, and a note says so, as expected, not a setup to fix (trial 24c F9); so too when the
/// phases of this run before it that trimmed there (the plan names them) trimmed at least as many bytes of
/// the range as are holes (trial 18 F4), and otherwise the warning says how many of them the trims can have
/// punched (trial 19 F1: a 4 KiB trim was blamed for 16 MiB of holes). A fill's holes are a note too (the
/// fill lays the blocks out: trial 13 F8), a workload's a warning.
fn holes_warning(ctx: &Ctx<'_>, phase: &PhasePlan) -> Option<Holes> {
    let held = ctx.target?;
    let check = ctx.plan.holes_check(phase)?;
    let range = check.range;
    let (bytes, all) =
        crate::sys::file::hole_bytes(held.file(), range.start, range.len, MAX_HOLES).ok()?;
    if bytes == 0 || (bytes as u128 * 100) < range.len as u128 {
        return None;
    }
    // A steady block of rounds ran the erase's cell last in its last round run.
    let erase = check
        .after_erase
        .and_then(|i| super::rounds::ran_as(ctx.plan, &ctx.results, i))
        .map(|i| &ctx.plan.phases[i]);
    let share = format!(
        "{}{bytes} B ({:.1} %) of the write range [{}, {})",
        if all { "" } else { "at least " },
        bytes as f64 * 100.0 / range.len as f64,
        range.start,
        range.end()
    );
    let t = &ctx.plan.target;
    // A fill is the laying out itself: what its numbers include is the news, the phases after it are the
    // cure, and nothing is to fix, so it is a note. Said short before the details, so that the console
    // line keeps it within its width.
    let fill = phase.kind == crate::spec::PhaseKind::Fill;
    let (action, after) = match fill {
        true => (
            "expected of a fill",
            "; the phases after it write into written blocks",
        ),
        false => ("run a fill first", ""),
    };
    let said = |text: String| match fill {
        true => Holes::Note(text),
        false => Holes::Warning(text),
    };
    let trims = trims_before(ctx, &check);
    let trimmed = |t: &Trims<'_>| {
        format!(
            "; at most {} B of them are holes this run's trims punched (phase \"{}\")",
            t.bytes, t.last
        )
    };
    let (erase, part) = match trims {
        // Trial 18 F4: the holes of this run's own trims were blamed on a missing fill.
        Some(tr) if bytes <= tr.bytes => {
            return Some(Holes::Note(format!(
                "writes into holes: as expected after this run's trims (phase \"{}\"): {share} are holes in the file, punched by its trims (or never written): at the first write into each the filesystem allocates the block, so the write numbers include that work",
                tr.last
            )));
        }
        // Trial 19 F1: trims of fewer bytes than the holes were said to have made them all.
        _ if erase.is_some() => (erase, String::new()),
        Some(tr) => (None, trimmed(&tr)),
        None => (None, String::new()),
    };
    Some(match erase {
        Some(e) => Holes::Note(after_erase_note(&e.name, &share)),
        // The file this run created and preallocated: its blocks are unwritten extents, which a file system
        // reports as holes (newcomer 30c: its max latency read +12,345 % against fio's, which lays out its file).
        None if t.created && t.preallocated && !check.erased_before => said(format!(
            "writes into unwritten (preallocated) blocks: latencies include the file system's allocation work; {action}: {share} were never written since wkrun created and preallocated the file (fio lays out a file it creates): at the first write into each block the file system marks it written, so this first run's write numbers include that work{part}{after}"
        )),
        None => said(format!(
            "writes into holes: latencies include the file system's allocation work; {action}: {share} are holes in the file (never written, or punched): at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work{part}{after}"
        )),
    })
}

/// The trims of this run before a phase that looks for holes: the most of its write range they can have
/// punched, and the last phase of them that trimmed.
#[derive(Clone, Copy)]
struct Trims<'a> {
    /// Bytes: each phase's trimmed bytes, at most the part of the range its span covers, added up.
    bytes: u64,
    /// The name of the last of them that trimmed anything.
    last: &'a str,
}

/// What the phases the plan names in `check` trimmed in this run ([`Ctx`]'s `trimmed`: a phase a steady
/// block skipped, or one before `--from`, trimmed nothing here); `None` when none trimmed a byte.
fn trims_before<'a>(ctx: &Ctx<'a>, check: &crate::plan::HolesCheck) -> Option<Trims<'a>> {
    let plan = ctx.plan;
    let mut out: Option<Trims<'a>> = None;
    for t in &check.trims {
        let b = ctx.trimmed.get(&t.index).map_or(0, |&b| b.min(t.overlap));
        if b > 0 {
            let before = out.map_or(0, |o| o.bytes);
            out = Some(Trims {
                bytes: before + b,
                last: &plan.phases[t.index].name,
            });
        }
    }
    out
}

/// The note of a phase that writes into the holes this run's erase `erase` punched: `share` of its range.
/// What it is and why it is expected come first, up to the second `: `, short enough that the console's
/// cut line keeps them and still names the results folder ([`crate::run::observer::warning_line`]).
fn after_erase_note(erase: &str, share: &str) -> String {
    format!(
        "writes into holes: as expected after this run's erase (phase \"{erase}\"): {share} are holes in the file: at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The console's line of the note of holes an erase punched names the results folder, as a warning's
    /// does (trial 16: the anthology's fills ended `(in full: wkrun warnings)`, their text up to its second
    /// `: `, 160 bytes, leaving the 69-byte ending with the folder no room).
    #[test]
    fn the_note_of_holes_after_an_erase_names_the_folder() {
        let text = after_erase_note(
            "purge[filled=25%]",
            "268435456 B (100.0 %) of the write range [0, 268435456)",
        );
        let console = crate::run::observer::Console::new(true, false).in_folder(
            std::path::Path::new("wkrun-results/anthology-2026-12-06T103003Z"),
        );
        let line = console.line_of(
            crate::run::observer::Said::Note,
            &["fill[filled=25%]"],
            &text,
            crate::run::observer::WARNING_WIDTH,
        );
        assert_eq!(
            line,
            "note: phase fill[filled=25%]: writes into holes: as expected after this run's erase (phase \"purge[filled=25%]\"): 268435456 B… (in full: wkrun warnings wkrun-results/anthology-2026-12-06T103003Z)"
        );
        assert!(
            line.len() <= crate::run::observer::WARNING_WIDTH,
            "{}",
            line.len()
        );
    }

    /// The workload `w` of a spec whose phase is `lines`, on a 1 GiB file.
    fn work(lines: &str) -> crate::plan::IoWork {
        let text = format!(
            "format = 1\n[spec]\nname = \"c\"\nversion = \"1\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nduration = \"10s\"\n{lines}"
        );
        let spec = crate::spec::load_str(std::path::Path::new("c.toml"), &text).expect("a spec");
        let t = crate::target::TargetInfo::new(
            "t.img",
            crate::target::TargetKind::File,
            1 << 30,
            512,
            4096,
        );
        let plan = crate::plan::resolve(&spec, &t).expect("a plan");
        match &plan.phases[0].work {
            crate::plan::Work::Io(w) => w.clone(),
            _ => panic!("not an I/O phase"),
        }
    }

    /// A result of `reads` and `writes` in 10 s.
    fn done(reads: u64, writes: u64) -> PhaseResult {
        let mut p = crate::report::testing::phase("w", 0);
        p.duration_s = 10.0;
        p.read = crate::results::DirStats::new(reads, reads * 4096, 10.0, None);
        p.write = crate::results::DirStats::new(writes, writes * 4096, 10.0, None);
        p
    }

    /// Trial 13 F7: a rate-capped phase that ran at its cap was warned of a busy host. At 1000 IOPS for
    /// 10 s, QD4: 10,000 I/Os expected, 1 % (100) of slack, more than the 4 in flight; Poisson arrivals
    /// add 3 × √10,000 = 300.
    #[test]
    fn a_phase_at_its_rate_cap_was_held_by_it() {
        let total = work("queue_depth = 4\nread_percent = 70\nrate_iops = 1000\n");
        assert!(at_cap(&total, &done(7000, 3000)));
        assert!(at_cap(&total, &done(6930, 2970)));
        assert!(!at_cap(&total, &done(6929, 2970)));
        let poisson = work(
            "queue_depth = 4\nread_percent = 70\nrate_iops = 1000\nrate_process = \"poisson\"\n",
        );
        assert!(at_cap(&poisson, &done(6700, 2900)));
        assert!(!at_cap(&poisson, &done(6699, 2900)));
        // The write cap paces a 70/30 mix of read = 1000, write = 100 (100 / 30 % < 1000 / 70 %): 1,000
        // writes expected in 10 s, 10 of slack at QD4.
        let both =
            work("queue_depth = 4\nread_percent = 70\nrate_iops = { read = 1000, write = 100 }\n");
        assert_eq!(
            crate::plan::pacing_cap(&both),
            Some((Some(Direction::Write), 100))
        );
        assert!(at_cap(&both, &done(2333, 990)));
        assert!(!at_cap(&both, &done(2333, 989)));
        // QD64 cut off by the time bound: 64 in flight outweigh the 1 %.
        let deep = work("queue_depth = 64\nread_percent = 0\nrate_iops = 500\n");
        assert!(at_cap(&deep, &done(0, 4936)));
        assert!(!at_cap(&deep, &done(0, 4935)));
        // Without a cap, never.
        assert!(!at_cap(&work("read_percent = 0\n"), &done(0, 1_000_000)));
    }

    /// Issue 24: a warning's console line (stderr, cut at 200 bytes) keeps what to do: the busy-host and
    /// short-phase warnings said it after the cut (`... so the rates are lower than the device's` never
    /// showed how to avoid it; the short phase's `give it a duration ...` came last).
    #[test]
    fn console_lines_of_the_busy_host_and_short_phase_warnings_keep_the_action() {
        let line = |t: &str| super::super::observer::warning_line(&["randwrite-4k-qd32"], t, 200);
        let busy = cpu_waited(crate::engine::SubmitCpu {
            busiest: 0.5,
            waited: Some(0.48),
            threads: 1,
        })
        .unwrap_or_default();
        assert_eq!(
            line(&busy),
            "warning: phase randwrite-4k-qd32: busy host: the rates are below the device's; rerun on an idle host: a submitting thread waited for a CPU 48 % of the phase (other… (in full: wkrun warnings)"
        );
        let short = shorter_than_interval(318_000_000, 1_000_000_000).unwrap_or_default();
        assert_eq!(
            line(&short),
            "warning: phase randwrite-4k-qd32: the phase lasted 0.318 s, under one interval (1s): give it a duration or size of several intervals; its IOPS and bandwidth are over… (in full: wkrun warnings)"
        );
        // Two phase names of 40 bytes leave the text 102 bytes: the actions still show.
        let names = [
            "a-phase-name-of-forty-bytes-exactly-here",
            "and-another-one-of-forty-bytes-exactly-x",
        ];
        let tight = |t: &str| super::super::observer::warning_line(&names, t, 200);
        assert_eq!(
            tight(&busy),
            "warning: phases a-phase-name-of-forty-bytes-exactly-here and 1 more: busy host: the rates are below the device's; rerun on an idle host: a submitting thread waited for a… (in full: wkrun warnings)"
        );
        assert!(
            tight(&short).contains("give it a duration or size of several intervals"),
            "{}",
            tight(&short)
        );
    }
}
