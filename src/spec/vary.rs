//! Matrix values: a key that takes one value may take a list instead (`read_percent = [100, 65, 0]`), and
//! the phase is expanded into one phase per combination ([`crate::spec::expand`]).

use schemars::JsonSchema;
use serde::de::{self, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// One value, or a list of values to expand over.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Vary<T> {
    /// A single value.
    One(T),
    /// Several values: one expanded phase each, in this order.
    Many(Vec<T>),
}

impl<T: Clone> Vary<T> {
    /// The values, one or many.
    pub fn values(&self) -> Vec<T> {
        match self {
            Vary::One(v) => vec![v.clone()],
            Vary::Many(v) => v.clone(),
        }
    }

    /// The single value; `None` for a list (only possible before expansion).
    pub fn one(&self) -> Option<&T> {
        match self {
            Vary::One(v) => Some(v),
            Vary::Many(_) => None,
        }
    }
}

/// The single value of an optional key after expansion.
pub trait One<T> {
    /// `Some` when the key is set to one value.
    fn one(&self) -> Option<T>;
}

impl<T: Clone> One<T> for Option<Vary<T>> {
    fn one(&self) -> Option<T> {
        self.as_ref().and_then(|v| v.one().cloned())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Vary<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Vary<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value or a list of values")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vary<T>, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<T>()? {
                    v.push(x);
                }
                if v.is_empty() {
                    return Err(de::Error::custom("an empty list: give at least one value"));
                }
                Ok(Vary::Many(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vary<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Vary::One)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Vary<T>, E> {
                T::deserialize(s.into_deserializer()).map(Vary::One)
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Vary<T>, E> {
                T::deserialize(s.into_deserializer()).map(Vary::One)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vary<T>, E> {
                T::deserialize(v.into_deserializer()).map(Vary::One)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vary<T>, E> {
                T::deserialize(v.into_deserializer()).map(Vary::One)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vary<T>, E> {
                T::deserialize(v.into_deserializer()).map(Vary::One)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Vary<T>, E> {
                T::deserialize(v.into_deserializer()).map(Vary::One)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<T: Serialize> Serialize for Vary<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Vary::One(v) => v.serialize(s),
            Vary::Many(v) => v.serialize(s),
        }
    }
}

impl<T: JsonSchema> JsonSchema for Vary<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Vary_{}", T::schema_name()).into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one = g.subschema_for::<T>();
        schemars::json_schema!({
            "description": "One value, or a list of values: the phase is expanded into one phase per combination of list values.",
            "anyOf": [ one, { "type": "array", "items": one, "minItems": 1 } ]
        })
    }
}
