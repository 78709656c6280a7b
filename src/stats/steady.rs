//! Steady-state detection over a series of per-round values (IOPS or bandwidth per interval, or per longer
//! round), and detection of a drive *leaving* steady state afterwards (an SLC cache running out, thermal
//! throttling).
//!
//! Two kinds of rule, both judged on a rolling measurement window of the last `window` rounds:
//! - [`SniaRule`], the SNIA Solid State Storage Performance Test Specification (PTS, Enterprise and Client,
//!   1.1 and later), definitions of *Steady State* and *Measurement Window*: the data excursion
//!   (max − min) is within 20 % of the window's average, and the excursion of the least-squares line across
//!   the window is within 10 % of the average, at most 25 rounds;
//! - [`FioRule`], one of fio's single criteria (`steadystate=iops:…`, `iops_slope:…`, `bw:…`, `bw_slope:…`,
//!   fio HOWTO, section "Steady state"), for labs that reproduce fio runs.
//!
//! Rounds are numbered from 0 (`at_round`) and from 1 (`at_round_number`, as SNIA reports count them).
//! Least squares use x = 0, 1, …, n − 1 (one unit per round), so a slope is in series units per round.
//! Every reported number is finite: a non-finite input value is counted as 0 (a round without a measurement
//! is a round of zero I/O, as in the series), and ratios over a mean that is not positive are `None` (JSON
//! `null`), never 0, so that they cannot pass for a perfectly steady window. A window whose mean is not
//! positive is never steady, under any rule.
//!
//! A [`StartRule`] holds judging back until the drive has been worked hard enough (`steady_after`): until the
//! phase has written a stated number of bytes (SNIA PTS preconditions with twice the user capacity), and/or
//! until a round has fallen a stated fraction below the highest round before it (the cliff after a fresh
//! drive's spare area runs out). Rounds before that are not judged: no window holds them, and `max_rounds`
//! counts from the first judged round. A fresh drive's plateau is level enough to pass any window rule, so
//! without a start rule a plateau before the cliff is declared steady.
//!
//! [`SteadyDetector`] judges round by round, so the runner can stop a phase when steady (`until = "steady"`);
//! [`evaluate`] judges a whole series with the same code, for results.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The SNIA PTS steady-state rule. A window of `window` consecutive rounds is steady when, with `avg` its
/// mean, `max − min ≤ data_excursion × avg` and `|slope| × (window − 1) ≤ slope_excursion × avg`, where
/// `slope` is that of the least-squares line through the window (so `|slope| × (window − 1)` is how far the
/// line moves from the window's first round to its last). Both comparisons include equality ("no more
/// than", "within"). Steady state is reached at the last round of the first steady window, if that round is
/// among the first `max_rounds`. Defaults: 5 rounds, 25 rounds at most, 20 %, 10 %.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SniaRule {
    /// Rounds in the measurement window (≥ 2). Default 5.
    pub window: usize,
    /// Rounds within which steady state must be reached (≥ `window`), counted from the first judged round
    /// (after a `steady_after` rule is met); `None` (`null`) for no limit. Default 25. A window ending later
    /// is not judged.
    pub max_rounds: Option<usize>,
    /// Largest allowed (max − min) of the window, as a fraction of its average (0.20 = 20 %).
    pub data_excursion: f64,
    /// Largest allowed excursion of the least-squares line across the window, |slope| × (window − 1), as a
    /// fraction of its average (0.10 = 10 %).
    pub slope_excursion: f64,
}

impl Default for SniaRule {
    fn default() -> Self {
        SniaRule {
            window: 5,
            max_rounds: Some(25),
            data_excursion: 0.20,
            slope_excursion: 0.10,
        }
    }
}

/// Which measurement a [`FioRule`] is about. Only a label: the caller passes the matching series (IOPS per
/// round, bytes per second per round, or mean latency per round).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum FioMetric {
    /// I/O operations per second (fio `iops`, `iops_slope`).
    Iops,
    /// Bandwidth (fio `bw`, `bw_slope`).
    Bw,
    /// Mean latency (fio `lat`, `lat_slope` in recent versions).
    Lat,
}

/// The criterion of a [`FioRule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum FioKind {
    /// |least-squares slope| of the window (series units per round) must be below the limit (fio `*_slope`).
    Slope,
    /// The largest |x − mean| over the window (series units) must be below the limit: every value is within
    /// the limit of the mean (fio `iops`, `bw`).
    Deviation,
}

/// A fio-style single steady-state criterion, with fio's semantics (fio HOWTO, "Steady state": options
/// `steadystate`/`ss`, `steadystate_duration`/`ss_dur`, `steadystate_ramp_time`/`ss_ramp`): all assessment
/// uses only the rolling window of the last `window` rounds; the window is steady when the criterion
/// (|slope|, or the largest deviation from the mean) is *strictly below* the limit, as fio compares; the
/// limit is absolute (fio `iops_slope:10`) or, with `relative`, a fraction of the window's mean (fio
/// `iops_slope:0.1%` is `limit = 0.001, relative = true`). fio samples once per second, so its slope is per
/// second: pass a series with one value per second and `window` = `ss_dur` in seconds to reproduce it; fio's
/// `ss_ramp` is the caller's business (push no rounds before it ends). One difference from fio: a window
/// whose mean is not positive (a stalled device) is never steady, also under an absolute limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FioRule {
    /// The measurement the series holds.
    pub metric: FioMetric,
    /// Slope or deviation.
    pub kind: FioKind,
    /// The limit: in series units (per round for a slope), or a fraction of the window's mean when
    /// `relative`. Finite, ≥ 0.
    pub limit: f64,
    /// True: `limit` is a fraction of the window's mean (fio's `%` form, divided by 100).
    pub relative: bool,
    /// Rounds in the rolling window (≥ 2).
    pub window: usize,
}

