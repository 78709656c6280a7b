//! A phase's parts in the report: a table of its workers (`phases[].workers`, with `workers` above 1) and
//! of its hosts or targets (`phases[].hosts`, a folder `wkrun merge` made, or the aggregate of several
//! targets), one row each with what the results hold for it: I/Os, IOPS, MB/s, mean and p99 latency per
//! direction, its time; where a part of the phase trimmed, trims are a third direction there too (their
//! count and latency columns). Numbers are read, never recomputed (IOPS is `read.iops` + `write.iops`, and
//! `trim.iops` for a part that trimmed, MB/s the directions' `bw_bytes_per_s` / 10⁶, as the phase's
//! total), with the decimals of the phase's summary table.

use super::html::esc;
use super::runs::RunData;
use crate::results::{DirStats, PhaseResult};
use std::fmt::Write;

/// The columns every part's row shares, after its name's: with `trims` (a phase whose parts trimmed) a
/// trims column after the writes' and the trims' mean and p99 latency after the writes'.
fn head(trims: bool) -> String {
    let (count, lat) = match trims {
        true => (
            "<th>trims</th>",
            "<th>trim mean (µs)</th><th>trim p99 (µs)</th>",
        ),
        false => ("", ""),
    };
    format!(
        "<th>reads</th><th>writes</th>{count}<th>IOPS</th><th>MB/s</th>\
<th>read mean (µs)</th><th>read p99 (µs)</th><th>write mean (µs)</th><th>write p99 (µs)</th>{lat}<th>time (s)</th>"
    )
}

/// A part's cells: its I/Os, IOPS and MB/s (every direction's, `trim` included where it has one), mean and
/// p99 latency per direction (`–` without), its time; with `trims`, as [`head`] says, its trims (0 for a
/// part without).
fn cells(
    read: &DirStats,
    write: &DirStats,
    trim: Option<&DirStats>,
    secs: Option<f64>,
    trims: bool,
) -> String {
    let all = || [Some(read), Some(write), trim].into_iter().flatten();
    let mut o = format!("<td>{}</td><td>{}</td>", read.ops, write.ops);
    if trims {
        let _ = write!(o, "<td>{}</td>", trim.map_or(0, |t| t.ops));
    }
    let _ = write!(
        o,
        "<td>{:.1}</td><td>{:.2}</td>",
        all().map(|d| d.iops).sum::<f64>(),
        all().map(|d| d.bw_bytes_per_s).sum::<f64>() / 1e6
    );
    let lat_of = [Some(read), Some(write)]
        .into_iter()
        .chain(trims.then_some(trim));
    for d in lat_of {
        match d.and_then(|d| d.latency_ns.as_ref().filter(|_| d.ops > 0)) {
            Some(l) => {
                let _ = write!(
                    o,
                    "<td>{:.1}</td><td>{:.1}</td>",
                    l.mean / 1e3,
                    l.p99 as f64 / 1e3
                );
            }
            None => o.push_str("<td>–</td><td>–</td>"),
        }
    }
    match secs {
        Some(t) => {
            let _ = write!(o, "<td>{t:.3}</td>");
        }
        None => o.push_str("<td>–</td>"),
    }
    o
}

/// Whether any of these parts trimmed (then their table has the trims' columns).
fn any_trims<'a>(trims: impl IntoIterator<Item = Option<&'a DirStats>>) -> bool {
    trims.into_iter().flatten().any(|t| t.ops > 0)
}

/// The workers' table of run `run`'s phase `p`, headed by the run's label when `named`; empty with fewer
/// than two workers.
pub fn workers_table(run: &RunData, p: &PhaseResult, named: bool) -> String {
    if p.workers.len() < 2 {
        return String::new();
    }
    let trims = any_trims(p.workers.iter().map(|w| w.trim.as_ref()));
    let mut o = format!(
        "<h3>{}{} workers</h3>\n<div class=\"scroll\"><table class=\"workers\"><thead><tr><th class=\"l\">worker</th><th class=\"l\">part of the span (bytes)</th>{}</tr></thead><tbody>",
        if named {
            format!("{}: ", esc(&run.label))
        } else {
            String::new()
        },
        p.workers.len(),
        head(trims)
    );
    for w in &p.workers {
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td class=\"l\">[{}, {})</td>{}</tr>",
            w.worker,
            w.span_start_bytes,
            w.span_start_bytes + w.span_bytes,
            cells(&w.read, &w.write, w.trim.as_ref(), w.duration_s, trims)
        );
    }
    o.push_str("</tbody></table></div>\n<p class=\"meta\">Each worker's IOPS and MB/s are over the phase's time (they add up to the phase's); its time runs from the phase's start to its last completion.</p>\n");
    o
}

