//! Trial 26 M1: fio's steady state read from its JSON. fio ends a job the moment its `steadystate`
//! criterion holds over its window (`ss_dur`), so its figures cover that stretch only; its JSON says so
//! (`steadystate.attained`, `job_runtime`) and the results read from it now carry the verdict, in wkrun's
//! terms, with a warning, and compare notes a job fio stopped beside a wkrun phase that ran on.

use crate::common::{code_out_err, run_ok, tempdir, wkrun};
use crate::fio_mixsync::cells;
use crate::fio_trial::{run_fio, with_fio};
use std::path::{Path, PathBuf};
use wkrun::stats::steady::{FioKind, FioMetric, FioRule, Rule};

/// Trial 26's fio JSON (tests/data/fio): its job `randwrite`, `steadystate=iops_slope:10%`, `ss_dur=5s`,
/// `runtime=20s`, stopped at steady state after 5559 ms.
fn trial_json() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio/fio-3.33-trial26-steadystate.json")
}

/// The warning of trial 26's job `randwrite`.
const TRIAL_WARNING: &str = "fio stopped this job at steady state (iops_slope:10.000000% over 5 s) 5.559 s into it, of its runtime 20 s: its figures are of those 5.6 s only, where a wkrun phase with steady_state runs on to its bound (unless until = \"steady\"); read as steady_state { rule = \"fio\", metric = \"iops\", kind = \"slope\", limit = 0.1, relative = true, window = 5 } in rounds of 1 s; fio gives its last window's 5 samples only, not the series before them nor when each was taken: the rounds before the window are counted as whole rounds of its runtime, and the window's statistics are of those samples";

/// The fixture's job `randwrite` read with its verdict: attained at fio's job_runtime (5.559 s), its
/// criterion as wkrun's fio rule, the window's statistics from fio's five samples (19712, 10449, 11003,
/// 17582, 16966: mean 15142.4, least-squares slope 164.1 a round, as fio's `slope` says), ended by it, at
/// the earliest the rule allows; its headline has the time and the window mean; no other job has a verdict.
#[test]
fn fio_steady_state_is_the_phase_verdict() {
    let bytes = std::fs::read(trial_json()).expect("fixture");
    let r = wkrun::fio::json::from_bytes("fio.json", &bytes).expect("reads");
    let p = r
        .phases
        .iter()
        .find(|p| p.name == "randwrite")
        .expect("randwrite");
    let s = p.steady_state.as_ref().expect("a verdict");
    assert_eq!(
        s.criterion,
        Rule::Fio(FioRule {
            metric: FioMetric::Iops,
            kind: FioKind::Slope,
            limit: 0.1,
            relative: true,
            window: 5
        })
    );
    assert_eq!(
        (s.reached, s.ended_phase, s.at_rule_floor),
        (true, true, true)
    );
    assert_eq!(
        (s.at_s, s.window_s, s.earliest_at_s),
        (Some(5.559), 5.0, Some(5.0))
    );
    assert_eq!(
        (s.window_start_s, s.window_end_s),
        (Some(5.559 - 5.0), Some(5.559))
    );
    assert_eq!(
        (s.judged_from_s, s.not_judged.as_deref()),
        (Some(0.0), None)
    );
    let v = &s.verdict;
    let samples = [19712.0, 10449.0, 11003.0, 17582.0, 16966.0];
    let mean = samples.iter().sum::<f64>() / 5.0;
    assert!((v.window_mean - mean).abs() < 1e-9, "{}", v.window_mean);
    assert!((v.slope - 164.1).abs() < 1e-9, "{}", v.slope);
    assert_eq!((v.window_min, v.window_max), (10449.0, 19712.0));
    assert_eq!(
        (v.at_round, v.rounds_seen, v.window_first_round),
        (Some(4), 5, 0)
    );
    assert_eq!(
        s.verdict_text(),
        "reached at 5.6 s, the earliest the rule allows (its first window)"
    );
    let fig = |k: &str| p.headline.iter().find(|f| f.key == k).and_then(|f| f.value);
    assert_eq!(fig("steady at_s"), Some(5.559));
    assert_eq!(fig("steady window_mean"), Some(v.window_mean));
    assert!(fig("mean iops").is_some());
    assert_eq!(
        p.warnings.iter().filter(|w| *w == TRIAL_WARNING).count(),
        1,
        "{:#?}",
        p.warnings
    );
    let others: Vec<&str> = (r.phases.iter())
        .filter(|p| p.steady_state.is_some())
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(others, ["randwrite"]);
    // `wkrun warnings` says it.
    let d = tempdir();
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["warnings", trial_json().to_str().expect("utf-8")],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(TRIAL_WARNING), "{out}");
}

/// A wkrun phase `randwrite` of the null engine, 2 s, with `steady` (a steady_state line) or none; its folder.
fn wkrun_randwrite(dir: &Path, steady: &str) -> PathBuf {
    let body = format!(
        "[defaults]\nengine = \"null\"\ndirect = false\n[[phase]]\nname = \"randwrite\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"2s\"\n{steady}\n"
    );
    let target = dir.join("t.img");
    std::fs::write(&target, vec![0u8; 1 << 20]).expect("target");
    run_ok(dir, "rw", &body, &target)
}

