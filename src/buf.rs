//! Heap buffers aligned for O_DIRECT (the memory alignment the target needs, at least 4096 bytes), and
//! fallible allocation: every buffer or table whose size comes from a spec or a target is allocated here,
//! through functions that return [`AllocError`] instead of aborting the process when memory is short (an
//! address-space limit, `ulimit -v`, or an exhausted machine).
#![allow(unsafe_code)]

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;

/// A zero-initialised byte buffer whose address is a multiple of `align`. Owned; freed on drop.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared references only give out &[u8], like Vec<u8>.
unsafe impl Sync for AlignedBuf {}

/// Memory that could not be allocated: what it was for and how many bytes were asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate {what}: {bytes} B of memory")]
pub struct AllocError {
    /// What the memory was for, in words ("the I/O buffers, 16 × 134217728 B").
    pub what: String,
    /// Bytes asked for in all.
    pub bytes: u64,
}

impl AllocError {
    /// The error of `count` I/O buffers of `len` bytes, named as a set.
    pub fn io_bufs(count: usize, len: usize) -> AllocError {
        AllocError {
            what: format!("the I/O buffers, {count} × {len} B"),
            bytes: count as u64 * len as u64,
        }
    }
}

impl From<AllocError> for std::io::Error {
    fn from(e: AllocError) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::OutOfMemory, e)
    }
}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes aligned to `align` (rounded up to a power of two).
    ///
    /// # Errors
    /// [`AllocError`] (naming `len` bytes) when the memory cannot be allocated, or the size rounded up to the
    /// alignment overflows.
    pub fn try_new(len: usize, align: usize) -> Result<AlignedBuf, AllocError> {
        let failed = || AllocError {
            what: format!("a buffer of {len} B"),
            bytes: len as u64,
        };
        let align = align
            .max(1)
            .checked_next_power_of_two()
            .ok_or_else(failed)?;
        let layout = Layout::from_size_align(len.max(1), align).map_err(|_| failed())?;
        // SAFETY: the layout has a non-zero size; a null return is handled below.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or_else(failed)?;
        Ok(AlignedBuf { ptr, layout })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Always false: buffers have at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// `count` buffers of `len` bytes each, aligned to `align`: the I/O buffers of a queue.
///
/// # Errors
/// [`AllocError`] naming the whole set (`count × len` bytes) when any of them cannot be allocated; those
/// allocated before it are freed.
pub fn try_bufs(count: usize, len: usize, align: usize) -> Result<Vec<AlignedBuf>, AllocError> {
    let failed = || AllocError::io_bufs(count, len);
    let mut bufs = Vec::new();
    bufs.try_reserve_exact(count).map_err(|_| failed())?;
    for _ in 0..count {
        bufs.push(AlignedBuf::try_new(len, align).map_err(|_| failed())?);
    }
    Ok(bufs)
}

/// `n` copies of `value`, for a table sized by a spec or a target; `what` names it in the error.
///
/// # Errors
/// [`AllocError`] with `n × size_of::<T>()` bytes when the memory cannot be allocated.
pub fn try_vec<T: Clone>(n: usize, value: T, what: &str) -> Result<Vec<T>, AllocError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| AllocError {
        what: what.to_string(),
        bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
    })?;
    v.resize(n, value);
    Ok(v)
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr points to layout.size() initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr points to layout.size() initialised bytes owned exclusively by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr was allocated with this layout and is freed once.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::{AlignedBuf, try_bufs, try_vec};
    #[test]
    fn aligned_and_zeroed() {
        let mut b = AlignedBuf::try_new(8192, 4096).expect("8 KiB");
        assert_eq!(b.as_ptr() as usize % 4096, 0);
        assert!(b.iter().all(|&x| x == 0));
        b[8191] = 7;
        assert_eq!(b.len(), 8192);
        assert_eq!(b[8191], 7);
    }

    #[test]
    fn an_allocation_too_large_is_an_error_naming_its_size() {
        // 1 EiB: more than any machine maps, so the allocator returns null (the layout itself is valid).
        let huge = 1usize << 60;
        let e = AlignedBuf::try_new(huge, 4096).err().expect("refused");
        assert_eq!(
            e.to_string(),
            format!("cannot allocate a buffer of {huge} B: {huge} B of memory")
        );
        let e = try_bufs(4, huge, 4096).err().expect("refused");
        assert_eq!(
            e.to_string(),
            "cannot allocate the I/O buffers, 4 × 1152921504606846976 B: 4611686018427387904 B of memory"
        );
        let e = try_vec(huge, 0u64, "the map").expect_err("refused");
        assert_eq!(
            e.to_string(),
            "cannot allocate the map: 9223372036854775808 B of memory"
        );
        assert_eq!(try_vec(3, 7u32, "x").expect("3 values"), vec![7, 7, 7]);
        assert_eq!(try_bufs(2, 4096, 4096).expect("2 buffers").len(), 2);
    }
}
