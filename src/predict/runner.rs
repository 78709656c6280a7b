//! Runs phases on a candidate simulated drive: the measured run's phases written back as a spec, run by the
//! `wkrun` program (`wkrun SPEC --target sim:... -q -o DIR`) in virtual time, and the fitted phase's
//! per-second write IOPS read from the results it writes.

use super::FitError;
use crate::results::outdir::MIN_ROOM;
use crate::sys::signal;
use crate::vocab::{Pattern, PhaseKind};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

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
    /// Recording interval, ns (workload): the fit's features are of these intervals.
    pub interval_ns: u64,
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
                "pattern = \"{pattern}\"\nread_percent = {}\nduration = \"{}ns\"\ninterval = \"{}ns\"\n",
                p.read_percent, p.duration_ns, p.interval_ns
            );
        }
    }
    s
}

/// A scratch folder for the candidate runs, removed when dropped. While it lives, a second signal is held
/// back until it is removed ([`Mark`]).
pub struct Scratch {
    dir: PathBuf,
    /// The room a simulated run of the phases needs: [`room_for`], then at least what a run took
    /// ([`Scratch::run`]).
    need: std::cell::Cell<u64>,
    _mark: Mark,
}

/// Bytes of a simulated run's output folder beside its phases: the run's own least room
/// ([`MIN_ROOM`], which it checks before it starts) and the room its results writer keeps for the last
/// `results.json` when it can ([`crate::results::write::RESERVE_MARGIN`]).
pub const RUN_ROOM: u64 = MIN_ROOM + crate::results::write::RESERVE_MARGIN;
/// Bytes a phase adds to a simulated run's output folder whatever its length: its latency histogram log's
/// start, its entry in `results.json` (twice: a new one is written beside the old) and its CSVs' headers.
/// Measured: see [`room_for`].
pub const PHASE_ROOM: u64 = 48 << 10;
/// Bytes a phase adds per interval of its series: measured 693 B (a series CSV row 116 B, a device CSV
/// row 50 B, the histogram log 444 B, `results.json` 83 B), and `results.json`'s again for its
/// temporary copy, rounded up. Measured: see [`room_for`].
pub const ROW_ROOM: u64 = 1024;

/// The room a simulated run of `phases` (as [`spec_text`] writes them: each workload at its measured
/// interval) takes in its output folder: [`RUN_ROOM`], and for each phase [`PHASE_ROOM`] and [`ROW_ROOM`]
/// per interval of a workload, one more for its last part (a fill's length is the simulated drive's, not known before a run: it counts its
/// [`PHASE_ROOM`] alone, and [`Scratch::run`] raises the need to what a run took). Measured (debug build,
/// `du -sb`) on a purge, a fill of 256 MiB (53 s simulated) and random writes of 40 s and of 600 s: 136,076
/// and 524,399 B; the 40 s run completed on a tmpfs of 480 KiB and failed on one of 400 KiB (its writer
/// keeps room for the last `results.json`), where this gives 518,144 B.
pub fn room_for(phases: &[PhaseShape]) -> u64 {
    phases.iter().fold(RUN_ROOM, |n, p| {
        let rows = match p.kind {
            PhaseKind::Workload => p
                .duration_ns
                .div_ceil(p.interval_ns.max(1))
                .saturating_add(1),
            _ => 0,
        };
        n.saturating_add(PHASE_ROOM)
            .saturating_add(rows.saturating_mul(ROW_ROOM))
    })
}

/// The temporary folder `TMPDIR` names (`tmpdir`), `/tmp` when it is unset or empty (an empty `TMPDIR` is
/// taken as unset, as mktemp(1) takes it).
fn temp_base(tmpdir: Option<std::ffi::OsString>) -> PathBuf {
    match tmpdir {
        Some(t) if !t.is_empty() => PathBuf::from(t),
        _ => PathBuf::from("/tmp"),
    }
}

