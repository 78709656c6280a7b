//! The first hour of a fio user (issue 16, items 2 and 3): fio option names get the wkrun key they are, a
//! spec's every error is reported at once (file, line, key; exit 2; nothing written), `--set` errors say what
//! is wrong with the value and name the argument, `--set phase.NAME.KEY=VALUE` sets one phase, and a block
//! size in decimal units ("128KB", "4KB") is refused with both readings.

use crate::common::{
    code_out_err, dir_listing, patterned_file, plan_json, results, spec_text, tempdir, wkrun,
    write_file,
};
use std::collections::BTreeSet;
use std::path::Path;

/// One reported error: its first line (after `error: `) and its `help:` line, if any.
#[derive(Debug, PartialEq)]
struct Reported {
    first: String,
    help: Option<String>,
}

/// The errors of a stderr, in order.
fn reported(err: &str) -> Vec<Reported> {
    let mut out: Vec<Reported> = Vec::new();
    for line in err.lines() {
        if let Some(first) = line.strip_prefix("error: ") {
            out.push(Reported {
                first: first.to_string(),
                help: None,
            });
        } else if let Some(h) = line.strip_prefix("  help: ")
            && let Some(last) = out.last_mut()
        {
            last.help = Some(h.to_string());
        }
    }
    out
}

/// `wkrun ARGS` in `dir` must exit 2 with nothing on stdout and write nothing; returns its errors.
fn refused(dir: &Path, args: &[&str]) -> Vec<Reported> {
    let before = dir_listing(dir);
    let (code, out, err) = code_out_err(&wkrun(dir, args));
    assert_eq!(code, 2, "wkrun {args:?}: exit {code}\n{out}{err}");
    assert_eq!(out, "", "wkrun {args:?} printed on stdout");
    assert_eq!(dir_listing(dir), before, "wkrun {args:?} wrote something");
    reported(&err)
}

