//! Strict YAML 1.2 reading: parser events → a tree of located nodes.
//!
//! The tree is built from the event stream of `granit-parser` (the parser under serde-saphyr) with an
//! explicit stack, so nesting is bounded without recursion. Aliases are never expanded: each is
//! recorded as a V-020 finding and replaced by a null placeholder, so an alias bomb costs nothing.
//! Plain scalars are resolved with the YAML 1.2 core schema, strictly: only `true`/`false` (any case
//! variant the schema lists) are booleans, `yes`/`no`/`on`/`off` stay strings, and numbers with a
//! leading zero (`012`) or underscores stay strings. `.inf` and `.nan` stay strings too, because
//! JSON values cannot hold them.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_saphyr::granit_parser::{Event, Marker, Options, Parser, ScalarStyle, Span, Tag};

pub(crate) use super::scalar::{is_out_of_range_int, resolve_plain};
use crate::error::{ParseError, ParseErrorKind};
use crate::rules::Rule;
pub(crate) use crate::span::{Key, Location, Node, NodeKind, join_index, join_key};

/// Limits on the YAML reader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) max_input_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_nodes: usize,
}

/// The result of reading: the root node (when reading succeeded) and every finding.
pub(crate) struct Read {
    pub(crate) root: Option<Node>,
    pub(crate) errors: Vec<ParseError>,
}

/// A mapping with more keys than this checks duplicates through a hash set; a smaller one compares
/// the key with the keys before it, which is faster than hashing and allocating for the few keys
/// that most mappings have.
const SCAN_KEYS: usize = 16;

/// A collection being read. The dot-path of a node is not kept: it follows from the stack
/// ([`Builder::path_at`]) and is built only for a finding.
enum Frame {
    Seq {
        items: Vec<Node>,
        start: Location,
    },
    Map {
        entries: Vec<(Key, Node)>,
        /// The keys seen so far once the mapping has more than [`SCAN_KEYS`], for the duplicate
        /// check in constant time per key (a scan of `entries` made 100,000 keys take over a
        /// minute).
        seen: Option<HashSet<String>>,
        pending: Option<Key>,
        start: Location,
    },
}

struct Builder<'a> {
    source: &'a str,
    stack: Vec<Frame>,
    root: Option<Node>,
    errors: Vec<ParseError>,
    limits: Limits,
}

/// Converts a marker to a byte offset, falling back to counting characters.
fn byte_offset(source: &str, marker: &Marker) -> usize {
    marker.byte_offset().unwrap_or_else(|| {
        source
            .char_indices()
            .nth(marker.index())
            .map_or(source.len(), |(i, _)| i)
    })
}

fn location(source: &str, span: &Span) -> Location {
    let start = byte_offset(source, &span.start);
    let end = byte_offset(source, &span.end).max(start);
    Location {
        span: start..end,
        line: span.start.line(),
        column: span.start.col() + 1,
    }
}

