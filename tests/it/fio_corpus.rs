//! fio's own example job files (tests/data/fio-examples, from fio's examples/ folder): each imports, or is
//! refused naming the option and its line; docs/fio.md's table of outcomes and its cheat sheet are what
//! this test makes of them and of the option table (`WKRUN_BLESS=1` writes them in).

use std::path::{Path, PathBuf};
use wkrun::fio::Place;
use wkrun::fio::import::{Source, import};

/// The example files, by name.
fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio-examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/fio-examples")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    v.sort();
    v
}

/// Imports one example with no environment variables set.
fn try_import(
    p: &Path,
    lossy: bool,
) -> Result<wkrun::fio::import::Imported, Vec<wkrun::fio::Problem>> {
    import(&Source::Files(vec![p.to_path_buf()]), lossy, None, &|_| {
        None
    })
}

/// A table cell: no `|`, no line break, at most `n` characters.
fn cell(text: &str, n: usize) -> String {
    let t = text.replace('|', "\\|").replace('\n', " ");
    match t.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t,
    }
}

/// The outcome table's rows and counts.
fn corpus_table() -> (String, [usize; 3]) {
    let mut rows = String::from(
        "| example | import | with `--lossy` | first refusal (line: option: why) |\n|---|---|---|---|\n",
    );
    let mut counts = [0; 3];
    for p in examples() {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_string();
        let plain = try_import(&p, false);
        let lossy = try_import(&p, true);
        let why = match &plain {
            Ok(_) => String::new(),
            Err(problems) => {
                for pr in problems {
                    match &pr.at {
                        Place::Line { file, line } => {
                            assert!(file.ends_with(&name) && *line >= 1, "{name}: {pr}")
                        }
                        other => panic!("{name}: a refusal that names no line: {other} {pr}"),
                    }
                    assert!(pr.message.contains(' '), "{name}: {pr}");
                }
                let first = &problems[0];
                let line = match &first.at {
                    Place::Line { line, .. } => *line,
                    _ => 0,
                };
                // Other places in the message name the file by its path here: the table names it alone.
                let dir = format!("{}/", p.parent().expect("folder").display());
                let msg = first
                    .message
                    .trim_end_matches(" (--lossy drops it, with a comment in the spec)")
                    .trim_end_matches(" (with a comment in the spec)")
                    .replace(&dir, "");
                cell(&format!("{line}: {msg}"), 150)
            }
        };
        let (a, b) = match (&plain, &lossy) {
            (Ok(_), _) => {
                counts[0] += 1;
                ("imports", "")
            }
            (Err(_), Ok(_)) => {
                counts[1] += 1;
                ("refused", "imports")
            }
            (Err(_), Err(_)) => {
                counts[2] += 1;
                ("refused", "refused")
            }
        };
        rows += &format!("| [{name}](../tests/data/fio-examples/{name}) | {a} | {b} | {why} |\n");
    }
    (rows, counts)
}

/// The cheat sheet: every row of the option table, what the importer does and what it is in wkrun.
fn cheat_sheet() -> String {
    use wkrun::spec::fio::{FIO_KEYS, Import};
    let mut t = String::from("| fio | import | in wkrun |\n|---|---|---|\n");
    for k in FIO_KEYS {
        let how = match k.import {
            Import::Mapped => "mapped",
            Import::Noted => "accepted, noted",
            Import::Refused => "refused",
        };
        let how = match k.import {
            Import::Refused if k.neutral.is_empty() => "refused".to_string(),
            Import::Refused => format!("refused unless {}", k.neutral.join(" or ")),
            _ => how.to_string(),
        };
        t += &format!("| `{}` | {how} | {} |\n", k.fio, cell(k.hint, 400));
    }
    t
}

/// Replaces, or checks, the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` of `doc`.
fn section(doc: &mut String, name: &str, body: &str, bless: bool) -> Result<(), String> {
    let (start, end) = (
        format!("<!-- {name}:start -->\n"),
        format!("<!-- {name}:end -->"),
    );
    let i = doc
        .find(&start)
        .ok_or(format!("docs/fio.md has no {start}"))?
        + start.len();
    let j = doc[i..]
        .find(&end)
        .ok_or(format!("docs/fio.md has no {end}"))?
        + i;
    if &doc[i..j] == body {
        return Ok(());
    }
    if bless {
        doc.replace_range(i..j, body);
        return Ok(());
    }
    Err(format!(
        "docs/fio.md's {name} section is not what the code makes (WKRUN_BLESS=1 cargo test --test it -- fio_corpus writes it in):\n{body}"
    ))
}

/// Every example imports, or is refused naming its option and line; the outcomes and the cheat sheet are
/// docs/fio.md's.
#[test]
fn fio_corpus_outcomes_are_documented() {
    let (table, [ok, lossy, refused]) = corpus_table();
    assert_eq!(ok + lossy + refused, examples().len());
    assert!(ok >= 10, "{table}");
    let counts = format!(
        "Of fio's {} examples, {ok} import as they are, {lossy} more with `--lossy`, and {refused} are refused even so.\n",
        ok + lossy + refused
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/fio.md");
    let mut doc = std::fs::read_to_string(&path).expect("docs/fio.md");
    let bless = std::env::var_os("WKRUN_BLESS").is_some();
    let results = [
        section(&mut doc, "corpus", &format!("{counts}\n{table}"), bless),
        section(&mut doc, "cheat-sheet", &cheat_sheet(), bless),
    ];
    if bless {
        std::fs::write(&path, &doc).expect("write docs/fio.md");
    }
    for r in results {
        r.unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The examples the side-by-side runs use import (with --lossy where the table says), and their specs
/// have fio's meaning.
#[test]
fn fio_corpus_handful_imports() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio-examples");
    for (name, lossy) in [
        ("fio-rand-RW.fio", false),
        ("fio-seq-write.fio", false),
        ("iometer-file-access-server.fio", true),
        ("ssd-steadystate.fio", false),
        ("jesd219.fio", true),
    ] {
        let out = try_import(&dir.join(name), lossy).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let doc: toml::Table = out.text.parse().expect("TOML");
        let phases = doc["phase"].as_array().expect("phases");
        match name {
            "fio-rand-RW.fio" => {
                let p = phases[0].as_table().expect("phase");
                assert_eq!(p["name"].as_str(), Some("file1"));
                assert_eq!(p["read_percent"].as_integer(), Some(60));
                assert_eq!(p["workers"].as_integer(), Some(4));
                assert_eq!(p["duration"].as_str(), Some("15min"));
            }
            "ssd-steadystate.fio" => {
                assert_eq!(phases.len(), 2);
                let p = phases[1].as_table().expect("phase");
                assert_eq!(p["size"].as_str(), Some("400%"));
                assert_eq!(p["coverage"].as_str(), Some("full"));
            }
            "jesd219.fio" => {
                // blockalign=4k and the byte bound with a size mix are dropped; the zones are kept.
                assert!(out.text.contains("# dropped (--lossy): "), "{}", out.text);
                let p = phases[0].as_table().expect("phase");
                assert_eq!(
                    p["distribution"].as_str(),
                    Some("zoned:50/5:30/15:20/80"),
                    "{}",
                    out.text
                );
                assert_eq!(p["read_percent"].as_integer(), Some(40));
                assert_eq!(p["workers_split"].as_str(), Some("shared"));
            }
            _ => {}
        }
    }
}
