//! A phase's counts against its schedule (attack 28 F2): what a rate cap lets it issue in its time, and the
//! think times its bursts can take. A merged phase's parts (hosts, targets) were each held to the phase's
//! schedule on their own: their counts add up.

use super::PhaseResult;
use super::check::Violation;
use crate::units::readable_float;
use crate::vocab::RateProcess;

/// Every place where phase `p` (phase `i`) did more than its rate cap lets it, or took think times its
/// I/Os cannot have.
pub(super) fn schedule(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    caps(i, p, out);
    thinks(i, p, out);
}

/// The most I/Os a cap of `rate` per second lets one stream of arrivals issue in a phase that lasted
/// `secs` (to its last completion). Evenly spaced, the n-th I/O (from 0) is issued no sooner than n / rate s
/// (at a whole ns, rounded down) and completes by the end, so n ≤ ⌊(secs + 2 ns) × rate⌋ + 1: what is
/// issued before the end and drained after the last interval is counted, and 2 ns cover the rounding of
/// `duration_s` to its f64 and of each slot to its ns. Poisson arrivals are random: their count in `secs`
/// has the mean secs × rate and as much variance; 10 standard deviations and 10 I/Os more are allowed (a
/// genuine run past it: less than one in 10²⁰).
pub fn cap_allows(rate: u64, secs: f64, process: RateProcess) -> u128 {
    let ns = (secs.max(0.0) * 1e9).ceil().min(1.8e19) as u128 + 2;
    let even = ns * u128::from(rate) / 1_000_000_000 + 1;
    match process {
        RateProcess::Poisson => {
            let mean = secs.max(0.0) * rate as f64;
            even + (10.0 * mean.sqrt() + 10.0).min(1e30) as u128
        }
        RateProcess::Linear => even,
    }
}

/// Each cap of `params.rate_iops` (`total` over every I/O, `read`, `write`) against the I/Os the phase did
/// in its `duration_s` ([`cap_allows`], for each of a merged phase's parts).
fn caps(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let Some(r) = q.rate_iops else { return };
    let process = q.rate_process.unwrap_or_default();
    let parts = p.hosts.len().max(1) as u128;
    for (key, cap, field, n) in [
        ("total", r.total, "total.ops", p.total.ops),
        ("read", r.read, "read.ops", p.read.ops),
        ("write", r.write, "write.ops", p.write.ops),
    ] {
        let Some(cap) = cap else { continue };
        let most = parts * cap_allows(cap, p.duration_s, process);
        if u128::from(n) <= most {
            continue;
        }
        let each = match parts {
            1 => String::new(),
            n => format!(" for each of its {n} parts"),
        };
        let how = match process {
            RateProcess::Poisson => {
                "Poisson arrivals at that mean rate, 10 standard deviations over"
            }
            RateProcess::Linear => {
                "the n-th, from 0, issued no sooner than n / cap s and completed within duration_s"
            }
        };
        out.push(Violation {
            path: format!("phases[{i}].{field}"),
            expected: format!(
                "{n} I/Os in duration_s {} s, more than params.rate_iops.{key} {cap}/s lets the phase issue{each}: at most {most} ({how})",
                readable_float(p.duration_s)
            ),
        });
    }
}

