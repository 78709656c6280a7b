//! Images for `restore-image`: a raw image file, or `image = "synthetic"`: a deterministic image of mixed
//! content standing in for a used drive's data (seed 004 restores a real test image).
//!
//! The synthetic image is a sequence of 64 KiB extents; each extent is, by a hash of (seed, extent index),
//! incompressible random bytes (40 %), zeros (30 %, like unused filesystem space) or repetitive text-like
//! bytes (30 %, compressible). Any byte range can be generated on its own, so restoring is parallel.

use crate::data::mix64;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// Extent size of the synthetic image: 64 KiB.
pub const EXTENT: u64 = 64 << 10;
const TEXT: &[u8] =
    b"Lorem ipsum dolor sit amet, consectetur adipiscing elit; wkrun synthetic image text run. \
sed do eiusmod tempor incididunt ut labore et dolore magna aliqua 0123456789\n";

/// What an extent of the synthetic image holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtentKind {
    /// Incompressible bytes.
    Random,
    /// Zeros.
    Zeros,
    /// Repetitive text.
    Text,
}

/// The kind of extent `e` of the synthetic image with `seed`.
pub fn extent_kind(seed: u64, e: u64) -> ExtentKind {
    match mix64(seed ^ mix64(e.wrapping_add(0x5151))) % 10 {
        0..=3 => ExtentKind::Random,
        4..=6 => ExtentKind::Zeros,
        _ => ExtentKind::Text,
    }
}

/// Fills `buf` with the synthetic image's bytes starting at image byte `offset`.
pub fn synthetic_fill(seed: u64, offset: u64, buf: &mut [u8]) {
    let mut pos = offset;
    let mut done = 0usize;
    while done < buf.len() {
        let e = pos / EXTENT;
        let in_extent = ((e + 1) * EXTENT - pos).min((buf.len() - done) as u64) as usize;
        let out = &mut buf[done..done + in_extent];
        match extent_kind(seed, e) {
            ExtentKind::Zeros => out.fill(0),
            ExtentKind::Text => {
                let shift = (mix64(seed ^ e) % TEXT.len() as u64) as usize;
                for (i, b) in out.iter_mut().enumerate() {
                    *b = TEXT[(pos as usize + i + shift) % TEXT.len()];
                }
            }
            ExtentKind::Random => {
                let key = mix64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ e);
                // Byte `abs` is byte `abs % 8` of mix64(key ^ abs / 8): one mix per 8 bytes.
                let mut i = 0;
                while i < out.len() {
                    let abs = pos + i as u64;
                    let word = mix64(key ^ (abs / 8)).to_le_bytes();
                    let from = (abs % 8) as usize;
                    let n = (8 - from).min(out.len() - i);
                    out[i..i + n].copy_from_slice(&word[from..from + n]);
                    i += n;
                }
            }
        }
        pos += in_extent as u64;
        done += in_extent;
    }
}

/// Where a restore phase's data comes from.
pub enum ImageSource {
    /// The synthetic image with this seed.
    Synthetic(u64),
    /// A raw image file, read at the image offset.
    File(File),
}

impl ImageSource {
    /// Fills `buf` with the image's bytes at image `offset`.
    ///
    /// # Errors
    /// A read error, or `UnexpectedEof` when the image file is shorter than planned (it changed since the plan).
    pub fn fill(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            ImageSource::Synthetic(seed) => {
                synthetic_fill(*seed, offset, buf);
                Ok(())
            }
            ImageSource::File(f) => f.read_exact_at(buf, offset).map_err(|e| match e.kind() {
                // The file was long enough when planned: it shrank since.
                io::ErrorKind::UnexpectedEof => {
                    let now = f.metadata().map_or(String::new(), |m| format!(" ({} B now)", m.len()));
                    io::Error::new(
                        e.kind(),
                        format!(
                            "the image file ends before byte {}{now}: it was shortened since the plan",
                            offset + buf.len() as u64
                        ),
                    )
                }
                _ => e,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24 item 22: an image file shortened during the run is named as such, not "failed to fill
    /// whole buffer".
    #[test]
    fn an_image_shorter_than_planned_says_so() {
        let f = tempfile::tempfile().expect("temp file");
        f.set_len(4096).expect("set_len");
        let src = ImageSource::File(f);
        let mut buf = vec![0u8; 4096];
        src.fill(0, &mut buf).expect("within the file");
        let e = src.fill(2048, &mut buf).expect_err("past its end");
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(
            e.to_string(),
            "the image file ends before byte 6144 (4096 B now): it was shortened since the plan"
        );
    }

    #[test]
    fn ranges_are_independent_and_mixed() {
        let mut whole = vec![0u8; 1 << 20];
        synthetic_fill(1, 0, &mut whole);
        let mut part = vec![0u8; 5000];
        synthetic_fill(1, 123_457, &mut part);
        assert_eq!(&whole[123_457..128_457], &part[..]);
        let kinds: Vec<ExtentKind> = (0..16).map(|e| extent_kind(1, e)).collect();
        for k in [ExtentKind::Random, ExtentKind::Zeros, ExtentKind::Text] {
            assert!(kinds.contains(&k), "{kinds:?}");
        }
    }
}
