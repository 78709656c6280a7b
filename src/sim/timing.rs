//! When the simulated drive's work happens: a controller serving one command at a time, a host interface of
//! fixed bandwidth, a write buffer that drains as pages are programmed, and dies that each do one read,
//! program or erase at a time. All times are virtual nanoseconds on the drive's clock; every resource is
//! reserved first come, first served, so the same requests in the same order give the same times.

use super::params::{SimParams, UNIT};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Flash work the FTL asks for: what it costs in time is decided here.
pub trait Flash {
    /// Reads a page on `die` once `at` has passed; returns when the data is out.
    fn read_page(&mut self, die: u32, at: u64) -> u64;
    /// Programs a page of superblock `sb` on `die` once its data is ready at `ready`; `host_units`
    /// buffered host units leave the write buffer when it is done. Returns when the program ends.
    fn program_page(&mut self, die: u32, sb: u32, ready: u64, host_units: u32) -> u64;
    /// Erases one block on every die, each once `at` has passed.
    fn erase_superblock(&mut self, at: u64);
    /// The pace of background collection for the next victim, as a factor of the pace that keeps up
    /// exactly: 1 without jitter.
    fn gc_pace_factor(&mut self) -> f64 {
        1.0
    }
}

/// The drive's resources and when each is next free.
#[derive(Debug, Clone)]
pub struct Timing {
    die_free: Vec<u64>,
    ctrl_free: u64,
    link_free: u64,
    cmd_ns: u64,
    read_ns: u64,
    program_ns: u64,
    erase_ns: u64,
    link_bytes_per_s: u64,
    buffer_units: u32,
    buffered: u32,
    /// Pending buffer releases: (time, units), earliest first.
    releases: BinaryHeap<Reverse<(u64, u32)>>,
    /// Total die time reserved, ns (reads, programs, erases on every die).
    pub busy_ns: u64,
    /// Timing variation, if any.
    jitter: Option<Jitter>,
}

/// Parts per million: the unit of the jitter's factors.
const PPM: u64 = 1_000_000;
/// With jitter, the share of page reads that need retries, ppm: 1 in 1000.
const RETRY_PPM: u64 = 1_000;
/// A read with retries takes this many reads' time.
const RETRY_READS: u64 = 4;

/// The timing variation of `jitter`: a factor per operation and one per superblock for its programs, each
/// uniform in [1 − jitter, 1 + jitter] (in parts per million), drawn from a SplitMix64 stream of the seed in
/// the order the model asks for operations, so the same requests give the same times.
#[derive(Debug, Clone)]
struct Jitter {
    /// Half-width of the factors' range, ppm (jitter 20 % = 200,000).
    half: u64,
    /// The stream's state.
    state: u64,
    /// Each superblock's program factor, ppm.
    block: Vec<u32>,
}

impl Jitter {
    fn new(p: &SimParams, superblocks: u32) -> Option<Jitter> {
        let half = p.jitter.0 / (crate::units::PERCENT_SCALE / PPM);
        if half == 0 {
            return None;
        }
        let mut j = Jitter {
            half,
            state: p.seed ^ 0x5349_4d4a_4954_5452, // "SIMJITTR": seeds 0 and 1 differ from the raw stream
            block: Vec::new(),
        };
        j.block = (0..superblocks).map(|_| j.factor() as u32).collect();
        Some(j)
    }

    /// The next factor, ppm: uniform in [PPM − half, PPM + half].
    #[inline]
    fn factor(&mut self) -> u64 {
        PPM - self.half + self.next() % (2 * self.half + 1)
    }

    /// A draw uniform in [0, PPM).
    #[inline]
    fn draw(&mut self) -> u64 {
        self.next() % PPM
    }

    /// The stream's next value (SplitMix64).
    #[inline]
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `ns` scaled by `ppm` parts per million.
#[inline]
fn scale(ns: u64, ppm: u64) -> u64 {
    (ns as u128 * ppm as u128 / PPM as u128) as u64
}

impl Timing {
    /// Idle resources for `p` with `dies` dies and `superblocks` superblocks, whose pages hold up to
    /// `page_units` host units (more than page / 4 KiB with compression).
    pub fn new(p: &SimParams, dies: u32, superblocks: u32, page_units: u32) -> Timing {
        Timing {
            die_free: vec![0; dies as usize],
            ctrl_free: 0,
            link_free: 0,
            cmd_ns: p.command_time.0,
            read_ns: p.read_time.0,
            program_ns: p.program_time.0,
            erase_ns: p.erase_time.0,
            link_bytes_per_s: p.interface_bytes_per_s.0.max(1),
            // At least two pages' worth, so that an open page never blocks its own completion.
            buffer_units: ((p.buffer.0 / UNIT) as u32).max(2 * page_units),
            buffered: 0,
            releases: BinaryHeap::new(),
            busy_ns: 0,
            jitter: Jitter::new(p, superblocks),
        }
    }

