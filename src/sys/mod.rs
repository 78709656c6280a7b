//! Every syscall wkrun makes beyond what `std` offers, each behind a safe function returning `io::Result`.
//! This module and [`crate::buf`] are the only places with `unsafe` code.
#![allow(unsafe_code)]

pub mod aio;
pub mod block;
pub mod dir;
pub mod file;
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
