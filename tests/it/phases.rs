//! Each phase kind on a real file, checked byte for byte: fill (data of each op, passes, span), erase (holes,
//! case C09), restore-image (synthetic and file images), a workload's span, and the strict read-back of
//! results.json.

use crate::common::*;
use wkrun::data::DataGen;
use wkrun::image::synthetic_fill;
use wkrun::ops::{Mix, OpStream, Order, phase_seed};
use wkrun::spec::DataPattern;
use wkrun::vocab::Direction;

const MIB: u64 = 1 << 20;

#[test]
fn fill_writes_span_bytes_per_pass_with_the_data_of_each_op() {
    let (d, target) = patterned_target_dir((16 * MIB) as usize);
    // Span [4 MiB, 12 MiB): 128 blocks of 64 KiB, two passes. QD1 keeps the passes in order, so the second
    // pass's data is what remains.
    let out = run_ok(
        d.path(),
        "fill",
        r#"
[[phase]]
name = "fill"
kind = "fill"
offset = "25%"
span = "50%"
block_size = "64KiB"
queue_depth = 1
passes = 2
seed = 7
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    let (start, span, bs, blocks) = (4 * MIB, 8 * MIB, 64 << 10, 128u64);
    assert_eq!(u(p, "/params/span_start_bytes"), start);
    assert_eq!(u(p, "/params/span_bytes"), span);
    assert_eq!(u(p, "/params/expected_bytes"), 2 * span);
    assert_eq!(u(p, "/params/ops"), 2 * blocks);
    assert_eq!(u(p, "/write/bytes"), 2 * span, "span bytes × passes");
    assert_eq!(u(p, "/write/ops"), 2 * blocks, "span / bs × passes");
    assert_eq!(u(p, "/read/ops"), 0);
    assert_eq!(p["kind"], "fill");

    // The op stream itself: op i writes block i mod blocks of the span.
    let stream = OpStream {
        span_start: start,
        span_len: span,
        sizes: wkrun::ops::Sizes::Fixed(bs),
        order: Order::Sequential,
        mix: Mix::read_write(0),
        seed: phase_seed(7, "fill"),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: Some(2 * blocks),
    };
    for op in stream.ops(0..2 * blocks) {
        assert_eq!(
            (op.dir, op.offset, op.len),
            (
                Direction::Write,
                start + (op.index % blocks) * bs,
                bs as u32
            ),
            "op {}",
            op.index
        );
    }

    let data = read(&target);
    assert_eq!(data.len() as u64, 16 * MIB, "the file keeps its size");
    // Pass 1 (0-based): block b of the span holds op blocks + b.
    assert_op_blocks(
        &data,
        start,
        bs,
        blocks..2 * blocks,
        phase_seed(7, "fill"),
        "the span",
    );
    assert_patterned_around(&data, start, start + span, "the span");
}

#[test]
fn c09_erase_file() {
    let (d, target) = patterned_target_dir((16 * MIB) as usize);
    let before = allocated_blocks(&target);
    assert!(
        before >= 16 * MIB / 512,
        "the patterned file is allocated ({before} blocks)"
    );
    let out = run_ok(
        d.path(),
        "erase",
        r#"
[[phase]]
name = "purge"
kind = "erase"
offset = "25%"
span = "50%"
"#,
        &target,
    );
    let (typed, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(p["kind"], "erase");
    assert_eq!(
        p["erase_method"], "punch-hole",
        "the method used is recorded"
    );
    assert_eq!(p["params"]["method"], "auto");
    assert_eq!(u(p, "/erased_bytes"), 8 * MIB);
    assert_eq!(u(p, "/params/span_start_bytes"), 4 * MIB);
    assert_eq!(u(p, "/params/span_bytes"), 8 * MIB);
    assert_eq!((u(p, "/read/ops"), u(p, "/write/ops")), (0, 0));
    assert!(
        typed.phases[0].series_csv.is_none(),
        "an erase issues no I/O and has no series"
    );

    let data = read(&target);
    assert_eq!(data.len() as u64, 16 * MIB, "punching keeps the file size");
    assert_patterned_around(&data, 4 * MIB, 12 * MIB, "the erased span");
    assert_zeros(
        &data[(4 * MIB) as usize..(12 * MIB) as usize],
        4 * MIB,
        "the erased span",
    );
    let after = allocated_blocks(&target);
    assert!(
        before - after >= 8 * MIB / 512,
        "the span's blocks are deallocated: {before} → {after} blocks of 512 B"
    );
    assert!(
        after >= 8 * MIB / 512,
        "the bytes outside the span stay allocated ({after} blocks)"
    );
}

#[test]
fn c09_file_refuses_block_device_erase_methods_at_plan_time() {
    for method in ["discard", "secure-discard", "zero-out"] {
        let (d, target) = patterned_target_dir(MIB as usize);
        let body = format!(
            "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n\n[[phase]]\nname = \"purge\"\nkind = \"erase\"\nmethod = \"{method}\"\n"
        );
        let (o, out) = run_spec(d.path(), "erase", &body, &target, &[]);
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 2, "{method}: {err}");
        assert!(
            err.contains("block devices") && err.contains(method),
            "{method}: {err}"
        );
        assert!(
            !out.join("results.json").exists(),
            "{method}: refused before the run"
        );
        assert_patterned(
            &read(&target),
            0,
            "target of a refused spec (the fill before the erase must not run)",
        );
    }
}

#[test]
fn restore_synthetic_image_equals_synthetic_fill() {
    let (d, target) = patterned_target_dir((16 * MIB) as usize);
    // 3000 KiB at 1 MiB per I/O: two whole I/Os and a short last one, restored to the start of a span at 1 MiB.
    let out = run_ok(
        d.path(),
        "restore",
        r#"
[[phase]]
name = "restore"
kind = "restore-image"
image = "synthetic"
image_size = "3000KiB"
offset = "1MiB"
span = "50%"
block_size = "1MiB"
queue_depth = 2
seed = 5
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    let (start, len) = (MIB, 3000u64 << 10);
    assert_eq!(u(p, "/params/image_bytes"), len);
    assert_eq!(u(p, "/write/bytes"), len);
    assert_eq!(u(p, "/write/ops"), 3);
    assert_eq!(u(p, "/read/ops"), 0);

    let mut image = vec![0u8; len as usize];
    synthetic_fill(5, 0, &mut image);
    let data = read(&target);
    let got = &data[start as usize..(start + len) as usize];
    assert_eq!(
        sha256_hex(got),
        sha256_hex(&image),
        "SHA-256 of the restored bytes"
    );
    assert!(
        got == &image[..],
        "restored bytes equal the synthetic image"
    );
    assert!(
        image.contains(&0) && image.iter().any(|&b| b != 0),
        "the image mixes zero and data extents"
    );
    assert_patterned_around(&data, start, start + len, "the image");
}

#[test]
fn restore_image_file_relative_to_the_spec_folder() {
    let (d, target) = patterned_target_dir((16 * MIB) as usize);
    // The spec lives in specs/, the image in specs/img/; wkrun runs from the parent folder, so the image path
    // resolves against the spec's folder, not the current directory.
    let spec_dir = d.path().join("specs");
    std::fs::create_dir_all(spec_dir.join("img")).expect("mkdir");
    let len = MIB + 3 * 512; // 17 I/Os of 64 KiB, the last one 1536 B
    let image = noise(len as usize, 42);
    std::fs::write(spec_dir.join("img/disk.raw"), &image).expect("write image");
    write_file(
        &spec_dir,
        "spec.toml",
        &spec_text(
            "restore-file",
            r#"
[[phase]]
name = "restore"
kind = "restore-image"
image = "img/disk.raw"
block_size = "64KiB"
queue_depth = 2
"#,
        ),
    );
    let o = wkrun(
        d.path(),
        &[
            "specs/spec.toml",
            "--target",
            "t.img",
            "--output",
            "out",
            "-q",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let out = d.path().join("out");
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(p["params"]["image"], "img/disk.raw");
    assert_eq!(u(p, "/params/image_bytes"), len);
    assert_eq!(u(p, "/write/bytes"), len);
    assert_eq!(u(p, "/write/ops"), 17);
    let data = read(&target);
    assert_eq!(sha256_hex(&data[..len as usize]), sha256_hex(&image));
    assert!(
        data[..len as usize] == image[..],
        "target bytes equal the image"
    );
    assert_patterned(&data[len as usize..], len, "after the image");
}

#[test]
fn workload_never_touches_bytes_outside_its_span() {
    let (d, target) = patterned_target_dir((16 * MIB) as usize);
    let out = run_ok(
        d.path(),
        "span",
        r#"
[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
read_percent = 50
offset = "25%"
span = "50%"
block_size = "4KiB"
queue_depth = 1
duration = "1s"
seed = 3
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    let (start, span, bs) = (4 * MIB, 8 * MIB, 4096u64);
    assert_eq!(
        (u(p, "/params/span_start_bytes"), u(p, "/params/span_bytes")),
        (start, span)
    );
    let (reads, writes) = (u(p, "/read/ops"), u(p, "/write/ops"));
    assert!(
        reads > 0 && writes > 0,
        "a 50 % mix for 1 s does both: {reads} reads, {writes} writes"
    );

    // At QD1 the ops that ran are exactly ops 0..reads+writes of the stream, in order: replay them.
    let stream = OpStream {
        span_start: start,
        span_len: span,
        sizes: wkrun::ops::Sizes::Fixed(bs),
        order: Order::Random,
        mix: Mix::read_write(50),
        seed: phase_seed(3, "mix"),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: None,
    };
    let ops = ops_below(&stream, reads + writes);
    assert_eq!(
        ops.iter().filter(|o| o.dir == Direction::Read).count() as u64,
        reads,
        "the replayed stream has the reported reads"
    );
    let mut last_writer = std::collections::HashMap::new();
    for op in &ops {
        assert!(
            op.offset >= start && op.offset + bs <= start + span,
            "op {} at {} is outside the span",
            op.index,
            op.offset
        );
        if op.dir == Direction::Write {
            last_writer.insert(op.offset, op.index);
        }
    }
    let data = read(&target);
    assert_patterned_around(&data, start, start + span, "the span");
    let datagen = DataGen::new(DataPattern::Random, phase_seed(3, "mix"), bs as usize);
    let mut want = vec![0u8; bs as usize];
    for off in (start..start + span).step_by(bs as usize) {
        let got = &data[off as usize..(off + bs) as usize];
        match last_writer.get(&off) {
            Some(&i) => {
                datagen.fill(&mut want, i);
                assert!(
                    got == &want[..],
                    "block at {off} is not the data of op {i}, its last write"
                );
            }
            None => assert_patterned(got, off, "a block no op wrote"),
        }
    }
}

#[test]
fn size_bounded_workload_issues_exactly_its_ops() {
    let (d, target) = patterned_target_dir((4 * MIB) as usize);
    // size = 150 % of a 1 MiB span at 4 KiB: 384 I/Os, whatever the queue depth; 30 % reads.
    let out = run_ok(
        d.path(),
        "size",
        r#"
[[phase]]
name = "mix"
kind = "workload"
read_percent = 30
offset = "1MiB"
span = "1MiB"
size = "150%"
queue_depth = 4
seed = 8
"#,
        &target,
    );
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    assert_eq!(u(p, "/params/ops"), 384);
    assert_eq!(u(p, "/params/expected_bytes"), 384 * 4096);
    let stream = OpStream {
        span_start: MIB,
        span_len: MIB,
        sizes: wkrun::ops::Sizes::Fixed(4096),
        order: Order::Random,
        mix: Mix::read_write(30),
        seed: phase_seed(8, "mix"),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: Some(384),
    };
    let ops = ops_below(&stream, 384);
    let reads = ops.iter().filter(|o| o.dir == Direction::Read).count() as u64;
    assert_eq!(
        u(p, "/read/ops"),
        reads,
        "every op of the stream ran once: its reads"
    );
    assert_eq!(u(p, "/write/ops"), 384 - reads, "and its writes");
    assert_eq!(u(p, "/read/bytes") + u(p, "/write/bytes"), 384 * 4096);
    // Every op ran, so each block's content is its last writer's data whatever the interleaving, unless two
    // writes to one block raced; check the blocks with exactly one write, and that the rest of the file is intact.
    let mut writers: std::collections::HashMap<u64, Vec<u64>> = std::collections::HashMap::new();
    for op in ops.iter().filter(|o| o.dir == Direction::Write) {
        writers.entry(op.offset).or_default().push(op.index);
    }
    let data = read(&target);
    assert_patterned_around(&data, MIB, 2 * MIB, "the span");
    let datagen = DataGen::new(DataPattern::Random, phase_seed(8, "mix"), 4096);
    let mut want = vec![0u8; 4096];
    for off in (MIB..2 * MIB).step_by(4096) {
        let got = &data[off as usize..off as usize + 4096];
        match writers.get(&off).map(Vec::as_slice) {
            None => assert_patterned(got, off, "a block no op wrote"),
            Some(ws) => {
                let ok = ws.iter().any(|&i| {
                    datagen.fill(&mut want, i);
                    got == &want[..]
                });
                assert!(
                    ok,
                    "block at {off} holds none of the data of its writes {ws:?}"
                );
            }
        }
    }
}

#[test]
fn results_json_reads_back_into_strict_types_and_the_schema() {
    let (d, target) = sparse_target_dir(16 * MIB);
    let out = run_ok(
        d.path(),
        "strict",
        r#"
[defaults]
seed = 9

[[phase]]
name = "purge"
kind = "erase"

[[phase]]
name = "fill"
kind = "fill"
block_size = "256KiB"
queue_depth = 2

[[phase]]
name = "restore"
kind = "restore-image"
image = "synthetic"
image_size = "2MiB"

[[phase]]
name = "mix"
kind = "workload"
read_percent = 70
queue_depth = 2
duration = "1s"
"#,
        &target,
    );
    let (typed, r) = strict_results(&out);
    assert_eq!(r["status"], "completed");
    assert_eq!(typed.format, 1);
    assert_eq!(typed.spec.name, "strict");
    assert_eq!(
        typed.spec.sha256,
        sha256_hex(&read(&d.path().join("spec.toml"))),
        "spec.sha256 is that of the spec file's bytes"
    );
    assert_eq!(typed.target.capacity_bytes, 16 * MIB);
    assert!(typed.finished_at.is_some());
    let kinds: Vec<&str> = typed.phases.iter().map(|p| p.kind.as_str()).collect();
    assert_eq!(kinds, ["erase", "fill", "restore-image", "workload"]);
    for (i, p) in typed.phases.iter().enumerate() {
        assert_eq!(p.index, i);
        assert!(p.completed, "phase {i}");
        assert!(p.duration_s.is_finite() && p.duration_s >= 0.0);
        if p.kind.as_str() != "erase" {
            let csv = p
                .series_csv
                .as_deref()
                .unwrap_or_else(|| panic!("phase {i} has a series"));
            assert_eq!(csv, format!("{i:02}-{}.csv", p.name));
            assert_eq!(
                p.intervals,
                Some(csv_rows(&out.join(csv)).len() as u64),
                "phase {i}: intervals = CSV rows"
            );
        }
    }
    assert_eq!(typed.phases[1].write.bytes, 16 * MIB);
    assert_eq!(typed.phases[2].write.bytes, 2 * MIB);
}

#[test]
fn nvme_format_is_refused_on_a_file() {
    let (d, target) = patterned_target_dir(1 << 20);
    let spec = write_file(
        d.path(),
        "s.toml",
        &spec_text(
            "nvme",
            "[[phase]]\nname = \"purge\"\nkind = \"erase\"\nmethod = \"nvme-format\"\n",
        ),
    );
    let o = wkrun(
        d.path(),
        &[
            "plan",
            spec.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("s.toml:8:1: phase[0] \"purge\".method: erase method \"nvme-format\" is for whole NVMe namespaces"), "{err}");
}
