//! One phase merged across hosts: totals, latency from the added histograms, the per-host breakdown, the
//! merged series.

use super::series::{HostSeries, merge_rows};
use crate::report::runs::RunData;
use crate::results::judge;
use crate::results::series_csv::{SeriesRow, file_name};
use crate::results::{
    CpuResult, DirStats, ErrorCause, FlushResult, HostPhase, LatencyHistograms, PhaseErrors,
    PhaseResult, ReadShare, SizeOps, SyncResult,
};
use crate::spec::PhaseKind;
use crate::stats::latency::{Part, merge_parts};
use crate::vocab::Direction;
use std::collections::BTreeMap;

/// A merged phase, its merged series rows and its merged histogram log's text (`None`: not merged).
pub type MergedPhase = (PhaseResult, Option<Vec<SeriesRow>>, Option<Vec<u8>>);

/// One phase of every run merged, with its merged series: the phase at position `at[h]` of run `h`'s
/// results (the same phase index in every run that has it); `None` for a run that ended before the phase
/// began, whose part is a blank one ([`blank`]): it counts nothing and lies at no time.
///
/// # Errors
/// Phases that differ by name or kind, or a host whose histogram does not hold its latencies.
pub fn merge(
    runs: &[RunData],
    at: &[Option<usize>],
    unit: super::Unit,
) -> Result<MergedPhase, String> {
    let Some(first) = (runs.iter().zip(at)).find_map(|(r, &i)| Some(&r.results.phases[i?])) else {
        return Err("no run holds this phase: nothing to merge".into());
    };
    let none = blank(first);
    let parts: Vec<&PhaseResult> = (runs.iter().zip(at))
        .map(|(r, &i)| i.map_or(&none, |i| &r.results.phases[i]))
        .collect();
    let p0 = first;
    let i = p0.index;
    for (r, p) in runs.iter().zip(&parts) {
        if p.name != p0.name || p.kind != p0.kind {
            return Err(format!(
                "phase {i} is \"{}\" ({}) in {} but \"{}\" ({}) in {}: merge runs of the same spec",
                p0.name,
                p0.kind.as_str(),
                runs[0].file.display(),
                p.name,
                p.kind.as_str(),
                r.file.display()
            ));
        }
    }
    let Span {
        origin,
        shifts,
        duration_s,
    } = span(&parts);
    let shift = |h: usize| shifts[h];
    let named =
        |h: usize, e: String| format!("{}, phase {i} \"{}\": {e}", runs[h].file.display(), p0.name);
    let by_dir = |d| dir(&parts, duration_s, d).map_err(|(h, e)| named(h, e));
    let read = by_dir(Direction::Read)?;
    let write = by_dir(Direction::Write)?;
    // Trims where any host issued them: a third direction, merged as the other two.
    let trim = match parts.iter().any(|p| p.trim.is_some()) {
        true => Some(by_dir(Direction::Trim)?),
        false => None,
    };
    let total = total(&parts, duration_s).map_err(|(h, e)| named(h, e))?;
    let mut m = p0.clone();
    m.started_at = (parts.iter().zip(at))
        .filter(|(_, i)| i.is_some())
        .map(|(p, _)| p.started_at.clone())
        .min()
        .unwrap_or_default();
    m.measured_started_at = None;
    m.series_t0_unix_ns = origin;
    m.duration_s = duration_s;
    m.completed = parts.iter().all(|p| p.completed);
    (m.read, m.write, m.trim, m.total) = (read, write, trim, total);
    m.read_share = ReadShare::of(&m);
    let (sync, flush) = sync(&parts).map_err(|(h, e)| named(h, e))?;
    m.latency_histograms = Some(LatencyHistograms {
        read: add_buckets(&parts, Direction::Read),
        write: add_buckets(&parts, Direction::Write),
        trim: add_buckets(&parts, Direction::Trim),
        flush,
    })
    .filter(|h| !h.flush.is_empty() || Direction::ALL.iter().any(|&d| !h.dir(d).is_empty()));
    m.sync = sync;
    m.ops_by_size = sizes(&parts);
    // Latencies from the intended issue times have no histograms to add up: a merge leaves them out.
    m.arrivals = None;
    // A step's percentile is each host's; the merged phase's steps are not judged again.
    m.latency_target = None;
    m.erased_bytes = p0
        .erased_bytes
        .map(|_| parts.iter().filter_map(|p| p.erased_bytes).sum());
    m.errors = errors(&parts);
    (m.coverage, m.host, m.device, m.verify) = (None, None, None, None);
    m.cpu = cpu(&parts, unit, m.total.ops, duration_s);
    // A device's own counters and health stay in its host's (or target's) folder: two hosts' devices,
    // or two targets on one device, do not add up to a device.
    (m.kernel, m.counters_csv, m.health) = (None, None, None);
    m.workers.clear();
    m.hosts = host_parts(runs, at, p0.index);
    // First: what the merged figures cover and what the merged rates mean, before the hosts' own words.
    let names: Vec<String> = (0..runs.len()).map(|h| unit.name(runs, h)).collect();
    m.warnings = derived_warnings(unit, &names, &m.hosts);
    m.warnings
        .extend(warnings(runs, &parts, shift, p0.params.interval_ns, unit));
    let mut series = merged_series(runs, at, p0, shift)?;
    let hlog = match (series.as_mut(), p0.params.interval_ns) {
        (Some(rows), Some(iv)) => super::hlog::merge(runs, (at, &parts), shift, iv, rows)
            .map_err(|e| format!("phase {i} \"{}\": {e}", p0.name))?,
        _ => None,
    };
    let hlog = hlog.map(|(text, folds)| {
        let n = series.as_ref().map_or(0, Vec::len);
        m.warnings.extend(folds_warning(runs, &folds, n, unit));
        text
    });
    m.intervals = series.as_ref().map(|rows| rows.len() as u64);
    // Named as a run names it today, whatever the hosts' (older) results called theirs.
    m.series_csv = series.as_ref().map(|_| file_name(m.index, &m.name));
    m.hist_log = hlog
        .as_ref()
        .map(|_| crate::results::hlog::file_name(m.index, &m.name));
    // The hosts' traces stay in their folders.
    m.trace = None;
    let began: Vec<&PhaseResult> = (parts.iter().zip(at))
        .filter(|(_, i)| i.is_some())
        .map(|(p, _)| *p)
        .collect();
    judge(&began, series.as_deref(), &mut m)
        .map_err(|e| format!("phase {i} \"{}\": {e}", p0.name))?;
    Ok((m, series, hlog))
}

