//! Attack 24: real fio 3.33 outputs that wkrun refused or misread. Options given as bare flags
//! (`group_reporting`, `sqthread_poll`), which fio's JSON does not list; a job whose fsync failed; jobs fio
//! never ran (their engine failed to start, `"error" : 0`); sizes under `kb_base=1000` and the mix option fio
//! read last; fio stopped by Ctrl-C; fio's client/server output. The files are real fio output
//! (`tests/data/fio/README.md`).

use crate::common::{code_out_err, tempdir, wkrun, write_file};
use crate::fio_odd::{doc, u, validate};
use wkrun::results::{Results, Status};

const GROUP: &str = include_str!("../data/fio/fio-3.33-group-bare-4k-64k.json");
const SQPOLL: &str = include_str!("../data/fio/fio-3.33-uring-sqpoll-bare.json");
const FSYNC_EINVAL: &str = include_str!("../data/fio/fio-3.33-fsync-einval.json");
const FSYNC_EIO: &str = include_str!("../data/fio/fio-3.33-fsync-eio-clones.json");
const SG: &str = include_str!("../data/fio/fio-3.33-sg-never-ran.json");
const URING_CMD: &str = include_str!("../data/fio/fio-3.33-uring-cmd-never-ran.json");
const RANDREAD: &str = include_str!("../data/fio/fio-3.33-randread-loop.json");
const KB_BASE: &str = include_str!("../data/fio/fio-3.33-kb-base-1000-increment.json");
const RWMIX: &str = include_str!("../data/fio/fio-3.33-rwmix-later-wins.json");
const SIGINT: &str = include_str!("../data/fio/fio-3.33-sigint.json");
const CLIENT: &str = include_str!("../data/fio/fio-3.33-client.json");
const STARTDELAY: &str = include_str!("../data/fio/fio-3.33-status-interval-startdelay.json");
const SECOND: &str = include_str!("../data/fio/fio-3.33-status-interval-startdelay-second.json");
const NORMAL_JSON: &str = include_str!("../data/fio/fio-3.33-status-interval-normal-json.json");
const SI_SIGINT: &str = include_str!("../data/fio/fio-3.33-status-interval-sigint.json");

/// `text` read as results, as `compare` and `report` read it.
pub(crate) fn read(text: &str) -> Results {
    wkrun::fio::json::from_bytes("f.json", text.as_bytes()).expect("fio's JSON read")
}

/// `validate`'s answer for a file of `phases` phases of a run that ended `status` (`""` for completed).
fn ok(name: &str, status: &str, phases: usize) -> String {
    let s = if phases == 1 { "" } else { "s" };
    format!("{name}: ok (results, {status}{phases} phase{s}, 0 series CSVs)\n")
}

/// F2: `group_reporting` given bare in [global] (a job file's 4k and 64k jobs): fio lists no such option
/// and writes the group under the first job's name with the 64k job's options; its I/Os fit none of them
/// and its job_runtime (2000 ms) sums its jobs' (its read runtime 1001 ms): read as a group of unlike jobs
/// (`fio_groups`), with no block size or depth, which validate notes. The same report with a job's own
/// runtime (1001 ms) is refused, as before.
#[test]
fn a_group_of_bare_group_reporting_validates() {
    let v = doc(GROUP);
    let (ios, bytes) = (
        u(&v, "/jobs/0/read/total_ios"),
        u(&v, "/jobs/0/read/io_bytes"),
    );
    assert_eq!((ios, bytes), (75026, 2647126016));
    assert_eq!(v["jobs"][0]["job options"]["bs"], "64k");
    assert!(v["global options"].get("group_reporting").is_none());
    let said = crate::fio_groups::unlike_group(
        "its job_runtime, 2000 ms, sums its jobs' (more than its longest direction's runtime, 1001 ms), and its I/Os fit none of the block sizes of the options fio lists with it: read.io_bytes is 2647126016: 35282.782 B for each of its 75026 I/Os (total_ios), where the job's block sizes are 65536 B",
    );
    assert_eq!(
        validate("g.json", GROUP),
        (
            0,
            ok("g.json", "", 1),
            format!("note: g.json: job \"small\": {said}\n")
        )
    );
    let r = read(GROUP);
    let p = &r.phases[0];
    assert_eq!(
        (p.name.as_str(), p.read.ops, p.read.bytes),
        ("small", ios, bytes)
    );
    assert_eq!(
        (p.params.block_size_bytes, p.params.queue_depth),
        (None, None)
    );
    assert!(p.warnings.contains(&said), "{:?}", p.warnings);
    let mut one = v.clone();
    one["jobs"][0]["job_runtime"] = 1001.into();
    let mean = bytes as f64 / ios as f64;
    let want = format!(
        "error: g.json: jobs[0].read.io_bytes is {bytes}: {mean:.3} B for each of its {ios} I/Os (total_ios), where the job's block sizes are 65536 B\n"
    );
    assert_eq!(
        validate("g.json", &one.to_string()),
        (2, String::new(), want)
    );
}