impl Scratch {
    /// A new empty folder under the system's temporary folder (`TMPDIR`, else `/tmp`), which must be a
    /// folder on storage with the room a simulated run of `phases` takes ([`room_for`]).
    ///
    /// # Errors
    /// [`FitError::Bad`] when the temporary folder is not a folder, or is among the device nodes or on a
    /// pseudo file system; [`FitError::Failed`] when the folder cannot be made or has not the room.
    pub fn new(phases: &[PhaseShape]) -> Result<Scratch, FitError> {
        let base = temp_base(std::env::var_os("TMPDIR"));
        if let Some(on) = crate::target::not_storage(&base) {
            return Err(FitError::Bad(format!(
                "the temporary folder {} (TMPDIR) is on {on}, not on storage; set TMPDIR to a folder on a disk",
                base.display()
            )));
        }
        if !std::fs::metadata(&base).is_ok_and(|m| m.is_dir()) {
            return Err(FitError::Bad(format!(
                "the temporary folder {} (TMPDIR) is not a folder; set TMPDIR to a folder on a disk",
                base.display()
            )));
        }
        for n in 0..1000u32 {
            let dir = base.join(format!("wkrun-fit-{}-{n}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    let scratch = Scratch {
                        dir,
                        need: std::cell::Cell::new(room_for(phases)),
                        _mark: Mark::new(),
                    };
                    return scratch.with_room(&base);
                }
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

    /// The scratch folder when its file system has the room a simulated run takes (`need`, at least a run's
    /// own least room, [`MIN_ROOM`]): each simulated run writes its results there (a full `TMPDIR` once
    /// failed the fit at its first run with the run's own "choose another --output folder", of a folder the
    /// user never named; one of 160 KiB passed a check of 64 KiB, and the run then found no room). Removed
    /// (dropped) when it has not.
    ///
    /// # Errors
    /// [`FitError::Failed`] (a resource, exit 1) saying to set `TMPDIR` to a folder with room.
    fn with_room(self, base: &Path) -> Result<Scratch, FitError> {
        let free = self.free();
        if free >= self.need.get() {
            return Ok(self);
        }
        Err(FitError::Failed(format!(
            "{}; nothing was run",
            no_room(base, free, self.need.get())
        )))
    }

    /// Runs `spec` on `target` into `out`, a folder in this one, as [`run`] does; a run that failed and left
    /// less free than a run needs (`ran_out`) says that the temporary folder (`TMPDIR`) has too little
    /// room, and the room a run needs. A run that
    /// completed raises that room to what it took (its files, its `results.json` once more and the room
    /// its writer keeps), for the runs after it.
    ///
    /// # Errors
    /// As [`run`].
    pub fn run(&self, exe: &Path, spec: &Path, target: &str, out: &Path) -> Result<(), FitError> {
        let base = self.dir.parent().unwrap_or(&self.dir);
        // What an earlier run took may be more than was free when the fit began.
        let free = self.free();
        if free < self.need.get() {
            return Err(FitError::Failed(no_room(base, free, self.need.get())));
        }
        match run(exe, spec, target, out) {
            Ok(()) => {
                self.need.set(self.need.get().max(taken(out)));
                Ok(())
            }
            Err(FitError::Failed(m)) => Err(FitError::Failed(ran_out(
                m,
                base,
                self.free(),
                self.need.get(),
            ))),
            Err(e) => Err(e),
        }
    }

    /// Bytes free in the folder's file system (`u64::MAX` when it cannot be told).
    fn free(&self) -> u64 {
        std::fs::File::open(&self.dir)
            .and_then(|f| crate::sys::file::free_bytes(&f))
            .unwrap_or(u64::MAX)
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

/// The room the run that wrote `out` took: its files, its `results.json` once more (a new one is written
/// beside the old) and the room its writer keeps for the last one ([`crate::results::write::RESERVE_MARGIN`]).
fn taken(out: &Path) -> u64 {
    let files: u64 = std::fs::read_dir(out)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    let results = std::fs::metadata(out.join("results.json")).map_or(0, |m| m.len());
    files + results + crate::results::write::RESERVE_MARGIN
}

/// A failed run's error `m`, and when the temporary folder `base` has less than the `need` B a run takes
/// after it (`free`: it had them when the run began, so the run used them up), that it ran out of room and
/// what to set `TMPDIR` to. The free space tells, not the child's wording of ENOSPC.
fn ran_out(m: String, base: &Path, free: u64, need: u64) -> String {
    match free < need {
        true => format!("{m}; {}", no_room(base, free, need)),
        false => m,
    }
}

/// The temporary folder `base` (TMPDIR) has `free` B, less than the `need` B a
/// simulated run takes.
fn no_room(base: &Path, free: u64, need: u64) -> String {
    format!(
        "the temporary folder {} (TMPDIR) has {free} B free, less than the {need} B a simulated run of the measured phases takes (its results, series and the room it keeps); set TMPDIR to a folder with at least {need} B free",
        crate::text::escaped(&base.to_string_lossy())
    )
}

/// While it lives, a second stop signal is held back ([`signal::await_mark`]): a child `wkrun` is waited
/// for and a scratch folder removed before the process ends.
pub struct Mark(());

impl Mark {
    /// Holds a second signal back until dropped.
    pub fn new() -> Mark {
        signal::await_mark();
        Mark(())
    }
}

impl Default for Mark {
    fn default() -> Self {
        Mark::new()
    }
}

impl Drop for Mark {
    fn drop(&mut self) {
        signal::marked();
    }
}

/// How often a child `wkrun` is looked at.
const POLL: Duration = Duration::from_millis(10);
/// How long a child has, after the stop signal is passed on, before it is killed.
const GRACE: Duration = Duration::from_secs(10);

/// The error of a command stopped by a signal before it could finish (`wkrun sim fit` and `sim predict`
/// install the run's handler, [`signal::install`]): exit 128 + the signal's number; `None` when no signal
/// came.
pub fn stopped(what: &str) -> Option<FitError> {
    if !signal::STOP.load(Ordering::SeqCst) {
        return None;
    }
    let sig = signal::first().unwrap_or(libc::SIGINT);
    Some(FitError::Exit(
        u8::try_from(128 + sig).unwrap_or(130),
        format!("interrupted by {}; {what}", signal::name(sig)),
    ))
}

/// Starts `cmd` and waits for it, passing on this process's first stop signal to it (then killing it if
/// it has not ended 10 s later): no child outlives a stopped `sim fit` or `sim predict`.
///
/// # Errors
/// [`FitError::Failed`] when it cannot be started or waited for.
pub fn spawn_and_wait(cmd: &mut Command) -> Result<ExitStatus, FitError> {
    let exe = PathBuf::from(cmd.get_program());
    signal::end_child_with_parent(cmd);
    // Held back across the fork: a signal now is handled here once the child exists (and passed on to it
    // below), not by the handler's copy in the child before it execs.
    let held = signal::hold_stop_signals();
    let spawned = cmd.spawn();
    drop(held);
    let mut child =
        spawned.map_err(|e| FitError::Failed(format!("cannot run {}: {e}", exe.display())))?;
    let mut passed: Option<Instant> = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(FitError::Failed(format!(
                    "cannot wait for {}: {e}",
                    exe.display()
                )));
            }
        }
        match passed {
            None if signal::STOP.load(Ordering::SeqCst) => {
                let _ = signal::send(child.id(), signal::first().unwrap_or(libc::SIGINT));
                passed = Some(Instant::now());
            }
            Some(t) if t.elapsed() > GRACE => {
                let _ = child.kill();
            }
            _ => {}
        }
        std::thread::sleep(POLL);
    }
}

/// Runs `spec` (a file) on `target` with the `wkrun` program `exe`, into `out` (made by the run); the
/// run's error output goes to `out` with `.stderr` added.
///
/// # Errors
/// [`FitError::Failed`] with the run's `error:` line (else its last line of error output) when it does not exit 0;
/// [`FitError::Exit`] when a signal stopped this process.
pub fn run(exe: &Path, spec: &Path, target: &str, out: &Path) -> Result<(), FitError> {
    let stop = || stopped("the fit was stopped; nothing was kept");
    if let Some(e) = stop() {
        return Err(e);
    }
    let err_path = out.with_extension("stderr");
    let err_file = std::fs::File::create(&err_path)
        .map_err(|e| FitError::Failed(format!("cannot create {}: {e}", err_path.display())))?;
    let status = spawn_and_wait(
        Command::new(exe)
            .arg(spec)
            .arg("--target")
            .arg(target)
            .arg("-q")
            .arg("-o")
            .arg(out)
            .stdout(Stdio::null())
            .stderr(err_file),
    )?;
    if let Some(e) = stop() {
        return Err(e);
    }
    if !status.success() {
        let err = std::fs::read(&err_path).unwrap_or_default();
        let err = String::from_utf8_lossy(&err);
        return Err(FitError::Failed(format!(
            "the simulated run on {target} failed ({status}): {}",
            scratch_said(error_line(&err), out)
        )));
    }
    let _ = std::fs::remove_file(&err_path);
    Ok(())
}

/// A simulated run's error `line`, saying that the run's folder `out`, when the line names it (a run
/// refused by a limit names its `results.json`), was scratch: the fit's scratch folder is removed when it
/// ends, so the user cannot look there (attack 13 F11).
fn scratch_said(line: &str, out: &Path) -> String {
    let out = out.to_string_lossy();
    match line.contains(out.as_ref()) {
        true => format!(
            "{line} ({out} was the simulated run's scratch folder, removed with the fit's; nothing is left there)"
        ),
        false => line.to_string(),
    }
}

/// The line of a run's error output that says what went wrong: its first `error:` line (the lines after
/// it may be a caret under the spec's text or a help line), else its last line that is not blank.
fn error_line(err: &str) -> &str {
    let mut lines = err.lines().map(str::trim).filter(|l| !l.is_empty());
    err.lines()
        .map(str::trim)
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim_start())
        .or_else(|| lines.next_back())
        .unwrap_or("")
}

