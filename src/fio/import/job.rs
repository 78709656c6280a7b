//! A fio job as fio sees it once its options are read: each section starts as a copy of the `[global]`
//! options read so far and applies its own in order (fio's model). Every option is mapped, noted or
//! refused by its row of [`crate::spec::fio::FIO_KEYS`]; a value fio would not take is a problem.

use crate::fio::jobfile::Section;
use crate::fio::value::{self, Size};
use crate::fio::{Place, Problem, unknown_option};
use crate::spec::fio::{FioOption, FioType, Import, fio_option, row};
use crate::vocab::DataPattern;

/// fio's `rw`: the offsets' order and the directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rw {
    /// Random offsets.
    pub random: bool,
    /// Reads.
    pub read: bool,
    /// Writes.
    pub write: bool,
    /// Trims (`rw=trim`, `rw=randtrim`: trims only).
    pub trim: bool,
}

/// The part of fio's `rate_iops` or `rate` that caps trims ([`Job::trim_rates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrimRate {
    /// Where the option was written.
    pub at: Place,
    /// The option as written: `rate_iops=100,100,50`.
    pub text: String,
    /// The cap per job: I/Os per second (`rate_iops`) or bytes per second (`rate`).
    pub cap: u64,
    /// Whether the value writes a third part (`100,100,50`, `,,300`), a cap on trims of its own; `100` and
    /// `100,200` cap trims with the part they give reads and writes too.
    pub own: bool,
}

/// A block size of one direction: one size, a weighted mix, or a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocks {
    /// One size, bytes.
    One(u64),
    /// `(bytes, percent)`, fio's bssplit with its missing percentages filled in.
    Split(Vec<(u64, u64)>),
    /// fio's bsrange, bytes, inclusive.
    Range(u64, u64),
}

impl Blocks {
    /// fio's bsrange `lo-hi` (`lo:hi`) of `t`, one size where both ends are one.
    ///
    /// # Errors
    /// What is wrong with it.
    pub fn range(t: &str, kb: u64) -> Result<Blocks, String> {
        let (a, b) = value::range(t, kb)?;
        Ok(if a == b {
            Blocks::One(a)
        } else {
            Blocks::Range(a, b)
        })
    }

    /// The sizes and weights of wkrun's block-size mix for these: one size alone; a bssplit's as given; a
    /// bsrange's every multiple of its smallest size up to its largest, equally often, where the largest
    /// is a multiple of the smallest and at most 64 times it (`None` for another range).
    pub fn mix(&self) -> Option<Vec<(u64, u64)>> {
        match *self {
            Blocks::One(b) => Some(vec![(b, 1)]),
            Blocks::Split(ref v) => Some(v.clone()),
            Blocks::Range(lo, hi) if lo > 0 && hi % lo == 0 && hi / lo <= 64 => {
                Some((1..=hi / lo).map(|k| (k * lo, 1)).collect())
            }
            Blocks::Range(..) => None,
        }
    }
}

/// A remark on an option: what it was and why it was noted or refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remark {
    /// Where.
    pub at: Place,
    /// The option as written (`thinktime=10`).
    pub text: String,
    /// Why, in words.
    pub why: String,
}

impl Remark {
    /// Whether this refusal says what `--lossy` imports instead (its why ends `(--lossy: WHAT)`): under
    /// `--lossy` it is approximated so, not dropped (trial 20 F3: a rounded rate cap was said dropped).
    pub fn approximated(&self) -> bool {
        self.why.contains("(--lossy: ")
    }
}

