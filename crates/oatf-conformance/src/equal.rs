//! The runner's own JSON-model equality, written here so the SDK under test never judges itself.
//!
//! Numbers compare by mathematical value (SDK §5.3: `42` equals `42.0`; `1` never equals `1.5`); objects
//! compare as sets of keys, ignoring order; arrays element by element; strings, booleans and null exactly.

use serde_json::{Number, Value};

/// Whether two fixture values are equal under the JSON model with the spec's number rule.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| json_equal(x, y)))
        }
        _ => false,
    }
}

/// An integer as an exact `i128`, when the number is one.
fn as_integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Exact comparison: two integers by value; an integer and a float only when the float is integral and
/// converts to exactly that integer; two floats by value.
fn numbers_equal(x: &Number, y: &Number) -> bool {
    match (as_integer(x), as_integer(y)) {
        (Some(a), Some(b)) => a == b,
        (Some(int), None) => float_equals_integer(y.as_f64(), int),
        (None, Some(int)) => float_equals_integer(x.as_f64(), int),
        (None, None) => x.as_f64().is_some_and(|a| Some(a) == y.as_f64()),
    }
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    reason = "the float is checked to be integral and within i128 before the cast, and cast back to compare"
)]
fn float_equals_integer(float: Option<f64>, int: i128) -> bool {
    let Some(f) = float else { return false };
    // 2^127 as f64: every integral float strictly inside ±2^127 converts to i128 exactly.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    f.is_finite() && f.fract() == 0.0 && f.abs() < LIMIT && f as i128 == int
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::json_equal;

    #[test]
    fn numbers_by_value() {
        assert!(json_equal(&json!(42), &json!(42.0)));
        assert!(json_equal(&json!(42.0), &json!(42)));
        assert!(!json_equal(&json!(42), &json!(42.5)));
        assert!(!json_equal(&json!(1), &json!(2)));
        assert!(json_equal(&json!(0.5), &json!(0.5)));
        assert!(!json_equal(&json!(0.5), &json!(0.25)));
        assert!(json_equal(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_equal(&json!(u64::MAX), &json!(i64::MAX)));
        assert!(json_equal(&json!(-3), &json!(-3.0)));
        // 2^53 + 1 is not representable as f64: the float 2^53 is not that integer.
        assert!(!json_equal(
            &json!(9_007_199_254_740_993_u64),
            &json!(9_007_199_254_740_992.0)
        ));
    }

    #[test]
    fn structure() {
        assert!(json_equal(
            &json!({"a": 1, "b": [1, 2]}),
            &json!({"b": [1.0, 2], "a": 1})
        ));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": null})));
        assert!(!json_equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_equal(&json!(null), &json!(false)));
        assert!(!json_equal(&json!("1"), &json!(1)));
        assert!(!json_equal(&json!([]), &json!({})));
    }
}
