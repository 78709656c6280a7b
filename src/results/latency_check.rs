//! A phase's latency summaries against its own latency histograms (trial 19 F3: a read-only phase's
//! `read.latency_ns.mean` doubled passed `wkrun validate`, while its total, its histogram and its CSV rows
//! all said otherwise), and its flushes' (`sync.flushes.latency_ns` against `latency_histograms.flush`:
//! attack 21 A2, where a flush mean ×1.3, a p99 ×0.7, a min of 1 ns, a stddev ×3, a deleted histogram or
//! summary all passed). For a phase measured by one run (a merged phase is checked against its parts by
//! [`super::parts_check`], and its flushes here: `flush`): each direction's percentiles are what its
//! histogram gives (the writer's own code, [`crate::stats::latency::merged_summary`] of the one part,
//! exactly), its mean and standard deviation lie within the histogram's precision of the histogram's
//! (`held`), its min and max in its end buckets, and the total's min, max and percentiles are the
//! directions' together (exactly), its mean their mean weighted by their ops.

use super::PhaseResult;
use super::check::Violation;
use crate::stats::LatencySummary;
use crate::vocab::Direction;

/// The relative width of a histogram bucket at most: 3 significant digits keep 2,048 sub-buckets to each
/// power of two, so a bucket spans at most 1/1024 of its values.
const BUCKET: f64 = 1.0 / 1024.0;

/// How far two means of the same latencies, summed in another order, may differ, relative: the writer adds
/// the latencies in whole ns and divides once, the check weights each direction's mean by its ops (measured:
/// at most 2.2e-16 over 757 mixed phases of real runs).
pub(super) const POOLED: f64 = 1e-12;

/// One kind of timed operation of a phase against the histogram its percentiles come from: a direction
/// (`phases[i].read.latency_ns`, `latency_histograms.read`) or the flushes (`phases[i].sync.flushes.latency_ns`,
/// `latency_histograms.flush`).
struct Timed<'a> {
    /// Where its summary is: `phases[1].write.latency_ns`.
    at: String,
    /// Its histogram's place in the phase: `latency_histograms.write`.
    from: String,
    /// The phase's place: `phases[1]`.
    phase: String,
    /// Its summary, where the phase has one.
    summary: Option<&'a LatencySummary>,
    /// How many it counts (`ops`), which its histogram holds.
    ops: u64,
    /// The histogram's `[value_ns, count]` pairs.
    pairs: &'a [[u64; 2]],
}

/// Every place where the single-run phase `p` (phase `i`) disagrees with its own latency histograms.
/// Nothing without histograms (older results), nor where a histogram does not hold its direction's ops
/// (said by `check::own_figures`).
pub(super) fn own(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    flush(i, p, true, out);
    let Some(h) = holding(p) else {
        return;
    };
    let before = out.len();
    for d in Direction::ALL {
        let s = p.dir(d);
        let t = Timed {
            at: format!("phases[{i}].{}.latency_ns", d.name()),
            from: format!("latency_histograms.{}", d.name()),
            phase: format!("phases[{i}]"),
            summary: s.latency_ns.as_ref(),
            ops: s.ops,
            pairs: h.dir(d),
        };
        held(&t, true, out);
    }
    if out.len() == before {
        total(i, p, out);
    }
}

/// The flushes of phase `p` (phase `i`; `single`: measured by one run) against their histogram,
/// `latency_histograms.flush`, as [`held`] holds a direction's latency to its own; nothing where the phase
/// made no flushes or recorded no latencies (no `latency_histograms`), nor where the histogram does not
/// hold `sync.flushes.ops` (said by `check::own_figures`). A merged phase may have a flush summary and no
/// histogram: a part that flushed had none (fio's JSON) and made every flush, so the merge took its summary.
pub(super) fn flush(i: usize, p: &PhaseResult, single: bool, out: &mut Vec<Violation>) {
    let (Some(f), Some(h)) = (
        p.sync.as_ref().and_then(|s| s.flushes.as_ref()),
        p.latency_histograms.as_ref(),
    ) else {
        return;
    };
    let count = h.flush.iter().fold(0u64, |n, x| n.saturating_add(x[1]));
    if count != f.ops && !h.flush.is_empty() {
        return;
    }
    if h.flush.is_empty() && !single {
        return;
    }
    let t = Timed {
        at: format!("phases[{i}].sync.flushes.latency_ns"),
        from: "latency_histograms.flush".to_string(),
        phase: format!("phases[{i}]"),
        summary: f.latency_ns.as_ref(),
        ops: f.ops,
        pairs: &h.flush,
    };
    held(&t, single, out);
}

