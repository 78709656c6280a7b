//! Trial 21: fio's `fsync=N` in a read/write mix makes more syncs than one per N writes (fio syncs whenever
//! its count of issued writes is a nonzero multiple of N and the last I/O to complete was not a sync), said
//! by `import fio`, by the phase read from fio's JSON and by `compare`; fio's trims are timed in one piece
//! (`slat_ns.N` 0: clat is their whole time), which `compare` says; fio's cpuio job, which does no storage
//! I/O, accepted by `validate` with a note and left out by `compare`. Fixed files are real fio 3.33 output
//! (`tests/data/fio/README.md`); the real fio runs take a second each.

use crate::common::{code_out_err, skip, tempdir, wkrun, write_file};
use serde_json::Value;
use std::path::Path;

const MIX: &str = include_str!("../data/fio/fio-3.33-randrw-fsync16.json");
const WRITES: &str = include_str!("../data/fio/fio-3.33-randwrite-fsync16.json");
const TRIMS: &str = include_str!("../data/fio/fio-3.33-randtrim-again.json");
const CPU: &str = include_str!("../data/fio/fio-3.33-cpuio.json");

/// fio's document in `text` (after any lines fio writes before it).
fn doc(text: &str) -> Value {
    serde_json::from_str(&text[text.find("\n{").map_or(0, |i| i + 1)..]).expect("fio JSON")
}

/// The results wkrun reads from fio's output `text`, written to `dir/name`.
fn read(dir: &Path, name: &str, text: &str) -> wkrun::results::Results {
    write_file(dir, name, text);
    wkrun::report::read_results(&dir.join(name)).expect("reads fio's JSON")
}

/// The sync warning the phase of a job with `fsync=n` gets, from fio's own counts (the oracle).
fn sync_warning(call: &str, n: u64, syncs: u64, writes: u64) -> String {
    format!(
        "fio's {call}={n} made {syncs} syncs for {writes} writes, not floor({writes} / {n}) = {}: fio syncs whenever its count of issued writes is a nonzero multiple of {n} and the last I/O to complete was not a sync, so it syncs again before each I/O it issues until its next write (each read of a job that also reads; with io_uring at an iodepth above 1, while its sync is in flight), where wkrun flushes once after every {n} writes of each worker: so fio's flush count and flush latencies are not comparable with wkrun's",
        writes / n
    )
}

/// The cells of `compare`'s row `label` of phase `phase`, split on runs of two spaces.
pub(crate) fn cells(out: &str, phase: &str, label: &str) -> Vec<String> {
    let line = out
        .lines()
        .find(|l| l.starts_with(phase) && l.contains(label))
        .unwrap_or_else(|| panic!("no row {label} of {phase}:\n{out}"));
    line[phase.len()..]
        .replace(label, "")
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect()
}

