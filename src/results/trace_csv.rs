//! The per-I/O trace CSV of a phase with `trace = N`, `NN-<phase>.trace.csv` beside its series CSV: a
//! header row `t_ns,dir,offset,len,lat_ns`, then one row per traced completion in order of completion
//! time: `t_ns` the completion time in ns from the phase's t = 0 (the clock reading that put the I/O in its
//! series row: row k holds the completions with `t_ns` in `[k·Δ, (k+1)·Δ)`, and the drain of a time bound
//! the ones after it), `dir` its direction (`read`, `write`, `trim`), `offset` and `len` its byte range,
//! `lat_ns` its latency (it was submitted at `t_ns - lat_ns`).

use super::outdir::{OutDir, slug};
use crate::stats::trace::TraceRow;
use std::io::{self, Write};

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

/// Checks the trace at `path`: its header, every row readable, in order of completion time, and `ios` rows.
///
/// # Errors
/// What is wrong, with the line.
pub fn check_file(path: &std::path::Path, ios: u64) -> Result<(), String> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut lines = io::BufReader::new(f).lines();
    match lines.next() {
        Some(Ok(h)) if h == HEADER => {}
        _ => return Err(format!("its first line is not {HEADER}")),
    }
    let (mut n, mut last) = (0u64, 0u64);
    for (i, line) in lines.enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", i + 2))?;
        let r = parse_row(&line).map_err(|e| format!("line {}: {e}", i + 2))?;
        if r.t_ns < last {
            return Err(format!(
                "line {}: t_ns {} before the line above's {last}",
                i + 2,
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
