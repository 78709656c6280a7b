//! The check of a results folder wkrun has just written (a run's, each target's and their aggregate, a
//! merge's), past the published schema (`results::check::check_written`): what `wkrun validate` checks of
//! it besides (`report::validate::check_contents`: every series CSV, histogram log and trace against the
//! results, the arithmetic of the figures). Results that `wkrun validate` would refuse are a wkrun bug:
//! they are rewritten saying `"failed"` with the reason, and the command exits 1, never 0. A single run's
//! own results are held to the arithmetic of their figures only ([`Scope::Figures`]): its collector writes
//! each series row and its histograms together, and reading them back would take memory growing with the
//! run's length; what adds files up (the aggregate of several targets, a merge) is checked in full.

use wkrun::results::outdir::OutDir;
use wkrun::results::write::ResultsWriter;
use wkrun::results::{Results, Status};

/// How much of a results folder [`own_results`] checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The figures of `results.json` alone (`report::validate::check_figures`).
    Figures,
    /// The figures and every file they name (`report::validate::check_contents`).
    Files,
}

/// Checks `r`, just written as `results.json` into `dir` (as far as `scope`); on a problem, rewrites it as failed with the
/// reason, and returns the reason.
///
/// # Errors
/// Every problem found (and a failure to rewrite the results, if any), in one message.
pub fn own_results(dir: &OutDir, r: &mut Results, scope: Scope) -> Result<(), String> {
    let file = dir.join("results.json");
    let checked = match scope {
        Scope::Figures => wkrun::report::validate::check_figures(&file, r),
        Scope::Files => wkrun::report::validate::check_contents(&file, r).map(|_| ()),
    };
    let Err(problems) = checked else {
        return Ok(());
    };
    let why = format!(
        "the check of the results just written failed (a wkrun bug: please report it; the results are kept, marked failed): {}",
        problems.join("; ")
    );
    r.status = Status::Failed;
    r.error = Some(match r.error.take() {
        Some(e) => format!("{e}; {why}"),
        None => why.clone(),
    });
    match ResultsWriter::new(dir).write(r) {
        Ok(()) => Err(why),
        Err(e) => Err(format!(
            "{why}; and the results could not be rewritten as failed: {e}"
        )),
    }
}
