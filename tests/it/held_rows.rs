//! Attack 21 A4: a series CSV's rows held to the phase's largest latency, to their histogram log and to
//! each other. A row's `read_lat_max_us` halved (so that no row holds the phase's max, and the row is below
//! its own histogram's highest bucket) and a row's `t_s` moved so that it overlaps the row before passed
//! `wkrun validate`; each is refused here on a real run, naming the file, the line and both numbers.

use crate::common::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Random buffered 4 KiB reads and writes on a file for 0.3 s, rows of 100 ms.
pub(crate) const SPEC: &str = r#"[[phase]]
name = "mix"
kind = "workload"
engine = "psync"
pattern = "random"
block_size = "4KiB"
read_percent = 50
duration = "300ms"
interval = "100ms"
direct = false
"#;

/// A run of [`SPEC`] on a 16 MiB file in `d`: its folder and its series CSV's name.
fn run(d: &Path) -> (PathBuf, String) {
    let target = d.join("t.img");
    sparse_file(&target, 16 << 20);
    let out = run_ok(d, "rows", SPEC, &target);
    let csv = results(&out)["phases"][0]["series_csv"]
        .as_str()
        .expect("series_csv")
        .to_string();
    (out, csv)
}

/// The CSV `text` with the cell `column` of data row `k` (0 the first after the header) set to `value`.
fn with_cell(text: &str, k: usize, column: &str, value: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines[0].split(',').position(|c| c == column).expect(column);
    let mut cells: Vec<String> = lines[k + 1].split(',').map(str::to_string).collect();
    cells[at] = value.to_string();
    lines[k + 1] = cells.join(",");
    lines.join("\n") + "\n"
}

/// `out` copied to `d/to` with its series CSV `csv` edited by `f`.
fn forged(out: &Path, to: &str, csv: &str, f: impl Fn(&str) -> String) -> PathBuf {
    let dst = out.parent().expect("parent").join(to);
    std::fs::create_dir_all(&dst).expect("mkdir");
    for e in std::fs::read_dir(out).expect("read_dir").flatten() {
        std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy");
    }
    let text = std::fs::read_to_string(dst.join(csv)).expect("csv");
    std::fs::write(dst.join(csv), f(&text)).expect("write");
    dst
}

/// `wkrun validate DIR` in `d`: exit code and stderr.
fn validate(d: &Path, dir: &Path) -> (i32, String) {
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", dir.to_str().expect("utf-8")]));
    (c, e)
}

/// The largest latency in ns of a cell written in µs (ns / 1000).
fn ns(us: f64) -> u64 {
    (us * 1e3).round() as u64
}

/// The row holding the phase's largest read latency halved: no row holds the phase's max any more, and the
/// row's own max is below its histogram's highest bucket; both said.
#[test]
fn a_row_max_halved_is_refused_by_the_phase_and_by_its_log() {
    let t = tempdir();
    let d = t.path();
    let (out, csv) = run(d);
    assert_eq!(validate(d, &out), (0, String::new()));
    let r = results(&out);
    let max = u(&r, "/phases/0/read/latency_ns/max");
    let rows: Vec<HashMap<String, String>> = csv_rows(&out.join(&csv));
    let k = rows
        .iter()
        .position(|row| row["read_lat_max_us"].parse::<f64>().ok() == Some(max as f64 / 1e3))
        .expect("a row holds the phase's max");
    let half = max as f64 / 1e3 * 0.5;
    let mean: f64 = f(&rows[k], "read_lat_mean_us");
    assert!(half > mean, "{half} µs over a mean of {mean} µs");
    let dir = forged(&out, "mx", &csv, |text| {
        with_cell(text, k, "read_lat_max_us", &half.to_string())
    });
    let (c, e) = validate(d, &dir);
    let second = rows
        .iter()
        .enumerate()
        .filter(|&(j, row)| j != k && n(row, "read_ops") > 0)
        .map(|(_, row)| f(row, "read_lat_max_us"))
        .fold(half, f64::max);
    let file = dir.join(&csv);
    let phase = format!(
        "series {}: lines 2-{}: column read_lat_max_us: the rows' largest read latency is {second} µs, where results.json's phase has {} µs (read.latency_ns.max {max}): the phase's largest latency is some row's",
        file.display(),
        rows.len() + 1,
        max as f64 / 1e3
    );
    assert!(c == 2 && e.contains(&phase), "{c}: want {phase:?} in\n{e}");
    // The log: the row's histogram's highest bucket holds the run's max, not half of it.
    let log = format!(
        "row {k}: the series CSV's read_lat_max_us {half} µs is not in this log's histogram's highest bucket, "
    );
    assert!(e.contains(&log), "want {log:?} in\n{e}");
    let bucket = e
        .split(&log)
        .nth(1)
        .expect("bucket")
        .split(" ns")
        .next()
        .expect("range");
    let (lo, hi) = bucket.split_once(" to ").expect("lo to hi");
    let (lo, hi): (u64, u64) = (lo.parse().expect("lo"), hi.parse().expect("hi"));
    assert!(lo <= max && max <= hi && ns(half) < lo, "{lo} {max} {hi}");
    assert!((hi - lo) as f64 <= hi as f64 / 1024.0, "{lo} to {hi}");
}

