//! Plans that cannot work on a host-managed zoned block device, refused when the plan is made rather than
//! failing with EIO mid-run. Such a device takes writes in each zone only at the zone's write pointer, in
//! order, in whole multiples of its write granularity, never across a zone boundary; a zone is written again
//! only after a reset. A host-aware device accepts any write, so nothing is refused there.

use super::{Bound, PhasePlan, Work};
use crate::ops::Order;
use crate::target::{TargetInfo, ZoneModel, Zoned};
use crate::units::Size;
use crate::vocab::{Direction, EngineKind, EraseMethod, ZoneMode};

/// Why a phase cannot run on a zoned target: the key to blame, the reason and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The phase key the error points at.
    pub key: &'static str,
    /// The reason, naming the device and its zones.
    pub message: String,
    /// What would work.
    pub help: Option<String>,
}

fn refuse(key: &'static str, message: String, help: &str) -> Option<Refusal> {
    Some(Refusal {
        key,
        message,
        help: Some(help.to_string()),
    })
}

/// Why `phase` cannot run on `t`, a host-managed zoned device; `None` when it can, or when `t` is not one.
pub fn problem(phase: &PhasePlan, t: &TargetInfo) -> Option<Refusal> {
    let zbd = phase.io().is_some_and(|io| io.zone_mode == ZoneMode::Zbd);
    let managed = t
        .zoned
        .as_ref()
        .filter(|z| z.model == ZoneModel::HostManaged);
    let z = match managed {
        Some(z) => z,
        None if zbd => return not_zoned(t),
        None => return None,
    };
    let device = format!(
        "{}, a host-managed zoned device ({} zones of {})",
        t.path.display(),
        z.zones,
        Size(z.zone_size_bytes)
    );
    if let Work::Erase(e) = &phase.work {
        return erase_problem(e.method, &device);
    }
    if !phase.writes() {
        return None;
    }
    let (io, s) = (phase.io()?, phase.op_stream()?);
    if zbd && io.direct {
        return zbd_problem(phase, &s, z, &device);
    }
    if !io.direct {
        return refuse(
            "direct",
            format!(
                "buffered writes (direct = false) reach {device} in the page cache's order, not at each zone's write pointer"
            ),
            "use direct = true",
        );
    }
    if s.order != Order::Sequential {
        return refuse(
            "pattern",
            format!(
                "random writes cannot work on {device}: each zone takes writes only at its write pointer, in order"
            ),
            "write with pattern = \"sequential\" from a zone's start, or read only (read_percent = 100)",
        );
    }
    if s.mix.percent(Direction::Read) > 0 {
        return refuse(
            "read_percent",
            format!(
                "a sequential mix of reads and writes (read_percent = {}) leaves gaps between the writes (the reads take their offsets), so the writes do not follow each zone's write pointer on {device}",
                s.mix.percent(Direction::Read)
            ),
            "write in a phase of its own (read_percent = 0), read in another",
        );
    }
    if let Some(r) = depth_problem(io, &device) {
        return Some(r);
    }
    if let Some(r) = block_problem(io.block_size, s.span_start, z, &device) {
        return Some(r);
    }
    if let Some(r) = bound_problem(phase, s.blocks(), s.total_ops, &device) {
        return Some(r);
    }
    workers_problem(phase, z, &device)
}

/// More than one write in flight reaches each zone in order only where one thread hands them all to the
/// block layer in the op stream's order, as `libaio`'s `io_submit` does. `psync`'s threads race each other;
/// `io_uring` hands a write the device cannot take at once (no free request) to a kernel worker thread,
/// which issues it after the writes submitted behind it: EIO at the write pointer, seen under load.
fn depth_problem(io: &super::IoSettings, device: &str) -> Option<Refusal> {
    let why = match io.engine {
        _ if io.queue_depth <= 1 => return None,
        EngineKind::Psync => {
            "psync runs one thread per write in flight, and the threads reach a zone in whichever order they run"
        }
        EngineKind::IoUring => {
            "io_uring hands a write the device cannot take at once to a kernel worker thread, which issues it after the writes submitted behind it"
        }
        _ => return None,
    };
    refuse(
        "queue_depth",
        format!(
            "{} writes in flight (queue_depth = {}) on engine \"{}\" can reach a zone of {device} out of its write pointer's order: {why}",
            io.queue_depth,
            io.queue_depth,
            io.engine.as_str()
        ),
        "use engine = \"libaio\" (one thread submits the writes in order) or queue_depth = 1",
    )
}

