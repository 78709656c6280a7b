//! Blocks of rounds (`[[repeat]]`) in the plan. The plan's phase list holds every round of a block, up to
//! its `max_rounds` (expansion wrote them out, [`crate::spec::expand`]); a [`RoundBlock`] says where they
//! are, which phase and figure are tracked and by which rule, so that the runner can end the block once the
//! tracked figure is steady and skip the rounds left. The results keep it (`round_blocks[].plan`), so that a
//! merge judges merged rounds by the same definition.

use super::{Plan, Work};
use crate::spec::LoadedSpec;
use crate::stats::steady::SniaRule;
use crate::vocab::{Expect, Metric};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One block of rounds as planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundBlock {
    /// The block's name (`[[repeat]]`'s `name`).
    pub name: String,
    /// Index of the first phase of round 1.
    pub first_phase: usize,
    /// Phases in one round: round `r` (from 1) is phases `first_phase + (r − 1) × phases_per_round` to
    /// `first_phase + r × phases_per_round − 1`.
    pub phases_per_round: usize,
    /// The most rounds the block runs.
    pub max_rounds: u32,
    /// The phases of a round, by name without the round label (the block's cells), in order.
    pub cells: Vec<String>,
    /// The tracking variable.
    pub track: TrackPlan,
    /// The SNIA PTS rule over rounds: the window (rounds), the excursion limits and, as `max_rounds`, the
    /// block's.
    pub rule: SniaRule,
}

/// The tracking variable of a block: a figure of one cell of each round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackPlan {
    /// The cell's name (without the round label).
    pub phase: String,
    /// Its position in a round, from 0.
    pub cell: usize,
    /// The figure of its result.
    pub metric: Metric,
}

impl RoundBlock {
    /// The index of the phase of round `round` (from 1) in cell `cell` (from 0).
    pub fn phase(&self, round: u32, cell: usize) -> usize {
        self.first_phase + (round as usize - 1) * self.phases_per_round + cell
    }

    /// One past the index of the block's last planned phase.
    pub fn end(&self) -> usize {
        self.phase(self.max_rounds + 1, 0)
    }

    /// Whether the block plans phase `index`.
    pub fn holds(&self, index: usize) -> bool {
        (self.first_phase..self.end()).contains(&index)
    }

    /// The round (from 1) and cell (from 0) of phase `index`, when the block holds it.
    pub fn round_of(&self, index: usize) -> Option<(u32, usize)> {
        let at = index.checked_sub(self.first_phase)?;
        let per = self.phases_per_round.max(1);
        let round = u32::try_from(at / per + 1).ok()?;
        (round <= self.max_rounds).then_some((round, at % per))
    }
}

/// The blocks of `spec`'s rounds, from the expanded phases' round tags (every block has at least one phase
/// in each round: the rules refuse a `[[repeat]]` without phases or without its tracking phase).
pub fn blocks(spec: &LoadedSpec) -> Vec<RoundBlock> {
    spec.file
        .repeat
        .iter()
        .enumerate()
        .filter_map(|(k, r)| {
            let tagged = |round: u32| {
                spec.phases.iter().enumerate().filter(move |(_, p)| {
                    p.round
                        .as_ref()
                        .is_some_and(|t| t.block == k && t.round == round)
                })
            };
            let first_phase = tagged(1).next()?.0;
            let cells: Vec<String> = tagged(1)
                .filter_map(|(_, p)| p.round.as_ref().map(|t| t.cell.clone()))
                .collect();
            let cell = cells.iter().position(|c| *c == r.track.phase)?;
            Some(RoundBlock {
                name: r.name.clone(),
                first_phase,
                phases_per_round: cells.len(),
                max_rounds: r.rounds(),
                track: TrackPlan {
                    phase: r.track.phase.clone(),
                    cell,
                    metric: r.track.metric,
                },
                rule: r.rule(),
                cells,
            })
        })
        .collect()
}

/// With `--from` past the end of a block of rounds: a verify phase from there on that expects the last
/// writer of each sector cannot know it where the block wrote, since which of its rounds ran (it ends when
/// steady) is not known to this run.
///
/// # Errors
/// The first such verify phase, its block and the ways out.
pub fn check_from(plan: &Plan) -> Result<(), String> {
    let from = plan.start_at;
    for v in plan.phases.iter().skip(from) {
        let Work::Verify(w) = &v.work else {
            continue;
        };
        if w.expect != Expect::LastWriter {
            continue;
        }
        let past = plan.round_blocks.iter().filter(|b| b.end() <= from);
        let wrote = |b: &&RoundBlock| {
            plan.phases[b.first_phase..b.end()].iter().any(|p| {
                p.written_range()
                    .is_some_and(|r| r.start < v.span.end() && v.span.start < r.end())
            })
        };
        if let Some(b) = past.into_iter().find(wrote) {
            return Err(format!(
                "--from {:?} starts after block \"{}\" (phases {} to {}), which ends when steady: which of its rounds an earlier run ran is not known here, so verify phase \"{}\" cannot expect the last writer of the sectors the block wrote; give --set phase.{}.expect=header (stamps and offsets checked, not which write), or start --from inside the block",
                plan.phases[from].name,
                b.name,
                b.first_phase,
                b.end() - 1,
                v.name,
                v.name
            ));
        }
    }
    Ok(())
}
