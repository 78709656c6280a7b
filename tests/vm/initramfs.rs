//! The guest's root file system: an uncompressed `newc` cpio archive (the kernel's initramfs format,
//! `Documentation/driver-api/early-userspace/buffer-format.rst`), written entry by entry.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;
const S_IFCHR: u32 = 0o020000;

/// An archive being written: every entry's parent folders must be added before it.
pub struct Cpio {
    out: BufWriter<File>,
    ino: u32,
}

impl Cpio {
    /// Starts the archive at `path`.
    pub fn create(path: &Path) -> io::Result<Cpio> {
        Ok(Cpio {
            out: BufWriter::new(File::create(path)?),
            ino: 1,
        })
    }

    /// A folder, mode 0755.
    pub fn dir(&mut self, name: &str) -> io::Result<()> {
        self.entry(name, S_IFDIR | 0o755, (0, 0), &[])
    }

    /// A regular file with `mode`'s permission bits.
    pub fn file(&mut self, name: &str, mode: u32, data: &[u8]) -> io::Result<()> {
        self.entry(name, S_IFREG | (mode & 0o7777), (0, 0), data)
    }

    /// A symbolic link to `to`.
    pub fn symlink(&mut self, name: &str, to: &str) -> io::Result<()> {
        self.entry(name, S_IFLNK | 0o777, (0, 0), to.as_bytes())
    }

    /// A character device node.
    pub fn char_dev(&mut self, name: &str, major: u32, minor: u32) -> io::Result<()> {
        self.entry(name, S_IFCHR | 0o600, (major, minor), &[])
    }

    /// Writes the trailer and flushes.
    pub fn finish(mut self) -> io::Result<()> {
        self.entry("TRAILER!!!", 0, (0, 0), &[])?;
        self.out.flush()
    }

    fn entry(&mut self, name: &str, mode: u32, rdev: (u32, u32), data: &[u8]) -> io::Result<()> {
        let name = name.trim_start_matches('/');
        let fields = [
            self.ino,
            mode,
            0,
            0,
            if mode & S_IFDIR == S_IFDIR { 2 } else { 1 },
            0,
            data.len() as u32,
            0,
            0,
            rdev.0,
            rdev.1,
            name.len() as u32 + 1,
            0,
        ];
        self.ino += 1;
        let mut header = String::from("070701");
        for f in fields {
            header.push_str(&format!("{f:08x}"));
        }
        self.out.write_all(header.as_bytes())?;
        self.out.write_all(name.as_bytes())?;
        self.out.write_all(&[0])?;
        self.pad(110 + name.len() + 1)?;
        self.out.write_all(data)?;
        self.pad(data.len())
    }

    fn pad(&mut self, len: usize) -> io::Result<()> {
        let zeros = [0u8; 3];
        self.out.write_all(&zeros[..(4 - len % 4) % 4])
    }
}