pub use crate::results::Span;

/// The part of a run that ended before phase `p` began (interrupted or failed sooner, or stopped during
/// `--start-at`'s wait): `p`'s name, kind and parameters (the phases merged are held to them), and nothing
/// else: no I/O, no latency, no series, no time, not completed, no warning; its CPU time 0 where `p` has
/// one (the host spent none on it).
fn blank(p: &PhaseResult) -> PhaseResult {
    let mut b = p.clone();
    (b.read, b.write, b.total) = (DirStats::zero(), DirStats::zero(), DirStats::zero());
    b.trim = p.trim.as_ref().map(|_| DirStats::zero());
    b.read_share = None;
    (b.series_t0_unix_ns, b.duration_s, b.completed) = (None, 0.0, false);
    (b.latency_histograms, b.sync, b.errors) = (None, None, None);
    b.ops_by_size.clear();
    b.erased_bytes = None;
    b.cpu = p.cpu.as_ref().map(|_| CpuResult::new((0, 0), 0, 0));
    (b.series_csv, b.hist_log, b.trace) = (None, None, None);
    (b.steady_state, b.aggregates, b.derived) = (None, None, None);
    b.warnings.clear();
    b
}

/// The span of the parts `parts` of a merged phase ([`crate::results::span`] of their series starts and
/// durations): what [`merge`] makes the merged phase's duration and start of, and what `wkrun validate`
/// holds an aggregate's to.
pub fn span(parts: &[&PhaseResult]) -> Span {
    let times: Vec<(Option<u64>, f64)> = (parts.iter())
        .map(|p| (p.series_t0_unix_ns, p.duration_s))
        .collect();
    crate::results::span(&times)
}

/// wkrun's CPU time in the merged phase, per I/O over its `ios` I/Os: hosts are processes of their own,
/// so theirs add up; the targets of one run share its process, whose whole time each target's reading
/// already holds, so the largest reading stands for all (their sum would count it once per target).
/// `None` unless every part has one.
fn cpu(parts: &[&PhaseResult], unit: super::Unit, ios: u64, duration_s: f64) -> Option<CpuResult> {
    let ns = crate::results::counters::whole_ns;
    let all: Vec<(u64, u64)> = parts
        .iter()
        .map(|p| p.cpu.as_ref().map(|c| (ns(c.user_s), ns(c.system_s))))
        .collect::<Option<_>>()?;
    let t = match unit {
        super::Unit::Host => all.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        super::Unit::Target => all.into_iter().max_by_key(|c| c.0 + c.1)?,
    };
    Some(CpuResult::new(t, ios, ns(duration_s)))
}

