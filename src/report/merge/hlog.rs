//! One phase's histogram logs merged across hosts (or targets): each grid interval's histogram is the sum,
//! bucket by bucket, of the histograms of the hosts' rows the series merge put in it
//! ([`super::series::cell_of`]), so the merged rows' percentile columns are those of the union of the
//! hosts' latencies, never averaged percentiles. The hosts' logs are read side by side, one row at a time.
//!
//! A host's fold (its collector fell behind: rows with empty histograms whose latencies its fold's last row
//! holds) makes a fold of the merged rows: a merged row holds, per direction, what was added since the
//! last merged row that held anything, once every host's rows put so far are in the histograms read so far;
//! until then its histogram is empty and it has no percentiles. So every merged row's histogram holds
//! exactly the I/Os its series row counts, or the merged rows of a fold, as `hlog::check_against` checks
//! (the series and the log used to disagree where one host's fold met another host's plain row).

use super::series::cell_of;
use crate::report::runs::RunData;
use crate::results::PhaseResult;
use crate::results::hlog::{LineMaker, RowReader, open};
use crate::results::series_csv::{SeriesRow, directions};
use crate::stats::latency::new_histogram;
use crate::stats::row_latency::RowHists;
use crate::vocab::{Direction, PerDir};

/// The merged log of the phase at position `at[h]` of each run `h` (`parts[h]`), its rows on the grid of
/// `rows` (the merged series, whose percentile columns it sets), and the folds met ([`Folds`]); `None` when
/// a host that began the phase has no log (results of a version before logs, or a phase without a series):
/// the merged rows then have no percentiles. A run that ended before the phase (`at[h]` is `None`) has
/// no rows and needs no log.
///
/// # Errors
/// A log that cannot be read, or does not hold a histogram for each of its host's rows.
pub fn merge(
    runs: &[RunData],
    (at, parts): (&[Option<usize>], &[&PhaseResult]),
    shift: impl Fn(usize) -> u64,
    interval_ns: u64,
    rows: &mut [SeriesRow],
) -> Result<Option<(Vec<u8>, Folds)>, String> {
    let mut hosts = Vec::with_capacity(runs.len());
    for (h, p) in parts.iter().enumerate() {
        let dir = runs[h].file.parent().unwrap_or(std::path::Path::new("."));
        let (path, reader) = match (at[h], &p.hist_log) {
            (None, _) => (dir.to_path_buf(), None),
            (Some(_), None) => return Ok(None),
            // Read a line at a time, each within a bound; never through a link, from a FIFO or a device.
            (Some(_), Some(name)) => {
                let path = dir.join(name);
                let reader = open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                (path, Some(reader))
            }
        };
        let own = (at[h].and_then(|i| runs[h].series.get(i)))
            .and_then(|s| s.as_deref())
            .unwrap_or_default();
        hosts.push(Host {
            path,
            reader,
            own,
            next: 0,
            owed: PerDir::default(),
            folded: 0,
        });
    }
    let dirs = directions(|d| rows.iter().any(|r| r[d].ops > 0));
    let mut lines = LineMaker::new(dirs);
    let mut out = lines.header().into_bytes();
    let mut fold = Fold::default();
    let mut merged_folded = 0;
    let n = rows.len();
    for (k, row) in rows.iter_mut().enumerate() {
        for (h, host) in hosts.iter_mut().enumerate() {
            host.add_rows(
                k as u64,
                |r| cell_of(shift(h), r, interval_ns),
                &mut fold.sum,
            )?;
        }
        let hists = fold.row(row, |d| hosts.iter().all(|x| x.owed[d] == 0));
        merged_folded += u64::from(hosts.iter().any(|x| x.owed.iter().any(|(_, &o)| o > 0)));
        let end_ns = (row.t_s * 1e9).round() as u64;
        let start_ns = end_ns.saturating_sub((row.interval_s * 1e9).round() as u64);
        lines
            .row((start_ns, end_ns), &hists, &mut out)
            .map_err(|e| format!("merged histogram log, row {k} of {n}: {e}"))?;
    }
    let folds = Folds {
        hosts: hosts.iter().map(|x| x.folded).collect(),
        merged: merged_folded,
    };
    Ok(Some((out, folds)))
}

