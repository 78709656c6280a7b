//! `wkrun merge`: the results of one spec run on several hosts (one wkrun per host, started together with
//! `--start-at`) merged into one results folder that `wkrun report` and `wkrun compare` read like any other.
//!
//! Per phase: ops and bytes added; rates over the cluster's wall-clock span of the phase (earliest host's
//! t = 0 to the latest host's end); latency percentiles from the hosts' histograms added bucket by bucket
//! ([`crate::stats::latency::merge_parts`]); the series on a common wall-clock grid ([`series`]); each
//! host's part in `phases[].hosts`; the hosts in `cluster`. docs/hosts.md has the whole method.

mod agrees;
mod hlog;
mod phase;
pub mod series;
mod sums;

pub use agrees::{against_host, against_targets, hosts_named};
pub use phase::derived_warnings;

use super::runs::{RunData, load_run};
use crate::results::outdir::OutDir;
use crate::results::series_csv::{SeriesRow, csv_bytes, directions};
use crate::results::write::ResultsWriter;
use crate::results::{Cluster, ClusterHost, HostInfo, Results, Status};
use std::path::Path;

/// What `cluster.alignment` says of the merged series.
pub const ALIGNMENT: &str = "each host's series row goes whole into the interval of a common grid (the phase's interval, from the earliest host's t = 0 on the wall clock) that holds the row's midpoint; counts are added, rates are the sum of the hosts' rates";

/// What the merged runs are: hosts of a cluster (`wkrun merge`) or targets of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// One run per host: named by its rank (`rank 2`), else by its position (`host 2`).
    Host,
    /// One run per target of a single run: named by its folder (`target t1-b.img`).
    Target,
}

impl Unit {
    /// How warnings and errors name run `h` of `runs`.
    fn name(self, runs: &[RunData], h: usize) -> String {
        let rank = runs[h].results.launch.as_ref().and_then(|l| l.rank);
        self.name_of(h, rank, &runs[h].file)
    }

    /// How warnings and errors name the part at position `h`, of rank `rank`, whose results file is `file`:
    /// a target by its folder (`target t0-a.img`, as the run's console lines name it), a host by its rank
    /// (`rank 2`), else by its position (`host 2`).
    pub fn name_of(self, h: usize, rank: Option<u32>, file: &Path) -> String {
        match (self, rank) {
            (Unit::Target, _) => format!("target {}", super::runs::folder_name(file)),
            (Unit::Host, Some(r)) => format!("rank {r}"),
            (Unit::Host, None) => format!("host {h}"),
        }
    }

    /// The parts, in words: `hosts`, `targets`.
    pub fn plural(self) -> &'static str {
        match self {
            Unit::Host => "hosts",
            Unit::Target => "targets",
        }
    }

    /// How the warning of a merged phase that some parts measured nothing in begins.
    pub fn unmeasured(self) -> &'static str {
        match self {
            Unit::Host => UNMEASURED_WARNING,
            Unit::Target => "not every target measured this phase",
        }
    }

    /// How the warning of a merged phase whose parts did not run at the same time begins.
    pub fn apart(self) -> &'static str {
        match self {
            Unit::Host => APART_WARNING,
            Unit::Target => "the targets did not run this phase at the same time",
        }
    }
}

/// How the warning of a merged phase whose hosts did not run it at the same time begins (`wkrun merge`
/// prints it).
pub const APART_WARNING: &str = "the hosts did not run this phase at the same time";

/// How the warning of a merged phase that some hosts measured nothing in begins (`wkrun merge` prints it;
/// `compare` says it under its table).
pub const UNMEASURED_WARNING: &str = "not every host measured this phase";

/// How the warning of a merged phase whose inputs had folded rows begins (`wkrun merge` prints it).
pub const FOLDS_WARNING: &str = "latency over time: inputs had folded rows";

/// A merged run: the results document and, per phase, the merged series rows.
pub struct Merged {
    /// The merged `results.json`.
    pub results: Results,
    /// Per phase (same order), the merged series rows; `None` for a phase without a series.
    pub series: Vec<Option<Vec<SeriesRow>>>,
    /// Per phase (same order), the merged histogram log's text; `None` for a phase without one.
    pub hlogs: Vec<Option<Vec<u8>>>,
    /// Per run that ended before some merged phase began, a line saying which, how many phases it began and
    /// why it stopped, by its own status; `wkrun merge` prints each as a warning.
    pub unreached: Vec<String>,
}

