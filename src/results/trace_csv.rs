//! The per-I/O trace CSV of a phase with `trace = N`, `NN-<phase>.trace.csv` beside its series CSV: a
//! header row `t_ns,dir,offset,len,lat_ns`, then one row per traced completion in order of completion
//! time: `t_ns` the completion time in ns from the phase's t = 0 (the clock reading that put the I/O in its
//! series row: row k holds the completions with `t_ns` in `[k·Δ, (k+1)·Δ)`, and the drain of a time bound
//! the ones after it), `dir` its direction (`read`, `write`, `trim`), `offset` and `len` its byte range,
//! `lat_ns` its latency (it was submitted at `t_ns - lat_ns`).

use super::outdir::{OutDir, slug};
use crate::stats::trace::TraceRow;
use std::io::{self, BufRead as _, Write};

/// The header row.
pub const HEADER: &str = "t_ns,dir,offset,len,lat_ns";

/// The trace's file name for phase `index` named `name`: `NN-<name>.trace.csv`.
pub fn file_name(index: usize, name: &str) -> String {
    format!("{index:02}-{}.trace.csv", slug(name))
}

/// Writes `rows` as the trace `name` in `dir` (a new file).
///
/// # Errors
/// The OS error creating or writing the file.
pub fn write(dir: &OutDir, name: &str, rows: &[TraceRow]) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, dir.create(name)?);
    writeln!(w, "{HEADER}")?;
    for r in rows {
        writeln!(
            w,
            "{},{},{},{},{}",
            r.t_ns, r.dir, r.offset, r.len, r.lat_ns
        )?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_data()
}

/// The longest line read in a trace: 256 B (a row of five numbers at their largest is about 90).
pub const MAX_LINE: u64 = 256;

/// Checks the trace at `path`: its header, every row readable, in order of completion time, and `ios` rows.
/// The file must be a regular file beside the results, never a symbolic link (not followed), a FIFO or a
/// device ([`super::open_beside`]); it is read a line at a time, each at most [`MAX_LINE`].
///
/// # Errors
/// What is wrong, with the line.
pub fn check_file(path: &std::path::Path, ios: u64) -> Result<(), String> {
    let f = super::open_beside(path)?;
    check_lines(io::BufReader::with_capacity(64 << 10, f), ios)
}

/// [`check_file`] of the trace `src` reads.
///
/// # Errors
/// As [`check_file`].
pub fn check_lines(mut src: impl io::BufRead, ios: u64) -> Result<(), String> {
    let mut buf = Vec::with_capacity(128);
    if next_line(&mut src, &mut buf, 1)? != Some(HEADER) {
        return Err(format!("line 1 is not {HEADER}"));
    }
    let (mut n, mut last) = (0u64, 0u64);
    while let Some(text) = next_line(&mut src, &mut buf, n + 2)? {
        let at = n + 2;
        if n == ios {
            return Err(format!("line {at}: more rows than trace.ios, {ios}"));
        }
        let r = parse_row(text).map_err(|e| format!("line {at}: {e}"))?;
        if r.t_ns < last {
            return Err(format!(
                "line {at}: t_ns {} before the line above's {last}",
                r.t_ns
            ));
        }
        (n, last) = (n + 1, r.t_ns);
    }
    match n == ios {
        true => Ok(()),
        false => Err(format!("{n} rows, where trace.ios says {ios}")),
    }
}

/// Line `n` of `src`, read into `buf` (at most [`MAX_LINE`] bytes), without its line end; `None` at the
/// end.
fn next_line<'b>(
    src: &mut impl io::BufRead,
    buf: &'b mut Vec<u8>,
    n: u64,
) -> Result<Option<&'b str>, String> {
    use std::io::Read;
    buf.clear();
    let got = src
        .take(MAX_LINE + 1)
        .read_until(b'\n', buf)
        .map_err(|e| format!("line {n}: cannot read it: {e}"))?;
    if got as u64 > MAX_LINE {
        return Err(format!(
            "line {n} is longer than {MAX_LINE} B, the longest line of a trace"
        ));
    }
    if got == 0 {
        return Ok(None);
    }
    let line = buf.strip_suffix(b"\n").unwrap_or(buf);
    std::str::from_utf8(line)
        .map(Some)
        .map_err(|_| format!("line {n} is not text (not UTF-8)"))
}

/// One row of a trace read back.
///
/// # Errors
/// A row that does not have the five cells of [`HEADER`], each of its kind.
pub fn parse_row(line: &str) -> Result<TraceRow, String> {
    let cells: Vec<&str> = line.split(',').collect();
    let [t, dir, offset, len, lat] = cells[..] else {
        return Err(format!("{} cells, not 5", cells.len()));
    };
    let num = |name: &str, v: &str| v.parse::<u64>().map_err(|e| format!("{name}: {e}"));
    let dir = crate::vocab::Direction::ALL
        .into_iter()
        .find(|d| d.name() == dir)
        .ok_or_else(|| format!("dir: \"{dir}\" is not a direction"))?;
    Ok(TraceRow {
        t_ns: num("t_ns", t)?,
        dir,
        offset: num("offset", offset)?,
        len: u32::try_from(num("len", len)?).map_err(|e| format!("len: {e}"))?,
        lat_ns: num("lat_ns", lat)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Direction;

    #[test]
    fn a_row_reads_back() {
        let r = TraceRow {
            t_ns: 12,
            lat_ns: 7,
            offset: 8192,
            len: 4096,
            dir: Direction::Write,
        };
        let line = format!("{},{},{},{},{}", r.t_ns, r.dir, r.offset, r.len, r.lat_ns);
        assert_eq!(line, "12,write,8192,4096,7");
        assert_eq!(parse_row(&line), Ok(r));
        assert_eq!(
            parse_row("1,x,2,3,4").err().as_deref(),
            Some("dir: \"x\" is not a direction")
        );
        assert_eq!(
            parse_row("1,read,2").err().as_deref(),
            Some("3 cells, not 5")
        );
        assert_eq!(file_name(3, "w[bs=4KiB]"), "03-w_bs-4KiB.trace.csv");
    }
}
