//! JSON Lines traces: one [`TraceMessage`] per line, read with bounded memory.

use std::fmt;
use std::io::{BufRead, ErrorKind};

use serde_json::Value;

use super::context::raw_too_deep;
use super::evaluator::TraceEvaluator;
use super::lazy::{Envelope, RawEnvelope, needs_full_parse, too_deep};
use super::message::{Body, TraceMessage};

/// The default longest line [`JsonlTraceReader`] accepts: 16 MiB.
pub const DEFAULT_MAX_LINE_LEN: usize = 16 * 1024 * 1024;

/// `next_into` parses a line's content in the same pass as its envelope while at least this many
/// of the last 32 lines needed their content (a trace where nearly every line applies saves the
/// skipping of the content); below, it parses the envelope first.
const SPECULATE_FROM: u32 = 28;

/// The default most JSON values one trace line may hold: 1,000,000 (as for YAML documents).
pub const DEFAULT_MAX_LINE_NODES: usize = 1_000_000;

/// Counts the JSON values of `text` (keys included) without parsing it, stopping past `limit`: one
/// for the line, one for each `,` and `:` outside strings (the element or key after a comma, the value
/// after a colon) and one for each non-empty `[` or `{` (its first element or key). Exact for valid
/// JSON: `[1,2]` is 3, `{"a":1}` is 3, `[[],{}]` is 3.
///
/// The inside of a string, most of a trace line's bytes, is skipped with `memchr2` up to its next
/// `"` or `\`, so the count costs a fraction of a parse.
fn count_nodes(text: &[u8], limit: usize) -> usize {
    let mut nodes = 1usize;
    let mut opened = false;
    let mut at = 0usize;
    while let Some(&b) = text.get(at) {
        at += 1;
        if b.is_ascii_whitespace() {
            continue;
        }
        if opened && !matches!(b, b']' | b'}') {
            nodes += 1;
        }
        opened = matches!(b, b'[' | b'{');
        match b {
            b'"' => at = string_end(text, at),
            b',' | b':' => nodes += 1,
            _ => {}
        }
        if nodes > limit {
            break;
        }
    }
    nodes
}

/// Whether a text of `len` bytes may hold more than `limit` values: [`count_nodes`] counts one
/// for the text and at most two per byte (a `,` or `:` right after an opening bracket, in invalid
/// JSON), so a text with `1 + 2 × len ≤ limit` cannot exceed it and is not counted. With the
/// default limit, lines under about 500 KB are never counted.
fn may_exceed(len: usize, limit: usize) -> bool {
    len.saturating_mul(2).saturating_add(1) > limit
}

