//! Outputs validated against the schema (issue 31): `wkrun validate` takes results files and folders as
//! well as specs and names each violation by its JSON path; `compare`, `report`, `merge` and `library add`
//! refuse at the door what does not validate; a run checks what it wrote.

use crate::common::*;
use std::fs;
use std::path::Path;

const SPEC: &str = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 50\nduration = \"2s\"\n";

/// A finished two-phase run on a small simulated drive, in `dir/r`.
fn a_run(dir: &Path) {
    write_file(dir, "v.toml", &spec_text("v", SPEC));
    let (c, _, e) = code_out_err(&wkrun(
        dir,
        &[
            "v.toml",
            "--target",
            "sim:capacity=512MiB,op=7%",
            "-q",
            "-o",
            "r",
        ],
    ));
    assert_eq!(c, 0, "{e}");
}

/// `v` as results from before `planned_phases` (without it).
fn older(v: &mut serde_json::Value) {
    v.as_object_mut()
        .expect("an object")
        .remove("planned_phases");
}

/// `dir/r/results.json` changed by `edit`, written beside it (its series CSVs are its) as `dir/r/NAME.json`.
pub(crate) fn tampered(dir: &Path, name: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v = results(&dir.join("r"));
    edit(&mut v);
    let file = format!("r/{name}.json");
    fs::write(dir.join(&file), serde_json::to_vec(&v).expect("json")).expect("write");
    file
}

/// Cuts `dir/r/01-w.csv` (the workload's series) to its header and first row.
fn cut_series(dir: &Path) {
    let csv = dir.join("r/01-w.csv");
    let text = fs::read_to_string(&csv).expect("csv");
    let kept: Vec<&str> = text.lines().take(2).collect();
    fs::write(&csv, kept.join("\n") + "\n").expect("cut");
}

/// Trial 21 T4: the line of a run that did not complete says how it ended, `failed, 0 phases` for one
/// refused for want of room before its first phase (a 32 TiB target file on a file system without the
/// room), where it said `ok (results, 0 phases, ...)` like a finished run's. (An interrupted run's:
/// `interrupt::an_interrupted_phase_is_left_out_of_the_composite_which_says_what_it_rests_on`.)
#[test]
fn a_failed_runs_line_says_failed() {
    let t = tempdir();
    write_file(t.path(), "v.toml", &spec_text("v", SPEC));
    let (c, _, e) = code_out_err(&wkrun(
        t.path(),
        &[
            "v.toml",
            "--target",
            "t.img",
            "--target-size",
            "32TiB",
            "-q",
            "-o",
            "r",
        ],
    ));
    assert_eq!(c, 1, "{e}");
    let (c, out, e) = code_out_err(&wkrun(t.path(), &["validate", "r"]));
    assert_eq!(
        (c, out.as_str()),
        (0, "r: ok (results, failed, 0 phases, 0 series CSVs)\n"),
        "{e}"
    );
}

#[test]
fn results_files_and_folders_validate_and_specs_still_do() {
    let t = tempdir();
    a_run(t.path());
    let (c, out, e) = code_out_err(&wkrun(
        t.path(),
        &["validate", "r", "r/results.json", "v.toml"],
    ));
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        out,
        "r: ok (results, 2 phases, 2 series CSVs)\nr/results.json: ok (results, 2 phases, 2 series CSVs)\nv.toml: ok (2 phases)\n"
    );
}

#[test]
fn each_violation_is_named_by_its_json_path() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let wrong_type = tampered(d, "type", |v| v["phases"][1]["read"]["ops"] = "12".into());
    let missing = tampered(d, "missing", |v| {
        v["phases"][0]
            .as_object_mut()
            .expect("phase")
            .remove("name");
    });
    let extra = tampered(d, "extra", |v| {
        v["phases"][1]["read"]["surprise"] = 1.into()
    });
    let cases = [
        (
            wrong_type.as_str(),
            "error: r/type.json does not match the results schema (1 violation):\n  phases[1].read.ops: \"12\" is not of type \"integer\"\n",
        ),
        (
            missing.as_str(),
            "error: r/missing.json does not match the results schema (1 violation):\n  phases[0]: \"name\" is a required property\n",
        ),
        (
            extra.as_str(),
            "error: r/extra.json does not match the results schema (1 violation):\n  phases[1].read: Additional properties are not allowed ('surprise' was unexpected)\n",
        ),
    ];
    for (file, want) in cases {
        let (c, out, e) = code_out_err(&wkrun(d, &["validate", file]));
        assert_eq!((c, out.as_str(), e.as_str()), (2, "", want), "{file}");
        // The same message, at the door of every command that reads results; nothing written.
        for args in [
            vec!["compare", "r", file],
            vec!["report", file, "-o", "rep"],
            vec!["merge", "r/results.json", file, "-o", "m"],
            vec!["library", "add", "r", file, "--library", "lib.sqlite"],
        ] {
            let (c, out, e) = code_out_err(&wkrun(d, &args));
            assert_eq!((c, out.as_str(), e.as_str()), (2, "", want), "{args:?}");
        }
        assert!(!d.join("rep").exists() && !d.join("m").exists() && !d.join("lib.sqlite").exists());
    }
}

#[test]
fn json_that_is_not_wkrun_results_and_oversized_files_are_refused() {
    let t = tempdir();
    let d = t.path();
    fs::write(d.join("other.json"), "{\"hello\": 1}").expect("write");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "other.json"]));
    assert_eq!(c, 2);
    assert_eq!(
        e,
        "error: other.json is not a wkrun results document: it has no integer `format` field\n"
    );
    fs::write(d.join("cut.json"), "{\"format\": 1, \"phases\": [").expect("write");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "cut.json"]));
    assert_eq!(c, 2);
    assert!(
        e.starts_with(
            "error: cut.json is not a wkrun results document: not JSON (EOF while parsing"
        ),
        "{e}"
    );
    // 1 GiB, sparse: refused by its size before a byte is parsed.
    let big = fs::File::create(d.join("big.json")).expect("create");
    big.set_len(1 << 30).expect("set_len");
    fs::write(d.join("big.json"), b"{").ok();
    let big = fs::OpenOptions::new()
        .write(true)
        .open(d.join("big.json"))
        .expect("open");
    big.set_len(1 << 30).expect("set_len");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "big.json"]));
    assert_eq!(c, 2);
    assert_eq!(
        e,
        "error: big.json: larger than 512MiB, the largest results file wkrun reads\n"
    );
    // 1 GiB of NULs named results.json: results by its name, not a spec.
    fs::create_dir(d.join("nul")).expect("mkdir");
    sparse_file(&d.join("nul/results.json"), 1 << 30);
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "nul/results.json"]));
    assert_eq!(
        (c, e.as_str()),
        (
            2,
            "error: nul/results.json: larger than 512MiB, the largest results file wkrun reads\n"
        )
    );
}

#[test]
fn a_results_folder_with_a_cut_series_csv_does_not_validate() {
    let t = tempdir();
    a_run(t.path());
    cut_series(t.path());
    let (c, _, e) = code_out_err(&wkrun(t.path(), &["validate", "r"]));
    assert_eq!(c, 2);
    assert!(
        e.starts_with("error: series r/01-w.csv: 1 rows, where results.json says phase \"w\" has "),
        "{e}"
    );
}

/// A phase's figures the schema allows but arithmetic does not (issue 31, a fio user's trial): IOPS of
/// 10⁹ over the phase's I/Os and duration, a mean latency outside min..max, percentiles out of order; a
/// negative latency is below the schema's minimum. Each named by its JSON path, exit 2.
#[test]
fn implausible_figures_are_named_by_their_json_path() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let v = results(&d.join("r"));
    let w = &v["phases"][1];
    let (ops, secs) = (
        w["read"]["ops"].as_u64().expect("ops"),
        w["duration_s"].as_f64().expect("duration"),
    );
    let lat = &w["read"]["latency_ns"];
    let (min, max) = (
        lat["min"].as_u64().expect("min"),
        lat["max"].as_u64().expect("max"),
    );
    let iops = tampered(d, "iops", |v| v["phases"][1]["read"]["iops"] = 1e9.into());
    let mean = tampered(d, "mean", |v| {
        v["phases"][1]["read"]["latency_ns"]["mean"] = (max as f64 * 2.0).into();
        v["phases"][1]["read"]["latency_ns"]["p90"] = 0.into();
    });
    let negative = tampered(d, "negative", |v| {
        v["phases"][1]["read"]["latency_ns"]["mean"] = (-5.0).into()
    });
    let p50 = lat["p50"].as_u64().expect("p50");
    let place = tampered(d, "place", |v| {
        // Results from before `planned_phases`: its index against the plan is another test's.
        older(v);
        v["phases"][1]["index"] = 99.into();
        v["phases"][0]["duration_s"] = 1e300.into();
    });
    let twice = tampered(d, "twice", |v| {
        let p = v["phases"][1].clone();
        v["phases"].as_array_mut().expect("phases").push(p);
    });
    let label = tampered(d, "label", |v| v["label"] = "a\nb\u{202e}".into());
    // A label of 100,000 characters is echoed cut to 80 (it was printed whole, on one line).
    let long = tampered(d, "long", |v| v["label"] = "x".repeat(100_000).into());
    let long_ctl = tampered(d, "long_ctl", |v| {
        v["label"] = format!("{}\u{1b}", "y".repeat(99_999)).into()
    });
    let huge = tampered(d, "huge", |v| {
        v["phases"][1]["read"]["ops"] = 18446744073709551616.0_f64.into()
    });
    let cases = [
        (
            iops,
            format!(
                "error: r/iops.json holds figures that cannot be true (1 place):\n  phases[1].read.iops: 1000000000 is not ops / duration_s = {ops} / {secs} = {}\n",
                ops as f64 / secs
            ),
        ),
        (
            mean,
            format!(
                "error: r/mean.json holds figures that cannot be true (2 places):\n  phases[1].read.latency_ns.mean: {} is not between min {min} and max {max}\n  phases[1].read.latency_ns.p90: 0 is below p50 {p50}\n",
                max as f64 * 2.0
            ),
        ),
        (
            place,
            "error: r/place.json holds figures that cannot be true (2 places):\n  phases[0].duration_s: 1e300 s is more than ten years (315576000 s), longer than any run\n  phases[1].index: 99 is not the index its series_csv is named by (01)\n".to_string(),
        ),
        (
            twice,
            "error: r/twice.json holds figures that cannot be true (2 places):\n  phases[2].index: 1 is not above phases[1].index 1: each phase once, in run order\n  phases[2].name: \"w\" is the name of phases[1] too: a spec's phase names are unique, and so are a run's\n".to_string(),
        ),
        (
            label,
            "error: r/label.json holds figures that cannot be true (1 place):\n  label: \"a\\nb\\u{202e}\" holds the control character '\\n'\n".to_string(),
        ),
        (
            long,
            format!(
                "error: r/long.json holds figures that cannot be true (1 place):\n  label: \"{}… (100000 bytes)\" has 100000 characters, more than 120\n",
                "x".repeat(80)
            ),
        ),
        (
            long_ctl,
            format!(
                "error: r/long_ctl.json holds figures that cannot be true (1 place):\n  label: \"{}… (100000 bytes)\" holds the control character '\\u{{1b}}'\n",
                "y".repeat(80)
            ),
        ),
        (
            huge,
            "error: r/huge.json is not a wkrun results document: phases[1].read.ops: 18446744073709552000 is past the largest count a results file holds (2^64 - 1)\n".to_string(),
        ),
        (
            negative,
            "error: r/negative.json does not match the results schema (1 violation):\n  phases[1].read.latency_ns.mean: -5.0 is less than the minimum of 0\n".to_string(),
        ),
    ];
    refused(d, &cases);
}

/// A schema violation does not hide a series CSV cut short: validate reports both.
#[test]
fn a_schema_violation_and_a_cut_series_are_both_reported() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let file = tampered(d, "both", |v| v["phases"][1]["read"]["ops"] = "12".into());
    let intervals = results(&d.join("r"))["phases"][1]["intervals"]
        .as_u64()
        .expect("intervals");
    cut_series(d);
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", &file]));
    assert_eq!((c, out.as_str()), (2, ""));
    assert_eq!(
        e,
        format!(
            "error: r/both.json does not match the results schema (1 violation):\n  phases[1].read.ops: \"12\" is not of type \"integer\"\nerror: series r/01-w.csv: 1 rows, where results.json says phase \"w\" has {intervals} intervals\n"
        )
    );
}

