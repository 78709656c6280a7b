//! Runs phases on a candidate simulated drive: the measured run's phases written back as a spec, run by the
//! `wkrun` program (`wkrun SPEC --target sim:... -q -o DIR`) in virtual time, and the fitted phase's
//! per-second write IOPS read from the results it writes.

use super::FitError;
use crate::vocab::{Pattern, PhaseKind};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a measured phase did, enough to run it again on a simulated drive.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseShape {
    /// The phase's name.
    pub name: String,
    /// Erase, fill or workload.
    pub kind: PhaseKind,
    /// First byte of the span.
    pub offset: u64,
    /// Bytes of the span.
    pub span: u64,
    /// Bytes per I/O (fill and workload).
    pub block_size: u64,
    /// I/Os in flight (fill and workload).
    pub queue_depth: u32,
    /// Passes over the span (fill).
    pub passes: u32,
    /// Offset order (workload).
    pub pattern: Pattern,
    /// Share of reads, percent (workload).
    pub read_percent: u8,
    /// Time bound, ns (workload).
    pub duration_ns: u64,
    /// Seed of the offsets.
    pub seed: u64,
}

/// The spec that runs `phases` in order, named `name`.
pub fn spec_text(name: &str, phases: &[PhaseShape]) -> String {
    let mut s = format!("format = 1\n[spec]\nname = {name:?}\nversion = \"1\"\n");
    for p in phases {
        let _ = write!(
            s,
            "[[phase]]\nname = {:?}\nkind = \"{}\"\noffset = \"{}B\"\nspan = \"{}B\"\n",
            p.name,
            p.kind.as_str(),
            p.offset,
            p.span
        );
        if p.kind == PhaseKind::Erase {
            continue;
        }
        let _ = write!(
            s,
            "block_size = \"{}B\"\nqueue_depth = {}\nseed = {}\n",
            p.block_size, p.queue_depth, p.seed
        );
        if p.kind == PhaseKind::Fill {
            let _ = writeln!(s, "passes = {}", p.passes);
        } else {
            let pattern = match p.pattern {
                Pattern::Random => "random",
                Pattern::Sequential => "sequential",
            };
            let _ = write!(
                s,
                "pattern = \"{pattern}\"\nread_percent = {}\nduration = \"{}ns\"\n",
                p.read_percent, p.duration_ns
            );
        }
    }
    s
}

/// A scratch folder for the candidate runs, removed when dropped.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A new empty folder under the system's temporary folder.
    ///
    /// # Errors
    /// [`FitError::Failed`] when it cannot be made.
    pub fn new() -> Result<Scratch, FitError> {
        let base = std::env::temp_dir();
        for n in 0..1000u32 {
            let dir = base.join(format!("wkrun-fit-{}-{n}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Scratch { dir }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(FitError::Failed(format!(
                        "cannot make a scratch folder in {}: {e}",
                        base.display()
                    )));
                }
            }
        }
        Err(FitError::Failed("no free scratch folder name".into()))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `spec` (a file) on `target` with the `wkrun` program `exe`, into `out` (made by the run).
///
/// # Errors
/// [`FitError::Failed`] with the run's last line of error output when it does not exit 0.
pub fn run(exe: &Path, spec: &Path, target: &str, out: &Path) -> Result<(), FitError> {
    let o = Command::new(exe)
        .arg(spec)
        .arg("--target")
        .arg(target)
        .arg("-q")
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| FitError::Failed(format!("cannot run {}: {e}", exe.display())))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(FitError::Failed(format!(
            "the simulated run on {target} failed ({}): {last}",
            o.status
        )));
    }
    Ok(())
}

/// Per-second write IOPS of phase `phase` in the results folder `dir` (whole intervals only).
///
/// # Errors
/// [`FitError::Failed`] when the results cannot be read or lack the phase.
pub fn write_series(dir: &Path, phase: &str) -> Result<Vec<f64>, FitError> {
    let run = crate::report::runs::load_run(&dir.join("results.json"))
        .map_err(|e| FitError::Failed(e.to_string()))?;
    let i = run
        .results
        .phases
        .iter()
        .position(|p| p.name == phase)
        .ok_or_else(|| FitError::Failed(format!("{}: no phase {phase:?}", dir.display())))?;
    let rows = run.series[i].as_deref().unwrap_or(&[]);
    Ok(whole_seconds(rows))
}

/// The write IOPS of the whole intervals of `rows`.
pub fn whole_seconds(rows: &[crate::results::series_csv::SeriesRow]) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.partial == 0)
        .map(|r| r[crate::vocab::Direction::Write].iops)
        .collect()
}
