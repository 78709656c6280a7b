//! What `wkrun validate` holds a results file's blocks of rounds (`round_blocks[]`) to: each block is what
//! [`super::rounds::judge`], the function a run and a merge judge it with, makes of the phases its plan
//! places, and each of those phases is of the cell and round the plan places it in. So a cell's figures,
//! its phases, a round's tracking value or the verdict cannot be edited apart from the phases they come
//! from.

use super::PhaseResult;
use super::check::Violation;
use super::rounds::{RoundBlockResult, judge};
use crate::plan::RoundBlock;
use serde_json::Value;

/// Where the blocks `blocks` of results are not what [`judge`] makes of the results' `phases`: a plan that
/// places a phase in a cell and round its name and `round` label are not of, or that is not one a spec
/// makes; a figure (a cell's, a round's, the window's, the verdict) other than the block judged again
/// gives, named by its JSON path with both values. Numbers agree within a part in 10⁹ (the phases'
/// figures are read back from decimal text); a merge's `rounds_by_run` (its runs' rounds) is not held to it.
pub fn contradictions(blocks: &[RoundBlockResult], phases: &[PhaseResult]) -> Vec<Violation> {
    let mut out = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        let at = format!("round_blocks[{k}]");
        if !placement(&at, &b.plan, phases, &mut out) {
            continue;
        }
        let Some(mut again) = judge(&b.plan, phases) else {
            out.push(Violation {
                path: format!("{at}.plan"),
                expected: format!(
                    "block {:?} judges nothing from the results' phases: its plan places none of them, or its rule is not one a spec gives",
                    b.name
                ),
            });
            continue;
        };
        again.rounds_by_run.clone_from(&b.rounds_by_run);
        let (Ok(got), Ok(want)) = (serde_json::to_value(b), serde_json::to_value(&again)) else {
            continue;
        };
        let mut found = Vec::new();
        differ(&got, &want, at.clone(), &mut found);
        for (path, got, want) in found {
            let cell = cell_of(&path, &at, &again);
            out.push(Violation {
                path,
                expected: format!(
                    "{got} is not {want}, what block {:?} judged from its phases gives{cell}",
                    b.name
                ),
            });
        }
    }
    out
}

/// Whether the plan `b` (at `at`) is one a spec makes, its cells as many as its phases a round, its rounds
/// at most a block's and its tracked cell the tracked phase, and places each phase of `phases` it holds in
/// the cell and round its name and `round` label say; the first that is not goes into `out`, and the block
/// is not judged (its figures would be of other phases).
fn placement(at: &str, b: &RoundBlock, phases: &[PhaseResult], out: &mut Vec<Violation>) -> bool {
    let most = crate::spec::repeat::MAX_ROUNDS as u64;
    let shape = if b.cells.len() != b.phases_per_round {
        Some(format!(
            "{} cells, not phases_per_round {}",
            b.cells.len(),
            b.phases_per_round
        ))
    } else if u64::from(b.max_rounds) > most {
        Some(format!(
            "max_rounds {} is more than {most}, the most rounds a block may have",
            b.max_rounds
        ))
    } else if b.first_phase > u32::MAX as usize || b.cells.get(b.track.cell) != Some(&b.track.phase)
    {
        Some(format!(
            "first_phase {} and track.cell {} do not place the tracked phase {:?} among its cells",
            b.first_phase, b.track.cell, b.track.phase
        ))
    } else {
        None
    };
    if let Some(expected) = shape {
        out.push(Violation {
            path: format!("{at}.plan"),
            expected,
        });
        return false;
    }
    let misplaced = phases.iter().find_map(|p| {
        let (round, cell) = b.round_of(p.index).filter(|_| b.holds(p.index))?;
        let want = (round, b.cells[cell].clone());
        let got = crate::spec::expand::round_and_cell(&p.name, &p.labels);
        (got != Some(want)).then(|| (p, round, &b.cells[cell]))
    });
    let Some((p, round, cell)) = misplaced else {
        return true;
    };
    out.push(Violation {
        path: format!("{at}.plan"),
        expected: format!(
            "places phase {} {:?} as round {round} of cell {cell:?}, and it is not (first_phase {}, {} phases a round): a block's phases are its cells' rounds",
            p.index, p.name, b.first_phase, b.phases_per_round
        ),
    });
    false
}

/// `, for cell "NAME" (phases A, B, ...)` when `path` is within `at.cells[c]` of the block judged again,
/// `again`; empty otherwise.
fn cell_of(path: &str, at: &str, again: &RoundBlockResult) -> String {
    let c = path
        .strip_prefix(&format!("{at}.cells["))
        .and_then(|rest| rest.split(']').next())
        .and_then(|n| n.parse::<usize>().ok());
    match c.and_then(|c| again.cells.get(c)) {
        Some(cell) => {
            let list: Vec<String> = cell.phases.iter().map(usize::to_string).collect();
            format!(" for cell {:?} (phases {})", cell.name, list.join(", "))
        }
        None => String::new(),
    }
}

/// Every place where `got` is not `want`, as (path, got, want): numbers within a part in 10⁹, a list of
/// numbers whole (a cell's phases), a list of objects entry by entry or, of another length, by its length.
fn differ(got: &Value, want: &Value, path: String, out: &mut Vec<(String, String, String)>) {
    let scalar = |v: &Value| !v.is_array() && !v.is_object();
    let shown = |v: &Value| match v {
        Value::Array(a) if a.len() <= 16 && a.iter().all(scalar) => v.to_string(),
        Value::Array(a) => format!("{} entries", a.len()),
        Value::Object(_) => "an object".to_string(),
        _ => v.to_string(),
    };
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => {
            let (x, y) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            // Whole numbers (counts, bytes, indices) exactly; others within rounding.
            let whole = |n: &serde_json::Number| n.is_u64() || n.is_i64();
            let same = match whole(a) && whole(b) {
                true => a == b,
                false => super::check::close(x, y),
            };
            if !same {
                out.push((path, shown(got), shown(want)));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            let keys = b.keys().chain(a.keys().filter(|k| !b.contains_key(*k)));
            for key in keys {
                let (x, y) = (
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                );
                differ(x, y, format!("{path}.{key}"), out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() && !a.iter().all(scalar) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differ(x, y, format!("{path}[{i}]"), out);
            }
        }
        _ if got != want => out.push((path, shown(got), shown(want))),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::differ;
    use serde_json::json;

    /// A whole number off by 1 is a difference however large it is (a part in 10⁹ passed: 4,000,000,001
    /// for 4,000,000,000); a figure that is not whole differs past rounding (a relative 10⁻¹⁰ passed), not
    /// within one unit in the last place.
    #[test]
    fn whole_numbers_compare_exactly_and_others_within_rounding() {
        let mut out = Vec::new();
        differ(
            &json!({"bytes": 4_000_000_001u64}),
            &json!({"bytes": 4_000_000_000u64}),
            "b".into(),
            &mut out,
        );
        assert_eq!(
            out,
            [(
                "b.bytes".to_string(),
                "4000000001".to_string(),
                "4000000000".to_string()
            )]
        );
        let x = 1234.5678_f64;
        out.clear();
        differ(&json!(x * (1.0 + 1e-10)), &json!(x), "v".into(), &mut out);
        assert_eq!(
            out,
            [(
                "v".to_string(),
                (x * (1.0 + 1e-10)).to_string(),
                x.to_string()
            )]
        );
        out.clear();
        differ(
            &json!(f64::from_bits(x.to_bits() + 1)),
            &json!(x),
            "v".into(),
            &mut out,
        );
        assert_eq!(out, []);
    }
}
