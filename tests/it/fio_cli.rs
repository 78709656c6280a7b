//! `wkrun import fio`, `wkrun export fio` and fio's JSON in `compare`/`report` from the command line
//! (issue 28): specs written with fio's meaning, refusals naming file and line with exit 2 and nothing
//! written, the command-line form, `--lossy`, a job file fio parses, and fio's output beside wkrun's.

use crate::common::{
    code_out_err, dir_listing, run_s_on_sim, skip, spec_text, tempdir, wkrun, write_file,
};
use std::path::Path;

/// fio's job file of the shared check: two stonewalled jobs on a 64 MiB file.
fn two_jobs(target: &Path) -> String {
    format!(
        "[global]\nioengine=libaio\ndirect=1\nfilename={}\nsize=64m\n\n[mix]\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=16\nruntime=2\ntime_based\n\n[seq]\nstonewall\nrw=read\nbs=1m\niodepth=4\nruntime=1\ntime_based\n",
        target.display()
    )
}

/// Why fio cannot be used here, if it cannot.
pub fn fio_missing() -> Option<String> {
    match std::process::Command::new("fio").arg("--version").output() {
        Ok(o) if o.status.success() => None,
        Ok(_) => Some("fio --version fails".into()),
        Err(e) => Some(format!("fio is not installed ({e})")),
    }
}

/// The plan of a spec, as JSON.
fn plan(dir: &Path, spec: &str) -> serde_json::Value {
    let (code, out, err) = code_out_err(&wkrun(dir, &["plan", "--json", spec]));
    assert_eq!(code, 0, "plan {spec}: {err}");
    serde_json::from_str(&out).expect("plan JSON")
}

/// A job file imports into a spec whose plan has fio's meaning, each phase naming its job; the spec's
/// notes go to stderr.
#[test]
fn fio_import_keeps_the_meaning() {
    let d = tempdir();
    let t = d.path().join("t.img");
    write_file(d.path(), "a.fio", &two_jobs(&t));
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "a.fio", "-o", "a.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("note: wkrun's read share is exact in every 100 I/Os"),
        "{err}"
    );
    let p = plan(d.path(), "a.toml");
    let phases = p["phases"].as_array().expect("phases");
    let got: Vec<(u64, u64, u64, &str)> = phases
        .iter()
        .map(|ph| {
            let q = &ph["params"];
            (
                q["read_percent"].as_u64().unwrap_or(999),
                q["queue_depth"].as_u64().unwrap_or(0),
                q["block_size_bytes"].as_u64().unwrap_or(0),
                q["imported_from"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (70, 16, 4096, "a.fio:7 [mix]"),
            (100, 4, 1 << 20, "a.fio:15 [seq]")
        ]
    );
    // Without -o the spec goes to stdout.
    let (code, out, _) = code_out_err(&wkrun(d.path(), &["import", "fio", "a.fio"]));
    assert_eq!(code, 0);
    assert!(out.contains("[[phase]]\nname = \"mix\""), "{out}");
}

/// The command-line form, several --name starting several jobs.
#[test]
fn fio_import_of_a_command_line() {
    let d = tempdir();
    let args = [
        "import",
        "fio",
        "-o",
        "c.toml",
        "--",
        "--name=mixed",
        "--rw=randrw",
        "--rwmixread=70",
        "--bs=4k",
        "--iodepth=32",
        "--numjobs=4",
        "--direct=1",
        "--ioengine=libaio",
        "--size=10G",
        "--runtime=60",
        "--time_based",
        "--group_reporting",
        "--filename=t.img",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(d.path().join("c.toml")).expect("spec");
    for line in [
        "imported_from = \"fio command line: --name=mixed (argument 1)\"",
        "read_percent = 70",
        "queue_depth = 32",
        "workers = 4",
        "coverage = \"full\"",
        "duration = \"1min\"",
        "span = \"10GiB\"",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
    assert!(
        err.contains(
            "argument 12 `--group_reporting`: group_reporting: wkrun has no `group_reporting`"
        ),
        "{err}"
    );
    // The issue's own command line: runtime without time_based is fio's "whichever first".
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "import",
            "fio",
            "--",
            "--name=m",
            "--size=10G",
            "--runtime=60",
            "--filename=t.img",
        ],
    ));
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "fio command line, argument 3 `--runtime=60`: the byte bound (10GiB per job) beside runtime=1min without time_based"
        ),
        "{err}"
    );
}

/// An option with no wkrun meaning is refused naming file, line and option; --lossy drops it with a
/// comment in the spec.
#[test]
fn fio_import_refuses_then_drops_with_lossy() {
    let d = tempdir();
    write_file(
        d.path(),
        "bad.fio",
        "[x]\nioengine=rdma\nrw=read\nbs=4k\nsize=1m\n",
    );
    let before = dir_listing(d.path());
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "bad.fio", "-o", "bad.toml"],
    ));
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: bad.fio:2: ioengine=rdma: fio's rdma engine has no wkrun engine"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(dir_listing(d.path()), before);
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "--lossy", "bad.fio", "-o", "l.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("dropped: bad.fio:2: ioengine=rdma"), "{err}");
    let text = std::fs::read_to_string(d.path().join("l.toml")).expect("spec");
    assert!(
        text.contains("# dropped (--lossy): bad.fio:2: ioengine=rdma: fio's rdma engine"),
        "{text}"
    );
}

