//! fio and the imported spec, side by side (issue 28, item 6): a handful of fio's examples run with fio and,
//! imported, with wkrun on the same small file for about 2 s each (their file, size and runtime changed to
//! this test's). Compared: the read share and the block-size mix (wkrun's from its results, fio's from its
//! per-I/O latency log, `write_lat_log` with `log_offset`), the byte range touched (fio's from the same log,
//! inside wkrun's span), each within sampling error of the job's numbers, and the IOPS of both, printed (the
//! examples run at once, so these IOPS share the machine, except under `WKRUN_SIDE_BIN`).
//! Needs fio: without it the test prints `SKIPPED` and passes.

use crate::common::{code_out_err, skip, tempdir, wkrun};
use std::collections::BTreeMap;
use std::path::Path;

/// One example (fio's IOPS come from a run without its per-I/O log, the rest from a run with it): its file, whether it imports only with --lossy, its lines replaced (option name → new
/// line, or "" to drop it), lines added to its first job, and the target's size in MiB.
struct Case {
    file: &'static str,
    lossy: bool,
    set: &'static [(&'static str, &'static str)],
    add: &'static str,
    /// Lines added to fio's run only: what --lossy dropped, so that fio runs what the spec runs.
    fio_add: &'static str,
    mib: u64,
    /// Expected read share, and block sizes with their weights (percent).
    read: f64,
    mix: &'static [(u64, f64)],
}

const CASES: &[Case] = &[
    Case {
        file: "fio-rand-RW.fio",
        lossy: false,
        set: &[("size", "size=64m"), ("runtime", "runtime=2")],
        add: "",
        fio_add: "",
        mib: 64,
        read: 0.6,
        mix: &[(4096, 100.0)],
    },
    Case {
        file: "fio-seq-write.fio",
        lossy: false,
        set: &[("size", "size=64m"), ("runtime", "runtime=2")],
        add: "",
        fio_add: "",
        mib: 64,
        read: 0.0,
        mix: &[(262144, 100.0)],
    },
    Case {
        file: "iometer-file-access-server.fio",
        lossy: true,
        set: &[("size", "size=32m")],
        add: "time_based\nruntime=2\n",
        // fio's random map with a mix shortens I/Os to fit the map's holes (1536 B, 4608 B, ...); the
        // imported spec draws offsets as norandommap (its --lossy comment says so).
        fio_add: "norandommap\n",
        mib: 32,
        read: 0.8,
        mix: crate::common::FILE_SERVER_MIX,
    },
    Case {
        file: "ssd-steadystate.fio",
        lossy: false,
        set: &[("write_bw_log", "")],
        add: "",
        fio_add: "",
        mib: 16,
        read: 0.0,
        mix: &[],
    },
    Case {
        file: "jesd219.fio",
        lossy: true,
        set: &[("iodepth", "iodepth=32")],
        add: "time_based\nruntime=2\n",
        fio_add: "",
        mib: 64,
        read: 0.4,
        mix: crate::common::JESD219_MIX,
    },
];

/// Which job file: the one imported, fio's, fio's with its per-I/O log in each job.
#[derive(Clone, Copy, PartialEq)]
enum Job {
    Import,
    Fio,
    Logged,
}

/// The example with this test's target and changes, as `job` says.
fn job_text(c: &Case, target: &Path, job: Job) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fio-examples")
        .join(c.file);
    let text = std::fs::read_to_string(src).expect("example");
    let mut out = String::new();
    let mut first_job = true;
    let mut jobs = 0;
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        if key == "filename" {
            out += &format!("filename={}\n", target.display());
            continue;
        }
        if let Some((_, new)) = c.set.iter().find(|(k, _)| *k == key) {
            if !new.is_empty() {
                out += new;
                out.push('\n');
            }
            continue;
        }
        out += line;
        out.push('\n');
        let t = line.trim();
        if t.starts_with('[') && !t.starts_with("[global") {
            if first_job {
                out += c.add;
                if job != Job::Import {
                    out += c.fio_add;
                }
                if !text.contains("filename=") {
                    out += &format!("filename={}\n", target.display());
                }
                first_job = false;
            }
            if job == Job::Logged {
                out += &format!("write_lat_log=lg-{jobs}\nlog_offset=1\n");
            }
            jobs += 1;
        }
    }
    out
}

