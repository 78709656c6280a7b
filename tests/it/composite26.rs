//! Trial 26 (M2, L5, L7): the lead figure of a pair of phases (`compare::pair_lead`, one definition) in
//! `wkrun compare`'s composite, the report's headline tables and "Workloads compared" bars, and the
//! ranking against the results library. Real runs on a simulated drive (virtual time) and real fio on a
//! small file; every expected number is recomputed from the runs' own results.

use crate::common::{code_out_err, results, spec_text, tempdir, wkrun, write_file};
use serde_json::Value;
use std::path::Path;

/// A fill.
const FILL: &str = r#"
[[phase]]
name = "fill"
kind = "fill"
"#;

/// A 4 KiB random write at QD32 judged by fio's steady-state rule over a window of 5 rounds (the trial's
/// `mine.toml`, phase randwrite).
const RANDWRITE: &str = r#"
[[phase]]
name = "randwrite"
kind = "workload"
block_size = "4KiB"
queue_depth = 32
read_percent = 0
duration = "20s"
steady_state = { rule = "fio", metric = "iops", kind = "slope", limit = 0.1, relative = true, window = 5 }
"#;

/// A 70/30 mix.
const MIX: &str = r#"
[[phase]]
name = "mix7030"
kind = "workload"
block_size = "4KiB"
queue_depth = 16
read_percent = 70
duration = "3s"
"#;

/// The simulated drive every run here uses.
const SIM: &str = "sim:capacity=256MiB,op=12%";

/// The composite row's label.
const COMPOSITE: &str = "composite (geometric mean of ratios to the first run)";

/// Runs the spec in `d` into `out`, labelled so, with `extra` arguments; it must succeed.
fn run(d: &Path, out: &str, extra: &[&str]) {
    let mut args = vec!["c26.toml", "--target", SIM, "-q", "-o", out, "--label", out];
    args.extend_from_slice(extra);
    let (c, _, e) = code_out_err(&wkrun(d, &args));
    assert_eq!(c, 0, "{e}");
}

/// The trial's runs: `r1` in full, `r2` from randwrite with `--set duration=4s` (shorter than the window:
/// its window mean is null). Asserts r1 reached steady state and r2 has no window mean.
fn full_and_short(d: &Path) {
    write_file(
        d,
        "c26.toml",
        &spec_text("c26", &[FILL, RANDWRITE, MIX].concat()),
    );
    run(d, "r1", &[]);
    run(d, "r2", &["--from", "randwrite", "--set", "duration=4s"]);
    let mean = |r: &str| phase(d, r, "randwrite")["headline"][1]["value"].clone();
    assert!(mean("r1").as_f64().is_some(), "r1 reached steady state");
    assert_eq!(mean("r2"), Value::Null);
}

/// Run `run`'s phase named `name` in its results.json.
fn phase(d: &Path, run: &str, name: &str) -> Value {
    let r = results(&d.join(run));
    let found = r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .find(|p| p["name"] == name);
    found
        .cloned()
        .unwrap_or_else(|| panic!("no phase {name} in {run}"))
}

/// The phase's IOPS, phase mean recomputed from its counts: every I/O over its duration.
fn iops(p: &Value) -> f64 {
    let ops = ["read", "write", "trim"].map(|d| p[d]["ops"].as_u64().unwrap_or(0));
    ops.iter().sum::<u64>() as f64 / p["duration_s"].as_f64().expect("duration")
}

/// The value of headline figure `key` of phase `p`.
fn headline(p: &Value, key: &str) -> f64 {
    let h = p["headline"].as_array().expect("headline");
    let f = h.iter().find(|f| f["key"] == key).expect("figure");
    f["value"].as_f64().expect("value")
}

/// The ratios the composite of r2 against r1 averages: randwrite's IOPS, phase mean (no steady window
/// mean in r2) and mix7030's headline IOPS, phase mean.
fn ratios(d: &Path) -> [f64; 2] {
    let rw = iops(&phase(d, "r2", "randwrite")) / iops(&phase(d, "r1", "randwrite"));
    let m = |r: &str| headline(&phase(d, r, "mix7030"), "mean iops");
    [rw, m("r2") / m("r1")]
}

