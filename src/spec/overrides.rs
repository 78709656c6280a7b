//! `--set KEY=VALUE`: replace a key in `[defaults]` and in every phase that sets it, after sweeps and matrices
//! are expanded; when nothing sets it, set it in `[defaults]` (`--set engine=libaio`) (e.g. `--set
//! duration=10s` for a one-minute trial of an hours-long spec). `--set phase.NAME.KEY=VALUE` sets KEY in the
//! phase NAME only (and in every phase expanded from a `[[phase]]` of that name). The value is TOML (`10`,
//! `"10s"`); a bare word that is not TOML is taken as a string (`10s`).
//!
//! A key that a sweep or a matrix list varies is changed in the lists, before expansion, so that names and
//! labels follow: `--set span=50%` makes every list of `span` the one value `50%` (one member, labelled
//! `op=50%`), `--set 'span=["100%", "50%"]'` replaces every list of `span`, and `--set sweep.NAME=V1,V2`
//! replaces the values of the sweep NAME only. These are applied first, the spec expanded again, then the
//! other overrides in order.
//!
//! Errors name the argument as given (`--set engine=foo: unknown value ...`), never the spec's line: a rule the
//! new value breaks, here or at plan time ([`LoadedSpec::phase_error`]), is reported against the `--set`.

use super::keys::{self, KEYS};
use super::load::{Cause, SpecErrors};
use super::{Defaults, LoadedSpec, PhaseSpec, rules};
use toml::Value;

/// How many phase names a line of [`LoadedSpec::set_lines`] shows.
pub const SHOWN: usize = 12;

/// One `--set` argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// The argument as given (`duration=10s`, `phase.w.queue_depth=8`), for messages.
    pub arg: String,
    /// The phase addressed by `phase.NAME.KEY=VALUE`: a phase's name, or the name of the `[[phase]]` it was
    /// expanded from. `None`: every phase and `[defaults]`.
    pub phase: Option<String>,
    /// The sweep addressed by `sweep.NAME=V1,V2,...`: its name (`key` is then empty, the sweep's own key
    /// is meant, and `value` is a list). `None` otherwise.
    pub sweep: Option<String>,
    /// The block of rounds addressed by `repeat.NAME.KEY=VALUE`: its name (`key` one of its numbers).
    /// `None` otherwise.
    pub block: Option<String>,
    /// The key.
    pub key: String,
    /// The value: one value, or a list (only for `sweep.NAME=` and a key a sweep or matrix list varies).
    pub value: Value,
}

/// Whether a later `--set` of `sets` than the `k`th gives the `k`th's key its value wherever the `k`th gives
/// it: both set the key in every phase (neither names a phase, a sweep or a block of rounds). A list
/// replaces a value (its phases are the matrix over the list) as a value replaces a list.
fn replaced_later(sets: &[Override], k: usize) -> bool {
    let every = |o: &Override| o.phase.is_none() && o.sweep.is_none() && o.block.is_none();
    every(&sets[k])
        && sets[k + 1..]
            .iter()
            .any(|l| every(l) && l.key == sets[k].key)
}

/// Parses `KEY=VALUE` or `phase.NAME.KEY=VALUE` (NAME may hold `.` and `=`, as expanded names do: the
/// first `=` that ends `NAME.KEY` with KEY made of `a-z`, `0-9` and `_` ends the key; a NAME in TOML
/// quotes, `phase."a.b=c".KEY=VALUE`, is taken whole).
///
/// # Errors
/// A message when there is no `=`, the key is empty, or the value is a list.
pub fn parse(arg: &str) -> Result<Override, String> {
    let shown = crate::text::echo(arg);
    if let Some(rest) = arg.strip_prefix("sweep.") {
        return parse_sweep(arg, rest);
    }
    if let Some(rest) = arg.strip_prefix("repeat.") {
        return parse_block(arg, rest);
    }
    let (phase, k, v) = match arg.strip_prefix("phase.") {
        Some(rest) => {
            let split = match rest.starts_with(['"', '\'']) {
                true => split_quoted(rest),
                false => split_phase(rest).map(|(n, k, v)| (n.to_string(), k, v)),
            };
            let (name, k, v) = split.ok_or_else(|| {
                format!(
                    "--set {shown}: expected phase.NAME.KEY=VALUE, e.g. --set phase.w.queue_depth=8 (a NAME with `.` or `=` in TOML quotes: phase.\"a.b\".queue_depth=8)"
                )
            })?;
            (Some(name), k, v)
        }
        None => {
            let (k, v) = arg.split_once('=').ok_or_else(|| {
                format!("--set {shown}: expected KEY=VALUE, e.g. --set duration=10s")
            })?;
            (None, k, v)
        }
    };
    let k = k.trim_ascii();
    if k.is_empty() {
        return Err(format!("--set {shown}: the key is empty"));
    }
    let value = toml_or_text(arg, v)?;
    if value.is_array() && phase.is_some() && !takes_list(k) {
        return Err(format!(
            "--set {shown}: one phase takes one value; a list replaces a sweep's values (--set sweep.NAME=V1,V2) or every list of a key (--set KEY=[...])"
        ));
    }
    if value.as_array().is_some_and(Vec::is_empty) {
        return Err(format!("--set {shown}: the list is empty"));
    }
    Ok(Override {
        arg: arg.to_string(),
        phase,
        sweep: None,
        block: None,
        key: k.to_string(),
        value,
    })
}

/// Whether `key`'s one value is a list (`windows`, `headline`): a TOML array given to it is that value, not
/// a list of values to vary.
fn takes_list(key: &str) -> bool {
    keys::find(key.trim()).is_some_and(|k| k.list)
}

