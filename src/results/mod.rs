//! Results: the `results.json` document ([`model`]), the per-phase series CSV ([`series_csv`]), atomic writing
//! ([`mod@write`]), the JSON Schemas themselves ([`schema`]), a phase's headline figures ([`headline`]), and
//! the output folder everything is written into ([`outdir`]).

pub mod arrivals_check;
pub mod balance;
pub mod check;
pub mod cluster;
pub mod counters;
pub mod figures_check;
pub mod flush_check;
pub mod from_phase;
pub mod headline;
pub mod hlog;
pub mod judge;
pub mod knee;
pub mod latency_check;
pub mod model;
pub mod outdir;
pub mod parts_check;
pub mod planned;
pub mod possible;
pub mod pretty;
pub mod rounds;
pub mod rounds_check;
pub mod scan;
pub mod schedule_check;
pub mod schema;
pub mod search;
pub mod series_csv;
pub mod stream;
pub mod times_check;
pub mod trace_csv;
pub mod unique;
pub mod workers_check;
pub mod write;

pub use crate::vocab::{KeptWaits, RoundVerdict, WaitsProbe, WaitsRound};
pub use cluster::*;
pub use counters::{CpuResult, KernelResult, RunHealth};
pub use from_phase::FromPhase;
pub use model::*;
pub use planned::PlannedPhase;

/// How a phase's warning of a busy host begins (`busy host: the rates are below the device's; ...`): the
/// run writes it, `compare` reads it to say that a run's numbers may be the host's.
pub const BUSY_HOST: &str = "busy host:";

/// Opens `path`, a file a results folder names beside its `results.json` (histogram log, trace, counters
/// CSV), for reading: a regular file only, never through a symbolic link (not followed), never a FIFO or a
/// device ([`crate::spec::load::open_regular`]).
///
/// # Errors
/// What is wrong, without the path: `a symbolic link; not followed`, or `cannot read it: ...`.
pub fn open_beside(path: &std::path::Path) -> Result<std::fs::File, String> {
    crate::spec::load::open_regular(path, true).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => "a symbolic link; not followed".to_string(),
        _ => format!("cannot read it: {e}"),
    })
}
