//! What the document JSON Schema says about a place in a document: the description of a field (the
//! text `docs/format.md` is generated from), the keys a mapping may hold and the values of a closed
//! enumeration. The schema is the one `oatf schema` prints ([`crate::document_schema`]).
//!
//! The walk follows `properties`, `items`/`prefixItems`, `$ref` and the branches of
//! `oneOf`/`anyOf`/`allOf`, with a bound on the references it follows, so no path makes it loop.

use std::sync::OnceLock;

use serde_json::Value;

use super::outline::Seg;

/// How many `$ref` and branch steps one lookup follows at most.
const MAX_STEPS: usize = 64;
/// Paths deeper than this are not looked up (no field of the format is that deep).
const MAX_DEPTH: usize = 48;

fn root() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(crate::document_schema::TEXT).unwrap_or(Value::Null))
}

/// Follows `$ref`s (local `#/$defs/…` only).
fn resolve(mut value: &'static Value) -> &'static Value {
    for _ in 0..MAX_STEPS {
        let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(name) = reference.strip_prefix("#/$defs/") else {
            break;
        };
        match root().get("$defs").and_then(|d| d.get(name)) {
            Some(target) => value = target,
            None => break,
        }
    }
    value
}

/// The schema itself and every branch of its `oneOf`/`anyOf`/`allOf`, references resolved.
fn branches(value: &'static Value) -> Vec<&'static Value> {
    let mut out = Vec::new();
    let mut queue = vec![value];
    while let Some(v) = queue.pop() {
        if out.len() >= MAX_STEPS {
            break;
        }
        let v = resolve(v);
        out.push(v);
        for key in ["oneOf", "anyOf", "allOf"] {
            if let Some(list) = v.get(key).and_then(Value::as_array) {
                queue.extend(list.iter());
            }
        }
    }
    out
}

/// The schemas (unresolved, so their own descriptions are kept) at `path`; empty where the schema
/// has nothing (a pass-through object such as `state`).
pub(crate) fn at(path: &[Seg]) -> Vec<&'static Value> {
    if path.len() > MAX_DEPTH {
        return Vec::new();
    }
    let mut here = vec![root()];
    for seg in path {
        let mut next = Vec::new();
        for value in &here {
            for branch in branches(value) {
                let child = match seg {
                    Seg::Key(key) => branch.get("properties").and_then(|p| p.get(key.as_str())),
                    Seg::Index(i) => branch
                        .get("prefixItems")
                        .and_then(|p| p.get(*i))
                        .or_else(|| branch.get("items")),
                };
                if let Some(child) = child {
                    next.push(child);
                }
            }
        }
        if next.is_empty() {
            return next;
        }
        here = next;
    }
    here
}

/// The description of the field at `path`: its own, else that of the type it refers to.
pub(crate) fn description(path: &[Seg]) -> Option<&'static str> {
    let here = at(path);
    here.iter()
        .find_map(|v| v.get("description").and_then(Value::as_str))
        .or_else(|| {
            here.iter()
                .flat_map(|v| branches(v))
                .find_map(|v| v.get("description").and_then(Value::as_str))
        })
}

/// The keys a mapping at `path` may hold, each with its description, in the schema's order.
pub(crate) fn keys(path: &[Seg]) -> Vec<(&'static str, Option<&'static str>)> {
    let mut out: Vec<(&'static str, Option<&'static str>)> = Vec::new();
    for value in at(path) {
        for branch in branches(value) {
            let Some(properties) = branch.get("properties").and_then(Value::as_object) else {
                continue;
            };
            for (name, schema) in properties {
                if out.iter().any(|(n, _)| n == name) {
                    continue;
                }
                let described = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .or_else(|| {
                        branches(schema)
                            .iter()
                            .find_map(|b| b.get("description").and_then(Value::as_str))
                    });
                out.push((name.as_str(), described));
            }
        }
    }
    out
}

/// The values of a closed enumeration (`enum`, `const`) at `path`.
pub(crate) fn enum_values(path: &[Seg]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for value in at(path) {
        for branch in branches(value) {
            let listed = branch
                .get("enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            for v in listed.chain(branch.get("const")) {
                if let Some(s) = v.as_str()
                    && !out.contains(&s)
                {
                    out.push(s);
                }
            }
        }
    }
    out
}

