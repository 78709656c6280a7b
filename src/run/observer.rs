//! The run's events and who hears them: one [`Observer`] receives every event (log lines, result lines,
//! phase start and end, each series row, each new state of the results). The results file is one observer
//! ([`ResultsWriter`], always present), the terminal another ([`Console`]: result lines on stdout, log lines
//! on stderr, the live progress line when stderr is a terminal).

use super::progress::{self, Bar};
use crate::plan::PhasePlan;
use crate::results::Results;
use crate::results::series_csv::SeriesRow;
use crate::results::write::{ResultsWriter, WriteError};

/// Hears the events of a run, on the thread that runs the plan. Every method has a default that ignores the
/// event.
pub trait Observer {
    /// A line for humans about the run: what it does, notes (stderr).
    fn log(&mut self, _line: &str) {}
    /// A note of the whole run, not of one target (a window longer than its phase): stderr, with several
    /// targets once and without a target's label.
    fn run_note(&mut self, line: &str) {
        self.log(line);
    }
    /// A line of the run's result summary: a phase's header (what it ran) and its totals, latency and
    /// steady state (stdout, as fio prints its results).
    fn result(&mut self, _line: &str) {}
    /// A warning of the phases named `phases` (one, or several with the same warning), in full; the
    /// results keep it in full, the console says it on one line ([`warning_line`]).
    fn warning(&mut self, _phases: &[&str], _text: &str) {}
    /// A note of the phases named `phases`: what a reader should know of their numbers that is no setup to
    /// fix (holes an erase of this run made); the results keep it among the warnings, the console says it
    /// on one line as `note: ...` ([`note_line`]).
    fn note(&mut self, _phases: &[&str], _text: &str) {}
    /// Phase `number` (its index, from 0) of a run of `of` phases starts.
    fn phase_start(&mut self, _number: usize, _of: usize, _phase: &PhasePlan) {}
    /// The running phase closed one interval of its series (the row was written to its CSV).
    fn row(&mut self, _row: &SeriesRow) {}
    /// The running phase's work ended (completed, failed or interrupted).
    fn phase_end(&mut self) {}
    /// The results changed: the run started, a phase ended, the run ended.
    ///
    /// # Errors
    /// The results could not be recorded; the run stops.
    fn results(&mut self, _results: &Results) -> Result<(), WriteError> {
        Ok(())
    }
    /// Every target of the run has recorded its first results: room for the last may now be kept.
    fn first_recorded_everywhere(&mut self) {}
}

/// `results.json`, rewritten atomically (and validated) at the start, after each phase and at the end;
/// after phases shorter than the writes themselves, paced ([`ResultsWriter::update`]).
impl Observer for ResultsWriter {
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        self.update(results)
    }
    fn first_recorded_everywhere(&mut self) {
        self.keep_room_now();
    }
}

/// Two observers, in order: every event goes to both; of two results errors, the first is returned.
pub struct Both<'a>(pub &'a mut dyn Observer, pub &'a mut dyn Observer);

impl Observer for Both<'_> {
    fn log(&mut self, line: &str) {
        self.0.log(line);
        self.1.log(line);
    }
    fn run_note(&mut self, line: &str) {
        self.0.run_note(line);
        self.1.run_note(line);
    }
    fn result(&mut self, line: &str) {
        self.0.result(line);
        self.1.result(line);
    }
    fn warning(&mut self, phases: &[&str], text: &str) {
        self.0.warning(phases, text);
        self.1.warning(phases, text);
    }
    fn note(&mut self, phases: &[&str], text: &str) {
        self.0.note(phases, text);
        self.1.note(phases, text);
    }
    fn phase_start(&mut self, number: usize, of: usize, phase: &PhasePlan) {
        self.0.phase_start(number, of, phase);
        self.1.phase_start(number, of, phase);
    }
    fn row(&mut self, row: &SeriesRow) {
        self.0.row(row);
        self.1.row(row);
    }
    fn phase_end(&mut self) {
        self.0.phase_end();
        self.1.phase_end();
    }
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        let a = self.0.results(results);
        let b = self.1.results(results);
        a.and(b)
    }
    fn first_recorded_everywhere(&mut self) {
        self.0.first_recorded_everywhere();
        self.1.first_recorded_everywhere();
    }
}

