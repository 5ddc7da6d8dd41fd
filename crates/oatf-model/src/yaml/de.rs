//! A serde `Deserializer` over the located node tree that knows the dot-path of every value, so each
//! deserialization error carries its path, line, column and byte span.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::node::{Key, Node, NodeKind, join_index, join_key};
use crate::error::{ParseError, ParseErrorKind};
use crate::span::Location;
use crate::types::collect;

/// A deserialization error, located by the innermost node that saw it.
#[derive(Debug)]
pub(crate) struct DeError {
    kind: ParseErrorKind,
    message: String,
    missing_field: Option<&'static str>,
    key_fault: bool,
    /// Already recorded by the collector of `parse` (see `types::collect`).
    recorded: bool,
    located: Option<(String, Location)>,
}

impl DeError {
    fn new(kind: ParseErrorKind, message: String) -> Self {
        DeError {
            kind,
            message,
            missing_field: None,
            key_fault: false,
            recorded: false,
            located: None,
        }
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
            error.line = Some(location.line);
            error.column = Some(location.column);
            error.span = Some(location.span.clone());
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
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    /// The path as diagnostics write it ([`join_key`], [`join_index`]).
    fn render(&self) -> String {
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

/// Deserializer over one node at a known path. It moves the node's strings out of the tree (the
/// tree stays behind as the span index, which needs only keys and locations).
pub(crate) struct NodeDe<'a, 'p> {
    node: &'a mut Node,
    path: Path<'p>,
}

impl<'a> NodeDe<'a, 'static> {
    /// The deserializer of the document root.
    pub(crate) fn root(node: &'a mut Node) -> Self {
        NodeDe {
            node,
            path: Path::Root,
        }
    }
}

/// Attaches the location of the node at `path` to an error that has none yet.
fn locate(
    path: &Path<'_>,
    location: &Location,
    mut error: DeError,
    last_key: Option<&Key>,
) -> DeError {
    if error.located.is_some() {
        return error;
    }
    if let Some(field) = error.missing_field {
        error.located = Some((join_key(&path.render(), field), location.clone()));
    } else if let (true, Some(key)) = (error.key_fault, last_key) {
        error.located = Some((join_key(&path.render(), &key.text), key.location.clone()));
    } else {
        error.located = Some((path.render(), location.clone()));
    }
    error
}

impl<'de> de::Deserializer<'de> for NodeDe<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let NodeDe { node, path } = self;
        let result = match &mut node.kind {
            NodeKind::Null => visitor.visit_unit(),
            NodeKind::Bool(b) => visitor.visit_bool(*b),
            NodeKind::Int(i) => visitor.visit_i64(*i),
            NodeKind::UInt(u) => visitor.visit_u64(*u),
            NodeKind::Float(f) => visitor.visit_f64(*f),
            // Each node is read once: its string moves into the document.
            NodeKind::Str(s) => visitor.visit_string(std::mem::take(s)),
            NodeKind::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter_mut(),
                index: 0,
                path: &path,
            }),
            NodeKind::Map(entries) => {
                let last_key = Cell::new(None);
                collect::enter_map();
                let result = visitor.visit_map(MapDe {
                    entries: entries.iter_mut(),
                    value: None,
                    path: &path,
                    last_key: &last_key,
                });
                collect::leave_map(result.is_ok(), || path.render());
                return result.map_err(|e| locate(&path, &node.location, e, last_key.get()));
            }
        };
        result.map_err(|e| locate(&path, &node.location, e, None))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.node.kind {
            NodeKind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
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
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct SeqDe<'a, 'p> {
    items: std::slice::IterMut<'a, Node>,
    index: usize,
    path: &'p Path<'p>,
}

impl<'de> SeqAccess<'de> for SeqDe<'_, '_> {
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
        seed.deserialize(NodeDe { node, path }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a, 'p> {
    entries: std::slice::IterMut<'a, (Key, Node)>,
    value: Option<(&'a mut Node, &'a Key)>,
    path: &'p Path<'p>,
    /// The key read last, where an error about a key (unknown, duplicate) is located.
    last_key: &'p Cell<Option<&'a Key>>,
}

impl<'de> MapAccess<'de> for MapDe<'_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((key, node)) = self.entries.next() else {
            return Ok(None);
        };
        let key: &Key = key;
        self.last_key.set(Some(key));
        self.value = Some((node, key));
        let de: de::value::StrDeserializer<'_, DeError> = key.text.as_str().into_deserializer();
        seed.deserialize(de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((node, key)) = self.value.take() else {
            return Err(de::Error::custom("value requested before its key"));
        };
        let location = node.location.clone();
        let path = Path::Key(self.path, &key.text);
        seed.deserialize(NodeDe { node, path }).map_err(|mut e| {
            // The path is written out only on failure.
            let path = path.render();
            // An unknown key is reported by a seed that never reads its value: locate it at the key.
            if e.located.is_none() {
                let location = if e.key_fault {
                    key.location.clone()
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
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}
