//! The known-failures file: cases expected to fail, each with a reason.
//!
//! Format: one case per line, `ID reason…`; blank lines and lines starting with `#` are ignored.
//! A listed case that passes, or that no longer exists, fails the run: the list must stay true.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Cases expected to fail, by id, with the reason.
#[derive(Clone, Debug, Default)]
pub struct KnownFailures {
    source: Option<PathBuf>,
    entries: BTreeMap<String, String>,
}

impl KnownFailures {
    /// No known failures.
    pub fn none() -> Self {
        KnownFailures::default()
    }

    /// Reads a known-failures file; a missing file means no known failures.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(KnownFailures::none()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut entries = BTreeMap::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (id, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let reason = reason.trim();
            if reason.is_empty() {
                return Err(format!(
                    "{}:{}: `{id}` has no reason",
                    path.display(),
                    number + 1
                ));
            }
            if entries.insert(id.to_owned(), reason.to_owned()).is_some() {
                return Err(format!(
                    "{}:{}: `{id}` is listed twice",
                    path.display(),
                    number + 1
                ));
            }
        }
        Ok(KnownFailures {
            source: Some(path.to_path_buf()),
            entries,
        })
    }

    /// The file it was read from.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The reason a case is expected to fail, if it is listed.
    pub fn reason(&self, id: &str) -> Option<&str> {
        self.entries.get(id).map(String::as_str)
    }

    /// Every listed id.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// How many cases are listed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no case is listed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
