//! The one deserializer of documents ([`TreeDe`]), over any tree of values ([`TreeNode`]: YAML's
//! located tree in `yaml/de.rs`, JSON values in `json.rs`): it knows the dot-path of the value it
//! reads and locates each error there (D-176). This module also owns the error (with the words of
//! its messages, "did you mean" for unknown keys and values), the borrowed path of the value being
//! read, and the collection of every error of a document in one run (`types::collect`).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{ParseError, ParseErrorKind};
use crate::span::{Location, join_index, join_key};
use crate::types::Document;
use crate::types::collect::{self, CollectGuard};

/// A deserialization error, located by the innermost node that saw it. Boxed: every value read
/// returns a `Result<T, DeError>` through code instantiated once per type, where a pointer moves in
/// less code than the error would (D-220).
#[derive(Debug)]
pub(crate) struct DeError(Box<ErrorInner>);

/// What a [`DeError`] holds.
#[derive(Debug)]
pub(crate) struct ErrorInner {
    kind: ParseErrorKind,
    message: String,
    pub(crate) missing_field: Option<&'static str>,
    pub(crate) key_fault: bool,
    /// Already recorded by the collector of `parse` (see `types::collect`).
    pub(crate) recorded: bool,
    /// The path of the value and its source location (none for a document read from JSON).
    pub(crate) located: Option<(String, Option<Location>)>,
}

impl std::ops::Deref for DeError {
    type Target = ErrorInner;

    fn deref(&self) -> &ErrorInner {
        &self.0
    }
}

impl std::ops::DerefMut for DeError {
    fn deref_mut(&mut self) -> &mut ErrorInner {
        &mut self.0
    }
}

impl DeError {
    fn new(kind: ParseErrorKind, message: String) -> Self {
        DeError(Box::new(ErrorInner {
            kind,
            message,
            missing_field: None,
            key_fault: false,
            recorded: false,
            located: None,
        }))
    }

    /// Whether the collector of `parse` already holds this error.
    pub(crate) fn recorded(&self) -> bool {
        self.recorded
    }

    pub(crate) fn to_parse_error(&self) -> ParseError {
        let mut error = ParseError::new(self.kind, self.message.clone());
        error.unknown_field = self.key_fault && self.kind == ParseErrorKind::TypeMismatch;
        if let Some((path, location)) = &self.located {
            error.path = Some(path.clone());
            if let Some(location) = location {
                error.line = Some(location.line);
                error.column = Some(location.column);
                error.span = Some(location.span.clone());
            }
        }
        error
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

fn lower(text: String) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if first.is_uppercase() => {
            let mut out: String = first.to_lowercase().collect();
            out.push_str(chars.as_str());
            out
        }
        _ => text,
    }
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::new(ParseErrorKind::TypeMismatch, lower(msg.to_string()))
    }

    fn invalid_type(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "expected {}, found {}",
                expected_in_words(&exp.to_string()),
                found_in_words(&unexp)
            ),
        )
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let shown: String = variant.chars().take(64).collect();
        DeError::new(
            ParseErrorKind::UnknownVariant,
            format!(
                "unknown value `{shown}`{}",
                crate::suggest::one_of(variant, expected)
            ),
        )
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let shown: String = field.chars().take(64).collect();
        let mut e = DeError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "unknown field `{shown}`{}",
                crate::suggest::one_of(field, expected)
            ),
        );
        e.key_fault = true;
        e
    }

    fn missing_field(field: &'static str) -> Self {
        let mut e = DeError::new(
            ParseErrorKind::TypeMismatch,
            format!("missing required field `{field}`"),
        );
        e.missing_field = Some(field);
        e
    }

    fn duplicate_field(field: &'static str) -> Self {
        let mut e = DeError::new(ParseErrorKind::Syntax, format!("duplicate field `{field}`"));
        e.key_fault = true;
        e
    }
}

/// What a visitor expects, in the words of a YAML author rather than of Rust (`i64` is "an integer").
fn expected_in_words(expected: &str) -> String {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32" | "u64" | "u128" => {
            "an integer".to_owned()
        }
        "f32" | "f64" => "a number".to_owned(),
        "a sequence" => "a list".to_owned(),
        "a map" => "a mapping".to_owned(),
        "a borrowed string" | "a character" => "a string".to_owned(),
        "unit" => "null".to_owned(),
        other => other.to_owned(),
    }
}

