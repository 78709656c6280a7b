//! Reports made from results files: [`compare`] puts several runs side by side; [`build`] assembles a
//! [`model::Report`] of SVG plots ([`chart`]) from runs loaded with [`runs::load_run`], and writes it with its
//! HTML page ([`html`]).
//!
//! Everything here reads `results.json` documents ([`read_results`]) and their series CSVs, and never
//! touches a target.

pub mod build;
pub mod chart;
pub mod compare;
pub mod html;
pub mod model;
pub mod runs;
#[cfg(test)]
mod testing;

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
    /// A series CSV that a results file names is missing or is not a series CSV.
    #[error("series {}: {why}", path.display())]
    Series {
        /// The CSV file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// Reads and parses one `results.json` (format 1); the CSV names it holds must be plain file names
/// ([`ReadError::BadName`]).
pub fn read_results(path: &Path) -> Result<Results, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let not = |why: String| ReadError::NotResults {
        path: path.to_path_buf(),
        why,
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| not(format!("not JSON ({e})")))?;
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
