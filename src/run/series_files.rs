//! A phase's series CSV and histogram log written side by side, a row into each at a time: after the
//! first write error of either, neither is written again, and both are cut back to the last row that ends
//! every fold (the rows of a fold without its last row would count I/Os whose latencies are in no
//! histogram, which `wkrun validate` refuses). Whatever a failed phase leaves then validates.

use crate::results::hlog::HistLogWriter;
use crate::results::series_csv::{SeriesRow, SeriesWriter};
use crate::stats::row_latency::RowHists;
use std::io;

/// The two files, where they end after the last whole row, and the first write error.
pub struct SeriesFiles {
    csv: SeriesWriter,
    hlog: HistLogWriter,
    /// Where the CSV ([`SeriesWriter::mark`]) and the log end after the last row that ends every fold.
    kept: ((u64, u64), u64),
    /// Whether the row logged last ends every fold (not a row of a fold but its last).
    whole: bool,
    /// Folded rows written: up to the mark, and after it.
    folded: (u64, u64),
    error: Option<io::Error>,
    /// Whether that error is the histogram log's (else the CSV's).
    hlog_failed: bool,
}

impl SeriesFiles {
    /// The files just created, with their headers.
    pub fn new(csv: SeriesWriter, hlog: HistLogWriter) -> SeriesFiles {
        SeriesFiles {
            kept: (csv.mark(), hlog.len()),
            csv,
            hlog,
            whole: true,
            folded: (0, 0),
            error: None,
            hlog_failed: false,
        }
    }

    /// Logs the histograms `hists` of the row spanning `span`, whose CSV row comes next
    /// ([`SeriesFiles::append`]); `whole`: it ends every fold (false for a row of a fold but its last,
    /// whose histograms are empty).
    pub fn log(&mut self, span: (u64, u64), hists: &RowHists, whole: bool) {
        self.whole = whole;
        if self.error.is_none()
            && let Err(e) = self.hlog.append(span, hists)
        {
            self.fail(e, true);
        }
    }

