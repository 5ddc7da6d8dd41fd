//! The layout rewrite behind `oatf fmt`: canonical indentation and key order, with the author's text
//! otherwise kept (decisions D-65, D-66).
//!
//! The source is read once more, after `oatf::parse` has accepted it (so it is one document within
//! the parser's size, depth and node limits, without anchors, aliases or tags), into a tree of
//! *entries* from the parser's events: a block mapping entry or a block sequence item, each with the
//! source lines it spans. Scalars and flow collections are leaves: their text is never re-written,
//! only moved. The output is built line by line:
//! - the entries of a block mapping are written in the order the serializer uses for that object
//!   (`oatf` first, then the specification's field order, `x-` extensions after the fields); the
//!   order comes from serializing the parsed `Document` (`serde_json` keeps the written order of
//!   payload objects, so a tool's `inputSchema` keeps the author's order);
//! - every entry moves with the comment lines above it, and with the comment after it on its line;
//!   comments at the top of the file that a blank line separates from the first key stay first (the
//!   file's header), and comments after the last entry of a nested block, indented as deep as its
//!   entries, stay at its end (a commented-out list item);
//! - block mappings and sequences are indented by two spaces under their key (`key:` then
//!   `  - item`), and a mapping in a sequence starts on the dash line (`- name: x`);
//! - the body of a literal or folded block goes two columns in from its key (unless its header has
//!   an explicit indentation indicator); the other lines of an entry (continuation lines of a
//!   multi-line scalar or flow collection) are shifted by the same amount as the entry; either way
//!   their relative indentation, and with it their value, is unchanged;
//! - runs of blank lines become one, blank lines at the start of a nested block go, trailing spaces
//!   go (outside scalars), line breaks become LF, and the file ends with one line break.
//!
//! What this cannot place (a comment between a `?` key and its value, a line the walk did not
//! expect) refuses the file with the line, rather than drop anything: every non-blank source line
//! must have been written, and the output must parse to a document equal to the input's.

mod tree;

use serde_json::Value;

pub(crate) use tree::Refusal;
use tree::{Entry, Lines, Node, indent, is_blank, is_comment, is_tail, read_tree, refuse, shift};

/// Writes the output lines and remembers which source lines were written.
struct Emitter<'a> {
    lines: &'a Lines<'a>,
    out: Vec<String>,
    used: Vec<bool>,
}

