//! The JSON layout of `results.json`: serde_json's pretty printer, except that an array inside an array is
//! printed on one line (`[4095, 12]`), so that each pair of a latency histogram takes one line, not four.

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use std::io::{self, Write};

/// The pretty printer with arrays in arrays on one line.
struct Pretty {
    inner: PrettyFormatter<'static>,
    /// Per open container, from the outermost: whether it is an array, and whether it is printed inline.
    open: Vec<(bool, bool)>,
}

impl Pretty {
    fn inline(&self) -> bool {
        self.open.last().is_some_and(|&(_, inline)| inline)
    }
}

impl Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        let inline = self.open.last().is_some_and(|&(array, _)| array);
        self.open.push((true, inline));
        match inline {
            true => w.write_all(b"["),
            false => self.inner.begin_array(w),
        }
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        let inline = self.inline();
        self.open.pop();
        match inline {
            true => w.write_all(b"]"),
            false => self.inner.end_array(w),
        }
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match self.inline() {
            true if first => Ok(()),
            true => w.write_all(b", "),
            false => self.inner.begin_array_value(w, first),
        }
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match self.inline() {
            true => Ok(()),
            false => self.inner.end_array_value(w),
        }
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open.push((false, false));
        self.inner.begin_object(w)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open.pop();
        self.inner.end_object(w)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.inner.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.inner.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.inner.end_object_value(w)
    }
}

/// `value` as pretty JSON, arrays in arrays on one line.
///
/// # Errors
/// The serializer's error (a map with non-string keys).
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    let f = Pretty {
        inner: PrettyFormatter::new(),
        open: Vec::new(),
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
    value.serialize(&mut ser)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn arrays_in_arrays_go_on_one_line_and_the_rest_is_serde_jsons_pretty() {
        let v = serde_json::json!({"a": [[1, 2], [30, 4]], "b": {"c": [5, 6], "d": []}, "e": [[]]});
        let text = String::from_utf8(super::to_vec(&v).unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n  \"a\": [\n    [1, 2],\n    [30, 4]\n  ],\n  \"b\": {\n    \"c\": [\n      5,\n      6\n    ],\n    \"d\": []\n  },\n  \"e\": [\n    []\n  ]\n}"
        );
        let plain = serde_json::json!({"x": [1, {"y": 2}]});
        assert_eq!(
            super::to_vec(&plain).unwrap(),
            serde_json::to_vec_pretty(&plain).unwrap()
        );
    }
}
