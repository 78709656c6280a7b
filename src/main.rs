//! The `wkrun` command: maps the command line to library calls and errors to exit codes
//! (0 done, 1 the run failed, 2 bad spec or arguments with nothing written, 128 + the signal's number when
//! a signal interrupted the run: 130 for SIGINT, 143 for SIGTERM).

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wkrun::plan::{self, Plan};
use wkrun::results::outdir::OutDir;
use wkrun::results::schema;
use wkrun::run::{self, RunError};
use wkrun::spec::{self, LoadedSpec};
use wkrun::sys::signal;
use wkrun::target::{self, DEFAULT_TARGET_PATH, DEFAULT_TARGET_SIZE, TargetInfo};
use wkrun::text::MAX_LABEL;
use wkrun::units::Size;

mod fio_cli;
mod man;
mod multi;
mod own_check;
mod sim_cli;

/// Declarative storage workload-spec runner
///
/// Runs the phases of a TOML spec (erase, fill, restore-image, workloads) on a target, or on several at
/// once, and writes per-interval IOPS series, latency percentiles and results.json.
#[derive(Parser)]
#[command(
    name = "wkrun",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "The spec language: docs/spec.md. Coming from fio (its options and what they are here): docs/spec.md#coming-from-fio. Exit status: 0 done, 1 the run failed, 2 bad input (nothing written), 128+N a signal. More: wkrun man."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every phase of SPEC on its target, or on several at once with --target repeated (the default command).
    Run(RunArgs),
    /// Check specs against the spec schema and rules, and results files or folders against the results
    /// schema (with their series CSVs), told apart by content; no I/O on any target.
    Validate {
        /// Spec files, results.json files or results folders.
        #[arg(required = true, value_name = "FILE")]
        specs: Vec<PathBuf>,
    },
    /// Print the plan: each phase's byte range, block size, QD, bound and expected bytes; no I/O.
    Plan {
        /// Spec file.
        spec: PathBuf,
        #[command(flatten)]
        target: TargetArgs,
        #[arg(long = "set", value_name = "KEY=VALUE", help = SET_HELP)]
        set: Vec<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// This host's rank, for {rank} in --target (default: the launcher's variable, as for a run).
        #[arg(long, value_name = "N")]
        rank: Option<u32>,
        /// The plan of `wkrun run --from PHASE` (a phase name or 0-based index): the phases before it are
        /// marked as taken as done; the DESTROYS line and the consent note count only the phases from it.
        #[arg(long, value_name = "PHASE")]
        from: Option<String>,
        /// The consent the run would be given, as for a run (once per block device it writes): the plan
        /// notes a refusal the run would make with these, and none when they suffice.
        #[arg(long, value_name = "DEVICE")]
        allow_destroy: Vec<PathBuf>,
    },
    /// Print the warnings of each phase of a run whole (the console cuts them at 200 bytes), one a line:
    /// `phase N "NAME": TEXT`.
    Warnings {
        /// results.json files, or results folders (their results.json).
        #[arg(required = true, value_name = "RESULTS")]
        files: Vec<PathBuf>,
    },
    /// Compare runs side by side: one column per results.json, one row per phase and metric, with each
    /// run's relative change against the first.
    Compare {
        /// results.json files, or results folders (their results.json); the first is the baseline.
        #[arg(required = true, value_name = "RESULTS")]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
        format: CompareFormat,
        /// Compare the members of a sweep (or the values of a matrix list) within each run: one column
        /// per value of the label NAME (`filled`, `op`, `bs`), phases paired by their other labels, each
        /// against the first value's.
        #[arg(long, value_name = "NAME", conflicts_with = "against_library")]
        by: Option<String>,
        /// Put the runs beside the results library's last N runs of the same spec (by start time, oldest
        /// first, the runs given left out), matched by phase (default N: 20).
        #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "20",
              value_parser = clap::value_parser!(u32).range(1..=1000))]
        against_library: Option<u32>,
        #[command(flatten)]
        library: LibraryArg,
        /// Fit the table in COLS terminal cells: runs that do not fit go in further blocks of columns,
        /// each with the phase and metric columns; the notes are wrapped to COLS. A table that cannot be
        /// that narrow (its phase, metric and first run's columns beside one other run's) is laid out at
        /// its narrowest, which stderr states (default: the terminal's width; full-length lines when
        /// stdout is not a terminal).
        #[arg(long, value_name = "COLS", value_parser = clap::value_parser!(u16).range(40..))]
        width: Option<u16>,
    },
    /// Write SVG plots and an index.html from results files: per phase, IOPS per interval (log and linear,
    /// and zoomed), latency and bandwidth per interval, averages and percentiles, steady window and
    /// span-written-once marked; a sweep's members on one plot, charts across sweeps and matrices; several
    /// runs on one plot, one colour per run; results before fills.
    Report {
        /// results.json files, or results folders (their results.json); the series CSVs are read from the same
        /// folder.
        #[arg(required = true, value_name = "RESULTS")]
        files: Vec<PathBuf>,
        /// Report folder, created if needed; files of the same name are replaced (default: `report/` in the
        /// folder of the first results file).
        #[arg(long, short = 'o', value_name = "DIR")]
        output: Option<PathBuf>,
        /// Fixed ceiling of the linear IOPS plots, I/Os per second (`100000`, or `100k`, `1.5M`); intervals
        /// above it are drawn hollow on the top row.
        #[arg(long, value_name = "IOPS", value_parser = wkrun::units::parse_count)]
        ymax: Option<f64>,
        /// Zoom every phase on this time window (log and linear), from the phase's start: `1400s..2000s`,
        /// `1400s..`, `first 5m`, `last 20m` (default: the phase's first results window not at 0).
        #[arg(long, value_name = "WINDOW")]
        window: Option<String>,
        /// Also write each chart as PNG beside its SVG, drawn from the same SVG at three times its size
        /// (2880 px wide, 300 dpi), for print.
        #[arg(long)]
        png: bool,
        /// Rank the first run's headline figures among the results library's last N runs of the same spec
        /// (default N: 20): one horizontal bar chart per figure, this run highlighted.
        #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "20",
              value_parser = clap::value_parser!(u32).range(1..=1000))]
        against_library: Option<u32>,
        #[command(flatten)]
        library: LibraryArg,
    },
    /// Keep runs in a results library, one SQLite file (entries outlive their results folders), to compare
    /// new runs with: `compare`/`report RESULTS --against-library`.
    Library {
        #[command(subcommand)]
        cmd: LibraryCmd,
        #[command(flatten)]
        library: LibraryArg,
    },
    /// Merge the results of one spec run on several hosts (one wkrun per host, started together with
    /// --start-at) into one results folder: cluster-wide IOPS and bandwidth per interval on a common wall-clock
    /// grid, per-host breakdown, latency percentiles from the hosts' histograms added up.
    Merge {
        /// results.json files, or results folders, one per host.
        #[arg(required = true, value_name = "RESULTS")]
        files: Vec<PathBuf>,
        /// The merged results folder (created; must not hold a results.json).
        #[arg(long, short = 'o', value_name = "DIR", required = true)]
        output: PathBuf,
    },
    /// Write a spec from fio job files, or from fio's command line given after `--`: the same workload, each
    /// phase naming the job it came from (imported_from). An option with no wkrun meaning is refused naming
    /// its line, unless --lossy drops it with a comment in the spec.
    Import {
        /// The format: fio.
        #[arg(value_parser = ["fio"])]
        format: String,
        /// fio job files, read in order (as `fio JOB...` runs them).
        #[arg(value_name = "JOB")]
        files: Vec<PathBuf>,
        /// Write the spec here (default: standard output); its name is the file's stem.
        #[arg(long, short = 'o', value_name = "SPEC")]
        output: Option<PathBuf>,
        /// Drop options with no wkrun meaning, each with a comment in the spec, instead of refusing them.
        #[arg(long)]
        lossy: bool,
        /// fio's command line, after `--`: --name=a --rw=randrw --bs=4k ... (several --name, several jobs).
        #[arg(last = true, value_name = "FIO-ARGS", allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Write a fio job file running SPEC's phases (standard output, or -o FILE); what fio cannot run, or
    /// runs otherwise, is said on stderr and in the file's comments. Exit 2, nothing written, when no phase
    /// can be exported. Without --target, the spec's own target path, if it exists, is read as --target
    /// reads it.
    Export {
        /// The format: fio.
        #[arg(value_parser = ["fio"])]
        format: String,
        /// Spec file.
        spec: PathBuf,
        // The job file's targets (fio's filename=, and filesize= for a file to create), as a run takes
        // them, checked as `wkrun plan` checks them (nothing is written).
        #[command(flatten)]
        target: TargetArgs,
        /// Write the job file here (default: standard output).
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Fit the simulated drive to a measured run (`sim fit`), or predict a spec's results on it (`sim predict`).
    Sim {
        #[command(subcommand)]
        cmd: sim_cli::SimCmd,
    },
    /// Print a JSON Schema: `spec` (spec files) or `result` (results.json).
    Schema {
        /// Which schema.
        #[arg(value_parser = ["spec", "result"])]
        which: String,
    },
    /// Print a shell completion script, e.g. `wkrun completions bash > /etc/bash_completion.d/wkrun`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `wkrun man > /usr/local/share/man/man1/wkrun.1`; with `--dir`, write
    /// it and one page per command (`wkrun-run.1`, ...) into a folder.
    Man {
        /// Write wkrun.1 and wkrun-COMMAND.1 for every command into this folder (created if needed).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The results library's file.
#[derive(Args, Clone)]
struct LibraryArg {
    /// The results library (default: $WKRUN_LIBRARY, else $XDG_DATA_HOME/wkrun/library.sqlite, else
    /// ~/.local/share/wkrun/library.sqlite).
    #[arg(long = "library", value_name = "PATH", global = true)]
    path: Option<PathBuf>,
}

/// `wkrun library` commands.
#[derive(Subcommand)]
enum LibraryCmd {
    /// Add runs (results folders or results.json files) with their series CSVs; a run already there (the
    /// same results.json bytes) is kept once. Every run is checked before any is added.
    Add {
        /// results.json files, or results folders.
        #[arg(required = true, value_name = "RESULTS")]
        files: Vec<PathBuf>,
        /// The entries' label (default: the run's own label, else its folder's name); given for a run
        /// already there, it replaces that entry's label.
        #[arg(long, value_name = "NAME", value_parser = parse_label)]
        label: Option<String>,
    },
    /// List the entries, oldest run first: id, label, spec, target, start, status and two lead figures.
    List {
        /// Only the entries of this spec name.
        #[arg(long, value_name = "NAME")]
        spec: Option<String>,
        /// Only the entries whose label contains TEXT (ignoring case).
        #[arg(long, value_name = "TEXT")]
        label: Option<String>,
    },
    /// Remove the entry ID, or every entry labelled exactly NAME.
    Rm {
        /// The entry's id (as `wkrun library list` shows it).
        #[arg(
            value_name = "ID",
            required_unless_present = "label",
            conflicts_with = "label"
        )]
        id: Option<i64>,
        /// Every entry of this label (the whole label).
        #[arg(long, value_name = "NAME")]
        label: Option<String>,
    },
}

/// Output format of `wkrun compare`.
#[derive(Clone, Copy, ValueEnum)]
enum CompareFormat {
    /// Aligned plain-text columns.
    Table,
    /// A GitHub Markdown table.
    Markdown,
    /// CSV, header row first.
    Csv,
}

#[derive(Args, Clone)]
struct TargetArgs {
    /// Target: a file, a block device, or sim:KEY=VALUE,... for a simulated SSD (replaces the spec's
    /// [target]); repeat it to run on several targets at once, phase by phase (simulated drives alone or
    /// real targets alone).
    #[arg(long, value_name = "PATH")]
    target: Vec<PathBuf>,
    /// Size of a file target wkrun creates (e.g. 4GiB); ignored for existing files and devices.
    #[arg(long, value_name = "SIZE")]
    target_size: Option<String>,
}

/// What `--set` does, as `wkrun --help`, `wkrun plan --help` and the man page say it (trial 24 F8: the help
/// said a list too replaced the key in every phase that sets it; docs/spec.md, "Overrides").
const SET_HELP: &str = "Replace KEY in [defaults] and every phase that sets it (e.g. --set duration=10s for a short trial of a long spec), or in one phase (--set phase.NAME.KEY=VALUE; phase.NAME.name=NEW renames it), or a sweep's values (--set sweep.NAME=V1,V2); a TOML list (--set 'KEY=[V1,V2]') replaces only the sweep and matrix lists of KEY (without one, each phase that sets KEY becomes a matrix); repeatable";

#[derive(Args, Clone)]
struct RunArgs {
    /// Spec file (TOML).
    spec: Option<PathBuf>,
    #[command(flatten)]
    target: TargetArgs,
    #[arg(long = "set", value_name = "KEY=VALUE", help = SET_HELP)]
    set: Vec<String>,
    /// Folder for results.json and the series CSVs (default: wkrun-results/<spec>-<time>).
    #[arg(long, short = 'o', value_name = "DIR")]
    output: Option<PathBuf>,
    /// Allow writing to this block device (must name a target device); once per block device the run writes.
    #[arg(long, value_name = "DEVICE")]
    allow_destroy: Vec<PathBuf>,
    /// The run's name in compare, report and the results library (e.g. "Vendor X 1TB, fw 2.1"; default: the
    /// device's model and capacity, else the target's name). With several targets each is named
    /// `NAME: TARGET` and their sum NAME.
    #[arg(long, value_name = "NAME", value_parser = parse_label)]
    label: Option<String>,
    /// Nothing on stderr but errors (no notes, warnings or live progress); the summary on stdout (the
    /// results folder, each phase's lines, done) stays.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Start at this phase (its name, or its 0-based index in the plan); the phases before it are taken as
    /// done: they are not run, and a verify phase expects what they wrote.
    #[arg(long, value_name = "PHASE")]
    from: Option<String>,
    /// Start the first phase at TIME, on every host launched together: RFC 3339 (2026-12-01T12:00:00Z) or
    /// +SECONDS from now (docs/hosts.md).
    #[arg(long, value_name = "TIME")]
    start_at: Option<String>,
    /// With --start-at: start each later phase at the next multiple of this duration after TIME (e.g. 10s),
    /// so that hosts start it together.
    #[arg(long, value_name = "DURATION", requires = "start_at")]
    phase_grid: Option<String>,
    /// This host's rank, for {rank} in --target, --output and --allow-destroy (default: the launcher's
    /// variable: OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_ARRAY_TASK_ID, SLURM_PROCID or
    /// JOB_COMPLETION_INDEX).
    #[arg(long, value_name = "N")]
    rank: Option<u32>,
    /// Makes the run a prediction from this measured results file (`wkrun sim predict` runs it so).
    #[arg(long, value_name = "RESULTS", hide = true)]
    predicted_from: Option<PathBuf>,
    /// Leaves out the log of phases and the live progress line on stderr (notes, `--set` lines, warnings
    /// and errors stay): `wkrun sim predict` runs it so, its stderr passed on whole.
    #[arg(long, hide = true)]
    no_phase_log: bool,
    /// With --predicted-from: a warning of the fit that found the target, recorded in the prediction's
    /// results (`prediction.fit_warnings`); repeatable.
    #[arg(long, value_name = "TEXT", hide = true, requires = "predicted_from")]
    fit_warning: Vec<String>,
    /// With --predicted-from: the target was given with `sim predict --fitted`, not fitted by this
    /// prediction (`prediction.target_given`).
    #[arg(long, hide = true, requires = "predicted_from")]
    target_given: bool,
}

/// A `--label`: 1 to [`MAX_LABEL`] characters, none of them a control or format character (a line break,
/// a bidirectional override such as U+202E, a zero-width space), not only spaces.
fn parse_label(s: &str) -> Result<String, String> {
    // Checked before trimming: `trim` drops U+0085 and U+2028 as white space (a label `\u{85}nel` was
    // taken as `nel`), where a phase name's or `--set` word's control character is refused.
    if let Some(c) = s.chars().find(|&c| wkrun::text::hidden_char(c)) {
        let kind = wkrun::results::check::char_kind(c);
        return Err(format!("a label cannot hold the {kind} {c:?}"));
    }
    let t = s.trim();
    if t.is_empty() {
        return Err("a label needs at least one character that is not a space".into());
    }
    if let Some(c) = t.chars().find(|&c| wkrun::text::hidden_char(c)) {
        let kind = wkrun::results::check::char_kind(c);
        return Err(format!("a label cannot hold the {kind} {c:?}"));
    }
    if t.chars().count() > MAX_LABEL {
        return Err(format!(
            "a label has at most {MAX_LABEL} characters; this one has {}",
            t.chars().count()
        ));
    }
    Ok(t.to_string())
}

/// A failure with its exit code.
struct Fail(u8, String);

fn bad(msg: impl Into<String>) -> Fail {
    Fail(2, msg.into())
}

/// An output folder refused: exit 1 for a resource limit (a full file system, the file-size limit), else 2.
fn out_fail(e: wkrun::results::outdir::OutDirError) -> Fail {
    Fail(e.exit_code(), e.refusal())
}

/// A spec that could not be loaded: exit 1 when a resource limit refused it, else 2.
fn spec_fail(e: &spec::SpecErrors) -> Fail {
    Fail(e.exit_code(), e.to_string())
}

/// The stack the program's work runs on when the main thread's (RLIMIT_STACK, `ulimit -s`) is smaller: 8 MiB,
/// the usual main-thread limit. Parsing the command line alone takes about 45 KiB of stack in a release build
/// and 500 KiB in a debug build (clap's derived `Cmd::augment_subcommands` builds every subcommand's `Arg`s,
/// hundreds of bytes each, in one frame), so `ulimit -s 64` overflowed the main thread before any work.
const WORK_STACK: usize = 8 << 20;

fn main() -> ExitCode {
    use wkrun::sys::limits::Limit;
    // A spawned thread's stack is what the program asks for, whatever RLIMIT_STACK says. Under the usual limit
    // the main thread is used as it is (a thread would reserve 8 MiB more of address space under `ulimit -v`).
    let Some(limit) = Limit::Stack.soft().filter(|&s| s < WORK_STACK as u64) else {
        return work();
    };
    match std::thread::Builder::new()
        .name("wkrun".into())
        .stack_size(WORK_STACK)
        .spawn(work)
    {
        Ok(t) => t
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot start a thread with a stack of {WORK_STACK} B to run on, which {} of {limit} B is too small for: {e}",
                Limit::Stack.name()
            );
            ExitCode::from(1)
        }
    }
}

