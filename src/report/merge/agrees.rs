//! `wkrun validate` of the aggregate of a run on several targets against its targets' folders: each phase
//! as [`super::merge_targets`] makes it from the targets' phases (the phases every target has; each one's
//! name and kind, its first target's parameters, the targets' ops and bytes added, the span from the
//! earliest start to the latest end, the earliest start, completed when every target's did, a part per
//! target); and the entries of `cluster.hosts` against the targets its `target.path` joins.

use crate::report::runs::RunData;
use crate::results::series_csv::{SeriesRow, csv_bytes, directions, header};
use crate::results::{PhaseResult, Results};
use crate::vocab::Direction;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The parameters a run's targets share (the spec's and its `--set`s'): the aggregate's phase takes its
/// first target's whole, and every other target's has these of it.
const SHARED: [&str; 6] = [
    "block_size_bytes",
    "queue_depth",
    "workers",
    "read_percent",
    "trim_percent",
    "duration_ns",
];

/// What is wrong with the aggregate `r` (read from `file`) against its targets `theirs` (each one's
/// results file and results, in `cluster.hosts` order, every one read): its phases are not those every
/// target has, or, per phase, the first figure that is not what the merge of the targets' phases makes,
/// each message naming the phase, the figure, the aggregate's value and the targets'.
pub fn against_targets(file: &Path, r: &Results, theirs: &[(PathBuf, Results)]) -> Vec<String> {
    let Some((_, first)) = theirs.first() else {
        return Vec::new();
    };
    // As `merge::merged_phases` of targets: the first target's phases that every target has, by index.
    let at = |t: &Results, i: usize| t.phases.binary_search_by_key(&i, |q| q.index).ok();
    let common: Vec<usize> = (first.phases.iter().map(|p| p.index))
        .filter(|&i| theirs.iter().all(|(_, t)| at(t, i).is_some()))
        .collect();
    let own: Vec<usize> = r.phases.iter().map(|p| p.index).collect();
    if own != common {
        return vec![format!(
            "{}: its phases (by index) {own:?} are not those every target's folder holds, {common:?}: an aggregate holds the phases all its targets have",
            file.display()
        )];
    }
    let files: Vec<&Path> = theirs.iter().map(|(f, _)| f.as_path()).collect();
    let wrong: Vec<String> = r
        .phases
        .iter()
        .filter_map(|m| {
            let parts: Vec<&PhaseResult> = (theirs.iter())
                .filter_map(|(_, t)| at(t, m.index).map(|k| &t.phases[k]))
                .collect();
            let why = names(m, &parts, &files)
                .or_else(|| counts(m, &parts, &files))
                .or_else(|| params(m, &parts, &files))
                .or_else(|| span(m, &parts))?;
            Some(format!(
                "{}: phase {} \"{}\": {why}: an aggregate's phase is its targets' phases merged",
                file.display(),
                m.index,
                m.name
            ))
        })
        .collect();
    match wrong.is_empty() {
        true => remerged(file, r, theirs),
        false => wrong,
    }
}

