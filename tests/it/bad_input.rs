//! The bad-input corpus (issue 7, item 5), beyond the located-error table of `spec_errors`: bad command lines
//! and bad specs for the newer keys, each giving exit 2, a clear `error:` line, no panic, and leaving a
//! pre-existing target file's bytes and mtime unchanged with no output folder; and property tests (proptest,
//! a modest number of cases) of the spec parser on mutated input and of the plan on random geometries.

use crate::common::*;
use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use wkrun::plan;
use wkrun::target::{TargetInfo, TargetKind};

/// A valid workload spec the command-line cases run.
const GOOD: &str =
    "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 50\nsize = \"64KiB\"\n";

/// One bad input: the spec body (after the header), the arguments after the spec, and a piece of the error.
struct Case {
    what: &'static str,
    body: String,
    args: Vec<&'static str>,
    want: &'static str,
}

fn case(what: &'static str, body: &str, args: &[&'static str], want: &'static str) -> Case {
    Case {
        what,
        body: body.to_string(),
        args: args.to_vec(),
        want,
    }
}

fn phase_with(kind: &str, rest: &str) -> String {
    format!("[[phase]]\nname = \"p\"\nkind = \"{kind}\"\n{rest}")
}

fn cases() -> Vec<Case> {
    let wl = |rest: &str| {
        phase_with(
            "workload",
            &format!("read_percent = 0\nsize = \"64KiB\"\n{rest}"),
        )
    };
    vec![
        // Command lines.
        case("unknown option", GOOD, &["--bogus"], "--bogus"),
        case(
            "--target-size garbage",
            GOOD,
            &["--target-size", "lots"],
            "--target-size",
        ),
        case("--target-size negative", GOOD, &["--target-size", "-5"], ""),
        case(
            "--set without =",
            GOOD,
            &["--set", "queue_depth"],
            "queue_depth",
        ),
        case(
            "--set unknown key",
            GOOD,
            &["--set", "queue_dept=4"],
            "did you mean `queue_depth`?",
        ),
        case(
            "--set misspelled key no phase sets",
            GOOD,
            &["--set", "duraton=20s"],
            "--set duraton=20s: `duraton` is not a key (did you mean `duration`?)",
        ),
        case(
            "--set bad value",
            GOOD,
            &["--set", "queue_depth=0"],
            "queue_depth",
        ),
        case(
            "--set duration bare integer",
            GOOD,
            &["--set", "duration=10"],
            "duration",
        ),
        case(
            "--from unknown phase",
            GOOD,
            &["--from", "nope"],
            "--from \"nope\"",
        ),
        case(
            "--from index past the end",
            GOOD,
            &["--from", "7"],
            "0 to 0",
        ),
        case(
            "--from index with a sign",
            GOOD,
            &["--from", "+0"],
            "--from \"+0\": the plan has no phase of that name or index (0 to 0); phases: w",
        ),
        case(
            "--from index with a leading zero",
            GOOD,
            &["--from", "00"],
            "--from \"00\": the plan has no phase",
        ),
        case(
            "--from a name that is another phase's index",
            "[[phase]]\nname = \"1\"\nkind = \"workload\"\nread_percent = 100\nsize = \"4KiB\"\n\
             [[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 100\nsize = \"4KiB\"\n",
            &["--from", "1"],
            "--from \"1\" is ambiguous: phase 0 is named \"1\", and phase 1 is \"w\"; give phase 1's name, or rename phase 0",
        ),
        case("--output without a value", GOOD, &["--output"], "--output"),
        // New keys of this issue.
        case(
            "on_error unknown value",
            &wl("on_error = \"retry\"\n"),
            &[],
            "on_error",
        ),
        case(
            "on_error on an erase",
            &phase_with("erase", "on_error = \"continue\"\n"),
            &[],
            "on_error",
        ),
        case(
            "on_error in defaults wrong type",
            &format!("[defaults]\non_error = true\n{GOOD}"),
            &[],
            "on_error",
        ),
        case(
            "verify on a restore-image",
            &phase_with("restore-image", "image = \"synthetic\"\nverify = true\n"),
            &[],
            "verify",
        ),
        case(
            "verify on a pure-read workload",
            &phase_with(
                "workload",
                "read_percent = 100\nsize = \"64KiB\"\nverify = true\n",
            ),
            &[],
            "only reads",
        ),
        case(
            "verify not a bool",
            &wl("verify = \"yes\"\n"),
            &[],
            "verify",
        ),
        case(
            "expect on a workload",
            &wl("expect = \"header\"\n"),
            &[],
            "expect",
        ),
        case(
            "span as a bare number is bytes",
            &phase_with(
                "workload",
                "read_percent = 0\nduration = \"1s\"\nspan = 50\n",
            ),
            &[],
            "the span (50 B) is smaller than one block (4096 B); a number without a unit is bytes: did you mean \"50%\"?",
        ),
        case(
            "expect unknown",
            &phase_with("verify", "expect = \"everything\"\n"),
            &[],
            "expect",
        ),
        case(
            "max_listed negative",
            &phase_with("verify", "max_listed = -1\n"),
            &[],
            "max_listed",
        ),
        case(
            "max_listed too large",
            &phase_with("verify", "max_listed = 10001\n"),
            &[],
            "max_listed",
        ),
        case(
            "verify kind with seed",
            &phase_with("verify", "seed = 3\n"),
            &[],
            "seed",
        ),
        case(
            "verify kind with read_percent",
            &phase_with("verify", "read_percent = 100\n"),
            &[],
            "read_percent",
        ),
        case(
            "verify kind with a block size not of 512",
            &phase_with("verify", "block_size = 1000\ndirect = false\n"),
            &[],
            "multiple of 512",
        ),
        case(
            "verify after a time-bounded write",
            &format!(
                "{}{}",
                phase_with("workload", "read_percent = 0\nduration = \"1s\"\n"),
                "[[phase]]\nname = \"c\"\nkind = \"verify\"\n"
            ),
            &[],
            "for a time",
        ),
        // Odd TOML.
        case("empty file", "", &[], ""),
        case("binary garbage", "\u{0}\u{1}\u{2}\u{7f}", &[], ""),
        case("a phase that is a string", "phase = \"w\"\n", &[], "phase"),
        case(
            "huge integer",
            &wl("queue_depth = 99999999999999999999\n"),
            &[],
            "queue_depth",
        ),
    ]
}

