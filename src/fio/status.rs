//! fio's output that is not one finished report: `--status-interval=N` with `--output-format=json` (fio
//! writes a complete JSON document every N seconds and its final report last, all in one file), and a job
//! fio's process died in (`fio: pid=N, got signal=S`, with the JSON still saying `"error" : 0`).

use serde_json::{Map, Value};

/// How the warning of each phase read from `--status-interval` output begins; `validate` says it once.
pub const STATUS_INTERVAL: &str = "status-interval output: read the final report";

/// The final report of fio's `--status-interval` output: `first`, the file's first document, and the
/// documents in `tail` after it, when they are one run's reports (each only adds to the one before, and
/// all come from one start of fio); with their count.
/// fio's text between and after its documents is skipped. `None` when the tail holds a JSON document
/// that is not fio's, or one cut short (then it is another file's text); an error naming the document and
/// the field when they are fio's but not one run's.
pub fn final_report(first: Value, tail: &str) -> Option<Result<(Value, usize), String>> {
    let mut docs = vec![first];
    // A tail with no document of fio's holds another JSON value (`[1]` after fio's document).
    docs.extend(documents(tail).filter(|d| !d.is_empty())?);
    let count = docs.len();
    Some(one_run(&docs).map(|()| (docs.pop().unwrap_or_default(), count)))
}

/// fio's JSON documents in `tail`, each on a line that starts with `{`, with fio's text between and after
/// them skipped: with `--output-format=normal,json` fio writes its normal report after each document
/// (fio 3.33 at `--status-interval=1`: 29 lines of it), and stopped by a signal it writes `fio:
/// terminating on signal 2` between two (attack 24 F1). A line of that text that starts with `{` and is no
/// JSON value, or one followed by `:` (the report line of a job named `{}`), is text. `None` for a JSON
/// document that is not fio's (no `"fio version"`) or is cut short.
fn documents(tail: &str) -> Option<Vec<Value>> {
    let mut docs = Vec::new();
    let mut at = 0;
    while let Some(line) = tail[at..].split_inclusive('\n').next() {
        let lead = line.len() - line.trim_start().len();
        let mut next = at + line.len();
        if line.trim_start().starts_with('{') {
            let start = at + lead;
            let mut s = serde_json::Deserializer::from_str(&tail[start..]).into_iter::<Value>();
            match s.next() {
                Some(Ok(d)) if !tail[start + s.byte_offset()..].starts_with(':') => {
                    d.get("fio version")?;
                    docs.push(d);
                    next = start + s.byte_offset();
                }
                Some(Err(e)) if e.is_eof() => return None,
                _ => {}
            }
        }
        at = next;
    }
    Some(docs)
}

/// How each reason a document is not a later report of the run before ends.
const ONLY_ADDS: &str = "a later report of one fio run only adds to its figures";

/// Whether `docs` are one fio run's reports, as fio's `--status-interval` writes them (fio 3.33, randread
/// for 3 s at `--status-interval=1`: 4 documents, the same version, jobs and options, `timestamp_ms`
/// 1796595331736 to 1796595333978, `job_runtime` 817, 1816, 2835, 3001 ms, `elapsed` 1 to 4 s, read I/Os
/// 2365, 8174, 13810, 14364): each after the one before ([`goes_on`]), all from one start of fio
/// ([`one_start`]).
///
/// # Errors
/// The first document that is not, naming it and the field.
fn one_run(docs: &[Value]) -> Result<(), String> {
    for (k, w) in docs.windows(2).enumerate() {
        goes_on(&w[0], &w[1], k + 2)?;
    }
    one_start(docs)
}

