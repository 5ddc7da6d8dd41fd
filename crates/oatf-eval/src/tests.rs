//! Unit tests of indicator evaluation over the compiled forms.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use oatf_model::{Indicator, SemanticExamples, SemanticIntentClass};
use serde_json::{Value, json};

use crate::indicator::PATTERN_COMPILES;
use crate::*;

fn indicator(value: Value) -> Indicator {
    match serde_json::from_value(value) {
        Ok(indicator) => indicator,
        Err(e) => panic!("invalid test indicator: {e}"),
    }
}

#[track_caller]
fn check(ind: Value, message: Value, options: &EvalOptions, expect: IndicatorResult) {
    let compiled = match CompiledIndicator::new(&indicator(ind.clone()), options) {
        Ok(c) => c,
        Err(e) => panic!("{ind} does not compile: {e}"),
    };
    let verdict = compiled.evaluate(&message);
    assert_eq!(verdict.result, expect, "{ind} on {message}: {verdict:?}");
}

#[test]
fn pattern_shorthand_uses_indicator_target() {
    let ind = json!({"target": "tools[*].description", "pattern": {"contains": "IMPORTANT"}});
    let message = json!({"tools": [{"description": "fine"}, {"description": "IMPORTANT: x"}]});
    check(
        ind.clone(),
        message,
        &EvalOptions::new(),
        IndicatorResult::Matched,
    );
    check(
        ind,
        json!({"tools": []}),
        &EvalOptions::new(),
        IndicatorResult::NotMatched,
    );
}

#[test]
fn lone_exists_is_decided_by_resolution_count() {
    let exists_false = json!({"target": "a[*].b", "pattern": {"target": "a[*].b", "condition": {"exists": false}}});
    check(
        exists_false.clone(),
        json!({"a": [{"c": 1}]}),
        &EvalOptions::new(),
        IndicatorResult::Matched,
    );
    check(
        exists_false,
        json!({"a": [{"b": null}]}),
        &EvalOptions::new(),
        IndicatorResult::NotMatched,
    );
    // Combined with another operator, `exists: false` is false against any resolved value.
    let combined =
        json!({"target": "x", "pattern": {"condition": {"exists": false, "contains": "a"}}});
    check(
        combined,
        json!({"x": "abc"}),
        &EvalOptions::new(),
        IndicatorResult::NotMatched,
    );
}

#[test]
fn regex_input_over_the_limit_is_regex_timeout() {
    let mut limits = RegexLimits::default();
    limits.max_input_len = 8;
    let options = EvalOptions::new().with_regex_limits(limits);
    let ind = indicator(json!({"id": "X-01", "target": "t", "pattern": {"regex": "a"}}));
    let compiled = CompiledIndicator::new(&ind, &options).ok();
    let err = compiled
        .as_ref()
        .map(|c| c.try_evaluate(&json!({"t": "bbbbbbbbbbbbbbbbbbbb"})));
    let Some(Err(err)) = err else {
        panic!("expected an error, got {err:?}");
    };
    assert_eq!(err.kind(), EvaluationErrorKind::RegexTimeout);
    assert_eq!(err.indicator_id(), Some("X-01"));
}

#[test]
fn evidence_is_truncated() {
    let options = EvalOptions::new().with_evidence_chars(4);
    let ind = indicator(json!({"target": "t", "pattern": {"contains": "a"}}));
    let verdict = CompiledIndicator::new(&ind, &options)
        .map(|c| c.evaluate(&json!({"t": "abcdefgh"})))
        .ok();
    assert_eq!(
        verdict.and_then(|v| v.evidence),
        Some(String::from("abcd…"))
    );
}

#[test]
fn expression_without_cel_is_skipped_and_evaluate_expression_errors() {
    let ind = json!({"target": "", "expression": {"cel": "true"}});
    check(
        ind,
        json!({}),
        &EvalOptions::new(),
        IndicatorResult::Skipped,
    );
    let expression = oatf_model::ExpressionMatch {
        cel: String::from("true"),
        variables: None,
    };
    let err = evaluate_expression(&expression, &json!({}), &EvalOptions::new()).err();
    assert_eq!(
        err.map(|e| e.kind()),
        Some(EvaluationErrorKind::UnsupportedMethod)
    );
}