    /// `ns` with the operation's variation (and superblock `sb`'s, for a program), if any.
    #[inline]
    fn vary(&mut self, ns: u64, sb: Option<u32>) -> u64 {
        let Some(j) = self.jitter.as_mut() else {
            return ns;
        };
        let ns = match sb {
            Some(sb) => scale(ns, j.block[sb as usize] as u64),
            None => ns,
        };
        scale(ns, j.factor())
    }

    /// The controller takes a command arriving at `at`; returns when it has been processed.
    #[inline]
    pub fn command(&mut self, at: u64) -> u64 {
        let ns = self.vary(self.cmd_ns, None);
        self.ctrl_free = self.ctrl_free.max(at) + ns;
        self.ctrl_free
    }

    /// Moves `bytes` over the host interface once `at` has passed; returns when the transfer ends.
    #[inline]
    pub fn transfer(&mut self, at: u64, bytes: u64) -> u64 {
        let ns = (bytes as u128 * 1_000_000_000).div_ceil(self.link_bytes_per_s as u128) as u64;
        self.link_free = self.link_free.max(at) + ns;
        self.link_free
    }

    /// A host unit arriving at `at` enters the write buffer: at `at`, or when enough programs have ended to
    /// make room. Returns the time it is in.
    #[inline]
    pub fn admit(&mut self, at: u64) -> u64 {
        let mut t = at;
        while self.buffered >= self.buffer_units {
            match self.releases.pop() {
                Some(Reverse((when, n))) => {
                    t = t.max(when);
                    self.buffered -= n;
                }
                // Cannot happen: the buffer holds at least two full pages of units (see `new`), and only
                // the open page's units wait without a release.
                None => break,
            }
        }
        // Releases that have already happened free their space without waiting.
        while let Some(&Reverse((when, n))) = self.releases.peek() {
            if when > t {
                break;
            }
            self.releases.pop();
            self.buffered -= n;
        }
        self.buffered += 1;
        t
    }

    /// The latest time any die is busy until (the end of all scheduled flash work).
    pub fn flash_idle_at(&self) -> u64 {
        self.die_free.iter().copied().max().unwrap_or(0)
    }
}

impl Flash for Timing {
    #[inline]
    fn read_page(&mut self, die: u32, at: u64) -> u64 {
        let mut ns = self.vary(self.read_ns, None);
        // A read that needs retries (the page's cells read again at shifted reference voltages) takes the
        // time of RETRY_READS reads.
        if let Some(j) = self.jitter.as_mut()
            && j.draw() < RETRY_PPM
        {
            ns *= RETRY_READS;
        }
        let d = &mut self.die_free[die as usize];
        *d = (*d).max(at) + ns;
        self.busy_ns += ns;
        *d
    }

    #[inline]
    fn program_page(&mut self, die: u32, sb: u32, ready: u64, host_units: u32) -> u64 {
        let ns = self.vary(self.program_ns, Some(sb));
        let d = &mut self.die_free[die as usize];
        *d = (*d).max(ready) + ns;
        self.busy_ns += ns;
        if host_units > 0 {
            self.releases.push(Reverse((*d, host_units)));
        }
        *d
    }

    fn gc_pace_factor(&mut self) -> f64 {
        match self.jitter.as_mut() {
            Some(j) => j.factor() as f64 / PPM as f64,
            None => 1.0,
        }
    }

