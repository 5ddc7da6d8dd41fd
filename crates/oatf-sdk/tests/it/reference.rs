//! A reference evaluator for indicators, written from the spec text and nothing else: small, slow and
//! obviously correct (SDK §4.2 `evaluate_pattern`, §5.1.2 wildcard paths, §5.3 conditions, §4.4 for
//! methods without an evaluator). It covers the operators whose meaning the spec fixes exactly; `regex`
//! is left to the conformance corpus (an oracle for it would be a regex engine).
//!
//! Shared by `tests/it/properties.rs` and the fuzz target `evaluate_indicator` (through `#[path]`), which
//! use it only on indicators for which [`supports`] holds.
#![allow(dead_code, reason = "each includer uses a part")]

use std::cmp::Ordering;
use std::fmt::Write as _;

use oatf::IndicatorResult;
use serde_json::{Number, Value};

/// The operators this oracle knows.
const OPERATORS: [&str; 9] = [
    "contains",
    "starts_with",
    "ends_with",
    "any_of",
    "gt",
    "gte",
    "lt",
    "lte",
    "exists",
];

/// Whether `path` is a wildcard path of §5.1.2 (segments of `[A-Za-z0-9_-]+`, optional `[*]`).
fn is_path(path: &str) -> bool {
    path.is_empty()
        || path.split('.').all(|segment| {
            let name = segment.strip_suffix("[*]").unwrap_or(segment);
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// Whether [`evaluate`] knows the answer for this indicator: a pattern indicator with wildcard paths and
/// the operators above (operands of the right type), or an expression or semantic indicator, which are
/// `skipped` without an evaluator.
pub(crate) fn supports(indicator: &Value) -> bool {
    let Some(map) = indicator.as_object() else {
        return false;
    };
    if map.keys().any(|k| {
        !matches!(
            k.as_str(),
            "id" | "target" | "pattern" | "expression" | "semantic" | "description"
        )
    }) {
        return false;
    }
    let Some(target) = map.get("target").and_then(Value::as_str) else {
        return false;
    };
    let methods = ["pattern", "expression", "semantic"]
        .iter()
        .filter(|m| map.contains_key(**m))
        .count();
    if methods != 1 || !is_path(target) {
        return false;
    }
    let Some(pattern) = map.get("pattern") else {
        return true;
    };
    let Some(pattern) = pattern.as_object() else {
        return false;
    };
    let condition = match pattern.get("condition") {
        Some(condition) => {
            if pattern.keys().any(|k| k != "condition" && k != "target") {
                return false;
            }
            match pattern.get("target") {
                None => {}
                Some(Value::String(t)) if is_path(t) => {}
                Some(_) => return false,
            }
            condition.clone()
        }
        None => Value::Object(pattern.clone()),
    };
    match &condition {
        Value::Object(ops) => {
            !ops.is_empty()
                && ops.iter().all(|(name, operand)| match name.as_str() {
                    "contains" | "starts_with" | "ends_with" => operand.is_string(),
                    "any_of" => operand.is_array(),
                    "gt" | "gte" | "lt" | "lte" => operand.is_number(),
                    "exists" => operand.is_boolean(),
                    _ => false,
                } && OPERATORS.contains(&name.as_str()))
        }
        // Bare values: equality; floats only where `f64` comparison is exact for the oracle.
        Value::Null => false,
        _ => true,
    }
}

/// SDK §5.1.2.
fn resolve<'v>(path: &str, value: &'v Value) -> Vec<&'v Value> {
    if path.is_empty() {
        return vec![value];
    }
    let mut current = vec![value];
    for segment in path.split('.') {
        let (key, all) = match segment.strip_suffix("[*]") {
            Some(key) => (key, true),
            None => (segment, false),
        };
        let mut next = Vec::new();
        for v in current {
            let Some(field) = v.as_object().and_then(|o| o.get(key)) else {
                continue;
            };
            match (all, field) {
                (false, field) => next.push(field),
                (true, Value::Array(items)) => next.extend(items.iter()),
                (true, _) => {}
            }
        }
        current = next;
    }
    current
}

/// Compact JSON with object keys sorted (§5.3 coercion).
fn compact_sorted(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact_sorted(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}:", Value::String(key.clone()));
                compact_sorted(&map[key.as_str()], out);
            }
            out.push('}');
        }
        scalar => {
            let _ = write!(out, "{scalar}");
        }
    }
}

fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            compact_sorted(other, &mut out);
            out
        }
    }
}

/// An integer as an exact `i128`, when the number is one.
fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// The mathematical order of two JSON numbers, exactly: integers as `i128`; an integer against a float
/// through the (monotonic) conversion to `f64`, settled exactly when the two meet.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    reason = "rounding is monotonic, and the float is integral where it is cast back"
)]
fn order(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => int_float(x, b.as_f64()?),
        (None, Some(y)) => int_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    reason = "see `order`"
)]
fn int_float(int: i128, float: f64) -> Option<Ordering> {
    match (int as f64).partial_cmp(&float)? {
        Ordering::Equal => Some(int.cmp(&(float as i128))),
        other => Some(other),
    }
}

/// Deep equality of §5.3: numbers by mathematical value, key order irrelevant.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => order(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// A numeric operator: false for a non-number (§5.3, "Numeric type mismatches").
fn numeric(value: &Value, operand: &Value, test: fn(Ordering) -> bool) -> bool {
    match (value, operand) {
        (Value::Number(v), Value::Number(o)) => order(v, o).is_some_and(test),
        _ => false,
    }
}

/// One operator against a resolved value (§5.3); `exists` next to others: true is redundant,
/// false can never hold for a resolved value (spec-decisions 14).
fn operator_holds(name: &str, operand: &Value, value: &Value) -> bool {
    let operand_text = || operand.as_str().unwrap_or_default().to_owned();
    match name {
        "contains" => as_text(value).contains(&operand_text()),
        "starts_with" => as_text(value).starts_with(&operand_text()),
        "ends_with" => as_text(value).ends_with(&operand_text()),
        "any_of" => operand
            .as_array()
            .is_some_and(|items| items.iter().any(|item| equal(item, value))),
        "gt" => numeric(value, operand, Ordering::is_gt),
        "gte" => numeric(value, operand, Ordering::is_ge),
        "lt" => numeric(value, operand, Ordering::is_lt),
        "lte" => numeric(value, operand, Ordering::is_le),
        "exists" => operand == &Value::Bool(true),
        other => panic!("the oracle does not know `{other}`"),
    }
}

/// SDK §4.2 for one pattern, §4.4 for the rest (no evaluators configured).
pub(crate) fn evaluate(indicator: &Value, message: &Value) -> IndicatorResult {
    let Some(pattern) = indicator.get("pattern") else {
        return IndicatorResult::Skipped;
    };
    let indicator_target = indicator["target"].as_str().unwrap_or_default();
    let (target, condition) = match pattern.get("condition") {
        Some(condition) => (
            pattern
                .get("target")
                .and_then(Value::as_str)
                .unwrap_or(indicator_target),
            condition.clone(),
        ),
        // Shorthand: the operators sit in `pattern` itself (N-005).
        None => (indicator_target, pattern.clone()),
    };
    let resolved = resolve(target, message);
    let matched = match &condition {
        Value::Object(ops) if ops.len() == 1 && ops.contains_key("exists") => {
            ops["exists"] == Value::Bool(!resolved.is_empty())
        }
        Value::Object(ops) => resolved.iter().any(|value| {
            ops.iter()
                .all(|(name, operand)| operator_holds(name, operand, value))
        }),
        bare => resolved.iter().any(|value| equal(bare, value)),
    };
    if matched {
        IndicatorResult::Matched
    } else {
        IndicatorResult::NotMatched
    }
}
