//! Pretty-printed JSON written as it stands nested in a larger document, so that a report of many
//! parts can have its parts written on many threads and joined (D-112, D-180).

use std::io::Write;

use serde::Serialize;
use serde_json::ser::Formatter;

/// `value` pretty-printed (two spaces a level) as it stands `depth` levels deep in a document that
/// `serde_json::to_string_pretty` writes: every line, the first included, indented by `depth` levels.
pub(crate) fn pretty_at_depth<T: Serialize + ?Sized>(value: &T, depth: usize) -> String {
    let mut out = Vec::with_capacity(4096);
    let _ = indent(&mut out, depth);
    let formatter = PrettyAt {
        depth,
        has_value: false,
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    if value.serialize(&mut serializer).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// `depth` levels of indentation.
fn indent<W: ?Sized + Write>(writer: &mut W, depth: usize) -> std::io::Result<()> {
    for _ in 0..depth {
        writer.write_all(b"  ")?;
    }
    Ok(())
}

/// `serde_json`'s `PrettyFormatter` (two spaces a level) starting `depth` levels deep.
struct PrettyAt {
    depth: usize,
    has_value: bool,
}

impl Formatter for PrettyAt {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            indent(writer, self.depth)?;
        }
        writer.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        indent(writer, self.depth)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            indent(writer, self.depth)?;
        }
        writer.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        indent(writer, self.depth)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
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
