//! Named slices of a phase's per-interval series and their statistics (the steady-state slice of seed 000
//! from 1400 s, seed 003's 20-minute per-second breakout), and coarser aggregates of the same series
//! (seed 003's 500 minutes of one-minute averages), computed from the rows without rerunning.
//!
//! Row `k` of a series with interval Δ covers `[k·Δ, (k+1)·Δ)` ns from the phase start (see
//! [`super::interval`]); the series ends, nominally, at `rows·Δ`.

use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// A time window of a phase, as written in a spec (`windows = ["1400s..", "last 20m", "0..60s"]`).
/// Times are durations from the phase start in the crate's syntax ([`Duration::parse`]: `"1400s"`, `"20m"`,
/// `"1h30m"`); a bare `0` is accepted as the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowSpec {
    /// `"A..B"`: from A to B; `"A.."`: from A to the end of the series; `"..B"`: from the start to B. ns.
    Range {
        /// Start, ns from the phase start.
        start_ns: u64,
        /// End, ns from the phase start; `None` for the end of the series.
        end_ns: Option<u64>,
    },
    /// `"first D"`: the first D of the series, i.e. `0..D`.
    First {
        /// D, ns.
        len_ns: u64,
    },
    /// `"last D"`: the last D of the series, ending at its nominal end `rows·Δ`.
    Last {
        /// D, ns.
        len_ns: u64,
    },
}

/// The accepted forms, for error messages (also the spec's refusal of a window that is not a string,
/// `spec::window_list`).
pub const FORMS: &str = "\"1400s..\", \"0..60s\", \"600s..1800s\", \"first 5m\" or \"last 20m\"";

/// Parses one end of a range: a duration, or a bare `0`.
fn parse_time(spec: &str, part: &str) -> Result<u64, String> {
    if part == "0" {
        return Ok(0);
    }
    Duration::parse(part)
        .map(|d| d.0)
        .map_err(|e| format!("window {spec:?}: {e}"))
}

impl WindowSpec {
    /// Parses a window; the error quotes the spec and names the accepted forms.
    pub fn parse(s: &str) -> Result<WindowSpec, String> {
        // Before any trim: `"last 20m\u{85}"` is not `last 20m`.
        crate::units::refuse_hidden("window", s)?;
        let t = s.trim();
        if t.is_empty() {
            return Err(format!("window {s:?} is empty; write {FORMS}"));
        }
        if let Some((a, b)) = t.split_once("..") {
            let (a, b) = (a.trim(), b.trim());
            if b.contains("..") {
                return Err(format!(
                    "window {s:?} has more than one \"..\"; write {FORMS}"
                ));
            }
            let start_ns = if a.is_empty() { 0 } else { parse_time(s, a)? };
            let end_ns = if b.is_empty() {
                None
            } else {
                Some(parse_time(s, b)?)
            };
            if a.is_empty() && end_ns.is_none() {
                return Err(format!(
                    "window {s:?} has neither a start nor an end; write {FORMS}"
                ));
            }
            if let Some(e) = end_ns
                && e <= start_ns
            {
                return Err(format!(
                    "window {s:?} ends at or before its start; write the earlier time first"
                ));
            }
            return Ok(WindowSpec::Range { start_ns, end_ns });
        }
        let mut words = t.split_whitespace();
        let (Some(word), Some(len), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!("window {s:?} is not a window; write {FORMS}"));
        };
        let len_ns = match word.to_ascii_lowercase().as_str() {
            "first" | "last" => parse_time(s, len)?,
            _ => {
                return Err(format!(
                    "window {s:?} starts with {word:?}, expected \"first\" or \"last\"; write {FORMS}"
                ));
            }
        };
        if len_ns == 0 {
            return Err(format!("window {s:?} is empty: its length is 0"));
        }
        Ok(if word.eq_ignore_ascii_case("first") {
            WindowSpec::First { len_ns }
        } else {
            WindowSpec::Last { len_ns }
        })
    }

    /// The rows of a series of `rows` rows of `interval_ns` each that this window takes: those whose
    /// interval `[k·Δ, (k+1)·Δ)` lies fully inside the window (a row cut by a boundary is left out). A window
    /// reaching past the series takes the rows that exist and is flagged incomplete; one starting past the
    /// end takes none. A zero interval selects no rows.
    pub fn resolve(&self, interval_ns: u64, rows: usize) -> WindowRows {
        let dt = interval_ns as u128;
        let series_end = rows as u128 * dt;
        let (start, end, complete) = match *self {
            WindowSpec::Range { start_ns, end_ns } => {
                let s = start_ns as u128;
                match end_ns {
                    Some(e) => (s, e as u128, e as u128 <= series_end),
                    None => (s, series_end.max(s), s < series_end),
                }
            }
            WindowSpec::First { len_ns } => (0, len_ns as u128, len_ns as u128 <= series_end),
            WindowSpec::Last { len_ns } => {
                let l = len_ns as u128;
                (series_end.saturating_sub(l), series_end, l <= series_end)
            }
        };
        let rows_taken = if dt == 0 {
            0..0
        } else {
            let first = start.div_ceil(dt).min(rows as u128) as usize;
            let last = (end / dt).min(rows as u128) as usize;
            first..last.max(first)
        };
        let sat = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        WindowRows {
            rows: rows_taken,
            start_ns: sat(start),
            end_ns: sat(end),
            complete: complete && dt > 0,
        }
    }

    /// Statistics of the rows this window takes from `values` (one per interval of `interval_ns`), with the
    /// rows taken; `None` statistics when it takes no row.
    pub fn stats(&self, values: &[f64], interval_ns: u64) -> (WindowRows, Option<SliceStats>) {
        let w = self.resolve(interval_ns, values.len());
        let s = slice_stats(&values[w.rows.clone()]);
        (w, s)
    }
}

