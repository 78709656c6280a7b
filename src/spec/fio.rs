//! fio's option names and what each is in wkrun: the one table ([`FIO_KEYS`]) behind both the help a spec
//! using a fio name gets (`wkrun validate`, `--set`: "`iodepth` is `queue_depth` in wkrun") and what
//! `wkrun import fio` does with the option ([`Import`]: mapped, accepted with a note, or refused). The
//! names fio knows at all are [`fio_option`] (fio's own option tables, listed in `fio_options.txt`): an
//! importer refuses a name fio does not know as fio does, and a name fio knows that the table does not map
//! as one with no wkrun meaning.

/// What `wkrun import fio` does with a fio option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Import {
    /// The importer reads it into the spec with fio's meaning (or refuses a value it cannot keep, saying why).
    Mapped,
    /// Accepted with a note (the row's hint): it changes only fio's own output or process model.
    Noted,
    /// Refused, naming the line and the row's hint as the reason (dropped with a comment under `--lossy`),
    /// unless its value is one of [`FioKey::neutral`] (fio's default, which changes nothing).
    Refused,
}

/// A fio option and what it is in wkrun. An unknown key of a spec that is one of these gets
/// [`FioKey::hint`] instead of "did you mean" (in a spec, `validate` and `--set`).
pub struct FioKey {
    /// The fio option's name.
    pub fio: &'static str,
    /// One line: the wkrun key (or what wkrun does instead, or why it has none).
    pub hint: &'static str,
    /// Common fio values and the wkrun setting each is (`("randrw", "pattern = \"random\", ...")`).
    pub values: &'static [(&'static str, &'static str)],
    /// What the importer does with it.
    pub import: Import,
    /// Values that leave fio's default behaviour (`fsync=0`, `thinktime=0`): a refused option with one of
    /// them is accepted, since it asks for nothing wkrun lacks.
    pub neutral: &'static [&'static str],
}

/// A row the importer maps.
const fn map(fio: &'static str, hint: &'static str) -> FioKey {
    FioKey {
        fio,
        hint,
        values: &[],
        import: Import::Mapped,
        neutral: &[],
    }
}

/// A row the importer accepts with a note.
const fn note(fio: &'static str, hint: &'static str) -> FioKey {
    FioKey {
        import: Import::Noted,
        ..map(fio, hint)
    }
}

/// A row the importer refuses, unless the value is `0` (off, fio's default).
const fn refuse(fio: &'static str, hint: &'static str) -> FioKey {
    refuse_unless(fio, hint, &["0"])
}

/// A row the importer refuses, unless the value is one of `neutral` (fio's default for the option; attack
/// 26 F4: `percentage_random=0` is all sequential, not the default 100).
const fn refuse_unless(
    fio: &'static str,
    hint: &'static str,
    neutral: &'static [&'static str],
) -> FioKey {
    FioKey {
        import: Import::Refused,
        neutral,
        ..map(fio, hint)
    }
}

/// The fio engines and the wkrun engine each is.
pub const FIO_ENGINES: &[(&str, &str)] = &[
    ("libaio", "engine = \"libaio\""),
    ("io_uring", "engine = \"io_uring\""),
    ("psync", "engine = \"psync\""),
    ("pvsync", "engine = \"psync\""),
    ("pvsync2", "engine = \"psync\""),
    ("sync", "engine = \"psync\""),
    ("null", "engine = \"null\""),
];

/// fio's `rw` values and the wkrun keys each is (fio's default `rwmixread` is 50).
pub const FIO_RW: &[(&str, &str)] = &[
    ("read", "pattern = \"sequential\", read_percent = 100"),
    ("write", "pattern = \"sequential\", read_percent = 0"),
    ("randread", "pattern = \"random\", read_percent = 100"),
    ("randwrite", "pattern = \"random\", read_percent = 0"),
    ("rw", "pattern = \"sequential\", read_percent = 50"),
    ("readwrite", "pattern = \"sequential\", read_percent = 50"),
    ("randrw", "pattern = \"random\", read_percent = 50"),
    (
        "trim",
        "pattern = \"sequential\", read_percent = 0, trim_percent = 100",
    ),
    (
        "randtrim",
        "pattern = \"random\", read_percent = 0, trim_percent = 100",
    ),
];