/// `zone_mode = "zbd"` on a target that is not a host-managed zoned device.
fn not_zoned(t: &TargetInfo) -> Option<Refusal> {
    let what = match &t.zoned {
        Some(_) => "a host-aware zoned device, which takes writes anywhere".to_string(),
        None => "not a zoned block device".to_string(),
    };
    refuse(
        "zone_mode",
        format!(
            "zone_mode = \"zbd\" writes at zones' write pointers, but {} is {what}",
            t.path.display()
        ),
        "drop zone_mode (or run on a host-managed zoned device)",
    )
}

/// What `zone_mode = "zbd"` needs: writes only, one worker with one I/O in flight (a zone's writes in order,
/// a reset with none in flight), no verification (the offsets are the device's), a block size that divides the
/// zone size and a span of whole zones.
fn zbd_problem(
    phase: &PhasePlan,
    s: &crate::ops::OpStream,
    z: &Zoned,
    device: &str,
) -> Option<Refusal> {
    let io = phase.io()?;
    let zbd = "zone_mode = \"zbd\"";
    let reads = s.mix.percent(Direction::Read);
    if reads > 0 {
        return refuse(
            "read_percent",
            format!("{zbd} writes only: read_percent = {reads} on {device}"),
            "read in a phase of its own (reads need no zone_mode)",
        );
    }
    if io.queue_depth > 1 || io.workers > 1 {
        return refuse(
            if io.workers > 1 {
                "workers"
            } else {
                "queue_depth"
            },
            format!(
                "{zbd} runs one worker with one I/O in flight on {device} (queue_depth = {}, workers = {}): writes in flight together could reach a zone out of order, and a zone is reset with none in flight",
                io.queue_depth, io.workers
            ),
            "use queue_depth = 1 and workers = 1",
        );
    }
    if let Work::Io(w) = &phase.work
        && matches!(w.writes, super::WriteSource::Data { stamped: true, .. })
    {
        return refuse(
            "verify",
            format!(
                "{zbd} writes where each zone's write pointer is, not at the offsets a verify pass replays, on {device}"
            ),
            "drop verify",
        );
    }
    if io.mix.is_some() {
        return refuse(
            "block_size",
            format!("{zbd} takes one block size, not a mix, on {device}"),
            "give one block size",
        );
    }
    if let Some(r) = block_problem(io.block_size, s.span_start, z, device) {
        return Some(r);
    }
    let zs = z.zone_size_bytes;
    if !s.span_len.is_multiple_of(zs) {
        return refuse(
            "span",
            format!(
                "{zbd} needs a span of whole zones on {device}: {} B is {} zones and {} B",
                s.span_len,
                s.span_len / zs,
                s.span_len % zs
            ),
            &format!("use a span that is a multiple of the zone size ({zs} B)"),
        );
    }
    None
}

/// An erase that writes zeros (`zero-out`) cannot work; `auto` resets the zones.
fn erase_problem(method: EraseMethod, device: &str) -> Option<Refusal> {
    if method != EraseMethod::ZeroOut {
        return None;
    }
    refuse(
        "method",
        format!(
            "erase method \"{}\" writes zeros over the span, which {device} refuses: writes go only at each zone's write pointer",
            method.as_str()
        ),
        "use method = \"zone-reset\" (or \"auto\", which resets the zones of a zoned device)",
    )
}

/// Writes of `bs` bytes from `start` must be whole multiples of the write granularity, start at a zone's
/// start and never straddle a zone boundary.
fn block_problem(bs: u64, start: u64, z: &Zoned, device: &str) -> Option<Refusal> {
    let (zs, g) = (
        z.zone_size_bytes,
        u64::from(z.write_granularity_bytes.max(1)),
    );
    if !bs.is_multiple_of(g) {
        return refuse(
            "block_size",
            format!(
                "block_size {} ({bs} B) is not a multiple of the zone write granularity ({g} B) of {device}",
                Size(bs)
            ),
            &format!("use a multiple of {g} B that divides the zone size ({zs} B)"),
        );
    }
    if !start.is_multiple_of(zs) {
        return refuse(
            "offset",
            format!(
                "the span starts at byte {start}, inside zone {} of {device}: sequential writes must start at a zone's start (its write pointer once reset)",
                start / zs
            ),
            &format!("use an offset that is a multiple of the zone size ({zs} B)"),
        );
    }
    if !zs.is_multiple_of(bs) {
        let at = start + zs / bs * bs;
        return refuse(
            "block_size",
            format!(
                "block_size {} ({bs} B) does not divide the zone size ({zs} B) of {device}: the write at byte {at} would straddle zones {} and {}",
                Size(bs),
                at / zs,
                at / zs + 1
            ),
            &format!("use a block size that divides {zs} B"),
        );
    }
    None
}

