//! fio's rate caps read from its JSON and by `wkrun import fio` with one set of rules (attack 27 F1, F4;
//! trial 27 M1, M3), on real fio 3.33 output (tests/data/fio/README.md).

use crate::common::{code_out_err, tempdir, wkrun, write_file};
use crate::fio_attack24::read;
use crate::fio_odd::{doc, u};
use wkrun::vocab::Rate;

const TRIM_IOPS: &str = include_str!("../data/fio/fio-3.33-a27-randtrim-rate-iops-100.json");
const TRIM_1M: &str = include_str!("../data/fio/fio-3.33-a27-randtrim-rate-1m.json");
const TRIMWRITE: &str = include_str!("../data/fio/fio-3.33-a27-trimwrite-rate-iops-100.json");
const MIX100: &str = include_str!("../data/fio/fio-3.33-a27-randrw-mix100-rate-iops-100.json");
const MIX0: &str = include_str!("../data/fio/fio-3.33-a27-randrw-mix0-rate-iops-100.json");
const MAP_RATE: &str = include_str!("../data/fio/fio-3.33-t27-bssplit-randommap-rate-16m.json");
const MAP_POISSON: &str =
    include_str!("../data/fio/fio-3.33-t27-bssplit-randommap-poisson-16m.json");
const EXPORTED: &str = include_str!("../data/fio/fio-3.33-t27-export-rate-numjobs3.json");

/// A cap per direction.
fn cap(read: Option<u64>, write: Option<u64>) -> Option<Rate> {
    Some(Rate {
        total: None,
        read,
        write,
    })
}

/// The warnings of the first phase read from `text` that are about its rate cap.
fn rate_warnings(text: &str) -> Vec<String> {
    warnings_with(text, "fio's rate cap")
}

/// The warnings of the first phase read from `text` that start with `head`.
pub(crate) fn warnings_with(text: &str, head: &str) -> Vec<String> {
    let r = read(text);
    (r.phases[0].warnings.iter())
        .filter(|w| w.starts_with(head))
        .cloned()
        .collect()
}

/// `wkrun import fio -- ARGS -o s.toml` in `d`: its exit code and stderr, and whether it wrote the spec.
fn import(d: &std::path::Path, args: &[&str]) -> (i32, String, Option<String>) {
    let mut all = vec!["import", "fio", "-o", "s.toml", "--"];
    all.extend(args);
    let (code, _, err) = code_out_err(&wkrun(d, &all));
    let spec = std::fs::read_to_string(d.join("s.toml")).ok();
    let _ = std::fs::remove_file(d.join("s.toml"));
    (code, err, spec)
}

/// The line `key = ...` of a spec's (only) phase.
pub(crate) fn line<'a>(spec: &'a str, key: &str) -> Option<&'a str> {
    spec.lines().find(|l| l.starts_with(&format!("{key} = ")))
}

/// Attack 27 F1: fio caps a trim job's trims (`rw=randtrim --rate_iops=100`: 100.3 trims/s; `rate=1m`:
/// 255.9), and `rw=trimwrite --rate_iops=100` its writes and trims (99.97 and 100.3). A job of trims only
/// has its cap as wkrun's total cap, which paces trims, in the JSON reader and the import alike (fiotrim29:
/// both refused it); trimwrite's caps on trims beside writes are still not read, with the warning naming
/// them (it read the randtrim cap as a write cap, and said nothing of trimwrite's).
#[test]
fn a_cap_on_trims_only_is_the_total_cap_and_beside_writes_is_not_read() {
    let trims = doc(TRIM_IOPS);
    assert_eq!(trims["jobs"][0]["job options"]["rate_iops"], "100");
    assert_eq!(trims["jobs"][0]["trim"]["iops"], 100.2999);
    assert_eq!(doc(TRIM_1M)["jobs"][0]["trim"]["iops"], 255.914695);
    let tw = doc(TRIMWRITE);
    assert_eq!(
        (
            &tw["jobs"][0]["write"]["iops"],
            &tw["jobs"][0]["trim"]["iops"]
        ),
        (&99.966678.into(), &100.2999.into())
    );
    let total = |n: u64| {
        Some(Rate {
            total: Some(n),
            read: None,
            write: None,
        })
    };
    for (text, option, cap) in [(TRIM_IOPS, "rate_iops=100", 100), (TRIM_1M, "rate=1m", 256)] {
        assert_eq!(
            read(text).phases[0].params.rate_iops,
            total(cap),
            "{option}"
        );
        assert_eq!(rate_warnings(text), Vec::<String>::new(), "{option}");
    }
    let why = "a cap on trims of a job that also writes (fio caps its trims and its writes each); wkrun's per-direction caps are for reads and writes, and its total cap paces every I/O together";
    assert_eq!(read(TRIMWRITE).phases[0].params.rate_iops, None);
    assert_eq!(
        rate_warnings(TRIMWRITE),
        [format!(
            "fio's rate cap (rate_iops=100) is not read: `wkrun import fio` refuses it (`rate_iops=100`: {why}), so params.rate_iops is absent (compare shows it as -, as a job without a cap)"
        )]
    );
    let d = tempdir();
    for (option, cap) in [("--rate_iops=100", "100"), ("--rate=1m", "256")] {
        let (code, err, spec) = import(
            d.path(),
            &[
                "--name=capped",
                "--filename=t.dat",
                "--rw=randtrim",
                "--bs=4k",
                option,
                "--size=64m",
                "--runtime=3",
                "--time_based",
            ],
        );
        assert_eq!(code, 0, "{err}");
        let spec = spec.expect("written");
        assert_eq!(
            (line(&spec, "rate_iops"), line(&spec, "trim_percent")),
            (
                Some(format!("rate_iops = {cap}").as_str()),
                Some("trim_percent = 100")
            ),
            "{option}"
        );
    }
}

