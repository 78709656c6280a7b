//! A fio job's rate cap (`rate`, `rate_iops`, `rate_process`) as wkrun's `rate_iops`, and the read share
//! the caps give a mixed job. fio paces bytes per second; what that is in I/Os per second is
//! [`crate::fio::mix_rate`]'s.

use super::job::{Blocks, Job, Remark};
use super::shape::{Block, remark};
use crate::fio::Place;
use crate::fio::mix_rate::{MixRate, Ratio};
use crate::vocab::Rate;

/// How far (percent) rounding may move a cap of a block-size mix before the import is refused: fio's own
/// rate over a run is off its average by the sampled sizes' mean (4k/50:64k/50 at 59 I/Os/s for 4 s, 236
/// I/Os: a standard error of 5.6 %), so a cap rounded by less says what fio does.
const MIX_RATE_SLACK_PCT: f64 = 5.0;

/// fio's rate cap of one job as fio paces it.
struct FioRate {
    /// Bytes per second per direction the job does (reads, writes, trims): `rate`, or `rate_iops` × the
    /// smallest block size.
    bps: [Option<u64>; 3],
    /// Which of them are fio's `rate` (bytes), not `rate_iops`.
    from_rate: [bool; 3],
    /// The I/Os per second fio gives per direction ([`MixRate::ios_of_bytes`]).
    ios: [Option<Ratio>; 3],
    /// The options as written: `rate_iops=500`, `rate=10m,5m`.
    text: String,
    /// Where (the `rate` line when it caps a direction, else the `rate_iops` line).
    at: Place,
}

/// The job's caps as the I/Os per second fio gives one job per direction (reads, writes, trims), exact
/// (wkrun's `rate_iops` for its jobs is [`Ratio::cap`] of them: multiplied, then rounded, [`spec_rate`]),
/// and the read share of a mixed job under them ([`rate_mix`], noted where it is not `read_percent`). fio's caps become the I/Os per second fio gives ([`MixRate::ios_of_bytes`]): exact for
/// one block size, or with Poisson arrivals; on average, rounded, with a note giving the numbers, for a
/// block-size mix evenly paced (refused when rounding moves a cap by more than [`MIX_RATE_SLACK_PCT`]); a
/// `rate` that is no whole number of I/Os per second of one size for the job's `numjobs` is refused
/// (`--lossy`: rounded). A cap on trims is the cap of a job of trims only, refused beside writes, and
/// ignored, noted, on a job that does not trim ([`trim_rates`]).
pub(super) fn caps(
    job: &Job,
    block: &Block,
    read_percent: u64,
    notes: &mut Vec<Remark>,
    refused: &mut Vec<Remark>,
) -> ([Option<Ratio>; 3], CapsMix) {
    notes.extend(trim_rates(job, refused));
    let m = match block {
        Block::One(b) => MixRate::of(&[(*b, 1)]),
        Block::Mix(v) => MixRate::of(v),
    };
    let Some((m, fio)) = m.and_then(|m| Some((m, fio_rate(job, &m)?))) else {
        return ([None; 3], CapsMix::Rwmix);
    };
    let mix = matches!(block, Block::Mix(_));
    match (job.poisson, mix) {
        (true, _) => poisson(job, &fio, &m, mix, notes, refused),
        (false, true) => linear_mix(job, &fio, &m, notes, refused),
        (false, false) => linear_one(job, &fio, &m, refused),
    }
    let mix = rate_mix(job, read_percent, &fio);
    if let CapsMix::Caps { why, .. } | CapsMix::Device { why } = &mix {
        let text = format!("{} with rwmixread={read_percent}", fio.text);
        notes.push(remark(&fio.at, text, why.clone()));
    }
    (fio.ios, mix)
}

/// What fio's cap on trims ([`Job::trim_rates`]) is to the job, one rule for the import and the JSON reader
/// ([`total`]). A job of trims only ([`Job::trims_only`]) has it as its cap ([`fio_rate`]), which wkrun's
/// total cap is (it paces trims: fio 3.33 `rw=randtrim` with `rate_iops=100` ran 100.3 trims/s, with
/// `100,,300` 299.85). A job that trims and writes (fio's `trimwrite`, read from its JSON) caps each
/// direction, which wkrun's caps cannot (its per-direction caps leave trims uncapped, a total cap paces
/// both together): refused, each option (attack 27 F1). A job that does not trim: fio ignores the part,
/// and a value that writes one of its own (`rate_iops=100,100,50` on `rw=randrw`, attack 28 F9) is the
/// note returned; its reads' and writes' caps are read.
fn trim_rates(job: &Job, refused: &mut Vec<Remark>) -> Option<Remark> {
    if job.rw.trim && !job.trims_only() {
        for t in job.trim_rates.iter().flatten() {
            refused.push(remark(
                &t.at,
                t.text.clone(),
                "a cap on trims of a job that also writes (fio caps its trims and its writes each); wkrun's per-direction caps are for reads and writes, and its total cap paces every I/O together",
            ));
        }
    }
    let own = job.trim_rates.iter().flatten().find(|t| t.own);
    own.filter(|_| !job.rw.trim).map(|t| {
        remark(
            &t.at,
            t.text.clone(),
            "fio applies the value's third part to trims only, and this job does not trim: fio ignores it, as the import does (the value's caps on reads and writes are read)",
        )
    })
}

