//! The VM suite (`cargo test --release --test vm`): wkrun on real kernel devices in a QEMU guest that the tests
//! boot (TCG, a Debian kernel, a busybox initramfs): an emulated NVMe controller, null_blk and device-mapper
//! targets. One boot per group of tests, each test's guest script run in it in turn and its files brought
//! back ([`rig`]); the groups the run's filters select boot side by side when the first test asks. Where the VM cannot boot, each test prints `SKIPPED <test>: <reason>` and passes.
//! docs/testing.md says how to run it and what each device models.

mod initramfs;
mod rig;

mod faults;
mod nvme;
mod zoned;

/// Every group: the first test to ask boots each of them that the command line's filters select, side by
/// side.
pub static GROUPS: &[&rig::Group] = &[&faults::GROUP, &nvme::GROUP, &zoned::GROUP];