/// The terminal: result lines on stdout (with `quiet` too: the summary of the run), log lines on stderr (none
/// with `quiet`), and with a live progress line both print above it.
pub struct Console {
    quiet: bool,
    /// Log lines other than warnings left out ([`Console::without_phase_log`]).
    no_phase_log: bool,
    bar: Option<Bar>,
    /// A result line said when the results are first recorded ([`Console::announcing`]).
    first: Option<String>,
    /// The kinds of warning and note said so far, and the later phases that had them ([`Repeats`]).
    repeats: Repeats,
    /// The results folder, as a shell word, that a cut warning line names ([`Console::in_folder`]).
    folder: Option<String>,
}

impl Console {
    /// Log lines on stderr unless `quiet`; a live progress line when `live`.
    pub fn new(quiet: bool, live: bool) -> Console {
        Console {
            quiet,
            no_phase_log: false,
            bar: live.then(Bar::new),
            first: None,
            repeats: Repeats::default(),
            folder: None,
        }
    }

    /// Names `dir`, the run's results folder, in the ending of a warning line cut short: `… (in full: wkrun
    /// warnings DIR)` ([`warning_line`]).
    pub fn in_folder(mut self, dir: &std::path::Path) -> Console {
        use std::os::unix::ffi::OsStrExt;
        self.folder = Some(crate::text::shell_word(dir.as_os_str().as_bytes()));
        self
    }

    /// The console line of a warning or a note ([`Said::line`]), naming the results folder when cut.
    pub fn line_of(&self, said: Said, phases: &[&str], text: &str, width: usize) -> String {
        said_line(said.word(), phases, text, width, self.folder.as_deref())
    }

    /// Leaves out the log of phases (`without`) but not warnings: a run `wkrun sim predict` starts says on
    /// stderr only what its parent passes on (`--no-phase-log`, a hidden option).
    pub fn without_phase_log(mut self, without: bool) -> Console {
        self.no_phase_log = without;
        self
    }

    /// Says `line` (stdout) once the run records its results for the first time, when it really starts
    /// writing into its folder (`results: DIR`): a run refused before then says nothing of a folder.
    pub fn announcing(mut self, line: String) -> Console {
        self.first = Some(line);
        self
    }

    /// A warning's or a note's line on stderr, even without the log of phases.
    fn said_line(&self, line: &str) {
        match &self.bar {
            // A terminal wraps a long line wherever its width falls, mid-word: wrapped here at words.
            Some(bar) => bar.println(&wrapped(line, progress::term_width())),
            None => self.said(line),
        }
    }

    /// A log line on stderr (above the live line when there is one), none when quiet.
    fn said(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None if !self.quiet => progress::log_line(line),
            None => {}
        }
    }
}

impl Observer for Console {
    fn log(&mut self, line: &str) {
        if !self.no_phase_log {
            self.said(line);
        }
    }
    fn run_note(&mut self, line: &str) {
        self.said(line);
    }
    fn result(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.print_result(line),
            None => progress::result_line(line),
        }
    }
    fn warning(&mut self, phases: &[&str], text: &str) {
        if self.repeats.first(Said::Warning, phases, text) {
            self.said_line(&self.line_of(Said::Warning, phases, text, WARNING_WIDTH));
        }
    }
    fn note(&mut self, phases: &[&str], text: &str) {
        if self.repeats.first(Said::Note, phases, text) {
            self.said_line(&self.line_of(Said::Note, phases, text, WARNING_WIDTH));
        }
    }
    fn phase_start(&mut self, number: usize, of: usize, phase: &PhasePlan) {
        if let Some(bar) = &self.bar {
            bar.phase_start(number, of, phase);
        }
    }
    fn row(&mut self, row: &SeriesRow) {
        if let Some(bar) = &self.bar {
            bar.row(row);
        }
    }
    fn phase_end(&mut self) {
        if let Some(bar) = &self.bar {
            bar.phase_end();
        }
    }
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        if let Some(line) = self.first.take() {
            self.result(&line);
        }
        if results.status != crate::results::Status::Running {
            for (said, names, text) in self.repeats.take() {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                self.said_line(&self.line_of(said, &names, &text, WARNING_WIDTH));
            }
        }
        // A summary that stdout does not take (`> /dev/full`) stopped the run at the failed write
        // ([`progress::result_line`]); a run that goes on (its caller's stop flag is not the signals')
        // stops at this record of its results, which then say "failed" with why. A run a signal stopped (a
        // closed terminal: SIGHUP, then EIO on its writes) ends interrupted.
        match progress::stdout_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The longest a warning's console line is, in bytes, unless its action needs more ([`warning_line`]).
