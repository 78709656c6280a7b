//! The `sim fit` and `sim predict` commands: their arguments to library calls ([`wkrun::predict`]), the
//! fitted target on the last line of stdout, progress and the fit's errors on stderr.

use crate::{Fail, bad, stdout_text};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use wkrun::predict::{FitError, fit, measured, prediction};
use wkrun::units::Size;

/// What `wkrun sim` does.
#[derive(Subcommand)]
pub enum SimCmd {
    /// Fit the simulated drive to a measured run: prints its sim:... target on the last line. The run needs
    /// an erase (purge), a fill, and a random-write phase that runs past the write cliff.
    Fit {
        /// The measured results folder (or its results.json).
        #[arg(required_unless_present = "features")]
        results: Option<PathBuf>,
        /// The random-write phase to fit (default: the first one).
        #[arg(long, value_name = "NAME")]
        phase: Option<String>,
        /// The drive's capacity, checked against the results' (e.g. 256GB).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        capacity: Option<Size>,
        /// Fit to published features instead of a measured run: a TOML file of capacity, block_size,
        /// queue_depth, plateau_iops, steady_iops or op, and optionally cliff_s and spread
        /// (docs/predict.md).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["results", "phase", "capacity"])]
        features: Option<PathBuf>,
        /// With --features: the theory's drive alone, no simulated runs (instant; for drives of hundreds of
        /// GB, whose simulated runs to the steady state take hours).
        #[arg(long, requires = "features")]
        theory: bool,
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
        /// Replace KEY in the spec as a run's --set does (e.g. --set duration=15min); repeatable.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Nothing on stderr but errors (no fit progress or account, notes, warnings or live progress),
        /// as a run's -q: the run's summary on stdout (the results folder, each phase's lines, done, next)
        /// stays.
        #[arg(long, short = 'q')]
        quiet: bool,
    },
}

fn parse_size(s: &str) -> Result<Size, String> {
    Size::parse(s)
}

fn fit_fail(e: FitError) -> Fail {
    match e {
        FitError::Bad(m) => bad(m),
        FitError::Failed(m) => Fail(1, m),
        FitError::Exit(code, m) => Fail(code, m),
    }
}

/// What makes a run a prediction (`wkrun SPEC --target sim:... --predicted-from FILE`, as `sim predict`
/// runs it): the measured results file `measured`, the run's one `--target`, the warnings of the fit
/// that found it (`fit_warnings`, each cut as an echoed value is) and whether it was given with `--fitted`
/// instead (`given`); `None` for a run.
///
/// # Errors
/// Exit 2 when `measured` is given without exactly one target, or with one that is not a simulated drive
/// (`sim:...`): a prediction runs on the fitted drive, and a run on a file or device is a measurement,
/// which the label `predicted: ` would misname (attack 13 F13).
pub fn predicted(
    measured: Option<&Path>,
    targets: &[PathBuf],
    (fit_warnings, given): (&[String], bool),
) -> Result<Option<wkrun::plan::Predicted>, Fail> {
    let Some(measured) = measured else {
        return Ok(None);
    };
    let [target] = targets else {
        return Err(bad(format!(
            "{} takes exactly one --target, the fitted simulated drive",
            prediction::PREDICTED_FROM
        )));
    };
    let sim = target
        .to_str()
        .is_some_and(|t| t.starts_with(wkrun::sim::params::PREFIX));
    if !sim {
        return Err(bad(format!(
            "{} is for a run on the fitted simulated drive (--target sim:...), not on {}: a run on a file or device is a measurement, not a prediction; nothing was written",
            prediction::PREDICTED_FROM,
            wkrun::text::escaped(&target.to_string_lossy())
        )));
    }
    Ok(Some(wkrun::plan::Predicted {
        measured: measured.display().to_string(),
        fitted_target: target.display().to_string(),
        fit_warnings: fit_warnings
            .iter()
            .map(|w| wkrun::text::clip(w, MAX_FIT_WARNING).into_owned())
            .collect(),
        measured_run_started_at: None,
        measured_run_target: None,
        notes: Vec::new(),
        target_given: given,
        paired: Err(wkrun::plan::pairing::Unpaired::NoPhases),
    }))
}

