//! `evaluate/*.yaml` and `verdict/*.yaml` cases.

use std::sync::Arc;

use serde_json::{Value, json};

use oatf::EvalOptions;
use oatf::EvaluationError;
use oatf::EvaluationErrorKind;
use oatf::IndicatorResult;
use oatf::IndicatorVerdict;
use oatf::eval::CelEvaluator;
use oatf::eval::CompiledIndicator;
use oatf::eval::SemanticEvaluator;
use oatf::eval::compute_verdict;
use oatf::evaluate_indicator;
use oatf::model::Attack;
use oatf::model::Indicator;
use oatf::model::SemanticExamples;
use oatf::model::SemanticIntentClass;

use super::{Outcome, check_keys, field, render, value_input};
use crate::fixture::Case;

/// The semantic evaluator of `semantic_evaluator: {present: true, mock_score: S}`: `S` for every text.
struct MockSemantic(f64);

impl SemanticEvaluator for MockSemantic {
    fn evaluate(
        &self,
        _text: &str,
        _intent: &str,
        _intent_class: Option<SemanticIntentClass>,
        _threshold: Option<f64>,
        _examples: Option<&SemanticExamples>,
    ) -> Result<f64, EvaluationError> {
        Ok(self.0)
    }
}

/// The results an `evaluate` case may expect.
const RESULTS: [&str; 4] = ["matched", "not_matched", "error", "skipped"];

/// `cel_evaluator: present | absent`: anything else (a misspelling, a boolean) is an error of the case.
fn cel_evaluator(input: &Value) -> Result<Option<Arc<dyn CelEvaluator>>, Outcome> {
    match input.get("cel_evaluator") {
        None => Ok(None),
        // The conformance crate always builds the facade with its `cel` feature.
        Some(Value::String(s)) if s == "present" => Ok(Some(Arc::new(oatf::cel::CelEngine::new()))),
        Some(Value::String(s)) if s == "absent" => Ok(None),
        Some(other) => Err(Outcome::fail(
            "cel_evaluator: present | absent",
            format!("cel_evaluator: {}", render(other)),
        )),
    }
}

/// `semantic_evaluator: {present: true, mock_score: S} | {present: false}`.
fn semantic_evaluator(input: &Value) -> Result<Option<Arc<dyn SemanticEvaluator>>, Outcome> {
    let Some(semantic) = input.get("semantic_evaluator") else {
        return Ok(None);
    };
    check_keys(
        semantic,
        "`semantic_evaluator`",
        &["present"],
        &["mock_score"],
    )?;
    match semantic.get("present") {
        Some(Value::Bool(true)) => {
            let score = semantic
                .get("mock_score")
                .and_then(Value::as_f64)
                .ok_or_else(|| Outcome::fail("a numeric mock_score", render(semantic)))?;
            Ok(Some(Arc::new(MockSemantic(score))))
        }
        Some(Value::Bool(false)) if semantic.get("mock_score").is_none() => Ok(None),
        Some(Value::Bool(false)) => Err(Outcome::fail(
            "no mock_score without an evaluator",
            render(semantic),
        )),
        _ => Err(Outcome::fail("a boolean `present`", render(semantic))),
    }
}

fn result_name(result: IndicatorResult) -> String {
    match serde_json::to_value(result) {
        Ok(Value::String(name)) => name,
        _ => format!("{result:?}"),
    }
}

/// `{indicator, message, cel_evaluator?, semantic_evaluator?}` → matched / not_matched / error /
/// skipped, and the error kind when the case has `expected_error_kind`.
///
/// The case runs through the entry point SDK §4.4 names, `evaluate_indicator`; the compiled form
/// (`CompiledIndicator`) must agree with it, and gives the error kind.
pub(super) fn evaluate(case: &Case) -> Result<Outcome, Outcome> {
    let input = value_input(case)?;
    check_keys(
        input,
        "`input`",
        &["indicator", "message"],
        &["cel_evaluator", "semantic_evaluator"],
    )?;
    let expected = match &case.expected {
        Value::String(s) if RESULTS.contains(&s.as_str()) => s.as_str(),
        other => {
            return Err(Outcome::fail(
                format!("`expected` one of {}", RESULTS.join(", ")),
                render(other),
            ));
        }
    };
    let expected_kind = match case.extra.get("expected_error_kind") {
        None => None,
        Some(kind @ Value::String(_)) if expected == "error" => Some(kind),
        Some(other) => {
            return Err(Outcome::fail(
                "a string `expected_error_kind` on a case that expects `error`",
                render(other),
            ));
        }
    };
    let indicator: Indicator = serde_json::from_value(field(input, "indicator")?.clone())
        .map_err(|e| Outcome::fail(render(&case.expected), format!("invalid indicator: {e}")))?;
    let message = field(input, "message")?;
    let cel = cel_evaluator(input)?;
    let semantic = semantic_evaluator(input)?;

    let verdict = evaluate_indicator(
        &indicator,
        message,
        &EvalOptions::from_evaluators(cel.clone(), semantic.clone()),
    );
    let entry_point = result_name(verdict.result);

    let mut options = EvalOptions::new();
    if let Some(cel) = cel {
        options = options.with_cel_evaluator(cel);
    }
    if let Some(semantic) = semantic {
        options = options.with_semantic_evaluator(semantic);
    }
    let (compiled_result, kind): (IndicatorResult, Option<EvaluationErrorKind>) =
        match CompiledIndicator::new(&indicator, &options) {
            Err(error) => (IndicatorResult::Error, Some(error.kind())),
            Ok(compiled) => match compiled.try_evaluate(message) {
                Ok(verdict) => (verdict.result, None),
                Err(error) => (IndicatorResult::Error, Some(error.kind())),
            },
        };
    let compiled = result_name(compiled_result);
    if entry_point != compiled {
        return Ok(Outcome::fail(
            format!("evaluate_indicator and CompiledIndicator to agree ({expected})"),
            format!("evaluate_indicator gave {entry_point}, CompiledIndicator gave {compiled}"),
        ));
    }
    if entry_point != expected {
        return Ok(Outcome::fail(
            expected,
            match &verdict.evidence {
                Some(evidence) => format!("{entry_point} ({evidence})"),
                None => entry_point,
            },
        ));
    }
    match expected_kind {
        None => Ok(Outcome::Pass),
        Some(expected_kind) => Ok(Outcome::compare(expected_kind, &json!(kind))),
    }
}

