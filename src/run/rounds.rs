//! Blocks of rounds in a run: after the last phase of each round, the block is judged again from the
//! results so far ([`crate::results::rounds::judge`]), which says the round's tracking value; once the block
//! is steady, its phases left are skipped: they do not run, write nothing, and have no results. Each target
//! of a run on several targets judges and ends its own blocks (its phases skipped still pass the gate, so
//! the targets keep starting each phase together).

use super::Ctx;
use crate::plan::{Plan, RoundBlock};
use crate::results::Results;
use crate::results::rounds::{BlockEnd, RoundBlockResult, judge_all};
use std::ops::Range;

/// Whether the run skips phase `index`: its block was steady at an earlier round.
pub(super) fn skipped(plan: &Plan, results: &Results, index: usize) -> bool {
    plan.block_of(index)
        .is_some_and(|(_, b)| ended_steady(results, b).is_some())
}

/// The phases a steady block skips (after its last round run, to its last planned phase), if it was steady.
fn ended_steady(results: &Results, b: &RoundBlock) -> Option<Range<usize>> {
    let r = results.round_blocks.iter().find(|r| r.name == b.name)?;
    r.skipped.map(|s| s.first_phase..s.last_phase + 1)
}

/// The phase of this run that ran as phase `index` last: itself, or when a steady block skipped it, the
/// phase of the same cell in the block's last round run (the rounds of a block are alike); `None` when that
/// one is before [`Plan::start_at`] (taken as done, not run).
pub(super) fn ran_as(plan: &Plan, results: &Results, index: usize) -> Option<usize> {
    let mapped = match plan.block_of(index) {
        Some((_, b)) => match (ended_steady(results, b), b.round_of(index)) {
            (Some(s), Some((_, cell))) if s.contains(&index) => {
                (s.start + cell).checked_sub(b.phases_per_round)?
            }
            _ => index,
        },
        None => index,
    };
    (mapped >= plan.start_at).then_some(mapped)
}

/// The phases that every steady block of the run skipped (for a verify phase's replay of what was written).
pub(super) fn skipped_ranges(plan: &Plan, results: &Results) -> Vec<Range<usize>> {
    plan.round_blocks
        .iter()
        .filter_map(|b| ended_steady(results, b))
        .collect()
}

/// After phase `index` was added to the results: when it is the last phase of a round, judges the blocks
/// again and says the round's tracking value and, when the block has ended, how.
pub(super) fn after_phase(ctx: &mut Ctx<'_>, index: usize) {
    let Some((_, b)) = ctx.plan.block_of(index) else {
        return;
    };
    let Some((round, cell)) = b.round_of(index) else {
        return;
    };
    if cell + 1 != b.phases_per_round {
        return;
    }
    ctx.results.round_blocks = judge_all(&ctx.plan.round_blocks, &ctx.results.phases);
    let Some(r) = ctx.results.round_blocks.iter().find(|r| r.name == b.name) else {
        return;
    };
    let lines = round_lines(b, r, round);
    for line in lines {
        ctx.result(&line);
    }
}

/// What a round's end says: its tracking value (when it is a complete round) and how the block stands.
fn round_lines(b: &RoundBlock, r: &RoundBlockResult, round: u32) -> Vec<String> {
    let Some(this) = r.rounds.iter().find(|x| x.index == round) else {
        return Vec::new();
    };
    let head = format!("[block {}] round {round}", b.name);
    let mut out = vec![format!(
        "{head}: {} of {} = {:.1}",
        b.track.metric, b.track.phase, this.tracking_value
    )];
    let window = r
        .window
        .map(|w| {
            format!(
                "rounds {} to {}, mean {:.1}",
                w.first, w.last, r.window_mean
            )
        })
        .unwrap_or_default();
    match (r.ended, r.skipped) {
        (BlockEnd::Steady, Some(s)) => out.push(format!(
            "{head}: steady ({window}): rounds {} to {} (phases {} to {}) are skipped",
            s.first_round, s.last_round, s.first_phase, s.last_phase
        )),
        (BlockEnd::Steady, None) => out.push(format!("{head}: steady ({window})")),
        (BlockEnd::MaxRounds, _) => out.push(format!(
            "{head}: not steady within {} rounds; the measurement window is the last ({window})",
            b.max_rounds
        )),
        (BlockEnd::Open, _) => {}
    }
    out
}
