//! The importer's mappings: every mapped option of the table, fio's units and quirks, fio's order of
//! jobs, and each refusal naming its option and line.

use super::{Source, import};
use crate::spec::fio::{FIO_KEYS, Import};

fn env(name: &str) -> Option<String> {
    match name {
        "SIZE" => Some("32m".into()),
        "DEPTH" => Some("8".into()),
        _ => None,
    }
}

/// Imports the job file `text` (as `j.fio` in a fresh folder).
fn import_text(text: &str, lossy: bool) -> Result<super::Imported, Vec<String>> {
    let d = tempfile::tempdir().expect("tempdir");
    let p = d.path().join("j.fio");
    std::fs::write(&p, text).expect("write");
    // The folder is the test's own: messages and comments keep the file's name.
    let dir = format!("{}/", d.path().display());
    import(&Source::Files(vec![p]), lossy, Some("t"), &env)
        .map(|mut i| {
            i.text = i.text.replace(&dir, "");
            i.notes = i.notes.iter().map(|n| n.replace(&dir, "")).collect();
            i.dropped = i.dropped.iter().map(|n| n.replace(&dir, "")).collect();
            i
        })
        .map_err(|ps| ps.iter().map(|p| p.to_string().replace(&dir, "")).collect())
}

/// The spec's phases as TOML tables, each with `[defaults]` filled in, and its `[target]`.
fn phases(text: &str) -> (Vec<toml::Table>, toml::Table) {
    let doc: toml::Table = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let defaults = doc
        .get("defaults")
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    let target = doc
        .get("target")
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    let list = doc["phase"].as_array().expect("phases").iter().map(|p| {
        let mut t = defaults.clone();
        t.extend(p.as_table().expect("table").clone());
        t
    });
    (list.collect(), target)
}

/// The first phase of a successful import of `text`.
fn first(text: &str) -> toml::Table {
    let out = import_text(text, false).unwrap_or_else(|e| panic!("{text}\n{e:#?}"));
    phases(&out.text).0.remove(0)
}

/// A job with `extra` lines after a base that every mapping starts from.
const BASE: &str = "[j]\nioengine=libaio\nrw=randread\nnorandommap\nfilename=/tmp/x.img\nsize=16m\ntime_based\nruntime=2\n";

/// An option, a line setting it, and the key and TOML value the phase then has.
type Sample = (
    &'static str,
    &'static str,
    Option<(&'static str, &'static str)>,
);

/// A sample line for each mapped option and what the phase then has (`key`, TOML value); `None` when the
/// option leaves the phase as the base makes it.
const MAPPED: &[Sample] = &[
    ("name", "name=renamed", Some(("name", "\"renamed\""))),
    (
        "description",
        "description=hello",
        Some(("description", "\"hello\"")),
    ),
    ("rw", "rw=randrw", Some(("read_percent", "50"))),
    (
        "readwrite",
        "readwrite=write",
        Some(("pattern", "\"sequential\"")),
    ),
    (
        "rwmixread",
        "rw=randrw\nrwmixread=70",
        Some(("read_percent", "70")),
    ),
    (
        "rwmixwrite",
        "rw=randrw\nrwmixwrite=30",
        Some(("read_percent", "70")),
    ),
    ("bs", "bs=8k", Some(("block_size", "\"8KiB\""))),
    (
        "blocksize",
        "blocksize=16k",
        Some(("block_size", "\"16KiB\"")),
    ),
    (
        "bssplit",
        "bssplit=4k/60:64k/40",
        Some(("block_size", "{ \"4KiB\" = 60, \"64KiB\" = 40 }")),
    ),
    (
        "bsrange",
        "bsrange=4k-12k",
        Some((
            "block_size",
            "{ \"4KiB\" = 1, \"8KiB\" = 1, \"12KiB\" = 1 }",
        )),
    ),
    ("ba", "ba=4k", None),
    ("iodepth", "iodepth=${DEPTH}", Some(("queue_depth", "8"))),
    ("runtime", "runtime=5m", Some(("duration", "\"5min\""))),
    ("time_based", "time_based=1", Some(("duration", "\"2s\""))),
    ("size", "size=${SIZE}", Some(("span", "\"32MiB\""))),
    (
        "io_size",
        "time_based=0\nruntime=0\nio_size=1g",
        Some(("size", "\"1GiB\"")),
    ),
    ("offset", "offset=10%", Some(("offset", "\"10%\""))),
    ("filesize", "filesize=64m", None),
    ("numjobs", "numjobs=4", Some(("workers", "4"))),
    (
        "offset_increment",
        "numjobs=2\noffset_increment=16m\nrw=write",
        Some(("span", "\"32MiB\"")),
    ),
    (
        "ioengine",
        "ioengine=io_uring",
        Some(("engine", "\"io_uring\"")),
    ),
    ("direct", "direct=1", Some(("direct", "true"))),
    ("buffered", "buffered=0", Some(("direct", "true"))),
    ("invalidate", "invalidate=0", None),
    ("ramp_time", "ramp_time=30", Some(("ramp", "\"30s\""))),
    (
        "rate_iops",
        "rate_iops=500",
        Some(("rate_iops", "{ read = 500 }")),
    ),
    ("rate", "rate=4m", Some(("rate_iops", "{ read = 1024 }"))),
    (
        "rate_process",
        "rate_process=poisson\nrate_iops=500",
        Some(("rate_process", "\"poisson\"")),
    ),
    ("randseed", "randseed=42", Some(("seed", "42"))),
    (
        "norandommap",
        "norandommap=0",
        Some(("coverage", "\"full\"")),
    ),
    (
        "random_distribution",
        "random_distribution=zoned:50/5:30/15:20/80",
        Some(("distribution", "\"zoned:50/5:30/15:20/80\"")),
    ),
    ("filename", "filename=/dev/sdz", None),
    ("directory", "directory=/mnt", None),
    ("nrfiles", "nrfiles=1", None),
    (
        "buffer_compress_percentage",
        "rw=randwrite\nbuffer_compress_percentage=40",
        Some(("data", "\"compressible:40%\"")),
    ),
    ("buffer_compress_chunk", "buffer_compress_chunk=512", None),
    (
        "zero_buffers",
        "rw=randwrite\nzero_buffers",
        Some(("data", "\"zeros\"")),
    ),
    ("refill_buffers", "refill_buffers", None),
    ("scramble_buffers", "scramble_buffers=1", None),
    (
        "buffer_pattern",
        "rw=randwrite\nbuffer_pattern=0",
        Some(("data", "\"zeros\"")),
    ),
    (
        "verify",
        "rw=randwrite\nverify=md5",
        Some(("verify", "true")),
    ),
    ("do_verify", "do_verify=0", None),
    (
        "loops",
        "time_based=0\nruntime=0\nloops=3",
        Some(("size", "\"48MiB\"")),
    ),
    (
        "steadystate",
        "steadystate=iops_slope:1%\nss_dur=30",
        Some(("until", "\"steady\"")),
    ),
    (
        "steadystate_duration",
        "ss_dur=20",
        Some(("until", "\"steady\"")),
    ),
    (
        "steadystate_ramp_time",
        "ss_dur=2\nss_ramp=1",
        Some(("ramp", "\"1s\"")),
    ),
    (
        "steadystate_check_interval",
        "ss_dur=20\nss_interval=2",
        Some(("steady_round", "\"2s\"")),
    ),
    (
        "kb_base",
        "kb_base=1000\nbs=4k",
        Some(("block_size", "\"4000B\"")),
    ),
    ("stonewall", "stonewall", None),
    ("wait_for", "wait_for=j", None),
    (
        "continue_on_error",
        "continue_on_error=io",
        Some(("on_error", "\"continue\"")),
    ),
    (
        "log_avg_msec",
        "log_avg_msec=500",
        Some(("interval", "\"500ms\"")),
    ),
    ("fixedbufs", "fixedbufs", None),
    ("registerfiles", "registerfiles", None),
    (
        "sqthread_poll",
        "ioengine=io_uring\nsqthread_poll=1",
        Some(("sq_poll", "true")),
    ),
    ("sqthread_poll_cpu", "sqthread_poll_cpu=1", None),
    (
        "thinktime",
        "thinktime=100",
        Some(("think_time", "\"100us\"")),
    ),
    (
        "thinktime_blocks",
        "thinktime=1000\nthinktime_blocks=100",
        Some(("think_every", "100")),
    ),
    (
        "thinktime_blocks_type",
        "iodepth=8\nthinktime=1000\nthinktime_blocks=100\nthinktime_blocks_type=issue",
        Some(("think_every", "100")),
    ),
    (
        "latency_target",
        "iodepth=32\nlatency_target=500\nlatency_window=2s",
        Some(("queue_depth", "[1, 2, 4, 8, 16, 32]")),
    ),
    (
        "latency_window",
        "iodepth=8\nlatency_target=500\nlatency_window=2s",
        Some(("duration", "\"2s\"")),
    ),
    (
        "latency_percentile",
        "iodepth=8\nlatency_target=1ms\nlatency_window=2s\nlatency_percentile=99.9",
        Some(("latency_percentile", "99.9")),
    ),
    ("fsync", "rw=randwrite\nfsync=8", Some(("fsync", "8"))),
    (
        "fdatasync",
        "rw=randwrite\nfdatasync=4",
        Some(("fdatasync", "4")),
    ),
    (
        "sync",
        "rw=randwrite\nsync=dsync",
        Some(("sync", "\"dsync\"")),
    ),
];

