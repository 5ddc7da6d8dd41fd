//! The spec's entry point `evaluate_indicator` (SDK §4.4) uses the evaluators it is given: a semantic
//! indicator is decided by the semantic evaluator's score against the threshold, and is `skipped` only
//! without one (a survivor of mutation testing: an `evaluate_indicator` that dropped its semantic
//! evaluator passed every test before these).

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
