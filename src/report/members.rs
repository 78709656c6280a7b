//! The members of a sweep (or the values of a matrix list) compared within a run: `wkrun compare RESULTS
//! --by NAME`, and the same table in the HTML report.
//!
//! Each run is split into one column per value of the label `NAME` (a sweep's name, or a matrix key such as
//! `bs`), in order of first appearance; a column holds the phases with that value, renamed to their name
//! without it (`4k-random-write-qd1[filled=100%]` becomes `4k-random-write-qd1`), so that
//! [`compare::compare`] pairs each member's phase with its twin in the first column and gives the change
//! against it. Phases without the label are left out. The composite ([`compare::composite`]) is taken
//! over the workload phases only: a fill or an image restore prepares the drive state a sweep varies (its
//! parameters differ between members by design), it is not what the sweep measures.

use super::compare::{self, Cell, Comparison, Metric, Run};
use super::html::{change_span, esc};
use super::runs::RunData;
use crate::results::{Better, PhaseResult, Results};
use crate::spec::Label;
use std::fmt::Write as _;

/// The name a label goes by in phase names and in `--by`: its sweep's name, else its key (`filled`, `bs`).
pub fn label_name(l: &Label) -> &str {
    l.sweep.as_deref().unwrap_or(&l.key)
}

/// The value of the label named `by` on phase `p`, if it has one.
pub(crate) fn value_of<'a>(p: &'a PhaseResult, by: &str) -> Option<&'a str> {
    p.labels
        .iter()
        .find(|l| label_name(l) == by)
        .map(|l| l.value.as_str())
}

/// The values of the label `by` among the run's phases, in order of first appearance.
pub fn values(results: &Results, by: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in &results.phases {
        if let Some(v) = value_of(p, by)
            && !out.iter().any(|o| o == v)
        {
            out.push(v.to_string());
        }
    }
    out
}

/// Every label name in the run (sweeps first as they come), in order of first appearance.
fn label_names(results: &Results) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in results.phases.iter().flat_map(|p| &p.labels) {
        if !out.iter().any(|o| o == label_name(l)) {
            out.push(label_name(l).to_string());
        }
    }
    out
}

/// Phase `p`'s name without the label `by`: the name before `[`, then its other labels in brackets.
pub fn pair_name(p: &PhaseResult, by: &str) -> String {
    let base = p.name.split('[').next().unwrap_or(&p.name);
    let rest: Vec<String> = p
        .labels
        .iter()
        .filter(|l| label_name(l) != by)
        .map(|l| format!("{}={}", label_name(l), l.value))
        .collect();
    match rest.is_empty() {
        true => base.to_string(),
        false => format!("{base}[{}]", rest.join(",")),
    }
}

/// `results` with only the phases `keep` accepts.
fn with_phases(results: &Results, keep: impl Fn(&PhaseResult) -> bool) -> Results {
    let mut out = results.envelope();
    // Part of a run, its phases renamed: not the run's plan.
    out.planned_phases = None;
    out.from_phase = None;
    out.phases = results.phases.iter().filter(|p| keep(p)).cloned().collect();
    out
}

/// Splits each run into one run per value of the label `by`: the column headers (`filled=25%`, or the run's
/// header then `filled=25%` when there are several runs) and the runs, each with its value's phases
/// renamed by [`pair_name`]. An error, naming `--by`, when a run has no such label or there are fewer than
/// two columns. A stream seed drawn from a phase's seed and name (every run's) is left out: it is no
/// parameter of the member's own (`compare::derived_seed`).
pub fn split(runs: &[Run], by: &str) -> Result<(Vec<String>, Vec<Run>), String> {
    let heads = compare::headers(runs);
    let (mut columns, mut parts) = (Vec::new(), Vec::new());
    for (run, head) in runs.iter().zip(&heads) {
        let vals = values(&run.results, by);
        if vals.is_empty() {
            let names = label_names(&run.results);
            return Err(format!(
                "--by {by}: no phase of {} has a label {by} (its labels: {})",
                run.file.display(),
                match names.is_empty() {
                    true => "none".to_string(),
                    false => names.join(", "),
                }
            ));
        }
        for v in vals {
            let mut results = with_phases(&run.results, |p| value_of(p, by) == Some(v.as_str()));
            for p in &mut results.phases {
                // Trial 27 L1: a stream seed drawn from the member's own name differs from member to
                // member; renamed, it would no longer be seen as derived ([`compare::derived_seed`]) and
                // made the parameters that differ about 250 columns wide on every phase.
                if compare::derived_seed(p) {
                    p.params.stream_seed = None;
                }
                p.name = pair_name(p, by);
            }
            columns.push(match runs.len() {
                1 => format!("{by}={v}"),
                _ => format!("{head} {by}={v}"),
            });
            parts.push(Run {
                file: run.file.clone(),
                results,
            });
        }
    }
    if parts.len() < 2 {
        return Err(format!(
            "--by {by}: {} has one value of {by} ({}): nothing to compare",
            runs[0].file.display(),
            columns.join(", ")
        ));
    }
    Ok((columns, parts))
}

