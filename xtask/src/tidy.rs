//! `cargo xtask tidy`: the docs cannot drift from the tree.
//!
//! Two checks (and two more: `doc_examples.rs`, doc examples name only their own crate, D-133; `source_rules.rs`, the rules on Rust sources, D-150), all plain file reads (no network, no `../shared`), so they also run as a unit test:
//!
//! - every repository path cited in a Markdown file or a doc comment (`//!`, `///`) exists. A citation is
//!   a backtick span or a Markdown link target that looks like a path (`crates/oatf-model/src/lib.rs`,
//!   `crates/oatf-conformance/tests/it/runner_policy.rs`, `docs/upgrading.md`); it is looked up relative to the citing file's directory, its
//!   crate's root and the repository root.
//! - every declared dependency (`[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, and their
//!   `[target.…]` forms) of every workspace crate is used: its Rust name appears as `name::`, `use name` or
//!   `extern crate name` in the sources that can use it, or it is listed in [`UNUSED_ALLOWED`] with a reason.
//!
//! cargo-machete does the second job too, but it is one more tool to install in CI; this is 200 lines.

use std::fs;
use std::path::{Path, PathBuf};

use crate::files::files;

/// Dependencies that no source names, each with the reason it is declared: `(package, dependency, reason)`.
const UNUSED_ALLOWED: &[(&str, &str, &str)] = &[];

/// Files whose citations are not checked, each with a reason.
const PATHS_SKIPPED: &[(&str, &str)] = &[(
    "CHANGELOG.md",
    "history: it names files as they were when the change was made, some since moved or deleted",
)];

/// First segments of a path relative to the repository root or a crate root.
const PATH_ROOTS: &[&str] = &[
    "crates",
    "docs",
    "examples",
    "conformance",
    "xtask",
    "schema",
    "third_party",
    "fuzz",
    ".ci",
    "src",
    "tests",
    "benches",
];

/// Runs both checks; prints every problem and returns whether there was none.
pub(crate) fn tidy() -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut problems = cited_paths(&root);
    problems.extend(unused_dependencies(&root));
    problems.extend(crate::doc_examples::foreign_crates(&root));
    problems.extend(crate::source_rules::check(&root));
    for problem in &problems {
        println!("FAIL {problem}");
    }
    if problems.is_empty() {
        println!(
            "ok   every cited path exists, every declared dependency is used, doc examples name only their crate, sources keep the rules of D-150"
        );
    }
    problems.is_empty()
}

/// The path-like citations in one text: backtick spans and Markdown link targets.
fn citations(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 1 {
            found.push(span.to_owned());
        }
    }
    let mut rest = text;
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        if let Some(end) = rest.find(')') {
            // A link target may carry an anchor: the file is the part before it.
            let target = rest[..end].split('#').next().unwrap_or_default();
            found.push(target.to_owned());
        }
    }
    found.retain(|c| is_path(c));
    found
}

/// Whether a citation names a repository path (not a URL, a glob, a placeholder or `../shared`).
fn is_path(candidate: &str) -> bool {
    let candidate = candidate.trim_start_matches("./");
    if candidate.is_empty()
        || !candidate
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
        || candidate.contains("..")
        || candidate.contains("//")
    {
        return false;
    }
    match candidate.split_once('/') {
        Some((first, _)) => PATH_ROOTS.contains(&first),
        // A bare file name counts only when it is one of the repository's top-level documents.
        None => {
            candidate.ends_with(".md")
                && candidate
                    .trim_end_matches(".md")
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
        }
    }
}

/// The directory of the nearest `Cargo.toml` at or above `dir`, stopping at `root`.
fn crate_root(dir: &Path, root: &Path) -> Option<PathBuf> {
    let mut dir = dir.to_path_buf();
    loop {
        if dir.join("Cargo.toml").is_file() {
            return Some(dir);
        }
        if dir == root || !dir.pop() {
            return None;
        }
    }
}

/// The directories of the workspace's crates.
fn crate_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.push(root.join("xtask"));
    dirs.retain(|d| d.join("Cargo.toml").is_file());
    dirs.sort();
    dirs
}

/// The name Rust code uses for dependency `name`: its `[lib] name` when it is a workspace crate that sets one
/// (`oatf-sdk` is imported as `oatf`), else the package name with `-` as `_`.
fn rust_name(root: &Path, name: &str) -> String {
    let manifest =
        fs::read_to_string(root.join("crates").join(name).join("Cargo.toml")).unwrap_or_default();
    let mut in_lib = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_lib = line == "[lib]";
        } else if in_lib && let Some(value) = line.strip_prefix("name") {
            let value = value
                .trim_start()
                .trim_start_matches('=')
                .trim()
                .trim_matches('"');
            return value.to_owned();
        }
    }
    name.replace('-', "_")
}

fn cited_paths(root: &Path) -> Vec<String> {
    let mut documents = Vec::new();
    files(root, &[".md", ".rs"], &mut documents);
    let mut problems = Vec::new();
    for file in documents {
        let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        let shown = relative.to_string_lossy().replace('\\', "/");
        if PATHS_SKIPPED.iter().any(|(skipped, _)| *skipped == shown) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        let dir = file.parent().unwrap_or(root).to_path_buf();
        let own_crate = crate_root(&dir, root);
        let mut bases: Vec<PathBuf> = [
            Some(dir.clone()),
            own_crate.clone(),
            Some(root.to_path_buf()),
        ]
        .into_iter()
        .flatten()
        .collect();
        // Outside a crate (README.md, docs/), `tests/streaming_memory.rs` names a file of some crate, said in prose.
        if own_crate.as_deref().is_none_or(|c| c == root) {
            bases.extend(crate_dirs(root));
        }
        let is_rust = shown.ends_with(".rs");
        for (number, line) in text.lines().enumerate() {
            let line = if is_rust {
                // Only doc comments are documentation; code and plain comments are not checked.
                let trimmed = line.trim_start();
                match trimmed
                    .strip_prefix("//!")
                    .or_else(|| trimmed.strip_prefix("///"))
                {
                    Some(doc) => doc,
                    None => continue,
                }
            } else {
                line
            };
            for cited in citations(line) {
                let cited = cited.trim_start_matches("./");
                if !bases.iter().any(|base| base.join(cited).exists()) {
                    problems.push(format!(
                        "{shown}:{}: cites `{cited}`, which does not exist",
                        number + 1
                    ));
                }
            }
        }
    }
    problems
}

