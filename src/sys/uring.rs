//! io_uring (through the io-uring crate) behind a safe slot queue: [`UringQueue`] owns the ring, the target
//! as a registered file and one registered aligned buffer per slot (READ_FIXED / WRITE_FIXED), and waits for
//! every I/O in flight before the buffers can be freed. Registered buffers are pinned memory, counted against
//! RLIMIT_MEMLOCK for a process without CAP_IPC_LOCK: when registration fails for it (ENOMEM), the queue uses
//! the same buffers unregistered, with plain READ / WRITE ops, and says so ([`UringQueue::unregistered`]).

use super::limits::Limit;
use super::slots::SlotBufs;
use super::{Dir, Io};
use crate::buf::AlignedBuf;
use io_uring::{IoUring, opcode, squeue, types};
use std::io;
use std::os::fd::RawFd;

/// How the ring polls (the `polled` and `sq_poll` phase keys).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RingSetup {
    /// IORING_SETUP_IOPOLL: completions polled from the device's poll queue (needs O_DIRECT on a block
    /// device with poll queues).
    pub iopoll: bool,
    /// IORING_SETUP_SQPOLL: a kernel thread polls the submission ring.
    pub sqpoll: bool,
}

/// Milliseconds the submission polling thread spins idle before it sleeps (fio's `sqthread_poll` default).
const SQPOLL_IDLE_MS: u32 = 1000;

/// A ring with `depth` slots. `ring` is declared before `slots` so that, after `Drop::drop` has waited for
/// the I/Os in flight, the ring (and its buffer registration) goes before the buffers.
pub struct UringQueue {
    ring: IoUring,
    slots: SlotBufs,
    queued: usize,
    /// Why the buffers are not registered (their registration failed with ENOMEM); `None` when they are.
    unregistered: Option<io::Error>,
    /// Whether the kernel can wait a minimum time for more completions (IORING_FEAT_MIN_TIMEOUT, 6.12+).
    min_wait: bool,
}

impl UringQueue {
    /// A ring for one I/O per buffer of `bufs` (the slots, each with its buffer) on `fd`, with the buffers
    /// registered; when their registration fails with ENOMEM (RLIMIT_MEMLOCK), unregistered.
    ///
    /// # Errors
    /// The OS error of io_uring_setup (ENOMEM with the locked-memory limit named: before Linux 5.12 the ring
    /// itself counts against it) or of a registration (ENOSYS/EPERM where io_uring is disabled).
    pub fn new(fd: RawFd, bufs: Vec<AlignedBuf>) -> io::Result<UringQueue> {
        UringQueue::with_setup(fd, bufs, RingSetup::default())
    }

    /// [`UringQueue::new`] with a ring set up to poll as `setup` says.
    ///
    /// # Errors
    /// As [`UringQueue::new`].
    pub fn with_setup(
        fd: RawFd,
        bufs: Vec<AlignedBuf>,
        setup: RingSetup,
    ) -> io::Result<UringQueue> {
        let depth = bufs.len();
        let ring = new_ring((depth as u32).next_power_of_two().max(2), setup).map_err(|e| {
            if e.raw_os_error() != Some(libc::ENOMEM) {
                return e;
            }
            let msg = format!(
                "io_uring_setup: {}{}",
                super::os_text(&e),
                Limit::LockedMemory.note()
            );
            io::Error::new(e.kind(), msg)
        })?;
        ring.submitter().register_files(&[fd])?;
        let mut slots = SlotBufs::new(bufs);
        let iovecs: Vec<libc::iovec> = slots
            .all_mut()
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        // SAFETY: the buffers stay allocated (and are not moved: AlignedBuf is a heap allocation) until the ring
        // is dropped, which happens before them (field order) and after every I/O in flight completed (Drop).
        let unregistered = match unsafe { ring.submitter().register_buffers(&iovecs) } {
            Ok(()) => None,
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => Some(e),
            Err(e) => return Err(e),
        };
        let min_wait = ring.params().is_feature_min_timeout();
        Ok(UringQueue {
            ring,
            slots,
            queued: 0,
            unregistered,
            min_wait,
        })
    }

    /// Why the buffers are not registered (their registration failed with ENOMEM, as it does when they are
    /// more than RLIMIT_MEMLOCK allows), when they are not: the queue then issues plain reads and writes.
    pub fn unregistered(&self) -> Option<&io::Error> {
        self.unregistered.as_ref()
    }

    /// Bytes that registering `count` buffers of `len` bytes pins: whole 4 KiB pages of each (buffers are
    /// page-aligned), counted against RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK.
    pub fn registration_bytes(count: u64, len: u64) -> u64 {
        count.saturating_mul(len.div_ceil(4096).saturating_mul(4096))
    }

