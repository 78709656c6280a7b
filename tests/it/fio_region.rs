//! Attack 26: fio's region with `filesize` runs from `offset` to the end of the file (`size` is only the
//! amount of I/O). `wkrun export fio` writes no filesize beside a job's size, so real fio stays in the
//! phase's span; `import fio` and the JSON reader read filesize as fio does. F4: a refused option's harmless
//! value is its fio default; `buffer_pattern=0` is zeros. F9: export's advice for workers that do not split.

use crate::common::{code_out_err, skip, spec_text, tempdir, wkrun, write_file};
use crate::fio_cli::fio_missing;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// A spec on `t.img` (16 MiB) with the one phase `w` (`phase`: its lines after its name).
fn spec(phase: &str) -> String {
    spec_text(
        "r",
        &format!(
            "[target]\npath = \"t.img\"\nsize = \"16MiB\"\n[defaults]\nengine = \"libaio\"\ndirect = true\nqueue_depth = 4\nblock_size = \"4KiB\"\n[[phase]]\nname = \"w\"\n{phase}"
        ),
    )
}

/// Writes of fio's logs: (offset, length).
type Writes = Vec<(u64, u64)>;

/// The writes (offset, length) of one I/O log of fio's, `--write_iolog` (version 3: time, file, action,
/// offset, length; version 2 without the time) or a latency log of `--log_offset=1` (time, latency,
/// direction 1 for writes, length, offset).
fn writes(log: &str) -> Writes {
    let num = |w: &str| w.trim().parse::<u64>().expect("a number in fio's log");
    log.lines()
        .filter_map(|l| {
            if l.contains(',') {
                let w: Vec<&str> = l.split(',').collect();
                return (w[2].trim() == "1").then(|| (num(w[4]), num(w[3])));
            }
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = w.iter().position(|&x| x == "write")?;
            Some((num(w[at + 1]), num(w[at + 2])))
        })
        .collect()
}

