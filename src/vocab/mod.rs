//! The vocabulary of wkrun: the small enums and value types that every stage names (phase kind, engine kind,
//! erase method, data pattern, offset pattern, coverage, on-error, until, expected content, rate cap). They
//! sit at the bottom of the module graph: this module imports nothing of the crate, and everything may import it.

/// Serde for a unit-only enum derived with `#[serde(remote = "Self")]`: serialized as its name, and
/// deserialized from a string only (the derived form would also take serde's externally tagged table,
/// `{ each = {} }`, which no spec means).
macro_rules! string_only {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            // The derive's inherent `serialize` (remote = "Self").
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$t>::serialize(self, s)
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::IntoDeserializer;
                /// Takes a string only; anything else (`sync = true`) is refused naming the values, as
                /// an unknown name is.
                struct Name;
                impl<'de> serde::de::Visitor<'de> for Name {
                    type Value = $t;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        // The derive's own list, from its error for a name that is none of them.
                        let probe: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
                            "".into_deserializer();
                        let said = <$t>::deserialize(probe).err().map(|e| e.to_string());
                        match said.as_deref().and_then(|m| m.split_once("expected ")) {
                            Some((_, list)) => write!(f, "a string, {list}"),
                            None => f.write_str("a string"),
                        }
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$t, E> {
                        let s: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
                            v.into_deserializer();
                        <$t>::deserialize(s).map_err(E::custom)
                    }
                }
                d.deserialize_str(Name)
            }
        }
    )*};
}

pub(crate) use string_only;

mod arrivals;
mod data_pattern;
mod direction;
mod metric;
mod rate;
mod waits;

pub use arrivals::{Arrivals, Cursors, PoissonCursor, RateProcess, Think, poisson_gap_ps};
pub use data_pattern::DataPattern;
pub use direction::{Direction, PerDir};
pub use metric::{Metric, Quantity};
pub use rate::{Cap, MAX_RATE, Rate, pace_of};
pub use waits::{KeptWaits, MIN_WAIT_US, RoundVerdict, WaitsProbe, WaitsRound};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The engine that runs a phase: how I/Os reach the kernel, or the simulated drive. A spec names one of the
/// first four; a phase on a simulated target runs on `sim`. All engines issue the same op stream for the same
/// seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
#[schemars(rename = "Engine")]
pub enum EngineKind {
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
    /// The simulated drive's own engine: the op stream at `queue_depth` against the drive model, in virtual
    /// time. Every I/O phase on a simulated target (`--target sim:...`) runs on it, whatever its `engine`
    /// says; a spec cannot name it.
    Sim,
}

impl EngineKind {
    /// The engine as the spec and results spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::Libaio => "libaio",
            EngineKind::IoUring => "io_uring",
            EngineKind::Null => "null",
            EngineKind::Sim => "sim",
        }
    }
}

/// How an `erase` phase erases its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum EraseMethod {
    /// Files: `punch-hole`. Block devices: the first of `secure-discard`, `discard`, `zero-out` the device supports;
    /// zoned block devices: `zone-reset`.
    Auto,
    /// BLKSECDISCARD: discard and erase any copies (block devices only).
    SecureDiscard,
    /// BLKDISCARD: TRIM/discard (block devices only).
    Discard,
    /// BLKZEROOUT: write zeroes, offloaded where the device can (block devices only).
    ZeroOut,
    /// fallocate(FALLOC_FL_PUNCH_HOLE): deallocate the span of a file (files only).
    PunchHole,
    /// NVMe Format NVM with Secure Erase Settings = user data erase, keeping the LBA format (NVMe
    /// namespaces only; erases the whole namespace, so the span must be 100 %).
    NvmeFormat,
    /// BLKRESETZONE: reset the write pointer of every zone in the span, which must be whole zones (zoned
    /// block devices only; what `auto` does on them).
    ZoneReset,
}

impl EraseMethod {
    /// The spelling used in specs and results (`"secure-discard"`).
    pub fn as_str(self) -> &'static str {
        match self {
            EraseMethod::Auto => "auto",
            EraseMethod::SecureDiscard => "secure-discard",
            EraseMethod::Discard => "discard",
            EraseMethod::ZeroOut => "zero-out",
            EraseMethod::PunchHole => "punch-hole",
            EraseMethod::NvmeFormat => "nvme-format",
            EraseMethod::ZoneReset => "zone-reset",
        }
    }
}

/// The order in which a phase visits its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum Pattern {
    /// Block-aligned offsets in a random order from the seeded generator: uniform with replacement, or
    /// every block once per pass with `coverage = "full"`.
    Random,
    /// Consecutive blocks from the start of the span, wrapping around at its end.
    Sequential,
}

/// When a workload ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum Until {
    /// At its bound (`duration` or `size`).
    Bound,
    /// When steady state is reached, or at its bound.
    Steady,
}

/// How a random pattern covers its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum Coverage {
    /// Offsets drawn uniformly with replacement.
    Uniform,
    /// Every block exactly once per pass, in a keyed pseudo-random order.
    Full,
}

/// How a phase's workers share its span (`workers_split`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum WorkersSplit {
    /// Every worker draws its own op stream over the whole span (random workloads only).
    Shared,
    /// The span is cut into one contiguous part per worker, each worker's ops stay in its part.
    Partitioned,
}

