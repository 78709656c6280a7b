//! The VM suite (`cargo test --release --test vm`): wkrun on real kernel devices in a QEMU guest that the tests
//! boot (TCG, a Debian kernel, a busybox initramfs): an emulated NVMe controller, null_blk and device-mapper
//! targets. One boot per group of tests, each test's guest script run in it in turn and its files brought
//! back ([`rig`]). Where the VM cannot boot, each test prints `SKIPPED <test>: <reason>` and passes.
//! docs/testing.md says how to run it and what each device models.

mod initramfs;
mod rig;

mod faults;
mod nvme;
mod zoned;
