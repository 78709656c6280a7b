//! `wkrun plan` as text: one line per phase with byte range, block size, I/Os in flight (workers × QD), bound
//! and expected bytes, then the roundings.

use super::{Bound, IoWork, PhasePlan, Plan, Work, WriteSource};
use crate::target::TargetKind;
use crate::text;
use crate::units::{Duration, fmt_bytes};
use crate::vocab::{EraseMethod, Expect, WorkersSplit};
use std::fmt::Write;

/// Renders the plan for humans.
pub fn render_text(plan: &Plan) -> String {
    let t = &plan.target;
    let mut out = String::new();
    let kind = match t.kind {
        TargetKind::File if t.created => "file, will be created (blocks preallocated)",
        TargetKind::File => "file",
        TargetKind::Block => "block device",
        TargetKind::Sim => "simulated SSD, virtual time",
    };
    let _ = writeln!(
        out,
        "spec {} {} ({})",
        plan.spec_name,
        plan.spec_version,
        plan.spec_path.display()
    );
    let _ = writeln!(
        out,
        "target {} ({kind}): {} B ({}), logical block {} B, physical block {} B{}",
        text::escaped(&t.path.to_string_lossy()),
        t.capacity_bytes,
        fmt_bytes(t.capacity_bytes),
        t.logical_block_size,
        t.physical_block_size,
        t.model
            .as_ref()
            .map(|m| format!(", model {m}"))
            .unwrap_or_default()
    );
    if let Some(line) = write_cache_line(plan) {
        let _ = writeln!(out, "{line}");
    }
    if t.kind == TargetKind::Sim {
        let _ = writeln!(
            out,
            "{} the simulated drive: nothing on this host is opened or written",
            if plan.writes() {
                "writes only to"
            } else {
                "only reads"
            }
        );
    } else if plan.writes() {
        let _ = writeln!(
            out,
            "DESTROYS the data of {} within the byte ranges below",
            text::escaped(&t.path.to_string_lossy())
        );
    }
    if let Some(p) = plan.lays_out_for() {
        let _ = writeln!(
            out,
            "lays out the file before phase {}, which reads it first: writes its {} B once (a created file's blocks are unwritten, and reads of them do not reach the device; fio does the same)",
            p.index, t.capacity_bytes
        );
    }
    phase_table(&mut out, plan);
    out
}

/// What a block device's volatile write cache is and what the run does with it; `None` for a file (whose
/// results say it is unavailable) and the simulated drive.
fn write_cache_line(plan: &Plan) -> Option<String> {
    let w = plan
        .target
        .write_cache
        .as_ref()
        .filter(|_| plan.target.kind == TargetKind::Block)?;
    let state = match (w.state, w.read_from) {
        (Some(s), Some(crate::target::CacheSource::Nvme)) => {
            format!("{} (NVMe Get Features)", s.as_str())
        }
        (Some(s), Some(crate::target::CacheSource::ScsiDisk)) => {
            format!("{} (sysfs scsi_disk cache_type)", s.as_str())
        }
        (Some(s), _) => format!(
            "{} (the kernel's view, sysfs queue/write_cache)",
            s.as_str()
        ),
        (None, _) => "unknown".to_string(),
    };
    Some(match (plan.write_cache, &w.unavailable) {
        (Some(want), _) => format!(
            "volatile write cache: {state}; the run sets it {} and sets it back at the end",
            want.as_str()
        ),
        // Why it cannot be set matters only to a spec that sets it, which is refused saying why; here one
        // line (the newcomer trial found a five-line paragraph on every plan of a loop device).
        (None, Some(_)) => format!(
            "volatile write cache: {state}; the run leaves it as it is ([target] write_cache cannot set it on this target: results' target.write_cache.unavailable says why)"
        ),
        (None, None) => format!("volatile write cache: {state}; the run leaves it as it is"),
    })
}

