//! A sweep's members compared within one run (issue 14, seed 004's fresh against simulated-used drive):
//! `wkrun compare RESULTS --by NAME` and the report's "Sweep members compared" table. A two-member sweep
//! (`state`: the fill over a quarter or the whole simulated drive, then the same writes and reads) runs on
//! the simulated drive; every expected number is recomputed from the run's own results.json by the oracle
//! here (change = (used − fresh) / fresh, composite = geometric mean of the lead figures' ratios).

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const SIM: &str = "sim:capacity=64MiB,op=7%,block=256KiB";

/// Purge, fill (its span set by the sweep), then 4 KiB random writes of the whole quarter and 2 s of
/// random reads on it; the sweep `state` runs it all at 25 % (fresh) and 100 % (used).
const BODY: &str = r#"
[[phase]]
name = "purge"
kind = "erase"
span = "100%"
method = "auto"

[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4

[[phase]]
name = "w"
kind = "workload"
span = "25%"
pattern = "random"
block_size = "4KiB"
queue_depth = 8
read_percent = 0
size = "100%"

[[phase]]
name = "r"
kind = "workload"
span = "25%"
pattern = "random"
block_size = "4KiB"
queue_depth = 8
read_percent = 100
duration = "2s"

[[sweep]]
name = "state"
phases = ["purge", "fill", "w", "r"]
span = ["25%", "100%"]
"#;

/// Runs the sweep on the simulated drive in `dir`; returns the output folder and its results.
fn run(dir: &Path) -> (PathBuf, Value) {
    let (o, out) = run_spec(dir, "members", BODY, Path::new(SIM), &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "wkrun failed: {err}");
    let r = results(&out);
    (out, r)
}

/// The phase named `name` in the results.
pub(crate) fn named<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no phase {name}"))
}

/// The phase's lead figure: its first headline figure with a direction, `(value, higher is better)`.
fn lead(p: &Value) -> (f64, bool) {
    let f = p["headline"]
        .as_array()
        .expect("headline")
        .iter()
        .find(|f| f.get("better").is_some())
        .expect("a headline figure with a direction");
    (f["value"].as_f64().expect("value"), f["better"] == "higher")
}

/// One decimal, as compare prints a change (no negative zero).
fn pct(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    format!("{:.1}", if r == 0.0 { 0.0 } else { r })
}

/// The CSV as rows of fields.
fn csv(text: &str) -> Vec<Vec<String>> {
    let mut rd = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    rd.records()
        .map(|r| r.expect("csv row").iter().map(String::from).collect())
        .collect()
}