/// What differs between the aggregate `r` (read from `file`) and what the run makes of its targets'
/// folders `theirs` by the same code ([`super::merge_targets`]): its `target` (the capacities added, the
/// largest block sizes; its path is held to its hosts' elsewhere), its blocks of rounds, its plan
/// (`planned_phases`, [`plan`]), and each phase
/// field by field (its parts per target in `hosts`, latency from the
/// added histograms, the histograms, `ops_by_size`, `read_share`, the headline figures of the merged
/// series...): the first difference of each, with the aggregate's value and the merge's. The names of
/// the files beside (`series_csv`, `hist_log`) are compared only where the aggregate names one (an
/// aggregate whose series could not be written names none).
fn remerged(file: &Path, r: &Results, theirs: &[(PathBuf, Results)]) -> Vec<String> {
    let files: Vec<PathBuf> = theirs.iter().map(|(f, _)| f.clone()).collect();
    let (mut m, series) = match super::merge_targets(&files) {
        Ok(m) => (m.results, m.series),
        Err(e) => {
            return vec![format!(
                "{}: its targets' folders do not merge: {e}",
                file.display()
            )];
        }
    };
    let json = |v: serde_json::Result<Value>| v.unwrap_or(Value::Null);
    let mut out = Vec::new();
    // Its path against its hosts' is said by `validate::joined`.
    m.target.path = r.target.path.clone();
    let target = differs(
        &json(serde_json::to_value(&r.target)),
        &json(serde_json::to_value(&m.target)),
        "target".to_string(),
    );
    if let Some((at, own, made)) = target {
        out.push(format!(
            "{}: {at} {own} is not what the run writes of its targets, {made}: an aggregate's target is its targets' together",
            file.display()
        ));
    }
    let blocks = differs(
        &json(serde_json::to_value(&r.round_blocks)),
        &json(serde_json::to_value(&m.round_blocks)),
        "round_blocks".to_string(),
    );
    if let Some((at, own, made)) = blocks {
        out.push(format!(
            "{}: {at} {own} is not what the run judges of its merged phases, {made}: an aggregate's blocks of rounds are judged from its phases",
            file.display()
        ));
    }
    out.extend(plan(file, r, &m, MERGED));
    let dir = file.parent().unwrap_or(Path::new("."));
    for ((own, made), rows) in r.phases.iter().zip(&m.phases).zip(&series) {
        out.extend(own_rows(dir, own, rows.as_deref()));
        let mut made = made.clone();
        made.series_csv = made.series_csv.filter(|_| own.series_csv.is_some());
        made.hist_log = made.hist_log.filter(|_| own.hist_log.is_some());
        let (a, b) = (
            json(serde_json::to_value(own)),
            json(serde_json::to_value(&made)),
        );
        if let Some((at, own_v, made_v)) = differs(&a, &b, String::new()) {
            out.push(format!(
                "{}: phase {} \"{}\": {at} {own_v} is not what merging its targets' phases makes, {made_v}: an aggregate's phase is its targets' phases merged",
                file.display(),
                own.index,
                own.name
            ));
        }
    }
    out
}

/// [`plan`] of an aggregate against the merge of its targets.
const MERGED: &str = "what the run writes of its targets' plans";

/// How the plan merged results `r` (read from `file`) keep (`planned_phases`, `from_phase`) differs from
/// `made`'s (the merge of its parts, or one host's own results, `whose` naming it): the first difference,
/// with both values; of a host's, only the fields the merge keeps (it keeps none that a part lacks). A
/// merge keeps its parts' plan, the same for every part.
fn plan(file: &Path, r: &Results, made: &Results, whose: &str) -> Option<String> {
    let host = whose != MERGED;
    let kept = |m: &Results| {
        let planned = m
            .planned_phases
            .as_ref()
            .filter(|_| !host || r.planned_phases.is_some());
        let from = m
            .from_phase
            .as_ref()
            .filter(|_| !host || r.from_phase.is_some());
        serde_json::json!({ "planned_phases": planned, "from_phase": from })
    };
    let (at, own, made) = differs(&kept(r), &kept(made), String::new())?;
    Some(format!(
        "{}: {at} {own} is not {whose}, {made}: a merge keeps the plan of the runs it merges",
        file.display()
    ))
}

