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
    IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, LogIteratorError, Tag,
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

    /// Bytes of the rows in the log so far (its header included): where [`HistLogWriter::cut`] may cut it.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// Whether the log holds nothing, not even its header (never, once created).
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }

    /// Cuts the log back to `len` bytes, a [`HistLogWriter::len`] of before, and refuses later rows
    /// ([`RowFile::cut`]): the series CSV could not take the rows after it.
    ///
    /// # Errors
    /// The OS error truncating the file.
    pub fn cut(&mut self, len: u64) -> io::Result<()> {
        self.file.cut(len)
    }

    /// Refuses bytes past `bytes` ([`RowFile::limit`]).
    #[cfg(test)]
    pub fn limit(&mut self, bytes: u64) {
        self.file.limit(bytes);
    }
}

/// The longest line read in a histogram log: 1 MiB. A histogram of wkrun's bounds with every bucket
/// counted takes at most about 410 KiB in base64 ([`max_inner_bytes`] deflated, then base64).
pub const MAX_LINE: u64 = 1 << 20;

/// The cookie of a V2 histogram, and of one deflated (HdrHistogram's encoding, version 2).
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_DEFLATE_COOKIE: u32 = 0x1c84_9314;
/// The bytes of a V2 histogram's header: cookie, payload length, normalizing offset, significant digits
/// (4 bytes each), lowest and highest value (8 each), integer to double ratio (an f64).
const V2_HEADER: usize = 40;

/// The most bytes a V2 histogram of wkrun's bounds ([`crate::stats::latency::HIST_BOUNDS`]) takes
/// inflated: its header and a varint of at most 9 bytes per bucket.
pub fn max_inner_bytes() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| V2_HEADER + 9 * new_histogram().distinct_values())
}

/// Decodes one histogram of a log: `bytes`, its base64 decoded, a deflated V2 histogram. Every length and
/// bound its headers declare is checked against the bytes there are and wkrun's bounds before anything is
/// allocated for it (the decoder would allocate what a header declares, 4 GiB for a hostile one).
///
/// # Errors
/// What is wrong with the encoding.
pub fn decode(bytes: &[u8], de: &mut Deserializer) -> Result<Hist, String> {
    let mut inner = Vec::new();
    inflate(bytes, &mut inner)?;
    de.deserialize(&mut &inner[..])
        .map_err(|e| format!("the histogram does not decode: {e}"))
}

/// A decoded histogram's nonzero counts, `(bucket index, count)` in index order, and their total
/// (saturating, as hdrhistogram's); reused from row to row, so that checking a log allocates no histogram.
#[derive(Default, Clone, Debug, PartialEq)]
pub struct Counts {
    /// The nonzero counts by bucket index ([`crate::stats::latency::bucket_tops`]).
    pub nonzero: Vec<(u32, u64)>,
    /// Their sum.
    pub total: u64,
}

impl Counts {
    /// The [`crate::stats::latency::INTERVAL_PERCENTILES`] of the counts, µs, each at most `max_ns`,
    /// exactly as [`SeriesRow::set_percentiles`] gives them for the histogram.
    pub fn percentiles_us(&self, max_ns: u64) -> [Option<f64>; 3] {
        let tops = crate::stats::latency::bucket_tops();
        let buckets = self.nonzero.iter().map(|&(i, n)| (tops[i as usize], n));
        crate::stats::latency::interval_percentiles_us(buckets, self.total, max_ns)
    }
}

/// Decodes one histogram of a log into `out` as [`decode`] does (the same checks, and a payload hdrhistogram's
/// deserializer accepts gives the same counts; what it refuses is refused), without making a histogram:
/// the V2 payload's zig-zag LEB128 varints read here. `inner` is scratch for the inflated bytes.
///
/// # Errors
/// As [`decode`].
pub fn decode_counts(bytes: &[u8], inner: &mut Vec<u8>, out: &mut Counts) -> Result<(), String> {
    inflate(bytes, inner)?;
    out.nonzero.clear();
    out.total = 0;
    let buckets = crate::stats::latency::bucket_tops().len();
    let bad = |why: &str| Err(format!("the histogram does not decode: {why}"));
    let mut payload = &inner[V2_HEADER..];
    let mut index: usize = 0;
    while !payload.is_empty() {
        let mut zz = 0u64;
        let mut used = 0;
        loop {
            let Some(&b) = payload.get(used) else {
                return bad("a count is cut short");
            };
            if used == 8 {
                zz |= u64::from(b) << 56;
                used += 1;
                break;
            }
            zz |= u64::from(b & 0x7f) << (7 * used);
            used += 1;
            if b & 0x80 == 0 {
                break;
            }
        }
        payload = &payload[used..];
        let n = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
        if n < 0 {
            let Some(at) = usize::try_from(n.unsigned_abs())
                .ok()
                .filter(|_| n != i64::MIN)
                .and_then(|z| index.checked_add(z))
            else {
                return bad("a run of zeros past every index");
            };
            index = at;
            continue;
        }
        if n > 0 {
            if index >= buckets {
                return bad("a count past the histogram's last bucket");
            }
            out.nonzero.push((index as u32, n as u64));
            out.total = out.total.saturating_add(n as u64);
        }
        index += 1;
    }
    Ok(())
}

