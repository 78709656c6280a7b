//! Unit-carrying values of the spec language: sizes (bytes), durations (ns) and percentages.
//!
//! Every value is parsed from a string with its unit, exactly (integer arithmetic, no floating point), so that
//! `33%` of a 10 MiB target is the same byte on every machine. The grammar is documented in `docs/spec.md`.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Parts per 100 % used by [`Percent`]: a percentage is stored in units of 1e-6 %.
pub const PERCENT_SCALE: u64 = 100_000_000;

/// Parses `int[.frac]` into an integer scaled by `10^decimals`; `None` when malformed or too precise.
fn parse_fixed(num: &str, decimals: u32) -> Option<u128> {
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if frac.len() > decimals as usize || int.len() > 30 {
        return None;
    }
    let int_v: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut frac_v: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    frac_v *= 10u128.pow(decimals - frac.len() as u32);
    int_v.checked_mul(10u128.pow(decimals))?.checked_add(frac_v)
}

/// Refuses a value (a size, duration, percentage, count, window, headline item or distribution) holding an
/// invisible character ([`crate::text::invisible`]), checked before any trim: such a character is invisible when the value is
/// echoed, so `"4KiB\u{85}"` must not pass as `4KiB`. The message names the code point.
pub fn refuse_hidden(what: &str, s: &str) -> Result<(), String> {
    match s.chars().find(|&c| crate::text::invisible(c)) {
        Some(c) => Err(format!(
            "{what} {s:?} holds the invisible character U+{:04X}; write it with plain ASCII characters",
            c as u32
        )),
        None => Ok(()),
    }
}

/// The number in exponent notation (`1e30`, `2.5E-3`) the value `s` starts with, when it does.
fn exponent(s: &str) -> Option<&str> {
    let t = s.trim_matches(' ');
    let mantissa = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let signed = t[mantissa..].strip_prefix(['e', 'E'])?;
    let digits = signed.strip_prefix(['+', '-']).unwrap_or(signed);
    let n = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    (mantissa > 0 && n > 0).then(|| &t[..t.len() - digits.len() + n])
}

/// Why the value `s`, a `what` whose number is in exponent notation (`1e30s`), is refused: wkrun reads
/// plain digits (split at its first letter, `1e30s` was the number `1e` with the unit `e`). Said with the
/// value in plain digits when it is whole and in range (`scale` of a unit: its size in the smallest one;
/// `u64::MAX` of those at most), else that it is `too` (long, large). `None` when its number is not in
/// exponent notation.
fn in_exponent(
    what: &str,
    too: &str,
    s: &str,
    scale: &dyn Fn(&str) -> Option<u64>,
) -> Option<String> {
    let num = exponent(s)?;
    let unit = s.trim_matches(' ')[num.len()..].trim_matches(' ');
    let v: f64 = num.parse().ok()?;
    let said =
        format!("{what} {s:?}: {num} is not a plain number (wkrun reads digits, no exponent)");
    Some(match scale(unit) {
        Some(k) if v * k as f64 > u64::MAX as f64 => format!("{said}, and it is {too}"),
        Some(_) if v.fract() == 0.0 && v < 1e15 => format!("{said}: write \"{v:.0}{unit}\""),
        _ => format!("{said}: write it in digits"),
    })
}

/// Splits `"128KiB"` into `("128", "KiB")` (ASCII spaces between number and unit allowed).
fn split_unit(s: &str) -> (&str, &str) {
    let s = s.trim_matches(' ');
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    (&s[..idx], s[idx..].trim_matches(' '))
}

/// A size in bytes. Written `"4KiB"`, `"128KiB"`, `"1GiB"` (binary), `"240GB"` (decimal, as drive vendors
/// count), `"4k"`/`"4K"` (4096, as in fio), `"512B"`, or a bare integer meaning bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Size(pub u64);

impl Size {
    /// Parses a size string; the error says what was wrong and what is accepted.
    pub fn parse(s: &str) -> Result<Size, String> {
        refuse_hidden("size", s)?;
        // A unit's size by the plain parse: never this one again, which would recurse once per `e1` of
        // `1e1e1e...` (a 40 KB value overflowed the stack).
        let scale = |unit: &str| Size::parse_plain(&format!("1{unit}")).ok().map(|z| z.0);
        if let Some(why) = in_exponent("size", "too large", s, &scale) {
            return Err(why);
        }
        Size::parse_plain(s)
    }

