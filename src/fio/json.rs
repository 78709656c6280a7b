//! fio's JSON output (`--output-format=json` or `json+`) as results: each job fio reports (each group with
//! `group_reporting`) becomes a workload phase with its reads and writes (I/Os, bytes, IOPS, bandwidth,
//! latency: fio's total latency `lat_ns` for min, mean, stddev and max; percentiles from `lat_ns` when fio
//! computed them, `lat_percentiles=1`, else from its completion latency `clat_ns`, which a warning says;
//! with `json+`, from its latency bins, which also give the phase's histograms); a job's `numjobs` clones,
//! which fio reports one by one without `group_reporting`, are one phase, summed as that option would. The parameters come from
//! the job's options where fio lists them. What fio does not give is absent (a host, a target's geometry,
//! a series), never invented; [`crate::results::Results::source`] says the results are fio's.

use crate::fio::import::job::{Blocks as Sizes, set_sizes, split, used_sizes};
use crate::fio::region;
use crate::fio::value::{self, Size};
use crate::plan::{PhaseParams, SizeWeight};
use crate::results::{
    DirStats, FlushResult, LatencyHistograms, PhaseResult, ReadShare, Results, ResultsSource,
    SpecRef, Status, SyncResult,
};
use crate::stats::derived::Headline;
use crate::stats::{LatencyMoments, LatencySummary, SomePercentiles};
use crate::vocab::{EngineKind, Pattern, PhaseKind, SyncWrites};
use serde_json::{Map, Value};

/// The warning of a phase whose percentiles are fio's completion latency, of I/Os whose submission fio timed
/// apart (`slat_ns.N` above 0: reads and writes on its queue engines, libaio and io_uring).
const CLAT: &str = "latency percentiles are fio's completion latency (clat, from submission to completion, without the submission's own time); min, mean and max are its total latency (lat); fio's lat_percentiles=1 gives total-latency percentiles";

/// The warning of a phase whose percentiles are fio's completion latency of I/Os fio times in one piece
/// (`slat_ns.N` 0: its trims on every engine, and every I/O of its sync engines, psync, sync, pvsync,
/// pvsync2, falloc): there clat is the whole time, and fio's lat is clat and under a µs of its own
/// bookkeeping (fio 3.33, measured on a loop device and a file: randtrim lat − clat means of 0.1 to 0.5 µs
/// on libaio, io_uring, psync and falloc).
const CLAT_WHOLE: &str = "latency percentiles are fio's completion latency (clat) of I/Os it times in one piece (slat_ns.N is 0: trims, and I/Os on fio's sync engines), which is their whole time, as wkrun's; min, mean and max are its total latency (lat), the same time and under a µs of fio's bookkeeping";

/// The warning of a phase whose job names no size: fio ran it over the whole of its target (`what`: `file`,
/// or `device` for a `filename` under /dev, as [`target`] takes it), whose size is not in its output.
fn whole_target(what: &str) -> String {
    format!(
        "the job names no size: fio ran it over the whole {what}, whose size its output does not give (params.span_bytes is 0: unknown, not compared)"
    )
}

/// What a job's target is, as the warning of [`whole_target`] and the report name it: `device` for a `filename`
/// under /dev (fio's block device), else `file` (fio's own file, named after the job without `filename`).
fn target_word(filename: Option<&str>) -> &'static str {
    match filename.is_some_and(|f| f.starts_with("/dev/")) {
        true => "device",
        false => "file",
    }
}

/// Which of fio's latencies results read from fio's JSON compare with wkrun's (from submission to
/// completion), for `wkrun compare` to say under its table; `None` for results that are not fio's.
pub fn latency_caveat(r: &Results) -> Option<String> {
    r.source.as_ref().filter(|s| s.tool == "fio")?;
    let said = |warning: &str| (r.phases.iter()).any(|p| p.warnings.iter().any(|w| w == warning));
    // Trims, and I/Os on fio's sync engines, fio times in one piece: their clat is their whole time
    // (trial 21 T2: a trim p50 of 5.73 µs beside a mean of 1279 µs was fio's own figure, not a part of it).
    let whole = "; for trims, and I/Os on fio's sync engines, fio times no submission apart (slat_ns.N is 0) and clat is their whole time";
    let text: String = match (said(CLAT), said(CLAT_WHOLE)) {
        (true, w) => format!("latency min, mean and max are fio's total latency (lat: submission to completion, as wkrun's); its percentiles (p50, p99, p99.9) are fio's completion latency (clat), which leaves out the submission's own time, so they can read lower than wkrun's for the same I/Os (fio's lat_percentiles=1 gives total-latency percentiles){}", if w { whole } else { "" }),
        (false, true) => "latency figures are fio's: min, mean and max its total latency (lat: submission to completion, as wkrun's); its percentiles (p50, p99, p99.9) its completion latency (clat) of I/Os it times in one piece (slat_ns.N is 0: trims, and I/Os on fio's sync engines), which is their whole time, as wkrun's".into(),
        (false, false) => "latency figures are fio's total latency (lat: submission to completion, as wkrun's)".into(),
    };
    // Each phase whose percentiles fio's output lacks some of, named with them ([`lacking`]), and each
    // whose reads, writes and trims fio reported together ([`split_unknown`]), or as clones with no
    // percentiles ([`clones_without_percentiles`]).
    let lacks = r.phases.iter().flat_map(|p| {
        let said = |w: &&String| {
            w.starts_with(LACKS)
                || [super::plausible::SQ_POLL, super::plausible::SQ_POLL_SEEN].contains(&w.as_str())
        };
        p.warnings
            .iter()
            .filter(said)
            .map(move |w| format!("; phase {}: {w}", p.name))
    });
    let together = (r.phases.iter())
        .filter_map(|p| Some(format!("; phase {}: {}", p.name, split_unknown(p)?)));
    let clones = (r.phases.iter()).filter_map(|p| {
        Some(format!(
            "; phase {}: {}",
            p.name,
            clones_without_percentiles(p)?
        ))
    });
    let lacks = lacks.chain(together).chain(clones);
    Some(std::iter::once(text).chain(lacks).collect())
}

/// How the warning of [`lacking`] starts.
const LACKS: &str = "fio's output lacks ";

/// How the warning of a phase summed from a job's `numjobs` clones starts ([`read_warnings`]).
const CLONES: &str = "fio reported this job's ";

/// Why phase `p` read from fio's JSON has no latency percentiles (`compare` shows them `-`): its job's
/// `numjobs` clones, reported one by one without `group_reporting`, were summed, and clones' percentiles
/// cannot be added up; from json+ latency bins wkrun adds them, so a phase read from `json+` has them and
/// this is `None` (trial 25 F5: the `-` had no word why). `None` for any other phase.
pub fn clones_without_percentiles(p: &PhaseResult) -> Option<String> {
    let clones = warned(p, CLONES)?;
    let n = clones[CLONES.len()..].split(' ').next().unwrap_or("?");
    let absent =
        |d: &DirStats| d.ops > 0 && d.latency_ns.is_none() && d.latency_moments_ns.is_some();
    [&p.read, &p.write].into_iter().chain(p.trim.as_ref()).any(absent).then(|| {
        format!(
            "latency percentiles absent, shown -: fio reported the job's {n} clones (numjobs without group_reporting) one by one, and percentiles of clones cannot be added up from fio's json output; with --output-format=json+ they can (wkrun adds up the clones' latency bins), or fio's group_reporting gives them for the whole"
        )
    })
}

/// How much of a file's start [`looks_like_fio`] looks at: a file whose first 64 KiB do not say it is fio's
/// output is not read as one.
pub const HEAD_BYTES: usize = 64 << 10;

/// Whether a file (`bytes`, or its first [`HEAD_BYTES`] or more) is fio's output: within its first
/// [`HEAD_BYTES`], a JSON object, perhaps after fio's notes or normal text on lines of their own
/// (`--output-format=normal,json`), naming `"fio version"` (fio's text report after it is ignored by
/// [`from_bytes`]). What every reader of results tells fio's output by: `validate` (before trying a spec),
/// `compare`, `report`, `warnings` and the results library.
pub fn looks_like_fio(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD_BYTES)]);
    json_start(&text).is_some_and(|i| text[i..].contains("\"fio version\""))
}

/// Where the JSON object starts: the first line that starts with `{` (fio writes notes before it when its
/// output goes to stdout).
fn json_start(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('{') {
            return Some(at + (line.len() - line.trim_start().len()));
        }
        at += line.len();
    }
    None
}

/// fio's JSON document in `text`: the first, after fio's notes; fio's normal text after it
/// (`--output-format=normal,json`) is ignored, another JSON document is refused ([`second_document`])
/// unless the documents are fio's `--status-interval` reports of one run: then the last, the final
/// report, with the note that says so ([`super::status::final_report`]).
///
/// # Errors
/// No JSON document, one cut short or that is not JSON, or a second one, in words.
fn the_document(text: &str) -> Result<(Value, Option<String>), String> {
    let text = &*raw_controls_escaped(text);
    let start = json_start(text).ok_or("no JSON object in it")?;
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let first = stream.next().ok_or("no JSON object in it")?;
    let end = start + stream.byte_offset();
    let doc = first.map_err(|e| {
        if e.is_eof() {
            format!(
                "fio's JSON output cut short (it ends at line {} before its end)",
                e.line()
            )
        } else {
            format!("not fio's JSON output: {e}")
        }
    })?;
    if let Some(at) = second_document(&text[end..]) {
        // fio's --status-interval writes one run's reports one after the other: its last is final.
        let line = text[..end + at].matches('\n').count() + 1;
        let ends = text[..end].matches('\n').count() + 1;
        let why = match super::status::final_report(doc.clone(), &text[end..]) {
            Some(Ok((last, k))) => {
                let note = super::status::STATUS_INTERVAL;
                return Ok((last, Some(format!("{note} (document {k} of {k})"))));
            }
            // fio's documents, but not one run's reports (--status-interval): two runs' output.
            Some(Err(why)) => format!(", not a later report of the same fio run: {why}"),
            None => String::new(),
        };
        return Err(format!(
            "line {line} starts a second JSON document after fio's (which ends at line {ends}){why}: one fio run's output per file: split it"
        ));
    }
    Ok((doc, None))
}

/// `text` with each control character (U+0000 to U+001F) that stands raw inside a JSON string written as
/// its escape (`\u001b`), as fio means it: fio writes a job name's (and a file name's) characters into its
/// JSON unescaped, so a name holding an escape sequence made invalid JSON (attack 26 F8). Only inside
/// strings: between them such a character is white space or not JSON at all, and stays. A string is one
/// inside a JSON value (after a `{` or `[` not yet closed), so that a quote in fio's normal text after the
/// document starts none. Borrowed when nothing needed escaping (every valid JSON text).
fn raw_controls_escaped(text: &str) -> std::borrow::Cow<'_, str> {
    let (mut depth, mut in_string, mut after_backslash) = (0u64, false, false);
    let mut out: Option<String> = None;
    for (i, c) in text.char_indices() {
        match (in_string, c) {
            (true, c) if c < ' ' => {
                let o = out.get_or_insert_with(|| text[..i].to_string());
                o.push_str(&format!("\\u{:04x}", u32::from(c)));
                after_backslash = false;
                continue;
            }
            (true, '\\') => after_backslash = !after_backslash,
            (true, '"') if !after_backslash => in_string = false,
            (true, _) => after_backslash = false,
            (false, '"') if depth > 0 => in_string = true,
            (false, '{' | '[') => depth += 1,
            (false, '}' | ']') => depth = depth.saturating_sub(1),
            (false, _) => {}
        }
        if let Some(o) = out.as_mut() {
            o.push(c);
        }
    }
    match out {
        Some(o) => std::borrow::Cow::Owned(o),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Where another JSON document starts in `tail`, the text after fio's JSON document, if one does: a JSON
/// value first in it (past white space), or on a line that starts with `{`, whole or cut short. fio's normal
/// text (`--output-format=normal,json` writes it after the JSON) is not one: none of its lines starts a JSON
/// value, and a job's line that starts with one (a job named `1`, `"q"` or `{}`) goes on with `: (groupid=`.
fn second_document(tail: &str) -> Option<usize> {
    let first = tail.len() - tail.trim_start().len();
    let lines = tail.split_inclusive('\n').scan(0, |at, line| {
        let here = *at + (line.len() - line.trim_start().len());
        *at += line.len();
        Some((here, line.trim_start().starts_with('{')))
    });
    std::iter::once((first, first < tail.len()))
        .chain(lines)
        .filter(|&(_, candidate)| candidate)
        .map(|(at, _)| at)
        .find(|&at| {
            let mut s = serde_json::Deserializer::from_str(&tail[at..])
                .into_iter::<serde::de::IgnoredAny>();
            match s.next() {
                Some(Ok(_)) => !tail[at + s.byte_offset()..].starts_with(':'),
                Some(Err(e)) => e.is_eof(),
                None => false,
            }
        })
}

/// The most jobs wkrun reads from one fio JSON output: as many as a spec's phases
/// ([`crate::spec::expand::MAX_PHASES`]); the file itself is read within the results' limit of 512 MiB.
pub const MAX_JOBS: u64 = crate::spec::expand::MAX_PHASES;

/// The results fio's JSON output `bytes` (read from `file`) holds.
///
/// # Errors
/// Why it is not fio's JSON output, or is cut short, in words: the first of [`read`]'s problems.
pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<Results, String> {
    read(file, bytes).map_err(|all| all.into_iter().next().unwrap_or_default())
}

/// The results fio's JSON output `bytes` (read from `file`) holds, or every problem found in it: fio's
/// line saying its process died of a signal ([`super::status::crashed`]) first, then what the document
/// holds that no finished fio run reports, each job's findings in its order (what `validate` lists).
///
/// # Errors
/// Each problem in words, the crash line first.
pub fn read(file: &str, bytes: &[u8]) -> Result<Results, Vec<String>> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        vec![format!(
            "not text (the byte at offset {} is not UTF-8)",
            e.valid_up_to()
        )]
    })?;
    let mut problems: Vec<String> = super::status::crashed(text).into_iter().collect();
    match results(file, bytes, text) {
        Ok(r) if problems.is_empty() => Ok(r),
        Ok(_) => Err(problems),
        Err(found) => {
            problems.extend(found);
            Err(problems)
        }
    }
}

/// The results of fio's JSON output `text` (`bytes`, read from `file`).
///
/// # Errors
/// Why it is not fio's JSON output (one), or each job's first figure no fio run reports.
fn results(file: &str, bytes: &[u8], text: &str) -> Result<Results, Vec<String>> {
    let (doc, status_note) = the_document(text).map_err(|e| vec![e])?;
    let one = |e: &str| vec![e.to_string()];
    let obj = doc.as_object().ok_or_else(|| one("not a JSON object"))?;
    let version = (obj.get("fio version").and_then(Value::as_str))
        .ok_or_else(|| one("no \"fio version\": not fio's JSON output"))?;
    let (jobs, server) = job_list(obj).map_err(|e| vec![e])?;
    let jobs = &jobs;
    if jobs.is_empty() {
        return Err(one("\"jobs\" is empty: fio's output has no job to read"));
    }
    if jobs.len() as u64 > MAX_JOBS {
        return Err(one(&format!(
            "\"jobs\" has {} jobs, more than the {MAX_JOBS} wkrun reads (the most phases a results file may have)",
            jobs.len()
        )));
    }
    let (started, finished) = when(obj, jobs);
    let globals = obj.get("global options").and_then(Value::as_object);
    let mut phases = Vec::new();
    let mut failed = Vec::new();
    let mut objs = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        let j = (j.as_object()).ok_or_else(|| one(&format!("jobs[{i}] is not an object")))?;
        if empty_group_entry(j) {
            continue;
        }
        if let Some(why) = failure(j, globals) {
            failed.push(format!("fio job {}: {why}", name(j)));
        }
        objs.push((i, j));
    }
    if objs.is_empty() {
        return Err(one(
            "\"jobs\" has only fio's empty group entry: fio's output has no job to read",
        ));
    }
    let stopped = super::status::terminated(text);
    let mut found = Vec::new();
    let mut files = Vec::new();
    for (index, clones) in clone_groups(&objs, globals).into_iter().enumerate() {
        match phase(index, clones, globals, &started) {
            Ok(mut p) => {
                if let Some((sig, line)) = &stopped {
                    stop(&mut p, clones, globals, (sig, line));
                }
                phases.push(p);
                files.push(opt(clones[0].1, globals, "filename"));
            }
            Err(e) => found.extend(e),
        }
    }
    if !found.is_empty() {
        return Err(found);
    }
    together(&mut phases, &files, elapsed_s(jobs));
    distinct_names(&mut phases);
    for p in &mut phases {
        p.warnings.extend(status_note.clone());
    }
    let sha = {
        use sha2::{Digest, Sha256};
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let target = target(jobs, globals);
    Ok(Results {
        format: crate::results::RESULTS_FORMAT,
        wkrun_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: started,
        finished_at: Some(finished),
        status: match (&stopped, failed.is_empty()) {
            (Some(_), _) => Status::Interrupted,
            (None, true) => Status::Completed,
            (None, false) => Status::Failed,
        },
        error: (!failed.is_empty()).then(|| failed.join("; ")),
        signal: stopped.map(|(sig, _)| sig),
        spec: SpecRef {
            name: "fio".into(),
            version: version.to_string(),
            sha256: sha,
            path: file.to_string(),
            overrides: Vec::new(),
        },
        host: crate::results::HostInfo {
            hostname: server.unwrap_or_default(),
            kernel: String::new(),
            cpus: 0,
        },
        target,
        label: Some(format!("fio: {}", file.rsplit('/').next().unwrap_or(file))),
        launch: None,
        cluster: None,
        source: Some(ResultsSource {
            tool: "fio".into(),
            version: version.to_string(),
            file: file.to_string(),
        }),
        round_blocks: Vec::new(),
        latency_searches: Vec::new(),
        prediction: None,
        health: None,
        planned_phases: None,
        from_phase: None,
        phases,
    })
}

