//! Writing `results.json`: serialized from the typed results and written atomically (a new temporary file,
//! fsync, rename; [`OutDir::replace`]), so a reader or a crash never sees a torn file.
//!
//! The file is not validated against the results schema as it is written: a bug in the schema or in the
//! types would then stop the run and lose its results, possibly of hours. The types are the schema's
//! source (`wkrun schema result` is generated from them), and the tests keep the two in step: every
//! `results.json` the integration tests produce is validated against the committed
//! `schemas/result.schema.json` and read back into the `deny_unknown_fields` types.
//!
//! A run only appends phases, so the cost of a write does not grow with the phases before: each phase is
//! turned into text once, when it is first written, and every write serializes only the rest of the
//! document (the run without its phases). During a run ([`ResultsWriter::update`]), a rewrite is skipped
//! while the last one ended less than [`PACE`] times its own duration ago, so that rewriting takes at most
//! about 1/[`PACE`] of a run of many short phases; the run's first and last states are always written.
//!
//! A full disk must not keep a run's last state from being written (a file left saying `running`): a run's
//! writer ([`ResultsWriter::for_run`]) keeps room for it in the folder, a [`Reserve`] file ([`RESERVE`]) as
//! large as the document would be now plus a margin ([`reserve_for`]), grown as phases are added, and
//! removed just before the last write (a status other than `running`); on a file system without that much
//! room, the document and [`RESERVE_SLACK`]. Should the last document still not
//! fit (a phase's result larger than the margin), the phases written before are written with the status
//! `failed` and an error saying what is missing ([`WriteError::Shortened`]). With no room kept at all (the
//! first document filled the file system), the last write removes the old version to make room for the new.
//! A first document that finds no room beside the reserve just made (several targets' writers sharing one
//! file system) gives the reserve back: the run has its file, if not its room.

use super::outdir::{OutDir, Reserve};
use super::{Results, Status};
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A rewrite during a run waits until this many times the last rewrite's duration has passed since it
/// ended: rewriting results.json takes at most about 1/20 of the run.
pub const PACE: u32 = 20;

/// The file that keeps room for a run's last `results.json` while the run goes on; removed before that
/// write (left behind only by a process killed at once).
pub const RESERVE: &str = "results.json.reserve";

/// Room kept besides the document itself: at least this much, and twice the largest phase.
pub const RESERVE_MARGIN: u64 = 256 << 10;

/// Room kept besides the document when the file system has not [`reserve_for`]'s: enough for the last
/// status and an error message, with the phases written before.
pub const RESERVE_SLACK: u64 = 16 << 10;

/// The room to keep for a document now `doc` bytes long whose largest phase is `max_phase` bytes: the
/// document, plus [`RESERVE_MARGIN`] or twice its largest phase, whichever is more (a phase stopped by a
/// failure and its error are yet to be added).
pub fn reserve_for(doc: u64, max_phase: u64) -> u64 {
    doc.saturating_add(RESERVE_MARGIN.max(max_phase.saturating_mul(2)))
}

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The results could not be turned into JSON: a bug in wkrun.
    #[error("results cannot be serialized (a wkrun bug): {0}")]
    Invalid(String),
    /// The file could not be written.
    #[error(
        "cannot write {path}: {source}{}",
        crate::sys::limits::errno_note(source)
    )]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The last document did not fit: the file holds the first phases that fit, `failed`, and an error
    /// naming the phases missing.
    #[error(
        "cannot write {} in full: {source}{}; {}",
        path.display(),
        crate::sys::limits::errno_note(source),
        match kept {
            0 => "it holds the run's status, failed, and this error, without any phase's results".to_string(),
            1 => "it holds the results of phase 0, not of the phases after it".to_string(),
            k => format!("it holds the results of the first {k} phases (0 to {}), not of the rest", k - 1),
        }
    )]
    Shortened {
        /// The file.
        path: PathBuf,
        /// The OS error of the full document.
        source: io::Error,
        /// Phases the file holds.
        kept: usize,
    },
}