/// A steady-state rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// The SNIA PTS rule.
    Snia(SniaRule),
    /// A fio-style single criterion.
    Fio(FioRule),
}

impl Rule {
    /// Rounds in the measurement window.
    pub fn window(&self) -> usize {
        match self {
            Rule::Snia(r) => r.window,
            Rule::Fio(r) => r.window,
        }
    }

    /// Rounds within which steady state must be reached, if limited.
    pub fn max_rounds(&self) -> Option<usize> {
        match self {
            Rule::Snia(r) => r.max_rounds,
            Rule::Fio(_) => None,
        }
    }

    /// Checks the rule's numbers; the error says which one is wrong and why (these come from spec files).
    pub fn validate(&self) -> Result<(), String> {
        let window = self.window();
        if window < 2 {
            return Err(format!(
                "steady-state window of {window} round(s) is too short: a slope needs at least 2 rounds"
            ));
        }
        let limit_ok = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "steady-state {name} {v} must be a finite number ≥ 0"
                ))
            }
        };
        match self {
            Rule::Snia(r) => {
                limit_ok("data_excursion", r.data_excursion)?;
                limit_ok("slope_excursion", r.slope_excursion)?;
                if let Some(m) = r.max_rounds
                    && m < window
                {
                    return Err(format!(
                        "steady-state max_rounds {m} is smaller than the window of {window} rounds: steady state could never be reached"
                    ));
                }
                Ok(())
            }
            Rule::Fio(r) => limit_ok("limit", r.limit),
        }
    }
}

/// When a drive leaves steady state: after steady state was reached with window average `A`, the first
/// round whose trailing window (the rule's `window` rounds ending at that round) has an average strictly
/// below `(1 − drop) × A`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaveRule {
    /// The fall that counts as leaving, as a fraction of the steady window's average (0.2 = 20 %), in
    /// (0, 1).
    pub drop: f64,
}

impl LeaveRule {
    /// Checks that `drop` is in (0, 1).
    pub fn validate(&self) -> Result<(), String> {
        if self.drop > 0.0 && self.drop < 1.0 {
            Ok(())
        } else {
            Err(format!(
                "steady-state leave drop {} must be a fraction between 0 and 1 (0.2 for 20 %)",
                self.drop
            ))
        }
    }
}

/// The first round after steady state at which the trailing window's average fell below the leave
/// threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Leave {
    /// 0-based index of the round that completed the window (its last round).
    pub at_round: usize,
    /// `at_round + 1`.
    pub at_round_number: usize,
    /// Average of the window ending at `at_round`, series units.
    pub window_mean: f64,
    /// Average of the steady window, series units.
    pub steady_mean: f64,
    /// `(1 − drop) × steady_mean`, series units: `window_mean` is below it.
    pub threshold: f64,
    /// How far the average fell: `1 − window_mean / steady_mean`, a fraction; `None` (`null`) when
    /// `steady_mean` is not positive.
    pub fall: Option<f64>,
}

/// When judging may begin (the spec's `steady_after`, resolved to bytes): after the phase has written
/// `written_bytes`, and/or after a round fell below `(1 − drop)` × the highest round before it. With both,
/// judging begins once both have happened. The rounds up to and including the one that met the rule are
/// not judged; the first judged round is the next one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartRule {
    /// Bytes the phase must have written (counted from its measured start) before judging; `None` (`null`):
    /// no such condition.
    pub written_bytes: Option<u64>,
    /// The fall that must have been seen before judging, as a fraction of the highest round before it
    /// (0.5 = a round below half the peak), in (0, 1); `None` (`null`): no such condition.
    pub drop: Option<f64>,
}

impl StartRule {
    /// Checks that at least one condition is given and that `drop` is in (0, 1).
    pub fn validate(&self) -> Result<(), String> {
        if self.written_bytes.is_none() && self.drop.is_none() {
            return Err("steady_after needs `written` or `drop` (or both)".into());
        }
        match self.drop {
            Some(d) if !(d > 0.0 && d < 1.0) => Err(format!(
                "steady_after drop {d} must be a fraction between 0 and 1 (0.5 for a fall to half the peak)"
            )),
            _ => Ok(()),
        }
    }
}

/// Where a [`StartRule`] stands: what the phase had done by the time judging began (or so far, while it
/// has not).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Start {
    /// The rule.
    pub rule: StartRule,
    /// Bytes the phase had written by the end of the round that met the rule; while it is not met, by the
    /// end of the last round seen.
    pub written_bytes: u64,
    /// 0-based index of the round during which the phase's writes reached `rule.written_bytes`; `None`
    /// without that condition or before it is met.
    pub written_round: Option<usize>,
    /// The highest round before the drop (while no drop was seen, the highest so far); `None` without a
    /// `drop` condition or before any round.
    pub peak: Option<f64>,
    /// 0-based index of the first round below `(1 − drop) × peak`; `None` without that condition or before
    /// it is met.
    pub drop_round: Option<usize>,
    /// The value of that round.
    pub dropped_to: Option<f64>,
}

