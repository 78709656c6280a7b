//! What every chart's SVG holds around its plot: the title on top (fitted to the width: on two lines, or
//! shortened with `…`, the whole title in the SVG's `<title>`, which a browser shows as a tooltip), the
//! plot plotters drew, and the legend below it: one row per drive (run), each row its drive's swatches
//! and words side by side (`fresh on t.img (30 intervals) ▪ steady window 12–40 s`), shortened with `…`
//! when a row would not fit, the whole row in its `<title>`. A row is a `<g class="legend-entry">` with
//! `data-run` (the drive's place on the command line) and `data-label` (its label), so a reader or a test
//! can find each drive's colour.
//!
//! Text is measured with the metrics of the one font wkrun carries ([`FONT_BYTES`], DejaVu Sans), the
//! font of the PNG files ([`crate::report::png`]) and of most Linux browsers; other sans-serif fonts are
//! narrower, so what fits here fits there.

use super::palette::hex;
use super::{SIZE, Swatch};
use plotters::style::RGBColor;

/// The font wkrun draws PNG text with and measures SVG text by: DejaVu Sans 2.37, unmodified (its licence:
/// `src/report/font/LICENSE`).
pub const FONT_BYTES: &[u8] = include_bytes!("../font/DejaVuSans.ttf");
/// The family name of [`FONT_BYTES`].
pub const FONT_NAME: &str = "DejaVu Sans";
/// The `font-family` of every text of a chart: the embedded font where it is installed, else the viewer's
/// sans-serif.
pub const FONT: &str = "DejaVu Sans, sans-serif";

/// The width of `s` drawn in [`FONT`] at `px` pixels: the glyphs' advances (no kerning); a character the
/// font lacks counts 0.6 em.
pub fn text_width(s: &str, px: f64) -> f64 {
    use skrifa::MetadataProvider;
    use skrifa::instance::{LocationRef, Size};
    let Ok(font) = skrifa::FontRef::new(FONT_BYTES) else {
        return s.chars().count() as f64 * 0.6 * px;
    };
    let map = font.charmap();
    let metrics = font.glyph_metrics(Size::new(px as f32), LocationRef::default());
    s.chars()
        .map(|c| {
            map.map(c)
                .and_then(|g| metrics.advance_width(g))
                .map_or(0.6 * px, f64::from)
        })
        .sum()
}

/// `s` cut to fit `width` px at `px` pixels, ending in `…` when cut; `s` itself when it fits.
pub fn shorten(s: &str, width: f64, px: f64) -> String {
    if text_width(s, px) <= width {
        return s.to_string();
    }
    let room = width - text_width("…", px);
    let mut out = String::new();
    let mut used = 0.0;
    for c in s.chars() {
        let w = text_width(c.encode_utf8(&mut [0; 4]), px);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    format!("{}…", out.trim_end())
}

/// Size of a title's text, px.
pub const TITLE_PX: f64 = 17.0;
/// Height of a title line, px.
pub const TITLE_LINE: u32 = 22;
/// Height of the title block with one line: the plot below it keeps `SIZE.1 −` this.
pub const TITLE_BLOCK: u32 = 34;
/// Width a title may take, px.
pub const TITLE_WIDTH: f64 = SIZE.0 as f64 - 24.0;

/// The lines a title is drawn on: one when it fits [`TITLE_WIDTH`]; else two, split after its ` — ` (what
/// the chart shows, then whose: spec, phase, drives), each shortened to fit ([`shorten`]).
pub fn title_lines(title: &str) -> Vec<String> {
    if text_width(title, TITLE_PX) <= TITLE_WIDTH {
        return vec![title.to_string()];
    }
    match title.split_once(" — ") {
        Some((what, whose)) => vec![
            shorten(what, TITLE_WIDTH, TITLE_PX),
            shorten(whose, TITLE_WIDTH, TITLE_PX),
        ],
        None => vec![shorten(title, TITLE_WIDTH, TITLE_PX)],
    }
}

/// The height of a title block of `lines` lines.
pub fn title_height(lines: usize) -> u32 {
    TITLE_BLOCK + TITLE_LINE * lines.saturating_sub(1) as u32
}

/// One swatch and its words in a legend row.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendItem {
    /// The swatch.
    pub swatch: Swatch,
    /// The words after it.
    pub text: String,
}