/// F2: `--sqthread_poll` given bare on io_uring at iodepth 32 (lat mean 4.78 ms beside clat mean 640 ms, and
/// no sqthread_poll in fio's JSON): validates with the note that reads it as sqthread_poll.
#[test]
fn bare_sqthread_poll_on_io_uring_validates_with_its_note() {
    let v = doc(SQPOLL);
    let mean = |k: &str| v["jobs"][0]["write"][k]["mean"].as_f64().expect("mean");
    assert_eq!(
        (mean("lat_ns"), mean("clat_ns")),
        (4783946.888182, 639981691.207071)
    );
    assert!(v["jobs"][0]["job options"].get("sqthread_poll").is_none());
    let seen = wkrun::fio::plausible::SQ_POLL_SEEN;
    let note = format!("note: sq.json: job \"x\": {seen}\n");
    assert_eq!(validate("sq.json", SQPOLL), (0, ok("sq.json", "", 1), note));
}

/// F3: a job whose fsync failed (fsync=1 on /dev/null: error 22; a real EIO on a loop device in the first
/// of two clones: error 5) counts the failed sync in `sync.total_ios` (1) without timing it (`lat_ns.N` 0):
/// read as failed, as fio's failed reads and writes are, by `validate` and `compare`.
#[test]
fn a_job_whose_fsync_failed_is_read_as_failed() {
    for (name, text, error, job) in [
        ("einval.json", FSYNC_EINVAL, 22, "fs1"),
        ("eio.json", FSYNC_EIO, 5, "w5"),
    ] {
        let v = doc(text);
        assert_eq!(u(&v, "/jobs/0/error"), error);
        assert_eq!(u(&v, "/jobs/0/sync/total_ios"), 1);
        assert_eq!(u(&v, "/jobs/0/sync/lat_ns/N"), 0);
        assert_eq!(
            validate(name, text),
            (0, ok(name, "failed, ", 1), String::new())
        );
        let r = read(text);
        assert_eq!(r.status, Status::Failed);
        assert_eq!(r.error, Some(format!("fio job {job}: error {error}")));
        assert!(!r.phases[0].completed);
        let d = tempdir();
        write_file(d.path(), name, text);
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["compare", name]));
        assert_eq!((code, err.as_str()), (0, ""), "{name}");
    }
    // Not failed, the same count is refused.
    let mut v = doc(FSYNC_EINVAL);
    v["jobs"][0]["error"] = 0.into();
    let want = "error: s.json: jobs[0].sync.total_ios is 1: more than the 0 syncs fio timed (lat_ns.N), which include its fsync calls\n";
    assert_eq!(
        validate("s.json", &v.to_string()),
        (2, String::new(), want.to_string())
    );
}

