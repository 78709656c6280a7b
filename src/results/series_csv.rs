//! The per-phase series CSV: a header row, then one [`SeriesRow`] per interval, flushed as each row is final,
//! so that a run killed at any moment keeps every interval completed before it.

use super::outdir::{OutDir, slug};
use crate::stats::{DirInterval, IntervalCounts};
use crate::sys::dir::RowFile;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// The CSV file name of phase `index` named `name`: `NN-<name>.csv`, the name made shell-safe
/// ([`slug`]: `03-4k-random-read-qd1_filled-25pct.csv` for `4k-random-read-qd1[filled=25%]`). Readers take
/// the name from `results.json` (`series_csv`), never from this: older runs named it `NN-<name>.csv` as is.
pub fn file_name(index: usize, name: &str) -> String {
    format!("{index:02}-{}.csv", slug(name))
}

/// The device CSV file name of phase `index` named `name` on a simulated target: `NN-<name>.device.csv`,
/// the name made shell-safe as in [`file_name`].
pub fn device_file_name(index: usize, name: &str) -> String {
    format!("{index:02}-{}.device.csv", slug(name))
}

/// Appends rows to one phase's CSV, each in one piece: a row that cannot be written in full (a full disk) is
/// taken back, so the file always ends with a whole row, and no row is written after it.
pub struct SeriesWriter {
    path: PathBuf,
    file: RowFile,
    rows: u64,
}

impl SeriesWriter {
    /// Creates the CSV `name` in `dir` (replacing a file or link of that name, never writing through it;
    /// [`OutDir::create`]) and writes its header.
    ///
    /// # Errors
    /// The OS error creating or writing the file.
    pub fn create(dir: &OutDir, name: &str) -> io::Result<SeriesWriter> {
        let mut file = RowFile::new(dir.create(name)?);
        let mut header = csv::Writer::from_writer(Vec::new());
        header.write_record(HEADER)?;
        if let Err(e) = file.append(&header.into_inner().map_err(io::Error::other)?) {
            // No file without its header (a full disk): the empty file made goes again.
            let _ = dir.remove(name);
            return Err(e);
        }
        Ok(SeriesWriter {
            path: dir.join(name),
            file,
            rows: 0,
        })
    }

    /// Appends one row to the file (one write).
    ///
    /// # Errors
    /// The OS error writing the file (the row is then not in it), or an earlier row's failure.
    pub fn append(&mut self, row: &SeriesRow) -> io::Result<()> {
        self.file.append(&row_bytes(row)?)?;
        self.rows += 1;
        Ok(())
    }

    /// Rows written.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A whole series CSV, header and rows, as one piece of text (written at once with [`OutDir::replace`]:
/// `wkrun merge`).
///
/// # Errors
/// A row that cannot be serialized.
pub fn csv_bytes(rows: &[SeriesRow]) -> io::Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(128 * (rows.len() + 1)));
    w.write_record(HEADER)?;
    for r in rows {
        w.serialize(r).map_err(io::Error::other)?;
    }
    w.into_inner().map_err(io::Error::other)
}

/// One record as a CSV line (no header), for [`RowFile::append`].
fn row_bytes(row: &impl Serialize) -> io::Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(256));
    w.serialize(row).map_err(io::Error::other)?;
    w.into_inner().map_err(io::Error::other)
}

/// Column names, in order (the fields of [`SeriesRow`]).
pub const HEADER: [&str; 16] = [
    "t_s",
    "interval_s",
    "partial",
    "read_ops",
    "write_ops",
    "read_iops",
    "write_iops",
    "read_bytes",
    "write_bytes",
    "read_bw_bytes_per_s",
    "write_bw_bytes_per_s",
    "read_lat_mean_us",
    "read_lat_max_us",
    "write_lat_mean_us",
    "write_lat_max_us",
    "errors",
];

/// One row of a phase's series CSV (`NN-<phase>.csv`); columns in this order. Latency columns are empty when
/// the direction had no completions in the interval. Documented column by column in docs/results.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesRow {
    /// End of the interval, seconds since the phase start (for the last row: the true end of the phase).
    pub t_s: f64,
    /// True length of the interval, s.
    pub interval_s: f64,
    /// 1 when the row is not a whole interval: shorter than the configured interval (the phase ended inside
    /// it), or the row holding the drain of a time-bounded phase (the I/Os in flight at the bound), else 0.
    pub partial: u8,
    /// Reads completed in the interval (a count, not a rate).
    pub read_ops: u64,
    /// Writes completed in the interval.
    pub write_ops: u64,
    /// read_ops / interval_s.
    pub read_iops: f64,
    /// write_ops / interval_s.
    pub write_iops: f64,
    /// Bytes read in the interval.
    pub read_bytes: u64,
    /// Bytes written in the interval.
    pub write_bytes: u64,
    /// read_bytes / interval_s.
    pub read_bw_bytes_per_s: f64,
    /// write_bytes / interval_s.
    pub write_bw_bytes_per_s: f64,
    /// Mean read latency, µs.
    pub read_lat_mean_us: Option<f64>,
    /// Largest read latency, µs.
    pub read_lat_max_us: Option<f64>,
    /// Mean write latency, µs.
    pub write_lat_mean_us: Option<f64>,
    /// Largest write latency, µs.
    pub write_lat_max_us: Option<f64>,
    /// I/Os that failed in the interval (`on_error = "continue"`; with `"stop"`, the one that stopped the
    /// phase), plus, in a verify phase, the blocks that did not verify. Series written before this column
    /// existed read as 0.
    #[serde(default)]
    pub errors: u64,
}

