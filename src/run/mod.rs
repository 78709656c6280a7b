//! Running a plan: phases in order on one target, `results.json` rewritten (atomically, validated) after
//! every phase, one series CSV per I/O phase.

pub mod erase;
mod host;
pub mod io_phase;
pub mod progress;

pub use host::host_info;

use crate::plan::{PhasePlan, Plan};
use crate::results::series_csv;
use crate::results::write::{ResultsWriter, WriteError};
use crate::results::{
    DirStats, PhaseResult, RESULTS_FORMAT, ReadShare, Results, SizeOps, SpecRef, Status,
};
use crate::spec::{LoadedSpec, PhaseKind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

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
}

/// Current time as RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// Runs every phase of `plan`, writing into `out_dir` (which must exist). The target must exist (a file
/// target the plan marks `created` has been created by the caller). `log` receives one line per event
/// for humans (stderr); `progress` hears of each phase's start and end and of each series row (the live
/// display, [`progress::Bar`], or [`progress::Silent`]). `stop` interrupts at the next I/O boundary.
///
/// # Errors
/// [`RunError`]; `results.json` then holds every phase up to the failure, with the status.
pub fn execute(
    spec: &LoadedSpec,
    plan: &Plan,
    out_dir: &Path,
    stop: &AtomicBool,
    log: &mut dyn FnMut(&str),
    progress: &dyn progress::Progress,
) -> Result<Results, RunError> {
    let writer = ResultsWriter::new(out_dir)?;
    let mut results = Results {
        format: RESULTS_FORMAT,
        wkrun_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: now_rfc3339(),
        finished_at: None,
        status: Status::Running,
        error: None,
        spec: SpecRef {
            name: plan.spec_name.clone(),
            version: plan.spec_version.clone(),
            sha256: spec.sha256.clone(),
            path: spec.path.display().to_string(),
            overrides: spec.overrides.clone(),
        },
        host: host_info(),
        target: plan.target.clone(),
        phases: Vec::new(),
    };
    let fail = |results: &mut Results, msg: String| -> RunError {
        results.status = Status::Failed;
        results.error = Some(msg.clone());
        results.finished_at = Some(now_rfc3339());
        match writer.write(results) {
            Ok(()) => RunError::Failed(msg),
            Err(e) => RunError::Failed(format!("{msg}; and the results could not be written: {e}")),
        }
    };
    writer.write(&results)?;
    // A simulated target: one drive, factory-new, for the whole run.
    let sim = match plan
        .target
        .sim
        .as_ref()
        .map(|t| crate::sim::SimDevice::new(&t.params))
    {
        None => None,
        Some(Ok(d)) => Some(std::sync::Mutex::new(d)),
        Some(Err(e)) => return Err(fail(&mut results, format!("simulated target: {e}"))),
    };
    let mut written: Vec<(u64, u64)> = Vec::new();
    let n = plan.phases.len();
    log(&if n == 1 {
        "1 phase, numbered 0".to_string()
    } else {
        format!("{n} phases, numbered 0 to {}", n.saturating_sub(1))
    });
    if plan.start_at > 0 {
        log(&format!(
            "starting at phase {}: phases 0 to {} are taken as done",
            plan.start_at,
            plan.start_at - 1
        ));
    }
    for phase in plan.phases.iter().skip(plan.start_at) {
        if stop.load(Ordering::Relaxed) {
            results.status = Status::Interrupted;
            results.finished_at = Some(now_rfc3339());
            writer.write(&results)?;
            return Err(RunError::Interrupted);
        }
        log(&format!(
            "[phase {}] {} \"{}\": {}",
            phase.index,
            phase.kind.as_str(),
            phase.name,
            summary(phase)
        ));
        progress.phase_start(phase.index + 1, n, phase);
        let started_at = now_rfc3339();
        let t0 = Instant::now();
        let mut pr = PhaseResult {
            index: phase.index,
            name: phase.name.clone(),
            kind: phase.kind,
            labels: phase.labels.clone(),
            params: phase.params.clone(),
            started_at,
            measured_started_at: None,
            duration_s: 0.0,
            completed: true,
            read: DirStats::zero(),
            write: DirStats::zero(),
            total: DirStats::zero(),
            series_csv: None,
            steady_state: None,
            windows: Vec::new(),
            aggregates: None,
            coverage: None,
            read_share: None,
            ops_by_size: Vec::new(),
            intervals: None,
            erase_method: None,
            erased_bytes: None,
            errors: None,
            verify: None,
            warnings: Vec::new(),
            device: None,
        };
        let (start, len) = (phase.params.span_start_bytes, phase.params.span_bytes);
        if let (PhaseKind::Erase, Some(device)) = (phase.kind, sim.as_ref()) {
            let method = phase
                .params
                .method
                .unwrap_or(crate::spec::EraseMethod::Auto);
            let before = device.lock().unwrap_or_else(|p| p.into_inner()).counters();
            let (used, ns) = erase::erase_sim(device, method, start, len);
            let after = device.lock().unwrap_or_else(|p| p.into_inner()).counters();
            pr.erase_method = Some(used);
            pr.erased_bytes = Some(len);
            pr.duration_s = ns as f64 / 1e9;
            pr.device = Some(crate::results::DeviceResult::new(
                &after.since(&before),
                None,
            ));
            written = subtract(&written, start, start + len);
            log(&format!(
                "      erased {len} B with {} in {:.3} s of drive time",
                used.as_str(),
                pr.duration_s
            ));
        } else if phase.kind == PhaseKind::Erase {
            let file = match crate::target::open::open_io(&plan.target, false, true) {
                Ok(f) => f,
                Err(e) => {
                    return Err(fail(
                        &mut results,
                        format!(
                            "phase \"{}\": cannot open {}: {e}",
                            phase.name,
                            plan.target.path.display()
                        ),
                    ));
                }
            };
            let method = phase
                .params
                .method
                .unwrap_or(crate::spec::EraseMethod::Auto);
            let erased = erase::erase(&plan.target, &file, method, start, len, stop);
            progress.phase_end();
            match erased {
                Ok(used) => {
                    pr.erase_method = Some(used);
                    pr.erased_bytes = Some(len);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    pr.completed = false;
                    pr.duration_s = t0.elapsed().as_secs_f64();
                    results.phases.push(pr);
                    results.status = Status::Interrupted;
                    results.finished_at = Some(now_rfc3339());
                    writer.write(&results)?;
                    return Err(RunError::Interrupted);
                }
                Err(e) => {
                    return Err(fail(
                        &mut results,
                        format!(
                            "phase \"{}\": erase of [{start}, {}) failed: {e}",
                            phase.name,
                            start + len
                        ),
                    ));
                }
            }
            pr.duration_s = t0.elapsed().as_secs_f64();
            written = subtract(&written, start, start + len);
            log(&format!(
                "      erased {len} B with {} in {:.3} s",
                pr.erase_method.unwrap_or(method).as_str(),
                pr.duration_s
            ));
        } else {
            if phase.kind == PhaseKind::Workload && phase.params.read_percent != Some(0) {
                // Case C10: reads of never-written or trimmed space are not the drive's speed. A sliver left
                // by rounding (under 1 % of the span) is not worth a warning.
                let gaps = uncovered(&written, start, start + len);
                let missing: u64 = gaps.iter().map(|(a, b)| b - a).sum();
                if missing > 0 && missing as u128 * 100 >= len as u128 {
                    let w = format!(
                        "{missing} B ({:.1} %) of the read span [{start}, {}) were not written by an earlier phase of this run, first [{}, {}): a drive can answer reads of never-written or trimmed blocks without touching flash, so these read numbers may not be the drive's; precondition with a fill",
                        missing as f64 * 100.0 / len as f64,
                        start + len,
                        gaps[0].0,
                        gaps[0].1
                    );
                    log(&format!("      warning: {w}"));
                    pr.warnings.push(w);
                }
            }
            let csv_name = series_csv::file_name(phase.index, &phase.name);
            let csv_path = out_dir.join(&csv_name);
            let checker = if phase.kind == PhaseKind::Verify {
                match verify_checker(plan, phase) {
                    Ok(c) => Some(c),
                    Err(e) => return Err(fail(&mut results, e)),
                }
            } else {
                None
            };
            let check = checker.as_ref().map(|c| c as &dyn crate::engine::ReadCheck);
            let mut on_row = |row: &series_csv::SeriesRow| progress.row(row);
            let o = io_phase::run_io_phase(
                &plan.target,
                phase,
                &spec.path,
                &csv_path,
                stop,
                io_phase::PhaseHooks {
                    sim: sim.as_ref(),
                    on_row: &mut on_row,
                    check,
                },
            );
            progress.phase_end();
            let o = match o {
                Ok(o) => o,
                Err(e) => return Err(fail(&mut results, format!("phase \"{}\": {e}", phase.name))),
            };
            let secs = o.outcome.end_ns as f64 / 1e9;
            pr.duration_s = secs;
            pr.read = DirStats::new(
                o.totals.read.ops,
                o.totals.read.bytes,
                secs,
                o.outcome.read.summary(),
            );
            pr.write = DirStats::new(
                o.totals.write.ops,
                o.totals.write.bytes,
                secs,
                o.outcome.write.summary(),
            );
            let mut all = o.outcome.read.clone();
            all.merge(&o.outcome.write);
            pr.total = DirStats::new(
                o.totals.read.ops + o.totals.write.ops,
                o.totals.read.bytes + o.totals.write.bytes,
                secs,
                all.summary(),
            );
            pr.device = o.device.as_ref().map(|c| {
                crate::results::DeviceResult::new(
                    c,
                    Some(series_csv::device_file_name(phase.index, &phase.name)),
                )
            });
            pr.series_csv = Some(csv_name);
            pr.measured_started_at = o.measured_started_at.clone();
            let interval_ns = phase
                .params
                .interval_ns
                .unwrap_or(crate::plan::DEFAULT_INTERVAL_NS);
            let interval_s = interval_ns as f64 / 1e9;
            let round_s = phase
                .params
                .steady_round_ns
                .map_or(interval_s, |r| r as f64 / 1e9);
            if let (Some(rule), Some(v)) = (phase.params.steady_state, o.steady.clone()) {
                pr.steady_state = Some(crate::results::SteadyState {
                    criterion: rule,
                    reached: v.reached,
                    at_s: v.at_round.map(|r| (r + 1) as f64 * round_s),
                    left_at_s: v.left.as_ref().map(|l| (l.at_round + 1) as f64 * round_s),
                    window_s: rule.window() as f64 * round_s,
                    ended_phase: o.ended_at_steady,
                    verdict: v,
                });
            }
            for w in &phase.params.windows {
                if let Ok(spec) = crate::stats::window::WindowSpec::parse(w) {
                    let (rows, stats) = spec.stats(&o.iops, interval_ns);
                    pr.windows.push(crate::results::WindowResult {
                        spec: w.clone(),
                        start_s: rows.rows.start as f64 * interval_s,
                        end_s: rows.rows.end as f64 * interval_s,
                        complete: rows.complete,
                        iops: stats,
                    });
                }
            }
            if let Some(every) = phase.params.aggregate_ns
                && let Ok(groups) = crate::stats::window::aggregate(&o.iops, interval_ns, every)
            {
                pr.aggregates = Some(crate::results::Aggregates {
                    every_s: every as f64 / 1e9,
                    groups,
                });
            }
            pr.read_share = ReadShare::of(&pr.read, &pr.write);
            pr.ops_by_size = o
                .outcome
                .sizes
                .iter()
                .map(|&(bytes, ops)| SizeOps {
                    bytes: bytes as u64,
                    ops,
                })
                .collect();
            pr.coverage = Some(phase_coverage(phase, pr.read.ops + pr.write.ops));
            if crate::engine::recording_off() {
                pr.warnings.push(format!(
                    "per-I/O recording was off ({}=1, for benchmarking wkrun itself): no latencies, and the series counts each I/O in the interval its worker was last in",
                    crate::engine::NO_RECORD_ENV
                ));
            }
            pr.intervals = Some(o.rows);
            pr.errors = phase_errors(&o.outcome.errors);
            let mut verify_failed = None;
            if let Some(c) = &checker {
                let v = c.summary(pr.read.bytes / crate::stamp::SECTOR as u64);
                log(&format!(
                    "      verified {} sectors: {} ok, {} reordered, {} zeroed, {} stale, {} corrupted, {} unexpected, {} unchecked",
                    v.sectors,
                    v.ok,
                    v.reordered,
                    v.zeroed,
                    v.stale,
                    v.corrupted,
                    v.unexpected,
                    v.unchecked
                ));
                if v.mismatched > 0 {
                    let msg = format!(
                        "phase {} \"{}\": {} of {} sectors did not verify ({} zeroed, {} stale, {} corrupted, {} unexpected), first: {}",
                        phase.index,
                        phase.name,
                        v.mismatched,
                        v.sectors,
                        v.zeroed,
                        v.stale,
                        v.corrupted,
                        v.unexpected,
                        pr.errors.as_ref().map_or("", |e| e.first.message.as_str())
                    );
                    if phase.params.on_error == Some(crate::spec::OnError::Continue) {
                        log(&format!("      warning: {msg}"));
                        pr.warnings.push(msg);
                    } else {
                        verify_failed = Some(msg);
                    }
                }
                pr.verify = Some(v);
            }
            let io_failures =
                o.outcome.errors.total - pr.verify.as_ref().map_or(0, |v| v.mismatched);
            if let Some(e) = pr
                .errors
                .as_ref()
                .filter(|_| o.outcome.error.is_none() && io_failures > 0)
            {
                let w = format!(
                    "{} I/Os failed and were counted (on_error = \"continue\"), first: {}",
                    e.total, e.first.message
                );
                log(&format!("      warning: {w}"));
                pr.warnings.push(w);
            }
            let interrupted = stop.load(Ordering::Relaxed) && o.outcome.error.is_none();
            pr.completed = o.outcome.error.is_none() && !interrupted;
            // A fill covers its span only when it visits every block (sequential or full coverage).
            let covers = phase.params.pattern != Some(crate::spec::Pattern::Random)
                || phase.params.coverage == Some(crate::spec::Coverage::Full);
            if pr.completed && phase.kind != PhaseKind::Workload && covers {
                written.push((start, start + o.totals.write.bytes.min(len)));
            }
            log(&format!(
                "      {} reads, {} writes in {:.2} s: {:.0} IOPS, {:.1} MB/s",
                pr.read.ops,
                pr.write.ops,
                secs,
                pr.read.iops + pr.write.iops,
                (pr.read.bw_bytes_per_s + pr.write.bw_bytes_per_s) / 1e6
            ));
            if let Some(ss) = &pr.steady_state {
                // To the millisecond, without float noise (1.2, not 1.2000000000000002).
                match (ss.at_s.map(|a| (a * 1e3).round() / 1e3), ss.ended_phase) {
                    (Some(at), true) => log(&format!(
                        "      steady state at {at} s: the phase ended there (until = \"steady\")"
                    )),
                    (Some(at), false) => log(&format!("      steady state reached at {at} s")),
                    (None, _) => log("      steady state not reached"),
                }
            }
            if let Some(err) = &o.outcome.error {
                let msg = io_phase::describe(phase, err);
                results.phases.push(pr);
                return Err(fail(&mut results, msg));
            }
            if let Some(msg) = verify_failed.filter(|_| !interrupted) {
                results.phases.push(pr);
                return Err(fail(&mut results, msg));
            }
            if interrupted {
                results.phases.push(pr);
                results.status = Status::Interrupted;
                results.finished_at = Some(now_rfc3339());
                writer.write(&results)?;
                return Err(RunError::Interrupted);
            }
        }
        results.phases.push(pr);
        writer.write(&results)?;
    }
    results.status = Status::Completed;
    results.finished_at = Some(now_rfc3339());
    writer.write(&results)?;
    Ok(results)
}