/// fio options and their wkrun equivalents, by fio name (one line each), in the order of docs/fio.md's
/// cheat sheet. fio options that wkrun spells the same (`size`, `offset`, `rate_iops`, `direct`, `verify`,
/// `name`, `description`) are rows too, for the importer; a spec using them is read as wkrun's key, and a
/// fio-style value gets [`fio_value_hint`].
pub const FIO_KEYS: &[FioKey] = &[
    map("global", "fio's [global] is [defaults] in wkrun"),
    map(
        "name",
        "`name` is the phase's `name` in wkrun (a job section's name, or --name=NAME, which starts a job on fio's command line)",
    ),
    map(
        "description",
        "`description` is the phase's `description` in wkrun",
    ),
    FioKey {
        values: FIO_RW,
        ..map("rw", "`rw` is `pattern` and `read_percent` in wkrun")
    },
    FioKey {
        values: FIO_RW,
        ..map(
            "readwrite",
            "`readwrite` is `pattern` and `read_percent` in wkrun",
        )
    },
    map("rwmixread", "`rwmixread` is `read_percent` in wkrun"),
    map(
        "rwmixwrite",
        "`rwmixwrite` is 100 - `read_percent` in wkrun (rwmixwrite = 30 is read_percent = 70)",
    ),
    map("bs", "`bs` is `block_size` in wkrun"),
    map("blocksize", "`blocksize` is `block_size` in wkrun"),
    map(
        "bssplit",
        "`bssplit` is a `block_size` table in wkrun: block_size = { \"4KiB\" = 60, \"64KiB\" = 40 }",
    ),
    map(
        "bsrange",
        "`bsrange` is a `block_size` table in wkrun: fio draws every multiple of the smallest size up to the largest equally often (bsrange=4k-16k is block_size = { \"4KiB\" = 1, \"8KiB\" = 1, \"12KiB\" = 1, \"16KiB\" = 1 })",
    ),
    map(
        "ba",
        "wkrun has no `ba` (blockalign): random offsets are aligned to the block size, or to a mix's smallest size, as fio's default",
    ),
    map("iodepth", "`iodepth` is `queue_depth` in wkrun"),
    refuse_unless(
        "iodepth_batch_complete_min",
        "`iodepth_batch_complete_min` has no wkrun key: an io_uring phase waits per completion, or for every I/O in flight with a 20 µs minimum wait where a probe at its start finds that faster (completion_waits = \"probe\", the default; \"each\" turns it off)",
        &["1"],
    ),
    refuse_unless(
        "iodepth_batch",
        "wkrun has no `iodepth_batch`: an engine submits each I/O as a slot frees",
        &["1"],
    ),
    refuse(
        "iodepth_low",
        "wkrun has no `iodepth_low`: an engine refills the queue as each I/O completes",
    ),
    map(
        "runtime",
        "`runtime` is `duration` in wkrun, with its unit (\"60s\")",
    ),
    map(
        "time_based",
        "`time_based` is what `duration` does in wkrun: a workload with a duration runs for all of it",
    ),
    map(
        "size",
        "`size` is `span` (the region) in wkrun, and without time_based also `size` (the bytes); fio's size is per job, wkrun's size is the phase's total",
    ),
    map("io_size", "`io_size` is `size` in wkrun"),
    map("offset", "`offset` is `offset` in wkrun (the span's start)"),
    map(
        "filesize",
        "`filesize` is [target] size in wkrun (the size of a file wkrun creates)",
    ),
    map(
        "numjobs",
        "`numjobs` is `workers` in wkrun; fio gives every job the whole file, wkrun gives each worker its own part of the span by default (the same uniform spread over the span in all, with exact byte ranges); `workers_split = \"shared\"` gives each worker the whole span, as fio does (random workloads only)",
    ),
    map(
        "offset_increment",
        "wkrun has no `offset_increment`: with `workers`, workers_split = \"partitioned\" (the default) gives each worker its own contiguous part of the span",
    ),
    FioKey {
        values: FIO_ENGINES,
        ..map("ioengine", "`ioengine` is `engine` in wkrun")
    },
    map(
        "direct",
        "`direct` is `direct` in wkrun (direct = true for direct=1)",
    ),
    map(
        "buffered",
        "`buffered` is the opposite of `direct` in wkrun: buffered = 1 is direct = false",
    ),
    map(
        "invalidate",
        "wkrun has no `invalidate`: it does not drop the target's cached pages before a phase (fio's invalidate=1, its default, does)",
    ),
    map(
        "ramp_time",
        "`ramp_time` is `ramp` in wkrun (ramp_time=0, fio's default, is no ramp)",
    ),
    map(
        "rate_iops",
        "`rate_iops` is `rate_iops` in wkrun: fio's caps each direction of each job (rate_iops=500 with numjobs=2 is rate_iops = { read = 1000, write = 1000 }); with a block-size mix fio caps bytes at rate_iops × the smallest size, wkrun's I/Os, so the import caps at the I/Os per second fio gives on average, rate_iops × smallest / mean size (500 with bssplit=4k/50:64k/50 is 58.82, rate_iops = 59); with rate_process=poisson fio counts I/Os, so it is rate_iops as it is",
    ),
    map(
        "rate",
        "wkrun has no `rate` (a bandwidth cap): cap the I/Os with `rate_iops`, rate / block size (4 MiB/s in 4 KiB blocks is rate_iops = 1024); the import converts fio's, which paces bytes: with a block-size mix rate / mean size on average (1m with bssplit=4k/50:64k/50 is 30.12, rate_iops = 30), with rate_process=poisson ⌊rate / smallest size⌋; a rate of one size that is no whole number of I/Os per second is refused (--lossy: rounded)",
    ),
    map(
        "rate_process",
        "`rate_process` is `rate_process` in wkrun: `\"linear\"` (evenly spaced, the default) or `\"poisson\"` (Poisson arrivals at the rate_iops cap's mean rate)",
    ),
    map(
        "randseed",
        "`randseed` is `seed` in wkrun (each phase's stream is drawn from it and the phase's name, so jobs that become phases get streams of their own, as fio's jobs do)",
    ),
    note(
        "randrepeat",
        "wkrun has no `randrepeat`: offsets and data are always the same for the same `seed` and phase name (phases of one run get streams of their own)",
    ),
    map(
        "norandommap",
        "wkrun has no `norandommap`: random offsets are drawn with replacement unless coverage = \"full\" (fio's random map)",
    ),
    note(
        "random_generator",
        "wkrun has no `random_generator`: it has one generator (PCG-64), which `seed` starts; skewed offsets (`distribution`) are drawn from it too",
    ),
    map(
        "random_distribution",
        "`random_distribution` is `distribution` in wkrun, spelt the same (distribution = \"zoned:50/5:30/15:20/80\"; fio's \"random\" is \"uniform\"; a normal's deviation is a fraction of the span, fio's normal:10 is normal:0.1)",
    ),
    map(
        "filename",
        "`filename` is the target in wkrun: [target] path = \"...\" or --target PATH (several files, like filename=a:b: [target] paths = [...] or --target repeated)",
    ),
    map(
        "directory",
        "wkrun has no `directory`: the target's path names its folder ([target] path = \"DIR/FILE\")",
    ),
    map(
        "nrfiles",
        "wkrun has no `nrfiles`: name each file, [target] paths = [...] or --target repeated (each target runs the whole phase)",
    ),
    map(
        "buffer_compress_percentage",
        "`buffer_compress_percentage` is data = \"compressible:N%\" in wkrun",
    ),
    map(
        "buffer_compress_chunk",
        "wkrun has no `buffer_compress_chunk`: compressible data repeats its filler in every 512-byte chunk (fio's default chunk)",
    ),
    map(
        "zero_buffers",
        "`zero_buffers` is data = \"zeros\" in wkrun",
    ),
    map(
        "refill_buffers",
        "wkrun has no `refill_buffers`: data = \"random\" is fresh for every I/O, as refill_buffers makes fio's",
    ),
    map(
        "scramble_buffers",
        "wkrun has no `scramble_buffers`: data = \"random\" is fresh for every I/O (no buffer is written twice)",
    ),
    refuse(
        "dedupe_percentage",
        "wkrun has no `dedupe_percentage`: data = \"random\" never repeats a block; data = \"zeros\" always does",
    ),
    map(
        "buffer_pattern",
        "`buffer_pattern` of zero bytes (`0`) is data = \"zeros\" in wkrun; wkrun has no other pattern: data is \"random\", \"zeros\" or \"compressible:N%\"",
    ),
    map(
        "verify",
        "`verify` is `verify` in wkrun (verify = true: every sector written is stamped with a checksum, checked by a `verify` phase)",
    ),
    map(
        "do_verify",
        "wkrun has no `do_verify`: a `verify` phase after the writing phase reads the stamps back (do_verify=0: none)",
    ),
    map("loops", "`loops` is `passes` (of a fill) in wkrun"),
    map(
        "steadystate",
        "`steadystate` is `steady_state` in wkrun: { rule = \"fio\", metric = \"iops\", kind = \"slope\", limit = 0.1 }",
    ),
    map(
        "steadystate_duration",
        "`steadystate_duration` (ss_dur) is the fio rule's `window` in wkrun, in rounds of one `interval`",
    ),
    map(
        "steadystate_ramp_time",
        "`steadystate_ramp_time` (ss_ramp) is `ramp` in wkrun for a steady-state job (its rounds are not judged), the `duration` the runtime less it: fio's lies within its runtime and counts its I/Os, wkrun's comes first and does not",
    ),
    map(
        "steadystate_check_interval",
        "wkrun has no `steadystate_check_interval` (ss_interval): the fio rule judges one round per `interval` (\"1s\", fio's default)",
    ),
    map(
        "kb_base",
        "wkrun has no `kb_base`: KiB, MiB, k, M are binary and KB, MB decimal (block sizes refuse decimal units)",
    ),
    map(
        "stonewall",
        "wkrun has no `stonewall`: phases always run one after another, as fio jobs separated by stonewall do; jobs fio runs at once are one phase's `workers` (copies of one job) or --target repeated (one job per file)",
    ),
    map(
        "wait_for",
        "wkrun has no `wait_for`: phases run one after another, so a job that waits for the one job before it is the next phase",
    ),
    note(
        "new_group",
        "wkrun has no `new_group`: each phase's results are reported on their own",
    ),
    map(
        "continue_on_error",
        "`continue_on_error` is `on_error` in wkrun (continue_on_error=io is on_error = \"continue\"; none is \"stop\")",
    ),
    map(
        "log_avg_msec",
        "`log_avg_msec` is `interval` in wkrun (\"1s\"; every I/O phase writes its series CSV)",
    ),
    note(
        "write_iops_log",
        "wkrun has no `write_iops_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    note(
        "write_bw_log",
        "wkrun has no `write_bw_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    note(
        "write_lat_log",
        "wkrun has no `write_lat_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`) and its latency histograms per `interval` and direction as NN-<phase>.hlog (HdrHistogram's interval log, the closer match to fio's write_hist_log); fio's log of every I/O (no log_avg_msec) is wkrun's `trace = N` (NN-<phase>.trace.csv)",
    ),
    note(
        "write_hist_log",
        "wkrun has no `write_hist_log`: every I/O phase writes its latency histograms per `interval` and direction as NN-<phase>.hlog (HdrHistogram's interval log, values in ns, which HistogramLogProcessor reads), not fio's clat-bin log, beside its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    note(
        "group_reporting",
        "wkrun has no `group_reporting`: a phase's results always sum its workers, with each worker's counts in phases[].workers",
    ),
    note(
        "thread",
        "wkrun has no `thread`: every worker is a thread of the one wkrun process",
    ),
    note(
        "percentile_list",
        "wkrun has no `percentile_list`: results give p50, p90, p99, p99.9 and p99.99, and the latency histograms for any other",
    ),
    note(
        "clat_percentiles",
        "wkrun has no `clat_percentiles`: results give percentiles of each I/O's time from submission to completion",
    ),
    note(
        "lat_percentiles",
        "wkrun has no `lat_percentiles`: results give percentiles of each I/O's time from submission to completion",
    ),
    note(
        "slat_percentiles",
        "wkrun has no `slat_percentiles`: submission time is part of each I/O's latency",
    ),
    note(
        "disable_lat",
        "wkrun has no `disable_lat`: every I/O's latency is recorded",
    ),
    note(
        "disable_clat",
        "wkrun has no `disable_clat`: every I/O's latency is recorded",
    ),
    note(
        "disable_slat",
        "wkrun has no `disable_slat`: every I/O's latency is recorded",
    ),
    note(
        "disable_bw_measurement",
        "wkrun has no `disable_bw_measurement`: bandwidth is counted per interval",
    ),
    note(
        "gtod_reduce",
        "wkrun has no `gtod_reduce`: one clock reading per completion",
    ),
    note(
        "clocksource",
        "wkrun has no `clocksource`: it reads CLOCK_MONOTONIC",
    ),
    note(
        "per_job_logs",
        "wkrun has no `per_job_logs`: each worker's totals are in phases[].workers",
    ),
    note(
        "log_offset",
        "wkrun has no `log_offset`: the series CSV has one row per interval",
    ),
    note(
        "log_unix_epoch",
        "wkrun has no `log_unix_epoch`: results give each phase's start as wall-clock time",
    ),
    note(
        "log_compression",
        "wkrun has no `log_compression`: the series CSV is plain text",
    ),
    note(
        "log_hist_msec",
        "wkrun has no `log_hist_msec`: the .hlog holds one histogram per series row, so its period is `interval` (which log_avg_msec sets)",
    ),
    note(
        "unit_base",
        "wkrun has no `unit_base`: results give bytes per second (`bw_bytes_per_s`)",
    ),
    note(
        "significant_figures",
        "wkrun has no `significant_figures`: results give full numbers",
    ),
    note("stats", "wkrun has no `stats`: every I/O phase is measured"),
    note(
        "cpus_allowed",
        "wkrun has no `cpus_allowed`: each io_uring worker runs on its own CPU of those wkrun may use, other engines' workers where the scheduler places them (taskset limits them)",
    ),
    note(
        "cpus_allowed_policy",
        "wkrun has no `cpus_allowed_policy`: each io_uring worker runs on its own CPU of those wkrun may use, other engines' workers where the scheduler places them",
    ),
    note(
        "cpumask",
        "wkrun has no `cpumask`: each io_uring worker runs on its own CPU of those wkrun may use, other engines' workers where the scheduler places them (taskset limits them)",
    ),
    note(
        "unlink",
        "wkrun has no `unlink`: the target stays after the run",
    ),
    note(
        "fallocate",
        "wkrun has no `fallocate`: a file target wkrun creates is preallocated where the file system can",
    ),
    note(
        "mem",
        "wkrun has no `mem` (iomem): I/O buffers are page-aligned memory of the wkrun process",
    ),
    map(
        "fixedbufs",
        "wkrun has no `fixedbufs`: its io_uring engine always registers its buffers",
    ),
    map(
        "registerfiles",
        "wkrun has no `registerfiles`: its io_uring engine always registers its file",
    ),
    refuse(
        "hipri",
        "`hipri` is not imported: it is `polled = true` in a wkrun phase (`engine = \"io_uring\"`, a block device with poll queues)",
    ),
    map(
        "sqthread_poll",
        "`sqthread_poll` is `sq_poll` in wkrun (sqthread_poll=1, or given bare, is sq_poll = true; io_uring only)",
    ),
    map(
        "sqthread_poll_cpu",
        "wkrun has no `sqthread_poll_cpu`: the sq_poll thread runs on whichever CPU the kernel picks (fio pins it with IORING_SETUP_SQ_AFF)",
    ),
    map(
        "thinktime",
        "`thinktime` is `think_time` in wkrun, a duration (fio's bare number is µs: thinktime=100 is think_time = \"100us\")",
    ),
    refuse(
        "thinktime_spin",
        "wkrun has no `thinktime_spin`: it sleeps through the whole think time (`think_time`), never spins",
    ),
    map(
        "thinktime_blocks",
        "`thinktime_blocks` is `think_every` in wkrun: the I/Os issued between think times",
    ),
    map(
        "thinktime_blocks_type",
        "wkrun counts a burst's `think_every` I/Os as it issues them, then lets them complete: fio's `thinktime_blocks_type` `issue`; fio's default, `complete`, counts them as they complete, the same count only with one I/O in flight (iodepth 1, a sync engine) or `thinktime_blocks=1`, and imported only there",
    ),
    map(
        "latency_target",
        "`latency_target` is `latency_target` in wkrun, a duration (fio's bare number is µs), searched over a list of queue depths (queue_depth = [1, 2, 4, ...]) rather than adjusted in one job",
    ),
    map(
        "latency_window",
        "wkrun has no `latency_window`: each queue depth of a latency_target search is a phase of its own, and its `duration` is the window",
    ),
    map(
        "latency_percentile",
        "`latency_percentile` is `latency_percentile` in wkrun (fio's default 100, wkrun's 99)",
    ),
    refuse(
        "thinktime_iotime",
        "wkrun has no `thinktime_iotime`: a burst between think times is a number of I/Os (`think_every`), not a time",
    ),
    map(
        "fsync",
        "`fsync` is `fsync` in wkrun: an fsync after every N writes of each worker; differs: fio syncs whenever its count of issued writes is a nonzero multiple of N and the last I/O to complete was not a sync, so in a job that also reads it syncs again before each read until its next write (about (1 + reads per write) × writes / N syncs: 2.5 times at rwmixread=60), and on io_uring at an iodepth above 1 while a sync is in flight",
    ),
    map(
        "fdatasync",
        "`fdatasync` is `fdatasync` in wkrun: an fdatasync after every N writes of each worker; differs: fio syncs whenever its count of issued writes is a nonzero multiple of N and the last I/O to complete was not a sync, so in a job that also reads it syncs again before each read until its next write (about (1 + reads per write) × writes / N syncs: 2.5 times at rwmixread=60), and on io_uring at an iodepth above 1 while a sync is in flight",
    ),
    map(
        "sync",
        "`sync` is `sync` in wkrun, per write: sync=1 is sync = \"sync\" (RWF_SYNC), sync=dsync is sync = \"dsync\" (RWF_DSYNC)",
    ),
    refuse("end_fsync", "wkrun issues no fsync yet (`end_fsync`)"),
    refuse(
        "fsync_on_close",
        "wkrun issues no fsync yet (`fsync_on_close`)",
    ),
    refuse(
        "write_barrier",
        "wkrun issues no write barriers (`write_barrier`)",
    ),
    refuse(
        "trim_percentage",
        "fio's `trim_percentage` trims a share of the blocks a verifying job wrote; wkrun's trims are a share of a workload's I/Os (`trim_percent`)",
    ),
    refuse(
        "trim_backlog",
        "fio's `trim_backlog` trims blocks a verifying job wrote; wkrun's trims are a share of a workload's I/Os (`trim_percent`)",
    ),
    refuse_unless(
        "percentage_random",
        "wkrun has no `percentage_random`: a phase's offsets are all random or all sequential",
        &["100"],
    ),
    refuse(
        "startdelay",
        "wkrun has no `startdelay`: a phase starts when the one before it ends",
    ),
    refuse(
        "rate_min",
        "wkrun has no `rate_min`: a phase runs at the device's pace or its rate_iops cap",
    ),
    refuse(
        "rate_iops_min",
        "wkrun has no `rate_iops_min`: a phase runs at the device's pace or its rate_iops cap",
    ),
    refuse(
        "exitall",
        "wkrun has no `exitall`: a phase ends at its own bound",
    ),
    refuse_unless(
        "zonemode",
        "`zonemode` is not imported: `zonemode=zbd` is `zone_mode = \"zbd\"` in a wkrun phase (a host-managed zoned device); `strided` has no wkrun equivalent",
        &["none"],
    ),
    refuse_unless(
        "ioscheduler",
        "wkrun does not set the device's I/O scheduler (`ioscheduler`)",
        &[],
    ),
];

