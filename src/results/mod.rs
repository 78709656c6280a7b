//! Results: the `results.json` document ([`model`]), the per-phase series CSV ([`series_csv`]), atomic writing
//! ([`mod@write`]), the JSON Schemas themselves ([`schema`]), a phase's headline figures ([`headline`]), and
//! the output folder everything is written into ([`outdir`]).

pub mod balance;
pub mod check;
pub mod cluster;
pub mod counters;
pub mod headline;
pub mod hlog;
pub mod judge;
pub mod knee;
pub mod model;
pub mod outdir;
pub mod pretty;
pub mod rounds;
pub mod schema;
pub mod search;
pub mod series_csv;
pub mod trace_csv;
pub mod write;

pub use crate::vocab::{KeptWaits, RoundVerdict, WaitsProbe, WaitsRound};
pub use cluster::*;
pub use counters::{CpuResult, KernelResult, RunHealth};
pub use model::*;
