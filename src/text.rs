//! Plain text for terminals: control characters shown escaped, so that a name or a path from a spec, the
//! command line or a results file never reaches a terminal as an escape sequence; and tables: widths in
//! terminal cells (a wide character takes two, `µ` one), cells padded to their column's width. `wkrun plan`
//! and `wkrun compare` lay out their tables with these.

use std::borrow::Cow;

/// `s` with every control character (a line break too) shown as Rust writes it in a string (`\n`,
/// `\u{1b}`), and every white space that is not ASCII (`\u{a0}`, a no-break space, reads as a space but is
/// another character): one line, nothing a terminal would act on or hide. For a name, a path or a value
/// within a line.
pub fn escaped(s: &str) -> Cow<'_, str> {
    escape_if(s, |_| true)
}

/// `s` with its control characters but line breaks and tabs shown escaped (`\u{1b}`), for text of several
/// lines.
pub fn printable(s: &str) -> Cow<'_, str> {
    escape_if(s, |c| c != '\n' && c != '\t')
}

/// The most characters of a value or source line an error message echoes ([`clip`], [`clip_quoted`],
/// [`clip_line`]): a 100,000-character `--label` or a 400 KB line of a spec was printed whole.
pub const ECHO: usize = 80;

/// `s` when it has at most `max` characters; else its first `max`, `…` and the length of the whole in bytes
/// (`abcdef… (8 bytes)`): every echo of a value in a message is cut so ([`echo`], [`clip_quoted`],
/// [`clip_words`]), a 1 MiB `--set` value or path among them. A text already cut so is left as it is.
pub fn clip(s: &str, max: usize) -> Cow<'_, str> {
    clip_of(s, max, s.len())
}

/// The one cut of [`clip`] and [`echo`]: `s` when it has at most `max` characters or is cut so already,
/// else its first `max`, `…` and `bytes`, the length of the value it shows (`s` itself, or the value before
/// it was escaped).
fn clip_of(s: &str, max: usize, bytes: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some(_) if is_clipped(s, max) => Cow::Borrowed(s),
        Some((at, _)) => Cow::Owned(format!("{}{}", &s[..at], cut_mark(bytes))),
    }
}

/// What ends a text cut short: `…` and the length in bytes of the whole it was cut from (` (8 bytes)`), for
/// a value ([`clip`], [`echo`]) and a source line ([`clip_line`]) alike.
fn cut_mark(bytes: usize) -> String {
    format!("… ({bytes} bytes)")
}

/// Whether `s` is a text [`clip`] cut to `max` characters: at most `max` and `… (N bytes)`.
fn is_clipped(s: &str, max: usize) -> bool {
    let Some(head) = s.strip_suffix(" bytes)") else {
        return false;
    };
    let Some((head, n)) = head.rsplit_once("… (") else {
        return false;
    };
    !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && head.chars().nth(max).is_none()
}

/// A value from the command line, a spec, a results file or the file system (a `--set` value, a label, a
/// path, a TOML value) as a message echoes it: control characters shown escaped ([`escaped`]) and cut to
/// [`ECHO`] characters by [`clip`], the length given being the value's own in bytes.
pub fn echo(s: &str) -> Cow<'_, str> {
    let e = escaped(s);
    match clip_of(&e, ECHO, s.len()) {
        Cow::Owned(cut) => Cow::Owned(cut),
        Cow::Borrowed(_) => e,
    }
}

/// The most characters of one word (a run without white space: a path, a value) the last pass over an
/// error message lets through ([`clip_words`]): Linux's PATH_MAX, 4096, so that any path a system call
/// takes is shown whole (a 334-byte library path was cut at 320 and lost its name).
pub const WORD: usize = 4096;

