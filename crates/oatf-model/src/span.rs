//! Source locations of document nodes, indexed by diagnostic dot-path (spec-decisions 1a).

use std::collections::HashMap;
use std::ops::Range;

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

/// Dot-path → location of every node of a parsed document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SpanIndex {
    nodes: HashMap<String, Location>,
}

impl SpanIndex {
    pub(crate) fn insert(&mut self, path: String, location: Location) {
        self.nodes.entry(path).or_insert(location);
    }

    /// The location of `path`, or of its nearest ancestor that has one.
    pub(crate) fn locate(&self, path: &str) -> Option<&Location> {
        let mut current = path;
        loop {
            if let Some(location) = self.nodes.get(current) {
                return Some(location);
            }
            current = parent_path(current)?;
        }
    }

    pub(crate) fn span_of(&self, path: &str) -> Option<Range<usize>> {
        self.locate(path).map(|l| l.span.clone())
    }
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
