//! The report's list of the phases a run planned and never ran (it stopped early: a signal, a failure, a
//! resource limit, a kill), below the phases' sections and in the contents: each run's
//! [`crate::results::Results::not_run`].

use super::html::{esc, swatch};
use super::runs::RunData;
use crate::results::{PlannedPhase, Status, planned};
use std::fmt::Write as _;

/// A run's phases not run: the one it stopped in without writing its results, when its folder shows it
/// began ([`crate::results::Results::stopped_in`]), and the phases it planned and never ran after it.
pub struct NotRun<'a> {
    /// The run's place in the report's runs.
    pub run: usize,
    /// The phase it was in when it ended without writing its results.
    pub stopped_in: Option<&'a PlannedPhase>,
    /// The phases it planned and never ran ([`crate::results::Results::not_run`], that one left out).
    pub never: Vec<&'a PlannedPhase>,
}

/// Each run with a phase it stopped in or phases it never ran; runs that ran every phase left out.
pub fn runs_not_run(runs: &[RunData]) -> Vec<NotRun<'_>> {
    (runs.iter().enumerate())
        .map(|(i, r)| {
            let stopped_in = r.results.stopped_in(|p| planned::began_in(&r.file, p));
            let never = (r.results.not_run().into_iter())
                .filter(|p| stopped_in != Some(*p))
                .collect();
            NotRun {
                run: i,
                stopped_in,
                never,
            }
        })
        .filter(|n| n.stopped_in.is_some() || !n.never.is_empty())
        .collect()
}

/// The contents' words for a run's phases not run: `stopped in rw1 (...); not run: rw2, rw3`.
fn line(n: &NotRun<'_>) -> String {
    let stopped = n.stopped_in.map(|p| planned::stopped_in_words(&p.name));
    let never = planned::not_run_line(&n.never);
    stopped
        .into_iter()
        .chain(never)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why run `r` stopped before its planned phases, in words: `interrupted by SIGINT`, `failed: ERROR`,
/// `still running, or killed (its results say "running")`.
pub fn stopped(r: &RunData) -> String {
    let res = &r.results;
    match (res.status, &res.signal, &res.error) {
        (Status::Interrupted, Some(s), _) => format!("interrupted by {s}"),
        (Status::Failed, _, Some(e)) => format!("failed: {e}"),
        (Status::Running, _, _) => "still running, or killed (its results say \"running\")".into(),
        (s, _, _) => s.word().into(),
    }
}

/// The contents' entries: one per run with phases not run, `not run: rw2, rw3` (after the run's label when
/// the report has several runs), linking to the list ([`html_section`]); empty when every run ran all.
pub fn contents(runs: &[RunData]) -> String {
    let mut o = String::new();
    for n in runs_not_run(runs) {
        let (i, line) = (n.run, line(&n));
        let whose = match runs.len() {
            1 => String::new(),
            _ => format!("{}: ", runs[i].label),
        };
        let _ = writeln!(
            o,
            "<li><a href=\"#not-run\">{}</a></li>",
            esc(&format!("{whose}{line}"))
        );
    }
    match o.is_empty() {
        true => o,
        false => format!("<ul class=\"toc\">\n{o}</ul>\n"),
    }
}

/// The section listing each run's phases not run, by number, name and kind, with why the run stopped
/// ([`stopped`]); empty when every run ran all it planned.
pub fn html_section(runs: &[RunData]) -> String {
    let mut o = String::new();
    for nr in runs_not_run(runs) {
        let (r, list) = (&runs[nr.run], &nr.never);
        let n = list.len();
        let phases = format!("{n} planned phase{}", if n == 1 { "" } else { "s" });
        let said = match nr.stopped_in {
            Some(p) if n == 0 => planned::stopped_in_words(&p.name),
            Some(p) => format!(
                "{}, and {phases} after it never ran",
                planned::stopped_in_words(&p.name)
            ),
            None => format!(
                "{phases} never ran: the run stopped before {} ({})",
                if n == 1 { "it" } else { "them" },
                stopped(r)
            ),
        };
        let _ = writeln!(
            o,
            "<p class=\"meta\">{}{}: {}.</p>",
            swatch(nr.run),
            esc(&r.label),
            esc(&said)
        );
        if n == 0 {
            continue;
        }
        o.push_str(
            "<div class=\"scroll\"><table><thead><tr><th>phase</th><th class=\"l\">name</th>\
<th class=\"l\">kind</th></tr></thead><tbody>\n",
        );
        for p in list {
            let _ = writeln!(
                o,
                "<tr><td>{:02}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
                p.index,
                esc(&p.name),
                p.kind.as_str()
            );
        }
        o.push_str("</tbody></table></div>\n");
    }
    match o.is_empty() {
        true => o,
        false => format!("<section id=\"not-run\">\n<h2>Not run</h2>\n{o}</section>\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::spec::PhaseKind;

    fn planned(index: usize, name: &str) -> PlannedPhase {
        PlannedPhase {
            index,
            name: name.into(),
            kind: PhaseKind::Workload,
        }
    }

    /// A run interrupted in the first of three workloads: the other two are listed, numbered as the run
    /// numbers them, with the signal; the contents link to them.
    #[test]
    fn a_run_stopped_in_its_first_phase_lists_the_two_after_it() {
        let mut run = testing::run("x", "t", vec![(testing::phase("rw1", 0), None)]);
        run.results.status = Status::Interrupted;
        run.results.signal = Some("SIGINT".into());
        run.results.phases[0].completed = false;
        run.results.planned_phases = Some(vec![
            planned(0, "rw1"),
            planned(1, "rw2"),
            planned(2, "rw3"),
        ]);
        let runs = [run];
        assert_eq!(
            contents(&runs),
            "<ul class=\"toc\">\n<li><a href=\"#not-run\">not run: rw2, rw3</a></li>\n</ul>\n"
        );
        assert_eq!(
            html_section(&runs),
            format!(
                "<section id=\"not-run\">\n<h2>Not run</h2>\n<p class=\"meta\">{}x: 2 planned phases never \
ran: the run stopped before them (interrupted by SIGINT).</p>\n<div class=\"scroll\"><table><thead><tr>\
<th>phase</th><th class=\"l\">name</th><th class=\"l\">kind</th></tr></thead><tbody>\n<tr><td>01</td>\
<td class=\"l\">rw2</td><td class=\"l\">workload</td></tr>\n<tr><td>02</td><td class=\"l\">rw3</td>\
<td class=\"l\">workload</td></tr>\n</tbody></table></div>\n</section>\n",
                swatch(0)
            )
        );
        // Completed, or without a plan (older results): nothing.
        let mut done = runs[0].clone();
        done.results.status = Status::Completed;
        let mut old = runs[0].clone();
        old.results.planned_phases = None;
        assert_eq!(html_section(&[done.clone(), old.clone()]), "");
        assert_eq!(contents(&[done, old]), "");
    }
}