/// Inflates one histogram of a log (`bytes`, see [`decode`]) into `inner` and checks its headers against
/// the bytes there are and wkrun's bounds.
fn inflate(bytes: &[u8], inner: &mut Vec<u8>) -> Result<(), String> {
    use std::io::Read;
    let u32_at = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map(|x| u32::from_be_bytes([x[0], x[1], x[2], x[3]]))
    };
    let u64_at = |b: &[u8], at: usize| {
        b.get(at..at + 8)
            .map(|x| u64::from_be_bytes(x.try_into().unwrap_or_default()))
    };
    let (Some(cookie), Some(len)) = (u32_at(bytes, 0), u32_at(bytes, 4)) else {
        return Err(format!("{} B, too short for a histogram", bytes.len()));
    };
    if cookie != V2_DEFLATE_COOKIE {
        return Err(format!(
            "cookie {cookie:#010x}, not a deflated V2 histogram's ({V2_DEFLATE_COOKIE:#010x})"
        ));
    }
    if u64::from(len) != bytes.len() as u64 - 8 {
        return Err(format!(
            "the histogram declares {len} B deflated, where the line holds {} B",
            bytes.len() - 8
        ));
    }
    let most = max_inner_bytes();
    inner.clear();
    flate2::read::ZlibDecoder::new(&bytes[8..])
        .take(most as u64 + 1)
        .read_to_end(inner)
        .map_err(|e| format!("the histogram does not inflate: {e}"))?;
    if inner.len() > most {
        return Err(format!(
            "the histogram inflates past {most} B, more than one of wkrun's bounds takes"
        ));
    }
    let head = (
        u32_at(inner, 0),
        u32_at(inner, 4),
        u32_at(inner, 8),
        u32_at(inner, 12),
        u64_at(inner, 16),
        u64_at(inner, 24),
        u64_at(inner, 32).map(f64::from_bits),
    );
    let (Some(c), Some(payload), Some(offset), Some(digits), Some(low), Some(high), Some(ratio)) =
        head
    else {
        return Err(format!(
            "the histogram inflates to {} B, too short for its header",
            inner.len()
        ));
    };
    let (want_low, want_high, want_digits) = crate::stats::latency::HIST_BOUNDS;
    let why = if c != V2_COOKIE {
        format!("inner cookie {c:#010x}, not a V2 histogram's ({V2_COOKIE:#010x})")
    } else if u64::from(payload) != (inner.len() - V2_HEADER) as u64 {
        format!(
            "the histogram declares a payload of {payload} B, where it holds {} B",
            inner.len() - V2_HEADER
        )
    } else if (low, high, digits) != (want_low, want_high, u32::from(want_digits)) {
        format!(
            "a histogram of {low}..{high} ns at {digits} digits, not wkrun's ({want_low}..{want_high} ns at {want_digits})"
        )
    } else if offset != 0 || ratio != 1.0 {
        format!("normalizing offset {offset} and ratio {ratio}, where wkrun writes 0 and 1")
    } else {
        return Ok(());
    };
    Err(why)
}

/// One histogram line of a log: its line number, tag, start (ns from t = 0) and histogram bytes.
struct Entry {
    line: u64,
    tag: String,
    start_ns: u64,
    bytes: Vec<u8>,
}