    /// The buffer of an idle slot, to fill before a write. `None` while the slot's I/O is in flight.
    pub fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.slots.idle(slot)
    }

    /// Queues the I/Os on the submission ring, each with its flags as the entry's `rw_flags`; they reach
    /// the kernel with the next [`UringQueue::reap`] (one io_uring_enter submits and waits). Returns how
    /// many were queued.
    ///
    /// # Errors
    /// None today; the signature matches the AIO queue. Panics if a slot is busy or `len` exceeds its buffer.
    pub fn submit(&mut self, ios: &[Io]) -> io::Result<usize> {
        // One branch per batch, not per I/O: each loop is the plain one for its kind of buffer.
        Ok(match self.unregistered.is_none() {
            true => self.queue(ios, |io, fd, ptr, slot| match io.dir {
                Dir::Read => opcode::ReadFixed::new(fd, ptr, io.len, slot)
                    .offset(io.offset)
                    .rw_flags(io.flags as i32)
                    .build(),
                Dir::Write => opcode::WriteFixed::new(fd, ptr, io.len, slot)
                    .offset(io.offset)
                    .rw_flags(io.flags as i32)
                    .build(),
            }),
            false => self.queue(ios, |io, fd, ptr, _| match io.dir {
                Dir::Read => opcode::Read::new(fd, ptr, io.len)
                    .offset(io.offset)
                    .rw_flags(io.flags as i32)
                    .build(),
                Dir::Write => opcode::Write::new(fd, ptr, io.len)
                    .offset(io.offset)
                    .rw_flags(io.flags as i32)
                    .build(),
            }),
        })
    }

    /// Pushes an entry made by `entry(io, file, buffer, buffer index)` per I/O (a prefix of `ios` while the
    /// ring has room); returns how many.
    #[inline(always)]
    fn queue(
        &mut self,
        ios: &[Io],
        entry: impl Fn(&Io, types::Fixed, *mut u8, u16) -> squeue::Entry,
    ) -> usize {
        let mut n = 0;
        for io in ios {
            let slot = io.slot;
            let ptr = self.slots.for_io(slot, io.len);
            let e = entry(io, types::Fixed(0), ptr, slot as u16).user_data(slot as u64);
            // SAFETY: the entry names buffer `slot` (registered, or by its address), which is not handed out
            // (`buf`) nor freed until its completion is reaped (Drop waits for it).
            if unsafe { self.ring.submission().push(&e) }.is_err() {
                break;
            }
            self.slots.set_in_flight(slot, true);
            self.queued += 1;
            n += 1;
        }
        n
    }

    /// Whether [`UringQueue::reap`] can wait a minimum time for more completions (Linux 6.12+).
    pub fn can_wait_min(&self) -> bool {
        self.min_wait
    }

    /// Submits what is queued and waits for at least `want` completions (at least 1, at most the I/Os in
    /// flight) or `timeout_ns` (`None`: no limit), then calls `f(slot, result)` for each of at most `want`
    /// completions (result: bytes, or a negative errno; the others stay in the ring for the next call).
    /// Returns how many (fewer than `want` after a timeout or EINTR).
    ///
    /// With `min_wait_us` > 0 (and a timeout) where the kernel can ([`UringQueue::can_wait_min`]), the wait
    /// ends `min_wait_us` after it began once any completion is in, even short of `want` (the kernel's
    /// min_wait_usec): until then only the `want`-th completion wakes this thread, then its own timer does
    /// (after an empty minimum wait, the next completion). The minimum wait outlasts a shorter timeout.
    ///
    /// # Errors
    /// The OS error of io_uring_enter (a timeout or EINTR is not an error: it returns 0).
    pub fn reap(
        &mut self,
        want: usize,
        min_wait_us: u32,
        timeout_ns: Option<u64>,
        mut f: impl FnMut(usize, i64),
    ) -> io::Result<usize> {
        let want = want.clamp(1, self.in_flight().max(1));
        let min_wait_us = if self.min_wait { min_wait_us } else { 0 };
        let r = match timeout_ns {
            Some(ns) => {
                let ts = types::Timespec::new()
                    .sec(ns / 1_000_000_000)
                    .nsec((ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new()
                    .min_wait_usec(min_wait_us)
                    .timespec(&ts);
                self.ring.submitter().submit_with_args(want, &args)
            }
            None => self.ring.submitter().submit_and_wait(want),
        };
        match r {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY)
                ) => {}
            Err(e) => return Err(e),
        }
        self.queued = 0;
        let mut n = 0;
        // At most `want`: the rest stay in the ring for the next turn (docs/architecture.md, Completions
        // per wait).
        for cqe in self.ring.completion().take(want) {
            let slot = cqe.user_data() as usize;
            self.slots.set_in_flight(slot, false);
            f(slot, cqe.result() as i64);
            n += 1;
        }
        Ok(n)
    }

    /// I/Os queued or in flight.
    pub fn in_flight(&self) -> usize {
        self.slots.in_flight()
    }
}