/// The oracle's composite of the workloads `w` and `r`: exp(mean(ln ratio)), ratio used / fresh where
/// higher is better.
fn composite(r: &Value) -> f64 {
    let logs: Vec<f64> = ["w", "r"]
        .iter()
        .map(|n| {
            let (fresh, higher) = lead(named(r, &format!("{n}[state=25%]")));
            let (used, _) = lead(named(r, &format!("{n}[state=100%]")));
            match higher {
                true => (used / fresh).ln(),
                false => (fresh / used).ln(),
            }
        })
        .collect();
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

#[test]
fn compare_by_a_sweep_gives_each_members_change_against_the_first_and_a_composite() {
    let tmp = tempdir();
    let (_, r) = run(tmp.path());
    let o = wkrun(
        tmp.path(),
        &["compare", "out", "--by", "state", "--format", "csv"],
    );
    let (code, text, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let rows = csv(&text);
    assert_eq!(
        rows[0],
        [
            "phase",
            "metric",
            "state=25%",
            "state=100%",
            "state=100% change (%)"
        ]
    );
    for row in &rows[1..] {
        assert!(
            row[4].is_empty() || row[4].parse::<f64>().is_ok(),
            "change column not numeric: {row:?}"
        );
    }
    let get = |phase: &str, metric: &str| -> &Vec<String> {
        rows.iter()
            .find(|x| x[0] == phase && x[1] == metric)
            .unwrap_or_else(|| panic!("no row {phase} / {metric} in\n{text}"))
    };
    // The phases are paired without the label; the erases are left out.
    let phases: Vec<&str> = rows[1..].iter().map(|x| x[0].as_str()).collect();
    assert!(
        !phases
            .iter()
            .any(|p| p.contains("purge") || p.contains('['))
    );
    // What the sweep changed: the fill's span (16 MiB and 64 MiB).
    // Trial 27 L1: not the stream seed each member draws from its own name, on every phase.
    let fill = get("fill", "parameters that differ");
    assert_eq!(
        fill[2..4],
        [
            "span_bytes=16777216 ops=128 expected_bytes=16777216",
            "span_bytes=67108864 ops=512 expected_bytes=67108864"
        ],
        "{fill:?}"
    );
    assert!(!text.contains("stream_seed"), "{text}");
    // Each workload's headline figures: the values of results.json and the change from them.
    let mut checked = 0;
    for n in ["w", "r"] {
        let (fresh, used) = (
            named(&r, &format!("{n}[state=25%]")),
            named(&r, &format!("{n}[state=100%]")),
        );
        for f in fresh["headline"].as_array().expect("headline") {
            let label = match f["unit"].as_str() {
                Some("IOPS") if f["label"].as_str().is_some_and(|l| l.contains("IOPS")) => {
                    f["label"].as_str().expect("label").to_string()
                }
                _ => format!(
                    "{} ({})",
                    f["label"].as_str().unwrap(),
                    f["unit"].as_str().unwrap()
                ),
            };
            let u = used["headline"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["key"] == f["key"])
                .expect("same figure in the used member");
            let (a, b) = (f["value"].as_f64().unwrap(), u["value"].as_f64().unwrap());
            let row = get(n, &label);
            assert_eq!(row[4], pct((b - a) / a * 100.0), "{n} {label}: {row:?}");
            checked += 1;
        }
        // The whole-phase total IOPS of both members.
        let iops =
            |p: &Value| p["read"]["iops"].as_f64().unwrap() + p["write"]["iops"].as_f64().unwrap();
        let row = get(n, "IOPS, phase mean");
        assert_eq!(row[2], format!("{:.1}", iops(fresh)));
        assert_eq!(row[3], format!("{:.1}", iops(used)));
        assert_eq!(
            row[4],
            pct((iops(used) - iops(fresh)) / iops(fresh) * 100.0)
        );
    }
    assert_eq!(checked, 6, "three mean figures per workload");
    // The used drive's writes are slower: garbage collection past the spare area.
    let (wf, _) = lead(named(&r, "w[state=25%]"));
    let (wu, _) = lead(named(&r, "w[state=100%]"));
    assert!(wu < wf, "used {wu} IOPS not below fresh {wf}");
    // The composite of the workloads (w and r; not the fill).
    let c = composite(&r);
    let row = get(
        "(all phases)",
        "composite of the workloads (geometric mean of ratios to state=25%)",
    );
    assert_eq!(
        row[2..],
        [
            "1.000".to_string(),
            format!("{c:.3}"),
            pct((c - 1.0) * 100.0)
        ]
    );
    // The table and Markdown forms carry the same composite.
    let o = wkrun(tmp.path(), &["compare", "out", "--by", "state"]);
    let (code, table, _) = code_out_err(&o);
    assert_eq!(code, 0);
    let last = table.lines().last().expect("composite line");
    let want = format!(
        "1.000 {c:.3} ({:+.1} %)",
        pct((c - 1.0) * 100.0).parse::<f64>().unwrap()
    );
    assert!(
        last.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .ends_with(&want),
        "{last}"
    );
    let o = wkrun(
        tmp.path(),
        &["compare", "out", "--by", "state", "--format", "markdown"],
    );
    let (code, md, _) = code_out_err(&o);
    assert_eq!(code, 0);
    assert!(
        md.starts_with("| phase | metric | state=25% | state=100% |\n"),
        "{md}"
    );
}

#[test]
fn the_report_shows_each_sweeps_members_against_the_first() {
    let tmp = tempdir();
    let (out, r) = run(tmp.path());
    let rep = tmp.path().join("rep");
    let o = wkrun(
        tmp.path(),
        &["report", out.to_str().unwrap(), "-o", rep.to_str().unwrap()],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(rep.join("index.html")).expect("index.html");
    let at = html
        .find("<section id=\"members\">")
        .expect("a members section");
    assert!(html.find("<section id=\"headline\">").expect("headline") < at);
    let sec = &html[at..at + html[at..].find("</section>").expect("end")];
    assert!(sec.contains("sweep state against state=25%"), "{sec}");
    assert!(sec.contains("<code>wkrun compare "), "{sec}");
    assert!(sec.contains(" --by state</code>"), "{sec}");
    assert!(!sec.contains("stream_seed"), "{sec}");
    let (fresh, used) = (named(&r, "w[state=25%]"), named(&r, "w[state=100%]"));
    let (a, b) = (lead(fresh).0, lead(used).0);
    // Each change coloured: worse where the used drive's IOPS fall (issue 25 item 5).
    let class = |change: f64| if change < 0.0 { "worse" } else { "better" };
    let change = pct((b - a) / a * 100.0).parse::<f64>().unwrap();
    let cells = format!(
        "<td>{a:.1}</td><td>{b:.1} <span class=\"{}\">({change:+.1} %)</span></td>",
        class(change)
    );
    assert!(sec.contains(&cells), "no {cells} in {sec}");
    let c = composite(&r);
    let change = pct((c - 1.0) * 100.0).parse::<f64>().unwrap();
    assert!(
        sec.contains(&format!(
            "<td>1.000</td><td>{c:.3} <span class=\"{}\">({change:+.1} %)</span></td>",
            class(change)
        )),
        "{sec}"
    );
}

#[test]
fn compare_by_an_unknown_label_exits_2_naming_it() {
    let tmp = tempdir();
    run(tmp.path());
    let o = wkrun(tmp.path(), &["compare", "out", "--by", "op"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert_eq!(
        err.trim_end(),
        "error: --by op: no phase of out/results.json has a label op (its labels: state)"
    );
}

/// Issue 24 leftover: on a file target the members' changes and the composite describe the file system and
/// the page cache, not a drive (README: fresh against used on a file is noise): `compare --by` says so
/// under its table (on stderr beside CSV), naming the run; on the simulated drive
/// (`compare_by_a_sweep_gives_each_members_change_against_the_first_and_a_composite`) the composite is the
/// table's last line, with no note.
#[test]
fn compare_by_on_a_file_target_says_its_composite_may_be_noise() {
    let tmp = tempdir();
    let d = tmp.path();
    let target = d.join("t.img");
    let (o, _) = run_spec(
        d,
        "members",
        BODY,
        &target,
        &["--target-size", "8MiB", "--set", "phase.r.duration=1s"],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let note = format!(
        "note: {}: on a file: the numbers describe the file and the file system and page cache under it, \
         not an SSD, so the changes and the composite may be noise, differing from run to run",
        target.display()
    );
    let (code, table, err) = code_out_err(&wkrun(d, &["compare", "out", "--by", "state"]));
    assert_eq!((code, err.as_str()), (0, ""));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[..2], [note.as_str(), ""], "{table}");
    assert!(
        lines[lines.len() - 1].starts_with("(all phases)"),
        "{table}"
    );
    let (code, csv, err) = code_out_err(&wkrun(
        d,
        &["compare", "out", "--by", "state", "--format", "csv"],
    ));
    assert_eq!(code, 0);
    assert_eq!(err, format!("{note}\n"));
    assert!(!csv.contains("note:"), "{csv}");
}
