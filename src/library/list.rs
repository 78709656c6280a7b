//! `wkrun library list`: one line per entry, and the words that name what a query did not find.

use super::Entry;
use super::entry::{IndexedFigure, PHASE_IOPS};
use crate::report::compare::unit_decimals;
use crate::results::headline::{can_lead, is_steady_mean};
use crate::spec::PhaseKind;

/// The entry's lead figures, at most `n`: per phase, its first headline figure that can lead, by the one
/// rule `wkrun compare` leads with ([`crate::results::headline::can_lead`]: a level with a direction and a
/// positive value), passing over the figures of the state before a point (`fill_once before iops`: the
/// fresh drive, not the point the spec measures) while the phase has a later one, else its whole-phase
/// IOPS. The phases that reached the steady state their headline declares come first, then the other
/// workloads, then the rest, each group in run order.
///
/// The passing over is where this differs from the figure a phase leads with in `compare`
/// ([`crate::report::compare::pair_lead`] and its `own_lead`), and must: `compare` sets one phase beside
/// its twin, so the figure before a point is measured over like rows in both (else left out) and the spec's
/// headline order decides; here one run stands alone in two figures, and the fresh drive's would describe
/// a state the spec only passes through (issue 25).
pub fn leads(e: &Entry, n: usize) -> Vec<&IndexedFigure> {
    let mut phases: Vec<usize> = Vec::new();
    for f in &e.figures {
        if !phases.contains(&f.phase_index) {
            phases.push(f.phase_index);
        }
    }
    let has = |i: usize, want: &dyn Fn(&IndexedFigure) -> bool| {
        e.figures.iter().any(|f| f.phase_index == i && want(f))
    };
    let rank = |i: &usize| {
        if has(*i, &|f| is_steady_mean(&f.key) && f.value.is_some()) {
            0
        } else if has(*i, &|f| f.phase_kind == PhaseKind::Workload) {
            1
        } else {
            2
        }
    };
    // A stable sort keeps run order within each rank.
    phases.sort_by_key(rank);
    phases
        .into_iter()
        .filter_map(|i| {
            let of = || e.figures.iter().filter(move |f| f.phase_index == i);
            let level = |f: &&IndexedFigure| {
                f.key != PHASE_IOPS && can_lead(&f.key, f.value, f.better).is_some()
            };
            of().filter(level)
                .find(|f| !f.key.contains(" before "))
                .or_else(|| of().find(level))
                .or_else(|| of().find(|f| f.key == PHASE_IOPS && f.value.is_some()))
        })
        .take(n)
        .collect()
}

/// A figure as the list shows it: `PHASE: VALUE UNIT (LABEL)`.
pub fn figure_text(f: &IndexedFigure) -> String {
    let v = f.value.unwrap_or(0.0);
    format!(
        "{}: {v:.*} {} ({})",
        f.phase,
        unit_decimals(&f.unit),
        f.unit,
        f.label
    )
}

/// The list: a header line, then one line per entry: id, label, spec, target, the run's start (date and
/// time to the minute, UTC), status and its two lead figures ([`leads`]), columns aligned.
pub fn render(entries: &[Entry]) -> String {
    use crate::text::{echo, escaped, pad, widths};
    let head: Vec<String> = [
        "id",
        "label",
        "spec",
        "target",
        "started (UTC)",
        "status",
        "figures",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rows = vec![head];
    for e in entries {
        let figures: Vec<String> = leads(e, 2).into_iter().map(figure_text).collect();
        rows.push(vec![
            e.id.to_string(),
            // Stored strings, as the results held them (a 3000-byte target path made a 3,225-byte line):
            // escaped and cut, their length stated, as every echo is.
            echo(&e.label).into_owned(),
            echo(&e.spec).into_owned(),
            echo(&e.target).into_owned(),
            started(&e.started_at),
            e.status.clone(),
            escaped(&figures.join("; ")).into_owned(),
        ]);
    }
    let w = widths(&[], &rows);
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| pad(c, if i + 1 == row.len() { 0 } else { w[i] }, i == 0))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `2026-03-01T12:34:56.789Z` as `2026-03-01 12:34`; anything else as it is.
fn started(t: &str) -> String {
    match (t.get(..10), t.get(10..11), t.get(11..16)) {
        (Some(d), Some("T"), Some(hm)) => format!("{d} {hm}"),
        _ => t.to_string(),
    }
}

/// `; the closest: "NAME"` for the known name nearest `wanted` (by edit distance, ignoring case), or
/// `; it has none` / `; it has: A, B` when nothing is close; empty for an empty list of known names.
pub fn closest(wanted: &str, known: &[&str]) -> String {
    let mut names: Vec<&str> = known.to_vec();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return "; the library is empty".into();
    }
    let low = wanted.to_lowercase();
    let best = names
        .iter()
        .map(|n| (strsim::jaro_winkler(&low, &n.to_lowercase()), *n))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((score, n)) if score >= 0.8 => format!("; did you mean {n:?}?"),
        _ if names.len() <= 8 => format!(
            "; it has: {}",
            names
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => format!("; it has {} others (wkrun library list)", names.len()),
    }
}

