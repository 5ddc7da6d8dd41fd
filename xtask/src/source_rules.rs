//! `cargo xtask tidy`, the rules on Rust sources (D-150):
//!
//! - attacker text reaches a terminal through `oatf_primitives::safe_text` only: no `escape_debug`
//!   outside that owner;
//! - comments cite decisions (`D-n`), not the issue or session a change came from, which a reader
//!   cannot look up;
//! - no source file is longer than [`MAX_LINES`] lines up to its `#[cfg(test)] mod` (a file that is a
//!   test module, `tests.rs`, `*_tests.rs` or one under `tests/`, is not counted);
//! - no `#[doc(hidden)]` outside `crates/oatf-internal/` (D-165): a public item is documented and
//!   part of its crate's promise, or it lives in the internal crate, which promises nothing.
//! - in the crates of [`DOWNWARD`], no module but `lib.rs` names an item through the crate root
//!   (`crate::Rule` where `lib.rs` re-exports it): it imports from the module that defines it, so
//!   that no import runs back up to `lib.rs` (D-176).
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
    "crates/oatf-bench/examples/profile.rs",
    "crates/oatf-cel/src/reads.rs",
];

/// The crate whose public items promise nothing (D-165): the one place a helper shared by the
/// workspace crates may be public without being part of an API.
const INTERNAL_CRATE: &str = "crates/oatf-internal/";

/// Files with `#[doc(hidden)]` items, each with its reason (none now: the list is kept so that an
/// exception is written where the rule is).
const HIDDEN_ALLOWED: &[&str] = &[];

/// Files over [`MAX_LINES`], each being changed by other work while this rule came in: to be split
/// when that work lands.
const LONG_ALLOWED: &[&str] = &[];

/// Crates whose modules import downward only (D-176); others join when they are fixed.
const DOWNWARD: &[&str] = &["crates/oatf-model"];

/// The problems of every Rust source of the workspace, as `path: problem` lines.
pub(crate) fn check(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "fuzz"] {
        crate::files::rust_files(&root.join(dir), &mut files);
    }
    let mut problems = Vec::new();
    for krate in DOWNWARD {
        problems.extend(downward_problems(root, krate));
    }
    let mut history_seen = Vec::new();
    let mut long_seen = Vec::new();
    let mut hidden_seen = Vec::new();
    for file in &files {
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        let rel = crate::files::relative(root, file);
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
        if let Some(line) = doc_hidden_line(&text)
            && !rel.starts_with(INTERNAL_CRATE)
        {
            if HIDDEN_ALLOWED.contains(&rel.as_str()) {
                hidden_seen.push(rel.clone());
            } else {
                problems.push(format!(
                    "{rel}:{line}: `#[doc(hidden)]` item; document it as public API, make it crate-private, or move it to {INTERNAL_CRATE} (D-165)"
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
    // Documents are read by people who cannot look up an issue or a session either (D-150).
    let mut documents = Vec::new();
    crate::files::markdown_files(root, &mut documents);
    for document in &documents {
        let Ok(text) = fs::read_to_string(document) else {
            continue;
        };
        if let Some(line) = history_line(&text) {
            let rel = crate::files::relative(root, document);
            problems.push(format!(
                "{rel}:{line}: cites an issue or session; cite the decision (D-n) or nothing (D-150)"
            ));
        }
    }
    for (list, seen, what) in [
        (
            HISTORY_ALLOWED,
            &history_seen,
            "cites no issue or session now",
        ),
        (LONG_ALLOWED, &long_seen, "is not over the line limit now"),
        (HIDDEN_ALLOWED, &hidden_seen, "has no `#[doc(hidden)]` now"),
    ] {
        for allowed in list.iter().filter(|a| !seen.iter().any(|s| s == *a)) {
            problems.push(format!(
                "xtask/src/source_rules.rs: {allowed} {what}: remove it from the allow-list"
            ));
        }
    }
    problems
}

/// The problems of the rule of [`DOWNWARD`] in the crate at `krate`.
fn downward_problems(root: &Path, krate: &str) -> Vec<String> {
    let src = root.join(krate).join("src");
    let Ok(lib) = fs::read_to_string(src.join("lib.rs")) else {
        return vec![format!(
            "{krate}/src/lib.rs: not found for the downward-import rule"
        )];
    };
    let modules = declared_modules(&lib);
    let mut files = Vec::new();
    crate::files::rust_files(&src, &mut files);
    let mut problems = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "lib.rs"))
    {
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        if let Some((line, name)) = through_root(&modules, &text) {
            let rel = crate::files::relative(root, file);
            problems.push(format!(
                "{rel}:{line}: names `crate::{name}` through lib.rs; import it from the module that defines it (D-176)"
            ));
        }
    }
    problems
}

/// The modules `lib` declares (`mod name;`, with any visibility or attribute before it).
fn declared_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.trim_end().strip_suffix(';')?;
            Some(name.to_owned())
        })
        .collect()
}

