//! One fio job in wkrun's terms ([`Shape`]): what a phase with one worker per fio job copy does. Where
//! fio's meaning has no wkrun equivalent, the job gets a refusal naming the option's line and why; under
//! `--lossy` the shape keeps the nearest wkrun setting and the refusal becomes a comment.

use super::job::{Blocks, Job, Remark};
use crate::fio::mix_rate::Ratio;
use crate::fio::value::Size;
use crate::fio::{Place, Problem};
use crate::units::{Duration, fmt_bytes};
use crate::vocab::DataPattern;

/// A phase's block size: one size or a weighted mix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Bytes.
    One(u64),
    /// `(bytes, weight)`.
    Mix(Vec<(u64, u64)>),
}

/// What bounds a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A time, µs.
    Time(u64),
    /// Bytes per job.
    Bytes(u64),
    /// A percentage of the job's region per job (100: the region once).
    Region(u64),
}

/// fio's steady-state rule in wkrun's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Steady {
    /// `iops`, `bw` or `lat`.
    pub metric: String,
    /// `slope` or `deviation`.
    pub kind: &'static str,
    /// The limit.
    pub limit: f64,
    /// Whether the limit is a fraction of the window mean.
    pub relative: bool,
    /// Rounds in the window.
    pub window: u64,
    /// A round's length when it is not one interval, µs.
    pub round_us: Option<u64>,
}

/// One fio job (one copy of it) as a wkrun phase with one worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Random offsets (else sequential).
    pub random: bool,
    /// Share of reads, %.
    pub read_percent: u64,
    /// Share of trims, % (100 for `rw=trim` and `rw=randtrim`, else 0).
    pub trim_percent: u64,
    /// Per-write durability (`sync`): `"sync"`, `"dsync"`, or none.
    pub sync: Option<&'static str>,
    /// A flush after every N writes: `("fsync" | "fdatasync", N)`.
    pub flush: Option<(&'static str, u64)>,
    /// Block size.
    pub block: Block,
    /// Queue depth.
    pub queue_depth: u64,
    /// wkrun's engine.
    pub engine: &'static str,
    /// O_DIRECT.
    pub direct: bool,
    /// fio's random map: every block once per pass.
    pub full: bool,
    /// Start of the region.
    pub offset: Option<Size>,
    /// Length of the region of one job.
    pub size: Option<Size>,
    /// The jobs' regions follow one another (offset_increment = size).
    pub partitioned: bool,
    /// What bounds it.
    pub bound: Bound,
    /// Unmeasured lead-in, µs.
    pub ramp_us: Option<u64>,
    /// Rate caps per direction of one job (reads, writes, trims), I/Os per second as fio gives them, exact
    /// (the phase's `rate_iops` is [`Ratio::cap`] of them for its workers, `rate::spec_rate`).
    pub rate: [Option<Ratio>; 3],
    /// Poisson arrivals at the caps' rates (`rate_process=poisson` with a cap).
    pub poisson: bool,
    /// Think time, µs, and the I/Os between think times (`thinktime`, `thinktime_blocks`).
    pub think: Option<(u64, u64)>,
    /// A latency-target search (`latency_target`): target µs and percentile; the queue depths searched are
    /// the powers of two up to `queue_depth` (and it), each step bounded by the shape's time bound.
    pub latency: Option<(u64, f64)>,
    /// `randseed`.
    pub seed: Option<u64>,
    /// Where random offsets fall, when not uniform.
    pub distribution: Option<crate::spec::Distribution>,
    /// Data written (writers).
    pub data: Option<DataPattern>,
    /// Stamp writes, and a verify phase after (`Some(true)`) or not.
    pub verify: Option<bool>,
    /// Steady state, ending the phase when reached.
    pub steady: Option<Steady>,
    /// Series interval, ms.
    pub interval_ms: Option<u64>,
    /// Whether a failed I/O is counted and the job goes on.
    pub on_error_continue: Option<bool>,
    /// A kernel thread polls io_uring's submission queue (`sqthread_poll`): `sq_poll = true`.
    pub sq_poll: bool,
}

/// A job's shape, and what was said about it.
pub struct Shaped {
    /// The shape (under refusals, the nearest wkrun setting).
    pub shape: Shape,
    /// Notes.
    pub notes: Vec<Remark>,
    /// Refusals: the option, and why.
    pub refused: Vec<Remark>,
}