impl Start {
    fn new(rule: StartRule) -> Start {
        Start {
            rule,
            written_bytes: 0,
            written_round: None,
            peak: None,
            drop_round: None,
            dropped_to: None,
        }
    }

    /// Takes round `round` (its value and the bytes written in it); true when the rule is met with it.
    fn take(&mut self, round: usize, value: f64, written: u64) -> bool {
        self.written_bytes = self.written_bytes.saturating_add(written);
        if let Some(need) = self.rule.written_bytes
            && self.written_round.is_none()
            && self.written_bytes >= need
        {
            self.written_round = Some(round);
        }
        if let Some(drop) = self.rule.drop
            && self.drop_round.is_none()
        {
            match self.peak {
                Some(p) if p > 0.0 && value < (1.0 - drop) * p => {
                    self.drop_round = Some(round);
                    self.dropped_to = Some(value);
                }
                Some(p) if p >= value => {}
                _ => self.peak = Some(value),
            }
        }
        (self.rule.written_bytes.is_none() || self.written_round.is_some())
            && (self.rule.drop.is_none() || self.drop_round.is_some())
    }
}

/// The verdict of a steady-state rule over the rounds seen so far. The window statistics describe the
/// first steady window when `reached`; otherwise the last window judged; with fewer judged rounds than the
/// window, all the rounds judged (a partial window, `window_rounds` < the rule's window, never judged); while
/// a [`StartRule`] is not met, none (`window_rounds` 0). All values are in the series' unit (IOPS, bytes/s,
/// ns) unless stated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// True when a window met the rule within `max_rounds`.
    pub reached: bool,
    /// 0-based index of the round that completed the first steady window (its last round); `None` when not
    /// reached.
    pub at_round: Option<usize>,
    /// `at_round + 1`, the round number as SNIA reports count rounds (from 1).
    pub at_round_number: Option<usize>,
    /// 0-based index of the first round of the window described below.
    pub window_first_round: usize,
    /// Rounds in the window described below (the rule's window, or fewer for a partial window; 0 when no
    /// round was seen, and then every statistic below is 0 and the ratios `None`).
    pub window_rounds: usize,
    /// Mean of the window.
    pub window_mean: f64,
    /// Smallest value of the window.
    pub window_min: f64,
    /// Largest value of the window.
    pub window_max: f64,
    /// Slope of the least-squares line through the window, series units per round (0 for one round).
    pub slope: f64,
    /// (max − min) / mean, a fraction (0.2 = 20 %); `None` when the mean is not positive.
    pub data_excursion: Option<f64>,
    /// |slope| × (rounds − 1) / mean, a fraction: the least-squares line's excursion across the window;
    /// `None` when the mean is not positive.
    pub slope_excursion: Option<f64>,
    /// Largest |x − mean| over the window (fio's `deviation` criterion).
    pub max_deviation: f64,
    /// Rounds seen so far (the whole series for [`evaluate`]), including those after the verdict was
    /// settled.
    pub rounds_seen: usize,
    /// True when the last round allowed by `max_rounds` was judged without reaching steady state: the
    /// verdict is final (SNIA: not steady within the allowed rounds).
    pub gave_up: bool,
    /// When the drive left steady state, with a [`LeaveRule`]; `None` without one, before steady state, or
    /// while the trailing window stays above the threshold.
    pub left: Option<Leave>,
    /// 0-based index of the first round judged: 0 without a [`StartRule`], else the round after the one
    /// that met it; `None` (`null`) while it is not met (no round judged).
    #[serde(default = "first_round")]
    pub judged_from_round: Option<usize>,
    /// With a [`StartRule`]: where it stands (what the phase had written, the peak and the drop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start>,
}

/// `judged_from_round` of a verdict written before start rules existed: from the first round.
fn first_round() -> Option<usize> {
    Some(0)
}

/// The facts of one window, computed once and shared by every rule.
#[derive(Debug, Clone, Copy)]
struct Facts {
    n: usize,
    mean: f64,
    min: f64,
    max: f64,
    slope: f64,
    max_deviation: f64,
}

/// Mean, extremes, least-squares slope and largest deviation of `w`, in one place. The slope uses centred
/// abscissae: with x̄ = (n − 1)/2, slope = Σ (i − x̄)·yᵢ / Σ (i − x̄)², and Σ (i − x̄)² = n(n² − 1)/12.
fn facts(w: &[f64]) -> Facts {
    let n = w.len();
    if n == 0 {
        return Facts {
            n,
            mean: 0.0,
            min: 0.0,
            max: 0.0,
            slope: 0.0,
            max_deviation: 0.0,
        };
    }
    let nf = n as f64;
    let mean = w.iter().sum::<f64>() / nf;
    let min = w.iter().copied().fold(f64::INFINITY, f64::min);
    let max = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let slope = if n < 2 {
        0.0
    } else {
        let xbar = (nf - 1.0) / 2.0;
        let sxy: f64 = w
            .iter()
            .enumerate()
            .map(|(i, y)| (i as f64 - xbar) * y)
            .sum();
        sxy / (nf * (nf * nf - 1.0) / 12.0)
    };
    let max_deviation = w.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max);
    Facts {
        n,
        mean,
        min,
        max,
        slope,
        max_deviation,
    }
}

