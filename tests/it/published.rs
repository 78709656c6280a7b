//! The numbers the documentation publishes: every value that README.md, specs/README.md and docs/*.md quote
//! from a run of a seed spec on the simulated drive is marked in the Markdown source with the name of the
//! value it is, `270.8<!--#consistency.steady_mean.100-->` (an HTML comment, invisible on the page), and
//! this test runs the specs as the documents say (`sim:capacity=2GiB,op=7%`, each spec as written, at full
//! length) and checks every marked value against the run's: a change of the code that moves a published
//! number fails here until the documents say the new one. `WKRUN_BLESS=1 cargo test published` writes the
//! new values into the documents (then read the diff: the prose around them may need to change too).
//!
//! Values are taken as `wkrun compare` prints them (its CSV, the same digits as its table) where the
//! documents name a compare row, else from `results.json` and the series CSVs; a label a chart draws
//! (`` `steady window 2–12 min`<!--#report.c7.iops.steady.100--> ``, a mark right after a code span holds
//! the span's text) from the text of the report's SVG.
//!
//! Numbers of runs another test makes already (the SNIA trials of specs/README.md) are held by that test:
//! it calls [`hold`] with the values of its run under a prefix of its own ([`ELSEWHERE`]), and this test
//! leaves those marks to it (trial 24 F1: the SNIA trial numbers, marked "(tested)" but held by no mark,
//! went stale when each phase got its own op stream).

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The simulated drive every published number is measured on.
const SIM: &str = "sim:capacity=2GiB,op=7%";

/// The prefixes of marks another test holds ([`hold`]), and that test.
const ELSEWHERE: [(&str, &str); 7] = [
    ("snia.iops", "rounds::the_pts_iops_spec_runs_at_trial_scale"),
    (
        "snia.throughput",
        "snia::the_pts_throughput_spec_runs_at_trial_scale",
    ),
    (
        "snia.latency",
        "snia::the_pts_latency_spec_runs_at_trial_scale",
    ),
    (
        "snia.wsat",
        "snia::the_pts_wsat_spec_runs_whole_on_a_small_drive",
    ),
    ("snia.xsr", "snia::the_pts_xsr_spec_runs_at_trial_scale"),
    ("snia.hir", "snia::the_pts_hir_spec_runs_at_trial_scale"),
    ("snia.dirth", "snia::the_pts_dirth_spec_runs_at_trial_scale"),
];

/// Whether `key` is under `prefix` (`snia.xsr.writes.1` is under `snia.xsr`).
fn under(key: &str, prefix: &str) -> bool {
    key.strip_prefix(prefix)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// The documents that may quote published numbers.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md"), root.join("specs/README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// One run of a spec: its results folder, `results.json` and what it printed on stdout (the summary) and
/// stderr (notes, warnings).
struct Run {
    dir: PathBuf,
    r: Value,
    out: String,
    err: String,
}

impl Run {
    /// Phase `name`.
    fn phase(&self, name: &str) -> &Value {
        self.r["phases"]
            .as_array()
            .expect("phases")
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no phase {name} in {}", self.dir.display()))
    }

    /// A number of phase `name` at `pointer`.
    fn num(&self, name: &str, pointer: &str) -> f64 {
        self.phase(name)
            .pointer(pointer)
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("{name}{pointer} is not a number"))
    }

    /// Total IOPS of each full row of phase `name`'s series.
    fn full_iops(&self, name: &str) -> Vec<f64> {
        let csv = self.phase(name)["series_csv"].as_str().expect("series_csv");
        csv_rows(&self.dir.join(csv))
            .iter()
            .filter(|r| n(r, "partial") == 0)
            .map(|r| f(r, "read_iops") + f(r, "write_iops"))
            .collect()
    }
}

/// `wkrun compare ARGS --format csv` in `dir`: `(phase, metric)` → the value cells (without the change
/// columns) and the change cells, as printed.
struct Compared(BTreeMap<(String, String), (Vec<String>, Vec<String>)>);

impl Compared {
    fn of(dir: &Path, args: &[&str]) -> Compared {
        let mut a = vec!["compare"];
        a.extend(args);
        a.extend(["--format", "csv"]);
        let (code, out, err) = code_out_err(&wkrun(dir, &a));
        assert_eq!(code, 0, "wkrun {a:?}: {err}");
        let mut r = csv::Reader::from_reader(out.as_bytes());
        let header: Vec<String> = r
            .headers()
            .expect("header")
            .iter()
            .map(String::from)
            .collect();
        let mut map = BTreeMap::new();
        for rec in r.records() {
            let rec = rec.expect("record");
            let (mut values, mut changes) = (Vec::new(), Vec::new());
            for (h, cell) in header.iter().zip(rec.iter()).skip(2) {
                match h.ends_with(" change (%)") {
                    true => changes.push(cell.to_string()),
                    false => values.push(cell.to_string()),
                }
            }
            map.insert((rec[0].to_string(), rec[1].to_string()), (values, changes));
        }
        Compared(map)
    }