/// A CEL stand-in: `true`/`false` literals, `var:NAME` (the variable's value must be a bool),
/// counting how often it compiles.
struct CountingCel {
    compiles: AtomicUsize,
}

struct Program(String);

impl CelEvaluator for CountingCel {
    fn compile(
        &self,
        expression: &str,
        _variables: &[&str],
    ) -> Result<Box<dyn CompiledCel>, EvaluationError> {
        self.compiles.fetch_add(1, Ordering::SeqCst);
        Ok(Box::new(Program(expression.to_owned())))
    }
}

impl CompiledCel for Program {
    fn evaluate(
        &self,
        _message: &Value,
        variables: &[(&str, &Value)],
    ) -> Result<bool, EvaluationError> {
        match self.0.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => {
                let name = other.strip_prefix("var:").unwrap_or(other);
                match variables.iter().find(|(n, _)| *n == name) {
                    Some((_, Value::Bool(b))) => Ok(*b),
                    Some((_, v)) => Err(EvaluationError::new(
                        EvaluationErrorKind::TypeError,
                        format!("not a bool: {v}"),
                    )),
                    None => Err(EvaluationError::new(
                        EvaluationErrorKind::CelError,
                        "unbound",
                    )),
                }
            }
        }
    }
}

#[test]
fn cel_program_is_compiled_once_for_many_messages() {
    let cel = Arc::new(CountingCel {
        compiles: AtomicUsize::new(0),
    });
    let options = EvalOptions::new().with_cel_evaluator(cel.clone());
    let ind = indicator(json!({
        "target": "",
        "expression": {"cel": "var:flag", "variables": {"flag": "a.flag", "gone": "no.such"}}
    }));
    let compiled = CompiledIndicator::new(&ind, &options).ok();
    let mut matched = 0;
    for i in 0..1000 {
        let message = json!({"a": {"flag": i % 2 == 0}});
        if compiled.as_ref().map(|c| c.evaluate(&message).result) == Some(IndicatorResult::Matched)
        {
            matched += 1;
        }
    }
    assert_eq!(matched, 500);
    assert_eq!(cel.compiles.load(Ordering::SeqCst), 1);
}

#[test]
fn unresolved_cel_variables_are_null() {
    let cel = Arc::new(CountingCel {
        compiles: AtomicUsize::new(0),
    });
    let options = EvalOptions::new().with_cel_evaluator(cel);
    let ind = indicator(
        json!({"id": "V-01", "target": "", "expression": {"cel": "var:v", "variables": {"v": "missing"}}}),
    );
    let compiled = CompiledIndicator::new(&ind, &options).ok();
    let err = compiled.and_then(|c| c.try_evaluate(&json!({})).err());
    // The stand-in reports the bound value: null, not "unbound".
    assert_eq!(
        err.map(|e| e.message().to_owned()),
        Some(String::from("not a bool: null"))
    );
}

#[test]
fn pattern_is_compiled_once_for_many_messages() {
    let before = PATTERN_COMPILES.with(std::cell::Cell::get);
    let ind = indicator(json!({"target": "t", "pattern": {"regex": "^x[0-9]+$"}}));
    let compiled = CompiledIndicator::new(&ind, &EvalOptions::new()).ok();
    let matched = (0..1000)
        .filter(|i| {
            let message = json!({"t": format!("x{i}")});
            compiled.as_ref().map(|c| c.evaluate(&message).result) == Some(IndicatorResult::Matched)
        })
        .count();
    assert_eq!(matched, 1000);
    assert_eq!(PATTERN_COMPILES.with(std::cell::Cell::get) - before, 1);
}

struct FixedScore(f64, AtomicUsize);

impl SemanticEvaluator for FixedScore {
    fn evaluate(
        &self,
        _text: &str,
        _intent: &str,
        _intent_class: Option<SemanticIntentClass>,
        _threshold: Option<f64>,
        _examples: Option<&SemanticExamples>,
    ) -> Result<f64, EvaluationError> {
        self.1.fetch_add(1, Ordering::SeqCst);
        Ok(self.0)
    }
}