/// Every option the table marks mapped is read with fio's meaning: the samples above are exactly the
/// table's mapped rows, and each imports (a `wait_for` naming the job before it).
#[test]
fn every_mapped_option_is_read() {
    let mapped: Vec<&str> = FIO_KEYS
        .iter()
        .filter(|k| k.import == Import::Mapped && k.fio != "global")
        .map(|k| k.fio)
        .collect();
    let samples: Vec<&str> = MAPPED.iter().map(|m| m.0).collect();
    assert_eq!(samples, mapped, "MAPPED vs the table's mapped rows");
    for (name, line, want) in MAPPED {
        let text = if *name == "wait_for" {
            "[global]\nfilename=/tmp/x.img\ntime_based\nruntime=1\n[j]\n[k]\nwait_for=j\nrw=write\n"
                .to_string()
        } else {
            format!("{BASE}{line}\n")
        };
        let p = first(&text);
        if let Some((key, value)) = want {
            let want: toml::Table = format!("v = {value}").parse().expect("sample TOML");
            assert_eq!(p.get(*key), want.get("v"), "{line}: {key} in {p:#?}");
        }
    }
}

/// fio's defaults: psync at one I/O in flight, buffered, 4 KiB sequential reads of the whole file once.
#[test]
fn fio_defaults() {
    let p = first("[j]\nfilename=f\n");
    let want = [
        ("pattern", "\"sequential\""),
        ("read_percent", "100"),
        ("block_size", "\"4KiB\""),
        ("queue_depth", "1"),
        ("engine", "\"psync\""),
        ("direct", "false"),
        ("size", "\"100%\""),
    ];
    for (k, v) in want {
        assert_eq!(p.get(k).map(|x| x.to_string()).as_deref(), Some(v), "{k}");
    }
    // A sync engine keeps one I/O in flight whatever iodepth says; the note says so.
    let out = import_text("[j]\nfilename=f\nioengine=sync\niodepth=32\n", false).expect("imports");
    assert_eq!(phases(&out.text).0[0]["queue_depth"].as_integer(), Some(1));
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("keeps one I/O in flight per job")),
        "{:?}",
        out.notes
    );
}

/// Units as fio reads them: k = 1024, KiB = 1000 unless kb_base=1000, percentages, time suffixes,
/// hexadecimal, per-direction lists.
#[test]
fn units_are_fio_units() {
    let p = first(
        "[j]\nfilename=f\nrw=randread\nnorandommap\nbs=0x2000\nsize=8000KiB\ntime_based\nruntime=1500ms\n",
    );
    assert_eq!(p["block_size"].as_str(), Some("8KiB"));
    assert_eq!(p["span"].as_str(), Some("8000000B"));
    assert_eq!(p["duration"].as_str(), Some("1500ms"));
    let p = first("[global]\nkb_base=1000\n[j]\nfilename=f\nsize=16KiB\nbs=4KiB\n");
    assert_eq!(
        (p["span"].as_str(), p["block_size"].as_str()),
        (Some("16KiB"), Some("4KiB"))
    );
    let p = first("[j]\nfilename=f\nrw=randrw\nbs=8k,8k\nnorandommap\nsize=50%\n");
    assert_eq!(
        (p["block_size"].as_str(), p["span"].as_str()),
        (Some("8KiB"), Some("50%"))
    );
    let e = import_text("[j]\nfilename=f\nbs=1.5k\n", false).unwrap_err();
    assert_eq!(
        e,
        [
            "j.fio:3: bs=1.5k: `1.5k`: fio reads no fractions (it takes `1` and drops the rest); write it in a smaller unit"
        ]
    );
    let e = import_text("[j]\nfilename=f\nruntime=10sec\ntime_based\n", false).unwrap_err();
    assert_eq!(
        e[0],
        "j.fio:3: runtime=10sec: `10sec`: fio reads the unit `sec` as µs (its time units: us, ms, s, m, h, d)"
    );
}

/// fio's order: jobs of a file run together unless stonewalled; identical ones together are one phase's
/// workers; differing ones together are refused naming both; a later job file is stonewalled.
#[test]
fn stonewall_groups() {
    let text = "[global]\nfilename=f\nsize=8m\nrw=randread\nnorandommap\ntime_based\nruntime=1\n\
                [a]\nnumjobs=2\n[b]\n[c]\nstonewall\nrw=randwrite\n[d]\nnew_group\nrw=randwrite\n";
    let out = import_text(text, false).expect("imports");
    let (ps, target) = phases(&out.text);
    assert_eq!(ps.len(), 2);
    assert_eq!(
        (ps[0]["name"].as_str(), ps[0]["workers"].as_integer()),
        (Some("a"), Some(3))
    );
    assert_eq!(
        ps[0]["imported_from"].as_str(),
        Some("j.fio:8 [a] + j.fio:10 [b]")
    );
    assert_eq!(
        (ps[1]["name"].as_str(), ps[1]["workers"].as_integer()),
        (Some("c"), Some(2))
    );
    assert_eq!(target["path"].as_str(), Some("f"));
    let e = import_text(
        "[global]\nfilename=f\ntime_based\nruntime=1\n[a]\nbs=4k\n[b]\nbs=8k\n",
        false,
    )
    .unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(e[0].starts_with("j.fio:7: [b]: job b runs at the same time as job a (j.fio:5 [a]) on the same target, and they differ in block size"), "{e:?}");
    let out = import_text(
        "[global]\nfilename=f\ntime_based\nruntime=1\n[a]\nbs=4k\n[b]\nbs=8k\n",
        true,
    )
    .expect("lossy");
    assert_eq!(phases(&out.text).0.len(), 2);
    assert!(
        out.text.contains(
            "# approximated (--lossy): j.fio:7: [b]: job b runs at the same time as job a"
        ),
        "{}",
        out.text
    );
    // wait_for the one job before: the next phase; while another still runs: refused.
    let text = "[global]\nfilename=f\ntime_based\nruntime=1\n[w]\nrw=write\n[r]\nwait_for=w\n";
    assert_eq!(
        phases(&import_text(text, false).expect("imports").text)
            .0
            .len(),
        2
    );
    let e = import_text(
        "[global]\nfilename=f\ntime_based\nruntime=1\n[w]\n[x]\n[r]\nwait_for=w\n",
        false,
    )
    .unwrap_err();
    assert!(
        e[0].starts_with("j.fio:8: wait_for=w: r starts when w ends while x still runs"),
        "{e:?}"
    );
}

/// Identical jobs at once on several files are several targets; a job file after the first is
/// stonewalled.
#[test]
fn files_targets_and_job_files() {
    let text = "[global]\nsize=8m\ntime_based\nruntime=1\nrw=randread\nnorandommap\n[a]\nfilename=/tmp/a.img\n[b]\nfilename=/tmp/b.img\n";
    let out = import_text(text, false).expect("imports");
    let (ps, target) = phases(&out.text);
    assert_eq!(ps.len(), 1);
    assert_eq!(target["paths"].as_array().map(Vec::len), Some(2));
    let d = tempfile::tempdir().expect("tempdir");
    let a = d.path().join("a.fio");
    let b = d.path().join("b.fio");
    std::fs::write(&a, "[x]\nfilename=f\ntime_based\nruntime=1\n").expect("write");
    std::fs::write(&b, "[y]\nfilename=f\ntime_based\nruntime=1\nrw=write\n").expect("write");
    let out = import(&Source::Files(vec![a, b]), false, None, &env).expect("imports");
    assert_eq!(phases(&out.text).0.len(), 2);
}

/// The command line: options before the first --name are global, each --name a job.
#[test]
fn command_lines() {
    let args: Vec<String> = "--filename=f --direct=1 --ioengine=libaio --size=64m --time_based --runtime=2 --name=mix --rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --name=seq --stonewall --rw=read --bs 1m --output-format=json"
        .split(' ')
        .map(String::from)
        .collect();
    let out = import(&Source::Args(args), false, None, &env).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[0]["read_percent"].as_integer(), Some(70));
    assert_eq!(ps[0]["queue_depth"].as_integer(), Some(16));
    assert_eq!(ps[1]["block_size"].as_str(), Some("1MiB"));
    assert_eq!(
        ps[0]["imported_from"].as_str(),
        Some("fio command line: --name=mix (argument 7)")
    );
    assert!(
        out.notes.iter().any(|n| n.contains("--output-format=json")),
        "{:?}",
        out.notes
    );
    let bad: Vec<String> = vec!["--name=a".into(), "--ioengine=rdma".into()];
    let e = import(&Source::Args(bad), false, None, &env).unwrap_err();
    assert!(e[0].to_string().starts_with("fio command line, argument 2 `--ioengine=rdma`: ioengine=rdma: fio's rdma engine has no wkrun engine"), "{e:?}");
}

