//! Resolving a phase's `offset` and `span` into an exact, block-aligned byte range of the target.
//!
//! Rules (case C04): a percentage is of the whole target's capacity; the start rounds **up** to a block
//! boundary, the length rounds **down** to whole blocks; an explicit byte offset must already be a multiple of
//! the block; every rounding is reported so `wkrun plan` can show it.

use crate::units::{Amount, PERCENT_SCALE, fmt_bytes};

/// A resolved byte range `[start, start + len)` with notes on how it was rounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedSpan {
    /// First byte (a multiple of the block size).
    pub start: u64,
    /// Length in bytes (a positive multiple of the block size).
    pub len: u64,
    /// Bytes of the requested span dropped by rounding down to whole blocks.
    pub unused_tail: u64,
    /// Human-readable notes on each rounding, for `wkrun plan`.
    pub notes: Vec<String>,
}

/// Why a span cannot be resolved: the key concerned and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanError {
    /// `"offset"` or `"span"`.
    pub key: &'static str,
    /// What is wrong, with the values involved.
    pub message: String,
}

/// Exact `capacity × percent` as a decimal string (`3460300.8`).
fn exact(capacity: u64, micro: u64) -> String {
    let num = capacity as u128 * micro as u128;
    let int = num / PERCENT_SCALE as u128;
    let frac = num % PERCENT_SCALE as u128;
    if frac == 0 {
        int.to_string()
    } else {
        format!("{int}.{}", format!("{frac:08}").trim_end_matches('0'))
    }
}

