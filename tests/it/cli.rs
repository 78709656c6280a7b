//! The first hour with wkrun (issue 16): the run summary's latency, mistyped subcommands, a results file
//! given to run, shell completions and the man page, the notes about the target size and unwritten reads.

use crate::common::*;

/// The expected latency line of phase `i` of `results`: `latency: read mean X, p99 Y, p99.9 Z; write mean …`,
/// and in a phase of reads and writes `; together mean M, max N`, M recomputed here from the directions
/// (their means weighted by their op counts) and N the larger maximum.
fn expected_latency_line(results: &serde_json::Value, i: usize) -> String {
    let p = phase(results, i);
    let mut parts = Vec::new();
    let (mut ops, mut weighted, mut max) = (0u64, 0.0, 0u64);
    for dir in ["read", "write"] {
        let n = p[dir]["ops"].as_u64().expect("ops");
        if n > 0 {
            let l = &p[dir]["latency_ns"];
            let mean = l["mean"].as_f64().expect("mean");
            parts.push(format!(
                "{dir} mean {}, p99 {}, p99.9 {}",
                lat_text(mean),
                lat_text(l["p99"].as_f64().expect("p99")),
                lat_text(l["p99_9"].as_f64().expect("p99_9"))
            ));
            (ops, weighted) = (ops + n, weighted + n as f64 * mean);
            max = max.max(l["max"].as_u64().expect("max"));
        }
    }
    if parts.len() > 1 {
        parts.push(format!(
            "together mean {}, max {}",
            lat_text(weighted / ops as f64),
            lat_text(max as f64)
        ));
    }
    format!("      latency: {}", parts.join("; "))
}