/// Each kind of refusal names the option and its line; --lossy drops it with a comment.
#[test]
fn refusals_name_option_and_line() {
    let base = "[j]\nfilename=f\nsize=8m\ntime_based\nruntime=1\n";
    let cases: &[(&str, &str)] = &[
        (
            "iodepth=8\nlatency_target=500",
            "j.fio:7: latency_target=500: wkrun searches a list of queue depths, each for latency_window",
        ),
        (
            "thinktime=10\nthinktime_iotime=1s",
            "j.fio:7: thinktime_iotime=1s: wkrun has no `thinktime_iotime`",
        ),
        (
            "ioengine=libaio\niodepth=8\nthinktime=1ms\nthinktime_blocks=4\nthinktime_blocks_type=complete",
            "j.fio:10: thinktime_blocks_type=complete: fio counts a burst's thinktime_blocks=4 I/Os as they complete, and with ioengine=libaio at iodepth=8 it issues more meanwhile, so its bursts are longer than wkrun's `think_every`, which counts them as it issues them: give thinktime_blocks_type=issue, which wkrun runs exactly (--lossy: counted at issue)",
        ),
        (
            "ioengine=io_uring\niodepth=2\nthinktime=1ms\nthinktime_blocks=2",
            "j.fio:8: thinktime_blocks_type=complete (fio's default): fio counts a burst's thinktime_blocks=2 I/Os as they complete, and with ioengine=io_uring at iodepth=2 it issues more meanwhile",
        ),
        (
            "end_fsync=1",
            "j.fio:6: end_fsync=1: wkrun issues no fsync yet",
        ),
        (
            "rw=randtrimwrite",
            "j.fio:6: rw=randtrimwrite: fio's rw=randtrimwrite trims each block and then writes that same block",
        ),
        (
            "fsync=2\nfdatasync=2",
            "j.fio:7: fdatasync=2: both fsync and fdatasync",
        ),
        ("rw=read:4k", "j.fio:6: rw=read:4k: fio's `:4k` skips"),
        (
            "random_distribution=zipf:1.2:0.25",
            "j.fio:6: random_distribution=zipf:1.2:0.25: distribution \"zipf:1.2:0.25\": one number after \"zipf:\" (wkrun has no fio centre",
        ),
        (
            "random_distribution=sequence:2,0,1",
            "j.fio:6: random_distribution=sequence:2,0,1: wkrun has no fixed sequence of blocks",
        ),
        (
            "ioengine=rdma",
            "j.fio:6: ioengine=rdma: fio's rdma engine has no wkrun engine",
        ),
        (
            "hipri",
            "j.fio:6: hipri: `hipri` is not imported: it is `polled = true`",
        ),
        (
            "cmdprio_percentage=10",
            "j.fio:6: cmdprio_percentage=10: `cmdprio_percentage` is an option of fio's libaio/io_uring engine",
        ),
        (
            "exitall_on_error",
            "j.fio:6: exitall_on_error: fio's `exitall_on_error` has no wkrun meaning (yet)",
        ),
        (
            "filename=a:b",
            "j.fio:6: filename=a:b: fio spreads one job's I/Os over these files",
        ),
        (
            "nrfiles=4",
            "j.fio:6: nrfiles=4: fio spreads one job's I/Os over 4 files",
        ),
        (
            "rw=randread\nbssplit=4k/50:8k/50",
            "j.fio:7: bssplit/bsrange without norandommap",
        ),
        (
            "rw=randread\nnorandommap\nba=8k",
            "j.fio:8: ba=8192: random offsets aligned to 8192 B",
        ),
        ("bsrange=4k-10k", "j.fio:6: bsrange=4096-10240"),
        (
            "rw=randread\nnorandommap\nbs=4k,8k\nrw=randrw",
            "j.fio:8: bs (per direction)",
        ),
        (
            "time_based=0",
            "j.fio:5: the byte bound (8MiB per job) beside runtime=1s without time_based: fio stops at whichever comes first",
        ),
        ("size=4z", "j.fio:6: size=4z: a count of zones"),
        (
            "numjobs=2\noffset_increment=1m",
            "j.fio:7: offset_increment: job N starts at offset + N × offset_increment",
        ),
    ];
    for (line, want) in cases {
        let text = format!("{base}{line}\n");
        let e = import_text(&text, false).unwrap_err();
        assert!(e.iter().any(|m| m.starts_with(want)), "{line}: {e:#?}");
        // A refusal that says what --lossy imports instead (`(--lossy: equal parts)`) is approximated by
        // it, not dropped (trial 20 F3).
        let approximated = e.iter().any(|m| m.contains("(--lossy: "));
        let (end, how) = match approximated {
            true => ("(with a comment in the spec)", "approximated"),
            false => ("(--lossy drops it, with a comment in the spec)", "dropped"),
        };
        assert!(e.iter().all(|m| m.ends_with(end)), "{e:#?}");
        let out = import_text(&text, true).unwrap_or_else(|e| panic!("{line} --lossy: {e:?}"));
        let comment = format!(
            "# {how} (--lossy): {}",
            &want[..want.find(": ").unwrap_or(0)]
        );
        assert!(
            out.text.contains(&comment),
            "{line}: no `{comment}` in\n{}",
            out.text
        );
    }
    // Refused rows with fio's neutral value ask for nothing: fsync=0, thinktime=0.
    assert!(import_text(&format!("{base}fsync=0\nthinktime=0\nsync=none\n"), false).is_ok());
}

/// fio's `thinktime_blocks_type=complete`, given or by default, is wkrun's count (read, `think_every` the
/// burst) with one I/O in flight: iodepth 1, a sync engine at any iodepth, or `thinktime_blocks=1`; and
/// `issue` at any depth. A value other than `complete` or `issue` is fio's error.
#[test]
fn think_complete_is_read_where_it_is_wkruns_count() {
    let base = "[j]\nfilename=f\nsize=8m\ntime_based\nruntime=1\nthinktime=1ms\n";
    for (extra, every) in [
        ("ioengine=libaio\nthinktime_blocks=4", "4"),
        (
            "ioengine=libaio\niodepth=1\nthinktime_blocks=4\nthinktime_blocks_type=complete",
            "4",
        ),
        (
            "ioengine=psync\niodepth=8\nthinktime_blocks=4\nthinktime_blocks_type=complete",
            "4",
        ),
        ("ioengine=sync\niodepth=8\nthinktime_blocks=4", "4"),
        (
            "ioengine=libaio\niodepth=8\nthinktime_blocks=1\nthinktime_blocks_type=complete",
            "1",
        ),
        ("ioengine=libaio\niodepth=8", "1"),
        (
            "ioengine=libaio\niodepth=8\nthinktime_blocks=4\nthinktime_blocks_type=issue",
            "4",
        ),
    ] {
        let out = import_text(&format!("{base}{extra}\n"), false)
            .unwrap_or_else(|e| panic!("{extra}: {e:?}"));
        let thinks: Vec<&str> = (out.text.lines())
            .filter(|l| l.starts_with("think"))
            .collect();
        let every = format!("think_every = {every}");
        let want: Vec<&str> = match every.as_str() {
            "think_every = 1" => vec!["think_time = \"1ms\""],
            e => vec!["think_time = \"1ms\"", e],
        };
        assert_eq!(thinks, want, "{extra}\n{}", out.text);
    }
    let e = import_text(&format!("{base}thinktime_blocks_type=both\n"), false).unwrap_err();
    assert_eq!(
        e,
        [
            "j.fio:7: thinktime_blocks_type=both: thinktime_blocks_type is complete or issue, not `both`"
        ]
    );
    // --lossy: counted at issue, with the comment.
    let job = format!("{base}ioengine=libaio\niodepth=8\nthinktime_blocks=4\n");
    let out = import_text(&job, true).expect("lossy");
    assert!(
        out.text
            .contains("# approximated (--lossy): j.fio:6: thinktime_blocks_type=complete (fio's default): fio counts a burst's thinktime_blocks=4 I/Os as they complete"),
        "{}",
        out.text
    );
    assert!(out.text.contains("think_every = 4"), "{}", out.text);
}

/// Input fio itself refuses, or that no spec can come from, is a problem even with --lossy.
#[test]
fn bad_input_is_refused_even_when_lossy() {
    let cases: &[(&str, &str)] = &[
        (
            "[j]\nfoo=1\n",
            "j.fio:2: unknown fio option `foo`: fio refuses it too",
        ),
        ("[j]\nbs=4q\n", "j.fio:2: bs=4q: `4q`: unknown unit `q`"),
        (
            "[j]\ndirect\n",
            "j.fio:2: direct: fio's `direct` needs a value",
        ),
        (
            "[j]\nrw=sideways\n",
            "j.fio:2: rw=sideways: `sideways` is not one of fio's rw values",
        ),
        (
            "[j]\nfilename=${NOPE}\n",
            "j.fio:2: ${NOPE}: the environment variable NOPE is not set",
        ),
        (
            "[j]\ntime_based\n",
            "j.fio:1: job j: time_based without runtime runs until fio is stopped",
        ),
        (
            "[global]\nbs=4k\n",
            "j.fio:1: no job: fio would run nothing",
        ),
        (
            "[j]\nwait_for=nobody\n",
            "j.fio:2: wait_for=nobody: no job named nobody comes before j",
        ),
        (
            "[j]\niodepth=0\n",
            "j.fio:2: iodepth=0: iodepth is at least 1",
        ),
        // Found by the attack of issue 24, round 2: named no line.
        (
            "[j]\nrw=randread\nbs=0\n",
            "j.fio:3: bs=0: a block size is at least 1 B",
        ),
        (
            "[j]\niodepth=4294967296\n",
            "j.fio:2: iodepth=4294967296: iodepth = 4294967296 is past fio's range (an unsigned int: at most 4294967295)",
        ),
        (
            "[j]\nnumjobs=4294967296\n",
            "j.fio:2: numjobs=4294967296: numjobs = 4294967296 is past fio's range (an unsigned int: at most 4294967295)",
        ),
        // Attack 28 F12: fio refuses an empty rate cap, also after one with a value.
        ("[j]\nrate=\n", "j.fio:2: rate=: no value"),
        ("[j]\nrate_iops=\n", "j.fio:2: rate_iops=: no value"),
        (
            "[j]\nrate_iops=100\nrate_iops=\n",
            "j.fio:3: rate_iops=: no value",
        ),
        (
            "[j]\nbssplit=4k/70:8k/70\n",
            "j.fio:2: bssplit=4k/70:8k/70: the percentages add up to 140, more than 100",
        ),
    ];
    for (text, want) in cases {
        for lossy in [false, true] {
            let e = import_text(text, lossy).unwrap_err();
            assert!(e.iter().any(|m| m.starts_with(want)), "{text}: {e:#?}");
        }
    }
}

