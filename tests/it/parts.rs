//! A phase's parts, shown where the run's numbers are read: the sum of several targets on the run's stderr
//! and `wkrun merge`'s stdout (one line per phase, the aggregate's totals), and the report's tables of a
//! phase's workers (`phases[].workers`) and hosts or targets (`phases[].hosts`), whose cells are the
//! results' numbers.

use crate::common::*;
use std::path::Path;
use wkrun::results::DirStats;

const SPEC: &str = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nengine = \"null\"\nblock_size = \"64KiB\"\n\n[[phase]]\nname = \"rw\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\nblock_size = \"4KiB\"\nworkers = 2\nread_percent = 50\nsize = \"2MiB\"\n";

/// The text of every `<td>` of the first table with class `class` in `html`, row by row.
fn table_rows(html: &str, class: &str) -> Vec<Vec<String>> {
    let start = html
        .find(&format!("<table class=\"{class}\">"))
        .unwrap_or_else(|| panic!("no table {class}"));
    let end = start + html[start..].find("</table>").expect("</table>");
    html[start..end]
        .split("<tr>")
        .skip(2)
        .map(|r| {
            r.split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').expect("td") + 1..];
                    c[..c.find("</td>").expect("</td>")].to_string()
                })
                .collect()
        })
        .collect()
}

/// A part's cells as the report writes them: its I/Os, IOPS, MB/s, mean and p99 per direction, its time.
fn cells(read: &DirStats, write: &DirStats, secs: Option<f64>) -> Vec<String> {
    let mut c = vec![
        read.ops.to_string(),
        write.ops.to_string(),
        format!("{:.1}", read.iops + write.iops),
        format!("{:.2}", (read.bw_bytes_per_s + write.bw_bytes_per_s) / 1e6),
    ];
    for d in [read, write] {
        match &d.latency_ns {
            Some(l) if d.ops > 0 => {
                c.push(format!("{:.1}", l.mean / 1e3));
                c.push(format!("{:.1}", l.p99 as f64 / 1e3));
            }
            _ => c.extend(["–".to_string(), "–".to_string()]),
        }
    }
    c.push(secs.map_or("–".to_string(), |t| format!("{t:.3}")));
    c
}

fn report_html(d: &Path, folder: &str, to: &str) -> String {
    let (code, _, err) = code_out_err(&wkrun(d, &["report", folder, "-o", to]));
    assert_eq!(code, 0, "report {folder}: {err}");
    std::fs::read_to_string(d.join(to).join("index.html")).expect("index.html")
}

#[test]
fn the_targets_sum_is_printed_per_phase_and_the_report_tables_hold_the_results_numbers() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 8 << 20);
    sparse_file(&d.join("b.img"), 8 << 20);
    write_file(d, "spec.toml", &spec_text("parts", SPEC));
    let o = wkrun(
        d,
        &[
            "spec.toml",
            "--target",
            "a.img",
            "--target",
            "b.img",
            "-o",
            "out",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (agg, _) = strict_results(&d.join("out"));
    // After every target's lines and before `done:`, one line per phase on stdout: the aggregate's totals.
    let lines: Vec<&str> = out.lines().collect();
    let first_all = lines
        .iter()
        .position(|l| l.starts_with("[all "))
        .expect("sum lines");
    let last_target = lines
        .iter()
        .rposition(|l| l.starts_with("[t"))
        .expect("target lines");
    assert!(first_all > last_target, "{out}");
    // Each phase's totals, then its latency line and, where the targets' own rates add to more, the line
    // that says both (trial 21 F6).
    let mut expected: Vec<String> = Vec::new();
    for p in &agg.phases {
        let prefix = "[all 2 targets] ";
        expected.push(format!(
            "{prefix}phase {} \"{}\": {}",
            p.index,
            p.name,
            expected_totals(p)
        ));
        expected.extend(expected_sum_lines(prefix, "targets", p));
    }
    assert!(
        expected.iter().any(|l| l.contains("latency: read mean")),
        "{out}"
    );
    let n = expected.len();
    assert_eq!(lines[first_all..first_all + n], expected[..], "{out}");
    assert!(lines[first_all + n].starts_with("done: "), "{out}");
    assert_eq!(agg.phases[1].read.ops + agg.phases[1].write.ops, 1024);

    // `wkrun merge` of the targets' folders prints the same per-phase lines after its summary.
    let o = wkrun(d, &["merge", "out/t0-a.img", "out/t1-b.img", "-o", "m"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "merge: {err}");
    let (m, _) = strict_results(&d.join("m"));
    let mut want = format!(
        "merged 2 hosts, 2 phases: {}\n",
        Path::new("m").join("results.json").display()
    );
    for p in &m.phases {
        want.push_str(&format!(
            "  phase {} \"{}\": {}\n",
            p.index,
            p.name,
            expected_totals(p)
        ));
        for l in expected_sum_lines("  ", "hosts", p) {
            want.push_str(&l);
            want.push('\n');
        }
    }
    assert_eq!(out, want);

    // The report of the aggregate: a table of the targets in each phase, each row its results' numbers
    // (the first is the workload's: the results come first, the fill under Preparation).
    let html = report_html(d, "out", "rep");
    assert_eq!(html.matches("<table class=\"hosts\">").count(), 2);
    let rows = table_rows(&html, "hosts");
    let first = &agg.phases[1];
    assert_eq!(rows.len(), 2);
    let hosts = &agg.cluster.as_ref().expect("cluster").hosts;
    for (row, h) in rows.iter().zip(&first.hosts) {
        let mut want = vec![
            h.host.to_string(),
            h.rank.map_or("–".into(), |r| r.to_string()),
            hosts[h.host].hostname.clone(),
            hosts[h.host].target_path.clone(),
        ];
        want.extend(cells(&h.read, &h.write, Some(h.duration_s)));
        assert_eq!(row, &want);
    }

    // The report of one target: a table of the workers of its 2-worker phase, each row its results'.
    let (t0, _) = strict_results(&d.join("out/t0-a.img"));
    let html = report_html(d, "out/t0-a.img", "rep0");
    let p = &t0.phases[1];
    assert_eq!(p.workers.len(), 2);
    let rows = table_rows(&html, "workers");
    for (row, w) in rows.iter().zip(&p.workers) {
        let mut want = vec![
            w.worker.to_string(),
            format!(
                "[{}, {})",
                w.span_start_bytes,
                w.span_start_bytes + w.span_bytes
            ),
        ];
        want.extend(cells(&w.read, &w.write, w.duration_s));
        assert_eq!(row, &want);
    }
    assert_eq!(rows.len(), 2);
    // The fill has one worker: only one workers table in the page.
    assert_eq!(html.matches("<table class=\"workers\">").count(), 1);
    // The phase's line says the workers and each one's queue depth, as the console and the plan do (a
    // bare QD1 read as the whole phase's); the one-worker fill its QD alone.
    assert!(
        html.contains(
            "<p class=\"params\">workload · 4096 B blocks · 2 workers × QD1 · 50 % reads"
        ),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"params\">fill · 65536 B blocks · QD1"),
        "{html}"
    );
}