/// Whether a full window with these facts meets `rule`.
fn is_steady(rule: &Rule, f: &Facts) -> bool {
    if f.mean <= 0.0 {
        return false;
    }
    match rule {
        Rule::Snia(r) => {
            f.max - f.min <= r.data_excursion * f.mean
                && f.slope.abs() * (f.n as f64 - 1.0) <= r.slope_excursion * f.mean
        }
        Rule::Fio(r) => {
            let criterion = match r.kind {
                FioKind::Slope => f.slope.abs(),
                FioKind::Deviation => f.max_deviation,
            };
            let limit = if r.relative {
                r.limit * f.mean
            } else {
                r.limit
            };
            criterion < limit
        }
    }
}

/// `x / mean` when the mean is positive.
fn ratio(x: f64, mean: f64) -> Option<f64> {
    (mean > 0.0).then(|| x / mean)
}

/// Judges a series round by round. Push one value per round; the verdict settles when steady state is
/// reached (then only leave detection and `rounds_seen` move) or when `max_rounds` pass without it.
#[derive(Debug, Clone)]
pub struct SteadyDetector {
    rule: Rule,
    leave: Option<LeaveRule>,
    /// The last `window` judged values.
    recent: VecDeque<f64>,
    /// Rounds judged so far (those after the start rule was met).
    judged: usize,
    verdict: Verdict,
}

impl SteadyDetector {
    /// A detector for `rule`, with leave detection when `leave` is given. Fails when either is invalid
    /// ([`Rule::validate`], [`LeaveRule::validate`]).
    pub fn new(rule: Rule, leave: Option<LeaveRule>) -> Result<SteadyDetector, String> {
        rule.validate()?;
        if let Some(l) = &leave {
            l.validate()?;
        }
        Ok(SteadyDetector {
            rule,
            leave,
            recent: VecDeque::with_capacity(rule.window() + 1),
            judged: 0,
            verdict: Verdict {
                reached: false,
                at_round: None,
                at_round_number: None,
                window_first_round: 0,
                window_rounds: 0,
                window_mean: 0.0,
                window_min: 0.0,
                window_max: 0.0,
                slope: 0.0,
                data_excursion: None,
                slope_excursion: None,
                max_deviation: 0.0,
                rounds_seen: 0,
                gave_up: false,
                left: None,
                judged_from_round: Some(0),
                start: None,
            },
        })
    }

    /// The same detector, judging only once `start` is met (no change with `None`). Fails when the rule is
    /// invalid ([`StartRule::validate`]).
    pub fn starting(mut self, start: Option<StartRule>) -> Result<SteadyDetector, String> {
        if let Some(s) = start {
            s.validate()?;
            self.verdict.judged_from_round = None;
            self.verdict.start = Some(Start::new(s));
        }
        Ok(self)
    }

    /// The rule being applied.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// Adds the next round's value (a non-finite value counts as 0), for a detector without a start rule
    /// on written bytes: [`push_round`](Self::push_round) with no bytes written.
    pub fn push(&mut self, value: f64) -> Option<Verdict> {
        self.push_round(value, 0)
    }

    /// Adds the next round: its value (a non-finite value counts as 0) and the bytes the phase wrote in it.
    /// Returns `None` while fewer rounds than the window were judged (nothing judged yet), then the verdict
    /// so far after every round.
    pub fn push_round(&mut self, value: f64, written: u64) -> Option<Verdict> {
        let value = if value.is_finite() { value } else { 0.0 };
        let round = self.verdict.rounds_seen;
        self.verdict.rounds_seen += 1;
        if self.verdict.judged_from_round.is_none() {
            if let Some(s) = self.verdict.start.as_mut()
                && s.take(round, value, written)
            {
                self.verdict.judged_from_round = Some(round + 1);
                self.verdict.window_first_round = round + 1;
            }
            return None;
        }
        let window = self.rule.window();
        self.recent.push_back(value);
        if self.recent.len() > window {
            self.recent.pop_front();
        }
        self.judged += 1;
        let full = self.recent.len() == window;
        if self.verdict.reached {
            self.check_leave(round);
        } else if !self.verdict.gave_up {
            let f = facts(self.recent.make_contiguous());
            self.describe(&f, round + 1 - self.recent.len());
            if full {
                if is_steady(&self.rule, &f) {
                    self.verdict.reached = true;
                    self.verdict.at_round = Some(round);
                    self.verdict.at_round_number = Some(round + 1);
                } else if self.rule.max_rounds().is_some_and(|m| self.judged >= m) {
                    self.verdict.gave_up = true;
                }
            }
        }
        (self.judged >= window).then(|| self.verdict.clone())
    }

    /// The verdict so far (a partial-window description before `window` rounds were seen).
    pub fn verdict(&self) -> Verdict {
        self.verdict.clone()
    }

