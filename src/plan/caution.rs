//! Cautions: where a phase's numbers would describe something other than the device, said before the run
//! (`wkrun plan`) and kept with the phase's results (`warnings`). Each is a fact of the plan and the target's
//! geometry; the run adds what only it can see (reads of never-written blocks, case C10).

use super::{IoSettings, IoWork, PhasePlan, Work, WriteSource};
use crate::engine::caps;
use crate::target::{TargetInfo, TargetKind};

/// The cautions of `phase` on `target`, in words.
pub fn cautions(phase: &PhasePlan, target: &TargetInfo) -> Vec<String> {
    let Work::Io(w) = &phase.work else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(read_modify_write(phase, w, target));
    out.extend(memory_file(w, target));
    out.extend(page_cache(w, target));
    out.extend(cached_loop(w, target));
    out.extend(host_queue(&w.io, target));
    out.extend(threads_over_cpus(
        &w.io,
        super::host_cpus(),
        super::online_cpus(),
    ));
    out.extend(batched_completions(&w.io, super::host_cpus()));
    out.extend(idle_workers(phase));
    out.extend(durability_without_writes(w));
    out.extend(rate_warning(w));
    out
}

/// A rate cap the mix cannot reach: I/Os go out in stream order, so the cap whose rate over its share of the
/// stream is the lowest paces every direction, and a cap above the rate its direction then gets falls
/// further behind its schedule through the run ([spec](docs/spec.md#rate-cap-and-ramp)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnkeptCap {
    /// The capped direction; `None` for the `total` cap.
    pub dir: Option<crate::vocab::Direction>,
    /// The cap, I/Os per second.
    pub cap: u64,
    /// The most the direction gets at the phase's mix, I/Os per second.
    pub reached: f64,
}

/// The caps of `w`'s `rate_iops` that its mix cannot reach, in the order total, read, write; empty without a
/// cap or when every cap is reached ([`unkept_of`]).
pub fn unkept_caps(w: &IoWork) -> Vec<UnkeptCap> {
    unkept_of(&rate_caps(w))
}

/// The caps among `caps` (direction, cap, share of the stream in percent; `None` the `total` cap) whose
/// schedule falls behind: an I/O is due at the later of its slot under the total cap and under its
/// direction's, so a direction's schedule runs at the lower of its cap and the total cap over its share;
/// that schedule is behind when it is above the pace of the cap with the lowest rate over its share.
/// A direction cap the total already keeps its direction under is kept (trial 28 M5: `{ read = 300,
/// write = 300, total = 400 }` at 50 % reads and 20 % trims: the total paces the stream, reads get 200/s
/// of their 300 and are never behind).
pub fn unkept_of(caps: &[(Option<crate::vocab::Direction>, u64, u64)]) -> Vec<UnkeptCap> {
    let Some((_, lim_cap, lim_share)) = pace_of(caps) else {
        return Vec::new();
    };
    let above =
        |cap: u64, share: u64| cap as u128 * lim_share as u128 > lim_cap as u128 * share as u128;
    let total_above = caps
        .iter()
        .find(|c| c.0.is_none())
        .is_none_or(|&(_, cap, share)| above(cap, share));
    caps.iter()
        .filter(|&&(dir, cap, share)| above(cap, share) && (dir.is_none() || total_above))
        .map(|&(dir, cap, share)| UnkeptCap {
            dir,
            cap,
            reached: lim_cap as f64 * share as f64 / lim_share as f64,
        })
        .collect()
}

/// `w`'s rate caps as (direction, cap, share of the stream in percent), `None` for the `total` cap; a
/// direction the mix never issues is left out (it is never behind).
fn rate_caps(w: &IoWork) -> Vec<(Option<crate::vocab::Direction>, u64, u64)> {
    w.measure
        .rate_iops
        .map_or_else(Vec::new, |rate| caps_of(rate, w.mix()))
}

pub use crate::vocab::pace_of;

