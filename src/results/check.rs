//! Results checked against the published results schema (`schemas/result.schema.json`, compiled into the
//! binary): after a run writes `results.json`, by `wkrun validate`, and before `compare`, `report` and
//! `merge` use a results file. A violation is named by its JSON path in the dotted form users write
//! (`phases[3].read.ops`) with what the schema expects there.

use serde_json::Value;
use std::sync::OnceLock;

/// The most violations reported for one document; a count of the rest follows.
pub const MAX_VIOLATIONS: usize = 20;

/// The committed results schema, as published.
const SCHEMA_TEXT: &str = include_str!("../../schemas/result.schema.json");

/// One place where a document breaks the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where: `phases[3].read.ops`, or `(the document)` for the top level.
    pub path: String,
    /// What the schema expects there, in the validator's words: `"12" is not of type "integer"`.
    pub expected: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.expected)
    }
}

/// The compiled schema, or why it does not compile (a wkrun bug, said as such).
fn validator() -> Result<&'static jsonschema::Validator, String> {
    static V: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    V.get_or_init(|| compile(None))
        .as_ref()
        .map_err(Clone::clone)
}

/// The schema's definition of one phase (`$defs/PhaseResult`, what each item of `phases` must match),
/// compiled on its own: a phase is checked as it is read ([`super::stream`]).
fn phase_validator() -> Result<&'static jsonschema::Validator, String> {
    static V: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    V.get_or_init(|| compile(Some("PhaseResult")))
        .as_ref()
        .map_err(Clone::clone)
}

/// The results schema compiled, whole or (`def`) as one of its `$defs` with the others beside it.
fn compile(def: Option<&str>) -> Result<jsonschema::Validator, String> {
    let mut schema: Value = serde_json::from_str(SCHEMA_TEXT)
        .map_err(|e| format!("the built-in results schema is not JSON: {e}"))?;
    if let Some(def) = def {
        let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
        if defs.get(def).is_none() {
            return Err(format!("the built-in results schema has no `$defs/{def}`"));
        }
        schema = serde_json::json!({
            "$schema": schema.get("$schema").cloned().unwrap_or(Value::Null),
            "$ref": format!("#/$defs/{def}"),
            "$defs": defs,
        });
    }
    // No remote references: the schema refers only to its own `$defs`, and the crate is built without
    // its network resolver.
    jsonschema::validator_for(&schema)
        .map_err(|e| format!("the built-in results schema does not compile: {e}"))
}

/// The violations of the results schema in `doc`: at most [`MAX_VIOLATIONS`], and the number of all.
///
/// # Errors
/// The schema itself cannot be used (a wkrun bug).
pub fn violations(doc: &Value) -> Result<(Vec<Violation>, usize), String> {
    Ok(violations_of(validator()?, doc, ""))
}

/// The violations of the schema's phase definition in the phase `phase`, found at the JSON pointer `at`
/// of its document (`/phases/3`), each named by its place in the document: at most [`MAX_VIOLATIONS`], and
/// the number of all.
///
/// # Errors
/// The schema itself cannot be used (a wkrun bug).
pub fn phase_violations(phase: &Value, at: &str) -> Result<(Vec<Violation>, usize), String> {
    Ok(violations_of(phase_validator()?, phase, at))
}

/// The most values a document (or phase) may hold for every violation of it to be collected: the
/// validator holds all it finds at once, about 400 B each, so 5,000,000 bad values would take 2 GB. A
/// larger one that breaks the schema is refused by its first violation alone, said as such.
pub const MAX_CHECKED_VALUES: u64 = 100_000;

/// The values `v` holds, itself included, counting no further than `stop`.
fn values_in(v: &Value, stop: u64) -> u64 {
    let mut n = 1;
    let children: Box<dyn Iterator<Item = (u64, &Value)>> = match v {
        Value::Array(a) => Box::new(a.iter().map(|x| (0, x))),
        // A key is a value of its own.
        Value::Object(o) => Box::new(o.values().map(|x| (1, x))),
        _ => return n,
    };
    for (key, x) in children {
        if n >= stop {
            break;
        }
        n += key + values_in(x, stop - n);
    }
    n
}

fn violations_of(v: &jsonschema::Validator, doc: &Value, at: &str) -> (Vec<Violation>, usize) {
    // The common case first: a valid document, checked without collecting errors.
    if v.is_valid(doc) {
        return (Vec::new(), 0);
    }
    if values_in(doc, MAX_CHECKED_VALUES + 1) > MAX_CHECKED_VALUES {
        return first_violation(v, doc, at);
    }
    let mut shown = Vec::new();
    let mut all = 0;
    for e in v.iter_errors(doc) {
        for e in leaves(&e) {
            all += 1;
            if shown.len() < MAX_VIOLATIONS {
                shown.push(Violation {
                    path: dotted(&format!("{at}{}", e.instance_path())),
                    expected: crate::text::escaped(&e.to_string()).into_owned(),
                });
            }
        }
    }
    (shown, all)
}