/// What one side did in one phase.
#[derive(Default, Debug)]
struct Seen {
    reads: u64,
    ops: u64,
    by_size: BTreeMap<u64, u64>,
    lo: u64,
    hi: u64,
    iops: f64,
}

/// fio's I/Os of the job section `name` (its place among the sections) from its latency logs: `time, latency, direction, size, offset, prio`.
fn fio_seen(dir: &Path, name: &str) -> Seen {
    let mut s = Seen {
        lo: u64::MAX,
        ..Seen::default()
    };
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        let f = e.file_name().to_string_lossy().into_owned();
        if !(f.starts_with(&format!("lg-{name}_lat.")) && f.ends_with(".log")) {
            continue;
        }
        for line in std::fs::read_to_string(e.path()).expect("log").lines() {
            let v: Vec<u64> = line
                .split(',')
                .filter_map(|x| x.trim().parse().ok())
                .collect();
            let [_, _, dir, size, offset, ..] = v[..] else {
                continue;
            };
            s.ops += 1;
            s.reads += u64::from(dir == 0);
            *s.by_size.entry(size).or_default() += 1;
            s.lo = s.lo.min(offset);
            s.hi = s.hi.max(offset + size);
        }
    }
    s
}

/// Whether `got` of `n` draws is within sampling error of the chance `p`.
fn within(got: u64, n: u64, p: f64) -> bool {
    let share = got as f64 / n as f64;
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    (share - p).abs() <= 4.0 * sigma + 0.005
}

/// Prints a line past the test harness's capture.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn fio_side_by_side() {
    if let Some(why) = crate::fio_cli::fio_missing() {
        skip("fio_side_by_side", &why);
        return;
    }
    say(
        "fio side by side: example / phase: side  reads%  mix (size:share%)  range [lo, hi) MiB  IOPS",
    );
    // The examples run at once (each case's fio and wkrun runs wait on the clock, about 6 s a case), except
    // when WKRUN_SIDE_BIN measures a release build's IOPS: then one after another, alone on the machine.
    // The shares are checked within sampling error of however many I/Os each run did.
    match std::env::var_os("WKRUN_SIDE_BIN") {
        Some(_) => CASES.iter().for_each(side_by_side),
        None => std::thread::scope(|s| {
            for c in CASES {
                s.spawn(move || side_by_side(c));
            }
        }),
    }
}

/// Runs example `c` with fio and, imported, with wkrun in a folder of its own, and compares them.
fn side_by_side(c: &Case) {
    let d = tempdir();
    let t = d.path().join("t.img");
    std::fs::write(&t, vec![0x5au8; (c.mib << 20) as usize]).expect("target");
    std::fs::write(d.path().join("imp.fio"), job_text(c, &t, Job::Import)).expect("job");
    std::fs::write(d.path().join("plain.fio"), job_text(c, &t, Job::Fio)).expect("job");
    std::fs::write(d.path().join("run.fio"), job_text(c, &t, Job::Logged)).expect("job");
    // fio twice: for its IOPS without the per-I/O log (which costs it time), then with the log.
    for (job, json) in [("plain.fio", "fio.json"), ("run.fio", "logged.json")] {
        let o = std::process::Command::new("fio")
            .args(["--output-format=json", &format!("--output={json}"), job])
            .current_dir(d.path())
            .output()
            .expect("fio");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{}: fio: {err}", c.file);
    }
    let mut args = vec!["import", "fio", "imp.fio", "-o", "imp.toml"];
    if c.lossy {
        args.push("--lossy");
    }
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{}: import: {err}", c.file);
    // WKRUN_SIDE_BIN=target/release/wkrun measures a release build (the IOPS of a debug build say
    // little); the results are then not checked against the schema here.
    let run = ["imp.toml", "-o", "out", "-q"];
    let o = match std::env::var("WKRUN_SIDE_BIN") {
        Ok(bin) => std::process::Command::new(bin)
            .args(run)
            .current_dir(d.path())
            .output()
            .expect("wkrun"),
        Err(_) => wkrun(d.path(), &run),
    };
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{}: run: {err}", c.file);
    compare(c, d.path());
}

