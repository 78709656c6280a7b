//! Cases C05 (multi-worker fill), C10 (data patterns, reads of never-written space) and C12 (the results
//! file), on real files with exact values.

use crate::common::*;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use wkrun::data::DataGen;
use wkrun::ops::{Mix, OpStream, Order, phase_seed};
use wkrun::spec::DataPattern;
use wkrun::vocab::Direction;

const MIB: u64 = 1 << 20;

/// Bytes after deflate (zlib format, default level).
fn deflated_len(data: &[u8]) -> usize {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(data).expect("compress");
    z.finish().expect("compress").len()
}

/// Longest run of zero bytes.
fn longest_zero_run(data: &[u8]) -> usize {
    data.split(|&b| b != 0).map(<[u8]>::len).max().unwrap_or(0)
}

#[test]
fn c05_multiworker_fill_writes_each_block_once_in_place() {
    let (d, target) = sparse_target_dir(64 * MIB);
    let out = run_ok(
        d.path(),
        "c05",
        r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "4KiB"
queue_depth = 8
seed = 3
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(u(p, "/params/queue_depth"), 8);
    assert_eq!(
        u(p, "/write/bytes"),
        67_108_864,
        "the span once, not once per worker"
    );
    assert_eq!(u(p, "/write/ops"), 16_384);
    assert_eq!(u(p, "/read/ops"), 0);
    // Op i writes block i and its data is unique to i: block b holding op b's data means op b wrote it, in
    // place, and no other op overwrote it; a block never written would read as zeros (sparse file).
    let data = read(&target);
    assert_eq!(data.len() as u64, 64 * MIB);
    assert_op_blocks(&data, 0, 4096, 0..16_384, phase_seed(3, "fill"), "the fill");
}

#[test]
fn c10_random_data_is_unique_and_incompressible() {
    let (d, target) = sparse_target_dir(64 * MIB);
    let out = run_ok(
        d.path(),
        "c10",
        r#"
[[phase]]
name = "rw"
kind = "workload"
pattern = "random"
read_percent = 0
block_size = "4KiB"
queue_depth = 8
duration = "2s"
data = "random"
seed = 11
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    let writes = u(phase(&r, 0), "/write/ops");
    assert!(writes > 0);
    // The file was sparse: the blocks that are not zero are the written ones. Each must hold the data of one
    // of the ops that target it. With 8 workers claiming chunks of 1024 ops, every op that ran has an index
    // below writes + 8 × 1024.
    let stream = OpStream {
        span_start: 0,
        span_len: 64 * MIB,
        sizes: wkrun::ops::Sizes::Fixed(4096),
        order: Order::Random,
        mix: Mix::read_write(0),
        seed: phase_seed(11, "rw"),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: None,
    };
    let mut writers: HashMap<u64, Vec<u64>> = HashMap::new();
    for op in stream.ops(0..writes + 8 * 1024) {
        assert_eq!(op.dir, Direction::Write);
        writers.entry(op.offset).or_default().push(op.index);
    }
    let data = read(&target);
    let datagen = DataGen::new(DataPattern::Random, phase_seed(11, "rw"), 4096);
    let mut want = vec![0u8; 4096];
    let mut written: Vec<&[u8]> = Vec::new();
    for (b, block) in data.chunks(4096).enumerate() {
        if block.iter().all(|&x| x == 0) {
            continue;
        }
        let off = b as u64 * 4096;
        let candidates = writers
            .get(&off)
            .unwrap_or_else(|| panic!("block at {off} changed but no op writes it"));
        let ok = candidates.iter().any(|&i| {
            datagen.fill(&mut want, i);
            block == &want[..]
        });
        assert!(
            ok,
            "block at {off} holds none of the data of its ops {candidates:?}"
        );
        written.push(block);
    }
    assert!(
        !written.is_empty() && written.len() as u64 <= writes,
        "{} written blocks for {writes} writes",
        written.len()
    );
    let distinct: HashSet<&[u8]> = written.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        written.len(),
        "no two written 4 KiB blocks are identical"
    );
    // Up to 4 MiB of written blocks, in offset order: deflate saves less than 1 %.
    let sample: Vec<u8> = written
        .iter()
        .take(1024)
        .flat_map(|b| b.iter().copied())
        .collect();
    let z = deflated_len(&sample);
    assert!(
        z as f64 >= 0.99 * sample.len() as f64,
        "random data compressed from {} to {z} B",
        sample.len()
    );
}

#[test]
fn c10_zeros_data_writes_zeros() {
    let (d, target) = patterned_target_dir((16 * MIB) as usize);
    let out = run_ok(
        d.path(),
        "c10z",
        r#"
[[phase]]
name = "zw"
kind = "workload"
read_percent = 0
block_size = "4KiB"
queue_depth = 1
duration = "1s"
data = "zeros"
seed = 2
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    assert_eq!(phase(&r, 0)["params"]["data"], "zeros");
    let writes = u(phase(&r, 0), "/write/ops");
    assert!(writes > 0);
    // QD1: the ops that ran are ops 0..writes of the stream.
    let stream = OpStream {
        span_start: 0,
        span_len: 16 * MIB,
        sizes: wkrun::ops::Sizes::Fixed(4096),
        order: Order::Random,
        mix: Mix::read_write(0),
        seed: phase_seed(2, "zw"),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: None,
    };
    let hit: HashSet<u64> = stream.ops(0..writes).map(|o| o.offset).collect();
    let data = read(&target);
    for (b, block) in data.chunks(4096).enumerate() {
        let off = b as u64 * 4096;
        if hit.contains(&off) {
            assert_zeros(block, off, "a block written with data = \"zeros\"");
        } else {
            assert_patterned(block, off, "a block no op wrote");
        }
    }
}

/// Fills 16 MiB with `compressible:{pct}%` in 128 KiB blocks; returns the blocks as read back, each checked
/// against the data of its op.
fn compressible_fill(pct: u8) -> Vec<Vec<u8>> {
    let (d, target) = sparse_target_dir(16 * MIB);
    let body = format!(
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 2\ndata = \"compressible:{pct}%\"\nseed = 4\n"
    );
    let out = run_ok(d.path(), "c10c", &body, &target);
    let (_, r) = strict_results(&out);
    assert_eq!(
        phase(&r, 0)["params"]["data"],
        format!("compressible:{pct}%")
    );
    assert_eq!(u(phase(&r, 0), "/write/bytes"), 16 * MIB);
    let data = read(&target);
    let datagen = DataGen::new(
        DataPattern::Compressible(pct),
        phase_seed(4, "fill"),
        128 << 10,
    );
    let mut want = vec![0u8; 128 << 10];
    data.chunks(128 << 10)
        .enumerate()
        .map(|(i, block)| {
            datagen.fill(&mut want, i as u64);
            assert!(block == &want[..], "block {i} is not the data of op {i}");
            block.to_vec()
        })
        .collect()
}

#[test]
fn c10_compressible_50_compresses_to_half_without_zero_runs() {
    for (i, block) in compressible_fill(50).iter().enumerate() {
        let ratio = deflated_len(block) as f64 / block.len() as f64;
        assert!(
            (0.45..=0.55).contains(&ratio),
            "block {i} compresses to {:.1} %",
            ratio * 100.0
        );
        let run = longest_zero_run(block);
        assert!(run <= 512, "block {i} has a zero run of {run} B");
    }
}

#[test]
fn c10_compressible_75_compresses_to_a_quarter() {
    // docs/spec.md: `compressible:N%` means N % of each 512-byte chunk is filler (fio's
    // buffer_compress_percentage), so a block compresses to roughly (100 − N) %: 75 % → about 26 % with zlib.
    for (i, block) in compressible_fill(75).iter().enumerate() {
        let ratio = deflated_len(block) as f64 / block.len() as f64;
        assert!(
            (0.20..=0.31).contains(&ratio),
            "compressible:75%: block {i} compresses to {:.1} %",
            ratio * 100.0
        );
        let run = longest_zero_run(block);
        assert!(run <= 512, "block {i} has a zero run of {run} B");
    }
}

/// Reads of never-written space: a sparse file that holds no data gets the one-line warning (the file
/// system's map says what earlier runs wrote: a second run on the same file after a fill gets none); a
/// file wkrun creates for a spec that reads first is laid out (written once, before the first phase,
/// recorded as `target.laid_out`), so its reads reach written blocks and get no warning (issue 24, round 2).
#[test]
fn c10_reads_of_never_written_space_are_flagged() {
    let read_phase =
        "[[phase]]\nname = \"rr\"\nkind = \"workload\"\nread_percent = 100\nduration = \"1s\"\n";
    let fill = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n";
    let d = tempdir();
    // Runs `body` on `target` (with `args`) into the folder `out`: the typed results and stderr.
    let run = |body: &str, target: &str, out: &str, args: &[&str]| {
        write_file(d.path(), "s.toml", &spec_text("c10", body));
        let all = [&["s.toml", "--target", target, "-o", out][..], args].concat();
        let (code, _, err) = code_out_err(&wkrun(d.path(), &all));
        assert_eq!(code, 0, "{err}");
        (strict_results(&d.path().join(out)).0, err)
    };
    let none = Vec::<String>::new();
    // An existing sparse file, never written: the reads carry a warning.
    sparse_file(&d.path().join("sparse.img"), 16 * MIB);
    let (r, _) = run(read_phase, "sparse.img", "a", &[]);
    assert!(!r.target.laid_out);
    assert_eq!(
        device_warnings_of(&r.phases[0].warnings),
        [
            "never-written reads: 100.0 % of the span holds no written data: add a fill phase before this one, or reads there may not reach the device (read span [0, 16777216), first gap [0, 16777216))"
        ]
    );
    // A fill in one run, the reads in the next: the file system's map says the span was written.
    run(fill, "sparse.img", "b", &[]);
    let (r, _) = run(read_phase, "sparse.img", "c", &[]);
    assert_eq!(device_warnings_of(&r.phases[0].warnings), none);
    // A file wkrun creates: laid out before the reads (said on stderr), no warning.
    let (r, err) = run(read_phase, "fresh.img", "d", &["--target-size", "16MiB"]);
    assert_eq!(r.target.capacity_bytes, 16 * MIB);
    assert!(r.target.created && r.target.laid_out);
    assert!(r.phases[0].read.ops > 0);
    assert_eq!(device_warnings_of(&r.phases[0].warnings), none);
    assert!(
        err.contains("laying out fresh.img: writing its 16777216 B once before phase 0 reads it"),
        "{err}"
    );
    // Every 4 KiB block of the file holds data (random, so none is all zeros).
    let data = read(&d.path().join("fresh.img"));
    assert_eq!(data.len() as u64, 16 * MIB);
    assert_eq!(
        data.chunks(4096)
            .filter(|b| b.iter().all(|&x| x == 0))
            .count(),
        0
    );
    // A rerun on the laid-out file: no warning, no second layout.
    let (r, err) = run(read_phase, "fresh.img", "e", &[]);
    assert!(!r.target.laid_out && !err.contains("laying out"), "{err}");
    assert_eq!(device_warnings_of(&r.phases[0].warnings), none);
    // A spec that fills first is not laid out: the fill writes the span.
    let (r, _) = run(
        &format!("{fill}\n{read_phase}"),
        "f.img",
        "f",
        &["--target-size", "16MiB"],
    );
    assert!(r.target.created && !r.target.laid_out);
    assert_eq!(device_warnings_of(&r.phases[1].warnings), none);
}

#[test]
fn c12_results_json() {
    let (d, _target) = sparse_target_dir(16 * MIB);
    write_file(
        d.path(),
        "spec.toml",
        &spec_text(
            "c12",
            r#"
[[phase]]
name = "purge"
kind = "erase"

[[phase]]
name = "w"
kind = "workload"
read_percent = 0
queue_depth = 2
duration = "1s"
"#,
        ),
    );
    // Progress output on (no -q): it goes to stderr, never into the results file.
    let o = wkrun(
        d.path(),
        &["spec.toml", "--target", "t.img", "--output", "out"],
    );
    let (code, stdout, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    assert!(!err.is_empty(), "progress is printed (to stderr)");
    let out = d.path().join("out");
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    assert!(
        text.starts_with('{') && text.trim_end().ends_with('}'),
        "one JSON object and nothing else"
    );
    let whole: serde_json::Value =
        serde_json::from_str(&text).expect("the whole file is one JSON document");
    assert!(
        !stdout.contains("\"phases\""),
        "results are not printed to stdout"
    );
    let (typed, r) = strict_results(&out);
    assert_eq!(whole, r);
    assert_eq!(r["status"], "completed");
    assert!(r.get("error").is_none());

    let w = phase(&r, 1);
    assert_eq!(u(w, "/read/ops"), 0);
    assert_eq!(u(w, "/read/bytes"), 0);
    assert_eq!(w["read"]["iops"].as_f64(), Some(0.0));
    assert_eq!(w["read"]["bw_bytes_per_s"].as_f64(), Some(0.0));
    assert!(
        w["read"]["latency_ns"].is_null(),
        "no reads: latency_ns is null, {}",
        w["read"]
    );
    assert!(u(w, "/write/ops") > 0);
    let lat = w["write"]["latency_ns"].as_object().expect("write latency");
    let lat_keys: Vec<&str> = lat.keys().map(String::as_str).collect();
    for k in [
        "min", "mean", "stddev", "max", "p50", "p90", "p99", "p99_9", "p99_99",
    ] {
        assert!(lat_keys.contains(&k), "latency_ns.{k} in {lat_keys:?}");
    }
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&w["read"]),
        keys(&w["write"]),
        "a direction with zero ops has the same keys as one with ops"
    );
    // The erase phase: no I/O in either direction, same shape.
    let e = phase(&r, 0);
    for dir in ["read", "write"] {
        assert_eq!(keys(&e[dir]), keys(&w["write"]), "erase {dir}");
        assert_eq!(u(e, &format!("/{dir}/ops")), 0);
        assert!(e[dir]["latency_ns"].is_null());
    }
    assert_eq!(typed.phases.len(), 2);
}

#[test]
fn c10_an_erase_flags_only_the_range_it_erased() {
    // Fill the whole target, erase its first half, then read each half. Only reads of the erased half read
    // trimmed blocks; the second half still holds the fill's data.
    let (d, target) = sparse_target_dir(16 * MIB);
    let out = run_ok(
        d.path(),
        "c10e",
        r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"

[[phase]]
name = "purge"
kind = "erase"
span = "50%"

[[phase]]
name = "read-kept-half"
kind = "workload"
read_percent = 100
offset = "50%"
duration = "200ms"

[[phase]]
name = "read-erased-half"
kind = "workload"
read_percent = 100
span = "50%"
duration = "200ms"
"#,
        &target,
    );
    let (typed, _) = strict_results(&out);
    assert!(
        device_warnings_of(&typed.phases[2].warnings).is_empty(),
        "[8 MiB, 16 MiB) was filled and not erased: {:?}",
        typed.phases[2].warnings
    );
    assert_eq!(
        device_warnings_of(&typed.phases[3].warnings),
        [
            "never-written reads: 100.0 % of the span holds no written data: add a fill phase before this one, or reads there may not reach the device (read span [0, 8388608), first gap [0, 8388608))"
        ],
        "[0, 8 MiB) was erased"
    );
}
