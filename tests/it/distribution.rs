//! Access distributions (issue 26, item 1): the offsets a skewed op stream draws, checked statistically
//! against each law with an oracle written here (zones' shares, the Zipf rank-frequency slope fitted on a
//! log-log scale, the Pareto hot set's share, the normal's ±1σ share); the same ops for a seed whatever
//! claims them; and on real files, the blocks the writes left behind (counted from the file, as the depth
//! check does) against the stream, and the JESD219 and Iometer file-server specs' realised size mix, read
//! share and zones against their definitions.

use crate::common::*;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use wkrun::ops::{Mix, Op, OpStream, Order, SharedOps, Sizes};
use wkrun::spec::Distribution;

const KIB4: u64 = 4096;

/// The stream of phase "w" of [`writes`] with `seed`: drawn from the phase's stream seed (the seed mixed
/// with its name), its hot blocks placed by `seed` itself.
fn w_stream(dist: &str, blocks: u64, seed: u64) -> OpStream {
    OpStream {
        seed: wkrun::ops::phase_seed(seed, "w"),
        ..stream(dist, blocks, seed)
    }
}

/// A random write stream of 4 KiB blocks over `blocks` blocks drawing from `dist`, seeded `seed`.
fn stream(dist: &str, blocks: u64, seed: u64) -> OpStream {
    let d = Distribution::parse(dist).expect("distribution");
    let span = blocks * KIB4;
    OpStream {
        span_start: 0,
        span_len: span,
        sizes: Sizes::Fixed(KIB4),
        order: Order::Random,
        mix: Mix::read_write(0),
        seed,
        access: wkrun::plan::access::resolve(&d, span, KIB4, seed).expect("fits"),
        total_ops: None,
    }
}

/// Hits per block of the first `n` ops.
fn hits(s: &OpStream, n: u64) -> Vec<u64> {
    let mut v = vec![0u64; s.blocks() as usize];
    for op in s.ops(0..n) {
        v[(op.offset / KIB4) as usize] += 1;
    }
    v
}

/// Asserts `got` (a share of `n` draws) is within 4 binomial standard deviations of `want`.
fn within_sampling_error(what: &str, got: f64, want: f64, n: f64) {
    let sigma = (want * (1.0 - want) / n).sqrt();
    assert!(
        (got - want).abs() <= 4.0 * sigma,
        "{what}: {got:.4} against {want:.4} (4σ = {:.4})",
        4.0 * sigma
    );
}

#[test]
fn zoned_ops_fall_in_their_zones_in_their_shares() {
    let n = 40_000u64;
    for (dist, edges, shares) in [
        ("zoned:50/5:30/15:20/80", [0.05, 0.20, 1.0], [0.5, 0.3, 0.2]),
        (
            "zoned_abs:60/16MiB:30/64MiB:10/176MiB",
            [1.0 / 16.0, 5.0 / 16.0, 1.0],
            [0.6, 0.3, 0.1],
        ),
    ] {
        let blocks = 65_536; // 256 MiB
        let h = hits(&stream(dist, blocks, 5), n);
        let mut at = 0usize;
        for (edge, share) in edges.iter().zip(shares) {
            let end = (blocks as f64 * edge) as usize;
            let got = h[at..end].iter().sum::<u64>() as f64 / n as f64;
            within_sampling_error(&format!("{dist} [{at}, {end})"), got, share, n as f64);
            // Uniform inside the zone: its first and second halves within sampling error of half each.
            let mid = (at + end) / 2;
            let first = h[at..mid].iter().sum::<u64>() as f64;
            let zone = h[at..end].iter().sum::<u64>() as f64;
            let half = (mid - at) as f64 / (end - at) as f64;
            within_sampling_error(
                &format!("{dist} first half of [{at}, {end})"),
                first / zone,
                half,
                zone,
            );
            at = end;
        }
    }
}

