//! `wkrun report` (issue 5, items 1 and 2) on the frozen runs in tests/fixtures/report (see its README):
//! every SVG parses as XML, has one marker per interval (counted against the series CSV read here), keeps
//! every zero-IOPS interval on the log plot, labels its axes with units; the index.html opens in headless
//! Chromium without console errors and renders. Bad input is refused with exit 2 and nothing written.

use crate::common::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn fixture(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/report")
        .join(run)
}

fn fixture_results(run: &str) -> String {
    fixture(run).join("results.json").display().to_string()
}

/// Runs `wkrun report ARGS` and asserts success; returns stdout.
fn report_ok(cwd: &Path, args: &[&str]) -> String {
    let mut a = vec!["report"];
    a.extend_from_slice(args);
    let o = wkrun(cwd, &a);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "wkrun report {args:?} failed: {err}");
    out
}

/// `wkrun report` of the fixture runs `runs`, then `args`, into the folder `rep` of a fresh temporary folder;
/// asserts success. Returns the temporary folder (keep it alive), the report folder and stdout.
fn report_fixtures(runs: &[&str], args: &[&str]) -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempdir();
    let out = tmp.path().join("rep");
    let mut all: Vec<String> = runs.iter().map(|r| fixture_results(r)).collect();
    all.push("-o".into());
    all.push(out.to_str().expect("utf-8 path").into());
    all.extend(args.iter().map(|a| a.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let stdout = report_ok(tmp.path(), &all);
    (tmp, out, stdout)
}

/// The elements of an SVG file; panics (naming the file) when it is not well-formed XML.
struct Svg {
    text: String,
}

impl Svg {
    fn read(path: &Path) -> Svg {
        let text = std::fs::read_to_string(path).expect("read svg");
        roxmltree::Document::parse(&text)
            .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
        Svg { text }
    }

    fn doc(&self) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(&self.text).expect("parsed before")
    }

    /// Attributes of every element named `tag`.
    fn elements(&self, tag: &str) -> Vec<HashMap<String, String>> {
        self.doc()
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == tag)
            .map(|n| {
                n.attributes()
                    .map(|a| (a.name().to_string(), a.value().to_string()))
                    .collect()
            })
            .collect()
    }

    /// The text of every `<text>` element, trimmed.
    fn texts(&self) -> Vec<String> {
        self.doc()
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "text")
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect()
    }

    fn has_text(&self, t: &str) -> bool {
        self.texts().iter().any(|x| x == t)
    }

    fn has_text_containing(&self, t: &str) -> bool {
        self.texts().iter().any(|x| x.contains(t))
    }
}

/// An element's attributes.
type Attrs = HashMap<String, String>;

/// Scatter markers: (filled, hollow) circles.
fn circles(svg: &Svg) -> (Vec<Attrs>, Vec<Attrs>) {
    svg.elements("circle")
        .into_iter()
        .partition(|c| c.get("fill").map(String::as_str) != Some("none"))
}

fn f(row: &HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?}", row[col]))
}