impl Emitter<'_> {
    fn line(&self, n: usize) -> &str {
        self.lines.line(n)
    }

    fn mark(&mut self, n: usize) {
        if let Some(u) = self.used.get_mut(n) {
            *u = true;
        }
    }

    /// The line of the header (`|`, `>-`, ...) of a block scalar whose text starts at `start`.
    fn block_header_line(&self, start: usize) -> usize {
        let (line, col) = self.lines.place(start);
        let text = self.line(line);
        if !text.get(..col).unwrap_or(text).trim().is_empty() {
            return line;
        }
        (0..line)
            .rev()
            .find(|n| !is_blank(self.line(*n)))
            .unwrap_or(line)
    }

    /// The shift that puts the body of the block scalar starting at `start` (ending on line `last`)
    /// at column `col + 2`: `None` when the header has an explicit indentation indicator (`|2`), or
    /// cannot be found, and the body then moves with its entry.
    fn block_body_shift(&self, start: usize, last: usize, col: usize) -> Option<isize> {
        let header = self.block_header_line(start);
        let text = self.line(header);
        let indicator = text.char_indices().find_map(|(i, c)| {
            if !matches!(c, '|' | '>') || !(i == 0 || text[..i].ends_with(' ')) {
                return None;
            }
            let rest = &text[i + 1..];
            let flags = rest.len()
                - rest
                    .trim_start_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit())
                    .len();
            is_tail(&rest[flags..]).then_some(&rest[..flags])
        })?;
        if indicator.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
        let body = (header + 1..=last)
            .map(|n| self.line(n))
            .find(|l| !is_blank(l))?;
        let indent = body.len() - body.trim_start_matches(' ').len();
        Some(isize::try_from(col + 2).ok()? - isize::try_from(indent).ok()?)
    }

    /// The last line of a leaf.
    fn leaf_last(&self, start: usize, end: usize, block_scalar: bool) -> usize {
        if block_scalar {
            // The parser ends a block scalar after the indentation of the line that follows it.
            let (line, col) = self.lines.place(end);
            let text = self.line(line);
            let before = text.get(..col).unwrap_or(text);
            let last = if before.trim().is_empty() && line > 0 {
                line - 1
            } else {
                line
            };
            last.max(self.block_header_line(start))
        } else {
            self.lines.place(end.saturating_sub(1).max(start)).0
        }
    }

    /// The last line of an entry: its head line for an empty value (which the parser places where
    /// the next token starts), else the last line of its value.
    fn last_line(&self, entry: &Entry) -> Result<usize, Refusal> {
        let head = self.head(entry)?.0;
        Ok(match &entry.value {
            Node::Leaf {
                start,
                end,
                block_scalar,
            } => {
                if start == end && !block_scalar {
                    head
                } else {
                    self.leaf_last(*start, *end, *block_scalar).max(head)
                }
            }
            Node::Block { entries, .. } => self.block_last(entries)?.max(head),
        })
    }

    /// The last line of a nested block: that of its last entry, or of the last comment line after
    /// it that is indented at least as deep as its entries (a commented-out item stays at the end
    /// of its list, whatever entry comes after the list).
    fn block_last(&self, entries: &[Entry]) -> Result<usize, Refusal> {
        let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
            return Ok(0);
        };
        let end = self.last_line(last)?;
        let col = self.head(first)?.1;
        let mut block_end = end;
        if col == 0 {
            return Ok(end);
        }
        for n in end + 1..self.lines.count() {
            let text = self.line(n);
            if is_blank(text) {
                continue;
            }
            let indent = text.len() - text.trim_start_matches(' ').len();
            if !is_comment(text) || indent < col {
                break;
            }
            block_end = n;
        }
        Ok(block_end)
    }

    /// Where an entry starts: the key of a mapping entry, the dash of a sequence item.
    fn head(&self, entry: &Entry) -> Result<(usize, usize), Refusal> {
        if let Some((_, start, _)) = &entry.key {
            return Ok(self.lines.place(*start));
        }
        let (line, col) = match &entry.value {
            Node::Leaf {
                start,
                block_scalar: true,
                ..
            } => {
                // The text starts on the line after its header (`- |`, or `|` below a lone dash).
                let header = self.block_header_line(*start);
                let text = self.line(header);
                let first = text.len() - text.trim_start().len();
                if text.trim_start().starts_with('-') {
                    return Ok((header, first));
                }
                (header, first)
            }
            Node::Leaf { start, .. } => self.lines.place(*start),
            Node::Block { entries, .. } => match entries.first() {
                Some(first) => self.head(first)?,
                None => return refuse(0, "an empty block collection"),
            },
        };
        let text = self.line(line);
        let before = text.get(..col).unwrap_or(text).trim_end();
        if let Some(rest) = before.strip_suffix('-')
            && (rest.is_empty() || rest.ends_with(' '))
        {
            return Ok((line, before.len() - 1));
        }
        if !before.trim().is_empty() {
            return refuse(line, "a sequence item whose dash could not be found");
        }
        for n in (0..line).rev() {
            let text = self.line(n);
            if is_blank(text) || is_comment(text) {
                continue;
            }
            let trimmed = text.trim_start();
            if let Some(rest) = trimmed.strip_prefix('-')
                && is_tail(rest)
            {
                return Ok((n, text.len() - trimmed.len()));
            }
            break;
        }
        refuse(line, "a sequence item whose dash could not be found")
    }

    /// Writes the comment and blank lines `from..to` at column `col`. Blank lines are collapsed to
    /// one, or dropped with `drop_blank`; at the document's edges, `---`, `...` and directives are
    /// kept as written.
    fn trivia(
        &mut self,
        from: usize,
        to: usize,
        col: usize,
        drop_blank: bool,
        edge: bool,
    ) -> Result<(), Refusal> {
        for n in from..to {
            self.mark(n);
            let text = self.line(n);
            let trimmed = text.trim();
            if trimmed.is_empty() {
                if !drop_blank && self.out.last().is_some_and(|l| !l.is_empty()) {
                    self.out.push(String::new());
                }
            } else if trimmed.starts_with('#') {
                self.out.push(format!("{}{trimmed}", indent(col)));
            } else if edge
                && (trimmed.starts_with("---")
                    || trimmed.starts_with("...")
                    || trimmed.starts_with('%'))
            {
                self.out.push(text.trim_end().to_owned());
            } else {
                return refuse(
                    n,
                    "text the formatter cannot place (expected a comment or a blank line)",
                );
            }
        }
        Ok(())
    }

    /// Writes a block collection whose entries go at column `col`. The first entry written follows
    /// `prefix` on its line when one is given (a mapping in a sequence: `- name: x`); `after` is
    /// the line after which the comments of the first entry start.
    fn block(
        &mut self,
        map: bool,
        entries: &[Entry],
        col: usize,
        from: usize,
        prefix: Option<String>,
        order: Option<&Value>,
    ) -> Result<(), Refusal> {
        let mut placed = Vec::with_capacity(entries.len());
        let mut next = from;
        for entry in entries {
            let head = self.head(entry)?;
            let from = next;
            if head.0 < from {
                return refuse(
                    head.0,
                    "an entry that shares its line with the one before it",
                );
            }
            next = self.last_line(entry)? + 1;
            placed.push((head, from));
        }
        // At the top of the document, the comments that a blank line separates from the first key
        // are the file's header, and a `---` marker or a directive ends it: they stay first
        // whatever key comes first.
        if col == 0
            && let Some((head, from)) = placed.first_mut()
            && let Some(blank) = (*from..head.0).rev().find(|n| {
                let text = self.lines.line(*n);
                is_blank(text) || text.starts_with("---") || text.starts_with('%')
            })
        {
            self.trivia(*from, blank + 1, 0, false, true)?;
            *from = blank + 1;
        }
        let mut indices: Vec<usize> = (0..entries.len()).collect();
        if map && let Some(Value::Object(object)) = order {
            let rank: std::collections::HashMap<&str, usize> = object
                .keys()
                .enumerate()
                .map(|(i, k)| (k.as_str(), i))
                .collect();
            indices.sort_by_key(|i| {
                entries[*i]
                    .key
                    .as_ref()
                    .and_then(|(k, _, _)| rank.get(k.as_str()).copied())
                    .unwrap_or(usize::MAX)
            });
        }
        // The first key of a mapping in a sequence shares the line of its dash (checked by the caller).
        let after_dash = prefix.is_some() && placed.first().is_some_and(|(head, _)| head.0 == from);
        let mut prefix = prefix;
        for (written, &i) in indices.iter().enumerate() {
            let entry = &entries[i];
            let (head, from) = placed[i];
            let first = written == 0;
            // The comments above the first entry of an inline mapping go above its dash.
            let trivia_col = if first && prefix.is_some() {
                col - 2
            } else {
                col
            };
            self.trivia(from, head.0, trivia_col, first, col == 0)?;
            let child_order = match (&entry.key, order) {
                (Some((key, _, _)), Some(value)) => value.get(key.as_str()),
                (None, Some(value)) => value.get(i),
                _ => None,
            };
            self.entry(
                entry,
                head,
                col,
                prefix.take(),
                after_dash && i == 0,
                child_order,
            )?;
        }
        // The comments after the last entry that belong to this block stay at its end.
        if col > 0
            && let Some(last) = entries.last()
        {
            let tail = self.last_line(last)? + 1;
            let end = self.block_last(entries)?;
            self.trivia(tail, end + 1, col, false, false)?;
        }
        Ok(())
    }

    /// Writes one entry whose head is at `head` in the source and goes to column `col`.
    fn entry(
        &mut self,
        entry: &Entry,
        (line, head_col): (usize, usize),
        col: usize,
        prefix: Option<String>,
        after_dash: bool,
        order: Option<&Value>,
    ) -> Result<(), Refusal> {
        let text = self.line(line).to_owned();
        if !after_dash && !text.get(..head_col).unwrap_or("").trim().is_empty() {
            return refuse(
                line,
                "text before a key or dash that the formatter cannot place",
            );
        }
        let lead = prefix.unwrap_or_else(|| indent(col));
        let own = text.get(head_col..).unwrap_or("");
        self.mark(line);
        let delta = isize::try_from(col).unwrap_or(0) - isize::try_from(head_col).unwrap_or(0);
        match &entry.value {
            Node::Leaf {
                start,
                end,
                block_scalar,
            } => {
                if start == end && !block_scalar {
                    // An empty value (`trigger:`, `-`): the parser places it where the next token
                    // starts, maybe lines below; it is the rest of the head line.
                    let rest = match &entry.key {
                        Some((_, _, key_end)) => {
                            let (key_line, key_col) = self.lines.place(*key_end);
                            let rest = self.line(key_line).get(key_col..).unwrap_or("");
                            (key_line == line)
                                .then(|| rest.trim_start().strip_prefix(':'))
                                .flatten()
                        }
                        None => own.get(1..),
                    };
                    if !rest.is_some_and(is_tail) {
                        return refuse(line, "an empty value the formatter cannot place");
                    }
                    self.out.push(format!("{lead}{}", own.trim_end()));
                    return Ok(());
                }
                let last = self.leaf_last(*start, *end, *block_scalar).max(line);
                if !block_scalar {
                    let (end_line, end_col) = self.lines.place(*end);
                    let end_text = self.line(end_line);
                    if end_line == last && !is_tail(end_text.get(end_col..).unwrap_or("")) {
                        return refuse(
                            end_line,
                            "text after a value that the formatter cannot place",
                        );
                    }
                }
                self.out.push(format!("{lead}{}", own.trim_end()));
                // The body of a block scalar whose indentation the parser detects goes two columns
                // in from its entry; any other continuation line moves with its entry.
                let delta = if *block_scalar {
                    self.block_body_shift(*start, last, col).unwrap_or(delta)
                } else {
                    delta
                };
                for n in line + 1..=last {
                    self.mark(n);
                    let moved = shift(self.line(n), delta);
                    self.out.push(if *block_scalar || !moved.trim().is_empty() {
                        moved
                    } else {
                        String::new()
                    });
                }
                Ok(())
            }
            Node::Block { map, entries } => {
                let child_head = match entries.first() {
                    Some(first) => self.head(first)?,
                    None => return refuse(line, "an empty block collection"),
                };
                if let Some((_, _, key_end)) = &entry.key {
                    let (key_line, key_col) = self.lines.place(*key_end);
                    let rest = self
                        .line(key_line)
                        .get(key_col..)
                        .unwrap_or("")
                        .trim_start();
                    let Some(after_colon) = rest.strip_prefix(':') else {
                        return refuse(key_line, "a key the formatter cannot place");
                    };
                    if key_line != line || !is_tail(after_colon) {
                        return refuse(key_line, "a key the formatter cannot place");
                    }
                    self.out.push(format!("{lead}{}", own.trim_end()));
                    return self.block(*map, entries, col + 2, line + 1, None, order);
                }
                // A sequence item holding a block collection.
                if child_head.0 == line {
                    let dash = text.get(head_col..child_head.1).unwrap_or("");
                    if dash.trim_end() != "-" {
                        return refuse(line, "a sequence item the formatter cannot place");
                    }
                    return self.block(
                        *map,
                        entries,
                        col + 2,
                        line,
                        Some(format!("{lead}- ")),
                        order,
                    );
                }
                let rest = own.get(1..).unwrap_or("");
                if !is_tail(rest) {
                    return refuse(line, "a sequence item the formatter cannot place");
                }
                if rest.trim().is_empty() {
                    return self.block(
                        *map,
                        entries,
                        col + 2,
                        line + 1,
                        Some(format!("{lead}- ")),
                        order,
                    );
                }
                self.out.push(format!("{lead}- {}", rest.trim()));
                self.block(*map, entries, col + 2, line + 1, None, order)
            }
        }
    }
}