pub const WARNING_WIDTH: usize = 200;

/// Where a warning cut is read in full by a line that knows no results folder ([`warning_line`], outside a
/// run's console): `wkrun warnings DIR` prints a run's warnings whole. A run's console names its folder.
const IN_FULL: &str = " (in full: wkrun warnings)";

/// What a console line says: a warning (a setup to fix, or numbers to read with care) or a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// `warning: phase NAME: TEXT`.
    Warning,
    /// `note: phase NAME: TEXT`: no setup to fix (holes this run's erase made).
    Note,
}

impl Said {
    /// The line's first word.
    fn word(self) -> &'static str {
        match self {
            Said::Warning => "warning",
            Said::Note => "note",
        }
    }

    /// The console line of `text` for `phases`, at most `width` bytes but for its action ([`warning_line`]).
    pub fn line(self, phases: &[&str], text: &str, width: usize) -> String {
        said_line(self.word(), phases, text, width, None)
    }
}

/// A warning on one line of at most `width` bytes (`width` at least 100): `warning: phase w: TEXT` or
/// `warning: phases f, r: TEXT`, its control characters escaped; a text that does not fit is cut at a word
/// and ends `… (in full: wkrun warnings)`, the command that prints a run's warnings whole (a console
/// naming its results folder, [`Console::in_folder`], ends it `… (in full: wkrun warnings DIR)`). The
/// paragraphs some warnings are (90 words, once per phase) made a run's console unreadable; the results
/// keep them whole. A warning's text starts with what it is, what it does to the numbers and what to do
/// (`busy host: the rates are below the device's; rerun on an idle host: ...`), so the cut keeps at least
/// [`MIN_TEXT`] bytes of it, and always its action, the text up to its second `: ` (at most [`ACTION_MAX`]
/// bytes): where the phases' names (and a target's label before the line) leave less, fewer names are
/// listed, each whole (the first always), and an action that still does not fit makes the line longer than
/// `width`; a console's ending always names its folder.
pub fn warning_line(phases: &[&str], text: &str, width: usize) -> String {
    said_line("warning", phases, text, width, None)
}

/// A note on one line, as [`warning_line`] says a warning: `note: phase w: TEXT`.
pub fn note_line(phases: &[&str], text: &str, width: usize) -> String {
    said_line("note", phases, text, width, None)
}

/// [`warning_line`] with `word` (`warning`, `note`) first, and the ending naming `folder` where it fits.
fn said_line(
    word: &str,
    phases: &[&str],
    text: &str,
    width: usize,
    folder: Option<&str>,
) -> String {
    let width = width.max(100);
    let text = crate::text::escaped(text);
    let action = action_len(&text);
    // The ending always names the folder a console has: a line that must keep its action is longer
    // rather than say a command that cannot run as printed (trial 16: `(in full: wkrun warnings)`).
    let named_folder = folder.map(|d| format!(" (in full: wkrun warnings {d})"));
    let in_full = named_folder.as_deref().unwrap_or(IN_FULL);
    let mut line = String::new();
    let mut kept_len = 0;
    // Whole names, as many as fit in 60 bytes, then in 24; a name is cut (16 bytes) only where whole names
    // left the text less than MIN_TEXT bytes and the cut keeps more of it (a 34-byte name beside a target's
    // label and folder kept `the submitting…` of its text).
    for (i, (most, each)) in [(60, None), (24, None), (24, Some(16))]
        .into_iter()
        .enumerate()
    {
        if i == 2 && kept_len >= MIN_TEXT {
            break;
        }
        let head = format!("{word}: {}: ", named(phases, most, each));
        if head.len() + text.len() <= width {
            return format!("{head}{text}");
        }
        let room = width.saturating_sub(head.len() + in_full.len() + '…'.len_utf8());
        let kept = match cut_at_word(&text, room) {
            cut if cut.len() >= action => cut,
            _ => &text[..action],
        };
        if i == 2 && kept.len() <= kept_len {
            break;
        }
        kept_len = kept.len();
        line = format!("{head}{kept}…{in_full}");
        if room >= MIN_TEXT.max(action) {
            break;
        }
    }
    line
}

