//! Every syscall wkrun makes beyond what `std` offers, each behind a safe function returning `io::Result`.
//! This module and [`crate::buf`] are the only places with `unsafe` code.
#![allow(unsafe_code)]

pub mod aio;
pub mod block;
pub mod clock;
pub mod cpu;
pub mod dir;
pub mod file;
pub mod limits;
pub mod nvme;
pub mod signal;
mod slots;
pub mod uring;

/// The direction of one I/O handed to a queue ([`aio::AioQueue`], [`uring::UringQueue`]): the directions
/// the queues can submit. `sys` imports nothing of the crate but the buffers, so this mirrors part of the
/// crate's `vocab::Direction`; the engines convert at their boundary (`engine/queue.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Read into the slot's buffer.
    Read,
    /// Write the slot's buffer.
    Write,
}

/// One I/O handed to a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// The queue slot, whose buffer the I/O reads into or writes from.
    pub slot: usize,
    /// Read or write.
    pub dir: Dir,
    /// Byte offset in the file.
    pub offset: u64,
    /// Bytes.
    pub len: u32,
    /// The kernel's per-I/O flags (`RWF_*` of preadv2/pwritev2: `RWF_DSYNC` makes a write durable when it
    /// completes, a FUA write on a block device), passed as they are: io_uring's `rw_flags`, the
    /// `aio_rw_flags` of an AIO control block. 0 for none.
    pub flags: u32,
}

/// An OS error as `"<message> (errno N)"` (std writes "(os error N)"; errno is the term users search for),
/// with the limit it hit when it is one of running out of file descriptors ([`limits::errno_note`]); other
/// errors as they display.
pub fn os_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => {
            let s = e.to_string();
            let msg = s.strip_suffix(&format!(" (os error {n})")).unwrap_or(&s);
            format!("{msg} (errno {n}{})", limits::errno_note(e))
        }
        None => e.to_string(),
    }
}