    /// The value of `metric` for `phase` in column `col` (0 the first run or member).
    fn value(&self, phase: &str, metric: &str, col: usize) -> String {
        self.row(phase, metric).0[col].clone()
    }

    /// The change of column `col` (1 or later) against the first, signed, as in the table (`+360.3`).
    fn change(&self, phase: &str, metric: &str, col: usize) -> String {
        let c = &self.row(phase, metric).1[col - 1];
        match c.starts_with('-') {
            true => c.clone(),
            false => format!("+{c}"),
        }
    }

    fn row(&self, phase: &str, metric: &str) -> &(Vec<String>, Vec<String>) {
        self.0
            .get(&(phase.to_string(), metric.to_string()))
            .unwrap_or_else(|| panic!("compare has no row {phase:?} {metric:?}"))
    }
}

/// `x` with `d` decimals.
fn dec(x: f64, d: usize) -> String {
    format!("{x:.d$}")
}

/// A whole number with thousands separators (`10,800`).
pub(crate) fn thousands(x: f64) -> String {
    let s = format!("{}", x.round() as i64);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 && c != '-' {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Runs every spec the documents quote, at once (they are independent), in `dir`. The variants of the
/// garbage-collection table run only the sweep member it quotes (`--set sweep.spare-area=100%`): the first
/// member runs first, so its phases, series and results are those of the whole spec's run, without the
/// 75 % member's 2.5 million writes.
fn run_all(dir: &Path) -> BTreeMap<&'static str, Run> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let first = Some("sweep.spare-area=100%");
    let jobs: [(&str, &str, &str, Option<&str>); 9] = [
        ("c7", "consistency", SIM, None),
        ("c28", "consistency", "sim:capacity=2GiB,op=28%", None),
        // The garbage-collection policies and jitter of docs/spec.md.
        (
            "nominal",
            "consistency",
            "sim:capacity=2GiB,op=7%,jitter=0%",
            first,
        ),
        (
            "deferred",
            "consistency",
            "sim:capacity=2GiB,op=7%,gc=deferred",
            first,
        ),
        (
            "lazy",
            "consistency",
            "sim:capacity=2GiB,op=7%,gc=deferred,gc_pace=90%",
            first,
        ),
        ("lat", "latency", SIM, None),
        ("anth", "anthology", SIM, None),
        ("op", "over-provisioning", SIM, None),
        ("sat", "write-saturation", SIM, None),
    ];
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|&(name, spec, target, set)| {
                s.spawn(move || {
                    let spec = root.join(format!("specs/{spec}.toml"));
                    let mut args = vec![spec.to_str().unwrap(), "--target", target, "-o", name];
                    if let Some(set) = set {
                        args.extend(["--set", set]);
                    }
                    let (code, stdout, err) = code_out_err(&wkrun(dir, &args));
                    assert_eq!(code, 0, "{args:?}: {err}");
                    let out = dir.join(name);
                    let (_, r) = strict_results(&out);
                    let run = Run {
                        dir: out,
                        r,
                        out: stdout,
                        err,
                    };
                    (name, run)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a run"))
            .collect()
    })
}

/// Every published value, by name.
fn published(dir: &Path, runs: &BTreeMap<&str, Run>) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    consistency(dir, runs, &mut m);
    latency(&runs["lat"], &mut m);
    over_provisioning(dir, &runs["op"], &mut m);
    write_saturation(dir, &runs["sat"], &mut m);
    anthology(dir, &runs["anth"], &mut m);
    gc_policies(runs, &mut m);
    readme(&runs["c7"], &mut m);
    report_labels(dir, runs, &mut m);
    m
}

/// The texts of the SVG `file` of the report in `rep` (`<text>`, then the legend rows' whole words, their
/// `<title>`s, each after `title: `), and its filled points (`<circle>`s).
fn svg(rep: &Path, file: &str) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(rep.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let doc = roxmltree::Document::parse(&text).expect("svg is XML");
    let el = |name: &'static str| {
        doc.descendants()
            .filter(move |n| n.is_element() && n.tag_name().name() == name)
    };
    let words = |n: roxmltree::Node| n.text().unwrap_or("").trim().to_string();
    let mut texts: Vec<String> = el("text").map(words).collect();
    texts.extend(
        el("g")
            .filter(|g| g.attribute("class") == Some("legend-entry"))
            .flat_map(|g| g.children().filter(|c| c.has_tag_name("title")))
            .map(|t| format!("title: {}", words(t))),
    );
    let filled = el("circle")
        .filter(|c| c.attribute("fill") != Some("none"))
        .count();
    (texts, filled)
}

