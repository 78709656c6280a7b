//! How much of a span a phase touched (case C06): exact for sequential and full-coverage random orders,
//! the expectation for uniform random offsets (which hit some blocks twice and others never).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The share of a span's blocks that a phase's I/Os touched.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// Blocks touched / blocks in the span, 0..=1.
    #[schemars(range(min = 0, max = 1))]
    pub fraction: f64,
    /// True when `fraction` is exact (sequential, or random with `coverage = "full"`); false when it is the
    /// expected value for random offsets: `1 − (1 − 1/n)^k` for k uniform I/Os over n blocks, and under a
    /// skewed `distribution` the mean of `1 − (1 − pᵢ)^k` over the blocks' probabilities pᵢ
    /// (`ops::dist::expected_coverage`).
    pub exact: bool,
}

/// Coverage of `ops` I/Os over `blocks` blocks; `each_once` when no block is visited twice before all were
/// visited once (sequential, full coverage).
pub fn coverage(blocks: u64, ops: u64, each_once: bool) -> Coverage {
    if blocks == 0 {
        return Coverage {
            fraction: 0.0,
            exact: true,
        };
    }
    if each_once {
        return Coverage {
            fraction: ops.min(blocks) as f64 / blocks as f64,
            exact: true,
        };
    }
    let n = blocks as f64;
    // (1 - 1/n)^k = exp(k · ln(1 - 1/n)), computed with ln_1p for large n.
    let miss = (ops as f64 * (-1.0 / n).ln_1p()).exp();
    Coverage {
        fraction: (1.0 - miss).clamp(0.0, 1.0),
        exact: false,
    }
}

#[cfg(test)]
mod tests {
    use super::coverage;

    #[test]
    fn c06_exact_and_expected() {
        assert_eq!(coverage(2048, 2048, true).fraction, 1.0);
        assert_eq!(coverage(2048, 1024, true).fraction, 0.5);
        assert_eq!(coverage(2048, 5000, true).fraction, 1.0);
        let c = coverage(2048, 2048, false);
        assert!(
            !c.exact && (c.fraction - (1.0 - (-1.0f64).exp())).abs() < 1e-3,
            "{c:?}"
        );
        assert_eq!(coverage(0, 10, false).fraction, 0.0);
    }
}
