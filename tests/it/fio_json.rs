//! fio's JSON output read strictly (issue 24, round 2, the attack's hostile fio JSON): every number in
//! range, bins and percentiles well formed, sums within 64 bits, `jobs` not empty, clones summed only when
//! they are one job; any violation refused by `compare`, `report` and `library add` alike (exit 2, the
//! file and the JSON key named, nothing written). And `library add` takes fio's JSON as the others do.

use crate::common::*;
use serde_json::{Value, json};
use std::path::Path;

/// The fixture `name` of tests/data/fio, parsed.
fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fio")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

/// `doc` with the value at `pointer` (a JSON pointer) replaced by `v`.
fn with(mut doc: Value, pointer: &str, v: Value) -> Value {
    *doc.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}")) = v;
    doc
}

/// `doc` with `key` = `v` added to the object at `pointer`.
fn adding(mut doc: Value, pointer: &str, key: &str, v: Value) -> Value {
    let o = doc
        .pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .expect("an object");
    o.insert(key.to_string(), v);
    doc
}

/// Each hostile document, refused by compare, report and library add with exit 2 and the same error
/// naming the file and the key; no report folder and no library made.
#[test]
fn hostile_fio_json_is_refused_naming_the_file_and_the_key() {
    let plus = fixture("fio-3.33-json-plus.json");
    let two = fixture("fio-3.33-two-jobs.json");
    let clones = fixture("fio-3.33-numjobs-clones-plus.json");
    let max = json!(u64::MAX);
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "negative count",
            with(plus.clone(), "/jobs/0/read/total_ios", json!(-5)),
            "jobs[0].read.total_ios is -5: a count cannot be negative",
        ),
        (
            "fractional bytes",
            with(plus.clone(), "/jobs/0/read/io_bytes", json!(1.5)),
            "jobs[0].read.io_bytes is 1.5: not a whole number",
        ),
        (
            "count past 2^64",
            with(plus.clone(), "/jobs/0/write/runtime", json!(1e20)),
            "jobs[0].write.runtime is 1e+20: more than 18446744073709551615, the largest count",
        ),
        (
            "huge rate",
            with(plus.clone(), "/jobs/0/read/iops", json!(1e300)),
            "jobs[0].read.iops is 1e+300: more than 2^64",
        ),
        (
            "negative rate",
            with(plus.clone(), "/jobs/0/write/bw_bytes", json!(-1.0)),
            "jobs[0].write.bw_bytes is -1.0: it cannot be negative",
        ),
        (
            "rate as text",
            with(plus.clone(), "/jobs/0/write/iops", json!("fast")),
            "jobs[0].write.iops is \"fast\": not a number",
        ),
        (
            "negative latency",
            with(two.clone(), "/jobs/0/read/lat_ns/min", json!(-1)),
            "jobs[0].read.lat_ns.min is -1: a count cannot be negative",
        ),
        (
            "bad bin key",
            adding(plus.clone(), "/jobs/0/read/clat_ns/bins", "abc", json!(1)),
            "jobs[0].read.clat_ns.bins: the key \"abc\" is not a latency in whole ns",
        ),
        (
            "negative bin",
            adding(
                plus.clone(),
                "/jobs/0/read/clat_ns/bins",
                "999999999",
                json!(-3),
            ),
            "jobs[0].read.clat_ns.bins.\"999999999\" is -3: a count cannot be negative",
        ),
        (
            "bins past 2^64",
            adding(
                plus.clone(),
                "/jobs/0/read/clat_ns/bins",
                "999999999",
                max.clone(),
            ),
            "jobs[0].read.clat_ns.bins: the counts add up past 2^64",
        ),
        (
            "bad percentile key",
            adding(
                two.clone(),
                "/jobs/0/read/clat_ns/percentile",
                "abc",
                json!(5),
            ),
            "jobs[0].read.clat_ns.percentile: the key \"abc\" is not a percentage from 0 to 100",
        ),
        (
            "percentile over 100",
            adding(
                two.clone(),
                "/jobs/0/read/clat_ns/percentile",
                "101.0",
                json!(5),
            ),
            "jobs[0].read.clat_ns.percentile: the key \"101.0\" is not a percentage from 0 to 100",
        ),
        (
            "negative percentile",
            with(
                two.clone(),
                "/jobs/0/read/clat_ns/percentile/50.000000",
                json!(-7),
            ),
            "jobs[0].read.clat_ns.percentile.\"50.000000\" is -7: a count cannot be negative",
        ),
        (
            "clones past 2^64",
            with(clones.clone(), "/jobs/0/read/total_ios", max.clone()),
            "jobs[0] to jobs[1] (clones).read: total_ios adds up past 2^64",
        ),
        (
            "no jobs",
            with(plus.clone(), "/jobs", json!([])),
            "\"jobs\" is empty: fio's output has no job to read",
        ),
    ];
    let d = tempdir();
    for (what, doc, key) in cases {
        std::fs::write(d.path().join("h.json"), doc.to_string()).expect("write");
        let want = format!("error: h.json: {key}\n");
        for args in [
            vec!["compare", "h.json", "h.json"],
            vec!["report", "h.json", "-o", "rep"],
            vec!["library", "add", "h.json", "--library", "lib.sqlite"],
        ] {
            let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
            assert_eq!((code, err.as_str()), (2, want.as_str()), "{what}: {args:?}");
        }
        assert!(!d.path().join("rep").exists(), "{what}: a report folder");
        assert!(!d.path().join("lib.sqlite").exists(), "{what}: a library");
    }
}

