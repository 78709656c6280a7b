//! Each phase its own op stream (trial 23, findings 1 and 2): a phase's stream seed is a hash of the spec's
//! `seed` and the phase's full name, so a write phase after another does not replay its offsets and data;
//! the same spec gives the same streams run after run, and a phase's stream does not move when another phase
//! is removed, `--from` skips the phases before it, or one member of a sweep runs alone. Stonewalled fio
//! jobs imported as phases get streams of their own, as fio gives its jobs.

use crate::common::*;
use std::path::Path;

/// Two random-write phases of 16 I/Os each, every completion traced; `first` only when `with_first`.
fn two_writes(with_first: bool) -> String {
    let phase = |name: &str| {
        format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\ntrace = 16\n"
        )
    };
    let first = if with_first {
        phase("first")
    } else {
        String::new()
    };
    format!(
        "[defaults]\nengine = \"psync\"\ndirect = false\nblock_size = \"4KiB\"\nseed = 4\n{first}{}",
        phase("second")
    )
}

/// The offsets of a phase's traced I/Os, in the order they completed (QD1: the stream's order).
fn traced(out: &Path, phase: &serde_json::Value) -> Vec<u64> {
    let file = phase["trace"]["file"]
        .as_str()
        .unwrap_or_else(|| panic!("no trace file in {phase}"));
    csv_rows(&out.join(file))
        .iter()
        .map(|r| n(r, "offset"))
        .collect()
}

/// Runs `body` on a 16 MiB file in `dir` (output `out`, `args` added) and returns each phase's name, stream
/// seed and traced offsets.
fn run(dir: &Path, out: &str, body: &str, args: &[&str]) -> Vec<(String, u64, Vec<u64>)> {
    write_file(dir, "s.toml", &spec_text("streams", body));
    let mut all = on_a_new_file("s.toml", "t.img", out);
    all.extend_from_slice(args);
    let (code, _, err) = code_out_err(&wkrun(dir, &all));
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&dir.join(out));
    r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| {
            let name = p["name"].as_str().expect("name").to_string();
            let seed = u(p, "/params/stream_seed");
            assert_eq!(u(p, "/params/seed"), 4, "{name}");
            (name, seed, traced(&dir.join(out), p))
        })
        .collect()
}

#[test]
fn two_write_phases_draw_their_own_streams_the_same_on_every_run() {
    let d = tempdir();
    let a = run(d.path(), "a", &two_writes(true), &[]);
    assert_eq!(a.len(), 2);
    let (first, second) = (&a[0], &a[1]);
    // The stream seeds are ops::phase_seed(4, name), recorded in the results.
    assert_eq!(first.1, wkrun::ops::phase_seed(4, "first"));
    assert_eq!(second.1, wkrun::ops::phase_seed(4, "second"));
    assert_ne!(first.1, second.1);
    // Before, both phases drew seed 4's stream itself, the same 16 offsets in the same order (16 MiB, 4096
    // blocks of 4 KiB; 8,478,720, 11,112,448, 14,831,616 first). Now each its own. The values are PCG-64 MCG's
    // first draws for each stream seed, computed apart from wkrun (block = draw × 4096 >> 64).
    assert_eq!(first.2.len(), 16);
    assert_eq!(second.2.len(), 16);
    assert_eq!(first.2[..3], [6_475_776, 12_132_352, 3_284_992]);
    assert_eq!(second.2[..3], [14_155_776, 2_027_520, 1_339_392]);
    assert_ne!(first.2, second.2);
    // A second run of the same spec draws exactly the same streams.
    let b = run(d.path(), "b", &two_writes(true), &[]);
    assert_eq!(a, b);
}

#[test]
fn a_phase_stream_stays_when_earlier_phases_are_removed_or_skipped() {
    let d = tempdir();
    let whole = run(d.path(), "whole", &two_writes(true), &[]);
    let second = whole[1].clone();
    assert_eq!(second.0, "second");
    // The spec without its first phase.
    let alone = run(d.path(), "alone", &two_writes(false), &[]);
    assert_eq!(alone, std::slice::from_ref(&second));
    // `--from` skipping the first phase.
    let from = run(d.path(), "from", &two_writes(true), &["--from", "second"]);
    assert_eq!(from, [second]);
}

#[test]
fn a_seed_given_to_a_phase_is_mixed_with_its_name_too() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\nseed = 9\n\
                [[phase]]\nname = \"b\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\nseed = 9\n";
    let spec = write_file(d.path(), "s.toml", &spec_text("own", body));
    let plan = plan_json(
        d.path(),
        &spec,
        &d.path().join("t.img"),
        &["--target-size", "16MiB"],
    );
    let seeds: Vec<(u64, u64)> = (0..2)
        .map(|i| {
            let p = &plan["phases"][i]["params"];
            (u(p, "/seed"), u(p, "/stream_seed"))
        })
        .collect();
    assert_eq!(
        seeds,
        [
            (9, wkrun::ops::phase_seed(9, "a")),
            (9, wkrun::ops::phase_seed(9, "b"))
        ]
    );
    assert_ne!(seeds[0].1, seeds[1].1);
    // `wkrun plan` says it.
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "plan",
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "16MiB",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let line = format!(
        "op stream seed {} (of seed 9 and the phase's name)",
        wkrun::ops::phase_seed(9, "b")
    );
    assert!(out.contains(&line), "{line:?} in\n{out}");
}

