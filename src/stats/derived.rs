//! Figures derived from a phase's series that the articles print and the totals do not give: the worst
//! interval, per-interval statistics of the whole phase, the time until the host has written the span once
//! (and N times), and throughput and latency before and after a point (that time, or a given one). Which of
//! them lead a phase's results is its `headline` ([`Headline`]).
//!
//! Everything is computed from the full rows of the measured series (a partial last row is left out, as
//! for windows), row by row as they are released ([`SplitTracker`]), so nothing is kept per row.

use super::window::{SliceStats, WindowSpec};
use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most whole multiples of the span whose time is recorded in `span_writes`.
pub const MAX_SPAN_WRITES: usize = 100;

/// One item of a phase's `headline`: a figure, or a family of figures, that leads its results, `wkrun
/// compare` and the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headline {
    /// `"mean"`: the whole phase's total IOPS, bandwidth and mean latency.
    Mean,
    /// `"latency"`: mean and maximum latency of reads and of writes (seed 002's 3×3 table).
    Latency,
    /// `"worst"`: the lowest total IOPS of a full interval, and when (seed 000's worst case).
    Worst,
    /// `"per_second"`: min, avg, max and stddev of total IOPS per interval over the whole phase.
    PerSecond,
    /// `"steady"`: when steady state was reached, and its window mean (needs `steady_state`).
    Steady,
    /// `"windows"`: min, avg, max and stddev of total IOPS per interval over each of the phase's `windows`.
    Windows,
    /// A window (`"1400s.."`, `"last 20m"`): the same for that window alone.
    Window(WindowSpec),
    /// `"fill_once"`: the time until the host has written the span's bytes once, and IOPS and latency before
    /// and after that point (seed 002's time to fill and latency before/after).
    FillOnce,
    /// `"at T"` (`"at 25m"`): IOPS and latency before and after T, ns from the measured start.
    At(u64),
}

/// The accepted words, for error messages.
const WORDS: &str = "\"mean\", \"latency\", \"worst\", \"per_second\", \"steady\", \"windows\", \
\"fill_once\", \"at <time>\" (\"at 25m\") or a window (\"1400s..\", \"last 20m\")";

impl Headline {
    /// Parses one item; the error quotes it and names the accepted forms.
    pub fn parse(s: &str) -> Result<Headline, String> {
        crate::units::refuse_hidden("headline", s)?;
        let t = s.trim();
        Ok(match t {
            "mean" => Headline::Mean,
            "latency" => Headline::Latency,
            "worst" => Headline::Worst,
            "per_second" => Headline::PerSecond,
            "steady" => Headline::Steady,
            "windows" => Headline::Windows,
            "fill_once" => Headline::FillOnce,
            _ => {
                if let Some(rest) = t.strip_prefix("at ") {
                    let d =
                        Duration::parse(rest.trim()).map_err(|e| format!("headline {s:?}: {e}"))?;
                    if d.0 == 0 {
                        return Err(format!(
                            "headline {s:?}: the point is the phase start; nothing comes before it"
                        ));
                    }
                    return Ok(Headline::At(d.0));
                }
                let looks_like_window =
                    t.contains("..") || t.starts_with("first ") || t.starts_with("last ");
                if !looks_like_window {
                    return Err(format!(
                        "headline {s:?} is not a headline item; write {WORDS}"
                    ));
                }
                Headline::Window(WindowSpec::parse(t).map_err(|e| format!("headline {s:?}: {e}"))?)
            }
        })
    }

    /// Whether the item needs the per-interval IOPS of the whole phase.
    pub fn needs_iops(self) -> bool {
        matches!(
            self,
            Headline::Worst | Headline::PerSecond | Headline::Windows | Headline::Window(_)
        )
    }
}

impl fmt::Display for Headline {
    /// The canonical form, which parses back to the same item.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Headline::Mean => f.write_str("mean"),
            Headline::Latency => f.write_str("latency"),
            Headline::Worst => f.write_str("worst"),
            Headline::PerSecond => f.write_str("per_second"),
            Headline::Steady => f.write_str("steady"),
            Headline::Windows => f.write_str("windows"),
            Headline::Window(w) => write!(f, "{w}"),
            Headline::FillOnce => f.write_str("fill_once"),
            Headline::At(ns) => write!(f, "at {}", Duration(*ns)),
        }
    }
}

/// The lowest total IOPS of a full interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Worst {
    /// Total IOPS of that interval.
    #[schemars(range(min = 0))]
    pub iops: f64,
    /// Nominal end of that interval, (k + 1) × interval for full row k (the first such when several tie), s
    /// from the measured start.
    pub at_s: f64,
}

/// When the host had written the span's bytes a whole number of times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpanWrite {
    /// How many times: the bytes written reached `times` × the span's bytes.
    pub times: u64,
    /// End of the interval in which they did, s from the measured start (resolution: one interval).
    pub at_s: f64,
}

