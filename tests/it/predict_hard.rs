//! `wkrun sim fit` and `wkrun sim predict` under hostile input (attack 24b, findings 1, 2, 5–9, 12, 13):
//! the prediction's run labels its own results (nothing rewrites them after it), bad input exits 2 naming
//! the file, line and key with nothing written, a signal stops the child run and removes the fit's scratch
//! folder, and results whose duration contradicts their rows are refused.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The drive of the short measurement: 256 MiB, one die, so that 40 s of random writes pass the cliff.
const TRUTH: &str = "sim:capacity=256MiB,op=20%,dies=1,program_time=3200us";
/// A fitted target as `sim fit` prints one.
const FITTED: &str = "sim:capacity=256MiB,op=20%,block=256KiB";
/// [`FITTED`] as a run names the drive (its label, its target's path): every parameter off its default.
const DRIVE: &str = "sim:capacity=256MiB,op=20%,block=256KiB,dies=1";

/// Purge, fill, then `duration` of 4 KiB random writes at QD32.
fn wsat(duration: &str) -> String {
    format!(
        "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"{duration}\"\n"
    )
}

/// One phase of `duration` random writes.
fn writes(duration: &str) -> String {
    format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nqueue_depth = 4\nread_percent = 0\nduration = \"{duration}\"\n"
    )
}

/// A measured run in `dir/m`.
fn measured(dir: &Path, duration: &str) -> PathBuf {
    let sub = dir.join("m");
    std::fs::create_dir_all(&sub).unwrap();
    run_ok(&sub, "m", &wsat(duration), Path::new(TRUTH))
}

/// A folder with `p.toml` (2 s of random writes) and a 40 s measured run, `m`.
fn with_spec_and_measurement() -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    write_file(dir.path(), "p.toml", &spec_text("p", &writes("2s")));
    let m = measured(dir.path(), "40s");
    (dir, m)
}

fn predict(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["sim", "predict"];
    all.extend_from_slice(args);
    code_out_err(&wkrun(dir, &all))
}

/// The names of the entries of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The processes whose command line holds `text`, this test's own excepted.
fn processes_with(text: &str) -> Vec<u32> {
    let me = std::process::id();
    names(Path::new("/proc"))
        .iter()
        .filter_map(|n| n.parse::<u32>().ok())
        .filter(|&p| p != me)
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(text))
        })
        .collect()
}

