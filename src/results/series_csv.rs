//! The per-phase series CSV: a header row, then one [`SeriesRow`] per interval, flushed as each row is final,
//! so that a run killed at any moment keeps every interval completed before it.

use super::outdir::{OutDir, slug};
use crate::stats::IntervalCounts;
use crate::stats::latency::interval_percentiles_of;
use crate::stats::row_latency::RowHists;
use crate::sys::dir::RowFile;
use crate::vocab::{Direction, PerDir};
use serde::Serialize;
use std::io;
use std::ops::{Index, IndexMut};
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
    /// The directions the file has columns for.
    dirs: Vec<Direction>,
}

impl SeriesWriter {
    /// Creates the CSV `name` in `dir` (replacing a file or link of that name, never writing through it;
    /// [`OutDir::create`]) and writes its header, with columns for the directions `dirs` ([`directions`]).
    ///
    /// # Errors
    /// The OS error creating or writing the file.
    pub fn create(dir: &OutDir, name: &str, dirs: Vec<Direction>) -> io::Result<SeriesWriter> {
        let mut file = RowFile::new(dir.create(name)?);
        let mut header_row = csv::Writer::from_writer(Vec::new());
        header_row.write_record(header(&dirs))?;
        if let Err(e) = file.append(&header_row.into_inner().map_err(io::Error::other)?) {
            // No file without its header (a full disk): the empty file made goes again.
            let _ = dir.remove(name);
            return Err(e);
        }
        Ok(SeriesWriter {
            path: dir.join(name),
            file,
            rows: 0,
            dirs,
        })
    }

    /// Appends one row to the file (one write).
    ///
    /// # Errors
    /// The OS error writing the file (the row is then not in it), or an earlier row's failure.
    pub fn append(&mut self, row: &SeriesRow) -> io::Result<()> {
        self.file.append(&row_bytes(row, &self.dirs)?)?;
        self.rows += 1;
        Ok(())
    }

    /// Rows written.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The rows written and the bytes they take (the header's included): where [`SeriesWriter::cut`] may
    /// cut the file.
    pub fn mark(&self) -> (u64, u64) {
        (self.rows, self.file.len())
    }

    /// Cuts the file back to `mark`, a [`SeriesWriter::mark`] of before, and refuses later rows
    /// ([`RowFile::cut`]): the histogram log beside it could not take the rows after it.
    ///
    /// # Errors
    /// The OS error truncating the file.
    pub fn cut(&mut self, (rows, len): (u64, u64)) -> io::Result<()> {
        self.rows = self.rows.min(rows);
        self.file.cut(len)
    }

    /// Refuses bytes past `bytes` ([`RowFile::limit`]).
    #[cfg(test)]
    pub fn limit(&mut self, bytes: u64) {
        self.file.limit(bytes);
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A whole series CSV with columns for `dirs`, header and rows, as one piece of text (written at once with
/// [`OutDir::replace`]: `wkrun merge`).
///
/// # Errors
/// A row that cannot be serialized.
pub fn csv_bytes(rows: &[SeriesRow], dirs: &[Direction]) -> io::Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(128 * (rows.len() + 1)));
    w.write_record(header(dirs))?;
    for r in rows {
        w.serialize(r.cells(dirs)).map_err(io::Error::other)?;
    }
    w.into_inner().map_err(io::Error::other)
}

/// One record as a CSV line (no header), for [`RowFile::append`].
fn row_bytes(row: &SeriesRow, dirs: &[Direction]) -> io::Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(256));
    w.serialize(row.cells(dirs)).map_err(io::Error::other)?;
    w.into_inner().map_err(io::Error::other)
}

/// The columns every row has before its directions' columns.
const LEADING: [&str; 3] = ["t_s", "interval_s", "partial"];
/// The column every row has after them (series written before it existed lack it; they read as 0).
const TRAILING: &str = "errors";
/// The per-interval latency percentiles, per direction, after `errors` (series written before them lack
/// them; they read as empty): `read_lat_p50_us,read_lat_p99_us,read_lat_p99_9_us,write_lat_p50_us,...`.
const PERCENTILE_GROUP: [&str; 3] = ["lat_p50_us", "lat_p99_us", "lat_p99_9_us"];

