//! A block of rounds judged from its phases' results (`round_blocks[]` of `results.json`): each complete
//! round's tracking value, the SNIA PTS rule over the rounds ([`crate::stats::steady`]), the measurement
//! window and the averages of every cell over it. One function ([`judge`]) for a run, after each round (the
//! runner ends the block when it says steady), and for `wkrun merge` and the aggregate of several targets,
//! over the merged phases.

use super::PhaseResult;
use crate::plan::RoundBlock;
use crate::stats::steady::{Rule, evaluate};
use crate::vocab::{Metric, Quantity};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One block of rounds: what ran, the tracking value of each round, the rule's verdict and the measurement
/// window's averages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundBlockResult {
    /// The block's name (`[[repeat]]`'s `name`).
    pub name: String,
    /// The block as planned: where its rounds are among the phases, the tracking phase and metric, the rule.
    pub plan: RoundBlock,
    /// Every complete round, in order: rounds whose phases all ran to their bound (a round a run stopped in,
    /// or one that `--from` starts inside, is not one).
    pub rounds: Vec<Round>,
    /// The measurement window, rounds from `first` to `last` (round numbers, inclusive): the first steady
    /// window when `steady`; otherwise the last `rule.window` rounds, or every round when there are fewer
    /// (then it cannot be steady). `null` before a round completed.
    pub window: Option<RoundWindow>,
    /// Mean of the window's tracking values (0 without a window).
    pub window_mean: f64,
    /// Smallest tracking value of the window.
    pub window_min: f64,
    /// Largest tracking value of the window.
    pub window_max: f64,
    /// `window_max − window_min`, in the metric's unit.
    pub range: f64,
    /// Slope of the least-squares line through the window's tracking values (against the round number), in
    /// the metric's unit per round.
    pub slope: f64,
    /// `range / window_mean`, a fraction: within `rule.data_excursion` for a steady window; `null` when the
    /// mean is not positive.
    pub data_excursion: Option<f64>,
    /// `|slope| × (window rounds − 1) / window_mean`, a fraction: the least-squares line's excursion across
    /// the window, within `rule.slope_excursion` for a steady window; `null` when the mean is not positive.
    pub slope_excursion: Option<f64>,
    /// Whether the window is a full window that meets the rule.
    pub steady: bool,
    /// The round that completed the first steady window (its last round); `null` when not steady.
    pub steady_at_round: Option<u32>,
    /// The earliest round the rule could have declared steady: the `rule.window`-th complete round (the
    /// last of the first full window); `null` before a round completed. A `steady_at_round` equal to it is
    /// the rule's floor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub earliest_steady_round: Option<u32>,
    /// True when steady at `earliest_steady_round`: the first full window was steady, so the round count says
    /// when the rule could first declare it, not when the drive settled.
    #[serde(default)]
    pub at_rule_floor: bool,
    /// Why no full window was judged, when none was (fewer complete rounds than `rule.window`); absent when
    /// one was. Reports say "not judged" with it rather than "not steady".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<String>,
    /// How the block ended.
    pub ended: BlockEnd,
    /// The rounds a steady block did not run, as planned (in a merge: that not every merged run ran); `null`
    /// unless `ended` is `steady` before `max_rounds`.
    pub skipped: Option<Skipped>,
    /// Per cell (each phase of a round, in round order): the mean of its figures over the window's rounds,
    /// the values a PTS report gives; empty without a window.
    pub cells: Vec<CellResult>,
    /// The SNIA PTS DIRTH operating points (MaxIOPS, the knee; MidIOPS; MinIOPS) when the cells differ only
    /// in outstanding I/O (workers × queue depth): [`super::knee`] has the rule. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demand_intensity: Option<super::knee::DemandIntensity>,
    /// For a merge (`wkrun merge`, the aggregate of several targets): the complete rounds of each merged run,
    /// in the merge's order; the merged block has the rounds every one of them completed. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds_by_run: Vec<u32>,
}