/// How a queue engine waits for completions (`completion_waits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum CompletionWaits {
    /// An io_uring phase with one worker, a queue depth of 8 or more and a CPU to spare measures both ways
    /// at its start and keeps batched waits where they complete 5 % more I/Os per second.
    Probe,
    /// Woken for each completion throughout, also with a worker on every CPU (where the plan would
    /// otherwise wait for an eighth of the queue at a time): every latency timed as closely as the engine
    /// can.
    Each,
}

/// What a phase does when an I/O fails (EIO, ENOSPC, a short read or write, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum OnError {
    /// Stop the phase at the first failed I/O (the I/Os in flight complete), write the results with
    /// `"status": "failed"` and the error, and exit 1.
    Stop,
    /// Count the failed I/O (results: the phase's `errors`, the series' `errors` column) and go on with the
    /// next one; the run can complete. Errors meaning the device is gone (ENODEV, ENXIO, EBADF, any
    /// error on a block device that has since lost bytes) still stop.
    Continue,
}

impl OnError {
    /// The spelling used in specs and results (`"continue"`).
    pub fn as_str(self) -> &'static str {
        match self {
            OnError::Stop => "stop",
            OnError::Continue => "continue",
        }
    }
}

/// The kind of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum PhaseKind {
    /// Erase the span (purge / secure erase / TRIM): see `method`.
    Erase,
    /// Write the span (preconditioning): sequentially by default, or in a random order covering every block
    /// once per pass; `passes` times or `size` bytes.
    Fill,
    /// Copy a raw disk image, sector by sector, to the start of the span.
    RestoreImage,
    /// Measured I/O: random or sequential, a read/write mix, bounded by `duration` or `size`.
    Workload,
    /// Read the span back sequentially and check the stamps that phases with `verify = true` wrote into every
    /// 512-byte sector: zeroed, stale and corrupted sectors are counted and listed.
    Verify,
}

impl PhaseKind {
    /// The spelling used in specs and results (`"restore-image"`).
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseKind::Erase => "erase",
            PhaseKind::Fill => "fill",
            PhaseKind::RestoreImage => "restore-image",
            PhaseKind::Workload => "workload",
            PhaseKind::Verify => "verify",
        }
    }
}

/// What a `verify` phase checks each sector against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum Expect {
    /// The last write to the sector by an earlier phase of the run, computed from the plan: finds zeroed,
    /// stale (an older write) and corrupted sectors. Needs every earlier phase that writes in the span to be
    /// byte-bounded (no `duration`, no `ramp`).
    LastWriter,
    /// Only that each sector holds a valid stamp for its own offset (or zeros): finds zeroed and corrupted
    /// sectors, not stale ones. For spans written by time-bounded phases or by another run.
    Header,
}

/// A volatile write cache enabled or disabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum CacheState {
    /// Enabled: writes complete once in the device's volatile cache.
    On,
    /// Disabled: writes complete once on the medium.
    Off,
}

impl CacheState {
    /// The state as the spec and results spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheState::On => "on",
            CacheState::Off => "off",
        }
    }

    /// `On` for true.
    pub fn from_enabled(enabled: bool) -> CacheState {
        if enabled {
            CacheState::On
        } else {
            CacheState::Off
        }
    }
}

/// What a run does with the target's volatile write cache (`[target] write_cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum WriteCacheSetting {
    /// Leave it as it is (recorded, not changed).
    Keep,
    /// Enable it for the run, restore the state found at the end.
    On,
    /// Disable it for the run, restore the state found at the end.
    Off,
}

impl WriteCacheSetting {
    /// The state to set for the run; `None` for `keep`.
    pub fn wanted(self) -> Option<CacheState> {
        match self {
            WriteCacheSetting::Keep => None,
            WriteCacheSetting::On => Some(CacheState::On),
            WriteCacheSetting::Off => Some(CacheState::Off),
        }
    }
}

/// How a phase's writes meet a zoned block device's zones (`zone_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum ZoneMode {
    /// Each write at the offset the op stream gives.
    None,
    /// Each write at the write pointer of the zone its offset falls in; a full zone is reset before it is
    /// written again (fio's `zonemode=zbd`).
    Zbd,
}

impl ZoneMode {
    /// The mode as the spec spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneMode::None => "none",
            ZoneMode::Zbd => "zbd",
        }
    }
}

/// The durability each write of a phase asks for, per I/O (spec key `sync`, fio's `sync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum SyncWrites {
    /// Plain writes: they may complete in a volatile cache.
    None,
    /// Each write durable when it completes, its data (`RWF_DSYNC`, as O_DSYNC; fio's `sync=dsync`).
    Dsync,
    /// Each write durable when it completes, its data and the file's metadata (`RWF_SYNC`, as O_SYNC;
    /// fio's `sync=1`).
    Sync,
}

impl SyncWrites {
    /// The mode as the spec spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncWrites::None => "none",
            SyncWrites::Dsync => "dsync",
            SyncWrites::Sync => "sync",
        }
    }
}

string_only!(
    SyncWrites,
    ZoneMode,
    CacheState,
    WriteCacheSetting,
    EngineKind,
    CompletionWaits,
    EraseMethod,
    Pattern,
    Until,
    Coverage,
    WorkersSplit,
    OnError,
    PhaseKind,
    Expect
);
