//! A fio user's first hour (session 24): the frictions found and fixed, each checked on its exact output.

use crate::common::*;
use crate::engines::engine_unavailable;

const W: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\nblock_size = \"4KiB\"\n\
                 queue_depth = 1\nread_percent = 0\nduration = \"1s\"\n";

/// `--set duration=20` (no unit): the hint is worded for the command line (`--set duration=20s`), with
/// the key as the override wrote it; in a spec file it keeps the TOML wording (a quoted string).
#[test]
fn a_bare_duration_in_set_is_told_as_a_command_line_value() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("x", W));
    for (set, hint) in [
        ("duration=20", "e.g. --set duration=20s"),
        ("phase.w.duration=20", "e.g. --set phase.w.duration=20s"),
        ("duration=2.5", "e.g. --set duration=2.5s"),
    ] {
        let o = wkrun(
            d.path(),
            &[
                "plan",
                "s.toml",
                "--target",
                "t.img",
                "--target-size",
                "8MiB",
                "--set",
                set,
            ],
        );
        let (code, out, err) = code_out_err(&o);
        let n = set.split_once('=').unwrap().1;
        // serde's words: "a duration" for a whole number, "the duration" for a fraction.
        let a = if n.contains('.') { "the" } else { "a" };
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                format!(
                    "error: s.toml: --set {set}: bare number {n} has no unit; write {a} duration with its unit, {hint}\n"
                )
                .as_str()
            ),
            "{set}"
        );
    }
    write_file(
        d.path(),
        "f.toml",
        &spec_text("x", &W.replace("\"1s\"", "20")),
    );
    let o = wkrun(d.path(), &["validate", "f.toml"]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "bare number 20 has no unit; write a duration as a string with its unit, e.g. \"20s\""
        ),
        "{err}"
    );
}

/// `wkrun validate` on a spec without `format` and with an unknown key says both at once (exit 2), not the
/// missing `format` first and the key only once it is fixed.
#[test]
fn a_missing_format_is_one_error_among_the_others() {
    let d = tempdir();
    let text = spec_text("x", &W.replace("queue_depth", "queue_depht"));
    let text = text.strip_prefix("format = 1\n").unwrap();
    write_file(d.path(), "s.toml", text);
    let o = wkrun(d.path(), &["validate", "s.toml"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str()), (2, ""));
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(
        errors,
        [
            "error: s.toml:1:1: format: missing `format`: the spec format version",
            "error: s.toml:9:1: phase[0] \"w\".queue_depht: unknown key `queue_depht`",
        ],
        "{err}"
    );
    assert!(
        err.contains("help: add `format = 1` as the first line"),
        "{err}"
    );
}

