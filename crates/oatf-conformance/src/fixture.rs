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

/// The files `primitives/` may hold, one per SDK function (without `.yaml`).
pub const PRIMITIVE_FILES: [&str; 12] = [
    "resolve-simple-path",
    "resolve-wildcard-path",
    "parse-duration",
    "evaluate-condition",
    "evaluate-predicate",
    "interpolate-template",
    "interpolate-value",
    "evaluate-extractor",
    "select-response",
    "evaluate-trigger",
    "extract-protocol",
    "compute-effective-state",
];

/// The top-level keys every list case has.
const CASE_KEYS: [&str; 4] = ["name", "id", "input", "expected"];

/// Top-level keys a case may add, per category.
fn extra_case_keys(category: &Category) -> &'static [&'static str] {
    match category {
        Category::Evaluate => &["expected_error_kind"],
        _ => &[],
    }
}

fn list_category(dir: &str, stem: &str) -> Category {
    match dir {
        "validate" => Category::Validate,
        "normalize" => Category::Normalize,
        "roundtrip" => Category::Roundtrip,
        "evaluate" => Category::Evaluate,
        "verdict" => Category::Verdict,
        _ => Category::Primitive(stem.to_owned()),
    }
}

fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn yaml_stem(name: &str) -> &str {
    name.strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"))
        .unwrap_or(name)
}

/// Loads every case under `root`.
///
/// The layout itself is checked: a missing category directory, an unknown directory or stray `.yaml` at
/// the root, a subdirectory or a non-YAML file inside a category, an unknown primitive file, an orphan
/// `.meta.yaml` and a meta file without `expected_error` are problems naming the file, so that no case can
/// be dropped silently (renaming `verdict/` would otherwise drop its cases).
pub fn load_suite(root: &Path) -> Loaded {
    let mut loaded = Loaded::default();
    check_root(root, &mut loaded);
    load_parse_dir(root, "valid", &mut loaded);
    load_parse_dir(root, "invalid", &mut loaded);
    for dir in LIST_DIRS {
        for file in category_files(root, &root.join(dir), &mut loaded) {
            let name = file_name(&file);
            let stem = yaml_stem(&name);
            if dir == "primitives" && !PRIMITIVE_FILES.contains(&stem) {
                loaded.problems.push(LoadProblem {
                    id: relative(root, &file).display().to_string(),
                    file: relative(root, &file),
                    message: format!(
                        "unknown primitive file `{name}` (known: {})",
                        PRIMITIVE_FILES.join(", ")
                    ),
                });
                continue;
            }
            let category = list_category(dir, stem);
            load_list_file(root, &file, category, &mut loaded);
        }
    }
    loaded
}

fn problem_at(root: &Path, path: &Path, message: impl Into<String>) -> LoadProblem {
    let file = relative(root, path);
    LoadProblem {
        id: file.display().to_string(),
        file,
        message: message.into(),
    }
}

/// Entries of the suite root: the category directories must exist; nothing else may look like cases.
fn check_root(root: &Path, loaded: &mut Loaded) {
    let entries = match fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) => {
            loaded.problems.push(LoadProblem {
                id: root.display().to_string(),
                file: root.to_path_buf(),
                message: format!("cannot read the suite directory: {e}"),
            });
            return;
        }
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = file_name(&path);
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if name != "parse" && !LIST_DIRS.contains(&name.as_str()) {
                loaded.problems.push(problem_at(
                    root,
                    &path,
                    format!(
                        "unknown category directory `{name}/` (known: parse, {})",
                        LIST_DIRS.join(", ")
                    ),
                ));
            }
        } else if is_yaml(&path) {
            loaded.problems.push(problem_at(
                root,
                &path,
                "a YAML file at the suite root belongs to no category",
            ));
        }
    }
    for dir in ["parse/valid", "parse/invalid"]
        .into_iter()
        .chain(LIST_DIRS)
    {
        if !root.join(dir).is_dir() {
            loaded.problems.push(LoadProblem {
                id: format!("{dir}/"),
                file: PathBuf::from(dir),
                message: format!("missing category directory `{dir}/`"),
            });
        }
    }
    let parse = root.join("parse");
    if let Ok(entries) = fs::read_dir(&parse) {
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = file_name(&path);
            if !name.starts_with('.') && name != "valid" && name != "invalid" {
                loaded.problems.push(problem_at(
                    root,
                    &path,
                    "`parse/` holds only `valid/` and `invalid/`",
                ));
            }
        }
    }
}

/// The YAML files of a category directory, sorted; anything else in it is a problem.
fn category_files(root: &Path, dir: &Path, loaded: &mut Loaded) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        let name = file_name(&path);
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            loaded.problems.push(problem_at(
                root,
                &path,
                "a subdirectory inside a category is not read; move its files up",
            ));
        } else if is_yaml(&path) {
            files.push(path);
        } else if !name.ends_with(".md") {
            loaded.problems.push(problem_at(
                root,
                &path,
                "not a `.yaml` file: its cases would not be read",
            ));
        }
    }
    files.sort();
    files
}

