//! Attack 23: real fio 3.33 output (fio exit 0, `"error" : 0`) that wkrun refused or misread. Syncs at depth
//! (posixaio, io_uring with a rate cap or loops, psync with loops: more syncs than writes, each run its
//! own count) held to the bound of fio's own rule (`src/fio/plausible.rs`, `syncs`); io_uring with
//! `sqthread_poll`, whose lat fio reports below its clat; the byte-less engines (exec, and the file
//! operations: filecreate, ftruncate); `--status-interval` output, one run's reports one after the other;
//! a job fio's process died in. Fixed files are real fio output (`tests/data/fio/README.md`).

use crate::common::{code_out_err, tempdir, wkrun, write_file};
use serde_json::Value;

const POSIXAIO: &str = include_str!("../data/fio/fio-3.33-posixaio-qd2-fdatasync1.json");
const RATE: &str = include_str!("../data/fio/fio-3.33-uring-rate-fsync1.json");
const LOOPS: &str = include_str!("../data/fio/fio-3.33-uring-loops3-fsync1.json");
const PSYNC_LOOPS: &str = include_str!("../data/fio/fio-3.33-psync-loops3-fsync1.json");
const SQPOLL: &str = include_str!("../data/fio/fio-3.33-uring-sqpoll.json");
const EXEC: &str = include_str!("../data/fio/fio-3.33-exec.json");
const FILECREATE: &str = include_str!("../data/fio/fio-3.33-filecreate.json");
const FTRUNCATE: &str = include_str!("../data/fio/fio-3.33-ftruncate.json");
const STATUS: &str = include_str!("../data/fio/fio-3.33-status-interval.json");
const CRASH: &str = include_str!("../data/fio/fio-3.33-trim-verify-crash.json");
const MIX: &str = include_str!("../data/fio/fio-3.33-randrw-fsync16.json");

/// fio's (first) document in `text`.
pub(crate) fn doc(text: &str) -> Value {
    let at = text.find('{').expect("a JSON object");
    let mut s = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
    s.next().expect("a document").expect("fio JSON")
}

/// A count at `at` in `v`.
pub(crate) fn u(v: &Value, at: &str) -> u64 {
    v.pointer(at)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{at}"))
}

/// `validate`'s exit code, stdout and stderr for `text` written as `name`.
pub(crate) fn validate(name: &str, text: &str) -> (i32, String, String) {
    let d = tempdir();
    write_file(d.path(), name, text);
    code_out_err(&wkrun(d.path(), &["validate", name]))
}

/// The refusal of a sync count above fio's rule's bound ([`wkrun::fio::plausible::syncs`]).
fn too_many(n: u64, depth: u64, (ios, writes): (u64, u64), loops: u64, most: u64) -> String {
    format!(
        "jobs[0].sync has {n} syncs (lat_ns.N, else total_ios), more than fio issues: iodepth {depth} × ({ios} I/Os + {writes} writes + 1 jobs × ({loops} loops + 1)) = {most} and 0 at its end (end_fsync, fsync_on_close): fio issues at most iodepth syncs after each I/O's completion, write's issue or loop's start"
    )
}

