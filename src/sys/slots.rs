//! The slot buffers of a kernel queue ([`super::aio::AioQueue`], [`super::uring::UringQueue`]): one aligned
//! buffer per slot, and which slots have an I/O in flight. A slot's buffer is handed out only while the slot
//! is idle; the queue marks a slot in flight when the kernel has its I/O, and idle when it is reaped.

use crate::buf::AlignedBuf;

/// `depth` aligned buffers and the slots in flight. The queue owning it keeps it alive, and in place, until
/// the kernel can no longer use the buffers.
pub(super) struct SlotBufs {
    bufs: Vec<AlignedBuf>,
    in_flight: Vec<bool>,
}

impl SlotBufs {
    /// One idle slot per buffer of `bufs`.
    pub(super) fn new(bufs: Vec<AlignedBuf>) -> SlotBufs {
        SlotBufs {
            in_flight: vec![false; bufs.len()],
            bufs,
        }
    }

    /// The buffer of an idle slot, to fill before a write. `None` while the slot's I/O is in flight.
    pub(super) fn idle(&mut self, slot: usize) -> Option<&mut [u8]> {
        if self.in_flight[slot] {
            None
        } else {
            Some(&mut self.bufs[slot])
        }
    }

    /// The address of an idle slot's buffer, for an I/O of `len` bytes that the queue is about to hand the
    /// kernel. Panics if the slot is in flight or `len` exceeds its buffer.
    pub(super) fn for_io(&mut self, slot: usize, len: u32) -> *mut u8 {
        assert!(
            !self.in_flight[slot] && len as usize <= self.bufs[slot].len(),
            "slot {slot} busy or too small"
        );
        self.bufs[slot].as_mut_ptr()
    }

    /// Marks `slot` in flight (the kernel has its I/O) or idle (its completion was reaped).
    pub(super) fn set_in_flight(&mut self, slot: usize, in_flight: bool) {
        self.in_flight[slot] = in_flight;
    }

    /// Slots in flight.
    pub(super) fn in_flight(&self) -> usize {
        self.in_flight.iter().filter(|&&b| b).count()
    }

    /// Every buffer, idle or not (to register them with the kernel).
    pub(super) fn all_mut(&mut self) -> &mut [AlignedBuf] {
        &mut self.bufs
    }

    /// Leaks the buffers, for a queue that cannot wait for its I/Os: the kernel may still write into them.
    pub(super) fn leak(&mut self) {
        std::mem::forget(std::mem::take(&mut self.bufs));
    }
}
