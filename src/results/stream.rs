//! A `results.json` read in memory bounded by its typed form: the document is read as it streams by, one
//! phase at a time. Each phase is built as a JSON tree of its own, checked against the results schema's
//! phase definition ([`check::phase_violations`]), turned into a [`PhaseResult`] and dropped before the
//! next is read; the rest of the document (everything but `phases`, a few KB) is checked against the whole
//! schema with an empty list of phases, which the schema puts no other rule on. Before, the whole
//! document was one tree: about 30 times the file's size in memory (a 100 MB file took 2.98 GB and 41.6 s
//! to validate).

use super::check::{self, Violation};
use super::unique::{At, Twice, Unique};
use super::{PhaseResult, Results};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Why a document is not results this wkrun reads.
#[derive(Debug)]
pub enum Refused {
    /// Not JSON, or the reading failed (an I/O error, a limit passed: see [`serde_json::Error::is_io`]).
    Json(serde_json::Error),
    /// JSON, but not a results document of this format; the text says why.
    NotResults(String),
    /// Breaks the schema: at most [`check::MAX_VIOLATIONS`] violations, and the number of all.
    Schema(Vec<Violation>, usize),
}

/// What the reading found, phase by phase, before it is judged.
#[derive(Default)]
struct State {
    rest: Map<String, Value>,
    phases: Vec<PhaseResult>,
    shown: Vec<Violation>,
    all: usize,
    /// The first phase that matched the schema but not the types (a number past `u64::MAX`), said as such.
    untyped: Option<String>,
    /// `phases` was a list, read phase by phase (not kept in `rest`).
    listed: bool,
    /// The schema itself cannot be used (a wkrun bug).
    broken: Option<String>,
}

impl State {
    fn add(&mut self, (shown, all): (Vec<Violation>, usize)) {
        let room = check::MAX_VIOLATIONS.saturating_sub(self.shown.len());
        self.shown.extend(shown.into_iter().take(room));
        self.all += all;
    }

    /// Phase `i`, read as a tree: checked, and kept in its typed form while nothing is wrong so far.
    fn phase(&mut self, i: usize, v: &Value) {
        let at = format!("/phases/{i}");
        match check::phase_violations(v, &at) {
            Ok(found) => self.add(found),
            Err(e) => self.broken = Some(e),
        }
        if self.all > 0 || self.untyped.is_some() || self.broken.is_some() {
            return;
        }
        match serde::Deserialize::deserialize(v) {
            Ok(p) => self.phases.push(p),
            Err(e) => self.untyped = Some(untyped(v, &at, &e)),
        }
    }
}

/// Why a value the schema let through does not fit the types: a whole number past `u64::MAX` named by
/// its place, else the error of the types.
fn untyped(v: &Value, at: &str, e: &serde_json::Error) -> String {
    match too_big(v, at) {
        Some((at, n)) => format!(
            "{}: {n} is past the largest count a results file holds (2^64 - 1)",
            check::dotted(&at)
        ),
        None => e.to_string(),
    }
}

/// The JSON pointer and value of the first whole number in `v` past `u64::MAX` (the schema takes it as an
/// integer; the types cannot hold it), to name its place when the typed load fails.
fn too_big(v: &Value, at: &str) -> Option<(String, f64)> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .filter(|x| n.is_f64() && x.fract() == 0.0 && x.abs() > u64::MAX as f64 * 0.999_999)
            .map(|x| (at.to_string(), x)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| too_big(x, &format!("{at}/{i}"))),
        Value::Object(o) => o.iter().find_map(|(k, x)| {
            let k = k.replace('~', "~0").replace('/', "~1");
            too_big(x, &format!("{at}/{k}"))
        }),
        _ => None,
    }
}

/// The document's visitor: the top level must be an object (any other value is a data error); `phases` is
/// read an element at a time.
struct Doc<'s, F> {
    state: &'s mut State,
    each: &'s mut F,
    twice: &'s Twice,
}

impl<'de, F: FnMut(usize, &Value)> Visitor<'de> for Doc<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a results document (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut phases_seen = false;
        while let Some(key) = map.next_key::<String>()? {
            if self.state.rest.contains_key(&key) || (key == "phases" && phases_seen) {
                return Err(self.twice.found(&At::Doc, &key));
            }
            let at = At::Key(&At::Doc, &key);
            if key == "phases" {
                phases_seen = true;
                // A `phases` that is not a list is kept as a tree for the schema to refuse.
                let seed = Phases {
                    state: &mut *self.state,
                    each: &mut *self.each,
                    twice: self.twice,
                };
                match map.next_value_seed(seed)? {
                    Some(v) => self.state.rest.insert(key, v),
                    None => {
                        self.state.listed = true;
                        self.state.rest.shift_remove(&key)
                    }
                };
            } else {
                let v = map.next_value_seed(Unique {
                    at: &at,
                    twice: self.twice,
                })?;
                self.state.rest.insert(key, v);
            }
        }
        Ok(())
    }
}

