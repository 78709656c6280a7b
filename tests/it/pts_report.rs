//! The SNIA PTS report (issue 29 item 3): `wkrun report` of a run of a `specs/snia/` spec has one linked
//! section per test with its set-up table, the measurement window's tables and the standard's plots. Every
//! number of a table is recomputed here from the run's series CSVs or its phases' results (each round's
//! rate from the CSV rows, five nines from the latency histograms), by code independent of wkrun's. The
//! runs are the specs' trial forms (`--set`) on the small simulated drive: seconds each.

use crate::common::*;
use crate::rounds::csv_rate;
use crate::snia::{PtsRun, run_and_report_in, throughput, wsat, xsr};
use crate::sweep_members::named;
use serde_json::Value;
use std::path::PathBuf;

/// The IOPS test's trial form narrowed to 2 mixes × 2 block sizes.
const NARROW_IOPS: [&str; 6] = [
    "--set",
    "duration=2s",
    "--set",
    "read_percent=[65,0]",
    "--set",
    "block_size=[\"8KiB\",\"4KiB\"]",
];

/// Runs `specs/snia/NAME.toml` with `args` on the small simulated drive ([`run_pts`]) and reports it: the
/// temporary folder, the results folder, the results and the page.
fn run_and_report(name: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf, Value, String) {
    let dir = tempdir();
    let PtsRun { out, r, page } = run_and_report_in(dir.path(), name, args);
    (dir, out, r, page)
}

/// The IOPS test's narrowed trial run and its report, read by two tests here: made once.
static IOPS: Shared<PtsRun> = Shared::new(2);

/// [`IOPS`].
fn narrow_iops() -> Held<PtsRun> {
    IOPS.get(|d| run_and_report_in(d, "iops", &NARROW_IOPS))
}

