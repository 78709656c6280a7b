//! The inputs of `wkrun report`: runs (a `results.json` and its series CSVs), and the ways plots group
//! their phases: by phase name across runs ([`phase_groups`]) and by the labels sweeps and matrices gave
//! them ([`label_groups`]).

use super::bounded::{Bounded, exceeded};
use super::{ReadError, read_results};
use crate::results::series_csv::{self, SeriesRow};
use crate::results::{PhaseResult, Results};
use crate::spec::PhaseKind;
use crate::stats::window::WindowSpec;
use crate::vocab::Direction;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// One run: its results and, per phase (same order as `results.phases`), the rows of its series CSV
/// (`None` for a phase without one, such as an erase).
#[derive(Debug, Clone)]
pub struct RunData {
    /// The results file, as given.
    pub file: PathBuf,
    /// The run's name in legends and tables: the results' `label`, or for results without one the name of the
    /// folder holding the results file (with `#N` appended when two runs would have the same name; see
    /// [`name_runs`]).
    pub label: String,
    /// The parsed `results.json`.
    pub results: Results,
    /// One entry per phase: the series rows, in file order.
    pub series: Vec<Option<Vec<SeriesRow>>>,
    /// A simulated drive's internals per interval, one entry per phase (its `device.device_csv`, read
    /// next to the results file); empty for runs of other targets and runs from the results library.
    pub device: Vec<Option<Vec<DeviceSample>>>,
}

/// One row of a phase's device CSV (`NN-<phase>.device.csv`, a simulated drive's internals), the columns
/// the report draws.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct DeviceSample {
    /// End of the interval, s since the phase start.
    pub t_s: f64,
    /// Bytes the host wrote in the interval.
    pub host_write_bytes: u64,
    /// Bytes programmed to flash in the interval.
    pub flash_write_bytes: u64,
    /// Their ratio; none without host writes.
    pub write_amplification: Option<f64>,
}

/// The rows of a device CSV, within the limits of a series CSV ([`read_series`]); a symbolic link is
/// refused, not followed.
///
/// # Errors
/// [`ReadError::Series`] naming the file and, for a bad row, its line.
pub fn read_device(path: &Path) -> Result<Vec<DeviceSample>, ReadError> {
    let bad = |why: String| ReadError::Series {
        path: path.to_path_buf(),
        why,
    };
    let file = crate::spec::load::open_regular(path, true).map_err(|e| bad(e.to_string()))?;
    let mut r = csv::Reader::from_reader(Bounded::series(file));
    let mut rows: Vec<DeviceSample> = Vec::new();
    for (i, rec) in r.deserialize::<DeviceSample>().enumerate() {
        let row = rec.map_err(|e| bad(format!("line {}: {e}", i + 2)))?;
        if let Some(why) = device_out_of_order(&rows, &row) {
            return Err(bad(format!("line {}: {why}", i + 2)));
        }
        rows.push(row);
    }
    // The writer ends every row with its line end: a last row without one was cut.
    if let Some(line) = r.into_inner().unended_line() {
        return Err(bad(format!(
            "line {line}: the row is cut short (no line end)"
        )));
    }
    Ok(rows)
}

/// Why the device row `row` cannot follow `rows`: a time that is not a finite number of seconds from the
/// phase's start within ten years ([`MAX_DURATION_S`](crate::results::check::MAX_DURATION_S), the longest
/// phase), a `write_amplification` that is not `flash_write_bytes / host_write_bytes` (empty without host
/// writes: [`crate::sim::DeviceCounters::write_amplification`]), or a time that is not after the row
/// before's (rows go forward in time, one per interval, as the phase's series); only the last row may end
/// where the one before it ended (the phase's last completion fell on an interval's start), so no row
/// follows such a row.
fn device_out_of_order(rows: &[DeviceSample], row: &DeviceSample) -> Option<String> {
    let num = crate::units::readable_float;
    let most = crate::results::check::MAX_DURATION_S;
    if !(row.t_s.is_finite() && (0.0..=most).contains(&row.t_s)) {
        return Some(format!(
            "t_s {} is not a time in seconds from the phase's start (0 to ten years, {most} s)",
            num(row.t_s)
        ));
    }
    let counted = crate::sim::DeviceCounters {
        host_write_bytes: row.host_write_bytes,
        flash_write_bytes: row.flash_write_bytes,
        ..Default::default()
    }
    .write_amplification();
    let agree = match (row.write_amplification, counted) {
        (Some(a), Some(b)) => a.to_bits() == b.to_bits(),
        (a, b) => a.is_none() && b.is_none(),
    };
    if !agree {
        let said = row.write_amplification.map_or("empty".into(), num);
        let want = counted.map_or("empty (no host writes)".into(), |w| {
            format!(
                "flash_write_bytes / host_write_bytes = {} / {} = {}",
                row.flash_write_bytes,
                row.host_write_bytes,
                num(w)
            )
        });
        return Some(format!("write_amplification {said} is not {want}"));
    }
    let after_last = matches!(rows, [.., a, b] if a.t_s == b.t_s);
    let before = rows.last()?;
    (row.t_s < before.t_s || after_last).then(|| {
        format!(
            "t_s {} is not after the row before's {}: a device CSV's rows go forward in time, one per interval",
            num(row.t_s),
            num(before.t_s)
        )
    })
}