/// Reads a log's rows in order: each row's histograms of the log's directions (the tags of its first row,
/// the series CSV's directions), one row at a time and one line at a time (each at most [`MAX_LINE`]), so
/// that a long log never has more than one row's histograms in memory. An error names the line.
pub struct RowReader<R> {
    src: R,
    line: Vec<u8>,
    at: u64,
    ahead: std::collections::VecDeque<Entry>,
    dirs: Vec<Direction>,
    rows: u64,
    de: Deserializer,
    inner: Vec<u8>,
}

impl<'a> RowReader<&'a [u8]> {
    /// A reader of `text`, a whole log.
    ///
    /// # Errors
    /// As [`RowReader::from_reader`].
    pub fn new(text: &'a [u8]) -> Result<RowReader<&'a [u8]>, String> {
        RowReader::from_reader(text)
    }
}

/// Opens the log `path` for [`RowReader`]: a regular file beside the results, never a symbolic link (not
/// followed), a FIFO or a device ([`super::open_beside`]).
///
/// # Errors
/// What is wrong (without the path).
pub fn open(path: &std::path::Path) -> Result<RowReader<io::BufReader<std::fs::File>>, String> {
    let f = super::open_beside(path)?;
    RowReader::from_reader(io::BufReader::with_capacity(64 << 10, f))
}

impl<R: io::BufRead> RowReader<R> {
    /// A reader of the log `src`.
    ///
    /// # Errors
    /// The log does not start with [`FORMAT_LINE`], or a line of its first row does not read, or a tag of
    /// it is not a direction.
    pub fn from_reader(src: R) -> Result<RowReader<R>, String> {
        let mut r = RowReader {
            src,
            line: Vec::new(),
            at: 0,
            ahead: Default::default(),
            dirs: Vec::new(),
            rows: 0,
            de: Deserializer::new(),
            inner: Vec::new(),
        };
        let first = r.read_line()?.then(|| r.line.strip_suffix(b"\n"));
        if first.flatten() != Some(FORMAT_LINE.as_bytes()) {
            return Err(format!(
                "line 1 is not {FORMAT_LINE} (not a wkrun histogram log, or of another version)"
            ));
        }
        while let Some(e) = r.read_entry()? {
            let d = Direction::ALL
                .into_iter()
                .find(|d| d.name() == e.tag)
                .ok_or_else(|| {
                    format!(
                        "line {}: a histogram is tagged \"{}\", not with a direction",
                        e.line, e.tag
                    )
                })?;
            let again = r.dirs.contains(&d);
            r.ahead.push_back(e);
            if again {
                break;
            }
            r.dirs.push(d);
        }
        Ok(r)
    }

    /// Reads the next line into `self.line`; false at the end.
    fn read_line(&mut self) -> Result<bool, String> {
        use io::{BufRead as _, Read as _};
        self.line.clear();
        let n = (&mut self.src)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut self.line)
            .map_err(|e| format!("line {}: cannot read it: {e}", self.at + 1))?;
        if n == 0 {
            return Ok(false);
        }
        self.at += 1;
        if n as u64 > MAX_LINE {
            return Err(format!(
                "line {} is longer than {}, the longest line of a histogram log",
                self.at,
                crate::units::fmt_bytes(MAX_LINE)
            ));
        }
        Ok(true)
    }

    /// The next histogram line (comments and the legend skipped), its base64 decoded; `None` at the end.
    fn entry(&mut self) -> Result<Option<Entry>, String> {
        match self.ahead.pop_front() {
            Some(e) => Ok(Some(e)),
            None => self.read_entry(),
        }
    }

