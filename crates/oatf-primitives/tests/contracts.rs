//! The public contract of each primitive, checked in this crate itself (mutation testing found these
//! parts covered only by the conformance corpus, which runs from another crate): numeric and string
//! operators, deep equality per JSON type, the compact JSON writers, path errors and accessors, and
//! the text of every error type.
#![allow(clippy::unwrap_used, reason = "a failed setup should fail the test")]

use oatf_primitives::{
    CompiledCondition, Condition, MatchPredicate, PathErrorKind, SimplePath, WildcardPath,
    check_regex, deep_equal, evaluate_condition, parse_duration, to_compact_json,
    to_compact_sorted_json,
};
use serde_json::{Value, json};

fn holds(condition: Value, value: Value) -> bool {
    let condition = Condition::from_value(condition).unwrap();
    let compiled = CompiledCondition::new(&condition)
        .unwrap()
        .evaluate(&value)
        .unwrap();
    assert_eq!(evaluate_condition(&condition, &value), compiled);
    compiled
}

#[test]
fn numeric_operators() {
    assert!(holds(json!({"gt": 5}), json!(7)));
    assert!(!holds(json!({"gt": 5}), json!(5)));
    assert!(!holds(json!({"gt": 5}), json!(3)));
    assert!(holds(json!({"gte": 5}), json!(5)));
    assert!(holds(json!({"lt": 5}), json!(4.5)));
    assert!(!holds(json!({"lte": 5}), json!(5.5)));
    assert!(
        !holds(json!({"gt": 1}), json!("7")),
        "a string is not a number"
    );
}

#[test]
fn any_of_is_deep_equality_with_one_element() {
    assert!(holds(json!({"any_of": ["a", 2]}), json!(2.0)));
    assert!(holds(json!({"any_of": [{"k": [1]}]}), json!({"k": [1.0]})));
    assert!(!holds(json!({"any_of": ["a", 2]}), json!("b")));
    assert!(!holds(json!({"any_of": []}), json!("a")));
}

#[test]
fn each_string_operator_alone_inspects_the_value() {
    assert!(!holds(json!({"contains": "x"}), json!("abc")));
    assert!(!holds(json!({"starts_with": "x"}), json!("abc")));
    assert!(!holds(json!({"ends_with": "x"}), json!("abc")));
    assert!(!holds(json!({"regex": "x"}), json!("abc")));
    assert!(holds(json!({"starts_with": "a"}), json!("abc")));
    assert!(holds(json!({"ends_with": "c"}), json!("abc")));
    assert!(holds(json!({"regex": "b"}), json!("abc")));
}

#[test]
fn condition_to_value_is_what_was_written() {
    for written in [
        json!({"contains": "a", "gt": 1}),
        json!("exact"),
        json!([1, 2]),
    ] {
        assert_eq!(
            Condition::from_value(written.clone()).unwrap().to_value(),
            written
        );
    }
}

#[test]
fn deep_equality_per_type() {
    assert!(deep_equal(&json!(null), &json!(null)));
    assert!(!deep_equal(&json!(null), &json!(false)));
    assert!(deep_equal(&json!(true), &json!(true)));
    assert!(!deep_equal(&json!(true), &json!(false)));
    assert!(deep_equal(&json!("a"), &json!("a")));
    assert!(!deep_equal(&json!("a"), &json!("b")));
    assert!(deep_equal(&json!(42), &json!(42.0)));
    assert!(deep_equal(
        &json!({"a": [1, {"b": null}]}),
        &json!({"a": [1.0, {"b": null}]})
    ));
    assert!(!deep_equal(
        &json!({"a": [1, {"b": null}]}),
        &json!({"a": [1, {"b": false}]})
    ));
}

