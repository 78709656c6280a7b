//! The manual page's own sections: `clap_mangen` renders NAME, DESCRIPTION, OPTIONS and COMMANDS from the
//! command-line definition; this adds what a man page reader expects and clap cannot know: a SYNOPSIS with
//! the arguments' names (the same text as README.md's "Commands" block, checked by a test), EXAMPLES, EXIT
//! STATUS, FILES and SEE ALSO.

/// The synopsis, one line per form (README.md's "Commands" block is this text).
pub const SYNOPSIS: &str = "\
wkrun SPEC [--target PATH]... [--target-size SIZE] [--set KEY=VALUE]... [-o DIR] [--allow-destroy DEVICE]... [--from PHASE]
           [--label NAME] [--start-at TIME [--phase-grid DURATION]] [--rank N] [-q]
wkrun run SPEC [same options]
wkrun validate FILE...
wkrun plan SPEC [--target PATH]... [--target-size SIZE] [--set KEY=VALUE]... [--allow-destroy DEVICE]... [--from PHASE] [--json] [--rank N]
wkrun schema spec|result
wkrun warnings RESULTS...
wkrun compare RESULTS... [--by SWEEP] [--format table|markdown|csv] [--width COLS] [--against-library [N]] [--library PATH]
wkrun report RESULTS... [-o DIR] [--ymax IOPS] [--window WINDOW] [--png] [--against-library [N]] [--library PATH]
wkrun library add RESULTS... [--label NAME] [--library PATH]
wkrun library list [--spec NAME] [--label TEXT] [--library PATH]
wkrun library rm ID|--label NAME [--library PATH]
wkrun merge RESULTS... -o DIR
wkrun sim fit RESULTS [--phase NAME] [--capacity SIZE]
wkrun sim fit --features FILE [--theory]
wkrun sim predict RESULTS SPEC [-o DIR] [--phase NAME] [--fitted TARGET] [--set KEY=VALUE]... [-q]
wkrun import fio JOB... [-o SPEC] [--lossy]
wkrun import fio [-o SPEC] [--lossy] -- FIO-ARGS...
wkrun export fio SPEC [--target PATH]... [--target-size SIZE] [-o FILE]
wkrun completions bash|zsh|fish|elvish|powershell
wkrun man [--dir DIR]
";

/// EXAMPLES: a command and what it does.
const EXAMPLES: [(&str, &str); 11] = [
    (
        "wkrun specs/anthology.toml",
        "Run the main job on the default target, a 1 GiB file wkrun-target.img in the current folder.",
    ),
    (
        "wkrun validate specs/*.toml",
        "Check specs: syntax, keys, units, rules. No target, no I/O.",
    ),
    (
        "wkrun plan specs/consistency.toml --target /dev/nvme0n1",
        "Show what a run would do on a drive: byte ranges, block sizes, bounds, roundings. Writes nothing.",
    ),
    (
        "wkrun specs/consistency.toml --target /dev/nvme0n1 --allow-destroy /dev/nvme0n1 -o r1",
        "Run a seed methodology on a drive, destroying its data, results in r1/.",
    ),
    (
        "wkrun specs/consistency.toml --target sim:capacity=2GiB,op=7% --set duration=60s",
        "Try it on the simulated SSD, in virtual time, with every workload shortened to 60 s.",
    ),
    (
        "wkrun compare r1 r2",
        "Put two runs side by side, with each figure's change and a composite score.",
    ),
    (
        "wkrun report r1 r2 -o rep",
        "Write rep/index.html and SVG charts of both runs.",
    ),
    (
        "wkrun library add r1 r2 && wkrun library list",
        "Keep runs in the results library (~/.local/share/wkrun/library.sqlite), one line per run listed.",
    ),
    (
        "wkrun compare r3 --against-library 20 && wkrun report r3 --against-library -o rep",
        "Put a new run beside the library's last 20 runs of its spec; rank its headline figures among them.",
    ),
    (
        "wkrun import fio jobs.fio -o jobs.toml",
        "Write a spec running a fio job file's workload; an option with no wkrun meaning is refused naming its line (--lossy drops it with a comment).",
    ),
    (
        "mpirun -n 3 --bind-to none wkrun spec.toml --target /dev/sdb --allow-destroy /dev/sdb -o 'r-{rank}'",
        "Run on three hosts at once, then wkrun merge r-0 r-1 r-2 -o all.",
    ),
];

