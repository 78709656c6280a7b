//! Which runs a prediction is paired with: drawn over and compared phase by phase (`wkrun sim predict`'s
//! `next:` line, the report's overlay). The one definition of the rule, on the phases' recorded
//! parameters ([`PhaseParams`], as `results.json` and `wkrun plan --json` write them), so a prediction's
//! plan and a measurement's results are compared alike.

use super::PhaseParams;
use crate::vocab::PhaseKind;

/// A phase as [`pairing`] sees it: its name, kind and recorded parameters.
#[derive(Debug, Clone, Copy)]
pub struct PairPhase<'a> {
    /// The phase's name.
    pub name: &'a str,
    /// Its kind.
    pub kind: PhaseKind,
    /// Its parameters, as `results.json` records them.
    pub params: &'a PhaseParams,
}

/// The parameters of a phase (`params` of `results.json`) that make its workload: where it works (offset
/// and span), what it issues (block sizes, read and trim shares, offset order and spread, passes, rate cap)
/// and with how much in flight (queue depth, workers). Not its bound (`duration_ns`, `ops`): a longer
/// prediction of the same workload is the point of one.
pub const WORKLOAD_PARAMS: [&str; 15] = [
    "span_start_bytes",
    "span_bytes",
    "image_bytes",
    "block_size_bytes",
    "block_size_mix",
    "read_percent",
    "trim_percent",
    "pattern",
    "coverage",
    "distribution",
    "passes",
    "rate_iops",
    "queue_depth",
    "workers",
    "workers_split",
];

/// Why a prediction and a measurement cannot be paired ([`pairing`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Unpaired {
    /// Another `[spec]` name.
    OtherSpec,
    /// A run without phases, or results that could not be read.
    NoPhases,
    /// The phase of the run with fewer phases named `name` is not among the other's (in order), though
    /// every phase of it has the workload of its namesake or of the other's phase of its kind and base
    /// name (an erase of another sweep member, which erases the whole drive whatever the member).
    Missing {
        /// The phase's name.
        name: String,
    },
    /// A phase of the first run (`a`) and its counterpart in the second (`b`): the phase of the same name,
    /// else of the same kind and the same name before the first `[` (a sweep's member of another value),
    /// whose workloads differ in `diffs`: a parameter ([`WORKLOAD_PARAMS`], or `kind`) and its value in
    /// `a` and in `b`, as `results.json` writes them (`absent` when it has none).
    Workload {
        /// The phase's name in the first run.
        a: String,
        /// Its counterpart's name in the second.
        b: String,
        /// Each parameter that differs: its name, its value in `a` and in `b`.
        diffs: Vec<(String, String, String)>,
    },
}

/// The parameters of [`WORKLOAD_PARAMS`] (and the kind) in which phases `a` and `b` differ: each with its
/// value in `a` and in `b`, as `results.json` writes them.
pub fn workload_diffs(a: &PairPhase, b: &PairPhase) -> Vec<(String, String, String)> {
    let json = |p: &PhaseParams| serde_json::to_value(p).unwrap_or_default();
    let (ja, jb) = (json(a.params), json(b.params));
    let shown =
        |v: Option<&serde_json::Value>| v.map_or_else(|| "absent".to_string(), |v| v.to_string());
    let mut out = Vec::new();
    if a.kind != b.kind {
        out.push((
            "kind".into(),
            a.kind.as_str().into(),
            b.kind.as_str().into(),
        ));
    }
    for key in WORKLOAD_PARAMS {
        let (x, y) = (ja.get(key), jb.get(key));
        if x != y {
            out.push((key.to_string(), shown(x), shown(y)));
        }
    }
    out
}

