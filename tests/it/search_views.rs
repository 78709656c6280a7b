//! Trial 26 L1: a latency-target search's answer (the headline a fio latency_target user comes for) in the
//! report, under its group's heading, and in compare's notes, with `--by qd` too: its target, answer, the
//! depths it ran and the steps it skipped. On the simulated drive, whose 4 KiB reads take about QD × 10 µs
//! from QD 2 on (tests/it/latency_target.rs), p99 under 200 µs is QD 16, QD 32 over, QD 64 and 128 skipped.

use crate::common::*;
use std::fs;

#[test]
fn search_answer_in_report_and_compare() {
    let dir = tempdir();
    fs::write(
        dir.path().join("s.toml"),
        "format = 1\n[spec]\nname = \"t\"\nversion = \"1\"\n[[phase]]\nname = \"lat\"\nkind = \"workload\"\nread_percent = 100\nqueue_depth = [1, 2, 4, 8, 16, 32, 64, 128]\nduration = \"200ms\"\ninterval = \"100ms\"\nlatency_target = \"200us\"\n",
    )
    .expect("write");
    let (c, _, e) = run_sim(dir.path(), "o", &[]);
    assert_eq!(c, 0, "{e}");
    let r = results(&dir.path().join("o"));
    let steps = r["latency_searches"][0]["steps"].as_array().expect("steps");
    let over = u(&steps[5], "/latency_ns") as f64;
    // QD 32's p99 is between 200 µs and 1 ms (latency_target.rs), so in µs.
    assert!((200_000.0..999_950.0).contains(&over), "{over}");
    let line = format!(
        "latency target p99 under 200us: QD 16 (QD 32 was over, at {:.1} µs); ran QD 1, 2, 4, 8, 16, 32; skipped (not run) lat[qd=64], lat[qd=128]",
        over / 1e3
    );
    let (c, _, e) = code_out_err(&wkrun(dir.path(), &["report", "o"]));
    assert_eq!(c, 0, "{e}");
    let html = fs::read_to_string(dir.path().join("o/report/index.html")).expect("report");
    let heading = html
        .find("<h2>lat across qd</h2>")
        .expect("the group's heading");
    let shown = format!("<p class=\"params search\">{line}</p>");
    let at = html
        .find(&shown)
        .unwrap_or_else(|| panic!("no line {shown}"));
    assert!(
        at > heading && !html[heading..at].contains("</section>"),
        "under the heading"
    );
    for args in [&["compare", "o"][..], &["compare", "o", "--by", "qd"][..]] {
        let (c, out, e) = code_out_err(&wkrun(dir.path(), args));
        assert_eq!(c, 0, "{args:?}: {e}");
        // The column of the one run is headed by its target, the simulated drive.
        let note = format!("note: sim:capacity=512MiB,op=7%,dies=1: search \"lat\": {line}");
        assert!(out.lines().any(|l| l == note), "{args:?}: {out}");
    }
}
