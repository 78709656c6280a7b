//! Group 25: fio's `group_reporting` of unlike jobs, and numjobs clones without it. fio 3.33 writes a group
//! under its first job's name with its LAST job's options: given on the command line to a 64k randread job
//! on libaio at iodepth 32 and a 4k randwrite job on psync, the one entry read as "4096 B blocks · 0 %
//! reads · engine psync" beside 24479 read IOPS, with no word. Such an entry's block size, depth, engine
//! and mix are unknown, and validate, compare and report say why; so are a group of identical jobs' (fio's
//! JSON cannot tell them from jobs of one name whose caps or depths differ, attack 27 F6), while a numjobs
//! group keeps its options, and so does each of a job's numjobs clones (each its own report). The files are real fio 3.33
//! output (`tests/data/fio/README.md`); each case is also run on the real fio, skipped (said) without it.

use crate::common::{code_out_err, tempdir, wkrun, write_file};
use crate::fio_odd::{doc, u, validate};
use crate::fio_trial::{run_fio, with_fio};
use serde_json::Value;
use wkrun::plan::PhaseParams;
use wkrun::results::Results;
use wkrun::vocab::EngineKind;

const UNLIKE: &str = include_str!("../data/fio/fio-3.33-group-cmdline-unlike.json");
const ALIKE: &str = include_str!("../data/fio/fio-3.33-group-cmdline-alike.json");
const CLONES: &str = include_str!("../data/fio/fio-3.33-numjobs2-libaio-qd8.json");

/// The unlike group's two jobs, as the attack ran them (each after its `--name`, the file's `--filename`).
const JOB_A: [&str; 8] = [
    "--size=64m",
    "--rw=randread",
    "--bs=64k",
    "--ioengine=libaio",
    "--iodepth=32",
    "--direct=1",
    "--runtime=2",
    "--time_based",
];
const JOB_B: [&str; 7] = [
    "--size=64m",
    "--rw=randwrite",
    "--bs=4k",
    "--ioengine=psync",
    "--direct=1",
    "--runtime=2",
    "--time_based",
];

/// One libaio randread job at iodepth 8 for 1 s (the alike group's jobs, and the clones' job).
const QD8: [&str; 7] = [
    "--size=64m",
    "--rw=randread",
    "--bs=4k",
    "--ioengine=libaio",
    "--iodepth=8",
    "--direct=1",
    "--runtime=1",
];

/// The warning of fio's entry of a group of at least 2 unlike jobs, which `why` shows.
pub(crate) fn unlike_group(why: &str) -> String {
    unlike_group_of(2, why)
}

/// The warning of fio's entry of a group of at least `jobs` unlike jobs, which `why` shows.
pub(crate) fn unlike_group_of(jobs: u64, why: &str) -> String {
    format!(
        "fio's report is a group of at least {jobs} jobs whose options may differ (group_reporting: fio writes a group under its first job's name with its last job's options, and lists no other job's): {why}; so its span, block sizes, queue depth, engine, read and trim shares, pattern, distribution, rate cap, think time, O_SYNC writes, syncs every N writes, seed, workers and direct I/O are unknown (params.span_start_bytes and span_bytes 0; block_size_bytes, block_size_mix, queue_depth, engine, read_percent, trim_percent, pattern, distribution, rate_iops, think_time_ns, think_every, sync, fsync, fdatasync, seed, workers and direct absent), not the last job's; its I/Os, bytes, IOPS, bandwidth and latency are the group's, as fio measured them"
    )
}

/// Why an entry named `first` with job `last`'s options is a group of unlike jobs.
pub(crate) fn named(last: &str, first: &str) -> String {
    format!(
        "the options fio lists with it are job \"{last}\"'s (their name), not those of \"{first}\", the name fio wrote it under"
    )
}

/// `text` read as results, as `compare` and `report` read it.
fn read(text: &str) -> Results {
    wkrun::fio::json::from_bytes("f.json", text.as_bytes()).expect("fio's JSON read")
}

/// The parameters a group of unlike jobs cannot vouch for: block size, depth, engine, read and trim
/// shares, pattern, workers, direct I/O.
fn vouched(p: &PhaseParams) -> [Option<String>; 8] {
    [
        p.block_size_bytes.map(|b| b.to_string()),
        p.queue_depth.map(|q| q.to_string()),
        p.engine.map(|e| format!("{e:?}")),
        p.read_percent.map(|r| r.to_string()),
        p.trim_percent.map(|t| t.to_string()),
        p.pattern.map(|x| format!("{x:?}")),
        p.workers.map(|w| w.to_string()),
        p.direct.map(|d| d.to_string()),
    ]
}

