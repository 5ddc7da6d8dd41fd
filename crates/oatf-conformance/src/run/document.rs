//! `parse/`, `validate/`, `normalize/` and `roundtrip/` cases.

use serde_json::{Map, Value};

use super::{Outcome, check_keys, render, value_input};
use crate::equal::json_equal;
use crate::fixture::{Case, CaseInput, Category};
use crate::yaml;

/// The document text of a case: the raw file of `parse/`, the string input elsewhere.
fn document_text(case: &Case) -> Result<String, Outcome> {
    match &case.input {
        CaseInput::Raw(bytes) => String::from_utf8(bytes.clone())
            .map_err(|e| Outcome::fail("UTF-8 text", format!("input is not UTF-8: {e}"))),
        CaseInput::Value(Value::String(text)) => Ok(text.clone()),
        CaseInput::Value(other) => Err(Outcome::fail("a YAML string input", render(other))),
    }
}

fn describe_parse_errors(errors: &oatf::ParseErrors) -> String {
    // `Display` of a parse error starts with its rule when it has one (`V-020: …`).
    let parts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    format!("parse failed: {}", parts.join("; "))
}

pub(super) fn parse(case: &Case) -> Result<Outcome, Outcome> {
    let must_fail = case.category == Category::ParseInvalid;
    // The bytes go to the SDK as they are: a file that is not UTF-8 must be rejected by `parse_bytes`,
    // not by the runner before the SDK ever sees it.
    let result = match &case.input {
        CaseInput::Raw(bytes) => oatf::model::parse_bytes(bytes),
        CaseInput::Value(Value::String(text)) => oatf::parse(text),
        CaseInput::Value(other) => return Err(Outcome::fail("raw document bytes", render(other))),
    };
    Ok(match (result, must_fail) {
        (Ok(_), false) | (Err(_), true) => Outcome::Pass,
        (Ok(_), true) => Outcome::fail(format!("a parse error ({})", case.name), "parse succeeded"),
        (Err(errors), false) => Outcome::fail("parse succeeds", describe_parse_errors(&errors)),
    })
}

/// One expected `{rule, path?}`.
struct Expectation {
    rule: String,
    path: Option<String>,
}

impl Expectation {
    fn matches(&self, rule: &str, path: Option<&str>) -> bool {
        self.rule == rule && self.path.as_deref().is_none_or(|p| Some(p) == path)
    }

    fn describe(&self) -> String {
        match &self.path {
            Some(path) => format!("{} at {path}", self.rule),
            None => self.rule.clone(),
        }
    }
}

