//! Trial 16 (fio): fio's trims and syncs read from its JSON output as a wkrun phase holds them (`trim`, and
//! `sync.flushes`), shown by `compare`, kept by the results library; and the latency-target import of a
//! sync engine refused saying why its search has one queue depth. Real fio runs on 1 MiB files, each well
//! under two seconds.

use crate::common::{code_out_err, skip, tempdir, wkrun};
use serde_json::Value;
use std::path::Path;

/// fio's 256 random 4 KiB trims (falloc punches holes) with iodepth=8 on a 1 MiB file.
const TRIM_RUN: [&str; 7] = [
    "--name=tr",
    "--filename=f",
    "--size=1M",
    "--rw=randtrim",
    "--bs=4k",
    "--iodepth=8",
    "--ioengine=falloc",
];

/// fio's 256 buffered random 4 KiB writes with fdatasync=4 on a 1 MiB file.
const SYNC_RUN: [&str; 6] = [
    "--name=fds",
    "--filename=f",
    "--size=1M",
    "--rw=randwrite",
    "--bs=4k",
    "--fdatasync=4",
];

/// Runs fio with `args` in `dir`, its JSON output to `fio.json`; its text and its document.
fn fio_json(dir: &Path, args: &[&str]) -> (String, Value) {
    let o = std::process::Command::new("fio")
        .current_dir(dir)
        .args(args)
        .args(["--output-format=json", "--output=fio.json"])
        .output()
        .expect("run fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(dir.join("fio.json")).expect("fio.json");
    let doc = serde_json::from_str(&text[text.find('{').expect("JSON")..]).expect("JSON");
    (text, doc)
}

/// The value of `compare`'s row `metric` of phase `phase` in the run's column `col` (0: the first run).
fn row(out: &str, phase: &str, metric: &str, col: usize) -> Option<String> {
    out.lines().find_map(|l| {
        let cells: Vec<&str> = l
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        (cells.len() > 2 + col && cells[0] == phase && cells[1] == metric)
            .then(|| cells[2 + col].to_string())
    })
}

/// `x` with `d` decimals, as compare shows it.
fn shown(x: f64, d: usize) -> Option<String> {
    Some(format!("{x:.d$}"))
}

/// Trial 16 F1: fio's trims were dropped ("fio's N trims are not counted"), so compare showed a randtrim
/// job at 0.0 IOPS, its latency `-`, and the library kept the 0. A real fio run of 256 random 4 KiB trims
/// with iodepth=8 on a 1 MiB file (fio 3.33 trims a regular file with its `falloc` engine, punching holes;
/// its default psync trims by BLKDISCARD, error 25 on a file): the phase's `trim` is fio's trim block (I/Os,
/// bytes, IOPS, bandwidth, latency mean and max from `lat_ns`, p99 from `clat_ns`), its total the same, its
/// parameters those `wkrun import fio` gives the job (`read_percent = 0`, `trim_percent = 100`); compare
/// and `compare --against-library` show fio's figures.
#[test]
fn fio_trims_are_the_phases_trims() {
    let test = "fio_trimsync::fio_trims_are_the_phases_trims";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let (text, doc) = fio_json(d.path(), &TRIM_RUN);
    let t = &doc["jobs"][0]["trim"];
    let u = |v: &Value| v.as_u64().expect("a count");
    let f = |v: &Value| v.as_f64().expect("a number");
    assert_eq!((u(&t["total_ios"]), u(&t["io_bytes"])), (256, 1 << 20));
    let r = wkrun::fio::json::from_bytes("fio.json", text.as_bytes()).expect("reads");
    let p = &r.phases[0];
    let trim = p.trim.as_ref().expect("the phase's trims");
    assert_eq!((trim.ops, trim.bytes), (256, 1 << 20));
    assert_eq!(trim.iops, f(&t["iops"]));
    assert_eq!(trim.bw_bytes_per_s, f(&t["bw_bytes"]));
    let l = trim.latency_ns.as_ref().expect("trim latency");
    assert_eq!(
        (l.min, l.mean, l.max),
        (
            u(&t["lat_ns"]["min"]),
            f(&t["lat_ns"]["mean"]),
            u(&t["lat_ns"]["max"])
        )
    );
    assert_eq!(l.p99, u(&t["clat_ns"]["percentile"]["99.000000"]));
    assert_eq!(p.total, *trim);
    assert_eq!((p.read.ops, p.write.ops), (0, 0));
    assert_eq!(
        (p.params.read_percent, p.params.trim_percent),
        (Some(0), Some(100))
    );
    assert!(
        !p.warnings.iter().any(|w| w.contains("trims")),
        "{:?}",
        p.warnings
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "fio.json"]));
    assert_eq!(code, 0, "{err}");
    // A phase of one direction: its IOPS and mean latency are the phase's rows (compare leaves out the
    // direction's rows that say the same).
    let want = [
        ("IOPS, phase mean", shown(f(&t["iops"]), 1)),
        (
            "latency, phase mean (µs)",
            shown(f(&t["lat_ns"]["mean"]) / 1e3, 2),
        ),
        (
            "bandwidth, phase mean (MB/s)",
            shown(f(&t["bw_bytes"]) / 1e6, 2),
        ),
        (
            "trim latency max (µs)",
            shown(f(&t["lat_ns"]["max"]) / 1e3, 2),
        ),
        (
            "trim latency p99 (µs)",
            shown(f(&t["clat_ns"]["percentile"]["99.000000"]) / 1e3, 2),
        ),
    ];
    for (metric, v) in &want {
        assert_eq!(row(&out, "tr", metric, 0), *v, "{metric}\n{out}");
    }
    // The library compares a run with its other runs: the same output with one more line end at its end
    // is another file (another SHA-256), of the same figures.
    std::fs::write(d.path().join("again.json"), format!("{text}\n")).expect("again.json");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["library", "add", "again.json", "--library", "lib.sqlite"],
    ));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "compare",
            "fio.json",
            "--against-library",
            "--library",
            "lib.sqlite",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    for (metric, v) in &want[..2] {
        let same = v.as_ref().map(|v| format!("{v} (+0.0 %)"));
        assert_eq!(
            row(&out, "tr", metric, 1),
            same,
            "{metric} (library)\n{out}"
        );
    }
}