/// What a series CSV has after its per-direction groups: the `errors` column, then the percentile columns
/// (each set newer than the one before: a series with percentiles has `errors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailing {
    /// The `errors` column.
    pub errors: bool,
    /// The per-interval latency percentile columns (`read_lat_p99_us`, ...).
    pub percentiles: bool,
}

impl Trailing {
    /// Every column a series CSV is written with today.
    pub const ALL: Trailing = Trailing {
        errors: true,
        percentiles: true,
    };
}
/// The per-direction columns in groups: each group's columns for every direction before the next group's,
/// `read_ops,write_ops,read_iops,...,read_lat_mean_us,read_lat_max_us,write_lat_mean_us,...`.
const GROUPS: [&[&str]; 5] = [
    &["ops"],
    &["iops"],
    &["bytes"],
    &["bw_bytes_per_s"],
    &["lat_mean_us", "lat_max_us"],
];

/// The directions a phase's series has columns for: reads and writes always (every series of results
/// format 1 has them), then each other direction for which `issued` is true (the phase's mix has it), in
/// [`Direction::ALL`]'s order.
pub fn directions(issued: impl Fn(Direction) -> bool) -> Vec<Direction> {
    Direction::ALL
        .into_iter()
        .filter(|&d| Direction::CORE.contains(&d) || issued(d))
        .collect()
}

/// The column names of a series with columns for `dirs`, in order: `t_s,interval_s,partial`, each group
/// of per-direction columns for every direction (`read_ops,write_ops,read_iops,...`), `errors`, then each
/// direction's latency percentiles (`read_lat_p50_us,read_lat_p99_us,read_lat_p99_9_us,write_lat_p50_us,...`).
/// For reads and writes, the first 16 columns are those every series CSV has had.
pub fn header(dirs: &[Direction]) -> Vec<String> {
    let mut h: Vec<String> = LEADING.iter().map(|c| c.to_string()).collect();
    for group in GROUPS {
        for d in dirs {
            h.extend(group.iter().map(|c| format!("{d}_{c}")));
        }
    }
    h.push(TRAILING.to_string());
    for d in dirs {
        h.extend(PERCENTILE_GROUP.iter().map(|c| format!("{d}_{c}")));
    }
    h
}

/// One direction's columns in one row of a phase's series CSV (`NN-<phase>.csv`): `read_ops`, `read_iops`,
/// ... for reads. Latency columns are empty when the direction had no completions in the interval.
/// Documented column by column in docs/results.md.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DirColumns {
    /// I/Os completed in the interval (a count, not a rate).
    pub ops: u64,
    /// ops / interval_s.
    pub iops: f64,
    /// Bytes transferred in the interval.
    pub bytes: u64,
    /// bytes / interval_s.
    pub bw_bytes_per_s: f64,
    /// Mean latency, µs.
    pub lat_mean_us: Option<f64>,
    /// Largest latency, µs.
    pub lat_max_us: Option<f64>,
    /// The interval's latency percentiles p50, p99 and p99.9, µs ([`crate::stats::latency::INTERVAL_PERCENTILES`]), from the
    /// interval's histogram (every recorder's added up): within 0.1 % above the latency of their rank.
    pub lat_pct_us: [Option<f64>; 3],
}

impl DirColumns {
    /// Mean and largest latency, µs; `None` without a completion.
    pub fn lat_us(&self) -> Option<(f64, f64)> {
        self.lat_mean_us.zip(self.lat_max_us)
    }
}