fn nested_arrays(depth: usize) -> Value {
    let mut value = json!("leaf");
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

fn nested_objects(depth: usize) -> Value {
    let mut value = json!("leaf");
    for _ in 0..depth {
        value = json!({ "k": value });
    }
    value
}

#[test]
fn deep_values_are_bounded_at_512_levels() {
    assert!(deep_equal(&nested_objects(512), &nested_objects(512)));
    assert!(!deep_equal(&nested_objects(513), &nested_objects(513)));
    // Equality descends 512 levels; deeper parts compare unequal (a bound on the stack, documented
    // at `deep_equal`).
    assert!(deep_equal(&nested_arrays(512), &nested_arrays(512)));
    assert!(!deep_equal(&nested_arrays(513), &nested_arrays(513)));
    assert!(!deep_equal(&nested_arrays(600), &nested_arrays(600)));
    // The compact writer writes `null` below the bound.
    let text = to_compact_sorted_json(&nested_arrays(600));
    assert!(text.contains("[null]") && !text.contains("leaf"), "{text}");
    let text = to_compact_sorted_json(&nested_objects(600));
    assert!(
        text.contains("{\"k\":null}") && !text.contains("leaf"),
        "{text}"
    );
    let shallow = to_compact_sorted_json(&nested_arrays(500));
    assert!(shallow.contains("\"leaf\""), "{shallow}");
}

#[test]
fn compact_json_escapes_like_serde_json() {
    let text = "a b\"\\\n\r\t\u{08}\u{0C}\u{01}\u{1F} é";
    let value = json!({"k": text, "a": 1});
    assert_eq!(
        to_compact_json(&value),
        serde_json::to_string(&value).unwrap()
    );
    assert_eq!(
        to_compact_sorted_json(&value),
        serde_json::to_string(&json!({"a": 1, "k": text})).unwrap()
    );
    assert_eq!(to_compact_json(&json!(" ")), "\" \"");
}

#[test]
fn path_errors_point_at_the_byte() {
    let error = SimplePath::parse("ab.c$d").unwrap_err();
    assert_eq!(error.kind(), PathErrorKind::InvalidCharacter('$'));
    assert_eq!(error.offset(), 4);
    assert!(error.to_string().contains("'$' at byte 4"), "{error}");
    let error = SimplePath::parse("abc.de.f$").unwrap_err();
    assert_eq!(error.offset(), 8);
    let error = WildcardPath::parse("ab.cd[0]").unwrap_err();
    assert_eq!(error.kind(), PathErrorKind::InvalidBracket);
    assert_eq!(error.offset(), 5);
    let error = SimplePath::parse("ab.cd[*]").unwrap_err();
    assert_eq!(error.kind(), PathErrorKind::WildcardNotAllowed);
    assert_eq!(error.offset(), 5);
    let error = SimplePath::parse("a..b").unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (PathErrorKind::EmptySegment, 2)
    );
    assert!(error.to_string().contains("byte 2"), "{error}");
    // Every segment character class is allowed, alone.
    for path in ["a", "Z", "0", "_", "-", "a_b-C9"] {
        assert!(SimplePath::parse(path).is_ok(), "{path}");
    }
    assert!(SimplePath::parse("a b").is_err());
}

#[test]
fn paths_keep_their_text() {
    let simple = SimplePath::parse("a.b_c").unwrap();
    assert_eq!(simple.as_str(), "a.b_c");
    assert_eq!(simple.to_string(), "a.b_c");
    let wildcard = WildcardPath::parse("tools[*].name").unwrap();
    assert_eq!(wildcard.as_str(), "tools[*].name");
    assert_eq!(wildcard.to_string(), "tools[*].name");
    assert!(wildcard.has_wildcard());
    assert!(!WildcardPath::parse("tools.name").unwrap().has_wildcard());
}

#[test]
fn predicate_accessors() {
    let predicate = MatchPredicate::from_value(json!({"a.b": "x", "c": {"gt": 1}})).unwrap();
    assert!(!predicate.is_empty());
    let keys: Vec<&str> = predicate
        .entries()
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(keys, ["a.b", "c"]);
    assert!(MatchPredicate::from_value(json!({})).unwrap().is_empty());
    let error = MatchPredicate::from_value(json!([1])).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("a map from dot-paths to conditions"),
        "{error}"
    );
}

#[test]
fn error_texts_say_what_is_wrong() {
    let error = parse_duration("5 minutes").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("invalid duration \"5 minutes\": "),
        "{error}"
    );
    assert!(error.to_string().ends_with(error.reason()), "{error}");
    let error = check_regex("a(?=b)").unwrap_err();
    assert!(!error.message().is_empty());
    assert_eq!(
        error.to_string(),
        format!("{} (at byte {})", error.message(), error.span().start)
    );
    let error = Condition::from_value(json!({"contains": 1})).unwrap_err();
    assert!(!error.message().is_empty());
    assert_eq!(error.to_string(), error.message());
}