/// The series of the phase at position `at[h]` of every host `h`, on the common grid; `None` for a phase
/// without a series.
fn merged_series(
    runs: &[RunData],
    at: &[Option<usize>],
    p0: &PhaseResult,
    shift: impl Fn(usize) -> u64,
) -> Result<Option<Vec<SeriesRow>>, String> {
    let (Some(_), Some(interval_ns)) = (&p0.series_csv, p0.params.interval_ns) else {
        return Ok(None);
    };
    let hosts: Vec<HostSeries<'_>> = runs
        .iter()
        .enumerate()
        .map(|(h, r)| HostSeries {
            shift_ns: shift(h),
            rows: (at[h].and_then(|i| r.series.get(i)))
                .and_then(|s| s.as_deref())
                .unwrap_or_default(),
        })
        .collect();
    merge_rows(&hosts, interval_ns)
        .map(Some)
        .map_err(|e| format!("phase {} \"{}\": {e}", p0.index, p0.name))
}

/// The merged phase `m` (totals set) judged as a run judges its own series, by the same code
/// ([`crate::results::judge`]): the steady-state verdict, windows, aggregates, derived and headline figures
/// of the merged rows, by the measure the phase's record gives. What depends on a host's span is the
/// cluster's: `steady_after.written` is the sum of the hosts' resolved bytes, and `"fill_once"` the sum of
/// their ranges' bytes. The verdict ended the phase when it ended every host's. A phase without merged rows,
/// or not a fill, restore or workload, has none of them.
fn judge(
    parts: &[&PhaseResult],
    rows: Option<&[SeriesRow]>,
    m: &mut PhaseResult,
) -> Result<(), String> {
    (m.steady_state, m.aggregates, m.derived) = (None, None, None);
    m.windows.clear();
    m.headline.clear();
    let io = matches!(
        m.kind,
        PhaseKind::Fill | PhaseKind::RestoreImage | PhaseKind::Workload
    );
    let (Some(rows), Some(interval_ns), true) = (rows, m.params.interval_ns, io) else {
        return Ok(());
    };
    let mut measure = m.params.measure()?;
    if let Some(start) = measure.steady.as_mut().and_then(|s| s.start.as_mut())
        && start.written_bytes.is_some()
    {
        start.written_bytes = parts
            .iter()
            .map(|p| p.params.steady_after.and_then(|s| s.written_bytes))
            .sum();
    }
    let span_len = parts.iter().map(|p| p.params.range_bytes()).sum();
    let ended_phase = parts
        .iter()
        .all(|p| p.steady_state.as_ref().is_some_and(|s| s.ended_phase));
    let judged = judge::judge_rows(&measure, span_len, rows);
    judge::record(&measure, interval_ns, judged, ended_phase, m);
    Ok(())
}

/// Each host's part of the phase at position `at[h]` of run `h` (`None`: the run ended before it).
fn host_parts(runs: &[RunData], at: &[Option<usize>], index: usize) -> Vec<HostPhase> {
    (runs.iter().zip(at).enumerate())
        .map(|(h, (r, &i))| host_part(r, h, index, i.map(|i| &r.results.phases[i])))
        .collect()
}

/// The part of host `h` (the run `run`) in the merged phase of index `index`: its phase `p`'s times and
/// figures; for a run that holds no such phase (`p` is `None`), a part that began nothing: no start, no
/// series start, no time, not completed, no span and no I/O ([`HostPhase::began`]), marked `stopped_in`
/// when the run ended in it without writing its results ([`crate::results::Results::stopped_in`]).
pub(super) fn host_part(
    run: &RunData,
    h: usize,
    index: usize,
    p: Option<&PhaseResult>,
) -> HostPhase {
    let rank = run.results.launch.as_ref().and_then(|l| l.rank);
    let Some(p) = p else {
        let stopped = run.results.stopped_in(&run.file);
        return HostPhase {
            host: h,
            rank,
            started_at: None,
            stopped_in: stopped.filter(|q| q.index == index).map(|_| true),
            series_t0_unix_ns: None,
            duration_s: 0.0,
            completed: false,
            span_bytes: None,
            read: DirStats::zero(),
            write: DirStats::zero(),
            trim: None,
        };
    };
    HostPhase {
        host: h,
        rank,
        started_at: Some(p.started_at.clone()),
        stopped_in: None,
        series_t0_unix_ns: p.series_t0_unix_ns,
        duration_s: p.duration_s,
        completed: p.completed,
        span_bytes: Some(p.params.span_bytes),
        read: p.read.clone(),
        write: p.write.clone(),
        trim: p.trim.clone(),
    }
}