/// A job's options, read.
#[derive(Debug, Clone)]
pub struct Job {
    /// The job's name: its `name` option, else its section's.
    pub name: String,
    /// Where its section starts.
    pub at: Place,
    /// `description`.
    pub description: Option<String>,
    /// `kb_base`: 1024 or 1000.
    pub kb_base: u64,
    /// `rw` and where it was set.
    pub rw: Rw,
    /// `sync`: `"sync"` or `"dsync"`, or none.
    pub sync: Option<&'static str>,
    /// `fsync` or `fdatasync` and its number of writes.
    pub flush: Option<(&'static str, u64)>,
    /// Where `flush` was set.
    pub flush_at: Option<Place>,
    /// `rwmixread`, percent.
    pub rwmixread: u64,
    /// Block sizes of reads, writes and trims, where each was set last ([`value::directions`]).
    pub bs: [Blocks; 3],
    /// Where the block size was set.
    pub bs_at: Option<Place>,
    /// `ba` (blockalign), bytes, and where.
    pub ba: Option<(u64, Place)>,
    /// `iodepth`.
    pub iodepth: u64,
    /// `numjobs`.
    pub numjobs: u64,
    /// `size`.
    pub size: Option<Size>,
    /// `io_size`.
    pub io_size: Option<Size>,
    /// `offset`.
    pub offset: Option<Size>,
    /// `offset_increment`, bytes, and where.
    pub offset_increment: Option<(Size, Place)>,
    /// `filesize`, bytes.
    pub filesize: Option<u64>,
    /// `filename`, and where.
    pub filename: Option<(String, Place)>,
    /// `directory`.
    pub directory: Option<String>,
    /// `runtime`, µs, and where.
    pub runtime_us: Option<(u64, Place)>,
    /// `time_based`.
    pub time_based: bool,
    /// `ramp_time`, µs.
    pub ramp_us: Option<u64>,
    /// `rate_iops` per direction, per job.
    pub rate_iops: [Option<u64>; 2],
    /// Where `rate_iops` was written, and its value as written.
    pub rate_iops_at: Option<(Place, String)>,
    /// `rate_process=poisson`.
    pub poisson: bool,
    /// `thinktime`, µs (0: none).
    pub think_us: u64,
    /// Where `thinktime` was set.
    pub think_at: Option<Place>,
    /// `thinktime_blocks_type` (`complete` or `issue`) and where; `None`: fio's default, `complete`.
    pub think_type: Option<(String, Place)>,
    /// `thinktime_blocks` (fio's default 1).
    pub think_blocks: u64,
    /// `latency_target`, µs (0: none), and where.
    pub latency_target_us: (u64, Option<Place>),
    /// `latency_window`, µs (0: none).
    pub latency_window_us: u64,
    /// `latency_percentile` (fio's default 100).
    pub latency_percentile: f64,
    /// `rate` per direction, bytes per second per job, and where, with its value as written.
    pub rate_bytes: ([Option<u64>; 2], Option<(Place, String)>),
    /// The `rate_iops` and `rate` (in that order) that cap trims (the value's third part, else its last):
    /// what the import's rate rule makes of them depends on the job's directions (a job of trims only: its cap).
    pub trim_rates: [Option<TrimRate>; 2],
    /// `ioengine` as fio names it, and where.
    pub engine: (String, Option<Place>),
    /// `direct` (or not `buffered`).
    pub direct: bool,
    /// fio's random map (no `norandommap`).
    pub random_map: bool,
    /// `randseed`.
    pub seed: Option<u64>,
    /// `random_distribution`, when not uniform.
    pub distribution: Option<crate::spec::Distribution>,
    /// Data written.
    pub data: DataPattern,
    /// `verify`'s checksum, and where.
    pub verify: Option<(String, Place)>,
    /// `do_verify`.
    pub do_verify: bool,
    /// `steadystate`'s criterion as written, and where.
    pub ss: Option<(String, Place)>,
    /// `ss_dur`, `ss_ramp`, `ss_interval`, µs, and where each was written (`None`: fio's default).
    pub ss_times: [(u64, Option<Place>); 3],
    /// `loops`.
    pub loops: u64,
    /// `stonewall` (or the first job of a later job file).
    pub stonewall: bool,
    /// `wait_for`, and where.
    pub wait_for: Option<(String, Place)>,
    /// `continue_on_error`: whether failed I/Os are counted and the job goes on.
    pub on_error_continue: Option<bool>,
    /// `log_avg_msec`.
    pub interval_ms: Option<u64>,
    /// `invalidate`.
    pub invalidate: bool,
    /// `sqthread_poll` (io_uring's kernel thread polling its submission queue): where it was turned on,
    /// bare or nonzero; `None` off (fio's default).
    pub sq_poll: Option<Place>,
    /// `sqthread_poll_cpu`: the CPU fio pins that thread to, as written, and where.
    pub sq_poll_cpu: Option<(String, Place)>,
    /// Options accepted with a note.
    pub notes: Vec<Remark>,
    /// Options with no wkrun meaning.
    pub refused: Vec<Remark>,
}

impl Job {
    /// The directions fio does, reads and writes: `rw`'s, less one that `rwmixread` gives no share (fio
    /// 3.33, `rw=randrw --rate_iops=100`: `rwmixread=100` did 100.3 reads/s and no write, `rwmixread=0`
    /// no read). What the import and the JSON reader both cap and mix by.
    pub fn directions(&self) -> [bool; 2] {
        let both = self.rw.read && self.rw.write;
        [
            self.rw.read && !(both && self.rwmixread == 0),
            self.rw.write && !(both && self.rwmixread == 100),
        ]
    }

    /// The directions fio does, reads, writes and trims ([`Job::directions`] and `rw`'s trims): whose
    /// block sizes the job uses ([`used_sizes`]).
    pub fn used(&self) -> [bool; 3] {
        let [read, write] = self.directions();
        [read, write, self.rw.trim]
    }

    /// fio's refusal of a job with both `rate` and `rate_iops`, each capping some direction (fio 3.33:
    /// "rate and rate_iops are mutually exclusive", and no run, whichever directions each caps: `rate=1m,`
    /// with `rate_iops=,100` too; a value of 0 caps nothing and is taken): the problem naming both.
    pub fn both_rates(&self) -> Option<Problem> {
        let bytes = self.rate_bytes.0.iter().any(Option::is_some) || self.trim_rates[1].is_some();
        let iops = self.rate_iops.iter().any(Option::is_some) || self.trim_rates[0].is_some();
        let ((rat, rv), (iat, iv)) = (self.rate_bytes.1.as_ref()?, self.rate_iops_at.as_ref()?);
        (bytes && iops).then(|| {
            Problem::new(
                iat.clone(),
                format!(
                    "rate_iops={iv} beside rate={rv} ({rat}): fio refuses a job with both (\"rate and rate_iops are mutually exclusive\") and runs nothing; keep one of them"
                ),
            )
        })
    }