impl Builder<'_> {
    fn finding(
        &mut self,
        kind: ParseErrorKind,
        rule: Option<Rule>,
        message: String,
        path: &str,
        location: &Location,
    ) {
        self.errors.push(ParseError {
            kind,
            message,
            path: Some(path.to_owned()),
            line: Some(location.line),
            column: Some(location.column),
            span: Some(location.span.clone()),
            rule,
            unknown_field: false,
        });
    }

    /// The dot-path of the node that starts now inside the first `depth` frames of the stack, or
    /// `None` when it is a mapping key.
    fn path_at(&self, depth: usize) -> Option<String> {
        let mut path = String::new();
        for frame in self.stack.get(..depth).unwrap_or(&self.stack) {
            path = match frame {
                Frame::Seq { items, .. } => join_index(&path, items.len()),
                Frame::Map {
                    pending: Some(key), ..
                } => join_key(&path, &key.text),
                Frame::Map { pending: None, .. } => return None,
            };
        }
        Some(path)
    }

    /// The path of the node that starts now, or `None` when it is a mapping key.
    fn next_path(&self) -> Option<String> {
        self.path_at(self.stack.len())
    }

    fn is_key_position(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { pending: None, .. }))
    }

    /// Records V-020 findings for anchors and custom tags on the node starting now.
    fn check_properties(
        &mut self,
        anchor: usize,
        tag: Option<&Tag>,
        path: impl Fn(&Self) -> String,
        location: &Location,
    ) {
        if anchor == 0 && !tag.is_some_and(Tag::is_custom) {
            return;
        }
        let path = &path(self);
        if anchor != 0 {
            self.finding(
                ParseErrorKind::Syntax,
                Some(Rule::V020),
                "yaml anchors are not allowed in oatf documents".to_owned(),
                path,
                location,
            );
        }
        if let Some(tag) = tag
            && tag.is_custom()
        {
            let shown: String = tag.original().chars().take(64).collect();
            self.finding(
                ParseErrorKind::Syntax,
                Some(Rule::V020),
                format!("custom yaml tag `{shown}` is not allowed in oatf documents"),
                path,
                location,
            );
        }
    }

    /// Adds a finished node to its parent (or makes it the root).
    fn attach(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries, pending, ..
            }) => {
                if let Some(key) = pending.take() {
                    entries.push((key, node));
                }
            }
        }
    }

    fn push_key(&mut self, text: String, plain: bool, location: Location) {
        let mut duplicate = false;
        if let Some(Frame::Map { entries, seen, .. }) = self.stack.last_mut() {
            duplicate = match seen {
                Some(seen) => !seen.insert(text.clone()),
                None if entries.len() < SCAN_KEYS => {
                    entries.iter().any(|(key, _)| key.text == text)
                }
                None => {
                    let mut keys: HashSet<String> =
                        entries.iter().map(|(key, _)| key.text.clone()).collect();
                    let duplicate = !keys.insert(text.clone());
                    *seen = Some(keys);
                    duplicate
                }
            };
        }
        // Only a plain `<<` is a merge key; a quoted "<<" is an ordinary key.
        let merge = plain && text == "<<";
        if duplicate {
            let path = join_key(&self.key_parent_path(), &text);
            let shown: String = text.chars().take(64).collect();
            self.finding(
                ParseErrorKind::Syntax,
                None,
                format!("duplicate key `{shown}`"),
                &path,
                &location,
            );
        }
        if merge {
            let path = self.key_parent_path();
            self.finding(
                ParseErrorKind::Syntax,
                Some(Rule::V020),
                "yaml merge keys (`<<`) are not allowed in oatf documents".to_owned(),
                &path,
                &location,
            );
        }
        if let Some(Frame::Map { pending, .. }) = self.stack.last_mut() {
            *pending = Some(Key { text, location });
        }
    }

    #[allow(
        clippy::result_large_err,
        reason = "one error ends the read; it is not on a hot path"
    )]
    fn start_collection(
        &mut self,
        is_map: bool,
        anchor: usize,
        tag: Option<&Tag>,
        location: Location,
    ) -> Result<(), ParseError> {
        if self.is_key_position() {
            return Err(located(
                ParseErrorKind::Syntax,
                "mapping keys must be scalars".to_owned(),
                self.key_parent_path(),
                &location,
            ));
        }
        if self.stack.len() >= self.limits.max_depth {
            return Err(located(
                ParseErrorKind::Syntax,
                format!(
                    "nesting is deeper than the limit of {} levels",
                    self.limits.max_depth
                ),
                self.next_path().unwrap_or_default(),
                &location,
            ));
        }
        self.check_properties(
            anchor,
            tag,
            |b| b.next_path().unwrap_or_default(),
            &location,
        );
        self.stack.push(if is_map {
            Frame::Map {
                entries: Vec::new(),
                seen: None,
                pending: None,
                start: location,
            }
        } else {
            Frame::Seq {
                items: Vec::new(),
                start: location,
            }
        });
        Ok(())
    }

    /// The path of the innermost collection (the mapping whose key is being read).
    fn key_parent_path(&self) -> String {
        self.path_at(self.stack.len().saturating_sub(1))
            .unwrap_or_default()
    }

    fn end_collection(&mut self, end: &Location) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let (kind, mut start) = match frame {
            Frame::Seq { items, start } => (NodeKind::Seq(items), start),
            Frame::Map { entries, start, .. } => (NodeKind::Map(entries), start),
        };
        let end = end.span.end.max(start.span.start);
        // A block collection ends where the next token starts: the blank space (line breaks,
        // the next line's indentation) before it is not part of the collection, so a diagnostic
        // on it does not underline the next sibling's line.
        let trailing = self
            .source
            .get(start.span.start..end)
            .map_or(0, |text| text.len() - text.trim_end().len());
        start.span = start.span.start..end - trailing;
        self.attach(Node {
            kind,
            location: start,
        });
    }

    fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        location: Location,
    ) {
        if self.is_key_position() {
            self.check_properties(anchor, tag, Self::key_parent_path, &location);
            self.push_key(text.into_owned(), style == ScalarStyle::Plain, location);
            return;
        }
        self.check_properties(
            anchor,
            tag,
            |b| b.next_path().unwrap_or_default(),
            &location,
        );
        let forced_string = tag.is_some_and(|t| t.is_yaml_core_schema_tag("str"));
        let kind = if style == ScalarStyle::Plain && !forced_string {
            if is_out_of_range_int(&text) {
                // Never turned into a float (that changes its value): rejected where it is.
                let shown: String = text.chars().take(64).collect();
                let path = self.next_path().unwrap_or_default();
                self.finding(
                    ParseErrorKind::Syntax,
                    None,
                    format!(
                        "the integer {shown} is outside the 64-bit range (-9223372036854775808 to \
                         18446744073709551615); quote it to keep it as a string"
                    ),
                    &path,
                    &location,
                );
                NodeKind::Null
            } else {
                resolve_plain(&text)
            }
        } else {
            NodeKind::Str(text.into_owned())
        };
        self.attach(Node { kind, location });
    }

    fn alias(&mut self, location: Location) {
        if self.is_key_position() {
            let path = self.key_parent_path();
            self.finding(
                ParseErrorKind::Syntax,
                Some(Rule::V020),
                "yaml aliases are not allowed in oatf documents".to_owned(),
                &path,
                &location,
            );
            self.push_key("*alias".to_owned(), false, location);
            return;
        }
        let path = self.next_path().unwrap_or_default();
        self.finding(
            ParseErrorKind::Syntax,
            Some(Rule::V020),
            "yaml aliases are not allowed in oatf documents".to_owned(),
            &path,
            &location,
        );
        // Never expanded: a null placeholder keeps the tree shape.
        self.attach(Node {
            kind: NodeKind::Null,
            location,
        });
    }
}