/// One direction merged: counts added, rates over the cluster's span, latency from the added histograms.
fn dir(parts: &[&PhaseResult], duration_s: f64, d: Direction) -> Result<DirStats, (usize, String)> {
    let mut lat = Vec::new();
    for (h, p) in parts.iter().enumerate() {
        let s = p.dir(d);
        let Some(summary) = &s.latency_ns else {
            continue;
        };
        let Some(b) = p.latency_histograms.as_ref().map(|x| x.dir(d)) else {
            return Err((h, "no latency histograms (results written before wkrun recorded them): cluster percentiles need them".to_string()));
        };
        // Checked here, per host, so that the error names the host whose histogram is wrong.
        let held = b.iter().fold(0u64, |n, x| n.saturating_add(x[1]));
        if held != s.ops {
            return Err((
                h,
                format!(
                    "its {d} latency histogram holds {held} latencies, not the {} counted",
                    s.ops
                ),
            ));
        }
        lat.push(Part {
            summary,
            count: s.ops,
            buckets: b,
        });
    }
    let latency = merge_parts(&lat).map_err(|e| (0, e))?;
    let ops = parts.iter().map(|p| p.dir(d).ops).sum();
    let bytes = parts.iter().map(|p| p.dir(d).bytes).sum();
    Ok(DirStats::new(ops, bytes, duration_s, latency))
}

/// Every direction of every host together (reads, writes and trims): counts added, latency from the
/// directions' merged histograms.
fn total(parts: &[&PhaseResult], duration_s: f64) -> Result<DirStats, (usize, String)> {
    let mut merged = Vec::new();
    for d in Direction::ALL {
        merged.push((dir(parts, duration_s, d)?, add_buckets(parts, d)));
    }
    let lat: Vec<Part<'_>> = merged
        .iter()
        .filter_map(|(s, b)| {
            Some(Part {
                summary: s.latency_ns.as_ref()?,
                count: s.ops,
                buckets: b,
            })
        })
        .collect();
    let latency = merge_parts(&lat).map_err(|e| (0, e))?;
    let ops = merged.iter().map(|(s, _)| s.ops).sum();
    let bytes = merged.iter().map(|(s, _)| s.bytes).sum();
    Ok(DirStats::new(ops, bytes, duration_s, latency))
}

/// The hosts' histograms of direction `d` added bucket by bucket.
fn add_buckets(parts: &[&PhaseResult], d: Direction) -> Vec<[u64; 2]> {
    add_pairs(parts, |h| h.dir(d))
}

/// The hosts' histograms that `pick` takes of each host's histograms, added bucket by bucket.
fn add_pairs(
    parts: &[&PhaseResult],
    pick: impl Fn(&LatencyHistograms) -> &Vec<[u64; 2]>,
) -> Vec<[u64; 2]> {
    let mut sum: BTreeMap<u64, u64> = BTreeMap::new();
    for h in parts.iter().filter_map(|p| p.latency_histograms.as_ref()) {
        for &[value, count] in pick(h) {
            *sum.entry(value).or_default() += count;
        }
    }
    sum.into_iter().map(|(v, c)| [v, c]).collect()
}

/// The merged durable writes and flushes, and the flushes' histogram behind their latency.
type Synced = (Option<SyncResult>, Vec<[u64; 2]>);

