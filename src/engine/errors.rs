//! Counting failed I/Os: per worker on the I/O path (no locks), merged per phase. With `on_error = "continue"`
//! a failed I/O is counted here and the phase goes on; with `"stop"` it is counted and stops the phase.

use super::{IoCause, IoError};
use crate::vocab::{Direction, PerDir};

/// Failed I/Os of a worker or of a whole phase: how many, of which cause, and the first one.
#[derive(Debug, Default)]
pub struct ErrorTally {
    /// Failed I/Os in total.
    pub total: u64,
    /// Failed I/Os per direction.
    pub by_dir: PerDir<u64>,
    /// `(cause, errno, count)` in order of first appearance; `cause` is an errno name (`"ENOSPC"`), `"short"`
    /// (fewer bytes than asked), `"mismatch"` (a verify phase's block that did not verify) or `"data"`.
    pub by_cause: Vec<(String, Option<i32>, u64)>,
    /// The earliest failed I/O: its completion time (ns from the phase start) and its description.
    pub first: Option<(u64, FirstError)>,
    /// The byte ranges of the failed writes, for verification.
    pub failed_writes: FailedWrites,
}

/// Most separate byte ranges [`FailedWrites`] keeps: 4096 (64 KiB per worker). Beyond it the list becomes one
/// range from the first to the last failed byte, and [`FailedWrites::too_many`] says so.
pub const MAX_FAILED_RANGES: usize = 4096;

/// The byte ranges of a phase's failed writes (their sectors may hold the older content, part of the write, or
/// anything): sorted, adjacent and overlapping ranges merged, at most [`MAX_FAILED_RANGES`] of them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FailedWrites {
    /// `[start, end)` byte ranges, sorted, neither overlapping nor adjacent.
    pub ranges: Vec<(u64, u64)>,
    /// More than [`MAX_FAILED_RANGES`] separate ranges failed: `ranges` is one range from the first to the last
    /// failed byte, which also covers writes that succeeded.
    pub too_many: bool,
}

impl FailedWrites {
    /// Adds the failed write of `len` bytes at `offset`.
    pub fn add(&mut self, offset: u64, len: u64) {
        if len == 0 {
            return;
        }
        let (a, b) = (offset, offset.saturating_add(len));
        if self.too_many {
            let r = &mut self.ranges[0];
            *r = (r.0.min(a), r.1.max(b));
            return;
        }
        // The first range that ends at or after `a` (it may touch or overlap), then all that start by `b`.
        let i = self.ranges.partition_point(|r| r.1 < a);
        let j = i + self.ranges[i..].partition_point(|r| r.0 <= b);
        if i == j {
            self.ranges.insert(i, (a, b));
        } else {
            let merged = (a.min(self.ranges[i].0), b.max(self.ranges[j - 1].1));
            self.ranges.splice(i..j, [merged]);
        }
        if self.ranges.len() > MAX_FAILED_RANGES {
            let hull = (self.ranges[0].0, self.ranges[self.ranges.len() - 1].1);
            self.ranges = vec![hull];
            self.too_many = true;
        }
    }

    /// Adds another worker's failed writes.
    pub fn merge(&mut self, o: FailedWrites) {
        for (a, b) in o.ranges {
            self.add(a, b - a);
        }
        if o.too_many && !self.too_many {
            let hull = (self.ranges[0].0, self.ranges[self.ranges.len() - 1].1);
            self.ranges = vec![hull];
            self.too_many = true;
        }
    }

    /// Whether no write failed.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// The first failed I/O of a phase, as plain values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstError {
    /// Read or write.
    pub dir: Direction,
    /// Byte offset on the target.
    pub offset: u64,
    /// Bytes requested.
    pub len: u32,
    /// Cause key, as in [`ErrorTally::by_cause`].
    pub cause: String,
    /// The OS error number, when the kernel gave one.
    pub errno: Option<i32>,
    /// The error in words: op, length, offset and cause with errno (see [`IoError`]'s `Display`).
    pub message: String,
}

impl ErrorTally {
    /// Counts one failed I/O that completed at `t_ns` (ns from the phase start).
    pub fn add(&mut self, e: &IoError, t_ns: u64) {
        let (cause, errno) = cause_key(&e.cause);
        self.add_cause(e.dir, cause, errno, 1);
        if e.dir == Direction::Write {
            self.failed_writes.add(e.offset, e.len as u64);
        }
        if self.first.as_ref().is_none_or(|f| t_ns < f.0) {
            self.first = Some((
                t_ns,
                FirstError {
                    dir: e.dir,
                    offset: e.offset,
                    len: e.len,
                    cause: cause_key(&e.cause).0,
                    errno,
                    message: e.to_string(),
                },
            ));
        }
    }

