//! fio's region of a job from its options, one definition for `wkrun import fio` and the JSON reader.
//!
//! Without `filesize`, a job works in `size` bytes from `offset`. With `filesize`, `size` is only the job's
//! default amount of I/O (`io_size`) and the region runs from `offset` to the end of the file (attack 26
//! F1: fio wrote 10610 of 12382 I/Os past `offset + size`).

use super::value::{self, Size};

/// A job's `filesize`: its one size in bytes, `(lo, hi)` for a range (fio picks each file's size in it).
pub fn filesize(text: &str, kb_base: u64) -> Result<(u64, u64), String> {
    value::range(text, kb_base).or_else(|_| value::bytes(text, kb_base).map(|b| (b, b)))
}

/// The length of the job's region from `offset`, `size` and `filesize` (bytes): `filesize` less the offset
/// when the file's size is set, else `size`; `None` when neither is given (the whole file or device).
pub fn span(offset: Option<Size>, size: Option<Size>, filesize: Option<u64>) -> Option<Size> {
    let Some(f) = filesize else {
        return size;
    };
    Some(match offset {
        None => Size::Bytes(f),
        Some(Size::Bytes(o)) => Size::Bytes(f.saturating_sub(o)),
        Some(Size::Percent(p)) => Size::Percent(100u64.saturating_sub(p)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filesize_makes_the_region_run_to_the_end_of_the_file() {
        let m = 1 << 20;
        let (o, z) = (Some(Size::Bytes(8 * m)), Some(Size::Bytes(8 * m)));
        assert_eq!(span(o, z, None), Some(Size::Bytes(8 * m)));
        assert_eq!(span(o, z, Some(64 * m)), Some(Size::Bytes(56 * m)));
        assert_eq!(span(None, z, Some(64 * m)), Some(Size::Bytes(64 * m)));
        assert_eq!(
            span(Some(Size::Percent(25)), z, Some(64 * m)),
            Some(Size::Percent(75))
        );
        assert_eq!(span(None, None, None), None);
        assert_eq!(filesize("1g", 1024), Ok((1 << 30, 1 << 30)));
        assert_eq!(filesize("1m-2m", 1024), Ok((m, 2 * m)));
    }
}
