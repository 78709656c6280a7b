//! The spec language, format 1: the types a TOML spec file deserializes into, their documentation (copied
//! into `schemas/spec.schema.json` by schemars), loading with located errors ([`load`]) and the semantic
//! rules that need no target ([`rules`]).
//!
//! A spec is pure data: nothing here opens a device or reads a clock.

pub mod block_size;
pub mod distribution;
pub mod expand;
pub mod fio;
pub mod keys;
pub mod latency_target;
pub mod load;
pub mod once;
pub mod overrides;
pub mod repeat;
pub mod room;
pub mod rules;
pub mod vary;

pub use crate::vocab::{
    Coverage, DataPattern, EngineKind, EraseMethod, OnError, Pattern, PhaseKind, Rate, Until,
};
pub use block_size::BlockSize;
pub use distribution::Distribution;
pub use load::{LoadedSpec, SpecError, SpecErrors, load_file, load_str};
pub use repeat::{RepeatSpec, RoundTag, Track};
pub use vary::{One, Vary};

use crate::units::{Amount, Duration, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The spec format version this build reads.
pub const FORMAT_VERSION: u32 = 1;

/// A whole spec file (format 1).
///
/// Example:
/// ```toml
/// format = 1
/// [spec]
/// name = "anthology"
/// version = "1.0.0"
/// [[phase]]
/// name = "purge"
/// kind = "erase"
/// ```
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "wkrun spec, format 1")]
pub struct SpecFile {
    /// Spec format version. Only `1` exists; other values are refused. Required.
    pub format: u32,
    /// Who the spec is: its name (used in output paths), version and description. Required.
    pub spec: SpecMeta,
    /// The default target. Optional: `--target` on the command line wins; without either, wkrun uses its
    /// built-in default target (a 1 GiB sparse file `wkrun-target.img` in the current directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetSection>,
    /// Values every phase inherits unless it sets its own (only keys that apply to the phase's kind are inherited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<Defaults>,
    /// The phases, run in order on one target. At least one.
    #[serde(default)]
    pub phase: Vec<PhaseSpec>,
    /// Sweeps: sequences of phases repeated once per value of one key (e.g. the over-provisioning
    /// experiment: erase, fill, saturate at each span of 100/93/84/50/25 %).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<SweepSpec>,
    /// Blocks of rounds: consecutive phases repeated round after round until a tracked figure of one of them
    /// is steady by the SNIA PTS rule, or `max_rounds` rounds have run (the PTS tests' loops).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeat: Vec<RepeatSpec>,
}

/// `[[sweep]]`: repeat the phases named in `phases` (consecutive in the spec, in that order) once per value
/// of exactly one key. Each copy sets the key on every phase of the sequence that accepts it and does not
/// set it itself, and is named `<phase>[<label>=<value>]`.
///
/// Example:
/// ```toml
/// [[sweep]]
/// name = "op"
/// phases = ["purge", "fill", "saturate"]
/// span = ["100%", "93%", "84%", "50%", "25%"]
/// ```
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Name of the sweep, recorded on each phase it made. Required.
    pub name: String,
    /// Names of the consecutive phases to repeat, in spec order. Required.
    pub phases: Vec<String>,
    /// Swept LBA spans (see the phase key `span`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Vec<Amount>>,
    /// Swept block sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<Vec<BlockSize>>,
    /// Swept read shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_percent: Option<Vec<WholePercent>>,
    /// Swept queue depths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<Vec<i64>>,
    /// Swept data patterns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<DataPattern>>,
    /// Swept engines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Vec<Engine>>,
}

/// A value that made an expanded phase: from a sweep (`sweep` names it) or a matrix list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// Short key: `span`, `bs`, `read`, `qd`, `data`, `pattern`, `engine`.
    pub key: String,
    /// The value as written in names (`93%`, `4KiB`, `65`).
    pub value: String,
    /// The sweep that set it; absent for a matrix list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
}

