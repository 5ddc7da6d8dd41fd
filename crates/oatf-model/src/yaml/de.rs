//! A serde `Deserializer` over the located node tree that knows the dot-path of every value, so each
//! deserialization error carries its path, line, column and byte span.

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::node::{Key, Node, NodeKind, join_key};
use crate::de::{DeError, Path};
use crate::span::Location;
use crate::types::collect;

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
        error.located = Some((join_key(&path.render(), field), Some(location.clone())));
    } else if let (true, Some(key)) = (error.key_fault, last_key) {
        error.located = Some((
            join_key(&path.render(), &key.text),
            Some(key.location.clone()),
        ));
    } else {
        error.located = Some((path.render(), Some(location.clone())));
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
                e.located = Some((path.clone(), Some(location)));
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