/// The first place (1-based line, and the name) where code of `text` (not a comment) names an item
/// through the crate root: `crate::` followed by a name that is not one of `modules`, or by `{`.
fn through_root(modules: &[String], text: &str) -> Option<(usize, String)> {
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for (at, _) in line.match_indices("crate::") {
            if line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &line[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if rest.starts_with('{') || (!name.is_empty() && !modules.contains(&name)) {
                let name = if name.is_empty() {
                    String::from("{…}")
                } else {
                    name
                };
                return Some((index + 1, name));
            }
        }
    }
    None
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

/// The 1-based line of the first attribute of `text` that hides an item from the docs
/// (`#[doc(hidden)]`, `#![doc(hidden)]`, or inside `cfg_attr`); comments do not count.
fn doc_hidden_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            (line.starts_with("#[") || line.starts_with("#![")) && line.contains("doc(hidden)")
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

    #[test]
    fn hidden_items_are_found_in_attributes_only() {
        assert_eq!(
            doc_hidden_line(
                "pub fn a() {}
    #[doc(hidden)]
"
            ),
            Some(2)
        );
        assert_eq!(doc_hidden_line("#![doc(hidden)]"), Some(1));
        assert_eq!(
            doc_hidden_line("#[cfg_attr(feature = \"x\", doc(hidden))]"),
            Some(1)
        );
        assert_eq!(
            doc_hidden_line(
                "// no #[doc(hidden)] here
/// nor here"
            ),
            None
        );
        assert_eq!(doc_hidden_line("#[doc = \"visible\"]"), None);
    }

    /// A published crate with a hidden item is a problem; the internal crate is not.
    #[test]
    fn hidden_items_outside_the_internal_crate_fail_the_check() {
        let root = std::env::temp_dir().join(format!("oatf-tidy-hidden-{}", std::process::id()));
        let write = |rel: &str| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "#[doc(hidden)]\npub fn helper() {}\n").unwrap();
        };
        write("crates/oatf-model/src/lib.rs");
        write("crates/oatf-internal/src/lib.rs");
        let problems = check(&root);
        fs::remove_dir_all(&root).unwrap();
        let hidden: Vec<&String> = problems
            .iter()
            .filter(|p| p.contains("doc(hidden)]` item"))
            .collect();
        assert_eq!(hidden.len(), 1, "{problems:#?}");
        assert!(
            hidden[0].starts_with("crates/oatf-model/src/lib.rs:1:"),
            "{problems:#?}"
        );
    }

    #[test]
    fn names_through_the_crate_root_are_found() {
        let modules =
            declared_modules("mod de;\n#[cfg(feature = \"yaml\")]\npub(crate) mod rules;\n");
        assert_eq!(modules, ["de", "rules"]);
        let check = |text: &str| through_root(&modules, text);
        assert_eq!(
            check("use crate::rules::Rule;\nlet r = $crate::de::x();"),
            None
        );
        assert_eq!(
            check("/// [`Rule`](crate::Rule)\nlet x = oatf_crate::Y;"),
            None
        );
        assert_eq!(
            check("use crate::de;\nuse crate::Rule;"),
            Some((2, "Rule".to_owned()))
        );
        assert_eq!(check("  $crate::Rule::V005"), Some((1, "Rule".to_owned())));
        assert_eq!(
            check("x(crate::generated_id(1))"),
            Some((1, "generated_id".to_owned()))
        );
        assert_eq!(
            check("use crate::{de, rules};"),
            Some((1, "{…}".to_owned()))
        );
    }

    /// The repository keeps these rules: what `cargo xtask tidy` checks in CI.
    #[test]
    fn the_sources_keep_the_rules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let problems = check(&root);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
