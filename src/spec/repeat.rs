//! `[[repeat]]`: a block of rounds. Consecutive phases make one round; the block runs round after round
//! until a tracked figure of one of its phases (the tracking variable: a phase of the round and a
//! [`Metric`]) is steady over the last `window` rounds by the SNIA PTS rule, or `max_rounds` rounds have
//! run. Expansion ([`super::expand`]) writes every round out, `max_rounds` copies of the block, each phase
//! labelled `round=N` (rounds counted from 1, as the PTS counts them); the runner skips the rounds a steady
//! block no longer needs. The rules here need no target: the numbers, before expansion ([`check_numbers`]),
//! and the tracking phase and metric, after ([`check_tracks`]).

use super::rules::RuleError;
use super::{PhaseKind, PhaseSpec, SpecFile};
use crate::stats::steady::SniaRule;
use crate::vocab::{Direction, Metric};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The label key of a phase's round (`iops[round=3,bs=4KiB,read=65]`, label `{"key": "round", "value":
/// "3"}`).
pub const ROUND_LABEL: &str = "round";

/// `[[repeat]]`: the phases named in `phases` (consecutive `[[phase]]` tables, in that order) make one
/// round, repeated until the tracked figure is steady by the SNIA PTS rule over the last `window` rounds
/// (its data excursion and the excursion of its least-squares line within `data_excursion` and
/// `slope_excursion` of the window's mean), or `max_rounds` rounds have run. Each round's phases are named
/// `<phase>[round=N,...]`, N from 1.
///
/// Example (the PTS IOPS test's loop):
/// ```toml
/// [[repeat]]
/// name = "iops"
/// phases = ["iops"]
/// track = { phase = "iops[bs=4KiB,read=0]", metric = "write_iops" }
/// ```
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeatSpec {
    /// Name of the block, in the results (`round_blocks[].name`) and in messages: ASCII letters, digits and
    /// `- _ . % : +`. Required.
    pub name: String,
    /// Names of the `[[phase]]` tables that make one round: consecutive in the spec, in spec order, in no
    /// `[[sweep]]`. A phase with matrix lists expands inside each round. Required.
    pub phases: Vec<String>,
    /// The tracking variable, judged after each round. Required.
    pub track: Track,
    /// The most rounds the block runs, at least `window`. Default: 25 (the PTS's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pub max_rounds: Option<i64>,
    /// Rounds in the measurement window, at least 2. Default: 5 (the PTS's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pub window: Option<i64>,
    /// Largest allowed max − min of the window's tracked values, as a fraction of their mean, ≥ 0.
    /// Default: 0.2 (20 %).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_excursion: Option<f64>,
    /// Largest allowed excursion of the window's least-squares line from its first round to its last, as a
    /// fraction of the window's mean, ≥ 0. Default: 0.1 (10 %).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slope_excursion: Option<f64>,
}

/// The tracking variable of a `[[repeat]]` block: a figure of one phase of each round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Track {
    /// The phase of the round, by its name without the round label: a phase of the block as expanded by
    /// its matrix lists (`"iops[bs=4KiB,read=0]"`), or the `[[phase]]`'s name when it has none. Required.
    pub phase: String,
    /// The figure of that phase's result: `"iops"`, `"read_iops"`, `"write_iops"`, `"bw_bytes_per_s"`,
    /// `"read_bw_bytes_per_s"`, `"write_bw_bytes_per_s"`, `"lat_mean_ns"`, `"read_lat_mean_ns"`,
    /// `"write_lat_mean_ns"`, `"lat_max_ns"`, `"read_lat_max_ns"` or `"write_lat_max_ns"`. Required.
    pub metric: Metric,
}

/// Set by expansion on every phase of a block: which block (its place among the `[[repeat]]` tables),
/// which round (from 1), and the phase's name without the round label (its cell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundTag {
    /// The block: the index of its `[[repeat]]` table.
    pub block: usize,
    /// The round, from 1.
    pub round: u32,
    /// The phase's name without the round label, the same in every round.
    pub cell: String,
}

/// PTS rounds at most.
pub const DEFAULT_MAX_ROUNDS: u32 = 25;
/// PTS window, rounds.
pub const DEFAULT_WINDOW: u32 = 5;

impl RepeatSpec {
    /// The rounds the block runs at most (its default applied; at least 1, for a block the rules refuse).
    pub fn rounds(&self) -> u32 {
        let n = self.max_rounds.unwrap_or(i64::from(DEFAULT_MAX_ROUNDS));
        u32::try_from(n.max(1)).unwrap_or(u32::MAX)
    }

    /// The SNIA rule over rounds, its defaults applied (valid once [`check_numbers`] passed).
    pub fn rule(&self) -> SniaRule {
        let d = SniaRule::default();
        let window = self.window.unwrap_or(i64::from(DEFAULT_WINDOW));
        SniaRule {
            window: usize::try_from(window).unwrap_or(0),
            max_rounds: Some(self.rounds() as usize),
            data_excursion: self.data_excursion.unwrap_or(d.data_excursion),
            slope_excursion: self.slope_excursion.unwrap_or(d.slope_excursion),
        }
    }
}