/// F4: fio never ran a job whose engine failed to start (sg on a loop device; io_uring_cmd on a device that
/// is no NVMe generic one): fio exits 1, and its JSON says error 0, job_runtime 0 and no I/O. Read as a
/// failed run whose phase measured nothing: `compare` does not score it (before: 0.0 IOPS, -100 %).
#[test]
fn a_job_fio_never_ran_is_read_as_failed() {
    for (text, engine) in [(SG, "sg"), (URING_CMD, "io_uring_cmd")] {
        let v = doc(text);
        assert_eq!(
            [
                "/jobs/0/error",
                "/jobs/0/job_runtime",
                "/jobs/0/read/total_ios",
                "/jobs/0/read/runtime"
            ]
            .map(|k| u(&v, k)),
            [0; 4]
        );
        let r = read(text);
        let why = format!(
            "fio did not run it: no I/O and no runtime (job_runtime 0 ms) on its engine {engine}, which does I/O (fio writes this when the engine fails to start, and says why on its stderr)"
        );
        let job = r.phases[0].name.clone();
        assert_eq!(
            (r.status, r.error),
            (Status::Failed, Some(format!("fio job {job}: {why}")))
        );
        assert!(!r.phases[0].completed);
        assert!(r.phases[0].unmeasured());
        assert!(r.phases[0].warnings.contains(&why));
        assert_eq!(
            validate("n.json", text),
            (0, ok("n.json", "failed, ", 1), String::new())
        );
    }
    let d = tempdir();
    write_file(d.path(), "ok.json", RANDREAD);
    write_file(d.path(), "sg.json", SG);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "ok.json", "sg.json"]));
    assert_eq!((code, err.as_str()), (0, ""));
    let iops: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("rr ") && l.contains("IOPS, phase mean"))
        .unwrap_or_else(|| panic!("{out}"))
        .split_whitespace()
        .collect();
    // fio's 231011.988012 IOPS beside none.
    assert_eq!(u(&doc(RANDREAD), "/jobs/0/read/total_ios"), 231243);
    assert_eq!(
        iops,
        [
            "rr", "IOPS,", "phase", "mean", "231012.0", "not", "measured"
        ]
    );
}

/// F5: `--kb_base=1000 --size=8m --offset=2m --offset_increment=4m --numjobs=2 --bs=4k`: fio read 8,000,000
/// B in 2000 I/Os per job (4000 B each) from 2,000,000 and 6,000,000; the phase spans 2,000,000 +
/// 12,000,000 B of 4000 B blocks (before: 2097152, 12582912, 4096). `--rwmixread=70 --rwmixwrite=20`: fio
/// kept the later, 80 % reads (43409 of 54358 I/Os, 79.9 %), read_percent 80 (before: 70).
#[test]
fn sizes_follow_kb_base_and_the_later_mix_option_wins() {
    let v = doc(KB_BASE);
    for k in 0..2 {
        let at = |d: &str| format!("/jobs/{k}/read/{d}");
        assert_eq!(
            (u(&v, &at("io_bytes")), u(&v, &at("total_ios"))),
            (8_000_000, 2000)
        );
    }
    let p = &read(KB_BASE).phases[0].params;
    assert_eq!(
        (p.span_start_bytes, p.span_bytes, p.block_size_bytes),
        (2_000_000, 12_000_000, Some(4000))
    );
    let v = doc(RWMIX);
    let (r, w) = (
        u(&v, "/jobs/0/read/total_ios"),
        u(&v, "/jobs/0/write/total_ios"),
    );
    assert_eq!((r, w), (43409, 10949));
    assert_eq!((r * 1000 / (r + w)), 798);
    assert_eq!(read(RWMIX).phases[0].params.read_percent, Some(80));
}

/// F6: fio stopped by Ctrl-C 2 s into a 10 s time_based job writes `fio: terminating on signal 2` before
/// its JSON (error 0, job_runtime 1649 ms): read as interrupted by SIGINT, its phase not completed (left out
/// of composites) with a warning that says so.
#[test]
fn fio_stopped_by_a_signal_is_read_as_interrupted() {
    assert_eq!(SIGINT.lines().nth(1), Some("fio: terminating on signal 2"));
    let v = doc(SIGINT);
    assert_eq!(
        (u(&v, "/jobs/0/error"), u(&v, "/jobs/0/job_runtime")),
        (0, 1649)
    );
    let r = read(SIGINT);
    assert_eq!(
        (r.status, r.signal.as_deref()),
        (Status::Interrupted, Some("SIGINT"))
    );
    let p = &r.phases[0];
    assert!(!p.completed);
    let said = "fio was stopped by SIGINT (line 2: \"fio: terminating on signal 2\") before this job ran to its end (it ran 1650 ms): its figures are of the part it ran, and it is left out of composites";
    assert!(p.warnings.iter().any(|w| w == said), "{:?}", p.warnings);
    assert_eq!(
        validate("i.json", SIGINT),
        (0, ok("i.json", "interrupted, ", 1), String::new())
    );
}

