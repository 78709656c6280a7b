//! The charts of `wkrun report` on real runs of the simulated drive (issue 14 item 4, issue 16 item 7):
//! sweep members overlaid on one time plot and named after their labels, averages equal to a
//! recomputation from the per-second series, the moment the span was written once recomputed from the
//! CSV, results before fills on the page, and the latency matrix as one 3 × 3 table of the results' values.

use crate::common::*;
use std::path::Path;

/// The text of every `<text>` element of an SVG file, trimmed.
fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("svg");
    let doc = roxmltree::Document::parse(&text).expect("svg is XML");
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "text")
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

fn f(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col].parse().expect("number")
}

/// Runs `spec` (text) on a 512 MiB simulated drive with `sets`, then `wkrun report`; returns the
/// temporary folder, the results folder and the report folder.
fn run_and_report(
    spec: &str,
    sets: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempdir();
    let spec = write_file(tmp.path(), "s.toml", spec);
    let mut args = vec![
        spec.to_str().expect("utf-8"),
        "--target",
        "sim:capacity=512MiB,op=7%",
        "-o",
        "run",
        "-q",
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &args));
    assert_eq!(code, 0, "run failed: {err}");
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &["report", "run", "-o", "rep"]));
    assert_eq!(code, 0, "report failed: {err}");
    let (run, rep) = (tmp.path().join("run"), tmp.path().join("rep"));
    (tmp, run, rep)
}

const SWEEP: &str = r#"
[defaults]
engine = "psync"
seed = 5
[[phase]]
name = "purge"
kind = "erase"
span = "100%"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
queue_depth = 2
[[phase]]
name = "saturate"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 32
read_percent = 0
duration = "3min"
aggregate = "1m"
windows = ["last 2m"]
[[sweep]]
name = "op"
phases = ["purge", "fill", "saturate"]
span = ["50%", "25%"]
"#;

