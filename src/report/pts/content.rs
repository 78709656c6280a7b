//! What each PTS test's section holds: the set-up table, the blocks' convergence and window plots, the
//! test's tables and 2-D plots.

use super::numbers::{
    CellLatency, cell_latency, cell_phase, histograms, iops_against_written, label, label_table,
    per_block_size, percentile, rows_against_time,
};
use super::{PtsSection, PtsTable, PtsTest};
use crate::report::chart::lines::{Curve, XyAxes, fitted, xy_chart};
use crate::report::chart::{PlotError, Points, colour};
use crate::report::model::Figure;
use crate::report::runs::RunData;
use crate::results::PhaseResult;
use crate::results::rounds::RoundBlockResult;
use crate::spec::PhaseKind;
use crate::vocab::{Direction, Metric, Quantity};

/// A number with `d` decimals, as the tables print them.
pub fn num(v: f64, d: usize) -> String {
    format!("{v:.d$}")
}

/// What the tracked metric is called, its unit and the factor from results' units to it.
pub fn unit(m: Metric) -> (&'static str, &'static str, f64) {
    match m.parts().1 {
        Quantity::Iops => (m.as_str(), "IOPS", 1.0),
        Quantity::BwBytesPerS => (m.as_str(), "MB/s", 1e-6),
        Quantity::LatMeanNs | Quantity::LatMaxNs => (m.as_str(), "µs", 1e-3),
    }
}

fn is_precondition(p: &PhaseResult) -> bool {
    p.kind != PhaseKind::Erase && p.name.starts_with("precondition")
}

/// The test's own workload phases: neither erases nor preconditioning.
fn test_phases(run: &RunData) -> impl Iterator<Item = (usize, &PhaseResult)> {
    run.results
        .phases
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == PhaseKind::Workload && !is_precondition(p))
}

/// The set-up table of the PTS report: device, purge, preconditioning, active range, thread count and queue
/// depth, write cache, steady state.
pub fn setup(run: &RunData, test: Option<PtsTest>) -> Vec<(String, String)> {
    let r = &run.results;
    let t = &r.target;
    let cap = t.capacity_bytes.max(1);
    let mut rows = vec![(
        "Test".to_string(),
        format!(
            "{} — spec {} {}",
            test.map_or("blocks of rounds", PtsTest::title),
            r.spec.name,
            r.spec.version
        ),
    )];
    let ids: Vec<String> = [
        ("model", &t.model),
        ("serial", &t.serial),
        ("firmware", &t.firmware),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
    .collect();
    rows.push((
        "Device".into(),
        format!(
            "{} ({}, {} B, {:.2} GB{}{})",
            run.target_name(),
            t.path.display(),
            t.capacity_bytes,
            t.capacity_bytes as f64 / 1e9,
            if ids.is_empty() { "" } else { "; " },
            ids.join(", ")
        ),
    ));
    let purges: Vec<String> = r
        .phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Erase)
        .map(|p| {
            let m = p.erase_method.or(p.params.method);
            format!(
                "\"{}\": {} over {:.0} % of the capacity",
                p.name,
                m.map_or("?", |m| m.as_str()),
                p.params.span_bytes as f64 * 100.0 / cap as f64
            )
        })
        .collect();
    rows.push(("Purge".into(), list_or(purges, "none")));
    let pre: Vec<String> = r
        .phases
        .iter()
        .filter(|p| is_precondition(p))
        .map(|p| {
            format!(
                "\"{}\": {} B {} writes, {} B written ({:.2} × the capacity)",
                p.name,
                p.params.block_size_bytes.unwrap_or(0),
                pattern(p),
                p.write.bytes,
                p.write.bytes as f64 / cap as f64
            )
        })
        .collect();
    rows.push((
        "Preconditioning".into(),
        list_or(pre, "none apart from the test's own stimulus"),
    ));
    rows.push(("Active range".into(), active_range(run)));
    rows.push(("Threads and queue depth".into(), threads(run)));
    rows.push(("Write cache".into(), write_cache(run)));
    rows.push(("Steady state".into(), steady(run)));
    rows
}

/// A phase's access pattern in words (`sequential`).
fn pattern(p: &PhaseResult) -> String {
    p.params
        .pattern
        .map_or("–".into(), |x| format!("{x:?}").to_lowercase())
}

fn list_or(v: Vec<String>, none: &str) -> String {
    match v.is_empty() {
        true => none.into(),
        false => v.join("; "),
    }
}