/// The hosts' durable writes and flushes added: flagged writes and flushes counted over every host, and
/// the flushes' latency merged as a direction's ([`merge_parts`]: from the hosts' flush histograms added,
/// which the merge keeps). Where a host that flushed has no flush histogram (results written before
/// flushes had one, or read from fio's JSON) the latency is that host's only where it made them all
/// (summaries do not add up), and no histogram is kept.
///
/// # Errors
/// The host (its position) whose flush histogram does not hold its flushes.
fn sync(parts: &[&PhaseResult]) -> Result<Synced, (usize, String)> {
    let all: Vec<&SyncResult> = parts.iter().filter_map(|p| p.sync.as_ref()).collect();
    let Some(&first) = all.first() else {
        return Ok((None, Vec::new()));
    };
    let mut m = first.clone();
    m.flagged_writes = all.iter().map(|s| s.flagged_writes).sum();
    let flushes: Vec<(usize, &FlushResult, &[[u64; 2]])> = (parts.iter().enumerate())
        .filter_map(|(h, p)| {
            let f = p.sync.as_ref()?.flushes.as_ref()?;
            let b = p.latency_histograms.as_ref().map_or(&[][..], |x| &x.flush);
            Some((h, f, b))
        })
        .collect();
    let Some(&(_, f0, _)) = flushes.first() else {
        return Ok((Some(m), Vec::new()));
    };
    let made: Vec<_> = flushes.iter().filter(|(_, f, _)| f.ops > 0).collect();
    let timed =
        |(_, f, b): &&(usize, &FlushResult, &[[u64; 2]])| f.latency_ns.is_some() && !b.is_empty();
    let (latency, hist) = match !made.is_empty() && made.iter().all(timed) {
        true => {
            let mut lat = Vec::new();
            for &&(h, f, b) in &made {
                let held = b.iter().fold(0u64, |n, x| n.saturating_add(x[1]));
                if held != f.ops {
                    let why = "latency histogram holds";
                    return Err((
                        h,
                        format!(
                            "its flush {why} {held} latencies, not the {} flushes counted",
                            f.ops
                        ),
                    ));
                }
                lat.extend(f.latency_ns.as_ref().map(|summary| Part {
                    summary,
                    count: f.ops,
                    buckets: b,
                }));
            }
            let latency = merge_parts(&lat).map_err(|e| (made[0].0, e))?;
            (latency, add_pairs(parts, |x| &x.flush))
        }
        false => match made[..] {
            [one] => (one.1.latency_ns.clone(), Vec::new()),
            _ => (None, Vec::new()),
        },
    };
    m.flushes = Some(FlushResult {
        ops: flushes.iter().map(|(_, f, _)| f.ops).sum(),
        latency_ns: latency,
        ..f0.clone()
    });
    Ok((Some(m), hist))
}

/// I/Os per size added, in order of first appearance.
fn sizes(parts: &[&PhaseResult]) -> Vec<SizeOps> {
    let mut out: Vec<SizeOps> = Vec::new();
    for s in parts.iter().flat_map(|p| &p.ops_by_size) {
        match out.iter_mut().find(|o| o.bytes == s.bytes) {
            Some(o) => o.ops += s.ops,
            None => out.push(*s),
        }
    }
    out
}

/// Failed I/Os added; the first is the first host's (in rank order) that has one.
fn errors(parts: &[&PhaseResult]) -> Option<PhaseErrors> {
    let mut all = parts.iter().filter_map(|p| p.errors.as_ref());
    let mut m = all.next()?.clone();
    for e in all {
        m.total += e.total;
        m.read += e.read;
        m.write += e.write;
        for c in &e.by_cause {
            match m.by_cause.iter_mut().find(|x| x.cause == c.cause) {
                Some(x) => x.count += c.count,
                None => m.by_cause.push(ErrorCause { ..c.clone() }),
            }
        }
    }
    Some(m)
}

/// The warning of a merged phase whose inputs had folded rows (rows without percentiles, their latencies in
/// a later row's): how many each input had, and how many of the `rows` merged rows are folded so; `None`
/// without folds.
fn folds_warning(
    runs: &[RunData],
    folds: &super::hlog::Folds,
    rows: usize,
    unit: super::Unit,
) -> Option<String> {
    let each: Vec<String> = folds
        .hosts
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n > 0)
        .map(|(h, n)| format!("{} {n}", unit.name(runs, h)))
        .collect();
    (!each.is_empty()).then(|| {
        format!(
            "{} (latencies in a later row's, no percentiles: {}), so {} of the {rows} merged rows are folded too: their p50/p99/p99.9 cells and histograms are empty, and each fold's last row has those of all its rows (counts are exact)",
            super::FOLDS_WARNING,
            each.join(", "),
            folds.merged
        )
    })
}