impl RunData {
    /// The target as named in legends and titles ([`target_name`]).
    pub fn target_name(&self) -> String {
        target_name(&self.results)
    }

    /// The hosts of a merged folder ([`merged_hosts`]).
    pub fn merged_hosts(&self) -> Option<(usize, Vec<&str>)> {
        merged_hosts(&self.results)
    }

    /// The run's legend entry: `LABEL on TARGET`, or the label alone when it names the target; a
    /// prediction's: `predicted from MEASURED`, the measured results file it was fitted to, or, when its
    /// drive was given with `--fitted` (`prediction.target_given`), `predicted on a given drive, not fitted
    /// to MEASURED` (its drive, too long to share the row, is the row's second line:
    /// [`crate::report::chart::predicted::legend_note`]).
    pub fn legend(&self) -> String {
        if let Some(p) = &self.results.prediction {
            return match p.target_given {
                true => format!("predicted on a given drive, not fitted to {}", p.measured),
                false => format!("predicted from {}", p.measured),
            };
        }
        let target = self.target_name();
        // A run labelled by its target (the default label of a drive without a model) is named once.
        match self.label.contains(&target) {
            true => self.label.clone(),
            false => format!("{} on {target}", self.label),
        }
    }

    /// Phase `i` and the rows a chart of per-interval values draws: its full rows, or every row when none
    /// is full (a phase shorter than an interval). A partial row (a phase's shorter last interval, the
    /// drain after a time bound, where the queue empties and nothing new is issued) has a rate that
    /// describes the queue emptying rather than the device, so it is not drawn, as it is not judged.
    pub fn plotted(&self, i: usize) -> (&PhaseResult, Cow<'_, [SeriesRow]>) {
        let (p, rows) = self.phase(i);
        let full = rows.iter().filter(|r| r.partial == 0).count();
        if full == rows.len() || full == 0 {
            return (p, Cow::Borrowed(rows));
        }
        let kept = rows.iter().filter(|r| r.partial == 0).cloned().collect();
        (p, Cow::Owned(kept))
    }

    /// The rows of phase `i` a chart draws ([`RunData::plotted`]) that lie entirely inside `window`
    /// (seconds from the phase's start; all of them without one): the rows a results window from the
    /// window's start to its end takes ([`WindowSpec::resolve`]), so that a zoom on `1400s..` draws the
    /// 600 one-second rows its window's statistics count, not the row ending at 1400 s as well.
    pub fn plotted_in(&self, i: usize, window: Option<(f64, f64)>) -> Cow<'_, [SeriesRow]> {
        let (_, rows) = self.plotted(i);
        let Some((a, b)) = window else {
            return rows;
        };
        let ns = |s: f64| (s * 1e9).round() as u64;
        let interval_ns = rows.first().map_or(0, |r| ns(r.interval_s));
        let spec = WindowSpec::Range {
            start_ns: ns(a),
            end_ns: Some(ns(b)),
        };
        let taken = spec.resolve(interval_ns, rows.len()).rows;
        match rows {
            Cow::Borrowed(r) => Cow::Borrowed(&r[taken]),
            Cow::Owned(mut v) => {
                v.truncate(taken.end);
                v.drain(..taken.start);
                Cow::Owned(v)
            }
        }
    }

    /// Phase `i` and its series rows (empty when it has none).
    pub fn phase(&self, i: usize) -> (&PhaseResult, &[SeriesRow]) {
        (
            &self.results.phases[i],
            self.series
                .get(i)
                .and_then(|s| s.as_deref())
                .unwrap_or_default(),
        )
    }
}

