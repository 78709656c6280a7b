//! Before a run: the file target a plan marks `created` is made, and the plan made again for it.

use crate::plan::{self, Plan};
use crate::spec::LoadedSpec;
use crate::target::{self, Identity};

/// Creates the file target `plan` marks `created` (of the planned capacity, its blocks allocated where the file system can) and plans `spec` again for
/// the real file, whose O_DIRECT alignment may differ from what its folder suggested; the new plan keeps
/// `start_at`. The file is removed again when the second plan fails. The new plan's target is the file created:
/// a path that names another file by the time it is probed again is refused (and left alone).
///
/// # Errors
/// Why the file could not be created, or the second plan's error; nothing is left behind.
pub fn create_target(spec: &LoadedSpec, plan: &Plan) -> Result<Plan, String> {
    let info = &plan.target;
    let created = target::open::create_file(&info.path, info.capacity_bytes)
        .map_err(|e| format!("cannot create the target file {}: {e}", info.path.display()))?;
    let real = match target::probe(&info.path, info.capacity_bytes) {
        Ok(real) if real.identity != Some(created.identity) => {
            return Err(format!(
                "{} was replaced just after wkrun created it (it now names {}); nothing was written to it",
                info.path.display(),
                Identity::describe(real.identity)
            ));
        }
        r => r,
    };
    let replanned = real.map_err(|e| e.to_string()).and_then(|mut real| {
        real.created = true;
        real.preallocated = created.preallocated;
        plan::resolve(spec, &real).map_err(|e| e.to_string())
    });
    match replanned {
        Ok(mut p) => {
            p.start_at = plan.start_at;
            p.launch = plan.launch.clone();
            // `--label` (or the label of several targets) as given, not the new plan's default.
            p.label = plan.label.clone();
            Ok(p)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&info.path);
            Err(e)
        }
    }
}

/// Removes the file target a run created (`target.created`, probed once made) while its path still names
/// that file (the same device and inode), never whatever was put in its place: a run refused, or stopped
/// by a signal, before it started leaves nothing it made. Whether it was removed.
pub fn remove_created(target: &crate::target::TargetInfo) -> bool {
    if !target.created || target.identity.is_none() {
        return false;
    }
    let named = std::fs::symlink_metadata(&target.path)
        .ok()
        .and_then(|m| Identity::of(&m));
    named == target.identity && std::fs::remove_file(&target.path).is_ok()
}

/// The line that says a file target was created: `created PATH (N B, preallocated)` (or `sparse`).
pub fn created_line(target: &crate::target::TargetInfo) -> String {
    format!(
        "created {} ({} B, {})",
        target.path.display(),
        target.capacity_bytes,
        if target.preallocated {
            "preallocated"
        } else {
            "sparse"
        }
    )
}

/// Bytes written per call when laying out a file.
const LAYOUT_CHUNK: usize = 1 << 20;

/// Lays out the file target the run created when a phase would read it before any phase writes it
/// ([`Plan::lays_out_for`]): writes its whole size once, sequentially, with random data through the page
/// cache, then flushes it and drops it from the cache (fio lays out a file it creates the same way). Records
/// it in the results (`target.laid_out`) and as written, so no phase warns of never-written reads there.
///
/// # Errors
/// The run's end when a signal stopped the layout, or a write or the flush failed.
pub(super) fn lay_out(ctx: &mut super::Ctx<'_>) -> Result<(), super::RunError> {
    let (Some(first), Some(held)) = (ctx.plan.lays_out_for(), ctx.target) else {
        return Ok(());
    };
    let len = ctx.plan.target.capacity_bytes;
    let path = ctx.plan.target.path.display().to_string();
    ctx.log(&format!(
        "laying out {path}: writing its {len} B once before phase {} reads it (a file wkrun creates holds unwritten blocks, whose reads do not reach the device; fio does the same)",
        first.index
    ));
    let t0 = std::time::Instant::now();
    match write_whole(held, len, ctx.stop) {
        Ok(true) => {}
        Ok(false) => return Err(ctx.interrupted(None)),
        Err(e) => return Err(ctx.fail(None, format!("laying out {path}: {e}"))),
    }
    ctx.results.target.laid_out = true;
    ctx.written.add(0, len);
    let s = t0.elapsed().as_secs_f64();
    ctx.log(&format!(
        "laid out {path} in {s:.2} s ({:.1} MB/s)",
        len as f64 / s.max(1e-9) / 1e6
    ));
    ctx.record_running()
}

/// Writes `[0, len)` of the held file once (random data, buffered), flushes it and drops it from the page
/// cache. `Ok(false)` when `stop` was set before the end.
fn write_whole(
    held: &target::open::Held,
    len: u64,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<bool, String> {
    use std::os::unix::fs::FileExt;
    held.set_direct(false)
        .map_err(|e| format!("cannot switch O_DIRECT off: {e}"))?;
    let mut buf =
        crate::buf::try_vec(LAYOUT_CHUNK, 0u8, "the layout buffer").map_err(|e| e.to_string())?;
    let f = held.file();
    let mut at = 0u64;
    while at < len {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(false);
        }
        let n = (len - at).min(LAYOUT_CHUNK as u64) as usize;
        crate::data::fill_random(&mut buf[..n], crate::data::mix64(at));
        f.write_all_at(&buf[..n], at)
            .map_err(|e| format!("write of {n} B at offset {at}: {e}"))?;
        at += n as u64;
    }
    f.sync_data()
        .map_err(|e| format!("flush (fdatasync): {e}"))?;
    let _ = crate::sys::file::drop_cached(f, 0, len);
    Ok(true)
}
