//! Tests of decision D-70: a miss is never silent. The evidence of an indicator no message applied
//! to names the actors the trace had; a target that never resolved is a warning with "did you mean".

use serde_json::{Value, json};

use crate::*;

fn document(indicators: Value) -> Value {
    json!({
        "oatf": "0.1",
        "attack": {
            "id": "T-070",
            "execution": {"mode": "mcp_server", "state": {"tools": []}},
            "indicators": indicators
        }
    })
}

fn fetch_url() -> Value {
    json!([{"id": "T-070-01", "surface": "tools/call", "direction": "request",
            "target": "arguments.url", "pattern": {"contains": "evil.example"}}])
}

fn call(actor: Option<&str>, arguments: Value) -> TraceMessage {
    let message = TraceMessage::new(
        TraceDirection::Incoming,
        "tools/call",
        json!({"name": "fetch", "arguments": arguments}),
    );
    match actor {
        Some(actor) => message.with_actor(actor),
        None => message,
    }
}

fn run(document: Value, trace: &[TraceMessage]) -> AttackVerdict {
    let document: Document = match serde_json::from_value(document) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&document, &EvalOptions::new());
    evaluate_trace(&attack, trace)
}

fn evidence(verdict: &AttackVerdict) -> Option<&str> {
    verdict.indicator_verdicts[0].evidence.as_deref()
}

/// The first case of D-70: every message is MCP but from an actor the document does not
/// declare; the verdict stays `not_exploited` (spec-decisions 23) and says why.
#[test]
fn a_misspelt_actor_is_named_in_the_evidence_and_warned_about() {
    let trace: Vec<TraceMessage> = (0..12)
        .map(|_| call(Some("docs-search"), json!({"url": "https://evil.example"})))
        .collect();
    let verdict = run(document(fetch_url()), &trace);
    assert_eq!(verdict.result, AttackResult::NotExploited);
    assert_eq!(
        evidence(&verdict),
        Some(
            "no applicable message: no message from actor `default`; the trace has `docs-search` (12 messages)"
        )
    );
    assert_eq!(
        verdict.warnings,
        [TraceWarning::actor_without_messages("default")]
    );
    assert_eq!(
        verdict.warnings[0].kind,
        TraceWarningKind::ActorWithoutMessages
    );
}

#[test]
fn a_near_actor_name_gets_a_suggestion_and_other_actors_are_counted() {
    let mut trace = vec![call(Some("defualt"), json!({"url": "x"}))];
    trace.push(call(Some("other"), json!({})));
    trace.push(call(Some("defualt"), json!({})));
    trace.push(
        TraceMessage::new(TraceDirection::Incoming, "tools/call", json!({})).with_protocol("a2a"),
    );
    let verdict = run(document(fetch_url()), &trace);
    assert_eq!(
        evidence(&verdict),
        Some(
            "no applicable message: no message from actor `default`; the trace has `defualt` \
             (2 messages; did you mean `default`?), `other` (1 message), 1 message without a known actor"
        )
    );
}

/// Messages of declared actors of another protocol keep the evidence of spec-decisions 23.
#[test]
fn declared_actors_of_another_protocol_keep_the_protocol_evidence() {
    let verdict = run(
        document(json!([{"protocol": "a2a", "target": "text", "pattern": {"contains": "x"}}])),
        &[call(Some("default"), json!({}))],
    );
    assert_eq!(
        evidence(&verdict),
        Some("no applicable message: 1 message, none of protocol a2a")
    );
    assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
}

/// The second case of D-70: the target is misspelt, so the condition was never tested.
#[test]
fn a_misspelt_target_is_a_warning_with_did_you_mean() {
    let mut indicators = fetch_url();
    indicators[0]["target"] = json!("arguments.ulr");
    let trace: Vec<TraceMessage> = (0..3)
        .map(|_| call(Some("default"), json!({"url": "https://evil.example/x"})))
        .collect();
    let verdict = run(document(indicators), &trace);
    assert_eq!(verdict.result, AttackResult::NotExploited);
    assert_eq!(
        verdict.indicator_verdicts[0].result,
        IndicatorResult::NotMatched
    );
    let [warning] = verdict.warnings.as_slice() else {
        panic!("one warning expected: {:?}", verdict.warnings);
    };
    assert_eq!(warning.kind, TraceWarningKind::UnresolvedTarget);
    assert_eq!(warning.indicator_id.as_deref(), Some("T-070-01"));
    assert_eq!(warning.path.as_deref(), Some("arguments.ulr"));
    assert_eq!(warning.suggestion.as_deref(), Some("arguments.url"));
    assert_eq!(
        warning.message,
        "indicator T-070-01: target `arguments.ulr` did not resolve in any of the 3 messages it \
         applied to, so its condition was never tested; did you mean `arguments.url`?"
    );
}

#[test]
fn without_a_close_key_the_warning_lists_the_keys_there() {
    let indicators = json!([{"id": "I", "target": "params.query", "pattern": {"contains": "x"}}]);
    let verdict = run(
        document(indicators),
        &[call(None, json!({})), call(None, json!({}))],
    );
    let [warning] = verdict.warnings.as_slice() else {
        panic!("one warning expected: {:?}", verdict.warnings);
    };
    assert_eq!(warning.suggestion, None);
    assert!(
        warning
            .message
            .ends_with("never tested; the message had `name`, `arguments`"),
        "{}",
        warning.message
    );
}

