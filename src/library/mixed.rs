//! What differs between a run and the library's runs put beside it (`--against-library`): the kind of
//! target (a file, a block device, a simulated drive measure different things) and the spec file (the same
//! spec name, another version or edit), said before the comparison so that it is not read as drives alone.

use super::Stored;
use crate::results::Results;

/// The kind of target a run measured, in words.
fn kind(r: &Results) -> String {
    let name = serde_json::to_value(r.target.kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    match name.as_str() {
        "file" => "a file".into(),
        "block" => "a block device".into(),
        "sim" => "a simulated SSD (virtual time)".into(),
        other => other.to_string(),
    }
}

/// A run's spec file: `NAME VERSION sha256:0123456789ab`.
fn spec(r: &Results) -> String {
    let s = &r.spec;
    format!(
        "{} {} sha256:{}",
        s.name,
        s.version,
        s.sha256.get(..12).unwrap_or(&s.sha256)
    )
}

/// One warning per library entry among `others` that differs from `this` in the kind of target or in the
/// spec file, naming the entry and each difference; none when they all match.
pub fn differences(this: &Results, others: &[Stored]) -> Vec<String> {
    let mut out = Vec::new();
    for s in others {
        let r = &s.results;
        let mut what = Vec::new();
        if r.target.kind != this.target.kind {
            what.push(format!(
                "it ran on {}, this run on {} (not the same kind of measurement)",
                kind(r),
                kind(this)
            ));
        }
        if r.spec.sha256 != this.spec.sha256 {
            what.push(format!(
                "its spec file is {}, this run's {} (phases of one name may not be one workload)",
                spec(r),
                spec(this)
            ));
        }
        if !what.is_empty() {
            out.push(format!(
                "library entry {} ({}): {}",
                s.id,
                crate::text::escaped(&s.label),
                what.join("; ")
            ));
        }
    }
    out
}