/// F7: fio's client/server output (`fio --client=127.0.0.1,18999`) has `client_stats`, each a job's report
/// with its server's hostname and port, where fio writes `jobs`: read as that server's run (before: "no
/// \"jobs\" list"); two servers' output is refused naming them.
#[test]
fn fio_client_output_is_read_as_its_servers_run() {
    let v = doc(CLIENT);
    assert!(v.get("jobs").is_none());
    assert_eq!(u(&v, "/client_stats/0/read/total_ios"), 7756);
    let r = read(CLIENT);
    assert_eq!(r.host.hostname, "127.0.0.1:18999");
    assert_eq!((r.phases.len(), r.phases[0].read.ops), (1, 7756));
    assert_eq!(
        validate("c.json", CLIENT),
        (0, ok("c.json", "", 1), String::new())
    );
    let mut two = v.clone();
    let mut other = two["client_stats"][0].clone();
    other["port"] = 19000.into();
    two["client_stats"]
        .as_array_mut()
        .expect("list")
        .push(other);
    let want = "error: c.json: fio's client/server output (client_stats) of 2 servers (127.0.0.1:18999, 127.0.0.1:19000): wkrun reads one server's jobs per file (a run's phases ran on one host)\n";
    assert_eq!(
        validate("c.json", &two.to_string()),
        (2, String::new(), want.to_string())
    );
}

/// F1: real `--status-interval=1` output whose job's runtime starts again (`--startdelay=2`: job_runtime
/// 1001, 2001, then 895 once it ran; a second job startdelayed), with fio's normal report between its
/// documents (`--output-format=normal,json`), and with `fio: terminating on signal 2` between them (Ctrl-C at
/// 2.5 s): each validates as its final report; stopped by the signal it is interrupted. The same output
/// twice (two runs' worth) is refused still.
#[test]
fn status_interval_output_with_restarts_and_text_validates() {
    let note = |k: usize| {
        format!(
            "{} (document {k} of {k})",
            wkrun::fio::status::STATUS_INTERVAL
        )
    };
    let cases = [
        (
            "delay.json",
            STARTDELAY,
            6,
            "",
            "/jobs/0/read/total_ios",
            79871,
        ),
        (
            "second.json",
            SECOND,
            4,
            "",
            "/jobs/1/write/total_ios",
            126281,
        ),
        (
            "nj.json",
            NORMAL_JSON,
            3,
            "",
            "/jobs/0/read/total_ios",
            202945,
        ),
        (
            "int.json",
            SI_SIGINT,
            3,
            "interrupted, ",
            "/jobs/0/read/total_ios",
            244160,
        ),
    ];
    for (name, text, docs, status, at, ios) in cases {
        let phases = doc(text)["jobs"].as_array().expect("jobs").len();
        let want = (
            0,
            ok(name, status, phases),
            format!("note: {name}: {}\n", note(docs)),
        );
        assert_eq!(validate(name, text), want, "{name}");
        let r = read(text);
        let k = at
            .split('/')
            .nth(2)
            .and_then(|k| k.parse::<usize>().ok())
            .expect("index");
        let p = &r.phases[k];
        let got = if at.contains("read") {
            p.read.ops
        } else {
            p.write.ops
        };
        assert_eq!(got, ios, "{name}");
        assert!(p.warnings.contains(&note(docs)), "{name}");
    }
    let r = read(SI_SIGINT);
    assert_eq!(
        (r.status, r.signal.as_deref()),
        (Status::Interrupted, Some("SIGINT"))
    );
    let said = "fio was stopped by SIGINT (line 546: \"fio: terminating on signal 2\") before this job ran to its end (it ran 2048 ms): its figures are of the part it ran, and it is left out of composites";
    assert!(
        r.phases[0].warnings.iter().any(|w| w == said),
        "{:?}",
        r.phases[0].warnings
    );
    let twice = format!("{NORMAL_JSON}{NORMAL_JSON}");
    let want = "error: t.json: line 307 starts a second JSON document after fio's (which ends at line 277), not a later report of the same fio run: document 4's timestamp_ms, 1796602437182, is not after document 3's, 1796602438335: one fio run's output per file: split it\n";
    assert_eq!(
        validate("t.json", &twice),
        (2, String::new(), want.to_string())
    );
}