/// The target as named in legends and titles: its model when known, else its path; a simulated drive
/// by its parameters (`sim:capacity=2GiB,op=7%,dies=1`), since every simulated drive has the same model.
/// A folder merged from several hosts, whose `target` is the first host's, is named by its hosts:
/// `3 hosts: a.img + b.img + c.img` (the first three distinct paths, then `+ K more`), or `4 hosts, each
/// NAME` when every host ran on the same path.
pub fn target_name(results: &Results) -> String {
    let t = &results.target;
    let own = match &t.model {
        Some(m) if !m.trim().is_empty() && t.kind != crate::target::TargetKind::Sim => {
            m.trim().to_string()
        }
        _ => t.path.display().to_string(),
    };
    match merged_hosts(results) {
        None => own,
        Some((n, paths)) if paths.len() == 1 => format!("{n} hosts, each {own}"),
        Some((n, paths)) => format!("{n} hosts: {}", first_paths(&paths)),
    }
}

/// The first three of `paths` joined by ` + `, then `+ K more`.
pub fn first_paths(paths: &[&str]) -> String {
    let more = paths.len().saturating_sub(3);
    let mut shown = paths[..paths.len().min(3)].join(" + ");
    if more > 0 {
        shown.push_str(&format!(" + {more} more"));
    }
    shown
}

/// Whether `results` is the aggregate of a run on several targets: it has two hosts or more
/// (`cluster.hosts`, one per target) and its `target.path` joins their target paths with ` + ` (a folder
/// `wkrun merge` made keeps its first host's).
pub fn of_several_targets(results: &Results) -> bool {
    results.cluster.as_ref().is_some_and(|c| {
        let paths: Vec<&str> = c.hosts.iter().map(|h| h.target_path.as_str()).collect();
        c.hosts.len() >= 2 && results.target.path.to_str() == Some(paths.join(" + ").as_str())
    })
}