/// The folds of a merged log: per host, its rows whose latencies are in a later row's (its collector fell
/// behind, or waited for a stalled worker), and the merged rows so folded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Folds {
    /// Per host, in order.
    pub hosts: Vec<u64>,
    /// Merged rows.
    pub merged: u64,
}

/// One host's log being read beside its series rows.
struct Host<'a> {
    path: std::path::PathBuf,
    /// `None` for a run that ended before the phase: it has no rows to read histograms for.
    reader: Option<RowReader<std::io::BufReader<std::fs::File>>>,
    own: &'a [SeriesRow],
    /// Its next row.
    next: usize,
    /// Per direction, the I/Os of its rows read so far that no histogram read so far holds: the rows of a
    /// fold of its own (its collector fell behind) whose latencies come with the fold's last row.
    owed: PerDir<u64>,
    /// Its rows read so far after which it owed latencies: the rows of its folds but their last.
    folded: u64,
}

impl Host<'_> {
    /// Reads the host's rows that go into merged row `k` (`cell` gives a row's) and adds their histograms
    /// into `sum`.
    fn add_rows(
        &mut self,
        k: u64,
        cell: impl Fn(&SeriesRow) -> u64,
        sum: &mut RowHists,
    ) -> Result<(), String> {
        while self.next < self.own.len() && cell(&self.own[self.next]) <= k {
            let path = self.path.display();
            let reader =
                (self.reader.as_mut()).ok_or_else(|| format!("{path}: no histogram log"))?;
            let (_, hists) = reader
                .next_row()
                .map_err(|e| format!("{}: {e}", self.path.display()))?
                .ok_or_else(|| {
                    format!(
                        "{}: {} histograms, for {} series rows",
                        self.path.display(),
                        reader.rows(),
                        self.own.len()
                    )
                })?;
            let row = &self.own[self.next];
            for d in Direction::ALL {
                let held = hists[d].as_ref().map_or(0, |h| h.len());
                let due = self.owed[d].saturating_add(row[d].ops);
                self.owed[d] = due.checked_sub(held).ok_or_else(|| {
                    format!(
                        "{}: row {}: the {d} histogram holds {held} latencies, more than the {due} {d}s of its rows",
                        self.path.display(),
                        self.next
                    )
                })?;
                if let Some(hist) = hists[d].as_ref().filter(|x| !x.is_empty()) {
                    // Same bounds (the reader checks them): adding cannot fail.
                    let _ = sum[d].get_or_insert_with(new_histogram).add(hist);
                }
            }
            self.folded += u64::from(self.owed.iter().any(|(_, &o)| o > 0));
            self.next += 1;
        }
        Ok(())
    }
}

/// The merged rows' latencies not yet written: per direction, the histograms added since the last merged
/// row that held them, and the largest latency of those rows, ns.
#[derive(Default)]
struct Fold {
    sum: RowHists,
    max: PerDir<u64>,
}