/// fio's job reports in its document `obj`: its `jobs`, or, from fio's client/server mode (`fio
/// --client=HOST`), its `client_stats`, each a job's report as in `jobs` with the `hostname` (and `port`) of
/// the server that ran it, and with the server's name (as `hostname` or `hostname:port`). The jobs of one
/// server are read; several servers' output (and fio's `All clients` sum of them) is refused naming them,
/// as a run's phases have one host.
///
/// # Errors
/// Neither list, or several servers, in words.
fn job_list(obj: &Map<String, Value>) -> Result<(Vec<Value>, Option<String>), String> {
    if let Some(jobs) = obj.get("jobs").and_then(Value::as_array) {
        return Ok((jobs.clone(), None));
    }
    let Some(stats) = obj.get("client_stats").and_then(Value::as_array) else {
        return Err("no \"jobs\" list: not fio's JSON output (or cut short)".into());
    };
    let server = |j: &Value| {
        let host = j.get("hostname").and_then(Value::as_str).unwrap_or("");
        match j.get("port").and_then(Value::as_u64) {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        }
    };
    let mut servers: Vec<String> = stats.iter().map(server).collect();
    servers.dedup();
    match servers.as_slice() {
        [] => Ok((Vec::new(), None)),
        [one] => Ok((stats.clone(), Some(one.clone()))),
        more => Err(format!(
            "fio's client/server output (client_stats) of {} servers ({}): wkrun reads one server's jobs per file (a run's phases ran on one host)",
            more.len(),
            more.join(", ")
        )),
    }
}

/// Marks phase `p` (of the job reports `clones`, with the global options `g`) of fio's output that fio says a
/// signal stopped (`sig`, said on `line`: [`super::status::terminated`]), as wkrun's own interrupted runs
/// mark a phase: not completed (left out of composites and rankings), but for a job that ran its whole
/// `runtime` (a job fio finished before the signal) and one that failed already (said so).
fn stop(
    p: &mut PhaseResult,
    clones: &[(usize, &Map<String, Value>)],
    g: Option<&Map<String, Value>>,
    (sig, line): (&str, &str),
) {
    let whole = clones.iter().all(|(_, j)| {
        let ran = j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0);
        opt(j, g, "runtime")
            .and_then(|v| value::time_us(v, true).ok())
            .is_some_and(|us| us > 0 && ran.saturating_mul(1000) >= us)
    });
    if whole || !p.completed {
        return;
    }
    p.completed = false;
    p.warnings.push(format!(
        "{STOPPED}{sig} ({line}) before this job ran to its end (it ran {} ms): its figures are of the part it ran, and it is left out of composites",
        (p.duration_s * 1000.0).round()
    ));
}

/// How the warning of a phase [`stop`] marks begins.
const STOPPED: &str = "fio was stopped by ";

/// When fio ran, `(start, end)` as RFC 3339: it ended when fio wrote its report (`timestamp_ms`, else
/// `timestamp` in whole seconds) and started its jobs' `elapsed` (whole seconds since fio started, the
/// longest of the jobs) before that; empty (unknown) when fio gives no time.
fn when(obj: &Map<String, Value>, jobs: &[Value]) -> (String, String) {
    let end_ms = obj.get("timestamp_ms").and_then(Value::as_u64).or_else(|| {
        obj.get("timestamp")
            .and_then(Value::as_u64)
            .map(|s| s.saturating_mul(1000))
    });
    let Some(end_ms) = end_ms.filter(|&t| t > 0) else {
        return (String::new(), String::new());
    };
    let elapsed_s = elapsed_s(jobs);
    let at = |ms: u64| crate::launch::rfc3339_ns(ms.saturating_mul(1_000_000));
    (
        at(end_ms.saturating_sub(elapsed_s.saturating_mul(1000))),
        at(end_ms),
    )
}

/// fio's `elapsed`: the whole seconds from its start to its report, rounded up (the longest of the jobs'; 0
/// when fio gives none).
fn elapsed_s(jobs: &[Value]) -> u64 {
    (jobs.iter())
        .filter_map(|j| j.get("elapsed").and_then(Value::as_u64))
        .max()
        .unwrap_or(0)
}

/// The warning of `phases` (each on its file of `files`, as its job names it) that cannot all have run one
/// after another (attack 28 F7): fio runs a job without `stonewall` at the same time as the ones before it,
/// `new_group` only starting a group of its report, and its JSON lists neither when bare, so each group read
/// as a phase looked sequential. Phases that ran one after another fit in fio's `elapsed` (whole seconds,
/// rounded up, [`elapsed_s`]); when their durations add up to more (with the room fio's start leaves, 100 ms
/// and 1 % of the elapsed time, as [`super::status`] takes it), some ran at the same time, on one target
/// where they all name one file. Each phase then warns that its figures may be under another's load (which
/// phases overlapped, fio's JSON does not say); `wkrun import fio` refuses such jobs.
fn together(phases: &mut [PhaseResult], files: &[Option<&str>], elapsed_s: u64) {
    if phases.len() < 2 || elapsed_s == 0 || files.iter().any(|f| *f != files[0]) {
        return;
    }
    let ran_ms: f64 = phases.iter().map(|p| p.duration_s * 1000.0).sum();
    let room_ms = elapsed_s as f64 * 1000.0;
    if ran_ms <= room_ms + 100.0 + room_ms / 100.0 {
        return;
    }
    let w = format!(
        "{TOGETHER}{} phases read here ran {ran_ms:.0} ms in all, more than fio's elapsed {elapsed_s} s from its start to its report, so they did not run one after another: some ran at the same time on one target (fio runs a job without stonewall beside the ones before it, new_group or not, and its JSON lists neither flag when bare), which ones fio's JSON does not say; their figures are under each other's load (`wkrun import fio` refuses jobs that run at the same time on one target)",
        phases.len()
    );
    for p in phases {
        p.warnings.push(w.clone());
    }
}

/// How the warning of phases that ran at the same time ([`together`]) begins.
const TOGETHER: &str = "phases that ran at the same time: the ";

/// Gives each phase a name of its own. fio names a job's report after the job, and two different jobs may
/// share a name (or one job may run again, stonewalled), where a run's phases each have theirs: `compare`
/// and `report` find a phase by its name, and showed the first job's figures only. The second phase of a
/// name is `NAME-2`, the third `NAME-3` (as `wkrun import fio` names a repeated section), past any name a
/// job of the file already has; a warning of the phase says so.
fn distinct_names(phases: &mut [PhaseResult]) {
    let mut taken: std::collections::HashSet<String> =
        phases.iter().map(|p| p.name.clone()).collect();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for p in phases.iter_mut() {
        let n = seen.entry(p.name.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            continue;
        }
        let mut k = *n;
        while taken.contains(&format!("{}-{k}", p.name)) {
            k += 1;
        }
        let new = format!("{}-{k}", p.name);
        taken.insert(new.clone());
        p.warnings.push(format!(
            "fio reported an earlier job of the name {}: this one is the phase {new} here",
            p.name
        ));
        p.name = new;
    }
}

/// A job's name.
fn name(j: &Map<String, Value>) -> String {
    j.get("jobname")
        .and_then(Value::as_str)
        .unwrap_or("fio")
        .to_string()
}

/// The job's option `key` (its own, else the global one), as text.
pub(super) fn opt<'a>(
    j: &'a Map<String, Value>,
    g: Option<&'a Map<String, Value>>,
    key: &str,
) -> Option<&'a str> {
    j.get("job options")
        .and_then(|o| o.get(key))
        .or_else(|| g.and_then(|g| g.get(key)))
        .and_then(Value::as_str)
}

/// The options fio read for job `j`, in the order it read them: the global ones (`g`), then the job's, each
/// in the order fio's JSON lists them.
fn in_order<'a>(
    j: &'a Map<String, Value>,
    g: Option<&'a Map<String, Value>>,
) -> impl Iterator<Item = (&'a str, &'a str)> {
    (g.into_iter())
        .chain(j.get("job options").and_then(Value::as_object))
        .flat_map(|m| m.iter())
        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
}

/// Of the options `keys` that set one thing (`direct` and `buffered`), the one fio read last for job `j` and
/// its value: fio keeps the last it read, as of `rwmixread` and `rwmixwrite` (attack 26, measured with fio
/// 3.33: `--direct=1 --buffered=1` opened the file without O_DIRECT, `--buffered=1 --direct=1` with it).
fn last_of<'a>(
    j: &'a Map<String, Value>,
    g: Option<&'a Map<String, Value>>,
    keys: &[&str],
) -> Option<(&'a str, &'a str)> {
    in_order(j, g).filter(|(k, _)| keys.contains(k)).last()
}

/// Job `j`'s whole-number option `key` (`iodepth`, `numjobs`, `fsync`, ...) as fio and `wkrun import fio`
/// read it ([`value::int`]: `0x8` is 8, `1k` 1024); `None` where absent or not a number.
pub(super) fn int_opt(
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
    key: &str,
) -> Option<u64> {
    opt(j, g, key).and_then(|v| value::int(v, kb_base(j, g, key)).ok())
}

/// Whether job `j` ran with O_DIRECT: the last of `direct` and `buffered` (its inverse) it was given, as fio
/// reads a boolean ([`value::fio_boolean`]); `None` where neither is given (fio's default: buffered).
fn direct(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Option<bool> {
    let (k, v) = last_of(j, g, &["direct", "buffered"])?;
    let (on, _) = value::fio_boolean(v).ok()?;
    Some(on == (k == "direct"))
}

/// The target as the jobs name it (their `filename`), with what fio does not say left empty.
fn target(jobs: &[Value], g: Option<&Map<String, Value>>) -> crate::target::TargetInfo {
    let path = jobs
        .iter()
        .filter_map(|j| j.as_object())
        .find_map(|j| opt(j, g, "filename"))
        .unwrap_or("")
        .to_string();
    let kind = if path.starts_with("/dev/") {
        crate::target::TargetKind::Block
    } else {
        crate::target::TargetKind::File
    };
    crate::target::TargetInfo::new(path, kind, 0, 0, 0)
}

/// Whether two of fio's job reports are clones of one job (`numjobs` without `group_reporting`: fio
/// reports each clone under the job's name and group, one after the other, with the job's options): the
/// same name, group and options (rw, bs, iodepth, ... all of them), so that two jobs that only share a
/// name are two phases.
fn same_job(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.get("jobname") == b.get("jobname")
        && a.get("groupid") == b.get("groupid")
        && a.get("job options") == b.get("job options")
}

/// The job reports cut into the runs of one job's clones ([`same_job`]), each run at most the job's
/// `numjobs` long (two identical jobs in a row are two phases of `numjobs` clones each; a job without
/// `numjobs` is fio's default of 1, each report a phase).
fn clone_groups<'a, 'b>(
    objs: &'b [(usize, &'a Map<String, Value>)],
    g: Option<&Map<String, Value>>,
) -> Vec<&'b [(usize, &'a Map<String, Value>)]> {
    let mut out = Vec::new();
    let mut rest = objs;
    while let Some(&(_, first)) = rest.first() {
        // fio's default numjobs is 1: a report without it is one job, never clones to add up.
        let most = int_opt(first, g, "numjobs")
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 0)
            .unwrap_or(1);
        let run = rest
            .iter()
            .take(most)
            .take_while(|(_, j)| same_job(first, j))
            .count()
            .max(1);
        out.push(&rest[..run]);
        rest = &rest[run..];
    }
    out
}

/// The phase `index` of one job's reports (its `numjobs` clones, `(place in jobs, report)`, summed as
/// `group_reporting` would: their I/Os, bytes and rates added, latency pooled), in steps: its blocks read
/// ([`blocks`]), held to what fio reports ([`hold`]), its total ([`phase_total`]), warnings
/// ([`phase_warnings`]), syncs and headline.
fn phase(
    index: usize,
    clones: &[(usize, &Map<String, Value>)],
    g: Option<&Map<String, Value>>,
    when: &str,
) -> Result<PhaseResult, Vec<String>> {
    let (i, j) = clones[0];
    let b = blocks(clones, g).map_err(|e| vec![e])?;
    let end_syncs = syncs_at_end(clones, g);
    hold(clones, g, &b, end_syncs)?;
    let unlike_why = super::plausible::unlike_group(j, g);
    // The options of a group of unlike jobs are its last job's: neither their parameters nor their
    // warnings are the group's (attack 27: its span, fsync, seed, O_SYNC and offset_increment were).
    let (params, said) = match unlike_why {
        None => params(j, g),
        Some(_) => (PhaseParams::with_span(0, 0), Vec::new()),
    };
    let mut warnings = phase_warnings(clones, g, &b, said);
    warnings.extend(
        clones
            .iter()
            .find_map(|(_, j)| super::plausible::sq_poll_note(j, g))
            .map(String::from),
    );
    warnings.extend(unlike_why.map(|why| unlike(j, &why)));
    let syncs = b.syncs.as_ref().is_some_and(|s| s.stats.ops > 0);
    if syncs && clones.iter().any(|(_, j)| super::plausible::summed_jobs(j)) {
        warnings.push(super::plausible::DEPTHS_UNKNOWN.into());
    }
    let total = phase_total(i, &b).map_err(|e| vec![e])?;
    let mut pr = blank(index, name(j), params, when);
    pr.duration_s = duration_ms(j, g, b.dirs(), b.mixed.as_ref()) as f64 / 1000.0;
    pr.completed = clones.iter().all(|(_, j)| failure(j, g).is_none());
    pr.latency_histograms = histograms(&b);
    // A job that trims (fio's rw=trim, randtrim, trimwrite, randtrimwrite, or trims it counted) has the
    // phase's `trim`, as a wkrun phase whose mix has trims.
    let trims = b.trim.stats.ops > 0 || pr.params.trim_percent.is_some();
    pr.trim = trims.then(|| b.trim.stats.clone());
    pr.sync = sync_result(&pr.params, b.syncs.map(|d| d.stats), b.write.stats.ops);
    let jobs = clones
        .len()
        .max(pr.params.workers.map_or(1, |w| w as usize)) as u64;
    let at_end = if end_syncs > 0 { jobs } else { 0 };
    warnings.extend(sync_count(
        pr.sync.as_ref(),
        b.write.stats.ops,
        jobs,
        at_end,
    ));
    // fio's steady state (its `steadystate` object) as the phase's verdict, with its warning.
    let (steady, said) = super::steady::of_phase(clones, g, pr.duration_s).map_err(|e| vec![e])?;
    warnings.extend(said);
    pr.steady_state = steady;
    pr.warnings = warnings;
    (pr.read, pr.write, pr.total) = (b.read.stats, b.write.stats, total);
    pr.read_share = ReadShare::of(&pr);
    // wkrun's default headline (`mean`), from fio's totals, so that fio's figures sit in the same rows.
    // Its mean latency where the total has no percentiles (a mixed job, or clones, without json+ bins) is
    // the pooled mean, the directions' (or clones') means weighted by their I/Os (exact). With fio's steady
    // state, its time and window mean too (`steady`), as a wkrun phase with steady_state has them.
    let items: &[Headline] = match pr.steady_state {
        Some(_) => &[Headline::Mean, Headline::Steady],
        None => &[Headline::Mean],
    };
    pr.headline = crate::results::headline::figures(items, &pr);
    Ok(pr)
}