/// The option `text` at `at` refused for `why`.
pub(super) fn remark(at: &Place, text: impl Into<String>, why: impl Into<String>) -> Remark {
    Remark {
        at: at.clone(),
        text: text.into(),
        why: why.into(),
    }
}

/// A latency-target search: each queue depth a step of `latency_window` (the step's time bound, in place
/// of the job's); refused without a window, or with a queue depth of 1 (nothing to search).
fn latency(
    job: &Job,
    bound: &mut Bound,
    notes: &mut Vec<Remark>,
    refused: &mut Vec<Remark>,
) -> Option<(u64, f64)> {
    let (target, Some(at)) = &job.latency_target_us else {
        return None;
    };
    let text = format!("latency_target={target}");
    if *target == 0 {
        return None;
    }
    if job.latency_window_us == 0 || job.iodepth < 2 {
        refused.push(remark(
            at,
            text,
            "wkrun searches a list of queue depths, each for latency_window: give latency_window and an iodepth above 1 (the deepest to try)",
        ));
        return None;
    }
    if let Some(why) = one_depth(job, at) {
        refused.push(remark(at, text, why));
        return None;
    }
    notes.push(remark(
        at,
        text,
        "fio adjusts one job's depth window by window and goes on at the depth found; wkrun runs one phase per queue depth (powers of two up to iodepth), each for latency_window, and stops at the first over the target",
    ));
    *bound = Bound::Time(job.latency_window_us);
    Some((*target, job.latency_percentile))
}

/// Why a latency-target search of `job` (its `latency_target` at `at`) has one queue depth whatever its
/// `iodepth`: its engine keeps one I/O in flight ([`crate::fio::json::one_io_in_flight`]: psync, fio's
/// default, sync, pvsync, pvsync2, falloc...), so the import's queue depth is 1 (trial 16 F3: the spec's
/// rule then refused "this phase has one" without saying why). `None` for a queue engine.
fn one_depth(job: &Job, at: &Place) -> Option<String> {
    let engine = job.engine.0.as_str();
    if !crate::fio::json::one_io_in_flight(engine) {
        return None;
    }
    let default = match job.engine.1 {
        None => " (fio's default ioengine)",
        Some(_) => "",
    };
    let dashes = match at {
        Place::Arg { .. } => "--",
        _ => "",
    };
    Some(format!(
        "fio's {engine} engine{default} keeps one I/O in flight whatever iodepth={} says, so there is one queue depth and nothing to search: give {dashes}ioengine=libaio or {dashes}ioengine=io_uring to search queue depths up to iodepth={}",
        job.iodepth, job.iodepth
    ))
}

/// `sqthread_poll` (a kernel thread polls io_uring's submission queue): `sq_poll = true` on io_uring; on
/// another engine refused, since fio has it on io_uring only. `sqthread_poll_cpu` (the CPU fio pins that
/// thread to) is refused with it, as wkrun leaves the thread where the kernel puts it, and noted without
/// it, as fio then ignores it.
pub(super) fn sq_poll(job: &Job, notes: &mut Vec<Remark>, refused: &mut Vec<Remark>) -> bool {
    let cpu = job
        .sq_poll_cpu
        .as_ref()
        .map(|(c, at)| (at, format!("sqthread_poll_cpu={c}")));
    let Some(at) = &job.sq_poll else {
        if let Some((at, text)) = cpu {
            notes.push(remark(
                at,
                text,
                "fio pins its submission polling thread only with sqthread_poll, which this job does not set: nothing to import",
            ));
        }
        return false;
    };
    let engine = job.engine.0.as_str();
    if engine != "io_uring" {
        refused.push(remark(
            at,
            "sqthread_poll=1",
            format!(
                "sqthread_poll applies only to fio's io_uring engine (a kernel thread polling its submission queue), not to ioengine={engine}: wkrun's sq_poll = true needs engine = \"io_uring\""
            ),
        ));
        return false;
    }
    if let Some((at, text)) = cpu {
        refused.push(remark(
            at,
            text,
            "wkrun has no `sqthread_poll_cpu`: its sq_poll thread runs on whichever CPU the kernel picks (fio pins it there with IORING_SETUP_SQ_AFF)",
        ));
    }
    true
}