/// The position just past the `"` that closes the string whose contents start at `at` (the end of
/// `text` for an unterminated string), skipping escaped characters.
fn string_end(text: &[u8], mut at: usize) -> usize {
    loop {
        let rest = text.get(at..).unwrap_or_default();
        match memchr::memchr2(b'"', b'\\', rest) {
            None => return text.len(),
            Some(found) => {
                at += found;
                if text.get(at) == Some(&b'"') {
                    return at + 1;
                }
                // A backslash: the next byte is escaped, whatever it is.
                at += 2;
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Lines read by `next_into` on this thread: content not parsed, parsed alone, full parse,
    /// parsed in one pass with the envelope.
    static LAZY_COUNTS: std::cell::Cell<(usize, usize, usize, usize)> = const { std::cell::Cell::new((0, 0, 0, 0)) };
}

/// The lines read by `next_into` on this thread so far: content not parsed, content parsed on its
/// own, full parse, one pass (for the tests that must cover each).
#[cfg(test)]
pub(super) fn lazy_counts() -> (usize, usize, usize, usize) {
    LAZY_COUNTS.with(std::cell::Cell::get)
}

/// Counts a line read by `next_into` the `way`th way (see `lazy_counts`); nothing outside tests.
#[inline]
fn count(way: usize) {
    #[cfg(test)]
    LAZY_COUNTS.with(|counts| {
        let (mut a, mut b, mut c, mut d) = counts.get();
        match way {
            0 => a += 1,
            1 => b += 1,
            2 => c += 1,
            _ => d += 1,
        }
        counts.set((a, b, c, d));
    });
    #[cfg(not(test))]
    let _ = way;
}

/// Reads a JSON Lines trace (`docs/trace-format.md`): yields one [`TraceMessage`] per non-blank line.
///
/// A line that is not a trace message gives an [`TraceError`] naming its line number, and reading goes
/// on with the next line. A line longer than the limit ([`with_max_line_len`](Self::with_max_line_len),
/// default [`DEFAULT_MAX_LINE_LEN`]) is skipped up to its newline without being held in memory, and is
/// an error too. An I/O error is yielded once and ends the iteration. Blank lines (only whitespace) are
/// ignored; a trailing `\r` is removed.
///
/// A line holding more than [`DEFAULT_MAX_LINE_NODES`] JSON values (keys included; change it with
/// [`with_max_nodes`](Self::with_max_nodes)) is an error of kind [`TraceErrorKind::TooManyNodes`]
/// and is not parsed: a 15 MB line of `{}`s would otherwise cost hundreds of megabytes.
///
/// Memory: one line at a time, at most the length limit, and the values of at most the node limit.
///
/// ```
/// use oatf_eval::{JsonlTraceReader, TraceDirection};
///
/// let trace = "{\"seq\": 1, \"direction\": \"incoming\", \"method\": \"tools/list\", \"content\": {}}\n\
///              not json\n\
///              {\"seq\": 3, \"direction\": \"outgoing\", \"content\": {\"tools\": []}}\n";
/// let items: Vec<_> = JsonlTraceReader::new(trace.as_bytes()).collect();
/// assert_eq!(items.len(), 3);
/// assert_eq!(items[0].as_ref().map(|m| m.direction).ok(), Some(TraceDirection::Incoming));
/// assert_eq!(items[1].as_ref().err().map(|e| e.line()), Some(2));
/// assert!(items[2].is_ok());
/// ```
#[derive(Debug)]
pub struct JsonlTraceReader<R> {
    reader: R,
    line: u64,
    max_line_len: usize,
    max_nodes: usize,
    /// Whether each of the last 32 lines `next_into` routed needed its content (bit 0 the last).
    needed: u32,
    /// `next_into` parses lines in one pass, content included, while at least this many of the
    /// last 32 needed their content (33: never; 0: always).
    speculate_from: u32,
    buffer: Vec<u8>,
    done: bool,
}

/// What reading one line gave.
enum Line {
    /// End of input, nothing read.
    Eof,
    /// A whole line (without its newline) is in the buffer.
    Complete,
    /// The line was longer than the limit; it was skipped.
    TooLong,
}

impl<R: BufRead> JsonlTraceReader<R> {
    /// A reader over `reader`, with lines of at most [`DEFAULT_MAX_LINE_LEN`] bytes.
    pub fn new(reader: R) -> Self {
        JsonlTraceReader {
            reader,
            line: 0,
            max_line_len: DEFAULT_MAX_LINE_LEN,
            max_nodes: DEFAULT_MAX_LINE_NODES,
            needed: 0,
            speculate_from: SPECULATE_FROM,
            buffer: Vec::new(),
            done: false,
        }
    }

    /// Accepts lines of at most `max` bytes (without the newline); longer lines are errors.
    pub fn with_max_line_len(mut self, max: usize) -> Self {
        self.max_line_len = max;
        self
    }

    /// Accepts lines of at most `max` JSON values (keys included); lines with more are errors of
    /// kind [`TraceErrorKind::TooManyNodes`], counted before parsing.
    pub fn with_max_nodes(mut self, max: usize) -> Self {
        self.max_nodes = max;
        self
    }

    /// Numbers the lines from `lines + 1` on, as if `lines` lines had been read before: for a trace
    /// that arrives in pieces, each piece's whole lines read by a reader of their own.
    pub fn after_lines(mut self, lines: u64) -> Self {
        self.line = lines;
        self
    }

    /// The number of lines read so far: the line number of the item last returned.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    /// The capacity of the line buffer, for tests of the memory bound.
    #[cfg(test)]
    pub(crate) fn buffer_capacity(&self) -> usize {
        self.buffer.capacity()
    }

    /// Reads the next line into the buffer, never holding more than the limit.
    fn read_line(&mut self) -> std::io::Result<Line> {
        self.buffer.clear();
        let mut any = false;
        let mut too_long = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(match (any, too_long) {
                    (false, _) => Line::Eof,
                    (true, false) => Line::Complete,
                    (true, true) => Line::TooLong,
                });
            }
            any = true;
            let newline = memchr::memchr(b'\n', available);
            let chunk = &available[..newline.unwrap_or(available.len())];
            if !too_long {
                if self.buffer.len().saturating_add(chunk.len()) > self.max_line_len {
                    too_long = true;
                    self.buffer.clear();
                } else {
                    self.buffer.extend_from_slice(chunk);
                }
            }
            let used = newline.map_or(available.len(), |n| n + 1);
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(if too_long {
                    Line::TooLong
                } else {
                    Line::Complete
                });
            }
        }
    }

    /// The line in the buffer as text, checked for UTF-8 and the node limit, without its `\r`.
    fn checked_text(&self) -> Result<&str, TraceError> {
        let mut bytes = self.buffer.as_slice();
        if let Some(stripped) = bytes.strip_suffix(b"\r") {
            bytes = stripped;
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            TraceError::new(
                self.line,
                TraceErrorKind::Malformed,
                format!("not valid UTF-8 at byte {}", e.valid_up_to() + 1),
            )
        })?;
        if may_exceed(bytes.len(), self.max_nodes)
            && count_nodes(bytes, self.max_nodes) > self.max_nodes
        {
            return Err(TraceError::new(
                self.line,
                TraceErrorKind::TooManyNodes,
                format!(
                    "holds more than the limit of {} json values (keys included), not read; \
                     raise it with JsonlTraceReader::with_max_nodes",
                    self.max_nodes
                ),
            ));
        }
        Ok(text)
    }

    /// The trace message of the checked line `text`, or why it is not one.
    fn parse_text(&self, text: &str) -> Result<TraceMessage, TraceError> {
        TraceMessage::from_json(text)
            .map_err(|message| TraceError::new(self.line, TraceErrorKind::Malformed, message))
    }

    fn parse_buffer(&self) -> Result<TraceMessage, TraceError> {
        self.parse_text(self.checked_text()?)
    }

    /// Evaluates the line in the buffer with `evaluator`, parsing its content only when the
    /// evaluator needs it (D-91); the same outcome as parsing it and pushing the message. With
    /// `speculate`, the content is parsed in the same pass as the envelope. Gives whether the
    /// message needed its content, when it was routed.
    fn push_buffer(
        &self,
        evaluator: &mut TraceEvaluator<'_>,
        speculate: bool,
    ) -> (Result<(), TraceError>, Option<bool>) {
        let text = match self.checked_text() {
            Ok(text) => text,
            Err(error) => return (Err(error), None),
        };
        if speculate {
            // In one pass, exactly as the full parse reads it, the strings borrowed.
            if let Ok(line) = serde_json::from_str::<Envelope<'_, Value>>(text) {
                let head = line.head();
                let route = evaluator.route(&head);
                count(3);
                evaluator.push_routed(&head, route, Body::Parsed(&line.content));
                return (Ok(()), Some(route.needs_content));
            }
        } else if let Ok(envelope) = serde_json::from_str::<RawEnvelope<'_>>(text) {
            let head = envelope.head();
            let route = evaluator.route(&head);
            let raw = envelope.content.map(|raw| raw.get());
            if !route.needs_content {
                // Not parsed: valid only if parsing could not reject it.
                if !raw.is_some_and(|raw| needs_full_parse(raw.as_bytes())) {
                    count(0);
                    // The context profile skips entries that nest too deep (D-100).
                    let too_deep = evaluator.checks_depth()
                        && raw.is_some_and(|raw| raw_too_deep(raw.as_bytes()));
                    evaluator.push_routed(&head, route, Body::Unread { too_deep });
                    return (Ok(()), Some(false));
                }
            } else {
                // Parsed on its own, where it may nest one level deeper than inside the line.
                let content = raw.map_or(Ok(Value::Null), serde_json::from_str::<Value>);
                if let Ok(content) = content
                    && !raw.is_some_and(|raw| too_deep(raw, &content))
                {
                    count(1);
                    evaluator.push_routed(&head, route, Body::Parsed(&content));
                    return (Ok(()), Some(true));
                }
            }
        }
        // An envelope that does not parse, a content that does not or that skipping may accept
        // wrongly: the full parse, and its error.
        count(2);
        (
            self.parse_text(text).map(|m| {
                evaluator.push(&m);
            }),
            None,
        )
    }

    /// Sets from how many of the last 32 lines needing their content `next_into` parses in one
    /// pass (33: never, 0: always), for the tests of both ways.
    #[cfg(test)]
    pub(super) fn speculating_from(mut self, lines: u32) -> Self {
        self.speculate_from = lines;
        self
    }

    /// Reads lines up to the next one that is not blank, leaving it in the buffer: `Some(Ok(()))`,
    /// or the error of a line too long or of reading; `None` at the end.
    fn next_line(&mut self) -> Option<Result<(), TraceError>> {
        loop {
            if self.done {
                return None;
            }
            match self.read_line() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(TraceError::new(
                        self.line + 1,
                        TraceErrorKind::Io,
                        format!("cannot read the trace: {e}"),
                    )));
                }
                Ok(Line::Eof) => {
                    self.done = true;
                    return None;
                }
                Ok(Line::TooLong) => {
                    self.line += 1;
                    return Some(Err(TraceError::new(
                        self.line,
                        TraceErrorKind::TooLong,
                        format!(
                            "longer than the limit of {} bytes, skipped without reading it; \
                             raise it with JsonlTraceReader::with_max_line_len",
                            self.max_line_len
                        ),
                    )));
                }
                Ok(Line::Complete) => {
                    self.line += 1;
                    if self.buffer.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(Ok(()));
                }
            }
        }
    }

    /// Reads the next message and pushes it into `evaluator`: what
    /// `evaluator.push(&reader.next()?)` does, faster. A line's content is parsed only when an
    /// indicator the line applies to is undecided, and its strings are borrowed from the line
    /// (decision D-91), so lines no indicator needs (responses, notifications, other methods) cost
    /// a validation of the JSON instead of a parse into a `Value`; while nearly every line needs
    /// its content, envelope and content are parsed in one pass.
    ///
    /// `Some(Ok(()))`: a message was pushed (what it newly matched is
    /// [`TraceEvaluator::new_matches`], D-131); `Some(Err(_))`: the line's error, exactly as
    /// [`next`](Iterator::next) gives it (the line was not pushed; an I/O error ends the trace);
    /// `None`: the end of the trace.
    ///
    /// ```
    /// use oatf_eval::{AttackResult, CompiledAttack, Document, EvalOptions, JsonlTraceReader,
    ///                 TraceEvaluator};
    /// use serde_json::json;
    ///
    /// let document: Document = serde_json::from_value(json!({
    ///     "oatf": "0.1",
    ///     "attack": {
    ///         "execution": {"mode": "mcp_server", "state": {"tools": []}},
    ///         "indicators": [{"surface": "tools/call", "direction": "request",
    ///                         "target": "arguments.path", "pattern": {"contains": ".ssh"}}]
    ///     }
    /// }))?;
    /// let attack = CompiledAttack::new(&document, &EvalOptions::new());
    /// let trace = "{\"seq\": 1, \"direction\": \"outgoing\", \"method\": \"tools/list\", \"content\": {}}\n\
    ///              not json\n\
    ///              {\"seq\": 3, \"direction\": \"incoming\", \"method\": \"tools/call\", \
    ///               \"content\": {\"arguments\": {\"path\": \"~/.ssh/id_rsa\"}}}\n";
    /// let mut reader = JsonlTraceReader::new(trace.as_bytes());
    /// let mut evaluator = TraceEvaluator::new(&attack);
    /// let mut errors = Vec::new();
    /// while let Some(step) = reader.next_into(&mut evaluator) {
    ///     if let Err(error) = step {
    ///         errors.push(error.line());
    ///     }
    /// }
    /// assert_eq!(errors, [2]);
    /// assert_eq!(evaluator.messages(), 2);
    /// assert_eq!(evaluator.finish().result, AttackResult::Exploited);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_into(
        &mut self,
        evaluator: &mut TraceEvaluator<'_>,
    ) -> Option<Result<(), TraceError>> {
        match self.next_line()? {
            Ok(()) => {
                let speculate = self.needed.count_ones() >= self.speculate_from;
                let (result, needed) = self.push_buffer(evaluator, speculate);
                if let Some(needed) = needed {
                    self.needed = (self.needed << 1) | u32::from(needed);
                }
                Some(result)
            }
            Err(error) => Some(Err(error)),
        }
    }
}

