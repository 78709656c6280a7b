//! Targets: what wkrun reads and writes. A regular file (created, preallocated, when absent), a block device, or a
//! simulated drive. Probing reads identity and geometry only ([`TargetInfo`]); what writing needs is decided
//! in [`safety`], opening for I/O happens in [`open`] after the plan is valid, and [`erase`] holds each kind's
//! erase methods. What differs between the kinds is described once per kind, in one private module.

pub mod cache;
pub mod erase;
pub mod health;
mod kinds;
pub mod open;
pub mod openers;
mod probe;
pub mod reopen;
pub mod safety;

pub use probe::{ProbeError, not_storage, probe};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The built-in default target: a file of this name in the current directory.
pub const DEFAULT_TARGET_PATH: &str = "wkrun-target.img";
/// Size of the built-in default target, and of any file target created without a size: 1 GiB.
pub const DEFAULT_TARGET_SIZE: u64 = 1 << 30;

/// What a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A regular file.
    File,
    /// A block device (`/dev/...`).
    Block,
    /// A simulated SSD (`sim:...`): nothing on the host is read or written.
    Sim,
}

/// A target's identity and geometry, as recorded in the plan and the results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetInfo {
    /// Path as given (file or device).
    pub path: PathBuf,
    /// File or block device.
    pub kind: TargetKind,
    /// Usable capacity in bytes (file size, or BLKGETSIZE64 for a device).
    pub capacity_bytes: u64,
    /// Logical block size in bytes: the O_DIRECT offset alignment (BLKSSZGET for devices; statx
    /// STATX_DIOALIGN, or the underlying device's, for files).
    pub logical_block_size: u32,
    /// Physical block size in bytes (BLKPBSZGET for devices; the filesystem block size for files).
    pub physical_block_size: u32,
    /// Device model from sysfs, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Device serial number from sysfs, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// Device firmware revision from sysfs, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware: Option<String>,
    /// Largest single discard the device accepts, in bytes (sysfs `queue/discard_max_bytes`); 0 when it
    /// cannot discard. Absent for files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_max_bytes: Option<u64>,
    /// The most I/Os the device's queue holds at once: the smaller of sysfs `queue/nr_requests` and, for
    /// SCSI/SATA, `device/queue_depth` (a partition's are its disk's; for a file, those of the block device
    /// under its file system). Deeper queues wait in the host. Absent for the simulated drive, a file on no
    /// block device (tmpfs, NFS), and when sysfs does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth_max: Option<u32>,
    /// A loop device without direct I/O (sysfs `loop/dio` = 0) that the target is, or lies on (a partition's
    /// disk, a device-mapper or RAID member, a loop device's backing device, followed down 8 levels; for a
    /// file, the device of its file system): its I/O goes through the host's page cache of its backing file,
    /// which the numbers then describe as much as the device. Absent otherwise, and for the simulated drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cached_loop: Option<CachedLoop>,
    /// A block device target that is, or lies on (followed as for `page_cached_loop`), a loop device whose
    /// backing is a regular file, with direct I/O or without: the loop device and the file. Its rates and
    /// latencies are then the file system's and the storage's under the file, with no write cliff or
    /// garbage collection of its own (`wkrun sim fit` refuses it as it refuses a file). Absent otherwise,
    /// and for files and the simulated drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_backed_loop: Option<CachedLoop>,
    /// The NVMe namespace id, when the target is an NVMe namespace block device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvme_namespace: Option<u32>,
    /// What the NVMe Identify Namespace command says of the namespace (its size and LBA formats), when the
    /// target is an NVMe namespace and the command was allowed (root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvme: Option<NvmeNamespace>,
    /// The zone model and limits of a zoned block device (sysfs `queue/zoned` other than `none`); absent for
    /// devices that are not zoned, files and the simulated drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoned: Option<Zoned>,
    /// Whether a block device has poll queues (sysfs `queue/io_poll`), for `polled = true`; absent for
    /// files, the simulated drive and a device whose sysfs does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_poll: Option<bool>,
    /// The device's volatile write cache: its state as wkrun read it, whether a run can set it
    /// (`[target] write_cache`), and what a run that set it found, set and restored. Absent for the simulated
    /// drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<WriteCache>,
    /// True when the file does not exist yet and wkrun will create it before the first phase.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
    /// True when wkrun created the file with its blocks allocated (fallocate); absent when it was created sparse
    /// (the file system cannot preallocate) or not created by wkrun.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub preallocated: bool,
    /// True when the run wrote the whole file once (sequentially, random data, through the page cache, then
    /// flushed and dropped from it) before its first phase, as fio lays out a file it creates: wkrun created
    /// the file, and a phase read it before any phase wrote or erased it (reads of a created file's
    /// unwritten blocks would not reach the device). Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub laid_out: bool,
    /// True when no phase the run ran opened the target (each ran on the `null` engine, which does no
    /// I/O): wkrun neither created, read nor wrote it, so a file that did not exist was not made; `path`,
    /// `capacity_bytes` and the facts probed are those of the target the spec names, never touched. Absent
    /// otherwise, and for the simulated drive.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unopened: bool,
    /// A simulated target's model: every parameter and the derived flash layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<crate::sim::SimTarget>,
    /// The file system in memory (`tmpfs`, `ramfs`) a file target lies on, or would be created on: its numbers
    /// describe RAM, not a drive (a caution of every phase that does I/O says so, in its `warnings`). Not
    /// recorded: `None` for a block device, the simulated drive, and a target read back from results.
    #[serde(skip)]
    #[schemars(skip)]
    pub memory_fs: Option<&'static str>,
    /// Why a file target cannot be opened with O_DIRECT (its file system has none: ramfs), found when it was
    /// probed: a phase with `direct = true` is then refused before anything is made. Not recorded.
    #[serde(skip)]
    #[schemars(skip)]
    pub no_direct: Option<String>,
    /// What the path named when it was probed (its device and inode, or the device number); the run opens the
    /// target only if it is still that ([`open::Held`]). Not recorded: `None` for a file still to be created,
    /// the simulated drive, and a target read back from results.
    #[serde(skip)]
    #[schemars(skip)]
    pub identity: Option<Identity>,
}

