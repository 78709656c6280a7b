//! What goes into the library: a run read from its results folder (the `results.json` text, the CSV files
//! it names, checked as `wkrun report` reads them) and the figures indexed for queries.

use super::LibraryError;
use crate::report::bounded::Bounded;
use crate::report::compare::Metric;
use crate::report::runs::{assemble, series_rows};
use crate::report::{ReadError, parse_results_or_fio};
use crate::results::{Better, Results};
use crate::spec::PhaseKind;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A run to add, read whole and checked before the library is touched.
#[derive(Debug, Clone)]
pub struct Incoming {
    /// The `results.json` it was read from.
    pub file: PathBuf,
    /// SHA-256 of the `results.json` bytes: the run's identity in the library.
    pub sha256: String,
    /// The `results.json` bytes as read.
    pub text: Vec<u8>,
    /// The parsed results.
    pub results: Results,
    /// The files the results name (`series_csv`, `device.device_csv`): name and bytes.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// One figure indexed for queries: a phase's headline figure, or its whole-phase IOPS (key
/// [`PHASE_IOPS`]).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexedFigure {
    /// The phase's index in the run.
    pub phase_index: usize,
    /// The phase's name.
    pub phase: String,
    /// Its kind.
    pub phase_kind: PhaseKind,
    /// The figure's key (`phases[].headline[].key`).
    pub key: String,
    /// Its label.
    pub label: String,
    /// Its value, if any.
    pub value: Option<f64>,
    /// Its unit.
    pub unit: String,
    /// Which way is better.
    pub better: Option<Better>,
}

/// The key of the whole-phase IOPS figure every phase with I/O has in the index.
pub const PHASE_IOPS: &str = "phase iops";

/// Reads the run of `path` (a `results.json`, or a results folder holding one): the results text (within
/// the report's limits, parsed and checked as `wkrun report` does) and every CSV it names, each series CSV
/// checked row by row and against the phase's interval count.
///
/// # Errors
/// [`LibraryError::Input`] naming the file: not a results document, a CSV missing or not a series.
pub fn read_run(path: &Path) -> Result<Incoming, LibraryError> {
    let file = results_file(path);
    let input = |e: ReadError| LibraryError::Input(Box::new(e));
    let text = read_bounded(&file, false, Bounded::results).map_err(input)?;
    let results = parse_results_or_fio(&file, &text).map_err(input)?;
    let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut files = BTreeMap::new();
    for p in &results.phases {
        if let Some(name) = p.device.as_ref().and_then(|d| d.device_csv.as_ref()) {
            let bytes = read_bounded(&dir.join(name), true, Bounded::results).map_err(input)?;
            files.insert(name.clone(), bytes);
        }
    }
    // The series as `wkrun report` reads them: rows that parse, as many as the phase's intervals.
    let label = results.label.clone().unwrap_or_default();
    let run = assemble(file.clone(), label, results.clone(), |name| {
        let path = dir.join(name);
        let bytes = read_bounded(&path, true, Bounded::series)?;
        let rows = series_rows(&path, &bytes[..])?;
        files.insert(name.to_string(), bytes);
        Ok((path, rows))
    })
    .map_err(input)?;
    // What `wkrun validate` refuses is not added.
    crate::report::validate::check_run(&file, &results, &run.series).map_err(input)?;
    Ok(Incoming {
        sha256: crate::spec::load::hex(&Sha256::digest(&text)),
        file,
        text,
        results,
        files,
    })
}

/// The bytes of the regular file `path` (a symbolic link refused when `nofollow`), read through the limits
/// of `bounded`.
fn read_bounded<F>(path: &Path, nofollow: bool, bounded: F) -> Result<Vec<u8>, ReadError>
where
    F: FnOnce(std::fs::File) -> Bounded<std::fs::File>,
{
    let file = crate::spec::load::open_regular(path, nofollow).map_err(|e| {
        match (nofollow, e.raw_os_error()) {
            (true, Some(libc::ELOOP)) => ReadError::Series {
                path: path.to_path_buf(),
                why: "a symbolic link; not followed".into(),
            },
            _ => ReadError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        }
    })?;
    let limit = |x: crate::report::bounded::Exceeded| ReadError::Limit {
        path: path.to_path_buf(),
        why: x.0,
    };
    // Refused before a byte is read when its length is already past the limit (a 1 GiB sparse file).
    let len = file.metadata().map_or(0, |m| m.len());
    let mut reader = bounded(file);
    reader.check_len(len).map_err(limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    match reader.read_to_end(&mut bytes) {
        Ok(_) => Ok(bytes),
        Err(e) => match crate::report::bounded::exceeded(&e) {
            Some(x) => Err(limit(crate::report::bounded::Exceeded(x.0.clone()))),
            None => Err(ReadError::Io {
                path: path.to_path_buf(),
                source: e,
            }),
        },
    }
}

/// The figures of `results` the library indexes: per phase with I/O, its headline figures in order, then
/// its whole-phase IOPS.
pub fn figures(results: &Results) -> Vec<IndexedFigure> {
    let mut out = Vec::new();
    for (i, p) in results.phases.iter().enumerate() {
        if p.kind == PhaseKind::Erase {
            continue;
        }
        let one = |key: &str, label: &str, value, unit: &str, better| IndexedFigure {
            phase_index: i,
            phase: p.name.clone(),
            phase_kind: p.kind,
            key: key.to_string(),
            label: label.to_string(),
            value,
            unit: unit.to_string(),
            better,
        };
        for f in &p.headline {
            out.push(one(&f.key, &f.label, f.value, &f.unit, f.better));
        }
        out.push(one(
            PHASE_IOPS,
            "IOPS, whole phase",
            Metric::TotalIops.value(p),
            "IOPS",
            Some(Better::Higher),
        ));
    }
    out
}

/// The SHA-256 of the `results.json` at `path` (or in the results folder `path`): a run's identity in the
/// library.
///
/// # Errors
/// [`LibraryError::Input`] naming the file.
pub fn results_sha256(path: &Path) -> Result<String, LibraryError> {
    let file = results_file(path);
    let text = read_bounded(&file, false, Bounded::results)
        .map_err(|e| LibraryError::Input(Box::new(e)))?;
    Ok(crate::spec::load::hex(&Sha256::digest(&text)))
}

/// The `results.json` of `path`: `path` itself, or for a results folder the file in it.
pub fn results_file(path: &Path) -> PathBuf {
    match path.is_dir() {
        true => path.join("results.json"),
        false => path.to_path_buf(),
    }
}
