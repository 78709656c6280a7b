//! Outputs validated against the schema (issue 31): `wkrun validate` takes results files and folders as
//! well as specs and names each violation by its JSON path; `compare`, `report` and `merge` refuse at the
//! door what does not validate; a run checks what it wrote.

use crate::common::*;
use std::fs;
use std::path::Path;

const SPEC: &str = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 50\nduration = \"2s\"\n";

/// A finished two-phase run on a small simulated drive, in `dir/r`.
fn a_run(dir: &Path) {
    write_file(dir, "v.toml", &spec_text("v", SPEC));
    let (c, _, e) = code_out_err(&wkrun(
        dir,
        &[
            "v.toml",
            "--target",
            "sim:capacity=512MiB,op=7%",
            "-q",
            "-o",
            "r",
        ],
    ));
    assert_eq!(c, 0, "{e}");
}

/// `dir/r/results.json` changed by `edit`, written as `dir/NAME.json`.
fn tampered(dir: &Path, name: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v = results(&dir.join("r"));
    edit(&mut v);
    let file = format!("{name}.json");
    fs::write(dir.join(&file), serde_json::to_vec(&v).expect("json")).expect("write");
    file
}

#[test]
fn results_files_and_folders_validate_and_specs_still_do() {
    let t = tempdir();
    a_run(t.path());
    let (c, out, e) = code_out_err(&wkrun(
        t.path(),
        &["validate", "r", "r/results.json", "v.toml"],
    ));
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        out,
        "r: ok (results, 2 phases, 2 series CSVs)\nr/results.json: ok (results, 2 phases, 2 series CSVs)\nv.toml: ok (2 phases)\n"
    );
}

#[test]
fn each_violation_is_named_by_its_json_path() {
    let t = tempdir();
    a_run(t.path());
    let d = t.path();
    let wrong_type = tampered(d, "type", |v| v["phases"][1]["read"]["ops"] = "12".into());
    let missing = tampered(d, "missing", |v| {
        v["phases"][0]
            .as_object_mut()
            .expect("phase")
            .remove("name");
    });
    let extra = tampered(d, "extra", |v| {
        v["phases"][1]["read"]["surprise"] = 1.into()
    });
    let cases = [
        (
            wrong_type.as_str(),
            "error: type.json does not match the results schema (1 violation):\n  phases[1].read.ops: \"12\" is not of type \"integer\"\n",
        ),
        (
            missing.as_str(),
            "error: missing.json does not match the results schema (1 violation):\n  phases[0]: \"name\" is a required property\n",
        ),
        (
            extra.as_str(),
            "error: extra.json does not match the results schema (1 violation):\n  phases[1].read: Additional properties are not allowed ('surprise' was unexpected)\n",
        ),
    ];
    for (file, want) in cases {
        let (c, out, e) = code_out_err(&wkrun(d, &["validate", file]));
        assert_eq!((c, out.as_str(), e.as_str()), (2, "", want), "{file}");
        // The same message, at the door of every command that reads results; nothing written.
        for args in [
            vec!["compare", "r", file],
            vec!["report", file, "-o", "rep"],
            vec!["merge", "r/results.json", file, "-o", "m"],
        ] {
            let (c, out, e) = code_out_err(&wkrun(d, &args));
            assert_eq!((c, out.as_str(), e.as_str()), (2, "", want), "{args:?}");
        }
        assert!(!d.join("rep").exists() && !d.join("m").exists());
    }
}

#[test]
fn json_that_is_not_wkrun_results_and_oversized_files_are_refused() {
    let t = tempdir();
    let d = t.path();
    fs::write(d.join("other.json"), "{\"hello\": 1}").expect("write");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "other.json"]));
    assert_eq!(c, 2);
    assert_eq!(
        e,
        "error: other.json is not a wkrun results document: it has no integer `format` field\n"
    );
    fs::write(d.join("cut.json"), "{\"format\": 1, \"phases\": [").expect("write");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "cut.json"]));
    assert_eq!(c, 2);
    assert!(
        e.starts_with(
            "error: cut.json is not a wkrun results document: not JSON (EOF while parsing"
        ),
        "{e}"
    );
    // 1 GiB, sparse: refused by its size before a byte is parsed.
    let big = fs::File::create(d.join("big.json")).expect("create");
    big.set_len(1 << 30).expect("set_len");
    fs::write(d.join("big.json"), b"{").ok();
    let big = fs::OpenOptions::new()
        .write(true)
        .open(d.join("big.json"))
        .expect("open");
    big.set_len(1 << 30).expect("set_len");
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", "big.json"]));
    assert_eq!(c, 2);
    assert_eq!(
        e,
        "error: big.json: larger than 512MiB, the largest results file wkrun reads\n"
    );
}

#[test]
fn a_results_folder_with_a_cut_series_csv_does_not_validate() {
    let t = tempdir();
    a_run(t.path());
    let csv = t.path().join("r/01-w.csv");
    let text = fs::read_to_string(&csv).expect("csv");
    let kept: Vec<&str> = text.lines().take(2).collect();
    fs::write(&csv, kept.join("\n") + "\n").expect("cut");
    let (c, _, e) = code_out_err(&wkrun(t.path(), &["validate", "r"]));
    assert_eq!(c, 2);
    assert!(
        e.starts_with("error: series r/01-w.csv: 1 rows, where results.json says phase \"w\" has "),
        "{e}"
    );
}