/// Trial 19 F6: compare of fio's falloc trim job beside a wkrun trim workload on libaio showed no engine
/// (fio's `falloc` has no wkrun engine, so the phase's `params.engine` was absent, unknown, and left out of
/// the parameters that differ). Now the phase's warning keeps fio's name for it and the row says both.
#[test]
fn compare_shows_fios_falloc_engine_beside_libaio() {
    let test = "fio_trimsync::compare_shows_fios_falloc_engine_beside_libaio";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let (text, _) = fio_json(d.path(), &TRIM_RUN);
    let r = wkrun::fio::json::from_bytes("fio.json", text.as_bytes()).expect("reads");
    assert_eq!(r.phases[0].params.engine, None);
    assert_eq!(wkrun::fio::json::other_engine(&r.phases[0]), Some("falloc"));
    let body = "[[phase]]\nname = \"tr\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 8\nread_percent = 0\ntrim_percent = 100\nduration = \"1s\"\nengine = \"libaio\"\ndirect = true\n";
    crate::common::write_file(d.path(), "t.toml", &crate::common::spec_text("t", body));
    let args = [
        "t.toml",
        "--target",
        "g.img",
        "--target-size",
        "1MiB",
        "-q",
        "-o",
        "tw",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "fio.json", "tw"]));
    assert_eq!(code, 0, "{err}");
    let differ = |col| row(&out, "tr", "parameters that differ", col);
    assert_eq!(
        (differ(0), differ(1)),
        (Some("engine=falloc".into()), Some("engine=libaio".into())),
        "{out}"
    );
}

/// Trial 16 F2: fio's `sync` block was never read, so compare's flush rows were `-` for fio. A real fio
/// run of 256 buffered random 4 KiB writes with fdatasync=4 on a 1 MiB file: the phase's flushes are the
/// fdatasync(2) calls fio timed (`sync.lat_ns.N`; fio 3.33's `sync.total_ios` counts fsync(2) calls only),
/// every 4 writes, their latency fio's `sync.lat_ns` (min, mean, max, p99); compare's flush rows show them.
#[test]
fn fio_syncs_are_the_phases_flushes() {
    let test = "fio_trimsync::fio_syncs_are_the_phases_flushes";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let (text, doc) = fio_json(d.path(), &SYNC_RUN);
    let j = &doc["jobs"][0];
    let s = &j["sync"]["lat_ns"];
    let u = |v: &Value| v.as_u64().expect("a count");
    let f = |v: &Value| v.as_f64().expect("a number");
    assert_eq!(u(&j["write"]["total_ios"]), 256);
    // fio syncs before the write after every 4th, so none after the last: 63 for 256 writes. fio 3.33's
    // `total_ios` counts fsync(2) calls only (docs/fio.md and docs/results.md say both).
    assert_eq!(u(&s["N"]), 63);
    if doc["fio version"] == "fio-3.33" {
        assert_eq!(u(&j["sync"]["total_ios"]), 0);
    }
    let r = wkrun::fio::json::from_bytes("fio.json", text.as_bytes()).expect("reads");
    let p = &r.phases[0];
    let sync = p.sync.as_ref().expect("the phase's sync");
    assert_eq!((sync.write_flag, sync.flagged_writes), (None, 0));
    let fl = sync.flushes.as_ref().expect("flushes");
    assert_eq!(
        (fl.call.as_str(), fl.every_writes, fl.ops),
        ("fdatasync", 4, u(&s["N"]))
    );
    let l = fl.latency_ns.as_ref().expect("flush latency");
    assert_eq!(
        (l.min, l.mean, l.max, l.p99),
        (
            u(&s["min"]),
            f(&s["mean"]),
            u(&s["max"]),
            u(&s["percentile"]["99.000000"])
        )
    );
    assert_eq!((p.params.fdatasync, p.params.fsync), (Some(4), None));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "fio.json"]));
    assert_eq!(code, 0, "{err}");
    for (metric, v) in [
        ("flushes (fsync/fdatasync calls)", shown(f(&s["N"]), 0)),
        (
            "flush latency, phase mean (µs)",
            shown(f(&s["mean"]) / 1e3, 2),
        ),
        (
            "flush latency p99 (µs)",
            shown(f(&s["percentile"]["99.000000"]) / 1e3, 2),
        ),
        ("flush latency max (µs)", shown(f(&s["max"]) / 1e3, 2)),
    ] {
        assert_eq!(row(&out, "fds", metric, 0), v, "{metric}\n{out}");
    }
}

