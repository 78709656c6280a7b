//! The drive's health before and after the run and each I/O phase: an NVMe namespace target's SMART /
//! health log (and the OCP extended page), read through the held target (`target::health::read`). Other
//! targets record why there is none.

use super::Ctx;
use crate::results::RunHealth;
use crate::target::TargetKind;
use crate::target::health::{HealthDelta, HealthLog};

/// The run's health record before its first phase: the log read, or why there is none.
pub fn before(ctx: &mut Ctx<'_>) {
    let target = &ctx.plan.target;
    let unavailable = |why: String| RunHealth {
        available: false,
        unavailable: Some(why),
        before: None,
        after: None,
        delta: None,
    };
    let health = match (target.kind, target.nvme_namespace, ctx.target) {
        (TargetKind::File, ..) => unavailable(
            "the target is a file, not an NVMe namespace: no drive health log".to_string(),
        ),
        (TargetKind::Sim, ..) => unavailable(
            "the target is the simulated drive: its internals are in phases[].device".to_string(),
        ),
        (TargetKind::Block, None, _) => unavailable(format!(
            "{} is not an NVMe namespace (another kind of block device, or a partition): no NVMe health log",
            target.path.display()
        )),
        (TargetKind::Block, Some(_), None) => unavailable(
            "the run does not open the target (the null engine): its health log is not read"
                .to_string(),
        ),
        (TargetKind::Block, Some(_), Some(held)) => {
            match crate::target::health::read(held.file()) {
                Ok(log) => RunHealth {
                    available: true,
                    unavailable: None,
                    before: Some(log),
                    after: None,
                    delta: None,
                },
                Err(why) => unavailable(why),
            }
        }
    };
    ctx.results.health = Some(health);
}

/// The health log now, when the run's first reading succeeded (an NVMe namespace); `None` otherwise or when
/// this reading fails.
pub fn now(ctx: &Ctx<'_>) -> Option<HealthLog> {
    let available = ctx.results.health.as_ref().is_some_and(|h| h.available);
    let held = ctx.target.filter(|_| available)?;
    crate::target::health::read(held.file()).ok()
}

/// The run's health record after its last phase (or when it ends early): the log read and what the run
/// did; a reading that fails now leaves `after` absent and says why.
pub fn after(ctx: &mut Ctx<'_>) {
    let available = ctx.results.health.as_ref().is_some_and(|h| h.available);
    let Some(held) = ctx.target.filter(|_| available) else {
        return;
    };
    let read = crate::target::health::read(held.file());
    let Some(h) = ctx.results.health.as_mut() else {
        return;
    };
    match read {
        Ok(log) => {
            h.delta = h.before.as_ref().map(|b| HealthDelta::between(b, &log));
            h.after = Some(log);
        }
        Err(why) => h.unavailable = Some(format!("after the run: {why}")),
    }
}
