//! Merged results judged like a run's own: `wkrun merge` and the aggregate of a run on several targets
//! carry a steady-state verdict, windows, derived and headline figures computed from the merged series and
//! the merged histograms. Each is checked against an oracle computed here from the merged CSV and the hosts'
//! own files: the mean IOPS is the hosts' ops added over the cluster's time; the verdict's round is the one
//! the SNIA rule, as docs/spec.md states it, gives on the merged CSV's IOPS; every per-interval figure is the
//! merged CSV's; the time to write the span once is when the merged writes reach the hosts' spans together.
//!
//! The `wkrun merge` runs are on simulated drives (deterministic, virtual time); the several-targets run is
//! on two real files.

use crate::common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

type Row = HashMap<String, String>;

/// Two simulated drives of different sizes: their cliffs come at different times.
const SIM_A: &str = "sim:capacity=64MiB,op=7%,block=256KiB,jitter=0%";
const SIM_B: &str = "sim:capacity=96MiB,op=7%,block=256KiB,jitter=0%";

/// A 30 s random-write workload at QD8 judged by the SNIA rule, with every kind of headline item.
const SIM_BODY: &str = r#"[[phase]]
name = "w"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 8
read_percent = 0
duration = "30s"
steady_state = { rule = "snia" }
steady_after = { written = "100%" }
windows = ["last 10s"]
headline = ["mean", "latency", "worst", "per_second", "steady", "windows", "fill_once", "at 7s"]
"#;

/// Runs `body` on `target` in `dir`; returns the output folder.
fn run_in(dir: &Path, body: &str, target: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let (o, out) = run_spec(dir, "mj", body, Path::new(target), &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "wkrun failed: {err}");
    out
}

/// `wkrun merge FOLDERS -o OUT` in `d`; returns OUT.
fn merge(d: &Path, folders: &[&Path], out: &str) -> PathBuf {
    let mut args = vec!["merge"];
    args.extend(folders.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", out]);
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "wkrun merge failed: {err}");
    d.join(out)
}

/// A headline figure's value by key (`None` for null); panics when the key is absent.
fn figure(p: &Value, key: &str) -> Option<f64> {
    p["headline"]
        .as_array()
        .unwrap_or_else(|| panic!("no headline in {p}"))
        .iter()
        .find(|f| f["key"] == key)
        .unwrap_or_else(|| panic!("no headline figure {key:?} in {}", p["headline"]))["value"]
        .as_f64()
}

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

fn fl(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer} is not a number in {v}"))
}

fn ops(r: &Row) -> u64 {
    n(r, "read_ops") + n(r, "write_ops")
}