/// Starts `wkrun ARGS` in `dir` with `env`, its output discarded but stderr.
fn start(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Child {
    let mut c = Command::new(wkrun_bin());
    c.args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

/// Waits up to 60 s for `cond`.
fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Finding 7, 9 and 13: the measurement, the spec, the output folder and the target are checked before
/// anything runs: exit 2, the file (and line and key) named, nothing made, an existing folder unchanged.
#[test]
fn predict_refuses_bad_input_before_anything_runs() {
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    let m = m.to_str().unwrap();
    let (code, out, err) = predict(
        d,
        &[
            "/nonexistent/folder",
            "p.toml",
            "--fitted",
            FITTED,
            "-o",
            "a",
        ],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("cannot read /nonexistent/folder: No such file or directory"),
        "{err}"
    );
    assert!(!d.join("a").exists());
    write_file(
        d,
        "bad.toml",
        &spec_text(
            "p",
            &writes("1s").replace("queue_depth = 4", "queue_depth = -1"),
        ),
    );
    let (code, _, err) = predict(d, &[m, "bad.toml", "--fitted", FITTED, "-o", "c"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.toml:9"), "{err}");
    assert!(err.contains("queue_depth"), "{err}");
    assert!(!d.join("c").exists());
    // A folder holding results is left as it was.
    let before = std::fs::read(Path::new(m).join("results.json")).unwrap();
    let (code, _, err) = predict(d, &[m, "p.toml", "--fitted", FITTED, "-o", m]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already holds results.json"), "{err}");
    assert_eq!(
        std::fs::read(Path::new(m).join("results.json")).unwrap(),
        before
    );
    let (code, _, err) = predict(d, &[m, "p.toml", "--fitted", FITTED, "-o", "/proc/self/x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/proc/self/x"), "{err}");
    let big = "sim:capacity=256MiB,seed=18446744073709551615";
    let (code, _, err) = predict(d, &[m, "p.toml", "--fitted", big, "-o", "e"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("seed = 18446744073709551615 is out of range: at most 9223372036854775807"),
        "{err}"
    );
    assert_eq!(names(d), ["bad.toml", "m", "p.toml"]);
}

/// Findings 1, 2 and 8: the run labels its own results (no rewrite after it); a label past the limit is cut
/// to 120 characters as labels are, so validate takes the folder.
#[test]
fn a_prediction_labels_its_own_results_within_the_label_limit() {
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    let long = "sim:capacity=268435456B,op=20.123456%,dies=3,jitter=10.123456%,gc=deferred,gc_pace=50.123456%,compression=true,seed=9223372036854775807,gc_free_superblocks=3,page=16KiB,block=256KiB";
    let (code, out, err) = predict(
        d,
        &[m.to_str().unwrap(), "p.toml", "--fitted", long, "-o", "b"],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        (lines[0], lines[lines.len() - 2]),
        ("results: b", "done: b/results.json")
    );
    let (r, _) = strict_results(&d.join("b"));
    let label = r.label.unwrap();
    assert_eq!(label.chars().count(), 120, "{label}");
    // The drive's name, every parameter off its default in the name's order, cut as labels are.
    assert_eq!(
        label,
        "predicted: sim:capacity=256MiB,op=20.123456%,block=256KiB,dies=3,compression=true,gc=deferred,gc_pace=50.123456%,jitter…"
    );
    let p = r.prediction.unwrap();
    assert_eq!(p.fitted_target, long);
    assert_eq!(p.measured, m.join("results.json").display().to_string());
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", "b"]));
    assert_eq!(code, 0, "{err}");
    // Only the run's own files: no temporary file of a rewrite.
    assert_eq!(
        names(&d.join("b")),
        ["00-w.csv", "00-w.device.csv", "00-w.hlog", "results.json"]
    );
}

/// Issue 24 leftover: `sim predict` prints what a run prints on stdout (the results folder, each phase's
/// result lines, `done:`), the same lines as a plain run of the spec on the fitted drive, and a `next:` line
/// for the prediction. Issue 30: the measurement (spec `m`) ran another spec than the prediction (`p`), so
/// comparing the two would show no phase of both: the line suggests the prediction's report, and, for
/// later, the report and comparison of a run of `p.toml` on the drive against it; both run as suggested,
/// the long run made here on the true drive.
#[test]
fn a_prediction_prints_the_runs_summary_and_what_to_do_next() {
    let (dir, _) = with_spec_and_measurement();
    let d = dir.path();
    // The measured run's folder, as `with_spec_and_measurement` made it.
    let (code, out, err) = predict(d, &["m/out", "p.toml", "--fitted", FITTED, "-o", "p"]);
    assert_eq!(code, 0, "{err}");
    // The oracle: a plain run of the same spec on the same drive, its folder named as the prediction's.
    let (code, plain, err) =
        code_out_err(&wkrun(d, &["p.toml", "--target", FITTED, "-q", "-o", "p2"]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let plain: Vec<String> = plain.lines().map(|l| l.replace("p2", "p")).collect();
    assert!(plain.len() > 3, "{plain:?}");
    assert_eq!(lines.len(), plain.len(), "{out}");
    assert_eq!(lines[..lines.len() - 1], plain[..plain.len() - 1]);
    assert_eq!(lines[0], "results: p");
    assert!(lines[1].starts_with("[phase 0] workload \"w\": "), "{out}");
    let (r, _) = strict_results(&d.join("p"));
    let totals = format!("      0 reads, {} writes in ", r.phases[0].write.ops);
    assert!(lines[2].starts_with(&totals), "{out}");
    assert_eq!(lines[lines.len() - 2], "done: p/results.json");
    let next = lines[lines.len() - 1];
    assert_eq!(
        next,
        "next: wkrun report p (the prediction's plots, index.html); m/out ran another spec, so it has no \
         phase to compare with the prediction: measure p.toml on the drive later (the long run) and compare \
         it against the prediction: wkrun report LONGRUN p (the prediction drawn over it); wkrun compare \
         LONGRUN p"
    );
    // The long run, on the true drive.
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &["p.toml", "--target", TRUTH, "-q", "-o", "long"],
    ));
    assert_eq!(code, 0, "{err}");
    // Each suggested command as printed, up to its parenthesis, runs (LONGRUN being the long run).
    let cmds: Vec<&str> = next["next: ".len()..].split("; ").collect();
    let cmds = [
        cmds[0],
        &cmds[1][cmds[1].find("wkrun report LONGRUN").unwrap()..],
        cmds[2],
    ];
    for (i, cmd) in cmds.iter().enumerate() {
        let words: Vec<&str> = cmd.split(" (").next().unwrap().split(' ').collect();
        let mut args: Vec<String> = words[1..]
            .iter()
            .map(|w| w.replace("LONGRUN", "long"))
            .collect();
        if words[1] == "report" {
            args.extend(["-o".to_string(), format!("rep{i}")]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, text, err) = code_out_err(&wkrun(d, &args));
        assert_eq!(code, 0, "{cmd}: {err}");
        if words[1] == "compare" {
            assert!(text.contains("predicted: "), "{text}");
        }
    }
    // The long run and the prediction paired in the report: the prediction drawn over run 1.
    let html = std::fs::read_to_string(d.join("rep1/index.html")).unwrap();
    let note = format!(
        "(prediction on {FITTED}, a drive given with --fitted, not fitted to m/out/results.json; paired with run 1 ({TRUTH}), a run of its spec: dashed over it in the charts)"
    );
    assert!(html.contains(&note), "{html}");
    assert!(d.join("rep0/index.html").is_file());
}

/// Issue 30: a prediction of the spec and phases its measurement ran suggests the report and the
/// comparison of both.
#[test]
fn a_prediction_of_the_measured_spec_suggests_comparing_both() {
    let (dir, _) = with_spec_and_measurement();
    let d = dir.path();
    let (code, _, err) = code_out_err(&wkrun(d, &["p.toml", "--target", TRUTH, "-q", "-o", "ms"]));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = predict(d, &["ms", "p.toml", "--fitted", FITTED, "-o", "p"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().last(),
        Some(
            "next: wkrun report ms p (the prediction drawn over its measurement); wkrun compare ms p \
             (side by side with its measurement)"
        )
    );
}

/// Issue 30 leftover (attack finding): a prediction is paired with its measurement, in the `next:` line and
/// in the report, only when each paired phase has the workload measured, read from both runs' `params`
/// (the duration may differ). specs/consistency.toml measured at 20 s: predicted at 40 s it is paired;
/// with `--set block_size=64KiB` its phases' block sizes differ from the measured, and with `--set
/// sweep.spare-area=50%` (the same spec file) its phases' spans do: the line says which phase and
/// parameter differ, with the values `results.json` of each holds, not "another spec"; the report draws
/// neither over the measurement, and a long run made with the prediction's --set, as suggested, pairs.
#[test]
fn a_prediction_of_other_workloads_is_not_paired_with_its_measurement() {
    let dir = tempdir();
    let d = dir.path();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/consistency.toml");
    std::fs::copy(spec, d.join("c.toml")).unwrap();
    let short = ["--set", "duration=20s"];
    let mut args = vec!["c.toml", "--target", TRUTH, "-q", "-o", "m"];
    args.extend(short);
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    let (m, _) = strict_results(&d.join("m"));
    let param = |r: &wkrun::results::Results, phase: &str, key: &str| {
        let p = r.phases.iter().find(|p| p.name == phase).unwrap();
        serde_json::to_value(&p.params).unwrap()[key].to_string()
    };
    let next = |out: &str, sets: &[&str]| {
        let mut args = vec!["m", "c.toml", "--fitted", FITTED, "-o", out];
        for s in sets {
            args.extend(["--set", s]);
        }
        let (code, stdout, err) = predict(d, &args);
        assert_eq!(code, 0, "{err}");
        stdout.lines().last().unwrap().to_string()
    };
    let sweep = "wkrun compare {p} --by spare-area (the sweep's members side by side); ";
    let later = "so it has no phase to compare with the prediction: measure c.toml with the prediction's --set on the drive later (the long run) and compare it against the prediction: wkrun report LONGRUN {p} (the prediction drawn over it); wkrun compare LONGRUN {p}";
    // `by`: the prediction's sweep has more than one member, so `--by` is suggested.
    let unpaired = |p: &str, why: String, by: bool| {
        let sweep = if by {
            sweep.replace("{p}", p)
        } else {
            String::new()
        };
        format!(
            "next: wkrun report {p} (the prediction's plots, index.html); {sweep}m {why}, {}",
            later.replace("{p}", p)
        )
    };
    // Longer: paired.
    assert_eq!(
        next("p7", &["duration=40s"]),
        format!(
            "next: wkrun report m p7 (the prediction drawn over its measurement); {}wkrun compare m p7 (side by side with its measurement)",
            sweep.replace("{p}", "p7")
        )
    );
    // The line of a prediction `p` made with `sets` whose phase `b` differs from the measured `a` in
    // `key` alone, with the values each results.json holds; `by` as for `unpaired`.
    let differs = |p: &str, sets: &[&str], a: &str, b: &str, key: &str, by: bool| {
        let line = next(p, sets);
        let (r, _) = strict_results(&d.join(p));
        let (x, y) = (param(&m, a, key), param(&r, b, key));
        let why = format!(
            "ran the same spec with other workloads (its phase \"{a}\" has {key} {x}, the prediction's \"{b}\" {key} {y}; only the duration may differ)"
        );
        assert_eq!(line, unpaired(p, why, by));
        (x, y, r)
    };
    // Another block size: the first phase that differs is the fill (128 KiB in the spec).
    let fill = "fill[spare-area=100%]";
    let (x, y, _) = differs(
        "p5",
        &["duration=20s", "block_size=64KiB"],
        fill,
        fill,
        "block_size_bytes",
        true,
    );
    assert_eq!((x.as_str(), y.as_str()), ("131072", "65536"));
    // Another span of the same spec file: the purge erases the whole drive whatever the member, the fill
    // is the first phase whose workload differs from the measured member's.
    let (x, y, p6) = differs(
        "p6",
        &["duration=20s", "sweep.spare-area=50%"],
        fill,
        "fill[spare-area=50%]",
        "span_bytes",
        // One member: `compare --by` would refuse it (attack 40, finding 6).
        false,
    );
    assert_eq!((x.as_str(), y.as_str()), ("268435456", "134217728"));
    assert_eq!(
        param(&m, "purge[spare-area=100%]", "span_bytes"),
        param(&p6, "purge[spare-area=50%]", "span_bytes")
    );
    // The report pairs as the line does: p7 over m, p5 and p6 over nothing.
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "m", "p5", "p6", "p7", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.join("rep/index.html")).unwrap();
    let head = format!(
        "(prediction on {FITTED}, a drive given with --fitted, not fitted to run 1 ({TRUTH}); "
    );
    let alone = format!(
        "{head}dashed in the charts; no run of its spec and phases with their workloads in this report to pair it with)"
    );
    let over = format!("{head}dashed over it in the charts)");
    assert_eq!(
        (html.matches(&alone).count(), html.matches(&over).count()),
        (2, 1),
        "{html}"
    );
    // The long run the line suggests, with the prediction's --set: p6 is drawn over it.
    let mut args = vec!["c.toml", "--target", TRUTH, "-q", "-o", "long"];
    args.extend(["--set", "duration=20s", "--set", "sweep.spare-area=50%"]);
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "long", "p6", "-o", "rep6"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.join("rep6/index.html")).unwrap();
    let note = format!(
        "(prediction on {FITTED}, a drive given with --fitted, not fitted to m/results.json; paired with run 1 ({TRUTH}), a run of its spec: dashed over it in the charts)"
    );
    assert!(html.contains(&note), "{html}");
}

/// Newcomer trial 38: `sim predict` takes a run's `--set` (a long spec shortened for a trial): the
/// prediction is the plain run of the spec with the same `--set` on the same drive, op for op; a bad
/// `--set` is refused as the run refuses it, word for word, before any run, nothing written.
#[test]
fn a_prediction_takes_the_runs_set_overrides() {
    let (dir, _) = with_spec_and_measurement();
    let d = dir.path();
    let set = ["--set", "duration=1s"];
    let mut args = vec!["m/out", "p.toml", "--fitted", FITTED, "-o", "ps"];
    args.extend(set);
    let (code, _, err) = predict(d, &args);
    assert_eq!(code, 0, "{err}");
    let mut plain = vec!["p.toml", "--target", FITTED, "-q", "-o", "ps2"];
    plain.extend(set);
    let (code, _, err) = code_out_err(&wkrun(d, &plain));
    assert_eq!(code, 0, "{err}");
    let (p, _) = strict_results(&d.join("ps"));
    let (q, _) = strict_results(&d.join("ps2"));
    assert_eq!(p.phases[0].write.ops, q.phases[0].write.ops);
    assert_eq!(p.phases[0].params.duration_ns, Some(1_000_000_000));
    assert!(p.prediction.is_some());
    let bad = ["--set", "duration=forever"];
    let mut args = vec!["m/out", "p.toml", "--fitted", FITTED, "-o", "pb"];
    args.extend(bad);
    let (code, out, err) = predict(d, &args);
    let mut plain = vec!["p.toml", "--target", FITTED, "-q", "-o", "pb2"];
    plain.extend(bad);
    let (pcode, _, perr) = code_out_err(&wkrun(d, &plain));
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", perr.as_str()));
    assert_eq!(pcode, 2);
    assert!(!d.join("pb").exists() && !d.join("pb2").exists());
}

/// `sim predict` of an hour of random writes (on [`FITTED`]) from a 40 s measurement in `d`,
/// started, into `d/k`, once its results.json is there: the child and the folder.
fn long_prediction(d: &Path) -> (Child, PathBuf) {
    write_file(d, "long.toml", &spec_text("long", &writes("3600s")));
    let m = measured(d, "40s");
    let out = d.join("k");
    let args = [
        "sim",
        "predict",
        m.to_str().unwrap(),
        "long.toml",
        "--fitted",
        FITTED,
        "-o",
        out.to_str().unwrap(),
    ];
    let c = start(d, &args, &[]);
    wait_for("results.json", || out.join("results.json").exists());
    (c, out)
}

/// Findings 6 and 12: SIGINT to `sim predict` stops its run (exit 130); the partial results say
/// interrupted and carry the prediction's label; no child is left.
#[test]
fn an_interrupted_prediction_exits_130_with_labelled_partial_results_and_no_child() {
    let dir = tempdir();
    let (c, out) = long_prediction(dir.path());
    let o = out.to_str().unwrap();
    signal(&c, "-INT");
    let r = c.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    let (res, _) = strict_results(&out);
    assert_eq!(res.status, wkrun::results::Status::Interrupted);
    assert_eq!(res.signal.as_deref(), Some("SIGINT"));
    assert!(res.label.unwrap().starts_with("predicted: "));
    assert_eq!(res.prediction.unwrap().fitted_target, FITTED);
    assert_eq!(processes_with(o), Vec::<u32>::new());
}

/// SIGKILL of `sim predict` leaves it no time to stop its run: the kernel ends the run (SIGTERM, asked for
/// when it started), which writes its partial results, interrupted and labelled, and leaves no process.
#[test]
fn a_killed_prediction_takes_its_run_with_it() {
    let dir = tempdir();
    let (c, out) = long_prediction(dir.path());
    let o = out.to_str().unwrap();
    let children = processes_with(o)
        .into_iter()
        .filter(|&p| p != c.id())
        .collect::<Vec<_>>();
    assert_eq!(children.len(), 1, "the prediction's run: {children:?}");
    signal(&c, "-KILL");
    let r = c.wait_with_output().unwrap();
    assert_eq!(r.status.code(), None, "killed");
    wait_for("the run to end", || processes_with(o).is_empty());
    let (res, _) = strict_results(&out);
    assert_eq!(res.status, wkrun::results::Status::Interrupted);
    assert_eq!(res.signal.as_deref(), Some("SIGTERM"));
    assert!(res.label.unwrap().starts_with("predicted: "));
}

/// Finding 6: SIGTERM to `sim fit` stops its candidate run and removes its scratch folder (exit 143).
#[test]
fn a_stopped_fit_leaves_no_child_and_no_scratch_folder() {
    let dir = tempdir();
    let d = dir.path();
    let m = measured(d, "900s");
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let c = start(d, &["sim", "fit", m.to_str().unwrap()], &[("TMPDIR", &tmp)]);
    wait_for("a candidate run", || {
        names(&tmp)
            .first()
            .is_some_and(|s| names(&tmp.join(s)).iter().any(|n| n == "run1"))
    });
    signal(&c, "-TERM");
    let r = c.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(names(&tmp), Vec::<String>::new());
    assert_eq!(processes_with(tmp.to_str().unwrap()), Vec::<u32>::new());
}

/// Finding 13: a TMPDIR among the device nodes or that is no folder is refused before anything is made.
#[test]
fn fit_refuses_a_temporary_folder_not_on_storage() {
    let dir = tempdir();
    let d = dir.path();
    let m = measured(d, "40s");
    let file = write_file(d, "afile", "x");
    for (tmp, why) in [
        (
            Path::new("/dev"),
            "/dev (TMPDIR) is on /dev's device nodes, not on storage",
        ),
        (file.as_path(), "(TMPDIR) is not a folder"),
    ] {
        let before = names(Path::new("/dev")).len();
        let o = Command::new(wkrun_bin())
            .args(["sim", "fit", m.to_str().unwrap()])
            .current_dir(d)
            .env("TMPDIR", tmp)
            .output()
            .unwrap();
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(why), "{err}");
        assert!(
            names(Path::new("/dev"))
                .iter()
                .all(|n| !n.starts_with("wkrun-fit-"))
        );
        assert!(names(Path::new("/dev")).len() <= before);
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// Finding 5: a duration that disagrees with the phase's rows is refused by validate and by sim fit (which
/// replayed it for days), naming the place.
#[test]
fn a_duration_that_contradicts_the_rows_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    let m = measured(d, "40s");
    let file = m.join("results.json");
    let mut r: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(r["phases"][2]["intervals"], 41);
    r["phases"][2]["params"]["duration_ns"] = serde_json::json!(1_000_000_000_000_000u64);
    std::fs::write(&file, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", m.to_str().unwrap()]));
    assert_eq!(code, 2, "{err}");
    let want = "phases[2].intervals: 41 rows do not fit params.duration_ns 1000000000000000 in rows of params.interval_ns 1000000000: a phase that ran to its bound and lasts 1000000000000000 ns has 1000000 to 1000001 rows";
    assert!(err.contains(want), "{err}");
    let t = Instant::now();
    let (code, out, err) = code_out_err(&wkrun(d, &["sim", "fit", m.to_str().unwrap()]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains(want), "{err}");
    assert!(t.elapsed() < Duration::from_secs(30));
}

/// Attack 24c: `--fitted` with another capacity than the measured drive's (`sim:capacity=1GiB` for a
/// 256 MiB measurement) ran and labelled its results a prediction of the measurement (exit 0). Refused now,
/// as `sim fit --capacity` refuses one, before anything runs.
#[test]
fn predict_refuses_a_fitted_drive_of_another_capacity() {
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    let m = m.to_str().unwrap();
    let (code, out, err) = predict(
        d,
        &[m, "p.toml", "--fitted", "sim:capacity=1GiB", "-o", "pf3"],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: --fitted sim:capacity=1GiB: its capacity, 1073741824 B, disagrees with the measured results {m}/results.json, whose target has {} B: a prediction of them runs on a drive of their capacity (give the target `wkrun sim fit` printed for them, or leave out --fitted to fit it); nothing was run",
            256u64 << 20
        )
    );
    assert_eq!(names(d), ["m", "p.toml"]);
    // The same capacity written otherwise (in bytes, or a few bytes over: the simulator takes whole 4 KiB
    // units) is the measured drive's.
    for (fitted, out) in [
        ("sim:capacity=268435456B,op=20%", "b1"),
        ("sim:capacity=268435457B,op=20%", "b2"),
    ] {
        let (code, _, err) = predict(d, &[m, "p.toml", "--fitted", fitted, "-o", out]);
        assert_eq!(code, 0, "{fitted}: {err}");
    }
}

/// Attack 24c F22: a spec no simulated drive can run (`workers = 4`) was found only after the whole fit
/// (9 simulated runs). It is planned on a simulated drive of the measured capacity first: exit 2 with the
/// spec's file, line and key, no simulated run (no `fit:` line, no scratch folder), nothing written.
#[test]
fn predict_checks_the_spec_on_a_simulated_drive_before_the_fit() {
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    let m = m.to_str().unwrap();
    write_file(
        d,
        "wk4.toml",
        &spec_text(
            "wk4",
            &writes("2s").replace("read_percent = 0\n", "read_percent = 0\nworkers = 4\n"),
        ),
    );
    let text = std::fs::read_to_string(d.join("wk4.toml")).unwrap();
    let line = text.lines().position(|l| l == "workers = 4").unwrap() + 1;
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for (fitted, when) in [(None, "the fit"), (Some(FITTED), "the run")] {
        let mut args = vec!["sim", "predict", m, "wk4.toml", "-o", "pw4"];
        args.extend(fitted.map(|f| ["--fitted", f]).into_iter().flatten());
        let o = Command::new(wkrun_bin())
            .args(&args)
            .current_dir(d)
            .env("TMPDIR", &tmp)
            .output()
            .unwrap();
        let (code, out, err) = code_out_err(&o);
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        let gutter = " ".repeat(line.to_string().len() + 1);
        let want = format!(
            "error: wk4.toml:{line}:1: phase[0] \"w\".workers: workers = 4: the simulated drive runs one worker (its virtual clock is one submitter's)\n{gutter} |\n {line} | workers = 4\n{gutter} | ^^^^^^^\n  help: use workers = 1 on a simulated target\n  note: the spec was planned on a simulated drive of the measured capacity, {} B, before {when}; nothing was run",
            256u64 << 20
        );
        assert_eq!(err.trim_end(), want);
        assert_eq!(names(&tmp), Vec::<String>::new());
        assert_eq!(names(d), ["m", "p.toml", "tmp", "wk4.toml"]);
    }
}

/// Attack 24c F14: `sim fit` with a full TMPDIR passed on its first run's "choose another --output folder"
/// (of a folder the user never named). Its room is checked before the first simulated run: exit 1 (a
/// resource), saying to set TMPDIR, no scratch folder left.
#[test]
fn fit_refuses_a_temporary_folder_without_room_before_the_first_run() {
    let test = "predict_hard::fit_refuses_a_temporary_folder_without_room_before_the_first_run";
    let dir = tempdir();
    let d = dir.path();
    let tmp = match Mount::tmpfs(d.join("tfs"), "40k") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let m = measured(d, "40s");
    // The oracle of the room: the tmpfs's own count (statvfs through df), not wkrun's.
    let df = Command::new("df")
        .args(["-B1", "--output=avail"])
        .arg(&tmp.dir)
        .output()
        .unwrap();
    let free: u64 = String::from_utf8_lossy(&df.stdout)
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("df's available bytes");
    assert!(free < 65536, "{free}");
    for args in [
        vec!["sim", "fit", m.to_str().unwrap()],
        vec!["sim", "predict", m.to_str().unwrap(), "p.toml", "-o", "pr"],
    ] {
        write_file(d, "p.toml", &spec_text("p", &writes("2s")));
        let o = Command::new(wkrun_bin())
            .args(&args)
            .current_dir(d)
            .env("TMPDIR", &tmp.dir)
            .output()
            .unwrap();
        let (code, out, err) = code_out_err(&o);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        // The room one simulated run of the measured purge, fill and 40 s of writes takes (runner::room_for):
        // 64 KiB and 256 KiB for the run, 48 KiB a phase, 1 KiB for each of the workload's 41 rows.
        let need = 65536 + 262144 + 3 * 49152 + 41 * 1024;
        assert_eq!(
            err.trim_end(),
            format!(
                "error: the temporary folder {} (TMPDIR) has {free} B free, less than the {need} B a simulated run of the measured phases takes (its results, series and the room it keeps); set TMPDIR to a folder with at least {need} B free; nothing was run",
                tmp.dir.display()
            ),
            "{args:?}"
        );
        assert_eq!(names(&tmp.dir), Vec::<String>::new());
        assert!(!d.join("pr").exists());
    }
}

/// Attack 40 F3 and F4: a measured folder whose path holds a control or format character (ESC, TAB,
/// U+202E) ran every phase of the prediction, then failed its own results' check; one that is not UTF-8
/// lost `measured_run_started_at`. Each is refused before anything runs (exit 2, nothing written), as
/// `-o` refuses a path that is not UTF-8.
#[test]
fn predict_refuses_a_measured_path_its_results_cannot_record() {
    use std::os::unix::ffi::OsStrExt;
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    for (name, shown, why) in [
        (
            &b"e\x1b[31mx"[..],
            "e\\u{1b}[31mx",
            "the control character '\\u{1b}'",
        ),
        (&b"tab\tx"[..], "tab\\tx", "the control character '\\t'"),
        (
            "u\u{a0}\u{202e}x".as_bytes(),
            "u\\u{a0}\\u{202e}x",
            "the format character '\\u{202e}'",
        ),
    ] {
        let path = d.join(std::ffi::OsStr::from_bytes(name));
        std::fs::rename(&m, &path).unwrap();
        let o = Command::new(wkrun_bin())
            .current_dir(d)
            .args(["sim", "predict"])
            .arg(std::ffi::OsStr::from_bytes(name))
            .args(["p.toml", "--fitted", FITTED, "-o", "out"])
            .output()
            .unwrap();
        let (code, out, err) = code_out_err(&o);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                format!(
                    "error: {shown}: the path holds {why}, which a prediction's results.json cannot record (prediction.measured is plain text, as a label is): rename or link the folder without it; nothing was run\n"
                )
                .as_str()
            )
        );
        assert!(!d.join("out").exists(), "{shown}: nothing written");
        std::fs::rename(&path, &m).unwrap();
    }
    let path = d.join(std::ffi::OsStr::from_bytes(b"nu\xffx"));
    std::fs::rename(&m, &path).unwrap();
    let o = Command::new(wkrun_bin())
        .current_dir(d)
        .args(["sim", "predict"])
        .arg(std::ffi::OsStr::from_bytes(b"nu\xffx"))
        .args(["p.toml", "--fitted", FITTED, "-o", "out"])
        .output()
        .unwrap();
    assert_eq!(
        code_out_err(&o),
        (
            2,
            String::new(),
            "error: nu\\xffx: the path is not valid UTF-8 (shown with its bytes escaped); a prediction records the measured results' path in its results.json, which is UTF-8, and would name another file: give a UTF-8 path; nothing was run\n".to_string()
        )
    );
    assert!(!d.join("out").exists());
}

/// Trial 40, problem 2: `sim predict` went ahead on a fit that had just warned that its plateau, dies and
/// program time could be off by tens of %, and the prediction kept no trace of it (5 to 28 % off the true
/// drive). Its results now record the fit's warnings (`prediction.fit_warnings`), exactly as `sim fit`
/// says them on stderr (the oracle: its `warning: ` lines); `compare` says the first under its table and
/// `report` all of them beside the prediction's legend entry; a `--fitted` prediction records none.
#[test]
fn a_prediction_keeps_the_warnings_of_its_fit() {
    let dir = tempdir();
    let d = dir.path();
    // A small drive with small blocks, measured at 1 s: its plateau lasts 1 interval (warned of; the fill,
    // to which dies / program time are fitted, is matched).
    let truth = "sim:capacity=64MiB,op=7%,block=256KiB";
    write_file(d, "m.toml", &spec_text("m", &wsat("60s")));
    write_file(d, "p.toml", &spec_text("p", &writes("2s")));
    let (code, _, err) = code_out_err(&wkrun(d, &["m.toml", "--target", truth, "-q", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let (code, out, fit_err) = code_out_err(&wkrun(d, &["sim", "fit", "m"]));
    assert_eq!(code, 0, "{fit_err}");
    let fitted = out.lines().last().unwrap().to_string();
    let oracle: Vec<&str> = fit_err
        .lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .collect();
    assert_eq!(oracle.len(), 1, "{fit_err}");
    assert!(
        oracle[0].starts_with("phase \"wsat\"'s fresh plateau lasts 1 interval(s) of 1s"),
        "{fit_err}"
    );
    // Quiet (trial P10): no fit progress, account or warning on stderr, the warnings recorded all the same.
    let (code, quiet_out, err) = predict(d, &["m", "p.toml", "-o", "p", "-q"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (_, r) = strict_results(&d.join("p"));
    let recorded: Vec<&str> = r["prediction"]["fit_warnings"]
        .as_array()
        .expect("fit_warnings")
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(recorded, oracle);
    assert_eq!(r["prediction"]["fitted_target"], fitted.as_str());
    // Fitted by this prediction: not said to be given.
    assert_eq!(r["prediction"].get("target_given"), None);
    // Given the target, no fit ran: nothing recorded.
    let (code, out, err) = predict(d, &["m", "p.toml", "--fitted", &fitted, "-o", "pf"]);
    assert_eq!(code, 0, "{err}");
    // The same drive, the same lines on stdout (but the folder's name) as the quiet prediction's.
    assert_eq!(quiet_out, out.replace(" pf", " p").replace("\npf", "\np"));
    let (_, r) = strict_results(&d.join("pf"));
    assert_eq!(
        r["prediction"].get("fit_warnings"),
        None,
        "{}",
        r["prediction"]
    );
    // The drive was given, not fitted (attack 15: any drive of the capacity was labelled as fitted to m):
    // recorded, and the report's run list says so.
    assert_eq!(r["prediction"]["target_given"], true);
    // compare: the first warning, once, under the table.
    let (code, out, err) = code_out_err(&wkrun(d, &["compare", "pf", "p"]));
    assert_eq!(code, 0, "{err}");
    let more = match oracle.len() - 1 {
        0 => String::new(),
        n => format!(" (and {n} more: results.json, prediction.fit_warnings)"),
    };
    let line = format!("a prediction whose fit warned: {}{more}", oracle[0]);
    assert_eq!(out.matches(&line).count(), 1, "{out}");
    // report: all of them beside its legend entry.
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "m", "p", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.join("rep/index.html")).unwrap();
    let xml = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;")
    };
    let said = format!("; its fit warned: {})", xml(&oracle.join("; ")));
    assert_eq!(html.matches(&said).count(), 1, "{said}");
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "m", "pf", "-o", "repf"]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.join("repf/index.html")).unwrap();
    let label = results(&d.join("m"))["label"].as_str().unwrap().to_string();
    let given = format!(
        "(prediction on {}, a drive given with --fitted, not fitted to run 1 ({}); dashed in the charts;",
        xml(&fitted),
        xml(&label)
    );
    assert_eq!(html.matches(&given).count(), 1, "{given}\n{html}");
}

/// Review item 5: `compare` matched a prediction's phases with the measured ones by name alone, so a
/// prediction of 64 KiB writes stood beside a measurement of 4 KiB ones as its prediction. A predicted
/// phase whose workload differs from its measured namesake's (the report's pairing, `plan/pairing.rs`) is
/// compared apart, on rows of its own, with a line under the table saying how; one of the same workload
/// (only the duration differs) is compared with it.
#[test]
fn compare_pairs_a_predicted_phase_only_with_a_measured_one_of_its_workload() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "c.toml", &spec_text("c", &writes("2s")));
    let target = "sim:capacity=64MiB,op=7%,block=256KiB";
    let (code, _, err) = code_out_err(&wkrun(d, &["c.toml", "--target", target, "-q", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    for (out, set) in [("p4", "duration=1s"), ("p64", "block_size=64KiB")] {
        let args = [
            "m", "c.toml", "--fitted", target, "--set", set, "-q", "-o", out,
        ];
        let (code, _, err) = predict(d, &args);
        assert_eq!((code, err.as_str()), (0, ""));
    }
    let (code, table, err) = code_out_err(&wkrun(d, &["compare", "m", "p4", "p64"]));
    assert_eq!((code, err.as_str()), (0, ""));
    let m = format!("{target},dies=1");
    let line = format!(
        "\nnote: predicted: {m} (p64): phase \"w\" is not compared with {m}'s: its workload has block_size_bytes 65536, the measurement's block_size_bytes 4096 (only the duration may differ); its rows are \"w (predicted, another workload)\"\n"
    );
    assert!(table.ends_with(&line), "{table}");
    let (code, csv, _) = code_out_err(&wkrun(d, &["compare", "m", "p4", "p64", "--format", "csv"]));
    assert_eq!(code, 0);
    let iops = |dir: &str| {
        let (_, r) = strict_results(&d.join(dir));
        format!("{:.1}", r["phases"][0]["write"]["iops"].as_f64().unwrap())
    };
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",\"IOPS, phase mean\","))
        .collect();
    assert_eq!(rows.len(), 2, "{csv}");
    // The same workload side by side (the duration differs); the other apart.
    let paired = format!("w,\"IOPS, phase mean\",{},{},", iops("m"), iops("p4"));
    assert!(
        rows[0].starts_with(&paired) && rows[0].ends_with(",missing,"),
        "{csv}"
    );
    let apart = format!(
        "\"w (predicted, another workload)\",\"IOPS, phase mean\",missing,missing,,{},",
        iops("p64")
    );
    assert_eq!(rows[1], apart, "{csv}");
    // The composite: p4 against m; p64 has no phase paired with m's.
    let composite = csv.lines().last().unwrap();
    assert!(composite.ends_with(",-,"), "{composite}");
}

/// Review of session 15: `sim predict` started with SIGTERM ignored (as a parent's `trap '' TERM` leaves it,
/// kept across exec) gave its run the death signal SIGTERM ignored, so the run outlived a killed `sim
/// predict`. The run now starts with SIGTERM at its default action: SIGKILL to `sim predict` ends its run.
#[test]
fn a_prediction_killed_ends_its_run_though_it_was_started_with_sigterm_ignored() {
    use std::os::unix::process::CommandExt;
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "long.toml", &spec_text("long", &writes("3600s")));
    let m = measured(d, "40s");
    let out = d.join("k");
    let o = out.to_str().unwrap();
    let mut cmd = Command::new(wkrun_bin());
    cmd.args([
        "sim",
        "predict",
        m.to_str().unwrap(),
        "long.toml",
        "--fitted",
        FITTED,
        "-o",
        o,
    ])
    .current_dir(d)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    // SAFETY: signal() is async-signal-safe; SIG_IGN is a valid disposition for SIGTERM.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
            Ok(())
        })
    };
    let mut c = cmd.spawn().unwrap();
    let parent = c.id();
    let t = Instant::now();
    while !processes_with(o).iter().any(|&p| p != parent) {
        assert!(t.elapsed() < Duration::from_secs(60), "never: the run");
        std::thread::sleep(Duration::from_millis(5));
    }
    c.kill().unwrap();
    c.wait().unwrap();
    wait_for("the run to end with sim predict", || {
        processes_with(o).is_empty()
    });
}

/// Attack 13 F3: SIGINT to the process group (as `timeout -s INT` sends it) just as `sim predict` starts
/// its run, at once and up to 40 ms after the run's process appears: the run holds the signal until its
/// handler is in place (it once died of it, and `sim predict` exited 1 with no results, 11 signals in
/// 29 near the start), so each exits 130 with results that say interrupted, labelled, or, before the run
/// started, nothing left (attack 15 F2), and no process is left.
#[test]
fn a_signal_as_the_prediction_starts_its_run_exits_130_with_labelled_results() {
    use std::os::unix::process::CommandExt;
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "long.toml", &spec_text("long", &writes("3600s")));
    let m = measured(d, "40s");
    for (i, after_ms) in [0u64, 0, 1, 2, 5, 10, 20, 40].into_iter().enumerate() {
        let out = d.join(format!("k{i}"));
        let o = out.to_str().unwrap();
        let args = [
            "sim",
            "predict",
            m.to_str().unwrap(),
            "long.toml",
            "--fitted",
            FITTED,
            "-o",
            o,
        ];
        let c = Command::new(wkrun_bin())
            .args(args)
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let group = c.id();
        let t = Instant::now();
        while !processes_with(o).iter().any(|&p| p != group) {
            assert!(t.elapsed() < Duration::from_secs(60), "never: the run");
            std::thread::sleep(Duration::from_micros(200));
        }
        std::thread::sleep(Duration::from_millis(after_ms));
        let sent = Command::new("kill")
            .args(["-INT", "--", &format!("-{group}")])
            .status()
            .unwrap();
        assert!(sent.success());
        let r = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(130), "{after_ms} ms: {err}");
        wait_for("the run to end", || processes_with(o).is_empty());
        // A signal before the run started its first phase leaves nothing (attack 15 F2: the folder and
        // any target made are removed); after, the results say interrupted.
        if err.ends_with(&format!("error: interrupted by SIGINT before the run started: nothing was written; removed what was made for the run: the output folder {o}\n")) {
            assert!(!out.exists(), "{after_ms} ms: {} is left", out.display());
            continue;
        }
        assert!(
            err.ends_with(&format!(
                "error: interrupted by SIGINT; partial results in {o}\n"
            )),
            "{after_ms} ms: {err}"
        );
        let (res, _) = strict_results(&out);
        assert_eq!(
            res.status,
            wkrun::results::Status::Interrupted,
            "{after_ms} ms"
        );
        assert_eq!(res.signal.as_deref(), Some("SIGINT"));
        assert_eq!(res.label.unwrap(), format!("predicted: {DRIVE}"));
        assert_eq!(res.prediction.unwrap().fitted_target, FITTED);
    }
}

