//! What a run planned (`planned_phases` of `results.json`): its phases from `--from` on, each by index,
//! name and kind, written with the run's first `results.json`, so that the file of a run that stopped early
//! (a signal, a failure, a resource limit, a kill) still says which phases never ran. One definition of
//! "not run" ([`Results::not_run`]) for the console's last line, `wkrun report`'s list and `compare`'s
//! composite; the check of a document's list against its phases ([`check`]); the plan of merged runs
//! ([`common`]). Where a run started with `--from` and the phases it took as done: [`super::from_phase`].

use super::check::{Violation, echo};
use super::{PhaseResult, Results, Status};
use crate::plan::Plan;
use crate::spec::PhaseKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// A phase the run planned to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlannedPhase {
    /// Its 0-based position in the run: the `index` its result has when it runs.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: PhaseKind,
}

impl PlannedPhase {
    /// The phases `plan` runs: from [`Plan::start_at`] on (those before are taken as done), every one,
    /// those a block of rounds or a latency-target search may skip too.
    pub fn list(plan: &Plan) -> Vec<PlannedPhase> {
        plan.to_run().map(PlannedPhase::of).collect()
    }

    /// Phase `p` of a plan, by index, name and kind.
    pub fn of(p: &crate::plan::PhasePlan) -> PlannedPhase {
        PlannedPhase {
            index: p.index,
            name: p.name.clone(),
            kind: p.kind,
        }
    }
}

impl Results {
    /// Whether the run skipped phase `index` by design: its block of rounds was steady before its round
    /// (`round_blocks[].skipped`), or its latency-target search went over the target at an earlier step
    /// ([`super::search::skips`]).
    pub fn skipped(&self, index: usize) -> bool {
        let blocks = self.round_blocks.iter().filter_map(|b| b.skipped);
        let searches = self
            .latency_searches
            .iter()
            .filter_map(super::search::skips);
        blocks
            .map(|s| s.first_phase..s.last_phase + 1)
            .chain(searches)
            .any(|r| r.contains(&index))
    }

    /// The planned phases (`planned_phases`) this run never ran, in order: of a run that did not complete
    /// (interrupted, failed, or left `running` by a kill), those after the last phase it ran (every one
    /// when it ran none), but those its blocks of rounds or searches skipped ([`Results::skipped`]). Empty
    /// for a completed run, and for results without a planned list (older ones, fio's).
    pub fn not_run(&self) -> Vec<&PlannedPhase> {
        if self.status == Status::Completed {
            return Vec::new();
        }
        let last = self.phases.last().map(|p| p.index);
        let planned = self.planned_phases.iter().flatten();
        planned
            .filter(|p| last.is_none_or(|l| p.index > l) && !self.skipped(p.index))
            .collect()
    }

    /// The planned phase this run, whose `results.json` is `file`, was in when it ended without writing its
    /// results: of a run left `running` (killed: a phase that ends, or a run stopped by a signal or a
    /// failure, writes its results), its first phase not run ([`Results::not_run`]) when it began it: the
    /// results' last version holds a phase before it (the run writes them as each phase ends and goes on
    /// to the next), or its series CSV is in the run's folder ([`began_in`]; the only sign for the first
    /// phase run, which follows the target's preparation). `None` otherwise: that phase never began, or
    /// the run wrote its end.
    pub fn stopped_in(&self, file: &std::path::Path) -> Option<&PlannedPhase> {
        if self.status != Status::Running {
            return None;
        }
        let first = self.not_run().into_iter().next()?;
        (!self.phases.is_empty() || began_in(file, first)).then_some(first)
    }

    /// Whether a phase named `name` (of the same spec) is one this run never ran ([`Results::not_run`]);
    /// for results without a planned list, whether it lacks the phase and did not complete.
    pub fn did_not_run(&self, name: &str) -> bool {
        let lacks = || !self.phases.iter().any(|p| p.name == name);
        match &self.planned_phases {
            Some(_) => self.not_run().iter().any(|p| p.name == name),
            None => self.status != Status::Completed && lacks(),
        }
    }
}

/// Why a run has no results of a phase it was in ([`Results::stopped_in`]): it ended without writing them,
/// which a kill does (SIGKILL, the machine's power, the out-of-memory killer).
pub const UNWRITTEN: &str = "the run ended without writing its results: killed?";

/// How a phase that began but has no results is named, the one definition for the report's list of
/// phases not run and `wkrun merge`'s words: `stopped in rw1 (the run ended without writing its results:
/// killed?)`.
pub fn stopped_in_words(name: &str) -> String {
    format!("stopped in {name} ({UNWRITTEN})")
}

/// Whether the planned phase `p` began in the run whose `results.json` is `file`: its series CSV is in the
/// same folder (a phase makes it as it begins measuring; an erase, a phase killed in its ramp, make none).
pub fn began_in(file: &std::path::Path, p: &PlannedPhase) -> bool {
    let dir = file.parent().unwrap_or(std::path::Path::new("."));
    dir.join(super::series_csv::file_name(p.index, &p.name))
        .exists()
}