/// The read check of a verify phase: with `expect = "last-writer"`, the last writer of every unit of its span,
/// replayed from the phases before it.
fn verify_checker(plan: &Plan, phase: &PhasePlan) -> Result<crate::verify::Checker, String> {
    use crate::plan::replay::VerifyMap;
    use crate::verify::Checker;
    use crate::vocab::Expect;
    let expect = phase.params.expect.unwrap_or(Expect::LastWriter);
    let max_listed = phase.params.max_listed.unwrap_or(10) as usize;
    let map = match expect {
        Expect::Header => None,
        Expect::LastWriter => Some(
            VerifyMap::build(&plan.phases, phase.index, plan.target.kind)
                .map_err(|e| format!("phase {} \"{}\": {e}", phase.index, phase.name))?,
        ),
    };
    Ok(Checker::new(expect, map, max_listed))
}

/// The coverage of a finished I/O phase that completed `ops` I/Os.
fn phase_coverage(phase: &PhasePlan, ops: u64) -> crate::stats::coverage::Coverage {
    let q = &phase.params;
    let (len, unit) = match phase.kind {
        PhaseKind::RestoreImage => (q.image_bytes.unwrap_or(0), q.block_size_bytes.unwrap_or(1)),
        _ => (q.span_bytes, q.block_size_bytes.unwrap_or(1)),
    };
    let fraction_of_span = if q.span_bytes > 0 {
        len as f64 / q.span_bytes as f64
    } else {
        0.0
    };
    let each_once = q.pattern != Some(crate::spec::Pattern::Random)
        || q.coverage == Some(crate::spec::Coverage::Full);
    let mut c = crate::stats::coverage::coverage(len.div_ceil(unit.max(1)), ops, each_once);
    c.fraction *= fraction_of_span;
    c
}

