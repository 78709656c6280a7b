//! A run's times against its phases' (attack 28 F2): phases run one after another on a target, so a
//! phase's series starts after the phase does (`series_t0_unix_ns` not before `started_at`), a phase starts
//! after the one before it ended (its `series_t0_unix_ns` + `duration_s`, the wall clock of its last
//! completion), and the run finishes after its last phase ended. A merged phase's parts (`hosts[k]`) are
//! held host by host: each host ran its phases one after another, but not in step with the others (each
//! waits for `--start-at` on its own clock). A simulated drive's phases run on a virtual clock (no
//! `series_t0_unix_ns`) and are not held. The runner makes these true of what it writes, even when the
//! wall clock is stepped back during a run ([`not_before`]).

use super::check::{Violation, echo};
use super::{PhaseResult, Results};
use crate::launch::{parse_rfc3339, rfc3339_ns};

/// How far a time may be on the wrong side of another: the millisecond an RFC 3339 time of a run is cut
/// to, and a thousandth of the phase's length for the wall clock's slew under NTP (at most 500 ppm) between
/// a phase's start and its series' start, which is read on the monotonic clock.
fn slack_ns(duration_s: f64) -> u64 {
    1_000_000 + (duration_s.max(0.0) * 1e6) as u64
}

/// The wall clock of a phase's (or a part's) last completion: `series_t0_unix_ns` + `duration_s`.
pub fn end_unix_ns(t0_unix_ns: Option<u64>, duration_s: f64) -> Option<u64> {
    let d = (duration_s.max(0.0) * 1e9).round();
    // A duration past what a u64 of ns holds is said by `check::phase_place`.
    if d >= 1.8e19 {
        return None;
    }
    t0_unix_ns.map(|t| t.saturating_add(d as u64))
}

/// The time `t` (RFC 3339 as a run writes it) moved to `ns` when it is before it (rounded up to the
/// millisecond): a run's start of a phase and its end are never before what it recorded ended, whatever the
/// wall clock did meanwhile (stepped back by NTP).
pub fn not_before(t: String, ns: Option<u64>) -> String {
    match (parse_rfc3339(&t), ns) {
        (Ok(at), Some(ns)) if at < ns => {
            let up = ns.div_ceil(1_000_000).saturating_mul(1_000_000);
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(up);
            humantime::format_rfc3339_millis(when).to_string()
        }
        _ => t,
    }
}

/// The last end of `phases` ([`end_unix_ns`]), where one has a series on the wall clock.
pub fn last_end(phases: &[PhaseResult]) -> Option<u64> {
    phases
        .iter()
        .filter_map(|p| end_unix_ns(p.series_t0_unix_ns, p.duration_s))
        .max()
}

/// An RFC 3339 time with its ns since the Unix epoch, when it is one.
fn when(t: &str) -> Option<(&str, u64)> {
    Some((t, parse_rfc3339(t).ok()?))
}

/// One phase (or a merged phase's part) as its times say it ran.
struct Ran<'a> {
    at: String,
    started: Option<(&'a str, u64)>,
    t0: Option<u64>,
    duration_s: f64,
}

/// Every place where `r`'s times contradict each other: by the run's phases, or by each host's parts.
pub fn check(r: &Results, out: &mut Vec<Violation>) {
    let hosts = r.phases.iter().map(|p| p.hosts.len()).max().unwrap_or(0);
    let finished = r
        .finished_at
        .as_deref()
        .and_then(|f| Some((f, parse_rfc3339(f).ok()?)));
    let mut chains: Vec<Vec<Ran>> = (0..hosts.max(1)).map(|_| Vec::new()).collect();
    for (i, p) in r.phases.iter().enumerate() {
        if p.hosts.is_empty() {
            chains[0].push(Ran {
                at: format!("phases[{i}]"),
                started: when(&p.started_at),
                t0: p.series_t0_unix_ns,
                duration_s: p.duration_s,
            });
        }
        for (k, h) in p.hosts.iter().enumerate() {
            chains[k].push(Ran {
                at: format!("phases[{i}].hosts[{k}]"),
                started: h.started_at.as_deref().and_then(when),
                t0: h.series_t0_unix_ns,
                duration_s: h.duration_s,
            });
        }
    }
    for chain in &chains {
        one_after_another(chain, out);
    }
    let Some((f, end)) = finished else { return };
    let last = (chains.iter().flatten())
        .filter_map(|p| Some((p, end_unix_ns(p.t0, p.duration_s)?)))
        .max_by_key(|x| x.1);
    if let Some((p, e)) = last.filter(|(p, e)| *e > end.saturating_add(slack_ns(p.duration_s))) {
        out.push(Violation {
            path: "finished_at".into(),
            expected: format!(
                "{} is before {} ended, {} ({}.series_t0_unix_ns + duration_s): a run ends after its last phase does",
                echo(f),
                p.at,
                rfc3339_ns(e),
                p.at
            ),
        });
    }
}

/// The phases (or one host's parts) of `chain`, in run order: each one's series starting after it does,
/// each starting after the one before ended.
fn one_after_another(chain: &[Ran<'_>], out: &mut Vec<Violation>) {
    let mut before: Option<(&Ran<'_>, u64)> = None;
    for p in chain {
        if let (Some((text, s)), Some(t0)) = (p.started, p.t0)
            && t0.saturating_add(slack_ns(p.duration_s)) < s
        {
            out.push(Violation {
                path: format!("{}.series_t0_unix_ns", p.at),
                expected: format!(
                    "{t0} ({}) is before {}.started_at {}: a phase's series starts after the phase does",
                    rfc3339_ns(t0),
                    p.at,
                    echo(text)
                ),
            });
        }
        if let (Some((text, s)), Some((b, end))) = (p.started, before)
            && s.saturating_add(slack_ns(b.duration_s)) < end
        {
            out.push(Violation {
                path: format!("{}.started_at", p.at),
                expected: format!(
                    "{} is before {} ended, {} ({}.series_t0_unix_ns + duration_s): phases run one after another on a target",
                    echo(text),
                    b.at,
                    rfc3339_ns(end),
                    b.at
                ),
            });
        }
        if let Some(end) = end_unix_ns(p.t0, p.duration_s) {
            before = Some((p, end));
        }
    }
}
