//! Latency distributions: an HDR histogram (3 significant digits, so every percentile is within 0.1 %) plus
//! exact count, sum, sum of squares, min and max, so that the mean and the extremes are exact and no
//! percentile is ever reported outside [min, max] (case C08).

use crate::buf::AllocError;
use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Largest latency the histogram resolves: 1 hour, in ns. Longer samples are kept exactly in `max` and
/// counted in the top bucket.
const MAX_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// Records latencies in ns for one direction. The histogram is allocated when it is first needed
/// ([`LatencyRecorder::try_new`] before a phase's I/O, fallibly; or the first sample), so an empty recorder
/// (a worker that never started, the start of a merge) takes no memory.
#[derive(Clone, Default)]
pub struct LatencyRecorder {
    hist: Option<Histogram<u64>>,
    count: u64,
    sum: u128,
    sum_sq: u128,
    min: Option<u64>,
    max: u64,
}

/// Memory one latency histogram takes: its 33,792 counts of 8 bytes (for 1 ns to 1 hour at 3 significant
/// digits; checked by a test).
pub const HISTOGRAM_BYTES: u64 = 270_336;

/// Serialises the checks and allocations of histograms, so that two threads do not both count the same
/// free address space for their tables.
static ALLOCATING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// An empty histogram (`copy_of` = `None`) or a copy of one, when the memory for it can be had: under an
/// address-space limit (`ulimit -v`), twice its size is first mapped and unmapped (the allocator's own
/// bookkeeping and another thread's small allocations meanwhile fit in the second half), and the standard
/// library's allocation, which aborts the process when it fails, follows only after that.
///
/// # Errors
/// [`AllocError`] naming the histogram's size when the room is not there.
fn try_histogram(copy_of: Option<&Histogram<u64>>) -> Result<Histogram<u64>, AllocError> {
    let _one_at_a_time = ALLOCATING.lock().unwrap_or_else(|p| p.into_inner());
    if !crate::sys::limits::address_space_free(2 * HISTOGRAM_BYTES) {
        return Err(AllocError {
            what: "a latency histogram".to_string(),
            bytes: HISTOGRAM_BYTES,
        });
    }
    Ok(copy_of.map_or_else(new_histogram, Clone::clone))
}

/// A latency histogram, ns.
pub type Hist = Histogram<u64>;

/// The bounds of every latency histogram of wkrun ([`new_histogram`]): lowest and highest value, ns, and
/// significant digits.
pub const HIST_BOUNDS: (u64, u64, u8) = (1, MAX_TRACKABLE_NS, 3);

/// An empty histogram with the bounds every latency histogram of wkrun has (1 ns to 1 hour, 3 significant
/// digits), so that any two add up exactly, bucket by bucket (allocates [`HISTOGRAM_BYTES`]).
pub fn new_histogram() -> Histogram<u64> {
    let (low, high, digits) = HIST_BOUNDS;
    Histogram::new_with_bounds(low, high, digits).expect("static histogram bounds are valid")
}

/// An empty histogram of [`new_histogram`] when the memory for it can be had (see [`LatencyRecorder::try_new`]).
///
/// # Errors
/// [`AllocError`] naming the histogram's size when the room is not there.
pub fn try_new_histogram() -> Result<Histogram<u64>, AllocError> {
    try_histogram(None)
}

/// Records one latency of `ns` into a histogram of [`new_histogram`], as [`LatencyRecorder::record`] does
/// (0 ns counts as 1 ns; above an hour, in the top bucket).
#[inline(always)]
pub fn record_into(h: &mut Histogram<u64>, ns: u64) {
    record_n_into(h, ns, 1);
}

/// Records `n` latencies of `ns` each into a histogram of [`new_histogram`]: the same counts as `n` calls
/// of [`record_into`].
#[inline(always)]
pub fn record_n_into(h: &mut Histogram<u64>, ns: u64, n: u64) {
    h.saturating_record_n(ns.max(1), n);
}

/// The percentile `p` (0..100) of the latencies in `h`, ns, at most `max_ns` (the exact largest latency,
/// which the histogram only knows to its precision): the highest value of the bucket holding the latency
/// of rank ⌈p/100 · n⌉ (at least 1) among the n in `h`, so within 0.1 % above that latency. `None` when `h`
/// is empty.
pub fn percentile_of(h: &Histogram<u64>, p: f64, max_ns: u64) -> Option<u64> {
    (!h.is_empty()).then(|| h.value_at_quantile(p / 100.0).min(max_ns))
}