/// Reads every results file (with its series CSVs) and merges them.
///
/// # Errors
/// A file that cannot be read, or results that do not belong together (another spec, another phase list,
/// two hosts of the same rank), each named.
pub fn merge_files(files: &[std::path::PathBuf]) -> Result<Merged, String> {
    same_file_twice(files)?;
    let mut runs = files
        .iter()
        .map(|f| load_run(f).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    order_by_rank(&mut runs)?;
    counted_once(&runs)?;
    one_clock(&runs)?;
    merge_runs(&runs, Unit::Host)
}

/// Refuses a results file whose run is still going: its folder's lock, which a run holds until it ends, is
/// held ([`crate::results::outdir::live_run`]); its results are those of a run part way, `running`, that
/// would be merged as if it had stopped there (attack 24 F7). Returns a warning for each folder of which
/// it cannot be told (the lock cannot be tried: a file system without flock).
///
/// # Errors
/// The first folder a run still writes into, named with the run's pid when /proc/locks tells.
pub fn runs_ended(files: &[std::path::PathBuf]) -> Result<Vec<String>, String> {
    let mut unknown = Vec::new();
    for f in files {
        let dir = f.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = dir.unwrap_or(std::path::Path::new("."));
        match crate::results::outdir::live_run(dir) {
            Ok(None) => {}
            Ok(Some(pid)) => {
                return Err(format!(
                    "{} is the output folder of a wkrun run still going{}: its results are not final; merge it once that run has ended",
                    dir.display(),
                    pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
                ));
            }
            Err(e) => unknown.push(format!(
                "whether a run still writes into {} cannot be told (its lock cannot be tried: {e}); merged as it is now",
                dir.display()
            )),
        }
    }
    Ok(unknown)
}

/// The runs a results file stands for: itself and, for a merged one, the runs it merged (`cluster.hosts`);
/// each as (hostname, target path, start time), which no two runs share.
fn leaves(r: &RunData) -> Vec<(String, String, String)> {
    let own = (
        r.results.host.hostname.clone(),
        r.results.target.path.display().to_string(),
        r.results.started_at.clone(),
    );
    let merged = r.results.cluster.iter().flat_map(|c| &c.hosts);
    let of = |h: &ClusterHost| {
        (
            h.hostname.clone(),
            h.target_path.clone(),
            h.started_at.clone(),
        )
    };
    std::iter::once(own).chain(merged.map(of)).collect()
}

/// Refuses a run that two of the files hold (a merged folder given with one of the hosts it merged, or two
/// merged folders sharing a host): its ops would count twice.
fn counted_once(runs: &[RunData]) -> Result<(), String> {
    let mut seen: Vec<((String, String, String), &RunData)> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        for leaf in leaves(r) {
            let earlier = seen
                .iter()
                .find(|(l, by)| *l == leaf && !std::ptr::eq(*by, &runs[i]));
            if let Some((_, first)) = earlier {
                return Err(format!(
                    "{} and {} both hold the run of {} on {} started {}: a merged folder already counts the hosts it merged; merge each host's results once",
                    first.file.display(),
                    r.file.display(),
                    leaf.0,
                    leaf.1,
                    leaf.2
                ));
            }
            seen.push((leaf, r));
        }
    }
    Ok(())
}

/// Refuses a simulated drive's run (virtual time) merged with a real target's (wall clock): their
/// durations, rates and series are on different clocks and cannot be added.
fn one_clock(runs: &[RunData]) -> Result<(), String> {
    let sim = |r: &RunData| r.results.target.kind == crate::target::TargetKind::Sim;
    let Some(s) = runs.iter().find(|r| sim(r)) else {
        return Ok(());
    };
    let Some(real) = runs.iter().find(|r| !sim(r)) else {
        return Ok(());
    };
    Err(format!(
        "{} ran on a simulated drive ({}: virtual time) and {} on a real target ({}: the wall clock): \
         their durations, rates and series are on different clocks and cannot be added; merge simulated \
         runs together, or real ones",
        s.file.display(),
        s.results.target.path.display(),
        real.file.display(),
        real.results.target.path.display()
    ))
}

/// What the merged run is a prediction of: the runs' `prediction` when every one is a prediction of one fit
/// (`wkrun sim predict` with the same measured results and fitted drive: the same `prediction`), kept with
/// their `predicted: ` label; `None` when none is a prediction.
///
/// # Errors
/// A prediction merged with a measurement (the sum would be neither), or predictions of different fits.
fn one_prediction(runs: &[RunData]) -> Result<Option<crate::results::model::Prediction>, String> {
    fn pred(r: &RunData) -> Option<&crate::results::model::Prediction> {
        r.results.prediction.as_ref()
    }
    let Some(first) = runs.iter().find(|r| pred(r).is_some()) else {
        return Ok(None);
    };
    let Some(other) = runs.iter().find(|r| pred(r) != pred(first)) else {
        return Ok(pred(first).cloned());
    };
    let what = |r: &RunData| match pred(r) {
        Some(p) => format!(
            "a prediction (wkrun sim predict from {} on {})",
            crate::text::escaped(&p.measured),
            crate::text::escaped(&p.fitted_target)
        ),
        None => "a measurement".to_string(),
    };
    Err(format!(
        "{} is {} and {} is {}: merge predictions of one fit together, or measurements",
        first.file.display(),
        what(first),
        other.file.display(),
        what(other)
    ))
}

/// The plan the merged runs recorded ([`crate::results::planned::common`]): the phases they planned
/// (`planned_phases`) and where a run from `--from` started (`from_phase`), one of each.
///
/// # Errors
/// Two runs that planned different phases (another `--from`, an edited file), each named with its plan,
/// then the first phase they differ at ([`crate::results::planned::first_difference`]); or that took
/// different phases as done.
fn one_plan(runs: &[RunData]) -> Result<Kept, String> {
    use crate::results::planned::{common, first_difference, said};
    fn list(r: &RunData) -> &[crate::results::PlannedPhase] {
        r.results.planned_phases.as_deref().unwrap_or_default()
    }
    let planned = common(runs.iter().map(|r| &r.results), |r| {
        r.planned_phases.as_ref()
    });
    let planned = planned.map_err(|(a, b)| {
        let (a, b) = (&runs[a], &runs[b]);
        let plan = |r: &RunData| said(r.results.planned_phases.as_ref());
        let (fa, fb) = (a.file.display().to_string(), b.file.display().to_string());
        let differ = first_difference((list(a), &fa), (list(b), &fb))
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        format!(
            "{fa} planned {} and {fb} planned {}{differ}: merge runs of the same plan",
            plan(a),
            plan(b)
        )
    })?;
    let from = common(runs.iter().map(|r| &r.results), |r| r.from_phase.as_ref());
    let from = from.map_err(|(a, b)| {
        let (a, b) = (&runs[a], &runs[b]);
        let line = |r: &RunData| r.results.from_phase.as_ref().map(|f| f.line());
        format!(
            "{} {} and {} {}: merge runs of the same plan",
            a.file.display(),
            line(a).unwrap_or_default(),
            b.file.display(),
            line(b).unwrap_or_default()
        )
    })?;
    Ok((planned, from))
}