    /// Copies a window's facts into the verdict.
    fn describe(&mut self, f: &Facts, first_round: usize) {
        let v = &mut self.verdict;
        v.window_first_round = first_round;
        v.window_rounds = f.n;
        v.window_mean = f.mean;
        v.window_min = f.min;
        v.window_max = f.max;
        v.slope = f.slope;
        v.data_excursion = ratio(f.max - f.min, f.mean);
        v.slope_excursion = ratio(f.slope.abs() * (f.n.max(1) as f64 - 1.0), f.mean);
        v.max_deviation = f.max_deviation;
    }

    /// After steady state: records the first round whose trailing window fell below the threshold.
    fn check_leave(&mut self, round: usize) {
        let Some(rule) = self.leave else { return };
        if self.verdict.left.is_some() || self.recent.len() < self.rule.window() {
            return;
        }
        let steady_mean = self.verdict.window_mean;
        let threshold = (1.0 - rule.drop) * steady_mean;
        let mean = facts(self.recent.make_contiguous()).mean;
        if mean < threshold {
            self.verdict.left = Some(Leave {
                at_round: round,
                at_round_number: round + 1,
                window_mean: mean,
                steady_mean,
                threshold,
                fall: ratio(steady_mean - mean, steady_mean),
            });
        }
    }
}

/// Judges a whole series at once (for results): the same as pushing every value into a [`SteadyDetector`]
/// and taking its final verdict, including for a series shorter than the window (a partial, unjudged
/// window).
pub fn evaluate(rule: &Rule, leave: Option<LeaveRule>, series: &[f64]) -> Result<Verdict, String> {
    let mut d = SteadyDetector::new(*rule, leave)?;
    for &v in series {
        d.push(v);
    }
    Ok(d.verdict())
}

/// Judges a whole series of rounds, each its value and the bytes written in it, with a start rule: the
/// same as pushing every round into a [`SteadyDetector`] built with [`SteadyDetector::starting`].
pub fn evaluate_from(
    rule: &Rule,
    leave: Option<LeaveRule>,
    start: Option<StartRule>,
    rounds: &[(f64, u64)],
) -> Result<Verdict, String> {
    let mut d = SteadyDetector::new(*rule, leave)?.starting(start)?;
    for &(v, w) in rounds {
        d.push_round(v, w);
    }
    Ok(d.verdict())
}

crate::vocab::string_only!(FioMetric, FioKind);

#[cfg(test)]
mod tests {
    use super::*;

    fn snia() -> Rule {
        Rule::Snia(SniaRule::default())
    }

    fn fio(kind: FioKind, limit: f64, relative: bool, window: usize) -> Rule {
        Rule::Fio(FioRule {
            metric: FioMetric::Iops,
            kind,
            limit,
            relative,
            window,
        })
    }

    #[test]
    fn flat_series_is_steady_at_the_fifth_round() {
        let v = evaluate(&snia(), None, &[1000.0; 8]).unwrap();
        assert!(v.reached && !v.gave_up);
        assert_eq!((v.at_round, v.at_round_number), (Some(4), Some(5)));
        assert_eq!((v.window_first_round, v.window_rounds), (0, 5));
        assert_eq!(
            (v.window_mean, v.window_min, v.window_max),
            (1000.0, 1000.0, 1000.0)
        );
        assert_eq!(v.slope, 0.0);
        assert_eq!(
            (v.data_excursion, v.slope_excursion),
            (Some(0.0), Some(0.0))
        );
        assert_eq!(v.rounds_seen, 8);
    }

    #[test]
    fn snia_window_by_hand() {
        // 100, 110, 90, 105, 95: mean 500/5 = 100; range 20 → 20 % (≤ 20 %, equality passes).
        // Centred x = −2..2: Σ x·y = −200 − 110 + 0 + 105 + 190 = −15; Σ x² = 10; slope −1.5 per round;
        // line excursion 1.5 × 4 = 6 → 6 %. max |y − mean| = 10.
        let v = evaluate(&snia(), None, &[100.0, 110.0, 90.0, 105.0, 95.0]).unwrap();
        assert!(v.reached);
        assert_eq!(v.at_round, Some(4));
        assert_eq!(v.window_mean, 100.0);
        assert_eq!(v.slope, -1.5);
        assert_eq!(v.data_excursion, Some(0.2));
        assert_eq!(v.slope_excursion, Some(0.06));
        assert_eq!(v.max_deviation, 10.0);
    }

    #[test]
    fn limits_are_inclusive_for_snia_and_strict_for_fio() {
        // Exactly representable: mean 100, range 25 = 0.25 × 100; slope 0
        // (Σ (i − 2)·y = −200 − 112.5 + 87.5 + 225 = 0).
        let s = [100.0, 112.5, 87.5, 87.5, 112.5];
        let at = |de: f64| {
            Rule::Snia(SniaRule {
                data_excursion: de,
                ..SniaRule::default()
            })
        };
        assert!(evaluate(&at(0.25), None, &s).unwrap().reached);
        assert!(!evaluate(&at(0.125), None, &s).unwrap().reached);
        // fio deviation: max |y − 100| = 12.5; reached only when the limit is above it.
        let dev = |limit| evaluate(&fio(FioKind::Deviation, limit, false, 5), None, &s);
        assert!(!dev(12.5).unwrap().reached);
        assert!(dev(12.6).unwrap().reached);
        assert!(
            evaluate(&fio(FioKind::Deviation, 0.126, true, 5), None, &s)
                .unwrap()
                .reached
        );
    }