/// The unlike group `text` (fio's JSON `v` of it): one phase, named after the first job, with fio's
/// counts and IOPS as it reported them, the parameters unknown and the warning `said`; `validate` notes it.
fn unlike_read(text: &str, v: &Value, said: &str) {
    assert_eq!(v["jobs"].as_array().map(Vec::len), Some(1));
    let names = ["jobname", "job options"].map(|k| {
        let j = &v["jobs"][0];
        (if k == "jobname" { &j[k] } else { &j[k]["name"] }).as_str()
    });
    assert_eq!(names, [Some("a"), Some("b")]);
    assert_eq!(v["jobs"][0]["job options"]["bs"], "4k");
    let r = read(text);
    assert_eq!(r.phases.len(), 1);
    let p = &r.phases[0];
    assert_eq!(p.name, "a");
    assert_eq!(vouched(&p.params), <[Option<String>; 8]>::default());
    for (d, s) in [("read", &p.read), ("write", &p.write)] {
        let at = |k: &str| format!("/jobs/0/{d}/{k}");
        assert_eq!(
            (s.ops, s.bytes, s.iops),
            (
                u(v, &at("total_ios")),
                u(v, &at("io_bytes")),
                v.pointer(&at("iops"))
                    .and_then(Value::as_f64)
                    .expect("iops")
            ),
            "{d}"
        );
    }
    let warned: Vec<&String> = (p.warnings.iter())
        .filter(|w| w.starts_with("fio's report is a group"))
        .collect();
    assert_eq!(warned, [said]);
    // Both jobs ran direct=1, but the entry cannot say so: no buffered-I/O warning from the last job's.
    assert!(!p.warnings.iter().any(|w| w.starts_with("direct=0")));
    assert_eq!(
        validate("g.json", text),
        (
            0,
            "g.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
            format!("note: g.json: job \"a\": {said}\n")
        )
    );
}

/// Attack 25 F1: fio's entry of a command line's group of a 64k randread job (libaio, iodepth 32) and a
/// 4k randwrite job (psync): 48983 reads of 64 KiB (24479.26037 IOPS) beside options of `bs=4k`,
/// `rw=randwrite`, `ioengine=psync`, named job b's. Block size, depth, engine, mix and span (attack 27: the
/// report said b's `[0, 67108864)`, which both jobs had, but need not) are unknown, with the
/// warning in validate, compare (under the table) and report, and fio's figures kept.
#[test]
fn a_command_lines_group_of_unlike_jobs_has_unknown_options() {
    let v = doc(UNLIKE);
    assert_eq!(
        [
            "/jobs/0/read/total_ios",
            "/jobs/0/read/io_bytes",
            "/jobs/0/write/total_ios",
            "/jobs/0/job_runtime",
            "/jobs/0/read/runtime"
        ]
        .map(|k| u(&v, k)),
        [48983, 3210149888, 2179, 4000, 2001]
    );
    assert_eq!(v["jobs"][0]["read"]["iops"], 24479.26037);
    let said = unlike_group(&named("b", "a"));
    unlike_read(UNLIKE, &v, &said);
    let d = tempdir();
    write_file(d.path(), "g.json", UNLIKE);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "g.json"]));
    assert_eq!(code, 0, "{err}");
    // compare's notes follow its table on stdout.
    assert!(
        out.lines()
            .any(|l| l == format!("note: fio: g.json: phase \"a\": {said}")),
        "{out}"
    );
    let row = "a      read IOPS, phase mean               24479.3";
    assert!(out.lines().any(|l| l == row), "{out}");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", "g.json", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.path().join("rep/index.html")).expect("index.html");
    assert!(html.contains(&format!(
        "<p class=\"warn\">fio: g.json: warning: {}</p>",
        said.replace('"', "&quot;").replace('\'', "&#39;")
    )));
    assert!(
        html.contains(">workload · span unknown · 2.00 s<"),
        "{html}"
    );
    for said in ["4096 B blocks", "0 % reads", "engine psync"] {
        assert!(!html.contains(said), "{said}");
    }
}