    /// Whether the job does trims only (`rw=trim`, `rw=randtrim`), which a cap on trims caps.
    pub fn trims_only(&self) -> bool {
        self.rw.trim && !self.rw.read && !self.rw.write
    }

    /// Sets fio's rate cap `name` (`rate_iops` or `rate`) to `v` (sizes in `kb`), written at `at`, as the
    /// import and the JSON reader read it: the caps of reads and writes, and the part that caps trims
    /// ([`Job::trim_rates`]).
    ///
    /// # Errors
    /// A part that is not a number.
    pub fn set_rate(&mut self, name: &str, v: &str, kb: u64, at: &Place) -> Result<(), String> {
        let caps = rate_caps(v, kb)?;
        let trim = trim_part(v)
            .map(|t| value::int(t, kb))
            .transpose()?
            .filter(|&n| n > 0);
        let which = usize::from(name == "rate");
        self.trim_rates[which] = trim.map(|cap| TrimRate {
            at: at.clone(),
            text: format!("{name}={}", v.trim()),
            cap,
            own: v.split(',').nth(2).is_some_and(|t| !t.trim().is_empty()),
        });
        match which {
            0 => {
                self.rate_iops = caps;
                self.rate_iops_at = Some((at.clone(), v.trim().to_string()));
            }
            _ => self.rate_bytes = (caps, Some((at.clone(), v.trim().to_string()))),
        }
        Ok(())
    }

