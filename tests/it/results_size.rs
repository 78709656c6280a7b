//! A run's results past the readers' limit (scale 15, finding 1): a 100,000-phase spec at high queue depths
//! wrote about 10.7 KB of results a phase, and 48,695 phases gave a 523 MB results.json that `validate`,
//! `report`, `compare` and `merge` then refused (past 512 MiB). The plan now estimates its results' size
//! (`plan::results_size`) and refuses a plan that could pass the limit, exit 2, nothing written.

use crate::common::{code_out_err, spec_text, tempdir, wkrun, write_file};
use wkrun::plan::results_size::{MAX_RESULTS_BYTES, results_bytes};

/// What docs/results.md states a phase's results are given room for (bytes).
const RUN: u64 = 64 << 10;
const PHASE: u64 = 6 << 10;
const WARNINGS: u64 = 4 << 10;
const DIRECTION: u64 = 1 << 10;
const ENTRY: u64 = 512;
const PAIRS: u64 = 4096;
const PAIR: u64 = 32;

/// A spec of null-engine workloads of reads, writes and trims, 100 ms each: `a` at queue depths 100 to 999
/// (`a_n` of them), `b` at queue depths from 100 (`b_n` of them): every phase's name and label alike long.
fn spec(a_n: u32, b_n: u32) -> String {
    let qds = |n: u32| {
        (100..100 + n)
            .map(|q| q.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let phase = |name: &str, n: u32| {
        format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nqueue_depth = [{}]\nread_percent = 50\ntrim_percent = 20\nduration = \"100ms\"\n",
            qds(n)
        )
    };
    spec_text(
        "big",
        &format!(
            "[defaults]\nengine = \"null\"\n{}{}",
            phase("a", a_n),
            phase("b", b_n)
        ),
    )
}

/// The room the docs give one phase of [`spec`] (`a[qd=100]`): its fixed fields and warnings, its name
/// four times and its label, the totals of three directions and of all, a histogram of 4,096 pairs per
/// direction, its one block size and one headline figure.
fn phase_room() -> u64 {
    let name = "a[qd=100]".len() as u64;
    let label = 32 + "qd".len() as u64 + "100".len() as u64;
    PHASE + WARNINGS + 4 * name + label + 4 * DIRECTION + 3 * PAIRS * PAIR + 2 * ENTRY
}

#[test]
fn a_plan_whose_results_could_pass_the_readers_limit_is_refused() {
    let per = phase_room();
    assert_eq!(per, 408_649);
    // The most phases whose room fits in 512 MiB beside the run's own fields: 1,313.
    let most = (MAX_RESULTS_BYTES - RUN) / per;
    assert_eq!(most, 1313);
    let dir = tempdir();
    let d = dir.path();
    let over = write_file(d, "over.toml", &spec(900, most as u32 + 1 - 900));
    let o = wkrun(d, &["plan", over.to_str().unwrap(), "--target", "t.img"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    let bytes = RUN + (most + 1) * per;
    assert_eq!(
        err,
        format!(
            "error: {}:7:3: phase: the results of these 1314 phases could take {bytes} bytes (estimated from the plan: up to {per} bytes a phase), more than 512MiB (536870912 bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take\n   |\n 7 | [[phase]]\n   |   ^^^^^\n  help: split the spec into several, each with fewer phases\n",
            over.display()
        )
    );
    // A run of it is refused before anything is written.
    let o = wkrun(
        d,
        &[
            over.to_str().unwrap(),
            "--target",
            "t.img",
            "-o",
            "out",
            "-q",
        ],
    );
    assert_eq!(code_out_err(&o).0, 2);
    assert!(!d.join("out").exists() && !d.join("t.img").exists());
    // One phase fewer runs (from its last phase, the others taken as done).
    let under = write_file(d, "under.toml", &spec(900, most as u32 - 900));
    let o = wkrun(
        d,
        &[
            under.to_str().unwrap(),
            "--target",
            "t.img",
            "-o",
            "out",
            "-q",
            "--from",
            "b[qd=512]",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let r = crate::common::results(&d.join("out"));
    assert_eq!(r["status"], "completed");
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(1));
    assert_eq!(r["phases"][0]["name"], "b[qd=512]");
}

/// The estimate holds: null-engine phases at queue depth 256 over every block size from 512 B to 1 MiB,
/// with reads, writes and trims, one and four workers, write results no larger than the plan estimated,
/// phase by phase.
#[test]
fn results_are_no_larger_than_the_plan_estimated() {
    let dir = tempdir();
    let d = dir.path();
    let sizes = [
        "512B", "1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "256KiB",
        "512KiB", "1MiB",
    ];
    let list = sizes.map(|s| format!("\"{s}\"")).join(", ");
    let body = format!(
        "[defaults]\nengine = \"null\"\nqueue_depth = 256\ninterval = \"50ms\"\n\
         [[phase]]\nname = \"mix\"\nkind = \"workload\"\nblock_size = [{list}]\nread_percent = 50\ntrim_percent = 20\nduration = \"150ms\"\n\
         [[phase]]\nname = \"four\"\nkind = \"workload\"\nworkers = 4\nqueue_depth = 64\nblock_size = [\"4KiB\", \"64KiB\"]\nread_percent = 70\nduration = \"150ms\"\n"
    );
    let path = write_file(d, "s.toml", &spec_text("hold", &body));
    let spec = wkrun::spec::load_file(&path).expect("spec loads");
    let target = wkrun::target::TargetInfo::new(
        d.join("t.img"),
        wkrun::target::TargetKind::File,
        64 << 20,
        512,
        4096,
    );
    let plan = wkrun::plan::resolve(&spec, &target).expect("plan");
    assert_eq!(plan.phases.len(), 14);
    let o = wkrun(
        d,
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "64MiB",
            "-o",
            "out",
            "-q",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(d.join("out/results.json")).expect("results");
    let estimate = results_bytes(&plan.phases);
    assert!(
        (text.len() as u64) <= estimate,
        "results.json {} bytes, estimated {estimate}",
        text.len()
    );
    // Phase by phase: each phase's text as written, against its own room.
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    for (i, p) in plan.phases.iter().enumerate() {
        // At its depth in the file, every line of the phase is indented 4 spaces more.
        let alone = serde_json::to_string_pretty(&v["phases"][i]).expect("text");
        let written = (alone.len() + 4 * alone.lines().count()) as u64;
        let room = wkrun::plan::results_size::phase_bytes(p);
        assert!(
            written <= room,
            "phase {i} {}: {written} bytes, room {room}",
            p.name
        );
    }
}