/// Whether `w` is a whole number in decimal digits, signed or not (`-12`, `18446744073709551615`; not `08`,
/// which TOML refuses for its leading zero, nor the empty word).
fn is_whole_number(w: &str) -> bool {
    let digits = w.strip_prefix(['+', '-']).unwrap_or(w);
    !digits.is_empty() && !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `v` read as one TOML value, or as a string when it is no TOML (a bare word: `10s`).
///
/// # Errors
/// A message naming `arg` (its control characters shown escaped) when `v` is more than one value (TOML that
/// goes on after a line break: `8\n[spec]\nname="x"`, which was once read as `8` with the rest dropped),
/// or a word that holds a control character (a line break, an escape).
fn toml_or_text(arg: &str, v: &str) -> Result<Value, String> {
    let refuse = |why: &str| {
        Err(format!(
            "--set {}: the value {why}; give one TOML value or one word (--set once per key)",
            crate::text::echo(arg)
        ))
    };
    match toml::from_str::<toml::Table>(&format!("v = {v}")) {
        Ok(mut t) => match (t.len(), t.remove("v")) {
            (1, Some(value)) => Ok(value),
            _ => refuse("is more than one TOML value: it goes on after a line break"),
        },
        // The rule of `--label`: C0, DEL and C1 controls (U+0085 too, which `trim` would drop as white
        // space), and format and separator characters (U+2028) that break or reorder a line shown.
        Err(_) if v.chars().any(crate::text::hidden_char) => {
            refuse(match v.chars().any(char::is_control) {
                true => "is not one TOML value, and as a word it holds a control character",
                false => {
                    "is not one TOML value, and as a word it holds a line separator or format character"
                }
            })
        }
        // A whole number TOML cannot hold (it was read as the word, and refused as "invalid type: string").
        Err(_) if is_whole_number(v.trim_ascii()) => Err(format!(
            "--set {}: the value is a whole number past TOML's integers (-9223372036854775808 to 9223372036854775807), the most --set can give; a larger one goes in the spec file",
            crate::text::echo(arg)
        )),
        Err(_) => Ok(Value::String(v.trim_ascii().to_string())),
    }
}

/// `sweep.NAME=VALUES` (`rest` is what follows `sweep.`): the values as a TOML list, or separated by commas
/// (`100%,50%`), each read as [`toml_or_text`]; one value is a list of one.
fn parse_sweep(arg: &str, rest: &str) -> Result<Override, String> {
    let shown = crate::text::echo(arg);
    let usage = || {
        format!("--set {shown}: expected sweep.NAME=VALUE,VALUE,..., e.g. --set sweep.op=100%,50%")
    };
    let (name, v) = rest.split_once('=').ok_or_else(usage)?;
    let name = name.trim();
    if name.is_empty() {
        return Err(usage());
    }
    let values = match toml_or_text(arg, v)? {
        Value::Array(a) => a,
        _ => {
            let items: Vec<&str> = v.split(',').map(str::trim_ascii).collect();
            if items.iter().any(|i| i.is_empty()) {
                return Err(format!("--set {shown}: an empty value in the list"));
            }
            items
                .into_iter()
                .map(|i| toml_or_text(arg, i))
                .collect::<Result<_, _>>()?
        }
    };
    if values.is_empty() {
        return Err(format!("--set {shown}: the list is empty"));
    }
    if let Some(d) = values
        .iter()
        .enumerate()
        .find_map(|(i, x)| values[..i].contains(x).then_some(x))
    {
        return Err(format!(
            "--set {shown}: the value {d} is given twice (phase names would repeat)"
        ));
    }
    Ok(Override {
        arg: arg.to_string(),
        phase: None,
        sweep: Some(name.to_string()),
        block: None,
        key: String::new(),
        value: Value::Array(values),
    })
}

/// The position of the table named `name` among `names` (of the tables of `what`: `sweep`, `[[repeat]]`;
/// `plural` in messages: `sweeps`, `blocks`).
///
/// # Errors
/// The spec has none of that name: its names, or that it has none.
fn named<'a>(
    arg: &str,
    (what, plural): (&str, &str),
    names: impl Iterator<Item = &'a str>,
    name: &str,
) -> Result<usize, String> {
    let names: Vec<&str> = names.collect();
    let (shown, said) = (crate::text::echo(arg), crate::text::echo(name));
    names
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| match names.is_empty() {
            true => format!("--set {shown}: this spec has no {what}"),
            false => format!(
                "--set {shown}: this spec has no {what} \"{said}\"; its {plural}: {}",
                names.join(", ")
            ),
        })
}

/// The keys of a `[[repeat]]` that `--set repeat.NAME.KEY=VALUE` may change: its numbers.
const BLOCK_KEYS: [&str; 4] = ["max_rounds", "window", "data_excursion", "slope_excursion"];