/// What real fio did with the job file `s.fio` in `dir`: the writes of each job (clone) from its latency
/// log, fio's one `--write_iolog` (all jobs write into it: whole lines only with one job, read by
/// [`writes`]), and fio's JSON.
fn run_fio(dir: &Path) -> (Writes, String, Vec<u8>) {
    for f in std::fs::read_dir(dir).expect("dir").flatten() {
        if f.file_name().to_string_lossy().ends_with(".log") {
            std::fs::remove_file(f.path()).expect("old log");
        }
    }
    let o = std::process::Command::new("fio")
        .args([
            "s.fio",
            "--write_iolog=io.log",
            "--write_lat_log=w",
            "--log_offset=1",
            "--output-format=json",
            "--output=f.json",
        ])
        .current_dir(dir)
        .output()
        .expect("fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut per_job = Vec::new();
    for f in std::fs::read_dir(dir).expect("dir").flatten() {
        let n = f.file_name().to_string_lossy().into_owned();
        if n.starts_with("w_clat.") {
            per_job.extend(writes(&std::fs::read_to_string(f.path()).expect("log")));
        }
    }
    let iolog = std::fs::read_to_string(dir.join("io.log")).expect("iolog");
    let json = std::fs::read(dir.join("f.json")).expect("fio's JSON");
    (per_job, iolog, json)
}

/// An exported phase: its lines, its span [start, end) in the 16 MiB file, whether it writes each block of
/// it once (a fill, a sequential pass), and whether fio's job is one (its I/O log then holds whole lines).
struct Kind {
    name: &'static str,
    phase: &'static str,
    span: (u64, u64),
    once: bool,
    one_job: bool,
}

const KINDS: &[Kind] = &[
    Kind {
        name: "random write",
        phase: "kind = \"workload\"\npattern = \"random\"\nread_percent = 0\nsize = \"2MiB\"\n",
        span: (0, 16 * MIB),
        once: false,
        one_job: true,
    },
    Kind {
        name: "sequential fill",
        phase: "kind = \"fill\"\nblock_size = \"128KiB\"\n",
        span: (0, 16 * MIB),
        once: true,
        one_job: true,
    },
    Kind {
        name: "2-worker fill",
        phase: "kind = \"fill\"\nblock_size = \"128KiB\"\nworkers = 2\nspan = \"50%\"\n",
        span: (0, 8 * MIB),
        once: true,
        one_job: false,
    },
    Kind {
        name: "offset+span random",
        phase: "kind = \"workload\"\npattern = \"random\"\nread_percent = 0\noffset = \"4MiB\"\nspan = \"4MiB\"\nduration = \"1s\"\n",
        span: (4 * MIB, 8 * MIB),
        once: false,
        one_job: true,
    },
    Kind {
        name: "offset+span sequential",
        phase: "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\noffset = \"4MiB\"\nspan = \"4MiB\"\nsize = \"4MiB\"\n",
        span: (4 * MIB, 8 * MIB),
        once: true,
        one_job: true,
    },
    Kind {
        name: "span in percent",
        phase: "kind = \"workload\"\npattern = \"random\"\nread_percent = 0\noffset = \"25%\"\nspan = \"50%\"\nsize = \"2MiB\"\n",
        span: (4 * MIB, 12 * MIB),
        once: false,
        one_job: true,
    },
];

/// Every write lies in [start, end); for `once`, the writes cover it exactly, each block once.
fn held(what: &str, w: &[(u64, u64)], (start, end): (u64, u64), once: bool) {
    assert!(!w.is_empty(), "{what}: no writes");
    let outside: Vec<_> = w
        .iter()
        .filter(|&&(o, l)| o < start || o + l > end)
        .collect();
    assert_eq!(
        outside.len(),
        0,
        "{what}: {} writes, outside: {:?}",
        w.len(),
        &outside[..outside.len().min(5)]
    );
    if once {
        let mut w = w.to_vec();
        w.sort_unstable();
        let mut at = start;
        for &(o, l) in &w {
            assert_eq!(o, at, "{what}: a write at {o}, the next block at {at}");
            at += l;
        }
        assert_eq!(at, end, "{what}: the writes end at {at}");
    }
}

/// F1 (and the lead's percent fill): each kind of exported write phase, run by real fio on a file that does
/// not exist, on one that does (the spec's target: sizes in bytes of its 16 MiB), and on an existing file
/// named with `--target` (sizes in bytes of the 16 MiB export reads, trial 27 L5): every write of
/// every job is in the phase's span, a fill or a sequential pass covers it exactly, a missing file is
/// created up to the end of the job's region, and fio's JSON of a one-job phase on a new file reads back as the span.
#[test]
fn exported_writes_stay_in_the_span() {
    if let Some(why) = fio_missing() {
        return skip("fio_region::exported_writes_stay_in_the_span", &why);
    }
    let d = tempdir();
    let img = d.path().join("t.img");
    for k in KINDS {
        write_file(d.path(), "s.toml", &spec(k.phase));
        for (variant, exists, args) in [
            ("a new file", false, &[][..]),
            ("an existing file", true, &[][..]),
            (
                "--target on an existing file",
                true,
                &["--target", "t.img"][..],
            ),
        ] {
            let what = format!("{}, {variant}", k.name);
            let _ = std::fs::remove_file(&img);
            if exists {
                std::fs::write(&img, vec![1u8; 16 << 20]).expect("t.img");
            }
            let mut a = vec!["export", "fio", "s.toml", "-o", "s.fio"];
            a.extend_from_slice(args);
            let (code, _, err) = code_out_err(&wkrun(d.path(), &a));
            assert_eq!(code, 0, "{what}: {err}");
            let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
            let sized = job.contains("\nsize=");
            // fio's region is [offset, offset + size) only without filesize beside size.
            assert!(!(sized && job.contains("filesize=")), "{what}: {job}");
            let said = "; differs: no filesize beside a job's size (with it fio's size is only the amount of I/O and the job's region runs from its offset to the end of the file): before its first job runs, fio lays out a missing file up to the furthest end of the jobs' regions (offset + size), not at the target's 16MiB\n";
            // An existing file is measured, the spec's own too (trial 28): fio lays out no file.
            assert_eq!(
                job.contains(said),
                sized && args.is_empty() && !exists,
                "{what}: {job}"
            );
            let (per_job, iolog, json) = run_fio(d.path());
            held(&format!("{what} (latency logs)"), &per_job, k.span, k.once);
            if k.one_job {
                let iolog = writes(&iolog);
                held(&format!("{what} (--write_iolog)"), &iolog, k.span, k.once);
            }
            let len = std::fs::metadata(&img).expect("t.img").len();
            let created = if sized { k.span.1 } else { 16 * MIB };
            assert_eq!(
                len,
                if exists { 16 * MIB } else { created },
                "{what}: {job}"
            );
            // On an existing file no job states the file's size (it is measured, not written as
            // `filesize`; trial 28): fio's JSON of a whole-file job has no span to read.
            if k.one_job && !exists {
                let r = wkrun::fio::json::from_bytes("f.json", &json).expect("fio's JSON read");
                let p = &r.phases[0].params;
                let want = (k.span.0, k.span.1 - k.span.0);
                assert_eq!((p.span_start_bytes, p.span_bytes), want, "{what}: {job}");
            }
        }
    }
}

/// Item 4: a whole-file phase keeps `filesize=16m`; fio's JSON of that job file reads as the whole 16 MiB,
/// and `wkrun warnings` says nothing of an unknown span.
#[test]
fn an_exported_filesize_reads_back_as_the_span() {
    if let Some(why) = fio_missing() {
        return skip(
            "fio_region::an_exported_filesize_reads_back_as_the_span",
            &why,
        );
    }
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec(KINDS[0].phase));
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "s.toml", "-o", "s.fio"],
    ));
    assert_eq!(code, 0, "{err}");
    let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
    assert!(job.contains("\nfilesize=16m\n"), "{job}");
    let (per_job, _, json) = run_fio(d.path());
    held("whole file", &per_job, (0, 16 * MIB), false);
    let r = wkrun::fio::json::from_bytes("f.json", &json).expect("read");
    let p = &r.phases[0].params;
    assert_eq!((p.span_start_bytes, p.span_bytes), (0, 16 * MIB));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["warnings", "f.json"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("span is unknown") && !err.contains("span is unknown"),
        "{out}{err}"
    );
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "f.json"]));
    assert_eq!(code, 0, "{err}");
    reported(d.path(), "span [0, 16777216)");
}