/// The first text of `texts` starting with `head` (a legend item, a title).
fn text_from(texts: &[String], head: &str) -> String {
    texts
        .iter()
        .find(|t| t.starts_with(head))
        .unwrap_or_else(|| panic!("no text {head:?} in {texts:?}"))
        .clone()
}

/// specs/README.md quotes the labels of the report's charts as `wkrun report R` draws them, from the
/// text of the SVGs of the consistency, write-saturation and over-provisioning runs (trial 24 F4: it said
/// `1.4k s` and `16.8k..18k s` where the charts write `23.3 min` and `280..300 min`); and each zoom draws
/// one point per row of its results window (trial 24 F3: 601 points of 600, 1201 of 1200, the row ending
/// at the window's start).
fn report_labels(dir: &Path, runs: &BTreeMap<&str, Run>, m: &mut BTreeMap<String, String>) {
    let zooms = [
        ("c7", "random-write", "spare-area", ["100", "75"]),
        ("sat", "saturate", "data", ["zeros", "random"]),
        ("op", "saturate", "op", ["100", "25"]),
    ];
    for (name, phase, key, members) in zooms {
        let rep = dir.join(format!("{name}-report"));
        let out = rep.to_str().expect("utf-8");
        let (code, _, err) = code_out_err(&wkrun(dir, &["report", name, "-o", out]));
        assert_eq!(code, 0, "report {name}: {err}");
        for member in members {
            let pct = if key == "data" { "" } else { "%" };
            let ph = format!("{phase}[{key}={member}{pct}]");
            let index = runs[name].phase(&ph)["index"].as_u64().expect("index");
            let pct = if key == "data" { "" } else { "pct" };
            let base = format!("{index:02}-{phase}_{key}-{member}{pct}");
            let (log, points) = svg(&rep, &format!("{base}-zoom-log-write.svg"));
            let (lin, lin_points) = svg(&rep, &format!("{base}-zoom-write.svg"));
            let window = runs[name].num(&ph, "/windows/0/iops/count") as usize;
            assert_eq!((points, lin_points), (window, window), "{name} {ph}");
            let title = |t: &[String], head| text_from(t, head);
            let k = |what: &str| format!("report.{name}.{what}.{member}");
            m.insert(k("zoom_points"), points.to_string());
            let log_title = title(&log, "Write IOPS per interval (log scale");
            m.insert(k("zoom_log_title"), log_title);
            let lin_title = title(&lin, "Write IOPS per interval (linear scale");
            m.insert(k("zoom_title"), lin_title);
            let (whole, _) = svg(&rep, &format!("{base}-iops-log-write.svg"));
            let (averages, _) = svg(&rep, &format!("{base}-averages.svg"));
            for (what, texts) in [("iops", &whole), ("averages", &averages)] {
                for (label, head) in [("steady", "steady window "), ("window", "window ")] {
                    if let Some(t) = texts.iter().find(|t| t.starts_with(head)) {
                        m.insert(k(&format!("{what}.{label}")), t.clone());
                    }
                }
            }
        }
        if name == "sat" {
            // A thinned plot (18,000 rows) and the averages' legend.
            let (_, drawn) = svg(&rep, "01-saturate_data-zeros-iops-linear-write.svg");
            m.insert("report.sat.drawn_points.zeros".into(), drawn.to_string());
            let (averages, _) = svg(&rep, "01-saturate_data-zeros-averages.svg");
            let row = text_from(&averages, "title: ");
            let groups = row
                .split("one-minute averages (")
                .nth(1)
                .and_then(|r| r.split(" groups)").next())
                .unwrap_or_else(|| panic!("no group count in {row:?}"));
            m.insert("report.sat.averages_groups.zeros".into(), groups.into());
        }
        let by = format!("{phase}-by-{key}");
        let (overlay, _) = svg(&rep, &format!("{by}-overlay-iops-linear.svg"));
        let k = |what: &str| format!("report.{name}.{what}");
        m.insert(k("overlay.window"), text_from(&overlay, "window "));
        // The sweep's charts, by their titles (without the ` — spec · phase · target` tail).
        for (what, file, head) in [
            (
                "overlay_title",
                "overlay-iops-linear",
                "Total IOPS per interval",
            ),
            (
                "overlay_log_title",
                "overlay-iops-log",
                "Total IOPS per interval",
            ),
            (
                "overlay_averages_title",
                "overlay-averages",
                "Total IOPS, one-minute",
            ),
            ("across_title", "iops", "IOPS across "),
        ] {
            let (texts, _) = svg(&rep, &format!("{by}-{file}.svg"));
            let title = text_from(&texts, head);
            let title = title.split(" — ").next().expect("a title").to_string();
            m.insert(k(what), title);
        }
    }
}

