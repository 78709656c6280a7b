//! The results of a run a signal stops say `interrupted` a few milliseconds after the signal, before the
//! run has stopped its I/O, drained its phase and written its own last results (which can take longer than
//! the 200 ms after which a second signal ends the process: under load it did, leaving `running` with no
//! phases). A thread beside the run watches the stop flag and has the results writer, shared with the run,
//! write the results as they stand with the status `interrupted`; a second signal is held back until then
//! ([`crate::sys::signal::await_mark`]).

use super::Observer;
use crate::results::Results;
use crate::results::write::{ResultsWriter, WriteError};
use crate::sys::signal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How often the watcher looks at the stop flag.
const POLL: Duration = Duration::from_millis(5);

/// The results writer shared by the run and the watcher, as the run's observer of its results.
pub(super) struct Shared<'a>(pub &'a Mutex<ResultsWriter>);

impl Observer for Shared<'_> {
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        lock(self.0).update(results)
    }
    fn first_recorded_everywhere(&mut self) {
        lock(self.0).keep_room_now();
    }
}

/// The writer, locked (still usable after a panic of another holder).
pub(super) fn lock(writer: &Mutex<ResultsWriter>) -> MutexGuard<'_, ResultsWriter> {
    writer.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `run` with a watcher beside it that marks `writer`'s results interrupted as soon as `stop` is
/// set ([`ResultsWriter::mark_interrupted`]). When no thread can be made for it (a resource limit), `run`
/// runs alone, as before: a second signal then ends the process at once.
pub(super) fn watching<T>(
    writer: &Mutex<ResultsWriter>,
    stop: &AtomicBool,
    run: impl FnOnce() -> T,
) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = std::thread::Builder::new()
            .name("wkrun-interrupt".into())
            .stack_size(64 << 10)
            .spawn_scoped(s, || watch(writer, stop, &done));
        let out = run();
        done.store(true, Ordering::SeqCst);
        if let Ok(w) = watcher {
            let _ = w.join();
        }
        out
    })
}

/// Waits for `stop` (or `done`), marks the results, then lets a held second signal end the process.
fn watch(writer: &Mutex<ResultsWriter>, stop: &AtomicBool, done: &AtomicBool) {
    signal::await_mark();
    while !done.load(Ordering::SeqCst) {
        if stop.load(Ordering::SeqCst) {
            // Stopped by stdout that does not take the summary: the run ends failed, not interrupted.
            if super::progress::stdout_error().is_some() {
                break;
            }
            let sig = signal::first().map(signal::name);
            // Best effort: the run writes its own last results after this, and says what failed.
            let _ = lock(writer).mark_interrupted(sig, super::now_rfc3339());
            break;
        }
        std::thread::sleep(POLL);
    }
    signal::marked();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{phase, results};
    use crate::results::Status;
    use crate::results::outdir::OutDir;
    use crate::target::TargetKind;
    use std::path::Path;
    use std::time::Instant;

    /// `results.json` in `dir`: its status and number of phases.
    fn on_disk(dir: &Path) -> (String, usize) {
        let text = std::fs::read(dir.join("results.json")).unwrap();
        let r: serde_json::Value = serde_json::from_slice(&text).unwrap();
        let phases = r["phases"].as_array().map_or(0, Vec::len);
        (r["status"].as_str().unwrap_or_default().to_string(), phases)
    }

    /// Once the stop flag is set, `results.json` says `interrupted` (with the phases recorded so far) while
    /// the run is still going, before it writes its own last results; a write of the run still going says
    /// it too; the run's last write stands.
    #[test]
    fn the_results_say_interrupted_before_the_run_ends() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("o");
        let out = OutDir::for_run(&dir).unwrap();
        let writer = Mutex::new(ResultsWriter::for_run(&out));
        let stop = AtomicBool::new(false);
        let mut r = results(
            "s",
            "2026-01-01T00:00:00.000Z",
            "/t",
            TargetKind::File,
            vec![phase("a", 0)],
        );
        r.status = Status::Running;
        r.finished_at = None;
        let seen = watching(&writer, &stop, || {
            Shared(&writer).results(&r).unwrap();
            assert_eq!(on_disk(&dir), ("running".into(), 1));
            stop.store(true, Ordering::SeqCst);
            // The run drains its phase: meanwhile the watcher writes.
            let deadline = Instant::now() + Duration::from_secs(10);
            while on_disk(&dir).0 == "running" && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            let seen = on_disk(&dir);
            r.phases.push(phase("b", 1));
            lock(&writer).write(&r).unwrap();
            (seen, on_disk(&dir))
        });
        assert_eq!(seen, (("interrupted".into(), 1), ("interrupted".into(), 2)));
        r.status = Status::Interrupted;
        r.phases.push(phase("c", 2));
        Shared(&writer).results(&r).unwrap();
        assert_eq!(on_disk(&dir), ("interrupted".into(), 3));
    }
}