    /// [`Size::parse`] past its checks of hidden characters and exponents: the number and its unit.
    fn parse_plain(s: &str) -> Result<Size, String> {
        let (num, unit) = split_unit(s);
        if num.is_empty() {
            return Err(format!(
                "size {s:?} has no number; write e.g. \"4KiB\" or \"1GiB\""
            ));
        }
        let mult: u64 = match unit {
            "" | "B" | "b" => 1,
            "k" | "K" | "KiB" | "kiB" => 1 << 10,
            "m" | "M" | "MiB" => 1 << 20,
            "g" | "G" | "GiB" => 1 << 30,
            "t" | "T" | "TiB" => 1 << 40,
            "p" | "P" | "PiB" => 1 << 50,
            "kB" | "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            "TB" => 1_000_000_000_000,
            "PB" => 1_000_000_000_000_000,
            _ => {
                return Err(format!(
                    "size {s:?} has an unknown unit {unit:?}; use B, KiB, MiB, GiB, TiB, PiB (binary), KB, MB, GB, TB, PB (decimal) or k/M/G/T/P (binary, as in fio)"
                ));
            }
        };
        let scaled =
            parse_fixed(num, 9).ok_or_else(|| format!("size {s:?} is not a number with a unit"))?;
        let bytes = scaled
            .checked_mul(mult as u128)
            .ok_or_else(|| format!("size {s:?} is too large"))?;
        if bytes % 1_000_000_000 != 0 {
            return Err(format!("size {s:?} is not a whole number of bytes"));
        }
        u64::try_from(bytes / 1_000_000_000)
            .map(Size)
            .map_err(|_| format!("size {s:?} is too large"))
    }
}

/// The number and unit of a size written in a decimal unit (`"128KB"` → `("128", "KB")`), with the binary
/// unit of the same letter (`"KiB"`); `None` for any other size.
pub fn decimal_unit(s: &str) -> Option<(&str, &str, &'static str)> {
    let (num, unit) = split_unit(s);
    let binary = match unit {
        "kB" | "KB" => "KiB",
        "MB" => "MiB",
        "GB" => "GiB",
        "TB" => "TiB",
        "PB" => "PiB",
        _ => return None,
    };
    Some((num, unit, binary))
}

impl fmt::Display for Size {
    /// The largest binary unit that divides the size exactly (`4KiB`, `1GiB`, `1000B`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", fmt_bytes(self.0))
    }
}

/// A number as a person reads it: plain from 0.001 to 10^15 (`0`, `2.5`, `100000`), in exponent form past
/// them (`1e-308`, `1.7e308`, `inf`, `NaN`), never the 300 digits `{}` prints for 1e-308.
pub fn readable_float(v: f64) -> String {
    match v == 0.0 || (1e-3..1e15).contains(&v.abs()) {
        true => v.to_string(),
        false => format!("{v:e}"),
    }
}