/// `wkrun report f.json` in `dir` names `span` (as attack 26 read the span: `span [8388608, 16777216)` of
/// fio's 56 MiB).
fn reported(dir: &Path, span: &str) {
    let (code, _, err) = code_out_err(&wkrun(dir, &["report", "f.json", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(dir.join("rep/index.html")).expect("report");
    assert!(html.contains(span), "no {span} in the report");
}

/// F1: with filesize, import's span and the JSON reader's run from offset to the end of the file; size is
/// the amount of I/O.
#[test]
fn filesize_makes_the_span_run_to_the_end_of_the_file() {
    let d = tempdir();
    let args = [
        "import",
        "fio",
        "--",
        "--name=w",
        "--filename=t.img",
        "--filesize=64m",
        "--rw=randwrite",
        "--bs=4k",
        "--offset=8m",
        "--size=8m",
    ];
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\noffset = \"8MiB\"\nspan = \"56MiB\"\nsize = \"8MiB\"\n"),
        "{out}"
    );
    let json = include_str!("../data/fio/fio-3.33-filesize-offset-size.json");
    let r = wkrun::fio::json::from_bytes("f.json", json.as_bytes()).expect("read");
    let p = &r.phases[0].params;
    assert_eq!((p.span_start_bytes, p.span_bytes), (8 * MIB, 56 * MIB));
    // Attack 26's report said `span [8388608, 16777216)` of this run.
    write_file(d.path(), "f.json", json);
    reported(d.path(), "span [8388608, 67108864)");
}

/// F4: `percentage_random=0` of a random job is sequential (refused); 100 is fio's default (accepted);
/// `buffer_pattern=0` writes zeros.
#[test]
fn a_refused_option_is_harmless_only_at_its_default() {
    let d = tempdir();
    let import = |extra: &str| {
        let mut a = vec![
            "import",
            "fio",
            "--",
            "--name=r",
            "--filename=t.img",
            "--size=8m",
            "--rw=randwrite",
        ];
        a.push(extra);
        code_out_err(&wkrun(d.path(), &a))
    };
    let (code, _, err) = import("--percentage_random=0");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("percentage_random"), "{err}");
    let (code, out, err) = import("--percentage_random=100");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pattern = \"random\""), "{out}");
    let (code, out, err) = import("--buffer_pattern=0");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\ndata = \"zeros\"\n"), "{out}");
    let (code, _, err) = import("--buffer_pattern=0xdeadbeef");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("buffer_pattern"), "{err}");
}

/// F9: 3 workers over 10 MiB do not split into fio's equal parts (wkrun's plan: 854, 853 and 853 blocks):
/// the advice names what would, the phase not exported says no "differs:", and a span that follows the
/// advice (12 MiB, a multiple of 3 × 4 KiB) exports as three equal parts.
#[test]
fn workers_that_do_not_split_get_true_advice() {
    let d = tempdir();
    let phase = |span: &str| {
        spec(&format!(
            "kind = \"workload\"\npattern = \"random\"\nread_percent = 0\nspan = \"{span}\"\nworkers = 3\nworkers_split = \"partitioned\"\nduration = \"1s\"\n"
        ))
    };
    write_file(d.path(), "s.toml", &phase("10MiB"));
    let (_, _, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "s.toml", "-o", "s.fio"],
    ));
    assert!(err.contains("not exported: phase w: fio's 3 jobs (numjobs, offset_increment) each take an equal part, and the span 10MiB is no multiple of 3 × 4KiB (wkrun's workers take whole blocks, parts that differ by a block where they do not divide); a span in bytes that is a multiple of 3 × 4KiB would split\n"), "{err}");
    assert!(!err.contains("differs:"), "{err}");
    write_file(d.path(), "s.toml", &phase("12MiB"));
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "s.toml", "-o", "s.fio"],
    ));
    assert_eq!(code, 0, "{err}");
    let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
    assert!(
        job.contains("\nsize=4m\nnumjobs=3\noffset_increment=4m\n"),
        "{job}"
    );
}

/// The writes of each of fio's jobs (clones) in `dir`, from its latency log `w_clat.N.log` (N from 1).
fn writes_by_job(dir: &Path) -> Vec<Writes> {
    let mut by_job = Vec::new();
    for n in 1.. {
        match std::fs::read_to_string(dir.join(format!("w_clat.{n}.log"))) {
            Ok(log) => by_job.push(writes(&log)),
            Err(_) => return by_job,
        }
    }
    by_job
}

/// A phase with workers exported on an existing file named with `--target`: its lines, the region options
/// of its job, and whether it writes each block of its span once.
struct OnExisting {
    name: &'static str,
    phase: &'static str,
    region: &'static str,
    once: bool,
}

