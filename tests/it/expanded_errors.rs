//! A rule broken by a `[[phase]]` that a matrix and a block of rounds expand into 1,400 phases (the PTS IOPS
//! test) is said once per `[[phase]]`, naming how many of its phases it concerns: at load (the spec's own
//! value), after `--set`, and when the plan is resolved against a target. Exact stderr line counts.

use crate::common::*;
use std::path::Path;

const SIM: &str = "sim:capacity=64MiB,op=7%,block=256KiB";

/// `wkrun ARGS` in `dir`: exit code and stderr lines starting `error: `, and all stderr lines.
fn errors(dir: &Path, args: &[&str]) -> (i32, Vec<String>, usize) {
    let (code, _, err) = code_out_err(&wkrun(dir, args));
    let lines: Vec<String> = err
        .lines()
        .filter(|l| l.starts_with("error: "))
        .map(String::from)
        .collect();
    (code, lines, err.lines().count())
}

fn iops_spec() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs/snia/iops.toml")
        .to_str()
        .expect("utf-8")
        .to_string()
}

/// `--set duration=0s`: broken by all 1,400 phases of [[phase]] "iops" (56 cells × 25 rounds), one error
/// with its help line, 2 lines in all (it was 2,800).
#[test]
fn a_set_broken_by_every_expanded_phase_is_said_once() {
    let d = tempdir();
    let spec = iops_spec();
    let (code, lines, all) = errors(
        d.path(),
        &["plan", &spec, "--target", SIM, "--set", "duration=0s"],
    );
    assert_eq!(code, 2);
    assert_eq!(
        lines,
        [format!(
            "error: {spec}: --set duration=0s: [[phase]] 2 \"iops\" (expanded: \"iops[round=1,bs=1MiB,read=100]\").duration: duration is 0 (in 1400 of the 1400 phases [[phase]] \"iops\" expands into)"
        )]
    );
    assert_eq!(all, 2);
    // queue_depth=0 breaks [[phase]] "precondition" (one phase) and "iops" (1,400): two errors.
    let (code, lines, all) = errors(
        d.path(),
        &["plan", &spec, "--target", SIM, "--set", "queue_depth=0"],
    );
    assert_eq!((code, lines.len(), all), (2, 2, 4));
    assert!(lines[0].ends_with("\"precondition\".queue_depth: queue_depth = 0 is out of range"));
    assert!(lines[1].ends_with("(in 1400 of the 1400 phases [[phase]] \"iops\" expands into)"));
}

/// A span smaller than 1 MiB: only the 1 MiB cells break it when the plan is resolved, 7 mixes × 25 rounds
/// = 175 of the 1,400 phases; said once (it was 50 lines, the most a plan reported, then cut).
#[test]
fn a_plan_error_of_some_expanded_phases_is_said_once_with_their_count() {
    let d = tempdir();
    let spec = iops_spec();
    let (code, lines, all) = errors(
        d.path(),
        &["plan", &spec, "--target", SIM, "--set", "span=600KiB"],
    );
    assert_eq!((code, all), (2, 1));
    assert_eq!(
        lines,
        [format!(
            "error: {spec}: --set span=600KiB: [[phase]] 2 \"iops\" (expanded: \"iops[round=1,bs=1MiB,read=100]\").span: the span (614400 B) is smaller than one block (1048576 B) (in 175 of the 1400 phases [[phase]] \"iops\" expands into)"
        )]
    );
    // Nothing written by a run refused so.
    let (code, _, _) = errors(
        d.path(),
        &[
            "run",
            &spec,
            "--target",
            SIM,
            "--set",
            "span=600KiB",
            "-o",
            "out",
        ],
    );
    assert_eq!(code, 2);
    assert!(!d.path().join("out").exists());
}

/// The spec's own value (not a `--set`): `steady_after.written` on a matrix whose 100 %-read cells write
/// nothing, 8 block sizes × 25 rounds = 200 phases; one error located at the key (5 lines with its source
/// line, caret and help).
#[test]
fn a_rule_broken_in_the_file_by_expanded_phases_is_said_once() {
    let d = tempdir();
    let body = std::fs::read_to_string(iops_spec())
        .expect("spec")
        .replace(
            "duration = \"1min\"\n",
            "duration = \"1min\"\nsteady_state = { rule = \"snia\" }\nsteady_after = { written = \"100%\" }\n",
        );
    write_file(d.path(), "s.toml", &body);
    let (code, lines, all) = errors(d.path(), &["validate", "s.toml"]);
    assert_eq!((code, all), (2, 5));
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("error: s.toml:")
            && lines[0].contains(
                "[[phase]] 2 \"iops\" (expanded: \"iops[round=1,bs=1MiB,read=100]\").steady_after:"
            )
            && lines[0].ends_with("(in 200 of the 1400 phases [[phase]] \"iops\" expands into)"),
        "{}",
        lines[0]
    );
}

/// Attack 16, finding 2: an error on an expanded phase was `phase[0] "w[bs=8KiB]"`, the index the
/// `[[phase]]` table's while the name is an expanded phase's (the first expanded phase here is 1). The
/// table is named as one, with the expanded phase's name beside it; a phase no matrix expanded keeps
/// `phase[N] "NAME"`.
#[test]
fn an_expanded_phase_s_error_names_its_table() {
    let t = tempdir();
    let d = t.path();
    let spec = "format = 1\n[spec]\nname = \"m\"\nversion = \"1\"\n[[phase]]\nname = \"a\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"2KiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = [\"4KiB\", \"8KiB\"]\nread_percent = 0\nsize = \"4KiB\"\n";
    write_file(d, "m.toml", spec);
    let (code, lines, _) = errors(d, &["plan", "m.toml", "--target", SIM]);
    assert_eq!(code, 2);
    assert_eq!(
        lines,
        [
            "error: m.toml:10:1: phase[0] \"a\".size: size 2KiB (2048 B) is less than one block (4096 B)",
            "error: m.toml:16:1: [[phase]] 1 \"w\" (expanded: \"w[bs=8KiB]\").size: size 4KiB (4096 B) is less than one block (8192 B)",
        ]
    );
}
