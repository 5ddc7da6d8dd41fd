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

impl PrettyAt {
    /// Opens an array or an object with `open`: one level deeper, nothing in it yet.
    fn begin<W: ?Sized + Write>(&mut self, writer: &mut W, open: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(open)
    }

    /// Closes an array or an object with `close`, on a line of its own when it holds something.
    fn end<W: ?Sized + Write>(&mut self, writer: &mut W, close: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            indent(writer, self.depth)?;
        }
        writer.write_all(close)
    }

    /// Starts an item of an array or a key of an object on a line of its own.
    fn item<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        indent(writer, self.depth)
    }
}

impl Formatter for PrettyAt {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.begin(writer, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.end(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.begin(writer, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.end(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// A pretty-printed JSON document with an array whose items were written apart, on many threads (such
/// as [`json_run`](crate::campaign::json_run) and [`sarif_run`](crate::campaign::sarif_run)), as the
/// pieces of its text: written one after the other (to the output, or into one string,
/// [`Joined::to_text`]) they are the text `serde_json::to_string_pretty` gives of the whole. Writing
/// the pieces spares a copy of the whole report (D-181).
///
/// ```
/// use oatf_report::campaign::Joined;
///
/// let items = ["    1", "    2"];
/// let joined = Joined::new("{\n  \"runs\": ", &items, 1, "\n}\n");
/// assert_eq!(joined.to_text(), "{\n  \"runs\": [\n    1,\n    2\n  ]\n}\n");
/// assert_eq!(joined.pieces().collect::<String>(), joined.to_text());
/// assert_eq!(Joined::<&str>::new("", &[], 1, "").to_text(), "[]");
/// ```
#[derive(Clone, Debug)]
pub struct Joined<'a, S> {
    head: String,
    items: &'a [S],
    /// The array's closing line: a line break, its indentation and `]`.
    close: String,
    tail: String,
}

impl<'a, S: AsRef<str>> Joined<'a, S> {
    /// The text `head`, then `items` as the array at `depth` (each item written at `depth + 1`: its
    /// lines indented, the first included; `[]` when there are none), then `tail`.
    pub fn new(
        head: impl Into<String>,
        items: &'a [S],
        depth: usize,
        tail: impl Into<String>,
    ) -> Self {
        let mut close = String::with_capacity(2 + 2 * depth);
        close.push('\n');
        for _ in 0..depth {
            close.push_str("  ");
        }
        close.push(']');
        Joined {
            head: head.into(),
            items,
            close,
            tail: tail.into(),
        }
    }

    /// The pieces of the text, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        let (open, close) = if self.items.is_empty() {
            ("[]", "")
        } else {
            ("[\n", self.close.as_str())
        };
        let items = self
            .items
            .iter()
            .enumerate()
            .flat_map(|(i, item)| [if i == 0 { "" } else { ",\n" }, item.as_ref()]);
        [self.head.as_str(), open]
            .into_iter()
            .chain(items)
            .chain([close, self.tail.as_str()])
    }

    /// The whole text.
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(self.pieces().map(str::len).sum());
        for piece in self.pieces() {
            text.push_str(piece);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Joined, pretty_at_depth};

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
        let items = [pretty_at_depth(&inner, 2)];
        let joined = Joined::new("{\n  \"x\": ", &items, 1, "\n}");
        assert_eq!(joined.to_text(), whole);
        let empty = serde_json::to_string_pretty(&json!({"x": []})).unwrap_or_default();
        assert_eq!(
            Joined::<String>::new("{\n  \"x\": ", &[], 1, "\n}").to_text(),
            empty
        );
        assert_eq!(
            pretty_at_depth(&inner, 0),
            serde_json::to_string_pretty(&inner).unwrap_or_default()
        );
    }
}
