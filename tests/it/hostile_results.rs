//! Hostile results folders (issue 26): every reader of a results folder (`validate`, `compare`, `report`,
//! `merge`, `library add`) refuses what `validate` refuses, with exit 2, a message naming the file and the
//! line, and nothing written; none aborts or allocates what a file declares (run under a small address
//! space), follows a symbolic link or blocks on a FIFO. Each hostile file is made from a real run's.

use crate::common::*;
use base64::Engine as _;
use std::fs;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One workload phase with a trace, 1 s of I/O.
const SPEC: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 50\nduration = \"1s\"\ntrace = 200\n";

/// The address space the readers run in: far less than any size a hostile header declares (4 GiB).
const AS_LIMIT: &str = "--as=419430400";

/// Runs the spec on `target` into `dir/NAME`.
fn a_run(dir: &Path, name: &str, target: &str) {
    write_file(dir, "h.toml", &spec_text("h", SPEC));
    let args = [
        "h.toml",
        "--target",
        target,
        "--target-size",
        "16MiB",
        "-q",
        "-o",
        name,
    ];
    let (c, _, e) = code_out_err(&wkrun(dir, &args));
    assert_eq!(c, 0, "{e}");
}

/// A temporary folder holding two runs of the spec on `target`, `r` and `r2` (the other host of a merge).
fn two_runs(target: &str) -> tempfile::TempDir {
    let t = tempdir();
    a_run(t.path(), "r", target);
    a_run(t.path(), "r2", target);
    t
}

/// A copy of the run folder `dir/from` as `dir/to`.
fn copy_run(dir: &Path, from: &str, to: &str) {
    fs::create_dir(dir.join(to)).expect("mkdir");
    for e in fs::read_dir(dir.join(from)).expect("ls") {
        let e = e.expect("entry");
        fs::copy(e.path(), dir.join(to).join(e.file_name())).expect("copy");
    }
}

/// Every reader of the folder `x` (the merge with `other`, a run of the same spec), as arguments; what
/// each would write: `out` (report, merge) and `lib.sqlite` (library).
fn readers<'a>(x: &'a str, other: &'a str) -> Vec<Vec<&'a str>> {
    vec![
        vec!["validate", x],
        vec!["compare", other, x],
        vec!["report", x, "-o", "out"],
        vec!["merge", other, x, "-o", "out"],
        vec!["library", "add", x],
    ]
}

