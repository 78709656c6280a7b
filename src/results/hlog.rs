//! The per-phase latency histogram log, `NN-<phase>.hlog` beside the series CSV: HdrHistogram's interval
//! log (the format of the Java implementation's `HistogramLogWriter`, version 1.3, which its
//! `HistogramLogProcessor` and other HdrHistogram tools read), one histogram per series row and direction
//! the series has columns for, in row order, tagged with the direction (`Tag=read,...`). Each histogram is
//! the interval's latencies in ns (1 ns to 1 hour, 3 significant digits: every recorder's histogram of the
//! interval added up), compressed (V2 with deflate) and in base64; `Interval_Max` is its largest value in
//! ns. Timestamps are seconds from the phase's t = 0 (the log has no StartTime: `series_t0_unix_ns` in
//! `results.json` gives t = 0 on the wall clock). The first line, `#[wkrun histogram log 1]`, names this
//! layout and its version. A direction without a completion in a row has an empty histogram there, so the
//! k-th histogram of each tag is the k-th row's.

use super::outdir::{OutDir, slug};
use super::series_csv::SeriesRow;
use crate::stats::latency::{Hist, new_histogram};
use crate::stats::row_latency::RowHists;
use crate::sys::dir::RowFile;
use crate::vocab::{Direction, PerDir};
use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{
    IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, Tag,
};
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::{Counter, Histogram};
use std::io::{self, Write};
use std::time::Duration;

/// The first line of a log, naming its layout and version.
pub const FORMAT_LINE: &str = "#[wkrun histogram log 1]";

/// The log's file name for phase `index` named `name`: `NN-<name>.hlog`, the name made shell-safe as the
/// series CSV's ([`super::series_csv::file_name`]).
pub fn file_name(index: usize, name: &str) -> String {
    format!("{index:02}-{}.hlog", slug(name))
}

/// The lines before the first histogram.
fn header_text(dirs: &[Direction]) -> String {
    let tags: Vec<&str> = dirs.iter().map(|d| d.name()).collect();
    format!(
        "{FORMAT_LINE}\n#wkrun latency histograms, one per series row and direction ({}), values in ns\n\
         #[Histogram log format version 1.3]\n\
         \"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
        tags.join(", ")
    )
}

/// Makes the log's lines, one histogram per direction of `dirs` for each row given.
pub struct LineMaker {
    dirs: Vec<Direction>,
    ser: KeptDeflate,
    empty: Hist,
}

/// The cookie of a V2 deflate-compressed histogram (hdrhistogram's `V2_COMPRESSED_COOKIE`, private there).
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9304 | 0x10;

/// hdrhistogram's V2 deflate encoding (its `V2DeflateSerializer`: cookie, length, zlib stream of the V2
/// bytes, default level) with one compressor kept across histograms: `V2DeflateSerializer` makes a fresh
/// compressor per histogram, about 300 KB to zero and fault in, which was most of the CPU time of a phase
/// in 10 ms rows (a 1-hour one: 720,000 histograms). An empty histogram (a direction without a completion
/// in a row: the reads of every row of a write-only phase) is encoded once and its bytes written again:
/// resetting the compressor alone zeroes about 200 KB of its tables.
struct KeptDeflate {
    v2: V2Serializer,
    plain: Vec<u8>,
    packed: Vec<u8>,
    z: flate2::Compress,
    /// The encoding of the last empty histogram encoded, with what it depends on.
    empty: Option<(EmptyKey, Vec<u8>)>,
}

/// What an empty histogram's encoding depends on: its bounds (low, high, digits) and `max()`.
type EmptyKey = (u64, u64, u8, u64);

impl KeptDeflate {
    fn new() -> KeptDeflate {
        KeptDeflate {
            v2: V2Serializer::new(),
            plain: Vec::new(),
            packed: Vec::new(),
            z: flate2::Compress::new(flate2::Compression::default(), true),
            empty: None,
        }
    }
}

impl Serializer for KeptDeflate {
    type SerializeError = io::Error;