fn located(kind: ParseErrorKind, message: String, path: String, location: &Location) -> ParseError {
    ParseError {
        kind,
        message,
        path: Some(path),
        line: Some(location.line),
        column: Some(location.column),
        span: Some(location.span.clone()),
        rule: None,
        unknown_field: false,
    }
}

/// The error for an input over the size limit (nothing of it is read).
pub(crate) fn too_large(len: usize, limit: usize) -> ParseError {
    ParseError::new(
        ParseErrorKind::Syntax,
        format!("input is {len} bytes, more than the limit of {limit} bytes"),
    )
}

/// Reads `source` into a node tree, collecting V-020 findings and duplicate keys on the way.
pub(crate) fn read(source: &str, limits: Limits) -> Read {
    let mut builder = Builder {
        source,
        stack: Vec::new(),
        root: None,
        errors: Vec::new(),
        limits,
    };
    if source.len() > limits.max_input_bytes {
        builder
            .errors
            .push(too_large(source.len(), limits.max_input_bytes));
        return finish(builder, false);
    }
    let mut options = Options::default();
    options.set_emit_comments(false);
    options.emit_unresolved_aliases = true;
    let flow_limit = limits.max_depth.saturating_add(2);
    options.flow_nesting_limit = flow_limit;
    options.block_nesting_limit = flow_limit;
    let parser = Parser::new_from_str_with_options(source, options);
    let mut documents = 0usize;
    let mut nodes = 0usize;
    let mut fatal = false;
    for item in parser {
        let (event, span) = match item {
            Ok(pair) => pair,
            Err(error) => {
                let offset = byte_offset(source, error.marker());
                // The parser's own nesting guard (a little above ours) words it as "recursion limit
                // exceeded": say which limit.
                let message = if matches!(
                    error.kind(),
                    serde_saphyr::granit_parser::ErrorKind::RecursionLimitExceeded
                ) {
                    format!(
                        "nesting is deeper than the limit of {} levels",
                        limits.max_depth
                    )
                } else {
                    lowercase_first(&error.info())
                };
                let mut e = ParseError::new(ParseErrorKind::Syntax, message);
                e.line = Some(error.marker().line());
                e.column = Some(error.marker().col() + 1);
                e.span = Some(offset..offset);
                if let Some((message, at)) = refine_syntax_error(source, &e.message, offset) {
                    let (line, column) = line_column(source, at);
                    e.message = message;
                    e.line = Some(line);
                    e.column = Some(column);
                    e.span = Some(at..at);
                }
                builder.errors.push(e);
                fatal = true;
                break;
            }
        };
        let location = location(builder.source, &span);
        if matches!(
            event,
            Event::MappingStart(..)
                | Event::SequenceStart(..)
                | Event::Scalar(..)
                | Event::Alias(_)
                | Event::UnresolvedAlias(_)
        ) {
            nodes += 1;
            if nodes > limits.max_nodes {
                builder.errors.push(located(
                    ParseErrorKind::Syntax,
                    format!(
                        "the document has more than the limit of {} yaml nodes",
                        limits.max_nodes
                    ),
                    builder.key_parent_path(),
                    &location,
                ));
                fatal = true;
                break;
            }
        }
        let step = match event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    let mut e = ParseError::new(
                        ParseErrorKind::Syntax,
                        "more than one yaml document in the input",
                    );
                    e.line = Some(location.line);
                    e.column = Some(location.column);
                    e.span = Some(location.span.clone());
                    builder.errors.push(e);
                    fatal = true;
                    break;
                }
                Ok(())
            }
            Event::MappingStart(_, anchor, tag) => {
                builder.start_collection(true, anchor, tag.as_deref(), location)
            }
            Event::SequenceStart(_, anchor, tag) => {
                builder.start_collection(false, anchor, tag.as_deref(), location)
            }
            Event::MappingEnd | Event::SequenceEnd => {
                builder.end_collection(&location);
                Ok(())
            }
            Event::Scalar(text, style, anchor, tag) => {
                builder.scalar(text, style, anchor, tag.as_deref(), location);
                Ok(())
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                builder.alias(location);
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(e) = step {
            builder.errors.push(e);
            fatal = true;
            break;
        }
    }
    finish(builder, fatal)
}

