//! A newcomer's trial of run, report, compare and progress (issues 24 and 25): a seed spec shortened with
//! `--set duration=…` on the simulated drive, compared and reported.

use crate::common::*;
use std::path::Path;

/// A workload of `duration` on a 64 MiB simulated drive with a steady-state rule of one-minute rounds and
/// the windows of seed 000 (`1400s..`) and seed 003 (`last 20m`), both in its headline.
fn short_spec(duration: &str) -> String {
    format!(
        r#"
[[phase]]
name = "w"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 8
read_percent = 0
duration = "{duration}"
steady_round = "1m"
steady_state = {{ rule = "snia" }}
steady_after = {{ drop = 0.5 }}
windows = ["1400s..", "last 20m"]
headline = ["1400s..", "last 20m"]
"#
    )
}

/// Runs the short spec on `sim` into `dir/name`; returns the folder and stdout.
fn run_short(dir: &Path, name: &str, sim: &str) -> (std::path::PathBuf, String) {
    write_file(dir, "s.toml", &spec_text("trial", &short_spec("3s")));
    let o = wkrun(
        dir,
        &["s.toml", "--target", sim, "-o", name, "--label", name],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    (dir.join(name), out)
}

/// The mean of the full rows' total IOPS of phase 0 of `out` (the oracle of a whole-phase window).
fn full_rows_mean(out: &Path) -> f64 {
    let r = results(out);
    let rows: Vec<f64> = phase_rows(out, &r, 0)
        .iter()
        .filter(|row| row["partial"] == "0")
        .map(|row| f(row, "read_iops") + f(row, "write_iops"))
        .collect();
    assert_eq!(rows.len(), 3);
    rows.iter().sum::<f64>() / rows.len() as f64
}

/// A 3 s trial of a spec whose windows are `1400s..` and `last 20m`: the window starting after the end takes
/// the whole phase, the longer one the rows there are, each saying so (results, headline label, compare,
/// report); the composite is no longer `-`; the steady-state line is a sentence.
#[test]
fn a_shortened_trial_keeps_its_windows_and_says_they_are_clipped() {
    let d = tempdir();
    let (a, out) = run_short(d.path(), "a", "sim:capacity=64MiB,op=7%,block=256KiB");
    let (b, _) = run_short(d.path(), "b", "sim:capacity=64MiB,op=28%,block=256KiB");
    assert!(
        out.contains(
            "      steady state never judged: no whole round of 60 s was measured (the phase is shorter than one steady_round).\n"
        ),
        "{out}"
    );
    // A rule that never judged did not find steady state absent: no "not reached" beside it (trial 13
    // F11: both lines were printed).
    assert!(!out.contains("steady state not reached"), "{out}");
    let r = results(&a);
    let w = &phase(&r, 0)["windows"];
    assert_eq!(
        w[0]["clipped"],
        "window clipped: the phase is 3s, the window 1400s.. starts after its end: the whole phase instead"
    );
    assert_eq!(
        w[1]["clipped"],
        "window clipped: the phase is 3s, the window last 20min"
    );
    let (mean_a, mean_b) = (full_rows_mean(&a), full_rows_mean(&b));
    for k in [0, 1] {
        assert_eq!(w[k]["complete"], false);
        assert_eq!(
            (w[k]["start_s"].as_f64(), w[k]["end_s"].as_f64()),
            (Some(0.0), Some(3.0))
        );
        let avg = w[k]["iops"]["avg"].as_f64().expect("a window average");
        assert!((avg - mean_a).abs() < 1e-6, "{avg} vs {mean_a}");
    }
    let o = wkrun(d.path(), &["compare", "a", "b"]);
    let (code, table, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    assert!(
        table.contains("IOPS, whole phase (window 1400s.. starts after the phase's end, 3s), avg"),
        "{table}"
    );
    assert!(
        table.contains("IOPS, whole phase (window last 20min > phase 3s), avg"),
        "{table}"
    );
    // The composite: the lead figure (the first level in the headline, the 1400s.. window's average) of
    // b over a's.
    let composite = table
        .lines()
        .find(|l| l.starts_with("(all phases)"))
        .expect("a composite row");
    let want = format!("{:.3}", mean_b / mean_a);
    assert!(composite.contains(&want), "{composite} vs {want}");
    let o = wkrun(d.path(), &["report", "a", "-o", "rep"]);
    assert_eq!(o.status.code(), Some(0));
    let page = std::fs::read_to_string(d.path().join("rep/index.html")).expect("index.html");
    assert!(
        page.contains(
            "<p class=\"meta\">a: window clipped: the phase is 3s, the window 1400s.. starts after its end: the whole phase instead</p>"
        ),
        "no note on the page"
    );
    // --ymax with an SI suffix, as wkrun writes IOPS.
    let o = wkrun(d.path(), &["report", "a", "-o", "rep2", "--ymax", "10k"]);
    assert_eq!(code_out_err(&o).0, 0, "{}", code_out_err(&o).2);
    // A window outside every phase: refused, nothing written.
    let o = wkrun(
        d.path(),
        &["report", "a", "b", "-o", "rep3", "--window", "5000s..6000s"],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "error: --window 5000s..6000s: no phase has an interval in it (the phases' series end at 3s, counted from each phase's start); name a window within that, such as --window 0s..3s\n"
        )
    );
    assert!(!d.path().join("rep3").exists());
}

/// A phase shorter than one interval: its rates are its I/Os over its own elapsed time (not over the
/// interval), and it warns that it is shorter than one interval.
#[test]
fn a_phase_shorter_than_one_interval_says_so() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"r\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 8\nread_percent = 0\nduration = \"300ms\"\n";
    let out = run_ok(
        d.path(),
        "sub",
        body,
        Path::new("sim:capacity=64MiB,block=256KiB"),
    );
    let r = results(&out);
    let p = phase(&r, 0);
    let secs = p["duration_s"].as_f64().expect("duration");
    let ops = u(p, "/write/ops");
    assert!(secs > 0.3 && secs < 1.0, "{secs}");
    assert!((p["write"]["iops"].as_f64().unwrap() - ops as f64 / secs).abs() < 1e-6);
    assert!(
        (p["write"]["bw_bytes_per_s"].as_f64().unwrap() - (ops * 4096) as f64 / secs).abs() < 1e-3
    );
    let want = format!(
        "the phase lasted {secs:.3} s, under one interval (1s): give it a duration or size of several intervals; its IOPS and bandwidth are over those {secs:.3} s, with the queue filling and draining in them, and it has no full interval for per-interval figures (worst, per_second, windows, steady state)"
    );
    let warnings: Vec<&str> = p["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(warnings.contains(&want.as_str()), "{warnings:?}");
}

/// A QD1 read after a phase of random writes on the simulated drive: its maximum latency is in its first
/// interval, set by the writes' backlog, and the phase warns so, naming `ramp`; with `ramp` it does not.
#[test]
fn a_maximum_from_the_previous_phases_backlog_is_flagged() {
    let d = tempdir();
    let spec = |ramp: &str| {
        format!(
            "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"5s\"\n[[phase]]\nname = \"r\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 1\nread_percent = 100\nduration = \"5s\"\n{ramp}"
        )
    };
    let sim = Path::new("sim:capacity=256MiB,block=256KiB");
    let out = run_ok(d.path(), "bl", &spec(""), sim);
    let r = results(&out);
    let p = phase(&r, 2);
    let max = u(p, "/read/latency_ns/max") as f64;
    let p999 = u(p, "/read/latency_ns/p99_9") as f64;
    // The oracle: the first row of the series holds the maximum.
    let rows = phase_rows(&out, &r, 2);
    assert_eq!((f(&rows[0], "read_lat_max_us") * 1e3).round(), max);
    let ms = |ns: f64| format!("{:.2} ms", ns / 1e6);
    let us = |ns: f64| format!("{:.1} µs", ns / 1e3);
    let want = format!(
        "no ramp: add ramp = \"10s\" (an unmeasured lead-in): the largest latency, {} in the first interval, is {:.0} times the p99.9 ({}) after phase \"w\" wrote: the drive was likely still working off those writes (a write-back cache, garbage collection), so this maximum describes that phase as much as this one; a ramp gives each phase the same starting state",
        ms(max),
        max / p999,
        us(p999)
    );
    assert!(max > 1e6 && p999 < 1e6, "{max} {p999}");
    let warnings = |p: &serde_json::Value| -> Vec<String> {
        p["warnings"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter_map(|w| w.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(warnings(p).contains(&want), "{:?}", warnings(p));
    let d = tempdir();
    let out = run_ok(d.path(), "bl", &spec("ramp = \"2s\"\n"), sim);
    let r = results(&out);
    let with_ramp = warnings(phase(&r, 2));
    assert!(
        !with_ramp.iter().any(|w| w.starts_with("no ramp")),
        "{with_ramp:?}"
    );
}