/// EXIT STATUS: a code and what it means (README.md's table of exit codes has the same codes, checked by a
/// test).
const EXIT_STATUS: [(&str, &str); 5] = [
    ("0", "Done (validate: every spec is valid)."),
    (
        "1",
        "The run failed (an I/O error, an engine that cannot start, results that could not be written), or a resource limit stopped or refused it (memory, address space, threads, locked memory, open files, file size, a full disk), whichever command; results.json says \"failed\" where the output folder can hold one, else nothing is written and the message says so.",
    ),
    (
        "2",
        "Bad input: a bad spec (naming its file, line and key), arguments or input file, or a target the spec cannot run on or may not write (no --allow-destroy, mounted, in use); refused before anything is written.",
    ),
    (
        "3",
        "The run (or merge) went well and its results are written in full, but the results.json it wrote breaks the published results schema: a wkrun bug (please report it), each violation printed with its JSON path and recorded in schema-violations.txt beside the results, which are kept as written.",
    ),
    (
        "128+N",
        "Interrupted by signal N (130 for SIGINT, 143 for SIGTERM); partial results say \"interrupted\".",
    ),
];

/// FILES: a path and what it is.
const FILES: [(&str, &str); 5] = [
    (
        "wkrun-target.img",
        "The default target, a 1 GiB file created in the current folder when a spec names none.",
    ),
    (
        "wkrun-results/SPEC-TIME/",
        "The default results folder: results.json, a series CSV per I/O phase.",
    ),
    (
        "schemas/spec.schema.json, schemas/result.schema.json",
        "The JSON Schemas of specs and results (wkrun schema spec|result prints them).",
    ),
    (
        "~/.local/share/wkrun/library.sqlite",
        "The results library: --library PATH, else $WKRUN_LIBRARY, else $XDG_DATA_HOME/wkrun/library.sqlite, else this (docs/library.md).",
    ),
    (
        "docs/spec.md",
        "The spec language, with \"Coming from fio\": fio options and what they are in wkrun.",
    ),
];

/// SEE ALSO.
const SEE_ALSO: &str = "fio(1), sqlite3(1), docs/spec.md, docs/results.md, docs/report.md, docs/library.md, docs/hosts.md, docs/safety.md";

/// `text` for roff: backslashes and hyphens escaped, a leading dot or quote kept from being a request.
fn roff(text: &str) -> String {
    let t = text.replace('\\', "\\e").replace('-', "\\-");
    match t.starts_with(['.', '\'']) {
        true => format!("\\&{t}"),
        false => t,
    }
}

/// A section of tagged paragraphs: `.TP` with the tag in bold.
fn tagged(out: &mut String, title: &str, items: &[(&str, &str)]) {
    match title.contains(' ') {
        true => out.push_str(&format!(".SH \"{title}\"\n")),
        false => out.push_str(&format!(".SH {title}\n")),
    }
    for (tag, text) in items {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(tag), roff(text)));
    }
}

/// The byte range of the section `title` of `page`: from its `.SH` line to the next section's.
fn section(page: &str, title: &str) -> Option<(usize, usize)> {
    let a = page.find(&format!(".SH {title}\n"))?;
    let b = page[a + 1..]
        .find("\n.SH ")
        .map_or(page.len(), |j| a + 1 + j + 1);
    Some((a, b))
}

/// How clap's usage names the values of argument `a`: `<DIR>`, `<KEY=VALUE>`, `[<N>]` for an optional
/// value, `<RESULTS>...` for several; empty for a flag.
fn values(a: &clap::Arg) -> String {
    let range = a.get_num_args().unwrap_or_default();
    if !a.get_action().takes_values() || range.max_values() == 0 {
        return String::new();
    }
    let names: Vec<String> = match a.get_value_names() {
        Some(v) => v.iter().map(|n| format!("<{n}>")).collect(),
        None => vec![format!("<{}>", a.get_id().as_str().to_uppercase())],
    };
    let mut v = names.join(" ");
    if range.max_values() > names.len() {
        v.push_str("...");
    }
    match range.min_values() {
        0 => format!("[{v}]"),
        _ => v,
    }
}