/// The caps of `rate` at the mix `mix` as (direction, cap, share of the stream in percent), `None` for the
/// `total` cap, in the order total, read, write; a direction the mix never issues is left out
/// ([`crate::vocab::Rate::caps_at`]).
pub fn caps_of(rate: crate::vocab::Rate, mix: crate::ops::Mix) -> Vec<crate::vocab::Cap> {
    use crate::vocab::Direction;
    rate.caps_at(mix.percent(Direction::Read), mix.percent(Direction::Write))
}

/// The rate cap that sets `w`'s pace, if it has one: the capped direction (`None` for the `total` cap) and
/// the cap, I/Os per second. A phase that ran at it was held by its cap, whatever else was slow.
pub fn pacing_cap(w: &IoWork) -> Option<(Option<crate::vocab::Direction>, u64)> {
    pace_of(&rate_caps(w)).map(|(d, cap, _)| (d, cap))
}

/// The warning of a phase whose rate caps its mix cannot all reach ([`unkept_caps`]): the rates each
/// direction gets, and what would make them agree.
fn rate_warning(w: &IoWork) -> Option<String> {
    let unkept = unkept_caps(w);
    if unkept.is_empty() {
        return None;
    }
    let rate = w.measure.rate_iops?;
    let caps: Vec<String> = [
        ("read", rate.read),
        ("write", rate.write),
        ("total", rate.total),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some(format!("{k} = {}", v?)))
    .collect();
    let parts: Vec<String> = unkept
        .iter()
        .map(|u| {
            let (who, one) = match u.dir {
                Some(d) => (
                    format!("{}s", d.name()),
                    format!("the {} schedule", d.name()),
                ),
                None => ("I/Os".to_string(), "the total schedule".to_string()),
            };
            format!(
                "{who} arrive at {}/s at most, below their cap of {}: {one} falls behind",
                grouped(u.reached.round() as u64),
                grouped(u.cap)
            )
        })
        .collect();
    let mix = match w.trim_percent {
        0 => format!("read_percent = {}", w.read_percent),
        t => format!("read_percent = {} and trim_percent = {t}", w.read_percent),
    };
    Some(format!(
        "rate_iops = {{ {} }} at {mix}: {}, and latency from the intended issue time grows through the run (I/Os go out in stream order, so the lowest cap over its share of the mix paces them all); give caps in the ratio of the mix, or one total cap",
        caps.join(", "),
        parts.join("; ")
    ))
}

/// `n` with its thousands grouped by commas: `3,429`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `sync`, `fsync` or `fdatasync` on a phase that issues no writes (`read_percent = 100`, or reads and trims
/// only): they act on writes, so the phase makes nothing durable and flushes nothing. A warning, not a
/// refusal: `[defaults]` or a matrix (`read_percent = [100, 70, 0]`) gives the key to every cell, and it
/// is right for the cells that write (fio, for its part, ignores `fsync` on a read job without a word).
fn durability_without_writes(w: &IoWork) -> Option<String> {
    let mix = w.mix();
    let writes = mix.percent(crate::vocab::Direction::Write);
    let mut keys = Vec::new();
    if w.sync != crate::vocab::SyncWrites::None {
        keys.push(format!("sync = \"{}\"", w.sync.as_str()));
    }
    if let Some(f) = w.flush {
        let key = if f.data_only { "fdatasync" } else { "fsync" };
        keys.push(format!("{key} = {}", f.every));
    }
    if writes > 0 || keys.is_empty() {
        return None;
    }
    let why = match w.trim_percent {
        0 => format!("read_percent = {}", w.read_percent),
        t => format!("read_percent = {} and trim_percent = {t}", w.read_percent),
    };
    Some(format!(
        "{} {} no effect: the phase issues no writes ({why}), so it makes nothing durable and flushes nothing; drop {} from this phase, or give it writes",
        keys.join(" and "),
        if keys.len() == 1 { "has" } else { "have" },
        if keys.len() == 1 { "it" } else { "them" }
    ))
}