/// The first violation of `doc` (known to break the schema), too large for every violation to be collected
/// ([`MAX_CHECKED_VALUES`]), said as such; counted as one.
fn first_violation(v: &jsonschema::Validator, doc: &Value, at: &str) -> (Vec<Violation>, usize) {
    let Err(e) = v.validate(doc) else {
        return (Vec::new(), 0);
    };
    let first = leaves(&e).into_iter().next().unwrap_or(&e);
    let shown = Violation {
        path: dotted(&format!("{at}{}", first.instance_path())),
        expected: format!(
            "{} (the first violation found: {} holds more than {MAX_CHECKED_VALUES} values, too many to collect every violation)",
            crate::text::escaped(&first.to_string()),
            match at {
                "" => "the document",
                _ => "the phase",
            }
        ),
    };
    (vec![shown], 1)
}

/// The violations to name for `e`: itself, except for a value that may be null (the schema's
/// `anyOf: [T, null]`, an `Option<T>`) which is not null and breaks T: then T's own violations, each at its
/// path (`phases[1].read.latency_ns.mean: -5.0 is less than the minimum of 0`), rather than the whole
/// value quoted as "not valid under any of the schemas".
fn leaves<'a>(e: &'a jsonschema::ValidationError<'a>) -> Vec<&'a jsonschema::ValidationError<'a>> {
    let jsonschema::error::ValidationErrorKind::AnyOf { context } = e.kind() else {
        return vec![e];
    };
    let null = |branch: &Vec<jsonschema::ValidationError<'static>>| {
        branch.len() == 1 && branch[0].to_string().ends_with("is not of type \"null\"")
    };
    match (context.len(), context.iter().position(null)) {
        (2, Some(n)) => context[1 - n].iter().flat_map(leaves).collect(),
        _ => vec![e],
    }
}

/// The violations as lines, each indented, with `... and N more` when some were left out.
pub fn lines(shown: &[Violation], all: usize) -> String {
    let mut s: String = shown.iter().map(|v| format!("\n  {v}")).collect();
    if all > shown.len() {
        s.push_str(&format!("\n  ... and {} more", all - shown.len()));
    }
    s
}

/// A JSON pointer (`/phases/3/read/ops`) in dotted form (`phases[3].read.ops`); a key that is not a plain
/// name is quoted (`labels["a b"]`).
pub fn dotted(pointer: &str) -> String {
    if pointer.is_empty() {
        return "(the document)".into();
    }
    let mut out = String::new();
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        } else {
            out.push_str(&format!("[{}]", crate::text::escaped(&format!("{seg:?}"))));
        }
    }
    out
}

/// The file beside a results file that records its violations, when a written `results.json` breaks the
/// schema.
pub const VIOLATIONS_FILE: &str = "schema-violations.txt";

/// The exit status of a run or merge that went well and wrote its results in full, but whose
/// `results.json` breaks the published schema (a wkrun bug; the results are kept): 3, apart from a failed
/// run (1), bad input (2) and a signal (128 + N). A run that failed or was interrupted keeps its own status.
pub const EXIT_SCHEMA_BUG: u8 = 3;

/// Checks the `results.json` a run or merge has just written in `dir`. The results stay as written either
/// way; violations (a wkrun bug) are recorded in [`VIOLATIONS_FILE`] beside them.
///
/// # Errors
/// The message to report (and exit [`EXIT_SCHEMA_BUG`] with, after a run that went well): every violation with its JSON path, and where they were
/// recorded.
pub fn check_written(dir: &super::outdir::OutDir) -> Result<(), String> {
    let path = dir.join("results.json");
    // Read back as `validate` reads it, a phase at a time (the whole tree took about 30 times the file).
    let read = std::fs::File::open(&path)
        .map_err(|e| e.to_string())
        .map(|f| {
            super::stream::from_reader(std::io::BufReader::with_capacity(64 << 10, f), |_, _| {})
        });
    let (shown, all) = match read {
        Err(e) | Ok(Err(super::stream::Refused::NotResults(e))) => {
            return Err(format!(
                "cannot read back {} to check it: {e}",
                path.display()
            ));
        }
        Ok(Err(super::stream::Refused::Json(e))) => {
            return Err(format!(
                "cannot read back {} to check it: {e}",
                path.display()
            ));
        }
        Ok(Err(super::stream::Refused::Schema(shown, all))) => (shown, all),
        Ok(Ok(_)) => return Ok(()),
    };
    let text = lines(&shown, all);
    // One violation per line, as printed without the indentation.
    let file: String = text
        .lines()
        .skip(1)
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    let recorded = match dir.replace(VIOLATIONS_FILE, file.as_bytes(), false) {
        Ok(()) => format!("recorded in {}", dir.join(VIOLATIONS_FILE).display()),
        Err(e) => format!("not recorded: {e}"),
    };
    Err(format!(
        "{} does not match the results schema ({all} violation{}; a wkrun bug: please report it; the results are kept as written, {recorded}):{text}",
        path.display(),
        if all == 1 { "" } else { "s" }
    ))
}