/// `t`'s summary against its histogram: there when the histogram holds latencies and only then (`single`:
/// both ways; in a merged phase, never absent beside a histogram), its percentiles the histogram's, its
/// mean, ends and standard deviation within the histogram's precision.
fn held(t: &Timed<'_>, single: bool, out: &mut Vec<Violation>) {
    let Some(l) = t.summary else {
        let expected = match t.pairs.is_empty() {
            false => format!(
                "absent, where {} holds its {} latencies: a summary is made of them",
                t.from, t.ops
            ),
            true => format!(
                "absent with {}, where {} were made and latencies recorded (latency_histograms): a summary and its histogram are made of them",
                t.from, t.ops
            ),
        };
        if t.ops > 0 && (single || !t.pairs.is_empty()) {
            out.push(Violation {
                path: t.at.clone(),
                expected,
            });
        }
        return;
    };
    if t.pairs.is_empty() {
        if single && t.ops > 0 {
            out.push(Violation {
                path: format!("{}.{}", t.phase, t.from),
                expected: format!(
                    "absent, where {} summarises {} latencies: its percentiles come from it",
                    t.at, t.ops
                ),
            });
        }
        return;
    }
    if let Ok(Some(m)) = crate::stats::latency::merged_summary(&[(l, t.ops)], [t.pairs]) {
        percentiles(&t.at, l, &m, &t.from, out);
    }
    mean_in_buckets(&t.at, l, t.pairs, out);
    let before = out.len();
    ends_in_buckets(&t.at, l, t.pairs, out);
    // A stddev past half the range, said there, would be said again.
    if out.len() == before {
        spread_in_buckets(&t.at, l, t.pairs, out);
    }
}

/// The phase's latency histograms where they hold each direction's ops (a phase whose histograms do not is
/// said by `check::own_figures`, and has nothing to recompute from); none in older results.
pub(super) fn holding(p: &PhaseResult) -> Option<&super::LatencyHistograms> {
    let h = p.latency_histograms.as_ref()?;
    let held = |d: Direction| h.dir(d).iter().fold(0u64, |n, x| n.saturating_add(x[1]));
    Direction::ALL
        .iter()
        .all(|&d| held(d) == p.dir(d).ops)
        .then_some(h)
}

/// The percentiles of `got` against `made`'s, each that differs.
fn percentiles(
    at: &str,
    got: &LatencySummary,
    made: &LatencySummary,
    from: &str,
    out: &mut Vec<Violation>,
) {
    let pairs = super::check::percentiles(got)
        .into_iter()
        .zip(super::check::percentiles(made));
    for ((k, a), (_, b)) in pairs.filter(|((_, a), (_, b))| a != b) {
        out.push(Violation {
            path: format!("{at}.{k}"),
            expected: format!("{a} is not {b}, the percentile of {from}"),
        });
    }
}

/// The mean of `l` within the histogram's bounds: each latency lies in its bucket, at most its value (the
/// bucket's highest) and more than [`BUCKET`] below it, so the exact mean lies between the histogram's
/// mean less that share (and 1 ns, for the buckets of one value) and the histogram's mean. Not for a
/// direction whose max passed the histogram's range (its latencies were recorded at the top).
fn mean_in_buckets(at: &str, l: &LatencySummary, pairs: &[[u64; 2]], out: &mut Vec<Violation>) {
    let (_, top, _) = crate::stats::latency::HIST_BOUNDS;
    let n: u128 = pairs.iter().map(|x| u128::from(x[1])).sum();
    if n == 0 || l.max > top {
        return;
    }
    let sum: u128 = pairs
        .iter()
        .map(|x| u128::from(x[0]) * u128::from(x[1]))
        .sum();
    let high = sum as f64 / n as f64;
    let low = high * (1.0 - BUCKET) - 1.0;
    if l.mean > high * (1.0 + POOLED) || l.mean < low {
        out.push(Violation {
            path: format!("{at}.mean"),
            expected: format!(
                "{} is outside what its histogram holds: its {n} latencies' mean lies from {} to {} ns",
                crate::units::readable_float(l.mean),
                crate::units::readable_float(low.max(0.0)),
                crate::units::readable_float(high)
            ),
        });
    }
}

/// The total's latency against its directions': min and max the directions' least and largest, the
/// percentiles their histograms' together, the mean theirs weighted by ops ([`POOLED`]).
fn total(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let Some((h, t)) = p
        .latency_histograms
        .as_ref()
        .zip(p.total.latency_ns.as_ref())
    else {
        return;
    };
    let dirs: Vec<Direction> = (Direction::ALL.into_iter())
        .filter(|&d| p.dir(d).ops > 0)
        .collect();
    let moments: Vec<(&LatencySummary, u64)> = (dirs.iter())
        .filter_map(|&d| Some((p.dir(d).latency_ns.as_ref()?, p.dir(d).ops)))
        .collect();
    if moments.len() != dirs.len() {
        return;
    }
    let made =
        crate::stats::latency::merged_summary(&moments, dirs.iter().map(|&d| h.dir(d).as_slice()));
    let Ok(Some(m)) = made else { return };
    let at = format!("phases[{i}].total.latency_ns");
    let from = "the directions' latency_ns and latency_histograms";
    for (k, a, b) in [("min", t.min, m.min), ("max", t.max, m.max)] {
        if a != b {
            out.push(Violation {
                path: format!("{at}.{k}"),
                expected: format!("{a} is not {b}, as {from} make it"),
            });
        }
    }
    percentiles(&at, t, &m, from, out);
    if (t.mean - m.mean).abs() > POOLED * m.mean.abs() {
        out.push(Violation {
            path: format!("{at}.mean"),
            expected: format!(
                "{} is not {}, the directions' means weighted by their ops",
                crate::units::readable_float(t.mean),
                crate::units::readable_float(m.mean)
            ),
        });
    }
}

