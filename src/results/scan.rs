//! The shape of a JSON document, counted in one pass over its bytes without parsing it: how many values it
//! holds (containers, strings, object keys and other scalars), their string bytes, and how they fall into
//! the phases a results document is read by ([`super::stream`]: one phase's tree at a time, beside the rest
//! of the document). What reading it will take depends on that shape far more than on its size: 25 MB of
//! `["w","w",...]` is 5,000,000 values, each a tree node, a typed string and a schema check's error, where
//! 25 MB of latency figures is a tenth as many. The report module's room check turns the shape into the memory a
//! command needs before it reads the document.

use std::io::Read;

/// How deep a JSON document may nest objects and arrays, its own object included: serde_json's recursion
/// limit (128) less one. The parser reads no further than where a document passes it, and neither does
/// [`shape_of`].
pub const MAX_JSON_DEPTH: usize = 127;

/// What one pass over a JSON document counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// Bytes of the document.
    pub bytes: u64,
    /// Values in all: each object, array, string, object key, number, `true`, `false` and `null`.
    pub values: u64,
    /// Strings and object keys among them.
    pub strings: u64,
    /// Object keys among those.
    pub keys: u64,
    /// Bytes inside strings and keys (their escapes counted as written).
    pub string_bytes: u64,
    /// Values of the largest element of the top-level `phases` list (the largest tree held at once).
    pub phase_values: u64,
    /// String bytes of that element.
    pub phase_string_bytes: u64,
    /// Values outside the top-level `phases` list (held as one tree while the document is read).
    pub rest_values: u64,
    /// String bytes outside that list.
    pub rest_string_bytes: u64,
}

/// Where the pass is.
#[derive(Default)]
struct Pass {
    shape: Shape,
    /// Open containers (the top-level object is 1).
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The previous byte outside strings belonged to a number or literal.
    in_scalar: bool,
    /// The first bytes of the last string that began at depth 1 (a key of the top-level object, or a value).
    last_top_string: Vec<u8>,
    /// The key just read at depth 1 is `phases`.
    phases_key: bool,
    /// Inside the top-level `phases` list (its depth is 2).
    in_phases: bool,
    /// The element of `phases` being read: values and string bytes.
    phase: (u64, u64),
    /// A container opened past [`MAX_JSON_DEPTH`]: the parser stops there, and so does the count.
    too_deep: bool,
}

impl Pass {
    /// Counts one value (or key) beginning at the current depth.
    fn value(&mut self) {
        self.shape.values += 1;
        match self.in_phases && self.depth >= 2 {
            true => self.phase.0 += 1,
            false => self.shape.rest_values += 1,
        }
    }

    /// Counts bytes of a string.
    fn string_run(&mut self, run: &[u8]) {
        let n = run.len() as u64;
        self.shape.string_bytes += n;
        match self.in_phases && self.depth >= 2 {
            true => self.phase.1 += n,
            false => self.shape.rest_string_bytes += n,
        }
        if self.depth == 1 && self.last_top_string.len() < 8 {
            let room = 8 - self.last_top_string.len();
            self.last_top_string
                .extend_from_slice(&run[..run.len().min(room)]);
        }
    }

    /// The element of `phases` read so far is whole.
    fn phase_done(&mut self) {
        let (values, bytes) = std::mem::take(&mut self.phase);
        if values > self.shape.phase_values {
            self.shape.phase_values = values;
            self.shape.phase_string_bytes = bytes;
        }
    }

