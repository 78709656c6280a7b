//! `wkrun validate` of a results file: everything wrong with it at once, not only the first problem. The
//! schema's violations do not hide the series CSVs (read from the document as it is, even when it breaks
//! the schema), and a document that matches the schema is held to the arithmetic of its figures
//! ([`crate::results::check::implausible`]).

use super::{ReadError, bounded, parse_results_each, plain_file_name, read_results_text, runs};
use crate::results::series_csv::SeriesRow;
use crate::results::{ClusterHost, PhaseResult, Results, Status};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a results file that checks out holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// How its run ended (`completed` for fio's output).
    pub status: crate::results::Status,
    /// Its phases.
    pub phases: usize,
    /// The series CSVs it names, each read and of its phase's length.
    pub series: usize,
    /// The targets' folders it names (the aggregate of a run on several targets), each checked as a results
    /// folder; 0 for other results.
    pub targets: usize,
    /// What a reader should know of results that check out: each job of fio's output that did no storage
    /// I/O ([`crate::fio::json::no_storage_io`]: cpuio, exec, file operations) and each that ran io_uring with
    /// sqthread_poll ([`crate::fio::plausible::SQ_POLL`]), sums several jobs whose depths are unknown
    /// ([`crate::fio::plausible::DEPTHS_UNKNOWN`]) or is a group of unlike jobs
    /// ([`crate::fio::json::unlike_group`]), as `job "NAME": why`.
    pub notes: Vec<String>,
    /// The hosts' results a folder `wkrun merge` wrote names and that were found there, each that host's
    /// run, and held to them ([`super::merge::against_host`]); 0 for other results.
    pub hosts: usize,
}

/// Checks the results file `file` (a `results.json`, or fio's JSON output, which has no schema or series
/// to check): its schema, every series CSV it names (header, columns, numbers, a row per interval), the
/// plausibility of its figures, and, for the aggregate of a run on several targets, each target's folder
/// it names ([`runs::target_folders`]) as a results folder.
///
/// # Errors
/// Every problem, one message each naming the file (and the JSON path, or the CSV and its line).
pub fn check(file: &Path) -> Result<Checked, Vec<String>> {
    check_file(file, true)
}

/// [`check`], with the targets' folders an aggregate names when `targets` (a target's own results are
/// one run's: what they name is not followed further).
fn check_file(file: &Path, targets: bool) -> Result<Checked, Vec<String>> {
    let one = |e: ReadError| vec![e.to_string()];
    let text = read_results_text(file).map_err(one)?;
    if crate::fio::json::looks_like_fio(text.as_bytes()) {
        // Every problem fio's output has, each on its own line: a crash line, then the figures'.
        let r = crate::fio::json::read(&file.display().to_string(), text.as_bytes()).map_err(
            |all| {
                (all.into_iter())
                    .map(|why| {
                        let path = file.to_path_buf();
                        ReadError::Fio { path, why }.to_string()
                    })
                    .collect::<Vec<String>>()
            },
        )?;
        let said = |p: &PhaseResult, note: &'static str| {
            p.warnings.iter().any(|w| w == note).then_some(note)
        };
        let depths = crate::fio::plausible::DEPTHS_UNKNOWN;
        let notes = (r.phases.iter())
            .flat_map(|p| {
                [
                    crate::fio::json::no_storage_io(p),
                    crate::fio::json::sq_poll(p),
                    said(p, depths),
                    crate::fio::json::unlike_group(p),
                ]
                .map(|w| (p, w))
            })
            .filter_map(|(p, why)| {
                Some(format!(
                    "job \"{}\": {}",
                    crate::text::escaped(&p.name),
                    why?
                ))
            })
            .collect::<Vec<String>>();
        // fio's --status-interval output: said once, not for each job.
        let status = r.phases.first().and_then(|p| {
            let note = crate::fio::status::STATUS_INTERVAL;
            p.warnings.iter().find(|w| w.starts_with(note)).cloned()
        });
        let notes = status.into_iter().chain(notes).collect();
        return Ok(Checked {
            status: r.status,
            phases: r.phases.len(),
            series: 0,
            targets: 0,
            notes,
            hosts: 0,
        });
    }
    let mut problems = Vec::new();
    // Each phase's series as the document names it, taken as it is read (even when it breaks the schema).
    let mut named: Vec<Named> = Vec::new();
    let parsed = match parse_results_each(file, text.as_bytes(), |_, p| named.push(Named::of(p))) {
        Ok(r) => Some(r),
        Err(e @ ReadError::Schema { .. }) => {
            problems.push(e.to_string());
            None
        }
        Err(e) => return Err(one(e)),
    };
    drop(text);
    // Results that match the schema and whose figures can be true: each phase's rows are also held to
    // its figures (figures that cannot be true are said once, not again against each row).
    let bad = parsed.as_ref().and_then(|r| implausible(file, r));
    let named: Vec<Named> = match parsed.as_ref().filter(|_| bad.is_none()) {
        Some(r) => r.phases.iter().map(Named::of_phase).collect(),
        None => named,
    };
    let series = series(file, &named, &mut problems);
    problems.extend(bad);
    let (mut whole, mut hosts) = (0, 0);
    for r in parsed.iter().filter(|_| targets) {
        let (n, e) = targets_of(file, r);
        whole = n;
        problems.extend(e);
        if runs::target_folders(file, r).is_empty() {
            let (n, e) = merge_hosts(file, r);
            hosts = n;
            problems.extend(e);
        }
    }
    match problems.is_empty() {
        true => Ok(Checked {
            status: parsed
                .as_ref()
                .map_or(crate::results::Status::Completed, |r| r.status),
            phases: named.len(),
            series,
            targets: whole,
            notes: Vec::new(),
            hosts,
        }),
        false => Err(problems),
    }
}