/// Least-squares slope of `ys` against `xs`.
fn slope(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

#[test]
fn zipf_rank_frequency_slope_is_minus_theta() {
    for theta in [0.8, 1.2] {
        let s = stream(&format!("zipf:{theta}"), 1 << 16, 9);
        let mut h = hits(&s, 200_000);
        // The hot ranks are scattered: the hottest block is not the first one, and not next to the second.
        let hottest = (0..h.len()).max_by_key(|&i| h[i]).expect("a block");
        h.sort_unstable_by(|a, b| b.cmp(a));
        // Ranks 1..=50, where every count is in the hundreds: log count against log rank.
        let (xs, ys): (Vec<f64>, Vec<f64>) = (1..=50)
            .map(|r| ((r as f64).ln(), (h[r - 1] as f64).ln()))
            .unzip();
        let k = slope(&xs, &ys);
        assert!(
            (k + theta).abs() < 0.08,
            "zipf:{theta}: slope {k:.3}, counts {:?}",
            &h[..10]
        );
        assert_ne!(hottest, 0, "zipf:{theta}: rank 1 is block 0");
    }
}

#[test]
fn pareto_hottest_fifth_takes_its_theoretical_share() {
    let (blocks, n) = (10_000u64, 300_000u64);
    for h_param in [0.2f64, 0.35] {
        let mut h = hits(&stream(&format!("pareto:{h_param}"), blocks, 3), n);
        h.sort_unstable_by(|a, b| b.cmp(a));
        let hot = (blocks / 5) as usize;
        let got = h[..hot].iter().sum::<u64>() as f64 / n as f64;
        // fio's rule: rank ⌊(n−1)·u^p⌋, p = ln h / ln(1−h); ranks below m take (m / (n−1))^(1/p).
        let p = h_param.ln() / (1.0f64 - h_param).ln();
        let want = (hot as f64 / (blocks - 1) as f64).powf(1.0 / p);
        // The counted hot set is the blocks with the most hits, which noise pushes a little above the
        // law's hot set: a bound of 1.5 points.
        assert!(
            (got - want).abs() < 0.015,
            "pareto:{h_param}: hottest 20 % took {got:.4}, the law says {want:.4}"
        );
    }
}

#[test]
fn normal_puts_68_percent_within_one_sigma_of_the_middle() {
    let blocks = 100_000u64;
    let n = 100_000u64;
    for sigma in [0.05, 0.1] {
        let s = stream(&format!("normal:{sigma}"), blocks, 4);
        let within = s
            .ops(0..n)
            .filter(|op| {
                let at = (op.offset / KIB4) as f64 + 0.5;
                (at / blocks as f64 - 0.5).abs() <= sigma
            })
            .count();
        within_sampling_error(
            &format!("normal:{sigma} within ±σ"),
            within as f64 / n as f64,
            0.682_689,
            n as f64,
        );
    }
}

#[test]
fn a_seed_fixes_every_skewed_op_whoever_claims_it() {
    for dist in [
        "zipf:1.1",
        "pareto:0.3",
        "normal:0.2",
        "zoned:50/5:30/15:20/80",
    ] {
        let s = stream(dist, 4096, 11);
        let alone: Vec<Op> = s.ops(0..5000).collect();
        assert_eq!(
            alone,
            stream(dist, 4096, 11).ops(0..5000).collect::<Vec<_>>()
        );
        assert_ne!(
            alone,
            stream(dist, 4096, 12).ops(0..5000).collect::<Vec<_>>(),
            "{dist}: another seed, the same ops"
        );
        // Four threads claiming chunks of one shared stream issue exactly these ops.
        let shared = SharedOps::new(
            OpStream {
                total_ops: Some(5000),
                ..s.clone()
            },
            4,
        );
        let mut claimed: Vec<Op> = std::thread::scope(|t| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    t.spawn(|| {
                        let mut mine = Vec::new();
                        while let Some(ops) = shared.claim() {
                            mine.extend(ops);
                        }
                        mine
                    })
                })
                .collect();
            hs.into_iter()
                .flat_map(|h| h.join().expect("claimer"))
                .collect()
        });
        claimed.sort_by_key(|o| o.index);
        assert_eq!(claimed, alone, "{dist}");
    }
}

/// The 4 KiB blocks of `path` (of `len` bytes) that hold anything but zeros.
fn written_blocks(path: &Path, len: u64) -> HashSet<u64> {
    let data = std::fs::read(path).expect("read target");
    assert_eq!(data.len() as u64, len);
    data.chunks(KIB4 as usize)
        .enumerate()
        .filter(|(_, b)| b.iter().any(|&x| x != 0))
        .map(|(i, _)| i as u64)
        .collect()
}

/// A spec of one random 4 KiB write workload with `lines`.
fn writes(lines: &str) -> String {
    format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\n{lines}\n"
    )
}