/// compare: fio's job stopped at steady state beside a wkrun phase that ran its whole 2 s: the whole-phase
/// rows have no change and the note says each window; the steady rows are set side by side; the composite
/// scores the pair on the steady window means (fio's 15142.4) where both have one, and leaves it out
/// where the wkrun phase has no steady state.
#[test]
fn compare_notes_fio_stopped_at_steady_state_beside_a_whole_phase() {
    let fio = trial_json();
    let fio = fio.to_str().expect("utf-8");
    // Each column is headed by its label (fio's) or target.
    let note = "not compared: fio: fio-3.33-trial26-steadystate.json: ended at steady state at 5.6 s; {wk}: ran its whole {secs} s; a phase stopped at steady state and one that ran on measured different windows, so these whole-phase rows have no change; the steady-state rows set the windows each judged side by side, and the composite scores the pair on its steady window means where both have one, else leaves it out";
    for steady in [
        "steady_state = { rule = \"fio\", metric = \"iops\", kind = \"deviation\", limit = 10.0, relative = true, window = 2 }",
        "",
    ] {
        let d = tempdir();
        let out = wkrun_randwrite(d.path(), steady);
        let (code, text, err) = code_out_err(&wkrun(
            d.path(),
            &["compare", fio, out.to_str().expect("utf-8")],
        ));
        assert_eq!(code, 0, "{err}");
        let row = |label: &str| cells(&text, "randwrite", label);
        let r = crate::common::results(&out);
        let wk_iops = r["phases"][0]["total"]["iops"].as_f64().expect("iops");
        assert_eq!(
            row("IOPS, phase mean [1]"),
            ["16580.0".to_string(), format!("{wk_iops:.1}")],
            "{text}"
        );
        let wk = d.path().join("t.img").display().to_string();
        // As long as the phase ran (2 s, and its drain), to a tenth of a second.
        let secs = format!(
            "{:.1}",
            r["phases"][0]["duration_s"].as_f64().expect("duration")
        );
        let note = note.replace("{wk}", &wk).replace("{secs}", &secs);
        assert!(text.contains(&format!("\n[1] {note}\n")), "{text}");
        let label = "composite (geometric mean of ratios to the first run)";
        let composite = match steady.is_empty() {
            true => cells(&text, "(all phases)", &format!("{label} [2]")),
            false => cells(&text, "(all phases)", label),
        };
        if steady.is_empty() {
            assert_eq!(composite, ["1.000", "-"], "{text}");
            assert!(text.contains(&format!("\n[2] the composite of {wk}: no workload of 1 scored: randwrite stopped at steady state in one run only\n")), "{text}");
            continue;
        }
        let wk_mean = r["phases"][0]["steady_state"]["verdict"]["window_mean"]
            .as_f64()
            .expect("mean");
        let ratio = wk_mean / 15142.4;
        assert_eq!(
            composite,
            [
                "1.000".to_string(),
                format!("{ratio:.3} ({:+.1} %)", (ratio - 1.0) * 100.0)
            ],
            "{text}"
        );
        assert_eq!(row("time to steady state (s)")[0], "5.6", "{text}");
    }
}