impl FromStr for WindowSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WindowSpec::parse(s)
    }
}

impl fmt::Display for WindowSpec {
    /// The canonical form, which parses back to the same window: `1400s..`, `0s..60s`, `last 20min`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WindowSpec::Range { start_ns, end_ns } => {
                write!(f, "{}..", Duration(start_ns))?;
                match end_ns {
                    Some(e) => write!(f, "{}", Duration(e)),
                    None => Ok(()),
                }
            }
            WindowSpec::First { len_ns } => write!(f, "first {}", Duration(len_ns)),
            WindowSpec::Last { len_ns } => write!(f, "last {}", Duration(len_ns)),
        }
    }
}

/// A window resolved against one series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowRows {
    /// Indices of the rows taken (possibly empty).
    pub rows: Range<usize>,
    /// The window's start as requested, ns from the phase start (for `last D`: the series end − D, or 0).
    pub start_ns: u64,
    /// The window's end as requested, ns (the series' nominal end `rows·Δ` for open and `last` windows).
    pub end_ns: u64,
    /// True when the series covers the whole requested window; false when it ended first (a trial run
    /// shortened with `--set duration=…`, say), so the statistics cover less than asked.
    pub complete: bool,
}

/// Statistics of a slice of per-interval values (IOPS per interval, say), all in the values' unit except
/// `count` and `consistency`. Every field is finite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SliceStats {
    /// Number of values (intervals), ≥ 1.
    pub count: usize,
    /// Mean.
    pub avg: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Population standard deviation, √(Σ (x − avg)² / count).
    pub stddev: f64,
    /// 1st percentile by nearest rank: the value of rank ⌈count/100⌉ in ascending order (the smallest
    /// value while count ≤ 100).
    pub p1: f64,
    /// 99th percentile by nearest rank: the value of rank ⌈99·count/100⌉ in ascending order.
    pub p99: f64,
    /// avg / stddev, dimensionless (the consistency score reviewers use: higher is steadier); `None`
    /// (`null`) when stddev is 0, where the ratio is unbounded.
    pub consistency: Option<f64>,
}

/// Nearest-rank percentile of ascending `sorted` (non-empty) for a whole percentage `pct` in 1..=100: the
/// value of rank ⌈pct·n/100⌉, computed in integers so that no rounding moves the rank.
fn nearest_rank(sorted: &[f64], pct: usize) -> f64 {
    let n = sorted.len();
    let rank = (pct * n).div_ceil(100).clamp(1, n);
    sorted[rank - 1]
}

/// Statistics of `values`; `None` when empty. A non-finite value counts as 0 (a row without a measurement
/// is a row of zero I/O), so that no NaN or infinity reaches the results.
pub fn slice_stats(values: &[f64]) -> Option<SliceStats> {
    if values.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = values
        .iter()
        .map(|&x| if x.is_finite() { x } else { 0.0 })
        .collect();
    let n = v.len() as f64;
    let avg = v.iter().sum::<f64>() / n;
    // Two passes: the mean first, then the squared deviations from it (no cancellation).
    let stddev = (v.iter().map(|x| (x - avg) * (x - avg)).sum::<f64>() / n).sqrt();
    v.sort_by(f64::total_cmp);
    Some(SliceStats {
        count: v.len(),
        avg,
        min: v[0],
        max: v[v.len() - 1],
        stddev,
        p1: nearest_rank(&v, 1),
        p99: nearest_rank(&v, 99),
        consistency: (stddev > 0.0).then(|| avg / stddev),
    })
}