const ON_EXISTING: &[OnExisting] = &[
    OnExisting {
        name: "psync, 2 workers at queue depth 4 (8 jobs)",
        phase: "kind = \"workload\"\nengine = \"psync\"\nworkers = 2\npattern = \"random\"\ncoverage = \"full\"\nread_percent = 0\nsize = \"100%\"\n",
        region: "\nsize=3m\nnumjobs=8\noffset_increment=3m\n",
        once: true,
    },
    OnExisting {
        name: "3-worker fill",
        phase: "kind = \"fill\"\nblock_size = \"128KiB\"\nworkers = 3\n",
        region: "\nsize=8m\nnumjobs=3\noffset_increment=8m\n",
        once: true,
    },
    OnExisting {
        name: "offset and span in percent, 2 workers",
        phase: "kind = \"workload\"\npattern = \"random\"\ncoverage = \"full\"\nread_percent = 0\nworkers = 2\noffset = \"25%\"\nspan = \"50%\"\nsize = \"100%\"\n",
        region: "\noffset=6m\nsize=6m\nnumjobs=2\noffset_increment=6m\n",
        once: true,
    },
    OnExisting {
        name: "null engine, 2 workers",
        phase: "kind = \"workload\"\nengine = \"null\"\nworkers = 2\nread_percent = 0\nduration = \"1s\"\nrate_iops = 2000\n",
        region: "\nsize=12m\nnumjobs=2\noffset_increment=12m\n",
        once: false,
    },
    OnExisting {
        name: "null engine, 1 worker",
        phase: "kind = \"workload\"\nengine = \"null\"\nread_percent = 0\nduration = \"1s\"\nrate_iops = 2000\n",
        region: "\nsize=24m\nruntime=1s\n",
        once: false,
    },
];

/// Trial 27 L5 and M2: on an existing 24 MiB file named with `--target` (and `--target-size 8MiB`, which a
/// run ignores there), phases with workers are exported in bytes of the file's size (8 psync jobs of 3 MiB,
/// 3 fill workers of 8 MiB, where percentages do not split), and a null-engine phase gets its region in
/// bytes, which fio's null engine needs (it opens no file: with `size=50%`, "you need to specify size=",
/// error 22). Real fio keeps every job's writes in its part of the planned span ([`in_parts`]) and the file
/// keeps its size. Without `--target`, the spec's file of unknown size: the null phase is refused, saying
/// why.
#[test]
fn workers_and_null_jobs_on_an_existing_file_in_its_bytes() {
    if let Some(why) = fio_missing() {
        return skip(
            "fio_region::workers_and_null_jobs_on_an_existing_file_in_its_bytes",
            &why,
        );
    }
    let d = tempdir();
    let img = d.path().join("t.img");
    for k in ON_EXISTING {
        std::fs::write(&img, vec![1u8; 24 << 20]).expect("t.img");
        let err = in_parts(d.path(), k, &["--target", "t.img", "--target-size", "8MiB"]);
        assert!(err.contains("note: t.img exists: the target size setting is ignored (it applies only to a file wkrun creates)\n"), "{}: {err}", k.name);
        let len = std::fs::metadata(&img).expect("t.img").len();
        assert_eq!(len, 24 * MIB, "{}", k.name);
    }
    // The spec's own file when it exists is read as --target reads it (trial 28): the null phase's region
    // is in bytes of its 24 MiB.
    write_file(
        d.path(),
        "s.toml",
        &spec(ON_EXISTING[3].phase).replace("size = \"16MiB\"\n", ""),
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "s.toml"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "differs: target.path t.img exists: the jobs' regions are in bytes of its size at export, 24MiB, as the plan resolves them (a percentage rounded to whole blocks, workers' parts of whole blocks: fio's percentages of the file it finds are not on those blocks, and its null engine opens no file); on a file or device of another size, export again\n"
    );
    assert!(out.contains("\n[w]\nioengine=null\ndirect=1\nrw=randwrite\nnorandommap=1\nbs=4k\niodepth=4\nsize=12m\nnumjobs=2\noffset_increment=12m\n"), "{out}");
    // Not there: its size is unknown, the null phase is refused, and with it every phase: exit 2 (attack
    // 28 F4), nothing on stdout.
    std::fs::remove_file(&img).expect("rm t.img");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "s.toml"]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.starts_with(
        "not exported: phase w: fio's null engine opens no file, so it needs the job's region in bytes (size=, offset=; a percentage, or no size, ends the job with \"you need to specify size=\", error 22), and the job file does not state the file's size: export with --target naming the existing file or device (its size is read) or --target-size for a file to create, or give span and offset in bytes\nerror: s.toml: no phase can be exported"
    ), "{err}");
}