/// A sequential writer that goes past the end of its span wraps to its start, behind the write pointers.
fn bound_problem(
    phase: &PhasePlan,
    blocks: u64,
    total_ops: Option<u64>,
    device: &str,
) -> Option<Refusal> {
    let ramp = match &phase.work {
        Work::Io(w) => w.measure.ramp_ns.is_some(),
        _ => false,
    };
    let passes = match &phase.work {
        Work::Io(w) => w.passes.unwrap_or(1),
        _ => 1,
    };
    match (phase.bound(), total_ops) {
        _ if ramp => refuse(
            "ramp",
            format!(
                "a ramp before a sequential write on {device} writes an unknown part of the span first, so the measured writes start at no zone's write pointer"
            ),
            "drop the ramp",
        ),
        (Some(Bound::Time { .. }), _) | (_, None) => refuse(
            "duration",
            format!(
                "a time-bounded sequential write wraps to the start of its span when it reaches the end, behind the zones' write pointers of {device}"
            ),
            "bound it with size (at most the span, 100%) instead of duration",
        ),
        (_, Some(n)) if passes > 1 => refuse(
            "passes",
            format!(
                "{passes} passes write the span {passes} times: the second starts behind the zones' write pointers of {device} ({n} writes of {blocks} blocks)"
            ),
            "fill once (passes = 1), the zones reset before each fill",
        ),
        (_, Some(n)) if n > blocks => refuse(
            "size",
            format!(
                "{n} writes of a span of {blocks} blocks wrap to its start, behind the zones' write pointers of {device}"
            ),
            "use a size of at most the span (100%)",
        ),
        _ => None,
    }
}