/// Formats a byte count with the largest binary unit that divides it exactly: `4096` → `4KiB`, `1000` → `1000B`.
pub fn fmt_bytes(b: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (1 << 50, "PiB"),
        (1 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    for (m, u) in UNITS {
        if b >= m && b.is_multiple_of(m) {
            return format!("{}{u}", b / m);
        }
    }
    format!("{b}B")
}

/// A duration in nanoseconds. Written with a unit: `"500ms"`, `"2000s"`, `"30m"` or `"30min"` (minutes),
/// `"5h"`, `"1.5s"`; units `ns`, `us`, `ms`, `s`, `m`/`min`, `h`, `d`. A bare number is refused: it is ambiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Duration {
    /// Parses a duration string into nanoseconds: one `<number><unit>` term, or several summed
    /// (`"1h30m"`, `"2m30s"`).
    pub fn parse(s: &str) -> Result<Duration, String> {
        refuse_hidden("duration", s)?;
        let scale = |unit: &str| Duration::parse_term(&format!("1{unit}")).ok().map(|d| d.0);
        if let Some(why) = in_exponent("duration", "too long", s, &scale) {
            return Err(why);
        }
        let t = s.trim_matches(' ');
        let mut terms = Vec::new();
        let mut rest = t;
        while !rest.is_empty() {
            let num_end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let unit_end = rest[num_end..]
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .map_or(rest.len(), |i| num_end + i);
            terms.push(&rest[..unit_end]);
            rest = &rest[unit_end..];
        }
        if terms.len() <= 1 {
            return Duration::parse_term(s);
        }
        let mut total: u64 = 0;
        for term in terms {
            let d = Duration::parse_term(term).map_err(|e| format!("in duration {s:?}: {e}"))?;
            total = total
                .checked_add(d.0)
                .ok_or_else(|| format!("duration {s:?} is too long"))?;
        }
        Ok(Duration(total))
    }

    /// Parses one `<number><unit>` term.
    fn parse_term(s: &str) -> Result<Duration, String> {
        let (num, unit) = split_unit(s);
        if num.is_empty() {
            return Err(format!(
                "duration {s:?} has no number; write e.g. \"30s\", \"20m\" or \"5h\""
            ));
        }
        let ns_per: u128 = match unit {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" | "min" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "d" => 86_400_000_000_000,
            "" => {
                return Err(format!(
                    "duration {s:?} has no unit; write \"{num}s\" for seconds, \"{num}min\" for minutes or \"{num}ms\" for milliseconds"
                ));
            }
            _ => {
                return Err(format!(
                    "duration {s:?} has an unknown unit {unit:?}; use ns, us, ms, s, m or min, h, d"
                ));
            }
        };
        let scaled = parse_fixed(num, 9)
            .ok_or_else(|| format!("duration {s:?} is not a number with a unit"))?;
        let ns = scaled
            .checked_mul(ns_per)
            .ok_or_else(|| format!("duration {s:?} is too long"))?;
        if ns % 1_000_000_000 != 0 {
            return Err(format!(
                "duration {s:?} is not a whole number of nanoseconds"
            ));
        }
        u64::try_from(ns / 1_000_000_000)
            .map(Duration)
            .map_err(|_| format!("duration {s:?} is too long"))
    }

    /// The duration in seconds, as a float (for rates and display).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl fmt::Display for Duration {
    /// Exact and short: `2000s`, `500ms`, `30min`, `1.5s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        const MIN: u64 = 60_000_000_000;
        if ns >= 3_600 * 1_000_000_000 && ns.is_multiple_of(3_600 * 1_000_000_000) {
            write!(f, "{}h", ns / (3_600 * 1_000_000_000))
        } else if ns >= MIN && ns.is_multiple_of(MIN) {
            write!(f, "{}min", ns / MIN)
        } else if ns.is_multiple_of(1_000_000_000) {
            write!(f, "{}s", ns / 1_000_000_000)
        } else if ns.is_multiple_of(1_000_000) {
            write!(f, "{}ms", ns / 1_000_000)
        } else if ns.is_multiple_of(1_000) {
            write!(f, "{}us", ns / 1_000)
        } else {
            write!(f, "{ns}ns")
        }
    }
}

/// A percentage with up to six decimals, stored exactly in units of 1e-6 % (`"84%"` = 84,000,000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Percent(pub u64);

impl Percent {
    /// 100 %.
    pub const FULL: Percent = Percent(PERCENT_SCALE);

    /// Parses `"84%"` or `"12.5%"` (the `%` sign is required).
    pub fn parse(s: &str) -> Result<Percent, String> {
        refuse_hidden("percentage", s)?;
        let t = s.trim_matches(' ');
        let num = t
            .strip_suffix('%')
            .ok_or_else(|| format!("percentage {s:?} lacks the % sign"))?
            .trim_matches(' ');
        let v = parse_fixed(num, 6).ok_or_else(|| {
            let digits = num.split_once('.').map_or(0, |(_, f)| f.len());
            let plain = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
            match num.split_once('.') {
                Some((i, f)) if digits > 6 && plain(i) && plain(f) => format!(
                    "percentage {s:?} has {digits} decimals; wkrun keeps at most 6 (0.000001 %)"
                ),
                _ => format!("percentage {s:?} is not a number followed by %"),
            }
        })?;
        u64::try_from(v)
            .map(Percent)
            .map_err(|_| format!("percentage {s:?} is too large"))
    }

    /// `floor(total × self)` in the same unit as `total`; `None` when it does not fit in a u64 (only
    /// possible above 100 %).
    pub fn checked_of_floor(self, total: u64) -> Option<u64> {
        u64::try_from(total as u128 * self.0 as u128 / PERCENT_SCALE as u128).ok()
    }