/// Input fio would refuse, or no job file at all, is refused with exit 2 naming file and line, and nothing
/// is written.
#[test]
fn fio_import_bad_input() {
    let d = tempdir();
    let write =
        |name: &str, bytes: &[u8]| std::fs::write(d.path().join(name), bytes).expect("write");
    write("unknown.fio", b"[a]\nrw=read\nbogus_option=1\n");
    write("value.fio", b"[a]\nbs=4q\n");
    write("section.fio", b"[a]\nrw=read\n[b\n");
    write(
        "binary.fio",
        b"[a]\nrw=read\n\x7fELF\x02\x01\x01\x00\x00\x00",
    );
    write("loop1.fio", b"include loop2.fio\n");
    write("loop2.fio", b"include loop1.fio\n");
    write("loop.fio", b"[a]\ninclude loop1.fio\n");
    write("var.fio", b"[a]\nfilename=${WKRUN_TEST_UNSET_VARIABLE}\n");
    let big = std::fs::File::create(d.path().join("big.fio")).expect("create");
    big.set_len(100 << 20).expect("100 MB");
    let cases = [
        (
            "unknown.fio",
            "unknown.fio:3: unknown fio option `bogus_option`: fio refuses it too",
        ),
        ("value.fio", "value.fio:2: bs=4q: `4q`: unknown unit `q`"),
        (
            "section.fio",
            "section.fio:3: the section header `[b` has no closing `]`",
        ),
        (
            "binary.fio",
            "binary.fio:3: not a job file: control character",
        ),
        (
            "big.fio",
            "big.fio: larger than 1 MiB, the largest job file wkrun reads",
        ),
        ("loop.fio", ": include "),
        (
            "var.fio",
            "var.fio:2: ${WKRUN_TEST_UNSET_VARIABLE}: the environment variable WKRUN_TEST_UNSET_VARIABLE is not set",
        ),
    ];
    let before = dir_listing(d.path());
    for (file, want) in cases {
        for lossy in [false, true] {
            let mut args = vec!["import", "fio", file, "-o", "out.toml"];
            if lossy {
                args.push("--lossy");
            }
            let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
            assert_eq!((code, out.as_str()), (2, ""), "{file}: {err}");
            assert!(
                err.starts_with("error: ") && err.contains(want),
                "{file}: want {want:?} in {err}"
            );
            assert_eq!(dir_listing(d.path()), before, "{file} wrote something");
        }
    }
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["import", "fio"]));
    assert_eq!(code, 2);
    assert!(err.contains("give fio job files"), "{err}");
}

/// The exported job file parses in fio (when fio is installed); what it cannot say is on stderr.
#[test]
fn fio_export_parses_in_fio() {
    let d = tempdir();
    let spec = crate::common::seed_spec("anthology");
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", spec.to_str().expect("utf-8")],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[global]\ngroup_reporting=1\n"), "{out}");
    assert!(err.contains("not exported: phase"), "{err}");
    write_file(d.path(), "a.fio", &out);
    if let Some(why) = fio_missing() {
        skip("fio_export_parses_in_fio", &why);
        return;
    }
    fio_parses(d.path(), "a.fio", &out);
}

/// Asserts that fio parses the job file `name` in `d` (`fio --parse-only`); `out` is its text, shown when not.
fn fio_parses(d: &Path, name: &str, out: &str) {
    let o = std::process::Command::new("fio")
        .args(["--parse-only", name])
        .current_dir(d)
        .output()
        .expect("fio");
    assert!(
        o.status.success(),
        "fio --parse-only: {}\n{out}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// fio's JSON output is read by compare and report beside a wkrun run; one that is cut short or not
/// fio's is refused naming the file.
#[test]
fn fio_json_in_compare_and_report() {
    let d = tempdir();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio");
    let two = data.join("fio-3.33-two-jobs.json");
    let two = two.to_str().expect("utf-8");
    let plus = data.join("fio-3.33-json-plus.json");
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["compare", two, plus.to_str().expect("utf-8")],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("fio: fio-3.33-two-jobs.json") && out.contains("fio fio-3.33 sha256:"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("mix") && l.contains("read latency p99")),
        "{out}"
    );
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", two, "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    assert!(d.path().join("rep/index.html").exists());
    let text = std::fs::read_to_string(data.join("fio-3.33-two-jobs.json")).expect("json");
    write_file(d.path(), "cut.json", &text[..text.len() / 3]);
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["compare", "cut.json", two]));
    assert_eq!(code, 2);
    assert!(
        err.contains("cut.json: fio's JSON output cut short"),
        "{err}"
    );
    write_file(d.path(), "other.json", "{\"jobs\": [], \"version\": 3}\n");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["compare", "other.json", two]));
    assert_eq!(code, 2);
    assert!(
        err.contains("other.json is not a wkrun results document"),
        "{err}"
    );
}