/// The percentiles of the per-interval columns of a series (`lat_p50_us`, ...): column name part and
/// percentile.
pub const INTERVAL_PERCENTILES: [(&str, f64); 3] = [("p50", 50.0), ("p99", 99.0), ("p99_9", 99.9)];

/// The highest value of each bucket of a histogram of [`new_histogram`], by bucket index (the index of its
/// count in the histogram and in its V2 encoding): what `highest_equivalent` gives for any value of the
/// bucket. Built once by walking the histogram's own buckets in value order.
pub fn bucket_tops() -> &'static [u64] {
    static TOPS: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    TOPS.get_or_init(|| {
        let h = new_histogram();
        let mut next = 0;
        (0..h.distinct_values())
            .map(|_| {
                let top = h.highest_equivalent(next);
                next = top.saturating_add(1);
                top
            })
            .collect()
    })
}

/// The [`INTERVAL_PERCENTILES`] of a histogram given as its nonzero buckets, `(highest value of the bucket,
/// count)` in increasing value order, and `total`, their count; each at most `max_ns`, in µs; `None` when
/// `total` is 0. One pass over the buckets, each percentile exactly what [`percentile_of`] gives
/// (`value_at_quantile`'s rule: the first bucket where the running count reaches ⌈p/100 · total⌉, at
/// least 1; 0 if none does).
pub fn interval_percentiles_us(
    buckets: impl IntoIterator<Item = (u64, u64)>,
    total: u64,
    max_ns: u64,
) -> [Option<f64>; 3] {
    if total == 0 {
        return [None; 3];
    }
    let ranks =
        INTERVAL_PERCENTILES.map(|(_, p)| (((p / 100.0) * total as f64).ceil() as u64).max(1));
    let mut out = [0u64; 3];
    let mut found = 0;
    let mut running = 0u64;
    for (top, n) in buckets {
        running = running.saturating_add(n);
        while found < ranks.len() && running >= ranks[found] {
            out[found] = top;
            found += 1;
        }
        if found == ranks.len() {
            break;
        }
    }
    out.map(|ns| Some(ns.min(max_ns) as f64 / 1e3))
}

/// [`interval_percentiles_us`] of the histogram `h`.
pub fn interval_percentiles_of(h: &Histogram<u64>, max_ns: u64) -> [Option<f64>; 3] {
    let buckets = h
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()));
    interval_percentiles_us(buckets, h.len(), max_ns)
}

impl LatencyRecorder {
    /// An empty recorder, its histogram not yet allocated (no memory taken).
    pub fn new() -> LatencyRecorder {
        LatencyRecorder::default()
    }

    /// An empty recorder with its histogram allocated, so that recording allocates nothing.
    ///
    /// # Errors
    /// [`AllocError`] when the memory for the histogram cannot be had.
    pub fn try_new() -> Result<LatencyRecorder, AllocError> {
        Ok(LatencyRecorder {
            hist: Some(try_histogram(None)?),
            ..LatencyRecorder::default()
        })
    }

    /// The histogram, allocated now if it was not (a recorder not made by [`LatencyRecorder::try_new`]).
    #[cold]
    fn first_histogram(&mut self) -> &mut Histogram<u64> {
        self.hist.get_or_insert_with(new_histogram)
    }

