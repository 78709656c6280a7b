//! Expansion of sweeps and matrices into plain phases, before any other rule applies.
//!
//! 1. Each `[[sweep]]` repeats its consecutive phases once per value of its key, setting the key on every
//!    phase of the copy that accepts it and does not set it itself.
//! 2. A phase key given a list (`block_size = ["512B", "4KiB"]`, `read_percent = [100, 65, 0]`) expands the
//!    phase into one phase per combination, the keys combining in the fixed order of the key table
//!    ([`super::keys::Matrix::order`]), the first varying slowest.
//! 3. Expanded phases are named `<name>[<label>=<value>,...]` (`latency[bs=4KiB,read=65]`; a sweep's label is
//!    its name: `purge[op=93%]`), and remember the
//!    `[[phase]]` they came from, for error locations.

use super::keys::{self, Key};
use super::rules::RuleError;
use super::{BlockSize, Label, PhaseSpec, SpecFile, SweepSpec, Vary};
use crate::units::{Amount, fmt_bytes};

/// The short label of a matrix or sweep key (`block_size` → `bs`); `"value"` for any other key.
pub fn label_of(key: &str) -> &'static str {
    keys::find(key)
        .and_then(|k| k.matrix.as_ref())
        .map_or("value", |m| m.label)
}

/// A value as written in the names of expanded phases (`4KiB`, `65`, `93%`, `io_uring`).
pub(super) trait Written {
    /// The text.
    fn written(&self) -> String;
}

impl Written for BlockSize {
    fn written(&self) -> String {
        match self {
            BlockSize::Single(s) => s.to_string(),
            BlockSize::Mix(v) => v
                .iter()
                .map(|(s, w)| format!("{s}x{w}"))
                .collect::<Vec<_>>()
                .join("+"),
        }
    }
}

impl Written for Amount {
    fn written(&self) -> String {
        match self {
            Amount::Bytes(b) => fmt_bytes(*b),
            Amount::Percent(p) => p.to_string(),
        }
    }
}

impl Written for super::WholePercent {
    fn written(&self) -> String {
        self.0.to_string()
    }
}

impl Written for i64 {
    fn written(&self) -> String {
        self.to_string()
    }
}

impl Written for super::DataPattern {
    fn written(&self) -> String {
        self.to_string()
    }
}

/// An enum's spelling in specs (`"io_uring"`).
fn enum_text<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Written for super::Pattern {
    fn written(&self) -> String {
        enum_text(self)
    }
}

impl Written for super::Engine {
    fn written(&self) -> String {
        enum_text(self)
    }
}

/// One value of a matrix or sweep key, ready to set on a phase.
pub struct Setting {
    /// The value as written in names.
    pub text: String,
    /// Sets the key of a phase to the value.
    set: Box<dyn Fn(&mut PhaseSpec)>,
}

fn settings<T: Clone + Written + 'static>(
    values: &[T],
    set: fn(&mut PhaseSpec, Option<Vary<T>>),
) -> Vec<Setting> {
    values
        .iter()
        .map(|v| {
            let one = v.clone();
            Setting {
                text: v.written(),
                set: Box::new(move |p| set(p, Some(Vary::One(one.clone())))),
            }
        })
        .collect()
}

/// The settings of a phase key given a list; `None` for a single value or none. `set` sets the key.
pub(super) fn list<T: Clone + Written + 'static>(
    key: &Option<Vary<T>>,
    set: fn(&mut PhaseSpec, Option<Vary<T>>),
) -> Option<Vec<Setting>> {
    match key {
        Some(Vary::Many(values)) => Some(settings(values, set)),
        _ => None,
    }
}

/// The settings of a sweep's list for a key; `None` when the sweep does not sweep it. `set` sets the key on
/// a phase.
pub(super) fn swept<T: Clone + Written + 'static>(
    key: &Option<Vec<T>>,
    set: fn(&mut PhaseSpec, Option<Vary<T>>),
) -> Option<Vec<Setting>> {
    key.as_ref().map(|values| settings(values, set))
}

fn sweep_err(k: usize, field: &str, message: String, help: Option<&str>) -> RuleError {
    RuleError {
        path: if field.is_empty() {
            format!("sweep[{k}]")
        } else {
            format!("sweep[{k}].{field}")
        },
        phase: None,
        message,
        help: help.map(str::to_string),
    }
}