/// Formats `source`, the text of `document` (as `oatf::parse` read it): canonical indentation and
/// key order, everything the author wrote kept.
pub(crate) fn format(source: &str, document: &oatf::Document) -> Result<String, Refusal> {
    let (bom, body) = match source.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", source),
    };
    let lines = Lines::new(body);
    let Some(Node::Block { map: true, entries }) = read_tree(body, &lines)? else {
        // A flow mapping at the root: nothing to lay out.
        return Ok(source.to_owned());
    };
    let order = serde_json::to_value(document).ok();
    let mut emitter = Emitter {
        lines: &lines,
        out: Vec::new(),
        used: vec![false; lines.count()],
    };
    emitter.block(true, &entries, 0, 0, None, order.as_ref())?;
    let last = match entries.last() {
        Some(entry) => emitter.last_line(entry)?,
        None => 0,
    };
    emitter.trivia(last + 1, lines.count(), 0, false, true)?;
    while emitter.out.last().is_some_and(String::is_empty) {
        emitter.out.pop();
    }
    if let Some(n) = (0..lines.count()).find(|n| !emitter.used[*n] && !is_blank(lines.line(*n))) {
        return refuse(
            n,
            "the formatter would drop this line; the file is left unchanged",
        );
    }
    let mut text = String::with_capacity(source.len() + 64);
    text.push_str(bom);
    for line in &emitter.out {
        text.push_str(line);
        text.push('\n');
    }
    if text == source {
        // Already formatted: the same text is the same document.
        return Ok(text);
    }
    match oatf::parse(&text) {
        Ok(after) if after == *document => Ok(text),
        _ => refuse(
            0,
            "the formatted text would not read back as the same document; the file is left \
             unchanged (please report this)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expected: &str) {
        let document = oatf::parse(input).unwrap_or_else(|e| panic!("{e}"));
        let formatted = format(input, &document).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(formatted, expected, "formatted:\n{formatted}");
        // Idempotent, and the same document.
        let again = oatf::parse(&formatted).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again, document);
        assert_eq!(format(&formatted, &again).as_deref(), Ok(expected));
    }

    #[track_caller]
    fn check_refused(input: &str, line: usize, message: &str) {
        let document = oatf::parse(input).unwrap_or_else(|e| panic!("{e}"));
        match format(input, &document) {
            Err(refusal) => {
                assert_eq!(refusal.line, line, "{refusal}");
                assert!(refusal.message.contains(message), "{refusal}");
            }
            Ok(text) => panic!("formatted:\n{text}"),
        }
    }

    #[test]
    fn canonical_key_order_moves_comments_with_their_entries() {
        check(
            "# header\n\n# about attack\nattack:  # trailing\n  # the version\n  version: 2\n  name: x   \noatf: \"0.1\"  # spec\n# end\n",
            "# header\n\noatf: \"0.1\"  # spec\n# about attack\nattack:  # trailing\n  name: x\n  # the version\n  version: 2\n# end\n",
        );
    }

    #[test]
    fn indentation_is_two_spaces_and_sequences_are_indented() {
        check(
            "oatf: \"0.1\"\nattack:\n    execution:\n        mode: mcp_server\n        state:\n            tools:\n            -   name: calc\n                description: d\n            -\n                name: other\n",
            "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state:\n      tools:\n        - name: calc\n          description: d\n        - name: other\n",
        );
    }

    #[test]
    fn payload_objects_keep_the_authors_order() {
        check(
            "oatf: \"0.1\"\nattack:\n  execution:\n    state:\n      zeta: 1\n      alpha: {b: 1, a: 2}\n    mode: mcp_server\n",
            "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state:\n      zeta: 1\n      alpha: {b: 1, a: 2}\n",
        );
    }

    #[test]
    fn scalars_and_blocks_keep_their_style_and_value() {
        // A literal block keeps its text and chomping; its body goes two columns in from its key.
        // A multi-line plain scalar and a multi-line flow collection move with their key.
        check(
            "oatf: \"0.1\"\nattack:\n    description: |+\n          line one\n\n            indented\n\n    name: 'single'\n    version: 1\n    execution:\n        mode: mcp_server\n        state: {a: [1,\n           2]}\n    x-note: plain\n        continued\n",
            "oatf: \"0.1\"\nattack:\n  name: 'single'\n  version: 1\n  description: |+\n    line one\n\n      indented\n\n  execution:\n    mode: mcp_server\n    state: {a: [1,\n       2]}\n  x-note: plain\n      continued\n",
        );
    }

    #[test]
    fn blank_lines_collapse_and_the_file_ends_with_one_line_break() {
        check(
            "\n\noatf: \"0.1\"\n\n\n\nattack:\n\n  name: x\n\n\n  version: 1\n\n\n",
            "oatf: \"0.1\"\n\nattack:\n  name: x\n\n  version: 1\n",
        );
    }

    #[test]
    fn comments_after_the_last_entry_of_a_list_stay_at_its_end() {
        check(
            "oatf: \"0.1\"\nattack:\n  correlation:\n    logic: any\n  indicators:\n    - surface: tools/call\n      pattern: {contains: x}\n      # note on the pattern\n    # - surface: tools/list\n\n  # about the name\n  name: x\n",
            "oatf: \"0.1\"\nattack:\n  # about the name\n  name: x\n  indicators:\n    - surface: tools/call\n      pattern: {contains: x}\n      # note on the pattern\n    # - surface: tools/list\n  correlation:\n    logic: any\n",
        );
    }

    #[test]
    fn a_comment_on_a_dash_line_stays_there() {
        check(
            "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    phases:\n      - # first\n        name: a\n      -   # second\n          # above the name\n          name: b\n",
            "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    phases:\n      - # first\n        name: a\n      - # second\n        # above the name\n        name: b\n",
        );
    }

    #[test]
    fn the_comment_of_a_moved_first_entry_goes_above_its_dash() {
        check(
            "oatf: \"0.1\"\nattack:\n  indicators:\n    - target: a\n      # the surface\n      surface: tools/call\n      pattern: {contains: x}\n",
            "oatf: \"0.1\"\nattack:\n  indicators:\n    # the surface\n    - surface: tools/call\n      target: a\n      pattern: {contains: x}\n",
        );
    }

    #[test]
    fn document_markers_stay_at_the_edges() {
        check(
            "%YAML 1.2\n---\n# about attack\nattack:\n  name: x\noatf: \"0.1\"\n...\n",
            "%YAML 1.2\n---\noatf: \"0.1\"\n# about attack\nattack:\n  name: x\n...\n",
        );
    }

    #[test]
    fn crlf_and_a_byte_order_mark_are_read() {
        check(
            "\u{feff}attack:\r\n  name: x\r\noatf: \"0.1\"\r\n",
            "\u{feff}oatf: \"0.1\"\nattack:\n  name: x\n",
        );
    }

    #[test]
    fn what_cannot_be_placed_is_refused_with_its_line() {
        check_refused(
            "oatf: \"0.1\"\nattack:\n  ? name\n  : x\n",
            3,
            "cannot place",
        );
    }

    #[test]
    fn a_flow_root_is_left_as_written() {
        check(
            "{oatf: \"0.1\", attack: {name: x}}\n",
            "{oatf: \"0.1\", attack: {name: x}}\n",
        );
    }

    /// Every variant of a document made by removing, indenting or commenting one line either formats
    /// to the same document with the same characters (whitespace aside), or is refused: never a
    /// panic, never a loss.
    #[test]
    fn mutated_layouts_are_formatted_or_refused_never_damaged() {
        const BASE: &str = "# header\n\nattack:\n  name: \"n\"  # c\n  execution:\n    mode: mcp_server\n    phases:\n      - name: a\n        state:\n          tools:\n            - name: t\n              description: |\n                line\n\n                more\n              inputSchema: {type: object,\n                properties: {}}\n        trigger:\n          event: tools/call\n      -\n        name: b\n  indicators:\n    - surface: tools/call\n      # why\n      target: arguments\n      pattern:\n        contains: x\noatf: \"0.1\"\n";
        let ink = |text: &str| {
            let mut chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
            chars.sort_unstable();
            chars
        };
        let lines: Vec<&str> = BASE.lines().collect();
        let (mut formatted, mut refused) = (0, 0);
        for i in 0..lines.len() {
            for variant in 0..4 {
                let mut changed: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
                match variant {
                    0 => {
                        changed.remove(i);
                    }
                    1 => changed[i].insert(0, ' '),
                    2 => changed[i].push_str(" # note"),
                    _ => changed[i].insert_str(0, "  \n"),
                }
                let input = changed.join("\n") + "\n";
                let Ok(document) = oatf::parse(&input) else {
                    continue;
                };
                match format(&input, &document) {
                    Ok(output) => {
                        formatted += 1;
                        let again =
                            oatf::parse(&output).unwrap_or_else(|e| panic!("{e}\n{output}"));
                        assert_eq!(again, document, "{input}\n---\n{output}");
                        assert_eq!(ink(&output), ink(&input), "{input}\n---\n{output}");
                        assert_eq!(format(&output, &again).as_deref(), Ok(output.as_str()));
                    }
                    Err(_) => refused += 1,
                }
            }
        }
        assert!(
            refused < 3 && formatted > 70,
            "{formatted} formatted, {refused} refused"
        );
    }
}
