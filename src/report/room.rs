//! Under an address-space limit (`ulimit -v`), the room `merge` and `report` need for the folders they
//! read, checked before they read them: what they hold is parsed whole (results, series), and an
//! allocation of the standard library that fails aborts the process, so a command short of room is
//! refused instead (exit 2), naming the limit.

use std::path::{Path, PathBuf};

/// Address space a command keeps for its own work beside what it reads.
pub const COMMAND_SPACE: u64 = 4 << 20;

/// Address space per byte read: parsed JSON values and series rows take several times their text.
/// Measured: `wkrun merge` of two folders of 352,469 B each (a 3,000-row series) completed from 55 MiB
/// (the debug build), and aborted at 53 MiB and below, where this asks 10 MiB beyond what the program maps.
pub const SPACE_PER_BYTE: u64 = 8;

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
