//! fio's `unified_rw_reporting` (attack 22 F4): its `mixed` block, alone (`=1`, `mixed`: the phase's
//! total, its split into directions unknown, shown `-` with a note by `compare`, never 0) or beside the
//! directions (`=2`, `both`: held to their sum, as fio 3.33 makes it). Fixtures from real fio 3.33 runs
//! (tests/data/fio/README.md).

use crate::common::*;
use serde_json::{Value, json};
use std::path::Path;

const MIXED: &str = "fio-3.33-unified-mixed.json";
const BOTH: &str = "fio-3.33-unified-both-plus.json";

/// The fixture `name` of tests/data/fio, as text.
fn text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fio")
        .join(name);
    std::fs::read_to_string(path).expect("fixture")
}

/// The fixture `name` read as results.
fn read(name: &str, text: &str) -> wkrun::results::Results {
    wkrun::fio::json::from_bytes(name, text.as_bytes()).expect("reads")
}

/// The warning of a job reported in its mixed block alone, as wkrun words it.
const ALONE: &str = "fio reported this job's reads, writes and trims together (unified_rw_reporting=1: its mixed block): the phase's total is that block (I/Os, bytes, IOPS, bandwidth, latency); how many were reads, writes or trims is unknown (read and write are 0 here: unknown, not none; compare shows their rows -), and so are its syncs (fio writes no sync block then)";

/// `fio --name=u --filename=t.dat --rw=randrw --bs=4k --size=4M --unified_rw_reporting=1
/// --output-format=json`: fio 3.33 wrote a `mixed` block alone, 1024 I/Os of 4 MiB in 52 ms. Its total is
/// that block (it read as 0 IOPS), its reads and writes unknown (0 with the warning), and its IOPS,
/// bandwidth and latency are fio's figures.
#[test]
fn a_mixed_block_alone_is_the_phase_total() {
    let doc: Value = serde_json::from_str(&text(MIXED)).expect("JSON");
    let j = &doc["jobs"][0];
    assert!(j.get("read").is_none() && j.get("write").is_none() && j.get("sync").is_none());
    let m = &j["mixed"];
    assert_eq!(
        (
            m["total_ios"].as_u64(),
            m["io_bytes"].as_u64(),
            m["runtime"].as_u64()
        ),
        (Some(1024), Some(4 << 20), Some(52))
    );
    let r = read(MIXED, &text(MIXED));
    let p = &r.phases[0];
    assert_eq!((p.total.ops, p.total.bytes), (1024, 4_194_304));
    assert_eq!(
        (p.total.iops, p.total.bw_bytes_per_s),
        (19692.307692, 80_659_692.0)
    );
    assert_eq!((p.read.ops, p.write.ops, p.read_share), (0, 0, None));
    assert_eq!((p.iops(), p.bw_bytes_per_s()), (19692.307692, 80_659_692.0));
    assert!(p.split_unknown());
    assert_eq!(p.duration_s, 0.052);
    let l = p
        .total
        .latency_ns
        .as_ref()
        .expect("the mixed block's latency");
    assert_eq!((l.min, l.mean, l.max), (1133, 49501.474609, 6_485_570));
    // Percentiles are fio's clat's (psync: its whole time), p99 1597440 ns.
    assert_eq!((l.p50, l.p99), (2576, 1_597_440));
    assert_eq!(wkrun::fio::json::split_unknown(p), Some(ALONE));
    let fig = |k: &str| p.headline.iter().find(|f| f.key == k).and_then(|f| f.value);
    assert_eq!(fig("mean iops"), Some(19692.307692));
    assert_eq!(fig("mean lat_mean_us"), Some(49501.474609 / 1e3));

    let d = tempdir();
    std::fs::write(d.path().join(MIXED), text(MIXED)).expect("write");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", MIXED]));
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", MIXED]));
    assert_eq!(code, 0, "{err}");
    let row = |words: &str| {
        out.lines()
            .find(|l| l.starts_with("u ") && l.contains(words))
            .map(|l| l.split_whitespace().last().unwrap_or("").to_string())
    };
    assert_eq!(row("IOPS, phase mean").as_deref(), Some("19692.3"), "{out}");
    assert_eq!(
        row("bandwidth, phase mean (MB/s)").as_deref(),
        Some("80.66"),
        "{out}"
    );
    assert_eq!(
        row("latency, phase mean (µs)").as_deref(),
        Some("49.50"),
        "{out}"
    );
    assert_eq!(row("read IOPS"), None, "{out}");
    assert!(
        out.contains(&format!("; phase u: {ALONE}")),
        "the note under the table: {out}"
    );
}

