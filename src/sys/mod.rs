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

/// The direction of one I/O handed to a queue ([`aio::AioQueue`], [`uring::UringQueue`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Read into the slot's buffer.
    Read,
    /// Write the slot's buffer.
    Write,
}

/// An OS error as `"<message> (errno N)"` (std writes "(os error N)"; errno is the term users search for);
/// other errors as they display.
pub fn os_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => {
            let s = e.to_string();
            let msg = s.strip_suffix(&format!(" (os error {n})")).unwrap_or(&s);
            format!("{msg} (errno {n})")
        }
        None => e.to_string(),
    }
}