impl<R: BufRead> Iterator for JsonlTraceReader<R> {
    type Item = Result<TraceMessage, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_line()? {
            Ok(()) => Some(self.parse_buffer()),
            Err(error) => Some(Err(error)),
        }
    }
}

impl TraceMessage {
    /// One trace line (the JSON text of one message) as a message, with the rules and the words of
    /// [`JsonlTraceReader`] for each of its lines (without its length and node limits): the error says
    /// `not JSON (…)` for text that is not JSON and `not a trace message: …` for JSON of another shape
    /// (decision D-137).
    ///
    /// ```
    /// use oatf_eval::TraceMessage;
    ///
    /// let message = TraceMessage::from_json(r#"{"direction": "incoming", "content": {}}"#);
    /// assert!(message.is_ok());
    /// assert_eq!(
    ///     TraceMessage::from_json("nope").unwrap_err(),
    ///     "not JSON (expected ident at column 2)"
    /// );
    /// assert_eq!(
    ///     TraceMessage::from_json(r#"{"seq": 2}"#).unwrap_err(),
    ///     "not a trace message: missing field `direction` (column 10)"
    /// );
    /// ```
    pub fn from_json(text: &str) -> Result<TraceMessage, String> {
        serde_json::from_str(text).map_err(|e| describe_json_error(&e))
    }
}

