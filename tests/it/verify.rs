//! Verification (issue 7, item 4): phases with `verify = true` stamp every 512-byte sector they write; a
//! `verify` phase reads the span back and counts zeroed, stale and corrupted sectors. The tests write a real file,
//! corrupt it in known ways between runs (`wkrun --from check` then runs only the verify phase, expecting what
//! the earlier phases of the plan wrote), and check the exact count of every class.

use crate::common::*;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use wkrun::data::DataGen;
use wkrun::ops::{Mix, Op, OpStream, Order, Sizes};
use wkrun::spec::DataPattern;
use wkrun::stamp::Stamp;
use wkrun::vocab::Direction;

const MIB: u64 = 1 << 20;
const CAP: u64 = 8 * MIB;

/// Fill (64 KiB, seed 1, verify), then 1,024 random 4 KiB writes (seed 7, QD1, verify), then a verify phase.
/// Each phase's stream is drawn from its seed and its name ([`w_seed`], [`fill_seed`]).
fn body(engine: &str, extra_check: &str) -> String {
    format!(
        r#"[defaults]
engine = "{engine}"
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
queue_depth = 4
verify = true
[[phase]]
name = "w"
kind = "workload"
block_size = "4KiB"
read_percent = 0
size = "50%"
seed = 7
verify = true
[[phase]]
name = "check"
kind = "verify"
max_listed = 20
queue_depth = 4
{extra_check}"#
    )
}

/// The stream seed of phase "w" (`seed = 7`, mixed with its name; its stamps carry it).
fn w_seed() -> u64 {
    wkrun::ops::phase_seed(7, "w")
}

/// The stream seed of phase "fill" (the default seed 1, mixed with its name).
fn fill_seed() -> u64 {
    wkrun::ops::phase_seed(1, "fill")
}

/// The op stream of phase "w".
fn w_stream() -> OpStream {
    OpStream {
        span_start: 0,
        span_len: CAP,
        sizes: Sizes::Fixed(4096),
        order: Order::Random,
        mix: Mix::read_write(0),
        seed: w_seed(),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: Some(1024),
    }
}

/// Last writer (op index of "w") of every 4 KiB block that "w" wrote.
fn w_last_writers() -> BTreeMap<u64, u64> {
    let mut m = BTreeMap::new();
    for op in w_stream().ops(0..1024) {
        m.insert(op.offset / 4096, op.index);
    }
    m
}

/// The fill's stamped data of the 4 KiB block `block` (fill op = block / 16, phase 0, seed 1).
fn fill_block(block: u64) -> Vec<u8> {
    let op = Op {
        index: block / 16,
        dir: Direction::Write,
        offset: block / 16 * 65536,
        len: 65536,
    };
    let mut buf = vec![0u8; 65536];
    DataGen::new(DataPattern::Random, fill_seed(), 65536).fill(&mut buf, op.index);
    Stamp {
        phase: 0,
        seed: fill_seed(),
    }
    .apply(&mut buf, &op);
    let at = (block % 16 * 4096) as usize;
    buf[at..at + 4096].to_vec()
}

fn verify_of(r: &serde_json::Value, i: usize) -> (u64, u64, u64, u64, u64, u64, u64) {
    let v = &phase(r, i)["verify"];
    (
        u(v, "/sectors"),
        u(v, "/ok"),
        u(v, "/zeroed"),
        u(v, "/stale"),
        u(v, "/corrupted"),
        u(v, "/unexpected"),
        u(v, "/unchecked"),
    )
}

fn run(dir: &Path, spec: &str, target: &Path, out: &str, args: &[&str]) -> (i32, String) {
    let t = target.to_str().expect("utf-8 path");
    let mut all = vec![spec, "--target", t, "-q", "-o", out];
    all.extend_from_slice(args);
    let (code, _, err) = code_out_err(&wkrun(dir, &all));
    (code, err)
}

