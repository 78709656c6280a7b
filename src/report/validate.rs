//! `wkrun validate` of a results file: everything wrong with it at once, not only the first problem. The
//! schema's violations do not hide the series CSVs (read from the document as it is, even when it breaks
//! the schema), and a document that matches the schema is held to the arithmetic of its figures
//! ([`crate::results::check::implausible`]).

use super::{ReadError, parse_results, plain_file_name, read_results_text, runs};
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
    // The schema check parsed it, so it is JSON.
    let doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let series = series(file, &doc, &mut problems);
    if let Some(r) = &parsed {
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
    }
    match problems.is_empty() {
        true => Ok(Checked {
            phases: doc["phases"].as_array().map_or(0, Vec::len),
            series,
        }),
        false => Err(problems),
    }
}

/// Checks phase `i`'s histogram log (`phases[i].hist_log`, when it names one) against its series `rows`
/// ([`crate::results::hlog::check_against`]).
fn hist_log(dir: &Path, (i, p): (usize, &Value), rows: &[SeriesRow]) -> Result<(), String> {
    let Some(name) = p.get("hist_log").and_then(Value::as_str) else {
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
fn trace(dir: &Path, (i, p): (usize, &Value)) -> Result<(), String> {
    let Some(name) = p.pointer("/trace/file").and_then(Value::as_str) else {
        return Ok(());
    };
    let path = dir.join(name);
    let at = |e: String| format!("{} (phases[{i}].trace): {e}", path.display());
    if !plain_file_name(name) {
        return Err(at("not a plain file name".to_string()));
    }
    let ios = p.pointer("/trace/ios").and_then(Value::as_u64).unwrap_or(0);
    crate::results::trace_csv::check_file(&path, ios).map_err(at)
}

/// Reads each series CSV the document `doc` (of the results file `file`) names, as its phase says it
/// (`phases[i].series_csv`, `phases[i].intervals`); what is wrong goes into `problems`. The CSVs read whole.
fn series(file: &Path, doc: &Value, problems: &mut Vec<String>) -> usize {
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut whole = 0;
    for (i, p) in doc["phases"].as_array().into_iter().flatten().enumerate() {
        let Some(name) = p.get("series_csv").and_then(Value::as_str) else {
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
        let phase = p.get("name").and_then(Value::as_str).unwrap_or("?");
        let intervals = p.get("intervals").and_then(Value::as_u64);
        let read = runs::read_series(&path).and_then(|rows| {
            runs::row_count(&path, phase, rows.len(), intervals)?;
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