/// [`a_run`] twice: into `dir/r`, then `dir/r2`.
fn two_runs(dir: &Path) {
    a_run(dir);
    let args = [
        "v.toml",
        "--target",
        "sim:capacity=512MiB,op=7%",
        "-q",
        "-o",
        "r2",
    ];
    let (c, _, e) = code_out_err(&wkrun(dir, &args));
    assert_eq!(c, 0, "{e}");
}

/// `merge` refuses a run that completed with fewer phases than another (an edited copy with one phase)
/// rather than merging the phases they share; one with no phase is refused at the door, as `validate`
/// refuses it.
#[test]
fn merge_refuses_a_completed_run_with_fewer_phases() {
    let t = tempdir();
    let d = t.path();
    two_runs(d);
    let whole = results(&d.join("r2"));
    let kept = |n: usize| {
        let mut v = whole.clone();
        // Results from before `planned_phases`, which validate would refuse first.
        older(&mut v);
        v["phases"].as_array_mut().expect("phases").truncate(n);
        fs::write(
            d.join("r2/results.json"),
            serde_json::to_vec(&v).expect("json"),
        )
        .expect("write");
    };
    kept(1);
    refused_by(
        d,
        &["merge", "r", "r2", "-o", "m"],
        "error: r2/results.json completed with 1 phase and r/results.json holds 2: a run that completed holds every phase of its spec; merge results of the same phases\n",
    );
    kept(0);
    refused_by(
        d,
        &["merge", "r", "r2", "-o", "m"],
        "error: r2/results.json holds figures that cannot be true (1 place):\n  phases: none in a run whose status is \"completed\": a completed run ran at least one phase\n",
    );
    assert!(!d.join("m").exists());
}

/// Results format 1 files an older wkrun wrote (the frozen runs of 2026-11-30, before every field added
/// since) still validate: those fields are optional in the schema.
#[test]
fn results_an_older_wkrun_wrote_still_validate() {
    let t = tempdir();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report");
    let (a, b) = (fixtures.join("run-a"), fixtures.join("run-b"));
    let (a, b) = (a.to_str().expect("utf-8"), b.to_str().expect("utf-8"));
    let (c, out, e) = code_out_err(&wkrun(t.path(), &["validate", a, b]));
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        out,
        format!(
            "{a}: ok (results, 10 phases, 9 series CSVs)\n{b}: ok (results, 10 phases, 9 series CSVs)\n"
        )
    );
    // Older indeed: fields added since (round blocks, latency searches, workers, CPU time) are absent.
    let v = results(Path::new(a));
    for field in ["round_blocks", "latency_searches"] {
        assert!(v.get(field).is_none(), "{field}");
    }
    for field in ["workers", "cpu", "headline"] {
        assert!(v["phases"][2].get(field).is_none(), "{field}");
    }
}

/// `wkrun validate WHAT` in `dir` exits 0.
pub(crate) fn validates(dir: &Path, what: &str) {
    let (c, _, e) = code_out_err(&wkrun(dir, &["validate", what]));
    assert_eq!(c, 0, "{e}");
}

/// [`two_runs`] merged into `dir/m`.
fn merged_runs(dir: &Path) {
    two_runs(dir);
    let (c, _, e) = code_out_err(&wkrun(dir, &["merge", "r", "r2", "-o", "m"]));
    assert_eq!(c, 0, "{e}");
}

/// `dir/r/results.json` as text, changed by `edit`, written beside it as `dir/r/NAME.json`.
fn tampered_text(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> String {
    let text = fs::read_to_string(dir.join("r/results.json")).expect("results");
    let file = format!("r/{name}.json");
    fs::write(dir.join(&file), edit(text)).expect("write");
    file
}

/// `wkrun validate FILE` for each case: [`refused_by`] with its message.
fn refused(d: &Path, cases: &[(String, String)]) {
    for (file, want) in cases {
        refused_by(d, &["validate", file], want);
    }
}

/// `wkrun validate FILE` for each case, FILE and the one place it names ([`refused`]).
fn refused_in_one_place(d: &Path, cases: impl IntoIterator<Item = (String, String)>) {
    let cases: Vec<(String, String)> = cases
        .into_iter()
        .map(|(f, why)| {
            let line =
                format!("error: {f} holds figures that cannot be true (1 place):\n  {why}\n");
            (f, line)
        })
        .collect();
    refused(d, &cases);
}

/// `wkrun ARGS`: exit 2, nothing on stdout, and exactly `want` on stderr.
pub(crate) fn refused_by(d: &Path, args: &[&str], want: &str) {
    let (c, out, e) = code_out_err(&wkrun(d, args));
    assert_eq!((c, out.as_str(), e.as_str()), (2, "", want), "{args:?}");
}

/// Values a run cannot write (attack 24c, findings 7, 10 and 15): two phases of one name, times that are
/// not RFC 3339, names a spec could not have, parameters outside the spec's bounds or the target, a
/// prediction's measured path with a control character, a measured run's start that is no time (attack 40,
/// finding 7) and a fitted target that is no simulated drive.
/// Each named by its JSON path, exit 2; `compare` and `sim fit` refuse them at the door (`sim fit` ran a
/// simulated run, then failed with exit 1 and the child's last line).
#[test]
fn values_no_run_writes_are_named_by_their_json_path() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let head = |f: &str, n: usize| {
        format!(
            "error: {f} holds figures that cannot be true ({n} place{}):\n",
            if n == 1 { "" } else { "s" }
        )
    };
    let same = tampered(d, "same", |v| {
        // Results from before `planned_phases`: the name against the plan is another test's.
        older(v);
        v["phases"][1]["name"] = "f".into();
    });
    let times = tampered(d, "times", |v| {
        v["started_at"] = "2026-13-01T00:00:00Z".into();
        v["finished_at"] = "9999-99-99T99:99:99Z".into();
        v["phases"][0]["started_at"] = "2026-12-01T12:00:00".into();
        v["phases"][1]["measured_started_at"] = "soon".into();
    });
    let names = tampered(d, "names", |v| {
        // Results from before `planned_phases`: the names against the plan are another test's.
        older(v);
        v["spec"]["name"] = "my spec".into();
        v["phases"][0]["name"] = "ws\u{0}at".into();
        v["phases"][1]["name"] = "\u{1b}]0;PWNED\u{7}\u{1b}[2Jwsat".into();
    });
    let params = tampered(d, "params", |v| {
        let p = &mut v["phases"][1]["params"];
        p["queue_depth"] = 5000.into();
        p["workers"] = 0.into();
        p["block_size_bytes"] = (256u64 << 20).into();
        p["span_bytes"] = (1u64 << 40).into();
        // On the fill, which has no time bound for its rows to fit.
        v["phases"][0]["params"]["interval_ns"] = 1000.into();
    });
    let prediction = tampered(d, "prediction", |v| {
        v["prediction"] = serde_json::json!({
            "measured": "\u{1b}]0;PWN\u{7}m/results.json",
            "fitted_target": "/dev/vda",
            "measured_run_started_at": "2026-12-06T00:24:39.005Z\u{1b}[2J",
        });
    });
    let capacity = results(&d.join("r"))["target"]["capacity_bytes"]
        .as_u64()
        .expect("capacity");
    let cases = [
        (
            same.clone(),
            head(&same, 1)
                + "  phases[1].name: \"f\" is the name of phases[0] too: a spec's phase names are unique, and so are a run's\n",
        ),
        (
            times.clone(),
            head(&times, 4)
                + "  started_at: \"2026-13-01T00:00:00Z\" is not an RFC 3339 time such as 2026-12-01T12:00:00.000Z: numeric component is out of range\n"
                + "  finished_at: \"9999-99-99T99:99:99Z\" is not an RFC 3339 time such as 2026-12-01T12:00:00.000Z: numeric component is out of range\n"
                + "  phases[0].started_at: \"2026-12-01T12:00:00\" is not an RFC 3339 time such as 2026-12-01T12:00:00.000Z: no time zone: end it with Z (UTC) or an offset such as +02:00\n"
                + "  phases[1].measured_started_at: \"soon\" is not an RFC 3339 time such as 2026-12-01T12:00:00.000Z: not a time\n",
        ),
        (
            names.clone(),
            head(&names, 3)
                + "  spec.name: \"my spec\" is not a name a spec can have: use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the output folder)\n"
                + "  phases[0].name: \"ws\\u{0}at\" is not a name a spec can have: use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the phase's CSV file)\n"
                + "  phases[1].name: \"\\u{1b}]0;PWNED\\u{7}\\u{1b}[2Jwsat\" is not a name a spec can have: use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the phase's CSV file)\n",
        ),
        (
            params.clone(),
            head(&params, 5)
                + "  phases[0].params.interval_ns: 1000 is outside the spec's bounds, 1000000 to 18446744073709551615\n"
                + "  phases[1].params.queue_depth: 5000 is outside the spec's bounds, 1 to 1024\n"
                + "  phases[1].params.workers: 0 is outside the spec's bounds, 1 to 256\n"
                + "  phases[1].params.block_size_bytes: 268435456 is outside the spec's bounds, 1 to 134217728\n"
                + &format!(
                    "  phases[1].params.span_bytes: span_start_bytes 0 + span_bytes 1099511627776 = 1099511627776 is past the target's capacity_bytes {capacity}\n"
                ),
        ),
        (
            prediction.clone(),
            head(&prediction, 3)
                + "  prediction.measured: \"\\u{1b}]0;PWN\\u{7}m/results.json\" holds the control character '\\u{1b}'\n"
                + "  prediction.measured_run_started_at: \"2026-12-06T00:24:39.005Z\\u{1b}[2J\" is not an RFC 3339 time such as 2026-12-01T12:00:00.000Z: not a time\n"
                + "  prediction.fitted_target: \"/dev/vda\" is not a simulated drive a run can have: \"/dev/vda\" is not a simulated target (sim:...)\n",
        ),
    ];
    refused(d, &cases);
    // At the door of the commands that read results: the same message, before anything runs.
    refused_by(d, &["compare", "r", &same], &cases[0].1);
    refused_by(d, &["sim", "fit", &same], &cases[0].1);
}

/// Facts about a run's end that cannot all be true (attack 15, `t/mut.py`: each passed validate, warnings
/// and compare): it ended before it started; a phase started after it ended; a completed run with a phase
/// that did not complete, or with no phase; a failed run that does not say why. Each named by its JSON path,
/// exit 2, and refused at the door of `compare`.
#[test]
fn a_run_s_end_must_agree_with_its_times_phases_and_error() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let r = results(&d.join("r"));
    let (started, finished) = (
        r["started_at"].as_str().unwrap().to_string(),
        r["finished_at"].as_str().unwrap().to_string(),
    );
    let one = |f: &str, line: String| {
        format!("error: {f} holds figures that cannot be true (1 place):\n  {line}\n")
    };
    let early = tampered(d, "early", |v| {
        v["finished_at"] = "2000-01-01T00:00:00.000Z".into()
    });
    let late = tampered(d, "late", |v| {
        v["phases"][1]["started_at"] = "2999-01-01T00:00:00.000Z".into()
    });
    let open = tampered(d, "open", |v| v["phases"][1]["completed"] = false.into());
    let none = tampered(d, "none", |v| v["phases"] = serde_json::json!([]));
    let silent = tampered(d, "silent", |v| v["status"] = "failed".into());
    let cases = [
        (
            early.clone(),
            one(
                &early,
                format!(
                    "finished_at: \"2000-01-01T00:00:00.000Z\" is before started_at \"{started}\": a run ends after it starts"
                ),
            ),
        ),
        (
            late.clone(),
            one(
                &late,
                format!(
                    "phases[1].started_at: \"2999-01-01T00:00:00.000Z\" is after the run's finished_at \"{finished}\": a phase starts before its run ends"
                ),
            ),
        ),
        (
            open.clone(),
            one(
                &open,
                "phases[1].completed: false in a run whose status is \"completed\": a run completes only when each of its phases does".into(),
            ),
        ),
        (
            none.clone(),
            one(
                &none,
                "phases: none in a run whose status is \"completed\": a completed run ran at least one phase".into(),
            ),
        ),
        (
            silent.clone(),
            one(
                &silent,
                "error: absent in a run whose status is \"failed\": a failed run says why".into(),
            ),
        ),
    ];
    refused(d, &cases);
    refused_by(d, &["compare", "r", &late], &cases[1].1);
    // The same run, interrupted or failed with its error, is one a run writes.
    let fine = tampered(d, "fine", |v| {
        v["phases"][1]["completed"] = false.into();
        v["status"] = "failed".into();
        v["error"] = "phase \"w\": stopped".into();
    });
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", &fine]));
    assert_eq!(
        (c, out.as_str(), e.as_str()),
        (
            0,
            format!("{fine}: ok (results, failed, 2 phases, 2 series CSVs)\n").as_str(),
            ""
        )
    );
}