fn err(k: usize, field: &str, message: String, help: Option<&str>) -> RuleError {
    RuleError {
        path: match field {
            "" => format!("repeat[{k}]"),
            f => format!("repeat[{k}].{f}"),
        },
        phase: None,
        message,
        help: help.map(str::to_string),
        limit: false,
        also: &[],
    }
}

/// The most rounds a block may have: expansion writes them all out, and the whole spec is bounded by
/// [`super::expand::MAX_PHASES`] phases anyway.
pub const MAX_ROUNDS: i64 = 10_000;

/// The numbers of the `k`-th `[[repeat]]`, checked before expansion (which makes `max_rounds` copies).
///
/// # Errors
/// The first bad number, at its key: a window below 2, `max_rounds` below the window (0 included) or above
/// [`MAX_ROUNDS`], an excursion that is negative or not finite.
pub fn check_numbers(k: usize, r: &RepeatSpec) -> Result<(), RuleError> {
    let window = r.window.unwrap_or(i64::from(DEFAULT_WINDOW));
    if window < 2 {
        return Err(err(
            k,
            "window",
            format!(
                "window = {window}: the measurement window needs at least 2 rounds (a slope needs two)"
            ),
            Some("the PTS window is 5 rounds"),
        ));
    }
    let max = r.max_rounds.unwrap_or(i64::from(DEFAULT_MAX_ROUNDS));
    if max < window {
        return Err(err(
            k,
            "max_rounds",
            format!(
                "max_rounds = {max} is fewer than the window of {window} rounds: the block could never be judged"
            ),
            Some("give max_rounds at least the window (the PTS: 25 rounds, window 5)"),
        ));
    }
    if max > MAX_ROUNDS {
        return Err(err(
            k,
            "max_rounds",
            format!(
                "max_rounds = {max} is more than {MAX_ROUNDS}, the most rounds a block may have"
            ),
            None,
        ));
    }
    for (key, v) in [
        ("data_excursion", r.data_excursion),
        ("slope_excursion", r.slope_excursion),
    ] {
        if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(err(
                k,
                key,
                format!("{key} = {v} must be a finite fraction ≥ 0 (0.2 is 20 %)"),
                None,
            ));
        }
    }
    Ok(())
}

/// The tracking phase and metric of every `[[repeat]]`, after expansion (`phases`, the phases that run).
/// One error per block at most, located at its `track`.
pub fn check_tracks(spec: &SpecFile, phases: &[PhaseSpec]) -> Vec<RuleError> {
    spec.repeat
        .iter()
        .enumerate()
        .filter_map(|(k, r)| check_track(k, r, phases).err())
        .collect()
}

/// The cells of block `k`'s first round: its phases, in order.
fn first_round(k: usize, phases: &[PhaseSpec]) -> impl Iterator<Item = &PhaseSpec> {
    phases.iter().filter(move |p| {
        p.round
            .as_ref()
            .is_some_and(|t| t.block == k && t.round == 1)
    })
}

fn check_track(k: usize, r: &RepeatSpec, phases: &[PhaseSpec]) -> Result<(), RuleError> {
    let want = r.track.phase.as_str();
    let Some(p) = first_round(k, phases).find(|p| p.round.as_ref().is_some_and(|t| t.cell == want))
    else {
        let cells: Vec<String> = first_round(k, phases)
            .filter_map(|p| p.round.as_ref().map(|t| format!("{:?}", t.cell)))
            .collect();
        let elsewhere = phases.iter().any(|p| p.name == want);
        let message = match elsewhere {
            true => format!(
                "the tracking phase \"{want}\" is not in block \"{}\": a block tracks one of its own phases",
                r.name
            ),
            false => format!("block \"{}\" has no phase \"{want}\" to track", r.name),
        };
        let help = format!(
            "name a phase of one round, without its round label: {}",
            cells.join(", ")
        );
        return Err(err(k, "track.phase", message, Some(&help)));
    };
    if p.kind == PhaseKind::Erase {
        return Err(err(
            k,
            "track.phase",
            format!("the tracking phase \"{want}\" is an erase, which has no I/O figures"),
            Some("track a phase that does I/O"),
        ));
    }
    let (dir, _) = r.track.metric.parts();
    let read = match p.kind {
        PhaseKind::Workload => p.read_percent.as_ref().and_then(|v| v.one()).map(|v| v.0),
        PhaseKind::Verify => Some(100),
        _ => Some(0),
    };
    let never = match (dir, read) {
        (Some(Direction::Read), Some(0)) => Some("never reads"),
        (Some(Direction::Write), Some(100)) => Some("never writes"),
        _ => None,
    };
    if let Some(never) = never {
        return Err(err(
            k,
            "track.metric",
            format!(
                "metric \"{}\" of phase \"{want}\", which {never}, is always 0: the block could never be steady",
                r.track.metric
            ),
            Some("track a figure of a direction the phase does, or \"iops\""),
        ));
    }
    Ok(())
}
