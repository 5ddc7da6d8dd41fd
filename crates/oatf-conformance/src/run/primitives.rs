//! `primitives/<function-name>.yaml` cases.

use serde_json::{Value, json};

use oatf::primitives as p;

use super::{Outcome, check_keys, field, render, value_input};
use crate::equal::json_equal;
use crate::fixture::Case;

pub(super) fn run(function: &str, case: &Case) -> Result<Outcome, Outcome> {
    let input = value_input(case)?;
    match function {
        "resolve-simple-path" => {
            check_keys(input, "`input`", &["path", "value"], &[])?;
            resolve_simple_path(input, &case.expected)
        }
        "resolve-wildcard-path" => {
            check_keys(input, "`input`", &["path", "value"], &[])?;
            check_keys(&case.expected, "`expected`", &["values"], &[])?;
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
            match &case.expected {
                Value::Object(map)
                    if map.len() == 1 && map.get("seconds").is_some_and(Value::is_number) => {}
                Value::Object(map)
                    if map.len() == 1 && map.get("error") == Some(&Value::Bool(true)) => {}
                other => {
                    return Err(Outcome::fail(
                        "`expected` {seconds: N} or {error: true}",
                        render(other),
                    ));
                }
            }
            // Exactly, sub-second part included: whole seconds as an integer, anything finer as a number
            // that must match the expected one by value.
            let actual = match p::parse_duration(text) {
                Ok(duration) if duration.subsec_nanos() == 0 => {
                    json!({ "seconds": duration.as_secs() })
                }
                Ok(duration) => json!({ "seconds": duration.as_secs_f64() }),
                Err(_) => json!({ "error": true }),
            };
            Ok(Outcome::compare(&case.expected, &actual))
        }
        "evaluate-condition" => {
            check_keys(input, "`input`", &["condition", "value"], &[])?;
            boolean_expected(&case.expected)?;
            let condition =
                p::Condition::from_value(field(input, "condition")?.clone()).map_err(|e| {
                    Outcome::fail(render(&case.expected), format!("invalid condition: {e}"))
                })?;
            // A condition that does not compile (a bad regex) is a result of its own, never `false`.
            let value = field(input, "value")?;
            let actual = p::CompiledCondition::new(&condition)
                .and_then(|compiled| compiled.evaluate(value))
                .map_err(|e| {
                    Outcome::fail(render(&case.expected), format!("condition error: {e}"))
                })?;
            Ok(Outcome::compare(&case.expected, &Value::Bool(actual)))
        }
        "evaluate-predicate" => {
            check_keys(input, "`input`", &["predicate", "value"], &[])?;
            boolean_expected(&case.expected)?;
            let predicate = p::MatchPredicate::from_value(field(input, "predicate")?.clone())
                .map_err(|e| {
                    Outcome::fail(render(&case.expected), format!("invalid predicate: {e}"))
                })?;
            let value = field(input, "value")?;
            let actual = p::CompiledPredicate::new(&predicate)
                .and_then(|compiled| compiled.evaluate(value))
                .map_err(|e| {
                    Outcome::fail(render(&case.expected), format!("predicate error: {e}"))
                })?;
            Ok(Outcome::compare(&case.expected, &Value::Bool(actual)))
        }
        "extract-protocol" => {
            check_keys(input, "`input`", &["mode"], &[])?;
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

/// `true` or `false`: anything else would compare unequal for the wrong reason.
fn boolean_expected(expected: &Value) -> Result<(), Outcome> {
    if expected.is_boolean() {
        Ok(())
    } else {
        Err(Outcome::fail("`expected` true or false", render(expected)))
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
        (Some(e), Some(a)) => json_equal(e, a),
        _ => false,
    };
    Ok(if equal {
        Outcome::Pass
    } else {
        Outcome::fail(describe(expected_resolution), describe(actual))
    })
}
