//! Integration tests: one binary, a module per area. Every test runs the real `wkrun` binary or library on
//! real files (and, as root, real loop devices) in a fresh temporary folder.

mod common;

mod bad_input;
mod blockdev;
mod bounds;
mod cases;
mod cautions;
mod cli;
mod compare;
mod diskfull;
mod engines;
mod failedwrites;
mod fiohabits;
mod headline;
mod hold;
mod hosts;
mod interrupt;
mod limits;
mod lines;
mod merged_judging;
mod methodology;
mod null_engine;
mod outdir;
mod phases;
mod prealloc;
mod progress;
mod report;
mod report_charts;
mod resources;
mod robust;
mod schema_sync;
mod series;
mod sim;
mod simgc;
mod spec_errors;
mod steady;
mod steady_after;
mod sweep_members;
mod sweep_set;
mod tail;
mod targets;
mod uring_wait;
mod verify;
mod workers;
mod workers_rules;
