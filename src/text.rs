//! Plain-text tables for terminals: widths in terminal cells (a wide character takes two, `µ` one), cells
//! padded to their column's width. `wkrun plan` and `wkrun compare` lay out their tables with these.

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