#[test]
fn report_svgs_have_one_point_per_interval_and_keep_zero_iops() {
    let (_tmp, out, stdout) = report_fixtures(&["run-a"], &[]);
    assert!(stdout.starts_with("report: "), "{stdout}");
    // Every SVG is XML.
    let mut n = 0;
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "svg") {
            Svg::read(&p);
            n += 1;
        }
    }
    // Per I/O phase: 3 per direction with I/O (log, linear, latency), the bandwidth and the percentiles;
    // trickle and rw have both directions, fill, the four mix phases and the two sat phases one each; the
    // sat phases also a zoom (log and linear) on their window 250ms..; 2 charts per label group (mix,
    // sat) and for the sweep sat (one key) its members overlaid, log and linear (too short for averages);
    // for the matrix mix (two keys) each cell's mean and largest latency as grouped bars.
    assert_eq!(
        n,
        2 * 8 + 7 * 5 + 2 * 2 + 2 * 2 + 2 + 2,
        "SVG files in {}",
        out.display()
    );
    assert!(stdout.contains(&format!("({n} plots)")), "{stdout}");

    // The rate-capped phase: 30 intervals, 24 without reads and 24 without writes.
    let rows = csv_rows(&fixture("run-a").join("02-trickle.csv"));
    assert_eq!(rows.len(), 30);
    for dir in ["read", "write"] {
        let zeros = rows
            .iter()
            .filter(|r| f(r, &format!("{dir}_iops")) == 0.0)
            .count();
        assert_eq!(zeros, 24, "{dir} zero intervals in the fixture");
        let log = Svg::read(&out.join(format!("02-trickle-iops-log-{dir}.svg")));
        let (filled, hollow) = circles(&log);
        assert_eq!(
            filled.len() + hollow.len(),
            rows.len(),
            "{dir}: one point per interval"
        );
        assert_eq!(
            hollow.len(),
            zeros,
            "{dir}: every zero-IOPS interval is drawn, hollow"
        );
        assert_eq!(filled.len(), rows.len() - zeros);
        // Zeros sit on one row, below every real value (SVG y grows downwards), labelled "0".
        let cy = |c: &HashMap<String, String>| c["cy"].parse::<i64>().unwrap();
        let floor = cy(&hollow[0]);
        assert!(hollow.iter().all(|c| cy(c) == floor), "one floor row");
        assert!(
            filled.iter().all(|c| cy(c) < floor),
            "real values above the floor row"
        );
        assert!(log.has_text("0"), "the floor row is labelled 0");
        assert!(log.has_text("24 of 30 with 0 IOPS, hollow on the \"0\" row"));
        // Units on both axes; title names spec, phase and target.
        assert!(log.has_text("time since the phase's start (s)"));
        assert!(log.has_text(&format!("{dir} IOPS (I/Os per s)")));
        let title = format!(
            "{} IOPS per interval (log scale) — report-fixture · trickle · t.img",
            if dir == "read" { "Read" } else { "Write" }
        );
        assert!(log.has_text(&title), "title {title:?} in {:?}", log.texts());
        // The linear plot: every interval at its value.
        let lin = Svg::read(&out.join(format!("02-trickle-iops-linear-{dir}.svg")));
        let (filled, hollow) = circles(&lin);
        assert_eq!((filled.len(), hollow.len()), (rows.len(), 0));
        // Latency: a circle (mean) and a triangle (max) per interval with completions, none for the others.
        let lat = Svg::read(&out.join(format!("02-trickle-latency-{dir}.svg")));
        let with = rows
            .iter()
            .filter(|r| !r[&format!("{dir}_lat_mean_us")].is_empty())
            .count();
        assert_eq!(with, 6);
        assert_eq!(lat.elements("circle").len(), with);
        assert_eq!(lat.elements("polygon").len(), with);
        assert!(lat.has_text(&format!("{dir} latency (log scale)")));
    }

    // Every phase: as many points as its CSV has rows, on both IOPS plots.
    let results = results(&fixture("run-a"));
    for p in results["phases"].as_array().unwrap() {
        let Some(csv) = p["series_csv"].as_str() else {
            continue;
        };
        let rows = csv_rows(&fixture("run-a").join(csv));
        assert_eq!(rows.len() as u64, p["intervals"].as_u64().unwrap());
        let stem = csv.trim_end_matches(".csv");
        let slug: String = stem
            .replace('%', "pct")
            .replace('=', "-")
            .replace(']', "")
            .replace(['[', ','], "_");
        for dir in ["read", "write"] {
            if p[dir]["ops"].as_u64().unwrap() == 0 {
                assert!(!out.join(format!("{slug}-iops-log-{dir}.svg")).exists());
                continue;
            }
            for kind in ["log", "linear"] {
                let svg = Svg::read(&out.join(format!("{slug}-iops-{kind}-{dir}.svg")));
                assert_eq!(
                    svg.elements("circle").len(),
                    rows.len(),
                    "{stem} {kind} {dir}"
                );
            }
        }
        let pct = Svg::read(&out.join(format!("{slug}-percentiles.svg")));
        assert!(pct.has_text("latency (log scale)"));
        assert!(pct.has_text("p99.9"));
    }
}