/// wkrun's refusal of a key every job gave alike (written once in `[defaults]`) names each job's line,
/// not only the file: `bsrange=0-0` is a block size of 0, which the spec's rules refuse.
#[test]
fn a_refused_default_names_each_job() {
    let e = import_text(
        "[global]\nbsrange=0-0\n[a]\nrw=randread\n[b]\nstonewall\nrw=randread\n",
        false,
    )
    .unwrap_err();
    assert_eq!(
        e,
        [
            "j.fio:3: wkrun refuses the phase this job makes (its block_size): block_size is 0",
            "j.fio:5: wkrun refuses the phase this job makes (its block_size): block_size is 0"
        ]
    );
}

/// Repeated sections are jobs of their own; options without values are flags; comments anywhere.
#[test]
fn repeated_sections_flags_comments() {
    let text = "; top\n[global] # g\nfilename=f ; the file\n[j]\nrw=randread\nnorandommap\ntime_based\nruntime=1\n[j]\nstonewall\nrw=randread\nnorandommap\ntime_based\nruntime=2\n";
    let (ps, _) = phases(&import_text(text, false).expect("imports").text);
    let names: Vec<&str> = ps.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["j", "j-2"]);
    assert_eq!(ps[1]["duration"].as_str(), Some("2s"));
}

/// An include adds its options where it stands; an include loop is refused.
#[test]
fn includes() {
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::write(d.path().join("common.fio"), "rw=randwrite\nbs=16k\n").expect("write");
    let p = d.path().join("j.fio");
    std::fs::write(
        &p,
        "[j]\nfilename=f\ninclude common.fio\ntime_based\nruntime=1\n",
    )
    .expect("write");
    let out = import(&Source::Files(vec![p.clone()]), false, None, &env).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(
        (
            ps[0]["read_percent"].as_integer(),
            ps[0]["block_size"].as_str()
        ),
        (Some(0), Some("16KiB"))
    );
    std::fs::write(d.path().join("common.fio"), "include j2.fio\n").expect("write");
    std::fs::write(d.path().join("j2.fio"), "include common.fio\n").expect("write");
    let e = import(&Source::Files(vec![p]), true, None, &env).unwrap_err();
    assert!(e[0].to_string().contains("an include loop"), "{e:?}");
}

/// runtime without time_based under --lossy: the comment and the dropped line say that the time is kept
/// and the byte bound dropped, and the phase is bounded by the time alone.
#[test]
fn lossy_runtime_without_time_based_keeps_the_time() {
    let text = "[j]\nfilename=f\nrw=randread\nnorandommap\nsize=8m\nruntime=3\n";
    let out = import_text(text, true).expect("imports with --lossy");
    let why = "the byte bound (8MiB per job) beside runtime=3s without time_based: fio stops at whichever comes first, runtime or the job's bytes; a wkrun phase has one bound: --lossy keeps the time (duration = \"3s\": the phase runs all of it, even where fio would stop sooner, after 8MiB per job) and drops the byte bound; to choose, add time_based to keep the time, or drop runtime to keep the bytes";
    assert_eq!(out.dropped, [format!("j.fio:6: {why}")]);
    assert!(
        out.text
            .contains(&format!("# dropped (--lossy): j.fio:6: {why}\n")),
        "{}",
        out.text
    );
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["duration"].as_str(), Some("3s"));
    assert_eq!(ps[0].get("size"), None);
    assert_eq!(ps[0]["span"].as_str(), Some("8MiB"));
}

/// fio's ss_ramp lies within its runtime and is counted: the phase ramps for it and runs the runtime less
/// it, so it lasts as long as fio's job and is judged from the same moment (trial 14: a 10 s job with
/// ss_ramp=5 imported as 5 s of ramp then 10 s, 15 s in all); an ss_ramp not shorter than the runtime
/// leaves fio nothing to judge and is refused. Both are said at the ss_ramp line (line 11), not at the
/// criterion's (`ss=`, line 9), as they were; on fio's command line, at the `--ss_ramp` argument.
#[test]
fn ss_ramp_is_a_ramp_within_the_runtime() {
    let job = "[rr]\nfilename=f\nrw=randread\nnorandommap\nsize=8m\nbs=4k\ntime_based\nruntime=10\nss=iops_slope:0.3%\nss_dur=4\nss_ramp=3\n";
    let out = import_text(job, false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["ramp"].as_str(), Some("3s"));
    assert_eq!(ps[0]["duration"].as_str(), Some("7s"));
    assert_eq!(ps[0]["until"].as_str(), Some("steady"));
    let why = "fio judges steady state after ss_ramp, within its runtime, and counts its I/Os; wkrun's ramp comes first and is left out of the phase's totals, so the phase is ramp = \"3s\" then duration = \"7s\" (the runtime less ss_ramp): as long as fio's job, judged from the same moment, its totals without the ramp's I/Os";
    assert!(
        out.notes
            .iter()
            .any(|n| n == &format!("j.fio:11: ss_ramp=3s: {why}")),
        "{:?}",
        out.notes
    );
    let long = job.replace("ss_ramp=3", "ss_ramp=10");
    let err = import_text(&long, false).expect_err("refused");
    let refusal = "ss_ramp=10s: ss_ramp is not shorter than runtime: fio never judges steady state (--lossy: no steady-state rule)";
    assert!(
        err.iter()
            .any(|e| e.starts_with(&format!("j.fio:11: {refusal}"))),
        "{err:?}"
    );
    let args: Vec<String> = ["--name=rr", "--filename=f", "--rw=randread", "--time_based"]
        .into_iter()
        .chain(["--runtime=10", "--ss=iops:5%", "--ss_dur=4", "--ss_ramp=10"])
        .map(String::from)
        .collect();
    let err = import(&Source::Args(args), false, Some("t"), &env).expect_err("refused");
    let err: Vec<String> = err.iter().map(ToString::to_string).collect();
    assert!(
        err.iter().any(|e| e.starts_with(&format!(
            "fio command line, argument 8 `--ss_ramp=10`: {refusal}"
        ))),
        "{err:?}"
    );
}