/// The test phases' spans, as shares of the capacity from their offset.
fn active_range(run: &RunData) -> String {
    let cap = run.results.target.capacity_bytes.max(1) as f64;
    let mut seen: Vec<String> = Vec::new();
    for (_, p) in test_phases(run) {
        let s = format!(
            "{:.1} % of the capacity ({} B from offset {} B)",
            p.params.span_bytes as f64 * 100.0 / cap,
            p.params.span_bytes,
            p.params.span_start_bytes
        );
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    list_or(seen, "no test phase ran")
}

/// The test phases' thread counts and queue depths, as the PTS writes them (`T1Q32`).
fn threads(run: &RunData) -> String {
    let mut seen: Vec<String> = Vec::new();
    for (_, p) in test_phases(run) {
        let s = format!(
            "T{}Q{}",
            p.params.workers.unwrap_or(1),
            p.params.queue_depth.unwrap_or(1)
        );
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    list_or(seen, "–")
}

/// The write cache as the run found, set and left it.
fn write_cache(run: &RunData) -> String {
    let Some(w) = &run.results.target.write_cache else {
        return "not applicable (a simulated drive)".into();
    };
    let found = match (w.state, w.read_from) {
        (Some(s), Some(f)) => format!(
            "{} (read from {})",
            s.as_str(),
            match f {
                crate::target::CacheSource::Nvme => "NVMe Get Features",
                crate::target::CacheSource::Sysfs => "the kernel's view, sysfs queue/write_cache",
                crate::target::CacheSource::ScsiDisk => "sysfs scsi_disk cache_type",
            }
        ),
        (Some(s), None) => s.as_str().to_string(),
        _ => "not known".into(),
    };
    match &w.run {
        Some(c) => format!(
            "set {} by the run: {} before, {} during, {} after{}",
            c.requested.as_str(),
            c.before.as_str(),
            c.during.as_str(),
            c.restored.map_or("not restored", |s| s.as_str()),
            c.restore_error
                .as_ref()
                .map_or(String::new(), |e| format!(" ({e})"))
        ),
        None => format!(
            "{found}, left as found{}",
            w.unavailable
                .as_ref()
                .map_or(String::new(), |u| format!(" (cannot be set: {u})"))
        ),
    }
}

/// A block's verdict in words.
pub fn block_verdict(b: &RoundBlockResult) -> String {
    let n = b.rounds.len();
    let window = b.window.map_or(String::new(), |w| {
        format!(", window rounds {} to {}", w.first, w.last)
    });
    match (b.steady_at_round, &b.not_judged) {
        (Some(r), _) if b.at_rule_floor => format!(
            "block \"{}\": steady at round {r}, the earliest the rule allows (its first window){window}",
            b.name
        ),
        (Some(r), _) => format!("block \"{}\": steady at round {r}{window}", b.name),
        (None, Some(why)) => format!("block \"{}\": not judged: {why}", b.name),
        (None, None) => format!(
            "block \"{}\": not steady in {n} rounds (at most {}){window}",
            b.name, b.plan.max_rounds
        ),
    }
}

/// Every block's verdict and every phase steady-state verdict.
fn steady(run: &RunData) -> String {
    let mut v: Vec<String> = run.results.round_blocks.iter().map(block_verdict).collect();
    for p in &run.results.phases {
        if let Some(s) = &p.steady_state {
            v.push(format!("phase \"{}\": {}", p.name, s.verdict_text()));
        }
    }
    list_or(
        v,
        "no steady-state rule in this test (it records the drive over time)",
    )
}

/// Fills section `s` of `run`: the blocks' plots, then the test's tables and plots.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn fill(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    // HIR's blocks are its wait states' cycles, every round in the window: their convergence plots show
    // each burst, a window plot would add nothing.
    let window = s.test != Some(PtsTest::Hir);
    for (k, b) in run.results.round_blocks.iter().enumerate() {
        block_plots(run, s, (k, b), window)?;
    }
    match s.test {
        Some(PtsTest::Iops) => iops(run, s),
        Some(PtsTest::Throughput) => {
            throughput(run, s);
            Ok(())
        }
        Some(PtsTest::Latency) => latency(run, s),
        Some(PtsTest::Wsat) => wsat(run, s),
        Some(PtsTest::Hir) => hir(run, s),
        Some(PtsTest::Xsr) => xsr(run, s),
        Some(PtsTest::Dirth) => dirth(run, s),
        None => {
            cells(run, s);
            Ok(())
        }
    }
}

fn push(s: &mut PtsSection, kind: &str, chart: crate::report::chart::Chart) {
    let file = format!("{}-{kind}.svg", s.anchor);
    s.figures.push(Figure { file, chart });
}

/// The convergence plot of block `b` (the `k`th) and, with `window`, its measurement-window plot.
fn block_plots(
    run: &RunData,
    s: &mut PtsSection,
    (k, b): (usize, &RoundBlockResult),
    window: bool,
) -> Result<(), PlotError> {
    let u = unit(b.plan.track.metric);
    let subject = format!(
        "{} of {} · block \"{}\" · {}",
        u.0, b.plan.track.phase, b.name, run.label
    );
    let c = crate::report::chart::convergence::convergence_chart(b, &subject, u)?;
    push(s, &format!("b{k}-convergence"), c);
    if !window {
        return Ok(());
    }
    if let Some(c) = crate::report::chart::ss_window::window_chart(b, &subject, u)? {
        push(s, &format!("b{k}-window"), c);
    }
    Ok(())
}

/// `R/W` of a read percentage label: `65` → `65/35`.
fn mix(read: &str) -> String {
    match read.parse::<u32>() {
        Ok(r) if r <= 100 => format!("{r}/{}", 100 - r),
        _ => read.to_string(),
    }
}

/// The IOPS table (R/W mix × block size, the window's mean total IOPS) and IOPS against block size.
fn iops(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    let Some(b) = run.results.round_blocks.first() else {
        return Ok(());
    };
    let t = label_table(run, b, ("read", "bs"), |f| f.iops);
    let mut head = vec!["R/W mix".to_string()];
    head.extend(t.cols.iter().cloned());
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: format!(
            "Total IOPS of each R/W mix and block size, averaged over the measurement window ({}).",
            block_verdict(b)
        ),
        head,
        rows: t
            .rows
            .iter()
            .zip(&t.values)
            .map(|(r, vals)| {
                std::iter::once(mix(r))
                    .chain(vals.iter().map(|v| v.map_or("–".into(), |v| num(v, 1))))
                    .collect()
            })
            .collect(),
    });
    let curves = per_block_size(run, b, "read", |f| f.iops);
    by_block_size(s, "iops-bs", "IOPS", &curves, "total IOPS")
}