impl WriteError {
    /// Whether `msg`, a run's error, is a failure to write this error's file (`cannot write PATH: ...`):
    /// then this error, the failure of the run's last write of the same file, says all of it.
    pub fn same_file(&self, msg: &str) -> bool {
        match self {
            WriteError::Io { path, .. } | WriteError::Shortened { path, .. } => {
                msg.starts_with(&format!("cannot write {}: ", path.display()))
            }
            WriteError::Invalid(_) => false,
        }
    }
}

/// What a [`ResultsWriter`] has done: the work of a run is linear in its phases when `phases_checked` is
/// the number of phases and `documents_checked` the number of writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Times `results.json` was written.
    pub writes: u64,
    /// Phases turned into text (each once).
    pub phases_serialized: u64,
}

/// Writes `results.json` into one folder.
pub struct ResultsWriter {
    dir: OutDir,
    path: PathBuf,
    /// The phases seen so far, as pretty JSON indented for their place in the document.
    phases: Vec<String>,
    counts: Counts,
    /// When the last write ended, and how long it took.
    last: Option<(Instant, Duration)>,
    /// Whether this writer keeps room for the last write ([`ResultsWriter::for_run`]).
    reserving: bool,
    /// Whether that room is still to be made: at the first write, or when asked
    /// ([`ResultsWriter::defer_room`], [`ResultsWriter::keep_room_now`]).
    room_pending: bool,
    /// Whether the room waits to be asked for ([`ResultsWriter::keep_room_now`]).
    room_deferred: bool,
    /// The room kept: made at the first write, `None` once released (or when it could not be made).
    reserve: Option<Reserve>,
    /// Phases in the file as last written.
    on_disk: usize,
    /// Bytes of the phases' text, and of the largest.
    phase_bytes: u64,
    max_phase: u64,
    /// Bytes of the document without its phases, as last serialized.
    envelope_bytes: u64,
    /// Bytes of the document before its list of phases, as last serialized.
    head_bytes: u64,
    /// The results last given to [`ResultsWriter::update`], without their phases, and how many phases
    /// they had.
    latest: Option<(Results, usize)>,
    /// The signal that stopped the run and when, once [`ResultsWriter::mark_interrupted`] said so.
    marked: Option<(Option<String>, String)>,
}

impl ResultsWriter {
    /// A writer for `results.json` in `dir`.
    pub fn new(dir: &OutDir) -> ResultsWriter {
        ResultsWriter {
            dir: dir.clone(),
            path: dir.join("results.json"),
            phases: Vec::new(),
            counts: Counts::default(),
            last: None,
            reserving: false,
            room_pending: false,
            room_deferred: false,
            reserve: None,
            on_disk: 0,
            phase_bytes: 0,
            max_phase: 0,
            envelope_bytes: 0,
            head_bytes: 0,
            latest: None,
            marked: None,
        }
    }

    /// A writer for a run's `results.json` in `dir` that keeps room for the run's last write
    /// ([`RESERVE`]).
    pub fn for_run(dir: &OutDir) -> ResultsWriter {
        ResultsWriter {
            reserving: true,
            room_pending: true,
            ..ResultsWriter::new(dir)
        }
    }

    /// Makes the room for the last write only when asked ([`ResultsWriter::keep_room_now`]), not at the
    /// first write: the runs of several targets sharing a file system each write their first document
    /// before any of them keeps room, so that one's room cannot take another's first file.
    pub fn defer_room(&mut self) {
        self.room_deferred = true;
    }

    /// Makes the room deferred by [`ResultsWriter::defer_room`] now (once the run's first document is
    /// written).
    pub fn keep_room_now(&mut self) {
        self.room_deferred = false;
        self.keep_room();
    }

    /// Bytes of room kept now (0 before the first write, after the last, or when none could be made).
    pub fn reserved(&self) -> u64 {
        self.reserve.as_ref().map_or(0, Reserve::len)
    }

    /// Keeps room for the document as it would be now, made at the first call (not while deferred); best
    /// effort: when the file system has no room for it, the reserve keeps what it had.
    fn keep_room(&mut self) {
        if !self.reserving {
            return;
        }
        if self.room_deferred {
            return;
        }
        if self.room_pending {
            self.room_pending = false;
            self.reserve = self.dir.reserve(RESERVE).ok();
        }
        let doc = self.envelope_bytes + self.phase_bytes;
        if let Some(r) = &mut self.reserve {
            // Short of the whole margin, at least the document with its last status and error.
            let _ = r
                .grow(reserve_for(doc, self.max_phase))
                .or_else(|_| r.grow(doc + RESERVE_SLACK));
        }
    }

