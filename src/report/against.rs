//! The report's section against the results library (`wkrun report RESULTS --against-library [N]`): the
//! first run's headline figures, each ranked among the library's runs of the same spec
//! ([`super::chart::ranked`]), and the list of those runs.

use super::chart::PlotError;
use super::chart::ranked::{ranked_chart, ranked_figures};
use super::compare::overrides_text;
use super::html::esc;
use super::model::{Figure, Options, Report};
use super::runs::RunData;
use crate::results::outdir::slug;
use std::fmt::Write;

/// The runs the first of `runs` is ranked among: the other runs given, then the library's
/// (`opts.against`, which holds none of the runs given); each once.
fn others<'a>(runs: &'a [RunData], opts: &'a Options) -> Vec<&'a RunData> {
    runs.iter().skip(1).chain(&opts.against).collect()
}

/// The ranked charts of the first of `runs` among the other runs given and `opts.against`, one per figure
/// that some other run has too, named `ranked-NN-<phase>-<figure>.svg`; none without library runs.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn figures(runs: &[RunData], opts: &Options) -> Result<Vec<Figure>, PlotError> {
    let Some(this) = runs.first().filter(|_| !opts.against.is_empty()) else {
        return Ok(Vec::new());
    };
    ranked_figures(this, &others(runs, opts))
        .iter()
        .enumerate()
        .map(|(i, f)| {
            Ok(Figure {
                file: format!(
                    "ranked-{:02}-{}-{}.svg",
                    i + 1,
                    slug(&f.phase),
                    slug(&f.key)
                ),
                chart: ranked_chart(f, &this.results.spec.name)?,
            })
        })
        .collect()
}

/// The section: a table of the runs ranked (name, target, start: the runs given, then the library's), then
/// the charts; empty without library runs.
pub fn html_section(runs: &[RunData], report: &Report, opts: &Options) -> String {
    let Some(this) = runs.first().filter(|_| !opts.against.is_empty()) else {
        return String::new();
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<section id=\"library\">\n<h2>Against the library</h2>\n<p class=\"meta\">{} beside the results \
library's {} run{} of spec {}{}: each headline figure with a direction, best at the top (<code>wkrun \
report --against-library</code>).</p>",
        esc(&this.label),
        opts.against.len(),
        if opts.against.len() == 1 { "" } else { "s" },
        esc(&this.results.spec.name),
        match runs.len() - 1 {
            0 => String::new(),
            1 => " and the other run given".to_string(),
            n => format!(" and the other {n} runs given"),
        }
    );
    // The `--set` overrides when they differ: a run made with others is not ranked (trial 26 L7).
    let all = || runs.iter().chain(&opts.against);
    let sets = all().any(|r| r.results.spec.overrides != this.results.spec.overrides);
    let _ = writeln!(
        o,
        "<table>\n<thead><tr><th>run</th><th>target</th><th>started</th>{}</tr></thead>\n<tbody>",
        if sets { "<th>--set</th>" } else { "" }
    );
    for r in all() {
        let set = match sets {
            true => format!(
                "<td>{}</td>",
                esc(&overrides_text(&r.results.spec.overrides))
            ),
            false => String::new(),
        };
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td>{set}</tr>",
            esc(&r.label),
            esc(&r.target_name()),
            esc(&r.results.started_at)
        );
    }
    o.push_str("</tbody>\n</table>\n");
    if report.ranked.is_empty() {
        o.push_str(
            "<p class=\"meta\">No headline figure of this run is in the library's runs.</p>\n",
        );
    }
    super::html::figures(&mut o, &report.ranked, opts.png);
    o.push_str("</section>\n");
    o
}