/// `arrivals.think_periods` against the phase's I/Os. Each thread issuing I/O (`params.workers` ×, on an
/// engine with a thread per queue slot, `params.queue_depth`; × a merged phase's parts) thinks before each
/// burst of `params.think_every` I/Os but its first, and before an I/O its time bound then refuses: from
/// ⌈its I/Os / every⌉ − 1 to ⌊its issued I/Os / every⌋ think times. Together: at least ⌈ops / every⌉ −
/// threads, at most ⌈(ops + failed I/Os) / every⌉ (rounded up: a failed I/O was issued too), and each
/// thread's think times but its last (which may end past the bound) lie within `duration_s`: at most
/// threads × (⌊duration_s / think_time⌋ + 1). None without a think time. Exactly Σ (⌈its I/Os / every⌉ − 1)
/// where each worker's counts fix it ([`exact_thinks`]).
fn thinks(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let Some(a) = &p.arrivals else { return };
    let q = &p.params;
    let n = u128::from(a.think_periods);
    let path = format!("phases[{i}].arrivals.think_periods");
    let Some(think_ns) = q.think_time_ns else {
        if n > 0 {
            out.push(Violation {
                path,
                expected: format!("{n} without a think time (params.think_time_ns): none"),
            });
        }
        return;
    };
    let every = u128::from(q.think_every.unwrap_or(1).max(1));
    let ops = u128::from(p.total.ops);
    let failed = u128::from(p.errors.as_ref().map_or(0, |e| e.total));
    let threads = match (q.engine, q.queue_depth) {
        (Some(e), Some(qd)) => Some(
            p.hosts.len().max(1) as u128
                * u128::from(q.workers.unwrap_or(1).max(1))
                * u128::from(crate::plan::stream_sharers(e, qd)),
        ),
        _ => None,
    };
    if let Some((exact, of)) = exact_thinks(p, every)
        && n != exact
    {
        return out.push(Violation {
            path,
            expected: format!(
                "{n} is not Σ (⌈I/Os / params.think_every {every}⌉ − 1) = {exact} for {of}: each worker's one issuing thread thinks before each of its bursts but the first, and in a phase without a time bound (params.duration_ns) that ran to its bound without a failed I/O, at no other time"
            ),
        });
    }
    let most = (ops + failed).div_ceil(every);
    let least = threads.map_or(0, |t| ops.div_ceil(every).saturating_sub(t));
    let of = format!(
        "total.ops {ops} in bursts of params.think_every {every}, by {} issuing thread(s)",
        threads.map_or("an unrecorded number of".to_string(), |t| t.to_string())
    );
    let why = if n > most {
        format!("more than ⌈(total.ops + failed I/Os) / think_every⌉ = {most} for {of}")
    } else if n < least {
        format!(
            "fewer than ⌈total.ops / think_every⌉ − threads = {least} for {of}: each thread thinks before each of its bursts but the first"
        )
    } else {
        let Some(t) = threads else { return };
        let ns = (p.duration_s.max(0.0) * 1e9).min(1.8e19) as u128;
        let fit = t * (ns / u128::from(think_ns.max(1)) + 1);
        if n <= fit {
            return;
        }
        format!(
            "more than {t} thread(s) × (⌊duration_s {} s / params.think_time_ns {think_ns} ns⌋ + 1) = {fit}: each think time but a thread's last lies within the phase",
            readable_float(p.duration_s)
        )
    };
    out.push(Violation {
        path,
        expected: format!("{n} is {why}"),
    });
}

/// The think times phase `p` took, with what they are counted from, where its counts fix them: one issuing
/// thread per worker ([`crate::plan::stream_sharers`] 1), which thinks before each burst of `every` of its
/// I/Os but the first, so ⌈its I/Os / every⌉ − 1 (none for none); and nothing that thinks at another time:
/// no time bound (`params.duration_ns`, which may refuse the I/O after a think time), no failed I/O, no
/// stop (the phase `completed`, not ended at steady state: a stop may fall inside a think time), not a
/// merge, and each worker's I/Os known (`workers[]`, or `total.ops` for one worker). `None` otherwise: the
/// bounds of [`thinks`] hold the count.
fn exact_thinks(p: &PhaseResult, every: u128) -> Option<(u128, String)> {
    let q = &p.params;
    let plain = q.duration_ns.is_none()
        && p.completed
        && p.hosts.is_empty()
        && !p.steady_state.as_ref().is_some_and(|s| s.ended_phase)
        && p.errors.as_ref().is_none_or(|e| e.total == 0);
    if !plain || crate::plan::stream_sharers(q.engine?, q.queue_depth?) != 1 {
        return None;
    }
    let thinks = |m: u64| u128::from(m).div_ceil(every).saturating_sub(1);
    let workers = q.workers.unwrap_or(1).max(1) as usize;
    if p.workers.is_empty() {
        let one = format!("total.ops {} of the phase's one worker", p.total.ops);
        return (workers == 1).then(|| (thinks(p.total.ops), one));
    }
    if p.workers.len() != workers || p.workers.iter().any(|w| w.errors > 0) {
        return None;
    }
    let counts: Vec<u64> = (p.workers.iter())
        .map(|w| {
            let trims = w.trim.as_ref().map_or(0, |t| t.ops);
            w.read.ops.saturating_add(w.write.ops).saturating_add(trims)
        })
        .collect();
    let exact = counts.iter().map(|&m| thinks(m)).sum();
    let shown: Vec<String> = counts.iter().map(u64::to_string).collect();
    let names = match p.workers.iter().any(|w| w.trim.is_some()) {
        true => "read.ops + write.ops + trim.ops",
        false => "read.ops + write.ops",
    };
    Some((exact, format!("workers[] {names} {}", shown.join(", "))))
}
