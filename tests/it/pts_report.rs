//! The SNIA PTS report (issue 29 item 3): `wkrun report` of a run of a `specs/snia/` spec has one linked
//! section per test with its set-up table, the measurement window's tables and the standard's plots. Every
//! number of a table is recomputed here from the run's series CSVs or its phases' results (each round's
//! rate from the CSV rows, five nines from the latency histograms), by code independent of wkrun's. The
//! runs are the specs' trial forms (`--set`) on the small simulated drive: seconds each.

use crate::common::*;
use crate::rounds::csv_rate;
use crate::snia::run_pts;
use crate::sweep_members::named;
use serde_json::Value;
use std::path::PathBuf;

/// Runs `specs/snia/NAME.toml` with `args` on the small simulated drive ([`run_pts`]) and reports it: the
/// temporary folder, the results folder, the results and the page.
fn run_and_report(name: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf, Value, String) {
    let (dir, out, r) = run_pts(name, args);
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &["report", "out", "-o", "rep"]));
    assert_eq!(code, 0, "report {name}: {err}");
    let page = std::fs::read_to_string(dir.path().join("rep/index.html")).expect("index.html");
    (dir, out, r, page)
}

/// The body cells of the table `id` of `page`, row by row, as text (entities of `&`, `<`, `>`, `"`
/// undone).
fn table(page: &str, id: &str) -> Vec<Vec<String>> {
    let start = page
        .find(&format!("<table id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no table {id}"));
    let t = &page[start..start + page[start..].find("</table>").expect("table end")];
    let body = &t[t.find("<tbody>").expect("tbody")..];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').expect("td") + 1..c.find("</td>").expect("/td")];
                    c.replace("&quot;", "\"")
                        .replace("&#39;", "'")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

/// The set-up table's value of `item`.
fn setup(page: &str, anchor: &str, item: &str) -> String {
    let start = page
        .find(&format!("<table id=\"{anchor}-setup\">"))
        .expect("setup table");
    let t = &page[start..start + page[start..].find("</table>").expect("end")];
    let at = t
        .find(&format!("<th class=\"l\">{item}</th><td class=\"l\">"))
        .unwrap_or_else(|| panic!("no {item}"));
    let v = &t[at..];
    let v = &v[v.find("<td class=\"l\">").expect("td") + 14..];
    v[..v.find("</td>").expect("/td")]
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// `got` (a table's text) is `want` printed with `d` decimals, within the printing's rounding.
fn near(got: &str, want: f64, d: i32) {
    let g: f64 = got
        .parse()
        .unwrap_or_else(|_| panic!("{got:?} is not a number"));
    assert!(
        (g - want).abs() <= 0.5 * 10f64.powi(-d) + 1e-9 * want.abs(),
        "{got} vs {want}"
    );
}

/// The window's first and last round of block `b`.
fn window(b: &Value) -> std::ops::RangeInclusive<u64> {
    u(b, "/window/first")..=u(b, "/window/last")
}

/// Oracle: the 99.999th percentile (ns) of the pairs: the first value, in increasing order, at which the
/// running count reaches ⌈0.99999 × total⌉.
fn five_nines(mut pairs: Vec<(u64, u64)>) -> u64 {
    pairs.sort();
    let total: u64 = pairs.iter().map(|p| p.1).sum();
    let need = (total as f64 * 0.99999).ceil() as u64;
    let mut sum = 0;
    for (v, c) in pairs {
        sum += c;
        if sum >= need {
            return v;
        }
    }
    unreachable!("the counts reach the total")
}

/// IOPS test, trial form narrowed to 2 mixes × 2 block sizes: the section is linked from the PTS list, its
/// set-up table says the purge, the 2× preconditioning and the verdict, and each cell of the IOPS table is
/// the mean over the window's rounds of that cell's total IOPS from its CSV.
#[test]
fn the_iops_report_tabulates_the_window_means_of_the_csvs() {
    let (dir, out, r, page) = run_and_report(
        "iops",
        &[
            "--set",
            "duration=2s",
            "--set",
            "read_percent=[65,0]",
            "--set",
            "block_size=[\"8KiB\",\"4KiB\"]",
        ],
    );
    assert!(page.contains("<li><a href=\"#pts-iops\">SNIA PTS: IOPS test (PTS 2.0.2 section 7)"));
    assert!(page.contains("<section id=\"pts-iops\" class=\"pts\">"));
    let b = &r["round_blocks"][0];
    let (first, last) = (u(b, "/window/first"), u(b, "/window/last"));
    assert_eq!(
        setup(&page, "pts-iops", "Steady state"),
        format!("block \"iops\": steady at round {last}, window rounds {first} to {last}")
    );
    assert_eq!(
        setup(&page, "pts-iops", "Preconditioning"),
        "\"precondition\": 131072 B sequential writes, 134217728 B written (2.00 × the capacity)"
    );
    assert_eq!(
        setup(&page, "pts-iops", "Purge"),
        "\"purge\": discard over 100 % of the capacity"
    );
    assert_eq!(setup(&page, "pts-iops", "Threads and queue depth"), "T1Q32");
    let rows = table(&page, "pts-iops-table");
    assert_eq!(rows.len(), 2);
    for (row, read) in rows.iter().zip(["65", "0"]) {
        assert_eq!(
            row[0],
            format!("{read}/{}", 100 - read.parse::<u32>().unwrap())
        );
        for (cell, bs) in row[1..].iter().zip(["8KiB", "4KiB"]) {
            let rates: Vec<f64> = window(b)
                .map(|i| {
                    let p = named(&r, &format!("iops[round={i},bs={bs},read={read}]"));
                    csv_rate(&out, p, "read") + csv_rate(&out, p, "write")
                })
                .collect();
            near(cell, rates.iter().sum::<f64>() / rates.len() as f64, 1);
        }
    }
    for f in ["b0-convergence", "b0-window", "iops-bs"] {
        let svg = dir.path().join(format!("rep/pts-iops-{f}.svg"));
        assert!(svg.is_file(), "{f}");
        let text = std::fs::read_to_string(svg).expect("svg");
        assert!(page.contains(text.trim()), "{f} inline");
    }
}

/// Latency test, narrowed to 2 mixes × 2 block sizes: each row's average is the mean of the window's
/// rounds' mean latencies, its maximum the largest of their maxima, its five nines the percentile of their
/// histograms together.
#[test]
fn the_latency_report_gives_average_maximum_and_five_nines() {
    let (_d, _out, r, page) = run_and_report(
        "latency",
        &[
            "--set",
            "duration=2s",
            "--set",
            "read_percent=[65,0]",
            "--set",
            "block_size=[\"4KiB\",\"512B\"]",
        ],
    );
    let b = &r["round_blocks"][0];
    let rows = table(&page, "pts-latency-table");
    let want: Vec<(&str, &str)> =
        vec![("4KiB", "65"), ("4KiB", "0"), ("512B", "65"), ("512B", "0")];
    assert_eq!(rows.len(), want.len());
    for (row, (bs, read)) in rows.iter().zip(want) {
        assert_eq!(
            (row[0].as_str(), row[1].as_str()),
            (bs, if read == "0" { "0/100" } else { "65/35" })
        );
        let ps: Vec<&Value> = window(b)
            .map(|i| named(&r, &format!("latency[round={i},bs={bs},read={read}]")))
            .collect();
        let mean = ps
            .iter()
            .map(|p| p["total"]["latency_ns"]["mean"].as_f64().expect("mean"))
            .sum::<f64>()
            / ps.len() as f64;
        let max = ps
            .iter()
            .map(|p| u(p, "/total/latency_ns/max"))
            .max()
            .expect("max");
        let pairs: Vec<(u64, u64)> = ps
            .iter()
            .flat_map(|p| {
                ["read", "write"].into_iter().flat_map(move |d| {
                    p["latency_histograms"][d]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|x| (x[0].as_u64().unwrap(), x[1].as_u64().unwrap()))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default()
                })
            })
            .collect();
        near(&row[2], mean / 1e3, 2);
        near(&row[3], max as f64 / 1e3, 2);
        near(&row[4], five_nines(pairs) as f64 / 1e3, 2);
    }
    assert!(page.contains("pts-latency-latency-bs.svg"));
}

/// Throughput test: per block size, the window's read and write MB/s from the CSVs (ops × block size over
/// the phase's time), both blocks steady at their first window.
#[test]
fn the_throughput_report_tabulates_mb_per_s_per_block_size() {
    let (_d, out, r, page) = run_and_report("throughput", &["--set", "duration=2s"]);
    let rows = table(&page, "pts-throughput-table");
    assert_eq!(rows.len(), 2);
    for (k, (row, (name, bs))) in rows
        .iter()
        .zip([("tp128k", 131072.0), ("tp1024k", 1048576.0)])
        .enumerate()
    {
        let b = &r["round_blocks"][k];
        assert_eq!(
            (row[0].as_str(), row[1].clone()),
            (name, format!("{} KiB", bs as u64 / 1024))
        );
        for (cell, (read, dir)) in row[2..4].iter().zip([("100", "read"), ("0", "write")]) {
            let v: Vec<f64> = window(b)
                .map(|i| {
                    csv_rate(
                        &out,
                        named(&r, &format!("{name}[round={i},read={read}]")),
                        dir,
                    ) * bs
                        / 1e6
                })
                .collect();
            near(cell, v.iter().sum::<f64>() / v.len() as f64, 2);
        }
        assert_eq!(
            row[4],
            format!(
                "block \"{name}\": steady at round 5, the earliest the rule allows (its first window), window rounds 1 to 5"
            )
        );
    }
}

/// WSAT, whole on the small drive: its table's written GB are 4 × 64 MiB, its mean IOPS the phase's, its
/// last interval's IOPS the CSV's last full row; both plots (against time, against TGBW) are there; no
/// preconditioning and no steady-state rule, said so.
#[test]
fn the_wsat_report_plots_iops_against_time_and_tgbw() {
    let (dir, out, r, page) = run_and_report("wsat", &[]);
    let row = &table(&page, "pts-wsat-table")[0];
    let w = named(&r, "wsat");
    assert_eq!(row[0], "wsat");
    near(&row[2], (4u64 << 26) as f64 / 1e9, 3);
    near(&row[3], w["total"]["iops"].as_f64().expect("iops"), 1);
    let rows = csv_rows(&out.join(w["series_csv"].as_str().expect("csv")));
    let last = rows
        .iter()
        .rfind(|x| n(x, "partial") == 0)
        .expect("a full row");
    near(&row[4], f(last, "read_iops") + f(last, "write_iops"), 1);
    assert_eq!(
        setup(&page, "pts-wsat", "Preconditioning"),
        "none apart from the test's own stimulus"
    );
    assert_eq!(
        setup(&page, "pts-wsat", "Steady state"),
        "no steady-state rule in this test (it records the drive over time)"
    );
    for f in ["iops-time", "iops-tgbw"] {
        assert!(
            dir.path().join(format!("rep/pts-wsat-{f}.svg")).is_file(),
            "{f}"
        );
    }
}

/// DIRTH narrowed to QD 32 and 1: each level's IOPS is the window mean of its CSV rates; each histogram
/// plot counts every I/O of its phase.
#[test]
fn the_dirth_report_has_levels_curve_and_histograms() {
    let (dir, out, r, page) = run_and_report(
        "dirth",
        &["--set", "duration=2s", "--set", "queue_depth=[32,1]"],
    );
    let b = &r["round_blocks"][0];
    let rows = table(&page, "pts-dirth-table");
    assert_eq!(rows.len(), 2);
    for (row, qd) in rows.iter().zip([32, 1]) {
        assert_eq!(row[0], format!("T1Q{qd}"));
        let v: Vec<f64> = window(b)
            .map(|i| {
                let p = named(&r, &format!("dirth[round={i},qd={qd}]"));
                csv_rate(&out, p, "read") + csv_rate(&out, p, "write")
            })
            .collect();
        near(&row[1], v.iter().sum::<f64>() / v.len() as f64, 1);
    }
    assert!(dir.path().join("rep/pts-dirth-iops-latency.svg").is_file());
    for qd in [32, 1] {
        let p = named(&r, &format!("hist[qd={qd}]"));
        let ops = histogram_count(p, "read") + histogram_count(p, "write");
        assert_eq!(ops, u(p, "/read/ops") + u(p, "/write/ops"));
        assert!(
            page.contains(&format!("{ops} I/Os, reads and writes together")),
            "hist[qd={qd}]"
        );
        let file = format!(
            "rep/pts-dirth-hist-{}.svg",
            wkrun::results::outdir::slug(&format!("hist[qd={qd}]"))
        );
        assert!(dir.path().join(file).is_file());
    }
}

/// HIR narrowed to 3 bursts per wait state: per wait state, the bursts' mean write IOPS (from their CSVs)
/// and the baseline's; the time plot.
#[test]
fn the_hir_report_tabulates_bursts_and_baselines() {
    let mut args = vec!["--set".to_string(), "duration=2s".to_string()];
    for w in ["w5", "w10", "w15", "w25", "w50"] {
        for k in ["max_rounds", "window"] {
            args.extend(["--set".to_string(), format!("repeat.{w}.{k}=3")]);
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (dir, out, r, page) = run_and_report("hir", &args);
    let rows = table(&page, "pts-hir-table");
    assert_eq!(rows.len(), 5);
    for (row, w) in rows.iter().zip(["w5", "w10", "w15", "w25", "w50"]) {
        assert_eq!((row[0].as_str(), row[1].as_str()), (w, "3"));
        let v: Vec<f64> = (1..=3)
            .map(|i| csv_rate(&out, named(&r, &format!("burst-{w}[round={i}]")), "write"))
            .collect();
        near(&row[2], v.iter().sum::<f64>() / 3.0, 1);
        let base = named(&r, &format!("baseline-{w}"));
        near(&row[5], base["write"]["iops"].as_f64().expect("iops"), 1);
    }
    assert!(dir.path().join("rep/pts-hir-iops-time.svg").is_file());
}

/// XSR at 5 minutes a group: each group's MB/s is its bytes over its time from the CSV.
#[test]
fn the_xsr_report_tabulates_each_access_group() {
    let (dir, out, r, page) = run_and_report("xsr", &["--set", "duration=5min"]);
    let rows = table(&page, "pts-xsr-table");
    let names: Vec<&str> = rows.iter().map(|x| x[0].as_str()).collect();
    assert_eq!(names, ["seq-1024k-1", "rnd-8k", "seq-1024k-2"]);
    for row in &rows {
        let p = named(&r, &row[0]);
        let csv = csv_rows(&out.join(p["series_csv"].as_str().expect("csv")));
        let bytes: u64 = csv
            .iter()
            .map(|x| n(x, "read_bytes") + n(x, "write_bytes"))
            .sum();
        near(
            &row[4],
            bytes as f64 / f(csv.last().expect("row"), "t_s") / 1e6,
            2,
        );
    }
    assert!(dir.path().join("rep/pts-xsr-bw-time.svg").is_file());
}
