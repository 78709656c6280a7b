//! Under an address-space limit (`ulimit -v`), the room `merge` and `report` need for the folders they
//! read, checked before they read them: what they hold is parsed whole (results, series), and an
//! allocation of the standard library that fails aborts the process, so a command short of room is
//! refused instead (exit 2), naming the limit.

use std::path::{Path, PathBuf};

/// Address space a command keeps for its own work beside what it reads.
pub const COMMAND_SPACE: u64 = 4 << 20;

/// Address space per byte read: parsed JSON values and series rows take several times their text.
/// Measured: `wkrun merge` of two folders of 352,469 B each (a 3,000-row series) completed from 55 MiB
/// (the debug build), and aborted at 53 MiB and below, where 8 B per byte asked 10 MiB beyond what the
/// program maps; of two folders of 1,052,103 B together (a 2,000-row series each), it aborted with
/// 13,283,328 B free beyond what the program maps (a 3,014,656 B allocation) and completed with
/// 14,331,904 B, where 8 B per byte asked 12,611,128 B: 10 asks 14,715,334 B.
pub const SPACE_PER_BYTE: u64 = 10;

/// Address space per byte for commands that only read results (`validate`, `compare`, `library add`,
/// `sim fit`): results are read a phase at a time ([`crate::results::stream`]), typed, the text not
/// kept. Measured: `wkrun validate` of a 22.5 MB file of small phases needed 2.7 times the file beside a
/// small file's floor (`edges24::validate_reads_a_results_file_within_three_times_its_size` holds it to 3).
pub const READ_SPACE_PER_BYTE: u64 = 3;

/// Bytes of each results file in `files` and of the CSV and histogram-log files beside it (its series and
/// device rows, its latency histograms, of which `merge` makes a merged log in memory): what reading them
/// parses. Traces and counters CSVs are read a line at a time, each line within a bound, and do not
/// count. A file that cannot be read counts nothing (its reader says why).
pub fn input_bytes(files: &[PathBuf]) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    files
        .iter()
        .map(|f| {
            let dir = f.parent().filter(|d| !d.as_os_str().is_empty());
            let csvs: u64 = std::fs::read_dir(dir.unwrap_or(Path::new(".")))
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
                        .sum()
                })
                .unwrap_or(0);
            size(f).saturating_add(csvs)
        })
        .fold(0u64, u64::saturating_add)
}

/// Refuses `what` ("merging 2 results folders") reading `files` when the address space left does not
/// hold [`COMMAND_SPACE`] and `per_byte` ([`SPACE_PER_BYTE`] for `merge` and `report`, which hold series
/// and charts too; [`READ_SPACE_PER_BYTE`] for commands that only read) per byte read.
///
/// # Errors
/// What it needs, the limit, and a limit that is enough.
pub fn check_inputs(files: &[PathBuf], what: &str, per_byte: u64) -> Result<(), String> {
    let read = input_bytes(files);
    let need = COMMAND_SPACE.saturating_add(read.saturating_mul(per_byte));
    let Some(short) = crate::sys::limits::address_space_shortfall(need) else {
        return Ok(());
    };
    let detail = format!(
        "{COMMAND_SPACE} B for its own work, and {per_byte} B per byte of the {read} B of results and series it reads"
    );
    Err(format!(
        "{}; nothing was written",
        short.message(what, need, &detail)
    ))
}

/// Address space drawing a report keeps free beside the plots it holds for the page: a phase's plots as
/// they are drawn (each SVG at most about a megabyte, [`super::chart::MAX_POINTS`]), and the allocator's
/// room.
pub const DRAW_SPACE: u64 = 16 << 20;

/// The room of a report's plots, checked before each section's are drawn (`wkrun report`,
/// [`super::build::make`]): every plot is held until the page is written, so a report of many phases
/// (2,000 phases: 14,000 plots, 100 MB of SVG) grows past what its inputs' estimate ([`check_inputs`])
/// counted. The sections left are counted at the mean size of those drawn so far.
#[derive(Debug, Clone, Copy)]
pub struct Drawing {
    /// Sections to draw in all.
    sections: usize,
    /// Sections drawn so far.
    drawn: usize,
    /// Bytes of their SVGs.
    held: u64,
}

impl Drawing {
    /// Before the first of `sections` sections.
    pub fn new(sections: usize) -> Drawing {
        Drawing {
            sections,
            drawn: 0,
            held: 0,
        }
    }

    /// Counts a section drawn, of SVGs of `bytes` in all.
    pub fn drew(&mut self, bytes: u64) {
        self.drawn += 1;
        self.held = self.held.saturating_add(bytes);
    }

    /// Refuses to go on when the address space left does not hold [`DRAW_SPACE`] and, for each section left
    /// (this one included), the mean size of the sections drawn so far.
    ///
    /// # Errors
    /// What drawing the rest needs, the limit, and a limit that is enough; nothing was written.
    pub fn check(&self) -> Result<(), String> {
        let left = self.sections.saturating_sub(self.drawn) as u64;
        let each = self.held / (self.drawn.max(1) as u64);
        let need = DRAW_SPACE.saturating_add(each.saturating_mul(left));
        let Some(short) = crate::sys::limits::address_space_shortfall(need) else {
            return Ok(());
        };
        let detail = match self.drawn {
            0 => format!("{DRAW_SPACE} B to draw the first of {left} sections"),
            n => format!(
                "{DRAW_SPACE} B to draw, and {each} B of plots for each of the {left} sections left, the mean of the {n} drawn, held for the page"
            ),
        };
        Err(format!(
            "{}; nothing was written",
            short.message("drawing the report's plots", need, &detail)
        ))
    }
}