/// A loop device that reads and writes its backing file through the host's page cache (sysfs `loop/dio` = 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CachedLoop {
    /// The loop device (`/dev/loop3`).
    pub device: PathBuf,
    /// Its backing file (or device), as sysfs `loop/backing_file` names it.
    pub backing_file: PathBuf,
}

/// An NVMe namespace as Identify Namespace describes it (NVMe Base Specification 2.0, Identify Namespace data
/// structure).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NvmeNamespace {
    /// Namespace size in logical blocks (NSZE).
    pub size_blocks: u64,
    /// Namespace capacity in logical blocks (NCAP): the most that may be allocated.
    pub capacity_blocks: u64,
    /// Namespace utilization in logical blocks (NUSE): allocated when the target was probed.
    pub utilization_blocks: u64,
    /// Index of the LBA format in use (FLBAS), into `lba_formats`.
    pub lba_format: u8,
    /// The LBA formats the namespace supports, in index order.
    pub lba_formats: Vec<LbaFormat>,
}

/// One LBA format of an NVMe namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LbaFormat {
    /// Data bytes per logical block (2^LBADS).
    pub data_bytes: u32,
    /// Metadata bytes per logical block (MS).
    pub metadata_bytes: u16,
    /// Relative performance (RP): 0 best performance, 1 better, 2 good, 3 degraded.
    pub relative_performance: u8,
}

/// How a zoned block device takes writes (sysfs `queue/zoned`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneModel {
    /// Each zone takes writes only at its write pointer, in order; a zone is rewritten after a reset.
    HostManaged,
    /// Random writes are accepted (the device handles them), sequential writes per zone preferred.
    HostAware,
}

/// A zoned block device's zones and limits, from sysfs `queue/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Zoned {
    /// `host-managed` or `host-aware` (sysfs `queue/zoned`).
    pub model: ZoneModel,
    /// Zone size in bytes (sysfs `queue/chunk_sectors` × 512); the last zone may be smaller.
    pub zone_size_bytes: u64,
    /// Number of zones (sysfs `queue/nr_zones`).
    pub zones: u64,
    /// The most zones that may be open at once (sysfs `queue/max_open_zones`); 0: no limit.
    pub max_open_zones: u32,
    /// The most zones that may be active (open or closed) at once (sysfs `queue/max_active_zones`); 0: no limit.
    pub max_active_zones: u32,
    /// Writes are multiples of this many bytes (sysfs `queue/zone_write_granularity`; the logical block size
    /// where sysfs does not say).
    pub write_granularity_bytes: u32,
}

/// Where a write cache state was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheSource {
    /// The NVMe controller: Get Features, Volatile Write Cache (feature 06h).
    Nvme,
    /// The kernel's view (sysfs `queue/write_cache`): whether it sends the device cache flushes.
    Sysfs,
    /// A SCSI or SATA disk's caching mode page (its write cache enable bit), as the SCSI disk driver reads
    /// and sets it: sysfs `scsi_disk/H:C:T:L/cache_type` (`write back`, `write through`).
    ScsiDisk,
}

