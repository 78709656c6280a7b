//! `wkrun sim predict`: a spec run on the fitted drive, its results labelled as a prediction from the
//! measured run (`prediction` in results.json), so that reports tell it from a measurement. The run labels
//! its own results from their first write on (`wkrun SPEC --predicted-from MEASURED`, a hidden option):
//! nothing rewrites them after it, so partial results are labelled too and no file is written twice.

use super::FitError;
use crate::target::TargetInfo;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The hidden run option that makes a run a prediction from the measured results file it names.
pub const PREDICTED_FROM: &str = "--predicted-from";
/// The hidden option of a run that leaves out its log of phases and live progress on stderr.
pub const NO_PHASE_LOG: &str = "--no-phase-log";
/// The hidden run option that records one of the fit's warnings in a prediction's results
/// (`prediction.fit_warnings`); repeated for each.
pub const FIT_WARNING: &str = "--fit-warning";
/// The hidden run option that records in a prediction's results that its drive was given with
/// `--fitted`, not fitted by it (`prediction.target_given`).
pub const TARGET_GIVEN: &str = "--target-given";

/// What a prediction reads and writes, checked before anything runs.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The measured results file.
    pub measured: PathBuf,
    /// The spec to run.
    pub spec: PathBuf,
    /// The results folder to make.
    pub out: PathBuf,
    /// The `--set KEY=VALUE` overrides the run applies to the spec, in order.
    pub sets: Vec<String>,
}