/// An imported spec runs, and its results say where each phase came from.
#[test]
fn fio_imported_spec_runs_with_its_origin() {
    let d = tempdir();
    write_file(
        d.path(),
        "n.fio",
        "[global]\nioengine=null\nsize=1m\n[r]\nrw=randread\nnorandommap\nbs=4k\nio_size=64k\n",
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "n.fio", "-o", "n.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["n.toml", "-o", "out", "-q"]));
    assert_eq!(code, 0, "{err}");
    let r = crate::common::results(&d.path().join("out"));
    assert_eq!(r["phases"][0]["params"]["imported_from"], "n.fio:4 [r]");
    assert_eq!(r["phases"][0]["read"]["ops"], 16);
}

/// Attack 28 F4: a spec none of whose phases fio can run (a mix of trims with writes; a verify phase) is
/// refused, exit 2, with each reason and no job file (it exited 0 with a job file of no job); stdout gets
/// nothing either. One phase that exports is enough for exit 0.
#[test]
fn an_export_of_no_phase_is_refused_with_exit_2() {
    let t = tempdir();
    let d = t.path();
    let head = "format = 1\n[spec]\nname = \"s\"\nversion = \"1\"\n[[phase]]\nname = \"mixed\"\nkind = \"workload\"\nduration = \"1s\"\nread_percent = 50\ntrim_percent = 20\n";
    write_file(d, "s.toml", head);
    let (code, out, err) = code_out_err(&wkrun(d, &["export", "fio", "s.toml", "-o", "s.fio"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "not exported: phase mixed (workload): its 20 % trims among reads and writes have no fio job: fio's rw=trim and randtrim trim only, and trimwrite trims each block before writing it\nerror: s.toml: no phase can be exported to fio (each is said above), so the job file would run nothing; nothing was written\n"
        )
    );
    assert!(!d.join("s.fio").exists());
    let (code, out, _) = code_out_err(&wkrun(d, &["export", "fio", "s.toml"]));
    assert_eq!((code, out.as_str()), (2, ""));
    let w = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nduration = \"1s\"\nread_percent = 0\n";
    write_file(d, "s.toml", &format!("{head}{w}"));
    let (code, out, err) = code_out_err(&wkrun(d, &["export", "fio", "s.toml"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\n[w]\n") && !out.contains("[mixed]"), "{out}");
}

/// `export fio -o`, `import fio -o` and `library add --library` refuse a path among /dev's device nodes
/// as run and report refuse an output folder there, and a folder that does not exist is exit 2, not 1:
/// nothing is written.
#[test]
fn output_files_among_devices_or_in_a_missing_folder_are_refused_with_exit_2() {
    let t = tempdir();
    let d = t.path();
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n";
    write_file(d, "s.toml", &crate::common::spec_text("s", fill));
    let cases: [(&[&str], &str); 4] = [
        (
            &["export", "fio", "s.toml", "-o", "/dev/wkrun-x.fio"],
            "error: the job file /dev/wkrun-x.fio would be on",
        ),
        (
            &["export", "fio", "s.toml", "-o", "/nonexist/x.fio"],
            "error: cannot write the job file /nonexist/x.fio: No such file or directory (os error 2)",
        ),
        (
            &[
                "import",
                "fio",
                "-o",
                "/dev/wkrun-x.toml",
                "--",
                "--name=a",
                "--rw=read",
                "--size=1m",
            ],
            "error: the spec /dev/wkrun-x.toml would be on",
        ),
        (
            &["library", "list", "--library", "/dev/wkrun-lib.sqlite"],
            "error: no library at /dev/wkrun-lib.sqlite",
        ),
    ];
    for (args, want) in cases {
        let (c, _, e) = code_out_err(&wkrun(d, args));
        assert_eq!(c, 2, "{args:?}: {e}");
        assert!(e.lines().any(|l| l.starts_with(want)), "{args:?}: {e}");
    }
    run_s_on_sim(d, "r");
    let add = ["library", "add", "--library", "/dev/wkrun-lib.sqlite", "r"];
    let (c, _, e) = code_out_err(&wkrun(d, &add));
    assert_eq!(
        (c, e.as_str()),
        (
            2,
            "error: library /dev/wkrun-lib.sqlite: it would be on /dev's device nodes, not on storage; choose another --library\n"
        )
    );
    for f in ["wkrun-x.fio", "wkrun-x.toml", "wkrun-lib.sqlite"] {
        assert!(!Path::new("/dev").join(f).exists(), "{f} was written");
    }
}

/// Trims and flushes in `export fio` (found by the newcomer trial: a workload of 20 % trims and one of
/// trims only were exported as `rw=randrw` and `rw=randwrite`, and `fsync = 8` and `sync` were dropped,
/// all without a word): trims only are `rw=randtrim` / `rw=trim`; `sync`, `fsync` and `fdatasync` are
/// fio's options of the same names; a mix of trims with reads or writes, which fio cannot run, is left
/// out and said. fio parses the file, and importing it gives the phases back.
#[test]
fn export_fio_keeps_trims_and_flushes_or_says_why_not() {
    let dir = tempdir();
    let d = dir.path();
    let phase = |name: &str, keys: &str| {
        format!("[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nduration = \"5s\"\n{keys}")
    };
    let spec = [
        "format = 1\n[spec]\nname = \"s\"\nversion = \"1\"\n[target]\npath = \"t.img\"\n"
            .to_string(),
        phase("rtrim", "read_percent = 0\ntrim_percent = 100\n"),
        phase(
            "strim",
            "pattern = \"sequential\"\nread_percent = 0\ntrim_percent = 100\n",
        ),
        phase("mixed", "read_percent = 50\ntrim_percent = 20\n"),
        phase("fs", "read_percent = 0\nfsync = 8\nsync = \"dsync\"\n"),
        phase("fds", "read_percent = 30\nfdatasync = 4\nsync = \"sync\"\n"),
    ]
    .concat();
    write_file(d, "s.toml", &spec);
    let (code, out, err) = code_out_err(&wkrun(d, &["export", "fio", "s.toml"]));
    assert_eq!(code, 0, "{err}");
    let jobs: Vec<String> = out
        .split("\n\n")
        .filter(|j| j.starts_with('[') && !j.starts_with("[global]"))
        .map(|j| format!("{}\n", j.trim_end()))
        .collect();
    let common = "ioengine=psync\ndirect=1\n";
    let tail = "bs=4k\niodepth=1\nruntime=5s\ntime_based=1\nrefill_buffers=1\n";
    assert_eq!(
        jobs,
        [
            // Attack 19 F4: t.img is a file, which fio trims only with its falloc engine.
            format!("[rtrim]\nioengine=falloc\ndirect=1\nrw=randtrim\nnorandommap=1\n{tail}"),
            format!("[strim]\nstonewall\nioengine=falloc\ndirect=1\nrw=trim\n{tail}"),
            format!(
                "[fs]\nstonewall\n{common}rw=randwrite\nnorandommap=1\n{tail}sync=dsync\nfsync=8\n"
            ),
            format!(
                "[fds]\nstonewall\n{common}rw=randrw\nrwmixread=30\nnorandommap=1\n{tail}sync=1\nfdatasync=4\n"
            ),
        ],
        "{out}"
    );
    let not = "not exported: phase mixed (workload): its 20 % trims among reads and writes have no fio job: fio's rw=trim and randtrim trim only, and trimwrite trims each block before writing it";
    assert_eq!(err.lines().filter(|l| l.contains(not)).count(), 1, "{err}");
    write_file(d, "s.fio", &out);
    let (code, back, err) = code_out_err(&wkrun(d, &["import", "fio", "s.fio"]));
    assert_eq!(code, 0, "{err}");
    for keys in [
        "name = \"rtrim\"\nkind = \"workload\"\nimported_from = \"s.fio:",
        "pattern = \"random\"\nread_percent = 0\ntrim_percent = 100\n",
        "pattern = \"sequential\"\nread_percent = 0\ntrim_percent = 100\n",
        "sync = \"dsync\"\nfsync = 8\n",
        "sync = \"sync\"\nfdatasync = 4\n",
    ] {
        assert!(back.contains(keys), "{keys:?} in\n{back}");
    }
    if let Some(why) = fio_missing() {
        return skip(
            "fio_cli::export_fio_keeps_trims_and_flushes_or_says_why_not",
            &why,
        );
    }
    fio_parses(d, "s.fio", &out);
}

/// A phase named `global` (or `global2`) is a job of its own: fio reads every section whose name starts
/// with `global` as global options, so its job is `[job-global]` with `name=global`, said in a comment;
/// the re-import gives both phases back, with their names (attack24b, finding 10).
#[test]
fn export_fio_of_a_phase_named_global_keeps_its_job() {
    let d = tempdir();
    let phase = |name: &str, read: u32| {
        format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = {read}\nduration = \"2s\"\n"
        )
    };
    let spec = format!(
        "format = 1\n[spec]\nname = \"e\"\nversion = \"1\"\n{}{}{}",
        phase("r", 100),
        phase("global", 0),
        phase("global2", 50)
    );
    write_file(d.path(), "ex.toml", &spec);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "ex.toml"]));
    assert_eq!(code, 0, "{err}");
    let sections: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        sections,
        ["[global]", "[r]", "[job-global]", "[job-global2]"],
        "{out}"
    );
    assert!(
        out.contains("\n[job-global]\nname=global\nstonewall\n"),
        "{out}"
    );
    assert!(
        out.contains("\n[job-global2]\nname=global2\nstonewall\n"),
        "{out}"
    );
    assert!(
        out.contains("; differs: phase global: its job is the section [job-global] with name=global, since fio reads a section whose name starts with \"global\" as global options, not a job\n"),
        "{out}"
    );
    write_file(d.path(), "ex.fio", &out);
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "ex.fio", "-o", "ex2.toml", "--lossy"],
    ));
    assert_eq!(code, 0, "{err}");
    let back: toml::Table = std::fs::read_to_string(d.path().join("ex2.toml"))
        .expect("ex2.toml")
        .parse()
        .expect("TOML");
    let names: Vec<&str> = back["phase"]
        .as_array()
        .expect("phases")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["r", "global", "global2"]);
    if fio_missing().is_none() {
        fio_parses(d.path(), "ex.fio", &out);
    }
}