/// Attack 13 F13: the hidden `--predicted-from` on a run whose target is a file labelled a measurement
/// "predicted:": refused (exit 2), nothing written, the target not made.
#[test]
fn predicted_from_on_a_file_target_is_refused() {
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    let file = m.join("results.json");
    let (code, out, err) = code_out_err(&wkrun(
        d,
        &[
            "p.toml",
            "--target",
            "t.img",
            "-o",
            "o",
            "--predicted-from",
            file.to_str().unwrap(),
        ],
    ));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: --predicted-from is for a run on the fitted simulated drive (--target sim:...), not on t.img: a run on a file or device is a measurement, not a prediction; nothing was written\n"
        )
    );
    assert!(!d.join("o").exists() && !d.join("t.img").exists());
}

/// Trial 13 F10: a spec whose own `[target]` is a 1 GiB file, predicted on the fitted 256 MiB drive, says
/// that the fitted drive replaced it, on stderr and in the prediction's results (`prediction.notes`).
#[test]
fn a_prediction_says_the_fitted_drive_replaced_the_spec_s_target() {
    let (dir, m) = with_spec_and_measurement();
    let d = dir.path();
    let body = format!(
        "[target]\npath = \"t.img\"\nsize = \"1GiB\"\n{}",
        writes("2s")
    );
    write_file(d, "f.toml", &spec_text("f", &body));
    let (code, _, err) = predict(
        d,
        &[m.to_str().unwrap(), "f.toml", "--fitted", FITTED, "-o", "p"],
    );
    assert_eq!(code, 0, "{err}");
    let note = format!(
        "the spec's target t.img (size = 1GiB) is replaced by the fitted drive {DRIVE}, of 268435456 B (256MiB): a prediction runs on the drive fitted to the measured results, at their capacity"
    );
    assert!(err.contains(&format!("note: {note}\n")), "{err}");
    let (res, _) = strict_results(&d.join("p"));
    assert_eq!(res.prediction.unwrap().notes, vec![note]);
    assert!(!d.join("t.img").exists());
}