/// The smallest number other than 0 a series CSV holds: 10^-12 (a rate of one I/O in 10^12 s; a latency of a
/// millionth of a nanosecond).
pub const MIN_SERIES_VALUE: f64 = 1e-12;
/// The largest number a series CSV holds: 10^15 (a PB/s, 10^15 IOPS, 31 million years).
pub const MAX_SERIES_VALUE: f64 = 1e15;

impl SeriesRow {
    /// The first number of the row that no interval measures, with its column: one that is not finite
    /// (`inf`, `NaN`), negative, above [`MAX_SERIES_VALUE`] or, other than 0, below [`MIN_SERIES_VALUE`]
    /// (charts of such numbers have no ladder of ticks: an infinity asked for 2^31 decades).
    pub fn out_of_range(&self) -> Option<(&'static str, f64)> {
        let values = [
            ("t_s", Some(self.t_s)),
            ("interval_s", Some(self.interval_s)),
            ("read_iops", Some(self.read_iops)),
            ("write_iops", Some(self.write_iops)),
            ("read_bw_bytes_per_s", Some(self.read_bw_bytes_per_s)),
            ("write_bw_bytes_per_s", Some(self.write_bw_bytes_per_s)),
            ("read_lat_mean_us", self.read_lat_mean_us),
            ("read_lat_max_us", self.read_lat_max_us),
            ("write_lat_mean_us", self.write_lat_mean_us),
            ("write_lat_max_us", self.write_lat_max_us),
        ];
        let fits = |v: f64| v == 0.0 || (MIN_SERIES_VALUE..=MAX_SERIES_VALUE).contains(&v);
        values
            .into_iter()
            .find_map(|(column, v)| v.filter(|&v| !fits(v)).map(|v| (column, v)))
    }

    /// Builds the row spanning `[start_ns, end_ns)` from its counts; `interval_ns` is the configured Δ.
    pub fn new(start_ns: u64, end_ns: u64, interval_ns: u64, c: &IntervalCounts) -> SeriesRow {
        let len_s = end_ns.saturating_sub(start_ns) as f64 / 1e9;
        let rate = |x: u64| if len_s > 0.0 { x as f64 / len_s } else { 0.0 };
        let mean = |d: &DirInterval| (d.ops > 0).then(|| d.lat_sum_ns as f64 / d.ops as f64 / 1e3);
        let max = |d: &DirInterval| (d.ops > 0).then(|| d.lat_max_ns as f64 / 1e3);
        SeriesRow {
            t_s: end_ns as f64 / 1e9,
            interval_s: len_s,
            partial: u8::from(end_ns.saturating_sub(start_ns) < interval_ns),
            read_ops: c.read.ops,
            write_ops: c.write.ops,
            read_iops: rate(c.read.ops),
            write_iops: rate(c.write.ops),
            read_bytes: c.read.bytes,
            write_bytes: c.write.bytes,
            read_bw_bytes_per_s: rate(c.read.bytes),
            write_bw_bytes_per_s: rate(c.write.bytes),
            read_lat_mean_us: mean(&c.read),
            read_lat_max_us: max(&c.read),
            write_lat_mean_us: mean(&c.write),
            write_lat_max_us: max(&c.write),
            errors: c.errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// File names need no quoting in a shell (issue 24 item 7).
    #[test]
    fn file_names_are_shell_safe() {
        assert_eq!(
            file_name(3, "4k-random-read-qd1[filled=25%]"),
            "03-4k-random-read-qd1_filled-25pct.csv"
        );
        assert_eq!(
            device_file_name(12, "w[bs=4KiB,read=65]"),
            "12-w_bs-4KiB_read-65.device.csv"
        );
        assert_eq!(file_name(0, "fill_1.b"), "00-fill_1.b.csv");
    }

    #[test]
    fn a_whole_csv_is_the_header_and_the_rows_appended() {
        let rows: Vec<SeriesRow> = (1..=3)
            .map(|k| SeriesRow::new(0, k * 1_000_000, 1_000_000, &IntervalCounts::default()))
            .collect();
        let mut want = HEADER.join(",") + "\n";
        for r in &rows {
            want.push_str(&String::from_utf8(row_bytes(r).unwrap()).unwrap());
        }
        assert_eq!(String::from_utf8(csv_bytes(&rows).unwrap()).unwrap(), want);
        assert_eq!(want.lines().count(), 4);
    }

    #[test]
    fn header_names_the_row_fields_in_order() {
        let mut w = csv::WriterBuilder::new()
            .has_headers(true)
            .from_writer(Vec::new());
        w.serialize(SeriesRow::new(
            0,
            1_000_000_000,
            1_000_000_000,
            &IntervalCounts::default(),
        ))
        .unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text.lines().next().unwrap(), HEADER.join(","));
    }
}