/// The body cells of the table `id` of `page`, row by row, as text (entities of `&`, `<`, `>`, `"`
/// undone).
fn table(page: &str, id: &str) -> Vec<Vec<String>> {
    let start = page
        .find(&format!("<table id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no table {id}"));
    let t = &page[start..start + page[start..].find("</table>").expect("table end")];
    let body = &t[t.find("<tbody>").expect("tbody")..];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').expect("td") + 1..c.find("</td>").expect("/td")];
                    c.replace("&quot;", "\"")
                        .replace("&#39;", "'")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

/// The set-up table's value of `item`.
fn setup(page: &str, anchor: &str, item: &str) -> String {
    let start = page
        .find(&format!("<table id=\"{anchor}-setup\">"))
        .expect("setup table");
    let t = &page[start..start + page[start..].find("</table>").expect("end")];
    let at = t
        .find(&format!("<th class=\"l\">{item}</th><td class=\"l\">"))
        .unwrap_or_else(|| panic!("no {item}"));
    let v = &t[at..];
    let v = &v[v.find("<td class=\"l\">").expect("td") + 14..];
    v[..v.find("</td>").expect("/td")]
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// `got` (a table's text) is `want` printed with `d` decimals, within the printing's rounding.
fn near(got: &str, want: f64, d: i32) {
    let g: f64 = got
        .parse()
        .unwrap_or_else(|_| panic!("{got:?} is not a number"));
    assert!(
        (g - want).abs() <= 0.5 * 10f64.powi(-d) + 1e-9 * want.abs(),
        "{got} vs {want}"
    );
}

/// The window's first and last round of block `b`.
fn window(b: &Value) -> std::ops::RangeInclusive<u64> {
    u(b, "/window/first")..=u(b, "/window/last")
}

/// Oracle: the 99.999th percentile (ns) of the pairs: the first value, in increasing order, at which the
/// running count reaches ⌈0.99999 × total⌉.
fn five_nines(mut pairs: Vec<(u64, u64)>) -> u64 {
    pairs.sort();
    let total: u64 = pairs.iter().map(|p| p.1).sum();
    let need = (total as f64 * 0.99999).ceil() as u64;
    let mut sum = 0;
    for (v, c) in pairs {
        sum += c;
        if sum >= need {
            return v;
        }
    }
    unreachable!("the counts reach the total")
}

/// IOPS test, trial form narrowed to 2 mixes × 2 block sizes: the section is linked from the PTS list, its
/// set-up table says the purge, the 2× preconditioning and the verdict, and each cell of the IOPS table is
/// the mean over the window's rounds of that cell's total IOPS from its CSV.
#[test]
fn the_iops_report_tabulates_the_window_means_of_the_csvs() {
    let run = narrow_iops();
    let (dir, PtsRun { out, r, page }) = (run.dir, run.value);
    assert!(page.contains("<li><a href=\"#pts-iops\">SNIA PTS: IOPS test (PTS section 7)"));
    assert!(page.contains("<section id=\"pts-iops\" class=\"pts\">"));
    let b = &r["round_blocks"][0];
    let (first, last) = (u(b, "/window/first"), u(b, "/window/last"));
    // Steady in its first window (rounds 1 to 5): the earliest the rule allows, said so.
    let floor = match b["at_rule_floor"].as_bool() == Some(true) {
        true => ", the earliest the rule allows (its first window)",
        false => "",
    };
    assert_eq!((first, last, floor.is_empty()), (1, 5, false));
    assert_eq!(
        setup(page, "pts-iops", "Steady state"),
        format!("block \"iops\": steady at round {last}{floor}, window rounds {first} to {last}")
    );
    assert_eq!(
        setup(page, "pts-iops", "Preconditioning"),
        "\"precondition\": 131072 B sequential writes, 134217728 B written (2.00 × the capacity)"
    );
    assert_eq!(
        setup(page, "pts-iops", "Purge"),
        "\"purge\": discard over 100 % of the capacity"
    );
    assert_eq!(setup(page, "pts-iops", "Threads and queue depth"), "T1Q32");
    let rows = table(page, "pts-iops-table");
    assert_eq!(rows.len(), 2);
    for (row, read) in rows.iter().zip(["65", "0"]) {
        assert_eq!(
            row[0],
            format!("{read}/{}", 100 - read.parse::<u32>().unwrap())
        );
        for (cell, bs) in row[1..].iter().zip(["8KiB", "4KiB"]) {
            let rates: Vec<f64> = window(b)
                .map(|i| {
                    let p = named(r, &format!("iops[round={i},bs={bs},read={read}]"));
                    csv_rate(out, p, "read") + csv_rate(out, p, "write")
                })
                .collect();
            near(cell, rates.iter().sum::<f64>() / rates.len() as f64, 1);
        }
    }
    assert!(
        b.get("demand_intensity").is_none(),
        "cells of other mixes and sizes"
    );
    convergence_plots(page, r, "pts-iops", true);
    for f in ["b0-convergence", "b0-window", "iops-bs"] {
        let svg = dir.join(format!("rep/pts-iops-{f}.svg"));
        assert!(svg.is_file(), "{f}");
        let text = std::fs::read_to_string(svg).expect("svg");
        assert!(page.contains(text.trim()), "{f} inline");
    }
}

/// Latency test, narrowed to 2 mixes × 2 block sizes: each row's average is the mean of the window's
/// rounds' mean latencies, its maximum the largest of their maxima, its five nines the percentile of their
/// histograms together.
#[test]
fn the_latency_report_gives_average_maximum_and_five_nines() {
    let (_d, _out, r, page) = run_and_report(
        "latency",
        &[
            "--set",
            "duration=2s",
            "--set",
            "read_percent=[65,0]",
            "--set",
            "block_size=[\"4KiB\",\"512B\"]",
        ],
    );
    let b = &r["round_blocks"][0];
    let rows = table(&page, "pts-latency-table");
    let want: Vec<(&str, &str)> =
        vec![("4KiB", "65"), ("4KiB", "0"), ("512B", "65"), ("512B", "0")];
    assert_eq!(rows.len(), want.len());
    for (row, (bs, read)) in rows.iter().zip(want) {
        assert_eq!(
            (row[0].as_str(), row[1].as_str()),
            (bs, if read == "0" { "0/100" } else { "65/35" })
        );
        let ps: Vec<&Value> = window(b)
            .map(|i| named(&r, &format!("latency[round={i},bs={bs},read={read}]")))
            .collect();
        let mean = ps
            .iter()
            .map(|p| p["total"]["latency_ns"]["mean"].as_f64().expect("mean"))
            .sum::<f64>()
            / ps.len() as f64;
        let max = ps
            .iter()
            .map(|p| u(p, "/total/latency_ns/max"))
            .max()
            .expect("max");
        let pairs: Vec<(u64, u64)> = ps
            .iter()
            .flat_map(|p| {
                ["read", "write"].into_iter().flat_map(move |d| {
                    p["latency_histograms"][d]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|x| (x[0].as_u64().unwrap(), x[1].as_u64().unwrap()))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default()
                })
            })
            .collect();
        near(&row[2], mean / 1e3, 2);
        near(&row[3], max as f64 / 1e3, 2);
        // A histogram value is its bucket's top: the five nines is at most the largest I/O.
        let nines = five_nines(pairs);
        near(&row[4], nines.min(max) as f64 / 1e3, 2);
        let shown: f64 = row[4].parse().expect("five nines");
        assert!(shown <= max as f64 / 1e3 + 0.005, "{row:?}: {max}");
        // The cell's figures in results: means of rates and mean latencies, the largest of the maxima
        // (of each direction that has I/O in the cell; 0 for one without).
        let cell = b["cells"]
            .as_array()
            .expect("cells")
            .iter()
            .find(|c| c["name"] == format!("latency[bs={bs},read={read}]"))
            .expect("cell");
        let f = &cell["figures"];
        assert_eq!(f["lat_max_ns"].as_f64(), Some(max as f64), "{cell}");
        let mean_iops = ps
            .iter()
            .map(|p| p["total"]["iops"].as_f64().unwrap())
            .sum::<f64>()
            / ps.len() as f64;
        assert!((f["iops"].as_f64().unwrap() - mean_iops).abs() <= 1e-9 * mean_iops);
        // A direction the cell never does has no largest latency (null, not 0: the 0 %-read cells).
        for d in ["read", "write"] {
            let dmax = ps
                .iter()
                .filter_map(|p| p[d]["latency_ns"]["max"].as_u64())
                .max();
            assert_eq!(
                f[format!("{d}_lat_max_ns")].as_f64(),
                dmax.map(|m| m as f64),
                "{d}"
            );
            if dmax.is_none() {
                assert!(f[format!("{d}_lat_max_ns")].is_null(), "{d}");
            }
        }
    }
    assert!(page.contains("pts-latency-latency-bs.svg"));
    convergence_plots(&page, &r, "pts-latency", true);
}

/// Throughput test: per block size, the window's read and write MB/s from the CSVs (ops × block size over
/// the phase's time), both blocks steady at their first window.
#[test]
fn the_throughput_report_tabulates_mb_per_s_per_block_size() {
    let run = throughput();
    let PtsRun { out, r, page } = run.value;
    let rows = table(page, "pts-throughput-table");
    assert_eq!(rows.len(), 2);
    for (k, (row, (name, bs))) in rows
        .iter()
        .zip([("tp128k", 131072.0), ("tp1024k", 1048576.0)])
        .enumerate()
    {
        let b = &r["round_blocks"][k];
        assert_eq!(
            (row[0].as_str(), row[1].clone()),
            (name, format!("{} KiB", bs as u64 / 1024))
        );
        for (cell, (read, dir)) in row[2..4].iter().zip([("100", "read"), ("0", "write")]) {
            let v: Vec<f64> = window(b)
                .map(|i| {
                    csv_rate(
                        out,
                        named(r, &format!("{name}[round={i},read={read}]")),
                        dir,
                    ) * bs
                        / 1e6
                })
                .collect();
            near(cell, v.iter().sum::<f64>() / v.len() as f64, 2);
        }
        assert_eq!(
            row[4],
            format!(
                "block \"{name}\": steady at round 5, the earliest the rule allows (its first window), window rounds 1 to 5"
            )
        );
    }
    convergence_plots(page, r, "pts-throughput", true);
}

/// WSAT, whole on the small drive: its table's written GB are 4 × 64 MiB, its mean IOPS the phase's, its
/// last interval's IOPS the CSV's last full row; both plots (against time, against TGBW) are there; no
/// preconditioning and no steady-state rule, said so.
#[test]
fn the_wsat_report_plots_iops_against_time_and_tgbw() {
    let run = wsat();
    let (dir, PtsRun { out, r, page }) = (run.dir, run.value);
    let row = &table(page, "pts-wsat-table")[0];
    let w = named(r, "wsat");
    assert_eq!(row[0], "wsat");
    near(&row[2], (4u64 << 26) as f64 / 1e9, 3);
    near(&row[3], w["total"]["iops"].as_f64().expect("iops"), 1);
    let rows = csv_rows(&out.join(w["series_csv"].as_str().expect("csv")));
    let last = rows
        .iter()
        .rfind(|x| n(x, "partial") == 0)
        .expect("a full row");
    near(&row[4], f(last, "read_iops") + f(last, "write_iops"), 1);
    assert_eq!(
        setup(page, "pts-wsat", "Preconditioning"),
        "none apart from the test's own stimulus"
    );
    assert_eq!(
        setup(page, "pts-wsat", "Steady state"),
        "no steady-state rule in this test (it records the drive over time)"
    );
    for f in ["iops-time", "iops-tgbw"] {
        assert!(dir.join(format!("rep/pts-wsat-{f}.svg")).is_file(), "{f}");
    }
}

/// DIRTH narrowed to QD 32, 4, 2 and 1: each level's IOPS is the window mean of its CSV rates; the
/// operating points (MaxIOPS, the knee; MidIOPS; MinIOPS) are those the oracle picks from the CSVs; each
/// histogram plot counts every I/O of its phase; the convergence and window plots have a point per round.
#[test]
fn the_dirth_report_has_levels_curve_knee_and_histograms() {
    let qds = [32u64, 4, 2, 1];
    let (dir, out, r, page) = run_and_report(
        "dirth",
        &["--set", "duration=2s", "--set", "queue_depth=[32,4,2,1]"],
    );
    let b = &r["round_blocks"][0];
    let rows = table(&page, "pts-dirth-table");
    assert_eq!(rows.len(), qds.len());
    let mut levels = Vec::new();
    for (row, qd) in rows.iter().zip(qds) {
        assert_eq!(row[0], format!("T1Q{qd}"));
        let ps: Vec<&Value> = window(b)
            .map(|i| named(&r, &format!("dirth[round={i},qd={qd}]")))
            .collect();
        let iops = ps
            .iter()
            .map(|p| csv_rate(&out, p, "read") + csv_rate(&out, p, "write"))
            .sum::<f64>()
            / ps.len() as f64;
        let art = ps.iter().map(|p| csv_mean_latency_ns(&out, p)).sum::<f64>() / ps.len() as f64;
        near(&row[1], iops, 1);
        near(&row[2], art / 1e3, 2);
        levels.push(Level { qd, iops, art });
    }
    knee_matches_the_oracle(&r, &page, &levels);
    assert!(dir.path().join("rep/pts-dirth-iops-latency.svg").is_file());
    convergence_plots(&page, &r, "pts-dirth", true);
    // The override sets both phases' depths: the histograms run at the same levels.
    for qd in qds {
        let p = named(&r, &format!("hist[qd={qd}]"));
        let ops = histogram_count(p, "read") + histogram_count(p, "write");
        assert_eq!(ops, u(p, "/read/ops") + u(p, "/write/ops"));
        assert!(
            page.contains(&format!("{ops} I/Os, reads and writes together")),
            "hist[qd={qd}]"
        );
        let file = format!(
            "rep/pts-dirth-hist-{}.svg",
            wkrun::results::outdir::slug(&format!("hist[qd={qd}]"))
        );
        assert!(dir.path().join(file).is_file());
    }
}

/// A demand level as the oracle sees it: queue depth (one worker), window-mean IOPS and average response
/// time (ns), both from the CSVs.
struct Level {
    qd: u64,
    iops: f64,
    art: f64,
}

/// Oracle: a phase's mean latency (ns) over reads and writes from its CSV: each row's mean latency weighted
/// by its ops.
fn csv_mean_latency_ns(out: &std::path::Path, p: &Value) -> f64 {
    let rows = csv_rows(&out.join(p["series_csv"].as_str().expect("series_csv")));
    let (mut sum, mut ops) = (0.0, 0u64);
    for x in &rows {
        for d in ["read", "write"] {
            let k = n(x, &format!("{d}_ops"));
            if k > 0 {
                sum += f(x, &format!("{d}_lat_mean_us")) * k as f64;
                ops += k;
            }
        }
    }
    sum / ops as f64 * 1e3
}

/// The results' `demand_intensity` and the report's operating-point table and curve marks are the oracle's
/// pick: MinIOPS the lowest queue depth; MaxIOPS (the knee) the most IOPS at 5 ms or less (ties: less
/// latency, then less depth); MidIOPS the other level within 5 ms nearest the middle of the two.
fn knee_matches_the_oracle(r: &Value, page: &str, levels: &[Level]) {
    let d = &r["round_blocks"][0]["demand_intensity"];
    assert_eq!(u(d, "/ceiling_ns"), 5_000_000);
    let min = levels.iter().min_by_key(|l| l.qd).expect("levels");
    let mut under: Vec<&Level> = levels.iter().filter(|l| l.art <= 5e6).collect();
    under.sort_by(|a, b| {
        b.iops
            .partial_cmp(&a.iops)
            .unwrap()
            .then(a.art.partial_cmp(&b.art).unwrap())
            .then(a.qd.cmp(&b.qd))
    });
    let max = under.first().copied();
    let mid = max.and_then(|m| {
        let mid = (m.iops + min.iops) / 2.0;
        let mut c: Vec<&Level> = under
            .iter()
            .copied()
            .filter(|l| l.qd != m.qd && l.qd != min.qd)
            .collect();
        c.sort_by(|a, b| {
            (a.iops - mid)
                .abs()
                .partial_cmp(&(b.iops - mid).abs())
                .unwrap()
                .then(a.qd.cmp(&b.qd))
        });
        c.first().copied()
    });
    let rows = table(page, "pts-dirth-points");
    assert_eq!(rows.len(), 3);
    for ((key, name), (want, row)) in [
        ("max_iops", "MaxIOPS (the knee)"),
        ("mid_iops", "MidIOPS"),
        ("min_iops", "MinIOPS"),
    ]
    .into_iter()
    .zip([max, mid, Some(min)].into_iter().zip(&rows))
    {
        assert_eq!(row[0], name);
        let Some(l) = want else {
            assert!(d[key].is_null(), "{key}: {}", d[key]);
            assert_eq!(row[1], "none (no other level within 5 ms)");
            continue;
        };
        let p = &d[key];
        assert_eq!(p["cell"], format!("dirth[qd={}]", l.qd), "{key}");
        assert_eq!((u(p, "/queue_depth"), u(p, "/workers")), (l.qd, 1));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
        assert!(close(p["iops"].as_f64().unwrap(), l.iops), "{key} iops");
        assert!(
            close(p["lat_mean_ns"].as_f64().unwrap(), l.art),
            "{key} art"
        );
        assert_eq!(row[1], format!("T1Q{}", l.qd));
        near(&row[3], l.iops, 1);
        near(&row[4], l.art / 1e3, 2);
        // The histograms ran at every level (the override set both phases' depths).
        assert_eq!(row[5], format!("\"hist[qd={}]\"", l.qd));
        // Marked on the curve: its legend names the level, and its ring is drawn at the point.
        let svg = figure(page, "pts-dirth-iops-latency.svg");
        assert!(
            svg.contains(&format!("{name}: T1Q{}, {} IOPS at ", l.qd, row[3])),
            "{name} in the legend"
        );
    }
    let svg = figure(page, "pts-dirth-iops-latency.svg");
    // The ceiling's line is drawn when a level is over it (QD32 is, on the small drive).
    let over = levels.iter().any(|l| l.art > 5e6);
    assert_eq!(svg.contains("response-time ceiling, 5 ms"), over);
    let rings = 1 + usize::from(max.is_some()) + usize::from(mid.is_some());
    assert_eq!(svg.matches("<circle").count(), rings);
    assert_eq!(squares(svg, 0), levels.len(), "a point per level");
}

/// The inline SVG of the figure of `page` whose file is `file`.
fn figure<'a>(page: &'a str, file: &str) -> &'a str {
    let link = format!("<a href=\"{file}\">");
    let f = page
        .split("<figure ")
        .find(|f| f.contains(&link))
        .unwrap_or_else(|| panic!("no figure {file}"));
    &f[..f.find("</figure>").expect("figure end")]
}

