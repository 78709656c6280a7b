//! Results: the `results.json` document ([`model`]), the per-phase series CSV ([`series_csv`]), atomic writing
//! ([`mod@write`]), the JSON Schemas themselves ([`schema`]), and
//! the output folder everything is written into ([`outdir`]).

pub mod model;
pub mod outdir;
pub mod schema;
pub mod series_csv;
pub mod write;

pub use model::*;
