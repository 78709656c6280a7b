//! Latency over time (issue 26 item 5): the per-interval percentile columns of the series CSV, recomputed by
//! an oracle from the per-I/O trace; the histogram log beside it; the logs of several targets and of
//! `wkrun merge` added up exactly (the merged percentiles are those of the union of the traces); the
//! trace's row count and its cap.

use crate::common::*;
use std::collections::HashMap;
use std::path::Path;

/// The percentile columns and the percentiles they hold.
const PCTS: [(&str, f64); 3] = [("p50", 50.0), ("p99", 99.0), ("p99_9", 99.9)];

/// A trace's rows: (t_ns, dir, offset, len, lat_ns).
fn trace(path: &Path) -> Vec<(u64, String, u64, u64, u64)> {
    let text = std::fs::read_to_string(path).expect("trace");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t_ns,dir,offset,len,lat_ns"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            let n = |i: usize| c[i].parse::<u64>().expect("a number");
            (n(0), c[1].to_string(), n(2), n(3), n(4))
        })
        .collect()
}

/// The oracle: per series row (its index from the completion time, the drain of a time bound `bound_ns`
/// in row ⌊bound/Δ⌋) and direction, the sorted latencies of the traces.
fn by_row(traces: &[&Path], iv_ns: u64, bound_ns: u64) -> HashMap<(u64, String), Vec<u64>> {
    let mut m: HashMap<(u64, String), Vec<u64>> = HashMap::new();
    for t in traces {
        for (t_ns, dir, _, _, lat) in trace(t) {
            let k = if t_ns >= bound_ns {
                bound_ns / iv_ns
            } else {
                t_ns / iv_ns
            };
            m.entry((k, dir)).or_default().push(lat);
        }
    }
    for v in m.values_mut() {
        v.sort_unstable();
    }
    m
}

/// Checks every row of the series CSV `csv` against the oracle: each direction's ops are the traced
/// latencies' count, the max is exact, and each percentile column holds the latency of rank
/// ⌈p/100 · n⌉ (at least 1) of the n sorted, raised to the highest value of its histogram bucket (within
/// 1/1024 of it: 3 significant digits) and at most the max. A row with I/Os and no percentiles is folded
/// (the collector fell behind): its latencies are checked with the next row that has percentiles, over the
/// rows of the fold, which must end. Returns the rows checked and the folded rows.
fn check_rows(csv: &Path, oracle: &HashMap<(u64, String), Vec<u64>>) -> (usize, usize) {
    let rows = csv_rows(csv);
    let ns = |row: &HashMap<String, String>, col: &str| (f(row, col) * 1e3).round() as u64;
    let (mut percentiles, mut folded) = (0, std::collections::BTreeSet::new());
    for dir in ["read", "write"] {
        let mut fold: Vec<u64> = Vec::new();
        for (k, row) in rows.iter().enumerate() {
            let own = oracle
                .get(&(k as u64, dir.to_string()))
                .cloned()
                .unwrap_or_default();
            assert_eq!(
                n(row, &format!("{dir}_ops")),
                own.len() as u64,
                "row {k} {dir}"
            );
            if let Some(&max) = own.last() {
                assert_eq!(
                    ns(row, &format!("{dir}_lat_max_us")),
                    max,
                    "row {k} {dir} max"
                );
            }
            fold.extend(&own);
            if row[&format!("{dir}_lat_p99_us")].is_empty() {
                if !own.is_empty() {
                    folded.insert(k);
                }
                continue;
            }
            fold.sort_unstable();
            let max = *fold.last().expect("percentiles of no I/O");
            for (col, p) in PCTS {
                let rank = ((p / 100.0 * fold.len() as f64).ceil() as usize).max(1);
                let x = fold[rank - 1];
                let v = ns(row, &format!("{dir}_lat_{col}_us"));
                assert!(
                    v >= x && v - x <= x / 1024 && v <= max,
                    "row {k} {dir} {col}: {v} ns in the CSV, {x} ns of rank {rank} of {} traced",
                    fold.len()
                );
                percentiles += 1;
            }
            fold.clear();
        }
        assert!(fold.is_empty(), "{dir}: a fold with no last row");
    }
    assert!(percentiles >= 12, "{percentiles} percentiles checked");
    (rows.len(), folded.len())
}

fn body(extra: &str) -> String {
    format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\n\
         block_size = \"4KiB\"\nqueue_depth = 2\nread_percent = 50\ninterval = \"250ms\"\n{extra}"
    )
}

