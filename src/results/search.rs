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

/// How search `r` ended, its latencies in words by `latency` (of ns): `QD 1 (QD 4 was over, at 3.81 ms)`,
/// `QD 64 (every step was under; a deeper queue may be too)`, `not reachable at QD 1: its p99 was 3.12
/// ms`; `None` while it goes on. The one wording of the answer for the console's line after a search
/// (`run/search.rs`), the report and compare ([`summary`]).
pub fn answer(r: &SearchResult, latency: &dyn Fn(u64) -> String) -> Option<String> {
    let last = r.steps.last()?;
    let at = |s: &SearchPoint| s.latency_ns.map_or("no I/O".into(), latency);
    Some(match r.verdict {
        SearchVerdict::Found => format!(
            "QD {} (QD {} was over, at {})",
            r.queue_depth.unwrap_or(0),
            last.queue_depth,
            at(last)
        ),
        SearchVerdict::AllUnder => format!(
            "QD {} (every step was under; a deeper queue may be too)",
            last.queue_depth
        ),
        SearchVerdict::NotReachable => format!(
            "not reachable at QD {}: its p{} was {}",
            last.queue_depth,
            r.plan.percentile,
            at(last)
        ),
        SearchVerdict::Open => return None,
    })
}

/// Search `r` in words, as the report (under its group's heading) and compare (a note) say it (trial 26
/// L1: the report listed the steps with no target, no answer and nothing of the depths skipped): its target,
/// its answer ([`answer`]; `not finished` while open), the depths its steps ran at, and the steps it skipped,
/// by their names in `planned` (the run's planned phases) where given, else by index: `latency target p99
/// under 2ms: QD 1 (QD 4 was over, at 3.81 ms); ran QD 1, 4; skipped (not run) lat[qd=16], lat[qd=64]`.
pub fn summary(
    r: &SearchResult,
    planned: Option<&[super::planned::PlannedPhase]>,
    latency: &dyn Fn(u64) -> String,
) -> String {
    let ran: Vec<String> = r.steps.iter().map(|s| s.queue_depth.to_string()).collect();
    let outcome = answer(r, latency).unwrap_or_else(|| {
        format!(
            "not finished ({} of its {} steps ran)",
            r.steps.len(),
            r.plan.steps
        )
    });
    let mut t = format!(
        "latency target {}: {outcome}; ran QD {}",
        r.plan.target_words(),
        ran.join(", ")
    );
    if let Some(range) = skips(r) {
        let name = |i: usize| {
            (planned.unwrap_or_default().iter())
                .find(|p| p.index == i)
                .map_or(format!("phase {i}"), |p| p.name.clone())
        };
        let names: Vec<String> = range.map(name).collect();
        t.push_str(&format!("; skipped (not run) {}", names.join(", ")));
    }
    t
}

/// The phases a search skips: those after its first step over the target, when one was.
pub fn skips(r: &SearchResult) -> Option<std::ops::Range<usize>> {
    let over = r.steps.iter().find(|s| !s.under)?;
    let end = r.plan.first_phase + r.plan.steps;
    (over.phase + 1 < end).then_some(over.phase + 1..end)
}
