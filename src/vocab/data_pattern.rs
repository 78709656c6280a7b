//! The `data` key: what bytes write I/Os carry.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Content of written blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataPattern {
    /// Incompressible pseudo-random bytes, different for every I/O (no buffer is written twice), so that
    /// compressing or deduplicating drives cannot shortcut the writes.
    Random,
    /// All-zero blocks (SandForce-style controllers compress these to almost nothing; seed 002 runs both).
    Zeros,
    /// N % compressible (fio's buffer_compress_percentage): in every 512-byte chunk, the last N % of the bytes
    /// repeat a short text-like filler and the rest are random, so a block compresses to about (100 − N) % of
    /// its size, with no long zero run. N is 0..=100.
    Compressible(u8),
}

impl DataPattern {
    /// Parses `"random"`, `"zeros"` or `"compressible:N%"`.
    pub fn parse(s: &str) -> Result<DataPattern, String> {
        match s.trim() {
            "random" => Ok(DataPattern::Random),
            "zeros" | "zero" => Ok(DataPattern::Zeros),
            other => {
                let Some(rest) = other.strip_prefix("compressible:") else {
                    return Err(format!(
                        "unknown data pattern {s:?}; use \"random\", \"zeros\" or \"compressible:N%\" (e.g. \"compressible:50%\")"
                    ));
                };
                let n = rest
                    .trim()
                    .strip_suffix('%')
                    .and_then(|n| n.trim().parse::<u8>().ok())
                    .filter(|n| *n <= 100)
                    .ok_or_else(|| format!("data pattern {s:?}: N in \"compressible:N%\" must be a whole percentage 0..100"))?;
                Ok(DataPattern::Compressible(n))
            }
        }
    }
}

impl fmt::Display for DataPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataPattern::Random => f.write_str("random"),
            DataPattern::Zeros => f.write_str("zeros"),
            DataPattern::Compressible(n) => write!(f, "compressible:{n}%"),
        }
    }
}

impl<'de> Deserialize<'de> for DataPattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        DataPattern::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl Serialize for DataPattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl JsonSchema for DataPattern {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DataPattern".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Data written: \"random\" (incompressible, fresh per I/O), \"zeros\", or \"compressible:N%\".",
            "type": "string",
            "pattern": "^(random|zeros|compressible:([0-9]|[1-9][0-9]|100)%)$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parse() {
        assert_eq!(DataPattern::parse("random"), Ok(DataPattern::Random));
        assert_eq!(DataPattern::parse("zeros"), Ok(DataPattern::Zeros));
        assert_eq!(
            DataPattern::parse("compressible:50%"),
            Ok(DataPattern::Compressible(50))
        );
        assert!(DataPattern::parse("compressible:150%").is_err());
        assert!(DataPattern::parse("rnd").is_err());
        assert_eq!(
            DataPattern::Compressible(50).to_string(),
            "compressible:50%"
        );
    }
}