/// The spec's name does not depend on where it is written: a job file's stem, a command line's first
/// job's name.
#[test]
fn the_spec_is_named_after_the_job_file_or_the_first_job() {
    let name = |out: &super::Imported| {
        let doc: toml::Table = out.text.parse().expect("TOML");
        doc["spec"]["name"].as_str().map(String::from)
    };
    let d = tempfile::tempdir().expect("tempdir");
    let p = d.path().join("nightly.fio");
    std::fs::write(&p, "[mixed]\nfilename=f\ntime_based\nruntime=1\n").expect("write");
    let out = import(&Source::Files(vec![p]), false, None, &env).expect("imports");
    assert_eq!(name(&out).as_deref(), Some("nightly"));
    let args: Vec<String> = [
        "--filename=f",
        "--time_based",
        "--runtime=1",
        "--name=mixed",
        "--name=seq",
        "--stonewall",
        "--rw=read",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = import(&Source::Args(args), false, None, &env).expect("imports");
    assert_eq!(name(&out).as_deref(), Some("mixed"));
}

/// A value with a line break (a file name from a command line) stays one TOML string, and the comments
/// that quote it show the break escaped: the spec imports, its target the name as given.
#[test]
fn a_line_break_in_an_argument_stays_in_its_string() {
    let args: Vec<String> = [
        "--name=a",
        "--rw=randread",
        "--filename=x\ny",
        "--runtime=1",
        "--time_based",
    ]
    .map(String::from)
    .to_vec();
    let i = import(&Source::Args(args), false, Some("t"), &env).expect("imports");
    let (_, target) = phases(&i.text);
    assert_eq!(target["path"].as_str(), Some("x\ny"));
    assert!(
        i.text.starts_with("# Imported from the fio command line `fio --name=a --rw=randread --filename=x\\ny --runtime=1 --time_based` by"),
        "{}",
        i.text
    );
}

/// fio's `random_distribution` is `distribution`: its normal deviation, a percentage, becomes a fraction
/// (with a note); a skewed law turns fio's random map off, as fio does (no `coverage = "full"`).
#[test]
fn random_distribution_maps_to_distribution() {
    let text = "[j]\nfilename=f\nrw=randwrite\nsize=16m\ntime_based\nruntime=2\nrandom_distribution=normal:10\n";
    let out = import_text(text, false).unwrap_or_else(|e| panic!("{e:#?}"));
    let p = phases(&out.text).0.remove(0);
    assert_eq!(p["distribution"].as_str(), Some("normal:0.1"));
    assert!(p.get("coverage").is_none(), "{p:?}");
    assert!(
        out.notes.iter().any(|n| n.contains("normal:N/100")),
        "{:?}",
        out.notes
    );
    let p = first(
        "[j]\nfilename=f\nrw=randread\nsize=16m\ntime_based\nruntime=2\nrandom_distribution=zoned_abs:60/2m:40/8m\n",
    );
    assert_eq!(
        p["distribution"].as_str(),
        Some("zoned_abs:60/2MiB:40/8MiB")
    );
    let p = first(
        "[j]\nfilename=f\nrw=randread\nsize=16m\ntime_based\nruntime=2\nrandom_distribution=random\n",
    );
    assert_eq!(p.get("distribution"), None);
    assert_eq!(p["coverage"].as_str(), Some("full"));
}

/// fio's zone list with a missing percentage: that zone takes what the others leave (fio's rand-zones.fio).
#[test]
fn a_zone_without_its_percentage_takes_the_rest() {
    let p = first(
        "[j]\nfilename=f\nrw=randread\nsize=16m\ntime_based\nruntime=2\nrandom_distribution=zoned:50/5:30/15:20/\n",
    );
    assert_eq!(p["distribution"].as_str(), Some("zoned:50/5:30/15:20/80"));
}

/// fio's trim workloads are wkrun's trims: `rw=randtrim` is random trims only, `rw=trim` sequential ones, and
/// `sync=1` a write flag.
#[test]
fn trims_and_syncs_import_as_their_keys() {
    let base = "[j]\nfilename=f\nsize=8m\ntime_based\nruntime=1\n";
    for (rw, pattern) in [("randtrim", "random"), ("trim", "sequential")] {
        let out = import_text(&format!("{base}rw={rw}\nrwmixread=70\n"), false).expect("imports");
        let (ps, _) = phases(&out.text);
        assert_eq!(ps[0]["trim_percent"].as_integer(), Some(100), "{rw}");
        assert_eq!(ps[0]["read_percent"].as_integer(), Some(0), "{rw}");
        assert_eq!(ps[0]["pattern"].as_str(), Some(pattern), "{rw}");
    }
    let out = import_text(&format!("{base}rw=write\nsync=1\n"), false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["sync"].as_str(), Some("sync"));
    assert!(ps[0].get("fsync").is_none());
}

/// Trial 24b item 2: fio caps each direction and issues whichever is behind, so `rwmixread=70` with
/// `rate_iops=2000` ran about 50/50 (1,971 reads/s, 1,995 writes/s on 4 jobs); the import takes the share
/// the caps give, says so, and keeps read_percent where the caps agree with it or only one is capped.
#[test]
fn a_mix_capped_in_both_directions_follows_the_caps_as_in_fio() {
    let base = "[j]\nfilename=f\nsize=8m\ntime_based\nruntime=1\nrw=randrw\nnumjobs=4\n";
    let out =
        import_text(&format!("{base}rwmixread=70\nrate_iops=2000\n"), false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["read_percent"].as_integer(), Some(50));
    assert_eq!(
        ps[0]["rate_iops"].to_string(),
        "{ read = 8000, write = 8000 }"
    );
    let note = out
        .notes
        .iter()
        .find(|n| n.contains("rate_iops=2000 with rwmixread=70"))
        .unwrap_or_else(|| panic!("{:?}", out.notes));
    assert!(
        note.ends_with("fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps (2000:2000), not rwmixread, when the device keeps up; wkrun keeps read_percent exact, and a cap that mix cannot reach would fall behind all run, so read_percent = 50, the share fio realises"),
        "{note}"
    );
    for (opts, read) in [
        ("rwmixread=70\nrate_iops=700,300\n", 70),
        ("rwmixread=70\nrate_iops=,500\n", 70),
        ("rwmixread=70\nrate_iops=3000,1000\n", 75),
    ] {
        let out = import_text(&format!("{base}{opts}"), false).expect("imports");
        let (ps, _) = phases(&out.text);
        assert_eq!(ps[0]["read_percent"].as_integer(), Some(read), "{opts}");
        let noted = out
            .notes
            .iter()
            .any(|n| n.contains("issues whichever is behind"));
        assert_eq!(noted, read != 70, "{opts}: {:?}", out.notes);
    }
    // One direction capped (attack 24c, finding 20): fio runs the other at the device's speed; wkrun's exact
    // mix holds it to the cap's share, 500 x 70 / 30 = 1166 reads/s per job: said, read_percent kept.
    let out =
        import_text(&format!("{base}rwmixread=70\nrate_iops=,500\n"), false).expect("imports");
    let note = out
        .notes
        .iter()
        .find(|n| n.contains("rate_iops=,500 with rwmixread=70"))
        .unwrap_or_else(|| panic!("{:?}", out.notes));
    assert!(
        note.ends_with("fio caps writes only and issues reads whenever writes are ahead of their cap, so its reads run at the device's speed and its mix is not rwmixread; wkrun keeps read_percent exact, so its reads are held to 1166/s per job by the cap on writes"),
        "{note}"
    );
    let out = import_text(
        &format!("{base}rwmixread=80\nrate_iops=400\nrate_iops=400,\n"),
        false,
    )
    .expect("imports");
    assert!(
        out.notes
            .iter()
            .any(|n| n.ends_with("so its writes are held to 100/s per job by the cap on reads")),
        "{:?}",
        out.notes
    );
}

/// Trial 19 item 1: fio's rate_iops with a block-size mix caps bytes at rate_iops × the smallest size, so
/// the job runs rate_iops × smallest / mean I/Os per second (the trial's 500 with 4k/50:64k/50 ran 61.7
/// I/Os/s, 2.05 MB/s = 500 × 4096 B/s, where the import capped at 500); the import caps at that average,
/// rounded, and says so at the rate_iops line.
#[test]
fn rate_iops_with_a_block_size_mix_is_the_rate_fio_gives() {
    let job = "[rt]\nfilename=f\nsize=256m\nrw=randread\nbssplit=4k/50:64k/50\nnorandommap\nrate_iops=500\nioengine=libaio\ndirect=1\ntime_based\nruntime=4\n";
    let out = import_text(job, false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["rate_iops"].to_string(), "{ read = 59 }");
    let why = |mean: &str, said: &str| {
        format!(
            "fio paces a job's bytes per second (rate_iops × the smallest size, 4096 B) and issues an I/O when the bytes before it are due, so at the mix's mean size ({mean} B an I/O) it issues those bytes / {mean} I/Os per second per job on average: {said}; wkrun's rate_iops counts I/Os of any size, so it caps each job at that average (its I/Os evenly spaced, where fio's gaps follow each I/O's size)"
        )
    };
    let note = why(
        "34816",
        "reads 500 × 4096 / 34816 = 58.82, rounded to 59 (+0.3 %)",
    );
    assert!(
        out.notes
            .contains(&format!("j.fio:7: rate_iops=500 with bssplit: {note}")),
        "{:?}",
        out.notes
    );
    // A write job's note quotes its option as written (trial 20 F5: `rate_iops=,500` was said).
    let writes = job.replace("rw=randread", "rw=randwrite");
    let out = import_text(&writes, false).expect("imports");
    assert!(
        out.notes
            .iter()
            .any(|n| n.starts_with("j.fio:7: rate_iops=500 with bssplit: ")),
        "{:?}",
        out.notes
    );
    // Mixed, two jobs: fio ran 288 + 280 I/Os/s per job; 2000 × 4096 / 28672 = 285.71 each way, so the
    // phase's caps are 2 × 285.71 = 571.43, rounded once (trial 27 M3), and the caps' share (50) is the read
    // share.
    let mixed = "[m]\nfilename=f\nsize=64m\nrw=randrw\nrwmixread=70\nbssplit=4k/60:64k/40\nnorandommap\nrate_iops=2000\nnumjobs=2\ntime_based\nruntime=2\n";
    let out = import_text(mixed, false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(
        ps[0]["rate_iops"].to_string(),
        "{ read = 571, write = 571 }"
    );
    assert_eq!(ps[0]["read_percent"].as_integer(), Some(50));
    let said = "reads 2 jobs × 2000 × 4096 / 28672 = 571.43, rounded to 571 (-0.1 %), writes 2 jobs × 2000 × 4096 / 28672 = 571.43, rounded to 571 (-0.1 %)";
    assert!(
        out.notes.contains(&format!(
            "j.fio:8: rate_iops=2000 with bssplit: {}",
            why("28672", said)
        )),
        "{:?}",
        out.notes
    );
    assert!(
        out.notes
            .iter()
            .any(|n| n.starts_with("j.fio:8: rate_iops=2000 with rwmixread=70: ")),
        "{:?}",
        out.notes
    );
    // bsrange=4k-16k (4, 8, 12 and 16 KiB alike, mean 10,240 B): 1000 × 4096 / 10240 = 400 exactly.
    let range = job
        .replace("bssplit=4k/50:64k/50", "bsrange=4k-16k")
        .replace("rate_iops=500", "rate_iops=1000");
    let out = import_text(&range, false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["rate_iops"].to_string(), "{ read = 400 }");
    let note = why("10240", "reads 1000 × 4096 / 10240 = 400");
    assert!(
        out.notes
            .contains(&format!("j.fio:7: rate_iops=1000 with bsrange: {note}")),
        "{:?}",
        out.notes
    );
    // 10 × 4096 / 34816 = 1.18: rounding to 1 is 15 % off, refused; --lossy caps at 1.
    let low = job.replace("rate_iops=500", "rate_iops=10");
    let err = import_text(&low, false).expect_err("refused");
    let refusal = format!(
        "j.fio:7: rate_iops=10 with bssplit: {}; rounding moves a cap by more than 5 % (--lossy: the rounded caps)",
        why(
            "34816",
            "reads 10 × 4096 / 34816 = 1.18, rounded to 1 (-15.0 %)"
        )
    );
    assert!(err.iter().any(|e| e.starts_with(&refusal)), "{err:?}");
    let out = import_text(&low, true).expect("imports with --lossy");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0]["rate_iops"].to_string(), "{ read = 1 }");
    // Said approximated, not dropped (trial 20 F3: "dropped" beside a cap kept, rounded).
    assert!(out.dropped.is_empty(), "{:?}", out.dropped);
    assert_eq!(out.approximated.len(), 1, "{:?}", out.approximated);
    assert!(
        out.text
            .contains("# approximated (--lossy): j.fio:7: rate_iops=10 with bssplit: "),
        "{}",
        out.text
    );
}