/// The phase table: a header and one row per phase with the lines under it. Each column is as wide as its
/// longest cell, so long expanded names, ranges and bounds do not shift the columns after them.
fn phase_table(out: &mut String, plan: &Plan) {
    const HEAD: [&str; 9] = [
        "#",
        "phase",
        "kind",
        "byte range [start, end)",
        "block",
        "in flight",
        "read%",
        "bound",
        "expected bytes",
    ];
    // Right-aligned columns: the numbers.
    const RIGHT: [bool; 9] = [true, false, false, false, true, true, true, false, true];
    const MIN: [usize; 9] = [3, 24, 13, 31, 8, 9, 6, 20, 15];
    let dash = || "-".to_string();
    // A block of rounds shows one round: its first, or the one `--from` starts in.
    let shown: Vec<&PhasePlan> = plan
        .phases
        .iter()
        .filter(|p| {
            plan.block_of(p.index)
                .is_none_or(|(_, b)| shown_round(plan, b, p.index))
        })
        .collect();
    let rows: Vec<[String; 9]> = shown
        .iter()
        .map(|p| {
            let (r, io) = (p.range(), p.io());
            [
                p.index.to_string(),
                p.name.clone(),
                p.kind.as_str().to_string(),
                format!("[{}, {})", r.start, r.end()),
                io.map_or_else(dash, block),
                io.map_or_else(dash, in_flight),
                read_percent(p).map_or_else(dash, |r| r.to_string()),
                bound(p, plan.target.kind),
                expected_bytes(p).map_or_else(dash, |b| b.to_string()),
            ]
        })
        .collect();
    let widths = text::widths(&MIN, &rows);
    let line = |row: [&str; 9]| {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            // Two spaces after the number, before the I/Os in flight and before the bound.
            line.push_str(match i {
                0 => "",
                1 | 5 | 7 => "  ",
                _ => " ",
            });
            line.push_str(&text::pad(cell, widths[i], RIGHT[i]));
        }
        line
    };
    let _ = writeln!(out, "\n{}", line(HEAD));
    let indent = " ".repeat(widths[0] + 3 + widths[1]);
    for (p, row) in shown.iter().zip(&rows) {
        let _ = writeln!(out, "{}", line(row.each_ref().map(String::as_str)));
        match p.index < plan.start_at {
            true => not_run(out, plan, &indent),
            false => phase_notes(out, p, &indent),
        }
        if let Some((_, b)) = plan.block_of(p.index)
            && b.round_of(p.index)
                .is_some_and(|(_, c)| c + 1 == b.phases_per_round)
        {
            block_line(out, b, &indent);
        }
    }
}

/// Whether phase `index` of block `b` is in the round `wkrun plan` shows: the first, or the one `--from`
/// starts in.
fn shown_round(plan: &Plan, b: &super::RoundBlock, index: usize) -> bool {
    let from = b.round_of(plan.start_at).map_or(1, |(r, _)| r);
    b.round_of(index).is_some_and(|(r, _)| r == from)
}

/// The line after the round a block of rounds shows: up to how many rounds, and until what.
fn block_line(out: &mut String, b: &super::RoundBlock, indent: &str) {
    let pct = |f: f64| format!("{} %", f * 100.0);
    let _ = writeln!(
        out,
        "{indent}block \"{}\": {} phase{} per round, up to {} rounds (phases {} to {}), until {} of {} is steady over {} rounds (SNIA: data excursion {}, slope excursion {}); the rounds a steady block does not need are skipped",
        b.name,
        b.phases_per_round,
        if b.phases_per_round == 1 { "" } else { "s" },
        b.max_rounds,
        b.first_phase,
        b.end() - 1,
        b.track.metric,
        b.track.phase,
        b.rule.window,
        pct(b.rule.data_excursion),
        pct(b.rule.slope_excursion)
    );
}

/// The I/Os a phase keeps in flight at once: its queue depth (`4`), or with several workers their sum and
/// how it is made (`8 (2x4)`: workers × queue depth).
fn in_flight(io: &super::IoSettings) -> String {
    match io.workers {
        0 | 1 => io.queue_depth.to_string(),
        w => format!(
            "{} ({w}x{})",
            u64::from(w) * u64::from(io.queue_depth),
            io.queue_depth
        ),
    }
}

/// The line under a phase before `--from`'s.
fn not_run(out: &mut String, plan: &Plan, indent: &str) {
    let from = &plan.phases[plan.start_at].name;
    // A simulated drive is created factory-new when the run starts: what these phases did is not there.
    let done = match plan.target.kind {
        TargetKind::Sim => "the simulated drive starts factory-new, not as this phase left it",
        _ => "taken as done",
    };
    let _ = writeln!(
        out,
        "{indent}not run: {done} (--from {from} starts at phase {})",
        plan.start_at
    );
}