    /// Records one latency in ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        match self.hist.as_mut() {
            Some(h) => h.saturating_record(ns.max(1)),
            None => self.first_histogram().saturating_record(ns.max(1)),
        }
        self.count += 1;
        self.sum += ns as u128;
        self.sum_sq += (ns as u128) * (ns as u128);
        self.min = Some(self.min.map_or(ns, |m| m.min(ns)));
        self.max = self.max.max(ns);
    }

    /// Counts one latency in ns without its histogram: the exact count, sum, min and max only. The
    /// histogram gets it later, with the interval histogram it was recorded in
    /// ([`LatencyRecorder::absorb_hist`]), so that the I/O path records each latency into one histogram, not
    /// two.
    #[inline(always)]
    pub fn note(&mut self, ns: u64) {
        self.note_n(ns, 1);
    }

    /// Counts `n` latencies of `ns` each as [`LatencyRecorder::note`] counts one, `n` times: the same
    /// count, sums (exact: integers), min and max.
    #[inline(always)]
    pub fn note_n(&mut self, ns: u64, n: u64) {
        self.count += n;
        self.sum += ns as u128 * n as u128;
        self.sum_sq += (ns as u128) * (ns as u128) * n as u128;
        self.min = Some(self.min.map_or(ns, |m| m.min(ns)));
        self.max = self.max.max(ns);
    }

    /// Adds the histogram `h` (of [`new_histogram`], its latencies already counted by
    /// [`LatencyRecorder::note`]) to this recorder's histogram (taking a copy of it when this recorder has
    /// none yet).
    pub fn absorb_hist(&mut self, h: &Histogram<u64>) {
        match self.hist.as_mut() {
            // Both histograms have the same bounds, so adding cannot fail.
            Some(mine) => {
                let _ = mine.add(h);
            }
            None => self.hist = Some(h.clone()),
        }
    }

    /// Adds every sample of `other` (merging two recorders equals recording the union); a recorder without
    /// a histogram takes a copy of `other`'s (infallible: for small, bounded merges after the I/O).
    pub fn merge(&mut self, other: &LatencyRecorder) {
        if let Some(theirs) = &other.hist {
            self.absorb_hist(theirs);
        }
        self.add_scalars(other);
    }

    /// The scalars of `other` added to this recorder's (the histograms are the callers').
    fn add_scalars(&mut self, other: &LatencyRecorder) {
        self.count += other.count;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.min = match (self.min, other.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max = self.max.max(other.max);
    }

    /// Adds every sample of `other` (merging two recorders equals recording the union), fallibly: a
    /// recorder without a histogram of its own takes a copy of `other`'s.
    ///
    /// # Errors
    /// [`AllocError`] when that copy cannot be had; nothing is added then.
    pub fn try_merge(&mut self, other: &LatencyRecorder) -> Result<(), AllocError> {
        if let Some(theirs) = &other.hist {
            match self.hist.as_mut() {
                // Both histograms have the same bounds, so adding cannot fail.
                Some(h) => {
                    let _ = h.add(theirs);
                }
                None => self.hist = Some(try_histogram(Some(theirs))?),
            }
        }
        self.add_scalars(other);
        Ok(())
    }

    /// Adds every sample of `other`, taking its histogram when this recorder has none (no allocation).
    pub fn absorb(&mut self, other: LatencyRecorder) {
        self.add_scalars(&other);
        match (self.hist.as_mut(), other.hist) {
            (Some(h), Some(theirs)) => {
                let _ = h.add(&theirs);
            }
            (None, theirs) => self.hist = theirs,
            (Some(_), None) => {}
        }
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The percentile (0..=100) in ns, clamped to [min, max]; p100 is exactly the max. `None` without samples.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        if p >= 100.0 {
            return Some(self.max);
        }
        let min = self.min.unwrap_or(0);
        let at = self
            .hist
            .as_ref()
            .map_or(min, |h| h.value_at_quantile(p / 100.0));
        Some(at.clamp(min, self.max))
    }

    /// The histogram's non-empty buckets as `[value_ns, count]` pairs in increasing value, where value is the
    /// highest latency the bucket holds: recording each pair's count at its value rebuilds the histogram.
    pub fn buckets(&self) -> Vec<[u64; 2]> {
        let Some(h) = &self.hist else {
            return Vec::new();
        };
        h.iter_recorded()
            .map(|v| [v.value_iterated_to(), v.count_at_value()])
            .collect()
    }

    /// The summary, or `None` without samples.
    pub fn summary(&self) -> Option<LatencySummary> {
        if self.count == 0 {
            return None;
        }
        let n = self.count as f64;
        let mean = self.sum as f64 / n;
        // Population variance (n·Σx² − (Σx)²) / n², exact in integers when it fits (no cancellation).
        let exact = (self.count as u128)
            .checked_mul(self.sum_sq)
            .and_then(|a| self.sum.checked_mul(self.sum).map(|b| a - b));
        let var = match exact {
            Some(num) => num as f64 / (n * n),
            None => (self.sum_sq as f64 / n - mean * mean).max(0.0),
        };
        let p = |q: f64| self.percentile(q).unwrap_or(0);
        Some(LatencySummary {
            min: self.min.unwrap_or(0),
            mean,
            stddev: var.sqrt(),
            max: self.max,
            p50: p(50.0),
            p90: p(90.0),
            p99: p(99.0),
            p99_9: p(99.9),
            p99_99: p(99.99),
        })
    }
}