/// The most bytes of a text's action that a console line keeps whole whatever its width.
pub const ACTION_MAX: usize = 200;

/// The length of `text`'s start up to its second `: ` (what it is, and what to do), when that is at most
/// [`ACTION_MAX`] bytes; else 0.
fn action_len(text: &str) -> usize {
    let mut seps = text.match_indices(": ").map(|(i, _)| i);
    match (seps.next(), seps.next()) {
        (Some(_), Some(end)) if end <= ACTION_MAX => end,
        _ => 0,
    }
}

/// `line` wrapped at spaces to a terminal of `cols` columns, each line after the first indented by two
/// spaces (a terminal wraps a long line mid-word); a word longer than a line stays whole.
pub fn wrapped(line: &str, cols: usize) -> String {
    // One column free, as the live line keeps, and the indent on every line for an even measure.
    let width = cols.saturating_sub(3).max(20);
    crate::text::wrap(line, width).join("\n  ")
}

/// The fewest bytes of a warning's text a cut console line keeps, when the line's width allows.
pub const MIN_TEXT: usize = 80;

/// `phase w`, `phases f, r`, or as many names as fit in about `most` bytes and how many more (`phases a, b
/// and 7 more`). Names are whole (trial 28 L3: `phases restore[filled=… and 5 more` cut a sweep's label in
/// two): the first always, the others as far as they fit; `wkrun warnings` lists them all. With `each`,
/// a name over `each` bytes is cut with `…` (the last resort of [`said_line`], where whole names leave the
/// text too little room).
fn named(phases: &[&str], most: usize, each: Option<usize>) -> String {
    let mut out = match phases.len() {
        1 => "phase ".to_string(),
        _ => "phases ".to_string(),
    };
    for (i, p) in phases.iter().enumerate() {
        let p = match each {
            Some(each) if p.len() > each => format!("{}…", cut_at_word(p, each - 1)),
            _ => p.to_string(),
        };
        if i > 0 && out.len() + 2 + p.len() > most {
            out.push_str(&format!(" and {} more", phases.len() - i));
            return out;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&p);
    }
    out
}

/// The longest start of `s` within `room` bytes, ended at a word's end (a console line cut mid-word read as
/// a bug), without a trailing space or `,;:`: at a space in its second half; else after a `/` there (a long
/// path is cut between its components); else at its last space; within a word only when it has none.
fn cut_at_word(s: &str, room: usize) -> &str {
    let mut end = room.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    if end == s.len() {
        return s;
    }
    let head = &s[..end];
    let head = match (head.rfind(' '), head.rfind('/')) {
        (Some(sp), _) if sp >= end / 2 => &head[..sp],
        (_, Some(sl)) if sl >= end / 2 => &head[..sl + 1],
        (Some(sp), _) if sp > 0 => &head[..sp],
        _ => head,
    };
    head.trim_end_matches([' ', ',', ';', ':'])
}