fn finish(mut builder: Builder<'_>, fatal: bool) -> Read {
    if !fatal && builder.errors.iter().all(|e| e.rule.is_some()) {
        match &builder.root {
            None => builder.errors.push(ParseError::new(
                ParseErrorKind::Syntax,
                "the input contains no yaml document",
            )),
            Some(Node {
                kind: NodeKind::Null,
                location,
            }) => {
                let location = location.clone();
                builder.errors.push(located(
                    ParseErrorKind::Syntax,
                    "the document is empty".to_owned(),
                    String::new(),
                    &location,
                ));
            }
            Some(Node {
                kind: NodeKind::Map(_),
                ..
            }) => {}
            Some(Node { kind, location }) => {
                let message = format!(
                    "the document root must be a mapping, found {}",
                    kind.describe()
                );
                let location = location.clone();
                builder.errors.push(located(
                    ParseErrorKind::TypeMismatch,
                    message,
                    String::new(),
                    &location,
                ));
            }
        }
    }
    let root = if fatal { None } else { builder.root };
    Read {
        root,
        errors: builder.errors,
    }
}

/// 1-based line and column (in characters) of byte `offset` of `source`.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// A clearer message and place for two parser errors that point at the wrong line:
/// - a tab used for indentation is reported by the parser on the line before it ("while scanning a
///   plain scalar, found a tab"): the first line from there whose indentation holds a tab is named;
/// - an unterminated quote is reported as an indentation error on a later line: the quote that is
///   not closed is named, at its place.
fn refine_syntax_error(source: &str, message: &str, offset: usize) -> Option<(String, usize)> {
    let offset = offset.min(source.len());
    let line_start = |at: usize| {
        source
            .get(..at)
            .and_then(|b| b.rfind('\n'))
            .map_or(0, |i| i + 1)
    };
    if message.contains("tab") {
        let mut start = line_start(offset);
        // The line of the error and the next one: the parser stops at the end of the line before.
        for _ in 0..2 {
            let line = source.get(start..)?;
            let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            if let Some(tab) = indent.find('\t') {
                return Some((
                    "a tab is used for indentation; yaml indents with spaces only".to_owned(),
                    start + tab,
                ));
            }
            start += line.find('\n')? + 1;
        }
        return None;
    }
    if message.contains("quoted scalar") {
        // The last quote opened before the error and not closed: scan from the start of the
        // document, tracking quotes as a scanner does (doubled `''` and `\"` escapes).
        let mut open: Option<(usize, char)> = None;
        let mut chars = source.get(..offset)?.char_indices().peekable();
        let mut in_comment = false;
        while let Some((i, c)) = chars.next() {
            match (open, c) {
                (None, '\n') => in_comment = false,
                (None, '#') => in_comment = true,
                (None, '"' | '\'') if !in_comment => open = Some((i, c)),
                (Some((_, '"')), '\\') => {
                    chars.next();
                }
                (Some((_, '\'')), '\'') if chars.peek().is_some_and(|(_, n)| *n == '\'') => {
                    chars.next();
                }
                (Some((_, q)), c) if c == q => open = None,
                _ => {}
            }
        }
        let (at, quote) = open?;
        let kind = if quote == '"' { "double" } else { "single" };
        return Some((
            format!("unterminated {kind}-quoted string: the quote that opens here is not closed"),
            at,
        ));
    }
    None
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    let mut out = String::with_capacity(text.len());
    if let Some(first) = chars.next() {
        out.extend(first.to_lowercase());
    }
    out.push_str(chars.as_str());
    out.trim_end_matches('.').to_owned()
}