/// Runs `SPEC` on two simulated drives into `d/m` (the targets' folders `m/t0-...` and `m/t1-...`): the
/// two drives.
fn two_targets(d: &Path) -> (&'static str, &'static str) {
    write_file(d, "v.toml", &spec_text("v", SPEC));
    let (a, b) = (
        "sim:capacity=64MiB,op=7%,block=256KiB",
        "sim:capacity=64MiB,op=20%,block=256KiB",
    );
    let args = ["v.toml", "--target", a, "--target", b, "-q", "-o", "m"];
    let (c, _, e) = code_out_err(&wkrun(d, &args));
    assert_eq!(c, 0, "{e}");
    (a, b)
}

/// The aggregate of a run on several targets names each target's folder (`cluster.hosts[].results`):
/// `validate` checks each as a results folder, and `compare` and `report` refuse what it refuses (attack
/// 15: a target's `results.json` replaced by `{garbage` still validated, and compare and report read the
/// aggregate).
#[test]
fn an_aggregate_s_targets_folders_are_checked() {
    let t = tempdir();
    let d = t.path();
    two_targets(d);
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", "m"]));
    assert_eq!(
        (c, out.as_str(), e.as_str()),
        (
            0,
            "m: ok (results, 2 phases, 2 series CSVs, 2 targets' folders)\n",
            ""
        )
    );
    let second = "m/t1-sim-64MiB-op20-block256KiB";
    fs::write(d.join(second).join("results.json"), "{garbage").expect("write");
    let why = format!(
        "error: {second}/results.json is not a wkrun results document: not JSON (key must be a string at line 1 column 2)\n"
    );
    refused_by(d, &["validate", "m"], &why);
    refused_by(d, &["compare", "m"], &why);
    refused_by(d, &["report", "m", "-o", "rep"], &why);
    assert!(!d.join("rep").exists());
    // A target's folder that is gone: named, with what to do, by validate, compare and report alike.
    fs::remove_dir_all(d.join(second)).expect("remove");
    let why = format!(
        "error: m/results.json is the aggregate of a run on 2 targets, and 1 of its targets' folders is missing: {second} (each target's own results, which the aggregate is checked against); copy the whole results folder, its targets' folders with it (cp -r), or give a target's own folder to read that target alone\n"
    );
    refused_by(d, &["validate", "m"], &why);
    refused_by(d, &["compare", "m"], &why);
    refused_by(d, &["report", "m", "-o", "rep"], &why);
    assert!(!d.join("rep").exists());
}

/// The aggregate of a run on several targets copied alone (its files, not its targets' folders: `cp m/*.*
/// c`): `compare` and `report` refused it with the first folder's `No such file or directory (os error 2)`;
/// now the message names every missing folder and says what to do. A target's own folder is read alone.
#[test]
fn an_aggregate_copied_without_its_targets_folders_says_what_is_missing() {
    let t = tempdir();
    let d = t.path();
    two_targets(d);
    fs::create_dir(d.join("c")).expect("mkdir");
    for f in fs::read_dir(d.join("m")).expect("dir") {
        let f = f.expect("entry").path();
        if f.is_file() {
            fs::copy(&f, d.join("c").join(f.file_name().unwrap())).expect("copy");
        }
    }
    let (first, second) = (
        "c/t0-sim-64MiB-op7-block256KiB",
        "c/t1-sim-64MiB-op20-block256KiB",
    );
    let why = format!(
        "error: c/results.json is the aggregate of a run on 2 targets, and its targets' folders are missing: {first}, {second} (each target's own results, which the aggregate is checked against); copy the whole results folder, its targets' folders with it (cp -r), or give a target's own folder to read that target alone\n"
    );
    refused_by(d, &["compare", "c", "m"], &why);
    refused_by(d, &["report", "c", "-o", "rep"], &why);
    refused_by(d, &["validate", "c"], &why);
    assert!(!d.join("rep").exists());
    // What the message says to do: a target's own folder reads alone.
    let (c, _, e) = code_out_err(&wkrun(
        d,
        &["compare", "m/t0-sim-64MiB-op7-block256KiB", "m"],
    ));
    assert_eq!(c, 0, "{e}");
}

/// The copy `to` of the folder `from` in `d` (and its targets' folders), its `results.json` edited by `edit`
/// and `t1`'s (`sub`) by `edit_t1`.
fn copied_aggregate(
    d: &Path,
    (from, to, sub): (&str, &str, &str),
    edit: impl Fn(&mut serde_json::Value),
    edit_t1: impl Fn(&mut serde_json::Value),
) -> String {
    let copy = |a: &Path, b: &Path| {
        fs::create_dir(b).expect("mkdir");
        for f in fs::read_dir(a).expect("dir") {
            let f = f.expect("entry").path();
            if f.is_file() {
                fs::copy(&f, b.join(f.file_name().expect("name"))).expect("copy");
            }
        }
    };
    copy(&d.join(from), &d.join(to));
    for e in fs::read_dir(d.join(from)).expect("dir") {
        let e = e.expect("entry").path();
        if e.is_dir() {
            copy(&e, &d.join(to).join(e.file_name().expect("name")));
        }
    }
    let edited = |file: std::path::PathBuf, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&fs::read(&file).expect("read")).expect("json");
        f(&mut v);
        fs::write(&file, serde_json::to_vec(&v).expect("json")).expect("write");
    };
    edited(d.join(to).join("results.json"), &edit);
    edited(d.join(to).join(sub).join("results.json"), &edit_t1);
    to.to_string()
}

/// Each entry of an aggregate's `cluster.hosts` is its own target's folder's (attack 16, finding 1: each
/// of these edits validated): (a) two entries naming one folder, (b) an entry's status that is not its
/// folder's, (c) a target interrupted under an aggregate that says completed (one signal stops every
/// target), (d) an entry's target path that is not its folder's, which made the aggregate pass for a
/// `wkrun merge` folder, not held to its hosts; and with the aggregate's `target.path` made its first
/// target's too, the folders beside it still make it an aggregate.
#[test]
fn an_aggregate_s_hosts_are_its_targets_folders() {
    let t = tempdir();
    let d = t.path();
    let (a, b) = two_targets(d);
    // The paths as the run records them, each drive's every parameter named.
    let (pa, pb) = (format!("{a},dies=1"), format!("{b},dies=1"));
    let (t0, t1) = (
        "t0-sim-64MiB-op7-block256KiB",
        "t1-sim-64MiB-op20-block256KiB",
    );
    let host = |i: usize| format!("cluster.hosts[{i}]");
    let same = |_: &mut serde_json::Value| {};
    let dup = copied_aggregate(
        d,
        ("m", "dup", t1),
        |v| {
            v["cluster"]["hosts"][1]["results"] = format!("m/{t0}/results.json").into();
        },
        same,
    );
    let status = copied_aggregate(
        d,
        ("m", "status", t1),
        |v| {
            v["cluster"]["hosts"][1]["status"] = "interrupted".into();
        },
        same,
    );
    let sub = copied_aggregate(d, ("m", "sub", t1), same, |v| {
        v["status"] = "interrupted".into();
        v["signal"] = "SIGINT".into();
    });
    let path = copied_aggregate(
        d,
        ("m", "path", t1),
        |v| {
            v["cluster"]["hosts"][1]["target_path"] = "zz.img".into();
        },
        same,
    );
    let first = copied_aggregate(
        d,
        ("m", "first", t1),
        |v| {
            v["cluster"]["hosts"][1]["target_path"] = "zz.img".into();
            v["target"]["path"] = pa.clone().into();
        },
        same,
    );
    let entry = |f: &str, i: usize, k: &str, was: &str, tk: &str, is: &str| {
        format!(
            "error: {f}/results.json: {}.{k} {was} is not {f}/{t1}/results.json's {tk} {is}: a host's entry is its target's\n",
            host(i)
        )
    };
    let joined = |f: &str, p: &str| {
        format!(
            "error: {f}/results.json: target.path {p:?} is not its hosts' target paths joined, \"{pa} + zz.img\", as a run on several targets writes it\n"
        )
    };
    let cases = [
        (
            dup.clone(),
            format!(
                "error: dup/results.json ({}.results): \"m/{t0}/results.json\" names the folder \"{t0}\", as {}.results does: each target has its own\n",
                host(1),
                host(0)
            ),
        ),
        (
            status.clone(),
            entry(
                &status,
                1,
                "status",
                "\"interrupted\"",
                "status",
                "\"completed\"",
            ),
        ),
        (
            sub.clone(),
            entry(
                &sub,
                1,
                "status",
                "\"completed\"",
                "status",
                "\"interrupted\"",
            ) + &format!(
                "error: sub/results.json: status \"completed\" but the target of {} says \"interrupted\": an aggregate's status is its targets' worst (or \"failed\")\n",
                host(1)
            ),
        ),
        (
            path.clone(),
            entry(
                &path,
                1,
                "target_path",
                "\"zz.img\"",
                "target.path",
                &format!("{pb:?}"),
            ) + &joined(&path, &format!("{pa} + {pb}")),
        ),
        (
            first.clone(),
            entry(
                &first,
                1,
                "target_path",
                "\"zz.img\"",
                "target.path",
                &format!("{pb:?}"),
            ) + &joined(&first, &pa),
        ),
    ];
    refused(d, &cases);
    // `compare` refuses the first of them.
    let first_line = cases[3].1.lines().next().map(|l| format!("{l}\n"));
    refused_by(d, &["compare", &path], &first_line.unwrap_or_default());
}