#[test]
fn the_run_summary_gives_mean_p99_and_p99_9_latency_per_direction() {
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n\
                [[phase]]\nname = \"mixed\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                read_percent = 70\nsize = \"4MiB\"\n\
                [[phase]]\nname = \"reads\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
                read_percent = 100\nsize = \"1MiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("summary", body));
    let o = wkrun(
        tmp.path(),
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "8MiB",
            "-o",
            "out",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (typed, results) = strict_results(&tmp.path().join("out"));
    // The mixed workload: 1024 I/Os, each group of 100 with 70 reads (718 reads: 700 in 10 groups and 18
    // of the last 24 ops, where the phase's own stream places its reads).
    assert_eq!(phase(&results, 1)["read"]["ops"], 718);
    assert_eq!(phase(&results, 1)["write"]["ops"], 306);
    for i in 0..3 {
        let lines = summary_lines(&out, i);
        assert_eq!(
            lines[0],
            format!("      {}", expected_totals(&typed.phases[i])),
            "{out}"
        );
        assert_eq!(lines[1], expected_latency_line(&results, i), "{out}");
    }
    // The mixed phase gives each direction's IOPS and MB/s too (issue 24, round 2); the others do not.
    let (r, w) = (&typed.phases[1].read, &typed.phases[1].write);
    assert!(
        summary_lines(&out, 1)[0].ends_with(&format!(
            " (read {:.0} IOPS, {:.1} MB/s; write {:.0} IOPS, {:.1} MB/s)",
            r.iops,
            r.bw_bytes_per_s / 1e6,
            w.iops,
            w.bw_bytes_per_s / 1e6
        )),
        "{out}"
    );
    assert!(
        !summary_lines(&out, 0)[0].contains("(read")
            && !summary_lines(&out, 2)[0].contains("(read")
    );
    // A write-only fill names only writes, a read-only workload only reads.
    assert!(
        summary_lines(&out, 0)[1].starts_with("      latency: write mean "),
        "{out}"
    );
    assert!(
        summary_lines(&out, 2)[1].starts_with("      latency: read mean "),
        "{out}"
    );
    assert!(!summary_lines(&out, 2)[1].contains("write"), "{out}");
}

#[test]
fn latency_units_switch_where_the_number_would_reach_1000() {
    for (ns, text) in [
        (850.0, "850 ns"),
        (999.4, "999 ns"),
        (999.6, "1.0 µs"),
        (21_349.0, "21.3 µs"),
        (999_940.0, "999.9 µs"),
        (999_960.0, "1.00 ms"),
        (1_254_000.0, "1.25 ms"),
        (2_500_000_000.0, "2.50 s"),
    ] {
        assert_eq!(lat_text(ns), text);
        assert_eq!(wkrun::run::progress::latency(ns), text);
    }
}

/// The commands of wkrun, as `wkrun --help` lists them.
const COMMANDS: [&str; 14] = [
    "run",
    "validate",
    "plan",
    "warnings",
    "compare",
    "report",
    "library",
    "merge",
    "import",
    "export",
    "sim",
    "schema",
    "completions",
    "man",
];

#[test]
fn a_mistyped_command_suggests_the_right_one() {
    let tmp = tempdir();
    write_file(tmp.path(), "x.toml", "format = 1\n");
    for (typed, meant) in [
        ("valdate", "validate"),
        ("rpeort", "report"),
        ("compre", "compare"),
    ] {
        let (code, out, err) = code_out_err(&wkrun(tmp.path(), &[typed, "x.toml"]));
        assert_eq!(code, 2, "{err}");
        assert_eq!(out, "");
        assert_eq!(
            err,
            format!(
                "error: \"{typed}\" is neither a command nor a spec file; did you mean `wkrun {meant}`? \
                 (commands: {})\n",
                COMMANDS.join(", ")
            )
        );
    }
    assert_eq!(dir_listing(tmp.path()), vec!["x.toml".to_string()]);
    // A file of that name is a spec, whatever it is called: it is loaded (here, and refused as no TOML spec).
    write_file(tmp.path(), "valdate", "format = 1\n");
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &["valdate"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: valdate:"), "{err}");
}

#[test]
fn a_results_file_given_as_a_spec_points_to_report_and_compare() {
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"64KiB\"\n";
    let out = run_ok(tmp.path(), "r", body, &tmp.path().join("t.img"));
    let before = dir_listing(&out);
    // `validate` checks results as results.
    for given in ["out/results.json", "out"] {
        let (code, stdout, err) = code_out_err(&wkrun(tmp.path(), &["validate", given]));
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            stdout,
            format!("{given}: ok (results, 1 phase, 1 series CSV)\n")
        );
    }
    for (given, what) in [("out/results.json", "file"), ("out", "folder")] {
        for (args, command) in [
            (vec![given, "--target", "t.img", "-o", "out2"], "run"),
            (vec!["run", given, "-o", "out2"], "run"),
            (vec!["plan", given], "plan"),
        ] {
            let (code, stdout, err) = code_out_err(&wkrun(tmp.path(), &args));
            assert_eq!(code, 2, "{args:?}: {err}");
            assert_eq!(stdout, "");
            assert_eq!(
                err,
                format!(
                    "error: {given} is a wkrun results {what}, not a spec: `wkrun {command}` takes a TOML spec; \
                     to look at these results, `wkrun report {given}` (plots and index.html) or \
                     `wkrun compare {given} OTHER` (side by side)\n"
                ),
                "{args:?}"
            );
        }
    }
    assert!(!tmp.path().join("out2").exists());
    assert_eq!(dir_listing(&out), before);
}

#[test]
fn completions_and_the_man_page_name_every_command() {
    let tmp = tempdir();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = code_out_err(&wkrun(tmp.path(), &["completions", shell]));
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.len() > 1000, "{shell}: {out}");
        for c in COMMANDS {
            assert!(
                out.split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
                    .any(|w| w == c),
                "{shell} completions do not name {c}"
            );
        }
    }
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &["--help"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "Coming from fio (its options and what they are here): docs/spec.md#coming-from-fio"
        ),
        "{out}"
    );
    // Trial 24 F8: the help said a list too replaced KEY in every phase that sets it (a list on
    // specs/snia/latency.toml leaves the precondition's 128 KiB alone); a run's and the plan's say the same.
    let set = "Replace KEY in [defaults] and every phase that sets it (e.g. --set duration=10s for a short trial of a long spec), or in one phase (--set phase.NAME.KEY=VALUE; phase.NAME.name=NEW renames it), or a sweep's values (--set sweep.NAME=V1,V2); a TOML list (--set 'KEY=[V1,V2]') replaces only the sweep and matrix lists of KEY (without one, each phase that sets KEY becomes a matrix); repeatable";
    for args in [&["--help"][..], &["plan", "--help"]] {
        let (code, out, err) = code_out_err(&wkrun(tmp.path(), args));
        assert_eq!(code, 0, "{err}");
        // On the option's line or the next, as clap lays out the command's options.
        let after = out.split_once("\n      --set <KEY=VALUE>").map(|(_, a)| a);
        let text = after.and_then(|a| a.trim_start().lines().next());
        assert_eq!(text, Some(set), "{args:?}: {out}");
    }
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &["man"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(".ie \\n(.g .ds Aq"), "{out}");
    assert!(out.contains(".TH wkrun 1"), "{out}");
    let commands: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("wkrun\\-"))
        .map(|l| l.split('(').next().unwrap_or(""))
        .collect();
    assert_eq!(commands, COMMANDS, "{out}");
    // Issue 24 item 9: the synopsis names the arguments, and the sections a man page reader expects follow.
    assert!(
        out.contains(".SH SYNOPSIS\n.nf\nwkrun SPEC [\\-\\-target PATH]..."),
        "{out}"
    );
    for section in [
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH FILES",
        ".SH \"SEE ALSO\"",
    ] {
        assert_eq!(out.matches(section).count(), 1, "{section} in {out}");
    }
    assert!(
        out.contains("\\fB128+N\\fR\nInterrupted by signal N"),
        "{out}"
    );
    // Exit 3 (results that break the schema), as README's table has it.
    assert!(
        out.contains("\\fB3\\fR\nThe run (or merge) went well"),
        "{out}"
    );
    // With --dir: the same page and one per command, each naming its command.
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &["man", "--dir", "man1"]));
    assert_eq!((code, out.as_str()), (0, "man pages: man1\n"), "{err}");
    let mut files = dir_listing(&tmp.path().join("man1"));
    files.sort();
    let mut expected: Vec<String> = COMMANDS.iter().map(|c| format!("wkrun-{c}.1")).collect();
    expected.push("wkrun.1".into());
    // `wkrun library`'s own commands have a page each.
    expected.extend(["add", "list", "rm"].map(|c| format!("wkrun-library-{c}.1")));
    // So have `wkrun sim`'s.
    expected.extend(["fit", "predict"].map(|c| format!("wkrun-sim-{c}.1")));
    expected.sort();
    assert_eq!(files, expected);
    let top = std::fs::read_to_string(tmp.path().join("man1/wkrun.1")).expect("page");
    assert!(
        top.contains(".SH SYNOPSIS\n.nf\nwkrun SPEC") && top.contains(".SH EXAMPLES"),
        "wkrun.1 has the synopsis and sections `wkrun man` prints: {top}"
    );
    for c in COMMANDS {
        let page =
            std::fs::read_to_string(tmp.path().join(format!("man1/wkrun-{c}.1"))).expect("page");
        assert!(page.contains(&format!(".TH wkrun-{c} 1")), "{c}: {page}");
    }
    // A command's synopsis names values and repetition as its --help does (it read `[--format] ... <RESULTS>`).
    let page = std::fs::read_to_string(tmp.path().join("man1/wkrun-compare.1")).expect("page");
    let synopsis: Vec<&str> = page
        .lines()
        .skip_while(|l| *l != ".SH SYNOPSIS")
        .take(4)
        .collect();
    assert_eq!(
        synopsis,
        [
            ".SH SYNOPSIS",
            ".nf",
            "wkrun compare [\\-\\-format <FORMAT>] [\\-\\-by <NAME>] [\\-\\-against\\-library [<N>]] [\\-\\-library <PATH>] [\\-\\-width <COLS>] <RESULTS>...",
            ".fi"
        ],
        "{page}"
    );
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &["completions", "tcsh"]));
    assert_eq!(code, 2, "{err}");
}

