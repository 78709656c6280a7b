//! Under an address-space limit (`ulimit -v`), the room the commands that read results folders need
//! (`validate`, `compare`, `report`, `merge`, `library add`, `sim fit`), checked before they read them: an
//! allocation of the standard library that fails aborts the process, so a command short of room is refused
//! instead (exit 1), naming the limit. What reading a `results.json` takes follows its shape, counted first
//! in one pass over its bytes ([`crate::results::scan`]): 25 MB of one-letter warnings are 5,000,000 values
//! and took 822 MB, where 25 MB of a run's figures are a tenth as many.

use crate::results::scan::{self, Shape};
use std::path::{Path, PathBuf};

/// Address space a command keeps for its own work beside what it reads.
pub const COMMAND_SPACE: u64 = 4 << 20;

/// Address space per byte of the series CSVs and histogram logs `merge` and `report` read: they hold their
/// rows and charts (`merge` makes a merged log in memory).
/// Measured: `wkrun merge` of two folders of 352,469 B each (a 3,000-row series) completed from 55 MiB
/// (the debug build), and aborted at 53 MiB and below, where 8 B per byte asked 10 MiB beyond what the
/// program maps.
pub const SPACE_PER_BYTE: u64 = 10;

/// Address space per byte of the series and logs for commands that only check them as they read
/// (`validate`, `compare`, `library add`, `sim fit`).
pub const READ_SPACE_PER_BYTE: u64 = 3;

/// Address space per value of a results document kept in its typed form once read, object keys aside (a
/// struct's field holds none): at most a JSON value's 32 B with as much again for its list to grow (a
/// number in a field takes 8), beside [`HELD_PER_STRING`] and the strings' bytes.
pub const HELD_PER_VALUE: u64 = 64;

/// Address space per string kept typed beyond its value's: the allocation of its bytes (at least 32 B).
/// Measured (debug build): a phase's 1,000,000 one-letter warnings took 173 MB in all, 66 B each typed
/// beside their tree.
pub const HELD_PER_STRING: u64 = 32;

/// Address space per value of the JSON trees held while a document is read: the largest phase's, and the
/// rest of the document's (a `serde_json::Value` of 32 B, its list's room to grow or a map's entry, a
/// short string's allocation), beside their strings' bytes. Measured (debug build): 107 B for each of
/// 1,000,000 one-letter strings, 64 B for each of as many numbers.
pub const TREE_PER_VALUE: u64 = 128;

/// Address space per value of such a tree that breaks the schema, for the violations the validator
/// collects, up to [`crate::results::check::MAX_CHECKED_VALUES`] values (past them only the first is
/// sought). Measured (debug build): 90,000 numbers where strings belong took 45 MiB beyond a valid
/// file's need, about 450 B a violation beside their tree.
pub const CHECK_PER_VALUE: u64 = 512;

/// The room reading the results document of shape `s` takes: what stays held once it is read (its typed
/// form) and what is held only while it is read (its text, its trees, their check).
pub fn results_room(s: &Shape) -> (u64, u64) {
    let cap = crate::results::check::MAX_CHECKED_VALUES;
    let held = (s.values.saturating_sub(s.keys))
        .saturating_mul(HELD_PER_VALUE)
        .saturating_add(
            s.strings
                .saturating_sub(s.keys)
                .saturating_mul(HELD_PER_STRING),
        )
        .saturating_add(s.string_bytes);
    let trees = s.phase_values.saturating_add(s.rest_values);
    let checked = s
        .phase_values
        .min(cap)
        .saturating_add(s.rest_values.min(cap));
    let reading = s
        .bytes
        .saturating_add(trees.saturating_mul(TREE_PER_VALUE))
        .saturating_add(s.phase_string_bytes.saturating_add(s.rest_string_bytes))
        .saturating_add(checked.saturating_mul(CHECK_PER_VALUE));
    (held, reading)
}

