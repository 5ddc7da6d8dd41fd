//! Every document of the conformance corpus and the examples, for the whole-corpus tests.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `(name, text)` of every document: `conformance/parse/valid/*.yaml`, the `input` strings of the
/// `normalize/` and `roundtrip/` cases, and the documents of `examples/`.
pub(crate) fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for file in yaml_files(&root.join("conformance/parse/valid")) {
        out.push((display(&root, &file), read(&file)));
    }
    for dir in ["conformance/normalize", "conformance/roundtrip"] {
        for file in yaml_files(&root.join(dir)) {
            let cases: Vec<Value> = serde_saphyr::from_str(&read(&file))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            for case in cases {
                if let (Some(id), Some(input)) = (
                    case.get("id").and_then(Value::as_str),
                    case.get("input").and_then(Value::as_str),
                ) {
                    out.push((format!("{} {id}", display(&root, &file)), input.to_owned()));
                }
            }
        }
    }
    // `*.test.yaml` beside the examples are test plans for `oatf test`, not OATF documents.
    for file in yaml_files(&root.join("examples")) {
        if file.to_string_lossy().ends_with(".test.yaml") {
            continue;
        }
        out.push((display(&root, &file), read(&file)));
    }
    assert!(
        out.len() > 50,
        "the corpus was not found: {} documents",
        out.len()
    );
    out
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
