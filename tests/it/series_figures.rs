//! A series CSV's rows held to their phase's figures in results.json, and an aggregate's series to its
//! targets' merged again (attack 19: a row's max of 1 s under a phase max of 40 ms, a mean above its row's
//! max or below the phase's min, errors in a phase without any, `partial` on a middle row, a counters CSV's
//! CPU times ×5, and an aggregate's cells changed, all validated). Each forgery is refused with its file,
//! line and column; the folder as the run wrote it passes.

use crate::common::*;
use crate::validate_results::refused_by;
use std::fs;
use std::path::Path;

/// A mixed workload of 1 s in rows of 250 ms (four rows and the drain) on a file: wall clock, so it has a
/// counters CSV.
const BODY: &str = "[[phase]]\nname = \"rw\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 70\ntrim_percent = 10\nqueue_depth = 2\nduration = \"1s\"\ninterval = \"250ms\"\n";

/// A copy of the folder `dir/from` (its files, and its targets' folders one level down) as `dir/name`,
/// with the cell of `column` on line `line` (1 is the header) of its file `file` replaced by what `edit`
/// makes of it; `name`.
fn forged(
    dir: &Path,
    from: &str,
    name: &str,
    (file, line, column): (&str, usize, &str),
    edit: impl Fn(&str) -> String,
) -> String {
    copy_folder(&dir.join(from), &dir.join(name));
    let path = dir.join(name).join(file);
    let text = fs::read_to_string(&path).expect("csv");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines[0].split(',').position(|c| c == column).expect(column);
    let mut cells: Vec<String> = lines[line - 1].split(',').map(str::to_string).collect();
    cells[at] = edit(&cells[at]);
    lines[line - 1] = cells.join(",");
    fs::write(&path, lines.join("\n") + "\n").expect("write");
    name.to_string()
}

fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir(to).expect("mkdir");
    for f in fs::read_dir(from).expect("folder") {
        let f = f.expect("entry").path();
        let into = to.join(f.file_name().expect("name"));
        match f.is_dir() {
            true => copy_folder(&f, &into),
            false => {
                fs::copy(&f, into).expect("copy");
            }
        }
    }
}

/// A cell as a number.
fn num(s: &str) -> f64 {
    s.parse().expect("number")
}