/// `ranges` with `[a, b)` removed (a range straddling it keeps its parts on either side).
fn subtract(ranges: &[(u64, u64)], a: u64, b: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    for &(s, e) in ranges {
        if s < a {
            out.push((s, e.min(a)));
        }
        if e > b {
            out.push((s.max(b), e));
        }
    }
    out
}

/// The parts of `[a, b)` that the union of `ranges` does not cover, in order.
fn uncovered(ranges: &[(u64, u64)], a: u64, b: u64) -> Vec<(u64, u64)> {
    let mut v = ranges.to_vec();
    v.sort_unstable();
    let mut gaps = Vec::new();
    let mut reach = a;
    for (s, e) in v {
        if s > reach && reach < b {
            gaps.push((reach, s.min(b)));
        }
        reach = reach.max(e);
    }
    if reach < b {
        gaps.push((reach, b));
    }
    gaps
}

fn summary(p: &PhasePlan) -> String {
    let q = &p.params;
    // A restore overwrites only the image's bytes at the start of its span.
    let len = if p.kind == PhaseKind::RestoreImage {
        q.image_bytes.unwrap_or(q.span_bytes)
    } else {
        q.span_bytes
    };
    let range = format!("[{}, {})", q.span_start_bytes, q.span_start_bytes + len);
    match p.kind {
        PhaseKind::Erase => range,
        _ => format!(
            "{range}, {} B blocks, QD{}{}",
            q.block_size_bytes.unwrap_or(0),
            q.queue_depth.unwrap_or(1),
            match (q.duration_ns, q.expected_bytes) {
                (Some(d), _) => format!(", {}", crate::units::Duration(d)),
                (None, Some(b)) => format!(", {b} B"),
                _ => String::new(),
            }
        ),
    }
}

/// The default output folder: `wkrun-results/<spec name>-<UTC time>` under the current directory.
pub fn default_output_dir(spec_name: &str) -> PathBuf {
    let t = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(':', "");
    PathBuf::from("wkrun-results").join(format!("{spec_name}-{t}"))
}

/// The summary of a tally; `None` when nothing failed.
fn phase_errors(t: &crate::engine::errors::ErrorTally) -> Option<crate::results::PhaseErrors> {
    let (_, f) = t.first.as_ref().filter(|_| t.total > 0)?;
    Some(crate::results::PhaseErrors {
        total: t.total,
        read: t.reads,
        write: t.writes,
        by_cause: t
            .by_cause
            .iter()
            .map(|(cause, errno, count)| crate::results::ErrorCause {
                cause: cause.clone(),
                errno: *errno,
                count: *count,
            })
            .collect(),
        first: crate::results::FirstError {
            op: match f.kind {
                crate::ops::OpKind::Read => "read".into(),
                crate::ops::OpKind::Write => "write".into(),
            },
            offset_bytes: f.offset,
            len_bytes: f.len as u64,
            cause: f.cause.clone(),
            errno: f.errno,
            message: f.message.clone(),
        },
    })
}