/// An aggregate's phases are its targets' merged (attack 17, finding 1): the aggregate of one run kept
/// with its targets' folders replaced by another run's (another queue depth and duration, the start times
/// copied) is refused naming the phase, the figure, its value and the targets' sum; and an aggregate whose
/// `cluster.hosts` lost an entry (one left: it no longer read as an aggregate, and validated) is refused
/// by its `target.path`, which joins two targets' paths. Each genuine aggregate validates.
#[test]
fn an_aggregate_s_phases_are_its_targets_phases_merged() {
    let t = tempdir();
    let d = t.path();
    let (a, b) = two_targets(d);
    let args = [
        "v.toml",
        "--target",
        a,
        "--target",
        b,
        "-q",
        "-o",
        "qd",
        "--set",
        "queue_depth=4",
        "--set",
        "phase.w.duration=1s",
    ];
    let (c, _, e) = code_out_err(&wkrun(d, &args));
    assert_eq!(c, 0, "{e}");
    for f in ["m", "qd"] {
        let (c, out, e) = code_out_err(&wkrun(d, &["validate", f]));
        let ok = format!("{f}: ok (results, 2 phases, 2 series CSVs, 2 targets' folders)\n");
        assert_eq!((c, out.as_str(), e.as_str()), (0, ok.as_str(), ""));
    }
    let (t0, t1) = (
        "t0-sim-64MiB-op7-block256KiB",
        "t1-sim-64MiB-op20-block256KiB",
    );
    // The aggregate of `m`, its targets' folders `qd`'s, their start times `m`'s.
    let same = |_: &mut serde_json::Value| {};
    let fg = copied_aggregate(d, ("m", "fg", t1), same, same);
    for sub in [t0, t1] {
        let (was, into) = (d.join("m").join(sub), d.join("fg").join(sub));
        fs::remove_dir_all(&into).expect("remove");
        fs::create_dir(&into).expect("mkdir");
        for f in fs::read_dir(d.join("qd").join(sub)).expect("dir") {
            let f = f.expect("entry").path();
            fs::copy(&f, into.join(f.file_name().expect("name"))).expect("copy");
        }
        let mut v = results(&into);
        let old = results(&was);
        for k in ["started_at", "finished_at"] {
            v[k] = old[k].clone();
        }
        for (p, q) in (v["phases"].as_array_mut().expect("phases").iter_mut())
            .zip(old["phases"].as_array().expect("phases"))
        {
            for k in ["started_at", "series_t0_unix_ns"] {
                p[k] = q[k].clone();
            }
        }
        fs::write(
            into.join("results.json"),
            serde_json::to_vec(&v).expect("json"),
        )
        .expect("write");
    }
    // The oracle: each figure read from the files and added here.
    let agg = results(&d.join("fg"));
    let theirs = [
        results(&d.join("fg").join(t0)),
        results(&d.join("fg").join(t1)),
    ];
    let ops =
        |v: &serde_json::Value, i: usize| v["phases"][i]["total"]["ops"].as_u64().expect("ops");
    let qd = |v: &serde_json::Value, i: usize| v["phases"][i]["params"]["queue_depth"].clone();
    // The fill: the same ops on drives of the same size, at another queue depth.
    assert_eq!(ops(&agg, 0), ops(&theirs[0], 0) + ops(&theirs[1], 0));
    assert_ne!(qd(&agg, 0), qd(&theirs[0], 0));
    let line = |i: usize, name: &str, why: String| {
        format!(
            "error: fg/results.json: phase {i} \"{name}\": {why}: an aggregate's phase is its targets' phases merged\n"
        )
    };
    let fill = line(
        0,
        "f",
        format!(
            "params.queue_depth {} is not fg/{t0}/results.json's, {}",
            qd(&agg, 0),
            qd(&theirs[0], 0)
        ),
    );
    let (w0, w1) = (ops(&theirs[0], 1), ops(&theirs[1], 1));
    assert_ne!(ops(&agg, 1), w0 + w1);
    let work = line(
        1,
        "w",
        format!(
            "total.ops {} is not its targets' sum, {} (fg/{t0}/results.json {w0} + fg/{t1}/results.json {w1})",
            ops(&agg, 1),
            w0 + w1
        ),
    );
    refused_by(d, &["validate", &fg], &(fill + &work));
    // `compare` refuses it at the door, with the first.
    refused_by(
        d,
        &["compare", &fg],
        &line(
            0,
            "f",
            format!(
                "params.queue_depth {} is not fg/{t0}/results.json's, {}",
                qd(&agg, 0),
                qd(&theirs[0], 0)
            ),
        ),
    );
    // One entry of `cluster.hosts` gone.
    let gone = copied_aggregate(
        d,
        ("m", "gone", t1),
        |v| {
            v["cluster"]["hosts"].as_array_mut().expect("hosts").pop();
        },
        same,
    );
    let (pa, pb) = (format!("{a},dies=1"), format!("{b},dies=1"));
    refused_by(
        d,
        &["validate", &gone],
        &format!(
            "error: gone/results.json: target.path \"{pa} + {pb}\" joins 2 targets' paths but cluster.hosts has 1 entry (\"{pa}\"): an aggregate has an entry per target\n"
        ),
    );
}

/// A simulated drive's device CSV is checked as a series is (attack 40, finding 8: validate passed one cut
/// short, one going back in time, one torn mid-row and one deleted, and the report drew what was left): a
/// completed phase's has a row per interval, rows go forward in time, and it is there.
#[test]
fn a_device_csv_has_a_row_per_interval_forward_in_time() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let file = "01-w.device.csv";
    let intervals = results(&d.join("r"))["phases"][1]["intervals"]
        .as_u64()
        .expect("intervals");
    let text = fs::read_to_string(d.join("r").join(file)).expect("device csv");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len() as u64, intervals + 1, "{text}");
    let copy = |name: &str, body: Option<String>| {
        let to = d.join(name);
        fs::create_dir(&to).expect("mkdir");
        for f in fs::read_dir(d.join("r")).expect("r") {
            let f = f.expect("entry").path();
            fs::copy(&f, to.join(f.file_name().expect("name"))).expect("copy");
        }
        match body {
            Some(b) => fs::write(to.join(file), b).expect("write"),
            None => fs::remove_file(to.join(file)).expect("rm"),
        }
        name.to_string()
    };
    let short = copy("short", Some(lines[..3].join("\n") + "\n"));
    let mut back: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let rest: Vec<&str> = back[2].split(',').skip(1).collect();
    back[2] = format!("0.5,{}", rest.join(","));
    let again = copy("again", Some(back.join("\n") + "\n"));
    let torn = copy("torn", Some(text[..text.len() - 1].to_string()));
    let gone = copy("gone", None);
    let at = |dir: &str| format!("{dir}/{file} (phases[1].device.device_csv)");
    let cases = [
        (
            short.clone(),
            format!(
                "error: {}: 2 rows, where results.json says phase \"w\" has {intervals} intervals\n",
                at(&short)
            ),
        ),
        (
            again.clone(),
            format!(
                "error: series {again}/{file}: line 3: t_s 0.5 is not after the row before's 1: a device CSV's rows go forward in time, one per interval\n"
            ),
        ),
        (
            torn.clone(),
            format!(
                "error: series {torn}/{file}: line {}: the row is cut short (no line end)\n",
                intervals + 1
            ),
        ),
        (
            gone.clone(),
            format!("error: series {gone}/{file}: No such file or directory (os error 2)\n"),
        ),
    ];
    refused(d, &cases);
    // The report refuses what validate refuses.
    let (c, _, e) = code_out_err(&wkrun(d, &["report", &short, "-o", "rep"]));
    assert_eq!((c, e.as_str()), (2, cases[0].1.as_str()));
    assert!(!d.join("rep").exists());
}

/// JSON errors said by the parser's reason and position (attack 24c, finding 8: each was "trailing
/// characters at line N column M", the file's last byte), and an object holding a key twice refused
/// (finding 7: read last-wins).
#[test]
fn json_errors_say_their_reason_and_a_key_twice_is_refused() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let not = |f: &str, why: &str| format!("error: {f} is not a wkrun results document: {why}\n");
    // Pretty JSON, two spaces an indent: `"status"` is the top level's, `"name"` the phases'.
    let status = tampered_text(d, "status", |s| {
        s.replacen(
            "\n  \"status\": ",
            "\n  \"status\": \"failed\",\n  \"status\": ",
            1,
        )
    });
    // The 1-based line of `f` that holds `needle` first.
    let line_of = |f: &str, needle: &str| {
        let text = fs::read_to_string(d.join(f)).expect("read");
        text.lines()
            .position(|l| l.contains(needle))
            .expect("found")
            + 1
    };
    let name = tampered_text(d, "name", |s| {
        // The last: the first is planned_phases'.
        let w = s.rfind("\"name\": \"w\"").expect("phase w");
        format!("{}\"name\": \"x\", {}", &s[..w], &s[w..])
    });
    let deep = |n: usize| {
        tampered_text(d, &format!("deep{n}"), |s| {
            format!("{{\"x\": {}{}, {}", "[".repeat(n), "]".repeat(n), &s[1..])
        })
    };
    let (deep126, deep127) = (deep(126), deep(127));
    let bom = tampered_text(d, "bom", |s| format!("\u{feff}{s}"));
    let surrogate = tampered_text(d, "surrogate", |s| {
        s.replacen("\"name\": \"w\"", "\"name\": \"w\\ud800at\"", 1)
    });
    let cases = [
        (
            status.clone(),
            not(
                &status,
                &format!(
                    "status: the key is given twice in its object (the second at line {} column 10); a results file has each key once",
                    line_of(&status, "\"status\": \"failed\"") + 1
                ),
            ),
        ),
        (
            name.clone(),
            not(
                &name,
                &format!(
                    "phases[1].name: the key is given twice in its object (the second at line {} column {}); a results file has each key once",
                    line_of(&name, "\"name\": \"x\""),
                    "      \"name\": \"x\", \"name\"".len()
                ),
            ),
        ),
        (
            deep126.clone(),
            format!(
                "error: {deep126} does not match the results schema (1 violation):\n  (the document): Additional properties are not allowed ('x' was unexpected)\n"
            ),
        ),
        (
            deep127.clone(),
            not(
                &deep127,
                "nested deeper than 127 levels of objects and arrays (the document's own object the first) at line 1 column 133",
            ),
        ),
        (
            bom.clone(),
            not(
                &bom,
                "not JSON (a UTF-8 byte order mark, EF BB BF, at line 1 column 1: JSON text starts without one)",
            ),
        ),
        (
            surrogate.clone(),
            not(
                &surrogate,
                &format!(
                    "not JSON (unexpected end of hex escape at line {} column {})",
                    line_of(&surrogate, "ud800"),
                    // At the `a` after the escape, where the second half of a surrogate pair was due.
                    "      \"name\": \"w\\ud800a".len()
                ),
            ),
        ),
    ];
    refused(d, &cases);
}

/// A copy of `dir/r` as `dir/NAME` whose workload series (`01-w.csv`) has `edit` applied to its cells of
/// line `line` (1 is the header).
fn series_edited(dir: &Path, name: &str, line: usize, edit: impl Fn(&mut Vec<String>)) -> String {
    let to = dir.join(name);
    fs::create_dir(&to).expect("mkdir");
    for f in fs::read_dir(dir.join("r")).expect("r") {
        let f = f.expect("entry").path();
        fs::copy(&f, to.join(f.file_name().expect("name"))).expect("copy");
    }
    let csv = to.join("01-w.csv");
    let text = fs::read_to_string(&csv).expect("csv");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cells: Vec<String> = lines[line - 1].split(',').map(str::to_string).collect();
    edit(&mut cells);
    lines[line - 1] = cells.join(",");
    fs::write(&csv, lines.join("\n") + "\n").expect("write");
    name.to_string()
}

/// A series whose rows go back in time or repeat one, or that counts I/Os in an interval of no length
/// (attack 24c, finding 10: read by fit, report and compare as they were), is refused with its line.
#[test]
fn a_series_must_go_forward_in_time_and_count_ios_over_some_time() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let back = series_edited(d, "back", 4, |c| c[0] = "1.0".into());
    let again = series_edited(d, "again", 3, |c| c[0] = "1.0".into());
    let zero = series_edited(d, "zero", 2, |c| c[1] = "0".into());
    let ios = csv_rows(&d.join("r/01-w.csv"))[0]["read_ops"]
        .parse::<u64>()
        .expect("reads")
        + csv_rows(&d.join("r/01-w.csv"))[0]["write_ops"]
            .parse::<u64>()
            .expect("writes");
    let cases = [
        (
            back.clone(),
            "error: series back/01-w.csv: line 4: t_s 1 is not after the row before's 2: a series' rows go forward in time\n".to_string(),
        ),
        (
            again.clone(),
            "error: series again/01-w.csv: line 3: t_s 1 is not after the row before's 1: a series' rows go forward in time\n".to_string(),
        ),
        (
            zero.clone(),
            format!("error: series zero/01-w.csv: line 2: interval_s 0 with {ios} I/Os counted in a whole row (partial 0): an interval that counts I/Os lasts some time\n"),
        ),
    ];
    refused(d, &cases);
    refused_by(d, &["compare", "r", &zero], &cases[2].1);
    // What a run can write: its last row partial and of no length, when the last completion fell exactly on
    // an interval's start (the row ends where the one before ends).
    let rows = csv_rows(&d.join("r/01-w.csv"));
    let n = rows.len();
    let before_t = rows[n - 2]["t_s"].clone();
    let header: Vec<String> = fs::read_to_string(d.join("r/01-w.csv"))
        .expect("csv")
        .lines()
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (t, iv, partial) = (col("t_s"), col("interval_s"), col("partial"));
    let rates: Vec<usize> = (0..header.len())
        .filter(|&k| header[k].ends_with("_iops") || header[k].ends_with("_bw_bytes_per_s"))
        .collect();
    let last = series_edited(d, "last", n + 1, |c| {
        c[t] = before_t.clone();
        c[iv] = "0".into();
        c[partial] = "1".into();
        // A rate over no time is 0.
        for &k in &rates {
            c[k] = "0.0".into();
        }
    });
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", &last]));
    assert_eq!((c, e.as_str()), (0, ""), "{out}");
}