/// The console's and the report's words for the phases never run, by name: `not run: rw2, rw3`; past
/// [`SHOWN`] names, the first ones and how many more (`not run: p1, p2, p3, p4, p5 and 995 more`).
/// `None` when every phase ran.
pub fn not_run_line(not_run: &[&PlannedPhase]) -> Option<String> {
    (!not_run.is_empty()).then(|| format!("not run: {}", names(not_run.iter().copied())))
}

/// The names of `phases`: the first [`SHOWN`], then how many more (`p1, p2, p3, p4, p5 and 995 more`).
pub(super) fn names<'a>(phases: impl ExactSizeIterator<Item = &'a PlannedPhase>) -> String {
    let more = match phases.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let shown: Vec<&str> = phases.take(SHOWN).map(|p| p.name.as_str()).collect();
    format!("{}{more}", shown.join(", "))
}

/// How many names of phases not run a line gives.
pub const SHOWN: usize = 5;

/// `planned_phases` against the run: a list of at least one phase, in increasing index, each name one a
/// spec could have and each once; each phase run in it with its index, name and kind; the phases run a
/// prefix of it, but those skipped by design ([`Results::skipped`]: a planned phase that did not run
/// while a later one did is a phase dropped); and a completed run that ran all of it. A merged folder
/// or aggregate with steps of a latency-target search (`phases[].latency_target`) has no record of which
/// steps its searches skipped (`latency_searches` is not merged): its planned phases not run are not
/// held to the rest.
pub fn check(r: &Results, out: &mut Vec<Violation>) {
    let Some(planned) = &r.planned_phases else {
        return;
    };
    if planned.is_empty() {
        out.push(Violation {
            path: "planned_phases".into(),
            expected:
                "an empty list: a run plans at least one phase (absent in results without a plan)"
                    .into(),
        });
        return;
    }
    let Some(at) = listed(planned, &r.phases, out) else {
        return;
    };
    for (i, p) in r.phases.iter().enumerate() {
        ran_as_planned(i, p, planned, &at, out);
    }
    // An aggregate or merge keeps the phases all its parts ran: a latency search's steps, or a block of
    // rounds its parts ended in different rounds (`rounds_by_run`), leave phases some part ran out of it.
    let searched = r.cluster.is_some() && r.phases.iter().any(|p| p.latency_target.is_some());
    let uneven = r.cluster.is_some()
        && r.round_blocks.iter().any(|b| {
            b.rounds_by_run
                .iter()
                .any(|&n| n as usize != b.rounds.len())
        });
    if !searched && !uneven {
        every_planned_ran(r, planned, out);
    }
}

/// The list's own rules: indices increasing, names valid and each once (a name a phase that ran has too is
/// checked as that phase's, `phases[i].name`, and said once there). The position of each index in the
/// list, or `None` (with the violations) when the list breaks them.
fn listed(
    planned: &[PlannedPhase],
    ran: &[PhaseResult],
    out: &mut Vec<Violation>,
) -> Option<HashMap<usize, usize>> {
    let n = out.len();
    let mut names: HashMap<&str, usize> = HashMap::with_capacity(planned.len());
    for (k, p) in planned.iter().enumerate() {
        let at = |field: &str| format!("planned_phases[{k}].{field}");
        if let Some(b) = k
            .checked_sub(1)
            .map(|j| &planned[j])
            .filter(|b| p.index <= b.index)
        {
            out.push(Violation {
                path: at("index"),
                expected: format!(
                    "{} is not above planned_phases[{}].index {}: a plan lists each phase once, in run order",
                    p.index,
                    k - 1,
                    b.index
                ),
            });
        }
        if !ran.iter().any(|q| q.name == p.name) {
            super::possible::name(&at("name"), &p.name, "the phase's CSV file", out);
        }
        if let Some(j) = names.insert(&p.name, k) {
            out.push(Violation {
                path: at("name"),
                expected: format!(
                    "{} is the name of planned_phases[{j}] too: a spec's phase names are unique",
                    echo(&p.name)
                ),
            });
        }
    }
    (out.len() == n).then(|| {
        planned
            .iter()
            .enumerate()
            .map(|(k, p)| (p.index, k))
            .collect()
    })
}

/// Phase `i`, `p`, as its run planned it: an entry of its index (`at`: index to position), of its name
/// and kind.
fn ran_as_planned(
    i: usize,
    p: &PhaseResult,
    planned: &[PlannedPhase],
    at: &HashMap<usize, usize>,
    out: &mut Vec<Violation>,
) {
    let Some(&k) = at.get(&p.index) else {
        out.push(Violation {
            path: format!("phases[{i}].index"),
            expected: format!(
                "{} is not the index of a phase in planned_phases: a run runs the phases it planned",
                p.index
            ),
        });
        return;
    };
    let q = &planned[k];
    if q.name != p.name {
        out.push(Violation {
            path: format!("planned_phases[{k}].name"),
            expected: format!(
                "{} is not the name of phase {} as it ran, phases[{i}].name {}",
                echo(&q.name),
                p.index,
                echo(&p.name)
            ),
        });
    }
    if q.kind != p.kind {
        out.push(Violation {
            path: format!("planned_phases[{k}].kind"),
            expected: format!(
                "\"{}\" is not the kind of phase {} as it ran, phases[{i}].kind \"{}\"",
                q.kind.as_str(),
                p.index,
                p.kind.as_str()
            ),
        });
    }
}