/// A plot of a figure against block size, one curve per R/W mix.
fn by_block_size(
    s: &mut PtsSection,
    kind: &str,
    what: &str,
    curves: &[(String, Vec<(f64, f64)>)],
    y_desc: &str,
) -> Result<(), PlotError> {
    let curves: Vec<Curve> = curves
        .iter()
        .enumerate()
        .map(|(k, (read, pts))| {
            Curve::marked(
                format!("R/W {}", mix(read)),
                pts.iter().map(|&(x, y)| (x / 1024.0, y)).collect(),
                colour(k),
            )
        })
        .collect();
    let y_desc = format!("{y_desc} (log scale)");
    let axes = XyAxes::around(
        &curves,
        (true, true),
        "block size, KiB (log scale)",
        &y_desc,
    );
    let c = xy_chart(
        &format!("{what} against block size — {}", s.title),
        format!("{what} of each cell averaged over the measurement window, one curve per R/W mix."),
        &axes,
        &curves,
    )?;
    push(s, kind, c);
    Ok(())
}

/// The throughput table: per block, its block size and the window's read and write MB/s.
fn throughput(run: &RunData, s: &mut PtsSection) {
    let rows = run
        .results
        .round_blocks
        .iter()
        .map(|b| {
            let bw = |read: &str, f: fn(&crate::results::rounds::Figures) -> f64| {
                b.cells
                    .iter()
                    .find(|c| cell_phase(run, c).and_then(|p| label(p, "read")) == Some(read))
                    .map_or("–".into(), |c| num(f(&c.figures) / 1e6, 2))
            };
            let bs = b
                .cells
                .first()
                .and_then(|c| cell_phase(run, c))
                .and_then(|p| p.params.block_size_bytes)
                .map_or("–".into(), |v| format!("{} KiB", v / 1024));
            vec![
                b.name.clone(),
                bs,
                bw("100", |f| f.read_bw_bytes_per_s),
                bw("0", |f| f.write_bw_bytes_per_s),
                block_verdict(b),
            ]
        })
        .collect();
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: "Sequential read and write bandwidth (MB/s = 10⁶ B/s) of each block size, averaged over its measurement window.".into(),
        head: ["block", "block size", "read MB/s", "write MB/s", "steady state"]
            .map(String::from)
            .to_vec(),
        rows,
    });
}