/// `{correlation_logic, indicators, verdicts}` → `{result, evaluation_summary}`, through the spec's
/// `compute_verdict(attack, verdicts)` on an attack built from the input.
pub(super) fn verdict(case: &Case) -> Result<Outcome, Outcome> {
    let input = value_input(case)?;
    check_keys(
        input,
        "`input`",
        &["correlation_logic", "indicators", "verdicts"],
        &[],
    )?;
    check_keys(
        &case.expected,
        "`expected`",
        &["result", "evaluation_summary"],
        &["max_tier"],
    )?;
    check_keys(
        field(&case.expected, "evaluation_summary")?,
        "`expected.evaluation_summary`",
        &["matched", "not_matched", "error", "skipped"],
        &[],
    )?;
    let mut attack = Attack::default();
    let logic = field(input, "correlation_logic")?;
    if !logic.is_string() {
        return Err(Outcome::fail("a string correlation_logic", render(logic)));
    }
    attack.correlation = Some(
        serde_json::from_value(json!({ "logic": logic }))
            .map_err(|e| Outcome::fail("a readable correlation_logic", e.to_string()))?,
    );
    let Value::Array(items) = field(input, "indicators")? else {
        return Err(Outcome::fail(
            "a list of indicators",
            render(field(input, "indicators")?),
        ));
    };
    let mut indicators = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(map) = item else {
            return Err(Outcome::fail("an indicator mapping", render(item)));
        };
        // `{id}` alone names a declared indicator; anything more must be a readable indicator (its
        // method does not matter to the verdict, but a misspelt key must not pass unseen).
        let indicator = if map.keys().all(|k| k == "id" || k == "tier") {
            let id = match item.get("id") {
                None => None,
                Some(Value::String(id)) => Some(id.clone()),
                Some(other) => return Err(Outcome::fail("a string indicator id", render(other))),
            };
            // The indicator's `tier` (format §6.5); an unknown value is kept and counts as none.
            let tier = match item.get("tier") {
                None => None,
                Some(tier @ Value::String(_)) => Some(
                    serde_json::from_value(tier.clone())
                        .map_err(|e| Outcome::fail("a readable tier", e.to_string()))?,
                ),
                Some(other) => return Err(Outcome::fail("a string tier", render(other))),
            };
            Indicator {
                id,
                tier,
                ..Indicator::default()
            }
        } else {
            serde_json::from_value(item.clone())
                .map_err(|e| Outcome::fail("a readable indicator", e.to_string()))?
        };
        indicators.push(indicator);
    }
    attack.indicators = Some(indicators);
    let Value::Array(verdict_items) = field(input, "verdicts")? else {
        return Err(Outcome::fail(
            "a list of verdicts",
            render(field(input, "verdicts")?),
        ));
    };
    let mut verdicts: Vec<IndicatorVerdict> = Vec::with_capacity(verdict_items.len());
    for item in verdict_items {
        check_keys(
            item,
            "a verdict",
            &["indicator_id", "result"],
            &["timestamp", "evidence", "source"],
        )?;
        verdicts.push(
            serde_json::from_value(item.clone())
                .map_err(|e| Outcome::fail("a readable verdict", e.to_string()))?,
        );
    }
    let verdict = compute_verdict(&attack, &verdicts);
    let mut actual = json!({
        "result": verdict.result,
        "evaluation_summary": verdict.evaluation_summary,
    });
    // `max_tier` is compared when the case states it (`max_tier: null` means absent).
    if let (Some(expected), Some(object)) = (case.expected.as_object(), actual.as_object_mut())
        && expected.contains_key("max_tier")
    {
        object.insert("max_tier".to_owned(), json!(verdict.max_tier));
    }
    Ok(Outcome::compare(&case.expected, &actual))
}
