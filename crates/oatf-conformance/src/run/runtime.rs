//! `primitives/` cases of the runtime functions (SDK §5.5–§5.10): templates, extractors, responses,
//! triggers and effective state.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// Model types (`Trigger`, `Extractor`, `Phase`, `ResponseEntry`, …) are never named here: each is
// inferred from the parameter of the SDK function it is read for.
use oatf::runtime::AdvanceReason;
use oatf::runtime::ProtocolEvent;
use oatf::runtime::TriggerResult;
use oatf::runtime::TriggerState;

use super::{Outcome, check_keys, field, render, value_input};
use crate::fixture::Case;

/// Runs a runtime primitive case; `None` when `function` is not one of them.
pub(super) fn run(function: &str, case: &Case) -> Option<Result<Outcome, Outcome>> {
    let run: fn(&Value, &Value) -> Result<Outcome, Outcome> = match function {
        "interpolate-template" => interpolate_template,
        "interpolate-value" => interpolate_value,
        "evaluate-extractor" => evaluate_extractor,
        "select-response" => select_response,
        "evaluate-trigger" => evaluate_trigger,
        "compute-effective-state" => compute_effective_state,
        _ => return None,
    };
    Some(value_input(case).and_then(|input| run(input, &case.expected)))
}

/// Converts a fixture value to a model type, or fails the case naming what could not be read.
fn typed<T: DeserializeOwned>(value: &Value, what: &str, expected: &Value) -> Result<T, Outcome> {
    T::deserialize(value)
        .map_err(|e| Outcome::fail(render(expected), format!("unreadable {what}: {e}")))
}

/// Converts a fixture list to a slice of model items and passes it to `f`.
fn with_slice<T: DeserializeOwned, R>(
    value: &Value,
    what: &str,
    expected: &Value,
    f: impl FnOnce(&[T]) -> R,
) -> Result<R, Outcome> {
    let items: Vec<T> = typed(value, what, expected)?;
    Ok(f(&items))
}

/// An optional message: absent or `null` means none.
fn optional<'v>(input: &'v Value, name: &str) -> Option<&'v Value> {
    input.get(name).filter(|v| !v.is_null())
}

fn extractors(input: &Value, expected: &Value) -> Result<BTreeMap<String, String>, Outcome> {
    match input.get("extractors") {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(map) => typed(map, "extractors (a map of strings)", expected),
    }
}

/// `expected` is the rendered string, or `{result: S, diagnostics: [{code: W-004, reference?}]}` when
/// the case also checks the W-004 diagnostics (all of them, in order).
fn interpolate_template(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    check_keys(
        input,
        "`input`",
        &["template", "extractors", "request"],
        &["response"],
    )?;
    let (expected_text, expected_diagnostics) = match expected {
        Value::String(_) => (expected, None),
        Value::Object(_) => {
            check_keys(expected, "`expected`", &["result", "diagnostics"], &[])?;
            let Some(Value::Array(list)) = expected.get("diagnostics") else {
                return Err(Outcome::fail("a list `diagnostics`", render(expected)));
            };
            for item in list {
                check_keys(item, "a diagnostic", &["code"], &["reference"])?;
            }
            (field(expected, "result")?, Some(list))
        }
        other => return Err(Outcome::fail("a string `expected`", render(other))),
    };
    let template = field(input, "template")?
        .as_str()
        .ok_or_else(|| Outcome::fail("a string template", render(input)))?;
    let (text, diagnostics) = oatf::runtime::interpolate_template(
        template,
        &extractors(input, expected)?,
        optional(input, "request"),
        optional(input, "response"),
    );
    let text_outcome = Outcome::compare(expected_text, &Value::String(text));
    let Some(expected_diagnostics) = expected_diagnostics else {
        return Ok(text_outcome);
    };
    if text_outcome != Outcome::Pass {
        return Ok(text_outcome);
    }
    let with_reference = expected_diagnostics
        .iter()
        .any(|d| d.get("reference").is_some());
    let actual: Vec<Value> = diagnostics
        .iter()
        .zip(
            expected_diagnostics
                .iter()
                .chain(std::iter::repeat(&Value::Null)),
        )
        .map(|(d, e)| {
            if with_reference && e.get("reference").is_some() {
                json!({ "code": d.code(), "reference": d.reference() })
            } else {
                json!({ "code": d.code() })
            }
        })
        .collect();
    Ok(Outcome::compare(
        &Value::Array(expected_diagnostics.clone()),
        &Value::Array(actual),
    ))
}