/// One row of a phase's series CSV (`NN-<phase>.csv`): the interval, each direction's columns
/// ([`DirColumns`], `row[Direction::Read]`), the failures. Columns in the order of [`header`].
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesRow {
    /// End of the interval, seconds since the phase start (for the last row: the true end of the phase).
    pub t_s: f64,
    /// True length of the interval, s.
    pub interval_s: f64,
    /// 1 when the row is not a whole interval: shorter than the configured interval (the phase ended inside
    /// it), or the row holding the drain of a time-bounded phase (the I/Os in flight at the bound), else 0.
    pub partial: u8,
    /// Each direction's columns (a direction the series has no columns for is all 0).
    pub by_dir: PerDir<DirColumns>,
    /// I/Os that failed in the interval (`on_error = "continue"`; with `"stop"`, the one that stopped the
    /// phase), plus, in a verify phase, the blocks that did not verify. Series written before this column
    /// existed read as 0.
    pub errors: u64,
}

impl Index<Direction> for SeriesRow {
    type Output = DirColumns;
    fn index(&self, d: Direction) -> &DirColumns {
        &self.by_dir[d]
    }
}

impl IndexMut<Direction> for SeriesRow {
    fn index_mut(&mut self, d: Direction) -> &mut DirColumns {
        &mut self.by_dir[d]
    }
}

/// The smallest number other than 0 a series CSV holds: 10^-12 (a rate of one I/O in 10^12 s; a latency of a
/// millionth of a nanosecond).
pub const MIN_SERIES_VALUE: f64 = 1e-12;
/// The largest number a series CSV holds: the most bytes a phase has in flight, its buffers
/// ([`crate::plan::MAX_BUFFER_BYTES`], 2 GiB), completing within one nanosecond, the clock's resolution:
/// 2,147,483,648 × 10^9 ≈ 2.1e18 B/s, the most bandwidth an interval can show. It was 10^15, which a
/// null-engine phase of 128 MiB blocks passes at 7.5 million I/Os a second (1.2 million with one worker on
/// 2 busy cores here, 1.6e14 B/s). Other numbers stay far below it: IOPS at most all the slots
/// (262,144) in a nanosecond, latencies at most ten years (3.2e14 µs).
pub const MAX_SERIES_VALUE: f64 = crate::plan::MAX_BUFFER_BYTES as f64 * 1e9;

impl SeriesRow {
    /// The first cell of the row that no interval measures, with its column and why: a number that is not
    /// finite (`inf`, `NaN`), negative, above [`MAX_SERIES_VALUE`] or, other than 0, below
    /// [`MIN_SERIES_VALUE`] (charts of such numbers have no ladder of ticks: an infinity asked for 2^31
    /// decades); a time (`t_s`, `interval_s`) past ten years ([`MAX_DURATION_S`](super::check::MAX_DURATION_S),
    /// the longest phase); a `partial` other than 0 or 1.
    pub fn out_of_range(&self) -> Option<(String, String)> {
        let num = crate::units::readable_float;
        let fits = |v: f64| v == 0.0 || (MIN_SERIES_VALUE..=MAX_SERIES_VALUE).contains(&v);
        let unmeasured = |c: String, v: f64| {
            let why = format!(
                "{} is not a value an interval measures (0, or a finite number from {} to {})",
                num(v),
                num(MIN_SERIES_VALUE),
                num(MAX_SERIES_VALUE)
            );
            Some((c, why))
        };
        let most = super::check::MAX_DURATION_S;
        for (c, v) in [("t_s", self.t_s), ("interval_s", self.interval_s)] {
            if !fits(v) {
                return unmeasured(c.to_string(), v);
            }
            if v > most {
                let why = format!(
                    "{} s is more than ten years ({most} s), longer than any phase",
                    num(v)
                );
                return Some((c.to_string(), why));
            }
        }
        if self.partial > 1 {
            let why = format!(
                "{} is not 0 (a whole interval) or 1 (a partial one)",
                self.partial
            );
            return Some(("partial".to_string(), why));
        }
        self.by_dir.iter().find_map(|(d, c)| {
            let cells = [
                ("iops", Some(c.iops)),
                ("bw_bytes_per_s", Some(c.bw_bytes_per_s)),
                ("lat_mean_us", c.lat_mean_us),
                ("lat_max_us", c.lat_max_us),
            ];
            let pcts = PERCENTILE_GROUP.iter().map(|n| &n[..]).zip(c.lat_pct_us);
            let (n, v) = cells
                .into_iter()
                .chain(pcts)
                .find_map(|(n, v)| v.filter(|&v| !fits(v)).map(|v| (n, v)))?;
            unmeasured(format!("{d}_{n}"), v)
        })
    }

