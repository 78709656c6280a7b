//! The per-phase series CSV: a header row, then one [`SeriesRow`] per interval, flushed as each row is final,
//! so that a run killed at any moment keeps every interval completed before it.

use crate::stats::SeriesRow;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The CSV file name of phase `index` named `name`: `NN-<name>.csv`.
pub fn file_name(index: usize, name: &str) -> String {
    format!("{index:02}-{name}.csv")
}

/// Appends rows to one phase's CSV.
pub struct SeriesWriter {
    path: PathBuf,
    csv: csv::Writer<File>,
    rows: u64,
}

impl SeriesWriter {
    /// Creates (truncates) the CSV and writes its header.
    ///
    /// # Errors
    /// The OS error creating the file.
    pub fn create(path: &Path) -> io::Result<SeriesWriter> {
        let file = File::create(path)?;
        let mut csv = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(file);
        csv.write_record(HEADER)?;
        csv.flush()?;
        Ok(SeriesWriter {
            path: path.to_path_buf(),
            csv,
            rows: 0,
        })
    }

    /// Appends one row and flushes it to the file.
    ///
    /// # Errors
    /// The OS error writing the file.
    pub fn append(&mut self, row: &SeriesRow) -> io::Result<()> {
        self.csv.serialize(row).map_err(io::Error::other)?;
        self.csv.flush()?;
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

/// Column names, in order (the fields of [`SeriesRow`]).
pub const HEADER: [&str; 15] = [
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
];