/// docs/spec.md's table of garbage-collection policies: window `1400s..` of the 100 % span of each variant.
fn gc_policies(runs: &BTreeMap<&str, Run>, m: &mut BTreeMap<String, String>) {
    let ph = "random-write[spare-area=100%]";
    for v in ["c7", "nominal", "deferred", "lazy"] {
        let run = &runs[v];
        let w = |k: &str| run.num(ph, &format!("/windows/0/iops/{k}"));
        let avg = w("avg");
        m.insert(format!("gc.{v}.avg"), thousands(avg));
        m.insert(format!("gc.{v}.min"), thousands(w("min")));
        m.insert(format!("gc.{v}.max"), thousands(w("max")));
        m.insert(format!("gc.{v}.consistency"), dec(w("consistency"), 1));
        let from = run.full_iops(ph).len() - w("count") as usize;
        let low = run.full_iops(ph)[from..]
            .iter()
            .filter(|&&x| x < 0.05 * avg)
            .count();
        m.insert(format!("gc.{v}.low"), low.to_string());
        let wa = run.num(ph, "/device/write_amplification");
        m.insert(format!("gc.{v}.wa"), dec(wa, 2));
    }
    // The slowest second against the fastest from 1400 s, with and without jitter.
    for v in ["c7", "nominal"] {
        let w = |k: &str| runs[v].num(ph, &format!("/windows/0/iops/{k}"));
        m.insert(format!("gc.{v}.spread"), dec(w("max") / w("min"), 1));
    }
    // The two per-second values that hold most seconds of the drive at nominal times from 1400 s.
    let nominal = &runs["nominal"];
    let iops = nominal.full_iops(ph);
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    for &x in &iops[1400..] {
        *counts.entry(x as u64).or_default() += 1;
    }
    let mut by_count: Vec<(usize, u64)> = counts.into_iter().map(|(v, c)| (c, v)).collect();
    by_count.sort_unstable_by(|a, b| b.cmp(a));
    let mut top: Vec<u64> = by_count.iter().take(2).map(|x| x.1).collect();
    top.sort_unstable();
    m.insert("gc.nominal.band_low".into(), top[0].to_string());
    m.insert("gc.nominal.band_high".into(), top[1].to_string());
}

/// README.md: the console of the consistency run (its note, on stderr, then phases 2 and 5 of the summary
/// on stdout), its write amplification and its fill's MB/s.
fn readme(c7: &Run, m: &mut BTreeMap<String, String>) {
    let note = c7.err.lines().next().expect("a note on stderr");
    let lines: Vec<&str> = c7.out.lines().collect();
    let from = |tag: &str| lines.iter().position(|l| l.starts_with(tag)).expect(tag);
    let mut out = vec![note, "..."];
    out.extend(&lines[from("[phase 2]")..from("[phase 3]")]);
    out.push("...");
    out.extend(&lines[from("[phase 5]")..from("done:")]);
    m.insert("readme.console".into(), out.join("\n") + "\n");
    let wa = c7.num(
        "random-write[spare-area=100%]",
        "/device/write_amplification",
    );
    m.insert("consistency.wa.100".into(), dec(wa, 1));
    // The toy drive's sequential fill (trial 24c F12: "an SD card, not an SSD").
    let bw = c7.num("fill[spare-area=100%]", "/write/bw_bytes_per_s");
    m.insert("consistency.fill_mb_s.100".into(), dec(bw / 1e6, 1));
}

/// Index of the first full row below half the highest row before it (the write cliff), 1-based: "the
/// cliff in the 13th second".
fn cliff_second(iops: &[f64]) -> usize {
    let mut peak = 0.0f64;
    for (k, &v) in iops.iter().enumerate() {
        if v < peak / 2.0 {
            return k + 1;
        }
        peak = peak.max(v);
    }
    panic!("no cliff")
}