/// The warning of fio's report `j` of a group of unlike jobs ([`super::plausible::unlike_group`], `why`):
/// the group's size, the evidence, and the parameters read as unknown (every one its options give).
fn unlike(j: &Map<String, Value>, why: &str) -> String {
    format!(
        "{UNLIKE} {} jobs whose options may differ (group_reporting: fio writes a group under its first job's name with its last job's options, and lists no other job's): {why}; so its span, block sizes, queue depth, engine, read and trim shares, pattern, distribution, rate cap, think time, O_SYNC writes, syncs every N writes, seed, workers and direct I/O are unknown (params.span_start_bytes and span_bytes 0; block_size_bytes, block_size_mix, queue_depth, engine, read_percent, trim_percent, pattern, distribution, rate_iops, think_time_ns, think_every, sync, fsync, fdatasync, seed, workers and direct absent), not the last job's; its I/Os, bytes, IOPS, bandwidth and latency are the group's, as fio measured them",
        super::plausible::group_jobs(j)
    )
}

/// How the warning of [`unlike`] begins.
const UNLIKE: &str = "fio's report is a group of at least";

/// The warning of phase `p` that it is fio's report of a group of unlike jobs (`unlike`), if any.
pub fn unlike_group(p: &PhaseResult) -> Option<&str> {
    warned(p, UNLIKE)
}

/// The warning of phase `p` that says fio's lat and clat are not held to each other (io_uring with
/// `sqthread_poll`, [`super::plausible::sq_poll_note`]), if any.
pub fn sq_poll(p: &PhaseResult) -> Option<&str> {
    let said = [
        super::plausible::SQ_POLL,
        super::plausible::SQ_POLL_SEEN,
        super::plausible::SQ_POLL_GROUP,
    ];
    p.warnings
        .iter()
        .map(String::as_str)
        .find(|w| said.contains(w))
}

/// One job's blocks, its clones' summed ([`summed`]).
struct Blocks {
    read: Dir,
    write: Dir,
    trim: Dir,
    /// fio's `mixed` block (`unified_rw_reporting`), where it wrote one.
    mixed: Option<Dir>,
    /// The mixed block alone (`unified_rw_reporting=1`): how many I/Os were reads, writes or trims is
    /// unknown.
    split_unknown: bool,
    /// fio's `sync` block, where it wrote one.
    syncs: Option<Dir>,
    /// The warning of a job on an engine that does no storage I/O ([`no_io_engine`]), whose counts are 0 here.
    cpu: Option<String>,
}

impl Blocks {
    /// Reads, writes and trims.
    fn dirs(&self) -> [&Dir; 3] {
        [&self.read, &self.write, &self.trim]
    }
}

/// The blocks of one job's reports (`clones`): each direction, fio's `mixed` block (`unified_rw_reporting`:
/// alone with `1` or `mixed`, beside the directions with `2` or `both`) and its `sync` block; a job on
/// fio's cpuio engine, which loads a CPU and moves no byte where fio still counts its cycles as I/Os, with
/// no I/O.
///
/// # Errors
/// A block that is not fio's, or counts of the clones that add up past 2^64, naming the key.
fn blocks(
    clones: &[(usize, &Map<String, Value>)],
    g: Option<&Map<String, Value>>,
) -> Result<Blocks, String> {
    let j = clones[0].1;
    let dir = |d: &str| summed(clones, d);
    let some = |d: &str| match clones.iter().any(|(_, j)| j.contains_key(d)) {
        true => dir(d).map(Some),
        false => Ok(None),
    };
    let (mut read, mut write, mut trim) = (dir("read")?, dir("write")?, dir("trim")?);
    let mut mixed = some("mixed")?;
    let split_unknown =
        mixed.is_some() && !(clones.iter()).any(|(_, j)| DIRS.iter().any(|d| j.contains_key(*d)));
    let cpu = no_io_engine(opt(j, g, "ioengine"), [&read, &write, &trim]);
    if cpu.is_some() {
        (read, write, trim) = (Dir::default(), Dir::default(), Dir::default());
        mixed = mixed.map(|_| Dir::default());
    }
    Ok(Blocks {
        read,
        write,
        trim,
        mixed,
        split_unknown,
        syncs: some("sync")?,
        cpu,
    })
}

/// The syncs fio makes at the end of one job's reports (`clones`): one per job with `end_fsync` or
/// `fsync_on_close`, else none.
fn syncs_at_end(clones: &[(usize, &Map<String, Value>)], g: Option<&Map<String, Value>>) -> u64 {
    let j = clones[0].1;
    let on_close = ["end_fsync", "fsync_on_close"]
        .iter()
        .any(|k| opt(j, g, k).is_some_and(|v| v != "0"));
    if on_close { clones.len() as u64 } else { 0 }
}

/// One job's blocks (`b`, of its reports `clones`) held to what no fio run reports ([`impossible`], with the
/// syncs fio queues past its I/Os and makes at the end, `end_syncs`) and to fio's own arithmetic, report by
/// report ([`super::plausible::check`]).
///
/// # Errors
/// The first of each (the blocks', then each report's), naming the job and the key.
fn hold(
    clones: &[(usize, &Map<String, Value>)],
    g: Option<&Map<String, Value>>,
    b: &Blocks,
    end_syncs: u64,
) -> Result<(), Vec<String>> {
    let (i, j) = clones[0];
    let job = match clones {
        [_] => format!("jobs[{i}]"),
        [(first, _), .., (last, _)] => format!("jobs[{first}] to jobs[{last}] (clones)"),
        [] => String::new(),
    };
    // What bounds fio's sync count ([`super::plausible::syncs`]): its depth, jobs and loops.
    let count = |k: &str| int_opt(j, g, k).unwrap_or(1).max(1);
    let summed = (clones.iter()).any(|(_, j)| super::plausible::summed_jobs(j));
    let in_flight = super::plausible::SyncRoom {
        depth: (!summed).then(|| count("iodepth")),
        jobs: count("numjobs").max(clones.len() as u64),
        loops: count("loops"),
        end: end_syncs,
    };
    // fio counts a failed job's failed I/Os in total_ios, without their bytes (its `error`, or
    // `total_err` with continue_on_error): 4 I/Os of 0 bytes, error 22, measured.
    let failed = clones.iter().any(|(_, j)| {
        ["error", "total_err"]
            .iter()
            .any(|k| j.get(*k).and_then(Value::as_i64).unwrap_or(0) != 0)
    });
    let blocks = impossible(
        &job,
        [("read", &b.read), ("write", &b.write), ("trim", &b.trim)],
        (b.mixed.as_ref(), b.split_unknown),
        b.syncs.as_ref(),
        (failed, in_flight),
    );
    let reports =
        (clones.iter()).map(|&(i, j)| super::plausible::check(&format!("jobs[{i}]"), j, g));
    let found: Vec<String> = std::iter::once(blocks)
        .chain(reports)
        .filter_map(Result::err)
        .collect();
    match found.is_empty() {
        true => Ok(()),
        false => Err(found),
    }
}

/// The phase's warnings: those of what the job's reports (`clones`, read as `b`) lack ([`read_warnings`]),
/// of fio's mixed block alone ([`mixed_alone`]), those its options made (`said`) and of an engine that does
/// no storage I/O.
fn phase_warnings(
    clones: &[(usize, &Map<String, Value>)],
    g: Option<&Map<String, Value>>,
    b: &Blocks,
    said: Vec<String>,
) -> Vec<String> {
    let mut warnings = read_warnings(clones, b.dirs(), b.mixed.as_ref(), b.syncs.as_ref());
    if b.split_unknown {
        warnings.push(mixed_alone(opt(clones[0].1, g, "unified_rw_reporting")));
    }
    warnings.extend(said);
    warnings.extend(b.cpu.clone());
    warnings.extend(clones.iter().find_map(|(_, j)| never_ran(j, g)));
    warnings
}

/// Why fio's job `j` (with the global options `g`) did not run to its end, if it did not: its `error` (fio's
/// errno: `error 22`), else [`never_ran`]. Such a job's phase is not completed, and the results `failed`.
fn failure(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Option<String> {
    match j.get("error").and_then(Value::as_i64).filter(|&e| e != 0) {
        Some(e) => Some(format!("error {e}")),
        None => never_ran(j, g),
    }
}

/// Whether fio's job report `j` is no job's: fio 3.33 writes an entry with no `jobname`, no `job options`,
/// no I/O and no runtime, of group 4294967295 (2^32 - 1), after a command line's `group_reporting` group of
/// jobs with different options. It is dropped: read, it was a second phase "fio" of 0 IOPS (attack 25).
fn empty_group_entry(j: &Map<String, Value>) -> bool {
    !j.contains_key("jobname")
        && !j.contains_key("job options")
        && j.get("groupid").and_then(Value::as_u64) == Some(u64::from(u32::MAX))
        && no_io(j)
}

/// Whether fio's job report `j` has no I/O and no runtime: its `job_runtime` and every direction's 0.
fn no_io(j: &Map<String, Value>) -> bool {
    let zero = |o: &Map<String, Value>, k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0) == 0;
    let idle = |d: &&str| {
        (j.get(*d).and_then(Value::as_object))
            .is_none_or(|o| zero(o, "total_ios") && zero(o, "runtime"))
    };
    zero(j, "job_runtime") && DIRS.iter().chain(&["mixed"]).all(idle)
}

/// Why fio's job `j` (with the global options `g`) measured nothing though its `error` is 0: no I/O, no
/// runtime (its `job_runtime` and every direction's) and an engine that does I/O (not one of
/// [`NO_IO_ENGINES`]), of a job fio names (`jobname`). fio 3.33 writes such a job when its engine fails to start (attack 24: `ioengine=sg`
/// on a loop device, "unable to ... read capacity", and `io_uring_cmd` on a device that is no NVMe generic
/// one: fio exits 1, its JSON says error 0); read as 0 IOPS, it was compared as a loss of 100 %.
fn never_ran(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Option<String> {
    let engine = opt(j, g, "ioengine").unwrap_or("psync");
    let never = j.contains_key("jobname") && no_io(j) && !is_no_io_engine(engine);
    never.then(|| {
        format!(
            "fio did not run it: no I/O and no runtime (job_runtime 0 ms) on its engine {engine}, which does I/O (fio writes this when the engine fails to start, and says why on its stderr)"
        )
    })
}

/// The phase's `total` (of job `i`'s blocks `b`): fio's mixed block where it wrote it alone, else the
/// directions' ([`total`]) with the mixed block's percentiles where they lack them ([`with_mixed_latency`]).
///
/// # Errors
/// Counts that add up past 2^64.
fn phase_total(i: usize, b: &Blocks) -> Result<DirStats, String> {
    match (&b.mixed, b.split_unknown) {
        (Some(m), true) => Ok(m.stats.clone()),
        _ => total(b.dirs())
            .map(|t| with_mixed_latency(t, b.mixed.as_ref()))
            .map_err(|e| format!("jobs[{i}].read, .write and .trim together: {e}")),
    }
}

/// The directions' json+ latency bins as the phase's histograms; `None` without bins.
fn histograms(b: &Blocks) -> Option<LatencyHistograms> {
    let bins = |d: &Dir| d.bins.clone().unwrap_or_default();
    (b.dirs().iter().any(|d| d.bins.is_some())).then(|| LatencyHistograms {
        read: bins(&b.read),
        write: bins(&b.write),
        trim: bins(&b.trim),
        flush: Vec::new(),
    })
}

/// A workload phase read from fio's JSON with its name, parameters and start, and nothing else yet: what fio
/// does not give (series, host, device, workers, ...) absent.
fn blank(index: usize, name: String, params: PhaseParams, when: &str) -> PhaseResult {
    PhaseResult {
        index,
        name,
        kind: PhaseKind::Workload,
        labels: Vec::new(),
        params,
        started_at: when.to_string(),
        measured_started_at: None,
        series_t0_unix_ns: None,
        duration_s: 0.0,
        completed: true,
        read_share: None,
        read: DirStats::zero(),
        write: DirStats::zero(),
        total: DirStats::zero(),
        workers: Vec::new(),
        series_csv: None,
        hist_log: None,
        trace: None,
        coverage: None,
        ops_by_size: Vec::new(),
        steady_state: None,
        windows: Vec::new(),
        aggregates: None,
        headline: Vec::new(),
        derived: None,
        intervals: None,
        erase_method: None,
        erased_bytes: None,
        errors: None,
        verify: None,
        warnings: Vec::new(),
        host: None,
        device: None,
        cpu: None,
        kernel: None,
        counters_csv: None,
        health: None,
        hosts: Vec::new(),
        latency_histograms: None,
        arrivals: None,
        latency_target: None,
        trim: None,
        sync: None,
        zones: None,
    }
}

/// The warnings every phase read from fio's JSON has, and those of what its job's report lacks: clones
/// summed, percentiles from clat or absent, directions fio did not time.
fn read_warnings(
    clones: &[(usize, &Map<String, Value>)],
    dirs: [&Dir; 3],
    mixed: Option<&Dir>,
    syncs: Option<&Dir>,
) -> Vec<String> {
    let all = || dirs.into_iter().chain(mixed);
    let mut warnings = vec![format!(
        "read from fio's JSON output: no series, host or target geometry (fio does not give them)"
    )];
    if let [(first, _), .., (last, _)] = clones {
        warnings.push(format!(
            "{CLONES}{} clones (numjobs, jobs[{first}] to jobs[{last}]) one by one: summed here as fio's group_reporting would sum them (latency min, mean, stddev and max pooled); percentiles only from json+ latency bins, else absent",
            clones.len(),
        ));
    }
    if all().any(|d| d.from_clat && d.slat_timed) {
        warnings.push(CLAT.into());
    }
    if all().any(|d| d.from_clat && !d.slat_timed && d.stats.ops > 0) {
        warnings.push(CLAT_WHOLE.into());
    }
    if let Some(w) = lacking(dirs, mixed, syncs) {
        warnings.push(w);
    }
    let untimed: Vec<String> = WORDS
        .iter()
        .zip(all())
        .filter(|(_, d)| d.untimed)
        .map(|(what, d)| format!("{} {what}", d.stats.ops))
        .collect();
    if !untimed.is_empty() {
        warnings.push(format!(
            "fio timed none of this job's {} (lat_ns.N is 0: fio records no latency during its ramp_time, or with disable_lat or gtod_reduce): their latency is absent, not 0",
            untimed.join(" and ")
        ));
    }
    warnings
}

/// The warning of a phase whose fio output lacks some of p50, p90, p99, p99.9 and p99.99 (its
/// `percentile_list`) for a direction it timed, naming them and the directions: the others are kept
/// (`latency_percentiles_ns`); `None` when none lacks one.
fn lacking(dirs: [&Dir; 3], mixed: Option<&Dir>, syncs: Option<&Dir>) -> Option<String> {
    let names = ["p50", "p90", "p99", "p99.9", "p99.99"];
    let each: Vec<String> = WORDS
        .into_iter()
        .chain(["syncs"])
        .zip(dirs.into_iter().map(Some).chain([mixed, syncs]))
        .filter_map(|(what, d)| {
            let gone: Vec<&str> = names
                .iter()
                .zip(d?.missing)
                .filter_map(|(n, m)| m.then_some(*n))
                .collect();
            (!gone.is_empty()).then(|| format!("{} of its {what}", gone.join(", ")))
        })
        .collect();
    (!each.is_empty()).then(|| {
        format!(
            "{LACKS}{} (its percentile_list): absent, shown -; the percentiles it gives are kept (latency_percentiles_ns), and min, mean, stddev and max",
            each.join(", and ")
        )
    })
}

/// What no fio run reports of one job (`job`: `jobs[i]`, or its clones): percentiles that fall, by the
/// rule wkrun's own results are held to ([`crate::results::check::rising`]; among themselves only: fio's
/// are its histogram buckets' values, and its p99.99 may be above the exact max), more I/Os of a
/// direction than its bytes (an I/O moves a byte at least), and more syncs than fio can issue beside its
/// I/Os (`in_flight`, [`super::plausible::syncs`]). A job that `failed` may have more I/Os than bytes (fio
/// counts its failed I/Os).
///
/// # Errors
/// The first, naming the job and the key.
fn impossible(
    job: &str,
    dirs: [(&str, &Dir); 3],
    (mixed, split_unknown): (Option<&Dir>, bool),
    syncs: Option<&Dir>,
    (failed, in_flight): (bool, super::plausible::SyncRoom),
) -> Result<(), String> {
    let mut out = Vec::new();
    let data = || dirs.into_iter().chain(mixed.map(|m| ("mixed", m)));
    for (d, dir) in data().chain(syncs.map(|s| ("sync", s))) {
        let steps: Vec<(&str, u64)> =
            match (&dir.stats.latency_ns, dir.stats.latency_percentiles_ns) {
                (Some(l), _) => crate::results::check::percentiles(l).to_vec(),
                (None, Some(p)) => SomePercentiles::NAMES
                    .into_iter()
                    .zip(p.each())
                    .filter_map(|(k, v)| Some((k, v?)))
                    .collect(),
                (None, None) => continue,
            };
        let from = if dir.from_clat { "clat_ns" } else { "lat_ns" };
        crate::results::check::rising(&format!("{job}.{d}.{from}.percentile"), &steps, &mut out);
    }
    if let Some(v) = out.first() {
        return Err(format!("{}: {}", v.path, v.expected));
    }
    if let Some((d, dir)) = data().find(|(_, d)| !failed && d.stats.ops > d.stats.bytes) {
        return Err(format!(
            "{job}.{d}.total_ios is {}: more I/Os than its io_bytes, {} (an I/O moves a byte at least)",
            dir.stats.ops, dir.stats.bytes
        ));
    }
    // With fio's mixed block alone, its I/Os are the most the writes can be.
    let (writes, ios) = match mixed.filter(|_| split_unknown) {
        Some(m) => (m.stats.ops, m.stats.ops),
        None => (
            dirs[1].1.stats.ops,
            dirs.iter().map(|(_, d)| d.stats.ops).sum(),
        ),
    };
    match syncs {
        Some(s) => super::plausible::syncs(job, s.stats.ops, (ios, writes), &in_flight),
        None => Ok(()),
    }
}

/// The direction (or `sync` block) `d` of one job's reports, its clones' summed ([`combine`]); none done
/// where a report lacks it.
///
/// # Errors
/// A report's direction that is not fio's, or counts of the clones that add up past 2^64, naming the key.
fn summed(clones: &[(usize, &Map<String, Value>)], d: &str) -> Result<Dir, String> {
    let mut sum: Option<Dir> = None;
    for &(i, j) in clones {
        let one = match j.get(d) {
            None => Dir::default(),
            Some(v) => direction(d, v).map_err(|e| format!("jobs[{i}].{d}{e}"))?,
        };
        sum = Some(match sum {
            None => one,
            Some(s) => combine(s, one)
                .map_err(|e| format!("jobs[{}] to jobs[{i}] (clones).{d}: {e}", clones[0].0))?,
        });
    }
    Ok(sum.unwrap_or_default())
}

/// How long a job (or a group, with `group_reporting`) ran, in ms: the longest of its directions'
/// `runtime` (a group's is its longest job's); for a job without I/O, its `job_runtime`, which sums the
/// group's `numjobs` jobs, divided by them.
fn duration_ms(
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
    dirs: [&Dir; 3],
    mixed: Option<&Dir>,
) -> u64 {
    let longest = (dirs.into_iter().chain(mixed))
        .map(|d| d.runtime_ms)
        .max()
        .unwrap_or(0);
    if longest > 0 {
        return longest;
    }
    let jobs = int_opt(j, g, "numjobs").filter(|&n| n > 0).unwrap_or(1);
    j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0) / jobs
}