/// A simulated drive among several targets runs on a file of its capacity, as the one simulated target of
/// a spec does, said on stderr (attack 15: `paths = ["a.img", "sim:capacity=1GiB"]` exported the job
/// `filename=sim\:capacity=1GiB` with no size, exit 0, nothing said; such a mix of a file and a simulated
/// drive is now refused when the spec is read, mixed clocks); the job file parses in fio.
#[test]
fn export_fio_of_a_simulated_entry_of_paths_runs_it_on_a_file() {
    let d = tempdir();
    let spec = |paths: &str| {
        spec_text(
            "mt",
            &format!(
                "[target]\npaths = {paths}\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1s\"\n"
            ),
        )
    };
    write_file(
        d.path(),
        "mixed.toml",
        &spec(r#"["a.img", "sim:capacity=1GiB"]"#),
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "mixed.toml"]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("target.paths[1]") && err.contains("virtual time"),
        "{err}"
    );
    write_file(
        d.path(),
        "mt.toml",
        &spec(r#"["sim:capacity=2GiB", "sim:capacity=1GiB"]"#),
    );
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "mt.toml"]));
    let said = |i: usize, cap: &str| {
        format!(
            "target.paths[{i}] is a simulated drive: its jobs run on the file wkrun-target-t{i}.img of the drive's capacity ({cap}) instead (fio runs on files and devices)"
        )
    };
    assert_eq!(
        (code, err),
        (
            0,
            format!(
                "differs: {}\ndiffers: {}\n",
                said(0, "2GiB"),
                said(1, "1GiB")
            )
        )
    );
    assert!(
        out.contains(&format!("\n; differs: {}\n", said(1, "1GiB"))),
        "{out}"
    );
    assert!(
        out.contains("\n[w@t1]\nfilename=wkrun-target-t1.img\nfilesize=1g\n"),
        "{out}"
    );
    assert!(!out.contains("filename=sim"), "{out}");
    write_file(d.path(), "mt.fio", &out);
    if let Some(why) = fio_missing() {
        skip(
            "fio_cli::export_fio_of_a_simulated_entry_of_paths_runs_it_on_a_file",
            &why,
        );
        return;
    }
    fio_parses(d.path(), "mt.fio", &out);
}