/// Trial 26 M2: r2, too short for randwrite's 5-round window, was scored `over 1 of 2 workloads …
/// randwrite without a lead figure in both`, against the docs. Now randwrite is scored on its IOPS, phase
/// mean in both, the composite is the geometric mean over both workloads as recomputed here, and the note
/// says which figure led; the report's composite line and its battery bar say the same.
#[test]
fn a_run_too_short_for_its_steady_window_is_scored_on_its_iops() {
    let d = tempdir();
    let d = d.path();
    full_and_short(d);
    let o = wkrun(d, &["compare", "r1", "r2", "--format", "csv"]);
    let (c, out, err) = code_out_err(&o);
    assert_eq!(c, 0, "{err}");
    let [rw, mix] = ratios(d);
    let score = (rw * mix).sqrt();
    let mut csv = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    let rows: Vec<Vec<String>> = csv
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let row = rows.iter().find(|r| r[1] == COMPOSITE).expect("composite");
    assert_eq!(
        row[2..],
        [
            "1.000".to_string(),
            format!("{score:.3}"),
            format!("{:.1}", (score - 1.0) * 100.0)
        ]
    );
    let note = format!(
        "note: (all phases) {COMPOSITE}: a workload is scored on the first lead figure both runs' headline figures have, else on its IOPS, phase mean: {}: randwrite on IOPS, phase mean (IOPS, steady window mean, the first run's lead, has no value among this run's headline figures)\n",
        header[3]
    );
    assert!(err.contains(&note), "{err}");
    assert!(
        !format!("{out}{err}").contains("without a lead figure"),
        "{err}"
    );

    // The report: the composite line, its note, and randwrite's bar in "Workloads compared".
    let (c, _, e) = code_out_err(&wkrun(d, &["report", "r1", "r2", "-o", "rep"]));
    assert_eq!(c, 0, "{e}");
    let page = std::fs::read_to_string(d.join("rep/index.html")).expect("page");
    let change = (score - 1.0) * 100.0;
    assert!(
        page.contains(&format!(
            "): r2 {score:.3} ({}{change:.1} %)</p>",
            if change >= 0.0 { "+" } else { "" }
        )),
        "{page}"
    );
    assert!(
        page.contains("Composite: a workload is scored on the first lead figure both runs&#39; headline figures have, else on its IOPS, phase mean: r2: randwrite on IOPS, phase mean (IOPS, steady window mean, the first run&#39;s lead, has no value among this run&#39;s headline figures)</p>"),
        "{page}"
    );
    let svg = std::fs::read_to_string(d.join("rep/battery.svg")).expect("battery");
    for pct in [rw, mix].map(|r| format!("{:.1} %", r * 100.0)) {
        assert!(svg.contains(&pct), "{pct}: {svg}");
    }
}

/// The texts of an SVG chart (`randwrite`, `80.0 %`), in order.
fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split(">\n")
        .filter_map(|t| t.split_once("\n<"))
        .map(|t| t.0)
        .collect()
}

/// The cells of the headline tables' rows of `page`: phase, run, then each figure's cell, as text.
fn headline_rows(page: &str) -> Vec<Vec<String>> {
    let start = page
        .find("<section id=\"headline\">")
        .expect("headline numbers");
    let section = &page[start..start + page[start..].find("</section>").expect("end")];
    section
        .lines()
        .filter(|l| l.starts_with("<tr><td"))
        .map(|l| {
            l.split("<td")
                .skip(1)
                .map(|c| {
                    let mut text = String::new();
                    let mut tag = false;
                    for ch in c[c.find('>').expect("cell") + 1..].chars() {
                        match ch {
                            '<' => tag = true,
                            '>' => tag = false,
                            _ if !tag => text.push(ch),
                            _ => {}
                        }
                    }
                    text.replace("&#39;", "'")
                })
                .collect()
        })
        .collect()
}