/// A think time whose bursts fio counts otherwise than wkrun does ([`super::job::think_count`]: fio's
/// `thinktime_blocks_type=complete`, given or by default, with more than one I/O in flight), refused.
fn think_type(job: &Job, refused: &mut Vec<Remark>) {
    let kind = job.think_type.as_ref().map(|(k, at)| (k.as_str(), at));
    let blocks = (job.think_us > 0).then_some(job.think_blocks);
    let engine = job.engine.0.as_str();
    let Some(why) =
        blocks.and_then(|b| super::job::think_count(kind.map(|k| k.0), engine, job.iodepth, b))
    else {
        return;
    };
    let at = (kind.map(|k| k.1).or(job.think_at.as_ref())).unwrap_or(&job.at);
    refused.push(remark(
        at,
        super::job::think_type_text(kind.map(|k| k.0)),
        why,
    ));
}

/// fio's falloc engine: a trim job's is noted (how it trims a file, or zeroes a device's range), any other
/// job's refused.
fn falloc(job: &Job, notes: &mut Vec<Remark>, refused: &mut Vec<Remark>) {
    if job.engine.0 != "falloc" {
        return;
    }
    let at = job.engine.1.as_ref().unwrap_or(&job.at);
    let device = job
        .filename
        .as_ref()
        .is_some_and(|(f, _)| f.starts_with("/dev/"));
    match job.rw.trim {
        // Attack 19: on a block device, fallocate(PUNCH_HOLE) is the kernel's zero-out (WRITE ZEROES,
        // no fallback), not a discard.
        true if device => notes.push(remark(
            at,
            "ioengine=falloc",
            "on a block device fio's falloc engine's fallocate(PUNCH_HOLE) makes the kernel zero the range (WRITE ZEROES), not discard it; wkrun's trims on a block device are discards (BLKDISCARD), so this phase measures discards, on wkrun's psync engine one at a time",
        )),
        // Trial 18 F1: fio trims a regular file only with falloc, so its trim jobs on files use it.
        true => notes.push(remark(
            at,
            "ioengine=falloc",
            "fio's falloc engine trims a file by punching holes (fallocate PUNCH_HOLE), as wkrun's trims on a file do; the phase runs on wkrun's psync engine, one I/O at a time as falloc does",
        )),
        false => refused.push(remark(
            at,
            "ioengine=falloc",
            "fio's falloc engine allocates a file's blocks for writes and does nothing for reads; wkrun takes it only for trim jobs (rw=trim, rw=randtrim)",
        )),
    }
}

/// A trim job on a regular file (a `filename` not under `/dev`, or none: fio's own file) with an engine other
/// than falloc, noted (trial 26 L4): fio 3.33 trims a file only with falloc; its other engines end the job
/// with error 25 (ENOTTY: the discard ioctl on a file), where wkrun's trims on a file punch holes.
fn trims_fio_fails(job: &Job, notes: &mut Vec<Remark>) {
    let device = (job.filename.as_ref()).is_some_and(|(f, _)| f.starts_with("/dev/"));
    let e = job.engine.0.as_str();
    if !job.rw.trim || device || e == "falloc" || e == "null" {
        return;
    }
    notes.push(remark(
        job.engine.1.as_ref().unwrap_or(&job.at),
        format!("ioengine={e}"),
        format!(
            "fio trims a regular file only with ioengine=falloc: with {e}, fio ends this job on a file with error 25 (Inappropriate ioctl for device), while wkrun's trims on a file punch holes; to run it side by side with fio on a file, give fio ioengine=falloc"
        ),
    ));
}