/// What a JSON parse error means, in the words of the trace reader (decision D-137): `not JSON (what
/// at column N)` when the text is not JSON (a syntax error or an early end), else `not a trace
/// message: what (column N)` (JSON, but not the shape wanted). The position is the column alone:
/// the text is one line.
///
/// ```
/// let error = serde_json::from_str::<serde_json::Value>("{'a': 1}").unwrap_err();
/// assert_eq!(
///     oatf_eval::describe_json_error(&error),
///     "not JSON (key must be a string at column 2)"
/// );
/// ```
pub fn describe_json_error(error: &serde_json::Error) -> String {
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let what = full.strip_suffix(&suffix).unwrap_or(&full);
    if what == "recursion limit exceeded" {
        return format!(
            "not read: nests deeper than the limit of 128 levels (column {})",
            error.column()
        );
    }
    match error.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            format!("not JSON ({what} at column {})", error.column())
        }
        _ => format!("not a trace message: {what} (column {})", error.column()),
    }
}

/// A line of a trace that could not be read as a [`TraceMessage`].
///
/// `Display` gives `line N: what`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    line: u64,
    kind: TraceErrorKind,
    message: String,
}

/// The kind of a [`TraceError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TraceErrorKind {
    /// The line is not UTF-8, not JSON, or not a trace message (for example no `direction`).
    Malformed,
    /// The line is longer than the reader's limit.
    TooLong,
    /// The line holds more JSON values than the reader's node limit.
    TooManyNodes,
    /// Reading failed; nothing more is read after it.
    Io,
}

