//! A phase's series judged: the steady-state verdict, the windows, the aggregates, the derived figures and
//! the headline figures of a measured I/O phase, from its full rows. One implementation for both places that
//! judge a series: a run, row by row as the collector releases them (`run/measure.rs`), and `wkrun merge`
//! (and the aggregate of a run on several targets), over the merged rows (`report/merge`). What is judged
//! and how is the phase's [`Measure`]: the plan's, or the one its record (`phases[].params`) reads back as
//! ([`PhaseParams::measure`](crate::plan::PhaseParams::measure)).

use super::series_csv::SeriesRow;
use super::{Aggregates, PhaseResult, SteadyState, WindowResult};
use crate::plan::{Measure, SteadyPlan};
use crate::stats::derived::{self, Derived, Headline, RowFacts, SpanWrite, Split, SplitTracker};
use crate::stats::steady::{FioMetric, Rule, SteadyDetector, Verdict};
use crate::vocab::Direction::{Read, Trim, Write};

/// What the full rows of a phase gave: the per-row IOPS, the verdict and the splits.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    /// Total IOPS of every full row, in order, when the phase has windows, aggregates or a headline item
    /// that needs them (empty otherwise).
    pub iops: Vec<f64>,
    /// The steady-state verdict, when the phase has a rule.
    pub steady: Option<Verdict>,
    /// When the span had been written once, twice, …, and the phase before and after each point its
    /// headline names (empty unless the headline has `"fill_once"` or `"at T"`).
    pub splits: (Vec<SpanWrite>, Vec<Split>),
    /// The largest latency of the first full row, either direction, µs (none before a full row, or
    /// without a completion in it): where a phase's maximum comes from the backlog of the phase before.
    pub first_max_us: Option<f64>,
}

/// What the split tracker needs of a row.
fn facts(row: &SeriesRow) -> RowFacts {
    RowFacts {
        t_s: row.t_s,
        interval_s: row.interval_s,
        read_ops: row[Read].ops,
        write_ops: row[Write].ops,
        read_bytes: row[Read].bytes,
        write_bytes: row[Write].bytes,
        read_lat_sum_us: row[Read].lat_mean_us.unwrap_or(0.0) * row[Read].ops as f64,
        write_lat_sum_us: row[Write].lat_mean_us.unwrap_or(0.0) * row[Write].ops as f64,
        trim_ops: row[Trim].ops,
        trim_bytes: row[Trim].bytes,
        trim_lat_sum_us: row[Trim].lat_mean_us.unwrap_or(0.0) * row[Trim].ops as f64,
    }
}

/// The full rows of a phase as they come: total IOPS per row, the steady-state detector, the splits.
pub struct Rows {
    /// Total IOPS of every full row, kept only for windows and aggregates (8 bytes a row).
    iops: Vec<f64>,
    keep_iops: bool,
    detector: Option<SteadyDetector>,
    metric: FioMetric,
    reached: bool,
    /// Rows per steady-state round, and the sum and count of the round being filled.
    per_round: usize,
    round_sum: f64,
    round_rows: usize,
    /// Bytes written in the round being filled.
    round_written: u64,
    /// Span writes and before/after splits, when the headline asks for them.
    splits: Option<SplitTracker>,
    first_max_us: Option<Option<f64>>,
}

impl Rows {
    /// The judge of a phase measured as `m`, whose range holds `span_len` bytes (for `"fill_once"`).
    pub fn new(m: &Measure, span_len: u64) -> Rows {
        let steady: Option<SteadyPlan> = m.steady;
        let metric = match steady.map(|s| s.rule) {
            Some(Rule::Fio(f)) => f.metric,
            _ => FioMetric::Iops,
        };
        // The rules were validated with the spec (or read back from a results file, checked there), so the
        // detector builds.
        let detector = steady.and_then(|s| {
            SteadyDetector::new(s.rule, s.leave)
                .and_then(|d| d.starting(s.start))
                .ok()
        });
        Rows {
            iops: Vec::new(),
            keep_iops: !m.windows.is_empty()
                || m.aggregate_ns.is_some()
                || m.headline.iter().any(|h| h.needs_iops()),
            detector,
            metric,
            reached: false,
            per_round: steady.map_or(1, |s| s.intervals_per_round).max(1) as usize,
            round_sum: 0.0,
            round_rows: 0,
            round_written: 0,
            splits: SplitTracker::new(&m.headline, span_len),
            first_max_us: None,
        }
    }