/// fio's `fsync=N` (or `fdatasync=N`) in a job where fio makes more syncs than one per N writes, noted:
/// fio syncs whenever its count of issued writes is a nonzero multiple of N and the last I/O to complete was
/// not a sync (fio 3.33, every I/O traced with `--debug=io`), so it syncs again before each I/O it issues
/// until its next write: each read of a job that reads and writes (`read_percent` above 0), and, on io_uring
/// at an iodepth above 1 (a sync queued like an I/O), while a sync is in flight. wkrun flushes once after
/// every N writes of each worker (trial 21 T1).
fn more_syncs(job: &Job, read_percent: u64, notes: &mut Vec<Remark>) {
    let (Some((call, n)), Some(at)) = (job.flush, &job.flush_at) else {
        return;
    };
    let reads = job.rw.write && job.rw.read && read_percent > 0;
    let queued = job.rw.write && job.engine.0 == "io_uring" && job.iodepth > 1;
    let mut why = Vec::new();
    if reads {
        why.push(format!(
            "in a job that also reads it syncs again before each read it issues until its next write, about (1 + reads per write) × writes / {n} syncs (fio 3.33, rw=randrw, rwmixread=60, fsync=16: 2.4 to 2.6 times floor(writes / 16) on psync, libaio and io_uring)"
        ));
    }
    if queued {
        why.push(format!(
            "its io_uring engine queues a sync like an I/O, so at iodepth={} it syncs again before each I/O it issues while a sync is in flight (fio 3.33, rw=randwrite, iodepth=8, fsync=16: 4.4 times floor(writes / 16))",
            job.iodepth
        ));
    }
    if why.is_empty() {
        return;
    }
    notes.push(remark(
        at,
        format!("{call}={n}"),
        format!(
            "fio syncs whenever its count of issued writes is a nonzero multiple of {n} and the last I/O to complete was not a sync: {}; wkrun's {call} flushes once after every {n} writes of each worker, so the flush counts and flush latencies of the two differ (compare says so beside fio's output)",
            why.join("; and ")
        ),
    ));
}

/// The verify phase a job's `verify=` gives (`Some(do_verify)`), noted; none for a job that writes
/// nothing, noted too.
fn verify(job: &Job, writes: bool, notes: &mut Vec<Remark>) -> Option<bool> {
    match (&job.verify, writes) {
        (Some((sum, vat)), true) => {
            notes.push(remark(
                vat,
                format!("verify={sum}"),
                "wkrun stamps every 512-byte sector with its own header and checksum (XXH3), not fio's; a verify phase reads them back after the job (none with do_verify=0)",
            ));
            Some(job.do_verify)
        }
        // Attack 19: a verify of a job that writes nothing was dropped without a word.
        (Some((sum, vat)), false) => {
            notes.push(remark(
                vat,
                format!("verify={sum}"),
                "this job writes nothing, and wkrun verifies only what a phase wrote (its own sector stamps, read back after it): no verify phase",
            ));
            None
        }
        _ => None,
    }
}

/// The job's shape; a value fio takes but no phase can hold is a problem.
pub fn shape(job: &Job) -> Result<Shaped, Problem> {
    if let Some(p) = job.both_rates() {
        return Err(p);
    }
    let mut notes = job.notes.clone();
    let mut refused = job.refused.clone();
    let at = job.bs_at.clone().unwrap_or_else(|| job.at.clone());
    let read_percent = match job.directions() {
        [true, true] => job.rwmixread,
        [true, false] => 100,
        _ => 0,
    };
    let (block, full) = block(job, &at, &mut refused);
    let sync = crate::fio::json::one_io_in_flight(&job.engine.0);
    falloc(job, &mut notes, &mut refused);
    think_type(job, &mut refused);
    trims_fio_fails(job, &mut notes);
    let engine = match job.engine.0.as_str() {
        "libaio" => "libaio",
        "io_uring" => "io_uring",
        "null" => "null",
        _ => "psync",
    };
    if sync && job.iodepth > 1 {
        notes.push(remark(
            job.engine.1.as_ref().unwrap_or(&job.at),
            format!("ioengine={}, iodepth={}", job.engine.0, job.iodepth),
            format!(
                "fio's {} engine keeps one I/O in flight per job whatever iodepth says; wkrun's psync keeps queue_depth threads, so queue_depth = 1",
                job.engine.0
            ),
        ));
    }
    // The null engine does no I/O: no cache to speak of (trial 24 F7).
    if !job.direct && job.invalidate && engine != "null" {
        notes.push(remark(
            &job.at,
            "direct=0",
            "buffered I/O: fio drops the file's cached pages before the job (invalidate=1, its default); wkrun does not, so its numbers include what is cached",
        ));
    }
    let partitioned = partitioned(job, &mut refused)?;
    let mut bound = bound(job, &mut refused)?;
    let block = match block {
        Block::Mix(v) if !matches!(bound, Bound::Time(_)) => {
            refused.push(remark(
                &at,
                "bssplit/bsrange without time_based",
                "fio's job ends after its bytes; wkrun's block-size mix needs a time bound, since a byte bound would be met only on average (--lossy: the most frequent size)",
            ));
            Block::One(v.iter().max_by_key(|e| e.1).map_or(4096, |e| e.0))
        }
        b => b,
    };
    let (steady, ramp_us) = steady(job, &mut bound, &mut notes, &mut refused)?;
    let (rate, mix) = super::rate::caps(job, &block, read_percent, &mut notes, &mut refused);
    let read_percent = mix.share(read_percent);
    more_syncs(job, read_percent, &mut notes);
    let writes = job.rw.write;
    let verify = verify(job, writes, &mut notes);
    let latency = latency(job, &mut bound, &mut notes, &mut refused);
    let shape = Shape {
        random: job.rw.random,
        read_percent,
        trim_percent: if job.rw.trim { 100 } else { 0 },
        sync: job.sync,
        flush: job.flush,
        block,
        queue_depth: if sync { 1 } else { job.iodepth },
        engine,
        direct: job.direct,
        full,
        offset: job.offset,
        size: crate::fio::region::span(job.offset, job.size, job.filesize),
        partitioned,
        bound,
        ramp_us,
        poisson: job.poisson && rate.iter().any(Option::is_some),
        rate,
        think: (job.think_us > 0).then_some((job.think_us, job.think_blocks)),
        latency,
        seed: job.seed,
        distribution: job.distribution.clone().filter(|_| job.rw.random),
        data: writes.then_some(job.data),
        verify,
        steady,
        interval_ms: job.interval_ms,
        on_error_continue: job.on_error_continue,
        sq_poll: sq_poll(job, &mut notes, &mut refused),
    };
    Ok(Shaped {
        shape,
        notes,
        refused,
    })
}

