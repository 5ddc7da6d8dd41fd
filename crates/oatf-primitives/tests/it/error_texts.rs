//! The text of every error type says what is wrong.

use oatf_internal::check_regex;
use oatf_primitives::{Condition, parse_duration};
use serde_json::json;

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

/// The messages of reading a condition, a match condition and a predicate from a value are
/// serde_json's words for the same value (they were those of serde's derived deserializer read over
/// the value; the texts below were taken from it), in the order the keys are written.
#[test]
fn condition_errors_are_in_serde_jsons_words() {
    use oatf_primitives::{MatchCondition, MatchPredicate};
    let any = "expected one of `contains`, `starts_with`, `ends_with`, `regex`, `any_of`, `gt`, `lt`, `gte`, `lte`, `exists`";
    for (value, expected) in [
        (json!({"contains": 5}), "invalid type: integer `5`, expected a string".to_owned()),
        (json!({"gt": "x"}), "invalid type: string \"x\", expected a JSON number".to_owned()),
        (json!({"any_of": 3}), "invalid type: integer `3`, expected a sequence".to_owned()),
        (json!({"exists": "yes"}), "invalid type: string \"yes\", expected a boolean".to_owned()),
        (json!({"lt": 1.5, "exists": null, "starts_with": [1]}), "invalid type: sequence, expected a string".to_owned()),
        (json!({"regex": {}, "gte": true}), "invalid type: map, expected a string".to_owned()),
        (json!({"regex": "a", "zz": 1}), "condition mixes operators with the unknown key `zz`, expected one of contains, starts_with, ends_with, regex, any_of, gt, lt, gte, lte, exists".to_owned()),
    ] {
        let error = Condition::from_value(value.clone()).unwrap_err();
        assert_eq!(error.message(), expected, "{value}");
    }
    for (value, expected) in [
        (
            json!(null),
            "invalid type: null, expected struct MatchCondition".to_owned(),
        ),
        (
            json!(1.5),
            "invalid type: floating point `1.5`, expected struct MatchCondition".to_owned(),
        ),
        (
            json!(-3),
            "invalid type: integer `-3`, expected struct MatchCondition".to_owned(),
        ),
        (
            json!(18446744073709551615u64),
            "invalid type: integer `18446744073709551615`, expected struct MatchCondition"
                .to_owned(),
        ),
        (json!({"k": 1}), format!("unknown field `k`, {any}")),
        (
            json!({"gt": 1, "zz": 1}),
            format!("unknown field `zz`, {any}"),
        ),
        (
            json!(["a", 1]),
            "invalid type: integer `1`, expected a string".to_owned(),
        ),
        (
            json!([
                null, null, null, null, null, null, null, null, null, null, 1
            ]),
            "invalid length 11, expected fewer elements in array".to_owned(),
        ),
    ] {
        let error = MatchCondition::from_value(value.clone()).unwrap_err();
        assert_eq!(error.message(), expected, "{value}");
        let error = serde_json::from_value::<MatchCondition>(value.clone()).unwrap_err();
        assert_eq!(error.to_string(), expected, "{value}");
    }
    // Serde's reading of a struct as a list: operands in order, the rest absent.
    let read = MatchCondition::from_value(json!(["a", null, "c"])).unwrap();
    assert_eq!(
        (read.contains.as_deref(), read.ends_with.as_deref()),
        (Some("a"), Some("c"))
    );
    assert!(MatchCondition::from_value(json!([])).unwrap().is_empty());
    for (value, expected) in [
        (
            json!("s"),
            "invalid type: string \"s\", expected a map from dot-paths to conditions",
        ),
        (
            json!([]),
            "invalid type: sequence, expected a map from dot-paths to conditions",
        ),
        (
            json!({"p": {"regex": 5}}),
            "invalid type: integer `5`, expected a string",
        ),
        (
            json!({"p": {"x": 1, "gt": 2}}),
            "condition mixes operators with the unknown key `x`, expected one of contains, starts_with, ends_with, regex, any_of, gt, lt, gte, lte, exists",
        ),
    ] {
        let error = MatchPredicate::from_value(value.clone()).unwrap_err();
        assert_eq!(error.message(), expected, "{value}");
    }
}