/// `wkrun ARGS` in `dir` under `prlimit AS_LIMIT` with the library at `dir/lib.sqlite`, killed after 30 s
/// (a reader blocked on a FIFO): exit code (-1 when killed) and stderr. `None` without `prlimit`.
fn limited(dir: &Path, args: &[&str]) -> Option<(i32, String)> {
    if Command::new("prlimit").arg("--version").output().is_err() {
        skip("hostile_results", "prlimit (util-linux) is not installed");
        return None;
    }
    let mut child = Command::new("prlimit")
        .arg(AS_LIMIT)
        .arg(wkrun_bin())
        .args(args)
        .current_dir(dir)
        .env("WKRUN_LIBRARY", dir.join("lib.sqlite"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start prlimit");
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code().unwrap_or(-1);
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read stderr");
    Some((status, err))
}

/// Every reader of `dir/x` exits 2 with a message holding `says`, writes nothing, and ends well within
/// its time (none blocks).
fn all_refuse(dir: &Path, x: &str, says: &str) {
    let before = dir_listing(dir);
    for args in readers(x, "r2") {
        let Some((code, err)) = limited(dir, &args) else {
            return;
        };
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: want {says:?} in:\n{err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(dir_listing(dir), before, "{args:?} wrote something");
    }
}

/// The base64 of a deflated V2 histogram whose header declares `payload` bytes of counts (1 is there),
/// values `low..high` at `digits`, and `deflated` bytes after the outer header (`None`: the true length).
fn histogram(payload: u32, (low, high, digits): (u64, u64, u32), deflated: Option<u32>) -> String {
    let mut inner = Vec::new();
    for w in [0x1c84_9313u32, payload, 0, digits] {
        inner.extend(w.to_be_bytes());
    }
    for w in [low, high, 1.0f64.to_bits()] {
        inner.extend(w.to_be_bytes());
    }
    inner.push(0);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&inner).expect("deflate");
    let z = z.finish().expect("deflate");
    let mut outer = 0x1c84_9314u32.to_be_bytes().to_vec();
    outer.extend(deflated.unwrap_or(z.len() as u32).to_be_bytes());
    outer.extend(z);
    base64::engine::general_purpose::STANDARD.encode(outer)
}

/// `dir/x/00-w.hlog` with its first histogram (line 5) replaced by `hist`.
fn first_histogram(dir: &Path, x: &str, hist: &str) {
    let path = dir.join(x).join("00-w.hlog");
    let text = fs::read_to_string(&path).expect("hlog");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[4].starts_with("Tag=read,"), "{}", lines[4]);
    let (head, _) = lines[4].rsplit_once(',').expect("a histogram line");
    lines[4] = format!("{head},{hist}");
    fs::write(&path, lines.join("\n") + "\n").expect("write");
}

#[test]
fn histogram_headers_declaring_gigabytes_are_refused_before_anything_is_allocated() {
    let t = two_runs("sim:capacity=512MiB,op=7%");
    let d = t.path();
    let wkrun_bounds = (1, 3_600_000_000_000, 3);
    let cases = [
        (
            histogram(u32::MAX, wkrun_bounds, None),
            "the histogram declares a payload of 4294967295 B, where it holds 1 B",
        ),
        (
            histogram(1, (1, 1 << 62, 5), None),
            "a histogram of 1..4611686018427387904 ns at 5 digits, not wkrun's (1..3600000000000 ns at 3)",
        ),
        (
            histogram(1, wkrun_bounds, Some(0xffff_fff0)),
            "the histogram declares 4294967280 B deflated, where the line holds 33 B",
        ),
    ];
    for (k, (hist, why)) in cases.iter().enumerate() {
        let x = format!("x{k}");
        copy_run(d, "r", &x);
        first_histogram(d, &x, hist);
        all_refuse(
            d,
            &x,
            &format!("{x}/00-w.hlog (phases[0].hist_log): line 5: row 0, read: {why}"),
        );
    }
}

#[test]
fn a_trace_line_of_3_gb_is_refused_at_its_bound() {
    let t = two_runs("sim:capacity=512MiB,op=7%");
    let d = t.path();
    copy_run(d, "r", "x");
    let ios = u(&results(&d.join("x")), "/phases/0/trace/ios");
    assert_eq!(ios, 200);
    // Zeros past the rows, without a line end: a line of about 3 GB (sparse, no room taken).
    let f = fs::OpenOptions::new()
        .write(true)
        .open(d.join("x/00-w.trace.csv"))
        .expect("trace");
    f.set_len(3 << 30).expect("grow");
    all_refuse(
        d,
        "x",
        "x/00-w.trace.csv (phases[0].trace): line 202 is longer than 256 B, the longest line of a trace",
    );
}

/// Replaces `dir/x/NAME` by a symbolic link to a copy of it outside the folder, then by a FIFO; every
/// reader refuses each.
fn links_and_fifos_refused(d: &Path, name: &str, field: &str) {
    let x = format!("x-{name}");
    copy_run(d, "r", &x);
    let path = d.join(&x).join(name);
    let elsewhere = d.join(format!("elsewhere-{name}"));
    fs::rename(&path, &elsewhere).expect("move");
    std::os::unix::fs::symlink(&elsewhere, &path).expect("link");
    all_refuse(
        d,
        &x,
        &format!("{x}/{name} ({field}): a symbolic link; not followed"),
    );
    fs::remove_file(&path).expect("unlink");
    let made = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
    assert!(made.success());
    all_refuse(
        d,
        &x,
        &format!(
            "{x}/{name} ({field}): cannot read it: it is a FIFO (named pipe), not a regular file"
        ),
    );
}

#[test]
fn links_and_fifos_beside_results_are_refused_not_followed() {
    // A file target: its phases have a counters CSV besides the log and the trace.
    let t = two_runs("target.img");
    let d = t.path();
    for (name, field) in [
        ("00-w.hlog", "phases[0].hist_log"),
        ("00-w.trace.csv", "phases[0].trace"),
        ("00-w.counters.csv", "phases[0].counters_csv"),
    ] {
        links_and_fifos_refused(d, name, field);
    }
}

#[test]
fn readers_refuse_what_validate_refuses() {
    let t = two_runs("sim:capacity=512MiB,op=7%");
    let d = t.path();
    let edit = |x: &str, f: &dyn Fn(&mut serde_json::Value)| {
        copy_run(d, "r", x);
        let mut v = results(&d.join(x));
        f(&mut v);
        fs::write(d.join(x).join("results.json"), v.to_string()).expect("write");
    };
    edit("ops", &|v| v["phases"][0]["read"]["ops"] = u64::MAX.into());
    let r = results(&d.join("r"));
    let (total, writes) = (u(&r, "/phases/0/total/ops"), u(&r, "/phases/0/write/ops"));
    all_refuse(
        d,
        "ops",
        &format!(
            "ops/results.json holds figures that cannot be true (2 places):\n  phases[0].read.iops: {} is not ops / duration_s",
            r["phases"][0]["read"]["iops"]
        ),
    );
    let sum = u128::from(u64::MAX) + u128::from(writes);
    all_refuse(
        d,
        "ops",
        &format!(
            "\n  phases[0].total.ops: {total} is not read.ops + write.ops = {} + {writes} = {sum}",
            u64::MAX
        ),
    );
    edit("ios", &|v| {
        v["phases"][0]["trace"]["ios"] = 10_000_000_000_000_000_000u64.into()
    });
    all_refuse(
        d,
        "ios",
        "ios/results.json holds figures that cannot be true (1 place):\n  phases[0].trace.ios: 10000000000000000000 is more than the 100000000 I/Os a trace holds at most",
    );
    // Many places: the first MAX_VIOLATIONS (20) named, then how many more (attack 24c, finding 9).
    edit("many", &|v| {
        let p0 = v["phases"][0].clone();
        v["phases"] = serde_json::Value::Array(vec![p0; 31]);
    });
    all_refuse(
        d,
        "many",
        "many/results.json holds figures that cannot be true (60 places):\n  phases[1].index: 0 ",
    );
    // Each phase's index, and its name, the first's too.
    all_refuse(
        d,
        "many",
        "\n  phases[1].name: \"w\" is the name of phases[0] too: a spec's phase names are unique, and so are a run's\n",
    );
    all_refuse(d, "many", "\n  ... and 40 more");
    edit("iv0", &|v| v["phases"][0]["intervals"] = 0.into());
    all_refuse(
        d,
        "iv0",
        "series iv0/00-w.csv: 2 rows, where results.json says phase \"w\" has 0 intervals",
    );
    let log = fs::read_to_string(d.join("r/00-w.hlog")).expect("hlog");
    let lines: Vec<&str> = log.lines().collect();
    // The header's 4 lines, then a read and a write histogram for each of the 2 rows (1 s, the drain).
    assert_eq!(lines.len(), 8, "{log}");
    let hlog = |x: &str, text: String| {
        copy_run(d, "r", x);
        fs::write(d.join(x).join("00-w.hlog"), text).expect("write");
    };
    hlog("extra", format!("{log}{}\n{}\n", lines[6], lines[7]));
    all_refuse(
        d,
        "extra",
        "extra/00-w.hlog (phases[0].hist_log): line 10: more rows of histograms than the 2 series rows",
    );
    hlog("missing", lines[..7].join("\n") + "\n");
    all_refuse(
        d,
        "missing",
        "missing/00-w.hlog (phases[0].hist_log): row 1 has no histogram for write (the log ends at line 7)",
    );
    let bad = lines[5].replacen(",HIST", ",HI!T", 1);
    hlog(
        "b64",
        format!(
            "{}\n{bad}\n{}\n",
            lines[..5].join("\n"),
            lines[6..].join("\n")
        ),
    );
    all_refuse(
        d,
        "b64",
        "b64/00-w.hlog (phases[0].hist_log): line 6: the histogram is not base64: Invalid symbol 33, offset 2.",
    );
}

/// Attack 13 F4: a fill's `params.passes` edited to 10,000 (its ops and bytes those of 1 pass) passed
/// `validate`, and `wkrun sim fit` replayed every pass (0.7 s became 276 s). Every reader, and `sim fit`,
/// refuses it naming the I/Os a fill of 10,000 passes has; the true passes stay valid.
#[test]
fn a_fill_whose_passes_contradict_its_ios_is_refused() {
    let t = tempdir();
    let d = t.path();
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"128KiB\"\n";
    write_file(d, "f.toml", &spec_text("h", fill));
    for name in ["r", "r2"] {
        let args = [
            "f.toml",
            "--target",
            "sim:capacity=64MiB,block=256KiB",
            "-q",
            "-o",
            name,
        ];
        let (c, _, e) = code_out_err(&wkrun(d, &args));
        assert_eq!(c, 0, "{e}");
    }
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", "r"]));
    assert_eq!(
        (c, out.as_str(), e.as_str()),
        (0, "r: ok (results, 1 phase, 1 series CSV)\n", "")
    );
    copy_run(d, "r", "x");
    let mut v = results(&d.join("x"));
    assert_eq!(v["phases"][0]["params"]["ops"], 512);
    v["phases"][0]["params"]["passes"] = 10_000.into();
    fs::write(d.join("x").join("results.json"), v.to_string()).expect("write");
    let says = "x/results.json holds figures that cannot be true (1 place):\n  phases[0].params.ops: 512 I/Os of 131072 B are not params.passes 10000 over params.span_bytes 67108864 B: 5120000 to 5130000\n";
    all_refuse(d, "x", says);
    let (c, _, e) = code_out_err(&wkrun(d, &["sim", "fit", "x"]));
    assert_eq!(c, 2, "{e}");
    assert!(e.contains(says), "{e}");
}

/// Attack 18 F7: a series CSV edited in its last row (cut short, there) was said as the histogram log's fault, its
/// percentiles in Rust's debug form (`[Some(1300.479), ...]`). Now the message names both files' values as
/// plain numbers and says one of the two is damaged.
#[test]
fn a_cut_series_csv_is_told_against_its_log_in_plain_numbers() {
    let d = tempdir();
    let img = d.path().join("t.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(8 << 20)
        .unwrap();
    let body = "[[phase]]\nname = \"rw\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\ninterval = \"100ms\"\nduration = \"300ms\"\nrate_iops = 2000\n";
    let out = run_ok(d.path(), "cut", body, &img);
    let csv = out.join("00-rw.csv");
    let text = std::fs::read(&csv).unwrap();
    // The last row's write p99.9, its last field, gains a digit (1580.991 -> 1580.9911).
    assert_eq!(text.last(), Some(&b'\n'));
    let mut forged = text[..text.len() - 1].to_vec();
    forged.extend_from_slice(b"1\n");
    std::fs::write(&csv, forged).unwrap();
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", out.to_str().unwrap()]));
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("Some("), "{err}");
    assert!(
        err.contains("00-rw.hlog (phases[0].hist_log): line ")
            && err.contains(": the series CSV's write percentiles are ")
            && err.ends_with(" µs: one of the two files is damaged\n"),
        "{err}"
    );
}