fn consistency(dir: &Path, runs: &BTreeMap<&str, Run>, m: &mut BTreeMap<String, String>) {
    let c7 = &runs["c7"];
    let one = Compared::of(dir, &["c7"]);
    let two = Compared::of(dir, &["c7", "c28"]);
    let by = Compared::of(dir, &["c7", "--by", "spare-area"]);
    let mut put = |k: &str, v: String| m.insert(format!("consistency.{k}"), v);
    for span in ["100", "75"] {
        let name = format!("random-write[spare-area={span}%]");
        let ph = name.as_str();
        let c = |metric: &str| one.value(ph, metric, 0);
        put(&format!("worst.{span}"), c("worst IOPS (lowest interval)"));
        put(&format!("worst_at.{span}"), c("worst interval ends at (s)"));
        put(&format!("steady_at.{span}"), c("time to steady state (s)"));
        put(
            &format!("steady_mean.{span}"),
            c("IOPS, steady window mean"),
        );
        for s in ["avg", "min", "max", "stddev"] {
            put(
                &format!("1400.{s}.{span}"),
                c(&format!("IOPS, 1400s.., {s}")),
            );
        }
        put(
            &format!("judged_from.{span}"),
            dec(c7.num(ph, "/steady_state/judged_from_s"), 0),
        );
        put(
            &format!("plateau.{span}"),
            dec(c7.num(ph, "/windows/1/iops/max"), 1),
        );
        put(
            &format!("cliff_s.{span}"),
            cliff_second(&c7.full_iops(ph)).to_string(),
        );
        put(&format!("rows.{span}"), c7.full_iops(ph).len().to_string());
        let count = c7.num(ph, "/windows/0/iops/count");
        put(&format!("1400.count.{span}"), dec(count, 0));
        // The second drive, op=28 %.
        let t = |metric: &str| two.value(ph, metric, 1);
        put(
            &format!("op28.steady_mean.{span}"),
            t("IOPS, steady window mean"),
        );
        put(&format!("op28.1400.avg.{span}"), t("IOPS, 1400s.., avg"));
        put(
            &format!("op28.worst.{span}"),
            t("worst IOPS (lowest interval)"),
        );
        put(
            &format!("op28.1400.avg_change.{span}"),
            two.change(ph, "IOPS, 1400s.., avg", 1),
        );
    }
    put(
        "op28.steady_mean_change.100",
        two.change(
            "random-write[spare-area=100%]",
            "IOPS, steady window mean",
            1,
        ),
    );
    let comp = "composite (geometric mean of ratios to the first run)";
    put("op28.composite", two.value("(all phases)", comp, 1));
    put("op28.composite_change", two.change("(all phases)", comp, 1));
    let ph = "random-write";
    put(
        "by.steady_mean_change",
        by.change(ph, "IOPS, steady window mean", 1),
    );
    let comp = "composite of the workloads (geometric mean of ratios to spare-area=100%)";
    put("by.composite", by.value("(all phases)", comp, 1));
    put("by.composite_change", by.change("(all phases)", comp, 1));
}

fn latency(lat: &Run, m: &mut BTreeMap<String, String>) {
    for bs in ["512B", "4KiB", "8KiB"] {
        for read in ["100", "65", "0"] {
            let ph = format!("latency[bs={bs},read={read}]");
            let p = lat.phase(&ph);
            for dir in ["read", "write"] {
                if p[dir]["ops"].as_u64().unwrap_or(0) == 0 {
                    continue;
                }
                for stat in ["mean", "max"] {
                    let v = lat.num(&ph, &format!("/{dir}/latency_ns/{stat}")) / 1e3;
                    m.insert(format!("latency.{bs}.{read}.{dir}.{stat}"), dec(v, 2));
                }
            }
        }
    }
}

fn over_provisioning(dir: &Path, op: &Run, m: &mut BTreeMap<String, String>) {
    let one = Compared::of(dir, &["op"]);
    let by = Compared::of(dir, &["op", "--by", "op"]);
    for (k, span) in ["100", "93", "84", "50", "25"].into_iter().enumerate() {
        let ph = format!("saturate[op={span}%]");
        for s in ["avg", "min", "max", "stddev"] {
            let v = one.value(&ph, &format!("IOPS, last 20min, {s}"), 0);
            m.insert(format!("op.last20.{s}.{span}"), v);
        }
        if k > 0 {
            let v = by.change("saturate", "IOPS, last 20min, avg", k);
            m.insert(format!("op.last20.avg_change.{span}"), v);
        }
        let wa = op.num(&ph, "/device/write_amplification");
        m.insert(format!("op.wa.{span}"), dec(wa, 1));
        let judged = op.num(&ph, "/steady_state/judged_from_s");
        m.insert(format!("op.judged_from.{span}"), dec(judged, 0));
        m.insert(
            format!("op.steady_at.{span}"),
            dec(op.num(&ph, "/steady_state/at_s"), 0),
        );
    }
}

