//! Dot-path resolution (SDK §5.1): simple paths and wildcard paths.
//!
//! Both grammars come from format §5.4:
//!
//! ```text
//! simple-path   = segment *( "." segment )
//! wildcard-path = wsegment *( "." wsegment )
//! wsegment      = segment / segment "[*]"
//! segment       = 1*( ALPHA / DIGIT / "_" / "-" )
//! ```
//!
//! The empty string is valid in both grammars and addresses the root value.
//! Paths are parsed once into a compiled form and then resolved by reference: resolution never clones
//! any part of the value it walks.

use std::fmt;

use oatf_internal::json::field_of;
use serde_json::Value;

/// The largest number of segments a path may have (SDK §5.1.2 recommends a traversal depth limit of 64).
pub const MAX_PATH_DEPTH: usize = 64;

/// Why a string is not a valid dot-path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathError {
    kind: PathErrorKind,
    offset: usize,
}

/// The kind of a [`PathError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathErrorKind {
    /// A segment between two dots (or at either end) is empty, as in `a..b` or `a.`.
    EmptySegment,
    /// A character outside `[a-zA-Z0-9_-]` where a segment character was expected.
    InvalidCharacter(char),
    /// A bracket that is not exactly the `[*]` wildcard suffix, such as `[0]` or `[*`.
    InvalidBracket,
    /// A wildcard `[*]` in a simple path, which does not allow one.
    WildcardNotAllowed,
    /// More than [`MAX_PATH_DEPTH`] segments.
    TooDeep,
}

impl PathError {
    fn new(kind: PathErrorKind, offset: usize) -> Self {
        PathError { kind, offset }
    }

    /// What is wrong with the path.
    pub fn kind(&self) -> PathErrorKind {
        self.kind
    }

    /// The byte offset in the path where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            PathErrorKind::EmptySegment => write!(f, "empty path segment at byte {}", self.offset),
            PathErrorKind::InvalidCharacter(c) => write!(
                f,
                "invalid character {c:?} at byte {}: segments allow only letters, digits, `_` and `-`",
                self.offset
            ),
            PathErrorKind::InvalidBracket => write!(
                f,
                "invalid bracket at byte {}: only the `[*]` wildcard suffix is allowed (no numeric indices)",
                self.offset
            ),
            PathErrorKind::WildcardNotAllowed => write!(
                f,
                "wildcard `[*]` at byte {} is not allowed in a simple dot-path",
                self.offset
            ),
            PathErrorKind::TooDeep => write!(f, "path has more than {MAX_PATH_DEPTH} segments"),
        }
    }
}

impl std::error::Error for PathError {}

/// One segment of a wildcard path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// Access a named field of an object.
    Field(Box<str>),
    /// Fan out over every element of an array.
    Wildcard,
}

fn is_segment_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Splits `path` into segments following the wildcard grammar.
fn parse_segments(path: &str, allow_wildcard: bool) -> Result<Vec<Segment>, PathError> {
    let mut segments = Vec::new();
    if path.is_empty() {
        return Ok(segments);
    }
    let mut fields = 0usize;
    let mut start = 0usize;
    for part in path.split('.') {
        let (name, suffix) = match part.find('[') {
            Some(i) => part.split_at(i),
            None => (part, ""),
        };
        if name.is_empty() {
            return Err(if suffix.is_empty() {
                PathError::new(PathErrorKind::EmptySegment, start)
            } else {
                PathError::new(PathErrorKind::InvalidBracket, start)
            });
        }
        if let Some((i, c)) = name.char_indices().find(|&(_, c)| !is_segment_char(c)) {
            let kind = if c == ']' {
                PathErrorKind::InvalidBracket
            } else {
                PathErrorKind::InvalidCharacter(c)
            };
            return Err(PathError::new(kind, start + i));
        }
        fields += 1;
        if fields > MAX_PATH_DEPTH {
            return Err(PathError::new(PathErrorKind::TooDeep, start));
        }
        segments.push(Segment::Field(name.into()));
        if !suffix.is_empty() {
            let at = start + name.len();
            if suffix != "[*]" {
                return Err(PathError::new(PathErrorKind::InvalidBracket, at));
            }
            if !allow_wildcard {
                return Err(PathError::new(PathErrorKind::WildcardNotAllowed, at));
            }
            segments.push(Segment::Wildcard);
        }
        start += part.len() + 1;
    }
    Ok(segments)
}