/// How the aggregate's series CSV of phase `own` (in `dir`, when it names one that reads; what does not read
/// is said by `validate`) differs from the rows `made` that merging its targets' series makes
/// ([`super::merge_targets`], the code that wrote it): its number of rows, or the first row and column
/// whose cell is not the one the writer makes of the merged row, both written as the writer writes them
/// ([`csv_bytes`], with the columns it chooses: reads, writes and any direction with I/O).
fn own_rows(dir: &Path, own: &PhaseResult, made: Option<&[SeriesRow]>) -> Option<String> {
    let (Some(name), Some(made)) = (own.series_csv.as_deref(), made) else {
        return None;
    };
    let path = dir.join(name);
    let rows = crate::report::runs::read_series(&path).ok()?;
    let said = |why: String| {
        let why = format!("{why}: an aggregate's series is its targets' series merged");
        Some(
            crate::report::ReadError::Series {
                path: path.clone(),
                why,
            }
            .to_string(),
        )
    };
    if rows.len() != made.len() {
        return said(format!(
            "{} rows, where merging its targets' rows makes {}",
            rows.len(),
            made.len()
        ));
    }
    let dirs = directions(|d| made.iter().any(|r| r[d].ops > 0));
    let text = |rows: &[SeriesRow]| {
        csv_bytes(rows, &dirs).map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let (Ok(a), Ok(b)) = (text(&rows), text(made)) else {
        return None;
    };
    let columns = header(&dirs);
    let (k, (x, y)) = a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)?;
    let (column, x, y) = (columns.iter().zip(x.split(',').zip(y.split(','))))
        .find(|(_, (x, y))| x != y)
        .map(|(c, (x, y))| (c.as_str(), x, y))?;
    said(format!(
        "line {}: column {column}: {x} is not what merging its targets' rows makes, {y}",
        k + 1
    ))
}

/// The first place (a dotted path below `at`) where `a` differs from `b`, with each one's value there
/// (`absent` where one has none; an array's length where the lengths differ); numbers that are not whole
/// agree within rounding ([`crate::results::check::close`]), whole ones exactly.
fn differs(a: &Value, b: &Value, at: String) -> Option<(String, String, String)> {
    let shown = |v: Option<&Value>| match v {
        Some(v) => crate::text::echo(&v.to_string()).into_owned(),
        None => "absent".to_string(),
    };
    let below = |k: &str| match at.is_empty() {
        true => k.to_string(),
        false => format!("{at}.{k}"),
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (!crate::results::check::close(x, y)).then(|| (at, shown(Some(a)), shown(Some(b))))
        }
        (Value::Array(x), Value::Array(y)) if x.len() != y.len() => Some((
            at,
            format!("holds {} items", x.len()),
            format!("{} items", y.len()),
        )),
        (Value::Array(x), Value::Array(y)) => (x.iter().zip(y).enumerate())
            .find_map(|(k, (x, y))| differs(x, y, format!("{at}[{k}]"))),
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => differs(p, q, below(k)),
                (p, q) => Some((below(k), shown(p), shown(q))),
            })
        }
        _ => (a != b).then(|| (at, shown(Some(a)), shown(Some(b)))),
    }
}

/// How host `k` of the merged results `r` (read from `file`) differs from what `wkrun merge` makes of that
/// host's own results `run` (read where its `cluster.hosts[k].results` names them): its `cluster.hosts`
/// entry (all but `results`, the path as given), the plan it keeps (`planned_phases` and `from_phase`, each
/// when it keeps one) and its part of each merged phase (`phases[i].hosts[k]`,
/// of the host's phase of the same index), the first difference of each named with both values.
pub fn against_host(file: &Path, r: &Results, k: usize, run: &RunData) -> Vec<String> {
    let json = |v: serde_json::Result<Value>| v.unwrap_or(Value::Null);
    let mut out = Vec::new();
    let Some(entry) = r.cluster.as_ref().and_then(|c| c.hosts.get(k)) else {
        return out;
    };
    let theirs = run.file.display();
    let mut made = super::host(run);
    made.results = entry.results.clone();
    let (a, b) = (
        json(serde_json::to_value(entry)),
        json(serde_json::to_value(&made)),
    );
    if let Some((at, own, made)) = differs(&a, &b, format!("cluster.hosts[{k}]")) {
        out.push(format!(
            "{}: {at} {own} is not {theirs}'s, {made}: a host's entry is its own results'",
            file.display()
        ));
    }
    // The merge keeps the hosts' plan when every host has one.
    out.extend(plan(file, r, &run.results, &format!("{theirs}'s")));
    for (i, p) in r.phases.iter().enumerate() {
        let Some(part) = p.hosts.get(k) else { continue };
        let at = format!("phases[{i}].hosts[{k}]");
        let q = run.results.phases.iter().find(|q| q.index == p.index);
        // A part that began the phase is its host's phase; one that did not, the blank of a run that ended
        // before it (which the host's results, holding no such phase, are).
        if q.is_none() && part.began() {
            out.push(format!(
                "{}: {at}: {theirs} holds no phase {} \"{}\": a merged phase's parts are its hosts' phases",
                file.display(),
                p.index,
                p.name
            ));
            continue;
        }
        let made = super::phase::host_part(run, k, p.index, q);
        let (a, b) = (
            json(serde_json::to_value(part)),
            json(serde_json::to_value(&made)),
        );
        if let Some((at, own, made)) = differs(&a, &b, at) {
            out.push(format!(
                "{}: {at} {own} is not what {theirs} holds of phase {} \"{}\", {made}: a host's part is its own phase's figures",
                file.display(),
                p.index,
                p.name
            ));
        }
    }
    out
}