/// Where a results document that matches the schema still cannot be true: each direction's (and the
/// total's) IOPS and bandwidth are its I/Os and bytes over the phase's `duration_s` (0 over no time), within
/// rounding; the total is the reads and writes together; a latency summary is ordered, min ≤ mean ≤ max and
/// min ≤ p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ p99.99 ≤ max; and what no run writes ([`super::possible`]: times, names,
/// parameters, a prediction's inputs); and the figures a run computes from a phase's own data
/// (`own_figures`: headline figures, `read_share`, histograms, `ops_by_size`, the mix, coverage and CPU
/// figures, the submitting threads, merged parts). Each with its JSON path. Results another tool wrote
/// (`source`, fio's JSON: rates over each direction's own time) are not held to wkrun's arithmetic.
pub fn implausible(r: &super::Results) -> Vec<Violation> {
    let mut out = Vec::new();
    if r.source.is_some() {
        return out;
    }
    label(r.label.as_deref(), &mut out);
    super::possible::run(r, &mut out);
    super::times_check::check(r, &mut out);
    let mut names = std::collections::HashMap::with_capacity(r.phases.len());
    let mut before: Option<usize> = None;
    for (i, p) in r.phases.iter().enumerate() {
        let at = |what: &str| format!("phases[{i}].{what}");
        phase_place(i, p, before, &mut out);
        super::possible::phase(i, p, (&mut names, &r.target), &mut out);
        passes_of_span(i, p, &mut out);
        if r.cluster.is_none() {
            rows_of_bound(i, p, &mut out);
        }
        before = Some(p.index);
        let trim = p.trim.as_ref();
        let dirs = [
            ("read", Some(&p.read)),
            ("write", Some(&p.write)),
            ("trim", trim),
            ("total", Some(&p.total)),
        ];
        let dirs: Vec<(&str, &super::DirStats)> = dirs
            .into_iter()
            .filter_map(|(k, d)| Some((k, d?)))
            .collect();
        // Rates over an implausible duration would say the same again.
        let over = (p.duration_s <= MAX_DURATION_S).then_some(("duration_s", p.duration_s));
        let whole = super::parts_check::Measured {
            at: format!("phases[{i}]"),
            dirs,
            over,
            duration_s: Some(p.duration_s),
        };
        whole.own(&mut out);
        let (t_ops, t_bytes) = trim.map_or((0, 0), |t| (t.ops, t.bytes));
        for (field, r, w, t, total) in [
            ("ops", p.read.ops, p.write.ops, t_ops, p.total.ops),
            ("bytes", p.read.bytes, p.write.bytes, t_bytes, p.total.bytes),
        ] {
            let sum = u128::from(r) + u128::from(w) + u128::from(t);
            if sum != u128::from(total) {
                let (plus, terms) = match trim {
                    Some(_) => (format!(" + trim.{field}"), format!(" + {t}")),
                    None => (String::new(), String::new()),
                };
                out.push(Violation {
                    path: at(&format!("total.{field}")),
                    expected: format!(
                        "{total} is not read.{field} + write.{field}{plus} = {r} + {w}{terms} = {sum}"
                    ),
                });
            }
        }
    }
    out.extend(super::rounds_check::contradictions(
        &r.round_blocks,
        &r.phases,
    ));
    numbers(r, &mut out);
    // Figures recomputed from a phase's figures named wrong already would say the same again: only the
    // phases named nowhere yet.
    let named: std::collections::HashSet<&str> = (out.iter())
        .filter_map(|v| v.path.strip_prefix("phases[")?.split(']').next())
        .collect();
    let mut own = Vec::new();
    for (i, p) in r.phases.iter().enumerate() {
        if !named.contains(i.to_string().as_str()) {
            own_figures(i, p, &mut own);
        }
    }
    out.extend(own);
    out
}