/// Whether `results`, read from `file`, is the aggregate of a run on several targets, by either of what the
/// run writes: its `target.path` joins its hosts' ([`of_several_targets`]), or a host's `results` names
/// the folder `tH-NAME` (`H` its place in `cluster.hosts`, as the run names each target's folder) and that
/// is beside `file`, whatever it is. A folder `wkrun merge` made has neither (its `target.path` is its
/// first host's, the hosts' results are where they were given): so neither one edited makes an aggregate
/// pass for a merge that is not held to its hosts.
pub fn aggregate_of_targets(file: &Path, results: &Results) -> bool {
    let Some(c) = results.cluster.as_ref().filter(|c| c.hosts.len() >= 2) else {
        return false;
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    of_several_targets(results)
        || c.hosts.iter().enumerate().any(|(h, host)| {
            folder_named(&host.results).is_some_and(|n| {
                n.starts_with(&format!("t{h}-")) && std::fs::symlink_metadata(dir.join(n)).is_ok()
            })
        })
}

/// The folder of a results file named `FOLDER/results.json` (any file name), when it is a plain name.
fn folder_named(results: &str) -> Option<&str> {
    let named = Path::new(results);
    named
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .filter(|n| super::plain_file_name(n) && named.file_name().is_some())
}

/// The targets' folders of the aggregate `results` of a run on several targets
/// ([`aggregate_of_targets`]), read from `file`: for each of `cluster.hosts`, the folder its `results`
/// names (`t1-b.img` of `OUT/t1-b.img/results.json`, as the run wrote it) taken in `file`'s folder, where
/// the run wrote it (the path as written is relative to where the run ran); none for other results.
///
/// # Errors
/// Per host, `cluster.hosts[h].results` and why it names no target's folder (not a file in a folder of a
/// plain name, or the folder an earlier host's names: each target has its own).
pub fn target_folders(file: &Path, results: &Results) -> Vec<Result<PathBuf, String>> {
    let Some(c) = results
        .cluster
        .as_ref()
        .filter(|_| aggregate_of_targets(file, results))
    else {
        return Vec::new();
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    let at = |h: usize| format!("{} (cluster.hosts[{h}].results)", file.display());
    let mut seen: Vec<&str> = Vec::new();
    c.hosts
        .iter()
        .enumerate()
        .map(|(h, host)| {
            let n = folder_named(&host.results).ok_or_else(|| {
                format!(
                    "{}: {:?} names no target's folder (FOLDER/results.json)",
                    at(h),
                    host.results
                )
            })?;
            if let Some(first) = seen.iter().position(|s| *s == n) {
                return Err(format!(
                    "{}: {:?} names the folder {n:?}, as cluster.hosts[{first}].results does: each target has its own",
                    at(h),
                    host.results
                ));
            }
            seen.push(n);
            Ok(dir.join(n))
        })
        .collect()
}

/// For a folder `wkrun merge` made from two hosts or more: their number and their distinct target
/// paths, in rank order. `None` for one run and for the aggregate of a run on several targets (whose
/// `target.path` already joins its targets' paths with ` + `).
pub fn merged_hosts(results: &Results) -> Option<(usize, Vec<&str>)> {
    let hosts = &results.cluster.as_ref()?.hosts;
    let paths: Vec<&str> = hosts.iter().map(|h| h.target_path.as_str()).collect();
    if hosts.len() < 2 || of_several_targets(results) {
        return None;
    }
    let mut distinct: Vec<&str> = Vec::new();
    for p in paths {
        if !distinct.contains(&p) {
            distinct.push(p);
        }
    }
    Some((hosts.len(), distinct))
}

/// What a run's figures add up: one target's run, the targets of a run on several
/// (`--target a --target b`, [`of_several_targets`]) or the hosts of a folder `wkrun merge` made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summed {
    /// One target's run.
    One,
    /// The aggregate of a run on this many targets.
    Targets(usize),
    /// A merge of this many hosts' runs.
    Hosts(usize),
}

impl Summed {
    /// What `results` adds up, from its `cluster.hosts` (two or more) and its `target.path`.
    pub fn of(results: &Results) -> Summed {
        match results.cluster.as_ref().map(|c| c.hosts.len()) {
            Some(n) if n >= 2 && of_several_targets(results) => Summed::Targets(n),
            Some(n) if n >= 2 => Summed::Hosts(n),
            _ => Summed::One,
        }
    }

    /// The mark of a sum in a column header or a label: `sum of 2 targets`, `merge of 3 hosts`; `None` for
    /// one target's run.
    pub fn mark(self) -> Option<String> {
        match self {
            Summed::One => None,
            Summed::Targets(n) => Some(format!("sum of {n} targets")),
            Summed::Hosts(n) => Some(format!("merge of {n} hosts")),
        }
    }
}

/// Reads `path` (a `results.json`) and every series CSV it names (`series_csv`, a file name in the results
/// file's folder; see [`read_results`]), and checks the rest as `wkrun validate` does
/// ([`super::validate::check_run`]).
///
/// # Errors
/// [`ReadError`] naming the file: unreadable, not a results document, or a series CSV that is missing or
/// has a row that is not a series row (with its line number).
pub fn load_run(path: &Path) -> Result<RunData, ReadError> {
    let run = load_run_unchecked(path)?;
    // What `wkrun validate` refuses, refused here too.
    super::validate::check_run(path, &run.results, &run.series)?;
    Ok(run)
}

/// [`load_run`] without `validate`'s checks of the histogram logs, traces and figures: for the aggregate of
/// the targets of the run in this very process, whose folders may be cut short (a full disk) and which the
/// aggregate's own check covers (`own_check`, in full).
///
/// # Errors
/// As [`load_run`], but those checks.
pub fn load_run_unchecked(path: &Path) -> Result<RunData, ReadError> {
    let results = read_results(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    // Results from before labels are named by their folder.
    let label = results.label.clone().unwrap_or_else(|| folder_name(path));
    let mut run = assemble(path.to_path_buf(), label, results, |name| {
        read_series(&dir.join(name)).map(|rows| (dir.join(name), rows))
    })?;
    for p in &run.results.phases {
        // A device CSV is an addition to the results: one that is gone leaves the phase without its chart.
        let csv = p
            .device
            .as_ref()
            .and_then(|d| d.device_csv.as_ref())
            .filter(|c| dir.join(c).exists());
        run.device
            .push(csv.map(|c| read_device(&dir.join(c))).transpose()?);
    }
    Ok(run)
}

/// A run of `results` named `label`, its series CSVs read by `series_of` (given a phase's `series_csv`, the
/// CSV's path for errors and its rows); each CSV must have as many rows as the phase has intervals.
///
/// # Errors
/// The first [`ReadError`] of `series_of`, or [`ReadError::Series`] for a CSV of the wrong length.
pub fn assemble(
    file: PathBuf,
    label: String,
    results: Results,
    mut series_of: impl FnMut(&str) -> Result<(PathBuf, Vec<SeriesRow>), ReadError>,
) -> Result<RunData, ReadError> {
    let mut series = Vec::with_capacity(results.phases.len());
    for p in &results.phases {
        let Some(name) = &p.series_csv else {
            series.push(None);
            continue;
        };
        let (path, rows) = series_of(name)?;
        row_count(&path, &p.name, rows.len(), p.intervals)?;
        series.push(Some(rows));
    }
    Ok(RunData {
        file,
        label,
        results,
        series,
        device: Vec::new(),
    })
}

/// Whether the series CSV `path` of phase `phase` has as many rows (`rows`) as the phase's results count
/// (`intervals`, when they count them): a CSV cut short (or grown) is not the phase's series.
///
/// # Errors
/// [`ReadError::Series`] saying both numbers.
pub fn row_count(
    path: &Path,
    phase: &str,
    rows: usize,
    intervals: Option<u64>,
) -> Result<(), ReadError> {
    match intervals.filter(|&n| n != rows as u64) {
        None => Ok(()),
        Some(n) => Err(ReadError::Series {
            path: path.to_path_buf(),
            why: format!("{rows} rows, where results.json says phase {phase:?} has {n} intervals"),
        }),
    }
}

/// The rows of a series CSV (`NN-<phase>.csv`): at most [`super::bounded::MAX_SERIES_ROWS`] rows of at most
/// [`super::bounded::MAX_SERIES_LINE`] bytes; a symbolic link is refused, not followed.
///
/// # Errors
/// [`ReadError::Series`] naming the file and, for a bad row, its line; [`ReadError::Limit`] for a file
/// past a limit (a device such as `/dev/zero` included).
pub fn read_series(path: &Path) -> Result<Vec<SeriesRow>, ReadError> {
    let bad = |why: String| ReadError::Series {
        path: path.to_path_buf(),
        why,
    };
    // The CSV is a file next to the results file, not a link to something elsewhere.
    let file = crate::spec::load::open_regular(path, true).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => bad("a symbolic link; not followed".into()),
        _ => bad(e.to_string()),
    })?;
    series_rows(path, file)
}