/// Trial 19 item 2: ramp_time=0 is fio's default, no ramp, as thinktime=0 is no think time: imported as no
/// ramp (it was refused, "ramp is 0", at the job's [section] line), beside ss_ramp too (which was refused as
/// "ss_ramp with ramp_time"), and over a [global] ramp_time.
#[test]
fn ramp_time_zero_is_no_ramp() {
    let out = import_text(&format!("{BASE}ramp_time=0\n"), false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0].get("ramp"), None);
    let global = format!("[global]\nramp_time=5\n{BASE}ramp_time=0\n");
    let (ps, _) = phases(&import_text(&global, false).expect("imports").text);
    assert_eq!(ps[0].get("ramp"), None);
    let steady = "[rr]\nfilename=f\nrw=randread\nnorandommap\nsize=8m\nbs=4k\ntime_based\nruntime=10\nramp_time=0\nss=iops_slope:0.3%\nss_dur=4\nss_ramp=3\n";
    let (ps, _) = phases(&import_text(steady, false).expect("imports").text);
    assert_eq!(ps[0]["ramp"].as_str(), Some("3s"));
    assert_eq!(ps[0]["duration"].as_str(), Some("7s"));
    let args: Vec<String> = [
        "--name=b",
        "--rw=randwrite",
        "--bs=4k",
        "--ramp_time=0",
        "--runtime=10",
        "--time_based",
        "--filename=x.img",
        "--size=1g",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let out = import(&Source::Args(args), false, Some("t"), &env).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(ps[0].get("ramp"), None);
    assert_eq!(ps[0]["duration"].as_str(), Some("10s"));
}