impl Fold {
    /// The histograms of merged `row` (whose percentiles it sets): per direction, everything added since
    /// the last row that held them when `settled` (no host owes latencies of its rows so far: each host's
    /// fold, if any, has ended), else none, and the row folded (no percentiles; its latencies come with a
    /// later row's, as a run's own fold).
    fn row(&mut self, row: &mut SeriesRow, settled: impl Fn(Direction) -> bool) -> RowHists {
        let mut out = RowHists::default();
        for d in Direction::ALL {
            let us = row[d].lat_max_us.map_or(0, |us| (us * 1e3).round() as u64);
            self.max[d] = self.max[d].max(us);
            if settled(d) {
                out[d] = self.sum[d].take();
            }
        }
        let max = self.max;
        row.set_percentiles(&out, |d| max[d]);
        for d in Direction::ALL {
            if settled(d) {
                self.max[d] = 0;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::hlog::check_against;
    use crate::stats::latency::record_into;

    /// A host's phase of 1 s rows: per row, its reads and the latencies its histogram holds (none: the
    /// row is folded into a later one, and has no percentiles), the log written beside `dir/results.json`.
    fn host(dir: &std::path::Path, label: &str, rows: &[(u64, &[u64])]) -> RunData {
        let mut lines = LineMaker::new(Direction::CORE.to_vec());
        let mut text = lines.header().into_bytes();
        let mut series = Vec::new();
        // A row's max is its own latencies' largest; a row folded into a later one takes that one's (the
        // fold's max must be its histogram's).
        let max_us = |k: usize| {
            rows[k..]
                .iter()
                .find_map(|(_, l)| l.iter().max())
                .map(|&ns| ns as f64 / 1e3)
        };
        for (k, &(reads, lats)) in rows.iter().enumerate() {
            let mut hists = RowHists::default();
            if !lats.is_empty() {
                let mut h = new_histogram();
                lats.iter().for_each(|&ns| record_into(&mut h, ns));
                hists[Direction::Read] = Some(h);
            }
            let mut row = testing::row(k as f64 + 1.0, reads, 0);
            row[Direction::Read].lat_pct_us = [None; 3];
            row[Direction::Read].lat_max_us = max_us(k);
            row.set_percentiles(&hists, |_| 20_000);
            let k = k as u64 * 1_000_000_000;
            lines
                .row((k, k + 1_000_000_000), &hists, &mut text)
                .unwrap();
            series.push(row);
        }
        std::fs::create_dir_all(dir.join(label)).unwrap();
        std::fs::write(dir.join(label).join("00-p.hlog"), &text).unwrap();
        let mut p = testing::phase("p", 0);
        p.hist_log = Some("00-p.hlog".into());
        let mut run = testing::run(label, "sim:a", vec![(p, Some(series))]);
        run.file = dir.join(label).join("results.json");
        run
    }

    /// One host's fold (rows 0 and 1 in its row 1) beside another's (its row 1 in its row 2): the merged
    /// rows fold until both have ended, and the merged log checks against the merged series, holding every
    /// read once. (The merged row 0 held host b's 4 reads of the 6 the series counted.)
    #[test]
    fn folds_of_different_hosts_make_one_merged_fold() {
        let d = tempfile::tempdir().unwrap();
        let a = host(
            d.path(),
            "a",
            &[
                (2, &[]),
                (3, &[1_000, 2_000, 3_000, 4_000, 5_000]),
                (1, &[6_000]),
            ],
        );
        let b = host(
            d.path(),
            "b",
            &[
                (4, &[1_000, 1_000, 1_000, 1_000]),
                (1, &[]),
                (2, &[7_000, 8_000, 9_000]),
            ],
        );
        let runs = [a, b];
        let parts: Vec<&PhaseResult> = runs.iter().map(|r| &r.results.phases[0]).collect();
        let hosts: Vec<super::super::series::HostSeries<'_>> = runs
            .iter()
            .map(|r| super::super::series::HostSeries {
                shift_ns: 0,
                rows: r.series[0].as_deref().unwrap(),
            })
            .collect();
        let mut rows = super::super::series::merge_rows(&hosts, 1_000_000_000).unwrap();
        let (log, folds) = merge(
            &runs,
            (&[Some(0), Some(0)], &parts),
            |_| 0,
            1_000_000_000,
            &mut rows,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            folds,
            Folds {
                hosts: vec![1, 1],
                merged: 2
            }
        );
        assert_eq!(check_against(&log, &rows), Ok(3));
        let mut r = RowReader::new(&log).unwrap();
        let held: Vec<u64> = (0..3)
            .map(|_| {
                r.next_row().unwrap().unwrap().1[Direction::Read]
                    .as_ref()
                    .map_or(0, |h| h.len())
            })
            .collect();
        assert_eq!(held, [0, 0, 13]);
        let ops: Vec<u64> = rows.iter().map(|r| r[Direction::Read].ops).collect();
        assert_eq!(ops, [6, 4, 3]);
        assert_eq!(rows[0][Direction::Read].lat_pct_us, [None; 3]);
        assert!(rows[2][Direction::Read].lat_pct_us[0].is_some());
    }
}