#[test]
fn report_puts_several_runs_on_one_plot_one_colour_each() {
    let (_tmp, out, _) = report_fixtures(&["run-a", "run-b"], &[]);
    let log = Svg::read(&out.join("02-trickle-iops-log-read.svg"));
    let (filled, hollow) = circles(&log);
    assert_eq!((filled.len(), hollow.len()), (12, 48), "30 + 30 intervals");
    let fills: std::collections::BTreeSet<String> =
        filled.iter().map(|c| c["fill"].clone()).collect();
    let strokes: std::collections::BTreeSet<String> =
        hollow.iter().map(|c| c["stroke"].clone()).collect();
    assert_eq!(fills.len(), 2, "one colour per run: {fills:?}");
    assert_eq!(fills, strokes);
    assert!(log.has_text("run-a on t.img (30 intervals)"));
    assert!(log.has_text("run-b on t.img (30 intervals)"));
    let rw = Svg::read(&out.join("03-rw-iops-log-read.svg"));
    let a = csv_rows(&fixture("run-a").join("03-rw.csv")).len();
    let b = csv_rows(&fixture("run-b").join("03-rw.csv")).len();
    assert_eq!(rw.elements("circle").len(), a + b);

    // The summary tables: both runs, with the steady-state verdicts of `rw`.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("reached at 1.2 s"), "run-a's verdict");
    assert!(html.contains("not reached"), "run-b's verdict");
    assert!(html.contains("<title>wkrun report: report-fixture</title>"));
    // Each plot inline in the page, and linked to its file.
    for f in ["02-trickle-iops-log-read.svg", "mix-by-bs-read-iops.svg"] {
        let svg = std::fs::read_to_string(out.join(f)).expect("svg file");
        assert!(html.contains(svg.trim()), "{f} inline in index.html");
        assert!(html.contains(&format!("<a href=\"{f}\">")), "{f} linked");
    }
    assert!(!html.contains("<img"), "no image loaded from a file");
}

#[test]
fn report_zoom_window_and_fixed_ceiling() {
    let (_tmp, out, _) = report_fixtures(&["run-a"], &["--window", "1s..2s", "--ymax", "5"]);
    let rows = csv_rows(&fixture("run-a").join("02-trickle.csv"));
    // The rows entirely inside 1..2 s, as the results window 1s..2s takes them: not the one ending at 1 s.
    let inside: Vec<_> = rows
        .iter()
        .filter(|r| {
            let (start, end) = (f(r, "t_s") - f(r, "interval_s"), f(r, "t_s"));
            start >= 1.0 - 1e-9 && end <= 2.0 + 1e-9
        })
        .collect();
    assert_eq!(inside.len(), 10, "t_s 1.1, 1.2, ..., 2.0");
    let busy = inside.iter().filter(|r| f(r, "read_iops") > 5.0).count();
    let zoom = Svg::read(&out.join("02-trickle-zoom-read.svg"));
    let (filled, hollow) = circles(&zoom);
    assert_eq!(filled.len() + hollow.len(), inside.len());
    assert_eq!(
        hollow.len(),
        busy,
        "intervals above --ymax 5 on the top row"
    );
    assert!(zoom.has_text_containing("1..2 s"));
    // The linear plot has the same ceiling: 10-IOPS intervals above it, hollow.
    let lin = Svg::read(&out.join("02-trickle-iops-linear-read.svg"));
    let over = rows.iter().filter(|r| f(r, "read_iops") > 5.0).count();
    assert_eq!(over, 6);
    assert_eq!(circles(&lin).1.len(), over);
    assert!(lin.has_text("6 of 30 above the ceiling, hollow on the top row"));
}