    /// `floor(total × self)`, saturating at `u64::MAX` (exact for percentages up to 100 %).
    pub fn of_floor(self, total: u64) -> u64 {
        self.checked_of_floor(total).unwrap_or(u64::MAX)
    }

    /// `ceil(total × self)`, saturating at `u64::MAX` (exact for percentages up to 100 %).
    pub fn of_ceil(self, total: u64) -> u64 {
        u64::try_from((total as u128 * self.0 as u128).div_ceil(PERCENT_SCALE as u128))
            .unwrap_or(u64::MAX)
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let int = self.0 / 1_000_000;
        let frac = self.0 % 1_000_000;
        if frac == 0 {
            write!(f, "{int}%")
        } else {
            let s = format!("{frac:06}");
            write!(f, "{int}.{}%", s.trim_end_matches('0'))
        }
    }
}

/// A count or rate with an optional SI suffix, as wkrun writes IOPS (`25.3k IOPS` on the live line, `10k`
/// on a chart's axis): `100000`, `10k` or `10K` (10³), `1.5M` (10⁶), `2G` (10⁹). The number must be finite.
///
/// # Errors
/// A message naming the value and the accepted forms.
pub fn parse_count(s: &str) -> Result<f64, String> {
    refuse_hidden("count", s)?;
    let t = s.trim_matches(' ');
    let (num, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'M')) => (&t[..i], 1e6),
        Some((i, 'G')) => (&t[..i], 1e9),
        _ => (t, 1.0),
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v * scale),
        _ => Err(format!(
            "{s:?} is not a number: write it plainly or with an SI suffix, such as 100000, 10k, 1.5M"
        )),
    }
}

/// A byte amount given either absolutely (`"64MiB"`) or relative to a reference size (`"84%"`, `"200%"`):
/// used for spans and offsets (relative to the target's capacity) and size bounds (relative to the span).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Amount {
    /// An exact number of bytes.
    Bytes(u64),
    /// A percentage of the reference size.
    Percent(Percent),
}

impl Amount {
    /// Parses `"84%"` as a percentage, anything else as a [`Size`].
    pub fn parse(s: &str) -> Result<Amount, String> {
        if s.trim_matches(' ').ends_with('%') {
            Percent::parse(s).map(Amount::Percent)
        } else {
            Size::parse(s).map(|z| Amount::Bytes(z.0))
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Amount::Bytes(b) => write!(f, "{}", fmt_bytes(*b)),
            Amount::Percent(p) => write!(f, "{p}"),
        }
    }
}

macro_rules! string_unit {
    ($ty:ty, $what:literal, $example_unit:literal, $example:literal, $int_ok:expr, $schema_desc:literal, $pattern:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                /// The bare number `v` with the unit when that is a value of the type (not `NaNs`, `-3s`
                /// or 300 digits), else a fixed example.
                fn example(v: impl fmt::Display) -> String {
                    let with_unit = format!(concat!("{}", $example_unit), v);
                    if with_unit.len() <= 24 && <$ty>::parse(&with_unit).is_ok() {
                        with_unit
                    } else {
                        $example.to_string()
                    }
                }
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", $what, " string"))
                    }
                    fn visit_str<E: Error>(self, s: &str) -> Result<$ty, E> {
                        <$ty>::parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: Error>(self, v: i64) -> Result<$ty, E> {
                        let int_ok: bool = $int_ok;
                        if int_ok && v >= 0 {
                            <$ty>::parse(&v.to_string()).map_err(E::custom)
                        } else if int_ok {
                            Err(E::custom(format!(concat!($what, " {} is negative"), v)))
                        } else {
                            Err(E::custom(format!(
                                concat!("bare number {} has no unit; write a ", $what, " as a string with its unit, e.g. \"{}\""),
                                v,
                                example(v)
                            )))
                        }
                    }
                    fn visit_u64<E: Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
                    }
                    fn visit_f64<E: Error>(self, v: f64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            concat!("bare number {} has no unit; write the ", $what, " as a string with its unit, e.g. \"{}\""),
                            v,
                            example(v)
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                if $int_ok {
                    schemars::json_schema!({
                        "description": $schema_desc,
                        "anyOf": [ { "type": "string", "pattern": $pattern }, { "type": "integer", "minimum": 0 } ]
                    })
                } else {
                    schemars::json_schema!({ "description": $schema_desc, "type": "string", "pattern": $pattern })
                }
            }
        }
    };
}