/// One legend row: a drive's items (its series, then its markers), or items no drive owns.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    /// The drive: its run index and label; `None` for a row of no drive.
    pub run: Option<(usize, String)>,
    /// The items, left to right.
    pub items: Vec<LegendItem>,
    /// A second line under the items, drawn whole where it fits the legend's width (a prediction's fitted
    /// drive, `fitted drive: sim:...`, which a row shared with its items would cut); `None` for one line.
    pub note: Option<String>,
}

impl LegendEntry {
    /// A row of one item, of no drive.
    pub fn new(text: impl Into<String>, swatch: Swatch) -> LegendEntry {
        LegendEntry {
            run: None,
            items: vec![LegendItem {
                swatch,
                text: text.into(),
            }],
            note: None,
        }
    }

    /// The row of drive `run`, labelled `label`, starting with one item.
    pub fn drive(run: usize, label: &str, text: impl Into<String>, swatch: Swatch) -> LegendEntry {
        LegendEntry {
            run: Some((run, label.to_string())),
            ..LegendEntry::new(text, swatch)
        }
    }

    /// The row with `note` as its second line ([`LegendEntry::note`]).
    pub fn with_note(mut self, note: Option<String>) -> LegendEntry {
        self.note = note;
        self
    }

    /// The row with one more item.
    pub fn and(mut self, text: impl Into<String>, swatch: Swatch) -> LegendEntry {
        self.push(text, swatch);
        self
    }

    /// Adds an item.
    pub fn push(&mut self, text: impl Into<String>, swatch: Swatch) {
        self.items.push(LegendItem {
            swatch,
            text: text.into(),
        });
    }

