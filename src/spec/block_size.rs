//! The `block_size` key: one size (`"4KiB"`), or a weighted mix like fio's bssplit
//! (`{ "4KiB" = 10, "32KiB" = 40, "64KiB" = 50 }`: each op's size drawn by weight).

use crate::units::Size;
use schemars::JsonSchema;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Bytes per I/O.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BlockSize {
    /// Every I/O has this size.
    Single(Size),
    /// Sizes with integer weights, in the order written.
    Mix(Vec<(Size, u32)>),
}

impl BlockSize {
    /// Every size named (the single one, or each entry of a mix, zero weights included).
    pub fn sizes(&self) -> Vec<u64> {
        match self {
            BlockSize::Single(s) => vec![s.0],
            BlockSize::Mix(v) => v.iter().map(|e| e.0.0).collect(),
        }
    }
}

/// Parses one block size. A size in a decimal unit that is not a power of two is refused, with both
/// readings: `"128KB"` is 128,000 bytes in wkrun's units (as for capacities), 131,072 in fio's (which reads
/// KB as KiB by default), and a block size is almost always meant as a power of two.
pub fn parse_block_size(s: &str) -> Result<Size, String> {
    let size = Size::parse(s)?;
    let Some((num, unit, binary)) = crate::units::decimal_unit(s) else {
        return Ok(size);
    };
    if size.0 == 0 || size.0.is_power_of_two() {
        return Ok(size);
    }
    let bytes = size.0;
    let fio = match Size::parse(&format!("{num}{binary}")) {
        Ok(b) => format!(
            "fio reads it as {num}{binary} = {} bytes: write \"{num}{binary}\" for that, or ",
            b.0
        ),
        Err(_) => "write ".to_string(),
    };
    Err(format!(
        "block size \"{s}\" is {bytes} bytes ({unit} is decimal), not a power of two; {fio}\"{bytes}B\" for {bytes} bytes"
    ))
}

impl<'de> Deserialize<'de> for BlockSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlockSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size such as \"4KiB\", or a table of sizes and weights such as { \"4KiB\" = 60, \"64KiB\" = 40 }")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<BlockSize, E> {
                parse_block_size(s)
                    .map(BlockSize::Single)
                    .map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<BlockSize, E> {
                let v = u64::try_from(v)
                    .map_err(|_| E::custom(format!("block size {v} is negative")))?;
                Ok(BlockSize::Single(Size(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<BlockSize, E> {
                Ok(BlockSize::Single(Size(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<BlockSize, A::Error> {
                use serde::de::Error;
                let mut v = Vec::new();
                while let Some((k, w)) = m.next_entry::<String, i64>()? {
                    let size = parse_block_size(&k).map_err(A::Error::custom)?;
                    let w = u32::try_from(w).map_err(|_| {
                        A::Error::custom(format!("weight {w} of {k} is not 0..4294967295"))
                    })?;
                    v.push((size, w));
                }
                Ok(BlockSize::Mix(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for BlockSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BlockSize::Single(z) => s.collect_str(z),
            BlockSize::Mix(v) => {
                let mut m = s.serialize_map(Some(v.len()))?;
                for (z, w) in v {
                    m.serialize_entry(&z.to_string(), w)?;
                }
                m.end()
            }
        }
    }
}

impl JsonSchema for BlockSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BlockSize".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let size = g.subschema_for::<Size>();
        schemars::json_schema!({
            "description": "Bytes per I/O: a size (\"4KiB\"), or a table of sizes and integer weights ({ \"4KiB\" = 60, \"64KiB\" = 40 }) from which each I/O's size is drawn by weight. A size in a decimal unit (KB, MB) that is not a power of two is refused (write \"128KiB\", or \"128000B\" for 128,000 bytes).",
            "anyOf": [
                size,
                { "type": "object", "minProperties": 1, "additionalProperties": { "type": "integer", "minimum": 0 } }
            ]
        })
    }
}