/// `#RRGGBB` of the report's `k`th colour, as the SVG writes it.
fn svg_colour(k: usize) -> String {
    let c = wkrun::report::chart::colour(k);
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// The points of the marked curves of colour `k` in `svg`: its 6 × 6 squares.
fn squares(svg: &str, k: usize) -> usize {
    let fill = format!("fill=\"{}\"", svg_colour(k));
    svg.split("<rect ")
        .skip(1)
        .map(|r| &r[..r.find("/>").expect("rect end")])
        .filter(|r| r.contains("width=\"6\" height=\"6\"") && r.contains(&fill))
        .count()
}

/// The point counts of the thin lines (1 pixel) of colour `k` in `svg`, one per line.
fn thin_lines(svg: &str, k: usize) -> Vec<usize> {
    let stroke = format!("stroke=\"{}\" stroke-width=\"1\"", svg_colour(k));
    svg.split("<polyline ")
        .skip(1)
        .map(|l| &l[..l.find("/>").expect("polyline end")])
        .filter(|l| l.contains(&stroke))
        .map(|l| {
            let at = l.find("points=\"").expect("points") + 8;
            l[at..l[at..].find('"').expect("quote") + at]
                .split_whitespace()
                .count()
        })
        .collect()
}

/// Every block of rounds of `r` has its convergence plot in section `anchor` of `page`: a point per complete
/// round (first colour), the window's rounds again (second colour), the count in its legend; and, with
/// `window_plots`, its measurement-window plot with a point per window round (else none).
fn convergence_plots(page: &str, r: &Value, anchor: &str, window_plots: bool) {
    let blocks = r["round_blocks"].as_array().expect("round_blocks");
    assert!(!blocks.is_empty());
    let labels = page
        .matches("aria-label=\"Steady-state convergence")
        .count();
    assert_eq!(labels, blocks.len(), "one convergence plot per block");
    for (k, b) in blocks.iter().enumerate() {
        let rounds = b["rounds"].as_array().expect("rounds").len();
        let in_window = window(b).count();
        let svg = figure(page, &format!("{anchor}-b{k}-convergence.svg"));
        assert!(
            svg.contains(&format!("of each round ({rounds} rounds)")),
            "block {k} legend"
        );
        assert_eq!(squares(svg, 0), rounds, "block {k}: a point per round");
        assert_eq!(squares(svg, 1), in_window, "block {k}: the window's rounds");
        let file = format!("{anchor}-b{k}-window.svg");
        if window_plots {
            assert_eq!(
                squares(figure(page, &file), 0),
                in_window,
                "block {k} window"
            );
        } else {
            assert!(!page.contains(&file), "no window plot for block {k}");
        }
    }
}

/// HIR narrowed to 3 bursts per wait state: per wait state, the bursts' mean write IOPS (from their CSVs)
/// and the baseline's; the time plot.
#[test]
fn the_hir_report_tabulates_bursts_and_baselines() {
    let mut args = vec!["--set".to_string(), "duration=2s".to_string()];
    for w in ["w5", "w10", "w15", "w25", "w50"] {
        for k in ["max_rounds", "window"] {
            args.extend(["--set".to_string(), format!("repeat.{w}.{k}=3")]);
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (dir, out, r, page) = run_and_report("hir", &args);
    let rows = table(&page, "pts-hir-table");
    assert_eq!(rows.len(), 5);
    for (row, w) in rows.iter().zip(["w5", "w10", "w15", "w25", "w50"]) {
        assert_eq!((row[0].as_str(), row[1].as_str()), (w, "3"));
        let v: Vec<f64> = (1..=3)
            .map(|i| csv_rate(&out, named(&r, &format!("burst-{w}[round={i}]")), "write"))
            .collect();
        near(&row[2], v.iter().sum::<f64>() / 3.0, 1);
        let base = named(&r, &format!("baseline-{w}"));
        near(&row[5], base["write"]["iops"].as_f64().expect("iops"), 1);
    }
    assert!(dir.path().join("rep/pts-hir-iops-time.svg").is_file());
    // The cycles are blocks of rounds without a PTS rule of their own: no demand-intensity points.
    for b in r["round_blocks"].as_array().expect("blocks") {
        assert!(b.get("demand_intensity").is_none());
    }
    convergence_plots(&page, &r, "pts-hir", false);
    // The time plot: per wait state, a point per burst and the host's activity as steps, two points per
    // burst and two per idle (the idles are the drops between the bursts); a line per baseline.
    let svg = figure(&page, "pts-hir-iops-time.svg");
    for (k, w) in ["w5", "w10", "w15", "w25", "w50"].into_iter().enumerate() {
        let idles = (1..=3)
            .filter(|i| {
                r["phases"]
                    .as_array()
                    .expect("phases")
                    .iter()
                    .any(|p| p["name"] == format!("idle-{w}[round={i}]"))
            })
            .count();
        assert_eq!(idles, 3, "{w}");
        assert!(svg.contains(&format!("bursts, wait state {w} (3 points)")));
        assert!(svg.contains(&format!("{w}: host activity, 12 points (3 idle periods)")));
        assert_eq!(squares(svg, k), 3, "{w}: a point per burst");
        assert_eq!(
            thin_lines(svg, k),
            [12],
            "{w}: steps of 3 bursts and 3 idles"
        );
    }
    let full_rows: Vec<usize> = ["w5", "w10", "w15", "w25", "w50"]
        .into_iter()
        .map(|w| {
            let p = named(&r, &format!("baseline-{w}"));
            let rows = csv_rows(&out.join(p["series_csv"].as_str().expect("csv")));
            rows.iter().filter(|x| n(x, "partial") == 0).count()
        })
        .collect();
    assert_eq!(
        thin_lines(svg, 5),
        full_rows,
        "a line per baseline, a point per interval"
    );
}

/// XSR at 5 minutes a group: each group's MB/s is its bytes over its time from the CSV.
#[test]
fn the_xsr_report_tabulates_each_access_group() {
    let run = xsr();
    let (dir, PtsRun { out, r, page }) = (run.dir, run.value);
    let rows = table(page, "pts-xsr-table");
    let names: Vec<&str> = rows.iter().map(|x| x[0].as_str()).collect();
    assert_eq!(names, ["seq-1024k-1", "rnd-8k", "seq-1024k-2"]);
    for row in &rows {
        let p = named(r, &row[0]);
        let csv = csv_rows(&out.join(p["series_csv"].as_str().expect("csv")));
        let bytes: u64 = csv
            .iter()
            .map(|x| n(x, "read_bytes") + n(x, "write_bytes"))
            .sum();
        near(
            &row[4],
            bytes as f64 / f(csv.last().expect("row"), "t_s") / 1e6,
            2,
        );
    }
    assert!(dir.join("rep/pts-xsr-bw-time.svg").is_file());
}

/// Issue 24 (a newcomer's PTS trial: 2,734 plots and a 22 MB page for the IOPS test's 2 s trial, its PTS
/// table after a 280-row headline table): the PTS section comes first, then the headline numbers, the
/// contents and the phases; the block's round phases are one folded section with their tables and no plots
/// of their own, and no chart is drawn across them. The IOPS test narrowed to 2 mixes × 2 block sizes: its
/// plots are the preconditioning's 7 and the PTS section's 3, every one inline once.
#[test]
fn a_pts_report_puts_its_tables_first_and_plots_no_round_phase() {
    let run = narrow_iops();
    let (dir, PtsRun { r, page, .. }) = (run.dir, run.value);
    let rounds = r["round_blocks"][0]["rounds"]
        .as_array()
        .expect("rounds")
        .len();
    let phases = r["phases"].as_array().expect("phases");
    let in_rounds = phases
        .iter()
        .filter(|p| p["name"].as_str().expect("name").starts_with("iops[round="))
        .count();
    assert_eq!(in_rounds, 4 * rounds);
    assert_eq!(
        phases.len(),
        2 + in_rounds,
        "purge, precondition, the rounds"
    );
    let svgs = svg_names(&dir.join("rep"));
    assert_eq!(
        svgs,
        [
            "01-precondition-bandwidth.svg",
            "01-precondition-iops-linear-write.svg",
            "01-precondition-iops-log-write.svg",
            "01-precondition-latency-write.svg",
            "01-precondition-percentiles-over-time-write.svg",
            "01-precondition-percentiles.svg",
            "01-precondition-write-amplification.svg",
            "pts-iops-b0-convergence.svg",
            "pts-iops-b0-window.svg",
            "pts-iops-iops-bs.svg",
        ]
    );
    assert_eq!(page.matches("<figure ").count(), 10);
    assert_eq!(page.matches("<svg").count(), 10);
    // The order of the parts.
    let at = |text: &str| {
        page.find(text)
            .unwrap_or_else(|| panic!("no {text} on the page"))
    };
    let order = [
        at("<section id=\"pts\">"),
        at("<section id=\"pts-iops\" class=\"pts\">"),
        at("<table id=\"pts-iops-table\">"),
        at("<section id=\"headline\">"),
        at("<nav><h2>Contents</h2>"),
        at("<main>"),
        at("<section id=\"phase-0\">\n<h2>precondition</h2>"),
        at("<section id=\"rounds-1\">"),
        at("<section id=\"phase-1\">"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // The rounds' section: one entry in the contents, its phases' sections folded, each with its table.
    assert_eq!(
        page.matches("<li><a href=\"#rounds-1\">02 iops: the phases of its rounds</a></li>")
            .count(),
        1
    );
    assert!(!page.contains("<li><a href=\"#phase-1\">"));
    assert!(page.contains(&format!(
        "<h2>iops: the phases of its rounds</h2>\n<p class=\"meta\">The {in_rounds} phases of the block of rounds \"iops\", each with its table and no plots of its own: <a href=\"#pts-iops\">its PTS section</a> plots and tabulates the rounds.</p>\n<details><summary>{in_rounds} phases' tables</summary>"
    )));
    assert_eq!(page.matches("<section id=\"phase-").count(), 1 + in_rounds);
    assert!(
        !page.contains("<section id=\"sweep-"),
        "no chart across the rounds"
    );
    // The headline numbers folded past 40 rows (a row per phase with headline figures).
    let rows = phases
        .iter()
        .filter(|p| p["headline"].as_array().is_some_and(|h| !h.is_empty()))
        .count();
    assert_eq!(
        page.matches("<details><summary>").count(),
        1 + usize::from(rows > 40)
    );
    assert_eq!(
        page.contains(&format!("<details><summary>{rows} rows</summary>")),
        rows > 40
    );
    assert!(page.len() < 1_000_000, "{} B", page.len());
}
