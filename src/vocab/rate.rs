//! The `rate_iops` key: a cap on I/Os per second, over every I/O, trims too (`rate_iops = 5000`), or per
//! direction (`rate_iops = { read = 3500, write = 1500 }`, trims uncapped), with evenly spaced issue times.

use schemars::JsonSchema;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The highest cap `rate_iops` takes, 2^32 I/Os per second (an I/O every 0.23 ns): far above what any
/// device does, and well inside the signed 64-bit integers results are read back as (trial 28 F5: a cap of
/// 2^63 ran, then its results could not be read).
pub const MAX_RATE: u64 = 1 << 32;

/// A rate cap in I/Os per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    /// Cap over every I/O, reads, writes and trims together (op i of the run issued no earlier than i / total s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = MAX_RATE))]
    pub total: Option<u64>,
    /// Cap on reads (the j-th read issued no earlier than j / read s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = MAX_RATE))]
    pub read: Option<u64>,
    /// Cap on writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = MAX_RATE))]
    pub write: Option<u64>,
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Rate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("I/Os per second: an integer, or { read = N, write = M, total = T }")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Rate, E> {
                let v = u64::try_from(v)
                    .map_err(|_| E::custom(format!("rate_iops {v} is negative")))?;
                Ok(Rate {
                    total: Some(v),
                    read: None,
                    write: None,
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Rate, E> {
                Ok(Rate {
                    total: Some(v),
                    read: None,
                    write: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Rate, A::Error> {
                use serde::de::Error;
                let mut r = Rate {
                    total: None,
                    read: None,
                    write: None,
                };
                while let Some(k) = m.next_key::<String>()? {
                    let v: i64 = m.next_value()?;
                    let v = u64::try_from(v).map_err(|_| {
                        A::Error::custom(format!("rate_iops.{k} = {v} is negative"))
                    })?;
                    match k.as_str() {
                        "read" => r.read = Some(v),
                        "write" => r.write = Some(v),
                        "total" => r.total = Some(v),
                        _ => return Err(A::Error::unknown_field(&k, &["read", "write", "total"])),
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_any(V)
    }
}

impl Rate {
    /// The cap on direction `d` alone (none on trims: the key has no `trim`).
    pub fn of(&self, d: super::Direction) -> Option<u64> {
        match d {
            super::Direction::Read => self.read,
            super::Direction::Write => self.write,
            super::Direction::Trim => None,
        }
    }

    /// Whether the cap caps nothing (`rate_iops = {}`).
    pub fn is_empty(&self) -> bool {
        [self.total, self.read, self.write] == [None; 3]
    }

    /// The first cap above [`MAX_RATE`], with its key (`rate_iops`, `rate_iops.read`).
    pub fn over_max(&self) -> Option<(&'static str, u64)> {
        [
            ("rate_iops", self.total),
            ("rate_iops.read", self.read),
            ("rate_iops.write", self.write),
        ]
        .into_iter()
        .find_map(|(k, v)| v.filter(|&n| n > MAX_RATE).map(|n| (k, n)))
    }

    /// Whether any cap is 0 (nothing would be issued).
    pub fn has_zero(&self) -> bool {
        [self.total, self.read, self.write].contains(&Some(0))
    }

    /// What the cap does on a phase of `read_percent` % reads and `trim_percent` % trims (the rest
    /// writes): a direction's cap where the phase issues none of that direction does nothing and is left
    /// out; where reads, or writes, are every I/O of the phase, their cap and the total cap are one cap,
    /// the lower, given as the total; with no trims, a read and a write cap in the read share are the total
    /// cap of their sum. Two caps that do the same are then equal: `{ read = 2000 }` and `2000` on a phase
    /// of reads only (fio's `rate_iops=2000` of a read job beside wkrun's, trial 27 L2); `{ read = 250,
    /// write = 250 }` and `500` at 50 % reads (trial 27 M3).
    /// A direction's cap that the total cap keeps its direction under ([`Rate::kept_under_total`]) does
    /// nothing and is left out first (attack 29 F4: `{ read = 300, write = 300, total = 400 }` at 70 % reads
    /// runs as `400`).
    pub fn acting_on(&self, read_percent: u8, trim_percent: u8) -> Rate {
        let read = read_percent.min(100);
        let write = 100 - read - trim_percent.min(100 - read);
        let this = self.kept_under_total(read, write);
        let read_cap = this.read.filter(|_| read > 0);
        let write_cap = this.write.filter(|_| write > 0);
        let only = match (read, write) {
            (100, _) => Some(read_cap),
            (_, 100) => Some(write_cap),
            _ => None,
        };
        match only {
            Some(dir) => Rate {
                total: [this.total, dir].into_iter().flatten().min(),
                read: None,
                write: None,
            },
            None => match (this.total, read_cap, write_cap) {
                // Reads capped at R and writes at W in the read share, with no trims, are a total cap of
                // R + W (fio caps each direction: a total cap's export reads back so, trial 27 M3).
                (None, Some(r), Some(w))
                    if trim_percent == 0
                        && u128::from(r) * u128::from(100 - read)
                            == u128::from(w) * u128::from(read) =>
                {
                    Rate {
                        total: r.checked_add(w),
                        read: r.checked_add(w).map_or(Some(r), |_| None),
                        write: r.checked_add(w).map_or(Some(w), |_| None),
                    }
                }
                _ => Rate {
                    total: this.total,
                    read: read_cap,
                    write: write_cap,
                },
            },
        }
    }

    /// The caps at a stream of `read` % reads and `write` % writes (the rest trims) as [`Cap`]s, in the order
    /// total, read, write; a direction the stream never issues is left out (it is never behind).
    pub fn caps_at(&self, read: u8, write: u8) -> Vec<Cap> {
        use super::Direction;
        [
            (None, self.total, 100),
            (Some(Direction::Read), self.read, u64::from(read)),
            (Some(Direction::Write), self.write, u64::from(write)),
        ]
        .into_iter()
        .filter_map(|(d, cap, share)| Some((d, cap?, share)).filter(|c| c.2 > 0))
        .collect()
    }

    /// The cap without the direction caps its total cap keeps their directions under at a stream of `read` %
    /// reads and `write` % writes: the total's rate over 100 is not above such a cap's over its share
    /// ([`pace_of`] of the two is the total), so the direction never gets more than its cap and the cap
    /// never delays an I/O (`{ read = 300, write = 300, total = 400 }` at 70 % reads: reads 280/s, writes
    /// 120/s, as under `400`). Without a total cap, the cap as it is.
    pub fn kept_under_total(&self, read: u8, write: u8) -> Rate {
        let caps = self.caps_at(read, write);
        let Some(&total) = caps.iter().find(|c| c.0.is_none()) else {
            return *self;
        };
        let binds = |d: super::Direction| {
            caps.iter()
                .find(|c| c.0 == Some(d))
                .is_some_and(|&c| pace_of(&[total, c]).is_some_and(|p| p.0.is_some()))
        };
        Rate {
            total: self.total,
            read: self.read.filter(|_| binds(super::Direction::Read)),
            write: self.write.filter(|_| binds(super::Direction::Write)),
        }
    }
}

/// A rate cap as the stream's pace sees it: the capped direction (`None` for the `total` cap), the cap in
/// I/Os per second, and the direction's share of the stream in percent (100 for the total).
pub type Cap = (Option<super::Direction>, u64, u64);

/// The cap that paces the stream among `caps` ([`Rate::caps_at`]): the lowest cap / share (compared as
/// cap_a * share_b < cap_b * share_a; the first of equal ones, the total before a direction's), as
/// (direction, cap, share); every direction then gets the cap × its share / that share.
pub fn pace_of(caps: &[Cap]) -> Option<Cap> {
    caps.iter()
        .min_by(|a, b| (a.1 as u128 * b.2 as u128).cmp(&(b.1 as u128 * a.2 as u128)))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::Rate;

    /// A cap of `total`, `read`, `write`.
    fn cap(total: Option<u64>, read: Option<u64>, write: Option<u64>) -> Rate {
        Rate { total, read, write }
    }

    /// Attack 28 F5: 2^32 I/Os per second is the highest cap; `{}` caps nothing.
    #[test]
    fn the_highest_cap_and_the_empty_cap() {
        let top = super::MAX_RATE;
        assert_eq!(top, 4_294_967_296);
        assert_eq!(cap(Some(top), Some(top), Some(top)).over_max(), None);
        assert_eq!(
            cap(Some(5), None, Some(top + 1)).over_max(),
            Some(("rate_iops.write", top + 1))
        );
        assert_eq!(
            cap(Some(u64::MAX), Some(top + 1), None).over_max(),
            Some(("rate_iops", u64::MAX))
        );
        assert!(cap(None, None, None).is_empty());
        assert!(!cap(None, Some(1), None).is_empty());
    }

    #[test]
    fn caps_compare_by_what_they_do_on_the_phases_directions() {
        // With no trims, a read and a write cap in the read share are a total cap of their sum.
        assert_eq!(
            cap(None, Some(250), Some(250)).acting_on(50, 0),
            cap(Some(500), None, None)
        );
        assert_eq!(
            cap(None, Some(350), Some(150)).acting_on(70, 0),
            cap(Some(500), None, None)
        );
        assert_eq!(
            cap(None, Some(250), Some(250)).acting_on(70, 0),
            cap(None, Some(250), Some(250))
        );
        assert_eq!(
            cap(None, Some(250), Some(250)).acting_on(50, 10),
            cap(None, Some(250), Some(250))
        );
        let total = |n| cap(Some(n), None, None);
        // Reads only: the read cap is the total cap; a write cap does nothing.
        assert_eq!(cap(None, Some(2000), None).acting_on(100, 0), total(2000));
        assert_eq!(
            cap(None, Some(2000), Some(5)).acting_on(100, 0),
            total(2000)
        );
        assert_eq!(
            cap(Some(900), Some(2000), None).acting_on(100, 0),
            total(900)
        );
        // Writes only, likewise.
        assert_eq!(cap(None, None, Some(700)).acting_on(0, 0), total(700));
        assert_eq!(
            cap(Some(300), Some(1), Some(700)).acting_on(0, 0),
            total(300)
        );
        // A mix keeps each direction's cap; a direction it never issues loses its own.
        let both = cap(None, Some(2000), Some(500));
        assert_eq!(both.acting_on(70, 0), both);
        assert_eq!(both.acting_on(70, 30), cap(None, Some(2000), None));
        // Reads and trims: the total counts the trims too, so a read cap is not the total.
        assert_eq!(
            cap(None, Some(2000), None).acting_on(80, 20),
            cap(None, Some(2000), None)
        );
        assert_eq!(total(2000).acting_on(80, 20), total(2000));
    }

    /// Attack 29 F4: direction caps the total keeps under never delay an I/O, so they compare as absent:
    /// `{ read = 300, write = 300, total = 400 }` at 70 % reads runs as `400` (280 reads/s, 120 writes/s)
    /// and as fio's `rate_iops=280,120`. A direction cap below the total's rate over its share binds.
    #[test]
    fn direction_caps_the_total_keeps_under_are_absent() {
        let total = |n| cap(Some(n), None, None);
        let dirs = cap(Some(400), Some(300), Some(300));
        assert_eq!(dirs.kept_under_total(70, 30), total(400));
        assert_eq!(dirs.acting_on(70, 0), total(400));
        assert_eq!(total(400).acting_on(70, 0), total(400));
        assert_eq!(cap(None, Some(280), Some(120)).acting_on(70, 0), total(400));
        // Equal to the total's rate over the share: kept under (280 = 400 × 70 %).
        assert_eq!(cap(Some(400), Some(280), None).acting_on(70, 0), total(400));
        // One below it binds: reads 279 of the total's 280.
        let read = cap(Some(400), Some(279), Some(300));
        assert_eq!(
            read.kept_under_total(70, 30),
            cap(Some(400), Some(279), None)
        );
        assert_eq!(read.acting_on(70, 0), cap(Some(400), Some(279), None));
        // With trims: reads 50 %, writes 30 %: 300 reads/s is above 200, 100 writes/s below 120.
        let trims = cap(Some(400), Some(300), Some(100));
        assert_eq!(trims.acting_on(50, 20), cap(Some(400), None, Some(100)));
        // Without a total, nothing is kept under it.
        let none = cap(None, Some(300), Some(5));
        assert_eq!(none.kept_under_total(70, 30), none);
        assert_eq!(
            super::pace_of(&none.caps_at(70, 30)),
            Some((Some(super::super::Direction::Write), 5, 30))
        );
    }
}