/// The 4 KiB blocks of `data` that are all zeros, as byte ranges merged where adjacent: on a new sparse
/// target written with random data, exactly the blocks no phase wrote.
fn zero_runs(data: &[u8]) -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for (i, block) in data.chunks(4096).enumerate() {
        if block.iter().all(|&b| b == 0) {
            let (a, b) = (i as u64 * 4096, (i as u64 + 1) * 4096);
            match runs.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => runs.push((a, b)),
            }
        }
    }
    runs
}

/// A random-write workload of `size` over a new 4 MiB file, then a random-read workload: the read phase's
/// warnings, and the file.
fn read_after_random_writes(dir: &std::path::Path, size: &str) -> (Vec<String>, Vec<u8>) {
    let body = format!(
        "[[phase]]\nname = \"rw\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
         read_percent = 0\nsize = \"{size}\"\nseed = 7\ndirect = false\n\
         [[phase]]\nname = \"r\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
         read_percent = 100\nsize = \"256KiB\"\n"
    );
    write_file(dir, "s.toml", &spec_text("coverage", &body));
    let o = wkrun(
        dir,
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "4MiB",
            "-o",
            "out",
            "-q",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, results) = strict_results(&dir.join("out"));
    let warnings = device_warnings(phase(&results, 1).get("warnings"));
    (warnings, read(&dir.join("t.img")))
}

#[test]
fn the_unwritten_read_warning_counts_what_random_writes_covered() {
    // 768 random 4 KiB writes over 1024 blocks cover about 1 - e^-0.75 = 53 % of the span: the warning
    // gives the share the file shows unwritten (its all-zero blocks), to the tenth of a percent.
    let tmp = tempdir();
    let (warnings, data) = read_after_random_writes(tmp.path(), "3MiB");
    let runs = zero_runs(&data);
    let missing: u64 = runs.iter().map(|(a, b)| b - a).sum();
    assert!(
        (0.40..0.55).contains(&(missing as f64 / (4u64 << 20) as f64)),
        "{missing}"
    );
    assert_eq!(
        warnings,
        vec![format!(
            "never-written reads: {:.1} % of the span holds no written data: add a fill phase before this one, \
             or reads there may not reach the device (read span [0, 4194304), first gap [{}, {}))",
            missing as f64 * 100.0 / (4u64 << 20) as f64,
            runs[0].0,
            runs[0].1
        )]
    );
    // 16384 writes cover every block: no warning.
    let tmp = tempdir();
    let (warnings, data) = read_after_random_writes(tmp.path(), "64MiB");
    assert_eq!(zero_runs(&data), vec![]);
    assert_eq!(warnings, Vec::<String>::new());
}

/// `--from r` takes the earlier phases as done: what their plans write counts as written, so a read after a
/// skipped fill draws no unwritten-space warning (it did, naming 100 % of the span; found by a newcomer),
/// and a read after a skipped erase of a written span does.
#[test]
fn phases_taken_as_done_count_as_written() {
    let tmp = tempdir();
    let read = "[[phase]]\nname = \"r\"\nkind = \"workload\"\npattern = \"random\"\n\
                block_size = \"4KiB\"\nread_percent = 100\nsize = \"256KiB\"\n";
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n";
    let erase = "[[phase]]\nname = \"e\"\nkind = \"erase\"\nmethod = \"punch-hole\"\n";
    let run = |name: &str, body: String| {
        write_file(tmp.path(), "s.toml", &spec_text(name, &body));
        let out = format!("out-{name}");
        let args = [
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "4MiB",
            "--from",
            "r",
            "-o",
            &out,
            "-q",
        ];
        let (code, _, err) = code_out_err(&wkrun(tmp.path(), &args));
        assert_eq!(code, 0, "{err}");
        let (_, r) = strict_results(&tmp.path().join(&out));
        device_warnings(phase(&r, 0).get("warnings"))
    };
    assert_eq!(run("filled", format!("{fill}{read}")), Vec::<String>::new());
    assert_eq!(
        run("erased", format!("{fill}{erase}{read}")),
        [
            "never-written reads: 100.0 % of the span holds no written data: add a fill phase before this one, or reads there may not reach the device (read span [0, 4194304), first gap [0, 4194304))"
        ]
    );
}