/// The row of phase `name` and run `run` among `rows`, and the headers of its table's columns.
fn row<'a>(rows: &'a [Vec<String>], name: &str, run: &str) -> &'a [String] {
    let r = rows.iter().find(|r| r[0] == name && r[1] == run);
    r.unwrap_or_else(|| panic!("no row {name} {run}: {rows:?}"))
}

/// The header cells of the headline table holding phase `name`'s rows.
fn table_header(page: &str, name: &str) -> Vec<String> {
    let at = page
        .find(&format!("<tr><td class=\"l\">{name}</td>"))
        .expect("row");
    let head = page[..at].rfind("<thead><tr>").expect("table head") + "<thead><tr>".len();
    page[head..at]
        .split("<th")
        .skip(1)
        .map(|c| {
            let c = &c[c.find('>').expect("th") + 1..];
            c[..c.find("</th>").expect("end")].to_string()
        })
        .collect()
}

/// Trial 26 L5: `report fio.json r1` showed `–` for wkrun's randwrite "IOPS, phase mean" in the headline
/// table, where the "Workloads compared" chart under it sets exactly that figure side by side. Now it shows
/// the phase's IOPS, with its change; and r1 beside r2 (too short for its window) gets the IOPS, phase mean
/// column its bar compares, in both runs' rows.
///
/// Lead 27: the chart paired fio's fill job (a workload to fio) with wkrun's fill phase, which the composite
/// leaves out. Now its bars are the workloads the composite scores, paired as it pairs them: randwrite and
/// mix7030, each at the ratio of their IOPS, phase mean, whose geometric mean is the composite; no fill.
/// Skipped, saying so, without fio.
#[test]
fn the_report_shows_the_figures_its_bars_compare() {
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED the_report_shows_the_figures_its_bars_compare: no fio on this host");
        return;
    }
    let d = tempdir();
    let d = d.path();
    full_and_short(d);
    std::fs::write(d.join("f.img"), vec![0u8; 8 << 20]).expect("fio's file");
    let fio = std::process::Command::new("fio")
        .current_dir(d)
        .args([
            "--filename=f.img",
            "--size=8m",
            "--ioengine=psync",
            "--name=fill",
            "--rw=write",
            "--bs=128k",
            "--name=randwrite",
            "--stonewall",
            "--rw=randwrite",
            "--bs=4k",
            "--runtime=1",
            "--time_based",
            "--name=mix7030",
            "--stonewall",
            "--rw=randrw",
            "--rwmixread=70",
            "--bs=4k",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
            "--output=fio.json",
        ])
        .output()
        .expect("run fio");
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let (c, _, e) = code_out_err(&wkrun(d, &["report", "fio.json", "r1", "-o", "rep"]));
    assert_eq!(c, 0, "{e}");
    let page = std::fs::read_to_string(d.join("rep/index.html")).expect("page");
    assert!(page.contains("<h2>Workloads compared</h2>"), "{page}");
    let rows = headline_rows(&page);
    let r1 = |name: &str| iops(&phase(d, "r1", name));
    let header = table_header(&page, "randwrite");
    let col = header.iter().position(|h| h == "IOPS, phase mean (IOPS)");
    let col = col.unwrap_or_else(|| panic!("randwrite: {header:?}"));
    let cell = &row(&rows, "randwrite", "r1")[col];
    assert!(
        cell.starts_with(&format!("{:.1} (", r1("randwrite"))),
        "randwrite: {cell}"
    );
    // The bars: fio's IOPS, phase mean of each workload (as compare reads it) against r1's.
    let o = wkrun(d, &["compare", "fio.json", "r1", "--format", "csv"]);
    let (c, out, err) = code_out_err(&o);
    assert_eq!(c, 0, "{err}");
    let mut csv = csv::Reader::from_reader(out.as_bytes());
    let recs: Vec<Vec<String>> = csv
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let cell = |phase: &str, label: &str| -> f64 {
        let r = recs.iter().find(|r| r[0] == phase && r[1] == label);
        let r = r.unwrap_or_else(|| panic!("{phase} {label}: {recs:?}"));
        r[2].parse().expect("fio's value")
    };
    let svg = std::fs::read_to_string(d.join("rep/battery.svg")).expect("battery");
    let texts = svg_texts(&svg);
    let pcts: Vec<f64> = texts
        .iter()
        .filter_map(|t| t.strip_suffix(" %")?.parse().ok())
        .filter(|p| *p != 100.0)
        .collect();
    let mut scores = Vec::new();
    for (name, p) in ["randwrite", "mix7030"].into_iter().zip(&pcts) {
        assert!(texts.contains(&name), "{name}: {texts:?}");
        // fio's IOPS as compare prints it, to 0.1: the bar within that rounding.
        let want = r1(name) / cell(name, "IOPS, phase mean") * 100.0;
        assert!(
            (p - want).abs() <= want * 0.001 + 0.05,
            "{name}: {p} against {want}"
        );
        scores.push(want / 100.0);
    }
    assert_eq!(pcts.len(), 2, "{texts:?}");
    assert!(!texts.contains(&"fill"), "{texts:?}");
    let composite = recs.iter().find(|r| r[1] == COMPOSITE).expect("composite");
    let score: f64 = composite[3].parse().expect("score");
    assert!(
        ((scores[0] * scores[1]).sqrt() - score).abs() <= 0.002,
        "{score} {scores:?}"
    );

    let (c, _, e) = code_out_err(&wkrun(d, &["report", "r1", "r2", "-o", "rep2"]));
    assert_eq!(c, 0, "{e}");
    let page = std::fs::read_to_string(d.join("rep2/index.html")).expect("page");
    let header = table_header(&page, "randwrite");
    assert_eq!(
        header[2..],
        [
            "time to steady state (s)",
            "IOPS, steady window mean (IOPS)",
            "IOPS, phase mean (IOPS)"
        ]
    );
    let rows = headline_rows(&page);
    let (a, b) = (r1("randwrite"), iops(&phase(d, "r2", "randwrite")));
    assert_eq!(row(&rows, "randwrite", "r1")[4], format!("{a:.1}"));
    let change = (b - a) / a * 100.0;
    assert_eq!(
        row(&rows, "randwrite", "r2")[2..],
        [
            "–".to_string(),
            "–".to_string(),
            format!(
                "{b:.1} ({}{change:.1} %)",
                if change >= 0.0 { "+" } else { "" }
            )
        ]
    );
}

