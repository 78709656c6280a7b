//! fio's output that is not one finished report: `--status-interval=N` with `--output-format=json` (fio
//! writes a complete JSON document every N seconds and its final report last, all in one file), and a job
//! fio's process died in (`fio: pid=N, got signal=S`, with the JSON still saying `"error" : 0`).

use serde_json::{Map, Value};

/// How the warning of each phase read from `--status-interval` output begins; `validate` says it once.
pub const STATUS_INTERVAL: &str = "status-interval output: read the final report";

/// The final report of fio's `--status-interval` output: `first`, the file's first document, and the
/// documents in `tail` after it, when they are one run's reports (the same jobs, started at the same second, none going back); with
/// their count.
/// `None` when the tail holds anything else, or another run's report.
pub fn final_report(first: Value, tail: &str) -> Option<(Value, usize)> {
    let mut docs = vec![first];
    for d in serde_json::Deserializer::from_str(tail).into_iter::<Value>() {
        docs.push(d.ok()?);
    }
    let all = docs.windows(2).all(|w| one_run(&w[0], &w[1]));
    let count = docs.len();
    (all && count > 1).then(|| (docs.pop().unwrap_or_default(), count))
}

/// Whether `b` is a later report than `a` of the same fio run, as fio's `--status-interval` writes them
/// (fio 3.33, randread for 3 s at `--status-interval=1`: 4 documents, the same version, jobs and options,
/// `timestamp_ms` 1796595331736 to 1796595333978, `job_runtime` 817, 1816, 2835, 3001 ms, `elapsed` 1 to
/// 4 s, read I/Os 2365, 8174, 13810, 14364): the same fio version and global options, the same jobs
/// (name, group, options) in the same order, a later timestamp (ms: the same document twice is two
/// files' worth, `cat a.json a.json`), and each job started at the same
/// second (`timestamp` − `elapsed`, within 1 s) with its runtime and counts not fewer. Two runs written one
/// after the other differ in their jobs' start by the first run's length (a second or more).
fn one_run(a: &Value, b: &Value) -> bool {
    let key = |d: &Value, k: &str| d.get(k).cloned();
    let num = |d: &Value, k: &str| d.get(k).and_then(Value::as_i64);
    let (Some(ja), Some(jb)) = (jobs(a), jobs(b)) else {
        return false;
    };
    let later = num(b, "timestamp_ms") > num(a, "timestamp_ms");
    let same = ["fio version", "global options"]
        .iter()
        .all(|k| key(a, k) == key(b, k));
    later
        && same
        && ja.len() == jb.len()
        && (ja.iter().zip(&jb))
            .all(|(x, y)| same_job(x, y, num(a, "timestamp"), num(b, "timestamp")))
}

/// A document's jobs, each an object.
fn jobs(d: &Value) -> Option<Vec<&Map<String, Value>>> {
    let list = d.get("jobs")?.as_array()?;
    list.iter().map(Value::as_object).collect()
}

/// Whether job report `y` (of a document written at `tb`, seconds) goes on from `x` (at `ta`): the same
/// job, started at the same second, its runtime and each direction's I/Os not fewer.
fn same_job(
    x: &Map<String, Value>,
    y: &Map<String, Value>,
    ta: Option<i64>,
    tb: Option<i64>,
) -> bool {
    let num = |j: &Map<String, Value>, k: &str| j.get(k).and_then(Value::as_i64);
    let ios = |j: &Map<String, Value>, d: &str| j.get(d)?.get("total_ios")?.as_u64();
    let named = ["jobname", "groupid", "job options"]
        .iter()
        .all(|k| x.get(*k) == y.get(*k));
    let start = |j, t: Option<i64>| Some(t? - num(j, "elapsed")?);
    let started = match (start(x, ta), start(y, tb)) {
        (Some(s), Some(t)) => (s - t).abs() <= 1,
        _ => false,
    };
    named
        && started
        && num(y, "job_runtime") >= num(x, "job_runtime")
        && ["read", "write", "trim"]
            .iter()
            .all(|d| ios(y, d) >= ios(x, d))
}

/// The line of `text` that says fio's process died of a signal (`fio: pid=N, got signal=S`: fio 3.33
/// asserting with `--verify=crc32c --trim_percentage=50 --trim_backlog=8` writes it before its JSON, which
/// still says `"error" : 0`), said with its line number; `None` without one.
pub fn crashed(text: &str) -> Option<String> {
    let (i, line) = text.lines().enumerate().find(|(_, l)| {
        let l = l.trim();
        l.starts_with("fio: pid=") && l.contains(", got signal=")
    })?;
    Some(format!(
        "line {}: \"{}\": a fio process died of a signal there (its JSON still says error 0): its figures are not a finished run's",
        i + 1,
        line.trim()
    ))
}

/// The signal fio says stopped it (`fio: terminating on signal 2`: fio 3.33 writes that line into its output
/// when Ctrl-C or `kill` stops it, before its JSON, which still says `"error" : 0`, or between its
/// `--status-interval` reports), as wkrun names signals (`SIGINT`), with the line said with its number;
/// `None` without one.
pub fn terminated(text: &str) -> Option<(String, String)> {
    let (i, line, sig) = text.lines().enumerate().find_map(|(i, l)| {
        let sig = l.trim().strip_prefix("fio: terminating on signal ")?;
        Some((i, l.trim(), sig.trim().parse::<i32>().ok()?))
    })?;
    let name = crate::sys::signal::name(sig);
    Some((name, format!("line {}: \"{line}\"", i + 1)))
}
