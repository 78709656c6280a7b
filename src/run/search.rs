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

/// The line that says how a search ended (`None` while it goes on): its target and answer
/// ([`crate::results::search::answer`]), a measured latency as the console says every other
/// ([`crate::units::latency`]): `9.45 ms`, not the spec's exact form (`9445375ns`), which the target keeps.
pub fn verdict_line(r: &SearchResult) -> Option<String> {
    let latency = |l: u64| super::progress::latency(l as f64);
    let answer = crate::results::search::answer(r, &latency)?;
    let skipped = match r.verdict {
        SearchVerdict::Found => "; the deeper steps are skipped",
        _ => "",
    };
    Some(format!(
        "[search {}] {}: {answer}{skipped}",
        r.name,
        r.plan.target_words()
    ))
}
