//! Checks against the project's conformance corpus (`conformance/` at the workspace root).
//!
//! The full runner lives in `oatf-conformance`; these tests pin the properties this crate owns:
//! `serialize(normalize(parse(x)))` is a fixed point for every `parse/valid` document, every
//! `parse/invalid` document fails to parse, and the `validate`/`normalize` cases agree with the model.
//! When the corpus is absent the tests say so loudly and pass.
#![cfg(feature = "yaml")]
#![allow(
    clippy::print_stderr,
    reason = "skips and failures are reported on stderr"
)]

use std::path::{Path, PathBuf};

use oatf_model::{normalize, parse, serialize, validate};
use serde_json::Value;

/// A reported `(rule, path)`.
type Finding = (String, String);

fn corpus(dir: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance")
        .join(dir);
    if path.is_dir() {
        Some(path)
    } else {
        eprintln!("SKIPPED: {} does not exist", path.display());
        None
    }
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        let name = p.to_string_lossy();
        name.ends_with(suffix) && !name.ends_with(".meta.yaml")
    });
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cases(path: &Path) -> Vec<Value> {
    let value: Value =
        serde_saphyr::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    value.as_array().cloned().unwrap_or_default()
}

/// Structural comparison: numbers by value, key order ignored.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Removes `phase.mode` where it equals the actor's mode (FORMAT.md: upstream outputs omit it).
fn strip_phase_modes(value: &mut Value) {
    let Some(actors) = value
        .pointer_mut("/attack/execution/actors")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for actor in actors {
        let mode = actor.get("mode").cloned();
        if let Some(phases) = actor.get_mut("phases").and_then(Value::as_array_mut) {
            for phase in phases {
                if let Some(obj) = phase.as_object_mut()
                    && obj.get("mode") == mode.as_ref()
                {
                    obj.remove("mode");
                }
            }
        }
    }
}

