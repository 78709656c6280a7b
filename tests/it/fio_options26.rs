//! Attack 26: fio's job options read as fio reads them when wkrun reads fio's JSON output. The option that
//! sets the I/O sizes (`bssplit` over `bsrange` over `bs`, whatever their order), `direct` and `buffered`
//! (the last given wins), and whole numbers and booleans in fio's spellings (`0x8`, `0x2`, `1k`), with the
//! parsers `wkrun import fio` uses (`src/fio/value.rs`). The files are real fio 3.33 output
//! (`tests/data/fio/README.md`).

use crate::fio_attack24::read;
use crate::fio_odd::{doc, u, validate};
use wkrun::plan::SizeWeight;
use wkrun::results::Results;

const BSRANGE: &str = include_str!("../data/fio/fio-3.33-a26-bs-then-bsrange-json+.json");
const BSSPLIT: &str = include_str!("../data/fio/fio-3.33-a26-bs-then-bssplit.json");
const DIRECT_BUFFERED: &str = include_str!("../data/fio/fio-3.33-a26-direct1-buffered1.json");
const HEX_DEPTH: &str = include_str!("../data/fio/fio-3.33-a26-hex-iodepth-direct.json");
const DEC_DEPTH: &str = include_str!("../data/fio/fio-3.33-a26-dec-iodepth-direct.json");
const DIRECT_1K: &str = include_str!("../data/fio/fio-3.33-a26-direct-direct_1k.json");
const BUFFERED_0: &str = include_str!("../data/fio/fio-3.33-a26-direct-buffered_0.json");
const HEX_NUMJOBS: &str = include_str!("../data/fio/fio-3.33-a26-hex-numjobs.json");
const FSYNC_HEX: &str = include_str!("../data/fio/fio-3.33-a26-fsync-hex.json");
const FSYNC_DEC: &str = include_str!("../data/fio/fio-3.33-a26-fsync-dec.json");
const ESCAPE_NAME: &str = include_str!("../data/fio/fio-3.33-a26-escape-name.json");

/// `validate`'s answer for one phase.
fn ok(name: &str) -> (i32, String, String) {
    (
        0,
        format!("{name}: ok (results, 1 phase, 0 series CSVs)\n"),
        String::new(),
    )
}

/// F2: `--bs=4k --bsrange=4k-64k` moved I/Os of 23,432 B on average and `--bs=4k --bssplit=4k/50:64k/50`
/// of 18,641 B: the range and the split are the sizes (smallest 4096 B, and wkrun's mix for each), not
/// 4096 B alone; both validate.
#[test]
fn bsrange_and_bssplit_after_bs_are_the_sizes() {
    let v = doc(BSRANGE);
    assert_eq!(
        (
            u(&v, "/jobs/0/read/io_bytes"),
            u(&v, "/jobs/0/read/total_ios")
        ),
        (4194304, 179)
    );
    let r = read(BSRANGE);
    let p = &r.phases[0].params;
    assert_eq!(p.block_size_bytes, Some(4096));
    let range: Vec<SizeWeight> = (1..=16)
        .map(|k| SizeWeight {
            bytes: k * 4096,
            weight: 1,
        })
        .collect();
    assert_eq!(p.block_size_mix, Some(range));
    assert_eq!(validate("r.json", BSRANGE), ok("r.json"));

    let v = doc(BSSPLIT);
    assert_eq!(
        (
            u(&v, "/jobs/0/read/io_bytes"),
            u(&v, "/jobs/0/read/total_ios")
        ),
        (4194304, 225)
    );
    let r = read(BSSPLIT);
    let p = &r.phases[0].params;
    assert_eq!(p.block_size_bytes, Some(4096));
    let split = vec![
        SizeWeight {
            bytes: 4096,
            weight: 50,
        },
        SizeWeight {
            bytes: 65536,
            weight: 50,
        },
    ];
    assert_eq!(p.block_size_mix, Some(split));
    assert_eq!(validate("s.json", BSSPLIT), ok("s.json"));
    // A plain 4k job: one size, no mix.
    let plain = read(DEC_DEPTH);
    assert_eq!(
        (
            plain.phases[0].params.block_size_bytes,
            &plain.phases[0].params.block_size_mix
        ),
        (Some(4096), &None)
    );
}