/// The rows of a series CSV read from `source` (a file, or the text the results library keeps), within the
/// limits [`read_series`] states; `path` names it in errors.
///
/// # Errors
/// As [`read_series`].
pub fn series_rows(path: &Path, source: impl std::io::Read) -> Result<Vec<SeriesRow>, ReadError> {
    let bad = |why: String| ReadError::Series {
        path: path.to_path_buf(),
        why,
    };
    // A limit passed names the limit; any other error the line it is on.
    let limit = |e: &csv::Error| match e.kind() {
        csv::ErrorKind::Io(e) => exceeded(e).map(|x| ReadError::Limit {
            path: path.to_path_buf(),
            why: x.0.clone(),
        }),
        _ => None,
    };
    let mut r = csv::Reader::from_reader(Bounded::series(source));
    // The header first: the rows' iterator would take an error reading it for the end of the file. It must
    // be a series CSV's (an empty or binary file is not; a series written before the `errors` column
    // existed lacks only that one).
    let header = r
        .headers()
        .map_err(|e| limit(&e).unwrap_or_else(|| bad(format!("line 1: {e}"))))?;
    let Some((dirs, errors)) = series_csv::read_header(header) else {
        return Err(bad(format!(
            "line 1 is not a series CSV's header (want {})",
            series_csv::header(&Direction::CORE).join(",")
        )));
    };
    let mut rows = Vec::new();
    for (i, rec) in r.records().enumerate() {
        // Line 1 is the header.
        let at = |e: String| bad(format!("line {}: {e}", i + 2));
        let rec = rec.map_err(|e| limit(&e).unwrap_or_else(|| at(e.to_string())))?;
        let row = series_csv::parse_row(&rec, &dirs, errors).map_err(at)?;
        if let Some((column, why)) = row.out_of_range() {
            return Err(at(format!("column {column}: {why}")));
        }
        if let Some(why) = out_of_order(rows.last(), &row) {
            return Err(at(why));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Why `row` cannot follow `before` (the row before it, if any) in a series: its time `t_s` before the row
/// before's, or equal to it for a row that lasts some time (rows go forward in time, one per interval), its
/// start (`t_s − interval_s`) before the row before's end (rows do not overlap; attack 21 A4: a row's
/// `t_s` 1.5 of `interval_s` 1.0 after a row ending at 1.0 passed) or before 0 for the first, or I/Os
/// counted in a whole row of no length (`interval_s` 0; a negative or not finite one is refused by
/// [`SeriesRow::out_of_range`]). A run can write one row of no length: the last, partial, when the phase's
/// last completion fell exactly on an interval's start (it is counted in the interval it starts).
///
/// The start's rounding: the writer makes `t_s` and `interval_s` of a row `[s, e)` as `e / 1e9` and
/// `(e − s) / 1e9` from whole nanoseconds (`SeriesRow::new`, and the merged grid's rows), each within half
/// a unit in the last place of `t_s`, and the CSV writes each f64 in its shortest form that reads back to
/// the same bits; the row before's end is `s / 1e9` the same way. So `t_s − interval_s` is the row before's
/// `t_s` within 2 units in the last place of `t_s` (the subtraction's own rounding included): refused past
/// 4 ([`ROUNDING`](crate::results::check::ROUNDING) of `t_s`).
fn out_of_order(before: Option<&SeriesRow>, row: &SeriesRow) -> Option<String> {
    let num = crate::units::readable_float;
    let no_length = row.interval_s == 0.0;
    if let Some(before) = before.filter(|b| row.t_s < b.t_s || (row.t_s == b.t_s && !no_length)) {
        return Some(format!(
            "t_s {} is not after the row before's {}: a series' rows go forward in time",
            num(row.t_s),
            num(before.t_s)
        ));
    }
    let end_before = before.map_or(0.0, |b| b.t_s);
    let start = row.t_s - row.interval_s;
    if start < end_before - crate::results::check::ROUNDING * row.t_s {
        let which = match before {
            Some(_) => format!("the row before's end, t_s {}", num(end_before)),
            None => "0, the phase's start".to_string(),
        };
        return Some(format!(
            "t_s {} less interval_s {} starts it at {}, before {which}: a series' rows do not overlap",
            num(row.t_s),
            num(row.interval_s),
            num(start)
        ));
    }
    let ios = row
        .by_dir
        .iter()
        .fold(0u64, |n, (_, c)| n.saturating_add(c.ops));
    (ios > 0 && row.interval_s <= 0.0 && row.partial == 0).then(|| {
        format!(
            "interval_s {} with {ios} I/Os counted in a whole row (partial 0): an interval that counts I/Os lasts some time",
            num(row.interval_s)
        )
    })
}

/// The name of the folder holding `path`, or the path itself when it has none.
pub fn folder_name(path: &Path) -> String {
    path.parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// How each of the results `files` names its folder, to tell runs apart: the folder's name (`used`), or the
/// folder as given where another file's folder has that name too (`a/used` beside `b/used`: two runs on one
/// drive, each kept in a folder `used`).
pub fn folder_names(files: &[&Path]) -> Vec<String> {
    let names: Vec<String> = files.iter().map(|f| folder_name(f)).collect();
    files
        .iter()
        .zip(&names)
        .map(
            |(f, n)| match names.iter().filter(|m| *m == n).count() > 1 {
                true => f
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or(".".into(), |p| p.display().to_string()),
                false => n.clone(),
            },
        )
        .collect()
}

/// Makes the runs' labels unique: runs that share a label (two runs on one drive) are told apart by their
/// folders, `LABEL (FOLDER)` ([`folder_names`]), and what is still shared (one folder given twice) gets
/// ` #1`, ` #2`, ... in run order.
pub fn name_runs(runs: &mut [RunData]) {
    let shared = |runs: &[RunData], l: &str| runs.iter().filter(|r| r.label == l).count() > 1;
    let files: Vec<&Path> = runs.iter().map(|r| r.file.as_path()).collect();
    let told = folder_names(&files);
    let folders: Vec<Option<String>> = runs
        .iter()
        .zip(told)
        .map(|(r, f)| (shared(runs, &r.label) && r.results.label.is_some()).then_some(f))
        .collect();
    for (r, f) in runs.iter_mut().zip(folders) {
        if let Some(f) = f {
            r.label = format!("{} ({f})", r.label);
        }
    }
    let labels: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for r in runs.iter_mut() {
        if labels.iter().filter(|l| **l == r.label).count() > 1 {
            let n = seen.entry(r.label.clone()).or_insert(0);
            *n += 1;
            r.label = format!("{} #{n}", r.label);
        }
    }
}

/// The phases of one name across runs: one set of plots.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseGroup {
    /// The phase name.
    pub name: String,
    /// Its kind (that of its first appearance).
    pub kind: PhaseKind,
    /// `(run, phase index in that run's results)`, in run order; a run without the phase has no entry.
    pub members: Vec<(usize, usize)>,
}

/// The phases that issue I/O (not erases), one group per name: the first run's phases in its order, then
/// those only later runs have, in the order they first appear (as `wkrun compare` matches them).
pub fn phase_groups(runs: &[RunData]) -> Vec<PhaseGroup> {
    let mut groups: Vec<PhaseGroup> = Vec::new();
    for (ri, run) in runs.iter().enumerate() {
        for (pi, p) in run.results.phases.iter().enumerate() {
            if p.kind == PhaseKind::Erase {
                continue;
            }
            match groups.iter_mut().find(|g| g.name == p.name) {
                Some(g) => {
                    if !g.members.iter().any(|&(r, _)| r == ri) {
                        g.members.push((ri, pi));
                    }
                }
                None => groups.push(PhaseGroup {
                    name: p.name.clone(),
                    kind: p.kind,
                    members: vec![(ri, pi)],
                }),
            }
        }
    }
    groups
}

/// Phases that one phase of the spec became through a sweep or a matrix: the same base name (the name
/// before `[`), the same kind, and labels. One chart across them.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelGroup {
    /// The base name (`saturate` for `saturate[op=93%]`).
    pub base: String,
    /// The labels' names, in the order of the first phase's labels: a sweep's name (`["op"]` for a sweep
    /// `op` of `span`), else the matrix key (`["bs", "read"]`), as phase names and `--by` give them.
    pub keys: Vec<String>,
    /// The phases' full names, in order of first appearance: the chart's categories.
    pub phases: Vec<String>,
    /// The label values of each phase, joined with `, ` (`4KiB, 65`): the category names.
    pub values: Vec<String>,
}

/// Where the phase `name` of a label group is in `results`: the phase of that name with labels, as
/// `wkrun compare --by` reads a member ([`super::members::split`]); a phase of that name without labels (a
/// fio job named `4k-read[filled=25%]`, whose JSON has no labels) is no member (trial 28 M3).
pub fn member_at(results: &Results, name: &str) -> Option<usize> {
    results
        .phases
        .iter()
        .position(|p| p.name == name && !p.labels.is_empty())
}

/// The label groups of the runs with at least two phases, in order of first appearance.
pub fn label_groups(runs: &[RunData]) -> Vec<LabelGroup> {
    let mut groups: Vec<(PhaseKind, LabelGroup)> = Vec::new();
    for run in runs {
        for p in &run.results.phases {
            if p.kind == PhaseKind::Erase || p.labels.is_empty() {
                continue;
            }
            let base = p.name.split('[').next().unwrap_or(&p.name).to_string();
            let keys: Vec<String> = p
                .labels
                .iter()
                .map(|l| super::members::label_name(l).to_string())
                .collect();
            let value = p
                .labels
                .iter()
                .map(|l| l.value.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            let g = match groups
                .iter_mut()
                .find(|(k, g)| *k == p.kind && g.base == base && g.keys == keys)
            {
                Some((_, g)) => g,
                None => {
                    groups.push((
                        p.kind,
                        LabelGroup {
                            base,
                            keys,
                            phases: Vec::new(),
                            values: Vec::new(),
                        },
                    ));
                    &mut groups.last_mut().expect("just pushed").1
                }
            };
            if !g.phases.contains(&p.name) {
                g.phases.push(p.name.clone());
                g.values.push(value);
            }
        }
    }
    groups
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| g.phases.len() >= 2)
        .collect()
}

/// Total IOPS (reads and writes) of each full row of a series (rows with `partial = 0`); all rows when none
/// is full.
pub fn total_iops_full_rows(rows: &[SeriesRow]) -> Vec<f64> {
    let full: Vec<f64> = rows
        .iter()
        .filter(|r| r.partial == 0)
        .map(|r| r.rate(|d| d.iops))
        .collect();
    if full.is_empty() {
        rows.iter().map(|r| r.rate(|d| d.iops)).collect()
    } else {
        full
    }
}

#[cfg(test)]
mod label_tests {
    use super::label_groups;
    use crate::report::testing;

    /// anthology's `filled` sweep varies `span`: its members are a group named `filled`, not `span`; a
    /// matrix list (no sweep) goes by its key.
    #[test]
    fn a_sweeps_members_are_named_by_the_sweep() {
        let member = |name: &str, i: usize, v: &str| {
            let mut p = testing::labelled(name, i, &[("span", v)]);
            p.labels[0].sweep = Some("filled".into());
            (p, None)
        };
        let run = testing::run(
            "a",
            "/dev/x",
            vec![
                member("read[filled=25%]", 0, "25%"),
                member("read[filled=100%]", 1, "100%"),
                (
                    testing::labelled("lat[bs=4KiB]", 2, &[("bs", "4KiB")]),
                    None,
                ),
                (
                    testing::labelled("lat[bs=8KiB]", 3, &[("bs", "8KiB")]),
                    None,
                ),
            ],
        );
        let g = label_groups(&[run]);
        let names: Vec<(&str, &[String], &[String])> = g
            .iter()
            .map(|g| (g.base.as_str(), &g.keys[..], &g.values[..]))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "read",
                    &["filled".to_string()][..],
                    &["25%".to_string(), "100%".to_string()][..]
                ),
                (
                    "lat",
                    &["bs".to_string()][..],
                    &["4KiB".to_string(), "8KiB".to_string()][..]
                ),
            ]
        );
    }
}

