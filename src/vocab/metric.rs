//! The figures of a phase's result that a block of rounds can track (`[[repeat]]`'s `track.metric`) and that
//! its measurement window reports per cell: one definition for the spec (the names a spec may give, their
//! documentation in the schema), the plan, the results (`round_blocks[].cells[].figures`) and the runner.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Direction;

/// A figure of one phase's result: a direction's (or both directions') I/Os per second, bytes per second,
/// or mean or largest latency, as `results.json` gives them in `phases[].total`, `read` and `write`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum Metric {
    /// Reads and writes per second together (`total.iops`).
    Iops,
    /// Reads per second (`read.iops`).
    ReadIops,
    /// Writes per second (`write.iops`): the PTS IOPS test's tracking variable, of its 4 KiB 100 %-write cell.
    WriteIops,
    /// Bytes read and written per second (`total.bw_bytes_per_s`).
    BwBytesPerS,
    /// Bytes read per second (`read.bw_bytes_per_s`).
    ReadBwBytesPerS,
    /// Bytes written per second (`write.bw_bytes_per_s`).
    WriteBwBytesPerS,
    /// Mean latency of every I/O, ns (`total.latency_ns.mean`; 0 for a phase without I/O).
    LatMeanNs,
    /// Mean read latency, ns (`read.latency_ns.mean`).
    ReadLatMeanNs,
    /// Mean write latency, ns (`write.latency_ns.mean`).
    WriteLatMeanNs,
    /// Largest latency of any I/O, ns (`total.latency_ns.max`).
    LatMaxNs,
    /// Largest read latency, ns (`read.latency_ns.max`).
    ReadLatMaxNs,
    /// Largest write latency, ns (`write.latency_ns.max`).
    WriteLatMaxNs,
}

/// What a [`Metric`] measures of its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// I/Os per second.
    Iops,
    /// Bytes per second.
    BwBytesPerS,
    /// Mean latency, ns.
    LatMeanNs,
    /// Largest latency, ns.
    LatMaxNs,
}

impl Metric {
    /// Every metric, in the order results list them.
    pub const ALL: [Metric; 12] = [
        Metric::Iops,
        Metric::ReadIops,
        Metric::WriteIops,
        Metric::BwBytesPerS,
        Metric::ReadBwBytesPerS,
        Metric::WriteBwBytesPerS,
        Metric::LatMeanNs,
        Metric::ReadLatMeanNs,
        Metric::WriteLatMeanNs,
        Metric::LatMaxNs,
        Metric::ReadLatMaxNs,
        Metric::WriteLatMaxNs,
    ];

    /// The direction (`None`: reads and writes together) and the quantity.
    pub fn parts(self) -> (Option<Direction>, Quantity) {
        use {Metric as M, Quantity as Q};
        const T: Option<Direction> = None;
        const R: Option<Direction> = Some(Direction::Read);
        const W: Option<Direction> = Some(Direction::Write);
        match self {
            M::Iops => (T, Q::Iops),
            M::ReadIops => (R, Q::Iops),
            M::WriteIops => (W, Q::Iops),
            M::BwBytesPerS => (T, Q::BwBytesPerS),
            M::ReadBwBytesPerS => (R, Q::BwBytesPerS),
            M::WriteBwBytesPerS => (W, Q::BwBytesPerS),
            M::LatMeanNs => (T, Q::LatMeanNs),
            M::ReadLatMeanNs => (R, Q::LatMeanNs),
            M::WriteLatMeanNs => (W, Q::LatMeanNs),
            M::LatMaxNs => (T, Q::LatMaxNs),
            M::ReadLatMaxNs => (R, Q::LatMaxNs),
            M::WriteLatMaxNs => (W, Q::LatMaxNs),
        }
    }

    /// The spelling in specs and results (`"write_iops"`).
    pub fn as_str(self) -> &'static str {
        use Metric as M;
        match self {
            M::Iops => "iops",
            M::ReadIops => "read_iops",
            M::WriteIops => "write_iops",
            M::BwBytesPerS => "bw_bytes_per_s",
            M::ReadBwBytesPerS => "read_bw_bytes_per_s",
            M::WriteBwBytesPerS => "write_bw_bytes_per_s",
            M::LatMeanNs => "lat_mean_ns",
            M::ReadLatMeanNs => "read_lat_mean_ns",
            M::WriteLatMeanNs => "write_lat_mean_ns",
            M::LatMaxNs => "lat_max_ns",
            M::ReadLatMaxNs => "read_lat_max_ns",
            M::WriteLatMaxNs => "write_lat_max_ns",
        }
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

super::string_only!(Metric);

#[cfg(test)]
mod tests {
    use super::Metric;

    /// The spelling serde writes is `as_str`'s, for every metric.
    #[test]
    fn spelling_is_one() {
        for m in Metric::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
            let back: Metric = serde_json::from_value(m.as_str().into()).unwrap();
            assert_eq!(back, m);
        }
    }
}