#[test]
fn report_charts_across_sweeps_and_matrices() {
    let (_tmp, out, _) = report_fixtures(&["run-a"], &[]);
    let mix = Svg::read(&out.join("mix-by-bs-read-iops.svg"));
    for cat in ["4KiB, 100", "4KiB, 0", "16KiB, 100", "16KiB, 0"] {
        assert!(mix.has_text(cat), "category {cat:?} in {:?}", mix.texts());
    }
    assert!(mix.has_text("total IOPS (I/Os per s)"));
    assert!(mix.has_text("phase of mix: bs, read"));
    assert!(mix.has_text("IOPS across bs, read — report-fixture · mix[bs, read] · t.img"));
    // The sweep's phases have a window: the chart shows its statistics.
    let sat = Svg::read(&out.join("sat-by-op-iops.svg"));
    assert!(sat.has_text("100%") && sat.has_text("50%"));
    assert!(sat.has_text("total IOPS (I/Os per s), window 250ms.."));
    let lat = Svg::read(&out.join("sat-by-op-latency.svg"));
    assert!(lat.has_text("latency, reads and writes (log scale)"));
    // Whiskers: three paths per bar (stem and two caps), 2 phases.
    assert!(lat.elements("polyline").len() >= 6);
}

#[test]
fn report_default_folder_is_beside_the_first_results() {
    let tmp = tempdir();
    let run = tmp.path().join("run-a");
    std::fs::create_dir(&run).unwrap();
    for e in std::fs::read_dir(fixture("run-a")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, run.join(p.file_name().unwrap())).unwrap();
    }
    let out = report_ok(tmp.path(), &["run-a/results.json"]);
    assert!(tmp.path().join("run-a/report/index.html").is_file());
    assert_eq!(
        out.lines().next().unwrap(),
        "report: run-a/report/index.html (63 plots)"
    );
}

#[test]
fn report_refuses_bad_input_and_writes_nothing() {
    let tmp = tempdir();
    let out = tmp.path().join("rep");
    let o = out.to_str().unwrap();
    // Not there.
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &["report", "nope.json", "-o", o]));
    assert_eq!(code, 2);
    assert!(err.contains("cannot read nope.json"), "{err}");
    // A results file without its series CSVs.
    std::fs::create_dir(tmp.path().join("lonely")).unwrap();
    std::fs::copy(
        fixture("run-a").join("results.json"),
        tmp.path().join("lonely/results.json"),
    )
    .unwrap();
    let (code, _, err) = code_out_err(&wkrun(
        tmp.path(),
        &["report", "lonely/results.json", "-o", o],
    ));
    assert_eq!(code, 2);
    assert!(err.contains("series lonely/01-fill.csv:"), "{err}");
    // Not a results document.
    write_file(tmp.path(), "x.json", "{\"format\": 1}");
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &["report", "x.json", "-o", o]));
    assert_eq!(code, 2);
    assert!(
        err.contains("x.json does not match the results schema (7 violations):"),
        "{err}"
    );
    // Bad options.
    let r = fixture_results("run-a");
    let (code, _, err) = code_out_err(&wkrun(
        tmp.path(),
        &["report", &r, "-o", o, "--window", "2s..1s"],
    ));
    assert_eq!(code, 2);
    assert!(
        err.contains("--window: window \"2s..1s\" ends at or before its start"),
        "{err}"
    );
    // 1e-308 and the like made the chart ask for 2^63 ticks (exit 101, found by the attack session).
    for (y, shown) in [
        ("0", "0"),
        ("-5", "-5"),
        ("1e-308", "1e-308"),
        ("2.3e-308", "2.3e-308"),
        ("1e-320", "1e-320"),
        ("1.7e308", "1.7e308"),
    ] {
        let (code, _, err) = code_out_err(&wkrun(
            tmp.path(),
            &["report", &r, "-o", o, &format!("--ymax={y}")],
        ));
        assert_eq!(
            (code, err),
            (
                2,
                format!(
                    "error: --ymax {shown}: the ceiling must be a number of IOPS from 0.001 to 1e15\n"
                )
            )
        );
    }
    assert!(!out.exists(), "nothing written");
}

// ---------------------------------------------------------------------------------------------------------
// The page in a real browser: headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4,
// set up by a shell), collecting console errors, uncaught exceptions and failed loads, then a screenshot.

