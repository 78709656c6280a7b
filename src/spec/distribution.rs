//! The `distribution` key: where a random workload's offsets fall, in fio's `random_distribution` spelling
//! (`"zipf:1.2"`, `"zoned:50/5:30/15:20/80"`), checked as it is read (a value out of range is an error at its
//! line). What each law draws is `ops::dist`; the plan resolves zones against the span.

use crate::units::{Size, readable_float};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Most zones of a zoned distribution (fio's limit).
pub const MAX_ZONES: usize = 256;

/// One zone as written: a share of the I/Os and the zone's size (a share of the span, or bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneSpec {
    /// Share of the I/Os, whole percent.
    pub io_percent: u8,
    /// Whole percent of the span (`zoned`) or bytes (`zoned_abs`).
    pub size: u64,
}

/// Where a random workload's offsets fall.
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// Every block equally likely (the default).
    Uniform,
    /// Zipf with exponent θ > 0.
    Zipf(f64),
    /// fio's Pareto with power h, 0 < h < 1.
    Pareto(f64),
    /// Normal around the span's middle with σ > 0 a fraction of the span.
    Normal(f64),
    /// Zones: percent of I/Os to percent of the span, in span order (sizes sum to 100).
    Zoned(Vec<ZoneSpec>),
    /// Zones with absolute sizes (bytes), from the span's start.
    ZonedAbs(Vec<ZoneSpec>),
}

const FORMS: &str = "use \"uniform\", \"zipf:THETA\", \"pareto:H\", \"normal:SIGMA\", \"zoned:IO/SPAN:...\" (whole percents) or \"zoned_abs:IO/SIZE:...\"";

impl Distribution {
    /// Whether offsets are uniform.
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }

    /// Parses the spec's spelling; the error says what is wrong.
    pub fn parse(s: &str) -> Result<Distribution, String> {
        crate::units::refuse_hidden("distribution", s)?;
        let s = s.trim();
        if s == "uniform" {
            return Ok(Distribution::Uniform);
        }
        let Some((name, arg)) = s.split_once(':') else {
            let fio = if s == "random" {
                " (fio's \"random\" is \"uniform\" in wkrun)"
            } else {
                ""
            };
            return Err(format!("unknown distribution {s:?}{fio}; {FORMS}"));
        };
        let num = |what: &str| -> Result<f64, String> {
            if arg.contains(':') {
                return Err(format!(
                    "distribution {s:?}: one number after \"{name}:\" (wkrun has no fio centre: the second number)"
                ));
            }
            arg.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("distribution {s:?}: {what} {arg:?} is not a number"))
        };
        match name.trim() {
            "zipf" => {
                let t = num("θ")?;
                positive(s, "zipf θ", t).map(Distribution::Zipf)
            }
            "pareto" => {
                let h = num("h")?;
                if h > 0.0 && h < 1.0 {
                    Ok(Distribution::Pareto(h))
                } else {
                    Err(format!(
                        "distribution {s:?}: pareto h must be between 0 and 1 (exclusive), as fio's; h = 0.2 sends 80 % of I/Os to the hottest 20 % of blocks"
                    ))
                }
            }
            "normal" => {
                let v = num("σ")?;
                positive(s, "normal σ (a fraction of the span)", v).map(Distribution::Normal)
            }
            "zoned" => zones(s, arg, false).map(Distribution::Zoned),
            "zoned_abs" => zones(s, arg, true).map(Distribution::ZonedAbs),
            other => Err(format!("unknown distribution {other:?} in {s:?}; {FORMS}")),
        }
    }
}

fn positive(s: &str, what: &str, v: f64) -> Result<f64, String> {
    if v > 0.0 {
        Ok(v)
    } else {
        Err(format!("distribution {s:?}: {what} must be above 0"))
    }
}

