//! Artifact locations of SARIF reports: file paths as URI references below `%SRCROOT%`.

use std::path::{Path, PathBuf};

/// A relative or absolute file path as a URI reference (`/` separators, reserved bytes escaped).
pub(crate) fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(char::from(byte));
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

/// The base of every artifact URI: GitHub code scanning resolves it to the repository root.
pub(crate) const SRCROOT: &str = "%SRCROOT%";

/// `path` relative to the working directory when it lies below it (an absolute path of the machine
/// never reaches a report); otherwise as given, or its file name when it is absolute.
pub(crate) fn relative_to_cwd(path: &Path) -> PathBuf {
    if path.is_relative() {
        return path
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
    }
    let below = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    below.unwrap_or_else(|| path.file_name().map(PathBuf::from).unwrap_or_default())
}