/// What clap says about the command line (help and version on stdout, exit 0, or 1 when stdout cannot take
/// them; a usage error on stderr, exit 2), each value it echoes cut to `text::ECHO` characters: a
/// 100,000-character `--label` was shown whole.
fn clap_failure(e: &clap::Error) -> ExitCode {
    use std::io::Write;
    if !e.use_stderr() {
        // Help or version on stdout: one that cannot be written (`--help > /dev/full`) fails, exit 1.
        let mut o = std::io::stdout().lock();
        // Styled on a terminal, as clap prints it.
        let text = match std::io::IsTerminal::is_terminal(&o) {
            true => e.render().ansi().to_string(),
            false => e.render().to_string(),
        };
        return match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
            Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => {
                let _ = writeln!(
                    std::io::stderr(),
                    "error: cannot write to standard output: {w}"
                );
                ExitCode::from(1)
            }
            _ => ExitCode::SUCCESS,
        };
    }
    let mut text = e.render().to_string();
    // clap's text drops the escape sequences and control characters of the value it quotes (`ab\x07cd`
    // shown 'abcd'): quoted escaped instead, as every other message does.
    if let Some(clap::error::ContextValue::String(v)) =
        e.get(clap::error::ContextKind::InvalidValue)
    {
        let shown = clap::builder::StyledStr::from(v.clone()).to_string();
        let escaped = wkrun::text::escaped(v);
        if shown != escaped {
            text = text.replacen(&format!("'{shown}'"), &format!("'{escaped}'"), 1);
        }
    }
    let _ = write!(
        std::io::stderr(),
        "{}",
        wkrun::text::clip_quoted(&text, '\'', wkrun::text::ECHO)
    );
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

