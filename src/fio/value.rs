//! fio's values, read as fio reads them: sizes with `kb_base` (by default `k`, `KB` = 1024 and, inverted
//! for compatibility, `KiB` = 1000; with `kb_base=1000`, `k`, `KB` = 1000 and `KiB` = 1024), percentages,
//! hexadecimal, times with fio's suffixes (`us`, `ms`, `s`, `m`, `h`, `d`; a bare number in the option's own
//! unit), booleans, ranges and per-direction lists (`read,write,trim`).
//!
//! Where fio would read a value as something other than it looks (`1.5g` is 1 byte to fio, `10sec` is 10 µs,
//! an arithmetic expression needs fio's calculator), the value is refused with what fio would make of it.

/// A size: bytes, or a percentage of the file or device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// A percentage, 0 to 100.
    Percent(u64),
}

/// The leading digits of `t` (after an optional `+`), their value in `radix`, and the rest.
fn number(t: &str, radix: u32) -> Result<(u64, &str), String> {
    let t = t.strip_prefix('+').unwrap_or(t);
    let end = t.find(|c: char| !c.is_digit(radix)).unwrap_or(t.len());
    if end == 0 {
        return Err("no number".into());
    }
    let n = u64::from_str_radix(&t[..end], radix).map_err(|_| "too large".to_string())?;
    Ok((n, &t[end..]))
}

/// Refuses what fio reads differently than it looks: arithmetic, negative numbers, fractions.
fn plain(t: &str) -> Result<&str, String> {
    let t = t.trim();
    if t.is_empty() {
        return Err("no value".into());
    }
    if t.starts_with('(') {
        return Err(format!(
            "`{t}` is an arithmetic expression, which fio computes with its calculator; write the value"
        ));
    }
    if t.starts_with('-') {
        return Err(format!("`{t}` is negative"));
    }
    Ok(t)
}

/// Reads a size as fio does with the given `kb_base` (1024 or 1000).
///
/// # Errors
/// What is wrong with the value, in words.
pub fn size(text: &str, kb_base: u64) -> Result<Size, String> {
    let t = plain(text)?;
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let (n, rest) = number(hex, 16).map_err(|e| format!("`{t}`: {e}"))?;
        if !rest.is_empty() {
            return Err(format!("`{t}`: a hexadecimal size takes no unit"));
        }
        return Ok(Size::Bytes(n));
    }
    let (n, rest) = number(t, 10).map_err(|e| format!("`{t}`: {e}"))?;
    if rest.starts_with(['.', ',']) {
        return Err(format!(
            "`{t}`: fio reads no fractions (it takes `{n}` and drops the rest); write it in a smaller unit"
        ));
    }
    let unit = rest.trim().to_ascii_lowercase();
    if unit == "%" {
        return match n {
            0..=100 => Ok(Size::Percent(n)),
            _ => Err(format!("`{t}`: a percentage is 0 to 100")),
        };
    }
    let (pow, iec) = match unit.as_str() {
        "" | "b" => (0, false),
        "k" | "kb" => (1, false),
        "kib" => (1, true),
        "m" | "mb" => (2, false),
        "mib" => (2, true),
        "g" | "gb" => (3, false),
        "gib" => (3, true),
        "t" | "tb" => (4, false),
        "tib" => (4, true),
        "p" | "pb" => (5, false),
        "pib" => (5, true),
        _ => {
            return Err(format!(
                "`{t}`: unknown unit `{}` (fio's units: k, m, g, t, p with an optional b or ib, and %)",
                rest.trim()
            ));
        }
    };
    // fio's compatibility rule: with kb_base=1024 the IEC suffixes are powers of 1000, and the other way round.
    let base = match (kb_base, iec) {
        (1000, true) => 1024,
        (1000, false) => 1000,
        (_, true) => 1000,
        (_, false) => 1024,
    };
    (0..pow)
        .try_fold(n, |v, _| v.checked_mul(base))
        .map(Size::Bytes)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// A size that must be bytes (no percentage).
///
/// # Errors
/// As [`size`], and for a percentage.
pub fn bytes(text: &str, kb_base: u64) -> Result<u64, String> {
    match size(text, kb_base)? {
        Size::Bytes(b) => Ok(b),
        Size::Percent(_) => Err(format!("`{}`: a percentage is not taken here", text.trim())),
    }
}