/// `repeat.NAME.KEY=VALUE`: one number of the block of rounds NAME.
fn parse_block(arg: &str, rest: &str) -> Result<Override, String> {
    let shown = crate::text::echo(arg);
    // NAME in TOML quotes (`repeat."iops".max_rounds=5`) is taken as TOML reads a quoted key.
    let split = match rest.starts_with(['"', '\'']) {
        true => split_quoted(rest),
        false => {
            let (left, v) = rest.split_once('=').unwrap_or((rest, ""));
            left.rsplit_once('.')
                .filter(|(n, _)| !n.is_empty())
                .map(|(n, k)| (n.to_string(), k, v))
        }
    };
    let Some((name, key, v)) = split else {
        return Err(format!(
            "--set {shown}: expected repeat.NAME.KEY=VALUE, e.g. --set repeat.iops.max_rounds=5 (a NAME with `.` or `=` in TOML quotes: repeat.\"a.b\".max_rounds=5)"
        ));
    };
    if !BLOCK_KEYS.contains(&key) {
        return Err(format!(
            "--set {shown}: `{key}` is not a key --set can change in a [[repeat]]; its keys: {}",
            BLOCK_KEYS.join(", ")
        ));
    }
    Ok(Override {
        arg: arg.to_string(),
        phase: None,
        sweep: None,
        block: Some(name),
        key: key.to_string(),
        value: toml_or_text(arg, v)?,
    })
}

/// `"NAME".KEY=VALUE` or `'NAME'.KEY=VALUE`: NAME a TOML basic (escapes read as TOML reads them) or literal
/// string, as in a TOML dotted key, so that a name holding `.` or `=` (`a.b=c`) can be named.
fn split_quoted(rest: &str) -> Option<(String, &str, &str)> {
    let q = rest.chars().next()?;
    let mut escaped = false;
    let end = rest.char_indices().skip(1).find_map(|(i, c)| {
        match (q, escaped, c) {
            ('"', true, _) => escaped = false,
            ('"', false, '\\') => escaped = true,
            (_, _, c) if c == q => return Some(i),
            _ => {}
        }
        None
    })?;
    let table: toml::Table = toml::from_str(&format!("n = {}", &rest[..=end])).ok()?;
    let name = table.get("n")?.as_str()?.to_string();
    let (k, v) = rest[end + 1..].strip_prefix('.')?.split_once('=')?;
    Some((name, k, v))
}

/// `NAME.KEY=VALUE` split at the first `=` that ends a `NAME.KEY`.
fn split_phase(rest: &str) -> Option<(&str, &str, &str)> {
    rest.match_indices('=').find_map(|(i, _)| {
        let (name, key) = rest[..i].rsplit_once('.')?;
        let word = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        (word && !name.is_empty()).then(|| (name, key, &rest[i + 1..]))
    })
}

/// The key a sweep varies: its one list among the keys a sweep may hold (`span`, `block_size`, ...).
fn swept_key_name(s: &super::SweepSpec) -> Option<&'static str> {
    keys::matrix_keys()
        .into_iter()
        .find(|(_, m)| m.sweep.is_some_and(|list| list(s).is_some()))
        .map(|(k, _)| k.name)
}

/// Sets `key` of `item` to `value` (only if `item` has it, unless `insert`): `Ok(None)` when it does not;
/// the error says what is wrong with the value, in the words of spec errors (and a `help:` line).
fn replace<T: serde::Serialize + serde::de::DeserializeOwned>(
    item: &T,
    key: &str,
    value: &Value,
    insert: bool,
) -> Result<Option<T>, String> {
    let mut table = Value::try_from(item).map_err(|e| e.to_string())?;
    let Some(t) = table.as_table_mut() else {
        return Ok(None);
    };
    if !insert && !t.contains_key(key) {
        return Ok(None);
    }
    t.insert(key.to_string(), value.clone());
    T::deserialize(table).map(Some).map_err(|e| {
        let raw = value.to_string();
        let (message, help) = super::load::value_error(key, &raw, e.message());
        // The value is echoed cut, as every value in a message is.
        let message = crate::text::clip_quoted(&message, '"', crate::text::ECHO);
        match help {
            Some(h) => format!("{message}\n  help: {h}"),
            None => message.into_owned(),
        }
    })
}

/// A value error in the words of the command line: the hint for a bare number names a TOML string (`write
/// a duration as a string with its unit, e.g. "20s"`), which `--set` gives without quotes: `e.g. --set
/// duration=20s` (with the key as the override wrote it, `phase.NAME.duration`).
fn command_line_words(e: String, o: &Override) -> String {
    const TOML: &str = " as a string with its unit, e.g. \"";
    let Some(at) = e.find(TOML) else {
        return e;
    };
    let rest = &e[at + TOML.len()..];
    let Some(end) = rest.find('"') else {
        return e;
    };
    let key = o.arg.split_once('=').map_or(o.arg.as_str(), |(k, _)| k);
    format!(
        "{} with its unit, e.g. --set {key}={}{}",
        &e[..at],
        &rest[..end],
        &rest[end + 1..]
    )
}

/// Why a key cannot be set at all: not a key (a fio option's wkrun name, or the nearest key), or not one
/// `--set` may change.
fn refuse_key(o: &Override) -> Option<String> {
    let arg = crate::text::echo(&o.arg);
    let key = o.key.as_str();
    let said = crate::text::echo(key);
    if let Some(hint) = keys::fio_hint(key, o.value.as_str()) {
        return Some(format!("--set {arg}: {hint}"));
    }
    match keys::find(key) {
        // A phase's kind decides which keys it takes and what its keys mean: a fill made a workload (or every
        // phase made one kind) is another spec, not an override of this one.
        Some(k) if k.name == "kind" => Some(format!(
            "--set {arg}: `kind` is what a phase is (the keys it takes follow from it), and --set cannot change it; write a phase of that kind in the spec"
        )),
        Some(k) if !k.settable => Some(format!("--set {arg}: `{said}` cannot be changed by --set")),
        // Every phase given one name (all but a one-phase spec then refused as duplicates), or a user
        // who meant the run's name: neither is what `--set name=` should do.
        Some(k) if k.name == "name" && o.phase.is_none() => Some(format!(
            "--set {arg}: `name` is each phase's own name, and --set cannot give every phase one; rename one phase with --set phase.NAME.name=NEW (the spec's [spec] name, which names the results folder, is not changed by --set: choose the folder with -o)"
        )),
        Some(_) => None,
        // `phase.a.b=c.queue_depth=4` read as the phase `a` and the key `b`.
        None if o.phase.is_some() => Some(format!(
            "--set {arg}: `{said}` is not a key; a phase name holding `.` or `=` goes in TOML quotes: phase.\"NAME\".KEY=VALUE"
        )),
        None => {
            let mut known: Vec<&str> = KEYS.iter().filter(|k| k.settable).map(|k| k.name).collect();
            known.sort_unstable();
            Some(match super::load::nearest(key, &known) {
                Some(k) => format!("--set {arg}: `{said}` is not a key (did you mean `{k}`?)"),
                None => format!(
                    "--set {arg}: `{said}` is not a key; keys: {}",
                    known.join(", ")
                ),
            })
        }
    }
}