#[test]
fn semantic_threshold_defaults_to_0_7() {
    let ind = json!({"target": "t[*]", "semantic": {"intent": "x"}});
    let at =
        EvalOptions::new().with_semantic_evaluator(Arc::new(FixedScore(0.7, AtomicUsize::new(0))));
    check(
        ind.clone(),
        json!({"t": ["a"]}),
        &at,
        IndicatorResult::Matched,
    );
    let below =
        EvalOptions::new().with_semantic_evaluator(Arc::new(FixedScore(0.69, AtomicUsize::new(0))));
    check(
        ind.clone(),
        json!({"t": ["a"]}),
        &below,
        IndicatorResult::NotMatched,
    );
    check(
        ind.clone(),
        json!({"t": []}),
        &at,
        IndicatorResult::NotMatched,
    );
    check(
        ind,
        json!({"t": ["a"]}),
        &EvalOptions::new(),
        IndicatorResult::Skipped,
    );
}

#[test]
fn compiled_attack_evaluates_a_trace() {
    let attack: oatf_model::Attack = match serde_json::from_value(json!({
        "id": "OATF-900",
        "correlation": {"logic": "all"},
        "indicators": [
            {"target": "a", "pattern": {"contains": "x"}},
            {"target": "b", "pattern": {"condition": {"regex": "(?=y)"}}}
        ]
    })) {
        Ok(a) => a,
        Err(e) => panic!("{e}"),
    };
    let compiled = CompiledAttack::from_attack(&attack, &EvalOptions::new());
    assert_eq!(compiled.compile_errors().count(), 1);
    let verdict = compiled.evaluate_messages(&[json!({"a": "no"}), json!({"a": "xx"})]);
    assert_eq!(verdict.indicator_verdicts[0].indicator_id, "OATF-900-01");
    assert_eq!(
        verdict.indicator_verdicts[0].result,
        IndicatorResult::Matched
    );
    assert_eq!(verdict.indicator_verdicts[1].result, IndicatorResult::Error);
    assert_eq!(verdict.result, AttackResult::Error);
}

#[test]
fn types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledIndicator>();
    assert_send_sync::<CompiledAttack>();
    assert_send_sync::<EvalOptions>();
}

#[test]
fn compiled_attack_from_a_document_with_trace_filtering() {
    let document: oatf_model::Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "correlation": {"logic": "any"},
            "indicators": [
                {"id": "A-01", "surface": "tools/call", "target": "arguments.command",
                 "pattern": {"contains": "curl"}},
                {"id": "A-02", "target": "", "expression": {"cel": "true"}}
            ]
        }
    })) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let compiled = CompiledAttack::new(&document, &EvalOptions::new());
    assert_eq!(compiled.indicators().count(), 2);
    // A trace of (surface, message) pairs; each indicator sees only its surface.
    let trace = [
        ("tools/list", json!({"arguments": {"command": "curl x"}})),
        ("tools/call", json!({"arguments": {"command": "ls"}})),
    ];
    let verdict = compiled.evaluate_messages_with(&trace, |indicator, entry| {
        indicator
            .surface()
            .is_none_or(|s| s == entry.0)
            .then_some(&entry.1)
    });
    assert_eq!(
        verdict.indicator_verdicts[0].result,
        IndicatorResult::NotMatched
    );
    assert_eq!(
        verdict.indicator_verdicts[1].result,
        IndicatorResult::Skipped
    );
    assert_eq!(verdict.result, AttackResult::NotExploited);
    assert_eq!(verdict.evaluation_summary.skipped, 1);
    // No entry applies to A-01: `not_matched` with why (spec-decisions 23), not `skipped`.
    let only_lists = [("tools/list", json!({"arguments": {"command": "curl x"}}))];
    let verdict = compiled.evaluate_messages_with(&only_lists, |indicator, entry| {
        indicator
            .surface()
            .is_none_or(|s| s == entry.0)
            .then_some(&entry.1)
    });
    assert_eq!(
        verdict.indicator_verdicts[0].result,
        IndicatorResult::NotMatched
    );
    assert_eq!(
        verdict.indicator_verdicts[0].evidence.as_deref(),
        Some("no applicable message: the one message did not apply to this indicator")
    );
    // An empty trace observed nothing: the verdict is an error.
    let empty = compiled.evaluate_messages(&[]);
    assert_eq!(empty.result, AttackResult::Error);
    assert_eq!(
        empty.diagnostic.as_deref(),
        Some("the trace has no message: nothing was observed")
    );
}

