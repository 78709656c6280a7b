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
    let ts = u(last, "/timestamp_ms");
    assert_eq!(
        (
            ts,
            u(last, "/jobs/0/elapsed"),
            u(last, "/jobs/0/read/runtime")
        ),
        (1796595333978, 4, 3002)
    );
    let want = format!(
        "error: two.json: line {} starts a second JSON document after fio's (which ends at line {n}), not a later report of the same fio run: document 2's elapsed, 4 s, puts fio's start at {} ms (as timestamp_ms) or later, but document 1's jobs[0] had run 3002 ms at its timestamp_ms, so fio started at {} or before: not one start of fio: one fio run's output per file: split it\n",
        n + 1,
        ts + 10_000 - 4000,
        ts - 3002
    );
    assert_eq!(validate("two.json", &two), (2, String::new(), want));
}

/// fioodd24 F1: real `--status-interval` output of fio 3.33 (file, documents, the last document's I/Os of
/// its first job) that validates as its final report: a 9 s run at `--status-interval=2` (io_uring,
/// depth 16), two jobs at once (libaio depth 4 randrw, and a rate-capped read), `ramp_time=2` (whose
/// ramp's I/Os fio drops: 21888 read I/Os, then 15113; before: refused), a stonewalled second job
/// (`job_runtime` 2038, then 604 once it ran; before: refused), numjobs=2 with group_reporting, fsync=8 and
/// ramp_time=1 (syncs 698, then 610; before: refused).
#[test]
fn real_status_interval_runs_validate() {
    let cases = [
        (
            "long.json",
            include_str!("../data/fio/fio-3.33-status-interval-long.json"),
            5,
            "read",
            340983,
        ),
        (
            "two-jobs.json",
            include_str!("../data/fio/fio-3.33-status-interval-two-jobs.json"),
            5,
            "write",
            24787,
        ),
        (
            "ramp.json",
            include_str!("../data/fio/fio-3.33-status-interval-ramp.json"),
            5,
            "read",
            29907,
        ),
        (
            "stonewall.json",
            include_str!("../data/fio/fio-3.33-status-interval-stonewall.json"),
            5,
            "write",
            128,
        ),
        (
            "group.json",
            include_str!("../data/fio/fio-3.33-status-interval-group-ramp.json"),
            4,
            "write",
            9904,
        ),
    ];
    for (name, text, k, d, ios) in cases {
        let docs: Vec<Value> = serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .map(|d| d.expect("a report"))
            .collect();
        assert_eq!(docs.len(), k, "{name}");
        let last = docs.last().expect("final");
        assert_eq!(u(last, &format!("/jobs/0/{d}/total_ios")), ios, "{name}");
        let (code, out, err) = validate(name, text);
        assert_eq!(code, 0, "{name}: {err}");
        let phases = if name == "two-jobs.json" || name == "stonewall.json" {
            2
        } else {
            1
        };
        let s = if phases == 1 { "" } else { "s" };
        assert_eq!(
            out,
            format!("{name}: ok (results, {phases} phase{s}, 0 series CSVs)\n")
        );
        // The group of numjobs=2 sums two jobs (fioodd24 F2): its depths are not held to its options.
        let depths = match name {
            "group.json" => format!(
                "note: {name}: job \"rg\": {}\n",
                wkrun::fio::plausible::DEPTHS_UNKNOWN
            ),
            _ => String::new(),
        };
        assert_eq!(
            err,
            format!(
                "note: {name}: status-interval output: read the final report (document {k} of {k})\n{depths}"
            )
        );
    }
}

/// fioodd24 F1: two or three real fio 3.33 runs under a second each, their JSON written one after the
/// other into one file, are refused naming the document and the field no later report of one run has
/// (before: read as status-interval output, "document 2 of 2"): the same 2 MiB job twice (512 reads each,
/// latencies that differ with no I/O between), a 0.5 s time-based job twice (a max that fell), a 0.2 s one
/// three times (a job_runtime that fell).
#[test]
fn several_short_fio_runs_in_one_file_are_refused() {
    let lines = [269, 269, 269];
    let cases = [
        (
            "size.json",
            include_str!("../data/fio/fio-3.33-two-runs-size.json"),
            "jobs[0].read.lat_ns.min is 35118, not document 1's 39262 though N is the same, 512 (no I/O completed between them)",
        ),
        (
            "tb.json",
            include_str!("../data/fio/fio-3.33-two-runs-time-based.json"),
            "jobs[0].read.lat_ns.max is 4079392, below document 1's 8821389",
        ),
        (
            "tb3.json",
            include_str!("../data/fio/fio-3.33-three-runs-time-based.json"),
            "jobs[0].job_runtime is 200, below document 1's 209",
        ),
    ];
    for ((name, text, why), n) in cases.into_iter().zip(lines) {
        let want = format!(
            "error: {name}: line {} starts a second JSON document after fio's (which ends at line {n}), not a later report of the same fio run: document 2's {why} (a later report of one fio run only adds to its figures): one fio run's output per file: split it\n",
            n + 1
        );
        assert_eq!(validate(name, text), (2, String::new(), want));
    }
}