/// Checks the targets' folders the aggregate `r` (read from `file`) names ([`runs::target_folders`]), each
/// as a results folder ([`target`]) that its host's entry describes ([`agrees`]), and the aggregate against
/// them ([`joined`], and its phases against theirs merged: [`super::merge::against_targets`]): how many
/// check out, and every problem. Results with hosts that name no target's folder are held to their
/// `target.path` ([`super::merge::hosts_named`]).
fn targets_of(file: &Path, r: &Results) -> (usize, Vec<String>) {
    let folders = runs::target_folders(file, r);
    if folders.is_empty() {
        return (0, super::merge::hosts_named(file, r).into_iter().collect());
    }
    let (mut whole, mut problems, mut theirs, mut read) = (0, Vec::new(), Vec::new(), Vec::new());
    let hosts = r.cluster.as_ref().map_or(&[][..], |c| &c.hosts[..]);
    let n = folders.len();
    let gone = |f: &PathBuf| {
        std::fs::symlink_metadata(f).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    };
    let missing: Vec<&PathBuf> = folders.iter().flatten().filter(|f| gone(f)).collect();
    if !missing.is_empty() {
        problems.push(without_targets(file, hosts.len(), &missing));
    }
    for (h, folder) in folders.iter().cloned().enumerate() {
        if folder.as_ref().is_ok_and(gone) {
            continue;
        }
        match target(folder) {
            Ok((f, t)) => {
                let wrong = agrees(file, h, &hosts[h], (&f, &t));
                whole += usize::from(wrong.is_empty());
                problems.extend(wrong);
                theirs.push((h, t.status));
                read.push((f, t));
            }
            Err(e) => problems.extend(e),
        }
    }
    problems.extend(joined(file, r, &theirs));
    // The phases against the targets' merged, when every target's folder reads.
    if read.len() == n {
        problems.extend(super::merge::against_targets(file, r, &read));
    }
    (whole, problems)
}

/// The refusal of the aggregate `file` of a run on `n` targets whose targets' folders `missing` are not
/// beside it (the aggregate copied alone): what is missing, and what to do.
fn without_targets(file: &Path, n: usize, missing: &[&PathBuf]) -> String {
    let list: Vec<String> = missing.iter().map(|f| f.display().to_string()).collect();
    let which = match missing.len() == n {
        true => "its targets' folders are missing".to_string(),
        false if missing.len() == 1 => "1 of its targets' folders is missing".to_string(),
        false => format!("{} of its targets' folders are missing", missing.len()),
    };
    format!(
        "{} is the aggregate of a run on {n} targets, and {which}: {} (each target's own results, which the aggregate is checked against); copy the whole results folder, its targets' folders with it (cp -r), or give a target's own folder to read that target alone",
        file.display(),
        list.join(", ")
    )
}