/// The block size of the directions the job uses, and whether fio's random map applies (full coverage).
fn block(job: &Job, at: &Place, refused: &mut Vec<Remark>) -> (Block, bool) {
    let (first, differ) = super::job::used_sizes(&job.bs, job.used());
    if let Some([a, b]) = differ {
        refused.push(remark(
            at,
            "bs (per direction)",
            format!("{a} and {b} of different block sizes; a wkrun phase has one block size (or mix) for both (--lossy: the {a}')"),
        ));
    }
    let mut block = match first {
        Blocks::One(b) => Block::One(*b),
        Blocks::Range(lo, hi) if first.mix().is_none() => {
            refused.push(remark(
                at,
                format!("bsrange={lo}-{hi}"),
                "fio draws sizes from a range whose top is not a small multiple of its bottom unevenly; wkrun's mix needs the sizes and weights (--lossy: the smallest size)",
            ));
            Block::One(*lo)
        }
        _ => Block::Mix(first.mix().unwrap_or_default()),
    };
    if let Block::Mix(v) = &block
        && !job.rw.random
    {
        refused.push(remark(
            at,
            "bssplit/bsrange",
            "a block-size mix with sequential offsets; wkrun's mix is for random workloads (--lossy: the most frequent size)",
        ));
        let top = v.iter().max_by_key(|e| e.1).map_or(4096, |e| e.0);
        block = Block::One(top);
    }
    let unit = match &block {
        Block::One(b) => *b,
        Block::Mix(v) => v.iter().map(|e| e.0).min().unwrap_or(4096),
    };
    if let Some((ba, bat)) = &job.ba
        && job.rw.random
        && *ba != unit
    {
        refused.push(remark(
            bat,
            format!("ba={ba}"),
            format!("random offsets aligned to {} B; wkrun aligns them to the block size (or a mix's smallest, {} B)", ba, unit),
        ));
    }
    // fio leaves its random map off under a non-uniform distribution.
    let mut full = random_map(job);
    if let Some(r) = mix_under_random_map(job, &block, at) {
        refused.push(r);
        full = false;
    }
    (block, full)
}

/// Whether fio keeps its random map for `job`: random offsets, no `norandommap`, no `random_distribution`.
fn random_map(job: &Job) -> bool {
    job.rw.random && job.random_map && job.distribution.is_none()
}

