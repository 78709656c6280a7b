//! The report's list of the phases a run planned and never ran (it stopped early: a signal, a failure, a
//! resource limit, a kill), and of those it took as done (it started with `--from` past them), below the
//! phases' sections and in the contents: each run's [`crate::results::Results::not_run`] and
//! `from_phase` ([`crate::results::FromPhase`]).

use super::html::{esc, swatch};
use super::runs::RunData;
use crate::results::{FromPhase, PlannedPhase, Results, Status, planned};
use std::fmt::Write as _;
use std::path::Path;

/// A run's phases not run: the one it stopped in without writing its results, when its results or its
/// folder show it began ([`crate::results::Results::stopped_in`]), and the phases it planned and never ran after it.
pub struct NotRun<'a> {
    /// The phase it was in when it ended without writing its results.
    pub stopped_in: Option<&'a PlannedPhase>,
    /// The phases it planned and never ran ([`crate::results::Results::not_run`], that one left out).
    pub never: Vec<&'a PlannedPhase>,
}

impl NotRun<'_> {
    /// What run `r` did not run.
    pub fn of(r: &RunData) -> NotRun<'_> {
        let stopped_in = stopped_in(&r.results, &r.file);
        let never = (r.results.not_run().into_iter())
            .filter(|p| stopped_in != Some(*p))
            .collect();
        NotRun { stopped_in, never }
    }

    /// The contents' words: `stopped in rw1 (...); not run: rw2, rw3`; `None` when it ran every phase.
    fn line(&self) -> Option<String> {
        let stopped = self.stopped_in.map(|p| planned::stopped_in_words(&p.name));
        let never = planned::not_run_line(&self.never);
        let both: Vec<String> = stopped.into_iter().chain(never).collect();
        (!both.is_empty()).then(|| both.join("; "))
    }

    /// The section's sentence for run `r`: where it stopped and how many phases never ran after it, or
    /// how many never ran and why it stopped ([`stopped`]); `None` when it ran every phase.
    fn said(&self, r: &RunData) -> Option<String> {
        let n = self.never.len();
        let phases = format!("{n} planned phase{}", if n == 1 { "" } else { "s" });
        Some(match self.stopped_in {
            Some(p) if n == 0 => planned::stopped_in_words(&p.name),
            Some(p) => format!(
                "{}, and {phases} after it never ran",
                planned::stopped_in_words(&p.name)
            ),
            None if n == 0 => return None,
            None => format!(
                "{phases} never ran: the run stopped before {} ({})",
                if n == 1 { "it" } else { "them" },
                stopped(r)
            ),
        })
    }
}

/// The planned phase run `results` (read from `file`, its `results.json`) was in when it ended without
/// writing its results ([`crate::results::Results::stopped_in`], with [`planned::began_in`]): the one
/// definition for the report's list and `compare`'s composite (attack 25 F6: compare said `not run` of the
/// phase the report said the run stopped in).
pub fn stopped_in<'a>(results: &'a Results, file: &Path) -> Option<&'a PlannedPhase> {
    results.stopped_in(file)
}

/// The name of the phase each run (`(results, file)`) was in when it ended without writing its results
/// ([`stopped_in`]), as `compare`'s composite takes them ([`super::compare::scores`]).
pub fn stopped_in_names<'a>(
    runs: impl Iterator<Item = (&'a Results, &'a Path)>,
) -> Vec<Option<&'a str>> {
    runs.map(|(r, f)| stopped_in(r, f).map(|p| p.name.as_str()))
        .collect()
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