/// What was found, with the value when it is a scalar (`the string "high"`, `the integer 5`).
fn found_in_words(found: &de::Unexpected<'_>) -> String {
    match found {
        de::Unexpected::Bool(b) => format!("the boolean {b}"),
        de::Unexpected::Unsigned(u) => format!("the integer {u}"),
        de::Unexpected::Signed(i) => format!("the integer {i}"),
        de::Unexpected::Float(f) => format!("the number {f}"),
        de::Unexpected::Str(s) => format!("the string {}", quoted(s)),
        de::Unexpected::Unit => "null".to_owned(),
        de::Unexpected::Seq => "a list".to_owned(),
        de::Unexpected::Map => "a mapping".to_owned(),
        other => other.to_string(),
    }
}

/// A string as a double-quoted literal, shortened to 64 characters.
fn quoted(text: &str) -> String {
    const MAX: usize = 64;
    let mut shown: String = text.chars().take(MAX).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    serde_json::to_string(&shown).unwrap_or_default()
}

/// The dot-path of the node being read, as a chain of borrowed segments: it is written out only
/// when an error or a missing field needs it, so reading a valid document builds no path.
#[derive(Clone, Copy)]
pub(crate) enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    /// The path as diagnostics write it ([`join_key`], [`join_index`]).
    pub(crate) fn render(&self) -> String {
        let mut segments = Vec::new();
        let mut current = self;
        loop {
            match current {
                Path::Root => break,
                Path::Key(parent, _) | Path::Index(parent, _) => {
                    segments.push(current);
                    current = parent;
                }
            }
        }
        let mut path = String::new();
        for segment in segments.iter().rev() {
            path = match segment {
                Path::Key(_, key) => join_key(&path, key),
                Path::Index(_, index) => join_index(&path, *index),
                Path::Root => path,
            };
        }
        path
    }
}

/// Deserializes a document with `read` while collecting every error (`types::collect`): the
/// document (when it could be read at all), the errors, and the fields left out (D-67), with the
/// missing required fields recorded in the document.
pub(crate) fn collect_document(
    read: impl FnOnce() -> Result<Document, DeError>,
) -> (Option<Document>, Vec<ParseError>, Vec<String>) {
    let collect = CollectGuard::start();
    let result = read();
    let collected = collect.take();
    let mut errors = collected.errors;
    if collected.more > 0 {
        errors.push(ParseError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "{} more errors of the same kinds after the first {}",
                collected.more,
                collect::MAX_ERRORS
            ),
        ));
    }
    let mut document = None;
    let mut dropped = Vec::new();
    match result {
        Ok(mut doc) => {
            doc.source.missing_fields = collected.missing;
            document = Some(doc);
            dropped = collected.dropped;
        }
        Err(e) if !e.recorded() => errors.push(e.to_parse_error()),
        Err(_) => {}
    }
    for error in &mut errors {
        // `oatf: 0.1` (a float) is a type mismatch that is also a V-001 fault.
        if error.rule.is_none() && error.path.as_deref() == Some("oatf") {
            error.rule = Some(crate::rules::Rule::V001);
        }
    }
    (document, errors, dropped)
}

/// A node of a tree that a document is read from: the YAML reader's located node or a JSON value.
/// [`TreeDe`] reads any of them.
pub(crate) trait TreeNode<'a>: Sized {
    /// The items of a sequence.
    type Items: ExactSizeIterator<Item = Self>;
    /// The entries of a mapping, in order.
    type Entries: ExactSizeIterator<Item = (TreeKey<'a>, Self)>;

    /// Where the node is in the source (none for a JSON value).
    fn location(&self) -> Option<Location>;

    /// Whether the node is `null`.
    fn is_null(&self) -> bool;

    /// Where the node is in the source, and what it holds (a string may move out of the tree).
    fn into_parts(self) -> (Option<&'a Location>, TreeValue<'a, Self>);
}

/// A key of a mapping in a tree, and where it is in the source.
#[derive(Clone, Copy)]
pub(crate) struct TreeKey<'a> {
    pub(crate) text: &'a str,
    pub(crate) location: Option<&'a Location>,
}

/// What a node of a tree holds.
pub(crate) enum TreeValue<'a, N: TreeNode<'a>> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    Seq(N::Items),
    Map(N::Entries),
    /// A value a document cannot hold (a JSON number out of range), with what is wrong.
    Invalid(&'static str),
}

/// The deserializer of one node of a tree at a known path.
pub(crate) struct TreeDe<'p, N> {
    node: N,
    path: Path<'p>,
}

impl<N> TreeDe<'static, N> {
    /// The deserializer of the document root.
    pub(crate) fn root(node: N) -> Self {
        TreeDe {
            node,
            path: Path::Root,
        }
    }
}