    fn serialize<T: Counter, W: Write>(
        &mut self,
        h: &Histogram<T>,
        out: &mut W,
    ) -> io::Result<usize> {
        let empty = h
            .is_empty()
            .then(|| (h.low(), h.high(), h.sigfig(), h.max()));
        if let (Some(key), Some((k, bytes))) = (empty, &self.empty)
            && key == *k
        {
            out.write_all(bytes)?;
            return Ok(bytes.len());
        }
        self.plain.clear();
        self.v2
            .serialize(h, &mut self.plain)
            .map_err(|e| io::Error::other(e.to_string()))?;
        self.packed.clear();
        self.packed
            .extend_from_slice(&V2_COMPRESSED_COOKIE.to_be_bytes());
        self.packed.extend_from_slice(&[0; 4]);
        self.z.reset();
        loop {
            // `compress_vec` writes into the spare capacity only.
            self.packed.reserve(self.plain.len() / 2 + 64);
            let rest = &self.plain[self.z.total_in() as usize..];
            let status = self
                .z
                .compress_vec(rest, &mut self.packed, flate2::FlushCompress::Finish)
                .map_err(io::Error::other)?;
            if status == flate2::Status::StreamEnd {
                break;
            }
        }
        let len = u32::try_from(self.packed.len() - 8).map_err(io::Error::other)?;
        self.packed[4..8].copy_from_slice(&len.to_be_bytes());
        if let Some(key) = empty {
            self.empty = Some((key, self.packed.clone()));
        }
        out.write_all(&self.packed)?;
        Ok(self.packed.len())
    }
}

impl LineMaker {
    /// Lines for the directions `dirs`.
    pub fn new(dirs: Vec<Direction>) -> LineMaker {
        LineMaker {
            dirs,
            ser: KeptDeflate::new(),
            empty: new_histogram(),
        }
    }

    /// The lines before the first histogram: the format line, a comment, the legend.
    pub fn header(&self) -> String {
        header_text(&self.dirs)
    }

    /// The lines of the row spanning `[start_ns, end_ns)` with histograms `hists`, appended to `out`.
    ///
    /// # Errors
    /// A histogram that cannot be serialized.
    pub fn row(
        &mut self,
        (start_ns, end_ns): (u64, u64),
        hists: &RowHists,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        let mut w = IntervalLogWriterBuilder::new().begin_log_with(out, &mut self.ser)?;
        let start = Duration::from_nanos(start_ns);
        let len = Duration::from_nanos(end_ns.saturating_sub(start_ns));
        for d in &self.dirs {
            let h = hists[*d].as_ref().unwrap_or(&self.empty);
            w.write_histogram(h, start, len, Tag::new(d.name()))
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        Ok(())
    }
}

/// Appends rows to one phase's log as the series CSV's rows are written, each row's lines in one write.
pub struct HistLogWriter {
    file: RowFile,
    lines: LineMaker,
    buf: Vec<u8>,
}

impl HistLogWriter {
    /// Creates the log `name` in `dir` with its header, for the directions `dirs` (the series CSV's).
    ///
    /// # Errors
    /// The OS error creating or writing the file.
    pub fn create(dir: &OutDir, name: &str, dirs: Vec<Direction>) -> io::Result<HistLogWriter> {
        let mut file = RowFile::new(dir.create(name)?);
        let lines = LineMaker::new(dirs);
        if let Err(e) = file.append(lines.header().as_bytes()) {
            let _ = dir.remove(name);
            return Err(e);
        }
        Ok(HistLogWriter {
            file,
            lines,
            buf: Vec::with_capacity(4096),
        })
    }

    /// Appends the row spanning `[start_ns, end_ns)` with histograms `hists`.
    ///
    /// # Errors
    /// The OS error writing the file (the row is then not in it), or an earlier row's failure.
    pub fn append(&mut self, span: (u64, u64), hists: &RowHists) -> io::Result<()> {
        self.buf.clear();
        self.lines.row(span, hists, &mut self.buf)?;
        self.file.append(&self.buf)
    }
}

/// Reads a log's rows in order: each row's histograms of the log's directions (the tags of its first row,
/// the series CSV's directions), one row at a time, so that a long log never has more than one row's
/// histograms in memory.
pub struct RowReader<'a> {
    entries: IntervalLogIterator<'a>,
    dirs: Vec<Direction>,
    rows: u64,
    de: Deserializer,
}

