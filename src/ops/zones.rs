//! Zone-aware writes (`zone_mode = "zbd"`, fio's `zonemode=zbd`): each write of the op stream goes to the
//! write pointer of the zone its offset falls in, so a random stream writes random zones, each sequentially,
//! and a sequential stream fills the zones in order. A zone whose write pointer has reached its capacity is
//! reset before it is written again. One writer with one I/O in flight (the plan makes sure), so a write is
//! placed once the one before it completed and a reset never overtakes a write.

use super::Op;
use crate::vocab::Direction;
use std::sync::Mutex;

/// Resets the zone `[start, start + len)` bytes of the device.
pub type ResetZone = Box<dyn Fn(u64, u64) -> std::io::Result<()> + Send + Sync>;

/// The zones of a phase's span and their write pointers, shared by the claims of its op stream.
pub struct ZoneWrites {
    span_start: u64,
    zone_size: u64,
    reset: ResetZone,
    state: Mutex<ZoneState>,
}

struct ZoneState {
    /// Per zone of the span: bytes it can hold.
    capacity: Vec<u64>,
    /// Per zone: bytes written since its last reset (its write pointer less its start).
    written: Vec<u64>,
    /// Per zone: whether the phase wrote it.
    touched: Vec<bool>,
    resets: u64,
    error: Option<String>,
}

/// What a phase's zone-aware writes did to the zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ZoneCounts {
    /// Zones of the span.
    pub zones: u64,
    /// Zones the phase wrote at least once.
    pub written: u64,
    /// Zone resets the phase issued (a full zone about to be written again).
    pub resets: u64,
}

impl ZoneWrites {
    /// The zones of the span from `span_start`, `zone_size` bytes each, with each zone's capacity and bytes
    /// written as the device reported them when the phase began; `reset` resets one zone.
    pub fn new(
        span_start: u64,
        zone_size: u64,
        zones: &[(u64, u64)],
        reset: ResetZone,
    ) -> ZoneWrites {
        ZoneWrites {
            span_start,
            zone_size: zone_size.max(1),
            reset,
            state: Mutex::new(ZoneState {
                capacity: zones.iter().map(|z| z.0).collect(),
                written: zones.iter().map(|z| z.1.min(z.0)).collect(),
                touched: vec![false; zones.len()],
                resets: 0,
                error: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ZoneState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `op` placed: a write moved to the write pointer of its zone (the zone reset first when full); a read
    /// as it is. `None` once a reset has failed (the stream ends; [`ZoneWrites::error`] says why).
    pub fn place(&self, op: Op) -> Option<Op> {
        let mut s = self.lock();
        if s.error.is_some() {
            return None;
        }
        if op.dir == Direction::Read {
            return Some(op);
        }
        let z = ((op.offset - self.span_start) / self.zone_size) as usize;
        let start = self.span_start + z as u64 * self.zone_size;
        let (cap, len) = (*s.capacity.get(z)?, u64::from(op.len));
        if s.written[z] + len > cap {
            if let Err(e) = (self.reset)(start, self.zone_size) {
                s.error = Some(format!(
                    "cannot reset zone {z} of the span (bytes {start} to {}) to write it again: {e}",
                    start + self.zone_size
                ));
                return None;
            }
            s.written[z] = 0;
            s.resets += 1;
        }
        let offset = start + s.written[z];
        s.written[z] += len;
        s.touched[z] = true;
        Some(Op { offset, ..op })
    }

    /// What the writes did so far.
    pub fn counts(&self) -> ZoneCounts {
        let s = self.lock();
        ZoneCounts {
            zones: s.capacity.len() as u64,
            written: s.touched.iter().filter(|&&t| t).count() as u64,
            resets: s.resets,
        }
    }

    /// Why a zone could not be reset, if one could not.
    pub fn error(&self) -> Option<String> {
        self.lock().error.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn write(index: u64, offset: u64) -> Op {
        Op {
            index,
            dir: Direction::Write,
            offset,
            len: 4096,
        }
    }

    #[test]
    fn writes_go_to_write_pointers_and_full_zones_are_reset() {
        let resets = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&resets);
        // Two zones of 16 KiB from byte 65536: zone 0 empty, zone 1 holding 12 KiB.
        let z = ZoneWrites::new(
            65536,
            16384,
            &[(16384, 0), (16384, 12288)],
            Box::new(move |s, l| {
                seen.lock().unwrap().push((s, l));
                Ok(())
            }),
        );
        let placed: Vec<u64> = [
            65536 + 12288,
            65536 + 16384,
            65536 + 20480,
            65536,
            65536 + 4096,
        ]
        .iter()
        .enumerate()
        .map(|(i, &o)| z.place(write(i as u64, o)).unwrap().offset)
        .collect();
        // Zone 0 at its pointer (0), zone 1 at 12288, then full: reset, written from its start.
        assert_eq!(
            placed,
            [65536, 81920 + 12288, 81920, 65536 + 4096, 65536 + 8192]
        );
        assert_eq!(*resets.lock().unwrap(), [(81920, 16384)]);
        assert_eq!(
            z.counts(),
            ZoneCounts {
                zones: 2,
                written: 2,
                resets: 1
            }
        );
        let read = Op {
            dir: Direction::Read,
            ..write(9, 81920 + 8192)
        };
        assert_eq!(z.place(read), Some(read));
    }

    #[test]
    fn a_failed_reset_ends_the_stream() {
        let z = ZoneWrites::new(
            0,
            8192,
            &[(8192, 8192)],
            Box::new(|_, _| Err(std::io::Error::from_raw_os_error(libc::EIO))),
        );
        assert_eq!(z.place(write(0, 0)), None);
        assert_eq!(z.place(write(1, 4096)), None);
        assert_eq!(
            z.error().as_deref(),
            Some(
                "cannot reset zone 0 of the span (bytes 0 to 8192) to write it again: Input/output error (os error 5)"
            )
        );
        assert_eq!(z.counts().resets, 0);
    }
}