/// Reports of one name and group are one job's clones only with the same options: the three clones of
/// `mixed` (numjobs=3) are one phase of their summed I/Os (9670 + 10684 + 10614 reads); with the second's
/// `iodepth` changed they are three phases (the first alone, the second alone, the third alone: it differs from
/// the second); three more identical reports after the three are a second phase of 3 (numjobs).
#[test]
fn clones_are_summed_only_when_they_are_one_job() {
    let clones = fixture("fio-3.33-numjobs-clones-plus.json");
    let read =
        |r: &wkrun::results::Results| -> Vec<u64> { r.phases.iter().map(|p| p.read.ops).collect() };
    let parse = |doc: &Value| {
        wkrun::fio::json::from_bytes("c.json", doc.to_string().as_bytes()).expect("reads")
    };
    assert_eq!(read(&parse(&clones)), vec![9670 + 10684 + 10614]);
    // An option that the rules of fio's arithmetic leave alone (a bs of 8k beside 4 KiB I/Os is refused).
    let other = adding(clones.clone(), "/jobs/1/job options", "iodepth", json!("2"));
    let r = parse(&other);
    assert_eq!(read(&r), vec![9670, 10684, 10614]);
    let names: Vec<&str> = r.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["mixed", "mixed-2", "mixed-3"]);
    let mut six = clones.clone();
    let jobs = six["jobs"].as_array().expect("jobs").clone();
    six["jobs"].as_array_mut().expect("jobs").extend(jobs);
    assert_eq!(read(&parse(&six)), vec![30968, 30968]);
}

/// `library add` takes fio's JSON as compare and report do: the entry's spec is `fio`, and it reads back
/// beside another fio file in `compare --against-library` with fio's figures (the two-jobs file's `mix`
/// reads, 16230).
#[test]
fn library_add_takes_fio_json() {
    let d = tempdir();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio");
    for f in ["fio-3.33-two-jobs.json", "fio-3.33-json-plus.json"] {
        std::fs::copy(data.join(f), d.path().join(f)).expect("copy");
    }
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "library",
            "add",
            "fio-3.33-two-jobs.json",
            "--library",
            "lib.sqlite",
        ],
    ));
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "added entry 1, fio: fio-3.33-two-jobs.json: fio-3.33-two-jobs.json\nlibrary: lib.sqlite (1 entries)\n"
    );
    let (code, out, _) = code_out_err(&wkrun(
        d.path(),
        &["library", "list", "--library", "lib.sqlite"],
    ));
    assert_eq!(code, 0);
    let line = out.lines().nth(1).expect("an entry");
    assert!(
        line.starts_with(" 1  fio: fio-3.33-two-jobs.json  fio  "),
        "{line}"
    );
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "compare",
            "fio-3.33-json-plus.json",
            "--against-library",
            "--library",
            "lib.sqlite",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("fio: fio-3.33-two-jobs.json"), "{out}");
}