    fn erase_superblock(&mut self, at: u64) {
        for die in 0..self.die_free.len() {
            let ns = self.vary(self.erase_ns, None);
            let d = &mut self.die_free[die];
            *d = (*d).max(at) + ns;
            self.busy_ns += ns;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(s: &str) -> Timing {
        let p = SimParams::parse_target(s).unwrap();
        Timing::new(&p, p.dies.unwrap_or(1), 8, (p.page.0 / UNIT) as u32)
    }

    #[test]
    fn dies_serve_one_operation_at_a_time() {
        let mut t = timing("sim:dies=2,read_time=50us,program_time=1ms,erase_time=3ms,jitter=0%");
        assert_eq!(t.read_page(0, 0), 50_000);
        assert_eq!(
            t.read_page(0, 10_000),
            100_000,
            "queued behind the first read"
        );
        assert_eq!(t.read_page(1, 10_000), 60_000, "another die is free");
        assert_eq!(t.program_page(1, 0, 0, 0), 1_060_000);
        t.erase_superblock(0);
        assert_eq!(t.flash_idle_at(), 4_060_000);
        assert_eq!(t.read_page(0, 0), 3_150_000);
    }

    #[test]
    fn controller_and_interface_serialise() {
        let mut t = timing("sim:command_time=10us,interface_bytes_per_s=1GB,jitter=0%");
        assert_eq!(t.command(0), 10_000);
        assert_eq!(t.command(0), 20_000);
        assert_eq!(t.command(100_000), 110_000);
        assert_eq!(t.transfer(0, 4096), 4096);
        assert_eq!(t.transfer(0, 4096), 8192);
    }

    #[test]
    fn jitter_draws_factors_within_its_range_from_the_seed() {
        // Without jitter every operation takes its nominal time.
        let mut t = timing("sim:program_time=1ms,jitter=0%");
        assert_eq!(t.program_page(0, 3, 0, 0), 1_000_000);
        // 20 %: a superblock's factor and an operation's, each in [0.8, 1.2].
        let run = |seed: u64| {
            let mut t = timing(&format!(
                "sim:program_time=1ms,read_time=50us,jitter=20%,seed={seed}"
            ));
            let programs: Vec<u64> = (0..200)
                .map(|i| {
                    let before = t.die_free[0];
                    t.program_page(0, i % 8, 0, 0) - before
                })
                .collect();
            let before = t.die_free[0];
            let read = t.read_page(0, 0) - before;
            (programs, read)
        };
        let (a, read) = run(1);
        assert!(
            a.iter().all(|&ns| (640_000..=1_440_000).contains(&ns)),
            "{a:?}"
        );
        assert!((40_000..=60_000).contains(&read), "{read}");
        let mean = a.iter().sum::<u64>() as f64 / a.len() as f64;
        assert!((mean - 1e6).abs() < 0.05e6, "mean program time {mean}");
        assert!(a.iter().collect::<std::collections::BTreeSet<_>>().len() > 150);
        assert_eq!(run(1), (a.clone(), read), "same seed, same times");
        assert_ne!(run(2).0, a, "another seed, other times");
    }

    #[test]
    fn jitter_varies_commands_and_gc_pace_and_a_read_in_a_thousand_retries() {
        let mut t = timing("sim:read_time=50us,command_time=10us,jitter=30%");
        let reads: Vec<u64> = (0..100_000)
            .map(|_| {
                let before = t.die_free[0];
                t.read_page(0, before) - before
            })
            .collect();
        // Plain reads in [35, 65] µs; a read with retries takes 4 reads' time: [140, 260] µs.
        let retried = reads.iter().filter(|&&ns| ns > 65_000).count();
        assert!(
            reads
                .iter()
                .all(|&ns| (35_000..=65_000).contains(&ns) || (140_000..=260_000).contains(&ns))
        );
        // 1 in 1000 of 100,000: 100 expected, within 4 standard deviations (sqrt(100) = 10).
        assert!((60..=140).contains(&retried), "{retried} reads retried");
        let commands: Vec<u64> = (0..10_000)
            .map(|_| {
                let before = t.ctrl_free;
                t.command(before) - before
            })
            .collect();
        assert!(commands.iter().all(|&ns| (7_000..=13_000).contains(&ns)));
        let mean = commands.iter().sum::<u64>() as f64 / 1e4;
        assert!((mean - 10_000.0).abs() < 100.0, "mean command time {mean}");
        let paces: Vec<f64> = (0..1000).map(|_| t.gc_pace_factor()).collect();
        assert!(paces.iter().all(|f| (0.7..=1.3).contains(f)), "{paces:?}");
        assert!(paces.iter().any(|&f| f < 0.8) && paces.iter().any(|&f| f > 1.2));
        // Without jitter: nominal times, the exact pace.
        let mut t = timing("sim:read_time=50us,command_time=10us,jitter=0%");
        assert!((0..10_000).all(|i| t.read_page(0, i * 50_000) == (i + 1) * 50_000));
        assert_eq!(t.gc_pace_factor(), 1.0);
    }

    #[test]
    fn a_full_buffer_waits_for_programs() {
        // 8 KiB buffer with 4 KiB pages: 2 units.
        let mut t = timing("sim:page=4KiB,block=64KiB,buffer=8KiB,program_time=1ms,jitter=0%");
        assert_eq!(t.admit(0), 0);
        assert_eq!(t.admit(0), 0);
        t.program_page(0, 0, 0, 1); // frees 1 unit at 1 ms
        t.program_page(0, 0, 0, 1); // and 1 at 2 ms
        assert_eq!(t.admit(5), 1_000_000);
        assert_eq!(t.admit(5), 2_000_000);
        // After 2 ms nothing is pending: the next unit waits for nothing but the buffer is full again.
        assert_eq!(t.buffered, 2);
    }
}