/// Attack 27 F4: `rw=randrw --rwmixread=100 --rate_iops=100` does reads only (fio 3.33: 100.3 reads/s, no
/// write), `--rwmixread=0` writes only (99.97 writes/s, no read). The JSON reader read that; the import made
/// a 50/50 spec capped 100 each way. Now both: read_percent 100 (0), the cap on the direction done.
#[test]
fn a_mix_of_one_direction_is_capped_in_that_direction() {
    let (m100, m0) = (doc(MIX100), doc(MIX0));
    assert_eq!(
        (
            u(&m100, "/jobs/0/read/total_ios"),
            u(&m100, "/jobs/0/write/total_ios")
        ),
        (301, 0)
    );
    assert_eq!(
        (
            u(&m0, "/jobs/0/read/total_ios"),
            u(&m0, "/jobs/0/write/total_ios")
        ),
        (0, 300)
    );
    let d = tempdir();
    for (text, mix, share, rate, spec_rate) in [
        (MIX100, "100", 100, cap(Some(100), None), "{ read = 100 }"),
        (MIX0, "0", 0, cap(None, Some(100)), "{ write = 100 }"),
    ] {
        let p = &read(text).phases[0].params;
        assert_eq!((p.read_percent, p.rate_iops), (Some(share), rate), "{mix}");
        assert_eq!(rate_warnings(text), Vec::<String>::new());
        let rw = format!("--rwmixread={mix}");
        let (code, err, spec) = import(
            d.path(),
            &[
                "--name=capped",
                "--filename=t.dat",
                "--size=64m",
                "--bs=4k",
                "--runtime=3",
                "--time_based",
                "--ioengine=psync",
                "--direct=1",
                "--rw=randrw",
                &rw,
                "--rate_iops=100",
            ],
        );
        assert_eq!(code, 0, "{err}");
        let spec = spec.expect("a spec");
        assert_eq!(
            (line(&spec, "read_percent"), line(&spec, "rate_iops")),
            (
                Some(format!("read_percent = {share}").as_str()),
                Some(format!("rate_iops = {spec_rate}").as_str())
            )
        );
        assert!(!err.contains("issues whichever is behind its cap"), "{err}");
    }
}

