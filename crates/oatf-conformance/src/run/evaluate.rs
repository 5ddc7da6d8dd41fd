//! `evaluate/*.yaml` and `verdict/*.yaml` cases.

use std::sync::Arc;

use serde_json::{Value, json};

use oatf::eval::{
    CompiledIndicator, CorrelationLogic, EvalOptions, EvaluationError, EvaluationErrorKind,
    Indicator, IndicatorResult, IndicatorVerdict, SemanticEvaluator, SemanticExamples,
    SemanticIntentClass, Tier, compute_verdict_for_tiered_ids,
};

use super::{Outcome, field, render, value_input};
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

/// `{indicator, message, cel_evaluator?, semantic_evaluator?}` → matched / not_matched / error /
/// skipped, and the error kind when the case has `expected_error_kind`.
pub(super) fn evaluate(case: &Case) -> Result<Outcome, Outcome> {
    let input = value_input(case)?;
    let indicator: Indicator = serde_json::from_value(field(input, "indicator")?.clone())
        .map_err(|e| Outcome::fail(render(&case.expected), format!("invalid indicator: {e}")))?;
    let message = field(input, "message")?;
    let mut options = EvalOptions::new();
    match input.get("cel_evaluator").and_then(Value::as_str) {
        // The conformance crate always builds the facade with its `cel` feature.
        Some("present") => {
            options = options.with_cel_evaluator(Arc::new(oatf::CelEngine::new()));
        }
        None | Some("absent") => {}
        Some(other) => {
            return Err(Outcome::fail(
                "cel_evaluator: present | absent",
                format!("cel_evaluator: {other}"),
            ));
        }
    }
    if let Some(semantic) = input.get("semantic_evaluator")
        && semantic.get("present").and_then(Value::as_bool) == Some(true)
    {
        let score = semantic
            .get("mock_score")
            .and_then(Value::as_f64)
            .ok_or_else(|| Outcome::fail("a numeric mock_score", render(semantic)))?;
        options = options.with_semantic_evaluator(Arc::new(MockSemantic(score)));
    }
    let (result, kind): (IndicatorResult, Option<EvaluationErrorKind>) =
        match CompiledIndicator::new(&indicator, &options) {
            Err(error) => (IndicatorResult::Error, Some(error.kind())),
            Ok(compiled) => match compiled.try_evaluate(message) {
                Ok(verdict) => (verdict.result, None),
                Err(error) => (IndicatorResult::Error, Some(error.kind())),
            },
        };
    let outcome = Outcome::compare(&case.expected, &json!(result));
    if outcome != Outcome::Pass {
        return Ok(outcome);
    }
    match case.extra.get("expected_error_kind") {
        None => Ok(Outcome::Pass),
        Some(expected_kind) => Ok(Outcome::compare(expected_kind, &json!(kind))),
    }
}

/// `{correlation_logic, indicators, verdicts}` → `{result, evaluation_summary}`.
pub(super) fn verdict(case: &Case) -> Result<Outcome, Outcome> {
    let input = value_input(case)?;
    let logic: CorrelationLogic = match input.get("correlation_logic") {
        None | Some(Value::Null) => CorrelationLogic::Any,
        Some(value) => serde_json::from_value(value.clone())
            .map_err(|e| Outcome::fail(render(&case.expected), format!("invalid logic: {e}")))?,
    };
    let indicators = match field(input, "indicators")? {
        Value::Null => Vec::new(),
        Value::Array(items) => items.clone(),
        other => return Err(Outcome::fail("a list of indicators", render(other))),
    };
    // Indicators without `id` get the N-003 id (`indicator-NN`, no attack id here).
    let ids: Vec<String> = indicators
        .iter()
        .enumerate()
        .map(
            |(index, indicator)| match indicator.get("id").and_then(Value::as_str) {
                Some(id) => id.to_owned(),
                None => format!("indicator-{:02}", index + 1),
            },
        )
        .collect();
    let verdicts: Vec<IndicatorVerdict> = match input.get("verdicts") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => serde_json::from_value(value.clone())
            .map_err(|e| Outcome::fail(render(&case.expected), format!("invalid verdicts: {e}")))?,
    };
    // Each indicator's `tier` (format §6.5); an unknown value counts as none.
    let tiers: Vec<Option<Tier>> = indicators
        .iter()
        .map(|indicator| {
            indicator
                .get("tier")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok())
        })
        .collect();
    let verdict = compute_verdict_for_tiered_ids(logic, None, &ids, &tiers, &verdicts);
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