/// `--set phase.NAME.name=NEW` on a phase a sweep, a matrix list or a `[[repeat]]` block made (`p`, of the
/// `[[phase]]` named `orig`): its members are named after the `[[phase]]` (and a sweep lists it by name), so
/// renaming one is renaming it in the file.
fn refuse_rename(p: &PhaseSpec, orig: &str, arg: &str) -> Result<(), String> {
    let by = match (
        p.labels.iter().find_map(|l| l.sweep.as_ref()),
        &p.labels[..],
    ) {
        (Some(sweep), _) => format!("is in sweep \"{}\"", crate::text::echo(sweep)),
        (None, [l, ..]) => format!("is a member of a matrix list of `{}`", l.key),
        (None, []) if p.round.is_some() => "is in a [[repeat]] block".to_string(),
        (None, []) => return Ok(()),
    };
    Err(format!(
        "--set {arg}: phase \"{}\" {by}, which names its phases after their [[phase]] \"{}\": rename it in the file",
        crate::text::echo(&p.name),
        crate::text::echo(orig)
    ))
}

/// What expansion gave `old` and a phase rebuilt from its keys (`new`) does not have: its `[[phase]]`, labels
/// and round.
fn keep_expansion(new: &mut PhaseSpec, old: &mut PhaseSpec) {
    new.origin = old.origin;
    new.labels = std::mem::take(&mut old.labels);
    new.round = old.round.take();
}

/// `--set` overrides refused: why, and what refused them ([`Cause::Limit`] when the phases they re-list,
/// expanded again, need more address space than is left: exit 1; else bad input, exit 2).
#[derive(Debug, Clone)]
pub struct OverrideError {
    /// The message, naming the override.
    pub message: String,
    /// What refused them.
    pub cause: Cause,
}

impl OverrideError {
    /// The exit status of a command this refusal stops: 1 for a resource limit, else 2.
    pub fn exit_code(&self) -> u8 {
        SpecErrors(Vec::new(), self.cause).exit_code()
    }
}

impl From<String> for OverrideError {
    fn from(message: String) -> OverrideError {
        OverrideError {
            message,
            cause: Cause::Input,
        }
    }
}

impl std::fmt::Display for OverrideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl LoadedSpec {
    /// Applies `--set` overrides in order, then checks the rules again.
    ///
    /// # Errors
    /// A message naming the override when the key is not one `--set` may change (every such override, each
    /// line after the first starting `error: FILE: `), no phase or default sets it,
    /// the value does not fit the key, or the result breaks a rule (every broken rule, each line after the
    /// first starting `error: FILE: `).
    pub fn apply_overrides(&mut self, sets: &[Override]) -> Result<(), OverrideError> {
        let refused: Vec<String> = sets
            .iter()
            .filter(|o| o.sweep.is_none() && o.block.is_none())
            .filter_map(refuse_key)
            .collect();
        if !refused.is_empty() {
            return Err(refused
                .join(&format!("\nerror: {}: ", self.path.display()))
                .into());
        }
        let mut relisted = false;
        for (k, o) in sets.iter().enumerate() {
            // Checked, then undone, when a later --set gives the key its value everywhere (attack 18 F2:
            // `--set queue_depth=[1,2] --set queue_depth=8` left `fill[qd=8]`, `rw[qd=8]`, where
            // `--set queue_depth=8` alone plans `fill` and `rw`).
            if replaced_later(sets, k) {
                let kept = (
                    self.file.sweep.clone(),
                    self.file.phase.clone(),
                    self.file.repeat.clone(),
                );
                self.set_lists(o).map_err(|e| command_line_words(e, o))?;
                (self.file.sweep, self.file.phase, self.file.repeat) = kept;
                continue;
            }
            relisted |= self.set_lists(o).map_err(|e| command_line_words(e, o))?;
        }
        if relisted {
            self.phases = super::expand::expand(&self.file).map_err(|r| {
                let all: Vec<_> = sets.iter().map(|o| crate::text::echo(&o.arg)).collect();
                OverrideError {
                    message: format!("after --set {}: {}", all.join(" "), r.message),
                    cause: if r.limit { Cause::Limit } else { Cause::Input },
                }
            })?;
        }
        for (k, o) in sets.iter().enumerate() {
            match (&o.sweep, &o.phase) {
                _ if o.block.is_some() => {}
                (Some(_), _) => {}
                (None, None) if o.value.is_array() && !takes_list(&o.key) => {}
                // Checked, then undone: a later --set gives the key its value in every phase (a list, its
                // phases: this value set after them would run each with it).
                (None, None) if replaced_later(sets, k) => {
                    let kept = (self.file.defaults.clone(), self.phases.clone());
                    self.set_everywhere(o, &[])
                        .map_err(|e| command_line_words(e, o))?;
                    (self.file.defaults, self.phases) = kept;
                }
                (None, None) => {
                    let later: Vec<&str> = sets[k + 1..]
                        .iter()
                        .filter_map(|l| l.sweep.as_deref())
                        .collect();
                    self.set_everywhere(o, &later)
                        .map_err(|e| command_line_words(e, o))?
                }
                (None, Some(name)) => self
                    .set_in_phase(o, name)
                    .map_err(|e| command_line_words(e, o))?,
            }
            let shown = match (&o.block, &o.sweep, &o.phase) {
                (Some(name), _, _) => format!("repeat.{name}.{}={}", o.key, o.value),
                (None, Some(name), _) => format!("sweep.{name}={}", o.value),
                (None, None, None) => format!("{}={}", o.key, o.value),
                (None, None, Some(name)) => format!("phase.{name}.{}={}", o.key, o.value),
            };
            self.overrides.push(shown);
            self.sets.push(o.clone());
        }
        let broken = rules::check_all(&self.file, &self.phases)
            .into_iter()
            .map(|r| (r.phase, r))
            .collect();
        let broken: Vec<String> = super::once::once_per_phase(
            &self.phases,
            broken,
            |r| (r.path.clone(), r.message.clone()),
            |r, note| r.message.push_str(note),
        )
        .into_iter()
        .map(|r| self.rule_after_set(r))
        .collect();
        if broken.is_empty() {
            return Ok(());
        }
        Err(broken
            .join(&format!("\nerror: {}: ", self.path.display()))
            .into())
    }