impl TraceError {
    fn new(line: u64, kind: TraceErrorKind, message: String) -> Self {
        TraceError {
            line,
            kind,
            message,
        }
    }

    /// The 1-based line number of the faulty line (for an I/O error, the line being read).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// What went wrong, without the line number.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The kind of fault.
    pub fn kind(&self) -> TraceErrorKind {
        self.kind
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::count_nodes;

    /// The values of `value`, keys included: what [`count_nodes`] counts in its text.
    fn values(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(values).sum::<usize>(),
            Value::Object(map) => 1 + map.values().map(|v| 1 + values(v)).sum::<usize>(),
            _ => 1,
        }
    }

    /// A generated JSON value whose strings hold the characters that matter to the count.
    fn generate(state: &mut u64, depth: usize) -> Value {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let pick = (*state >> 33) as usize;
        const TEXTS: [&str; 8] = [
            "",
            "a,b:c",
            "q\"u\"o",
            "back\\slash\\",
            "[{}]",
            "é\u{1F600}",
            "\\\"",
            "x\n\t",
        ];
        match (pick % 7, depth) {
            (0 | 1, d) if d < 4 => {
                Value::Array((0..pick % 4).map(|_| generate(state, d + 1)).collect())
            }
            (2 | 3, d) if d < 4 => Value::Object(
                (0..pick % 4)
                    .map(|i| {
                        (
                            format!("{}{i}", TEXTS[(pick >> 3) % 8]),
                            generate(state, d + 1),
                        )
                    })
                    .collect(),
            ),
            (4, _) => json!(pick % 1000),
            (5, _) => Value::Null,
            _ => json!(TEXTS[(pick >> 5) % 8]),
        }
    }

