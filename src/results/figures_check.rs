//! A phase's figures against what its own parameters and counts make of them, by the rules the run follows:
//! its reads and trims against the mix that drew them (`params.read_percent`, `params.trim_percent`), its
//! `coverage` as the run computes it ([`crate::plan::PhaseParams::coverage`]), and its `cpu` figures from its
//! CPU times ([`super::counters::CpuResult::recomputed`]), and its `host.submit_threads` from its workers and
//! engine ([`threads`]). Part of [`super::check::implausible`] (attack 26
//! F6: a read_percent of 100 beside 4075 writes, a coverage of 2.0, a cpus_busy of 1.9, each passed).

use super::PhaseResult;
use super::check::{Violation, close, echo};
use crate::units::readable_float as num;

/// Phase `i`'s reads (`read.ops`) and trims against `params.read_percent` and `params.trim_percent` (absent:
/// 0), by the op stream's rule ([`crate::ops`]): every group of 100 consecutive I/Os of a stream holds
/// exactly that many of each, so a phase of 100 % issues nothing else and one of 0 % none, exactly. Between,
/// the completed I/Os are whole groups but where a group is cut: where each stream's measured part starts
/// (after a ramp) and ends, where each thread sharing a stream stopped inside the chunk of it it claimed
/// ([`crate::plan::stream_sharers`]), at each failed I/O; each cut group holds between
/// max(0, h − (100 − q)) and min(h, q) of the direction for its h I/Os, at most q(100 − q)/100 from
/// h·q/100. So 100·count lies within cuts × q(100 − q) of total.ops × q, the cuts counted as 2 per stream
/// (one per worker of each part of a merge), 2 per sharing thread and 2 per failed I/O. Zone-aware writes
/// (`params.zone_mode`), which end a claimed range at a full zone, are held to the exact ends only.
pub fn mix(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let Some(read) = q.read_percent else {
        return;
    };
    let trims = p.trim.as_ref().map_or(0, |t| t.ops);
    let trim_shown = q
        .trim_percent
        .map_or("absent (0 %)".to_string(), |t| t.to_string());
    for (dir, count, percent, field, shown) in [
        ("read", p.read.ops, read, "read_percent", read.to_string()),
        (
            "trim",
            trims,
            q.trim_percent.unwrap_or(0),
            "trim_percent",
            trim_shown,
        ),
    ] {
        let Some(why) = mix_mismatch(p, (dir, count), percent) else {
            continue;
        };
        out.push(Violation {
            path: format!("phases[{i}].params.{field}"),
            expected: format!("{shown}{why}"),
        });
    }
}

/// Why `count` I/Os of direction `dir` are not what `percent` % of phase `p`'s I/Os allow ([`mix`]), after
/// the percentage said; `None` when they are.
fn mix_mismatch(p: &PhaseResult, (dir, count): (&str, u64), percent: u8) -> Option<String> {
    let n = p.total.ops;
    let others = n.saturating_sub(count);
    match percent.min(100) {
        100 if others > 0 => {
            return Some(format!(
                ": the phase issues {dir}s only, but {others} of its total.ops {n} are not {dir}s"
            ));
        }
        0 if count > 0 => {
            return Some(format!(
                ": the phase issues no {dir}s, but it has {count} ({dir}.ops)"
            ));
        }
        0 | 100 => return None,
        _ => {}
    }
    let cuts = cuts(p)?;
    let why = in_groups((dir, count), (n, "total.ops"), percent, cuts)?;
    Some(format!(" does not give {why}"))
}

/// Why `count` I/Os of direction `dir` among `n` (`n_field`) are not `percent` % of them by the op stream's
/// rule ([`mix`]) with at most `cuts` groups of 100 cut short, from `{dir}.ops` on; `None` when they are.
/// The one rule of a phase's counts and of each worker's ([`worker_mix`]).
fn in_groups(
    (dir, count): (&str, u64),
    (n, n_field): (u64, &str),
    percent: u8,
    cuts: u128,
) -> Option<String> {
    let per = u128::from(percent.min(100));
    let (want, spread) = (u128::from(n) * per, cuts * per * (100 - per));
    let lo = want.saturating_sub(spread).div_ceil(100);
    let hi = ((want + spread) / 100).min(u128::from(n));
    if (lo..=hi).contains(&u128::from(count)) {
        return None;
    }
    Some(format!(
        "{dir}.ops {count} of {n_field} {n}: each group of 100 I/Os of a stream in a row holds exactly {percent} {dir}s, so {n} I/Os hold {} {dir}s give or take {} for each of at most {cuts} groups cut short (2 per stream, 2 per thread sharing one, 2 per failed I/O): {lo} to {hi}",
        num(n as f64 * f64::from(percent) / 100.0),
        num((per * (100 - per)) as f64 / 100.0),
    ))
}

