//! `cargo xtask tidy`, the rules on Rust sources (D-150):
//!
//! - attacker text reaches a terminal through `oatf_primitives::safe_text` only: no `escape_debug`
//!   outside that owner;
//! - comments cite decisions (`D-n`), not the issue or session a change came from, which a reader
//!   cannot look up;
//! - no source file is longer than [`MAX_LINES`] lines up to its `#[cfg(test)] mod` (a file that is a
//!   test module, `tests.rs`, `*_tests.rs` or one under `tests/`, is not counted).
//!
//! Each rule has an allow-list of the files that break it today, each with its reason; a file leaves
//! the list when it is fixed (the check fails on an entry that no longer breaks the rule).

use std::fs;
use std::path::Path;

/// The longest a source file may be up to its test module.
pub(crate) const MAX_LINES: usize = 700;

/// The one owner of the escaping of attacker text.
const ESCAPE_OWNER: &str = "crates/oatf-primitives/src/safe_text.rs";

/// This file: it names what it looks for, so it is not checked.
const SELF: &str = "xtask/src/source_rules.rs";

/// Files being changed by other work while this rule came in; they keep their history comments until
/// that work lands (then they leave this list).
const HISTORY_ALLOWED: &[&str] = &[
    "crates/oatf-bench/src/sparse.rs",
    "crates/oatf-bench/src/scaling.rs",
    "crates/oatf-bench/src/bin/load_floor.rs",
    "crates/oatf-bench/src/bin/paired.rs",
    "crates/oatf-bench/examples/profile.rs",
    "crates/oatf-cel/src/reads.rs",
];

/// Files over [`MAX_LINES`], each being changed by other work while this rule came in: to be split
/// when that work lands.
const LONG_ALLOWED: &[&str] = &[
    "crates/oatf-eval/src/trace.rs",
    "crates/oatf-py/src/attack.rs",
    "crates/oatf-bench/src/bin/paired.rs",
    "crates/oatf-cel/src/direct/mod.rs",
];

/// The problems of every Rust source of the workspace, as `path: problem` lines.
pub(crate) fn check(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "fuzz"] {
        crate::tidy::rust_files(&root.join(dir), &mut files);
    }
    let mut problems = Vec::new();
    let mut history_seen = Vec::new();
    let mut long_seen = Vec::new();
    for file in &files {
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        let rel = file
            .strip_prefix(root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        if rel == SELF {
            continue;
        }
        if rel != ESCAPE_OWNER && text.contains("escape_debug") {
            problems.push(format!(
                "{rel}: `escape_debug` of text; print attacker text through oatf_primitives::safe_text (D-150)"
            ));
        }
        if let Some(line) = history_line(&text) {
            if HISTORY_ALLOWED.contains(&rel.as_str()) {
                history_seen.push(rel.clone());
            } else {
                problems.push(format!(
                    "{rel}:{line}: cites an issue or session; cite the decision (D-n) or nothing (D-150)"
                ));
            }
        }
        let lines = lines_before_tests(&rel, &text);
        if lines > MAX_LINES {
            if LONG_ALLOWED.contains(&rel.as_str()) {
                long_seen.push(rel.clone());
            } else {
                problems.push(format!(
                    "{rel}: {lines} lines before its tests, over {MAX_LINES}; split it by responsibility (D-150)"
                ));
            }
        }
    }
    for (list, seen, what) in [
        (
            HISTORY_ALLOWED,
            &history_seen,
            "cites no issue or session now",
        ),
        (LONG_ALLOWED, &long_seen, "is not over the line limit now"),
    ] {
        for allowed in list.iter().filter(|a| !seen.iter().any(|s| s == *a)) {
            problems.push(format!(
                "xtask/src/source_rules.rs: {allowed} {what}: remove it from the allow-list"
            ));
        }
    }
    problems
}

/// The 1-based line of the first `issue N` or `session N` (any case) in `text`.
fn history_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let lower = line.to_ascii_lowercase();
            ["issue ", "session "].iter().any(|word| {
                lower.match_indices(word).any(|(at, _)| {
                    let before = lower[..at].chars().next_back();
                    let after = lower[at + word.len()..].trim_start_matches('#');
                    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                        && after.starts_with(|c: char| c.is_ascii_digit())
                })
            })
        })
        .map(|i| i + 1)
}

/// The lines of `text` before its inline test module (a `#[cfg(…test…)]` line followed by `mod name {`), or
/// all of them; 0 for a file that is itself a test module. A declaration of a test module in another file
/// (`mod tests;`) does not end the count: the code after it is still the file's code.
fn lines_before_tests(rel: &str, text: &str) -> usize {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name == "tests.rs" || name.ends_with("_tests.rs") || rel.contains("/tests/") {
        return 0;
    }
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .position(|pair| {
            let attribute = pair[0].trim();
            attribute.starts_with("#[cfg(") && attribute.contains("test") && is_inline_mod(pair[1])
        })
        .unwrap_or(lines.len())
}

/// Whether `line` opens an inline module: `mod name {` (with any visibility).
fn is_inline_mod(line: &str) -> bool {
    let line = line.trim_start();
    let line = line
        .strip_prefix("pub(crate) ")
        .or_else(|| line.strip_prefix("pub "))
        .unwrap_or(line);
    line.strip_prefix("mod ")
        .is_some_and(|rest| rest.trim_end().ends_with('{'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_found_and_decisions_are_not() {
        assert_eq!(history_line("a\n// see issue 22 item 5\n"), Some(2));
        assert_eq!(history_line("//! Session 4's work"), Some(1));
        assert_eq!(history_line("// Issue #7"), Some(1));
        assert_eq!(
            history_line("// D-70; an issue with 3 parts; the session 'x'"),
            None
        );
        assert_eq!(history_line("let reissue 4 = 1;"), None);
    }

    #[test]
    fn lines_are_counted_up_to_the_test_module() {
        assert_eq!(
            lines_before_tests("src/a.rs", "a\nb\n#[cfg(test)]\nmod tests {\n}\n"),
            2
        );
        assert_eq!(
            lines_before_tests("src/a.rs", "a\n#[cfg(test)]\nfn x() {}\n"),
            3
        );
        assert_eq!(
            lines_before_tests(
                "src/a.rs",
                "a\n#[cfg(all(test, feature = \"x\"))]\nmod t {\n}\n"
            ),
            1
        );
        // A declared test module elsewhere does not end the count: the code after it counts.
        let declared = "a\n#[cfg(test)]\nmod tests;\nfn b() {}\n";
        assert_eq!(lines_before_tests("src/a.rs", declared), 4);
        assert_eq!(lines_before_tests("src/trace/tests.rs", "a\nb\n"), 0);
    }

    /// The repository keeps these rules: what `cargo xtask tidy` checks in CI.
    #[test]
    fn the_sources_keep_the_rules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let problems = check(&root);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
