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
            Ok(p)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&info.path);
            Err(e)
        }
    }
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