/// Values no interval measures in a series or device CSV, or in results.json (attack 13, finding 8: `nan`,
/// `inf` and 1e308 were refused in a series only; a last row's `t_s` of 1e15, a `partial` of 2, rates that
/// contradict their counts over the row's interval and a device CSV's write amplification that is not its
/// bytes' ratio passed, and 1e308 anywhere in results.json's rates and means): each named by its file, line
/// and column (or JSON path), exit 2, for validate and the commands that read results.
#[test]
fn values_no_interval_measures_are_named_by_file_line_and_column() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let rows = csv_rows(&d.join("r/01-w.csv"));
    let n = rows.len();
    let text = fs::read_to_string(d.join("r/01-w.csv")).expect("csv");
    let header: Vec<&str> = text.lines().next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let partial = series_edited(d, "partial", 2, |c| c[col("partial")] = "2".into());
    let late = series_edited(d, "late", n + 1, |c| c[col("t_s")] = "1e15".into());
    let iops = series_edited(d, "iops", 2, |c| c[col("write_iops")] = "5".into());
    let bw = series_edited(d, "bw", 3, |c| c[col("read_bw_bytes_per_s")] = "0".into());
    // The oracle: the row's counts over its interval, as the CSV has them.
    let cell = |r: usize, c: &str| rows[r][c].parse::<f64>().expect(c);
    let (w_ops, iv0) = (cell(0, "write_ops"), cell(0, "interval_s"));
    let (r_bytes, iv1) = (cell(1, "read_bytes"), cell(1, "interval_s"));
    let device = |name: &str, line: usize, column: &str, value: &str| {
        let to = series_edited(d, name, 1, |_| {});
        let csv = d.join(&to).join("01-w.device.csv");
        let text = fs::read_to_string(&csv).expect("device csv");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let k = lines[0].split(',').position(|h| h == column).expect(column);
        let mut cells: Vec<&str> = lines[line - 1].split(',').collect();
        cells[k] = value;
        lines[line - 1] = cells.join(",");
        fs::write(&csv, lines.join("\n") + "\n").expect("write");
        to
    };
    let waf = device("waf", 2, "write_amplification", "7");
    let dev_late = device("devlate", n + 1, "t_s", "1e15");
    let dev_rows = csv_rows(&d.join("r/01-w.device.csv"));
    let host = &dev_rows[0]["host_write_bytes"];
    let stddev = tampered(d, "stddev", |v| {
        v["phases"][1]["write"]["latency_ns"]["stddev"] = 1e308.into()
    });
    let cases = [
        (
            partial.clone(),
            "error: series partial/01-w.csv: line 2: column partial: 2 is not 0 (a whole interval) or 1 (a partial one)\n".to_string(),
        ),
        (
            late.clone(),
            format!("error: series late/01-w.csv: line {}: column t_s: 1e15 s is more than ten years (315576000 s), longer than any phase\n", n + 1),
        ),
        (
            iops.clone(),
            format!(
                "error: series iops/01-w.csv: line 2: column write_iops: 5 is not write_ops / interval_s = {w_ops} / {iv0} = {}\n",
                w_ops / iv0
            ),
        ),
        (
            bw.clone(),
            format!(
                "error: series bw/01-w.csv: line 3: column read_bw_bytes_per_s: 0 is not read_bytes / interval_s = {r_bytes} / {iv1} = {}\n",
                r_bytes / iv1
            ),
        ),
        (
            waf.clone(),
            format!("error: series waf/01-w.device.csv: line 2: write_amplification 7 is not flash_write_bytes / host_write_bytes = {host} / {host} = 1\n"),
        ),
        (
            dev_late.clone(),
            format!("error: series devlate/01-w.device.csv: line {}: t_s 1e15 is not a time in seconds from the phase's start (0 to ten years, 315576000 s)\n", n + 1),
        ),
        (
            stddev.clone(),
            format!("error: {stddev} holds figures that cannot be true (1 place):\n  phases[1].write.latency_ns.stddev: 1e308 is not a number a run writes (finite, at most 2.147483648e18 in size)\n"),
        ),
    ];
    refused(d, &cases);
    // At the door of the commands that read results.
    refused_by(d, &["compare", "r", &iops], &cases[2].1);
    refused_by(d, &["sim", "fit", &partial], &cases[0].1);
    refused_by(d, &["report", &waf, "-o", "rep"], &cases[4].1);
    assert!(!d.join("rep").exists());
}

/// Parameters a plan refuses (attack 13, finding 6: a block size of 1000 B on a drive of 512 B logical
/// blocks with O_DIRECT, a span not in whole blocks, passed validate, and `sim fit` then failed naming a
/// deleted scratch file): named by the plan's own rules, exit 2, and `sim fit` refuses before any work.
#[test]
fn parameters_a_plan_refuses_are_named_by_their_json_path() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let capacity = results(&d.join("r"))["target"]["capacity_bytes"]
        .as_u64()
        .expect("capacity");
    let block = tampered(d, "block", |v| {
        v["phases"][1]["params"]["block_size_bytes"] = 1000.into()
    });
    let start = tampered(d, "start", |v| {
        v["phases"][1]["params"]["span_start_bytes"] = 512.into();
        v["phases"][1]["params"]["span_bytes"] = (capacity - 4096).into();
    });
    let head =
        |f: &str, n: usize| format!("error: {f} holds figures that cannot be true ({n} places):\n");
    let cases = [
        (
            block.clone(),
            head(&block, 2)
                + "  phases[1].params.block_size_bytes: 1000 B is not a multiple of the target's logical_block_size (512 B), which O_DIRECT (params.direct) requires\n"
                + &format!(
                    "  phases[1].params.span_bytes: {capacity} B is not a whole number of blocks of params.block_size_bytes (1000 B): a plan makes no such span\n"
                ),
        ),
        (
            start.clone(),
            format!("error: {start} holds figures that cannot be true (1 place):\n")
                + "  phases[1].params.span_start_bytes: offset 512 B is not a multiple of the block size (4096 B): a plan makes no such span\n",
        ),
    ];
    refused(d, &cases);
    refused_by(d, &["sim", "fit", &block], &cases[0].1);
}

/// A simulated drive no run can have (attack 13, finding 7: dies = 0, a program time of 0, a capacity
/// smaller than the flash a block needs passed validate), by the sim target's own rules; and recorded
/// parameters that are not those of the drive its path names.
#[test]
fn a_simulated_drive_no_run_can_have_is_refused() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let path = results(&d.join("r"))["target"]["path"]
        .as_str()
        .expect("path")
        .to_string();
    assert_eq!(path, "sim:capacity=512MiB,op=7%,dies=1");
    let drive = |name: &str, target: &'static str| {
        tampered(d, name, |v| v["target"]["path"] = target.into())
    };
    let dies = drive("dies", "sim:capacity=512MiB,op=7%,dies=0");
    let program = drive(
        "program",
        "sim:capacity=512MiB,op=7%,dies=1,program_time=0us",
    );
    let small = drive("small", "sim:capacity=1MiB,op=7%,dies=1");
    let params = tampered(d, "simparams", |v| {
        v["target"]["sim"]["params"]["dies"] = 0.into()
    });
    let one = |f: &str| format!("error: {f} holds figures that cannot be true (1 place):\n");
    let cases = [
        (
            dies.clone(),
            one(&dies)
                + "  target.path: \"sim:capacity=512MiB,op=7%,dies=0\" is not a simulated drive a run can have: sim dies = 0: a drive has at least one die\n",
        ),
        (
            program.clone(),
            one(&program)
                + "  target.path: \"sim:capacity=512MiB,op=7%,dies=1,program_time=0us\" is not a simulated drive a run can have: sim program_time = 0s: must be between 1us and 1s\n",
        ),
        (
            small.clone(),
            one(&small)
                + "  target.path: \"sim:capacity=1MiB,op=7%,dies=1\" is not a simulated drive a run can have: sim op = 7%: 1121976 B of flash make 0 superblocks of 4194304 B (1 die(s) × block 4194304 B); the capacity needs 1 and garbage collection 5 more: raise op, or lower block or dies\n",
        ),
        (
            params.clone(),
            one(&params)
                + "  target.sim: is not a simulated drive a run can have: sim dies = 0: a drive has at least one die\n",
        ),
    ];
    refused(d, &cases);
}

/// The figures of an aggregate are what the run makes of its targets' folders, merged again by the same
/// code (attack 18: each of these edits validated, and report and compare showed them): a target's part
/// (`hosts[0].read.ops`), the read latency's `max` 1 ns past the largest of the targets' maxima, and a
/// capacity of 1 TiB over two drives of 64 MiB. Each is refused naming the phase, the figure and both
/// values, the right one read from the targets' folders here.
#[test]
fn an_aggregate_s_figures_are_its_targets_merged_again() {
    let t = tempdir();
    let d = t.path();
    two_targets(d);
    let (t0, t1) = (
        "t0-sim-64MiB-op7-block256KiB",
        "t1-sim-64MiB-op20-block256KiB",
    );
    let theirs = [
        results(&d.join("m").join(t0)),
        results(&d.join("m").join(t1)),
    ];
    let u = |v: &serde_json::Value| v.as_u64().expect("count");
    let (ops0, max) = (
        u(&theirs[0]["phases"][1]["read"]["ops"]),
        theirs
            .iter()
            .map(|t| u(&t["phases"][1]["read"]["latency_ns"]["max"]))
            .max()
            .expect("max"),
    );
    let capacity: u64 = theirs
        .iter()
        .map(|t| u(&t["target"]["capacity_bytes"]))
        .sum();
    assert_eq!(capacity, 2 * (64 << 20));
    let same = |_: &mut serde_json::Value| {};
    let part = copied_aggregate(
        d,
        ("m", "part", t1),
        |v| v["phases"][1]["hosts"][0]["read"]["ops"] = 5.into(),
        same,
    );
    let lat = copied_aggregate(
        d,
        ("m", "lat", t1),
        |v| v["phases"][1]["read"]["latency_ns"]["max"] = (max + 1).into(),
        same,
    );
    let cap = copied_aggregate(
        d,
        ("m", "cap", t1),
        |v| v["target"]["capacity_bytes"] = (1u64 << 40).into(),
        same,
    );
    let merged = |f: &str, at: &str, was: u64, is: u64| {
        format!(
            "error: {f}/results.json: phase 1 \"w\": {at} {was} is not what merging its targets' phases makes, {is}: an aggregate's phase is its targets' phases merged\n"
        )
    };
    // The parts no longer add up to the phase either, which the file alone shows.
    let read = |i: usize, k: &str| u(&theirs[i]["phases"][1]["read"][k]);
    let sums = format!(
        "error: part/results.json holds figures that cannot be true (1 place):\n  phases[1].hosts: the parts' read add up to {} I/Os of {} B, not read.ops {} of read.bytes {}\n",
        5 + read(1, "ops"),
        read(0, "bytes") + read(1, "bytes"),
        ops0 + read(1, "ops"),
        read(0, "bytes") + read(1, "bytes")
    );
    let cases = [
        (
            part.clone(),
            sums.clone() + &merged(&part, "hosts[0].read.ops", 5, ops0),
        ),
        (
            lat.clone(),
            // The file alone shows it too: the max is the parts' largest.
            format!(
                "error: {lat}/results.json holds figures that cannot be true (1 place):\n  phases[1].read.latency_ns.max: {} is not {max}, as the merge makes it from latency_histograms.read and its parts' (hosts[].read.latency_ns)\n",
                max + 1
            ) + &merged(&lat, "read.latency_ns.max", max + 1, max),
        ),
        (
            cap.clone(),
            format!(
                "error: cap/results.json: target.capacity_bytes {} is not what the run writes of its targets, {capacity}: an aggregate's target is its targets' together\n",
                1u64 << 40
            ),
        ),
    ];
    refused(d, &cases);
    refused_by(d, &["report", &part, "-o", "rep"], &sums);
    assert!(!d.join("rep").exists());
}

