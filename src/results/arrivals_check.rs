//! A phase's latencies from the intended issue time (`arrivals.latency_from_intended_ns`) against its own
//! latencies from submission (trial 25 F2: the trims were left out of the entries). Each direction's entry
//! (`read`, `write`, `trim`) is there when that direction's `latency_ns` is and only then, and no figure of
//! it is below that `latency_ns`'s (each I/O's time from its intended issue is at least its time from its
//! submission); `total` is the entries together, every direction's I/Os: its min and max theirs, exactly,
//! its mean their means weighted by the phase's ops of each direction
//! ([`crate::stats::LatencyMoments::pooled`]). Results written before the `trim` entry existed lack it: their
//! trims are not asked for, nor is their total (which holds their trims) recomputed.

use super::PhaseResult;
use super::check::Violation;
use super::latency_check::POOLED;
use crate::stats::{LatencyMoments, LatencySummary};
use crate::units::readable_float;
use crate::vocab::Direction;

/// Every place where phase `p` (phase `i`)'s latencies from the intended issue time disagree with its own
/// latencies and counts; nothing for a phase without `arrivals`. The total is recomputed only where every
/// direction's entry is known and where its latency is.
pub(super) fn intended(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let Some(a) = &p.arrivals else {
        return;
    };
    let l = &a.latency_from_intended_ns;
    let at = format!("phases[{i}].arrivals.latency_from_intended_ns");
    let mut parts = Vec::new();
    let mut known = true;
    for d in Direction::ALL {
        let s = p.dir(d);
        let Some(entry) = l.dir(d) else {
            // An older result's `trim`: unknown, unless the phase timed no trim.
            known &= s.latency_ns.is_none();
            continue;
        };
        let here = format!("{at}.{}", d.name());
        // An entry there or not against the phase is said once; the total is not recomputed without it.
        known &= entry.is_some() == s.latency_ns.is_some();
        match (entry, &s.latency_ns) {
            (None, Some(_)) => out.push(Violation {
                path: here,
                expected: format!(
                    "null, where {} completed {} I/Os timed from their submission ({}.latency_ns): each is timed from its intended issue too",
                    d.name(),
                    s.ops,
                    d.name()
                ),
            }),
            (Some(_), None) => out.push(Violation {
                path: here,
                expected: format!(
                    "a summary, where {}.latency_ns is null ({} I/Os timed): it is of the same I/Os",
                    d.name(),
                    s.ops
                ),
            }),
            (Some(e), Some(sub)) => {
                not_below(&here, e, sub, &format!("{}.latency_ns", d.name()), out);
                parts.push((e.moments(), s.ops));
            }
            (None, None) => {}
        }
    }
    if known {
        total(&at, l.total.as_ref(), &parts, out);
    }
}

/// Each figure of `e` (from the intended issue time, at `here`) against `sub`'s (from submission, at
/// `of`): none below.
fn not_below(
    here: &str,
    e: &LatencySummary,
    sub: &LatencySummary,
    of: &str,
    out: &mut Vec<Violation>,
) {
    let mut whole = vec![("min", e.min, sub.min), ("max", e.max, sub.max)];
    let pairs = super::check::percentiles(e)
        .into_iter()
        .zip(super::check::percentiles(sub));
    whole.extend(pairs.map(|((k, a), (_, b))| (k, a, b)));
    let why = "no I/O is sooner from its intended issue than from its submission";
    for (k, got, floor) in whole.into_iter().filter(|(_, got, floor)| got < floor) {
        out.push(Violation {
            path: format!("{here}.{k}"),
            expected: format!("{got} is below {of}.{k}, {floor}: {why}"),
        });
    }
    if e.mean < sub.mean * (1.0 - POOLED) {
        out.push(Violation {
            path: format!("{here}.mean"),
            expected: format!(
                "{} is below {of}.mean, {}: {why}",
                readable_float(e.mean),
                readable_float(sub.mean)
            ),
        });
    }
}

/// The total at `{at}.total` against the entries' moments `parts` (each with its direction's ops): null
/// when they are none, else their min, their max and their mean weighted by the ops.
fn total(
    at: &str,
    t: Option<&LatencySummary>,
    parts: &[(LatencyMoments, u64)],
    out: &mut Vec<Violation>,
) {
    let here = format!("{at}.total");
    let want = LatencyMoments::pooled(parts);
    let (t, m) = match (t, want) {
        (Some(t), Some(m)) => (t, m),
        (None, None) => return,
        (t, _) => {
            let expected = match t {
                Some(_) => "a summary, where no direction has one: null".to_string(),
                None => "null, where the directions have summaries: the total is of all their I/Os"
                    .to_string(),
            };
            out.push(Violation {
                path: here,
                expected,
            });
            return;
        }
    };
    let from = "the read, write and trim entries'";
    for (k, a, b) in [("min", t.min, m.min), ("max", t.max, m.max)] {
        if a != b {
            out.push(Violation {
                path: format!("{here}.{k}"),
                expected: format!("{a} is not {b}, {from} {k}"),
            });
        }
    }
    if (t.mean - m.mean).abs() > POOLED * m.mean.abs() {
        let ops: Vec<String> = parts.iter().map(|(_, n)| n.to_string()).collect();
        out.push(Violation {
            path: format!("{here}.mean"),
            expected: format!(
                "{} is not {}, {from} means weighted by their directions' ops ({}): every I/O, trims included",
                readable_float(t.mean),
                readable_float(m.mean),
                ops.join(", ")
            ),
        });
    }
}
