//! The report's `index.html`: a header naming the spec, target and host of every run (with a marked place
//! for a headline table before it), then the results (per sweep: a matrix's table and the charts; per
//! phase: the summary table and the plots), then the fills that prepared the drive. Self-contained: the
//! SVG plots inline (each also in its file beside the page), inline CSS, no script, nothing loaded from the
//! network.

use super::chart::palette::hex;
use super::chart::{colour, short_number};
use super::compare;
use super::model::{Figure, Options, Part, PhaseSection, Report, SectionRef, SweepSection};
use super::runs::RunData;
use super::table::{Latency, MatrixTable};
use crate::results::headline::Covers;
use crate::results::{Better, DirStats, PhaseResult, Status};
use crate::vocab::Direction;
use std::fmt::Write;

/// Escapes text for HTML element content and double-quoted attributes; control characters (but tab, line
/// feed and carriage return) are left out (the one escaping the charts use too).
pub use super::chart::canvas::xml as esc;

/// Escapes a relative file name for an attribute URL: every byte outside `A-Za-z0-9._-` percent-encoded.
fn url(file: &str) -> String {
    let mut o = String::new();
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
            o.push(b as char);
        } else {
            let _ = write!(o, "%{b:02X}");
        }
    }
    o
}

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
  margin: 0 auto; max-width: 1500px; padding: 1.5rem; color: #1f2328; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 .4rem; padding-top: .6rem; border-top: 1px solid #d0d7de; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .3rem; }