/// The figures a run computes from a phase's own data are their recomputation (attack 18: each edit
/// validated, and compare showed "IOPS, phase mean 1.0 (-100 %)"): a headline figure, `read_share`, a
/// latency histogram's counts and `ops_by_size`, each named with both values, the right one the run's own.
#[test]
fn a_phase_s_own_figures_are_their_recomputation() {
    let t = tempdir();
    let d = t.path();
    a_run(d);
    let v = results(&d.join("r"));
    let w = &v["phases"][1];
    let iops = w["headline"][0]["value"].as_f64().expect("iops");
    let (reads, ops) = (
        w["read"]["ops"].as_u64().expect("reads"),
        w["total"]["ops"].as_u64().expect("ops"),
    );
    let bytes = w["total"]["bytes"].as_u64().expect("bytes");
    let share = reads as f64 / (reads + w["write"]["ops"].as_u64().expect("writes")) as f64;
    let held: u64 = (w["latency_histograms"]["read"]
        .as_array()
        .expect("hist")
        .iter())
    .map(|b| b[1].as_u64().expect("count"))
    .sum();
    assert_eq!(held, reads);
    let cases = [
        (
            tampered(d, "headline", |v| {
                v["phases"][1]["headline"][0]["value"] = 1.0.into()
            }),
            format!(
                "phases[1].headline[0].value: 1 is not \"IOPS, phase mean\" of phase \"w\" as its own figures make it, {iops}"
            ),
        ),
        (
            tampered(d, "share", |v| {
                v["phases"][1]["read_share"]["ops"] = 0.9.into()
            }),
            format!(
                "phases[1].read_share.ops: 0.9 is not read.ops / (read.ops + write.ops + trim.ops) = {share}"
            ),
        ),
        (
            tampered(d, "hist", |v| {
                let c = &mut v["phases"][1]["latency_histograms"]["read"][0][1];
                *c = (c.as_u64().expect("count") + 1000).into();
            }),
            format!(
                "phases[1].latency_histograms.read: holds {} latencies, not read.ops {reads}",
                held + 1000
            ),
        ),
        (
            tampered(d, "sizes", |v| {
                v["phases"][1]["ops_by_size"][0]["ops"] = 7.into()
            }),
            format!(
                "phases[1].ops_by_size: adds up to 7 I/Os of 28672 B, not total.ops {ops} of total.bytes {bytes}"
            ),
        ),
    ];
    refused_in_one_place(d, cases);
}

/// Moves the two runs [`merged_runs`] merged out of reach of `wkrun validate` (neither where the merge
/// records them nor beside the merged folder), so that a forged merged folder is held to what it keeps.
fn hosts_away(d: &Path) {
    for r in ["r", "r2"] {
        fs::rename(d.join(r), d.join(format!("{r}.away"))).expect("move a host's folder away");
    }
}

/// A merged phase's parts (`hosts`) add up to it and none is longer than it (attack 18: a part's
/// `read.ops` of 5 and a `duration_s` of 50 s in a folder `wkrun merge` wrote validated, and the report
/// showed them): each refused naming the figure and both sides, the sums read from the two runs here.
#[test]
fn a_merged_phase_s_parts_add_up_to_it() {
    let t = tempdir();
    let d = t.path();
    merged_runs(d);
    let u = |v: &serde_json::Value| v.as_u64().expect("count");
    let (a, b) = (results(&d.join("r")), results(&d.join("r2")));
    let read = |v: &serde_json::Value, k: &str| u(&v["phases"][1]["read"][k]);
    let m = results(&d.join("m"));
    let span = m["phases"][1]["duration_s"].as_f64().expect("duration");
    let forged = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = m.clone();
        edit(&mut v["phases"][1]["hosts"][0]);
        fs::write(
            d.join(format!("m/{name}.json")),
            serde_json::to_vec(&v).expect("json"),
        )
        .expect("write");
        format!("m/{name}.json")
    };
    let line = |f: &str, why: String| {
        format!("error: {f} holds figures that cannot be true (1 place):\n  {why}\n")
    };
    let ops = forged("ops", &|h| h["read"]["ops"] = 5.into());
    let long = forged("long", &|h| h["duration_s"] = 50.0.into());
    // The hosts' folders out of reach: what the merged folder keeps alone is checked (with them, each part
    // is also held to its host's own results: merge_hosts.rs).
    hosts_away(d);
    let cases = [
        (
            ops.clone(),
            line(
                &ops,
                format!(
                    "phases[1].hosts: the parts' read add up to {} I/Os of {} B, not read.ops {} of read.bytes {}",
                    5 + read(&b, "ops"),
                    read(&a, "bytes") + read(&b, "bytes"),
                    read(&a, "ops") + read(&b, "ops"),
                    read(&a, "bytes") + read(&b, "bytes")
                ),
            ),
        ),
        (
            long.clone(),
            line(
                &long,
                format!(
                    "phases[1].hosts[0].duration_s: 50 s is longer than the merged phase's duration_s {span} s, which spans every part"
                ),
            ),
        ),
    ];
    refused(d, &cases);
}

/// A folder `wkrun merge` wrote keeps its parts (`hosts`) and its merged latency histograms; without its
/// hosts' folders at hand, its latency and times are held to what it keeps (a forged merged p99 or mean validated). Each
/// forged figure is refused with the value the merge makes of what the folder keeps, recomputed here from
/// the histogram's pairs and the parts' entries; the folder as merged validates.
#[test]
fn a_merged_phase_s_latency_and_times_are_what_it_keeps_of_its_parts() {
    let t = tempdir();
    let d = t.path();
    merged_runs(d);
    validates(d, "m");
    let m = results(&d.join("m"));
    let w = &m["phases"][1];
    let u = |v: &serde_json::Value| v.as_u64().expect("whole");
    let f = |v: &serde_json::Value| v.as_f64().expect("number");
    // The oracle: the percentile of the merged pairs, the first bucket whose running count reaches the
    // rank (HDR's value at quantile, the count rounded to nearest), at most the max.
    let pct = |pairs: &[serde_json::Value], q: f64, max: u64| {
        let n: u64 = pairs.iter().map(|b| u(&b[1])).sum();
        let rank = ((q * n as f64) + 0.5).max(1.0) as u64;
        let mut seen = 0;
        let top = pairs.iter().find_map(|b| {
            seen += u(&b[1]);
            (seen >= rank).then(|| u(&b[0]))
        });
        top.expect("rank").min(max)
    };
    let read = w["latency_histograms"]["read"].as_array().expect("pairs");
    let lat = &w["read"]["latency_ns"];
    let p99 = pct(read, 0.99, u(&lat["max"]));
    assert_eq!(p99, u(&lat["p99"]));
    // The total's: the reads' and writes' pairs added by value.
    let mut all = std::collections::BTreeMap::new();
    for b in read
        .iter()
        .chain(w["latency_histograms"]["write"].as_array().expect("pairs"))
    {
        *all.entry(u(&b[0])).or_insert(0) += u(&b[1]);
    }
    let all: Vec<serde_json::Value> = all
        .into_iter()
        .map(|(v, c)| serde_json::json!([v, c]))
        .collect();
    let t99 = pct(&all, 0.99, u(&w["total"]["latency_ns"]["max"]));
    assert_eq!(t99, u(&w["total"]["latency_ns"]["p99"]));
    // The mean: the parts' means weighted by their reads.
    let hosts = w["hosts"].as_array().expect("hosts");
    let ops = |h: &serde_json::Value| u(&h["read"]["ops"]) as f64;
    let sum: f64 = (hosts.iter())
        .map(|h| f(&h["read"]["latency_ns"]["mean"]) * ops(h))
        .sum();
    let mean = sum / hosts.iter().map(ops).sum::<f64>();
    assert_eq!(mean, f(&lat["mean"]));
    // The span: a simulated drive's virtual clock aligns no hosts, so the longest part, both shortened.
    assert!(hosts.iter().all(|h| h.get("series_t0_unix_ns").is_none()));
    let short = |h: &serde_json::Value| f(&h["duration_s"]) - 0.5;
    let span = short(&hosts[0]).max(short(&hosts[1]));
    let forged = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = m.clone();
        edit(&mut v["phases"][1]);
        fs::write(
            d.join(format!("m/{name}.json")),
            serde_json::to_vec(&v).expect("json"),
        )
        .expect("write");
        format!("m/{name}.json")
    };
    let from = "latency_histograms.read and its parts' (hosts[].read.latency_ns)";
    hosts_away(d);
    let p99_1 = p99 - 1;
    let (h0, h0_ops) = (&hosts[0]["read"], u(&hosts[0]["read"]["ops"]));
    // A part's mean moves the merged mean and stddev: the parts' moments, the first part's mean moved by
    // `dm`, pooled as count-weighted sums of means and of squares.
    let pooled = |dm: f64| {
        let (mut n, mut s, mut q) = (0.0, 0.0, 0.0);
        for (k, h) in hosts.iter().enumerate() {
            let l = &h["read"]["latency_ns"];
            let (m, sd, c) = (
                f(&l["mean"]) + if k == 0 { dm } else { 0.0 },
                f(&l["stddev"]),
                ops(h),
            );
            (n, s, q) = (n + c, s + m * c, q + (sd * sd + m * m) * c);
        }
        let mean = s / n;
        (mean, (q / n - mean * mean).max(0.0).sqrt())
    };
    assert_eq!(pooled(0.0), (mean, f(&lat["stddev"])));
    let (mean1, sd1) = pooled(1.0);
    let host_mean = forged("host_mean", &|p| {
        p["hosts"][0]["read"]["latency_ns"]["mean"] = (f(&h0["latency_ns"]["mean"]) + 1.0).into()
    });
    let two = format!(
        "error: {host_mean} holds figures that cannot be true (2 places):\n  phases[1].read.latency_ns.mean: {mean} is not {mean1}, as the merge makes it from {from}\n  phases[1].read.latency_ns.stddev: {} is not {sd1}, as the merge makes it from {from}\n",
        f(&lat["stddev"])
    );
    refused(d, &[(host_mean, two)]);
    let cases = [
        (
            forged("p99", &|p| p["read"]["latency_ns"]["p99"] = p99_1.into()),
            format!(
                "phases[1].read.latency_ns.p99: {p99_1} is not {p99}, as the merge makes it from {from}"
            ),
        ),
        (
            forged("t99", &|p| {
                p["total"]["latency_ns"]["p99"] = (t99 - 1).into()
            }),
            format!(
                "phases[1].total.latency_ns.p99: {} is not {t99}, as the merge makes it from the directions' latency_ns and latency_histograms",
                t99 - 1
            ),
        ),
        (
            forged("mean", &|p| {
                p["read"]["latency_ns"]["mean"] = (mean + 1.0).into()
            }),
            format!(
                "phases[1].read.latency_ns.mean: {} is not {mean}, as the merge makes it from {from}",
                mean + 1.0
            ),
        ),
        (
            forged("host_iops", &|p| p["hosts"][0]["read"]["iops"] = 1.0.into()),
            format!(
                "phases[1].hosts[0].read.iops: 1 is not ops / duration_s = {h0_ops} / {} = {}",
                f(&hosts[0]["duration_s"]),
                h0_ops as f64 / f(&hosts[0]["duration_s"])
            ),
        ),
        (
            forged("span", &|p| {
                for h in 0..2 {
                    p["hosts"][h]["duration_s"] = short(&hosts[h]).into();
                }
            }),
            format!(
                "phases[1].duration_s: {} s is not its parts' span, {span} s (from the earliest start to the latest end, by hosts[].series_t0_unix_ns and duration_s)",
                f(&w["duration_s"])
            ),
        ),
        (
            forged("completed", &|p| p["hosts"][0]["completed"] = false.into()),
            "phases[1].completed: true is not its parts' (every one completed: false)".to_string(),
        ),
    ];
    refused_in_one_place(d, cases);
}