    /// The first rate of the row that is not its count over the row's `interval_s` (0 over no time), as
    /// [`SeriesRow::new`] writes it, within rounding: `write_iops` against `write_ops`, `write_bw_bytes_per_s`
    /// against `write_bytes`; its column and why. A series `wkrun merge` wrote adds the hosts' rates, each over
    /// its own interval, and is not held to this.
    pub fn rate_contradiction(&self) -> Option<(String, String)> {
        let over = ("interval_s", self.interval_s);
        self.by_dir.iter().find_map(|(d, c)| {
            let cells = [
                ("iops", c.iops, ("ops", c.ops)),
                ("bw_bytes_per_s", c.bw_bytes_per_s, ("bytes", c.bytes)),
            ];
            cells.into_iter().find_map(|(rate, got, (count, n))| {
                let what = format!("{d}_{count}");
                super::check::rate_mismatch(got, (&what, n), over)
                    .map(|why| (format!("{d}_{rate}"), why))
            })
        })
    }

    /// Builds the row spanning `[start_ns, end_ns)` from its counts; `interval_ns` is the configured Δ.
    pub fn new(start_ns: u64, end_ns: u64, interval_ns: u64, c: &IntervalCounts) -> SeriesRow {
        let len_s = end_ns.saturating_sub(start_ns) as f64 / 1e9;
        let rate = |x: u64| if len_s > 0.0 { x as f64 / len_s } else { 0.0 };
        SeriesRow {
            t_s: end_ns as f64 / 1e9,
            interval_s: len_s,
            partial: u8::from(end_ns.saturating_sub(start_ns) < interval_ns),
            by_dir: c.by_dir.map(|_, d| DirColumns {
                ops: d.ops,
                iops: rate(d.ops),
                bytes: d.bytes,
                bw_bytes_per_s: rate(d.bytes),
                lat_mean_us: (d.ops > 0).then(|| d.lat_sum_ns as f64 / d.ops as f64 / 1e3),
                lat_max_us: (d.ops > 0).then(|| d.lat_max_ns as f64 / 1e3),
                lat_pct_us: [None; 3],
            }),
            errors: c.errors,
        }
    }

    /// Sets each direction's latency percentiles from its histogram in `hists` (none: left empty), each at
    /// most the direction's largest latency, `max_ns` ([`crate::stats::latency::percentile_of`]).
    pub fn set_percentiles(&mut self, hists: &RowHists, max_ns: impl Fn(Direction) -> u64) {
        for (d, h) in hists.iter() {
            let Some(h) = h else { continue };
            self.by_dir[d].lat_pct_us = interval_percentiles_of(h, max_ns(d));
        }
    }

    /// A count over every direction: `row.count(|d| d.ops)`.
    pub fn count(&self, f: impl Fn(&DirColumns) -> u64) -> u64 {
        self.by_dir.0.iter().map(f).sum()
    }

    /// A rate over every direction, added in [`Direction::ALL`]'s order: `row.rate(|d| d.iops)`.
    pub fn rate(&self, f: impl Fn(&DirColumns) -> f64) -> f64 {
        self.by_dir.0.iter().map(f).fold(0.0, |a, b| a + b)
    }

    /// The sum of every completion's latency in the interval, µs: each direction's mean × its ops.
    pub fn lat_sum_us(&self) -> f64 {
        self.rate(|d| d.lat_mean_us.unwrap_or(0.0) * d.ops as f64)
    }

    /// The row's cells in the order of [`header`]`(dirs)`, for the CSV writer.
    fn cells<'a>(&'a self, dirs: &'a [Direction]) -> Cells<'a> {
        Cells { row: self, dirs }
    }
}

/// A row's cells for the directions `dirs`, serialized as one CSV record (numbers written by the CSV writer
/// as every series CSV has had them).
struct Cells<'a> {
    row: &'a SeriesRow,
    dirs: &'a [Direction],
}