/// Everything `main` does, on a stack of at least [`WORK_STACK`].
fn work() -> ExitCode {
    // Under an address-space limit too small to work in, a clear refusal now, written without allocating
    // (a failed allocation later would abort the process).
    if let Some((limit, enough)) = wkrun::sys::limits::address_space_too_small() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "error: the address-space limit (RLIMIT_AS, ulimit -v) is {limit} B, which leaves less than the {} B wkrun needs beyond the program and its libraries; raise it to at least {enough} B (ulimit -v {}) or remove it; nothing was written",
            wkrun::sys::limits::START_ROOM,
            enough / 1024
        );
        return ExitCode::from(1);
    }
    wkrun::sys::limits::one_malloc_arena_under_address_limit();
    // Before any file is made: a file past RLIMIT_FSIZE is then an error (EFBIG), not a kill.
    signal::ignore_file_size_signal();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(msg) = misspelt_command(&args) {
        return fail(Fail(2, msg));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_failure(&e),
    };
    let ran = |a: &RunArgs| {
        // The summary that could not be written (`> /dev/full`) fails a run that went well otherwise.
        cmd_run(a).and_then(|()| match run::progress::stdout_failure() {
            Some(e) => Err(Fail(1, format!("cannot write to standard output: {e}"))),
            None => Ok(()),
        })
    };
    let r = match cli.cmd {
        Some(Cmd::Run(a)) => ran(&a),
        None => ran(&cli.run),
        Some(Cmd::Validate { specs }) => cmd_validate(&specs),
        Some(Cmd::Plan {
            spec,
            target,
            set,
            json,
            rank,
            from,
            allow_destroy,
        }) => plan_targets(&target, &allow_destroy, rank).and_then(|(t, allow)| {
            let how = PlanHow {
                json,
                from: from.as_deref(),
                allow: &allow,
            };
            cmd_plan(&spec, &t, &set, &how)
        }),
        Some(Cmd::Warnings { files }) => cmd_warnings(&files),
        Some(Cmd::Compare {
            files,
            format,
            by,
            against_library,
            library,
            width,
        }) => {
            let against = against_library.map(|n| (library, n));
            let width = width.map(usize::from).or_else(terminal_width);
            cmd_compare(&files, format, by.as_deref(), against, width)
        }
        Some(Cmd::Report {
            files,
            output,
            ymax,
            window,
            png,
            against_library,
            library,
        }) => {
            let against = against_library.map(|n| (library, n));
            cmd_report(&files, output, ymax, window, png, against)
        }
        Some(Cmd::Library { cmd, library }) => cmd_library(cmd, library),
        Some(Cmd::Merge { files, output }) => cmd_merge(&files, &output),
        Some(Cmd::Import {
            files,
            output,
            lossy,
            args,
            ..
        }) => fio_cli::cmd_import(&files, &args, output.as_deref(), lossy),
        Some(Cmd::Export {
            spec,
            output,
            target,
            ..
        }) => fio_cli::cmd_export(&spec, output.as_deref(), &target),
        Some(Cmd::Sim { cmd }) => sim_cli::cmd_sim(cmd),
        Some(Cmd::Schema { which }) => {
            let s = if which == "spec" {
                schema::spec_schema()
            } else {
                schema::result_schema()
            };
            stdout_text(&schema::to_file_text(&s));
            Ok(())
        }
        Some(Cmd::Completions { shell }) => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "wkrun", &mut text);
            stdout_text(&String::from_utf8_lossy(&text));
            Ok(())
        }
        Some(Cmd::Man { dir }) => cmd_man(dir.as_deref()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => fail(f),
    }
}

/// Prints the man page, or writes every page into `dir`.
fn cmd_man(dir: Option<&Path>) -> Result<(), Fail> {
    // The pages document the commands; `help` is clap's own and has no page.
    let cmd = Cli::command().disable_help_subcommand(true);
    match dir {
        None => {
            let mut text = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut text)
                .map_err(|e| Fail(1, format!("cannot write the man page: {e}")))?;
            stdout_text(&man::complete(&String::from_utf8_lossy(&text)));
            Ok(())
        }
        Some(dir) => {
            // Written as a report is: the folder opened without following a link, each page created anew
            // beside its name and renamed over it, so a link planted in the folder is replaced, not followed.
            let out = OutDir::open(dir, "man folder").map_err(out_fail)?;
            let mut cmd = cmd;
            cmd.build();
            let mut pages = Vec::new();
            man_pages(cmd, &mut pages);
            let mut written: Vec<String> = Vec::new();
            for (name, page, cmd) in pages {
                let mut text = Vec::new();
                let done = page.render(&mut text).and_then(|()| {
                    let page = String::from_utf8_lossy(&text);
                    text = match name == "wkrun.1" {
                        true => man::complete(&page),
                        false => man::command_page(&page, &cmd),
                    }
                    .into_bytes();
                    out.replace(&name, &text, false)
                });
                if let Err(e) = done {
                    // What was written is removed, and the folder if this command made it (as a report).
                    let path = out.join(&name);
                    written.iter().for_each(|n| drop(out.remove(n)));
                    out.discard();
                    let e = wkrun::sys::limits::explain_file_size(e);
                    return Err(Fail(1, format!("cannot write {}: {e}", path.display())));
                }
                written.push(name);
            }
            stdout_text(&format!("man pages: {}\n", dir.display()));
            Ok(())
        }
    }
}

/// The man page of `cmd` and of each of its commands, with their file names (`wkrun.1`, `wkrun-run.1`)
/// and commands (for their synopses, [`man::command_page`]).
fn man_pages(cmd: clap::Command, out: &mut Vec<(String, clap_mangen::Man, clap::Command)>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        man_pages(sub, out);
    }
    let page = clap_mangen::Man::new(cmd.clone());
    out.push((page.get_filename(), page, cmd));
}

/// The width of the terminal stdout is, in cells; `None` when stdout is not a terminal (a pipe, a file:
/// tables keep their full lines there). A terminal that reports 0 columns (some ptys) is of unknown width:
/// `$COLUMNS`, else 100 ([`wkrun::text::terminal_width`]).
fn terminal_width() -> Option<usize> {
    let term = console::Term::stdout();
    let columns = std::env::var("COLUMNS").ok();
    term.is_term().then(|| {
        let reported = term.size_checked().map(|(_, c)| c);
        wkrun::text::terminal_width(reported, columns.as_deref(), 100)
    })
}

/// Writes `text` to stdout, its control characters but line breaks and tabs shown escaped
/// ([`wkrun::text::printable`]: a name or path from a spec, the command line or a results file never reaches
/// the terminal as an escape sequence). A reader that went away (`wkrun schema result | head`) is no error:
/// the rest is dropped, where `print!` would panic. Any other failure (`> /dev/full`, a full disk) ends
/// wkrun with exit 1 and the reason.
fn stdout_text(text: &str) {
    use std::io::Write;
    let text = wkrun::text::printable(text);
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            err_out(&format!("error: cannot write to standard output: {e}\n"));
            std::process::exit(1);
        }
        _ => {}
    }
}