/// A spec of target `path`, one 2 s random-write phase.
fn path_spec(path: &str) -> String {
    spec_text(
        "p",
        &format!(
            "[target]\npath = \"{path}\"\nsize = \"64MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"2s\"\n"
        ),
    )
}

/// attack14 F1: a line break in `[target] path` was written into the job file as it was, so the path
/// `/tmp/x.dat` + newline + `filename=/dev/sdz` exported two `filename=` lines, and fio writes the last,
/// a device the spec never named. A control character in a value fio must read is refused now (exit 2,
/// the key named, no job file); a carriage return in one of `[target] paths` likewise.
#[test]
fn export_fio_refuses_a_control_character_in_a_path() {
    let d = tempdir();
    write_file(
        d.path(),
        "n.toml",
        &path_spec("/tmp/x.dat\\nfilename=/dev/sdz"),
    );
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "n.toml", "-o", "n.fio"],
    ));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    let first = err.lines().next().expect("a line");
    assert_eq!(
        first,
        "error: n.toml:6:1: target.path: fio cannot be given the path \"/tmp/x.dat\\nfilename=/dev/sdz\": it holds the control character \\n: fio's job files cannot hold it (fio reads them line by line, so a line break would start a line of fio options of its own; fio has no escape for any control character)"
    );
    assert!(
        err.ends_with(
            "nothing was written (fio would read the job file otherwise than the spec means)\n"
        ),
        "{err}"
    );
    assert!(!d.path().join("n.fio").exists());
    let spec = path_spec("x").replace(
        "path = \"x\"",
        "paths = [\"/tmp/a.dat\", \"/tmp/b.dat\\rfilename=/dev/sdz\"]",
    );
    write_file(d.path(), "r.toml", &spec);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "r.toml"]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.starts_with("error: r.toml:6:24: target.paths[1]: fio cannot be given the path \"/tmp/b.dat\\rfilename=/dev/sdz\": it holds the control character \\r: "),
        "{err}"
    );
    // The same spec with a plain second path exports, one `filename=` line a job.
    write_file(d.path(), "ok.toml", &spec.replace("\\r", "-"));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "ok.toml"]));
    assert_eq!(code, 0, "{err}");
    let files: Vec<&str> = out.lines().filter(|l| l.starts_with("filename=")).collect();
    assert_eq!(
        files,
        [
            "filename=/tmp/a.dat",
            "filename=/tmp/b.dat-filename=/dev/sdz"
        ]
    );
    // A line longer than fio reads as one (4094 bytes and its newline in fio's 4096-byte buffer) would
    // be two lines to fio: `filename=` and a path of 4085 bytes is the longest exported.
    for (len, code) in [(4085, 0), (4086, 2)] {
        let path = format!("/tmp/{}", "a".repeat(len - 5));
        write_file(d.path(), "l.toml", &path_spec(&path));
        let (got, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", "l.toml"]));
        assert_eq!(got, code, "{len}: {err}");
        let lines: Vec<usize> = out
            .lines()
            .filter(|l| l.starts_with("filename="))
            .map(str::len)
            .collect();
        match code {
            0 => assert_eq!(lines, [4094]),
            _ => assert!(
                err.contains(&format!("({len} bytes)\": its line in the job file (4095 bytes) is longer than the 4094 fio reads as one line: fio would read the rest as a line of its own\n")),
                "{err}"
            ),
        }
    }
}

/// attack14 F2: the job file's first comment names the spec file as it was, so a file name holding line
/// breaks (`x` + newline + `[evil]` + newline + `rw=randwrite` ...) made a write job of its own. The name
/// is written with its control characters escaped: one comment line, and fio's sections are the spec's.
#[test]
fn export_fio_escapes_the_spec_file_name_in_its_comment() {
    let d = tempdir();
    let name =
        "x\n[evil]\nrw=randwrite\nfilename=victim.dat\ntime_based\nruntime=5\nsize=1m\n;.toml";
    write_file(d.path(), name, &path_spec("/tmp/ok.dat"));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["export", "fio", name]));
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().expect("a line");
    assert_eq!(
        first,
        format!(
            "; fio job file exported by wkrun {} from x\\n[evil]\\nrw=randwrite\\nfilename=victim.dat\\ntime_based\\nruntime=5\\nsize=1m\\n;.toml (wkrun export fio)",
            env!("CARGO_PKG_VERSION")
        )
    );
    let sections: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(sections, ["[global]", "[w]"], "{out}");
    let files: Vec<&str> = out.lines().filter(|l| l.starts_with("filename=")).collect();
    assert_eq!(files, ["filename=/tmp/ok.dat"], "{out}");
}

