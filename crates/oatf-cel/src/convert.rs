//! JSON values to CEL values.

use std::collections::HashMap;

use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt,
};
use cel::common::value::Val;
use oatf_eval::{EvaluationError, EvaluationErrorKind as Kind};
use serde_json::Value;

/// The deepest message nesting converted into a CEL value.
pub(crate) const MAX_MESSAGE_DEPTH: usize = 128;

/// Converts a JSON value to a CEL value: integers to `int` (`uint` beyond `i64`), other numbers to
/// `double`, objects to maps with string keys.
/// The CEL value of a JSON value, built directly as the `cel` crate's values and borrowing the
/// message's strings: the `cel::Value` route converted the message twice and copied every string, which
/// was most of the time of an expression indicator (docs/performance.md).
pub(crate) fn to_cel<'v>(
    value: &'v Value,
    depth: usize,
) -> Result<Box<dyn Val + 'v>, EvaluationError> {
    if depth > MAX_MESSAGE_DEPTH {
        return Err(EvaluationError::new(
            Kind::CelError,
            format!("the message nests deeper than {MAX_MESSAGE_DEPTH} levels"),
        ));
    }
    Ok(match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Box::new(CelInt::from(i)),
            (None, Some(u)) => Box::new(CelUInt::from(u)),
            (None, None) => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Array(items) => Box::new(CelList::from(
            items
                .iter()
                .map(|item| to_cel(item, depth + 1))
                .collect::<Result<Vec<_>, _>>()?,
        )),
        Value::Object(map) => {
            let mut out = HashMap::with_capacity(map.len());
            for (key, item) in map {
                out.insert(
                    CelMapKey::String(CelString::from(key.as_str())),
                    to_cel(item, depth + 1)?,
                );
            }
            Box::new(CelMap::from(out))
        }
    })
}

/// Whether `value`, at `depth`, has a value deeper than [`MAX_MESSAGE_DEPTH`] (where [`to_cel`] stops
/// with an error). Recursion stops at that depth, and goes only into lists and maps: a scalar
/// element is too deep exactly when its list or map is at the limit (this walk runs on every
/// evaluation, over the whole message, so scalars cost a comparison, not a call).
pub(crate) fn nests_deeper(value: &Value, depth: usize) -> bool {
    if depth > MAX_MESSAGE_DEPTH {
        return true;
    }
    let child = |item: &Value| match item {
        Value::Array(_) | Value::Object(_) => nests_deeper(item, depth + 1),
        _ => depth + 1 > MAX_MESSAGE_DEPTH,
    };
    match value {
        Value::Array(items) => items.iter().any(child),
        Value::Object(map) => map.values().any(child),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The depth rule as first written: every value visited, scalars included.
    fn naive(value: &Value, depth: usize) -> bool {
        depth > MAX_MESSAGE_DEPTH
            || match value {
                Value::Array(items) => items.iter().any(|item| naive(item, depth + 1)),
                Value::Object(map) => map.values().any(|item| naive(item, depth + 1)),
                _ => false,
            }
    }

    #[test]
    fn nesting_is_measured_like_the_conversion() {
        let leaves = [
            json!(1),
            json!([]),
            json!({}),
            json!([1]),
            json!({"a": null}),
        ];
        for n in 120..135 {
            for leaf in &leaves {
                let mut lists = leaf.clone();
                let mut maps = leaf.clone();
                for i in 0..n {
                    lists = json!([0, lists]);
                    maps = json!({"x": "s", "k": maps, "i": i});
                }
                for value in [&lists, &maps] {
                    let converted = to_cel(value, 0).is_err();
                    assert_eq!(nests_deeper(value, 0), converted, "depth {n} over {leaf}");
                    assert_eq!(naive(value, 0), converted, "depth {n} over {leaf}");
                }
            }
        }
    }
}
