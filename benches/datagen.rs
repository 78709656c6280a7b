//! Cost of generating write data: `wkrun::data::DataGen::fill` per block, for each data pattern.
//!
//! Issue 3: `random` must be incompressible yet cheap: generating data must not limit IOPS. This prints,
//! per pattern and block size, the time to fill one block (median of several repetitions, with min and
//! max), the rate in GB/s, and for 4 KiB blocks the IOPS at which one core would do nothing but generate
//! data (the cap data generation alone puts on a single submitting thread).
//!
//!     cargo bench --bench datagen
//!
//! Plain `main` (harness = false): no benchmark framework, std only. Block buffers are 4096-aligned like
//! the engines' and each call fills a different op index, so the pool window moves as in a real run.
//!
//! The first table is the best case: the 4 MiB random pool stays in the CPU caches between calls. In a
//! real run the I/O between two fills (the kernel copying each block into the page cache, compressing it
//! into zram...) evicts the pool, so the second table repeats the 4 KiB measurement with a cold cache:
//! after each fill the block is copied to a random place in a 512 MiB buffer, as a buffered write copies
//! it into the page cache, and the cost of that copy alone is subtracted.

use std::hint::black_box;
use std::time::{Duration, Instant};
use wkrun::buf::AlignedBuf;
use wkrun::data::DataGen;
use wkrun::spec::DataPattern;

/// Repetitions per measurement; the median is reported.
const REPS: usize = 15;
/// Target time of one repetition.
const REP_TIME: Duration = Duration::from_millis(40);

/// Nanoseconds per call of `f(i)` for i = 0, 1, 2...: one value per repetition, sorted.
fn measure(mut f: impl FnMut(u64)) -> Vec<f64> {
    // Calibrate: how many calls fill REP_TIME (also warms caches and the pool's pages).
    let mut n: u64 = 16;
    let mut i: u64 = 0;
    loop {
        let t = Instant::now();
        for _ in 0..n {
            f(i);
            i += 1;
        }
        let el = t.elapsed();
        if el >= REP_TIME / 4 {
            n = ((n as f64) * REP_TIME.as_secs_f64() / el.as_secs_f64()).ceil() as u64;
            break;
        }
        n *= 2;
    }
    let mut v: Vec<f64> = (0..REPS)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f(i);
                i += 1;
            }
            t.elapsed().as_nanos() as f64 / n as f64
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

fn median(v: &[f64]) -> f64 {
    v[v.len() / 2]
}

fn iops(ns: f64) -> String {
    let x = 1e9 / ns;
    if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else {
        format!("{:.0} k", x / 1e3)
    }
}

struct Row {
    what: String,
    block: usize,
    ns: Vec<f64>,
}

fn main() {
    // `cargo bench` passes `--bench`; accept and ignore any arguments.
    let patterns = [
        ("random", DataPattern::Random),
        ("zeros", DataPattern::Zeros),
        ("compressible:50%", DataPattern::Compressible(50)),
    ];
    let blocks = [4096usize, 128 << 10];
    let mut rows = Vec::new();
    for &block in &blocks {
        let mut buf = AlignedBuf::try_new(block, 4096).expect("buffer");
        for (name, pat) in patterns {
            let g = DataGen::new(pat, 1, block);
            let ns = measure(|i| {
                g.fill(black_box(&mut buf[..]), black_box(i));
                black_box(&buf[..]);
            });
            rows.push(Row {
                what: name.to_string(),
                block,
                ns,
            });
        }
        // Reference: a plain copy of the same number of bytes from a 4 MiB source at moving offsets
        // (what `random` costs at least: it reads a window of its 4 MiB pool).
        let src = vec![0x5au8; 4 << 20];
        let room = (src.len() - block) / 4096;
        let ns = measure(|i| {
            let o = (i as usize * 7919 % room) * 4096;
            buf.copy_from_slice(black_box(&src[o..o + block]));
            black_box(&buf[..]);
        });
        rows.push(Row {
            what: "(memcpy, reference)".to_string(),
            block,
            ns,
        });
    }

    println!(
        "DataGen::fill, ns per block: median of {REPS} repetitions of ~{} ms each (min-max); one core",
        REP_TIME.as_millis()
    );
    println!();
    println!("| data | block | ns/block median (min–max) | GB/s | 1-core cap, blocks/s |");
    println!("|---|---:|---:|---:|---:|");
    for r in &rows {
        let m = median(&r.ns);
        let bs = if r.block >= 1024 {
            format!("{} KiB", r.block / 1024)
        } else {
            format!("{} B", r.block)
        };
        println!(
            "| {} | {} | {:.1} ({:.1}–{:.1}) | {:.2} | {} |",
            r.what,
            bs,
            m,
            r.ns[0],
            r.ns[r.ns.len() - 1],
            r.block as f64 / m,
            iops(m)
        );
    }
    println!();
    for r in rows.iter().filter(|r| r.block == 4096) {
        println!(
            "4 KiB {:<20} {:>7.1} ns per block: generating data alone caps one thread at {} IOPS",
            r.what,
            median(&r.ns),
            iops(median(&r.ns))
        );
    }

    // Cold cache: each fill is followed by a copy of the block to a random 4 KiB slot of a large buffer
    // (what a buffered write does), which evicts the pool from the caches as real I/O does.
    const BIG: usize = 512 << 20;
    let mut big = vec![1u8; BIG]; // written once, so every page is mapped before timing
    let slots = (BIG / 4096) as u64;
    let mut buf = AlignedBuf::try_new(4096, 4096).expect("buffer");
    let slot = |i: u64| (wkrun::data::mix64(i) % slots) as usize * 4096;
    let copy_only = measure(|i| {
        let o = slot(i);
        big[o..o + 4096].copy_from_slice(black_box(&buf[..]));
    });
    println!();
    println!(
        "Cold cache, 4 KiB: each fill followed by a copy of the block to a random place in {} MiB (as a \
         buffered write copies it into the page cache); the copy alone takes {:.1} ns and is subtracted",
        BIG >> 20,
        median(&copy_only)
    );
    println!();
    println!("| data | block | fill ns/block, cold cache | 1-core cap, blocks/s |");
    println!("|---|---:|---:|---:|");
    for (name, pat) in patterns {
        let g = DataGen::new(pat, 1, 4096);
        let both = measure(|i| {
            g.fill(black_box(&mut buf[..]), black_box(i));
            let o = slot(i);
            big[o..o + 4096].copy_from_slice(&buf[..]);
        });
        let ns = (median(&both) - median(&copy_only)).max(0.1);
        println!("| {name} | 4 KiB | {ns:.1} | {} |", iops(ns));
    }
    drop(big);

    // Setup cost, once per phase: building the 4 MiB random pool.
    let setup = measure(|i| {
        black_box(DataGen::new(DataPattern::Random, black_box(i), 4096));
    });
    println!();
    println!(
        "DataGen::new(random), once per phase (fills the 4 MiB pool): {:.2} ms median",
        median(&setup) / 1e6
    );
}