/// attack14 F3: fio reads `;` and `#` as a comment's start anywhere on a line, replaces `${VAR}` and
/// `$ncpus`, and drops white space at a value's ends, none of which it can be told otherwise: such a
/// path is refused (exit 2, `target.path` and the reason named). A colon fio can be told (`\:`), and a
/// backslash before a colon in the path stays: the job file imports back to the very path.
#[test]
fn export_fio_refuses_what_fio_reads_otherwise_and_round_trips_the_rest() {
    let d = tempdir();
    for (path, why) in [
        (
            "/tmp/run;1.dat",
            "it holds `;`, which fio reads as the start of a comment anywhere on a line, with no escape for it: fio would open the path cut before it",
        ),
        (
            "/tmp/run#1.dat",
            "it holds `#`, which fio reads as the start of a comment anywhere on a line, with no escape for it: fio would open the path cut before it",
        ),
        (
            "/tmp/${HOME}.dat",
            "it holds `${`: fio replaces `${NAME}` anywhere on a line with the environment variable NAME (with nothing when NAME is not set), with no escape for it",
        ),
        (
            "/tmp/$ncpus.dat",
            "it holds `$ncpus`, which fio replaces anywhere on a line with the host's number of CPUs, with no escape for it",
        ),
        (
            "/tmp/x.dat ",
            "it starts or ends with white space, which fio drops from a value",
        ),
    ] {
        write_file(d.path(), "q.toml", &path_spec(path));
        let (code, out, err) = code_out_err(&wkrun(
            d.path(),
            &["export", "fio", "q.toml", "-o", "q.fio"],
        ));
        assert_eq!((code, out.as_str()), (2, ""), "{path}: {err}");
        let first = err.lines().next().expect("a line");
        assert_eq!(
            first,
            format!("error: q.toml:6:1: target.path: fio cannot be given the path {path:?}: {why}")
        );
        assert!(!d.path().join("q.fio").exists(), "{path}");
    }
    let path = "/tmp/a b:c\\\\:d.dat";
    write_file(d.path(), "q.toml", &path_spec(path));
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["export", "fio", "q.toml", "-o", "q.fio"],
    ));
    assert_eq!(code, 0, "{err}");
    let job = std::fs::read_to_string(d.path().join("q.fio")).expect("q.fio");
    let files: Vec<&str> = job.lines().filter(|l| l.starts_with("filename=")).collect();
    assert_eq!(files, ["filename=/tmp/a b\\:c\\\\:d.dat"]);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["import", "fio", "q.fio"]));
    assert_eq!(code, 0, "{err}");
    let back: toml::Table = out.parse().expect("TOML");
    assert_eq!(
        back["target"]["path"].as_str(),
        Some("/tmp/a b:c\\:d.dat"),
        "{out}"
    );
}

/// Scale 15, finding 2: 150,000 stonewalled jobs (three job files of 50,000) were all shaped, written as a
/// spec and loaded before the spec's limit of 100,000 phases refused them (87 s, 1.6 GB). The import now
/// stops at the job that starts phase 100,001, the first job of the third file: one error naming it, and
/// none from the jobs after it (the last one's option that fio does not know is never read).
#[test]
fn jobs_past_the_phase_limit_are_refused_at_the_job_that_passes_it() {
    let d = tempdir();
    for k in 0..3u32 {
        let mut text = match k {
            0 => String::from("[global]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\n"),
            _ => String::new(),
        };
        for i in 0..50_000u32 {
            text.push_str(&format!("[j{}]\nstonewall\n", k * 50_000 + i));
        }
        if k == 2 {
            text.push_str("bs=not-a-size\n");
        }
        write_file(d.path(), &format!("f{k}.fio"), &text);
    }
    let before = dir_listing(d.path());
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "import", "fio", "f0.fio", "f1.fio", "f2.fio", "-o", "s.toml",
        ],
    ));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        "error: f2.fio:1: job 100001 (j100000) waits for the jobs before it, which make 100000 phases already: a spec has at most 100000; split the jobs into several job files and import each\nnothing was written\n"
    );
    assert_eq!(dir_listing(d.path()), before);
}