/// Beside a run that has the directions (the same job under `unified_rw_reporting=both`), the mixed
/// job's direction rows show `-` with the note, not 0.
#[test]
fn compare_shows_an_unknown_split_as_a_dash_with_a_note() {
    let d = tempdir();
    for f in [MIXED, BOTH] {
        std::fs::write(d.path().join(f), text(f)).expect("write");
    }
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", MIXED, BOTH]));
    assert_eq!(code, 0, "{err}");
    let cells = |words: &str| -> Option<Vec<String>> {
        let l = out
            .lines()
            .find(|l| l.starts_with("u ") && l.contains(words))?;
        let t: Vec<&str> = l.split_whitespace().collect();
        Some(t[t.len() - 2..].iter().map(|s| s.to_string()).collect())
    };
    assert_eq!(
        cells("read IOPS, phase mean [1]"),
        Some(vec!["-".to_string(), "5833.3".to_string()]),
        "{out}"
    );
    assert_eq!(
        cells("write IOPS, phase mean [1]"),
        Some(vec!["-".to_string(), "730.8".to_string()]),
        "{out}"
    );
    assert!(
        out.contains(&format!("[1] unknown, shown -: fio: {MIXED}: {ALONE}")),
        "{out}"
    );
}

/// `fio --name=u --filename=t.dat --rw=randrw --rwmixread=90 --bs=4k --size=2M --direct=1
/// --ioengine=libaio --iodepth=4 --unified_rw_reporting=both --output-format=json+`: fio 3.33 wrote the
/// directions (455 reads, 57 writes) and a mixed block of their sum (512; latency pooled, bins added). The
/// phase is the directions', as without the option; the mixed block is held to their sum; without json+
/// bins the total's percentiles are the mixed block's, fio's own of both directions.
#[test]
fn both_is_the_directions_and_holds_the_mixed_block_to_their_sum() {
    let doc: Value = serde_json::from_str(&text(BOTH)).expect("JSON");
    let r = read(BOTH, &text(BOTH));
    let p = &r.phases[0];
    assert_eq!((p.read.ops, p.write.ops, p.total.ops), (455, 57, 512));
    assert_eq!(p.iops(), 5833.333333 + 730.769231);
    assert!(!p.split_unknown() && wkrun::fio::json::split_unknown(p).is_none());
    let t = p.total.latency_ns.as_ref().expect("total latency");
    assert_eq!((t.min, t.max), (853, 5_333_610));
    let d = tempdir();
    let refused = |doc: &Value, want: &str| {
        std::fs::write(d.path().join("f.json"), doc.to_string()).expect("write");
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", "f.json"]));
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains(want), "{want}\n{err}");
    };
    std::fs::write(d.path().join(BOTH), text(BOTH)).expect("write");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", BOTH]));
    assert_eq!(code, 0, "{out}{err}");
    let mut forged = doc.clone();
    forged["jobs"][0]["mixed"]["clat_ns"]["max"] = json!(5_330_000);
    refused(
        &forged,
        "jobs[0].mixed.clat_ns.max is 5330000: not the most of the job's read, write and trim, 5330966 (fio's mixed block sums them)",
    );
    let mut forged = doc.clone();
    forged["jobs"][0]["mixed"]["clat_ns"]["mean"] = json!(485_160.0);
    refused(
        &forged,
        "jobs[0].mixed.clat_ns.mean is 485160: not the mean by N of the job's read, write and trim, 485159.177734 (fio's mixed block sums them)",
    );
    // Without bins (fio's json): the mixed block's percentiles are the total's.
    let mut plain = doc.clone();
    for b in ["read", "write", "trim", "mixed"] {
        for k in ["clat_ns", "lat_ns", "slat_ns"] {
            if let Some(o) = plain["jobs"][0][b][k].as_object_mut() {
                o.remove("bins");
            }
        }
    }
    let r = read("plain.json", &plain.to_string());
    let t = r.phases[0]
        .total
        .latency_ns
        .as_ref()
        .expect("the mixed block's");
    let pct = &doc["jobs"][0]["mixed"]["clat_ns"]["percentile"];
    assert_eq!(Some(t.p99), pct["99.000000"].as_u64());
    assert_eq!(t.p99, 5_144_576);
    assert_eq!(Some(t.p50), pct["50.000000"].as_u64());
}