/// Every number of `r` that is not a whole number (a rate, a mean, a fraction, a time in seconds) within
/// what a series CSV holds: at most [`MAX_SERIES_VALUE`](super::series_csv::MAX_SERIES_VALUE) in size (JSON
/// has no infinity or NaN; 1e308 passed, and a report drew it). Whole numbers are counts, bytes and
/// nanoseconds, bounded by their type. A place `out` names already (a duration past ten years, a rate that
/// is not its count over the time) is not named again.
fn numbers(r: &super::Results, out: &mut Vec<Violation>) {
    fn walk(v: &Value, at: &mut String, named: &Named, out: &mut Vec<Violation>) {
        let most = super::series_csv::MAX_SERIES_VALUE;
        let len = at.len();
        match v {
            Value::Number(n) if n.is_f64() => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                let path = dotted(at);
                let fits = x.is_finite() && x.abs() <= most;
                if !fits && !named.contains(&path) {
                    out.push(Violation {
                        path,
                        expected: format!(
                            "{} is not a number a run writes (finite, at most {} in size)",
                            crate::units::readable_float(x),
                            crate::units::readable_float(most)
                        ),
                    });
                }
            }
            Value::Array(a) => {
                for (k, x) in a.iter().enumerate() {
                    at.push_str(&format!("/{k}"));
                    walk(x, at, named, out);
                    at.truncate(len);
                }
            }
            Value::Object(o) => {
                for (k, x) in o {
                    at.push_str(&format!("/{}", k.replace('~', "~0").replace('/', "~1")));
                    walk(x, at, named, out);
                    at.truncate(len);
                }
            }
            _ => {}
        }
    }
    // The places named already, looked up once each (a forged file of millions of bad numbers made a scan
    // of every violation per number).
    type Named = std::collections::HashSet<String>;
    let named: Named = out.iter().map(|v| v.path.clone()).collect();
    // A part at a time, never the whole document as one tree (a results file of 6 MB of phases would take
    // many times its size): the fields holding numbers that are not whole, each phase on its own. Every
    // field is named, so that a new one is considered here.
    let super::Results {
        format: _,
        wkrun_version: _,
        started_at: _,
        finished_at: _,
        status: _,
        error: _,
        signal: _,
        spec: _,
        host: _,
        label: _,
        source: _,
        target,
        launch,
        cluster,
        prediction,
        round_blocks,
        latency_searches,
        health,
        planned_phases: _,
        from_phase: _,
        phases,
    } = r;
    let parts: [(&str, serde_json::Result<Value>); 7] = [
        ("target", serde_json::to_value(target)),
        ("launch", serde_json::to_value(launch)),
        ("cluster", serde_json::to_value(cluster)),
        ("prediction", serde_json::to_value(prediction)),
        ("round_blocks", serde_json::to_value(round_blocks)),
        ("latency_searches", serde_json::to_value(latency_searches)),
        ("health", serde_json::to_value(health)),
    ];
    for (key, v) in parts {
        if let Ok(v) = v {
            walk(&v, &mut format!("/{key}"), &named, out);
        }
    }
    for (i, p) in phases.iter().enumerate() {
        if let Ok(v) = serde_json::to_value(p) {
            walk(&v, &mut format!("/phases/{i}"), &named, out);
        }
    }
}

/// Phase `i`'s figures that a run computes from the phase's own data, against their recomputation by the
/// same code: each headline figure ([`super::headline::figures`] of its `params.headline` items, matched by
/// key), `read_share` ([`super::ReadShare::of`] its reads, writes and trims), each direction's latency
/// histogram holding its ops, `ops_by_size` adding up to `total.ops` and `total.bytes`, its reads and trims,
/// `coverage` and `cpu` against its parameters and CPU times ([`super::figures_check`]), and a merged
/// phase's parts (`hosts`) numbered 0, 1, ... in order and what it keeps of them agreeing with it
/// ([`super::parts_check::merged`]). Fields older results lack are not asked for.
fn own_figures(i: usize, p: &super::PhaseResult, out: &mut Vec<Violation>) {
    let at = |what: String| format!("phases[{i}].{what}");
    let num = |v: Option<f64>| {
        v.map_or("null".to_string(), |x| {
            crate::units::readable_float(x).to_string()
        })
    };
    let mut say = |path: String, expected: String| out.push(Violation { path, expected });
    if let (false, Ok(m)) = (p.headline.is_empty(), p.params.measure()) {
        let made = super::headline::figures(&m.headline, p);
        for (k, f) in p.headline.iter().enumerate() {
            let Some(g) = made.iter().find(|g| g.key == f.key) else {
                continue;
            };
            let same = match (f.value, g.value) {
                (Some(a), Some(b)) => close(a, b),
                (a, b) => a.is_none() && b.is_none(),
            };
            if !same {
                say(
                    at(format!("headline[{k}].value")),
                    format!(
                        "{} is not \"{}\" of phase \"{}\" as its own figures make it, {}",
                        num(f.value),
                        f.label,
                        p.name,
                        num(g.value)
                    ),
                );
            }
        }
    }
    if let Some(s) = &p.read_share {
        let want = super::ReadShare::of(p);
        let (ops, bytes) = want.map_or((None, None), |w| (Some(w.ops), Some(w.bytes)));
        for (field, got, want, of) in [
            (
                "ops",
                s.ops,
                ops,
                "read.ops / (read.ops + write.ops + trim.ops)",
            ),
            (
                "bytes",
                s.bytes,
                bytes,
                "read.bytes / (read.bytes + write.bytes + trim.bytes)",
            ),
        ] {
            if !want.is_some_and(|w| close(got, w)) {
                say(
                    at(format!("read_share.{field}")),
                    format!("{} is not {of} = {}", num(Some(got)), num(want)),
                );
            }
        }
    }
    if let Some(h) = &p.latency_histograms {
        for d in crate::vocab::Direction::ALL {
            let held = h.dir(d).iter().fold(0u64, |n, x| n.saturating_add(x[1]));
            let ops = p.dir(d).ops;
            if held != ops {
                say(
                    at(format!("latency_histograms.{}", d.name())),
                    format!("holds {held} latencies, not {}.ops {ops}", d.name()),
                );
            }
        }
        let flushes = p.sync.as_ref().and_then(|s| s.flushes.as_ref());
        if let Some(f) = flushes.filter(|_| !h.flush.is_empty()) {
            let held = h.flush.iter().fold(0u64, |n, x| n.saturating_add(x[1]));
            if held != f.ops {
                say(
                    at("latency_histograms.flush".into()),
                    format!("holds {held} latencies, not sync.flushes.ops {}", f.ops),
                );
            }
        }
    }
    if !p.ops_by_size.is_empty() {
        let s = &p.ops_by_size;
        let ops: u128 = s.iter().map(|s| u128::from(s.ops)).sum();
        let bytes: u128 = s
            .iter()
            .map(|s| u128::from(s.ops) * u128::from(s.bytes))
            .sum();
        if (ops, bytes) != (u128::from(p.total.ops), u128::from(p.total.bytes)) {
            say(
                at("ops_by_size".into()),
                format!(
                    "adds up to {ops} I/Os of {bytes} B, not total.ops {} of total.bytes {}",
                    p.total.ops, p.total.bytes
                ),
            );
        }
    }
    if let Some((k, h)) = p.hosts.iter().enumerate().find(|(k, h)| h.host != *k) {
        say(
            at(format!("hosts[{k}].host")),
            format!("{} is not {k}: each part once, in order", h.host),
        );
    }
    super::figures_check::mix(i, p, out);
    super::figures_check::coverage(i, p, out);
    super::figures_check::cpu(i, p, out);
    super::figures_check::threads(i, p, out);
    super::schedule_check::schedule(i, p, out);
    match p.hosts.is_empty() {
        true => {
            super::flush_check::counted(i, p, out);
            super::latency_check::own(i, p, out);
            super::arrivals_check::intended(i, p, out);
            super::workers_check::workers(i, p, out);
        }
        false => super::parts_check::merged(i, p, out),
    }
}