/// What a merge keeps of its runs' plan: `planned_phases` and `from_phase`.
type Kept = (
    Option<Vec<crate::results::PlannedPhase>>,
    Option<crate::results::FromPhase>,
);

/// Refuses one results file given twice (by two paths, or a folder and its `results.json`): its ops would
/// count twice.
fn same_file_twice(files: &[std::path::PathBuf]) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let mut seen: Vec<((u64, u64), &std::path::PathBuf)> = Vec::new();
    for f in files {
        let Ok(m) = std::fs::metadata(f) else {
            continue; // reading it names the problem
        };
        let id = (m.dev(), m.ino());
        if let Some((_, first)) = seen.iter().find(|(i, _)| *i == id) {
            return Err(format!(
                "{} and {} are the same results file: merge each host's results once",
                first.display(),
                f.display()
            ));
        }
        seen.push((id, f));
    }
    Ok(())
}

/// The rank a run recorded.
fn rank_of(r: &RunData) -> Option<u32> {
    r.results.launch.as_ref().and_then(|l| l.rank)
}

/// Puts the runs in rank order when every one has a rank (the given order otherwise).
fn order_by_rank(runs: &mut [RunData]) -> Result<(), String> {
    if runs.iter().all(|r| rank_of(r).is_some()) {
        runs.sort_by_key(rank_of);
        for w in runs.windows(2) {
            if rank_of(&w[0]) == rank_of(&w[1]) {
                return Err(format!(
                    "{} and {} are both rank {}: merge one results folder per host",
                    w[0].file.display(),
                    w[1].file.display(),
                    rank_of(&w[0]).unwrap_or(0)
                ));
            }
        }
    }
    Ok(())
}

/// Merges runs in order (the first one's target and spec describe the merged run); `unit` says what they are.
///
/// # Errors
/// Fewer than one run, runs of different specs, or phases that differ by name.
pub fn merge_runs(runs: &[RunData], unit: Unit) -> Result<Merged, String> {
    let first = runs.first().ok_or("nothing to merge")?;
    sums::check(runs)?;
    for r in &runs[1..] {
        let (a, b) = (&first.results.spec, &r.results.spec);
        if a.sha256 != b.sha256 || a.overrides != b.overrides {
            return Err(format!(
                "{} ran spec {} (sha256 {}, overrides {:?}) and {} ran {} (sha256 {}, overrides {:?}): merge runs of the same spec",
                first.file.display(),
                a.path,
                a.sha256,
                a.overrides,
                r.file.display(),
                b.path,
                b.sha256,
                b.overrides
            ));
        }
    }
    let prediction = one_prediction(runs)?;
    let (planned, from) = one_plan(runs)?;
    let common = merged_phases(runs, unit)?;
    let mut phases = Vec::with_capacity(common.len());
    let mut series = Vec::with_capacity(common.len());
    let mut hlogs = Vec::with_capacity(common.len());
    for at in &common {
        let (p, s, h) = phase::merge(runs, at, unit)?;
        phases.push(p);
        series.push(s);
        hlogs.push(h);
    }
    let unreached = unreached(runs, &common, &phases, unit);
    let mut results = envelope(runs, phases, unit);
    results.round_blocks = merged_blocks(runs, &results.phases);
    results.prediction = prediction;
    results.planned_phases = planned;
    results.from_phase = from;
    Ok(Merged {
        results,
        series,
        hlogs,
        unreached,
    })
}

/// Per run that ended before some of the merged `phases` began (`at[j][h]` is `None`: it holds no phase
/// `j`), a line naming it and its results file, how many of the phases it began, the first it did not,
/// and why, by its own status: `host 2 (h2/results.json) began none of the 1 merged phases: its run was
/// interrupted by SIGINT before phase 0 "rw" began`.
fn unreached(
    runs: &[RunData],
    at: &[Vec<Option<usize>>],
    phases: &[crate::results::PhaseResult],
    unit: Unit,
) -> Vec<String> {
    let n = phases.len();
    (runs.iter().enumerate())
        .filter_map(|(h, r)| {
            let first = (at.iter().zip(phases)).find(|(a, _)| a[h].is_none())?.1;
            let began = at.iter().filter(|a| a[h].is_some()).count();
            let began = match began {
                0 => "none".to_string(),
                k => k.to_string(),
            };
            let res = &r.results;
            let whose = |verb: &str| {
                let (who, file) = (unit.name(runs, h), r.file.display());
                format!("{who} ({file}) {verb} {began} of the {n} merged phases: its run")
            };
            let name = crate::text::escaped(&first.name);
            // Killed in this phase: it began it, its results are not there.
            if res
                .stopped_in(&r.file)
                .is_some_and(|p| p.index == first.index)
            {
                let words = crate::results::planned::stopped_in_words(&name);
                return Some(format!("{} {words}", whose("holds")));
            }
            let how = match (res.status, &res.signal, &res.error) {
                (Status::Interrupted, Some(s), _) => format!("was interrupted by {s}"),
                (Status::Interrupted, None, _) => "was interrupted".to_string(),
                (Status::Failed, _, Some(e)) => format!("failed ({})", crate::text::escaped(e)),
                (Status::Running, _, _) => "ended without writing its results (killed?)".into(),
                (s, _, _) => format!("ended {}", s.word()),
            };
            Some(format!(
                "{} {how} before phase {} \"{name}\" began",
                whose("began"),
                first.index
            ))
        })
        .collect()
}

