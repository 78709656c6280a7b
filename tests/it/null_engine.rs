//! The `null` engine (issue 6): the same op stream, write data and measurement as the real engines, every I/O
//! completed at once without a syscall. Exact op and byte counts and read share; the target is never opened,
//! so it is left byte for byte as it was (and a target that does not exist is not created). Also the
//! benchmark-only switch that turns per-I/O recording off (`WKRUN_BENCH_NO_RECORD=1`).

use crate::common::*;
use std::fs;
use std::process::Command;

const KIB4: u64 = 4096;

/// A fill and a 30 % read workload on the null engine, op-bounded: 10 000 ops of 4 KiB over a 1 MiB span.
fn null_body(qd: u32) -> String {
    format!(
        r#"
[defaults]
engine = "null"
direct = false
seed = 5
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
queue_depth = 4
[[phase]]
name = "mixed"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = {qd}
read_percent = 30
size = "{}"
"#,
        10_000 * KIB4
    )
}

#[test]
fn null_engine_counts_exactly_and_leaves_the_target_untouched() {
    let dir = tempdir();
    let target = dir.path().join("target.img");
    patterned_file(&target, 1 << 20);
    let before = fs::metadata(&target)
        .expect("stat")
        .modified()
        .expect("mtime");
    for qd in [1u32, 32] {
        let run = dir.path().join(format!("qd{qd}"));
        fs::create_dir(&run).expect("mkdir");
        let out = run_ok(&run, "null", &null_body(qd), &target);
        let (_, r) = strict_results(&out);
        // The fill: 1 MiB in 64 KiB writes, sequential: 16 writes, every byte of the span once.
        let fill = phase(&r, 0);
        assert_eq!(fill["params"]["engine"], "null");
        assert_eq!(u(fill, "/write/ops"), 16, "qd {qd}");
        assert_eq!(u(fill, "/write/bytes"), 1 << 20, "qd {qd}");
        assert_eq!(u(fill, "/read/ops"), 0, "qd {qd}");
        // The workload: 10 000 ops, exactly 30 in every 100 are reads.
        let w = phase(&r, 1);
        assert_eq!(w["params"]["engine"], "null");
        assert_eq!(u(w, "/read/ops"), 3_000, "qd {qd}");
        assert_eq!(u(w, "/write/ops"), 7_000, "qd {qd}");
        assert_eq!(u(w, "/read/bytes"), 3_000 * KIB4, "qd {qd}");
        assert_eq!(u(w, "/write/bytes"), 7_000 * KIB4, "qd {qd}");
        assert!(u(w, "/read/latency_ns/max") >= u(w, "/read/latency_ns/min"));
        // The series adds up to the totals.
        let rows = phase_rows(&out, &r, 1);
        let reads: u64 = rows.iter().map(|row| n(row, "read_ops")).sum();
        let writes: u64 = rows.iter().map(|row| n(row, "write_ops")).sum();
        assert_eq!((reads, writes), (3_000, 7_000), "qd {qd}");
    }
    // Nothing was written: the bytes and the modification time are as before.
    assert_patterned(&read(&target), 0, "target after null runs");
    let after = fs::metadata(&target)
        .expect("stat")
        .modified()
        .expect("mtime");
    assert_eq!(before, after, "the target's mtime changed");
}