#[test]
fn zoned_writes_on_a_sparse_file_land_where_the_stream_says() {
    // As the depth check: 3000 writes of 4 KiB, zoned 50/5:30/15:20/80, on a fresh sparse 256 MiB file.
    let len = 256u64 << 20;
    let (d, target) = sparse_target_dir(len);
    let body = writes(
        "engine = \"psync\"\nqueue_depth = 1\ndistribution = \"zoned:50/5:30/15:20/80\"\nsize = \"12000KiB\"\nseed = 1",
    );
    let out = run_ok(d.path(), "zoned", &body, &target);
    let on_disk = written_blocks(&target, len);
    let s = w_stream("zoned:50/5:30/15:20/80", len / KIB4, 1);
    let want: HashSet<u64> = s.ops(0..3000).map(|o| o.offset / KIB4).collect();
    assert_eq!(on_disk, want, "the blocks written are not the stream's");
    // Shares of the 3000 writes by zone, within sampling error of the definition.
    let blocks = len / KIB4;
    let mut by_zone = [0u64; 3];
    for op in s.ops(0..3000) {
        let b = op.offset / KIB4;
        by_zone[usize::from(b >= blocks / 20) + usize::from(b >= blocks / 5)] += 1;
    }
    for (got, want) in by_zone.iter().zip([0.5, 0.3, 0.2]) {
        within_sampling_error("zone share of writes", *got as f64 / 3000.0, want, 3000.0);
    }
    // The results: the law as written, and the expected coverage under it, near the count on disk.
    let r = results(&out);
    let p = phase(&r, 0);
    assert_eq!(p["params"]["distribution"], "zoned:50/5:30/15:20/80");
    assert_eq!(p["coverage"]["exact"], false);
    let counted = on_disk.len() as f64 / blocks as f64;
    let expected = p["coverage"]["fraction"].as_f64().expect("fraction");
    assert!(
        (expected - counted).abs() < 0.002,
        "coverage {expected} against {counted} counted"
    );
}

#[test]
fn engines_write_the_same_skewed_blocks() {
    let len = 64u64 << 20;
    let mut sets = Vec::new();
    for (engine, qd) in [("psync", 1), ("psync", 4), ("libaio", 8)] {
        let (d, target) = sparse_target_dir(len);
        let body = writes(&format!(
            "engine = \"{engine}\"\nqueue_depth = {qd}\ndistribution = \"zipf:1.1\"\nsize = \"8MiB\"\nseed = 7"
        ));
        run_ok(d.path(), "zipf", &body, &target);
        sets.push((engine, qd, written_blocks(&target, len)));
    }
    let want: HashSet<u64> = w_stream("zipf:1.1", len / KIB4, 7)
        .ops(0..2048)
        .map(|o| o.offset / KIB4)
        .collect();
    for (engine, qd, got) in &sets {
        assert_eq!(got, &want, "{engine} at QD{qd}");
    }
}

/// Bytes of the file at `path` holding data (SEEK_DATA / SEEK_HOLE: allocated extents) within each of
/// `ranges`.
fn data_bytes(path: &Path, ranges: &[(u64, u64)]) -> Vec<u64> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path).expect("open");
    let len = f.metadata().expect("stat").len() as i64;
    let mut extents = Vec::new();
    let mut at = 0i64;
    while at < len {
        // SAFETY: lseek on an open descriptor with valid whence values.
        let data = unsafe { libc::lseek(f.as_raw_fd(), at, libc::SEEK_DATA) };
        if data < 0 {
            break;
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(f.as_raw_fd(), data, libc::SEEK_HOLE) };
        extents.push((data as u64, hole as u64));
        at = hole;
    }
    ranges
        .iter()
        .map(|&(a, b)| {
            extents
                .iter()
                .map(|&(s, e)| e.min(b).saturating_sub(s.max(a)))
                .sum()
        })
        .collect()
}

/// A standard spec: its file, its workload phase, and the definition its workload must realise.
struct Standard {
    spec: &'static str,
    phase: &'static str,
    read: f64,
    mix: &'static [(u64, f64)],
    /// Zones as fractions of the span, with I/O shares 50, 30 and 20 %; none for a uniform spec.
    zones: &'static [(f64, f64)],
}

