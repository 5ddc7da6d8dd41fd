//! Part of `cargo xtask tidy`: the doc examples of each library crate compile for a user who depends on
//! that crate alone (D-133).
//!
//! `cargo test -p X --doc` cannot show it: rustdoc links a doctest against all of X's dependencies, so an
//! example that writes `use oatf_model::Indicator` in `oatf-eval` passes there and fails for a user of
//! `oatf-eval` alone (who is then told to add `oatf-model`, whose default features bring the YAML parser
//! back). This check reads the Rust code blocks of the crate's doc comments (`//!`, `///`) and reports
//! each other workspace crate they name (`oatf_model::`); the crate re-exports what its examples need.
//! The per-crate doctest runs of `.ci/run` check that the examples compile with only the crate's
//! default features.

use std::fs;
use std::path::Path;

/// Crates whose doc examples may name another workspace crate, each with the reason: `(crate, other, reason)`.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "oatf_cel",
        "oatf_eval",
        "the engine is installed in oatf-eval's EvalOptions: its users depend on both",
    ),
    (
        "oatf_cel",
        "oatf_model",
        "V-014's hook is installed in oatf-model's ValidateOptions: its users depend on both",
    ),
    (
        "oatf_report",
        "oatf_eval",
        "reports are made from oatf-eval's verdicts: its users depend on both",
    ),
    (
        "oatf_report",
        "oatf_model",
        "reports name the oatf-model document: its users depend on both",
    ),
    (
        "oatf_model",
        "oatf_cel",
        "the V-014 hook is shown with the engine that implements it",
    ),
];

/// The problems of every library crate under `root/crates`.
pub(crate) fn foreign_crates(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(entries) = fs::read_dir(root.join("crates")) else {
        return vec![String::from("crates/: cannot be read")];
    };
    let mut dirs: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let names: Vec<String> = dirs
        .iter()
        .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().replace('-', "_")))
        .collect();
    for dir in &dirs {
        let src = dir.join("src");
        if !src.join("lib.rs").is_file() {
            continue;
        }
        let Some(own) = dir
            .file_name()
            .map(|n| n.to_string_lossy().replace('-', "_"))
        else {
            continue;
        };
        let mut sources = Vec::new();
        crate::files::rust_files(&src, &mut sources);
        for file in sources {
            let Ok(text) = fs::read_to_string(&file) else {
                continue;
            };
            let shown = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            for (line, name) in named_in_examples(&text, &names) {
                if name == own
                    || ALLOWED
                        .iter()
                        .any(|(krate, other, _)| *krate == own && *other == name)
                {
                    continue;
                }
                problems.push(format!(
                    "{shown}:{line}: a doc example names `{name}`, which a user of `{own}` alone does not \
                     have (re-export what the example needs, or list it in xtask/src/doc_examples.rs ALLOWED)"
                ));
            }
        }
    }
    problems
}

/// `(line, crate)` for each workspace crate in `names` that a line of a Rust code block of a doc
/// comment names as `crate::` or `use crate`.
fn named_in_examples(text: &str, names: &[String]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_code = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let Some(doc) = trimmed
            .strip_prefix("//!")
            .or_else(|| trimmed.strip_prefix("///"))
        else {
            in_code = false;
            continue;
        };
        let doc = doc.trim_start();
        if let Some(info) = doc.strip_prefix("```") {
            in_code = if in_code {
                false
            } else {
                let info = info.trim();
                // Rust unless the fence says another language; `ignore` blocks are not compiled.
                info.is_empty()
                    || info.split(',').all(|tag| {
                        matches!(
                            tag.trim(),
                            "rust" | "no_run" | "should_panic" | "compile_fail"
                        ) || tag.trim().starts_with("edition")
                    })
            };
            continue;
        }
        if !in_code {
            continue;
        }
        let code = doc.trim_start_matches('#').trim_start();
        for name in names {
            if code.contains(&format!("{name}::")) || code.contains(&format!("use {name}")) {
                found.push((index + 1, name.clone()));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_other_crates_in_rust_blocks_only() {
        let names = [String::from("oatf_model"), String::from("oatf_eval")];
        let text = "//! Links to [`oatf_model::Indicator`].\n\
                    //! ```\n\
                    //! use oatf_eval::Indicator;\n\
                    //! use oatf_model::Document;\n\
                    //! # let x = oatf_model::parse(\"\");\n\
                    //! ```\n\
                    //! ```text\n\
                    //! oatf_model::ignored\n\
                    //! ```\n\
                    fn f() { oatf_model::x(); }\n";
        assert_eq!(
            named_in_examples(text, &names),
            [
                (3, String::from("oatf_eval")),
                (4, String::from("oatf_model")),
                (5, String::from("oatf_model")),
            ]
        );
    }

    #[test]
    fn the_workspace_examples_name_only_their_crate() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let problems = foreign_crates(&root);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
