//! A merged phase (`wkrun merge` of several hosts' runs, or the aggregate of a run on several targets)
//! against what it keeps of its parts. A merge folder does not hold its hosts' folders, so what `wkrun
//! validate` can recompute is what the phase keeps: its parts (`hosts`: each one's start, series start,
//! duration, counts, rates and latency summary) and its merged latency histograms. From them, by the code
//! the merge uses: each direction's ops and bytes are the parts' added; the phase's duration, start, series
//! start and completion are its parts' span ([`super::span`]); each part's rates are its counts over its
//! own duration and its latency summary is ordered; and each direction's latency summary is what the
//! merge makes of the parts' summaries and the merged histogram ([`crate::stats::latency::merged_summary`]:
//! min, max, mean and standard deviation from the parts, percentiles from the histogram), the total's of
//! the directions'.

use super::check::{Violation, close, order, rates};
use super::{DirStats, HostPhase, PhaseResult};
use crate::stats::LatencySummary;
use crate::units::readable_float;
use crate::vocab::Direction;

/// Every place where the merged phase `p` (phase `i`, with parts) disagrees with what it keeps of its parts.
/// Figures recomputed from a sum or a time already named wrong would say the same again: the parts' rates
/// and the merged latency are held to them only when the sums and times agree.
pub(super) fn merged(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let before = out.len();
    parts_add_up(i, p, out);
    times(i, p, out);
    if out.len() > before {
        return;
    }
    for (k, h) in p.hosts.iter().enumerate() {
        let part = Measured {
            at: format!("phases[{i}].hosts[{k}]"),
            dirs: dirs_of(&h.read, &h.write, h.trim.as_ref()),
            over: Some(("duration_s", h.duration_s)),
            duration_s: Some(h.duration_s),
        };
        part.own(out);
        part.max_within(p, "the merged phase's", out);
    }
    if out.len() == before {
        latency(i, p, out);
    }
    super::latency_check::flush(i, p, false, out);
}

/// Part `h`'s stats of direction `d`, where it has them.
fn of(h: &HostPhase, d: Direction) -> Option<&DirStats> {
    match d {
        Direction::Read => Some(&h.read),
        Direction::Write => Some(&h.write),
        Direction::Trim => h.trim.as_ref(),
    }
}

/// Each direction's ops and bytes are the parts' added.
fn parts_add_up(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    for d in Direction::ALL {
        let parts = p.hosts.iter().filter_map(|h| of(h, d));
        let at = format!("phases[{i}].hosts");
        out.extend(add_up(at, "the parts'", d, parts, p.dir(d)));
    }
}

/// Where the `parts` of a phase (`whose`: `the parts'`, `the workers'`) in direction `d` do not add up to
/// its own `own` I/Os and bytes: the violation at `path`. One rule for a merged phase's hosts and a phase's
/// workers.
pub(super) fn add_up<'a>(
    path: String,
    whose: &str,
    d: Direction,
    parts: impl Iterator<Item = &'a DirStats>,
    own: &DirStats,
) -> Option<Violation> {
    let (ops, bytes) = parts.fold((0u128, 0u128), |(o, b), s| {
        (o + u128::from(s.ops), b + u128::from(s.bytes))
    });
    ((ops, bytes) != (u128::from(own.ops), u128::from(own.bytes))).then(|| Violation {
        path,
        expected: format!(
            "{whose} {d} add up to {ops} I/Os of {bytes} B, not {d}.ops {} of {d}.bytes {}",
            own.ops, own.bytes
        ),
    })
}