/// The refusal of a block-size mix under fio's random map (random offsets, no `norandommap`, no
/// `random_distribution`), `None` otherwise: fio then draws the larger sizes less often than the mix's
/// weights (trial 27 M1, fio 3.33, `bssplit=4k/50:64k/50 rate=16m`: 626 I/Os per second, not 16 MiB /
/// 34,816 B = 482), so neither the mix nor a byte rate's I/Os per second are what fio does. The import
/// refuses the job, and fio's JSON reader its rate cap ([`super::rate::total`]).
pub(crate) fn mix_under_random_map(job: &Job, block: &Block, at: &Place) -> Option<Remark> {
    (random_map(job) && matches!(block, Block::Mix(_))).then(|| {
        remark(
            at,
            "bssplit/bsrange without norandommap",
            "fio's random map (each block once per pass) with a block-size mix draws the larger sizes less often than the mix says, so its I/Os are not the mix's and a byte rate gives more of them than the mix's mean size does; wkrun draws a mix's offsets uniformly with replacement, as fio's norandommap (--lossy: offsets drawn with replacement)",
        )
    })
}

/// Whether `offset_increment` lays the jobs' regions one after another.
fn partitioned(job: &Job, refused: &mut Vec<Remark>) -> Result<bool, Problem> {
    let Some((inc, at)) = &job.offset_increment else {
        return Ok(false);
    };
    if *inc == Size::Bytes(0) || job.numjobs == 1 {
        return Ok(false);
    }
    // With filesize, each job's region runs to the end of the file: the regions overlap.
    if Some(*inc) == job.size && job.filesize.is_none() {
        return Ok(true);
    }
    let why = match job.filesize {
        Some(_) => {
            "job N starts at offset + N × offset_increment and, beside filesize, runs to the end of the file: the jobs' regions overlap, where wkrun's workers split the span into equal parts (--lossy: equal parts)"
        }
        None => {
            "job N starts at offset + N × offset_increment; wkrun's workers split the span into equal parts, which is this only when offset_increment equals size (--lossy: equal parts)"
        }
    };
    refused.push(remark(at, "offset_increment", why));
    Ok(false)
}

/// What ends the job: fio's time (with time_based), else its bytes.
fn bound(job: &Job, refused: &mut Vec<Remark>) -> Result<Bound, Problem> {
    let bytes = || match job.io_size.or(job.size) {
        Some(Size::Bytes(b)) => b.checked_mul(job.loops).map(Bound::Bytes),
        Some(Size::Percent(p)) => Some(Bound::Region(p * job.loops)),
        None => Some(Bound::Region(100 * job.loops)),
    };
    let too_large = || Problem::new(job.at.clone(), "the job's bytes overflow");
    match (&job.runtime_us, job.time_based) {
        (Some((us, _)), true) if *us > 0 => Ok(Bound::Time(*us)),
        (_, true) => Err(Problem::new(
            job.at.clone(),
            format!(
                "job {}: time_based without runtime runs until fio is stopped; a wkrun phase needs a bound (give runtime)",
                job.name
            ),
        )),
        (Some((us, at)), false) if *us > 0 => {
            let what = match job.io_size.or(job.size) {
                Some(Size::Bytes(b)) => format!("{} per job", fmt_bytes(b)),
                Some(Size::Percent(p)) => format!("{p}% of the file per job"),
                None => "the whole file per job".into(),
            };
            let time = Duration(us * 1000);
            refused.push(remark(
                at,
                format!("the byte bound ({what}) beside runtime={time} without time_based"),
                format!(
                    "fio stops at whichever comes first, runtime or the job's bytes; a wkrun phase has one bound: --lossy keeps the time (duration = \"{time}\": the phase runs all of it, even where fio would stop sooner, after {what}) and drops the byte bound; to choose, add time_based to keep the time, or drop runtime to keep the bytes"
                ),
            ));
            Ok(Bound::Time(*us))
        }
        _ => bytes().ok_or_else(too_large),
    }
}

