//! A serde `Deserializer` over the located node tree that knows the dot-path of every value, so each
//! deserialization error carries its path, line, column and byte span.

use std::cell::RefCell;
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

/// Deserializer over one node at a known path.
pub(crate) struct NodeDe<'a> {
    pub(crate) node: &'a Node,
    pub(crate) path: String,
}

impl<'a> NodeDe<'a> {
    /// Attaches this node's location to an error that has none yet.
    fn locate(&self, mut error: DeError, last_key: Option<(String, Location)>) -> DeError {
        if error.located.is_some() {
            return error;
        }
        if let Some(field) = error.missing_field {
            error.located = Some((join_key(&self.path, field), self.node.location.clone()));
        } else if error.key_fault && last_key.is_some() {
            error.located = last_key;
        } else {
            error.located = Some((self.path.clone(), self.node.location.clone()));
        }
        error
    }
}

impl<'de, 'a> de::Deserializer<'de> for NodeDe<'a> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let result = match &self.node.kind {
            NodeKind::Null => visitor.visit_unit(),
            NodeKind::Bool(b) => visitor.visit_bool(*b),
            NodeKind::Int(i) => visitor.visit_i64(*i),
            NodeKind::UInt(u) => visitor.visit_u64(*u),
            NodeKind::Float(f) => visitor.visit_f64(*f),
            NodeKind::Str(s) => visitor.visit_str(s),
            NodeKind::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter(),
                index: 0,
                path: &self.path,
            }),
            NodeKind::Map(entries) => {
                let last_key = RefCell::new(None);
                collect::enter_map();
                let result = visitor.visit_map(MapDe {
                    entries: entries.iter(),
                    value: None,
                    path: &self.path,
                    last_key: &last_key,
                });
                collect::leave_map(&self.path, result.is_ok());
                return result.map_err(|e| {
                    let key = last_key.borrow_mut().take();
                    self.locate(e, key)
                });
            }
        };
        result.map_err(|e| self.locate(e, None))
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
    items: std::slice::Iter<'a, Node>,
    index: usize,
    path: &'p str,
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
        let path = join_index(self.path, self.index);
        self.index += 1;
        seed.deserialize(NodeDe { node, path }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a, 'p> {
    entries: std::slice::Iter<'a, (Key, Node)>,
    value: Option<(&'a Node, String, &'a Key)>,
    path: &'p str,
    last_key: &'p RefCell<Option<(String, Location)>>,
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
        let path = join_key(self.path, &key.text);
        *self.last_key.borrow_mut() = Some((path.clone(), key.location.clone()));
        self.value = Some((node, path, key));
        let de: de::value::StrDeserializer<'_, DeError> = key.text.as_str().into_deserializer();
        seed.deserialize(de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((node, path, key)) = self.value.take() else {
            return Err(de::Error::custom("value requested before its key"));
        };
        seed.deserialize(NodeDe { node, path }).map_err(|mut e| {
            // The path is built again only on failure, so a value costs no second allocation.
            let path = join_key(self.path, &key.text);
            // An unknown key is reported by a seed that never reads its value: locate it at the key.
            if e.located.is_none() {
                let location = if e.key_fault {
                    &key.location
                } else {
                    &node.location
                };
                e.located = Some((path.clone(), location.clone()));
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