/// A parsed simple dot-path (SDK §5.1.1), resolved by reference against any number of values.
///
/// ```
/// use oatf_primitives::SimplePath;
/// use serde_json::json;
///
/// let path = SimplePath::parse("arguments.command")?;
/// let message = json!({"arguments": {"command": "ls"}});
/// assert_eq!(path.resolve(&message), Some(&json!("ls")));
/// # Ok::<(), oatf_primitives::PathError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimplePath {
    source: Box<str>,
    fields: Box<[Box<str>]>,
}

impl SimplePath {
    /// Parses a simple dot-path. The empty string is the root.
    pub fn parse(path: &str) -> Result<Self, PathError> {
        let fields = parse_segments(path, false)?
            .into_iter()
            .filter_map(|s| match s {
                Segment::Field(name) => Some(name),
                Segment::Wildcard => None,
            })
            .collect();
        Ok(SimplePath {
            source: path.into(),
            fields,
        })
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Resolves the path against `value`: the value at the path, or `None` when a segment meets a
    /// non-object, an array or a missing key. A path that resolves to JSON `null` gives `Some(&Value::Null)`.
    pub fn resolve<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.fields.iter().try_fold(value, |current, field| {
            field_of(current.as_object()?, field)
        })
    }
}

impl fmt::Display for SimplePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// A parsed wildcard dot-path (SDK §5.1.2), resolved by reference against any number of values.
///
/// ```
/// use oatf_primitives::WildcardPath;
/// use serde_json::json;
///
/// let path = WildcardPath::parse("tools[*].description")?;
/// let message = json!({"tools": [{"description": "A"}, {"description": "B"}]});
/// assert_eq!(path.resolve(&message), vec![&json!("A"), &json!("B")]);
/// # Ok::<(), oatf_primitives::PathError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WildcardPath {
    source: Box<str>,
    segments: Box<[Segment]>,
}

