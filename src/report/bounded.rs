//! Reading the files `report` and `compare` are given, within stated limits: a results file of at most
//! [`MAX_RESULTS_BYTES`], a series CSV of at most [`MAX_SERIES_ROWS`] rows of at most [`MAX_SERIES_LINE`]
//! bytes each. A file past a limit (or a device such as `/dev/zero`, which never ends) is refused as soon as
//! the limit is passed, so memory stays bounded whatever the file.

use crate::units::fmt_bytes;
use std::fmt;
use std::io::{self, Read};

/// The largest `results.json` read: 512 MiB, defined with the plan, which refuses a run whose results
/// could pass it ([`crate::plan::results_size`]). The file is read a phase at a time
/// ([`crate::results::stream`]).
pub use crate::plan::results_size::MAX_RESULTS_BYTES;
/// The most rows read from one series CSV: 10,000,000, the most intervals a time-bounded phase has
/// ([`crate::stats::MAX_INTERVALS`]).
pub const MAX_SERIES_ROWS: u64 = crate::stats::MAX_INTERVALS;
/// The longest line read in a series CSV: 4 KiB (a row is about 300 bytes).
pub const MAX_SERIES_LINE: u64 = 4 << 10;

/// A file went past a limit; the text says which (without the file's name).
#[derive(Debug)]
pub struct Exceeded(pub String);

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Exceeded {}

/// The [`Exceeded`] inside an I/O error, if that is what the error is.
pub fn exceeded(e: &io::Error) -> Option<&Exceeded> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Exceeded>())
}

/// A reader that fails with [`Exceeded`] once more than `max_bytes` bytes, more than `max_lines` line ends,
/// or a line longer than `max_line` bytes have gone through it.
pub struct Bounded<R> {
    inner: R,
    what: &'static str,
    max_bytes: u64,
    max_lines: u64,
    max_line: u64,
    bytes: u64,
    lines: u64,
    line: u64,
}

impl<R: Read> Bounded<R> {
    /// A results file: at most [`MAX_RESULTS_BYTES`].
    pub fn results(inner: R) -> Bounded<R> {
        Bounded {
            inner,
            what: "results file",
            max_bytes: MAX_RESULTS_BYTES,
            max_lines: u64::MAX,
            max_line: u64::MAX,
            bytes: 0,
            lines: 0,
            line: 0,
        }
    }

    /// A series CSV: a header and at most [`MAX_SERIES_ROWS`] rows, each line at most [`MAX_SERIES_LINE`].
    pub fn series(inner: R) -> Bounded<R> {
        Bounded {
            what: "series CSV",
            max_lines: MAX_SERIES_ROWS + 1,
            max_line: MAX_SERIES_LINE,
            max_bytes: u64::MAX,
            ..Bounded::results(inner)
        }
    }

    /// The error for a file larger than `max_bytes`.
    pub fn too_large(&self) -> Exceeded {
        Exceeded(format!(
            "larger than {}, the largest {} wkrun reads",
            fmt_bytes(self.max_bytes),
            self.what
        ))
    }

    /// Refuses at once a file whose length (from its metadata) is already past `max_bytes`, before a byte
    /// of it is read.
    ///
    /// # Errors
    /// [`Bounded::too_large`] when `len` is past the limit.
    pub fn check_len(&self, len: u64) -> Result<(), Exceeded> {
        if len > self.max_bytes {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// After the whole file was read: the number of its last line when that line has no end (a row cut
    /// short, as by a full disk or a copy cut mid-row).
    pub fn unended_line(&self) -> Option<u64> {
        (self.line > 0).then_some(self.lines + 1)
    }

    fn check(&mut self, chunk: &[u8]) -> Result<(), Exceeded> {
        self.bytes += chunk.len() as u64;
        if self.bytes > self.max_bytes {
            return Err(self.too_large());
        }
        for (k, piece) in chunk.split(|&b| b == b'\n').enumerate() {
            if k > 0 {
                self.lines += 1;
                self.line = 0;
                if self.lines > self.max_lines {
                    return Err(Exceeded(format!(
                        "more than {} rows, the most wkrun reads in a {}",
                        self.max_lines - 1,
                        self.what
                    )));
                }
            }
            self.line += piece.len() as u64;
            if self.line > self.max_line {
                return Err(Exceeded(format!(
                    "line {} is longer than {}, the longest line wkrun reads in a {}",
                    self.lines + 1,
                    fmt_bytes(self.max_line),
                    self.what
                )));
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.check(&buf[..n]).map_err(io::Error::other)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all<R: Read>(mut r: Bounded<R>) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        r.read_to_end(&mut out)
            .map_err(|e| exceeded(&e).map_or_else(|| e.to_string(), |x| x.0.clone()))?;
        Ok(out)
    }

    #[test]
    fn a_series_within_its_limits_reads_through() {
        let text = "h\n1\n2\n".to_string();
        let r = Bounded {
            max_lines: 3,
            max_line: 1,
            ..Bounded::series(text.as_bytes())
        };
        assert_eq!(read_all(r).unwrap(), text.as_bytes());
    }

    #[test]
    fn each_limit_is_named_when_passed() {
        let r = Bounded {
            max_lines: 2,
            ..Bounded::series(&b"h\n1\n2\n"[..])
        };
        assert_eq!(
            read_all(r).unwrap_err(),
            "more than 1 rows, the most wkrun reads in a series CSV"
        );
        let r = Bounded {
            max_line: 3,
            ..Bounded::series(&b"abc\nabcd\n"[..])
        };
        assert_eq!(
            read_all(r).unwrap_err(),
            "line 2 is longer than 3B, the longest line wkrun reads in a series CSV"
        );
        let r = Bounded {
            max_bytes: 4,
            ..Bounded::results(&b"{}   \n"[..])
        };
        assert_eq!(
            read_all(r).unwrap_err(),
            "larger than 4B, the largest results file wkrun reads"
        );
    }

    #[test]
    fn an_endless_device_stops_at_the_limit() {
        let r = Bounded {
            max_bytes: 1 << 20,
            ..Bounded::results(io::repeat(b' '))
        };
        assert_eq!(
            read_all(r).unwrap_err(),
            "larger than 1MiB, the largest results file wkrun reads"
        );
        let r = Bounded::series(io::repeat(0));
        assert_eq!(
            read_all(r).unwrap_err(),
            "line 1 is longer than 4KiB, the longest line wkrun reads in a series CSV"
        );
    }
}