/// T1: fio's 179 syncs for 1152 writes (libaio, iodepth 8, randrw, rwmixread=60, fsync=16) are not
/// floor(1152 / 16) = 72: the phase read from fio's JSON says so with fio's numbers, and `compare` beside a
/// wkrun phase with `fsync = 16` shows the flush rows without a change and with a note saying why (before:
/// `flushes 1037 -> 294 (-71.6 %)`, no note). The composite, which never scores flushes, is the IOPS ratio.
#[test]
fn fio_syncs_in_a_mix_are_not_compared_with_wkruns() {
    let d = tempdir();
    let fio = doc(MIX);
    let job = &fio["jobs"][0];
    let u = |v: &Value| v.as_u64().expect("count");
    let (writes, syncs) = (
        u(&job["write"]["total_ios"]),
        u(&job["sync"]["lat_ns"]["N"]),
    );
    assert_eq!((writes, syncs), (1152, 179));
    let r = read(d.path(), "mix.json", MIX);
    let p = &r.phases[0];
    let want = sync_warning("fsync", 16, syncs, writes);
    assert!(p.warnings.contains(&want), "{:#?}", p.warnings);
    assert_eq!(wkrun::fio::json::syncs_apart(p), Some(want.as_str()));
    // wkrun's phase of the same mix, one second on a file.
    let t = d.path().join("t.img");
    std::fs::write(&t, vec![0u8; 8 << 20]).expect("target");
    let body = "[[phase]]\nname = \"mixsync\"\nkind = \"workload\"\nread_percent = 60\nblock_size = \"4KiB\"\nfsync = 16\nduration = \"1s\"\n";
    let out = crate::common::run_ok(d.path(), "mix", body, &t);
    let ours = wkrun::report::read_results(&out.join("results.json")).expect("ours");
    let ph = &ours.phases[0];
    let flushes = ph
        .sync
        .as_ref()
        .and_then(|s| s.flushes.as_ref())
        .expect("flushes");
    // wkrun's own: one flush per 16 writes of its one worker.
    assert_eq!(flushes.ops, ph.write.ops / 16);
    assert_eq!(wkrun::fio::json::syncs_apart(ph), None);
    let (code, text, err) = code_out_err(&wkrun(
        d.path(),
        &["compare", "mix.json", out.to_str().expect("utf-8")],
    ));
    assert_eq!(code, 0, "{err}");
    let row = cells(&text, "mixsync", "flushes (fsync/fdatasync calls) [1]");
    assert_eq!(row, [syncs.to_string(), flushes.ops.to_string()], "{text}");
    let mean = cells(&text, "mixsync", "flush latency, phase mean (µs) [1]");
    assert!(mean.iter().all(|c| !c.contains('%')), "{text}");
    assert!(
        text.contains(&format!(
            "[1] not compared: fio: mix.json: {want}; these flush rows have no change (the composite never scores flushes)"
        )),
        "{text}"
    );
    // The composite is the phases' IOPS ratio, flushes aside.
    let ratio = ph.iops() / p.iops();
    let comp = cells(
        &text,
        "(all phases)",
        "composite (geometric mean of ratios to the first run)",
    );
    assert_eq!(
        comp[1],
        format!("{ratio:.3} ({:+.1} %)", (ratio - 1.0) * 100.0)
    );
}

/// T1: a job that only writes on libaio makes one sync per 16 writes (fio 3.33: 148 for 2368 writes, the
/// fixed file), which no warning questions; a count of floor(writes / 16) − 1 (a run that ended after a
/// multiple of 16 writes, before its sync) is one per N too, and one fewer is not.
#[test]
fn one_sync_per_n_writes_is_no_warning() {
    let d = tempdir();
    let mut fio = doc(WRITES);
    let job = &fio["jobs"][0];
    let writes = job["write"]["total_ios"].as_u64().expect("writes");
    assert_eq!(
        (writes, job["sync"]["lat_ns"]["N"].as_u64()),
        (2368, Some(148))
    );
    let r = read(d.path(), "w.json", WRITES);
    assert_eq!(wkrun::fio::json::syncs_apart(&r.phases[0]), None);
    for (syncs, apart) in [(147, false), (146, true), (149, true)] {
        fio["jobs"][0]["sync"]["lat_ns"]["N"] = syncs.into();
        fio["jobs"][0]["sync"]["total_ios"] = syncs.into();
        let r = read(d.path(), "w.json", &fio.to_string());
        let want = sync_warning("fsync", 16, syncs, writes);
        assert_eq!(
            wkrun::fio::json::syncs_apart(&r.phases[0]),
            apart.then_some(want.as_str()),
            "{syncs}"
        );
    }
}

/// T1, with real fio: on psync (one I/O at a time, so fio's log of issued I/Os is also the order they
/// completed), every sync fio issued is where the rule puts it, and its count is the phase's warning's.
#[test]
fn fio_syncs_where_its_rule_says() {
    let test = "fio_mixsync::fio_syncs_where_its_rule_says";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let (text, fio) = crate::fio_trimsync::fio_json(
        d.path(),
        &[
            "--name=mixsync",
            "--filename=f",
            "--size=8m",
            "--bs=4k",
            "--rw=randrw",
            "--rwmixread=60",
            "--fdatasync=4",
            "--ioengine=psync",
            "--number_ios=2000",
            "--write_iolog=io.log",
        ],
    );
    let log = std::fs::read_to_string(d.path().join("io.log")).expect("io.log");
    // The rule, replayed over fio's log: a sync before an I/O exactly when the writes so far are a nonzero
    // multiple of 4 and the I/O before was not a sync.
    let (mut writes, mut syncs, mut prev_sync) = (0u64, 0u64, false);
    // fio's iolog version 3: time (ms), file, action, offset, length.
    for op in log.lines().filter_map(|l| l.split_whitespace().nth(2)) {
        let sync = matches!(op, "sync" | "datasync");
        if !matches!(op, "read" | "write") && !sync {
            continue;
        }
        assert_eq!(
            sync,
            writes > 0 && writes % 4 == 0 && !prev_sync,
            "at write {writes}"
        );
        writes += u64::from(op == "write");
        syncs += u64::from(sync);
        prev_sync = sync;
    }
    let job = &fio["jobs"][0];
    assert_eq!(job["write"]["total_ios"].as_u64(), Some(writes));
    assert_eq!(job["sync"]["lat_ns"]["N"].as_u64(), Some(syncs));
    assert!(syncs > writes / 4, "{syncs} syncs, {writes} writes");
    let r = read(d.path(), "fio.json", &text);
    assert_eq!(
        wkrun::fio::json::syncs_apart(&r.phases[0]),
        Some(sync_warning("fdatasync", 4, syncs, writes).as_str())
    );
}