    #[test]
    fn drift_passes_range_but_fails_slope() {
        // y_k = 1000 + 41k. The window ending at k has mean 1000 + 41(k − 2), range 164 and a line
        // excursion of 41 × 4 = 164: the range needs mean ≥ 820 (always true), the slope needs mean ≥ 1640,
        // first at k = 18 (mean 1656; at k = 17 the mean is 1615 and 164 > 161.5).
        let s: Vec<f64> = (0..25).map(|k| 1000.0 + 41.0 * k as f64).collect();
        let v = evaluate(&snia(), None, &s).unwrap();
        assert_eq!(v.at_round, Some(18));
        assert_eq!((v.window_mean, v.slope), (1656.0, 41.0));
        let before = evaluate(&snia(), None, &s[..18]).unwrap();
        assert!(!before.reached && !before.gave_up);
        assert_eq!(before.window_mean, 1615.0);
        assert!(before.data_excursion.unwrap() <= 0.2 && before.slope_excursion.unwrap() > 0.1);
    }

    #[test]
    fn max_rounds_gives_up_and_none_does_not() {
        // 27 rounds falling by 30 % per round (down to 1e6 × 0.7^26 ≈ 94), then flat at 10: the first
        // steady window is rounds 27..=31, past the 25 allowed.
        let mut s: Vec<f64> = (0..27).map(|k| 1e6 * 0.7f64.powi(k)).collect();
        s.extend([10.0; 10]);
        let v = evaluate(&snia(), None, &s).unwrap();
        assert!(!v.reached && v.gave_up);
        assert_eq!(v.window_first_round, 20);
        assert_eq!(v.rounds_seen, 37);
        let unlimited = Rule::Snia(SniaRule {
            max_rounds: None,
            ..SniaRule::default()
        });
        let v = evaluate(&unlimited, None, &s).unwrap();
        assert_eq!(v.at_round, Some(31));
        assert!(!v.gave_up);
    }

    #[test]
    fn short_series_is_a_partial_unjudged_window() {
        let mut d = SteadyDetector::new(snia(), None).unwrap();
        for x in [100.0, 200.0, 300.0] {
            assert_eq!(d.push(x), None);
        }
        let v = d.verdict();
        assert!(!v.reached && !v.gave_up);
        assert_eq!((v.window_rounds, v.rounds_seen), (3, 3));
        assert_eq!(
            (v.window_mean, v.window_min, v.window_max),
            (200.0, 100.0, 300.0)
        );
        assert_eq!(v.slope, 100.0);
        assert_eq!(v.data_excursion, Some(1.0));
        let empty = evaluate(&snia(), None, &[]).unwrap();
        assert_eq!((empty.window_rounds, empty.window_mean), (0, 0.0));
        assert_eq!(empty.data_excursion, None);
    }

    #[test]
    fn zero_mean_is_never_steady_and_ratios_are_none() {
        for rule in [snia(), fio(FioKind::Deviation, 5.0, false, 5)] {
            let v = evaluate(&rule, None, &[0.0; 10]).unwrap();
            assert!(!v.reached, "{rule:?}");
            assert_eq!((v.data_excursion, v.slope_excursion), (None, None));
        }
        let v = evaluate(&snia(), None, &[f64::NAN, f64::INFINITY, 0.0, 0.0, 0.0]).unwrap();
        assert_eq!(v.window_max, 0.0);
        let json = serde_json::to_string(&v).unwrap();
        assert!(json.contains("\"data_excursion\":null"), "{json}");
    }

    #[test]
    fn fio_slope_absolute_and_relative() {
        // 100, 102, …, 108: slope 2 per round, mean 104.
        let s = [100.0, 102.0, 104.0, 106.0, 108.0];
        let reached = |r: Rule| evaluate(&r, None, &s).unwrap().reached;
        assert!(!reached(fio(FioKind::Slope, 2.0, false, 5)));
        assert!(reached(fio(FioKind::Slope, 2.01, false, 5)));
        // 2 / 104 = 1.92 %.
        assert!(!reached(fio(FioKind::Slope, 0.019, true, 5)));
        assert!(reached(fio(FioKind::Slope, 0.02, true, 5)));
        // fio has no round limit.
        let long: Vec<f64> = (0..100)
            .map(|k| if k < 90 { k as f64 * 100.0 } else { 5.0 })
            .collect();
        assert_eq!(
            evaluate(&fio(FioKind::Slope, 0.5, false, 5), None, &long)
                .unwrap()
                .at_round,
            Some(94)
        );
    }

    #[test]
    fn leave_after_steady_plateau() {
        // Steady at round 4 with mean 10000; from round 8 the drive delivers 6000. Trailing means:
        // round 8: (4·10000 + 6000)/5 = 9200, 9: 8400, 10: 7600 < 8000 = (1 − 0.2)·10000 → left at 10.
        let mut s = vec![10000.0; 8];
        s.extend([6000.0; 5]);
        let v = evaluate(&snia(), Some(LeaveRule { drop: 0.2 }), &s).unwrap();
        assert_eq!(v.at_round, Some(4));
        let l = v.left.unwrap();
        assert_eq!((l.at_round, l.at_round_number), (10, 11));
        assert_eq!(
            (l.window_mean, l.steady_mean, l.threshold),
            (7600.0, 10000.0, 8000.0)
        );
        assert_eq!(l.fall, Some(0.24));
        // Without the rule, or with a larger drop, nothing is reported.
        assert!(evaluate(&snia(), None, &s).unwrap().left.is_none());
        let big = evaluate(&snia(), Some(LeaveRule { drop: 0.5 }), &s).unwrap();
        assert!(big.left.is_none());
    }

