//! The files the repository checks walk: sources and documents under a directory, skipping build
//! output, VCS data and vendored copies.

use std::fs;
use std::path::{Path, PathBuf};

/// The Rust sources under `dir` (recursively), as [`files`] finds them.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files(dir, &[".rs"], out);
}

/// The Markdown documents under `dir` (recursively), as [`files`] finds them.
pub(crate) fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files(dir, &[".md"], out);
}

/// The files under `dir` (recursively) whose name ends with one of `extensions`, skipping build output,
/// VCS data and vendored copies.
pub(crate) fn files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if matches!(
                name.as_str(),
                "target" | ".git" | "third_party" | "node_modules" | ".venv" | "__pycache__"
            ) {
                continue;
            }
            files(&path, extensions, out);
        } else if extensions.iter().any(|e| name.ends_with(e)) {
            out.push(path);
        }
    }
}

/// `path` relative to `root`, with `/` between its parts, as the checks print it.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}
