//! Source locations: the located YAML tree that `parse` reads, the dot-path syntax of diagnostics
//! (spec-decisions 1a), and the index that finds a node's location by its dot-path.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

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
/// what stays is the keys and the locations). The first lookups walk down the tree along the path;
/// after [`WALKED_LOOKUPS`] of them, the dot-path index of every node is built once and used for the
/// rest, so a document with no diagnostic never builds a path, and one with many diagnostics
/// looks each up in constant time.
#[derive(Debug)]
pub(crate) struct SpanIndex {
    root: Node,
    lookups: AtomicUsize,
    nodes: OnceLock<HashMap<String, Location>>,
}

/// Lookups answered by walking the tree before the index of every path is built.
const WALKED_LOOKUPS: usize = 16;

impl SpanIndex {
    pub(crate) fn new(root: Node) -> Self {
        SpanIndex {
            root,
            lookups: AtomicUsize::new(0),
            nodes: OnceLock::new(),
        }
    }

    /// The location of `path`, or of its nearest ancestor that has one.
    pub(crate) fn locate(&self, path: &str) -> Option<&Location> {
        let nodes = match self.nodes.get() {
            Some(nodes) => Some(nodes),
            None if self.lookups.fetch_add(1, Ordering::Relaxed) < WALKED_LOOKUPS => None,
            None => Some(self.nodes.get_or_init(|| index(&self.root))),
        };
        let mut current = path;
        loop {
            let found = match nodes {
                Some(nodes) => nodes.get(current),
                None => find(&self.root, current),
            };
            if let Some(location) = found {
                return Some(location);
            }
            current = parent_path(current)?;
        }
    }

    pub(crate) fn span_of(&self, path: &str) -> Option<Range<usize>> {
        self.locate(path).map(|l| l.span.clone())
    }
}

/// The node at exactly `path`, by the rule of [`index`]: only nodes whose path is a prefix of
/// `path` are visited, children before their parent and in document order otherwise, and the first
/// whose path is `path` is the answer. Walked with an explicit stack.
fn find<'n>(root: &'n Node, path: &str) -> Option<&'n Location> {
    // (node, length of `path` its own path covers, next child to look at)
    let mut stack: Vec<(&Node, usize, usize)> = vec![(root, 0, 0)];
    while let Some((node, len, next)) = stack.last_mut() {
        let rest = path.get(*len..).unwrap_or_default();
        let child = match &node.kind {
            NodeKind::Seq(items) => {
                // One candidate: the item whose `[index]` follows.
                let found = index_segment(rest)
                    .filter(|(index, _)| *index >= *next)
                    .and_then(|(index, width)| Some((items.get(index)?, *len + width)));
                *next = items.len();
                found
            }
            NodeKind::Map(entries) => {
                // A key's path is `parent.key`, or the key alone under the empty path.
                let dot = usize::from(*len > 0);
                let mut found = None;
                while let Some((key, child)) = entries.get(*next) {
                    *next += 1;
                    let segment = if dot == 1 {
                        rest.strip_prefix('.')
                    } else {
                        Some(rest)
                    };
                    if segment.is_some_and(|s| s.starts_with(key.text.as_str())) {
                        found = Some((child, *len + dot + key.text.len()));
                        break;
                    }
                }
                found
            }
            _ => None,
        };
        match child {
            Some((child, len)) => stack.push((child, len, 0)),
            None => {
                let (node, len, _) = stack.pop()?;
                if len == path.len() {
                    return Some(&node.location);
                }
            }
        }
    }
    None
}

/// The index of a `[index]` segment at the start of `rest` (written as [`join_index`] writes it:
/// decimal, no leading zero) and the segment's width.
fn index_segment(rest: &str) -> Option<(usize, usize)> {
    let digits = rest.strip_prefix('[')?;
    let end = digits.find(']')?;
    let digits = digits.get(..end)?;
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    Some((digits.parse().ok()?, end + 2))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (a linear congruential one: the test needs variety, not
    /// quality).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, bound: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) as usize) % bound
        }
    }

    /// Keys that make different nodes write the same path: empty, holding a dot or brackets, and
    /// repeated.
    const KEYS: [&str; 8] = ["a", "b", "a.b", "", "[0]", "b[1]", "a.", "0"];

    fn tree(rng: &mut Lcg, depth: usize, counter: &mut usize) -> Node {
        *counter += 1;
        let location = Location {
            span: *counter..*counter + 1,
            line: *counter,
            column: 1,
        };
        let kind = match (depth, rng.next(3)) {
            (0, _) | (_, 0) => NodeKind::Null,
            (_, 1) => NodeKind::Seq(
                (0..rng.next(4))
                    .map(|_| tree(rng, depth - 1, counter))
                    .collect(),
            ),
            _ => NodeKind::Map(
                (0..rng.next(5))
                    .map(|_| {
                        let text = KEYS[rng.next(KEYS.len())].to_owned();
                        let key = Key {
                            text,
                            location: location.clone(),
                        };
                        (key, tree(rng, depth - 1, counter))
                    })
                    .collect(),
            ),
        };
        Node { kind, location }
    }

    #[test]
    fn walking_the_tree_finds_what_the_index_holds() {
        let mut rng = Lcg(7);
        let mut compared = 0;
        for _ in 0..2_000 {
            let mut counter = 0;
            let root = tree(&mut rng, 4, &mut counter);
            let nodes = index(&root);
            let mut paths: Vec<String> = nodes.keys().cloned().collect();
            // Paths that are not in the tree: an extra segment, a bad index, a trailing dot.
            for path in nodes.keys() {
                paths.push(join_key(path, "zz"));
                paths.push(format!("{path}[01]"));
                paths.push(format!("{path}[9]"));
                paths.push(format!("{path}."));
            }
            for path in &paths {
                assert_eq!(find(&root, path), nodes.get(path), "{path:?} in {root:?}");
                compared += 1;
            }
        }
        assert!(compared > 10_000, "{compared} lookups compared");
    }

    #[test]
    fn lookups_switch_to_the_index_with_the_same_answers() {
        let mut rng = Lcg(11);
        let (root, expected) = loop {
            let mut counter = 0;
            let root = tree(&mut rng, 6, &mut counter);
            let expected = index(&root);
            if expected.len() > 2 * WALKED_LOOKUPS && matches!(root.kind, NodeKind::Map(_)) {
                break (root, expected);
            }
        };
        let spans = SpanIndex::new(root);
        let mut paths: Vec<&String> = expected.keys().collect();
        paths.sort();
        assert!(paths.len() > 2 * WALKED_LOOKUPS, "{} paths", paths.len());
        for path in paths {
            assert_eq!(spans.locate(path), expected.get(path.as_str()), "{path:?}");
        }
        assert!(
            spans.nodes.get().is_some(),
            "the index is built after the walked lookups"
        );
        assert_eq!(
            spans.locate("no.such[3].path").map(|l| l.span.clone()),
            Some(1..2),
            "the nearest located ancestor is the root"
        );
    }
}