/// fio's JSON output (which `compare` reads) and merged results are refused by `sim fit` and `sim predict`
/// with the reason, before anything runs (attack 13, findings 14 and 15: fio's JSON was refused as "a file"
/// or planned on a drive of 0 B; two hosts merged were fitted as one drive of their summed IOPS; a run on
/// two targets was refused for having no random-write phase).
#[test]
fn fios_json_and_merged_results_are_refused_naming_what_to_fit() {
    let dir = tempdir();
    let d = dir.path();
    let fio = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio/fio-3.33-json-plus.json");
    std::fs::copy(&fio, d.join("fio.json")).unwrap();
    write_file(d, "p.toml", &spec_text("p", &writes("1s")));
    let before = names(d);
    let want = "error: fio.json: fio's JSON output (fio-3.33), not a wkrun results folder: the fit needs a wkrun run's per-interval series (its write IOPS second by second, to find the write cliff and the steady level), and fio writes only each job's totals; run the job with wkrun instead: wkrun import fio JOB -o job.toml, then wkrun job.toml --target DEVICE (after an erase and a fill, as specs/consistency.toml does), and fit that run's folder\n";
    assert_eq!(
        code_out_err(&wkrun(d, &["sim", "fit", "fio.json"])),
        (2, String::new(), want.to_string())
    );
    assert_eq!(
        predict(d, &["fio.json", "p.toml"]),
        (2, String::new(), want.to_string())
    );
    assert_eq!(names(d), before, "nothing written");
    // A run on two targets (its aggregate), and two runs merged as hosts.
    let two = [
        "p.toml",
        "--target",
        "sim:capacity=64MiB,op=20%,block=256KiB",
        "--target",
        "sim:capacity=64MiB,op=25%,block=256KiB",
        "-q",
        "-o",
        "two",
    ];
    assert_eq!(code_out_err(&wkrun(d, &two)).0, 0);
    for rank in ["0", "1"] {
        let out = format!("h{rank}");
        let args = [
            "p.toml",
            "--target",
            "sim:capacity=64MiB,op=20%,block=256KiB",
            "--rank",
            rank,
            "-q",
            "-o",
            &out,
        ];
        assert_eq!(code_out_err(&wkrun(d, &args)).0, 0);
    }
    assert_eq!(
        code_out_err(&wkrun(d, &["merge", "h0", "h1", "-o", "m"])).0,
        0
    );
    let merged = |f: &str, each: &str| {
        format!(
            "error: {f}: the results of 2 runs merged (wkrun merge of hosts, or the aggregate of a run on several targets): their I/Os are several drives' added up, and the fit models one drive; fit each run's own results instead: {each}\n"
        )
    };
    let aggregate = merged(
        "two/results.json",
        "two/t0-sim-64MiB-op20-block256KiB/results.json, two/t1-sim-64MiB-op25-block256KiB/results.json",
    );
    let hosts = merged("m/results.json", "h0/results.json, h1/results.json");
    for (folder, want) in [("two", &aggregate), ("m", &hosts)] {
        let before = names(d);
        assert_eq!(
            code_out_err(&wkrun(d, &["sim", "fit", folder])),
            (2, String::new(), want.clone())
        );
        assert_eq!(
            predict(d, &[folder, "p.toml"]),
            (2, String::new(), want.clone())
        );
        assert_eq!(names(d), before, "nothing written");
    }
}