/// fio's steady-state rule, and the lead-in (`ramp_time`, or `ss_ramp` for a steady-state job).
fn steady(
    job: &Job,
    bound: &mut Bound,
    notes: &mut Vec<Remark>,
    refused: &mut Vec<Remark>,
) -> Result<(Option<Steady>, Option<u64>), Problem> {
    let [(dur, _), (ramp, ramp_at), (every, every_at)] = &job.ss_times;
    let (dur, ramp, every) = (*dur, *ramp, *every);
    let at = job.ss.as_ref().map_or(&job.at, |s| &s.1);
    // A remark on ss_ramp or ss_interval is placed at that option (at the criterion when fio's default).
    let (ramp_at, every_at) = (
        ramp_at.as_ref().unwrap_or(at),
        every_at.as_ref().unwrap_or(at),
    );
    if dur == 0 {
        if let Some((text, at)) = &job.ss {
            notes.push(remark(
                at,
                format!("steadystate={text}"),
                "without ss_dur fio does not judge steady state, so neither does the spec",
            ));
        }
        return Ok((None, job.ramp_us));
    }
    let text = job.ss.as_ref().map_or("iops_slope:0.01%", |s| s.0.as_str());
    let bad = |m: String| Problem::new(at.clone(), format!("steadystate={text}: {m}"));
    let (what, limit) = text
        .split_once(':')
        .ok_or_else(|| bad("fio writes it METRIC:LIMIT".into()))?;
    let (metric, kind) = match what.trim().strip_suffix("_slope") {
        Some(m) => (m, "slope"),
        None => (what.trim(), "deviation"),
    };
    if !["iops", "bw", "lat"].contains(&metric) {
        return Err(bad(format!("`{metric}` is not iops, bw or lat")));
    }
    let (num, relative) = match limit.trim().strip_suffix('%') {
        Some(n) => (n, true),
        None => (limit.trim(), false),
    };
    let mut limit: f64 = num
        .trim()
        .parse()
        .map_err(|_| bad(format!("`{num}` is not a number")))?;
    if relative {
        limit /= 100.0;
    }
    if every == 0 || dur % every != 0 || dur / every < 2 {
        refused.push(remark(
            at,
            "ss_dur/ss_interval",
            "the window must be at least two whole ss_interval rounds (--lossy: no steady-state rule)",
        ));
        return Ok((None, job.ramp_us));
    }
    if !matches!(*bound, Bound::Time(_)) {
        refused.push(remark(
            at,
            format!("steadystate={text}"),
            "a steady-state job ends at steady state or its runtime; give runtime with time_based (--lossy: no steady-state rule)",
        ));
        return Ok((None, job.ramp_us));
    }
    let interval_us = job.interval_ms.unwrap_or(1000) * 1000;
    if every % interval_us != 0 {
        refused.push(remark(
            every_at,
            "ss_interval",
            "fio's steady-state interval is not a multiple of the series interval (log_avg_msec) (--lossy: no steady-state rule)",
        ));
        return Ok((None, job.ramp_us));
    }
    let ramp_us = match (ramp, job.ramp_us) {
        (0, r) => r,
        (r, None) => {
            // fio's ss_ramp lies inside its runtime and its I/Os count; wkrun's ramp comes before the
            // duration and is not counted: the duration is the runtime less the ramp, so the job lasts
            // as long and is judged from the same moment (trial 14: the import ran 15 s for fio's 10).
            let ramp = Duration(r * 1000);
            match bound {
                Bound::Time(t) if *t > r => {
                    *t -= r;
                    notes.push(remark(
                        ramp_at,
                        format!("ss_ramp={ramp}"),
                        format!("fio judges steady state after ss_ramp, within its runtime, and counts its I/Os; wkrun's ramp comes first and is left out of the phase's totals, so the phase is ramp = \"{ramp}\" then duration = \"{}\" (the runtime less ss_ramp): as long as fio's job, judged from the same moment, its totals without the ramp's I/Os", Duration(*t * 1000)),
                    ));
                }
                _ => {
                    refused.push(remark(
                        ramp_at,
                        format!("ss_ramp={ramp}"),
                        "ss_ramp is not shorter than runtime: fio never judges steady state (--lossy: no steady-state rule)",
                    ));
                    return Ok((None, job.ramp_us));
                }
            }
            Some(r)
        }
        (_, Some(r)) => {
            refused.push(remark(
                ramp_at,
                "ss_ramp with ramp_time",
                "fio judges steady state only after ss_ramp but counts it; wkrun's lead-in is its ramp (--lossy: ramp_time alone)",
            ));
            Some(r)
        }
    };
    let steady = Steady {
        metric: metric.to_string(),
        kind,
        limit,
        relative,
        window: dur / every,
        round_us: (every != interval_us).then_some(every),
    };
    Ok((Some(steady), ramp_us))
}
