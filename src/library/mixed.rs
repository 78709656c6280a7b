//! What differs between a run and the library's runs put beside it (`--against-library`): the kind of
//! target (a file, a block device, a simulated drive measure different things), what the figures add up
//! (one target, the sum of a run on several targets, a merge of several hosts: [`Summed`]) and the spec file
//! (the same spec name, another version or edit), said before the comparison so that it is not read as
//! drives alone.

use super::Stored;
use crate::report::runs::{Summed, first_paths, merged_hosts};
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

/// What a run's figures add up, in words: `one target's run`, `the sum of 2 targets (a.img + b.img)`, `a merge
/// of 3 hosts (a.img + b.img + c.img)` (its distinct targets, the first three, then `+ K more`; `each on
/// PATH` when they all ran on one path).
fn summed(r: &Results) -> String {
    match Summed::of(r) {
        Summed::One => "one target's run".into(),
        Summed::Targets(n) => format!(
            "the sum of {n} targets ({})",
            crate::text::escaped(&r.target.path.display().to_string())
        ),
        Summed::Hosts(n) => {
            let paths = merged_hosts(r).map(|(_, p)| p).unwrap_or_default();
            let shown = match paths.as_slice() {
                [one] => format!("each on {one}"),
                _ => first_paths(&paths),
            };
            format!("a merge of {n} hosts ({})", crate::text::escaped(&shown))
        }
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

/// One warning per library entry among `others` that differs from `this` in the kind of target, in what
/// its figures add up ([`Summed`]: a sum of 2 targets beside one target reads as a faster drive) or in the
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
        if Summed::of(r) != Summed::of(this) {
            what.push(format!(
                "it is {}, this run {}: not the same kind of measurement",
                summed(r),
                summed(this)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::{cluster_host, results};
    use crate::results::Cluster;
    use crate::target::TargetKind;

    fn stored(id: i64, label: &str, r: Results) -> Stored {
        Stored {
            id,
            label: label.into(),
            sha256: String::new(),
            results: r,
            files: Default::default(),
        }
    }

    fn with_hosts(path: &str, hosts: &[&str]) -> Results {
        let mut r = results(
            "s",
            "2026-01-01T00:00:00.000Z",
            path,
            TargetKind::File,
            vec![],
        );
        r.cluster = Some(Cluster {
            hosts: hosts.iter().map(|p| cluster_host(p)).collect(),
            alignment: String::new(),
        });
        r
    }

    /// A merge of hosts (its target path the first host's) and the sum of a run on several targets (the
    /// paths joined) are each said beside one target's run; a sum of as many targets is not.
    #[test]
    fn sums_of_targets_and_merges_of_hosts_are_said() {
        let one = with_hosts("x.img", &[]);
        let merged = with_hosts("h.img", &["h.img", "h.img", "h.img"]);
        let summed = with_hosts("a.img + b.img", &["a.img", "b.img"]);
        let spread = with_hosts("p.img", &["p.img", "q.img", "r.img", "s.img", "t.img"]);
        let others = [
            stored(1, "m", merged),
            stored(2, "t", summed.clone()),
            stored(3, "five", spread),
        ];
        assert_eq!(
            differences(&one, &others),
            [
                "library entry 1 (m): it is a merge of 3 hosts (each on h.img), this run one target's run: not the same kind of measurement",
                "library entry 2 (t): it is the sum of 2 targets (a.img + b.img), this run one target's run: not the same kind of measurement",
                "library entry 3 (five): it is a merge of 5 hosts (p.img + q.img + r.img + 2 more), this run one target's run: not the same kind of measurement",
            ]
        );
        let twin = with_hosts("c.img + d.img", &["c.img", "d.img"]);
        assert_eq!(differences(&twin, &others[1..2]), Vec::<String>::new());
    }
}