/// One part of a merge: a summary of `count` latencies and its histogram's buckets
/// ([`LatencyRecorder::buckets`]).
pub struct Part<'a> {
    /// The part's summary.
    pub summary: &'a LatencySummary,
    /// Its latency count.
    pub count: u64,
    /// Its histogram's `[value_ns, count]` pairs.
    pub buckets: &'a [[u64; 2]],
}

/// The summary of the union of `parts`' latencies: min and max exact, mean weighted by counts, the pooled
/// standard deviation, and percentiles from the histograms added bucket by bucket (never from averaged
/// percentiles), clamped to [min, max] as [`LatencyRecorder::summary`] does. `None` without latencies.
///
/// # Errors
/// A part whose histogram does not hold its count.
pub fn merge_parts(parts: &[Part<'_>]) -> Result<Option<LatencySummary>, String> {
    for p in parts.iter().filter(|p| p.count > 0) {
        let held: u64 = p.buckets.iter().map(|b| b[1]).sum();
        if held != p.count {
            return Err(format!(
                "its latency histogram holds {held} latencies, not the {} counted",
                p.count
            ));
        }
    }
    let moments: Vec<(&LatencySummary, u64)> = parts.iter().map(|p| (p.summary, p.count)).collect();
    merged_summary(
        &moments,
        (parts.iter().filter(|p| p.count > 0)).map(|p| p.buckets),
    )
}

/// The summary [`merge_parts`] makes of parts whose summaries and latency counts are `moments` and whose
/// histograms' buckets, added, are those of `buckets` (each part's, or their sum already made: adding
/// buckets by value before recording them records the same histogram). What `wkrun validate` recomputes
/// a merged phase's latency from: its parts' summaries and its merged histogram. `None` without latencies.
///
/// # Errors
/// No room for the histogram.
pub fn merged_summary<'a>(
    moments: &[(&LatencySummary, u64)],
    buckets: impl IntoIterator<Item = &'a [[u64; 2]]>,
) -> Result<Option<LatencySummary>, String> {
    if moments.iter().all(|&(_, c)| c == 0) {
        return Ok(None);
    }
    let mut r = LatencyRecorder::try_new()
        .map_err(|e| format!("{e}{}", crate::sys::limits::Limit::AddressSpace.note()))?;
    let h = r.first_histogram();
    for b in buckets {
        for &[value, count] in b {
            h.saturating_record_n(value.max(1), count);
        }
    }
    let (mut n, mut sum, mut sum_sq) = (0u64, 0f64, 0f64);
    for &(s, count) in moments.iter().filter(|(_, c)| *c > 0) {
        let c = count as f64;
        n += count;
        sum += s.mean * c;
        sum_sq += (s.stddev * s.stddev + s.mean * s.mean) * c;
        r.min = Some(r.min.map_or(s.min, |m| m.min(s.min)));
        r.max = r.max.max(s.max);
    }
    r.count = n;
    let mean = sum / n as f64;
    let p = |q: f64| r.percentile(q).unwrap_or(0);
    Ok(Some(LatencySummary {
        min: r.min.unwrap_or(0),
        mean,
        stddev: (sum_sq / n as f64 - mean * mean).max(0.0).sqrt(),
        max: r.max,
        p50: p(50.0),
        p90: p(90.0),
        p99: p(99.0),
        p99_9: p(99.9),
        p99_99: p(99.99),
    }))
}

/// The fewest latencies that must lie above a percentile for it to estimate a tail rather than to name
/// one of the largest few samples (p99.99 of 1,000 latencies is the maximum).
pub const TAIL_MIN: u64 = 10;

/// The percentiles of a [`LatencySummary`]: their names and ranks in parts per 10,000.
pub const PERCENTILES: [(&str, u64); 5] = [
    ("p50", 5_000),
    ("p90", 9_000),
    ("p99", 9_900),
    ("p99.9", 9_990),
    ("p99.99", 9_999),
];

/// The names of the percentiles of `count` latencies above which fewer than [`TAIL_MIN`] of them lie
/// (count × (1 − rank) < 10, exactly in integers); empty without latencies.
pub fn thin_percentiles(count: u64) -> Vec<&'static str> {
    if count == 0 {
        return Vec::new();
    }
    PERCENTILES
        .iter()
        .filter(|&&(_, rank)| {
            u128::from(count) * u128::from(10_000 - rank) < u128::from(TAIL_MIN) * 10_000
        })
        .map(|&(name, _)| name)
        .collect()
}

