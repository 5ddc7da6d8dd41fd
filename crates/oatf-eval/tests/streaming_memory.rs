//! Streaming trace evaluation keeps memory bounded, measured by the process itself: a counting global
//! allocator tracks the bytes live on the heap, not the evaluator's own account of what it retains.
//!
//! This file holds one test and stays its own test binary, not a module of one tests/it binary
//! like the other crates' integration tests: the counting allocator is global to the process, so no
//! other test may allocate while it measures.

use oatf_eval::{
    CompiledAttack, Document, EvalOptions, IndicatorResult, TraceEvaluator, TraceMessage,
};
use serde_json::json;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

/// The system allocator, counting every allocation and deallocation.
#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Bytes live on the heap now, as far as the counter has seen since `region` began.
#[allow(
    clippy::cast_possible_wrap,
    reason = "the counts are far below isize::MAX"
)]
fn live(region: &Region<'_, std::alloc::System>) -> isize {
    let change = region.change();
    // A reallocation is already counted in the two byte counts (`bytes_reallocated` is their net).
    change.bytes_allocated as isize - change.bytes_deallocated as isize
}

fn message(seq: u64) -> TraceMessage {
    let value = json!({
        "seq": seq,
        "actor": "srv",
        "direction": if seq.is_multiple_of(2) { "incoming" } else { "outgoing" },
        "method": if seq.is_multiple_of(3) { "tools/call" } else { "tools/list" },
        "content": {"text": format!("message {seq} {}", "x".repeat(200)), "n": seq},
    });
    match serde_json::from_value(value) {
        Ok(message) => message,
        Err(e) => panic!("invalid test message: {e}"),
    }
}

#[test]
fn heap_does_not_grow_with_the_trace() {
    let document: Document = match serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "id": "T-001",
            "execution": {"actors": [
                {"name": "srv", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}
            ]},
            "indicators": [
                {"protocol": "mcp", "surface": "tools/call", "target": "text", "pattern": {"contains": "SECRET"}},
                {"protocol": "mcp", "direction": "response", "target": "text", "pattern": {"regex": "SEC+RET"}},
                {"protocol": "mcp", "target": "n", "pattern": {"gt": 199_999}}
            ]
        }
    })) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    let attack = CompiledAttack::new(&document, &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    let region = Region::new(GLOBAL);
    let mut after_warm_up = 0;
    let mut peak_growth = 0;
    for seq in 1..=200_000u64 {
        let m = message(seq);
        evaluator.push(&m);
        drop(m);
        if seq == 1_000 {
            after_warm_up = live(&region);
        } else if seq > 1_000 {
            peak_growth = peak_growth.max(live(&region) - after_warm_up);
        }
    }
    // 199,000 messages of over 200 bytes each went through (about 40 MB): the heap held on to none of
    // them. The last message matched the third indicator, whose evidence may add a little.
    assert!(
        peak_growth <= 4096,
        "the heap grew by {peak_growth} bytes over 199,000 messages"
    );
    assert_eq!(evaluator.messages(), 200_000);
    let verdict = evaluator.finish();
    let results: Vec<IndicatorResult> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| v.result)
        .collect();
    assert_eq!(results[2], IndicatorResult::Matched, "{verdict:?}");
    assert_ne!(results[0], IndicatorResult::Matched, "{verdict:?}");
    assert_ne!(results[1], IndicatorResult::Matched, "{verdict:?}");
}