/// Writes `body` (which names `engine`) as `s.toml` in a fresh folder with a sparse `CAP`-byte `t.img` and runs
/// it into `out1`, asserting that it succeeds: the folder (keep it alive), the target and the results. `None`,
/// after printing why `test` skips, when `engine` (not psync) could not start here.
fn clean_run(
    test: &str,
    engine: &str,
    body: &str,
) -> Option<(tempfile::TempDir, PathBuf, serde_json::Value)> {
    let (d, target) = sparse_target_dir(CAP);
    write_file(d.path(), "s.toml", &spec_text("v", body));
    let (code, err) = run(d.path(), "s.toml", &target, "out1", &[]);
    if code != 0 && engine != "psync" && err.contains("could not start") {
        skip(test, &format!("{engine}: {err}"));
        return None;
    }
    assert_eq!(code, 0, "{engine}: clean run: {err}");
    let (_, r) = strict_results(&d.path().join("out1"));
    Some((d, target, r))
}

/// Every engine: the three phases verify cleanly (16,384 sectors, all ok). Then the file is corrupted: 3 sectors
/// of a block "w" wrote zeroed, one byte flipped in a block "w" wrote and in a block only the fill wrote, one
/// fill-only sector overwritten by a copy of another (valid) sector, and one 4 KiB block "w" wrote put back to
/// the fill's content (8 stale sectors). `wkrun --from check` (the verify phase alone, expecting what the plan's
/// earlier phases wrote): exit 1, exactly 3 zeroed, 8 stale, 3 corrupted, 16,370 ok, each listed by offset;
/// with `on_error = "continue"` the same counts and exit 0; with `expect = "header"` (no knowledge of the
/// writers) the stale sectors pass as valid stamps: 3 zeroed, 3 corrupted.
#[test]
fn verify_counts_zeroed_stale_and_corrupted_sectors_exactly() {
    let last = w_last_writers();
    let w_blocks: Vec<u64> = last.keys().copied().collect();
    let fill_only: Vec<u64> = (0..CAP / 4096).filter(|b| !last.contains_key(b)).collect();
    let (b_zero, b_flip, b_stale) = (w_blocks[3], w_blocks[10], w_blocks[20]);
    let (f_flip, f_dst, f_src) = (fill_only[5], fill_only[9], fill_only[12]);
    for engine in ["psync", "libaio", "io_uring"] {
        let test = "verify::verify_counts_zeroed_stale_and_corrupted_sectors_exactly";
        let Some((d, target, r)) = clean_run(test, engine, &body(engine, "")) else {
            continue;
        };
        assert_eq!(
            verify_of(&r, 2),
            (16384, 16384, 0, 0, 0, 0, 0),
            "{engine}: clean"
        );
        assert!(phase(&r, 2)["errors"].is_null(), "{engine}");
        assert_eq!(u(phase(&r, 2), "/verify/map_unit_bytes"), 4096);

        // Corrupt.
        let f = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&target)
            .expect("open target");
        f.write_all_at(&[0u8; 1536], b_zero * 4096 + 1024)
            .expect("zero");
        for at in [b_flip * 4096 + 700, f_flip * 4096 + 3000] {
            let mut b = [0u8; 1];
            f.read_exact_at(&mut b, at).expect("read");
            f.write_all_at(&[b[0] ^ 0x5a], at).expect("flip");
        }
        let mut sector = vec![0u8; 512];
        f.read_exact_at(&mut sector, f_src * 4096).expect("read");
        f.write_all_at(&sector, f_dst * 4096 + 512).expect("copy");
        f.write_all_at(&fill_block(b_stale), b_stale * 4096)
            .expect("stale");
        f.sync_all().expect("sync");
        drop(f);

        // The verify phase alone.
        let (code, err) = run(d.path(), "s.toml", &target, "out2", &["--from", "check"]);
        assert_eq!(code, 1, "{engine}: mismatches fail the run: {err}");
        let (_, r) = strict_results(&d.path().join("out2"));
        assert_eq!(r["status"], "failed");
        assert_eq!(r["phases"].as_array().map(Vec::len), Some(1));
        assert_eq!(phase(&r, 0)["index"], 2);
        assert_eq!(
            verify_of(&r, 0),
            (16384, 16370, 3, 8, 3, 0, 0),
            "{engine}: after corruption"
        );
        let msg = r["error"].as_str().unwrap_or_default();
        assert!(
            msg.contains(
                "phase 2 \"check\": 14 of 16384 sectors did not verify (3 zeroed, 8 stale, 3 corrupted, 0 unexpected)"
            ),
            "{msg}"
        );
        assert!(err.contains(msg), "{err}");
        // Every mismatch listed (14 ≤ max_listed), in offset order, with what was expected and found.
        let mut want: Vec<(u64, &str, String, String)> = Vec::new();
        let w_op = |b: u64| format!("phase 1 \"w\" op {} (seed {})", last[&b], w_seed());
        let fill_op = |b: u64| format!("phase 0 \"fill\" op {} (seed {})", b / 16, fill_seed());
        for k in 0..3 {
            want.push((
                b_zero * 4096 + 1024 + k * 512,
                "zeroed",
                w_op(b_zero),
                "zeros".into(),
            ));
        }
        want.push((
            b_flip * 4096 + 512,
            "corrupted",
            w_op(b_flip),
            "no valid stamp (bad magic or checksum)".into(),
        ));
        want.push((
            f_flip * 4096 + 2560,
            "corrupted",
            fill_op(f_flip),
            "no valid stamp (bad magic or checksum)".into(),
        ));
        want.push((
            f_dst * 4096 + 512,
            "corrupted",
            fill_op(f_dst),
            format!("a stamp for offset {} ({})", f_src * 4096, fill_op(f_src)),
        ));
        for k in 0..8 {
            want.push((
                b_stale * 4096 + k * 512,
                "stale",
                w_op(b_stale),
                fill_op(b_stale),
            ));
        }
        want.sort();
        let got: Vec<(u64, &str, String, String)> = phase(&r, 0)["verify"]["mismatches"]
            .as_array()
            .expect("mismatches")
            .iter()
            .map(|m| {
                (
                    u(m, "/offset_bytes"),
                    m["class"].as_str().unwrap_or_default(),
                    m["expected"].as_str().unwrap_or_default().to_string(),
                    m["found"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert_eq!(got, want, "{engine}: listed mismatches");
        let e = &phase(&r, 0)["errors"];
        assert_eq!((u(e, "/total"), u(e, "/read")), (14, 14), "{engine}: {e}");
        assert_eq!(e["by_cause"][0]["cause"], "mismatch");
        let csv_sum: u64 = csv_rows(&d.path().join("out2/02-check.csv"))
            .iter()
            .map(|r| r["errors"].parse::<u64>().expect("integer"))
            .sum();
        assert_eq!(csv_sum, 14, "{engine}: CSV errors column");

        // on_error = "continue": the same counts, a warning, exit 0.
        let (code, err) = run(
            d.path(),
            "s.toml",
            &target,
            "out3",
            &["--from", "2", "--set", "on_error=continue"],
        );
        assert_eq!(code, 0, "{engine}: {err}");
        let (_, r) = strict_results(&d.path().join("out3"));
        assert_eq!(r["status"], "completed");
        assert_eq!(verify_of(&r, 0), (16384, 16370, 3, 8, 3, 0, 0));
        assert!(
            device_warnings(phase(&r, 0).get("warnings"))
                .first()
                .is_some_and(|w| w.contains("14 of 16384 sectors did not verify")),
            "{}",
            phase(&r, 0)["warnings"]
        );

        // Another spec that only checks headers: it cannot know the stale ones.
        write_file(
            d.path(),
            "h.toml",
            &spec_text(
                "h",
                "[[phase]]\nname = \"h\"\nkind = \"verify\"\nexpect = \"header\"\nmax_listed = 0\n",
            ),
        );
        let (code, err) = run(d.path(), "h.toml", &target, "out4", &[]);
        assert_eq!(code, 1, "{engine}: {err}");
        let (_, r) = strict_results(&d.path().join("out4"));
        assert_eq!(verify_of(&r, 0), (16384, 16378, 3, 0, 3, 0, 0));
        assert_eq!(
            phase(&r, 0)["verify"]["mismatches"]
                .as_array()
                .map(Vec::len),
            Some(0)
        );
    }
}

/// An erase before the verify phase: the punched (file) range is expected to read as zeros, and a sector written
/// there afterwards is caught as corrupted; a byte-bounded write without `verify` leaves its blocks unchecked.
#[test]
fn verify_expects_zeros_after_an_erase_and_skips_unstamped_writes() {
    let (d, target) = sparse_target_dir(CAP);
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
verify = true
[[phase]]
name = "punch"
kind = "erase"
span = "1MiB"
[[phase]]
name = "plain"
kind = "fill"
offset = "7MiB"
span = "1MiB"
[[phase]]
name = "check"
kind = "verify"
"#;
    write_file(d.path(), "s.toml", &spec_text("e", body));
    let (code, err) = run(d.path(), "s.toml", &target, "out1", &[]);
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&d.path().join("out1"));
    // 1 MiB zeros ok, 6 MiB stamped ok, 1 MiB (2048 sectors) unchecked.
    assert_eq!(verify_of(&r, 3), (16384, 14336, 0, 0, 0, 0, 2048));
    let f = fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .expect("open");
    f.write_all_at(b"junk", 4096).expect("write");
    f.write_all_at(b"junk", 7 * MIB + 4096).expect("write");
    drop(f);
    let (code, _) = run(d.path(), "s.toml", &target, "out2", &["--from", "check"]);
    assert_eq!(code, 1);
    let (_, r) = strict_results(&d.path().join("out2"));
    assert_eq!(verify_of(&r, 0), (16384, 14335, 0, 0, 1, 0, 2048));
    assert_eq!(phase(&r, 0)["verify"]["mismatches"][0]["expected"], "zeros");
}

/// `wkrun validate` refuses, at the verify phase's `expect`, a last-writer verify after a phase that surely
/// writes in its span for a time (a `duration`, a `ramp`), with the words the plan uses; a read-only timed
/// phase, a header check and a span that may lie apart (known only on a target) pass.
#[test]
fn validate_refuses_a_last_writer_verify_after_a_timed_write() {
    let d = tempdir();
    let why = |name: &str| {
        let (what, fix) = match name {
            "w" => ("its duration", "give it a size bound instead"),
            _ => ("its ramp", "remove the ramp"),
        };
        format!(
            "phase 0 \"{name}\" writes in this span for a time ({what}), so which blocks it wrote last is not known in advance; {fix}, or use expect = \"header\""
        )
    };
    let verify = "[[phase]]\nname = \"c\"\nkind = \"verify\"\n";
    let timed =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 70\nduration = \"1s\"\n";
    let ramped = "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1MiB\"\nramp = \"1s\"\noffset = 0\n";
    for (i, (writer, name, line)) in [(timed, "w", 10), (ramped, "r", 12)]
        .into_iter()
        .enumerate()
    {
        let spec = format!("s{i}.toml");
        write_file(
            d.path(),
            &spec,
            &spec_text("t", &format!("{writer}{verify}")),
        );
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", &spec]));
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        let want = format!(
            "error: {spec}:{line}:1: phase[1] \"c\".expect: {}",
            why(name)
        );
        assert_eq!(err.lines().next(), Some(want.as_str()), "{err}");
        // The plan gives the same reason.
        let (code, _, err) = code_out_err(&wkrun(
            d.path(),
            &["plan", &spec, "--target", "t.img", "--target-size", "8MiB"],
        ));
        assert_eq!(code, 2);
        assert!(err.contains(&why(name)), "{err}");
    }
    let fine = [
        timed.replace("read_percent = 70", "read_percent = 100") + verify,
        format!("{timed}{verify}expect = \"header\"\n"),
        timed.replace("duration", "offset = \"50%\"\nspan = \"50%\"\nduration")
            + &verify.replace("verify\"\n", "verify\"\nspan = \"50%\"\n"),
        // One 4 KiB block in the tail the whole-target verify (128 KiB blocks) leaves unused on a target of
        // 64 MiB + 4 KiB: disjoint there, so validate leaves it to the plan, which runs it.
        timed.replace(
            "duration",
            "block_size = \"4KiB\"\noffset = 67108864\nspan = \"4KiB\"\nduration",
        ) + verify,
    ];
    for (i, body) in fine.iter().enumerate() {
        let spec = format!("ok{i}.toml");
        write_file(d.path(), &spec, &spec_text("t", body));
        let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", &spec]));
        assert_eq!(
            (code, out),
            (0, format!("{spec}: ok (2 phases)\n")),
            "{err}"
        );
    }
    let plan = |spec: &str| {
        code_out_err(&wkrun(
            d.path(),
            &[
                "plan",
                spec,
                "--target",
                "t.img",
                "--target-size",
                "65540KiB",
            ],
        ))
    };
    let (code, out, err) = plan("ok3.toml");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("[67108864, 67112960)") && out.contains("[0, 67108864)"),
        "{out}"
    );
    // Two verify phases that overlap the timed writer only on a target (validate leaves them to the plan):
    // the plan names both.
    let writer = timed.replace("duration", "offset = \"25%\"\nspan = \"50%\"\nduration");
    let half = verify.replace("verify\"\n", "verify\"\nspan = \"50%\"\n");
    let body = format!("{writer}{half}{}", half.replace("\"c\"", "\"c2\""));
    write_file(d.path(), "two.toml", &spec_text("t", &body));
    let (code, _, err) = plan("two.toml");
    assert_eq!(code, 2);
    let refused: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(".expect: the expected content of the span cannot be tracked"))
        .collect();
    assert_eq!(refused.len(), 2, "{err}");
    assert!(
        refused[0].contains("\"c\".expect") && refused[1].contains("\"c2\".expect"),
        "{err}"
    );
}