/// The byte ranges of `text`'s numbers: a run of digits, with a decimal part, standing as a word (after
/// the start, a space, `(` or `[`; before the end, a space, `,;:)]%` or a full stop that ends a sentence).
/// Digits within a name or a path (`w1`, `/dev/loop3`, `t0-a`, `"2"`) are no number.
fn numbers(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let digits = |mut j: usize| {
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        j
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || matches!(b[i - 1], b' ' | b'(' | b'['));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = digits(i);
        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j = digits(j + 1);
        }
        let ends = match b.get(j) {
            None => true,
            Some(b'.') => b.get(j + 1).is_none_or(|&c| c == b' '),
            Some(c) => b" ,;:)]%".contains(c),
        };
        if ends {
            out.push(i..j);
        }
        i = j;
    }
    out
}

/// A warning's kind: its text with each of its numbers left out (numbers standing as words: not the digits
/// of a name or a path). Warnings of one kind say the same of different phases, but for their numbers (the
/// busy host's `waited for a CPU 48 % of the phase`).
pub fn kind(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in numbers(text) {
        out.push_str(&text[at..r.start]);
        out.push('\0');
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The warnings `texts`, all of one [`kind`], said as one: the first's text with each number that differs
/// among them given as the range of its values (`waited for a CPU 31–48 % of the phase`).
pub fn merged(texts: &[&str]) -> String {
    let Some((first, rest)) = texts.split_first() else {
        return String::new();
    };
    let all: Vec<Vec<&str>> = texts
        .iter()
        .map(|t| numbers(t).into_iter().map(|r| &t[r]).collect())
        .collect();
    let mut out = String::with_capacity(first.len() + 8);
    let mut at = 0;
    for (k, r) in numbers(first).into_iter().enumerate() {
        out.push_str(&first[at..r.start]);
        let value = |n: &&str| n.parse::<f64>().unwrap_or(0.0);
        let slot = || all.iter().filter_map(|n| n.get(k));
        let lo = slot().min_by(|a, b| value(a).total_cmp(&value(b)));
        let hi = slot().max_by(|a, b| value(a).total_cmp(&value(b)));
        match (lo, hi) {
            (Some(lo), Some(hi)) if lo != hi && !rest.is_empty() => {
                out.push_str(&format!("{lo}–{hi}"));
            }
            _ => out.push_str(&first[r.clone()]),
        }
        at = r.end;
    }
    out.push_str(&first[at..]);
    out
}

/// Each kind of warning of `phases` (name, warnings) once ([`kind`]: warnings that differ only in their
/// numbers are one), in order of first appearance, said as one ([`merged`]) with the names of the phases
/// that have it.
pub fn grouped<'a>(
    phases: impl IntoIterator<Item = (&'a str, &'a [String])>,
) -> Vec<(String, Vec<&'a str>)> {
    let mut out: Vec<(String, Vec<&str>, Vec<&str>)> = Vec::new();
    for (name, warnings) in phases {
        for w in warnings {
            let k = kind(w);
            match out.iter_mut().find(|(t, _, _)| *t == k) {
                Some((_, texts, names)) => {
                    texts.push(w);
                    if names.last() != Some(&name) {
                        names.push(name);
                    }
                }
                None => out.push((k, vec![w.as_str()], vec![name])),
            }
        }
    }
    out.into_iter()
        .map(|(_, texts, names)| (merged(&texts), names))
        .collect()
}

/// The warnings and notes a console said, by [`kind`]: the first of a kind is said when it comes; a later
/// phase's of the same kind is held, and when the run ends one line names every phase that had the kind,
/// its numbers as ranges ([`merged`]): a busy host made every phase of a run say its own line.
#[derive(Default)]
pub struct Repeats {
    kinds: Vec<Kind>,
}

/// One kind of warning or note a console said ([`Repeats`]).
struct Kind {
    said: Said,
    kind: String,
    /// The phases that had it, in order.
    names: Vec<String>,
    /// Their texts, the first said.
    texts: Vec<String>,
    /// Whether a later phase's was held.
    held: bool,
}

impl Repeats {
    /// Whether `text` of `phases` is the first of its kind, to say now; else it is held.
    pub fn first(&mut self, said: Said, phases: &[&str], text: &str) -> bool {
        let k = kind(text);
        let names = phases.iter().map(|p| p.to_string());
        match self
            .kinds
            .iter_mut()
            .find(|g| g.said == said && g.kind == k)
        {
            Some(g) => {
                for n in names {
                    if !g.names.contains(&n) {
                        g.names.push(n);
                    }
                }
                g.texts.push(text.to_string());
                g.held = true;
                false
            }
            None => {
                self.kinds.push(Kind {
                    said,
                    kind: k,
                    names: names.collect(),
                    texts: vec![text.to_string()],
                    held: false,
                });
                true
            }
        }
    }

    /// Each kind with a held repeat, once: what it is, every phase that had it and its text said as one.
    pub fn take(&mut self) -> Vec<(Said, Vec<String>, String)> {
        let mut out = Vec::new();
        for g in &mut self.kinds {
            if std::mem::take(&mut g.held) {
                let texts: Vec<&str> = g.texts.iter().map(String::as_str).collect();
                out.push((g.said, g.names.clone(), merged(&texts)));
            }
        }
        out
    }
}

/// Hears nothing.
pub struct Silent;

impl Observer for Silent {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warning that fits is said whole; a paragraph is cut at a word, said where to read it in full, and
    /// keeps to the width (issue 24 item 5).
    #[test]
    fn a_warning_is_one_line_of_at_most_the_width() {
        assert_eq!(
            warning_line(&["w"], "short", 200),
            "warning: phase w: short"
        );
        let cache = "direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device";
        let line = warning_line(&["f", "r"], cache, 200);
        assert_eq!(
            line,
            "warning: phases f, r: direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory and… (in full: wkrun warnings)"
        );
        assert_eq!(line.len(), 192);
        // Within the width, but for the action: `warning: phases f, r: ` (22 bytes), the action (68) and
        // `… (in full: wkrun warnings)` (29) need 119.
        for width in 100..260 {
            let line = warning_line(&["f", "r"], cache, width);
            assert!(line.len() <= width.max(119), "{width}");
            assert!(line.contains(&cache[..68]), "{width}");
        }
        // Line breaks and escapes never reach the terminal.
        assert_eq!(
            warning_line(&["w"], "a\nb\u{1b}[2J", 200),
            "warning: phase w: a\\nb\\u{1b}[2J"
        );
    }

    /// A cut line ends with the command that prints a run's warnings whole (it named results.json and a
    /// section of the docs): `wkrun warnings DIR` with the console's results folder as a shell word, where
    /// that leaves the text its room; else the text is cut to its action and the folder still named.
    #[test]
    fn a_cut_line_names_wkrun_warnings_and_the_folder_where_it_fits() {
        let cache = "direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device";
        let near = Console::new(true, false).in_folder(std::path::Path::new("my out"));
        let line = near.line_of(Said::Warning, &["f", "r"], cache, 200);
        assert_eq!(
            line,
            "warning: phases f, r: direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory… (in full: wkrun warnings 'my out')"
        );
        assert_eq!(line.len(), 197);
        // A folder of 120 bytes would leave the text 28: the text keeps its action (69 bytes), the ending
        // its folder, and the line is 40 bytes over the width (trial 16: the ending left the folder out).
        let far = Console::new(true, false).in_folder(std::path::Path::new(&"d/".repeat(60)));
        let line = far.line_of(Said::Warning, &["f", "r"], cache, 200);
        assert_eq!(
            line,
            format!(
                "warning: phases f, r: direct = false: the page cache sets these numbers; set direct = true… (in full: wkrun warnings {})",
                "d/".repeat(60)
            )
        );
        assert_eq!(line.len(), 240);
        assert_eq!(
            near.line_of(Said::Note, &["w"], "short", 200),
            "note: phase w: short"
        );
    }

    /// The newcomer's trial: warnings were cut mid-word. A text whose last space within the room is early
    /// is cut there, not inside the long word after it; on a terminal the line wraps at words.
    #[test]
    fn a_warning_is_cut_and_wrapped_at_words() {
        let long = format!("target {} is not a regular file", "/x".repeat(100));
        // Room for the text: 200 − 18 (`warning: phase w: `) − 26 (the ending) − 3 (`…`) = 153 bytes: `target `
        // and 72 of the `/x`, ended after the next `/`.
        let cut = warning_line(&["w"], &long, 200);
        assert_eq!(
            cut,
            format!(
                "warning: phase w: target {}… (in full: wkrun warnings)",
                "/x".repeat(72) + "/"
            )
        );
        assert!(cut.len() <= 200, "{}", cut.len());
        let spaced = format!("{} {}", "w".repeat(30), "v".repeat(300));
        assert_eq!(
            warning_line(&["w"], &spaced, 200),
            format!(
                "warning: phase w: {}… (in full: wkrun warnings)",
                "w".repeat(30)
            )
        );
        assert_eq!(
            wrapped(
                "warning: phase w: direct = false: I/O goes through the page cache",
                40
            ),
            "warning: phase w: direct = false: I/O\n  goes through the page cache"
        );
        let word = "a".repeat(50);
        assert_eq!(wrapped(&format!("x {word}"), 40), format!("x\n  {word}"));
    }

    #[test]
    fn many_phases_are_named_as_far_as_they_fit() {
        let names: Vec<String> = (0..12).map(|i| format!("phase-{i:02}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(
            warning_line(&names, "x", 200),
            "warning: phases phase-00, phase-01, phase-02, phase-03, phase-04 and 7 more: x"
        );
        let long = "l".repeat(120);
        assert_eq!(
            warning_line(&[&long], "x", 200),
            format!("warning: phase {long}: x")
        );
        // Trial 28 L3: where the names leave the text too little room, fewer are listed, each whole, never
        // `restore[filled=…`.
        let sweep = [
            "restore[filled=25%]",
            "4k-random-read-qd1[filled=25%]",
            "4k-random-write-qd1[filled=25%]",
            "restore[filled=100%]",
            "4k-random-read-qd1[filled=100%]",
            "4k-random-write-qd1[filled=100%]",
        ];
        let busy = "busy host: the rates are below the device's; rerun on an idle host: a submitting thread waited for a CPU 31 % of the phase (other processes or more threads than CPUs held them), and completions waited with it";
        let console = Console::new(true, false).in_folder(std::path::Path::new(
            "wkrun-results/anthology-2026-12-07T103816Z",
        ));
        assert_eq!(
            console.line_of(Said::Warning, &sweep, busy, 200),
            "warning: phases restore[filled=25%] and 5 more: busy host: the rates are below the device's; rerun on an idle host: a… (in full: wkrun warnings wkrun-results/anthology-2026-12-07T103816Z)"
        );
        assert_eq!(
            warning_line(&sweep, "x", 200),
            "warning: phases restore[filled=25%], 4k-random-read-qd1[filled=25%] and 4 more: x"
        );
    }

    #[test]
    fn warnings_are_grouped_by_text_in_order() {
        let (a, b) = (
            vec!["x".to_string(), "y".to_string()],
            vec!["y".to_string()],
        );
        let got = grouped([("f", a.as_slice()), ("r", b.as_slice()), ("e", &[][..])]);
        assert_eq!(
            got,
            [
                ("x".to_string(), vec!["f"]),
                ("y".to_string(), vec!["f", "r"])
            ]
        );
    }

    /// Issue 24 leftovers: warnings that differ only in their numbers are one kind, said once with the
    /// phases and the range of each number that differs; digits in names and paths are no number.
    #[test]
    fn warnings_of_one_kind_are_said_once_with_the_range_of_their_numbers() {
        let busy = |n: u32| {
            format!(
                "busy host: the rates are below the device's; rerun on an idle host: a submitting thread waited for a CPU {n} % of the phase (other processes or more threads than CPUs held them), and completions waited with it"
            )
        };
        let (a, b, c) = (vec![busy(48)], vec![busy(31)], vec![busy(40)]);
        assert_eq!(
            grouped([("w1", &a[..]), ("w2", &b[..]), ("w3", &c[..])]),
            [(busy(48).replace("48 %", "31–48 %"), vec!["w1", "w2", "w3"])]
        );
        let t =
            "qd 32, 1.5 s (0.49 of it) [0, 4194304) 7 %. w1 t0-a /dev/loop3 \"2\" 1s 1.2.3 end 9";
        let found: Vec<&str> = numbers(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(found, ["32", "1.5", "0.49", "0", "4194304", "7", "9"]);
        // After a phase "w1" and after a phase "w2": names, so two kinds.
        let after = |p: &str| vec![format!("no ramp: after phase \"{p}\" wrote 5 times")];
        let (x, y) = (after("w1"), after("w2"));
        assert_eq!(grouped([("a", &x[..]), ("b", &y[..])]).len(), 2);
        assert_eq!(
            merged(&["a 1 and 2", "a 1 and 10", "a 1 and 3"]),
            "a 1 and 2–10"
        );
    }

    /// A console says the first warning of a kind when it comes and holds the later phases' until the run
    /// ends, then names every phase that had it; a note is not a warning of the same text.
    #[test]
    fn repeats_are_held_for_the_end_of_the_run() {
        let mut r = Repeats::default();
        assert!(r.first(Said::Warning, &["a"], "busy host: x; y: waited 48 % of it"));
        assert!(!r.first(Said::Warning, &["b"], "busy host: x; y: waited 31 % of it"));
        assert!(r.first(Said::Note, &["b"], "busy host: x; y: waited 31 % of it"));
        assert!(r.first(Said::Warning, &["b"], "other"));
        assert_eq!(
            r.take(),
            [(
                Said::Warning,
                vec!["a".to_string(), "b".to_string()],
                "busy host: x; y: waited 31–48 % of it".to_string()
            )]
        );
        assert_eq!(r.take(), []);
        assert_eq!(
            Said::Note.line(&["b"], "writes into holes: as expected", 200),
            "note: phase b: writes into holes: as expected"
        );
    }

    /// Issue 24 leftovers: a text's action, up to its second `: `, is never cut: with two phase names of
    /// 40 bytes and a target's label (a width of 157), one name is listed (whole, trial 28 L3) and then the
    /// line is longer than the width by what the action needs.
    #[test]
    fn the_action_is_never_cut() {
        let names = [
            "a-phase-name-of-forty-bytes-exactly-here",
            "and-another-one-of-forty-bytes-exactly-x",
        ];
        // The longest action of wkrun's warnings (psync threads past the CPUs), 168 bytes.
        let action = "engine = \"psync\" with workers = 4 × queue_depth = 16 runs 64 threads on 2 CPUs: latencies include CPU waits; use io_uring or libaio, which keep the queue in one thread";
        assert_eq!(action.len(), 168);
        let text = format!(
            "{action}: they share the CPUs, so latencies include waits to be scheduled, not only the device's time"
        );
        for width in [200, 157, 100] {
            let line = warning_line(&names, &text, width);
            assert_eq!(
                line,
                format!(
                    "warning: phases a-phase-name-of-forty-bytes-exactly-here and 1 more: {action}… (in full: wkrun warnings)"
                ),
                "{width}"
            );
            assert_eq!(line.len(), 266);
            // A run's console names its folder even so (docs/results.md#warnings: 246 bytes with `w`).
            let console = Console::new(true, false).in_folder(std::path::Path::new("w"));
            let named = console.line_of(Said::Warning, &names, &text, width);
            assert_eq!(
                named,
                format!(
                    "warning: phases a-phase-name-of-forty-bytes-exactly-here and 1 more: {action}… (in full: wkrun warnings w)"
                ),
                "{width}"
            );
            assert_eq!(named.len(), 268);
        }
        // Where the action fits beside the names, the rest of the line takes what is left.
        assert_eq!(
            warning_line(&names[..1], &text, 280),
            format!(
                "warning: phase a-phase-name-of-forty-bytes-exactly-here: {action}: they share the CPUs, so… (in full: wkrun warnings)"
            )
        );
        // Without a second `: `, the cut keeps at least MIN_TEXT bytes as before.
        assert_eq!(action_len("a: b"), 0);
        assert_eq!(action_len(&format!("{}: b: c", "x".repeat(201))), 0);
    }
}
