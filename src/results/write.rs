//! Writing `results.json`: validated against the results schema, then written atomically (a new temporary
//! file, fsync, rename; [`OutDir::replace`]), so a reader or a crash never sees a torn or invalid file.

use super::Results;
use super::outdir::OutDir;
use super::schema::result_schema;
use std::io;
use std::path::{Path, PathBuf};

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The document does not match the results schema: a bug in wkrun, reported rather than written.
    #[error("results do not validate against the results schema (a wkrun bug): {0}")]
    Invalid(String),
    /// The file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// Writes `results.json` into one folder, validating every version it writes.
pub struct ResultsWriter {
    dir: OutDir,
    path: PathBuf,
    validator: jsonschema::Validator,
}

impl ResultsWriter {
    /// A writer for `results.json` in `dir`.
    ///
    /// # Errors
    /// [`WriteError::Invalid`] if the generated schema does not compile (a bug).
    pub fn new(dir: &OutDir) -> Result<ResultsWriter, WriteError> {
        let validator = jsonschema::validator_for(&result_schema())
            .map_err(|e| WriteError::Invalid(e.to_string()))?;
        Ok(ResultsWriter {
            dir: dir.clone(),
            path: dir.join("results.json"),
            validator,
        })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Validates and atomically replaces `results.json`.
    ///
    /// # Errors
    /// [`WriteError`] when the document is invalid or the file cannot be written.
    pub fn write(&self, results: &Results) -> Result<(), WriteError> {
        let value =
            serde_json::to_value(results).map_err(|e| WriteError::Invalid(e.to_string()))?;
        if let Some(err) = self.validator.iter_errors(&value).next() {
            return Err(WriteError::Invalid(format!(
                "{err} at {}",
                err.instance_path()
            )));
        }
        let mut text =
            serde_json::to_vec_pretty(&value).map_err(|e| WriteError::Invalid(e.to_string()))?;
        text.push(b'\n');
        self.dir
            .replace("results.json", &text, true)
            .map_err(|source| WriteError::Io {
                path: self.path.clone(),
                source,
            })
    }
}