    /// A broken rule, named after the `--set` that gave the key its value.
    fn rule_after_set(&self, r: rules::RuleError) -> String {
        let key = r.path.rsplit('.').next().unwrap_or("");
        let one = r.phase.and_then(|i| self.phases.get(i));
        let field = super::load::describe_phase_field(&r.path, one);
        let culprit = match r.phase {
            Some(i) => std::iter::once(key)
                .chain(r.also.iter().copied())
                .find_map(|k| self.set_for(i, k)),
            None => self
                .sets
                .iter()
                .rev()
                .find(|o| o.phase.is_none() && o.key == key),
        };
        let head = match culprit {
            Some(o) => format!("--set {}", crate::text::echo(&o.arg)),
            None => {
                let all: Vec<_> = self
                    .sets
                    .iter()
                    .map(|o| crate::text::echo(&o.arg))
                    .collect();
                format!("after --set {}", all.join(" "))
            }
        };
        let help = r.help.map(|h| format!("\n  help: {h}")).unwrap_or_default();
        let said = format!("{field}: {}", r.message);
        let said = crate::text::clip_quoted(&said, '"', crate::text::ECHO);
        format!("{head}: {said}{help}")
    }

    /// One line per `--set`, naming the (expanded) phases it changed, since `--set KEY=VALUE` changes
    /// every phase that has KEY, which surprised users (`--set queue_depth=8: phases prep, mix`). A phase
    /// counts when the `--set` gave it its value (and no later one replaced it), or when it is a member of a
    /// sweep or matrix list the `--set` changed. Up to [`SHOWN`] names, then how many more.
    pub fn set_lines(&self) -> Vec<String> {
        self.sets
            .iter()
            .enumerate()
            .map(|(k, o)| {
                let names: Vec<&str> = (0..self.phases.len())
                    .filter(|&i| self.changed(k, i))
                    .map(|i| self.phases[i].name.as_str())
                    .collect();
                let arg = crate::text::echo(&o.arg);
                let more = names.len().saturating_sub(SHOWN);
                match names.as_slice() {
                    [] => {
                        format!("--set {arg}: changes no phase (a later --set replaces its value)")
                    }
                    [one] => format!("--set {arg}: phase {one}"),
                    _ if more == 0 => format!("--set {arg}: phases {}", names.join(", ")),
                    _ => format!(
                        "--set {arg}: {} phases: {}, and {more} more",
                        names.len(),
                        names[..SHOWN].join(", ")
                    ),
                }
            })
            .collect()
    }

    /// Whether the `k`th `--set` changed the (expanded) phase `i`: a member of the sweep it names, or of a
    /// sweep or matrix list of its key; or the phase takes its key's value from it. Never when a later
    /// `--set` of its key replaces it ([`replaced_later`]), list or not.
    fn changed(&self, k: usize, i: usize) -> bool {
        let (o, p) = (&self.sets[k], &self.phases[i]);
        if replaced_later(&self.sets, k) {
            return false;
        }
        if let Some(name) = &o.block {
            let k = self.file.repeat.iter().position(|r| &r.name == name);
            return p.round.as_ref().is_some_and(|t| Some(t.block) == k);
        }
        let later = &self.sets[k + 1..];
        let varies = |sweep: &str, key: &str| {
            let s = self.file.sweep.iter().find(|s| s.name == sweep);
            s.and_then(swept_key_name) == Some(key)
        };
        if let Some(name) = &o.sweep {
            // A later --set of the sweep's key everywhere gives its members their value.
            let key = self.file.sweep.iter().find(|s| &s.name == name);
            let key = key.and_then(swept_key_name).unwrap_or("");
            let every = |l: &Override| l.phase.is_none() && l.sweep.is_none() && l.block.is_none();
            return !later.iter().any(|l| every(l) && l.key == key)
                && p.labels.iter().any(|l| l.sweep.as_ref() == Some(name));
        }
        // A later --set sweep.NAME= of a sweep of this key gives its members their values.
        let swept_later = later.iter().any(|l| {
            l.sweep.as_ref().is_some_and(|s| {
                varies(s, &o.key) && p.labels.iter().any(|x| x.sweep.as_ref() == Some(s))
            })
        });
        if o.phase.is_none() && swept_later {
            return false;
        }
        let short = keys::find(&o.key).and_then(|r| r.matrix.as_ref().map(|m| m.label));
        let listed = o.phase.is_none() && p.labels.iter().any(|l| Some(l.key.as_str()) == short);
        let last = self.set_for(i, &o.key).map(|x| std::ptr::eq(x, o));
        let one = !o.value.is_array() || takes_list(&o.key);
        listed || (one && last == Some(true))
    }