/// Whether argument `a` may be given more than once (`--set KEY=VALUE` twice).
fn repeats(a: &clap::Arg) -> bool {
    matches!(
        a.get_action(),
        clap::ArgAction::Append | clap::ArgAction::Count
    )
}

/// Argument `a` in a synopsis as clap's usage and `--help` name it: `[-o|--out <DIR>]`,
/// `[--set <KEY=VALUE>]...`, `<RESULTS>...`; brackets around what may be left out.
fn arg_synopsis(a: &clap::Arg) -> String {
    if a.is_positional() {
        return positional(a);
    }
    let mut s = match (a.get_short(), a.get_long()) {
        (Some(c), Some(l)) => format!("-{c}|--{l}"),
        (Some(c), None) => format!("-{c}"),
        (None, Some(l)) => format!("--{l}"),
        (None, None) => String::new(),
    };
    let v = values(a);
    if !v.is_empty() {
        s = format!("{s} {v}");
    }
    if !a.is_required_set() {
        s = format!("[{s}]");
    }
    if repeats(a) {
        s.push_str("...");
    }
    s
}

/// A positional argument as clap's usage shows it: `<RESULTS>...` when required, `[JOB]...` when not,
/// `...` where it takes several values, `[-- <FIO-ARGS>...]` for one after `--`.
fn positional(a: &clap::Arg) -> String {
    let name = match a.get_value_names() {
        Some(v) => v
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        None => a.get_id().as_str().to_uppercase(),
    };
    let several = repeats(a) || a.get_num_args().unwrap_or_default().max_values() > 1;
    let dots = if several { "..." } else { "" };
    match (a.is_last_set(), a.is_required_set()) {
        // After `--` (`wkrun import fio -- FIO-ARGS...`).
        (true, true) => format!("-- <{name}>{dots}"),
        (true, false) => format!("[-- <{name}>{dots}]"),
        (false, true) => format!("<{name}>{dots}"),
        (false, false) => format!("[{name}]{dots}"),
    }
}

/// The synopsis of a command's page (`wkrun-compare.1`): its name, then its options in the order of
/// `--help`, each with its value's name and `...` where it repeats, then its positionals as clap's usage
/// shows them (`<RESULTS>...`), then `<COMMAND>` for one with commands of its own. clap_mangen's own
/// dropped the value names and the repetition (`[--format] ... <RESULTS>`).
pub fn synopsis(cmd: &clap::Command) -> String {
    let mut words = vec![cmd.get_bin_name().unwrap_or(cmd.get_name()).to_string()];
    let shown =
        |a: &&clap::Arg| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version");
    let args: Vec<&clap::Arg> = cmd.get_arguments().filter(shown).collect();
    words.extend(
        args.iter()
            .filter(|a| !a.is_positional())
            .map(|a| arg_synopsis(a)),
    );
    words.extend(
        args.iter()
            .filter(|a| a.is_positional())
            .map(|a| arg_synopsis(a)),
    );
    if cmd.get_subcommands().any(|c| !c.is_hide_set()) {
        words.push("<COMMAND>".into());
    }
    words.join(" ")
}

/// `page` (as clap_mangen renders it) with its SYNOPSIS section replaced by `lines`, as they are.
fn with_synopsis(page: &str, lines: &str) -> String {
    let mut synopsis = String::from(".SH SYNOPSIS\n.nf\n");
    for line in lines.lines() {
        synopsis.push_str(&roff(line));
        synopsis.push('\n');
    }
    synopsis.push_str(".fi\n");
    match section(page, "SYNOPSIS") {
        Some((a, b)) => format!("{}{synopsis}{}", &page[..a], &page[b..]),
        None => format!("{page}{synopsis}"),
    }
}

/// A command's page `page` (as clap_mangen renders it) with the synopsis [`synopsis`] gives for `cmd`.
pub fn command_page(page: &str, cmd: &clap::Command) -> String {
    with_synopsis(page, &synopsis(cmd))
}

