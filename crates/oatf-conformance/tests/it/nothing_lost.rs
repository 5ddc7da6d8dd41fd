//! Nothing is lost: over every document of the corpus and the examples, parse → normalize → serialize
//! → parse keeps extensions (`x-` keys everywhere, Attack to Indicator), binding-specific actions,
//! unicode strings, the kind of every number (`1` stays an integer, `1.0` a float), the key order of
//! protocol payloads (`state`, `content`, `params`) and template text.

use crate::support::documents;

use std::collections::BTreeMap;

use serde_json::Value;

/// What must survive, gathered from a document's JSON form: each kind of fact is a multiset.
#[derive(Default, Debug)]
struct Facts {
    /// `x-` keys with their value as compact JSON in document order.
    extensions: BTreeMap<String, usize>,
    /// Every entry of `on_enter` (actions, binding-specific ones included) as compact JSON.
    actions: BTreeMap<String, usize>,
    /// Every string leaf (unicode and template text included) but tags, which N-008 rewrites.
    strings: BTreeMap<String, usize>,
    /// Every tag, as N-008 normalizes it (lowercase, `_` and spaces to `-`).
    tags: BTreeMap<String, usize>,
    /// Every number leaf as `int:…`, `uint:…` or `float:…` with serde_json's text for it.
    numbers: BTreeMap<String, usize>,
    /// The key sequence of every object under a `state`, `content` or `params` key, at any depth.
    key_orders: BTreeMap<String, usize>,
}

fn add(map: &mut BTreeMap<String, usize>, key: String) {
    *map.entry(key).or_default() += 1;
}

impl Facts {
    fn of(value: &Value) -> Facts {
        let mut facts = Facts::default();
        // (value, inside a protocol payload)
        let mut stack = vec![(value, false)];
        while let Some((value, payload)) = stack.pop() {
            match value {
                Value::String(s) => add(&mut facts.strings, s.clone()),
                Value::Number(n) => {
                    let kind = if n.is_i64() {
                        "int"
                    } else if n.is_u64() {
                        "uint"
                    } else {
                        "float"
                    };
                    add(&mut facts.numbers, format!("{kind}:{n}"));
                }
                Value::Array(items) => stack.extend(items.iter().map(|v| (v, payload))),
                Value::Object(map) => {
                    if payload {
                        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                        add(&mut facts.key_orders, keys.join(","));
                    }
                    for (key, item) in map {
                        if key.starts_with("x-") {
                            add(&mut facts.extensions, format!("{key}={}", compact(item)));
                        }
                        if key == "on_enter"
                            && let Value::Array(actions) = item
                        {
                            for action in actions {
                                add(&mut facts.actions, compact(action));
                            }
                        }
                        if key == "tags"
                            && let Value::Array(tags) = item
                        {
                            for tag in tags.iter().filter_map(Value::as_str) {
                                add(&mut facts.tags, tag.to_lowercase().replace(['_', ' '], "-"));
                            }
                            continue;
                        }
                        let payload =
                            payload || matches!(key.as_str(), "state" | "content" | "params");
                        stack.push((item, payload));
                    }
                }
                Value::Null | Value::Bool(_) => {}
            }
        }
        facts
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Every element of `before` is in `after` at least as often (normalize may add facts, e.g. defaults).
fn missing(before: &BTreeMap<String, usize>, after: &BTreeMap<String, usize>) -> Vec<String> {
    before
        .iter()
        .filter(|(k, n)| after.get(*k).copied().unwrap_or(0) < **n)
        .map(|(k, _)| k.chars().take(200).collect())
        .collect()
}

#[test]
fn parse_normalize_serialize_parse_loses_nothing() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, text) in documents::documents() {
        let Ok(original) = oatf::parse(&text) else {
            failures.push(format!("{name}: does not parse"));
            continue;
        };
        let normalized = oatf::model::normalize(original.clone());
        let yaml = oatf::model::serialize(&normalized);
        let reparsed = match oatf::parse(&yaml) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{name}: serialized output does not parse: {e}"));
                continue;
            }
        };
        let before = Facts::of(&serde_json::to_value(&original).expect("a document is json"));
        let after = Facts::of(&serde_json::to_value(&reparsed).expect("a document is json"));
        for (what, lost) in [
            ("extensions", missing(&before.extensions, &after.extensions)),
            ("actions", missing(&before.actions, &after.actions)),
            ("strings", missing(&before.strings, &after.strings)),
            ("tags", missing(&before.tags, &after.tags)),
            ("numbers", missing(&before.numbers, &after.numbers)),
            (
                "payload key order",
                missing(&before.key_orders, &after.key_orders),
            ),
        ] {
            if !lost.is_empty() {
                failures.push(format!("{name}: {what} lost: {lost:?}"));
            }
        }
        // Extensions and actions are never added by normalize: the multisets are equal.
        if before.extensions != after.extensions || before.actions != after.actions {
            failures.push(format!("{name}: extensions or actions changed"));
        }
        // The reparsed document is the normalized one. For valid documents only: an invalid one may
        // hold what the model cannot (`attack: "OATF-003"`, V-003, is remembered but not kept).
        if oatf::validate(&original).is_valid() && oatf::model::normalize(reparsed) != normalized {
            failures.push(format!(
                "{name}: the round trip changed the normalized document"
            ));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 50, "{checked}");
}

#[test]
fn integer_and_float_kinds_survive() {
    let yaml = "oatf: \"0.1\"\nattack:\n  x-one: 1\n  x-one-float: 1.0\n  x-big: 18446744073709551615\n  x-exp: 1.0e6\n  execution:\n    mode: mcp_server\n    state: {tools: [], params: {b: 1, a: 2.0, c: -0.0}}\n";
    let document = oatf::model::normalize(oatf::parse(yaml).expect("parses"));
    let again = oatf::parse(&oatf::model::serialize(&document)).expect("reparses");
    let json = serde_json::to_value(&again).expect("json");
    let attack = &json["attack"];
    assert!(attack["x-one"].is_i64());
    assert!(attack["x-one-float"].is_f64());
    assert!(attack["x-big"].is_u64());
    assert!(attack["x-exp"].is_f64());
    let params = &attack["execution"]["actors"][0]["phases"][0]["state"]["params"];
    let keys: Vec<&String> = params.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["b", "a", "c"]);
    assert!(params["b"].is_i64() && params["a"].is_f64() && params["c"].is_f64());
}

/// Every corpus document: normalize is idempotent, and a valid one survives serialize → parse →
/// normalize unchanged (moved from the SDK's property tests, whose package does not ship the corpus).
#[test]
fn corpus_documents_are_fixed_points() {
    for (name, text) in documents::documents() {
        let document = oatf::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let valid = oatf::validate(&document).is_valid();
        let normalized = oatf::model::normalize(document);
        assert_eq!(
            oatf::model::normalize(normalized.clone()),
            normalized,
            "{name}: not idempotent"
        );
        let yaml = oatf::model::serialize(&normalized);
        let reparsed = oatf::parse(&yaml)
            .unwrap_or_else(|e| panic!("{name}: serialized output does not parse: {e}\n{yaml}"));
        if valid {
            assert_eq!(
                oatf::model::normalize(reparsed),
                normalized,
                "{name}: round trip\n{yaml}"
            );
        }
    }
}