/// The lines under a phase's row: its intervals, workers, the completion-wait probe, its engine and direct
/// I/O, roundings, warnings.
fn phase_notes(out: &mut String, p: &PhasePlan, indent: &str) {
    let io = p.io();
    if let (Some(d), Some(io)) = (p.bound().and_then(Bound::duration_ns), io) {
        let iv = io.interval_ns;
        let _ = writeln!(
            out,
            "{indent}{} interval{} of {}",
            d.div_ceil(iv),
            if d.div_ceil(iv) == 1 { "" } else { "s" },
            Duration(iv)
        );
    }
    if let Some(mix) = io.and_then(|io| io.mix.as_deref()).filter(|m| m.len() > 1) {
        let sizes: Vec<String> = mix
            .iter()
            .map(|e| format!("{} {}", fmt_bytes(e.bytes), e.weight))
            .collect();
        let _ = writeln!(
            out,
            "{indent}block-size mix (weights): {}",
            sizes.join(", ")
        );
    }
    if let Work::Io(w) = &p.work {
        if let Some(line) = steady_line(&w.measure, w.io.interval_ns) {
            let _ = writeln!(out, "{indent}{line}");
        }
        let _ = writeln!(
            out,
            "{indent}op stream seed {} (of seed {} and the phase's name)",
            w.io.stream_seed, w.io.seed
        );
        access_line(out, p.span.start, w, indent);
        pacing_lines(out, &w.measure, indent);
        mix_and_durability(out, w, indent);
    }
    if io.is_some_and(|io| io.workers > 1) {
        worker_lines(out, p, indent);
    }
    if io.is_some_and(|io| io.probe_waits) {
        let _ = writeln!(
            out,
            "{indent}probes at its start whether batched completion waits are faster (completion_waits = \"probe\")"
        );
    }
    if let Some(line) = io.and_then(ring_and_zones) {
        let _ = writeln!(out, "{indent}{line}");
    }
    if let Some(io) = io {
        let _ = writeln!(out, "{indent}{}", engine_line(io));
    }
    for note in &p.rounding {
        let _ = writeln!(out, "{indent}rounding: {note}");
    }
    for w in &p.warnings {
        let _ = writeln!(out, "{indent}warning: {w}");
    }
}

/// The lines of an I/O phase's trims, the durability of its writes and its per-I/O trace, each only where
/// the phase has it: `op mix: 50 % reads, 30 % writes, 20 % trims (trim_percent = 20)`, `writes: each
/// durable at completion, RWF_DSYNC (sync = "dsync"); fsync after every 8 writes of each worker (fsync =
/// 8)`, `trace: up to 100000 completions, one row each in the phase's .trace.csv (...; trace = 100000)`.
fn mix_and_durability(out: &mut String, w: &IoWork, indent: &str) {
    use crate::vocab::{Direction, SyncWrites};
    let mix = w.mix();
    if mix.percent(Direction::Trim) > 0 {
        let _ = writeln!(
            out,
            "{indent}op mix: {} % reads, {} % writes, {} % trims (trim_percent = {}: discards on a block device, punched holes in a file)",
            mix.percent(Direction::Read),
            mix.percent(Direction::Write),
            mix.percent(Direction::Trim),
            w.trim_percent
        );
    }
    let mut writes = Vec::new();
    match w.sync {
        SyncWrites::None => {}
        SyncWrites::Dsync => writes
            .push("each durable at completion, its data: RWF_DSYNC (sync = \"dsync\")".to_string()),
        SyncWrites::Sync => writes.push(
            "each durable at completion, its data and metadata: RWF_SYNC (sync = \"sync\")"
                .to_string(),
        ),
    }
    if let Some(f) = w.flush {
        let call = if f.data_only { "fdatasync" } else { "fsync" };
        let every = match f.every {
            1 => "every write".to_string(),
            n => format!("every {n} writes"),
        };
        writes.push(format!(
            "{call} after {every} of each worker, each timed apart from the writes ({call} = {})",
            f.every
        ));
    }
    if !writes.is_empty() {
        let _ = writeln!(out, "{indent}writes: {}", writes.join("; "));
    }
    if w.io.trace > 0 {
        let _ = writeln!(
            out,
            "{indent}trace: up to {} completions, one row each in the phase's .trace.csv (32 B each reserved before it; trace = {})",
            w.io.trace, w.io.trace
        );
    }
}