/// Latency statistics of one direction of one phase, in ns. Percentiles come from an HDR histogram with 3
/// significant digits (within 0.1 %), clamped to [min, max]; min, max and mean are exact; stddev is the
/// population standard deviation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatencySummary {
    /// Smallest latency, ns.
    pub min: u64,
    /// Mean latency, ns.
    #[schemars(range(min = 0))]
    pub mean: f64,
    /// Standard deviation, ns.
    #[schemars(range(min = 0))]
    pub stddev: f64,
    /// Largest latency, ns.
    pub max: u64,
    /// Median, ns.
    pub p50: u64,
    /// 90th percentile, ns.
    pub p90: u64,
    /// 99th percentile, ns.
    pub p99: u64,
    /// 99.9th percentile, ns.
    pub p99_9: u64,
    /// 99.99th percentile, ns.
    pub p99_99: u64,
}

impl LatencySummary {
    /// Its min, mean, stddev and max.
    pub fn moments(&self) -> LatencyMoments {
        LatencyMoments {
            min: self.min,
            mean: self.mean,
            stddev: self.stddev,
            max: self.max,
        }
    }
}

/// Those of p50, p90, p99, p99.9 and p99.99 that are known, ns, each absent where unknown: a direction
/// read from fio's JSON whose `percentile_list` lacks some of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SomePercentiles {
    /// Median, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50: Option<u64>,
    /// 90th percentile, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90: Option<u64>,
    /// 99th percentile, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99: Option<u64>,
    /// 99.9th percentile, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_9: Option<u64>,
    /// 99.99th percentile, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_99: Option<u64>,
}

impl SomePercentiles {
    /// The names of wkrun's five percentiles, in order, as results name them.
    pub const NAMES: [&'static str; 5] = ["p50", "p90", "p99", "p99_9", "p99_99"];

    /// Each of the five, in order of [`Self::NAMES`].
    pub fn each(&self) -> [Option<u64>; 5] {
        [self.p50, self.p90, self.p99, self.p99_9, self.p99_99]
    }

    /// From the five, in order of [`Self::NAMES`].
    pub fn from_each(v: [Option<u64>; 5]) -> SomePercentiles {
        let [p50, p90, p99, p99_9, p99_99] = v;
        SomePercentiles {
            p50,
            p90,
            p99,
            p99_9,
            p99_99,
        }
    }
}

/// Latency statistics of one direction without percentiles, in ns: min and max exact, mean, and the
/// population standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatencyMoments {
    /// Smallest latency, ns.
    pub min: u64,
    /// Mean latency, ns.
    #[schemars(range(min = 0))]
    pub mean: f64,
    /// Standard deviation, ns.
    #[schemars(range(min = 0))]
    pub stddev: f64,
    /// Largest latency, ns.
    pub max: u64,
}

