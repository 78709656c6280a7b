//! The published JSON Schemas, generated from the Rust types: `wkrun schema spec|result` prints them and
//! `schemas/*.schema.json` are that output, committed (a test keeps them in sync).

use crate::results::Results;
use crate::spec::SpecFile;
use crate::spec::keys::PHASE_KINDS;
use crate::spec::rules::keys_for;
use serde_json::{Value, json};

/// The spec schema (draft 2020-12). Besides the types, it states which keys each phase kind accepts.
pub fn spec_schema() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(SpecFile)).unwrap_or(Value::Null);
    let rules: Vec<Value> = PHASE_KINDS
        .iter()
        .map(|k| {
            json!({
                "if": { "properties": { "kind": { "const": k.as_str() } }, "required": ["kind"] },
                "then": { "propertyNames": { "enum": keys_for(*k) } }
            })
        })
        .collect();
    if let Some(phase) = v
        .pointer_mut("/$defs/PhaseSpec")
        .and_then(Value::as_object_mut)
    {
        phase.insert("allOf".into(), Value::Array(rules));
    }
    v
}

/// The results schema (draft 2020-12).
pub fn result_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Results)).unwrap_or(Value::Null)
}

/// A schema as the committed file holds it: pretty JSON with a trailing newline.
pub fn to_file_text(schema: &Value) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}