/// The warnings a merged phase gets from its parts' times and counts alone (`hosts`, each part named by
/// `names`), first among its warnings and in this order: which parts measured nothing
/// (`unmeasured_warning`), then that the parts did not run it at the same time (`apart_warning`).
/// What `wkrun merge` writes, and what `wkrun validate` requires of a merged phase from its `hosts`.
pub fn derived_warnings(unit: super::Unit, names: &[String], hosts: &[HostPhase]) -> Vec<String> {
    let times: Vec<(Option<u64>, f64)> = (hosts.iter())
        .map(|h| (h.series_t0_unix_ns, h.duration_s))
        .collect();
    let s = crate::results::span(&times);
    let durations: Vec<f64> = hosts.iter().map(|h| h.duration_s).collect();
    let unmeasured = unmeasured_warning(unit, names, hosts);
    let apart = apart_warning(unit, names, (&s.shifts, &durations), s.duration_s);
    unmeasured.into_iter().chain(apart).collect()
}

/// A word on a merged phase that some of its parts (`hosts`, named by `names`) measured nothing in
/// ([`HostPhase::unmeasured`]): the merged figures are the others' alone, so they are not the cluster's.
/// Names those parts, those that began the phase (their runs stopped during its ramp, or failed at its
/// first I/O) apart from those that never began it (their runs ended before it: [`HostPhase::began`]),
/// and how many parts the figures cover; `None` when every part measured.
fn unmeasured_warning(unit: super::Unit, names: &[String], hosts: &[HostPhase]) -> Option<String> {
    let group = |began: bool, stopped: bool| -> Vec<&str> {
        (hosts.iter().zip(names))
            .filter(|(h, _)| h.unmeasured() && h.began() == began)
            .filter(|(h, _)| h.stopped_unwritten() == stopped)
            .map(|(_, n)| n.as_str())
            .collect()
    };
    let (ramp, stopped) = (group(true, false), group(false, true));
    let never = group(false, false);
    let mut said = Vec::new();
    if !ramp.is_empty() {
        let (its, says) = match ramp.len() {
            1 => ("its own warning says", "its run"),
            _ => ("their own warnings say", "their runs"),
        };
        said.push(format!(
            "{} measured nothing in it ({says} stopped before the measured part began, or failed at its first I/O: {its} why, below)",
            ramp.join(", ")
        ));
    }
    if !stopped.is_empty() {
        let words = crate::results::planned::stopped_in_words("it");
        said.push(format!("{} {words}", stopped.join(", ")));
    }
    if !never.is_empty() {
        let (runs, status) = match never.len() {
            1 => ("its run", "its status"),
            _ => ("their runs", "their statuses"),
        };
        said.push(format!(
            "{} never began it ({runs} ended before this phase began: {status} in cluster.hosts says how)",
            never.join(", ")
        ));
    }
    if said.is_empty() {
        return None;
    }
    let (n, none) = (names.len(), ramp.len() + stopped.len() + never.len());
    Some(format!(
        "{}: {}, so the merged figures are those of {} of the {n} {}, not the {n} together",
        unit.unmeasured(),
        said.join(", and "),
        n - none,
        unit.plural()
    ))
}

/// A word on a phase the parts did not all run at the same time (`None` when they did): the latest
/// start is after the earliest end, so no instant had every part running, and the merged rates (the I/Os
/// over the whole span, from the earliest start to the latest end) are below the parts' together. Names
/// (`names`) the part that ended first, the one that started last, and the time between (their starts are
/// their series' t = 0, `shifts` from the earliest; their ends those plus their `durations`). A part of no
/// duration is left out: it ran at no time.
fn apart_warning(
    unit: super::Unit,
    names: &[String],
    (shifts, durations): (&[u64], &[f64]),
    span_s: f64,
) -> Option<String> {
    let times: Vec<(usize, u64, u64)> = (durations.iter().enumerate())
        .filter(|(_, d)| **d > 0.0)
        .map(|(h, d)| {
            let end = shifts[h].saturating_add((d * 1e9).round() as u64);
            (h, shifts[h], end)
        })
        .collect();
    let (last, started) = times.iter().map(|&(h, s, _)| (h, s)).max_by_key(|t| t.1)?;
    let (first, ended) = times.iter().map(|&(h, _, e)| (h, e)).min_by_key(|t| t.1)?;
    (started > ended).then(|| {
        format!(
            "{}: {} started it {:.3} s after {} had ended it, so the merged rates, the I/Os over the whole {span_s:.3} s span, are below what they did together; read each one's own rate in the phase's hosts[] (the table of hosts in wkrun report), or run them together (under mpirun with --start-at, docs/hosts.md)",
            unit.apart(),
            names[last],
            (started - ended) as f64 / 1e9,
            names[first],
        )
    })
}

