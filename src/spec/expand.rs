//! Expansion of sweeps and matrices into plain phases, before any other rule applies.
//!
//! 1. Each `[[sweep]]` repeats its consecutive phases once per value of its key, setting the key on every
//!    phase of the copy that accepts it and does not set it itself.
//! 2. A phase key given a list (`block_size = ["512B", "4KiB"]`, `read_percent = [100, 65, 0]`) expands the
//!    phase into one phase per combination, the first listed key varying slowest.
//! 3. Expanded phases are named `<name>[<label>=<value>,...]` (`latency[bs=4KiB,read=65]`; a sweep's label is
//!    its name: `purge[op=93%]`), and remember the
//!    `[[phase]]` they came from, for error locations.

use super::rules::{RuleError, keys_for};
use super::{BlockSize, Label, PhaseSpec, SpecFile, SweepSpec, Vary};
use crate::units::{Amount, fmt_bytes};

/// Matrix keys in expansion order, with their short labels.
const MATRIX_KEYS: [(&str, &str); 7] = [
    ("block_size", "bs"),
    ("read_percent", "read"),
    ("queue_depth", "qd"),
    ("data", "data"),
    ("pattern", "pattern"),
    ("engine", "engine"),
    ("span", "span"),
];

/// The short label of a matrix or sweep key (`block_size` → `bs`).
pub fn label_of(key: &str) -> &'static str {
    MATRIX_KEYS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("value", |(_, l)| l)
}

fn bs_text(b: &BlockSize) -> String {
    match b {
        BlockSize::Single(s) => s.to_string(),
        BlockSize::Mix(v) => v
            .iter()
            .map(|(s, w)| format!("{s}x{w}"))
            .collect::<Vec<_>>()
            .join("+"),
    }
}

fn amount_text(a: &Amount) -> String {
    match a {
        Amount::Bytes(b) => fmt_bytes(*b),
        Amount::Percent(p) => p.to_string(),
    }
}

fn enum_text<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// One value of a matrix or sweep key, ready to set on a phase.
#[derive(Clone)]
enum Setting {
    BlockSize(BlockSize),
    ReadPercent(super::WholePercent),
    QueueDepth(i64),
    Data(super::DataPattern),
    Pattern(super::Pattern),
    Engine(super::Engine),
    Span(Amount),
}

impl Setting {
    fn key(&self) -> &'static str {
        match self {
            Setting::BlockSize(_) => "block_size",
            Setting::ReadPercent(_) => "read_percent",
            Setting::QueueDepth(_) => "queue_depth",
            Setting::Data(_) => "data",
            Setting::Pattern(_) => "pattern",
            Setting::Engine(_) => "engine",
            Setting::Span(_) => "span",
        }
    }

    fn text(&self) -> String {
        match self {
            Setting::BlockSize(b) => bs_text(b),
            Setting::ReadPercent(r) => r.0.to_string(),
            Setting::QueueDepth(q) => q.to_string(),
            Setting::Data(d) => d.to_string(),
            Setting::Pattern(p) => enum_text(p),
            Setting::Engine(e) => enum_text(e),
            Setting::Span(a) => amount_text(a),
        }
    }

    /// Whether `p` sets this key itself.
    fn is_set_on(&self, p: &PhaseSpec) -> bool {
        match self {
            Setting::BlockSize(_) => p.block_size.is_some(),
            Setting::ReadPercent(_) => p.read_percent.is_some(),
            Setting::QueueDepth(_) => p.queue_depth.is_some(),
            Setting::Data(_) => p.data.is_some(),
            Setting::Pattern(_) => p.pattern.is_some(),
            Setting::Engine(_) => p.engine.is_some(),
            Setting::Span(_) => p.span.is_some(),
        }
    }

    fn apply(&self, p: &mut PhaseSpec) {
        match self.clone() {
            Setting::BlockSize(v) => p.block_size = Some(Vary::One(v)),
            Setting::ReadPercent(v) => p.read_percent = Some(Vary::One(v)),
            Setting::QueueDepth(v) => p.queue_depth = Some(Vary::One(v)),
            Setting::Data(v) => p.data = Some(Vary::One(v)),
            Setting::Pattern(v) => p.pattern = Some(Vary::One(v)),
            Setting::Engine(v) => p.engine = Some(Vary::One(v)),
            Setting::Span(v) => p.span = Some(Vary::One(v)),
        }
    }
}

