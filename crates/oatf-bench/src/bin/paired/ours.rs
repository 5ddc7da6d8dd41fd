//! What the measures share: our compiled attacks, the reference's documents, our whole run of a
//! trace and the `serde_json::Value` floor.

use std::hint::black_box;
use std::sync::Arc;

use oatf_bench::MockSemantic;
use serde_json::Value;

use crate::options::Error;

pub(crate) fn eval_options() -> oatf::EvalOptions {
    oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic))
}

pub(crate) fn compile_ours(yaml: &str) -> Result<oatf::CompiledAttack, Error> {
    let document = oatf::load(yaml)?.document;
    let attack = oatf::CompiledAttack::new(&document, &eval_options());
    if let Some((id, error)) = attack.compile_errors().next() {
        return Err(format!("{id} does not compile: {error}").into());
    }
    Ok(attack)
}

pub(crate) fn load_reference(yaml: &str) -> Result<oatf_reference::Document, Error> {
    oatf_reference::load(yaml)
        .map(|loaded| loaded.document)
        .map_err(|errors| format!("the reference rejects the document: {errors:?}").into())
}

/// Our whole run from JSON Lines bytes to verdict, as `oatf evaluate` reads (`next_into`, which
/// parses a line's content only when an indicator needs it, D-91); returns the number of messages.
pub(crate) fn ours_trace(attack: &oatf::CompiledAttack, jsonl: &[u8]) -> u64 {
    let mut evaluator = oatf::TraceEvaluator::new(attack);
    let mut reader = oatf::JsonlTraceReader::new(jsonl);
    while let Some(step) = reader.next_into(&mut evaluator) {
        black_box(step.is_ok());
    }
    let messages = evaluator.messages();
    black_box(evaluator.finish());
    messages
}

/// The same run with every line parsed into a `TraceMessage` and pushed (the reading before D-91).
pub(crate) fn ours_trace_full(attack: &oatf::CompiledAttack, jsonl: &[u8]) -> u64 {
    let mut evaluator = oatf::TraceEvaluator::new(attack);
    for message in oatf::JsonlTraceReader::new(jsonl).flatten() {
        evaluator.push(&message);
    }
    let messages = evaluator.messages();
    black_box(evaluator.finish());
    messages
}

/// The floor: every line parsed into a `serde_json::Value`, nothing else.
pub(crate) fn floor_trace(jsonl: &[u8]) -> u64 {
    let mut count = 0;
    for line in jsonl.split(|&b| b == b'\n') {
        if !line.is_empty() && serde_json::from_slice::<Value>(line).is_ok() {
            count += 1;
        }
    }
    count
}