/// Trial 16 F3: a latency-target search imported from a job on fio's default engine (psync, one I/O in
/// flight whatever iodepth says) was refused by the spec's rule, "this phase has one" queue depth, without
/// saying why. The importer refuses it at `--latency_target`, naming the engine and the way out; with
/// `--ioengine=libaio` the same job imports as a search up to iodepth=64.
#[test]
fn a_latency_target_on_a_sync_engine_says_why_it_has_one_depth() {
    let d = tempdir();
    let job = [
        "import",
        "fio",
        "--",
        "--name=lt",
        "--filename=F",
        "--rw=randread",
        "--bs=4k",
        "--iodepth=64",
        "--latency_target=2ms",
        "--latency_window=2s",
        "--runtime=20",
        "--time_based",
    ];
    let (code, out, err) = code_out_err(&wkrun(d.path(), &job));
    assert_eq!((code, out.as_str()), (2, ""));
    let why = "error: fio command line, argument 6 `--latency_target=2ms`: latency_target=2000: fio's psync engine (fio's default ioengine) keeps one I/O in flight whatever iodepth=64 says, so there is one queue depth and nothing to search: give --ioengine=libaio or --ioengine=io_uring to search queue depths up to iodepth=64 (--lossy drops it, with a comment in the spec)";
    assert_eq!(err.lines().next(), Some(why), "{err}");
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &[&job[..], &["--ioengine=libaio"]].concat(),
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("queue_depth = [1, 2, 4, 8, 16, 32, 64]"),
        "{out}"
    );
}

/// Trial 18 F1, F2: fio trims a regular file only with its `falloc` engine, so a trim job on a file named
/// it, and the import refused it ("fio's falloc engine has no wkrun engine"). Now a falloc trim job imports
/// as a trim workload on psync, one I/O at a time, with a note; a falloc job that writes is refused naming
/// why; and `export fio` of a trim phase says which engine fio needs on a file.
#[test]
fn a_falloc_trim_job_imports_and_an_exported_trim_job_says_its_engine() {
    let t = tempdir();
    let d = t.path();
    let job = |rw: &str| {
        let args = [
            "import",
            "fio",
            "--",
            "--name=tr",
            "--filename=t.img",
            "--size=1m",
            "--ioengine=falloc",
            "--iodepth=8",
            "--bs=4k",
        ];
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.push(format!("--rw={rw}"));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        code_out_err(&wkrun(d, &a))
    };
    let (code, spec, err) = job("randtrim");
    assert_eq!(code, 0, "{err}");
    let doc: toml::Table = spec.parse().expect("TOML");
    let phase = &doc["phase"].as_array().expect("phases")[0];
    let key = |k: &str| {
        phase
            .get(k)
            .or_else(|| doc.get("defaults").and_then(|x| x.get(k)))
            .cloned()
    };
    assert_eq!(
        (
            phase["trim_percent"].as_integer(),
            key("queue_depth").and_then(|v| v.as_integer()),
            phase["pattern"].as_str(),
            key("engine").and_then(|v| v.as_str().map(String::from))
        ),
        (
            Some(100),
            Some(1),
            Some("random"),
            Some("psync".to_string())
        ),
        "{spec}"
    );
    assert!(
        spec.contains("# note: fio command line, argument 4 `--ioengine=falloc`: ioengine=falloc: fio's falloc engine trims a file by punching holes (fallocate PUNCH_HOLE), as wkrun's trims on a file do; the phase runs on wkrun's psync engine, one I/O at a time as falloc does"),
        "{spec}\n{err}"
    );
    let (code, out, err) = job("randwrite");
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("error: fio command line, argument 4 `--ioengine=falloc`: ioengine=falloc: fio's falloc engine allocates a file's blocks for writes and does nothing for reads; wkrun takes it only for trim jobs (rw=trim, rw=randtrim)"),
        "{err}"
    );
    // Export of the imported spec: the trim job and what fio needs on a file.
    std::fs::write(d.join("tr.toml"), &spec).unwrap();
    let (code, jobs, err) = code_out_err(&wkrun(d, &["export", "fio", "tr.toml"]));
    assert_eq!(code, 0, "{err}");
    assert!(jobs.contains("rw=randtrim\n"), "{jobs}");
    assert!(
        err.contains("phase tr: fio trims a block device with any engine but a regular file only with ioengine=falloc (its other engines end with error 25 on a file); on a file, give this job ioengine=falloc"),
        "{err}"
    );
}