/// The longest duration a phase may claim: ten years, in seconds.
pub const MAX_DURATION_S: f64 = 10.0 * 365.25 * 86_400.0;

/// A run's label by the rule of `--label`: no control or format character, at most
/// [`crate::text::MAX_LABEL`] characters.
fn label(l: Option<&str>, out: &mut Vec<Violation>) {
    if let Some(l) = l {
        plain_text("label", l, Some(crate::text::MAX_LABEL), out);
    }
}

/// The text `s` at `path` by the rule of `--label`: no control or format character, and (`most`) at most so
/// many characters.
pub(super) fn plain_text(path: &str, s: &str, most: Option<usize>, out: &mut Vec<Violation>) {
    let n = s.chars().count();
    let why = match s.chars().find(|&c| crate::text::hidden_char(c)) {
        Some(c) => format!("holds the {} {c:?}", char_kind(c)),
        None if most.is_some_and(|m| n > m) => {
            format!("has {n} characters, more than {}", most.unwrap_or(0))
        }
        None => return,
    };
    out.push(Violation {
        path: path.into(),
        expected: format!("{} {why}", echo(s)),
    });
}

/// `s` as a message shows it: quoted, escaped, cut to [`crate::text::ECHO`] characters (a label of 10 MB
/// was printed whole on one line).
pub(super) fn echo(s: &str) -> String {
    format!("\"{}\"", crate::text::echo(s))
}

/// What `c`, a character no label may hold, is: a control or a format character.
pub fn char_kind(c: char) -> &'static str {
    match c {
        '\u{2028}' => "line separator",
        '\u{2029}' => "paragraph separator",
        c if c.is_control() => "control character",
        _ => "format character",
    }
}

/// Phase `i`'s place: its `index` above the one before (each phase once, in run order; a run `--from` a
/// later phase starts past 0), its series CSV named after its index (`NN-`), a duration of at most
/// [`MAX_DURATION_S`], a trace of at most [`crate::stats::trace::MAX_TRACE`] I/Os.
fn phase_place(i: usize, p: &super::PhaseResult, before: Option<usize>, out: &mut Vec<Violation>) {
    let at = |what: &str| format!("phases[{i}].{what}");
    if let Some(b) = before.filter(|&b| p.index <= b) {
        out.push(Violation {
            path: at("index"),
            expected: format!(
                "{} is not above phases[{}].index {b}: each phase once, in run order",
                p.index,
                i - 1
            ),
        });
    }
    let named = p.series_csv.as_deref().and_then(|n| n.split_once('-'));
    let digits = |nn: &str| !nn.is_empty() && nn.bytes().all(|b| b.is_ascii_digit());
    let other = |nn: &str| nn.parse::<usize>().ok() != Some(p.index);
    if let Some((nn, _)) = named.filter(|(nn, _)| digits(nn) && other(nn)) {
        out.push(Violation {
            path: at("index"),
            expected: format!(
                "{} is not the index its series_csv is named by ({nn})",
                p.index
            ),
        });
    }
    let most = crate::stats::trace::MAX_TRACE;
    if let Some(t) = p.trace.as_ref().filter(|t| t.ios > most) {
        out.push(Violation {
            path: at("trace.ios"),
            expected: format!(
                "{} is more than the {most} I/Os a trace holds at most",
                t.ios
            ),
        });
    }
    if p.duration_s > MAX_DURATION_S {
        out.push(Violation {
            path: at("duration_s"),
            expected: format!(
                "{:e} s is more than ten years ({MAX_DURATION_S} s), longer than any run",
                p.duration_s
            ),
        });
    }
}

