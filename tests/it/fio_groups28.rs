//! fiogroup28 (attack 27 F2, F6, F7): what fio 3.33's JSON cannot say of a group, and think times the
//! import refuses. fio writes a `group_reporting` group as one entry with its LAST job's options alone, so
//! an entry summing more jobs than those options' `numjobs` (its job_runtime over its longest runtime) is
//! a group whose other jobs' options are unknown, even under one name; such a group's lat/clat rule and
//! its sqthread_poll note come from its figures, not its last job's options; and a think time shaped by
//! `thinktime_iotime`, `thinktime_spin` or fio's count at completion (`thinktime_blocks_type=complete`,
//! given or by default, with more than one I/O in flight), all refused by `wkrun import fio`, is not read. The files are real fio 3.33 output (`tests/data/fio/README.md`).

use crate::common::{code_out_err, tempdir, wkrun, write_file};
use crate::fio_groups::{named, unlike_group_of};
use crate::fio_odd::{doc, u, validate};
use wkrun::fio::plausible::{SQ_POLL, SQ_POLL_GROUP};
use wkrun::plan::PhaseParams;
use wkrun::results::PhaseResult;

const RATES: &str = include_str!("../data/fio/fio-3.33-a27-same-name-rate-100-300.json");
const DEPTHS: &str = include_str!("../data/fio/fio-3.33-a27-same-name-iodepth-1-32.json");
const NUMJOBS2: &str = include_str!("../data/fio/fio-3.33-a27-numjobs2-group.json");
const POLL_FIRST: &str = include_str!("../data/fio/fio-3.33-a27-group-sqpoll-first.json");
const POLL_LAST: &str = include_str!("../data/fio/fio-3.33-a27-group-sqpoll-last.json");
const SYNC_INC: &str = include_str!("../data/fio/fio-3.33-a28-group-sync-increment.json");

/// The one phase fio's JSON `text` reads as.
fn phase(text: &str) -> PhaseResult {
    let r = wkrun::fio::json::from_bytes("f.json", text.as_bytes()).expect("fio's JSON read");
    assert_eq!(r.phases.len(), 1);
    r.phases.into_iter().next().expect("a phase")
}

/// Why a summed entry (`job_runtime` ms beside a longest runtime of `runtime` ms) of at least `jobs` jobs
/// is a group of unlike jobs, its options listing `numjobs`.
fn more_jobs(job_runtime: u64, runtime: u64, numjobs: u64, jobs: u64) -> String {
    format!(
        "its job_runtime, {job_runtime} ms, sums its jobs' (more than its longest direction's runtime, {runtime} ms), and it holds more jobs than the numjobs={numjobs} of the options fio lists with it (at least {jobs}: its job_runtime over that runtime), so those options are one job's, and the others' (their rate cap, depth or think time, which no figure shows) are not given"
    )
}

/// The warnings of phase `p` that begin with `head`.
fn warned<'a>(p: &'a PhaseResult, head: &str) -> Vec<&'a str> {
    (p.warnings.iter())
        .map(String::as_str)
        .filter(|w| w.starts_with(head))
        .collect()
}