/// Compares fio's run and wkrun's, phase by phase, and prints both.
fn compare(c: &Case, dir: &Path) {
    let fio: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("fio.json")).expect("fio.json"))
            .expect("fio JSON");
    let res = crate::common::results(&dir.join("out"));
    for (i, p) in res["phases"].as_array().expect("phases").iter().enumerate() {
        let name = p["name"].as_str().expect("name");
        let mut f = fio_seen(dir, &i.to_string());
        f.iops = fio["jobs"]
            .as_array()
            .expect("jobs")
            .iter()
            .filter(|j| j["jobname"] == name)
            .map(|j| {
                j["read"]["iops"].as_f64().unwrap_or(0.0)
                    + j["write"]["iops"].as_f64().unwrap_or(0.0)
            })
            .sum();
        let q = &p["params"];
        let start = q["span_start_bytes"].as_u64().expect("span");
        let end = start + q["span_bytes"].as_u64().expect("span");
        let mut w = Seen {
            reads: p["read"]["ops"].as_u64().unwrap_or(0),
            ops: p["read"]["ops"].as_u64().unwrap_or(0) + p["write"]["ops"].as_u64().unwrap_or(0),
            lo: start,
            hi: end,
            iops: p["read"]["iops"].as_f64().unwrap_or(0.0)
                + p["write"]["iops"].as_f64().unwrap_or(0.0),
            ..Seen::default()
        };
        for e in p["ops_by_size"].as_array().into_iter().flatten() {
            w.by_size.insert(
                e["bytes"].as_u64().unwrap_or(0),
                e["ops"].as_u64().unwrap_or(0),
            );
        }
        if w.by_size.is_empty() {
            w.by_size
                .insert(q["block_size_bytes"].as_u64().unwrap_or(0), w.ops);
        }
        for (side, s) in [("fio", &f), ("wkrun", &w)] {
            let mix: Vec<String> = s
                .by_size
                .iter()
                .map(|(b, n)| format!("{}:{:.1}", b, 100.0 * *n as f64 / s.ops.max(1) as f64))
                .collect();
            say(&format!(
                "  {} / {name}: {side:5} {:5.1}  {}  [{:.2}, {:.2})  {:.0}",
                c.file,
                100.0 * s.reads as f64 / s.ops.max(1) as f64,
                mix.join(" "),
                s.lo as f64 / 1048576.0,
                s.hi as f64 / 1048576.0,
                s.iops
            ));
        }
        assert!(f.ops > 0, "{}/{name}: fio logged no I/O", c.file);
        assert!(
            within(f.reads, f.ops, c.read),
            "{}/{name}: fio's read share",
            c.file
        );
        assert!(
            (w.reads as f64 / w.ops as f64 - c.read).abs() <= 0.01,
            "{}/{name}: wkrun's read share is exact",
            c.file
        );
        for &(size, pct) in c.mix {
            let fs = f.by_size.get(&size).copied().unwrap_or(0);
            let ws = w.by_size.get(&size).copied().unwrap_or(0);
            assert!(
                within(fs, f.ops, pct / 100.0),
                "{}/{name}: fio's {size} B share",
                c.file
            );
            assert!(
                within(ws, w.ops, pct / 100.0),
                "{}/{name}: wkrun's {size} B share",
                c.file
            );
        }
        assert!(
            f.lo >= start && f.hi <= end,
            "{}/{name}: fio's range inside wkrun's span",
            c.file
        );
    }
}