    /// Counts the bytes of `chunk`, a run of a string's plain bytes at a time.
    fn chunk(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() && !self.too_deep {
            if self.in_string && !self.escaped {
                // The string's plain bytes up to its end or an escape, counted at once.
                let start = i;
                while i < chunk.len() && chunk[i] != b'"' && chunk[i] != b'\\' {
                    i += 1;
                }
                self.string_run(&chunk[start..i]);
                if i == chunk.len() {
                    break;
                }
            }
            self.byte(chunk[i]);
            i += 1;
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => {
                    self.in_string = false;
                    return;
                }
                _ => {}
            }
            self.string_run(&[b]);
            return;
        }
        let scalar = !matches!(
            b,
            b'{' | b'}' | b'[' | b']' | b',' | b':' | b'"' | b' ' | b'\t' | b'\n' | b'\r'
        );
        if scalar && !self.in_scalar {
            self.value();
        }
        self.in_scalar = scalar;
        if !scalar {
            self.structure(b);
        }
    }

    /// A byte outside strings that is not part of a scalar.
    fn structure(&mut self, b: u8) {
        match b {
            b'"' => {
                self.value();
                self.shape.strings += 1;
                self.in_string = true;
                self.last_top_string.clear();
            }
            b'{' | b'[' if self.depth as usize >= MAX_JSON_DEPTH => self.too_deep = true,
            b'{' | b'[' => {
                if self.depth == 1 && self.phases_key && b == b'[' {
                    self.in_phases = true;
                }
                self.value();
                self.phases_key = false;
                self.depth = self.depth.saturating_add(1);
            }
            b'}' | b']' => {
                if self.in_phases && self.depth == 2 {
                    self.phase_done();
                    self.in_phases = false;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.in_phases && self.depth == 2 => self.phase_done(),
            b':' => {
                self.shape.keys += 1;
                if self.depth == 1 {
                    self.phases_key = self.last_top_string == b"phases";
                }
            }
            b',' if self.depth == 1 => self.phases_key = false,
            _ => {}
        }
    }
}

/// The shape of the JSON document `src` holds, read once in blocks of 64 KiB; text that is not JSON is
/// counted as far as it goes (the parser refuses it later).
///
/// # Errors
/// An error reading `src`.
pub fn shape_of(mut src: impl Read) -> std::io::Result<Shape> {
    let mut pass = Pass::default();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        pass.shape.bytes += n as u64;
        // Past the depth limit the bytes are still counted: the reader holds the whole text.
        pass.chunk(&buf[..n]);
    }
    if pass.in_phases {
        pass.phase_done();
    }
    Ok(pass.shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> Shape {
        shape_of(text.as_bytes()).unwrap()
    }

    #[test]
    fn values_are_counted_by_kind_and_place() {
        // Outside phases: the object, key "a", 1, key "phases" (its list counts as a rest value too), key
        // "b", "xy" and -1.5e3: 7 values, string bytes a + phases + b + xy = 10.
        let s = shape(
            r#"{"a": 1, "phases": [{"w": ["w", "w", true]}, [null, {}], 7], "b": ["xy", -1.5e3]}"#,
        );
        assert_eq!(s.rest_values, 1 + 2 + 2 + 1 + 1 + 2);
        assert_eq!(s.rest_string_bytes, 1 + 6 + 1 + 2);
        // Phase 0: {, "w" key, [, "w", "w", true = 6 values, 3 string bytes; phase 1: [, null, {} = 3;
        // phase 2: 7 = 1.
        assert_eq!((s.phase_values, s.phase_string_bytes), (6, 3));
        assert_eq!(s.values, s.rest_values + 6 + 3 + 1);
        assert_eq!(s.string_bytes, 10 + 3);
        assert_eq!((s.strings, s.keys), (4 + 3, 3 + 1));
        assert_eq!(s.bytes, 81);
    }

    #[test]
    fn escapes_and_brackets_inside_strings_are_string_bytes() {
        let s = shape(r#"{"phases": [["a\"],[", "\\"]], "x": "phases"}"#);
        // Phase 0: the list and its 2 strings; their bytes as written: a\"],[ (6) and \\ (2).
        assert_eq!((s.phase_values, s.phase_string_bytes), (3, 8));
        // A value "phases" is not the key.
        assert_eq!(s.rest_values, 1 + 1 + 1 + 1 + 1);
    }

    #[test]
    fn the_count_stops_where_the_parser_does_past_the_depth_limit() {
        // 127 containers (the object and 126 lists) are read; the 128th list is where the parser stops, so
        // the 100 zeros inside it and the key after it are never held.
        let deep = |n: usize| {
            let zeros = vec!["0"; 100].join(",");
            format!(
                r#"{{"x": {}{zeros}{}, "y": 1}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        let s = shape(&deep(126));
        assert_eq!((s.values, s.keys), (1 + 1 + 126 + 100 + 1 + 1, 2));
        let text = deep(127);
        let s = shape(&text);
        assert_eq!((s.values, s.keys), (1 + 1 + 126, 1));
        assert_eq!(s.bytes, text.len() as u64);
    }

    #[test]
    fn a_nested_phases_key_is_not_the_list_of_phases() {
        let s = shape(r#"{"spec": {"phases": [1, 2, 3]}}"#);
        assert_eq!((s.phase_values, s.rest_values), (0, 8));
    }
}
