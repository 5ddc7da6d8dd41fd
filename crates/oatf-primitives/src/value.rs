//! Value semantics shared by conditions: deep equality and numeric comparison (SDK §5.3); the compact
//! JSON coercion of string operators (spec-decisions item 13) is `oatf_internal::json`.

use std::cmp::Ordering;

use serde_json::{Number, Value};

// Deep equality descends as far as the compact JSON writers (`oatf_internal::json`).
use oatf_internal::json::MAX_VALUE_DEPTH;

/// Deep equality of SDK §5.3: numbers by mathematical value (`42 == 42.0`), object key order irrelevant,
/// arrays element-wise, null equal only to null. NaN cannot occur in a `serde_json::Value`; the numeric
/// comparison still treats it as unequal to everything.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    deep_equal_at(a, b, 0)
}

fn deep_equal_at(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => compare_numbers(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| deep_equal_at(x, y, depth + 1))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| deep_equal_at(x, y, depth + 1)))
        }
        _ => false,
    }
}

/// A JSON number as one of the three exact representations serde_json keeps.
#[derive(Clone, Copy, Debug)]
enum Num {
    I(i64),
    U(u64),
    F(f64),
}

fn num(n: &Number) -> Num {
    if let Some(i) = n.as_i64() {
        Num::I(i)
    } else if let Some(u) = n.as_u64() {
        Num::U(u)
    } else {
        Num::F(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Compares two numbers by mathematical value, exactly (no rounding of large integers through `f64`).
/// `None` when either is NaN.
pub(crate) fn compare_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    match (num(a), num(b)) {
        (Num::I(x), Num::I(y)) => Some(x.cmp(&y)),
        (Num::U(x), Num::U(y)) => Some(x.cmp(&y)),
        (Num::I(x), Num::U(y)) => Some(i128::from(x).cmp(&i128::from(y))),
        (Num::U(x), Num::I(y)) => Some(i128::from(x).cmp(&i128::from(y))),
        (Num::F(x), Num::F(y)) => x.partial_cmp(&y),
        (Num::I(x), Num::F(y)) => compare_int_float(i128::from(x), y),
        (Num::U(x), Num::F(y)) => compare_int_float(i128::from(x), y),
        (Num::F(x), Num::I(y)) => compare_int_float(i128::from(y), x).map(Ordering::reverse),
        (Num::F(x), Num::U(y)) => compare_int_float(i128::from(y), x).map(Ordering::reverse),
    }
}

/// Compares an integer with a float exactly.
fn compare_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // Every i64/u64 lies strictly inside ±2^64, so a float outside it decides the order alone.
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    if f >= TWO_POW_64 {
        return Some(Ordering::Less);
    }
    if f <= -TWO_POW_64 {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    // `floor` is integral and within ±2^64, so the conversion is exact.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "floor is integral and in range"
    )]
    let whole = floor as i128;
    match i.cmp(&whole) {
        Ordering::Equal if f > floor => Some(Ordering::Less),
        other => Some(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check_cmp(a: Value, b: Value, expect: Option<Ordering>) {
        let (Value::Number(x), Value::Number(y)) = (&a, &b) else {
            panic!("not numbers")
        };
        assert_eq!(compare_numbers(x, y), expect, "{a} vs {b}");
    }

    #[test]
    fn numbers_compare_exactly_across_representations() {
        check_cmp(json!(42), json!(42.0), Some(Ordering::Equal));
        check_cmp(json!(42.5), json!(42), Some(Ordering::Greater));
        check_cmp(json!(-1), json!(u64::MAX), Some(Ordering::Less));
        check_cmp(
            json!(9_007_199_254_740_993_i64),
            json!(9_007_199_254_740_992.0),
            Some(Ordering::Greater),
        );
        check_cmp(json!(-0.5), json!(0), Some(Ordering::Less));
        check_cmp(json!(-0.5), json!(-1), Some(Ordering::Greater));
        check_cmp(json!(1e300), json!(u64::MAX), Some(Ordering::Greater));
    }

    #[test]
    fn nan_is_unequal_to_everything() {
        assert_eq!(compare_int_float(0, f64::NAN), None);
        assert_eq!(f64::NAN.partial_cmp(&f64::NAN), None);
    }

    #[test]
    fn deep_equality_ignores_key_order_but_not_array_order() {
        assert!(deep_equal(
            &json!({"a": 1, "b": [1, 2.0]}),
            &json!({"b": [1.0, 2], "a": 1.0})
        ));
        assert!(!deep_equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!deep_equal(&json!(null), &json!(0)));
        assert!(!deep_equal(&json!({"a": null}), &json!({"b": null})));
    }
}