/// Whether document `b` (number `k` of the file, 1 the first) is a later report of the run document `a`
/// reports: the same fio version and global options, the same jobs (name, group, options) in the same
/// order, a later `timestamp_ms` (the same document twice, `cat a.json a.json`, is two files' worth),
/// and each job's figures only added to ([`adds_to`]).
///
/// # Errors
/// Why not, naming document `k` and the field.
fn goes_on(a: &Value, b: &Value, k: usize) -> Result<(), String> {
    let (Some(ja), Some(jb)) = (jobs(a), jobs(b)) else {
        return Err(format!(
            "document {k} or the one before has no \"jobs\" list of objects"
        ));
    };
    for key in ["fio version", "global options"] {
        if a.get(key) != b.get(key) {
            return Err(format!(
                "document {k}'s \"{key}\" is not document {}'s",
                k - 1
            ));
        }
    }
    let ms = |d: &Value| d.get("timestamp_ms").and_then(Value::as_i64);
    if ms(b) <= ms(a) {
        let said = |t: Option<i64>| t.map_or("none".to_string(), |t| t.to_string());
        return Err(format!(
            "document {k}'s timestamp_ms, {}, is not after document {}'s, {}",
            said(ms(b)),
            k - 1,
            said(ms(a))
        ));
    }
    if ja.len() != jb.len() {
        return Err(format!(
            "document {k} has {} jobs, document {} {}",
            jb.len(),
            k - 1,
            ja.len()
        ));
    }
    for (i, (x, y)) in ja.iter().zip(&jb).enumerate() {
        if let Some(key) = ["jobname", "groupid", "job options"]
            .into_iter()
            .find(|key| x.get(*key) != y.get(*key))
        {
            return Err(format!(
                "document {k}'s jobs[{i}].{key} is not document {}'s",
                k - 1
            ));
        }
        adds_to(x, y).map_err(|e| {
            let e = e.replace("{prev}", &(k - 1).to_string());
            format!("document {k}'s jobs[{i}].{e} ({ONLY_ADDS})")
        })?;
    }
    Ok(())
}

/// A document's jobs, each an object.
fn jobs(d: &Value) -> Option<Vec<&Map<String, Value>>> {
    let list = d.get("jobs")?.as_array()?;
    list.iter().map(Value::as_object).collect()
}

/// fio's blocks of a job that count I/Os (or syncs), each with its latency blocks.
const BLOCKS: [&str; 4] = ["read", "write", "trim", "sync"];

/// fio's latency blocks of a direction.
const LATENCIES: [&str; 3] = ["lat_ns", "clat_ns", "slat_ns"];

/// A count `k` of `o`, or 0.
fn n(o: &Map<String, Value>, k: &str) -> u64 {
    o.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// The block `d`'s latency block `l` of job report `j`.
fn lat<'a>(j: &'a Map<String, Value>, d: &str, l: &str) -> Option<&'a Map<String, Value>> {
    j.get(d)?.get(l)?.as_object()
}

/// Whether job report `x` timed any I/O yet: fio times none while it ramps up (`ramp_time`, whose I/Os it
/// counts and then drops when the ramp ends: read I/Os 10546, 21888, then 15113 at ramp_time=2, fio 3.33)
/// and a job that has not started has none (a stonewalled job's `job_runtime` went 1021, 2038, then 604
/// once it ran). Only a report that timed an I/O is held to the reports after it.
fn timed(x: &Map<String, Value>) -> bool {
    BLOCKS.iter().any(|d| {
        LATENCIES
            .iter()
            .any(|l| lat(x, d, l).is_some_and(|b| n(b, "N") > 0))
    })
}

/// Whether job report `y` only adds to `x`, the same job's earlier report, where `x` timed an I/O
/// ([`timed`]): fio's counts, runtime and latency N never fall; each latency block's min never rises and
/// max never falls, and its N × mean (the sum of the latencies) never falls; with the same N (no I/O
/// completed between the reports) the block is the same.
///
/// # Errors
/// The first figure that does not, as `read.lat_ns.max is 23895, below document 1's 37480`.
fn adds_to(x: &Map<String, Value>, y: &Map<String, Value>) -> Result<(), String> {
    if !timed(x) {
        return Ok(());
    }
    let fewer = |k: &str, a: u64, b: u64| match b < a {
        true => Err(format!("{k} is {b}, below document {{prev}}'s {a}")),
        false => Ok(()),
    };
    fewer("job_runtime", n(x, "job_runtime"), n(y, "job_runtime"))?;
    for d in BLOCKS {
        let count = |j: &Map<String, Value>| {
            j.get(d)
                .and_then(Value::as_object)
                .map_or(0, |o| n(o, "total_ios"))
        };
        fewer(&format!("{d}.total_ios"), count(x), count(y))?;
        for l in LATENCIES {
            if let (Some(a), Some(b)) = (lat(x, d, l), lat(y, d, l)) {
                latency_adds(a, b).map_err(|e| format!("{d}.{l}.{e}"))?;
            }
        }
    }
    Ok(())
}