/// One direction of a job, read.
#[derive(Clone)]
struct Dir {
    stats: DirStats,
    runtime_ms: u64,
    /// Percentiles from clat.
    from_clat: bool,
    /// fio timed the submissions apart (`slat_ns.N` above 0, or not given): clat leaves their time out.
    slat_timed: bool,
    /// Which of p50, p90, p99, p99.9 and p99.99 fio did not give (of a direction it timed).
    missing: [bool; 5],
    /// json+ latency bins, `[ns, count]`, by value.
    bins: Option<Vec<[u64; 2]>>,
    /// I/Os fio did not time (`lat_ns.N` 0 beside a `total_ios`).
    untimed: bool,
}

impl Default for Dir {
    fn default() -> Dir {
        Dir {
            stats: DirStats::zero(),
            runtime_ms: 0,
            from_clat: false,
            slat_timed: false,
            missing: [false; 5],
            bins: None,
            untimed: false,
        }
    }
}

/// fio's blocks of a direction that moves data, in [`Direction`](crate::vocab::Direction)'s order.
const DIRS: [&str; 3] = ["read", "write", "trim"];

/// The words of fio's blocks that move data in warnings: its directions' ([`DIRS`]), then its `mixed`
/// block's (`unified_rw_reporting`).
const WORDS: [&str; 4] = [
    "reads",
    "writes",
    "trims",
    "reads, writes and trims together (mixed)",
];

/// How the warning of a job fio reported in its `mixed` block alone begins ([`mixed_alone`]), by which
/// [`split_unknown`] finds it.
const MIXED_ALONE: &str = "fio reported this job's reads, writes and trims together";

/// The warning of a job whose report has fio's `mixed` block alone (`unified_rw_reporting` `value`: `1`
/// or `mixed`; fio 3.33 then writes no `read`, `write`, `trim` or `sync` block): the phase's total is that
/// block, its split into directions unknown.
fn mixed_alone(value: Option<&str>) -> String {
    format!(
        "{MIXED_ALONE} (unified_rw_reporting={}: its mixed block): the phase's total is that block (I/Os, bytes, IOPS, bandwidth, latency); how many were reads, writes or trims is unknown (read and write are 0 here: unknown, not none; compare shows their rows -), and so are its syncs (fio writes no sync block then)",
        value.unwrap_or("1")
    )
}

/// The warning of a phase read from fio's JSON whose job fio reported in its `mixed` block alone
/// (`unified_rw_reporting=1`): its reads, writes and trims are unknown, and `compare` shows their rows `-`
/// with this as its note; `None` for any other phase.
pub fn split_unknown(p: &PhaseResult) -> Option<&str> {
    warned(p, MIXED_ALONE)
}

/// The warning of a phase read from fio's JSON whose job was capped in one direction of a mix
/// (`capped_mix`): fio's uncapped direction ran at the device's speed, so its read share is the device's,
/// `params.read_percent` absent, and `compare` shows it as `unknown` and scores it with no phase whose share
/// is known; `None` for any other phase.
pub fn device_share(p: &PhaseResult) -> Option<&str> {
    warned(p, MIX_OF_CAPS).filter(|_| p.params.read_percent.is_none())
}

/// The warning of phase `p` that starts with `head`, if any: how this module's marks of a phase (its
/// warnings) are found again.
fn warned<'a>(p: &'a PhaseResult, head: &str) -> Option<&'a str> {
    p.warnings
        .iter()
        .find(|w| w.starts_with(head))
        .map(String::as_str)
}

/// The total of a job fio reported both per direction and in its `mixed` block (`unified_rw_reporting=2`,
/// `both`), which [`super::plausible`] holds to their sum: where the directions' `total` has no
/// percentiles (they come from json+ bins only), the mixed block's, fio's own from the directions' latencies
/// together.
fn with_mixed_latency(mut total: DirStats, mixed: Option<&Dir>) -> DirStats {
    if let Some(l) = mixed.and_then(|m| m.stats.latency_ns.clone())
        && total.latency_ns.is_none()
        && total.ops == mixed.map_or(0, |m| m.stats.ops)
    {
        total.latency_ns = Some(l);
        total.latency_moments_ns = None;
        total.latency_percentiles_ns = None;
    }
    total
}

/// The largest rate or mean read: 2^64 (a count's range; fio's own fields are 64-bit).
const MOST: f64 = 18_446_744_073_709_551_616.0;

/// A count field (`total_ios`, `io_bytes`, `runtime`, a latency in ns): a whole number from 0 to 2^64 − 1.
fn count(o: &Map<String, Value>, k: &str) -> Result<u64, String> {
    let v = o.get(k).ok_or_else(|| format!(".{k}: missing"))?;
    whole(v).map_err(|why| format!(".{k} is {v}: {why}"))
}

/// A count's value, or why it is not one.
fn whole(v: &Value) -> Result<u64, &'static str> {
    match v.as_u64() {
        Some(n) => Ok(n),
        None if v.as_f64().is_some_and(|x| x < 0.0) => Err("a count cannot be negative"),
        // A whole number in range written as a decimal (`9000000000.0`): fio writes counts as integers.
        None if v.as_f64().is_some_and(|x| x.fract() == 0.0 && x < MOST) => {
            Err("a count written with a decimal point or exponent: fio writes counts as integers")
        }
        None if v.as_f64().is_some_and(|x| x.fract() == 0.0) => {
            Err("more than 18446744073709551615, the largest count")
        }
        None if v.is_number() => Err("not a whole number"),
        None => Err("not a number"),
    }
}

/// A rate or mean field (`iops`, `bw_bytes`, `mean`, `stddev`): a number from 0 to 2^64.
fn num(o: &Map<String, Value>, k: &str) -> Result<f64, String> {
    let v = o.get(k).ok_or_else(|| format!(".{k}: missing"))?;
    match v.as_f64() {
        Some(x) if x.is_finite() && (0.0..=MOST).contains(&x) => Ok(x),
        Some(x) if x < 0.0 => Err(format!(".{k} is {v}: it cannot be negative")),
        Some(_) => Err(format!(".{k} is {v}: more than 2^64")),
        None => Err(format!(".{k} is {v}: not a number")),
    }
}

/// One direction (`read`, `write`, `trim`), or fio's `sync` block ([`syncs`]), by its key `d`.
fn direction(d: &str, v: &Value) -> Result<Dir, String> {
    let o = v.as_object().ok_or(" is not an object")?;
    match d {
        "sync" => syncs(o),
        _ => data_direction(o),
    }
}

/// fio's `sync` block (fsync, fdatasync and the other syncs it timed): no bytes, runtime or rates, only its
/// count and latency (`lat_ns`). The count is `lat_ns.N`, the syncs fio timed; its `total_ios` counts the
/// fsync(2) calls alone (fio 3.33: 0 beside 63 timed fdatasync(2) calls), so it is the count only where
/// `lat_ns` has no `N`.
fn syncs(o: &Map<String, Value>) -> Result<Dir, String> {
    let timed = o
        .get("lat_ns")
        .and_then(Value::as_object)
        .filter(|l| l.contains_key("N"));
    let ops = match timed {
        Some(l) => count(l, "N").map_err(|e| format!(".lat_ns{e}"))?,
        None => count(o, "total_ios")?,
    };
    let (mut d, moments, ps) = latency(o, ops)?;
    d.stats = DirStats::zero();
    d.stats.ops = ops;
    set_latency(&mut d.stats, moments, ps);
    Ok(d)
}

/// A direction that moves data (`read`, `write`, `trim`): its I/Os, bytes, rates and latency.
fn data_direction(o: &Map<String, Value>) -> Result<Dir, String> {
    let ops = count(o, "total_ios")?;
    let bytes = count(o, "io_bytes")?;
    let runtime_ms = count(o, "runtime")?;
    let (mut d, moments, ps) = latency(o, ops)?;
    d.runtime_ms = runtime_ms;
    d.stats = DirStats {
        ops,
        bytes,
        iops: num(o, "iops")?,
        bw_bytes_per_s: num(o, "bw_bytes")?,
        latency_ns: None,
        latency_moments_ns: None,
        latency_percentiles_ns: None,
    };
    set_latency(&mut d.stats, moments, ps);
    Ok(d)
}

/// The percentiles p50, p90, p99, p99.9 and p99.99, each where fio gives it.
type Percentiles = [Option<u64>; 5];

/// A direction's latency (`o`, of `ops` I/Os): its moments from `lat_ns`, its percentiles from `lat_ns`
/// (fio's `lat_percentiles=1`), else `clat_ns` (which the returned [`Dir`] says), from the listed ones or
/// json+'s bins, and the bins.
fn latency(
    o: &Map<String, Value>,
    ops: u64,
) -> Result<(Dir, Option<LatencyMoments>, Option<Percentiles>), String> {
    let mut d = Dir::default();
    let lat = o.get("lat_ns").and_then(Value::as_object);
    let clat = o.get("clat_ns").and_then(Value::as_object);
    let pick = |m: Option<&Map<String, Value>>| {
        m.and_then(|m| m.get("percentile"))
            .and_then(Value::as_object)
            .cloned()
    };
    let bins = |m: Option<&Map<String, Value>>| {
        m.and_then(|m| m.get("bins"))
            .and_then(Value::as_object)
            .cloned()
    };
    let (pct, from_bins, which) = match (pick(lat), bins(lat), pick(clat), bins(clat)) {
        (Some(p), b, _, _) => (Some(p), b, "lat_ns"),
        (None, Some(b), _, _) => (None, Some(b), "lat_ns"),
        (None, None, p, b) => {
            d.from_clat = p.is_some() || b.is_some();
            (p, b, "clat_ns")
        }
    };
    // fio times a submission apart only where it queues the I/O (libaio's and io_uring's reads and
    // writes); a trim, and an I/O of its sync engines, has `slat_ns.N` 0 and its whole time in clat.
    let slat_n = o
        .get("slat_ns")
        .and_then(|s| s.get("N"))
        .and_then(Value::as_u64);
    d.slat_timed = slat_n != Some(0);
    if let Some(p) = &pct {
        check_percentiles(p).map_err(|e| format!(".{which}.percentile{e}"))?;
    }
    d.bins = match from_bins {
        Some(b) => Some(read_bins(&b).map_err(|e| format!(".{which}.bins{e}"))?),
        None => None,
    };
    // A direction fio counted I/Os of but timed none (`lat_ns.N` 0: its ramp_time, disable_lat,
    // gtod_reduce) has no latency, not a latency of 0 (trial 19 F4).
    d.untimed = ops > 0 && lat.is_some_and(|l| l.get("N").and_then(Value::as_u64) == Some(0));
    let moments = match (ops, lat) {
        _ if d.untimed => None,
        (0, _) | (_, None) => None,
        (_, Some(l)) => {
            let lat = |e: String| format!(".lat_ns{e}");
            Some(LatencyMoments {
                min: count(l, "min").map_err(lat)?,
                mean: num(l, "mean").map_err(lat)?,
                stddev: num(l, "stddev").map_err(lat)?,
                max: count(l, "max").map_err(lat)?,
            })
        }
    };
    let at = |q: f64| percentile(pct.as_ref(), d.bins.as_deref(), q);
    let ps = moments.map(|_| [at(50.0), at(90.0), at(99.0), at(99.9), at(99.99)]);
    d.missing = ps.map_or([false; 5], |ps| ps.map(|p| p.is_none()));
    Ok((d, moments, ps))
}

/// A direction's latency: `moments` with the percentiles `ps` (p50, p90, p99, p99.9, p99.99) as
/// `latency_ns` when all are known, else the moments alone as `latency_moments_ns`, with those of the
/// percentiles that are known as `latency_percentiles_ns` (attack 21: one missing dropped all five).
fn set_latency(d: &mut DirStats, moments: Option<LatencyMoments>, ps: Option<Percentiles>) {
    d.latency_percentiles_ns = match (moments, ps) {
        (Some(_), Some(ps)) if ps.iter().any(Option::is_some) && ps.iter().any(Option::is_none) => {
            Some(SomePercentiles::from_each(ps))
        }
        _ => None,
    };
    (d.latency_ns, d.latency_moments_ns) = match (moments, ps) {
        (Some(m), Some([Some(p50), Some(p90), Some(p99), Some(p99_9), Some(p99_99)])) => (
            Some(LatencySummary {
                min: m.min,
                mean: m.mean,
                stddev: m.stddev,
                max: m.max,
                p50,
                p90,
                p99,
                p99_9,
                p99_99,
            }),
            None,
        ),
        (m, _) => (None, m),
    };
}

