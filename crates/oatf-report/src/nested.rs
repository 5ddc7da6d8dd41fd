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

/// Spaces for [`indent`] to write from.
const SPACES: &[u8; 64] = b"                                                                ";

/// `depth` levels of indentation, in as few writes as the depth allows (one up to 32 levels): a
/// campaign's SARIF run has hundreds of lines (D-302).
fn indent<W: ?Sized + Write>(writer: &mut W, depth: usize) -> std::io::Result<()> {
    let mut left = 2 * depth;
    while left > 0 {
        let now = left.min(SPACES.len());
        writer.write_all(&SPACES[..now])?;
        left -= now;
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
    around: Joining,
    items: &'a [S],
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
        Joined {
            around: Joining::new(head, items.len(), depth, tail),
            items,
        }
    }

    /// The pieces of the text, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        let items = self
            .items
            .iter()
            .enumerate()
            .flat_map(|(i, item)| [self.around.before(i), item.as_ref()]);
        self.around
            .start()
            .into_iter()
            .chain(items)
            .chain(self.around.end())
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

/// The text of a [`Joined`] around its items, for items that come one after the other and are
/// dropped once written, as a campaign writes its runs in run order as they finish (D-260): the
/// pieces of [`start`](Self::start), then each item after the piece [`before`](Self::before) its
/// index, then the pieces of [`end`](Self::end) are the text [`Joined`] gives of the same items.
/// The number of items is known at the start (an empty array is written `[]`).
///
/// ```
/// use oatf_report::campaign::{Joined, Joining};
///
/// let items = ["    1", "    2"];
/// let around = Joining::new("{\n  \"runs\": ", items.len(), 1, "\n}\n");
/// let mut text: String = around.start().concat();
/// for (i, item) in items.iter().enumerate() {
///     text.push_str(around.before(i));
///     text.push_str(item);
/// }
/// text.push_str(&around.end().concat());
/// assert_eq!(text, Joined::new("{\n  \"runs\": ", &items, 1, "\n}\n").to_text());
/// ```
#[derive(Clone, Debug)]
pub struct Joining {
    head: String,
    count: usize,
    /// The array's closing line: a line break, its indentation and `]`.
    close: String,
    tail: String,
}

impl Joining {
    /// The text `head`, then an array of `count` items at `depth` (each item written at `depth + 1`;
    /// `[]` when there are none), then `tail`.
    pub fn new(
        head: impl Into<String>,
        count: usize,
        depth: usize,
        tail: impl Into<String>,
    ) -> Self {
        let mut close = String::with_capacity(2 + 2 * depth);
        close.push('\n');
        for _ in 0..depth {
            close.push_str("  ");
        }
        close.push(']');
        Joining {
            head: head.into(),
            count,
            close,
            tail: tail.into(),
        }
    }

    /// The pieces before the first item: the head and the array's opening.
    pub fn start(&self) -> [&str; 2] {
        [
            self.head.as_str(),
            if self.count == 0 { "[]" } else { "[\n" },
        ]
    }

    /// The piece before the item at `index` (counted from 0): nothing before the first, `,` and a
    /// line break before the others.
    pub fn before(&self, index: usize) -> &'static str {
        if index == 0 { "" } else { ",\n" }
    }

    /// The pieces after the last item: the array's closing line and the tail.
    pub fn end(&self) -> [&str; 2] {
        [
            if self.count == 0 {
                ""
            } else {
                self.close.as_str()
            },
            self.tail.as_str(),
        ]
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
        // Deeper than one write of spaces: 40 levels.
        let mut deep = json!(1);
        for _ in 0..40 {
            deep = json!([deep]);
        }
        let whole = serde_json::to_string_pretty(&json!([deep])).unwrap_or_default();
        assert_eq!(whole, format!("[\n{}\n]", pretty_at_depth(&deep, 1)));
    }
}
