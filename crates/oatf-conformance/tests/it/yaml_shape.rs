//! Every `conformance/parse/valid` document parses into a model whose JSON form has the shape of the
//! YAML itself (moved from `oatf-model`, whose published package does not ship the corpus).

use std::path::Path;

use oatf::parse;
use serde_json::Value;

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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/parse/valid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "only {} documents in {}",
        files.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    for path in files {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Ok(document) = parse(&text) else { continue };
        // Placeholders of missing fields and a non-mapping `attack` are not part of the shape.
        if !document.missing_fields().is_empty() || document.attack.is_none() {
            continue;
        }
        let mut ours = serde_json::to_value(&document).unwrap_or(Value::Null);
        // serde-saphyr in its strict profile reads the same YAML 1.2 core schema as `parse`.
        let Ok(mut theirs) = serde_saphyr::from_str_with_options::<Value>(
            &text,
            oatf_conformance::strict_yaml_options(),
        ) else {
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
