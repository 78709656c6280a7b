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

use super::outdir::OutDir;
use super::{Results, Status};
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A rewrite during a run waits until this many times the last rewrite's duration has passed since it
/// ended: rewriting results.json takes at most about 1/20 of the run.
pub const PACE: u32 = 20;

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The results could not be turned into JSON: a bug in wkrun.
    #[error("results cannot be serialized (a wkrun bug): {0}")]
    Invalid(String),
    /// The file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
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
        let envelope = to_value(&results.envelope())?;
        let text = assemble(&envelope, &self.phases[..results.phases.len()])?;
        self.dir
            .replace("results.json", &text, true)
            .map_err(|source| WriteError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.counts.writes += 1;
        let now = Instant::now();
        self.last = Some((now, now - started));
        Ok(())
    }

    /// Keeps the text of the phases of `results` not seen before.
    fn add_phases(&mut self, results: &Results) -> Result<(), WriteError> {
        for p in results.phases.iter().skip(self.phases.len()) {
            let value = to_value(p)?;
            self.counts.phases_serialized += 1;
            self.phases.push(indented(&value)?);
        }
        Ok(())
    }

    /// The results changed during a run: written now when the run has ended or is starting, or when the
    /// last write is far enough behind ([`due`]); otherwise only the new phases are turned into text, and
    /// written with a later state.
    ///
    /// # Errors
    /// As [`ResultsWriter::write`].
    pub fn update(&mut self, results: &Results) -> Result<(), WriteError> {
        let write = results.status != Status::Running
            || self.last.is_none_or(|(end, cost)| due(end.elapsed(), cost));
        if write {
            self.write(results)
        } else {
            self.add_phases(results)
        }
    }
}

/// Whether a rewrite is due, `since` after the last one ended, which took `cost`: once [`PACE`] times its
/// duration has passed.
pub fn due(since: Duration, cost: Duration) -> bool {
    since >= cost.saturating_mul(PACE)
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