    /// The next histogram line of the source.
    fn read_entry(&mut self) -> Result<Option<Entry>, String> {
        while self.read_line()? {
            let at = self.at;
            let h = match IntervalLogIterator::new(&self.line).next() {
                None => continue,
                Some(Ok(LogEntry::Interval(h))) => h,
                Some(Ok(_)) => continue,
                Some(Err(LogIteratorError::ParseError { offset })) => {
                    let from = match offset {
                        0 => "its start".to_string(),
                        n => format!("its byte {}", n + 1),
                    };
                    return Err(format!(
                        "line {at} is not a histogram line (Tag=DIRECTION,start,length,max,histogram): it does not read from {from}"
                    ));
                }
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(h.encoded_histogram())
                .map_err(|e| format!("line {at}: the histogram is not base64: {e}"))?;
            return Ok(Some(Entry {
                line: at,
                tag: h.tag().map_or("", |t| t.as_str()).to_string(),
                start_ns: u64::try_from(h.start_timestamp().as_nanos()).unwrap_or(u64::MAX),
                bytes,
            }));
        }
        Ok(None)
    }

    /// The next row: its start, ns from t = 0, and its histograms (every direction of `dirs` present, maybe
    /// empty); `Ok(None)` after the last.
    ///
    /// # Errors
    /// A line that does not parse, a tag out of order, a histogram that does not decode or has other
    /// bounds than wkrun's ([`decode`]), a row cut short; each with its line.
    pub fn next_row(&mut self) -> Result<Option<(u64, RowHists)>, String> {
        let mut row = RowHists::default();
        let start = self.next_entries(|d, bytes, de, _| {
            row[d] = Some(decode(bytes, de)?);
            Ok(())
        })?;
        Ok(start.map(|s| (s, row)))
    }

    /// [`RowReader::next_row`] as counts ([`decode_counts`]) into `counts`, one per direction of `dirs`
    /// (the others left as they are), reusing their memory: the next row's start, `None` after the last.
    ///
    /// # Errors
    /// As [`RowReader::next_row`].
    pub fn next_row_counts(&mut self, counts: &mut PerDir<Counts>) -> Result<Option<u64>, String> {
        self.next_entries(|d, bytes, _, inner| decode_counts(bytes, inner, &mut counts[d]))
    }

    /// Reads the next row's lines, handing each direction's histogram bytes to `take` (with the decoder and
    /// scratch), and returns the row's start; `None` after the last.
    fn next_entries(
        &mut self,
        mut take: impl FnMut(Direction, &[u8], &mut Deserializer, &mut Vec<u8>) -> Result<(), String>,
    ) -> Result<Option<u64>, String> {
        let mut start_ns = 0;
        let k = self.rows;
        for i in 0..self.dirs.len() {
            let want = self.dirs[i];
            let e = match self.entry()? {
                None if i == 0 => return Ok(None),
                None => {
                    return Err(format!(
                        "row {k} has no histogram for {want} (the log ends at line {})",
                        self.at
                    ));
                }
                Some(e) => e,
            };
            let line = e.line;
            if e.tag != want.name() {
                return Err(format!(
                    "line {line}: row {k}: histogram tagged \"{}\" where {want} was next",
                    e.tag
                ));
            }
            take(want, &e.bytes, &mut self.de, &mut self.inner)
                .map_err(|why| format!("line {line}: row {k}, {want}: {why}"))?;
            start_ns = e.start_ns;
        }
        self.rows += 1;
        Ok(Some(start_ns))
    }

    /// Rows read so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The line read last (0 before the first).
    pub fn line(&self) -> u64 {
        self.at
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
    check_rows(RowReader::new(text)?, rows)
}

/// [`check_against`] of the log `r` reads.
///
/// # Errors
/// As [`check_against`], naming the line.
pub fn check_rows<R: io::BufRead>(mut r: RowReader<R>, rows: &[SeriesRow]) -> Result<u64, String> {
    // Per direction: the I/Os of the rows of the fold so far (not yet in a histogram), and their largest
    // latency, ns.
    let mut owed: PerDir<(u64, u64)> = PerDir::default();
    let mut counts = PerDir::<Counts>::default();
    let mut max = PerDir::<u64>::default();
    // The cell of that largest latency, µs, as the CSV has it.
    let mut cell = PerDir::<f64>::default();
    for (k, row) in rows.iter().enumerate() {
        r.next_row_counts(&mut counts)?.ok_or_else(|| {
            format!(
                "the log ends at line {} after {k} rows of histograms, for {} series rows",
                r.line(),
                rows.len()
            )
        })?;
        let line = r.line();
        for d in r.dirs() {
            let held = counts[*d].total;
            let (n, m) = &mut owed[*d];
            *n += row[*d].ops;
            let here = row[*d].lat_max_us.map_or(0, |us| (us * 1e3).round() as u64);
            if here > *m || *n == row[*d].ops {
                cell[*d] = row[*d].lat_max_us.unwrap_or(0.0);
            }
            *m = (*m).max(here);
            max[*d] = *m;
            let folded = held == 0 && row[*d].lat_pct_us.iter().all(Option::is_none);
            if held != *n && !folded {
                return Err(format!(
                    "line {line}: row {k}: the {d} histogram holds {held} latencies, where the series counts {} {d}s{}",
                    row[*d].ops,
                    match *n - row[*d].ops {
                        0 => String::new(),
                        f => format!(" and the rows folded into it {f}"),
                    }
                ));
            }
            if !folded {
                let fold = *n != row[*d].ops;
                owed[*d] = (0, 0);
                if let Some(why) = top_bucket(&counts[*d], max[*d]) {
                    return Err(format!(
                        "line {line}: row {k}: the series CSV's {d}_lat_max_us {} µs{} {why}",
                        cell[*d],
                        match fold {
                            false => "",
                            true => " (the largest of the rows folded into it)",
                        }
                    ));
                }
            }
        }
        for d in Direction::ALL.into_iter().filter(|d| r.dirs().contains(d)) {
            let want = counts[d].percentiles_us(max[d]);
            let have = row[d].lat_pct_us;
            if have.iter().any(Option::is_some) && have != want {
                // Attack 18 F7: said in Rust's debug form (`[Some(1300.479), ...]`), and as if the log
                // alone were wrong, where a cut series CSV is as likely.
                let shown = |v: &[Option<f64>]| {
                    let each: Vec<String> = v
                        .iter()
                        .map(|x| x.map_or("-".to_string(), |x| x.to_string()))
                        .collect();
                    each.join(", ")
                };
                return Err(format!(
                    "line {line}: row {k}: the series CSV's {d} percentiles are {} µs, this log's histogram gives {} µs: one of the two files is damaged",
                    shown(&have),
                    shown(&want)
                ));
            }
        }
    }
    if let Some((d, (n, _))) = owed.iter().find(|(_, o)| o.0 > 0) {
        return Err(format!(
            "the last rows' {n} {d}s are in no histogram (a fold with no last row)"
        ));
    }
    match r.next_row()? {
        Some(_) => Err(format!(
            "line {}: more rows of histograms than the {} series rows",
            r.line(),
            rows.len()
        )),
        None => Ok(rows.len() as u64),
    }
}

/// Why `max_ns`, the largest latency of the rows a histogram holds, is not in its highest bucket, where it
/// is not (attack 21 A4: a row's `read_lat_max_us` halved passed, its histogram's highest bucket ending at
/// 3839999 ns): every latency is recorded in the bucket holding it (0 ns as 1 ns, and one past the
/// histogram's range at its top, [`crate::stats::latency::record_n_into`]), so the largest lies in the
/// highest non-empty bucket, from one above the bucket before's top to its own. Nothing for an empty
/// histogram.
fn top_bucket(c: &Counts, max_ns: u64) -> Option<String> {
    let tops = crate::stats::latency::bucket_tops();
    let &(i, _) = c.nonzero.last()?;
    let i = i as usize;
    let high = *tops.get(i)?;
    let low = match i {
        0 => 0,
        _ => tops[i - 1] + 1,
    };
    let (_, most, _) = crate::stats::latency::HIST_BOUNDS;
    let m = max_ns.max(1);
    let past_range = m > most;
    (!past_range && (m < low || m > high)).then(|| {
        format!("is not in this log's histogram's highest bucket, {low} to {high} ns: one of the two files is damaged")
    })
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
            Some("line 7: row 2: histogram tagged \"read\" where write was next")
        );
        assert!(RowReader::new(b"#other\n").is_err());
        // A log cut inside its first histogram line is said in words (attack 15: `line 5 does not parse
        // (ParseError { offset: 0 })`, Rust's debug form).
        let torn = s.find("Tag=read,0.000,1.000,").unwrap() + 21;
        assert_eq!(
            RowReader::new(&text[..torn]).err().as_deref(),
            Some(
                "line 5 is not a histogram line (Tag=DIRECTION,start,length,max,histogram): it does not read from its start"
            )
        );
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

    /// A deflated V2 histogram of wkrun's bounds with `payload` as its counts, as a log holds it.
    fn encoded(payload: &[u8]) -> Vec<u8> {
        let (low, high, digits) = crate::stats::latency::HIST_BOUNDS;
        let mut inner = V2_COOKIE.to_be_bytes().to_vec();
        inner.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        inner.extend_from_slice(&0u32.to_be_bytes());
        inner.extend_from_slice(&u32::from(digits).to_be_bytes());
        inner.extend_from_slice(&low.to_be_bytes());
        inner.extend_from_slice(&high.to_be_bytes());
        inner.extend_from_slice(&1f64.to_bits().to_be_bytes());
        inner.extend_from_slice(payload);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&inner).unwrap();
        let packed = z.finish().unwrap();
        let mut out = V2_DEFLATE_COOKIE.to_be_bytes().to_vec();
        out.extend_from_slice(&(packed.len() as u32).to_be_bytes());
        out.extend_from_slice(&packed);
        out
    }