    #[test]
    fn detector_settles_and_keeps_counting() {
        let mut d = SteadyDetector::new(snia(), None).unwrap();
        let mut first = None;
        for k in 0..12 {
            if let Some(v) = d.push(500.0)
                && v.reached
                && first.is_none()
            {
                first = Some(k);
            }
        }
        assert_eq!(first, Some(4));
        let v = d.verdict();
        assert_eq!(
            (v.at_round, v.rounds_seen, v.window_first_round),
            (Some(4), 12, 0)
        );
    }

    #[test]
    fn invalid_rules_are_refused_with_reasons() {
        let e = SteadyDetector::new(
            Rule::Snia(SniaRule {
                max_rounds: Some(3),
                ..SniaRule::default()
            }),
            None,
        )
        .unwrap_err();
        assert!(e.contains("max_rounds 3") && e.contains("never"), "{e}");
        let e = evaluate(&fio(FioKind::Slope, 1.0, false, 1), None, &[]).unwrap_err();
        assert!(e.contains("at least 2"), "{e}");
        let e = evaluate(&fio(FioKind::Slope, f64::NAN, false, 5), None, &[]).unwrap_err();
        assert!(e.contains("finite"), "{e}");
        let e = evaluate(&snia(), Some(LeaveRule { drop: 1.5 }), &[]).unwrap_err();
        assert!(e.contains("between 0 and 1"), "{e}");
    }

