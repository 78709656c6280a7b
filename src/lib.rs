//! wkrun: a declarative storage workload-spec runner.
//!
//! The pipeline, one module per stage: [`spec`] (parse and validate a TOML spec) → [`plan`] (resolve it
//! against one [`target`]) → [`engine`] (issue the [`ops`] stream's I/O with [`data`]) → [`stats`] (measure) →
//! [`results`] (write). [`run`] drives the stages for a whole spec; [`verify`] stamps written sectors and
//! checks them when read back.
#![deny(unsafe_code)]
#![warn(missing_docs)]
// Spec errors carry their location and source line; they are built at most once per run, off the I/O path.
#![allow(clippy::result_large_err)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod buf;
pub mod data;
pub mod engine;
pub mod fio;
pub mod image;
pub mod launch;
pub mod library;
pub mod ops;
pub mod plan;
pub mod predict;
pub mod report;
pub mod results;
pub mod run;
pub mod sim;
pub mod spec;
pub mod stamp;
pub mod stats;
pub mod sys;
pub mod target;
pub mod text;
pub mod units;
pub mod verify;
pub mod vocab;