/// A target's volatile write cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteCache {
    /// Enabled (`on`) or not (`off`) when the target was probed; absent when it could not be read (a file, an
    /// NVMe controller without a volatile write cache, the admin command refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<crate::vocab::CacheState>,
    /// Where `state` was read: `nvme` (the controller, Get Features) or `sysfs` (the kernel's view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_from: Option<CacheSource>,
    /// sysfs `queue/write_cache` of a block device: `write back` (the kernel sends cache flushes) or
    /// `write through`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Whether a run can set it (`[target] write_cache`): an NVMe namespace whose controller has a volatile
    /// write cache and answers Get Features, or a SCSI or SATA disk whose `cache_type` can be written.
    pub settable: bool,
    /// Why a run cannot set it, in words; absent when it can.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// The sysfs file a run sets it through, for a SCSI or SATA disk (`/sys/block/sda/device/scsi_disk/
    /// 0:0:0:0/cache_type`, whose writes the driver sends to the disk as MODE SELECT); absent for NVMe (Set
    /// Features) and for targets that have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
    /// What the run did with it (`[target] write_cache = "on"` or `"off"`); absent when it left it as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<CacheRun>,
}

/// A run's setting of the volatile write cache: each state read back from the controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheRun {
    /// What the spec asked for (`[target] write_cache`).
    pub requested: crate::vocab::CacheState,
    /// The state found when the run began, before it set anything.
    pub before: crate::vocab::CacheState,
    /// The state read back once set, before the first phase.
    pub during: crate::vocab::CacheState,
    /// The state read back after it was set back to `before` at the end of the run (also after a failure or
    /// a signal); absent while the run goes on and when it could not be restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<crate::vocab::CacheState>,
    /// Why it could not be restored; absent when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_error: Option<String>,
}

/// What a host target's path named when it was probed, to tell it from whatever the path names later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// A regular file: the device of its filesystem and its inode number (`st_dev`, `st_ino`).
    File {
        /// `st_dev`.
        dev: u64,
        /// `st_ino`.
        ino: u64,
    },
    /// A block device: its device number (`st_rdev`), whichever node or link names it.
    Block {
        /// `st_rdev`.
        rdev: u64,
    },
}

impl Identity {
    /// The kind of target an identity is of.
    pub fn kind(self) -> TargetKind {
        match self {
            Identity::File { .. } => TargetKind::File,
            Identity::Block { .. } => TargetKind::Block,
        }
    }

    /// The identity of what `meta` describes; `None` when it is neither a regular file nor a block device.
    pub fn of(meta: &std::fs::Metadata) -> Option<Identity> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let ft = meta.file_type();
        if ft.is_block_device() {
            Some(Identity::Block { rdev: meta.rdev() })
        } else if ft.is_file() {
            Some(Identity::File {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        } else {
            None
        }
    }

    /// The identity in words: "the file with inode 12 on device 8:1", "block device 7:3".
    pub fn describe(this: Option<Identity>) -> String {
        let mm = |d: u64| format!("{}:{}", libc::major(d), libc::minor(d));
        match this {
            Some(Identity::File { dev, ino }) => {
                format!("the file with inode {ino} on device {}", mm(dev))
            }
            Some(Identity::Block { rdev }) => format!("block device {}", mm(rdev)),
            None => "neither a regular file nor a block device".to_string(),
        }
    }
}

/// Model name of simulated targets.
pub const SIM_MODEL: &str = "wkrun simulated SSD (page-mapped FTL, greedy GC)";

impl TargetKind {
    /// Whether targets of this kind are files or devices of the host, opened (and created) through the OS;
    /// false for the simulated drive, which lives in wkrun's memory.
    pub fn opens_on_host(self) -> bool {
        kinds::of(self).facts().on_host
    }

    /// What charts call a target of this kind: `file` for a file, else `drive` (a block device, the
    /// simulated drive), as in `file span written once` (trial 13 F15: a file's said `drive`).
    pub fn thing(self) -> &'static str {
        kinds::of(self).facts().thing
    }
}