/// An integer option, read as fio reads them (a size: `iodepth=1k` is 1024).
///
/// # Errors
/// As [`bytes`].
pub fn int(text: &str, kb_base: u64) -> Result<u64, String> {
    bytes(text, kb_base)
}

/// The read share (%) fio runs with after its option `name`, `rwmixread` or `rwmixwrite`, of `percent`
/// (at most 100): `rwmixwrite=N` is 100 − N % reads. fio keeps the one it read last (measured, fio 3.33:
/// `--rwmixread=70 --rwmixwrite=20` ran 79.9 % reads), so the importer and the reader of fio's JSON apply
/// them in order with this.
pub fn read_mix(name: &str, percent: u64) -> u64 {
    match name {
        "rwmixwrite" => 100 - percent.min(100),
        _ => percent.min(100),
    }
}

/// A time in µs: `unit_s` says whether a bare number is seconds (fio's `is_seconds` options: runtime,
/// ramp_time, ss_dur) or µs.
///
/// # Errors
/// What is wrong with the value, in words.
pub fn time_us(text: &str, unit_s: bool) -> Result<u64, String> {
    let t = plain(text)?;
    let (n, rest) = number(t, 10).map_err(|e| format!("`{t}`: {e}"))?;
    if rest.starts_with('.') {
        return Err(format!(
            "`{t}`: fio reads no fractions (it takes `{n}` and drops the rest); write it in a smaller unit"
        ));
    }
    let unit = rest.trim().to_ascii_lowercase();
    let mult: u64 = match unit.as_str() {
        "" if unit_s => 1_000_000,
        "" | "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(format!(
                "`{t}`: fio reads the unit `{}` as µs (its time units: us, ms, s, m, h, d)",
                rest.trim()
            ));
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{t}` is too long"))
}

/// A boolean as fio reads it: the leading whole number (decimal, or hexadecimal after `0x`), what follows
/// it dropped, 0 or 1 (measured, fio 3.33: `direct=1k`, `direct=1.5` and `direct=0x1` opened with O_DIRECT,
/// `direct=0k` without, `direct=2` and `direct=true` refused), and the text fio dropped.
///
/// # Errors
/// For a value fio refuses.
pub fn fio_boolean(text: &str) -> Result<(bool, &str), String> {
    let t = plain(text)?;
    let (n, rest) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => number(hex, 16),
        None => number(t, 10),
    }
    .map_err(|e| format!("`{t}`: {e}"))?;
    match n {
        0 | 1 => Ok((n == 1, rest)),
        _ => Err(format!("`{t}` is not 0 or 1")),
    }
}

/// A boolean: `0` or `1` (or `0x0`, `0x1`); a value fio reads as one with text it drops ([`fio_boolean`]:
/// `1k` is 1) is refused, saying so.
///
/// # Errors
/// For anything else.
pub fn boolean(text: &str) -> Result<bool, String> {
    match fio_boolean(text)? {
        (b, "") => Ok(b),
        (b, rest) => Err(format!(
            "`{}`: fio reads it as {} and drops `{rest}`; write {}",
            text.trim(),
            u8::from(b),
            u8::from(b)
        )),
    }
}

/// fio's per-direction list `read[,write[,trim]]`: each part, `None` where empty (the direction keeps what
/// it had); a direction the list does not reach takes its last part, as fio fills them: one value (no
/// comma) is every direction's, `read,write` gives trims the write part (fio 3.33 on `rw=randtrim`: `bs=4k`
/// trimmed 4 KiB, `4k,8k` and `,8k` 8 KiB, `,,16k` 16 KiB, `8k,` 4 KiB, its default; likewise `bssplit`,
/// `bsrange`, `rate`, `rate_iops`).
pub fn directions(text: &str) -> [Option<&str>; 3] {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let last = parts.len() - 1;
    let get = |i: usize| parts.get(i.min(last)).copied().filter(|p| !p.is_empty());
    [get(0), get(1), get(2)]
}

/// A range `lo-hi` or `lo:hi` of sizes, in order.
///
/// # Errors
/// What is wrong with it.
pub fn range(text: &str, kb_base: u64) -> Result<(u64, u64), String> {
    let t = text.trim();
    let (a, b) = t
        .split_once('-')
        .or_else(|| t.split_once(':'))
        .ok_or_else(|| format!("`{t}` is not a range (write LOW-HIGH)"))?;
    let (a, b) = (bytes(a, kb_base)?, bytes(b, kb_base)?);
    Ok((a.min(b), a.max(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_kb_base() {
        let s = |t: &str| size(t, 1024);
        assert_eq!(s("4k"), Ok(Size::Bytes(4096)));
        assert_eq!(s("4K"), Ok(Size::Bytes(4096)));
        assert_eq!(s("4KB"), Ok(Size::Bytes(4096)));
        assert_eq!(s("4KiB"), Ok(Size::Bytes(4000)));
        assert_eq!(s("1m"), Ok(Size::Bytes(1 << 20)));
        assert_eq!(s("10G"), Ok(Size::Bytes(10 << 30)));
        assert_eq!(s("512"), Ok(Size::Bytes(512)));
        assert_eq!(s("512b"), Ok(Size::Bytes(512)));
        assert_eq!(s("0x1000"), Ok(Size::Bytes(4096)));
        assert_eq!(s("50%"), Ok(Size::Percent(50)));
        assert_eq!(size("4k", 1000), Ok(Size::Bytes(4000)));
        assert_eq!(size("4KiB", 1000), Ok(Size::Bytes(4096)));
        assert_eq!(size("1GiB", 1000), Ok(Size::Bytes(1 << 30)));
        assert!(s("1.5g").unwrap_err().contains("fio reads no fractions"));
        assert!(s("4q").unwrap_err().contains("unknown unit `q`"));
        assert!(s("(1+2)k").unwrap_err().contains("arithmetic"));
        assert!(s("-4k").unwrap_err().contains("negative"));
        assert!(s("101%").is_err());
        assert_eq!(s("0%"), Ok(Size::Percent(0)));
        assert!(s("99999999999p").unwrap_err().contains("too large"));
        assert_eq!(int("1k", 1024), Ok(1024));
    }

    #[test]
    fn times_have_fio_units() {
        assert_eq!(time_us("60", true), Ok(60_000_000));
        assert_eq!(time_us("60", false), Ok(60));
        assert_eq!(time_us("2s", false), Ok(2_000_000));
        assert_eq!(time_us("100ms", true), Ok(100_000));
        assert_eq!(time_us("5m", true), Ok(300_000_000));
        assert_eq!(time_us("1h", true), Ok(3_600_000_000));
        assert_eq!(time_us("10US", true), Ok(10));
        assert!(time_us("10sec", true).unwrap_err().contains("as µs"));
        assert!(time_us("1.5s", true).unwrap_err().contains("fractions"));
    }

    #[test]
    fn lists_ranges_booleans() {
        assert_eq!(directions("4k"), [Some("4k"); 3]);
        assert_eq!(directions("4k,8k"), [Some("4k"), Some("8k"), Some("8k")]);
        assert_eq!(directions(",8k"), [None, Some("8k"), Some("8k")]);
        assert_eq!(directions("8k,"), [Some("8k"), None, None]);
        assert_eq!(directions(",,16k"), [None, None, Some("16k")]);
        assert_eq!(directions("4k,,16k"), [Some("4k"), None, Some("16k")]);
        assert_eq!(range("16k-4k", 1024), Ok((4096, 16384)));
        assert_eq!(range("4k:16k", 1024), Ok((4096, 16384)));
        assert_eq!(boolean("1"), Ok(true));
        assert!(boolean("yes").is_err());
        assert_eq!(boolean("0x1"), Ok(true));
        assert!(
            boolean("1k")
                .unwrap_err()
                .contains("fio reads it as 1 and drops `k`")
        );
        assert_eq!(fio_boolean("1k"), Ok((true, "k")));
        assert_eq!(fio_boolean("0k"), Ok((false, "k")));
        assert_eq!(fio_boolean("1.5"), Ok((true, ".5")));
        assert_eq!(fio_boolean("0x1"), Ok((true, "")));
        assert!(fio_boolean("2").unwrap_err().contains("not 0 or 1"));
        assert!(fio_boolean("0x2").is_err());
        assert!(fio_boolean("true").is_err());
    }
}