/// Checks a target's folder that an aggregate names ([`runs::target_folders`]): a folder (a symbolic
/// link is not followed) whose `results.json` checks out as [`check`] checks one run's. That file and
/// its results.
///
/// # Errors
/// Every problem, each naming the folder or the file.
fn target(folder: Result<PathBuf, String>) -> Result<(PathBuf, Results), Vec<String>> {
    let folder = folder.map_err(|e| vec![e])?;
    let why = match std::fs::symlink_metadata(&folder) {
        Ok(m) if m.is_dir() => {
            let f = folder.join("results.json");
            check_file(&f, false)?;
            let r = super::read_results(&f).map_err(|e| vec![e.to_string()])?;
            return Ok((f, r));
        }
        Ok(_) => "not a folder (a symbolic link is not followed)".to_string(),
        Err(e) => e.to_string(),
    };
    Err(vec![format!(
        "{}: a target's folder the aggregate names: {why}",
        folder.display()
    )])
}

/// How the entry `host` (`cluster.hosts[h]` of the aggregate `file`) differs from the results `t` of its
/// target's folder, read from `f`: its status, target path, capacity, kind (where kept) and start are that
/// target's, as the run copies them.
fn agrees(file: &Path, h: usize, host: &ClusterHost, (f, t): (&Path, &Results)) -> Vec<String> {
    let status = |s: Status| serde_json::to_string(&s).unwrap_or_default();
    let kind = |k: crate::target::TargetKind| serde_json::to_string(&k).unwrap_or_default();
    let fields = [
        ("status", status(host.status), "status", status(t.status)),
        (
            "target_path",
            format!("{:?}", host.target_path),
            "target.path",
            format!("{:?}", t.target.path.display().to_string()),
        ),
        (
            "capacity_bytes",
            host.capacity_bytes.to_string(),
            "target.capacity_bytes",
            t.target.capacity_bytes.to_string(),
        ),
        (
            "target_kind",
            kind(host.target_kind.unwrap_or(t.target.kind)),
            "target.kind",
            kind(t.target.kind),
        ),
        (
            "started_at",
            format!("{:?}", host.started_at),
            "started_at",
            format!("{:?}", t.started_at),
        ),
    ];
    fields
        .into_iter()
        .filter(|(_, a, _, b)| a != b)
        .map(|(k, a, tk, b)| {
            format!(
                "{}: cluster.hosts[{h}].{k} {a} is not {}'s {tk} {b}: a host's entry is its target's",
                file.display(),
                f.display()
            )
        })
        .collect()
}

/// How the aggregate `r` (read from `file`) differs from what the run writes of its targets, whose folders'
/// statuses are `theirs` (by host): its `target.path` joins its hosts' with ` + `, and its status is
/// the worst of its targets' (one signal stops them all), or "failed" (the aggregate itself failed).
fn joined(file: &Path, r: &Results, theirs: &[(usize, Status)]) -> Vec<String> {
    let mut out = Vec::new();
    let hosts = r.cluster.as_ref().map_or(&[][..], |c| &c.hosts[..]);
    let paths: Vec<&str> = hosts.iter().map(|h| h.target_path.as_str()).collect();
    let path = r.target.path.display().to_string();
    if path != paths.join(" + ") {
        out.push(format!(
            "{}: target.path {path:?} is not its hosts' target paths joined, {:?}, as a run on several targets writes it",
            file.display(),
            paths.join(" + ")
        ));
    }
    let rank = |s: Status| match s {
        Status::Completed => 0,
        Status::Running => 1,
        Status::Interrupted => 2,
        Status::Failed => 3,
    };
    let worst = theirs.iter().max_by_key(|(_, s)| rank(*s));
    if let Some((h, s)) = worst.filter(|(_, s)| *s != r.status && r.status != Status::Failed) {
        let name = |s: Status| serde_json::to_string(&s).unwrap_or_default();
        out.push(format!(
            "{}: status {} but the target of cluster.hosts[{h}] says {}: an aggregate's status is its targets' worst (or \"failed\")",
            file.display(),
            name(r.status),
            name(*s)
        ));
    }
    out
}