impl Serialize for Cells<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let (r, dirs) = (self.row, self.dirs);
        let mut t = s.serialize_tuple(LEADING.len() + 9 * dirs.len() + 1)?;
        t.serialize_element(&r.t_s)?;
        t.serialize_element(&r.interval_s)?;
        t.serialize_element(&r.partial)?;
        for d in dirs {
            t.serialize_element(&r[*d].ops)?;
        }
        for d in dirs {
            t.serialize_element(&r[*d].iops)?;
        }
        for d in dirs {
            t.serialize_element(&r[*d].bytes)?;
        }
        for d in dirs {
            t.serialize_element(&r[*d].bw_bytes_per_s)?;
        }
        for d in dirs {
            t.serialize_element(&r[*d].lat_mean_us)?;
            t.serialize_element(&r[*d].lat_max_us)?;
        }
        t.serialize_element(&r.errors)?;
        for d in dirs {
            for v in &r[*d].lat_pct_us {
                t.serialize_element(v)?;
            }
        }
        t.end()
    }
}

/// What a series CSV's header says: the directions it has columns for, and which trailing columns it has;
/// `None` when it is not a series CSV's header (every column of [`header`] for its directions, in order,
/// the `errors` column and the percentile columns after it optional, as older series lack them).
pub fn read_header(h: &csv::StringRecord) -> Option<(Vec<Direction>, Trailing)> {
    let dirs = directions(|d| h.iter().any(|c| c == format!("{d}_ops")));
    let want = header(&dirs);
    let pcts = PERCENTILE_GROUP.len() * dirs.len();
    let trailing = match want.len() - h.len().min(want.len()) {
        0 => Trailing::ALL,
        n if n == pcts => Trailing {
            errors: true,
            percentiles: false,
        },
        n if n == pcts + 1 => Trailing {
            errors: false,
            percentiles: false,
        },
        _ => return None,
    };
    let known = h.len() <= want.len() && h.iter().zip(&want).all(|(a, b)| a == b);
    known.then_some((dirs, trailing))
}