/// A target's phase whose name or kind is not the aggregate phase `m`'s.
fn names(m: &PhaseResult, parts: &[&PhaseResult], files: &[&Path]) -> Option<String> {
    let (h, p) = (parts.iter().enumerate()).find(|(_, p)| p.name != m.name || p.kind != m.kind)?;
    Some(format!(
        "{} holds phase {} \"{}\" ({}), not \"{}\" ({})",
        files[h].display(),
        p.index,
        p.name,
        p.kind.as_str(),
        m.name,
        m.kind.as_str()
    ))
}

/// The first count of the aggregate phase `m` (total, then each direction's ops and bytes) that is not
/// the targets' added, with each target's.
fn counts(m: &PhaseResult, parts: &[&PhaseResult], files: &[&Path]) -> Option<String> {
    /// Every direction's ops (or bytes) of `p`, as the merge adds them into its total.
    fn all(p: &PhaseResult, bytes: bool) -> u64 {
        let one = |d: Direction| if bytes { p.dir(d).bytes } else { p.dir(d).ops };
        Direction::ALL.iter().map(|&d| one(d)).sum()
    }
    type Of = fn(&PhaseResult) -> u64;
    let figures: [(&str, Of, Of); 8] = [
        ("total.ops", |p| p.total.ops, |p| all(p, false)),
        ("total.bytes", |p| p.total.bytes, |p| all(p, true)),
        ("read.ops", |p| p.read.ops, |p| p.read.ops),
        ("read.bytes", |p| p.read.bytes, |p| p.read.bytes),
        ("write.ops", |p| p.write.ops, |p| p.write.ops),
        ("write.bytes", |p| p.write.bytes, |p| p.write.bytes),
        (
            "trim.ops",
            |p| p.dir(Direction::Trim).ops,
            |p| p.dir(Direction::Trim).ops,
        ),
        (
            "trim.bytes",
            |p| p.dir(Direction::Trim).bytes,
            |p| p.dir(Direction::Trim).bytes,
        ),
    ];
    figures.into_iter().find_map(|(name, own, theirs)| {
        let each: Vec<u64> = parts.iter().map(|p| theirs(p)).collect();
        let sum = each.iter().try_fold(0u64, |a, &b| a.checked_add(b));
        (sum != Some(own(m))).then(|| {
            let each: Vec<String> = (files.iter().zip(&each))
                .map(|(f, n)| format!("{} {n}", f.display()))
                .collect();
            let sum = sum.map_or("past 64 bits".to_string(), |s| s.to_string());
            format!(
                "{name} {} is not its targets' sum, {sum} ({})",
                own(m),
                each.join(" + ")
            )
        })
    })
}