    /// The last `--set` that gave `key` its value in the (expanded) phase `i`, if one did. A `phase.NAME.`
    /// addresses the phase by the name it had when that `--set` was applied, as `set_in_phase`
    /// found it: its `[[phase]]`'s, or its own then (`--set phase.rw.name=fill --set phase.fill.name=x`
    /// renames `rw` twice, the second time as `fill`).
    pub fn set_for(&self, i: usize, key: &str) -> Option<&Override> {
        let p = self.phases.get(i)?;
        let row = keys::find(key)?;
        let d = self.file.defaults.clone().unwrap_or_default();
        let has = (row.is_set)(&keys::with_defaults(p, &d));
        let origin = p.origin.and_then(|o| self.file.phase.get(o));
        let origin = origin.map(|o| o.name.as_str());
        fn rename(o: &Override) -> Option<(&str, &str)> {
            match (&o.phase, o.value.as_str()) {
                (Some(old), Some(new)) if o.key == "name" => Some((old.as_str(), new)),
                _ => None,
            }
        }
        // Its name before the first --set: its name now, each rename undone from the last.
        let mut name = p.name.as_str();
        for (old, new) in self.sets.iter().rev().filter_map(|o| rename(o)) {
            if new == name {
                name = old;
            }
        }
        let mut last = None;
        for o in &self.sets {
            let addressed = match o.phase.as_deref() {
                None => has,
                Some(n) => n == name || Some(n) == origin,
            };
            if !addressed {
                continue;
            }
            if o.key == key {
                last = Some(o);
            }
            if let Some((_, new)) = rename(o) {
                name = new;
            }
        }
        last
    }

    /// The names `phase.NAME.` matches for `p`: its own, and that of the `[[phase]]` it came from.
    fn names<'a>(&'a self, p: &'a PhaseSpec) -> Vec<&'a str> {
        let mut names = vec![p.name.as_str()];
        if let Some(orig) = p.origin.and_then(|o| self.file.phase.get(o)) {
            names.push(orig.name.as_str());
        }
        names
    }

    /// `--set KEY=VALUE`: in `[defaults]` and every phase that sets KEY, else added to `[defaults]`.
    fn set_everywhere(&mut self, o: &Override, later_sweeps: &[&str]) -> Result<(), String> {
        let (key, arg) = (o.key.as_str(), crate::text::echo(&o.arg));
        // The lists of a key a sweep or matrix varies were set to this one value before expansion
        // ([`Self::set_lists`]): names and labels say it.
        let mut hits = 0;
        if let Some(d) = &self.file.defaults
            && let Some(new) = replace::<Defaults>(d, key, &o.value, false)
                .map_err(|e| format!("--set {arg}: {e}"))?
        {
            self.file.defaults = Some(new);
            hits += 1;
        }
        // A member of a sweep of the key whose values a later `--set sweep.NAME=` gave has its value from
        // them (attack 18 F1: `--set queue_depth=3 --set sweep.qd=4,8` ran `w[qd=4]` and `w[qd=8]` both
        // at queue depth 3).
        let listed = |p: &PhaseSpec| {
            p.labels.iter().any(|l| {
                l.sweep.as_deref().is_some_and(|s| {
                    later_sweeps.contains(&s)
                        && self
                            .file
                            .sweep
                            .iter()
                            .any(|w| w.name == s && swept_key_name(w) == Some(key))
                })
            })
        };
        for p in &mut self.phases {
            if listed(p) {
                hits += 1;
                continue;
            }
            if let Some(mut new) = replace::<PhaseSpec>(p, key, &o.value, false)
                .map_err(|e| format!("--set {arg}: {e}"))?
            {
                keep_expansion(&mut new, p);
                *p = new;
                hits += 1;
            }
        }
        if hits > 0 {
            return Ok(());
        }
        // Nothing sets the key: set it in [defaults], which every phase that accepts it inherits.
        if keys::find(key).is_some_and(|k| k.inherit.is_none()) {
            return Err(format!(
                "--set {arg}: no phase of this spec sets `{key}`, and [defaults] cannot hold it; set it in one phase with --set phase.NAME.{key}=..."
            ));
        }
        // A default no phase takes would change nothing: said, rather than recorded as if it did.
        if let Some(row) = keys::find(key)
            && !self.phases.iter().any(|p| row.kinds.has(p.kind))
        {
            return Err(format!(
                "--set {arg}: no phase of this spec takes `{key}` (its phases: {}), so it would change nothing",
                self.phase_kinds()
            ));
        }
        let d = self.file.defaults.clone().unwrap_or_default();
        if let Some(new) =
            replace::<Defaults>(&d, key, &o.value, true).map_err(|e| format!("--set {arg}: {e}"))?
        {
            self.file.defaults = Some(new);
        }
        Ok(())
    }