#[test]
fn the_target_size_note_only_for_the_command_line_option() {
    let tmp = tempdir();
    let body = "[target]\npath = \"t.img\"\nsize = \"1MiB\"\n\
                [[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"64KiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("size-note", body));
    // The first run creates the file; a rerun reuses it: neither names the size.
    for out in ["运行a", "运行b"] {
        let (code, _, err) = code_out_err(&wkrun(tmp.path(), &["s.toml", "-o", out]));
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("size"), "{err}");
    }
    // --target-size on an existing file: one note.
    let (code, _, err) = code_out_err(&wkrun(
        tmp.path(),
        &["s.toml", "-o", "c", "--target-size", "2MiB"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines().next(),
        Some(
            "note: t.img exists: the target size setting is ignored (it applies only to a file wkrun creates)"
        )
    );
    assert_eq!(err.matches("size setting").count(), 1, "{err}");
    // A simulated drive named on the command line: the spec's file size is not its business; --target-size is.
    let (code, _, err) = code_out_err(&wkrun(
        tmp.path(),
        &["plan", "s.toml", "--target", "sim:capacity=1GiB"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("size setting"), "{err}");
    let (code, _, err) = code_out_err(&wkrun(
        tmp.path(),
        &[
            "plan",
            "s.toml",
            "--target",
            "sim:capacity=1GiB",
            "--target-size",
            "1GiB",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "note: a simulated target: the target size setting is ignored (set sim capacity)"
        ),
        "{err}"
    );
}

#[test]
fn every_results_file_a_test_run_writes_is_checked_against_the_committed_schema() {
    // wkrun writes results.json without validating it (a schema bug must not lose a long run's results);
    // common::wkrun checks each one a command writes, common::strict_results each one a test reads.
    let tmp = tempdir();
    let before = RESULTS_CHECKED.load(std::sync::atomic::Ordering::Relaxed);
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"64KiB\"\n";
    let out = run_ok(tmp.path(), "checked", body, &tmp.path().join("t.img"));
    assert!(out.join("results.json").is_file());
    assert!(RESULTS_CHECKED.load(std::sync::atomic::Ordering::Relaxed) > before);
}

#[test]
fn compare_aligns_wide_characters_by_terminal_cells() {
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"w-4k\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"64KiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("wide", body));
    for out in ["运行a", "运行b"] {
        let (code, _, err) = code_out_err(&wkrun(
            tmp.path(),
            &[
                "s.toml",
                "--target",
                "t.img",
                "--target-size",
                "1MiB",
                "-o",
                out,
                "-q",
            ],
        ));
        assert_eq!(code, 0, "{err}");
    }
    let (code, table, err) = code_out_err(&wkrun(tmp.path(), &["compare", "运行a", "运行b"]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = table.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines[1].contains("运行b"), "{table}");
    // Above the table, the note that a file's numbers are not a drive's (one line, not aligned): read
    // before the composite under the table (trial 13 F13).
    let (note, lines) = lines.split_first().unwrap();
    assert_eq!(
        table.lines().nth(1),
        Some(""),
        "a blank line under the note: {table}"
    );
    assert_eq!(
        *note,
        "note: t.img (运行a), t.img (运行b): on a file (t.img): the numbers describe the file and the file \
         system and page cache under it, not an SSD, so the changes and the composite may be noise, \
         differing from run to run"
    );
    let cells = |l: &str| unicode_width::UnicodeWidthStr::width(l);
    assert!(lines.iter().all(|l| cells(l) == cells(lines[0])), "{table}");
}

/// Output into a pipe whose reader is gone (`wkrun schema result | head -c 10`): exit 0 and no panic, for
/// every command that prints to stdout. The read end is closed before wkrun starts, so each write fails
/// with EPIPE (Rust ignores SIGPIPE).
#[test]
fn printing_into_a_closed_pipe_is_no_panic() {
    let tmp = tempdir();
    write_file(
        tmp.path(),
        "s.toml",
        &spec_text(
            "p",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n",
        ),
    );
    for args in [
        &["schema", "result"][..],
        &["man"],
        &["completions", "bash"],
        &["validate", "s.toml"],
        &["plan", "s.toml", "--target", "sim:capacity=1GiB"],
    ] {
        let (r, w) = std::io::pipe().expect("pipe");
        drop(r);
        let o = std::process::Command::new(wkrun_bin())
            .args(args)
            .current_dir(tmp.path())
            .stdout(w)
            .output()
            .expect("wkrun runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Output to a full device (`> /dev/full`): exit 1 naming standard output, no panic; `--help` and
/// `--version` too (they exited 0, attack 40 F12).
#[test]
fn printing_to_a_full_device_fails_cleanly() {
    let tmp = tempdir();
    for args in [
        &["schema", "spec"][..],
        &["completions", "bash"],
        &["man"],
        &["--help"],
        &["--version"],
        &["report", "--help"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = std::process::Command::new(wkrun_bin())
            .args(args)
            .current_dir(tmp.path())
            .stdout(full)
            .output()
            .expect("wkrun runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err, "error: cannot write to standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

/// `man --dir`: a link planted in the folder is replaced, not written through; a folder that is a link is
/// refused (exit 2), as `-o` and `report -o` are.
#[test]
fn man_pages_never_write_through_links() {
    let tmp = tempdir();
    let d = tmp.path();
    std::fs::write(d.join("victim"), "VICTIM").unwrap();
    std::fs::create_dir(d.join("m")).unwrap();
    std::os::unix::fs::symlink("../victim", d.join("m/wkrun-run.1")).unwrap();
    let (code, out, err) = code_out_err(&wkrun(d, &["man", "--dir", "m"]));
    assert_eq!((code, out.as_str()), (0, "man pages: m\n"), "{err}");
    assert_eq!(std::fs::read_to_string(d.join("victim")).unwrap(), "VICTIM");
    let page = std::fs::symlink_metadata(d.join("m/wkrun-run.1")).unwrap();
    assert!(page.is_file(), "the link was replaced by the page");
    std::os::unix::fs::symlink("m", d.join("link")).unwrap();
    let (code, _, err) = code_out_err(&wkrun(d, &["man", "--dir", "link"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("link"), "{err}");
}

/// Control characters from the command line or a results file never reach the terminal raw: errors and
/// `compare` show them as `\u{1b}` (an ESC in a crafted phase name cleared the screen; attacker).
#[test]
fn control_characters_are_shown_escaped() {
    let tmp = tempdir();
    let d = tmp.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\n";
    write_file(d, "s.toml", &spec_text("esc", body));
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &["plan", "s.toml", "--set", "\u{1b}[2Jduration=1s"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(
        !err.contains('\u{1b}') && err.contains("\\u{1b}[2J"),
        "{err:?}"
    );
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &["s.toml", "--target", "sim:capacity=1GiB", "-o", "r", "-q"],
    ));
    assert_eq!(code, 0, "{err}");
    let f = d.join("r/results.json");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("\"name\": \"w\"", "\"name\": \"w\\u001b]0;owned\\u0007\"");
    std::fs::write(&f, text).unwrap();
    // No run has such a name: refused (attack 24c, finding 10), the name shown escaped.
    let (code, out, err) = code_out_err(&wkrun(d, &["compare", "r"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: r/results.json holds figures that cannot be true (1 place):\n  phases[0].name: \"w\\u{1b}]0;owned\\u{7}\" is not a name a spec can have: use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the phase's CSV file)\n"
        )
    );
}

/// Control characters in a target path or a phase name reach neither a terminal nor an SVG (issue 24 item
/// 20, attacker): `wkrun plan`, a run's lines, `wkrun merge` show them escaped (`\u{1b}`), and every plot
/// of `wkrun report` stays well-formed XML, with them left out.
#[test]
fn escape_sequences_reach_no_terminal_and_no_svg() {
    let tmp = tempdir();
    let d = tmp.path();
    let body =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 50\nsize = \"64KiB\"\n";
    write_file(d, "s.toml", &spec_text("esc", body));
    let target = "t\u{1b}]0;owned\u{7}.img";
    let shown = "t\\u{1b}]0;owned\\u{7}.img";
    let raw = |t: &str| t.contains(['\u{1b}', '\u{7}']);
    let (code, out, err) = code_out_err(&wkrun(
        d,
        &[
            "plan",
            "s.toml",
            "--target",
            target,
            "--target-size",
            "1MiB",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(!raw(&out) && !raw(&err), "{out:?}{err:?}");
    assert!(
        out.contains(&format!("\ntarget {shown} (file, will be created")),
        "{out}"
    );
    assert!(
        out.contains(&format!("DESTROYS the data of {shown} ")),
        "{out}"
    );
    let run = [
        "s.toml",
        "--target",
        target,
        "--target-size",
        "1MiB",
        "-o",
        "r",
    ];
    let (code, out, err) = code_out_err(&wkrun(d, &run));
    assert_eq!(code, 0, "{err}");
    assert!(!raw(&out) && !raw(&err), "{out:?}{err:?}");
    assert_eq!(
        err.lines().next(),
        Some(format!("created {shown} (1048576 B, preallocated)").as_str())
    );
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "r", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let mut svgs = 0;
    for e in std::fs::read_dir(d.join("rep")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!raw(&text), "{}", p.display());
        if p.extension().is_some_and(|x| x == "svg") {
            svgs += 1;
            roxmltree::Document::parse(&text)
                .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", p.display()));
        }
    }
    assert_eq!(
        svgs, 10,
        "8 charts and the percentiles over time of reads and writes"
    );
    // A phase name with an escape sequence, in a results file: no run has such a name, and `merge` refuses
    // it (attack 24c, finding 10), the name shown escaped; nothing written.
    let f = d.join("r/results.json");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("\"name\": \"w\"", "\"name\": \"w\\u001b]0;owned\\u0007\"");
    std::fs::write(&f, text).unwrap();
    let (code, out, err) = code_out_err(&wkrun(d, &["merge", "r", "-o", "m"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: r/results.json holds figures that cannot be true (1 place):\n  phases[0].name: \"w\\u{1b}]0;owned\\u{7}\" is not a name a spec can have: use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the phase's CSV file)\n"
        )
    );
    assert!(!d.join("m").exists());
}

#[test]
fn the_text_plan_keeps_its_columns_under_long_names_ranges_and_bounds() {
    // A 40-character name and a 10 GiB simulated drive (long byte ranges): every row's cells start where
    // the header's do, and the lines under a row start under the kind column.
    let tmp = tempdir();
    let long = "precondition-with-a-very-long-phase-name";
    let short = "timed";
    let body = format!(
        "[[phase]]\nname = \"{long}\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"64KiB\"\n\
         [[phase]]\nname = \"{short}\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"2s\"\n"
    );
    write_file(tmp.path(), "s.toml", &spec_text("cols", &body));
    let (code, out, err) = code_out_err(&wkrun(
        tmp.path(),
        &["plan", "s.toml", "--target", "sim:capacity=10GiB"],
    ));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.trim_start().starts_with("# "))
        .expect("header row");
    let cell = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    // The terminal cell where `word` starts in `line`.
    let col = |line: &str, word: &str| cell(&line[..line.find(word).expect(word)]);
    let row0 = lines[head + 1];
    let row1 = lines
        .iter()
        .find(|l| l.contains(" timed "))
        .expect("timed row");
    for (header_word, row, cell_word) in [
        ("kind", row0, "workload"),
        ("kind", *row1, "workload"),
        ("byte range", row0, "[0, 10737418240)"),
        ("byte range", *row1, "[0, 10737418240)"),
        ("bound", row0, "16 I/Os"),
    ] {
        assert_eq!(
            col(lines[head], header_word),
            col(row, cell_word),
            "{header_word} / {cell_word}:\n{out}"
        );
    }
    // Numbers are right-aligned: every row ends where the header does.
    assert_eq!(cell(row0), cell(lines[head]), "{out}");
    let note = lines
        .iter()
        .find(|l| l.trim_start().starts_with("1 interval") || l.contains(" intervals of "))
        .expect("interval note");
    assert_eq!(
        cell(&note[..note.len() - note.trim_start().len()]),
        col(lines[head], "kind"),
        "{out}"
    );
}

/// `s.toml` on a 1 MiB file target `t.img` (created only by a run).
const ON_1MIB: [&str; 5] = ["s.toml", "--target", "t.img", "--target-size", "1MiB"];

/// The `not run: ` marks of a text plan, in order.
fn not_run_marks(plan: &str) -> Vec<&str> {
    plan.lines()
        .filter_map(|l| l.trim_start().strip_prefix("not run: "))
        .collect()
}

#[test]
fn plan_from_shows_the_run_from_a_phase() {
    // `wkrun plan --from` is the plan of `wkrun run --from`: the phases before it are marked taken as
    // done, and a run that only reads from there destroys nothing (no DESTROYS line).
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n\
                [[phase]]\nname = \"check\"\nkind = \"verify\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("from", body));
    patterned_file(&tmp.path().join("t.img"), 1 << 20);
    let plan = |extra: &[&str]| {
        let mut args = vec!["plan", "s.toml", "--target", "t.img"];
        args.extend_from_slice(extra);
        code_out_err(&wkrun(tmp.path(), &args))
    };
    let (code, all, err) = plan(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(all.contains("DESTROYS the data of t.img"), "{all}");
    assert!(!all.contains("not run"), "{all}");
    for from in ["check", "1"] {
        let (code, out, err) = plan(&["--from", from]);
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains("DESTROYS"), "{out}");
        let marks = not_run_marks(&out);
        assert_eq!(
            marks,
            ["taken as done (--from check starts at phase 1)"],
            "{out}"
        );
        // The mark sits right under phase 0's row.
        let lines: Vec<&str> = out.lines().collect();
        let row0 = lines
            .iter()
            .position(|l| l.trim_start().starts_with("0  fill "))
            .expect("row 0");
        assert!(
            lines[row0 + 1].trim_start().starts_with("not run: "),
            "{out}"
        );
    }
    let (code, json, err) = plan(&["--from", "check", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("plan JSON");
    assert_eq!(v["start_at"], 1);
    let (_, json, _) = plan(&["--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("plan JSON");
    assert!(v.get("start_at").is_none(), "{json}");
    let (code, out, err) = plan(&["--from", "nope"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains(
            "--from \"nope\": the plan has no phase of that name or index (0 to 1); phases: fill, check"
        ),
        "{err}"
    );
    // Nothing was written: the target still holds its pattern.
    assert_patterned(&read(&tmp.path().join("t.img")), 0, "t.img");
    // A simulated drive starts every run factory-new: the phases before --from are not there, and a run of
    // reads only says it reads.
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n\
                [[phase]]\nname = \"reads\"\nkind = \"workload\"\nread_percent = 100\nsize = \"64KiB\"\n";
    write_file(tmp.path(), "sim.toml", &spec_text("from-sim", body));
    let sim = ["plan", "sim.toml", "--target", "sim:capacity=1GiB"];
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &sim));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "\nwrites only to the simulated drive: nothing on this host is opened or written\n"
        ),
        "{out}"
    );
    let (code, out, err) = code_out_err(&wkrun(
        tmp.path(),
        &[&sim[..], &["--from", "reads"]].concat(),
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "\nonly reads the simulated drive: nothing on this host is opened or written\n"
        ),
        "{out}"
    );
    let marks = not_run_marks(&out);
    assert_eq!(
        marks,
        [
            "the simulated drive starts factory-new, not as this phase left it (--from reads starts at phase 1)"
        ],
        "{out}"
    );
}

#[test]
fn the_text_plan_shows_a_block_size_mix_and_counts_one_io() {
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"m\"\nkind = \"workload\"\nread_percent = 0\n\
                block_size = { \"4KiB\" = 3, \"64KiB\" = 1 }\nduration = \"2s\"\nworkers = 2\nqueue_depth = 4\n\
                [[phase]]\nname = \"one\"\nkind = \"workload\"\nread_percent = 0\nblock_size = \"4KiB\"\nsize = \"4KiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("mix", body));
    let args = [&["plan"][..], &ON_1MIB].concat();
    let (code, out, err) = code_out_err(&wkrun(tmp.path(), &args));
    assert_eq!(code, 0, "{err}");
    let cells = |name: &str| -> Vec<String> {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("row {name}:\n{out}"));
        row.split_whitespace().map(str::to_string).collect()
    };
    // # name kind [start, end) block in-flight read% bound... expected
    assert_eq!(cells("m")[5], "4KiB-64KiB", "{out}");
    assert_eq!(cells("one")[5], "4KiB", "{out}");
    // The I/Os in flight: 2 workers × QD 4 are 8 (issue 24, round 2); one worker at QD 1, 1.
    assert_eq!(cells("m")[6..8], ["8", "(2x4)"], "{out}");
    assert_eq!(cells("one")[6], "1", "{out}");
    assert_eq!(cells("one")[8..], ["1", "I/O", "4096"], "{out}");
    let notes: Vec<&str> = out.lines().map(str::trim).collect();
    assert!(
        notes.contains(&"block-size mix (weights): 4KiB 3, 64KiB 1"),
        "{out}"
    );
    assert!(
        !tmp.path().join("t.img").exists(),
        "plan created the target"
    );
}

#[test]
fn an_unknown_from_lists_at_most_twenty_phases() {
    let tmp = tempdir();
    let body: String = (0..25)
        .map(|i| {
            format!("[[phase]]\nname = \"p{i}\"\nkind = \"workload\"\nread_percent = 100\nsize = \"4KiB\"\n")
        })
        .collect();
    write_file(tmp.path(), "s.toml", &spec_text("many", &body));
    let names: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
    let want = format!(
        "error: --from \"nope\": the plan has no phase of that name or index (0 to 24); phases: {} and 5 more (wkrun plan lists them)\n",
        names.join(", ")
    );
    for cmd in [&["plan"][..], &["run"][..]] {
        let args = [cmd, &ON_1MIB, &["--from", "nope"]].concat();
        let (code, out, err) = code_out_err(&wkrun(tmp.path(), &args));
        assert_eq!((code, out.as_str(), err.as_str()), (2, "", want.as_str()));
    }
    assert!(!tmp.path().join("t.img").exists());
    // The run says which phases it takes as done, in the singular for one.
    for (from, said) in [
        (
            "p23",
            "starting at phase 23: phases 0 to 22 are taken as done\n",
        ),
        ("p1", "starting at phase 1: phase 0 is taken as done\n"),
    ] {
        let out = format!("out-{from}");
        let args = [&ON_1MIB[..], &["--from", from, "-o", &out]].concat();
        let (code, _, err) = code_out_err(&wkrun(tmp.path(), &args));
        assert_eq!(code, 0, "{err}");
        assert!(err.contains(said), "{err}");
    }
}

#[test]
fn from_the_name_of_an_expanded_phase_starts_at_its_first_member() {
    // `--from lat` on a spec whose `lat` expands into lat[read=100] and lat[read=0]: as `--set phase.lat.`
    // takes the unexpanded name, so does --from, and it starts at the first member.
    let tmp = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\n\
                [[phase]]\nname = \"lat\"\nkind = \"workload\"\nread_percent = [100, 0]\nsize = \"64KiB\"\n";
    write_file(tmp.path(), "s.toml", &spec_text("expanded", body));
    let args = [&["plan"][..], &ON_1MIB, &["--json"]].concat();
    for (from, at) in [("lat", 1), ("lat[read=0]", 2), ("w", 0)] {
        let (code, json, err) =
            code_out_err(&wkrun(tmp.path(), &[&args[..], &["--from", from]].concat()));
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&json).expect("plan JSON");
        assert_eq!(
            v.get("start_at").and_then(|s| s.as_u64()).unwrap_or(0),
            at,
            "--from {from}"
        );
    }
    // The run starts there too: the results hold the two members only.
    let run = [&ON_1MIB[..], &["--from", "lat", "-o", "out", "-q"]].concat();
    let (code, _, err) = code_out_err(&wkrun(tmp.path(), &run));
    assert_eq!(code, 0, "{err}");
    let r = results(&tmp.path().join("out"));
    let names: Vec<&str> = r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["lat[read=100]", "lat[read=0]"]);
}

/// Issue 24 item 22: the text plan shows a workload's ramp and rate cap, also when `--set phase.NAME.`
/// set them.
#[test]
fn the_text_plan_shows_the_ramp_and_the_rate_cap() {
    let d = tempdir();
    let w = |name: &str| {
        format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 50\nduration = \"1s\"\n"
        )
    };
    write_file(d.path(), "s.toml", &spec_text("pace", &(w("a") + &w("b"))));
    let args = [
        "plan",
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "16MiB",
        "--set",
        "phase.a.ramp=2s",
        "--set",
        "phase.b.rate_iops={ read = 300, write = 100 }",
    ];
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    let notes: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("ramp ") || l.starts_with("rate cap"))
        .collect();
    assert_eq!(
        notes,
        [
            "ramp 2s of the same workload first, unmeasured",
            "rate cap: at most 300 IOPS reads, 100 IOPS writes",
        ]
    );
}

/// The attack of issue 24's closing session: a line break in a target path or in a phase name of a results
/// file printed a line of its own (`plan` and `compare` could be made to show a forged line), and
/// bidirectional overrides passed raw; both are shown escaped.
#[test]
fn line_breaks_and_bidi_overrides_in_names_are_shown_escaped() {
    let d = tempdir();
    let body =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"200ms\"\n";
    write_file(d.path(), "s.toml", &spec_text("nl", body));
    let t = "nl\ndone: forged\u{202e}.img";
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["plan", "s.toml", "--target", t, "--target-size", "1MiB"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("target nl\\ndone: forged\\u{202e}.img (file"),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.starts_with("done: forged")), "{out}");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            "r",
            "-q",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let path = d.path().join("r/results.json");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"name\": \"w\"", "\"name\": \"w\\nforged\"");
    std::fs::write(&path, text).unwrap();
    // No run has such a name: refused (attack 24c, finding 10), the name shown escaped.
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "r"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: r/results.json holds figures that cannot be true (1 place):\n  phases[0].name: \"w\\nforged\" is not a name a spec can have: use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names the phase's CSV file)\n"
        )
    );
}

/// The attack of issue 24's closing session: `wkrun SPEC > /dev/full` exited 0 with its summary lost; the
/// command fails with the reason. Attack 40 F12: the run then ran every phase and ended "completed"; it
/// stops at the next record of its results after the failed write (before its first phase: the 30 s phase
/// does not run), its results "failed" with the reason.
#[test]
fn a_summary_that_cannot_be_written_fails_the_command() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return skip(
            "cli::a_summary_that_cannot_be_written_fails_the_command",
            "no /dev/full",
        );
    };
    let d = tempdir();
    let body =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"30s\"\n";
    write_file(d.path(), "s.toml", &spec_text("full", body));
    let t0 = std::time::Instant::now();
    let o = std::process::Command::new(wkrun_bin())
        .args([
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            "r",
            "-q",
        ])
        .current_dir(d.path())
        .stdout(full)
        .output()
        .expect("wkrun");
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 1, "{err}");
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(20),
        "the 30 s phase ran"
    );
    let why = "cannot write standard output: No space left on device (os error 28)";
    assert_eq!(err, format!("error: {why}\n"));
    let (_, r) = strict_results(&d.path().join("r"));
    assert_eq!((&r["status"], &r["error"]), (&"failed".into(), &why.into()));
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(0), "a phase ran");
}

/// README's "Your first spec" (added by the newcomer trial: the README showed no spec to start from): its
/// TOML validates, and runs as the text around it says: a fill of the whole target in 128 KiB writes at
/// QD1, then 4 KiB random writes at QD32 with io_uring, no reads, one series row per second.
#[test]
fn the_readme_first_spec_validates_and_runs_as_described() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README.md");
    let section = readme
        .split("## Your first spec\n")
        .nth(1)
        .expect("README has a \"Your first spec\" section");
    let spec = section
        .split("```toml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section's TOML block");
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(d.join("fr.toml"), spec).unwrap();
    let (code, out, err) = code_out_err(&wkrun(d, &["validate", "fr.toml"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "fr.toml: ok (2 phases)\n", "")
    );
    let args = [
        "fr.toml",
        "--target",
        "t.img",
        "--target-size",
        "8MiB",
        "--set",
        "duration=1s",
        "-o",
        "out",
        "-q",
    ];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    let r = results(&d.join("out"));
    let (fill, rw) = (&r["phases"][0], &r["phases"][1]);
    assert_eq!(
        (fill["name"].as_str(), fill["kind"].as_str()),
        (Some("fill"), Some("fill"))
    );
    assert_eq!(fill["write"]["ops"], 64, "8 MiB in 128 KiB writes");
    assert_eq!(fill["params"]["queue_depth"], 1);
    assert_eq!(rw["name"], "randwrite");
    assert_eq!(rw["params"]["engine"], "io_uring");
    assert_eq!(rw["params"]["queue_depth"], 32);
    assert_eq!(rw["params"]["block_size_bytes"], 4096);
    assert_eq!(rw["params"]["pattern"], "random");
    // fio's norandommap, as the text says (trial 24c F8).
    assert_eq!(rw["params"]["coverage"], "uniform");
    assert_eq!(rw["read"]["ops"], 0);
    assert!(rw["write"]["ops"].as_u64().is_some_and(|n| n > 0), "{rw}");
    // One whole second, then at most a partial row: the I/Os in flight at the bound completing.
    let rows = csv_rows(&d.join("out/01-randwrite.csv"));
    let whole: Vec<&str> = rows
        .iter()
        .filter(|r| r["partial"] == "0")
        .map(|r| r["t_s"].as_str())
        .collect();
    assert_eq!(whole, ["1.0"]);
    assert!(
        rows.len() <= 2 && rows.iter().all(|r| r["read_ops"] == "0"),
        "{rows:?}"
    );
}

/// Issue 24: a value echoed in a message is cut to 80 characters and its length in bytes (`text::echo`,
/// `text::clip`): a 1 MiB phase name in a spec, a `--set` value as long as one argument can be (Linux takes
/// at most 128 KiB in one, so a 1 MiB `--set` cannot be given), an unknown key of that length and a
/// 100,000-character path; each exit 2, stderr short, nothing written.
#[test]
fn long_inputs_are_echoed_cut_with_their_length() {
    let d = tempdir();
    let a80 = "a".repeat(80);
    let mib = "a".repeat(1 << 20);
    write_file(
        d.path(),
        "big.toml",
        &spec_text(
            "s",
            &format!(
                "[[phase]]\nname = \"{mib}\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\nsize = \"1MiB\"\n"
            ),
        ),
    );
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["plan", "big.toml", "--target", "sim:capacity=1GiB"],
    ));
    assert_eq!(code, 2, "{}", &err[..err.len().min(2000)]);
    assert!(err.len() < 4096, "{} B of stderr", err.len());
    assert!(
        err.contains(&format!("\"{a80}… (1048576 bytes)\"")),
        "{err}"
    );
    write_file(
        d.path(),
        "s.toml",
        &spec_text(
            "s",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\nsize = \"1MiB\"\n",
        ),
    );
    // The longest argument Linux passes is 131,072 bytes with its NUL.
    let long = "a".repeat(131_000);
    let cases = [
        (
            format!("name={long}"),
            format!(
                "error: s.toml: --set name={}… (131005 bytes): `name` is each phase's own name, and --set cannot give every phase one; rename one phase with --set phase.NAME.name=NEW (the spec's [spec] name, which names the results folder, is not changed by --set: choose the folder with -o)\n",
                "a".repeat(75)
            ),
        ),
        (
            format!("block_size={long}"),
            format!(
                "error: s.toml: --set block_size={}… (131011 bytes): size \"{a80}… (131000 bytes)\" has no number; write e.g. \"4KiB\" or \"1GiB\"\n",
                "a".repeat(69)
            ),
        ),
        (
            format!("{long}=1"),
            format!(
                "error: s.toml: --set {a80}… (131002 bytes): `{a80}… (131000 bytes)` is not a key; keys: {}\n",
                "KEYS"
            ),
        ),
    ];
    for (arg, want) in &cases {
        let (code, out, err) = code_out_err(&wkrun(
            d.path(),
            &[
                "plan",
                "s.toml",
                "--target",
                "sim:capacity=1GiB",
                "--set",
                arg,
            ],
        ));
        assert_eq!(
            (code, out.as_str()),
            (2, ""),
            "{}",
            &err[..err.len().min(2000)]
        );
        match want.split_once("KEYS") {
            Some((head, _)) => assert!(err.starts_with(head) && err.len() < 4096, "{err}"),
            None => assert_eq!(&err, want),
        }
    }
    // A path no message cut where it was made: the last pass over every error message cuts it at PATH_MAX (4096).
    let path = format!("/tmp/{}", "b".repeat(100_000));
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["plan", "s.toml", "--target", &path]));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: cannot stat /tmp/{}… (100005 bytes): File name too long (os error 36)\n",
            "b".repeat(4091)
        )
    );
    let mut left: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["big.toml", "s.toml"]);
}

