//! A run's results past the readers' limit (scale 15, finding 1): a 100,000-phase spec at high queue depths
//! wrote about 10.7 KB of results a phase, and 48,695 phases gave a 523 MB results.json that `validate`,
//! `report`, `compare` and `merge` then refused (past 512 MiB). The plan now refuses a plan whose results
//! surely pass the limit (`plan::results_size::check`), exit 2, nothing written; the run accounts the rest
//! before each phase (`plan::results_size::account`, unit-tested there with exact bytes).

use crate::common::{code_out_err, spec_text, tempdir, wkrun, write_file};
use wkrun::plan::results_size::{MAX_RESULTS_BYTES, check, least_phase_bytes, results_bytes};

/// What docs/results.md states a phase's results surely take (bytes).
const RUN: u64 = 64 << 10;
const PHASE: u64 = 6 << 10;
const WARNINGS: u64 = 4 << 10;
const DIRECTION: u64 = 1 << 10;
const ENTRY: u64 = 512;
const PAIR: u64 = 32;

/// A spec of `n` null-engine workloads, each `body` (its directions, its duration): blocks of 900 queue depths
/// from 100 (`a[qd=100]` to `a[qd=999]`, then `b[qd=100]`...), every phase's name and label alike long.
fn spec(n: usize, body: &str) -> String {
    let letters = ('a'..='z').chain('A'..='Z');
    let blocks = letters.zip((0..n).step_by(900)).map(|(name, from)| {
        let qds = (100..100 + (n - from).min(900))
            .map(|q| q.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        format!("[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nqueue_depth = [{qds}]\n{body}")
    });
    spec_text(
        "big",
        &format!(
            "[defaults]\nengine = \"null\"\n{}",
            blocks.collect::<String>()
        ),
    )
}

/// Reads, writes and trims, 100 ms.
const THREE: &str = "read_percent = 50\ntrim_percent = 20\nduration = \"100ms\"\n";
/// Reads only, 1 s.
const ONE: &str = "read_percent = 100\nduration = \"1s\"\n";
/// Reads, writes and trims, 400 ms, averaged over 400 groups of 1 ms.
const WIDE: &str = "read_percent = 50\ntrim_percent = 20\nduration = \"400ms\"\ninterval = \"1ms\"\naggregate = \"1ms\"\n";

/// What the docs say one phase of [`spec`] named like `a[qd=100]`, of `dirs` directions and `groups`
/// aggregate groups, surely takes: its fixed fields and warnings, its name four times and its label, the
/// totals of its directions and of all, one histogram pair per direction, its one block size, one headline
/// figure and its groups.
fn least(dirs: u64, groups: u64) -> u64 {
    let name = "a[qd=100]".len() as u64;
    let label = 32 + "qd".len() as u64 + "100".len() as u64;
    PHASE
        + WARNINGS
        + 4 * name
        + label
        + (dirs + 1) * DIRECTION
        + dirs * PAIR
        + (2 + groups) * ENTRY
}

/// The refusal of `n` phases each taking `per` bytes, as `wkrun plan` says it for spec file `path`.
fn refusal(path: &std::path::Path, n: u64, per: u64) -> String {
    format!(
        "error: {}:7:3: phase: the results of these {n} phases could take {} bytes (estimated from the plan: up to {per} bytes a phase), more than 512MiB (536870912 bytes), the largest results file wkrun's readers (validate, report, compare, merge, sim fit) take\n   |\n 7 | [[phase]]\n   |   ^^^^^\n  help: split the spec into several, each with fewer phases\n",
        path.display(),
        RUN + n * per
    )
}

/// The plan of spec `text`, written as `file` in `d`, on a file `t.img` of `size` bytes there.
fn plan_of(d: &std::path::Path, file: &str, text: &str, size: u64) -> wkrun::plan::Plan {
    let path = write_file(d, file, text);
    let spec = wkrun::spec::load_file(&path).expect("spec loads");
    let target = wkrun::target::TargetInfo::new(
        d.join("t.img"),
        wkrun::target::TargetKind::File,
        size,
        512,
        4096,
    );
    wkrun::plan::resolve(&spec, &target).expect("plan")
}

/// The first phase of the plan of `spec` on a 1 GiB file in `d`.
fn first_phase(d: &std::path::Path, spec: &str) -> wkrun::plan::PhasePlan {
    plan_of(d, "one.toml", spec, 1 << 30).phases[0].clone()
}

/// How many null-engine phases plan: 40,009 time-bounded phases of one direction, 1 s each (their run then
/// accounts its results before each phase), 34,567 of reads, writes and trims, 100 ms each; one more is
/// refused. The plan's own check, on copies of the phase the plan made.
#[test]
fn how_many_phases_plan() {
    let dir = tempdir();
    let d = dir.path();
    for (body, dirs, per, most) in [(ONE, 1, 13_417, 40_009), (THREE, 3, 15_529, 34_567)] {
        let p = first_phase(d, &spec(1, body));
        assert_eq!((least(dirs, 0), least_phase_bytes(&p)), (per, per));
        assert_eq!((MAX_RESULTS_BYTES - RUN) / per, most);
        let phases = vec![p; most as usize + 1];
        assert_eq!(check(&phases[..most as usize]), Ok(()));
        let refused = check(&phases).expect_err("refused");
        assert!(
            refused.starts_with(&format!(
                "the results of these {} phases could take {} bytes (estimated from the plan: up to {per} bytes a phase)",
                most + 1,
                RUN + (most + 1) * per
            )),
            "{refused}"
        );
    }
}

#[test]
fn a_plan_whose_results_surely_pass_the_readers_limit_is_refused() {
    let per = least(3, 400);
    assert_eq!(per, 220_329);
    // The most phases that surely fit in 512 MiB beside the run's own fields: 2,436.
    let most = (MAX_RESULTS_BYTES - RUN) / per;
    assert_eq!(most, 2_436);
    let dir = tempdir();
    let d = dir.path();
    let over = write_file(d, "over.toml", &spec(most as usize + 1, WIDE));
    let o = wkrun(d, &["plan", over.to_str().unwrap(), "--target", "t.img"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(err, refusal(&over, most + 1, per));
    // A run of it is refused before anything is written.
    let args = ["--target", "t.img", "-o", "out", "-q"];
    let o = wkrun(d, &[&[over.to_str().unwrap()][..], &args].concat());
    assert_eq!(code_out_err(&o).0, 2);
    assert!(!d.join("out").exists() && !d.join("t.img").exists());
    // One phase fewer runs (from its last phase, the others taken as done).
    let under = write_file(d, "under.toml", &spec(most as usize, WIDE));
    let last = (most - 1).to_string();
    let o = wkrun(
        d,
        &[&[under.to_str().unwrap()][..], &args, &["--from", &last]].concat(),
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let r = crate::common::results(&d.join("out"));
    assert_eq!(r["status"], "completed");
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(1));
    assert_eq!(r["phases"][0]["name"], "c[qd=735]");
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
    let plan = plan_of(d, "s.toml", &spec_text("hold", &body), 64 << 20);
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