/// The rows a time-bounded phase can have (`params.duration_ns` D in intervals of `params.interval_ns` Δ):
/// at most ⌊D/Δ⌋ + 1 (the intervals before the bound and the drain), and, when it ran to its bound
/// (completed, not ended at steady state), at least ⌈D/Δ⌉ (at least 1): its duration within one interval of
/// its rows. A phase with 301 rows of 1 s whose duration said 10¹⁵ ns passed, and `wkrun sim fit` replayed
/// it for 11 days of virtual time. Nothing to check in a phase without the three figures.
fn rows_of_bound(i: usize, p: &super::PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let (Some(d), Some(dt), Some(n)) = (q.duration_ns, q.interval_ns, p.intervals) else {
        return;
    };
    if dt == 0 {
        return;
    }
    let most = d / dt + 1;
    let to_bound = p.completed && !p.steady_state.as_ref().is_some_and(|s| s.ended_phase);
    let least = if to_bound { d.div_ceil(dt).max(1) } else { 0 };
    if n > most || n < least {
        let ran = if to_bound {
            "ran to its bound and "
        } else {
            ""
        };
        out.push(Violation {
            path: format!("phases[{i}].intervals"),
            expected: format!(
                "{n} rows do not fit params.duration_ns {d} in rows of params.interval_ns {dt}: a phase that {ran}lasts {d} ns has {least} to {most} rows"
            ),
        });
    }
}

/// A fill's `params.passes` P over its `params.span_bytes` S in blocks of `params.block_size_bytes` B, by
/// `params.workers` W (each its own part): its `params.ops` lie from P × ⌊S/B⌋ to P × (⌈S/B⌉ + W) (each
/// part's last block may be short) and its `params.expected_bytes` are ops × B. A fill of 64 MiB whose
/// passes said 10,000 passed, and `wkrun sim fit` replayed every pass: 0.7 s became 276 s (attack 13 F4).
fn passes_of_span(i: usize, p: &super::PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let (Some(passes), Some(ops), Some(b)) =
        (q.passes, q.ops, q.block_size_bytes.filter(|&b| b > 0))
    else {
        return;
    };
    let (pa, s, b, n) = (
        u128::from(passes),
        u128::from(q.span_bytes),
        u128::from(b),
        u128::from(ops),
    );
    let w = u128::from(q.workers.unwrap_or(1).max(1));
    let (least, most) = (pa * (s / b), pa * (s.div_ceil(b) + w));
    let at = |what: &str| format!("phases[{i}].params.{what}");
    if !(least..=most).contains(&n) {
        out.push(Violation {
            path: at("ops"),
            expected: format!(
                "{n} I/Os of {b} B are not params.passes {passes} over params.span_bytes {s} B: {least} to {most}"
            ),
        });
    }
    if let Some(e) = q.expected_bytes.filter(|&e| u128::from(e) != n * b) {
        out.push(Violation {
            path: at("expected_bytes"),
            expected: format!(
                "{e} is not params.ops × params.block_size_bytes = {}",
                n * b
            ),
        });
    }
}

/// The relative difference at most by which a figure that is not whole may differ from its recomputation:
/// 4 units in the last place (4 ε, about 8.9 × 10⁻¹⁶). Both sides are the same code on the same numbers:
/// `results.json` and the series CSVs hold each f64 in its shortest form that reads back to the same bits
/// (ryu, in serde_json and the csv crate), and both are read back exactly (serde_json's `float_roundtrip`,
/// Rust's `str::parse`), so a run's figure and validate's agree to the bit; the margin is the rounding of
/// one result (a division, a sum of a few terms) taken in another order. It was a part in 10⁹, under
/// which a forged op count off by 1 among 10⁹ passed by its rate, and a forged mean or share changed in
/// its tenth digit passed.
pub(crate) const ROUNDING: f64 = 4.0 * f64::EPSILON;

/// Whether two figures that are not whole (rates, means, shares, durations) agree within rounding
/// ([`ROUNDING`] of the larger). Whole numbers (counts, bytes, nanoseconds) are compared exactly, never
/// through this.
pub(crate) fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= ROUNDING * a.abs().max(b.abs())
}