/// Whether run `r` skipped phase `i`: its block of rounds was steady in fewer rounds.
fn skipped(r: &RunData, i: usize) -> bool {
    let blocks = &r.results.round_blocks;
    let mut s = blocks.iter().filter_map(|b| b.skipped.as_ref());
    s.any(|s| (s.first_phase..=s.last_phase).contains(&i))
}

/// The phases merged, by index, in order, each as its position in each run's results, `None` in a run that
/// ended before it began (interrupted or failed sooner, or stopped during `--start-at`'s wait: its part
/// measured nothing, [`phase::merge`]). Hosts: every phase some run holds, but one that a run skipped (its
/// block of rounds was steady in fewer rounds); the targets of one run: the phases every target holds. A
/// run that completed holds every phase of its spec but those its blocks of rounds skipped, so one that
/// lacks another's phase is not of the same phases (an edited file), nor is a run that lacks a phase it
/// did not skip but holds a later one; and one that completed with no phase is nothing to merge (a run
/// that failed before its first phase merges as failed, its parts blank).
fn merged_phases(runs: &[RunData], unit: Unit) -> Result<Vec<Vec<Option<usize>>>, String> {
    if runs.is_empty() {
        return Err("nothing to merge".into());
    }
    let at = |r: &RunData, i: usize| (r.results.phases.binary_search_by_key(&i, |q| q.index)).ok();
    let mut all: Vec<usize> = (runs.iter())
        .flat_map(|r| r.results.phases.iter().map(|p| p.index))
        .collect();
    all.sort_unstable();
    all.dedup();
    for a in runs {
        let lacks = all.iter().find(|&&i| at(a, i).is_none() && !skipped(a, i));
        let Some(&i) = lacks else { continue };
        let Some(b) = runs.iter().find(|b| at(b, i).is_some()) else {
            continue;
        };
        let later = a.results.phases.iter().find(|p| p.index > i);
        if a.results.status == Status::Completed {
            let n = a.results.phases.len();
            return Err(format!(
                "{} completed with {n} phase{} and {} holds {}: a run that completed holds every phase of its spec; merge results of the same phases",
                a.file.display(),
                if n == 1 { "" } else { "s" },
                b.file.display(),
                b.results.phases.len()
            ));
        }
        if let Some(p) = later {
            return Err(format!(
                "{} holds phase {} \"{}\" but not phase {i}, which {} holds: a run's phases are those of its spec in order, each begun after the one before; merge results of the same phases",
                a.file.display(),
                p.index,
                crate::text::escaped(&p.name),
                b.file.display()
            ));
        }
    }
    let merged: Vec<Vec<Option<usize>>> = (all.into_iter())
        .filter_map(|i| {
            let a: Vec<Option<usize>> = runs.iter().map(|r| at(r, i)).collect();
            let keep = match unit {
                Unit::Target => a.iter().all(Option::is_some),
                Unit::Host => (runs.iter().zip(&a)).all(|(r, x)| x.is_some() || !skipped(r, i)),
            };
            keep.then_some(a)
        })
        .collect();
    let empty = |r: &&RunData| r.results.phases.is_empty() && r.results.status == Status::Completed;
    match runs.iter().find(empty) {
        Some(r) if merged.is_empty() => Err(format!(
            "{} holds no phase: nothing to merge",
            r.file.display()
        )),
        _ => Ok(merged),
    }
}

/// The blocks of rounds of the merged run, judged from the merged phases by the same code as a run's
/// ([`crate::results::rounds::judge`]): the rounds every run completed, each round's tracking value that of
/// the merged tracking phase; `rounds_by_run` says how many rounds each run completed.
fn merged_blocks(
    runs: &[RunData],
    phases: &[crate::results::PhaseResult],
) -> Vec<crate::results::rounds::RoundBlockResult> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let rounds_of = |r: &RunData, name: &str| {
        let b = r.results.round_blocks.iter().find(|b| b.name == name);
        b.map_or(0, |b| b.rounds.len() as u32)
    };
    first
        .results
        .round_blocks
        .iter()
        .filter_map(|b| {
            let mut m = crate::results::rounds::judge(&b.plan, phases)?;
            m.rounds_by_run = runs.iter().map(|r| rounds_of(r, &b.name)).collect();
            Some(m)
        })
        .collect()
}

