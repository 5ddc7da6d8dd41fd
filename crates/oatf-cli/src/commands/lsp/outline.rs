//! The outline of a document as it is being typed: block mapping entries and sequence items found
//! line by line from their indentation (D-117).
//!
//! Diagnostics come from the SDK's parser and validator; this outline serves only navigation (the
//! key path under the cursor, symbols, references), which must work on a half-typed document the
//! parser rejects. It reads the block style OATF documents are written in: `key: value`,
//! `- item`, `- key: value`, quoted keys, and skips the body of literal and folded scalars. A flow
//! collection or a multi-line scalar is a value it does not look into. One pass, no recursion: any
//! text gives an outline in time and memory linear in its length.

use std::ops::Range;

/// One segment of a node's path: a mapping key or a sequence position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// A mapping entry (`key:`) or a sequence item (`-`).
#[derive(Debug)]
pub(crate) struct Node {
    /// The key and its byte span; `None` for a sequence item.
    pub(crate) key: Option<(String, Range<usize>)>,
    /// The scalar written on the node's own line after `key:` or `-`, and its span (comment removed).
    pub(crate) value: Option<(String, Range<usize>)>,
    /// Column (bytes from the line start) of the key or the dash.
    pub(crate) col: usize,
    /// 0-based line.
    pub(crate) line: usize,
    /// Byte offset of the key or the dash.
    pub(crate) start: usize,
    /// Byte offset of the end of the node's last line.
    pub(crate) end: usize,
    pub(crate) parent: Option<usize>,
    pub(crate) children: Vec<usize>,
    /// For an item: its position in its sequence.
    pub(crate) index: usize,
}

/// The nodes of one text, in document order.
#[derive(Debug, Default)]
pub(crate) struct Outline {
    pub(crate) nodes: Vec<Node>,
    pub(crate) roots: Vec<usize>,
}

/// A line split into its content and byte offsets: `(start, end without the terminator)`.
fn lines(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start > bytes.len() || (start == bytes.len() && start != 0) {
            return None;
        }
        let rest = &bytes[start..];
        let (len, skip) = match rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            Some(i) if rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n') => (i, 2),
            Some(i) => (i, 1),
            None => (rest.len(), 1),
        };
        let line = (start, start + len);
        start += len + skip;
        Some(line)
    })
}

/// Where a plain or quoted key ends: the byte index of its `:` in `s`, when `s` starts with a key.
fn key_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    match bytes.first()? {
        q @ (b'"' | b'\'') => {
            let close = s[1..].find(*q as char)? + 1;
            (bytes.get(close + 1) == Some(&b':')
                && matches!(bytes.get(close + 2), None | Some(b' ' | b'\t')))
            .then_some(close + 1)
        }
        b'#' | b'{' | b'[' | b'|' | b'>' | b'&' | b'*' | b'!' | b'%' | b'@' | b'`' => None,
        _ => {
            let mut from = 0;
            while let Some(i) = s[from..].find(':') {
                let at = from + i;
                if matches!(bytes.get(at + 1), None | Some(b' ' | b'\t')) {
                    // A ` #` before the colon starts a comment: no key.
                    return (!s[..at].contains(" #")).then_some(at);
                }
                from = at + 1;
            }
            None
        }
    }
}

/// The scalar text of `s` (a value on a line), without a trailing comment and surrounding spaces,
/// and its byte range in `s`.
fn scalar(s: &str) -> Option<(String, Range<usize>)> {
    let lead = s.len() - s.trim_start().len();
    let body = &s[lead..];
    if body.is_empty() || body.starts_with('#') {
        return None;
    }
    let (text, len) = match body.as_bytes()[0] {
        q @ (b'"' | b'\'') => match body[1..].find(q as char) {
            Some(close) => (body[1..=close].to_owned(), close + 2),
            None => (body[1..].to_owned(), body.len()),
        },
        _ => {
            let end = body.find(" #").unwrap_or(body.len());
            let t = body[..end].trim_end();
            (t.to_owned(), t.len())
        }
    };
    Some((text, lead..lead + len))
}

/// Whether a value is the header of a literal or folded block scalar (`|`, `>-`, `|2`).
fn is_block_header(value: &str) -> bool {
    value.starts_with('|') || value.starts_with('>')
}

