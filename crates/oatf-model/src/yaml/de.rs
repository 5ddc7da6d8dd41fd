//! A serde `Deserializer` over the located node tree that knows the dot-path of every value, so each
//! deserialization error carries its path, line, column and byte span.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::node::{Key, Node, NodeKind, join_index, join_key};
use crate::error::{ParseError, ParseErrorKind};
use crate::span::Location;

/// A deserialization error, located by the innermost node that saw it.
#[derive(Debug)]
pub(crate) struct DeError {
    kind: ParseErrorKind,
    message: String,
    missing_field: Option<&'static str>,
    key_fault: bool,
    located: Option<(String, Location)>,
}

impl DeError {
    fn new(kind: ParseErrorKind, message: String) -> Self {
        DeError {
            kind,
            message,
            missing_field: None,
            key_fault: false,
            located: None,
        }
    }

    pub(crate) fn into_parse_error(self) -> ParseError {
        let mut error = ParseError::new(self.kind, self.message);
        if let Some((path, location)) = self.located {
            error.path = Some(path);
            error.line = Some(location.line);
            error.column = Some(location.column);
            error.span = Some(location.span);
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
        let found = match unexp {
            de::Unexpected::Bool(_) => "a boolean".to_owned(),
            de::Unexpected::Unsigned(_) | de::Unexpected::Signed(_) => "an integer".to_owned(),
            de::Unexpected::Float(_) => "a float".to_owned(),
            de::Unexpected::Str(_) => "a string".to_owned(),
            de::Unexpected::Unit => "null".to_owned(),
            de::Unexpected::Seq => "a sequence".to_owned(),
            de::Unexpected::Map => "a mapping".to_owned(),
            other => other.to_string(),
        };
        DeError::new(
            ParseErrorKind::TypeMismatch,
            format!("expected {exp}, found {found}"),
        )
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let shown: String = variant.chars().take(64).collect();
        DeError::new(
            ParseErrorKind::UnknownVariant,
            format!(
                "unknown value `{shown}`, expected one of {}{}",
                expected.join(", "),
                crate::suggest::hint(variant, expected.iter().copied())
            ),
        )
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let shown: String = field.chars().take(64).collect();
        let mut e = DeError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "unknown field `{shown}`, expected one of {}{}",
                expected.join(", "),
                crate::suggest::hint(field, expected.iter().copied())
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
                crate::types::missing::enter_map();
                let result = visitor.visit_map(MapDe {
                    entries: entries.iter(),
                    value: None,
                    path: &self.path,
                    last_key: &last_key,
                });
                crate::types::missing::leave_map(&self.path, result.is_ok());
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
    value: Option<(&'a Node, String)>,
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
        self.value = Some((node, path));
        let de: de::value::StrDeserializer<'_, DeError> = key.text.as_str().into_deserializer();
        seed.deserialize(de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        match self.value.take() {
            Some((node, path)) => seed.deserialize(NodeDe { node, path }),
            None => Err(de::Error::custom("value requested before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}