/// A row (not the phase's max) whose max is set to its own mean: within the phase's figures, but below its
/// histogram's highest bucket: refused by the log alone.
#[test]
fn a_row_max_below_its_histogram_is_refused() {
    let t = tempdir();
    let d = t.path();
    let (out, csv) = run(d);
    let max = u(&results(&out), "/phases/0/read/latency_ns/max");
    let rows = csv_rows(&out.join(&csv));
    // A row with reads whose max is not the phase's and lies well above its mean.
    let k = rows
        .iter()
        .position(|row| {
            n(row, "read_ops") > 1
                && ns(f(row, "read_lat_max_us")) != max
                && f(row, "read_lat_max_us") > 1.01 * f(row, "read_lat_mean_us")
        })
        .expect("such a row");
    let mean = rows[k]["read_lat_mean_us"].clone();
    let dir = forged(&out, "low", &csv, |text| {
        with_cell(text, k, "read_lat_max_us", &mean)
    });
    let (c, e) = validate(d, &dir);
    let want = format!(
        "row {k}: the series CSV's read_lat_max_us {} µs is not in this log's histogram's highest bucket, ",
        mean.parse::<f64>().expect("mean")
    );
    assert!(c == 2 && e.contains(&want), "{c}: want {want:?} in\n{e}");
    assert_eq!(e.matches("\n").count(), 1, "the log alone: {e}");
}

/// Row 2's `t_s` moved half an interval back: it starts before row 1 ends.
#[test]
fn overlapping_rows_are_refused() {
    let t = tempdir();
    let d = t.path();
    let (out, csv) = run(d);
    let rows = csv_rows(&out.join(&csv));
    let (t1, iv) = (f(&rows[0], "t_s"), f(&rows[1], "interval_s"));
    assert_eq!((t1, iv), (0.1, 0.1));
    let dir = forged(&out, "t", &csv, |text| with_cell(text, 1, "t_s", "0.15"));
    let (c, e) = validate(d, &dir);
    let want = format!(
        "line 3: t_s 0.15 less interval_s 0.1 starts it at {}, before the row before's end, t_s 0.1: a series' rows do not overlap",
        0.15f64 - 0.1
    );
    assert!(c == 2 && e.contains(&want), "{c}: want {want:?} in\n{e}");
    // The first row starting before 0.
    let dir = forged(&out, "t0", &csv, |text| {
        with_cell(text, 0, "interval_s", "0.2")
    });
    let (c, e) = validate(d, &dir);
    let want = format!(
        "line 2: t_s 0.1 less interval_s 0.2 starts it at {}, before 0, the phase's start: a series' rows do not overlap",
        0.1f64 - 0.2
    );
    assert!(c == 2 && e.contains(&want), "{c}: want {want:?} in\n{e}");
}