impl Outline {
    /// Reads the outline of `text`.
    pub(crate) fn new(text: &str) -> Self {
        let mut outline = Outline::default();
        let mut stack: Vec<usize> = Vec::new();
        // The column a block scalar's header was at: lines indented deeper are its body.
        let mut block_scalar: Option<usize> = None;
        // The end of the last line that held content (a popped node ends there).
        let mut last_end = 0;
        for (line_no, (start, end)) in lines(text).enumerate() {
            let line = &text[start..end];
            let content = line.trim_start_matches(' ');
            let indent = line.len() - content.len();
            if content.trim().is_empty() {
                continue;
            }
            if let Some(col) = block_scalar {
                if indent > col {
                    last_end = end;
                    continue;
                }
                block_scalar = None;
            }
            if content.starts_with('#') || content.starts_with("---") || content.starts_with("...")
            {
                continue;
            }
            let mut col = indent;
            let mut created_item = None;
            // Items: `- ` (possibly several on one line).
            loop {
                let rest = &line[col..];
                if rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t") {
                    let id =
                        outline.push(&mut stack, last_end, None, None, col, line_no, start + col);
                    created_item = Some(id);
                    let after = &rest[1..];
                    col += 1 + (after.len() - after.trim_start().len());
                    if col >= line.len() {
                        break;
                    }
                } else {
                    break;
                }
            }
            let rest = &line[col..];
            if let Some(colon) = key_end(rest) {
                let raw = &rest[..colon];
                let key = raw.trim_end().trim_matches(|c| c == '"' || c == '\'');
                let key_span = start + col..start + col + raw.trim_end().len();
                let value = scalar(&rest[colon + 1..]).map(|(t, r)| {
                    (
                        t,
                        start + col + colon + 1 + r.start..start + col + colon + 1 + r.end,
                    )
                });
                if value.as_ref().is_some_and(|(t, _)| is_block_header(t)) {
                    block_scalar = Some(col);
                }
                outline.push(
                    &mut stack,
                    last_end,
                    Some((key.to_owned(), key_span)),
                    value,
                    col,
                    line_no,
                    start + col,
                );
            } else if let Some(item) = created_item {
                let value =
                    scalar(rest).map(|(t, r)| (t, start + col + r.start..start + col + r.end));
                if value.as_ref().is_some_and(|(t, _)| is_block_header(t)) {
                    block_scalar = Some(outline.nodes[item].col);
                }
                outline.nodes[item].value = value;
            }
            last_end = end;
        }
        for id in stack {
            outline.nodes[id].end = last_end;
        }
        outline
    }

    /// Adds a node under the innermost open node that can hold it; the nodes it closes end at
    /// `last_end`.
    #[allow(clippy::too_many_arguments, reason = "one private builder step")]
    fn push(
        &mut self,
        stack: &mut Vec<usize>,
        last_end: usize,
        key: Option<(String, Range<usize>)>,
        value: Option<(String, Range<usize>)>,
        col: usize,
        line: usize,
        start: usize,
    ) -> usize {
        let is_item = key.is_none();
        while let Some(&top) = stack.last() {
            let t = &self.nodes[top];
            // An item can sit at its key's own column (`key:` then `- item` below it).
            let holds = t.col < col
                || (is_item
                    && t.col == col
                    && t.key.is_some()
                    && t.value.is_none()
                    && t.line < line);
            if holds {
                break;
            }
            self.nodes[top].end = last_end;
            stack.pop();
        }
        let parent = stack.last().copied();
        let id = self.nodes.len();
        let siblings = match parent {
            Some(p) => &mut self.nodes[p].children,
            None => &mut self.roots,
        };
        siblings.push(id);
        let index = siblings.len() - 1;
        self.nodes.push(Node {
            key,
            value,
            col,
            line,
            start,
            end: start,
            parent,
            children: Vec::new(),
            index,
        });
        stack.push(id);
        id
    }

    /// The path of node `id` from the root.
    pub(crate) fn path(&self, id: usize) -> Vec<Seg> {
        let mut path = Vec::new();
        let mut at = Some(id);
        while let Some(n) = at {
            let node = &self.nodes[n];
            path.push(match &node.key {
                Some((k, _)) => Seg::Key(k.clone()),
                None => Seg::Index(node.index),
            });
            at = node.parent;
        }
        path.reverse();
        path
    }

    /// The entry `key` among `children` (a mapping's entries).
    pub(crate) fn child(&self, children: &[usize], key: &str) -> Option<usize> {
        children
            .iter()
            .copied()
            .find(|c| self.nodes[*c].key.as_ref().is_some_and(|(k, _)| k == key))
    }

    /// The node at the end of `keys` from the roots, following mapping keys only.
    pub(crate) fn at_keys(&self, keys: &[&str]) -> Option<usize> {
        let mut children: &[usize] = &self.roots;
        let mut found = None;
        for key in keys {
            let id = self.child(children, key)?;
            found = Some(id);
            children = &self.nodes[id].children;
        }
        found
    }

    /// The inline value of entry `key` of the mapping whose entries are `children`.
    pub(crate) fn value_of(&self, children: &[usize], key: &str) -> Option<&str> {
        let id = self.child(children, key)?;
        self.nodes[id].value.as_ref().map(|(v, _)| v.as_str())
    }

    /// The items of the sequence under entry `id` (for `- key: x`, each item's entries are its children).
    pub(crate) fn items(&self, id: usize) -> impl Iterator<Item = usize> + '_ {
        self.nodes[id]
            .children
            .iter()
            .copied()
            .filter(|c| self.nodes[*c].key.is_none())
    }

    /// The innermost ancestor of `id` (itself included) that is an item of a sequence under `key`.
    pub(crate) fn enclosing_item(&self, id: usize, key: &str) -> Option<usize> {
        let mut at = Some(id);
        while let Some(n) = at {
            let node = &self.nodes[n];
            if node.key.is_none()
                && node
                    .parent
                    .and_then(|p| self.nodes[p].key.as_ref())
                    .is_some_and(|(k, _)| k == key)
            {
                return Some(n);
            }
            at = node.parent;
        }
        None
    }

    /// The last node that starts before byte `offset`.
    pub(crate) fn last_before(&self, offset: usize) -> Option<usize> {
        self.nodes
            .partition_point(|n| n.start < offset)
            .checked_sub(1)
    }

    /// The nodes that start on `line`.
    pub(crate) fn on_line(&self, line: usize) -> impl Iterator<Item = usize> + '_ {
        let first = self.nodes.partition_point(|n| n.line < line);
        (first..self.nodes.len()).take_while(move |i| self.nodes[*i].line == line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(outline: &Outline, id: usize) -> String {
        outline
            .path(id)
            .iter()
            .map(|s| match s {
                Seg::Key(k) => k.clone(),
                Seg::Index(i) => format!("[{i}]"),
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    #[track_caller]
    fn check(text: &str, expect: &[&str]) {
        let outline = Outline::new(text);
        let got: Vec<String> = (0..outline.nodes.len())
            .map(|i| keys(&outline, i))
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn mappings_sequences_and_indentless_sequences() {
        check(
            "oatf: \"0.1\"\nattack:\n  actors:\n  - name: a\n    mode: m\n  -   name: b\n  x: 1\n",
            &[
                "oatf",
                "attack",
                "attack.actors",
                "attack.actors.[0]",
                "attack.actors.[0].name",
                "attack.actors.[0].mode",
                "attack.actors.[1]",
                "attack.actors.[1].name",
                "attack.x",
            ],
        );
    }

    #[test]
    fn block_scalars_comments_and_odd_keys_are_not_entries() {
        check(
            "a: |\n  b: not a key\n  - nor an item\n# c: comment\n\"q k\": 'v: w' # c\nd: http://x\nurl: a:b\n",
            &["a", "q k", "d", "url"],
        );
        let outline = Outline::new("k: 'v: w' # c\n");
        assert_eq!(
            outline.nodes[0].value.as_ref().map(|v| v.0.as_str()),
            Some("v: w")
        );
    }

    #[test]
    fn crlf_and_values_with_spans() {
        let text = "a:\r\n  b: x # note\r\n";
        let outline = Outline::new(text);
        let (value, span) = outline.nodes[1].value.clone().unwrap_or_default();
        assert_eq!(value, "x");
        assert_eq!(&text[span], "x");
        assert_eq!(outline.nodes[0].end, text.len() - 2);
    }

    #[test]
    fn hostile_text_is_linear() {
        let deep: String = (0..100_000)
            .map(|i| format!("{}k:\n", " ".repeat(i % 200)))
            .collect();
        assert_eq!(Outline::new(&deep).nodes.len(), 100_000);
        let dashes = "- ".repeat(50_000);
        assert_eq!(Outline::new(&dashes).nodes.len(), 50_000);
        assert!(Outline::new(&"x".repeat(1 << 20)).nodes.is_empty());
    }
}
