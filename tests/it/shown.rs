//! How trims and flushes are shown (issue 26, findings of the newcomer trial): the run's summary line counts
//! trims in its IOPS and MB/s, the flushes have a line of their own (count, mean, p99, max), `wkrun compare`
//! gives every row a unique label and rows for the flushes, the report has a flushes table, and
//! `wkrun plan` shows the trim share, the writes' durability and the trace per phase.

use crate::common::*;
use std::fs;

/// A 4 KiB random workload on psync at QD 2 over a file: 1000 I/Os of read 50 / write 30 / trim 20 (each
/// group of 100 exact: 500 / 300 / 200), an fdatasync after every 4 writes, a trace.
const MIXED: &str = "[[phase]]\nname = \"m\"\nkind = \"workload\"\nengine = \"psync\"\ndirect = false\n\
block_size = \"4KiB\"\nqueue_depth = 2\nread_percent = 50\ntrim_percent = 20\nfdatasync = 4\n\
trace = 1000\nsize = \"4000KiB\"\n";

#[test]
fn the_summary_iops_count_trims_and_the_flushes_have_their_line() {
    let (d, target) = sparse_target_dir(16 << 20);
    let (o, out) = run_spec(d.path(), "shown", MIXED, &target, &[]);
    let (code, log, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (typed, r) = strict_results(&out);
    let p = &r["phases"][0];
    let ops = |dir: &str| u(p, &format!("/{dir}/ops"));
    assert_eq!([ops("read"), ops("write"), ops("trim")], [500, 300, 200]);
    // IOPS and MB/s over every direction, from the counts and the duration here.
    let secs = p["duration_s"].as_f64().unwrap();
    let iops = 1000.0 / secs;
    let bytes = (u(p, "/read/bytes") + u(p, "/write/bytes") + u(p, "/trim/bytes")) as f64;
    let lines = summary_lines(&log, 0);
    let head = format!(
        "      500 reads, 300 writes, 200 trims in {secs:.2} s: {iops:.0} IOPS, {:.1} MB/s (read ",
        bytes / secs / 1e6
    );
    assert!(lines[0].starts_with(&head), "{}\n{head}", lines[0]);
    let trims = format!(
        "; trim {:.0} IOPS, {:.1} MB/s)",
        200.0 / secs,
        u(p, "/trim/bytes") as f64 / secs / 1e6
    );
    assert!(lines[0].ends_with(&trims), "{}", lines[0]);
    assert_eq!(
        lines[0],
        format!("      {}", expected_totals(&typed.phases[0]))
    );
    // One worker: ⌊300 / 4⌋ = 75 fdatasync calls, their latency as results.json holds it.
    let f = &p["sync"]["flushes"];
    assert_eq!(u(f, "/ops"), 75);
    let l = &f["latency_ns"];
    let want = format!(
        "      flushes: 75 fdatasync (after every 4 writes): mean {}, p99 {}, max {}",
        lat_text(l["mean"].as_f64().unwrap()),
        lat_text(u(l, "/p99") as f64),
        lat_text(u(l, "/max") as f64)
    );
    assert!(lines.contains(&want.as_str()), "{log}\n{want}");
}

/// A read-only phase that asks for an fsync after every 4 writes completes 64 reads and no write: its
/// results say so (0 flushes of fsync after every 4 writes), and its summary prints no flushes line, since
/// no flush could happen.
#[test]
fn a_read_only_phase_with_fsync_prints_no_flushes_line() {
    let (d, target) = sparse_target_dir(16 << 20);
    let spec = "[[phase]]\nname = \"r\"\nkind = \"workload\"\nengine = \"psync\"\ndirect = false\n\
block_size = \"4KiB\"\nqueue_depth = 1\nread_percent = 100\nfsync = 4\nsize = \"256KiB\"\n";
    let (o, out) = run_spec(d.path(), "shown", spec, &target, &[]);
    let (code, log, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&out);
    let p = &r["phases"][0];
    assert_eq!([u(p, "/read/ops"), u(p, "/write/ops")], [64, 0]);
    let f = &p["sync"]["flushes"];
    assert_eq!((u(f, "/ops"), u(f, "/every_writes")), (0, 4));
    assert_eq!(f["call"], "fsync");
    let lines = summary_lines(&log, 0);
    assert!(
        lines[0].starts_with("      64 reads, 0 writes in "),
        "{log}"
    );
    assert!(!log.contains("flushes:"), "{log}");
}

/// [`MIXED`] run into `out/` of a fresh folder: the folder and the phase's results.
fn mixed_run() -> (tempfile::TempDir, serde_json::Value) {
    let (d, target) = sparse_target_dir(16 << 20);
    let (o, out) = run_spec(d.path(), "shown", MIXED, &target, &[]);
    assert_eq!(code_out_err(&o).0, 0);
    let p = strict_results(&out).1["phases"][0].clone();
    (d, p)
}

#[test]
fn compare_labels_are_unique_and_the_flushes_have_rows() {
    let (d, p) = mixed_run();
    let (code, csv, err) = code_out_err(&wkrun(
        d.path(),
        &["compare", "out", "out", "--format", "csv"],
    ));
    assert_eq!(code, 0, "{err}");
    let mut rdr = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<Vec<String>> = rdr
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let labels: Vec<(&str, &str)> = rows.iter().map(|r| (&*r[0], &*r[1])).collect();
    for l in &labels {
        assert_eq!(labels.iter().filter(|m| *m == l).count(), 1, "{l:?}: {csv}");
    }
    let value = |label: &str| -> f64 {
        let r = rows.iter().find(|r| r[0] == "m" && r[1] == label);
        r.unwrap_or_else(|| panic!("{label}: {csv}"))[2]
            .parse()
            .unwrap()
    };
    let secs = p["duration_s"].as_f64().unwrap();
    assert!(
        (value("IOPS, phase mean") - 1000.0 / secs).abs() <= 0.05,
        "{csv}"
    );
    assert!(
        (value("trim IOPS, phase mean") - 200.0 / secs).abs() <= 0.05,
        "{csv}"
    );
    assert_eq!(value("flushes (fsync/fdatasync calls)"), 75.0);
    let l = &p["sync"]["flushes"]["latency_ns"];
    for (label, ns) in [
        (
            "flush latency, phase mean (µs)",
            l["mean"].as_f64().unwrap(),
        ),
        ("flush latency p99 (µs)", u(l, "/p99") as f64),
        ("flush latency max (µs)", u(l, "/max") as f64),
    ] {
        // Printed to two decimals: within half a unit of the last place (and a float rounding).
        assert!(
            (value(label) - ns / 1e3).abs() <= 0.005 + 1e-9,
            "{label}: {csv}"
        );
    }
}

#[test]
fn the_report_has_trim_columns_and_a_flushes_table() {
    let (d, p) = mixed_run();
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", "out", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = fs::read_to_string(d.path().join("rep/index.html")).unwrap();
    assert!(
        html.contains("<th colspan=\"4\">trim latency (µs)</th>"),
        "trim columns"
    );
    let secs = p["duration_s"].as_f64().unwrap();
    // The summary row: read, write, trim IOPS, then their total.
    let iops = |n: u64| format!("<td>{:.1}</td>", n as f64 / secs);
    let cells = format!("{}{}{}{}", iops(500), iops(300), iops(200), iops(1000));
    assert!(html.contains(&cells), "{cells}");
    let l = &p["sync"]["flushes"]["latency_ns"];
    let flushes = format!(
        "fdatasync</td><td>4</td><td>75</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td></tr>",
        l["mean"].as_f64().unwrap() / 1e3,
        u(l, "/p99") as f64 / 1e3,
        u(l, "/max") as f64 / 1e3
    );
    assert!(html.contains(&flushes), "{flushes}");
}

#[test]
fn plan_shows_the_trim_share_the_writes_durability_and_the_trace() {
    let (d, target) = sparse_target_dir(16 << 20);
    let body = format!(
        "{MIXED}sync = \"dsync\"\n[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nfsync = 8\nsize = \"400KiB\"\n"
    );
    write_file(d.path(), "s.toml", &spec_text("shown", &body));
    let t = target.to_str().unwrap();
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["plan", "s.toml", "--target", t]));
    assert_eq!(code, 0, "{err}");
    let has = |s: &str| assert!(out.contains(s), "{s}\n{out}");
    has("op mix: 50 % reads, 30 % writes, 20 % trims (trim_percent = 20");
    has(
        "writes: each durable at completion, its data: RWF_DSYNC (sync = \"dsync\"); fdatasync after every 4 writes of each worker",
    );
    has("trace: up to 1000 completions");
    // A phase that only reads, with fsync: warned (the key is right for a matrix's cells that write).
    has("warning: fsync = 8 has no effect: the phase issues no writes (read_percent = 100)");
    // The run says so too (not quiet: -q keeps warnings to results.json), and goes on.
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["s.toml", "--target", t, "-o", "out"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("phase r: fsync = 8 has no effect"), "{err}");
    let (_, r) = strict_results(&d.path().join("out"));
    assert_eq!(u(&r, "/phases/1/sync/flushes/ops"), 0);
    let w = r["phases"][1]["warnings"].to_string();
    assert!(w.contains("fsync = 8 has no effect"), "{w}");
}