fn write_saturation(dir: &Path, sat: &Run, m: &mut BTreeMap<String, String>) {
    // At full length the saturation writes the span many times over: the stability cells' reads find it
    // written (specs/README.md; a trial of seconds warns: trial 24 F6).
    let never: Vec<&Value> = sat.r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .flat_map(|p| p["warnings"].as_array().into_iter().flatten())
        .filter(|w| w.as_str().is_some_and(|w| w.starts_with("never-written")))
        .collect();
    assert_eq!(
        never,
        Vec::<&Value>::new(),
        "write-saturation.toml on {SIM}"
    );
    let one = Compared::of(dir, &["sat"]);
    let by = Compared::of(dir, &["sat", "--by", "data"]);
    let mut put = |k: &str, v: String| m.insert(format!("sat.{k}"), v);
    for data in ["zeros", "random"] {
        let ph = format!("saturate[data={data}]");
        let c = |metric: &str| one.value(&ph, metric, 0);
        for s in ["avg", "min", "max"] {
            put(
                &format!("last20.{s}.{data}"),
                c(&format!("IOPS, last 20min, {s}")),
            );
        }
        let count = sat.num(&ph, "/windows/0/iops/count");
        put(&format!("last20.count.{data}"), dec(count, 0));
        put(
            &format!("steady_mean.{data}"),
            c("IOPS, steady window mean"),
        );
        put(
            &format!("steady_at.{data}"),
            thousands(sat.num(&ph, "/steady_state/at_s")),
        );
        put(
            &format!("judged_from.{data}"),
            dec(sat.num(&ph, "/steady_state/judged_from_s"), 0),
        );
        put(
            &format!("before.iops.{data}"),
            c("IOPS before the span written once"),
        );
        put(
            &format!("once_at.{data}"),
            c("time to write the span once (s)"),
        );
        put(
            &format!("lat_before.{data}"),
            c("latency mean before the span written once (µs)"),
        );
        put(
            &format!("lat_after.{data}"),
            c("latency mean after the span written once (µs)"),
        );
        let groups = &sat.phase(&ph)["aggregates"]["groups"];
        let g = |i: usize| groups[i]["avg"].as_f64().expect("group avg");
        put(
            &format!("groups.{data}"),
            groups.as_array().unwrap().len().to_string(),
        );
        put(&format!("group0.{data}"), dec(g(0), 2));
        // "456 at 28 min, 316 at 60 min": the one-minute averages ending then.
        put(&format!("group28.{data}"), thousands(g(27)));
        put(&format!("group60.{data}"), thousands(g(59)));
        put(
            &format!("peak.{data}"),
            dec(sat.num(&ph, "/windows/1/iops/max"), 1),
        );
        put(
            &format!("rows.{data}"),
            sat.full_iops(&ph).len().to_string(),
        );
        let writes = &sat.phase(&ph)["derived"]["span_writes"];
        for (i, times) in [(1, "twice"), (2, "thrice")] {
            put(
                &format!("{times}_at.{data}"),
                dec(writes[i]["at_s"].as_f64().unwrap(), 0),
            );
        }
    }
    put(
        "by.last20.change",
        by.change("saturate", "IOPS, last 20min, avg", 1),
    );
    let comp = "composite of the workloads (geometric mean of ratios to data=zeros)";
    put("by.composite", by.value("(all phases)", comp, 1));
    put("by.composite_change", by.change("(all phases)", comp, 1));
    for read in ["0", "70"] {
        let ph = format!("stability[read={read}]");
        for s in ["min", "avg", "max", "stddev"] {
            let v = one.value(&ph, &format!("IOPS per interval, {s}"), 0);
            put(&format!("stability.{s}.{read}"), v);
        }
    }
}