/// Writes `text` to stderr, its control characters but line breaks and tabs shown escaped, ignoring a
/// failed write (where `eprint!` would panic).
fn err_out(text: &str) {
    use std::io::Write;
    let text = wkrun::text::clip_words(text, wkrun::text::WORD);
    let text = wkrun::text::printable(&text);
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Prints the failure's message (if any) and gives its exit code.
fn fail(Fail(code, msg): Fail) -> ExitCode {
    if !msg.is_empty() {
        // Not eprintln!: after a hang-up stderr may be gone, and the exit code must still be right.
        // Every echo of an input cut, even one the message's maker left whole (a path an OS error named).
        let msg = wkrun::text::clip_words(&msg, wkrun::text::WORD);
        run::progress::log_line(&format!("error: {msg}"));
    }
    ExitCode::from(code)
}

/// The message for a first argument that is neither a command nor a file but close to a command's name
/// (`wkrun valdate x.toml`): clap would take it for the spec of the default command and then complain about
/// the next argument.
fn misspelt_command(args: &[std::ffi::OsString]) -> Option<String> {
    let word = args.get(1)?.to_str()?;
    if word.starts_with('-') || Path::new(word).exists() {
        return None;
    }
    let cmd = Cli::command();
    let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
    if names.contains(&word) {
        return None;
    }
    let best = names
        .iter()
        .map(|n| (strsim::damerau_levenshtein(word, n), *n))
        .min()?;
    (best.0 <= 2 && best.0 < word.len()).then(|| {
        format!(
            "{word:?} is neither a command nor a spec file; did you mean `wkrun {}`? (commands: {})",
            best.1,
            names.join(", ")
        )
    })
}

/// The message for a results file (or a results folder) given where a spec is expected; `None` for
/// anything else. A results file is JSON whose first 4 KiB name `wkrun_version`; no spec starts with `{`.
fn results_given(path: &Path, command: &str) -> Option<String> {
    use std::io::Read;
    let file = match path.is_dir() {
        true => path.join("results.json"),
        false => path.to_path_buf(),
    };
    let mut head = Vec::with_capacity(4096);
    // Only a regular file is looked into: a FIFO would block.
    spec::load::open_regular(&file, false)
        .ok()?
        .take(4096)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    (text.trim_start().starts_with('{') && text.contains("\"wkrun_version\"")).then(|| {
        let p = path.display();
        format!(
            "{p} is a wkrun results {}, not a spec: `wkrun {command}` takes a TOML spec; to look at these results, `wkrun report {p}` (plots and index.html) or `wkrun compare {p} OTHER` (side by side)",
            if path.is_dir() { "folder" } else { "file" }
        )
    })
}

fn load(path: &Path, sets: &[String], command: &str) -> Result<LoadedSpec, Fail> {
    let mut s = spec::load_file(path).map_err(|e| match results_given(path, command) {
        Some(m) => bad(m),
        None => spec_fail(&e),
    })?;
    let sets = sets
        .iter()
        .map(|a| spec::overrides::parse(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    if !sets.is_empty() {
        s.apply_overrides(&sets)
            .map_err(|e| Fail(e.exit_code(), format!("{}: {e}", path.display())))?;
    }
    Ok(s)
}

fn cmd_validate(files: &[PathBuf]) -> Result<(), Fail> {
    // Exit 2 when an input is bad, else 1 when the address space left could not hold one.
    let mut failed = 0;
    for p in files {
        // Told apart by content: a folder, a JSON document, fio's output (its notes or normal text
        // before its JSON, as compare and report tell it) or a file named `*.json` (a results file of
        // 1 GiB of NULs is not a spec) is results, anything else a spec.
        let named_json = p
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        // Nothing there: it may have been meant as either, so neither is named as what failed.
        let missing = std::fs::symlink_metadata(p)
            .err()
            .filter(|e| e.kind() == std::io::ErrorKind::NotFound);
        let checked = match (missing, p.is_dir() || named_json || results_document(p)) {
            (Some(_), _) => Err((
                2,
                format!(
                    "{}: does not exist (give a spec file, or a results folder or its results.json)",
                    wkrun::text::escaped(&p.to_string_lossy())
                ),
            )),
            (None, true) => validate_results(p),
            (None, false) => validate_spec(p).map_err(|e| (e.exit_code(), e.to_string())),
        };
        match checked {
            Ok(line) => stdout_text(&format!("{line}\n")),
            Err((code, e)) => {
                err_out(&format!("error: {e}\n"));
                failed = failed.max(code);
            }
        }
    }
    match failed {
        0 => Ok(()),
        code => Err(Fail(code, String::new())),
    }
}

/// `PATH: ok (N phases)` for a spec that loads, or its errors.
fn validate_spec(p: &Path) -> Result<String, spec::SpecErrors> {
    let s = spec::load_file(p)?;
    let (n, m) = (s.file.phase.len(), s.phases.len());
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    Ok(match n == m {
        true => format!("{}: ok ({n} phase{})", p.display(), plural(n)),
        false => format!(
            "{}: ok ({n} phase{}, {m} after expanding sweeps and matrices)",
            p.display(),
            plural(n)
        ),
    })
}

/// `PATH: ok (results, N phases)` for a results file (or folder) that matches the results schema and whose
/// series CSVs are whole (header, columns, numbers, a row per interval), the run's status first when it is
/// not `completed` (`ok (results, interrupted, 2 phases, ...)`), or what is wrong with the exit status to
/// give: 2, or 1 when the address space left cannot hold reading it.
fn validate_results(p: &Path) -> Result<String, (u8, String)> {
    let file = match p.is_dir() {
        true => p.join("results.json"),
        false => p.to_path_buf(),
    };
    wkrun::report::room::check_inputs(
        std::slice::from_ref(&file),
        "validating results",
        wkrun::report::room::Reader::Check,
    )
    .map_err(|e| (1, e))?;
    let checked =
        wkrun::report::validate::check(&file).map_err(|all| (2, all.join("\nerror: ")))?;
    // What fio's output holds that is no storage I/O (a cpuio job), said as it is accepted.
    for n in &checked.notes {
        err_out(&format!("note: {}: {n}\n", p.display()));
    }
    let (n, series, targets) = (checked.phases, checked.series, checked.targets);
    let folders = match (targets, checked.hosts) {
        (0, 0) => String::new(),
        (0, 1) => ", 1 host's results".to_string(),
        (0, h) => format!(", {h} hosts' results"),
        (1, _) => ", 1 target's folder".to_string(),
        (t, _) => format!(", {t} targets' folders"),
    };
    let status = match checked.status {
        wkrun::results::Status::Completed => String::new(),
        s => format!("{}, ", s.word()),
    };
    Ok(format!(
        "{}: ok (results, {status}{n} phase{}, {series} series CSV{}{folders})",
        p.display(),
        if n == 1 { "" } else { "s" },
        if series == 1 { "" } else { "s" }
    ))
}

/// Whether `path` is a regular file whose first character that is not white space is `{` (a JSON document:
/// a TOML spec cannot start so), or that is fio's output as the readers of results tell it
/// ([`wkrun::fio::json::looks_like_fio`], from its first [`wkrun::fio::json::HEAD_BYTES`]).
fn results_document(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    // Only a regular file is looked into: a FIFO would block.
    spec::load::open_regular(path, false)
        .ok()
        .and_then(|f| {
            f.take(wkrun::fio::json::HEAD_BYTES as u64)
                .read_to_end(&mut head)
                .ok()
        })
        .is_some_and(|_| {
            String::from_utf8_lossy(&head).trim_start().starts_with('{')
                || wkrun::fio::json::looks_like_fio(&head)
        })
}

/// The target the run uses: a path and the size for creating it, or a simulated drive; with notes on what
/// was ignored.
enum Chosen {
    Path(PathBuf, u64),
    Sim(wkrun::sim::SimParams),
}

/// The target path and the size for creating it, or a simulated drive, with notes on what was ignored.
fn choose_target(
    s: &LoadedSpec,
    target: Option<&Path>,
    a: &TargetArgs,
    notes: &mut Vec<String>,
) -> Result<Chosen, Fail> {
    let section = s.file.target.clone();
    let cli_sim = target
        .and_then(|p| p.to_str())
        .filter(|p| p.starts_with(wkrun::sim::params::PREFIX));
    let sim = match cli_sim {
        Some(text) => Some(wkrun::sim::SimParams::parse_target(text).map_err(bad)?),
        None if target.is_none() => section.as_ref().and_then(|t| t.sim.clone()),
        None => None,
    };
    if let Some(p) = sim {
        // The spec's size is its own contradiction only when its own [target] names the simulated drive.
        let spec_size = cli_sim.is_none() && section.as_ref().is_some_and(|t| t.size.is_some());
        if (a.target_size.is_some() && !size_used(s, a)) || spec_size {
            notes.push(
                "a simulated target: the target size setting is ignored (set sim capacity)".into(),
            );
        }
        return Ok(Chosen::Sim(p));
    }
    let path = target
        .map(Path::to_path_buf)
        .or_else(|| section.as_ref().and_then(|t| t.path.clone()))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TARGET_PATH));
    if let Some(why) = path.to_str().and_then(wkrun::sim::params::misspelt_prefix) {
        return Err(bad(why));
    }
    let size = match &a.target_size {
        Some(txt) => {
            Size::parse(txt)
                .map_err(|e| bad(format!("--target-size: {e}")))?
                .0
        }
        None => section
            .as_ref()
            .and_then(|t| t.size)
            .map_or(DEFAULT_TARGET_SIZE, |z| z.0),
    };
    // Only --target-size is worth a note: the spec's [target].size says how to create the file on the
    // first run, and every later run reuses the file as intended.
    if a.target_size.is_some() && path.exists() && !size_used(s, a) {
        notes.push(format!("{} exists: the target size setting is ignored (it applies only to a file wkrun creates)", path.display()));
    }
    Ok(Chosen::Path(path, size))
}

/// Whether one of several targets is a file wkrun creates, with `--target-size`: the size is then used, and
/// the other targets (a device, an existing file, a simulated drive) get no note that it is ignored.
fn size_used(s: &LoadedSpec, a: &TargetArgs) -> bool {
    let listed = listed_targets(s, a);
    let sim = |p: &Path| {
        p.to_str()
            .is_some_and(|t| t.starts_with(wkrun::sim::params::PREFIX))
    };
    listed.len() > 1 && listed.iter().flatten().any(|p| !sim(p) && !p.exists())
}

/// The targets the run names ([`listed_targets`]); `--target` naming a simulated drive and a real target
/// is refused (the spec's `[target] paths` were checked so when it was loaded).
fn target_list(s: &LoadedSpec, a: &TargetArgs) -> Result<Vec<Option<PathBuf>>, Fail> {
    let shown = |p: &Path| wkrun::text::escaped(&p.to_string_lossy()).into_owned();
    match wkrun::sim::params::mixed_clocks(a.target.iter().map(PathBuf::as_path)) {
        Some((sim, real)) => Err(bad(format!(
            "--target {} is a simulated drive and --target {} a real target: {}; nothing was written",
            shown(&a.target[sim]),
            shown(&a.target[real]),
            wkrun::sim::params::MIXED_CLOCKS
        ))),
        None => Ok(listed_targets(s, a)),
    }
}

/// A target that cannot be probed: a path that is no file or block device (a folder, a FIFO) named where
/// it came from, `--target` or the spec's `[target] path` or `paths` entry, located (attack 29 F13).
/// `target`: the target probed, as [`listed_targets`] gave it.
fn probe_fail(
    s: &LoadedSpec,
    target: Option<&Path>,
    a: &TargetArgs,
    e: &target::ProbeError,
) -> Fail {
    let what = e.to_string();
    if !matches!(e, target::ProbeError::NotFileOrDevice(_)) {
        return Fail(e.exit_code(), what);
    }
    let section = s.file.target.as_ref();
    let listed = section.and_then(|t| t.paths.as_ref());
    let key = match (a.target.is_empty(), target, listed) {
        (false, _, _) => return bad(format!("--target {what}")),
        (true, Some(p), Some(paths)) => match paths.iter().position(|q| q == p) {
            Some(i) => format!("target.paths[{i}]"),
            None => return bad(what),
        },
        (true, None, _) if section.is_some_and(|t| t.path.is_some()) => "target.path".into(),
        _ => return bad(what),
    };
    bad(s.key_error(&key, what, None).to_string())
}

/// The targets the run names: each `--target`, else each of the spec's `[target] paths`, else one target
/// chosen by [`choose_target`] from the spec's `[target]` or the default (`None`).
fn listed_targets(s: &LoadedSpec, a: &TargetArgs) -> Vec<Option<PathBuf>> {
    let listed = s.file.target.as_ref().and_then(|t| t.paths.clone());
    match (a.target.is_empty(), listed) {
        (false, _) => a.target.iter().cloned().map(Some).collect(),
        (true, Some(paths)) => paths.into_iter().map(Some).collect(),
        (true, None) => vec![None],
    }
}

/// The target probed and the spec planned on it. `several`: the target's place among several targets, which
/// a plan error then names (the spec is planned against each, and may fit one and not another).
fn probe_and_plan(
    s: &LoadedSpec,
    target: Option<&Path>,
    a: &TargetArgs,
    notes: &mut Vec<String>,
    several: Option<usize>,
) -> Result<(TargetInfo, Plan), Fail> {
    let info = match choose_target(s, target, a, notes)? {
        Chosen::Path(path, size) => {
            target::probe(&path, size).map_err(|e| probe_fail(s, target, a, &e))?
        }
        Chosen::Sim(p) => {
            let info = TargetInfo::sim(p).map_err(|e| bad(format!("simulated target: {e}")))?;
            notes.push(format!(
                "{} runs in virtual time on its own engine: the phases' engine and direct settings do not apply",
                info.path.display()
            ));
            info
        }
    };
    let plan = plan::resolve(s, &info).map_err(|e| match several {
        Some(i) => bad(format!(
            "{e}\n  note: on target {i} ({}, {} B); the spec is planned against each target",
            info.path.display(),
            info.capacity_bytes
        )),
        None => bad(e.to_string()),
    })?;
    Ok((info, plan))
}

/// The plan of `s` on `target`; a file to create that does not fit (its file system's room, the file-size
/// limit) is a resource limit, refused as [`refused_unopened`] records it.
fn plan_or_refuse(
    s: &LoadedSpec,
    target: Option<&Path>,
    a: &RunArgs,
    launch: &wkrun::launch::Launch,
    notes: &mut Vec<String>,
) -> Result<Plan, Fail> {
    match probe_and_plan(s, target, &a.target, notes, None) {
        Err(Fail(1, why)) => Err(match unmade_file_plan(s, target, &a.target) {
            Some(plan) => refused_unopened(s, &plan, a, launch, &why),
            None => Fail(1, why),
        }),
        r => r.map(|(_, plan)| plan),
    }
}

/// The plan of `s` on the file target it would create, described by its path and size alone: for the
/// results of a run refused because that file does not fit. `None` for another target, or a spec that
/// does not plan on it.
fn unmade_file_plan(s: &LoadedSpec, target: Option<&Path>, a: &TargetArgs) -> Option<Plan> {
    let Ok(Chosen::Path(path, size)) = choose_target(s, target, a, &mut Vec::new()) else {
        return None;
    };
    let info = TargetInfo::new(path, target::TargetKind::File, size, 512, 512);
    plan::resolve(s, &info).ok()
}

/// How `wkrun plan` shows the plan: as JSON, from a phase, with the consent a run would be given.
struct PlanHow<'a> {
    json: bool,
    from: Option<&'a str>,
    allow: &'a [PathBuf],
}