/// Trial 15 finding 3: with `--output-format=normal,json` fio writes its JSON, then its normal report; the
/// file was refused ("trailing characters"). It is read as its JSON alone: `compare` gives what it gives
/// for the JSON cut out of it by the test, and the IOPS fio reported.
#[test]
fn fio_normal_and_json_output_is_read_as_its_json() {
    if let Some(why) = fio_missing() {
        skip("fio_normal_and_json_output_is_read_as_its_json", &why);
        return;
    }
    let d = tempdir();
    let o = std::process::Command::new("fio")
        .args([
            "--name=randread",
            "--rw=randread",
            "--bs=4k",
            "--size=1M",
            "--filename=f.img",
            "--ioengine=psync",
            "--output-format=normal,json",
            "--output=both.txt",
        ])
        .current_dir(d.path())
        .output()
        .expect("fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let both = std::fs::read_to_string(d.path().join("both.txt")).unwrap();
    // The JSON: from the first line that starts with `{` to the first line that is `}`.
    let start = both.find("\n{").map_or(0, |i| i + 1);
    let end = start + both[start..].find("\n}\n").expect("the JSON's end") + 3;
    assert!(both[end..].contains("randread: (groupid="), "{both}");
    write_file(d.path(), "only.json", &both[start..end]);
    let rows = |file: &str| {
        let (code, out, err) =
            code_out_err(&wkrun(d.path(), &["compare", file, "--format", "csv"]));
        assert_eq!(code, 0, "{file}: {err}");
        out.lines().skip(1).map(String::from).collect::<Vec<_>>()
    };
    let json: serde_json::Value = serde_json::from_str(&both[start..end]).unwrap();
    let iops = json["jobs"][0]["read"]["iops"].as_f64().unwrap();
    let read = rows("only.json");
    assert!(
        read.contains(&format!("randread,\"IOPS, phase mean\",{iops:.1}")),
        "{read:?}"
    );
    assert_eq!(rows("both.txt"), read);
}

/// Runs a tiny fio job `name` (1 MiB, psync, random reads and writes) in `dir`, its output in `out` in the
/// output format `format`; the output as text.
fn tiny_fio(dir: &Path, name: &str, format: &str, out: &str) -> String {
    let o = std::process::Command::new("fio")
        .args([
            &format!("--name={name}"),
            "--rw=randrw",
            "--bs=4k",
            "--size=1M",
            "--filename=f.img",
            "--ioengine=psync",
            &format!("--output-format={format}"),
            &format!("--output={out}"),
        ])
        .current_dir(dir)
        .output()
        .expect("fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(dir.join(out)).expect("fio's output")
}

/// Attack 16 finding 1: a file of two fio runs' output (`cat a.json b.json`, what `fio ... >> out.json`
/// twice gives) was read as its first run's: `validate` said ok (1 phase) and `compare` never showed job
/// b. The second JSON document is refused, exit 2, naming the file and the line it starts on, by every
/// reader, nothing written: two JSON outputs, a JSON output with `{"x":1}` after it, and two
/// `--output-format=normal,json` outputs (JSON, text, JSON, text), whose lines the oracle counts.
#[test]
fn two_fio_runs_in_one_file_are_refused_naming_the_second() {
    if let Some(why) = fio_missing() {
        skip(
            "two_fio_runs_in_one_file_are_refused_naming_the_second",
            &why,
        );
        return;
    }
    let d = tempdir();
    let a = tiny_fio(d.path(), "a", "json", "a.json");
    let b = tiny_fio(d.path(), "b", "json", "b.json");
    let n1 = tiny_fio(d.path(), "a", "normal,json", "n1.out");
    let n2 = tiny_fio(d.path(), "b", "normal,json", "n2.out");
    assert!(a.ends_with("}\n"), "{a}");
    let lines = |t: &str| t.lines().count();
    // The line (from 1) of the first line of `t` that is `c`.
    let line_of = |t: &str, c: &str| t.lines().position(|l| l == c).expect(c) + 1;
    write_file(d.path(), "two.out", &format!("{a}{b}"));
    write_file(d.path(), "x.out", &format!("{a}{{\"x\":1}}\n"));
    write_file(d.path(), "nn.out", &format!("{n1}{n2}"));
    let why = |first_end: usize, second: usize| {
        format!(
            "line {second} starts a second JSON document after fio's (which ends at line {first_end}): one fio run's output per file: split it"
        )
    };
    // Two fio documents whose jobs differ are not one --status-interval run's reports, which is said,
    // with fio's normal text between them too (skipped between a run's reports: attack 24 F1).
    let other = |m: String| {
        m.replacen(
            "):",
            "), not a later report of the same fio run: document 2's jobs[0].jobname is not document 1's:",
            1,
        )
    };
    for (file, message) in [
        ("two.out", other(why(lines(&a), lines(&a) + 1))),
        ("x.out", why(lines(&a), lines(&a) + 1)),
        (
            "nn.out",
            other(why(line_of(&n1, "}"), lines(&n1) + line_of(&n2, "{"))),
        ),
    ] {
        let before = dir_listing(d.path());
        for args in [
            vec!["validate", file],
            vec!["compare", file, "--format", "csv"],
            vec!["warnings", file],
            vec!["report", file],
            vec!["library", "add", file, "--library", "lib.sqlite"],
        ] {
            let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (2, "", format!("error: {file}: {message}\n").as_str()),
                "{args:?}"
            );
        }
        assert_eq!(dir_listing(d.path()), before, "{file}");
    }
    // Each run's output alone reads, job a's and job b's.
    for (file, job) in [("a.json", "a"), ("b.json", "b"), ("n2.out", "b")] {
        let (code, out, err) =
            code_out_err(&wkrun(d.path(), &["compare", file, "--format", "csv"]));
        assert_eq!(code, 0, "{file}: {err}");
        assert!(
            out.lines()
                .skip(1)
                .all(|l| l.starts_with(&format!("{job},"))),
            "{out}"
        );
    }
}

/// Attack 16 finding 2: `wkrun validate` told results from a spec by the first byte, so fio's output with
/// its notes or normal text before its JSON (`--output-format=normal,json`, `json,normal`, notes on
/// stdout), which `compare`, `warnings` and `report` read, was refused as `not valid TOML`. validate tells
/// fio's output as they do: each form is one phase, as fio's JSON alone, and `compare` gives each the JSON
/// alone's rows.
#[test]
fn validate_reads_fio_output_with_text_before_its_json() {
    if let Some(why) = fio_missing() {
        skip("validate_reads_fio_output_with_text_before_its_json", &why);
        return;
    }
    let d = tempdir();
    let json = tiny_fio(d.path(), "a", "json", "a.json");
    let nj = tiny_fio(d.path(), "a", "normal,json", "nj.out");
    let jn = tiny_fio(d.path(), "a", "json,normal", "jn.out");
    for text in [&nj, &jn] {
        assert!(text.starts_with("a: (g=0): rw=randrw"), "{text}");
    }
    write_file(
        d.path(),
        "notes.out",
        &format!("fio: a note before its JSON\n{json}"),
    );
    let rows = |file: &str| {
        let (code, out, err) =
            code_out_err(&wkrun(d.path(), &["compare", file, "--format", "csv"]));
        assert_eq!(code, 0, "{file}: {err}");
        // Past the header, which names the file.
        out.lines().skip(1).map(String::from).collect::<Vec<_>>()
    };
    for file in ["a.json", "nj.out", "jn.out", "notes.out"] {
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", file]));
        assert_eq!(
            (code, out, err.as_str()),
            (
                0,
                format!("{file}: ok (results, 1 phase, 0 series CSVs)\n"),
                ""
            ),
        );
    }
    assert_eq!(rows("notes.out"), rows("a.json"));
    write_file(
        d.path(),
        "only.json",
        &nj[nj.find("\n{").expect("JSON") + 1..],
    );
    assert_eq!(rows("nj.out"), rows("only.json"));
}

/// Attack 24: a line break in a `${VAR}`'s value or in a command-line argument reached the terminal raw
/// in import's error, so a value could print lines of its own (`FAKE: line`). Each problem is one line,
/// the break shown escaped; nothing is written.
#[test]
fn an_import_problem_is_one_line_whatever_its_value_holds() {
    let d = tempdir();
    write_file(d.path(), "j.fio", "[j]\nrw=${V}\nsize=1m\n");
    let o = std::process::Command::new(crate::common::wkrun_bin())
        .args(["import", "fio", "j.fio", "-o", "j.toml"])
        .env("V", "foo\nFAKE: line")
        .current_dir(d.path())
        .output()
        .expect("run wkrun");
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: j.fio:2: rw=foo\\nFAKE: line: `foo\\nFAKE` is not one of fio's rw values\nnothing was written\n"
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "import",
            "fio",
            "-o",
            "k.toml",
            "--",
            "--name=a",
            "--rw=foo\nFAKE",
        ],
    ));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: fio command line, argument 2 `--rw=foo\\nFAKE`: rw=foo\\nFAKE: `foo\\nFAKE` is not one of fio's rw values\nnothing was written\n"
    );
    assert_eq!(dir_listing(d.path()), vec!["j.fio".to_string()]);
}

