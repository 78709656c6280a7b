//! Issue 13 item 10: percentiles that rest on too few latencies are flagged. A phase whose direction has
//! fewer than 10 latencies above one of its percentiles (p99.99 of 1,000 writes is their maximum) gets one
//! warning per direction naming those percentiles and the op count.

use crate::common::*;

/// The percentiles of a summary and their fractions: the test's own table, not the crate's.
const PCT: [(&str, f64); 5] = [
    ("p50", 0.5),
    ("p90", 0.9),
    ("p99", 0.99),
    ("p99.9", 0.999),
    ("p99.99", 0.9999),
];

/// Oracle: the percentiles of `n` latencies with fewer than 10 above them (n·(1 − q) < 10, with a margin
/// for the float product), and the warning wkrun should give for them.
fn expected(dir: &str, n: u64) -> Option<String> {
    let thin: Vec<&str> = PCT
        .iter()
        .filter(|(_, q)| (n as f64) * (1.0 - q) < 10.0 - 1e-6)
        .map(|(p, _)| *p)
        .collect();
    let (names, each) = match thin.as_slice() {
        [] => return None,
        [one] => (one.to_string(), "it, so it names one of"),
        [rest @ .., last] => (
            format!("{} and {last}", rest.join(", ")),
            "each, so they name",
        ),
    };
    Some(format!(
        "{dir} latency {names}: fewer than 10 of the {n} {dir}s lie above {each} the largest few latencies, not the tail"
    ))
}

#[test]
fn percentiles_resting_on_fewer_than_ten_latencies_are_flagged_per_direction() {
    let (d, target) = sparse_target_dir(8 << 20);
    let body = r#"[defaults]
engine = "psync"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
[[phase]]
name = "w1000"
kind = "workload"
pattern = "random"
block_size = "4KiB"
read_percent = 0
size = "4000KiB"
[[phase]]
name = "r999"
kind = "workload"
pattern = "random"
block_size = "4KiB"
read_percent = 100
size = "3996KiB"
[[phase]]
name = "null-r100000"
kind = "workload"
engine = "null"
pattern = "random"
block_size = "4KiB"
read_percent = 100
size = "400000KiB"
"#;
    let out = run_ok(d.path(), "tail", body, &target);
    let (_, r) = strict_results(&out);
    let counts = [(0, 8), (0, 1000), (999, 0), (100_000, 0)];
    for (i, &(reads, writes)) in counts.iter().enumerate() {
        let p = phase(&r, i);
        assert_eq!(
            (u(p, "/read/ops"), u(p, "/write/ops")),
            (reads, writes),
            "phase {i}"
        );
        let got: Vec<String> = p["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str())
            .filter(|w| is_thin_tail(w))
            .map(str::to_string)
            .collect();
        let (r_ops, w_ops) = (u(p, "/read/ops"), u(p, "/write/ops"));
        let want: Vec<String> = [("read", r_ops), ("write", w_ops)]
            .into_iter()
            .filter(|&(_, n)| n > 0)
            .filter_map(|(dir, n)| expected(dir, n))
            .collect();
        assert_eq!(got, want, "phase {i}");
    }
    // The exact texts, spelled out once: all five of 8 writes, three of 999 reads, none of 100,000.
    let text = |i: usize| -> Vec<String> {
        phase(&r, i)["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().filter(|w| is_thin_tail(w)).map(str::to_string))
            .collect()
    };
    assert_eq!(
        text(0),
        [
            "write latency p50, p90, p99, p99.9 and p99.99: fewer than 10 of the 8 writes lie above each, so they name the largest few latencies, not the tail"
        ]
    );
    assert_eq!(
        text(1),
        [
            "write latency p99.9 and p99.99: fewer than 10 of the 1000 writes lie above each, so they name the largest few latencies, not the tail"
        ]
    );
    assert_eq!(
        text(2),
        [
            "read latency p99, p99.9 and p99.99: fewer than 10 of the 999 reads lie above each, so they name the largest few latencies, not the tail"
        ]
    );
    assert!(text(3).is_empty(), "{:?}", text(3));
}