/// The same on the real fio: its one entry is read with no block size, depth, engine or mix, fio's IOPS
/// as it reported them, and the warning.
#[test]
fn real_fio_group_of_unlike_jobs_has_unknown_options() {
    let Some((d, _, file)) = with_fio("real_fio_group_of_unlike_jobs_has_unknown_options", "F")
    else {
        return;
    };
    let mut args = vec!["--group_reporting", "--name=a", &file];
    args.extend(JOB_A);
    args.extend(["--name=b", &file]);
    args.extend(JOB_B);
    let v = run_fio(d.path(), &args, "g.json");
    let text = std::fs::read_to_string(d.path().join("g.json")).expect("fio's JSON");
    assert!(u(&v, "/jobs/0/read/total_ios") > 0 && u(&v, "/jobs/0/write/total_ios") > 0);
    unlike_read(&text, &v, &unlike_group(&named("b", "a")));
}

/// Two identical `--name=a` jobs under `--group_reporting` (one entry, named a with a's options: 82923
/// reads at 82840.15984 IOPS, job_runtime 2000 ms beside a read runtime of 1001 ms) read as unknown
/// options: fio's JSON lists the last job's options alone, and two jobs of one name whose rate caps or
/// depths differ make the same entry (attack 27 F6), so more jobs than the listed numjobs (1) are not known
/// alike. fio's numjobs=4 group (no more jobs than its numjobs) keeps its options.
#[test]
fn a_group_of_identical_jobs_is_not_known_alike() {
    let v = doc(ALIKE);
    assert_eq!(
        ["/jobs/0/read/total_ios", "/jobs/0/job_runtime"].map(|k| u(&v, k)),
        [82923, 2000]
    );
    alike_read(ALIKE, &v, 82840.15984);
    let numjobs = include_str!("../data/fio/fio-3.33-numjobs-group.json");
    let p = &read(numjobs).phases[0];
    assert_eq!(
        vouched(&p.params),
        [
            Some("4096".into()),
            Some("1".into()),
            Some("Psync".into()),
            Some("70".into()),
            None,
            Some("Random".into()),
            Some("4".into()),
            None
        ]
    );
    assert!(
        !p.warnings
            .iter()
            .any(|w| w.starts_with("fio's report is a group"))
    );
}

