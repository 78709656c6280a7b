//! What the io_uring probe for batched completion waits measured and kept: the engine returns it, the
//! results carry it as it is (`phases[].host.completion_waits`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The outcome of the probe for batched completion waits at the start of an io_uring phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitsProbe {
    /// The way the rest of the phase waited: `"each"` (woken per completion) or `"batched"`.
    pub kept: KeptWaits,
    /// I/Os per second of the probe's windows woken per completion.
    pub each_iops: f64,
    /// I/Os per second of its batched windows.
    pub batched_iops: f64,
    /// Each round of the probe, in order: one, or up to 3 when a round's total favoured batched waits but
    /// its windows disagreed (`"unsure"`). The way kept follows the last round. `each_iops` and
    /// `batched_iops` above are of all rounds together.
    pub rounds: Vec<WaitsRound>,
}

/// One round of the probe for batched completion waits: windows woken per completion, batched, batched,
/// per completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitsRound {
    /// I/Os per second of the round's windows woken per completion.
    pub each_iops: f64,
    /// I/Os per second of its batched windows.
    pub batched_iops: f64,
    /// `"won"`: batched waits at least 5 % faster in total and each batched window at least as fast as
    /// each per-completion one (kept); `"lost"`: not 5 % faster in total (per-completion waits kept);
    /// `"unsure"`: 5 % faster in total but not in every window (probed again; after the third round,
    /// per-completion waits kept).
    pub verdict: RoundVerdict,
}

/// What one round of the probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundVerdict {
    /// Batched waits won: kept.
    Won,
    /// Batched waits lost: per-completion waits kept.
    Lost,
    /// Faster in total, not in every window.
    Unsure,
}

/// The minimum wait of a batched wait, µs: a completion is timed up to this much (plus the timer's slack)
/// later than a wait per completion would time it.
pub const MIN_WAIT_US: u32 = 20;

/// The way of waiting for completions that the probe kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeptWaits {
    /// Woken for each completion.
    Each,
    /// Waiting for every I/O in flight, with a minimum wait.
    Batched,
}

impl KeptWaits {
    /// The spelling used in results (`"batched"`).
    pub fn as_str(self) -> &'static str {
        match self {
            KeptWaits::Each => "each",
            KeptWaits::Batched => "batched",
        }
    }

    /// The way in words, for a reader without the results' documentation: `batched (latency up to 20 µs
    /// long)`, `per completion`.
    pub fn words(self) -> String {
        match self {
            KeptWaits::Each => "per completion".into(),
            KeptWaits::Batched => format!("batched (latency up to {MIN_WAIT_US} µs long)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeptWaits;

    #[test]
    fn the_spelling_is_the_serialized_name() {
        for k in [KeptWaits::Each, KeptWaits::Batched] {
            assert_eq!(serde_json::to_value(k).ok(), Some(k.as_str().into()));
        }
    }
}
