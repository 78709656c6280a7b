//! `wkrun validate` of a phase's series rows against the phase's own figures in `results.json`: each row's
//! latencies within the phase's, the rows' latency sums adding up to the phase's, their failed I/Os to its
//! `errors`, and `partial` only where a run writes it (docs/results.md, the series CSV).

use crate::results::PhaseResult;
use crate::results::series_csv::SeriesRow;
use crate::spec::PhaseKind;
use crate::vocab::Direction;

/// What is wrong with a row or with the rows together: the line (`line 3`, or `lines 2-5` for the rows'
/// sum), the column, and why.
pub type Wrong = (String, String, String);

/// A latency of `ns` nanoseconds as the series CSV writes it, µs (`SeriesRow::new`: `ns as f64 / 1e3`), so
/// that a row's cell and the phase's figure compare exactly: the division is monotone, and a cell that
/// is at most the phase's figure in ns is at most this.
fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

/// The first thing wrong with the series `rows` of the phase `p`: a row's latencies outside the phase's
/// ([`bounds`]), `partial` where a run does not write it ([`partial`]), the rows' latency sums or failed I/Os
/// not adding up to the phase's ([`sums`]).
pub fn against_phase(rows: &[SeriesRow], p: &PhaseResult) -> Option<Wrong> {
    bounds(rows, p)
        .or_else(|| partial(rows, p))
        .or_else(|| sums(rows, p))
}

/// Each row's latencies of each direction against the phase's (`latency_ns`: its min and max are exact, as
/// a row's max is): there when the row counts I/Os of the direction and only then; its max at most the
/// phase's max and at least the phase's min; its mean at most its own max and at least the phase's min.
fn bounds(rows: &[SeriesRow], p: &PhaseResult) -> Option<Wrong> {
    rows.iter().enumerate().find_map(|(k, row)| {
        let at = |c: &str, d: Direction, why: String| Some((format!("line {}", k + 2), format!("{d}_{c}"), why));
        Direction::ALL.into_iter().find_map(|d| {
            let c = &row[d];
            let Some((mean, max)) = c.lat_us() else {
                return match (c.ops, c.lat_mean_us.or(c.lat_max_us)) {
                    (0, None) => None,
                    (0, Some(v)) => at("lat_mean_us", d, format!("{v} µs in a row of no {d}s ({d}_ops 0): a latency is a completed I/O's")),
                    (n, _) => at("lat_mean_us", d, format!("empty in a row of {n} {d}s: each row with I/Os of a direction has their latency")),
                };
            };
            let Some(m) = p.dir(d).moments() else {
                return at("lat_mean_us", d, format!("{mean} µs, where results.json's phase has no {d} latency ({d}.latency_ns null)"));
            };
            let phase = |what: &str, ns: u64| format!("the phase's {what} {d} latency, {} µs ({d}.latency_ns.{} {ns} in results.json)", us(ns), if what == "largest" { "max" } else { "min" });
            if max > us(m.max) {
                return at("lat_max_us", d, format!("{max} µs is above {}", phase("largest", m.max)));
            }
            if max < us(m.min) {
                return at("lat_max_us", d, format!("{max} µs is below {}", phase("smallest", m.min)));
            }
            if mean > max {
                return at("lat_mean_us", d, format!("{mean} µs is above the row's own largest {d} latency, {d}_lat_max_us {max} µs"));
            }
            if mean < us(m.min) {
                return at("lat_mean_us", d, format!("{mean} µs is below {}", phase("smallest", m.min)));
            }
            None
        })
    })
}

/// `partial` where a run writes it, in a phase of one run (a merged phase, one with `hosts`, marks a row
/// partial when any host's row placed in it is, anywhere): only on the last row (the phase ended inside
/// it, or the drain of a time bound), and a row with 0 before the last exactly the phase's interval long
/// (`interval_s` as the writer makes it from `params.interval_ns`, exactly; older versions wrote a last
/// row longer than the interval, a drain, with 0).
fn partial(rows: &[SeriesRow], p: &PhaseResult) -> Option<Wrong> {
    let iv = p.params.interval_ns.filter(|_| p.hosts.is_empty())?;
    let whole = iv as f64 / 1e9;
    let last = rows.len().checked_sub(1)?;
    rows.iter().enumerate().find_map(|(k, r)| {
        let why = match r.partial {
            1 if k < last => "1 on a row that is not the last: only a phase's last row (it ended inside it, or the drain of a time bound) is partial".to_string(),
            0 if k < last && r.interval_s != whole => format!(
                "0 on a row of {} s, not the phase's interval, {whole} s (params.interval_ns {iv}): a row with partial 0 is one whole interval",
                r.interval_s
            ),
            _ => return None,
        };
        Some((format!("line {}", k + 2), "partial".to_string(), why))
    })
}