/// The min of `l` in its histogram's lowest bucket and its max in the highest (each within [`BUCKET`]
/// below the bucket's value, and 1 ns), and its standard deviation (over all its latencies) at most half
/// their range (attack 20: a min of 1 ns beside a lowest bucket of 528 ns, and a stddev of 1e9, passed).
fn ends_in_buckets(at: &str, l: &LatencySummary, pairs: &[[u64; 2]], out: &mut Vec<Violation>) {
    let (_, top, _) = crate::stats::latency::HIST_BOUNDS;
    let (Some(first), Some(last)) = (pairs.first(), pairs.last()) else {
        return;
    };
    let low = |v: u64| (v as f64 * (1.0 - BUCKET) - 1.0).max(0.0);
    let mut say = |k: &str, got: u64, v: u64| {
        out.push(Violation {
            path: format!("{at}.{k}"),
            expected: format!(
                "{got} is not in its histogram's {} bucket, {} to {v} ns",
                if k == "min" { "lowest" } else { "highest" },
                crate::units::readable_float(low(v).ceil())
            ),
        })
    };
    if (l.min as f64) < low(first[0]) || l.min > first[0] {
        say("min", l.min, first[0]);
    }
    if l.max <= top && ((l.max as f64) < low(last[0]) || l.max > last[0]) {
        say("max", l.max, last[0]);
    }
    let most = (l.max - l.min.min(l.max)) as f64 / 2.0;
    if l.stddev > most * (1.0 + POOLED) + 1e-9 {
        out.push(Violation {
            path: format!("{at}.stddev"),
            expected: format!(
                "{} is more than latencies from {} to {} ns can spread, {}",
                crate::units::readable_float(l.stddev),
                l.min,
                l.max,
                crate::units::readable_float(most)
            ),
        });
    }
}

/// The standard deviation of `l` within what its histogram allows (attack 21 A2: a flush stddev ×3 passed,
/// still under half the flushes' range): each latency lies in its bucket, from [`BUCKET`] below the
/// bucket's value (and 1 ns) to the value, so their variance is at most the mean squared distance of each
/// bucket's farther end from any point (the summary's mean is taken), and at least the least, over every
/// point, of the mean squared distance of each bucket from it (0 for a bucket holding the point). Not for
/// latencies past the histogram's range (recorded at its top). The slack covers a stddev pooled in floating
/// point from parts' moments (a merged phase's flushes: 16 units in the last place of the mean square).
fn spread_in_buckets(at: &str, l: &LatencySummary, pairs: &[[u64; 2]], out: &mut Vec<Violation>) {
    let (_, top, _) = crate::stats::latency::HIST_BOUNDS;
    let count: u128 = pairs.iter().map(|x| u128::from(x[1])).sum();
    if count == 0 || l.max > top {
        return;
    }
    let n = count as f64;
    let ends = |v: u64| ((v as f64 * (1.0 - BUCKET) - 1.0).max(0.0), v as f64);
    // The mean squared distance of the buckets from `a`: each bucket's nearest point (`far` false) or its
    // farthest end (true).
    let spread = |a: f64, far: bool| {
        let sum: f64 = (pairs.iter())
            .map(|&[v, c]| {
                let (lo, hi) = ends(v);
                let d = match far {
                    true => (a - lo).abs().max((hi - a).abs()),
                    false => (lo - a).max(a - hi).max(0.0),
                };
                d * d * c as f64
            })
            .sum();
        sum / n
    };
    let most = spread(l.mean, true);
    // The least: the slope of spread(a, false) rises with a; halve the span of the buckets to where it
    // turns.
    let slope = |a: f64| -> f64 {
        (pairs.iter())
            .map(|&[v, c]| {
                let (lo, hi) = ends(v);
                (a - a.clamp(lo, hi)) * c as f64
            })
            .sum()
    };
    let (mut a, mut b) = (ends(pairs[0][0]).0, ends(pairs[pairs.len() - 1][0]).1);
    for _ in 0..100 {
        let mid = (a + b) / 2.0;
        if slope(mid) < 0.0 {
            a = mid;
        } else {
            b = mid;
        }
    }
    let least = spread((a + b) / 2.0, false);
    let square: f64 = pairs
        .iter()
        .map(|&[v, c]| (v as f64) * (v as f64) * c as f64)
        .sum::<f64>()
        / n;
    let slack = 1e-9 * most + 16.0 * f64::EPSILON * square + 1e-9;
    let var = l.stddev * l.stddev;
    if var > most + slack || var < least - slack {
        let num = crate::units::readable_float;
        out.push(Violation {
            path: format!("{at}.stddev"),
            expected: format!(
                "{} is outside what its histogram holds: its {count} latencies' standard deviation lies from {} to {} ns",
                num(l.stddev),
                num((least - slack).max(0.0).sqrt()),
                num((most + slack).sqrt())
            ),
        });
    }
}