/// Hostile tester, session 18: fio's JSON held to what no fio run reports. From real runs (256 random
/// trims with falloc, 256 random writes with fdatasync=4, each on a 1 MiB file, which validate): write
/// percentiles that fall (p99 1 ns below p50; wkrun's own results refuse it), 10^12 syncs for 256 writes,
/// syncs in a job that wrote nothing, 10^19 trims of 1 MiB, and a latency written `9000000000.0` (said to
/// be "not a whole number from 0 to 18446744073709551615", which it is) are each refused by `validate`
/// and `compare`, exit 2, naming the key and fio's own numbers.
#[test]
fn fio_json_no_run_reports_is_refused() {
    let test = "fio_trimsync::fio_json_no_run_reports_is_refused";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let (_, trim) = fio_json(d.path(), &TRIM_RUN);
    std::fs::rename(d.path().join("fio.json"), d.path().join("trim.json")).expect("rename");
    let (_, sync) = fio_json(d.path(), &SYNC_RUN);
    let (c, out, e) = code_out_err(&wkrun(d.path(), &["validate", "trim.json", "fio.json"]));
    let ok = "trim.json: ok (results, 1 phase, 0 series CSVs)\nfio.json: ok (results, 1 phase, 0 series CSVs)\n";
    assert_eq!((c, out.as_str(), e.as_str()), (0, ok, ""));
    let pct = &sync["jobs"][0]["write"]["clat_ns"]["percentile"];
    let (p50, p90) = (
        pct["50.000000"].as_u64().expect("p50"),
        pct["90.000000"].as_u64().expect("p90"),
    );
    let writes = sync["jobs"][0]["write"]["total_ios"]
        .as_u64()
        .expect("writes");
    let trimmed = trim["jobs"][0]["trim"]["io_bytes"].as_u64().expect("bytes");
    let edit = |doc: &Value, at: &str, v: Value| {
        let mut doc = doc.clone();
        *doc.pointer_mut(at).unwrap_or_else(|| panic!("{at}")) = v;
        doc
    };
    let cases = [
        (
            edit(&sync, "/jobs/0/write/clat_ns/percentile/99.000000", (p50 - 1).into()),
            format!("jobs[0].write.clat_ns.percentile.p99: {} is below p90 {p90}", p50 - 1),
        ),
        (
            edit(&sync, "/jobs/0/sync/lat_ns/N", 1_000_000_000_000u64.into()),
            format!("jobs[0].sync has 1000000000000 syncs (lat_ns.N, else total_ios), more than the job's {writes} writes: a sync makes writes durable"),
        ),
        (
            edit(&trim, "/jobs/0/sync/lat_ns/N", 5.into()),
            "jobs[0].sync has 5 syncs (lat_ns.N, else total_ios), more than the job's 0 writes: a sync makes writes durable".to_string(),
        ),
        (
            edit(&trim, "/jobs/0/trim/total_ios", 10_000_000_000_000_000_000u64.into()),
            format!("jobs[0].trim.total_ios is 10000000000000000000: more I/Os than its io_bytes, {trimmed} (an I/O moves a byte at least)"),
        ),
        (
            edit(&sync, "/jobs/0/sync/lat_ns/min", 9_000_000_000.0.into()),
            "jobs[0].sync.lat_ns.min is 9000000000.0: a count written with a decimal point or exponent: fio writes counts as integers".to_string(),
        ),
    ];
    for (doc, key) in cases {
        std::fs::write(d.path().join("h.json"), doc.to_string()).expect("write");
        let want = format!("error: h.json: {key}\n");
        for args in [
            vec!["validate", "h.json"],
            vec!["compare", "h.json", "fio.json"],
        ] {
            let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (2, "", want.as_str()),
                "{args:?}"
            );
        }
    }
}