/// `wkrun ARGS --library LIB` in `d`: exit code, stdout, stderr.
fn lib(d: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--library", "lib.sqlite"]);
    code_out_err(&wkrun(d, &all))
}

/// Trial 26 L7 and M2: `report --against-library` ranked runs made with other `--set` overrides (4 s
/// beside 20 s) with no mark. Now such a run is drawn apart, marked with its overrides, not ranked, the
/// caption and the runs' table say so; and randwrite, whose steady window mean no other run has, is ranked
/// on its IOPS, phase mean, the figure the composite scores it on.
#[test]
fn the_ranking_sets_apart_runs_of_other_overrides() {
    let d = tempdir();
    let d = d.path();
    full_and_short(d);
    run(d, "r3", &["--from", "randwrite", "--set", "duration=4s"]);
    for r in ["r2", "r3"] {
        let (c, _, e) = lib(d, &["library", "add", r, "--label", r]);
        assert_eq!(c, 0, "{e}");
    }
    let (c, _, e) = lib(d, &["report", "r1", "--against-library", "-o", "rep"]);
    assert_eq!(c, 0, "{e}");
    let page = std::fs::read_to_string(d.join("rep/index.html")).expect("page");
    assert!(
        page.contains(
            "<thead><tr><th>run</th><th>target</th><th>started</th><th>--set</th></tr></thead>"
        ),
        "{page}"
    );
    assert!(page.contains("<td>duration=&quot;4s&quot;</td>"), "{page}");
    let mut ranked: Vec<String> = std::fs::read_dir(d.join("rep"))
        .expect("report")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ranked-") && n.contains("randwrite"))
        .collect();
    ranked.sort();
    assert_eq!(ranked, ["ranked-01-randwrite-mean_iops.svg"]);
    let svg = std::fs::read_to_string(d.join("rep").join(&ranked[0])).expect("svg");
    assert!(svg.contains("r1: rank 1 of 1"), "{svg}");
    for r in ["r2", "r3"] {
        let v = iops(&phase(d, r, "randwrite"));
        assert!(
            svg.contains(&format!(
                "– {r} [not ranked: --set duration=&quot;4s&quot;]"
            )),
            "{svg}"
        );
        assert!(svg.contains(&format!("{v:.1} IOPS")), "{r}: {svg}");
    }
    assert!(
        page.contains("2 runs made with other --set overrides than this run&#39;s are listed below the ranking, marked with them, not ranked."),
        "{page}"
    );
}