/// One complete round of a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Round {
    /// The round's number, from 1 (as the PTS counts rounds, and as its phases' `round` label says).
    pub index: u32,
    /// The tracked figure (`plan.track.metric`) of the round's tracking phase.
    pub tracking_value: f64,
    /// The index of the round's tracking phase.
    pub tracking_phase: usize,
}

/// A window of rounds, by round number, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundWindow {
    /// The first round of the window.
    pub first: u32,
    /// The last round of the window.
    pub last: u32,
}

/// The planned rounds of a block that did not run, and their phases, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Skipped {
    /// The first round not run.
    pub first_round: u32,
    /// The last round not run: the block's `max_rounds`.
    pub last_round: u32,
    /// The index of the first phase not run.
    pub first_phase: usize,
    /// The index of the last phase not run.
    pub last_phase: usize,
}

/// How a block of rounds ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlockEnd {
    /// Its tracking value was steady: the rounds left were skipped.
    Steady,
    /// It ran all `max_rounds` rounds without being steady: the window is the last rounds.
    MaxRounds,
    /// Neither yet: the run (or a merged run) stopped inside the block, or is still in it.
    Open,
}

/// The figures of one cell of a block over the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellResult {
    /// The cell's name: its phases' name without the round label (`iops[bs=4KiB,read=65]`).
    pub name: String,
    /// The phases averaged: the cell's phase of each round of the window, by index.
    pub phases: Vec<usize>,
    /// The means of their figures.
    pub figures: Figures,
}

/// One of each [`Metric`] of a phase result, or of a cell over a window: the mean of its rounds' rates and
/// mean latencies, the largest of their largest latencies. A direction's latencies are `null` where the
/// cell made no I/O in it (a write-only cell has no read latency: a mean of no reads is not 0).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    /// Reads and writes per second.
    pub iops: f64,
    /// Reads per second.
    pub read_iops: f64,
    /// Writes per second.
    pub write_iops: f64,
    /// Bytes read and written per second.
    pub bw_bytes_per_s: f64,
    /// Bytes read per second.
    pub read_bw_bytes_per_s: f64,
    /// Bytes written per second.
    pub write_bw_bytes_per_s: f64,
    /// Mean latency, ns.
    pub lat_mean_ns: f64,
    /// Mean read latency, ns; null without reads.
    pub read_lat_mean_ns: Option<f64>,
    /// Mean write latency, ns; null without writes.
    pub write_lat_mean_ns: Option<f64>,
    /// Largest latency, ns.
    pub lat_max_ns: f64,
    /// Largest read latency, ns; null without reads.
    pub read_lat_max_ns: Option<f64>,
    /// Largest write latency, ns; null without writes.
    pub write_lat_max_ns: Option<f64>,
}

impl Figures {
    /// The field of metric `m` (`None`: a direction's latency where it had no I/O).
    pub fn get(&self, m: Metric) -> Option<f64> {
        use Metric as M;
        match m {
            M::Iops => Some(self.iops),
            M::ReadIops => Some(self.read_iops),
            M::WriteIops => Some(self.write_iops),
            M::BwBytesPerS => Some(self.bw_bytes_per_s),
            M::ReadBwBytesPerS => Some(self.read_bw_bytes_per_s),
            M::WriteBwBytesPerS => Some(self.write_bw_bytes_per_s),
            M::LatMeanNs => Some(self.lat_mean_ns),
            M::ReadLatMeanNs => self.read_lat_mean_ns,
            M::WriteLatMeanNs => self.write_lat_mean_ns,
            M::LatMaxNs => Some(self.lat_max_ns),
            M::ReadLatMaxNs => self.read_lat_max_ns,
            M::WriteLatMaxNs => self.write_lat_max_ns,
        }
    }