/// Each host's warnings prefixed with its rank (or position), and a word on a host whose series started
/// more than a quarter interval after the earliest one.
fn warnings(
    runs: &[RunData],
    parts: &[&PhaseResult],
    shift: impl Fn(usize) -> u64,
    interval_ns: Option<u64>,
    unit: super::Unit,
) -> Vec<String> {
    let mut out = Vec::new();
    let idx = parts[0].index;
    let requested = |r: &RunData| {
        let l = r.results.launch.as_ref()?;
        l.phase_starts
            .iter()
            .find(|s| s.index == idx)
            .map(|s| s.requested_unix_ns)
    };
    let mut asked: Vec<u64> = runs.iter().filter_map(requested).collect();
    asked.sort_unstable();
    asked.dedup();
    if let [first, .., last] = asked[..] {
        out.push(format!(
            "the hosts were asked to start this phase at {} different times, {:.3} s apart: give --start-at an absolute time computed once for all hosts (docs/hosts.md)",
            asked.len(),
            (last - first) as f64 / 1e9
        ));
    }
    for (h, p) in parts.iter().enumerate() {
        let who = unit.name(runs, h);
        if let Some(iv) = interval_ns.filter(|&iv| p.series_csv.is_some() && shift(h) > iv / 4) {
            out.push(format!(
                "{who} started {:.3} s after the earliest host, more than a quarter of the {:.3} s interval: its rows were placed by their midpoints, so its intervals straddle the grid's",
                shift(h) as f64 / 1e9,
                iv as f64 / 1e9
            ));
        }
        out.extend(p.warnings.iter().map(|w| format!("{who}: {w}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::merge;
    use crate::report::testing;
    use crate::results::{DirStats, LatencyHistograms};
    use crate::stats::LatencyRecorder;

    /// A phase of `ops` reads of 100 µs with a histogram that holds `held` of them.
    fn host(label: &str, ops: u64, held: u64) -> crate::report::runs::RunData {
        let mut r = LatencyRecorder::new();
        for _ in 0..ops {
            r.record(100_000);
        }
        let mut p = testing::phase("w", 0);
        p.read = DirStats::new(ops, ops * 4096, 1.0, r.summary());
        p.latency_histograms = Some(LatencyHistograms {
            read: vec![[100_000, held]],
            ..LatencyHistograms::default()
        });
        testing::run(label, "/dev/x", vec![(p, None)])
    }

    /// The host whose histogram does not hold its count is the one named (the first was, whatever its
    /// state; found by the attacker).
    #[test]
    fn a_bad_histogram_names_its_own_host() {
        let runs = [host("good", 10, 10), host("bad", 10, 5)];
        assert_eq!(
            merge(&runs, &[Some(0), Some(0)], super::super::Unit::Host).err(),
            Some(
                "bad/results.json, phase 0 \"w\": its read latency histogram holds 5 latencies, not the 10 counted"
                    .to_string()
            )
        );
        assert!(
            merge(
                &[host("a", 10, 10), host("b", 7, 7)],
                &[Some(0), Some(0)],
                super::super::Unit::Host
            )
            .is_ok()
        );
    }

    /// A host of `flushes` flushes of `ns` each (fsync after every 4 writes), its flush histogram kept
    /// (holding `held`) or not (results written before flushes had one).
    fn flusher(
        label: &str,
        flushes: u64,
        ns: u64,
        held: Option<u64>,
    ) -> crate::report::runs::RunData {
        use crate::results::{FlushResult, SyncResult};
        let mut r = host(label, 10, 10);
        let p = &mut r.results.phases[0];
        let mut lat = LatencyRecorder::new();
        (0..flushes).for_each(|_| lat.record(ns));
        p.sync = Some(SyncResult {
            write_flag: None,
            flagged_writes: 0,
            flushes: Some(FlushResult {
                call: "fsync".into(),
                every_writes: 4,
                ops: flushes,
                latency_ns: lat.summary(),
            }),
        });
        let h = p.latency_histograms.as_mut().expect("histograms");
        h.flush = held.map_or_else(Vec::new, |n| vec![[lat.buckets()[0][0], n]]);
        r
    }

    /// Flush latency is merged from the hosts' flush histograms: 1 flush of 1 ms and 3 of 3 ms have a mean
    /// of 2.5 ms and a p50 of 3 ms (the bucket holding it, clamped to the maximum); a host without a flush
    /// histogram leaves the latency to the one host that made every flush, else out; a histogram that does
    /// not hold its host's flushes names that host.
    #[test]
    fn flush_latency_merges_from_the_flush_histograms() {
        let flush = |runs: &[crate::report::runs::RunData]| {
            let (m, _, _) =
                merge(runs, &[Some(0), Some(0)], super::super::Unit::Host).expect("merge");
            let f = m.sync.and_then(|s| s.flushes).expect("flushes");
            let held = m
                .latency_histograms
                .map(|h| h.flush.iter().map(|b| b[1]).sum::<u64>());
            (f.ops, f.latency_ns, held)
        };
        let (ops, lat, held) = flush(&[
            flusher("a", 1, 1_000_000, Some(1)),
            flusher("b", 3, 3_000_000, Some(3)),
        ]);
        let l = lat.expect("latency");
        assert_eq!((ops, held), (4, Some(4)));
        assert_eq!(
            (l.min, l.mean, l.p50, l.max),
            (1_000_000, 2_500_000.0, 3_000_000, 3_000_000)
        );
        let (ops, lat, held) = flush(&[
            flusher("a", 1, 1_000_000, None),
            flusher("b", 3, 3_000_000, Some(3)),
        ]);
        assert_eq!((ops, lat, held), (4, None, Some(0)));
        let (_, lat, _) = flush(&[flusher("a", 0, 1, None), flusher("b", 3, 3_000_000, None)]);
        assert_eq!(lat.map(|l| l.mean), Some(3_000_000.0));
        let bad = [
            flusher("a", 1, 1_000_000, Some(1)),
            flusher("b", 3, 3_000_000, Some(2)),
        ];
        assert_eq!(
            merge(&bad, &[Some(0), Some(0)], super::super::Unit::Host).err(),
            Some(
                "b/results.json, phase 0 \"w\": its flush latency histogram holds 2 latencies, not the 3 flushes counted"
                    .to_string()
            )
        );
    }

    /// Hosts are processes of their own: their CPU times add up; targets share one process, whose
    /// time each target's reading holds: the largest stands. Per I/O over the merged I/Os (10 + 30);
    /// device counters, their CSV and drive health stay in the parts' folders.
    #[test]
    fn cpu_adds_up_across_hosts_and_is_the_process_s_across_targets() {
        use crate::results::{CpuResult, KernelResult};
        use crate::stats::kernel::DiskStat;
        let with = |label, ops, cpu_ns| {
            let mut r = host(label, ops, ops);
            let p = &mut r.results.phases[0];
            p.cpu = Some(CpuResult::new(cpu_ns, ops, 1_000_000_000));
            let d = DiskStat::parse("10 0 80 1 0 0 0 0 0 1 1").expect("stat");
            p.kernel = Some(KernelResult::new("loop3".into(), &d, 1_000_000_000, 1));
            p.counters_csv = Some("00-w.counters.csv".into());
            r
        };
        let runs = [
            with("a", 10, (1_000_000, 3_000_000)),
            with("b", 30, (2_000_000, 4_000_000)),
        ];
        let (m, _, _) = merge(&runs, &[Some(0), Some(0)], super::super::Unit::Host).expect("merge");
        let c = m.cpu.expect("cpu");
        assert_eq!((c.user_s, c.system_s), (0.003, 0.007));
        // 3 ms and 7 ms over 40 I/Os: 75 µs and 175 µs per I/O.
        assert_eq!((c.user_us_per_io, c.system_us_per_io), (75.0, 175.0));
        assert_eq!((m.kernel, m.counters_csv, m.health), (None, None, None));
        let (m, _, _) =
            merge(&runs, &[Some(0), Some(0)], super::super::Unit::Target).expect("merge");
        let c = m.cpu.expect("cpu");
        assert_eq!((c.user_s, c.system_s), (0.002, 0.004));
        assert_eq!((c.user_us_per_io, c.system_us_per_io), (50.0, 100.0));
        let mut no_cpu = runs.clone();
        no_cpu[1].results.phases[0].cpu = None;
        let (m, _, _) =
            merge(&no_cpu, &[Some(0), Some(0)], super::super::Unit::Host).expect("merge");
        assert_eq!(m.cpu, None);
    }
}