fn anthology(dir: &Path, anth: &Run, m: &mut BTreeMap<String, String>) {
    // The main job warns of nothing to fix in itself on the drive the README runs it on: its reads have
    // the ramp the backlog warning asks for (trial 13 F6: six `no ramp: add ramp = "10s"` lines).
    assert_eq!(
        anth.err.matches("no ramp").count(),
        0,
        "anthology.toml on {SIM}: {}",
        anth.err
    );
    let by = Compared::of(dir, &["anth", "--by", "filled"]);
    let mut put = |k: &str, v: String| m.insert(format!("anth.{k}"), v);
    let tests = [
        "4k-random-read-qd1",
        "4k-random-write-qd1",
        "4k-random-read-qd32",
        "4k-random-write-qd32",
        "128k-seq-read",
        "128k-seq-write",
    ];
    for t in tests {
        put(
            &format!("iops.fresh.{t}"),
            by.value(t, "IOPS, phase mean", 0),
        );
        put(
            &format!("iops.used.{t}"),
            by.value(t, "IOPS, phase mean", 1),
        );
        put(&format!("change.{t}"), by.change(t, "IOPS, phase mean", 1));
        if t.contains("write") {
            for (state, filled) in [("fresh", "25"), ("used", "100")] {
                let ph = format!("{t}[filled={filled}%]");
                let wa = anth.num(&ph, "/device/write_amplification");
                put(&format!("wa.{state}.{t}"), dec(wa, 3));
                put(
                    &format!("secs.{state}.{t}"),
                    dec(anth.num(&ph, "/duration_s"), 0),
                );
            }
        }
    }
    let comp = "composite of the workloads (geometric mean of ratios to filled=25%)";
    let score = by.value("(all phases)", comp, 1);
    let loss = (1.0 - score.parse::<f64>().expect("composite")) * 100.0;
    put("composite", score);
    put("composite_change", by.change("(all phases)", comp, 1));
    put("loss_pct", dec(loss, 0));
    // docs/results.md's example: those rows of `wkrun compare R --by filled` as printed.
    let (code, table, err) = code_out_err(&wkrun(dir, &["compare", "anth", "--by", "filled"]));
    assert_eq!(code, 0, "{err}");
    let pick = |phase: &str, metric: &str| {
        table
            .lines()
            .find(|l| l.starts_with(phase) && l.contains(metric))
            .unwrap_or_else(|| panic!("no row {phase} {metric}"))
            .trim_end()
            .to_string()
    };
    let rows = [
        pick("4k-random-write-qd1 ", "IOPS, phase mean"),
        pick("4k-random-read-qd32 ", "IOPS, phase mean"),
        pick("(all phases)", "composite"),
    ];
    let mut lines = aligned(&rows);
    lines.insert(2, "...".into());
    put("by_filled", lines.join("\n") + "\n");
}