/// Trial 24b item 7: the report's run table gives a fio JSON's row fio's version, not wkrun's, and its
/// times to the millisecond as wkrun's rows, not to the nanosecond.
#[test]
fn the_report_row_of_a_fio_json_names_fio_and_its_times_in_milliseconds() {
    let d = tempdir();
    let doc = fixture("fio-3.33-two-jobs.json");
    std::fs::write(d.path().join("f.json"), doc.to_string()).expect("write");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", "f.json", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.path().join("rep/index.html")).expect("index.html");
    let version = doc["fio version"].as_str().expect("fio version");
    assert!(
        html.contains(&format!("<br>{version}</td></tr>")),
        "{version}"
    );
    assert!(!html.contains("<br>wkrun "), "wkrun's version on fio's row");
    let row = html
        .split("<th class=\"l\">status</th></tr></thead><tbody>")
        .nth(1)
        .expect("runs table");
    let row = row.split("</tr>").next().expect("row");
    assert!(!row.contains("000000Z"), "{row}");
    assert!(row.matches('Z').count() >= 2, "{row}");
}

/// attack14 F4: two different jobs of one name (the two-jobs file's `seq` renamed `mix`) are two phases,
/// but `compare` showed the first one's rows only and `report` drew only its chart: phases are found by
/// name. The second is the phase `mix-2` now, with its own figures (fio's `iops` 16213.786214 and
/// 5859.140859 reads a second in the file) in `compare`, `report` and `validate` alike.
#[test]
fn two_jobs_of_one_name_are_both_shown() {
    let d = tempdir();
    let doc = fixture("fio-3.33-two-jobs.json");
    let dup = with(doc.clone(), "/jobs/1/jobname", json!("mix"));
    std::fs::write(d.path().join("dup.json"), dup.to_string()).expect("write");
    let r = wkrun::fio::json::from_bytes("dup.json", dup.to_string().as_bytes()).expect("reads");
    let got: Vec<(&str, f64)> = r
        .phases
        .iter()
        .map(|p| (p.name.as_str(), p.read.iops))
        .collect();
    assert_eq!(got, [("mix", 16213.786214), ("mix-2", 5859.140859)]);
    assert_eq!(
        r.phases[1].warnings.last().map(String::as_str),
        Some("fio reported an earlier job of the name mix: this one is the phase mix-2 here")
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", "dup.json"]));
    assert_eq!(
        (code, out.as_str()),
        (0, "dup.json: ok (results, 2 phases, 0 series CSVs)\n"),
        "{err}"
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "dup.json"]));
    assert_eq!(code, 0, "{err}");
    // Each phase's IOPS: mix's reads and writes (16213.786214 + 6904.095904), mix-2's reads only.
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<&str>>())
        .filter(|w| w.get(1..4) == Some(&["IOPS,", "phase", "mean"][..]))
        .collect();
    assert_eq!(
        rows,
        [
            ["mix", "IOPS,", "phase", "mean", "23117.9"],
            ["mix-2", "IOPS,", "phase", "mean", "5859.1"]
        ],
        "{out}"
    );
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", "dup.json", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let mut charts: Vec<String> = std::fs::read_dir(d.path().join("rep"))
        .expect("rep")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    charts.sort();
    assert_eq!(
        charts,
        ["00-mix-percentiles.svg", "01-mix-2-percentiles.svg"]
    );
}

/// attack14 F5: a job report without `numjobs` is one job (fio's default numjobs is 1), never a clone
/// group: two identical reports of a job that ran twice, stonewalled, were added up (their IOPS summed
/// over the longer runtime: 32427.572428 reads a second for a job that did 16213.786214). Each is a phase
/// of its own with the job's figures; with `numjobs=2` the two are one job's clones, summed.
#[test]
fn reports_without_numjobs_are_one_job_each() {
    let doc = fixture("fio-3.33-two-jobs.json");
    let mut twice = doc.clone();
    twice["jobs"][1] = doc["jobs"][0].clone();
    let r = wkrun::fio::json::from_bytes("t.json", twice.to_string().as_bytes()).expect("reads");
    let got: Vec<(&str, u64, f64, f64)> = r
        .phases
        .iter()
        .map(|p| (p.name.as_str(), p.read.ops, p.read.iops, p.write.iops))
        .collect();
    assert_eq!(
        got,
        [
            ("mix", 16230, 16213.786214, 6904.095904),
            ("mix-2", 16230, 16213.786214, 6904.095904)
        ]
    );
    let clones = adding(twice.clone(), "/jobs/0/job options", "numjobs", json!("2"));
    let clones = adding(clones, "/jobs/1/job options", "numjobs", json!("2"));
    let r = wkrun::fio::json::from_bytes("c.json", clones.to_string().as_bytes()).expect("reads");
    let got: Vec<(u64, f64)> = r.phases.iter().map(|p| (p.read.ops, p.read.iops)).collect();
    assert_eq!(got, [(2 * 16230, 2.0 * 16213.786214)]);
}

