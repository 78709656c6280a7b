//! The verify runner: the span read back sequentially, every sector checked ([`crate::verify::Checker`])
//! against the last write the plan says it holds ([`crate::plan::replay`]), the summary recorded.

use super::io_phase::{end_of, log_io_failures, log_summary, measured};
use super::{Ctx, PhaseEnd};
use crate::engine::errors::MAX_FAILED_RANGES;
use crate::plan::replay::{FailedRanges, VerifyMap};
use crate::plan::{PhasePlan, VerifyWork};
use crate::results::PhaseResult;
use crate::verify::Checker;
use crate::vocab::{Expect, OnError};
use std::sync::atomic::Ordering;

/// Runs a verify phase.
pub fn run(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    work: &VerifyWork,
    mut pr: PhaseResult,
) -> PhaseEnd {
    let map = match work.expect {
        Expect::Header => None,
        Expect::LastWriter => match last_writers(ctx, phase, &mut pr) {
            Ok(m) => Some(m),
            Err(e) => {
                return PhaseEnd::NotRun(format!("phase {} \"{}\": {e}", phase.index, phase.name));
            }
        },
    };
    let checker = Checker::new(work.expect, map, work.max_listed as usize);
    let o = match measured(ctx, phase, Some(&checker), &mut pr) {
        Ok(o) => o,
        Err(end) => return end,
    };
    let v = checker.summary(pr.read.bytes / crate::stamp::SECTOR as u64);
    ctx.result(&format!(
        "      verified {} sectors: {} ok, {} reordered, {} zeroed, {} stale, {} corrupted, {} unexpected, {} unchecked{}",
        v.sectors,
        v.ok,
        v.reordered,
        v.zeroed,
        v.stale,
        v.corrupted,
        v.unexpected,
        v.unchecked,
        match v.write_failed {
            0 => String::new(),
            n => format!(", {n} of failed writes (not checked)"),
        }
    ));
    let mut failed = None;
    if v.mismatched > 0 {
        let msg = format!(
            "phase {} \"{}\": {} of {} sectors did not verify ({} zeroed, {} stale, {} corrupted, {} unexpected), first: {}",
            phase.index,
            phase.name,
            v.mismatched,
            v.sectors,
            v.zeroed,
            v.stale,
            v.corrupted,
            v.unexpected,
            pr.errors.as_ref().map_or("", |e| e.first.message.as_str())
        );
        if work.io.on_error == OnError::Continue {
            ctx.warn(&mut pr, msg);
        } else {
            failed = Some(msg);
        }
    }
    let mismatched = v.mismatched;
    pr.verify = Some(v);
    log_io_failures(ctx, &o, mismatched, &mut pr);
    let interrupted = ctx.stop.load(Ordering::Relaxed) && o.outcome.error.is_none();
    pr.completed = o.outcome.error.is_none() && !interrupted;
    if pr.completed {
        // A verify phase writes nothing: an empty range, as every phase that visits its span records.
        ctx.written.add(phase.span.start, phase.span.start);
    }
    log_summary(ctx, &pr, interrupted);
    match failed.filter(|_| o.outcome.error.is_none() && !interrupted) {
        Some(msg) => PhaseEnd::Failed(pr, msg),
        None => end_of(phase, &o, pr, interrupted),
    }
}

/// The last-writer map of the verify phase `phase`, with the failed writes of the phases run before it; a
/// phase whose failed writes were too many to list gets a warning (its sectors between its first and last
/// failed byte count as `write_failed`, whether their write failed or not).
fn last_writers(
    ctx: &mut Ctx<'_>,
    phase: &PhasePlan,
    pr: &mut PhaseResult,
) -> Result<VerifyMap, String> {
    let failed: Vec<FailedRanges<'_>> = ctx
        .failed_writes
        .iter()
        .filter(|(i, _)| *i < phase.index)
        .map(|(i, f)| FailedRanges {
            phase: *i,
            ranges: &f.ranges,
        })
        .collect();
    let mut skipped = super::rounds::skipped_ranges(ctx.plan, &ctx.results);
    skipped.extend(super::search::skipped_ranges(ctx.plan, &ctx.results));
    let kind = ctx.plan.target.kind;
    let map = VerifyMap::build(&ctx.plan.phases, phase.index, kind, &failed, &skipped)?;
    let too_many: Vec<String> = ctx
        .failed_writes
        .iter()
        .filter(|(i, f)| *i < phase.index && f.too_many)
        .map(|(i, f)| {
            let (a, b) = f.ranges.first().copied().unwrap_or_default();
            format!(
                "phase {i} had more than {MAX_FAILED_RANGES} separate failed writes: which of its writes in [{a}, {b}) failed is not known, so every sector there that it wrote last is counted as write_failed"
            )
        })
        .collect();
    for w in too_many {
        ctx.warn(pr, w);
    }
    Ok(map)
}