/// IOPS, bandwidth and mean latency of the full intervals on one side of a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SideStats {
    /// Intervals on this side.
    pub intervals: u64,
    /// Their total length, s.
    #[schemars(range(min = 0))]
    pub duration_s: f64,
    /// I/Os completed (reads, writes and trims) / duration_s (0 when the duration is 0).
    #[schemars(range(min = 0))]
    pub iops: f64,
    /// Bytes transferred (read, written and trimmed) / duration_s.
    #[schemars(range(min = 0))]
    pub bw_bytes_per_s: f64,
    /// Mean latency of all I/Os, µs (each interval's mean weighted by its I/Os); null without I/O.
    #[schemars(range(min = 0))]
    pub lat_mean_us: Option<f64>,
    /// Mean read latency, µs; null without reads.
    #[schemars(range(min = 0))]
    pub read_lat_mean_us: Option<f64>,
    /// Mean write latency, µs; null without writes.
    #[schemars(range(min = 0))]
    pub write_lat_mean_us: Option<f64>,
}

/// A phase cut in two at a point: the intervals up to and including the one that ends at or contains the
/// point, and those after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Split {
    /// The point: `"fill_once"` (when the span had been written once) or `"at 25min"`.
    pub point: String,
    /// Where the cut fell: the end of the last interval before it, s from the measured start; null when the
    /// point was never reached (every interval is then `before`).
    pub at_s: Option<f64>,
    /// The intervals up to the cut.
    pub before: SideStats,
    /// The intervals after it; null when none.
    pub after: Option<SideStats>,
}

/// Figures derived from a phase's series for its `headline`; each is present when the headline asks for it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Derived {
    /// The worst full interval (`"worst"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst: Option<Worst>,
    /// Statistics of total IOPS per interval over every full interval (`"per_second"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_second: Option<SliceStats>,
    /// When the host had written the span once, twice, … (`"fill_once"`; at most 100 entries).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub span_writes: Vec<SpanWrite>,
    /// The phase before and after each point (`"fill_once"`, `"at T"`), in headline order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub splits: Vec<Split>,
}

impl Derived {
    /// True when nothing was derived.
    pub fn is_empty(&self) -> bool {
        self.worst.is_none()
            && self.per_second.is_none()
            && self.span_writes.is_empty()
            && self.splits.is_empty()
    }
}

/// The worst interval of a series of total IOPS per full interval of `interval_s` seconds.
pub fn worst(iops: &[f64], interval_s: f64) -> Option<Worst> {
    let (k, v) = iops
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, f64)>, (k, &v)| match best {
            Some((_, b)) if b <= v => best,
            _ => Some((k, v)),
        })?;
    Some(Worst {
        iops: v,
        at_s: (k + 1) as f64 * interval_s,
    })
}

/// What one full row of the series holds, as the tracker needs it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RowFacts {
    /// End of the row, s from the measured start.
    pub t_s: f64,
    /// Its length, s.
    pub interval_s: f64,
    /// Reads completed.
    pub read_ops: u64,
    /// Writes completed.
    pub write_ops: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Mean read latency × reads, µs (0 without reads).
    pub read_lat_sum_us: f64,
    /// Mean write latency × writes, µs.
    pub write_lat_sum_us: f64,
    /// Trims completed (a third direction: they count in the splits' IOPS, bandwidth and mean latency as
    /// in the phase's totals, never as bytes written).
    pub trim_ops: u64,
    /// Bytes trimmed.
    pub trim_bytes: u64,
    /// Mean trim latency × trims, µs.
    pub trim_lat_sum_us: f64,
}

/// Sums of the rows on one side of a point.
#[derive(Debug, Clone, Copy, Default)]
struct Side {
    rows: u64,
    secs: f64,
    read_ops: u64,
    write_ops: u64,
    bytes: u64,
    read_lat: f64,
    write_lat: f64,
    trim_ops: u64,
    trim_lat: f64,
}

impl Side {
    fn add(&mut self, r: &RowFacts) {
        self.rows += 1;
        self.secs += r.interval_s;
        self.read_ops += r.read_ops;
        self.write_ops += r.write_ops;
        self.trim_ops += r.trim_ops;
        self.bytes += r.read_bytes + r.write_bytes + r.trim_bytes;
        self.read_lat += r.read_lat_sum_us;
        self.write_lat += r.write_lat_sum_us;
        self.trim_lat += r.trim_lat_sum_us;
    }