/// fio's percentile list checked: each key a percentage from 0 to 100, each value a latency in ns.
fn check_percentiles(p: &Map<String, Value>) -> Result<(), String> {
    for (k, v) in p {
        match k.parse::<f64>() {
            Ok(q) if (0.0..=100.0).contains(&q) => {}
            _ => {
                return Err(format!(
                    ": the key \"{k}\" is not a percentage from 0 to 100"
                ));
            }
        }
        whole(v).map_err(|why| format!(".\"{k}\" is {v}: {why}"))?;
    }
    Ok(())
}

/// json+ latency bins (`{"ns": count}`) as `[ns, count]` pairs by value, the empty ones left out: each key
/// a latency in ns, each count a count, their sum within 64 bits.
fn read_bins(b: &Map<String, Value>) -> Result<Vec<[u64; 2]>, String> {
    let mut v = Vec::with_capacity(b.len());
    let mut sum = 0u64;
    for (k, c) in b {
        let ns: u64 = k
            .parse()
            .map_err(|_| format!(": the key \"{k}\" is not a latency in whole ns"))?;
        let n = whole(c).map_err(|why| format!(".\"{k}\" is {c}: {why}"))?;
        sum = sum.checked_add(n).ok_or(": the counts add up past 2^64")?;
        if n > 0 {
            v.push([ns, n]);
        }
    }
    v.sort_unstable();
    Ok(v)
}

/// Percentile `q` (in %): fio's own figure for it, else from its bins ([`super::bins::percentile`]).
fn percentile(pct: Option<&Map<String, Value>>, bins: Option<&[[u64; 2]]>, q: f64) -> Option<u64> {
    if let Some(p) = pct {
        let found = p.iter().find_map(|(k, v)| {
            let key: f64 = k.parse().ok()?;
            ((key - q).abs() < 1e-9).then(|| v.as_u64())?
        });
        if found.is_some() {
            return found;
        }
    }
    super::bins::percentile(bins?, q)
}

/// Reads, writes and trims together, as a wkrun phase's `total`: counts and rates added; latency the one
/// direction's where only one did I/O, else the directions' moments pooled, with percentiles from their
/// bins when fio gave them (json+), absent without (fio gives percentiles per direction only).
///
/// # Errors
/// Counts that add up past 2^64.
fn total(dirs: [&Dir; 3]) -> Result<DirStats, String> {
    // A direction without I/O has no bins to give, and nothing to add to the others'.
    let mut sum = Dir {
        bins: Some(Vec::new()),
        ..Dir::default()
    };
    for d in dirs.into_iter().filter(|d| d.stats.ops > 0) {
        sum = combine(sum, d.clone())?;
    }
    Ok(sum.stats)
}

/// Two clones' reports of one direction as one (`group_reporting`'s sum): counts and rates added, the
/// longer runtime, the bins added, latency pooled ([`added`]).
///
/// # Errors
/// Counts that add up past 2^64.
fn combine(a: Dir, b: Dir) -> Result<Dir, String> {
    let bins = union(a.bins.as_deref(), b.bins.as_deref())?;
    let stats = added(&a, &b, bins.as_deref())?;
    Ok(Dir {
        missing: std::array::from_fn(|i| a.missing[i] || b.missing[i]),
        untimed: a.untimed || b.untimed,
        from_clat: a.from_clat || b.from_clat,
        slat_timed: a.slat_timed || b.slat_timed,
        runtime_ms: a.runtime_ms.max(b.runtime_ms),
        bins,
        stats,
    })
}

/// Both bin lists added up (`None` unless both have bins).
///
/// # Errors
/// Counts that add up past 2^64.
fn union(x: Option<&[[u64; 2]]>, y: Option<&[[u64; 2]]>) -> Result<Option<Vec<[u64; 2]>>, String> {
    let (Some(x), Some(y)) = (x, y) else {
        return Ok(None);
    };
    let mut all: Vec<[u64; 2]> = x.iter().chain(y).copied().collect();
    all.sort_unstable();
    let mut out: Vec<[u64; 2]> = Vec::with_capacity(all.len());
    let mut sum = 0u64;
    for b in all {
        sum = sum.checked_add(b[1]).ok_or(PAST_64)?;
        match out.last_mut() {
            Some(last) if last[0] == b[0] => last[1] += b[1],
            _ => out.push(b),
        }
    }
    Ok(Some(out))
}

/// The error of counts that add up past 64 bits.
const PAST_64: &str = "the latency bins add up past 2^64";

/// `a` and `b` added: counts and rates summed; latency the one side's when the other has no I/O, else
/// pooled ([`LatencyMoments::pooled`]: min, max, mean and stddev exact) with percentiles from `bins`, the
/// moments alone (`latency_moments_ns`) without them.
///
/// # Errors
/// I/Os or bytes that add up past 2^64.
fn added(a: &Dir, b: &Dir, bins: Option<&[[u64; 2]]>) -> Result<DirStats, String> {
    let (a, b) = (&a.stats, &b.stats);
    let ops = a
        .ops
        .checked_add(b.ops)
        .ok_or("total_ios adds up past 2^64")?;
    let bytes = a
        .bytes
        .checked_add(b.bytes)
        .ok_or("io_bytes adds up past 2^64")?;
    let mut sum = DirStats {
        ops,
        bytes,
        iops: a.iops + b.iops,
        bw_bytes_per_s: a.bw_bytes_per_s + b.bw_bytes_per_s,
        latency_ns: None,
        latency_moments_ns: None,
        latency_percentiles_ns: None,
    };
    match (a.ops, b.ops) {
        (_, 0) => {
            (sum.latency_ns, sum.latency_moments_ns) = (a.latency_ns.clone(), a.latency_moments_ns);
            sum.latency_percentiles_ns = a.latency_percentiles_ns;
        }
        (0, _) => {
            (sum.latency_ns, sum.latency_moments_ns) = (b.latency_ns.clone(), b.latency_moments_ns);
            sum.latency_percentiles_ns = b.latency_percentiles_ns;
        }
        _ => {
            let moments = match (a.moments(), b.moments()) {
                (Some(ma), Some(mb)) => LatencyMoments::pooled(&[(ma, a.ops), (mb, b.ops)]),
                _ => None,
            };
            let at = |q| bins.and_then(|all| percentile(None, Some(all), q));
            let ps = bins.map(|_| [at(50.0), at(90.0), at(99.0), at(99.9), at(99.99)]);
            set_latency(&mut sum, moments, ps);
        }
    }
    Ok(sum)
}

/// The parameters the job's options give (fio's units; what they do not say is absent), and the warnings
/// of a span they do not give in bytes, of an engine wkrun has not ([`engine_warning`]) and of buffered I/O
/// ([`buffered_warning`]).
fn params(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> (PhaseParams, Vec<String>) {
    let o = |k: &str| opt(j, g, k);
    let bytes = |k: &str| o(k).and_then(|v| value::bytes(v, kb_base(j, g, k)).ok());
    let rw = o("rw").or_else(|| o("readwrite")).unwrap_or("read");
    let word = rw.split(':').next().unwrap_or(rw);
    let random = word.starts_with("rand");
    // fio keeps the mix option it read last: the global ones, then the job's, each in order.
    let mix = in_order(j, g)
        .filter(|(k, _)| *k == "rwmixread" || *k == "rwmixwrite")
        .filter_map(|(k, v)| Some((k, value::int(v, 1024).ok()?)))
        .filter(|&(_, n)| n <= 100)
        .last()
        .map_or(50, |(k, n)| value::read_mix(k, n) as u8);
    let read_percent = match word {
        "read" | "randread" => Some(100),
        "write" | "randwrite" | "trim" | "randtrim" => Some(0),
        "rw" | "readwrite" | "randrw" => Some(mix),
        _ => None,
    };
    // trim and randtrim: trims only, as `wkrun import fio` reads them; trimwrite's pairs (each block
    // trimmed, then written) are half trims by count.
    let trim_percent = match word {
        "trim" | "randtrim" => Some(100),
        "trimwrite" | "randtrimwrite" => Some(50),
        _ => None,
    };
    let fio_engine = o("ioengine").unwrap_or("psync");
    let engine = match fio_engine {
        "psync" | "sync" | "pvsync" | "pvsync2" => Some(EngineKind::Psync),
        "libaio" => Some(EngineKind::Libaio),
        "io_uring" => Some(EngineKind::IoUring),
        "null" => Some(EngineKind::Null),
        _ => None,
    };
    // fio's region, as `wkrun import fio` reads it (crate::fio::region); a range of file sizes gives none.
    let sized = |k: &str| o(k).map(|v| value::size(v, kb_base(j, g, k)).ok());
    let filesize = o("filesize").map(|v| {
        region::filesize(v, kb_base(j, g, "filesize"))
            .ok()
            .filter(|(lo, hi)| lo == hi)
            .map(|f| f.0)
    });
    let (span_start, span) = match (sized("offset"), sized("size"), filesize) {
        (Some(None), ..) | (_, Some(None), _) | (.., Some(None)) => (0, 0),
        (offset, size, filesize) => match (
            offset.flatten(),
            region::span(offset.flatten(), size.flatten(), filesize.flatten()),
        ) {
            (None | Some(Size::Bytes(_)), Some(Size::Bytes(s))) => {
                (bytes("offset").unwrap_or(0), s)
            }
            _ => (0, 0),
        },
    };
    let unknown = (span == 0).then(|| {
        span_warning(
            o("size"),
            o("offset"),
            o("filesize"),
            target_word(o("filename")),
        )
    });
    // With filesize, every job's region runs to the end of the file: their union is the first's.
    let step = o("offset_increment")
        .filter(|_| filesize.flatten().is_none())
        .map(|v| (v, kb_base(j, g, "offset_increment")));
    let (span, apart) = jobs_span(span, int_opt(j, g, "numjobs"), step);
    let mut p = PhaseParams::with_span(span_start, span);
    // The directions whose sizes the job uses (Job::used): trims only, trimwrite's writes and trims, or
    // reads and writes by their share.
    let used = match (trim_percent, read_percent) {
        (Some(100), _) => [false, false, true],
        (Some(_), _) => [false, true, true],
        (None, Some(r)) => [r > 0, r < 100, false],
        (None, None) => [true; 3],
    };
    (p.block_size_bytes, p.block_size_mix) = block_sizes(j, g, used);
    let small = |k: &str| int_opt(j, g, k).and_then(|n| u32::try_from(n).ok());
    p.queue_depth = match one_io_in_flight(fio_engine) {
        true => Some(1),
        false => small("iodepth"),
    };
    p.workers = small("numjobs").filter(|&n| n > 1);
    p.engine = engine;
    p.direct = direct(j, g);
    p.pattern = Some(if random {
        Pattern::Random
    } else {
        Pattern::Sequential
    });
    p.read_percent = read_percent;
    p.trim_percent = trim_percent;
    p.sync = write_flag(o("sync"));
    let every = |k: &str| int_opt(j, g, k).filter(|&n| n > 0);
    (p.fsync, p.fdatasync) = (every("fsync"), every("fdatasync"));
    p.seed = int_opt(j, g, "randseed");
    let shaped = shape(&mut p, j, g);
    let other_engine = engine.is_none().then(|| engine_warning(fio_engine));
    // fio's default is buffered (direct=0, or buffered=1); its null engine does no I/O.
    let buffered = engine.is_some_and(|e| e != EngineKind::Null) && p.direct != Some(true);
    let kept = o("invalidate")
        .and_then(|v| value::fio_boolean(v).ok())
        .map(|b| b.0)
        == Some(false);
    let cached = buffered.then(|| buffered_warning(!kept));
    (
        p,
        unknown
            .into_iter()
            .chain(apart)
            .chain(shaped)
            .chain(other_engine)
            .chain(cached)
            .collect(),
    )
}

/// The option that sets job `j`'s I/O sizes and its value: `bssplit` where given, else `bsrange` (or
/// `blocksize_range`), else `bs` (or `blocksize`), whatever their order, as fio 3.33 does (measured:
/// `--bs=4k --bsrange=4k-64k` and `--bsrange=4k-64k --bs=4k` both moved I/Os of 4k to 64k, and a bssplit
/// before or after a bs or bsrange is the bssplit); `None` where none is given (fio's 4k).
pub(super) fn size_option<'a>(
    j: &'a Map<String, Value>,
    g: Option<&'a Map<String, Value>>,
) -> Option<(&'a str, &'a str)> {
    [
        ["bssplit"; 2],
        ["bsrange", "blocksize_range"],
        ["bs", "blocksize"],
    ]
    .into_iter()
    .find_map(|keys| keys.into_iter().find_map(|k| Some((k, opt(j, g, k)?))))
}

/// Job `j`'s block size and block-size mix: its size option ([`size_option`]), read as `wkrun import fio`
/// reads it ([`Sizes`]): its smallest size and, for a bsrange or bssplit, the sizes and weights of wkrun's
/// mix for it ([`Sizes::mix`]; a range with no such mix, its smallest size alone). Attack 26: `--bs=4k
/// --bssplit=4k/50:64k/50` was read as 4096 B alone. A `read,write,trim` list gives the sizes of the
/// directions `used` (reads, writes, trims) does, by the import's rule (`set_sizes`, `used_sizes`; attack
/// 29 F6: `rw=randtrim --bs=4k,8k,16k` trims 16 KiB). `None` where the options give no size, or directions
/// the job does of different sizes.
fn block_sizes(
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
    used: [bool; 3],
) -> (Option<u64>, Option<Vec<SizeWeight>>) {
    let Some(blocks) = size_option(j, g).and_then(|(k, v)| {
        let kb = kb_base(j, g, k);
        let mut bs = [Sizes::One(4096), Sizes::One(4096), Sizes::One(4096)];
        set_sizes(&mut bs, v, |t| match k {
            "bs" | "blocksize" => value::bytes(t, kb).map(Sizes::One),
            "bssplit" => split(t, kb),
            _ => Sizes::range(t, kb),
        })
        .ok()?;
        match used_sizes(&bs, used) {
            (b, None) => Some(b.clone()),
            _ => None,
        }
    }) else {
        return (None, None);
    };
    let mix: Option<Vec<SizeWeight>> = blocks.mix().map(|m| {
        m.into_iter()
            .filter_map(|(bytes, w)| {
                let weight = u32::try_from(w).ok().filter(|&w| w > 0)?;
                Some(SizeWeight { bytes, weight })
            })
            .collect()
    });
    match (blocks, mix) {
        (Sizes::One(b), _) => (Some(b), None),
        (_, Some(m)) => (m.iter().map(|e| e.bytes).min(), Some(m)),
        (Sizes::Range(lo, _), None) => (Some(lo), None),
        (Sizes::Split(_), None) => (None, None),
    }
}

/// The parameters a phase read from fio's JSON has whenever fio's job had them (fio lists every option
/// given, `shape`): absent, fio's job had none (uniform offsets, no rate cap, no think time, one block
/// size), so `compare` shows them as differing from a job that had them.
pub const SAID_WHEN_ABSENT: [&str; 5] = [
    "distribution",
    "rate_iops",
    "think_time_ns",
    "think_every",
    "block_size_mix",
];