impl TargetInfo {
    /// The name a run on this target goes by when `--label` gives none: the device's model and capacity in
    /// the vendors' decimal units (`Samsung SSD 860 EVO 500GB, 500 GB`) when the device says its model, else
    /// the target's name (a simulated drive's `sim:...`, a file's path).
    pub fn default_label(&self) -> String {
        if let Some(s) = &self.sim {
            return s.name();
        }
        match self.model.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => format!("{m}, {}", decimal_capacity(self.capacity_bytes)),
            _ => self.path.display().to_string(),
        }
    }

    /// A target of `kind` at `path` with this geometry and nothing else known: no model, serial, firmware,
    /// discard limit, NVMe namespace, zones or simulated model, and not one that wkrun creates. [`probe()`] adds what a
    /// device says of itself, [`TargetInfo::sim`] the model of a simulated drive.
    pub fn new(
        path: impl Into<PathBuf>,
        kind: TargetKind,
        capacity_bytes: u64,
        logical_block_size: u32,
        physical_block_size: u32,
    ) -> TargetInfo {
        TargetInfo {
            path: path.into(),
            kind,
            capacity_bytes,
            logical_block_size,
            physical_block_size,
            model: None,
            serial: None,
            firmware: None,
            discard_max_bytes: None,
            queue_depth_max: None,
            page_cached_loop: None,
            file_backed_loop: None,
            nvme_namespace: None,
            nvme: None,
            zoned: None,
            io_poll: None,
            write_cache: None,
            created: false,
            preallocated: false,
            laid_out: false,
            unopened: false,
            sim: None,
            memory_fs: None,
            no_direct: None,
            identity: None,
        }
    }

    /// Whether the target is a file or device of the host, opened (and created) through the OS; false for the
    /// simulated drive.
    pub fn opens_on_host(&self) -> bool {
        self.kind.opens_on_host()
    }

    /// A simulated target with parameters `params`: 512-byte logical blocks, 4 KiB physical blocks, the
    /// capacity rounded down to whole 4 KiB units.
    ///
    /// # Errors
    /// A message naming the parameter when they do not describe a drive.
    pub fn sim(params: crate::sim::SimParams) -> Result<TargetInfo, String> {
        let t = crate::sim::SimTarget::new(params).map_err(|e| e.to_string())?;
        let bare = TargetInfo::sim_of_capacity(t.params.capacity.0);
        Ok(TargetInfo {
            path: t.name().into(),
            model: Some(SIM_MODEL.to_string()),
            sim: Some(t),
            ..bare
        })
    }

    /// Any simulated drive of `capacity` bytes as a plan sees it, its other parameters unknown: 512-byte
    /// logical blocks, 4 KiB physical blocks, the capacity rounded down to whole 4 KiB units. What a spec may
    /// ask of a simulated drive does not depend on them (`sim predict` checks its spec so before the fit).
    pub fn sim_of_capacity(capacity: u64) -> TargetInfo {
        use crate::sim::params::{PREFIX, SECTOR, UNIT};
        TargetInfo::new(
            format!("{PREFIX}capacity={}", crate::units::fmt_bytes(capacity)),
            TargetKind::Sim,
            capacity / UNIT * UNIT,
            SECTOR,
            UNIT as u32,
        )
    }
}

/// A capacity as drive vendors write it: decimal gigabytes (`500 GB`), or terabytes with up to two decimals
/// from 1 TB (`1.92 TB`), megabytes below 1 GB.
pub fn decimal_capacity(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes >= 1_000_000_000_000 {
        let t = format!("{:.2}", b / 1e12);
        format!("{} TB", t.trim_end_matches('0').trim_end_matches('.'))
    } else if bytes >= 1_000_000_000 {
        format!("{:.0} GB", b / 1e9)
    } else {
        format!("{:.0} MB", b / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drive_is_labelled_by_model_and_decimal_capacity_else_by_path() {
        let mut t = TargetInfo::new("/dev/sdb", TargetKind::Block, 500_107_862_016, 512, 4096);
        assert_eq!(t.default_label(), "/dev/sdb");
        t.model = Some("  Samsung SSD 860 EVO 500GB ".into());
        assert_eq!(t.default_label(), "Samsung SSD 860 EVO 500GB, 500 GB");
        t.capacity_bytes = 1_920_383_410_176;
        assert_eq!(t.default_label(), "Samsung SSD 860 EVO 500GB, 1.92 TB");
        t.capacity_bytes = 4_000_787_030_016;
        assert_eq!(t.default_label(), "Samsung SSD 860 EVO 500GB, 4 TB");
        t.model = Some("   ".into());
        assert_eq!(t.default_label(), "/dev/sdb");
        assert_eq!(decimal_capacity(268_435_456), "268 MB");
    }
}