/// Predictions of one fit merge into a prediction (attack 13, finding 10: `merge` dropped `prediction` and
/// kept the `predicted: ` label); a prediction and a measurement do not merge, exit 2, nothing written.
#[test]
fn merged_predictions_of_one_fit_stay_a_prediction() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "p.toml", &spec_text("p", &writes("1s")));
    let drive = "sim:capacity=64MiB,op=20%,block=256KiB";
    let fitted = "sim:capacity=64MiB,op=25%,block=256KiB";
    let run = ["p.toml", "--target", drive, "-q", "-o", "m"];
    assert_eq!(code_out_err(&wkrun(d, &run)).0, 0);
    for out in ["pa", "pb"] {
        let (c, _, e) = predict(d, &["m", "p.toml", "--fitted", fitted, "-o", out, "-q"]);
        assert_eq!(c, 0, "{e}");
    }
    let (c, _, e) = code_out_err(&wkrun(d, &["merge", "pa", "pb", "-o", "pm"]));
    assert_eq!(c, 0, "{e}");
    let (a, m) = (results(&d.join("pa")), results(&d.join("pm")));
    let measured = results(&d.join("m"));
    assert_eq!(
        m["prediction"],
        serde_json::json!({
            "measured": "m/results.json",
            "fitted_target": fitted,
            "measured_run_started_at": measured["started_at"],
            "measured_run_target": "sim:capacity=64MiB,op=20%,block=256KiB,dies=1",
            "target_given": true,
        })
    );
    assert_eq!(m["prediction"], a["prediction"]);
    assert_eq!(
        m["label"],
        "predicted: sim:capacity=64MiB,op=25%,block=256KiB,dies=1"
    );
    let (c, out, e) = code_out_err(&wkrun(d, &["merge", "pa", "m", "-o", "mixed"]));
    assert_eq!(
        (c, out.as_str(), e.as_str()),
        (
            2,
            "",
            "error: pa/results.json is a prediction (wkrun sim predict from m/results.json on sim:capacity=64MiB,op=25%,block=256KiB) and m/results.json is a measurement: merge predictions of one fit together, or measurements\n"
        )
    );
    assert!(!d.join("mixed").exists());
}

