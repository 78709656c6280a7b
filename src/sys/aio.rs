//! Linux native AIO through the raw syscalls (io_setup, io_submit, io_getevents, io_destroy, as in
//! `<linux/aio_abi.h>`), behind a safe slot queue: [`AioQueue`] owns the context, one control block and one
//! aligned buffer per slot, and never lets a buffer go while the kernel may still use it.

use super::slots::SlotBufs;
use super::{Dir, Io};
use crate::buf::AlignedBuf;
use std::io;
use std::os::fd::RawFd;

const CMD_PREAD: u16 = 0;
const CMD_PWRITE: u16 = 1;

/// `struct iocb` (64 bytes; aio_key before aio_rw_flags on little-endian machines).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: u32,
    opcode: u16,
    reqprio: i16,
    fd: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// An AIO context with `depth` slots. Fields drop in order: the context first (io_destroy waits for every
/// outstanding I/O), then the buffers.
pub struct AioQueue {
    ctx: libc::c_ulong,
    fd: RawFd,
    iocbs: Box<[Iocb]>,
    slots: SlotBufs,
    ptrs: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
}

impl AioQueue {
    /// io_setup for one I/O per buffer of `bufs` (the slots, each with its buffer) on `fd`.
    ///
    /// # Errors
    /// The OS error of io_setup (EAGAIN when /proc/sys/fs/aio-max-nr is exhausted).
    pub fn new(fd: RawFd, bufs: Vec<AlignedBuf>) -> io::Result<AioQueue> {
        let depth = bufs.len();
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context id into `ctx`, a live local.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                depth as libc::c_long,
                &mut ctx as *mut libc::c_ulong,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(AioQueue {
            ctx,
            fd,
            iocbs: vec![Iocb::default(); depth].into_boxed_slice(),
            slots: SlotBufs::new(bufs),
            ptrs: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
        })
    }

    /// The buffer of an idle slot, to fill before a write. `None` while the slot's I/O is in flight.
    pub fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.slots.idle(slot)
    }

    /// Submits the I/Os, each in its slot's buffer with its flags as `aio_rw_flags`; returns how many the
    /// kernel accepted (a prefix of `ios`; the rest stay idle and can be submitted again).
    ///
    /// # Errors
    /// The OS error when none was accepted. Panics if a slot is already in flight or `len` exceeds its buffer.
    pub fn submit(&mut self, ios: &[Io]) -> io::Result<usize> {
        self.ptrs.clear();
        for io in ios {
            let slot = io.slot;
            let buf = self.slots.for_io(slot, io.len);
            self.iocbs[slot] = Iocb {
                data: slot as u64,
                rw_flags: io.flags,
                opcode: if io.dir == Dir::Read {
                    CMD_PREAD
                } else {
                    CMD_PWRITE
                },
                fd: self.fd as u32,
                buf: buf as u64,
                nbytes: io.len as u64,
                offset: io.offset as i64,
                ..Iocb::default()
            };
            self.ptrs.push(&mut self.iocbs[slot] as *mut Iocb);
        }
        if self.ptrs.is_empty() {
            return Ok(0);
        }
        // SAFETY: every pointer is to an iocb in `self.iocbs` (a boxed slice, never moved) naming a slot buffer
        // in `self.slots`; both live until the context is destroyed, which waits for the I/O, and a slot's buffer
        // is not handed out (`buf`) while in flight.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_submit,
                self.ctx,
                self.ptrs.len() as libc::c_long,
                self.ptrs.as_mut_ptr(),
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        for io in &ios[..r as usize] {
            self.slots.set_in_flight(io.slot, true);
        }
        Ok(r as usize)
    }

    /// Waits for at least `min` completions or `timeout_ns` (`None`: no limit) and takes at most `min` (the
    /// others stay queued for the next call: each slot is refilled before the next completion is taken, as
    /// fio's default does), then calls `f(slot, result)` for each (result: bytes transferred, or a negative
    /// errno). Returns how many completed; EINTR counts as 0.
    ///
    /// # Errors
    /// The OS error of io_getevents.
    pub fn reap(
        &mut self,
        min: usize,
        timeout_ns: Option<u64>,
        mut f: impl FnMut(usize, i64),
    ) -> io::Result<usize> {
        let ts = timeout_ns.map(|ns| libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        });
        let tsp = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `events` is valid for writes of events.len() io_event structs; tsp is null or points to a live local.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min as libc::c_long,
                min.min(self.events.len()) as libc::c_long,
                self.events.as_mut_ptr(),
                tsp,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return if e.raw_os_error() == Some(libc::EINTR) {
                Ok(0)
            } else {
                Err(e)
            };
        }
        for ev in &self.events[..r as usize] {
            let slot = ev.data as usize;
            self.slots.set_in_flight(slot, false);
            f(slot, ev.res);
        }
        Ok(r as usize)
    }

    /// I/Os in flight.
    pub fn in_flight(&self) -> usize {
        self.slots.in_flight()
    }
}

impl Drop for AioQueue {
    fn drop(&mut self) {
        // SAFETY: io_destroy takes the context id; it returns after every outstanding I/O has completed, before
        // the buffers (later fields) are freed.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, self.ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn abi_sizes() {
        assert_eq!(std::mem::size_of::<super::Iocb>(), 64);
        assert_eq!(std::mem::size_of::<super::IoEvent>(), 32);
    }
}