/// Trial 27 M1: `rate=16m` with `bssplit=4k/50:64k/50` under fio's random map (no `norandommap`) ran
/// 1253 I/Os in 2 s (626.19/s, a mean size of 26,786 B where the mix's is 34,816 B), not 16 MiB / 34,816 B
/// = 482 a second, which the JSON reader said, with no warning. The import refuses that job ("bssplit/
/// bsrange without norandommap"); the JSON reader leaves the cap absent with that reason (and that whether
/// the job had a bare `norandommap`, which fio's JSON does not list, is unknown). With Poisson
/// arrivals fio counts I/Os whatever their sizes (4055.97/s, ⌊16 MiB / 4 KiB⌋ = 4096): read.
#[test]
fn a_byte_rate_under_the_random_map_is_not_read() {
    let fio = doc(MAP_RATE);
    let ios = u(&fio, "/jobs/0/read/total_ios");
    let bytes = u(&fio, "/jobs/0/read/io_bytes");
    // The mean size, rounded.
    assert_eq!(
        (ios, bytes, (2 * bytes + ios) / (2 * ios)),
        (1253, 33_562_624, 26_786)
    );
    assert_eq!(fio["jobs"][0]["read"]["iops"], 626.186907);
    let r = read(MAP_RATE);
    assert_eq!(r.phases[0].params.rate_iops, None);
    let w = rate_warnings(MAP_RATE);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        // fio's JSON lists no bare flag: that the job had no norandommap, it cannot say (attack 28 F13).
        w[0].starts_with("fio's rate cap (rate=16m) is not read: whether the job had norandommap is unknown (fio's JSON does not list bare flags: write norandommap=1), and without it `wkrun import fio` refuses it (`bssplit/bsrange without norandommap`: fio's random map (each block once per pass) with a block-size mix draws the larger sizes less often than the mix says, so its I/Os are not the mix's and a byte rate gives more of them than the mix's mean size does"),
        "{}",
        w[0]
    );
    let poisson = doc(MAP_POISSON);
    assert_eq!(poisson["jobs"][0]["read"]["iops"], 4055.972014);
    assert_eq!(
        read(MAP_POISSON).phases[0].params.rate_iops,
        cap(Some(4096), None)
    );
    // The import refuses the job itself, as before.
    let d = tempdir();
    let (code, err, spec) = import(
        d.path(),
        &[
            "--name=r",
            "--filename=f.img",
            "--size=64m",
            "--rw=randread",
            "--bssplit=4k/50:64k/50",
            "--rate=16m",
            "--runtime=2",
            "--time_based",
        ],
    );
    assert_eq!((code, spec), (2, None), "{err}");
    assert!(err.contains("bssplit/bsrange without norandommap"), "{err}");
}

/// The spec of trial 27 M3: rate_iops = 500 over 4KiB and 64KiB alike, half reads, psync QD3.
const MIX_SPEC: &str = "format = 1\n[spec]\nname = \"eng\"\nversion = \"1\"\n[[phase]]\nkind = \"workload\"\nduration = \"1s\"\nread_percent = 50\nname = \"psmix\"\nengine = \"psync\"\nqueue_depth = 3\nblock_size = { \"4KiB\" = 50, \"64KiB\" = 50 }\nrate_iops = 500\n";

/// Trial 27 M3: export writes that spec's cap as `rate=2901333,2901333` for `numjobs=3`; the import and the
/// JSON reader rounded each job (83.33 to 83) and multiplied, 249 each way. Multiplied first, 3 × 2,901,333
/// / 34,816 = 250.0: the spec's 500 split as its read share, which compare takes for the same cap as the
/// spec's total (the trial's "parameters that differ" row named rate_iops).
#[test]
fn an_exported_cap_of_several_jobs_comes_back_whole() {
    let fio = doc(EXPORTED);
    let job = &fio["jobs"][2];
    assert_eq!(
        (
            &job["jobname"],
            &job["job options"]["rate"],
            &job["job options"]["numjobs"]
        ),
        (&"psmix".into(), &"2901333,2901333".into(), &"3".into())
    );
    let r = read(EXPORTED);
    assert_eq!(r.phases[2].params.rate_iops, cap(Some(250), Some(250)));
    let d = tempdir();
    write_file(d.path(), "mix.toml", MIX_SPEC);
    let target = d.path().join("t.img");
    let target = target.to_str().expect("a path");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "export",
            "fio",
            "mix.toml",
            "--target",
            target,
            "--target-size",
            "64MiB",
            "-o",
            "mix.fio",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let job = std::fs::read_to_string(d.path().join("mix.fio")).expect("the job file");
    assert!(
        job.contains("\nnumjobs=3\n") && job.contains("\nrate=2901333,2901333\n"),
        "{job}"
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "mix.fio", "-o", "back.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    let back = std::fs::read_to_string(d.path().join("back.toml")).expect("the spec");
    assert_eq!(
        line(&back, "rate_iops"),
        Some("rate_iops = { read = 250, write = 250 }")
    );
    // A run of the spec beside fio's run of its export: the caps are not a parameter that differs.
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "run",
            "mix.toml",
            "--target",
            target,
            "--target-size",
            "64MiB",
            "-q",
            "-o",
            "r1",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    write_file(d.path(), "e.json", EXPORTED);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "r1", "e.json"]));
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("psmix") && l.contains("parameters that differ"))
        .expect("the psmix row of parameters that differ");
    // psync QD3 is exported as numjobs=3 with one I/O each: those differ, the cap does not.
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        [
            "psmix",
            "parameters",
            "that",
            "differ",
            "queue_depth=3",
            "workers=1",
            "queue_depth=1",
            "workers=3"
        ]
    );
}