/// The members of the sweep (or matrix list) `by` side by side, the first being the baseline: the rows of
/// [`compare::compare`] on [`split`]'s columns, the composite taken over the workloads only.
pub fn compare_by(runs: &[Run], by: &str) -> Result<Comparison, String> {
    let (columns, parts) = split(runs, by)?;
    let mut c = compare::compare(&parts);
    let workloads: Vec<Results> = parts
        .iter()
        .map(|r| with_phases(&r.results, compare::is_workload))
        .collect();
    let workloads: Vec<&Results> = workloads.iter().collect();
    // A member's parts keep no planned phases: none was stopped in.
    let scores = compare::scores(&workloads, &[]);
    let label = format!(
        "composite of the workloads (geometric mean of ratios to {})",
        columns[0]
    );
    c.rows.retain(|r| r.metric != Metric::Composite);
    let mut row = compare::composite_row(&scores, label);
    row.note = compare::composite_note(&workloads, &scores);
    c.rows.push(row);
    c.columns = columns;
    Ok(c)
}

/// The sweeps of a run with two members or more, by name, in order of first appearance.
pub(super) fn sweeps(results: &Results) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in results.phases.iter().flat_map(|p| &p.labels) {
        if let Some(s) = &l.sweep
            && !out.contains(s)
            && values(results, s).len() >= 2
        {
            out.push(s.clone());
        }
    }
    out
}

/// The rows the report shows of a comparison by members: each phase's headline figures (its total IOPS
/// when it has none), then the composite; each with its label as shown ([`compare::marked_labels`]).
fn report_rows(c: &Comparison) -> Vec<(&compare::Row, String)> {
    let mut out: Vec<(&compare::Row, String)> = Vec::new();
    let labels = compare::marked_labels(c);
    for (i, r) in c.rows.iter().enumerate() {
        let first_of_phase = i == 0 || c.rows[i - 1].phase != r.phase;
        let has_headline = c
            .rows
            .iter()
            .any(|q| q.phase == r.phase && matches!(q.metric, Metric::Headline { .. }));
        let keep = match r.metric {
            Metric::Headline { .. } | Metric::Composite => true,
            Metric::TotalIops => !has_headline,
            _ => false,
        };
        if keep || (first_of_phase && r.metric == Metric::Parameters) {
            out.push((r, labels[i].clone()));
        }
    }
    out
}

/// Which way is better for a row of a comparison of `results`' members: a headline figure's own direction
/// (found by its label among the run's figures), more IOPS and bandwidth, less latency, a higher composite;
/// `None` for text rows.
fn better_of(results: &Results, r: &compare::Row) -> Option<Better> {
    match r.metric {
        Metric::Headline { .. } => results
            .phases
            .iter()
            .flat_map(|p| &p.headline)
            .find(|f| compare::figure_label(f) == r.label)
            .and_then(|f| f.better),
        Metric::TotalIops | Metric::Iops(_) | Metric::Bandwidth | Metric::Composite => {
            Some(Better::Higher)
        }
        Metric::Lat(..) | Metric::TotalLat(_) | Metric::WriteAmplification => Some(Better::Lower),
        _ => None,
    }
}

