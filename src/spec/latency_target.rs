//! `latency_target` (fio's `latency_target` and `latency_percentile`): the highest queue depth at which a
//! latency percentile stays under a target. A workload with `latency_target` and a list of queue depths
//! expands as any matrix, one phase per depth (the search's steps); the plan groups them
//! (`plan::search`) and the runner runs them in order, skipping the steps after the first one
//! over the target, as a steady block of rounds skips its rounds left. The rules here need no target: the
//! values ([`check_values`], per phase) and the steps ([`check_steps`], after expansion).

use super::rules::RuleError;
use super::{PhaseKind, PhaseSpec};

/// The default percentile: p99.
pub const DEFAULT_PERCENTILE: f64 = 99.0;

fn err(table: usize, phase: usize, key: &str, message: String, help: &str) -> RuleError {
    RuleError {
        path: format!("phase[{table}].{key}"),
        phase: Some(phase),
        message,
        help: Some(help.to_string()),
        limit: false,
        also: &[],
    }
}

/// The values of phase `i`: a target above 0, a percentile in (0, 100] and only with a target.
pub fn check_values(phases: &[PhaseSpec], i: usize) -> Option<RuleError> {
    let p = &phases[i];
    let table = p.origin.unwrap_or(i);
    if let Some(q) = p.latency_percentile {
        if !(q > 0.0 && q <= 100.0) {
            return Some(err(
                table,
                i,
                "latency_percentile",
                format!("latency_percentile = {q} is not a percentile above 0 and at most 100"),
                "latency_percentile = 99 holds the 99th percentile under latency_target (100: the largest latency)",
            ));
        }
        if p.latency_target.is_none() {
            return Some(err(
                table,
                i,
                "latency_percentile",
                "latency_percentile is the percentile a latency_target holds, and this phase has no latency_target".into(),
                "give latency_target (the latency to stay under), or omit latency_percentile",
            ));
        }
    }
    if p.latency_target.is_some_and(|t| t.0 == 0) {
        return Some(err(
            table,
            i,
            "latency_target",
            "latency_target is 0: no I/O completes in no time".into(),
            "give the latency to stay under, above 0: latency_target = \"500us\"",
        ));
    }
    None
}

/// The steps of each search, after expansion: a workload given `latency_target` and a list of at least
/// two queue depths, in increasing order, and no other list, sweep or block of rounds. One error per
/// `[[phase]]` at most, at its `latency_target`.
pub fn check_steps(phases: &[PhaseSpec]) -> Vec<RuleError> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for (i, p) in phases.iter().enumerate() {
        let table = p.origin.unwrap_or(i);
        if p.latency_target.is_none() || p.kind != PhaseKind::Workload || seen.contains(&table) {
            continue;
        }
        seen.push(table);
        let steps: Vec<&PhaseSpec> = phases
            .iter()
            .enumerate()
            .filter(|(j, q)| q.origin.unwrap_or(*j) == table)
            .map(|(_, q)| q)
            .collect();
        if let Some(e) = steps_problem(&steps) {
            out.push(err(table, i, "latency_target", e.0, e.1));
        }
    }
    out
}

/// What is wrong with a search's steps (the phases of one `[[phase]]`), and the way out.
fn steps_problem(steps: &[&PhaseSpec]) -> Option<(String, &'static str)> {
    const LIST: &str = "give queue_depth a list to search, in increasing order: queue_depth = [1, 2, 4, 8, 16, 32, 64]";
    if steps.len() < 2 {
        return Some((
            "latency_target searches over queue depths, and this phase has one".into(),
            LIST,
        ));
    }
    if steps
        .iter()
        .any(|s| s.round.is_some() || s.labels.iter().any(|l| l.key != "qd"))
    {
        return Some((
            "latency_target searches over queue_depth alone, and this phase also varies other keys (a matrix list, a sweep or a [[repeat]] block)".into(),
            "give the other keys one value; search each combination in a phase of its own",
        ));
    }
    let depths: Vec<i64> = steps
        .iter()
        .filter_map(|s| s.queue_depth.as_ref().and_then(|q| q.one()).copied())
        .collect();
    if depths.windows(2).any(|w| w[1] <= w[0]) {
        return Some((
            format!(
                "latency_target's queue depths {depths:?} are not in increasing order: the search stops at the first over the target"
            ),
            LIST,
        ));
    }
    None
}