/// Each of phase `i`'s `workers[]` against the mix of its own op stream (the rule [`mix`] holds the phase to):
/// a worker draws its directions from a stream of its own (its `seed`), exactly `params.read_percent`
/// reads and `params.trim_percent` trims in each 100 of it, cut short at most where its own stream is (2),
/// where each thread sharing it stopped (2 each, [`crate::plan::stream_sharers`]) and at each of its failed
/// I/Os (2 each, its `errors`). A phase of 0 % or 100 % holds its workers already (their counts add up to
/// its own).
pub fn worker_mix(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let (Some(read), Some(sharers)) = (q.read_percent, cuts(p).and(sharers(p))) else {
        return;
    };
    for (k, w) in p.workers.iter().enumerate() {
        let trims = w.trim.as_ref().map_or(0, |t| t.ops);
        let n = w.read.ops.saturating_add(w.write.ops).saturating_add(trims);
        let field = match w.trim {
            Some(_) => "its I/Os (read.ops + write.ops + trim.ops)",
            None => "its I/Os (read.ops + write.ops)",
        };
        let cuts = 2 * (1 + u128::from(sharers)) + 2 * u128::from(w.errors);
        for (dir, count, percent, key) in [
            ("read", w.read.ops, read, "read_percent"),
            ("trim", trims, q.trim_percent.unwrap_or(0), "trim_percent"),
        ] {
            if matches!(percent, 0 | 100) {
                continue;
            }
            let Some(why) = in_groups((dir, count), (n, field), percent, cuts) else {
                continue;
            };
            out.push(Violation {
                path: format!("phases[{i}].workers[{k}].{dir}.ops"),
                expected: format!("params.{key} {percent} of its own stream does not give {why}"),
            });
        }
    }
}

/// The threads sharing each worker's stream ([`crate::plan::stream_sharers`]); `None` when the engine or
/// queue depth is not recorded.
fn sharers(p: &PhaseResult) -> Option<u32> {
    let q = &p.params;
    Some(crate::plan::stream_sharers(q.engine?, q.queue_depth?))
}

/// The most groups of 100 I/Os phase `p`'s completed I/Os may cut short ([`mix`]); `None` when its engine
/// or queue depth is not recorded, or its zone-aware writes may cut its claimed ranges anywhere.
fn cuts(p: &PhaseResult) -> Option<u128> {
    let q = &p.params;
    if q.zone_mode.is_some() {
        return None;
    }
    let sharers = sharers(p)?;
    let streams = p.hosts.len().max(1) as u128 * u128::from(q.workers.unwrap_or(1).max(1));
    let failed = p.errors.as_ref().map_or(0, |e| e.total);
    Some(2 * streams * (1 + u128::from(sharers)) + 2 * u128::from(failed))
}

/// Phase `i`'s `coverage` against the coverage its parameters give its `total.ops` I/Os, as the run computes
/// it ([`crate::plan::PhaseParams::coverage`]): exact (`exact` true) and the share of the span's blocks for
/// a sequential or full-coverage order, the expected share (`exact` false) for uniform or skewed random
/// offsets. A merged phase has none.
pub fn coverage(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let Some(got) = p.coverage else {
        return;
    };
    let at = |field: &str| format!("phases[{i}].{field}");
    let q = &p.params;
    let want = match q.coverage(p.total.ops) {
        Ok(c) => c,
        Err(why) => {
            let d = q.distribution.as_deref().unwrap_or_default();
            out.push(Violation {
                path: at("params.distribution"),
                expected: format!(
                    "{} is not a distribution a run on this span has: {}",
                    echo(d),
                    crate::text::escaped(&why)
                ),
            });
            return;
        }
    };
    let how = match (want.exact, q.distribution.as_deref()) {
        (true, _) => "each block once (exact)",
        (false, None) => "the expected share for uniform random offsets",
        (false, Some(_)) => "the expected share under params.distribution",
    };
    let given = format!(
        "total.ops {} I/Os of params.block_size_bytes {} B over params.span_bytes {} B",
        p.total.ops,
        q.block_size_bytes.unwrap_or(1),
        q.span_bytes
    );
    if got.exact != want.exact {
        out.push(Violation {
            path: at("coverage.exact"),
            expected: format!(
                "{} is not what the phase's order makes it ({how}): {}",
                got.exact, want.exact
            ),
        });
    }
    if !close(got.fraction, want.fraction) {
        out.push(Violation {
            path: at("coverage.fraction"),
            expected: format!(
                "{} is not the share of the span's blocks that {given} touch, {how}: {}",
                num(got.fraction),
                num(want.fraction)
            ),
        });
    }
}