/// One record of a series CSV whose header [`read_header`] gave `(dirs, trailing)`, as a row.
///
/// # Errors
/// The column that does not hold a number of its kind (`read_ops: invalid digit found in string`), or a
/// record with fewer cells than the header.
pub fn parse_row(
    rec: &csv::StringRecord,
    dirs: &[Direction],
    trailing: Trailing,
) -> Result<SeriesRow, String> {
    let names = header(dirs);
    let mut cells = names.iter().zip(rec.iter());
    let mut next = || {
        cells
            .next()
            .ok_or_else(|| format!("{} cells, where the header has {}", rec.len(), names.len()))
    };
    fn num<T: std::str::FromStr>((name, v): (&String, &str)) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        v.parse().map_err(|e| format!("{name}: {e}"))
    }
    fn opt((name, v): (&String, &str)) -> Result<Option<f64>, String> {
        (!v.is_empty()).then(|| num((name, v))).transpose()
    }
    let mut row = SeriesRow {
        t_s: num(next()?)?,
        interval_s: num(next()?)?,
        partial: num(next()?)?,
        by_dir: PerDir::default(),
        errors: 0,
    };
    for d in dirs {
        row[*d].ops = num(next()?)?;
    }
    for d in dirs {
        row[*d].iops = num(next()?)?;
    }
    for d in dirs {
        row[*d].bytes = num(next()?)?;
    }
    for d in dirs {
        row[*d].bw_bytes_per_s = num(next()?)?;
    }
    for d in dirs {
        row[*d].lat_mean_us = opt(next()?)?;
        row[*d].lat_max_us = opt(next()?)?;
    }
    if trailing.errors {
        row.errors = num(next()?)?;
    }
    if trailing.percentiles {
        for d in dirs {
            for i in 0..PERCENTILE_GROUP.len() {
                row[*d].lat_pct_us[i] = opt(next()?)?;
            }
        }
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scale 15, finding 4: a row's bandwidth is bounded by the 2 GiB of buffers a phase may have in flight
    /// completing within one nanosecond, not by 10^15 B/s, which a null-engine phase of 128 MiB blocks passes:
    /// 16 such I/Os (the most the buffers allow) completing in a nanosecond are 2^31 × 10^9 B/s and the row
    /// is one a run writes; a byte more is refused, named with the bound.
    #[test]
    fn bandwidth_up_to_all_buffers_in_a_nanosecond_is_a_value_a_run_writes() {
        let row = |ops: u64, bytes: u64| {
            let mut c = crate::stats::interval::IntervalCounts::default();
            c.by_dir[Direction::Read] = crate::stats::interval::DirInterval {
                ops,
                bytes,
                lat_sum_ns: u128::from(ops),
                lat_max_ns: 1,
            };
            SeriesRow::new(1_000_000_000, 1_000_000_001, 1_000_000_000, &c)
        };
        let all = row(16, 16 * (128 << 20));
        // The nanosecond is 1e-9 s to the nearest f64, and the rate a hair under 2^31 × 10^9.
        assert_eq!(
            all.by_dir[Direction::Read].bw_bytes_per_s,
            2.1474836479999997e18
        );
        assert_eq!(MAX_SERIES_VALUE, 2_147_483_648e9);
        assert_eq!(all.out_of_range(), None);
        assert_eq!(
            row(17, 16 * (128 << 20) + 1).out_of_range(),
            Some((
                "read_bw_bytes_per_s".to_string(),
                "2.1474836489999997e18 is not a value an interval measures (0, or a finite number from 1e-12 to 2.147483648e18)".to_string()
            ))
        );
    }

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
        let dirs = Direction::CORE;
        let mut want = header(&dirs).join(",") + "\n";
        for r in &rows {
            want.push_str(&String::from_utf8(row_bytes(r, &dirs).unwrap()).unwrap());
        }
        assert_eq!(
            String::from_utf8(csv_bytes(&rows, &dirs).unwrap()).unwrap(),
            want
        );
        assert_eq!(want.lines().count(), 4);
    }

    /// The header of reads and writes is the one every series CSV has had, byte for byte; a direction more
    /// adds its columns in each group.
    #[test]
    fn the_header_is_made_from_the_directions() {
        assert_eq!(
            header(&directions(|_| false)).join(","),
            "t_s,interval_s,partial,read_ops,write_ops,read_iops,write_iops,read_bytes,write_bytes,\
             read_bw_bytes_per_s,write_bw_bytes_per_s,read_lat_mean_us,read_lat_max_us,write_lat_mean_us,\
             write_lat_max_us,errors,read_lat_p50_us,read_lat_p99_us,read_lat_p99_9_us,write_lat_p50_us,\
             write_lat_p99_us,write_lat_p99_9_us"
        );
        assert_eq!(
            header(&directions(|d| d == Direction::Trim)).join(","),
            "t_s,interval_s,partial,read_ops,write_ops,trim_ops,read_iops,write_iops,trim_iops,read_bytes,\
             write_bytes,trim_bytes,read_bw_bytes_per_s,write_bw_bytes_per_s,trim_bw_bytes_per_s,\
             read_lat_mean_us,read_lat_max_us,write_lat_mean_us,write_lat_max_us,trim_lat_mean_us,\
             trim_lat_max_us,errors,read_lat_p50_us,read_lat_p99_us,read_lat_p99_9_us,write_lat_p50_us,\
             write_lat_p99_us,write_lat_p99_9_us,trim_lat_p50_us,trim_lat_p99_us,trim_lat_p99_9_us"
        );
    }

    /// A row written and read back: the cells by hand (2 reads of 4 KiB at 10 and 30 µs in the first half
    /// second of a 1 s interval), and the same row with trims read through its header.
    #[test]
    fn rows_are_written_and_read_back_by_their_header() {
        let mut c = IntervalCounts::default();
        c[Direction::Read].add(4096, 10_000);
        c[Direction::Read].add(4096, 30_000);
        let mut row = SeriesRow::new(0, 500_000_000, 1_000_000_000, &c);
        let core = Direction::CORE;
        assert_eq!(
            String::from_utf8(row_bytes(&row, &core).unwrap()).unwrap(),
            "0.5,0.5,1,2,0,4.0,0.0,8192,0,16384.0,0.0,20.0,30.0,,,0,,,,,,\n"
        );
        // The percentiles from the row's histogram: 10 µs and 30 µs, p50 the first, p99 the second (30 µs
        // is 30,000 ns, in a bucket 16 ns wide: its highest value, 30,015 ns, capped at the exact max).
        let mut hists = RowHists::default();
        let mut h = crate::stats::latency::new_histogram();
        crate::stats::latency::record_into(&mut h, 10_000);
        crate::stats::latency::record_into(&mut h, 30_000);
        hists[Direction::Read] = Some(h);
        row.set_percentiles(&hists, |d| c[d].lat_max_ns);
        assert_eq!(
            row[Direction::Read].lat_pct_us,
            [Some(10.007), Some(30.0), Some(30.0)]
        );
        assert_eq!(
            String::from_utf8(row_bytes(&row, &core).unwrap()).unwrap(),
            "0.5,0.5,1,2,0,4.0,0.0,8192,0,16384.0,0.0,20.0,30.0,,,0,10.007,30.0,30.0,,,\n"
        );
        let mut trims = row.clone();
        trims[Direction::Trim] = row[Direction::Read];
        trims.errors = 3;
        let all = Direction::ALL;
        let text = csv_bytes(std::slice::from_ref(&trims), &all).unwrap();
        let mut r = csv::Reader::from_reader(&text[..]);
        let (dirs, errors) = read_header(r.headers().unwrap()).expect("a series header");
        assert_eq!((dirs.as_slice(), errors), (&all[..], Trailing::ALL));
        let rec = r.records().next().unwrap().unwrap();
        assert_eq!(parse_row(&rec, &dirs, errors), Ok(trims));
        // Without the errors column (older series): 0.
        let old = "t_s,interval_s,partial,read_ops,write_ops,read_iops,write_iops,read_bytes,write_bytes,\
                   read_bw_bytes_per_s,write_bw_bytes_per_s,read_lat_mean_us,read_lat_max_us,\
                   write_lat_mean_us,write_lat_max_us\n0.5,0.5,1,2,0,4.0,0.0,8192,0,16384.0,0.0,20.0,30.0,,\n";
        let mut r = csv::Reader::from_reader(old.as_bytes());
        let (dirs, errors) = read_header(r.headers().unwrap()).expect("a series header");
        let none = Trailing {
            errors: false,
            percentiles: false,
        };
        assert_eq!((dirs.as_slice(), errors), (&core[..], none));
        let rec = r.records().next().unwrap().unwrap();
        let mut without = row.clone();
        without[Direction::Read].lat_pct_us = [None; 3];
        assert_eq!(parse_row(&rec, &dirs, errors), Ok(without.clone()));
        // With errors, before the percentile columns (the series of the last release).
        let mid = "t_s,interval_s,partial,read_ops,write_ops,read_iops,write_iops,read_bytes,write_bytes,\
                   read_bw_bytes_per_s,write_bw_bytes_per_s,read_lat_mean_us,read_lat_max_us,\
                   write_lat_mean_us,write_lat_max_us,errors\n0.5,0.5,1,2,0,4.0,0.0,8192,0,16384.0,0.0,20.0,30.0,,,0\n";
        let mut m = csv::Reader::from_reader(mid.as_bytes());
        let (d2, t2) = read_header(m.headers().unwrap()).expect("a series header");
        assert_eq!(
            t2,
            Trailing {
                errors: true,
                percentiles: false
            }
        );
        let rec2 = m.records().next().unwrap().unwrap();
        assert_eq!(parse_row(&rec2, &d2, t2), Ok(without));
        let mut bad = rec.clone();
        bad = bad
            .iter()
            .enumerate()
            .map(|(i, v)| if i == 3 { "x" } else { v })
            .collect();
        assert_eq!(
            parse_row(&bad, &dirs, errors),
            Err("read_ops: invalid digit found in string".to_string())
        );
    }
}
