//! Every syscall wkrun makes beyond what `std` offers, each behind a safe function returning `io::Result`.
//! This module and [`crate::buf`] are the only places with `unsafe` code.
#![allow(unsafe_code)]

pub mod aio;
pub mod block;
pub mod file;
pub mod nvme;
pub mod signal;
pub mod uring;