/// The first parameter of the aggregate phase `m` that is not its first target's (the merge copies them),
/// or of those a run's targets share ([`SHARED`]) that another target's phase has otherwise.
fn params(m: &PhaseResult, parts: &[&PhaseResult], files: &[&Path]) -> Option<String> {
    let json = |p: &PhaseResult| match serde_json::to_value(&p.params) {
        Ok(serde_json::Value::Object(o)) => o,
        _ => serde_json::Map::new(),
    };
    let own = json(m);
    let shown = |v: Option<&serde_json::Value>| v.map_or("absent".to_string(), |v| v.to_string());
    for (h, p) in parts.iter().enumerate() {
        let theirs = json(p);
        let keys: Vec<&String> = match h {
            0 => own.keys().chain(theirs.keys()).collect(),
            _ => own
                .keys()
                .filter(|k| SHARED.contains(&k.as_str()))
                .collect(),
        };
        if let Some(k) = keys.into_iter().find(|k| own.get(*k) != theirs.get(*k)) {
            return Some(format!(
                "params.{k} {} is not {}'s, {}",
                shown(own.get(k)),
                files[h].display(),
                shown(theirs.get(k))
            ));
        }
    }
    None
}

/// The aggregate phase `m`'s duration, start, completion or parts that are not what the merge makes of
/// `parts`: the span from the earliest start to the latest end ([`super::phase::span`]), the earliest
/// start, completed when every part did, a part per target.
fn span(m: &PhaseResult, parts: &[&PhaseResult]) -> Option<String> {
    let s = super::phase::span(parts);
    let started = parts.iter().map(|p| p.started_at.as_str()).min();
    let completed = parts.iter().all(|p| p.completed);
    if m.duration_s != s.duration_s {
        return Some(format!(
            "duration_s {} is not its targets' span, {} (from the earliest start to the latest end)",
            m.duration_s, s.duration_s
        ));
    }
    if Some(m.started_at.as_str()) != started || m.series_t0_unix_ns != s.origin {
        return Some(format!(
            "started_at {:?} (series_t0_unix_ns {:?}) is not its targets' earliest, {:?} ({:?})",
            m.started_at,
            m.series_t0_unix_ns,
            started.unwrap_or_default(),
            s.origin
        ));
    }
    if m.completed != completed {
        return Some(format!(
            "completed {} is not its targets' (every one completed: {completed})",
            m.completed
        ));
    }
    (m.hosts.len() != parts.len()).then(|| {
        format!(
            "hosts holds {} parts, not one per target ({})",
            m.hosts.len(),
            parts.len()
        )
    })
}

/// What is wrong with `cluster.hosts` of `r` (read from `file`), which names no target's folder: its
/// `target.path` is neither its first host's (as `wkrun merge` writes it) nor its hosts' joined with
/// ` + ` (as a run on several targets does), as when an entry of an aggregate's is gone (with one entry
/// left, nothing made it an aggregate whose targets' folders are read).
pub fn hosts_named(file: &Path, r: &Results) -> Option<String> {
    let hosts = &r.cluster.as_ref()?.hosts;
    let first = hosts.first()?;
    let path = r.target.path.display().to_string();
    let paths: Vec<&str> = hosts.iter().map(|h| h.target_path.as_str()).collect();
    let joined = paths.join(" + ");
    if path == first.target_path || path == joined {
        return None;
    }
    let named = path.split(" + ").count();
    let n = hosts.len();
    let entries = if n == 1 { "entry" } else { "entries" };
    Some(match named != n {
        true => format!(
            "{}: target.path {path:?} joins {named} targets' paths but cluster.hosts has {n} {entries} ({joined:?}): an aggregate has an entry per target",
            file.display()
        ),
        false => format!(
            "{}: target.path {path:?} is neither its first host's target path {:?} (as wkrun merge writes it) nor its hosts' joined, {joined:?} (as a run on several targets writes it)",
            file.display(),
            first.target_path
        ),
    })
}