    /// Takes one full row; true when steady state was first reached with it.
    pub fn push(&mut self, row: &SeriesRow) -> bool {
        let iops = row.rate(|d| d.iops);
        if self.first_max_us.is_none() {
            let max = row.by_dir.0.iter().filter_map(|d| d.lat_max_us);
            self.first_max_us = Some(max.reduce(f64::max));
        }
        if self.keep_iops {
            self.iops.push(iops);
        }
        if let Some(t) = self.splits.as_mut() {
            t.push(&facts(row));
        }
        let value = match self.metric {
            FioMetric::Iops => iops,
            FioMetric::Bw => row.rate(|d| d.bw_bytes_per_s),
            FioMetric::Lat => {
                let ops = row.count(|d| d.ops);
                let sum = row.lat_sum_us();
                if ops > 0 { sum / ops as f64 * 1e3 } else { 0.0 }
            }
        };
        let Some(d) = self.detector.as_mut() else {
            return false;
        };
        self.round_sum += value;
        self.round_rows += 1;
        self.round_written = self.round_written.saturating_add(row[Write].bytes);
        if self.round_rows < self.per_round {
            return false;
        }
        let round = self.round_sum / self.round_rows as f64;
        let written = self.round_written;
        (self.round_sum, self.round_rows, self.round_written) = (0.0, 0, 0);
        let reached = d.push_round(round, written).is_some_and(|v| v.reached);
        let first = reached && !self.reached;
        self.reached |= reached;
        first
    }

    /// What the rows gave.
    pub fn finish(self) -> Judged {
        Judged {
            steady: self.detector.as_ref().map(|d| d.verdict()),
            iops: self.iops,
            splits: self.splits.map(SplitTracker::finish).unwrap_or_default(),
            first_max_us: self.first_max_us.flatten(),
        }
    }
}

/// Judges a whole series at once: its full rows (`partial` 0) in order, as a run releases them.
pub fn judge_rows(m: &Measure, span_len: u64, rows: &[SeriesRow]) -> Judged {
    let mut r = Rows::new(m, span_len);
    for row in rows.iter().filter(|r| r.partial == 0) {
        r.push(row);
    }
    r.finish()
}

/// Records what the rows gave in `pr`, whose totals (`read`, `write`, `total`), `duration_s` and
/// `completed` are set: the steady-state
/// verdict with its times (`ended_phase` when the phase ended at steady state), the windows, the
/// aggregates, the derived figures and, last, the headline figures.
pub fn record(
    m: &Measure,
    interval_ns: u64,
    judged: Judged,
    ended_phase: bool,
    pr: &mut PhaseResult,
) {
    if let (Some(s), Some(v)) = (m.steady, judged.steady) {
        pr.steady_state = Some(steady_state(s, interval_ns, v, ended_phase, &judged.iops));
    }
    windows(m, &judged.iops, interval_ns, pr);
    let items = &m.headline;
    let (span_writes, splits) = judged.splits;
    let d = Derived {
        worst: items
            .contains(&Headline::Worst)
            .then(|| derived::worst(&judged.iops, interval_ns as f64 / 1e9))
            .flatten(),
        per_second: items
            .contains(&Headline::PerSecond)
            .then(|| crate::stats::window::slice_stats(&judged.iops))
            .flatten(),
        span_writes,
        splits,
    };
    pr.derived = (!d.is_empty()).then_some(d);
    pr.headline = super::headline::figures(items, pr);
}