/// Trial 16 item 1: fio's plain JSON (no latency bins) of a job's two clones (numjobs=2 without
/// group_reporting, a real fio run of 256 random 4 KiB reads per clone over a 1 MiB file): the phase's
/// read latency min, mean, stddev and max are the clones' `lat_ns` pooled, recomputed here from fio's
/// JSON (the mean weighted by each clone's N, min and max over the clones, the variance each clone's
/// plus its mean's squared distance from the whole's, weighted by N); the percentiles are absent (no
/// exact percentile of the whole comes from the clones' own), and `compare` shows the mean and max
/// (they read `-` before).
#[test]
fn plain_json_clones_keep_their_pooled_latency() {
    let test = "fio_json::plain_json_clones_keep_their_pooled_latency";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let o = std::process::Command::new("fio")
        .current_dir(d.path())
        .args([
            "--name=randread",
            "--filename=f",
            "--size=1M",
            "--ioengine=psync",
            "--rw=randread",
            "--bs=4k",
            "--numjobs=2",
            "--output-format=json",
            "--output=fio.json",
        ])
        .output()
        .expect("run fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(d.path().join("fio.json")).expect("fio.json");
    let doc: Value = serde_json::from_str(&text[text.find('{').expect("JSON")..]).expect("JSON");
    let lat: Vec<&Value> = (0..2).map(|i| &doc["jobs"][i]["read"]["lat_ns"]).collect();
    let f = |v: &Value, k: &str| v[k].as_f64().expect(k);
    let u = |v: &Value, k: &str| v[k].as_u64().expect(k);
    for (i, l) in lat.iter().enumerate() {
        assert_eq!(u(l, "N"), 256, "clone {i}: N");
        assert_eq!(u(&doc["jobs"][i]["read"], "total_ios"), 256);
        assert!(l.get("bins").is_none() && l.get("percentile").is_none());
    }
    let n = f(lat[0], "N") + f(lat[1], "N");
    let mean = (f(lat[0], "mean") * f(lat[0], "N") + f(lat[1], "mean") * f(lat[1], "N")) / n;
    let var = |l: &Value| f(l, "stddev") * f(l, "stddev") + (f(l, "mean") - mean).powi(2);
    let stddev = ((var(lat[0]) * f(lat[0], "N") + var(lat[1]) * f(lat[1], "N")) / n).sqrt();
    let min = u(lat[0], "min").min(u(lat[1], "min"));
    let max = u(lat[0], "max").max(u(lat[1], "max"));
    let r = wkrun::fio::json::from_bytes("fio.json", text.as_bytes()).expect("reads");
    assert_eq!(r.phases.len(), 1);
    let read = &r.phases[0].read;
    assert_eq!(read.ops, 512);
    assert_eq!(read.latency_ns, None);
    assert_eq!(
        read.latency_moments_ns,
        Some(wkrun::stats::LatencyMoments {
            min,
            mean,
            stddev,
            max
        })
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "fio.json"]));
    assert_eq!(code, 0, "{err}");
    let row = |words: &str| {
        out.lines()
            .find(|l| l.starts_with("randread") && l.contains(words))
            .map(|l| l.split_whitespace().last().unwrap_or("").to_string())
    };
    let us = |ns: f64| Some(format!("{:.2}", ns / 1000.0));
    assert_eq!(row("latency, phase mean (µs)"), us(mean), "{out}");
    assert_eq!(row("read latency max (µs)"), us(max as f64), "{out}");
    assert_eq!(row("read latency p99 (µs)"), None, "{out}");
}