/// Figures that are not whole agree with their recomputation to the last few bits, not to a part in 10⁹
/// (a share, a headline figure or a rate changed by a relative 10⁻¹⁰ validated): each is refused naming
/// both values, and the run as written validates, its figures read back to the bit.
#[test]
fn a_figure_changed_in_its_tenth_digit_is_refused() {
    let t = tempdir();
    let d = t.path();
    a_run(d);
    validates(d, "r");
    let v = results(&d.join("r"));
    let w = &v["phases"][1];
    let f = |v: &serde_json::Value| v.as_f64().expect("number");
    let u = |v: &serde_json::Value| v.as_u64().expect("count");
    let off = |x: f64| x * (1.0 + 1e-10);
    let (share, iops, secs) = (
        f(&w["read_share"]["ops"]),
        f(&w["headline"][0]["value"]),
        f(&w["duration_s"]),
    );
    let reads = u(&w["read"]["ops"]);
    let read_iops = reads as f64 / secs;
    assert_eq!(read_iops, f(&w["read"]["iops"]));
    let cases = [
        (
            tampered(d, "share", |v| {
                v["phases"][1]["read_share"]["ops"] = off(share).into()
            }),
            format!(
                "phases[1].read_share.ops: {} is not read.ops / (read.ops + write.ops + trim.ops) = {share}",
                off(share)
            ),
        ),
        (
            tampered(d, "headline", |v| {
                v["phases"][1]["headline"][0]["value"] = off(iops).into()
            }),
            format!(
                "phases[1].headline[0].value: {} is not \"IOPS, phase mean\" of phase \"w\" as its own figures make it, {iops}",
                off(iops)
            ),
        ),
        (
            tampered(d, "iops", |v| {
                v["phases"][1]["read"]["iops"] = off(read_iops).into()
            }),
            format!(
                "phases[1].read.iops: {} is not ops / duration_s = {reads} / {secs} = {read_iops}",
                off(read_iops)
            ),
        ),
    ];
    refused_in_one_place(d, cases);
}

/// Trial 19 F3: a phase's latency summaries are held to its own histograms. A read mean 1 % off (the
/// histogram's buckets are 1/1024 wide: its mean bounds the exact one, recomputed here from the pairs), a
/// percentile the histogram does not give, and a total's min that is not its directions' least are each
/// refused in one place; the unforged run validates.
#[test]
fn a_phase_s_latency_is_held_to_its_own_histograms() {
    let t = tempdir();
    let d = t.path();
    a_run(d);
    validates(d, "r");
    let v = results(&d.join("r"));
    let p = &v["phases"][1];
    let lat = |dir: &str, k: &str| p[dir]["latency_ns"][k].clone();
    let pairs: Vec<(u128, u128)> = p["latency_histograms"]["read"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|x| (x[0].as_u64().unwrap().into(), x[1].as_u64().unwrap().into()))
        .collect();
    let n: u128 = pairs.iter().map(|x| x.1).sum();
    let high = pairs.iter().map(|x| x.0 * x.1).sum::<u128>() as f64 / n as f64;
    let low = high * (1.0 - 1.0 / 1024.0) - 1.0;
    let mean = lat("read", "mean").as_f64().unwrap() * 1.01;
    // The first pair of neighbouring percentiles that differ: the lower one raised to the upper's value.
    let ks = ["p50", "p90", "p99", "p99_9", "p99_99"];
    let (k, up) = ks
        .windows(2)
        .find_map(|w| (lat("read", w[0]) != lat("read", w[1])).then(|| (w[0], lat("read", w[1]))))
        .expect("two percentiles that differ");
    let min = lat("total", "min").as_u64().unwrap();
    // Attack 20: the min in the lowest bucket, the stddev within half the range.
    let first = pairs[0].0 as f64;
    let lowest = (first * (1.0 - 1.0 / 1024.0) - 1.0).max(0.0).ceil();
    let (rmin, rmax) = (
        lat("read", "min").as_u64().unwrap(),
        lat("read", "max").as_u64().unwrap(),
    );
    let half = (rmax - rmin) as f64 / 2.0;
    let cases = [
        (
            tampered(d, "mean", |v| {
                v["phases"][1]["read"]["latency_ns"]["mean"] = mean.into()
            }),
            format!(
                "phases[1].read.latency_ns.mean: {mean} is outside what its histogram holds: its {n} latencies' mean lies from {low} to {high} ns"
            ),
        ),
        (
            tampered(d, "pct", |v| {
                v["phases"][1]["read"]["latency_ns"][k] = up.clone()
            }),
            format!(
                "phases[1].read.latency_ns.{k}: {up} is not {}, the percentile of latency_histograms.read",
                lat("read", k)
            ),
        ),
        (
            tampered(d, "min", |v| {
                v["phases"][1]["total"]["latency_ns"]["min"] = (min + 1).into()
            }),
            format!(
                "phases[1].total.latency_ns.min: {} is not {min}, as the directions' latency_ns and latency_histograms make it",
                min + 1
            ),
        ),
        (
            tampered(d, "min1", |v| {
                v["phases"][1]["read"]["latency_ns"]["min"] = 1.into()
            }),
            format!(
                "phases[1].read.latency_ns.min: 1 is not in its histogram's lowest bucket, {lowest} to {first} ns"
            ),
        ),
        (
            tampered(d, "sd", |v| {
                v["phases"][1]["read"]["latency_ns"]["stddev"] = 1e9.into()
            }),
            format!(
                "phases[1].read.latency_ns.stddev: 1000000000 is more than latencies from {rmin} to {rmax} ns can spread, {half}"
            ),
        ),
    ];
    refused_in_one_place(d, cases);
}

/// A plan (`planned_phases`) that its phases contradict (trial 22): a completed run that did not run a
/// phase it planned, a phase planned but not run before one that ran (a run stops once), a plan out of
/// order. Each named by its JSON path, exit 2; the run's own plan lists its two phases.
#[test]
fn a_plan_its_phases_contradict_is_refused() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let r = results(&d.join("r"));
    assert_eq!(
        r["planned_phases"],
        serde_json::json!([
            {"index": 0, "name": "f", "kind": "fill"},
            {"index": 1, "name": "w", "kind": "workload"},
        ])
    );
    let extra = tampered(d, "extra", |v| {
        let p = v["planned_phases"].as_array_mut().expect("a list");
        p.push(serde_json::json!({"index": 2, "name": "x", "kind": "workload"}));
    });
    let gap = tampered(d, "gap", |v| {
        v["phases"].as_array_mut().expect("a list").remove(0);
        v["status"] = "interrupted".into();
    });
    let order = tampered(d, "order", |v| {
        let p = v["planned_phases"].as_array_mut().expect("a list");
        p.swap(0, 1);
    });
    refused_in_one_place(
        d,
        [
            (
                extra,
                "planned_phases[2]: phase 2 \"x\" did not run in a run whose status is \"completed\": a run completes when it ran every phase it planned but those its blocks of rounds and searches skipped".to_string(),
            ),
            (
                gap,
                "planned_phases[0]: phase 0 \"f\" did not run, yet phase 1 \"w\" after it did: a run runs its planned phases in order, and stops once".to_string(),
            ),
            (
                order,
                "planned_phases[1].index: 0 is not above planned_phases[0].index 1: a plan lists each phase once, in run order".to_string(),
            ),
        ],
    );
}

/// Trial 25 F2: `read_share` counts trims among all I/Os, and a paced phase's latencies from the intended
/// issue time (`arrivals.latency_from_intended_ns`) keep the trims' own entry and count them in the total;
/// `wkrun validate` holds both to the phase's own figures. On a simulated drive, 1 000 I/Os at 50 % reads
/// and 20 % trims under a cap of 2 000 IOPS: the run validates; each forgery is refused, named by its path
/// with the value the phase's figures give: the read share by the old rule (reads over reads and writes),
/// the trims' entry nulled, its p50 below the trims' p50 from submission, and a total over reads and
/// writes alone (its mean theirs weighted by their I/Os).
#[test]
fn a_forged_read_share_or_intended_trim_entry_is_refused() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 50\ntrim_percent = 20\n\
                block_size = \"4KiB\"\nsize = \"4000KiB\"\nqueue_depth = 32\nrate_iops = 2000\n";
    write_file(d, "s.toml", &spec_text("v", body));
    run_s_on_sim(d, "r");
    validates(d, "r");
    let v = results(&d.join("r"));
    let w = &v["phases"][0];
    let n = |dir: &str| w[dir]["ops"].as_u64().expect("ops");
    let (reads, writes, trims) = (n("read"), n("write"), n("trim"));
    assert_eq!((reads, writes, trims), (500, 300, 200));
    let old = reads as f64 / (reads + writes) as f64;
    let share = reads as f64 / (reads + writes + trims) as f64;
    assert_eq!(w["read_share"]["ops"].as_f64(), Some(share));
    let l = &w["arrivals"]["latency_from_intended_ns"];
    let mean = |e: &serde_json::Value| e["mean"].as_f64().expect("mean");
    let rw_mean = (mean(&l["read"]) * reads as f64 + mean(&l["write"]) * writes as f64)
        / (reads + writes) as f64;
    // As the check pools them: each mean times its I/Os, added in order, over all the I/Os.
    let all_mean = (mean(&l["read"]) * reads as f64
        + mean(&l["write"]) * writes as f64
        + mean(&l["trim"]) * trims as f64)
        / (reads + writes + trims) as f64;
    let p50 = w["trim"]["latency_ns"]["p50"].as_u64().expect("p50");
    let at = "phases[0].arrivals.latency_from_intended_ns";
    let readable = wkrun::units::readable_float;
    let cases = [
        (
            tampered(d, "share", |v| {
                v["phases"][0]["read_share"]["ops"] = old.into()
            }),
            format!(
                "phases[0].read_share.ops: {} is not read.ops / (read.ops + write.ops + trim.ops) = {share}",
                readable(old)
            ),
        ),
        (
            tampered(d, "null", |v| {
                v["phases"][0]["arrivals"]["latency_from_intended_ns"]["trim"] =
                    serde_json::Value::Null
            }),
            format!(
                "{at}.trim: null, where trim completed {trims} I/Os timed from their submission (trim.latency_ns): each is timed from its intended issue too"
            ),
        ),
        (
            tampered(d, "p50", |v| {
                v["phases"][0]["arrivals"]["latency_from_intended_ns"]["trim"]["p50"] =
                    (p50 - 1).into()
            }),
            format!(
                "{at}.trim.p50: {} is below trim.latency_ns.p50, {p50}: no I/O is sooner from its intended issue than from its submission",
                p50 - 1
            ),
        ),
        (
            tampered(d, "total", |v| {
                v["phases"][0]["arrivals"]["latency_from_intended_ns"]["total"]["mean"] =
                    rw_mean.into()
            }),
            format!(
                "{at}.total.mean: {} is not {}, the read, write and trim entries' means weighted by their directions' ops ({reads}, {writes}, {trims}): every I/O, trims included",
                readable(rw_mean),
                readable(all_mean)
            ),
        ),
    ];
    refused_in_one_place(d, cases);
    // Results written before the `trim` entry (the key absent) still read and validate.
    tampered(d, "older", |v| {
        let l = &mut v["phases"][0]["arrivals"]["latency_from_intended_ns"];
        l.as_object_mut().expect("an object").remove("trim");
    });
    validates(d, "r/older.json");
    // Results written before trims counted in the share (both ops and bytes by the old rule) read as
    // today's share, and validate (trial 26's runs).
    let b = |dir: &str| w[dir]["bytes"].as_u64().expect("bytes") as f64;
    let old_bytes = b("read") / (b("read") + b("write"));
    let file = tampered(d, "before", |v| {
        v["phases"][0]["read_share"] = serde_json::json!({ "ops": old, "bytes": old_bytes });
    });
    validates(d, &file);
    let text = fs::read(d.join(&file)).expect("results");
    let r = wkrun::report::parse_results(&d.join(&file), &text).expect("read");
    let s = r.phases[0].read_share.expect("a share");
    assert_eq!(
        (s.ops, s.bytes),
        (share, b("read") / (b("read") + b("write") + b("trim")))
    );
}

/// A fill and a 70 % read workload (libaio, queue depth 4) on a 16 MiB file, in `dir/r`: the run attack 26
/// F6 forged.
fn a_mixed_run(dir: &Path) {
    let spec = "[defaults]\nengine = \"libaio\"\nqueue_depth = 4\nblock_size = \"4KiB\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\n[[phase]]\nname = \"rw1\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 70\nduration = \"1s\"\n";
    a_file_run(dir, "m", spec);
}

/// The spec `name` of `body` run on a new 16 MiB file, `dir/t.img`, into `dir/r` (exit 0).
pub(crate) fn a_file_run(dir: &Path, name: &str, body: &str) {
    let file = format!("{name}.toml");
    write_file(dir, &file, &spec_text(name, body));
    let args = [
        file.as_str(),
        "--target",
        "t.img",
        "--target-size",
        "16MiB",
        "-q",
        "-o",
        "r",
    ];
    let (c, _, e) = code_out_err(&wkrun(dir, &args));
    assert_eq!(c, 0, "{e}");
}