/// Exports phase `k` of [`ON_EXISTING`] (in `spec`'s file) on the existing 24 MiB target `on` names
/// (`--target PATH`, ...) and runs the job file with real fio in `dir`: the job's region options are
/// `k.region` in bytes, with no filesize and a `differs:` line naming the size; every write of each fio job
/// lies in one equal part of the planned span (`wkrun plan --json` on the same target), each part one job's,
/// inside the part of the plan's worker that holds it; a fill or a full pass covers each part once; a
/// one-job phase's `--write_iolog` lies in the span; fio's JSON reads back as the plan's span, writes done.
/// Returns export's stderr.
fn in_parts(dir: &Path, k: &OnExisting, on: &[&str]) -> String {
    let what = k.name;
    write_file(dir, "s.toml", &spec(k.phase));
    let mut a = vec!["export", "fio", "s.toml", "-o", "s.fio"];
    a.extend_from_slice(on);
    let (code, _, err) = code_out_err(&wkrun(dir, &a));
    assert_eq!(code, 0, "{what}: {err}");
    assert!(!err.contains("not exported"), "{what}: {err}");
    let said = format!(
        "differs: --target {} exists: the jobs' regions are in bytes of its size at export, 24MiB, as the plan resolves them (a percentage rounded to whole blocks, workers' parts of whole blocks: fio's percentages of the file it finds are not on those blocks, and its null engine opens no file); on a file or device of another size, export again\n",
        on[1]
    );
    assert!(err.contains(&said), "{what}: {err}");
    let job = std::fs::read_to_string(dir.join("s.fio")).expect("job file");
    assert!(job.contains(k.region), "{what}: {job}");
    assert!(!job.contains("filesize="), "{what}: {job}");
    // The plan of the run on the same target: its span and its workers' parts.
    let mut a = vec!["plan", "s.toml", "--json"];
    a.extend_from_slice(on);
    let (code, out, perr) = code_out_err(&wkrun(dir, &a));
    assert_eq!(code, 0, "{what}: {perr}");
    let (span, parts) = planned_parts(&out);
    let (_, iolog, json) = run_fio(dir);
    let by_job = writes_by_job(dir);
    let jobs = by_job.len() as u64;
    let each = (span.1 - span.0) / jobs;
    // fio numbers the logs of a job's clones in an order of its own: each job's part is the one its first
    // write is in, and the jobs take every part once.
    let mut taken = Vec::new();
    for w in &by_job {
        let first = w.iter().map(|x| x.0).min();
        let first = first.unwrap_or_else(|| panic!("{what}: a job wrote nothing: {job}"));
        let i = first.saturating_sub(span.0) / each;
        taken.push(i);
        let part = (span.0 + i * each, span.0 + (i + 1) * each);
        let worker = parts[(i * parts.len() as u64 / jobs) as usize];
        assert!(
            worker.0 <= part.0 && part.1 <= worker.1,
            "{what}: job {i} {part:?} outside worker {worker:?}"
        );
        held(&format!("{what}, job {i}"), w, part, k.once);
    }
    taken.sort_unstable();
    assert_eq!(taken, (0..jobs).collect::<Vec<_>>(), "{what}");
    if jobs == 1 {
        held(
            &format!("{what} (--write_iolog)"),
            &writes(&iolog),
            span,
            false,
        );
    }
    let r = wkrun::fio::json::from_bytes("f.json", &json).expect("fio's JSON read");
    let p = &r.phases[0];
    assert_eq!(
        (p.params.span_start_bytes, p.params.span_bytes),
        (span.0, span.1 - span.0),
        "{what}: {job}"
    );
    assert!(p.completed && p.write.ops > 0, "{what}: {job}");
    err
}

/// As [`workers_and_null_jobs_on_an_existing_file_in_its_bytes`], on a 24 MiB loop device (root): the
/// device's size read at export; a null job with workers there runs each job from offset 0.
#[test]
fn workers_and_null_jobs_on_a_block_device_in_its_bytes() {
    let test = "fio_region::workers_and_null_jobs_on_a_block_device_in_its_bytes";
    if let Some(why) = fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let _guard = crate::common::loop_guard();
    let dev = match crate::common::LoopDev::new(d.path(), 24, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    let path = dev.dev.to_string_lossy().into_owned();
    let null = &ON_EXISTING[3];
    for k in ON_EXISTING.iter().filter(|k| k.name != null.name) {
        in_parts(d.path(), k, &["--target", &path]);
    }
    // fio 3.33's null engine on a device does nothing in a job past offset 0 (offset_increment=12m: the
    // second job did no I/O): each job runs over [0, 12 MiB), the size of its part.
    write_file(d.path(), "s.toml", &spec(null.phase));
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "s.toml", "-o", "s.fio", "--target", &path],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("differs: phase w: fio's null engine on a block device does no I/O (or repeats one offset) in a job that starts past offset 0, so each of its jobs runs over [0, 12m) instead of its part of the span: the same amount of I/O, which the null engine does not do, at other offsets\n"), "{err}");
    let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
    assert!(
        job.contains("\nsize=12m\nnumjobs=2\nruntime=1s\n") && !job.contains("\noffset"),
        "{job}"
    );
    let _ = run_fio(d.path());
    let by_job = writes_by_job(d.path());
    assert_eq!(by_job.len(), 2, "{job}");
    for (i, w) in by_job.iter().enumerate() {
        held(
            &format!("null job {i} on the device"),
            w,
            (0, 12 * MIB),
            false,
        );
    }
}

/// Attack 28 F3: offset 10 % and span 50 % of a target whose size is no multiple of the 4 KiB block. The
/// phases: random writes (2 MiB) and a fill by 2 workers; whether each writes every block of its span once.
const PERCENT_OF_AN_ODD_SIZE: &[(&str, &str, bool)] = &[
    (
        "random write",
        "kind = \"workload\"\npattern = \"random\"\nread_percent = 0\noffset = \"10%\"\nspan = \"50%\"\nsize = \"2MiB\"\n",
        false,
    ),
    (
        "2-worker fill",
        "kind = \"fill\"\nworkers = 2\noffset = \"10%\"\nspan = \"50%\"\n",
        true,
    ),
];

/// The byte every target of [`exported_percent_spans_are_the_plans`] is filled with before fio runs.
const UNTOUCHED: u8 = 0xAA;

