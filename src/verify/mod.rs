//! Write verification, the checking side: a verify phase reads its span back and classifies every 512-byte
//! sector against what the plan says it should hold. The stamp format is [`crate::stamp`]; the replay of the
//! plan's writes is [`crate::plan::replay`].

mod checker;
mod summary;

pub use checker::Checker;
pub use summary::{Class, Mismatch, VerifySummary};