/// One HTML table of a comparison by members of `results`, each change coloured worse or better
/// ([`change_span`]).
fn table(o: &mut String, c: &Comparison, results: &Results) {
    o.push_str("<div class=\"scroll\"><table><thead><tr><th class=\"l\">phase</th><th class=\"l\">figure</th>");
    for col in &c.columns {
        let _ = write!(o, "<th>{}</th>", esc(col));
    }
    o.push_str("</tr></thead><tbody>\n");
    for (r, label) in report_rows(c) {
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>",
            esc(&r.phase),
            esc(&label)
        );
        for cell in &r.cells {
            let class = match cell {
                Cell::Text(_) => " class=\"l\"",
                _ => "",
            };
            let text = match cell {
                Cell::Number {
                    value,
                    change_pct: Some(pct),
                } => format!(
                    "{} {}",
                    esc(&r.metric.format_value(*value)),
                    change_span(*pct, better_of(results, r))
                ),
                _ => esc(&cell.display(r.metric)),
            };
            let _ = write!(o, "<td{class}>{text}</td>");
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table></div>\n");
    for (k, n) in compare::notes(c).iter().enumerate() {
        let _ = writeln!(o, "<p class=\"meta\">[{}] {}</p>", k + 1, esc(n));
    }
}

/// The report's section comparing each sweep's members within each run, as `wkrun compare RESULTS --by
/// SWEEP` does (headline figures, the parameters the sweep changed, the composite of the workloads);
/// empty when no run has a sweep of two members or more.
pub fn html_section(runs: &[RunData]) -> String {
    let mut o = String::new();
    for run in runs {
        let one = [Run {
            file: run.file.clone(),
            results: run.results.clone(),
        }];
        for s in sweeps(&run.results) {
            let Ok(c) = compare_by(&one, &s) else {
                continue;
            };
            let _ = writeln!(
                o,
                "<h3>{}: sweep {} against {}</h3>\n<p class=\"meta\">Each member's phases against the first \
member's, as <code>wkrun compare {} --by {}</code> gives them.</p>",
                esc(&run.label),
                esc(&s),
                esc(&c.columns[0]),
                esc(&run.file.display().to_string()),
                esc(&s)
            );
            table(&mut o, &c, &run.results);
        }
    }
    if o.is_empty() {
        return o;
    }
    format!("<section id=\"members\">\n<h2>Sweep members compared</h2>\n{o}</section>\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::DirStats;
    use crate::target::TargetKind;

    fn label(key: &str, value: &str, sweep: Option<&str>) -> Label {
        Label {
            key: key.into(),
            value: value.into(),
            sweep: sweep.map(String::from),
        }
    }

    /// A 1-second workload of `iops` writes, labelled.
    fn phase(name: &str, labels: Vec<Label>, iops: u64) -> PhaseResult {
        let mut p = testing::phase(name, 0);
        p.labels = labels;
        p.write = DirStats::new(iops, iops * 4096, 1.0, None);
        p
    }

    fn run(file: &str, phases: Vec<PhaseResult>) -> Run {
        Run {
            file: file.into(),
            results: testing::results(
                "s",
                "2026-01-01T00:00:00Z",
                "/dev/x",
                TargetKind::File,
                phases,
            ),
        }
    }

    fn sweep_run(file: &str, fresh: [u64; 2], used: [u64; 2]) -> Run {
        let s = |v: &str| label("span", v, Some("state"));
        run(
            file,
            vec![
                phase("a[state=25%]", vec![s("25%")], fresh[0]),
                phase(
                    "b[state=25%,bs=4KiB]",
                    vec![s("25%"), label("bs", "4KiB", None)],
                    fresh[1],
                ),
                phase("a[state=100%]", vec![s("100%")], used[0]),
                phase(
                    "b[state=100%,bs=4KiB]",
                    vec![s("100%"), label("bs", "4KiB", None)],
                    used[1],
                ),
                phase("plain", vec![], 7),
            ],
        )
    }

    #[test]
    fn pair_names_drop_only_the_label_compared_by() {
        let p = phase(
            "lat[state=25%,bs=4KiB,read=65]",
            vec![
                label("span", "25%", Some("state")),
                label("bs", "4KiB", None),
                label("read", "65", None),
            ],
            1,
        );
        assert_eq!(pair_name(&p, "state"), "lat[bs=4KiB,read=65]");
        assert_eq!(pair_name(&p, "bs"), "lat[state=25%,read=65]");
        assert_eq!(pair_name(&p, "span"), "lat[state=25%,bs=4KiB,read=65]");
    }

    #[test]
    fn members_pair_by_their_other_labels_and_the_composite_is_the_geometric_mean() {
        let c = compare_by(
            &[sweep_run("x/results.json", [100, 400], [81, 100])],
            "state",
        )
        .expect("compare");
        assert_eq!(c.columns, ["state=25%", "state=100%"]);
        let row = c.row("a", Metric::TotalIops).expect("a");
        assert_eq!(row.cells[1].change_number(), "-19.0");
        let row = c.row("b[bs=4KiB]", Metric::TotalIops).expect("b");
        assert_eq!(row.cells[1].change_number(), "-75.0");
        assert!(c.rows.iter().all(|r| r.phase != "plain"));
        // √(0.81 · 0.25) = 0.45.
        let last = c.rows.last().expect("composite");
        assert_eq!(
            last.label,
            "composite of the workloads (geometric mean of ratios to state=25%)"
        );
        assert_eq!(last.cells[0].plain(Metric::Composite), "1.000");
        assert_eq!(last.cells[1].plain(Metric::Composite), "0.450");
        assert_eq!(last.cells[1].change_number(), "-55.0");
    }

    #[test]
    fn several_runs_give_a_column_per_run_and_member_against_the_first() {
        let runs = [
            sweep_run("fresh/results.json", [100, 400], [81, 100]),
            sweep_run("used/results.json", [50, 400], [50, 400]),
        ];
        let c = compare_by(&runs, "state").expect("compare");
        assert_eq!(
            c.columns,
            [
                "fresh state=25%",
                "fresh state=100%",
                "used state=25%",
                "used state=100%"
            ]
        );
        let row = c.row("a", Metric::TotalIops).expect("a");
        let changes: Vec<String> = row.cells.iter().map(Cell::change_number).collect();
        assert_eq!(changes, ["", "-19.0", "-50.0", "-50.0"]);
    }

    #[test]
    fn a_label_missing_or_with_one_value_is_an_error_naming_by() {
        let runs = [sweep_run("x/results.json", [1, 1], [1, 1])];
        assert_eq!(
            compare_by(&runs, "op").unwrap_err(),
            "--by op: no phase of x/results.json has a label op (its labels: state, bs)"
        );
        assert_eq!(
            compare_by(&runs, "bs").unwrap_err(),
            "--by bs: x/results.json has one value of bs (bs=4KiB): nothing to compare"
        );
        let plain = [run("y/results.json", vec![phase("p", vec![], 1)])];
        assert_eq!(
            compare_by(&plain, "state").unwrap_err(),
            "--by state: no phase of y/results.json has a label state (its labels: none)"
        );
    }
}
