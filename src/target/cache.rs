//! A run's setting of a target's volatile write cache (`[target] write_cache`): an NVMe controller's (Set
//! Features, Volatile Write Cache) or a SCSI or SATA disk's (sysfs `scsi_disk/H:C:T:L/cache_type`, which the
//! SCSI disk driver sends to the disk as MODE SELECT of the caching page). Read the state found, set the one
//! asked for, read it back; at the end, set the state found back and read it again. The plan has checked
//! that the target can be set ([`super::WriteCache::settable`]).

use super::open::Held;
use super::{CacheRun, TargetInfo};
use crate::sys;
use crate::vocab::CacheState;

/// The volatile write cache of a target, set for the run. Set back to the state found by
/// [`CacheHold::restore`], or, when the run ends another way (a panic), when dropped.
#[derive(Debug)]
pub struct CacheHold {
    held: Control,
    before: CacheState,
    restored: bool,
}

/// How a target's write cache is read and set.
#[derive(Debug)]
enum Control {
    /// An NVMe namespace, held open: Get and Set Features.
    Nvme(Held),
    /// A SCSI or SATA disk (its device path, its `cache_type` file).
    Scsi(std::path::PathBuf, std::path::PathBuf),
}

impl Control {
    fn path(&self) -> &std::path::Path {
        match self {
            Control::Nvme(h) => h.path(),
            Control::Scsi(dev, _) => dev,
        }
    }
}

/// The state a SCSI disk's `cache_type` says: `write back` (also `write back, no read (daxed)`) is on,
/// `write through` and `none` are off.
pub fn scsi_state(text: &str) -> Option<CacheState> {
    match text.trim() {
        t if t.starts_with("write back") => Some(CacheState::On),
        "write through" | "none" => Some(CacheState::Off),
        _ => None,
    }
}

fn read(held: &Control, what: &str) -> Result<CacheState, String> {
    let dev = held.path().display();
    match held {
        Control::Nvme(h) => sys::nvme::volatile_write_cache(h.file())
            .map(CacheState::from_enabled)
            .map_err(|e| {
                format!(
                    "cannot read the volatile write cache of {dev} {what} (NVMe Get Features): {}",
                    sys::os_text(&e)
                )
            }),
        Control::Scsi(_, file) => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                format!(
                    "cannot read the write cache of {dev} {what} ({}): {e}",
                    file.display()
                )
            })?;
            scsi_state(&text).ok_or_else(|| {
                format!(
                    "the write cache of {dev} {what} reads {:?} in {}: no state",
                    text.trim(),
                    file.display()
                )
            })
        }
    }
}

fn set(held: &Control, state: CacheState) -> Result<(), String> {
    let dev = held.path().display();
    match held {
        Control::Nvme(h) => sys::nvme::set_volatile_write_cache(h.file(), state == CacheState::On)
            .map_err(|e| {
                format!(
                    "cannot set the volatile write cache of {dev} {} (NVMe Set Features): {}",
                    state.as_str(),
                    sys::os_text(&e)
                )
            }),
        Control::Scsi(_, file) => {
            let text = match state {
                CacheState::On => "write back",
                CacheState::Off => "write through",
            };
            std::fs::write(file, text).map_err(|e| {
                format!(
                    "cannot set the write cache of {dev} {} (writing \"{text}\" to {}): {e}",
                    state.as_str(),
                    file.display()
                )
            })
        }
    }
}

/// Sets the volatile write cache of `target` to `want` for the run: the state found, then the state read
/// back once set (in the returned record, `restored` still absent).
///
/// # Errors
/// The device cannot be opened (it is not what was probed), or the controller refuses a command; the cache is
/// then as it was, or set back (best effort) when it was changed.
pub fn set_for_run(target: &TargetInfo, want: CacheState) -> Result<(CacheHold, CacheRun), String> {
    let held = match target.write_cache.as_ref().and_then(|w| w.control.as_ref()) {
        Some(file) => Control::Scsi(target.path.clone(), file.into()),
        // The run holds the target and its claims already: a claim on this second open would meet them.
        None => Control::Nvme(Held::open_unclaimed(target, false).map_err(|e| e.to_string())?),
    };
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