#[test]
fn null_engine_does_not_create_a_missing_target() {
    let dir = tempdir();
    let target = dir.path().join("never-created.img");
    let body = format!(
        r#"
[target]
size = "1MiB"
{}"#,
        null_body(8)
    );
    let out = run_ok(dir.path(), "null", &body, &target);
    assert!(!target.exists(), "the null engine created its target");
    let (_, r) = strict_results(&out);
    assert_eq!(u(phase(&r, 1), "/write/ops"), 7_000);
    assert_eq!(u(&r, "/target/capacity_bytes"), 1 << 20);
    // Nothing was created, and the results and the plan say so: the target was not opened (trial 24 F7:
    // the results named a file that did not exist with no word).
    assert_eq!(r["target"].get("created"), None, "{}", r["target"]);
    assert_eq!(r["target"]["unopened"], true, "{}", r["target"]);
    let t = target.to_str().expect("utf-8");
    let (code, out, err) = code_out_err(&wkrun(dir.path(), &["plan", "spec.toml", "--target", t]));
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("will be created"), "{out}");
    assert!(!target.exists());
    // The same spec on psync creates the file, and says so.
    let (code, out, err) = code_out_err(&wkrun(
        dir.path(),
        &["plan", "spec.toml", "--target", t, "--set", "engine=psync"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("file, will be created (blocks preallocated)"),
        "{out}"
    );
}

/// Trial 24 F7: a read-only workload on the null engine reads nothing, so it gets no warning of
/// never-written reads (it said 100 % of the span held no written data); on psync, over a sparse file of
/// the same size, the phase reads the holes and is warned. Only the psync run opens the target.
#[test]
fn a_null_engine_read_is_not_warned_of_never_written_data() {
    let dir = tempdir();
    let body = "[defaults]\nengine = \"null\"\ndirect = false\n[[phase]]\nname = \"r\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 100\nsize = \"4MiB\"\n";
    let target = dir.path().join("sparse.img");
    std::fs::File::create(&target)
        .and_then(|f| f.set_len(1 << 20))
        .expect("sparse target");
    let never = |r: &serde_json::Value| -> Vec<String> {
        let w = phase(r, 0)["warnings"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let w = w.iter().filter_map(|w| w.as_str());
        w.filter(|w| w.starts_with("never-written reads"))
            .map(String::from)
            .collect()
    };
    let run_in = |name: &str, body: &str| {
        let run = dir.path().join(name);
        fs::create_dir(&run).expect("mkdir");
        strict_results(&run_ok(&run, name, body, &target)).1
    };
    let r = run_in("null", body);
    assert_eq!(u(phase(&r, 0), "/read/ops"), 1024);
    assert_eq!(never(&r), Vec::<String>::new());
    assert_eq!(r["target"]["unopened"], true, "{}", r["target"]);
    let body = body.replace("\"null\"", "\"psync\"");
    let r = run_in("psync", &body);
    assert_eq!(
        never(&r),
        [
            "never-written reads: 100.0 % of the span holds no written data: add a fill phase before this one, or reads there may not reach the device (read span [0, 1048576), first gap [0, 1048576))"
        ]
    );
    assert_eq!(r["target"].get("unopened"), None, "{}", r["target"]);
    // The trial's own: fio's null job imported (no note of buffered I/O: it does none) and run on the
    // default target, which is not made.
    let import = [
        "import",
        "fio",
        "-o",
        "nul.toml",
        "--",
        "--name=nul",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=128m",
        "--iodepth=8",
        "--numjobs=2",
        "--runtime=3",
        "--time_based",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &import));
    assert_eq!(code, 0, "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(
        notes,
        [
            "note: no job names its file (filename): fio makes one per job (JOBNAME.N.0); this spec names no target, so it runs on --target (or wkrun's default file), each job's numjobs as workers on it",
            "note: fio runs each of numjobs jobs over the whole region (sequential ones each from its start, random ones each with its own random map); wkrun's workers each take an equal part of it (the same bytes over the same range)"
        ]
    );
    let run = ["nul.toml", "-o", "nul-wk", "-q", "--set", "duration=300ms"];
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &run));
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&dir.path().join("nul-wk"));
    assert_eq!(never(&r), Vec::<String>::new());
    assert_eq!(
        (&r["target"]["path"], &r["target"]["unopened"]),
        (
            &serde_json::json!("wkrun-target.img"),
            &serde_json::json!(true)
        )
    );
    assert!(!dir.path().join("wkrun-target.img").exists());
}

#[test]
fn recording_off_counts_the_same_ops_without_latencies() {
    let dir = tempdir();
    let target = dir.path().join("t.img");
    write_file(dir.path(), "spec.toml", &spec_text("null", &null_body(32)));
    let o = Command::new(wkrun_bin())
        .args(["spec.toml", "--target", "t.img", "--target-size", "1MiB"])
        .args(["--output", "out", "-q"])
        .env(wkrun::engine::NO_RECORD_ENV, "1")
        .current_dir(dir.path())
        .output()
        .expect("run wkrun");
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "wkrun failed: {err}");
    assert!(!target.exists());
    let (_, r) = strict_results(&dir.path().join("out"));
    let w = phase(&r, 1);
    assert_eq!(u(w, "/read/ops"), 3_000);
    assert_eq!(u(w, "/write/ops"), 7_000);
    assert_eq!(u(w, "/write/bytes"), 7_000 * KIB4);
    assert!(w["write"]["latency_ns"].is_null(), "{}", w["write"]);
    let warned = w["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .any(|x| x.as_str().is_some_and(|s| s.contains("recording was off")));
    assert!(warned, "no warning about recording: {}", w["warnings"]);
}

/// Attack 25 F5: `target.unopened` is held to the phases the run ran. A null-engine run without it, and
/// a run whose fill is said to have run on psync with it, are refused naming the field; the run as
/// written validates.
#[test]
fn validate_holds_unopened_to_the_engines() {
    let dir = tempdir();
    let target = dir.path().join("never-created.img");
    let body = format!("\n[target]\nsize = \"1MiB\"\n{}", null_body(8));
    let out = run_ok(dir.path(), "null", &body, &target);
    let o = out.to_str().expect("utf-8");
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &["validate", o]));
    assert_eq!(code, 0, "{err}");
    let text = fs::read_to_string(out.join("results.json")).expect("results");
    let forge = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        fs::write(out.join("results.json"), text.replacen(from, to, 1)).expect("write");
        let (code, _, err) = code_out_err(&wkrun(dir.path(), &["validate", o]));
        assert_eq!(code, 2, "{err}");
        err
    };
    let err = forge("\"unopened\": true", "\"unopened\": false");
    assert!(
        err.contains("target.unopened: absent, but every phase of this completed run ran on the null engine, which never opens the target: true then"),
        "{err}"
    );
    let err = forge("\"engine\": \"null\"", "\"engine\": \"psync\"");
    assert!(
        err.contains("target.unopened: true, but phases[0] \"fill\" ran on psync, which opens the target: true only when every phase ran on the null engine"),
        "{err}"
    );
}