    /// Sets the field of metric `m` to `v` (a figure of every direction together, or a rate, to 0 for
    /// `None`).
    pub fn set(&mut self, m: Metric, v: Option<f64>) {
        use Metric as M;
        let all = v.unwrap_or(0.0);
        match m {
            M::Iops => self.iops = all,
            M::ReadIops => self.read_iops = all,
            M::WriteIops => self.write_iops = all,
            M::BwBytesPerS => self.bw_bytes_per_s = all,
            M::ReadBwBytesPerS => self.read_bw_bytes_per_s = all,
            M::WriteBwBytesPerS => self.write_bw_bytes_per_s = all,
            M::LatMeanNs => self.lat_mean_ns = all,
            M::ReadLatMeanNs => self.read_lat_mean_ns = v,
            M::WriteLatMeanNs => self.write_lat_mean_ns = v,
            M::LatMaxNs => self.lat_max_ns = all,
            M::ReadLatMaxNs => self.read_lat_max_ns = v,
            M::WriteLatMaxNs => self.write_lat_max_ns = v,
        }
    }

    /// The figures of `phases` over a window (zeros for none): each rate and mean latency their mean, each
    /// largest latency the largest of theirs (a PTS report's maximum response time is the window's worst
    /// I/O, not the mean of its rounds' worst); a direction's latencies over the phases with I/O in it,
    /// `None` where none has any.
    fn over_window(phases: &[&PhaseResult]) -> Figures {
        let mut f = Figures::default();
        for m in Metric::ALL {
            let values: Vec<f64> = match m.parts().0 {
                // A rate, or a figure of every direction together: 0 where there was none.
                None => phases.iter().map(|p| figure(p, m)).collect(),
                Some(_) => phases.iter().filter_map(|p| figure_of(p, m)).collect(),
            };
            let v = match m.parts().1 {
                _ if values.is_empty() => None,
                Quantity::LatMaxNs => Some(values.iter().copied().fold(0.0, f64::max)),
                _ => Some(values.iter().sum::<f64>() / values.len() as f64),
            };
            f.set(m, v);
        }
        f
    }
}

/// The figure `m` of a phase's result (0 for a latency of a direction without I/O: a tracking value).
pub fn figure(p: &PhaseResult, m: Metric) -> f64 {
    figure_of(p, m).unwrap_or(0.0)
}

/// The figure `m` of a phase's result; `None` for a latency of a direction without I/O.
pub fn figure_of(p: &PhaseResult, m: Metric) -> Option<f64> {
    let (dir, q) = m.parts();
    let d = dir.map_or(&p.total, |d| p.dir(d));
    match q {
        Quantity::Iops => Some(d.iops),
        Quantity::BwBytesPerS => Some(d.bw_bytes_per_s),
        Quantity::LatMeanNs => d.latency_ns.as_ref().map(|l| l.mean),
        Quantity::LatMaxNs => d.latency_ns.as_ref().map(|l| l.max as f64),
    }
}