/// The rows together against the phase, where they count its I/Os (each direction's ops adding up to the
/// phase's; otherwise what they count is said elsewhere): in a phase of one run, each direction's
/// latencies adding up to the phase's ([`latency_sum`]); the phase's largest latency some row's
/// ([`largest`]); and their failed I/Os adding up to the phase's
/// `errors.total` (0 without `errors`), at most it after a `ramp` (whose failures the phase counts, and
/// no row); a verify phase counts sectors, its rows blocks, and is not held to it.
fn sums(rows: &[SeriesRow], p: &PhaseResult) -> Option<Wrong> {
    let lines = format!("lines 2-{}", rows.len() + 1);
    let counted = |d: Direction| rows.iter().map(|r| u128::from(r[d].ops)).sum::<u128>();
    if Direction::ALL
        .iter()
        .any(|&d| counted(d) != u128::from(p.dir(d).ops))
    {
        return None;
    }
    if p.hosts.is_empty()
        && let Some((d, why)) = Direction::ALL
            .into_iter()
            .find_map(|d| latency_sum(rows, p, d).map(|w| (d, w)))
    {
        return Some((lines, format!("{d}_lat_mean_us"), why));
    }
    if let Some((d, why)) = Direction::ALL
        .into_iter()
        .find_map(|d| largest(rows, p, d).map(|w| (d, w)))
    {
        return Some((lines, format!("{d}_lat_max_us"), why));
    }
    let failed: u128 = rows.iter().map(|r| u128::from(r.errors)).sum();
    let total = u128::from(p.errors.as_ref().map_or(0, |e| e.total));
    let ramp = p.params.ramp_ns.is_some();
    let fits = failed == total || (ramp && failed < total);
    if fits || p.kind == PhaseKind::Verify {
        return None;
    }
    let theirs = match &p.errors {
        Some(_) => format!("errors.total {total}"),
        None => "no errors (none failed)".to_string(),
    };
    let most = if ramp { "at most " } else { "" };
    Some((
        lines,
        "errors".to_string(),
        format!(
            "the rows' failed I/Os add up to {failed}, where results.json's phase has {theirs}: they add up to {most}the phase's"
        ),
    ))
}

/// Direction `d`'s latency sum over the rows against the phase's, in ns: each row's `mean × ops`, the phase's
/// `latency_ns.mean × ops`, the same exact integer sum of latencies when nothing is forged (a row's mean and
/// the phase's are that sum over the count, the CSV writing the mean's shortest exact form).
///
/// Why the slack: a row's cell is `fl(fl(fl(S) / n) / 1000)` of its integer sum S over its n I/Os (three
/// roundings of a part in 2⁵³ each), and `mean × 1000 × n` adds two more: the product is S within 5·2⁻⁵³ of
/// it, under half a nanosecond while S is under 2⁵⁰ ns (13 days of latency in one row), so rounding it to
/// the nanosecond gives S exactly; past that, within twice that part. The phase's `mean × ops` is within
/// 3·2⁻⁵³ the same way. So the two sums agree within 2·10⁻¹⁵ of their size plus 1 ns: exact to the
/// nanosecond for any real run (a second of summed latency: 10⁹ ns, slack 1 ns), where one row's mean moved
/// by 1 ns over one I/O is refused.
fn latency_sum(rows: &[SeriesRow], p: &PhaseResult, d: Direction) -> Option<String> {
    let n = p.dir(d).ops;
    let mean = p
        .dir(d)
        .latency_ns
        .as_ref()
        .map(|l| l.mean)
        .filter(|_| n > 0)?;
    let rows_ns: f64 = rows
        .iter()
        .filter_map(|r| {
            r[d].lat_mean_us
                .map(|m| (m * 1e3 * r[d].ops as f64).round())
        })
        .sum();
    let phase_ns = (mean * n as f64).round();
    let slack = 2e-15 * (rows_ns + phase_ns) + 1.0;
    ((rows_ns - phase_ns).abs() > slack).then(|| {
        format!(
            "the rows' {d} latencies (each row's mean × {d}_ops) add up to {rows_ns} ns, where results.json's phase has {phase_ns} ns ({d}.latency_ns.mean {mean} × {d}.ops {n}): they add up to the phase's"
        )
    })
}

/// Direction `d`'s largest latency over the rows against the phase's `latency_ns.max`, where the rows count
/// the phase's I/Os of `d` (attack 21 A4: a row's max halved, so that no row held the phase's, passed): every
/// completion is in a row, and a row's `_lat_max_us` is its largest latency in ns / 1000 as the phase's max
/// is written ([`us`], the same division of the same whole number: equal to the bit), a merged row's the
/// largest of its hosts' rows', so some row's is the phase's, exactly.
fn largest(rows: &[SeriesRow], p: &PhaseResult, d: Direction) -> Option<String> {
    let max = p
        .dir(d)
        .latency_ns
        .as_ref()
        .map(|l| l.max)
        .filter(|_| p.dir(d).ops > 0)?;
    let most = (rows.iter().filter_map(|r| r[d].lat_max_us))
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
    (most != Some(us(max))).then(|| {
        let shown = most.map_or("none".to_string(), |m| format!("{m} µs"));
        format!(
            "the rows' largest {d} latency is {shown}, where results.json's phase has {} µs ({d}.latency_ns.max {max}): the phase's largest latency is some row's",
            us(max)
        )
    })
}
