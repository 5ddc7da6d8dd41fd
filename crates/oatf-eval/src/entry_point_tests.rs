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
        None,
        semantic,
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
        evaluate_indicator(&expression("yes"), &message, cel(), None).result,
        IndicatorResult::Matched
    );
    assert_eq!(
        evaluate_indicator(&expression("no"), &message, cel(), None).result,
        IndicatorResult::NotMatched
    );
    assert_eq!(
        evaluate_indicator(&expression("yes"), &message, None, None).result,
        IndicatorResult::Skipped
    );
}