/// `[spec]`: the spec's identity, so that results from different labs can be matched.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecMeta {
    /// Short name, used in output paths: ASCII letters, digits and `-` `_` `.` `[` `]` `=` `,`, not starting
    /// with `.`. Example: `"anthology"`. Required.
    pub name: String,
    /// The spec's own version, for sharing between labs. Example: `"1.0.0"`. Required.
    pub version: String,
    /// Free text: what the spec reproduces and why. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `[target]`: where the spec runs when the command line names no target.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetSection {
    /// A regular file or a block device (`/dev/...`). A relative path is relative to the current directory.
    /// Example: `"wkrun-target.img"`. Default: the built-in default target `wkrun-target.img`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Several targets, run together phase by phase (each with its own plan and results folder, plus an
    /// aggregate), each as `--target` takes it: a file, a block device or `sim:KEY=VALUE,...`, simulated
    /// drives alone or real targets alone (a simulated drive runs in virtual time). Set `path`, `paths` or
    /// `sim`, one of them; repeated `--target` on the command line replaces the list. Example:
    /// `paths = ["a.img", "b.img"]`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<PathBuf>>,
    /// Size of a file target that wkrun creates (preallocated) when it does not exist. Ignored, with a note, for
    /// block devices and existing files. Example: `"1GiB"`. Default: 1 GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// A simulated SSD instead of a file or device (see the sim keys); runs in virtual time and touches
    /// nothing on the host. Set `path` or `sim`, not both. Example: `sim = { capacity = "2GiB", op = "7%" }`.
    /// Default: none. `--target sim:...` on the command line does the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<crate::sim::SimParams>,
    /// The device's volatile write cache for the run: `"on"` or `"off"` sets it before the first phase and
    /// sets it back to the state found at the end (also after a failure or a signal); `"keep"` leaves it as it
    /// is. Each state is read back and recorded in the results (`target.write_cache`). Only an NVMe namespace
    /// whose controller has a volatile write cache (NVMe Set Features, root) or a SCSI or SATA disk (sysfs
    /// `scsi_disk` `cache_type`, root) can be set; on any other target `"on"` and `"off"` are refused by
    /// `wkrun plan` and before a run. Example: `write_cache = "off"`.
    /// Default: `"keep"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<crate::vocab::WriteCacheSetting>,
}

/// The I/O engine: how I/Os reach the kernel. All engines issue the same op stream for the same seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum Engine {
    /// A pool of `queue_depth` threads, each with one pread/pwrite in flight.
    Psync,
    /// Linux native asynchronous I/O (io_submit / io_getevents) from one thread.
    Libaio,
    /// io_uring from one thread, with registered file and buffers.
    IoUring,
    /// No I/O: every I/O completes at once, without a syscall, through the same loop, op stream and
    /// measurement as `libaio` and `io_uring`. Measures wkrun's own overhead; the target is never opened
    /// (like fio's `null` ioengine).
    Null,
}

impl From<Engine> for EngineKind {
    fn from(e: Engine) -> EngineKind {
        match e {
            Engine::Psync => EngineKind::Psync,
            Engine::Libaio => EngineKind::Libaio,
            Engine::IoUring => EngineKind::IoUring,
            Engine::Null => EngineKind::Null,
        }
    }
}

/// A whole percentage, written as an integer (`65`) or a string with the sign (`"65%"`); the range (0..=100)
/// is checked by the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct WholePercent(pub i64);

impl<'de> Deserialize<'de> for WholePercent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = WholePercent;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole percentage, 0 to 100")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<WholePercent, E> {
                Ok(WholePercent(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<WholePercent, E> {
                Ok(WholePercent(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<WholePercent, E> {
                if v.fract() == 0.0 && v.abs() < 1e15 {
                    Ok(WholePercent(v as i64))
                } else {
                    Err(E::custom(format!(
                        "{v} is not a whole percentage; write a whole number 0 to 100"
                    )))
                }
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<WholePercent, E> {
                s.trim()
                    .strip_suffix('%')
                    .and_then(|n| n.trim().parse::<i64>().ok())
                    .map(WholePercent)
                    .ok_or_else(|| {
                        E::custom(format!(
                            "{s:?} is not a whole percentage; write e.g. 65 or \"65%\""
                        ))
                    })
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for WholePercent {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WholePercent".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A whole percentage: an integer 0 to 100, or a string such as \"65%\".",
            "anyOf": [
                { "type": "integer", "minimum": 0, "maximum": 100 },
                { "type": "string", "pattern": "^\\s*([0-9]|[1-9][0-9]|100)\\s*%\\s*$" }
            ]
        })
    }
}

/// `[defaults]`: values inherited by every phase whose kind uses the key and which does not set it itself.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<bool>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataPattern>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Amount>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Amount>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<BlockSize>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1024))]
    pub queue_depth: Option<i64>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 256))]
    pub workers: Option<i64>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_split: Option<crate::vocab::WorkersSplit>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// See the phase key of the same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_waits: Option<crate::vocab::CompletionWaits>,
}

