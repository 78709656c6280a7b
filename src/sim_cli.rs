//! The `sim fit` and `sim predict` commands: their arguments to library calls ([`wkrun::predict`]), the
//! fitted target on the last line of stdout, progress and the fit's errors on stderr.

use crate::{Fail, bad, stdout_text};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use wkrun::predict::{FitError, fit, measured};
use wkrun::units::Size;

/// What `wkrun sim` does.
#[derive(Subcommand)]
pub enum SimCmd {
    /// Fit the simulated drive to a measured run: prints its sim:... target on the last line. The run needs
    /// an erase (purge), a fill, and a random-write phase that runs past the write cliff.
    Fit {
        /// The measured results folder (or its results.json).
        results: PathBuf,
        /// The random-write phase to fit (default: the first one).
        #[arg(long, value_name = "NAME")]
        phase: Option<String>,
        /// The drive's capacity, checked against the results' (e.g. 256GB).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        capacity: Option<Size>,
    },
    /// Run SPEC on the drive fitted to RESULTS; its results are labelled as a prediction from RESULTS.
    Predict {
        /// The measured results folder (or its results.json).
        results: PathBuf,
        /// The spec to predict.
        spec: PathBuf,
        /// Results folder of the prediction (default: as for a run).
        #[arg(long, short = 'o', value_name = "DIR")]
        output: Option<PathBuf>,
        /// The random-write phase to fit (default: the first one).
        #[arg(long, value_name = "NAME")]
        phase: Option<String>,
        /// A target `wkrun sim fit` printed for RESULTS: used without fitting again.
        #[arg(long, value_name = "TARGET")]
        fitted: Option<String>,
    },
}

fn parse_size(s: &str) -> Result<Size, String> {
    Size::parse(s)
}

fn fit_fail(e: FitError) -> Fail {
    match e {
        FitError::Bad(m) => bad(m),
        FitError::Failed(m) => Fail(1, m),
    }
}

/// `wkrun sim ...`.
pub fn cmd_sim(cmd: SimCmd) -> Result<(), Fail> {
    match cmd {
        SimCmd::Fit {
            results,
            phase,
            capacity,
        } => {
            let f = fitted(&results, phase.as_deref(), capacity)?;
            stdout_text(&format!("{f}\n"));
            Ok(())
        }
        SimCmd::Predict {
            results,
            spec,
            output,
            phase,
            fitted: given,
        } => {
            let target = match given {
                Some(t) => t,
                None => fitted(&results, phase.as_deref(), None)?,
            };
            let out = wkrun::predict::prediction::run(
                &exe()?,
                &results,
                &spec,
                &target,
                output.as_deref(),
            )
            .map_err(fit_fail)?;
            stdout_text(&format!("{}\n", out.display()));
            Ok(())
        }
    }
}

fn exe() -> Result<PathBuf, Fail> {
    std::env::current_exe().map_err(|e| Fail(1, format!("cannot find the wkrun program: {e}")))
}

/// Fits the drive to `results`, reporting on stderr; the fitted target.
fn fitted(results: &Path, phase: Option<&str>, capacity: Option<Size>) -> Result<String, Fail> {
    let file = match results.is_dir() {
        true => results.join("results.json"),
        false => results.to_path_buf(),
    };
    crate::room_to_read(&[file], "fitting the simulated drive to results")?;
    let m = measured::read(results, phase, capacity.map(|c| c.0)).map_err(fit_fail)?;
    let started = std::time::Instant::now();
    let mut log = std::io::stderr();
    let f = fit::fit(&m, &exe()?, &mut log).map_err(fit_fail)?;
    // The account in one write (each line whole, as every line wkrun prints).
    let _ = log.write_all(fit::report(&m, &f, started.elapsed().as_secs_f64()).as_bytes());
    Ok(f.target)
}