/// Workers that the phase's byte bound gives no I/O: they take a thread and a part of the span and do
/// nothing, so the phase runs on fewer submitters than `workers` says.
fn idle_workers(phase: &PhasePlan) -> Option<String> {
    let workers = phase.workers();
    let idle: Vec<String> = workers
        .iter()
        .filter(|w| w.ops == Some(0))
        .map(|w| w.index.to_string())
        .collect();
    if idle.is_empty() {
        return None;
    }
    let ops: u64 = workers.iter().filter_map(|w| w.ops).sum();
    let (noun, verb) = match idle.len() {
        1 => ("worker", "gets"),
        _ => ("workers", "get"),
    };
    let ios = match ops {
        1 => "1 I/O".to_string(),
        n => format!("{n} I/Os"),
    };
    Some(format!(
        "{noun} {} of {} {verb} no I/O: the phase's byte bound is {ios}; use fewer workers or a larger size",
        idle.join(", "),
        workers.len()
    ))
}

/// Writes smaller than the target's physical block, or not aligned to it: the device (or the filesystem of a
/// file target) reads, modifies and writes whole physical blocks, so the numbers describe that.
fn read_modify_write(phase: &PhasePlan, w: &IoWork, t: &TargetInfo) -> Option<String> {
    let pbs = t.physical_block_size as u64;
    let writes = w.read_percent < 100 && matches!(w.writes, WriteSource::Data { .. });
    if !writes || pbs <= 1 {
        return None;
    }
    let sizes = w.io.sizes();
    let odd = sizes
        .lengths()
        .into_iter()
        .find(|&b| !b.is_multiple_of(pbs));
    let start_odd = !phase.span.start.is_multiple_of(pbs);
    if odd.is_none() && !start_odd {
        return None;
    }
    // What to do, said first so that the console line keeps it.
    let (what, action) = match (odd, start_odd) {
        (Some(b), _) => (
            format!("writes of {b} B are not whole physical blocks of the target ({pbs} B)"),
            format!("use block sizes that are multiples of {pbs} B"),
        ),
        (None, _) => (
            format!(
                "the span starts at {} B, not on a physical block of the target ({pbs} B), so every write straddles two",
                phase.span.start
            ),
            format!("start the span (offset) at a multiple of {pbs} B"),
        ),
    };
    let who = match t.kind {
        TargetKind::File => "the filesystem under the file",
        _ => "the device",
    };
    Some(format!(
        "read-modify-write: the write numbers describe it, not plain writes; {action}: {what}: {who} must read, modify and write whole blocks"
    ))
}

/// What a file system in memory is, in the caution of a file on one (`memory_file`) and in `compare`'s note
/// of a run on one (`report::compare::host_notes`).
pub const IN_MEMORY: &str = "a file system in memory";

/// What a run's numbers on a file system in memory describe: the one definition of the words the run's
/// caution (`memory_file`) and `compare`'s note of the run say (trial 22 F6: compare said only that the
/// numbers describe a file system and page cache, not an SSD).
pub const DESCRIBES_RAM: &str = "its reads and writes are copies to and from the host's RAM, so these numbers describe RAM, not a drive";

/// A file on a file system in memory (tmpfs, ramfs): every I/O is a copy to or from the host's RAM, direct or
/// not.
fn memory_file(w: &IoWork, t: &TargetInfo) -> Option<String> {
    let fs = t.memory_fs?;
    if !caps(w.io.engine).opens_target {
        return None;
    }
    Some(format!(
        "{} is on {fs}, {IN_MEMORY}: {DESCRIBES_RAM}",
        t.path.display()
    ))
}

/// The file system in memory (`tmpfs`, `ramfs`) a phase's warning `w` says its file lies on (the caution of
/// `memory_file`, which a run keeps in the phase's `warnings`); `None` for another warning.
pub fn in_memory(w: &str) -> Option<&str> {
    let head = w.strip_suffix(&format!(", {IN_MEMORY}: {DESCRIBES_RAM}"))?;
    head.rsplit(" is on ").next()
}

/// What buffered I/O makes of a phase's numbers: the one definition of the words of the run's caution
/// ([`BUFFERED`]), of fio's buffered jobs read from its JSON (`fio::json`) and of `compare`'s note of either
/// (`report::compare`; trial 24 F2: fio beside its import at +1086 % with no word of the cache).
pub const PAGE_CACHE_SETS: &str = "the page cache sets these numbers";

