//! Property tests (proptest, 256 cases per property): normalize is idempotent and survives a
//! serialize/parse round trip, the primitives are total on arbitrary values and paths, and indicators
//! give what a small reference evaluator written here (`oracle`, from SDK §4.2, §5.1.2 and §5.3)
//! gives, through the entry point `evaluate_indicator` and the compiled form alike.

use crate::reference;

use oatf::Document;
use oatf::EvalOptions;
use oatf::eval::CompiledIndicator;
use oatf::model::Indicator;
use oatf::primitives::Condition;
use oatf::primitives::MatchPredicate;
use oatf::primitives::SimplePath;
use oatf::primitives::WildcardPath;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Arbitrary JSON: unicode strings, ints, uints, floats, nesting up to 4 levels.
fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        Just(json!(1.0)),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "a",
            "b",
            "{{x}}",
            "/etc/passwd",
            "ignore previous",
            ""
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "a",
            "b",
            "tools",
            "name",
            "arguments",
            "0",
            "",
            "x.y",
            "é"
        ])
        .prop_map(str::to_owned),
        "[a-z]{1,6}",
    ]
}

/// Arbitrary path strings: well-formed ones from a grammar, and noise.
fn path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        key().prop_map(|k| k.replace('.', "")),
        Just("[*]".to_owned())
    ];
    prop_oneof![
        prop::collection::vec(segment, 0..6).prop_map(|segments| {
            let mut path = String::new();
            for s in segments {
                if s == "[*]" || path.is_empty() {
                    path.push_str(&s);
                } else {
                    path.push('.');
                    path.push_str(&s);
                }
            }
            path
        }),
        "\\PC{0,16}",
        "[a-z\\.\\[\\]\\*]{0,16}",
    ]
}

/// Conditions of every operator, with arbitrary operands.
fn condition() -> impl Strategy<Value = Value> {
    prop_oneof![
        "\\PC{0,6}".prop_map(|s| json!({"contains": s})),
        "\\PC{0,6}".prop_map(|s| json!({"starts_with": s})),
        "\\PC{0,6}".prop_map(|s| json!({"ends_with": s})),
        prop::sample::select(vec!["a+", "(a+)+$", "^$", "(?i)IGNORE", "[", "\\d{2,}"])
            .prop_map(|r| json!({"regex": r})),
        prop::collection::vec(json_value(), 0..3).prop_map(|v| json!({"any_of": v})),
        (any::<i32>(), any::<i32>()).prop_map(|(a, b)| json!({"gt": a, "lte": b})),
        any::<bool>().prop_map(|b| json!({"exists": b})),
        json_value(),
    ]
}

/// Indicators of every method (pattern, expression, semantic) and form (standard, shorthand).
fn indicator() -> impl Strategy<Value = Value> {
    prop_oneof![
        (path(), condition()).prop_map(|(t, c)| json!({"target": t, "pattern": {"condition": c}})),
        (path(), path(), condition())
            .prop_map(|(t, pt, c)| json!({"target": t, "pattern": {"target": pt, "condition": c}})),
        (path(), "\\PC{0,6}").prop_map(|(t, s)| json!({"target": t, "pattern": {"contains": s}})),
        prop::sample::select(vec![
            "size(message) > 0",
            "message.a == 1",
            "has(message.tools) && message.tools.exists(t, t.name == 'a')",
            "message.b.startsWith('x')",
            "1 +",
        ])
        .prop_map(|cel| json!({"target": "", "expression": {"cel": cel}})),
        "\\PC{0,8}".prop_map(|intent| json!({"target": "", "semantic": {"intent": intent}})),
    ]
}