/// The row of the fio option `name`, if the table has one.
pub fn row(name: &str) -> Option<&'static FioKey> {
    FIO_KEYS.iter().find(|k| k.fio == name)
}

/// The fio option `name`, if the table has a row for it and wkrun has no key of that name (a spec that sets
/// `size` or `direct` means wkrun's key, whatever fio calls it).
pub fn fio_key(name: &str) -> Option<&'static FioKey> {
    row(name).filter(|_| super::keys::find(name).is_none())
}

/// The line telling a fio user what `name` (with the string `value`, if known) is in wkrun:
/// `` `iodepth` is `queue_depth` in wkrun ``, `` `ioengine` is `engine` in wkrun: ioengine = "sync" is
/// engine = "psync" ``.
pub fn fio_hint(name: &str, value: Option<&str>) -> Option<String> {
    let k = fio_key(name)?;
    let setting = value.and_then(|v| k.values.iter().find(|(f, _)| *f == v));
    Some(match setting {
        Some((v, w)) => format!("{}: {name} = \"{v}\" is {w}", k.hint),
        None => k.hint.to_string(),
    })
}

/// For a wkrun key that fio spells the same, help for a fio-style value, given as written in the file
/// (`raw`, quotes included): `direct = 1`, `verify = "crc32c"`, `engine = "sync"`.
pub fn fio_value_hint(key: &str, raw: &str) -> Option<String> {
    let quoted = raw.starts_with(['"', '\'']);
    let text = raw.trim_matches(['"', '\'']);
    match key {
        "direct" if raw == "1" || raw == "0" => Some(format!(
            "fio's direct={raw} is direct = {} in wkrun",
            raw == "1"
        )),
        "verify" if quoted => Some(format!(
            "fio's verify={text} is verify = true in wkrun (every sector written is stamped with a checksum)"
        )),
        "engine" => FIO_ENGINES
            .iter()
            .find(|(f, _)| *f == text)
            .map(|(_, w)| format!("fio's {text} engine is {w} in wkrun")),
        _ => None,
    }
}