/// The latency table: per cell, the average, maximum and five-nines response times over the window; and
/// the average against block size.
fn latency(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    let Some(b) = run.results.round_blocks.first() else {
        return Ok(());
    };
    let us = |v: Option<f64>| v.map_or("–".into(), |v| num(v, 2));
    let rows = b
        .cells
        .iter()
        .map(|c| {
            let p = cell_phase(run, c);
            let l: CellLatency = cell_latency(run, c);
            vec![
                p.and_then(|p| label(p, "bs")).unwrap_or("–").to_string(),
                mix(p.and_then(|p| label(p, "read")).unwrap_or("–")),
                us(Some(l.mean_us)),
                us(Some(l.max_us)),
                us(l.nines_us),
            ]
        })
        .collect();
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: format!(
            "Response times of each block size and R/W mix over the measurement window, µs: the average of the rounds' averages, the largest of their maxima, and the 99.999th percentile of all their I/Os ({}).",
            block_verdict(b)
        ),
        head: ["block size", "R/W mix", "average µs", "maximum µs", "99.999 % µs"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    let curves = per_block_size(run, b, "read", |f| f.lat_mean_ns / 1e3);
    by_block_size(
        s,
        "latency-bs",
        "Average latency",
        &curves,
        "average latency, µs",
    )
}

/// The phase that saturates: the last workload phase.
fn last_workload(run: &RunData) -> Option<(usize, &PhaseResult)> {
    test_phases(run).last()
}

/// WSAT: IOPS against time and against total GB written, and the summary of the phase.
fn wsat(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    let Some((k, p)) = last_workload(run) else {
        return Ok(());
    };
    let by_time: Vec<(f64, f64)> = rows_against_time(run, k, 0.0, |r| r.rate(|d| d.iops))
        .into_iter()
        .map(|(t, y)| (t / 60.0, y))
        .collect();
    let by_gb = iops_against_written(run, k);
    for (kind, pts, x_desc) in [
        ("iops-time", by_time, "time, minutes"),
        ("iops-tgbw", by_gb, "total written, GB (10⁹ B)"),
    ] {
        let axes = XyAxes {
            x: fitted(pts.iter().map(|p| p.0), false),
            y: fitted(pts.iter().map(|p| p.1), false),
            x_desc: x_desc.into(),
            y_desc: "total IOPS".into(),
        };
        let n = pts.len();
        let c = xy_chart(
            &format!("WSAT: IOPS against {x_desc} — {}", run.label),
            format!(
                "Total IOPS of each full interval of \"{}\" ({n} intervals).",
                p.name
            ),
            &axes,
            &[Curve::marked("IOPS per interval", pts, colour(0))],
        )?;
        push(s, kind, c);
    }
    let rows = rows_against_time(run, k, 0.0, |r| r.rate(|d| d.iops));
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: "The write saturation phase: its length, what it wrote, and its IOPS.".into(),
        head: [
            "phase",
            "minutes",
            "written GB",
            "mean IOPS",
            "last interval IOPS",
        ]
        .map(String::from)
        .to_vec(),
        rows: vec![vec![
            p.name.clone(),
            num(p.duration_s / 60.0, 2),
            num(p.write.bytes as f64 / 1e9, 3),
            num(p.total.iops, 1),
            rows.last().map_or("–".into(), |r| num(r.1, 1)),
        ]],
    });
    Ok(())
}