/// What shapes job `j`'s workload beyond its sizes, read with `wkrun import fio`'s parsers into the
/// parameters a wkrun phase records (attack 26 F5: compare scored a zipf job and a rate-capped one as a
/// uniform, uncapped one): `random_distribution` (`params.distribution` as wkrun writes it, fio's own
/// spelling where wkrun has no such law), `percentage_random` (0: sequential offsets; 100: random; between,
/// `params.pattern` absent), `rate_iops` and `rate` (`params.rate_iops`, [`rate_cap`]), `thinktime`
/// (`think_time_ns`, `think_every` its `thinktime_blocks`, 1 by default, [`think_time`]). The warnings of
/// a think time or a rate cap the import refuses, if any.
fn shape(
    p: &mut PhaseParams,
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
) -> Vec<String> {
    let random = p.pattern == Some(Pattern::Random);
    if let Some(v) = opt(j, g, "random_distribution").filter(|_| random) {
        p.distribution = match crate::fio::import::job::fio_distribution(v) {
            Ok(d) => d.map(|d| d.to_string()),
            Err(_) => Some(format!("fio:{}", v.trim())),
        };
    }
    match int_opt(j, g, "percentage_random").filter(|_| random) {
        Some(0) => (p.pattern, p.distribution) = (Some(Pattern::Sequential), None),
        Some(n) if n < 100 => p.pattern = None,
        _ => {}
    }
    let think = think_time(p, j, g);
    match rate_cap(p, j, g) {
        Ok((rate, mix, ignored)) => {
            p.rate_iops = rate;
            think
                .into_iter()
                .chain(capped_mix(p, mix))
                .chain(ignored)
                .collect()
        }
        Err(why) => think.into_iter().chain([why]).collect(),
    }
}

/// How the warning of a mix fio's caps set [`capped_mix`] begins.
const MIX_OF_CAPS: &str = "fio's read share follows its rate caps";

/// `params.read_percent` of a mixed job under fio's caps, by the import's rule
/// ([`crate::fio::import::CapsMix`]): capped in both directions, the share the caps give; capped in one, absent
/// (fio's uncapped direction runs at the device's speed, so its share is the device's, not rwmixread;
/// attack 28 F8: `rwmixread=30 rate_iops=,100` ran 72,728 reads and 200 writes, and compare scored it
/// beside a wkrun run of 30 % reads as the same workload, +84,425 % read IOPS). The warning saying why.
fn capped_mix(p: &mut PhaseParams, mix: crate::fio::import::CapsMix) -> Option<String> {
    use crate::fio::import::CapsMix;
    let given = p.read_percent?;
    let (now, why) = match mix {
        CapsMix::Rwmix => return None,
        CapsMix::Caps { share, why } => (u8::try_from(share).ok(), why),
        CapsMix::Device { why } => (None, why),
    };
    p.read_percent = now;
    let read = match now {
        Some(n) => {
            format!("params.read_percent is {n}, not rwmixread={given}")
        }
        None => format!(
            "params.read_percent is absent (the device's, unknown before the run: compare shows it as unknown and leaves the job out of the composite beside a run whose share is known), not rwmixread={given}"
        ),
    };
    Some(format!(
        "{MIX_OF_CAPS}, as `wkrun import fio` reads it: {why}; {read}"
    ))
}

/// fio's options that change how a think time (`thinktime`) is spent or when it comes, beyond
/// `thinktime_blocks`: each one `wkrun import fio` refuses (but for its neutral value) leaves the think
/// time unread ([`think_time`]).
const THINK_SHAPERS: [&str; 2] = ["thinktime_iotime", "thinktime_spin"];

/// Job `j`'s think time into `p` (`think_time_ns`, and `think_every` its `thinktime_blocks`, 1 by default),
/// as `wkrun import fio` maps it; the warning naming the option where one of [`THINK_SHAPERS`] is given
/// that the import refuses ([`crate::fio::import::job::refusal`]: the same rule), or where fio counts its
/// bursts otherwise than wkrun ([`crate::fio::import::job::think_count`]: `thinktime_blocks_type=complete`,
/// given or fio's default, with more than one I/O in flight), both parameters then absent. Attack 27 F7
/// (fio 3.33, measured): `thinktime=1ms` alone made 917 IOPS, with `thinktime_iotime=100ms` (a think after
/// each 100 ms of I/O) 16,280, and both were read as a think after every I/O.
fn think_time(
    p: &mut PhaseParams,
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
) -> Option<String> {
    use crate::fio::import::job::{refusal, think_count, think_type_text};
    let given = opt(j, g, "thinktime")?;
    let us = value::time_us(given, false).ok().filter(|&us| us > 0)?;
    let blocks = int_opt(j, g, "thinktime_blocks").unwrap_or(1).max(1);
    let refused = THINK_SHAPERS.iter().find_map(|k| {
        let v = opt(j, g, k)?;
        let why = refusal(k, v)?;
        Some(format!("{k}={v} ({why})"))
    });
    let kind = opt(j, g, "thinktime_blocks_type");
    let engine = opt(j, g, "ioengine").unwrap_or("psync");
    let depth = int_opt(j, g, "iodepth").unwrap_or(1);
    let refused = refused.or_else(|| {
        let why = think_count(kind, engine, depth, blocks)?;
        Some(format!("{} ({why})", think_type_text(kind)))
    });
    if let Some(why) = refused {
        return Some(format!(
            "{THINK_UNREAD} (thinktime={given}) is not read: `wkrun import fio` refuses {why}, so params.think_time_ns and think_every are absent (compare shows them as -, as a job without a think time)"
        ));
    }
    p.think_time_ns = Some(us.saturating_mul(1000));
    p.think_every = Some(blocks);
    None
}

/// How the warning of a think time [`think_time`] does not read begins.
const THINK_UNREAD: &str = "fio's think time";

/// How the warning of a rate cap [`rate_cap`] does not read begins.
const RATE_UNREAD: &str = "fio's rate cap";

/// Job `j`'s rate cap, `params.rate_iops`: its `rate` (bytes per second) and `rate_iops` per direction, with
/// `rate_process`, mapped as `wkrun import fio` maps them ([`crate::fio::import::rate_total`]: a byte rate
/// over the block size, or a block-size mix's mean size; fio takes `rate` over `rate_iops` for a direction
/// both cap; the directions the job does, `rwmixread=100` reads only; its `numjobs` jobs' caps multiplied,
/// then rounded; a job of trims only, its cap on trims as the total cap, `{"total":N}`); `None` without a
/// cap; beside it, the warning of a cap's part on trims fio ignored (a job that does not trim, attack 28 F9).
/// A cap the import refuses (a cap on trims of a job that also writes, a `rate` that is no whole number of
/// I/Os per second of one size, a mix's rounded beyond 5 %, a mix under fio's random map, a `rate` with
/// block sizes the options do not give) is the warning naming it, the parameter absent (attack 27: `rate=1m`
/// was not read, so compare showed a capped job as an uncapped one), as is a cap on a job whose directions
/// are unknown.
fn rate_cap(
    p: &PhaseParams,
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
) -> Result<
    (
        Option<crate::vocab::Rate>,
        crate::fio::import::CapsMix,
        Option<String>,
    ),
    String,
> {
    use crate::fio::import::job::{Job, Rw, flag};
    use crate::fio::import::shape::Block;
    let given = ["rate", "rate_iops"].map(|k| opt(j, g, k).map(|v| (k, v)));
    if given.iter().all(Option::is_none) {
        return Ok((None, crate::fio::import::CapsMix::Rwmix, None));
    }
    let text = (given.iter().flatten())
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" and ");
    let refused = |why: String| {
        format!(
            "{RATE_UNREAD} ({text}) is not read: `wkrun import fio` refuses it ({why}), so params.rate_iops is absent (compare shows it as -, as a job without a cap)"
        )
    };
    let mut job = Job::fio_default(crate::fio::Place::File("fio's JSON".into()));
    let random = p.pattern != Some(Pattern::Sequential);
    // The job's directions as its rw gave them: trims only, trimwrite's trims and writes, or reads and
    // writes in the mix read_percent says (Job::directions keeps those it gives a share).
    (job.rw, job.rwmixread) = match (p.trim_percent, p.read_percent) {
        (Some(100), _) => (
            Rw {
                random,
                read: false,
                write: false,
                trim: true,
            },
            0,
        ),
        (Some(_), _) => (
            Rw {
                random,
                read: false,
                write: true,
                trim: true,
            },
            0,
        ),
        (None, Some(share)) => (
            Rw {
                random,
                read: true,
                write: true,
                trim: false,
            },
            u64::from(share),
        ),
        (None, None) => return Err(refused("the job's rw is not one it reads".into())),
    };
    job.numjobs = u64::from(p.workers.unwrap_or(1));
    job.random_map = !opt(j, g, "norandommap").is_some_and(|v| flag(v).unwrap_or(true));
    // fio keeps no random map under any distribution but uniform: which one does not matter here.
    job.distribution = p
        .distribution
        .as_ref()
        .map(|_| crate::spec::Distribution::Uniform);
    job.poisson = opt(j, g, "rate_process").map(str::trim) == Some("poisson");
    for (k, v) in given.into_iter().flatten() {
        let at = job.at.clone();
        if let Err(e) = job.set_rate(k, v, kb_base(j, g, k), &at) {
            return Err(refused(format!("{k}: {e}")));
        }
    }
    let block = match (&p.block_size_mix, p.block_size_bytes) {
        (Some(m), _) => Block::Mix(m.iter().map(|e| (e.bytes, u64::from(e.weight))).collect()),
        (None, Some(b)) => Block::One(b),
        // One size, whatever it is, gives rate_iops exactly; a byte rate needs it.
        (None, None) if job.rate_bytes.0 == [None; 2] => Block::One(4096),
        (None, None) => return Err(refused("the job's block size is unknown".into())),
    };
    // fio's JSON lists no bare flag (`norandommap` without `=1`, attack 28 F13): a job that does not list
    // it may have had it.
    let unlisted = opt(j, g, "norandommap").is_none()
        && crate::fio::import::shape::mix_under_random_map(&job, &block, &job.at).is_some();
    let (rate, mix, ignored) = crate::fio::import::rate_total(&job, &block).map_err(|why| match unlisted {
        true => format!(
            "{RATE_UNREAD} ({text}) is not read: whether the job had norandommap is unknown (fio's JSON does not list bare flags: write norandommap=1), and without it `wkrun import fio` refuses it ({why}), so params.rate_iops is absent (compare shows it as -, as a job without a cap)"
        ),
        false => refused(why),
    })?;
    Ok((
        rate,
        mix,
        ignored.map(|why| format!("{RATE_TRIMS_IGNORED}{why}")),
    ))
}

/// How the warning of a cap on trims fio ignored ([`rate_cap`]) begins.
const RATE_TRIMS_IGNORED: &str = "fio's rate cap is read without its part on trims: ";

/// The `kb_base` (1024 or 1000) fio read job `j`'s size option `key` with (its own, else the global one,
/// `g`), as the importer reads it ([`crate::fio::jobfile`]): fio applies a job file's section `kb_base`
/// first, and its command line one option at a time (a job's options that name the job, `name`, are its
/// command line's; fio's JSON keeps their order): a size before `--kb_base` keeps the base before it, and
/// a global size keeps the global base whatever the job's. Attack 24: `--kb_base=1000 --size=8m
/// --offset=2m --bs=4k` read as 8 MiB, 2 MiB and 4096 B where fio moved 8,000,000 B of 4000 B from 2,000,000.
fn kb_base(j: &Map<String, Value>, g: Option<&Map<String, Value>>, key: &str) -> u64 {
    let base = |m: &Map<String, Value>, upto: bool| {
        let mut kb = None;
        for (k, v) in m {
            if k == key && upto {
                break;
            }
            if k == "kb_base" {
                kb = v.as_str().and_then(|v| v.trim().parse::<u64>().ok());
            }
        }
        kb.filter(|&b| b == 1000 || b == 1024)
    };
    let own = j.get("job options").and_then(Value::as_object);
    let in_order = own.is_some_and(|o| o.contains_key("name"));
    match own.filter(|o| o.contains_key(key)) {
        Some(o) => base(o, in_order).or_else(|| g.and_then(|g| base(g, false))),
        None => g.and_then(|g| base(g, in_order)),
    }
    .unwrap_or(1024)
}

/// The span of a job's `numjobs` jobs (`jobs`) of `size` bytes each (its span from its options, 0 when
/// unknown), each `offset_increment` (`step`) past the one before (fio 3.33 starts its job k at `offset` + k ×
/// `offset_increment`, measured with `write_iolog`: `size=4m`, `numjobs=3`, `offset_increment=4m` read
/// [0, 12 MiB), `=6m` [0, 4), [6, 10) and [12, 16) MiB): the union of their ranges, (jobs − 1) × step + size,
/// as wkrun's imported phase spans them all (trial 22 F3: compare set fio's 16 MiB, one job's, beside the
/// imported run's 32 MiB). Jobs whose ranges leave gaps (a step above the size), or a step that is not bytes,
/// have no one span: 0 (unknown), with the warning saying why.
fn jobs_span(size: u64, jobs: Option<u64>, step: Option<(&str, u64)>) -> (u64, Option<String>) {
    let jobs = jobs.unwrap_or(1);
    let Some((text, kb)) = step.filter(|_| jobs > 1 && size > 0) else {
        return (size, None);
    };
    let unknown = |why: String| {
        (
            0,
            Some(format!(
                "the span is unknown: the job's numjobs={jobs} jobs of size={size} B each, offset_increment={text} apart, {why} (params.span_bytes is 0)"
            )),
        )
    };
    match value::size(text, kb) {
        Ok(Size::Bytes(0)) => (size, None),
        Ok(Size::Bytes(b)) if b <= size => {
            match (jobs - 1).checked_mul(b).and_then(|x| x.checked_add(size)) {
                Some(union) => (union, None),
                None => unknown("past 2^64 bytes".into()),
            }
        }
        Ok(Size::Bytes(b)) => unknown(format!(
            "leave {} B between one's range and the next's",
            b - size
        )),
        _ => unknown("the increment not in bytes".into()),
    }
}

/// The warning of a job fio ran with buffered I/O (trial 24 F2): the page cache's part in its numbers
/// ([`crate::plan::PAGE_CACHE_SETS`]), and whether fio dropped the file's cached pages before it
/// (`invalidate`, 1 by default) or kept them.
fn buffered_warning(invalidated: bool) -> String {
    let before = match invalidated {
        true => {
            "fio dropped the file's cached pages before the job (invalidate=1, its default), so the cache held none of it at the start"
        }
        false => {
            "fio kept the file's cached pages before the job (invalidate=0), so pages cached before it were answered from memory"
        }
    };
    format!("{BUFFERED_JOB}: {}; {before}", crate::plan::PAGE_CACHE_SETS)
}

/// How the warning of a buffered job ([`buffered_warning`]) starts.
const BUFFERED_JOB: &str = "direct=0 (buffered I/O)";

/// Whether `w` is the warning of a job fio ran with buffered I/O (`buffered_warning`).
pub fn buffered_job(w: &str) -> bool {
    w.starts_with(BUFFERED_JOB)
}

/// The warning of a phase whose fio job ran on an engine wkrun has not (`falloc`, `posixaio`, `mmap`):
/// `params.engine` is absent, and [`other_engine`] reads the engine's name back from it, so that `compare`
/// shows the engines apart (trial 19 F6), as the warning says (trial 28 L5: it said only that the engine
/// was absent, beside compare's `engine=falloc`).
fn engine_warning(name: &str) -> String {
    format!("{ENGINE_SAID}{name}{ENGINE_END}, and compare shows it by fio's name, engine={name}")
}

const ENGINE_SAID: &str = "fio's job ran on its engine ";
const ENGINE_END: &str = ", which wkrun has not: params.engine is absent";

/// The fio engine of a phase read from fio's JSON that ran on one wkrun has not (its warning `fio's job ran
/// on its engine NAME, ...`), as fio names it; `None` for another phase.
pub fn other_engine(p: &PhaseResult) -> Option<&str> {
    p.warnings
        .iter()
        .find_map(|w| Some(w.strip_prefix(ENGINE_SAID)?.split_once(ENGINE_END)?.0))
}

/// fio's `sync` option as the flag each write carried: `1` or `sync` is `RWF_SYNC`'s, `dsync` `RWF_DSYNC`'s
/// (fio opens the file O_SYNC or O_DSYNC: the same durability per write); none for `0`, `none` or without.
fn write_flag(v: Option<&str>) -> Option<SyncWrites> {
    match v? {
        "1" | "sync" => Some(SyncWrites::Sync),
        "dsync" => Some(SyncWrites::Dsync),
        _ => None,
    }
}

