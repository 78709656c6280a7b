//! Measurement: latency distributions ([`latency`]) and the per-interval series ([`interval`]); computed
//! from a series: steady state and leaving it ([`steady`]), window statistics and aggregates ([`window`]), the
//! figures a phase's `headline` asks for ([`derived`]).
//! Workers record into their own, unshared structures; the results are merged once per interval and at the end.

pub mod coverage;
pub mod derived;
pub mod interval;
pub mod kernel;
pub mod latency;
pub mod row_latency;
pub mod steady;
pub mod trace;
pub mod window;

pub use interval::{DirInterval, IntervalClock, IntervalCounts, Series};
pub use latency::{LatencyMoments, LatencyRecorder, LatencySummary, SomePercentiles};

/// Default interval of the per-interval series: 1 s, in ns.
pub const DEFAULT_INTERVAL_NS: u64 = 1_000_000_000;

/// Most rows a phase's series may have (duration / interval).
pub const MAX_INTERVALS: u64 = 10_000_000;