impl LatencyMoments {
    /// The moments of the union of `parts` (each the moments of `count` latencies): min and max over the
    /// parts, the mean weighted by counts, and the pooled standard deviation (each part's variance plus its
    /// mean's squared distance from the whole's, weighted by counts); `None` without latencies.
    pub fn pooled(parts: &[(LatencyMoments, u64)]) -> Option<LatencyMoments> {
        let parts: Vec<&(LatencyMoments, u64)> = parts.iter().filter(|p| p.1 > 0).collect();
        let n: f64 = parts.iter().map(|p| p.1 as f64).sum();
        let first = parts.first()?.0;
        let mean = parts.iter().map(|(m, c)| m.mean * *c as f64).sum::<f64>() / n;
        let var = parts
            .iter()
            .map(|(m, c)| (m.stddev * m.stddev + (m.mean - mean).powi(2)) * *c as f64)
            .sum::<f64>()
            / n;
        Some(LatencyMoments {
            min: parts.iter().fold(first.min, |a, p| a.min(p.0.min)),
            mean,
            stddev: var.sqrt(),
            max: parts.iter().fold(first.max, |a, p| a.max(p.0.max)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2,000 random histograms (0..10k values over ranges from 1 ns to past the top bucket) and edge cases:
    /// the one-pass [`interval_percentiles_of`] equals `value_at_quantile` for p50, p99 and p99.9 exactly.
    #[test]
    fn one_pass_percentiles_equal_value_at_quantile() {
        use rand_core::Rng;
        let mut rng = rand_pcg::Pcg64Mcg::new(0x5eed_9e7c);
        let mut h = new_histogram();
        let check = |h: &Histogram<u64>, max: u64| {
            let want = INTERVAL_PERCENTILES
                .map(|(_, p)| percentile_of(h, p, max).map(|ns| ns as f64 / 1e3));
            assert_eq!(interval_percentiles_of(h, max), want, "{} values", h.len());
        };
        for case in 0..2000u64 {
            h.reset();
            let n = rng.next_u64() % 10_000;
            let top_bits = 1 + rng.next_u64() % 44;
            let spread = 1 + rng.next_u64() % 4;
            for _ in 0..n {
                let v = match case % 4 {
                    0 => rng.next_u64() >> (64 - top_bits),
                    1 => (rng.next_u64() >> (64 - top_bits)) >> (rng.next_u64() % 40),
                    2 => 1_000 + rng.next_u64() % (spread * 1_000),
                    _ => rng.next_u64() % 4 * (rng.next_u64() >> (64 - top_bits)),
                };
                record_into(&mut h, v);
            }
            let cap = rng.next_u64() >> (64 - top_bits);
            check(&h, if case % 3 == 0 { cap } else { u64::MAX });
        }
        for (v, n) in [
            (1, 1),
            (77_777, 1),
            (5_000, 9_999),
            (u64::MAX, 3),
            (MAX_TRACKABLE_NS, 1000),
        ] {
            h.reset();
            for _ in 0..n {
                record_into(&mut h, v);
            }
            check(&h, u64::MAX);
        }
        h.reset();
        check(&h, u64::MAX);
        let tops = bucket_tops();
        assert_eq!(tops.len(), h.distinct_values());
        assert_eq!(h.lowest_equivalent(tops[0]), 0);
        assert!(
            tops.windows(2)
                .all(|w| h.lowest_equivalent(w[1]) == w[0] + 1)
        );
        assert!(*tops.last().unwrap() >= h.highest_equivalent(MAX_TRACKABLE_NS));
    }

    #[test]
    fn a_histogram_takes_the_bytes_said_and_an_empty_recorder_none() {
        let h = new_histogram();
        assert_eq!(h.distinct_values() as u64 * 8, HISTOGRAM_BYTES);
        assert!(LatencyRecorder::new().hist.is_none());
        assert!(LatencyRecorder::try_new().expect("room").hist.is_some());
        let mut r = LatencyRecorder::new();
        r.record(5);
        assert_eq!(r.buckets(), vec![[5, 1]]);
    }

    #[test]
    fn c08_percentiles_of_one_to_a_million() {
        let mut r = LatencyRecorder::new();
        for ns in 1..=1_000_000u64 {
            r.record(ns);
        }
        let p50 = r.percentile(50.0).unwrap() as f64;
        assert!((p50 - 500_000.0).abs() <= 500.0, "p50 {p50}");
        assert_eq!(r.percentile(100.0), Some(1_000_000));
        let s = r.summary().unwrap();
        assert_eq!((s.min, s.max), (1, 1_000_000));
        assert_eq!(s.mean, 500_000.5);
        for v in [s.p50, s.p90, s.p99, s.p99_9, s.p99_99] {
            assert!((s.min..=s.max).contains(&v));
        }
    }

    #[test]
    fn c08_a_94_second_outlier_is_reported_as_94_seconds() {
        let mut r = LatencyRecorder::new();
        for _ in 0..10_000 {
            r.record(1_000_000);
        }
        r.record(94_000_000_000);
        let s = r.summary().unwrap();
        assert_eq!(s.max, 94_000_000_000);
        assert_eq!(r.percentile(100.0), Some(94_000_000_000));
        assert!((s.p99 as f64 - 1e6).abs() <= 1e3, "p99 {}", s.p99);
    }

    #[test]
    fn c08_merge_equals_union_and_mixed_cell_is_op_weighted() {
        let (mut reads, mut writes, mut all) = (
            LatencyRecorder::new(),
            LatencyRecorder::new(),
            LatencyRecorder::new(),
        );
        for ns in [100_000, 200_000] {
            reads.record(ns);
            all.record(ns);
        }
        for ns in [50_000, 5_000_000] {
            writes.record(ns);
            all.record(ns);
        }
        let mut merged = reads.clone();
        merged.try_merge(&writes).expect("room for a copy");
        assert_eq!(merged.summary(), all.summary());
        let mut taken = LatencyRecorder::new();
        taken.try_merge(&reads).expect("room for a copy");
        taken.absorb(writes.clone());
        assert_eq!(taken.summary(), all.summary());
        let mut moved = LatencyRecorder::new();
        moved.absorb(reads.clone());
        moved.absorb(writes);
        assert_eq!(moved.buckets(), all.buckets());
        assert_eq!(merged.summary(), all.summary());
        let s = merged.summary().unwrap();
        assert_eq!((s.min, s.max), (50_000, 5_000_000));
        assert_eq!(s.mean, 1_337_500.0);
    }

    #[test]
    fn merging_bucket_pairs_equals_recording_the_union() {
        let (mut a, mut b, mut all) = (
            LatencyRecorder::new(),
            LatencyRecorder::new(),
            LatencyRecorder::new(),
        );
        for i in 0..5_000u64 {
            let x = 1_000 + i * i % 70_001;
            let y = 20_000 + (i * 7_919) % 3_000_000;
            a.record(x);
            b.record(y);
            all.record(x);
            all.record(y);
        }
        let (sa, sb) = (a.summary().unwrap(), b.summary().unwrap());
        let (ba, bb) = (a.buckets(), b.buckets());
        assert_eq!(ba.iter().map(|p| p[1]).sum::<u64>(), 5_000);
        assert!(ba.windows(2).all(|w| w[0][0] < w[1][0]));
        let part = |summary, buckets, count| Part {
            summary,
            count,
            buckets,
        };
        let m = merge_parts(&[part(&sa, &ba, 5_000), part(&sb, &bb, 5_000)])
            .unwrap()
            .unwrap();
        let u = all.summary().unwrap();
        assert_eq!(
            (m.min, m.max, m.p50, m.p90, m.p99, m.p99_9, m.p99_99),
            (u.min, u.max, u.p50, u.p90, u.p99, u.p99_9, u.p99_99)
        );
        assert!((m.mean - u.mean).abs() < 1e-6 * u.mean);
        assert!((m.stddev - u.stddev).abs() < 1e-6 * u.stddev);
        // One part merged alone gives its own summary's percentiles.
        let one = merge_parts(&[part(&sa, &ba, 5_000)]).unwrap().unwrap();
        assert_eq!((one.p50, one.p99, one.p99_99), (sa.p50, sa.p99, sa.p99_99));
        let e = merge_parts(&[part(&sa, &ba, 5_001)]).err();
        assert_eq!(
            e.as_deref(),
            Some("its latency histogram holds 5000 latencies, not the 5001 counted")
        );
        assert_eq!(merge_parts(&[]), Ok(None));
    }

    #[test]
    fn empty_has_no_summary() {
        assert!(LatencyRecorder::new().summary().is_none());
        assert!(LatencyRecorder::new().percentile(50.0).is_none());
    }

    #[test]
    fn percentiles_with_fewer_than_ten_latencies_above_them_are_thin() {
        // p99.99 needs 100,000 latencies for 10 above it, p99.9 10,000, p99 1,000, p90 100, p50 20.
        assert!(thin_percentiles(0).is_empty());
        assert_eq!(
            thin_percentiles(19),
            ["p50", "p90", "p99", "p99.9", "p99.99"]
        );
        assert_eq!(thin_percentiles(20), ["p90", "p99", "p99.9", "p99.99"]);
        assert_eq!(thin_percentiles(999), ["p99", "p99.9", "p99.99"]);
        assert_eq!(thin_percentiles(1_000), ["p99.9", "p99.99"]);
        assert_eq!(thin_percentiles(99_999), ["p99.99"]);
        assert!(thin_percentiles(100_000).is_empty());
        assert!(thin_percentiles(u64::MAX).is_empty());
        // Oracle: the count above rank r of n is n·(1 − r); brute-force each n from 1 to 2,000.
        for n in 1..=2_000u64 {
            let want: Vec<&str> = PERCENTILES
                .iter()
                .filter(|(_, r)| (n as f64) * (1.0 - *r as f64 / 10_000.0) < 10.0 - 1e-9)
                .map(|(p, _)| *p)
                .collect();
            assert_eq!(thin_percentiles(n), want, "n = {n}");
        }
    }
}