/// The steady-state verdict with its times: a round is `intervals_per_round` intervals; `iops` the
/// phase's IOPS per interval.
fn steady_state(
    s: SteadyPlan,
    interval_ns: u64,
    v: Verdict,
    ended_phase: bool,
    iops: &[f64],
) -> SteadyState {
    let round_s = (s.intervals_per_round * interval_ns) as f64 / 1e9;
    let judged = v.window_rounds > 0 && v.judged_from_round.is_some();
    let window = s.rule.window();
    let mut reason = judged_from_reason(&v, round_s);
    if let Some(drop) = v.start.as_ref().and_then(|st| st.rule.drop)
        && v.judged_from_round.is_none()
        && v.start.as_ref().is_some_and(|st| st.drop_round.is_none())
        && v.rounds_seen > 0
    {
        let first = &iops[..(s.intervals_per_round as usize).min(iops.len())];
        if let Some(more) = drop_note(first, 1.0 - drop, interval_ns as f64 / 1e9) {
            reason.push_str(&more);
        }
    }
    SteadyState {
        criterion: s.rule,
        reached: v.reached,
        at_s: v.at_round.map(|r| (r + 1) as f64 * round_s),
        left_at_s: v.left.as_ref().map(|l| (l.at_round + 1) as f64 * round_s),
        window_s: s.rule.window() as f64 * round_s,
        ended_phase,
        judged_from_s: v.judged_from_round.map(|r| r as f64 * round_s),
        window_start_s: judged.then_some(v.window_first_round as f64 * round_s),
        window_end_s: judged.then_some((v.window_first_round + v.window_rounds) as f64 * round_s),
        earliest_at_s: v.judged_from_round.map(|r| (r + window) as f64 * round_s),
        at_rule_floor: v.reached
            && v.at_round.is_some()
            && v.at_round == v.judged_from_round.map(|r| r + window - 1),
        not_judged: not_judged(&v, window, round_s, &reason),
        judged_from_reason: reason,
        verdict: v,
    }
}

/// What a "no round fell" reason adds when the first round's intervals (`first`, of `interval_s` each)
/// fell below `below` times their highest within it: `; the drop may lie inside the first round: ...`.
fn drop_note(first: &[f64], below: f64, interval_s: f64) -> Option<String> {
    let (high, low) = drop_within(first, below)?;
    Some(format!(
        "; the drop may lie inside the first round: its {interval_s} s intervals fell from {high:.1} to {low:.1} IOPS within it, which the round's average hides"
    ))
}

/// In `series` (one round's intervals, in order), an interval below `below` times the highest before it:
/// that highest and the lowest interval after it, when there is one (else `None`).
fn drop_within(series: &[f64], below: f64) -> Option<(f64, f64)> {
    let mut high = f64::NEG_INFINITY;
    let mut found: Option<(f64, f64)> = None;
    for &x in series {
        if x < below * high && found.is_none_or(|(_, low)| x < low) {
            found = Some((high, x));
        }
        high = high.max(x);
    }
    found
}

/// Why no full window of `window` rounds was judged, when none was: the `steady_after` condition never met
/// (its `reason`, without `never: `), or fewer rounds judged than the window.
fn not_judged(v: &Verdict, window: usize, round_s: f64, reason: &str) -> Option<String> {
    match v.judged_from_round {
        None => Some(reason.strip_prefix("never: ").unwrap_or(reason).to_string()),
        Some(first) => {
            let n = v.rounds_seen.saturating_sub(first);
            (n < window).then(|| {
                format!(
                    "{n} round{} of {round_s} s judged, fewer than the window of {window}",
                    if n == 1 { "" } else { "s" }
                )
            })
        }
    }
}

/// Why judging began when it did (`steady_after`), or why it never did, in words.
fn judged_from_reason(v: &Verdict, round_s: f64) -> String {
    let Some(st) = &v.start else {
        return "from the first round (no steady_after)".into();
    };
    if v.rounds_seen == 0 {
        // (A trial run shorter than one round: "no round fell below 0.5 × the peak 0.0" said nothing true.)
        return format!(
            "never: no whole round of {round_s} s was measured (the phase is shorter than one steady_round)"
        );
    }
    let end = |r: usize| (r + 1) as f64 * round_s;
    let mut met = Vec::new();
    let mut unmet = Vec::new();
    if let Some(need) = st.rule.written_bytes {
        match st.written_round {
            Some(r) => met.push(format!(
                "the phase had written {} B (steady_after.written: {need} B) by {} s",
                st.written_bytes,
                end(r)
            )),
            None => unmet.push(format!(
                "the phase had written {} B by the end of its last round, of the {need} B steady_after.written needs",
                st.written_bytes
            )),
        }
    }
    if let Some(drop) = st.rule.drop {
        let peak = st.peak.unwrap_or(0.0);
        match (st.drop_round, st.dropped_to) {
            (Some(r), Some(to)) => met.push(format!(
                "the round ending {} s fell to {to:.1}, below {} × the peak {peak:.1} (steady_after.drop {drop})",
                end(r),
                1.0 - drop
            )),
            _ => unmet.push(format!(
                "no round fell below {} × the peak {peak:.1} (steady_after.drop {drop})",
                1.0 - drop
            )),
        }
    }
    match v.judged_from_round {
        Some(_) => format!("after {}", met.join(" and ")),
        None => format!("never: {}", unmet.join(" and ")),
    }
}

