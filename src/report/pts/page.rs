//! The PTS sections of `index.html`: a list of them (linked by anchor), then per section its heading, the
//! set-up table, the measurement window's tables and the plots.

use super::{PtsSection, PtsTable};
use crate::report::html::{esc, figures};
use std::fmt::Write;

/// The PTS part of the page: nothing without a section.
pub fn html(sections: &[PtsSection], png: bool) -> String {
    let mut o = String::new();
    if sections.is_empty() {
        return o;
    }
    o.push_str("<section id=\"pts\">\n<h2>SNIA PTS report</h2>\n<ul class=\"toc\">\n");
    for s in sections {
        let _ = writeln!(
            o,
            "<li><a href=\"#{}\">{}</a></li>",
            esc(&s.anchor),
            esc(&s.title)
        );
    }
    o.push_str("</ul>\n</section>\n");
    for s in sections {
        let _ = writeln!(
            o,
            "<section id=\"{}\" class=\"pts\">\n<h2>{}</h2>",
            esc(&s.anchor),
            esc(&s.title)
        );
        let _ = writeln!(
            o,
            "<h3>Test set-up</h3>\n<table id=\"{}-setup\"><tbody>",
            esc(&s.anchor)
        );
        for (k, v) in &s.setup {
            let _ = writeln!(
                o,
                "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>",
                esc(k),
                esc(v)
            );
        }
        o.push_str("</tbody></table>\n");
        for t in &s.tables {
            table(&mut o, t);
        }
        figures(&mut o, &s.figures, png);
        o.push_str("</section>\n");
    }
    o
}

/// One table, numbers right-aligned, the first column the row's name.
fn table(o: &mut String, t: &PtsTable) {
    let _ = write!(
        o,
        "<div class=\"scroll\"><table id=\"{}\"><caption>{}</caption><thead><tr>",
        esc(&t.id),
        esc(&t.caption)
    );
    for h in &t.head {
        let _ = write!(o, "<th>{}</th>", esc(h));
    }
    o.push_str("</tr></thead><tbody>\n");
    for r in &t.rows {
        o.push_str("<tr>");
        for (k, c) in r.iter().enumerate() {
            let class = if k == 0 { " class=\"l\"" } else { "" };
            let _ = write!(o, "<td{class}>{}</td>", esc(c));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table></div>\n");
}