/// Phase `i`'s `cpu` figures against its `cpu.user_s` and `cpu.system_s` over its `duration_s` and
/// `total.ops`, as the run (or a merge) derives them ([`super::counters::CpuResult::recomputed`]):
/// `cpus_busy` = (user_s + system_s) / duration_s, and each time per I/O.
pub fn cpu(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let Some(c) = &p.cpu else {
        return;
    };
    let want = c.recomputed(p.total.ops, p.duration_s);
    let (user, system, secs, n) = (
        num(c.user_s),
        num(c.system_s),
        num(p.duration_s),
        p.total.ops,
    );
    for (field, got, want, of) in [
        (
            "cpus_busy",
            c.cpus_busy,
            want.cpus_busy,
            format!("(user_s + system_s) / duration_s = ({user} + {system}) / {secs}"),
        ),
        (
            "user_us_per_io",
            c.user_us_per_io,
            want.user_us_per_io,
            format!("user_s × 10⁶ / total.ops = {user} × 10⁶ / {n}"),
        ),
        (
            "system_us_per_io",
            c.system_us_per_io,
            want.system_us_per_io,
            format!("system_s × 10⁶ / total.ops = {system} × 10⁶ / {n}"),
        ),
    ] {
        if !close(got, want) {
            out.push(Violation {
                path: format!("phases[{i}].cpu.{field}"),
                expected: format!("{} is not {of} = {}", num(got), num(want)),
            });
        }
    }
}

/// Phase `i`'s `host.submit_threads` against the threads its plan starts to submit its I/O: one op stream per
/// worker (`params.workers`), each submitted by the threads its engine starts ([`crate::plan::stream_sharers`]:
/// `params.queue_depth` for psync, one for libaio, io_uring and null). Each thread is counted once it starts
/// submitting; one that never did (its phase failed or was stopped before its I/O: a thread or buffer that
/// could not be had, a setup that failed) is not, so a phase that did not complete may count fewer, never
/// more, and a completed one (every worker past the start line, none stopped) counts every one.
pub fn threads(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let (Some(h), Some(engine), Some(qd)) = (&p.host, q.engine, q.queue_depth) else {
        return;
    };
    let workers = u64::from(q.workers.unwrap_or(1).max(1));
    let planned = workers * u64::from(crate::plan::stream_sharers(engine, qd));
    let got = u64::from(h.submit_threads);
    let per = match crate::plan::stream_sharers(engine, qd) {
        1 => "1 each".to_string(),
        n => format!("params.queue_depth {n} each"),
    };
    let of = format!(
        "params.workers {workers} × the threads {} starts per worker ({per}) = {planned}",
        engine.as_str()
    );
    let why = match p.completed {
        true if got != planned => format!("{got} is not {of}: a completed phase counts each"),
        false if got > planned => format!("{got} is more than {of}"),
        _ => return,
    };
    out.push(Violation {
        path: format!("phases[{i}].host.submit_threads"),
        expected: why,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two psync workers at queue depth 4 start 8 submitting threads: a completed phase counts 8, one that
    /// did not complete (threads that never started) at most 8.
    #[test]
    fn submitting_threads_are_the_plans_in_a_completed_phase_and_at_most_them_in_another() {
        let of = "params.workers 2 × the threads psync starts per worker (params.queue_depth 4 each) = 8";
        let said = |completed: bool, n: u32| {
            let mut p = crate::report::testing::phase("w", 0);
            p.params = serde_json::from_value(serde_json::json!({
                "span_start_bytes": 0, "span_bytes": 1 << 20,
                "engine": "psync", "queue_depth": 4, "workers": 2,
            }))
            .expect("params");
            p.completed = completed;
            p.host = Some(super::super::HostResult {
                submit_cpu_fraction: 0.5,
                submit_threads: n,
                cpu_wait_fraction: None,
                completion_waits: None,
            });
            let mut out = Vec::new();
            threads(0, &p, &mut out);
            out.into_iter()
                .map(|v| format!("{}: {}", v.path, v.expected))
                .collect::<Vec<_>>()
        };
        assert_eq!(said(true, 8), Vec::<String>::new());
        assert_eq!(
            said(true, 7),
            [format!(
                "phases[0].host.submit_threads: 7 is not {of}: a completed phase counts each"
            )]
        );
        assert_eq!(said(false, 3), Vec::<String>::new());
        assert_eq!(said(false, 8), Vec::<String>::new());
        assert_eq!(
            said(false, 9),
            [format!(
                "phases[0].host.submit_threads: 9 is more than {of}"
            )]
        );
    }
}
