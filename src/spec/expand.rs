//! Expansion of sweeps and matrices into plain phases, before any other rule applies.
//!
//! 1. Each `[[sweep]]` repeats its consecutive phases once per value of its key, setting the key on every
//!    phase of the copy that accepts it and does not set it itself; each `[[repeat]]` block repeats its
//!    consecutive phases `max_rounds` times, labelling each copy `round=N` (N from 1) and tagging its phases
//!    with their round ([`super::RoundTag`]).
//! 2. A phase key given a list (`block_size = ["512B", "4KiB"]`, `read_percent = [100, 65, 0]`) expands the
//!    phase into one phase per combination, the keys combining in the fixed order of the key table
//!    ([`super::keys::Matrix::order`]), the first varying slowest.
//! 3. Expanded phases are named `<name>[<label>=<value>,...]` (`latency[bs=4KiB,read=65]`; a sweep's label is
//!    its name: `purge[op=93%]`; a round's comes first: `iops[round=3,bs=4KiB,read=65]`), and remember the
//!    `[[phase]]` they came from, for error locations.

use super::keys::{self, Key};
use super::repeat::{ROUND_LABEL, RoundTag};
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
    table_err(&format!("sweep[{k}]"), field, message, help)
}

/// An error at `field` of the table `table` (`sweep[0]`, `repeat[1]`), or at the table for an empty field.
fn table_err(table: &str, field: &str, message: String, help: Option<&str>) -> RuleError {
    RuleError {
        path: match field {
            "" => table.to_string(),
            f => format!("{table}.{f}"),
        },
        phase: None,
        message,
        help: help.map(str::to_string),
        limit: false,
        also: &[],
    }
}

/// The most phases a spec may expand to, counting every phase after sweeps and matrices: 100,000.
pub const MAX_PHASES: u64 = 100_000;

/// What a placed table repeats its phases by: a sweep's values, or a block's rounds.
enum Copies {
    /// One copy per value of the sweep's key.
    Sweep {
        key: &'static Key,
        values: Vec<Setting>,
    },
    /// One copy per round of the `block`-th `[[repeat]]`, `rounds` in all.
    Rounds { block: usize, rounds: u32 },
}

/// A `[[sweep]]` or `[[repeat]]` placed in the spec: its name, the phases it repeats (`start..start + len`
/// of `spec.phase`) and what it repeats them by.
struct Placed<'a> {
    name: &'a str,
    start: usize,
    len: usize,
    copies: Copies,
}

impl Placed<'_> {
    /// How many times it repeats its phases.
    fn n(&self) -> u64 {
        match &self.copies {
            Copies::Sweep { values, .. } => values.len() as u64,
            Copies::Rounds { rounds, .. } => u64::from(*rounds),
        }
    }

    /// Makes `q` a phase of the `c`-th copy (from 0): the sweep's value set where the phase takes it and does
    /// not set it itself, and its label; or the round's label (`round=N`, from 1) and tag.
    fn apply(&self, c: usize, q: &mut PhaseSpec) {
        match &self.copies {
            Copies::Sweep { key, values } => {
                let v = &values[c];
                if key.kinds.has(q.kind) && !(key.is_set)(q) {
                    (v.set)(q);
                }
                q.labels.push(label(key, v, Some(self.name)));
            }
            Copies::Rounds { block, .. } => {
                let round = c as u32 + 1;
                q.labels.push(Label {
                    key: ROUND_LABEL.to_string(),
                    value: round.to_string(),
                    sweep: None,
                });
                q.round = Some(RoundTag {
                    block: *block,
                    round,
                    cell: String::new(),
                });
            }
        }
    }
}