/// F3: direct, buffered, iodepth, numjobs and fsync read as fio reads them: `direct=1` then `buffered=1` is
/// buffered (fio opened the file without O_DIRECT), `direct=0x1` and `direct=1k` are direct (fio reads a
/// boolean's leading number), `buffered=0` alone is direct, `iodepth=0x8` is 8, `numjobs=0x2` one phase of
/// 2 workers (before: two phases, d and d-2), `fsync=0x4` every 4 writes as `fsync=4`.
#[test]
fn direct_depth_workers_and_fsync_in_fios_spellings() {
    let p = |text: &str| read(text).phases[0].params.clone();
    let buffered = read(DIRECT_BUFFERED);
    assert_eq!(buffered.phases[0].params.direct, Some(false));
    assert!(
        buffered.phases[0]
            .warnings
            .iter()
            .any(|w| wkrun::fio::json::buffered_job(w))
    );
    assert_eq!(
        (p(HEX_DEPTH).direct, p(HEX_DEPTH).queue_depth),
        (Some(true), Some(8))
    );
    assert_eq!(
        (p(DEC_DEPTH).direct, p(DEC_DEPTH).queue_depth),
        (Some(true), Some(8))
    );
    assert_eq!(p(HEX_DEPTH), p(DEC_DEPTH));
    assert_eq!(
        (p(DIRECT_1K).direct, p(DIRECT_1K).queue_depth),
        (Some(true), Some(4))
    );
    let direct = read(BUFFERED_0);
    assert_eq!(direct.phases[0].params.direct, Some(true));
    assert!(
        !direct.phases[0]
            .warnings
            .iter()
            .any(|w| wkrun::fio::json::buffered_job(w))
    );

    let jobs = read(HEX_NUMJOBS);
    assert_eq!(jobs.phases.len(), 1);
    let q = &jobs.phases[0];
    assert_eq!(
        (q.name.as_str(), q.params.workers, q.params.queue_depth),
        ("d", Some(2), Some(8))
    );
    let v = doc(HEX_NUMJOBS);
    assert_eq!(
        q.read.ops,
        u(&v, "/jobs/0/read/total_ios") + u(&v, "/jobs/1/read/total_ios")
    );
    assert_eq!(validate("n.json", HEX_NUMJOBS), ok("n.json"));

    let (hex, dec) = (read(FSYNC_HEX), read(FSYNC_DEC));
    assert_eq!(
        (hex.phases[0].params.fsync, dec.phases[0].params.fsync),
        (Some(4), Some(4))
    );
    let syncs = |r: &Results| {
        let f = r.phases[0].sync.as_ref()?.flushes.as_ref()?;
        Some((f.call.clone(), f.every_writes))
    };
    assert_eq!(syncs(&hex), Some(("fsync".to_string(), 4)));
    assert_eq!(syncs(&dec), syncs(&hex));
    for (name, text) in [("h.json", FSYNC_HEX), ("d.json", FSYNC_DEC)] {
        assert_eq!(validate(name, text), ok(name));
    }
}

const UNIFORM: &str = include_str!("../data/fio/fio-3.33-a26-rr-uniform.json");
const ZIPF: &str = include_str!("../data/fio/fio-3.33-a26-rr-zipf.json");
const PCT0: &str = include_str!("../data/fio/fio-3.33-a26-rr-pctrandom0.json");
const RATE_THINK: &str = include_str!("../data/fio/fio-3.33-a26-rate-think.json");

/// F5: the options that shape the workload are its parameters, as a wkrun phase records them:
/// `random_distribution=zipf:1.5`, `percentage_random=0` (sequential offsets), `rate_iops=2000` on a read
/// job, `thinktime=500` (µs, each I/O); compare shows the zipf job's distribution apart from the uniform one's.
#[test]
fn options_that_shape_the_workload_are_parameters() {
    use wkrun::vocab::{Pattern, Rate};
    let uniform = read(UNIFORM);
    let q = &uniform.phases[0].params;
    assert_eq!(
        (q.pattern, q.distribution.as_deref()),
        (Some(Pattern::Random), None)
    );
    let zipf = read(ZIPF);
    assert_eq!(
        zipf.phases[0].params.distribution.as_deref(),
        Some("zipf:1.5")
    );
    let seq = read(PCT0);
    assert_eq!(seq.phases[0].params.pattern, Some(Pattern::Sequential));
    let capped = read(RATE_THINK);
    let q = &capped.phases[0].params;
    let rate = Rate {
        total: None,
        read: Some(2000),
        write: None,
    };
    assert_eq!(
        (q.rate_iops, q.think_time_ns, q.think_every),
        (Some(rate), Some(500_000), Some(1))
    );
    let d = crate::common::tempdir();
    crate::common::write_file(d.path(), "u.json", UNIFORM);
    crate::common::write_file(d.path(), "z.json", ZIPF);
    let (code, out, _) = crate::common::code_out_err(&crate::common::wkrun(
        d.path(),
        &["compare", "u.json", "z.json"],
    ));
    assert_eq!(code, 0);
    let row = out
        .lines()
        .find(|l| l.contains("parameters that differ"))
        .expect("a row of parameters that differ");
    assert!(row.contains("distribution=-"), "{row}");
    assert!(row.contains("distribution=zipf:1.5"), "{row}");
}

