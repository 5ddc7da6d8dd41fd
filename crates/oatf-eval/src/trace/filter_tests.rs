//! The filter table past its bound on classes (`filter.rs`): filtering indicator by indicator.

use serde_json::json;

use super::filter::MAX_CLASSES;
use crate::*;

/// More kinds of message than the table keeps: the messages past [`MAX_CLASSES`] are filtered
/// indicator by indicator, and the step counts of both paths add up in the evidence.
#[test]
fn classes_past_the_table_are_filtered_one_by_one_and_counted() {
    let kinds = MAX_CLASSES + 44;
    let mut indicators: Vec<serde_json::Value> = (0..kinds)
        .map(|i| {
            json!({"id": format!("S-{i}"), "protocol": "mcp", "surface": format!("m{i}"), "direction": "request",
                   "target": "text", "pattern": {"contains": format!("hit{i}")}})
        })
        .collect();
    indicators.push(
        json!({"id": "NEVER", "protocol": "mcp", "surface": "never", "target": "text",
                           "pattern": {"contains": "x"}}),
    );
    indicators.push(
        json!({"id": "RESP", "protocol": "mcp", "surface": "m0", "direction": "response",
                           "target": "text", "pattern": {"contains": "x"}}),
    );
    // The same for the last kind, past the table: its messages are counted indicator by indicator.
    indicators.push(json!({"id": "LATE", "protocol": "mcp", "surface": format!("m{}", kinds - 1),
                           "direction": "response", "target": "text", "pattern": {"contains": "x"}}));
    let document: oatf_model::Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "execution": {"actors": [
                {"name": "srv", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}
            ]},
            "indicators": indicators
        }
    })) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&document, &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    let message = |i: usize, text: &str| TraceMessage {
        seq: None,
        timestamp: None,
        actor: Some("srv".into()),
        phase: None,
        direction: TraceDirection::Incoming,
        method: Some(format!("m{i}")),
        content: json!({ "text": text }),
        protocol: None,
    };
    // Every kind twice without a match, then each indicator's own hit for the even ones.
    for round in 0..2 {
        for i in 0..kinds {
            evaluator.push(&message(i, &format!("nothing {round}")));
        }
    }
    for i in (0..kinds).step_by(2) {
        evaluator.push(&message(i, &format!("a hit{i} here")));
    }
    // A hit for an indicator of another method does not match.
    evaluator.push(&message(1, "hit3"));
    let pushed = 2 * kinds + kinds.div_ceil(2) + 1;
    let verdict = evaluator.finish();
    for (i, v) in verdict.indicator_verdicts.iter().take(kinds).enumerate() {
        let expected = if i % 2 == 0 {
            IndicatorResult::Matched
        } else {
            IndicatorResult::NotMatched
        };
        assert_eq!(v.result, expected, "indicator {i}");
    }
    let evidence = |id: &str| {
        verdict
            .indicator_verdicts
            .iter()
            .find(|v| v.indicator_id == id)
            .and_then(|v| v.evidence.clone())
    };
    assert_eq!(
        evidence("NEVER").as_deref(),
        Some(
            format!("no applicable message: {pushed} mcp messages, none with method never")
                .as_str()
        )
    );
    // m0 came three times (two rounds and its hit), always as a request.
    assert_eq!(
        evidence("RESP").as_deref(),
        Some("no applicable message: 3 mcp messages with method m0, none that is a response")
    );
    // m{kinds - 1} (odd, so without a hit) came twice, past the table, always as a request.
    assert_eq!(
        evidence("LATE"),
        Some(format!(
            "no applicable message: 2 mcp messages with method m{}, none that is a response",
            kinds - 1
        ))
    );
}