impl<'a> RowReader<'a> {
    /// A reader of `text`, a whole log.
    ///
    /// # Errors
    /// The text does not start with [`FORMAT_LINE`], or its first row's tags are not directions.
    pub fn new(text: &'a [u8]) -> Result<RowReader<'a>, String> {
        let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
        if first != FORMAT_LINE.as_bytes() {
            return Err(format!(
                "its first line is not {FORMAT_LINE} (not a wkrun histogram log, or of another version)"
            ));
        }
        let mut dirs: Vec<Direction> = Vec::new();
        for e in IntervalLogIterator::new(text) {
            let Ok(LogEntry::Interval(h)) = e else {
                continue;
            };
            let tag = h.tag().map_or("", |t| t.as_str());
            let d = Direction::ALL
                .into_iter()
                .find(|d| d.name() == tag)
                .ok_or_else(|| format!("a histogram is tagged \"{tag}\", not with a direction"))?;
            if dirs.contains(&d) {
                break;
            }
            dirs.push(d);
        }
        Ok(RowReader {
            entries: IntervalLogIterator::new(text),
            dirs,
            rows: 0,
            de: Deserializer::new(),
        })
    }

    /// The next row: its start, ns from t = 0, and its histograms (every direction of `dirs` present, maybe
    /// empty); `Ok(None)` after the last.
    ///
    /// # Errors
    /// A line that does not parse, a tag out of order, a histogram that does not decode or has other
    /// bounds than wkrun's, a row cut short.
    pub fn next_row(&mut self) -> Result<Option<(u64, RowHists)>, String> {
        let mut row = RowHists::default();
        let mut start_ns = 0;
        let k = self.rows;
        for (i, want) in self.dirs.iter().enumerate() {
            let entry = loop {
                match self.entries.next() {
                    None if i == 0 => return Ok(None),
                    None => return Err(format!("row {k} has no histogram for {want}")),
                    Some(Err(e)) => return Err(format!("row {k}: a line does not parse ({e:?})")),
                    Some(Ok(LogEntry::Interval(h))) => break h,
                    Some(Ok(_)) => continue,
                }
            };
            let tag = entry
                .tag()
                .map(|t| t.as_str().to_string())
                .unwrap_or_default();
            if tag != want.name() {
                return Err(format!(
                    "row {k}: histogram tagged \"{tag}\" where {want} was next"
                ));
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(entry.encoded_histogram())
                .map_err(|e| format!("row {k}, {want}: not base64: {e}"))?;
            let h: Hist = self
                .de
                .deserialize(&mut &bytes[..])
                .map_err(|e| format!("row {k}, {want}: the histogram does not decode: {e:?}"))?;
            if (h.low(), h.high(), h.sigfig()) != crate::stats::latency::HIST_BOUNDS {
                return Err(format!(
                    "row {k}, {want}: a histogram of {}..{} ns at {} digits, not wkrun's",
                    h.low(),
                    h.high(),
                    h.sigfig()
                ));
            }
            start_ns = u64::try_from(entry.start_timestamp().as_nanos()).unwrap_or(u64::MAX);
            row[*want] = Some(h);
        }
        self.rows += 1;
        Ok(Some((start_ns, row)))
    }

    /// Rows read so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The directions each row has a histogram of, in order.
    pub fn dirs(&self) -> &[Direction] {
        &self.dirs
    }
}

/// Checks the log `text` against its series' rows: a histogram per row and per direction with columns,
/// each holding the row's I/Os of that direction, and each percentile column of the row the percentile of
/// its histogram ([`SeriesRow::set_percentiles`]). A fold (the collector fell behind, see
/// [`crate::stats::row_latency`]) is rows with empty histograms and no percentiles, and a last row whose
/// histograms hold the I/Os of every row of the fold and whose percentiles are theirs, at most the fold's
/// largest latency. Returns the rows checked.
///
/// # Errors
/// The first row that does not agree, or a log that does not read.
pub fn check_against(text: &[u8], rows: &[SeriesRow]) -> Result<u64, String> {
    let mut r = RowReader::new(text)?;
    // Per direction: the I/Os of the rows of the fold so far (not yet in a histogram), and their largest
    // latency, ns.
    let mut owed: PerDir<(u64, u64)> = PerDir::default();
    for (k, row) in rows.iter().enumerate() {
        let (_, hists) = r
            .next_row()?
            .ok_or_else(|| format!("{k} rows of histograms, for {} series rows", rows.len()))?;
        let mut want = row.clone();
        let mut max = PerDir::<u64>::default();
        for d in r.dirs() {
            let held = hists[*d].as_ref().map_or(0, |h| h.len());
            let (n, m) = &mut owed[*d];
            *n += row[*d].ops;
            *m = (*m).max(row[*d].lat_max_us.map_or(0, |us| (us * 1e3).round() as u64));
            max[*d] = *m;
            let folded = held == 0 && row[*d].lat_pct_us.iter().all(Option::is_none);
            if held != *n && !folded {
                return Err(format!(
                    "row {k}: the {d} histogram holds {held} latencies, where the series counts {} {d}s{}",
                    row[*d].ops,
                    match *n - row[*d].ops {
                        0 => String::new(),
                        f => format!(" and the rows folded into it {f}"),
                    }
                ));
            }
            if !folded {
                owed[*d] = (0, 0);
            }
        }
        want.set_percentiles(&hists, |d| max[d]);
        if let Some((d, _)) = want.by_dir.iter().find(|(d, c)| {
            row[*d].lat_pct_us.iter().any(Option::is_some) && c.lat_pct_us != row[*d].lat_pct_us
        }) {
            return Err(format!(
                "row {k}: the {d} percentiles are {:?} µs, their histogram's {:?}",
                row[d].lat_pct_us, want[d].lat_pct_us
            ));
        }
    }
    if let Some((d, (n, _))) = owed.iter().find(|(_, o)| o.0 > 0) {
        return Err(format!(
            "the last rows' {n} {d}s are in no histogram (a fold with no last row)"
        ));
    }
    match r.next_row()? {
        Some(_) => Err(format!(
            "more rows of histograms than the {} series rows",
            rows.len()
        )),
        None => Ok(rows.len() as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::latency::record_into;

    /// Rows written are read back whole: the same counts in the same buckets, empty where no completion was.
    #[test]
    fn rows_are_written_and_read_back() {
        let dirs = Direction::CORE.to_vec();
        let mut lines = LineMaker::new(dirs.clone());
        let mut text = lines.header().into_bytes();
        let mut written = Vec::new();
        for k in 0..3u64 {
            let mut row = RowHists::default();
            let mut h = new_histogram();
            for i in 0..500 {
                record_into(&mut h, 1_000 + i * (k + 1) * 37);
            }
            row[Direction::Read] = Some(h);
            lines
                .row(
                    (k * 1_000_000_000, (k + 1) * 1_000_000_000),
                    &row,
                    &mut text,
                )
                .unwrap();
            written.push(row);
        }
        let s = String::from_utf8(text.clone()).unwrap();
        assert!(s.starts_with(FORMAT_LINE));
        assert_eq!(s.lines().filter(|l| l.starts_with("Tag=read,")).count(), 3);
        assert!(s.contains("\nTag=write,2.000,1.000,0.000,HIST"), "{s}");
        let mut r = RowReader::new(&text).unwrap();
        assert_eq!(r.dirs(), dirs);
        for (k, want) in written.iter().enumerate() {
            let (start, got) = r.next_row().unwrap().unwrap();
            assert_eq!(start, k as u64 * 1_000_000_000);
            assert_eq!(got[Direction::Read], want[Direction::Read]);
            assert_eq!(got[Direction::Write].as_ref().map(|h| h.len()), Some(0));
        }
        assert_eq!(r.next_row(), Ok(None));
        assert_eq!(r.rows(), 3);
        let cut = String::from_utf8(text.clone()).unwrap().replacen(
            "Tag=read,0.000",
            "Tag=write,0.000",
            1,
        );
        let mut r = RowReader::new(cut.as_bytes()).unwrap();
        assert_eq!(r.dirs(), [Direction::Write]);
        assert_eq!(r.next_row().unwrap().map(|(s, _)| s), Some(0));
        assert_eq!(r.next_row().unwrap().map(|(s, _)| s), Some(0));
        assert_eq!(
            r.next_row().err().as_deref(),
            Some("row 2: histogram tagged \"read\" where write was next")
        );
        assert!(RowReader::new(b"#other\n").is_err());
    }

    /// The kept compressor writes the bytes of hdrhistogram's own `V2DeflateSerializer` for every
    /// histogram, the empty ones it writes again from its first encoding included: empty before and after
    /// a full one, emptied by `reset`, and empty with other bounds (not the kept bytes).
    #[test]
    fn kept_deflate_writes_hdrhistograms_bytes() {
        use hdrhistogram::serialization::V2DeflateSerializer;
        let mut full = new_histogram();
        for i in 0..2_000u64 {
            record_into(&mut full, 500 + i * i * 13);
        }
        let mut emptied = full.clone();
        emptied.reset();
        let other = Hist::new_with_bounds(1, 1_000_000, 2).unwrap();
        let hists = [new_histogram(), full, new_histogram(), emptied, other];
        let mut kept = KeptDeflate::new();
        for (k, h) in hists.iter().enumerate() {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            let n = kept.serialize(h, &mut ours).unwrap();
            V2DeflateSerializer::new()
                .serialize(h, &mut theirs)
                .unwrap();
            assert_eq!(n, ours.len(), "histogram {k}");
            assert_eq!(ours, theirs, "histogram {k}");
        }
    }

    /// A fold checks: rows 1 and 2 empty and without percentiles, row 3 holding their reads and its own,
    /// with the fold's percentiles (capped at its largest latency, row 1's). A fold whose last row holds
    /// too few, or that has no last row, does not.
    #[test]
    fn a_fold_checks_against_its_rows() {
        use crate::stats::IntervalCounts;
        let lats: [&[u64]; 4] = [&[3_000, 4_000], &[90_000], &[2_000, 2_500], &[5_000]];
        let mut lines = LineMaker::new(vec![Direction::Read]);
        let (mut rows, mut text) = (Vec::new(), lines.header().into_bytes());
        let mut union = new_histogram();
        for (k, row_lats) in lats.iter().enumerate() {
            let mut c = IntervalCounts::default();
            let mut own = new_histogram();
            for &ns in row_lats.iter() {
                c[Direction::Read].add(4096, ns);
                record_into(&mut own, ns);
                if k > 0 {
                    record_into(&mut union, ns);
                }
            }
            let k = k as u64;
            let mut row = SeriesRow::new(k * 1_000, (k + 1) * 1_000, 1_000, &c);
            let mut hists = RowHists::default();
            match k {
                0 => hists[Direction::Read] = Some(own),
                1 | 2 => {}
                _ => hists[Direction::Read] = Some(union.clone()),
            }
            if k != 3 {
                row.set_percentiles(&hists, |_| c[Direction::Read].lat_max_ns);
            } else {
                // p99 of the fold's 6 reads is its largest, row 1's 90 µs (its bucket's top capped at
                // it), not row 3's own largest, 5 µs.
                row.set_percentiles(&hists, |_| 90_000);
                assert_eq!(row[Direction::Read].lat_pct_us[1], Some(90.0));
            }
            lines
                .row((k * 1_000, (k + 1) * 1_000), &hists, &mut text)
                .unwrap();
            rows.push(row);
        }
        assert_eq!(check_against(&text, &rows), Ok(4));
        let mut fewer = rows.clone();
        fewer[2][Direction::Read].ops = 1;
        assert_eq!(
            check_against(&text, &fewer).err().as_deref(),
            Some(
                "row 3: the read histogram holds 4 latencies, where the series counts 1 reads and the rows \
                 folded into it 2"
            )
        );
        assert_eq!(
            check_against(&text, &rows[..3]).err().as_deref(),
            Some("the last rows' 3 reads are in no histogram (a fold with no last row)")
        );
    }
}