/// Checks what a prediction reads and writes before anything runs: the measured results (`measured`, a
/// folder or its results.json) as `wkrun validate` checks them; the `fitted` target when given, which must
/// be a simulated drive of the measured capacity; the spec as a run loads it and plans it on a simulated
/// drive of that capacity (the fitted one, else any: what a spec may ask of a simulated drive does not
/// depend on the parameters the fit finds), with its `--set` overrides (`sets`) applied as a run applies
/// them; and the output folder (`output`, else the run's default for
/// the spec's name with `-predicted`) as a run checks it (made and removed again when it is new).
///
/// # Errors
/// [`FitError::Bad`] naming the file (and the line and key of a spec), nothing written.
pub fn check(
    measured: &Path,
    spec: &Path,
    output: Option<&Path>,
    fitted: Option<&str>,
    sets: &[String],
) -> Result<Inputs, FitError> {
    recordable(measured)?;
    let (file, run) = super::measured::load(measured)?;
    let capacity = run.results.target.capacity_bytes;
    drop(run);
    let drive = match fitted {
        Some(t) => fitted_drive(t, &file, capacity)?,
        None => TargetInfo::sim_of_capacity(capacity),
    };
    let mut loaded = crate::spec::load::load_file(spec)
        .map_err(|e| FitError::with_code(e.exit_code(), e.to_string()))?;
    let overrides = sets
        .iter()
        .map(|a| crate::spec::overrides::parse(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(FitError::Bad)?;
    if !overrides.is_empty() {
        loaded
            .apply_overrides(&overrides)
            .map_err(|e| FitError::with_code(e.exit_code(), format!("{}: {e}", spec.display())))?;
    }
    crate::plan::resolve(&loaded, &drive).map_err(|e| {
        FitError::Bad(format!(
            "{e}\n  note: the spec was planned on a simulated drive of the measured capacity, {capacity} B, before {}; nothing was run",
            match fitted {
                Some(_) => "the run",
                None => "the fit",
            }
        ))
    })?;
    let out = match output {
        Some(o) => o.to_path_buf(),
        None => crate::run::default_output_dir(&format!("{}-predicted", loaded.file.spec.name)),
    };
    crate::results::outdir::OutDir::for_run(&out)
        .map_err(|e| FitError::with_code(e.exit_code(), e.refusal()))?
        .discard();
    Ok(Inputs {
        measured: file,
        spec: spec.to_path_buf(),
        out,
        sets: sets.to_vec(),
    })
}

/// The note of a prediction whose spec names a target of its own (`section`, its `[target]`): the
/// fitted drive `drive` replaces it, at the measured drive's capacity, whatever the spec's target was
/// sized for (trial 13 F10: a spec of a 256 MiB file ran at the fitted drive's capacity without a word).
/// The spec's target is named with its size (a file's `size`, a simulated drive's capacity); `None` when
/// the spec names no target, or names the fitted drive itself.
pub fn replaced_target(
    section: Option<&crate::spec::TargetSection>,
    drive: &TargetInfo,
) -> Option<String> {
    let t = section?;
    let shown = |p: &Path| crate::text::escaped(&p.to_string_lossy()).into_owned();
    let named = match (&t.sim, &t.paths, &t.path) {
        (Some(sim), _, _) => match TargetInfo::sim(sim.clone()) {
            Ok(own) if own.path == drive.path => return None,
            Ok(own) => format!("{} of {} B", shown(&own.path), own.capacity_bytes),
            Err(_) => "a simulated drive".to_string(),
        },
        (None, Some(paths), _) => paths
            .iter()
            .map(|p| shown(p))
            .collect::<Vec<_>>()
            .join(", "),
        (None, None, Some(path)) => shown(path),
        (None, None, None) if t.size.is_some() => crate::target::DEFAULT_TARGET_PATH.to_string(),
        (None, None, None) => return None,
    };
    let size = match (&t.sim, t.size) {
        (None, Some(z)) => format!(" (size = {z})"),
        _ => String::new(),
    };
    Some(format!(
        "the spec's target {named}{size} is replaced by the fitted drive {}, of {} B ({}): a prediction runs on the drive fitted to the measured results, at their capacity",
        shown(&drive.path),
        drive.capacity_bytes,
        crate::units::fmt_bytes(drive.capacity_bytes)
    ))
}

/// Refuses a measured results path a prediction's `results.json` cannot record as given
/// (`prediction.measured`, plain UTF-8 text by the rule of a label): one that is not UTF-8 (read as text
/// it would name another file, as `-o` refuses one) or that holds a control or format character (attack
/// 40 F3: an ESC, a TAB or U+202E in the folder's name ran every phase, then failed the results' own
/// check).
///
/// # Errors
/// [`FitError::Bad`] naming the path (escaped) and the character.
fn recordable(measured: &Path) -> Result<(), FitError> {
    let Some(text) = measured.to_str() else {
        return Err(FitError::Bad(format!(
            "{}: the path is not valid UTF-8 (shown with its bytes escaped); a prediction records the measured results' path in its results.json, which is UTF-8, and would name another file: give a UTF-8 path; nothing was run",
            measured.as_os_str().as_encoded_bytes().escape_ascii()
        )));
    };
    match text.chars().find(|&c| crate::text::hidden_char(c)) {
        Some(c) => Err(FitError::Bad(format!(
            "{}: the path holds the {} {c:?}, which a prediction's results.json cannot record (prediction.measured is plain text, as a label is): rename or link the folder without it; nothing was run",
            crate::text::escaped(text),
            crate::results::check::char_kind(c)
        ))),
        None => Ok(()),
    }
}

/// The drive of a `--fitted` target: a simulated drive whose capacity is the measured results' (`file`,
/// whose target has `capacity` bytes), both rounded down to whole 4 KiB units as the simulator takes them.
///
/// # Errors
/// [`FitError::Bad`] when `target` is not a simulated drive, or one of another capacity.
fn fitted_drive(target: &str, file: &Path, capacity: u64) -> Result<TargetInfo, FitError> {
    let drive = crate::sim::SimParams::parse_target(target)
        .and_then(TargetInfo::sim)
        .map_err(|e| FitError::Bad(format!("--fitted: {e}")))?;
    let unit = crate::sim::params::UNIT;
    if drive.capacity_bytes != capacity / unit * unit {
        return Err(FitError::Bad(format!(
            "--fitted {target}: its capacity, {} B, disagrees with the measured results {}, whose target has {capacity} B: a prediction of them runs on a drive of their capacity (give the target `wkrun sim fit` printed for them, or leave out --fitted to fit it); nothing was run",
            drive.capacity_bytes,
            file.display()
        )));
    }
    Ok(drive)
}

/// Runs the spec of `inputs` on `target` (fitted to its measured results, or `given` with `--fitted`)
/// with the `wkrun` program `exe`, the run labelling its results as a prediction, with the warnings of the
/// fit that found `target` (`fit_warnings`; none when it was given); the results folder. The run is quiet (`-q`)
/// when `quiet`. The run's summary goes to stdout and its errors to stderr as it says them: its phases'
/// result lines, `done:`, and the `next:` line of a prediction ([`crate::run::next_line`]: the report and
/// comparison of the measurement and the prediction).
///
/// # Errors
/// [`FitError::Bad`] when `target` is not a simulated drive; [`FitError::Exit`] with the run's exit code
/// when it fails (2: bad input, nothing written; 128 + a signal's number: interrupted, partial results
/// labelled); [`FitError::Failed`] when it cannot be started or a signal ends it.
pub fn run(
    exe: &Path,
    inputs: &Inputs,
    (target, given): (&str, bool),
    fit_warnings: &[String],
    quiet: bool,
) -> Result<PathBuf, FitError> {
    if let Err(e) = crate::sim::SimParams::parse_target(target) {
        return Err(FitError::Bad(format!("--fitted: {e}")));
    }
    let _mark = super::runner::Mark::new();
    if let Some(e) = super::runner::stopped("nothing was run") {
        return Err(e);
    }
    let mut command = Command::new(exe);
    for set in &inputs.sets {
        command.arg("--set").arg(set);
    }
    // Its stderr this one's: its notes, `--set` lines, warnings and errors are said as it says them (none
    // but errors with `-q`, as `sim predict -q` asks); it leaves out its log of phases and its progress
    // itself (`--no-phase-log`).
    command
        .arg(&inputs.spec)
        .arg("--target")
        .arg(target)
        .arg("-o")
        .arg(&inputs.out)
        .arg(PREDICTED_FROM)
        .arg(&inputs.measured)
        .arg(NO_PHASE_LOG);
    for w in fit_warnings {
        command.arg(FIT_WARNING).arg(w);
    }
    if given {
        command.arg(TARGET_GIVEN);
    }
    if quiet {
        command.arg("-q");
    }
    let status = super::runner::spawn_and_wait(&mut command)?;
    match status.code() {
        Some(0) => Ok(inputs.out.clone()),
        // The run has said why on stderr.
        Some(c) => Err(FitError::Exit(u8::try_from(c).unwrap_or(1), String::new())),
        None => Err(FitError::Failed(format!(
            "the run of {} on {target} ended: {status}",
            inputs.spec.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::replaced_target;
    use crate::sim::SimParams;
    use crate::spec::TargetSection;
    use crate::target::TargetInfo;
    use crate::units::Size;

    fn section() -> TargetSection {
        TargetSection {
            path: None,
            paths: None,
            size: None,
            sim: None,
            write_cache: None,
        }
    }

    #[test]
    fn the_spec_s_own_target_is_named_with_its_size() {
        let sim = |t: &str| SimParams::parse_target(t).unwrap();
        let drive = TargetInfo::sim(sim("sim:capacity=64MiB,op=40%")).unwrap();
        let tail = format!(
            " is replaced by the fitted drive {}, of 67108864 B (64MiB): a prediction runs on the drive fitted to the measured results, at their capacity",
            drive.path.display()
        );
        let said = |t: TargetSection| replaced_target(Some(&t), &drive);
        let other = TargetSection {
            sim: Some(sim("sim:capacity=1GiB")),
            ..section()
        };
        assert_eq!(
            said(other),
            Some(format!(
                "the spec's target sim:capacity=1GiB,op=7%,dies=1 of 1073741824 B{tail}"
            ))
        );
        let two = TargetSection {
            paths: Some(vec!["a.img".into(), "b.img".into()]),
            size: Some(Size(256 << 20)),
            ..section()
        };
        assert_eq!(
            said(two),
            Some(format!(
                "the spec's target a.img, b.img (size = 256MiB){tail}"
            ))
        );
        let sized = TargetSection {
            size: Some(Size(256 << 20)),
            ..section()
        };
        assert_eq!(
            said(sized),
            Some(format!(
                "the spec's target wkrun-target.img (size = 256MiB){tail}"
            ))
        );
        // The fitted drive itself, a section that names no target, no section: nothing replaced.
        let same = TargetSection {
            sim: Some(sim("sim:capacity=64MiB,op=40%")),
            ..section()
        };
        assert_eq!(said(same), None);
        assert_eq!(said(section()), None);
        assert_eq!(replaced_target(None, &drive), None);
    }
}