    /// The counts hdrhistogram's deserializer makes of `bytes`, as `(highest value of the bucket, count)`
    /// and total, or its error.
    fn their_counts(bytes: &[u8]) -> Result<(Vec<(u64, u64)>, u64), String> {
        let h = decode(bytes, &mut Deserializer::new())?;
        let nonzero = h
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect();
        Ok((nonzero, h.len()))
    }

    /// [`decode_counts`] gives, from the same bytes, the counts and total that hdrhistogram's deserializer
    /// gives, for random histograms (300 of up to 10k values over 1 ns to past the top bucket) and for
    /// hand-made payloads (zero runs, counts of the last bucket and past it, a varint cut short, 9-byte
    /// varints); refuses what it refuses; and its percentiles are [`SeriesRow::set_percentiles`]'.
    #[test]
    fn counts_decode_as_hdrhistograms_deserializer() {
        use rand_core::Rng;
        let mut rng = rand_pcg::Pcg64Mcg::new(0xdec0_dec0);
        let (mut inner, mut ours) = (Vec::new(), Counts::default());
        let tops = crate::stats::latency::bucket_tops();
        let mut agree = |bytes: &[u8]| {
            let mine = decode_counts(bytes, &mut inner, &mut ours).map(|()| {
                let nz = ours.nonzero.iter().map(|&(i, n)| (tops[i as usize], n));
                (nz.collect::<Vec<_>>(), ours.total)
            });
            assert_eq!(mine.is_ok(), their_counts(bytes).is_ok(), "{mine:?}");
            if let Ok(theirs) = their_counts(bytes) {
                assert_eq!(mine.unwrap(), theirs);
            }
            ours.clone()
        };
        let mut h = new_histogram();
        let mut kept = KeptDeflate::new();
        for case in 0..300u64 {
            h.reset();
            let top_bits = 1 + rng.next_u64() % 44;
            for _ in 0..rng.next_u64() % 10_000 {
                let v = rng.next_u64() >> (64 - top_bits);
                record_into(&mut h, if case % 2 == 0 { v } else { v >> (v % 40) });
            }
            let mut bytes = Vec::new();
            kept.serialize(&h, &mut bytes).unwrap();
            let counts = agree(&bytes);
            let max = rng.next_u64() >> (64 - top_bits);
            let mut row = SeriesRow::new(0, 1, 1, &crate::stats::IntervalCounts::default());
            let mut hists = RowHists::default();
            hists[Direction::Read] = Some(h.clone());
            row.set_percentiles(&hists, |_| max);
            assert_eq!(counts.percentiles_us(max), row[Direction::Read].lat_pct_us);
        }
        let leb = |mut v: u64| {
            let mut out = Vec::new();
            while v >= 0x80 {
                out.push(v as u8 | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
            out
        };
        let to_last = leb((tops.len() as u64 - 1) * 2 - 1); // zig-zag: that many zeros
        let zz_min = u64::MAX; // zig-zag of i64::MIN: zeros past every index
        for payload in [
            vec![],
            vec![2, 0, 4],
            vec![0xff, 0xff, 0x03, 6],
            [&to_last[..], &[2]].concat(),
            [&to_last[..], &[0, 2]].concat(),
            [&to_last[..], &[0, 0, 0]].concat(),
            [&to_last[..], &leb(1_000_000 * 2 - 1), &[0, 0]].concat(),
            vec![0x82],
            vec![4, 0x80],
            vec![0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
            vec![0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 2],
        ] {
            agree(&encoded(&payload));
        }
        let mut min_run = Vec::new();
        for k in 0..9 {
            min_run.push(if k < 8 {
                (zz_min >> (7 * k)) as u8 | 0x80
            } else {
                0xff
            });
        }
        min_run.push(2);
        assert!(decode_counts(&encoded(&min_run), &mut inner, &mut ours).is_err());
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
                "line 8: row 3: the read histogram holds 4 latencies, where the series counts 1 reads and the rows \
                 folded into it 2"
            )
        );
        assert_eq!(
            check_against(&text, &rows[..3]).err().as_deref(),
            Some("the last rows' 3 reads are in no histogram (a fold with no last row)")
        );
    }
}
