//! Erase phases: the code lives with the targets, in [`crate::target::erase`].

pub use crate::target::erase::*;