/// A standard spec's workload run for a second on `target` of `span` bytes (its fill and purge taken as
/// done): the realised size mix and read share from the results, and with zones, the shares of the bytes
/// written in each zone from the blocks `backing` holds data in. Returns the figures as text.
fn check_standard(
    st: &Standard,
    target: &Path,
    backing: &Path,
    span: u64,
    extra: &[&str],
) -> String {
    let (spec, phase_name, read, mix, zones) = (st.spec, st.phase, st.read, st.mix, st.zones);
    let d = tempdir();
    let spec_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(spec);
    let mut args = vec![
        spec_path.to_str().expect("utf-8"),
        "--target",
        target.to_str().expect("utf-8"),
        "-o",
        "out",
        "-q",
        "--from",
        phase_name,
        "--set",
        "duration=1s",
    ];
    // A rate cap keeps the run to a few thousand I/Os whatever the machine, so that the hot zone's
    // written bytes are not rewritten.
    let cap = format!("phase.{phase_name}.rate_iops=6000");
    args.extend_from_slice(&["--set", &cap]);
    args.extend_from_slice(extra);
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{spec}: {err}");
    let (_, r) = strict_results(&d.path().join("out"));
    let p = r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .find(|p| p["name"] == phase_name)
        .expect("the workload");
    let total = (u(p, "/read/ops") + u(p, "/write/ops")) as f64;
    assert!(total >= 1000.0, "{spec}: only {total} I/Os");
    let share = p["read_share"]["ops"].as_f64().expect("read share");
    // Exact in every group of 100 I/Os of each worker's stream; a worker's last group is partial.
    assert!(
        (share - read).abs() <= 4.0 * 100.0 / total,
        "{spec}: read share {share}"
    );
    let by_size: BTreeMap<u64, u64> = p["ops_by_size"]
        .as_array()
        .expect("ops_by_size")
        .iter()
        .map(|e| (u(e, "/bytes"), u(e, "/ops")))
        .collect();
    let mut text = format!("{spec}: {total} I/Os, read share {share:.4}; sizes");
    for &(bytes, pct) in mix {
        let got = by_size.get(&bytes).copied().unwrap_or(0) as f64 / total;
        within_sampling_error(&format!("{spec}: {bytes} B"), got, pct / 100.0, total);
        text += &format!(" {bytes}:{:.2}%", 100.0 * got);
    }
    assert_eq!(by_size.len(), mix.len(), "{spec}: sizes {by_size:?}");
    if !zones.is_empty() {
        let ranges: Vec<(u64, u64)> = zones
            .iter()
            .map(|&(a, b)| ((span as f64 * a) as u64, (span as f64 * b) as u64))
            .collect();
        let bytes = data_bytes(backing, &ranges);
        let all: u64 = bytes.iter().sum();
        text += "; written bytes by zone";
        for (b, want) in bytes.iter().zip([0.5, 0.3, 0.2]) {
            let got = *b as f64 / all as f64;
            // Bytes, not I/Os: a 64 KiB write weighs 128 of 512 B; with a few thousand writes the share
            // of bytes moves by about 1.5 points (σ), so 6 points is 4σ.
            assert!(
                (got - want).abs() < 0.06,
                "{spec}: zone share {got:.3} against {want}"
            );
            text += &format!(" {:.1}%", 100.0 * got);
        }
    }
    text
}

const JESD219: Standard = Standard {
    spec: "specs/jesd219.toml",
    phase: "jesd219",
    read: 0.4,
    mix: JESD219_MIX,
    zones: &[(0.0, 0.05), (0.05, 0.20), (0.20, 1.0)],
};

const FILE_SERVER: Standard = Standard {
    spec: "specs/iometer-file-server.toml",
    phase: "file-server",
    read: 0.8,
    mix: FILE_SERVER_MIX,
    zones: &[],
};

/// The standard specs as written (but for the engine, queue depth and a rate cap, so that a second of a
/// file on a shared machine gives a few thousand I/Os), on a fresh 2 GiB sparse file.
#[test]
fn standard_specs_realise_their_definitions_on_a_file() {
    let len = 2u64 << 30;
    let (_d, target) = sparse_target_dir(len);
    let t = check_standard(
        &JESD219,
        &target,
        &target,
        len,
        &["--set", "engine=psync", "--set", "queue_depth=2"],
    );
    eprintln!("{t}");
    let (_d, target) = sparse_target_dir(len);
    let t = check_standard(
        &FILE_SERVER,
        &target,
        &target,
        len,
        &["--set", "engine=psync", "--set", "queue_depth=4"],
    );
    eprintln!("{t}");
}

/// The same on a loop device with direct I/O (root), as the specs are written: libaio, JESD219's four
/// workers at QD 256 and the file server's QD 64; the zones counted from the loop device's backing file.
#[test]
fn standard_specs_realise_their_definitions_on_a_loop_device() {
    let _g = loop_guard();
    let d = tempdir();
    let dev = match LoopDev::new(d.path(), 2048, 512) {
        Ok(dev) => dev,
        Err(why) => {
            return skip(
                "standard_specs_realise_their_definitions_on_a_loop_device",
                &why,
            );
        }
    };
    let len = 2u64 << 30;
    let allow = dev.dev.to_str().expect("utf-8").to_string();
    let t = check_standard(
        &JESD219,
        &dev.dev,
        &dev.backing,
        len,
        &["--allow-destroy", &allow],
    );
    eprintln!("{t}");
    let t = check_standard(
        &FILE_SERVER,
        &dev.dev,
        &dev.backing,
        len,
        &["--allow-destroy", &allow],
    );
    eprintln!("{t}");
}
