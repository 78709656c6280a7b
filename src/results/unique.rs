//! JSON values read as [`serde_json::Value`] does, except that an object holding one key twice is refused:
//! `serde_json` keeps the last (`"status": "failed", "status": "completed"` read as completed), and other
//! readers of the same file may keep the first. A results file wkrun writes has each key once.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Where a value is in its document, kept as links to its parents (nothing is allocated for a path until
/// a key is found twice).
#[derive(Clone, Copy)]
pub enum At<'a> {
    /// The document itself.
    Doc,
    /// The member `key` of the object at the first.
    Key(&'a At<'a>, &'a str),
    /// Item `i` of the list at the first.
    Item(&'a At<'a>, usize),
}

impl At<'_> {
    /// The JSON pointer (`/phases/2/name`).
    fn pointer(&self) -> String {
        match self {
            At::Doc => String::new(),
            At::Key(up, k) => format!(
                "{}/{}",
                up.pointer(),
                k.replace('~', "~0").replace('/', "~1")
            ),
            At::Item(up, i) => format!("{}/{i}", up.pointer()),
        }
    }
}

/// What was found twice: said once the reading has stopped, with the parser's position.
#[derive(Default)]
pub struct Twice(RefCell<Option<String>>);

impl Twice {
    /// Notes the key `key` found a second time in the object at `at`, and the error that stops the reading.
    pub fn found<E: serde::de::Error>(&self, at: &At<'_>, key: &str) -> E {
        let place = super::check::dotted(&At::Key(at, key).pointer());
        *self.0.borrow_mut() = Some(place);
        E::custom("a key given twice")
    }

    /// The place of the key found twice, if one was, with the position of `e` (the error the reading
    /// stopped with): `phases[2].name: the key is given twice in its object (the second at line L column C)`.
    pub fn said(&self, e: &serde_json::Error) -> Option<String> {
        self.0.borrow_mut().take().map(|place| {
            format!(
                "{place}: the key is given twice in its object (the second at line {} column {}); a results file has each key once",
                e.line(),
                e.column()
            )
        })
    }
}

/// A value read at `at`, every object's keys once (else [`Twice::found`]).
#[derive(Clone, Copy)]
pub struct Unique<'a> {
    /// Where the value is.
    pub at: &'a At<'a>,
    /// Where a key found twice is noted.
    pub twice: &'a Twice,
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            let at = At::Item(self.at, items.len());
            let seed = Unique {
                at: &at,
                twice: self.twice,
            };
            match seq.next_element_seed(seed)? {
                Some(v) => items.push(v),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if members.contains_key(&key) {
                return Err(self.twice.found(self.at, &key));
            }
            let at = At::Key(self.at, &key);
            let v = map.next_value_seed(Unique {
                at: &at,
                twice: self.twice,
            })?;
            members.insert(key, v);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Value, String> {
        let twice = Twice::default();
        let mut de = serde_json::Deserializer::from_str(text);
        Unique {
            at: &At::Doc,
            twice: &twice,
        }
        .deserialize(&mut de)
        .map_err(|e| twice.said(&e).unwrap_or_else(|| e.to_string()))
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 2.5, 18446744073709551615, 1e300, true, null, "s\u00e9"], "b": {"c": {}}}"#;
        let want: Value = serde_json::from_str(text).expect("json");
        assert_eq!(read(text), Ok(want));
    }

    /// The position is the second key's closing quote.
    #[test]
    fn a_key_twice_is_named_by_its_place_and_position() {
        assert_eq!(
            read("{\"p\": [{\"n\": 1},\n {\"n\": 2, \"a/b\": 3, \"a/b\": 4}]}"),
            Err("p[1][\"a/b\"]: the key is given twice in its object (the second at line 2 column 25); a results file has each key once".into())
        );
    }
}