p.meta, p.params { color: #57606a; margin: .2rem 0 .6rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .86rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: right; vertical-align: top; }
th { background: #f6f8fa; }
td.l, th.l { text-align: left; }
.scroll { overflow-x: auto; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .35rem;
  vertical-align: -1px; }
figure { margin: 1rem 0 1.6rem; }
figure svg { width: 100%; height: auto; border: 1px solid #d0d7de; display: block; }
h2.part { font-size: 1.4rem; color: #57606a; }
table.matrix td { text-align: left; }
details summary { cursor: pointer; color: #0969da; margin: .4rem 0; }
figcaption { font-size: .85rem; color: #57606a; margin-top: .3rem; }
ul.toc { columns: 2; font-size: .9rem; }
.warn { color: #9a6700; }
footer { margin-top: 3rem; font-size: .8rem; color: #57606a; }
ul.drives { list-style: none; padding: 0; margin: .3rem 0 1rem; display: flex; flex-wrap: wrap;
  gap: .25rem 1.4rem; }
ul.drives li { white-space: nowrap; }
.swatch.dashed { height: 0; border-top: 3px dashed currentColor; border-radius: 0; vertical-align: middle; }
.worse { color: #b2182b; font-weight: 600; }
.better { color: #2166ac; }
td.l { overflow-wrap: anywhere; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { max-width: none; padding: 0; font-size: 9pt; line-height: 1.3; }
  h1 { font-size: 15pt; }
  h2 { font-size: 12pt; break-after: avoid; }
  nav { display: none; }
  .scroll { overflow: visible; }
  table { font-size: 6.5pt; width: 100%; }
  th, td { padding: .1rem .2rem; overflow-wrap: anywhere; }
  figure { break-inside: avoid; margin: .4rem 0 .8rem; }
  figure svg { border: none; }
  figcaption { font-size: 7.5pt; }
  a { color: inherit; text-decoration: none; }
  .swatch { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
";

/// The drive's swatch: a square in its colour (that of its points in every chart).
pub fn swatch(run: usize) -> String {
    format!(
        "<span class=\"swatch\" style=\"background:{}\"></span>",
        hex(colour(run))
    )
}

/// Changes smaller than this, in percent, are shown plain, neither better nor worse: two runs of one spec on
/// one drive differ by about this much (the simulated drive's fills of two runs differ by up to 1.9 %; a
/// −0.3 % change shown bold red read as a regression).
pub const NOISE_PCT: f64 = 2.0;

/// A change against the first run, `(+12.0 %)`, in a span classed `worse` when it goes the way that is
/// worse (down where higher is better; up where lower is better: a latency or a spread that grows),
/// `better` the other way, plain when it is smaller than [`NOISE_PCT`] as shown (to 0.1 %) or the figure has no direction.
pub fn change_span(pct: f64, better: Option<Better>) -> String {
    let text = compare::format_change(pct);
    let r = (pct * 10.0).round();
    let class = match better {
        Some(_) if r.abs() < NOISE_PCT * 10.0 => None,
        Some(Better::Higher) => Some(if r < 0.0 { "worse" } else { "better" }),
        Some(Better::Lower) => Some(if r > 0.0 { "worse" } else { "better" }),
        None => None,
    };
    match class {
        Some(c) => format!("<span class=\"{c}\">({})</span>", esc(&text)),
        None => format!("({})", esc(&text)),
    }
}

/// The legend of the page, under its title: each drive's swatch and label, in run order.
fn drives_legend(o: &mut String, runs: &[RunData]) {
    o.push_str(
        "<ul class=\"drives\" aria-label=\"one colour per drive in every chart and table\">",
    );
    for (i, r) in runs.iter().enumerate() {
        match prediction_note(runs, i) {
            Some(note) => {
                let c = hex(crate::report::chart::predicted::run_colour(runs, i));
                let _ = write!(
                    o,
                    "<li class=\"prediction\"><span class=\"swatch dashed\" style=\"color:{c}\"></span>{} {}</li>",
                    esc(&r.label),
                    esc(&note)
                );
            }
            None => {
                let _ = write!(o, "<li>{}{}</li>", swatch(i), esc(&r.label));
            }
        }
    }
    o.push_str("</ul>\n");
}

/// What run `i` predicts, when it is a prediction: `(prediction on sim:... fitted to MEASURED; PAIRED)`
/// (`sim:..., a drive given with --fitted, not fitted to MEASURED` when `prediction.target_given`),
/// MEASURED being the measured run's number and label when it is in the report, else its results file,
/// and PAIRED the run it is drawn over ([`crate::report::chart::predicted::measured_run`]): `dashed over
/// it in the charts` when that is MEASURED, `paired with run N (LABEL), a run of its spec: dashed over it
/// in the charts` when it is another, `dashed in the charts; no run of its spec and phases with their
/// workloads in this report to pair it with` when there is none; then `; its fit warned: ...` with the
/// fit's warnings when it had any (`prediction.fit_warnings`).
fn prediction_note(runs: &[RunData], i: usize) -> Option<String> {
    use crate::report::chart::predicted::{fitted_run, measured_run};
    let p = runs[i].results.prediction.as_ref()?;
    let run = |m: usize| format!("run {} ({})", m + 1, runs[m].label);
    let fitted = fitted_run(runs, i);
    let paired = match measured_run(runs, i) {
        Some(m) if Some(m) == fitted => "dashed over it in the charts".to_string(),
        Some(m) => format!(
            "paired with {}, a run of its spec: dashed over it in the charts",
            run(m)
        ),
        None => {
            "dashed in the charts; no run of its spec and phases with their workloads in this report to pair it with"
                .to_string()
        }
    };
    let warned = match p.fit_warnings.as_slice() {
        [] => String::new(),
        w => format!("; its fit warned: {}", w.join("; ")),
    };
    let measured = fitted.map_or_else(|| p.measured.clone(), run);
    let drive = match p.target_given {
        true => format!(
            "{}, a drive given with --fitted, not fitted to {measured}",
            p.fitted_target
        ),
        false => format!("{} fitted to {measured}", p.fitted_target),
    };
    Some(format!("(prediction on {drive}; {paired}{warned})"))
}

fn status(s: Status) -> &'static str {
    match s {
        Status::Running => "running (incomplete)",
        Status::Completed => "completed",
        Status::Interrupted => "interrupted",
        Status::Failed => "failed",
    }
}

/// A count the results may not know, as `shown` gives it; `unknown` for 0, which no measured target or host
/// has (fio's JSON gives no capacity, block size or CPUs: [`crate::fio::json`] leaves them 0).
fn known(n: u64, unknown: &str, shown: impl Fn(u64) -> String) -> String {
    match n {
        0 => unknown.into(),
        _ => shown(n),
    }
}

/// A text the results may not have (fio's JSON names no host): `what unknown` when empty.
fn or_unknown<'a>(text: &'a str, what: &str) -> std::borrow::Cow<'a, str> {
    match text {
        "" => format!("{what} unknown").into(),
        _ => text.into(),
    }
}

/// An RFC 3339 time with its fraction of a second cut to milliseconds, as wkrun writes its own
/// (`13:03:31.855000000Z` of a fio JSON is `13:03:31.855Z`, trial 24b item 7).
fn millis(t: &str) -> String {
    match t.split_once('.') {
        Some((head, rest)) => {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            let keep = digits.min(3);
            format!("{head}.{}{}", &rest[..keep], &rest[digits..])
        }
        None => t.to_string(),
    }
}

/// `1073741824 B (1 GiB)`-style capacity.
fn bytes(b: u64) -> String {
    let units = [
        ("TiB", 1u64 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (u, n) in units {
        if b >= n {
            return format!("{b} B ({:.1} {u})", b as f64 / n as f64);
        }
    }
    format!("{b} B")
}

fn lat_cells(d: &DirStats, out: &mut String) {
    match &d.latency_ns {
        Some(l) => {
            for v in [l.mean, l.p99 as f64, l.p99_9 as f64, l.max as f64] {
                let _ = write!(out, "<td>{:.1}</td>", v / 1e3);
            }
        }
        None => out.push_str("<td>–</td><td>–</td><td>–</td><td>–</td>"),
    }
}

fn steady(p: &PhaseResult) -> String {
    match &p.steady_state {
        None => "–".into(),
        Some(s) => {
            let mut t = s.verdict_text();
            if s.reached {
                let _ = write!(
                    t,
                    " (window mean {} IOPS)",
                    short_number(s.verdict.window_mean)
                );
            }
            if let Some(l) = s.left_at_s {
                let _ = write!(t, "; left at {l:.1} s");
            }
            t
        }
    }
}

/// The phase summary table: one row per run that has the phase. IOPS per direction and their total (every
/// direction's: [`PhaseResult::iops`]), bandwidth (`total`, trims' bytes included), latency per direction;
/// the trim columns only where some run's phase trimmed.
fn phase_table(runs: &[RunData], members: &[(usize, usize)]) -> String {
    let trims = members
        .iter()
        .any(|&(r, p)| runs[r].phase(p).0.trim.is_some());
    let dirs: &[Direction] = match trims {
        true => &Direction::ALL,
        false => &Direction::CORE,
    };
    let mut o = format!(
        "<div class=\"scroll\"><table><thead><tr><th class=\"l\" rowspan=\"2\">run</th>\
<th colspan=\"{}\">IOPS (I/Os per s)</th><th rowspan=\"2\">bandwidth<br>(MB/s)</th>",
        dirs.len() + 1
    );
    for d in dirs {
        let _ = write!(o, "<th colspan=\"4\">{d} latency (µs)</th>");
    }
    o.push_str("<th class=\"l\" rowspan=\"2\">steady state</th></tr><tr>");
    for d in dirs {
        let _ = write!(o, "<th>{d}</th>");
    }
    o.push_str("<th>total</th>");
    for _ in dirs {
        o.push_str("<th>mean</th><th>p99</th><th>p99.9</th><th>max</th>");
    }
    o.push_str("</tr></thead><tbody>");
    for &(r, p) in members {
        let (ph, _) = runs[r].phase(p);
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}{}{}</td>",
            swatch(r),
            esc(&runs[r].label),
            not_completed(ph),
        );
        for &d in dirs {
            let _ = write!(o, "<td>{:.1}</td>", ph.dir(d).iops);
        }
        let _ = write!(
            o,
            "<td>{:.1}</td><td>{:.2}</td>",
            ph.iops(),
            ph.total.bw_bytes_per_s / 1e6
        );
        for &d in dirs {
            lat_cells(ph.dir(d), &mut o);
        }
        let _ = write!(o, "<td class=\"l\">{}</td></tr>", esc(&steady(ph)));
    }
    o.push_str("</tbody></table></div>\n");
    o
}

/// A simulated drive's internals over the phase, one row per run whose phase has them
/// (`phases[].device`): host writes, NAND (flash) writes and garbage-collection copies in GB (10⁹ bytes),
/// write amplification; empty when no run ran on a simulated drive.
fn device_table(runs: &[RunData], members: &[(usize, usize)]) -> String {
    let mut o = String::new();
    for &(r, p) in members {
        let Some(d) = runs[r].phase(p).0.device.as_ref() else {
            continue;
        };
        if o.is_empty() {
            o.push_str(
                "<div class=\"scroll\"><table class=\"device\"><thead><tr><th class=\"l\">run (simulated drive)</th>\
<th>host writes (GB)</th><th>NAND writes (GB)</th><th>GC copies (GB)</th><th>write amplification</th>\
</tr></thead><tbody>",
            );
        }
        let gb = |b: u64| format!("{:.3}", b as f64 / 1e9);
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            swatch(r),
            esc(&runs[r].label),
            gb(d.host_write_bytes),
            gb(d.flash_write_bytes),
            gb(d.gc_copy_bytes),
            d.write_amplification
                .map_or("–".to_string(), |w| format!("{w:.3}"))
        );
    }
    if !o.is_empty() {
        o.push_str("</tbody></table></div>\n");
    }
    o
}

/// A phase's parameters in words (its length is not one: see [`phase_section`]).
fn params_line(p: &PhaseResult) -> String {
    let q = &p.params;
    let mut parts = vec![p.kind.as_str().to_string()];
    if let Some(mix) = &q.block_size_mix {
        parts.push(format!(
            "block sizes {}",
            mix.iter()
                .map(|m| format!("{} B ×{}", m.bytes, m.weight))
                .collect::<Vec<_>>()
                .join(" + ")
        ));
    } else if let Some(b) = q.block_size_bytes {
        parts.push(format!("{b} B blocks"));
    }
    // Workers as the console and the plan say them: QD is each worker's (`2 workers × QD16`).
    match (q.queue_depth, q.workers) {
        (Some(qd), Some(w)) if w > 1 => parts.push(format!("{w} workers × QD{qd}")),
        (Some(qd), _) => parts.push(format!("QD{qd}")),
        _ => {}
    }
    if let Some(r) = q.read_percent {
        parts.push(format!("{r} % reads"));
    }
    if let Some(pat) = q.pattern {
        parts.push(format!("{pat:?}").to_lowercase());
    }
    if let Some(e) = q.engine {
        parts.push(format!(
            "engine {}",
            serde_json::to_value(e)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        ));
    }
    parts.push(match crate::fio::json::unknown_span(p) {
        Some(words) => format!("span {words}"),
        None => format!(
            "span [{}, {})",
            q.span_start_bytes,
            q.span_start_bytes + q.span_bytes
        ),
    });
    if !p.labels.is_empty() {
        parts.push(format!(
            "labels {}",
            p.labels
                .iter()
                .map(|l| format!("{}={}", super::members::label_name(l), l.value))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    parts.join(" · ")
}

/// The figures, each SVG inline (the page needs no other file) with its caption and a link to its file
/// (and to its PNG, with `--png`).
pub(crate) fn figures(o: &mut String, figs: &[Figure], png: bool) {
    for f in figs {
        let svg = f.chart.svg.trim();
        let svg = svg.strip_prefix("<?xml").map_or(svg, |rest| {
            rest.split_once("?>")
                .map_or(svg, |(_, body)| body.trim_start())
        });
        let png = match png {
            true => {
                let p = super::png::png_name(&f.file);
                format!(" · <a href=\"{}\">{}</a>", url(&p), esc(&p))
            }
            false => String::new(),
        };
        let _ = writeln!(
            o,
            "<figure role=\"img\" aria-label=\"{t}\">{svg}\n\
<figcaption>{c} <a href=\"{u}\">{f}</a>{png}</figcaption></figure>",
            u = url(&f.file),
            t = esc(&f.chart.title),
            c = esc(&f.chart.caption),
            f = esc(&f.file)
        );
    }
}

/// A matrix's table: a row per value of its first key, a column per value of its second; in each cell,
/// per run, the mean and largest latency (µs) of reads, of writes and of both together, and total IOPS.
fn matrix_table(o: &mut String, runs: &[RunData], t: &MatrixTable) {
    let _ = write!(
        o,
        "<div class=\"scroll\"><table class=\"matrix\"><thead><tr><th class=\"l\">{} \\ {}</th>",
        esc(&t.row_key),
        esc(&t.col_key)
    );
    for c in &t.cols {
        let _ = write!(o, "<th>{} {}</th>", esc(&t.col_key), esc(c));
    }
    o.push_str("</tr></thead><tbody>\n");
    let lat = |l: Option<Latency>| {
        l.map_or("–".to_string(), |l| {
            format!("{:.1} / {:.1}", l.mean_us, l.max_us)
        })
    };
    for (i, r) in t.rows.iter().enumerate() {
        let _ = write!(o, "<tr><th class=\"l\">{} {}</th>", esc(&t.row_key), esc(r));
        for cell in &t.cells[i] {
            o.push_str("<td>");
            for c in cell {
                let who = if runs.len() > 1 {
                    swatch(c.run)
                } else {
                    String::new()
                };
                let _ = write!(
                    o,
                    "<div>{who}read {}<br>write {}<br>together {}<br><small>{:.1} IOPS</small></div>",
                    lat(c.read),
                    lat(c.write),
                    lat(c.total),
                    c.iops
                );
            }
            o.push_str("</td>");
        }
        o.push_str("</tr>\n");
    }
    o.push_str(
        "</tbody></table></div>\n<p class=\"meta\">Each cell: latency mean / max in µs, of reads, of \
writes (– without I/O in that direction) and of every I/O together (the mean weighted by their counts), \
and the phase's total IOPS.</p>\n",
    );
}

/// The target cell of a run's row: path, kind, capacity and block size, then what the device says of itself.
/// A folder merged from several hosts: the hosts' targets ([`RunData::target_name`]) and their capacity
/// together; the rest is the first host's.
fn target_cell(r: &RunData) -> String {
    let t = &r.results.target;
    let (name, capacity) = match (r.merged_hosts(), &r.results.cluster) {
        (Some(_), Some(c)) => (
            r.target_name(),
            format!(
                "{} together",
                bytes(c.hosts.iter().map(|h| h.capacity_bytes).sum())
            ),
        ),
        _ => (
            t.path.display().to_string(),
            known(t.capacity_bytes, "capacity unknown", bytes),
        ),
    };
    let mut target = format!(
        "{} ({})<br>{}, logical block {}",
        esc(&name),
        target_kinds(&r.results),
        esc(&capacity),
        known(u64::from(t.logical_block_size), "unknown", |b| format!(
            "{b} B"
        ))
    );
    for (k, v) in [
        ("model", &t.model),
        ("serial", &t.serial),
        ("firmware", &t.firmware),
    ] {
        if let Some(v) = v {
            let _ = write!(target, "<br>{k} {}", esc(v));
        }
    }
    target
}

/// The kind of a run's target in words (`file`, `block device`, `simulated SSD, virtual time`); for the
/// aggregate of targets or a merge of hosts of different kinds (`cluster.hosts[].target_kind`), each kind
/// once in the hosts' order: `mixed: file + block device` (trial 19 F7: a file and a loop device summed were
/// headed `(file)`, the first target's kind).
fn target_kinds(r: &crate::results::Results) -> String {
    let word = |k: crate::target::TargetKind| match k {
        crate::target::TargetKind::File => "file",
        crate::target::TargetKind::Block => "block device",
        crate::target::TargetKind::Sim => "simulated SSD, virtual time",
    };
    let mut kinds = vec![r.target.kind];
    for k in r
        .cluster
        .iter()
        .flat_map(|c| &c.hosts)
        .filter_map(|h| h.target_kind)
    {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    match kinds.as_slice() {
        [one] => word(*one).to_string(),
        _ => format!(
            "mixed: {}",
            kinds
                .iter()
                .map(|k| word(*k))
                .collect::<Vec<_>>()
                .join(" + ")
        ),
    }
}

/// The spec cell of a run's row: name, version, hash, path and `--set` overrides.
fn spec_cell(r: &RunData) -> String {
    let res = &r.results;
    let mut spec = format!(
        "{} {}<br>sha256 {}…<br>{}",
        esc(&res.spec.name),
        esc(&res.spec.version),
        esc(res.spec.sha256.get(..12).unwrap_or(&res.spec.sha256)),
        esc(&res.spec.path)
    );
    if !res.spec.overrides.is_empty() {
        let _ = write!(spec, "<br>--set {}", esc(&res.spec.overrides.join(" ")));
    }
    spec
}

/// The header's table: one row per run (colour, name, spec, target, host, when, status).
fn runs_table(o: &mut String, runs: &[RunData]) {
    o.push_str(
        "<div class=\"scroll\"><table><thead><tr><th class=\"l\">run</th><th class=\"l\">spec</th>\
<th class=\"l\">target</th><th class=\"l\">host</th><th class=\"l\">when</th><th class=\"l\">status</th>\
</tr></thead><tbody>\n",
    );
    for (i, r) in runs.iter().enumerate() {
        let res = &r.results;
        let _ = writeln!(
            o,
            "<tr><td class=\"l\">{}{}<br><small>{}</small></td><td class=\"l\">{}</td>\
<td class=\"l\">{}</td><td class=\"l\">{}<br>{}<br>{}</td><td class=\"l\">{}<br>to {}</td>\
<td class=\"l\">{}{}<br>{}</td></tr>",
            swatch(i),
            esc(&r.label),
            esc(&r.file.display().to_string()),
            spec_cell(r),
            target_cell(r),
            esc(&or_unknown(&res.host.hostname, "host")),
            esc(&or_unknown(&res.host.kernel, "kernel")),
            match r.merged_hosts() {
                Some((n, _)) => format!("{} CPUs on {n} hosts together", res.host.cpus),
                None => known(u64::from(res.host.cpus), "CPUs unknown", |n| format!(
                    "{n} CPUs"
                )),
            },
            esc(&or_unknown(&millis(&res.started_at), "start")),
            esc(&res
                .finished_at
                .as_deref()
                .map_or("(not finished)".into(), |f| or_unknown(&millis(f), "end")
                    .into_owned())),
            status(res.status),
            res.error
                .as_deref()
                .map_or(String::new(), |e| format!(": {}", esc(e))),
            esc(&match &res.source {
                Some(src) => src.version.clone(),
                None => format!("wkrun {}", res.wkrun_version),
            })
        );
    }
    o.push_str("</tbody></table></div>\n</header>\n");
}

/// The contents: a link to each sweep's section, then to each phase's, as the page orders them (the results,
/// then the preparation under its own heading); each phase with its number in the first run that has it, so
/// that the run's order shows ("02 random-write"); last, the phases each run planned and never ran
/// ([`super::not_run`]).
fn contents(o: &mut String, runs: &[RunData], report: &Report) {
    o.push_str("<nav><h2>Contents</h2><ul class=\"toc\">\n");
    let mut part = Part::Results;
    for r in report.page_order() {
        let here = match r {
            SectionRef::Sweep(k) => report.sweeps[k].part,
            SectionRef::Phase(k) => report.phases[k].part,
        };
        if here != part {
            part = here;
            o.push_str("</ul><h3>Preparation (fills and restores, run before the results)</h3><ul class=\"toc\">\n");
        }
        let _ = match r {
            SectionRef::Sweep(k) => {
                let s = &report.sweeps[k];
                writeln!(
                    o,
                    "<li><a href=\"#sweep-{k}\">{} across {}</a></li>",
                    esc(&s.group.base),
                    esc(&s.group.keys.join(", "))
                )
            }
            SectionRef::Phase(k) => {
                let s = &report.phases[k];
                let g = &s.group;
                let index = g.members.first().map_or(String::new(), |&(r, p)| {
                    format!("{:02} ", runs[r].results.phases[p].index)
                });
                match &s.rounds {
                    // A block of rounds' phases: one entry, at its first.
                    Some(_) if k > 0 && report.phases[k - 1].rounds == s.rounds => Ok(()),
                    Some(b) => writeln!(
                        o,
                        "<li><a href=\"#rounds-{k}\">{index}{}: the phases of its rounds</a></li>",
                        esc(b)
                    ),
                    None => writeln!(
                        o,
                        "<li><a href=\"#phase-{k}\">{index}{}</a></li>",
                        esc(&g.name)
                    ),
                }
            }
        };
    }
    o.push_str("</ul>\n");
    o.push_str(&super::not_run::contents(runs));
    o.push_str("</nav>\n");
}

/// A sweep's section: its phases, a matrix's table, then its charts `figs`.
fn sweep_section(
    o: &mut String,
    runs: &[RunData],
    k: usize,
    s: &SweepSection,
    figs: &[Figure],
    png: bool,
) {
    let _ = writeln!(
        o,
        "<section id=\"sweep-{k}\">\n<h2>{} across {}</h2>\n<p class=\"params\">{} phases: {}</p>",
        esc(&s.group.base),
        esc(&s.group.keys.join(", ")),
        s.group.phases.len(),
        esc(&s.group.phases.join(", "))
    );
    search_lines(o, runs, |_, r| r.name == s.group.base);
    if let Some(t) = &s.table {
        matrix_table(o, runs, t);
    }
    figures(o, figs, png);
    o.push_str("</section>\n");
}

/// Under a heading, each run's latency-target search that `shown` picks (by the run's index; trial 26
/// L1): its target, answer, the depths it ran and the steps it skipped
/// ([`crate::results::search::summary`]), the run named when the report has several. Under a group's
/// heading, the search of the group's name; under a phase's, a search whose one step ran is that phase
/// (no group then: its first step was over the target).
fn search_lines(
    o: &mut String,
    runs: &[RunData],
    shown: impl Fn(usize, &crate::results::search::SearchResult) -> bool,
) {
    let latency = |l: u64| crate::units::latency(l as f64);
    for (i, run) in runs.iter().enumerate() {
        let planned = run.results.planned_phases.as_deref();
        for r in run.results.latency_searches.iter().filter(|r| shown(i, r)) {
            let who = match runs.len() {
                1 => String::new(),
                _ => format!("{}: ", esc(&run.label)),
            };
            let _ = writeln!(
                o,
                "<p class=\"params search\">{who}{}</p>",
                esc(&crate::results::search::summary(r, planned, &latency))
            );
        }
    }
}

/// A phase's section: its parameters, the summary table, warnings, the runs without it, then its plots
/// `figs`.
fn phase_section(
    o: &mut String,
    runs: &[RunData],
    k: usize,
    s: &PhaseSection,
    figs: &[Figure],
    png: bool,
) {
    let _ = writeln!(
        o,
        "<section id=\"phase-{k}\">\n<h2>{}</h2>",
        esc(&s.group.name)
    );
    let members = &s.group.members;
    search_lines(o, runs, |i, r| {
        let step = |&(m, p): &(usize, usize)| {
            m == i && Some(runs[m].phase(p).0.index) == r.steps.first().map(|x| x.phase)
        };
        r.steps.len() == 1 && members.iter().any(step)
    });
    let lines: Vec<(usize, String)> = s
        .group
        .members
        .iter()
        .map(|&(r, p)| (r, params_line(runs[r].phase(p).0)))
        .collect();
    if lines.iter().all(|(_, l)| *l == lines[0].1) {
        let lengths: Vec<String> = s
            .group
            .members
            .iter()
            .map(|&(r, p)| {
                let d = format!("{:.2} s", runs[r].phase(p).0.duration_s);
                match s.group.members.len() {
                    1 => d,
                    _ => format!("{d} ({})", runs[r].label),
                }
            })
            .collect();
        let _ = writeln!(
            o,
            "<p class=\"params\">{} · {}</p>",
            esc(&lines[0].1),
            esc(&lengths.join(", "))
        );
    } else {
        // The runs differ in the phase's parameters (or its length): each run's line.
        for (&(r, p), (_, l)) in s.group.members.iter().zip(&lines) {
            let _ = writeln!(
                o,
                "<p class=\"params\">{}{}: {} · {:.2} s</p>",
                swatch(r),
                esc(&runs[r].label),
                esc(l),
                runs[r].phase(p).0.duration_s
            );
        }
    }
    o.push_str(&phase_table(runs, &s.group.members));
    o.push_str(&device_table(runs, &s.group.members));
    o.push_str(&super::flushes::flush_table(runs, &s.group.members));
    o.push_str(&super::counters::counters_table(runs, &s.group.members));
    let named = runs.len() > 1;
    for &(r, p) in &s.group.members {
        let ph = runs[r].phase(p).0;
        o.push_str(&super::parts::workers_table(&runs[r], ph, named));
        o.push_str(&super::parts::hosts_table(&runs[r], ph, named));
    }
    for &(r, p) in &s.group.members {
        // A window the phase was too short for: what its figures are instead (a trial run's `--set
        // duration=20s` against `last 20m`).
        for c in runs[r]
            .phase(p)
            .0
            .windows
            .iter()
            .filter_map(|w| w.clipped.as_ref())
        {
            let _ = writeln!(
                o,
                "<p class=\"meta\">{}: {}</p>",
                esc(&runs[r].label),
                esc(c)
            );
        }
        // Labelled as the console said each: a note has nothing to fix.
        for w in &runs[r].phase(p).0.warnings {
            let word = match crate::results::model::is_note(w) {
                true => "note",
                false => "warning",
            };
            let _ = writeln!(
                o,
                "<p class=\"warn\">{}: {word}: {}</p>",
                esc(&runs[r].label),
                esc(w)
            );
        }
    }
    if runs.len() > s.group.members.len() {
        let missing: Vec<String> = (0..runs.len())
            .filter(|r| !s.group.members.iter().any(|m| m.0 == *r))
            .map(|r| esc(&runs[r].label))
            .collect();
        let _ = writeln!(
            o,
            "<p class=\"meta\">missing from: {}</p>",
            missing.join(", ")
        );
    }
    if s.folded {
        let _ = writeln!(
            o,
            "<details><summary>{} plots of this cell (its numbers are in the matrix's table)</summary>",
            figs.len()
        );
        figures(o, figs, png);
        o.push_str("</details>\n");
    } else {
        figures(o, figs, png);
    }
    o.push_str("</section>\n");
}

/// A headline figure's column: its key, label and unit.
type Column = (String, String, String);

/// The headline figures of a phase group's members: the keys (with their row labels and units) in order of
/// first appearance; then each lead figure the "Workloads compared" bars set a member beside another on
/// (`compared`, [`compared_leads`]) that no member's headline has: the IOPS, phase mean of a phase headed by
/// its steady window, compared so with a run too short for the window (trial 26 M2, L5).
fn headline_keys(
    runs: &[RunData],
    s: &PhaseSection,
    compared: &[((usize, usize), Column)],
) -> Vec<Column> {
    let mut keys: Vec<Column> = Vec::new();
    for &(r, p) in &s.group.members {
        for f in &runs[r].phase(p).0.headline {
            if !keys.iter().any(|k| k.0 == f.key) {
                keys.push((f.key.clone(), f.label.clone(), f.unit.clone()));
            }
        }
    }
    for (_, c) in compared.iter().filter(|(m, _)| s.group.members.contains(m)) {
        if !keys.iter().any(|k| k.0 == c.0) {
            keys.push(c.clone());
        }
    }
    keys
}

/// The lead figures the batteries' bars ("Workloads compared",
/// [`crate::report::chart::battery::Battery::pairs`]) set phases side by
/// side on: each phase of each bar, `(run, index)`, with its figure's column.
fn compared_leads(runs: &[RunData]) -> Vec<((usize, usize), Column)> {
    let mut out = Vec::new();
    for b in crate::report::chart::battery::batteries(runs) {
        for bar in b.pairs(runs) {
            let l = &bar.lead;
            for m in bar.phases {
                out.push((m, (l.key.clone(), l.label.clone(), l.unit.clone())));
            }
        }
    }
    out
}

/// A headline value with its change against `base` (the first run's), when there is one, coloured after
/// `better` ([`change_span`]).
fn headline_cell(v: Option<f64>, unit: &str, base: Option<f64>, better: Option<Better>) -> String {
    let Some(v) = v else {
        return "<td>–</td>".into();
    };
    let mut t = esc(&format!("{v:.*}", compare::unit_decimals(unit)));
    if let Some(b) = base.filter(|b| *b != 0.0) {
        let _ = write!(t, " {}", change_span((v - b) / b.abs() * 100.0, better));
    }
    format!("<td>{t}</td>")
}

/// What a phase table's run cell says after the run's label: ` (not completed)` for a phase that did not
/// complete (a run interrupted in it), ` (not measured)` for one that measured nothing
/// ([`compare::unmeasured`]), else nothing.
fn not_completed(p: &PhaseResult) -> &'static str {
    match (p.completed, compare::unmeasured(p)) {
        (true, _) => "",
        (false, false) => " (not completed)",
        (false, true) => " (not measured)",
    }
}

/// One headline table: phases (the sections `secs`) sharing the same figures, a row per phase and run. A
/// figure whose members cover unlike rows ([`compare::unlike_rows`]: a clipped window against a real
/// one) is shown with its rows, without a change, headed as its item asks, and a numbered note under
/// the table says what each covers, as `wkrun compare` does.
fn headline_table(
    o: &mut String,
    runs: &[RunData],
    secs: &[&PhaseSection],
    keys: &[(String, String, String)],
) {
    let phases = |s: &PhaseSection| -> Vec<Option<&PhaseResult>> {
        s.group
            .members
            .iter()
            .map(|&(r, p)| Some(runs[r].phase(p).0))
            .collect()
    };
    // Per section, each key's rows when they are unlike.
    let unlike: Vec<Vec<Option<Vec<Option<Covers>>>>> = secs
        .iter()
        .map(|s| {
            let ph = phases(s);
            keys.iter()
                .map(|(k, _, _)| compare::unlike_rows(&ph, k))
                .collect()
        })
        .collect();
    o.push_str("<div class=\"scroll\"><table><thead><tr><th class=\"l\">phase</th><th class=\"l\">run</th>");
    for (j, (key, label, unit)) in keys.iter().enumerate() {
        let label = match unlike.iter().any(|u| u[j].is_some()) {
            true => crate::results::headline::asked_label(key, label),
            false => label.clone(),
        };
        let _ = write!(o, "<th>{} ({})</th>", esc(&label), esc(unit));
    }
    o.push_str("</tr></thead><tbody>\n");
    let mut notes: Vec<String> = Vec::new();
    for (s, unlike) in secs.iter().zip(&unlike) {
        // A figure the phase's headline lacks is its whole-phase metric's where one says the same.
        let figure = |r: usize, p: usize, key: &str| compare::figure_in(runs[r].phase(p).0, key);
        let value = |r: usize, p: usize, key: &str| figure(r, p, key).and_then(|f| f.0);
        let first = s.group.members.first().copied();
        let marks: Vec<Option<usize>> = unlike
            .iter()
            .zip(keys)
            .map(|(u, (key, _, _))| {
                let u = u.as_ref()?;
                let cols: Vec<String> = s
                    .group
                    .members
                    .iter()
                    .map(|m| runs[m.0].label.clone())
                    .collect();
                let note = compare::Note::Unlike {
                    asked: crate::results::headline::asked(key),
                    covers: u.clone(),
                };
                let t = format!("{}: {}", s.group.name, note.text(&cols));
                Some(compare::note_number(&mut notes, t))
            })
            .collect();
        for (m, &(r, p)) in s.group.members.iter().enumerate() {
            // A phase a stop cut short says so, as in the phase table (its figures are over what it ran).
            let _ = write!(
                o,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}{}{}</td>",
                esc(&s.group.name),
                swatch(r),
                esc(&runs[r].label),
                not_completed(runs[r].phase(p).0)
            );
            for (j, (key, _, unit)) in keys.iter().enumerate() {
                if let Some(u) = &unlike[j] {
                    // A member whose rows are alike the first's is compared, as in `wkrun compare`.
                    let better = first.and_then(|(r0, p0)| figure(r0, p0, key)?.1);
                    let values: Vec<Option<f64>> = s
                        .group
                        .members
                        .iter()
                        .map(|&(r, p)| value(r, p, key))
                        .collect();
                    let change = compare::alike_changes(better, &values, u)[m];
                    o.push_str(&covered_cell(
                        value(r, p, key),
                        unit,
                        (u[m], change.map(|c| (c, better))),
                        marks[j].filter(|_| m == 0),
                    ));
                    continue;
                }
                // A time that is a fact, not a score, has no change (as in `wkrun compare`).
                let base = first
                    .filter(|&(r0, _)| r0 != r)
                    .and_then(|(r0, p0)| figure(r0, p0, key))
                    .filter(|f| f.1.is_some());
                let better = base.and_then(|f| f.1);
                let base = base.and_then(|f| f.0);
                o.push_str(&headline_cell(value(r, p, key), unit, base, better));
            }
            o.push_str("</tr>\n");
        }
    }
    o.push_str("</tbody></table></div>\n");
    for (k, n) in notes.iter().enumerate() {
        let _ = writeln!(o, "<p class=\"meta\">[{}] {}</p>", k + 1, esc(n));
    }
}

/// A member's change against the first's, in percent, and which way is better.
type Change = (f64, Option<crate::results::Better>);

/// A headline value of a figure whose members cover unlike rows: the value, the rows it covers, its
/// change where its rows are alike the first run's ([`compare::alike_changes`]) and, in the first run's
/// cell, the note's number.
fn covered_cell(
    v: Option<f64>,
    unit: &str,
    (c, change): (Option<Covers>, Option<Change>),
    mark: Option<usize>,
) -> String {
    let Some(v) = v else {
        return "<td>–</td>".into();
    };
    let mut t = format!("{v:.*}", compare::unit_decimals(unit));
    if let Some(c) = c {
        let _ = write!(t, " over {}", c.rows());
    }
    if let Some(n) = mark {
        let _ = write!(t, " [{n}]");
    }
    let mut t = esc(&t);
    if let Some((pct, better)) = change {
        let _ = write!(t, " {}", change_span(pct, better));
    }
    format!("<td>{t}</td>")
}

/// The most rows of headline numbers shown unfolded: past it (a PTS test's 280 round phases), the tables
/// are folded away under their row count.
pub const HEADLINE_ROWS: usize = 40;

/// The headline numbers near the top of the page (after the PTS sections): each phase's headline figures
/// (`phases[].headline`), one table per run of consecutive phases with the same figures (a sweep's or
/// matrix's members then share one table, a row each), values as in `wkrun compare`, later runs with their
/// change against the first; folded away past [`HEADLINE_ROWS`] rows.
fn headline_section(o: &mut String, runs: &[RunData], report: &Report) {
    let mut tables: Vec<(Vec<Column>, Vec<&PhaseSection>)> = Vec::new();
    let compared = compared_leads(runs);
    for s in &report.phases {
        let keys = headline_keys(runs, s, &compared);
        if keys.is_empty() {
            continue;
        }
        match tables.last_mut() {
            Some((k, secs)) if *k == keys => secs.push(s),
            _ => tables.push((keys, vec![s])),
        }
    }
    if tables.is_empty() {
        return;
    }
    o.push_str("<section id=\"headline\">\n<h2>Headline numbers</h2>\n<p class=\"meta\">The figures each phase's \
<code>headline</code> names, from <code>results.json</code> (<code>phases[].headline</code>).</p>\n");
    let rows: usize = tables
        .iter()
        .flat_map(|(_, secs)| secs)
        .map(|s| s.group.members.len())
        .sum();
    let folded = rows > HEADLINE_ROWS;
    if folded {
        let _ = writeln!(o, "<details><summary>{rows} rows</summary>");
    }
    for (keys, secs) in &tables {
        headline_table(o, runs, secs, keys);
    }
    if folded {
        o.push_str("</details>\n");
    }
    if runs.len() > 1 {
        let results: Vec<&crate::results::Results> = runs.iter().map(|r| &r.results).collect();
        let ran = runs.iter().map(|r| (&r.results, r.file.as_path()));
        let stopped = super::not_run::stopped_in_names(ran);
        let all = compare::scores(&results, &stopped);
        let scores: Vec<String> = all
            .iter()
            .zip(runs)
            .skip(1)
            .map(|(s, r)| match s.value {
                Some(c) if s.left.is_empty() => format!(
                    "{} {c:.3} ({})",
                    r.label,
                    compare::format_change((c - 1.0) * 100.0)
                ),
                Some(c) => format!(
                    "{} {c:.3} ({}) over {}",
                    r.label,
                    compare::format_change((c - 1.0) * 100.0),
                    s.over()
                ),
                None if s.left.is_empty() => format!("{} – (no phase in common)", r.label),
                None => format!("{} – (no workload scored)", r.label),
            })
            .collect();
        let _ = writeln!(
            o,
            "<p class=\"meta\">Composite against {} (geometric mean over the phases of the ratio of each \
phase's lead figure to its value, inverted where lower is better; as in <code>wkrun compare</code>): {}</p>",
            esc(&runs[0].label),
            esc(&scores.join(", "))
        );
        if let Some(n) = compare::composite_note(&results, &all) {
            let cols: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
            let _ = writeln!(
                o,
                "<p class=\"meta\">Composite: {}</p>",
                esc(&n.text(&cols))
            );
        }
    }
    o.push_str("</section>\n");
}

/// What a reader of the page's changes must know ([`compare::host_notes`]), when it shows changes: of every
/// run when there are several (the headline tables' changes and composite), else of the one run when its
/// sweeps' members are compared; named by their labels. Said above the tables and, by `wkrun report`, on
/// stderr (trial 15: a file run's sweep members showed a composite of -49.2 % as findings, with no word).
pub fn host_notes(runs: &[RunData]) -> Vec<String> {
    let shows = runs.len() > 1
        || runs
            .iter()
            .any(|r| !super::members::sweeps(&r.results).is_empty());
    if !shows {
        return Vec::new();
    }
    let results: Vec<&crate::results::Results> = runs.iter().map(|r| &r.results).collect();
    let names: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    compare::host_notes(&results, &names)
}

/// The page, written to `w` a part at a time (never held whole: a report of 2,000 phases makes a page of
/// over 100 MB): the runs header; for a run of a SNIA PTS spec (or with blocks of rounds) its PTS
/// sections first, then the headline numbers (folded away past [`HEADLINE_ROWS`] rows); the runs
/// table, the contents, then the sweeps' and phases' sections, the phases of a block of rounds folded
/// into one list per block, and the phases planned and never run ([`super::not_run`]). Each sweep's and
/// phase's plots are asked of `section_figures` when the page comes to its section, and dropped once in
/// the page (the sections' own `figures` are not read).
///
/// # Errors
/// `w`'s error.
pub fn write_index(
    w: &mut dyn std::io::Write,
    runs: &[RunData],
    report: &Report,
    opts: &Options,
    section_figures: &mut dyn FnMut(SectionRef) -> std::io::Result<Vec<Figure>>,
) -> std::io::Result<()> {
    let mut o = String::new();
    let mut flush = |o: &mut String| -> std::io::Result<()> {
        w.write_all(o.as_bytes())?;
        o.clear();
        Ok(())
    };
    head(&mut o, runs);
    flush(&mut o)?;
    // A PTS test's verdicts, tables and plots first: what its user reads the report for.
    o.push_str(&super::pts::page::html(&report.pts, opts.png));
    flush(&mut o)?;
    for n in host_notes(runs) {
        let _ = writeln!(o, "<p class=\"warn\">note: {}</p>", esc(&n));
    }
    headline_section(&mut o, runs, report);
    o.push_str(&super::against::html_section(runs, report, opts));
    if !report.batteries.is_empty() || !report.battery_notes.is_empty() {
        o.push_str("<section id=\"battery\">\n<h2>Workloads compared</h2>\n");
        figures(&mut o, &report.batteries, opts.png);
        for n in &report.battery_notes {
            let _ = writeln!(o, "<p class=\"meta\">{}</p>", esc(n));
        }
        o.push_str("</section>\n");
    }
    o.push_str(&super::members::html_section(runs));
    runs_table(&mut o, runs);
    contents(&mut o, runs, report);
    o.push_str("<main>\n");
    flush(&mut o)?;
    let mut part = Part::Results;
    let mut block: Option<&str> = None;
    for r in report.page_order() {
        let (p, rounds) = match r {
            SectionRef::Sweep(k) => (report.sweeps[k].part, None),
            SectionRef::Phase(k) => (report.phases[k].part, report.phases[k].rounds.as_deref()),
        };
        if block.is_some() && rounds != block {
            o.push_str("</details></section>\n");
        }
        if p != part {
            part = p;
            o.push_str(
                "<h2 class=\"part\" id=\"preparation\">Preparation: the fills and restores before \
the measurements</h2>\n",
            );
        }
        if let (Some(_), SectionRef::Phase(k)) = (rounds.filter(|_| rounds != block), r) {
            rounds_head(&mut o, report, k);
        }
        block = rounds;
        let figs = section_figures(r)?;
        match r {
            SectionRef::Sweep(k) => {
                sweep_section(&mut o, runs, k, &report.sweeps[k], &figs, opts.png)
            }
            SectionRef::Phase(k) => {
                phase_section(&mut o, runs, k, &report.phases[k], &figs, opts.png)
            }
        }
        flush(&mut o)?;
    }
    if block.is_some() {
        o.push_str("</details></section>\n");
    }
    o.push_str(&super::not_run::html_section(runs));
    let _ = write!(
        o,
        "</main>\n<footer>Made by wkrun report {}{}{}. Bandwidth in MB/s = 10⁶ bytes per second; \
latency in µs; IOPS = I/Os per second.</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        opts.ymax
            .map_or(String::new(), |y| format!(", --ymax {}", short_number(y))),
        opts.window
            .as_ref()
            .map_or(String::new(), |(w, _)| format!(", --window {}", esc(w))),
    );
    flush(&mut o)
}

/// The page as one string ([`write_index`] into memory) of a report whose sections hold their plots
/// (`build::make`): for tests of small reports.
#[cfg(test)]
pub fn index(runs: &[RunData], report: &Report, opts: &Options) -> String {
    let mut page = Vec::new();
    let mut held = |r: SectionRef| {
        Ok(match r {
            SectionRef::Sweep(k) => report.sweeps[k].figures.clone(),
            SectionRef::Phase(k) => report.phases[k].figures.clone(),
        })
    };
    write_index(&mut page, runs, report, opts, &mut held).expect("a page in memory");
    String::from_utf8(page).expect("UTF-8")
}

/// The page's head and the runs' legend.
fn head(o: &mut String, runs: &[RunData]) {
    let mut specs: Vec<String> = Vec::new();
    for r in runs {
        if !specs.contains(&r.results.spec.name) {
            specs.push(r.results.spec.name.clone());
        }
    }
    let title = format!("wkrun report: {}", specs.join(", "));
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n\
<style>{STYLE}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let _ = writeln!(
        o,
        "<p class=\"meta\">{} run{} · one colour per drive in every chart and table:</p>",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" }
    );
    drives_legend(o, runs);
}

/// The start of the phases of a block of rounds (the `k`-th phase section is its first): a section whose
/// list of the phases' tables is folded away, pointing to the PTS section of the first run that has them,
/// which plots and tabulates the rounds.
fn rounds_head(o: &mut String, report: &Report, k: usize) {
    let first = &report.phases[k];
    let block = first.rounds.as_deref().unwrap_or_default();
    let n = report.phases[k..]
        .iter()
        .take_while(|s| s.rounds == first.rounds)
        .count();
    let run = first.group.members.first().map_or(0, |m| m.0);
    let anchor = report
        .pts
        .iter()
        .find(|s| s.run == run)
        .map_or("pts", |s| s.anchor.as_str());
    let _ = writeln!(
        o,
        "<section id=\"rounds-{k}\">\n<h2>{b}: the phases of its rounds</h2>\n<p class=\"meta\">The \
{n} phases of the block of rounds \"{b}\", each with its table and no plots of its own: \
<a href=\"#{a}\">its PTS section</a> plots and tabulates the rounds.</p>\n<details><summary>{n} \
phases' tables</summary>",
        b = esc(block),
        a = esc(anchor),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::{Better, Figure};

    /// A target's kind in words: its own, or each kind of its hosts once where they differ; hosts whose
    /// kind was not kept (older folders) say nothing.
    #[test]
    fn an_aggregate_of_kinds_is_mixed() {
        use crate::results::Cluster;
        use crate::target::TargetKind;
        let mut r = testing::results(
            "s",
            "2026-01-01T00:00:00.000Z",
            "a",
            TargetKind::File,
            vec![],
        );
        assert_eq!(target_kinds(&r), "file");
        let host = |k: Option<TargetKind>| {
            let mut h = testing::cluster_host("x");
            h.target_kind = k;
            h
        };
        let kinds = [
            Some(TargetKind::File),
            None,
            Some(TargetKind::Block),
            Some(TargetKind::File),
        ];
        r.cluster = Some(Cluster {
            hosts: kinds.iter().map(|k| host(*k)).collect(),
            alignment: String::new(),
        });
        assert_eq!(target_kinds(&r), "mixed: file + block device");
        r.cluster = Some(Cluster {
            hosts: vec![host(None), host(Some(TargetKind::File))],
            alignment: String::new(),
        });
        assert_eq!(target_kinds(&r), "file");
    }

    /// A level (an average: it can lead the composite) labelled by `key` in capitals.
    fn fig(key: &str, value: f64) -> Figure {
        Figure {
            key: format!("{key} avg"),
            label: key.to_uppercase(),
            value: Some(value),
            unit: "IOPS".into(),
            better: Some(Better::Higher),
        }
    }

    /// A report of `phases` alone.
    fn only(phases: Vec<PhaseSection>) -> Report {
        Report {
            phases,
            sweeps: vec![],
            ranked: vec![],
            batteries: vec![],
            battery_notes: vec![],
            pts: vec![],
        }
    }

    fn section(name: &str, members: &[(usize, usize)]) -> PhaseSection {
        PhaseSection {
            group: testing::group(name, members),
            figures: vec![],
            part: Part::Results,
            folded: false,
            rounds: None,
        }
    }

    /// Issue 25 item 5: a change is coloured worse where it goes the wrong way: a latency or a stddev that
    /// grows, IOPS that fall; a time (no direction) and a change that rounds to 0 are plain.
    #[test]
    fn changes_are_coloured_worse_when_they_go_the_wrong_way() {
        assert_eq!(
            change_span(12.0, Some(Better::Lower)),
            "<span class=\"worse\">(+12.0 %)</span>"
        );
        assert_eq!(
            change_span(-3.0, Some(Better::Lower)),
            "<span class=\"better\">(-3.0 %)</span>"
        );
        assert_eq!(
            change_span(-3.0, Some(Better::Higher)),
            "<span class=\"worse\">(-3.0 %)</span>"
        );
        assert_eq!(change_span(0.04, Some(Better::Lower)), "(+0.0 %)");
        assert_eq!(change_span(50.0, None), "(+50.0 %)");
    }

    /// The newcomer's trial: a simulated drive's write amplification was in no table of the report.
    #[test]
    fn a_simulated_drives_internals_have_their_table() {
        let mut p = testing::phase("w", 0);
        p.device = Some(crate::results::DeviceResult {
            device_csv: None,
            host_write_bytes: 2_000_000_000,
            flash_write_bytes: 4_620_000_000,
            gc_copy_bytes: 2_620_000_000,
            erased_blocks: 0,
            trimmed_bytes: 0,
            free_blocks: 0,
            write_amplification: Some(2.31),
        });
        let runs = [
            testing::run("a", "sim:a", vec![(p, None)]),
            testing::run("b", "/x", vec![(testing::phase("w", 0), None)]),
        ];
        let t = device_table(&runs, &[(0, 0), (1, 0)]);
        assert!(
            t.contains(&format!(
                "<tr><td class=\"l\">{}a</td><td>2.000</td><td>4.620</td><td>2.620</td><td>2.310</td></tr></tbody>",
                swatch(0)
            )),
            "{t}"
        );
        assert_eq!(device_table(&runs, &[(1, 0)]), "");
    }

    /// The newcomer's trial: a −0.3 % change was bold red. Changes under [`NOISE_PCT`] (2 %) either way
    /// are plain; from 2 % they take their direction.
    #[test]
    fn changes_within_the_noise_are_plain() {
        assert_eq!(change_span(-0.3, Some(Better::Higher)), "(-0.3 %)");
        assert_eq!(change_span(1.94, Some(Better::Lower)), "(+1.9 %)");
        assert_eq!(change_span(-1.94, Some(Better::Higher)), "(-1.9 %)");
        assert_eq!(
            change_span(-1.96, Some(Better::Higher)),
            "<span class=\"worse\">(-2.0 %)</span>"
        );
        assert_eq!(
            change_span(-2.0, Some(Better::Higher)),
            "<span class=\"worse\">(-2.0 %)</span>"
        );
        assert_eq!(
            change_span(2.0, Some(Better::Lower)),
            "<span class=\"worse\">(+2.0 %)</span>"
        );
    }

    /// Issue 24 item 12: the contents number each phase as the run did and head the preparation, so that
    /// a fill listed after the workloads reads as run before them.
    #[test]
    fn the_contents_number_phases_in_run_order_and_head_the_preparation() {
        let mut fill = testing::phase("fill", 1);
        fill.kind = crate::spec::PhaseKind::Fill;
        let runs = [testing::run(
            "x",
            "t",
            vec![(fill, None), (testing::phase("w", 2), None)],
        )];
        let mut f = section("fill", &[(0, 0)]);
        f.part = Part::Preparation;
        let report = Report {
            phases: vec![f, section("w", &[(0, 1)])],
            sweeps: vec![],
            ranked: vec![],
            batteries: vec![],
            battery_notes: vec![],
            pts: vec![],
        };
        let mut o = String::new();
        contents(&mut o, &runs, &report);
        let w = o.find("<a href=\"#phase-1\">02 w</a>").expect("w");
        let head = o.find("<h3>Preparation").expect("the heading");
        let f = o.find("<a href=\"#phase-0\">01 fill</a>").expect("fill");
        assert!(w < head && head < f, "{o}");
    }

    #[test]
    fn headline_tables_group_phases_with_the_same_figures() {
        // Two runs; phases s1 and s2 share figure "a" (one table, a row per phase and run), phase m has "b".
        let p = |name: &str, i: usize, k: &str, v: f64| {
            let mut p = testing::phase(name, i);
            p.headline = vec![fig(k, v)];
            (p, None)
        };
        // y's s2 was cut short (a run interrupted in it), after measuring: its row says so.
        let mut cut = p("s2", 1, "a", 250.0);
        cut.0.completed = false;
        cut.0.total = DirStats::new(250, 250 * 4096, 1.0, None);
        let runs = [
            testing::run(
                "x",
                "t",
                vec![
                    p("s1", 0, "a", 100.0),
                    p("s2", 1, "a", 200.0),
                    p("m", 2, "b", 5.0),
                ],
            ),
            testing::run("y", "t", vec![p("s1", 0, "a", 90.0), cut]),
        ];
        let report = Report {
            phases: vec![
                section("s1", &[(0, 0), (1, 0)]),
                section("s2", &[(0, 1), (1, 1)]),
                section("m", &[(0, 2)]),
            ],
            sweeps: vec![],
            ranked: vec![],
            batteries: vec![],
            battery_notes: vec![],
            pts: vec![],
        };
        let mut o = String::new();
        headline_section(&mut o, &runs, &report);
        assert_eq!(o.matches("<table>").count(), 2, "{o}");
        assert_eq!(o.matches("<th>A (IOPS)</th>").count(), 1);
        assert_eq!(o.matches("<th>B (IOPS)</th>").count(), 1);
        // Rows: s1 x, s1 y, s2 x, s2 y in the first table; m x in the second.
        assert_eq!(o.matches("<tr><td class=\"l\">").count(), 5);
        assert!(
            o.contains("<td>100.0</td>")
                && o.contains("<td>90.0 <span class=\"worse\">(-10.0 %)</span></td>"),
            "{o}"
        );
        assert!(
            o.contains("<td>250.0 <span class=\"better\">(+25.0 %)</span></td>"),
            "{o}"
        );
        let label = |run: usize, l: &str| format!("{}{l}", swatch(run));
        assert_eq!(
            o.matches(&format!("{}</td>", label(1, "y"))).count(),
            1,
            "{o}"
        );
        assert_eq!(
            o.matches(&format!("{} (not completed)</td>", label(1, "y")))
                .count(),
            1,
            "{o}"
        );
        // Composite of y against x: s1's 0.9 alone, y's s2 being cut short (trial 21 T3: it was scored on
        // its 250 over part of the phase, √(0.9 · 1.25) = 1.061); m is not in y, which completed.
        assert!(o.contains("y 0.900 (-10.0 %) over 1 of 2 workloads"), "{o}");
        assert!(
            o.contains("Composite: the composite of y: over 1 of 2 workloads: s2 not completed;"),
            "{o}"
        );
        // No figures, no section.
        let mut empty = String::new();
        let plain = [testing::run("x", "t", vec![(testing::phase("f", 0), None)])];
        let r = Report {
            phases: vec![section("f", &[(0, 0)])],
            sweeps: vec![],
            ranked: vec![],
            batteries: vec![],
            battery_notes: vec![],
            pts: vec![],
        };
        headline_section(&mut empty, &plain, &r);
        assert!(empty.is_empty());
    }

    /// Issue 24: 40 rows of headline numbers are shown; 41 (a PTS test's round phases) are folded away
    /// under their count, the composite line outside the fold.
    #[test]
    fn long_headline_tables_are_folded() {
        for (n, folded) in [(HEADLINE_ROWS, false), (HEADLINE_ROWS + 1, true)] {
            let phases = (0..n)
                .map(|i| {
                    let mut p = testing::phase(&format!("p{i}"), i);
                    p.headline = vec![fig("a", i as f64)];
                    (p, None)
                })
                .collect();
            let runs = [testing::run("x", "t", phases)];
            let report = only(
                (0..n)
                    .map(|i| section(&format!("p{i}"), &[(0, i)]))
                    .collect(),
            );
            let mut o = String::new();
            headline_section(&mut o, &runs, &report);
            assert_eq!(o.matches("<tr><td class=\"l\">").count(), n);
            let summary =
                format!("<details><summary>{n} rows</summary>\n<div class=\"scroll\"><table>");
            assert_eq!(o.contains(&summary), folded, "{n}");
            assert_eq!(
                o.contains("</table></div>\n</details>\n</section>\n"),
                folded
            );
        }
    }
}