/// How fio reads an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FioType {
    /// A flag: no value means 1 (`time_based`, `norandommap`).
    Flag,
    /// A boolean: `0` or `1` (a value is required).
    Bool,
    /// A text, or a choice among fio's words; fio's callback may take no value.
    Text,
    /// Anything else: a number, a size, a time, a range, a list (a value is required).
    Value,
}

/// An option of fio's option tables (`fio_options.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FioOption {
    /// Its name (an alias resolves to it).
    pub name: &'static str,
    /// How fio reads its value.
    pub kind: FioType,
    /// Where fio defines it: `core`, `engine:NAME` or `profile:NAME` (fio then takes it only with that
    /// engine or profile).
    pub from: &'static str,
}

/// fio's option names, from its option tables.
const FIO_OPTIONS: &str = include_str!("fio_options.txt");

/// The option fio knows by `name` (its name or an alias); `None` when fio knows no such option. Looked up
/// in a map built once from the table (a scan of the table per lookup made 150,000 jobs take a minute).
pub fn fio_option(name: &str) -> Option<FioOption> {
    static BY_NAME: std::sync::OnceLock<std::collections::HashMap<&'static str, FioOption>> =
        std::sync::OnceLock::new();
    BY_NAME
        .get_or_init(|| {
            let mut map = std::collections::HashMap::new();
            for l in FIO_OPTIONS.lines().filter(|l| !l.starts_with('#')) {
                let mut w = l.split_whitespace();
                let (Some(n), Some(ty), Some(alias), Some(from)) =
                    (w.next(), w.next(), w.next(), w.next())
                else {
                    continue;
                };
                let o = FioOption {
                    name: n,
                    kind: match ty {
                        "str_set" => FioType::Flag,
                        "bool" => FioType::Bool,
                        "str" | "str_store" | "str_multi" | "str_ull" => FioType::Text,
                        _ => FioType::Value,
                    },
                    from,
                };
                // The first row that names it wins, as a scan of the table finds it; `-` is no alias.
                map.entry(n).or_insert(o);
                if alias != "-" {
                    map.entry(alias).or_insert(o);
                }
            }
            map
        })
        .get(name)
        .copied()
}

