//! Many hosts, one wkrun each: what a launcher (mpirun, srun, a Kubernetes indexed Job) tells a run. The
//! host's rank from the launcher's variables ([`RANK_VARIABLES`]) or `--rank`; `{rank}` and `{host}` in
//! `--target`, `--output` and `--allow-destroy`; a common start (`--start-at`) and the start of later phases
//! on a grid (`--phase-grid`). wkrun stays a single-host program: hosts do not talk to each other, they
//! share a wall clock (docs/hosts.md says what that assumes).

use serde::Serialize;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The environment variables that carry a host's rank, in the order they are looked at: OpenMPI, PMIx
/// (OpenMPI 5, `srun --mpi=pmix`), MPICH and Intel MPI, a Slurm job array's task, a Slurm task (`srun`), a
/// Kubernetes indexed Job's pod.
pub const RANK_VARIABLES: [&str; 6] = [
    "OMPI_COMM_WORLD_RANK",
    "PMIX_RANK",
    "PMI_RANK",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_PROCID",
    "JOB_COMPLETION_INDEX",
];

/// Where `--rank` came from when given on the command line.
pub const RANK_OPTION: &str = "--rank";

/// The latest `--start-at` may be: 7 days ahead (a mistyped year would otherwise wait for ever).
pub const MAX_START_AHEAD_S: u64 = 7 * 86_400;

/// How far in the past an absolute `--start-at` may be when the run begins: 1 s (a later phase start is
/// then as soon as possible; a start further in the past is a mistake).
pub const MAX_START_LATE_S: u64 = 1;

/// A host's rank and where it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rank {
    /// The rank: 0 for the first host.
    pub rank: u32,
    /// The variable it was read from, or `--rank`.
    pub source: String,
}

/// What the launcher asked of this run: the rank, the common start and the phase grid. Part of the plan
/// (`Plan::launch`), set from the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// This host's rank, when `--rank` or a launcher's variable gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<Rank>,
    /// `--start-at`: when the first phase starts, ns since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_at_unix_ns: Option<u64>,
    /// `--phase-grid`: later phases start at the next multiple of this many ns after `start_at_unix_ns`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_grid_ns: Option<u64>,
}

impl Launch {
    /// When the phase that follows should start: the start for the first phase run; for a later one, the
    /// first grid point at or after `now_unix_ns` (with `--phase-grid`), else `None` (it starts at once).
    pub fn phase_start(&self, first: bool, now_unix_ns: u64) -> Option<u64> {
        let start = self.start_at_unix_ns?;
        if first {
            return Some(start);
        }
        let grid = self.phase_grid_ns.filter(|&g| g > 0)?;
        let k = now_unix_ns.saturating_sub(start).div_ceil(grid);
        Some(start.saturating_add(k.saturating_mul(grid)))
    }
}