/// Attack 28 F3: `export fio` wrote a percent offset and span as the percentage times the size, unrounded
/// (offset=1677731.6 B of a 16 MiB + 100 B file would not even be whole; of 100 MiB + 100 B fio overwrote
/// 4072 B below the plan's start, on blocks of its own). Now the job's region is the plan's: on an existing
/// file of 16 MiB + 100 B named with `--target`, on a file to create with `--target-size` of that size, and
/// on a 24 MiB loop device, every write of every fio job is a 4 KiB block of the plan's span (in the part of
/// its worker), a fill covers each part once, and no byte of an existing target outside the span changes.
#[test]
fn exported_percent_spans_are_the_plans() {
    let test = "fio_region::exported_percent_spans_are_the_plans";
    if let Some(why) = fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let odd = 16 * MIB + 100;
    // 10 % of 16,777,316 B is 1,677,731.6 B, up to block 410; 50 % is 8,388,658 B, down to 2,048 blocks.
    let on_odd = (410 * 4096, (410 + 2048) * 4096);
    for &(name, phase, once) in PERCENT_OF_AN_ODD_SIZE {
        std::fs::write(d.path().join("t.img"), vec![UNTOUCHED; odd as usize]).expect("t.img");
        let what = format!("{name}, an existing file of {odd} B");
        let written = in_plans_span(
            d.path(),
            (phase, once),
            &["--target", "t.img"],
            on_odd,
            &what,
        );
        assert_eq!(
            written,
            (odd, 0),
            "{what}: size and bytes changed outside the span"
        );
        let _ = std::fs::remove_file(d.path().join("n.img"));
        let what = format!("{name}, a file of {odd} B to create");
        let size = odd.to_string();
        in_plans_span(
            d.path(),
            (phase, once),
            &["--target", "n.img", "--target-size", &size],
            on_odd,
            &what,
        );
    }
    let _guard = crate::common::loop_guard();
    let dev = match crate::common::LoopDev::new(d.path(), 24, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    let path = dev.dev.to_string_lossy().into_owned();
    // 10 % of 24 MiB is 2,516,582.4 B, up to block 615; 50 % is 3,072 blocks.
    let on_dev = (615 * 4096, (615 + 3072) * 4096);
    for &(name, phase, once) in PERCENT_OF_AN_ODD_SIZE {
        untouched(&dev.dev, 24 * MIB);
        let what = format!("{name}, a 24 MiB loop device");
        let written = in_plans_span(d.path(), (phase, once), &["--target", &path], on_dev, &what);
        assert_eq!(
            written,
            (24 * MIB, 0),
            "{what}: bytes changed outside the span"
        );
    }
}

/// Fills the first `len` bytes of the device `dev` with [`UNTOUCHED`], synced.
fn untouched(dev: &Path, len: u64) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(dev)
        .expect("device");
    f.write_all(&vec![UNTOUCHED; len as usize])
        .expect("fill the device");
    f.sync_all().expect("sync the device");
}