/// Expands sweeps and matrices: the phases that will run, each with single values, its `origin` and labels.
///
/// # Errors
/// A [`RuleError`] for a sweep that names no, unknown, non-consecutive or already swept phases, or has not
/// exactly one key with at least one value.
pub fn expand(spec: &SpecFile) -> Result<Vec<PhaseSpec>, RuleError> {
    let mut phases: Vec<PhaseSpec> = spec
        .phase
        .iter()
        .enumerate()
        .map(|(i, p)| PhaseSpec {
            origin: Some(i),
            ..p.clone()
        })
        .collect();
    for (k, s) in spec.sweep.iter().enumerate() {
        let (key, values) = swept_key(k, s)?;
        let start = swept_phases(k, s, &phases)?;
        let block: Vec<PhaseSpec> = phases.drain(start..start + s.phases.len()).collect();
        let mut copies = Vec::with_capacity(block.len() * values.len());
        for v in &values {
            for p in &block {
                let mut q = p.clone();
                if key.kinds.has(q.kind) && !(key.is_set)(&q) {
                    (v.set)(&mut q);
                }
                q.labels.push(label(key, v, Some(&s.name)));
                copies.push(q);
            }
        }
        phases.splice(start..start, copies);
    }
    Ok(phases.into_iter().flat_map(expand_matrix).collect())
}

/// The label a setting gives the phase it made.
fn label(key: &Key, v: &Setting, sweep: Option<&str>) -> Label {
    Label {
        key: label_of(key.name).to_string(),
        value: v.text.clone(),
        sweep: sweep.map(str::to_string),
    }
}

/// The key the `k`-th sweep sweeps, and its values.
fn swept_key(k: usize, s: &SweepSpec) -> Result<(&'static Key, Vec<Setting>), RuleError> {
    let mut lists: Vec<(&'static Key, Vec<Setting>)> = keys::KEYS
        .iter()
        .filter_map(|key| Some((key, (key.matrix.as_ref()?.sweep?)(s)?)))
        .collect();
    match lists.len() {
        1 if !lists[0].1.is_empty() => Ok(lists.remove(0)),
        0 => Err(sweep_err(
            k,
            "",
            format!("sweep \"{}\" has no key to sweep", s.name),
            Some("give one key with a list, e.g. span = [\"100%\", \"50%\"]"),
        )),
        1 => Err(sweep_err(
            k,
            "",
            format!("sweep \"{}\" has an empty list", s.name),
            None,
        )),
        _ => Err(sweep_err(
            k,
            "",
            format!(
                "sweep \"{}\" sweeps several keys; a sweep varies exactly one",
                s.name
            ),
            Some("use one [[sweep]] per key, or a matrix list in the phase"),
        )),
    }
}

/// Where the phases the `k`-th sweep repeats start in `phases`.
fn swept_phases(k: usize, s: &SweepSpec, phases: &[PhaseSpec]) -> Result<usize, RuleError> {
    let Some(first) = s.phases.first() else {
        return Err(sweep_err(
            k,
            "phases",
            format!("sweep \"{}\" names no phase", s.name),
            None,
        ));
    };
    let starts: Vec<usize> = phases
        .iter()
        .enumerate()
        .filter(|(_, p)| &p.name == first)
        .map(|(i, _)| i)
        .collect();
    let start = match starts.as_slice() {
        [i] => *i,
        [] => {
            return Err(sweep_err(
                k,
                "phases",
                format!(
                    "sweep \"{}\" names phase \"{first}\", which the spec does not have",
                    s.name
                ),
                None,
            ));
        }
        _ => {
            return Err(sweep_err(
                k,
                "phases",
                format!("phase \"{first}\" is already repeated by an earlier sweep"),
                Some("a phase can be in one sweep"),
            ));
        }
    };
    for (j, name) in s.phases.iter().enumerate() {
        if phases.get(start + j).is_none_or(|p| &p.name != name) {
            return Err(sweep_err(
                k,
                "phases",
                format!(
                    "sweep \"{}\": the phases {:?} must follow each other in the spec, in that order",
                    s.name, s.phases
                ),
                None,
            ));
        }
    }
    Ok(start)
}

/// One phase per combination of the lists of `p`, the first key in expansion order varying slowest, each
/// named after the labels that made it.
fn expand_matrix(p: PhaseSpec) -> Vec<PhaseSpec> {
    let mut out = vec![p];
    for (key, m) in keys::matrix_keys() {
        out = out
            .into_iter()
            .flat_map(|p| match (m.list)(&p) {
                None => vec![p],
                Some(values) => values
                    .iter()
                    .map(|v| {
                        let mut q = p.clone();
                        (v.set)(&mut q);
                        q.labels.push(label(key, v, None));
                        q
                    })
                    .collect(),
            })
            .collect();
    }
    for q in &mut out {
        if !q.labels.is_empty() {
            // A sweep's label names the sweep (`purge[op=93%]`: the purge of the 93 % iteration, whatever
            // its own span); a matrix label names the key (`latency[bs=4KiB,read=65]`).
            let tags: Vec<String> = q
                .labels
                .iter()
                .map(|l| format!("{}={}", l.sweep.as_deref().unwrap_or(&l.key), l.value))
                .collect();
            q.name = format!("{}[{}]", q.name, tags.join(","));
        }
    }
    out
}