/// The contents' entries: one per run with phases taken as done, `taken as done (--from rw2): rw1`, and
/// one per run with phases not run, `not run: rw2, rw3` (or `stopped in rw1 (...); not run: rw2, rw3`,
/// [`NotRun`]) (each after the run's label when the report has several runs), linking to the list
/// ([`html_section`]); empty when every run ran all from its first.
pub fn contents(runs: &[RunData]) -> String {
    let mut o = String::new();
    for r in runs {
        let whose = match runs.len() {
            1 => String::new(),
            _ => format!("{}: ", r.label),
        };
        let taken = r.results.from_phase.as_ref().map(FromPhase::line);
        let not_run = NotRun::of(r).line();
        for line in taken.into_iter().chain(not_run) {
            let _ = writeln!(
                o,
                "<li><a href=\"#not-run\">{}</a></li>",
                esc(&format!("{whose}{line}"))
            );
        }
    }
    match o.is_empty() {
        true => o,
        false => format!("<ul class=\"toc\">\n{o}</ul>\n"),
    }
}

/// The section listing, for each run, the phases it took as done (`taken as done (--from rw2)`) and those
/// it planned and never ran, with where or why it stopped ([`NotRun`]), each by number, name and kind;
/// empty when every run ran all from its first.
pub fn html_section(runs: &[RunData]) -> String {
    let mut o = String::new();
    for (i, r) in runs.iter().enumerate() {
        if let Some(f) = &r.results.from_phase {
            let n = f.taken_as_done.len();
            let _ = writeln!(
                o,
                "<p class=\"meta\">{}{}: {n} phase{} {}: the run started at phase {}.</p>",
                swatch(i),
                esc(&r.label),
                if n == 1 { "" } else { "s" },
                esc(&f.said()),
                f.index
            );
            table(&mut o, &f.taken_as_done.iter().collect::<Vec<_>>());
        }
        let nr = NotRun::of(r);
        let Some(said) = nr.said(r) else { continue };
        let _ = writeln!(
            o,
            "<p class=\"meta\">{}{}: {}.</p>",
            swatch(i),
            esc(&r.label),
            esc(&said)
        );
        if !nr.never.is_empty() {
            table(&mut o, &nr.never);
        }
    }
    match o.is_empty() {
        true => o,
        false => format!("<section id=\"not-run\">\n<h2>Not run</h2>\n{o}</section>\n"),
    }
}

/// A table of `phases`: number, name, kind.
fn table(o: &mut String, phases: &[&PlannedPhase]) {
    o.push_str(
        "<div class=\"scroll\"><table><thead><tr><th>phase</th><th class=\"l\">name</th>\
<th class=\"l\">kind</th></tr></thead><tbody>\n",
    );
    for p in phases {
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

    /// A completed run from `--from rw3`: its two phases taken as done, as its results record them, listed
    /// and in the contents, with the phase it started at.
    #[test]
    fn a_run_from_a_later_phase_lists_the_phases_it_took_as_done() {
        let mut run = testing::run("x", "t", vec![(testing::phase("rw3", 0), None)]);
        run.results.phases[0].index = 2;
        run.results.planned_phases = Some(vec![planned(2, "rw3")]);
        run.results.from_phase = Some(FromPhase {
            index: 2,
            name: "rw3".into(),
            taken_as_done: vec![planned(0, "rw1"), planned(1, "rw2")],
        });
        let runs = [run];
        assert_eq!(
            contents(&runs),
            "<ul class=\"toc\">\n<li><a href=\"#not-run\">taken as done (--from rw3): rw1, rw2</a></li>\n</ul>\n"
        );
        assert_eq!(
            html_section(&runs),
            format!(
                "<section id=\"not-run\">\n<h2>Not run</h2>\n<p class=\"meta\">{}x: 2 phases taken as done \
(--from rw3): the run started at phase 2.</p>\n<div class=\"scroll\"><table><thead><tr>\
<th>phase</th><th class=\"l\">name</th><th class=\"l\">kind</th></tr></thead><tbody>\n<tr><td>00</td>\
<td class=\"l\">rw1</td><td class=\"l\">workload</td></tr>\n<tr><td>01</td><td class=\"l\">rw2</td>\
<td class=\"l\">workload</td></tr>\n</tbody></table></div>\n</section>\n",
                swatch(0)
            )
        );
    }
}