/// Two workers of two threads each (four recorders) for 1 s: every row's percentiles are the trace's, the
/// trace holds every completed I/O, and the histogram log holds each row's latencies.
#[test]
fn interval_percentiles_are_the_traces_and_the_trace_holds_every_io() {
    let d = tempdir();
    let target = d.path().join("t.img");
    sparse_file(&target, 64 << 20);
    let out = run_ok(
        d.path(),
        "lat",
        &body("workers = 2\nduration = \"1s\"\ntrace = 10000000\n"),
        &target,
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    let ops = u(p, "/read/ops") + u(p, "/write/ops");
    assert_eq!(u(p, "/trace/ios"), ops, "one trace row per completed I/O");
    assert_eq!(u(p, "/trace/dropped"), 0);
    assert_eq!(u(p, "/params/trace"), 10_000_000);
    let t = out.join(p["trace"]["file"].as_str().expect("trace file"));
    assert_eq!(trace(&t).len() as u64, ops);
    let oracle = by_row(&[&t], 250_000_000, 1_000_000_000);
    let (rows, _) = check_rows(&out.join("00-w.csv"), &oracle);
    assert!(rows >= 4, "{rows} rows");
    // The log: one histogram per row and direction, holding the row's I/Os.
    let log = std::fs::read(out.join(p["hist_log"].as_str().expect("hist_log"))).expect("log");
    let mut reader = wkrun::results::hlog::RowReader::new(&log).expect("a histogram log");
    let csv = csv_rows(&out.join("00-w.csv"));
    for row in &csv {
        let (_, h) = reader
            .next_row()
            .expect("a row")
            .expect("a row per CSV row");
        for (dir, name) in [
            (wkrun::vocab::Direction::Read, "read_ops"),
            (wkrun::vocab::Direction::Write, "write_ops"),
        ] {
            let held = h[dir].as_ref().map_or(0, |h| h.len());
            // A row folded into a later one (the collector fell behind) has an empty histogram.
            let folded = held == 0 && row[&name.replace("ops", "lat_p99_us")].is_empty();
            assert!(held == n(row, name) || folded, "{name}: {held}");
        }
    }
    assert_eq!(
        reader.next_row(),
        Ok(None),
        "no histogram past the last row"
    );
    let v = wkrun(d.path(), &["validate", out.to_str().unwrap()]);
    assert_eq!(code_out_err(&v).0, 0, "{:?}", code_out_err(&v));
    // validate checks the log against the series and the trace against its count.
    let csv_path = out.join("00-w.csv");
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let col = lines[0]
        .split(',')
        .position(|c| c == "write_lat_p99_us")
        .unwrap();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    cells[col] = format!("{}", cells[col].parse::<f64>().unwrap() * 2.0);
    lines[1] = cells.join(",");
    std::fs::write(&csv_path, lines.join("\n") + "\n").unwrap();
    let t_text = std::fs::read_to_string(&t).unwrap();
    std::fs::write(&t, &t_text[..t_text.trim_end().rfind('\n').unwrap() + 1]).unwrap();
    let (code, stdout, err) = code_out_err(&wkrun(d.path(), &["validate", out.to_str().unwrap()]));
    let said = stdout + &err;
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains("row 0: the series CSV's write percentiles are"),
        "{said}"
    );
    assert!(
        said.contains(&format!("{} rows, where trace.ios says {ops}", ops - 1)),
        "{said}"
    );
}

/// Runs the spec `body` on two files of 32 MiB at once (`d/out`, the targets' folders `t0-a.img`,
/// `t1-b.img`), then merges the two folders with `wkrun merge` (`d/merged`); both exit 0. Returns the
/// aggregate's folder, the two targets' and the merge's.
fn two_targets_and_merge(d: &Path, body: &str) -> [std::path::PathBuf; 4] {
    let (a, b) = (d.join("a.img"), d.join("b.img"));
    sparse_file(&a, 32 << 20);
    sparse_file(&b, 32 << 20);
    let out = run_two_targets(d, "two", body, (&a, &b), "out");
    let (ta, tb) = (out.join("t0-a.img"), out.join("t1-b.img"));
    let m = d.join("merged");
    let (sta, stb) = (ta.to_str().unwrap(), tb.to_str().unwrap());
    let o = wkrun(d, &["merge", sta, stb, "-o", m.to_str().unwrap()]);
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    [out, ta, tb, m]
}

/// Two targets at once: the aggregate's percentiles, and those of `wkrun merge` of the two targets'
/// folders, are the union's of both traces (from the added histograms); both merged logs are the same.
#[test]
fn merged_percentiles_are_the_unions() {
    let d = tempdir();
    let [out, ta, tb, m] =
        two_targets_and_merge(d.path(), &body("duration = \"1s\"\ntrace = 10000000\n"));
    let oracle = by_row(
        &[&ta.join("00-w.trace.csv"), &tb.join("00-w.trace.csv")],
        250_000_000,
        1_000_000_000,
    );
    check_rows(&out.join("00-w.csv"), &oracle);
    check_rows(&m.join("00-w.csv"), &oracle);
    assert_eq!(read(&m.join("00-w.hlog")), read(&out.join("00-w.hlog")));
    let (_, r) = strict_results(&m);
    assert_eq!(phase(&r, 0)["hist_log"], "00-w.hlog");
    assert!(
        phase(&r, 0).get("trace").is_none(),
        "traces stay in the hosts' folders"
    );
}