    /// The row's words, items (and its note) joined with ` · ` (its tooltip).
    pub fn text(&self) -> String {
        self.items
            .iter()
            .map(|i| i.text.as_str())
            .chain(self.note.as_deref())
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Its width drawn, px.
    fn width(&self) -> f64 {
        self.items
            .iter()
            .map(|i| ITEM_GAP + SWATCH_W + 5.0 + text_width(&i.text, LEGEND_PX))
            .sum::<f64>()
            - ITEM_GAP
    }

    /// The row without each item's details in parentheses at its end (the last parentheses, after the
    /// drive's label: a label of its own parentheses, `Drive 01 (op 5%)`, is kept whole).
    fn without_details(&self) -> LegendEntry {
        let mut e = self.clone();
        let label = self.run.as_ref().map_or("", |(_, l)| l.as_str());
        for item in &mut e.items {
            let from = if item.text.starts_with(label) {
                label.len()
            } else {
                0
            };
            if let Some(at) = item.text[from..]
                .rfind(" (")
                .filter(|_| item.text.ends_with(')'))
            {
                item.text.truncate(from + at);
            }
        }
        e
    }

    /// The row shortened to `width` px: first each item's details in parentheses at its end are left out
    /// (`fresh on t.img (30 intervals)` becomes `fresh on t.img`), then its longest words are cut with `…`
    /// until it fits.
    fn fitted(&self, width: f64) -> LegendEntry {
        let mut e = match self.width() > width {
            true => self.without_details(),
            false => self.clone(),
        };
        for _ in 0..64 {
            let over = e.width() - width;
            if over <= 0.0 {
                break;
            }
            let Some(longest) = (0..e.items.len()).max_by(|&a, &b| {
                text_width(&e.items[a].text, LEGEND_PX)
                    .total_cmp(&text_width(&e.items[b].text, LEGEND_PX))
            }) else {
                break;
            };
            let t = &e.items[longest].text;
            let w = text_width(t, LEGEND_PX);
            let cut = shorten(t, (w - over).max(w / 2.0).max(24.0), LEGEND_PX);
            if cut == *t {
                break;
            }
            e.items[longest].text = cut;
        }
        e
    }
}

/// Size of legend text, px.
const LEGEND_PX: f64 = 13.0;
/// Legend rows are this high, px.
pub const LEGEND_ROW: u32 = 19;
/// A swatch's width, px.
const SWATCH_W: f64 = 14.0;
/// Space between two items of a row, px.
const ITEM_GAP: f64 = 16.0;
/// Where legend rows start (under the plot's left edge), px.
const LEGEND_X: f64 = 82.0;
/// The width legend rows share, px.
const LEGEND_W: f64 = SIZE.0 as f64 - LEGEND_X - 12.0;

/// Rows past which a legend goes in two columns as soon as its rows fit half the width without their
/// details in parentheses (many drives: a shorter legend rather than every interval count).
pub const TWO_COLUMNS_PAST: usize = 4;

/// Columns and lines of the legend: two columns when every row fits half the width (past
/// [`TWO_COLUMNS_PAST`] rows, without its details) and none has a second line ([`LegendEntry::note`]),
/// else one, a row with a note taking two lines.
pub fn legend_grid(entries: &[LegendEntry]) -> (usize, usize) {
    if entries.iter().any(|e| e.note.is_some()) {
        let notes = entries.iter().filter(|e| e.note.is_some()).count();
        return (1, entries.len() + notes);
    }
    let half = LEGEND_W / 2.0 - 12.0;
    let fits = |e: &LegendEntry| match entries.len() > TWO_COLUMNS_PAST {
        true => e.without_details().width() <= half,
        false => e.width() <= half,
    };
    let cols = if entries.iter().all(fits) { 2 } else { 1 };
    (cols, entries.len().div_ceil(cols))
}

/// The height of the legend strip below the plot, px (0 without entries).
pub fn legend_height(rows: usize) -> u32 {
    if rows == 0 {
        0
    } else {
        8 + rows as u32 * LEGEND_ROW
    }
}

/// Escapes text for XML and HTML element content and double-quoted attributes; control characters (but
/// tab, line feed and carriage return) are left out, format characters (Unicode's Cf: bidirectional
/// overrides, invisible joiners) shown escaped as on the console. The report's one escaping, of the SVG charts' text
/// here and of the page's as [`crate::report::html::esc`].
pub fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            // Control characters (an ESC or a BEL in a phase name or target path) are left out.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => {}
            // Format characters shown as the console shows them (`\u{202e}`): a right-to-left override
            // in one run's path reversed the text after it, another run's name in a chart's title.
            c if crate::text::format_char(c) => o.extend(c.escape_default()),
            _ => o.push(c),
        }
    }
    o
}

const INK: &str = "#1f2328";

/// One swatch at `(x, y)` (its left edge and middle), as SVG: rectangles and lines, never a circle (a
/// reader counts a scatter's circles).
fn swatch_svg(s: Swatch, x: f64, y: f64) -> String {
    let rect = |fill: String, stroke: &str| {
        format!(
            "<rect x=\"{x}\" y=\"{}\" width=\"{SWATCH_W}\" height=\"10\" fill=\"{fill}\"{stroke}/>",
            y - 5.0
        )
    };
    let line = |c: RGBColor, w: f64, dash: &str| {
        format!(
            "<line x1=\"{x}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{}\" stroke-width=\"{w}\"{dash}/>",
            x + SWATCH_W,
            hex(c)
        )
    };
    match s {
        Swatch::Filled(c) => rect(hex(c), ""),
        Swatch::Hollow(c) => rect("none".into(), &format!(" stroke=\"{}\"", hex(c))),
        Swatch::Band(c) => rect(hex(c), " fill-opacity=\"0.25\""),
        Swatch::Outlined(c) => rect(
            hex(super::palette::lighter(c, 0.6)),
            &format!(" stroke=\"{}\"", hex(c)),
        ),
        Swatch::Line(c) => line(c, 2.5, ""),
        Swatch::Thin(c) => line(c, 1.0, ""),
        Swatch::Dashed(c) => line(
            c,
            2.5,
            &format!(" stroke-dasharray=\"{}\"", super::predicted::DASH),
        ),
    }
}