#[test]
fn a_rows_figures_are_held_to_its_phase_s() {
    let (t, target) = sparse_target_dir(16 << 20);
    let d = t.path();
    let out = run_ok(d, "s", BODY, &target);
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "out"]));
    assert_eq!((c, e.as_str()), (0, ""), "the folder as written");
    let r = results(&out);
    let p = &r["phases"][0];
    let lat = |d: &str, k: &str| p[d]["latency_ns"][k].as_u64().expect(k);
    let rows = csv_rows(&out.join("00-rw.csv"));
    let n = rows.len();
    assert!(n >= 3, "{n} rows");
    let csv = "00-rw.csv";
    let us = |ns: u64| ns as f64 / 1e3;
    let row_max = num(&rows[0]["read_lat_max_us"]);
    let max_forged = forged(d, "out", "max", (csv, 2, "read_lat_max_us"), |_| {
        "1000000.0".into()
    });
    let above = forged(d, "out", "above", (csv, 2, "read_lat_mean_us"), |_| {
        "500000.0".into()
    });
    let tiny = forged(d, "out", "tiny", (csv, 2, "read_lat_mean_us"), |_| {
        "0.001".into()
    });
    let errors = forged(d, "out", "errors", (csv, 2, "errors"), |_| "5".into());
    let partial = forged(d, "out", "partial", (csv, 3, "partial"), |_| "1".into());
    // A mean moved by 1 µs stays within its row's bounds: the rows' sum no longer is the phase's.
    let mean = forged(d, "out", "mean", (csv, 2, "read_lat_mean_us"), |v| {
        format!("{}", num(v) + 1.0)
    });
    // The oracle: each row's mean × 1000 × ops to the ns (rows without reads have no mean), added up.
    let sum = |k: usize, m: f64| (m * 1e3 * num(&rows[k]["read_ops"])).round();
    let means: Vec<Option<f64>> = (0..n)
        .map(|k| {
            Some(&rows[k]["read_lat_mean_us"])
                .filter(|m| !m.is_empty())
                .map(|m| num(m))
        })
        .collect();
    let rows_ns: f64 = (0..n)
        .filter_map(|k| means[k].map(|m| sum(k, if k == 0 { m + 1.0 } else { m })))
        .sum();
    let (pmean, pops) = (
        p["read"]["latency_ns"]["mean"].as_f64().expect("mean"),
        p["read"]["ops"].as_u64().expect("ops"),
    );
    let cases = [
        (max_forged, format!("line 2: column read_lat_max_us: 1000000 µs is above the phase's largest read latency, {} µs (read.latency_ns.max {} in results.json)", us(lat("read", "max")), lat("read", "max"))),
        (above, format!("line 2: column read_lat_mean_us: 500000 µs is above the row's own largest read latency, read_lat_max_us {row_max} µs")),
        (tiny, format!("line 2: column read_lat_mean_us: 0.001 µs is below the phase's smallest read latency, {} µs (read.latency_ns.min {} in results.json)", us(lat("read", "min")), lat("read", "min"))),
        (errors, format!("lines 2-{}: column errors: the rows' failed I/Os add up to 5, where results.json's phase has no errors (none failed): they add up to the phase's", n + 1)),
        (partial, "line 3: column partial: 1 on a row that is not the last: only a phase's last row (it ended inside it, or the drain of a time bound) is partial".to_string()),
        (mean, format!("lines 2-{}: column read_lat_mean_us: the rows' read latencies (each row's mean × read_ops) add up to {rows_ns} ns, where results.json's phase has {} ns (read.latency_ns.mean {pmean} × read.ops {pops}): they add up to the phase's", n + 1, (pmean * pops as f64).round())),
    ];
    // The forged max is also outside row 0's histogram's highest bucket, the bucket of the row's own max
    // (3 significant digits: buckets of 2^(m-10) ns between 2^m and 2^(m+1) ns, from 2^11 ns).
    let own = (row_max * 1e3).round() as u64;
    let width = 1u64 << (63 - own.leading_zeros()).saturating_sub(10);
    let low = own / width * width;
    let in_log = format!(
        "(phases[0].hist_log): line 8: row 0: the series CSV's read_lat_max_us 1000000 µs is not in this log's histogram's highest bucket, {low} to {} ns: one of the two files is damaged\n",
        low + width - 1
    );
    for (folder, why) in &cases {
        let log = match why.contains("read_lat_max_us: 1000000 µs") {
            true => format!("error: {folder}/00-rw.hlog {in_log}"),
            false => String::new(),
        };
        refused_by(
            d,
            &["validate", folder],
            &format!("error: series {folder}/{csv}: {why}\n{log}"),
        );
    }
    // The counters CSV: a row's user CPU time 0.25 s more than the reading gave.
    let counters = csv_rows(&out.join("00-rw.counters.csv"));
    let ns = |c: &str| {
        counters
            .iter()
            .map(|r| (num(&r[c]) * 1e9).round() as u64)
            .sum::<u64>()
    };
    let cpu = forged(
        d,
        "out",
        "cpu",
        ("00-rw.counters.csv", 2, "cpu_user_s"),
        |v| format!("{}", num(v) + 0.25),
    );
    let user = p["cpu"]["user_s"].as_f64().expect("user_s");
    assert_eq!(
        ns("cpu_user_s"),
        (user * 1e9).round() as u64,
        "the rows add up to the phase's"
    );
    let want = format!(
        "error: cpu/00-rw.counters.csv (phases[0].counters_csv): lines 2-{}: column cpu_user_s: the rows add up to {} s, where results.json's phase has cpu.user_s {user} s: the rows' CPU times add up to the phase's\n",
        counters.len() + 1,
        (ns("cpu_user_s") + 250_000_000) as f64 / 1e9
    );
    refused_by(d, &["validate", &cpu], &want);
}

#[test]
fn an_aggregate_s_series_is_its_targets_merged_again() {
    let (t, a) = sparse_target_dir(16 << 20);
    let d = t.path();
    let b = d.join("b.img");
    sparse_file(&b, 16 << 20);
    let (o, _) = run_spec(d, "m", BODY, &a, &["--target", b.to_str().expect("utf-8")]);
    let (c, _, e) = code_out_err(&o);
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "out"]));
    assert_eq!((c, e.as_str()), (0, ""), "the folder as written");
    let mean = csv_rows(&d.join("out/00-rw.csv"))[0]["read_lat_mean_us"].clone();
    let moved = format!("{}", num(&mean) + 0.5);
    let agg = forged(
        d,
        "out",
        "agg",
        ("00-rw.csv", 2, "read_lat_mean_us"),
        |_| moved.clone(),
    );
    let want = format!(
        "error: series agg/00-rw.csv: line 2: column read_lat_mean_us: {moved} is not what merging its targets' rows makes, {mean}: an aggregate's series is its targets' series merged\n"
    );
    refused_by(d, &["validate", &agg], &want);
}