#[test]
fn one_member_of_a_sweep_keeps_its_stream() {
    let d = tempdir();
    let spec = seed_spec("anthology");
    let target = Path::new("sim:capacity=2GiB,op=7%");
    let seeds = |args: &[&str]| -> Vec<(String, u64)> {
        let plan = plan_json(d.path(), &spec, target, args);
        plan["phases"]
            .as_array()
            .expect("phases")
            .iter()
            .filter_map(|p| {
                let s = p["params"]["stream_seed"].as_u64()?;
                Some((p["name"].as_str().expect("name").to_string(), s))
            })
            .collect()
    };
    let all = seeds(&[]);
    let used = seeds(&["--set", "sweep.filled=100%"]);
    assert!(!used.is_empty() && used.len() < all.len(), "{used:?}");
    for p in &used {
        assert!(all.contains(p), "{p:?} is not the whole run's");
    }
    let mut distinct: Vec<u64> = all.iter().map(|p| p.1).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), all.len(), "{all:?}");
}

#[test]
fn stonewalled_fio_jobs_become_phases_of_their_own_streams() {
    let d = tempdir();
    write_file(
        d.path(),
        "two.fio",
        "[global]\nfilename=two.img\nsize=1m\nbs=4k\nioengine=psync\n\n[warm]\nrw=randwrite\n\n[measure]\nstonewall\nrw=randwrite\n",
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "two.fio", "-o", "two.toml"],
    ));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "two.toml",
            "--set",
            "phase.warm.trace=4",
            "--set",
            "phase.measure.trace=4",
            "-o",
            "out",
            "-q",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&d.path().join("out"));
    let out = d.path().join("out");
    let (warm, measure) = (&r["phases"][0], &r["phases"][1]);
    assert_eq!(
        (warm["name"].as_str(), measure["name"].as_str()),
        (Some("warm"), Some("measure"))
    );
    assert_eq!(
        u(warm, "/params/stream_seed"),
        wkrun::ops::phase_seed(1, "warm")
    );
    assert_eq!(
        u(measure, "/params/stream_seed"),
        wkrun::ops::phase_seed(1, "measure")
    );
    // Each job's 256 blocks once, in an order of its own: before, both phases wrote the same order.
    let (a, b) = (traced(&out, warm), traced(&out, measure));
    assert_eq!(a.len(), 4);
    assert_eq!(b.len(), 4);
    assert_ne!(a, b);
}

/// Two phases of the attack's crafted seeds (attack 24 F9; `seedcollide.py` inverted SplitMix64's finaliser
/// to find them): `a` of seed 2 and `b` of seed 6046881650114361017, whose stream seeds are one,
/// 15222339495169479420.
const COLLIDING: &str = "[[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\nseed = 2\n\
                         [[phase]]\nname = \"b\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\nseed = 6046881650114361017\n";

#[test]
fn two_phases_whose_seeds_make_one_stream_are_refused() {
    // The attack's Python computed both stream seeds apart from wkrun: the same number.
    assert_eq!(wkrun::ops::phase_seed(2, "a"), 15_222_339_495_169_479_420);
    assert_eq!(
        wkrun::ops::phase_seed(6_046_881_650_114_361_017, "b"),
        15_222_339_495_169_479_420
    );
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("collide", COLLIDING));
    let want = "s.toml:16:1: phase[1] \"b\".seed: phases \"a\" (seed = 2) and \"b\" (seed = 6046881650114361017) would draw one op stream: the stream seed of each, of its seed and its name, is 15222339495169479420";
    let target = ["--target", "t.img", "--target-size", "16MiB"];
    for cmd in [&["plan", "s.toml"][..], &["s.toml", "-o", "out", "-q"][..]] {
        let (code, _, err) = code_out_err(&wkrun(d.path(), &[cmd, &target[..]].concat()));
        assert_eq!(code, 2, "{cmd:?}: {err}");
        assert!(err.contains(want), "{cmd:?}: {want:?} in\n{err}");
    }
    // The run made nothing: no output folder, no target file.
    assert!(!d.path().join("out").exists());
    assert!(!d.path().join("t.img").exists());
    // Another seed for `b` and the plan is made.
    let other = COLLIDING.replace("6046881650114361017", "3");
    write_file(d.path(), "s.toml", &spec_text("collide", &other));
    let plan = [&["plan", "s.toml"][..], &target[..]].concat();
    let (code, _, err) = code_out_err(&wkrun(d.path(), &plan));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn validate_refuses_a_stream_seed_not_of_its_seed_and_name() {
    let d = tempdir();
    let body = COLLIDING
        .replace("seed = 2\n", "seed = 4\n")
        .replace("seed = 6046881650114361017\n", "seed = 4\n");
    write_file(d.path(), "s.toml", &spec_text("forged", &body));
    let args = on_a_new_file("s.toml", "t.img", "a");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    let out = d.path().join("a");
    let file = out.join("results.json");
    let text = std::fs::read_to_string(&file).expect("results");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    // The attack's forgery: phase "b" given phase "a"'s stream seed, and another seed.
    v["phases"][1]["params"]["stream_seed"] = v["phases"][0]["params"]["stream_seed"].clone();
    std::fs::write(&file, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "a"]));
    assert_eq!(code, 2, "{err}");
    let want = format!(
        "  phases[1].params.stream_seed: {} is not the stream seed of seed 4 and the phase's name \"b\", {}\n",
        wkrun::ops::phase_seed(4, "a"),
        wkrun::ops::phase_seed(4, "b")
    );
    assert!(err.contains(&want), "{want:?} in\n{err}");
    // Put back, the file is valid again.
    std::fs::write(&file, text).expect("write");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "a"]));
    assert_eq!(code, 0, "{err}");
}