/// T1: `wkrun import fio` notes a mix with `fsync=N`, and a job on io_uring at an iodepth above 1, with
/// what fio does and what wkrun does; a job of writes only on libaio gets no such note.
#[test]
fn import_notes_fios_extra_syncs() {
    let d = tempdir();
    let job = |extra: &str| {
        format!(
            "[j]\nfilename=t.img\nsize=8m\nbs=4k\nioengine=libaio\ndirect=1\nruntime=2\ntime_based\n{extra}"
        )
    };
    let import = |name: &str, text: &str| {
        write_file(d.path(), name, text);
        let (code, _, err) =
            code_out_err(&wkrun(d.path(), &["import", "fio", name, "-o", "out.toml"]));
        assert_eq!(code, 0, "{err}");
        err
    };
    let rule = "fio syncs whenever its count of issued writes is a nonzero multiple of 16 and the last I/O to complete was not a sync: ";
    let wkrun_does = "; wkrun's fsync flushes once after every 16 writes of each worker, so the flush counts and flush latencies of the two differ (compare says so beside fio's output)";
    let reads = "in a job that also reads it syncs again before each read it issues until its next write, about (1 + reads per write) × writes / 16 syncs (fio 3.33, rw=randrw, rwmixread=60, fsync=16: 2.4 to 2.6 times floor(writes / 16) on psync, libaio and io_uring)";
    let err = import(
        "mix.fio",
        &job("rw=randrw\nrwmixread=60\niodepth=8\nfsync=16\n"),
    );
    assert!(
        err.contains(&format!("mix.fio:12: fsync=16: {rule}{reads}{wkrun_does}")),
        "{err}"
    );
    let err = import(
        "uring.fio",
        &job("rw=randwrite\niodepth=8\nfsync=16\n").replace("libaio", "io_uring"),
    );
    let queued = "its io_uring engine queues a sync like an I/O, so at iodepth=8 it syncs again before each I/O it issues while a sync is in flight (fio 3.33, rw=randwrite, iodepth=8, fsync=16: 4.4 times floor(writes / 16))";
    assert!(
        err.contains(&format!(
            "uring.fio:11: fsync=16: {rule}{queued}{wkrun_does}"
        )),
        "{err}"
    );
    let err = import("w.fio", &job("rw=randwrite\niodepth=8\nfsync=16\n"));
    assert!(!err.contains("fsync=16"), "{err}");
}

/// T2: fio times a trim in one piece (`slat_ns.N` 0 on libaio, io_uring, psync and falloc: its whole time in
/// clat, lat − clat under a µs), so the trims' clat percentiles are their whole time, which the phase's
/// warning and `compare`'s note say, instead of "clat leaves out the submission's own time". The fixed
/// file is fio's second run on a loop device (p50 136 µs beside a mean of 2409 µs: its first trims repeat
/// the first run's offsets, fio's randrepeat), whose figures are fio's own.
#[test]
fn fio_trims_clat_is_their_whole_time() {
    let d = tempdir();
    let fio = doc(TRIMS);
    let t = &fio["jobs"][0]["trim"];
    assert_eq!(t["slat_ns"]["N"].as_u64(), Some(0));
    let r = read(d.path(), "trims.json", TRIMS);
    let p = &r.phases[0];
    let whole = "latency percentiles are fio's completion latency (clat) of I/Os it times in one piece (slat_ns.N is 0: trims, and I/Os on fio's sync engines), which is their whole time, as wkrun's; min, mean and max are its total latency (lat), the same time and under a µs of fio's bookkeeping";
    assert!(p.warnings.iter().any(|w| w == whole), "{:#?}", p.warnings);
    assert!(
        !p.warnings
            .iter()
            .any(|w| w.contains("without the submission's own time"))
    );
    let l = p
        .trim
        .as_ref()
        .and_then(|t| t.latency_ns.as_ref())
        .expect("trim latency");
    let ns = |v: &Value| v.as_u64().expect("ns");
    assert_eq!(l.p50, ns(&t["clat_ns"]["percentile"]["50.000000"]));
    assert_eq!(l.max, ns(&t["lat_ns"]["max"]));
    assert_eq!(
        wkrun::fio::json::latency_caveat(&r).as_deref(),
        Some(
            "latency figures are fio's: min, mean and max its total latency (lat: submission to completion, as wkrun's); its percentiles (p50, p99, p99.9) its completion latency (clat) of I/Os it times in one piece (slat_ns.N is 0: trims, and I/Os on fio's sync engines), which is their whole time, as wkrun's"
        )
    );
}