/// One group of an [`aggregate`]: the mean of consecutive rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Start of the group's first row, ns from the phase start (a multiple of `every`).
    pub start_ns: u64,
    /// End of the group's last row, ns (start + rows × interval).
    pub end_ns: u64,
    /// Rows averaged: `every / interval`, or fewer for a partial last group.
    pub rows: usize,
    /// Mean of the rows, in the rows' unit (a non-finite row counts as 0).
    pub avg: f64,
    /// True for a last group with fewer rows than `every / interval` (the series ended inside it); its
    /// mean is over its own rows.
    pub partial: bool,
}

/// Averages of consecutive groups of `every_ns / interval_ns` rows (one-second rows into one-minute
/// averages: `aggregate(iops, 1s, 1min)`). `every_ns` must be a positive multiple of `interval_ns`; the
/// error says so in durations (these come from spec files). An empty series gives no group.
pub fn aggregate(values: &[f64], interval_ns: u64, every_ns: u64) -> Result<Vec<Group>, String> {
    if interval_ns == 0 {
        return Err("the series interval is 0: nothing to aggregate".to_string());
    }
    if every_ns == 0 {
        return Err("aggregate \"0s\" is empty; write e.g. \"1m\" for one-minute averages".into());
    }
    if !every_ns.is_multiple_of(interval_ns) {
        let (every, dt) = (Duration(every_ns), Duration(interval_ns));
        let lower = every_ns / interval_ns;
        let hint = if lower == 0 {
            format!("use {dt} or a multiple of it")
        } else {
            format!(
                "use {} or {}",
                Duration(lower * interval_ns),
                Duration((lower + 1).saturating_mul(interval_ns))
            )
        };
        return Err(format!(
            "aggregate \"{every}\" is not a whole number of intervals of {dt}; {hint}"
        ));
    }
    let per = usize::try_from(every_ns / interval_ns).unwrap_or(usize::MAX);
    Ok(values
        .chunks(per)
        .enumerate()
        .map(|(g, rows)| {
            let sum: f64 = rows
                .iter()
                .map(|&x| if x.is_finite() { x } else { 0.0 })
                .sum();
            let start_ns = (g as u64).saturating_mul(every_ns);
            Group {
                start_ns,
                end_ns: start_ns.saturating_add((rows.len() as u64).saturating_mul(interval_ns)),
                rows: rows.len(),
                avg: sum / rows.len() as f64,
                partial: rows.len() < per,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn w(s: &str) -> WindowSpec {
        WindowSpec::parse(s).unwrap()
    }

    #[test]
    fn parses_the_seed_windows() {
        assert_eq!(
            w("1400s.."),
            WindowSpec::Range {
                start_ns: 1400 * S,
                end_ns: None
            }
        );
        assert_eq!(
            w("0..60s"),
            WindowSpec::Range {
                start_ns: 0,
                end_ns: Some(60 * S)
            }
        );
        assert_eq!(
            w(" 600s .. 30m "),
            WindowSpec::Range {
                start_ns: 600 * S,
                end_ns: Some(1800 * S)
            }
        );
        assert_eq!(
            w("..1.5s"),
            WindowSpec::Range {
                start_ns: 0,
                end_ns: Some(1_500_000_000)
            }
        );
        assert_eq!(w("last 20m"), WindowSpec::Last { len_ns: 1200 * S });
        assert_eq!(w("First  5min"), WindowSpec::First { len_ns: 300 * S });
        for s in [
            "1400s..",
            "0s..1min",
            "10min..30min",
            "last 20min",
            "first 5min",
        ] {
            assert_eq!(w(s).to_string(), s);
            assert_eq!(w(&w(s).to_string()), w(s));
        }
    }

    #[test]
    fn malformed_windows_say_why() {
        let cases = [
            ("", "empty"),
            ("..", "neither a start nor an end"),
            ("1400", "not a window"),
            ("1400..", "no unit"),
            ("60s..10s", "ends at or before its start"),
            ("60s..60s", "ends at or before its start"),
            ("1s..2s..3s", "more than one"),
            ("final 20m", "expected \"first\" or \"last\""),
            ("last", "not a window"),
            ("last 0s", "length is 0"),
            ("last 20 fortnights", "not a window"),
            ("last 20x", "unknown unit"),
        ];
        for (spec, want) in cases {
            let e = WindowSpec::parse(spec).unwrap_err();
            assert!(e.contains(want), "{spec:?}: {e}");
            assert!(e.contains(&format!("{spec:?}")), "{spec:?} not quoted: {e}");
        }
    }

    #[test]
    fn rows_lie_fully_inside_the_window() {
        // 2000 one-second rows: "1400s.." takes rows 1400..2000.
        let r = w("1400s..").resolve(S, 2000);
        assert_eq!((r.rows, r.complete), (1400..2000, true));
        assert_eq!(w("0..60s").resolve(S, 2000).rows, 0..60);
        assert_eq!(w("last 20m").resolve(S, 2000).rows, 800..2000);
        assert_eq!(w("first 5m").resolve(S, 2000).rows, 0..300);
        // Boundaries inside a 10 s row leave that row out: 15 s..45 s with 10 s rows takes [20, 40).
        let r = w("15s..45s").resolve(10 * S, 100);
        assert_eq!((r.rows, r.start_ns, r.end_ns), (2..4, 15 * S, 45 * S));
        // Shorter than the window: what exists, flagged; past the end: nothing.
        let r = w("last 20m").resolve(S, 10);
        assert_eq!((r.rows, r.complete), (0..10, false));
        let r = w("1400s..").resolve(S, 10);
        assert_eq!((r.rows.len(), r.complete), (0, false));
        let r = w("0..60s").resolve(S, 30);
        assert_eq!((r.rows, r.complete), (0..30, false));
        assert_eq!(w("0..60s").resolve(0, 30).rows, 0..0);
    }

    #[test]
    fn slice_stats_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: avg 40/8 = 5; Σ (x − 5)² = 9 + 1 + 1 + 1 + 0 + 0 + 4 + 16 = 32;
        // stddev √(32/8) = 2; consistency 5/2 = 2.5; p1 rank ⌈8/100⌉ = 1 → 2; p99 rank ⌈792/100⌉ = 8 → 9.
        let s = slice_stats(&[5.0, 2.0, 9.0, 4.0, 4.0, 7.0, 4.0, 5.0]).unwrap();
        assert_eq!(
            s,
            SliceStats {
                count: 8,
                avg: 5.0,
                min: 2.0,
                max: 9.0,
                stddev: 2.0,
                p1: 2.0,
                p99: 9.0,
                consistency: Some(2.5),
            }
        );
        // 1..=200: p1 rank 2 → 2; p99 rank 198 → 198.
        let v: Vec<f64> = (1..=200).map(f64::from).collect();
        let s = slice_stats(&v).unwrap();
        assert_eq!((s.p1, s.p99, s.avg), (2.0, 198.0, 100.5));
        assert!(slice_stats(&[]).is_none());
        let flat = slice_stats(&[7.0, 7.0, 7.0]).unwrap();
        assert_eq!((flat.stddev, flat.consistency), (0.0, None));
        let odd = slice_stats(&[f64::NAN, 4.0]).unwrap();
        assert_eq!((odd.min, odd.avg), (0.0, 2.0));
    }

    #[test]
    fn window_stats_of_a_series() {
        // Rows 0..10 hold 0, 10, …, 90 IOPS; "last 5s" takes 50..90: avg 70, stddev √200.
        let v: Vec<f64> = (0..10).map(|k| 10.0 * k as f64).collect();
        let (r, s) = w("last 5s").stats(&v, S);
        let s = s.unwrap();
        assert_eq!((r.rows, s.avg, s.min, s.max), (5..10, 70.0, 50.0, 90.0));
        assert_eq!(s.stddev, 200f64.sqrt());
        assert!(w("100s..").stats(&v, S).1.is_none());
    }

    #[test]
    fn aggregates_minutes_and_flags_the_partial_group() {
        // 150 one-second rows of value k: minutes 0..60 (avg 29.5), 60..120 (89.5), 120..150 (134.5).
        let v: Vec<f64> = (0..150).map(|k| k as f64).collect();
        let g = aggregate(&v, S, 60 * S).unwrap();
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].avg, g[0].rows, g[0].partial), (29.5, 60, false));
        assert_eq!(
            (g[1].start_ns, g[1].end_ns, g[1].avg),
            (60 * S, 120 * S, 89.5)
        );
        assert_eq!(
            (g[2].rows, g[2].avg, g[2].partial, g[2].end_ns),
            (30, 134.5, true, 150 * S)
        );
        let exact = aggregate(&v[..120], S, 60 * S).unwrap();
        assert!(exact.iter().all(|g| !g.partial));
        assert_eq!(aggregate(&v[..3], S, S).unwrap()[2].avg, 2.0);
        assert!(aggregate(&[], S, 60 * S).unwrap().is_empty());
    }

    #[test]
    fn aggregate_refuses_a_non_multiple() {
        let e = aggregate(&[1.0], 60 * S, 90 * S).unwrap_err();
        assert!(
            e.contains("\"90s\"") && e.contains("1min") && e.contains("2min"),
            "{e}"
        );
        let e = aggregate(&[1.0], 60 * S, 30 * S).unwrap_err();
        assert!(e.contains("use 1min or a multiple"), "{e}");
        assert!(aggregate(&[1.0], S, 0).unwrap_err().contains("empty"));
        assert!(aggregate(&[1.0], 0, S).is_err());
    }
}