string_unit!(
    Size,
    "size",
    "KiB",
    "4KiB",
    true,
    "A size in bytes: \"4KiB\", \"1GiB\" (binary), \"240GB\" (decimal), \"4k\" (4096, as in fio) or an integer number of bytes.",
    "^\\s*[0-9]*\\.?[0-9]+\\s*([kKmMgGtTpP]|[kKMGTP]i?B|B|b|kB)?\\s*$"
);
string_unit!(
    Duration,
    "duration",
    "s",
    "30s",
    false,
    "A duration with its unit: \"500ms\", \"30s\", \"20m\" or \"20min\" (minutes), \"5h\", or a sum such as \"1h30m\". A bare number is refused.",
    "^\\s*([0-9]*\\.?[0-9]+\\s*(ns|us|µs|ms|s|m|min|h|d)\\s*)+$"
);
string_unit!(
    Percent,
    "percentage",
    "%",
    "50%",
    false,
    "A percentage with the % sign: \"84%\", \"12.5%\".",
    "^\\s*[0-9]*\\.?[0-9]+\\s*%\\s*$"
);
string_unit!(
    Amount,
    "size or percentage",
    "%",
    "50%",
    true,
    "A byte amount: a size (\"64MiB\", \"240GB\", integer bytes) or a percentage of the reference (\"84%\").",
    "^\\s*[0-9]*\\.?[0-9]+\\s*(%|[kKmMgGtTpP]|[kKMGTP]i?B|B|b|kB)?\\s*$"
);