/// Per-second write IOPS of phase `phase` in the results folder `dir` (whole intervals only), and the write
/// rates of the phases before it ([`super::replay::rates_before`]).
///
/// # Errors
/// [`FitError::Failed`] when the results cannot be read or lack the phase.
pub fn write_series(
    dir: &Path,
    phase: &str,
) -> Result<(Vec<f64>, Vec<super::replay::Rate>), FitError> {
    let run = crate::report::runs::load_run(&dir.join("results.json"))
        .map_err(|e| FitError::Failed(e.to_string()))?;
    let i = run
        .results
        .phases
        .iter()
        .position(|p| p.name == phase)
        .ok_or_else(|| FitError::Failed(format!("{}: no phase {phase:?}", dir.display())))?;
    let rows = run.series[i].as_deref().unwrap_or(&[]);
    Ok((
        whole_seconds(rows),
        super::replay::rates_before(&run.results, i),
    ))
}

/// The write IOPS of the whole intervals of `rows`.
pub fn whole_seconds(rows: &[crate::results::series_csv::SeriesRow]) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.partial == 0)
        .map(|r| r[crate::vocab::Direction::Write].iops)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{PhaseShape, ROW_ROOM, no_room, ran_out, room_for, scratch_said, temp_base};
    use crate::vocab::{Pattern, PhaseKind};
    use std::path::Path;

    #[test]
    fn the_room_counts_a_workload_s_rows_at_its_interval() {
        let phase = |kind, duration_ns, interval_ns| PhaseShape {
            name: "w".into(),
            kind,
            offset: 0,
            span: 1 << 20,
            block_size: 4096,
            queue_depth: 1,
            passes: 1,
            pattern: Pattern::Random,
            read_percent: 0,
            duration_ns,
            interval_ns,
            seed: 1,
        };
        // A purge, a fill and 40 s of writes: 64 KiB + 256 KiB for the run, 48 KiB a phase, 1 KiB a row.
        let at = |interval_ns| {
            room_for(&[
                phase(PhaseKind::Erase, 0, 1_000_000_000),
                phase(PhaseKind::Fill, 0, interval_ns),
                phase(PhaseKind::Workload, 40_000_000_000, interval_ns),
            ])
        };
        assert_eq!(at(1_000_000_000), 65_536 + 262_144 + 3 * 49_152 + 41 * 1024);
        assert_eq!(at(1_000_000_000), 517_120);
        // At 100 ms the 40 s write 400 rows and a last part: 401 KiB.
        assert_eq!(
            at(100_000_000),
            65_536 + 262_144 + 3 * 49_152 + 401 * ROW_ROOM
        );
        assert_eq!(at(100_000_000), 885_760);
        // A duration not a whole number of intervals: its last part is a row.
        assert_eq!(
            room_for(&[phase(PhaseKind::Workload, 250_000_000, 100_000_000)]),
            65_536 + 262_144 + 49_152 + 4 * 1024
        );
    }

    #[test]
    fn a_failed_run_is_said_to_have_run_out_of_room_by_the_free_space_after_it() {
        let m = "the simulated run on sim:x failed (exit status: 1): cannot write".to_string();
        assert_eq!(
            ran_out(m.clone(), Path::new("/t"), 4096, 517_120),
            format!(
                "{m}; the temporary folder /t (TMPDIR) has 4096 B free, less than the 517120 B a simulated run of the measured phases takes (its results, series and the room it keeps); set TMPDIR to a folder with at least 517120 B free"
            )
        );
        assert_eq!(ran_out(m.clone(), Path::new("/t"), 517_120, 517_120), m);
    }

    #[test]
    fn a_run_without_room_names_tmpdir_and_the_room() {
        assert_eq!(
            no_room(Path::new("/t\nx"), 0, 517_120),
            "the temporary folder /t\\nx (TMPDIR) has 0 B free, less than the 517120 B a simulated run of the measured phases takes (its results, series and the room it keeps); set TMPDIR to a folder with at least 517120 B free"
        );
        assert!(no_room(Path::new("/t"), 163_840, 517_120).starts_with(
            "the temporary folder /t (TMPDIR) has 163840 B free, less than the 517120 B "
        ));
    }

    #[test]
    fn a_run_s_error_naming_its_scratch_folder_says_it_is_removed() {
        let out = Path::new("/tmp/wkrun-fit-7-0/run1");
        assert_eq!(
            scratch_said(
                "a run needs up to 8 open files; the run did not start: /tmp/wkrun-fit-7-0/run1/results.json says \"failed\"",
                out
            ),
            "a run needs up to 8 open files; the run did not start: /tmp/wkrun-fit-7-0/run1/results.json says \"failed\" (/tmp/wkrun-fit-7-0/run1 was the simulated run's scratch folder, removed with the fit's; nothing is left there)"
        );
        assert_eq!(scratch_said("cannot write", out), "cannot write");
    }

    #[test]
    fn an_empty_tmpdir_is_taken_as_unset() {
        assert_eq!(temp_base(None), Path::new("/tmp"));
        assert_eq!(temp_base(Some("".into())), Path::new("/tmp"));
        assert_eq!(temp_base(Some("/var/x".into())), Path::new("/var/x"));
    }
}
