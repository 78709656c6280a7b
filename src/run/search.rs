//! Latency-target searches in a run: after each step, the search is judged again from the results so far
//! ([`crate::results::search::judge`]); once a step is over the target, the steps after it are skipped:
//! they do not run, write nothing and have no results (with several targets they still pass the gate).

use super::Ctx;
use crate::plan::Plan;
use crate::results::Results;
use crate::results::search::{SearchResult, SearchVerdict, judge_all, skips};
use std::ops::Range;

/// Whether the run skips phase `index`: a step of a search after one that was over the target.
pub(super) fn skipped(plan: &Plan, results: &Results, index: usize) -> bool {
    skipped_ranges(plan, results)
        .iter()
        .any(|r| r.contains(&index))
}

/// The phases every search skipped (for a verify phase's replay of what was written).
pub(super) fn skipped_ranges(plan: &Plan, results: &Results) -> Vec<Range<usize>> {
    results
        .latency_searches
        .iter()
        .filter(|r| plan.latency_searches.contains(&r.plan))
        .filter_map(skips)
        .collect()
}

/// After phase `index` was added to the results: when it is a step of a search, judges the searches again
/// and says where the search stands once it has ended.
pub(super) fn after_phase(ctx: &mut Ctx<'_>, index: usize) {
    let Some(plan) = ctx.plan.latency_searches.iter().find(|s| s.holds(index)) else {
        return;
    };
    let name = plan.name.clone();
    ctx.results.latency_searches = judge_all(&ctx.plan.latency_searches, &ctx.results.phases);
    let Some(r) = ctx.results.latency_searches.iter().find(|r| r.name == name) else {
        return;
    };
    if let Some(line) = verdict_line(r) {
        ctx.result(&line);
    }
}

/// The line that says how a search ended (`None` while it goes on).
pub fn verdict_line(r: &SearchResult) -> Option<String> {
    let p = &r.plan;
    let head = format!(
        "[search {}] p{} under {}",
        r.name,
        p.percentile,
        crate::units::Duration(p.target_ns)
    );
    let last = r.steps.last()?;
    // A measured latency as the console says every other ([`super::progress::latency`]): `9.45 ms`, not
    // the spec's exact form (`9445375ns`), which the target keeps.
    let at = |s: &crate::results::search::SearchPoint| {
        s.latency_ns
            .map_or("no I/O".into(), |l| super::progress::latency(l as f64))
    };
    Some(match r.verdict {
        SearchVerdict::Found => format!(
            "{head}: QD {} (QD {} was over, at {}); the deeper steps are skipped",
            r.queue_depth.unwrap_or(0),
            last.queue_depth,
            at(last)
        ),
        SearchVerdict::AllUnder => format!(
            "{head}: QD {} (every step was under; a deeper queue may be too)",
            last.queue_depth
        ),
        SearchVerdict::NotReachable => format!(
            "{head}: not reachable at QD {}: its p{} was {}",
            last.queue_depth,
            p.percentile,
            at(last)
        ),
        SearchVerdict::Open => return None,
    })
}