/// Attack 27 F6: `[capped]` at rate_iops=100 and `[capped]` at rate_iops=300 under `group_reporting`: one
/// entry of 399.8001 IOPS (100 + 300) listing `rate_iops=300` alone, job_runtime 4000 beside a read
/// runtime of 2001 ms. Before: read as clones capped at 300, no warning. Now every parameter is unknown
/// (no rate cap, no depth), with the warning, and fio's IOPS kept; likewise `[capped]` at iodepth=1 and 32
/// (listed `iodepth=32`, before read as queue_depth 32).
#[test]
fn same_named_jobs_whose_options_differ_are_an_unlike_group() {
    for (text, key, listed, iops) in [
        (RATES, "rate_iops", "300", 399.8001),
        (DEPTHS, "iodepth", "32", 162739.130435),
    ] {
        let v = doc(text);
        assert_eq!(v["jobs"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["jobs"][0]["jobname"], "capped");
        assert_eq!(v["jobs"][0]["job options"][key], listed);
        assert_eq!(
            v["jobs"][0]["job options"].as_object().map(|o| o.len()),
            Some(1)
        );
        assert_eq!(
            ["/jobs/0/job_runtime", "/jobs/0/read/runtime"].map(|k| u(&v, k)),
            [4000, 2001]
        );
        let p = phase(text);
        assert_eq!(p.params, PhaseParams::with_span(0, 0), "{key}");
        assert_eq!(p.read.iops, iops);
        let said = unlike_group_of(2, &more_jobs(4000, 2001, 1, 2));
        assert_eq!(warned(&p, "fio's report is a group"), [said.as_str()]);
        assert_eq!(
            validate("g.json", text),
            (
                0,
                "g.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
                format!("note: g.json: job \"capped\": {said}\n")
            )
        );
    }
}

/// A numjobs=2 group (the same job twice, `numjobs=2` listed, job_runtime 4000 beside 2001 ms: no more
/// jobs than its options give) keeps its options: depth 1, 2 workers, no cap.
#[test]
fn a_numjobs_group_keeps_its_options() {
    let v = doc(NUMJOBS2);
    assert_eq!(v["jobs"][0]["job options"]["numjobs"], "2");
    assert_eq!(
        ["/jobs/0/job_runtime", "/jobs/0/read/runtime"].map(|k| u(&v, k)),
        [4000, 2001]
    );
    let p = phase(NUMJOBS2);
    assert_eq!(
        (p.params.queue_depth, p.params.workers, p.params.rate_iops),
        (Some(1), Some(2), None)
    );
    assert_eq!(p.read.iops, 32439.28036);
    assert!(warned(&p, "fio's report is a group").is_empty());
}

/// The group's last job's `sync=1`, `numjobs=2` and `offset_increment=6m` (job a: randwrite of 8m; job b:
/// 4m, numjobs=2, offset_increment=6m, sync=1; fio's entry, named a, lists b's, 535 writes) are not the
/// group's: `params.sync` absent (before: O_SYNC) and no span warning of b's increment.
#[test]
fn an_unlike_groups_o_sync_and_increment_are_not_its_last_jobs() {
    let v = doc(SYNC_INC);
    let o = &v["jobs"][0]["job options"];
    assert_eq!(
        [
            &o["name"],
            &o["sync"],
            &o["numjobs"],
            &o["offset_increment"]
        ],
        ["b", "1", "2", "6m"]
    );
    assert_eq!(
        [
            "/jobs/0/job_runtime",
            "/jobs/0/write/runtime",
            "/jobs/0/write/total_ios"
        ]
        .map(|k| u(&v, k)),
        [3019, 1008, 535]
    );
    let p = phase(SYNC_INC);
    assert_eq!(p.params, PhaseParams::with_span(0, 0));
    assert_eq!(p.write.ops, 535);
    assert!(warned(&p, "the span is unknown").is_empty());
    let said = unlike_group_of(3, &named("b", "a"));
    assert_eq!(warned(&p, "fio's report is a group"), [said.as_str()]);
}

/// Attack 27 F2: job a (io_uring, sqthread_poll=1, randwrite at iodepth 32) before job b (psync randread)
/// under `group_reporting`: the entry lists b's options and a write lat mean of 267972.208314 ns beside a
/// clat mean of 1660862655.464623. Before: refused (exit 2, "below clat_ns.mean"). Now validated, noted as
/// a group whose engines are unknown with lat below clat; the order reversed (b's sqthread_poll listed)
/// gives that note too, not the SQ_POLL of a job known to poll.
#[test]
fn a_group_with_an_sqthread_poll_job_anywhere_validates_with_the_group_note() {
    for (text, lat, clat, why) in [
        (
            POLL_FIRST,
            267972.208314,
            1660862655.464623,
            more_jobs_or_rw(6006, 3004, "write", 346751, "randread"),
        ),
        (
            POLL_LAST,
            319129.976887,
            824215423.064708,
            more_jobs_or_rw(4035, 2036, "read", 49881, "randwrite"),
        ),
    ] {
        let v = doc(text);
        let mean = |k: &str| v["jobs"][0]["write"][k]["mean"].as_f64();
        assert_eq!((mean("lat_ns"), mean("clat_ns")), (Some(lat), Some(clat)));
        let p = phase(text);
        assert_eq!(wkrun::fio::json::sq_poll(&p), Some(SQ_POLL_GROUP));
        assert!(!p.warnings.iter().any(|w| w == SQ_POLL));
        let said = unlike_group_of(2, &why);
        assert_eq!(
            validate("g.json", text),
            (
                0,
                "g.json: ok (results, 1 phase, 0 series CSVs)\n".to_string(),
                format!(
                    "note: g.json: job \"a\": {SQ_POLL_GROUP}\nnote: g.json: job \"a\": {said}\n"
                )
            )
        );
    }
    // A group whose lat is at least its clat everywhere has no such note (attack 25's unlike group).
    let unlike = include_str!("../data/fio/fio-3.33-group-cmdline-unlike.json");
    assert_eq!(wkrun::fio::json::sq_poll(&phase(unlike)), None);
}

/// Why a summed entry (`job_runtime` beside `runtime` ms) with `ios` I/Os in direction `d` that its listed
/// `rw` does none of is a group of unlike jobs.
fn more_jobs_or_rw(job_runtime: u64, runtime: u64, d: &str, ios: u64, rw: &str) -> String {
    format!(
        "its job_runtime, {job_runtime} ms, sums its jobs' (more than its longest direction's runtime, {runtime} ms), and its {d}.total_ios is {ios}, where the options fio lists with it (rw={rw}) do no {d}s"
    )
}

/// The warning of a think time not read for the import's refusal `why` of the option `given`.
fn think_unread(given: &str, why: &str) -> String {
    format!(
        "fio's think time (thinktime=1ms) is not read: `wkrun import fio` refuses {given} ({why}), so params.think_time_ns and think_every are absent (compare shows them as -, as a job without a think time)"
    )
}

/// Why the import refuses fio's count at completion of thinktime_blocks=8 on libaio at iodepth 8.
const COMPLETE_8: &str = "fio counts a burst's thinktime_blocks=8 I/Os as they complete, and with ioengine=libaio at iodepth=8 it issues more meanwhile, so its bursts are longer than wkrun's `think_every`, which counts them as it issues them: give thinktime_blocks_type=issue, which wkrun runs exactly (--lossy: counted at issue)";

/// Attack 27 F7: `thinktime=1ms` alone (psync, 917.041479 IOPS) is a think of 1 ms after every I/O; with
/// `thinktime_iotime=100ms` (16280.35982 IOPS: a think after each 100 ms of I/O), `thinktime_spin=900`
/// (fio spins 900 µs of each think; its run stopped by SIGTERM), or on libaio at iodepth 8 with
/// thinktime_blocks=8 counted at completion, `thinktime_blocks_type=complete` given (6792.103948 IOPS) or
/// by default (7075.962019 IOPS), it is not read, with the warning giving the import's reason; with
/// `thinktime_blocks_type=issue` (wkrun's count, 6864.567716 IOPS) it is read, 8 I/Os a burst.
#[test]
fn a_think_time_the_import_refuses_is_not_read_from_fios_json() {
    let read = |name: &str| {
        let path = format!("{}/tests/data/fio/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        let v = doc(&text);
        (v, phase(&text))
    };
    for (name, every, iops) in [
        ("fio-3.33-a27-think.json", 1, 917.041479),
        ("fio-3.33-f28-think-blocks-issue.json", 8, 6864.567716),
    ] {
        let (_, p) = read(name);
        assert_eq!(
            (p.params.think_time_ns, p.params.think_every, p.read.iops),
            (Some(1_000_000), Some(every), iops)
        );
        assert!(warned(&p, "fio's think time").is_empty());
    }
    for (name, given, why, iops) in [
        (
            "fio-3.33-a27-think-iotime.json",
            "thinktime_iotime=100ms",
            "wkrun has no `thinktime_iotime`: a burst between think times is a number of I/Os (`think_every`), not a time",
            16280.35982,
        ),
        (
            "fio-3.33-a27-think-spin.json",
            "thinktime_spin=900",
            "wkrun has no `thinktime_spin`: it sleeps through the whole think time (`think_time`), never spins",
            0.934849,
        ),
        (
            "fio-3.33-a27-think-blocks-complete.json",
            "thinktime_blocks_type=complete",
            COMPLETE_8,
            6792.103948,
        ),
        (
            "fio-3.33-a27-think-blocks8.json",
            "thinktime_blocks_type=complete (fio's default)",
            COMPLETE_8,
            7075.962019,
        ),
    ] {
        let (v, p) = read(name);
        let (k, value) = given.split_once('=').expect("k=v");
        let written = v["jobs"][0]["job options"].get(k);
        match value.strip_suffix(" (fio's default)") {
            // Not given: fio's default.
            Some(_) => assert_eq!(written, None, "{name}"),
            None => assert_eq!(written.expect(k), value, "{name}"),
        }
        assert_eq!(v["jobs"][0]["job options"]["thinktime"], "1ms");
        assert_eq!(
            (p.params.think_time_ns, p.params.think_every, p.read.iops),
            (None, None, iops),
            "{name}"
        );
        assert_eq!(
            warned(&p, "fio's think time"),
            [think_unread(given, why).as_str()]
        );
    }
}

/// The import refuses each of those options for the same reason (its table's, or for fio's count at
/// completion, `think_count`'s), naming the line; it reads `thinktime_blocks_type=issue`, wkrun's own
/// count, and `complete` where it is the same count (psync: one I/O in flight).
#[test]
fn the_import_refuses_the_same_think_options() {
    let d = tempdir();
    let libaio = "ioengine=libaio\niodepth=8\nthinktime_blocks=8\n";
    for (given, line, why) in [
        (
            "thinktime_iotime=100ms",
            "t.fio:7: thinktime_iotime=100ms",
            "wkrun has no `thinktime_iotime`: a burst between think times is a number of I/Os (`think_every`), not a time",
        ),
        (
            &format!("{libaio}thinktime_blocks_type=complete"),
            "t.fio:10: thinktime_blocks_type=complete",
            COMPLETE_8,
        ),
        (
            libaio.trim_end(),
            "t.fio:6: thinktime_blocks_type=complete (fio's default)",
            COMPLETE_8,
        ),
    ] {
        let job =
            format!("[capped]\nfilename=F\nsize=64m\nbs=4k\nrw=randread\nthinktime=1ms\n{given}\n");
        write_file(d.path(), "t.fio", &job);
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["import", "fio", "t.fio"]));
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        assert!(err.contains(&format!("{line}: {why}")), "{err}");
    }
    // One I/O in flight (psync, fio's default engine), complete is wkrun's count; counted at issue,
    // fio's bursts are wkrun's at any depth: imported.
    for given in [
        "thinktime_blocks=8\nthinktime_blocks_type=complete",
        "ioengine=libaio\niodepth=8\nthinktime_blocks=8\nthinktime_blocks_type=issue",
    ] {
        let job =
            format!("[capped]\nfilename=F\nsize=64m\nbs=4k\nrw=randread\nthinktime=1ms\n{given}\n");
        write_file(d.path(), "t.fio", &job);
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["import", "fio", "t.fio"]));
        assert_eq!(code, 0, "{given}: {err}");
        let thinks: Vec<&str> = out.lines().filter(|l| l.starts_with("think")).collect();
        assert_eq!(thinks, ["think_time = \"1ms\"", "think_every = 8"], "{out}");
    }
}