/// Expands sweeps, blocks of rounds and matrices: the phases that will run, each with single values, its
/// `origin` and labels (and its round, in a block).
/// The number of phases is counted first, from the lengths of the lists and the blocks' rounds, and refused
/// above [`MAX_PHASES`] before any phase is built; expansion is linear in the phases it makes.
///
/// # Errors
/// A [`RuleError`] for a sweep or block that names no, unknown, non-consecutive or already repeated phases
/// (or a name two `[[phase]]` tables share), a sweep without exactly one key with at least one value, a
/// block's bad numbers ([`super::repeat::check_numbers`]); or for a spec that expands to more than
/// [`MAX_PHASES`] phases, located at the `[[phase]]` that passes the limit.
pub fn expand(spec: &SpecFile) -> Result<Vec<PhaseSpec>, RuleError> {
    phase_lists_once(spec)?;
    let placed = place(spec)?;
    // copies[i]: how many times the sweeps and blocks repeat phase i.
    let mut copies = vec![1u64; spec.phase.len()];
    for s in &placed {
        copies[s.start..s.start + s.len].fill(s.n());
    }
    let total = count(spec, &copies)?;
    super::room::for_phases(total).map_err(|message| RuleError {
        path: "phase[0]".into(),
        phase: None,
        message,
        help: None,
        limit: true,
        also: &[],
    })?;
    let mut phases = Vec::new();
    phases
        .try_reserve_exact(usize::try_from(total).unwrap_or(usize::MAX))
        .map_err(|_| RuleError {
            path: "phase[0]".into(),
            phase: None,
            message: format!("cannot allocate the list of the spec's {total} phases"),
            help: None,
            limit: true,
            also: &[],
        })?;
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
        for c in 0..s.n() as usize {
            for j in s.start..s.start + s.len {
                let mut q = origin(j);
                s.apply(c, &mut q);
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
    if name == ROUND_LABEL {
        return Err(sweep_err(
            k,
            "name",
            format!("sweep name \"{name}\" is the label of a block's rounds ([[repeat]])"),
            Some(
                "name the sweep after what it varies in the procedure, such as \"op\" or \"filled\"",
            ),
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

/// Each `[[sweep]]` and then each `[[repeat]]`, in file order: a sweep's key and values, a block's rounds,
/// and the phases each repeats, which no earlier one repeats. Returned in the order of the phases they
/// repeat.
fn place(spec: &SpecFile) -> Result<Vec<Placed<'_>>, RuleError> {
    let mut owner: Vec<Option<(&str, String)>> = vec![None; spec.phase.len()];
    let mut placed = Vec::with_capacity(spec.sweep.len() + spec.repeat.len());
    let names = Names::of(&spec.phase);
    for (k, s) in spec.sweep.iter().enumerate() {
        sweep_name(spec, k)?;
        let (key, values) = swept_key(k, s)?;
        let table = format!("sweep[{k}]");
        let start = repeated_phases(&table, &sweep_noun(&s.name), &s.phases, &spec.phase, &names)?;
        own(&mut owner, start, &s.phases, "sweep", &s.name, k, spec)?;
        placed.push(Placed {
            name: &s.name,
            start,
            len: s.phases.len(),
            copies: Copies::Sweep { key, values },
        });
    }
    for (k, r) in spec.repeat.iter().enumerate() {
        block_name(spec, k)?;
        super::repeat::check_numbers(k, r)?;
        let table = format!("repeat[{k}]");
        let start = repeated_phases(&table, &block_noun(&r.name), &r.phases, &spec.phase, &names)?;
        own(&mut owner, start, &r.phases, "repeat", &r.name, k, spec)?;
        placed.push(Placed {
            name: &r.name,
            start,
            len: r.phases.len(),
            copies: Copies::Rounds {
                block: k,
                rounds: r.rounds(),
            },
        });
    }
    placed.sort_by_key(|s| s.start);
    Ok(placed)
}

/// `sweep "NAME"`, as messages name a sweep.
fn sweep_noun(name: &str) -> String {
    format!("sweep \"{name}\"")
}

/// `block "NAME"`, as messages name a `[[repeat]]`.
fn block_noun(name: &str) -> String {
    format!("block \"{name}\"")
}

/// Marks the phases `start..start + phases.len()` as repeated by the `k`-th table of `kind` (`"sweep"`,
/// `"repeat"`), named `name`.
///
/// # Errors
/// A phase an earlier sweep or block repeats: two sweeps cannot share a phase, nor can two blocks, and a
/// block's rounds cannot be inside a sweep (nor a sweep inside a round).
fn own<'a>(
    owner: &mut [Option<(&'a str, String)>],
    start: usize,
    phases: &[String],
    kind: &'a str,
    name: &str,
    k: usize,
    spec: &SpecFile,
) -> Result<(), RuleError> {
    let range = start..start + phases.len();
    if let Some((i, (by, table))) = range
        .clone()
        .find_map(|i| owner[i].as_ref().map(|o| (i, o.clone())))
    {
        let phase = &spec.phase[i].name;
        let (message, help) = match (by, kind) {
            ("sweep", "sweep") => (
                format!(
                    "phase \"{phase}\" is already repeated by {} ({table}); sweep \"{name}\" cannot repeat it too",
                    sweep_noun(sweep_name_of(spec, &table))
                ),
                "a phase can be in one sweep",
            ),
            ("repeat", "repeat") => (
                format!(
                    "phase \"{phase}\" is already in {} ({table}); blocks of rounds cannot overlap",
                    block_noun(block_name_of(spec, &table))
                ),
                "a phase can be in one [[repeat]]",
            ),
            _ => (
                format!(
                    "phase \"{phase}\" is in {} ({table}) and in block \"{name}\": rounds inside a sweep, or a sweep inside a round, are not supported",
                    sweep_noun(sweep_name_of(spec, &table))
                ),
                "run the block once per sweep value in specs of their own (--set can change a value)",
            ),
        };
        let path = format!("{kind}[{k}]");
        return Err(RuleError {
            path: format!("{path}.phases"),
            phase: None,
            message,
            help: Some(help.into()),
            limit: false,
            also: &[],
        });
    }
    for i in range {
        owner[i] = Some((kind, format!("{kind}[{k}]")));
    }
    Ok(())
}

/// The name of the sweep at `table` (`sweep[2]`).
fn sweep_name_of<'s>(spec: &'s SpecFile, table: &str) -> &'s str {
    table_index(table)
        .and_then(|k| spec.sweep.get(k))
        .map_or("", |s| s.name.as_str())
}

/// The name of the block at `table` (`repeat[1]`).
fn block_name_of<'s>(spec: &'s SpecFile, table: &str) -> &'s str {
    table_index(table)
        .and_then(|k| spec.repeat.get(k))
        .map_or("", |r| r.name.as_str())
}

/// `k` of `kind[k]`.
fn table_index(table: &str) -> Option<usize> {
    table.split_once('[')?.1.strip_suffix(']')?.parse().ok()
}

/// A block's name: usable in messages and results (the characters a sweep's name may have) and its own.
fn block_name(spec: &SpecFile, k: usize) -> Result<(), RuleError> {
    let name = spec.repeat[k].name.as_str();
    if name.is_empty() || !name.chars().all(label_char) {
        return Err(table_err(
            &format!("repeat[{k}]"),
            "name",
            format!(
                "block name {:?} is not a name wkrun can print and match",
                crate::text::escaped(name)
            ),
            Some("use ASCII letters, digits and - _ . % : +"),
        ));
    }
    if let Some(j) = spec.repeat[..k].iter().position(|r| r.name == name) {
        return Err(table_err(
            &format!("repeat[{k}]"),
            "name",
            format!("block name \"{name}\" is already the name of repeat[{j}]"),
            Some("give each [[repeat]] its own name"),
        ));
    }
    Ok(())
}

/// The characters of a sweep's or block's name (a sweep's goes into its phases' names).
fn label_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_.%:+".contains(c)
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
                limit: false,
                also: &[],
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

/// The first value `values` holds twice, by its written form (which names the phases it makes).
fn held_twice(values: &[Setting]) -> Option<&str> {
    let mut seen = std::collections::HashSet::with_capacity(values.len());
    values
        .iter()
        .map(|v| v.text.as_str())
        .find(|t| !seen.insert(*t))
}

/// Why a list that holds `value` twice is refused: the phases of each value are named by it (`label=value`),
/// so two would share their names.
fn twice(key: &str, label: &str, value: &str) -> String {
    format!(
        "the {key} list holds {value} twice: each value of a list makes phases of its own, named by the value ({label}={value}), so two would share a name; list each value once"
    )
}

/// Refuses a phase's list (a matrix key) that holds a value twice ([`twice`]), at the key.
fn phase_lists_once(spec: &SpecFile) -> Result<(), RuleError> {
    for (i, p) in spec.phase.iter().enumerate() {
        for (key, m) in keys::matrix_keys() {
            let Some(values) = (m.list)(p) else {
                continue;
            };
            if let Some(v) = held_twice(&values) {
                let table = format!("phase[{i}]");
                return Err(table_err(
                    &table,
                    key.name,
                    twice(key.name, m.label, v),
                    None,
                ));
            }
        }
    }
    Ok(())
}

/// The key the `k`-th sweep sweeps, and its values, each once ([`twice`]).
fn swept_key(k: usize, s: &SweepSpec) -> Result<(&'static Key, Vec<Setting>), RuleError> {
    let mut lists: Vec<(&'static Key, Vec<Setting>)> = keys::KEYS
        .iter()
        .filter_map(|key| Some((key, (key.matrix.as_ref()?.sweep?)(s)?)))
        .collect();
    if let [(key, values)] = lists.as_slice()
        && let Some(v) = held_twice(values)
    {
        return Err(sweep_err(k, key.name, twice(key.name, &s.name, v), None));
    }
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

/// Where the phases `list` (of the table `table`, named `noun` in messages: `sweep "op"`) start in `phases`
/// (the spec's `[[phase]]` tables).
fn repeated_phases(
    table: &str,
    noun: &str,
    list: &[String],
    phases: &[PhaseSpec],
    names: &Names<'_>,
) -> Result<usize, RuleError> {
    let Some(first) = list.first() else {
        return Err(table_err(
            table,
            "phases",
            format!("{noun} names no phase"),
            None,
        ));
    };
    // A sweep names phases by name: a name two [[phase]] tables share is refused as the rules would.
    for name in list {
        if let (Some(i), Some(j)) = (
            names.first.get(name.as_str()),
            names.second.get(name.as_str()),
        ) {
            return Err(RuleError {
                path: format!("phase[{j}].name"),
                phase: None,
                message: format!("phase name {name:?} is already used by phase[{i}]"),
                help: Some("phase names must be unique".into()),
                limit: false,
                also: &[],
            });
        }
    }
    let Some(&start) = names.first.get(first.as_str()) else {
        return Err(table_err(
            table,
            "phases",
            format!("{noun} names phase \"{first}\", which the spec does not have"),
            None,
        ));
    };
    for (j, name) in list.iter().enumerate() {
        if phases.get(start + j).is_none_or(|p| &p.name != name) {
            return Err(table_err(
                table,
                "phases",
                format!(
                    "{noun}: the phases {list:?} must follow each other in the spec, in that order"
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
        if let Some(t) = &mut q.round {
            t.cell = named(&q.name, q.labels.iter().filter(|l| !is_round(l)));
        }
        q.name = named(&q.name, q.labels.iter());
    }
    out
}

/// Whether `l` is a block's round label (`round=3`).
fn is_round(l: &Label) -> bool {
    l.sweep.is_none() && l.key == ROUND_LABEL
}

/// The round (its label `round=N`) and cell (the name without the round label) of the phase named `name`
/// with `labels`, as expansion names a phase of a block of rounds; `None` when it has no round label, more
/// than one, or a name that is not its labels' (not a phase expansion made).
pub(crate) fn round_and_cell(name: &str, labels: &[Label]) -> Option<(u32, String)> {
    let mut rounds = labels.iter().filter(|l| is_round(l));
    let round = rounds.next()?.value.parse().ok()?;
    if rounds.next().is_some() {
        return None;
    }
    let base = name.strip_suffix(named("", labels.iter()).as_str())?;
    Some((round, named(base, labels.iter().filter(|l| !is_round(l)))))
}

/// The name of the `[[phase]]` table the phase `p` was expanded from: its name without the labels'
/// suffix [`named`] gave it.
pub(crate) fn table_name(p: &super::PhaseSpec) -> &str {
    let suffix = named("", p.labels.iter());
    p.name.strip_suffix(suffix.as_str()).unwrap_or(&p.name)
}

/// `base[label=value,...]`, or `base` without labels. A sweep's label names the sweep (`purge[op=93%]`:
/// the purge of the 93 % iteration, whatever its own span); a matrix label names the key
/// (`latency[bs=4KiB,read=65]`); a round is `round=N`.
fn named<'l>(base: &str, labels: impl Iterator<Item = &'l Label>) -> String {
    let tags: Vec<String> = labels
        .map(|l| format!("{}={}", l.sweep.as_deref().unwrap_or(&l.key), l.value))
        .collect();
    match tags.is_empty() {
        true => base.to_string(),
        false => format!("{base}[{}]", tags.join(",")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(key: &str, value: &str) -> Label {
        Label {
            key: key.into(),
            value: value.into(),
            sweep: None,
        }
    }

    /// A phase of a block of rounds is its round and cell by its name and labels; a name that is not its
    /// labels', or two round labels, is none.
    #[test]
    fn a_round_phase_is_its_round_and_cell() {
        let labels = [l("round", "3"), l("read", "70")];
        assert_eq!(
            round_and_cell("iops[round=3,read=70]", &labels),
            Some((3, "iops[read=70]".to_string()))
        );
        assert_eq!(round_and_cell("iops[round=4,read=70]", &labels), None);
        assert_eq!(round_and_cell("iops[read=70]", &labels[1..]), None);
        let twice = [l("round", "3"), l("round", "3")];
        assert_eq!(round_and_cell("iops[round=3,round=3]", &twice), None);
        assert_eq!(
            round_and_cell("fill[round=1]", &[l("round", "1")]),
            Some((1, "fill".to_string()))
        );
    }
}