#[test]
fn a_wildcard_target_is_suggested_with_its_wildcard() {
    let indicators =
        json!([{"id": "I", "target": "tools[*].descripton", "pattern": {"contains": "x"}}]);
    let message = TraceMessage::new(
        TraceDirection::Outgoing,
        "tools/list",
        json!({"tools": [{"name": "a", "description": "safe"}, {"name": "b"}]}),
    );
    let verdict = run(document(indicators), &[message]);
    assert_eq!(
        verdict.warnings[0].suggestion.as_deref(),
        Some("tools[*].description")
    );
}

/// An absent last segment without a close key is what resistance looks like for an optional
/// field (the agent did not fill `notes`): no warning. A path that stops above its last segment is.
#[test]
fn an_absent_optional_field_is_not_a_misspelling() {
    let indicators =
        json!([{"id": "I", "target": "arguments.notes", "pattern": {"contains": "KEY"}}]);
    let verdict = run(
        document(indicators),
        &[call(None, json!({"code": "x = 1", "language": "python"}))],
    );
    assert_eq!(
        verdict.indicator_verdicts[0].result,
        IndicatorResult::NotMatched
    );
    assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);

    let indicators =
        json!([{"id": "I", "target": "params.arguments.notes", "pattern": {"contains": "KEY"}}]);
    let verdict = run(document(indicators), &[call(None, json!({"code": "x"}))]);
    assert_eq!(verdict.warnings.len(), 1, "{:?}", verdict.warnings);
    assert_eq!(verdict.warnings[0].suggestion, None);

    // After the sample of 16 messages the outcome is fixed: the evaluator stops checking (and
    // frees what it kept for a suggestion).
    let indicators =
        json!([{"id": "I", "target": "arguments.notes", "pattern": {"contains": "KEY"}}]);
    let parsed: Document = match serde_json::from_value(document(indicators)) {
        Ok(parsed) => parsed,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&parsed, &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    let mut sizes = Vec::new();
    for _ in 0..20 {
        evaluator.push(&call(None, json!({"code": "x = 1", "language": "python"})));
        sizes.push(evaluator.retained_bytes());
    }
    assert!(sizes[15] < sizes[14], "{sizes:?}");
    assert_eq!(sizes[15], sizes[19], "{sizes:?}");
    assert!(evaluator.finish().warnings.is_empty());

    // The path meets a string where it expects an object: the structure differs.
    let indicators =
        json!([{"id": "I", "target": "arguments.url.host", "pattern": {"contains": "x"}}]);
    let verdict = run(
        document(indicators),
        &[call(None, json!({"url": "https://a"}))],
    );
    assert_eq!(verdict.warnings.len(), 1, "{:?}", verdict.warnings);
}

/// A target that resolved once, a match, an indicator no message applied to and an expression
/// give no unresolved-target warning.
#[test]
fn a_target_that_resolved_once_is_not_warned_about() {
    let mut indicators = fetch_url();
    indicators[0]["target"] = json!("arguments.path");
    let resolved = run(
        document(indicators.clone()),
        &[
            call(None, json!({"url": "a"})),
            call(None, json!({"path": "/tmp"})),
            call(None, json!({"url": "b"})),
        ],
    );
    assert_eq!(
        resolved.indicator_verdicts[0].result,
        IndicatorResult::NotMatched
    );
    assert!(resolved.warnings.is_empty(), "{:?}", resolved.warnings);

    let not_applied = run(
        document(indicators),
        &[TraceMessage::new(
            TraceDirection::Incoming,
            "tools/list",
            json!({}),
        )],
    );
    assert!(
        not_applied.warnings.is_empty(),
        "{:?}",
        not_applied.warnings
    );

    let absent = run(
        document(json!([{"target": "arguments.url", "pattern": {"exists": false}}])),
        &[call(None, json!({}))],
    );
    assert_eq!(
        absent.indicator_verdicts[0].result,
        IndicatorResult::Matched
    );
    assert!(absent.warnings.is_empty(), "{:?}", absent.warnings);
}

/// Keys are kept from a bounded number of messages, and only a bounded number of them, so a long
/// trace of misses holds no more than a short one.
#[test]
fn the_keys_kept_for_a_suggestion_are_bounded() {
    let indicators =
        json!([{"id": "I", "target": "arguments.k0_0x", "pattern": {"contains": "x"}}]);
    let document: Document = match serde_json::from_value(document(indicators)) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&document, &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    let mut sizes = Vec::new();
    for i in 0..2_000 {
        let keys: serde_json::Map<String, Value> =
            (0..10).map(|k| (format!("k{i}_{k}"), json!(1))).collect();
        evaluator.push(&call(None, Value::Object(keys)));
        if i == 100 || i == 1_999 {
            sizes.push(evaluator.retained_bytes());
        }
    }
    assert_eq!(sizes[0], sizes[1]);
    let verdict = evaluator.finish();
    assert!(
        verdict.warnings[0].message.contains("2000 messages"),
        "{}",
        verdict.warnings[0]
    );
}
