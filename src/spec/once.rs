//! One error per `[[phase]]`: a rule a `[[phase]]` breaks in every phase a sweep, a matrix or a block of
//! rounds expands it into (1,400 for the PTS IOPS test) is said once, naming how many of its phases it
//! concerns, not once per expanded phase.

use super::PhaseSpec;
use std::collections::HashMap;
use std::hash::Hash;

/// `errors`, each with the expanded phase it concerns (`None`: none), with the errors of one `[[phase]]` that
/// say the same thing (equal `same`) kept once: the first, in place, given by `note` the words ` (in 175 of
/// the 1400 phases [[phase]] "iops" expands into)` when it stands for more than one.
pub fn once_per_phase<T, K: Eq + Hash>(
    phases: &[PhaseSpec],
    errors: Vec<(Option<usize>, T)>,
    same: impl Fn(&T) -> K,
    note: impl Fn(&mut T, &str),
) -> Vec<T> {
    let origin = |i: Option<usize>| i.map(|i| phases.get(i).and_then(|p| p.origin).unwrap_or(i));
    let keys: Vec<(Option<usize>, K)> = errors.iter().map(|(i, e)| (origin(*i), same(e))).collect();
    let mut count: HashMap<&(Option<usize>, K), usize> = HashMap::new();
    for k in &keys {
        *count.entry(k).or_default() += 1;
    }
    let mut said: HashMap<&(Option<usize>, K), ()> = HashMap::new();
    let mut out = Vec::new();
    for ((i, mut e), k) in errors.into_iter().zip(&keys) {
        if said.insert(k, ()).is_some() {
            continue;
        }
        let n = count[k];
        if let (Some(o), Some(i), true) = (k.0, i, n > 1) {
            let all = phases
                .iter()
                .enumerate()
                .filter(|(j, p)| p.origin.unwrap_or(*j) == o)
                .count();
            let name = phases.get(i).map_or("", |p| base(&p.name));
            note(
                &mut e,
                &format!(" (in {n} of the {all} phases [[phase]] \"{name}\" expands into)"),
            );
        }
        out.push(e);
    }
    out
}

/// A phase's name without its labels: `iops` of `iops[round=1,bs=4KiB,read=0]`.
fn base(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}