/// `sync = true` (fio's `sync=1` written as TOML's boolean) is refused naming the values `sync` takes, as an
/// unknown name is; so is any string-only key given another type.
#[test]
fn a_non_string_sync_is_refused_listing_its_values() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nsync = true\nsize = \"64KiB\"\n\
                [[phase]]\nname = \"p\"\nkind = \"workload\"\nread_percent = 0\npattern = 3\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &spec_text("shown", body));
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "s.toml"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("phase[0] \"w\".sync: invalid type: boolean `true`, expected a string, one of `none`, `dsync`, `sync`"),
        "{err}"
    );
    assert!(
        err.contains("phase[1] \"p\".pattern: invalid type: integer `3`, expected a string, `random` or `sequential`"),
        "{err}"
    );
}

/// The counters CSV writes its times as the series CSV does: the row ending at 1 s is `1.0` in both (it was
/// `1` in the counters CSV), and every row's `t_s` is the same text in both files.
#[test]
fn counters_and_series_csvs_write_t_s_alike() {
    let (d, target) = sparse_target_dir(16 << 20);
    let body = "[[phase]]\nname = \"t\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\n\
                duration = \"1s\"\ninterval = \"500ms\"\n";
    let out = run_ok(d.path(), "shown", body, &target);
    let (_, r) = strict_results(&out);
    let column = |file: &str| -> Vec<String> {
        let text = fs::read_to_string(out.join(file)).unwrap();
        text.lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect()
    };
    let series = column(r["phases"][0]["series_csv"].as_str().unwrap());
    let counters = column(r["phases"][0]["counters_csv"].as_str().unwrap());
    assert_eq!(series[..2], ["0.5", "1.0"]);
    assert_eq!(series, counters);
}
