//! `wkrun validate` of a results file: everything wrong with it at once, not only the first problem. The
//! schema's violations do not hide the series CSVs (read from the document as it is, even when it breaks
//! the schema), and a document that matches the schema is held to the arithmetic of its figures
//! ([`crate::results::check::implausible`]).

use super::{ReadError, parse_results, plain_file_name, read_results_text, runs};
use crate::results::Results;
use crate::results::series_csv::SeriesRow;
use serde_json::Value;
use std::path::Path;

/// What a results file that checks out holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// Its phases.
    pub phases: usize,
    /// The series CSVs it names, each read and of its phase's length.
    pub series: usize,
}

/// Checks the results file `file` (a `results.json`, or fio's JSON output, which has no schema or series
/// to check): its schema, every series CSV it names (header, columns, numbers, a row per interval), and
/// the plausibility of its figures.
///
/// # Errors
/// Every problem, one message each naming the file (and the JSON path, or the CSV and its line).
pub fn check(file: &Path) -> Result<Checked, Vec<String>> {
    let one = |e: ReadError| vec![e.to_string()];
    let text = read_results_text(file).map_err(one)?;
    let head = &text.as_bytes()[..text.len().min(64 << 10)];
    if crate::fio::json::looks_like_fio(head) {
        let r = crate::fio::json::from_bytes(&file.display().to_string(), text.as_bytes())
            .map_err(|why| {
                one(ReadError::Fio {
                    path: file.to_path_buf(),
                    why,
                })
            })?;
        return Ok(Checked {
            phases: r.phases.len(),
            series: 0,
        });
    }
    let mut problems = Vec::new();
    let parsed = match parse_results(file, text.as_bytes()) {
        Ok(r) => Some(r),
        Err(e @ ReadError::Schema { .. }) => {
            problems.push(e.to_string());
            None
        }
        Err(e) => return Err(one(e)),
    };
    // Each phase's series as the document names it: from the types when it matches the schema, else from
    // the tree as it is (the schema check parsed it, so it is JSON; parsed again only on this rare path).
    let series = match &parsed {
        Some(r) => contents(file, r, &mut problems),
        None => {
            let doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let named: Vec<Named> = doc["phases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(Named::of)
                .collect();
            series(file, &named, &mut problems)
        }
    };
    match problems.is_empty() {
        true => Ok(Checked {
            phases: parsed.map_or(0, |r| r.phases.len()),
            series,
        }),
        false => Err(problems),
    }
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
    let series = contents(file, r, &mut problems);
    match problems.is_empty() {
        true => Ok(Checked {
            phases: r.phases.len(),
            series,
        }),
        false => Err(problems),
    }
}

/// [`check_contents`]'s checks, their problems added to `problems`; the series read whole.
fn contents(file: &Path, r: &Results, problems: &mut Vec<String>) -> usize {
    let named: Vec<Named> = r
        .phases
        .iter()
        .map(|p| Named {
            csv: p.series_csv.clone(),
            phase: p.name.clone(),
            intervals: p.intervals,
            hist_log: p.hist_log.clone(),
            trace: p.trace.as_ref().map(|t| (t.file.clone(), t.ios)),
        })
        .collect();
    let series = series(file, &named, problems);
    let bad = crate::results::check::implausible(r);
    if !bad.is_empty() {
        problems.push(format!(
            "{} holds figures that cannot be true ({} place{}):{}",
            file.display(),
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            crate::results::check::lines(&bad, bad.len())
        ));
    }
    series
}

/// What a phase says of its series: the CSV's name, the phase's name, its number of intervals, its histogram
/// log and its per-I/O trace (file and rows).
struct Named {
    csv: Option<String>,
    phase: String,
    intervals: Option<u64>,
    hist_log: Option<String>,
    trace: Option<(String, u64)>,
}

impl Named {
    /// From the phase `p` of a document that need not match the schema.
    fn of(p: &Value) -> Named {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        Named {
            csv: text(p.get("series_csv")),
            phase: text(p.get("name")).unwrap_or_else(|| "?".to_string()),
            intervals: p.get("intervals").and_then(Value::as_u64),
            hist_log: text(p.get("hist_log")),
            trace: text(p.pointer("/trace/file")).map(|f| {
                let ios = p.pointer("/trace/ios").and_then(Value::as_u64).unwrap_or(0);
                (f, ios)
            }),
        }
    }
}

/// Checks phase `i`'s histogram log (`phases[i].hist_log`, when it names one) against its series `rows`
/// ([`crate::results::hlog::check_against`]).
fn hist_log(dir: &Path, (i, p): (usize, &Named), rows: &[SeriesRow]) -> Result<(), String> {
    let Some(name) = p.hist_log.as_deref() else {
        return Ok(());
    };
    let path = dir.join(name);
    let at = |e: String| format!("{} (phases[{i}].hist_log): {e}", path.display());
    if !plain_file_name(name) {
        return Err(at("not a plain file name".to_string()));
    }
    let text = std::fs::read(&path).map_err(|e| at(format!("cannot read it: {e}")))?;
    crate::results::hlog::check_against(&text, rows)
        .map(|_| ())
        .map_err(at)
}

/// Checks phase `i`'s per-I/O trace (`phases[i].trace`, when it has one): its rows against `trace.ios`.
fn trace(dir: &Path, (i, p): (usize, &Named)) -> Result<(), String> {
    let Some((name, ios)) = &p.trace else {
        return Ok(());
    };
    let path = dir.join(name);
    let at = |e: String| format!("{} (phases[{i}].trace): {e}", path.display());
    if !plain_file_name(name) {
        return Err(at("not a plain file name".to_string()));
    }
    crate::results::trace_csv::check_file(&path, *ios).map_err(at)
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
                problems.extend(hist_log(dir, (i, p), &rows).err());
            }
            Err(e) => problems.push(e.to_string()),
        }
        problems.extend(trace(dir, (i, p)).err());
    }
    whole
}