    /// The kinds of the spec's phases, each once (`erase, verify`).
    fn phase_kinds(&self) -> String {
        let mut kinds: Vec<&str> = Vec::new();
        for p in &self.phases {
            if !kinds.contains(&p.kind.as_str()) {
                kinds.push(p.kind.as_str());
            }
        }
        kinds.join(", ")
    }

    /// The lists `o` changes in the spec as written, before expansion: the sweep `sweep.NAME=` names, or
    /// for `KEY=VALUE` every sweep and matrix list of KEY (made the one value, or the list given). Whether
    /// it changed one.
    ///
    /// # Errors
    /// An unknown sweep (with the spec's sweeps), a value the key does not take, or a list for a key no
    /// sweep or matrix list varies.
    fn set_lists(&mut self, o: &Override) -> Result<bool, String> {
        let arg = o.arg.as_str();
        let shown = crate::text::echo(arg);
        if let Some(name) = &o.block {
            let names = self.file.repeat.iter().map(|r| r.name.as_str());
            let k = named(arg, ("[[repeat]]", "blocks"), names, name)?;
            self.file.repeat[k] = replace(&self.file.repeat[k], &o.key, &o.value, true)
                .map_err(|e| format!("--set {shown}: {e}"))?
                .ok_or_else(|| format!("--set {shown}: [[repeat]] \"{name}\" is not a table"))?;
            return Ok(true);
        }
        if let Some(name) = &o.sweep {
            let names = self.file.sweep.iter().map(|s| s.name.as_str());
            let k = named(arg, ("sweep", "sweeps"), names, name)?;
            let key = swept_key_name(&self.file.sweep[k])
                .ok_or_else(|| format!("--set {shown}: sweep \"{name}\" has no key to sweep"))?;
            self.file.sweep[k] = replace(&self.file.sweep[k], key, &o.value, false)
                .map_err(|e| format!("--set {shown}: {e}"))?
                .ok_or_else(|| format!("--set {shown}: sweep \"{name}\" has no key to sweep"))?;
            return Ok(true);
        }
        if o.phase.is_some() || takes_list(&o.key) {
            return Ok(false);
        }
        let list = match &o.value {
            Value::Array(_) => o.value.clone(),
            one => Value::Array(vec![one.clone()]),
        };
        let mut hits = 0;
        for s in &mut self.file.sweep {
            if let Some(new) =
                replace(&*s, &o.key, &list, false).map_err(|e| format!("--set {shown}: {e}"))?
            {
                *s = new;
                hits += 1;
            }
        }
        let matrix = keys::matrix_keys();
        let listed = matrix.iter().find(|(k, _)| k.name == o.key);
        if listed.is_none() && hits == 0 && o.value.is_array() {
            let names: Vec<&str> = matrix.iter().map(|(k, _)| k.name).collect();
            return Err(format!(
                "--set {shown}: `{}` takes one value, not a list (the keys a list may vary: {}); give one value",
                o.key,
                names.join(", ")
            ));
        }
        if let Some((_, m)) = listed {
            for p in &mut self.file.phase {
                if (m.list)(p).is_some()
                    && let Some(new) = replace::<PhaseSpec>(p, &o.key, &list, false)
                        .map_err(|e| format!("--set {shown}: {e}"))?
                {
                    *p = new;
                    hits += 1;
                }
            }
        }
        // A list where no sweep or list varies the key: each `[[phase]]` that sets the key becomes a matrix
        // over the values (`--set 'block_size=["4KiB", "8KiB"]'` on a phase with `block_size = "4KiB"`).
        if let Some((k, _)) = listed.filter(|_| hits == 0 && o.value.is_array()) {
            for p in &mut self.file.phase {
                if (k.is_set)(p)
                    && let Some(new) = replace::<PhaseSpec>(p, &o.key, &list, false)
                        .map_err(|e| format!("--set {shown}: {e}"))?
                {
                    *p = new;
                    hits += 1;
                }
            }
        }
        if hits == 0 && o.value.is_array() {
            return Err(format!(
                "--set {shown}: no phase of this spec sets `{}`, nor does a sweep vary it; a list makes each phase that sets the key a matrix over its values, else give one value",
                o.key
            ));
        }
        Ok(hits > 0)
    }