impl WildcardPath {
    /// Parses a wildcard dot-path. The empty string is the root.
    pub fn parse(path: &str) -> Result<Self, PathError> {
        Ok(WildcardPath {
            source: path.into(),
            segments: parse_segments(path, true)?.into_boxed_slice(),
        })
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the path contains a `[*]` segment (and so may resolve to more than one value).
    pub fn has_wildcard(&self) -> bool {
        self.segments.contains(&Segment::Wildcard)
    }

    /// Collects every value the path reaches, in document order.
    pub fn resolve<'v>(&self, value: &'v Value) -> Vec<&'v Value> {
        let mut out = Vec::new();
        let std::ops::ControlFlow::<std::convert::Infallible>::Continue(()) =
            self.try_for_each(value, &mut |v| {
                out.push(v);
                std::ops::ControlFlow::Continue(())
            });
        out
    }

    /// Whether any value the path reaches satisfies `predicate`; stops at the first that does.
    ///
    /// This is how an indicator applies OR semantics over a fan-out without collecting the values.
    pub fn any<'v>(&self, value: &'v Value, mut predicate: impl FnMut(&'v Value) -> bool) -> bool {
        self.try_for_each(value, &mut |v| {
            if predicate(v) {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        })
        .is_break()
    }

    /// Calls `f` on every value the path reaches, in document order, until `f` breaks.
    ///
    /// Traversal uses an explicit stack, so no input can exhaust the call stack; its depth is bounded by
    /// the number of segments ([`MAX_PATH_DEPTH`]).
    pub fn try_for_each<'v, B>(
        &self,
        value: &'v Value,
        f: &mut impl FnMut(&'v Value) -> std::ops::ControlFlow<B>,
    ) -> std::ops::ControlFlow<B> {
        use std::ops::ControlFlow;
        // Each frame is the remaining element iterator of a `[*]` fan-out and the segment index after it.
        let mut stack: Vec<(std::slice::Iter<'v, Value>, usize)> = Vec::new();
        let mut next: Option<(&'v Value, usize)> = Some((value, 0));
        loop {
            let (mut current, mut index) = match next.take() {
                Some(item) => item,
                None => match stack.last_mut() {
                    None => return ControlFlow::Continue(()),
                    Some((iter, after)) => match iter.next() {
                        Some(element) => (element, *after),
                        None => {
                            stack.pop();
                            continue;
                        }
                    },
                },
            };
            let mut reached = true;
            while let Some(segment) = self.segments.get(index) {
                match segment {
                    Segment::Field(name) => {
                        match current.as_object().and_then(|o| field_of(o, name)) {
                            Some(child) => {
                                current = child;
                                index += 1;
                            }
                            None => {
                                reached = false;
                                break;
                            }
                        }
                    }
                    Segment::Wildcard => {
                        if let Value::Array(items) = current {
                            stack.push((items.iter(), index + 1));
                        }
                        reached = false;
                        break;
                    }
                }
            }
            if reached {
                f(current)?;
            }
        }
    }
}

/// Where a [`WildcardPath`] stops resolving in a value: the field it missed and the object that lacks it
/// ([`WildcardPath::missing_field`]), so that a tool can say which keys were there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MissingField<'v> {
    /// The position of the missing field among the path's dot-separated segments (0 for the first).
    pub segment: usize,
    /// The object the path reached that has no such key.
    pub object: &'v serde_json::Map<String, Value>,
}

impl WildcardPath {
    /// The deepest field segment the path misses in `value`, with the object that lacks it; `None`
    /// when the path resolves, or stops at a value that is not an object (a string, a number, an
    /// array where a field was expected).
    ///
    /// ```
    /// use oatf_primitives::WildcardPath;
    /// use serde_json::json;
    ///
    /// let path = WildcardPath::parse("arguments.ulr")?;
    /// let message = json!({"arguments": {"url": "https://example.com"}});
    /// let missing = path.missing_field(&message).expect("`ulr` is missing");
    /// assert_eq!(missing.segment, 1);
    /// assert_eq!(missing.object.keys().collect::<Vec<_>>(), ["url"]);
    /// assert_eq!(path.with_segment(missing.segment, "url"), "arguments.url");
    /// # Ok::<(), oatf_primitives::PathError>(())
    /// ```
    pub fn missing_field<'v>(&self, value: &'v Value) -> Option<MissingField<'v>> {
        // Each frame is the remaining element iterator of a `[*]` fan-out, the segment index after
        // it and the number of field segments before it.
        let mut stack: Vec<(std::slice::Iter<'v, Value>, usize, usize)> = Vec::new();
        let mut next: Option<(&'v Value, usize, usize)> = Some((value, 0, 0));
        let mut deepest: Option<MissingField<'v>> = None;
        loop {
            let (mut current, mut index, mut fields) = match next.take() {
                Some(item) => item,
                None => match stack.last_mut() {
                    None => return deepest,
                    Some((iter, after, fields)) => match iter.next() {
                        Some(element) => (element, *after, *fields),
                        None => {
                            stack.pop();
                            continue;
                        }
                    },
                },
            };
            while let Some(segment) = self.segments.get(index) {
                match segment {
                    Segment::Field(name) => {
                        let Some(object) = current.as_object() else {
                            break;
                        };
                        match field_of(object, name) {
                            Some(child) => {
                                current = child;
                                index += 1;
                                fields += 1;
                            }
                            None => {
                                if deepest.is_none_or(|d| d.segment < fields) {
                                    deepest = Some(MissingField {
                                        segment: fields,
                                        object,
                                    });
                                }
                                break;
                            }
                        }
                    }
                    Segment::Wildcard => {
                        if let Value::Array(items) = current {
                            stack.push((items.iter(), index + 1, fields));
                        }
                        break;
                    }
                }
            }
            if index == self.segments.len() {
                // The path resolved.
                return None;
            }
        }
    }

    /// The path as written with its dot-separated segment number `segment` renamed `name` (a `[*]`
    /// after it is kept): the text of a "did you mean" suggestion.
    pub fn with_segment(&self, segment: usize, name: &str) -> String {
        self.source
            .split('.')
            .enumerate()
            .map(|(i, part)| {
                if i == segment {
                    let suffix = part.find('[').map_or("", |at| &part[at..]);
                    format!("{name}{suffix}")
                } else {
                    part.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(".")
    }
}

impl fmt::Display for WildcardPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Resolves a simple dot-path against `value` (SDK §5.1.1).
///
/// Returns `None` when the path does not resolve, including when it is not a valid simple dot-path
/// (a path with `[*]` or `[0]` never resolves). To resolve one path against many values, parse it once
/// with [`SimplePath::parse`].
pub fn resolve_simple_path<'v>(path: &str, value: &'v Value) -> Option<&'v Value> {
    SimplePath::parse(path).ok()?.resolve(value)
}

/// Resolves a wildcard dot-path against `value` (SDK §5.1.2): every value reached, in document order.
///
/// An invalid path (for example one with a numeric index) reaches nothing. To resolve one path against
/// many values, parse it once with [`WildcardPath::parse`].
pub fn resolve_wildcard_path<'v>(path: &str, value: &'v Value) -> Vec<&'v Value> {
    match WildcardPath::parse(path) {
        Ok(path) => path.resolve(value),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check_wildcard(path: &str, value: Value, expect: Vec<Value>) {
        let got: Vec<Value> = resolve_wildcard_path(path, &value)
            .into_iter()
            .cloned()
            .collect();
        assert_eq!(got, expect, "path {path:?}");
    }

    #[track_caller]
    fn check_error(path: &str, simple: bool, kind: PathErrorKind) {
        let err = if simple {
            SimplePath::parse(path).map(drop)
        } else {
            WildcardPath::parse(path).map(drop)
        };
        assert_eq!(err.map_err(|e| e.kind()), Err(kind), "path {path:?}");
    }

    #[test]
    fn wildcard_fan_out_keeps_document_order() {
        let value = json!({"a": [{"b": [1, 2]}, {"b": 3}, {"b": [4]}]});
        check_wildcard("a[*].b[*]", value, vec![json!(1), json!(2), json!(4)]);
    }

    #[test]
    fn wildcard_on_root_array_is_not_in_the_grammar() {
        check_error("[*]", false, PathErrorKind::InvalidBracket);
        check_error("a[0]", false, PathErrorKind::InvalidBracket);
        check_error("a[*", false, PathErrorKind::InvalidBracket);
        check_error("a[*]x", false, PathErrorKind::InvalidBracket);
        check_error("a]", false, PathErrorKind::InvalidBracket);
        check_error("a..b", false, PathErrorKind::EmptySegment);
        check_error(".a", false, PathErrorKind::EmptySegment);
        check_error("a.", false, PathErrorKind::EmptySegment);
        check_error("a b", false, PathErrorKind::InvalidCharacter(' '));
        check_error("a[*]", true, PathErrorKind::WildcardNotAllowed);
    }

    #[test]
    fn depth_limit_is_64_segments() {
        let ok = vec!["a"; MAX_PATH_DEPTH].join(".");
        assert!(WildcardPath::parse(&ok).is_ok());
        let too_deep = vec!["a"; MAX_PATH_DEPTH + 1].join(".");
        check_error(&too_deep, true, PathErrorKind::TooDeep);
        check_error(&too_deep, false, PathErrorKind::TooDeep);
    }

    #[test]
    fn any_stops_at_first_match() {
        let value = json!({"xs": [1, 2, 3, 4]});
        let path = WildcardPath::parse("xs[*]").unwrap();
        let mut seen = 0;
        assert!(path.any(&value, |v| {
            seen += 1;
            v == &json!(2)
        }));
        assert_eq!(seen, 2);
    }

    #[test]
    fn simple_path_resolves_null_leaf_and_root() {
        let value = json!({"a": {"b": null}});
        assert_eq!(resolve_simple_path("a.b", &value), Some(&Value::Null));
        assert_eq!(resolve_simple_path("", &value), Some(&value));
        assert_eq!(resolve_simple_path("a.b.c", &value), None);
    }
}