    /// Appends the CSV row of the row logged last.
    pub fn append(&mut self, row: &SeriesRow) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.csv.append(row) {
            return self.fail(e, false);
        }
        match self.whole {
            true => {
                self.kept = (self.csv.mark(), self.hlog.len());
                self.folded = (self.folded.0 + self.folded.1, 0);
            }
            false => self.folded.1 += 1,
        }
    }

    /// The first write error: both files cut back to the last row that ends every fold, and written no
    /// more.
    fn fail(&mut self, e: io::Error, hlog: bool) {
        // A truncation that fails leaves the rows after the mark: validate names them.
        let _ = self.csv.cut(self.kept.0);
        let _ = self.hlog.cut(self.kept.1);
        self.folded.1 = 0;
        self.error = Some(e);
        self.hlog_failed = hlog;
    }

    /// Whether a write failed (the files take no more rows).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Rows in both files.
    pub fn rows(&self) -> u64 {
        self.csv.rows()
    }

    /// Rows in the files whose latencies are folded into a later row's.
    pub fn folded(&self) -> u64 {
        self.folded.0 + self.folded.1
    }

    /// The first write error, and whether it is the histogram log's (else the CSV's).
    pub fn take_error(&mut self) -> Option<(io::Error, bool)> {
        self.error.take().map(|e| (e, self.hlog_failed))
    }

    /// The CSV.
    #[cfg(test)]
    fn csv(&mut self) -> &mut SeriesWriter {
        &mut self.csv
    }

    /// The log.
    #[cfg(test)]
    fn hlog(&mut self) -> &mut HistLogWriter {
        &mut self.hlog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::hlog::check_against;
    use crate::results::outdir::OutDir;
    use crate::results::series_csv::csv_bytes;
    use crate::stats::IntervalCounts;
    use crate::stats::latency::{new_histogram, record_into};
    use crate::vocab::Direction;

    const READ: Direction = Direction::Read;

    /// Five rows of reads: row 0 its own, rows 1 and 2 folded into row 3 (empty histograms, no
    /// percentiles), row 4 its own; each row's histograms, and whether it ends every fold.
    fn rows() -> Vec<(SeriesRow, RowHists, bool)> {
        let lats: [&[u64]; 5] = [&[3_000, 4_000], &[90_000], &[2_000], &[5_000], &[7_000]];
        let mut fold = new_histogram();
        let mut out = Vec::new();
        for (k, ns) in lats.iter().enumerate() {
            let mut c = IntervalCounts::default();
            let mut own = new_histogram();
            for &ns in ns.iter() {
                c[READ].add(4096, ns);
                record_into(&mut own, ns);
                if (1..=3).contains(&k) {
                    record_into(&mut fold, ns);
                }
            }
            let k = k as u64;
            let mut row = SeriesRow::new(k * 1_000, (k + 1) * 1_000, 1_000, &c);
            let mut hists = RowHists::default();
            hists[READ] = match k {
                1 | 2 => None,
                3 => Some(fold.clone()),
                _ => Some(own),
            };
            let max = if k == 3 { 90_000 } else { c[READ].lat_max_ns };
            row.set_percentiles(&hists, |_| max);
            out.push((row, hists, !matches!(k, 1 | 2)));
        }
        out
    }

    /// Writes `rows` into files `name` in `dir`, each file refusing bytes past its limit (csv, log);
    /// returns the files, their contents and the log's length after its header and each row.
    fn write(
        dir: &OutDir,
        name: &str,
        rows: &[(SeriesRow, RowHists, bool)],
        limits: (Option<u64>, Option<u64>),
    ) -> (SeriesFiles, Vec<u8>, Vec<u8>, Vec<u64>) {
        let csv = SeriesWriter::create(dir, &format!("{name}.csv"), vec![READ]).unwrap();
        let hlog = HistLogWriter::create(dir, &format!("{name}.hlog"), vec![READ]).unwrap();
        let mut f = SeriesFiles::new(csv, hlog);
        if let Some(l) = limits.0 {
            f.csv().limit(l);
        }
        if let Some(l) = limits.1 {
            f.hlog().limit(l);
        }
        let mut ends = vec![f.hlog().len()];
        for (k, (row, hists, whole)) in rows.iter().enumerate() {
            let k = k as u64;
            f.log((k * 1_000, (k + 1) * 1_000), hists, *whole);
            f.append(row);
            ends.push(f.hlog().len());
        }
        let read = |ext: &str| std::fs::read(dir.join(&format!("{name}.{ext}"))).unwrap();
        (f, read("csv"), read("hlog"), ends)
    }

    /// A write error on any row of a fold (the CSV's or the log's) cuts both files back to the row before
    /// the fold: they hold the same rows, the log checks against the CSV's, and the error is kept. Each
    /// limit falls 1 byte into a row: the CSV's ends recomputed from the rows, the log's measured on a run
    /// without limits.
    #[test]
    fn a_write_error_in_a_fold_cuts_both_files_before_it() {
        let t = tempfile::tempdir().unwrap();
        let dir = OutDir::open(t.path(), "test").unwrap();
        let rows = rows();
        let series: Vec<SeriesRow> = rows.iter().map(|r| r.0.clone()).collect();
        // Without a limit: 5 rows, 2 folded; the ends of each file after row k, from the rows alone.
        let (mut f, csv, hlog, hlog_end) = write(&dir, "free", &rows, (None, None));
        assert_eq!((f.rows(), f.folded(), f.failed()), (5, 2, false));
        assert!(f.take_error().is_none());
        assert_eq!(csv, csv_bytes(&series, &[READ]).unwrap());
        assert_eq!(check_against(&hlog, &series), Ok(5));
        let csv_end = |k: usize| csv_bytes(&series[..k], &[READ]).unwrap().len() as u64;
        assert_eq!(hlog_end[5], hlog.len() as u64);
        // (limit of the CSV or the log, the row it falls in) → the rows kept, the folded ones among them.
        for (on_log, row, kept, folded) in [
            (false, 1, 1, 0),
            (false, 2, 1, 0),
            (true, 2, 1, 0),
            (true, 3, 1, 0),
            (false, 3, 1, 0),
            (false, 4, 4, 2),
            (true, 4, 4, 2),
        ] {
            let at = if on_log { hlog_end[row] } else { csv_end(row) } + 1;
            let limits = if on_log {
                (None, Some(at))
            } else {
                (Some(at), None)
            };
            let name = format!("{on_log}-{row}");
            let (mut f, csv, hlog, _) = write(&dir, &name, &rows, limits);
            assert_eq!(
                (f.rows(), f.folded(), f.failed()),
                (kept, folded, true),
                "{name}"
            );
            let (e, hlog_failed) = f.take_error().unwrap();
            assert_eq!(
                (e.raw_os_error(), hlog_failed),
                (Some(libc::EFBIG), on_log),
                "{name}"
            );
            let kept = kept as usize;
            assert_eq!(csv, csv_bytes(&series[..kept], &[READ]).unwrap(), "{name}");
            assert_eq!(hlog.len() as u64, hlog_end[kept], "{name}");
            assert_eq!(
                check_against(&hlog, &series[..kept]),
                Ok(kept as u64),
                "{name}"
            );
        }
    }
}