/// The names fio knows (not aliases), for suggestions.
pub fn fio_option_names() -> impl Iterator<Item = &'static str> {
    FIO_OPTIONS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Each name appears once, each hint is one line naming the fio option, and a row that is not a
    /// wkrun key is one fio knows.
    #[test]
    fn rows_are_fio_options_with_one_line_each() {
        let mut seen = BTreeSet::new();
        for k in FIO_KEYS {
            assert!(seen.insert(k.fio), "`{}` twice", k.fio);
            assert!(!k.hint.contains('\n'), "{}", k.hint);
            assert!(k.hint.contains(&format!("`{}`", k.fio)) || k.fio == "global");
            if k.fio != "global" {
                assert!(fio_option(k.fio).is_some(), "fio has no option `{}`", k.fio);
            }
        }
        assert_eq!(
            fio_hint("ioengine", Some("pvsync")).as_deref(),
            Some("`ioengine` is `engine` in wkrun: ioengine = \"pvsync\" is engine = \"psync\"")
        );
        assert_eq!(
            fio_hint("iodepth", Some("32")).as_deref(),
            Some("`iodepth` is `queue_depth` in wkrun")
        );
        assert_eq!(fio_hint("queue_depth", None), None);
        assert_eq!(
            fio_value_hint("direct", "0").as_deref(),
            Some("fio's direct=0 is direct = false in wkrun")
        );
        assert_eq!(fio_value_hint("direct", "true"), None);
        assert_eq!(fio_value_hint("engine", "\"foo\""), None);
    }

    /// Aliases resolve to fio's name; types and origins are read.
    #[test]
    fn fio_options_resolve_aliases() {
        let o = |n| fio_option(n).map(|o| (o.name, o.kind, o.from));
        assert_eq!(o("readwrite"), Some(("rw", FioType::Text, "core")));
        assert_eq!(o("blockalign"), Some(("ba", FioType::Value, "core")));
        assert_eq!(
            o("ss_dur"),
            Some(("steadystate_duration", FioType::Value, "core"))
        );
        assert_eq!(o("time_based"), Some(("time_based", FioType::Flag, "core")));
        assert_eq!(o("direct"), Some(("direct", FioType::Bool, "core")));
        assert_eq!(o("hipri").map(|x| x.2), Some("engine:io_uring"));
        assert_eq!(o("threads").map(|x| x.2), Some("profile:tiobench"));
        assert_eq!(
            o("iodepth_batch_complete").map(|x| x.0),
            Some("iodepth_batch_complete_min")
        );
        assert_eq!(o("queue_depth"), None);
        assert!(fio_option_names().count() > 300);
    }
}