/// `steady_after`: what must have happened before a phase's steady state is judged. At least one of the two;
/// with both, judging begins once both have happened.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteadyAfter {
    /// Bytes the phase must have written, counted from its measured start (a ramp's writes and earlier
    /// phases' do not count): a size (`"512GiB"`) or a percentage of the span (`"200%"`), above 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Amount>,
    /// A round must first have fallen below (1 − `drop`) × the highest round before it: a fraction in
    /// (0, 1) (0.5: below half the peak).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<f64>,
}

/// One `[[phase]]`. Which keys a phase may use depends on its `kind` (see [`rules::keys_for`]); a key that
/// does not apply to the kind is refused with the list of keys that do.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseSpec {
    /// Phase name, unique within the spec; used in results and CSV file names. Example: `"4k-random-write"`. Required.
    pub name: String,
    /// What the phase does: `"erase"`, `"fill"`, `"restore-image"` or `"workload"`. Required.
    pub kind: PhaseKind,
    /// Free text describing the phase. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where an importer took the phase from (`wkrun import fio`): the job file, line and job
    /// (`"jobs.fio:9 [randread]"`), or the command line's job (`"fio command line: --name=mix (job 1)"`).
    /// Recorded in the results (`params.imported_from`); `--set` cannot change it. Kinds: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
    /// I/O engine: `"psync"` (default; a pool of `queue_depth` threads doing pread/pwrite), `"libaio"` (Linux
    /// native AIO), `"io_uring"`, or `"null"` (no I/O: measures wkrun's own overhead; the target is not opened). All
    /// issue the same op stream for the same seed.
    /// Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Vary<Engine>>,
    /// Open the target with O_DIRECT (bypass the page cache). Block size and offsets must then be multiples of
    /// the target's logical block size. Default: `true`. Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<bool>,
    /// Data written: `"random"` (incompressible, fresh for every I/O), `"zeros"`, or `"compressible:N%"`
    /// (N = 0..100: in every 512-byte chunk, the last N % of the bytes are repeated filler text and the rest
    /// random, so a block compresses to roughly (100 - N) % of its size, as fio's `buffer_compress_percentage`).
    /// Default: `"random"`.
    /// Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Vary<DataPattern>>,
    /// Seed of the offset and data generators, mixed with the phase's full name, so that no two phases of a
    /// run draw the same op stream: the same seed and name give the same stream. Unmixed, the seed of the
    /// synthetic image and of a skewed distribution's hot blocks. Default: `1`. Kinds: fill, restore-image,
    /// workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// LBA span: the number of bytes from `offset` the phase may touch, as a percentage of the target's
    /// capacity (`"84%"`) or a size (`"64GiB"`). Rounded down to whole blocks. Default: the rest of the
    /// target from `offset` (`"100%"` when there is no offset).
    /// Kinds: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Vary<Amount>>,
    /// Start of the span, as a percentage of the target's capacity (rounded up to a block boundary) or a size
    /// (which must be a multiple of the block size). Default: `0`. Kinds: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Amount>,
    /// Bytes per I/O. Default: `"128KiB"` for fill, `"1MiB"` for restore-image, `"4KiB"` for workload.
    /// A workload with `pattern = "random"` may give a weighted mix instead, like fio's bssplit:
    /// `{ "4KiB" = 10, "32KiB" = 40, "64KiB" = 50 }` (each I/O's size drawn by weight; offsets aligned to
    /// the smallest size). Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<Vary<BlockSize>>,
    /// Queue depth (QD): I/Os in flight at once, 1 to 1024. Default: `1`. Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<Vary<i64>>,
    /// Submitters (like fio's numjobs): `workers` workers, each keeping `queue_depth` I/Os in flight with its
    /// own engine instance on its own thread (an io_uring worker pinned to its own CPU while there are CPUs), and its own op stream, a
    /// pure function of (the phase's stream seed, worker, index). Byte bounds, passes and rate caps are for the phase's total,
    /// shared out by the plan. 1 to 256. Default: `1`. Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 256))]
    pub workers: Option<i64>,
    /// How workers share the span: `"partitioned"` (default: the span is cut into `workers` contiguous parts
    /// of whole blocks, one per worker, so a fill writes every block once per pass across the workers and
    /// the workers' writes never overlap) or `"shared"` (every worker draws its own random op stream over
    /// the whole span; only for random workloads with uniform coverage, as a fill or sequential pattern
    /// would write each block once per worker). Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_split: Option<crate::vocab::WorkersSplit>,
    /// Length of one interval of the per-interval series (IOPS, bandwidth, latency every interval).
    /// Default: `"1s"`. Kinds: fill, restore-image, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// What to do when an I/O fails: `"stop"` (default: the phase stops, the run fails with exit 1 and the
    /// error naming phase, op, offset, length and errno) or `"continue"` (the failed I/O is counted in the
    /// results' `errors` and the phase goes on). Kinds: fill, restore-image, workload, verify (where a
    /// mismatch counts as an error too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// How an `io_uring` phase waits for completions: `"probe"` (default) or `"each"`. With `"probe"`, a
    /// phase with one worker, a `queue_depth` of 8 or more, a CPU to spare and no rate cap measures at its
    /// start (windows of at least 40 ms and 256 completions: a warm-up, then woken per completion, batched,
    /// batched, per completion) whether
    /// waiting for every I/O in flight with a 20 µs minimum wait (Linux 6.12+) completes at least 5 % more
    /// I/Os per second than being woken for each completion (each batched window at least as fast as each
    /// per-completion one; a round that wins in total but not in every window is probed again, up to 3
    /// rounds), and keeps the faster: where the device's I/O
    /// runs on a kernel worker thread (zram, a buffered tmpfs file) that thread pays for every wake. Batched
    /// waits time a completion up to 20 µs later than per-completion waits would. `"each"`: woken for each
    /// completion throughout. Other engines wait per completion either way. Kinds: fill, restore-image,
    /// workload, verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_waits: Option<crate::vocab::CompletionWaits>,
    /// How writes meet a zoned block device's zones: `"none"` (default), each write at the offset the op
    /// stream gives; `"zbd"` (fio's `zonemode=zbd`), each write at the write pointer of the zone its offset
    /// falls in, so that random writes go to random zones and sequentially within each, and a full zone is
    /// reset (BLKRESETZONE) before it is written again. Needs a host-managed zoned block device, a write-only
    /// phase (`read_percent = 0`), one worker at `queue_depth = 1`, a block size dividing the zone size and a
    /// span of whole zones; no `verify`. The results count the zones reset and written. Kinds: fill,
    /// workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_mode: Option<crate::vocab::ZoneMode>,
    /// Per-I/O durability of every write: `"none"`, `"dsync"` (each write carries `RWF_DSYNC`: durable when
    /// it completes, as under O_DSYNC; on a block device with a volatile write cache the kernel sends a FUA
    /// write, or a write and a cache flush where the device has no FUA) or `"sync"` (`RWF_SYNC`, as O_SYNC).
    /// fio's `sync`. Results: `sync`. Not on the simulated drive (it models no flush). Default: `"none"`.
    /// Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<crate::vocab::SyncWrites>,
    /// An fsync(2) of the target after every N completed writes of each worker (fio's `fsync`): a worker
    /// that completes `w` writes makes exactly ⌊w / N⌋, each timed and counted apart from the writes.
    /// Results: `sync.flushes`. Not with `fdatasync`; not on the simulated drive. Default: none.
    /// Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<i64>,
    /// As `fsync`, with fdatasync(2) (fio's `fdatasync`). Default: none. Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdatasync: Option<i64>,
    /// Polled completions (fio's `hipri`): the `io_uring` ring is set up with IORING_SETUP_IOPOLL, so the
    /// submitting thread polls the device's poll queue for completions instead of being woken by an
    /// interrupt. Needs `engine = "io_uring"`, `direct = true` and a block device with poll queues (sysfs
    /// `queue/io_poll` = 1: NVMe with the `nvme` module's `poll_queues` above 0, null_blk with `poll_queues`);
    /// refused otherwise. Kinds: fill, restore-image, workload, verify. Default: `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polled: Option<bool>,
    /// Submission by a kernel thread that polls the ring (fio's `sqthread_poll`): IORING_SETUP_SQPOLL, so
    /// submitting an I/O needs no system call while the thread is awake (it sleeps after 1 s idle). Needs
    /// `engine = "io_uring"`. Kinds: fill, restore-image, workload, verify. Default: `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sq_poll: Option<bool>,
    /// Keep a per-I/O trace of the phase's first N completions (time, direction, offset, length, latency),
    /// written after the phase as `NN-<phase>.trace.csv` beside its series CSV, for offline analysis. The
    /// room for N rows (32 B each) is reserved before the phase starts; a phase with more completions keeps
    /// the first N (each of its recorders its share) and counts the rest as dropped. 1 to 100,000,000.
    /// Kinds: fill, restore-image, workload, verify. Default: no trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000_000))]
    pub trace: Option<u64>,
    /// Stamp every 512-byte sector written with a header (magic, offset, seed, op index, phase index) and an
    /// XXH3 checksum, so that a later `verify` phase can check it. Needs block sizes and the span's start to
    /// be multiples of 512 B. Default: `false`. Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<bool>,
    /// What a verify phase checks each sector against: `"last-writer"` (default: the last write to it by an
    /// earlier phase of the run, computed from the plan, which needs those phases to be byte-bounded) or
    /// `"header"` (only a valid stamp for its own offset, or zeros). Kinds: verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<crate::vocab::Expect>,
    /// How many mismatched sectors a verify phase lists in its results (the first by offset), 0 to 10000.
    /// Default: `10`. Kinds: verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_listed: Option<i64>,
    /// Erase method: `"auto"` (default), `"secure-discard"`, `"discard"`, `"zero-out"` (block devices),
    /// `"nvme-format"` (NVMe namespaces, whole namespace), `"zone-reset"` (zoned block devices, whole zones) or
    /// `"punch-hole"` (files). An explicit method the target cannot do is an error. Kinds: erase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<EraseMethod>,
    /// How many times a fill writes the whole span. Default: `1`. Kinds: fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub passes: Option<i64>,
    /// The raw image to restore: a file path (relative to the spec file's folder) or `"synthetic"` for a
    /// deterministic generated image of mixed content. Required. Kinds: restore-image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Size of the synthetic image. Default: `"256MiB"` (capped at the span). Kinds: restore-image with `image = "synthetic"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_size: Option<Size>,
    /// Offset order: `"random"` (block-aligned offsets over the span) or `"sequential"`. Default: `"random"`
    /// for workloads, `"sequential"` for fills. Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Vary<Pattern>>,
    /// How `pattern = "random"` covers the span: `"uniform"` (default: each offset drawn uniformly, with
    /// replacement, so some blocks are hit twice and others never) or `"full"` (every block exactly once per
    /// pass, in a pseudo-random order, with O(1) memory). Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// Where `pattern = "random"` offsets fall (fio's `random_distribution`, same spelling): `"uniform"`
    /// (default), `"zipf:THETA"` (rank k drawn ∝ k^−θ, θ > 0), `"pareto:H"` (fio's Pareto, 0 < h < 1: the
    /// hottest h of the blocks take 1 − h of the I/Os), the hot ranks of both scattered over the span by a
    /// permutation keyed by the seed; `"normal:SIGMA"` (a normal bell on the span's middle, σ a fraction of
    /// the span, cut at its ends); `"zoned:50/5:30/15:20/80"` (percent of I/Os / percent of the span, zones
    /// contiguous in span order, each list summing to 100) or `"zoned_abs:50/10MiB:50/1GiB"` (sizes from the
    /// span's start, at most the span). Each op's offset is still one draw of the seeded stream. Not with
    /// `pattern = "sequential"` or `coverage = "full"`; several workers need `workers_split = "shared"`.
    /// Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
    /// Share of I/Os that are reads, 0 to 100 (0 = all writes, 100 = all reads, 65 = iometer's 65/35 mix).
    /// Required. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_percent: Option<Vary<WholePercent>>,
    /// Share of I/Os that are trims, 0 to 100 − `read_percent`; the rest are writes (`read_percent = 50`,
    /// `trim_percent = 20`: 50 % reads, 20 % trims, 30 % writes, each share exact in every 100 ops). A trim
    /// discards its block: BLKDISCARD on a block device (refused where `queue/discard_max_bytes` is 0), a
    /// hole punched in a file (refused on a file system without punch hole), an unmap in the simulated
    /// drive's FTL; the `null` engine counts it. Results: `trim`. Default: 0. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_percent: Option<WholePercent>,
    /// Time bound: the phase issues I/O for this long. Example: `"2000s"`. Exactly one of `duration` and `size`
    /// is required. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// Byte bound: total bytes of I/O, a size (`"8GiB"`) or a percentage of the span (`"200%"` = twice the
    /// span, SNIA's preconditioning; a fill then wraps around the span). A fill takes `passes` or `size`, a
    /// workload `duration` or `size`. Kinds: fill, workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Amount>,
    /// Rate cap: I/Os per second over every I/O, trims too (`rate_iops = 5000`: op i at i / rate s after
    /// the measured start), or per direction (`rate_iops = { read = 3500, write = 1500 }`: the j-th read at
    /// j / read s; trims have no cap of their own), with `total` a cap over every I/O beside them
    /// (`rate_iops = { read = 300, write = 300, total = 400 }`; `{ total = 5000 }` is `5000`); any of the
    /// three may be left out, not all. Issued at evenly spaced times in stream order; with a block-size mix
    /// the cap counts I/Os, not bytes. Default: no cap. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<Rate>,
    /// How `rate_iops` spaces its issue times (fio's `rate_process`): `"linear"`, evenly (the i-th I/O at
    /// i / rate s), or `"poisson"`, Poisson arrivals at the cap's mean rate (exponential gaps of mean
    /// 1 / rate drawn from the phase's seed: the same times on every run of the seed). Needs `rate_iops`.
    /// Default: `"linear"`. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_process: Option<crate::vocab::RateProcess>,
    /// Think time (fio's `thinktime`): after every `think_every` I/Os the queue drains and the phase idles
    /// this long before the next I/O, above 0. Example: `"100us"`. Default: none. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_time: Option<Duration>,
    /// I/Os per burst between think times (fio's `thinktime_blocks`), at least 1; needs `think_time`.
    /// Default: 1 (think after every I/O). Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub think_every: Option<i64>,
    /// Latency target (fio's `latency_target`): with a list of queue depths (`queue_depth = [1, 2, 4, 8]`),
    /// the phase's steps, one per depth in increasing order, run until one's `latency_percentile` is over
    /// this; the highest depth under it is the search's answer (`latency_searches` in the results), and the
    /// steps after the first over it are skipped. Above 0. Example: `"500us"`. Default: none.
    /// Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<Duration>,
    /// The latency percentile `latency_target` holds (fio's `latency_percentile`), above 0 and at most 100
    /// (100: the largest latency, fio's default). Needs `latency_target`. Default: 99. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_percentile: Option<f64>,
    /// An unmeasured lead-in of the same workload before the measured part (its I/Os are not counted and
    /// write no series rows; the wall time is ramp + duration). Example: `"30s"`. Default: none.
    /// Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp: Option<Duration>,
    /// Steady-state detection over the phase's series, one round per interval: the SNIA PTS rule
    /// (`{ rule = "snia", window = 5, max_rounds = 25, data_excursion = 0.2, slope_excursion = 0.1 }`, each
    /// field optional) or a fio-style single criterion (`{ rule = "fio", metric = "iops", kind = "slope",
    /// limit = 0.1, relative = true, window = 60 }`). The SNIA rule judges total IOPS per interval.
    /// Results: `steady_state`. Default: none. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::stats::steady::Rule>,
    /// After steady state was reached: report when the window average first drops below (1 − drop) × the
    /// steady average (an SLC cache running out, throttling), e.g. `{ drop = 0.2 }`. Needs `steady_state`.
    /// Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_leave: Option<crate::stats::steady::LeaveRule>,
    /// When steady-state judging may begin: after the phase has written `written` (a size, or a percentage
    /// of the span: `"200%"` is twice the span, as SNIA PTS preconditions), and/or after a round fell
    /// below (1 − `drop`) × the highest round before it (a fresh drive's cliff). Rounds before are not
    /// judged. E.g. `{ written = "200%" }`, `{ drop = 0.5 }`. Needs `steady_state`. Default: judge from
    /// the first round. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_after: Option<SteadyAfter>,
    /// Length of one steady-state round: the detector judges averages of consecutive intervals over this
    /// length (SNIA rounds are minutes long; per-second IOPS is too noisy for a 20 % excursion). A multiple of
    /// `interval`. Default: one interval. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_round: Option<Duration>,
    /// `"steady"`: end the phase as soon as steady state is reached (or at `duration`, whichever comes
    /// first; results say which). Needs `steady_state` and `duration`. Default: run to the bound.
    /// Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Until>,
    /// Named slices of the series to summarize (avg, min, max, stddev, p1, p99 of IOPS per interval, and
    /// avg/stddev): `"1400s.."`, `"0..60s"`, `"last 20m"`, `"first 5m"`. Results: `windows`. Kinds: workload.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "window_list"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub windows: Option<Vec<String>>,
    /// Coarser averages of the IOPS series, e.g. `"1m"` for one-minute averages of 1 s intervals (a multiple
    /// of `interval`). Results: `aggregates`. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Duration>,
    /// The figures that lead the phase's results, `wkrun compare` and the report, in order: `"mean"` (total
    /// IOPS, bandwidth, mean latency of the whole phase), `"latency"` (mean and max latency per direction),
    /// `"worst"` (the lowest IOPS of an interval, and when), `"per_second"` (min/avg/max/stddev of IOPS per
    /// interval), `"steady"` (time to steady state, window mean; needs `steady_state`), `"windows"` (each of
    /// `windows`), a window (`"last 20m"`), `"fill_once"` (time until the span's bytes were written once;
    /// IOPS and latency before and after), `"at 25m"` (IOPS and latency before and after a time).
    /// Results: `headline`, `derived`. Default: `"steady"` with `steady_state`, then `"windows"` with
    /// `windows`; `"mean"` when neither. Kinds: workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<Vec<String>>,
    /// Set by expansion: the index of the `[[phase]]` this phase came from (for error locations).
    #[serde(skip)]
    #[schemars(skip)]
    pub origin: Option<usize>,
    /// Set by expansion: the sweep and matrix values that made this phase, as `(key, value)` labels.
    #[serde(skip)]
    #[schemars(skip)]
    pub labels: Vec<Label>,
    /// Set by expansion on the phases of a `[[repeat]]` block: the block, the round and the phase's name
    /// without the round label.
    #[serde(skip)]
    #[schemars(skip)]
    pub round: Option<RoundTag>,
}

crate::vocab::string_only!(Engine);

/// `windows`: a list of strings, each a window; another value is refused with the forms a window is
/// written in (`expected a window as a string, e.g. "4s..8s"`: trial 21 T5, where a table such as
/// `{ from = "4s", to = "8s" }` was told only `expected a string`). The strings are parsed by the rules
/// (`stats::window::WindowSpec::parse`).
fn window_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    use serde::de::{Error, SeqAccess, Visitor};
    use std::fmt;
    struct Window(String);
    struct WindowVisitor;
    impl Visitor<'_> for WindowVisitor {
        type Value = Window;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(
                f,
                "a window as a string, e.g. \"4s..8s\" (the forms: {})",
                crate::stats::window::FORMS
            )
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<Window, E> {
            Ok(Window(v.to_string()))
        }
    }
    impl<'de> Deserialize<'de> for Window {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(WindowVisitor)
        }
    }
    struct ListVisitor;
    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of windows, e.g. [\"4s..8s\"]")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::new();
            while let Some(Window(w)) = seq.next_element()? {
                out.push(w);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(ListVisitor).map(Some)
}