/// F8: fio writes a job name's control characters raw into its JSON (a name holding an escape sequence made
/// the file invalid JSON, and `warnings`, `compare` and `report` exited 2 "not fio's JSON output: control
/// character ..."): read as fio meant it, the name is the job's, shown escaped on the terminal (as every
/// name from a file is) and in the report HTML-escaped with its control characters left out; exit 0.
#[test]
fn a_job_name_fio_wrote_with_raw_control_characters_is_read_and_shown_escaped() {
    use crate::common::{code_out_err, tempdir, wkrun, write_file};
    assert!(serde_json::from_str::<serde_json::Value>(ESCAPE_NAME).is_err());
    let name = "x\u{1b}]0;PWNED\u{7}\u{1b}[31m<script>alert(1)</script>&";
    assert_eq!(read(ESCAPE_NAME).phases[0].name, name);
    let shown = "x\\u{1b}]0;PWNED\\u{7}\\u{1b}[31m<script>alert(1)</script>&";
    let t = tempdir();
    let d = t.path();
    write_file(d, "e.json", ESCAPE_NAME);
    let run = |args: &[&str]| code_out_err(&wkrun(d, args));
    let raw = |s: &str| s.contains(['\u{1b}', '\u{7}']);
    let (code, out, err) = run(&["warnings", "e.json"]);
    assert_eq!((code, raw(&out)), (0, false), "{err}");
    let first = out.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "phase 0 \"{shown}\": read from fio's JSON output: no series, host or target geometry (fio does not give them)"
        )
    );
    let (code, out, err) = run(&["compare", "e.json"]);
    assert_eq!((code, raw(&out)), (0, false), "{err}");
    let row = out.lines().nth(2).unwrap_or_default();
    assert!(
        row.starts_with(&format!("{shown}  IOPS, phase mean ")),
        "{out}"
    );
    let (code, _, err) = run(&["report", "e.json", "-o", "rep"]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.join("rep/index.html")).expect("the report");
    assert!(
        html.contains("<h2>x]0;PWNED[31m&lt;script&gt;alert(1)&lt;/script&gt;&amp;</h2>"),
        "{html}"
    );
    assert!(!raw(&html) && !html.contains("<script>"));
    assert_eq!(validate("e.json", ESCAPE_NAME), ok("e.json"));
}

const RATE_1M: &str = include_str!("../data/fio/fio-3.33-a27-rate-1m.json");
const RATE_NONE: &str = include_str!("../data/fio/fio-3.33-a27-rate-none.json");
const RATE_RW: &str = include_str!("../data/fio/fio-3.33-a27-rate-rw-numjobs2.json");
const RATE_ODD: &str = include_str!("../data/fio/fio-3.33-a27-rate-100000.json");

/// `wkrun import fio -- ARGS` run in `d`: its exit code, the spec it printed and its stderr.
fn imported(d: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["import", "fio", "--"];
    all.extend(args);
    crate::common::code_out_err(&crate::common::wkrun(d, &all))
}