/// A ring of `entries` entries for one thread. Where the kernel allows it (6.1+), completions wait for this
/// thread to ask for them (SINGLE_ISSUER + DEFER_TASKRUN): a worker finishing an I/O (io-wq, for buffered
/// writes) then neither interrupts the loop while it prepares the next batch nor wakes it once per
/// completion, and each io_uring_enter that waits reaps them all in one go. Older kernels refuse the flags
/// (EINVAL): then COOP_TASKRUN (5.19+, no interrupt, completions run at the next kernel entry), then
/// none. The polling flags of `setup` are in every attempt (DEFER_TASKRUN is refused with SQPOLL).
fn new_ring(entries: u32, setup: RingSetup) -> io::Result<IoUring> {
    let builder = || {
        let mut b = IoUring::builder();
        if setup.iopoll {
            b.setup_iopoll();
        }
        if setup.sqpoll {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
        }
        b
    };
    builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
        .or_else(|_| builder().setup_coop_taskrun().build(entries))
        .or_else(|_| builder().build(entries))
}

impl Drop for UringQueue {
    fn drop(&mut self) {
        while self.in_flight() > 0 {
            if self.reap(1, 0, None, |_, _| {}).is_err() {
                // The kernel may still write into the buffers: never free them.
                self.slots.leak();
                break;
            }
        }
        // The kernel tears a ring down in the background: unregister the file now, or its hold on the
        // target (the exclusive claim of a block device) outlives the phase and even the process.
        let _ = self.ring.submitter().unregister_files();
        if self.unregistered.is_none() {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// A queue of `depth` 4 KiB slots on a new file in `dir`, or `None` (said) where io_uring is unavailable.
    fn queue(dir: &tempfile::TempDir, depth: usize) -> Option<(std::fs::File, UringQueue)> {
        let f = std::fs::File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("f"))
            .expect("file");
        let bufs = crate::buf::try_bufs(depth, 4096, 4096).expect("buffers");
        match UringQueue::new(f.as_raw_fd(), bufs) {
            Ok(q) => Some((f, q)),
            Err(e) => {
                println!("SKIPPED uring tests: io_uring unavailable here: {e}");
                None
            }
        }
    }

    /// Writes slots `slots` (slot i at offset i × 4 KiB, filled with byte i + 1).
    fn write(q: &mut UringQueue, slots: std::ops::Range<usize>) {
        let ios: Vec<_> = slots
            .map(|i| {
                q.buf(i).expect("idle").fill(i as u8 + 1);
                Io {
                    slot: i,
                    dir: Dir::Write,
                    offset: i as u64 * 4096,
                    len: 4096,
                    flags: 0,
                }
            })
            .collect();
        assert_eq!(q.submit(&ios).expect("queued"), ios.len());
    }

    #[test]
    fn a_wait_returns_at_least_the_completions_asked_and_never_waits_for_more_than_in_flight() {
        let dir = tempfile::tempdir().expect("temp dir");
        let Some((f, mut q)) = queue(&dir, 16) else {
            return;
        };
        write(&mut q, 0..16);
        let mut seen = Vec::new();
        let n = q
            .reap(8, 0, None, |slot, res| seen.push((slot, res)))
            .expect("reap");
        assert!(n >= 8, "{n} completions for a wait of 8");
        assert_eq!((n, q.in_flight()), (seen.len(), 16 - n));
        while q.in_flight() > 0 {
            // Asking for more than is in flight waits for what is (no timeout: it would hang otherwise).
            q.reap(64, 0, None, |slot, res| seen.push((slot, res)))
                .expect("reap");
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..16).map(|i| (i, 4096)).collect::<Vec<_>>());
        write(&mut q, 0..3);
        let n = q
            .reap(64, 0, None, |_, res| assert_eq!(res, 4096))
            .expect("reap");
        assert_eq!((n, q.in_flight()), (3, 0));
        drop(q);
        let bytes = std::fs::read(dir.path().join("f")).expect("read back");
        assert_eq!(bytes.len(), 16 * 4096);
        for (i, block) in bytes.chunks(4096).enumerate() {
            assert!(block.iter().all(|&b| b == i as u8 + 1), "block {i}");
        }
        drop(f);
    }

    #[test]
    fn a_wait_with_a_minimum_time_returns_what_completed_and_loses_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        let Some((f, mut q)) = queue(&dir, 16) else {
            return;
        };
        println!("minimum waits supported here: {}", q.can_wait_min());
        write(&mut q, 0..16);
        let mut seen = Vec::new();
        let mut waits = 0;
        while q.in_flight() > 0 && waits < 1000 {
            // Asks for all 16; ends 1 ms after it began once any is in (or, without the feature, at 16).
            q.reap(16, 1_000, Some(5_000_000_000), |slot, res| {
                seen.push((slot, res))
            })
            .expect("reap");
            waits += 1;
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..16).map(|i| (i, 4096)).collect::<Vec<_>>());
        // Nothing in flight, a timeout of 100 µs: a minimum wait of 5 ms reaches the kernel and outlasts it.
        let t0 = std::time::Instant::now();
        let n = q.reap(1, 5_000, Some(100_000), |_, _| {}).expect("reap");
        let took = t0.elapsed();
        assert_eq!(n, 0);
        if q.can_wait_min() {
            assert!(took >= std::time::Duration::from_millis(5), "{took:?}");
        }
        drop(q);
        drop(f);
    }
}