const CHROMIUM: &str = "/usr/bin/chromium";

/// What the browser said about a page.
struct PageCheck {
    /// Console errors, exceptions and log entries of level error.
    errors: Vec<String>,
    /// The screenshot, PNG.
    png: Vec<u8>,
}

/// Standard base64 (the screenshot's encoding).
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let b: Vec<u8> = s.bytes().filter(|c| *c != b'=').map(val).collect();
    let mut out = Vec::with_capacity(b.len() * 3 / 4);
    for ch in b.chunks(4) {
        let n = ch
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, v)| n | (u32::from(*v) << (18 - 6 * i)));
        for i in 0..ch.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

fn check_page(page: &Path, profile: &Path) -> PageCheck {
    let cmd = format!(
        "exec {CHROMIUM} --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir='{}' \
         --window-size=1100,1800 --remote-debugging-pipe about:blank 3<&0 4>&1 0</dev/null 1>/dev/null 2>/dev/null",
        profile.display()
    );
    let mut child = Command::new("sh")
        .args(["-c", &cmd])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let mut to = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<serde_json::Value>();
    let from = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut r = BufReader::new(from);
        loop {
            let mut buf = Vec::new();
            match r.read_until(0, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    buf.pop();
                    if let Ok(v) = serde_json::from_slice(&buf)
                        && tx.send(v).is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    let mut id = 0;
    let mut errors = Vec::new();
    let mut loaded = false;
    // A hang guard, not a measurement: the browser gets 90 s to answer each command.
    let limit = std::time::Duration::from_secs(90);
    let note = |v: &serde_json::Value, errors: &mut Vec<String>, loaded: &mut bool| {
        let p = &v["params"];
        match v["method"].as_str() {
            Some("Runtime.consoleAPICalled")
                if matches!(p["type"].as_str(), Some("error" | "assert")) =>
            {
                errors.push(format!("console.{}: {}", p["type"], p["args"]));
            }
            Some("Runtime.exceptionThrown") => {
                errors.push(format!("exception: {}", p["exceptionDetails"]))
            }
            Some("Log.entryAdded") if p["entry"]["level"] == "error" => {
                errors.push(format!("log: {}", p["entry"]))
            }
            Some("Page.loadEventFired") => *loaded = true,
            _ => {}
        }
    };
    let mut call = |method: &str,
                    params: serde_json::Value,
                    session: Option<&str>,
                    errors: &mut Vec<String>,
                    loaded: &mut bool|
     -> serde_json::Value {
        id += 1;
        let mut msg = serde_json::json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = s.into();
        }
        to.write_all(msg.to_string().as_bytes()).unwrap();
        to.write_all(&[0]).unwrap();
        to.flush().unwrap();
        loop {
            let v = rx
                .recv_timeout(limit)
                .unwrap_or_else(|e| panic!("chromium did not answer {method}: {e}"));
            if v["id"] == id {
                assert!(v["error"].is_null(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
            note(&v, errors, loaded);
        }
    };
    let target = call(
        "Target.createTarget",
        serde_json::json!({"url": "about:blank"}),
        None,
        &mut errors,
        &mut loaded,
    );
    let session = call(
        "Target.attachToTarget",
        serde_json::json!({"targetId": target["targetId"], "flatten": true}),
        None,
        &mut errors,
        &mut loaded,
    )["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let s = Some(session.as_str());
    for m in ["Runtime.enable", "Log.enable", "Page.enable"] {
        call(m, serde_json::json!({}), s, &mut errors, &mut loaded);
    }
    call(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": 1100, "height": 1800, "deviceScaleFactor": 1, "mobile": false}),
        s,
        &mut errors,
        &mut loaded,
    );
    call(
        "Page.navigate",
        serde_json::json!({"url": format!("file://{}", page.display())}),
        s,
        &mut errors,
        &mut loaded,
    );
    while !loaded {
        let v = rx
            .recv_timeout(limit)
            .expect("chromium did not finish loading the page");
        note(&v, &mut errors, &mut loaded);
    }
    let shot = call(
        "Page.captureScreenshot",
        serde_json::json!({"format": "png"}),
        s,
        &mut errors,
        &mut loaded,
    );
    let png = base64(shot["data"].as_str().expect("screenshot data"));
    let _ = call(
        "Browser.close",
        serde_json::json!({}),
        None,
        &mut errors,
        &mut loaded,
    );
    drop(to);
    let _ = child.wait();
    PageCheck { errors, png }
}

/// Distinct RGB colours of a PNG, and whether `rgb` is one of them.
fn png_colours(png: &[u8], rgb: [u8; 3]) -> (usize, bool) {
    let mut dec = png::Decoder::new(std::io::Cursor::new(png));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut r = dec.read_info().expect("screenshot is a PNG");
    let mut buf = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut buf).expect("PNG frame");
    let px = info.color_type.samples();
    assert!(px >= 3, "colour PNG");
    let mut set = std::collections::HashSet::new();
    let mut found = false;
    for p in buf[..info.buffer_size()].chunks(px) {
        set.insert([p[0], p[1], p[2]]);
        found |= p[..3] == rgb;
    }
    (set.len(), found)
}

#[test]
fn report_html_renders_in_chromium_without_console_errors() {
    if !Path::new(CHROMIUM).exists() {
        skip(
            "report_html_renders_in_chromium_without_console_errors",
            "chromium not installed",
        );
        return;
    }
    let (tmp, out, _) = report_fixtures(&["run-a", "run-b"], &[]);
    // The check itself sees errors: a page with a console error and an image that is not there.
    let bad = write_file(
        tmp.path(),
        "bad.html",
        "<!DOCTYPE html><html><body><p>x</p><img src=\"missing.svg\">\
         <script>console.error(\"boom\")</script></body></html>",
    );
    let c = check_page(&bad, &tmp.path().join("profile-bad"));
    assert!(
        c.errors.iter().any(|e| e.contains("boom")),
        "console.error seen: {:?}",
        c.errors
    );
    assert!(
        c.errors.iter().any(|e| e.contains("missing.svg")),
        "failed load seen: {:?}",
        c.errors
    );
    let c = check_page(&out.join("index.html"), &tmp.path().join("profile"));
    assert!(c.errors.is_empty(), "console errors: {:?}", c.errors);
    let (colours, run_a) = png_colours(&c.png, [0, 114, 178]);
    assert!(
        colours > 16,
        "the screenshot is not blank: {colours} colours"
    );
    assert!(run_a, "run-a's colour (#0072b2) is on the page");
}

/// `wkrun report DIR`: a results folder stands for its results.json, and the report goes to `DIR/report/`
/// with the same pages as from the file.
#[test]
fn report_of_a_results_folder_is_that_of_its_results_json() {
    let tmp = tempdir();
    let run = tmp.path().join("run-a");
    std::fs::create_dir(&run).expect("mkdir");
    for f in std::fs::read_dir(fixture("run-a")).expect("fixture") {
        let f = f.expect("entry").path();
        std::fs::copy(&f, run.join(f.file_name().expect("name"))).expect("copy fixture");
    }
    let out = report_ok(tmp.path(), &["run-a"]);
    assert!(out.starts_with("report: run-a/report/index.html"), "{out}");
    report_ok(tmp.path(), &["run-a/results.json", "-o", "from-file"]);
    assert_eq!(
        std::fs::read_to_string(run.join("report/index.html")).expect("index.html"),
        std::fs::read_to_string(tmp.path().join("from-file/index.html")).expect("index.html"),
        "index.html from the folder and from its results.json differ"
    );
}

/// Issue 24 item 21: a series CSV that is empty, binary, or cut short (fewer rows than the phase's
/// `intervals`) is refused by `report` (exit 2, naming the file and what is wrong), where the
/// report used to show the phase with no plots and no word; nothing is written.
#[test]
fn a_series_csv_that_is_empty_binary_or_cut_short_is_refused() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 0\ninterval = \"100ms\"\nduration = \"500ms\"\n";
    let out = run_ok(d.path(), "bad-csv", body, &d.path().join("t.img"));
    let (_, r) = strict_results(&out);
    let csv = out.join(r["phases"][0]["series_csv"].as_str().unwrap());
    let good = std::fs::read(&csv).unwrap();
    let rows = u64::try_from(good.iter().filter(|&&b| b == b'\n').count() - 1).unwrap();
    let cut: Vec<u8> = {
        let text = String::from_utf8(good.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        (lines[..lines.len() - 1].join("\n") + "\n").into_bytes()
    };
    let name = csv.display().to_string();
    let cases: [(&str, Vec<u8>, String); 3] = [
        (
            "empty",
            Vec::new(),
            format!("series {name}: line 1 is not a series CSV's header"),
        ),
        (
            "binary",
            [
                0x7f, b'E', b'L', b'F', 2, 1, 1, 0, b'\n', 0, 0, 0, 3, 0, 0x3e,
            ]
            .repeat(8),
            format!("series {name}: line 1 is not a series CSV's header"),
        ),
        (
            "cut short",
            cut,
            format!(
                "series {name}: {} rows, where results.json says phase \"w\" has {rows} intervals",
                rows - 1
            ),
        ),
    ];
    for (what, bytes, want) in cases {
        std::fs::write(&csv, &bytes).unwrap();
        let (run, rep) = (out.to_str().unwrap(), d.path().join("rep"));
        let rep = rep.to_str().unwrap();
        // (compare reads results.json only, never the series.)
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", run, "-o", rep]));
        assert_eq!(code, 2, "{what}: {err}");
        assert!(err.contains(&want), "{what}: {err}");
        assert!(
            !d.path().join("rep").exists(),
            "{what}: a report was written"
        );
    }
}

/// Found by the attack session: `inf` (or 1.7e308) in a series CSV passed `validate`, and `report` then asked
/// for 2^31 decades (memory, then exit 134); 2e-308 asked for 2^63 ticks (exit 101). Every number of a row
/// is 0 or finite from 1e-12 to 2.147483648e18 (2 GiB in a nanosecond): `validate`, `report` and `merge`'s reading refuse the rest, exit 2,
/// naming the file, line and column; no report written.
#[test]
fn a_series_value_no_interval_measures_is_refused() {
    // An existing sparse file: a target the run creates is laid out first (1 GiB of random data) before its
    // reads, which took most of this test's time.
    let (d, target) = sparse_target_dir(16 << 20);
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 50\ninterval = \"100ms\"\nduration = \"300ms\"\n";
    let out = run_ok(d.path(), "odd-values", body, &target);
    let (_, r) = strict_results(&out);
    let csv = out.join(r["phases"][0]["series_csv"].as_str().unwrap());
    let good = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = good.lines().next().unwrap().split(',').collect();
    let (run, rep) = (out.to_str().unwrap(), d.path().join("rep"));
    for (column, value, shown) in [
        ("read_iops", "inf", "inf"),
        ("write_iops", "1.7e308", "1.7e308"),
        ("write_bw_bytes_per_s", "2e-308", "2e-308"),
        ("read_lat_mean_us", "NaN", "NaN"),
        ("t_s", "-1", "-1"),
        ("interval_s", "1e19", "1e19"),
    ] {
        let k = header.iter().position(|h| *h == column).unwrap();
        let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
        let mut fields: Vec<&str> = lines[2].split(',').collect();
        fields[k] = value;
        lines[2] = fields.join(",");
        std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
        let want = format!(
            "error: series {}: line 3: column {column}: {shown} is not a value an interval measures (0, or a finite number from 1e-12 to 2.147483648e18)\n",
            csv.display()
        );
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", run]));
        assert_eq!(
            (code, err),
            (2, want.clone()),
            "validate, {column} = {value}"
        );
        let (code, _, err) = code_out_err(&wkrun(
            d.path(),
            &["report", run, "-o", rep.to_str().unwrap()],
        ));
        assert_eq!((code, err), (2, want), "report, {column} = {value}");
        assert!(!rep.exists(), "{column} = {value}: a report was written");
    }
}

/// Trial 15 finding 2: the report of a run on a file compares its sweep's members (changes, a composite)
/// and said nothing of what `wkrun compare` says: on a file, they may be noise. The page and stderr now
/// say it, in compare's words; for a simulated drive, neither does.
#[test]
fn a_report_of_a_file_run_says_its_changes_may_be_noise() {
    let tmp = tempdir();
    let d = tmp.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1s\"\n\n[[sweep]]\nname = \"q\"\nphases = [\"w\"]\nqueue_depth = [1, 2]\n";
    write_file(d, "s.toml", &spec_text("s", body));
    let noise = "the numbers describe the file and the file system and page cache under it, not an SSD, so the changes and the composite may be noise, differing from run to run";
    for (target, run, noted) in [
        ("t.img", "file", true),
        ("sim:capacity=64MiB,op=7%,block=256KiB", "sim", false),
    ] {
        let args = ["s.toml", "--target", target, "--target-size", "16MiB"];
        let args = match noted {
            true => &args[..],
            false => &args[..3],
        };
        let mut all = args.to_vec();
        all.extend(["-o", run, "-q"]);
        let o = wkrun(d, &all);
        assert!(o.status.success(), "{}", code_out_err(&o).2);
        let rep = format!("{run}-rep");
        let o = wkrun(d, &["report", run, "-o", &rep]);
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 0, "{err}");
        let page = std::fs::read_to_string(d.join(&rep).join("index.html")).unwrap();
        assert!(page.contains("Sweep members compared"), "{run}");
        let path = results(&d.join(run))["target"]["path"]
            .as_str()
            .unwrap()
            .to_string();
        // The run is named by its target (one run: the report's label), so the target is not said twice.
        let line = format!("note: {path}: on a file: {noise}");
        if noted {
            let said: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
            assert_eq!(said, [line.as_str()], "{err}");
            assert!(
                page.contains(&format!("<p class=\"warn\">{line}</p>")),
                "{run}"
            );
        } else {
            assert!(!err.contains("may be noise"), "{err}");
            assert!(!page.contains("may be noise"), "{run}");
        }
    }
}

/// Trial 16 finding 4: the report labels a phase's note `note:`, as the console does, not `warning:` (the
/// results keep notes among the phase's warnings): a fill into the holes of this run's own erase.
#[test]
fn a_report_labels_a_phase_note_as_the_console_does() {
    let tmp = tempdir();
    let d = tmp.path();
    let body = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\n";
    write_file(d, "s.toml", &spec_text("s", body));
    let o = wkrun(
        d,
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "8MiB",
            "-o",
            "out",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let note = "writes into holes: as expected after this run's erase (phase \"purge\"): 8388608 B (100.0 %) of the write range [0, 8388608) are holes in the file: at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work";
    let r = results(&d.join("out"));
    // (After it, the fill may get warnings of its few writes' tail and of a busy host.)
    assert_eq!(r["phases"][1]["warnings"][0], note);
    let tail = "write latency p90, p99, p99.9 and p99.99: fewer than 10 of the 64 writes lie above each, so they name the largest few latencies, not the tail";
    assert_eq!(r["phases"][1]["warnings"][1], tail);
    assert!(
        err.contains("note: phase fill: writes into holes: as expected"),
        "{err}"
    );
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "out", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(d.join("rep").join("index.html")).unwrap();
    let label = r["target"]["path"].as_str().unwrap().to_string();
    let said: Vec<&str> = page
        .lines()
        .filter(|l| l.contains("writes into holes"))
        .collect();
    let html = note.replace('\'', "&#39;").replace('"', "&quot;");
    assert_eq!(
        said,
        [format!("<p class=\"warn\">{label}: note: {html}</p>")]
    );
    let tails: Vec<&str> = page.lines().filter(|l| l.contains(tail)).collect();
    assert_eq!(
        tails,
        [format!("<p class=\"warn\">{label}: warning: {tail}</p>")]
    );
}
