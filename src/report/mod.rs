//! Reports made from results files: [`compare`] puts several runs side by side; [`build`] assembles a
//! [`model::Report`] of SVG plots ([`chart`]) from runs loaded with [`runs::load_run`], and writes it with its
//! HTML page ([`html`]).
//!
//! Everything here reads `results.json` documents ([`read_results`]) and their series CSVs, within the
//! limits of [`bounded`], and never touches a target.

pub mod against;
pub mod bounded;
pub mod build;
pub mod chart;
pub mod compare;
pub mod counters;
pub mod flushes;
pub mod html;
pub mod members;
pub mod merge;
pub mod model;
pub mod not_run;
pub mod parts;
pub mod png;
pub mod pts;
pub mod room;
pub mod runs;
mod series_figures;
pub mod table;
#[cfg(test)]
pub(crate) mod testing;
pub mod validate;
pub mod verify_reads;
pub mod warnings;

use crate::results::Results;
use std::path::{Path, PathBuf};

/// A results file that cannot be used; the message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}{}", path.display(), crate::sys::limits::errno_note(source))]
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
    /// A results document that breaks the published results schema: each violation with its JSON path.
    #[error(
        "{} does not match the results schema ({all} violation{}):{lines}",
        path.display(),
        if *all == 1 { "" } else { "s" }
    )]
    Schema {
        /// The file.
        path: PathBuf,
        /// How many violations there are.
        all: usize,
        /// The violations shown, one indented line each ([`crate::results::check::lines`]).
        lines: String,
    },
    /// fio's JSON output that cannot be read as results: cut short, or not fio's.
    #[error("{}: {why}", path.display())]
    Fio {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// Results that `wkrun validate` refuses though they match the schema: figures that cannot be true, or
    /// a file beside them (histogram log, trace, counters or device CSV) that does not agree with them
    /// ([`validate::check_run`]); the message names the file (and the line or JSON path).
    #[error("{why}")]
    Invalid {
        /// What is wrong, naming the file.
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

/// Reads one `results.json` (format 1) of at most [`bounded::MAX_RESULTS_BYTES`], checks it against the
/// published results schema ([`crate::results::check`]) and parses it; the CSV names it holds must be plain
/// file names ([`ReadError::BadName`]).
/// fio's JSON output (`--output-format=json` or `json+`) is read as results too ([`crate::fio::json`]).
///
/// # Errors
/// [`ReadError`] naming the file: unreadable, past the limit, not a results document, a violation of the
/// schema (with its JSON path), or a bad CSV name.
pub fn read_results(path: &Path) -> Result<Results, ReadError> {
    let text = read_results_text(path)?;
    parse_results_or_fio(path, text.as_bytes())
}

/// The results in `bytes` (read from `path`): fio's JSON output when its start says so
/// ([`crate::fio::json::looks_like_fio`]), read by [`crate::fio::json::from_bytes`]; else a results.json,
/// by [`parse_results`]. What `compare`, `report` and the results library all read.
///
/// # Errors
/// [`ReadError::Fio`] naming the file and the JSON key, or [`parse_results`]'s errors.
pub fn parse_results_or_fio(path: &Path, bytes: &[u8]) -> Result<Results, ReadError> {
    if crate::fio::json::looks_like_fio(bytes) {
        return crate::fio::json::from_bytes(&path.display().to_string(), bytes).map_err(|why| {
            ReadError::Fio {
                path: path.to_path_buf(),
                why,
            }
        });
    }
    parse_results(path, bytes)
}

/// Parses the text of a `results.json` (format 1) already read into memory (the results library keeps it
/// so), as [`read_results`] does a file: checked against the published results schema, then read into the
/// types; `path` names it in errors.
///
/// # Errors
/// [`ReadError::NotResults`], [`ReadError::Schema`] or [`ReadError::BadName`] naming `path`.
pub fn parse_results(path: &Path, bytes: &[u8]) -> Result<Results, ReadError> {
    parse_results_each(path, bytes, |_, _| {})
}

/// [`parse_results`], with `each` shown every phase as the document has it, in order, before the schema's
/// check (what `validate` reads the series of a document that breaks the schema from). The document is
/// read a phase at a time ([`crate::results::stream`]): memory holds the typed results and one phase's
/// tree, never the whole document's.
///
/// # Errors
/// As [`parse_results`].
pub fn parse_results_each(
    path: &Path,
    bytes: &[u8],
    each: impl FnMut(usize, &serde_json::Value),
) -> Result<Results, ReadError> {
    use crate::results::stream::{self, Refused};
    let results = stream::from_slice(bytes, each).map_err(|e| match e {
        // A byte order mark is said as such (serde_json expects a value there).
        Refused::Json(e) if bytes.starts_with(BOM) && (e.line(), e.column()) == (1, 1) => {
            ReadError::NotResults {
                path: path.to_path_buf(),
                why: "not JSON (a UTF-8 byte order mark, EF BB BF, at line 1 column 1: JSON text starts without one)".into(),
            }
        }
        Refused::Json(e) => json_error(path, e),
        Refused::NotResults(why) => ReadError::NotResults {
            path: path.to_path_buf(),
            why,
        },
        Refused::Schema(shown, all) => ReadError::Schema {
            path: path.to_path_buf(),
            all,
            lines: crate::results::check::lines(&shown, all),
        },
    })?;
    check_names(path, &results)?;
    let mut results = results;
    results.upgrade();
    Ok(results)
}

/// The text of a results file, read within [`bounded::MAX_RESULTS_BYTES`] (a regular file only).
fn read_results_text(path: &Path) -> Result<String, ReadError> {
    let io = |source: std::io::Error| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::spec::load::open_regular(path, false).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let reader = bounded::Bounded::results(file);
    reader.check_len(meta.len()).map_err(|x| ReadError::Limit {
        path: path.to_path_buf(),
        why: x.0,
    })?;
    let mut text = String::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::io::Read::read_to_string(&mut { reader }, &mut text).map_err(
        |e| match bounded::exceeded(&e) {
            Some(x) => ReadError::Limit {
                path: path.to_path_buf(),
                why: x.0.clone(),
            },
            None if e.kind() == std::io::ErrorKind::InvalidData => ReadError::NotResults {
                path: path.to_path_buf(),
                why: "not JSON (not UTF-8 text)".into(),
            },
            None => ReadError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        },
    )?;
    Ok(text)
}

/// Whether `name` names a file in the folder itself: not empty, not `.` or `..`, no `/` or NUL.
pub fn plain_file_name(name: &str) -> bool {
    !(name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']))
}

/// Refuses a results file that names a file beside it (`series_csv`, `hist_log`, `counters_csv`,
/// `trace.file`, `device.device_csv`) by anything but a plain file name.
fn check_names(path: &Path, results: &Results) -> Result<(), ReadError> {
    for (i, p) in results.phases.iter().enumerate() {
        let names = [
            ("series_csv", p.series_csv.as_ref()),
            ("hist_log", p.hist_log.as_ref()),
            ("counters_csv", p.counters_csv.as_ref()),
            ("trace.file", p.trace.as_ref().map(|t| &t.file)),
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

/// The UTF-8 byte order mark, which JSON text (RFC 8259) does not start with.
const BOM: &[u8] = b"\xEF\xBB\xBF";

pub use crate::results::scan::MAX_JSON_DEPTH;

/// A JSON reading error: the limit passed, the OS error, a document nested past [`MAX_JSON_DEPTH`], or not
/// JSON (the parser's reason and position).
fn json_error(path: &Path, e: serde_json::Error) -> ReadError {
    if !e.is_io() {
        // serde_json has no public code for its recursion limit; its message is stable.
        let why = match e.to_string().starts_with("recursion limit exceeded") {
            true => format!(
                "nested deeper than {MAX_JSON_DEPTH} levels of objects and arrays (the document's own object the first) at line {} column {}",
                e.line(),
                e.column()
            ),
            false => format!("not JSON ({e})"),
        };
        return ReadError::NotResults {
            path: path.to_path_buf(),
            why,
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