/// Checks the results `r`, read from `file` and known to match the schema, as [`check`] does past the
/// schema: every series CSV, histogram log and trace its phases name, then the plausibility of its
/// figures. What a run and `wkrun merge` check of the folder they have just written (after the schema,
/// `results::check::check_written`), so that results `wkrun validate` refuses are never left as a success.
///
/// # Errors
/// Every problem, one message each naming the file (and the JSON path, or the CSV and its line).
pub fn check_contents(file: &Path, r: &Results) -> Result<Checked, Vec<String>> {
    let mut problems = Vec::new();
    let named: Vec<Named> = r.phases.iter().map(Named::of_phase).collect();
    let series = series(file, &named, &mut problems);
    problems.extend(implausible(file, r));
    match problems.is_empty() {
        true => Ok(Checked {
            status: r.status,
            phases: r.phases.len(),
            series,
            targets: 0,
            notes: Vec::new(),
            hosts: 0,
        }),
        false => Err(problems),
    }
}

/// [`check_contents`]'s check of the figures alone (their arithmetic and plausibility), reading no file: what
/// a run checks of its own results, whose series CSV and histogram log its collector writes row by row
/// together (reading them back would take memory growing with the run's length).
///
/// # Errors
/// The problems, in one message naming the file and each JSON path.
pub fn check_figures(file: &Path, r: &Results) -> Result<(), Vec<String>> {
    implausible(file, r).map_or(Ok(()), |why| Err(vec![why]))
}

/// What `validate` refuses in the results `r` of the file `file` that the schema lets through: figures that
/// cannot be true ([`crate::results::check::implausible`]), in one message naming the file, how many and
/// the JSON path of the first [`MAX_VIOLATIONS`](crate::results::check::MAX_VIOLATIONS); `None` when there
/// are none.
fn implausible(file: &Path, r: &Results) -> Option<String> {
    let bad = crate::results::check::implausible(r);
    (!bad.is_empty()).then(|| {
        format!(
            "{} holds figures that cannot be true ({} place{}):{}",
            file.display(),
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            crate::results::check::lines(
                &bad[..bad.len().min(crate::results::check::MAX_VIOLATIONS)],
                bad.len()
            )
        )
    })
}