/// The group of two alike jobs `text` (fio's JSON `v`, its read IOPS `iops`): one phase, every parameter
/// unknown, fio's IOPS kept, the group warning of its job_runtime (the jobs' summed) beside its read
/// runtime, in validate's note.
fn alike_read(text: &str, v: &Value, iops: f64) {
    assert_eq!(v["jobs"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["jobs"][0]["job options"]["name"], "a");
    assert_eq!(v["jobs"][0]["job options"]["iodepth"], "8");
    let r = read(text);
    assert_eq!(r.phases.len(), 1);
    let p = &r.phases[0];
    assert_eq!(p.params, PhaseParams::with_span(0, 0));
    assert_eq!(p.read.iops, iops);
    let (summed, runtime) = (u(v, "/jobs/0/job_runtime"), u(v, "/jobs/0/read/runtime"));
    let said = unlike_group(&format!(
        "its job_runtime, {summed} ms, sums its jobs' (more than its longest direction's runtime, {runtime} ms), and it holds more jobs than the numjobs=1 of the options fio lists with it (at least 2: its job_runtime over that runtime), so those options are one job's, and the others' (their rate cap, depth or think time, which no figure shows) are not given"
    ));
    let warned: Vec<&String> = (p.warnings.iter())
        .filter(|w| w.starts_with("fio's report is a group"))
        .collect();
    assert_eq!(warned, [&said]);
    assert_eq!(
        validate("s.json", text),
        (
            0,
            "s.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
            format!("note: s.json: job \"a\": {said}\n")
        )
    );
}

/// The same on the real fio.
#[test]
fn real_fio_group_of_identical_jobs_is_not_known_alike() {
    let Some((d, _, file)) = with_fio("real_fio_group_of_identical_jobs_is_not_known_alike", "F")
    else {
        return;
    };
    let mut args = vec!["--group_reporting"];
    for _ in 0..2 {
        args.extend(["--name=a", &file, "--time_based"]);
        args.extend(QD8);
    }
    let v = run_fio(d.path(), &args, "s.json");
    let text = std::fs::read_to_string(d.path().join("s.json")).expect("fio's JSON");
    let iops = v["jobs"][0]["read"]["iops"].as_f64().expect("iops");
    alike_read(&text, &v, iops);
}

/// A job's numjobs clones without `group_reporting` (fio writes one entry per clone, each with the job's
/// options, `numjobs=2`, libaio at iodepth 8): each clone's options are its own, so the phase knows its
/// depth (8) and workers (2), with fio's IOPS summed (39788.211788 + 39744.255744).
fn clones_read(text: &str, v: &Value) {
    assert_eq!(v["jobs"].as_array().map(Vec::len), Some(2));
    let iops: Vec<f64> = (0..2)
        .map(|i| v["jobs"][i]["read"]["iops"].as_f64().expect("iops"))
        .collect();
    let r = read(text);
    assert_eq!(r.phases.len(), 1);
    let p = &r.phases[0];
    assert_eq!(
        (p.params.queue_depth, p.params.workers, p.params.engine),
        (Some(8), Some(2), Some(EngineKind::Libaio))
    );
    assert_eq!(p.read.iops, iops[0] + iops[1]);
    assert!(!p.warnings.iter().any(|w| w.starts_with("fio's report")));
    assert_eq!(
        validate("c.json", text),
        (
            0,
            "c.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
            String::new()
        )
    );
}

/// The clones of `fio --name=c --numjobs=2 --ioengine=libaio --iodepth=8 ...` (no group_reporting).
#[test]
fn numjobs_clones_keep_their_depth() {
    let v = doc(CLONES);
    assert_eq!(
        (
            v["jobs"][0]["read"]["iops"].as_f64(),
            v["jobs"][1]["read"]["iops"].as_f64()
        ),
        (Some(39788.211788), Some(39744.255744))
    );
    clones_read(CLONES, &v);
    let d = tempdir();
    write_file(d.path(), "c.json", CLONES);
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", "c.json", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.path().join("rep/index.html")).expect("index.html");
    assert!(html.contains(">workload · 4096 B blocks · 2 workers × QD8 · 100 % reads · random · engine libaio · span [0, 67108864) · 1.00 s<"));
}

/// The same on the real fio.
#[test]
fn real_fio_numjobs_clones_keep_their_depth() {
    let Some((d, _, file)) = with_fio("real_fio_numjobs_clones_keep_their_depth", "F") else {
        return;
    };
    let mut args = vec!["--name=c", &file, "--time_based", "--numjobs=2"];
    args.extend(QD8);
    let v = run_fio(d.path(), &args, "c.json");
    let text = std::fs::read_to_string(d.path().join("c.json")).expect("fio's JSON");
    clones_read(&text, &v);
}

const SPAN_FSYNC_SEED: &str = include_str!("../data/fio/fio-3.33-a27-group-span-fsync-seed.json");

/// Attack 27 item 2: a group of unlike jobs' entry lists its last job's span, fsync and seed too (job a:
/// `size=8m`, `fsync=4`, `randseed=7`; job b: `size=16m`, `fsync=8`, `randseed=9`; fio's entry, named a,
/// lists b's); they are unknown with the rest (span 0, fsync and seed absent), the warning naming them, and
/// fio's 535 syncs kept with no N (0: not one per N writes).
#[test]
fn a_group_of_unlike_jobs_has_no_span_fsync_or_seed() {
    let v = doc(SPAN_FSYNC_SEED);
    let o = &v["jobs"][0]["job options"];
    assert_eq!(
        [
            &v["jobs"][0]["jobname"],
            &o["name"],
            &o["size"],
            &o["fsync"],
            &o["randseed"]
        ],
        ["a", "b", "16m", "8", "9"]
    );
    assert_eq!(u(&v, "/jobs/0/sync/total_ios"), 535);
    let r = read(SPAN_FSYNC_SEED);
    let p = &r.phases[0];
    let q = &p.params;
    assert_eq!(
        (
            q.span_start_bytes,
            q.span_bytes,
            q.fsync,
            q.fdatasync,
            q.seed
        ),
        (0, 0, None, None, None)
    );
    assert_eq!(vouched(q), <[Option<String>; 8]>::default());
    let flushes = p.sync.as_ref().and_then(|s| s.flushes.as_ref());
    assert_eq!(
        flushes.map(|f| (f.call.as_str(), f.every_writes, f.ops)),
        Some(("fsync", 0, 535))
    );
    let said = unlike_group(&named("b", "a"));
    let warned: Vec<&String> = (p.warnings.iter())
        .filter(|w| w.starts_with("fio's report is a group"))
        .collect();
    assert_eq!(warned, [&said]);
    assert!(
        !p.warnings
            .iter()
            .any(|w| w.starts_with("the span is unknown"))
    );
    assert_eq!(wkrun::fio::json::unknown_span(p), Some("unknown"));
}