/// The dependencies declared in a manifest: `(section kind, name)`, kind being `normal`, `dev` or `build`.
fn declared(manifest: &str) -> Vec<(&'static str, String)> {
    let mut kind = None;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let header = line.trim_matches(|c| c == '[' || c == ']');
            let last = header.rsplit('.').next().unwrap_or_default();
            kind = match last {
                "dependencies" => Some("normal"),
                "dev-dependencies" => Some("dev"),
                "build-dependencies" => Some("build"),
                _ => None,
            };
            continue;
        }
        let Some(kind) = kind else { continue };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // `name = …` or `name.workspace = true`.
        let key = line
            .split(['=', '.'])
            .next()
            .unwrap_or_default()
            .trim()
            .trim_matches('"');
        if !key.is_empty() {
            found.push((kind, key.to_owned()));
        }
    }
    found
}

/// Whether Rust source `text` names crate `ident`.
fn names_crate(text: &str, ident: &str) -> bool {
    let qualified = format!("{ident}::");
    text.match_indices(&qualified).any(|(at, _)| {
        // `foo_serde::` is not `serde::`.
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    }) || text.contains(&format!("use {ident};"))
        || text.contains(&format!("use {ident} as"))
        || text.contains(&format!("extern crate {ident}"))
}

fn unused_dependencies(root: &Path) -> Vec<String> {
    let mut manifests: Vec<PathBuf> = crate_dirs(root)
        .iter()
        .map(|d| d.join("Cargo.toml"))
        .collect();
    manifests.push(root.join("fuzz/Cargo.toml"));
    manifests.retain(|m| m.is_file());
    let mut problems = Vec::new();
    for manifest in manifests {
        let Ok(text) = fs::read_to_string(&manifest) else {
            continue;
        };
        let dir = manifest.parent().unwrap_or(root);
        let package = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Normal and build dependencies are used by the library, binaries and build script; dev-dependencies
        // also by tests, benchmarks, examples and `#[cfg(test)]` code in src/.
        let mut sources = Vec::new();
        files(&dir.join("src"), &[".rs"], &mut sources);
        for extra in ["build.rs"] {
            if dir.join(extra).is_file() {
                sources.push(dir.join(extra));
            }
        }
        files(&dir.join("fuzz_targets"), &[".rs"], &mut sources);
        let normal_sources = sources.len();
        for extra in ["tests", "benches", "examples"] {
            files(&dir.join(extra), &[".rs"], &mut sources);
        }
        let texts: Vec<String> = sources
            .iter()
            .filter_map(|s| fs::read_to_string(s).ok())
            .collect();
        for (kind, name) in declared(&text) {
            if UNUSED_ALLOWED
                .iter()
                .any(|(p, d, _)| *p == package && *d == name)
            {
                continue;
            }
            let ident = rust_name(root, &name);
            let visible = if kind == "dev" {
                &texts[..]
            } else {
                &texts[..normal_sources]
            };
            if !visible.iter().any(|t| names_crate(t, &ident)) {
                problems.push(format!(
                    "{package}/Cargo.toml: {kind} dependency `{name}` is not used \
                     (remove it, or list it in xtask/src/tidy.rs UNUSED_ALLOWED with the reason)"
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_citations(text: &str, expect: &[&str]) {
        assert_eq!(citations(text), expect);
    }

    #[test]
    fn citations_are_paths_not_code() {
        check_citations(
            "see `tests/corpus.rs` and [the guide](docs/guide.md#top), not `a::b` or `V-049`",
            &["tests/corpus.rs", "docs/guide.md"],
        );
        check_citations(
            "`README.md`, `lib.rs`, `crates/*/src`, `../shared/spec`",
            &["README.md"],
        );
        check_citations("[site](https://example.com/docs/x.md)", &[]);
    }

    #[test]
    fn dependencies_are_read_from_every_section() {
        let manifest = "[package]\nname = \"x\"\n[dependencies]\nserde.workspace = true\n\
                        serde-saphyr = { workspace = true }\n# comment\n\
                        [target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n\
                        [dev-dependencies]\ninsta = \"1\"\n[features]\nyaml = []\n";
        assert_eq!(
            declared(manifest),
            [
                ("normal", "serde".to_owned()),
                ("normal", "serde-saphyr".to_owned()),
                ("normal", "libc".to_owned()),
                ("dev", "insta".to_owned())
            ]
        );
    }

    #[test]
    fn a_crate_is_named_by_path_or_use() {
        assert!(names_crate("let x = serde_json::json!(1);", "serde_json"));
        assert!(names_crate("use regex;", "regex"));
        assert!(!names_crate("let x = my_regex::new();", "regex"));
        assert!(!names_crate("// regex is not used here", "regex"));
    }

    /// The repository itself is tidy: this is what `cargo xtask tidy` checks in CI.
    #[test]
    fn the_repository_is_tidy() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut problems = cited_paths(&root);
        problems.extend(unused_dependencies(&root));
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
