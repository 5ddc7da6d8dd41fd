//! `primitives/<function-name>.yaml` cases.

use serde_json::{Value, json};

use oatf::primitives as p;

use super::{Outcome, field, render, value_input};
use crate::fixture::Case;

pub(super) fn run(function: &str, case: &Case) -> Result<Outcome, Outcome> {
    let input = value_input(case)?;
    match function {
        "resolve-simple-path" => resolve_simple_path(input, &case.expected),
        "resolve-wildcard-path" => {
            let path = string(field(input, "path")?)?;
            let values: Vec<Value> = p::resolve_wildcard_path(path, field(input, "value")?)
                .into_iter()
                .cloned()
                .collect();
            Ok(Outcome::compare(
                &case.expected,
                &json!({ "values": values }),
            ))
        }
        "parse-duration" => {
            let text = string(input)?;
            let actual = match p::parse_duration(text) {
                Ok(duration) => json!({ "seconds": duration.as_secs() }),
                Err(_) => json!({ "error": true }),
            };
            Ok(Outcome::compare(&case.expected, &actual))
        }
        "evaluate-condition" => {
            let condition =
                p::Condition::from_value(field(input, "condition")?.clone()).map_err(|e| {
                    Outcome::fail(render(&case.expected), format!("invalid condition: {e}"))
                })?;
            let actual = p::evaluate_condition(&condition, field(input, "value")?);
            Ok(Outcome::compare(&case.expected, &Value::Bool(actual)))
        }
        "evaluate-predicate" => {
            let predicate = p::MatchPredicate::from_value(field(input, "predicate")?.clone())
                .map_err(|e| {
                    Outcome::fail(render(&case.expected), format!("invalid predicate: {e}"))
                })?;
            let actual = p::evaluate_predicate(&predicate, field(input, "value")?);
            Ok(Outcome::compare(&case.expected, &Value::Bool(actual)))
        }
        "extract-protocol" => {
            let mode = string(field(input, "mode")?)?;
            Ok(Outcome::compare(
                &case.expected,
                &Value::from(p::extract_protocol(mode)),
            ))
        }
        other => super::runtime::run(other, case).unwrap_or_else(|| {
            Ok(Outcome::fail(
                "a known primitive",
                format!("unknown primitive file `{other}.yaml`"),
            ))
        }),
    }
}

fn string(value: &Value) -> Result<&str, Outcome> {
    value
        .as_str()
        .ok_or_else(|| Outcome::fail("a string", render(value)))
}

/// `null` expects no resolution; `{found: true, value: V}` expects a resolution to `V` (which may be null);
/// anything else is the expected resolved value.
fn resolve_simple_path(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    let path = string(field(input, "path")?)?;
    let actual = p::resolve_simple_path(path, field(input, "value")?);
    let found_form = expected.as_object().filter(|m| {
        m.len() == 2 && m.get("found") == Some(&Value::Bool(true)) && m.contains_key("value")
    });
    let describe = |v: Option<&Value>| match v {
        None => "did not resolve".to_owned(),
        Some(v) => format!("resolved to {}", render(v)),
    };
    let expected_resolution = match (found_form, expected) {
        (Some(map), _) => map.get("value"),
        (None, Value::Null) => None,
        (None, value) => Some(value),
    };
    let equal = match (expected_resolution, actual) {
        (None, None) => true,
        (Some(e), Some(a)) => p::deep_equal(e, a),
        _ => false,
    };
    Ok(if equal {
        Outcome::Pass
    } else {
        Outcome::fail(describe(expected_resolution), describe(actual))
    })
}