/// Attack 28 F4: the attack's e2, span 20 % from offset 1 MiB over 3 workers of 4 KiB (30 % reads), on a
/// 64 MiB file (named with `--target`, and as the spec's own path with no `--target`: trial 28, its size is
/// read the same way) and on a 64 MiB loop device: 20 % of 64 MiB is 13,421,772.8 B, no whole byte count,
/// and export said so and wrote no job; the plan's span is [1048576, 14467072), 3 parts of 1092 blocks, and
/// the job is those bytes. Real fio's every write is a block of the span, each job's in its worker's part,
/// and no byte outside the span changes.
#[test]
fn a_percent_span_over_workers_is_the_plans_parts() {
    let test = "fio_region::a_percent_span_over_workers_is_the_plans_parts";
    if let Some(why) = fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let phase = "kind = \"workload\"\npattern = \"random\"\nread_percent = 30\nworkers = 3\noffset = \"1MiB\"\nspan = \"20%\"\nduration = \"1s\"\n";
    let want = (MIB, MIB + 3 * 1092 * 4096);
    assert_eq!(want.1, 14_467_072);
    let region = "\noffset=1m\nsize=4368k\nnumjobs=3\noffset_increment=4368k\n";
    let job = |what: &str| {
        let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
        let options = job.lines().filter(|l| !l.starts_with(';'));
        assert!(
            job.contains(region) && options.filter(|l| l.contains('%')).count() == 0,
            "{what}: {job}"
        );
    };
    for on in [&["--target", "t.img"][..], &[][..]] {
        std::fs::write(d.path().join("t.img"), vec![UNTOUCHED; (64 * MIB) as usize])
            .expect("t.img");
        let what = format!("e2 on a 64 MiB file {on:?}");
        let written = in_plans_span(d.path(), (phase, false), on, want, &what);
        assert_eq!(
            written,
            (64 * MIB, 0),
            "{what}: bytes changed outside the span"
        );
        job(&what);
    }
    std::fs::remove_file(d.path().join("t.img")).expect("rm t.img");
    let _guard = crate::common::loop_guard();
    let dev = match crate::common::LoopDev::new(d.path(), 64, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    let path = dev.dev.to_string_lossy().into_owned();
    untouched(&dev.dev, 64 * MIB);
    let what = "e2 on a 64 MiB loop device";
    let written = in_plans_span(d.path(), (phase, false), &["--target", &path], want, what);
    assert_eq!(
        written,
        (64 * MIB, 0),
        "{what}: bytes changed outside the span"
    );
    job(what);
}

/// Attack 28 F4 (found beside it): 2 workers writing 2 MiB sequentially in an 8 MiB span write the first 2
/// MiB, 1 MiB each, as the plan deals them (a sequential phase bounded to less than a pass); export wrote
/// `size=4m`, `offset_increment=4m`, and fio's second job wrote [4 MiB, 5 MiB), outside wkrun's worker 1's
/// [1 MiB, 2 MiB). Now each fio job covers its worker's part once, on an existing 16 MiB file, and no byte
/// outside the span changes.
#[test]
fn a_bounded_sequential_phase_is_dealt_as_the_plan_deals_it() {
    if let Some(why) = fio_missing() {
        return skip(
            "fio_region::a_bounded_sequential_phase_is_dealt_as_the_plan_deals_it",
            &why,
        );
    }
    let d = tempdir();
    std::fs::write(d.path().join("t.img"), vec![UNTOUCHED; (16 * MIB) as usize]).expect("t.img");
    let phase = "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\nworkers = 2\nspan = \"8MiB\"\nsize = \"2MiB\"\n";
    let what = "2 workers, 2 MiB of an 8 MiB span";
    let on = ["--target", "t.img"];
    let written = in_plans_span(d.path(), (phase, true), &on, (0, 8 * MIB), what);
    assert_eq!(written, (16 * MIB, 0), "{what}");
    let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
    assert!(
        job.contains("\nsize=1m\nnumjobs=2\noffset_increment=1m\nio_size=1m\n"),
        "{job}"
    );
    assert!(job.contains("; differs: phase w: a sequential pass bounded to less than the span writes its first 2MiB, dealt to the 2 jobs in parts of 1MiB as to wkrun's workers: fio's regions are those parts, so its JSON reads the span as 2MiB, not 8MiB\n"), "{job}");
    let (_, out, _) = code_out_err(&wkrun(
        d.path(),
        &["plan", "s.toml", "--json", "--target", "t.img"],
    ));
    assert_eq!(planned_parts(&out).1, [(0, MIB), (MIB, 2 * MIB)]);
}

/// Exports `phase` (in `spec`'s file) on the target `on` names and runs it with real fio in `dir`: the plan
/// (`wkrun plan --json` on the same target) resolves the span to `want`, every write of each fio job is one
/// 4 KiB block of it, on the plan's blocks and inside one worker's part (each part covered once when
/// `once`), and fio's JSON reads back as the parts' extent (the plan's span, or a bounded sequential phase's
/// first blocks). Returns the target's size after fio and how many
/// of its bytes outside the span are no longer [`UNTOUCHED`]; (0, 0) for a file to create.
fn in_plans_span(
    dir: &Path,
    (phase, once): (&str, bool),
    on: &[&str],
    want: (u64, u64),
    what: &str,
) -> (u64, u64) {
    write_file(dir, "s.toml", &spec(phase));
    let mut a = vec!["export", "fio", "s.toml", "-o", "s.fio"];
    a.extend_from_slice(on);
    let (code, _, err) = code_out_err(&wkrun(dir, &a));
    assert_eq!(code, 0, "{what}: {err}");
    assert!(!err.contains("not exported"), "{what}: {err}");
    let job = std::fs::read_to_string(dir.join("s.fio")).expect("job file");
    let mut a = vec!["plan", "s.toml", "--json"];
    a.extend_from_slice(on);
    let (code, out, perr) = code_out_err(&wkrun(dir, &a));
    assert_eq!(code, 0, "{what}: {perr}");
    let (span, parts) = planned_parts(&out);
    assert_eq!(span, want, "{what}: the plan's span");
    let (_, _, json) = run_fio(dir);
    let by_job = writes_by_job(dir);
    assert_eq!(
        by_job.len(),
        parts.len(),
        "{what}: one fio job a worker: {job}"
    );
    let mut taken = Vec::new();
    for w in &by_job {
        let off_block: Vec<_> = w
            .iter()
            .filter(|&&(o, l)| l != 4096 || o.abs_diff(span.0) % 4096 != 0)
            .collect();
        assert!(
            off_block.is_empty(),
            "{what}: writes off the plan's blocks: {:?}: {job}",
            &off_block[..off_block.len().min(5)]
        );
        let first = w.iter().map(|x| x.0).min();
        let first = first.unwrap_or_else(|| panic!("{what}: a job wrote nothing: {job}"));
        let i = parts.iter().position(|p| p.0 <= first && first < p.1);
        let i = i.unwrap_or_else(|| {
            panic!("{what}: a write at {first}, outside the span {span:?}: {job}")
        });
        taken.push(i);
        held(&format!("{what}, job {i}"), w, parts[i], once);
    }
    taken.sort_unstable();
    assert_eq!(taken, (0..parts.len()).collect::<Vec<_>>(), "{what}");
    // fio's JSON reads the jobs' regions, the parts' extent: the plan's span, or the first blocks a
    // bounded sequential phase deals.
    let dealt = (parts[0].0, parts[parts.len() - 1].1 - parts[0].0);
    let r = wkrun::fio::json::from_bytes("f.json", &json).expect("fio's JSON read");
    let p = &r.phases[0];
    assert_eq!(
        (p.params.span_start_bytes, p.params.span_bytes),
        dealt,
        "{what}: {job}"
    );
    if on.contains(&"--target-size") {
        return (0, 0);
    }
    // An absolute path (a device) replaces the directory; without --target, the spec's own t.img.
    let bytes = std::fs::read(dir.join(on.get(1).copied().unwrap_or("t.img"))).expect("the target");
    let changed = bytes
        .iter()
        .enumerate()
        .filter(|&(i, _)| (i as u64) < span.0 || (i as u64) >= span.1)
        .filter(|&(_, &b)| b != UNTOUCHED)
        .count() as u64;
    (bytes.len() as u64, changed)
}

/// The first phase's span and its workers' parts (the span itself for one worker), `[start, end)` in
/// bytes, from `wkrun plan --json`'s output `out`.
fn planned_parts(out: &str) -> ((u64, u64), Vec<(u64, u64)>) {
    let plan: serde_json::Value = serde_json::from_str(out).expect("plan JSON");
    let params = &plan["phases"][0]["params"];
    let at = |v: &serde_json::Value, k: &str| v[k].as_u64().expect("a byte count");
    let start = at(params, "span_start_bytes");
    let span = (start, start + at(params, "span_bytes"));
    let parts: Vec<(u64, u64)> = match params["worker_parts"].as_array() {
        Some(w) => w
            .iter()
            .map(|p| {
                let s = at(p, "span_start_bytes");
                (s, s + at(p, "span_bytes"))
            })
            .collect(),
        None => vec![span],
    };
    (span, parts)
}

/// The I/Os the plan deals each worker of the first phase (`params.worker_parts[].ops`), from `wkrun plan
/// --json`'s output `out`.
fn planned_ops(out: &str) -> Vec<u64> {
    let plan: serde_json::Value = serde_json::from_str(out).expect("plan JSON");
    let parts = plan["phases"][0]["params"]["worker_parts"].as_array();
    let parts = parts.expect("worker parts");
    parts
        .iter()
        .map(|p| p["ops"].as_u64().expect("ops"))
        .collect()
}

/// Attack 29 F2: 2 workers writing 12 MiB sequentially over an 8 MiB span are dealt 2048 and 1024 I/Os
/// (worker 0 passes over its part twice, worker 1 once); export wrote `io_size=6m` a job and fio did 1536
/// each. fio's jobs each do one io_size, so the phase is not exported, saying why (the only phase: exit 2,
/// no job file); 16 MiB, two whole passes, is dealt 2048 each, and real fio does that in each part.
#[test]
fn a_sequential_size_of_unequal_deals_is_not_exported() {
    if let Some(why) = fio_missing() {
        return skip(
            "fio_region::a_sequential_size_of_unequal_deals_is_not_exported",
            &why,
        );
    }
    let d = tempdir();
    std::fs::write(d.path().join("t.img"), vec![UNTOUCHED; (16 * MIB) as usize]).expect("t.img");
    let phase = |size: &str| {
        format!(
            "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\nworkers = 2\nspan = \"8MiB\"\nsize = \"{size}\"\n"
        )
    };
    let on = ["--target", "t.img"];
    write_file(d.path(), "s.toml", &spec(&phase("12MiB")));
    let (_, out, _) = code_out_err(&wkrun(
        d.path(),
        &["plan", "s.toml", "--json", "--target", "t.img"],
    ));
    assert_eq!(planned_ops(&out), [2048, 1024]);
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "export", "fio", "s.toml", "-o", "s.fio", "--target", "t.img",
        ],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not exported: phase w: the plan deals the size's 3072 I/Os of 4KiB to the 2 workers as 2048, 1024 (a sequential worker passes over its part, and the I/Os past the last whole pass go to the span's first blocks), and fio's 2 jobs (numjobs) each do the same io_size; a size of whole passes over the span would split\n"), "{err}");
    assert!(!d.path().join("s.fio").exists());
    let what = "2 workers, 16 MiB over an 8 MiB span";
    let written = in_plans_span(d.path(), (&phase("16MiB"), false), &on, (0, 8 * MIB), what);
    assert_eq!(written, (16 * MIB, 0), "{what}");
    let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
    assert!(
        job.contains("\nsize=4m\nnumjobs=2\noffset_increment=4m\nio_size=8m\n"),
        "{job}"
    );
    let (_, out, _) = code_out_err(&wkrun(
        d.path(),
        &["plan", "s.toml", "--json", "--target", "t.img"],
    ));
    assert_eq!(planned_ops(&out), [2048, 2048]);
    let by_job: Vec<usize> = writes_by_job(d.path()).iter().map(Vec::len).collect();
    assert_eq!(by_job, [2048, 2048], "{job}");
}

/// Attack 29 F8: 3 workers reading the first 4000 KiB of a 12 MiB span sequentially take 334, 333 and 333
/// blocks: the reason names the size that does not split, not the span (a multiple of 3 × 4 KiB).
#[test]
fn a_sequential_size_that_does_not_split_is_named() {
    let d = tempdir();
    std::fs::write(d.path().join("t.img"), vec![UNTOUCHED; (16 * MIB) as usize]).expect("t.img");
    let phase = "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 100\nworkers = 3\nspan = \"12MiB\"\nsize = \"4000KiB\"\n";
    write_file(d.path(), "s.toml", &spec(phase));
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "export", "fio", "s.toml", "-o", "s.fio", "--target", "t.img",
        ],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not exported: phase w: fio's 3 jobs (numjobs, offset_increment) each take an equal part, and the size 4000KiB is no multiple of 3 × 4KiB (wkrun's workers take whole blocks, parts that differ by a block where they do not divide); a size in bytes that is a multiple of 3 × 4KiB would split\n"), "{err}");
    assert!(!d.path().join("s.fio").exists());
}