impl<'de, F: FnMut(usize, &Value)> DeserializeSeed<'de> for Doc<'_, F> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// The value of `phases`: a list read one phase at a time (`None`), or anything else as a tree.
struct Phases<'s, F> {
    state: &'s mut State,
    each: &'s mut F,
    twice: &'s Twice,
}

impl<'de, F: FnMut(usize, &Value)> DeserializeSeed<'de> for Phases<'_, F> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, F: FnMut(usize, &Value)> Visitor<'de> for Phases<'_, F> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let mut i = 0;
        let phases = At::Key(&At::Doc, "phases");
        loop {
            let at = At::Item(&phases, i);
            let seed = Unique {
                at: &at,
                twice: self.twice,
            };
            let Some(v) = seq.next_element_seed(seed)? else {
                return Ok(None);
            };
            (self.each)(i, &v);
            self.state.phase(i, &v);
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Value>, A::Error> {
        let seed = Unique {
            at: &At::Key(&At::Doc, "phases"),
            twice: self.twice,
        };
        seed.visit_map(map).map(Some)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Option<Value>, E> {
        Ok(Some(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }

    fn visit_unit<E>(self) -> Result<Option<Value>, E> {
        Ok(Some(Value::Null))
    }
}

/// Reads the results document that `de` holds, checks it against the published results schema and returns
/// it typed; `each` sees every phase as the document has it (before the schema's check), in order.
///
/// # Errors
/// [`Refused`]: not JSON (or the reading failed), not a results document of this format (an object with a
/// key twice included), or violations of the schema.
pub fn read<'de, D, F>(de: D, mut each: F) -> Result<Results, Refused>
where
    D: Deserializer<'de, Error = serde_json::Error>,
    F: FnMut(usize, &Value),
{
    judge(scan(de, &mut each)?)
}

/// Reads the document `de` holds, phase by phase, into what [`judge`] judges.
///
/// # Errors
/// As [`read`], for what stops the reading.
fn scan<'de, D, F>(de: D, each: &mut F) -> Result<State, Refused>
where
    D: Deserializer<'de, Error = serde_json::Error>,
    F: FnMut(usize, &Value),
{
    let mut state = State::default();
    let twice = Twice::default();
    Doc {
        state: &mut state,
        each,
        twice: &twice,
    }
    .deserialize(de)
    .map_err(|e| match (twice.said(&e), e.classify()) {
        (Some(why), _) => Refused::NotResults(why),
        // The only other value the reading refuses by its type is the document itself: not an object.
        (None, serde_json::error::Category::Data) => {
            Refused::NotResults("the document is not a JSON object".into())
        }
        (None, _) => Refused::Json(e),
    })?;
    Ok(state)
}

/// Reads the results document in `bytes` ([`read`]), with nothing after it but white space.
///
/// # Errors
/// As [`read`].
pub fn from_slice<F: FnMut(usize, &Value)>(bytes: &[u8], mut each: F) -> Result<Results, Refused> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // What stopped the reading inside the document is its error (the text after that point is not
    // "trailing characters"); trailing text after a whole document is not JSON, whatever else is wrong.
    let state = scan(&mut de, &mut each)?;
    de.end().map_err(Refused::Json)?;
    judge(state)
}

/// Reads the results document from `src` ([`read`]), with nothing after it but white space.
///
/// # Errors
/// As [`read`].
pub fn from_reader<R: std::io::Read, F: FnMut(usize, &Value)>(
    src: R,
    mut each: F,
) -> Result<Results, Refused> {
    let mut de = serde_json::Deserializer::from_reader(src);
    let state = scan(&mut de, &mut each)?;
    de.end().map_err(Refused::Json)?;
    judge(state)
}

/// The verdict on what was read: the format first, then the schema (the top level's violations before
/// the phases'), then the types.
fn judge(mut s: State) -> Result<Results, Refused> {
    let format = crate::results::RESULTS_FORMAT;
    match s.rest.get("format").and_then(Value::as_u64) {
        None => {
            return Err(Refused::NotResults(
                "it has no integer `format` field".into(),
            ));
        }
        Some(f) if f != u64::from(format) => {
            return Err(Refused::NotResults(format!(
                "results format {f}; this wkrun reads format {format}"
            )));
        }
        Some(_) => {}
    }
    if let Some(e) = s.broken {
        return Err(Refused::NotResults(e));
    }
    if s.listed {
        s.rest.insert("phases".into(), Value::Array(Vec::new()));
    }
    let top = Value::Object(std::mem::take(&mut s.rest));
    let (shown, all) = check::violations(&top).map_err(Refused::NotResults)?;
    let (phase_shown, phase_all) = (std::mem::take(&mut s.shown), s.all);
    let mut all_shown = shown;
    let room = check::MAX_VIOLATIONS.saturating_sub(all_shown.len());
    all_shown.extend(phase_shown.into_iter().take(room));
    if all + phase_all > 0 {
        return Err(Refused::Schema(all_shown, all + phase_all));
    }
    if let Some(why) = s.untyped {
        return Err(Refused::NotResults(why));
    }
    let mut r: Results = serde::Deserialize::deserialize(&top)
        .map_err(|e| Refused::NotResults(untyped(&top, "", &e)))?;
    r.phases = s.phases;
    Ok(r)
}