/// Whether latency block `b` only adds to `a` (the same block, an earlier report).
///
/// # Errors
/// The first figure that does not, after its key (`max is 23895, below document {prev}'s 37480`).
fn latency_adds(a: &Map<String, Value>, b: &Map<String, Value>) -> Result<(), String> {
    let f = |o: &Map<String, Value>, k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (na, nb) = (n(a, "N"), n(b, "N"));
    if nb < na {
        return Err(format!("N is {nb}, below document {{prev}}'s {na}"));
    }
    if na == 0 {
        return Ok(());
    }
    // fio prints a mean with six decimals.
    let printed = |x: f64, y: f64| (x - y).abs() <= 1e-6 + x.abs() * 1e-12;
    if nb == na {
        if let Some(k) = ["min", "max", "mean"]
            .into_iter()
            .find(|k| !printed(f(a, k), f(b, k)))
        {
            return Err(format!(
                "{k} is {}, not document {{prev}}'s {} though N is the same, {na} (no I/O completed between them)",
                f(b, k),
                f(a, k)
            ));
        }
        return Ok(());
    }
    if n(b, "min") > n(a, "min") {
        return Err(format!(
            "min is {}, above document {{prev}}'s {}",
            n(b, "min"),
            n(a, "min")
        ));
    }
    if n(b, "max") < n(a, "max") {
        return Err(format!(
            "max is {}, below document {{prev}}'s {}",
            n(b, "max"),
            n(a, "max")
        ));
    }
    let (sa, sb) = (f(a, "mean") * na as f64, f(b, "mean") * nb as f64);
    match sb + 1e-6 * nb as f64 + sa * 1e-12 < sa {
        true => Err(format!(
            "mean × N is {sb:.0} ns, less than document {{prev}}'s {sa:.0} (the sum of its latencies)"
        )),
        false => Ok(()),
    }
}

/// Whether `docs` all come from one start of fio: a document's `elapsed` is the whole seconds since fio
/// started, rounded up, so fio started at `timestamp_ms` − 1000 × `elapsed` or later; a job whose
/// direction has run R ms (its `runtime`) by `timestamp_ms` started R ms before it or earlier, and fio
/// before its jobs. Real output leaves room: 102 to 889 ms in seven runs of fio 3.33 at
/// `--status-interval=1` or 2 (1 to 4 jobs, numjobs, group_reporting, ramp_time, a stonewalled job,
/// size-bound and time-based, 2 to 9 s); two 0.5 s runs written one after the other were 306 ms short.
/// Taken with 100 ms and 1 % of the elapsed time to spare (fio's clock and the wall clock).
///
/// # Errors
/// The document whose `elapsed` puts fio's start after another's job had started, naming both.
fn one_start(docs: &[Value]) -> Result<(), String> {
    let mut after: Option<(i64, usize, i64)> = None;
    let mut before: Option<(i64, usize, usize, u64)> = None;
    for (k, d) in docs.iter().enumerate() {
        let Some(ts) = d.get("timestamp_ms").and_then(Value::as_i64) else {
            continue;
        };
        for (i, j) in jobs(d).unwrap_or_default().into_iter().enumerate() {
            if let Some(e) = j.get("elapsed").and_then(Value::as_i64) {
                let lo = ts.saturating_sub(e.saturating_mul(1000));
                if after.is_none_or(|(a, _, _)| lo > a) {
                    after = Some((lo, k + 1, e));
                }
            }
            let ran = (BLOCKS[..3].iter())
                .filter_map(|d| {
                    j.get(*d)
                        .and_then(Value::as_object)
                        .map(|o| n(o, "runtime"))
                })
                .max()
                .unwrap_or(0);
            let hi = ts.saturating_sub(i64::try_from(ran).unwrap_or(i64::MAX));
            if before.is_none_or(|(b, _, _, _)| hi < b) {
                before = Some((hi, k + 1, i, ran));
            }
        }
        let (Some((lo, ka, e)), Some((hi, kb, i, ran))) = (after, before) else {
            continue;
        };
        if lo > hi.saturating_add(100 + e.saturating_mul(10)) {
            return Err(format!(
                "document {ka}'s elapsed, {e} s, puts fio's start at {lo} ms (as timestamp_ms) or later, but document {kb}'s jobs[{i}] had run {ran} ms at its timestamp_ms, so fio started at {hi} or before: not one start of fio"
            ));
        }
    }
    Ok(())
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