    /// Gives the room kept back to the file system (before the last write, or when the run ends).
    pub fn release(&mut self) {
        if let Some(mut r) = self.reserve.take() {
            r.release();
        }
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the writer has done so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Atomically replaces `results.json`. The phases of `results` are taken as those of the last write
    /// with new ones appended: a phase already written is not read again.
    ///
    /// # Errors
    /// [`WriteError`] when the document cannot be serialized or the file cannot be written.
    pub fn write(&mut self, results: &Results) -> Result<(), WriteError> {
        let started = Instant::now();
        self.add_phases(results)?;
        let last = results.status != Status::Running;
        if last {
            self.release();
        } else if self.counts.writes == 0 {
            self.keep_room();
        }
        let n = results.phases.len();
        let envelope = to_value(&self.as_marked(results.envelope()))?;
        let text = assemble(&envelope, &self.phases[..n])?;
        let replaced = match (last && self.reserving, self.counts.writes) {
            (true, _) => self.replace_last(&text),
            (false, 0) => self.replace_first(&text),
            (false, _) => self.dir.replace("results.json", &text, true),
        };
        match replaced {
            Ok(()) => {}
            Err(e) if self.reserving && last && no_space(&e) && self.on_disk < n => {
                return self.shortened(results, crate::sys::limits::explain_file_size(e));
            }
            Err(source) => {
                return Err(WriteError::Io {
                    path: self.path.clone(),
                    source: crate::sys::limits::explain_file_size(source),
                });
            }
        }
        self.envelope_bytes = (text.len() as u64).saturating_sub(self.phase_bytes);
        self.head_bytes = (text.len() - list_bytes(&self.phases[..n])) as u64;
        self.on_disk = n;
        self.counts.writes += 1;
        if !last {
            self.keep_room();
        }
        let now = Instant::now();
        self.last = Some((now, now - started));
        Ok(())
    }

    /// The last document did not fit (`full`): writes the phases written before with the status `failed`
    /// and an error naming what is missing, which the room released makes fit; then, of the phases after
    /// them, as many as still fit (found by halving; a file-size limit of 100000 B held 0 of 41 phases
    /// when the last write before had come before any phase, though it had room for 10).
    fn shortened(&mut self, results: &Results, full: io::Error) -> Result<(), WriteError> {
        let n = results.phases.len();
        let text = |kept: usize| -> Result<Vec<u8>, WriteError> {
            let mut envelope = results.envelope();
            let missing = match n - kept {
                1 => format!("phase {kept}"),
                k => format!("phases {kept} to {}", kept + k - 1),
            };
            let note = format!(
                "results.json could not be written in full ({full}): the result of {missing} is missing"
            );
            envelope.error = Some(match envelope.error.take() {
                Some(e) => format!("{e}; {note}"),
                None => note,
            });
            envelope.status = Status::Failed;
            assemble(&to_value(&envelope)?, &self.phases[..kept])
        };
        let io = |source| WriteError::Io {
            path: self.path.clone(),
            source,
        };
        let (mut kept, mut most) = (self.on_disk, n - 1);
        if let Err(e) = self.replace_last(&text(kept)?) {
            if !no_space(&e) || kept == 0 {
                return Err(io(e));
            }
            // The error note made the phases written before too long for the limit (3 in 10 runs of the
            // limits test under load ended with no results.json): from none, as many as fit.
            (kept, most) = (0, kept - 1);
            self.dir
                .replace("results.json", &text(0)?, true)
                .map_err(io)?;
        }
        self.counts.writes += 1;
        while kept < most {
            let mid = kept + (most - kept).div_ceil(2);
            match self.dir.replace("results.json", &text(mid)?, true) {
                Ok(()) => kept = mid,
                Err(e) if no_space(&e) => most = mid - 1,
                Err(_) => break,
            }
            self.counts.writes += 1;
        }
        Err(WriteError::Shortened {
            path: self.path.clone(),
            source: full,
            kept,
        })
    }

    /// The run's last write of `results.json`: atomically, as every write; when the file system has no room
    /// for the new file beside the old one (a folder too small even for the room kept: none could be
    /// made), the old version is removed first to make that room, then the new one written, so that the
    /// file does not stay saying `running`. A reader may then find no file for that moment, never a torn
    /// one.
    fn replace_last(&self, text: &[u8]) -> io::Result<()> {
        match self.dir.replace("results.json", text, true) {
            Err(e) if no_space(&e) && self.counts.writes > 0 => {
                // The old file's room given back; one a failed write already took away is not an error
                // (under a file-size limit it made the run end with no results.json: "cannot write
                // results.json: No such file or directory", 3 in 10 runs of the limits test under load).
                match self.dir.remove("results.json") {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
                self.dir.replace("results.json", text, true)
            }
            r => r,
        }
    }

    /// The run's first write of `results.json`: when the room just kept for the run's last write leaves
    /// none for the document itself (other targets' writers took the rest of a shared file system), that
    /// room is given back and the write tried again: a run must have its file before it has a reserve.
    fn replace_first(&mut self, text: &[u8]) -> io::Result<()> {
        match self.dir.replace("results.json", text, true) {
            Err(e) if no_space(&e) && self.reserve.is_some() => {
                self.release();
                self.dir.replace("results.json", text, true)
            }
            r => r,
        }
    }

    /// Keeps the text of the phases of `results` not seen before.
    fn add_phases(&mut self, results: &Results) -> Result<(), WriteError> {
        for p in results.phases.iter().skip(self.phases.len()) {
            let value = to_value(p)?;
            self.counts.phases_serialized += 1;
            let text = indented(&value)?;
            // With the ",\n" that separates it from the next.
            let len = text.len() as u64 + 2;
            self.phase_bytes += len;
            self.max_phase = self.max_phase.max(len);
            self.phases.push(text);
        }
        Ok(())
    }

    /// The bytes `results.json` takes with the phases of `results` (each turned into text now, once, as
    /// [`ResultsWriter::update`] would), the run's own fields as last written: what the run accounts its
    /// results by ([`crate::plan::results_size::account`]).
    ///
    /// # Errors
    /// When a phase cannot be serialized (a wkrun bug).
    pub fn bytes_with(&mut self, results: &Results) -> Result<u64, WriteError> {
        self.add_phases(results)?;
        let n = results.phases.len().min(self.phases.len());
        Ok(self.head_bytes + list_bytes(&self.phases[..n]) as u64)
    }

    /// Forgets the text of the phases from the `n`th on, turned into text by
    /// [`ResultsWriter::bytes_with`] but not to be written (a phase whose results would pass the readers'
    /// limit). Phases already on disk stay.
    pub fn forget_from(&mut self, n: usize) {
        let n = n.max(self.on_disk);
        self.phases.truncate(n);
        self.phase_bytes = self.phases.iter().map(|p| p.len() as u64 + 2).sum();
        self.max_phase = self
            .phases
            .iter()
            .map(|p| p.len() as u64 + 2)
            .max()
            .unwrap_or(0);
    }

    /// The results changed during a run: written now when the run has ended or is starting, or when the
    /// last write is far enough behind ([`due`]); otherwise only the new phases are turned into text, and
    /// written with a later state.
    ///
    /// # Errors
    /// As [`ResultsWriter::write`].
    pub fn update(&mut self, results: &Results) -> Result<(), WriteError> {
        self.latest = Some((results.envelope(), results.phases.len()));
        let write = results.status != Status::Running
            || self.last.is_none_or(|(end, cost)| due(end.elapsed(), cost));
        if write {
            self.write(results)
        } else {
            self.add_phases(results)?;
            self.keep_room();
            Ok(())
        }
    }
}

impl ResultsWriter {
    /// Says at once that a signal stopped the run (`signal`, at `at`, RFC 3339): the results last given to
    /// [`ResultsWriter::update`], with the status `interrupted`, written now, before the run has drained
    /// its phase and written its own last results (a second signal may end the process before that); the
    /// later writes of the run while it still says `running` say `interrupted` too. Nothing is written
    /// before the first results or after the last.
    ///
    /// # Errors
    /// As [`ResultsWriter::write`].
    pub fn mark_interrupted(
        &mut self,
        signal: Option<String>,
        at: String,
    ) -> Result<(), WriteError> {
        let Some((latest, n)) = &self.latest else {
            return Ok(());
        };
        if latest.status != Status::Running || self.marked.is_some() {
            return Ok(());
        }
        self.marked = Some((signal, at));
        let n = *n;
        let envelope = to_value(&self.as_marked(latest.envelope()))?;
        let text = assemble(&envelope, &self.phases[..n])?;
        self.dir
            .replace("results.json", &text, true)
            .map_err(|source| WriteError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.on_disk = n;
        self.counts.writes += 1;
        Ok(())
    }

    /// `envelope` as written: a run still `running` after [`ResultsWriter::mark_interrupted`] is
    /// `interrupted`, by its signal.
    fn as_marked(&self, mut envelope: Results) -> Results {
        if let Some((signal, at)) = &self.marked
            && envelope.status == Status::Running
        {
            envelope.status = Status::Interrupted;
            envelope.signal = signal.clone();
            envelope.finished_at = Some(at.clone());
        }
        envelope
    }
}

/// Whether a rewrite is due, `since` after the last one ended, which took `cost`: once [`PACE`] times its
/// duration has passed.
pub fn due(since: Duration, cost: Duration) -> bool {
    since >= cost.saturating_mul(PACE)
}

/// Whether `e` says the file system is full (or the user's quota is), or the file reached the file-size
/// limit (RLIMIT_FSIZE): a smaller document may still be written.
fn no_space(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOSPC | libc::EDQUOT | libc::EFBIG)
    )
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, WriteError> {
    serde_json::to_value(v).map_err(|e| WriteError::Invalid(e.to_string()))
}

/// A phase as pretty JSON at its depth in the document: every line indented by four spaces (JSON strings
/// hold no raw line breaks).
fn indented(value: &Value) -> Result<String, WriteError> {
    let text = super::pretty::to_vec(value)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| WriteError::Invalid(e.to_string()))?;
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("    ");
        out.push_str(line);
    }
    Ok(out)
}