/// The zones of `zoned:` (`absolute`: `zoned_abs:`) after the colon: `IO/SIZE` items split by `:`.
fn zones(s: &str, arg: &str, absolute: bool) -> Result<Vec<ZoneSpec>, String> {
    if arg.contains(',') {
        return Err(format!(
            "distribution {s:?}: wkrun has one zone list for reads and writes (fio's comma-separated lists per direction are not supported)"
        ));
    }
    let items: Vec<&str> = arg.split(':').collect();
    if items.len() > MAX_ZONES {
        return Err(format!(
            "distribution {s:?} has {} zones; at most {MAX_ZONES}",
            items.len()
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Some((io, size)) = item.split_once('/') else {
            return Err(format!(
                "distribution {s:?}: zone {item:?} is not IO/{}",
                if absolute { "SIZE" } else { "SPAN" }
            ));
        };
        let io = whole_percent(io).ok_or_else(|| {
            format!("distribution {s:?}: zone {item:?}: {io:?} is not a whole percent of the I/Os (0 to 100)")
        })?;
        let size = if absolute {
            Size::parse(size)
                .map_err(|e| format!("distribution {s:?}: zone {item:?}: {e}"))?
                .0
        } else {
            u64::from(whole_percent(size).ok_or_else(|| {
                format!("distribution {s:?}: zone {item:?}: {size:?} is not a whole percent of the span (0 to 100)")
            })?)
        };
        if size == 0 {
            return Err(format!(
                "distribution {s:?}: zone {item:?} is empty; every zone needs some of the span"
            ));
        }
        out.push(ZoneSpec {
            io_percent: io,
            size,
        });
    }
    let io: u32 = out.iter().map(|z| u32::from(z.io_percent)).sum();
    if io != 100 {
        return Err(format!(
            "distribution {s:?}: the zones' shares of the I/Os sum to {io} %, not 100 %"
        ));
    }
    let span: u64 = out.iter().map(|z| z.size).sum();
    if !absolute && span != 100 {
        return Err(format!(
            "distribution {s:?}: the zones' shares of the span sum to {span} %, not 100 %"
        ));
    }
    Ok(out)
}

fn whole_percent(s: &str) -> Option<u8> {
    let s = s.trim();
    let s = s.strip_suffix('%').unwrap_or(s).trim();
    s.parse::<u8>().ok().filter(|v| *v <= 100)
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[ZoneSpec], abs: bool| -> String {
            v.iter()
                .map(|z| match abs {
                    true => format!("{}/{}", z.io_percent, Size(z.size)),
                    false => format!("{}/{}", z.io_percent, z.size),
                })
                .collect::<Vec<_>>()
                .join(":")
        };
        match self {
            Distribution::Uniform => f.write_str("uniform"),
            Distribution::Zipf(t) => write!(f, "zipf:{}", readable_float(*t)),
            Distribution::Pareto(h) => write!(f, "pareto:{}", readable_float(*h)),
            Distribution::Normal(s) => write!(f, "normal:{}", readable_float(*s)),
            Distribution::Zoned(v) => write!(f, "zoned:{}", list(v, false)),
            Distribution::ZonedAbs(v) => write!(f, "zoned_abs:{}", list(v, true)),
        }
    }
}

impl<'de> Deserialize<'de> for Distribution {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Distribution::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Distribution {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl JsonSchema for Distribution {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Distribution".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Where random offsets fall: \"uniform\", \"zipf:THETA\" (θ > 0), \"pareto:H\" (0 < h < 1), \"normal:SIGMA\" (σ > 0, a fraction of the span), \"zoned:IO/SPAN:...\" (whole percents, each list summing to 100) or \"zoned_abs:IO/SIZE:...\".",
            "type": "string",
            "pattern": "^\\s*(uniform|(zipf|pareto|normal):\\s*[0-9.eE+-]+|zoned:[0-9]+%?/[0-9]+%?(:[0-9]+%?/[0-9]+%?)*|zoned_abs:[0-9]+%?/[^:/]+(:[0-9]+%?/[^:/]+)*)\\s*$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_each_form() {
        for text in [
            "uniform",
            "zipf:1.2",
            "zipf:1",
            "pareto:0.2",
            "normal:0.1",
            "zoned:50/5:30/15:20/80",
            "zoned_abs:50/10MiB:50/1GiB",
        ] {
            let d = Distribution::parse(text).expect(text);
            assert_eq!(d.to_string(), text);
        }
        assert_eq!(
            Distribution::parse("zoned:60/10:30/20:8/30:2/40"),
            Ok(Distribution::Zoned(vec![
                ZoneSpec {
                    io_percent: 60,
                    size: 10
                },
                ZoneSpec {
                    io_percent: 30,
                    size: 20
                },
                ZoneSpec {
                    io_percent: 8,
                    size: 30
                },
                ZoneSpec {
                    io_percent: 2,
                    size: 40
                },
            ]))
        );
    }

    #[test]
    fn refuses_values_out_of_range() {
        for (text, says) in [
            ("zipf:0", "zipf θ must be above 0"),
            ("zipf:-1.2", "zipf θ must be above 0"),
            ("zipf:1.2:0.25", "no fio centre"),
            ("zipf:nan", "is not a number"),
            ("pareto:0", "between 0 and 1"),
            ("pareto:1", "between 0 and 1"),
            ("normal:0", "must be above 0"),
            ("normal:-0.1", "must be above 0"),
            ("zoned:50/5:30/15:20/70", "span sum to 90 %"),
            ("zoned:50/5:30/15:10/80", "I/Os sum to 90 %"),
            ("zoned:50/5:50/0:0/95", "is empty"),
            ("zoned:50/5,50/5", "one zone list"),
            ("zoned_abs:50/1GiB:40/1GiB", "I/Os sum to 90 %"),
            ("zoned_abs:50/1Gx:50/1GiB", "unknown unit"),
            ("random", "fio's \"random\" is \"uniform\""),
            ("zipfian:1", "unknown distribution \"zipfian\""),
        ] {
            let e = Distribution::parse(text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
