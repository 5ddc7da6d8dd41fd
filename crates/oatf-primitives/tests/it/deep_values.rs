//! Deep equality per JSON type, and deep values bounded at 512 levels by deep equality and the compact
//! JSON writers, which escape like serde_json.

use oatf_internal::json::{to_compact_json, to_compact_sorted_json};
use oatf_primitives::deep_equal;
use serde_json::{Value, json};

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