/// F1, F2: fio's real sync counts above one per write (posixaio at depth 2: 890 syncs for 512 writes;
/// io_uring at depth 8 capped at 2000 IOPS: 4000 for 2000; io_uring at depth 8, loops=3: 211 for 192;
/// psync, loops=3: 193 for 192) validate (before: refused as more than the I/Os and the depth allow); a
/// count one above the bound, iodepth × (I/Os + writes + jobs × (loops + 1)), is refused, the bound itself
/// is not.
#[test]
fn fio_sync_counts_at_depth_validate() {
    let cases = [
        ("pa.json", POSIXAIO, 2, 1, (890, 512)),
        ("rate.json", RATE, 8, 1, (4000, 2000)),
        ("loops.json", LOOPS, 8, 3, (211, 192)),
        ("ploops.json", PSYNC_LOOPS, 1, 3, (193, 192)),
    ];
    for (name, text, depth, loops, (syncs, writes)) in cases {
        let v = doc(text);
        assert_eq!(u(&v, "/jobs/0/sync/lat_ns/N"), syncs, "{name}");
        assert_eq!(u(&v, "/jobs/0/write/total_ios"), writes, "{name}");
        assert_eq!(u(&v, "/jobs/0/read/total_ios"), 0, "{name}");
        let ok = format!("{name}: ok (results, 1 phase, 0 series CSVs)\n");
        assert_eq!(validate(name, text), (0, ok.clone(), String::new()));
        // The bound from the job's own counts (the oracle): reads none, so I/Os are its writes.
        let most = depth * (writes + writes + (loops + 1));
        let mut at = v.clone();
        *at.pointer_mut("/jobs/0/sync/lat_ns/N").expect("N") = most.into();
        assert_eq!(validate(name, &at.to_string()), (0, ok, String::new()));
        *at.pointer_mut("/jobs/0/sync/lat_ns/N").expect("N") = (most + 1).into();
        let why = too_many(most + 1, depth, (writes, writes), loops, most);
        let want = format!("error: {name}: {why}\n");
        assert_eq!(validate(name, &at.to_string()), (2, String::new(), want));
    }
}

/// F3: io_uring with sqthread_poll=1, whose lat mean fio reports below its clat mean, validates with a
/// note, and `compare` says the two are not comparable; the same file without the option (fio lists no
/// option given bare, attack 24 F2) validates with the note that reads it as sqthread_poll; on libaio it is
/// refused.
#[test]
fn fio_sqthread_poll_lat_below_clat_is_noted() {
    let v = doc(SQPOLL);
    let w = &v["jobs"][0]["write"];
    let mean = |k: &str| w[k]["mean"].as_f64().expect("mean");
    assert_eq!(
        (mean("lat_ns"), mean("clat_ns")),
        (38196503.830078, 566673033.861328)
    );
    let poll = wkrun::fio::plausible::SQ_POLL;
    let (code, out, err) = validate("sq.json", SQPOLL);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "sq.json: ok (results, 1 phase, 0 series CSVs)\n");
    assert_eq!(err, format!("note: sq.json: job \"x\": {poll}\n"));
    let d = tempdir();
    write_file(d.path(), "sq.json", SQPOLL);
    write_file(d.path(), "mix.json", MIX);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "mix.json", "sq.json"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("; phase x: {poll}")), "{out}");
    let mut unpolled = v.clone();
    let opts = unpolled["jobs"][0]["job options"]
        .as_object_mut()
        .expect("options");
    assert!(opts.remove("sqthread_poll").is_some());
    let seen = wkrun::fio::plausible::SQ_POLL_SEEN;
    assert_eq!(
        validate("sq.json", &unpolled.to_string()),
        (
            0,
            "sq.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
            format!("note: sq.json: job \"x\": {seen}\n")
        )
    );
    unpolled["jobs"][0]["job options"]["ioengine"] = "libaio".into();
    let want = "error: sq.json: jobs[0].write.lat_ns.mean is 38196503.830078: below clat_ns.mean, 566673033.861328: an I/O's total latency (lat) is its submission's and its completion's (clat) together\n";
    assert_eq!(
        validate("sq.json", &unpolled.to_string()),
        (2, String::new(), want.to_string())
    );
}

