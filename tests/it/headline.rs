//! Headline figures (issue 14 items 1 and 3, issue 16 item 7): what a workload's `headline` names is
//! computed once into results.json (`headline`, `derived`), checked here against an independent oracle
//! that recomputes each figure from the phase's own series CSV; `wkrun compare` and `wkrun report` lead
//! with those figures, show what differed between runs, and keep every change column numeric.
//!
//! The runs are on the simulated drive (deterministic, virtual time: a minute of writes takes well under a
//! second). No simulated number is written into a test: every expected value comes from the run's CSV.

use crate::common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const SIM: &str = "sim:capacity=64MiB,op=7%,block=256KiB";

/// A 4 KiB random-write workload at QD8 on the whole span, with `extra` keys.
fn body(duration: &str, extra: &str) -> String {
    format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
queue_depth = 8\nread_percent = 0\nduration = \"{duration}\"\n{extra}"
    )
}

/// Runs the spec on the simulated drive in `dir`; returns the output folder.
fn run_sim(dir: &Path, body: &str, args: &[&str]) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let (o, out) = run_spec(dir, "hl", body, Path::new(SIM), args);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "wkrun failed: {err}");
    out
}

type Row = HashMap<String, String>;

/// The full rows of a series (`partial` = 0).
fn full(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| n(r, "partial") == 0).collect()
}