/// A latency in nanoseconds with the unit that keeps it short: `850 ns`, `21.3 µs`, `1.25 ms`, `2.50 s`.
pub fn latency(ns: f64) -> String {
    // The thresholds are where the rounded value would reach 1000 of its unit.
    if ns < 999.5 {
        format!("{ns:.0} ns")
    } else if ns < 999_950.0 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 999_995_000.0 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

#[cfg(test)]
mod tests {
    /// The newcomer's trial: `--ymax 10k` was refused, though wkrun writes IOPS so.
    #[test]
    fn counts_take_si_suffixes() {
        assert_eq!(super::parse_count("100000"), Ok(100_000.0));
        assert_eq!(super::parse_count("10k"), Ok(10_000.0));
        assert_eq!(super::parse_count("10K"), Ok(10_000.0));
        assert_eq!(super::parse_count("1.5M"), Ok(1_500_000.0));
        assert_eq!(super::parse_count("2G"), Ok(2e9));
        assert_eq!(
            super::parse_count("10x"),
            Err(
                "\"10x\" is not a number: write it plainly or with an SI suffix, such as 100000, 10k, 1.5M"
                    .into()
            )
        );
        assert!(super::parse_count("infk").is_err());
        assert!(super::parse_count("k").is_err());
    }

    use super::*;

    /// The message of a bare TOML number given as a `T`.
    fn bare<T: for<'de> Deserialize<'de> + fmt::Debug>(toml_value: &str) -> String {
        #[derive(Debug, Deserialize)]
        struct W<T> {
            #[allow(dead_code)]
            v: T,
        }
        toml::from_str::<W<T>>(&format!("v = {toml_value}"))
            .unwrap_err()
            .message()
            .to_string()
    }

    /// A number in exponent notation is said to be one, with its plain digits or that it is out of
    /// range (attack 15: `--set duration=1e30s` said `duration "1e" has an unknown unit "e"`).
    #[test]
    fn a_number_with_an_exponent_is_said_to_be_one() {
        let no = "is not a plain number (wkrun reads digits, no exponent)";
        assert_eq!(
            Duration::parse("1e30s"),
            Err(format!("duration \"1e30s\": 1e30 {no}, and it is too long"))
        );
        assert_eq!(
            Duration::parse("1.5e3ms"),
            Err(format!(
                "duration \"1.5e3ms\": 1.5e3 {no}: write \"1500ms\""
            ))
        );
        assert_eq!(
            Duration::parse("2E-3s"),
            Err(format!("duration \"2E-3s\": 2E-3 {no}: write it in digits"))
        );
        assert_eq!(
            Size::parse("4e3KiB"),
            Err(format!("size \"4e3KiB\": 4e3 {no}: write \"4000KiB\""))
        );
        assert_eq!(
            Size::parse("1e20"),
            Err(format!("size \"1e20\": 1e20 {no}, and it is too large"))
        );
        // Not an exponent: a unit that starts with e is still an unknown unit.
        assert_eq!(
            Duration::parse("3e"),
            Err(
                "duration \"3e\" has an unknown unit \"e\"; use ns, us, ms, s, m or min, h, d"
                    .into()
            )
        );
        assert_eq!(Duration::parse("1h30m"), Ok(Duration(5_400_000_000_000)));
    }

    /// The unknown-unit message lists every unit a size takes, PiB and PB too (issue 24, round 2), and
    /// each one it lists parses.
    #[test]
    fn the_unknown_unit_message_lists_every_unit() {
        let e = Size::parse("12q").unwrap_err();
        assert_eq!(
            e,
            "size \"12q\" has an unknown unit \"q\"; use B, KiB, MiB, GiB, TiB, PiB (binary), KB, MB, GB, TB, PB (decimal) or k/M/G/T/P (binary, as in fio)"
        );
        for u in [
            "B", "KiB", "MiB", "GiB", "TiB", "PiB", "KB", "MB", "GB", "TB", "PB", "k", "M", "G",
            "T", "P",
        ] {
            assert!(Size::parse(&format!("1{u}")).is_ok(), "{u}");
        }
        assert_eq!(Size::parse("1PiB"), Ok(Size(1 << 50)));
        assert_eq!(Size::parse("1P"), Ok(Size(1 << 50)));
        assert_eq!(Size::parse("1PB"), Ok(Size(1_000_000_000_000_000)));
    }

    #[test]
    fn a_bare_number_hint_suggests_only_values_of_the_type() {
        let d = |v| bare::<Duration>(v);
        assert_eq!(
            d("30"),
            "bare number 30 has no unit; write a duration as a string with its unit, e.g. \"30s\""
        );
        assert_eq!(
            d("1.5"),
            "bare number 1.5 has no unit; write the duration as a string with its unit, e.g. \"1.5s\""
        );
        for (v, shown) in [
            ("nan", "NaN"),
            ("-inf", "-inf"),
            ("-3", "-3"),
            ("1e30", "1000000000000000000000000000000"),
        ] {
            let m = d(v);
            assert!(
                m.starts_with(&format!("bare number {shown} has no unit")),
                "{m}"
            );
            assert!(m.ends_with("e.g. \"30s\""), "{v}: {m}");
        }
        assert!(bare::<Percent>("nan").ends_with("e.g. \"50%\""));
        assert!(bare::<Percent>("12.5").ends_with("e.g. \"12.5%\""));
    }

    #[test]
    fn invisible_characters_are_refused_naming_the_code_point() {
        for (v, cp) in [
            ("4KiB\u{85}", "0085"),
            ("4KiB\u{a0}", "00A0"),
            ("4KiB\u{2028}", "2028"),
            ("\t4KiB", "0009"),
            ("4\u{3000}KiB", "3000"),
            // Format characters: a zero-width space and a right-to-left override (review 40, M6).
            ("4\u{200b}KiB", "200B"),
            ("4KiB\u{202e}", "202E"),
        ] {
            assert_eq!(
                Size::parse(v),
                Err(format!(
                    "size {v:?} holds the invisible character U+{cp}; write it with plain ASCII characters"
                ))
            );
        }
        assert_eq!(
            Duration::parse("30s\u{85}").unwrap_err(),
            "duration \"30s\\u{85}\" holds the invisible character U+0085; write it with plain ASCII characters"
        );
        assert!(Percent::parse("7%\u{a0}").unwrap_err().contains("U+00A0"));
        assert!(parse_count("10k\u{2028}").unwrap_err().contains("U+2028"));
        assert!(Amount::parse("84%\u{85}").unwrap_err().contains("U+0085"));
        assert_eq!(Size::parse(" 4 KiB "), Ok(Size(4096)));
        assert_eq!(Percent::parse(" 7 % ").map(|p| p.0), Ok(7_000_000));
    }

    #[test]
    fn sizes() {
        assert_eq!(Size::parse("4KiB"), Ok(Size(4096)));
        assert_eq!(Size::parse("4k"), Ok(Size(4096)));
        assert_eq!(Size::parse("4K"), Ok(Size(4096)));
        assert_eq!(Size::parse("128KiB"), Ok(Size(131_072)));
        assert_eq!(Size::parse("1GiB"), Ok(Size(1 << 30)));
        assert_eq!(Size::parse("240GB"), Ok(Size(240_000_000_000)));
        assert_eq!(Size::parse("1.5KiB"), Ok(Size(1536)));
        assert_eq!(Size::parse("512B"), Ok(Size(512)));
        assert_eq!(Size::parse("512"), Ok(Size(512)));
        assert_eq!(Size::parse("1000B"), Ok(Size(1000)));
        assert!(Size::parse("0.3B").is_err());
        assert!(Size::parse("4 furlongs").is_err());
        assert!(Size::parse("KiB").is_err());
        assert!(Size::parse("99999999PiB").is_err());
        assert!(
            Size::parse("302231454903657293676545PiB")
                .unwrap_err()
                .contains("too large")
        );
        assert!(
            Duration::parse("99999999999999999999d")
                .unwrap_err()
                .contains("too long")
        );
        assert_eq!(
            Percent(2_000_000_000_000_000_000).checked_of_floor(u64::MAX),
            None
        );
        assert_eq!(Size(131_072).to_string(), "128KiB");
        assert_eq!(Size(1000).to_string(), "1000B");
    }

    #[test]
    fn durations_c11() {
        assert_eq!(Duration::parse("2000s"), Ok(Duration(2_000_000_000_000)));
        assert_eq!(Duration::parse("500min"), Ok(Duration(30_000_000_000_000)));
        assert_eq!(Duration::parse("30m"), Ok(Duration(1_800_000_000_000)));
        assert_eq!(Duration::parse("1m"), Ok(Duration(60_000_000_000)));
        assert_eq!(Duration::parse("10h"), Ok(Duration(36_000_000_000_000)));
        assert_eq!(Duration::parse("3500ms"), Ok(Duration(3_500_000_000)));
        assert_eq!(Duration::parse("1.5s"), Ok(Duration(1_500_000_000)));
        assert_eq!(Duration::parse("200ms"), Ok(Duration(200_000_000)));
        assert_eq!(Duration::parse("1h30m"), Ok(Duration(5_400_000_000_000)));
        assert_eq!(Duration::parse("2m30s"), Ok(Duration(150_000_000_000)));
        assert!(Duration::parse("1h30").unwrap_err().contains("no unit"));
        let e = Duration::parse("5").unwrap_err();
        assert!(e.contains("no unit") && e.contains("5s"), "{e}");
        assert!(Duration::parse("5 fortnights").is_err());
        assert_eq!(Duration(30_000_000_000_000).to_string(), "500min");
        assert_eq!(Duration(3_500_000_000).to_string(), "3500ms");
    }

    #[test]
    fn percents_c04() {
        let p = Percent::parse("33%").unwrap();
        assert_eq!(p.0, 33_000_000);
        // 33 % of 10 MiB = 3,460,300.8 bytes
        assert_eq!(p.of_floor(10_485_760), 3_460_300);
        assert_eq!(p.of_ceil(10_485_760), 3_460_301);
        assert_eq!(Percent::parse("12.5%").unwrap().to_string(), "12.5%");
        assert!(Percent::parse("12.5").is_err());
        assert_eq!(
            Percent::parse("99.9999999%"),
            Err(
                "percentage \"99.9999999%\" has 7 decimals; wkrun keeps at most 6 (0.000001 %)"
                    .into()
            )
        );
        assert_eq!(
            Percent::parse("9x%"),
            Err("percentage \"9x%\" is not a number followed by %".into())
        );
        assert_eq!(
            Amount::parse("200%"),
            Ok(Amount::Percent(Percent(200_000_000)))
        );
        assert_eq!(Amount::parse("64MiB"), Ok(Amount::Bytes(64 << 20)));
    }

    /// Review of session 15: `1e1e1e...` recursed once per `e1` through the unit's scale (40 KB of it
    /// overflowed the stack, exit 134) and suggested writing `10e1e1...`.
    #[test]
    fn a_long_exponent_chain_is_refused_without_recursion() {
        let v = format!("1{}", "e1".repeat(50_000));
        let e = Size::parse(&v).unwrap_err();
        assert!(
            e.ends_with(": write it in digits"),
            "{}",
            &e[e.len() - 80..]
        );
        assert!(e.starts_with("size \"1e1e1e1"), "{}", &e[..40]);
        assert_eq!(
            Size::parse("1e3KiB").unwrap_err(),
            "size \"1e3KiB\": 1e3 is not a plain number (wkrun reads digits, no exponent): write \"1000KiB\""
        );
    }
}
