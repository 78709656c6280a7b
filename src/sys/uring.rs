//! io_uring (through the io-uring crate) behind a safe slot queue: [`UringQueue`] owns the ring, the target
//! as a registered file and one registered aligned buffer per slot (READ_FIXED / WRITE_FIXED), and waits for
//! every I/O in flight before the buffers can be freed.

use super::Dir;
use super::slots::SlotBufs;
use io_uring::{IoUring, opcode, types};
use std::io;
use std::os::fd::RawFd;

/// A ring with `depth` slots. `ring` is declared before `slots` so that, after `Drop::drop` has waited for
/// the I/Os in flight, the ring (and its buffer registration) goes before the buffers.
pub struct UringQueue {
    ring: IoUring,
    slots: SlotBufs,
    queued: usize,
}

impl UringQueue {
    /// A ring for `depth` I/Os on `fd`, with a registered `buf_len`-byte buffer aligned to `align` per slot.
    ///
    /// # Errors
    /// The OS error of io_uring_setup or of a registration (ENOSYS/EPERM where io_uring is disabled).
    pub fn new(fd: RawFd, depth: usize, buf_len: usize, align: usize) -> io::Result<UringQueue> {
        let ring = new_ring((depth as u32).next_power_of_two().max(2))?;
        ring.submitter().register_files(&[fd])?;
        let mut slots = SlotBufs::new(depth, buf_len, align);
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
        unsafe { ring.submitter().register_buffers(&iovecs)? };
        Ok(UringQueue {
            ring,
            slots,
            queued: 0,
        })
    }

    /// The buffer of an idle slot, to fill before a write. `None` while the slot's I/O is in flight.
    pub fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.slots.idle(slot)
    }

    /// Queues one I/O per `(slot, kind, offset, len)` on the submission ring; they reach the kernel with the
    /// next [`UringQueue::reap`] (one io_uring_enter submits and waits). Returns how many were queued.
    ///
    /// # Errors
    /// None today; the signature matches the AIO queue. Panics if a slot is busy or `len` exceeds its buffer.
    pub fn submit(&mut self, ios: &[(usize, Dir, u64, u32)]) -> io::Result<usize> {
        let mut n = 0;
        for &(slot, kind, offset, len) in ios {
            let ptr = self.slots.for_io(slot, len);
            let entry = match kind {
                Dir::Read => opcode::ReadFixed::new(types::Fixed(0), ptr, len, slot as u16)
                    .offset(offset)
                    .build(),
                Dir::Write => opcode::WriteFixed::new(types::Fixed(0), ptr, len, slot as u16)
                    .offset(offset)
                    .build(),
            };
            // SAFETY: the entry names registered buffer `slot`, which is not handed out (`buf`) nor freed until
            // its completion is reaped (Drop waits for it).
            if unsafe { self.ring.submission().push(&entry.user_data(slot as u64)) }.is_err() {
                break;
            }
            self.slots.set_in_flight(slot, true);
            self.queued += 1;
            n += 1;
        }
        Ok(n)
    }

    /// Submits what is queued and waits for at least one completion or `timeout_ns` (`None`: no limit), then
    /// calls `f(slot, result)` for each completion (result: bytes, or a negative errno). Returns how many.
    ///
    /// # Errors
    /// The OS error of io_uring_enter (a timeout or EINTR is not an error: it returns 0).
    pub fn reap(
        &mut self,
        timeout_ns: Option<u64>,
        mut f: impl FnMut(usize, i64),
    ) -> io::Result<usize> {
        let r = match timeout_ns {
            Some(ns) => {
                let ts = types::Timespec::new()
                    .sec(ns / 1_000_000_000)
                    .nsec((ns % 1_000_000_000) as u32);
                self.ring
                    .submitter()
                    .submit_with_args(1, &types::SubmitArgs::new().timespec(&ts))
            }
            None => self.ring.submitter().submit_and_wait(1),
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
        for cqe in self.ring.completion() {
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
/// none.
fn new_ring(entries: u32) -> io::Result<IoUring> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
        .or_else(|_| IoUring::builder().setup_coop_taskrun().build(entries))
        .or_else(|_| IoUring::new(entries))
}

impl Drop for UringQueue {
    fn drop(&mut self) {
        while self.in_flight() > 0 {
            if self.reap(None, |_, _| {}).is_err() {
                // The kernel may still write into the buffers: never free them.
                self.slots.leak();
                break;
            }
        }
        // The kernel tears a ring down in the background: unregister the file now, or its hold on the
        // target (the exclusive claim of a block device) outlives the phase and even the process.
        let _ = self.ring.submitter().unregister_files();
        let _ = self.ring.submitter().unregister_buffers();
    }
}
