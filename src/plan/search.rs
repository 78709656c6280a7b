//! Latency-target searches in the plan (`latency_target` with a list of queue depths,
//! [`crate::spec::latency_target`]): the phase list holds every step, one phase per queue depth in
//! increasing order (expansion wrote them out); a [`SearchPlan`] says where they are and what they hold,
//! so that the runner can skip the steps after the first one over the target. The results keep it
//! (`latency_searches[].plan`).

use crate::spec::LoadedSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One search as planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchPlan {
    /// The `[[phase]]`'s name (its steps are `<name>[qd=N]`).
    pub name: String,
    /// Index of the first step's phase.
    pub first_phase: usize,
    /// Steps: phases `first_phase` to `first_phase + steps − 1`, one per queue depth, in increasing depth.
    pub steps: usize,
    /// The percentile held under the target, above 0 and at most 100.
    pub percentile: f64,
    /// The target, ns.
    pub target_ns: u64,
}

impl SearchPlan {
    /// The target in words, as the console, the report and compare say it: `p99 under 2ms`.
    pub fn target_words(&self) -> String {
        format!(
            "p{} under {}",
            self.percentile,
            crate::units::Duration(self.target_ns)
        )
    }

    /// Whether the search plans phase `index`.
    pub fn holds(&self, index: usize) -> bool {
        (self.first_phase..self.first_phase + self.steps).contains(&index)
    }
}

/// The searches of `spec`: each run of consecutive phases from one `[[phase]]` with `latency_target`
/// (the rules made sure there are at least two, varying the queue depth alone).
pub fn searches(spec: &LoadedSpec) -> Vec<SearchPlan> {
    let mut out: Vec<SearchPlan> = Vec::new();
    for (i, p) in spec.phases.iter().enumerate() {
        let Some(target) = p.latency_target else {
            continue;
        };
        let origin = p.origin.unwrap_or(i);
        if let Some(s) = out.last_mut().filter(|s| {
            s.first_phase + s.steps == i && spec.phases[s.first_phase].origin.unwrap_or(i) == origin
        }) {
            s.steps += 1;
            continue;
        }
        out.push(SearchPlan {
            name: spec
                .file
                .phase
                .get(origin)
                .map_or_else(|| p.name.clone(), |t| t.name.clone()),
            first_phase: i,
            steps: 1,
            percentile: p
                .latency_percentile
                .unwrap_or(crate::spec::latency_target::DEFAULT_PERCENTILE),
            target_ns: target.0,
        });
    }
    out
}