/// What the plan refuses: a last-writer verify after a time-bounded write in its span, a span whose map would
/// exceed 16 Mi units, a verified block size that is not a multiple of 512; all exit 2 at plan time.
#[test]
fn verify_plan_refusals() {
    let d = tempdir();
    let cases = [
        (
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\nverify = true\n[[phase]]\nname = \"c\"\nkind = \"verify\"\n",
            "64MiB",
            "phase 0 \"w\" writes in this span for a time",
        ),
        (
            "[[phase]]\nname = \"c\"\nkind = \"verify\"\n",
            "4TiB",
            "more than 16777216 (128 MiB of memory)",
        ),
        (
            "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = 1000\ndirect = false\nverify = true\n",
            "64MiB",
            "not a multiple of 512",
        ),
    ];
    for (i, (body, size, want)) in cases.iter().enumerate() {
        let spec = format!("s{i}.toml");
        write_file(d.path(), &spec, &spec_text("r", body));
        let t = d.path().join(format!("t{i}.img"));
        // The 4 TiB span is an existing sparse file: one to create would not fit this file system.
        let existing = *size == "4TiB";
        if existing {
            sparse_file(&t, 4 << 40);
        }
        let t = t.to_str().expect("utf-8");
        let (code, _, err) = code_out_err(&wkrun(
            d.path(),
            &["plan", &spec, "--target", t, "--target-size", size],
        ));
        assert_eq!(code, 2, "case {i}: {err}");
        assert!(err.contains(want), "case {i}: {err}");
        let (code, _, err) = code_out_err(&wkrun(
            d.path(),
            &[&spec, "--target", t, "--target-size", size, "-o", "out"],
        ));
        assert_eq!(code, 2, "case {i}: {err}");
        assert!(!d.path().join("out").exists(), "case {i}: nothing written");
        assert_eq!(
            Path::new(t).exists(),
            existing,
            "case {i}: no target created"
        );
    }
    // expect = "header" has no map, so no limit.
    write_file(
        d.path(),
        "h.toml",
        &spec_text(
            "h",
            "[[phase]]\nname = \"c\"\nkind = \"verify\"\nexpect = \"header\"\n",
        ),
    );
    let t = d.path().join("big.img");
    sparse_file(&t, 4 << 40);
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["plan", "h.toml", "--target", t.to_str().expect("utf-8")],
    ));
    assert_eq!(code, 0, "{err}");
}