    #[test]
    fn the_count_is_the_number_of_values_of_valid_json() {
        let mut state = 7u64;
        for case in 0..3_000 {
            let value = generate(&mut state, 0);
            let expected = values(&value);
            for text in [
                serde_json::to_string(&value).unwrap_or_default(),
                serde_json::to_string_pretty(&value).unwrap_or_default(),
            ] {
                assert_eq!(
                    count_nodes(text.as_bytes(), usize::MAX),
                    expected,
                    "case {case}: {text}"
                );
                // Past the limit, the count stops just over it.
                if expected > 1 {
                    assert_eq!(
                        count_nodes(text.as_bytes(), expected - 1),
                        expected,
                        "case {case}"
                    );
                }
            }
        }
        // The bound that spares short lines the count: no text exceeds it, valid or not.
        for text in [&b"[,,,]"[..], b"{:,:}", b"[[[[", b"[,", b",,,,", b"\"", b""] {
            let bound = 1 + 2 * text.len();
            assert!(count_nodes(text, usize::MAX) <= bound, "{text:?}");
            assert!(!super::may_exceed(text.len(), bound));
            assert!(super::may_exceed(text.len(), bound - 1));
        }
        // An unterminated string or a trailing backslash ends the count without reading past the text.
        assert_eq!(count_nodes(b"[1,\"abc", usize::MAX), 3);
        assert_eq!(count_nodes(b"[1,\"abc\\", usize::MAX), 3);
    }
}