    /// fio's defaults.
    pub fn fio_default(at: Place) -> Job {
        Job {
            name: String::new(),
            at,
            description: None,
            kb_base: 1024,
            rw: Rw {
                random: false,
                read: true,
                write: false,
                trim: false,
            },
            rwmixread: 50,
            sync: None,
            flush: None,
            flush_at: None,
            bs: [Blocks::One(4096), Blocks::One(4096), Blocks::One(4096)],
            bs_at: None,
            ba: None,
            iodepth: 1,
            numjobs: 1,
            size: None,
            io_size: None,
            offset: None,
            offset_increment: None,
            filesize: None,
            filename: None,
            directory: None,
            runtime_us: None,
            time_based: false,
            ramp_us: None,
            rate_iops: [None; 2],
            rate_iops_at: None,
            poisson: false,
            think_us: 0,
            think_at: None,
            think_type: None,
            think_blocks: 1,
            latency_target_us: (0, None),
            latency_window_us: 0,
            latency_percentile: 100.0,
            rate_bytes: ([None; 2], None),
            trim_rates: [None, None],
            engine: ("psync".into(), None),
            direct: false,
            random_map: true,
            seed: None,
            distribution: None,
            data: DataPattern::Random,
            verify: None,
            do_verify: true,
            ss: None,
            ss_times: [(0, None), (0, None), (1_000_000, None)],
            loops: 1,
            stonewall: false,
            wait_for: None,
            on_error_continue: None,
            interval_ms: None,
            invalidate: true,
            sq_poll: None,
            sq_poll_cpu: None,
            notes: Vec::new(),
            refused: Vec::new(),
        }
    }
}

/// What became of one option.
enum Outcome {
    /// Read into the job.
    Done,
    /// Accepted with a note.
    Note(String),
    /// No wkrun meaning.
    Refuse(String),
}

/// Applies the section's options to `job` (a copy of the globals so far) in the order fio applies them
/// ([`Section::applied`]: a job file's `kb_base` first, the command line's as written). Values fio would
/// not take go to `problems`.
pub fn apply(job: &mut Job, section: &Section, problems: &mut Vec<Problem>) {
    for o in section.applied() {
        let Some(fo) = fio_option(&o.key) else {
            problems.push(unknown_option(o.at.clone(), &o.key));
            continue;
        };
        if o.value.is_none() && !matches!(fo.kind, FioType::Flag | FioType::Text) {
            problems.push(Problem::new(
                o.at.clone(),
                format!("{}: fio's `{}` needs a value", o.text(), o.key),
            ));
            continue;
        }
        let value = o.value.as_deref().unwrap_or("");
        let outcome = match (refused(&fo, value), row(fo.name).map(|r| (r.import, r))) {
            (Some(why), _) => Ok(Outcome::Refuse(why)),
            (None, Some((Import::Noted, r))) => Ok(Outcome::Note(r.hint.to_string())),
            (None, Some((Import::Mapped, _))) => map(job, fo.name, value, &o.at),
            // A refused row's neutral value (fio's default) asks for nothing.
            (None, _) => Ok(Outcome::Done),
        };
        let remark = |why: String| Remark {
            at: o.at.clone(),
            text: o.text(),
            why,
        };
        match outcome {
            Ok(Outcome::Done) => {}
            Ok(Outcome::Note(why)) => job.notes.push(remark(why)),
            Ok(Outcome::Refuse(why)) => job.refused.push(remark(why)),
            Err(why) => problems.push(Problem::new(o.at.clone(), format!("{}: {why}", o.text()))),
        }
    }
}

/// Why `wkrun import fio` refuses fio's option `fo` with `value`, if it does: one the table
/// ([`crate::spec::fio::FIO_KEYS`]) has no row for, or a refused row's value other than its neutral ones.
fn refused(fo: &FioOption, value: &str) -> Option<String> {
    match row(fo.name) {
        None => Some(no_meaning(fo.name, fo.from)),
        Some(r) if r.import == Import::Refused && !r.neutral.contains(&value.trim()) => {
            Some(r.hint.to_string())
        }
        Some(_) => None,
    }
}

/// Why `wkrun import fio` refuses fio's option `name` (or an alias of it) with `value`, if it does ([`apply`]'s
/// rule), as fio's JSON output reads it back (`fio::json`: a think time shaped by an option the import
/// refuses is not read); `None` for an option it maps or notes, or one fio does not know.
pub fn refusal(name: &str, value: &str) -> Option<String> {
    refused(&fio_option(name)?, value)
}

/// Why a think time's bursts in fio are not wkrun's, if they are not: wkrun counts a burst's `think_every`
/// I/Os as it issues them, fio's `thinktime_blocks_type=issue`; fio's `complete` (`kind`, or `None`: not
/// given, so fio's default) counts them as they complete, which is the same count only with one I/O in
/// flight (`iodepth` 1, or an `engine` that keeps one, [`crate::fio::json::one_io_in_flight`]) or bursts of
/// one I/O (`blocks`, `thinktime_blocks`, 1). The one rule of `wkrun import fio` (it refuses such a think
/// time) and fio's JSON reader (it leaves it unread). fio 3.33, libaio, `thinktime=1ms`, iodepth 8,
/// `thinktime_blocks=4`: 5.51 I/Os per think at `complete`, 4.0 at `issue`.
pub fn think_count(kind: Option<&str>, engine: &str, iodepth: u64, blocks: u64) -> Option<String> {
    let complete = kind.is_none_or(|k| k.trim() != "issue");
    if !complete || iodepth <= 1 || blocks <= 1 || crate::fio::json::one_io_in_flight(engine) {
        return None;
    }
    Some(format!(
        "fio counts a burst's thinktime_blocks={blocks} I/Os as they complete, and with ioengine={engine} at iodepth={iodepth} it issues more meanwhile, so its bursts are longer than wkrun's `think_every`, which counts them as it issues them: give thinktime_blocks_type=issue, which wkrun runs exactly (--lossy: counted at issue)"
    ))
}

/// How a job's `thinktime_blocks_type` (`kind`, `None`: not given) that [`think_count`] refuses is named.
pub fn think_type_text(kind: Option<&str>) -> String {
    match kind {
        Some(k) => format!("thinktime_blocks_type={}", k.trim()),
        None => "thinktime_blocks_type=complete (fio's default)".to_string(),
    }
}

/// Why an option the table has no row for is refused.
fn no_meaning(name: &str, from: &str) -> String {
    match from.split_once(':') {
        Some(("engine", e)) => {
            format!("`{name}` is an option of fio's {e} engine, which has no wkrun meaning")
        }
        Some(("profile", p)) => {
            format!("`{name}` is an option of fio's {p} profile, which has no wkrun meaning")
        }
        _ => format!("fio's `{name}` has no wkrun meaning (yet)"),
    }
}

/// Reads a mapped option into the job.
fn map(job: &mut Job, name: &str, v: &str, at: &Place) -> Result<Outcome, String> {
    match name {
        "global" | "readwrite" | "blocksize" => Ok(Outcome::Done),
        "rw" | "rwmixread" | "rwmixwrite" | "bs" | "bssplit" | "bsrange" | "ba" => {
            map_blocks(job, name, v, at)
        }
        "size" | "io_size" | "offset" | "offset_increment" | "filesize" | "filename"
        | "directory" | "nrfiles" | "numjobs" | "iodepth" | "loops" => map_region(job, name, v, at),
        "runtime"
        | "time_based"
        | "ramp_time"
        | "rate_iops"
        | "rate"
        | "rate_process"
        | "thinktime"
        | "thinktime_blocks"
        | "thinktime_blocks_type"
        | "stonewall"
        | "wait_for"
        | "name"
        | "description" => map_time(job, name, v, at),
        "latency_target" => {
            job.latency_target_us = (value::time_us(v, false)?, Some(at.clone()));
            Ok(Outcome::Done)
        }
        "latency_window" => {
            job.latency_window_us = value::time_us(v, false)?;
            Ok(Outcome::Done)
        }
        "latency_percentile" => {
            let q: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("`{}` is not a number", v.trim()))?;
            if !(q > 0.0 && q <= 100.0) {
                return Err(format!("{q} is not a percentile above 0 and at most 100"));
            }
            job.latency_percentile = q;
            Ok(Outcome::Done)
        }
        "steadystate"
        | "steadystate_duration"
        | "steadystate_ramp_time"
        | "steadystate_check_interval"
        | "log_avg_msec" => map_steady(job, name, v, at),
        "kb_base" => {
            job.kb_base = match v.trim() {
                "1024" => 1024,
                "1000" => 1000,
                t => return Err(format!("kb_base is 1024 or 1000, not `{t}`")),
            };
            Ok(Outcome::Done)
        }
        _ => map_io(job, name, v, at),
    }
}

