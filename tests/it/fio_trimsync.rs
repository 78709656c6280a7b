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
pub fn fio_json(dir: &Path, args: &[&str]) -> (String, Value) {
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
    // The only warning naming trims says that their clat is their whole time (falloc: slat_ns.N 0).
    let trims: Vec<&String> = p.warnings.iter().filter(|w| w.contains("trims")).collect();
    assert_eq!(
        trims,
        [
            "latency percentiles are fio's completion latency (clat) of I/Os it times in one piece (slat_ns.N is 0: trims, and I/Os on fio's sync engines), which is their whole time, as wkrun's; min, mean and max are its total latency (lat), the same time and under a µs of fio's bookkeeping"
        ],
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
        // fio's falloc keeps one trim in flight at iodepth=8 (attack 25 F4): queue depth 1 beside 8.
        (
            Some("queue_depth=1 engine=falloc".into()),
            Some("queue_depth=8 engine=libaio".into())
        ),
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
    // Export of the imported spec (attack 19 F4): its target, t.img, is a file, so the trim job is fio's
    // falloc engine's again, which fio runs: 256 trims of 4 KiB, the phase's 1 MiB.
    std::fs::write(d.join("tr.toml"), &spec).unwrap();
    let (code, jobs, err) = code_out_err(&wkrun(d, &["export", "fio", "tr.toml"]));
    assert_eq!(code, 0, "{err}");
    assert!(jobs.contains("\nioengine=falloc\n"), "{jobs}");
    assert!(jobs.contains("\nrw=randtrim\n"), "{jobs}");
    assert!(!err.contains("falloc"), "{err}");
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(
            "fio_trimsync::a_falloc_trim_job_imports_and_an_exported_trim_job_says_its_engine (fio's run)",
            &why,
        );
    }
    std::fs::write(d.join("t.img"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(d.join("tr.fio"), &jobs).unwrap();
    let (_, ran) = fio_json(d, &["tr.fio"]);
    let job = &ran["jobs"][0];
    assert_eq!(
        (job["error"].as_i64(), job["trim"]["total_ios"].as_u64()),
        (Some(0), Some(256)),
        "{jobs}"
    );
}

/// Attack 19 F4, the other targets: a trim phase exported for a block device keeps its engine (fio trims a
/// device with any), and one for a device and a file together says which copies need falloc; a trim phase
/// on the null engine stays null (falloc would trim for real).
#[test]
fn export_fio_picks_falloc_only_for_files() {
    let t = tempdir();
    let d = t.path();
    let spec = |target: &str, engine: &str| {
        format!(
            "format = 1\n[spec]\nname = \"s\"\nversion = \"1\"\n[target]\n{target}\n[[phase]]\nname = \"tr\"\nkind = \"workload\"\nengine = \"{engine}\"\nqueue_depth = 8\nread_percent = 0\ntrim_percent = 100\nduration = \"1s\"\n"
        )
    };
    let cases = [
        (
            "path = \"t.img\"\nsize = \"1MiB\"",
            "io_uring",
            "falloc",
            Some(
                "phase tr: fio trims a file only with ioengine=falloc, one trim at a time a job: exported with ioengine=falloc and iodepth=1 for the phase's io_uring at queue depth 8",
            ),
        ),
        ("path = \"/dev/nosuch0\"", "io_uring", "io_uring", None),
        (
            "paths = [\"/dev/nosuch0\", \"t.img\"]",
            "libaio",
            "libaio",
            Some(
                "phase tr: fio trims a block device with any engine but a regular file only with ioengine=falloc (its other engines end with error 25 on a file); this job file has both, so the files' copies of this job need ioengine=falloc",
            ),
        ),
        ("path = \"t.img\"\nsize = \"1MiB\"", "null", "null", None),
    ];
    for (target, engine, want, differs) in cases {
        std::fs::write(d.join("s.toml"), spec(target, engine)).unwrap();
        let (code, jobs, err) = code_out_err(&wkrun(d, &["export", "fio", "s.toml"]));
        assert_eq!(code, 0, "{err}");
        assert!(
            jobs.contains(&format!("\nioengine={want}\n")),
            "{target} {engine}: {jobs}"
        );
        let depth = if want == "falloc" { 1 } else { 8 };
        assert!(jobs.contains(&format!("\niodepth={depth}\n")), "{jobs}");
        let said: Vec<&str> = jobs
            .lines()
            .filter(|l| l.contains("falloc") && l.starts_with("; differs:"))
            .collect();
        assert_eq!(
            said,
            differs
                .map(|t| format!("; differs: {t}"))
                .as_slice()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            "{jobs}"
        );
    }
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
            // Depth 1, one job, one loop: 1 × (writes + writes + 1 × 2) syncs at most.
            format!("jobs[0].sync has 1000000000000 syncs (lat_ns.N, else total_ios), more than fio issues: iodepth 1 × ({writes} I/Os + {writes} writes + 1 jobs × (1 loops + 1)) = {} and 0 at its end (end_fsync, fsync_on_close): fio issues at most iodepth syncs after each I/O's completion, write's issue or loop's start", 2 * writes + 2),
        ),
        (
            edit(&trim, "/jobs/0/sync/lat_ns/N", 5.into()),
            "jobs[0].sync has 5 syncs (lat_ns.N, else total_ios) and the job no write: fio syncs after writes".to_string(),
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
    // validate lists each job's findings (fioodd24 F3): trims forged to 10^19 I/Os also break fio's iops
    // arithmetic (total_ios × 1000 / runtime); compare names the first.
    let (iops, ms) = (
        trim["jobs"][0]["trim"]["iops"].as_f64().expect("iops"),
        trim["jobs"][0]["trim"]["runtime"]
            .as_u64()
            .expect("runtime"),
    );
    let also = format!(
        "jobs[0].trim.iops is {iops}: fio's iops is total_ios × 1000 / runtime, 10000000000000000000 × 1000 / {ms} ms = {:.6}",
        1e19 * 1000.0 / ms as f64
    );
    let cases = cases.into_iter().chain(implausible(&trim, &sync));
    for (doc, key) in cases {
        std::fs::write(d.path().join("h.json"), doc.to_string()).expect("write");
        let want = format!("error: h.json: {key}\n");
        let listed = match key.starts_with("jobs[0].trim.total_ios is 10000000000000000000") {
            true => format!("{want}error: h.json: {also}\n"),
            false => want.clone(),
        };
        for (args, want) in [
            (vec!["validate", "h.json"], &listed),
            (vec!["compare", "h.json", "fio.json"], &want),
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

/// Attack 19 F3: figures fio's own arithmetic rules out, each edited into a real fio run's report (`trim`,
/// `sync`) with the message its refusal gives, the expected rate recomputed here from the report's counts:
/// fio's iops and bw_bytes are total_ios and io_bytes × 1000 / runtime (bw_bytes an integer division),
/// a latency mean lies between its min and max, a percentile within a histogram bucket (1/64) of them,
/// the total latency (lat) of an I/O is at least its completion latency (clat), bytes come in I/Os, a
/// sync block has its latency and no more fsync calls than syncs timed.
fn implausible(trim: &Value, sync: &Value) -> Vec<(Value, String)> {
    let edit = |doc: &Value, at: &str, v: Value| {
        let mut doc = doc.clone();
        *doc.pointer_mut(at).unwrap_or_else(|| panic!("{at}")) = v;
        doc
    };
    let t = &trim["jobs"][0]["trim"];
    let u = |v: &Value| v.as_u64().expect("a count");
    let (ios, bytes, rt) = (u(&t["total_ios"]), u(&t["io_bytes"]), u(&t["runtime"]));
    let iops = t["iops"].as_f64().expect("iops") * 10.0;
    let bw = u(&t["bw_bytes"]) * 10;
    let clat = &t["clat_ns"];
    let (cmin, cmax) = (u(&clat["min"]), u(&clat["max"]));
    let s = &sync["jobs"][0]["sync"]["lat_ns"];
    let (smin, smax, synced) = (u(&s["min"]), u(&s["max"]), u(&s["N"]));
    let w = &sync["jobs"][0]["write"];
    let (wios, wiops) = (u(&w["total_ios"]), w["iops"].as_f64().expect("iops"));
    let jr = u(&trim["jobs"][0]["job_runtime"]);
    let cmean = clat["mean"].as_f64().expect("mean");
    let cn = u(&clat["N"]);
    let kib = u(&t["bw"]) * 10;
    let most = (cmax - cmin) as f64 / 2.0 * (cn as f64 / (cn - 1) as f64).sqrt();
    let mut no_lat = sync.clone();
    no_lat["jobs"][0]["sync"]
        .as_object_mut()
        .expect("sync")
        .remove("lat_ns");
    vec![
        (
            edit(trim, "/jobs/0/trim/iops", iops.into()),
            format!("jobs[0].trim.iops is {iops}: fio's iops is total_ios × 1000 / runtime, {ios} × 1000 / {rt} ms = {:.6}", ios as f64 * 1000.0 / rt as f64),
        ),
        (
            edit(trim, "/jobs/0/trim/bw_bytes", bw.into()),
            format!("jobs[0].trim.bw_bytes is {bw}: fio's bw_bytes is io_bytes × 1000 / runtime, {bytes} × 1000 / {rt} ms = {:.6}", bytes as f64 * 1000.0 / rt as f64),
        ),
        (
            edit(trim, "/jobs/0/trim/clat_ns/mean", 1e12.into()),
            format!("jobs[0].trim.clat_ns.mean is 1000000000000: outside its min and max, {cmin} to {cmax} ns"),
        ),
        (
            edit(trim, "/jobs/0/trim/lat_ns/max", (cmax - 1).into()),
            format!("jobs[0].trim.lat_ns.max is {}: below clat_ns.max, {cmax}: an I/O's total latency (lat) is its submission's and its completion's (clat) together", cmax - 1),
        ),
        (
            edit(trim, "/jobs/0/trim/total_ios", 0.into()),
            format!("jobs[0].trim.total_ios is 0 beside io_bytes {bytes}: bytes move in I/Os"),
        ),
        (
            edit(sync, "/jobs/0/write/runtime", 0.into()),
            format!("jobs[0].write.iops is {wiops}: fio's iops is total_ios × 1000 / runtime, {wios} × 1000 / 0 ms = 0.000000"),
        ),
        (
            edit(sync, "/jobs/0/sync/lat_ns/percentile/99.990000", (smax * 2000).into()),
            format!("jobs[0].sync.lat_ns.percentile.\"99.990000\" is {}: outside its min and max, {smin} to {smax} ns, by more than fio's bucket (1/64)", smax * 2000),
        ),
        (
            edit(sync, "/jobs/0/sync/total_ios", (synced + 1).into()),
            format!("jobs[0].sync.total_ios is {}: more than the {synced} syncs fio timed (lat_ns.N), which include its fsync calls", synced + 1),
        ),
        (
            no_lat,
            "jobs[0].sync has no lat_ns: fio's sync block always has one (its count, N, is the syncs it timed)".to_string(),
        ),
        // Attack 20: a direction's runtime past its job's, lat below clat on average, lat and clat timing
        // different I/Os, a bw (KiB/s) that is not bw_bytes / 1024, a spread wider than the range allows.
        (
            edit(trim, "/jobs/0/trim/runtime", (rt * 100).into()),
            format!("jobs[0].trim.runtime is {} ms: longer than its job's job_runtime, {jr} ms", rt * 100),
        ),
        (
            edit(trim, "/jobs/0/trim/lat_ns/mean", (cmean - 1.0).into()),
            format!("jobs[0].trim.lat_ns.mean is {}: below clat_ns.mean, {cmean}: an I/O's total latency (lat) is its submission's and its completion's (clat) together", cmean - 1.0),
        ),
        (
            edit(trim, "/jobs/0/trim/lat_ns/N", (cn - 1).into()),
            format!("jobs[0].trim.lat_ns.N is {}: not clat_ns.N, {cn}: fio times each I/O's total and completion latency together", cn - 1),
        ),
        (
            edit(trim, "/jobs/0/trim/bw", kib.into()),
            format!("jobs[0].trim.bw is {kib}: fio's bw is bw_bytes / 1024 = {:.3} (KiB/s)", u(&t["bw_bytes"]) as f64 / 1024.0),
        ),
        (
            edit(trim, "/jobs/0/trim/clat_ns/stddev", 1e12.into()),
            format!("jobs[0].trim.clat_ns.stddev is 1000000000000: more than its {cn} latencies from {cmin} to {cmax} ns can spread, {most:.3}"),
        ),
    ]
}

/// Trial 20 F1: fio times (and counts in io_bytes) the I/Os in flight when its ramp_time ends, which its
/// total_ios leaves out, so a real libaio job at iodepth 16 with ramp_time has lat_ns.N above total_ios:
/// its report is read, not refused as impossible.
#[test]
fn a_fio_ramp_at_depth_is_read() {
    let test = "fio_trimsync::a_fio_ramp_at_depth_is_read";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let args = [
        "--name=rr",
        "--filename=f",
        "--size=16m",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=libaio",
        "--iodepth=16",
        "--direct=1",
        "--time_based",
        "--runtime=1",
        "--ramp_time=1",
    ];
    let (_, doc) = fio_json(d.path(), &args);
    let r = &doc["jobs"][0]["read"];
    let (n, ios) = (r["lat_ns"]["N"].as_u64(), r["total_ios"].as_u64());
    assert!(n >= ios, "{n:?} {ios:?}");
    let (c, out, e) = code_out_err(&wkrun(d.path(), &["validate", "fio.json"]));
    let ok = "fio.json: ok (results, 1 phase, 0 series CSVs)\n";
    assert_eq!(
        (c, out.as_str(), e.as_str()),
        (0, ok, ""),
        "N {n:?}, total_ios {ios:?}"
    );
}

/// Trial 19 F4: a job fio counted I/Os of but timed none (`lat_ns.N` 0, as for a size-bound job that
/// inherits ramp_time) has no latency rather than a latency of 0 µs, and its warning says why (not the
/// percentile_list one).
#[test]
fn a_fio_job_with_no_timed_io_has_no_latency() {
    let test = "fio_trimsync::a_fio_job_with_no_timed_io_has_no_latency";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let (_, mut sync) = fio_json(d.path(), &SYNC_RUN);
    let writes = sync["jobs"][0]["write"]["total_ios"]
        .as_u64()
        .expect("writes");
    for b in ["lat_ns", "clat_ns"] {
        let o = sync["jobs"][0]["write"][b].as_object_mut().expect(b);
        for k in ["N", "min", "max"] {
            o.insert(k.into(), 0.into());
        }
        o.insert("mean".into(), 0.0.into());
        o.insert("stddev".into(), 0.0.into());
        if let Some(p) = o.get_mut("percentile").and_then(Value::as_object_mut) {
            p.values_mut().for_each(|v| *v = 0.into());
        }
    }
    std::fs::write(d.path().join("u.json"), sync.to_string()).expect("write");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["warnings", "u.json"]));
    assert_eq!(code, 0, "{err}");
    let want = format!(
        "fio timed none of this job's {writes} writes (lat_ns.N is 0: fio records no latency during its ramp_time, or with disable_lat or gtod_reduce): their latency is absent, not 0"
    );
    assert!(out.contains(&want), "{out}");
    assert!(!out.contains("percentile_list"), "{out}");
    let (code, out, err) =
        code_out_err(&wkrun(d.path(), &["compare", "u.json", "--format", "csv"]));
    assert_eq!(code, 0, "{err}");
    // The phase's latency is `-` (not 0.00), and no write latency row is shown.
    assert!(
        out.contains("\nfds,\"latency, phase mean (µs)\",-\n"),
        "{out}"
    );
    assert!(!out.contains("write latency"), "{out}");
}

/// Attack 19 (minor): a falloc trim job on a device is noted as the kernel's zero-out, not a discard; a
/// `verify=` on a job that writes nothing is noted, not dropped without a word.
#[test]
fn import_notes_falloc_on_a_device_and_a_verify_of_no_writes() {
    let t = tempdir();
    let args = [
        "import",
        "fio",
        "--",
        "--name=t",
        "--rw=randtrim",
        "--bs=4k",
        "--ioengine=falloc",
        "--filename=/dev/nosuch0",
        "--size=1m",
        "--verify=md5",
    ];
    let (code, spec, err) = code_out_err(&wkrun(t.path(), &args));
    assert_eq!(code, 0, "{err}");
    for note in [
        "note: fio command line, argument 4 `--ioengine=falloc`: ioengine=falloc: on a block device fio's falloc engine's fallocate(PUNCH_HOLE) makes the kernel zero the range (WRITE ZEROES), not discard it; wkrun's trims on a block device are discards (BLKDISCARD), so this phase measures discards, on wkrun's psync engine one at a time",
        "note: fio command line, argument 7 `--verify=md5`: verify=md5: this job writes nothing, and wkrun verifies only what a phase wrote (its own sector stamps, read back after it): no verify phase",
    ] {
        assert_eq!(err.lines().filter(|l| *l == note).count(), 1, "{err}");
    }
    assert!(!spec.contains("kind = \"verify\""), "{spec}");
}

/// Trial 26 L4: a libaio randtrim job on a regular file imports (wkrun trims a file by punching holes) with
/// a note that fio itself ends such a job with error 25, which the real fio does; on a path under `/dev`
/// (fio trims a device with any engine) and with falloc there is no such note.
#[test]
fn a_trim_job_fio_fails_on_a_file_is_noted() {
    let t = tempdir();
    let d = t.path();
    let import = |file: &str, engine: &str| {
        let args = [
            "import",
            "fio",
            "--",
            "--name=tr",
            &format!("--filename={file}"),
            "--size=1m",
            &format!("--ioengine={engine}"),
            "--rw=randtrim",
            "--bs=4k",
        ];
        let (code, spec, err) = code_out_err(&wkrun(d, &args));
        assert_eq!(code, 0, "{err}");
        spec
    };
    let note = "# note: fio command line, argument 4 `--ioengine=libaio`: ioengine=libaio: fio trims a regular file only with ioengine=falloc: with libaio, fio ends this job on a file with error 25 (Inappropriate ioctl for device), while wkrun's trims on a file punch holes; to run it side by side with fio on a file, give fio ioengine=falloc\n";
    let spec = import("t.img", "libaio");
    assert!(spec.contains(note), "{spec}");
    assert_eq!(spec.matches("error 25").count(), 1, "{spec}");
    for (file, engine) in [("/dev/nosuch0", "libaio"), ("t.img", "falloc")] {
        let spec = import(file, engine);
        assert!(!spec.contains("error 25"), "{file} {engine}:\n{spec}");
    }
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(
            "fio_trimsync::a_trim_job_fio_fails_on_a_file_is_noted (fio's run)",
            &why,
        );
    }
    std::fs::write(d.join("t.img"), vec![0u8; 1 << 20]).unwrap();
    let o = std::process::Command::new("fio")
        .args([
            "--name=tr",
            "--filename=t.img",
            "--size=1m",
            "--ioengine=libaio",
        ])
        .args(["--rw=randtrim", "--bs=4k", "--output-format=json"])
        .current_dir(d)
        .output()
        .expect("fio");
    let text = String::from_utf8_lossy(&o.stdout);
    let v: Value =
        serde_json::from_str(&text[text.find('{').expect("JSON")..]).expect("fio's JSON");
    assert_eq!(v["jobs"][0]["error"].as_i64(), Some(25), "{v}");
}