/// Attack 26 F6: figures that contradict the run's own rules passed `wkrun validate`. A read_percent of 100
/// (or 0) beside the phase's writes (reads), or one the read count does not fit (each group of 100 I/Os of a
/// stream holds exactly read_percent reads: at most 21 reads off per group cut short at 70 %, 4 groups for
/// one libaio stream); a coverage past 1 (the schema), not what the run computes for a sequential fill
/// (exactly 1) or a random workload (the expected share), or said exact of random offsets; fractions of the
/// host past 1 (the schema); cpus_busy, user_us_per_io and system_us_per_io not their CPU times over the
/// phase's time and I/Os. Each named by its JSON path, exit 2.
#[test]
fn figures_a_run_derives_from_its_parameters_are_held_to_them() {
    let t = tempdir();
    let d = t.path();
    a_mixed_run(d);
    validates(d, "r");
    let readable = wkrun::units::readable_float;
    let v = results(&d.join("r"));
    let (fill, w) = (&v["phases"][0], &v["phases"][1]);
    let u = |p: &serde_json::Value, k: &str| p[k]["ops"].as_u64().expect("ops");
    let (reads, writes, n) = (u(w, "read"), u(w, "write"), u(w, "total"));
    let fill_ops = u(fill, "total");
    // The bound of 4 groups cut short at 70 %: 100·reads within 4 × 70 × 30 of n × 30 when read_percent is
    // forged to 30.
    let (lo, hi) = ((n * 30 - 8400).div_ceil(100), (n * 30 + 8400) / 100);
    assert!(!(lo..=hi).contains(&reads), "{reads} in {lo}..={hi}");
    let cov = w["coverage"]["fraction"].as_f64().expect("coverage");
    let cpu = &w["cpu"];
    let f = |k: &str| readable(cpu[k].as_f64().expect("cpu"));
    let busy = format!(
        "(user_s + system_s) / duration_s = ({} + {}) / {} = {}",
        f("user_s"),
        f("system_s"),
        readable(w["duration_s"].as_f64().expect("duration")),
        f("cpus_busy")
    );
    let percent = |p: u64| {
        move |v: &mut serde_json::Value| v["phases"][1]["params"]["read_percent"] = p.into()
    };
    let cases = [
        (
            tampered(d, "rp100", percent(100)),
            format!(
                "phases[1].params.read_percent: 100: the phase issues reads only, but {writes} of its total.ops {n} are not reads"
            ),
        ),
        (
            tampered(d, "rp0", percent(0)),
            format!(
                "phases[1].params.read_percent: 0: the phase issues no reads, but it has {reads} (read.ops)"
            ),
        ),
        (
            tampered(d, "rp30", percent(30)),
            format!(
                "phases[1].params.read_percent: 30 does not give read.ops {reads} of total.ops {n}: each group of 100 I/Os of a stream in a row holds exactly 30 reads, so {n} I/Os hold {} reads give or take 21 for each of at most 4 groups cut short (2 per stream, 2 per thread sharing one, 2 per failed I/O): {lo} to {hi}",
                readable(n as f64 * 30.0 / 100.0)
            ),
        ),
        (
            tampered(d, "tp10", |v| {
                v["phases"][1]["params"]["trim_percent"] = 10.into()
            }),
            format!(
                "phases[1].params.trim_percent: 10 does not give trim.ops 0 of total.ops {n}: each group of 100 I/Os of a stream in a row holds exactly 10 trims, so {n} I/Os hold {} trims give or take 9 for each of at most 4 groups cut short (2 per stream, 2 per thread sharing one, 2 per failed I/O): {} to {}",
                readable(n as f64 * 10.0 / 100.0),
                (n * 10 - 3600).div_ceil(100),
                (n * 10 + 3600) / 100
            ),
        ),
        (
            tampered(d, "fillhalf", |v| {
                v["phases"][0]["coverage"]["fraction"] = 0.5.into()
            }),
            format!(
                "phases[0].coverage.fraction: 0.5 is not the share of the span's blocks that total.ops {fill_ops} I/Os of params.block_size_bytes 4096 B over params.span_bytes 16777216 B touch, each block once (exact): 1"
            ),
        ),
        (
            tampered(d, "cov1", |v| {
                v["phases"][1]["coverage"]["fraction"] = 1.0.into()
            }),
            format!(
                "phases[1].coverage.fraction: 1 is not the share of the span's blocks that total.ops {n} I/Os of params.block_size_bytes 4096 B over params.span_bytes 16777216 B touch, the expected share for uniform random offsets: {}",
                readable(cov)
            ),
        ),
        (
            tampered(d, "exact", |v| {
                v["phases"][1]["coverage"]["exact"] = true.into()
            }),
            "phases[1].coverage.exact: true is not what the phase's order makes it (the expected share for uniform random offsets): false".to_string(),
        ),
        (
            tampered(d, "busy", |v| {
                v["phases"][1]["cpu"]["cpus_busy"] = 1.9.into()
            }),
            format!("phases[1].cpu.cpus_busy: 1.9 is not {busy}"),
        ),
    ];
    refused_in_one_place(d, cases);
    let schema = [
        (
            tampered(d, "cov2", |v| {
                v["phases"][0]["coverage"]["fraction"] = 2.0.into()
            }),
            "phases[0].coverage.fraction: 2.0 is greater than the maximum of 1",
        ),
        (
            tampered(d, "submit", |v| {
                v["phases"][1]["host"]["submit_cpu_fraction"] = 5.0.into()
            }),
            "phases[1].host.submit_cpu_fraction: 5.0 is greater than the maximum of 1",
        ),
        (
            tampered(d, "wait", |v| {
                v["phases"][1]["host"]["cpu_wait_fraction"] = 7.0.into()
            }),
            "phases[1].host.cpu_wait_fraction: 7.0 is greater than the maximum of 1",
        ),
    ];
    for (file, why) in schema {
        let want =
            format!("error: {file} does not match the results schema (1 violation):\n  {why}\n");
        refused_by(d, &["validate", &file], &want);
    }
}

/// Forge 27: a read_percent and trim_percent that add up to more than 100 (the spec refuses them: the rest
/// of the I/Os are writes), and a count of submitting threads that is not the plan's (one libaio worker
/// submits from its one thread), passed `wkrun validate`. Each named by its JSON path, exit 2.
#[test]
fn a_mix_past_100_and_threads_the_plan_does_not_start_are_refused() {
    let t = tempdir();
    let d = t.path();
    a_mixed_run(d);
    validates(d, "r");
    let threads = |n: u64| {
        move |v: &mut serde_json::Value| v["phases"][1]["host"]["submit_threads"] = n.into()
    };
    let of = "params.workers 1 × the threads libaio starts per worker (1 each) = 1";
    let cases = [
        (
            tampered(d, "tp40", |v| {
                v["phases"][1]["params"]["trim_percent"] = 40.into()
            }),
            "phases[1].params.trim_percent: read_percent = 70 and trim_percent = 40 add up to 110, more than 100 (the rest of the I/Os are writes): a spec refuses it, so no run has it".to_string(),
        ),
        (
            tampered(d, "threads9", threads(9)),
            format!("phases[1].host.submit_threads: 9 is not {of}: a completed phase counts each"),
        ),
        (
            tampered(d, "threads0", threads(0)),
            format!("phases[1].host.submit_threads: 0 is not {of}: a completed phase counts each"),
        ),
    ];
    refused_in_one_place(d, cases);
}

/// Attack 27 F5: a phase's workers against its plan. `params.worker_parts` is what the plan deals out for
/// the parameters the phase records (`plan::deal_workers`): a part moved into its neighbour's, one cut short,
/// one past the span, one missing, a part's seed or I/Os changed are each refused at the part's field; each of
/// `workers[]` is its part (range, seed); the workers' I/Os add up to the phase's; a phase starts after its
/// run. Real I/O: three psync workers on a 16 MiB file.
#[test]
fn a_phase_s_workers_are_the_parts_its_plan_deals_out() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nworkers = 3\nblock_size = \"4KiB\"\nread_percent = 50\nsize = \"1MiB\"\n";
    a_file_run(d, "w", body);
    let v = results(&d.join("r"));
    let q = &v["phases"][0]["params"];
    let parts: Vec<(u64, u64, u64, u64)> = (q["worker_parts"].as_array().expect("parts").iter())
        .map(|p| {
            (
                u(p, "/span_start_bytes"),
                u(p, "/span_bytes"),
                u(p, "/seed"),
                u(p, "/ops"),
            )
        })
        .collect();
    // 4096 blocks of 4 KiB in three parts, 256 I/Os in three shares.
    let seed = |k: usize| parts[k].2;
    assert_eq!(
        parts.iter().map(|p| (p.0, p.1, p.3)).collect::<Vec<_>>(),
        [
            (0, 5595136, 86),
            (5595136, 5591040, 85),
            (11186176, 5591040, 85)
        ]
    );
    let reads = u(&v, "/phases/0/read/ops");
    let read_bytes = u(&v, "/phases/0/read/bytes");
    let started = v["started_at"].as_str().expect("started_at").to_string();
    let dealt = "(from the phase's span, block size, order, bound, stream_seed and 3 workers split partitioned)";
    let part = |k: usize| format!("phases[0].params.worker_parts[{k}]");
    let set = |f: &'static str, k: usize, field: &'static str, n: u64| {
        tampered(d, f, move |v| {
            v["phases"][0]["params"]["worker_parts"][k][field] = n.into()
        })
    };
    let cases = [
        (
            tampered(d, "overlap", |v| {
                let p = &mut v["phases"][0]["params"]["worker_parts"][1];
                p["span_start_bytes"] = 5591040.into();
                p["span_bytes"] = 5595136.into();
            }),
            format!("{}.span_start_bytes: 5591040 is not what the plan deals worker 1, 5595136 {dealt}", part(1)),
        ),
        (
            set("gap", 2, "span_bytes", 5586944),
            format!("{}.span_bytes: 5586944 is not what the plan deals worker 2, 5591040 {dealt}", part(2)),
        ),
        (
            tampered(d, "past", |v| {
                let p = &mut v["phases"][0]["params"]["worker_parts"][2];
                p["span_start_bytes"] = 16773120.into();
                p["span_bytes"] = (16u64 << 20).into();
            }),
            format!("{}: [16773120, 33550336) is not inside the phase's span [0, 16777216) (params.span_start_bytes, params.span_bytes)", part(2)),
        ),
        (
            tampered(d, "count", |v| {
                let parts = v["phases"][0]["params"]["worker_parts"].as_array_mut().expect("parts");
                parts.pop();
            }),
            "phases[0].params.worker_parts: 2 parts for params.workers 3: the plan deals one part to each of several workers, none to one".to_string(),
        ),
        (
            set("part-seed", 1, "seed", 12345),
            format!("{}.seed: 12345 is not what the plan deals worker 1, {} {dealt}", part(1), seed(1)),
        ),
        (
            set("part-ops", 0, "ops", 1),
            format!("{}.ops: 1 is not what the plan deals worker 0, 86 {dealt}", part(0)),
        ),
        (
            tampered(d, "worker-seed", |v| v["phases"][0]["workers"][1]["seed"] = 7.into()),
            format!("phases[0].workers[1].seed: 7 is not params.worker_parts[1].seed {}", seed(1)),
        ),
        (
            tampered(d, "worker-start", |v| {
                v["phases"][0]["workers"][1]["span_start_bytes"] = 0.into()
            }),
            "phases[0].workers[1].span_start_bytes: 0 is not params.worker_parts[1].span_start_bytes 5595136".to_string(),
        ),
        (
            tampered(d, "worker-ops", |v| {
                let r = &mut v["phases"][0]["workers"][1]["read"]["ops"];
                *r = (r.as_u64().expect("ops") + 1000).into();
            }),
            format!(
                "phases[0].workers: the workers' read add up to {} I/Os of {read_bytes} B, not read.ops {reads} of read.bytes {read_bytes}",
                reads + 1000
            ),
        ),
        (
            tampered(d, "early", |v| {
                v["phases"][0]["started_at"] = "2000-01-01T00:00:00.000Z".into()
            }),
            format!(
                "phases[0].started_at: \"2000-01-01T00:00:00.000Z\" is before the run's started_at \"{started}\": a phase starts after its run does"
            ),
        ),
    ];
    refused_in_one_place(d, cases);
    validates(d, "r");
}