/// Total IOPS of each full row (`partial` 0), as the CSV gives it.
fn full_iops(rows: &[Row]) -> Vec<f64> {
    rows.iter()
        .filter(|r| n(r, "partial") == 0)
        .map(|r| f(r, "read_iops") + f(r, "write_iops"))
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The SNIA rule as docs/spec.md states it, with its defaults (window 5, max_rounds 25, data excursion
/// 20 %, slope excursion 10 %), on rounds of one interval judged from round `from` (`steady_after`): the
/// 0-based index of the last round of the first window of 5 judged rounds, ending among the first 25 judged,
/// whose max − min ≤ 0.2 × avg and whose least-squares line moves by |slope| × 4 ≤ 0.1 × avg (equality
/// included; a window whose mean is not positive is not steady).
fn snia(rounds: &[f64], from: usize) -> Option<usize> {
    let window = 5;
    (from + window - 1..rounds.len().min(from + 25)).find(|&e| {
        let w = &rounds[e + 1 - window..=e];
        let avg = mean(w);
        let lo = w.iter().copied().fold(f64::MAX, f64::min);
        let hi = w.iter().copied().fold(f64::MIN, f64::max);
        let n = w.len() as f64;
        let xs: Vec<f64> = (0..w.len()).map(|x| x as f64).collect();
        let (sx, sy) = (xs.iter().sum::<f64>(), w.iter().sum::<f64>());
        let sxx: f64 = xs.iter().map(|x| x * x).sum();
        let sxy: f64 = xs.iter().zip(w).map(|(x, y)| x * y).sum();
        let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        avg > 0.0 && hi - lo <= 0.2 * avg && slope.abs() * (n - 1.0) <= 0.1 * avg
    })
}

/// The first row (0-based) by whose end the full rows' `write_bytes` add up to `bytes`.
fn written_by(rows: &[Row], bytes: u64) -> Option<usize> {
    let mut cum = 0;
    rows.iter().filter(|r| n(r, "partial") == 0).position(|r| {
        cum += n(r, "write_bytes");
        cum >= bytes
    })
}

/// Checks the merged phase's verdict against the oracle judging the merged CSV's rounds from the round
/// after `written` (`steady_after.written`, when given); returns the round.
fn check_verdict(p: &Value, rows: &[Row], interval_s: f64, written: Option<u64>) -> Option<usize> {
    let iops = full_iops(rows);
    let from = written.map_or(Some(0), |b| written_by(rows, b).map(|r| r + 1));
    let ss = &p["steady_state"];
    assert_eq!(
        ss["judged_from_s"].as_f64(),
        from.map(|r| r as f64 * interval_s),
        "{ss}"
    );
    let want = from.and_then(|from| snia(&iops, from));
    assert_eq!(ss["reached"], want.is_some(), "{ss}");
    assert_eq!(
        ss["at_s"].as_f64(),
        want.map(|k| (k + 1) as f64 * interval_s),
        "{ss}"
    );
    assert_eq!(figure(p, "steady at_s"), ss["at_s"].as_f64());
    if let Some(k) = want {
        close(
            figure(p, "steady window_mean").unwrap(),
            mean(&iops[k - 4..=k]),
            "steady window mean",
        );
    }
    want
}

/// The per-interval figures of the merged phase against the merged CSV's full rows: the worst interval,
/// per-interval statistics, and the window `last N` (its `n` rows).
fn check_per_interval(p: &Value, rows: &[Row], interval_s: f64, window: &str, n: usize) {
    let v = full_iops(rows);
    let (k, min) = v.iter().enumerate().fold(
        (0, f64::INFINITY),
        |b, (k, &x)| if x < b.1 { (k, x) } else { b },
    );
    if p["params"]["headline"]
        .as_array()
        .unwrap()
        .contains(&Value::from("worst"))
    {
        assert_eq!(figure(p, "worst iops"), Some(min));
        assert_eq!(figure(p, "worst at_s"), Some((k + 1) as f64 * interval_s));
    }
    let avg = mean(&v);
    let sd = (v.iter().map(|x| (x - avg).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    close(figure(p, "per_second avg").unwrap(), avg, "per_second avg");
    close(figure(p, "per_second stddev").unwrap(), sd, "per_second sd");
    let max = v.iter().copied().fold(0.0, f64::max);
    assert_eq!(figure(p, "per_second min"), Some(min));
    assert_eq!(figure(p, "per_second max"), Some(max));
    let last = &v[v.len() - n..];
    close(
        figure(p, &format!("window {window} avg")).unwrap(),
        mean(last),
        "window avg",
    );
    let lmin = last.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(figure(p, &format!("window {window} min")), Some(lmin));
}

/// IOPS and mean latency (µs) of `rows`, from their counts.
fn side(rows: &[Row]) -> (f64, f64) {
    let secs: f64 = rows.iter().map(|r| f(r, "interval_s")).sum();
    let ops: u64 = rows.iter().map(ops).sum();
    let lat: f64 = rows
        .iter()
        .map(|r| {
            let w = n(r, "write_ops");
            if w == 0 {
                0.0
            } else {
                f(r, "write_lat_mean_us") * w as f64
            }
        })
        .sum();
    (ops as f64 / secs, lat / ops as f64)
}

#[test]
fn wkrun_merge_judges_the_merged_series_of_two_simulated_drives() {
    let dir = tempdir();
    let d = dir.path();
    let a = run_in(&d.join("a"), SIM_BODY, SIM_A);
    let b = run_in(&d.join("b"), SIM_BODY, SIM_B);
    let m = merge(d, &[&a, &b], "m");
    let (_, r) = strict_results(&m);
    let hosts: Vec<Value> = [&a, &b].iter().map(|f| strict_results(f).1).collect();
    let p = phase(&r, 0);
    let rows = phase_rows(&m, &r, 0);
    let host_rows: Vec<Vec<Row>> = [&a, &b]
        .iter()
        .zip(&hosts)
        .map(|(f, h)| phase_rows(f, h, 0))
        .collect();

    // Virtual clocks: host row k is merged row k; its ops add up, 30 rows full, then the drain (partial).
    assert_eq!(rows.len(), 31);
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(n(row, "partial"), u64::from(k == 30), "row {k}");
        if k < 30 {
            assert_eq!(f(row, "interval_s"), 1.0, "row {k} is one interval");
        }
    }
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(
            ops(row),
            host_rows.iter().map(|h| ops(&h[k])).sum::<u64>(),
            "row {k}"
        );
        close(
            f(row, "write_iops"),
            host_rows
                .iter()
                .map(|h| f(&h[k], "write_iops"))
                .sum::<f64>(),
            &format!("row {k}: merged IOPS is the sum of the hosts' IOPS"),
        );
    }
    // The drain ends at the latest host's end (a simulated drive's holds what was in flight at 30 s).
    let end = host_rows
        .iter()
        .map(|h| f(&h[30], "t_s"))
        .fold(0.0, f64::max);
    assert!(end > 30.0);
    assert_eq!(f(&rows[29], "t_s"), 30.0);
    assert_eq!(f(&rows[30], "t_s"), end);

    // The mean: every host's per-interval ops added, over the cluster's time (the longest host's here).
    let all_ops: u64 = host_rows.iter().flatten().map(ops).sum();
    let time = hosts
        .iter()
        .map(|h| fl(h, "/phases/0/duration_s"))
        .fold(0.0, f64::max);
    assert_eq!(fl(&r, "/phases/0/duration_s"), time);
    assert_eq!(figure(p, "mean iops"), Some(all_ops as f64 / time));
    assert_ne!(
        figure(p, "mean iops"),
        figure(phase(&hosts[0], 0), "mean iops")
    );

    // Latency from the merged histograms: the max the largest, the mean weighted by ops.
    let lat = |h: &Value, k: &str| fl(h, &format!("/phases/0/write/latency_ns/{k}"));
    let max = hosts.iter().map(|h| lat(h, "max")).fold(0.0, f64::max);
    assert_eq!(figure(p, "latency write max_us"), Some(max / 1e3));
    let w_ops = |h: &Value| u(h, "/phases/0/write/ops") as f64;
    let weighted = hosts.iter().map(|h| lat(h, "mean") * w_ops(h)).sum::<f64>()
        / hosts.iter().map(w_ops).sum::<f64>();
    close(
        figure(p, "latency write mean_us").unwrap(),
        weighted / 1e3,
        "latency mean",
    );

    // The verdict judged on the merged rounds, and the per-interval figures.
    // Judged once the cluster had written its spans together (the hosts' resolved `written` added).
    let span: u64 = hosts
        .iter()
        .map(|h| u(h, "/phases/0/params/span_bytes"))
        .sum();
    let written: u64 = hosts
        .iter()
        .map(|h| u(h, "/phases/0/params/steady_after/written_bytes"))
        .sum();
    assert_eq!(written, span, "100 % of each span");
    let round = check_verdict(p, &rows, 1.0, Some(written));
    let own: Vec<Option<f64>> = hosts
        .iter()
        .map(|h| figure(phase(h, 0), "steady at_s"))
        .collect();
    // Deterministic: the cluster is steady at 29 s, which is neither host's own verdict (24 s and 17 s).
    assert_eq!(
        (round, own.clone()),
        (Some(28), vec![Some(24.0), Some(17.0)]),
        "{own:?}"
    );
    eprintln!(
        "merged: judged from {} s, steady at {} s, mean {} IOPS",
        p["steady_state"]["judged_from_s"],
        p["steady_state"]["at_s"],
        figure(p, "mean iops").unwrap()
    );
    check_per_interval(p, &rows, 1.0, "last 10s", 10);

    // The span written once: when the merged writes reach both spans together.
    let cut = written_by(&rows, span).expect("the cluster writes its spans once in 30 s");
    assert_eq!(figure(p, "fill_once at_s"), Some(f(&rows[cut], "t_s")));
    for (point, k) in [("fill_once", cut), ("at 7s", 6)] {
        let (bi, bl) = side(&rows[..=k]);
        // After: up to the bound (the drain is not a full row, so not in the figures).
        let (ai, al) = side(&rows[k + 1..30]);
        close(
            figure(p, &format!("{point} before iops")).unwrap(),
            bi,
            point,
        );
        close(
            figure(p, &format!("{point} before lat_mean_us")).unwrap(),
            bl,
            point,
        );
        close(
            figure(p, &format!("{point} after iops")).unwrap(),
            ai,
            point,
        );
        close(
            figure(p, &format!("{point} after lat_mean_us")).unwrap(),
            al,
            point,
        );
    }

    // The report's span-written-once line of the merged phase: the merged writes against both spans,
    // interpolated inside the row that reaches them (each host's span is in `hosts[].span_bytes`).
    let spans: Vec<u64> = p["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["span_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(spans, [64 << 20, 96 << 20]);
    let before: u64 = rows[..cut].iter().map(|r| n(r, "write_bytes")).sum();
    let b = n(&rows[cut], "write_bytes");
    let at = f(&rows[cut], "t_s")
        - f(&rows[cut], "interval_s") * (1.0 - (span - before) as f64 / b as f64);
    let loaded = wkrun::report::runs::load_run(&m.join("results.json")).expect("load");
    let labels: Vec<String> = wkrun::report::chart::time::markers(&loaded, 0)
        .into_iter()
        .map(|m| m.label)
        .collect();
    let want = format!(
        "drive span written once at {} s",
        wkrun::report::chart::short_number(at)
    );
    assert!(labels.contains(&want), "{want} not in {labels:?}");

    // One host merged alone is judged exactly as its run judged itself: the same code on the same rows.
    let one = merge(d, &[&a], "one");
    let (_, r1) = strict_results(&one);
    for key in ["steady_state", "windows", "derived", "headline"] {
        assert_eq!(phase(&r1, 0)[key], phase(&hosts[0], 0)[key], "{key}");
    }
}

/// A 2 s random-write workload with two workers on a real file, 250 ms intervals, judged by the SNIA rule.
const FILE_BODY: &str = r#"[[phase]]
name = "w"
kind = "workload"
engine = "psync"
workers = 2
pattern = "random"
block_size = "4KiB"
read_percent = 0
duration = "2s"
interval = "250ms"
steady_state = { rule = "snia" }
windows = ["last 1s"]
headline = ["mean", "steady", "worst", "per_second", "windows"]
"#;

#[test]
fn the_aggregate_of_two_file_targets_is_judged_on_its_merged_series_and_leads_compare_and_report() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 8 << 20);
    sparse_file(&d.join("b.img"), 12 << 20);
    write_file(d, "spec.toml", &spec_text("mt", FILE_BODY));
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &[
            "spec.toml",
            "--target",
            "a.img",
            "--target",
            "b.img",
            "-o",
            "out",
            "-q",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let out = d.join("out");
    let (_, r) = strict_results(&out);
    let parts: Vec<PathBuf> = ["t0-a.img", "t1-b.img"]
        .iter()
        .map(|t| out.join(t))
        .collect();
    let hosts: Vec<Value> = parts.iter().map(|f| strict_results(f).1).collect();
    let p = phase(&r, 0);
    let rows = phase_rows(&out, &r, 0);

    // The mean: both targets' per-interval ops added, over the cluster's time (the earliest series start
    // to the latest end, docs/hosts.md).
    let all_ops: u64 = parts
        .iter()
        .zip(&hosts)
        .flat_map(|(f, h)| phase_rows(f, h, 0))
        .map(|r| ops(&r))
        .sum();
    assert_eq!(all_ops, u(p, "/total/ops"));
    let t0 = |h: &Value| u(h, "/phases/0/series_t0_unix_ns");
    let first = hosts.iter().map(t0).min().unwrap();
    let time = hosts
        .iter()
        .map(|h| (t0(h) - first) as f64 / 1e9 + fl(h, "/phases/0/duration_s"))
        .fold(0.0, f64::max);
    assert_eq!(figure(p, "mean iops"), Some(all_ops as f64 / time));

    // Each target's worker breakdown stays in its folder: the aggregate carries none (it carried the first
    // target's, whose counts add up to that target's totals only).
    for h in &hosts {
        assert_eq!(phase(h, 0)["workers"].as_array().map(Vec::len), Some(2));
    }
    assert!(p.get("workers").is_none(), "{}", p["workers"]);

    // The verdict and every per-interval figure from the merged CSV.
    let round = check_verdict(p, &rows, 0.25, None);
    check_per_interval(p, &rows, 0.25, "last 1s", 4);
    eprintln!(
        "aggregate: {} rows, {all_ops} ops in {time} s, steady round {round:?}",
        rows.len()
    );

    // compare leads the aggregate's column with its own figures, as it does a single run's.
    let (code, text, err) = code_out_err(&wkrun(
        d,
        &["compare", "out/t0-a.img", "out", "--format", "csv"],
    ));
    assert_eq!(code, 0, "{err}");
    let recs: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let labels: Vec<&str> = recs
        .iter()
        .filter(|r| r[0] == "w")
        .map(|r| r[1].as_str())
        .collect();
    assert_eq!(
        labels[..4],
        [
            "IOPS, phase mean",
            "bandwidth, phase mean (MB/s)",
            "latency, phase mean (µs)",
            "time to steady state (s)"
        ],
        "{recs:?}"
    );
    let mean_row = recs
        .iter()
        .find(|r| r[0] == "w" && r[1] == "IOPS, phase mean")
        .unwrap();
    let own = figure(phase(&hosts[0], 0), "mean iops").unwrap();
    assert_eq!(
        mean_row[2..4],
        [format!("{own:.1}"), format!("{:.1}", all_ops as f64 / time)]
    );

    // The report's headline section shows the aggregate's figures.
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "out", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(d.join("rep/index.html")).expect("index.html");
    let start = page
        .find("<section id=\"headline\">")
        .expect("a headline section");
    let section = &page[start..start + page[start..].find("</section>").unwrap()];
    assert!(
        section.contains(&format!("<td>{:.1}</td>", all_ops as f64 / time)),
        "{section}"
    );
}
