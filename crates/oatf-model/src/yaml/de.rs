//! The YAML reader's located node tree as a [`TreeNode`], so the document deserializer
//! ([`crate::de::TreeDe`]) reads it knowing the path, line, column and byte span of every value.

use std::borrow::Cow;

use crate::de::{TreeKey, TreeNode, TreeValue};
use crate::span::{Key, Location, Node, NodeKind};

/// The entries of a mapping node, each key with its location.
pub(crate) struct Entries<'a>(std::slice::IterMut<'a, (Key, Node)>);

impl<'a> Iterator for Entries<'a> {
    type Item = (TreeKey<'a>, &'a mut Node);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, node) = self.0.next()?;
        let key: &'a Key = key;
        let key = TreeKey {
            text: &key.text,
            location: Some(&key.location),
        };
        Some((key, node))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// A node is read once: its strings move out of the tree into the document (the tree stays
/// behind as the span index, which needs only keys and locations).
impl<'a> TreeNode<'a> for &'a mut Node {
    type Items = std::slice::IterMut<'a, Node>;
    type Entries = Entries<'a>;

    fn location(&self) -> Option<Location> {
        Some(self.location.clone())
    }

    fn is_null(&self) -> bool {
        matches!(self.kind, NodeKind::Null)
    }

    // Once for every type read, not inlined into each (D-220).
    #[inline(never)]
    fn into_parts(self) -> (Option<&'a Location>, TreeValue<'a, Self>) {
        let Node { kind, location } = self;
        let value = match kind {
            NodeKind::Null => TreeValue::Null,
            NodeKind::Bool(b) => TreeValue::Bool(*b),
            NodeKind::Int(i) => TreeValue::Int(*i),
            NodeKind::UInt(u) => TreeValue::UInt(*u),
            NodeKind::Float(f) => TreeValue::Float(*f),
            NodeKind::Str(s) => TreeValue::Str(Cow::Owned(std::mem::take(s))),
            NodeKind::Seq(items) => TreeValue::Seq(items.iter_mut()),
            NodeKind::Map(entries) => TreeValue::Map(Entries(entries.iter_mut())),
        };
        (Some(location), value)
    }
}
