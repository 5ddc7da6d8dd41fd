//! Turning a case into an outcome: one generic runner per category.

use std::fmt::Write as _;

use serde_json::Value;

use crate::equal::json_equal;
use crate::fixture::{Case, CaseInput, Category};

mod document;
mod evaluate;
mod primitives;
mod runtime;

/// What running one case gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The SDK did what the case expects.
    Pass,
    /// It did not; the strings say what was expected and what came out.
    Fail {
        /// What the case expects, rendered for the report.
        expected: String,
        /// What the SDK produced, rendered for the report.
        actual: String,
    },
    /// The case needs a capability compiled out of this build (counted and printed, never hidden).
    Skip(String),
}

impl Outcome {
    pub(crate) fn fail(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Outcome::Fail {
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// Compares two values with the runner's equality (numbers by value, key order ignored).
    pub(crate) fn compare(expected: &Value, actual: &Value) -> Self {
        if json_equal(expected, actual) {
            Outcome::Pass
        } else {
            Outcome::fail(render(expected), render(actual))
        }
    }
}

/// Renders a value compactly for reports.
pub(crate) fn render(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| String::from("<unprintable>"))
}

/// Fails unless `value` is a mapping whose keys are all in `allowed` and include every key of `required`.
///
/// A misspelt key would otherwise be ignored and the case would pass vacuously.
pub(crate) fn check_keys(
    value: &Value,
    what: &str,
    required: &[&str],
    allowed: &[&str],
) -> Result<(), Outcome> {
    let Value::Object(map) = value else {
        return Err(Outcome::fail(format!("{what} as a mapping"), render(value)));
    };
    if let Some(unknown) = map
        .keys()
        .find(|k| !allowed.contains(&k.as_str()) && !required.contains(&k.as_str()))
    {
        return Err(Outcome::fail(
            format!(
                "{what} with keys among: {}",
                [required, allowed].concat().join(", ")
            ),
            format!("unknown key `{unknown}` in {what}"),
        ));
    }
    if let Some(missing) = required.iter().find(|k| !map.contains_key(**k)) {
        return Err(Outcome::fail(
            format!("{what} with `{missing}`"),
            format!(
                "`{missing}` is missing from {what} (has: {})",
                map.keys()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(())
}

/// The case's input as a value, or a failure for a malformed case.
pub(crate) fn value_input(case: &Case) -> Result<&Value, Outcome> {
    match &case.input {
        CaseInput::Value(value) => Ok(value),
        CaseInput::Raw(_) => Err(Outcome::fail("a value input", "raw bytes")),
    }
}

/// A field of an object input, or a failure naming the missing field.
pub(crate) fn field<'v>(input: &'v Value, name: &str) -> Result<&'v Value, Outcome> {
    input.get(name).ok_or_else(|| {
        let mut message = format!("input without `{name}`");
        if let Some(map) = input.as_object() {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            let _ = write!(message, " (has: {})", keys.join(", "));
        }
        Outcome::fail(format!("input with `{name}`"), message)
    })
}

/// Runs one case (the caller guards against panics).
pub(crate) fn run_case(case: &Case) -> Outcome {
    let result = match &case.category {
        Category::ParseValid | Category::ParseInvalid => document::parse(case),
        Category::Validate => document::validate(case),
        Category::Normalize => document::normalize(case),
        Category::Roundtrip => document::roundtrip(case),
        Category::Evaluate => evaluate::evaluate(case),
        Category::Verdict => evaluate::verdict(case),
        Category::Primitive(function) => primitives::run(function, case),
    };
    result.unwrap_or_else(|outcome| outcome)
}
