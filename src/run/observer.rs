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
    /// A line of the run's result summary: a phase's header (what it ran) and its totals, latency and
    /// steady state (stdout, as fio prints its results).
    fn result(&mut self, _line: &str) {}
    /// A warning of the phases named `phases` (one, or several with the same warning), in full; the
    /// results keep it in full, the console says it on one line ([`warning_line`]).
    fn warning(&mut self, _phases: &[&str], _text: &str) {}
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
    fn result(&mut self, line: &str) {
        self.0.result(line);
        self.1.result(line);
    }
    fn warning(&mut self, phases: &[&str], text: &str) {
        self.0.warning(phases, text);
        self.1.warning(phases, text);
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
}

impl Console {
    /// Log lines on stderr unless `quiet`; a live progress line when `live`.
    pub fn new(quiet: bool, live: bool) -> Console {
        Console {
            quiet,
            no_phase_log: false,
            bar: live.then(Bar::new),
            first: None,
        }
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
    fn result(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.print_result(line),
            None => progress::result_line(line),
        }
    }
    fn warning(&mut self, phases: &[&str], text: &str) {
        let line = warning_line(phases, text, WARNING_WIDTH);
        match &self.bar {
            // A terminal wraps a long line wherever its width falls, mid-word: wrapped here at words.
            Some(bar) => bar.println(&wrapped(&line, progress::term_width())),
            None => self.said(&line),
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
    fn results(&mut self, _results: &Results) -> Result<(), WriteError> {
        if let Some(line) = self.first.take() {
            self.result(&line);
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

/// The longest a warning's console line is, in bytes.
pub const WARNING_WIDTH: usize = 200;

/// Where a warning cut on the console is read in full.
const IN_FULL: &str = " (in full: results.json; docs/results.md#warnings)";

/// A warning on one line of at most `width` bytes (`width` at least 100): `warning: phase w: TEXT` or
/// `warning: phases f, r: TEXT`, its control characters escaped; a text that does not fit is cut at a word
/// and ends `… (in full: results.json; docs/results.md#warnings)`. The paragraphs some warnings are (90
/// words, once per phase) made a run's console unreadable; the results keep them whole. A warning's text
/// starts with what it is and its key (`direct = false: ...`), so the cut keeps at least [`MIN_TEXT`]
/// bytes of it: where the phases' names (and a target's label before the line) leave less, the names are
/// cut shorter, then the ending is ` (in full: results.json)`.
pub fn warning_line(phases: &[&str], text: &str, width: usize) -> String {
    let width = width.max(100);
    let text = crate::text::escaped(text);
    let mut line = String::new();
    for (most, each, in_full) in [
        (60, 40, IN_FULL),
        (24, 16, IN_FULL),
        (24, 16, IN_FULL_SHORT),
    ] {
        let head = format!("warning: {}: ", named(phases, most, each));
        if head.len() + text.len() <= width {
            return format!("{head}{text}");
        }
        let room = width.saturating_sub(head.len() + in_full.len() + '…'.len_utf8());
        line = format!("{head}{}…{in_full}", cut_at_word(&text, room));
        if room >= MIN_TEXT {
            break;
        }
    }
    line
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

/// The ending of a cut warning when the long one leaves its text too little room.
const IN_FULL_SHORT: &str = " (in full: results.json)";

/// `phase w`, `phases f, r`, or as many names as fit in about `most` bytes and how many more (`phases a, b
/// and 7 more`); a name over `each` bytes cut with `…`.
fn named(phases: &[&str], most: usize, each: usize) -> String {
    let mut out = match phases.len() {
        1 => "phase ".to_string(),
        _ => "phases ".to_string(),
    };
    for (i, p) in phases.iter().enumerate() {
        let p = match p.len() > each {
            true => format!("{}…", cut_at_word(p, each - 1)),
            false => p.to_string(),
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

/// Each distinct warning of `phases` (name, warnings) once, in order of first appearance, with the names
/// of the phases that have it.
pub fn grouped<'a>(
    phases: impl IntoIterator<Item = (&'a str, &'a [String])>,
) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, warnings) in phases {
        for w in warnings {
            match out.iter_mut().find(|(t, _)| *t == w.as_str()) {
                Some((_, names)) => names.push(name),
                None => out.push((w.as_str(), vec![name])),
            }
        }
    }
    out
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
            "warning: phases f, r: direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer… (in full: results.json; docs/results.md#warnings)"
        );
        assert_eq!(line.len(), 194);
        for width in 100..260 {
            assert!(
                warning_line(&["f", "r"], cache, width).len() <= width,
                "{width}"
            );
        }
        // Line breaks and escapes never reach the terminal.
        assert_eq!(
            warning_line(&["w"], "a\nb\u{1b}[2J", 200),
            "warning: phase w: a\\nb\\u{1b}[2J"
        );
    }

    /// The newcomer's trial: warnings were cut mid-word. A text whose last space within the room is early
    /// is cut there, not inside the long word after it; on a terminal the line wraps at words.
    #[test]
    fn a_warning_is_cut_and_wrapped_at_words() {
        let long = format!("target {} is not a regular file", "/x".repeat(100));
        // Room for the text: 200 − 18 (`warning: phase w: `) − 51 (the ending) − 3 (`…`) = 128 bytes: `target `
        // and 60 of the `/x`, ended after the next `/`.
        let cut = warning_line(&["w"], &long, 200);
        assert_eq!(
            cut,
            format!(
                "warning: phase w: target {}… (in full: results.json; docs/results.md#warnings)",
                "/x".repeat(60) + "/"
            )
        );
        assert!(cut.len() <= 200, "{}", cut.len());
        let spaced = format!("{} {}", "w".repeat(30), "v".repeat(300));
        assert_eq!(
            warning_line(&["w"], &spaced, 200),
            format!(
                "warning: phase w: {}… (in full: results.json; docs/results.md#warnings)",
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
            format!("warning: phase {}…: x", "l".repeat(39))
        );
    }

    #[test]
    fn warnings_are_grouped_by_text_in_order() {
        let (a, b) = (
            vec!["x".to_string(), "y".to_string()],
            vec!["y".to_string()],
        );
        let got = grouped([("f", a.as_slice()), ("r", b.as_slice()), ("e", &[][..])]);
        assert_eq!(got, [("x", vec!["f"]), ("y", vec!["f", "r"])]);
    }
}