/// The phase's times against its parts': no part longer than the phase; the phase's `duration_s` their
/// span, from the earliest start to the latest end (the longest part without a common clock), its
/// `series_t0_unix_ns` the earliest part's, its `started_at` the earliest, and completed when every part
/// was.
fn times(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let num = crate::units::readable_float;
    let longest =
        (p.hosts.iter().enumerate()).max_by(|a, b| a.1.duration_s.total_cmp(&b.1.duration_s));
    let whole = ("the merged phase's", p.duration_s, "which spans every part");
    let at = |k: usize| format!("phases[{i}].hosts[{k}].duration_s");
    if let Some(v) = longest.and_then(|(k, h)| not_longer(at(k), h.duration_s, whole)) {
        // The span would say the same again.
        return out.push(v);
    }
    let mut say = |what: String, expected: String| {
        out.push(Violation {
            path: format!("phases[{i}].{what}"),
            expected,
        })
    };
    let parts: Vec<(Option<u64>, f64)> = (p.hosts.iter())
        .map(|h| (h.series_t0_unix_ns, h.duration_s))
        .collect();
    let s = super::span(&parts);
    if !close(p.duration_s, s.duration_s) {
        say(
            "duration_s".into(),
            format!(
                "{} s is not its parts' span, {} s (from the earliest start to the latest end, by hosts[].series_t0_unix_ns and duration_s)",
                num(p.duration_s),
                num(s.duration_s)
            ),
        );
    }
    if p.series_t0_unix_ns != s.origin {
        let shown = |t: Option<u64>| t.map_or("absent".to_string(), |t| t.to_string());
        say(
            "series_t0_unix_ns".into(),
            format!(
                "{} is not its parts' earliest, {}",
                shown(p.series_t0_unix_ns),
                shown(s.origin)
            ),
        );
    }
    let earliest = p.hosts.iter().filter_map(|h| h.started_at.as_deref()).min();
    if let Some(e) = earliest.filter(|&e| e != p.started_at) {
        say(
            "started_at".into(),
            format!("{:?} is not its parts' earliest, {e:?}", p.started_at),
        );
    }
    let all = p.hosts.iter().all(|h| h.completed);
    if p.completed != all {
        say(
            "completed".into(),
            format!(
                "{} is not its parts' (every one completed: {all})",
                p.completed
            ),
        );
    }
}

/// Each direction's latency summary against what the merge makes of the parts' summaries and the merged
/// histogram, then the total's against the directions'. Nothing without histograms (older results), nor
/// for a direction whose histogram does not hold its ops (said by `check::own_figures`).
fn latency(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let Some(h) = super::latency_check::holding(p) else {
        return;
    };
    let before = out.len();
    for d in Direction::ALL {
        let moments: Vec<(&LatencySummary, u64)> = (p.hosts.iter())
            .filter_map(|x| of(x, d))
            .filter_map(|s| Some((s.latency_ns.as_ref()?, s.ops)))
            .collect();
        let made = crate::stats::latency::merged_summary(&moments, [h.dir(d).as_slice()]);
        let from = format!(
            "latency_histograms.{d} and its parts' (hosts[].{d}.latency_ns)",
            d = d.name()
        );
        let at = format!("phases[{i}].{}.latency_ns", d.name());
        summary(&at, p.dir(d).latency_ns.as_ref(), made, &from, out);
    }
    // The total from directions named wrong would say the same again.
    if out.len() > before {
        return;
    }
    let dirs: Vec<Direction> = (Direction::ALL.into_iter())
        .filter(|&d| p.dir(d).latency_ns.is_some())
        .collect();
    let moments: Vec<(&LatencySummary, u64)> = (dirs.iter())
        .filter_map(|&d| Some((p.dir(d).latency_ns.as_ref()?, p.dir(d).ops)))
        .collect();
    let made =
        crate::stats::latency::merged_summary(&moments, dirs.iter().map(|&d| h.dir(d).as_slice()));
    let from = "the directions' latency_ns and latency_histograms";
    let at = format!("phases[{i}].total.latency_ns");
    summary(&at, p.total.latency_ns.as_ref(), made, from, out);
}

/// The latency summary `got` at `at` against `made`, the merge's of `from`: every field that differs, the
/// whole numbers (min, max, percentiles) exactly, mean and stddev within rounding ([`close`]). Nothing when
/// the histogram found no room (said nowhere else: the check is not made).
fn summary(
    at: &str,
    got: Option<&LatencySummary>,
    made: Result<Option<LatencySummary>, String>,
    from: &str,
    out: &mut Vec<Violation>,
) {
    let Ok(made) = made else { return };
    let (g, m) = match (got, made.as_ref()) {
        (Some(g), Some(m)) => (g, m),
        (None, None) => return,
        (g, m) => {
            let has = |x: bool| if x { "present" } else { "absent" };
            return out.push(Violation {
                path: at.to_string(),
                expected: format!(
                    "{} where the merge of {from} makes it {}",
                    has(g.is_some()),
                    has(m.is_some())
                ),
            });
        }
    };
    let num = crate::units::readable_float;
    let whole = [("min", g.min, m.min), ("max", g.max, m.max)];
    let pct = super::check::percentiles(g)
        .into_iter()
        .zip(super::check::percentiles(m))
        .map(|((k, a), (_, b))| (k, a, b));
    for (k, a, b) in whole.into_iter().chain(pct).filter(|(_, a, b)| a != b) {
        out.push(Violation {
            path: format!("{at}.{k}"),
            expected: format!("{a} is not {b}, as the merge makes it from {from}"),
        });
    }
    for (k, a, b) in [("mean", g.mean, m.mean), ("stddev", g.stddev, m.stddev)] {
        if !close(a, b) {
            out.push(Violation {
                path: format!("{at}.{k}"),
                expected: format!(
                    "{} is not {}, as the merge makes it from {from}",
                    num(a),
                    num(b)
                ),
            });
        }
    }
}