/// `s` with every word (a run of characters without white space) of more than `max` characters cut by
/// [`clip`]: the last pass over every error message wkrun prints, so that no echo of an input left uncut
/// where the message was made (a path of 100,000 characters an OS error named) reaches the terminal whole.
pub fn clip_words(s: &str, max: usize) -> Cow<'_, str> {
    let long = |w: &str| w.chars().nth(max).is_some() && !is_clipped(w, max);
    if !s.split(char::is_whitespace).any(long) {
        return Cow::Borrowed(s);
    }
    // A word's last `:`, `,` or `;` is the message's, not the value's: kept after the cut.
    let cut = |out: &mut String, w: &str| {
        let core = w.trim_end_matches([':', ',', ';']);
        out.push_str(&clip(core, max));
        out.push_str(&w[core.len()..]);
    };
    let mut out = String::with_capacity(s.len().min(1 << 16));
    let mut word = 0;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            cut(&mut out, &s[word..i]);
            out.push(c);
            word = i + c.len_utf8();
        }
    }
    cut(&mut out, &s[word..]);
    Cow::Owned(out)
}

/// `s` with every part between two `quote`s (`'value'`, `` `key` ``) cut to `max` characters by [`clip`].
pub fn clip_quoted(s: &str, quote: char, max: usize) -> Cow<'_, str> {
    let parts: Vec<&str> = s.split(quote).collect();
    // The odd parts lie between quotes (an unpaired last quote leaves its tail as it is).
    let long =
        |i: usize, p: &&str| i % 2 == 1 && i + 1 < parts.len() && p.chars().nth(max).is_some();
    if !parts.iter().enumerate().any(|(i, p)| long(i, p)) {
        return Cow::Borrowed(s);
    }
    let out: Vec<Cow<'_, str>> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if long(i, p) {
                clip(p, max)
            } else {
                Cow::Borrowed(*p)
            }
        })
        .collect();
    Cow::Owned(out.join(&quote.to_string()))
}

/// A source line of more than `max` characters cut to a window of `max` around `caret` (character columns):
/// `…` before when the window starts past the line's start, `… (N bytes)` after when it ends before its end
/// (the whole line's length, as [`clip`] ends a value);
/// the caret moved to match and kept within the window.
pub fn clip_line(
    line: &str,
    caret: std::ops::Range<usize>,
    max: usize,
) -> (String, std::ops::Range<usize>) {
    let n = line.chars().count();
    if n <= max {
        return (line.to_string(), caret);
    }
    let from = caret.start.saturating_sub(max / 2).min(n - max);
    let to = from + max;
    let mut out = String::new();
    let lead = usize::from(from > 0);
    if from > 0 {
        out.push('…');
    }
    out.extend(line.chars().skip(from).take(max));
    if to < n {
        out.push_str(&cut_mark(line.len()));
    }
    let start = caret.start.clamp(from, to) - from + lead;
    let end = caret.end.clamp(from, to) - from + lead;
    (out, start..end.max(start + 1))
}

