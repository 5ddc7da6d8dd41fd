//! Discovery and loading of fixture files in the layout of `conformance-format/FORMAT.md`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::yaml;

/// What a case exercises, from where its file sits in the layout.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// `parse/valid/*.yaml`: parse must succeed.
    ParseValid,
    /// `parse/invalid/NAME.yaml` with `NAME.meta.yaml`: parse must fail.
    ParseInvalid,
    /// `validate/*.yaml`.
    Validate,
    /// `normalize/*.yaml`.
    Normalize,
    /// `roundtrip/*.yaml`.
    Roundtrip,
    /// `evaluate/*.yaml`.
    Evaluate,
    /// `verdict/*.yaml`.
    Verdict,
    /// `primitives/<function-name>.yaml`, with the function name.
    Primitive(String),
}

impl Category {
    /// A short name for reports.
    pub fn name(&self) -> String {
        match self {
            Category::ParseValid => "parse/valid".to_owned(),
            Category::ParseInvalid => "parse/invalid".to_owned(),
            Category::Validate => "validate".to_owned(),
            Category::Normalize => "normalize".to_owned(),
            Category::Roundtrip => "roundtrip".to_owned(),
            Category::Evaluate => "evaluate".to_owned(),
            Category::Verdict => "verdict".to_owned(),
            Category::Primitive(f) => format!("primitives/{f}"),
        }
    }
}

/// One case of a suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// The case id (opaque, unique across the suite).
    pub id: String,
    /// The prose name.
    pub name: String,
    /// The file it came from, relative to the suite root.
    pub file: PathBuf,
    /// What it exercises.
    pub category: Category,
    /// The input: a value, or for `parse/` the raw file text.
    pub input: CaseInput,
    /// The expected outcome as written.
    pub expected: Value,
    /// Every other top-level key of the case (e.g. `expected_error_kind`).
    pub extra: Map<String, Value>,
}

/// The input of a case.
#[derive(Clone, Debug)]
pub enum CaseInput {
    /// A value read from the fixture file.
    Value(Value),
    /// The raw bytes of a `parse/` document.
    Raw(Vec<u8>),
}

/// A file or case that could not be read; reported as a failed case so it cannot go unnoticed.
#[derive(Clone, Debug)]
pub struct LoadProblem {
    /// An id for the report: the case id when known, else `file#index` or the file.
    pub id: String,
    /// The file, relative to the suite root.
    pub file: PathBuf,
    /// What is wrong.
    pub message: String,
}

/// Everything found in a suite directory.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The cases, in layout order (by category, file, then position).
    pub cases: Vec<Case>,
    /// Files and cases that could not be read.
    pub problems: Vec<LoadProblem>,
}

/// The directories whose files are lists of cases.
const LIST_DIRS: [&str; 6] = [
    "validate",
    "normalize",
    "roundtrip",
    "evaluate",
    "verdict",
    "primitives",
];

fn list_category(dir: &str, file: &Path) -> Category {
    match dir {
        "validate" => Category::Validate,
        "normalize" => Category::Normalize,
        "roundtrip" => Category::Roundtrip,
        "evaluate" => Category::Evaluate,
        "verdict" => Category::Verdict,
        _ => Category::Primitive(
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
    }
}

/// Loads every case under `root`.
pub fn load_suite(root: &Path) -> Loaded {
    let mut loaded = Loaded::default();
    load_parse_dir(root, "valid", &mut loaded);
    load_parse_dir(root, "invalid", &mut loaded);
    for dir in LIST_DIRS {
        for file in yaml_files(&root.join(dir)) {
            let category = list_category(dir, &file);
            load_list_file(root, &file, category, &mut loaded);
        }
    }
    loaded
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    files
}

fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

fn load_parse_dir(root: &Path, which: &str, loaded: &mut Loaded) {
    let invalid = which == "invalid";
    for file in yaml_files(&root.join("parse").join(which)) {
        let name = file
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".meta.yaml") || name.ends_with(".meta.yml") {
            continue;
        }
        let rel = relative(root, &file);
        let stem = name
            .trim_end_matches(".yaml")
            .trim_end_matches(".yml")
            .to_owned();
        let id = format!("parse/{which}/{stem}");
        let bytes = match fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) => {
                loaded.problems.push(LoadProblem {
                    id,
                    file: rel,
                    message: format!("cannot read: {e}"),
                });
                continue;
            }
        };
        let mut expected = Value::Null;
        let mut description = stem.clone();
        if invalid {
            let meta = file.with_file_name(format!("{stem}.meta.yaml"));
            match fs::read_to_string(&meta)
                .map_err(|e| e.to_string())
                .and_then(|t| yaml::from_str(&t))
            {
                Ok(value) => {
                    if let Some(text) = value.get("expected_error").and_then(Value::as_str) {
                        description = text.to_owned();
                    }
                    expected = value;
                }
                Err(message) => loaded.problems.push(LoadProblem {
                    id: id.clone(),
                    file: relative(root, &meta),
                    message: format!("missing or unreadable meta file: {message}"),
                }),
            }
        }
        loaded.cases.push(Case {
            id,
            name: description,
            file: rel,
            category: if invalid {
                Category::ParseInvalid
            } else {
                Category::ParseValid
            },
            input: CaseInput::Raw(bytes),
            expected,
            extra: Map::new(),
        });
    }
}

fn load_list_file(root: &Path, file: &Path, category: Category, loaded: &mut Loaded) {
    let rel = relative(root, file);
    let problem = |id: String, message: String| LoadProblem {
        id,
        file: rel.clone(),
        message,
    };
    let text = match fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            loaded.problems.push(problem(
                rel.display().to_string(),
                format!("cannot read: {e}"),
            ));
            return;
        }
    };
    let cases = match yaml::from_str(&text) {
        Ok(Value::Array(cases)) => cases,
        Ok(_) => {
            loaded.problems.push(problem(
                rel.display().to_string(),
                "file is not a list of cases".to_owned(),
            ));
            return;
        }
        Err(message) => {
            loaded
                .problems
                .push(problem(rel.display().to_string(), message));
            return;
        }
    };
    for (index, case) in cases.into_iter().enumerate() {
        let Value::Object(mut map) = case else {
            loaded.problems.push(problem(
                format!("{}#{index}", rel.display()),
                "case is not a mapping".to_owned(),
            ));
            continue;
        };
        let id = match map.remove("id") {
            Some(Value::String(id)) => id,
            _ => {
                loaded.problems.push(problem(
                    format!("{}#{index}", rel.display()),
                    "case has no string `id`".to_owned(),
                ));
                continue;
            }
        };
        let name = match map.remove("name") {
            Some(Value::String(name)) => name,
            _ => String::new(),
        };
        let (Some(input), Some(expected)) = (map.remove("input"), map.remove("expected")) else {
            loaded.problems.push(problem(
                id,
                "case needs both `input` and `expected`".to_owned(),
            ));
            continue;
        };
        loaded.cases.push(Case {
            id,
            name,
            file: rel.clone(),
            category: category.clone(),
            input: CaseInput::Value(input),
            expected,
            extra: map,
        });
    }
}