/// The hosts' (or targets') table of run `run`'s phase `p`, headed by the run's label when `named`; empty
/// without `phases[].hosts`.
pub fn hosts_table(run: &RunData, p: &PhaseResult, named: bool) -> String {
    if p.hosts.is_empty() {
        return String::new();
    }
    let hosts = run.results.cluster.as_ref().map(|c| &c.hosts[..]);
    // Parts that all ran on one machine (the targets of one run, or runs merged from one host) are its
    // targets.
    let one_host = hosts
        .and_then(|h| h.split_first())
        .filter(|(first, rest)| rest.iter().all(|h| h.hostname == first.hostname))
        .map(|(first, _)| first.hostname.as_str());
    // Ranks a launcher started (their rank recorded) are hosts of a merge even on one machine; parts
    // without a rank are the targets of one run.
    let ranks = p.hosts.iter().any(|h| h.rank.is_some());
    let what = match one_host {
        Some(name) if p.hosts.len() > 1 && ranks => {
            format!("{} hosts (ranks) on machine {}", p.hosts.len(), esc(name))
        }
        Some(name) if p.hosts.len() > 1 => {
            format!("{} targets on host {}", p.hosts.len(), esc(name))
        }
        _ => format!("{} hosts", p.hosts.len()),
    };
    let trims = any_trims(p.hosts.iter().map(|h| h.trim.as_ref()));
    let mut o = format!(
        "<h3>{}{what}</h3>\n<div class=\"scroll\"><table class=\"hosts\"><thead><tr><th class=\"l\">host</th><th class=\"l\">rank</th><th class=\"l\">host name</th><th class=\"l\">target</th>{}</tr></thead><tbody>",
        if named {
            format!("{}: ", esc(&run.label))
        } else {
            String::new()
        },
        head(trims)
    );
    for h in &p.hosts {
        let info = hosts.and_then(|c| c.get(h.host));
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td>{}</tr>",
            h.host,
            h.rank.map_or("–".to_string(), |r| r.to_string()),
            esc(info.map_or("–", |i| i.hostname.as_str())),
            esc(info.map_or("–", |i| i.target_path.as_str())),
            cells(
                &h.read,
                &h.write,
                h.trim.as_ref(),
                Some(h.duration_s),
                trims
            )
        );
    }
    o.push_str("</tbody></table></div>\n<p class=\"meta\">Each host's numbers are its own results' (rates over its own time); the phase's row above is the hosts together over the cluster's span.</p>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{latency, phase, run};
    use crate::results::{Cluster, ClusterHost, HostPhase, Status, WorkerResult};

    /// The text of every `<td>` of the table in `html` with class `class`, row by row.
    fn rows(html: &str, class: &str) -> Vec<Vec<String>> {
        let start = html
            .find(&format!("<table class=\"{class}\">"))
            .expect("table");
        let body = &html[start..html[start..].find("</table>").expect("end") + start];
        body.split("<tr>")
            .skip(2)
            .map(|r| {
                r.split("<td")
                    .skip(1)
                    .map(|c| {
                        let c = &c[c.find('>').expect("td") + 1..];
                        c[..c.find("</td>").expect("</td>")].to_string()
                    })
                    .collect()
            })
            .collect()
    }

    fn worker(i: u32, reads: u64, writes: u64, secs: f64, t: Option<f64>) -> WorkerResult {
        WorkerResult {
            worker: i,
            span_start_bytes: u64::from(i) << 20,
            span_bytes: 1 << 20,
            seed: 7,
            duration_s: t,
            read: DirStats::new(
                reads,
                reads * 4096,
                secs,
                (reads > 0).then(|| latency(1, 20_500, 30_000, 45_250, 50_000, 60_000)),
            ),
            write: DirStats::new(
                writes,
                writes * 4096,
                secs,
                (writes > 0).then(|| latency(1, 363_000, 400_000, 910_400, 1_000_000, 2_000_000)),
            ),
            trim: None,
            flushes: None,
            errors: 0,
        }
    }

    #[test]
    fn the_workers_cells_are_the_results_numbers() {
        let mut p = phase("w", 0);
        p.duration_s = 5.0;
        p.workers = vec![
            worker(0, 0, 33_868, 5.0, Some(5.000_152)),
            worker(1, 100, 69_313, 5.0, None),
        ];
        let r = run("a", "sim:a", vec![(p.clone(), None)]);
        let html = workers_table(&r, &p, false);
        assert!(html.starts_with("<h3>2 workers</h3>"), "{html}");
        // 33868 writes over 5 s: 6773.6 IOPS, 27.74 MB/s (33868 × 4096 / 5 / 10⁶ = 27.7446...); latencies µs.
        assert_eq!(
            rows(&html, "workers"),
            vec![
                vec![
                    "0",
                    "[0, 1048576)",
                    "0",
                    "33868",
                    "6773.6",
                    "27.74",
                    "–",
                    "–",
                    "363.0",
                    "910.4",
                    "5.000"
                ],
                vec![
                    "1",
                    "[1048576, 2097152)",
                    "100",
                    "69313",
                    "13882.6",
                    "56.86",
                    "20.5",
                    "45.2",
                    "363.0",
                    "910.4",
                    "–"
                ]
            ]
        );
        // One worker (or none): no table; with several runs the heading names the run.
        assert!(workers_table(&r, &phase("w", 0), false).is_empty());
        assert!(workers_table(&r, &p, true).starts_with("<h3>a: 2 workers</h3>"));
    }

    /// A phase whose parts trimmed: both tables get a trims column and the trims' latency columns, the
    /// trims count in IOPS and MB/s, and a part without trims shows 0 and dashes.
    #[test]
    fn parts_that_trimmed_have_trim_columns() {
        let mut p = phase("w", 0);
        p.duration_s = 5.0;
        let mut a = worker(0, 0, 1_000, 5.0, Some(5.0));
        // 500 trims of 4 KiB over 5 s: 100 IOPS, 0.4096 MB/s; mean 80 µs, p99 120 µs.
        a.trim = Some(DirStats::new(
            500,
            500 * 4096,
            5.0,
            Some(latency(1, 80_000, 0, 120_000, 0, 0)),
        ));
        p.workers = vec![a, worker(1, 100, 2_000, 5.0, None)];
        let r = run("a", "sim:a", vec![(p.clone(), None)]);
        let html = workers_table(&r, &p, false);
        assert!(
            html.contains("<th>writes</th><th>trims</th><th>IOPS</th>"),
            "{html}"
        );
        assert!(
            html.contains("<th>write p99 (µs)</th><th>trim mean (µs)</th><th>trim p99 (µs)</th><th>time (s)</th>"),
            "{html}"
        );
        // Worker 0: 1000 writes + 500 trims over 5 s = 300.0 IOPS; (1000 + 500) × 4096 / 5 / 10⁶ = 1.2288 MB/s.
        // Worker 1: 100 reads + 2000 writes = 420.0 IOPS, 2100 × 4096 / 5 / 10⁶ = 1.72032 MB/s.
        let joined = |html: &str, class: &str| -> Vec<String> {
            rows(html, class).iter().map(|r| r.join(" ")).collect()
        };
        assert_eq!(
            joined(&html, "workers"),
            [
                "0 [0, 1048576) 0 1000 500 300.0 1.23 – – 363.0 910.4 80.0 120.0 5.000",
                "1 [1048576, 2097152) 100 2000 0 420.0 1.72 20.5 45.2 363.0 910.4 – – –"
            ]
        );
        // The hosts' table: host 0 trimmed 200 in 2 s (100.0 trim IOPS), host 1 none.
        let mut q = phase("w", 0);
        let host = |i: usize, trims: u64| HostPhase {
            host: i,
            rank: None,
            stopped_in: None,
            started_at: Some("2026-01-01T00:00:00.000Z".into()),
            series_t0_unix_ns: None,
            duration_s: 2.0,
            completed: true,
            span_bytes: Some(1 << 20),
            read: DirStats::new(
                400,
                400 * 4096,
                2.0,
                Some(latency(1, 10_000, 0, 30_000, 0, 0)),
            ),
            write: DirStats::zero(),
            trim: (trims > 0).then(|| {
                DirStats::new(
                    trims,
                    trims * 4096,
                    2.0,
                    Some(latency(1, 50_000, 0, 70_000, 0, 0)),
                )
            }),
        };
        q.hosts = vec![host(0, 200), host(1, 0)];
        let html = hosts_table(&run("m", "sim:a", vec![(q.clone(), None)]), &q, false);
        // Host 0: (400 + 200) / 2 s = 300.0 IOPS, 600 × 4096 / 2 / 10⁶ = 1.2288 MB/s; host 1: 200.0, 0.82.
        assert_eq!(
            joined(&html, "hosts"),
            [
                "0 – – – 400 0 200 300.0 1.23 10.0 30.0 – – 50.0 70.0 2.000",
                "1 – – – 400 0 0 200.0 0.82 10.0 30.0 – – – – 2.000"
            ]
        );
    }

    #[test]
    fn the_hosts_cells_are_the_results_numbers() {
        let mut p = phase("w", 0);
        let host = |i: usize, writes: u64, secs: f64| HostPhase {
            host: i,
            rank: Some(i as u32),
            stopped_in: None,
            started_at: Some("2026-01-01T00:00:00.000Z".into()),
            series_t0_unix_ns: None,
            duration_s: secs,
            completed: true,
            span_bytes: Some(1 << 20),
            read: DirStats::zero(),
            write: DirStats::new(
                writes,
                writes * 4096,
                secs,
                Some(latency(1, 100_000, 0, 250_000, 0, 0)),
            ),
            trim: None,
        };
        p.hosts = vec![host(0, 1000, 2.0), host(1, 3000, 2.5)];
        let mut r = run("m", "sim:a", vec![(p.clone(), None)]);
        let ch = |i: usize, name: &str, path: &str| ClusterHost {
            rank: Some(i as u32),
            rank_source: Some("--rank".into()),
            results: format!("h{i}/results.json"),
            hostname: name.into(),
            target_path: path.into(),
            capacity_bytes: 1 << 20,
            target_kind: None,
            status: Status::Completed,
            started_at: "2026-01-01T00:00:00.000Z".into(),
            start_offset_ns: None,
            clock: None,
        };
        r.results.cluster = Some(Cluster {
            hosts: vec![ch(0, "n0", "/dev/a<1>"), ch(1, "n1", "/dev/b")],
            alignment: String::new(),
        });
        let html = hosts_table(&r, &p, false);
        assert!(html.starts_with("<h3>2 hosts</h3>"), "{html}");
        assert_eq!(
            rows(&html, "hosts"),
            vec![
                vec![
                    "0",
                    "0",
                    "n0",
                    "/dev/a&lt;1&gt;",
                    "0",
                    "1000",
                    "500.0",
                    "2.05",
                    "–",
                    "–",
                    "100.0",
                    "250.0",
                    "2.000"
                ],
                vec![
                    "1", "1", "n1", "/dev/b", "0", "3000", "1200.0", "4.92", "–", "–", "100.0",
                    "250.0", "2.500"
                ]
            ]
        );
        assert!(hosts_table(&r, &phase("w", 0), false).is_empty());
        // Both ranks on one machine (mpirun there): hosts of a merge, on that machine (issue 24 item 12).
        if let Some(c) = r.results.cluster.as_mut() {
            c.hosts[1].hostname = "n0".into();
        }
        let html = hosts_table(&r, &p, true);
        assert!(
            html.starts_with("<h3>m: 2 hosts (ranks) on machine n0</h3>"),
            "{html}"
        );
        // The targets of one run (no rank): its targets.
        let mut t = p.clone();
        for h in &mut t.hosts {
            h.rank = None;
        }
        assert!(hosts_table(&r, &t, true).starts_with("<h3>m: 2 targets on host n0</h3>"));
    }
}
