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
use std::collections::HashMap;

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

/// The most phases a spec may expand to, counting every phase after sweeps and matrices: 100,000.
pub const MAX_PHASES: u64 = 100_000;

/// A `[[sweep]]` placed in the spec: its name, the phases it repeats (`start..start + len` of `spec.phase`),
/// its key and values.
struct Placed<'a> {
    name: &'a str,
    start: usize,
    len: usize,
    key: &'static Key,
    values: Vec<Setting>,
}

/// Expands sweeps and matrices: the phases that will run, each with single values, its `origin` and labels.
/// The number of phases is counted first, from the lengths of the lists, and refused above [`MAX_PHASES`]
/// before any phase is built; expansion is linear in the phases it makes.
///
/// # Errors
/// A [`RuleError`] for a sweep that names no, unknown, non-consecutive or already swept phases (or a name
/// two `[[phase]]` tables share), or has not exactly one key with at least one value; or for a spec that
/// expands to more than [`MAX_PHASES`] phases, located at the `[[phase]]` that passes the limit.
pub fn expand(spec: &SpecFile) -> Result<Vec<PhaseSpec>, RuleError> {
    let placed = place_sweeps(spec)?;
    // copies[i]: how many times the sweeps repeat phase i.
    let mut copies = vec![1u64; spec.phase.len()];
    for s in &placed {
        copies[s.start..s.start + s.len].fill(s.values.len() as u64);
    }
    let total = count(spec, &copies)?;
    let mut phases = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    let origin = |i: usize| PhaseSpec {
        origin: Some(i),
        ..spec.phase[i].clone()
    };
    let mut next = placed.iter().peekable();
    let mut i = 0;
    while i < spec.phase.len() {
        let Some(s) = next.next_if(|s| s.start == i) else {
            phases.extend(expand_matrix(origin(i)));
            i += 1;
            continue;
        };
        for v in &s.values {
            for j in s.start..s.start + s.len {
                let mut q = origin(j);
                if s.key.kinds.has(q.kind) && !(s.key.is_set)(&q) {
                    (v.set)(&mut q);
                }
                q.labels.push(label(s.key, v, Some(s.name)));
                phases.extend(expand_matrix(q));
            }
        }
        i += s.len;
    }
    Ok(phases)
}

/// A sweep's name labels its phases (`fill[op=93%]`) and is what `compare --by` splits by: it must differ
/// from every earlier sweep's and from the matrix labels of other keys (`bs`, `read`, ...), or two labels
/// would share it.
fn sweep_name(spec: &SpecFile, k: usize) -> Result<(), RuleError> {
    let name = spec.sweep[k].name.as_str();
    // The name goes into its phases' names (`f[NAME=50%]`), which name their CSV files: said here, at the
    // sweep's `name`, once, rather than at every phase it makes.
    let label_char = |c: char| c.is_ascii_alphanumeric() || "-_.%:+".contains(c);
    if name.is_empty() || !name.chars().all(label_char) {
        return Err(sweep_err(
            k,
            "name",
            format!(
                "sweep name {:?} is not usable in the names of its phases (they would be named like \"PHASE[{}=VALUE]\", which name their CSV files)",
                crate::text::escaped(name),
                crate::text::escaped(name)
            ),
            Some("use ASCII letters, digits and - _ . % : +"),
        ));
    }
    if let Some(j) = spec.sweep[..k].iter().position(|s| s.name == name) {
        return Err(sweep_err(
            k,
            "name",
            format!("sweep name \"{name}\" is already the name of sweep[{j}]"),
            Some("give each sweep its own name"),
        ));
    }
    // Named after the label of the key it sweeps (`data` sweeping `data`) is the same label: allowed.
    let swept = swept_key(k, &spec.sweep[k]).ok().map(|(key, _)| key.name);
    if keys::KEYS
        .iter()
        .any(|key| Some(key.name) != swept && key.matrix.as_ref().is_some_and(|m| m.label == name))
    {
        return Err(sweep_err(
            k,
            "name",
            format!(
                "sweep name \"{name}\" is a matrix label (a list of a key labels its phases with it)"
            ),
            Some(
                "name the sweep after what it varies in the procedure, such as \"op\" or \"filled\"",
            ),
        ));
    }
    Ok(())
}

