//! Attack 22 I2 (F6): `wkrun export fio` of a rate-capped phase with Poisson arrivals and fsync wrote a
//! job that fio 3.33 ends with SIGFPE (it reads a sync's arrival time past its per-direction rate state
//! and divides by zero; fixed in fio 3.42). Such a phase is left out, saying why and what to do; the job
//! file fio gets runs.

use crate::common::{code_out_err, skip, spec_text, tempdir, wkrun, write_file};

/// The phase F6 imported (randrw, a 4k/64k mix, 1024 and 256 I/Os per second, fsync=3), with Poisson
/// arrivals (`a`) and evenly paced (`b`).
fn phases() -> String {
    let phase = |name: &str, process: &str| {
        format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nread_percent = 80\nblock_size = {{ \"4KiB\" = 50, \"64KiB\" = 50 }}\nfsync = 3\nduration = \"1s\"\nrate_iops = {{ read = 1024, write = 256 }}\nrate_process = \"{process}\"\n"
        )
    };
    format!(
        "[target]\npath = \"t.dat\"\nsize = \"16MiB\"\n{}{}",
        phase("a", "poisson"),
        phase("b", "linear")
    )
}

/// The export leaves phase `a` out with the reason, exactly, and keeps `b`; fio runs the job file (one job,
/// `b`, no signal), and fio 3.33 itself crashes on the smallest such job (`rw=write`, `fsync=1`,
/// `rate_iops=100`, `rate_process=poisson`: SIGFPE, no JSON).
#[test]
fn poisson_with_fsync_is_left_out_and_the_job_file_runs() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("s", &phases()));
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "s.toml", "-o", "s.fio"],
    ));
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let why = "phase a (workload): fio 3.33 fails a job with rate_process=poisson under a rate cap and fsync: it reads a sync's arrival time past the end of its per-direction rate state and divides by zero (SIGFPE: the job is killed there, fio reporting only its I/Os before it; every run of a job that only writes, some runs of a mix; fixed in fio 3.42); export it with rate_process = \"linear\" (fio paces evenly) or without fsync, or run it with wkrun";
    assert!(
        err.lines().any(|l| l == format!("not exported: {why}")),
        "{err}"
    );
    let job = std::fs::read_to_string(d.path().join("s.fio")).expect("job file");
    assert!(
        job.lines().any(|l| l == format!("; not exported: {why}")),
        "{job}"
    );
    assert!(!job.contains("\n[a]\n") && job.contains("\n[b]\n"), "{job}");
    let test = "fio_poisson_sync::poisson_with_fsync_is_left_out_and_the_job_file_runs";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let fio = |args: &[&str]| {
        let o = std::process::Command::new("fio")
            .args(args)
            .args(["--output-format=json", "--output=o.json"])
            .current_dir(d.path())
            .output()
            .expect("run fio");
        let json = std::fs::read_to_string(d.path().join("o.json")).unwrap_or_default();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
            json,
        )
    };
    let (code, err, json) = fio(&["s.fio"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("signal="), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).expect("fio's JSON");
    let names: Vec<&str> = doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .filter_map(|j| j["jobname"].as_str())
        .collect();
    assert_eq!(names, ["b"]);
    let version = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .expect("fio --version");
    if String::from_utf8_lossy(&version.stdout).trim() != "fio-3.33" {
        return skip(
            test,
            "the crash is fio 3.33's (fixed in 3.42): not checked on this fio",
        );
    }
    let _ = std::fs::remove_file(d.path().join("o.json"));
    let (code, err, json) = fio(&[
        "--name=w",
        "--filename=t.dat",
        "--size=256k",
        "--rw=write",
        "--fsync=1",
        "--rate_iops=100",
        "--rate_process=poisson",
    ]);
    // fio writes its messages into --output too: the signal's line, then the JSON of the killed job, its
    // first write and first sync.
    let (said, doc) = json.split_at(json.find("\n{").expect("fio's JSON") + 1);
    let pid = said.split(['=', ',']).nth(1).unwrap_or_default();
    assert_eq!(
        (code, said),
        (Some(0), format!("fio: pid={pid}, got signal=8\n").as_str()),
        "{err}"
    );
    let end = doc.rfind('}').expect("JSON's end") + 1;
    let doc: serde_json::Value = serde_json::from_str(&doc[..end]).expect("fio's JSON");
    let ios = |d: &str| doc["jobs"][0][d]["total_ios"].as_u64();
    assert_eq!((ios("write"), ios("sync")), (Some(1), Some(1)));
}
