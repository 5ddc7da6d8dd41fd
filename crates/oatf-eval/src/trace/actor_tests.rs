//! Step 3 of the trace filter (format §6): an indicator with `actor` sees only that actor's messages.
//! A message from an actor the document does not declare never reaches it, even when its own `protocol`
//! equals the indicator's (a survivor of mutation testing: a filter that skipped step 3 for undeclared
//! actors passed every test before these).

use serde_json::json;

use crate::*;

fn verdict_for(actor: Option<&str>) -> IndicatorResult {
    let document: oatf_model::Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "execution": {"actors": [
                {"name": "srv", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}
            ]},
            "indicators": [{
                "id": "I-1", "protocol": "mcp", "actor": "srv",
                "target": "text", "pattern": {"contains": "SECRET"}
            }]
        }
    })) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&document, &EvalOptions::new());
    let mut message = json!({
        "seq": 1, "protocol": "mcp", "direction": "incoming", "content": {"text": "SECRET"}
    });
    if let (Some(actor), Some(map)) = (actor, message.as_object_mut()) {
        map.insert("actor".into(), json!(actor));
    }
    let message: TraceMessage = match serde_json::from_value(message) {
        Ok(message) => message,
        Err(e) => panic!("invalid test message: {e}"),
    };
    let verdict = evaluate_trace(&attack, &[message]);
    match verdict.indicator_verdicts.as_slice() {
        [only] => only.result,
        other => panic!("one indicator verdict expected: {other:?}"),
    }
}

#[test]
fn the_declared_actor_reaches_the_indicator() {
    assert_eq!(verdict_for(Some("srv")), IndicatorResult::Matched);
    // No actor named, one actor declared, same protocol: the message is that actor's.
    assert_eq!(verdict_for(None), IndicatorResult::Matched);
}

#[test]
fn an_undeclared_actor_never_reaches_an_indicator_with_actor() {
    let result = verdict_for(Some("ghost"));
    assert_ne!(result, IndicatorResult::Matched);
    assert_ne!(result, IndicatorResult::Error);
}

/// Compilation reads the actors of the normalized document: a multi-phase document whose phases carry
/// their mode (no `execution.mode`) has its `default` actor, as normalization gives it.
#[test]
fn a_mode_less_multi_phase_document_has_its_actor() {
    let document: oatf_model::Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "execution": {"phases": [
                {"name": "a", "mode": "mcp_server", "state": {}, "trigger": {"event": "tools/call"}},
                {"name": "b", "mode": "mcp_server"}
            ]},
            "indicators": [{"target": "text", "pattern": {"contains": "SECRET"}}]
        }
    })) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let normalized = oatf_model::normalize(document.clone());
    let expected: Vec<(String, String)> = normalized
        .attack
        .iter()
        .flat_map(|a| a.execution.iter())
        .flat_map(|e| e.actors.iter().flatten())
        .map(|a| (a.name.clone(), a.mode.clone()))
        .collect();
    assert_eq!(expected, [("default".to_owned(), "mcp_server".to_owned())]);
    for attack in [
        CompiledAttack::new(&document, &EvalOptions::new()),
        CompiledAttack::new(&normalized, &EvalOptions::new()),
    ] {
        let actors: Vec<(String, String)> = attack
            .actors()
            .map(|(n, m)| (n.to_owned(), m.to_owned()))
            .collect();
        assert_eq!(actors, expected);
    }
}

/// The counters a streaming caller reads (`oatf evaluate --progress`): matched indicators (the two
/// skipped ones are decided but not matched), messages after the grace period, and the bytes kept, which grow by
/// the evidence of a match.
#[test]
fn counters_of_a_streaming_evaluation() {
    let document: oatf_model::Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "execution": {"actors": [
                {"name": "srv", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}
            ]},
            "indicators": [
                {"id": "A", "target": "text", "pattern": {"contains": "SECRET"}},
                {"id": "B", "target": "", "expression": {"cel": "true"}},
                {"id": "C", "target": "text", "pattern": {"contains": "NOPE"}},
                {"id": "D", "target": "", "semantic": {"intent": "x"}}
            ]
        }
    })) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&document, &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    assert_eq!(evaluator.matched_count(), 0);
    let empty = evaluator.retained_bytes();
    assert!(
        empty >= std::mem::size_of::<TraceEvaluator<'_>>(),
        "{empty}"
    );
    let message: TraceMessage = match serde_json::from_value(json!({
        "seq": 7, "actor": "srv", "direction": "incoming", "content": {"text": "a SECRET here"}
    })) {
        Ok(message) => message,
        Err(e) => panic!("invalid test message: {e}"),
    };
    evaluator.push(&message);
    assert_eq!(evaluator.matched_count(), 1);
    assert_eq!(evaluator.messages_after_grace(), 0);
    let after = evaluator.retained_bytes();
    assert!(
        after > empty,
        "the evidence of the match is kept: {after} vs {empty}"
    );
    evaluator.push(&message);
    assert_eq!(
        evaluator.matched_count(),
        1,
        "a decided indicator is not counted twice"
    );
    assert_eq!(evaluator.retained_bytes(), after);
}
