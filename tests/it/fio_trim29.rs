//! fio's caps on trims, bare flags and groups run together, as `wkrun import fio` and fio's JSON reader
//! read them (attack 28 F7, F9, F13; trial 28 L4, L5), on real fio 3.33 output (tests/data/fio/README.md)
//! and, where fio is installed, a real fio run of an exported job.

use crate::common::{code_out_err, skip, tempdir, wkrun, write_file};
use crate::fio_attack24::read;
use crate::fio_odd::doc;
use crate::fio_rate28::line;
use wkrun::vocab::Rate;

/// fio 3.33 running the export of [`TRIMS`] (2 falloc jobs at `rate_iops=0,0,50`, 2 s): 200 trims.
const EXPORTED_TRIMS: &str =
    include_str!("../data/fio/fio-3.33-f29-export-randtrim-total-100.json");
/// Attack 28 F9: `rw=randrw rwmixread=70 rate_iops=100,100,50 numjobs=2` (libaio, 3 s).
const TRIM_PART: &str = include_str!("../data/fio/fio-3.33-a28-randrw-rate-iops-trim-part.json");
/// Attack 28 F13: `norandommap` bare in [global], `rw=randwrite bsrange=4k-16k rate=1m` (psync, 4 s).
const BARE_FLAG: &str = include_str!("../data/fio/fio-3.33-a28-bsrange-bare-norandommap.json");
/// Attack 28 F7: K1 (`randread rate_iops=100`) and K2 (`new_group`, `randwrite rate_iops=50 numjobs=2`),
/// no stonewall: fio ran all three jobs at once for 2 s on one file.
const NEW_GROUP: &str = include_str!("../data/fio/fio-3.33-a28-new-group-together.json");
/// Two jobs of one file that fio ran one after the other (`fio_json`'s data).
const TWO_JOBS: &str = include_str!("../data/fio/fio-3.33-two-jobs.json");

/// A workload of trims only capped at 100 I/Os per second in all, on 2 workers.
const TRIMS: &str = "[[phase]]\nname = \"trims\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\ntrim_percent = 100\nworkers = 2\nduration = \"2s\"\nspan = \"32MiB\"\nrate_iops = 100\n";

/// The total cap `n`.
fn total(n: u64) -> Option<Rate> {
    Some(Rate {
        total: Some(n),
        read: None,
        write: None,
    })
}

/// The warnings of phase `i` read from `text` that begin with `head`.
fn warnings(text: &str, i: usize, head: &str) -> Vec<String> {
    (read(text).phases[i].warnings.iter())
        .filter(|w| w.starts_with(head))
        .cloned()
        .collect()
}

