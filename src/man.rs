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
wkrun sim predict RESULTS SPEC [-o DIR] [--phase NAME] [--fitted TARGET] [--set KEY=VALUE]...
wkrun import fio JOB... [-o SPEC] [--lossy]
wkrun import fio [-o SPEC] [--lossy] -- FIO-ARGS...
wkrun export fio SPEC [-o FILE]
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

/// EXIT STATUS: a code and what it means.
const EXIT_STATUS: [(&str, &str); 4] = [
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

/// The top-level page `page` (as clap_mangen renders it) with the SYNOPSIS replaced by [`SYNOPSIS`] and
/// EXAMPLES, EXIT STATUS, FILES and SEE ALSO added at the end.
pub fn complete(page: &str) -> String {
    let mut synopsis = String::from(".SH SYNOPSIS\n.nf\n");
    for line in SYNOPSIS.lines() {
        synopsis.push_str(&roff(line));
        synopsis.push('\n');
    }
    synopsis.push_str(".fi\n");
    // The --help epilogue (where the docs are, exit codes, "More: wkrun man") is clap's EXTRA section:
    // the sections below say it in full.
    let page = match section(page, "EXTRA") {
        Some((a, b)) => format!("{}{}", &page[..a], &page[b..]),
        None => page.to_string(),
    };
    let mut out = match section(&page, "SYNOPSIS") {
        Some((a, b)) => format!("{}{synopsis}{}", &page[..a], &page[b..]),
        None => format!("{page}{synopsis}"),
    };
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

    /// README.md's "Commands" block is the synopsis, to the character.
    #[test]
    fn the_readme_shows_this_synopsis() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .expect("README.md");
        let block = readme
            .split("## Commands\n\n```\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("the Commands block");
        assert_eq!(block, SYNOPSIS);
    }
}