/// Attaches the place of the node at `path` (at `location` in the source, when known) to an error
/// that has none yet: a missing field at its would-be path, an error about a key (unknown,
/// duplicate) at the key read last.
///
/// This and the other error paths of the deserializer are functions of their own, never inlined:
/// the deserializer is instantiated once per type it reads, and only its calls to the visitor need
/// to be (D-220).
#[inline(never)]
fn locate(
    path: &Path<'_>,
    location: Option<&Location>,
    mut error: DeError,
    last_key: Option<TreeKey<'_>>,
) -> DeError {
    if error.located.is_some() {
        return error;
    }
    error.located = Some(if let Some(field) = error.missing_field {
        (join_key(&path.render(), field), location.cloned())
    } else if let (true, Some(key)) = (error.key_fault, last_key) {
        (join_key(&path.render(), key.text), key.location.cloned())
    } else {
        (path.render(), location.cloned())
    });
    error
}

/// Closes the frame of a mapping read at `path` (`types::collect`).
#[inline(never)]
fn map_read(path: &Path<'_>) {
    collect::leave_map(true, || path.render());
}

/// Closes the frame of a mapping that failed at `path` and locates its error.
#[inline(never)]
fn map_failed(
    path: &Path<'_>,
    location: Option<&Location>,
    error: DeError,
    last_key: Option<TreeKey<'_>>,
) -> DeError {
    collect::leave_map(false, || path.render());
    locate(path, location, error, last_key)
}

/// Locates and records (while `parse` collects) the error of the value of `key` read at `path`.
#[inline(never)]
fn value_failed(
    mut e: DeError,
    path: &Path<'_>,
    location: Option<Location>,
    key: TreeKey<'_>,
) -> DeError {
    // The path is written out only on failure.
    let path = path.render();
    // An unknown key is reported by a seed that never reads its value: locate it at the key.
    if e.located.is_none() {
        let location = if e.key_fault {
            key.location.cloned()
        } else {
            location
        };
        e.located = Some((path.clone(), location));
    }
    if collect::collecting() {
        let fresh = (!e.recorded).then(|| e.to_parse_error());
        e.recorded = true;
        collect::record(fresh, &path);
    }
    e
}

/// Reads a sequence node with `visitor`.
fn visit_seq<'de, 'a, N: TreeNode<'a>, V: Visitor<'de>>(
    items: N::Items,
    path: &Path<'_>,
    visitor: V,
) -> Result<V::Value, DeError> {
    visitor.visit_seq(SeqDe::<N> {
        items,
        index: 0,
        path,
    })
}

/// Reads a mapping node with `visitor`, in a frame of `types::collect`; an error is located at the
/// mapping, or at its key read last when it is about a key.
fn visit_map<'de, 'a, N: TreeNode<'a>, V: Visitor<'de>>(
    entries: N::Entries,
    path: &Path<'_>,
    location: Option<&Location>,
    visitor: V,
) -> Result<V::Value, DeError> {
    let last_key = Cell::new(None);
    collect::enter_map();
    let result = visitor.visit_map(MapDe::<N> {
        entries,
        value: None,
        location: None,
        path,
        last_key: &last_key,
    });
    if result.is_ok() {
        map_read(path);
    }
    result.map_err(|e| map_failed(path, location, e, last_key.get()))
}

/// The located error of a node that is not what `expected` asks for: serde's `invalid type` with
/// what the node is, as the default `visit_*` methods give it (`Invalid` says what is wrong itself).
fn not_a<'a, N: TreeNode<'a>>(
    found: TreeValue<'a, N>,
    expected: &dyn de::Expected,
    path: &Path<'_>,
    location: Option<&Location>,
) -> DeError {
    let found = match &found {
        TreeValue::Null => de::Unexpected::Unit,
        TreeValue::Bool(b) => de::Unexpected::Bool(*b),
        TreeValue::Int(i) => de::Unexpected::Signed(*i),
        TreeValue::UInt(u) => de::Unexpected::Unsigned(*u),
        TreeValue::Float(f) => de::Unexpected::Float(*f),
        TreeValue::Str(s) => de::Unexpected::Str(s),
        TreeValue::Seq(_) => de::Unexpected::Seq,
        TreeValue::Map(_) => de::Unexpected::Map,
        TreeValue::Invalid(what) => {
            return locate(path, location, de::Error::custom(what), None);
        }
    };
    locate(
        path,
        location,
        de::Error::invalid_type(found, expected),
        None,
    )
}