/// The list values of a phase, per matrix key, in expansion order.
fn matrix_lists(p: &PhaseSpec) -> Vec<Vec<Setting>> {
    let mut out = Vec::new();
    let mut add = |v: Vec<Setting>| {
        if !v.is_empty() {
            out.push(v);
        }
    };
    fn many<T: Clone>(v: &Option<Vary<T>>, f: impl Fn(T) -> Setting) -> Vec<Setting> {
        match v {
            Some(Vary::Many(list)) => list.iter().cloned().map(f).collect(),
            _ => Vec::new(),
        }
    }
    add(many(&p.block_size, Setting::BlockSize));
    add(many(&p.read_percent, Setting::ReadPercent));
    add(many(&p.queue_depth, Setting::QueueDepth));
    add(many(&p.data, Setting::Data));
    add(many(&p.pattern, Setting::Pattern));
    add(many(&p.engine, Setting::Engine));
    add(many(&p.span, Setting::Span));
    out
}

fn sweep_values(s: &SweepSpec) -> Vec<Vec<Setting>> {
    let mut lists = Vec::new();
    if let Some(v) = &s.span {
        lists.push(v.iter().cloned().map(Setting::Span).collect());
    }
    if let Some(v) = &s.block_size {
        lists.push(v.iter().cloned().map(Setting::BlockSize).collect());
    }
    if let Some(v) = &s.read_percent {
        lists.push(v.iter().cloned().map(Setting::ReadPercent).collect());
    }
    if let Some(v) = &s.queue_depth {
        lists.push(v.iter().cloned().map(Setting::QueueDepth).collect());
    }
    if let Some(v) = &s.data {
        lists.push(v.iter().cloned().map(Setting::Data).collect());
    }
    if let Some(v) = &s.engine {
        lists.push(v.iter().cloned().map(Setting::Engine).collect());
    }
    lists
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
        let lists = sweep_values(s);
        let values = match lists.as_slice() {
            [one] if !one.is_empty() => one.clone(),
            [] => {
                return Err(sweep_err(
                    k,
                    "",
                    format!("sweep \"{}\" has no key to sweep", s.name),
                    Some("give one key with a list, e.g. span = [\"100%\", \"50%\"]"),
                ));
            }
            [_] => {
                return Err(sweep_err(
                    k,
                    "",
                    format!("sweep \"{}\" has an empty list", s.name),
                    None,
                ));
            }
            _ => {
                return Err(sweep_err(
                    k,
                    "",
                    format!(
                        "sweep \"{}\" sweeps several keys; a sweep varies exactly one",
                        s.name
                    ),
                    Some("use one [[sweep]] per key, or a matrix list in the phase"),
                ));
            }
        };
        if s.phases.is_empty() {
            return Err(sweep_err(
                k,
                "phases",
                format!("sweep \"{}\" names no phase", s.name),
                None,
            ));
        }
        let first = &s.phases[0];
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
        let block: Vec<PhaseSpec> = phases.drain(start..start + s.phases.len()).collect();
        let mut copies = Vec::with_capacity(block.len() * values.len());
        for v in &values {
            for p in &block {
                let mut q = p.clone();
                let applies = keys_for(q.kind).contains(&v.key());
                if applies && !v.is_set_on(&q) {
                    v.apply(&mut q);
                }
                q.labels.push(Label {
                    key: label_of(v.key()).to_string(),
                    value: v.text(),
                    sweep: Some(s.name.clone()),
                });
                copies.push(q);
            }
        }
        phases.splice(start..start, copies);
    }
    let mut out = Vec::with_capacity(phases.len());
    for p in phases {
        let lists = matrix_lists(&p);
        let mut combos: Vec<Vec<Setting>> = vec![Vec::new()];
        for list in &lists {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    list.iter()
                        .map(move |v| [c.clone(), vec![v.clone()]].concat())
                })
                .collect();
        }
        for combo in combos {
            let mut q = p.clone();
            for v in &combo {
                v.apply(&mut q);
                q.labels.push(Label {
                    key: label_of(v.key()).to_string(),
                    value: v.text(),
                    sweep: None,
                });
            }
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
            out.push(q);
        }
    }
    Ok(out)
}
