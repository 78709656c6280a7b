//! `wkrun plan` as text: one line per phase with byte range, block size, QD, bound and expected bytes, then
//! the roundings.

use super::Plan;
use crate::spec::{EraseMethod, PhaseKind};
use crate::target::TargetKind;
use crate::units::{Duration, fmt_bytes};
use std::fmt::Write;

/// Renders the plan for humans.
pub fn render_text(plan: &Plan) -> String {
    let t = &plan.target;
    let mut out = String::new();
    let kind = match t.kind {
        TargetKind::File if t.created => "file, will be created sparse",
        TargetKind::File => "file",
        TargetKind::Block => "block device",
        TargetKind::Sim => "simulated SSD, virtual time",
    };
    let _ = writeln!(
        out,
        "spec {} {} ({})",
        plan.spec_name,
        plan.spec_version,
        plan.spec_path.display()
    );
    let _ = writeln!(
        out,
        "target {} ({kind}): {} B ({}), logical block {} B, physical block {} B{}",
        t.path.display(),
        t.capacity_bytes,
        fmt_bytes(t.capacity_bytes),
        t.logical_block_size,
        t.physical_block_size,
        t.model
            .as_ref()
            .map(|m| format!(", model {m}"))
            .unwrap_or_default()
    );
    if t.kind == TargetKind::Sim {
        let _ = writeln!(
            out,
            "writes only to the simulated drive: nothing on this host is opened or written"
        );
    } else if plan.writes() {
        let _ = writeln!(
            out,
            "DESTROYS the data of {} in the byte ranges below",
            t.path.display()
        );
    }
    let _ = writeln!(
        out,
        "\n{:>3}  {:<24} {:<13} {:<31} {:>8} {:>4} {:>6}  {:<20} {:>15}",
        "#",
        "phase",
        "kind",
        "byte range [start, end)",
        "block",
        "QD",
        "read%",
        "bound",
        "expected bytes"
    );
    for p in &plan.phases {
        let q = &p.params;
        // A restore overwrites only the image's bytes at the start of its span.
        let len = if p.kind == PhaseKind::RestoreImage {
            q.image_bytes.unwrap_or(q.span_bytes)
        } else {
            q.span_bytes
        };
        let range = format!("[{}, {})", q.span_start_bytes, q.span_start_bytes + len);
        let bound = match p.kind {
            PhaseKind::Erase => match (q.method, t.kind) {
                (Some(EraseMethod::Auto) | None, TargetKind::File) => "punch-hole".to_string(),
                (Some(EraseMethod::Auto) | None, TargetKind::Sim) => "discard (auto)".to_string(),
                (Some(EraseMethod::Auto) | None, TargetKind::Block) => {
                    "auto: first of secure-discard, discard, zero-out".to_string()
                }
                (Some(m), _) => m.as_str().to_string(),
            },
            PhaseKind::Fill => match (q.passes, q.ops) {
                (Some(n), _) => format!("{n} pass{}", if n == 1 { "" } else { "es" }),
                (None, Some(ops)) => format!("{ops} I/Os"),
                _ => String::new(),
            },
            PhaseKind::RestoreImage => format!("image {}", q.image.as_deref().unwrap_or("")),
            PhaseKind::Verify => format!(
                "read back, expect {}",
                match q.expect {
                    Some(crate::vocab::Expect::Header) => "header",
                    _ => "last-writer",
                }
            ),
            PhaseKind::Workload => match (q.duration_ns, q.ops) {
                (Some(d), _) => format!("time {}", Duration(d)),
                (None, Some(ops)) => format!("{ops} I/Os"),
                _ => String::new(),
            },
        };
        let _ = writeln!(
            out,
            "{:>3}  {:<24} {:<13} {:<31} {:>8} {:>4} {:>6}  {:<20} {:>15}",
            p.index,
            p.name,
            p.kind.as_str(),
            range,
            q.block_size_bytes
                .map(fmt_bytes)
                .unwrap_or_else(|| "-".into()),
            q.queue_depth
                .map(|d| d.to_string())
                .unwrap_or_else(|| "-".into()),
            q.read_percent
                .map(|r| r.to_string())
                .unwrap_or_else(|| "-".into()),
            bound,
            q.expected_bytes
                .map(|b| b.to_string())
                .unwrap_or_else(|| "-".into()),
        );
        if let Some(d) = q.duration_ns {
            let iv = q.interval_ns.unwrap_or(super::DEFAULT_INTERVAL_NS);
            let _ = writeln!(
                out,
                "     {:<24} {} interval{} of {}",
                "",
                d.div_ceil(iv),
                if d.div_ceil(iv) == 1 { "" } else { "s" },
                Duration(iv)
            );
        }
        for note in &p.rounding {
            let _ = writeln!(out, "     {:<24} rounding: {note}", "");
        }
    }
    out
}