/// Trial 25 F3: `compare M P --by op` of a measured sweep and its prediction put each predicted member on
/// rows of its own, "predicted for another workload", though the plain compare pairs them: `--by` renames
/// each member's phase to its name without the label, and each predicted member's was set against every
/// measured member's by that name. A predicted phase predicts the measured one of its name and labels, in
/// the rows and the composite alike: here every member is on the rows of `w`, each against the first
/// column, and each scored.
#[test]
fn compare_by_a_sweep_pairs_each_predicted_member_with_its_measured_one() {
    let dir = tempdir();
    let d = dir.path();
    let body = format!(
        "{}[[sweep]]\nname = \"op\"\nphases = [\"w\"]\nspan = [\"100%\", \"50%\"]\n",
        writes("2s")
    );
    write_file(d, "c.toml", &spec_text("c", &body));
    let target = "sim:capacity=64MiB,op=7%,block=256KiB";
    let (code, _, err) = code_out_err(&wkrun(d, &["c.toml", "--target", target, "-q", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let args = ["m", "c.toml", "--fitted", target, "-q", "-o", "p"];
    let (code, _, err) = predict(d, &args);
    assert_eq!((code, err.as_str()), (0, ""));
    let iops = |dir: &str, i: usize| {
        let (_, r) = strict_results(&d.join(dir));
        r["phases"][i]["write"]["iops"].as_f64().unwrap()
    };
    let (code, table, err) = code_out_err(&wkrun(d, &["compare", "m", "p", "--by", "op"]));
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(!table.contains("another workload"), "{table}");
    let (code, csv, err) = code_out_err(&wkrun(
        d,
        &["compare", "m", "p", "--by", "op", "--format", "csv"],
    ));
    assert_eq!((code, err.as_str()), (0, ""));
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",\"IOPS, phase mean\","))
        .collect();
    let pct = |v: f64| format!("{:.1}", (v / iops("m", 0) - 1.0) * 100.0);
    let want = format!(
        "w,\"IOPS, phase mean\",{:.1},{:.1},{},{:.1},{},{:.1},{}",
        iops("m", 0),
        iops("m", 1),
        pct(iops("m", 1)),
        iops("p", 0),
        pct(iops("p", 0)),
        iops("p", 1),
        pct(iops("p", 1)),
    );
    assert_eq!(rows, [want.as_str()], "{csv}");
    // The composite scores every column, the predicted op=50% against the measured op=100% as the measured
    // op=50% is; no note.
    let composite = csv.lines().last().unwrap();
    let ratio = |v: f64| format!("{:.3}", v / iops("m", 0));
    let want = format!(
        ",1.000,{},{},{},{},{},{}",
        ratio(iops("m", 1)),
        pct(iops("m", 1)),
        ratio(iops("p", 0)),
        pct(iops("p", 0)),
        ratio(iops("p", 1)),
        pct(iops("p", 1)),
    );
    assert!(composite.ends_with(&want), "{want} in {composite}");
    assert!(!csv.contains("predicted for another workload"), "{csv}");
}