#[test]
fn report_overlays_sweep_members_plots_averages_and_puts_fills_last() {
    let (_tmp, run, rep) = run_and_report(&spec_text("ovl", SWEEP), &[]);
    let res = results(&run);
    let phases = res["phases"].as_array().expect("phases");
    let sat: Vec<&serde_json::Value> = phases
        .iter()
        .filter(|p| p["name"].as_str().unwrap().starts_with("saturate["))
        .collect();
    assert_eq!(sat.len(), 2);

    // Averages: results' one-minute groups = means of 60 consecutive full rows of total IOPS, recomputed
    // here from the CSV; the library plots exactly those.
    let loaded = wkrun::report::runs::load_run(&run.join("results.json")).expect("load");
    let mut legend = Vec::new();
    for p in &sat {
        let rows = csv_rows(&run.join(p["series_csv"].as_str().unwrap()));
        assert_eq!(rows.len(), 181, "3 min of 1 s rows and the drain");
        let full: Vec<f64> = rows
            .iter()
            .filter(|r| r["partial"] == "0")
            .map(|r| f(r, "read_iops") + f(r, "write_iops"))
            .collect();
        let mine: Vec<f64> = full
            .chunks(60)
            .map(|c| c.iter().sum::<f64>() / c.len() as f64)
            .collect();
        let groups = p["aggregates"]["groups"].as_array().expect("groups");
        assert_eq!(groups.len(), mine.len());
        let i = p["index"].as_u64().unwrap() as usize;
        let (phase, series) = loaded.phase(i);
        let (every, pts) =
            wkrun::report::chart::aggregates::averages(phase, series).expect("averages");
        assert_eq!((every, pts.len()), (60.0, mine.len()));
        for (k, ((t, v), m)) in pts.iter().zip(&mine).enumerate() {
            assert!((v - m).abs() <= 1e-9 * m.abs(), "group {k}: {v} vs {m}");
            assert!((groups[k]["avg"].as_f64().unwrap() - m).abs() <= 1e-9 * m.abs());
            assert_eq!(*t, 60.0 * k as f64 + 30.0, "the group's middle");
        }
        // The span written once: cumulative write bytes reach span_bytes inside a row, interpolated.
        let span = p["params"]["span_bytes"].as_u64().unwrap();
        let mut sum = 0u64;
        let mut at = None;
        for r in &rows {
            let b: u64 = r["write_bytes"].parse().unwrap();
            if sum + b >= span && b > 0 {
                at =
                    Some(f(r, "t_s") - f(r, "interval_s") * (1.0 - (span - sum) as f64 / b as f64));
                break;
            }
            sum += b;
        }
        let at = at.expect("3 minutes write the span over");
        let label = p["labels"][0]["value"].as_str().unwrap();
        legend.push((label.to_string(), at, mine.len()));
    }

    // One chart, a series per member named after its label, and its marker lines.
    let avg = svg_texts(&rep.join("saturate-by-op-overlay-averages.svg"));
    for (label, at, n) in &legend {
        assert!(
            avg.contains(&format!(
                "op={label} ({n} points; filled once {})",
                wkrun::report::chart::scale::time_text(*at)
            )),
            "{avg:?}"
        );
    }
    // The members' marker lines have a legend item (the attack of issue 24, round 2: they had none).
    assert!(
        avg.iter()
            .any(|t| t == "thin line in a member's colour: its drive span written once"),
        "{avg:?}"
    );
    // Members are named by the sweep ("op"), not by the key it varies ("span").
    assert!(
        avg.iter().any(|t| t.starts_with(
            "Total IOPS, one-minute averages, each op — ovl · saturate[op] · sim:capacity=512MiB,op=7%"
        )),
        "{avg:?}"
    );
    let log = std::fs::read_to_string(rep.join("saturate-by-op-overlay-iops-log.svg")).unwrap();
    assert_eq!(
        log.matches("<circle").count(),
        360,
        "every second of both members"
    );
    // No zero IOPS: no 0 row on the log axis (the one "0" is the time axis's first tick), no hollow point.
    let zeros = svg_texts(&rep.join("saturate-by-op-overlay-iops-log.svg"))
        .iter()
        .filter(|t| *t == "0")
        .count();
    assert_eq!(zeros, 1);
    let hollow = log
        .split("<circle")
        .skip(1)
        .filter(|c| c[..c.find("/>").unwrap()].contains("fill=\"none\""))
        .count();
    assert_eq!(hollow, 0);
    // Fills overlaid by bandwidth.
    let bw = svg_texts(&rep.join("fill-by-op-overlay-bandwidth.svg"));
    assert!(
        bw.iter().any(|t| t.starts_with("op=50% ("))
            && bw.iter().any(|t| t.starts_with("op=25% ("))
    );

    // Results first, then the fills; the zoom on the window last 2m, on both scales.
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    let pos = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} in index.html"));
    let prep = pos("id=\"preparation\"");
    for s in [
        "saturate across op</h2>",
        "<h2>saturate[op=50%]</h2>",
        "<h2>saturate[op=25%]</h2>",
    ] {
        assert!(pos(s) < prep, "{s} before the fills");
    }
    for s in [
        "fill across op</h2>",
        "<h2>fill[op=50%]</h2>",
        "<h2>fill[op=25%]</h2>",
    ] {
        assert!(pos(s) > prep, "{s} after the results");
    }
    assert!(pos("<section id=\"headline\">") < pos("<h2>Contents</h2>"));
    let zoom = svg_texts(&rep.join("02-saturate_op-50pct-zoom-log-write.svg"));
    assert!(
        zoom.iter()
            .any(|t| t.starts_with("Write IOPS per interval (log scale, 60..180 s)")),
        "{zoom:?}"
    );
    assert!(zoom.contains(&"window last 2m starts at 60 s".to_string()));
    assert!(rep.join("02-saturate_op-50pct-zoom-write.svg").is_file());
    assert!(rep.join("02-saturate_op-50pct-bandwidth.svg").is_file());
}