/// The phase's durable writes and flushes, as a wkrun phase with `sync`, `fsync` or `fdatasync` has them:
/// the flag of its writes (fio's `sync` option, [`write_flag`], in `p.sync`; `writes` its completed writes)
/// and the syncs fio timed (`syncs`, its `sync` block read by [`syncs`]), named by the job's `fdatasync` or
/// else `fsync` (`p.fdatasync`, `p.fsync`) (fio's `end_fsync` and `fsync_on_close` are fsync(2) calls too), `every_writes` its N (0 where
/// the job gives none: the syncs were not after every N writes). `None` when there is neither.
fn sync_result(p: &PhaseParams, syncs: Option<DirStats>, writes: u64) -> Option<SyncResult> {
    let flag = p.sync;
    let (call, n) = match (p.fdatasync, p.fsync) {
        (Some(n), _) => ("fdatasync", Some(n)),
        (None, n) => ("fsync", n),
    };
    let syncs = syncs.filter(|s| s.ops > 0 || n.is_some());
    let flushes = syncs.map(|s| FlushResult {
        call: call.to_string(),
        every_writes: n.unwrap_or(0),
        ops: s.ops,
        latency_ns: s.latency_ns,
    });
    (flag.is_some() || flushes.is_some()).then(|| SyncResult {
        write_flag: flag,
        flagged_writes: flag.map_or(0, |_| writes),
        flushes,
    })
}

/// How a sync count that is not one per N writes ends its warning ([`sync_count`]), by which
/// [`syncs_apart`] finds it.
const SYNCS_APART: &str =
    "so fio's flush count and flush latencies are not comparable with wkrun's";

/// The warning of a job whose syncs (`sync.flushes`, after every N writes: fio's `fsync=N` or
/// `fdatasync=N`) are not one per N of its `writes`: more than floor(writes / N) (and one per job with
/// `end_fsync` or `fsync_on_close`, `end_syncs`), or fewer than its `jobs` give: each job syncs after every
/// N of its own writes (a job's remainder, up to N − 1 writes, unsynced) and may end after a multiple of N
/// writes before issuing its sync, so floor(writes / N) − (2 × jobs − 1) at the fewest. fio syncs whenever its count of issued writes is a nonzero multiple of N and the last
/// I/O to complete was not a sync (fio 3.33, every I/O of runs on a file traced with `--debug=io`), so it
/// syncs again before each I/O it issues until its next write: in a job that reads and writes, about
/// (1 + reads per write) × writes / N syncs (randrw, rwmixread=60, fsync=16: 2.4 to 2.6 times floor(writes /
/// 16) on psync, libaio and io_uring); with io_uring at an iodepth above 1, whose syncs are queued like its
/// I/Os, in a job that only writes too (iodepth=8: 4.4 times). wkrun flushes once after every N writes of
/// each worker (trial 21 T1: 1037 syncs for 6512 writes beside wkrun's 294 for 4714, compared at -71.6 %).
fn sync_count(sync: Option<&SyncResult>, writes: u64, jobs: u64, end_syncs: u64) -> Option<String> {
    let f = sync?.flushes.as_ref().filter(|f| f.every_writes > 0)?;
    let n = f.every_writes;
    let once = writes / n;
    let fewest = once.saturating_sub(2 * jobs - 1);
    if (fewest..=once.saturating_add(end_syncs)).contains(&f.ops) {
        return None;
    }
    Some(format!(
        "fio's {call}={n} made {} syncs for {writes} writes, not floor({writes} / {n}) = {once}: fio syncs whenever its count of issued writes is a nonzero multiple of {n} and the last I/O to complete was not a sync, so it syncs again before each I/O it issues until its next write (each read of a job that also reads; with io_uring at an iodepth above 1, while its sync is in flight), where wkrun flushes once after every {n} writes of each worker: {SYNCS_APART}",
        f.ops,
        call = f.call,
    ))
}

/// The warning of a phase read from fio's JSON whose syncs are not one per N writes (`sync_count`):
/// `compare` gives its flush rows no change and says why; `None` for any other phase.
pub fn syncs_apart(p: &PhaseResult) -> Option<&str> {
    p.warnings
        .iter()
        .find(|w| w.starts_with("fio's ") && w.ends_with(SYNCS_APART))
        .map(String::as_str)
}

/// What the warning of a job on an engine that does no storage I/O says after `fio's ENGINE engine`
/// ([`no_io_engine`]), by which [`no_storage_io`] finds it.
const NO_IO: &str = " engine does no storage I/O (";

/// fio's engines that move no data byte though fio counts I/Os of them, each with what it does and what
/// fio's counted I/Os are: this module reads such a job as a phase without I/O, and their counts are held
/// to no block size (the plausibility rules of `src/fio/plausible.rs`). Measured on fio 3.33: `cpuio`
/// (`rw=randread`, `cpuload=50` for a second: 10 reads of 0 bytes), `exec` (`program=/bin/true` for a
/// second: 9 reads of 0 bytes), `filecreate`, `filestat`, `filedelete` (50 files of 4k: 50 writes of
/// 204800 bytes, no data byte written: each "I/O" opens, stats or unlinks a file) and `ftruncate` (64
/// writes of 262144 bytes: each truncates the file); `dircreate`, `dirstat` and `dirdelete` (fio 3.34 on;
/// fio 3.33 has none) are the directory operations of the same kind.
pub const NO_IO_ENGINES: [(&str, &str, &str); 9] = [
    ("cpuio", "it keeps a CPU busy", "its cycles"),
    ("exec", "it runs a program", "its program's turns"),
    (
        "filecreate",
        "file operations: it creates files",
        "its file operations",
    ),
    (
        "filestat",
        "file operations: it stats files",
        "its file operations",
    ),
    (
        "filedelete",
        "file operations: it deletes files",
        "its file operations",
    ),
    (
        "dircreate",
        "file operations: it creates directories",
        "its file operations",
    ),
    (
        "dirstat",
        "file operations: it stats directories",
        "its file operations",
    ),
    (
        "dirdelete",
        "file operations: it deletes directories",
        "its file operations",
    ),
    (
        "ftruncate",
        "file operations: it truncates its file",
        "its file operations",
    ),
];

/// fio's engines that keep one I/O in flight per job whatever its `iodepth`: those fio's sources flag
/// `FIO_SYNCIO` (fio 3.33 and later; fio then says "synchronous I/O engine ... queue depth will be capped
/// at 1"), each of whose I/Os is done before the next is issued. vsync queues contiguous I/Os for one
/// readv/writev, yet under strace fio 3.33 at iodepth=8 issues one 4 KiB readv at a time (its JSON's
/// `iodepth_level` says 8 none the less). Left out, though flagged: `sg` and `libiscsi`, whose I/Os stay
/// queued (sg on a /dev/sg device with direct=0 and sync=0), and `null`, flagged only at iodepth=1.
pub const ONE_IN_FLIGHT_ENGINES: [&str; 35] = [
    "psync",
    "sync",
    "vsync",
    "pvsync",
    "pvsync2",
    "falloc",
    "mmap",
    "splice",
    "e4defrag",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
    "cpuio",
    "exec",
    "net",
    "netsplice",
    "mtd",
    "gfapi",
    "http",
    "libhdfs",
    "libpmem",
    "dev-dax",
    "pmemblk",
    "libzbc",
    "libcufile",
    "libhipfile",
    "page_fault",
    "ime_psync",
    "ime_psyncv",
    "librpma_apm_server",
    "librpma_gpspm_server",
];

/// Whether fio's `ioengine` `engine` keeps one I/O in flight per job whatever its `iodepth`: one of
/// [`ONE_IN_FLIGHT_ENGINES`] (psync, fio's default, sync, vsync, pvsync, pvsync2, falloc, mmap, splice,
/// ...). Its effective queue depth is 1, for `wkrun import fio` (its queue depth, and a latency target's
/// search, which has one depth to try) and for fio's JSON.
pub fn one_io_in_flight(engine: &str) -> bool {
    ONE_IN_FLIGHT_ENGINES.contains(&engine)
}

/// Whether fio's `ioengine` `engine` is one of [`NO_IO_ENGINES`].
pub fn is_no_io_engine(engine: &str) -> bool {
    NO_IO_ENGINES.iter().any(|(e, _, _)| *e == engine)
}

/// The warning of a job on one of fio's [`NO_IO_ENGINES`] (`engine`, its `ioengine`), which reads and
/// writes no data byte though fio counts I/Os of it, with the counts of `dirs` (reads, writes, trims) it
/// had; `None` for another engine.
fn no_io_engine(engine: Option<&str>, dirs: [&Dir; 3]) -> Option<String> {
    let &(e, does, what) = NO_IO_ENGINES.iter().find(|(e, _, _)| Some(*e) == engine)?;
    let counted: Vec<String> = ["reads", "writes", "trims"]
        .iter()
        .zip(dirs)
        .filter(|(_, d)| d.stats.ops > 0)
        .map(|(what, d)| format!("{} {what} of {} bytes", d.stats.ops, d.stats.bytes))
        .collect();
    Some(match counted.is_empty() {
        true => format!("fio's {e}{NO_IO}{does}): the phase has no I/O"),
        false => format!(
            "fio's {e}{NO_IO}{does}): the {} fio counted are {what}, none here",
            counted.join(" and ")
        ),
    })
}

/// The warning of a phase read from fio's JSON of a job that did no storage I/O (`no_io_engine`): `compare`
/// leaves it out, `validate` notes it; `None` for any other phase.
pub fn no_storage_io(p: &PhaseResult) -> Option<&str> {
    p.warnings
        .iter()
        .find(|w| w.starts_with("fio's ") && w.contains(NO_IO))
        .map(String::as_str)
}

/// How the warning of a span the options give not in bytes begins ([`span_warning`]).
const SPAN_UNKNOWN: &str = "the span is unknown:";

/// The warning of a job whose span fio's output does not give in bytes (its `params.span_bytes` is 0):
/// [`whole_target`] for a job with no size, offset or file size, which fio runs over the whole of its target
/// (`what`: `file` or `device`); else the options that make it unknown.
fn span_warning(
    size: Option<&str>,
    offset: Option<&str>,
    filesize: Option<&str>,
    what: &str,
) -> String {
    let given: Vec<String> = [("size", size), ("offset", offset), ("filesize", filesize)]
        .into_iter()
        .filter_map(|(k, v)| Some(format!("{k}={}", v?)))
        .collect();
    match given.is_empty() {
        true => whole_target(what),
        false => format!(
            "{SPAN_UNKNOWN} the job's {} does not give it in bytes (params.span_bytes is 0)",
            given.join(" ")
        ),
    }
}