/// The host's rank: `explicit` (`--rank`) when given, else the first of [`RANK_VARIABLES`] that `var`
/// finds; `None` when none is set.
///
/// # Errors
/// A variable that is set but holds no whole number, naming it and its value.
pub fn find_rank(
    explicit: Option<u32>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Option<Rank>, String> {
    if let Some(rank) = explicit {
        return Ok(Some(Rank {
            rank,
            source: RANK_OPTION.to_string(),
        }));
    }
    for name in RANK_VARIABLES {
        let Some(value) = var(name) else { continue };
        let rank = value.trim().parse::<u32>().map_err(|_| {
            format!("{name}={value:?} is not a rank (a whole number from 0); give --rank N")
        })?;
        return Ok(Some(Rank {
            rank,
            source: name.to_string(),
        }));
    }
    Ok(None)
}

/// The rank variables as a list for messages: `A, B, ... or F`.
fn variables_in_words() -> String {
    let (last, rest) = RANK_VARIABLES.split_last().unwrap_or((&"", &[]));
    format!("{} or {last}", rest.join(", "))
}

/// `template` (the value of option `option`) with `{rank}` replaced by the rank and `{host}` by the host
/// name; other text is kept as it is.
///
/// # Errors
/// `{rank}` without a rank: the message names the option and the variables looked at. `{host}` with a host
/// name that is not one plain path part (empty, `.`, `..`, or holding `/` or a control character), which
/// would move the path elsewhere.
pub fn expand(
    option: &str,
    template: &str,
    rank: Option<&Rank>,
    host: &str,
) -> Result<String, String> {
    if template.contains("{host}")
        && (matches!(host, "" | "." | "..") || host.chars().any(|c| c == '/' || c.is_control()))
    {
        return Err(format!(
            "{option} {template}: the host name {host:?} is not a plain file name, so {{host}} cannot stand for it"
        ));
    }
    let mut out = template.replace("{host}", host);
    if out.contains("{rank}") {
        let Some(r) = rank else {
            return Err(format!(
                "{option} {template}: {{rank}} needs this host's rank, and none of {} is set (a launcher such as mpirun, srun or a Kubernetes indexed Job sets one); give --rank N",
                variables_in_words()
            ));
        };
        out = out.replace("{rank}", &r.rank.to_string());
    }
    Ok(out)
}

/// Nanoseconds since the Unix epoch of `t` (0 before it).
pub fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The wall clock now, ns since the Unix epoch.
pub fn now_unix_ns() -> u64 {
    unix_ns(SystemTime::now())
}

/// RFC 3339 UTC with nanoseconds of a time in ns since the Unix epoch.
pub fn rfc3339_ns(unix_ns: u64) -> String {
    humantime::format_rfc3339_nanos(UNIX_EPOCH + Duration::from_nanos(unix_ns)).to_string()
}

/// Parses `--start-at`: an RFC 3339 time (`2026-12-01T12:00:00Z`, fractions of a second and a `+HH:MM`
/// offset allowed) or `+SECONDS` from `now_unix_ns` (`+30`, `+2.5`) rounded up to a whole second, so that
/// hosts launched within the same second start together; ns since the Unix epoch.
///
/// # Errors
/// Why the text is not a start time, or why the time is refused (more than [`MAX_START_LATE_S`] in the
/// past, more than [`MAX_START_AHEAD_S`] ahead).
pub fn parse_start_at(text: &str, now_unix_ns: u64) -> Result<u64, String> {
    let t = text.trim();
    let at = match t.strip_prefix('+') {
        Some(secs) => {
            let s: f64 = secs.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0).ok_or_else(|| {
                format!("--start-at {text:?}: after '+' give a number of seconds from now, e.g. +30 or +2.5")
            })?;
            if s > MAX_START_AHEAD_S as f64 {
                return Err(format!(
                    "--start-at {text:?}: more than {MAX_START_AHEAD_S} s (7 days) ahead"
                ));
            }
            // Rounded up to a whole second: hosts launched within the same second agree on it.
            now_unix_ns
                .saturating_add((s * 1e9).round() as u64)
                .div_ceil(1_000_000_000)
                .saturating_mul(1_000_000_000)
        }
        None => parse_rfc3339(t).map_err(|why| {
            format!("--start-at {text:?}: {why}; give an RFC 3339 time such as 2026-12-01T12:00:00Z (date -u +%FT%TZ) or +SECONDS from now")
        })?,
    };
    if at.saturating_add(MAX_START_LATE_S * 1_000_000_000) < now_unix_ns {
        let late = (now_unix_ns - at) as f64 / 1e9;
        return Err(format!(
            "--start-at {text:?}: that is {late:.1} s in the past (the clock says {})",
            rfc3339_ns(now_unix_ns)
        ));
    }
    if at > now_unix_ns.saturating_add(MAX_START_AHEAD_S * 1_000_000_000) {
        return Err(format!(
            "--start-at {text:?}: more than 7 days ahead (the clock says {})",
            rfc3339_ns(now_unix_ns)
        ));
    }
    Ok(at)
}