/// A valid-ish OATF document as JSON, built structurally: execution in one of the three forms,
/// extensions everywhere, indicators of every method.
fn document() -> impl Strategy<Value = Value> {
    let extensions = || prop::collection::vec(("x-[a-z]{1,4}", json_value()), 0..3);
    let phase = (
        prop::option::of("[a-z\\-0-9]{1,8}"),
        json_value(),
        extensions(),
        prop::option::of("\\PC{0,10}"),
    )
        .prop_map(|(name, state, ext, log)| {
            let mut phase = Map::new();
            if let Some(name) = name {
                phase.insert("name".into(), json!(name));
            }
            phase.insert("state".into(), json!({"tools": [], "x": state}));
            if let Some(message) = log {
                phase.insert("on_enter".into(), json!([{"log": {"message": message}}]));
            }
            phase.extend(ext);
            Value::Object(phase)
        })
        .boxed();
    let execution = prop_oneof![
        json_value().prop_map(|s| json!({"mode": "mcp_server", "state": {"tools": [], "s": s}})),
        prop::collection::vec(phase.clone(), 1..3)
            .prop_map(|phases| json!({"mode": "mcp_server", "phases": phases})),
        prop::collection::vec(phase, 1..3).prop_map(|phases| {
            json!({"actors": [{"name": "server", "mode": "mcp_server", "phases": phases}]})
        }),
    ];
    (
        prop::option::of("\\PC{0,16}"),
        prop::option::of(prop::sample::select(vec![
            "low", "medium", "high", "critical",
        ])),
        prop::option::of(prop::collection::vec("[A-Za-z_ ]{1,8}", 0..3)),
        execution,
        prop::collection::vec(indicator(), 0..4),
        extensions(),
    )
        .prop_map(|(name, severity, tags, execution, indicators, ext)| {
            let mut attack = Map::new();
            if let Some(name) = name {
                attack.insert("name".into(), json!(name));
            }
            if let Some(level) = severity {
                attack.insert("severity".into(), json!(level));
            }
            if let Some(tags) = tags {
                attack.insert("classification".into(), json!({"tags": tags}));
            }
            attack.insert("execution".into(), execution);
            if !indicators.is_empty() {
                attack.insert("indicators".into(), json!(indicators));
            }
            attack.extend(ext);
            json!({"oatf": "0.1", "attack": attack})
        })
}

