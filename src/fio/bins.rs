//! fio's latency histogram as its `json+` output shows it (`bins`: a bucket's value in ns → its count), the
//! one statement of its bucket arithmetic in wkrun: what latencies a bin's key stands for ([`bucket`]) and
//! the percentile fio reports from the bins ([`percentile`]).
//!
//! Read from fio's documentation and its outputs (tests/data/fio/measure.py measured it on 247 real fio 3.33
//! json+ outputs): below 128 ns a key is one latency; from 2^m ns up (m ≥ 7) each doubling is cut into 64
//! buckets of 2^(m − 6) ns, and a key is its bucket's lowest latency plus half its width; the last bucket,
//! from about 17.1 s up, holds every latency past it. A percentile q is the key of the first bucket (by
//! value) at which the running count reaches q % of the latencies, q % worked as fio works it ([`rank`]).

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
/// them): the key of the first bucket at which the running count reaches q % of their sum ([`rank`]);
/// `None` without latencies.
pub fn percentile(bins: &[[u64; 2]], q: f64) -> Option<u64> {
    let n: u64 = bins.iter().fold(0u64, |n, b| n.saturating_add(b[1]));
    let want = rank(q, n);
    let mut seen = 0u64;
    bins.iter().find_map(|b| {
        seen = seen.saturating_add(b[1]);
        (seen >= want).then_some(b[0])
    })
}

/// The running count fio 3.33 (x86-64) needs for its percentile `q` (in %) of `n` latencies: the least
/// whole count at or above q / 100 × n worked in the x87 80-bit `long double` (64-bit significand, each
/// step rounded to nearest, ties to even): q / 100 first, then × n. The rounding can leave the share a
/// hair above a whole count where plain `f64` lands on it exactly: 99.95 % of 2000 is 1999 in `f64` but
/// needs all 2000 in fio. At least 1; `q` not in (0, 1e300) is taken as `f64` arithmetic gives it.
pub fn rank(q: f64, n: u64) -> u64 {
    if !(q > 1e-300 && q < 1e300) {
        return ((q / 100.0) * n as f64).ceil().max(1.0) as u64;
    }
    let bits = q.to_bits();
    let (m, e) = (
        u128::from(bits & ((1 << 52) - 1) | 1 << 52),
        ((bits >> 52) & 0x7ff) as i64 - 1075,
    );
    // q / 100 = (m << 20) / 100 × 2^(e − 20), its quotient 66 or 67 bits long: rounded to 64.
    let (quot, rem) = ((m << 20) / 100, (m << 20) % 100);
    let (share, k) = round64(quot, rem != 0);
    let (prod, k2) = round64(share * u128::from(n), false);
    let k = e - 20 + k + k2;
    let whole = if k >= 0 {
        u32::try_from(k)
            .ok()
            .and_then(|k| prod.checked_shl(k))
            .filter(|w| w >> k == prod)
            .unwrap_or(u128::MAX)
    } else if k <= -128 {
        u128::from(prod != 0)
    } else {
        let sh = k.unsigned_abs() as u32;
        (prod >> sh) + u128::from(prod & ((1 << sh) - 1) != 0)
    };
    u64::try_from(whole).unwrap_or(u64::MAX).max(1)
}

/// `x` (and `sticky`: nonzero bits below it) rounded to a 64-bit significand, to nearest, ties to even:
/// `(s, d)` with x ≈ s × 2^d.
fn round64(x: u128, sticky: bool) -> (u128, i64) {
    let len = 128 - x.leading_zeros();
    if len <= 64 {
        return (x, 0);
    }
    let d = len - 64;
    let (mut s, dropped, half) = (x >> d, x & ((1 << d) - 1), 1u128 << (d - 1));
    if dropped > half || (dropped == half && (sticky || s & 1 == 1)) {
        s += 1;
    }
    if s >> 64 == 1 {
        return (s >> 1, i64::from(d) + 1);
    }
    (s, i64::from(d))
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

    /// The ranks fio needs, as a C program on x86-64 works them in `long double` (the one fio 3.33 is
    /// built with): 99.95 % of 2000 needs all 2000 (real fio 3.33: tests/data/fio/fio-3.33-rate500-json+.json),
    /// 30 % of 100 needs 31, 0.01 % of 10000 needs 2; where the rounding lands low or exact, the plain
    /// count (99 % of 1000: 990; 50 % of 10: 5). 99.9 % of 1000 needs all 1000.
    #[test]
    fn rank_as_fio_works_it_in_long_double() {
        let cases = [
            (99.95, 2000, 2000),
            (99.95, 4000, 3999),
            (99.95, 10000, 9996),
            (99.95, 3_000_000_000, 2_998_500_001),
            (30.0, 100, 31),
            (60.0, 3000, 1801),
            (0.01, 10000, 2),
            (0.01, 3_000_000_000, 300_001),
            (99.0, 1000, 990),
            (99.9, 1000, 1000),
            (99.9, 2000, 1999),
            (99.99, 10000, 9999),
            (50.0, 10, 5),
            (100.0, 7, 7),
            (1.0, 3, 1),
            (0.0, 10, 1),
        ];
        for (q, n, want) in cases {
            assert_eq!(rank(q, n), want, "{q} % of {n}");
        }
    }

    /// Every rank of tests/data/fio/long_double_ranks.txt (420: 21 shares × 20 counts), which
    /// tests/data/fio/long_double_ranks.c printed from x86-64 `long double` arithmetic (gcc).
    #[test]
    fn rank_matches_c_long_double() {
        let text = include_str!("../../tests/data/fio/long_double_ranks.txt");
        let mut rows = 0;
        for line in text.lines() {
            let v: Vec<&str> = line.split(' ').collect();
            let (q, n, want) = (
                v[0].parse::<f64>().unwrap(),
                v[1].parse::<u64>().unwrap(),
                v[2].parse::<u64>().unwrap(),
            );
            assert_eq!(rank(q, n), want, "{line}");
            rows += 1;
        }
        assert_eq!(rows, 420);
    }
}