fn cmd_plan(spec_path: &Path, a: &TargetArgs, sets: &[String], how: &PlanHow) -> Result<(), Fail> {
    let s = load(spec_path, sets, "plan")?;
    let targets = target_list(&s, a)?;
    let several = targets.len() > 1;
    let plans = targets
        .iter()
        .enumerate()
        .map(|(i, t)| plan_one(&s, t.as_deref(), a, several.then_some(i), how.from))
        .collect::<Result<Vec<_>, _>>()?;
    for l in s.set_lines() {
        err_out(&format!("{l}\n"));
    }
    // Several targets: each window note once, as their run says it (`plan_one` said one target's).
    if several {
        let labels: Vec<String> = (0..plans.len()).map(|i| i.to_string()).collect();
        let each: Vec<(&str, Vec<String>)> = labels
            .iter()
            .zip(&plans)
            .map(|(l, p)| (l.as_str(), plan::notes(p)))
            .collect();
        for n in run::multi::once_each(&each) {
            err_out(&format!("note: {n}\n"));
        }
    }
    // Two paths naming one target: the run refuses them, so the plan says so as it does a missing consent.
    let infos: Vec<&TargetInfo> = plans.iter().map(|p| &p.target).collect();
    if let Some(why) = target::safety::duplicate(&infos) {
        err_out(&format!("note: the run would be refused: {why}\n"));
    }
    // The run's own consent rules.
    if let Err(why) = multi::consents(&plans, how.allow) {
        err_out(&format!("note: the run would be refused: {why}\n"));
    }
    // A file another run holds: the run would be refused when it claims it.
    for p in &plans {
        if let Some(why) = target::safety::held_by_a_run(&p.target) {
            err_out(&format!("note: {why}\n"));
        }
    }
    if how.json {
        // Several targets: a JSON array of plans.
        let text = match plans.as_slice() {
            [one] => serde_json::to_string_pretty(one),
            _ => serde_json::to_string_pretty(&plans),
        };
        stdout_text(&format!("{}\n", text.map_err(|e| Fail(1, e.to_string()))?));
        return Ok(());
    }
    if let [one] = plans.as_slice() {
        stdout_text(&plan::render_text(one));
        return Ok(());
    }
    for (i, p) in plans.iter().enumerate() {
        stdout_text(&format!("target {i}: {}\n", p.target.path.display()));
        stdout_text(&plan::render_text(p));
    }
    Ok(())
}

/// The plan of the spec on one target, with its notes on stderr.
fn plan_one(
    s: &LoadedSpec,
    target: Option<&Path>,
    a: &TargetArgs,
    several: Option<usize>,
    from: Option<&str>,
) -> Result<Plan, Fail> {
    let mut notes = Vec::new();
    let (_, mut plan) = probe_and_plan(s, target, a, &mut notes, several)?;
    start_at(&mut plan, from, s)?;
    // Of the phases from `--from` on, as a run says them after its first lines; of several targets, once
    // for all of them, by the caller.
    if several.is_none() {
        notes.extend(plan::notes(&plan));
    }
    for n in &notes {
        err_out(&format!("note: {n}\n"));
    }
    for n in run::limit_notes(&plan) {
        err_out(&format!("note: {n}\n"));
    }
    Ok(plan)
}

/// The results files named on the command line: a results folder stands for its `results.json`.
fn results_files(args: &[PathBuf]) -> Vec<PathBuf> {
    args.iter()
        .map(|p| match p.is_dir() {
            true => p.join("results.json"),
            false => p.clone(),
        })
        .collect()
}

/// The library `--library` names, else the default place ([`wkrun::library::default_path`]).
fn library_path(arg: LibraryArg) -> Result<PathBuf, Fail> {
    match arg.path {
        Some(p) => Ok(p),
        None => wkrun::library::default_path(|k| std::env::var_os(k)).map_err(lib_fail),
    }
}

fn lib_fail(e: wkrun::library::LibraryError) -> Fail {
    Fail(e.exit_code(), e.to_string())
}