/// Whether a prediction and a measurement, a run of the spec named `a` with the phases `pa` (in order)
/// and one of `b` with `pb`, can be paired: drawn one over the other and compared phase by phase, by
/// name. Paired when they have the same `[spec]` name, both have phases, the phases of the one with fewer
/// are among the other's in the same order, by name (a run interrupted, or whose block of rounds ended
/// early, has fewer), and each of them has the same workload as its namesake ([`WORKLOAD_PARAMS`]: the same
/// span and offset, block sizes, read share, pattern, queue depth, workers; the duration may differ). The
/// one definition of the pairing: the `next:` line of `wkrun sim predict` and the report's overlay use it.
///
/// # Errors
/// [`Unpaired`]: another spec, no phases, else the first phase (of the run with fewer) whose workload
/// differs from its namesake's, or, without a namesake, from the first phase of the other of its kind and
/// base name (the name before `[`: a sweep's member of another value, `fill[op=50%]` against `fill[op=100%]`);
/// else the first phase without a namesake.
pub fn pairing(a: &str, pa: &[PairPhase], b: &str, pb: &[PairPhase]) -> Result<(), Unpaired> {
    if a != b {
        return Err(Unpaired::OtherSpec);
    }
    if pa.is_empty() || pb.is_empty() {
        return Err(Unpaired::NoPhases);
    }
    let few_is_a = pa.len() <= pb.len();
    let (few, many) = match few_is_a {
        true => (pa, pb),
        false => (pb, pa),
    };
    // Named in `a`'s then `b`'s order.
    let unpaired = |f: &PairPhase, m: &PairPhase| {
        let (x, y) = if few_is_a { (f, m) } else { (m, f) };
        Unpaired::Workload {
            a: x.name.to_string(),
            b: y.name.to_string(),
            diffs: workload_diffs(x, y),
        }
    };
    let base = |n: &str| n.split('[').next().unwrap_or(n).to_string();
    // Where the next namesake is looked for in `many`, and the first phase without one.
    let (mut at, mut missing) = (0, None);
    for f in few {
        match many[at..].iter().position(|m| m.name == f.name) {
            Some(i) => {
                let m = &many[at + i];
                at += i + 1;
                if !workload_diffs(f, m).is_empty() {
                    return Err(unpaired(f, m));
                }
            }
            None => {
                // A sweep's member of another value: its workload against the first member's.
                let other = many
                    .iter()
                    .find(|m| m.kind == f.kind && base(m.name) == base(f.name));
                match other {
                    Some(m) if !workload_diffs(f, m).is_empty() => return Err(unpaired(f, m)),
                    _ => {
                        missing.get_or_insert_with(|| f.name.to_string());
                    }
                }
            }
        }
    }
    match missing {
        Some(name) => Err(Unpaired::Missing { name }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(span: u64, bs: u64) -> PhaseParams {
        PhaseParams {
            block_size_bytes: Some(bs),
            queue_depth: Some(32),
            read_percent: Some(0),
            duration_ns: Some(bs * 1000),
            ..PhaseParams::with_span(0, span)
        }
    }

    fn ph<'a>(name: &'a str, params: &'a PhaseParams) -> PairPhase<'a> {
        PairPhase {
            name,
            kind: PhaseKind::Workload,
            params,
        }
    }

    /// The refusal of a phase `a` against `b` differing in `key` alone, `x` against `y`.
    fn differs(a: &str, b: &str, key: &str, x: &str, y: &str) -> Result<(), Unpaired> {
        Err(Unpaired::Workload {
            a: a.into(),
            b: b.into(),
            diffs: vec![(key.into(), x.into(), y.into())],
        })
    }

    #[test]
    fn a_pair_has_the_same_spec_the_fewer_phases_among_the_others_and_their_workloads() {
        let (w4, w64, half) = (
            &params(1 << 30, 4096),
            &params(1 << 30, 65536),
            &params(1 << 29, 4096),
        );
        let all = [ph("purge", w4), ph("fill", w4), ph("saturate", w4)];
        assert_eq!(pairing("op", &all, "op", &all), Ok(()));
        assert_eq!(pairing("op", &all[..2], "op", &all), Ok(()));
        assert_eq!(pairing("op", &all, "op", &[all[0], all[2]]), Ok(()));
        assert_eq!(
            pairing("op", &all, "op", &[all[2], all[0]]),
            Err(Unpaired::Missing {
                name: "purge".into()
            })
        );
        assert_eq!(
            pairing("op", &all, "consistency", &all),
            Err(Unpaired::OtherSpec)
        );
        assert_eq!(
            pairing("op", &all, "op", &[all[0], ph("other", w4)]),
            Err(Unpaired::Missing {
                name: "other".into()
            })
        );
        assert_eq!(pairing("op", &[], "op", &all), Err(Unpaired::NoPhases));
        // The same names, another block size (its duration differs too, which pairs).
        let big = [ph("purge", w4), ph("fill", w4), ph("saturate", w64)];
        assert_eq!(
            pairing("op", &all, "op", &big),
            differs("saturate", "saturate", "block_size_bytes", "4096", "65536")
        );
        // A sweep's member of another value: named apart, compared with the member of its base name; an
        // erase of another member, of the whole drive whatever the member, differs by its name alone, and
        // the next phase's span tells them apart.
        let half_span = differs(
            "w[op=100%]",
            "w[op=50%]",
            "span_bytes",
            "1073741824",
            "536870912",
        );
        let members = [ph("w[op=100%]", w4), ph("w[op=75%]", w4)];
        assert_eq!(
            pairing("op", &members, "op", &[ph("w[op=50%]", half)]),
            half_span
        );
        let m = [ph("purge[op=100%]", w4), ph("w[op=100%]", w4)];
        let p = [ph("purge[op=50%]", w4), ph("w[op=50%]", half)];
        assert_eq!(pairing("op", &m, "op", &p), half_span);
        assert_eq!(
            pairing("op", &m[..1], "op", &p[..1]),
            Err(Unpaired::Missing {
                name: "purge[op=100%]".into()
            })
        );
        // The kind is part of the workload.
        let erase = PairPhase {
            kind: PhaseKind::Erase,
            ..all[0]
        };
        assert_eq!(
            workload_diffs(&erase, &all[0]),
            vec![("kind".into(), "erase".into(), "workload".into())]
        );
    }
}