/// Phase "w" of [`body`] at queue depth 8: 1,024 random 4 KiB writes, seed 7.
fn body_qd8(engine: &str) -> String {
    body(engine, "").replacen("seed = 7\n", "seed = 7\nqueue_depth = 8\n", 1)
}

/// The stamped data op `op` of phase "w" (phase 1, seed 7) writes: one 4 KiB block.
fn w_block(op: u64) -> Vec<u8> {
    let o = w_stream().ops(op..op + 1).next().expect("op");
    let mut buf = vec![0u8; 4096];
    DataGen::new(DataPattern::Random, w_seed(), 4096).fill(&mut buf, op);
    Stamp {
        phase: 1,
        seed: w_seed(),
    }
    .apply(&mut buf, &o);
    buf
}

/// Every op of "w" writing each 4 KiB block, in order.
fn w_writers() -> BTreeMap<u64, Vec<u64>> {
    let mut m: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for op in w_stream().ops(0..1024) {
        m.entry(op.offset / 4096).or_default().push(op.index);
    }
    m
}

/// Lost writes at queue depth 8 are caught; genuine reordering is accepted. A clean run of fill, "w" (QD8)
/// and verify: no mismatch (every sector ok or reordered). The image is then set to exactly what the plan
/// expects (every block "w" wrote holds its last write), so the counts below are exact: `--from check` gives
/// 16,384 ok. Then two blocks get an earlier write of "w" from far back in its op stream (a lost write: the
/// later write to the block vanished; the window is the queue depth, 8 ops, on every engine, psync claiming
/// one op at a time for a verified phase): exactly 16 stale sectors, exit 1. Then, those blocks restored, one
/// block gets the write of "w" just before its last one (within the window, so the two could have been in
/// flight together): 8 reordered, 0 stale, exit 0, and the stderr summary prints ok and reordered apart.
#[test]
fn verify_catches_lost_writes_at_queue_depth_and_accepts_concurrent_ones() {
    let writers = w_writers();
    // The engines' runs are independent (each its own target file), and wait on the disk: run at once.
    std::thread::scope(|s| {
        for engine in ["libaio", "io_uring", "psync"] {
            let writers = &writers;
            s.spawn(move || lost_writes_on(engine, writers));
        }
    });
}