/// A figure's value by key (`None` for null), panicking when the key is absent.
fn figure(p: &Value, key: &str) -> Option<f64> {
    p["headline"]
        .as_array()
        .expect("headline")
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

/// The oracle of one side of a split: (iops, mean latency of all I/Os in µs) over `rows`.
fn side(rows: &[&Row]) -> (f64, Option<f64>) {
    let secs: f64 = rows.iter().map(|r| f(r, "interval_s")).sum();
    let ops: u64 = rows
        .iter()
        .map(|r| n(r, "read_ops") + n(r, "write_ops"))
        .sum();
    let lat = |dir: &str, r: &Row| {
        let k = n(r, &format!("{dir}_ops"));
        if k == 0 {
            0.0
        } else {
            f(r, &format!("{dir}_lat_mean_us")) * k as f64
        }
    };
    let lat_sum: f64 = rows.iter().map(|r| lat("read", r) + lat("write", r)).sum();
    (ops as f64 / secs, (ops > 0).then(|| lat_sum / ops as f64))
}

/// IOPS per full row, from the counts.
fn iops(rows: &[&Row]) -> Vec<f64> {
    rows.iter()
        .map(|r| (n(r, "read_ops") + n(r, "write_ops")) as f64 / f(r, "interval_s"))
        .collect()
}

#[test]
fn derived_figures_match_the_series() {
    let d = tempdir();
    let extra = "headline = [\"fill_once\", \"worst\", \"per_second\", \"last 10s\", \"at 7s\"]\n";
    let out = run_sim(d.path(), &body("40s", extra), &[]);
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(
        p["params"]["headline"],
        serde_json::json!(["fill_once", "worst", "per_second", "last 10s", "at 7s"])
    );
    // The window the headline names was added to the windows.
    assert_eq!(p["params"]["windows"], serde_json::json!(["last 10s"]));
    let rows = phase_rows(&out, &r, 0);
    let rows = full(&rows);
    let span = u(p, "/params/span_bytes");

    // Time to write the span once (and N times), from the cumulative write bytes.
    let mut cum = 0u64;
    let mut times: Vec<(u64, f64)> = Vec::new();
    let mut cut = None;
    for (k, row) in rows.iter().enumerate() {
        let before = cum;
        cum += n(row, "write_bytes");
        for t in before / span + 1..=cum / span {
            times.push((t, f(row, "t_s")));
        }
        if cut.is_none() && cum >= span {
            cut = Some(k);
        }
    }
    let cut = cut.expect("the span is written once within 40 s");
    assert!(
        times.len() >= 2,
        "the test needs the span written twice: {times:?}"
    );
    let got: Vec<(u64, f64)> = p["derived"]["span_writes"]
        .as_array()
        .expect("span_writes")
        .iter()
        .map(|w| (w["times"].as_u64().unwrap(), w["at_s"].as_f64().unwrap()))
        .collect();
    assert_eq!(got, times);
    assert_eq!(figure(p, "fill_once at_s"), Some(times[0].1));

    // IOPS and latency before and after that point, and before and after 7 s.
    let check_split = |point: &str, k: usize| {
        let (bi, bl) = side(&rows[..=k]);
        let (ai, al) = side(&rows[k + 1..]);
        close(
            figure(p, &format!("{point} before iops")).unwrap(),
            bi,
            point,
        );
        close(
            figure(p, &format!("{point} before lat_mean_us")).unwrap(),
            bl.unwrap(),
            point,
        );
        close(
            figure(p, &format!("{point} after iops")).unwrap(),
            ai,
            point,
        );
        close(
            figure(p, &format!("{point} after lat_mean_us")).unwrap(),
            al.unwrap(),
            point,
        );
    };
    check_split("fill_once", cut);
    let at7 = rows
        .iter()
        .position(|r| f(r, "t_s") >= 7.0)
        .expect("a row past 7 s");
    check_split("at 7s", at7);
    let split = &p["derived"]["splits"][1];
    assert_eq!(
        (split["point"].as_str(), split["at_s"].as_f64()),
        (Some("at 7s"), Some(7.0))
    );
    assert_eq!(split["before"]["intervals"], 7);

    // The worst interval and per-second statistics of the whole phase.
    let v = iops(&rows);
    let (k, min) = v.iter().enumerate().fold(
        (0, f64::INFINITY),
        |b, (k, &x)| if x < b.1 { (k, x) } else { b },
    );
    close(figure(p, "worst iops").unwrap(), min, "worst");
    assert_eq!(figure(p, "worst at_s"), Some((k + 1) as f64));
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    close(figure(p, "per_second avg").unwrap(), mean, "avg");
    close(figure(p, "per_second stddev").unwrap(), sd, "stddev");
    let max = v.iter().copied().fold(0.0, f64::max);
    close(figure(p, "per_second max").unwrap(), max, "max");

    // The last 10 s: the last ten full rows.
    let last = &v[v.len() - 10..];
    close(
        figure(p, "window last 10s avg").unwrap(),
        last.iter().sum::<f64>() / 10.0,
        "window avg",
    );
    let lmin = last.iter().copied().fold(f64::INFINITY, f64::min);
    close(
        figure(p, "window last 10s min").unwrap(),
        lmin,
        "window min",
    );
}

#[test]
fn defaults_lead_with_steady_windows_or_the_mean() {
    let d = tempdir();
    let out = run_sim(
        d.path(),
        &body(
            "30s",
            "windows = [\"5s..\"]\nsteady_state = { rule = \"snia\" }\n",
        ),
        &[],
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(
        p["params"]["headline"],
        serde_json::json!(["steady", "windows"])
    );
    let keys: Vec<&str> = p["headline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "steady at_s",
            "steady window_mean",
            "window 5s.. avg",
            "window 5s.. min",
            "window 5s.. max",
            "window 5s.. stddev"
        ]
    );
    let w = &p["windows"][0]["iops"];
    assert_eq!(figure(p, "window 5s.. avg"), w["avg"].as_f64());
    assert_eq!(figure(p, "window 5s.. max"), w["max"].as_f64());
    let ss = &p["steady_state"];
    if ss["reached"] == true {
        assert_eq!(figure(p, "steady at_s"), ss["at_s"].as_f64());
        assert_eq!(
            figure(p, "steady window_mean"),
            ss["verdict"]["window_mean"].as_f64()
        );
    } else {
        assert_eq!(figure(p, "steady at_s"), None);
    }
    assert!(
        p.get("derived").is_none(),
        "nothing derived for steady and windows"
    );

    // Neither: the whole-phase mean, from the phase's own totals.
    let d2 = tempdir();
    let out = run_sim(d2.path(), &body("3s", ""), &[]);
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(p["params"]["headline"], serde_json::json!(["mean"]));
    let total = p["read"]["iops"].as_f64().unwrap() + p["write"]["iops"].as_f64().unwrap();
    assert_eq!(figure(p, "mean iops"), Some(total));
    close(
        figure(p, "mean mb_s").unwrap(),
        p["total"]["bw_bytes_per_s"].as_f64().unwrap() / 1e6,
        "MB/s",
    );
    assert_eq!(
        figure(p, "mean lat_mean_us"),
        Some(p["total"]["latency_ns"]["mean"].as_f64().unwrap() / 1e3)
    );
}

#[test]
fn bad_headline_items_exit_2_naming_the_key() {
    let d = tempdir();
    let cases = [
        ("headline = [\"best\"]\n", "\"best\" is not a headline item"),
        (
            "headline = [\"steady\"]\n",
            "headline \"steady\" needs steady_state",
        ),
        ("headline = [\"at 5\"]\n", "headline \"at 5\""),
    ];
    for (extra, want) in cases {
        let spec = write_file(d.path(), "bad.toml", &spec_text("bad", &body("1s", extra)));
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", spec.to_str().unwrap()]));
        assert_eq!(code, 2, "{extra}: {err}");
        assert!(
            err.contains(want) && err.contains("headline") && err.contains("bad.toml"),
            "{extra}: {err}"
        );
    }
    let reads = body("1s", "headline = [\"fill_once\"]\n")
        .replace("read_percent = 0", "read_percent = 100");
    let spec = write_file(d.path(), "reads.toml", &spec_text("r", &reads));
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", spec.to_str().unwrap()]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("only reads"), "{err}");
}

/// The CSV records of `wkrun compare ... --format csv`.
fn compare_csv(dir: &Path, runs: &[&Path]) -> Vec<Vec<String>> {
    let mut args = vec!["compare"];
    args.extend(runs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--format", "csv"]);
    let (code, out, err) = code_out_err(&wkrun(dir, &args));
    assert_eq!(code, 0, "{err}");
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(out.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

#[test]
fn compare_leads_with_headlines_and_shows_what_differed() {
    let d = tempdir();
    let extra = "headline = [\"fill_once\", \"last 5s\"]\n";
    let a = run_sim(&d.path().join("a"), &body("30s", extra), &[]);
    let b = run_sim(
        &d.path().join("b"),
        &body("30s", extra),
        &["--set", "queue_depth=16"],
    );
    let recs = compare_csv(d.path(), &[&a, &b]);
    // Both folders are named "out": the columns are headed by spec, target and start time.
    assert_eq!(recs[0][..2], ["phase", "metric"]);
    assert_eq!(recs[0][4], format!("{} change (%)", recs[0][3]));
    let (_, ra) = strict_results(&a);
    let (_, rb) = strict_results(&b);
    let find = |phase: &str, metric: &str| {
        recs.iter()
            .find(|r| r[0] == phase && r[1] == metric)
            .unwrap_or_else(|| panic!("no row {phase} / {metric}: {recs:?}"))
            .clone()
    };
    assert_eq!(
        find("(runs)", "--set overrides")[2..4],
        ["none", "queue_depth=16"]
    );
    assert_eq!(
        find("w", "parameters that differ")[2..4],
        ["queue_depth=8", "queue_depth=16"]
    );
    // The phase's rows: differing parameters, then the headline figures in order, then the whole phase.
    let labels: Vec<&str> = recs
        .iter()
        .filter(|r| r[0] == "w")
        .map(|r| r[1].as_str())
        .collect();
    assert_eq!(
        labels[..8],
        [
            "parameters that differ",
            "time to write the span once (s)",
            "IOPS before the span written once",
            "latency mean before the span written once (µs)",
            "IOPS after the span written once",
            "latency mean after the span written once (µs)",
            "IOPS, last 5s, avg",
            "IOPS, last 5s, min",
        ]
    );
    // A write-only phase: write latency rows, none of reads (issue 24 item 11).
    assert!(
        labels.contains(&"write latency p50 (µs)") && !labels.contains(&"read latency p50 (µs)")
    );
    // Values are the results' own; the change is a plain number computed from them.
    let (pa, pb) = (phase(&ra, 0), phase(&rb, 0));
    let row = find("w", "IOPS, last 5s, avg");
    let (va, vb) = (
        figure(pa, "window last 5s avg").unwrap(),
        figure(pb, "window last 5s avg").unwrap(),
    );
    assert_eq!(row[2..4], [format!("{va:.1}"), format!("{vb:.1}")]);
    let change: f64 = row[4].parse().expect("a plain number");
    assert!(
        (change - (vb - va) / va * 100.0).abs() <= 0.05 + 1e-9,
        "{row:?}"
    );
    let p50 = find("w", "write latency p50 (µs)");
    assert_eq!(
        p50[2],
        format!(
            "{:.2}",
            pa["write"]["latency_ns"]["p50"].as_f64().unwrap() / 1e3
        )
    );
    // Every change column holds a number or nothing.
    for r in &recs[1..] {
        assert!(r[4].is_empty() || r[4].parse::<f64>().is_ok(), "{r:?}");
    }
    // The composite: one phase, its lead figure the first with a direction (IOPS before the fill).
    let lead = |p: &Value| figure(p, "fill_once before iops").unwrap();
    let comp = find(
        "(all phases)",
        "composite (geometric mean of ratios to the first run)",
    );
    assert_eq!(
        comp[2..4],
        ["1.000".to_string(), format!("{:.3}", lead(pb) / lead(pa))]
    );
}

#[test]
fn report_leads_with_headline_numbers_and_per_run_parameters() {
    let d = tempdir();
    let extra = "headline = [\"last 5s\"]\n";
    let a = run_sim(&d.path().join("a"), &body("10s", extra), &[]);
    let b = run_sim(
        &d.path().join("b"),
        &body("10s", extra),
        &["--set", "queue_depth=16"],
    );
    let rep = d.path().join("rep");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "report",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "-o",
            rep.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(rep.join("index.html")).expect("index.html");
    let start = page
        .find("<section id=\"headline\">")
        .expect("a headline section");
    let end = start + page[start..].find("</section>").expect("its end");
    let section = &page[start..end];
    // It comes before every phase section.
    assert!(
        start
            < page
                .find("<section id=\"phase-0\">")
                .expect("phase section")
    );
    assert!(
        section.contains("<th>IOPS, last 5s, avg (IOPS)</th>"),
        "{section}"
    );
    let (_, ra) = strict_results(&a);
    let (_, rb) = strict_results(&b);
    let (va, vb) = (
        figure(phase(&ra, 0), "window last 5s avg").unwrap(),
        figure(phase(&rb, 0), "window last 5s avg").unwrap(),
    );
    assert!(section.contains(&format!("<td>{va:.1}</td>")), "{section}");
    let change = (vb - va) / va * 100.0;
    let shown = format!("{vb:.1} ({:+.1} %)", (change * 10.0).round() / 10.0);
    assert!(section.contains(&shown), "{shown} not in {section}");
    // The runs differ in queue depth: one parameter line per run.
    assert_eq!(page.matches("<p class=\"params\">").count(), 2, "{page}");
    assert!(page.contains("QD8") && page.contains("QD16"));
}

/// `"at T"` past the last full interval of a duration-bounded workload has no figures after it: refused by
/// `validate` and by a run (exit 2, file, line and key named, nothing written). With `duration = "10s"`
/// and `interval = "2s"` the latest point is 8 s (row 4 ends there, row 5 is after): `"at 8s"` runs with
/// after-figures over exactly that one row; `"at 9s"` (reached in the last row) and `"at 99h"` are refused.
#[test]
fn an_at_point_with_nothing_after_it_is_refused() {
    let d = tempdir();
    let dir = d.path();
    for (point, latest) in [("99h", "8s"), ("9s", "8s"), ("10s", "8s")] {
        let extra = format!("interval = \"2s\"\nheadline = [\"at {point}\"]\n");
        write_file(dir, "bad.toml", &spec_text("bad", &body("10s", &extra)));
        let before = dir_listing(dir);
        for args in [
            &["validate", "bad.toml"][..],
            &["bad.toml", "--target", SIM, "-o", "out"],
        ] {
            let (code, _, err) = code_out_err(&wkrun(dir, args));
            assert_eq!(code, 2, "{args:?}: {err}");
            let first = err.lines().next().unwrap_or_default();
            assert_eq!(
                first,
                format!(
                    "error: bad.toml:14:1: phase[0] \"w\".headline: headline \"at {point}\" leaves no figures \
                     after it: the phase measures 10s (duration) in intervals of 2s; the latest point with \
                     figures after it is \"at {latest}\""
                ),
                "{args:?}"
            );
            assert_eq!(dir_listing(dir), before, "{args:?}: nothing written");
        }
    }
    let out = run_sim(
        &dir.join("ok"),
        &body("10s", "interval = \"2s\"\nheadline = [\"at 8s\"]\n"),
        &[],
    );
    let (_, r) = strict_results(&out);
    let split = &phase(&r, 0)["derived"]["splits"][0];
    assert_eq!(
        (
            split["before"]["intervals"].as_u64(),
            split["after"]["intervals"].as_u64()
        ),
        (Some(4), Some(1)),
        "{split}"
    );
    assert!(figure(phase(&r, 0), "at 8s after iops").is_some());
}