#[test]
fn serialize_is_a_fixed_point_on_parse_valid() {
    let Some(dir) = corpus("parse/valid") else {
        return;
    };
    let mut failures = Vec::new();
    for path in files(&dir, ".yaml") {
        let name = path.display().to_string();
        let document = match parse(&read(&path)) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        let first = serialize(&normalize(document));
        match parse(&first) {
            Ok(again) => {
                let second = serialize(&normalize(again));
                if first != second {
                    failures.push(format!(
                        "{name}: not a fixed point\n--- first\n{first}\n--- second\n{second}"
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{name}: serialized output does not parse: {e}\n{first}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn parse_invalid_documents_fail() {
    let Some(dir) = corpus("parse/invalid") else {
        return;
    };
    let failures: Vec<String> = files(&dir, ".yaml")
        .into_iter()
        .filter(|p| parse(&read(p)).is_ok())
        .map(|p| p.display().to_string())
        .collect();
    assert!(failures.is_empty(), "parsed but should fail: {failures:#?}");
}

#[test]
fn normalize_cases() {
    let Some(dir) = corpus("normalize") else {
        return;
    };
    let mut failures = Vec::new();
    for path in files(&dir, ".yaml") {
        for case in cases(&path) {
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let (Some(input), Some(expected)) = (case["input"].as_str(), case["expected"].as_str())
            else {
                continue;
            };
            let actual = match parse(input) {
                Ok(d) => serde_json::to_value(normalize(d)).unwrap_or(Value::Null),
                Err(e) => {
                    failures.push(format!("{id}: input does not parse: {e}"));
                    continue;
                }
            };
            let expected: Value = match serde_saphyr::from_str(expected) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{id}: expected does not parse: {e}"));
                    continue;
                }
            };
            let (mut a, mut e) = (actual, expected);
            strip_phase_modes(&mut a);
            strip_phase_modes(&mut e);
            if !same(&a, &e) {
                failures.push(format!("{id}:\n  actual   {a}\n  expected {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} normalize failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn validate_cases() {
    let Some(dir) = corpus("validate") else {
        return;
    };
    let mut failures = Vec::new();
    for path in files(&dir, ".yaml") {
        for case in cases(&path) {
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let Some(input) = case["input"].as_str() else {
                continue;
            };
            // V-014 needs a CEL parser, which this crate deliberately lacks (oatf-cel implements it).
            if case["expected"].to_string().contains("V-014") {
                continue;
            }
            let expected = &case["expected"];
            let (errors, warnings): (Vec<Finding>, Vec<Finding>) = match parse(input) {
                Ok(d) => {
                    let r = validate(&d);
                    (
                        r.errors
                            .iter()
                            .map(|e| (e.rule().to_owned(), e.path().to_owned()))
                            .collect(),
                        r.warnings
                            .iter()
                            // W-014 says the CEL syntax was not checked: this test has no CEL checker.
                            .filter(|w| w.code() != oatf_model::CEL_UNCHECKED)
                            .map(|w| (w.code().to_owned(), w.path().unwrap_or("").to_owned()))
                            .collect(),
                    )
                }
                Err(e) => (
                    e.iter()
                        .map(|p| {
                            (
                                p.rule().unwrap_or("PARSE").to_owned(),
                                p.path().unwrap_or("").to_owned(),
                            )
                        })
                        .collect(),
                    Vec::new(),
                ),
            };
            let wants = |list: &Value, got: &[Finding]| -> Vec<String> {
                list.as_array()
                    .into_iter()
                    .flatten()
                    .filter(|w| {
                        let rule = w["rule"].as_str().unwrap_or("");
                        let path = w["path"].as_str();
                        !got.iter()
                            .any(|(r, p)| r == rule && path.is_none_or(|x| x == p))
                    })
                    .map(|w| w.to_string())
                    .collect()
            };
            let mut problems = Vec::new();
            let no_errors = expected["valid"] == Value::Bool(true)
                || expected["errors"].as_array().is_some_and(Vec::is_empty);
            if no_errors && !errors.is_empty() {
                problems.push(format!("unexpected errors {errors:?}"));
            }
            let missing = wants(&expected["errors"], &errors);
            if !missing.is_empty() {
                problems.push(format!("missing errors {missing:?}, got {errors:?}"));
            }
            if expected["warnings"].as_array().is_some_and(Vec::is_empty) && !warnings.is_empty() {
                problems.push(format!("unexpected warnings {warnings:?}"));
            }
            let missing = wants(&expected["warnings"], &warnings);
            if !missing.is_empty() {
                problems.push(format!("missing warnings {missing:?}, got {warnings:?}"));
            }
            if !problems.is_empty() {
                failures.push(format!("{id}: {}", problems.join("; ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} validate failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Removes `null` members of objects (an explicit null means absent in the model).
fn drop_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// [`same`], except that serde-saphyr still reads YAML 1.1 binary (`0b101` → 5) where the YAML 1.2
/// core schema has a string.
fn same_shape(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::String(s), Value::Number(_)) if s.starts_with("0b") => true,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_shape(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_shape(v, w)))
        }
        _ => same(ours, theirs),
    }
}

#[test]
fn parsed_documents_have_the_yaml_shape() {
    let Some(dir) = corpus("parse/valid") else {
        return;
    };
    let mut failures = Vec::new();
    for path in files(&dir, ".yaml") {
        let text = read(&path);
        let Ok(document) = parse(&text) else { continue };
        // Placeholders of missing fields and a non-mapping `attack` are not part of the shape.
        if !document.missing_fields().is_empty() || document.attack.is_none() {
            continue;
        }
        let mut ours = serde_json::to_value(&document).unwrap_or(Value::Null);
        // serde-saphyr in its strict profile reads the same YAML 1.2 core schema as `parse`.
        let mut options = serde_saphyr::Options::default();
        options.strict_booleans = true;
        options.leading_zero_numbers_as_strings = true;
        options.underscored_numbers_as_strings = true;
        let Ok(mut theirs) = serde_saphyr::from_str_with_options::<Value>(&text, options) else {
            continue;
        };
        drop_nulls(&mut ours);
        drop_nulls(&mut theirs);
        if !same_shape(&ours, &theirs) {
            failures.push(format!(
                "{}:\n  ours   {ours}\n  theirs {theirs}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