/// A merged run's label: the label its runs share, else their labels (the default of those without one)
/// joined with ` + `, each once, as the targets' paths are; cut to a label's length like every label wkrun
/// derives ([`crate::text::label`]).
fn merged_label(runs: &[RunData]) -> String {
    let mut labels: Vec<String> = Vec::new();
    for r in runs {
        let l = (r.results.label.clone()).unwrap_or_else(|| r.results.target.default_label());
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    crate::text::label(&labels.join(" + "))
}

/// The merged document around its phases: the cluster's span, the worst status, the hosts.
fn envelope(runs: &[RunData], phases: Vec<crate::results::PhaseResult>, unit: Unit) -> Results {
    let r0 = &runs[0].results;
    let all = || runs.iter().map(|r| &r.results);
    let status = all().map(|r| r.status).max_by_key(|s| match s {
        Status::Completed => 0,
        Status::Running => 1,
        Status::Interrupted => 2,
        Status::Failed => 3,
    });
    let error = all()
        .zip(0..)
        .filter_map(|(r, i)| {
            r.error
                .as_ref()
                .map(|e| format!("{}: {e}", unit.name(runs, i)))
        })
        .collect::<Vec<_>>();
    let unique = |f: &dyn Fn(&Results) -> String| {
        let mut v: Vec<String> = all().map(f).collect();
        v.dedup();
        v.join(", ")
    };
    let finished = all()
        .map(|r| r.finished_at.clone())
        .collect::<Option<Vec<_>>>();
    Results {
        format: r0.format,
        wkrun_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: all()
            .map(|r| r.started_at.clone())
            .min()
            .unwrap_or_default(),
        finished_at: finished.and_then(|f| f.into_iter().max()),
        status: status.unwrap_or(Status::Completed),
        error: (!error.is_empty()).then(|| error.join("; ")),
        // An interrupted merge names the signal of the first host a signal stopped.
        signal: (status == Some(Status::Interrupted))
            .then(|| all().find_map(|r| r.signal.clone()))
            .flatten(),
        spec: r0.spec.clone(),
        host: HostInfo {
            hostname: unique(&|r| r.host.hostname.clone()),
            kernel: unique(&|r| r.host.kernel.clone()),
            cpus: all().map(|r| r.host.cpus).sum(),
        },
        target: r0.target.clone(),
        label: Some(merged_label(runs)),
        launch: None,
        cluster: Some(Cluster {
            hosts: runs.iter().map(host).collect(),
            alignment: ALIGNMENT.to_string(),
        }),
        source: None,
        round_blocks: Vec::new(),
        latency_searches: Vec::new(),
        prediction: None,
        health: None,
        planned_phases: None,
        from_phase: None,
        phases,
    }
}

/// One host of the cluster.
fn host(r: &RunData) -> ClusterHost {
    let l = r.results.launch.as_ref();
    ClusterHost {
        rank: l.and_then(|l| l.rank),
        rank_source: l.and_then(|l| l.rank_source.clone()),
        results: r.file.display().to_string(),
        hostname: r.results.host.hostname.clone(),
        target_path: r.results.target.path.display().to_string(),
        capacity_bytes: r.results.target.capacity_bytes,
        target_kind: Some(r.results.target.kind),
        status: r.results.status,
        started_at: r.results.started_at.clone(),
        start_offset_ns: l.and_then(|l| l.phase_starts.first()).map(|s| s.offset_ns),
        clock: l.and_then(|l| l.clock),
    }
}

/// Writes the merged folder: one series CSV per phase that has one, then `results.json`, each whole (a
/// temporary file renamed over its name). When one cannot be written (a full disk), the CSVs written before
/// are removed: nothing of the merge is left.
///
/// # Errors
/// What could not be written.
pub fn write(out: &OutDir, m: &Merged) -> Result<(), String> {
    let mut made: Vec<&str> = Vec::new();
    let r = write_all(out, m, &mut made);
    if r.is_err() {
        for name in made {
            let _ = out.remove(name);
        }
    }
    r
}

/// The series CSVs, then `results.json`, each whole (a temporary file renamed over its name); `made`
/// collects the names written.
fn write_all<'m>(out: &OutDir, m: &'m Merged, made: &mut Vec<&'m str>) -> Result<(), String> {
    for (p, rows) in m.results.phases.iter().zip(&m.series) {
        let (Some(name), Some(rows)) = (&p.series_csv, rows) else {
            continue;
        };
        let fail = |e: std::io::Error| {
            let note = crate::sys::limits::errno_note(&e);
            format!("cannot write {}: {e}{note}", out.join(name).display())
        };
        // Columns for reads, writes and any other direction the hosts did.
        let dirs = directions(|d| rows.iter().any(|r| r[d].ops > 0));
        let text = csv_bytes(rows, &dirs).map_err(fail)?;
        out.replace(name, &text, true).map_err(fail)?;
        made.push(name);
    }
    for (p, text) in m.results.phases.iter().zip(&m.hlogs) {
        let (Some(name), Some(text)) = (&p.hist_log, text) else {
            continue;
        };
        let fail = |e: std::io::Error| {
            let note = crate::sys::limits::errno_note(&e);
            format!("cannot write {}: {e}{note}", out.join(name).display())
        };
        out.replace(name, text, true).map_err(fail)?;
        made.push(name);
    }
    let mut w = ResultsWriter::new(out);
    w.write(&m.results).map_err(|e| e.to_string())
}

