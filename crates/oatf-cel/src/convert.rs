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
/// with an error). Recursion stops at that depth.
pub(crate) fn nests_deeper(value: &Value, depth: usize) -> bool {
    if depth > MAX_MESSAGE_DEPTH {
        return true;
    }
    match value {
        Value::Array(items) => items.iter().any(|item| nests_deeper(item, depth + 1)),
        Value::Object(map) => map.values().any(|item| nests_deeper(item, depth + 1)),
        _ => false,
    }
}
