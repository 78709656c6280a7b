//! The committed schemas are exactly what the code generates, and `wkrun schema` prints them.

use crate::common::{code_out_err, tempdir, wkrun};
use std::fs;
use std::path::Path;
use wkrun::results::schema::{result_schema, spec_schema, to_file_text};

fn committed(name: &str) -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas")
            .join(name),
    )
    .expect("committed schema")
}

#[test]
fn committed_schemas_match_the_code() {
    assert_eq!(
        committed("spec.schema.json"),
        to_file_text(&spec_schema()),
        "schemas/spec.schema.json is stale: run `cargo run -- schema spec > schemas/spec.schema.json`"
    );
    assert_eq!(
        committed("result.schema.json"),
        to_file_text(&result_schema()),
        "schemas/result.schema.json is stale: run `cargo run -- schema result > schemas/result.schema.json`"
    );
}

#[test]
fn schema_command_prints_the_committed_files() {
    let d = tempdir();
    for (which, file) in [
        ("spec", "spec.schema.json"),
        ("result", "result.schema.json"),
    ] {
        let (code, out, _) = code_out_err(&wkrun(d.path(), &["schema", which]));
        assert_eq!(code, 0);
        assert_eq!(out, committed(file));
    }
}

#[test]
fn every_spec_in_specs_validates_against_the_schema_and_the_rules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let validator = jsonschema::validator_for(&spec_schema()).expect("spec schema compiles");
    let mut n = 0;
    for e in fs::read_dir(&dir).expect("specs/") {
        let p = e.expect("entry").path();
        if p.extension().and_then(|x| x.to_str()) != Some("toml") {
            continue;
        }
        n += 1;
        let text = fs::read_to_string(&p).expect("read spec");
        let value: toml::Value = toml::from_str(&text).expect("spec is TOML");
        let json = serde_json::to_value(value).expect("as JSON");
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
        wkrun::spec::load_file(&p).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(n >= 1, "no specs found");
}