/// The legend as SVG, its rows starting at `top`: per row a `<g class="legend-entry">` (with `data-run` and
/// `data-label` for a drive's row) holding its whole text as `<title>`, then each item's swatch and words,
/// then its note on a line of its own (`<text class="legend-note">`, under the first item's words).
fn legend_svg(entries: &[LegendEntry], top: f64) -> String {
    let (cols, _) = legend_grid(entries);
    let col_w = LEGEND_W / cols as f64;
    let mut o = String::from("<g class=\"legend\">\n");
    // Lines above row i: its place in the grid, and a line per note before it (one column then).
    let mut notes_above = 0;
    for (i, e) in entries.iter().enumerate() {
        let x0 = LEGEND_X + (i % cols) as f64 * col_w;
        let line = (i / cols + notes_above) as f64;
        let y = top + 4.0 + line * f64::from(LEGEND_ROW) + f64::from(LEGEND_ROW) / 2.0;
        let drive = e.run.as_ref().map_or(String::new(), |(r, l)| {
            format!(" data-run=\"{r}\" data-label=\"{}\"", xml(l))
        });
        o.push_str(&format!(
            "<g class=\"legend-entry\"{drive}><title>{}</title>\n",
            xml(&e.text())
        ));
        let mut x = x0;
        for item in &e.fitted(col_w - 12.0).items {
            o.push_str(&swatch_svg(item.swatch, x, y));
            o.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" font-family=\"{FONT}\" font-size=\"{LEGEND_PX}\" fill=\"{INK}\">{}</text>\n",
                x + SWATCH_W + 5.0,
                y + 4.5,
                xml(&item.text)
            ));
            x += SWATCH_W + 5.0 + text_width(&item.text, LEGEND_PX) + ITEM_GAP;
        }
        if let Some(note) = &e.note {
            let x = x0 + SWATCH_W + 5.0;
            o.push_str(&format!(
                "<text class=\"legend-note\" x=\"{x}\" y=\"{}\" font-family=\"{FONT}\" font-size=\"{LEGEND_PX}\" fill=\"{INK}\">{}</text>\n",
                y + 4.5 + f64::from(LEGEND_ROW),
                xml(&shorten(note, LEGEND_X + LEGEND_W - x, LEGEND_PX))
            ));
            notes_above += 1;
        }
        o.push_str("</g>\n");
    }
    o.push_str("</g>\n");
    o
}