/// Why the rate `got` is not the count `n` (of the column or field `what`) over `secs` (of `over`), as a run
/// computes it: `n / secs`, and 0 over no time, within rounding ([`close`]); `None` when it is. One rule for a
/// phase's rates over its `duration_s` and a series row's over its `interval_s`.
pub(crate) fn rate_mismatch(
    got: f64,
    (what, n): (&str, u64),
    (over, secs): (&str, f64),
) -> Option<String> {
    let num = crate::units::readable_float;
    let want = if secs > 0.0 { n as f64 / secs } else { 0.0 };
    if close(got, want) {
        return None;
    }
    // The rule for no time is said only where it applies (a rate over no time is 0).
    Some(match secs > 0.0 {
        true => format!(
            "{} is not {what} / {over} = {n} / {} = {}",
            num(got),
            num(secs),
            num(want)
        ),
        false => format!(
            "{} is not 0: {over} is {}, and a rate over no time is 0",
            num(got),
            num(secs)
        ),
    })
}

/// `iops` and `bw_bytes_per_s` of the direction `d` at `at` against its counts over `secs` (the field
/// `over`: a phase's and a merged phase's part's own `duration_s`, a worker's phase's).
pub(super) fn rates(
    at: &str,
    d: &super::DirStats,
    (over, secs): (&str, f64),
    out: &mut Vec<Violation>,
) {
    for (field, got, count) in [
        ("iops", d.iops, ("ops", d.ops)),
        ("bw_bytes_per_s", d.bw_bytes_per_s, ("bytes", d.bytes)),
    ] {
        if let Some(expected) = rate_mismatch(got, count, (over, secs)) {
            out.push(Violation {
                path: format!("{at}.{field}"),
                expected,
            });
        }
    }
}

/// The order of a latency summary at `at`: min ≤ mean ≤ max, and the percentiles rising from min to max
/// ([`rising`]).
pub(crate) fn order(at: &str, l: &crate::stats::LatencySummary, out: &mut Vec<Violation>) {
    let (min, max) = (l.min as f64, l.max as f64);
    // A mean is a sum over its count (a run's of whole nanoseconds, a merge's of its parts' means weighted
    // by their counts): each rounding moves it by at most ε (2.2e-16) of itself, and 1e-12 covers thousands
    // of them (a merge of thousands of ranks), far under anything a person reads.
    let margin = 1e-12;
    if l.mean < min * (1.0 - margin) || l.mean > max * (1.0 + margin) {
        out.push(Violation {
            path: format!("{at}.mean"),
            expected: format!("{} is not between min {} and max {}", l.mean, l.min, l.max),
        });
    }
    let mut steps = vec![("min", l.min)];
    steps.extend(percentiles(l));
    steps.push(("max", l.max));
    rising(at, &steps, out);
}