/// 1 ms rows on a file at QD1 for 1 s, with a trace: every row's counts are the trace's, and its
/// percentiles too, or, where the series collector fell behind and folded rows, those of the fold's I/Os
/// in its last row, the results saying how many rows were folded. The histogram log adds up to the phase's
/// I/Os and validates.
#[test]
fn millisecond_rows_stay_exact_when_the_collector_falls_behind() {
    let d = tempdir();
    let target = d.path().join("t.img");
    sparse_file(&target, 64 << 20);
    let spec = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\n\
                block_size = \"4KiB\"\nqueue_depth = 1\nread_percent = 50\nduration = \"1s\"\n\
                interval = \"1ms\"\ntrace = 10000000\n";
    let out = run_ok(d.path(), "ms", spec, &target);
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    let t = out.join(p["trace"]["file"].as_str().expect("trace file"));
    assert_eq!(u(p, "/trace/dropped"), 0);
    let oracle = by_row(&[&t], 1_000_000, 1_000_000_000);
    let (rows, folded) = check_rows(&out.join("00-w.csv"), &oracle);
    assert_eq!(u(p, "/intervals"), rows as u64);
    let said = p["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str())
        .find_map(|w| {
            w.strip_prefix("latency over time: the series collector fell behind the I/O, so ")
        })
        .map(|w| {
            let (n, rest) = w.split_once(" of the ").expect("N of the M rows");
            assert!(rest.starts_with(&format!("{rows} rows")), "{w}");
            n.parse::<usize>().expect("a count")
        });
    eprintln!(
        "latency_time: {rows} rows, {folded} folded with I/Os in them, warning says {said:?}"
    );
    match said {
        // Rows folded without an I/O in them count too.
        Some(n) => assert!(
            n >= folded && n < rows,
            "{n} folded of {rows}, {folded} with I/Os"
        ),
        None => assert_eq!(folded, 0),
    }
    let log = std::fs::read(out.join("00-w.hlog")).expect("log");
    let mut reader = wkrun::results::hlog::RowReader::new(&log).expect("a histogram log");
    let mut held = [0u64; 2];
    while let Some((_, h)) = reader.next_row().expect("a row") {
        for (i, dir) in [
            wkrun::vocab::Direction::Read,
            wkrun::vocab::Direction::Write,
        ]
        .into_iter()
        .enumerate()
        {
            held[i] += h[dir].as_ref().map_or(0, |h| h.len());
        }
    }
    assert_eq!(held, [u(p, "/read/ops"), u(p, "/write/ops")]);
    assert_eq!(reader.rows(), rows as u64);
    let v = wkrun(d.path(), &["validate", out.to_str().unwrap()]);
    assert_eq!(code_out_err(&v).0, 0, "{:?}", code_out_err(&v));
}

/// At the cap: 4000 I/Os of two workers with `trace = 1001` keep 1001 rows (501 of the first worker, 500
/// of the second, each its first), the rest counted as dropped; `trace = 0` is refused naming the key.
#[test]
fn the_trace_keeps_its_cap_and_counts_the_rest() {
    let d = tempdir();
    let target = d.path().join("t.img");
    sparse_file(&target, 64 << 20);
    let spec = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\n\
                block_size = \"4KiB\"\nqueue_depth = 1\nworkers = 2\nread_percent = 0\nsize = \"16000KiB\"\ntrace = 1001\n";
    let out = run_ok(d.path(), "cap", spec, &target);
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(u(p, "/write/ops"), 4000);
    assert_eq!((u(p, "/trace/ios"), u(p, "/trace/dropped")), (1001, 2999));
    let rows = trace(&out.join("00-w.trace.csv"));
    assert_eq!(rows.len(), 1001);
    // Each worker's first completions: worker 0 writes the first half of the span, worker 1 the second.
    let half = 32u64 << 20;
    let first = rows.iter().filter(|r| r.2 < half).count();
    assert_eq!((first, rows.len() - first), (501, 500));
    assert!(
        rows.windows(2).all(|w| w[0].0 <= w[1].0),
        "in completion order"
    );
    let bad = spec.replace("trace = 1001", "trace = 0");
    let (o, _) = run_spec(d.path(), "cap", &bad, &target, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("trace = 0 is out of range"), "{err}");
    assert!(err.contains("trace"), "{err}");
}

/// Checks the histogram log of phase 0 of the results folder `out` against its series row by row, per
/// direction in `dirs`: a row's histogram holds its ops, or it is folded (empty, no percentiles) and the
/// next row that holds any holds the fold's ops too; no fold is left open. Returns each direction's
/// latencies held, which must be the phase's ops.
fn log_adds_up(out: &Path, dirs: &[wkrun::vocab::Direction]) -> Vec<u64> {
    let (_, r) = strict_results(out);
    let p = phase(&r, 0);
    let rows = csv_rows(&out.join(p["series_csv"].as_str().expect("series_csv")));
    let log = std::fs::read(out.join(p["hist_log"].as_str().expect("hist_log"))).expect("log");
    let mut reader = wkrun::results::hlog::RowReader::new(&log).expect("a histogram log");
    let mut owed = vec![0u64; dirs.len()];
    let mut held = vec![0u64; dirs.len()];
    for (k, row) in rows.iter().enumerate() {
        let (_, h) = reader
            .next_row()
            .expect("a row")
            .expect("a row per CSV row");
        for (i, d) in dirs.iter().enumerate() {
            let name = d.name();
            let here = h[*d].as_ref().map_or(0, |h| h.len());
            owed[i] += n(row, &format!("{name}_ops"));
            let folded = here == 0 && row[&format!("{name}_lat_p99_us")].is_empty();
            if !folded {
                assert_eq!(here, owed[i], "row {k}: {name}s held, of {out:?}");
                owed[i] = 0;
            }
            held[i] += here;
        }
    }
    assert_eq!(
        reader.next_row(),
        Ok(None),
        "no histogram past the last row"
    );
    assert_eq!(
        owed,
        vec![0; dirs.len()],
        "a fold with no last row in {out:?}"
    );
    for (i, d) in dirs.iter().enumerate() {
        assert_eq!(
            held[i],
            u(p, &format!("/{}/ops", d.name())),
            "{d:?} in {out:?}"
        );
    }
    held
}

/// Issue 26 (attack on main): two targets with 1 ms rows at QD4, where each target's collector folds rows
/// at its own times. The aggregate's log and `wkrun merge`'s of the two folders hold, row by row, what the
/// series counts (a fold of one target beside another's plain row made "row 44: the read histogram holds
/// 4 latencies, where the series counts 6 reads"); their sums are the targets' ops; validate accepts both.
#[test]
fn the_logs_of_millisecond_rows_of_two_targets_add_up_row_by_row() {
    use wkrun::vocab::Direction;
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\n\
                block_size = \"4KiB\"\nqueue_depth = 4\nread_percent = 50\nduration = \"500ms\"\n\
                interval = \"1ms\"\n";
    let [out, ta, tb, m] = two_targets_and_merge(d.path(), body);
    let dirs = Direction::CORE;
    let parts: Vec<Vec<u64>> = [&ta, &tb].iter().map(|t| log_adds_up(t, &dirs)).collect();
    let sum: Vec<u64> = (0..2).map(|i| parts[0][i] + parts[1][i]).collect();
    for folder in [&out, &m] {
        assert_eq!(log_adds_up(folder, &dirs), sum, "{folder:?}");
        let v = wkrun(d.path(), &["validate", folder.to_str().unwrap()]);
        assert_eq!(code_out_err(&v).0, 0, "{:?}", code_out_err(&v));
    }
}

/// A merge of results `wkrun validate` would refuse is refused: one host's series counts a read its
/// histogram log does not hold (a CSV edited by hand). `merge` checks its inputs as `validate` does (exit 2
/// naming the file and line, nothing written), where it once wrote a merged log that never held the read and
/// exited 0.
#[test]
fn a_merge_of_results_validate_would_refuse_is_refused() {
    let (d, e) = (tempdir(), tempdir());
    let t = d.path().join("t.img");
    sparse_file(&t, 16 << 20);
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\n\
                block_size = \"4KiB\"\nread_percent = 100\nsize = \"400KiB\"\ninterval = \"1s\"\n";
    let a = run_ok(d.path(), "r", body, &t);
    let b = run_ok(e.path(), "r", body, &t);
    let csv = a.join("00-w.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let col = lines[0].split(',').position(|c| c == "read_ops").unwrap();
    let rate = lines[0].split(',').position(|c| c == "read_iops").unwrap();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    // One read more, its rate with it (a rate that contradicts its count is refused before the
    // histograms are read).
    let n = cells[col].parse::<u64>().unwrap();
    let iops = cells[rate].parse::<f64>().unwrap();
    cells[col] = (n + 1).to_string();
    cells[rate] = (iops * (n + 1) as f64 / n as f64).to_string();
    lines[1] = cells.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let m = d.path().join("m");
    let o = wkrun(
        d.path(),
        &[
            "merge",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "-o",
            m.to_str().unwrap(),
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}/00-w.hlog (phases[0].hist_log): line 6: row 0: the read histogram holds 100 latencies, where the series counts 101 reads\n",
            a.display()
        )
    );
    assert!(!m.exists(), "nothing written");
}
