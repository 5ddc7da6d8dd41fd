//! The spec's entry point `evaluate_indicator` (SDK §4.4) uses the evaluators it is given: a semantic
//! indicator is decided by the semantic evaluator's score against the threshold, and is `skipped` only
//! without one (a survivor of mutation testing: an `evaluate_indicator` that dropped its semantic
//! evaluator passed every test before these; the same for the CEL evaluator).

use std::sync::Arc;

use serde_json::json;

use crate::*;

/// Returns the same score for every text.
struct Fixed(f64);

impl SemanticEvaluator for Fixed {
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

fn semantic_indicator() -> Indicator {
    match serde_json::from_value(json!({
        "id": "S-1",
        "target": "text",
        "semantic": {"intent": "exfiltrate credentials", "threshold": 0.5}
    })) {
        Ok(indicator) => indicator,
        Err(e) => panic!("invalid test indicator: {e}"),
    }
}

fn with_score(score: Option<f64>) -> IndicatorResult {
    let semantic = score.map(|s| Arc::new(Fixed(s)) as Arc<dyn SemanticEvaluator>);
    evaluate_indicator(
        &semantic_indicator(),
        &json!({"text": "send me the key"}),
        &EvalOptions::from_evaluators(None, semantic),
    )
    .result
}

#[test]
fn evaluate_indicator_uses_its_semantic_evaluator() {
    assert_eq!(with_score(Some(0.9)), IndicatorResult::Matched);
    assert_eq!(with_score(Some(0.1)), IndicatorResult::NotMatched);
    assert_eq!(with_score(None), IndicatorResult::Skipped);
}

/// A CEL evaluator whose programs answer whether the expression text is `yes`.
struct Literal;

struct Answer(bool);

impl CelEvaluator for Literal {
    fn compile(
        &self,
        expression: &str,
        _variables: &[&str],
    ) -> Result<Box<dyn CompiledCel>, EvaluationError> {
        Ok(Box::new(Answer(expression == "yes")))
    }
}

impl CompiledCel for Answer {
    fn evaluate(
        &self,
        _message: &serde_json::Value,
        _variables: &[(&str, &serde_json::Value)],
    ) -> Result<bool, EvaluationError> {
        Ok(self.0)
    }
}

#[test]
fn evaluate_indicator_uses_its_cel_evaluator() {
    let expression = |cel: &str| -> Indicator {
        match serde_json::from_value(json!({"id": "E-1", "target": "", "expression": {"cel": cel}}))
        {
            Ok(indicator) => indicator,
            Err(e) => panic!("invalid test indicator: {e}"),
        }
    };
    let cel = || Some(Arc::new(Literal) as Arc<dyn CelEvaluator>);
    let message = json!({});
    assert_eq!(
        evaluate_indicator(
            &expression("yes"),
            &message,
            &EvalOptions::from_evaluators(cel(), None)
        )
        .result,
        IndicatorResult::Matched
    );
    assert_eq!(
        evaluate_indicator(
            &expression("no"),
            &message,
            &EvalOptions::from_evaluators(cel(), None)
        )
        .result,
        IndicatorResult::NotMatched
    );
    assert_eq!(
        evaluate_indicator(&expression("yes"), &message, &EvalOptions::new()).result,
        IndicatorResult::Skipped
    );
}

/// Scores a text by what it says: `high` 0.9, `nan` NaN, `over` 1.5, `under` -0.1, `one` 1.0,
/// `zero` 0.0, anything else 0.1.
struct ByText;

impl SemanticEvaluator for ByText {
    fn evaluate(
        &self,
        text: &str,
        _intent: &str,
        _intent_class: Option<SemanticIntentClass>,
        _threshold: Option<f64>,
        _examples: Option<&SemanticExamples>,
    ) -> Result<f64, EvaluationError> {
        Ok(match text {
            "high" => 0.9,
            "nan" => f64::NAN,
            "over" => 1.5,
            "under" => -0.1,
            "one" => 1.0,
            "zero" => 0.0,
            _ => 0.1,
        })
    }
}

fn indicator(value: serde_json::Value) -> Indicator {
    match serde_json::from_value(value) {
        Ok(indicator) => indicator,
        Err(e) => panic!("invalid test indicator: {e}"),
    }
}

#[test]
fn a_semantic_indicator_matches_on_any_text_over_the_threshold() {
    let semantic = indicator(json!({
        "id": "S-2", "target": "texts[*]",
        "semantic": {"intent": "x", "threshold": 0.5}
    }));
    let evaluator = || Some(Arc::new(ByText) as Arc<dyn SemanticEvaluator>);
    let on = |texts: serde_json::Value| {
        evaluate_indicator(
            &semantic,
            &json!({ "texts": texts }),
            &EvalOptions::from_evaluators(None, evaluator()),
        )
        .result
    };
    // A low score first does not end the search; a high one later decides.
    assert_eq!(on(json!(["low", "high"])), IndicatorResult::Matched);
    assert_eq!(on(json!(["low", "low"])), IndicatorResult::NotMatched);
    // NaN is an error of the evaluator, not a score.
    assert_eq!(on(json!(["nan"])), IndicatorResult::Error);
    // So is a number outside the contract's range (SDK §6.2, D-250), even one over the threshold;
    // the range's ends are scores.
    assert_eq!(on(json!(["over"])), IndicatorResult::Error);
    assert_eq!(on(json!(["low", "under"])), IndicatorResult::Error);
    assert_eq!(on(json!(["one"])), IndicatorResult::Matched);
    assert_eq!(on(json!(["zero"])), IndicatorResult::NotMatched);
}

#[test]
fn an_unknown_method_is_an_error_verdict() {
    let unknown = indicator(json!({
        "id": "M-1", "target": "x", "method": "telepathy", "pattern": {"contains": "a"}
    }));
    let verdict = evaluate_indicator(&unknown, &json!({"x": "a"}), &EvalOptions::new());
    assert_eq!(verdict.result, IndicatorResult::Error);
    assert!(
        verdict
            .evidence
            .as_deref()
            .is_some_and(|e| e.contains("unknown method `telepathy`")),
        "{verdict:?}"
    );
}

#[test]
fn options_and_compiled_indicators_report_what_they_hold() {
    let options = EvalOptions::new();
    assert!(options.cel_evaluator().is_none() && options.semantic_evaluator().is_none());
    let options = options
        .with_cel_evaluator(Arc::new(Literal))
        .with_semantic_evaluator(Arc::new(ByText));
    assert!(options.cel_evaluator().is_some() && options.semantic_evaluator().is_some());
    assert!(format!("{options:?}").contains("EvalOptions"));

    let expression = indicator(json!({"id": "E-2", "target": "", "expression": {"cel": "yes"}}));
    let skipped = CompiledIndicator::new(&expression, &EvalOptions::new());
    assert!(skipped.as_ref().is_ok_and(CompiledIndicator::is_skipped));
    let compiled = CompiledIndicator::new(&expression, &options);
    assert!(compiled.as_ref().is_ok_and(|c| !c.is_skipped()));
    assert!(format!("{compiled:?}").contains("CompiledIndicator"));
}

#[test]
fn a_lone_exists_names_the_path_in_its_evidence() {
    let exists = indicator(json!({
        "id": "X-1", "target": "a.b", "pattern": {"condition": {"exists": true}}
    }));
    let verdict = evaluate_indicator(&exists, &json!({"a": {"b": 1}}), &EvalOptions::new());
    assert_eq!(verdict.result, IndicatorResult::Matched);
    assert!(
        verdict
            .evidence
            .as_deref()
            .is_some_and(|e| e.contains("`a.b` resolved")),
        "{verdict:?}"
    );
    let verdict = evaluate_indicator(&exists, &json!({"a": {}}), &EvalOptions::new());
    assert_eq!(verdict.result, IndicatorResult::NotMatched);
}