/// The block `b` judged from `phases` (a run's or a merge's, each once, by index): its complete rounds,
/// from the first to the first that is not (a block's rounds run in order, so later ones are not counted),
/// the rule over their tracking values, the window and its cells' means. `None` when no phase of the block is
/// among `phases`.
pub fn judge(b: &RoundBlock, phases: &[PhaseResult]) -> Option<RoundBlockResult> {
    let by_index: BTreeMap<usize, &PhaseResult> = phases
        .iter()
        .filter(|p| b.holds(p.index))
        .map(|p| (p.index, p))
        .collect();
    if by_index.is_empty() {
        return None;
    }
    let complete = |r: u32| {
        (0..b.phases_per_round).all(|c| by_index.get(&b.phase(r, c)).is_some_and(|p| p.completed))
    };
    let rounds: Vec<Round> = (1..=b.max_rounds)
        .skip_while(|&r| !complete(r))
        .take_while(|&r| complete(r))
        .map(|r| {
            let at = b.phase(r, b.track.cell);
            Round {
                index: r,
                tracking_value: by_index.get(&at).map_or(0.0, |p| figure(p, b.track.metric)),
                tracking_phase: at,
            }
        })
        .collect();
    let values: Vec<f64> = rounds.iter().map(|r| r.tracking_value).collect();
    // The rule's numbers were checked by the spec's rules; a bad one here (a results file edited by hand)
    // judges nothing.
    let v = evaluate(&Rule::Snia(b.rule), None, &values).ok()?;
    let window = (v.window_rounds > 0).then(|| RoundWindow {
        first: rounds[v.window_first_round].index,
        last: rounds[v.window_first_round + v.window_rounds - 1].index,
    });
    let last = rounds.last().map_or(0, |r| r.index);
    let ended = match (v.reached, last >= b.max_rounds) {
        (true, _) => BlockEnd::Steady,
        (false, true) => BlockEnd::MaxRounds,
        (false, false) => BlockEnd::Open,
    };
    let skipped = (ended == BlockEnd::Steady && last < b.max_rounds).then(|| Skipped {
        first_round: last + 1,
        last_round: b.max_rounds,
        first_phase: b.phase(last + 1, 0),
        last_phase: b.end() - 1,
    });
    let cells = window.map_or_else(Vec::new, |w| {
        (0..b.phases_per_round)
            .map(|c| {
                let at: Vec<usize> = (w.first..=w.last).map(|r| b.phase(r, c)).collect();
                let of: Vec<&PhaseResult> =
                    at.iter().filter_map(|i| by_index.get(i).copied()).collect();
                CellResult {
                    name: b.cells.get(c).cloned().unwrap_or_default(),
                    phases: at,
                    figures: Figures::over_window(&of),
                }
            })
            .collect()
    });
    let demand_intensity = window.and_then(|w| {
        let first: Vec<&PhaseResult> = (0..b.phases_per_round)
            .filter_map(|c| by_index.get(&b.phase(w.first, c)).copied())
            .collect();
        super::knee::demand_intensity(&cells, &first)
    });
    let w = b.rule.window as u32;
    let earliest = rounds.first().map(|r| r.index + w - 1);
    let steady_at_round = v.at_round.map(|i| rounds[i].index);
    let n = rounds.len();
    let not_judged = (n < b.rule.window).then(|| {
        format!(
            "{n} complete round{} of the {w} a window needs",
            if n == 1 { "" } else { "s" }
        )
    });
    Some(RoundBlockResult {
        earliest_steady_round: earliest,
        at_rule_floor: steady_at_round.is_some() && steady_at_round == earliest,
        not_judged,
        name: b.name.clone(),
        plan: b.clone(),
        window,
        window_mean: v.window_mean,
        window_min: v.window_min,
        window_max: v.window_max,
        range: v.window_max - v.window_min,
        slope: v.slope,
        data_excursion: v.data_excursion,
        slope_excursion: v.slope_excursion,
        steady: v.reached,
        steady_at_round,
        ended,
        skipped,
        cells,
        demand_intensity,
        rounds,
        rounds_by_run: Vec::new(),
    })
}

/// Every block of `blocks` that has a phase among `phases`, judged ([`judge`]).
pub fn judge_all(blocks: &[RoundBlock], phases: &[PhaseResult]) -> Vec<RoundBlockResult> {
    blocks.iter().filter_map(|b| judge(b, phases)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Figures` has one field per metric, named as the metric is spelt.
    #[test]
    fn figures_has_a_field_per_metric() {
        let mut f = Figures::default();
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            f.set(m, Some(i as f64 + 1.0));
        }
        let json = serde_json::to_value(&f).unwrap();
        let fields = json.as_object().unwrap();
        assert_eq!(fields.len(), Metric::ALL.len());
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            assert_eq!(fields[m.as_str()], i as f64 + 1.0, "{m}");
        }
    }
}