/// The steady window's mean in the metric its rule tracked (fio's `bw` and `lat` criteria, as wkrun's
/// `rule = "fio"`): labelled, keyed and in the unit of that metric, not `IOPS, steady window mean` with
/// bytes per second in it; `compare` sets it beside another run's IOPS window on no row, and scores the
/// pair on their IOPS, phase mean.
#[test]
fn a_steady_window_of_bandwidth_or_latency_is_labelled_by_its_metric() {
    let rule = |metric: &str| {
        format!(
            "steady_state = {{ rule = \"fio\", metric = \"{metric}\", kind = \"deviation\", limit = 10.0, relative = true, window = 2 }}"
        )
    };
    let dirs = [tempdir(), tempdir(), tempdir()];
    let outs: Vec<PathBuf> = ["iops", "bw", "lat"]
        .iter()
        .zip(&dirs)
        .map(|(m, d)| wkrun_randwrite(d.path(), &rule(m)))
        .collect();
    for (out, want) in outs[1..].iter().zip([
        (
            "steady window_mean mb_s",
            "bandwidth, steady window mean",
            "MB/s",
            "higher",
            1e-6,
        ),
        (
            "steady window_mean lat_mean_us",
            "latency, steady window mean",
            "µs",
            "lower",
            1e-3,
        ),
    ]) {
        let r = crate::common::results(out);
        let p = &r["phases"][0];
        let mean = p["steady_state"]["verdict"]["window_mean"]
            .as_f64()
            .expect("reached");
        let f = &p["headline"][1];
        assert_eq!(
            (&f["key"], &f["label"], &f["unit"], &f["better"]),
            (
                &want.0.into(),
                &want.1.into(),
                &want.2.into(),
                &want.3.into()
            ),
            "{f}"
        );
        assert_eq!(f["value"].as_f64(), Some(mean * want.4));
        assert!(mean > 0.0);
    }
    // The IOPS run beside the bandwidth run: a row each, one value each, no change between them.
    let path = |o: &PathBuf| o.to_str().expect("utf-8").to_string();
    let (code, text, err) = code_out_err(&wkrun(
        dirs[0].path(),
        &[
            "compare",
            &path(&outs[0]),
            &path(&outs[1]),
            "--width",
            "1000",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let mean = |o: &PathBuf| {
        let r = crate::common::results(o);
        r["phases"][0]["steady_state"]["verdict"]["window_mean"]
            .as_f64()
            .expect("mean")
    };
    assert_eq!(
        cells(&text, "randwrite", "IOPS, steady window mean"),
        [format!("{:.1}", mean(&outs[0])), "-".to_string()],
        "{text}"
    );
    assert_eq!(
        cells(&text, "randwrite", "bandwidth, steady window mean (MB/s)"),
        ["-".to_string(), format!("{:.2}", mean(&outs[1]) / 1e6)],
        "{text}"
    );
    let iops = |o: &PathBuf| {
        crate::common::results(o)["phases"][0]["total"]["iops"]
            .as_f64()
            .expect("iops")
    };
    let ratio = iops(&outs[1]) / iops(&outs[0]);
    let label = "composite (geometric mean of ratios to the first run)";
    assert_eq!(
        cells(&text, "(all phases)", label).last(),
        Some(&format!("{ratio:.3} ({:+.1} %)", (ratio - 1.0) * 100.0)),
        "{text}"
    );
    assert!(
        text.contains("randwrite on IOPS, phase mean (IOPS, steady window mean, the first run's lead, is not among this run's headline figures)"),
        "{text}"
    );
}

/// With the real fio (skipped without it): a job whose criterion holds at once (every sample within 1000 %
/// of the window's mean) stops at its first window, its verdict at fio's job_runtime, its window mean that
/// of fio's samples; a job whose criterion never holds (a slope below 0) runs its whole runtime, not
/// attained, its window fio's last.
#[test]
fn real_fio_steady_state_read_back() {
    let Some((d, _, file)) = with_fio("real_fio_steady_state_read_back", "f.img") else {
        return;
    };
    let run = |ss: &str, json: &str| -> (serde_json::Value, wkrun::results::Results) {
        let ss = format!("--steadystate={ss}");
        let args = [
            "--name=rw",
            &file,
            "--size=16m",
            "--rw=randwrite",
            "--bs=4k",
            "--ioengine=psync",
            "--runtime=3",
            "--time_based",
            &ss,
            "--ss_dur=2",
        ];
        let doc = run_fio(d.path(), &args, json);
        let bytes = std::fs::read(d.path().join(json)).expect("fio's JSON");
        (
            doc,
            wkrun::fio::json::from_bytes(json, &bytes).expect("reads"),
        )
    };
    let (doc, r) = run("iops:1000%", "at.json");
    let s = r.phases[0].steady_state.as_ref().expect("verdict");
    let ran = doc["jobs"][0]["job_runtime"].as_f64().expect("job_runtime") / 1e3;
    assert_eq!(doc["jobs"][0]["steadystate"]["attained"], 1);
    assert_eq!((s.reached, s.ended_phase, s.at_s), (true, true, Some(ran)));
    let rule = FioRule {
        metric: FioMetric::Iops,
        kind: FioKind::Deviation,
        limit: 10.0,
        relative: true,
        window: 2,
    };
    assert_eq!(s.criterion, Rule::Fio(rule));
    let data: Vec<f64> = (doc["jobs"][0]["steadystate"]["data"]["iops"]
        .as_array()
        .expect("samples"))
    .iter()
    .map(|v| v.as_f64().expect("number"))
    .collect();
    assert_eq!(data.len(), 2);
    let mean = (data[0] + data[1]) / 2.0;
    assert!(
        (s.verdict.window_mean - mean).abs() < 1e-9,
        "{} {mean}",
        s.verdict.window_mean
    );
    let head = format!(
        "fio stopped this job at steady state (iops:1000.000000% over 2 s) {ran:.3} s into it, of its runtime 3 s"
    );
    let w = &r.phases[0].warnings;
    assert!(w.iter().any(|w| w.starts_with(&head)), "{w:#?}");
    let (doc, r) = run("iops_slope:0%", "not.json");
    let s = r.phases[0].steady_state.as_ref().expect("verdict");
    let ran = doc["jobs"][0]["job_runtime"].as_f64().expect("job_runtime") / 1e3;
    assert_eq!(doc["jobs"][0]["steadystate"]["attained"], 0);
    assert_eq!((s.reached, s.ended_phase, s.at_s), (false, false, None));
    assert_eq!(
        (s.window_end_s, s.verdict_text().as_str()),
        (Some(ran), "not reached")
    );
    assert!(ran >= 3.0, "{ran}");
}