/// fio's `rate=` (bytes per second per job) is paced as `rate_iops` × the smallest size is: evenly, an I/O
/// when the bytes before it are due, so it gives rate / mean size I/Os per second (exact for one size, on
/// average for a mix); with Poisson arrivals ⌊rate / smallest⌋ whatever the sizes. It was imported only
/// as a whole number of I/Os of one size (a mix refused, `--lossy` dropping the cap).
#[test]
fn rate_in_bytes_is_the_rate_fio_gives() {
    let job = |bs: &str, rate: &str| {
        format!(
            "[rt]\nfilename=f\nsize=256m\nrw=randread\n{bs}\nnorandommap\n{rate}\nioengine=libaio\ndirect=1\ntime_based\nruntime=4\n"
        )
    };
    let cap = |text: &str, lossy: bool| {
        let out = import_text(text, lossy).expect("imports");
        let rated: Vec<String> = out
            .notes
            .iter()
            .filter(|n| n.contains("rate"))
            .cloned()
            .collect();
        (phases(&out.text).0[0]["rate_iops"].to_string(), rated)
    };
    let why = |basis: &str, mean: &str, said: &str| {
        format!(
            "fio paces a job's bytes per second ({basis}) and issues an I/O when the bytes before it are due, so at the mix's mean size ({mean} B an I/O) it issues those bytes / {mean} I/Os per second per job on average: {said}; wkrun's rate_iops counts I/Os of any size, so it caps each job at that average (its I/Os evenly spaced, where fio's gaps follow each I/O's size)"
        )
    };
    // One size: 1 MiB/s of 4 KiB is 256 I/Os/s exactly, nothing said (beside rate_iops, fio refuses it:
    // rate_with_rate_iops_is_refused_as_fio_refuses_it).
    let none = Vec::<String>::new();
    assert_eq!(
        cap(&job("bs=4k", "rate=1m"), false),
        ("{ read = 256 }".into(), none.clone())
    );
    // A mix: 1,048,576 / 34,816 = 30.12 I/Os/s on average, capped at 30 and said.
    let (c, notes) = cap(&job("bssplit=4k/50:64k/50", "rate=1m"), false);
    assert_eq!(c, "{ read = 30 }");
    let said = "reads 1048576 / 34816 = 30.12, rounded to 30 (-0.4 %)";
    assert_eq!(
        notes,
        [format!(
            "j.fio:7: rate=1m with bssplit: {}",
            why("rate", "34816", said)
        )]
    );
    // bsrange=4k-16k (mean 10,240 B): 8 MiB/s is 819.2 I/Os/s.
    let (c, notes) = cap(&job("bsrange=4k-16k", "rate=8m"), false);
    assert_eq!(c, "{ read = 819 }");
    let said = "reads 8388608 / 10240 = 819.20, rounded to 819 (-0.0 %)";
    assert_eq!(
        notes,
        [format!(
            "j.fio:7: rate=8m with bsrange: {}",
            why("rate", "10240", said)
        )]
    );
    // Per direction, mixed: 10m,5m of 4 KiB is 2560 reads/s and 1280 writes/s, so fio's mix is 67:33.
    let rw = job("bs=4k", "rate=10m,5m").replace("rw=randread", "rw=randrw\nrwmixread=50");
    let out = import_text(&rw, false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(
        ps[0]["rate_iops"].to_string(),
        "{ read = 2560, write = 1280 }"
    );
    assert_eq!(ps[0]["read_percent"].as_integer(), Some(67));
    assert!(
        out.notes.iter().any(
            |n| n.starts_with("j.fio:8: rate=10m,5m with rwmixread=50: ")
                && n.contains("its mix follows the caps (2560:1280)")
        ),
        "{:?}",
        out.notes
    );
    // 1,000,000 B/s of 4 KiB is 244.14 I/Os/s: no whole number, refused; --lossy rounds.
    let odd = job("bs=4k", "rate=1000000");
    let err = import_text(&odd, false).expect_err("refused");
    assert!(err.iter().any(|e| e.starts_with("j.fio:7: rate=1000000: fio paces a job's bytes per second and issues a 4096 B I/O when the bytes before it are due, so it issues rate / 4096 I/Os per second per job: reads 1000000 / 4096 = 244.14, rounded to 244 (-0.1 %); wkrun's rate_iops is a whole number of I/Os per second, at least 1 (--lossy: rounded)")), "{err:?}");
    assert_eq!(cap(&odd, true).0, "{ read = 244 }");
    // 40 KiB/s of the mix is 1.18 I/Os/s: rounding to 1 is 15 % off, refused; --lossy caps at 1.
    let low = job("bssplit=4k/50:64k/50", "rate=40k");
    let err = import_text(&low, false).expect_err("refused");
    let said = "reads 40960 / 34816 = 1.18, rounded to 1 (-15.0 %)";
    let refusal = format!(
        "j.fio:7: rate=40k with bssplit: {}; rounding moves a cap by more than 5 % (--lossy: the rounded caps)",
        why("rate", "34816", said)
    );
    assert!(err.iter().any(|e| e.starts_with(&refusal)), "{err:?}");
    assert_eq!(cap(&low, true).0, "{ read = 1 }");
}

/// fio's Poisson arrivals draw gaps at ⌊bytes per second / smallest size⌋ I/Os per second whatever each
/// I/O's size: `rate_iops=500` with 4k/50:64k/50 ran 466 I/Os/s in 2 s (the import capped at 59), and
/// `rate=16m` with it 4046 (16 MiB / 4 KiB = 4096, not 481.88).
#[test]
fn poisson_rates_count_ios_whatever_their_size() {
    let job = |rate: &str| {
        format!(
            "[p]\nfilename=f\nsize=256m\nrw=randread\nbssplit=4k/50:64k/50\nnorandommap\n{rate}\nrate_process=poisson\ntime_based\nruntime=2\n"
        )
    };
    let out = import_text(&job("rate_iops=500"), false).expect("imports");
    assert_eq!(
        phases(&out.text).0[0]["rate_iops"].to_string(),
        "{ read = 500 }"
    );
    assert!(
        !out.notes.iter().any(|n| n.contains("rate_iops=500")),
        "{:?}",
        out.notes
    );
    let out = import_text(&job("rate=16m"), false).expect("imports");
    assert_eq!(
        phases(&out.text).0[0]["rate_iops"].to_string(),
        "{ read = 4096 }"
    );
    let note = "j.fio:7: rate=16m with rate_process=poisson: with Poisson arrivals fio draws its gaps at ⌊rate / the smallest block size (4096 B)⌋ I/Os per second per job whatever each I/O's size: reads ⌊16777216 / 4096⌋ = 4096, so its bytes per second are those I/Os × the mix's mean size (34816 B), not rate; wkrun's rate_iops is that rate";
    assert!(out.notes.contains(&note.to_string()), "{:?}", out.notes);
    // Below one I/O per second fio divides by zero: refused.
    let err = import_text(&job("rate=2k"), false).expect_err("refused");
    assert!(
        err.iter().any(
            |e| e.starts_with("j.fio:7: rate=2k with rate_process=poisson: ")
                && e.contains("reads ⌊2048 / 4096⌋ = 0, raised to 1, so")
                && e.contains("; below 1 I/O per second, fio divides by zero (--lossy: 1)")
        ),
        "{err:?}"
    );
}

/// `rate_min` (fio ends a job whose bandwidth falls below it) has no wkrun meaning: refused, named.
#[test]
fn rate_min_is_refused() {
    let err = import_text(&format!("{BASE}rate_min=1m\n"), false).expect_err("refused");
    assert!(
        err.iter()
            .any(|e| e.contains("rate_min=1m: wkrun has no `rate_min`")),
        "{err:?}"
    );
}

/// fio's `sqthread_poll` (a kernel thread polls io_uring's submission queue) is `sq_poll = true` on
/// io_uring, set to 1 or given bare, in a job file or on a command line; 0 (fio's default) is no key. On
/// another engine it is refused saying it is io_uring's; `sqthread_poll_cpu` is refused beside it (wkrun
/// does not pin the thread) and noted without it (fio then ignores it).
#[test]
fn sqthread_poll_is_sq_poll_on_io_uring() {
    let base = "[j]\nfilename=f\nsize=8m\ntime_based\nruntime=1\nrw=randread\niodepth=8\n";
    for line in ["sqthread_poll=1", "sqthread_poll"] {
        let p = first(&format!("{base}ioengine=io_uring\n{line}\n"));
        assert_eq!(
            p.get("sq_poll"),
            Some(&toml::Value::Boolean(true)),
            "{line}"
        );
        assert_eq!(p["engine"].as_str(), Some("io_uring"), "{line}");
        assert_eq!(p["queue_depth"].as_integer(), Some(8), "{line}");
    }
    let p = first(&format!("{base}ioengine=io_uring\nsqthread_poll=0\n"));
    assert_eq!(p.get("sq_poll"), None);
    let args: Vec<String> = [
        "--name=j",
        "--filename=f",
        "--size=8m",
        "--rw=randread",
        "--ioengine=io_uring",
        "--sqthread_poll",
    ]
    .map(String::from)
    .to_vec();
    let out = import(&Source::Args(args), false, None, &env).expect("imports");
    let p = phases(&out.text).0.remove(0);
    assert_eq!(p.get("sq_poll"), Some(&toml::Value::Boolean(true)));
    for (engine, line) in [("ioengine=libaio\n", 9), ("", 8)] {
        let text = format!("{base}{engine}sqthread_poll=1\n");
        let e = import_text(&text, false).unwrap_err();
        let named = match engine {
            "" => "psync",
            _ => "libaio",
        };
        assert_eq!(
            e,
            [format!(
                "j.fio:{line}: sqthread_poll=1: sqthread_poll applies only to fio's io_uring engine (a kernel thread polling its submission queue), not to ioengine={named}: wkrun's sq_poll = true needs engine = \"io_uring\" (--lossy drops it, with a comment in the spec)"
            )]
        );
    }
    let text = format!("{base}ioengine=io_uring\nsqthread_poll=1\nsqthread_poll_cpu=1\n");
    assert_eq!(
        import_text(&text, false).unwrap_err(),
        [
            "j.fio:10: sqthread_poll_cpu=1: wkrun has no `sqthread_poll_cpu`: its sq_poll thread runs on whichever CPU the kernel picks (fio pins it there with IORING_SETUP_SQ_AFF) (--lossy drops it, with a comment in the spec)"
        ]
    );
    let out = import_text(&text, true).expect("--lossy imports");
    let p = phases(&out.text).0.remove(0);
    assert_eq!(p.get("sq_poll"), Some(&toml::Value::Boolean(true)));
    assert_eq!(out.dropped.len(), 1, "{:?}", out.dropped);
    let out = import_text(
        &format!("{base}ioengine=io_uring\nsqthread_poll_cpu=1\n"),
        false,
    )
    .expect("imports");
    assert_eq!(phases(&out.text).0[0].get("sq_poll"), None);
    let cpu: Vec<&String> = out
        .notes
        .iter()
        .filter(|n| n.contains("sqthread_poll"))
        .collect();
    assert_eq!(
        cpu,
        [
            "j.fio:9: sqthread_poll_cpu=1: fio pins its submission polling thread only with sqthread_poll, which this job does not set: nothing to import"
        ]
    );
}

/// A cap on a job of trims only caps its trims (fio 3.33, `rw=randtrim`: `rate_iops=100` 100.3 trims/s,
/// `rate=1m` 255.9, `100,,300` 299.85): wkrun's total cap, which paces trims (attack 27 F1 had it refused).
/// The part that caps trims is the third, else the last written (`100,200`: 200; `100,` none). `wkrun export
/// fio` writes a total of 500 over 2 workers as `rate_iops=0,0,250` per job: that imports back as 500. A
/// byte rate that is no whole number of trims per second is refused as a read's or write's is.
#[test]
fn a_cap_on_a_trim_job_is_its_total_cap() {
    let job = |rate: &str| {
        format!("[t]\nfilename=f\nsize=64m\nrw=randtrim\nbs=4k\n{rate}\ntime_based\nruntime=3\n")
    };
    for (rate, cap) in [
        ("rate_iops=100", "100"),
        ("rate=1m", "256"),
        ("rate_iops=100,200", "200"),
        ("rate_iops=,200", "200"),
        ("rate_iops=,,100", "100"),
        ("rate_iops=100,,300", "300"),
        ("rate_iops=0,0,250\nnumjobs=2", "500"),
        ("rate=1m,,2m", "512"),
    ] {
        let out = import_text(&job(rate), false).unwrap_or_else(|e| panic!("{rate}: {e:?}"));
        let (ps, _) = phases(&out.text);
        assert_eq!(
            (
                ps[0]["rate_iops"].to_string(),
                ps[0]["trim_percent"].as_integer()
            ),
            (cap.to_string(), Some(100)),
            "{rate}"
        );
        assert_eq!(
            out.notes.iter().filter(|n| n.contains("rate")).count(),
            0,
            "{rate}: {:?}",
            out.notes
        );
    }
    // No cap on trims: imported, no cap.
    for rate in ["rate_iops=100,", "rate_iops=100,0"] {
        let (ps, _) = phases(&import_text(&job(rate), false).expect(rate).text);
        assert_eq!(ps[0].get("rate_iops"), None, "{rate}");
        assert_eq!(ps[0]["trim_percent"].as_integer(), Some(100));
    }
    let err = import_text(&job("rate=1000000"), false).expect_err("refused");
    assert_eq!(
        err,
        vec![
            "j.fio:6: rate=1000000: fio paces a job's bytes per second and issues a 4096 B I/O when the bytes before it are due, so it issues rate / 4096 I/Os per second per job: trims 1000000 / 4096 = 244.14, rounded to 244 (-0.1 %); wkrun's rate_iops is a whole number of I/Os per second, at least 1 (--lossy: rounded) (with a comment in the spec)"
        ]
    );
    // A read job's rate_iops=100 caps its reads alone.
    let read = job("rate_iops=100").replace("randtrim", "randread");
    assert_eq!(first(&read)["rate_iops"].to_string(), "{ read = 100 }");
}

/// Attack 28 F9: a cap's part on trims on a job that does not trim (`rw=randrw`, `rate_iops=100,100,50`):
/// fio ignores it, so the caps on reads and writes are read, with a note; the import refused the cap.
#[test]
fn a_cap_on_trims_of_a_job_without_trims_is_ignored_with_a_note() {
    let job = |rate: &str| {
        format!("[t]\nfilename=f\nsize=64m\nrw=randrw\nbs=4k\n{rate}\ntime_based\nruntime=3\n")
    };
    let out = import_text(&job("rate_iops=100,100,50"), false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(
        ps[0]["rate_iops"].to_string(),
        "{ read = 100, write = 100 }"
    );
    assert_eq!(
        out.notes
            .iter()
            .filter(|n| n.contains("rate_iops="))
            .collect::<Vec<_>>(),
        [
            "j.fio:6: rate_iops=100,100,50: fio applies the value's third part to trims only, and this job does not trim: fio ignores it, as the import does (the value's caps on reads and writes are read)"
        ]
    );
    // Without a part of its own (one value for every direction), nothing to say.
    let out = import_text(&job("rate_iops=100"), false).expect("imports");
    assert_eq!(
        out.notes
            .iter()
            .filter(|n| n.contains("third part"))
            .count(),
        0
    );
}

/// Attack 27 F4: `rw=randrw` with `rwmixread=100` does reads only (fio 3.33 with `rate_iops=100`: 100.3
/// reads/s, no write), with `rwmixread=0` writes only; the import capped both directions and took the caps'
/// 50/50 as the read share. Now, as fio's JSON reader does: the directions done, capped, and no share note.
#[test]
fn a_mix_of_one_direction_caps_that_direction() {
    let job = |mix: u64| {
        format!(
            "[m]\nfilename=f\nsize=64m\nbs=4k\nrw=randrw\nrwmixread={mix}\nrate_iops=100\ntime_based\nruntime=3\n"
        )
    };
    for (mix, read, cap) in [
        (100, 100, "{ read = 100 }"),
        (0, 0, "{ write = 100 }"),
        (1, 50, "{ read = 100, write = 100 }"),
        (99, 50, "{ read = 100, write = 100 }"),
    ] {
        let out = import_text(&job(mix), false).expect("imports");
        let (ps, _) = phases(&out.text);
        assert_eq!(ps[0]["read_percent"].as_integer(), Some(read), "{mix}");
        assert_eq!(ps[0]["rate_iops"].to_string(), cap, "{mix}");
        let noted = (out.notes.iter()).any(|n| n.contains("issues whichever is behind its cap"));
        assert_eq!(noted, read == 50, "{mix}: {:?}", out.notes);
    }
}

/// Trial 27 M3: `wkrun export fio` of rate_iops = 500 (4KiB 50 %, 64KiB 50 %, half reads, psync QD3) wrote
/// `rate=2901333,2901333` with `numjobs=3`; the import rounded each job (83.33 to 83) and then multiplied
/// (249 each way). Multiplied first: 3 × 2,901,333 / 34,816 = 250.0, the spec's 250 each way, noted.
#[test]
fn a_cap_of_several_jobs_is_multiplied_then_rounded() {
    let job = "[psmix]\nfilename=t.img\nioengine=psync\ndirect=1\nrw=randrw\nrwmixread=50\nnorandommap=1\nbssplit=4k/50:64k/50\niodepth=1\nnumjobs=3\nruntime=2s\ntime_based=1\nrate=2901333,2901333\n";
    let out = import_text(job, false).expect("imports");
    let (ps, _) = phases(&out.text);
    assert_eq!(
        ps[0]["rate_iops"].to_string(),
        "{ read = 250, write = 250 }"
    );
    assert_eq!(
        (
            ps[0]["workers"].as_integer(),
            ps[0]["read_percent"].as_integer()
        ),
        (Some(3), Some(50))
    );
    let said = "reads 3 jobs × 2901333 / 34816 = 250.00, rounded to 250 (+0.0 %), writes 3 jobs × 2901333 / 34816 = 250.00, rounded to 250 (+0.0 %)";
    assert!(
        out.notes.iter().any(
            |n| n.starts_with("j.fio:13: rate=2901333,2901333 with bssplit: ") && n.contains(said)
        ),
        "{:?}",
        out.notes
    );
}

/// Attack 29 F6: fio's `bs` (and `bsrange`, `bssplit`) is `read,write,trim`, a part not written taking the
/// last one written (fio 3.33 on `rw=randtrim`: `4k,8k,16k` and `,,16k` trimmed 16 KiB, `4k,8k` and `,8k`
/// 8 KiB, `8k,` 4 KiB, its default); the import gave a job of trims only its reads' size, so `--rate=,,1m`
/// ran 256 trims/s where fio ran 64 (fio-3.33-a29-randtrim-bs3-rate-trim-1m.json). A direction the job does
/// not do has no say: `rwmixread=100` reads only.
#[test]
fn each_direction_takes_its_own_block_size() {
    let job = |rw: &str, bs: &str| {
        format!("[t]\nfilename=f\nsize=64m\nrw={rw}\n{bs}\nnorandommap\ntime_based\nruntime=2\n")
    };
    for (rw, bs, size) in [
        ("randtrim", "bs=4k,8k,16k", r#""16KiB""#),
        ("randtrim", "bs=,,16k", r#""16KiB""#),
        ("randtrim", "bs=4k,8k", r#""8KiB""#),
        ("randtrim", "bs=,8k", r#""8KiB""#),
        ("randtrim", "bs=8k,", r#""4KiB""#),
        ("randtrim", "bs=16k", r#""16KiB""#),
        ("randtrim", "bs=8k\nbs=8k,", r#""8KiB""#),
        ("randtrim", "bssplit=4k,16k", "{ 16KiB = 100 }"),
        ("randtrim", "bsrange=4k-4k,16k-16k", r#""16KiB""#),
        ("trim", "bs=4k,8k,16k", r#""16KiB""#),
        ("randread", "bs=4k,8k,16k", r#""4KiB""#),
        ("randwrite", "bs=4k,8k,16k", r#""8KiB""#),
        ("randrw\nrwmixread=100", "bs=4k,8k", r#""4KiB""#),
    ] {
        let p = first(&job(rw, bs));
        assert_eq!(p["block_size"].to_string(), size, "{rw} {bs}");
    }
    let p = first(&job("randtrim", "bs=4k,8k,16k\nrate=,,1m"));
    assert_eq!(
        (p["block_size"].as_str(), p["rate_iops"].as_integer()),
        (Some("16KiB"), Some(64))
    );
    let err = import_text(&job("randrw", "bs=4k,8k,16k"), false).expect_err("refused");
    assert_eq!(
        err,
        vec![
            "j.fio:5: bs (per direction): reads and writes of different block sizes; a wkrun phase has one block size (or mix) for both (--lossy: the reads') (with a comment in the spec)"
        ]
    );
}

/// Attack 29 F5: fio 3.33 refuses a job with both `rate` and `rate_iops` ("rate and rate_iops are mutually
/// exclusive", and no run), whichever directions each caps (`rate=1m,` with `rate_iops=,100`); the import
/// took both. Refused, `--lossy` too, naming both lines; a value of 0 caps nothing, as fio takes it.
#[test]
fn rate_with_rate_iops_is_refused_as_fio_refuses_it() {
    let job = |rates: &str| {
        format!("[a]\nfilename=f\nrw=randrw\nbs=4k\n{rates}\nruntime=1\ntime_based=1\n")
    };
    for lossy in [false, true] {
        let err = import_text(&job("rate=1m,\nrate_iops=,100"), lossy).expect_err("refused");
        assert_eq!(
            err,
            vec![
                "j.fio:6: rate_iops=,100 beside rate=1m, (j.fio:5): fio refuses a job with both (\"rate and rate_iops are mutually exclusive\") and runs nothing; keep one of them"
            ]
        );
    }
    let err = import_text(&job("rate_iops=100\nrate=,,2m"), false).expect_err("refused");
    assert_eq!(
        err,
        vec![
            "j.fio:5: rate_iops=100 beside rate=,,2m (j.fio:6): fio refuses a job with both (\"rate and rate_iops are mutually exclusive\") and runs nothing; keep one of them"
        ]
    );
    for (rates, cap) in [
        ("rate=0\nrate_iops=100", "{ read = 100, write = 100 }"),
        ("rate=1m\nrate_iops=0", "{ read = 256, write = 256 }"),
    ] {
        assert_eq!(first(&job(rates))["rate_iops"].to_string(), cap, "{rates}");
    }
}

/// Attack 29 F11: caps whose share rounds to 100 (or 0) percent reads (`rate_iops=1000,1`: 99.9 %) dropped
/// the direction fio issues (fio 3.33: 2,000 reads and 2 writes in 2 s,
/// fio-3.33-a29-randrw-rate-iops-1000-1.json): read_percent is 99 (or 1), and the note says what that costs.
#[test]
fn a_share_of_caps_keeps_both_directions() {
    let job = |caps: &str| {
        format!(
            "[a]\nfilename=f\nsize=64m\nrw=randrw\nbs=4k\nrate_iops={caps}\nruntime=2\ntime_based=1\n"
        )
    };
    for (caps, read, note) in [
        (
            "1000,1",
            99,
            "j.fio:6: rate_iops=1000,1 with rwmixread=50: fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps (1000:1), not rwmixread, when the device keeps up: 99.9 % reads, which rounds to 100 and would issue no write, where fio issues 1/s; read_percent = 99 keeps both directions, and as wkrun keeps it exact, the lower cap over its share paces the stream: reads 99/s, writes 1/s per job",
        ),
        (
            "1,1000",
            1,
            "j.fio:6: rate_iops=1,1000 with rwmixread=50: fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps (1:1000), not rwmixread, when the device keeps up: 0.1 % reads, which rounds to 0 and would issue no read, where fio issues 1/s; read_percent = 1 keeps both directions, and as wkrun keeps it exact, the lower cap over its share paces the stream: reads 1/s, writes 99/s per job",
        ),
    ] {
        let out = import_text(&job(caps), false).expect("imports");
        let (ps, _) = phases(&out.text);
        assert_eq!(ps[0]["read_percent"].as_integer(), Some(read), "{caps}");
        let said: Vec<&String> = (out.notes.iter())
            .filter(|n| n.contains("follows the caps"))
            .collect();
        assert_eq!(said, [note], "{caps}");
    }
}
