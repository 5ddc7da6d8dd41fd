//! The JSON verdict document ([`json_document`]) that `oatf evaluate --format json` writes.

use oatf_eval::AttackVerdict;
use serde_json::{Value, json};

use crate::exit::run_exit_code;
use crate::stats::{TraceStats, warnings};

/// The `trace` object of the JSON verdict document.
pub(crate) fn trace_json(stats: &TraceStats) -> Value {
    let mut matched: Vec<(&String, &u64)> = stats.matched_lines.iter().collect();
    matched.sort();
    let matched: serde_json::Map<String, Value> = matched
        .into_iter()
        .map(|(id, line)| (id.clone(), json!(line)))
        .collect();
    let mut trace = json!({
        "file": stats.name,
        "lines": stats.lines,
        "messages": stats.messages,
        "malformed_lines": stats.malformed,
        "after_grace_period": stats.after_grace,
        "matched_lines": matched,
        "verdict_from_partial_trace": stats.malformed > 0,
        "actors_without_messages": stats.silent_actors,
    });
    if stats.compat != oatf_eval::Compat::SpecExact
        && let Some(object) = trace.as_object_mut()
    {
        object.insert("compat".to_owned(), json!(stats.compat.as_str()));
    }
    trace
}

/// The warnings of a run ([`warnings`]) as objects: `kind` (and `code`, its older name),
/// `indicator_id`, `actor`, `path`, `suggestion` when they apply, and `message`.
fn warnings_json(verdict: &AttackVerdict, stats: &TraceStats) -> Vec<Value> {
    warnings(verdict, stats)
        .iter()
        .map(|warning| {
            let mut value = serde_json::to_value(warning).unwrap_or(Value::Null);
            if let Some(object) = value.as_object_mut() {
                object.insert("code".to_owned(), json!(warning.kind.as_str()));
            }
            value
        })
        .collect()
}

/// The JSON verdict document: the attack verdict (format §9.3) with a `trace` object (file, lines,
/// messages, malformed lines, messages after the grace period, the line each indicator matched at,
/// actors without messages), `warnings` (replacing the verdict's own, with actors of
/// [`TraceStats::silent_actors`] added), `strict` and `exit_code` ([`run_exit_code`]), as
/// `oatf evaluate --format json` writes it.
pub fn json_document(verdict: &AttackVerdict, stats: &TraceStats) -> Value {
    let mut value = serde_json::to_value(verdict).unwrap_or(Value::Null);
    if let Some(object) = value.as_object_mut() {
        object.insert("trace".to_owned(), trace_json(stats));
        object.insert(
            "warnings".to_owned(),
            Value::Array(warnings_json(verdict, stats)),
        );
        object.insert("strict".to_owned(), json!(stats.strict));
        object.insert("exit_code".to_owned(), json!(run_exit_code(verdict, stats)));
    }
    value
}

/// [`json_document`] as pretty-printed text ending with a line break.
pub fn json_report(verdict: &AttackVerdict, stats: &TraceStats) -> String {
    let value = json_document(verdict, stats);
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