/// What `wkrun validate` checks of a run beyond its schema and its series CSVs, for the commands that read
/// results (`compare`, `report`, `merge`, `library add`), so that each refuses what `validate` refuses:
/// the figures' plausibility, each phase's histogram log (against its series rows `series`, one entry
/// per phase), trace, counters CSV and device CSV, and an aggregate's targets' folders, with the same
/// functions `validate` checks them with. Results another tool wrote (fio's JSON) have none of these.
///
/// # Errors
/// [`ReadError::Invalid`] with the first problem, naming the file (and its line).
pub fn check_run(
    file: &Path,
    r: &Results,
    series: &[Option<Vec<SeriesRow>>],
) -> Result<(), ReadError> {
    let invalid = |why: String| ReadError::Invalid { why };
    if let Some(why) = implausible(file, r) {
        return Err(invalid(why));
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    for (i, p) in r.phases.iter().enumerate() {
        let named = Named::of_phase(p);
        let rows = series.get(i).and_then(|s| s.as_deref());
        if let Some(why) = beside(dir, (i, &named), rows).into_iter().next() {
            return Err(invalid(why));
        }
    }
    if let Some(why) = targets_of(file, r).1.into_iter().next() {
        return Err(invalid(why));
    }
    if runs::target_folders(file, r).is_empty()
        && let Some(why) = merge_hosts(file, r).1.into_iter().next()
    {
        return Err(invalid(why));
    }
    Ok(())
}

/// Checks a folder `wkrun merge` wrote (`r`, read from `file`; not the aggregate of a run on several
/// targets) against what it keeps of its hosts and, where they are found, against its hosts' own results:
/// each merged phase's warnings from its parts' times and counts, as the merge derives them
/// ([`super::merge::derived_warnings`]: which hosts measured nothing, and that the hosts did not run it
/// at the same time); then each host whose results file (`cluster.hosts[k].results`, the path as given to
/// `wkrun merge`) is found, as given or beside the merged folder, and is that host's run (its hostname,
/// target path and start are the entry's), checked as a results file and held to it
/// ([`super::merge::against_host`]). How many hosts' results were held, and every problem.
fn merge_hosts(file: &Path, r: &Results) -> (usize, Vec<String>) {
    let Some(c) = r.cluster.as_ref() else {
        return (0, Vec::new());
    };
    let mut problems: Vec<String> = r
        .phases
        .iter()
        .filter(|p| !p.hosts.is_empty())
        .filter_map(|p| derived_warnings(file, p))
        .collect();
    let mut held = 0;
    for (k, host) in c.hosts.iter().enumerate() {
        let Some(f) = host_results(file, host) else {
            continue;
        };
        if let Err(e) = check_file(&f, false) {
            problems.extend(e);
            continue;
        }
        match runs::load_run_unchecked(&f) {
            Ok(run) => {
                let wrong = super::merge::against_host(file, r, k, &run);
                held += usize::from(wrong.is_empty());
                problems.extend(wrong);
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    (held, problems)
}

/// The results file of the merged host `host` of the merged folder `file`, where it is found: its
/// `results` as given to `wkrun merge` (relative to the folder `validate` runs in), else relative to the
/// folder that holds the merged folder (`wkrun merge r0 r1 -o m`, read from anywhere); `None` when neither
/// is a file that reads as results of that host's run (its hostname, target path and start are the
/// entry's: a file of that name from another run is not the host's).
fn host_results(file: &Path, host: &ClusterHost) -> Option<PathBuf> {
    let given = Path::new(&host.results);
    let beside = file.parent().and_then(Path::parent).map(|d| d.join(given));
    let candidates = std::iter::once(given.to_path_buf()).chain(beside);
    candidates.into_iter().find(|f| {
        let is_file = std::fs::symlink_metadata(f).is_ok_and(|m| m.is_file());
        is_file
            && super::read_results(f).is_ok_and(|t| {
                t.host.hostname == host.hostname
                    && t.target.path.display().to_string() == host.target_path
                    && t.started_at == host.started_at
            })
    })
}

/// How the warnings of the merged phase `p` (of the merged folder `file`) differ from those the merge
/// derives from its parts' times and counts ([`super::merge::derived_warnings`], each part named by its
/// rank or position): the first that is missing, changed or added, with the phase's and the merge's.
fn derived_warnings(file: &Path, p: &PhaseResult) -> Option<String> {
    use super::merge::{APART_WARNING, UNMEASURED_WARNING, Unit};
    let names: Vec<String> = (p.hosts.iter().enumerate())
        .map(|(k, h)| Unit::Host.name_of(k, h.rank, Path::new("")))
        .collect();
    let made = super::merge::derived_warnings(Unit::Host, &names, &p.hosts);
    let own: Vec<&String> = (p.warnings.iter())
        .filter(|w| w.starts_with(APART_WARNING) || w.starts_with(UNMEASURED_WARNING))
        .collect();
    let shown = |w: Option<&String>| w.map_or("absent".to_string(), |w| format!("{w:?}"));
    let k = (0..own.len().max(made.len())).find(|&k| own.get(k).copied() != made.get(k))?;
    Some(format!(
        "{}: phase {} \"{}\": warnings: {} where the merge derives from its hosts' times and counts (hosts[].series_t0_unix_ns, duration_s, completed, ops) {}: a merged phase keeps the warnings its hosts' parts give",
        file.display(),
        p.index,
        p.name,
        shown(own.get(k).copied()),
        shown(made.get(k))
    ))
}

/// What is wrong with phase `i`'s series rows (`rows`, when they read: [`rates`]) and the files it names
/// beside its series CSV (`p`): its histogram log (against its rows), trace, counters CSV and device CSV.
fn beside(dir: &Path, (i, p): (usize, &Named), rows: Option<&[SeriesRow]>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(rows) = rows {
        out.extend(rates(dir, p, rows).err());
        out.extend(figures(dir, p, rows).err());
        out.extend(hist_log(dir, (i, p), rows).err());
    }
    out.extend(trace(dir, (i, p)).err());
    out.extend(counters(dir, (i, p)).err());
    out.extend(device(dir, (i, p)).err());
    out
}

/// What a phase says of its series: the CSV's name, the phase's name, whether it completed, its number of
/// intervals, its histogram log, its per-I/O trace (file and rows), its counters CSV and its device CSV,
/// whether it was merged from several hosts or targets (it has `hosts`), and the phase itself when the
/// document matches the schema (its rows are then held to its figures).
struct Named<'a> {
    result: Option<&'a PhaseResult>,
    csv: Option<String>,
    merged: bool,
    phase: String,
    completed: bool,
    intervals: Option<u64>,
    hist_log: Option<String>,
    trace: Option<(String, u64)>,
    counters: Option<String>,
    device: Option<String>,
}

impl<'a> Named<'a> {
    /// From the phase `p` of results that match the schema.
    fn of_phase(p: &'a PhaseResult) -> Named<'a> {
        Named {
            result: Some(p),
            csv: p.series_csv.clone(),
            merged: !p.hosts.is_empty(),
            phase: p.name.clone(),
            completed: p.completed,
            intervals: p.intervals,
            hist_log: p.hist_log.clone(),
            trace: p.trace.as_ref().map(|t| (t.file.clone(), t.ios)),
            counters: p.counters_csv.clone(),
            device: p.device.as_ref().and_then(|d| d.device_csv.clone()),
        }
    }

    /// From the phase `p` of a document that need not match the schema.
    fn of(p: &Value) -> Named<'a> {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        Named {
            result: None,
            csv: text(p.get("series_csv")),
            merged: p
                .get("hosts")
                .and_then(Value::as_array)
                .is_some_and(|h| !h.is_empty()),
            phase: text(p.get("name")).unwrap_or_else(|| "?".to_string()),
            completed: p.get("completed").and_then(Value::as_bool).unwrap_or(false),
            intervals: p.get("intervals").and_then(Value::as_u64),
            hist_log: text(p.get("hist_log")),
            trace: text(p.pointer("/trace/file")).map(|f| {
                let ios = p.pointer("/trace/ios").and_then(Value::as_u64).unwrap_or(0);
                (f, ios)
            }),
            counters: text(p.get("counters_csv")),
            device: text(p.pointer("/device/device_csv")),
        }
    }
}

/// Checks that each series row's rates are its counts over its interval
/// ([`SeriesRow::rate_contradiction`]), in a phase of one run: a merged phase (one with `hosts`) adds
/// the hosts' rates, each over its own interval.
fn rates(dir: &Path, p: &Named, rows: &[SeriesRow]) -> Result<(), String> {
    let Some(csv) = p.csv.as_deref().filter(|_| !p.merged) else {
        return Ok(());
    };
    let bad = rows.iter().enumerate().find_map(|(k, r)| {
        r.rate_contradiction()
            .map(|(column, why)| (k + 2, column, why))
    });
    match bad {
        None => Ok(()),
        Some((line, column, why)) => Err(ReadError::Series {
            path: dir.join(csv),
            why: format!("line {line}: column {column}: {why}"),
        }
        .to_string()),
    }
}

/// Checks the series rows of a phase against its own figures ([`super::series_figures::against_phase`]):
/// each row's latencies within the phase's, `partial` only where a run writes it, the rows' latency sums
/// and failed I/Os adding up to the phase's.
fn figures(dir: &Path, p: &Named, rows: &[SeriesRow]) -> Result<(), String> {
    let (Some(csv), Some(phase)) = (p.csv.as_deref(), p.result) else {
        return Ok(());
    };
    match super::series_figures::against_phase(rows, phase) {
        None => Ok(()),
        Some((lines, column, why)) => Err(ReadError::Series {
            path: dir.join(csv),
            why: format!("{lines}: column {column}: {why}"),
        }
        .to_string()),
    }
}

/// A file phase `i` names beside its results in `field`: its path, and how a problem with it is said.
struct Beside {
    path: PathBuf,
    field: String,
}

impl Beside {
    /// The file `name` (when the phase names one) in `dir`; `None` when it names none or, when
    /// `optional` (a file nothing needs), names one that is not there.
    ///
    /// # Errors
    /// A name that is not a plain file name.
    fn of(
        dir: &Path,
        (i, field): (usize, &str),
        name: Option<&str>,
        optional: bool,
    ) -> Result<Option<Beside>, String> {
        let Some(name) = name else { return Ok(None) };
        let b = Beside {
            path: dir.join(name),
            field: format!("phases[{i}].{field}"),
        };
        if !plain_file_name(name) {
            return Err(b.at("not a plain file name".to_string()));
        }
        // Gone is allowed for an optional file; anything of that name is read (and a link refused).
        Ok((!optional || std::fs::symlink_metadata(&b.path).is_ok()).then_some(b))
    }

    /// `e` said of this file: `PATH (FIELD): e`.
    fn at(&self, e: String) -> String {
        format!("{} ({}): {e}", self.path.display(), self.field)
    }
}

/// Checks phase `i`'s histogram log (`phases[i].hist_log`, when it names one) against its series `rows`
/// ([`crate::results::hlog::check_rows`]).
fn hist_log(dir: &Path, (i, p): (usize, &Named), rows: &[SeriesRow]) -> Result<(), String> {
    let Some(b) = Beside::of(dir, (i, "hist_log"), p.hist_log.as_deref(), false)? else {
        return Ok(());
    };
    let reader = crate::results::hlog::open(&b.path).map_err(|e| b.at(e))?;
    crate::results::hlog::check_rows(reader, rows)
        .map(|_| ())
        .map_err(|e| b.at(e))
}

/// Checks phase `i`'s per-I/O trace (`phases[i].trace`, when it has one): its rows against `trace.ios`.
fn trace(dir: &Path, (i, p): (usize, &Named)) -> Result<(), String> {
    let Some((name, ios)) = &p.trace else {
        return Ok(());
    };
    let Some(b) = Beside::of(dir, (i, "trace"), Some(name), false)? else {
        return Ok(());
    };
    crate::results::trace_csv::check_file(&b.path, *ios).map_err(|e| b.at(e))
}

/// Checks phase `i`'s counters CSV (`phases[i].counters_csv`, when it names one that is there; nothing
/// reads it, and a merged folder names its first host's, which stays there): a regular file beside the
/// results ([`crate::results::open_beside`]), within a series CSV's limits, with the counters header
/// ([`crate::results::counters::header`]) and in each row as many cells, each empty or a number.
fn counters(dir: &Path, (i, p): (usize, &Named)) -> Result<(), String> {
    let Some(b) = Beside::of(dir, (i, "counters_csv"), p.counters.as_deref(), true)? else {
        return Ok(());
    };
    let file = crate::results::open_beside(&b.path).map_err(|e| b.at(e))?;
    let limit = |e: csv::Error| match e.kind() {
        csv::ErrorKind::Io(io) => {
            bounded::exceeded(io).map_or_else(|| e.to_string(), |x| x.0.clone())
        }
        _ => e.to_string(),
    };
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bounded::Bounded::series(file));
    let mut width = 0;
    let mut cpu = CpuSums::default();
    for (k, rec) in r.records().enumerate() {
        let line = k + 1;
        let rec = rec.map_err(|e| b.at(format!("line {line}: {}", limit(e))))?;
        if k == 0 {
            let head = rec.iter().collect::<Vec<_>>().join(",") + "\n";
            if head != crate::results::counters::header(false)
                && head != crate::results::counters::header(true)
            {
                return Err(b.at("line 1 is not a counters CSV's header".into()));
            }
            width = rec.len();
            continue;
        }
        if rec.len() != width {
            return Err(b.at(format!("line {line}: {} cells, not {width}", rec.len())));
        }
        let number = |c: &str| c.parse::<f64>().is_ok_and(|x| x.is_finite() && x >= 0.0);
        if let Some(c) = rec.iter().find(|c| !c.is_empty() && !number(c)) {
            return Err(b.at(format!("line {line}: {c:?} is not a count or a time")));
        }
        cpu.add(&rec);
    }
    match width {
        0 => Err(b.at("empty: no header".into())),
        _ => cpu.against(p.result).map_err(|e| b.at(e)),
    }
}

/// The CPU columns of a counters CSV added up, in ns: each cell is a difference of two readings, in ns,
/// written as seconds in the shortest form that reads back exactly (`results::counters::CounterRow::line`:
/// `ns as f64 / 1e9`), so `cell × 10⁹` rounded is that difference exactly while under 2⁵¹ ns (26 days of CPU
/// time); the phase's `cpu.user_s` and `system_s` are the first reading to the last the same way, so the
/// rows (which telescope) add up to them exactly.
#[derive(Default)]
struct CpuSums {
    rows: u64,
    ns: [u128; 2],
}

impl CpuSums {
    /// Adds a row's `cpu_user_s` and `cpu_sys_s` (columns 3 and 4, numbers by now).
    fn add(&mut self, rec: &csv::StringRecord) {
        self.rows += 1;
        for (k, sum) in self.ns.iter_mut().enumerate() {
            let s = rec.get(2 + k).and_then(|c| c.parse::<f64>().ok());
            *sum += s.map_or(0, |s| (s * 1e9).round() as u128);
        }
    }

    /// Against the phase `p`'s `cpu` (a completed phase's, when it has one: a phase cut short by a row that
    /// could not be written has fewer rows): each column's rows add up to its figure, exactly while under 2⁵¹
    /// ns, past that within 1 ns a row.
    fn against(&self, p: Option<&PhaseResult>) -> Result<(), String> {
        let Some(cpu) = p.filter(|p| p.completed).and_then(|p| p.cpu.as_ref()) else {
            return Ok(());
        };
        let last = self.rows + 1;
        let figures = [
            ("cpu_user_s", "user_s", cpu.user_s),
            ("cpu_sys_s", "system_s", cpu.system_s),
        ];
        for ((column, field, s), sum) in figures.into_iter().zip(self.ns) {
            let want = (s * 1e9).round() as u128;
            let slack = match sum.max(want) < 1 << 51 {
                true => 0,
                false => u128::from(self.rows) + 1,
            };
            if sum.abs_diff(want) > slack {
                return Err(format!(
                    "lines 2-{last}: column {column}: the rows add up to {} s, where results.json's phase has cpu.{field} {s} s: the rows' CPU times add up to the phase's",
                    sum as f64 / 1e9
                ));
            }
        }
        Ok(())
    }
}

/// Checks phase `i`'s device CSV (`phases[i].device.device_csv`, a simulated drive's internals, when it
/// names one) as `report` reads it ([`runs::read_device`]): a completed phase's is there and has a row for
/// each of its intervals, as its series CSV; a failed phase's may be gone or cut short (the report draws
/// what there is).
fn device(dir: &Path, (i, p): (usize, &Named)) -> Result<(), String> {
    let name = p.device.as_deref();
    let Some(b) = Beside::of(dir, (i, "device.device_csv"), name, !p.completed)? else {
        return Ok(());
    };
    let rows = runs::read_device(&b.path).map_err(|e| e.to_string())?;
    match p
        .intervals
        .filter(|&n| p.completed && n != rows.len() as u64)
    {
        Some(n) => Err(b.at(format!(
            "{} rows, where results.json says phase {:?} has {n} intervals",
            rows.len(),
            p.phase
        ))),
        None => Ok(()),
    }
}

/// Reads each series CSV the phases of the results file `file` name (`named`: `phases[i].series_csv`, its
/// phase's `intervals`, its histogram log and trace); what is wrong goes into `problems`. The CSVs read whole.
fn series(file: &Path, named: &[Named], problems: &mut Vec<String>) -> usize {
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut whole = 0;
    for (i, p) in named.iter().enumerate() {
        let Some(name) = p.csv.as_deref() else {
            continue;
        };
        if !plain_file_name(name) {
            problems.push(
                ReadError::BadName {
                    path: file.to_path_buf(),
                    field: format!("phases[{i}].series_csv"),
                    name: name.to_string(),
                }
                .to_string(),
            );
            continue;
        }
        let path = dir.join(name);
        let read = runs::read_series(&path).and_then(|rows| {
            runs::row_count(&path, &p.phase, rows.len(), p.intervals)?;
            Ok(rows)
        });
        match read {
            Ok(rows) => {
                whole += 1;
                problems.extend(beside(dir, (i, p), Some(&rows)));
            }
            Err(e) => {
                problems.push(e.to_string());
                problems.extend(beside(dir, (i, p), None));
            }
        }
    }
    whole
}