    fn stats(&self) -> SideStats {
        let ops = self.read_ops + self.write_ops + self.trim_ops;
        let rate = |x: f64| if self.secs > 0.0 { x / self.secs } else { 0.0 };
        let mean = |sum: f64, n: u64| (n > 0).then(|| sum / n as f64);
        SideStats {
            intervals: self.rows,
            duration_s: self.secs,
            iops: rate(ops as f64),
            bw_bytes_per_s: rate(self.bytes as f64),
            lat_mean_us: mean(self.read_lat + self.write_lat + self.trim_lat, ops),
            read_lat_mean_us: mean(self.read_lat, self.read_ops),
            write_lat_mean_us: mean(self.write_lat, self.write_ops),
        }
    }
}

/// Where a split's point is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Point {
    /// When the bytes written reach the span's bytes.
    FillOnce,
    /// At a time, s.
    At(f64),
}

/// One split being accumulated.
#[derive(Debug, Clone)]
struct Open {
    name: String,
    point: Point,
    cut: Option<f64>,
    before: Side,
    after: Side,
}

/// Accumulates the span writes and the splits of a phase, one full row at a time.
#[derive(Debug, Clone)]
pub struct SplitTracker {
    span_bytes: u64,
    written: u128,
    span_writes: Vec<SpanWrite>,
    track_writes: bool,
    splits: Vec<Open>,
}

impl SplitTracker {
    /// A tracker for the `headline` items of a phase whose span holds `span_bytes`; `None` when no item
    /// needs one.
    pub fn new(items: &[Headline], span_bytes: u64) -> Option<SplitTracker> {
        let splits: Vec<Open> = items
            .iter()
            .filter_map(|h| {
                let point = match *h {
                    Headline::FillOnce => Point::FillOnce,
                    Headline::At(ns) => Point::At(ns as f64 / 1e9),
                    _ => return None,
                };
                Some(Open {
                    name: h.to_string(),
                    point,
                    cut: None,
                    before: Side::default(),
                    after: Side::default(),
                })
            })
            .collect();
        let track_writes = items.contains(&Headline::FillOnce);
        (track_writes || !splits.is_empty()).then_some(SplitTracker {
            span_bytes,
            written: 0,
            span_writes: Vec::new(),
            track_writes,
            splits,
        })
    }

    /// Takes the next full row.
    pub fn push(&mut self, r: &RowFacts) {
        let before = self.written;
        self.written += u128::from(r.write_bytes);
        let span = u128::from(self.span_bytes);
        if self.track_writes && span > 0 {
            let (was, now) = (before / span, self.written / span);
            for times in was + 1..=now {
                if self.span_writes.len() < MAX_SPAN_WRITES {
                    self.span_writes.push(SpanWrite {
                        times: times as u64,
                        at_s: r.t_s,
                    });
                }
            }
        }
        let filled = span > 0 && self.written >= span;
        for s in &mut self.splits {
            if s.cut.is_some() {
                s.after.add(r);
                continue;
            }
            s.before.add(r);
            // The row that reaches the point closes `before`; a row ending exactly at T is before T.
            let reached = match s.point {
                Point::FillOnce => filled,
                Point::At(t) => r.t_s >= t - 1e-9,
            };
            if reached {
                s.cut = Some(r.t_s);
            }
        }
    }