/// [`verify_catches_lost_writes_at_queue_depth_and_accepts_concurrent_ones`] with `engine`, whose phase "w"
/// writes `writers` (block → its writes' op indices).
fn lost_writes_on(engine: &str, writers: &BTreeMap<u64, Vec<u64>>) {
    let window = 8;
    // Blocks whose last writer L has an earlier writer e with L - e >= window (lost), and one with
    // 0 < L - e < window (concurrent).
    let far: Vec<(u64, u64)> = writers
        .iter()
        .filter_map(|(&b, ops)| {
            let l = *ops.last()?;
            ops.iter().find(|&&e| l - e >= window).map(|&e| (b, e))
        })
        .take(2)
        .collect();
    let near = writers
        .iter()
        .find_map(|(&b, ops)| {
            let l = *ops.last()?;
            ops.iter()
                .rev()
                .nth(1)
                .filter(|&&e| l - e < window)
                .map(|&e| (b, e))
        })
        .expect("a block written twice within the window");
    assert_eq!(
        far.len(),
        2,
        "{engine}: two blocks with a far earlier write"
    );

    let test = "verify::verify_catches_lost_writes_at_queue_depth_and_accepts_concurrent_ones";
    let Some((d, target, r)) = clean_run(test, engine, &body_qd8(engine)) else {
        return;
    };
    let v = &phase(&r, 2)["verify"];
    let reordered = u(v, "/reordered");
    eprintln!("{engine}: clean run at QD8: {reordered} reordered sectors");
    assert_eq!(
        (u(v, "/ok") + reordered, u(v, "/mismatched")),
        (16384, 0),
        "{engine}: clean run: {v}"
    );

    let f = fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .expect("open target");
    for (&b, ops) in writers {
        f.write_all_at(&w_block(*ops.last().expect("op")), b * 4096)
            .expect("write");
    }
    f.sync_all().expect("sync");
    let (code, err) = run(d.path(), "s.toml", &target, "out2", &["--from", "check"]);
    assert_eq!(code, 0, "{engine}: {err}");
    let (_, r) = strict_results(&d.path().join("out2"));
    assert_eq!(verify_of(&r, 0), (16384, 16384, 0, 0, 0, 0, 0), "{engine}");
    assert_eq!(u(phase(&r, 0), "/verify/reordered"), 0);

    // Lost writes.
    for &(b, e) in &far {
        f.write_all_at(&w_block(e), b * 4096).expect("write");
    }
    f.sync_all().expect("sync");
    let (code, err) = run(d.path(), "s.toml", &target, "out3", &["--from", "check"]);
    assert_eq!(code, 1, "{engine}: lost writes fail the run: {err}");
    let (_, r) = strict_results(&d.path().join("out3"));
    assert_eq!(verify_of(&r, 0), (16384, 16368, 0, 16, 0, 0, 0), "{engine}");
    assert_eq!(u(phase(&r, 0), "/verify/reordered"), 0);
    let (b0, e0) = far[0];
    let m = &phase(&r, 0)["verify"]["mismatches"][0];
    // `far` is in block order.
    assert_eq!(u(m, "/offset_bytes"), b0 * 4096);
    assert_eq!(m["class"], "stale");
    assert_eq!(
        m["expected"],
        format!(
            "phase 1 \"w\" op {} (seed {})",
            writers[&b0].last().expect("op"),
            w_seed()
        )
    );
    assert_eq!(
        m["found"],
        format!("phase 1 \"w\" op {e0} (seed {})", w_seed())
    );
    assert!(
        err.contains(
            "16 of 16384 sectors did not verify (0 zeroed, 16 stale, 0 corrupted, 0 unexpected)"
        ),
        "{err}"
    );

    // A write that was in flight together with the last one, landing last: accepted.
    for &(b, _) in &far {
        f.write_all_at(&w_block(*writers[&b].last().expect("op")), b * 4096)
            .expect("write");
    }
    f.write_all_at(&w_block(near.1), near.0 * 4096)
        .expect("write");
    f.sync_all().expect("sync");
    drop(f);
    let out = wkrun(
        d.path(),
        &[
            "s.toml",
            "--target",
            target.to_str().expect("utf-8"),
            "-o",
            "out4",
            "--from",
            "check",
        ],
    );
    let (code, stdout, err) = code_out_err(&out);
    assert_eq!(code, 0, "{engine}: {err}");
    let (_, r) = strict_results(&d.path().join("out4"));
    assert_eq!(verify_of(&r, 0), (16384, 16376, 0, 0, 0, 0, 0), "{engine}");
    assert_eq!(u(phase(&r, 0), "/verify/reordered"), 8);
    assert!(
        stdout.contains("verified 16384 sectors: 16376 ok, 8 reordered, 0 zeroed, 0 stale, 0 corrupted, 0 unexpected, 0 unchecked"),
        "{stdout}"
    );
}
