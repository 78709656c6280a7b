//! Loading under an address-space limit (attack24b, findings 3 and 11): a spec too large for the room left
//! is refused before it is parsed, exit 2 naming the limit, nothing written; fio's JSON with more jobs than
//! a results file may have phases is refused naming the limit; fio's JSON of many jobs is compared.

use crate::common::{code_out_err, dir_listing, skip, tempdir, wkrun, wkrun_bin, write_file};
use std::path::Path;
use std::process::Command;

/// A spec of `n` plain workload phases.
fn spec(n: usize) -> String {
    let mut s = String::from("format = 1\n[spec]\nname = \"b\"\nversion = \"1\"\n");
    for i in 0..n {
        s.push_str(&format!("[[phase]]\nname = \"p{i}\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1ms\"\n"));
    }
    s
}

/// `wkrun ARGS` in `dir` under an address-space limit of `mib` MiB: exit code and stderr; `None` (said)
/// without prlimit.
fn under_limit(dir: &Path, mib: u64, args: &[&str]) -> Option<(i32, String)> {
    let o = Command::new("prlimit")
        .arg(format!("--as={}", mib << 20))
        .arg(wkrun_bin())
        .args(args)
        .current_dir(dir)
        .output();
    match o {
        Ok(o) => Some((
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )),
        Err(e) => {
            skip("load_room", &format!("prlimit cannot run: {e}"));
            None
        }
    }
}

/// 20,000 phases (1,948,933 B) need 4 MiB + 64 B per byte = 128,925,016 B to load, more than a limit of
/// 110 MiB holds whatever the program maps: validate and plan exit 2 naming the limit (they aborted, 134).
#[test]
fn a_spec_too_large_for_the_address_space_left_is_refused_naming_the_limit() {
    let d = tempdir();
    let text = spec(20_000);
    assert_eq!(text.len(), 1_948_933);
    write_file(d.path(), "big.toml", &text);
    let before = dir_listing(d.path());
    for cmd in [&["validate", "big.toml"][..], &["plan", "big.toml"]] {
        let Some((code, err)) = under_limit(d.path(), 110, cmd) else {
            return;
        };
        assert_eq!(code, 2, "{cmd:?}: {err}");
        assert!(
            err.starts_with("error: big.toml: loading the spec needs about 128926016 B of address space beyond the ")
                && err.contains("(4194304 B for its own work, and 64 B per byte of its 1948933 B), and the address-space limit (RLIMIT_AS, ulimit -v) is 115343360 B: raise it to at least "),
            "{cmd:?}: {err}"
        );
        assert_eq!(dir_listing(d.path()), before, "{cmd:?} wrote something");
    }
    // 2,000 phases fit under 160 MiB.
    write_file(d.path(), "small.toml", &spec(2_000));
    if let Some((code, err)) = under_limit(d.path(), 160, &["validate", "small.toml"]) {
        assert_eq!(code, 0, "{err}");
    }
}

/// fio's JSON output of `n` jobs, each one 4 KiB random read job of 1,000 I/Os.
fn fio_json(n: usize) -> String {
    let dir =
        r#"{"io_bytes":0,"io_kbytes":0,"bw_bytes":0,"bw":0,"iops":0,"runtime":0,"total_ios":0}"#;
    let read = r#"{"io_bytes":4096000,"io_kbytes":4000,"bw_bytes":1000000,"bw":1000,"iops":250.0,"runtime":4000,"total_ios":1000,"clat_ns":{"min":1,"max":10,"mean":5.0,"stddev":1,"N":1000,"percentile":{"99.000000":9}},"lat_ns":{"min":1,"max":10,"mean":5.0,"stddev":1,"N":1000}}"#;
    let jobs: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"jobname":"j{i}","groupid":0,"error":0,"job options":{{"rw":"randread","bs":"4k"}},"read":{read},"write":{dir},"trim":{dir}}}"#))
        .collect();
    format!(
        r#"{{"fio version":"fio-3.36","timestamp":1,"time":"x","global options":{{}},"jobs":[{}]}}"#,
        jobs.join(",")
    )
}

/// More jobs than a results file may have phases (100,000) are refused naming the limit, exit 2, nothing
/// written; 5,000 jobs are compared, a row per job (the phases were matched by a search of the list per
/// phase: quadratic).
#[test]
fn fio_json_past_the_job_limit_is_refused_and_many_jobs_are_compared() {
    let d = tempdir();
    let jobs = vec!["{}"; 100_001].join(",");
    write_file(
        d.path(),
        "many.json",
        &format!(r#"{{"fio version":"fio-3.36","timestamp":1,"jobs":[{jobs}]}}"#),
    );
    let before = dir_listing(d.path());
    for cmd in [
        &["compare", "many.json"][..],
        &["report", "many.json", "-o", "r"],
    ] {
        let (code, _, err) = code_out_err(&wkrun(d.path(), cmd));
        assert_eq!(code, 2, "{cmd:?}: {err}");
        assert!(
            err.contains("many.json") && err.contains("\"jobs\" has 100001 jobs, more than the 100000 wkrun reads (the most phases a results file may have)"),
            "{cmd:?}: {err}"
        );
        assert_eq!(dir_listing(d.path()), before, "{cmd:?} wrote something");
    }
    write_file(d.path(), "five.json", &fio_json(5_000));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "five.json"]));
    assert_eq!(code, 0, "{err}");
    for i in [0, 2_500, 4_999] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("j{i} "))),
            "j{i}"
        );
    }
}