/// The lines `wkrun merge` prints: hosts, phases, and where; then each phase's merged totals
/// ([`totals_lines`], prefixed `  `).
pub fn summary_line(m: &Merged, path: &Path) -> String {
    let hosts = m.results.cluster.as_ref().map_or(0, |c| c.hosts.len());
    let mut o = format!(
        "merged {hosts} hosts, {} phases: {}",
        m.results.phases.len(),
        path.display()
    );
    for l in totals_lines(m, "  ") {
        o.push('\n');
        o.push_str(&l);
    }
    o
}

/// Per merged phase that did I/O (not an erase): `PREFIXphase N "NAME": R reads, W writes in D s: X IOPS, Y
/// MB/s`, the totals the merged `results.json` holds
/// ([`PhaseResult::totals_text`](crate::results::PhaseResult::totals_text)), as the run's summary line
/// prints one host's, with ` (K of N hosts measured)` after them when some parts measured nothing in the
/// phase ([`PhaseResult::unmeasured_parts`](crate::results::PhaseResult::unmeasured_parts)), and after
/// `interrupted: ` (or `failed: `) where a part did not complete it in an interrupted (failed) run; then its
/// latency and flush lines as the run prints them. When the parts (targets, hosts) did not run over one
/// span, their own IOPS add to more than the merged figure, which divides all their I/Os by the span from
/// the first start to the last end: a line says both, so that nobody adds the parts' rates by hand and
/// wonders.
pub fn totals_lines(m: &Merged, prefix: &str) -> Vec<String> {
    let parts = match super::runs::Summed::of(&m.results) {
        super::runs::Summed::Targets(_) => Unit::Target.plural(),
        _ => Unit::Host.plural(),
    };
    let mut lines = Vec::new();
    for p in m
        .results
        .phases
        .iter()
        .filter(|p| p.kind != crate::spec::PhaseKind::Erase)
    {
        let (n, none) = (p.hosts.len(), p.unmeasured_parts().len());
        let covered = match none {
            0 => String::new(),
            _ => format!(" ({} of {n} {parts} measured)", n - none),
        };
        // A phase some part did not complete is said as the run's own summary says one (trial 22 F5).
        let cut = match m.results.status {
            Status::Interrupted | Status::Failed if !p.completed => {
                format!("{}: ", m.results.status.word())
            }
            _ => String::new(),
        };
        lines.push(format!(
            "{prefix}phase {} \"{}\": {cut}{}{covered}",
            p.index,
            p.name,
            p.totals_text()
        ));
        for l in [p.latency_text(), p.flush_text()].into_iter().flatten() {
            lines.push(format!("{prefix}      {l}"));
        }
        let own: f64 = p
            .hosts
            .iter()
            .map(|h| h.read.iops + h.write.iops + h.trim.as_ref().map_or(0.0, |t| t.iops))
            .sum();
        if p.hosts.len() > 1 && own > p.iops() * 1.005 {
            lines.push(format!(
                "{prefix}      the {parts}' own rates add to {own:.0} IOPS; {:.0} IOPS is all their I/Os over the \
                 {:.3} s from the first start to the last end (docs/results.md)",
                p.iops(),
                p.duration_s
            ));
        }
    }
    lines
}