    /// The span writes and the splits.
    pub fn finish(self) -> (Vec<SpanWrite>, Vec<Split>) {
        let splits = self
            .splits
            .into_iter()
            .map(|s| Split {
                point: s.name,
                at_s: s.cut,
                before: s.before.stats(),
                after: (s.after.rows > 0).then(|| s.after.stats()),
            })
            .collect();
        (self.span_writes, splits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_items() {
        for s in [
            "mean",
            "latency",
            "worst",
            "per_second",
            "steady",
            "windows",
            "fill_once",
            "at 25min",
            "1400s..",
            "last 20min",
        ] {
            let h = Headline::parse(s).unwrap();
            assert_eq!(h.to_string(), s);
        }
        assert_eq!(
            Headline::parse("at 1500s").unwrap(),
            Headline::At(1_500_000_000_000)
        );
        let e = Headline::parse("best").unwrap_err();
        assert!(
            e.contains("\"best\" is not a headline item") && e.contains("fill_once"),
            "{e}"
        );
        assert!(
            Headline::parse("at 0s")
                .unwrap_err()
                .contains("phase start")
        );
        assert!(Headline::parse("at 12").unwrap_err().contains("\"at 12\""));
        assert!(
            Headline::parse("20s..10s")
                .unwrap_err()
                .contains("ends at or before")
        );
    }

    fn row(t: f64, w_ops: u64, w_lat_us: f64, r_ops: u64, r_lat_us: f64) -> RowFacts {
        RowFacts {
            t_s: t,
            interval_s: 1.0,
            read_ops: r_ops,
            write_ops: w_ops,
            read_bytes: r_ops * 4096,
            write_bytes: w_ops * 4096,
            read_lat_sum_us: r_lat_us * r_ops as f64,
            write_lat_sum_us: w_lat_us * w_ops as f64,
            ..RowFacts::default()
        }
    }

    /// Trims are a third direction: each side's IOPS, bandwidth and mean latency count them as the
    /// phase's totals do, and no trim counts as bytes written for `fill_once`.
    #[test]
    fn trims_count_in_the_splits_but_write_no_bytes() {
        // Span of 8 blocks. Rows of 1 s: 4 writes at 100 µs, 2 trims of 8 KiB at 40 µs, 2 reads at 10 µs.
        let items = [Headline::FillOnce];
        let mut t = SplitTracker::new(&items, 8 * 4096).unwrap();
        for k in 0..3 {
            t.push(&RowFacts {
                trim_ops: 2,
                trim_bytes: 2 * 8192,
                trim_lat_sum_us: 2.0 * 40.0,
                ..row(k as f64 + 1.0, 4, 100.0, 2, 10.0)
            });
        }
        let (writes, splits) = t.finish();
        // Written: 4, 8 (once, at 2 s), 12 blocks: the trims' 16 KiB a row do not bring it forward.
        assert_eq!(
            writes,
            [SpanWrite {
                times: 1,
                at_s: 2.0
            }]
        );
        let b = &splits[0].before;
        // 2 rows of 8 I/Os: 8.0 IOPS; (2 + 4) × 4096 + 16384 = 40960 B a row; mean latency
        // (4·100 + 2·40 + 2·10) / 8 = 62.5 µs.
        assert_eq!(
            (b.intervals, b.iops, b.bw_bytes_per_s, b.lat_mean_us),
            (2, 8.0, 40960.0, Some(62.5))
        );
        assert_eq!(
            (b.read_lat_mean_us, b.write_lat_mean_us),
            (Some(10.0), Some(100.0))
        );
        let a = splits[0].after.as_ref().unwrap();
        assert_eq!((a.intervals, a.iops, a.lat_mean_us), (1, 8.0, Some(62.5)));
    }

    #[test]
    fn span_writes_and_the_fill_split_by_hand() {
        // Span of 10 blocks; rows write 4, 4, 4, 4, 4, 4 blocks: cumulative 4, 8, 12 (once, at t=3), 16,
        // 20 (twice, at t=5), 24. Before the fill: 12 writes in 3 s at 100 µs; after: 12 in 3 s at 400 µs.
        let items = [Headline::FillOnce, Headline::At(2_000_000_000)];
        let mut t = SplitTracker::new(&items, 10 * 4096).unwrap();
        for k in 0..6 {
            let lat = if k < 3 { 100.0 } else { 400.0 };
            t.push(&row(k as f64 + 1.0, 4, lat, 0, 0.0));
        }
        let (writes, splits) = t.finish();
        assert_eq!(
            writes,
            [
                SpanWrite {
                    times: 1,
                    at_s: 3.0
                },
                SpanWrite {
                    times: 2,
                    at_s: 5.0
                }
            ]
        );
        let f = &splits[0];
        assert_eq!((f.point.as_str(), f.at_s), ("fill_once", Some(3.0)));
        assert_eq!(
            (
                f.before.intervals,
                f.before.iops,
                f.before.write_lat_mean_us
            ),
            (3, 4.0, Some(100.0))
        );
        let a = f.after.as_ref().unwrap();
        assert_eq!(
            (a.intervals, a.iops, a.lat_mean_us, a.read_lat_mean_us),
            (3, 4.0, Some(400.0), None)
        );
        assert_eq!(a.bw_bytes_per_s, 4.0 * 4096.0);
        // "at 2s": rows ending at 1 and 2 s before, 4 after (mean (100 + 3·400)/4 = 325).
        let s = &splits[1];
        assert_eq!(
            (s.point.as_str(), s.at_s, s.before.intervals),
            ("at 2s", Some(2.0), 2)
        );
        assert_eq!(s.after.as_ref().unwrap().write_lat_mean_us, Some(325.0));
    }

    #[test]
    fn a_point_never_reached_keeps_every_row_before() {
        let mut t = SplitTracker::new(&[Headline::FillOnce], 1 << 30).unwrap();
        t.push(&row(1.0, 2, 50.0, 2, 150.0));
        let (writes, splits) = t.finish();
        assert!(writes.is_empty());
        assert_eq!((splits[0].at_s, splits[0].after.as_ref()), (None, None));
        assert_eq!(splits[0].before.lat_mean_us, Some(100.0));
        assert!(SplitTracker::new(&[Headline::Mean, Headline::Worst], 1).is_none());
    }

    #[test]
    fn worst_is_the_first_lowest() {
        let w = worst(&[5.0, 2.0, 7.0, 2.0], 0.5).unwrap();
        assert_eq!((w.iops, w.at_s), (2.0, 1.0));
        assert!(worst(&[], 1.0).is_none());
    }
}
