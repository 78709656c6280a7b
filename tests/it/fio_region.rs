//! Attack 26: fio's region with `filesize` runs from `offset` to the end of the file (`size` is only the
//! amount of I/O). `wkrun export fio` writes no filesize beside a job's size, so real fio stays in the
//! phase's span; `import fio` and the JSON reader read filesize as fio does. F4: a refused option's harmless
//! value is its fio default; `buffer_pattern=0` is zeros. F9: export's advice for workers that do not split.

use crate::common::{code_out_err, skip, spec_text, tempdir, wkrun, write_file};
use crate::fio_cli::fio_missing;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// A spec on `t.img` (64 MiB) with one write phase `pattern` over `region` (`offset`/`span` lines).
fn spec(pattern: &str, region: &str) -> String {
    spec_text(
        "r",
        &format!(
            "[target]\npath = \"t.img\"\nsize = \"64MiB\"\n[defaults]\nengine = \"libaio\"\ndirect = true\nqueue_depth = 8\nblock_size = \"4KiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"{pattern}\"\nread_percent = 0\n{region}duration = \"1s\"\n"
        ),
    )
}

/// Exports `s.toml` in `dir` and runs it with fio; the write offsets of fio's I/O log and its JSON read as
/// results (span start, span).
fn export_and_run(dir: &Path) -> (String, Vec<u64>, (u64, u64)) {
    let (code, _, err) = code_out_err(&wkrun(dir, &["export", "fio", "s.toml", "-o", "s.fio"]));
    assert_eq!(code, 0, "{err}");
    let job = std::fs::read_to_string(dir.join("s.fio")).expect("job file");
    let _ = std::fs::remove_file(dir.join("w.log"));
    let o = std::process::Command::new("fio")
        .args([
            "s.fio",
            "--write_iolog=w.log",
            "--output-format=json",
            "--output=f.json",
        ])
        .current_dir(dir)
        .output()
        .expect("fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let log = std::fs::read_to_string(dir.join("w.log")).expect("iolog");
    let offsets = log
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() >= 3 && w[1] == "write").then(|| w[2].parse().expect("offset"))
        })
        .collect();
    let json = std::fs::read(dir.join("f.json")).expect("fio's JSON");
    let r = wkrun::fio::json::from_bytes("f.json", &json).expect("fio's JSON read");
    let p = &r.phases[0].params;
    (job, offsets, (p.span_start_bytes, p.span_bytes))
}

/// F1: random and sequential writes over [8 MiB, 16 MiB) of a 64 MiB file, missing or there: every write
/// of real fio is inside, and its JSON reads back as that span.
#[test]
fn exported_writes_stay_in_the_span() {
    if let Some(why) = fio_missing() {
        return skip("fio_region::exported_writes_stay_in_the_span", &why);
    }
    let d = tempdir();
    for pattern in ["random", "sequential"] {
        write_file(
            d.path(),
            "s.toml",
            &spec(pattern, "offset = \"8MiB\"\nspan = \"8MiB\"\n"),
        );
        for exists in [false, true] {
            let _ = std::fs::remove_file(d.path().join("t.img"));
            if exists {
                std::fs::write(d.path().join("t.img"), vec![1u8; 64 << 20]).expect("t.img");
            }
            let (job, offsets, span) = export_and_run(d.path());
            assert!(!job.contains("filesize="), "{job}");
            assert!(job.contains("\noffset=8m\nsize=8m\n"), "{job}");
            assert!(!offsets.is_empty(), "{pattern}: no writes");
            let outside = offsets
                .iter()
                .filter(|&&o| !(8 * MIB..16 * MIB).contains(&o))
                .count();
            assert_eq!(
                outside,
                0,
                "{pattern}, file there {exists}: {} writes",
                offsets.len()
            );
            assert_eq!(span, (8 * MIB, 8 * MIB));
            let size = std::fs::metadata(d.path().join("t.img"))
                .expect("t.img")
                .len();
            assert_eq!(size, if exists { 64 * MIB } else { 16 * MIB });
        }
    }
}

/// Item 4: a whole-file phase keeps `filesize=64m`; fio's JSON of that job file reads as the whole 64 MiB,
/// with no "span is unknown" warning.
#[test]
fn an_exported_filesize_reads_back_as_the_span() {
    if let Some(why) = fio_missing() {
        return skip(
            "fio_region::an_exported_filesize_reads_back_as_the_span",
            &why,
        );
    }
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec("random", ""));
    let (job, offsets, span) = export_and_run(d.path());
    assert!(job.contains("\nfilesize=64m\n"), "{job}");
    assert!(offsets.iter().all(|&o| o < 64 * MIB));
    assert_eq!(span, (0, 64 * MIB));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["warnings", "f.json"]));
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("span is unknown"), "{out}");
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

/// F9: 3 workers over 10 MiB do not split into fio's equal parts: the advice names what would, and the
/// phase not exported says no "differs:".
#[test]
fn workers_that_do_not_split_get_true_advice() {
    let d = tempdir();
    write_file(
        d.path(),
        "s.toml",
        &spec(
            "random",
            "span = \"10MiB\"\nworkers = 3\nworkers_split = \"partitioned\"\n",
        ),
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "s.toml", "-o", "s.fio"],
    ));
    assert!(err.contains("phase w: fio's 3 jobs (numjobs, offset_increment) each take an equal part, and the span 10MiB does not split into 3 equal parts (wkrun's workers take parts that differ by a block); a span in bytes that is a multiple of 3 × 4KiB would split"), "{code} {err}");
    assert!(!err.contains("differs:"), "{err}");
}