/// The aggregate of a run on several targets (`wkrun SPEC --target A --target B`): the targets' results
/// folders merged as hosts are, in target order (the ranks, all the same host's, are not used), with
/// `target` describing them together: the paths joined by ` + `, the capacities summed, the first target's
/// kind and the largest block sizes. Each target's own part stays in `cluster.hosts` and `phases[].hosts`.
///
/// # Errors
/// A results file that cannot be read, or phases that differ.
pub fn merge_targets(files: &[std::path::PathBuf]) -> Result<Merged, String> {
    // This process's own targets' folders, perhaps cut short by a failure: the aggregate is checked whole.
    let runs = files
        .iter()
        .map(|f| super::runs::load_run_unchecked(f).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut m = merge_runs(&runs, Unit::Target)?;
    // The targets ran in one process: its launch (rank, requested start) is theirs, recorded by each; the
    // first target's stands for the run, so that hosts that each ran several targets merge by rank.
    m.results.launch = runs[0].results.launch.clone();
    let targets: Vec<&crate::target::TargetInfo> = runs.iter().map(|r| &r.results.target).collect();
    let path = targets
        .iter()
        .map(|t| t.path.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    m.results.target = crate::target::TargetInfo::new(
        path,
        targets[0].kind,
        targets.iter().map(|t| t.capacity_bytes).sum(),
        targets
            .iter()
            .map(|t| t.logical_block_size)
            .max()
            .unwrap_or(512),
        targets
            .iter()
            .map(|t| t.physical_block_size)
            .max()
            .unwrap_or(512),
    );
    Ok(m)
}

#[cfg(test)]
mod same_file_tests {
    use super::same_file_twice;

    /// The same results file by a second path (a link) is refused naming both; two files are not.
    #[test]
    fn one_file_by_two_paths_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let (a, b, l) = (
            d.path().join("a.json"),
            d.path().join("b.json"),
            d.path().join("l.json"),
        );
        std::fs::write(&a, "{}").unwrap();
        std::fs::write(&b, "{}").unwrap();
        std::os::unix::fs::symlink(&a, &l).unwrap();
        assert_eq!(same_file_twice(&[a.clone(), b.clone()]), Ok(()));
        assert_eq!(
            same_file_twice(&[a.clone(), b, l.clone()]),
            Err(format!(
                "{} and {} are the same results file: merge each host's results once",
                a.display(),
                l.display()
            ))
        );
    }
}

#[cfg(test)]
mod totals_tests {
    use super::{Merged, summary_line, totals_lines};
    use crate::report::testing::{phase, results};
    use crate::results::{Cluster, DirStats};
    use crate::spec::PhaseKind;
    use crate::target::TargetKind;
    use std::path::Path;

    /// Each phase that did I/O gets one line of the merged totals, as the run's summary prints them; an
    /// erase gets none.
    #[test]
    fn each_io_phase_gets_its_merged_totals_line() {
        let mut erase = phase("wipe", 0);
        erase.kind = PhaseKind::Erase;
        let mut fill = phase("fill", 1);
        fill.kind = PhaseKind::Fill;
        fill.duration_s = 2.0;
        fill.write = DirStats::new(3072, 3 << 30, 2.0, None);
        let mut w = phase("mix", 2);
        w.duration_s = 4.0;
        w.read = DirStats::new(70_000, 70_000 * 4096, 4.0, None);
        w.write = DirStats::new(30_001, 30_001 * 4096, 4.0, None);
        let mut r = results(
            "s",
            "2026-01-01T00:00:00.000Z",
            "a + b + c",
            TargetKind::File,
            vec![erase, fill, w],
        );
        r.cluster = Some(Cluster {
            hosts: vec![],
            alignment: String::new(),
        });
        let m = Merged {
            results: r,
            series: vec![None, None, None],
            hlogs: vec![None, None, None],
            unreached: Vec::new(),
        };
        assert_eq!(
            totals_lines(&m, "[all 3 targets] "),
            [
                "[all 3 targets] phase 1 \"fill\": 0 reads, 3072 writes in 2.00 s: 1536 IOPS, 1610.6 MB/s",
                "[all 3 targets] phase 2 \"mix\": 70000 reads, 30001 writes in 4.00 s: 25000 IOPS, 102.4 MB/s (read 17500 IOPS, 71.7 MB/s; write 7500 IOPS, 30.7 MB/s)",
            ]
        );
        assert_eq!(
            summary_line(&m, Path::new("m/results.json")),
            "merged 0 hosts, 3 phases: m/results.json\n  phase 1 \"fill\": 0 reads, 3072 writes in 2.00 s: 1536 IOPS, 1610.6 MB/s\n  phase 2 \"mix\": 70000 reads, 30001 writes in 4.00 s: 25000 IOPS, 102.4 MB/s (read 17500 IOPS, 71.7 MB/s; write 7500 IOPS, 30.7 MB/s)"
        );
    }
}

#[cfg(test)]
mod phases_tests {
    use super::{Merged, Unit, merge_runs, merged_phases, totals_lines};
    use crate::report::runs::RunData;
    use crate::report::testing::{phase, run};
    use crate::results::{DirStats, HostPhase, Status};

    /// A run (its folder `label`) of the phases `done` (name, reads), each completed, then, unless it
    /// completed, `cut` (name, reads): the phase it stopped in; `status` and `why` (its signal, or its
    /// error when it failed) as its results say.
    fn of(label: &str, done: &[(&str, u64)], cut: Option<(&str, u64)>, status: Status) -> RunData {
        let mut phases = Vec::new();
        for (i, &(name, reads)) in done.iter().chain(&cut).enumerate() {
            let mut p = phase(name, i);
            p.read = DirStats::new(reads, reads * 4096, 1.0, None);
            p.total = p.read.clone();
            p.completed = i < done.len();
            phases.push((p, None));
        }
        let mut r = run(label, "sim:a", phases);
        r.results.status = status;
        match status {
            Status::Interrupted => r.results.signal = Some("SIGINT".into()),
            Status::Failed => r.results.error = Some("cannot write w/02-c.csv: disk full".into()),
            _ => {}
        }
        r
    }

    /// A merged phase's name, completion, reads and parts' (began, completed, reads).
    type Shape = (String, bool, u64, Vec<(bool, bool, u64)>);

    /// The merged phases' shapes.
    fn shape(m: &Merged) -> Vec<Shape> {
        let part = |h: &HostPhase| (h.began(), h.completed, h.read.ops);
        (m.results.phases.iter())
            .map(|p| {
                let parts = p.hosts.iter().map(part).collect();
                (p.name.clone(), p.completed, p.read.ops, parts)
            })
            .collect()
    }

    /// The merged phases' first warnings.
    fn firsts(m: &Merged) -> Vec<Option<&str>> {
        (m.results.phases.iter())
            .map(|p| p.warnings.first().map(String::as_str))
            .collect()
    }

    /// Trial 22 M1: a host stopped during `--start-at`'s wait (no phase, interrupted) beside two that ran
    /// both phases: both phases are merged, the others' reads added (100 + 300, 200 + 400), the stopped
    /// host's part blank (began nothing, completed nothing), each phase warned of and marked `2 of 3
    /// hosts measured`, the merge interrupted, and the host named with its own status. Before, the merge
    /// kept the phases every host had: none, silently.
    #[test]
    fn a_host_that_began_no_phase_keeps_the_others_phases() {
        let runs = [
            of("a", &[("a", 100), ("b", 200)], None, Status::Completed),
            of("b", &[("a", 300), ("b", 400)], None, Status::Completed),
            of("c", &[], None, Status::Interrupted),
        ];
        assert_eq!(
            merged_phases(&runs, Unit::Host),
            Ok(vec![
                vec![Some(0), Some(0), None],
                vec![Some(1), Some(1), None]
            ])
        );
        // The targets of one run: the phases every one holds.
        assert_eq!(merged_phases(&runs, Unit::Target), Ok(vec![]));
        let m = merge_runs(&runs, Unit::Host).expect("merge");
        let parts = |r: u64| {
            vec![
                (true, true, 100 + r),
                (true, true, 300 + r),
                (false, false, 0),
            ]
        };
        assert_eq!(
            shape(&m),
            [
                ("a".to_string(), false, 400, parts(0)),
                ("b".to_string(), false, 600, parts(100)),
            ]
        );
        let warning = "not every host measured this phase: host 2 never began it (its run ended before this phase began: its status in cluster.hosts says how), so the merged figures are those of 2 of the 3 hosts, not the 3 together";
        assert_eq!(firsts(&m), [Some(warning), Some(warning)]);
        assert_eq!(
            (m.results.status, m.results.signal.as_deref()),
            (Status::Interrupted, Some("SIGINT"))
        );
        assert_eq!(
            m.unreached,
            [
                "host 2 (c/results.json) began none of the 2 merged phases: its run was interrupted by SIGINT before phase 0 \"a\" began"
            ]
        );
        let marks: Vec<bool> = (totals_lines(&m, "").iter())
            .map(|l| l.contains(": interrupted: ") && l.ends_with(" (2 of 3 hosts measured)"))
            .collect();
        assert_eq!(marks, [true, true]);
    }

    /// Trial 22 M2: a host interrupted in phase 1 of 3 (after 50 reads), beside one that completed: all
    /// 3 phases merged; phase 1 not completed but measured by both (no mark, its 50 reads added), phase 2
    /// began by one only (`1 of 2 hosts measured`, warned); a host that failed there instead makes the
    /// merge failed, its error named.
    #[test]
    fn a_host_stopped_in_phase_1_of_3_is_blank_in_phase_2() {
        let three = [("x", 10), ("y", 20), ("z", 30)];
        for (status, how) in [
            (Status::Interrupted, "was interrupted by SIGINT"),
            (
                Status::Failed,
                "failed (cannot write w/02-c.csv: disk full)",
            ),
        ] {
            let runs = [
                of("a", &three, None, Status::Completed),
                of("b", &three[..1], Some(("y", 50)), status),
            ];
            let m = merge_runs(&runs, Unit::Host).expect("merge");
            let done = |r| (true, true, r);
            assert_eq!(
                shape(&m),
                [
                    ("x".to_string(), true, 20, vec![done(10), done(10)]),
                    (
                        "y".to_string(),
                        false,
                        70,
                        vec![done(20), (true, false, 50)]
                    ),
                    (
                        "z".to_string(),
                        false,
                        30,
                        vec![done(30), (false, false, 0)]
                    ),
                ]
            );
            let warning = "not every host measured this phase: host 1 never began it (its run ended before this phase began: its status in cluster.hosts says how), so the merged figures are those of 1 of the 2 hosts, not the 2 together";
            assert_eq!(firsts(&m), [None, None, Some(warning)]);
            assert_eq!(m.results.status, status);
            assert_eq!(
                m.unreached,
                [format!(
                    "host 1 (b/results.json) began 2 of the 3 merged phases: its run {how} before phase 2 \"z\" began"
                )]
            );
            let word = status.word();
            let marks: Vec<(bool, bool)> = (totals_lines(&m, "").iter())
                .map(|l| {
                    (
                        l.contains(&format!(": {word}: ")),
                        l.ends_with("(1 of 2 hosts measured)"),
                    )
                })
                .collect();
            assert_eq!(marks, [(false, false), (true, false), (true, true)]);
        }
        let failed = of("b", &three[..1], Some(("y", 50)), Status::Failed);
        let m = merge_runs(
            &[of("a", &three, None, Status::Completed), failed],
            Unit::Host,
        );
        assert_eq!(
            m.expect("merge").results.error.as_deref(),
            Some("host 1: cannot write w/02-c.csv: disk full")
        );
    }

    /// Runs whose phases cannot be of one plan are refused, naming the file and the first difference: a
    /// phase of another name at the same index, and a run that lacks a phase another holds but holds a
    /// later one.
    #[test]
    fn phases_of_different_plans_are_refused() {
        let a = of(
            "a",
            &[("x", 1), ("y", 1), ("z", 1)],
            None,
            Status::Completed,
        );
        let renamed = of("b", &[("x", 1), ("q", 1)], None, Status::Interrupted);
        assert_eq!(
            merge_runs(&[a.clone(), renamed], Unit::Host)
                .err()
                .as_deref(),
            Some(
                "phase 1 is \"y\" (workload) in a/results.json but \"q\" (workload) in b/results.json: merge runs of the same spec"
            )
        );
        let mut gap = of(
            "b",
            &[("x", 1), ("y", 1), ("z", 1)],
            None,
            Status::Interrupted,
        );
        gap.results.phases.remove(1);
        gap.series.remove(1);
        assert_eq!(
            merge_runs(&[a, gap], Unit::Host).err().as_deref(),
            Some(
                "b/results.json holds phase 2 \"z\" but not phase 1, which a/results.json holds: a run's phases are those of its spec in order, each begun after the one before; merge results of the same phases"
            )
        );
    }
}