/// Trial 27 M4: `report r1 r3` drew 4 bars in "Workloads compared" (the workloads outside matrices) where
/// the composite scored 7, the matrix's `lat[qd=1]` … too. Now the bars are every workload the composite
/// scores: each of r3's bars is the ratio of its lead figure (IOPS, phase mean) to r1's, and the composite
/// is their geometric mean. r1 and r3 run the same spec on simulated drives of other spare areas.
#[test]
fn the_bars_are_every_workload_the_composite_scores_matrix_members_too() {
    let d = tempdir();
    let d = d.path();
    let lat = r#"
[[phase]]
name = "lat"
kind = "workload"
block_size = "4KiB"
read_percent = 0
queue_depth = [1, 4]
duration = "2s"
"#;
    write_file(d, "m27.toml", &spec_text("m27", &[FILL, MIX, lat].concat()));
    for (out, sim) in [("r1", SIM), ("r3", "sim:capacity=256MiB,op=10%")] {
        let args = ["m27.toml", "--target", sim, "-q", "-o", out, "--label", out];
        let (c, _, e) = code_out_err(&wkrun(d, &args));
        assert_eq!(c, 0, "{e}");
    }
    let (c, _, e) = code_out_err(&wkrun(d, &["report", "r1", "r3", "-o", "rep"]));
    assert_eq!(c, 0, "{e}");
    let svg = std::fs::read_to_string(d.join("rep/battery.svg")).expect("battery");
    let texts = svg_texts(&svg);
    let names = ["mix7030", "lat[qd=1]", "lat[qd=4]"];
    for n in names {
        assert!(texts.contains(&n), "{n}: {texts:?}");
    }
    let pcts: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| t.ends_with(" %"))
        .collect();
    let ratios: Vec<f64> = names
        .iter()
        .map(|n| {
            headline(&phase(d, "r3", n), "mean iops") / headline(&phase(d, "r1", n), "mean iops")
        })
        .collect();
    let want: Vec<String> = ratios
        .iter()
        .flat_map(|r| ["100.0 %".to_string(), format!("{:.1} %", r * 100.0)])
        .collect();
    assert_eq!(pcts, want, "{svg}");
    let score = ratios.iter().product::<f64>().powf(1.0 / 3.0);
    let o = wkrun(d, &["compare", "r1", "r3", "--format", "csv"]);
    let (c, out, err) = code_out_err(&o);
    assert_eq!(c, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.contains(COMPOSITE))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        row.ends_with(&format!(",1.000,{score:.3},{:.1}", (score - 1.0) * 100.0)),
        "{row}"
    );
    // Trial 27 L1: the matrix's members compared within r1 differ in their queue depth, not also in the
    // stream seed each draws from its own name.
    let o = wkrun(d, &["compare", "r1", "--by", "qd", "--format", "csv"]);
    let (c, out, err) = code_out_err(&o);
    assert_eq!(c, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("lat,parameters that differ,"));
    assert_eq!(
        row,
        Some("lat,parameters that differ,queue_depth=1,queue_depth=4,"),
        "{out}"
    );
}