/// `rw`, the mix and block sizes.
fn map_blocks(job: &mut Job, name: &str, v: &str, at: &Place) -> Result<Outcome, String> {
    let kb = job.kb_base;
    match name {
        "rw" => {
            let (word, skip) = match v.split_once(':') {
                Some((w, s)) => (w.trim(), Some(s.trim())),
                None => (v.trim(), None),
            };
            let (random, read, write) = match word {
                "read" | "trim" => (false, word == "read", false),
                "write" => (false, false, true),
                "rw" | "readwrite" => (false, true, true),
                "randread" | "randtrim" => (true, word == "randread", false),
                "randwrite" => (true, false, true),
                "randrw" => (true, true, true),
                "trimwrite" | "randtrimwrite" => {
                    return Ok(Outcome::Refuse(format!(
                        "fio's rw={word} trims each block and then writes that same block; wkrun's trims are a share of independent I/Os (trim_percent), so the pairing cannot be kept"
                    )));
                }
                w => return Err(format!("`{w}` is not one of fio's rw values")),
            };
            job.rw = Rw {
                random,
                read,
                write,
                trim: word.ends_with("trim"),
            };
            if let Some(s) = skip.filter(|s| !s.is_empty() && *s != "0") {
                return Ok(Outcome::Refuse(format!(
                    "fio's `:{s}` skips between sequential I/Os, or takes a new random offset every {s} I/Os; wkrun's offsets are plainly sequential or random"
                )));
            }
            Ok(Outcome::Done)
        }
        "rwmixread" | "rwmixwrite" => {
            let n = value::int(v, kb)?;
            if n > 100 {
                return Err(format!("{n} is more than 100 %"));
            }
            job.rwmixread = value::read_mix(name, n);
            Ok(Outcome::Done)
        }
        "bs" => set_blocks(job, v, at, |t| match value::bytes(t, kb)? {
            0 => Err("a block size is at least 1 B".into()),
            n => Ok(Blocks::One(n)),
        }),
        "bsrange" => set_blocks(job, v, at, |t| Blocks::range(t, kb)),
        "bssplit" => set_blocks(job, v, at, |t| split(t, kb)),
        "ba" => {
            let a = value::directions(v)[0].ok_or("no value")?;
            job.ba = Some((value::bytes(a, kb)?, at.clone()));
            Ok(Outcome::Done)
        }
        _ => unreachable!("map_blocks: {name}"),
    }
}

/// Sets the block sizes of the directions `v` names (`read,write[,trim]`, [`set_sizes`]).
fn set_blocks(
    job: &mut Job,
    v: &str,
    at: &Place,
    parse: impl Fn(&str) -> Result<Blocks, String>,
) -> Result<Outcome, String> {
    set_sizes(&mut job.bs, v, parse)?;
    job.bs_at = Some(at.clone());
    Ok(Outcome::Done)
}

/// Sets `bs`, the block sizes of reads, writes and trims, to those fio's `bs`, `bsrange` or `bssplit`
/// value `v` gives each ([`value::directions`]: a direction the value leaves empty keeps its size), each
/// part read by `parse`; the one rule of the import and of fio's JSON read.
///
/// # Errors
/// No value, or a part `parse` refuses.
pub fn set_sizes(
    bs: &mut [Blocks; 3],
    v: &str,
    parse: impl Fn(&str) -> Result<Blocks, String>,
) -> Result<(), String> {
    let parts = value::directions(v);
    if parts.iter().all(Option::is_none) {
        return Err("no value".into());
    }
    for (d, p) in parts.iter().enumerate() {
        if let Some(t) = p {
            bs[d] = parse(t)?;
        }
    }
    Ok(())
}

