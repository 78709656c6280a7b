//! A run's setting of an NVMe controller's volatile write cache (`[target] write_cache`): read the state
//! found, set the one asked for, read it back; at the end, set the state found back and read it again. The
//! plan has checked that the target can be set ([`super::WriteCache::settable`]).

use super::open::Held;
use super::{CacheRun, TargetInfo};
use crate::sys;
use crate::vocab::CacheState;

/// The volatile write cache of a target, set for the run. Set back to the state found by
/// [`CacheHold::restore`], or, when the run ends another way (a panic), when dropped.
#[derive(Debug)]
pub struct CacheHold {
    held: Held,
    before: CacheState,
    restored: bool,
}

fn read(held: &Held, what: &str) -> Result<CacheState, String> {
    sys::nvme::volatile_write_cache(held.file())
        .map(CacheState::from_enabled)
        .map_err(|e| {
            format!(
                "cannot read the volatile write cache of {} {what} (NVMe Get Features): {}",
                held.path().display(),
                sys::os_text(&e)
            )
        })
}

fn set(held: &Held, state: CacheState) -> Result<(), String> {
    sys::nvme::set_volatile_write_cache(held.file(), state == CacheState::On).map_err(|e| {
        format!(
            "cannot set the volatile write cache of {} {} (NVMe Set Features): {}",
            held.path().display(),
            state.as_str(),
            sys::os_text(&e)
        )
    })
}

/// Sets the volatile write cache of `target` to `want` for the run: the state found, then the state read
/// back once set (in the returned record, `restored` still absent).
///
/// # Errors
/// The device cannot be opened (it is not what was probed), or the controller refuses a command; the cache is
/// then as it was, or set back (best effort) when it was changed.
pub fn set_for_run(target: &TargetInfo, want: CacheState) -> Result<(CacheHold, CacheRun), String> {
    let held = Held::open(target, false).map_err(|e| e.to_string())?;
    let before = read(&held, "before the run")?;
    let hold = CacheHold {
        held,
        before,
        restored: false,
    };
    set(&hold.held, want)?;
    let during = read(&hold.held, "once set")?;
    if during != want {
        let msg = format!(
            "the volatile write cache of {} reads {} after it was set {}: the controller did not take the setting",
            target.path.display(),
            during.as_str(),
            want.as_str()
        );
        // Dropped here: set back to the state found.
        return Err(msg);
    }
    let run = CacheRun {
        requested: want,
        before,
        during,
        restored: None,
        restore_error: None,
    };
    Ok((hold, run))
}

impl CacheHold {
    /// Sets the cache back to the state found when the run began; the state read back.
    ///
    /// # Errors
    /// The controller refused the command, or reads another state afterwards.
    pub fn restore(mut self) -> Result<CacheState, String> {
        self.restored = true;
        set(&self.held, self.before)?;
        let now = read(&self.held, "once set back")?;
        if now != self.before {
            return Err(format!(
                "the volatile write cache of {} reads {} after it was set back to {}",
                self.held.path().display(),
                now.as_str(),
                self.before.as_str()
            ));
        }
        Ok(now)
    }
}

impl Drop for CacheHold {
    fn drop(&mut self) {
        if !self.restored {
            let _ = set(&self.held, self.before);
        }
    }
}
