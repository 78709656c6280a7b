//! Results: the `results.json` document ([`model`]), the per-phase series CSV ([`series_csv`]), atomic writing
//! with validation against the results schema ([`mod@write`]) and the JSON Schemas themselves ([`schema`]).

pub mod model;
pub mod schema;
pub mod series_csv;
pub mod write;

pub use model::*;