/// Makes the run of `plan` the prediction `p` ([`predicted`]): recorded in the plan, so that its results say
/// so from their first write; its label `predicted: ` and the run's label, cut as labels are
/// ([`wkrun::text::label`]); whether its measured results can be paired with it
/// ([`wkrun::plan::pairing::pairing`], on the plan's phases as its results will record them;
/// `Unpaired::NoPhases` when they cannot be read), for its `next:` line; and, when the spec names a
/// target of its own (`spec_target`, its `[target]`), the note that the fitted drive replaced it
/// ([`prediction::replaced_target`]), recorded in the prediction and added to the run's `notes`.
pub fn mark_prediction(
    plan: &mut wkrun::plan::Plan,
    mut p: wkrun::plan::Predicted,
    spec_target: Option<&wkrun::spec::TargetSection>,
    notes: &mut Vec<String>,
) {
    use wkrun::plan::pairing::{PairPhase, pairing};
    if let Some(n) = prediction::replaced_target(spec_target, &plan.target) {
        notes.push(n.clone());
        p.notes.push(n);
    }
    plan.label = wkrun::text::label(&format!("predicted: {}", plan.label));
    let params: Vec<_> = plan.phases.iter().map(|x| x.params()).collect();
    let ours: Vec<PairPhase> = plan
        .phases
        .iter()
        .zip(&params)
        .map(|(x, params)| PairPhase {
            name: &x.name,
            kind: x.kind,
            params,
        })
        .collect();
    let measured = wkrun::report::read_results(Path::new(&p.measured));
    p.measured_run_started_at = measured.as_ref().ok().map(|m| m.started_at.clone());
    p.measured_run_target = measured
        .as_ref()
        .ok()
        .map(|m| m.target.path.display().to_string());
    if let Ok(m) = measured {
        let theirs: Vec<PairPhase> = m
            .phases
            .iter()
            .map(|x| PairPhase {
                name: &x.name,
                kind: x.kind,
                params: &x.params,
            })
            .collect();
        p.paired = pairing(&m.spec.name, &theirs, &plan.spec_name, &ours);
    }
    plan.prediction = Some(p);
}

/// The longest fit warning a prediction records (the fit's own are under 600 bytes).
const MAX_FIT_WARNING: usize = 1024;

/// Files `sim fit` and `sim predict` hold open at once beside their runs' own (a run is a process of its
/// own, which checks its own): the results read, the run's error output, and the pipe starting a run
/// opens. Measured: `sim predict` started its run with 2 files free beside those open when it started.
const SIM_FILES: u64 = 4;

/// Files `sim fit` and `sim predict` ask the open-file limit for beside those open when they start: the
/// more of their own ([`SIM_FILES`]) and a run's: each run they start inherits the limit and starts with
/// no more open than they had (their own files are closed on exec), opens its output folder
/// ([`wkrun::run::OPEN_AT_CHECK`]) and then checks that the limit leaves [`wkrun::run::BASE_FILES`]
/// beside those. One advice then lets the whole command complete (attack 40 F9: `sim predict` advised 9,
/// its run then refused under 9 to 12 and advised 13; attack 13 F11: advised 13, its run refused 13 and
/// advised 14).
fn sim_files() -> u64 {
    SIM_FILES.max(wkrun::run::OPEN_AT_CHECK + wkrun::run::BASE_FILES)
}