/// How the run's caution of a phase with `direct = false` on a host target starts (`page_cache`).
pub const BUFFERED: &str = "direct = false";

/// What wkrun does not do before a phase that fio does before a job (its `invalidate=1`, the default):
/// said by `compare` beside a buffered phase.
pub const KEEPS_CACHED: &str = "wkrun drops no cached pages before a phase";

/// Whether `w` is the run's caution of buffered I/O (`page_cache`), which a run keeps in the phase's
/// `warnings`.
pub fn buffered(w: &str) -> bool {
    let rest = w.strip_prefix(BUFFERED).and_then(|r| r.strip_prefix(": "));
    rest.is_some_and(|r| r.starts_with(PAGE_CACHE_SETS))
}

/// Buffered I/O on a host target: the page cache answers reads and absorbs writes.
fn page_cache(w: &IoWork, t: &TargetInfo) -> Option<String> {
    if w.io.direct || !caps(w.io.engine).opens_target || t.kind == TargetKind::Sim {
        return None;
    }
    Some(format!(
        "{BUFFERED}: {PAGE_CACHE_SETS}; set direct = true: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device"
    ))
}

/// A loop device without direct I/O under the target: its backing file's page cache answers reads and
/// absorbs writes, whatever `direct` says.
fn cached_loop(w: &IoWork, t: &TargetInfo) -> Option<String> {
    let l = t.page_cached_loop.as_ref()?;
    if !caps(w.io.engine).opens_target {
        return None;
    }
    let what = match l.device == t.path {
        true => format!("{} is", l.device.display()),
        false => format!("the target lies on {},", l.device.display()),
    };
    Some(format!(
        "{what} a loop device without direct I/O: set it up with losetup --direct-io=on: its I/O goes through the page cache of its backing file {} (loop/dio = 0), which can answer reads from memory and absorbs writes, so these numbers describe the host's cache as much as the device",
        l.backing_file.display()
    ))
}

/// A queue deeper than the device holds: the I/Os past its limit wait in the host's block layer, and their
/// latencies include that wait.
fn host_queue(io: &IoSettings, t: &TargetInfo) -> Option<String> {
    let max = t.queue_depth_max?;
    let (qd, workers) = (io.queue_depth, io.workers.max(1));
    let in_flight = qd * workers;
    if in_flight <= max || !caps(io.engine).opens_target {
        return None;
    }
    let (what, action) = match workers {
        1 => (
            format!("queue_depth = {qd} is"),
            format!("use queue_depth = {max} or less"),
        ),
        w => (
            format!("workers = {w} × queue_depth = {qd} ({in_flight} I/Os in flight) are"),
            format!("keep workers × queue_depth at {max} or less"),
        ),
    };
    Some(format!(
        "queue deeper than the device's: latencies include waits in the host's queue; {action}: {what} more than the device's queue holds ({max}, target.queue_depth_max from sysfs): up to {} I/Os at a time wait in the host's queue, and the device never sees more than {max} at once",
        in_flight - max
    ))
}

/// More submitting threads than CPUs (psync's one per queue slot, one per worker otherwise): the threads
/// take turns on the CPUs, so latencies include waits for one. When the machine has more CPUs `online` than
/// this process may use, its affinity was narrowed (OpenMPI binds each rank to a core by default): said.
fn threads_over_cpus(io: &IoSettings, cpus: u32, online: Option<u32>) -> Option<String> {
    let (qd, workers) = (io.queue_depth, io.workers.max(1));
    let per_slot = caps(io.engine).thread_per_slot;
    let threads = super::stream_sharers(io.engine, qd) * workers;
    if threads <= cpus {
        return None;
    }
    let what = match (workers, per_slot) {
        (1, _) => format!("engine = \"psync\" with queue_depth = {qd}"),
        (w, true) => format!("engine = \"psync\" with workers = {w} × queue_depth = {qd}"),
        (w, false) => format!("workers = {w}"),
    };
    // What to do, said before the detail so that the console line keeps it.
    let instead = match per_slot {
        true => "use io_uring or libaio, which keep the queue in one thread".to_string(),
        false if cpus == 1 => "use workers = 1".to_string(),
        false => format!("use workers = {cpus} or fewer"),
    };
    let bound = match online.filter(|&n| n > cpus) {
        Some(n) => format!(
            "; this process may run on {} of the machine's {n} (its CPU affinity, narrowed by whoever started it: OpenMPI's mpirun binds each rank to a core unless given --bind-to none)",
            cpus_text(cpus)
        ),
        None => String::new(),
    };
    Some(format!(
        "{what} runs {threads} threads on {}: latencies include CPU waits; {instead}: they share the CPUs, so latencies include waits to be scheduled, not only the device's time{bound}",
        cpus_text(cpus),
    ))
}