/// The phase's engine and whether its I/O bypasses the page cache (`engine io_uring, direct (O_DIRECT)`,
/// `engine psync, buffered (direct = false)`): a line rather than columns, the table being wide already. The
/// simulated drive's engine (`engine sim (virtual time)`) has no page cache to bypass.
fn engine_line(io: &super::IoSettings) -> String {
    if io.engine == crate::vocab::EngineKind::Sim {
        return "engine sim (virtual time)".into();
    }
    let direct = match io.direct {
        true => "direct (O_DIRECT)",
        false => "buffered (direct = false)",
    };
    format!("engine {}, {direct}", io.engine.as_str())
}

/// How the phase's io_uring ring runs and its writes meet a zoned device's zones, when a key asks
/// (`polled`, `sq_poll`, `zone_mode`): one line, or `None`.
fn ring_and_zones(io: &super::IoSettings) -> Option<String> {
    let mut parts = Vec::new();
    if io.polled {
        parts.push("polls for its completions (polled = true: IORING_SETUP_IOPOLL)");
    }
    if io.sq_poll {
        parts.push("a kernel thread polls its submissions (sq_poll = true: IORING_SETUP_SQPOLL)");
    }
    if io.zone_mode == crate::vocab::ZoneMode::Zbd {
        parts.push("writes each at its zone's write pointer, a full zone reset before it is written again (zone_mode = \"zbd\")");
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The share of reads of an I/O phase.
fn read_percent(p: &PhasePlan) -> Option<u8> {
    match &p.work {
        Work::Erase(_) => None,
        Work::Io(w) => Some(w.read_percent),
        Work::Verify(_) => Some(100),
    }
}

/// The bytes a phase transfers or erases; `None` for a time-bounded phase.
fn expected_bytes(p: &PhasePlan) -> Option<u64> {
    match (&p.work, p.bound()) {
        (Work::Erase(_), _) => Some(p.span.len),
        (_, Some(Bound::Ops { bytes, .. })) => Some(bytes),
        _ => None,
    }
}

/// The bound column: the erase method, passes, the image, the check, a time or a number of I/Os.
fn bound(p: &PhasePlan, target: TargetKind) -> String {
    match &p.work {
        Work::Erase(e) => match e.method {
            EraseMethod::Auto => crate::target::erase::auto_description(target).to_string(),
            m => m.as_str().to_string(),
        },
        Work::Verify(v) => format!(
            "read back, expect {}",
            match v.expect {
                Expect::Header => "header",
                Expect::LastWriter => "last-writer",
            }
        ),
        Work::Io(IoWork {
            writes: WriteSource::Image { image, .. },
            ..
        }) => format!("image {image}"),
        Work::Io(w) => match (w.passes, w.bound) {
            (Some(n), _) => format!("{n} pass{}", if n == 1 { "" } else { "es" }),
            (None, Bound::Time { ns }) => format!("time {}{}", Duration(ns), or_steady(w)),
            (None, Bound::Ops { ops, .. }) => format!("{}{}", ios(ops), or_steady(w)),
        },
    }
}

/// ` or until steady` after the bound of a phase that ends at steady state (`until = "steady"`), else
/// nothing.
fn or_steady(w: &IoWork) -> &'static str {
    match w.measure.until_steady() && w.measure.steady.is_some() {
        true => " or until steady",
        false => "",
    }
}

/// The line of a phase's steady-state rule: what it judges, over which rounds, and whether the phase ends
/// there (`until = "steady"`) or runs to its bound; `None` without `steady_state`.
fn steady_line(m: &super::Measure, interval_ns: u64) -> Option<String> {
    use crate::stats::steady::{FioKind, FioMetric, Rule};
    let s = m.steady.as_ref()?;
    let pct = |f: f64| format!("{} %", f * 100.0);
    let round = Duration(s.intervals_per_round * interval_ns);
    let rule = match s.rule {
        Rule::Fio(f) => {
            let metric = match f.metric {
                FioMetric::Iops => "IOPS",
                FioMetric::Bw => "bandwidth",
                FioMetric::Lat => "mean latency",
            };
            let limit = match f.relative {
                true => format!("{} of the window's mean", pct(f.limit)),
                false => format!("{}", f.limit),
            };
            let what = match f.kind {
                FioKind::Slope => format!("the {metric} slope per round under {limit}"),
                FioKind::Deviation => format!("every round's {metric} within {limit}"),
            };
            format!(
                "fio rule: {what}, over the last {} rounds of {round}",
                f.window
            )
        }
        Rule::Snia(r) => format!(
            "SNIA rule: {} rounds of {round}, data excursion {}, slope excursion {}{}",
            r.window,
            pct(r.data_excursion),
            pct(r.slope_excursion),
            r.max_rounds
                .map(|n| format!(", within {n} rounds"))
                .unwrap_or_default()
        ),
    };
    Some(match m.until_steady() {
        true => format!("until steady: ends once steady ({rule}), else at its bound"),
        false => format!(
            "steady state judged ({rule}); runs to its bound (until = \"steady\" would end it once steady)"
        ),
    })
}

/// `n I/Os`, or `1 I/O`.
fn ios(n: u64) -> String {
    format!("{n} I/O{}", if n == 1 { "" } else { "s" })
}

/// The block column: the block size, or a mix's smallest and largest size (`4KiB-64KiB`).
fn block(io: &super::IoSettings) -> String {
    let (small, large) = (io.block_size, io.largest_block());
    match large > small {
        true => format!("{}-{}", fmt_bytes(small), fmt_bytes(large)),
        false => fmt_bytes(small),
    }
}

/// A skewed workload's distribution, and a zoned one's zones as byte ranges of the target.
fn access_line(out: &mut String, start: u64, w: &IoWork, indent: &str) {
    let Some(d) = &w.distribution else {
        return;
    };
    let zones = match &w.access.dist {
        crate::ops::dist::Dist::Zoned(v) => {
            let z: Vec<String> = v
                .iter()
                .map(|z| {
                    format!(
                        "{} % in [{}, {})",
                        z.io_percent,
                        start + z.start,
                        start + z.end
                    )
                })
                .collect();
            format!(": {}", z.join(", "))
        }
        _ => String::new(),
    };
    let _ = writeln!(out, "{indent}distribution {d}{zones}");
}

/// A workload's unmeasured ramp and rate cap, as set in the spec or by `--set`.
fn pacing_lines(out: &mut String, m: &super::Measure, indent: &str) {
    if let Some(r) = m.ramp_ns {
        let _ = writeln!(
            out,
            "{indent}ramp {} of the same workload first, unmeasured",
            Duration(r)
        );
    }
    if let Some(rate) = m.rate_iops {
        let caps: Vec<String> = [
            ("total", rate.total),
            ("reads", rate.read),
            ("writes", rate.write),
        ]
        .into_iter()
        .filter_map(|(what, n)| n.map(|n| format!("{n} IOPS {what}")))
        .collect();
        let how = match m.arrivals.process {
            crate::vocab::RateProcess::Poisson => ", Poisson arrivals",
            crate::vocab::RateProcess::Linear => "",
        };
        let _ = writeln!(out, "{indent}rate cap: at most {}{how}", caps.join(", "));
    }
    if let Some((q, t)) = m.latency_target {
        let _ = writeln!(
            out,
            "{indent}latency target: p{q} at most {}, a step of a search (the deeper steps are skipped once one is over)",
            Duration(t)
        );
    }
    if let Some(t) = m.arrivals.think {
        let _ = writeln!(
            out,
            "{indent}think time {} after every {} I/O{}",
            Duration(t.ns),
            t.every,
            if t.every == 1 { "" } else { "s" }
        );
    }
}

/// One line per worker of a phase: its part of the range, its share of the I/Os, its seed; first, how the
/// workers share the range, where they could share it as fio's jobs do (a random workload).
fn worker_lines(out: &mut String, p: &PhasePlan, indent: &str) {
    if let Some(io) = p.io().filter(|_| !p.visits_each_block()) {
        let how = match io.split {
            WorkersSplit::Partitioned => {
                "workers partitioned: each its own part of the range (fio's numjobs would give each the whole range: workers_split = \"shared\")"
            }
            WorkersSplit::Shared => {
                "workers shared: each draws its I/Os over the whole range, as fio's numjobs"
            }
        };
        let _ = writeln!(out, "{indent}{how}");
    }
    for w in p.workers() {
        let ops = w.ops.map_or(String::new(), |n| format!(", {}", ios(n)));
        let _ = writeln!(
            out,
            "{indent}worker {}: [{}, {}){ops}, seed {}",
            w.index,
            w.range.start,
            w.range.end(),
            w.seed
        );
    }
}

/// The notes `wkrun plan` and a run say before anything runs: [`window_notes`], and the results' room past
/// the readers' limit ([`super::results_size::room_note`]).
pub fn notes(plan: &Plan) -> Vec<String> {
    let mut notes = window_notes(plan);
    notes.extend(super::results_size::room_note(plan.to_run()));
    notes
}

/// A note per measurement window longer than its time-bound phase (`windows = ["last 20m"]` on a phase
/// that `--set duration=10min` shortened): its statistics then cover less than it names, which the results
/// say only as `clipped`; the note names the window, the phases (one note for the phases of one window and
/// duration) and the keys to change. `wkrun plan` and a run say these before anything runs.
pub fn window_notes(plan: &Plan) -> Vec<String> {
    use crate::stats::window::WindowSpec;
    // (window, phase duration, duration needed) and the phases, in order of first appearance.
    // With the window's canonical form when its figures are the whole phase's, and whether it starts
    // after the phase's end.
    type Key<'a> = (&'a str, u64, u64, Option<(String, bool)>);
    let mut found: Vec<(Key, Vec<String>)> = Vec::new();
    for p in plan.to_run() {
        let (Work::Io(w), Some(d)) = (&p.work, p.bound().and_then(Bound::duration_ns)) else {
            continue;
        };
        let iv = w.io.interval_ns.max(1);
        for win in &w.measure.windows {
            let rows = win.spec.resolve(iv, (d / iv) as usize);
            if rows.complete {
                continue;
            }
            // Its figures are the whole phase's when it starts at 0, or after the end (the whole phase
            // instead): its canonical form, and whether it starts after the end.
            let whole = (rows.rows.start == 0 || rows.rows.is_empty())
                .then(|| (win.spec.to_string(), rows.rows.is_empty()));
            // The duration that holds the window: its end, or past its start for an open range.
            let needs = match win.spec {
                WindowSpec::Range {
                    end_ns: Some(e), ..
                } => e,
                WindowSpec::Range { start_ns, .. } => start_ns.saturating_add(iv),
                WindowSpec::First { len_ns } | WindowSpec::Last { len_ns } => len_ns,
            };
            // Said in whole seconds when it is more than one (`1401s`, not `1400100ms`).
            const S: u64 = 1_000_000_000;
            let needs = match needs > S {
                true => needs.div_ceil(S).saturating_mul(S),
                false => needs,
            };
            let key = (win.text.as_str(), d, needs, whole);
            let name = format!("{} \"{}\"", p.index, p.name);
            match found.iter_mut().find(|(k, _)| *k == key) {
                Some((_, names)) => names.push(name),
                None => found.push((key, vec![name])),
            }
        }
    }
    found
        .into_iter()
        .map(|((text, d, needs, whole), names)| {
            let (which, the) = match names.len() {
                1 => ("phase", "the phase"),
                _ => ("phases", "each phase"),
            };
            // As the figures' label says it (`results::headline`).
            let cover = match whole {
                Some((w, true)) => format!(
                    "its figures are of the whole phase, labelled \"whole phase (window {w} starts after the phase's end, {})\"",
                    Duration(d)
                ),
                Some((w, false)) => format!(
                    "its figures are of the whole phase, labelled \"whole phase (window {w} > phase {})\"",
                    Duration(d)
                ),
                None => "its statistics cover only what the phase has".to_string(),
            };
            format!(
                "{which} {}: window \"{text}\" is longer than {the} ({}): {cover} (results: clipped); give {the} duration = \"{}\" or more, or a shorter window in its windows",
                names.join(", "),
                Duration(d),
                Duration(needs)
            )
        })
        .collect()
}