/// Attack 27 item 1: fio's `rate` (bytes per second per job) is read as `wkrun import fio` maps it, the
/// same rate_iops: `rate=1m` on 4k reads is 256 I/Os per second (fio: 255.744256 IOPS over its 1 s), and
/// `rate=1m,512k` on a 4k randrw job of `numjobs=2` 256 reads and 128 writes a job, 512 and 256 in all (fio:
/// 511.488511 and 255.744256); the job without `rate` has none, and compare shows the two apart.
#[test]
fn a_byte_rate_is_the_rate_iops_the_import_gives() {
    use wkrun::vocab::Rate;
    let rate = |text: &str| read(text).phases[0].params.rate_iops;
    let one = doc(RATE_1M);
    assert_eq!(one["jobs"][0]["job options"]["rate"], "1m");
    assert_eq!(one["jobs"][0]["read"]["iops"], 255.744256);
    let cap = |read, write| {
        Some(Rate {
            total: None,
            read,
            write,
        })
    };
    assert_eq!(rate(RATE_1M), cap(Some(256), None));
    let rw = doc(RATE_RW);
    assert_eq!(rw["jobs"][0]["job options"]["rate"], "1m,512k");
    assert_eq!(
        (
            &rw["jobs"][0]["read"]["iops"],
            &rw["jobs"][0]["write"]["iops"]
        ),
        (&511.488511.into(), &255.744256.into())
    );
    assert_eq!(rate(RATE_RW), cap(Some(512), Some(256)));
    assert_eq!(rate(RATE_NONE), None);
    for (name, text) in [("r.json", RATE_1M), ("w.json", RATE_RW)] {
        assert!(
            !read(text).phases[0]
                .warnings
                .iter()
                .any(|w| w.starts_with("fio's rate cap"))
        );
        assert_eq!(validate(name, text), ok(name));
    }
    // The import of the same command lines gives the same caps.
    let d = crate::common::tempdir();
    let (code, spec, err) = imported(
        d.path(),
        &[
            "--name=capped",
            "--filename=t.dat",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
            "--rate=1m",
            "--runtime=1",
            "--time_based",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(spec.contains("\nrate_iops = { read = 256 }\n"), "{spec}");
    let (code, spec, err) = imported(
        d.path(),
        &[
            "--name=mixed",
            "--filename=t.dat",
            "--rw=randrw",
            "--bs=4k",
            "--size=8m",
            "--rate=1m,512k",
            "--numjobs=2",
            "--runtime=1",
            "--time_based",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        spec.contains("\nrate_iops = { read = 512, write = 256 }\n"),
        "{spec}"
    );
    crate::common::write_file(d.path(), "n.json", RATE_NONE);
    crate::common::write_file(d.path(), "c.json", RATE_1M);
    let (code, out, err) = crate::common::code_out_err(&crate::common::wkrun(
        d.path(),
        &["compare", "n.json", "c.json"],
    ));
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.contains("parameters that differ"))
        .expect("a row of parameters that differ");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "capped",
            "parameters",
            "that",
            "differ",
            "rate_iops=-",
            "rate_iops={\"read\":256}"
        ]
    );
}

/// Attack 27 item 1: a `rate` the import refuses, `rate=100000` on 4k reads (24.41 I/Os per second, no
/// whole number: `wkrun import fio` exits 2 without `--lossy`), leaves params.rate_iops absent with a
/// warning naming it and the import's reason; fio ran it at 24.925224 IOPS.
#[test]
fn a_byte_rate_the_import_refuses_is_absent_with_a_warning() {
    let v = doc(RATE_ODD);
    assert_eq!(v["jobs"][0]["job options"]["rate"], "100000");
    assert_eq!(v["jobs"][0]["read"]["iops"], 24.925224);
    let r = read(RATE_ODD);
    let p = &r.phases[0];
    assert_eq!(p.params.rate_iops, None);
    let said: Vec<&String> = (p.warnings.iter())
        .filter(|w| w.starts_with("fio's rate cap"))
        .collect();
    assert_eq!(
        said,
        [
            "fio's rate cap (rate=100000) is not read: `wkrun import fio` refuses it (`rate=100000`: fio paces a job's bytes per second and issues a 4096 B I/O when the bytes before it are due, so it issues rate / 4096 I/Os per second per job: reads 100000 / 4096 = 24.41, rounded to 24 (-1.7 %); wkrun's rate_iops is a whole number of I/Os per second, at least 1 (--lossy: rounded)), so params.rate_iops is absent (compare shows it as -, as a job without a cap)"
        ]
    );
    let d = crate::common::tempdir();
    let (code, out, err) = imported(
        d.path(),
        &[
            "--name=odd",
            "--filename=t.dat",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
            "--rate=100000",
            "--runtime=1",
            "--time_based",
        ],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("reads 100000 / 4096 = 24.41, rounded to 24 (-1.7 %)"),
        "{err}"
    );
}