/// HIR: each burst's write IOPS against time (from the first burst, idles included), the host's activity
/// per wait state (each burst's and idle's write IOPS over its whole length: the idles are the drops to
/// none), the baselines' intervals; per wait state, the bursts' mean and the baseline's IOPS.
fn hir(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    let curves = hir_curves(run);
    let axes = XyAxes::around(
        &curves,
        (false, false),
        "time from the first burst, s",
        "write IOPS",
    );
    let c = xy_chart(
        &format!("HIR: write IOPS against time — {}", run.label),
        "Each burst's write IOPS at its middle, one curve per wait state; each wait state's bursts and idles as steps over their lengths (the idle periods are the steps down to the idle's write IOPS, none); the baselines' intervals.".into(),
        &axes,
        &curves,
    )?;
    push(s, "iops-time", c);
    let rows = run
        .results
        .round_blocks
        .iter()
        .map(|b| {
            let baseline = run
                .results
                .phases
                .iter()
                .find(|p| p.name == format!("baseline-{}", b.name))
                .map_or("–".into(), |p| num(p.write.iops, 1));
            vec![
                b.name.clone(),
                b.rounds.len().to_string(),
                num(b.window_mean, 1),
                num(b.window_min, 1),
                num(b.window_max, 1),
                baseline,
            ]
        })
        .collect();
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: "Per wait state: the bursts' write IOPS (mean, lowest, highest) and the baseline's after them.".into(),
        head: ["wait state", "bursts", "mean IOPS", "lowest IOPS", "highest IOPS", "baseline IOPS"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    Ok(())
}

/// The curves of the HIR time plot: per wait state (`burst-wN`), its bursts' points, then its bursts and
/// idles as steps; per baseline, its intervals. Times from the first burst's start.
fn hir_curves(run: &RunData) -> Vec<Curve> {
    let mut offset = 0.0;
    let mut started = false;
    // Per wait state: (its name, the bursts' middles, the steps of bursts and idles).
    let mut states: Vec<(String, Points, Points)> = Vec::new();
    let mut baselines = Vec::new();
    for (k, p) in run.results.phases.iter().enumerate() {
        started |= p.name.starts_with("burst-");
        if !started {
            continue;
        }
        let base = p.name.split('[').next().unwrap_or(&p.name);
        let (burst, w) = match (base.strip_prefix("burst-"), base.strip_prefix("idle-")) {
            (Some(w), _) => (true, w),
            (None, Some(w)) => (false, w),
            (None, None) => {
                if base.starts_with("baseline-") {
                    let pts = rows_against_time(run, k, offset, |r| r[Direction::Write].iops);
                    baselines.push((p.name.clone(), pts));
                }
                offset += p.duration_s;
                continue;
            }
        };
        let at = match states.iter().position(|x| x.0 == w) {
            Some(i) => i,
            None => {
                states.push((w.to_string(), vec![], vec![]));
                states.len() - 1
            }
        };
        let y = p.write.iops;
        if burst {
            states[at].1.push((offset + p.duration_s / 2.0, y));
        }
        states[at]
            .2
            .extend([(offset, y), (offset + p.duration_s, y)]);
        offset += p.duration_s;
    }
    let mut curves = Vec::new();
    for (n, (w, bursts, steps)) in states.into_iter().enumerate() {
        let idles = steps.len() / 2 - bursts.len();
        curves.push(Curve::marked(
            format!("bursts, wait state {w} ({} points)", bursts.len()),
            bursts,
            colour(n),
        ));
        curves.push(Curve::thin(
            format!(
                "{w}: host activity, {} points ({idles} idle periods)",
                steps.len()
            ),
            steps,
            colour(n),
        ));
    }
    for (name, pts) in baselines {
        curves.push(Curve::thin(
            format!("\"{name}\", per interval"),
            pts,
            colour(5),
        ));
    }
    curves
}

/// XSR: the bandwidth of every interval of the access groups, one after the other; per group, its mean
/// bandwidth and latency.
fn xsr(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    let mut offset = 0.0;
    let mut curves = Vec::new();
    let mut rows = Vec::new();
    for (n, (k, p)) in test_phases(run).enumerate() {
        let pts: Vec<(f64, f64)> =
            rows_against_time(run, k, offset, |r| r.rate(|d| d.bw_bytes_per_s) / 1e6)
                .into_iter()
                .map(|(t, y)| (t / 60.0, y))
                .collect();
        curves.push(Curve::marked(format!("\"{}\"", p.name), pts, colour(n)));
        rows.push(vec![
            p.name.clone(),
            p.params
                .block_size_bytes
                .map_or("–".into(), |b| format!("{} KiB", b / 1024)),
            pattern(p),
            num(p.duration_s / 60.0, 2),
            num(p.total.bw_bytes_per_s / 1e6, 2),
            p.total
                .latency_ns
                .as_ref()
                .map_or("–".into(), |l| num(l.mean / 1e3, 2)),
        ]);
        offset += p.duration_s;
    }
    let axes = XyAxes::around(&curves, (false, false), "time, minutes", "bandwidth, MB/s");
    let c = xy_chart(
        &format!("XSR: bandwidth against time — {}", run.label),
        "The bandwidth of each full interval of the access groups, one after the other.".into(),
        &axes,
        &curves,
    )?;
    push(s, "bw-time", c);
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: "Each access group: its stimulus, length, mean bandwidth and mean latency.".into(),
        head: [
            "group",
            "block size",
            "pattern",
            "minutes",
            "MB/s",
            "mean latency µs",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    Ok(())
}

/// DIRTH: per demand level, IOPS and response times over the window; IOPS against latency; the
/// response-time histograms of the phases named `hist…`.
fn dirth(run: &RunData, s: &mut PtsSection) -> Result<(), PlotError> {
    let Some(b) = run.results.round_blocks.first() else {
        return Ok(());
    };
    let mut rows = Vec::new();
    let mut pts = Vec::new();
    for c in &b.cells {
        let l = cell_latency(run, c);
        let p = cell_phase(run, c);
        let level = p.map_or("–".into(), |p| {
            format!(
                "T{}Q{}",
                p.params.workers.unwrap_or(1),
                p.params.queue_depth.unwrap_or(1)
            )
        });
        pts.push((c.figures.iops, l.mean_us));
        rows.push(vec![
            level,
            num(c.figures.iops, 1),
            num(l.mean_us, 2),
            num(l.max_us, 2),
            l.nines_us.map_or("–".into(), |v| num(v, 2)),
        ]);
    }
    s.tables.push(PtsTable {
        id: format!("{}-table", s.anchor),
        caption: format!(
            "Each demand level (threads and queue depth) over the measurement window: IOPS, average, maximum and five-nines response time, µs ({}).",
            block_verdict(b)
        ),
        head: ["level", "IOPS", "average µs", "maximum µs", "99.999 % µs"].map(String::from).to_vec(),
        rows,
    });
    let axes = XyAxes {
        x: fitted(pts.iter().map(|p| p.0), false),
        y: fitted(pts.iter().map(|p| p.1), false),
        x_desc: "total IOPS".into(),
        y_desc: "average response time, µs".into(),
    };
    let mut curves: Vec<Curve> = super::dirth::ceiling(b, &pts).into_iter().collect();
    curves.push(Curve::marked(
        format!("demand levels ({} points)", pts.len()),
        pts,
        colour(0),
    ));
    curves.extend(super::dirth::marks(b));
    let c = xy_chart(
        &format!("DIRTH: IOPS against response time — {}", run.label),
        "One point per demand level, from the highest to the lowest, averaged over the measurement window: the demand-intensity curve; MaxIOPS (the knee), MidIOPS and MinIOPS marked, each a point of its own colour.".into(),
        &axes,
        &curves,
    )?;
    push(s, "iops-latency", c);
    if let Some(t) = super::dirth::points_table(run, b, &s.anchor) {
        s.tables.push(t);
    }
    for p in run
        .results
        .phases
        .iter()
        .filter(|p| p.name.starts_with("hist"))
    {
        let pairs = histograms(run, &[p.index]);
        if pairs.is_empty() {
            continue;
        }
        let nines = percentile(&pairs, 0.99999).map(|n| n as f64 / 1e3);
        let subject = format!("\"{}\" · {}", p.name, run.label);
        let c = crate::report::chart::histogram::histogram_chart(&subject, &pairs, nines)?;
        push(
            s,
            &format!("hist-{}", crate::results::outdir::slug(&p.name)),
            c,
        );
    }
    Ok(())
}

/// A run of another spec: each block's cells with their IOPS, bandwidth and mean latency.
fn cells(run: &RunData, s: &mut PtsSection) {
    for (k, b) in run.results.round_blocks.iter().enumerate() {
        s.tables.push(PtsTable {
            id: format!("{}-b{k}-table", s.anchor),
            caption: format!(
                "The cells of block \"{}\" averaged over its measurement window ({}).",
                b.name,
                block_verdict(b)
            ),
            head: ["cell", "IOPS", "MB/s", "mean latency µs"]
                .map(String::from)
                .to_vec(),
            rows: b
                .cells
                .iter()
                .map(|c| {
                    vec![
                        c.name.clone(),
                        num(c.figures.iops, 1),
                        num(c.figures.bw_bytes_per_s / 1e6, 2),
                        num(c.figures.lat_mean_ns / 1e3, 2),
                    ]
                })
                .collect(),
        });
    }
}