/// Normalize is idempotent; a valid document survives serialize → parse → normalize unchanged.
fn check_document(document: Document) -> Result<(), TestCaseError> {
    let valid = oatf::validate(&document).is_valid();
    let normalized = oatf::model::normalize(document);
    prop_assert_eq!(
        &oatf::model::normalize(normalized.clone()),
        &normalized,
        "not idempotent"
    );
    let yaml = oatf::model::serialize(&normalized);
    let reparsed = oatf::parse(&yaml);
    prop_assert!(
        reparsed.is_ok(),
        "serialized output does not parse:\n{}",
        yaml
    );
    if valid && let Ok(reparsed) = reparsed {
        prop_assert_eq!(
            &oatf::model::normalize(reparsed),
            &normalized,
            "round trip:\n{}",
            yaml
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn normalize_is_idempotent_and_round_trips(document in document()) {
        if let Ok(document) = serde_json::from_value::<Document>(document) {
            check_document(document)?;
        }
    }

    #[test]
    fn generated_documents_round_trip_through_yaml_text(document in document()) {
        // Through the YAML reader as well: JSON is YAML 1.2.
        let text = serde_json::to_string(&document).unwrap_or_default();
        if let Ok(document) = oatf::parse(&text) {
            check_document(document)?;
        }
    }

    #[test]
    fn resolvers_are_total(path in path(), value in json_value()) {
        let simple = oatf::primitives::resolve_simple_path(&path, &value);
        let all = oatf::primitives::resolve_wildcard_path(&path, &value);
        prop_assert_eq!(SimplePath::parse(&path).ok().and_then(|p| p.resolve(&value)), simple);
        if let Ok(wildcard) = WildcardPath::parse(&path) {
            prop_assert_eq!(wildcard.resolve(&value), all.clone());
        }
        if !path.contains("[*]") {
            prop_assert_eq!(all.first().copied(), simple);
        }
    }

    #[test]
    fn conditions_and_predicates_are_total(
        condition in condition(),
        predicate in prop::collection::vec((path(), condition()), 0..3),
        value in json_value(),
    ) {
        if let Ok(condition) = Condition::from_value(condition) {
            let _ = oatf::primitives::evaluate_condition(&condition, &value);
        }
        let predicate: Map<String, Value> = predicate.into_iter().collect();
        if let Ok(predicate) = MatchPredicate::from_value(Value::Object(predicate)) {
            let _ = oatf::primitives::evaluate_predicate(&predicate, &value);
        }
    }

}

proptest! {
    // More cases than the other properties: each is cheap, and narrow differences (a boundary of
    // `gt`, the key order of a coerced object) need many draws to show.
    #![proptest_config(ProptestConfig { cases: 2048, ..config() })]
    #[test]
    fn indicators_agree_with_the_reference_evaluator(
        (indicator, method) in oracle::indicator(),
        message in oracle::message(),
    ) {
        prop_assert!(reference::supports(&indicator), "outside the oracle: {}", indicator);
        let expected = oracle::evaluate(&indicator, &message);
        let typed: Indicator = serde_json::from_value(indicator.clone())
            .map_err(|e| TestCaseError::fail(format!("generated indicator does not read: {e}")))?;
        // The entry point of SDK §4.4, without evaluators (expression and semantic are `skipped`).
        let verdict = oatf::evaluate_indicator(&typed, &message, &EvalOptions::new());
        prop_assert_eq!(verdict.result, expected, "{} {} on {}", method, indicator, message);
        // The compiled form gives the same result.
        let compiled = CompiledIndicator::new(&typed, &EvalOptions::new())
            .map_err(|e| TestCaseError::fail(format!("does not compile: {e}")))?;
        prop_assert_eq!(compiled.evaluate(&message).result, expected);
    }
}

/// Fuzz finding (`normalize_serialize_roundtrip`, crash-884b6c51…): `attack` written as a scalar
/// parses (V-003 is a validation error, spec-decisions 1) but the model cannot hold the scalar, so
/// the serialized document has no `attack` and reads back without the V-003 fact. The round trip is
/// a property of valid documents; this one is reported, not round-tripped.
#[test]
fn scalar_attack_is_invalid_and_not_round_tripped() {
    let document = oatf::parse("oatf: \"0.1\"\nattack: \"OATF-003\"\n").expect("parses");
    let result = oatf::validate(&document);
    assert!(
        result.errors().iter().any(|e| e.rule() == "V-003"),
        "{:?}",
        result.errors()
    );
    assert_eq!(
        oatf::model::serialize(&oatf::model::normalize(document)),
        "oatf: \"0.1\"\n"
    );
    // The harness property it exposed still holds for it: normalize is idempotent.
    let document = oatf::parse("oatf: \"0.1\"\nattack: \"OATF-003\"\n").expect("parses");
    let once = oatf::model::normalize(document);
    assert_eq!(oatf::model::normalize(once.clone()), once);
}

/// Generators for the reference evaluator of `reference/mod.rs`: messages and indicators over a small
/// alphabet, so that paths and operators often hit.
mod oracle {
    pub(super) use super::reference::evaluate;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    const KEYS: [&str; 3] = ["a", "b", "c"];

    /// Messages over a small alphabet of keys and values, so that paths and operators often hit: an
    /// object at the root (as protocol messages are), with every key present most of the time.
    pub(super) fn message() -> BoxedStrategy<Value> {
        let leaf = prop_oneof![
            1 => Just(Value::Null),
            1 => any::<bool>().prop_map(Value::Bool),
            3 => (-3i64..4).prop_map(Value::from),
            1 => prop::sample::select(vec![0.5, 2.5, -1.5]).prop_map(Value::from),
            3 => "[ab]{0,3}".prop_map(Value::String),
        ];
        let value = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..4).prop_map(
                    |entries| {
                        Value::Object(
                            entries
                                .into_iter()
                                .map(|(k, v)| (k.to_owned(), v))
                                .collect::<Map<_, _>>(),
                        )
                    }
                ),
            ]
        });
        // Every key at the root, in a random order (the coercion must sort keys).
        (
            Just(KEYS.to_vec()).prop_shuffle(),
            prop::collection::vec(value, 3),
        )
            .prop_map(|(keys, values)| {
                Value::Object(
                    keys.into_iter()
                        .map(str::to_owned)
                        .zip(values)
                        .collect::<Map<_, _>>(),
                )
            })
            .boxed()
    }

    /// Wildcard paths of §5.1.2 over the same keys, the empty path included.
    fn path() -> impl Strategy<Value = String> {
        prop::collection::vec((prop::sample::select(KEYS.to_vec()), any::<bool>()), 0..3).prop_map(
            |segments| {
                segments
                    .into_iter()
                    .map(|(key, all)| {
                        if all {
                            format!("{key}[*]")
                        } else {
                            key.to_owned()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(".")
            },
        )
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            "[ab]{0,2}".prop_map(Value::String),
            (-3i64..4).prop_map(Value::from),
            prop::sample::select(vec![2.0, 0.5, -1.5]).prop_map(Value::from),
            any::<bool>().prop_map(Value::Bool),
        ]
    }

    fn operator() -> impl Strategy<Value = (String, Value)> {
        // Short texts, and prefixes of coerced objects and arrays (which depend on the sorted key order).
        let text = || {
            prop_oneof![
                "[ab]{0,2}".prop_map(Value::String),
                prop::sample::select(vec![
                    "{\"a\"", "{\"b\"", "{\"c\"", "\"c\":", "[{", "}]", "1}"
                ])
                .prop_map(Value::from),
            ]
        };
        let number = || prop_oneof![(-3i64..4).prop_map(Value::from), Just(json!(0.5))];
        prop_oneof![
            text().prop_map(|s| ("contains".to_owned(), s)),
            text().prop_map(|s| ("starts_with".to_owned(), s)),
            text().prop_map(|s| ("ends_with".to_owned(), s)),
            prop::collection::vec(scalar(), 0..3)
                .prop_map(|v| ("any_of".to_owned(), Value::Array(v))),
            number().prop_map(|n| ("gt".to_owned(), n)),
            number().prop_map(|n| ("gte".to_owned(), n)),
            number().prop_map(|n| ("lt".to_owned(), n)),
            number().prop_map(|n| ("lte".to_owned(), n)),
            any::<bool>().prop_map(|b| ("exists".to_owned(), Value::Bool(b))),
        ]
    }

    /// A condition: a bare scalar (equality) or a map of one or two operators (AND).
    fn condition() -> impl Strategy<Value = Value> {
        prop_oneof![
            scalar(),
            prop::collection::vec(operator(), 1..3)
                .prop_map(|ops| Value::Object(ops.into_iter().collect::<Map<_, _>>())),
        ]
    }

    /// `(indicator, what it is)`: pattern indicators in shorthand and standard form, and expression and
    /// semantic indicators, which without an evaluator are `skipped` (SDK §4.4).
    pub(super) fn indicator() -> impl Strategy<Value = (Value, &'static str)> {
        prop_oneof![
            4 => (path(), operator()).prop_map(|(t, (op, v))| {
                let mut pattern = Map::new();
                pattern.insert(op, v);
                (json!({"target": t, "pattern": pattern}), "shorthand")
            }),
            4 => (path(), path(), condition()).prop_map(|(t, pt, c)| {
                (json!({"target": t, "pattern": {"target": pt, "condition": c}}), "standard")
            }),
            2 => (path(), condition())
                .prop_map(|(t, c)| (json!({"target": t, "pattern": {"condition": c}}), "inherited target")),
            1 => Just((json!({"target": "", "expression": {"cel": "true"}}), "expression")),
            1 => Just((json!({"target": "", "semantic": {"intent": "x"}}), "semantic")),
        ]
    }
}
