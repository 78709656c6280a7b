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

/// The phases the merged runs planned ([`crate::results::planned::common`]): one plan.
///
/// # Errors
/// Two runs that planned different phases (another `--from`, an edited file), each named with its plan.
fn one_plan(runs: &[RunData]) -> Result<Option<Vec<crate::results::PlannedPhase>>, String> {
    use crate::results::planned::{common, said};
    common(runs.iter().map(|r| &r.results)).map_err(|(a, b)| {
        let (a, b) = (&runs[a], &runs[b]);
        let plan = |r: &RunData| said(r.results.planned_phases.as_ref());
        format!(
            "{} planned {} and {} planned {}: merge runs of the same plan",
            a.file.display(),
            plan(a),
            b.file.display(),
            plan(b)
        )
    })
}

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
    let planned = one_plan(runs)?;
    let common = common_phases(runs)?;
    let mut phases = Vec::with_capacity(common.len());
    let mut series = Vec::with_capacity(common.len());
    let mut hlogs = Vec::with_capacity(common.len());
    for at in &common {
        let (p, s, h) = phase::merge(runs, at, unit)?;
        phases.push(p);
        series.push(s);
        hlogs.push(h);
    }
    let mut results = envelope(runs, phases, unit);
    results.round_blocks = merged_blocks(runs, &results.phases);
    results.prediction = prediction;
    results.planned_phases = planned;
    Ok(Merged {
        results,
        series,
        hlogs,
    })
}

/// The phases every run has, by index, in order, each as its position in each run's results: a phase that
/// a run did not reach (it stopped sooner), or skipped (its block of rounds was steady in fewer rounds), is
/// not merged. A run that completed holds every phase of its spec but those its blocks of rounds skipped, so
/// one that lacks another phase is not of the same phases (an edited file), and one that completed with no
/// phase is nothing to merge (a run that failed before its first phase merges as failed, with none).
fn common_phases(runs: &[RunData]) -> Result<Vec<Vec<usize>>, String> {
    let Some(first) = runs.first() else {
        return Err("nothing to merge".into());
    };
    for a in runs
        .iter()
        .filter(|r| r.results.status == Status::Completed)
    {
        let skipped = |i: usize| {
            let blocks = &a.results.round_blocks;
            let s = blocks.iter().filter_map(|b| b.skipped.as_ref());
            s.into_iter()
                .any(|s| (s.first_phase..=s.last_phase).contains(&i))
        };
        let has = |i: usize| {
            a.results
                .phases
                .binary_search_by_key(&i, |q| q.index)
                .is_ok()
        };
        if let Some(b) = runs.iter().find(|b| {
            let idx = b.results.phases.iter().map(|p| p.index);
            idx.into_iter().any(|i| !has(i) && !skipped(i))
        }) {
            let n = a.results.phases.len();
            return Err(format!(
                "{} completed with {n} phase{} and {} holds {}: a run that completed holds every phase of its spec; merge results of the same phases",
                a.file.display(),
                if n == 1 { "" } else { "s" },
                b.file.display(),
                b.results.phases.len()
            ));
        }
    }
    let common: Vec<Vec<usize>> = first
        .results
        .phases
        .iter()
        .filter_map(|p| {
            runs.iter()
                .map(|r| {
                    let phases = &r.results.phases;
                    phases.binary_search_by_key(&p.index, |q| q.index).ok()
                })
                .collect()
        })
        .collect();
    let empty = |r: &&RunData| r.results.phases.is_empty() && r.results.status == Status::Completed;
    match runs.iter().find(empty) {
        Some(r) if common.is_empty() => Err(format!(
            "{} holds no phase: nothing to merge",
            r.file.display()
        )),
        _ => Ok(common),
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
