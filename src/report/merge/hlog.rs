//! One phase's histogram logs merged across hosts (or targets): each grid interval's histogram is the sum,
//! bucket by bucket, of the histograms of the hosts' rows the series merge put in it
//! ([`super::series::cell_of`]), so the merged rows' percentile columns are those of the union of the
//! hosts' latencies, never averaged percentiles. The hosts' logs are read side by side, one row at a time.

use super::series::cell_of;
use crate::report::runs::RunData;
use crate::results::PhaseResult;
use crate::results::hlog::{LineMaker, open};
use crate::results::series_csv::{SeriesRow, directions};
use crate::stats::latency::new_histogram;
use crate::stats::row_latency::RowHists;

/// The merged log of the phase at position `at[h]` of each run `h` (`parts[h]`), its rows on the grid of
/// `rows` (the merged series, whose percentile columns it sets); `None` when a host has no log (results of
/// a version before logs, or a phase without a series): the merged rows then have no percentiles.
///
/// # Errors
/// A log that cannot be read, or does not hold a histogram for each of its host's rows.
pub fn merge(
    runs: &[RunData],
    (at, parts): (&[usize], &[&PhaseResult]),
    shift: impl Fn(usize) -> u64,
    interval_ns: u64,
    rows: &mut [SeriesRow],
) -> Result<Option<Vec<u8>>, String> {
    let mut hosts = Vec::with_capacity(runs.len());
    for (h, p) in parts.iter().enumerate() {
        let Some(name) = &p.hist_log else {
            return Ok(None);
        };
        let path = runs[h]
            .file
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join(name);
        // Read a line at a time, each within a bound; never through a link, from a FIFO or a device.
        let reader = open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let own = runs[h]
            .series
            .get(at[h])
            .and_then(|s| s.as_deref())
            .unwrap_or_default();
        hosts.push((path, reader, own, 0usize));
    }
    let dirs = directions(|d| rows.iter().any(|r| r[d].ops > 0));
    let mut lines = LineMaker::new(dirs);
    let mut out = lines.header().into_bytes();
    let n = rows.len();
    for (k, row) in rows.iter_mut().enumerate() {
        let mut sum = RowHists::default();
        for (h, (path, reader, own, next)) in hosts.iter_mut().enumerate() {
            while *next < own.len() && cell_of(shift(h), &own[*next], interval_ns) <= k as u64 {
                let (_, hists) = reader
                    .next_row()
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .ok_or_else(|| {
                        format!(
                            "{}: {} histograms, for {} series rows",
                            path.display(),
                            reader.rows(),
                            own.len()
                        )
                    })?;
                for (d, hist) in hists.iter() {
                    if let Some(hist) = hist.as_ref().filter(|x| !x.is_empty()) {
                        // Same bounds (the reader checks them): adding cannot fail.
                        let _ = sum[d].get_or_insert_with(new_histogram).add(hist);
                    }
                }
                *next += 1;
            }
        }
        let max = row
            .by_dir
            .map(|_, c| c.lat_max_us.map_or(0, |us| (us * 1e3).round() as u64));
        row.set_percentiles(&sum, |d| max[d]);
        let end_ns = (row.t_s * 1e9).round() as u64;
        let start_ns = end_ns.saturating_sub((row.interval_s * 1e9).round() as u64);
        lines
            .row((start_ns, end_ns), &sum, &mut out)
            .map_err(|e| format!("merged histogram log, row {k} of {n}: {e}"))?;
    }
    Ok(Some(out))
}
