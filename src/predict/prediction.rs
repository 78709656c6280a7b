//! `wkrun sim predict`: a spec run on the fitted drive, its results labelled as a prediction from the
//! measured run (`prediction` in results.json), so that reports tell it from a measurement.

use super::FitError;
use crate::results::model::{Prediction, Results};
use std::path::{Path, PathBuf};

/// Runs `spec` on `target` (fitted to the results at `measured`) with the `wkrun` program `exe` into
/// `output` (or the run's default folder), then labels the results as a prediction; the results folder.
///
/// # Errors
/// [`FitError::Bad`] when `target` is not a simulated drive; [`FitError::Failed`] when the run or the
/// labelling fails.
pub fn run(
    exe: &Path,
    measured: &Path,
    spec: &Path,
    target: &str,
    output: Option<&Path>,
) -> Result<PathBuf, FitError> {
    if let Err(e) = crate::sim::SimParams::parse_target(target) {
        return Err(FitError::Bad(format!("--fitted: {e}")));
    }
    let out = match output {
        Some(o) => o.to_path_buf(),
        None => {
            let name = crate::spec::load::load_file(spec)
                .map(|s| s.file.spec.name.clone())
                .map_err(|e| FitError::Bad(e.to_string()))?;
            crate::run::default_output_dir(&format!("{name}-predicted"))
        }
    };
    super::runner::run(exe, spec, target, &out)?;
    label(&out.join("results.json"), measured, target)?;
    Ok(out)
}

/// Adds `prediction` to the results file `file` and names the run as predicted.
fn label(file: &Path, measured: &Path, target: &str) -> Result<(), FitError> {
    let failed = |e: String| FitError::Failed(format!("{}: {e}", file.display()));
    let text = std::fs::read_to_string(file).map_err(|e| failed(e.to_string()))?;
    let mut r: Results = serde_json::from_str(&text).map_err(|e| failed(e.to_string()))?;
    let source = if measured.is_dir() {
        measured.join("results.json")
    } else {
        measured.to_path_buf()
    };
    r.prediction = Some(Prediction {
        measured: source.display().to_string(),
        fitted_target: target.to_string(),
    });
    r.label = Some(format!(
        "predicted: {}",
        r.label.as_deref().unwrap_or(target)
    ));
    let json = crate::results::pretty::to_vec(&r).map_err(|e| failed(e.to_string()))?;
    std::fs::write(file, json).map_err(|e| failed(e.to_string()))
}
