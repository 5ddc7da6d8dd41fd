//! Pretty-printed JSON written as it stands nested in a larger document, so that a report of many
//! parts can have its parts written on many threads and joined (D-112, D-180).

use serde::Serialize;

/// `value` pretty-printed (two spaces a level) as it stands `depth` levels deep in a document that
/// `serde_json::to_string_pretty` writes: every line, the first included, indented by `depth` levels.
/// A JSON string holds no raw line break, so every line break of the text is one of the layout's.
pub(crate) fn pretty_at_depth<T: Serialize + ?Sized>(value: &T, depth: usize) -> String {
    let indent = "  ".repeat(depth);
    let mut out = Vec::with_capacity(2048);
    out.extend_from_slice(indent.as_bytes());
    let mut writer = Indented {
        out: &mut out,
        indent: indent.as_bytes(),
    };
    if serde_json::to_writer_pretty(&mut writer, value).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Pushes `items` (each written by [`pretty_at_depth`] at `depth + 1`) as the pretty-printed JSON
/// array at `depth`: `[]` when empty, else one item a line, the closing bracket at `depth`.
pub(crate) fn push_array<S: AsRef<str>>(out: &mut String, items: &[S], depth: usize) {
    if items.is_empty() {
        out.push_str("[]");
        return;
    }
    out.push_str("[\n");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(item.as_ref());
    }
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
    out.push(']');
}

/// A writer that indents every line after the first.
struct Indented<'a> {
    out: &'a mut Vec<u8>,
    indent: &'a [u8],
}

impl std::io::Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(at) = rest.iter().position(|b| *b == b'\n') {
            self.out.extend_from_slice(&rest[..=at]);
            self.out.extend_from_slice(self.indent);
            rest = &rest[at + 1..];
        }
        self.out.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{pretty_at_depth, push_array};

    #[test]
    fn a_nested_value_is_its_lines_indented() {
        let inner = json!({"a": [1, {"b": "line\nbreak"}], "c": {}, "d": []});
        let whole = serde_json::to_string_pretty(&json!({"x": [inner]})).unwrap_or_default();
        let nested = pretty_at_depth(&inner, 2);
        assert!(nested.starts_with("    {\n      \"a\": [\n"), "{nested}");
        assert_eq!(
            whole,
            format!("{{\n  \"x\": [\n{nested}\n  ]\n}}"),
            "the nested text is the text of the whole at its place"
        );
        let mut array = String::new();
        push_array(&mut array, &[pretty_at_depth(&inner, 2)], 1);
        assert_eq!(whole, format!("{{\n  \"x\": {array}\n}}"));
        let mut empty = String::new();
        push_array::<&str>(&mut empty, &[], 1);
        assert_eq!(empty, "[]");
        assert_eq!(
            pretty_at_depth(&inner, 0),
            serde_json::to_string_pretty(&inner).unwrap_or_default()
        );
    }
}