/// What a command reads: the results documents' shapes and the bytes of their series.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Inputs {
    /// The room the results documents take, read one after another: all their typed forms, and the
    /// largest's reading ([`results_room`]).
    pub results: u64,
    /// Values of all the results documents.
    pub values: u64,
    /// Bytes of all the results documents.
    pub results_bytes: u64,
    /// Bytes of the series CSVs and histogram logs beside them.
    pub series_bytes: u64,
}

/// The shape of the results document `f`, a regular file within the readers' size limit (another is
/// refused by its reader, which says why, and counts nothing here).
fn shape_of(f: &Path) -> Shape {
    let regular = std::fs::metadata(f)
        .is_ok_and(|m| m.is_file() && m.len() <= super::bounded::MAX_RESULTS_BYTES);
    match regular {
        true => std::fs::File::open(f)
            .and_then(scan::shape_of)
            .unwrap_or_default(),
        false => Shape::default(),
    }
}

/// Bytes of the CSV and histogram-log files beside the results file `f` (its series and device rows, its
/// latency histograms). Traces and counters CSVs are read a line at a time, each line within a bound,
/// and do not count.
fn series_bytes(f: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let dir = f.parent().filter(|d| !d.as_os_str().is_empty());
    std::fs::read_dir(dir.unwrap_or(Path::new(".")))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "csv" || x == "hlog"))
                .filter(|p| {
                    let name = p.file_name().unwrap_or_default().to_string_lossy();
                    !(name.ends_with(".trace.csv") || name.ends_with(".counters.csv"))
                })
                .map(|p| size(&p))
                .fold(0u64, u64::saturating_add)
        })
        .unwrap_or(0)
}

/// What reading the results files `files` and the series beside them takes ([`Inputs`]); `kept` when the
/// command keeps each file's text and a second typed copy of its results ([`Reader::Keep`]).
pub fn inputs(files: &[PathBuf], kept: bool) -> Inputs {
    let mut i = Inputs::default();
    let mut reading = 0u64;
    for f in files {
        let s = shape_of(f);
        let (held, read) = results_room(&s);
        let held = match kept {
            true => held.saturating_mul(2).saturating_add(s.bytes),
            false => held,
        };
        i.results = i.results.saturating_add(held);
        reading = reading.max(read);
        i.values = i.values.saturating_add(s.values);
        i.results_bytes = i.results_bytes.saturating_add(s.bytes);
        i.series_bytes = i.series_bytes.saturating_add(series_bytes(f));
    }
    i.results = i.results.saturating_add(reading);
    i
}

/// How a command holds what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// Reads results and checks their series (`validate`, `compare`, `sim fit`): [`READ_SPACE_PER_BYTE`].
    Check,
    /// Holds the series and draws them (`report`): [`SPACE_PER_BYTE`].
    Draw,
    /// Holds a second typed copy of the results and the text, and the series' bytes beside their rows
    /// (`library add`, which stores them; `merge`, which builds the merged results beside those read):
    /// [`SPACE_PER_BYTE`].
    Keep,
}

/// Refuses `what` ("merging 2 results folders") reading `files` when the address space left does not
/// hold [`COMMAND_SPACE`], the room of their results documents ([`inputs`]) and so many bytes per byte of
/// their series as `reader` takes ([`Reader`]). Without an address-space limit nothing is read (finding
/// the need scans each results file in full). The machine's available memory is not held against the
/// need: that check would come before the readers' bad-input checks (docs/safety.md).
///
/// # Errors
/// What it needs, the limit, and a limit that is enough (exit 1: a resource limit).
pub fn check_inputs(files: &[PathBuf], what: &str, reader: Reader) -> Result<(), String> {
    if crate::sys::limits::Limit::AddressSpace.soft().is_none() {
        return Ok(());
    }
    let per_byte = match reader {
        Reader::Check => READ_SPACE_PER_BYTE,
        Reader::Draw | Reader::Keep => SPACE_PER_BYTE,
    };
    let i = inputs(files, reader == Reader::Keep);
    let need = COMMAND_SPACE
        .saturating_add(i.results)
        .saturating_add(i.series_bytes.saturating_mul(per_byte));
    let detail = format!(
        "{COMMAND_SPACE} B for its own work, {} B for the {} values of the {} B of results (read, checked and held typed: docs/safety.md), and {per_byte} B per byte of the {} B of series it reads",
        i.results, i.values, i.results_bytes, i.series_bytes
    );
    let Some(short) = crate::sys::limits::address_space_shortfall(need) else {
        return Ok(());
    };
    Err(format!(
        "{}; nothing was written",
        short.message(what, need, &detail)
    ))
}

