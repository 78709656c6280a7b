//! Under an address-space limit (`ulimit -v`), the room loading a spec needs, checked before it is
//! parsed (from the size of its text: the TOML tree and its table of places) and before its phases are
//! built (from their number, counted before any is made): an allocation of the standard library that
//! fails aborts the process, so a load short of room is refused instead (exit 1, a resource limit), naming
//! the limit.
//! `validate`, `plan`, `run` and `export` load specs through it.

use crate::sys::limits::address_space_shortfall;

/// Address space loading keeps for its own work beside the spec.
pub const LOAD_SPACE: u64 = 4 << 20;

/// Address space per byte of the spec's text, to parse it (the TOML tree, each table's places).
pub const SPACE_PER_BYTE: u64 = 64;

/// Address space per phase the spec expands to: the phase (about 1.3 KB), the rules' and the plan's
/// work on it, and the place of its keys.
pub const SPACE_PER_PHASE: u64 = 2 << 10;

/// `Err` with the message when the address space left does not hold parsing `bytes` of spec text.
///
/// # Errors
/// What it needs, the limit, and a limit that is enough.
pub fn for_text(bytes: u64) -> Result<(), String> {
    let need = LOAD_SPACE.saturating_add(bytes.saturating_mul(SPACE_PER_BYTE));
    let detail = format!(
        "{LOAD_SPACE} B for its own work, and {SPACE_PER_BYTE} B per byte of its {bytes} B"
    );
    refuse("loading the spec", need, &detail)
}

/// `Err` with the message when the address space left does not hold `phases` expanded phases.
///
/// # Errors
/// As [`for_text`].
pub fn for_phases(phases: u64) -> Result<(), String> {
    let need = LOAD_SPACE.saturating_add(phases.saturating_mul(SPACE_PER_PHASE));
    let detail = format!(
        "{LOAD_SPACE} B for its own work, and {SPACE_PER_PHASE} B for each of its {phases} phases"
    );
    refuse("expanding the spec", need, &detail)
}

fn refuse(what: &str, need: u64, detail: &str) -> Result<(), String> {
    match address_space_shortfall(need) {
        None => Ok(()),
        Some(short) => Err(format!(
            "{}; nothing was written",
            short.message(what, need, detail)
        )),
    }
}