/// Each planned phase not run and not skipped by design comes after the last phase run (a run runs its
/// phases in order and stops once), and a completed run has none (one with no phase at all is said once,
/// as such, by [`super::possible::run`]).
fn every_planned_ran(r: &Results, planned: &[PlannedPhase], out: &mut Vec<Violation>) {
    if r.status == Status::Completed && r.phases.is_empty() {
        return;
    }
    let ran: HashSet<usize> = r.phases.iter().map(|p| p.index).collect();
    let last = r.phases.last();
    let missing = planned
        .iter()
        .enumerate()
        .filter(|(_, p)| !ran.contains(&p.index) && !r.skipped(p.index));
    for (k, p) in missing {
        let later = last.filter(|l| l.index > p.index);
        let expected = match (later, r.status) {
            (Some(l), _) => format!(
                "phase {} {} did not run, yet phase {} {} after it did: a run runs its planned phases in order, and stops once",
                p.index,
                echo(&p.name),
                l.index,
                echo(&l.name)
            ),
            (None, Status::Completed) => format!(
                "phase {} {} did not run in a run whose status is \"completed\": a run completes when it ran every phase it planned but those its blocks of rounds and searches skipped",
                p.index,
                echo(&p.name)
            ),
            (None, _) => continue,
        };
        out.push(Violation {
            path: format!("planned_phases[{k}]"),
            expected,
        });
    }
}

/// What runs merged together (the targets of one run, `wkrun merge`'s hosts) share of a record of their
/// plan, `field` (`planned_phases`, `from_phase`): the value every run has; `None` when one has none
/// (older results). `Err((a, b))`: runs `a` and `b` recorded different values.
pub fn common<'a, T: PartialEq + Clone + 'a>(
    runs: impl IntoIterator<Item = &'a Results>,
    field: impl Fn(&'a Results) -> Option<&'a T>,
) -> Result<Option<T>, (usize, usize)> {
    let mut first: Option<(usize, &T)> = None;
    let mut unknown = false;
    for (i, r) in runs.into_iter().enumerate() {
        match (field(r), first) {
            (None, _) => unknown = true,
            (Some(p), None) => first = Some((i, p)),
            (Some(p), Some((j, f))) if p != f => return Err((j, i)),
            (Some(_), Some(_)) => {}
        }
    }
    Ok(first.filter(|_| !unknown).map(|(_, p)| p.clone()))
}

/// Where two plans first differ, in index order, in words naming the phase and the file (`na`, `nb`) of
/// each plan: `phase 0 "rw1" (workload) is planned in a/results.json only`, or `phase 1 is "rw2" (workload)
/// in a/results.json and "rwx" (fill) in b/results.json`. `None` when they are the same.
pub fn first_difference(
    (a, na): (&[PlannedPhase], &str),
    (b, nb): (&[PlannedPhase], &str),
) -> Option<String> {
    fn find(l: &[PlannedPhase], i: usize) -> Option<&PlannedPhase> {
        l.iter().find(|p| p.index == i)
    }
    let mut indices: Vec<usize> = a.iter().chain(b).map(|p| p.index).collect();
    indices.sort_unstable();
    indices.dedup();
    let one = |p: &PlannedPhase| {
        format!(
            "\"{}\" ({})",
            crate::text::escaped(&p.name),
            p.kind.as_str()
        )
    };
    indices.into_iter().find_map(|i| {
        let (p, q) = (find(a, i), find(b, i));
        match (p, q) {
            (Some(p), Some(q)) if p == q => None,
            (Some(p), Some(q)) => Some(format!(
                "phase {i} is {} in {na} and {} in {nb}",
                one(p),
                one(q)
            )),
            (Some(p), None) => Some(format!("phase {i} {} is planned in {na} only", one(p))),
            (None, Some(q)) => Some(format!("phase {i} {} is planned in {nb} only", one(q))),
            (None, None) => None,
        }
    })
}

/// `planned_phases` in words for a refusal: `phases 0 to 2 (rw1, rw2, rw3)`, or its first five names and
/// how many more.
pub fn said(planned: Option<&Vec<PlannedPhase>>) -> String {
    let Some(p) = planned.filter(|p| !p.is_empty()) else {
        return "no planned_phases".into();
    };
    let (a, b) = (p[0].index, p[p.len() - 1].index);
    let range = match a == b {
        true => format!("phase {a}"),
        false => format!("phases {a} to {b}"),
    };
    format!("{range} ({})", crate::text::escaped(&names(p.iter())))
}