/// The percentiles of a latency summary, by their field names, from p50 to p99.99.
pub(crate) fn percentiles(l: &crate::stats::LatencySummary) -> [(&'static str, u64); 5] {
    [
        ("p50", l.p50),
        ("p90", l.p90),
        ("p99", l.p99),
        ("p99_9", l.p99_9),
        ("p99_99", l.p99_99),
    ]
}

/// Latencies `steps` (name, ns) that must not fall from one to the next: each that is below the one
/// before, at `at.NAME`.
pub(crate) fn rising(at: &str, steps: &[(&str, u64)], out: &mut Vec<Violation>) {
    for w in steps.windows(2) {
        let ((a, x), (b, y)) = (w[0], w[1]);
        if x > y {
            out.push(Violation {
                path: format!("{at}.{b}"),
                expected: format!("{y} is below {a} {x}"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A phase of more than [`MAX_CHECKED_VALUES`] values that breaks the schema is refused by its first
    /// violation alone, said so (collecting all 100,001 took about 450 B each); one of fewer has every
    /// violation counted.
    #[test]
    fn a_huge_phase_that_breaks_the_schema_is_named_by_its_first_violation() {
        let phase = |n: usize| serde_json::json!({ "warnings": vec![0; n] });
        let (shown, all) = phase_violations(&phase(100_001), "/phases/2").unwrap();
        assert_eq!(all, 1);
        assert_eq!(
            shown,
            [Violation {
                path: "phases[2]".into(),
                expected: "\"index\" is a required property (the first violation found: the phase holds more than 100000 values, too many to collect every violation)".into(),
            }]
        );
        assert_eq!(values_in(&phase(100_001), u64::MAX), 100_004);
        // 10 numbers: 10 wrong types, and the phase's missing fields.
        let (shown, all) = phase_violations(&phase(10), "/phases/2").unwrap();
        assert!(all > 10, "{all}");
        assert_eq!(shown.len(), MAX_VIOLATIONS.min(all));
    }

    /// A rate that contradicts its counts names the division over a nonzero time, and the rule of 0 only
    /// over no time (the message said "(0 over no time)" after every division).
    #[test]
    fn a_wrong_rate_says_the_zero_rule_only_over_no_time() {
        let d = crate::results::DirStats {
            ops: 10,
            bytes: 40960,
            iops: 5.0,
            bw_bytes_per_s: 40960.0 / 2.0,
            latency_ns: None,
            latency_moments_ns: None,
            latency_percentiles_ns: None,
        };
        let mut out = Vec::new();
        rates("phases[0].read", &d, ("duration_s", 2.0), &mut out);
        assert_eq!(out.len(), 0);
        rates("phases[0].read", &d, ("duration_s", 1.0), &mut out);
        let said: Vec<(&str, &str)> = out.iter().map(|v| (&*v.path, &*v.expected)).collect();
        assert_eq!(
            said,
            [
                (
                    "phases[0].read.iops",
                    "5 is not ops / duration_s = 10 / 1 = 10"
                ),
                (
                    "phases[0].read.bw_bytes_per_s",
                    "20480 is not bytes / duration_s = 40960 / 1 = 40960"
                )
            ]
        );
        out.clear();
        rates("phases[0].read", &d, ("duration_s", 0.0), &mut out);
        assert_eq!(
            out[0].expected,
            "5 is not 0: duration_s is 0, and a rate over no time is 0"
        );
    }

    /// A count off by 1 among billions is told by its rate (a part in 10⁹ let 4,000,000,001 reads over
    /// 2 s pass with the iops of 4,000,000,000), and a rate changed by a relative 10⁻¹⁰ is refused, while
    /// one unit in the last place, what reading back in another order may cost, is not.
    #[test]
    fn a_count_off_by_one_and_a_rate_off_past_rounding_are_refused() {
        let d = |ops: u64, iops: f64| crate::results::DirStats {
            ops,
            bytes: 0,
            iops,
            bw_bytes_per_s: 0.0,
            latency_ns: None,
            latency_moments_ns: None,
            latency_percentiles_ns: None,
        };
        let said = |d: &crate::results::DirStats| {
            let mut out = Vec::new();
            rates("phases[0].read", d, ("duration_s", 2.0), &mut out);
            out.into_iter().map(|v| v.expected).collect::<Vec<_>>()
        };
        assert_eq!(
            said(&d(4_000_000_001, 2e9)),
            ["2000000000 is not ops / duration_s = 4000000001 / 2 = 2000000000.5"]
        );
        let r = 4_000_000_000.0 / 2.0 * (1.0 + 1e-10);
        assert_eq!(
            said(&d(4_000_000_000, r)),
            [format!(
                "{r} is not ops / duration_s = 4000000000 / 2 = 2000000000"
            )]
        );
        let ulp = f64::from_bits(2e9_f64.to_bits() + 1);
        assert_eq!(said(&d(4_000_000_000, ulp)), Vec::<String>::new());
        assert!(!close(0.0, 1e-300) && close(0.0, 0.0));
    }

    #[test]
    fn a_written_file_that_breaks_the_schema_is_kept_and_its_violations_recorded_beside_it() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = crate::results::outdir::OutDir::open(tmp.path(), "results folder").expect("dir");
        let text = "{\"format\": 1}";
        std::fs::write(dir.join("results.json"), text).expect("write");
        let e = check_written(&dir).expect_err("violations");
        assert!(
            e.contains("does not match the results schema (7 violations; a wkrun bug"),
            "{e}"
        );
        assert!(
            e.ends_with("\n  (the document): \"phases\" is a required property"),
            "{e}"
        );
        let recorded = std::fs::read_to_string(dir.join(VIOLATIONS_FILE)).expect("recorded");
        assert_eq!(recorded.lines().count(), 7);
        assert_eq!(
            recorded.lines().next(),
            Some("(the document): \"wkrun_version\" is a required property")
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("results.json")).expect("kept"),
            text
        );
    }

    #[test]
    fn pointers_read_as_dotted_paths() {
        assert_eq!(dotted(""), "(the document)");
        assert_eq!(dotted("/phases/3/read/ops"), "phases[3].read.ops");
        assert_eq!(dotted("/target/sim/params"), "target.sim.params");
        assert_eq!(dotted("/a~1b/c d"), "[\"a/b\"][\"c d\"]");
    }

    #[test]
    fn the_built_in_schema_is_the_generated_one() {
        let built_in: Value = serde_json::from_str(SCHEMA_TEXT).expect("JSON");
        assert_eq!(built_in, crate::results::schema::result_schema());
    }

    #[test]
    fn a_wrong_type_a_missing_field_and_an_extra_field_are_each_named() {
        let mut doc = serde_json::json!({ "format": 1 });
        let (v, all) = violations(&doc).expect("schema");
        assert!(all >= 6, "{v:?}");
        assert!(v.iter().all(|x| x.path == "(the document)"), "{v:?}");
        assert!(
            v.iter()
                .any(|x| x.expected == "\"phases\" is a required property"),
            "{v:?}"
        );
        doc["surprise"] = serde_json::json!(true);
        let (v, _) = violations(&doc).expect("schema");
        assert!(
            v.iter()
                .any(|x| x.expected.contains("'surprise' was unexpected")),
            "{v:?}"
        );
    }
}
