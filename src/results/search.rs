//! A latency-target search judged from its steps' results (`latency_searches[]` of `results.json`): each
//! step's queue depth, IOPS and latency percentile, the highest queue depth under the target, and the
//! verdict. One function ([`judge`]) for a run, after each step (the runner skips the steps after the first
//! one over the target).

use super::PhaseResult;
use crate::plan::search::SearchPlan;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One step's latency against the target (`phases[].latency_target`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetStep {
    /// The percentile held, above 0 and at most 100.
    pub percentile: f64,
    /// The target, ns.
    pub target_ns: u64,
    /// That percentile of the phase's latencies (every direction together, from submission), ns; null
    /// without a completed I/O.
    pub latency_ns: Option<u64>,
    /// Whether `latency_ns` is at most `target_ns` (false without a completed I/O).
    pub under: bool,
}

impl TargetStep {
    /// The step of a phase whose latencies' `percentile` is `latency_ns`.
    pub fn new(percentile: f64, target_ns: u64, latency_ns: Option<u64>) -> TargetStep {
        TargetStep {
            percentile,
            target_ns,
            latency_ns,
            under: latency_ns.is_some_and(|l| l <= target_ns),
        }
    }
}

/// One search: the curve it walked and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchResult {
    /// The search's `[[phase]]` name.
    pub name: String,
    /// The search as planned: where its steps are, the percentile and the target.
    pub plan: SearchPlan,
    /// The steps that ran, in order (increasing queue depth).
    pub steps: Vec<SearchPoint>,
    /// The answer: the highest queue depth whose percentile was under the target; null when none was.
    pub queue_depth: Option<u32>,
    /// How the search ended.
    pub verdict: SearchVerdict,
}

/// One step of the curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchPoint {
    /// The step's phase index.
    pub phase: usize,
    /// Its queue depth.
    pub queue_depth: u32,
    /// Its IOPS (`total.iops`).
    pub iops: f64,
    /// The percentile of its latencies, ns (null without a completed I/O).
    pub latency_ns: Option<u64>,
    /// Whether it was under the target.
    pub under: bool,
}

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchVerdict {
    /// A step went over the target after one under it: the answer is the last step under it; the steps
    /// after the one over were skipped.
    Found,
    /// Every step was under the target: the answer is the deepest listed, and a deeper queue might still be.
    AllUnder,
    /// The first step (the shallowest queue, QD 1 when the list starts there) was already over the
    /// target: not reachable at that depth; no answer.
    NotReachable,
    /// Not every step ran and none was over (a run interrupted or failed, or started `--from` inside).
    Open,
}

/// Judges `plan` from the phases run so far.
pub fn judge(plan: &SearchPlan, phases: &[PhaseResult]) -> SearchResult {
    let steps: Vec<SearchPoint> = phases
        .iter()
        .filter(|p| plan.holds(p.index) && p.completed)
        .filter_map(|p| {
            let t = p.latency_target.as_ref()?;
            Some(SearchPoint {
                phase: p.index,
                queue_depth: p.params.queue_depth.unwrap_or(1),
                iops: p.total.iops,
                latency_ns: t.latency_ns,
                under: t.under,
            })
        })
        .collect();
    let over = steps.iter().position(|s| !s.under);
    let under_before = |n: usize| steps[..n].last().map(|s| s.queue_depth);
    let (queue_depth, verdict) = match over {
        Some(0) => (None, SearchVerdict::NotReachable),
        Some(n) => (under_before(n), SearchVerdict::Found),
        None if steps.len() == plan.steps => (under_before(steps.len()), SearchVerdict::AllUnder),
        None => (under_before(steps.len()), SearchVerdict::Open),
    };
    SearchResult {
        name: plan.name.clone(),
        plan: plan.clone(),
        steps,
        queue_depth,
        verdict,
    }
}

/// Every search of the plan that ran a step, judged.
pub fn judge_all(plans: &[SearchPlan], phases: &[PhaseResult]) -> Vec<SearchResult> {
    plans
        .iter()
        .filter(|s| phases.iter().any(|p| s.holds(p.index)))
        .map(|s| judge(s, phases))
        .collect()
}

/// The phases a search skips: those after its first step over the target, when one was.
pub fn skips(r: &SearchResult) -> Option<std::ops::Range<usize>> {
    let over = r.steps.iter().find(|s| !s.under)?;
    let end = r.plan.first_phase + r.plan.steps;
    (over.phase + 1 < end).then_some(over.phase + 1..end)
}