fn interpolate_value(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    check_keys(
        input,
        "`input`",
        &["value", "extractors", "request", "response"],
        &[],
    )?;
    let (value, _diagnostics) = oatf::runtime::interpolate_value(
        field(input, "value")?,
        &extractors(input, expected)?,
        optional(input, "request"),
        optional(input, "response"),
    );
    Ok(Outcome::compare(expected, &value))
}

fn evaluate_extractor(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    check_keys(
        input,
        "`input`",
        &["extractor", "message", "direction"],
        &[],
    )?;
    let actual = oatf::runtime::evaluate_extractor(
        &typed(field(input, "extractor")?, "extractor", expected)?,
        field(input, "message")?,
        typed(field(input, "direction")?, "direction", expected)?,
    );
    Ok(Outcome::compare(
        expected,
        &actual.map_or(Value::Null, Value::String),
    ))
}

fn select_response(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    check_keys(input, "`input`", &["entries", "request"], &[])?;
    if !expected.is_null() {
        check_keys(expected, "`expected`", &["content"], &[])?;
    }
    let request = field(input, "request")?;
    // `{content: C}` compares only the selected entry's content; `null` expects no selection.
    let actual = with_slice(field(input, "entries")?, "entries", expected, |entries| {
        match oatf::runtime::select_response(entries, request) {
            None => Value::Null,
            Some(entry) if expected.is_object() => {
                json!({ "content": entry.content.clone().unwrap_or(Value::Null) })
            }
            Some(entry) => serde_json::to_value(entry).unwrap_or(Value::Null),
        }
    })?;
    Ok(Outcome::compare(expected, &actual))
}

fn evaluate_trigger(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    check_keys(
        input,
        "`input`",
        &["trigger", "event", "elapsed", "state"],
        &[],
    )?;
    check_keys(expected, "`expected`", &["result", "state"], &["reason"])?;
    check_keys(
        field(input, "state")?,
        "`input.state`",
        &["event_count"],
        &[],
    )?;
    if let Some(event) = optional(input, "event") {
        check_keys(event, "`input.event`", &["event_type", "content"], &[])?;
    }
    let event = match optional(input, "event") {
        None => None,
        Some(event) => {
            let event_type = field(event, "event_type")?
                .as_str()
                .ok_or_else(|| Outcome::fail("a string event_type", render(event)))?;
            Some(ProtocolEvent::new(event_type, field(event, "content")?))
        }
    };
    let elapsed_text = field(input, "elapsed")?
        .as_str()
        .ok_or_else(|| Outcome::fail("a duration string for elapsed", render(input)))?;
    let elapsed = oatf::primitives::parse_duration(elapsed_text)
        .map_err(|e| Outcome::fail(render(expected), format!("unreadable elapsed: {e}")))?;
    let count = field(field(input, "state")?, "event_count")?
        .as_u64()
        .ok_or_else(|| Outcome::fail("a non-negative integer state.event_count", render(input)))?;
    let mut state = TriggerState::with_event_count(count);
    let result = oatf::runtime::evaluate_trigger(
        &typed(field(input, "trigger")?, "trigger", expected)?,
        event,
        elapsed,
        &mut state,
    );
    let mut actual = serde_json::Map::new();
    match result {
        TriggerResult::Advanced { reason } => {
            actual.insert("result".into(), "advanced".into());
            let reason = match reason {
                AdvanceReason::EventMatched => "event_matched",
                AdvanceReason::Timeout => "timeout",
            };
            actual.insert("reason".into(), reason.into());
        }
        TriggerResult::NotAdvanced => {
            actual.insert("result".into(), "not_advanced".into());
        }
    }
    actual.insert(
        "state".into(),
        json!({ "event_count": state.event_count() }),
    );
    Ok(Outcome::compare(expected, &Value::Object(actual)))
}

fn compute_effective_state(input: &Value, expected: &Value) -> Result<Outcome, Outcome> {
    check_keys(input, "`input`", &["phases", "phase_index"], &[])?;
    let index = field(input, "phase_index")?
        .as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| Outcome::fail("a non-negative phase_index", render(input)))?;
    let actual = with_slice(field(input, "phases")?, "phases", expected, |phases| {
        oatf::runtime::compute_effective_state(phases, index).cloned()
    })?;
    Ok(Outcome::compare(expected, &actual.unwrap_or(Value::Null)))
}
