//! Where a run started with `--from` began (`from_phase` of `results.json`): the phase it started at and
//! the phases before it, which it took as done and did not run, each by index, name and kind, written with
//! the run's first `results.json`. One definition of "taken as done" ([`Results::took_as_done`]) for
//! `compare`'s cells, `wkrun report`'s **Not run** section and the run's first lines; the check of a
//! document's record against its plan ([`check`]).

use super::Results;
use super::check::{Violation, echo};
use super::planned::{PlannedPhase, names};
use crate::plan::Plan;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A run started with `--from` past phase 0: the phase it started at, and those it took as done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FromPhase {
    /// The index of the phase the run started at (`--from`): its first planned phase's.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// The phases before it, every one in run order (indices 0 to `index` - 1): taken as done, not run by
    /// this run.
    pub taken_as_done: Vec<PlannedPhase>,
}

impl FromPhase {
    /// Where a run of `plan` starts, when [`Plan::start_at`] is past phase 0 (`None` otherwise: a run
    /// without `--from`, or from phase 0, takes nothing as done).
    pub fn of(plan: &Plan) -> Option<FromPhase> {
        let start = plan.start_at;
        let first = plan.phases.get(start).filter(|_| start > 0)?;
        Some(FromPhase {
            index: first.index,
            name: first.name.clone(),
            taken_as_done: plan.phases[..start].iter().map(PlannedPhase::of).collect(),
        })
    }

    /// Why a phase before it did not run: `taken as done (--from rw2)`.
    pub fn said(&self) -> String {
        format!(
            "taken as done (--from {})",
            crate::text::escaped(&self.name)
        )
    }

    /// [`FromPhase::said`] and the phases' names: `taken as done (--from rw2): rw1` (past five names the
    /// first ones and how many more).
    pub fn line(&self) -> String {
        format!("{}: {}", self.said(), names(self.taken_as_done.iter()))
    }

    /// The run's line as it starts: `starting at phase 1: phase 0 is taken as done`, `starting at phase 3:
    /// phases 0 to 2 are taken as done`.
    pub fn start_line(&self) -> String {
        match self.index {
            1 => "starting at phase 1: phase 0 is taken as done".to_string(),
            n => format!(
                "starting at phase {n}: phases 0 to {} are taken as done",
                n.saturating_sub(1)
            ),
        }
    }
}

impl Results {
    /// Whether this run took the phase named `name` as done (`from_phase.taken_as_done`): it started with
    /// `--from` past it. `false` for results without the record (older ones, fio's).
    pub fn took_as_done(&self, name: &str) -> bool {
        self.from_phase
            .iter()
            .flat_map(|f| &f.taken_as_done)
            .any(|p| p.name == name)
    }
}

/// `from_phase` against the run's plan: it starts at the first planned phase (`planned_phases[0]`, by
/// index and name), past phase 0, and takes as done exactly the phases before it, indices 0 to its index
/// less one in order, each name one a spec could have and each once, none the name of a phase planned or
/// run (a phase taken as done did not run in this run; one run with an index below it is not planned,
/// [`super::planned::check`]).
pub fn check(r: &Results, out: &mut Vec<Violation>) {
    let Some(f) = &r.from_phase else {
        return missing(r, out);
    };
    let Some(first) = r.planned_phases.as_ref().and_then(|p| p.first()) else {
        out.push(Violation {
            path: "from_phase".into(),
            expected:
                "present without planned_phases: a run from --from lists the phases it planned"
                    .into(),
        });
        return;
    };
    let n = out.len();
    starts_the_plan(f, first, out);
    if out.len() > n {
        return;
    }
    if f.taken_as_done.len() != f.index {
        out.push(Violation {
            path: "from_phase.taken_as_done".into(),
            expected: format!(
                "holds {} phases, not the {} before phase {}: a run from --from takes as done every phase before it",
                f.taken_as_done.len(),
                f.index,
                f.index
            ),
        });
        return;
    }
    // The phases run, then those planned (a name both have is said as planned).
    let planned = r.planned_phases.iter().flatten().enumerate();
    let planned = planned.map(|(k, p)| (p.name.as_str(), format!("planned_phases[{k}]")));
    let ran = (r.phases.iter().enumerate()).map(|(i, p)| (p.name.as_str(), format!("phases[{i}]")));
    let mut names: HashMap<&str, String> = ran.chain(planned).collect();
    for (k, p) in f.taken_as_done.iter().enumerate() {
        taken(k, p, &mut names, out);
    }
}