#[test]
fn report_of_the_latency_matrix_is_one_table_of_the_results_values() {
    let spec =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/latency.toml"))
            .expect("spec");
    let (_tmp, run, rep) = run_and_report(&spec, &["duration=2s"]);
    let res = results(&run);
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    let start = html
        .find("<table class=\"matrix\">")
        .expect("the matrix table");
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    assert_eq!(table.matches("<tr>").count(), 4, "a header and 3 rows");
    for (i, bs) in ["512B", "4KiB", "8KiB"].iter().enumerate() {
        let row_start = table
            .find(&format!("<th class=\"l\">bs {bs}</th>"))
            .expect("row");
        let row = &table[row_start..];
        let row = &row[..row.find("</tr>").unwrap()];
        let cells: Vec<&str> = row.split("<td>").skip(1).collect();
        assert_eq!(cells.len(), 3, "row {i}");
        for (cell, read) in cells.iter().zip(["100", "65", "0"]) {
            let name = format!("latency[bs={bs},read={read}]");
            let p = res["phases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name.as_str())
                .expect("phase");
            for dir in ["read", "write"] {
                let l = &p[dir]["latency_ns"];
                let want = if l.is_null() {
                    format!("{dir} –")
                } else {
                    format!(
                        "{dir} {:.1} / {:.1}",
                        l["mean"].as_f64().unwrap() / 1e3,
                        l["max"].as_f64().unwrap() / 1e3
                    )
                };
                assert!(cell.contains(&want), "{name}: {want:?} in {cell:?}");
            }
            let iops = p["read"]["iops"].as_f64().unwrap() + p["write"]["iops"].as_f64().unwrap();
            assert!(
                cell.contains(&format!("{iops:.1} IOPS")),
                "{name}: {iops} in {cell:?}"
            );
        }
    }
    // The nine cells' own plots are folded away; the percentile plot names p50.
    assert_eq!(html.matches("<details>").count(), 9);
    let pct = svg_texts(&rep.join("06-latency_bs-4KiB_read-65-percentiles.svg"));
    assert!(pct.contains(&"p50".to_string()), "{pct:?}");
}

/// The bandwidth chart draws every direction a phase does, trims too (trial 16: a trim-only phase's chart
/// had 0 points, a mixed phase's drew reads and writes only): one line per direction with bytes, one point
/// per full row of the series CSV, each row's `trim_bw_bytes_per_s` the trims' value.
#[test]
fn the_bandwidth_chart_draws_trims() {
    let spec = r#"format = 1
[spec]
name = "t"
version = "1"
[defaults]
block_size = "4KiB"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
[[phase]]
name = "trim-only"
kind = "workload"
pattern = "random"
duration = "5s"
read_percent = 0
trim_percent = 100
[[phase]]
name = "mixed"
kind = "workload"
pattern = "random"
duration = "5s"
read_percent = 50
trim_percent = 20
"#;
    let (_tmp, run, rep) = run_and_report(spec, &[]);
    let (_, r) = strict_results(&run);
    let html = std::fs::read_to_string(rep.join("index.html"))
        .expect("index.html")
        .replace("&#39;", "'");
    for (i, name, dirs) in [
        (1, "trim-only", &["trim"][..]),
        (2, "mixed", &["read", "write", "trim"][..]),
    ] {
        let rows = csv_rows(&run.join(r["phases"][i]["series_csv"].as_str().expect("csv")));
        let full: Vec<_> = rows.iter().filter(|row| row["partial"] == "0").collect();
        assert_eq!(full.len(), 5, "{name}");
        // Every full row has trims: the trims' line has a point per row, as each other direction's.
        assert!(
            full.iter().all(|row| f(row, "trim_bw_bytes_per_s") > 0.0),
            "{name}"
        );
        let points = dirs.len() * full.len();
        let caption = format!(
            "{points} points: each interval's bytes over its length, one line per run and direction (reads thick, writes thin where a run has both, trims triangles beside either)."
        );
        assert!(html.contains(&caption), "{name}: {caption}");
        let svg = rep.join(format!("0{i}-{name}-bandwidth.svg"));
        let texts = svg_texts(&svg);
        // The legend: the drive named with its first direction, then the others.
        let legend: Vec<&str> = texts
            .iter()
            .filter(|t| ["reads", "writes", "trims"].iter().any(|w| t.ends_with(w)))
            .map(|t| t.rsplit(": ").next().unwrap_or(t))
            .collect();
        let want: Vec<String> = dirs.iter().map(|d| format!("{d}s")).collect();
        assert_eq!(legend, want, "{name}: {texts:?}");
    }
}

/// Trial 28 M4: `battery.svg` of 12 workloads cut every name to `4k-rando…`, wrote no values and had no
/// title per bar: its bars could not be told apart. Two runs of a 12-phase matrix (block size × queue
/// depth × mix) on simulated drives of other spare areas: the x axis numbers the workloads 1 to 12, the
/// legend's key rows name them in order, each bar's value is written (upwards: the bars are too narrow for
/// it level), and each bar's `<title>` names its workload, its run and the two lead figures, read here
/// from the runs' results.
#[test]
fn a_battery_of_12_workloads_is_numbered_with_values_and_titles() {
    let tmp = tempdir();
    let d = tmp.path();
    let spec = r#"
[defaults]
engine = "psync"
seed = 3
[[phase]]
name = "rw"
kind = "workload"
block_size = ["4KiB", "128KiB"]
queue_depth = [1, 32]
read_percent = [100, 0, 50]
duration = "1s"
"#;
    write_file(d, "m.toml", &spec_text("m28", spec));
    for (out, sim) in [
        ("r1", "sim:capacity=256MiB,op=12%"),
        ("r2", "sim:capacity=256MiB,op=25%"),
    ] {
        let args = ["m.toml", "--target", sim, "-q", "-o", out, "--label", out];
        let (c, _, e) = code_out_err(&wkrun(d, &args));
        assert_eq!(c, 0, "{e}");
    }
    let (c, _, e) = code_out_err(&wkrun(d, &["report", "r1", "r2", "-o", "rep"]));
    assert_eq!(c, 0, "{e}");
    // Each workload's name and its IOPS, phase mean (the lead figure) in r1 and r2, in r1's order.
    let lead = |run: &str| -> Vec<(String, f64)> {
        let r = results(&d.join(run));
        let phases = r["phases"].as_array().expect("phases");
        phases
            .iter()
            .map(|p| {
                let h = p["headline"].as_array().expect("headline");
                let f = h.iter().find(|f| f["key"] == "mean iops").expect("figure");
                (
                    p["name"].as_str().expect("name").to_string(),
                    f["value"].as_f64().expect("value"),
                )
            })
            .collect()
    };
    let (r1, r2) = (lead("r1"), lead("r2"));
    assert_eq!(r1.len(), 12);
    let svg_path = d.join("rep/battery.svg");
    let texts = svg_texts(&svg_path);
    // The x axis: 1 to 12, in order, then the axis's words.
    let numbers: Vec<String> = (1..=12).map(|i| i.to_string()).collect();
    let ticks: Vec<&String> = texts.iter().filter(|t| numbers.contains(t)).collect();
    assert_eq!(ticks, numbers.iter().collect::<Vec<_>>());
    assert!(texts.contains(&"workload, numbered as in the key below".to_string()));
    // The key rows: `N name`, in r1's order.
    let key: Vec<&String> = texts
        .iter()
        .filter(|t| {
            t.split_once(' ')
                .is_some_and(|(n, _)| numbers.iter().any(|x| x == n))
        })
        .filter(|t| !t.ends_with(" %"))
        .collect();
    let want: Vec<String> = r1
        .iter()
        .enumerate()
        .map(|(i, (name, _))| format!("{} {name}", i + 1))
        .collect();
    assert_eq!(key, want.iter().collect::<Vec<_>>());
    // The values: per workload, r1's 100.0 % then r2's ratio, each written upwards.
    let pct = |w: usize| r2[w].1 / r1[w].1 * 100.0;
    let values: Vec<String> = texts
        .iter()
        .filter(|t| t.ends_with(" %"))
        .cloned()
        .collect();
    let want: Vec<String> = (0..12)
        .flat_map(|w| ["100.0 %".to_string(), format!("{:.1} %", pct(w))])
        .collect();
    assert_eq!(values, want);
    let text = std::fs::read_to_string(&svg_path).expect("svg");
    let doc = roxmltree::Document::parse(&text).expect("svg is XML");
    let upright = doc
        .descendants()
        .filter(|n| {
            n.tag_name().name() == "text" && n.text().is_some_and(|t| t.trim().ends_with(" %"))
        })
        .filter(|n| {
            n.attribute("transform")
                .is_some_and(|t| t.starts_with("rotate(270"))
        })
        .count();
    assert_eq!(upright, 24);
    // A title per bar, over it.
    let titles: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && n.attribute("class") == Some("bar"))
        .map(|g| {
            let t = g
                .children()
                .find(|c| c.tag_name().name() == "title")
                .expect("title");
            t.text().unwrap_or("").to_string()
        })
        .collect();
    let want: Vec<String> = (0..12)
        .flat_map(|w| {
            let (name, a) = (&r1[w].0, r1[w].1);
            [
                format!(
                    "{} {name}, r1: 100.0 % (IOPS, phase mean: {a:.1} against {a:.1} IOPS)",
                    w + 1
                ),
                format!(
                    "{} {name}, r2: {:.1} % (IOPS, phase mean: {:.1} against {a:.1} IOPS)",
                    w + 1,
                    pct(w),
                    r2[w].1
                ),
            ]
        })
        .collect();
    assert_eq!(titles, want);
}
