//! Source locations: the located YAML tree that `parse` reads, the dot-path syntax of diagnostics
//! (spec-decisions 1a), and the index that finds a node's location by its dot-path.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

/// A location in the YAML source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    /// Byte range of the node.
    pub(crate) span: Range<usize>,
    /// 1-based line of the start.
    pub(crate) line: usize,
    /// 1-based column (in characters) of the start.
    pub(crate) column: usize,
}

/// A YAML node with its source location.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub(crate) kind: NodeKind,
    pub(crate) location: Location,
}

/// The value of a node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NodeKind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Key, Node)>),
}

/// A mapping key (always a scalar, read as its text).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Key {
    pub(crate) text: String,
    pub(crate) location: Location,
}

impl NodeKind {
    /// How the kind is named in messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "a boolean",
            NodeKind::Int(_) | NodeKind::UInt(_) => "an integer",
            NodeKind::Float(_) => "a float",
            NodeKind::Str(_) => "a string",
            NodeKind::Seq(_) => "a sequence",
            NodeKind::Map(_) => "a mapping",
        }
    }
}

/// The dot-path of `key` inside the node at `path` (`attack` + `name` → `attack.name`; at the root,
/// the key alone).
pub(crate) fn join_key(path: &str, key: &str) -> String {
    if path.is_empty() {
        return key.to_owned();
    }
    let mut joined = String::with_capacity(path.len() + 1 + key.len());
    joined.push_str(path);
    joined.push('.');
    joined.push_str(key);
    joined
}

/// The dot-path of item `index` of the sequence at `path` (`attack.indicators[2]`).
pub(crate) fn join_index(path: &str, index: usize) -> String {
    use std::fmt::Write as _;
    let mut joined = String::with_capacity(path.len() + 6);
    joined.push_str(path);
    let _ = write!(joined, "[{index}]");
    joined
}

/// The location of every node of a parsed document, found by dot-path.
///
/// It keeps the located tree (its string values are moved into the document while it is read, so
/// what stays is the keys and the locations) and builds the dot-path index on the first lookup:
/// a document without a diagnostic never builds a path.
#[derive(Debug)]
pub(crate) struct SpanIndex {
    root: Node,
    nodes: OnceLock<HashMap<String, Location>>,
}

impl SpanIndex {
    pub(crate) fn new(root: Node) -> Self {
        SpanIndex {
            root,
            nodes: OnceLock::new(),
        }
    }

    /// The location of `path`, or of its nearest ancestor that has one.
    pub(crate) fn locate(&self, path: &str) -> Option<&Location> {
        let nodes = self.nodes.get_or_init(|| index(&self.root));
        let mut current = path;
        loop {
            if let Some(location) = nodes.get(current) {
                return Some(location);
            }
            current = parent_path(current)?;
        }
    }

    pub(crate) fn span_of(&self, path: &str) -> Option<Range<usize>> {
        self.locate(path).map(|l| l.span.clone())
    }
}

/// Dot-path → location of every node under `root`, children before their parent and in document
/// order otherwise; when two nodes have the same path (duplicate keys, keys holding a dot), the
/// first one keeps it. Walked with an explicit stack.
fn index(root: &Node) -> HashMap<String, Location> {
    let mut nodes = HashMap::new();
    let mut stack: Vec<(&Node, String, usize)> = vec![(root, String::new(), 0)];
    while let Some((node, path, next)) = stack.last_mut() {
        let child = match &node.kind {
            NodeKind::Seq(items) => items.get(*next).map(|c| (c, join_index(path, *next))),
            NodeKind::Map(entries) => entries
                .get(*next)
                .map(|(key, c)| (c, join_key(path, &key.text))),
            _ => None,
        };
        *next += 1;
        match child {
            Some((child, path)) => stack.push((child, path, 0)),
            None => {
                if let Some((node, path, _)) = stack.pop() {
                    nodes.entry(path).or_insert_with(|| node.location.clone());
                }
            }
        }
    }
    nodes
}

/// The parent of a dot-path (`a.b[2]` → `a.b`, `a.b` → `a`, `a` → ``), `None` for the root.
pub(crate) fn parent_path(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    if path.ends_with(']')
        && let Some(open) = path.rfind('[')
    {
        return path.get(..open);
    }
    match path.rfind('.') {
        Some(dot) => path.get(..dot),
        None => Some(""),
    }
}
