//! Conditions and match predicates: numeric and string operators, `any_of`, what a condition
//! keeps of its text, and predicate accessors; the compiled form gives what `evaluate_condition` gives.

use oatf_primitives::{CompiledCondition, Condition, MatchPredicate, evaluate_condition};
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