impl<'de, 'a, N: TreeNode<'a>> de::Deserializer<'de> for TreeDe<'_, N> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let TreeDe { node, path } = self;
        let (location, value) = node.into_parts();
        let result = match value {
            TreeValue::Null => visitor.visit_unit(),
            TreeValue::Bool(b) => visitor.visit_bool(b),
            TreeValue::Int(i) => visitor.visit_i64(i),
            TreeValue::UInt(u) => visitor.visit_u64(u),
            TreeValue::Float(f) => visitor.visit_f64(f),
            TreeValue::Str(Cow::Owned(s)) => visitor.visit_string(s),
            TreeValue::Str(Cow::Borrowed(s)) => visitor.visit_str(s),
            TreeValue::Invalid(what) => Err(de::Error::custom(what)),
            TreeValue::Seq(items) => visit_seq::<N, V>(items, &path, visitor),
            TreeValue::Map(entries) => return visit_map::<N, V>(entries, &path, location, visitor),
        };
        result.map_err(|e| locate(&path, location, e, None))
    }

    // A type that asks for a mapping, a list or a string gets it, or the error serde's default
    // `visit_*` methods would give for anything else (what serde_json's own deserializer does): those
    // methods are then not compiled once per type read (D-220). No visitor the model reads this way
    // accepts anything else.

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let TreeDe { node, path } = self;
        match node.into_parts() {
            (location, TreeValue::Map(entries)) => {
                visit_map::<N, V>(entries, &path, location, visitor)
            }
            (location, other) => Err(not_a(other, &visitor, &path, location)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let TreeDe { node, path } = self;
        match node.into_parts() {
            (location, TreeValue::Seq(items)) => visit_seq::<N, V>(items, &path, visitor)
                .map_err(|e| locate(&path, location, e, None)),
            (location, other) => Err(not_a(other, &visitor, &path, location)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let TreeDe { node, path } = self;
        let (location, value) = node.into_parts();
        let result = match value {
            TreeValue::Str(Cow::Owned(s)) => visitor.visit_string(s),
            TreeValue::Str(Cow::Borrowed(s)) => visitor.visit_str(s),
            other => return Err(not_a(other, &visitor, &path, location)),
        };
        result.map_err(|e| locate(&path, location, e, None))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.node.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        bytes byte_buf unit unit_struct tuple
        tuple_struct struct enum identifier ignored_any
    }
}

struct SeqDe<'a, 'p, N: TreeNode<'a>> {
    items: N::Items,
    index: usize,
    path: &'p Path<'p>,
}

impl<'de, 'a, N: TreeNode<'a>> SeqAccess<'de> for SeqDe<'a, '_, N> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(node) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(self.path, self.index);
        self.index += 1;
        seed.deserialize(TreeDe { node, path }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a, 'p, N: TreeNode<'a>> {
    entries: N::Entries,
    /// The value of the key read last, until it is read.
    value: Option<N>,
    /// Where the value being read is, for its error.
    location: Option<Location>,
    path: &'p Path<'p>,
    /// The key read last, where an error about a key (unknown, duplicate) is located, and whose
    /// value is read next.
    last_key: &'p Cell<Option<TreeKey<'a>>>,
}

impl<'a, N: TreeNode<'a>> MapDe<'a, '_, N> {
    /// The value of the key read last, and its key; its location is kept for an error. Not
    /// inlined, as the other paths of the deserializer that do not depend on the type read (D-220).
    #[inline(never)]
    fn take_value(&mut self) -> Result<(N, &'a str), DeError> {
        match (self.value.take(), self.last_key.get()) {
            (Some(node), Some(key)) => {
                self.location = node.location();
                Ok((node, key.text))
            }
            _ => Err(de::Error::custom("value requested before its key")),
        }
    }

    /// Locates and records the error of the value read last ([`value_failed`]).
    #[inline(never)]
    fn value_failed(&mut self, e: DeError) -> DeError {
        match self.last_key.get() {
            Some(key) => value_failed(
                e,
                &Path::Key(self.path, key.text),
                self.location.take(),
                key,
            ),
            None => e,
        }
    }
}

impl<'de, 'a, N: TreeNode<'a>> MapAccess<'de> for MapDe<'a, '_, N> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((key, node)) = self.entries.next() else {
            return Ok(None);
        };
        self.last_key.set(Some(key));
        self.value = Some(node);
        let de: de::value::StrDeserializer<'_, DeError> = key.text.into_deserializer();
        seed.deserialize(de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let (node, key) = self.take_value()?;
        let path = Path::Key(self.path, key);
        match seed.deserialize(TreeDe { node, path }) {
            Ok(value) => Ok(value),
            Err(e) => Err(self.value_failed(e)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}