/// F4: fio's exec engine and its file-operation engines move no data byte (filecreate: 50 "writes" of
/// 204800 bytes, its files; ftruncate: 64 of 262144): `validate` notes it, `compare` leaves them out
/// (before: exec refused, filecreate compared at 50000 IOPS and 204.80 MB/s).
#[test]
fn fio_byteless_engines_are_no_storage_io() {
    let cases = [
        (
            "exec.json",
            EXEC,
            "exec",
            "fio's exec engine does no storage I/O (it runs a program): the 9 reads of 0 bytes fio counted are its program's turns, none here",
        ),
        (
            "fc.json",
            FILECREATE,
            "filecreate",
            "fio's filecreate engine does no storage I/O (file operations: it creates files): the 50 writes of 204800 bytes fio counted are its file operations, none here",
        ),
        (
            "ft.json",
            FTRUNCATE,
            "ft",
            "fio's ftruncate engine does no storage I/O (file operations: it truncates its file): the 64 writes of 262144 bytes fio counted are its file operations, none here",
        ),
    ];
    let d = tempdir();
    write_file(d.path(), "mix.json", MIX);
    for (name, text, job, why) in cases {
        let (code, out, err) = validate(name, text);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out,
            format!("{name}: ok (results, 1 phase, 0 series CSVs)\n")
        );
        assert_eq!(err, format!("note: {name}: job \"{job}\": {why}\n"));
        write_file(d.path(), name, text);
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", name, "mix.json"]));
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        assert_eq!(
            err,
            format!("error: {name}: nothing to compare: job \"{job}\": {why}\n")
        );
    }
}

/// F5: `--status-interval=1` output (4 reports of one 3 s run) is read as its final report, with a note
/// (before: refused as a second document); the final report joined by a forged later run's is refused.
#[test]
fn fio_status_interval_output_reads_the_final_report() {
    let docs: Vec<Value> = serde_json::Deserializer::from_str(STATUS)
        .into_iter::<Value>()
        .map(|d| d.expect("a report"))
        .collect();
    let ios: Vec<u64> = (docs.iter())
        .map(|d| u(d, "/jobs/0/read/total_ios"))
        .collect();
    assert_eq!(ios, [2365, 8174, 13810, 14364]);
    let note = "status-interval output: read the final report (document 4 of 4)";
    let (code, out, err) = validate("si.json", STATUS);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "si.json: ok (results, 1 phase, 0 series CSVs)\n");
    assert_eq!(err, format!("note: si.json: {note}\n"));
    let d = tempdir();
    write_file(d.path(), "si.json", STATUS);
    let r = wkrun::report::read_results(&d.path().join("si.json")).expect("reads fio's JSON");
    assert_eq!(r.phases[0].read.ops, 14364);
    assert!(r.phases[0].warnings.iter().any(|w| w == note));
    // Another run's report after the final one: its job started 10 s later.
    let last = docs.last().expect("final");
    let mut later = last.clone();
    for k in ["timestamp", "timestamp_ms"] {
        let t = u(&later, &format!("/{k}"));
        later[k] = (t + if k == "timestamp" { 10 } else { 10_000 }).into();
    }
    let first = serde_json::to_string_pretty(last).expect("json");
    let two = format!(
        "{first}\n{}\n",
        serde_json::to_string_pretty(&later).expect("json")
    );
    let n = first.lines().count();
    let want = format!(
        "error: two.json: line {} starts a second JSON document after fio's (which ends at line {n}): one fio run's output per file: split it\n",
        n + 1
    );
    assert_eq!(validate("two.json", &two), (2, String::new(), want));
}

/// F6: a job fio's process died in (fio 3.33 asserts with verify=crc32c, trim_percentage=50,
/// trim_backlog=8: `fio: pid=21001, got signal=6` before its JSON, which says error 0) is refused naming
/// that line (before: "jobs[0].write.total_ios is 8: more I/Os than its io_bytes, 0").
#[test]
fn fio_crash_line_is_named() {
    assert_eq!(CRASH.lines().next(), Some("fio: pid=21001, got signal=6"));
    assert_eq!(u(&doc(CRASH), "/jobs/0/error"), 0);
    let want = "error: crash.json: line 1: \"fio: pid=21001, got signal=6\": a fio process died of a signal there (its JSON still says error 0): its figures are not a finished run's\n";
    assert_eq!(
        validate("crash.json", CRASH),
        (2, String::new(), want.to_string())
    );
}