/// No `from_phase` in results whose plan starts past phase 0 (attack 25 F8: deleted, it passed): every run
/// that writes `planned_phases` writes `from_phase` with it when it starts past phase 0 (both came in the
/// same unreleased version, format 1), and a merge or an aggregate keeps it when it keeps the plan. Results
/// without `planned_phases` (older ones, fio's) are not held to it.
fn missing(r: &Results, out: &mut Vec<Violation>) {
    let Some(first) = r.planned_phases.as_ref().and_then(|p| p.first()) else {
        return;
    };
    if first.index > 0 {
        out.push(Violation {
            path: "from_phase".into(),
            expected: format!(
                "absent, but planned_phases starts at phase {} {}: a run that starts past phase 0 (--from) records where it started and the phases it took as done",
                first.index,
                echo(&first.name)
            ),
        });
    }
}

/// `f` starts at the first planned phase `first`, past phase 0.
fn starts_the_plan(f: &FromPhase, first: &PlannedPhase, out: &mut Vec<Violation>) {
    if f.index == 0 {
        out.push(Violation {
            path: "from_phase.index".into(),
            expected: "0: a run from phase 0 takes no phase as done, and has no from_phase".into(),
        });
    } else if f.index != first.index {
        out.push(Violation {
            path: "from_phase.index".into(),
            expected: format!(
                "{} is not the index of the first planned phase, planned_phases[0].index {}: a run from --from starts at the first phase it planned",
                f.index, first.index
            ),
        });
    } else if f.name != first.name {
        out.push(Violation {
            path: "from_phase.name".into(),
            expected: format!(
                "{} is not the name of the first planned phase, planned_phases[0].name {}",
                echo(&f.name),
                echo(&first.name)
            ),
        });
    }
}

/// Phase `k` taken as done, `p`: index `k`, a name a spec could have, not one in `names` (the phases
/// planned or run, and those taken as done before it: where each is).
fn taken<'a>(
    k: usize,
    p: &'a PlannedPhase,
    names: &mut HashMap<&'a str, String>,
    out: &mut Vec<Violation>,
) {
    let at = |field: &str| format!("from_phase.taken_as_done[{k}].{field}");
    if p.index != k {
        out.push(Violation {
            path: at("index"),
            expected: format!(
                "{} is not {k}: the phases taken as done are every phase before the first planned, in run order",
                p.index
            ),
        });
    }
    super::possible::name(&at("name"), &p.name, "the phase's CSV file", out);
    if let Some(there) = names.insert(&p.name, format!("from_phase.taken_as_done[{k}]")) {
        out.push(Violation {
            path: at("name"),
            expected: format!(
                "{} is the name of {there} too: a spec's phase names are unique, and a phase taken as done did not run",
                echo(&p.name)
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::PhaseKind;

    fn phase(index: usize, name: &str) -> PlannedPhase {
        PlannedPhase {
            index,
            name: name.into(),
            kind: PhaseKind::Workload,
        }
    }

    fn from(index: usize, name: &str, taken: Vec<PlannedPhase>) -> FromPhase {
        FromPhase {
            index,
            name: name.into(),
            taken_as_done: taken,
        }
    }

    /// The words: one phase, three, and past five names.
    #[test]
    fn lines_say_where_the_run_started_and_what_it_took_as_done() {
        let one = from(1, "rw2", vec![phase(0, "rw1")]);
        assert_eq!(one.said(), "taken as done (--from rw2)");
        assert_eq!(one.line(), "taken as done (--from rw2): rw1");
        assert_eq!(
            one.start_line(),
            "starting at phase 1: phase 0 is taken as done"
        );
        let seven: Vec<PlannedPhase> = (0..7).map(|i| phase(i, &format!("p{i}"))).collect();
        let late = from(7, "last", seven);
        assert_eq!(
            late.line(),
            "taken as done (--from last): p0, p1, p2, p3, p4 and 2 more"
        );
        assert_eq!(
            late.start_line(),
            "starting at phase 7: phases 0 to 6 are taken as done"
        );
    }
}