/// T2, with real fio: fio's falloc trims on a file (its way to trim a file) have no submission timed
/// apart, and lat is clat within a µs on average.
#[test]
fn fio_falloc_trims_have_no_submission_time() {
    let test = "fio_mixsync::fio_falloc_trims_have_no_submission_time";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    std::fs::write(d.path().join("f"), vec![1u8; 1 << 20]).expect("file");
    let (text, fio) = crate::fio_trimsync::fio_json(
        d.path(),
        &[
            "--name=tr",
            "--filename=f",
            "--size=1M",
            "--rw=randtrim",
            "--bs=4k",
            "--ioengine=falloc",
        ],
    );
    let t = &fio["jobs"][0]["trim"];
    assert_eq!(t["total_ios"].as_u64(), Some(256));
    assert_eq!(t["slat_ns"]["N"].as_u64(), Some(0));
    let mean = |k: &str| t[k]["mean"].as_f64().expect("mean");
    assert!((mean("lat_ns") - mean("clat_ns")).abs() < 1000.0);
    let r = read(d.path(), "fio.json", &text);
    assert!(
        r.phases[0]
            .warnings
            .iter()
            .any(|w| w.contains("of I/Os it times in one piece")),
        "{:#?}",
        r.phases[0].warnings
    );
}

/// A1: fio's cpuio job (10 "reads" of 0 bytes: its cycles) is fio's output to `validate`, with a note
/// that it did no storage I/O; `compare` leaves it out, naming it, beside another fio job, and refuses a
/// file of nothing else (before: "jobs[0].read.total_ios is 10: more I/Os than its io_bytes, 0").
#[test]
fn fio_cpuio_job_is_no_storage_io() {
    let d = tempdir();
    write_file(d.path(), "cpu.json", CPU);
    let fio = doc(CPU);
    assert_eq!(fio["jobs"][0]["read"]["total_ios"].as_u64(), Some(10));
    assert_eq!(fio["jobs"][0]["read"]["io_bytes"].as_u64(), Some(0));
    let why = "fio's cpuio engine does no storage I/O (it keeps a CPU busy): the 10 reads of 0 bytes fio counted are its cycles, none here";
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", "cpu.json"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "cpu.json: ok (results, 1 phase, 0 series CSVs)\n");
    assert_eq!(err, format!("note: cpu.json: job \"cpu\": {why}\n"));
    // Beside another fio run: the cpuio job left out, the other compared.
    let mut both = doc(MIX);
    let jobs = both["jobs"].as_array_mut().expect("jobs");
    jobs.push(fio["jobs"][0].clone());
    write_file(d.path(), "both.json", &both.to_string());
    write_file(d.path(), "mix.json", MIX);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "both.json", "mix.json"]));
    assert_eq!(code, 0, "{err}");
    assert!(!out.lines().any(|l| l.starts_with("cpu ")), "{out}");
    assert!(
        out.contains(&format!(
            "note: fio: both.json: job \"cpu\" left out: {why}\n"
        )),
        "{out}"
    );
    let comp = cells(
        &out,
        "(all phases)",
        "composite (geometric mean of ratios to the first run)",
    );
    assert_eq!(comp, ["1.000", "1.000 (+0.0 %)"]);
    // Alone: nothing to compare.
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "cpu.json", "mix.json"]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        format!("error: cpu.json: nothing to compare: job \"cpu\": {why}\n")
    );
}