/// `wkrun sim ...`.
pub fn cmd_sim(cmd: SimCmd) -> Result<(), Fail> {
    // A signal stops the command as it stops a run: its child run is stopped and waited for, the scratch
    // folder removed, and the exit is 128 + the signal's number.
    wkrun::sys::signal::install();
    // Before any run, which would fail to start under too few: a resource limit, exit 1. Each run checks
    // (and raises) the limit for its own needs.
    let what = match &cmd {
        SimCmd::Fit { .. } => "sim fit (with the simulated runs it starts)",
        SimCmd::Predict { .. } => "sim predict (with the runs it starts)",
    };
    wkrun::run::ensure_open_files(what, sim_files(), "").map_err(|e| Fail(1, e))?;
    match cmd {
        SimCmd::Fit {
            results,
            phase,
            capacity,
            features,
            theory,
        } => {
            let f = match (features, results) {
                (Some(file), _) => from_features(&file, theory)?,
                (None, Some(_)) if theory => {
                    return Err(bad(
                        "sim fit: --theory is for --features FILE (a fit to a measured run always runs the simulated drive)",
                    ));
                }
                (None, Some(results)) => fitted(&results, phase.as_deref(), capacity, false)?.0,
                (None, None) => return Err(bad("sim fit: give RESULTS or --features FILE")),
            };
            stdout_text(&format!("{f}\n"));
            Ok(())
        }
        SimCmd::Predict {
            results,
            spec,
            output,
            phase,
            fitted: given,
            set,
            quiet,
        } => {
            // Checked before the fit, which can take minutes.
            let inputs =
                prediction::check(&results, &spec, output.as_deref(), given.as_deref(), &set)
                    .map_err(fit_fail)?;
            let was_given = given.is_some();
            let (target, warnings) = match given {
                Some(t) => (t, Vec::new()),
                None => fitted(&results, phase.as_deref(), None, quiet)?,
            };
            // The run says its summary, `done:` and `next:` on stdout itself.
            let drive = (target.as_str(), was_given);
            prediction::run(&exe()?, &inputs, drive, &warnings, quiet).map_err(fit_fail)?;
            Ok(())
        }
    }
}

fn exe() -> Result<PathBuf, Fail> {
    std::env::current_exe().map_err(|e| Fail(1, format!("cannot find the wkrun program: {e}")))
}

/// Fits the drive to `results`, reporting on stderr (nothing when `quiet`); the fitted target and the
/// fit's warnings.
fn fitted(
    results: &Path,
    phase: Option<&str>,
    capacity: Option<Size>,
    quiet: bool,
) -> Result<(String, Vec<String>), Fail> {
    let file = match results.is_dir() {
        true => results.join("results.json"),
        false => results.to_path_buf(),
    };
    crate::room_to_read(
        &[file],
        "fitting the simulated drive to results",
        wkrun::report::room::Reader::Check,
    )?;
    let m = measured::read(results, phase, capacity.map(|c| c.0)).map_err(fit_fail)?;
    let started = std::time::Instant::now();
    let mut log: Box<dyn Write> = match quiet {
        true => Box::new(std::io::sink()),
        false => Box::new(std::io::stderr()),
    };
    let f = fit::fit(&m, &exe()?, &mut log).map_err(fit_fail)?;
    // The account in one write (each line whole, as every line wkrun prints).
    let _ = log.write_all(fit::report(&m, &f, started.elapsed().as_secs_f64()).as_bytes());
    let warnings = fit::warnings(&m, &f);
    Ok((f.target, warnings))
}

/// Fits the drive to a features file, reporting on stderr; the fitted target.
fn from_features(file: &Path, theory: bool) -> Result<String, Fail> {
    let g = wkrun::predict::given::read(file).map_err(fit_fail)?;
    if theory {
        let (target, account) = wkrun::predict::given::theory(&g).map_err(fit_fail)?;
        let _ = std::io::stderr().write_all(account.as_bytes());
        return Ok(target);
    }
    let started = std::time::Instant::now();
    let mut log = std::io::stderr();
    let (m, f) = wkrun::predict::given::fit(&g, &exe()?, &mut log).map_err(fit_fail)?;
    let _ = log.write_all(fit::report(&m, &f, started.elapsed().as_secs_f64()).as_bytes());
    Ok(f.target)
}