/// A total cap over a workload of trims only is fio's cap on trims, `rate_iops=0,0,50` for each of 2 jobs;
/// `wkrun import fio` refused every cap on trims, so export then import did not give the spec back. Now the
/// import reads a job of trims only's cap as the total cap (which paces trims), 100 again, as fio's JSON
/// reader does: fio 3.33 ran the exported job at 99.700897 trims/s (200 trims in 2006 ms). The job file
/// `-o` writes ends in a line break, and is what stdout gets (trial 28 L4). A live fio run, where fio is
/// installed, reads back the same cap and runs at it.
#[test]
fn a_total_cap_on_trims_goes_to_fio_and_back() {
    let test = "fio_trim29::a_total_cap_on_trims_goes_to_fio_and_back";
    let d = tempdir();
    write_file(d.path(), "e.toml", &crate::common::spec_text("e", TRIMS));
    let args = [
        "export",
        "fio",
        "e.toml",
        "--target",
        "t.img",
        "--target-size",
        "64MiB",
    ];
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    let mut to_file = args.to_vec();
    to_file.extend(["-o", "e.fio"]);
    let (code, _, err) = code_out_err(&wkrun(d.path(), &to_file));
    assert_eq!(code, 0, "{err}");
    let job = std::fs::read_to_string(d.path().join("e.fio")).expect("e.fio");
    assert_eq!(job, out);
    assert!(job.ends_with("refill_buffers=1\n"), "{job}");
    assert_eq!(
        job.lines()
            .filter(|l| l.starts_with("rate") || l.starts_with("numjobs"))
            .collect::<Vec<_>>(),
        ["numjobs=2", "rate_iops=0,0,50"]
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "e.fio", "-o", "back.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    let back = std::fs::read_to_string(d.path().join("back.toml")).expect("back.toml");
    assert_eq!(
        ["rate_iops", "trim_percent", "workers"].map(|k| line(&back, k)),
        [
            Some("rate_iops = 100"),
            Some("trim_percent = 100"),
            Some("workers = 2")
        ],
        "{back}"
    );
    let fio = doc(EXPORTED_TRIMS);
    assert_eq!(
        (
            &fio["jobs"][0]["job options"]["rate_iops"],
            &fio["jobs"][0]["trim"]["total_ios"],
            &fio["jobs"][0]["trim"]["iops"]
        ),
        (&"0,0,50".into(), &200.into(), &99.700897.into())
    );
    let p = &read(EXPORTED_TRIMS).phases[0];
    assert_eq!(p.params.rate_iops, total(100));
    assert_eq!(
        warnings(EXPORTED_TRIMS, 0, "fio's rate cap"),
        Vec::<String>::new()
    );
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let o = std::process::Command::new("fio")
        .current_dir(d.path())
        .args(["e.fio", "--output-format=json", "--output=fio.json"])
        .output()
        .expect("run fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(d.path().join("fio.json")).expect("fio.json");
    let r = read(&text);
    assert_eq!(r.phases[0].params.rate_iops, total(100));
    // fio paces each job's trims at 50/s from its start: 100 per job in its 2 s (200 in the stored run);
    // a live run on a busy host may end a trim either side of the edge.
    let trims = doc(&text)["jobs"][0]["trim"]["total_ios"].as_u64();
    assert!(trims.is_some_and(|n| (198..=202).contains(&n)), "{text}");
}

/// Attack 28 F9: `rate_iops=100,100,50` on a job that never trims (`rw=randrw`): fio ignores the part on
/// trims and capped reads and writes at 100/s per job (199.73 each for its 2 jobs). The import refused "a
/// cap on trims" and the JSON reader left the whole cap unread; both read the reads' and writes' caps now,
/// with a note saying the part on trims is ignored.
#[test]
fn a_cap_on_trims_of_a_job_without_trims_is_ignored_with_a_note() {
    let fio = doc(TRIM_PART);
    assert_eq!(
        (
            &fio["jobs"][0]["read"]["iops"],
            &fio["jobs"][0]["write"]["iops"]
        ),
        (&199.733688.into(), &199.733688.into())
    );
    let p = &read(TRIM_PART).phases[0];
    assert_eq!(
        p.params.rate_iops,
        Some(Rate {
            total: None,
            read: Some(200),
            write: Some(200)
        })
    );
    let why = "fio applies the value's third part to trims only, and this job does not trim: fio ignores it, as the import does (the value's caps on reads and writes are read)";
    assert_eq!(
        warnings(TRIM_PART, 0, "fio's rate cap"),
        [format!(
            "fio's rate cap is read without its part on trims: `rate_iops=100,100,50`: {why}"
        )]
    );
    let d = tempdir();
    let job = "[global]\nfilename=t.img\nsize=32m\ntime_based\nruntime=2\ndirect=1\n[rtrimcap]\nrw=randrw\nbs=4k\nrate_iops=100,100,50\n";
    write_file(d.path(), "r.fio", job);
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "r.fio", "-o", "r.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    let spec = std::fs::read_to_string(d.path().join("r.toml")).expect("r.toml");
    assert_eq!(
        line(&spec, "rate_iops"),
        Some("rate_iops = { read = 100, write = 100 }")
    );
    assert!(
        err.contains(&format!("r.fio:10: rate_iops=100,100,50: {why}")),
        "{err}"
    );
}

/// Attack 28 F13: fio's JSON lists no bare flag, so a job with `norandommap` in its job file (not
/// `norandommap=1`) shows none; the reader said its rate cap was not read for a mix "without norandommap",
/// which the job had. It says that whether the job had it is unknown; with `norandommap=1` listed, the cap
/// is read (`rate=1m` over bsrange=4k-16k's mean of 10,240 B: 102.4, 102; fio ran 101.2 writes/s).
#[test]
fn a_bare_norandommap_is_unknown_not_absent() {
    let fio = doc(BARE_FLAG);
    assert_eq!(fio["global options"].get("norandommap"), None);
    assert_eq!(read(BARE_FLAG).phases[0].params.rate_iops, None);
    assert_eq!(
        warnings(BARE_FLAG, 0, "fio's rate cap"),
        [
            "fio's rate cap (rate=1m) is not read: whether the job had norandommap is unknown (fio's JSON does not list bare flags: write norandommap=1), and without it `wkrun import fio` refuses it (`bssplit/bsrange without norandommap`: fio's random map (each block once per pass) with a block-size mix draws the larger sizes less often than the mix says, so its I/Os are not the mix's and a byte rate gives more of them than the mix's mean size does; wkrun draws a mix's offsets uniformly with replacement, as fio's norandommap (--lossy: offsets drawn with replacement)), so params.rate_iops is absent (compare shows it as -, as a job without a cap)"
        ]
    );
    let listed = BARE_FLAG.replacen(
        "\"global options\" : {",
        "\"global options\" : {\n    \"norandommap\" : \"1\",",
        1,
    );
    assert_ne!(listed, BARE_FLAG);
    assert_eq!(
        read(&listed).phases[0].params.rate_iops,
        Some(Rate {
            total: None,
            read: None,
            write: Some(102)
        })
    );
    assert_eq!(warnings(&listed, 0, "fio's rate cap"), Vec::<String>::new());
}

/// Attack 28 F7: jobs of two groups (`new_group`, no `stonewall`) that fio ran at once on one file read as
/// two phases one after the other, with no word of it. Their durations, 2001 and 2002 ms, add up to more
/// than fio's elapsed 3 s: each phase says they ran at the same time. Two jobs fio ran one after the other
/// fit in its elapsed time, and say nothing of it.
#[test]
fn groups_that_ran_at_once_say_so() {
    let fio = doc(NEW_GROUP);
    assert_eq!(
        (&fio["jobs"][0]["elapsed"], &fio["jobs"][1]["groupid"]),
        (&3.into(), &1.into())
    );
    let head = "phases that ran at the same time: ";
    let w = "phases that ran at the same time: the 2 phases read here ran 4003 ms in all, more than fio's elapsed 3 s from its start to its report, so they did not run one after another: some ran at the same time on one target (fio runs a job without stonewall beside the ones before it, new_group or not, and its JSON lists neither flag when bare), which ones fio's JSON does not say; their figures are under each other's load (`wkrun import fio` refuses jobs that run at the same time on one target)";
    for i in 0..2 {
        assert_eq!(warnings(NEW_GROUP, i, head), [w], "phase {i}");
    }
    let r = read(TWO_JOBS);
    assert_eq!(r.phases.len(), 2);
    for i in 0..2 {
        assert_eq!(
            warnings(TWO_JOBS, i, head),
            Vec::<String>::new(),
            "phase {i}"
        );
    }
}

/// Trial 28 L5: of fio's falloc job, `wkrun warnings` said only that `params.engine` is absent, and
/// `compare` showed `engine=falloc`: the warning says both now.
#[test]
fn a_falloc_job_says_what_compare_shows() {
    assert_eq!(read(EXPORTED_TRIMS).phases[0].params.engine, None);
    assert_eq!(
        warnings(EXPORTED_TRIMS, 0, "fio's job ran on its engine"),
        [
            "fio's job ran on its engine falloc, which wkrun has not: params.engine is absent, and compare shows it by fio's name, engine=falloc"
        ]
    );
    assert_eq!(
        wkrun::fio::json::other_engine(&read(EXPORTED_TRIMS).phases[0]),
        Some("falloc")
    );
}

/// Trial 29 L2: `rate_iops=300,100,50` on a mixed job: both its notes cite the option's line (10), where the
/// note on the caps' mix cited the job's header (6).
#[test]
fn each_note_on_an_option_cites_its_line() {
    let d = tempdir();
    let job = "[global]\nfilename=t.img\nsize=32m\ntime_based\nruntime=2\n[mixjob]\nrw=randrw\nrwmixread=70\nbs=4k\nrate_iops=300,100,50\n";
    write_file(d.path(), "r.fio", job);
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "r.fio", "-o", "r.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    let notes: Vec<&str> = (err.lines())
        .filter(|l| l.contains("rate_iops=300,100"))
        .collect();
    assert_eq!(
        notes,
        [
            "note: r.fio:10: rate_iops=300,100,50: fio applies the value's third part to trims only, and this job does not trim: fio ignores it, as the import does (the value's caps on reads and writes are read)",
            "note: r.fio:10: rate_iops=300,100 with rwmixread=70: fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps (300:100), not rwmixread, when the device keeps up; wkrun keeps read_percent exact, and a cap that mix cannot reach would fall behind all run, so read_percent = 75, the share fio realises",
        ]
    );
}