/// `wkrun merge A B -o M > /dev/full` and `wkrun report M -o R > /dev/full` (attack 13, finding 9): the
/// command fails (exit 1, naming standard output) after its folder is written in full. Unlike a run, which
/// stops at the failed write and whose results then say "failed" (a_summary_that_cannot_be_written_fails_
/// the_command), the merged folder stays as written: its `status` is the merged runs' (their worst), which
/// the console does not change, and it is whole and valid; the summary line is what `wkrun validate M`
/// says again.
#[test]
fn a_merge_or_report_whose_summary_cannot_be_written_fails_and_keeps_its_folder() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return skip(
            "cli::a_merge_or_report_whose_summary_cannot_be_written_fails_and_keeps_its_folder",
            "no /dev/full",
        );
    };
    let d = tempdir();
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &spec_text("m", body));
    for (rank, t, o) in [("0", "a.img", "a"), ("1", "b.img", "b")] {
        let args = [
            "s.toml",
            "--target",
            t,
            "--target-size",
            "1MiB",
            "--rank",
            rank,
            "-q",
            "-o",
            o,
        ];
        assert_eq!(code_out_err(&wkrun(d.path(), &args)).0, 0);
    }
    let to_full = |args: &[&str], out: &std::fs::File| {
        let o = std::process::Command::new(wkrun_bin())
            .args(args)
            .current_dir(d.path())
            .stdout(out.try_clone().expect("dup"))
            .output()
            .expect("wkrun");
        code_out_err(&o)
    };
    let why = "error: cannot write to standard output: No space left on device (os error 28)\n";
    let (code, _, err) = to_full(&["merge", "a", "b", "-o", "m"], &full);
    assert_eq!((code, err.as_str()), (1, why));
    let (_, r) = strict_results(&d.path().join("m"));
    assert_eq!(
        (&r["status"], &r["error"]),
        (&"completed".into(), &serde_json::Value::Null)
    );
    assert_eq!(r["cluster"]["hosts"].as_array().map(Vec::len), Some(2));
    let (c, out, e) = code_out_err(&wkrun(d.path(), &["validate", "m"]));
    assert_eq!(
        (c, out.as_str(), e.as_str()),
        (
            0,
            "m: ok (results, 1 phase, 1 series CSV, 2 hosts' results)\n",
            ""
        )
    );
    let (code, _, err) = to_full(&["report", "m", "-o", "rep"], &full);
    assert_eq!((code, err.as_str()), (1, why));
    assert!(d.path().join("rep/index.html").is_file());
}