/// Reads `expected.errors` or `expected.warnings`: `None` when absent.
fn expectations(expected: &Value, key: &str) -> Result<Option<Vec<Expectation>>, Outcome> {
    let Some(list) = expected.get(key) else {
        return Ok(None);
    };
    let Value::Array(items) = list else {
        return Err(Outcome::fail(format!("`{key}` as a list"), render(list)));
    };
    items
        .iter()
        .map(|item| {
            check_keys(item, &format!("an entry of `{key}`"), &["rule"], &["path"])?;
            let rule = item.get("rule").and_then(Value::as_str);
            let path = match item.get("path") {
                None => None,
                Some(Value::String(path)) => Some(path.clone()),
                Some(other) => {
                    return Err(Outcome::fail(
                        format!("a string `path` in `{key}`"),
                        render(other),
                    ));
                }
            };
            match rule {
                Some(rule) => Ok(Expectation {
                    rule: rule.to_owned(),
                    path,
                }),
                None => Err(Outcome::fail(
                    format!("a string `rule` in `{key}`"),
                    render(item),
                )),
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Checks reported `(rule, path)` pairs against an expectation list: minimum set, or none at all for `[]`.
fn check_reported(
    what: &str,
    expected: Option<&[Expectation]>,
    must_be_empty: bool,
    reported: &[(String, Option<String>)],
    problems: &mut Vec<String>,
) {
    let describe_reported = || {
        let all: Vec<String> = reported
            .iter()
            .map(|(rule, path)| match path {
                Some(path) => format!("{rule} at {path}"),
                None => rule.clone(),
            })
            .collect();
        if all.is_empty() {
            "none".to_owned()
        } else {
            all.join(", ")
        }
    };
    if must_be_empty && !reported.is_empty() {
        problems.push(format!("no {what}, got: {}", describe_reported()));
        return;
    }
    for expectation in expected.unwrap_or_default() {
        if !reported
            .iter()
            .any(|(rule, path)| expectation.matches(rule, path.as_deref()))
        {
            problems.push(format!(
                "{what} {} not reported (reported: {})",
                expectation.describe(),
                describe_reported()
            ));
        }
    }
}

pub(super) fn validate(case: &Case) -> Result<Outcome, Outcome> {
    let text = document_text(case)?;
    let expected = &case.expected;
    check_keys(
        expected,
        "`expected`",
        &[],
        &["valid", "errors", "warnings"],
    )?;
    if expected.as_object().is_some_and(Map::is_empty) {
        return Err(Outcome::fail(
            "`expected` with `valid`, `errors` or `warnings`",
            "an empty `expected` checks nothing",
        ));
    }
    let errors = expectations(expected, "errors")?;
    let warnings = expectations(expected, "warnings")?;
    let valid = match expected.get("valid") {
        None => None,
        Some(Value::Bool(valid)) => Some(*valid),
        Some(other) => return Err(Outcome::fail("a boolean `valid`", render(other))),
    };
    if valid == Some(true) && errors.as_ref().is_some_and(|e| !e.is_empty()) {
        return Err(Outcome::fail(
            "a consistent `expected`",
            "`valid: true` together with expected errors",
        ));
    }
    let no_errors = valid == Some(true) || errors.as_ref().is_some_and(Vec::is_empty);
    let no_warnings = warnings.as_ref().is_some_and(Vec::is_empty);

    let document = match oatf::parse(&text) {
        Ok(document) => document,
        Err(parse_errors) => {
            // A parse failure satisfies only a case that expects errors, and only when the failure
            // reports every expected {rule, path} itself (FORMAT.md): the rules of the parse errors
            // (V-001, V-020) and the V- errors of the parts of the document that parsed.
            let rest = parse_errors.validate_rest(&oatf::default_validate_options());
            let reported: Vec<(String, Option<String>)> = parse_errors
                .iter()
                .filter_map(|e| Some((e.rule()?.to_owned(), e.path().map(str::to_owned))))
                .chain(
                    rest.errors()
                        .iter()
                        .map(|e| (e.rule().to_owned(), Some(e.path().to_owned()))),
                )
                .collect();
            let expects_errors = errors.as_ref().is_some_and(|e| !e.is_empty());
            let mut problems = Vec::new();
            check_reported("error", errors.as_deref(), false, &reported, &mut problems);
            return Ok(if expects_errors && problems.is_empty() {
                Outcome::Pass
            } else {
                Outcome::fail(render(expected), describe_parse_errors(&parse_errors))
            });
        }
    };

    let result = oatf::validate(&document);
    let reported_errors: Vec<(String, Option<String>)> = result
        .errors()
        .iter()
        .map(|e| (e.rule().to_owned(), Some(e.path().to_owned())))
        .collect();
    let reported_warnings: Vec<(String, Option<String>)> = result
        .warnings()
        .iter()
        .map(|w| (w.code().to_owned(), w.path().map(str::to_owned)))
        .collect();
    let mut problems = Vec::new();
    check_reported(
        "error",
        errors.as_deref(),
        no_errors,
        &reported_errors,
        &mut problems,
    );
    check_reported(
        "warning",
        warnings.as_deref(),
        no_warnings,
        &reported_warnings,
        &mut problems,
    );
    if valid == Some(false) && reported_errors.is_empty() {
        problems.push("errors, got none".to_owned());
    }
    Ok(if problems.is_empty() {
        Outcome::Pass
    } else {
        Outcome::fail(render(expected), problems.join("; "))
    })
}

/// parse → normalize → the document as a JSON value.
fn parse_and_normalize(text: &str) -> Result<Value, String> {
    let document = oatf::parse(text).map_err(|e| describe_parse_errors(&e))?;
    serde_json::to_value(oatf::model::normalize(document))
        .map_err(|e| format!("cannot serialize the model: {e}"))
}

pub(super) fn normalize(case: &Case) -> Result<Outcome, Outcome> {
    let text = document_text(case)?;
    let expected_text = case
        .expected
        .as_str()
        .ok_or_else(|| Outcome::fail("a YAML string `expected`", render(&case.expected)))?;
    let expected = yaml::from_str(expected_text)
        .map_err(|e| Outcome::fail("a readable expected document", e))?;
    let mut actual = parse_and_normalize(&text).map_err(|e| Outcome::fail(render(&expected), e))?;
    drop_inherited_phase_modes(&mut actual, &expected);
    Ok(compare_documents(&expected, &actual))
}

pub(super) fn roundtrip(case: &Case) -> Result<Outcome, Outcome> {
    let text = document_text(case)?;
    if value_input(case).is_err() {
        return Err(Outcome::fail("a YAML string input", "raw bytes"));
    }
    check_keys(&case.expected, "`expected`", &["identical"], &[])?;
    let identical = match case.expected.get("identical") {
        Some(Value::Bool(identical)) => *identical,
        other => {
            return Err(Outcome::fail(
                "a boolean `identical`",
                other.map_or_else(|| "nothing".to_owned(), render),
            ));
        }
    };
    let document = oatf::parse(&text)
        .map_err(|e| Outcome::fail("parse succeeds", describe_parse_errors(&e)))?;
    let first = oatf::model::normalize(document);
    let first_value = serde_json::to_value(&first)
        .map_err(|e| Outcome::fail("a serializable model", e.to_string()))?;
    let written = oatf::model::serialize(&first);
    let second_value = parse_and_normalize(&written).map_err(|e| {
        Outcome::fail(
            "serialize output that parses again",
            format!("{e}\n--- serialized:\n{written}"),
        )
    })?;
    Ok(
        match (compare_documents(&first_value, &second_value), identical) {
            (Outcome::Pass, true) => Outcome::Pass,
            (Outcome::Pass, false) => Outcome::fail(
                "a round trip that changes the document (identical: false)",
                "the round trip gave the same document",
            ),
            (Outcome::Fail { .. } | Outcome::Skip(_), false) => Outcome::Pass,
            (outcome, true) => outcome,
        },
    )
}

/// Upstream expected outputs omit `phase.mode` where it equals the actor's mode (FORMAT.md): remove such a
/// `mode` from the actual document where the expected phase has none.
fn drop_inherited_phase_modes(actual: &mut Value, expected: &Value) {
    let pointer = "/attack/execution/actors";
    let Some(expected_actors) = expected.pointer(pointer).and_then(Value::as_array) else {
        return;
    };
    let Some(actual_actors) = actual.pointer_mut(pointer).and_then(Value::as_array_mut) else {
        return;
    };
    for (actual_actor, expected_actor) in actual_actors.iter_mut().zip(expected_actors) {
        let actor_mode = actual_actor.get("mode").cloned();
        let Some(actual_phases) = actual_actor.get_mut("phases").and_then(Value::as_array_mut)
        else {
            continue;
        };
        let expected_phases = expected_actor.get("phases").and_then(Value::as_array);
        for (index, phase) in actual_phases.iter_mut().enumerate() {
            let expected_has_mode = expected_phases
                .and_then(|phases| phases.get(index))
                .is_some_and(|p| p.get("mode").is_some());
            if let Some(map) = phase.as_object_mut()
                && !expected_has_mode
                && map.get("mode") == actor_mode.as_ref()
            {
                map.remove("mode");
            }
        }
    }
}

/// Structural comparison (numbers by value, key order ignored) that names the first difference.
fn compare_documents(expected: &Value, actual: &Value) -> Outcome {
    match first_difference(expected, actual, String::new()) {
        None => Outcome::Pass,
        Some(difference) => Outcome::fail(
            render(expected),
            format!("{difference}; whole: {}", render(actual)),
        ),
    }
}

fn first_difference(expected: &Value, actual: &Value, path: String) -> Option<String> {
    let at = |p: &str| {
        if p.is_empty() {
            "<root>".to_owned()
        } else {
            p.to_owned()
        }
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => object_difference(e, a, &path),
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Some(format!(
                    "at {}: expected {} items, got {}",
                    at(&path),
                    e.len(),
                    a.len()
                ));
            }
            e.iter()
                .zip(a)
                .enumerate()
                .find_map(|(i, (e, a))| first_difference(e, a, format!("{path}[{i}]")))
        }
        _ if json_equal(expected, actual) => None,
        _ => Some(format!(
            "at {}: expected {}, got {}",
            at(&path),
            render(expected),
            render(actual)
        )),
    }
}

fn object_difference(
    expected: &Map<String, Value>,
    actual: &Map<String, Value>,
    path: &str,
) -> Option<String> {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    for (key, value) in expected {
        match actual.get(key) {
            None => {
                return Some(format!(
                    "at {}: missing (expected {})",
                    join(key),
                    render(value)
                ));
            }
            Some(actual_value) => {
                if let Some(difference) = first_difference(value, actual_value, join(key)) {
                    return Some(difference);
                }
            }
        }
    }
    actual
        .iter()
        .find(|(key, _)| !expected.contains_key(*key))
        .map(|(key, value)| format!("at {}: unexpected {}", join(key), render(value)))
}
