//! The `rate_iops` key: a cap on I/Os per second, over both directions (`rate_iops = 5000`) or per direction
//! (`rate_iops = { read = 3500, write = 1500 }`), with evenly spaced issue times.

use schemars::JsonSchema;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A rate cap in I/Os per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    /// Cap over reads and writes together (op i of the run issued no earlier than i / total s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Cap on reads (the j-th read issued no earlier than j / read s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<u64>,
    /// Cap on writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<u64>,
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Rate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("I/Os per second: an integer, or { read = N, write = M }")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Rate, E> {
                let v = u64::try_from(v)
                    .map_err(|_| E::custom(format!("rate_iops {v} is negative")))?;
                Ok(Rate {
                    total: Some(v),
                    read: None,
                    write: None,
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Rate, E> {
                Ok(Rate {
                    total: Some(v),
                    read: None,
                    write: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Rate, A::Error> {
                use serde::de::Error;
                let mut r = Rate {
                    total: None,
                    read: None,
                    write: None,
                };
                while let Some(k) = m.next_key::<String>()? {
                    let v: i64 = m.next_value()?;
                    let v = u64::try_from(v).map_err(|_| {
                        A::Error::custom(format!("rate_iops.{k} = {v} is negative"))
                    })?;
                    match k.as_str() {
                        "read" => r.read = Some(v),
                        "write" => r.write = Some(v),
                        "total" => r.total = Some(v),
                        _ => return Err(A::Error::unknown_field(&k, &["read", "write", "total"])),
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_any(V)
    }
}

impl Rate {
    /// The cap on direction `d` alone (none on trims: the key has no `trim`).
    pub fn of(&self, d: super::Direction) -> Option<u64> {
        match d {
            super::Direction::Read => self.read,
            super::Direction::Write => self.write,
            super::Direction::Trim => None,
        }
    }

    /// Whether any cap is 0 (nothing would be issued).
    pub fn has_zero(&self) -> bool {
        [self.total, self.read, self.write].contains(&Some(0))
    }
}