/// Workers each write their own part: it must start at a zone's start, and they keep one zone open each.
fn workers_problem(phase: &PhasePlan, z: &Zoned, device: &str) -> Option<Refusal> {
    let workers = phase.workers();
    let n = workers.len() as u32;
    if n <= 1 {
        return None;
    }
    if let Some(w) = workers
        .iter()
        .find(|w| !w.range.start.is_multiple_of(z.zone_size_bytes))
    {
        return refuse(
            "workers",
            format!(
                "worker {}'s part of the span starts at byte {}, inside zone {} of {device}: each worker's writes must start at a zone's start",
                w.index,
                w.range.start,
                w.range.start / z.zone_size_bytes
            ),
            "use a span of whole zones that the workers split at zone boundaries, or one worker",
        );
    }
    let limit = [z.max_open_zones, z.max_active_zones]
        .into_iter()
        .filter(|&l| l > 0)
        .min();
    if let Some(l) = limit.filter(|&l| n > l) {
        return refuse(
            "workers",
            format!(
                "{n} workers write {n} zones at once, more than the {l} zones {device} keeps open (max_open_zones {}, max_active_zones {})",
                z.max_open_zones, z.max_active_zones
            ),
            &format!("use at most {l} workers"),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::target::{TargetInfo, TargetKind, ZoneModel, Zoned};
    use std::path::Path;

    /// A 256 MiB host-managed device of 8 zones of 32 MiB, 4096-byte blocks, at most 4 zones open.
    fn zoned(model: ZoneModel) -> TargetInfo {
        TargetInfo {
            discard_max_bytes: Some(0),
            zoned: Some(Zoned {
                model,
                zone_size_bytes: 32 << 20,
                zones: 8,
                max_open_zones: 4,
                max_active_zones: 6,
                write_granularity_bytes: 4096,
            }),
            ..TargetInfo::new("/dev/zz", TargetKind::Block, 256 << 20, 4096, 4096)
        }
    }

    /// The first plan error of one phase (`lines`) on `t`, as `KEY: MESSAGE...`, or `ok`.
    fn verdict(t: &TargetInfo, lines: &str) -> String {
        let text = format!(
            "format = 1\n[spec]\nname = \"z\"\nversion = \"1\"\n[[phase]]\nname = \"w\"\n{lines}"
        );
        let spec = crate::spec::load_str(Path::new("z.toml"), &text).expect("a valid spec");
        match crate::plan::resolve(&spec, t) {
            Ok(_) => "ok".into(),
            Err(e) => {
                let s = e.0[0].to_string();
                let at = s.find("\"w\".").map_or(0, |i| i + 4);
                s[at..].to_string()
            }
        }
    }

    #[test]
    fn a_host_managed_device_takes_sequential_writes_from_zone_starts_only() {
        let t = zoned(ZoneModel::HostManaged);
        let v = |lines: &str| verdict(&t, lines);
        let fill = "kind = \"fill\"\nblock_size = \"1MiB\"\n";
        assert_eq!(v(fill), "ok");
        assert_eq!(v(&format!("{fill}workers = 4\n")), "ok");
        assert_eq!(
            v("kind = \"workload\"\nread_percent = 100\nduration = \"5s\"\n"),
            "ok"
        );
        assert_eq!(v("kind = \"verify\"\n"), "ok");
        for (lines, key) in [
            (
                "kind = \"workload\"\nread_percent = 30\nduration = \"5s\"\n",
                "pattern: random writes cannot work on /dev/zz, a host-managed zoned device",
            ),
            (
                "kind = \"fill\"\npattern = \"random\"\n",
                "pattern: random writes",
            ),
            (
                "kind = \"fill\"\ndirect = false\n",
                "direct: buffered writes",
            ),
            (
                "kind = \"fill\"\noffset = \"1MiB\"\n",
                "offset: the span starts at byte 1048576, inside zone 0 of /dev/zz, a host-managed zoned device",
            ),
            (
                "kind = \"fill\"\nblock_size = \"3MiB\"\n",
                "block_size: block_size 3MiB",
            ),
            (
                "kind = \"fill\"\npasses = 2\n",
                "passes: 2 passes write the span 2 times",
            ),
            (
                "kind = \"fill\"\nworkers = 5\n",
                "workers: worker 1's part of the span starts at byte 53739520, inside zone 1",
            ),
            ("kind = \"fill\"\nspan = \"64MiB\"\nworkers = 2\n", "ok"),
            (
                "kind = \"fill\"\nengine = \"io_uring\"\nqueue_depth = 8\n",
                "queue_depth: 8 writes in flight (queue_depth = 8) on engine \"io_uring\" can reach a zone of /dev/zz, a host-managed zoned device (8 zones of 32MiB) out of its write pointer's order: io_uring hands a write",
            ),
            (
                "kind = \"fill\"\nengine = \"psync\"\nqueue_depth = 2\n",
                "queue_depth: 2 writes in flight (queue_depth = 2) on engine \"psync\" can reach a zone",
            ),
            (
                "kind = \"fill\"\nengine = \"libaio\"\nqueue_depth = 8\n",
                "ok",
            ),
            (
                "kind = \"fill\"\nengine = \"io_uring\"\nworkers = 4\n",
                "ok",
            ),
            (
                "kind = \"workload\"\nengine = \"io_uring\"\nqueue_depth = 8\nread_percent = 100\nduration = \"5s\"\n",
                "ok",
            ),
            (
                "kind = \"fill\"\nworkers = 8\n",
                "workers: 8 workers write 8 zones at once, more than the 4 zones",
            ),
            (
                "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\nduration = \"5s\"\n",
                "duration: a time-bounded sequential write",
            ),
            (
                "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\nsize = \"200%\"\n",
                "size: 131072 writes of a span of 65536 blocks",
            ),
            (
                "kind = \"workload\"\npattern = \"sequential\"\nread_percent = 10\nsize = \"50%\"\n",
                "read_percent: a sequential mix",
            ),
            (
                "kind = \"erase\"\nmethod = \"zero-out\"\n",
                "method: erase method \"zero-out\" writes zeros",
            ),
            ("kind = \"erase\"\n", "ok"),
            ("kind = \"erase\"\nmethod = \"zone-reset\"\n", "ok"),
            (
                "kind = \"erase\"\noffset = \"32MiB\"\nspan = \"64MiB\"\n",
                "ok",
            ),
            (
                "kind = \"erase\"\noffset = \"1MiB\"\nspan = \"64MiB\"\n",
                "method: erase method \"auto\" (zone-reset on this zoned device) resets whole zones, but the span [1048576, 68157440) does not begin and end at zone boundaries of /dev/zz (zones of 33554432 B)",
            ),
        ] {
            let got = v(lines);
            assert!(got.starts_with(key) || got == key, "{lines}: {got}");
        }
    }

    #[test]
    fn host_aware_and_plain_devices_refuse_nothing_for_zones() {
        let random = "kind = \"workload\"\nread_percent = 30\nduration = \"5s\"\n";
        assert_eq!(verdict(&zoned(ZoneModel::HostAware), random), "ok");
        let plain = TargetInfo::new("/dev/sdz", TargetKind::Block, 256 << 20, 4096, 4096);
        assert_eq!(verdict(&plain, random), "ok");
    }
}