/// F6: a job fio's process died in (fio 3.33 asserts with verify=crc32c, trim_percentage=50,
/// trim_backlog=8: `fio: pid=21001, got signal=6` before its JSON, which says error 0) is refused naming
/// that line first (before: "jobs[0].write.total_ios is 8: more I/Os than its io_bytes, 0"), then what the
/// figures' checks find, each on its own line (fioodd24 F3, before: the crash line alone), a figure forged
/// into it too (read's bw_bytes 409600 for 0 bytes in 0 ms); `compare` names the crash line alone.
#[test]
fn fio_crash_line_is_named_first_and_the_figures_after_it() {
    assert_eq!(CRASH.lines().next(), Some("fio: pid=21001, got signal=6"));
    let real = doc(CRASH);
    assert_eq!(u(&real, "/jobs/0/error"), 0);
    assert_eq!(
        ["total_ios", "io_bytes"].map(|k| u(&real, &format!("/jobs/0/write/{k}"))),
        [8, 0]
    );
    let crash = "line 1: \"fio: pid=21001, got signal=6\": a fio process died of a signal there (its JSON still says error 0): its figures are not a finished run's";
    let ios = "jobs[0].write.total_ios is 8: more I/Os than its io_bytes, 0 (an I/O moves a byte at least)";
    let size = "jobs[0].write.io_bytes is 0: 0.000 B for each of its 8 I/Os (total_ios), where the job's block sizes are 4096 B";
    let lines = |name: &str, found: &[&str]| -> String {
        found
            .iter()
            .map(|f| format!("error: {name}: {f}\n"))
            .collect()
    };
    assert_eq!(
        validate("crash.json", CRASH),
        (2, String::new(), lines("crash.json", &[crash, ios, size]))
    );
    let read = CRASH.find("\"read\"").expect("a read block");
    let at = read
        + CRASH[read..]
            .find("\"bw_bytes\" : 0,")
            .expect("its bw_bytes");
    let forged = format!(
        "{}\"bw_bytes\" : 409600,{}",
        &CRASH[..at],
        &CRASH[at + "\"bw_bytes\" : 0,".len()..]
    );
    let bw = "jobs[0].read.bw_bytes is 409600: fio's bw_bytes is io_bytes × 1000 / runtime, 0 × 1000 / 0 ms = 0.000000";
    assert_eq!(
        validate("forged.json", &forged),
        (2, String::new(), lines("forged.json", &[crash, ios, bw]))
    );
    let d = tempdir();
    write_file(d.path(), "forged.json", &forged);
    let why = wkrun::report::read_results(&d.path().join("forged.json")).expect_err("a crash");
    assert_eq!(
        why.to_string(),
        format!("{}: {crash}", d.path().join("forged.json").display())
    );
}

/// fioodd24 F2: a group_reporting entry of two jobs at iodepth 16 and 1 (io_uring, fsync=1,
/// rate_iops=2000, 1 s; fio 3.33 names the entry after the first job and gives the last job's options,
/// iodepth 1) made 10400 syncs for 3428 writes, more than iodepth 1 allows (before: refused, bound 6858);
/// its job_runtime (2000 ms, the jobs' added) beside its write runtime (1001 ms) says it sums jobs, whose
/// depths are unknown: it validates with a note, and syncs without a write are still refused.
#[test]
fn a_group_of_jobs_at_different_depths_validates_with_a_note() {
    let text = include_str!("../data/fio/fio-3.33-group-uring-depths-16-1.json");
    let d = doc(text);
    assert_eq!(
        [
            "/jobs/0/sync/lat_ns/N",
            "/jobs/0/write/total_ios",
            "/jobs/0/job_runtime",
            "/jobs/0/write/runtime"
        ]
        .map(|k| u(&d, k)),
        [10400, 3428, 2000, 1001]
    );
    assert_eq!(d["jobs"][0]["job options"]["iodepth"], "1");
    let note = wkrun::fio::plausible::DEPTHS_UNKNOWN;
    // fiogroup28: more jobs than the listed numjobs (1), so an unlike group too.
    let unlike = crate::fio_groups::unlike_group(
        "its job_runtime, 2000 ms, sums its jobs' (more than its longest direction's runtime, 1001 ms), and it holds more jobs than the numjobs=1 of the options fio lists with it (at least 2: its job_runtime over that runtime), so those options are one job's, and the others' (their rate cap, depth or think time, which no figure shows) are not given",
    );
    assert_eq!(
        validate("group.json", text),
        (
            0,
            "group.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
            format!("note: group.json: job \"a\": {note}\nnote: group.json: job \"a\": {unlike}\n")
        )
    );
    let mut none = d.clone();
    for k in ["total_ios", "io_bytes", "io_kbytes", "bw_bytes", "bw"] {
        none["jobs"][0]["write"][k] = 0.into();
    }
    none["jobs"][0]["write"]["iops"] = 0.0.into();
    for l in ["lat_ns", "clat_ns", "slat_ns"] {
        none["jobs"][0]["write"][l] =
            serde_json::json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0});
    }
    let (code, _, err) = validate(
        "none.json",
        &serde_json::to_string_pretty(&none).expect("json"),
    );
    assert_eq!(code, 2);
    assert_eq!(
        err.lines().next(),
        Some(
            "error: none.json: jobs[0].sync has 10400 syncs (lat_ns.N, else total_ios) and the job no write: fio syncs after writes"
        )
    );
}