/// `; its ids: 1, 2, 5` (or the first and last of many).
pub fn ids(entries: &[Entry]) -> String {
    let ids: Vec<i64> = entries.iter().map(|e| e.id).collect();
    match ids.as_slice() {
        [] => "; the library is empty".into(),
        [a, .., b] if ids.len() > 10 => format!("; its ids run from {a} to {b}"),
        _ => format!(
            "; its ids: {}",
            ids.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Better;

    fn fig(
        phase_index: usize,
        phase: &str,
        kind: PhaseKind,
        key: &str,
        value: f64,
    ) -> IndexedFigure {
        IndexedFigure {
            phase_index,
            phase: phase.into(),
            phase_kind: kind,
            key: key.into(),
            label: key.into(),
            value: Some(value),
            unit: "IOPS".into(),
            better: Some(Better::Higher),
        }
    }

    fn entry(figures: Vec<IndexedFigure>) -> Entry {
        Entry {
            id: 7,
            label: "drive 7".into(),
            spec: "lib".into(),
            target: "sim:capacity=512MiB,op=7%,dies=1".into(),
            started_at: "2026-03-01T12:34:56.789Z".into(),
            status: "completed".into(),
            figures,
        }
    }

    /// Workloads lead (a fill's figures come after them), a level headline figure before the phase's IOPS,
    /// the worst interval (not a level) never; a phase without a headline by its IOPS.
    #[test]
    fn leads_are_each_workloads_level_figure_then_its_iops() {
        let e = entry(vec![
            fig(0, "fill", PhaseKind::Fill, PHASE_IOPS, 900.0),
            fig(1, "w", PhaseKind::Workload, "window last 20m min", 100.0),
            fig(1, "w", PhaseKind::Workload, "window last 20m avg", 120.5),
            fig(1, "w", PhaseKind::Workload, PHASE_IOPS, 130.0),
            fig(2, "r", PhaseKind::Workload, PHASE_IOPS, 5000.25),
        ]);
        let l: Vec<String> = leads(&e, 3).into_iter().map(figure_text).collect();
        assert_eq!(
            l,
            [
                "w: 120.5 IOPS (window last 20m avg)",
                "r: 5000.2 IOPS (phase iops)",
                "fill: 900.0 IOPS (phase iops)"
            ]
        );
        let t = render(&[e]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines,
            [
                "id  label    spec  target                            started (UTC)     status     figures",
                " 7  drive 7  lib   sim:capacity=512MiB,op=7%,dies=1  2026-03-01 12:34  completed  w: 120.5 \
IOPS (window last 20m avg); r: 5000.2 IOPS (phase iops)"
            ]
        );
    }

    /// A stored target path of 3000 bytes (a results file's `target.path`) is cut to 80 characters, its
    /// length stated, and its control characters escaped: the line was 3,225 characters.
    #[test]
    fn a_long_stored_target_is_cut_and_escaped() {
        let mut e = entry(vec![fig(0, "r", PhaseKind::Workload, PHASE_IOPS, 10.0)]);
        e.target = format!("/d/\u{1b}[2J{}", "p".repeat(2993));
        assert_eq!(e.target.len(), 3000);
        let t = render(&[e]);
        let line = t.lines().nth(1).unwrap_or_default();
        let want = format!(
            " 7  drive 7  lib   /d/\\u{{1b}}[2J{}… (3000 bytes)  2026-03-01 12:34  completed  r: 10.0 IOPS (phase iops)",
            "p".repeat(80 - 12)
        );
        assert_eq!(line, want);
    }

    /// A phase that reached its steady state leads; within a phase, a figure of the state before a point
    /// (the fresh drive) gives way to a later level.
    #[test]
    fn the_steady_phase_and_the_state_after_the_point_lead() {
        let e = entry(vec![
            fig(0, "fresh", PhaseKind::Workload, "mean iops", 9000.0),
            fig(1, "w", PhaseKind::Workload, "fill_once before iops", 8000.0),
            fig(1, "w", PhaseKind::Workload, "fill_once after iops", 300.0),
            fig(
                1,
                "w",
                PhaseKind::Workload,
                crate::results::headline::STEADY_MEAN,
                250.5,
            ),
            fig(2, "v", PhaseKind::Workload, "fill_once before iops", 7000.0),
        ]);
        let l: Vec<String> = leads(&e, 3).into_iter().map(figure_text).collect();
        assert_eq!(
            l,
            [
                "w: 300.0 IOPS (fill_once after iops)",
                "fresh: 9000.0 IOPS (mean iops)",
                "v: 7000.0 IOPS (fill_once before iops)"
            ]
        );
    }

    /// A level of 0 cannot lead, as in `compare` (`can_lead`): a window in which nothing completed gives way
    /// to the phase's IOPS (the list showed `w: 0.0 IOPS (window last 5s avg)`).
    #[test]
    fn a_level_of_zero_gives_way_as_in_compare() {
        let e = entry(vec![
            fig(0, "w", PhaseKind::Workload, "window last 5s avg", 0.0),
            fig(0, "w", PhaseKind::Workload, PHASE_IOPS, 42.5),
        ]);
        let l: Vec<String> = leads(&e, 2).into_iter().map(figure_text).collect();
        assert_eq!(l, ["w: 42.5 IOPS (phase iops)"]);
    }

    #[test]
    fn closest_names_suggest_or_list() {
        assert_eq!(
            closest("drive 9", &["drive 1", "x"]),
            "; did you mean \"drive 1\"?"
        );
        assert_eq!(closest("zzz", &["a", "b", "a"]), "; it has: \"a\", \"b\"");
        assert_eq!(closest("zzz", &[]), "; the library is empty");
    }
}
