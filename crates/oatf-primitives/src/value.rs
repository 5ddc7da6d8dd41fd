//! Value semantics shared by conditions: deep equality, numeric comparison and the compact JSON
//! coercion of string operators (SDK §5.3, spec-decisions item 13).

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// The deepest value [`write_compact_sorted`] descends into; deeper parts are written as `null`.
///
/// Values built by this SDK's parsers are never this deep (they bound nesting far below), so the limit
/// only guards hand-built values against exhausting the stack.
pub(crate) const MAX_VALUE_DEPTH: usize = 512;

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

/// Writes `value` as compact JSON with object keys sorted lexicographically (spec-decisions item 13).
///
/// Strings and numbers are written exactly as serde_json writes them.
pub fn write_compact_sorted(value: &Value, out: &mut String) {
    write_at(value, out, 0, true);
}

/// Writes `value` as compact JSON with object keys in document order, as serde_json writes it, but
/// with bounded recursion: values nested deeper than 512 levels are written as `null` (serde_json's
/// writer recurses without limit and overflows the stack on a hand-built 10,000-deep value).
pub fn write_compact(value: &Value, out: &mut String) {
    write_at(value, out, 0, false);
}

/// Returns `value` as compact JSON with object keys in document order; see [`write_compact`].
pub fn to_compact_json(value: &Value) -> String {
    let mut out = String::new();
    write_compact(value, &mut out);
    out
}

/// Returns `value` as compact JSON with object keys sorted; see [`write_compact_sorted`].
pub fn to_compact_sorted_json(value: &Value) -> String {
    let mut out = String::new();
    write_compact_sorted(value, &mut out);
    out
}

fn write_at(value: &Value, out: &mut String, depth: usize, sorted: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(s, out),
        _ if depth >= MAX_VALUE_DEPTH => out.push_str("null"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_at(item, out, depth + 1, sorted);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sorted {
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_at(item, out, depth + 1, sorted);
            }
            out.push('}');
        }
    }
}

/// Writes a JSON string literal with serde_json's escaping. Runs of characters that need no escape
/// are copied in one piece (only ASCII bytes are ever escaped, so a run never splits a character).
fn write_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            0x00..=0x1F => "",
            _ => continue,
        };
        out.push_str(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            for nibble in [byte >> 4, byte & 0xF] {
                out.push(char::from(
                    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                ));
            }
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_escaped_like_serde_json_in_bulk_runs() {
        // Every ASCII byte, in runs and alone, between multi-byte characters.
        let mut text = String::from("héllo");
        for b in 0u8..=0x7F {
            text.push(char::from(b));
            text.push_str("ü✓");
        }
        text.push_str("tail 🦀");
        for s in [text.as_str(), "", "\"", "plain", "\u{1f}x", "x\u{0}"] {
            let value = Value::String(s.to_owned());
            assert_eq!(
                to_compact_json(&value),
                serde_json::to_string(&value).unwrap_or_default(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn compact_json_in_document_order_matches_serde_json_and_is_bounded() {
        let value = json!({"b": [1, 1.5, -0.0, 1e300, "é\u{1}\"\\"], "a": {"z": null, "y": true}});
        assert_eq!(
            to_compact_json(&value),
            serde_json::to_string(&value).unwrap_or_default()
        );
        let mut deep = json!(1);
        for _ in 0..600 {
            deep = json!([deep]);
        }
        let text = to_compact_json(&deep);
        assert!(text.starts_with(&"[".repeat(512)) && text.contains("null"));
    }

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

    #[test]
    fn compact_json_sorts_keys_and_escapes_like_serde_json() {
        let value = json!({"b": 1, "a": {"d": [true, null], "c": "x\"y\n\u{1}"}, "é": 1.5});
        let got = to_compact_sorted_json(&value);
        assert_eq!(
            got,
            r#"{"a":{"c":"x\"y\n\u0001","d":[true,null]},"b":1,"é":1.5}"#
        );
        let reparsed: Value = serde_json::from_str(&got).unwrap();
        assert_eq!(reparsed, value);
    }
}
