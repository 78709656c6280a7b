//! Reports made from results files: [`compare`] puts several runs side by side; [`build`] assembles a
//! [`model::Report`] of SVG plots ([`chart`]) from runs loaded with [`runs::load_run`], and writes it with its
//! HTML page ([`html`]).
//!
//! Everything here reads `results.json` documents ([`read_results`]) and their series CSVs, within the
//! limits of [`bounded`], and never touches a target.

pub mod bounded;
pub mod build;
pub mod chart;
pub mod compare;
pub mod html;
pub mod members;
pub mod merge;
pub mod model;
pub mod parts;
pub mod runs;
pub mod table;
#[cfg(test)]
pub(crate) mod testing;

use crate::results::{RESULTS_FORMAT, Results};
use std::path::{Path, PathBuf};

/// A results file that cannot be used; the message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a wkrun results document (not JSON, or not of the results format).
    #[error("{} is not a wkrun results document: {why}", path.display())]
    NotResults {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A file name in a results file (`series_csv`, `device_csv`) that is not a plain name of a file next to
    /// it: a path such as `../../etc/passwd` or `/proc/self/environ` is refused, never opened.
    #[error(
        "{}: {field} = {name:?} is not a file name in the results folder (a plain name, without `/`); refused",
        path.display()
    )]
    BadName {
        /// The results file.
        path: PathBuf,
        /// The field, e.g. `phases[2].series_csv`.
        field: String,
        /// Its value.
        name: String,
    },
    /// A file past a limit of [`bounded`] (too large, too many rows, a line too long).
    #[error("{}: {why}", path.display())]
    Limit {
        /// The file.
        path: PathBuf,
        /// Which limit, and its value.
        why: String,
    },
    /// fio's JSON output that cannot be read as results: cut short, or not fio's.
    #[error("{}: {why}", path.display())]
    Fio {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A series CSV that a results file names is missing or is not a series CSV.
    #[error("series {}: {why}", path.display())]
    Series {
        /// The CSV file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// Reads and parses one `results.json` (format 1) of at most [`bounded::MAX_RESULTS_BYTES`]; the CSV names
/// it holds must be plain file names ([`ReadError::BadName`]). fio's JSON output (`--output-format=json` or
/// `json+`) is read as results too ([`crate::fio::json`]).
///
/// # Errors
/// [`ReadError`] naming the file: unreadable, past the limit, not a results document, or a bad CSV name.
pub fn read_results(path: &Path) -> Result<Results, ReadError> {
    let io = |source: std::io::Error| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::spec::load::open_regular(path, false).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_file() && is_fio_output(path) {
        return read_fio(path, file, meta.len());
    }
    let reader = bounded::Bounded::results(file);
    if meta.is_file() && meta.len() > bounded::MAX_RESULTS_BYTES {
        return Err(ReadError::Limit {
            path: path.to_path_buf(),
            why: reader.too_large().0,
        });
    }
    // Straight into the types, without the whole text or a JSON tree in memory.
    match serde_json::from_reader::<_, Results>(std::io::BufReader::new(reader)) {
        Ok(r) if r.format == RESULTS_FORMAT => {
            check_names(path, &r)?;
            Ok(r)
        }
        Ok(_) => read_results_tree(path),
        Err(e) if e.is_io() || e.is_syntax() || e.is_eof() => Err(json_error(path, e)),
        // JSON, but not these types: read again as a tree to say what is wrong (a regular file only; a
        // pipe or device cannot be read twice).
        Err(_) if meta.is_file() => read_results_tree(path),
        Err(e) => Err(ReadError::NotResults {
            path: path.to_path_buf(),
            why: e.to_string(),
        }),
    }
}

/// Whether the file starts as fio's JSON output does.
fn is_fio_output(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(64 << 10);
    crate::spec::load::open_regular(path, false)
        .and_then(|f| f.take(64 << 10).read_to_end(&mut head))
        .is_ok_and(|_| crate::fio::json::looks_like_fio(&head))
}

/// fio's JSON output as results, within the results files' limit.
fn read_fio(path: &Path, file: std::fs::File, len: u64) -> Result<Results, ReadError> {
    use std::io::Read;
    let reader = bounded::Bounded::results(file);
    if len > bounded::MAX_RESULTS_BYTES {
        return Err(ReadError::Limit {
            path: path.to_path_buf(),
            why: reader.too_large().0,
        });
    }
    let mut bytes = Vec::new();
    let mut reader = reader;
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    crate::fio::json::from_bytes(&path.display().to_string(), &bytes).map_err(|why| {
        ReadError::Fio {
            path: path.to_path_buf(),
            why,
        }
    })
}

/// [`read_results`] through a JSON tree, for a document that is not a results file of this format: the
/// error says what is wrong (not an object, no `format`, another format, a field of the wrong type).
fn read_results_tree(path: &Path) -> Result<Results, ReadError> {
    let not = |why: String| ReadError::NotResults {
        path: path.to_path_buf(),
        why,
    };
    let file = crate::spec::load::open_regular(path, false).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let reader = std::io::BufReader::new(bounded::Bounded::results(file));
    let value: serde_json::Value =
        serde_json::from_reader(reader).map_err(|e| json_error(path, e))?;
    let Some(obj) = value.as_object() else {
        return Err(not("the document is not a JSON object".into()));
    };
    match obj.get("format").and_then(serde_json::Value::as_u64) {
        None => return Err(not("it has no integer `format` field".into())),
        Some(f) if f != u64::from(RESULTS_FORMAT) => {
            return Err(not(format!(
                "results format {f}; this wkrun reads format {RESULTS_FORMAT}"
            )));
        }
        Some(_) => {}
    }
    let results: Results = serde_json::from_value(value).map_err(|e| not(e.to_string()))?;
    check_names(path, &results)?;
    Ok(results)
}

/// Whether `name` names a file in the folder itself: not empty, not `.` or `..`, no `/` or NUL.
pub fn plain_file_name(name: &str) -> bool {
    !(name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']))
}

/// Refuses a results file whose `series_csv` or `device.device_csv` is not a plain file name.
fn check_names(path: &Path, results: &Results) -> Result<(), ReadError> {
    for (i, p) in results.phases.iter().enumerate() {
        let names = [
            ("series_csv", p.series_csv.as_ref()),
            (
                "device.device_csv",
                p.device.as_ref().and_then(|d| d.device_csv.as_ref()),
            ),
        ];
        for (field, name) in names {
            if let Some(name) = name.filter(|n| !plain_file_name(n)) {
                return Err(ReadError::BadName {
                    path: path.to_path_buf(),
                    field: format!("phases[{i}].{field}"),
                    name: name.clone(),
                });
            }
        }
    }
    Ok(())
}

/// A JSON reading error: the limit passed, the OS error, or not JSON.
fn json_error(path: &Path, e: serde_json::Error) -> ReadError {
    if !e.is_io() {
        return ReadError::NotResults {
            path: path.to_path_buf(),
            why: format!("not JSON ({e})"),
        };
    }
    io_error(path, std::io::Error::from(e))
}

/// A reading error: the limit passed, or the OS error.
fn io_error(path: &Path, e: std::io::Error) -> ReadError {
    match bounded::exceeded(&e) {
        Some(x) => ReadError::Limit {
            path: path.to_path_buf(),
            why: x.0.clone(),
        },
        None => ReadError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    }
}