/// Each `[[sweep]]`, in file order: its key and values, and the phases it repeats, which no earlier sweep
/// repeats. Returned in the order of the phases they repeat.
fn place_sweeps(spec: &SpecFile) -> Result<Vec<Placed<'_>>, RuleError> {
    let mut owner: Vec<Option<usize>> = vec![None; spec.phase.len()];
    let mut placed = Vec::with_capacity(spec.sweep.len());
    let names = Names::of(&spec.phase);
    for (k, s) in spec.sweep.iter().enumerate() {
        sweep_name(spec, k)?;
        let (key, values) = swept_key(k, s)?;
        let start = swept_phases(k, s, &spec.phase, &names)?;
        let range = start..start + s.phases.len();
        if let Some((i, j)) = range.clone().find_map(|i| owner[i].map(|j| (i, j))) {
            return Err(sweep_err(
                k,
                "phases",
                format!(
                    "phase \"{}\" is already repeated by sweep \"{}\" (sweep[{j}]); sweep \"{}\" cannot repeat it too",
                    spec.phase[i].name, spec.sweep[j].name, s.name
                ),
                Some("a phase can be in one sweep"),
            ));
        }
        owner[range].fill(Some(k));
        placed.push(Placed {
            name: &s.name,
            start,
            len: s.phases.len(),
            key,
            values,
        });
    }
    placed.sort_by_key(|s| s.start);
    Ok(placed)
}

/// The number of phases after expansion, refused above [`MAX_PHASES`]: phase `i` makes `copies[i]` times
/// the product of its matrix lists' lengths.
fn count(spec: &SpecFile, copies: &[u64]) -> Result<u64, RuleError> {
    let matrix = keys::matrix_keys();
    let mut total = 0u64;
    for (i, p) in spec.phase.iter().enumerate() {
        let made = matrix
            .iter()
            .filter_map(|(_, m)| (m.list)(p).map(|v| v.len() as u64))
            .fold(copies[i], u64::saturating_mul);
        let before = total;
        total = total.saturating_add(made);
        if total > MAX_PHASES {
            let made = match made {
                u64::MAX => format!("more than {}", u64::MAX - 1),
                n => n.to_string(),
            };
            let before = match before {
                0 => String::new(),
                n => format!(" (the phases before it make {n})"),
            };
            return Err(RuleError {
                path: format!("phase[{i}]"),
                phase: None,
                message: format!(
                    "sweeps and matrices expand the spec to more than {MAX_PHASES} phases, the most a spec may have: phase \"{}\" makes {made}{before}",
                    p.name
                ),
                help: Some("shorten the lists, or split the spec into several".into()),
            });
        }
    }
    Ok(total)
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

/// The `[[phase]]` tables by name: the first with each name, and the second when two share it.
struct Names<'a> {
    first: HashMap<&'a str, usize>,
    second: HashMap<&'a str, usize>,
}

impl<'a> Names<'a> {
    fn of(phases: &'a [PhaseSpec]) -> Names<'a> {
        let mut names = Names {
            first: HashMap::with_capacity(phases.len()),
            second: HashMap::new(),
        };
        for (i, p) in phases.iter().enumerate() {
            if names.first.contains_key(p.name.as_str()) {
                names.second.entry(&p.name).or_insert(i);
            } else {
                names.first.insert(&p.name, i);
            }
        }
        names
    }
}

/// Where the phases the `k`-th sweep repeats start in `phases` (the spec's `[[phase]]` tables).
fn swept_phases(
    k: usize,
    s: &SweepSpec,
    phases: &[PhaseSpec],
    names: &Names<'_>,
) -> Result<usize, RuleError> {
    let Some(first) = s.phases.first() else {
        return Err(sweep_err(
            k,
            "phases",
            format!("sweep \"{}\" names no phase", s.name),
            None,
        ));
    };
    // A sweep names phases by name: a name two [[phase]] tables share is refused as the rules would.
    for name in &s.phases {
        if let (Some(i), Some(j)) = (
            names.first.get(name.as_str()),
            names.second.get(name.as_str()),
        ) {
            return Err(RuleError {
                path: format!("phase[{j}].name"),
                phase: None,
                message: format!("phase name {name:?} is already used by phase[{i}]"),
                help: Some("phase names must be unique".into()),
            });
        }
    }
    let Some(&start) = names.first.get(first.as_str()) else {
        return Err(sweep_err(
            k,
            "phases",
            format!(
                "sweep \"{}\" names phase \"{first}\", which the spec does not have",
                s.name
            ),
            None,
        ));
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