    fn add_cause(&mut self, dir: Direction, cause: String, errno: Option<i32>, n: u64) {
        self.total += n;
        self.by_dir[dir] += n;
        match self.by_cause.iter_mut().find(|c| c.0 == cause) {
            Some(c) => c.2 += n,
            None => self.by_cause.push((cause, errno, n)),
        }
    }

    /// Adds another worker's tally; the earlier first error wins.
    pub fn merge(&mut self, o: ErrorTally) {
        self.total += o.total;
        self.by_dir.merge_with(&o.by_dir, |a, b| *a += b);
        self.failed_writes.merge(o.failed_writes);
        for (cause, errno, n) in o.by_cause {
            match self.by_cause.iter_mut().find(|c| c.0 == cause) {
                Some(c) => c.2 += n,
                None => self.by_cause.push((cause, errno, n)),
            }
        }
        if let Some(f) = o.first
            && self.first.as_ref().is_none_or(|g| f.0 < g.0)
        {
            self.first = Some(f);
        }
    }
}

/// Whether an error means the target is gone, so that even `on_error = "continue"` stops: ENODEV, ENXIO,
/// EBADF; and errors that are not about one I/O (the engine could not start, image data could not be read).
pub fn is_fatal(e: &IoError) -> bool {
    match &e.cause {
        IoCause::Os(os) => matches!(
            os.raw_os_error(),
            Some(libc::ENODEV | libc::ENXIO | libc::EBADF)
        ),
        IoCause::Short(_) => false,
        IoCause::Data(_) | IoCause::Setup(..) | IoCause::Limit(_) | IoCause::Flush(..) => true,
    }
}

/// The cause key of an error (`"EIO"`, `"short"`) and its errno.
fn cause_key(c: &IoCause) -> (String, Option<i32>) {
    match c {
        IoCause::Os(e) => match e.raw_os_error() {
            Some(n) => (errno_name(n), Some(n)),
            None => ("os".to_string(), None),
        },
        IoCause::Short(_) => ("short".to_string(), None),
        IoCause::Data(_) => ("data".to_string(), None),
        IoCause::Setup(..) => ("setup".to_string(), None),
        IoCause::Limit(_) => ("limit".to_string(), None),
        IoCause::Flush(_, e) => match e.raw_os_error() {
            Some(n) => (errno_name(n), Some(n)),
            None => ("flush".to_string(), None),
        },
    }
}

/// The symbolic name of the errnos storage I/O meets (`EIO`), else `errno N`.
pub fn errno_name(n: i32) -> String {
    let name = match n {
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EINVAL => "EINVAL",
        libc::EAGAIN => "EAGAIN",
        libc::EBADF => "EBADF",
        libc::EFAULT => "EFAULT",
        libc::ENODEV => "ENODEV",
        libc::ENXIO => "ENXIO",
        libc::EROFS => "EROFS",
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        libc::ENOMEM => "ENOMEM",
        libc::EFBIG => "EFBIG",
        libc::EDQUOT => "EDQUOT",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::EILSEQ => "EILSEQ",
        libc::ENOLINK => "ENOLINK",
        libc::EREMOTEIO => "EREMOTEIO",
        libc::EBUSY => "EBUSY",
        libc::EINTR => "EINTR",
        libc::ECANCELED => "ECANCELED",
        _ => return format!("errno {n}"),
    };
    name.to_string()
}