/// Every fio option of `FIO_KEYS` in a phase: `(fio key, value as TOML, exact help)`. The spec holds them from
/// line 8, one per line, in this order.
const FIO_ROWS: &[(&str, &str, &str)] = &[
    (
        "rw",
        "\"randrw\"",
        "`rw` is `pattern` and `read_percent` in wkrun: rw = \"randrw\" is pattern = \"random\", read_percent = 50",
    ),
    (
        "readwrite",
        "\"randread\"",
        "`readwrite` is `pattern` and `read_percent` in wkrun: readwrite = \"randread\" is pattern = \"random\", read_percent = 100",
    ),
    ("rwmixread", "70", "`rwmixread` is `read_percent` in wkrun"),
    (
        "rwmixwrite",
        "30",
        "`rwmixwrite` is 100 - `read_percent` in wkrun (rwmixwrite = 30 is read_percent = 70)",
    ),
    ("bs", "\"4k\"", "`bs` is `block_size` in wkrun"),
    (
        "blocksize",
        "\"4k\"",
        "`blocksize` is `block_size` in wkrun",
    ),
    (
        "bssplit",
        "\"4k/50:64k/50\"",
        "`bssplit` is a `block_size` table in wkrun: block_size = { \"4KiB\" = 60, \"64KiB\" = 40 }",
    ),
    ("iodepth", "32", "`iodepth` is `queue_depth` in wkrun"),
    (
        "iodepth_batch_complete_min",
        "8",
        "`iodepth_batch_complete_min` has no wkrun key: an io_uring phase waits per completion, or for every I/O in flight with a 20 µs minimum wait where a probe at its start finds that faster (completion_waits = \"probe\", the default; \"each\" turns it off)",
    ),
    (
        "runtime",
        "\"60s\"",
        "`runtime` is `duration` in wkrun, with its unit (\"60s\")",
    ),
    (
        "time_based",
        "1",
        "`time_based` is what `duration` does in wkrun: a workload with a duration runs for all of it",
    ),
    ("io_size", "\"1g\"", "`io_size` is `size` in wkrun"),
    (
        "numjobs",
        "4",
        "`numjobs` is `workers` in wkrun; fio gives every job the whole file, wkrun gives each worker its own part of the span by default (the same uniform spread over the span in all, with exact byte ranges); `workers_split = \"shared\"` gives each worker the whole span, as fio does (random workloads only)",
    ),
    (
        "ioengine",
        "\"io_uring\"",
        "`ioengine` is `engine` in wkrun: ioengine = \"io_uring\" is engine = \"io_uring\"",
    ),
    (
        "ramp_time",
        "\"5s\"",
        "`ramp_time` is `ramp` in wkrun (ramp_time=0, fio's default, is no ramp)",
    ),
    (
        "randseed",
        "7",
        "`randseed` is `seed` in wkrun (each phase's stream is drawn from it and the phase's name, so jobs that become phases get streams of their own, as fio's jobs do)",
    ),
    (
        "randrepeat",
        "0",
        "wkrun has no `randrepeat`: offsets and data are always the same for the same `seed` and phase name (phases of one run get streams of their own)",
    ),
    (
        "norandommap",
        "1",
        "wkrun has no `norandommap`: random offsets are drawn with replacement unless coverage = \"full\" (fio's random map)",
    ),
    (
        "random_generator",
        "\"tausworthe\"",
        "wkrun has no `random_generator`: it has one generator (PCG-64), which `seed` starts; skewed offsets (`distribution`) are drawn from it too",
    ),
    (
        "filename",
        "\"/dev/nvme0n1\"",
        "`filename` is the target in wkrun: [target] path = \"...\" or --target PATH (several files, like filename=a:b: [target] paths = [...] or --target repeated)",
    ),
    (
        "nrfiles",
        "2",
        "wkrun has no `nrfiles`: name each file, [target] paths = [...] or --target repeated (each target runs the whole phase)",
    ),
    (
        "offset_increment",
        "\"256m\"",
        "wkrun has no `offset_increment`: with `workers`, workers_split = \"partitioned\" (the default) gives each worker its own contiguous part of the span",
    ),
    (
        "group_reporting",
        "1",
        "wkrun has no `group_reporting`: a phase's results always sum its workers, with each worker's counts in phases[].workers",
    ),
    (
        "log_avg_msec",
        "1000",
        "`log_avg_msec` is `interval` in wkrun (\"1s\"; every I/O phase writes its series CSV)",
    ),
    (
        "buffer_compress_percentage",
        "50",
        "`buffer_compress_percentage` is data = \"compressible:N%\" in wkrun",
    ),
    (
        "zero_buffers",
        "1",
        "`zero_buffers` is data = \"zeros\" in wkrun",
    ),
    ("loops", "2", "`loops` is `passes` (of a fill) in wkrun"),
    (
        "steadystate",
        "\"iops_slope:0.1%\"",
        "`steadystate` is `steady_state` in wkrun: { rule = \"fio\", metric = \"iops\", kind = \"slope\", limit = 0.1 }",
    ),
    (
        "kb_base",
        "1000",
        "wkrun has no `kb_base`: KiB, MiB, k, M are binary and KB, MB decimal (block sizes refuse decimal units)",
    ),
    (
        "stonewall",
        "1",
        "wkrun has no `stonewall`: phases always run one after another, as fio jobs separated by stonewall do; jobs fio runs at once are one phase's `workers` (copies of one job) or --target repeated (one job per file)",
    ),
    (
        "buffered",
        "1",
        "`buffered` is the opposite of `direct` in wkrun: buffered = 1 is direct = false",
    ),
    (
        "thread",
        "1",
        "wkrun has no `thread`: every worker is a thread of the one wkrun process",
    ),
    (
        "rate",
        "\"4m\"",
        "wkrun has no `rate` (a bandwidth cap): cap the I/Os with `rate_iops`, rate / block size (4 MiB/s in 4 KiB blocks is rate_iops = 1024); the import converts fio's, which paces bytes: with a block-size mix rate / mean size on average (1m with bssplit=4k/50:64k/50 is 30.12, rate_iops = 30), with rate_process=poisson ⌊rate / smallest size⌋; a rate of one size that is no whole number of I/Os per second is refused (--lossy: rounded)",
    ),
    (
        "random_distribution",
        "\"zipf:1.2\"",
        "`random_distribution` is `distribution` in wkrun, spelt the same (distribution = \"zoned:50/5:30/15:20/80\"; fio's \"random\" is \"uniform\"; a normal's deviation is a fraction of the span, fio's normal:10 is normal:0.1)",
    ),
    (
        "percentile_list",
        "\"50:99:99.9\"",
        "wkrun has no `percentile_list`: results give p50, p90, p99, p99.9 and p99.99, and the latency histograms for any other",
    ),
    (
        "write_iops_log",
        "\"x\"",
        "wkrun has no `write_iops_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    (
        "write_bw_log",
        "\"x\"",
        "wkrun has no `write_bw_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    // Trial 19 item 4: the per-interval histogram log is the closer match, and the per-I/O trace.
    (
        "write_lat_log",
        "\"x\"",
        "wkrun has no `write_lat_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`) and its latency histograms per `interval` and direction as NN-<phase>.hlog (HdrHistogram's interval log, the closer match to fio's write_hist_log); fio's log of every I/O (no log_avg_msec) is wkrun's `trace = N` (NN-<phase>.trace.csv)",
    ),
    (
        "write_hist_log",
        "\"x\"",
        "wkrun has no `write_hist_log`: every I/O phase writes its latency histograms per `interval` and direction as NN-<phase>.hlog (HdrHistogram's interval log, values in ns, which HistogramLogProcessor reads), not fio's clat-bin log, beside its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
];

/// Every fio option wkrun names differently is refused with one line naming the wkrun key; all of them in
/// one `validate` per 40 options, each with its line, and fio's `[global]` table too. The rows are every row
/// of `FIO_KEYS` that is no wkrun key: the hand-written ones above with their exact help, the others with
/// the table's.
#[test]
fn every_fio_key_names_its_wkrun_key() {
    let hinted: Vec<&wkrun::spec::keys::FioKey> = wkrun::spec::keys::FIO_KEYS
        .iter()
        .filter(|k| k.fio != "global" && wkrun::spec::keys::fio_key(k.fio).is_some())
        .collect();
    let table: BTreeSet<&str> = hinted.iter().map(|k| k.fio).collect();
    let written: BTreeSet<&str> = FIO_ROWS.iter().map(|r| r.0).collect();
    assert!(written.is_subset(&table), "the test's rows vs FIO_KEYS");
    let mut rows: Vec<(&str, &str, &str)> = FIO_ROWS.to_vec();
    rows.extend(
        hinted
            .iter()
            .filter(|k| !written.contains(k.fio))
            .map(|k| (k.fio, "1", k.hint)),
    );
    for (n, chunk) in rows.chunks(40).enumerate() {
        let d = tempdir();
        let lines: String = chunk
            .iter()
            .map(|(k, v, _)| format!("{k} = {v}\n"))
            .collect();
        let phase = format!("[[phase]]\nname = \"w\"\nkind = \"workload\"\n{lines}");
        // [global] after the phase: line 8 + rows.
        let global_line = 8 + chunk.len();
        let global = if n == 0 {
            "[global]\niodepth = 4\n"
        } else {
            ""
        };
        write_file(
            d.path(),
            "f.toml",
            &spec_text("fio", &format!("{phase}{global}")),
        );
        let got = refused(d.path(), &["validate", "f.toml"]);
        let mut want: Vec<Reported> = chunk
            .iter()
            .enumerate()
            .map(|(i, (k, _, hint))| Reported {
                first: format!("f.toml:{}:1: phase[0] \"w\".{k}: unknown key `{k}`", 8 + i),
                help: Some(hint.to_string()),
            })
            .collect();
        if n == 0 {
            want.push(Reported {
                first: format!("f.toml:{global_line}:2: global: unknown key `global`"),
                help: Some("fio's [global] is [defaults] in wkrun".into()),
            });
        }
        assert_eq!(got, want);
    }
}

/// fio values of keys wkrun spells the same, and fio engine names, get what they are in wkrun; and the two
/// ioengine spellings fio users write most map to wkrun's engine.
#[test]
fn fio_values_of_wkrun_keys_are_translated() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n\
                direct = 1\nverify = \"crc32c\"\nengine = \"sync\"\n\
                [[phase]]\nname = \"v\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n\
                ioengine = \"pvsync\"\nrw = \"write\"\n";
    write_file(d.path(), "v.toml", &spec_text("fio", body));
    let got = refused(d.path(), &["validate", "v.toml"]);
    let want = [
        (
            "v.toml:10:10: phase[0] \"w\".direct: invalid type: integer `1`, expected a boolean",
            "fio's direct=1 is direct = true in wkrun",
        ),
        (
            "v.toml:11:10: phase[0] \"w\".verify: invalid type: string \"crc32c\", expected a boolean",
            "fio's verify=crc32c is verify = true in wkrun (every sector written is stamped with a checksum)",
        ),
        (
            "v.toml:12:10: phase[0] \"w\".engine: unknown value `sync`, expected one of `psync`, `libaio`, `io_uring`, `null`",
            "fio's sync engine is engine = \"psync\" in wkrun",
        ),
        (
            "v.toml:18:1: phase[1] \"v\".ioengine: unknown key `ioengine`",
            "`ioengine` is `engine` in wkrun: ioengine = \"pvsync\" is engine = \"psync\"",
        ),
        (
            "v.toml:19:1: phase[1] \"v\".rw: unknown key `rw`",
            "`rw` is `pattern` and `read_percent` in wkrun: rw = \"write\" is pattern = \"sequential\", read_percent = 0",
        ),
    ];
    let want: Vec<Reported> = want
        .iter()
        .map(|(f, h)| Reported {
            first: f.to_string(),
            help: Some(h.to_string()),
        })
        .collect();
    assert_eq!(got, want);
}

/// A spec with errors of every stage in several tables: validate, plan and run each report every one, in file
/// order, with file, line, column and key, exit 2 and write nothing. A rule about a whole table (the
/// workload's missing bound, a consequence of `runtime`) is left out where that table had a key error.
#[test]
fn validate_reports_every_error_of_a_file() {
    let d = tempdir();
    let body = "[defaults]\n\
                queue_depth = 0\n\
                engine = \"libaoi\"\n\
                [[phase]]\n\
                name = \"m\"\n\
                kind = \"workload\"\n\
                read_percent = 70\n\
                iodepth = 4\n\
                runtime = \"1s\"\n\
                [[phase]]\n\
                name = \"f\"\n\
                kind = \"fill\"\n\
                block_size = \"128KB\"\n\
                passes = 0\n\
                pases = 1\n\
                [[phase]]\n\
                name = \"e\"\n\
                kind = \"erase\"\n\
                span = \"101%\"\n";
    write_file(d.path(), "all.toml", &spec_text("all", body));
    patterned_file(&d.path().join("t.img"), 1 << 20);
    let want = [
        "all.toml:6:1: defaults.queue_depth: queue_depth = 0 is out of range",
        "all.toml:7:10: defaults.engine: unknown value `libaoi`, expected one of `psync`, `libaio`, `io_uring`, `null`",
        "all.toml:12:1: phase[0] \"m\".iodepth: unknown key `iodepth`",
        "all.toml:13:1: phase[0] \"m\".runtime: unknown key `runtime`",
        "all.toml:17:14: phase[1] \"f\".block_size: block size \"128KB\" is 128000 bytes (KB is decimal), not a power of two; fio reads it as 128KiB = 131072 bytes: write \"128KiB\" for that, or \"128000B\" for 128000 bytes",
        "all.toml:18:1: phase[1] \"f\".passes: passes = 0 is outside 1..10000",
        "all.toml:19:1: phase[1] \"f\".pases: unknown key `pases`",
        "all.toml:23:1: phase[2] \"e\".span: span = \"101%\" is outside 0..100 % of the target",
    ];
    for args in [
        &["validate", "all.toml"][..],
        &["plan", "all.toml", "--target", "t.img"],
        &["all.toml", "--target", "t.img", "-o", "out"],
    ] {
        let got: Vec<String> = refused(d.path(), args)
            .into_iter()
            .map(|r| r.first)
            .collect();
        assert_eq!(got, want, "wkrun {args:?}");
    }
    let got = refused(d.path(), &["validate", "all.toml"]);
    assert_eq!(
        got[2].help.as_deref(),
        Some("`iodepth` is `queue_depth` in wkrun")
    );
    assert_eq!(got[6].help.as_deref(), Some("did you mean `passes`?"));
}

/// The spec `--set` cases run against: one workload with its own queue depth and block size, O_DIRECT.
const SET_SPEC: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nqueue_depth = 4\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1s\"\n";

/// `--set` errors: what is wrong with the value, named by the argument as given (never the spec's line and
/// its old value), with the help line of a spec error.
#[test]
fn set_errors_name_the_argument_and_what_is_wrong() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("s", SET_SPEC));
    let t = d.path().join("t.img");
    patterned_file(&t, 1 << 20);
    let no_help = |s: &str| (s.to_string(), None);
    let help = |s: &str, h: &str| (s.to_string(), Some(h.to_string()));
    let cases: Vec<(&str, (String, Option<String>))> = vec![
        (
            "iodepth=32",
            no_help("s.toml: --set iodepth=32: `iodepth` is `queue_depth` in wkrun"),
        ),
        (
            "engine=foo",
            no_help(
                "s.toml: --set engine=foo: unknown value `foo`, expected one of `psync`, `libaio`, `io_uring`, `null`",
            ),
        ),
        (
            "engine=sync",
            help(
                "s.toml: --set engine=sync: unknown value `sync`, expected one of `psync`, `libaio`, `io_uring`, `null`",
                "fio's sync engine is engine = \"psync\" in wkrun",
            ),
        ),
        (
            "seed=-1",
            no_help(
                "s.toml: --set seed=-1: invalid value: integer `-1`, expected a non-negative whole number",
            ),
        ),
        (
            "queue_depth=abc",
            no_help(
                "s.toml: --set queue_depth=abc: invalid type: string \"abc\", expected a whole number",
            ),
        ),
        (
            "queue_depth=0",
            help(
                "s.toml: --set queue_depth=0: phase[0] \"w\".queue_depth: queue_depth = 0 is out of range",
                "queue_depth is 1 to 1024",
            ),
        ),
        (
            "block_size=4000",
            // No target's logical block size divides 4000 B: the spec's rule refuses it, whatever the target.
            help(
                "s.toml: --set block_size=4000: phase[0] \"w\".block_size: block_size 4000B (4000 B) is not a multiple of 512 B, which every target's logical block size is, and O_DIRECT requires",
                "use a multiple of 512 B, or direct = false",
            ),
        ),
        (
            "block_size=4KB",
            no_help(
                "s.toml: --set block_size=4KB: block size \"4KB\" is 4000 bytes (KB is decimal), not a power of two; fio reads it as 4KiB = 4096 bytes: write \"4KiB\" for that, or \"4000B\" for 4000 bytes",
            ),
        ),
        (
            "duraton=1s",
            no_help("s.toml: --set duraton=1s: `duraton` is not a key (did you mean `duration`?)"),
        ),
        (
            "rate_iops=100",
            no_help(
                "s.toml: --set rate_iops=100: no phase of this spec sets `rate_iops`, and [defaults] cannot hold it; set it in one phase with --set phase.NAME.rate_iops=...",
            ),
        ),
        (
            "phase.x.queue_depth=8",
            no_help(
                "s.toml: --set phase.x.queue_depth=8: this spec has no phase \"x\"; its phases: w",
            ),
        ),
        (
            "phase.w.method=discard",
            no_help(
                "s.toml: --set phase.w.method=discard: `method` does not apply to phase \"w\", of kind \"workload\"",
            ),
        ),
        (
            "phase.w.read_percent=101",
            help(
                "s.toml: --set phase.w.read_percent=101: phase[0] \"w\".read_percent: read_percent = 101 is outside 0..100",
                "0..100",
            ),
        ),
    ];
    let mut failures = Vec::new();
    for (set, (first, help)) in &cases {
        let got = refused(
            d.path(),
            &["plan", "s.toml", "--target", "t.img", "--set", set],
        );
        let want = vec![Reported {
            first: first.clone(),
            help: help.clone(),
        }];
        if got != want {
            failures.push(format!("--set {set}:\n  got:  {got:?}\n  want: {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Several `--set` arguments that are not keys wkrun knows (fio's names among them) are reported together,
/// each on its own `error:` line in the order given, as a spec file's keys are; nothing is written.
#[test]
fn every_set_of_an_unknown_key_is_reported() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("s", SET_SPEC));
    patterned_file(&d.path().join("t.img"), 1 << 20);
    let args = [
        "plan",
        "s.toml",
        "--target",
        "t.img",
        "--set",
        "iodepth=8",
        "--set",
        "seed=3",
        "--set",
        "numjobs=2",
        "--set",
        "duraton=1s",
    ];
    let got: Vec<String> = refused(d.path(), &args)
        .into_iter()
        .map(|r| r.first)
        .collect();
    assert_eq!(
        got,
        [
            "s.toml: --set iodepth=8: `iodepth` is `queue_depth` in wkrun",
            "s.toml: --set numjobs=2: `numjobs` is `workers` in wkrun; fio gives every job the whole file, wkrun gives each worker its own part of the span by default (the same uniform spread over the span in all, with exact byte ranges); `workers_split = \"shared\"` gives each worker the whole span, as fio does (random workloads only)",
            "s.toml: --set duraton=1s: `duraton` is not a key (did you mean `duration`?)",
        ]
    );
}

/// `--set phase.NAME.KEY=VALUE` sets one phase: by its name, by the name of the `[[phase]]` a matrix
/// expanded (every phase of it), or by an expanded name (that one only); later `--set`s win.
#[test]
fn set_one_phase() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nspan = \"10%\"\n\
                [[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = [\"4KiB\", \"8KiB\"]\nread_percent = 0\nduration = \"1s\"\n\
                [[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nduration = \"1s\"\n";
    write_file(d.path(), "p.toml", &spec_text("p", body));
    let t = d.path().join("t.img");
    patterned_file(&t, 16 << 20);
    let plan = |sets: &[&str]| -> Vec<(String, u64, u64, u64)> {
        let args: Vec<&str> = sets.iter().flat_map(|s| ["--set", s]).collect();
        let p = plan_json(d.path(), Path::new("p.toml"), &t, &args);
        p["phases"]
            .as_array()
            .expect("phases")
            .iter()
            .map(|ph| {
                let u = |k: &str| ph["params"][k].as_u64().expect(k);
                (
                    ph["name"].as_str().expect("name").to_string(),
                    u("queue_depth"),
                    u("block_size_bytes"),
                    // A fill is bounded by bytes: 0.
                    ph["params"]["duration_ns"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    let row = |n: &str, qd: u64, bs: u64, dur: u64| (n.to_string(), qd, bs, dur);
    const S: u64 = 1_000_000_000;
    assert_eq!(
        plan(&[
            "phase.w.queue_depth=8",
            "phase.r.queue_depth=2",
            "phase.f.block_size=1MiB",
            "phase.w[bs=8KiB].duration=3s",
        ]),
        [
            row("f", 1, 1 << 20, 0),
            row("w[bs=4KiB]", 8, 4096, S),
            row("w[bs=8KiB]", 8, 8192, 3 * S),
            row("r", 2, 4096, S),
        ]
    );
    // A later --set of the key everywhere replaces it in every phase that sets it, the one --set by name too.
    assert_eq!(
        plan(&["phase.r.queue_depth=2", "queue_depth=16", "duration=2s"]),
        [
            row("f", 1, 128 << 10, 0),
            row("w[bs=4KiB]", 1, 4096, 2 * S),
            row("w[bs=8KiB]", 1, 8192, 2 * S),
            row("r", 16, 4096, 2 * S),
        ]
    );
    // A run does what the plan says and records the overrides as applied.
    let args = [
        "p.toml",
        "--target",
        "t.img",
        "-o",
        "out",
        "-q",
        "--set",
        "phase.r.queue_depth=2",
        "--set",
        "duration=200ms",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    let r = results(&d.path().join("out"));
    assert_eq!(
        r["spec"]["overrides"],
        serde_json::json!(["phase.r.queue_depth=2", "duration=\"200ms\""])
    );
    let qd: Vec<u64> = (0..4)
        .map(|i| {
            r["phases"][i]["params"]["queue_depth"]
                .as_u64()
                .expect("queue_depth")
        })
        .collect();
    assert_eq!(qd, [1, 1, 1, 2]);
    // The matrix's own key stays refused, by name too.
    let got = refused(
        d.path(),
        &[
            "plan",
            "p.toml",
            "--target",
            "t.img",
            "--set",
            "phase.w.block_size=16KiB",
        ],
    );
    assert_eq!(
        got[0].first,
        "p.toml: --set phase.w.block_size=16KiB: `block_size` is varied by a matrix or sweep of this spec (phase \"w[bs=4KiB]\"), whose names and labels say each value; change the values with --set block_size=VALUE (every list of it) or --set sweep.NAME=V1,V2"
    );
}

/// Decimal units in block sizes: "128KB" and "4KB" are refused by validate (not only by plan) with both
/// readings, in a phase, in `[defaults]`, in a mix and in a sweep (at the list item); a decimal size that is a power of two
/// ("4.096KB") and decimal capacities (span, size) are accepted, and the plan shows the exact bytes.
#[test]
fn decimal_block_sizes_are_refused_with_both_readings() {
    let d = tempdir();
    let wl = |rest: &str| {
        format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n{rest}"
        )
    };
    let kb128 = "block size \"128KB\" is 128000 bytes (KB is decimal), not a power of two; fio reads it as 128KiB = 131072 bytes: write \"128KiB\" for that, or \"128000B\" for 128000 bytes";
    let kb4 = "block size \"4KB\" is 4000 bytes (KB is decimal), not a power of two; fio reads it as 4KiB = 4096 bytes: write \"4KiB\" for that, or \"4000B\" for 4000 bytes";
    let cases = [
        (
            "phase.toml",
            wl("block_size = \"128KB\"\n"),
            format!("phase.toml:10:14: phase[0] \"w\".block_size: {kb128}"),
        ),
        (
            "phase4.toml",
            wl("block_size = \"4KB\"\n"),
            format!("phase4.toml:10:14: phase[0] \"w\".block_size: {kb4}"),
        ),
        (
            "defaults.toml",
            format!("[defaults]\nblock_size = \"4KB\"\n{}", wl("")),
            format!("defaults.toml:6:14: defaults.block_size: {kb4}"),
        ),
        (
            "mix.toml",
            wl("block_size = { \"4KiB\" = 50, \"4KB\" = 50 }\n"),
            format!("mix.toml:10:14: phase[0] \"w\".block_size: {kb4}"),
        ),
        (
            "mb.toml",
            wl("block_size = \"1.5MB\"\n"),
            "mb.toml:10:14: phase[0] \"w\".block_size: block size \"1.5MB\" is 1500000 bytes (MB is decimal), not a power of two; fio reads it as 1.5MiB = 1572864 bytes: write \"1.5MiB\" for that, or \"1500000B\" for 1500000 bytes".to_string(),
        ),
        (
            "sweep.toml",
            format!("{}[[sweep]]\nname = \"s\"\nphases = [\"w\"]\nblock_size = [\"4KiB\", \"128KB\"]\n", wl("")),
            format!("sweep.toml:13:23: sweep[0].block_size[1]: {kb128}"),
        ),
    ];
    for (file, body, want) in &cases {
        write_file(d.path(), file, &spec_text("kb", body));
        let got = refused(d.path(), &["validate", file]);
        assert_eq!(got.len(), 1, "{file}: {got:?}");
        assert_eq!(&got[0].first, want, "{file}");
    }
    // Accepted: a power of two in decimal units, and decimal capacities.
    write_file(
        d.path(),
        "ok.toml",
        &spec_text("kb", &wl("block_size = \"4.096KB\"\nspan = \"512KB\"\n")),
    );
    let t = d.path().join("t.img");
    patterned_file(&t, 1 << 20);
    let p = plan_json(d.path(), Path::new("ok.toml"), &t, &[]);
    let params = &p["phases"][0]["params"];
    assert_eq!(params["block_size_bytes"], 4096);
    // 512,000 bytes rounded down to whole 4 KiB blocks: 125 blocks.
    assert_eq!(params["span_bytes"], 125 * 4096);
}

/// A fio job file given as a spec (to run, validate or plan) is refused, exit 2, nothing written, with its
/// TOML error and a help line that quotes the first line that is fio's and points to the translation
/// table; also when the job file happens to be valid TOML (then the error is the missing `format`). A TOML
/// spec with a syntax error gets no such help, even with a fio key in it.
#[test]
fn a_fio_job_file_is_named_as_one() {
    let d = tempdir();
    let job = "; two jobs\n[global]\nioengine=libaio\ndirect=1\nruntime=5\ntime_based\n\n[randread]\nrw=randread\nnumjobs=4\n";
    write_file(d.path(), "jobs.fio", job);
    let help = |n: usize, line: &str| {
        Some(format!(
            "this looks like a fio job file (line {n}: `{line}`): wkrun reads TOML specs (format = 1, [spec], a [[phase]] per job); `wkrun import fio FILE -o SPEC.toml` converts a job file (docs/fio.md)"
        ))
    };
    let want = vec![Reported {
        first: "jobs.fio:1:3: not valid TOML: key with no value, expected `=`".into(),
        help: help(2, "[global]"),
    }];
    for args in [
        &["jobs.fio"][..],
        &["validate", "jobs.fio"],
        &["plan", "jobs.fio", "--target", "t.img"],
    ] {
        assert_eq!(refused(d.path(), args), want, "wkrun {args:?}");
    }
    // Valid TOML (numbers only), without [global]: the first fio option is quoted.
    write_file(d.path(), "n.fio", "[job1]\niodepth=32\nnumjobs=4\n");
    assert_eq!(
        refused(d.path(), &["validate", "n.fio"]),
        vec![Reported {
            first: "n.fio:1:1: format: missing `format`: the spec format version".into(),
            help: help(2, "iodepth=32"),
        }]
    );
    // A TOML spec (it has `format`) with a syntax error keeps the plain TOML error.
    write_file(
        d.path(),
        "s.toml",
        &spec_text(
            "s",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\niodepth = 32\nduration = 5s\n",
        ),
    );
    assert_eq!(
        refused(d.path(), &["validate", "s.toml"]),
        vec![Reported {
            first:
                "s.toml:9:12: not valid TOML: string values must be quoted, expected literal string"
                    .into(),
            help: None,
        }]
    );
}