/// Attack 29 F12: `-o` naming the command's own input (the same path, or another name of the same file, a
/// hard link) is refused, exit 2, and the input keeps its bytes; a new name writes.
#[test]
fn an_output_that_is_the_input_is_refused_with_exit_2() {
    let t = tempdir();
    let d = t.path();
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n";
    write_file(d, "s.toml", &spec_text("s", fill));
    write_file(d, "j.fio", &two_jobs(&d.join("t.img")));
    std::fs::hard_link(d.join("s.toml"), d.join("same.toml")).expect("hard link");
    let (spec, job) = (read(d, "s.toml"), read(d, "j.fio"));
    let cases: [(&[&str], &str); 4] = [
        (
            &["export", "fio", "s.toml", "-o", "s.toml"],
            "error: -o s.toml is the input s.toml: the job file would replace it; name another file; nothing was written\n",
        ),
        (
            &["export", "fio", "s.toml", "-o", "same.toml"],
            "error: -o same.toml is the input s.toml: the job file would replace it; name another file; nothing was written\n",
        ),
        (
            &["import", "fio", "j.fio", "-o", "j.fio"],
            "error: -o j.fio is the input j.fio: the spec would replace it; name another file; nothing was written\n",
        ),
        (
            &["import", "fio", "j.fio", "-o", "./j.fio"],
            "error: -o ./j.fio is the input j.fio: the spec would replace it; name another file; nothing was written\n",
        ),
    ];
    for (args, want) in cases {
        let (c, out, e) = code_out_err(&wkrun(d, args));
        assert_eq!((c, out.as_str(), e.as_str()), (2, "", want), "{args:?}");
    }
    assert_eq!((read(d, "s.toml"), read(d, "j.fio")), (spec, job));
    let (c, _, e) = code_out_err(&wkrun(d, &["import", "fio", "j.fio", "-o", "j.toml"]));
    assert_eq!(c, 0, "{e}");
    assert!(
        read(d, "j.toml")
            .starts_with("# Imported from the fio job file j.fio by `wkrun import fio`"),
        "{}",
        read(d, "j.toml")
    );
}

/// The text of `dir/name`.
fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).expect("a file")
}

/// Attack 29 F13: a target path that is a folder or a FIFO is refused, exit 2, naming where it came
/// from: the spec's line and key `target.path`, or `--target`.
#[test]
fn a_target_that_is_a_folder_or_a_fifo_is_named_where_it_came_from() {
    let t = tempdir();
    let d = t.path();
    std::fs::create_dir(d.join("adir")).expect("folder");
    let fifo = std::process::Command::new("mkfifo")
        .arg(d.join("afifo"))
        .status()
        .expect("mkfifo");
    assert!(fifo.success());
    let w = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    for name in ["adir", "afifo"] {
        let path = d.join(name).display().to_string();
        let text = spec_text("s", &format!("[target]\npath = \"{path}\"\n{w}"));
        write_file(d, "s.toml", &text);
        let want = format!(
            "error: s.toml:6:1: target.path: {path}: not a regular file or a block device\n   |\n 6 | path = \"{path}\"\n   | ^^^^\n"
        );
        for args in [
            &["plan", "s.toml"][..],
            &["export", "fio", "s.toml"],
            &["s.toml"],
        ] {
            let (c, out, e) = code_out_err(&wkrun(d, args));
            assert_eq!((c, out.as_str()), (2, ""), "{args:?}: {e}");
            assert!(e.starts_with(&want), "{args:?}: {e}");
        }
        let (c, _, e) = code_out_err(&wkrun(d, &["plan", "s.toml", "--target", &path]));
        assert_eq!(
            (c, e.as_str()),
            (
                2,
                format!("error: --target {path}: not a regular file or a block device\n").as_str()
            )
        );
    }
}