/// Bytes of the list of `phases` as [`assemble`] writes it, from its `[` (or the `[]` of no phases) to the
/// document's end.
fn list_bytes(phases: &[String]) -> usize {
    match phases {
        [] => "[]\n}\n".len(),
        _ => phases.iter().map(|p| p.len() + 2).sum::<usize>() + "\n  ]\n}\n".len(),
    }
}

/// The pretty document: the envelope (whose last field is the empty `phases`) with the phases' text in
/// place of `[]`; the same bytes as the whole document printed pretty, with a final line break.
fn assemble(envelope: &Value, phases: &[String]) -> Result<Vec<u8>, WriteError> {
    let head = super::pretty::to_vec(envelope).map_err(|e| WriteError::Invalid(e.to_string()))?;
    const TAIL: &[u8] = b"\"phases\": []\n}";
    let Some(cut) = head.len().checked_sub(4).filter(|_| head.ends_with(TAIL)) else {
        return Err(WriteError::Invalid(
            "`phases` is not the last field of the results".into(),
        ));
    };
    if phases.is_empty() {
        let mut out = head;
        out.push(b'\n');
        return Ok(out);
    }
    let body: usize = phases.iter().map(|p| p.len() + 2).sum();
    let mut out = Vec::with_capacity(cut + body + 8);
    out.extend_from_slice(&head[..cut]);
    out.extend_from_slice(b"[\n");
    for (i, p) in phases.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        out.extend_from_slice(p.as_bytes());
    }
    out.extend_from_slice(b"\n  ]\n}\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{phase, results};
    use crate::target::TargetKind;

    fn run_of(n: usize) -> Results {
        let phases = (0..n).map(|i| phase(&format!("p\u{1b}{i}"), i)).collect();
        let mut r = results(
            "s",
            "2026-01-01T00:00:00.000Z",
            "/t",
            TargetKind::File,
            phases,
        );
        r.status = Status::Running;
        r.finished_at = None;
        r
    }

    fn whole(r: &Results) -> Vec<u8> {
        let mut text = crate::results::pretty::to_vec(r).unwrap();
        text.push(b'\n');
        text
    }

    #[test]
    fn the_spliced_document_is_the_whole_document_printed_pretty() {
        for n in [0, 1, 3] {
            let r = run_of(n);
            let texts: Vec<String> = r
                .phases
                .iter()
                .map(|p| indented(&serde_json::to_value(p).unwrap()).unwrap())
                .collect();
            let got = assemble(&serde_json::to_value(r.envelope()).unwrap(), &texts).unwrap();
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(whole(&r)).unwrap()
            );
        }
    }

    #[test]
    fn each_phase_is_serialized_once() {
        let d = tempfile::tempdir().unwrap();
        let out = OutDir::for_run(&d.path().join("o")).unwrap();
        let mut w = ResultsWriter::new(&out);
        let mut r = run_of(0);
        w.write(&r).unwrap();
        for i in 0..50 {
            r.phases.push(phase(&format!("p{i}"), i));
            w.write(&r).unwrap();
        }
        r.status = Status::Completed;
        w.write(&r).unwrap();
        assert_eq!(
            w.counts(),
            Counts {
                writes: 52,
                phases_serialized: 50,
            }
        );
        let text = std::fs::read(out.join("results.json")).unwrap();
        assert_eq!(text, whole(&r));
        let back: Results = serde_json::from_slice(&text).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn during_a_run_writes_are_paced_and_the_end_is_always_written() {
        let d = tempfile::tempdir().unwrap();
        let out = OutDir::for_run(&d.path().join("o")).unwrap();
        let mut w = ResultsWriter::new(&out);
        let mut r = run_of(0);
        w.update(&r).unwrap();
        // The last write took an hour: the next ones wait, but their phases are checked as they come.
        w.last = Some((Instant::now(), Duration::from_secs(3600)));
        for i in 0..10 {
            r.phases.push(phase(&format!("p{i}"), i));
            w.update(&r).unwrap();
        }
        assert_eq!((w.counts().writes, w.counts().phases_serialized), (1, 10));
        r.status = Status::Completed;
        w.update(&r).unwrap();
        assert_eq!((w.counts().writes, w.counts().phases_serialized), (2, 10));
        assert_eq!(std::fs::read(out.join("results.json")).unwrap(), whole(&r));
    }

    /// What the run accounts its results by: the bytes of results.json with the phases so far, written or
    /// not yet (a paced write), exactly the file's length when written; a phase forgotten is not written.
    #[test]
    fn the_bytes_with_the_phases_so_far_are_the_files_length() {
        let d = tempfile::tempdir().unwrap();
        let out = OutDir::for_run(&d.path().join("o")).unwrap();
        let len = || std::fs::metadata(out.join("results.json")).unwrap().len();
        let mut w = ResultsWriter::new(&out);
        let mut r = run_of(0);
        w.write(&r).unwrap();
        assert_eq!(w.bytes_with(&r).unwrap(), len());
        r.phases.push(phase("p0", 0));
        // Not written yet: the bytes it will take.
        let with_one = w.bytes_with(&r).unwrap();
        w.write(&r).unwrap();
        assert_eq!(with_one, len());
        r.phases.push(phase("p1", 1));
        let with_two = w.bytes_with(&r).unwrap();
        assert!(with_two > with_one);
        // The second phase left out: the file holds the first, as long as before.
        r.phases.pop();
        w.forget_from(1);
        assert_eq!(w.bytes_with(&r).unwrap(), with_one);
        r.status = Status::Failed;
        w.write(&r).unwrap();
        assert_eq!(std::fs::read(out.join("results.json")).unwrap(), whole(&r));
        // A phase on disk is not forgotten.
        w.forget_from(0);
        assert_eq!(w.phases.len(), 1);
    }

    #[test]
    fn a_rewrite_is_due_after_twenty_times_the_last_one() {
        let ms = Duration::from_millis;
        assert!(due(ms(0), ms(0)));
        assert!(!due(ms(19), ms(1)));
        assert!(due(ms(20), ms(1)));
        assert!(!due(ms(1999), ms(100)));
        assert!(due(ms(2000), ms(100)));
    }
}