/// The name `schema/rules.json` and `docs/format.md` give the field at `path`: the type that holds it
/// and the keys from there (`Indicator.surface`, `Attack.correlation.logic`).
fn field_name(path: &[Seg]) -> Option<String> {
    if path.is_empty() || path.len() > MAX_DEPTH {
        return None;
    }
    let mut here = root();
    let mut base = "Document".to_owned();
    let mut keys: Vec<&str> = Vec::new();
    for (i, seg) in path.iter().enumerate() {
        // Where `here` refers to a named type, the name restarts from it.
        let mut value = here;
        for _ in 0..MAX_STEPS {
            let Some(name) = value
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                break;
            };
            base = name.to_owned();
            keys.clear();
            value = resolve(value);
        }
        let child = branches(here).into_iter().find_map(|b| match seg {
            Seg::Key(key) => b.get("properties").and_then(|p| p.get(key.as_str())),
            Seg::Index(i) => b
                .get("prefixItems")
                .and_then(|p| p.get(*i))
                .or_else(|| b.get("items")),
        })?;
        if let Seg::Key(key) = seg {
            keys.push(key);
        }
        if i + 1 == path.len() {
            return Some(format!("{base}.{}", keys.join(".")));
        }
        here = child;
    }
    None
}

/// The rules that check the field at `path` (`schema/rules.json`), in the table's order.
pub(crate) fn rules_of(path: &[Seg]) -> Vec<&'static str> {
    static RULES: OnceLock<Value> = OnceLock::new();
    let rules = RULES
        .get_or_init(|| serde_json::from_str(crate::document_schema::RULES).unwrap_or(Value::Null));
    let Some(name) = field_name(path) else {
        return Vec::new();
    };
    rules
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| {
            r.get("fields")
                .and_then(Value::as_array)
                .is_some_and(|f| f.iter().any(|f| f.as_str() == Some(name.as_str())))
        })
        .filter_map(|r| r.get("id").and_then(Value::as_str))
        .collect()
}

/// The `$id` of the schema, the URL a document's `$schema` names.
pub(crate) fn id() -> Option<&'static str> {
    root().get("$id").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(keys: &[&str]) -> Vec<Seg> {
        keys.iter()
            .map(|k| match k.parse::<usize>() {
                Ok(i) => Seg::Index(i),
                Err(_) => Seg::Key((*k).to_owned()),
            })
            .collect()
    }

    #[test]
    fn severity_offers_level_and_confidence_and_its_levels() {
        let keys: Vec<&str> = keys(&path(&["attack", "severity"]))
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["level", "confidence"]);
        let levels = enum_values(&path(&["attack", "severity"]));
        assert!(
            levels.contains(&"critical") && levels.contains(&"low"),
            "{levels:?}"
        );
    }

    #[test]
    fn descriptions_follow_references_and_sequences() {
        let d = description(&path(&["attack", "execution", "actors", "0", "name"]));
        assert!(
            d.is_some_and(|d| d.contains("Unique actor identifier")),
            "{d:?}"
        );
        assert!(description(&path(&["attack", "nope"])).is_none());
        let d = description(&path(&["attack", "indicators", "0", "pattern", "regex"]));
        assert!(d.is_some_and(|d| d.contains("RE2")), "{d:?}");
    }

    #[test]
    fn fields_are_named_as_the_rule_table_names_them() {
        let name = |keys: &[&str]| field_name(&path(keys));
        assert_eq!(
            name(&["attack", "indicators", "0", "surface"]).as_deref(),
            Some("Indicator.surface")
        );
        assert_eq!(
            name(&["attack", "correlation", "logic"]).as_deref(),
            Some("Attack.correlation.logic")
        );
        assert_eq!(name(&["oatf"]).as_deref(), Some("Document.oatf"));
        assert_eq!(
            name(&["attack", "severity"]).as_deref(),
            Some("Attack.severity")
        );
        assert_eq!(
            name(&["attack", "severity", "level"]).as_deref(),
            Some("Severity.level")
        );
        assert_eq!(
            rules_of(&path(&["attack", "indicators", "0", "pattern", "regex"])),
            ["V-013"]
        );
        assert!(rules_of(&path(&["attack", "name"])).is_empty());
    }

    #[test]
    fn deep_paths_are_not_walked() {
        assert!(at(&vec![Seg::Index(0); 100_000]).is_empty());
    }
}