/// The whole chart: `plot` (an SVG document plotters drew, `SIZE.0` wide) under the title's `lines` (the
/// whole title in `<title>`), the legend under it.
pub fn compose(title: &str, plot: &str, plot_h: u32, legend: &[LegendEntry]) -> String {
    let lines = title_lines(title);
    let top = title_height(lines.len());
    let (_, rows) = legend_grid(legend);
    let h = top + plot_h + legend_height(rows);
    let w = SIZE.0;
    // plotters' drawing without its <svg> element.
    let body = plot
        .find("<svg")
        .and_then(|at| plot[at..].find('>').map(|end| at + end + 1))
        .map_or(plot, |start| &plot[start..]);
    let body = body.trim_end().strip_suffix("</svg>").unwrap_or(body);
    let mut o = format!(
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
<title>{}</title>\n<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n",
        xml(title)
    );
    for (i, l) in lines.iter().enumerate() {
        o.push_str(&format!(
            "<text class=\"title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{FONT}\" font-size=\"{TITLE_PX}\" fill=\"{INK}\">{}</text>\n",
            w / 2,
            24 + TITLE_LINE as usize * i,
            xml(l)
        ));
    }
    o.push_str(&format!(
        "<g transform=\"translate(0,{top})\">\n{body}</g>\n"
    ));
    o.push_str(&legend_svg(legend, f64::from(top + plot_h)));
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::chart::palette::colour;

    /// Markup escaped, control characters left out, format characters shown as the console shows them
    /// (attack 14: an override in a target path reversed another run's name in a chart title).
    #[test]
    fn xml_escapes_markup_drops_controls_and_shows_format_characters() {
        assert_eq!(
            xml("a<b>&\"'\u{1b}[2J\u{7}t\u{202e}x\u{200d}y\tz"),
            "a&lt;b&gt;&amp;&quot;&#39;[2Jt\\u{202e}x\\u{200d}y\tz"
        );
    }

    #[test]
    fn text_is_measured_with_the_embedded_font() {
        // DejaVu Sans: "M" is 1767 of 2048 units wide, "i" 569; at 17 px.
        assert!((text_width("M", 17.0) - 1767.0 / 2048.0 * 17.0).abs() < 1e-3);
        assert!((text_width("Mi", 2048.0) - (1767.0 + 569.0)).abs() < 1e-3);
        assert_eq!(text_width("", 13.0), 0.0);
        assert_eq!(shorten("short", 500.0, 13.0), "short");
        let cut = shorten(&"drive ".repeat(40), 200.0, 13.0);
        assert!(
            cut.ends_with('…') && text_width(&cut, 13.0) <= 200.0,
            "{cut}"
        );
    }

    #[test]
    fn a_title_too_wide_goes_on_two_lines_each_fitted() {
        assert_eq!(
            title_lines("IOPS — spec · p · t.img"),
            ["IOPS — spec · p · t.img"]
        );
        let targets: Vec<String> = (0..20)
            .map(|i| format!("sim:capacity=512MiB,op={i}%"))
            .collect();
        let long = format!(
            "Read IOPS per interval (log scale) — spec · p · {}",
            targets.join(" / ")
        );
        let lines = title_lines(&long);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], "Read IOPS per interval (log scale)");
        assert!(lines[1].starts_with("spec · p · sim:capacity=512MiB,op=0% / "));
        assert!(lines[1].ends_with('…'));
        assert!(text_width(&lines[1], TITLE_PX) <= TITLE_WIDTH);
        assert_eq!((title_height(1), title_height(2)), (34, 56));
    }

    #[test]
    fn a_rows_note_is_a_second_line_drawn_whole() {
        let c = colour(0);
        let drive =
            "sim:capacity=1GiB,op=6.835938%,dies=1,program_time=1582us,gc=deferred,gc_pace=0%";
        let measured = LegendEntry::drive(0, "m", "m on t (20 intervals)", Swatch::Filled(c));
        let predicted = LegendEntry::drive(
            1,
            "p",
            format!("predicted from {} (20 intervals)", "x/".repeat(100)),
            Swatch::Dashed(c),
        )
        .with_note(Some(format!("fitted drive: {drive}")));
        // One column, three lines: the note takes one of its own.
        let rows = [measured.clone(), predicted];
        assert_eq!(legend_grid(&rows), (1, 3));
        assert_eq!(legend_grid(&[measured.clone(), measured]), (2, 1));
        let svg = compose(
            "T — s",
            "<svg width=\"960\" height=\"100\">\n</svg>\n",
            100,
            &rows,
        );
        let doc = roxmltree::Document::parse(&svg).expect("XML");
        let y = |n: roxmltree::Node| n.attribute("y").unwrap().parse::<f64>().unwrap();
        let texts: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text") && n.attribute("class") != Some("title"))
            .collect();
        assert_eq!(texts.len(), 3);
        assert_eq!(texts[2].attribute("class"), Some("legend-note"));
        assert_eq!(
            texts[2].text(),
            Some(format!("fitted drive: {drive}").as_str())
        );
        // Rows 19 px apart, the note on the line after its row's: the row first cut, the note whole.
        assert_eq!(
            (y(texts[1]) - y(texts[0]), y(texts[2]) - y(texts[1])),
            (19.0, 19.0)
        );
        assert!(texts[1].text().unwrap().ends_with('…'));
        // The height: the title's 34 px, the plot's 100, and the legend's 8 + 3 lines of 19.
        assert_eq!(doc.root_element().attribute("height"), Some("199"));
    }

    #[test]
    fn legend_rows_are_one_per_drive_and_fit_the_width() {
        let c = colour(0);
        let short = LegendEntry::drive(
            0,
            "fresh",
            "fresh on t.img (30 intervals)",
            Swatch::Filled(c),
        )
        .and("steady window 12–40 s", Swatch::Band(c));
        assert_eq!(
            legend_grid(&[short.clone(), short.clone(), short.clone()]),
            (2, 2)
        );
        let long = LegendEntry::drive(1, "x", "y".repeat(200), Swatch::Filled(c))
            .and("z", Swatch::Line(c));
        assert_eq!(legend_grid(&[short.clone(), long.clone()]), (1, 2));
        // Many drives: two columns once their details are left out.
        let drive = |r: usize| {
            LegendEntry::drive(
                r,
                "d",
                format!("drive {r} on sim:capacity=512MiB,op=5%,dies=1 (15 intervals)"),
                Swatch::Filled(c),
            )
        };
        let four: Vec<LegendEntry> = (0..4).map(drive).collect();
        assert_eq!(legend_grid(&four), (1, 4));
        let twenty: Vec<LegendEntry> = (0..20).map(drive).collect();
        assert_eq!(legend_grid(&twenty), (2, 10));
        let fitted = long.fitted(LEGEND_W);
        assert!(fitted.width() <= LEGEND_W, "{}", fitted.width());
        // Details in parentheses go first.
        let detailed = LegendEntry::drive(
            0,
            "d",
            format!("{} (30 intervals)", "d".repeat(60)),
            Swatch::Filled(c),
        )
        .and("zz (a b c)", Swatch::Line(c));
        assert!(detailed.width() > 600.0);
        let f = detailed.fitted(600.0);
        assert_eq!(f.items[0].text, "d".repeat(60));
        assert_eq!(f.items[1].text, "zz");
        assert_eq!(fitted.items[1].text, "z");
        assert!(fitted.items[0].text.ends_with('…'));
        // A label's own parentheses are the drive's name, not details (twenty drives labelled
        // `Drive 01 (op 5%)`... once all showed `Drive 01`...).
        let named = LegendEntry::drive(
            0,
            "Drive 01 (op 5%)",
            "Drive 01 (op 5%) on sim:a (120 intervals)",
            Swatch::Filled(c),
        );
        assert_eq!(
            named.without_details().items[0].text,
            "Drive 01 (op 5%) on sim:a"
        );
        let alone =
            LegendEntry::drive(0, "Drive 01 (op 5%)", "Drive 01 (op 5%)", Swatch::Filled(c));
        assert_eq!(alone.without_details().items[0].text, "Drive 01 (op 5%)");
        let svg = compose(
            "T — s",
            "<svg width=\"960\" height=\"506\">\n<rect/>\n</svg>\n",
            506,
            &[short, long],
        );
        let doc = roxmltree::Document::parse(&svg).expect("XML");
        let rows: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("legend-entry"))
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].attribute("data-label"), Some("fresh"));
        assert_eq!(rows[1].attribute("data-run"), Some("1"));
        // The whole row in its <title>, though it is drawn shortened.
        let title = rows[1].first_element_child().expect("title");
        assert_eq!(
            title.text(),
            Some(format!("{} · z", "y".repeat(200)).as_str())
        );
        let swatch = rows[0]
            .descendants()
            .find(|n| n.has_tag_name("rect"))
            .expect("swatch");
        assert_eq!(swatch.attribute("fill"), Some("#0072b2"));
        // 34 (title) + 506 (plot) + 8 + 2 rows of 19.
        assert!(
            svg.starts_with("<svg width=\"960\" height=\"586\""),
            "{svg}"
        );
    }
}