/// Rows of a `wkrun compare` table (columns two or more spaces apart) aligned again among themselves, as
/// the table would align them alone: the phase and metric left, the values right.
fn aligned(rows: &[String]) -> Vec<String> {
    let cells: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| {
            r.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    let cols = cells.iter().map(Vec::len).max().unwrap_or(0);
    let width = |i: usize| {
        let w = cells
            .iter()
            .filter_map(|c| c.get(i))
            .map(|c| c.chars().count());
        w.max().unwrap_or(0)
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    cells
        .iter()
        .map(|c| {
            let parts: Vec<String> = c
                .iter()
                .enumerate()
                .map(|(i, x)| match i {
                    0 | 1 => format!("{x:<w$}", w = widths[i]),
                    _ => format!("{x:>w$}", w = widths[i]),
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        })
        .collect()
}

/// A marked value in a document: the byte range of the value and the key.
struct Mark {
    start: usize,
    end: usize,
    key: String,
}

/// A marked block in a document: `<!--#block key-->` on a line of its own, then a fenced code block whose
/// lines (between the fences) are the value: the byte range of those lines and the key.
fn blocks(text: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("<!--#block ") {
        let at = from + i;
        let close = text[at..]
            .find("-->")
            .map(|j| at + j)
            .expect("an unclosed block mark");
        let key = text[at + 11..close].trim().to_string();
        let fence = text[close..]
            .find("\n```")
            .map(|j| close + j + 1)
            .expect("a fence after the mark");
        let start = text[fence..]
            .find('\n')
            .map(|j| fence + j + 1)
            .expect("the fence's line");
        let end = text[start - 1..]
            .find("\n```")
            .map(|j| start + j)
            .expect("a closing fence");
        out.push(Mark { start, end, key });
        from = end;
    }
    out
}

/// The marks `VALUE<!--#key-->` of `text`; the value is the run of digits, `.`, `,`, `+`, `-` and `?` (a
/// placeholder) right before the comment, or the text of the code span right before it (`` `a b`<!--#k--> ``
/// holds `a b`).
fn marks(text: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("<!--#") {
        let at = from + i;
        let close = text[at..]
            .find("-->")
            .map(|j| at + j)
            .expect("an unclosed mark");
        let key = text[at + 5..close].trim().to_string();
        if key.starts_with("block ") {
            from = close + 3;
            continue;
        }
        let bytes = text.as_bytes();
        let (start, end) = match at > 0 && bytes[at - 1] == b'`' {
            // A code span's text: from after its opening backtick to before its closing one.
            true => {
                let open = text[..at - 1].rfind('`').expect("an opening backtick");
                (open + 1, at - 1)
            }
            false => {
                let mut start = at;
                while start > 0 && b"0123456789.,+-?".contains(&bytes[start - 1]) {
                    start -= 1;
                }
                (start, at)
            }
        };
        out.push(Mark { start, end, key });
        from = close + 3;
    }
    out
}

/// Checks every mark of the documents whose key `mine` takes against `values`, or with `WKRUN_BLESS` set
/// writes the values in: a mark `mine` takes whose key `values` lacks fails either way. The documents are
/// read and written under a lock, so that tests holding marks of their own ([`hold`]) may bless at once.
fn check(values: &BTreeMap<String, String>, mine: impl Fn(&str) -> bool) {
    static DOCS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _docs = DOCS.lock().unwrap_or_else(|e| e.into_inner());
    let bless = std::env::var_os("WKRUN_BLESS").is_some();
    let (mut wrong, mut unknown) = (Vec::new(), Vec::new());
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("document");
        let mut fixed = String::new();
        let mut last = 0;
        let mut all = marks(&text);
        all.extend(blocks(&text));
        all.sort_by_key(|m| m.start);
        for mk in all.into_iter().filter(|m| mine(&m.key)) {
            let line = text[..mk.start].lines().count();
            let Some(want) = values.get(&mk.key) else {
                unknown.push(format!("{}:{line}: {:?}", doc.display(), mk.key));
                continue;
            };
            let got = &text[mk.start..mk.end];
            if got != want {
                wrong.push(format!(
                    "{}:{line}: {} is {want:?}, the document says {got:?}",
                    doc.display(),
                    mk.key
                ));
            }
            fixed.push_str(&text[last..mk.start]);
            fixed.push_str(want);
            last = mk.end;
        }
        fixed.push_str(&text[last..]);
        if bless && fixed != text {
            std::fs::write(&doc, fixed).expect("write document");
        }
    }
    assert!(
        unknown.is_empty(),
        "marks of values this test does not measure:\n{}",
        unknown.join("\n")
    );
    if !bless {
        assert!(
            wrong.is_empty(),
            "published numbers that differ from the runs' (WKRUN_BLESS=1 cargo test NAME writes them):\n{}",
            wrong.join("\n")
        );
    }
}

/// Holds the marks under `prefix` (one of [`ELSEWHERE`]'s) to `values`, keyed without the prefix
/// (`writes.1` for `snia.xsr.writes.1`): the test that made the run they come from calls it.
pub(crate) fn hold(prefix: &str, values: &[(&str, String)]) {
    assert!(
        ELSEWHERE.iter().any(|(p, _)| *p == prefix),
        "{prefix} is not in ELSEWHERE"
    );
    let values = values
        .iter()
        .map(|(k, v)| (format!("{prefix}.{k}"), v.clone()))
        .collect();
    check(&values, |key| under(key, prefix));
}

#[test]
fn published_numbers_are_those_of_the_runs() {
    let d = tempdir();
    let runs = run_all(d.path());
    let values = published(d.path(), &runs);
    check(&values, |key| !ELSEWHERE.iter().any(|(p, _)| under(key, p)));
}

#[test]
fn a_mark_takes_the_number_right_before_it() {
    let text = "steady at 720<!--#a--> s, composite 0.651 (-34.9<!--#b--> %), none ?<!--#c-->";
    let found = marks(text);
    let got: Vec<(&str, &str)> = found
        .iter()
        .map(|m| (&text[m.start..m.end], m.key.as_str()))
        .collect();
    assert_eq!(got, [("720", "a"), ("-34.9", "b"), ("?", "c")]);
    let text = "legend `steady window 2–12 min`<!--#l-->, tag 23.3<!--#t--> min";
    let found = marks(text);
    let got: Vec<&str> = found.iter().map(|m| &text[m.start..m.end]).collect();
    assert_eq!(got, ["steady window 2–12 min", "23.3"]);
    assert!(under("snia.xsr.writes.1", "snia.xsr") && !under("snia.xsrx.a", "snia.xsr"));
    let text = "x\n<!--#block k-->\n```\nline 1\nline 2\n```\nafter 3<!--#n-->\n";
    let b = blocks(text);
    assert_eq!(
        (&text[b[0].start..b[0].end], b[0].key.as_str()),
        ("line 1\nline 2\n", "k")
    );
    assert_eq!(marks(text).len(), 1, "a block mark is not a value mark");
    assert_eq!(thousands(10800.0), "10,800");
    assert_eq!(thousands(456.0), "456");
    assert_eq!(cliff_second(&[2500.0, 2400.0, 1100.0, 300.0]), 3);
}