/// Resolves `offset` (default 0) and `span` (default: the rest of the target from the offset) against a target
/// of `capacity` bytes, in blocks of `block` bytes.
///
/// # Errors
/// [`SpanError`] when an explicit byte offset is not block-aligned, the range does not fit in the target, or
/// the span holds less than one block.
pub fn resolve(
    capacity: u64,
    block: u64,
    offset: Option<Amount>,
    span: Option<Amount>,
) -> Result<ResolvedSpan, SpanError> {
    let mut notes = Vec::new();
    let start = match offset {
        None => 0,
        Some(Amount::Bytes(b)) => {
            if let Some(message) = crate::spec::rules::offset_off_block(b, block) {
                return Err(SpanError {
                    key: "offset",
                    message,
                });
            }
            b
        }
        Some(Amount::Percent(p)) => {
            let raw = p.of_ceil(capacity);
            let up = raw.div_ceil(block) * block;
            if up as u128 * PERCENT_SCALE as u128 != capacity as u128 * p.0 as u128 {
                notes.push(format!(
                    "offset {p} of {capacity} B = {} B, rounded up to the block boundary {up} B",
                    exact(capacity, p.0)
                ));
            }
            up
        }
    };
    if start >= capacity {
        return Err(SpanError {
            key: "offset",
            message: format!("offset {start} B is at or past the end of the target ({capacity} B)"),
        });
    }
    let (requested, what) = match span {
        None => (
            capacity - start,
            format!("span (rest of the target from {start} B)"),
        ),
        Some(Amount::Bytes(b)) => (b, format!("span {}", fmt_bytes(b))),
        Some(Amount::Percent(p)) => {
            let v = p.of_floor(capacity);
            (
                v,
                format!("span {p} of {capacity} B = {} B", exact(capacity, p.0)),
            )
        }
    };
    // The offset as written, before its rounding up: a percent offset and span that add up to no more than
    // the target are not past its end (attack 40 F16: `offset = "0.5%"` and `span = "99.5%"` were), and
    // the span then ends at the target's end, its tail taken off with the rounding down.
    let asked = match offset {
        Some(Amount::Percent(p)) => p.of_floor(capacity),
        _ => start,
    };
    if asked
        .checked_add(requested)
        .is_none_or(|end| end > capacity)
    {
        return Err(SpanError {
            key: "span",
            message: format!(
                "offset {asked} B + span {requested} B = {} B is past the end of the target ({capacity} B)",
                asked as u128 + requested as u128
            ),
        });
    }
    let len = crate::spec::rules::whole_blocks(requested.min(capacity - start), block) * block;
    if len == 0 {
        return Err(SpanError {
            key: "span",
            message: format!(
                "the span ({requested} B) is smaller than one block ({block} B){}",
                match span {
                    // `span = 50` is 50 bytes: most likely a percentage without its sign.
                    Some(Amount::Bytes(_)) if requested <= 100 => format!(
                        "; a number without a unit is bytes: did you mean \"{requested}%\"?"
                    ),
                    _ => String::new(),
                }
            ),
        });
    }
    let unused_tail = requested - len;
    if unused_tail > 0
        || matches!(span, Some(Amount::Percent(p)) if p.of_floor(capacity) as u128 * PERCENT_SCALE as u128 != capacity as u128 * p.0 as u128)
    {
        notes.push(format!(
            "{what}, rounded down to {len} B ({} blocks of {}); {unused_tail} B left unused",
            len / block,
            fmt_bytes(block)
        ));
    }
    Ok(ResolvedSpan {
        start,
        len,
        unused_tail,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Percent;

    #[test]
    fn c04_span_rounding_ten_mib() {
        let p = Some(Amount::Percent(Percent(33_000_000)));
        let r = resolve(10_485_760, 4096, p, p).unwrap();
        assert_eq!(r.start, 3_461_120);
        assert_eq!(r.len, 3_457_024);
        assert_eq!(r.len / 4096, 844);
        assert_eq!(r.start + r.len - 4096, 6_914_048, "last write starts here");
        assert_eq!(r.start + r.len, 6_918_144);
        assert!(r.notes[0].contains("3460300.8"), "{:?}", r.notes);
        assert!(r.notes[0].contains("rounded up"), "{:?}", r.notes);
        assert!(r.notes[1].contains("rounded down"), "{:?}", r.notes);
    }

    /// Attack 40 F16: 0.5 % + 99.5 % of 64 MiB is the whole target: the offset rounds up to 335,872 B
    /// (82 blocks of 4 KiB; 0.5 % is 335,544.32 B), the span ends at the target's end, 16,302 blocks.
    #[test]
    fn a_percent_offset_and_span_that_add_up_to_the_whole_target_fit() {
        let cap = 64 << 20;
        let r = resolve(
            cap,
            4096,
            Some(Amount::Percent(Percent(500_000))),
            Some(Amount::Percent(Percent(99_500_000))),
        )
        .unwrap();
        assert_eq!(r.start, 82 * 4096);
        assert_eq!(r.len, 16_302 * 4096);
        assert_eq!(r.start + r.len, cap);
        // 99.5 % is 66,773,319.68 B, floored to 66,773,319; 66,773,319 − 66,772,992 left unused.
        assert_eq!(r.unused_tail, 66_773_319 - 66_772_992);
        // 0.6 % + 99.5 % is past the end, named with the offset as written.
        let e = resolve(
            cap,
            4096,
            Some(Amount::Percent(Percent(600_000))),
            Some(Amount::Percent(Percent(99_500_000))),
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "offset 402653 B + span 66773319 B = 67175972 B is past the end of the target (67108864 B)"
        );
    }

    #[test]
    fn c04_span_rounding_thirty_kib() {
        let r = resolve(30 * 1024, 4096, None, Some(Amount::Percent(Percent::FULL))).unwrap();
        assert_eq!((r.start, r.len, r.unused_tail), (0, 28_672, 2_048));
        assert!(
            r.notes.iter().any(|n| n.contains("2048 B left unused")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            resolve(1 << 20, 4096, Some(Amount::Bytes(32)), None)
                .unwrap_err()
                .key,
            "offset"
        );
        assert_eq!(
            resolve(1 << 20, 4096, None, Some(Amount::Bytes(2 << 20)))
                .unwrap_err()
                .key,
            "span"
        );
        assert_eq!(
            resolve(1 << 20, 4096, None, Some(Amount::Bytes(100)))
                .unwrap_err()
                .key,
            "span"
        );
        assert_eq!(
            resolve(1 << 20, 4096, Some(Amount::Bytes(1 << 20)), None)
                .unwrap_err()
                .key,
            "offset"
        );
        let r = resolve(1 << 20, 4096, Some(Amount::Bytes(8192)), None).unwrap();
        assert_eq!((r.start, r.len), (8192, (1 << 20) - 8192));
        assert!(r.notes.is_empty());
    }
}