fn mtime(p: &Path) -> std::time::SystemTime {
    fs::metadata(p).and_then(|m| m.modified()).expect("mtime")
}

/// Every case: exit 2, an `error:` line (containing the case's text), no panic, the target's bytes and mtime
/// unchanged, no output folder. Cases are run through `wkrun run`; spec cases also through `validate` or `plan`.
#[test]
fn bad_command_lines_and_specs_exit_2_and_leave_the_target_alone() {
    let d = tempdir();
    let target = d.path().join("target.img");
    patterned_file(&target, 256 << 10);
    let before = (read(&target), mtime(&target));
    let mut failures = Vec::new();
    let all = cases();
    assert!(all.len() >= 25, "corpus too small");
    for (i, c) in all.iter().enumerate() {
        let spec = format!("s{i}.toml");
        write_file(d.path(), &spec, &spec_text("bad", &c.body));
        let out: PathBuf = d.path().join(format!("out{i}"));
        let mut args = vec![
            spec.as_str(),
            "--target",
            target.to_str().expect("utf-8"),
            "-q",
        ];
        args.extend(c.args.iter().copied());
        if !c.args.contains(&"--output") {
            args.extend(["--output", out.to_str().expect("utf-8")]);
        }
        let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
        let mut problems = Vec::new();
        if code != 2 {
            problems.push(format!("exit {code}"));
        }
        if err.contains("panicked") {
            problems.push("panicked".into());
        }
        if !err.contains("error") {
            problems.push("no error line".into());
        }
        if !err.contains(c.want) {
            problems.push(format!("the error does not mention {:?}", c.want));
        }
        if out.exists() {
            problems.push("an output folder was created".into());
        }
        if (read(&target), mtime(&target)) != before {
            problems.push("the target changed".into());
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} ({}): {}\n  stderr: {}",
                c.what,
                spec,
                problems.join(", "),
                err.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// A 1 MiB..16 TiB file target with 512 or 4096-byte logical blocks.
fn target(capacity: u64, lbs: u32) -> TargetInfo {
    TargetInfo::new(
        "/nonexistent/t.img",
        TargetKind::File,
        capacity,
        lbs,
        lbs.max(4096),
    )
}

const VALID: &str = r#"format = 1
[spec]
name = "p"
version = "1"
[defaults]
queue_depth = 4
[[phase]]
name = "purge"
kind = "erase"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
size = "150%"
[[phase]]
name = "w"
kind = "workload"
block_size = ["4KiB", "8KiB"]
read_percent = 65
duration = "10s"
verify = false
[[phase]]
name = "c"
kind = "verify"
expect = "header"
"#;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The parser never panics on a valid spec with random bytes replaced, inserted or removed; an error always
    /// names the file.
    #[test]
    fn spec_parser_never_panics_on_mutated_input(
        edits in prop::collection::vec((0usize..VALID.len(), any::<u8>(), 0u8..3), 1..8)
    ) {
        let mut bytes = VALID.as_bytes().to_vec();
        for (at, b, op) in edits {
            let at = at.min(bytes.len().saturating_sub(1));
            match op {
                0 => bytes[at] = b,
                1 => bytes.insert(at, b),
                _ => { bytes.remove(at); }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = wkrun::spec::load_str(Path::new("m.toml"), &text) {
            prop_assert!(e.to_string().contains("m.toml"), "{e}");
        }
    }

    /// The plan on random geometries, spans, offsets and block sizes: when it resolves, every phase's range lies
    /// inside the target, and the first and last ops of each I/O phase lie inside its span, none zero-length and
    /// none straddling the span's end.
    #[test]
    fn plans_stay_inside_the_target(
        cap_units in 1u64..(1 << 23),
        lbs in prop::sample::select(vec![512u32, 4096]),
        span in prop::sample::select(vec!["\"100%\"", "\"37%\"", "\"1%\"", "\"3MiB\"", "\"1GiB\"", "12345"]),
        offset in prop::sample::select(vec!["0", "\"10%\"", "\"99%\"", "1048576"]),
        bs in prop::sample::select(vec!["\"512B\"", "\"4KiB\"", "\"128KiB\"", "\"1MiB\"", "\"3KiB\""]),
        pattern in prop::sample::select(vec!["random", "sequential"]),
        coverage in prop::sample::select(vec!["uniform", "full"]),
    ) {
        // 2 MiB units: 2 MiB to 16 TiB.
        let cap = cap_units * (2 << 20);
        let body = format!(
            "[[phase]]\nname = \"f\"\nkind = \"fill\"\nspan = {span}\noffset = {offset}\nblock_size = {bs}\nsize = \"250%\"\n\
             [[phase]]\nname = \"w\"\nkind = \"workload\"\nspan = {span}\noffset = {offset}\nblock_size = {bs}\npattern = \"{pattern}\"\n\
             {}read_percent = 30\nsize = \"100%\"\n",
            if pattern == "random" { format!("coverage = \"{coverage}\"\n") } else { String::new() }
        );
        let text = spec_text("p", &body);
        let Ok(spec) = wkrun::spec::load_str(Path::new("p.toml"), &text) else { return Ok(()); };
        let Ok(plan) = plan::resolve(&spec, &target(cap, lbs)) else { return Ok(()); };
        for p in &plan.phases {
            let q = p.params();
            prop_assert!(q.span_bytes > 0);
            prop_assert!(q.span_start_bytes + q.span_bytes <= cap, "{} past the end", p.name);
            let s = p.op_stream().expect("an I/O phase has an op stream");
            let n = q.ops.unwrap_or(0);
            let firsts = s.ops(0..n.min(64));
            let lasts = s.ops(n.saturating_sub(64)..n);
            for op in firsts.chain(lasts) {
                prop_assert!(op.len > 0, "zero-length op {op:?}");
                prop_assert!(op.offset >= q.span_start_bytes, "{op:?} before the span");
                prop_assert!(op.offset + op.len as u64 <= q.span_start_bytes + q.span_bytes, "{op:?} straddles the span's end");
                prop_assert!(op.offset % lbs as u64 == 0, "{op:?} unaligned");
            }
        }
    }
}