/// How the report names the span of a phase read from fio's JSON whose job gave none in bytes
/// (`params.span_bytes` 0, which a wkrun phase never has): `the whole file`, `the whole device`, or
/// `unknown`; `None` for a known span.
pub fn unknown_span(p: &PhaseResult) -> Option<&'static str> {
    let said = |what: &str| p.warnings.contains(&whole_target(what));
    (p.params.span_bytes == 0).then(|| match (said("file"), said("device")) {
        (true, _) => "the whole file",
        (_, true) => "the whole device",
        _ => "unknown",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = include_str!("../../tests/data/fio/fio-3.33-two-jobs.json");
    const PLUS: &str = include_str!("../../tests/data/fio/fio-3.33-json-plus.json");
    const FAILED: &str = include_str!("../../tests/data/fio/fio-3.33-failed-job.json");
    const GROUP: &str = include_str!("../../tests/data/fio/fio-3.33-numjobs-group.json");

    fn fio(text: &str) -> Value {
        serde_json::from_str(text).expect("fio JSON")
    }

    /// A psync job at iodepth=32 keeps one I/O in flight (fio caps its depth at 1): its queue depth is 1,
    /// as `wkrun import fio` writes for it, not 32.
    #[test]
    fn a_sync_engine_job_has_queue_depth_1() {
        let text = include_str!("../../tests/data/fio/fio-3.33-psync-qd32.json");
        let doc = fio(text);
        assert_eq!(doc["jobs"][0]["job options"]["iodepth"], "32");
        assert_eq!(doc["jobs"][0]["job options"]["ioengine"], "psync");
        let r = from_bytes("q.json", text.as_bytes()).expect("reads");
        assert_eq!(r.phases[0].params.queue_depth, Some(1));
        let one: Vec<&str> = [
            "psync", "falloc", "vsync", "mmap", "splice", "cpuio", "sg", "null",
        ]
        .into_iter()
        .filter(|e| one_io_in_flight(e))
        .collect();
        assert_eq!(one, ["psync", "falloc", "vsync", "mmap", "splice", "cpuio"]);
        assert!(!one_io_in_flight("libaio") && !one_io_in_flight("io_uring"));
    }

    /// fio 3.33's empty entry after a command line's group (no name, no options, no I/O, group 2^32 - 1) is
    /// dropped: the file is 1 phase, the group's (512 reads and 32 writes), no phase "fio" of 0 IOPS.
    #[test]
    fn fios_empty_group_entry_is_no_phase() {
        let text = include_str!("../../tests/data/fio/fio-3.33-group-4k-64k.json");
        let doc = fio(text);
        assert_eq!(doc["jobs"].as_array().map(Vec::len), Some(2));
        assert!(empty_group_entry(doc["jobs"][1].as_object().expect("job")));
        assert!(!empty_group_entry(doc["jobs"][0].as_object().expect("job")));
        let r = from_bytes("g.json", text.as_bytes()).expect("reads");
        let names: Vec<&str> = r.phases.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a"]);
        let p = &r.phases[0];
        assert_eq!((p.read.ops, p.write.ops), (512, 32));
        assert_eq!((p.read.iops, p.write.iops), (7013.69863, 32000.0));
        // Named a with job y's options (64k writes), beside 512 reads of 4 KiB: a group of unlike jobs.
        assert_eq!(
            (
                p.params.block_size_bytes,
                p.params.read_percent,
                p.params.engine
            ),
            (None, None, None)
        );
        assert!(unlike_group(p).is_some_and(|w| w.contains("are job \"y\"'s (their name)")));
        assert!(p.completed);
        assert_eq!(format!("{:?}", r.status), "Completed");
        let mut only = doc.clone();
        only["jobs"].as_array_mut().expect("jobs").remove(0);
        let err = read("g.json", only.to_string().as_bytes()).expect_err("no job");
        assert_eq!(
            err,
            ["\"jobs\" has only fio's empty group entry: fio's output has no job to read"]
        );
    }

    /// Each job is a phase with fio's counts, rates and percentiles, its parameters from the job options,
    /// and results marked as fio's.
    #[test]
    fn jobs_become_phases() {
        let r = from_bytes("two.json", TWO.as_bytes()).expect("reads");
        let doc = fio(TWO);
        assert_eq!(r.source.as_ref().map(|s| s.tool.as_str()), Some("fio"));
        assert_eq!(
            r.spec.version,
            doc["fio version"].as_str().unwrap_or_default()
        );
        let names: Vec<&str> = r.phases.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["mix", "seq"]);
        for (p, j) in r.phases.iter().zip(doc["jobs"].as_array().expect("jobs")) {
            for (d, got) in [("read", &p.read), ("write", &p.write)] {
                assert_eq!(got.ops, j[d]["total_ios"].as_u64().unwrap_or(0), "{d}");
                assert_eq!(got.bytes, j[d]["io_bytes"].as_u64().unwrap_or(0), "{d}");
                assert_eq!(got.iops, j[d]["iops"].as_f64().unwrap_or(0.0), "{d}");
                if let Some(l) = &got.latency_ns {
                    let pct = &j[d]["clat_ns"]["percentile"];
                    assert_eq!(Some(l.p99), pct["99.000000"].as_u64(), "{d} p99");
                    assert_eq!(Some(l.p99_9), pct["99.900000"].as_u64(), "{d} p99.9");
                    assert_eq!(Some(l.max), j[d]["lat_ns"]["max"].as_u64(), "{d} max");
                }
            }
            assert!(p.series_csv.is_none() && p.latency_histograms.is_none());
            assert!(
                p.warnings.iter().any(|w| w.contains("clat")),
                "{:?}",
                p.warnings
            );
        }
        let mix = &r.phases[0].params;
        assert_eq!(
            (
                mix.read_percent,
                mix.queue_depth,
                mix.block_size_bytes,
                mix.span_bytes
            ),
            (Some(70), Some(4), Some(4096), 16 << 20)
        );
        assert_eq!(r.phases[1].params.block_size_bytes, Some(65536));
        // Both directions of a mixed job without bins: the total has no percentiles to give.
        assert!(r.phases[0].total.latency_ns.is_none());
        assert_eq!(r.phases[1].total.latency_ns, r.phases[1].read.latency_ns);
    }

    /// json+: the bins give the histograms and the mixed total's percentiles; group_reporting's group is
    /// one phase.
    #[test]
    fn json_plus_bins() {
        let r = from_bytes("plus.json", PLUS.as_bytes()).expect("reads");
        assert_eq!(r.phases.len(), 1);
        let p = &r.phases[0];
        let h = p.latency_histograms.as_ref().expect("histograms");
        let n: u64 = h.read.iter().map(|b| b[1]).sum();
        assert_eq!(n, p.read.ops);
        let t = p.total.latency_ns.as_ref().expect("total latency");
        let (r_, w) = (
            p.read.latency_ns.as_ref().expect("r"),
            p.write.latency_ns.as_ref().expect("w"),
        );
        assert!(t.p50 >= r_.p50.min(w.p50) && t.p50 <= r_.p50.max(w.p50));
        assert_eq!(t.max, r_.max.max(w.max));
        assert_eq!(p.params.workers, Some(2));
    }

    /// numjobs=4 with group_reporting: the phase lasts as long as the group's longest job (fio's `runtime`
    /// per direction, 2031 ms), not the sum of its jobs (`job_runtime`, 8109 ms); the run ends at fio's
    /// `timestamp_ms` and starts its `elapsed` seconds (3) before; the mean latency of the mix is the
    /// directions' means weighted by their I/Os; nothing fio does not give reads as a number.
    #[test]
    fn a_group_of_numjobs_lasts_as_its_longest_job() {
        let doc = fio(GROUP);
        let j = &doc["jobs"][0];
        assert_eq!(j["job_runtime"].as_u64(), Some(8109));
        assert_eq!(
            (
                j["read"]["runtime"].as_u64(),
                j["write"]["runtime"].as_u64()
            ),
            (Some(2031), Some(2031))
        );
        let r = from_bytes("g.json", GROUP.as_bytes()).expect("reads");
        assert_eq!(r.phases.len(), 1);
        let p = &r.phases[0];
        assert_eq!(p.duration_s, 2.031);
        assert_eq!(p.params.workers, Some(4));
        assert_eq!(doc["timestamp_ms"].as_u64(), Some(1_796_432_759_274));
        assert_eq!(j["elapsed"].as_u64(), Some(3));
        assert_eq!(r.started_at, "2026-12-05T01:05:56.274000000Z");
        assert_eq!(
            r.finished_at.as_deref(),
            Some("2026-12-05T01:05:59.274000000Z")
        );
        assert_eq!(p.started_at, r.started_at);
        assert_eq!(
            (
                r.target.capacity_bytes,
                r.target.logical_block_size,
                r.host.cpus
            ),
            (0, 0, 0)
        );
        let fig = |key: &str| {
            p.headline
                .iter()
                .find(|f| f.key == key)
                .and_then(|f| f.value)
        };
        let (rd, wr) = (&j["read"], &j["write"]);
        let n = |d: &Value, k: &str| d[k].as_f64().unwrap_or(f64::NAN);
        assert_eq!(fig("mean iops"), Some(n(rd, "iops") + n(wr, "iops")));
        assert_eq!(
            fig("mean mb_s"),
            Some((n(rd, "bw_bytes") + n(wr, "bw_bytes")) / 1e6)
        );
        let mean = (n(&rd["lat_ns"], "mean") * n(rd, "total_ios")
            + n(&wr["lat_ns"], "mean") * n(wr, "total_ios"))
            / (n(rd, "total_ios") + n(wr, "total_ios"))
            / 1e3;
        let got = fig("mean lat_mean_us").expect("mean latency");
        assert!((got - mean).abs() <= 1e-9 * mean, "{got} vs {mean}");
        // psync: fio times each I/O in one piece (slat_ns.N 0), its clat the whole time (trial 21 T2).
        assert_eq!(rd["slat_ns"]["N"].as_u64(), Some(0));
        assert_eq!(
            latency_caveat(&r).as_deref(),
            Some(
                "latency figures are fio's: min, mean and max its total latency (lat: submission to completion, as wkrun's); its percentiles (p50, p99, p99.9) its completion latency (clat) of I/Os it times in one piece (slat_ns.N is 0: trims, and I/Os on fio's sync engines), which is their whole time, as wkrun's"
            )
        );
        // libaio times its submissions apart (slat_ns.N above 0): clat leaves their time out.
        let two = from_bytes("two.json", TWO.as_bytes()).expect("reads");
        assert_eq!(
            latency_caveat(&two).as_deref(),
            Some(
                "latency min, mean and max are fio's total latency (lat: submission to completion, as wkrun's); its percentiles (p50, p99, p99.9) are fio's completion latency (clat), which leaves out the submission's own time, so they can read lower than wkrun's for the same I/Os (fio's lat_percentiles=1 gives total-latency percentiles)"
            )
        );
    }

    /// A job without `size` ran over the whole file, whose size fio's output does not give: span 0 with a
    /// warning saying so, which the report reads back as `the whole file`; a size that is not bytes (a
    /// percentage) leaves the span unknown, naming the option; a size in bytes is the span.
    #[test]
    fn a_job_without_size_spans_the_whole_file() {
        let read = |size: Option<&str>| {
            let mut doc = fio(TWO);
            let g = doc["global options"].as_object_mut().expect("globals");
            match size {
                None => g.remove("size"),
                Some(v) => g.insert("size".into(), v.into()),
            };
            let text = serde_json::to_string(&doc).expect("JSON");
            from_bytes("t.json", text.as_bytes()).expect("reads")
        };
        let span_warnings = |p: &PhaseResult| -> Vec<String> {
            p.warnings
                .iter()
                .filter(|w| w.contains("span"))
                .cloned()
                .collect()
        };
        let r = read(None);
        let p = &r.phases[0];
        assert_eq!((p.params.span_start_bytes, p.params.span_bytes), (0, 0));
        assert_eq!(
            span_warnings(p),
            [
                "the job names no size: fio ran it over the whole file, whose size its output does not give (params.span_bytes is 0: unknown, not compared)"
            ]
        );
        assert_eq!(unknown_span(p), Some("the whole file"));
        let r = read(Some("50%"));
        let p = &r.phases[1];
        assert_eq!(p.params.span_bytes, 0);
        assert_eq!(
            span_warnings(p),
            [
                "the span is unknown: the job's size=50% does not give it in bytes (params.span_bytes is 0)"
            ]
        );
        assert_eq!(unknown_span(p), Some("unknown"));
        // Trial 16 item 2: a job on a block device ran over the whole device, not a file.
        let mut doc = fio(TWO);
        let g = doc["global options"].as_object_mut().expect("globals");
        g.remove("size");
        g.insert("filename".into(), "/dev/loop4".into());
        let text = serde_json::to_string(&doc).expect("JSON");
        let r = from_bytes("t.json", text.as_bytes()).expect("reads");
        let p = &r.phases[0];
        assert_eq!(
            span_warnings(p),
            [
                "the job names no size: fio ran it over the whole device, whose size its output does not give (params.span_bytes is 0: unknown, not compared)"
            ]
        );
        assert_eq!(unknown_span(p), Some("the whole device"));
        let r = read(Some("8m"));
        assert_eq!(r.phases[0].params.span_bytes, 8 << 20);
        assert_eq!(unknown_span(&r.phases[0]), None);
        assert!(span_warnings(&r.phases[0]).is_empty());
    }

    /// Trial 22 F3: a group of numjobs=2 jobs of size=4m, offset_increment=4m (fio 3.33 read [0, 4 MiB) and
    /// [4 MiB, 8 MiB)) spans 8 MiB, their union, as the imported phase does, not one job's 4 MiB; after an
    /// offset, from it; jobs apart by more than their size leave gaps: no one span, unknown with a warning.
    #[test]
    fn a_numjobs_group_with_offset_increment_spans_its_jobs_union() {
        let text = include_str!("../../tests/data/fio/fio-3.33-offset-increment.json");
        let doc = fio(text);
        let o = &doc["jobs"][0]["job options"];
        assert_eq!(
            (
                o["numjobs"].as_str(),
                o["size"].as_str(),
                o["offset_increment"].as_str()
            ),
            (Some("2"), Some("4m"), Some("4m"))
        );
        let span = |doc: &Value| {
            let r = from_bytes("o.json", doc.to_string().as_bytes()).expect("reads");
            let p = r.phases[0].clone();
            (p.params.span_start_bytes, p.params.span_bytes, p.warnings)
        };
        let (start, bytes, warnings) = span(&doc);
        assert_eq!((start, bytes), (0, 8 << 20));
        assert!(!warnings.iter().any(|w| w.contains("span")), "{warnings:?}");
        let mut at = doc.clone();
        at["jobs"][0]["job options"]["offset"] = "1m".into();
        assert_eq!(span(&at).1, 8 << 20);
        assert_eq!(span(&at).0, 1 << 20);
        let mut apart = doc.clone();
        apart["jobs"][0]["job options"]["offset_increment"] = "6m".into();
        let (_, bytes, warnings) = span(&apart);
        assert_eq!(bytes, 0);
        let said: Vec<&String> = warnings.iter().filter(|w| w.contains("span")).collect();
        assert_eq!(
            said,
            [
                "the span is unknown: the job's numjobs=2 jobs of size=4194304 B each, offset_increment=6m apart, leave 2097152 B between one's range and the next's (params.span_bytes is 0)"
            ]
        );
    }

    /// Without a time in fio's output, the run's start and end are unknown (empty), not the epoch; a job
    /// without I/O lasts its `job_runtime` shared by its numjobs.
    #[test]
    fn no_timestamp_is_unknown_and_a_job_without_io_lasts_its_share() {
        let mut doc = fio(GROUP);
        let o = doc.as_object_mut().expect("object");
        o.remove("timestamp");
        o.remove("timestamp_ms");
        // A job without I/O: no runtime, counts or rates, and no latency samples.
        for d in ["read", "write"] {
            for k in ["runtime", "total_ios", "io_bytes", "iops", "bw_bytes", "bw"] {
                doc["jobs"][0][d][k] = 0.into();
            }
            for b in ["lat_ns", "clat_ns", "slat_ns"] {
                if doc["jobs"][0][d].get(b).is_some() {
                    doc["jobs"][0][d][b]["N"] = 0.into();
                }
            }
        }
        let text = serde_json::to_string(&doc).expect("JSON");
        let r = from_bytes("g.json", text.as_bytes()).expect("reads");
        assert_eq!(
            (r.started_at.as_str(), r.finished_at.as_deref()),
            ("", Some(""))
        );
        // job_runtime 8109 ms over numjobs 4, in whole ms.
        assert_eq!(r.phases[0].duration_s, 2.027);
    }

    /// fio's notes before the JSON are skipped; a file cut short, and JSON that is not fio's, are refused
    /// saying so.
    #[test]
    fn notes_truncation_and_other_json() {
        // fio's own: a job without size fails, and its messages come first.
        assert!(looks_like_fio(FAILED.as_bytes()));
        let r = from_bytes("f.json", FAILED.as_bytes()).expect("reads");
        assert_eq!(r.status, Status::Failed);
        assert_eq!(r.error.as_deref(), Some("fio job seq: error 22"));
        assert!(!r.phases[1].completed);
        let cut = &TWO[..TWO.len() / 2];
        let e = from_bytes("cut.json", cut.as_bytes()).unwrap_err();
        assert!(e.starts_with("fio's JSON output cut short"), "{e}");
        assert!(!looks_like_fio(
            b"{\"format\": 1, \"wkrun_version\": \"x\"}"
        ));
        let e = from_bytes("x.json", b"{\"fio version\": \"fio-3\"}").unwrap_err();
        assert!(e.contains("no \"jobs\" list"), "{e}");
        let e = from_bytes("b.json", b"\x00\xff{").unwrap_err();
        assert!(e.starts_with("not text"), "{e}");
    }

    /// Attack 16 finding 1: a file of two fio runs' JSON (`cat a.json b.json`) was read as its first, the
    /// second run's jobs dropped. Another JSON document after fio's is refused naming the line it starts
    /// on (the fixture is 539 lines, its `}` the last), whole or cut short, right after the `}` or on a line
    /// of its own after fio's text; fio's text after its JSON is ignored, a job's line starting with a JSON
    /// value (`1: (groupid=...`) too.
    #[test]
    fn a_second_json_document_is_refused_naming_its_line() {
        let why = |line: usize| {
            format!(
                "line {line} starts a second JSON document after fio's (which ends at line 539): one fio run's output per file: split it"
            )
        };
        let text = "a: (groupid=0, jobs=1): err= 0: pid=7\n  read: IOPS=6285\n\nRun status group 0 (all jobs):\n";
        let ts = fio(TWO)["timestamp_ms"].as_i64().expect("timestamp_ms");
        let again = format!(
            "line 540 starts a second JSON document after fio's (which ends at line 539), not a later report of the same fio run: document 2's timestamp_ms, {ts}, is not after document 1's, {ts}: one fio run's output per file: split it"
        );
        assert_eq!(
            from_bytes("two.out", format!("{TWO}{TWO}").as_bytes()).unwrap_err(),
            again
        );
        for (tail, line) in [
            (format!("{}{{\"x\":1}}", TWO.trim_end()), 539),
            (format!("{TWO} {{\"x\":1}}\n"), 540),
            (format!("{TWO}\n[1]"), 541),
            (format!("{TWO}\n{text}{{\"x\":1}}\n"), 545),
            (format!("{TWO}\n{text}{}", &TWO[..100]), 545),
        ] {
            assert_eq!(
                from_bytes("two.out", tail.as_bytes()).unwrap_err(),
                why(line)
            );
        }
        for tail in [
            format!("\n{text}"),
            "1: (groupid=0, jobs=1): err= 0\n".to_string(),
            "{}: (groupid=0, jobs=1): err= 0\n".to_string(),
            "{\"x\": (groupid=0, jobs=1): err= 0\n".to_string(),
        ] {
            let r = from_bytes("nj.out", format!("{TWO}{tail}").as_bytes()).expect("reads");
            assert_eq!(r.phases.len(), 2, "{tail}");
        }
    }

    /// A sync count is one per N writes from floor(writes / N) − (2 × jobs − 1) (each job's remainder
    /// unsynced, and its last sync not issued when it ended) to floor(writes / N), plus one per job with
    /// end_fsync; outside, the warning, with the counts.
    #[test]
    fn sync_count_bounds() {
        let flushes = |ops: u64| SyncResult {
            write_flag: None,
            flagged_writes: 0,
            flushes: Some(FlushResult {
                call: "fsync".into(),
                every_writes: 16,
                ops,
                latency_ns: None,
            }),
        };
        let apart =
            |ops: u64, jobs: u64, end: u64| sync_count(Some(&flushes(ops)), 1600, jobs, end);
        // One job: 100 or 99 syncs for 1600 writes.
        assert_eq!((apart(100, 1, 0), apart(99, 1, 0)), (None, None));
        let said = apart(98, 1, 0).expect("98 is apart");
        assert!(said.starts_with(
            "fio's fsync=16 made 98 syncs for 1600 writes, not floor(1600 / 16) = 100: "
        ));
        assert!(apart(101, 1, 0).is_some());
        // Three jobs: from 95; with end_fsync, up to 103.
        assert_eq!((apart(95, 3, 0), apart(94, 3, 0).is_some()), (None, true));
        assert_eq!((apart(103, 3, 3), apart(104, 3, 3).is_some()), (None, true));
    }

    /// fio's raw control characters are escaped inside JSON strings only (attack 26 F8); JSON without any is
    /// left as it is, borrowed.
    #[test]
    fn raw_control_characters_are_escaped_inside_strings_only() {
        assert!(matches!(
            raw_controls_escaped(TWO),
            std::borrow::Cow::Borrowed(_)
        ));
        let raw = "note \"a\u{1}\"\n{\n \"x\u{1b}]0;\\\"\u{7}\" :\t[\"\u{0}\"]\n}\n\"b\u{2}\"";
        assert_eq!(
            raw_controls_escaped(raw),
            "note \"a\u{1}\"\n{\n \"x\\u001b]0;\\\"\\u0007\" :\t[\"\\u0000\"]\n}\n\"b\u{2}\""
        );
    }
}