#[cfg(test)]
mod merged_name_tests {
    use crate::report::testing;
    use crate::results::Cluster;

    /// A run with `cluster.hosts` on `paths`, its `target` the first host's (as `wkrun merge` writes it) or
    /// the ` + ` join (as a several-target aggregate does).
    fn merged(paths: &[&str], target: &str) -> super::RunData {
        let mut r = testing::series_run("m", target, vec![]);
        r.results.target.kind = crate::target::TargetKind::File;
        r.results.cluster = Some(Cluster {
            hosts: paths.iter().map(|p| testing::cluster_host(p)).collect(),
            alignment: String::new(),
        });
        r
    }

    /// A folder merged from hosts is named by its hosts, not by the first host's target; a several-target
    /// aggregate and a single run keep their own name.
    #[test]
    fn a_merged_folder_is_named_by_its_hosts() {
        let r = merged(&["t0.img", "t1.img", "t2.img"], "t0.img");
        assert_eq!(r.target_name(), "3 hosts: t0.img + t1.img + t2.img");
        assert_eq!(r.legend(), "m on 3 hosts: t0.img + t1.img + t2.img");
        let five = ["a", "b", "c", "d", "e"];
        assert_eq!(
            merged(&five, "a").target_name(),
            "5 hosts: a + b + c + 2 more"
        );
        let mut same = merged(&["/dev/nvme0n1"; 4], "/dev/nvme0n1");
        assert_eq!(same.target_name(), "4 hosts, each /dev/nvme0n1");
        same.results.target.model = Some("Drive X".into());
        assert_eq!(same.target_name(), "4 hosts, each Drive X");
        let aggregate = merged(&["a.img", "b.img"], "a.img + b.img");
        assert_eq!(aggregate.target_name(), "a.img + b.img");
        assert_eq!(merged(&["t0.img"], "t0.img").target_name(), "t0.img");
        assert_eq!(
            testing::series_run("s", "t.img", vec![]).target_name(),
            "t.img"
        );
    }
}