/// `"1 CPU"`, `"2 CPUs"`.
fn cpus_text(cpus: u32) -> String {
    match cpus {
        1 => "1 CPU".to_string(),
        n => format!("{n} CPUs"),
    }
}

/// Completions reaped several at a time ([`super::completions_per_wait`]): a completion is timed when its
/// wait ends, so latencies include up to `n - 1` later completions of the same worker.
fn batched_completions(io: &IoSettings, cpus: u32) -> Option<String> {
    let n = io.completions_per_wait;
    if n <= 1 {
        return None;
    }
    Some(format!(
        "batched completions: a latency can include the time of up to {} later completions; set completion_waits = \"each\" to time each: engine = \"io_uring\" with workers = {} on {}: each worker waits for {n} of its {} I/Os per io_uring_enter, not 1, so that the kernel's io-wq threads (which do the writes a buffered file or zram cannot take without blocking) are not interrupted by a wake per completion; a completion is timed when its wait ends",
        n - 1,
        io.workers,
        cpus_text(cpus),
        io.queue_depth,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::EngineKind;

    fn io(engine: EngineKind, queue_depth: u32) -> IoSettings {
        IoSettings {
            engine,
            direct: true,
            block_size: 4096,
            mix: None,
            queue_depth,
            workers: 1,
            split: crate::vocab::WorkersSplit::Partitioned,
            seed: 1,
            stream_seed: 1,
            interval_ns: 1_000_000_000,
            on_error: crate::vocab::OnError::Stop,
            completions_per_wait: 1,
            probe_waits: false,
            zone_mode: crate::vocab::ZoneMode::None,
            polled: false,
            sq_poll: false,
            trace: 0,
        }
    }

    /// The caps of `rate` at `read` % reads and `trim` % trims that fall behind: (direction, cap, reached).
    fn behind(rate: [Option<u64>; 3], read: u8, trim: u8) -> Vec<(&'static str, u64, f64)> {
        let [total, read_cap, write] = rate;
        let rate = crate::vocab::Rate {
            total,
            read: read_cap,
            write,
        };
        let mix = crate::ops::Mix::new(read, trim).expect("mix");
        (unkept_of(&caps_of(rate, mix)).iter())
            .map(|u| (u.dir.map_or("total", |d| d.name()), u.cap, u.reached))
            .collect()
    }

    /// Trial 28 M5: `{ read = 300, write = 300, total = 400 }` at 50 % reads and 20 % trims: the total paces
    /// the stream (400 / 100 % below 300 / 50 % and 300 / 30 %), so reads get 200/s and writes 120/s and
    /// neither schedule is behind (an I/O is due at the later of its slots). Caps above the total's pace but
    /// a direction below both: the total and the other direction are behind.
    #[test]
    fn a_direction_cap_the_total_keeps_it_under_is_not_unkept() {
        assert_eq!(behind([Some(400), Some(300), Some(300)], 50, 20), []);
        assert_eq!(behind([Some(400), Some(300), None], 50, 0), []);
        // Reads pace at 800 / 70 %: writes get 342.86/s of 800, I/Os 1,142.86/s of 2,000.
        let got = behind([Some(2000), Some(800), Some(800)], 70, 0);
        assert_eq!(
            got.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>(),
            [("total", 2000), ("write", 800)]
        );
        assert_eq!(
            got.iter()
                .map(|g| format!("{:.2}", g.2))
                .collect::<Vec<_>>(),
            ["1142.86", "342.86"]
        );
        // Without a total, as before: writes behind.
        assert_eq!(
            behind([None, Some(800), Some(800)], 70, 0)
                .iter()
                .map(|g| (g.0, g.1))
                .collect::<Vec<_>>(),
            [("write", 800)]
        );
        // The total at the pace of the read cap (1,000 / 100 % = 700 / 70 %): nothing behind.
        assert_eq!(behind([Some(1000), Some(700), Some(800)], 70, 0), []);
    }

    #[test]
    fn psync_threads_past_the_cpus_are_flagged_and_other_engines_not() {
        assert_eq!(threads_over_cpus(&io(EngineKind::Psync, 2), 2, None), None);
        assert_eq!(
            threads_over_cpus(&io(EngineKind::Psync, 3), 2, None).as_deref(),
            Some(
                "engine = \"psync\" with queue_depth = 3 runs 3 threads on 2 CPUs: latencies include CPU waits; use io_uring or libaio, which keep the queue in one thread: they share the CPUs, so latencies include waits to be scheduled, not only the device's time"
            )
        );
        for e in [
            EngineKind::Libaio,
            EngineKind::IoUring,
            EngineKind::Null,
            EngineKind::Sim,
        ] {
            assert_eq!(threads_over_cpus(&io(e, 64), 2, None), None, "{e:?}");
        }
        let one = threads_over_cpus(&io(EngineKind::Psync, 2), 1, None).unwrap_or_default();
        assert!(
            one.contains(
                "runs 2 threads on 1 CPU: latencies include CPU waits; use io_uring or libaio"
            ),
            "{one}"
        );
    }

    #[test]
    fn workers_count_in_the_threads_and_the_queue() {
        let w = |engine, qd, workers| IoSettings {
            workers,
            ..io(engine, qd)
        };
        assert_eq!(
            threads_over_cpus(&w(EngineKind::Libaio, 32, 2), 2, Some(2)),
            None
        );
        assert_eq!(
            threads_over_cpus(&w(EngineKind::Libaio, 32, 4), 2, Some(2)).as_deref(),
            Some(
                "workers = 4 runs 4 threads on 2 CPUs: latencies include CPU waits; use workers = 2 or fewer: they share the CPUs, so latencies include waits to be scheduled, not only the device's time"
            )
        );
        assert_eq!(
            threads_over_cpus(&w(EngineKind::Psync, 2, 2), 2, None).as_deref(),
            Some(
                "engine = \"psync\" with workers = 2 × queue_depth = 2 runs 4 threads on 2 CPUs: latencies include CPU waits; use io_uring or libaio, which keep the queue in one thread: they share the CPUs, so latencies include waits to be scheduled, not only the device's time"
            )
        );
        // Bound to 1 CPU of 2 (mpirun's default binding): said, with the way out.
        assert_eq!(
            threads_over_cpus(&w(EngineKind::Libaio, 32, 4), 1, Some(2)).as_deref(),
            Some(
                "workers = 4 runs 4 threads on 1 CPU: latencies include CPU waits; use workers = 1: they share the CPUs, so latencies include waits to be scheduled, not only the device's time; this process may run on 1 CPU of the machine's 2 (its CPU affinity, narrowed by whoever started it: OpenMPI's mpirun binds each rank to a core unless given --bind-to none)"
            )
        );
        assert_eq!(super::super::cpu_list_len("0-3,6,8-9"), Some(7));
        assert_eq!(super::super::cpu_list_len("0"), Some(1));
        assert_eq!(super::super::cpu_list_len("3-1"), None);
        let mut t = TargetInfo::new("/dev/x", TargetKind::Block, 1 << 30, 512, 512);
        t.queue_depth_max = Some(32);
        assert_eq!(host_queue(&w(EngineKind::IoUring, 16, 2), &t), None);
        assert_eq!(
            host_queue(&w(EngineKind::IoUring, 16, 4), &t).as_deref(),
            Some(
                "queue deeper than the device's: latencies include waits in the host's queue; keep workers × queue_depth at 32 or less: workers = 4 × queue_depth = 16 (64 I/Os in flight) are more than the device's queue holds (32, target.queue_depth_max from sysfs): up to 32 I/Os at a time wait in the host's queue, and the device never sees more than 32 at once"
            )
        );
    }

    #[test]
    fn io_uring_waits_for_an_eighth_of_its_queue_only_when_the_workers_take_every_cpu() {
        use crate::plan::completions_per_wait as per_wait;
        assert_eq!(per_wait(EngineKind::IoUring, 32, 2, 2), 4);
        assert_eq!(per_wait(EngineKind::IoUring, 32, 4, 2), 4);
        assert_eq!(per_wait(EngineKind::IoUring, 32, 1, 1), 4);
        assert_eq!(per_wait(EngineKind::IoUring, 30, 2, 2), 3);
        assert_eq!(per_wait(EngineKind::IoUring, 7, 2, 2), 1);
        assert_eq!(per_wait(EngineKind::IoUring, 32, 1, 2), 1);
        assert_eq!(per_wait(EngineKind::IoUring, 32, 3, 4), 1);
        for e in [
            EngineKind::Libaio,
            EngineKind::Psync,
            EngineKind::Null,
            EngineKind::Sim,
        ] {
            assert_eq!(per_wait(e, 32, 2, 2), 1, "{e:?}");
        }
        assert_eq!(batched_completions(&io(EngineKind::IoUring, 32), 2), None);
        let batched = IoSettings {
            workers: 2,
            completions_per_wait: 4,
            ..io(EngineKind::IoUring, 32)
        };
        assert_eq!(
            batched_completions(&batched, 2).as_deref(),
            Some(
                "batched completions: a latency can include the time of up to 3 later completions; set completion_waits = \"each\" to time each: engine = \"io_uring\" with workers = 2 on 2 CPUs: each worker waits for 4 of its 32 I/Os per io_uring_enter, not 1, so that the kernel's io-wq threads (which do the writes a buffered file or zram cannot take without blocking) are not interrupted by a wake per completion; a completion is timed when its wait ends"
            )
        );
    }

    #[test]
    fn io_uring_probes_batched_waits_only_with_one_worker_at_depth_8_or_more_and_a_cpu_to_spare() {
        use crate::plan::probe_waits as probes;
        assert!(probes(EngineKind::IoUring, 32, 1, 2));
        assert!(probes(EngineKind::IoUring, 8, 1, 4));
        assert!(!probes(EngineKind::IoUring, 8, 3, 4));
        assert!(!probes(EngineKind::IoUring, 7, 1, 2));
        assert!(!probes(EngineKind::IoUring, 32, 2, 2));
        assert!(!probes(EngineKind::IoUring, 32, 1, 1));
        for e in [
            EngineKind::Libaio,
            EngineKind::Psync,
            EngineKind::Null,
            EngineKind::Sim,
        ] {
            assert!(!probes(e, 32, 1, 2), "{e:?}");
        }
    }

    #[test]
    fn a_queue_past_the_device_limit_is_flagged_on_host_engines_only() {
        let mut t = TargetInfo::new("/dev/x", TargetKind::Block, 1 << 30, 512, 512);
        assert_eq!(
            host_queue(&io(EngineKind::Libaio, 64), &t),
            None,
            "limit unknown"
        );
        t.queue_depth_max = Some(32);
        assert_eq!(host_queue(&io(EngineKind::IoUring, 32), &t), None);
        assert_eq!(host_queue(&io(EngineKind::Null, 64), &t), None);
        assert_eq!(
            host_queue(&io(EngineKind::Libaio, 40), &t).as_deref(),
            Some(
                "queue deeper than the device's: latencies include waits in the host's queue; use queue_depth = 32 or less: queue_depth = 40 is more than the device's queue holds (32, target.queue_depth_max from sysfs): up to 8 I/Os at a time wait in the host's queue, and the device never sees more than 32 at once"
            )
        );
    }
}