/// The top-level page `page` (as clap_mangen renders it) with the SYNOPSIS replaced by [`SYNOPSIS`] and
/// EXAMPLES, EXIT STATUS, FILES and SEE ALSO added at the end.
pub fn complete(page: &str) -> String {
    // The --help epilogue (where the docs are, exit codes, "More: wkrun man") is clap's EXTRA section:
    // the sections below say it in full.
    let page = match section(page, "EXTRA") {
        Some((a, b)) => format!("{}{}", &page[..a], &page[b..]),
        None => page.to_string(),
    };
    let mut out = with_synopsis(&page, SYNOPSIS);
    tagged(&mut out, "EXAMPLES", &EXAMPLES);
    tagged(&mut out, "EXIT STATUS", &EXIT_STATUS);
    tagged(&mut out, "FILES", &FILES);
    out.push_str(&format!(".SH \"SEE ALSO\"\n{}\n", roff(SEE_ALSO)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_synopsis_replaces_claps_and_the_sections_follow() {
        let page = ".TH wkrun 1\n.SH NAME\nwkrun\n.SH SYNOPSIS\n\\fBwkrun\\fR [\\fB\\-\\-target\\fR]\n.SH DESCRIPTION\nd\n.SH EXTRA\nMore: wkrun man.\n.SH VERSION\nv1\n";
        let out = complete(page);
        assert!(out.starts_with(
            ".TH wkrun 1\n.SH NAME\nwkrun\n.SH SYNOPSIS\n.nf\nwkrun SPEC [\\-\\-target PATH]..."
        ));
        assert!(
            !out.contains("[\\fB\\-\\-target\\fR]"),
            "clap's synopsis is gone"
        );
        assert!(
            !out.contains("EXTRA") && out.contains(".SH VERSION\nv1\n"),
            "{out}"
        );
        let order: Vec<usize> = [
            ".SH DESCRIPTION",
            ".SH EXAMPLES",
            ".SH \"EXIT STATUS\"",
            ".SH FILES",
            ".SH \"SEE ALSO\"",
        ]
        .iter()
        .map(|s| out.find(s).unwrap_or(usize::MAX))
        .collect();
        assert!(
            order.windows(2).all(|w| w[0] < w[1]) && order[4] < usize::MAX,
            "{out}"
        );
        assert_eq!(roff(".x -y \\"), "\\&.x \\-y \\e");
    }

    /// README.md from the first line after `marker` on.
    fn readme_after(marker: &str) -> String {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .expect("README.md");
        let at = readme
            .find(marker)
            .unwrap_or_else(|| panic!("{marker} in README.md"));
        readme[at + marker.len()..].to_string()
    }

    /// README.md's "Commands" block is the synopsis, to the character.
    #[test]
    fn the_readme_shows_this_synopsis() {
        let rest = readme_after("## Commands\n\n```\n");
        assert_eq!(rest.split("```").next(), Some(SYNOPSIS));
    }

    /// EXIT STATUS has the codes of README.md's table of exit codes, in its order (exit 3 was missing).
    #[test]
    fn the_exit_codes_are_the_readmes() {
        let codes: Vec<String> = readme_after("| exit code | meaning |\n|---|---|\n")
            .lines()
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.split('|').nth(1).unwrap_or("").replace(' ', ""))
            .collect();
        let ours: Vec<&str> = EXIT_STATUS.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, ["0", "1", "2", "3", "128+N"]);
        assert_eq!(ours, codes);
    }

    /// Every command of wkrun's, built as `wkrun man --dir` renders them, with its words (`sim predict`).
    fn commands() -> Vec<clap::Command> {
        use clap::CommandFactory;
        fn all(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                out.push(sub.clone());
                all(sub, out);
            }
        }
        let mut cmd = crate::Cli::command().disable_help_subcommand(true);
        cmd.build();
        let mut out = Vec::new();
        all(&cmd, &mut out);
        out
    }

    /// The names `--help` gives each option and argument (`-o, --out <DIR>`, `<RESULTS>...`), help and
    /// version left out.
    fn help_names(cmd: &mut clap::Command) -> Vec<String> {
        cmd.render_help()
            .to_string()
            .lines()
            // An option or an argument (`  -o, --out <DIR>`, `      --by <SWEEP>`, `  <RESULTS>...`), not a
            // command of the Commands list nor a line of help text.
            .filter(|l| {
                let t = l.trim_start();
                match l.len() - t.len() {
                    2 => t.starts_with(['-', '<', '[']),
                    6 => t.starts_with("--"),
                    _ => false,
                }
            })
            .map(|l| l.trim_start().split("  ").next().unwrap_or("").to_string())
            .filter(|n| !n.ends_with("--help") && !n.ends_with("--version"))
            .collect()
    }

    /// A command page's synopsis names each option with its value as `--help` does, and its positionals
    /// and commands as clap's usage does, in that order.
    #[test]
    fn each_command_synopsis_is_claps() {
        let mut seen = 0;
        for mut cmd in commands() {
            let line = synopsis(&cmd);
            for name in help_names(&mut cmd) {
                // `-o, --out <DIR>` is `-o|--out <DIR>` in a synopsis; an argument after `--` is
                // `[FIO-ARGS]...` in the list, `[-- <FIO-ARGS>...]` in the usage (checked below).
                let name = name.replace(", ", "|");
                let bare = |t: &str| t.replace(['[', ']', '<', '>'], "");
                let found = match name.starts_with(['[', '<']) {
                    true => bare(&line).contains(&bare(&name)),
                    false => line.contains(&name),
                };
                assert!(found, "{line} lacks {name}");
                seen += 1;
            }
            let usage = cmd.render_usage().to_string();
            let tail: Vec<&str> = usage
                .split_whitespace()
                .skip(
                    1 + line
                        .split(' ')
                        .take_while(|w| !w.starts_with(['[', '<', '-']))
                        .count(),
                )
                .filter(|w| *w != "[OPTIONS]")
                .collect();
            let mut rest = line.as_str();
            for w in tail {
                let at = rest
                    .find(w)
                    .unwrap_or_else(|| panic!("{line} lacks {w} of {usage}"));
                rest = &rest[at + w.len()..];
            }
        }
        assert!(seen > 40, "{seen} names checked");
        let compare = commands()
            .into_iter()
            .find(|c| c.get_name() == "compare")
            .expect("compare");
        assert!(
            synopsis(&compare).ends_with(" <RESULTS>..."),
            "{}",
            synopsis(&compare)
        );
    }

    /// README's synopsis (this [`SYNOPSIS`]) names every option `--help` gives each command, by its
    /// long or short name (`sim predict` lacked `-q`); `wkrun run`'s are the top-level form's.
    #[test]
    fn the_synopsis_names_every_option() {
        let lines: Vec<&str> = SYNOPSIS.lines().collect();
        let form = |words: &str| -> String {
            match words {
                "" | "run" => lines
                    .iter()
                    .take_while(|l| l.starts_with("wkrun SPEC") || l.starts_with(' '))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" "),
                w => lines
                    .iter()
                    .filter(|l| {
                        l.starts_with(&format!("wkrun {w} ")) || **l == format!("wkrun {w}")
                    })
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" "),
            }
        };
        let said = |text: &str, flag: String| {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .any(|w| w == flag)
        };
        let mut missing = Vec::new();
        for cmd in commands().into_iter().filter(|c| !c.has_subcommands()) {
            let bin = cmd.get_bin_name().unwrap_or_default().to_string();
            let words = bin.strip_prefix("wkrun").unwrap_or(&bin).trim().to_string();
            let text = form(&words);
            assert!(!text.is_empty(), "no synopsis of {words}");
            for a in cmd
                .get_arguments()
                .filter(|a| !a.is_hide_set() && !a.is_positional())
            {
                let id = a.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                let long = a.get_long().map(|l| format!("--{l}"));
                let short = a.get_short().map(|c| format!("-{c}"));
                if ![long.clone(), short]
                    .into_iter()
                    .flatten()
                    .any(|f| said(&text, f))
                {
                    missing.push(format!(
                        "{words}: {}",
                        long.unwrap_or_else(|| id.to_string())
                    ));
                }
            }
        }
        assert_eq!(missing, Vec::<String>::new());
    }
}