/// The library's last `n` runs of the spec of `files[0]`, the runs in `files` left out; and the names of
/// the runs in `files` (`results` of each) beside them ([`wkrun::library::given_name`]).
fn against_library<'a>(
    files: &[PathBuf],
    results: impl Iterator<Item = &'a wkrun::results::Results>,
    spec: &str,
    (arg, n): (LibraryArg, u32),
) -> Result<(Vec<wkrun::library::Stored>, Vec<String>), Fail> {
    use wkrun::library::{Library, entry};
    let path = library_path(arg)?;
    let except = files
        .iter()
        .map(|f| entry::results_sha256(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(lib_fail)?;
    let lib = Library::open(&path, false).map_err(lib_fail)?;
    let names = (except.iter().zip(files).zip(results))
        .map(|((sha, f), r)| Ok(wkrun::library::given_name(r, f, lib.label_of(sha)?)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(lib_fail)?;
    Ok((
        lib.recent(spec, n as usize, &except).map_err(lib_fail)?,
        names,
    ))
}

/// Warns, on stderr, of each library run put beside `this` that measured another kind of target or ran
/// another spec file ([`wkrun::library::mixed::differences`]).
fn warn_mixed(this: &wkrun::results::Results, stored: &[wkrun::library::Stored]) {
    for w in wkrun::library::mixed::differences(this, stored) {
        err_out(&format!("warning: --against-library: {w}\n"));
    }
}

/// Refuses (exit 1, a resource limit) a command that reads `files` when the address space left cannot hold
/// them ([`wkrun::report::room::check_inputs`]): reading them would abort the process.
pub(crate) fn room_to_read(
    files: &[PathBuf],
    what: &str,
    reader: wkrun::report::room::Reader,
) -> Result<(), Fail> {
    wkrun::report::room::check_inputs(files, what, reader).map_err(|e| Fail(1, e))
}

fn cmd_library(cmd: LibraryCmd, arg: LibraryArg) -> Result<(), Fail> {
    use wkrun::library::{self, Library, Selector};
    let path = library_path(arg)?;
    let text = match cmd {
        LibraryCmd::Add { files, label } => {
            let files = results_files(&files);
            room_to_read(
                &files,
                "adding results to the library",
                wkrun::report::room::Reader::Keep,
            )?;
            library::add_runs(&path, &files, label.as_deref())
        }
        LibraryCmd::List { spec, label } => Library::open(&path, false)
            .and_then(|lib| lib.entries(spec.as_deref(), label.as_deref()))
            .map(|entries| {
                if entries.is_empty() {
                    err_out(&format!("note: the library {} is empty\n", path.display()));
                }
                library::list::render(&entries)
            }),
        LibraryCmd::Rm { id, label } => {
            let sel = match (id, label) {
                (Some(id), _) => Selector::Id(id),
                (None, Some(l)) => Selector::Label(l),
                (None, None) => return Err(bad("rm takes an ID or --label NAME")),
            };
            library::remove(&path, &sel)
        }
    };
    stdout_text(&text.map_err(lib_fail)?);
    Ok(())
}

/// `wkrun warnings RESULTS...`: each results file's warnings whole ([`wkrun::report::warnings::text`]),
/// under `==> FILE <==` when there are several. A file that is not readable results: exit 2, as `compare`.
fn cmd_warnings(files: &[PathBuf]) -> Result<(), Fail> {
    let files = &results_files(files);
    room_to_read(files, "reading results", wkrun::report::room::Reader::Check)?;
    let mut out = String::new();
    for (i, f) in files.iter().enumerate() {
        // Read and checked as `compare` reads them: a folder whose series or figures `validate` refuses is
        // refused here too (exit 2), not quoted.
        let r = wkrun::report::runs::load_run(f)
            .map(|run| run.results)
            .map_err(|e| bad(e.to_string()))?;
        if files.len() > 1 {
            let gap = if i == 0 { "" } else { "\n" };
            out.push_str(&format!(
                "{gap}==> {} <==\n",
                wkrun::text::escaped(&f.display().to_string())
            ));
        }
        out.push_str(&wkrun::report::warnings::text(&r));
    }
    stdout_text(&out);
    Ok(())
}

fn cmd_compare(
    files: &[PathBuf],
    format: CompareFormat,
    by: Option<&str>,
    against: Option<(LibraryArg, u32)>,
    width: Option<usize>,
) -> Result<(), Fail> {
    let files = &results_files(files);
    room_to_read(
        files,
        "comparing results",
        wkrun::report::room::Reader::Check,
    )?;
    use wkrun::report::{self, compare};
    let mut runs = files
        .iter()
        .map(|f| {
            // Read and checked as `report` and `validate` read them: series, logs and traces included.
            report::runs::load_run(f)
                .map(|run| compare::Run {
                    file: f.clone(),
                    results: run.results,
                })
                .map_err(|e| bad(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // fio's JSON of jobs that did no storage I/O (cpuio) alone: nothing to set beside another run.
    if let Some(why) = compare::nothing_to_compare(&runs) {
        return Err(bad(why));
    }
    if let Some(against) = against {
        let spec = runs[0].results.spec.name.clone();
        let given = runs.iter().map(|r| &r.results);
        let (stored, names) = against_library(files, given, &spec, against)?;
        for (r, name) in runs.iter_mut().zip(names) {
            r.results.label = Some(name);
        }
        warn_mixed(&runs[0].results, &stored);
        runs.extend(stored.iter().map(wkrun::library::Stored::compare_run));
    }
    let c = match by {
        None => compare::compare(&runs),
        Some(by) => report::members::compare_by(&runs, by).map_err(bad)?,
    };
    if let (CompareFormat::Table, Some(w)) = (format, width)
        && let Some(n) = compare::too_narrow(&c, w)
    {
        err_out(&format!(
            "{}\n",
            wkrun::run::observer::wrapped(
                &format!(
                    "note: the table is at least {n} cells wide (its phase, metric and first run's \
                     columns beside one other run's), more than the {w} given: its lines are up to {n} \
                     cells, the notes' {w}"
                ),
                w
            )
        ));
    }
    let mut text = match format {
        CompareFormat::Table => compare::render_table(&c, width),
        CompareFormat::Markdown => compare::render_markdown(&c),
        CompareFormat::Csv => compare::render_csv(&c),
    };
    // Notes on what the numbers describe above a table, the others under it, each apart by a blank line;
    // beside CSV, which must stay CSV, all on stderr.
    // On a terminal (or with --width), each wrapped to the width, later lines indented as the console's.
    let lines = |v: Vec<String>| -> String {
        v.iter()
            .map(|n| {
                let n = format!("note: {n}");
                match (format, width) {
                    (CompareFormat::Table, Some(w)) => wkrun::run::observer::wrapped(&n, w) + "\n",
                    _ => n + "\n",
                }
            })
            .collect()
    };
    let (before, notes) = (
        lines(compare::host_caveats(&runs, &c)),
        lines(compare::caveats(&runs)),
    );
    match format {
        CompareFormat::Csv => {
            // The rows' own notes, which the table and Markdown number under them.
            let rows: String = c
                .rows
                .iter()
                .filter_map(|r| Some((r, r.note.as_ref()?)))
                .map(|(r, n)| format!("note: {} {}: {}\n", r.phase, r.label, n.text(&c.columns)))
                .collect();
            err_out(&format!("{before}{notes}{rows}"))
        }
        _ => {
            if !notes.is_empty() {
                let gap = if text.is_empty() { "" } else { "\n" };
                text.push_str(&format!("{gap}{notes}"));
            }
            if !before.is_empty() {
                text = format!("{before}\n{text}");
            }
        }
    }
    stdout_text(&text);
    Ok(())
}

fn cmd_report(
    args: &[PathBuf],
    output: Option<PathBuf>,
    ymax: Option<f64>,
    window: Option<String>,
    png: bool,
    against: Option<(LibraryArg, u32)>,
) -> Result<(), Fail> {
    let files = &results_files(args);
    use wkrun::report::{build, model, runs};
    // A ceiling past these draws no useful ladder of ticks (10^-308 made the chart ask for 2^63 of them).
    if let Some(y) = ymax
        && !(y.is_finite() && (1e-3..=1e15).contains(&y))
    {
        return Err(bad(format!(
            "--ymax {}: the ceiling must be a number of IOPS from 0.001 to 1e15",
            wkrun::units::readable_float(y)
        )));
    }
    let window = match window {
        Some(w) => Some((
            w.clone(),
            wkrun::stats::window::WindowSpec::parse(&w)
                .map_err(|e| bad(format!("--window: {e}")))?,
        )),
        None => None,
    };
    let what = match files.len() {
        1 => "a report of 1 results folder".to_string(),
        n => format!("a report of {n} results folders"),
    };
    room_to_read(files, &what, wkrun::report::room::Reader::Draw)?;
    let mut runs = files
        .iter()
        .map(|f| runs::load_run(f).map_err(|e| bad(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let given = runs.len();
    if let Some(against) = against {
        let spec = runs[0].results.spec.name.clone();
        let given = runs.iter().map(|r| &r.results);
        let (stored, names) = against_library(files, given, &spec, against)?;
        for (r, name) in runs.iter_mut().zip(names) {
            r.results.label = Some(name.clone());
            r.label = name;
        }
        warn_mixed(&runs[0].results, &stored);
        for s in stored {
            runs.push(s.run_data().map_err(lib_fail)?);
        }
    }
    runs::name_runs(&mut runs);
    let against = runs.split_off(given);
    if let Some(why) = window
        .as_ref()
        .and_then(|(text, w)| build::window_outside(&runs, text, w))
    {
        return Err(bad(why));
    }
    let opts = model::Options {
        ymax,
        window,
        png,
        against,
    };
    // The sections, and the plots at the top of the page; each section's plots are drawn as the page is
    // written (`build::write`), under an address-space limit the room checked before each.
    let report = build::plan(&runs, &opts).map_err(|e| Fail(1, e.to_string()))?;
    let dir = output.unwrap_or_else(|| files[0].parent().unwrap_or(Path::new(".")).join("report"));
    let out = OutDir::open(&dir, "report folder").map_err(out_fail)?;
    let written = match build::write(&out, &runs, &report, &opts) {
        Ok(w) => w,
        Err(e) => {
            // What was written is removed, and the folder if the report made it.
            out.discard();
            return Err(Fail(1, e.to_string()));
        }
    };
    let plots = written
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .count();
    // What the page says of the numbers, once it is written (a refused folder gets its error alone).
    for n in wkrun::report::html::host_notes(&runs) {
        err_out(&format!("note: {n}\n"));
    }
    stdout_text(&format!(
        "report: {} ({plots} plots{})\n",
        dir.join("index.html").display(),
        if png { ", each also as PNG" } else { "" }
    ));
    Ok(())
}

/// Applies `--from PHASE` (a phase name or a 0-based index) to the plan of `s`. An index is written in plain
/// digits (`1`, not `+1` or `01`); a name that is also another phase's index is refused as ambiguous. The
/// name of a `[[phase]]` a sweep or matrix expanded (as `--set phase.NAME.` takes it) starts at its first
/// member.
fn start_at(plan: &mut Plan, from: Option<&str>, s: &LoadedSpec) -> Result<(), Fail> {
    let Some(from) = from else {
        return Ok(());
    };
    let n = plan.phases.len();
    let expanded_from = |p: &spec::PhaseSpec| {
        p.origin
            .and_then(|o| s.file.phase.get(o))
            .is_some_and(|o| o.name == from)
    };
    let by_name = plan
        .phases
        .iter()
        .position(|p| p.name == from)
        .or_else(|| s.phases.iter().position(expanded_from).filter(|&i| i < n));
    let canonical =
        from == "0" || (!from.starts_with('0') && from.bytes().all(|b| b.is_ascii_digit()));
    let by_index = from.parse::<usize>().ok().filter(|&i| canonical && i < n);
    let i = match (by_name, by_index) {
        (Some(a), Some(b)) if a != b => {
            return Err(bad(format!(
                "--from {from:?} is ambiguous: phase {a} is named {from:?}, and phase {b} is {:?}; give phase {b}'s name, or rename phase {a}",
                plan.phases[b].name
            )));
        }
        (Some(i), _) | (None, Some(i)) => i,
        (None, None) => {
            const SHOWN: usize = 20;
            let names: Vec<&str> = plan
                .phases
                .iter()
                .take(SHOWN)
                .map(|p| p.name.as_str())
                .collect();
            let more = n.saturating_sub(SHOWN);
            let more = if more > 0 {
                format!(" and {more} more (wkrun plan lists them)")
            } else {
                String::new()
            };
            return Err(bad(format!(
                "--from {from:?}: the plan has no phase of that name or index (0 to {}); phases: {}{more}",
                n.saturating_sub(1),
                names.join(", ")
            )));
        }
    };
    plan.start_at = i;
    wkrun::plan::rounds::check_from(plan).map_err(bad)
}

/// `{rank}` and `{host}` in path options, expanded with this host's rank (`--rank` or the launcher's
/// variable) and name: one definition for a run and for `wkrun plan`.
struct PathExpander {
    rank: Option<wkrun::launch::Rank>,
    host: String,
}

impl PathExpander {
    fn new(rank: Option<u32>) -> Result<PathExpander, Fail> {
        let rank = wkrun::launch::find_rank(rank, |v| std::env::var(v).ok()).map_err(bad)?;
        Ok(PathExpander {
            rank,
            host: run::host_info().hostname,
        })
    }

    /// `p` of `option` expanded.
    /// A path that is not UTF-8 is refused: read as text, its bytes would name another file (`t\xff.img`
    /// read as `t\u{fffd}.img` once wrote into an existing file of that name).
    fn one(&self, option: &str, p: &Path) -> Result<PathBuf, Fail> {
        let Some(text) = p.to_str() else {
            return Err(bad(format!(
                "{option} {}: the path is not valid UTF-8 (shown with its bytes escaped); wkrun names its targets and folders in UTF-8 results and would name another file: give a UTF-8 path; nothing was written",
                p.as_os_str().as_encoded_bytes().escape_ascii()
            )));
        };
        wkrun::launch::expand(option, text, self.rank.as_ref(), &self.host)
            .map(PathBuf::from)
            .map_err(bad)
    }

    /// Each of `ps`, given to `option`, expanded.
    fn all(&self, option: &str, ps: &[PathBuf]) -> Result<Vec<PathBuf>, Fail> {
        ps.iter().map(|p| self.one(option, p)).collect()
    }
}

/// `plan`'s targets and `--allow-destroy` devices with `{rank}` and `{host}` expanded as a run would
/// expand them.
fn plan_targets(
    a: &TargetArgs,
    allow: &[PathBuf],
    rank: Option<u32>,
) -> Result<(TargetArgs, Vec<PathBuf>), Fail> {
    let x = PathExpander::new(rank)?;
    let targets = TargetArgs {
        target: x.all("--target", &a.target)?,
        target_size: a.target_size.clone(),
    };
    Ok((targets, x.all("--allow-destroy", allow)?))
}

/// The run's arguments with `{rank}` and `{host}` expanded in --target, --output and --allow-destroy, and
/// what the launcher asked (rank, --start-at, --phase-grid); checked before anything is written.
fn launch_args(a: &RunArgs) -> Result<(RunArgs, wkrun::launch::Launch), Fail> {
    use wkrun::launch;
    let x = PathExpander::new(a.rank)?;
    let mut out = a.clone();
    out.target.target = x.all("--target", &a.target.target)?;
    out.output = a
        .output
        .as_deref()
        .map(|o| x.one("--output", o))
        .transpose()?;
    out.allow_destroy = x.all("--allow-destroy", &a.allow_destroy)?;
    let now = launch::now_unix_ns();
    let start_at_unix_ns = a
        .start_at
        .as_deref()
        .map(|t| launch::parse_start_at(t, now))
        .transpose()
        .map_err(bad)?;
    let phase_grid_ns = match a.phase_grid.as_deref().map(wkrun::units::Duration::parse) {
        None => None,
        Some(Ok(d)) if d.0 > launch::MAX_START_AHEAD_S * 1_000_000_000 => {
            // As for --start-at: a mistyped unit (10d for 10s) would make a later phase wait for days.
            return Err(bad(format!(
                "--phase-grid: {} is more than 7 days: a later phase would wait up to that long for its start",
                a.phase_grid.as_deref().unwrap_or_default()
            )));
        }
        Some(Ok(d)) if d.0 > 0 => Some(d.0),
        Some(Ok(_)) => return Err(bad("--phase-grid: the grid must be longer than 0")),
        Some(Err(e)) => return Err(bad(format!("--phase-grid: {e}"))),
    };
    let l = launch::Launch {
        rank: x.rank,
        start_at_unix_ns,
        phase_grid_ns,
    };
    Ok((out, l))
}

/// Files a merge holds open at once beside those open when it starts: two (the folder it writes into, and
/// the file it reads or writes). Measured: with 3 open at start, `merge r -o m` completed under a limit of
/// 5 and failed under 4 (attack 40 F2; `limits::merge_under_a_small_open_file_limit_exits_1_naming_it`).
const MERGE_FILES: u64 = 2;

fn cmd_merge(files: &[PathBuf], output: &Path) -> Result<(), Fail> {
    use wkrun::report::merge;
    let files = results_files(files);
    let what = format!("merging {} results folders", files.len());
    // Before an input is opened (reading them is how they are checked): a resource limit, exit 1, naming
    // the limit and what is enough (an input that could not be opened was taken as bad input, exit 2).
    wkrun::run::ensure_open_files(&what, MERGE_FILES, "").map_err(|e| Fail(1, e))?;
    room_to_read(&files, &what, wkrun::report::room::Reader::Keep)?;
    for w in merge::runs_ended(&files).map_err(bad)? {
        err_out(&format!("warning: {w}\n"));
    }
    let mut merged = merge::merge_files(&files).map_err(|e| bad(e.to_string()))?;
    let out = OutDir::for_run(output).map_err(out_fail)?;
    if let Err(e) = merge::write(&out, &merged) {
        // Nothing of the merge is left; the folder goes too when this command made it.
        out.discard();
        return Err(Fail(1, e));
    }
    // The merge is written in full either way: its summary first, then a schema violation (a wkrun bug),
    // or past the schema what `wkrun validate` would refuse (the merge then says failed: exit 1).
    let checked = wkrun::results::check::check_written(&out);
    let contents = match checked {
        Ok(()) => own_check::own_results(&out, &mut merged.results, own_check::Scope::Files),
        Err(_) => Ok(()),
    };
    stdout_text(&format!(
        "{}\n",
        merge::summary_line(&merged, &out.join("results.json"))
    ));
    // The planned phases no host ran, in the run's own words (`not run: rw2, rw3`).
    if let Some(line) = wkrun::results::planned::not_run_line(&merged.results.not_run()) {
        stdout_text(&format!("{line}\n"));
    }
    for w in &merged.unreached {
        err_out(&format!("warning: {w}\n"));
    }
    for p in &merged.results.phases {
        for w in p.warnings.iter().filter(|w| {
            [
                merge::UNMEASURED_WARNING,
                merge::APART_WARNING,
                merge::FOLDS_WARNING,
            ]
            .iter()
            .any(|s| w.starts_with(s))
        }) {
            err_out(&format!(
                "warning: phase {} \"{}\": {w}\n",
                p.index,
                wkrun::text::escaped(&p.name)
            ));
        }
    }
    contents.map_err(|e| Fail(1, e))?;
    checked.map_err(|e| Fail(wkrun::results::check::EXIT_SCHEMA_BUG, e))
}

/// Refuses a file target that is one of the run's output folders (made just now for a target still to be
/// created), or one of the files the run writes into them (its `results.json`, reserve, a series CSV): the
/// run would remove or replace it, the target's data with it.
fn target_not_a_run_file(plan: &Plan, dirs: &[&OutDir]) -> Result<(), Fail> {
    if plan.target.kind != target::TargetKind::File {
        return Ok(());
    }
    let t = &plan.target.path;
    if let Some(d) = dirs.iter().find(|d| d.is(t)) {
        return Err(bad(format!(
            "the target {} is the output folder {}; nothing was written: name a file or a device as the target, and another folder with --output",
            t.display(),
            d.path().display()
        )));
    }
    match dirs.iter().find_map(|d| Some((d, d.run_file_named(t)?))) {
        Some((d, name)) => Err(bad(format!(
            "the target {} is {name} in the output folder {}, which the run writes: it would replace the target and its data; nothing was written: choose another target path or --output folder",
            t.display(),
            d.path().display()
        ))),
        None => Ok(()),
    }
}

/// A run a resource limit refused before it started (`why`, ending "; nothing was written"): exit 1, with
/// `results.json` saying "failed" with why in its output folder `out` (opened and checked already) when the
/// folder can hold one, else nothing written (a folder made for the run removed) and the message saying why not.
fn refused_by_limit(s: &spec::LoadedSpec, plan: &Plan, out: OutDir, why: &str) -> Fail {
    let cause = strip_nothing(why);
    let file = out.join("results.json");
    let written = match run::record_refused(s, plan, &out, cause) {
        Ok(()) => Ok(file),
        Err(e) => {
            out.discard();
            Err(e.to_string())
        }
    };
    refusal(cause, written, " says")
}

/// [`refused_by_limit`] for a run refused before its output folder was opened (a file target that does not
/// fit): the folder opened first, and a folder that is bad input refused as such (exit 2).
fn refused_unopened(
    s: &spec::LoadedSpec,
    plan: &Plan,
    a: &RunArgs,
    launch: &wkrun::launch::Launch,
    why: &str,
) -> Fail {
    let out = match &a.output {
        Some(p) => OutDir::for_run(p),
        None => run::open_default_output(&plan.spec_name, launch.rank.as_ref().map(|r| r.rank)),
    };
    match out {
        Ok(d) => refused_by_limit(s, plan, d, why),
        Err(e) if e.exit_code() == 2 => bad(e.to_string()),
        Err(e) => refusal(strip_nothing(why), Err(e.to_string()), ""),
    }
}

/// The error of a run refused by a resource limit (`cause`): where the results saying "failed" were
/// written (`written`, the file named, then `says`: ` says`, or ` and each target's results.json say`),
/// or why nothing was.
fn refusal(cause: &str, written: Result<PathBuf, String>, says: &str) -> Fail {
    match written {
        Ok(file) => Fail(
            1,
            format!(
                "{cause}; the run did not start: {}{says} \"failed\"",
                wkrun::text::escaped(&file.to_string_lossy())
            ),
        ),
        Err(e) => Fail(1, format!("{cause}; nothing was written ({e})")),
    }
}

/// `why` less its ending "; nothing was written".
fn strip_nothing(why: &str) -> &str {
    why.strip_suffix("; nothing was written").unwrap_or(why)
}

fn cmd_run(a: &RunArgs) -> Result<(), Fail> {
    let Some(spec_path) = &a.spec else {
        return Err(bad(
            "no spec file given; usage: wkrun SPEC [--target PATH] [-o DIR] (see wkrun --help)",
        ));
    };
    // Before anything is made: a stop signal from now on is the run's to handle (one before the run starts
    // removes what was made, [`stopped_before_start`]), never the default action that left an empty output
    // folder and a preallocated target behind.
    signal::install();
    let (a, launch) = &launch_args(a)?;
    let s = load(spec_path, &a.set, "run")?;
    let targets = target_list(&s, &a.target)?;
    let predicted = sim_cli::predicted(
        a.predicted_from.as_deref(),
        &a.target.target,
        (&a.fit_warning, a.target_given),
    )?;
    if targets.len() > 1 {
        return multi::cmd_run_many(&s, &targets, a, launch);
    }
    let mut notes = Vec::new();
    // A file to create that does not fit is a resource limit, recorded as any refusal by one is.
    let mut plan = plan_or_refuse(&s, targets[0].as_deref(), a, launch, &mut notes)?;
    start_at(&mut plan, a.from.as_deref(), &s)?;
    plan.launch = launch.clone();
    if let Some(l) = &a.label {
        plan.label = l.clone();
    }
    if let Some(p) = predicted {
        sim_cli::mark_prediction(&mut plan, p, s.file.target.as_ref(), &mut notes);
    }
    let say = |m: &str| {
        if !a.quiet {
            run::progress::log_line(m);
        }
    };
    s.set_lines().iter().for_each(|l| say(l));
    for n in &notes {
        say(&format!("note: {n}"));
    }
    // Checked before anything is opened for writing.
    let consent = multi::consents(std::slice::from_ref(&plan), &a.allow_destroy)
        .map_err(bad)?
        .remove(0);
    let out_dir = open_run_folder(&s, &plan, a, launch)?;
    // The plan marks the target created only when some phase opens it (not when all run on null).
    let created = plan.target.created;
    if created {
        plan = match create_one_target(&s, &plan, &out_dir) {
            Ok(p) => p,
            Err(e) => {
                out_dir.discard();
                return Err(e);
            }
        };
        say(&run::created_line(&plan.target));
    }
    let out_path = out_dir.path();
    // The summary goes to stdout, with -q too (`wkrun SPEC > log`): where the results are, each phase's
    // lines, where they were written and what to do next.
    let shown = |p: &Path| wkrun::text::escaped(&p.to_string_lossy()).into_owned();
    // On a terminal, a live progress line (log lines print above it); elsewhere the log lines alone.
    let live = !a.quiet && !a.no_phase_log && std::io::IsTerminal::is_terminal(&std::io::stderr());
    // `results: DIR` once the run writes there (not before a refusal).
    let mut console = run::observer::Console::new(a.quiet, live)
        .in_folder(out_path)
        .without_phase_log(a.no_phase_log)
        .announcing(format!("results: {}", shown(out_path)));
    if let Some(f) = stopped_before_start(std::slice::from_ref(&plan), vec![out_dir.clone()]) {
        return Err(f);
    }
    let r = run::execute(&s, &plan, &consent, &out_dir, &signal::STOP, &mut console);
    run::Observer::phase_end(&mut console);
    settle(r, &plan, created, where_now(out_dir)?)
}

/// Opens and locks the run's output folder before anything is written (a folder that another run holds,
/// that holds results.json or that is a symbolic link is refused; hosts launched together get one default
/// folder each, and runs started in one second one each too), and checks the run's resource limits: a limit
/// that refuses it is recorded in a results.json saying "failed" where the folder can hold one (exit 1).
fn open_run_folder(
    s: &LoadedSpec,
    plan: &Plan,
    a: &RunArgs,
    launch: &wkrun::launch::Launch,
) -> Result<OutDir, Fail> {
    let limits = || {
        run::check_open_files(&[plan])
            .and_then(|()| run::check_address_space(&[plan]))
            .and_then(|()| run::check_memory(&[plan]))
    };
    let open_out = || match &a.output {
        Some(p) => OutDir::for_run(p),
        None => run::open_default_output(&plan.spec_name, launch.rank.as_ref().map(|r| r.rank)),
    };
    let out_dir = match open_out() {
        Ok(d) => d,
        // A folder a resource limit refused: the run's own check says what the run needs, or raises the
        // open-file limit to its hard limit, and the folder is opened again.
        Err(e) if e.exit_code() == 1 => match limits() {
            Ok(()) => open_out().map_err(out_fail)?,
            Err(why) => {
                let why = strip_nothing(&why);
                return Err(Fail(1, format!("{why}; nothing was written ({e})")));
            }
        },
        Err(e) => return Err(out_fail(e)),
    };
    if let Err(e) = target_not_a_run_file(plan, &[&out_dir]) {
        out_dir.discard();
        return Err(e);
    }
    // A resource limit, checked once the input is known good.
    if let Err(why) = limits() {
        return Err(refused_by_limit(s, plan, out_dir, &why));
    }
    Ok(out_dir)
}

/// The run's end: its results checked against the schema and, past it, as `wkrun validate` checks them (a
/// run whose results it would refuse failed), then recorded and exited as [`outcome`] says.
fn settle(
    r: Result<wkrun::results::Results, RunError>,
    plan: &Plan,
    created: bool,
    out_dir: OutDir,
) -> Result<(), Fail> {
    let (r, unchecked) = checked_outcome(r, &out_dir);
    let r = match (r, &unchecked) {
        (Ok(mut res), None) => {
            own_check::own_results(&out_dir, &mut res, own_check::Scope::Figures)
                .map(|()| res)
                .map_err(RunError::Failed)
        }
        (r, _) => r,
    };
    outcome(r, plan, created, out_dir)?;
    // A run that went well, whose results break the schema: done, and a wkrun bug to report.
    match unchecked {
        Some(e) => Err(Fail(wkrun::results::check::EXIT_SCHEMA_BUG, e)),
        None => Ok(()),
    }
}

/// The output folder where it is after the run: one moved during the run (and perhaps a link or another
/// folder put in its place) holds what the run wrote through its descriptor, and is read back and named by
/// its new path, with a warning; one removed (or not to be found) fails the run with exit 1, as nothing
/// can be read back.
fn where_now(out_dir: OutDir) -> Result<OutDir, Fail> {
    let Some(now) = out_dir.moved_to() else {
        return Ok(out_dir);
    };
    let was = wkrun::text::escaped(&out_dir.path().to_string_lossy()).into_owned();
    match now.map(|p| out_dir.relocated(p)) {
        Some(Ok(moved)) => {
            err_out(&format!(
                "warning: the output folder {was} was moved during the run, to {}: the results are there (nothing was written into what {was} names now)\n",
                wkrun::text::escaped(&moved.path().to_string_lossy())
            ));
            Ok(moved)
        }
        _ => Err(Fail(
            1,
            format!(
                "the output folder {was} was moved or removed during the run and cannot be found: its results went with it (nothing was written into what {was} names now)"
            ),
        )),
    }
}

/// The target file a run creates, once the output folder is known to keep room for the results beside it:
/// when it does not, a resource limit, the run refused with its results.json saying "failed" (as a run
/// on several targets records it).
fn create_one_target(s: &LoadedSpec, plan: &Plan, out_dir: &OutDir) -> Result<Plan, Fail> {
    let here = plan.target.path.parent().unwrap_or(Path::new("."));
    if let Err(e) = out_dir.room_beside(&[(here, plan.target.capacity_bytes)]) {
        return Err(refused_by_limit(s, plan, out_dir.clone(), &e.refusal()));
    }
    run::create_target(s, plan).map_err(bad)
}

/// The run's outcome once what it wrote is checked against the published schema (whatever the outcome; a
/// run refused before it wrote anything has nothing to check), and the violations of a run that went well
/// (its exit is then [`wkrun::results::check::EXIT_SCHEMA_BUG`]): they are added to a failure's message,
/// and said beside an interruption.
fn checked_outcome(
    r: Result<wkrun::results::Results, RunError>,
    out_dir: &OutDir,
) -> (Result<wkrun::results::Results, RunError>, Option<String>) {
    let checked = match &r {
        Err(RunError::Refused(_)) => Ok(()),
        _ => wkrun::results::check::check_written(out_dir),
    };
    match (r, checked) {
        (Err(RunError::Failed(f)), Err(e)) => (Err(RunError::Failed(format!("{f}; {e}"))), None),
        (r @ Err(_), Err(e)) => {
            err_out(&format!("error: {e}\n"));
            (r, None)
        }
        (r, checked) => (r, checked.err()),
    }
}

/// The exit of a run on one target, and its last stdout lines: `done:` and `next:`, or the error; a run
/// refused before it wrote anything leaves nothing this command made.
fn outcome(
    r: Result<wkrun::results::Results, RunError>,
    plan: &Plan,
    created: bool,
    out_dir: OutDir,
) -> Result<(), Fail> {
    let shown = |p: &Path| wkrun::text::escaped(&p.to_string_lossy()).into_owned();
    match r {
        Ok(_) => {
            run::progress::out_line(&format!("done: {}", shown(&out_dir.join("results.json"))));
            run::progress::out_line(&run::next_line(out_dir.path(), plan));
            Ok(())
        }
        Err(RunError::Interrupted) => Err(interrupted(out_dir.path())),
        Err(RunError::Refused(e)) => {
            if created {
                run::remove_created(&plan.target);
            }
            out_dir.discard();
            Err(bad(e))
        }
        Err(e) => Err(Fail(1, e.to_string())),
    }
}

/// A run that a stop signal stopped before it started (the handler is in place from the start of
/// [`cmd_run`]): the target files made for it are removed (each while its path still names it), then its
/// output folders (`dirs`, innermost first) that it made, and the exit is 128 + the signal's number, as an
/// interrupted run's; the message says what was removed and what was kept ([`left_behind`]). `None` when
/// no signal has come: the run starts, and one from then on leaves partial results.
pub(crate) fn stopped_before_start(plans: &[Plan], dirs: Vec<OutDir>) -> Option<Fail> {
    let sig = signal::first()?;
    let files: Vec<&Path> = plans
        .iter()
        .filter(|p| run::remove_created(&p.target))
        .map(|p| p.target.path.as_path())
        .collect();
    let folders: Vec<(PathBuf, bool, bool)> = dirs
        .into_iter()
        .map(|d| (d.path().to_path_buf(), d.made(), d.discard()))
        .collect();
    Some(Fail(
        u8::try_from(128 + sig).unwrap_or(130),
        format!(
            "interrupted by {} before the run started: nothing was written{}",
            signal::name(sig),
            left_behind(&files, &folders)
        ),
    ))
}

/// What a run stopped before it started removed and kept, in words after `nothing was written`: the
/// target `files` it made and removed, and its output `folders` (path, made by the run, removed); a folder
/// inside one removed is not named again.
/// `; removed what was made for the run: the output folder out and the target file t.img`,
/// `; removed what was made for the run: the target file t.img; kept the output folder out, which was there
/// before the run`.
fn left_behind(files: &[&Path], folders: &[(PathBuf, bool, bool)]) -> String {
    let shown = |p: &Path| wkrun::text::escaped(&p.to_string_lossy()).into_owned();
    let named = |what: &str, paths: Vec<String>| match paths.len() {
        0 => None,
        1 => Some(format!("the {what} {}", paths[0])),
        _ => Some(format!("the {what}s {}", paths.join(", "))),
    };
    let removed: Vec<&Path> = folders
        .iter()
        .filter(|f| f.2)
        .map(|f| f.0.as_path())
        .collect();
    let outermost = |p: &Path| !removed.iter().any(|q| *q != p && p.starts_with(q));
    let gone = [
        named(
            "output folder",
            removed
                .iter()
                .filter(|p| outermost(p))
                .map(|p| shown(p))
                .collect(),
        ),
        named("target file", files.iter().map(|p| shown(p)).collect()),
    ];
    let gone: Vec<String> = gone.into_iter().flatten().collect();
    let mut out = String::new();
    if !gone.is_empty() {
        out.push_str(&format!(
            "; removed what was made for the run: {}",
            gone.join(" and ")
        ));
    }
    for (path, made, _) in folders.iter().filter(|f| !f.2) {
        let why = match made {
            true => "made for the run but no longer empty",
            false => "which was there before the run",
        };
        out.push_str(&format!("; kept the output folder {}, {why}", shown(path)));
    }
    out
}

/// The exit of an interrupted run: 128 + the number of the signal that stopped it (130 for SIGINT), the
/// signal named in the message.
fn interrupted(out_path: &Path) -> Fail {
    let sig = signal::first().unwrap_or(libc::SIGINT);
    Fail(
        u8::try_from(128 + sig).unwrap_or(130),
        format!(
            "interrupted by {}; partial results in {}",
            signal::name(sig),
            out_path.display()
        ),
    )
}