/// The bytes `s` (a path's) as one word a POSIX shell reads back as those bytes, for a command line wkrun
/// suggests: as is when made of `A-Za-z0-9` and `_ - . / + , : = @ %` only; in single quotes (a `'` as
/// `'\''`) when it is UTF-8 without control or format characters; else in bash's `$'...'` quoting, an ASCII
/// control character or a byte that is not UTF-8 as `\xHH`, another control or format character as `\uHHHH`,
/// so that the line shown holds no raw control character and still pastes back to the same path (bash,
/// zsh, ksh; the escaped form `'x\ty'` named another path).
pub fn shell_word(s: &[u8]) -> String {
    let plain = |c: u8| c.is_ascii_alphanumeric() || b"_-./+,:=@%".contains(&c);
    if !s.is_empty() && s.iter().all(|&c| plain(c)) {
        return String::from_utf8_lossy(s).into_owned();
    }
    if let Ok(t) = std::str::from_utf8(s)
        && !t.chars().any(|c| hidden(c, |_| true))
    {
        return format!("'{}'", t.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\'' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c if hidden(c, |_| true) => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('\'');
    out
}

/// The longest run label (`--label`, or one wkrun derives from it and the target's name), in characters.
pub const MAX_LABEL: usize = 120;

/// Whether `c` is a control character, or a format or separator character that reorders or breaks a line
/// as shown (a bidirectional override such as U+202E, a zero-width space U+200B, U+2028): none may be in a
/// label.
pub fn hidden_char(c: char) -> bool {
    hidden(c, |_| true)
}

/// A label wkrun derives (`LABEL: TARGET` for each of several targets, a target's path or model) by the
/// rule of a given `--label`: its control and format characters shown escaped (`\n`, `\u{202e}`), trimmed,
/// and cut to [`MAX_LABEL`] characters (the last then `…`).
pub fn label(s: &str) -> String {
    let e = escaped(s);
    let t = e.trim();
    match t.chars().count() > MAX_LABEL {
        true => {
            let mut cut: String = t.chars().take(MAX_LABEL - 1).collect();
            cut.push('…');
            cut
        }
        false => t.to_string(),
    }
}

/// Whether `c` is a control character, a line or paragraph separator (U+2028/2029), or a format character
/// ([`format_char`]: bidirectional marks, overrides and isolates, zero-width ones, the soft hyphen, tags),
/// and `which` picks it.
fn hidden(c: char, which: impl Fn(char) -> bool) -> bool {
    (c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || format_char(c)) && which(c)
}

/// Whether `c` is a format character, Unicode's general category Cf (Unicode 15.1, every one): invisible,
/// or reordering what follows. A hand list of some (U+200B–200F, U+202A–202E, U+2066–2069, U+FEFF) let
/// U+061C ARABIC LETTER MARK, U+2060 WORD JOINER, U+00AD SOFT HYPHEN and the tag characters through
/// (attack 13 F5).
pub fn format_char(c: char) -> bool {
    matches!(c,
        '\u{00ad}'
        | '\u{0600}'..='\u{0605}'
        | '\u{061c}'
        | '\u{06dd}'
        | '\u{070f}'
        | '\u{0890}'..='\u{0891}'
        | '\u{08e2}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0001}'
        | '\u{e0020}'..='\u{e007f}')
}

/// Whether `c` is invisible or moves text when shown: a control character (tab, newline, U+0085 NEL, ...),
/// a format or separator character that reorders or breaks a line (bidirectional overrides and isolates,
/// zero-width characters, U+2028/2029, U+FEFF), or white space other than ASCII's (U+00A0, U+2007, U+3000),
/// which shows as a space and is not one. Shown escaped wherever text is printed ([`escaped`]), and refused
/// in a value with a unit (sizes, durations, percentages).
pub fn invisible(c: char) -> bool {
    hidden(c, |_| true) || (c.is_whitespace() && !c.is_ascii())
}

/// A terminal's width in cells from what it reported (`reported`, from TIOCGWINSZ; 0 means it does not know,
/// as some ptys report) and the environment's `COLUMNS` (`columns`): the reported width when it is not 0,
/// else `COLUMNS` when it is a positive number, else `fallback`.
pub fn terminal_width(reported: Option<u16>, columns: Option<&str>, fallback: usize) -> usize {
    reported
        .filter(|&c| c > 0)
        .map(usize::from)
        .or_else(|| columns?.trim().parse::<usize>().ok().filter(|&c| c > 0))
        .unwrap_or(fallback)
}

/// `s` with the control characters `which` picks shown escaped.
fn escape_if(s: &str, which: impl Fn(char) -> bool) -> Cow<'_, str> {
    let hit = |c: char| invisible(c) && which(c);
    if !s.chars().any(hit) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match hit(c) {
            true => out.extend(c.escape_default()),
            false => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Terminal cells of a text.
pub fn cells(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// Each column's width: as wide as its widest cell in `rows`, and at least `least[i]` where given.
pub fn widths<'a, R>(least: &[usize], rows: impl IntoIterator<Item = R>) -> Vec<usize>
where
    R: IntoIterator<Item = &'a String>,
{
    let mut w = least.to_vec();
    for row in rows {
        for (i, cell) in row.into_iter().enumerate() {
            if i == w.len() {
                w.push(0);
            }
            w[i] = w[i].max(cells(cell));
        }
    }
    w
}

/// `s` padded with spaces to `width` cells: on the left when `right` (numbers), else on the right.
pub fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(cells(s)));
    match right {
        true => format!("{fill}{s}"),
        false => format!("{s}{fill}"),
    }
}

/// `s` cut at spaces into lines of at most `width` cells (a word longer than that is a line of its own).
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        match lines.last_mut() {
            Some(l) if cells(l) + 1 + cells(word) <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format character (Cf) is hidden, shown escaped and refused where invisible characters are,
    /// the ones a hand list missed among them (attack 13 F5); letters and marks beside them are not.
    #[test]
    fn every_format_character_is_hidden() {
        for c in [
            '\u{061c}',
            '\u{2060}',
            '\u{00ad}',
            '\u{180e}',
            '\u{206e}',
            '\u{e0041}',
            '\u{202e}',
            '\u{feff}',
        ] {
            assert!(format_char(c) && hidden_char(c) && invisible(c), "{c:?}");
            assert_eq!(
                escaped(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", u32::from(c))
            );
        }
        for c in [
            'a',
            'é',
            '\u{0300}',
            '\u{05d0}',
            '\u{1f600}',
            '\u{2014}',
            '\u{3042}',
        ] {
            assert!(!format_char(c) && !hidden_char(c) && !invisible(c), "{c:?}");
        }
    }

    /// Found by the attack session: a 100,000-character `--label` and a 400 KB spec line were echoed whole.
    #[test]
    fn echoed_values_and_lines_are_cut() {
        assert_eq!(clip("abcdef", 6), "abcdef");
        assert_eq!(clip("abcdefgh", 6), "abcdef… (8 bytes)");
        assert_eq!(clip("µµµµ", 2), "µµ… (8 bytes)");
        // Cut once: a text already cut is left as it is.
        assert_eq!(clip("abcdef… (8 bytes)", 6), "abcdef… (8 bytes)");
        assert_eq!(clip("abcdefg… (8 bytes)", 6), "abcdef… (20 bytes)");
        // A value echoed: escaped, then cut, its own length given.
        let v = format!("\u{1b}{}", "a".repeat(ECHO));
        assert_eq!(
            echo(&v),
            format!("\\u{{1b}}{}… ({} bytes)", "a".repeat(ECHO - 6), ECHO + 1)
        );
        assert_eq!(echo("short\n"), "short\\n");
        // The last pass: long words cut, white space and short words kept.
        assert_eq!(
            clip_words("cannot stat /tmp/abcdefgh:\tNo such\nfile", 6),
            "cannot stat /tmp/a… (13 bytes):\tNo such\nfile"
        );
        assert_eq!(
            clip_words("a abcde… (8 bytes) b", 6),
            "a abcde… (8 bytes) b"
        );
        assert_eq!(
            clip_quoted(
                "invalid value 'abcdefghijklmnopq' for '--label <NAME>': x",
                '\'',
                15
            ),
            "invalid value 'abcdefghijklmno… (17 bytes)' for '--label <NAME>': x"
        );
        assert_eq!(
            clip_quoted("a `k` and an unpaired `abcdefgh", '`', 6),
            "a `k` and an unpaired `abcdefgh"
        );
        // A long line: a window of 10 around the caret, marked on both sides.
        let line = "0123456789abcdefghijklmnopqrstuvwxyz";
        assert_eq!(
            clip_line(line, 0..1, 10),
            ("0123456789… (36 bytes)".to_string(), 0..1)
        );
        assert_eq!(
            clip_line(line, 20..22, 10),
            ("…fghijklmno… (36 bytes)".to_string(), 6..8)
        );
        assert_eq!(
            clip_line(line, 35..36, 10),
            ("…qrstuvwxyz".to_string(), 10..11)
        );
        assert_eq!(
            clip_line(line, 4..30, 10),
            ("0123456789… (36 bytes)".to_string(), 4..10)
        );
        assert_eq!(clip_line("short", 1..2, 10), ("short".to_string(), 1..2));
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(escaped("plain µ 試験"), "plain µ 試験");
        assert_eq!(
            escaped("a\nb\t\u{1b}]0;x\u{7}"),
            "a\\nb\\t\\u{1b}]0;x\\u{7}"
        );
        assert_eq!(
            printable("a\nb\t\u{1b}[2J\u{9b}"),
            "a\nb\t\\u{1b}[2J\\u{9b}"
        );
        // White space that is not ASCII's reads as a space and is another character: shown escaped too.
        assert_eq!(
            escaped("8\u{a0} 4\u{2007}K\u{3000}"),
            "8\\u{a0} 4\\u{2007}K\\u{3000}"
        );
        assert_eq!(echo("queue\u{a0}depth=8"), "queue\\u{a0}depth=8");
    }

    #[test]
    fn shell_words_quote_only_what_needs_it() {
        assert_eq!(
            shell_word(b"wkrun-results/s-2026-12-04T191654Z"),
            "wkrun-results/s-2026-12-04T191654Z"
        );
        assert_eq!(shell_word(b"my runs/a"), "'my runs/a'");
        assert_eq!(shell_word(b"it's"), "'it'\\''s'");
        assert_eq!(shell_word(b"a[1]"), "'a[1]'");
        assert_eq!(shell_word("試験 µ".as_bytes()), "'試験 µ'");
        assert_eq!(shell_word(b""), "''");
        // Control characters, bytes that are not UTF-8 and a bidi override: ANSI-C quoting, no raw byte.
        assert_eq!(shell_word(b"x\ty"), "$'x\\x09y'");
        assert_eq!(
            shell_word(b"a\x1b]0;t\x07'\\b"),
            "$'a\\x1b]0;t\\x07\\'\\\\b'"
        );
        assert_eq!(shell_word(b"r\xffs"), "$'r\\xffs'");
        assert_eq!(shell_word("a\u{202e}b".as_bytes()), "$'a\\u202eb'");
    }

    #[test]
    fn a_terminal_of_0_columns_is_of_unknown_width() {
        assert_eq!(terminal_width(Some(132), Some("90"), 100), 132);
        assert_eq!(terminal_width(Some(0), Some("90"), 100), 90);
        assert_eq!(terminal_width(None, Some(" 90\n"), 100), 90);
        assert_eq!(terminal_width(Some(0), Some("0"), 100), 100);
        assert_eq!(terminal_width(Some(0), Some("wide"), 100), 100);
        assert_eq!(terminal_width(None, None, 80), 80);
    }

    #[test]
    fn widths_count_terminal_cells_and_pads_fill_them() {
        let rows = [
            vec!["試験".to_string(), "1".to_string()],
            vec!["ab".to_string(), "12345".to_string()],
        ];
        assert_eq!(widths(&[3, 2], &rows), [4, 5]);
        assert_eq!(widths(&[], &rows), [4, 5]);
        assert_eq!(widths(&[9], &rows), [9, 5]);
        assert_eq!(pad("試験", 6, false), "試験  ");
        assert_eq!(pad("7", 3, true), "  7");
        assert_eq!(pad("long", 2, true), "long");
        assert_eq!(
            wrap(
                "consistency sim:capacity=2GiB,op=7%,dies=1 2026-12-04T18:09:43.497Z",
                24
            ),
            [
                "consistency",
                "sim:capacity=2GiB,op=7%,dies=1",
                "2026-12-04T18:09:43.497Z"
            ]
        );
        assert_eq!(wrap("a b c", 3), ["a b", "c"]);
        assert_eq!(wrap("", 3), [""]);
    }
}