/// Address space drawing a report keeps free beside the plots it holds: a section's plots as they are
/// drawn (each SVG at most about a megabyte, [`super::chart::MAX_POINTS`]), and the allocator's room.
pub const DRAW_SPACE: u64 = 16 << 20;

/// The room of a report's plots, checked before each section's are drawn (`wkrun report`,
/// [`super::build::write`]). The page is written a section at a time and each section's plots are
/// dropped once written, so what is held at once is the plots at the top of the page (batteries, PTS
/// sections, ranked charts, held until the page is written) and one section's, twice: its SVGs and
/// their copy in the page's text. The next section is counted as large as the largest drawn so far.
/// (Before, every plot was held until the page was written, and a report of 27,390 phases aborted at 2 GB,
/// attack24c F21; the check counted the sections left at the mean of those drawn.)
#[derive(Debug, Clone, Copy)]
pub struct Drawing {
    /// Sections to draw in all.
    sections: usize,
    /// Sections drawn so far.
    drawn: usize,
    /// Bytes of the SVGs held until the page is written.
    kept: u64,
    /// Bytes of the SVGs of the largest section drawn.
    largest: u64,
}

impl Drawing {
    /// Before the first of `sections` sections.
    pub fn new(sections: usize) -> Drawing {
        Drawing {
            sections,
            drawn: 0,
            kept: 0,
            largest: 0,
        }
    }

    /// Counts a section drawn whose plots, SVGs of `bytes` in all, are held until the page is written
    /// (the top of the page).
    pub fn keep(&mut self, bytes: u64) {
        self.drawn += 1;
        self.kept = self.kept.saturating_add(bytes);
    }

    /// Counts a section drawn, of SVGs of `bytes` in all, dropped once written.
    pub fn drew(&mut self, bytes: u64) {
        self.drawn += 1;
        self.largest = self.largest.max(bytes);
    }

    /// The bytes of plots held while the next section is written: those kept, and the largest section's
    /// twice (its SVGs and the page's copy).
    pub fn held(&self) -> u64 {
        self.kept.saturating_add(self.largest.saturating_mul(2))
    }

    /// Refuses to go on when the address space left does not hold [`DRAW_SPACE`] and the plots held while
    /// the next section is written ([`Drawing::held`]).
    ///
    /// # Errors
    /// What drawing the next section needs, the limit, and a limit that is enough; nothing was written.
    pub fn check(&self) -> Result<(), String> {
        let left = self.sections.saturating_sub(self.drawn);
        let each = self.held();
        let need = DRAW_SPACE.saturating_add(each);
        let what = "drawing the report's plots";
        let detail = match self.drawn {
            0 => format!("{DRAW_SPACE} B to draw the first of {left} sections"),
            _ => format!(
                "{DRAW_SPACE} B to draw, and {each} B of plots held while the next of the {left} sections left is written (those at the top of the page, and twice the largest section's drawn so far: its SVGs and the page's copy)"
            ),
        };
        if let Some(short) = crate::sys::limits::Memory::now().shortfall(what, need, &detail) {
            return Err(format!("{short}; nothing was written"));
        }
        let Some(short) = crate::sys::limits::address_space_shortfall(need) else {
            return Ok(());
        };
        Err(format!(
            "{}; nothing was written",
            short.message(what, need, &detail)
        ))
    }
}