/// A verify phase's mismatch as a failed read of `len` bytes at `offset`, counted under cause `"mismatch"`.
impl ErrorTally {
    /// Counts `n` blocks of a read at `offset` that did not verify (cause `"mismatch"`), first at `t_ns`.
    pub fn add_mismatches(&mut self, offset: u64, len: u32, n: u64, what: &str, t_ns: u64) {
        if n == 0 {
            return;
        }
        self.add_cause(Direction::Read, "mismatch".to_string(), None, n);
        if self.first.as_ref().is_none_or(|f| t_ns < f.0) {
            self.first = Some((
                t_ns,
                FirstError {
                    dir: Direction::Read,
                    offset,
                    len,
                    cause: "mismatch".to_string(),
                    errno: None,
                    message: format!("read of {len} B at offset {offset}: {what}"),
                },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    fn e(dir: Direction, offset: u64, cause: IoCause) -> IoError {
        IoError {
            dir,
            offset,
            len: 4096,
            cause,
        }
    }

    #[test]
    fn counts_by_cause_and_keeps_the_earliest_first_error() {
        let mut a = ErrorTally::default();
        a.add(
            &e(
                Direction::Write,
                8192,
                IoCause::Os(io::Error::from_raw_os_error(28)),
            ),
            50,
        );
        a.add(&e(Direction::Read, 0, IoCause::Short(512)), 70);
        let mut b = ErrorTally::default();
        b.add(
            &e(
                Direction::Write,
                4096,
                IoCause::Os(io::Error::from_raw_os_error(28)),
            ),
            20,
        );
        a.merge(b);
        assert_eq!((a.total, a.by_dir.0), (3, [1, 2, 0]));
        assert_eq!(
            a.by_cause,
            vec![("ENOSPC".into(), Some(28), 2), ("short".into(), None, 1)]
        );
        let (t, f) = a.first.expect("a first error");
        assert_eq!((t, f.offset, f.errno), (20, 4096, Some(28)));
        assert!(
            f.message.contains("write of 4096 B at offset 4096") && f.message.contains("errno 28"),
            "{}",
            f.message
        );
    }

    #[test]
    fn failed_writes_merge_adjacent_and_overlapping_ranges() {
        let mut f = FailedWrites::default();
        f.add(8192, 4096);
        f.add(0, 4096);
        f.add(20480, 4096);
        assert_eq!(f.ranges, vec![(0, 4096), (8192, 12288), (20480, 24576)]);
        f.add(4096, 4096); // touches both neighbours: one range
        assert_eq!(f.ranges, vec![(0, 12288), (20480, 24576)]);
        f.add(10000, 11000); // overlaps both
        assert_eq!(f.ranges, vec![(0, 24576)]);
        f.add(100, 10); // inside
        assert_eq!(f.ranges, vec![(0, 24576)]);
        let mut g = FailedWrites::default();
        g.add(24576, 512);
        g.add(1 << 20, 512);
        f.merge(g);
        assert_eq!(f.ranges, vec![(0, 25088), (1 << 20, (1 << 20) + 512)]);
        assert!(!f.too_many);
        // Counted through the tally: writes only.
        let mut t = ErrorTally::default();
        t.add(&e(Direction::Read, 0, IoCause::Short(0)), 1);
        t.add(&e(Direction::Write, 4096, IoCause::Short(0)), 2);
        assert_eq!(t.failed_writes.ranges, vec![(4096, 8192)]);
    }

    #[test]
    fn failed_writes_beyond_the_cap_become_one_range_marked_too_many() {
        let mut f = FailedWrites::default();
        for k in 0..MAX_FAILED_RANGES as u64 {
            f.add(k * 8192, 4096); // separate: a gap of 4096 between each
        }
        assert_eq!(f.ranges.len(), MAX_FAILED_RANGES);
        assert!(!f.too_many);
        let last = (MAX_FAILED_RANGES as u64 - 1) * 8192 + 4096;
        f.add(1 << 40, 512);
        assert!(f.too_many);
        assert_eq!(f.ranges, vec![(0, (1 << 40) + 512)]);
        f.add(1 << 41, 512);
        assert_eq!(f.ranges, vec![(0, (1 << 41) + 512)]);
        // A worker over the cap makes the merged list too many as well.
        let mut g = FailedWrites::default();
        g.add(0, 4096);
        g.merge(f);
        assert!(g.too_many);
        assert_eq!(g.ranges, vec![(0, (1 << 41) + 512)]);
        assert!(last < 1 << 40);
    }

    #[test]
    fn device_gone_is_fatal_enospc_is_not() {
        let os = |n| {
            e(
                Direction::Write,
                0,
                IoCause::Os(io::Error::from_raw_os_error(n)),
            )
        };
        assert!(is_fatal(&os(libc::ENODEV)));
        assert!(!is_fatal(&os(libc::ENOSPC)));
        assert!(!is_fatal(&os(libc::EIO)));
        assert!(!is_fatal(&e(Direction::Read, 0, IoCause::Short(0))));
    }
}