/// The length of a phase that did not complete, lasted `duration_s` and has full rows up to `rows_ns`, to
/// the hundredth of a second: `3s` when the two agree, else the phase's own with its full rows' (`3.46s
/// (full rows: 3s)`, a phase interrupted 3.46 s in: trial 21 T4, where the note said `the phase is 3s`).
/// A phase that completed is as long as its full rows (its drain, after its bound, is no part of it).
fn phase_words(duration_s: f64, rows_ns: u64) -> String {
    let rows = crate::units::Duration(rows_ns);
    let centis = (duration_s * 100.0).round();
    if centis == (rows_ns as f64 / 1e7).round() {
        return rows.to_string();
    }
    let secs = format!("{:.2}", centis / 100.0);
    let secs = secs.trim_end_matches('0').trim_end_matches('.');
    format!("{secs}s (full rows: {rows})")
}

/// The windows' statistics and the aggregates of the IOPS series.
fn windows(m: &Measure, iops: &[f64], interval_ns: u64, pr: &mut PhaseResult) {
    let interval_s = interval_ns as f64 / 1e9;
    for w in &m.windows {
        let (mut rows, mut stats) = w.spec.stats(iops, interval_ns);
        let mut clipped = None;
        if !rows.complete {
            let rows_ns = iops.len() as u64 * interval_ns;
            let phase = match pr.completed {
                true => crate::units::Duration(rows_ns).to_string(),
                false => phase_words(pr.duration_s, rows_ns),
            };
            let mut note = format!(
                "window clipped: the phase is {phase}, the window {}",
                w.spec
            );
            // A window that starts after the series' end takes the whole phase rather than nothing.
            if rows.rows.is_empty() && !iops.is_empty() {
                rows.rows = 0..iops.len();
                stats = crate::stats::window::slice_stats(iops);
                note.push_str(" starts after its end: the whole phase instead");
            }
            clipped = Some(note);
        }
        pr.windows.push(WindowResult {
            spec: w.text.clone(),
            start_s: rows.rows.start as f64 * interval_s,
            end_s: rows.rows.end as f64 * interval_s,
            complete: rows.complete,
            iops: stats,
            clipped,
        });
    }
    if let Some(every) = m.aggregate_ns
        && let Ok(groups) = crate::stats::window::aggregate(iops, interval_ns, every)
    {
        pr.aggregates = Some(Aggregates {
            every_s: every as f64 / 1e9,
            groups,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The newcomer's short run: within its first 1-minute round the per-second IOPS fell from 4500 to 360,
    /// which the round's average hid; the drop is found from the highest interval before it to the lowest
    /// after. A flat round, or one that only rises, has none.
    #[test]
    fn a_drop_inside_one_round_is_found_from_its_intervals() {
        let round = [4000.0, 4500.0, 4400.0, 2000.0, 360.0, 380.0, 370.0];
        assert_eq!(drop_within(&round, 0.5), Some((4500.0, 360.0)));
        // 2250 is 0.5 × 4500 exactly: not below it.
        assert_eq!(drop_within(&[4500.0, 2250.0], 0.5), None);
        assert_eq!(drop_within(&[100.0, 3000.0, 3100.0], 0.5), None);
        assert_eq!(drop_within(&[], 0.5), None);
        assert_eq!(
            drop_note(&round, 0.5, 1.0).as_deref(),
            Some(
                "; the drop may lie inside the first round: its 1 s intervals fell from 4500.0 to 360.0 IOPS within it, which the round's average hides"
            )
        );
        assert_eq!(drop_note(&[4500.0, 2250.0], 0.5, 1.0), None);
    }

    /// Trial 21 T4: a phase interrupted 3.457 s in, with full rows up to 3 s, is `3.46s (full rows: 3s)`,
    /// not `3s`; one whose length its full rows give (a 20 s phase whose drain took 3 ms) is `20s`.
    #[test]
    fn a_clipped_windows_phase_length_is_given_to_the_hundredth() {
        assert_eq!(
            phase_words(3.457381797, 3_000_000_000),
            "3.46s (full rows: 3s)"
        );
        assert_eq!(phase_words(3.5, 3_000_000_000), "3.5s (full rows: 3s)");
        assert_eq!(phase_words(20.003, 20_000_000_000), "20s");
        assert_eq!(phase_words(900.0, 900_000_000_000), "15min");
        assert_eq!(phase_words(0.52, 500_000_000), "0.52s (full rows: 500ms)");
    }
}