#[test]
fn evaluate_indicator_never_fails() {
    let bad = indicator(json!({"id": "B-01", "target": "a..b", "pattern": {"contains": "x"}}));
    let verdict = evaluate_indicator(&bad, &json!({}), &EvalOptions::new());
    assert_eq!(verdict.result, IndicatorResult::Error);
    assert_eq!(verdict.indicator_id, "B-01");
    assert!(verdict.timestamp.is_some());
    let pattern = oatf_model::PatternMatch {
        target: Some(String::from("a")),
        ..Default::default()
    };
    let err = evaluate_pattern(&pattern, &json!({"a": 1}), &EvalOptions::new()).err();
    assert_eq!(
        err.map(|e| e.kind()),
        Some(EvaluationErrorKind::UnsupportedMethod)
    );
}

/// A CEL stand-in whose programs all hold and whose guards (when it offers them) have the program's
/// expression as needle and a residual that answers `false`: a guard that breaks the contract on
/// purpose, so that a verdict shows whether whole-trace evaluation used it.
struct GuardingCel {
    offers_guards: bool,
}

impl CelEvaluator for GuardingCel {
    fn compile(&self, _: &str, _: &[&str]) -> Result<Box<dyn CompiledCel>, EvaluationError> {
        Ok(Box::new(Program("true".to_owned())))
    }

    fn compile_guarded(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<(Box<dyn CompiledCel>, Option<CelGuard>), EvaluationError> {
        let guard = self
            .offers_guards
            .then(|| {
                CelGuard::new(vec![expression.to_owned()], "false", |_: &Value| {
                    Some(false)
                })
            })
            .flatten();
        Ok((self.compile(expression, variables)?, guard))
    }
}

#[test]
fn trace_evaluation_uses_the_guards_the_engine_offers() {
    let document: oatf_model::Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "execution": {"mode": "mcp_server", "state": {"tools": []}},
            "indicators": [
                {"surface": "tools/call", "target": "", "expression": {"cel": "needle-a"}},
                {"surface": "tools/call", "target": "", "expression": {"cel": "needle-b"}},
                {"surface": "tools/call", "target": "", "expression": {"cel": "needle-c"}},
                {"surface": "tools/call", "target": "", "expression": {"cel": "needle-d"}},
                {"surface": "tools/call", "target": "", "expression":
                    {"cel": "needle-e", "variables": {"v": "arguments"}}}
            ]
        }
    })) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let message = TraceMessage::new(
        TraceDirection::Incoming,
        "tools/call",
        json!({"arguments": {"path": "needle-b"}}),
    );
    let results = |offers_guards| {
        let options =
            EvalOptions::new().with_cel_evaluator(Arc::new(GuardingCel { offers_guards }));
        let attack = CompiledAttack::new(&document, &options);
        let mut evaluator = TraceEvaluator::new(&attack);
        evaluator.push(&message);
        let verdict = evaluator.finish();
        verdict
            .indicator_verdicts
            .iter()
            .map(|v| v.result)
            .collect::<Vec<_>>()
    };
    use IndicatorResult::{Matched, NotMatched};
    assert_eq!(results(false), [Matched; 5]);
    // Ruled out by the (false) residual where the needle is absent; evaluated where it is present
    // (`needle-b`) and where the expression has variables (no guard is kept).
    assert_eq!(
        results(true),
        [NotMatched, Matched, NotMatched, NotMatched, Matched]
    );
}
