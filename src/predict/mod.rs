//! Predicting a long run from a short one (`wkrun sim fit`, `wkrun sim predict`): the measured run's
//! per-second write series is reduced to a few features (fresh plateau, cliff, steady level, spread), and
//! the simulated drive's parameters are searched for the drive whose run of the same phases shows the same
//! features. The fitted drive then runs any spec: its results are a prediction, labelled as such.
//!
//! The fit drives the simulator through the `wkrun` program itself (a run per candidate, in virtual time),
//! so a candidate's series is exactly what `wkrun SPEC --target sim:...` writes. docs/predict.md says what
//! the fit assumes and what a prediction is not.

pub mod doubts;
pub mod features;
pub mod fit;
pub mod given;
pub mod measured;
pub mod prediction;
pub mod replay;
pub mod runner;

/// Why a fit or a prediction could not be made.
#[derive(Debug)]
pub enum FitError {
    /// The input cannot be fitted (exit 2): the reason, naming the file or phase.
    Bad(String),
    /// A simulated run or a file operation failed (exit 1).
    Failed(String),
    /// The command ends with this exit code: a signal stopped it (128 + its number), or a child `wkrun`
    /// ended so, having said why on stderr (the message then empty).
    Exit(u8, String),
}

impl FitError {
    /// The error of a refusal whose exit status is `code`: 1 (a resource limit) [`FitError::Failed`], 2
    /// (bad input) [`FitError::Bad`].
    pub fn with_code(code: u8, message: String) -> FitError {
        match code {
            1 => FitError::Failed(message),
            2 => FitError::Bad(message),
            c => FitError::Exit(c, message),
        }
    }
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::Bad(m) | FitError::Failed(m) | FitError::Exit(_, m) => f.write_str(m),
        }
    }
}