/// The block sizes of the directions `used` (reads, writes, trims) the job does: the one they share, or
/// the first direction's with the names of two whose sizes differ. A direction the job does not do is not
/// asked (fio 3.33 `rw=randtrim --bs=4k,8k,16k` trimmed 16 KiB blocks). The import's rule and fio's JSON's.
pub fn used_sizes(bs: &[Blocks; 3], used: [bool; 3]) -> (&Blocks, Option<[&'static str; 2]>) {
    let names = ["reads", "writes", "trims"];
    let mut them = (0..3).filter(|&d| used[d]);
    let first = them.next().unwrap_or(0);
    let differ = them.find(|&d| bs[d] != bs[first]);
    (&bs[first], differ.map(|d| [names[first], names[d]]))
}

/// fio's bssplit `bs/perc:bs/perc:...`, missing percentages given the rest in equal parts, as fio does.
pub fn split(t: &str, kb: u64) -> Result<Blocks, String> {
    let mut entries = Vec::new();
    for e in t.split(':').filter(|e| !e.trim().is_empty()) {
        let (b, p) = e.split_once('/').unwrap_or((e, ""));
        let bytes = value::bytes(b, kb)?;
        let perc = match p.trim() {
            "" => None,
            p => Some(
                p.parse::<u64>()
                    .map_err(|_| format!("`{p}` is not a whole percentage"))?,
            ),
        };
        entries.push((bytes, perc));
    }
    if entries.is_empty() {
        return Err("an empty bssplit".into());
    }
    let given: u64 = entries.iter().filter_map(|e| e.1).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u64;
    if given > 100 {
        return Err(format!("the percentages add up to {given}, more than 100"));
    }
    let share = (100 - given).checked_div(missing).unwrap_or(0);
    let out: Vec<(u64, u64)> = entries
        .iter()
        .map(|(b, p)| (*b, p.unwrap_or(share)))
        .collect();
    let sum: u64 = out.iter().map(|e| e.1).sum();
    if sum != 100 {
        return Err(format!(
            "the percentages add up to {sum}, not 100 (fio gives the rest to whichever entry it sorts last)"
        ));
    }
    Ok(Blocks::Split(out))
}

/// The region, the number of jobs and depth.
fn map_region(job: &mut Job, name: &str, v: &str, at: &Place) -> Result<Outcome, String> {
    let kb = job.kb_base;
    let first = || value::directions(v)[0].ok_or_else(|| "no value".to_string());
    let zoned = ["size", "io_size", "offset", "offset_increment"].contains(&name);
    if zoned
        && v.trim()
            .strip_suffix(['z', 'Z'])
            .is_some_and(|n| n.parse::<u64>().is_ok())
    {
        return Ok(Outcome::Refuse(
            "a count of zones; wkrun has no zones (zonemode)".into(),
        ));
    }
    match name {
        "size" => job.size = Some(value::size(v, kb)?),
        "io_size" => job.io_size = Some(value::size(v, kb)?),
        "offset" => job.offset = Some(value::size(v, kb)?),
        "offset_increment" => job.offset_increment = Some((value::size(v, kb)?, at.clone())),
        "filesize" => {
            let (lo, hi) = crate::fio::region::filesize(v, kb)?;
            if lo != hi {
                return Ok(Outcome::Refuse(
                    "fio picks each file's size in a range; a wkrun target has one size".into(),
                ));
            }
            job.filesize = Some(lo);
        }
        "filename" => job.filename = Some((v.trim().to_string(), at.clone())),
        "directory" => job.directory = Some(v.trim().to_string()),
        "nrfiles" => {
            let n = value::int(v, kb)?;
            if n != 1 {
                return Ok(Outcome::Refuse(format!(
                    "fio spreads one job's I/Os over {n} files; wkrun's several targets each run the whole phase"
                )));
            }
        }
        "numjobs" => job.numjobs = positive_uint(name, first()?, kb)?,
        "iodepth" => job.iodepth = positive_uint(name, v, kb)?,
        "loops" => job.loops = positive_uint(name, v, kb)?,
        _ => unreachable!("map_region: {name}"),
    }
    Ok(Outcome::Done)
}

/// The value of fio's unsigned int option `name` (`iodepth`, `numjobs`, `loops`: at least 1), refused
/// outside fio's range as fio refuses it.
fn positive_uint(name: &str, v: &str, kb: u64) -> Result<u64, String> {
    match value::int(v, kb)? {
        0 => Err(format!("{name} is at least 1")),
        n if n > u64::from(u32::MAX) => Err(format!(
            "{name} = {n} is past fio's range (an unsigned int: at most {})",
            u32::MAX
        )),
        n => Ok(n),
    }
}

/// Time bounds, rates and the order of jobs.
fn map_time(job: &mut Job, name: &str, v: &str, at: &Place) -> Result<Outcome, String> {
    let kb = job.kb_base;
    match name {
        "runtime" => job.runtime_us = Some((value::time_us(v, true)?, at.clone())),
        "time_based" => job.time_based = flag(v)?,
        // ramp_time=0 is fio's default, no ramp (wkrun's spec has no ramp = 0: omitted).
        "ramp_time" => job.ramp_us = Some(value::time_us(v, true)?).filter(|&r| r > 0),
        "stonewall" => job.stonewall = flag(v)?,
        "wait_for" => job.wait_for = Some((v.trim().to_string(), at.clone())),
        "name" => job.name = v.trim().to_string(),
        "description" => job.description = Some(v.trim().to_string()),
        "rate_iops" | "rate" => {
            job.set_rate(name, v, kb, at)?;
        }
        "rate_process" => match v.trim() {
            "linear" => job.poisson = false,
            "poisson" => job.poisson = true,
            t => return Err(format!("`{t}` is not linear or poisson")),
        },
        "thinktime" => (job.think_us, job.think_at) = (value::time_us(v, false)?, Some(at.clone())),
        "thinktime_blocks_type" => match v.trim() {
            t @ ("complete" | "issue") => job.think_type = Some((t.to_string(), at.clone())),
            t => {
                return Err(format!(
                    "thinktime_blocks_type is complete or issue, not `{t}`"
                ));
            }
        },
        "thinktime_blocks" => {
            job.think_blocks = value::int(v, kb)?;
            if job.think_blocks == 0 {
                return Err("thinktime_blocks is at least 1".into());
            }
        }
        _ => unreachable!("map_time: {name}"),
    }
    Ok(Outcome::Done)
}

/// fio's `rate_iops` or `rate` `read[,write[,trim]]`: the caps of reads and writes per job (`None`: none).
///
/// # Errors
/// No value (fio refuses `rate_iops=`), or a part that is not a number.
fn rate_caps(v: &str, kb: u64) -> Result<[Option<u64>; 2], String> {
    let parts = value::directions(v);
    if parts.iter().all(Option::is_none) {
        return Err("no value".into());
    }
    let mut caps = [None; 2];
    for (d, p) in parts.iter().take(2).enumerate() {
        caps[d] = p.map(|t| value::int(t, kb)).transpose()?.filter(|&n| n > 0);
    }
    Ok(caps)
}

/// The part of fio's `rate_iops` or `rate` value `v` that caps trims: the third, else the last one written
/// (fio 3.33 on a `randtrim` job: `rate_iops=100` 99.95 trims/s, `100,200` 199.90, `100,,300` 299.85;
/// `100,` and `100,0` uncapped); `None` when it caps none.
fn trim_part(v: &str) -> Option<&str> {
    value::directions(v)[2].filter(|&p| p != "0")
}

/// A flag: no value, or 0 or 1.
///
/// # Errors
/// A value that is neither.
pub fn flag(v: &str) -> Result<bool, String> {
    match v.trim() {
        "" => Ok(true),
        t => Ok(value::int(t, 1024)? != 0),
    }
}

/// Steady state and the series interval.
fn map_steady(job: &mut Job, name: &str, v: &str, at: &Place) -> Result<Outcome, String> {
    match name {
        "steadystate" => job.ss = Some((v.trim().to_string(), at.clone())),
        "steadystate_duration" => job.ss_times[0] = (value::time_us(v, true)?, Some(at.clone())),
        "steadystate_ramp_time" => job.ss_times[1] = (value::time_us(v, true)?, Some(at.clone())),
        "steadystate_check_interval" => {
            job.ss_times[2] = (value::time_us(v, true)?, Some(at.clone()));
        }
        "log_avg_msec" => {
            let ms = value::int(v, job.kb_base)?;
            job.interval_ms = (ms > 0).then_some(ms);
        }
        _ => unreachable!("map_steady: {name}"),
    }
    Ok(Outcome::Done)
}

/// fio's `random_distribution=VALUE` as wkrun's `distribution`: the same spelling, but fio's normal
/// deviation is a percentage of the span (wkrun's σ a fraction) and fio scatters a normal's blocks.
fn distribution(job: &mut Job, v: &str) -> Outcome {
    match fio_distribution(v) {
        Ok(None) => {
            job.distribution = None;
            Outcome::Done
        }
        Ok(Some(d)) => {
            let normal = matches!(d, crate::spec::Distribution::Normal(_));
            job.distribution = Some(d);
            match normal {
                true => Outcome::Note("fio's normal:N is wkrun's normal:N/100 (σ a fraction of the span); fio scatters a normal's blocks over the span with a hash, wkrun keeps the bell on the span's middle".into()),
                false => Outcome::Done,
            }
        }
        Err(e) => Outcome::Refuse(e),
    }
}

/// fio's `random_distribution=VALUE` as wkrun's distribution, `None` for uniform offsets.
///
/// # Errors
/// Why wkrun has no such distribution.
pub fn fio_distribution(v: &str) -> Result<Option<crate::spec::Distribution>, String> {
    use crate::spec::Distribution;
    let v = v.trim();
    let (name, arg) = v.split_once(':').unwrap_or((v, ""));
    let parsed = match name {
        "random" if arg.is_empty() => Ok(Distribution::Uniform),
        "normal" => match arg.trim().parse::<f64>() {
            Ok(dev) if dev > 0.0 && dev < 100.0 => {
                Distribution::parse(&format!("normal:{}", dev / 100.0))
            }
            _ => Err(format!(
                "fio's normal:{arg} (a deviation of 0, a centre or no number); wkrun's normal needs σ > 0, a fraction of the span, centred on its middle"
            )),
        },
        "sequence" => {
            Err("wkrun has no fixed sequence of blocks (fio's sequence distribution)".into())
        }
        "zoned" => Distribution::parse(&format!("zoned:{}", zoned_rest(arg))),
        _ => Distribution::parse(v),
    };
    parsed.map(|d| (!d.is_uniform()).then_some(d))
}

/// fio's zone list with its missing percentages given their share of the rest, as fio does: a zone
/// written `20/` (no share of the span) gets what the others leave, split evenly among such zones.
fn zoned_rest(arg: &str) -> String {
    let items: Vec<[&str; 2]> = arg
        .split(':')
        .map(|z| {
            let (io, span) = z.split_once('/').unwrap_or((z, ""));
            [io.trim(), span.trim()]
        })
        .collect();
    let rest: Vec<Option<String>> = (0..2)
        .map(|k| {
            let given: u32 = items.iter().filter_map(|z| z[k].parse::<u32>().ok()).sum();
            let missing = items.iter().filter(|z| z[k].is_empty()).count() as u32;
            (missing > 0).then(|| (100u32.saturating_sub(given) / missing).to_string())
        })
        .collect();
    items
        .iter()
        .map(|z| {
            let v: Vec<String> = (0..2)
                .map(|k| match (&rest[k], z[k].is_empty()) {
                    (Some(r), true) => r.clone(),
                    _ => z[k].to_string(),
                })
                .collect();
            v.join("/")
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// The engine, data and the other I/O options.
fn map_io(job: &mut Job, name: &str, v: &str, at: &Place) -> Result<Outcome, String> {
    let kb = job.kb_base;
    match name {
        "ioengine" => {
            let e = v.trim();
            // falloc: fio's way to trim a regular file (its trims punch holes, as wkrun's on a file do);
            // taken for trim jobs only ([`super::shape::shape`]).
            if e != "falloc" && !crate::spec::fio::FIO_ENGINES.iter().any(|(f, _)| *f == e) {
                return Ok(Outcome::Refuse(format!(
                    "fio's {e} engine has no wkrun engine (wkrun's: psync for fio's sync, psync, pvsync and pvsync2; libaio; io_uring; null; psync for fio's falloc in trim jobs)"
                )));
            }
            job.engine = (e.to_string(), Some(at.clone()));
        }
        "direct" => job.direct = value::boolean(v)?,
        "sync" => {
            job.sync = match v.trim() {
                "0" | "none" => None,
                "1" | "sync" => Some("sync"),
                "dsync" => Some("dsync"),
                t => {
                    return Err(format!(
                        "fio's sync is 0, 1, none, sync or dsync, not `{t}`"
                    ));
                }
            };
        }
        "fsync" | "fdatasync" => {
            let n = value::int(v, kb)?;
            if n > 0 && job.flush.is_some_and(|(other, _)| other != name) {
                return Ok(Outcome::Refuse(format!(
                    "both fsync and fdatasync: wkrun makes one kind of flush per phase (`{name}` after `{}`)",
                    job.flush.map_or("", |f| f.0)
                )));
            }
            job.flush_at = (n > 0).then(|| at.clone());
            job.flush = (n > 0).then(|| {
                (
                    if name == "fsync" {
                        "fsync"
                    } else {
                        "fdatasync"
                    },
                    n,
                )
            });
        }
        "buffered" => job.direct = !value::boolean(v)?,
        "invalidate" => job.invalidate = value::boolean(v)?,
        // A bare `sqthread_poll` is fio's 1; whether the engine takes it is [`super::shape::sq_poll`]'s.
        "sqthread_poll" => job.sq_poll = flag(v)?.then(|| at.clone()),
        "sqthread_poll_cpu" => {
            value::int(v, kb)?;
            job.sq_poll_cpu = Some((v.trim().to_string(), at.clone()));
        }
        "norandommap" => job.random_map = !flag(v)?,
        "randseed" => job.seed = Some(value::int(v, kb)?),
        "random_distribution" => return Ok(distribution(job, v)),
        "zero_buffers" => {
            if flag(v)? {
                job.data = DataPattern::Zeros;
            }
        }
        // fio writes buffer_pattern=0 as zero bytes (checked with real fio, refill_buffers or not).
        "buffer_pattern" => match value::int(v, kb) {
            Ok(0) => job.data = DataPattern::Zeros,
            _ => {
                return Ok(Outcome::Refuse(
                    "wkrun has no `buffer_pattern`: data is \"random\", \"zeros\" or \"compressible:N%\"".into(),
                ));
            }
        },
        "buffer_compress_percentage" => {
            let n = value::int(v, kb)?;
            if n > 100 {
                return Err(format!("{n} is more than 100 %"));
            }
            job.data = DataPattern::Compressible(n as u8);
        }
        "buffer_compress_chunk" => {
            let n = value::int(v, kb)?;
            if n != 512 && n != 0 {
                return Ok(Outcome::Refuse(
                    "wkrun's compressible data repeats its filler in every 512-byte chunk".into(),
                ));
            }
        }
        "refill_buffers" | "scramble_buffers" | "fixedbufs" | "registerfiles" => {}
        "verify" => {
            let c = v.trim();
            job.verify = match c {
                "0" | "none" => None,
                _ => Some((c.to_string(), at.clone())),
            };
        }
        "do_verify" => job.do_verify = value::boolean(v)?,
        "continue_on_error" => {
            job.on_error_continue = Some(match v.trim() {
                "none" | "0" => false,
                "io" | "all" | "1" => true,
                _ => {
                    return Ok(Outcome::Refuse("wkrun's on_error = \"continue\" goes on after any failed read or write alike".into()));
                }
            })
        }
        // A row marked mapped that this importer does not read (a test keeps this from happening).
        _ => {
            return Ok(Outcome::Refuse(format!(
                "fio's `{name}` is not read by this importer"
            )));
        }
    }
    Ok(Outcome::Done)
}
