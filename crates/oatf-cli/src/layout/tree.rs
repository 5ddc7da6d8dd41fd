//! The layout tree of `oatf fmt` (D-65): the source read once more into block entries and leaves
//! (byte spans of text kept as written), over a line-indexed view of the source; and the
//! [`Refusal`] of a file that cannot be placed.

use std::fmt;

use serde_saphyr::granit_parser::{Event, Marker, Options, Parser, ScalarStyle, StructureStyle};

/// Why a file was not formatted: the 1-based line and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) line: usize,
    pub(crate) message: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

pub(super) fn refuse<T>(line: usize, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        line: line + 1,
        message: message.into(),
    })
}

/// A node of the layout tree.
#[derive(Debug)]
pub(super) enum Node {
    /// A block mapping (`map`) or block sequence.
    Block { map: bool, entries: Vec<Entry> },
    /// A scalar or flow collection, kept as written: byte offsets of its text.
    Leaf {
        start: usize,
        end: usize,
        block_scalar: bool,
    },
}

#[derive(Debug)]
pub(super) struct Entry {
    /// The key of a mapping entry (its decoded text and byte span); `None` for a sequence item.
    pub(super) key: Option<(String, usize, usize)>,
    pub(super) value: Node,
}

/// A line-indexed view of the source.
pub(super) struct Lines<'a> {
    pub(super) text: &'a str,
    pub(super) starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        if starts.last() == Some(&text.len()) && starts.len() > 1 {
            starts.pop();
        }
        Lines { text, starts }
    }

    pub(super) fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `n` (0-based) without its line break (`\n` or `\r\n`).
    pub(super) fn line(&self, n: usize) -> &'a str {
        let start = self.starts.get(n).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(n + 1)
            .map_or(self.text.len(), |next| next - 1);
        let line = self.text.get(start..end.max(start)).unwrap_or("");
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The 0-based line and byte column of a byte offset.
    pub(super) fn place(&self, offset: usize) -> (usize, usize) {
        let line = self
            .starts
            .partition_point(|s| *s <= offset)
            .saturating_sub(1);
        (line, offset - self.starts.get(line).copied().unwrap_or(0))
    }
}

pub(super) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

pub(super) fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// Whether `rest` (what follows a value or an indicator on its line) is nothing or a comment.
pub(super) fn is_tail(rest: &str) -> bool {
    let trimmed = rest.trim_start();
    trimmed.is_empty() || (trimmed.starts_with('#') && rest.len() > trimmed.len())
}

pub(super) fn byte_offset(source: &str, marker: &Marker) -> usize {
    marker.byte_offset().unwrap_or_else(|| {
        source
            .char_indices()
            .nth(marker.index())
            .map_or(source.len(), |(i, _)| i)
    })
}

pub(super) enum Frame {
    Block {
        map: bool,
        entries: Vec<Entry>,
        key: Option<(String, usize, usize)>,
    },
    Flow {
        start: usize,
        depth: usize,
    },
}

impl Frame {
    pub(super) fn awaits_key(&self) -> bool {
        matches!(
            self,
            Frame::Block {
                map: true,
                key: None,
                ..
            }
        )
    }
}

pub(super) fn attach(stack: &mut [Frame], root: &mut Option<Node>, node: Node) {
    match stack.last_mut() {
        Some(Frame::Block { entries, key, .. }) => entries.push(Entry {
            key: key.take(),
            value: node,
        }),
        Some(Frame::Flow { .. }) => {}
        None => *root = Some(node),
    }
}

/// Reads the layout tree of `source` (a document `oatf::parse` accepted, so its nesting is bounded).
pub(super) fn read_tree(source: &str, lines: &Lines<'_>) -> Result<Option<Node>, Refusal> {
    let mut options = Options::default();
    options.set_emit_comments(false);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root = None;
    for item in Parser::new_from_str_with_options(source, options) {
        let (event, span) = match item {
            Ok(pair) => pair,
            Err(error) => {
                return refuse(
                    error.marker().line().saturating_sub(1),
                    format!("the yaml does not parse: {}", error.info()),
                );
            }
        };
        let start = byte_offset(source, &span.start);
        let end = byte_offset(source, &span.end).max(start);
        if let Some(Frame::Flow {
            depth,
            start: flow_start,
        }) = stack.last_mut()
        {
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => *depth += 1,
                Event::MappingEnd | Event::SequenceEnd if *depth > 0 => *depth -= 1,
                Event::MappingEnd | Event::SequenceEnd => {
                    let leaf = Node::Leaf {
                        start: *flow_start,
                        end,
                        block_scalar: false,
                    };
                    stack.pop();
                    attach(&mut stack, &mut root, leaf);
                }
                _ => {}
            }
            continue;
        }
        let awaits_key = stack.last().is_some_and(Frame::awaits_key);
        match event {
            Event::MappingStart(style, ..) | Event::SequenceStart(style, ..) => {
                if awaits_key {
                    return refuse(lines.place(start).0, "a mapping key that is not a scalar");
                }
                if style == StructureStyle::Flow {
                    stack.push(Frame::Flow { start, depth: 0 });
                } else {
                    stack.push(Frame::Block {
                        map: matches!(event, Event::MappingStart(..)),
                        entries: Vec::new(),
                        key: None,
                    });
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Frame::Block { map, entries, .. }) = stack.pop() {
                    attach(&mut stack, &mut root, Node::Block { map, entries });
                }
            }
            Event::Scalar(text, style, ..) => {
                if awaits_key {
                    if let Some(Frame::Block { key, .. }) = stack.last_mut() {
                        *key = Some((text.into_owned(), start, end));
                    }
                    continue;
                }
                let leaf = Node::Leaf {
                    start,
                    end,
                    block_scalar: matches!(style, ScalarStyle::Literal | ScalarStyle::Folded),
                };
                attach(&mut stack, &mut root, leaf);
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                return refuse(lines.place(start).0, "a yaml alias");
            }
            _ => {}
        }
    }
    Ok(root)
}

/// Moves `line` left or right by `delta` columns (its leading spaces; never below zero).
pub(super) fn shift(line: &str, delta: isize) -> String {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let new = spaces.saturating_add_signed(delta);
    let new = if delta < 0 && spaces < delta.unsigned_abs() {
        0
    } else {
        new
    };
    format!("{}{}", " ".repeat(new), &line[spaces..])
}

pub(super) fn indent(n: usize) -> String {
    " ".repeat(n)
}