/// The read share fio realises in a mixed job under its caps ([`rate_mix`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CapsMix {
    /// `rwmixread`: no cap, a job of one direction, or caps in its ratio.
    Rwmix,
    /// Both directions capped: the share the caps give when the device keeps up, and why.
    Caps {
        /// Reads in percent, rounded.
        share: u64,
        /// Why, in words.
        why: String,
    },
    /// One direction capped: the other runs at the device's speed, so the share is the device's, not
    /// `rwmixread` (unknown before the run); why, in words.
    Device {
        /// Why, in words.
        why: String,
    },
}

impl CapsMix {
    /// The read share wkrun gives the job: the caps' ([`CapsMix::Caps`]), else `read_percent`.
    pub(crate) fn share(&self, read_percent: u64) -> u64 {
        match self {
            CapsMix::Caps { share, .. } => *share,
            _ => read_percent,
        }
    }
}

/// fio's rate caps of `job` (its `rate`, `rate_iops` and `rate_process`, the directions it does,
/// `numjobs`) with block sizes `block`, as `wkrun import fio` maps them ([`caps`]): wkrun's `rate_iops` per
/// direction for the job's `numjobs` jobs together ([`Ratio::cap`]), or why the import refuses them
/// (without `--lossy`), each refused option as written and why; evenly paced, a block-size mix under fio's
/// random map ([`super::shape::mix_under_random_map`]) too; with the read share fio realises under the caps
/// ([`rate_mix`], the import's rule). How fio's JSON output is read ([`crate::fio::json`]) with the import's
/// rules: the cap ([`spec_rate`]), the read share, and the note of a cap on trims fio ignores
/// ([`trim_rates`]), `` `rate_iops=100,100,50`: fio applies ... ``.
pub(crate) fn total(
    job: &Job,
    block: &Block,
) -> Result<(Option<Rate>, CapsMix, Option<String>), String> {
    let (mut notes, mut refused) = (Vec::new(), Vec::new());
    let (ours, mix) = caps(job, block, job.rwmixread, &mut notes, &mut refused);
    // Poisson arrivals count I/Os whatever their sizes (fio 3.33, rate=16m with the mix under its random
    // map: 4056 I/Os/s for 4096): the sizes fio draws move only evenly paced bytes' I/Os.
    if ours != [None; 3] && !job.poisson {
        refused.extend(super::shape::mix_under_random_map(job, block, &job.at));
    }
    let ignored = trim_rates(job, &mut Vec::new()).map(|r| format!("`{}`: {}", r.text, r.why));
    match refused.is_empty() {
        true => Ok((spec_rate(ours, job.numjobs), mix, ignored)),
        false => Err((refused.iter())
            .map(|r| format!("`{}`: {}", r.text, r.why))
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

/// fio's caps of the directions the job does; `None` without one.
fn fio_rate(job: &Job, m: &MixRate) -> Option<FioRate> {
    if job.trims_only() {
        return trims_rate(job, m);
    }
    let used = job.directions();
    let (bytes, written) = &job.rate_bytes;
    let mut bps = [None; 3];
    let mut from_rate = [false; 3];
    for d in (0..2).filter(|&d| used[d]) {
        // `rate` over `rate_iops` for a direction both cap (fio refuses a job with both, and so does the
        // import, `Job::both_rates`; fio's JSON of one is a guess).
        bps[d] = bytes[d].or(job.rate_iops[d].map(|c| m.bytes_of_cap(c)));
        from_rate[d] = bytes[d].is_some();
    }
    if bps == [None; 3] {
        return None;
    }
    let mut text = Vec::new();
    let mut at = None;
    if let Some((p, v)) = written.as_ref().filter(|_| from_rate.contains(&true)) {
        text.push(format!("rate={v}"));
        at = Some(p.clone());
    }
    if (0..2).any(|d| bps[d].is_some() && !from_rate[d]) {
        text.push(format!("rate_iops={}", caps_text(job.rate_iops)));
        at = at.or_else(|| job.rate_iops_at.as_ref().map(|a| a.0.clone()));
    }
    Some(FioRate {
        bps,
        from_rate,
        ios: bps.map(|b| b.map(|b| m.ios_of_bytes(b, job.poisson))),
        text: text.join(" and "),
        at: at.unwrap_or_else(|| job.at.clone()),
    })
}

/// The cap of a job of trims only ([`trim_rates`]): its `rate` part, else its `rate_iops` part (fio takes
/// `rate` over `rate_iops`, as for reads and writes).
fn trims_rate(job: &Job, m: &MixRate) -> Option<FioRate> {
    let (t, from_rate) = match &job.trim_rates {
        [_, Some(t)] => (t, true),
        [Some(t), None] => (t, false),
        [None, None] => return None,
    };
    let bps = match from_rate {
        true => t.cap,
        false => m.bytes_of_cap(t.cap),
    };
    Some(FioRate {
        bps: [None, None, Some(bps)],
        from_rate: [false, false, from_rate],
        ios: [None, None, Some(m.ios_of_bytes(bps, job.poisson))],
        text: t.text.clone(),
        at: t.at.clone(),
    })
}

/// wkrun's `rate_iops` for `jobs` jobs capped at `caps` I/Os per second each ([`caps`]: reads, writes,
/// trims), each [`Ratio::cap`]: a cap on trims (a job of trims only) is the total cap, which paces them;
/// `None` without a cap. What `wkrun import fio` writes and fio's JSON reader records.
pub(crate) fn spec_rate(caps: [Option<Ratio>; 3], jobs: u64) -> Option<Rate> {
    let [read, write, trim] = caps.map(|c| c.map(|r| r.cap(jobs)));
    match (read, write, trim) {
        (None, None, None) => None,
        (_, _, Some(t)) => Some(Rate {
            total: Some(t),
            read: None,
            write: None,
        }),
        _ => Some(Rate {
            total: None,
            read,
            write,
        }),
    }
}

/// Each capped direction's conversion for the job's `numjobs` jobs together, `reads 500 × 4096 / 34816 =
/// 58.82, rounded to 59 (+0.3 %)` (`reads 3 jobs × 2901333 / 34816 = …` for several; `/ divisor`, or `⌊…⌋`
/// with `floor`), and the largest move rounding makes, percent.
fn said(job: &Job, fio: &FioRate, m: &MixRate, divisor: &str, floor: bool) -> (Vec<String>, f64) {
    let mut out = Vec::new();
    let mut worst: f64 = 0.0;
    let jobs = match job.numjobs {
        1 => String::new(),
        n => format!("{n} jobs × "),
    };
    for (d, dir) in ["reads", "writes", "trims"].into_iter().enumerate() {
        let (Some(b), Some(r)) = (fio.bps[d], fio.ios[d]) else {
            continue;
        };
        let r = r.times(job.numjobs);
        let bytes = match fio.from_rate[d] {
            true => b.to_string(),
            false => format!("{} × {}", b / m.smallest, m.smallest),
        };
        let n = r.nearest().max(1);
        worst = worst.max(r.off_pct(n).abs());
        let got = match (r.whole(), r.nearest()) {
            (true, 0) => "0, raised to 1".to_string(),
            (true, _) => n.to_string(),
            _ => format!("{:.2}, rounded to {n} ({:+.1} %)", r.value(), r.off_pct(n)),
        };
        out.push(match floor {
            true => format!("{dir} {jobs}⌊{bytes} / {divisor}⌋ = {got}"),
            false => format!("{dir} {jobs}{bytes} / {divisor} = {got}"),
        });
    }
    (out, worst)
}

/// What fio paces, in words: `rate` bytes per second, or `rate_iops` × the smallest size.
fn basis(fio: &FioRate, m: &MixRate) -> String {
    let iops = format!("rate_iops × the smallest size, {} B", m.smallest);
    match (
        fio.from_rate.contains(&true),
        fio.text.contains("rate_iops="),
    ) {
        (true, true) => format!("rate, or {iops}"),
        (true, false) => "rate".to_string(),
        _ => iops,
    }
}

/// An evenly paced block-size mix: fio's bytes per second over the mean size, rounded, noted (refused
/// beyond [`MIX_RATE_SLACK_PCT`]).
fn linear_mix(
    job: &Job,
    fio: &FioRate,
    m: &MixRate,
    notes: &mut Vec<Remark>,
    refused: &mut Vec<Remark>,
) {
    let mean = mean_text(m.mean());
    let (said, worst) = said(job, fio, m, &mean, false);
    let text = format!("{} with {}", fio.text, mix_option(job));
    let why = format!(
        "fio paces a job's bytes per second ({}) and issues an I/O when the bytes before it are due, so at the mix's mean size ({mean} B an I/O) it issues those bytes / {mean} I/Os per second per job on average: {}; wkrun's rate_iops counts I/Os of any size, so it caps each job at that average (its I/Os evenly spaced, where fio's gaps follow each I/O's size)",
        basis(fio, m),
        said.join(", ")
    );
    match worst > MIX_RATE_SLACK_PCT {
        true => refused.push(remark(
            &fio.at,
            text,
            format!(
                "{why}; rounding moves a cap by more than {MIX_RATE_SLACK_PCT} % (--lossy: the rounded caps)"
            ),
        )),
        false => notes.push(remark(&fio.at, text, why)),
    }
}

/// One block size evenly paced: fio issues an I/O each size / rate seconds, exactly; refused when that,
/// times the job's `numjobs`, is no whole number of I/Os per second (`--lossy`: rounded).
fn linear_one(job: &Job, fio: &FioRate, m: &MixRate, refused: &mut Vec<Remark>) {
    if fio.ios.iter().flatten().all(|r| {
        let all = r.times(job.numjobs);
        all.whole() && all.nearest() > 0
    }) {
        return;
    }
    let (said, _) = said(job, fio, m, &m.smallest.to_string(), false);
    refused.push(remark(
        &fio.at,
        fio.text.clone(),
        format!(
            "fio paces a job's bytes per second and issues a {} B I/O when the bytes before it are due, so it issues rate / {} I/Os per second per job: {}; wkrun's rate_iops is a whole number of I/Os per second, at least 1 (--lossy: rounded)",
            m.smallest,
            m.smallest,
            said.join(", ")
        ),
    ));
}

/// Poisson arrivals: fio draws its gaps at ⌊bytes per second / smallest size⌋ I/Os per second whatever
/// each I/O's size, so `rate_iops` is that exactly; a `rate` that is not a whole number of those, or is
/// with a mix (whose bytes then follow the sizes drawn, not the rate), is noted; below one I/O per
/// second refused (fio divides by it).
fn poisson(
    job: &Job,
    fio: &FioRate,
    m: &MixRate,
    mix: bool,
    notes: &mut Vec<Remark>,
    refused: &mut Vec<Remark>,
) {
    let exact = fio.bps.iter().flatten().all(|b| b % m.smallest == 0);
    if !fio.from_rate.contains(&true) || (exact && !mix) {
        return;
    }
    let (said, _) = said(job, fio, m, &m.smallest.to_string(), true);
    let bytes = match mix {
        true => format!(
            ", so its bytes per second are those I/Os × the mix's mean size ({} B), not rate",
            mean_text(m.mean())
        ),
        false => String::new(),
    };
    let why = format!(
        "with Poisson arrivals fio draws its gaps at ⌊rate / the smallest block size ({} B)⌋ I/Os per second per job whatever each I/O's size: {}{bytes}; wkrun's rate_iops is that rate",
        m.smallest,
        said.join(", ")
    );
    let text = format!("{} with rate_process=poisson", fio.text);
    match fio.ios.iter().flatten().any(|r| r.nearest() == 0) {
        true => refused.push(remark(
            &fio.at,
            text,
            format!("{why}; below 1 I/O per second, fio divides by zero (--lossy: 1)"),
        )),
        false => notes.push(remark(&fio.at, text, why)),
    }
}

/// The read share of a mixed job under its caps, the one rule of `wkrun import fio` and of fio's JSON read.
/// Capped in both directions, fio issues whichever direction is behind its cap, so its mix follows the caps
/// (`rwmixread=70` with `rate_iops=2000` ran 1,971 reads/s and 1,995 writes/s), while wkrun keeps
/// `read_percent` exact and a cap the mix cannot reach falls behind: the share fio realises when the device
/// keeps up, Rr / (Rr + Rw) of the I/Os per second fio gives each direction ([`CapsMix::Caps`], unless
/// that is `read_percent`). Capped in one direction, fio issues the other whenever the capped one is ahead
/// of its cap, so the other runs at the device's speed and the share is the device's ([`CapsMix::Device`];
/// attack 28 F8: `rwmixread=30 rate_iops=,100` ran 72,728 reads and 200 writes). `rwmixread` for a job
/// that does one direction only ([`Job::directions`]: `rwmixread=100` reads only, attack 27 F4).
fn rate_mix(job: &Job, read_percent: u64, fio: &FioRate) -> CapsMix {
    if job.directions() != [true; 2] {
        return CapsMix::Rwmix;
    }
    let [Some(r), Some(w), _] = fio.ios else {
        let ours = fio.ios.map(|r| r.map(|r| r.nearest().max(1)));
        return one_capped(read_percent, ours)
            .map_or(CapsMix::Rwmix, |why| CapsMix::Device { why });
    };
    let (rd, wd) = (r.0 * w.1, w.0 * r.1);
    let nearest = ((rd * 100 + (rd + wd) / 2) / (rd + wd).max(1)) as u64;
    // Rounded to 0 or 100, the share would drop a direction fio issues (attack 29 F11: `rate_iops=1000,1`
    // ran 2,000 reads and 2 writes in 2 s): 1 or 99 keeps it.
    let share = nearest.clamp(1, 99);
    if share == read_percent {
        return CapsMix::Rwmix;
    }
    let caps = format!("{}:{}", ios_text(r), ios_text(w));
    let why = match share == nearest {
        true => format!(
            "fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps ({caps}), not rwmixread, when the device keeps up; wkrun keeps read_percent exact, and a cap that mix cannot reach would fall behind all run, so read_percent = {share}, the share fio realises"
        ),
        false => {
            // wkrun's stream runs at the lower of each cap over its share (docs/spec.md).
            let (s, rv, wv) = (share as f64 / 100.0, r.value(), w.value());
            let stream = (rv / s).min(wv / (1.0 - s));
            format!(
                "fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps ({caps}), not rwmixread, when the device keeps up: {} % reads, which rounds to {nearest} and would issue no {}, where fio issues {}/s; read_percent = {share} keeps both directions, and as wkrun keeps it exact, the lower cap over its share paces the stream: reads {}/s, writes {}/s per job",
                mean_text(rd as f64 * 100.0 / (rd + wd) as f64),
                if nearest == 100 { "write" } else { "read" },
                ios_text(if nearest == 100 { w } else { r }),
                mean_text(stream * s),
                mean_text(stream * (1.0 - s)),
            )
        }
    };
    CapsMix::Caps { share, why }
}

/// I/Os per second: whole, or with 2 decimals.
fn ios_text(r: Ratio) -> String {
    match r.whole() {
        true => r.nearest().to_string(),
        false => format!("{:.2}", r.value()),
    }
}

/// fio's caps as its `rate_iops` value: `500`, `700,300`, `,500`.
fn caps_text(caps: [Option<u64>; 2]) -> String {
    match caps {
        [Some(r), Some(w)] if r == w => r.to_string(),
        [Some(r), Some(w)] => format!("{r},{w}"),
        [Some(r), None] => r.to_string(),
        [None, Some(w)] => format!(",{w}"),
        [None, None] => String::new(),
    }
}

/// Why a mixed job capped in one direction only does not run `rwmixread`: fio issues the other direction
/// whenever the capped one is ahead of its cap, so the uncapped direction runs at the device's speed; wkrun
/// keeps `read_percent` exact, so the cap holds the other direction to its share. `ours`: wkrun's caps
/// (reads, writes, trims); `None` without one cap, or a share of 0 or 100.
fn one_capped(read_percent: u64, ours: [Option<u64>; 3]) -> Option<String> {
    let (cap, capped, other, pct) = match ours {
        [Some(c), None, _] => (c, "reads", "writes", read_percent),
        [None, Some(c), _] => (c, "writes", "reads", 100 - read_percent),
        _ => return None,
    };
    if pct == 0 || pct == 100 {
        return None;
    }
    let held = (cap as u128 * (100 - pct) as u128 / pct as u128) as u64;
    Some(format!(
        "fio caps {capped} only and issues {other} whenever {capped} are ahead of their cap, so its {other} run at the device's speed and its mix is not rwmixread; wkrun keeps read_percent exact, so its {other} are held to {held}/s per job by the cap on {capped}"
    ))
}

/// A mean block size in bytes: whole, or with up to 2 decimals.
fn mean_text(x: f64) -> String {
    let t = format!("{x:.2}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The option that made the job's block-size mix, as fio names it.
fn mix_option(job: &Job) -> &'static str {
    match super::job::used_sizes(&job.bs, job.used()).0 {
        Blocks::Range(..) => "bsrange",
        _ => "bssplit",
    }
}
