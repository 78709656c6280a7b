//! fio's latency histogram as its `json+` output shows it (`bins`: a bucket's value in ns → its count), the
//! one statement of its bucket arithmetic in wkrun: what latencies a bin's key stands for ([`bucket`]) and
//! the percentile fio reports from the bins ([`percentile`]).
//!
//! Read from fio's documentation and its outputs (tests/data/fio/measure.py measured it on 247 real fio 3.33
//! json+ outputs): below 128 ns a key is one latency; from 2^m ns up (m ≥ 7) each doubling is cut into 64
//! buckets of 2^(m − 6) ns, and a key is its bucket's lowest latency plus half its width; the last bucket,
//! from about 17.1 s up, holds every latency past it. A percentile q is the key of the first bucket (by
//! value) at which the running count reaches q % of the latencies.

/// The value of fio's last bucket (2^33 + 63.5 × 2^27 ns, about 17.1 s): it holds every latency from its
/// lowest up, so it has no highest.
pub const TOP: u64 = (1 << 33) + 127 * (1 << 26);

/// The latencies (ns, lowest and highest, both included) of the bucket whose key is `v`; `None` when `v`
/// is no bucket's key (fio writes none such).
pub fn bucket(v: u64) -> Option<(u64, u64)> {
    if v < 128 {
        return Some((v, v));
    }
    let m = 63 - u64::from(v.leading_zeros());
    let width = 1u64 << (m - 6);
    if (v - (1 << m)) % width != width / 2 || v > TOP {
        return None;
    }
    let low = v - width / 2;
    Some((low, if v == TOP { u64::MAX } else { low + width - 1 }))
}

/// fio's percentile `q` (in %) of the bins `bins` (`[key, count]` by key, as [`crate::fio::json`] reads
/// them): the key of the first bucket at which the running count reaches q % of their sum; `None` without
/// latencies.
pub fn percentile(bins: &[[u64; 2]], q: f64) -> Option<u64> {
    let n: u64 = bins.iter().fold(0u64, |n, b| n.saturating_add(b[1]));
    let want = ((q / 100.0) * n as f64).ceil().max(1.0) as u64;
    let mut seen = 0u64;
    bins.iter().find_map(|b| {
        seen = seen.saturating_add(b[1]);
        (seen >= want).then_some(b[0])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys from fio 3.33's json+ output (tests/data/fio): a latency below 128 ns is its own bucket; 26752
    /// (the bucket of a read's min, 26772) spans 26624 to 26879; 129 is 128's and 129's; a key off a
    /// bucket's middle is none; the top bucket has no highest.
    #[test]
    fn buckets_as_fio_shows_them() {
        assert_eq!(bucket(0), Some((0, 0)));
        assert_eq!(bucket(127), Some((127, 127)));
        assert_eq!(bucket(129), Some((128, 129)));
        assert_eq!(bucket(128), None);
        assert_eq!(bucket(26752), Some((26624, 26879)));
        assert_eq!(bucket(26753), None);
        assert_eq!(bucket(57088), Some((56832, 57343)));
        assert_eq!(TOP, 17_112_760_320);
        assert_eq!(bucket(TOP), Some((17_045_651_456, u64::MAX)));
        assert_eq!(bucket(TOP + (1 << 27)), None);
    }

    /// Ten latencies: p50 is the bucket where the count reaches 5, p90 where it reaches 9, p99 and p100
    /// the last; p0.01 the first.
    #[test]
    fn percentile_is_the_first_bucket_reaching_the_share() {
        let bins = [[100, 4], [129, 1], [131, 4], [26752, 1]];
        assert_eq!(percentile(&bins, 50.0), Some(129));
        assert_eq!(percentile(&bins, 40.0), Some(100));
        assert_eq!(percentile(&bins, 90.0), Some(131));
        assert_eq!(percentile(&bins, 99.0), Some(26752));
        assert_eq!(percentile(&bins, 100.0), Some(26752));
        assert_eq!(percentile(&bins, 0.01), Some(100));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
