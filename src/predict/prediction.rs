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
    let file = if measured.is_dir() {
        measured.join("results.json")
    } else {
        measured.to_path_buf()
    };
    let capacity = crate::report::runs::load_run(&file)
        .map_err(|e| FitError::Bad(e.to_string()))?
        .results
        .target
        .capacity_bytes;
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

/// Runs the spec of `inputs` on `target` (fitted to its measured results) with the `wkrun` program `exe`,
/// the run labelling its results as a prediction; the results folder. The run's summary goes to stdout
/// and its errors to stderr as it says them: its phases' result lines, `done:`, and the `next:` line of a
/// prediction ([`crate::run::next_line`]: the report and comparison of the measurement and the
/// prediction).
///
/// # Errors
/// [`FitError::Bad`] when `target` is not a simulated drive; [`FitError::Exit`] with the run's exit code
/// when it fails (2: bad input, nothing written; 128 + a signal's number: interrupted, partial results
/// labelled); [`FitError::Failed`] when it cannot be started or a signal ends it.
pub fn run(exe: &Path, inputs: &Inputs, target: &str) -> Result<PathBuf, FitError> {
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
    // Not quiet: its notes, `--set` lines, warnings and errors are passed on, its progress left out.
    let (from_child, to_us) = std::io::pipe()
        .map_err(|e| FitError::Failed(format!("cannot make a pipe for the run's messages: {e}")))?;
    command
        .arg(&inputs.spec)
        .arg("--target")
        .arg(target)
        .arg("-o")
        .arg(&inputs.out)
        .arg(PREDICTED_FROM)
        .arg(&inputs.measured)
        .stderr(to_us);
    let passing = std::thread::spawn(move || {
        let mut err = std::io::stderr();
        pass_on(std::io::BufReader::new(from_child), &mut err)
    });
    let status = super::runner::spawn_and_wait(&mut command);
    // The pipe's writing end the command holds, closed so that the reader sees the end.
    drop(command);
    let _ = passing.join();
    let status = status?;
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

/// Passes on from a run's error output the lines a user should read ([`passed_on`]) to `out`; the rest
/// (the run's log of phases, its progress) is dropped.
fn pass_on(from: impl std::io::BufRead, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut keep = false;
    for line in from.lines() {
        let line = line?;
        keep = passed_on(&line, keep);
        if keep {
            crate::run::progress::write_line(out, &line)?;
        }
    }
    Ok(())
}

/// Whether a line of a run's error output is passed on by `wkrun sim predict`: a note, a `--set` line, a
/// warning or an error, and the indented lines that continue one (`previous`: whether the line before
/// was passed on).
fn passed_on(line: &str, previous: bool) -> bool {
    const SAID: [&str; 4] = ["note: ", "warning: ", "--set ", "error"];
    SAID.iter().any(|s| line.starts_with(s)) || (previous && line.starts_with(' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The newcomer's `sim predict --fitted` said nothing on stderr: the run's `--set` line, notes,
    /// warnings and errors (with their indented lines) are passed on; its log of phases is not.
    #[test]
    fn a_predictions_notes_and_warnings_are_passed_on() {
        let run = "--set duration=10s: phases steady\nnote: sim:capacity=1GiB runs in virtual time\n1 phase, numbered 0\nphase 0/1 steady: workload\n  indented log line\nwarning: phase steady: no ramp: add ramp = \"10s\"\nerror: s.toml:3:1: bad\n  3 | x = 1\ndone: out\n";
        let mut out = Vec::new();
        pass_on(run.as_bytes(), &mut out).expect("written");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "--set duration=10s: phases steady\nnote: sim:capacity=1GiB runs in virtual time\nwarning: phase steady: no ramp: add ramp = \"10s\"\nerror: s.toml:3:1: bad\n  3 | x = 1\n"
        );
    }
}