    /// `--set phase.NAME.KEY=VALUE`: KEY set (or added) in every phase NAME names.
    fn set_in_phase(&mut self, o: &Override, name: &str) -> Result<(), String> {
        let (key, arg) = (o.key.as_str(), crate::text::echo(&o.arg));
        let said = crate::text::echo(name);
        let row = keys::find(key)
            .ok_or_else(|| format!("--set {arg}: `{}` is not a key", crate::text::echo(key)))?;
        let hit: Vec<usize> = (0..self.phases.len())
            .filter(|&i| self.names(&self.phases[i]).contains(&name))
            .collect();
        if hit.is_empty() {
            let names: Vec<&str> = self.phases.iter().map(|p| p.name.as_str()).collect();
            let hint = match super::load::nearest(name, &names) {
                Some(n) => format!(" (did you mean \"{n}\"?)"),
                None => format!("; its phases: {}", names.join(", ")),
            };
            return Err(format!(
                "--set {arg}: this spec has no phase \"{said}\"{hint}"
            ));
        }
        if key == "name" {
            let p = &self.phases[hit[0]];
            let orig = self.names(p).last().copied().unwrap_or_default();
            refuse_rename(p, orig, &arg)?;
        }
        let short = super::expand::label_of(key);
        for &i in &hit {
            let p = &self.phases[i];
            if !row.kinds.has(p.kind) {
                return Err(format!(
                    "--set {arg}: `{key}` does not apply to phase \"{}\", of kind \"{}\"",
                    p.name,
                    p.kind.as_str()
                ));
            }
            if p.labels.iter().any(|l| l.key == short) {
                return Err(format!(
                    "--set {arg}: `{key}` is varied by a matrix or sweep of this spec (phase \"{}\"), whose names and labels say each value; change the values with --set {key}=VALUE (every list of it) or --set sweep.NAME=V1,V2",
                    p.name
                ));
            }
            let mut new = replace::<PhaseSpec>(p, key, &o.value, true)
                .map_err(|e| format!("--set {arg}: {e}"))?
                .ok_or_else(|| format!("--set {arg}: phase \"{}\" cannot hold `{key}`", p.name))?;
            keep_expansion(&mut new, &mut self.phases[i]);
            self.phases[i] = new;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Override, parse};
    use toml::Value;

    fn o(arg: &str, phase: Option<&str>, key: &str, value: Value) -> Override {
        Override {
            arg: arg.into(),
            phase: phase.map(str::to_string),
            sweep: None,
            block: None,
            key: key.into(),
            value,
        }
    }

    #[test]
    fn values() {
        assert_eq!(
            parse("duration=10s").unwrap(),
            o(
                "duration=10s",
                None,
                "duration",
                Value::String("10s".into())
            )
        );
        assert_eq!(
            parse("queue_depth=4").unwrap(),
            o("queue_depth=4", None, "queue_depth", Value::Integer(4))
        );
        assert_eq!(
            parse("data=\"zeros\"").unwrap().value,
            Value::String("zeros".into())
        );
        assert!(parse("duration").is_err());
        assert_eq!(parse("queue_depth=8\n").unwrap().value, Value::Integer(8));
    }

    /// A value that goes on after a line break was read as its first line, the rest dropped (attacker,
    /// issue 24 item 19): it is refused, as is a word holding a control character.
    #[test]
    fn more_than_one_value_is_refused() {
        let tail = "; give one TOML value or one word (--set once per key)";
        assert_eq!(
            parse("queue_depth=8\n[spec]\nname=\"x\"").unwrap_err(),
            format!(
                "--set queue_depth=8\\n[spec]\\nname=\"x\": the value is more than one TOML value: it goes on after a line break{tail}"
            )
        );
        assert_eq!(
            parse("queue_depth=8\nduration=\"1s\"").unwrap_err(),
            format!(
                "--set queue_depth=8\\nduration=\"1s\": the value is more than one TOML value: it goes on after a line break{tail}"
            )
        );
        assert_eq!(
            parse("duration=1s\nseed=2").unwrap_err(),
            format!(
                "--set duration=1s\\nseed=2: the value is not one TOML value, and as a word it holds a control character{tail}"
            )
        );
        assert!(parse("phase.w.queue_depth=8\n[x]\ny=1").is_err());
        assert!(parse("sweep.op=50%,\u{1b}[2J").is_err());
    }

    /// `phase.NAME.KEY=VALUE`, NAME holding dots and `=` as expanded names do.
    #[test]
    fn phase_addresses() {
        assert_eq!(
            parse("phase.w.queue_depth=8").unwrap(),
            o(
                "phase.w.queue_depth=8",
                Some("w"),
                "queue_depth",
                Value::Integer(8)
            )
        );
        let p = parse("phase.w[bs=4KiB,read=65].queue_depth=8").unwrap();
        assert_eq!(
            (p.phase.as_deref(), p.key.as_str()),
            (Some("w[bs=4KiB,read=65]"), "queue_depth")
        );
        let p = parse("phase.a.b.duration=1s").unwrap();
        assert_eq!(
            (p.phase.as_deref(), p.key.as_str(), p.value),
            (Some("a.b"), "duration", Value::String("1s".into()))
        );
        assert_eq!(
            parse("phase.w=8").unwrap_err(),
            "--set phase.w=8: expected phase.NAME.KEY=VALUE, e.g. --set phase.w.queue_depth=8 (a NAME with `.` or `=` in TOML quotes: phase.\"a.b\".queue_depth=8)"
        );
    }

    /// `sweep.NAME=`: values separated by commas or as a TOML list, each read as TOML or text.
    #[test]
    fn sweep_values() {
        let s = |v: &[&str]| Value::Array(v.iter().map(|x| Value::String(x.to_string())).collect());
        let p = parse("sweep.op=100%,50%").unwrap();
        assert_eq!(
            (p.sweep.as_deref(), p.key.as_str(), p.phase, p.value),
            (Some("op"), "", None, s(&["100%", "50%"]))
        );
        assert_eq!(
            parse("sweep.op=[\"1%\", \"2%\"]").unwrap().value,
            s(&["1%", "2%"])
        );
        assert_eq!(parse("sweep.op=25%").unwrap().value, s(&["25%"]));
        assert_eq!(
            parse("sweep.qd=1,32").unwrap().value,
            Value::Array(vec![Value::Integer(1), Value::Integer(32)])
        );
        assert_eq!(
            parse("sweep.op").unwrap_err(),
            "--set sweep.op: expected sweep.NAME=VALUE,VALUE,..., e.g. --set sweep.op=100%,50%"
        );
        assert_eq!(
            parse("sweep.=1").unwrap_err(),
            "--set sweep.=1: expected sweep.NAME=VALUE,VALUE,..., e.g. --set sweep.op=100%,50%"
        );
        assert_eq!(
            parse("queue_depth=[]").unwrap_err(),
            "--set queue_depth=[]: the list is empty"
        );
    }
}