/// An RFC 3339 time in ns since the Unix epoch: `Z` or a `±HH:MM` offset (`--start-at`, and the times a
/// results file holds, checked by `results::possible`).
///
/// # Errors
/// Why `t` is not one.
pub fn parse_rfc3339(t: &str) -> Result<u64, String> {
    let (local, offset_s) = match t.strip_suffix('Z').or_else(|| t.strip_suffix('z')) {
        Some(l) => (l, 0i64),
        None => split_offset(t)?,
    };
    let naive = humantime::parse_rfc3339_weak(local).map_err(|e| e.to_string())?;
    let ns = i128::from(unix_ns(naive)) - i128::from(offset_s) * 1_000_000_000;
    u64::try_from(ns).map_err(|_| "before 1970".to_string())
}

/// Splits `...±HH:MM` into the local time and the offset in s.
fn split_offset(t: &str) -> Result<(&str, i64), String> {
    // A time without a zone is told to add one; text that is no time at all is told so.
    let no_zone = || match humantime::parse_rfc3339_weak(t) {
        Ok(_) => "no time zone: end it with Z (UTC) or an offset such as +02:00".to_string(),
        Err(_) => "not a time".to_string(),
    };
    if t.len() < 6 || !t.is_char_boundary(t.len() - 6) {
        return Err(no_zone());
    }
    let (local, zone) = t.split_at(t.len() - 6);
    let b = zone.as_bytes();
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return Err(no_zone()),
    };
    let num = |s: &str| {
        s.parse::<i64>()
            .ok()
            .filter(|_| s.bytes().all(|c| c.is_ascii_digit()))
    };
    match (num(&zone[1..3]), b[3], num(&zone[4..6])) {
        (Some(h), b':', Some(m)) if h < 24 && m < 60 => Ok((local, sign * (h * 3600 + m * 60))),
        (Some(_), b':', Some(_)) => Err(format!(
            "the offset {zone} is not one (hours 00 to 23, minutes 00 to 59)"
        )),
        _ => Err(no_zone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_796_126_400_000_000_000; // 2026-12-01T12:00:00Z

    #[test]
    fn start_at_takes_rfc3339_and_seconds_from_now() {
        assert_eq!(parse_start_at("+2", NOW), Ok(NOW + 2_000_000_000));
        assert_eq!(parse_start_at("+0.25", NOW), Ok(NOW + 1_000_000_000));
        // From 0.4 s past a second, +2 is 2.6 s ahead: the next whole second after now + 2 s.
        assert_eq!(
            parse_start_at("+2", NOW + 400_000_000),
            Ok(NOW + 3_000_000_000)
        );
        assert_eq!(
            parse_start_at("2026-12-01T12:00:30Z", NOW),
            Ok(NOW + 30_000_000_000)
        );
        assert_eq!(
            parse_start_at("2026-12-01T12:00:30.5Z", NOW),
            Ok(NOW + 30_500_000_000)
        );
        assert_eq!(
            parse_start_at("2026-12-01T14:00:30+02:00", NOW),
            Ok(NOW + 30_000_000_000)
        );
        assert_eq!(
            parse_start_at("2026-12-01T11:30:30-00:30", NOW),
            Ok(NOW + 30_000_000_000)
        );
        // Half a second late is accepted (the run starts at once), two seconds is not.
        assert_eq!(
            parse_start_at("2026-12-01T11:59:59.5Z", NOW),
            Ok(NOW - 500_000_000)
        );
    }

    #[test]
    fn bad_start_at_says_why() {
        let e = parse_start_at("+soon", NOW).unwrap_err();
        assert_eq!(
            e,
            "--start-at \"+soon\": after '+' give a number of seconds from now, e.g. +30 or +2.5"
        );
        assert!(parse_start_at("+-3", NOW).is_err());
        assert!(parse_start_at("+NaN", NOW).is_err());
        let e = parse_start_at("2026-12-01T12:00:30", NOW).unwrap_err();
        assert!(e.contains("no time zone: end it with Z"), "{e}");
        let e = parse_start_at("tomorrow", NOW).unwrap_err();
        assert!(
            e.starts_with("--start-at \"tomorrow\": not a time; give "),
            "{e}"
        );
        // Found by the attack session: both were "no time zone".
        let e = parse_start_at("garbage", NOW).unwrap_err();
        assert!(
            e.starts_with("--start-at \"garbage\": not a time; give "),
            "{e}"
        );
        let e = parse_start_at("2026-12-01T12:00:30+25:00", NOW).unwrap_err();
        assert!(
            e.starts_with("--start-at \"2026-12-01T12:00:30+25:00\": the offset +25:00 is not one (hours 00 to 23, minutes 00 to 59); give "),
            "{e}"
        );
        let e = parse_start_at("2026-12-01T11:59:58Z", NOW).unwrap_err();
        assert_eq!(
            e,
            "--start-at \"2026-12-01T11:59:58Z\": that is 2.0 s in the past (the clock says 2026-12-01T12:00:00.000000000Z)"
        );
        let e = parse_start_at("2062-12-01T12:00:00Z", NOW).unwrap_err();
        assert!(e.contains("more than 7 days ahead"), "{e}");
        assert!(parse_start_at("+700000", NOW).is_err());
    }

    #[test]
    fn rank_comes_from_the_option_then_the_first_variable_set() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |n: &str| {
                vars.iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.to_string())
            }
        };
        let r = find_rank(
            None,
            env(&[("SLURM_PROCID", "0"), ("OMPI_COMM_WORLD_RANK", "2")]),
        );
        assert_eq!(
            r,
            Ok(Some(Rank {
                rank: 2,
                source: "OMPI_COMM_WORLD_RANK".into()
            }))
        );
        let r = find_rank(Some(7), env(&[("PMI_RANK", "1")]));
        assert_eq!(r.unwrap().unwrap().source, "--rank");
        let r = find_rank(None, env(&[("JOB_COMPLETION_INDEX", "4")]));
        assert_eq!(r.unwrap().unwrap().rank, 4);
        assert_eq!(find_rank(None, env(&[])), Ok(None));
        assert_eq!(
            find_rank(None, env(&[("PMI_RANK", "x1")])),
            Err("PMI_RANK=\"x1\" is not a rank (a whole number from 0); give --rank N".into())
        );
    }

    #[test]
    fn templates_expand_rank_and_host_and_name_the_variables_when_no_rank() {
        let r = Rank {
            rank: 3,
            source: "PMIX_RANK".into(),
        };
        assert_eq!(
            expand("--target", "/dev/nvme{rank}n1", Some(&r), "h"),
            Ok("/dev/nvme3n1".into())
        );
        assert_eq!(
            expand("-o", "out/{host}-{rank}", Some(&r), "node7"),
            Ok("out/node7-3".into())
        );
        assert_eq!(expand("-o", "plain{x}", None, "h"), Ok("plain{x}".into()));
        // A host name that would move the path (set by whoever controls the UTS namespace) is refused.
        for bad in ["../../esc", "..", "", "a/b", "e\u{1b}[2J"] {
            assert_eq!(
                expand("-o", "out/{host}", None, bad),
                Err(format!(
                    "-o out/{{host}}: the host name {bad:?} is not a plain file name, so {{host}} cannot stand for it"
                ))
            );
        }
        assert_eq!(expand("-o", "out", None, ".."), Ok("out".into()));
        assert_eq!(
            expand("--target", "t{rank}.img", None, "h"),
            Err("--target t{rank}.img: {rank} needs this host's rank, and none of OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_ARRAY_TASK_ID, SLURM_PROCID or JOB_COMPLETION_INDEX is set (a launcher such as mpirun, srun or a Kubernetes indexed Job sets one); give --rank N".into())
        );
    }

    #[test]
    fn later_phases_start_on_the_grid_after_the_previous_end() {
        let l = Launch {
            rank: None,
            start_at_unix_ns: Some(1_000),
            phase_grid_ns: Some(100),
        };
        assert_eq!(l.phase_start(true, 5_000), Some(1_000));
        assert_eq!(l.phase_start(false, 1_250), Some(1_300));
        assert_eq!(l.phase_start(false, 1_300), Some(1_300));
        assert_eq!(l.phase_start(false, 1_301), Some(1_400));
        let no_grid = Launch {
            phase_grid_ns: None,
            ..l.clone()
        };
        assert_eq!(no_grid.phase_start(false, 1_250), None);
        assert_eq!(Launch::default().phase_start(true, 0), None);
    }
}
