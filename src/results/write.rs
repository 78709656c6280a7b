//! Writing `results.json`: validated against the results schema, then written atomically (a new temporary
//! file, fsync, rename; [`OutDir::replace`]), so a reader or a crash never sees a torn or invalid file.
//!
//! A run only appends phases, so the cost of a write does not grow with what was validated before: each
//! phase is validated against the schema's phase definition and turned into text once, when it is first
//! written, and every write validates the rest of the document (the run without its phases) against the
//! whole schema. The schema puts no rule on the list of phases but that each item is a phase, so the
//! document written is valid against the whole schema. During a run ([`ResultsWriter::update`]),
//! a rewrite is skipped while the last one ended less than [`PACE`] times its own duration ago, so that
//! rewriting takes at most about 1/[`PACE`] of a run of many short phases; the run's first and last
//! states are always written.

use super::outdir::OutDir;
use super::schema::result_schema;
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
    /// The document does not match the results schema: a bug in wkrun, reported rather than written.
    #[error("results do not validate against the results schema (a wkrun bug): {0}")]
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
    /// Phases validated against the schema's phase definition (each once).
    pub phases_checked: u64,
    /// Documents without their phases validated against the whole schema (one per write).
    pub documents_checked: u64,
}

/// Writes `results.json` into one folder, validating every version it writes.
pub struct ResultsWriter {
    dir: OutDir,
    path: PathBuf,
    /// The whole results schema.
    validator: jsonschema::Validator,
    /// The schema of one item of `phases`.
    phase_validator: jsonschema::Validator,
    /// The phases seen so far, validated, as pretty JSON indented for their place in the document.
    phases: Vec<String>,
    counts: Counts,
    /// When the last write ended, and how long it took.
    last: Option<(Instant, Duration)>,
}

impl ResultsWriter {
    /// A writer for `results.json` in `dir`.
    ///
    /// # Errors
    /// [`WriteError::Invalid`] if the generated schema does not compile, or puts a rule on the list of
    /// phases besides its items (a bug).
    pub fn new(dir: &OutDir) -> Result<ResultsWriter, WriteError> {
        let schema = result_schema();
        let compile = |s: &Value| {
            jsonschema::validator_for(s).map_err(|e| WriteError::Invalid(e.to_string()))
        };
        Ok(ResultsWriter {
            dir: dir.clone(),
            path: dir.join("results.json"),
            validator: compile(&schema)?,
            phase_validator: compile(&phase_schema(&schema)?)?,
            phases: Vec::new(),
            counts: Counts::default(),
            last: None,
        })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the writer has done so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Validates and atomically replaces `results.json`. The phases of `results` are taken as those of
    /// the last write with new ones appended: a phase already written is not read again.
    ///
    /// # Errors
    /// [`WriteError`] when the document is invalid or the file cannot be written.
    pub fn write(&mut self, results: &Results) -> Result<(), WriteError> {
        let started = Instant::now();
        self.add_phases(results)?;
        let envelope = to_value(&results.envelope())?;
        self.counts.documents_checked += 1;
        check(&self.validator, &envelope)?;
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

    /// Validates and keeps the text of the phases of `results` not seen before.
    fn add_phases(&mut self, results: &Results) -> Result<(), WriteError> {
        for p in results.phases.iter().skip(self.phases.len()) {
            let value = to_value(p)?;
            self.counts.phases_checked += 1;
            check(&self.phase_validator, &value)?;
            self.phases.push(indented(&value)?);
        }
        Ok(())
    }

    /// The results changed during a run: written now when the run has ended or is starting, or when the
    /// last write is far enough behind ([`due`]); otherwise only the new phases are validated, and written
    /// with a later state.
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

/// The schema of one item of `phases`: the results schema's `items`, with its definitions.
fn phase_schema(schema: &Value) -> Result<Value, WriteError> {
    let phases = schema
        .pointer("/properties/phases")
        .and_then(Value::as_object)
        .ok_or_else(|| WriteError::Invalid("the schema has no `phases`".into()))?;
    if let Some(k) = phases
        .keys()
        .find(|k| !["description", "type", "items"].contains(&k.as_str()))
    {
        return Err(WriteError::Invalid(format!(
            "the schema's `phases` has the rule `{k}`: phases cannot be validated one by one"
        )));
    }
    let mut item = phases
        .get("items")
        .cloned()
        .ok_or_else(|| WriteError::Invalid("the schema's `phases` has no `items`".into()))?;
    if let (Some(obj), Some(defs)) = (item.as_object_mut(), schema.get("$defs")) {
        obj.insert("$defs".into(), defs.clone());
        if let Some(dialect) = schema.get("$schema") {
            obj.insert("$schema".into(), dialect.clone());
        }
    }
    Ok(item)
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, WriteError> {
    serde_json::to_value(v).map_err(|e| WriteError::Invalid(e.to_string()))
}

/// The first error of `value` against `validator`.
fn check(validator: &jsonschema::Validator, value: &Value) -> Result<(), WriteError> {
    match validator.iter_errors(value).next() {
        Some(err) => Err(WriteError::Invalid(format!(
            "{err} at {}",
            err.instance_path()
        ))),
        None => Ok(()),
    }
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
    fn each_phase_is_validated_once_and_each_write_checks_the_rest_against_the_whole_schema() {
        let d = tempfile::tempdir().unwrap();
        let out = OutDir::for_run(&d.path().join("o")).unwrap();
        let mut w = ResultsWriter::new(&out).unwrap();
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
                phases_checked: 50,
                documents_checked: 52
            }
        );
        let text = std::fs::read(out.join("results.json")).unwrap();
        assert_eq!(text, whole(&r));
        let value: Value = serde_json::from_slice(&text).unwrap();
        assert!(jsonschema::is_valid(&result_schema(), &value));
    }

    #[test]
    fn during_a_run_writes_are_paced_and_the_end_is_always_written() {
        let d = tempfile::tempdir().unwrap();
        let out = OutDir::for_run(&d.path().join("o")).unwrap();
        let mut w = ResultsWriter::new(&out).unwrap();
        let mut r = run_of(0);
        w.update(&r).unwrap();
        // The last write took an hour: the next ones wait, but their phases are checked as they come.
        w.last = Some((Instant::now(), Duration::from_secs(3600)));
        for i in 0..10 {
            r.phases.push(phase(&format!("p{i}"), i));
            w.update(&r).unwrap();
        }
        assert_eq!((w.counts().writes, w.counts().phases_checked), (1, 10));
        r.status = Status::Completed;
        w.update(&r).unwrap();
        assert_eq!((w.counts().writes, w.counts().phases_checked), (2, 10));
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

    #[test]
    fn the_schema_puts_no_rule_on_the_list_of_phases_but_its_items() {
        let item = phase_schema(&result_schema()).unwrap();
        assert_eq!(item["$ref"], "#/$defs/PhaseResult");
        let bad = serde_json::json!({"properties": {"phases": {"type": "array", "items": {}, "maxItems": 3}}});
        assert!(
            matches!(phase_schema(&bad), Err(WriteError::Invalid(m)) if m.contains("`maxItems`"))
        );
    }
}