/// `wkrun plan` says each I/O phase's engine and whether its I/O is direct, on the line under its row.
#[test]
fn the_plan_names_each_phase_engine_and_direct_io() {
    let d = tempdir();
    let body = format!(
        "{W}[[phase]]\nname = \"r\"\nkind = \"workload\"\nengine = \"libaio\"\ndirect = true\n\
         block_size = \"4KiB\"\nqueue_depth = 4\nread_percent = 100\nsize = \"1MiB\"\n"
    )
    .replace(
        "engine = \"psync\"\n",
        "engine = \"psync\"\ndirect = false\n",
    );
    write_file(d.path(), "s.toml", &spec_text("x", &body));
    let o = wkrun(
        d.path(),
        &[
            "plan",
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "8MiB",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let engines: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("engine "))
        .collect();
    assert_eq!(
        engines,
        [
            "engine psync, buffered (direct = false)",
            "engine libaio, direct (O_DIRECT)"
        ],
        "{out}"
    );
}

/// `wkrun plan` shows a phase's steady-state rule and, with `until = "steady"`, that it ends there (trial 16:
/// only `time 40s` was shown); on a simulated drive the engine line is the drive's own, in virtual time,
/// without the direct setting it does not apply.
#[test]
fn the_plan_shows_the_stop_at_steady_state_and_the_sim_engine() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"ss\"\nkind = \"workload\"\nengine = \"libaio\"\nblock_size = \"4KiB\"\n\
                queue_depth = 4\nread_percent = 0\nduration = \"40s\"\nuntil = \"steady\"\n\
                steady_state = { rule = \"fio\", metric = \"iops\", kind = \"slope\", limit = 0.02, relative = true, window = 10 }\n\
                [[phase]]\nname = \"snia\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\n\
                duration = \"30s\"\nsteady_state = { rule = \"snia\", window = 5 }\nsteady_round = \"2s\"\n";
    write_file(d.path(), "s.toml", &spec_text("x", body));
    let lines = |target: &[&str]| {
        let o = wkrun(
            d.path(),
            &[&["plan", "s.toml", "--target"][..], target].concat(),
        );
        let (code, out, err) = code_out_err(&o);
        assert_eq!(code, 0, "{err}");
        let rows: Vec<String> = out
            .lines()
            .map(str::trim)
            .filter(|l| l.contains("steady") && !l.starts_with('#') || l.starts_with("engine "))
            // A row's last cells: its bound and its expected bytes (`-` for a time bound).
            .map(|l| {
                l.trim_end_matches('-')
                    .trim_end()
                    .split("  ")
                    .last()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .collect();
        rows
    };
    let file = lines(&["t.img", "--target-size", "8MiB"]);
    assert_eq!(
        file,
        [
            "time 40s or until steady",
            "until steady: ends once steady (fio rule: the IOPS slope per round under 2 % of the window's mean, over the last 10 rounds of 1s), else at its bound",
            "engine libaio, direct (O_DIRECT)",
            "steady state judged (SNIA rule: 5 rounds of 2s, data excursion 20 %, slope excursion 10 %, within 25 rounds); runs to its bound (until = \"steady\" would end it once steady)",
            "engine psync, direct (O_DIRECT)",
        ]
    );
    let sim = lines(&["sim:capacity=1GiB"]);
    assert_eq!(sim[2], "engine sim (virtual time)");
    assert_eq!(sim[4], "engine sim (virtual time)");
    assert_eq!(sim[..2], file[..2]);
}

/// `wkrun compare` of a run with `--set completion_waits=each` and one that probed shows the way each
/// waited (`completion_waits=each`), not `-`.
#[test]
fn compare_shows_completion_waits_each_when_set() {
    let test = "first_hour::compare_shows_completion_waits_each_when_set";
    if let Some(why) = engine_unavailable("io_uring") {
        return skip(test, &why);
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return skip(test, "one CPU: the plan probes only with a CPU to spare");
    }
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"io_uring\"\ndirect = false\n\
                block_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nsize = \"2MiB\"\n";
    write_file(d.path(), "s.toml", &spec_text("x", body));
    sparse_file(&d.path().join("t.img"), 8 << 20);
    for (out, set) in [("a", "queue_depth=32"), ("b", "completion_waits=each")] {
        let o = wkrun(
            d.path(),
            &["s.toml", "-q", "--target", "t.img", "-o", out, "--set", set],
        );
        assert_eq!(o.status.code(), Some(0), "{}", code_out_err(&o).2);
    }
    let o = wkrun(d.path(), &["compare", "a", "b", "--format", "csv"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let row: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("w,parameters"))
        .collect();
    assert_eq!(
        row,
        ["w,parameters that differ,completion_waits=probe,completion_waits=each,"],
        "{out}"
    );
}

/// `version` under [spec] is required: the error names the file, the line of [spec] and the key, and says
/// what to write.
#[test]
fn a_missing_spec_version_says_what_to_write() {
    let d = tempdir();
    write_file(
        d.path(),
        "s.toml",
        &spec_text("x", W).replace("version = \"1\"\n", ""),
    );
    let o = wkrun(d.path(), &["validate", "s.toml"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: s.toml:2:1: spec.version: missing key `version`\n   |\n 2 | [spec]\n   | ^^^^^^\n  \
             help: add `version = \"1\"` under [spec]: the spec's own version, any string (`\"1.0.0\"`), for \
             sharing it between labs\n"
        ),
    );
}