/// The largest fixture file read; a larger one is a problem of the run, not read.
const MAX_FIXTURE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads one fixture file: only a regular file (after following links) of at most
/// [`MAX_FIXTURE_BYTES`], so that a FIFO, a device or a link to `/dev/zero` in a suite is reported
/// instead of blocking or reading without end.
fn read_fixture(path: &Path) -> Result<Vec<u8>, String> {
    let metadata = fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !metadata.is_file() {
        return Err(
            "cannot read: not a regular file (a FIFO, device or socket is not read)".to_owned(),
        );
    }
    if metadata.len() > MAX_FIXTURE_BYTES {
        return Err(format!(
            "cannot read: {} bytes, more than the limit of {MAX_FIXTURE_BYTES} bytes for a fixture file",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|file| {
            use std::io::Read as _;
            file.take(MAX_FIXTURE_BYTES + 1).read_to_end(&mut bytes)
        })
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FIXTURE_BYTES {
        return Err(format!(
            "cannot read: more than the limit of {MAX_FIXTURE_BYTES} bytes for a fixture file"
        ));
    }
    Ok(bytes)
}

fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

fn load_parse_dir(root: &Path, which: &str, loaded: &mut Loaded) {
    let invalid = which == "invalid";
    let files = category_files(root, &root.join("parse").join(which), loaded);
    let documents: Vec<String> = files
        .iter()
        .map(|f| file_name(f))
        .filter(|n| !n.ends_with(".meta.yaml") && !n.ends_with(".meta.yml"))
        .map(|n| yaml_stem(&n).to_owned())
        .collect();
    for file in files {
        let name = file_name(&file);
        let rel = relative(root, &file);
        if let Some(stem) = name
            .strip_suffix(".meta.yaml")
            .or_else(|| name.strip_suffix(".meta.yml"))
        {
            if !invalid {
                loaded.problems.push(problem_at(
                    root,
                    &file,
                    "a meta file belongs in `parse/invalid/`",
                ));
            } else if !documents.iter().any(|d| d == stem) {
                loaded.problems.push(problem_at(
                    root,
                    &file,
                    format!("orphan meta file: no document `{stem}.yaml` beside it"),
                ));
            }
            continue;
        }
        let stem = yaml_stem(&name).to_owned();
        let id = format!("parse/{which}/{stem}");
        let bytes = match read_fixture(&file) {
            Ok(bytes) => bytes,
            Err(e) => {
                loaded.problems.push(LoadProblem {
                    id,
                    file: rel,
                    message: e,
                });
                continue;
            }
        };
        let mut expected = Value::Null;
        let mut description = stem.clone();
        if invalid {
            let meta = file.with_file_name(format!("{stem}.meta.yaml"));
            match read_meta(&meta) {
                Ok(text) => {
                    description = text.clone();
                    expected = Value::String(text);
                }
                Err(message) => {
                    loaded.problems.push(LoadProblem {
                        id,
                        file: relative(root, &meta),
                        message,
                    });
                    continue;
                }
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

/// The `expected_error` prose of a meta file: a mapping with exactly that key, a non-empty string.
fn read_meta(meta: &Path) -> Result<String, String> {
    let bytes = read_fixture(meta).map_err(|e| format!("missing or unreadable meta file: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "meta file is not UTF-8".to_owned())?;
    let value = yaml::from_str(&text).map_err(|e| format!("unreadable meta file: {e}"))?;
    let Value::Object(map) = value else {
        return Err("meta file is not a mapping with `expected_error`".to_owned());
    };
    if !map.contains_key("expected_error") {
        return Err("meta file without `expected_error`".to_owned());
    }
    if let Some(unknown) = map.keys().find(|k| *k != "expected_error") {
        return Err(format!(
            "unknown key `{unknown}` in meta file (only `expected_error`)"
        ));
    }
    match map.get("expected_error") {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
        Some(other) => Err(format!(
            "`expected_error` must be a non-empty string, got {other}"
        )),
        None => Err("meta file without `expected_error`".to_owned()),
    }
}

fn load_list_file(root: &Path, file: &Path, category: Category, loaded: &mut Loaded) {
    let rel = relative(root, file);
    let problem = |id: String, message: String| LoadProblem {
        id,
        file: rel.clone(),
        message,
    };
    let text = match read_fixture(file)
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "cannot read: not UTF-8".to_owned()))
    {
        Ok(text) => text,
        Err(e) => {
            loaded.problems.push(problem(rel.display().to_string(), e));
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
            _ => {
                loaded
                    .problems
                    .push(problem(id, "case has no string `name`".to_owned()));
                continue;
            }
        };
        let extra_keys = extra_case_keys(&category);
        if let Some(unknown) = map
            .keys()
            .find(|k| !CASE_KEYS.contains(&k.as_str()) && !extra_keys.contains(&k.as_str()))
        {
            loaded.problems.push(problem(
                id,
                format!(
                    "unknown key `{unknown}` in the case (allowed: {})",
                    [&CASE_KEYS[..], extra_keys].concat().join(", ")
                ),
            ));
            continue;
        }
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
