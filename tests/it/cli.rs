//! The first hour with wkrun (issue 16): the run summary's latency, mistyped subcommands, a results file
//! given to run, shell completions and the man page, the notes about the target size and unwritten reads.

use crate::common::*;

/// A latency as the summary prints it, written independently of wkrun's formatter: under 1 µs in ns (no
/// decimals), under 1 ms in µs (one decimal), under 1 s in ms (two decimals), else in s (two decimals), the
/// unit chosen so that the printed number stays under 1000.
fn lat_text(ns: f64) -> String {
    for (unit, scale, decimals) in [("ns", 1.0, 0), ("µs", 1e3, 1), ("ms", 1e6, 2)] {
        let shown = format!("{:.*}", decimals, ns / scale);
        if shown.parse::<f64>().expect("number") < 1000.0 {
            return format!("{shown} {unit}");
        }
    }
    format!("{:.2} s", ns / 1e9)
}

/// The expected latency line of phase `i` of `results`: `latency: read mean X, p99 Y; write mean …`.
fn expected_latency_line(results: &serde_json::Value, i: usize) -> String {
    let p = phase(results, i);
    let mut parts = Vec::new();
    for dir in ["read", "write"] {
        if p[dir]["ops"].as_u64().expect("ops") > 0 {
            let l = &p[dir]["latency_ns"];
            parts.push(format!(
                "{dir} mean {}, p99 {}",
                lat_text(l["mean"].as_f64().expect("mean")),
                lat_text(l["p99"].as_f64().expect("p99"))
            ));
        }
    }
    format!("      latency: {}", parts.join("; "))
}

/// The summary lines of phase `i`: from its `N reads, M writes` line to the next phase's header.
fn phase_lines(log: &str, i: usize) -> Vec<&str> {
    let head = format!("[phase {i}] ");
    log.lines()
        .skip_while(|l| !l.starts_with(&head))
        .skip(1)
        .take_while(|l| l.starts_with("      "))
        .skip_while(|l| !l.contains(" reads, "))
        .collect()
}

#[test]
fn the_run_summary_gives_mean_and_p99_latency_per_direction() {
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n\
                [[phase]]\nname = \"mixed\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                read_percent = 70\nsize = \"4MiB\"\n\
                [[phase]]\nname = \"reads\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                read_percent = 100\nsize = \"1MiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("summary", body));
    let o = wkrun(
        tmp.path(),
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "8MiB",
            "-o",
            "out",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, results) = strict_results(&tmp.path().join("out"));
    // The mixed workload: 1024 I/Os, each group of 100 with 70 reads (716 reads in 10 groups and 24 ops).
    assert_eq!(phase(&results, 1)["read"]["ops"], 716);
    assert_eq!(phase(&results, 1)["write"]["ops"], 308);
    for i in 0..3 {
        let lines = phase_lines(&err, i);
        let p = phase(&results, i);
        let (r, w) = (&p["read"], &p["write"]);
        let secs = p["duration_s"].as_f64().expect("duration");
        assert_eq!(
            lines[0],
            format!(
                "      {} reads, {} writes in {secs:.2} s: {:.0} IOPS, {:.1} MB/s",
                r["ops"],
                w["ops"],
                r["iops"].as_f64().expect("iops") + w["iops"].as_f64().expect("iops"),
                (r["bw_bytes_per_s"].as_f64().expect("bw")
                    + w["bw_bytes_per_s"].as_f64().expect("bw"))
                    / 1e6
            ),
            "{err}"
        );
        assert_eq!(lines[1], expected_latency_line(&results, i), "{err}");
    }
    // A write-only fill names only writes, a read-only workload only reads.
    assert!(
        phase_lines(&err, 0)[1].starts_with("      latency: write mean "),
        "{err}"
    );
    assert!(
        phase_lines(&err, 2)[1].starts_with("      latency: read mean "),
        "{err}"
    );
    assert!(!phase_lines(&err, 2)[1].contains("write"), "{err}");
}

#[test]
fn latency_units_switch_where_the_number_would_reach_1000() {
    for (ns, text) in [
        (850.0, "850 ns"),
        (999.4, "999 ns"),
        (999.6, "1.0 µs"),
        (21_349.0, "21.3 µs"),
        (999_940.0, "999.9 µs"),
        (999_960.0, "1.00 ms"),
        (1_254_000.0, "1.25 ms"),
        (2_500_000_000.0, "2.50 s"),
    ] {
        assert_eq!(lat_text(ns), text);
        assert_eq!(wkrun::run::progress::latency(ns), text);
    }
}