/// What a phase, a merged phase's part (`hosts[k]`) and a phase's worker (`workers[k]`) each measured of
/// themselves, held by the same rules ([`Measured::own`], [`Measured::max_within`], [`not_longer`]).
pub(super) struct Measured<'a> {
    /// Its JSON path: `phases[i]`, `phases[i].hosts[k]`, `phases[i].workers[k]`.
    pub at: String,
    /// Its directions (and a phase's `total`), by field name.
    pub dirs: Vec<(&'static str, &'a DirStats)>,
    /// The time its rates are over, by the field that holds it (its own `duration_s`; a worker's are over
    /// its phase's): `None` where that time is named wrong already.
    pub over: Option<(&'static str, f64)>,
    /// Its own time from the phase's start to its last completion, where it has one.
    pub duration_s: Option<f64>,
}

/// The directions `read`, `write` and (where issued) `trim` of a part.
pub(super) fn dirs_of<'a>(
    read: &'a DirStats,
    write: &'a DirStats,
    trim: Option<&'a DirStats>,
) -> Vec<(&'static str, &'a DirStats)> {
    let mut dirs = vec![("read", read), ("write", write)];
    dirs.extend(trim.map(|t| ("trim", t)));
    dirs
}

impl Measured<'_> {
    /// Its I/Os: its `total`'s, else its directions' added.
    fn ops(&self) -> u128 {
        match self.dirs.iter().find(|(k, _)| *k == "total") {
            Some((_, t)) => u128::from(t.ops),
            None => self.dirs.iter().map(|(_, d)| u128::from(d.ops)).sum(),
        }
    }

    /// Its own figures: some time for its I/Os (a `duration_s` of 0 holds none: each completes after the
    /// phase's start), each direction's rates its counts over its time ([`rates`]) and its latency summary
    /// in order ([`order`]).
    pub fn own(&self, out: &mut Vec<Violation>) {
        let ops = self.ops();
        if self.duration_s == Some(0.0) && ops > 0 {
            out.push(Violation {
                path: format!("{}.duration_s", self.at),
                expected: format!(
                    "0 s for {ops} I/Os: each completes some time after the phase's start, the last at duration_s"
                ),
            });
        }
        for (name, d) in &self.dirs {
            let at = format!("{}.{name}", self.at);
            if let Some(over) = self.over {
                rates(&at, d, over, out);
            }
            if let Some(l) = &d.latency_ns {
                order(&format!("{at}.latency_ns"), l, out);
            }
        }
    }

    /// Each direction's latency `max` at most its phase `p`'s (`whose`: "the phase's", "the merged phase's"):
    /// each of its I/Os is one of the phase's.
    pub fn max_within(&self, p: &PhaseResult, whose: &str, out: &mut Vec<Violation>) {
        for (name, d) in &self.dirs {
            let whole = Direction::ALL
                .into_iter()
                .find(|w| w.name() == *name)
                .and_then(|w| p.dir(w).latency_ns.as_ref());
            let (Some(l), Some(w)) = (&d.latency_ns, whole) else {
                continue;
            };
            if l.max > w.max {
                out.push(Violation {
                    path: format!("{}.{name}.latency_ns.max", self.at),
                    expected: format!(
                        "{} is above {whose} {name}.latency_ns.max {}: each of its I/Os is one of the phase's",
                        l.max, w.max
                    ),
                });
            }
        }
    }
}

/// A part's `duration_s` (`part_s`, at `at`) against its whole's `whole_s` (`whose`: "the merged phase's",
/// "the phase's"; `why` it holds the part's: a merged phase's spans its parts, a phase's ends at its last
/// completion): the violation when it is longer, beyond rounding ([`close`]).
pub(super) fn not_longer(
    at: String,
    part_s: f64,
    (whose, whole_s, why): (&str, f64, &str),
) -> Option<Violation> {
    (part_s > whole_s && !close(part_s, whole_s)).then(|| Violation {
        path: at,
        expected: format!(
            "{} s is longer than {whose} duration_s {} s, {why}",
            readable_float(part_s),
            readable_float(whole_s)
        ),
    })
}