    #[test]
    fn rules_round_trip_and_refuse_unknown_keys() {
        let r: Rule = serde_json::from_str(r#"{"rule":"snia"}"#).unwrap();
        assert_eq!(r, snia());
        let r: Rule = serde_json::from_str(r#"{"rule":"snia","max_rounds":null}"#).unwrap();
        assert_eq!(r.max_rounds(), None);
        let f = fio(FioKind::Deviation, 0.2, true, 30);
        let back: Rule = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(back, f);
        assert!(serde_json::from_str::<Rule>(r#"{"rule":"snia","windwo":5}"#).is_err());
        let v = evaluate(&snia(), Some(LeaveRule { drop: 0.2 }), &[1.0; 9]).unwrap();
        let back: Verdict = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        assert_eq!(back, v);
    }

    fn flat_rounds(n: usize, value: f64, written: u64) -> Vec<(f64, u64)> {
        vec![(value, written); n]
    }

    #[test]
    fn written_start_holds_judging_back_to_the_round_after_it() {
        // 100 B a round, 450 B needed: 500 B by the end of round 4, so rounds 5.. are judged and the flat
        // series is steady at round 9 (window 5..=9), not 4.
        let start = StartRule {
            written_bytes: Some(450),
            drop: None,
        };
        let rounds = flat_rounds(12, 1000.0, 100);
        let v = evaluate_from(&snia(), None, Some(start), &rounds).unwrap();
        assert_eq!(v.judged_from_round, Some(5));
        assert_eq!(
            (v.at_round, v.window_first_round, v.window_rounds),
            (Some(9), 5, 5)
        );
        let s = v.start.unwrap();
        assert_eq!((s.written_bytes, s.written_round), (500, Some(4)));
        assert_eq!((s.peak, s.drop_round, s.dropped_to), (None, None, None));
        // Exactly the amount by the end of a round: that round met it.
        let exact = StartRule {
            written_bytes: Some(500),
            drop: None,
        };
        let v = evaluate_from(&snia(), None, Some(exact), &rounds).unwrap();
        assert_eq!((v.judged_from_round, v.at_round), (Some(5), Some(9)));
        // Without a start rule: from round 0, as before.
        let v = evaluate_from(&snia(), None, None, &rounds).unwrap();
        assert_eq!(
            (v.judged_from_round, v.at_round, v.start),
            (Some(0), Some(4), None)
        );
    }

    #[test]
    fn a_cliff_inside_the_first_round_is_not_a_drop() {
        // Trial P5 (docs/spec.md, "A cliff inside the first round is not a drop"): a plateau of 40000 for 10 s
        // of a 60 s round, then 8000 (a fifth): the first round's mean is (10·40000 + 50·8000) / 60 = 13333.3,
        // and 8000 is above half of it. f = 1/6, f / (1 + f) = 1/7 < 8000 / 40000: never judged.
        let first = (10.0 * 40000.0 + 50.0 * 8000.0) / 60.0;
        let mut rounds = vec![(first, 0)];
        rounds.extend([(8000.0, 0); 20]);
        let start = StartRule {
            written_bytes: None,
            drop: Some(0.5),
        };
        let v = evaluate_from(&snia(), None, Some(start), &rounds).unwrap();
        assert_eq!((v.judged_from_round, v.at_round), (None, None));
        let s = v.start.unwrap();
        assert_eq!((s.peak, s.drop_round), (Some(first), None));
        // The plateau for 20 s of the round (f = 1/3, f / (1 + f) = 1/4 > 1/5): the next round is a drop.
        rounds[0].0 = (20.0 * 40000.0 + 40.0 * 8000.0) / 60.0;
        let v = evaluate_from(&snia(), None, Some(start), &rounds).unwrap();
        assert_eq!(
            (v.judged_from_round, v.start.unwrap().drop_round),
            (Some(2), Some(1))
        );
    }

    #[test]
    fn drop_start_waits_for_the_cliff() {
        // The plateau (40000) would be steady at round 4; the drop to 10000 (< 0.5 × 40000) is round 5, so
        // rounds 6.. are judged: 12000, 11000, 11500, 11800, 11600 has mean 11580, range 1000 (8.6 %) and
        // slope (−2·12000 − 11000 + 11800 + 2·11600) / 10 = 0: steady at round 10.
        let mut y = vec![40000.0; 5];
        y.push(10000.0);
        y.extend([12000.0, 11000.0, 11500.0, 11800.0, 11600.0, 11700.0]);
        let rounds: Vec<(f64, u64)> = y.iter().map(|&v| (v, 0)).collect();
        let start = StartRule {
            written_bytes: None,
            drop: Some(0.5),
        };
        let v = evaluate_from(&snia(), None, Some(start), &rounds).unwrap();
        assert_eq!(v.judged_from_round, Some(6));
        assert_eq!((v.at_round, v.window_first_round), (Some(10), 6));
        assert_eq!((v.window_mean, v.slope), (11580.0, 0.0));
        let s = v.start.unwrap();
        assert_eq!(
            (s.peak, s.drop_round, s.dropped_to),
            (Some(40000.0), Some(5), Some(10000.0))
        );
        assert_eq!(evaluate(&snia(), None, &y).unwrap().at_round, Some(4));
        // The peak is the highest round before the drop: 100, 200, 300, then 140 < 150.
        let ramp = [(100.0, 0), (200.0, 0), (160.0, 0), (300.0, 0), (140.0, 0)];
        let v = evaluate_from(&snia(), None, Some(start), &ramp).unwrap();
        let s = v.start.unwrap();
        assert_eq!(
            (s.peak, s.drop_round, v.judged_from_round),
            (Some(300.0), Some(4), Some(5))
        );
    }

    #[test]
    fn both_conditions_wait_for_the_later_and_max_rounds_counts_judged_rounds() {
        // Drop at round 1 (100 → 40), 250 B written by the end of round 4 (50 B a round, 250 needed):
        // judged from round 5.
        let mut rounds = vec![(100.0, 50), (40.0, 50)];
        rounds.extend(flat_rounds(10, 40.0, 50));
        let start = StartRule {
            written_bytes: Some(250),
            drop: Some(0.5),
        };
        let v = evaluate_from(&snia(), None, Some(start), &rounds).unwrap();
        assert_eq!(v.judged_from_round, Some(5));
        let s = v.start.as_ref().unwrap();
        assert_eq!(
            (s.written_round, s.drop_round, s.written_bytes),
            (Some(4), Some(1), 250)
        );
        // max_rounds 5 counts from round 5: the window 5..=9 is the fifth judged round, within the limit.
        let five = Rule::Snia(SniaRule {
            max_rounds: Some(5),
            ..SniaRule::default()
        });
        let v = evaluate_from(&five, None, Some(start), &rounds).unwrap();
        assert_eq!((v.reached, v.at_round, v.gave_up), (true, Some(9), false));
    }

    #[test]
    fn a_start_never_met_judges_nothing() {
        let start = StartRule {
            written_bytes: Some(10_000),
            drop: Some(0.5),
        };
        let mut d = SteadyDetector::new(snia(), Some(LeaveRule { drop: 0.2 }))
            .unwrap()
            .starting(Some(start))
            .unwrap();
        for _ in 0..30 {
            assert_eq!(d.push_round(500.0, 100), None);
        }
        let v = d.verdict();
        assert!(!v.reached && !v.gave_up);
        assert_eq!(
            (v.judged_from_round, v.window_rounds, v.rounds_seen),
            (None, 0, 30)
        );
        let s = v.start.unwrap();
        assert_eq!(
            (s.written_bytes, s.written_round, s.peak),
            (3000, None, Some(500.0))
        );
        let json = serde_json::to_string(&d.verdict()).unwrap();
        assert!(json.contains("\"judged_from_round\":null"), "{json}");
        let e = SteadyDetector::new(snia(), None)
            .unwrap()
            .starting(Some(StartRule {
                written_bytes: None,
                drop: None,
            }))
            .unwrap_err();
        assert!(e.contains("`written` or `drop`"), "{e}");
        let e = evaluate_from(
            &snia(),
            None,
            Some(StartRule {
                written_bytes: None,
                drop: Some(1.0),
            }),
            &[],
        )
        .unwrap_err();
        assert!(e.contains("between 0 and 1"), "{e}");
    }

    #[test]
    fn a_verdict_without_judged_from_round_reads_as_judged_from_the_start() {
        let v = evaluate(&snia(), None, &[1.0; 6]).unwrap();
        let mut json: serde_json::Value = serde_json::to_value(&v).unwrap();
        json.as_object_mut().unwrap().remove("judged_from_round");
        let back: Verdict = serde_json::from_value(json).unwrap();
        assert_eq!(back.judged_from_round, Some(0));
    }
}
