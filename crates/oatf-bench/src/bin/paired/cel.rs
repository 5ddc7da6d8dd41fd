//! `cel`: one CEL indicator against the same condition written in Rust.

use std::hint::black_box;
use std::sync::Arc;

use oatf_bench::paired::{Contender, run_paired};
use oatf_bench::tool_call;
use serde_json::Value;

use crate::options::{Error, Settings};
use crate::ours::{eval_options, load_reference};
use crate::report::{Row, report};

/// `message.arguments.items.exists(x, size(x.name) > 64)` written in Rust against the same
/// `serde_json::Value` (CEL's `size` of a string counts code points).
fn hand_written_cel(message: &Value) -> bool {
    message
        .get("arguments")
        .and_then(|a| a.get("items"))
        .and_then(Value::as_array)
        .is_some_and(|items| {
            items.iter().any(|x| {
                x.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.chars().count() > 64)
            })
        })
}

const CEL_EXPRESSION: &str = "message.arguments.items.exists(x, size(x.name) > 64)";

pub(crate) fn measure_cel(settings: &Settings) -> Result<(), Error> {
    let yaml = oatf_bench::one_indicator_document(
        "arguments.items",
        &format!("expression:\n        cel: \"{CEL_EXPRESSION}\""),
    );
    let document = oatf::load(&yaml)?.document;
    let indicator = document
        .attack
        .as_ref()
        .and_then(|a| a.indicators.as_ref())
        .and_then(|i| i.first())
        .ok_or("no indicator")?
        .clone();
    let options = eval_options();
    let compiled = oatf::eval::CompiledIndicator::new(&indicator, &options)?;
    let cel: Arc<dyn oatf::eval::CelEvaluator> = Arc::new(oatf::cel::CelEngine::new());
    let reference = load_reference(&yaml)?
        .attack
        .indicators
        .and_then(|mut i| i.pop())
        .ok_or("no indicator in the reference")?;
    let reference_cel = oatf_reference::evaluate::default_cel_evaluator();
    let message = tool_call(10 * 1024);
    // All agree before they are timed.
    let expected = hand_written_cel(&message);
    let ours = compiled.evaluate(&message).result == oatf::IndicatorResult::Matched;
    let theirs = oatf_reference::evaluate::evaluate_indicator(
        &reference,
        &message,
        Some(&reference_cel),
        None,
    )
    .result
        == oatf_reference::enums::IndicatorResult::Matched;
    if ours != expected || theirs != expected {
        return Err(format!(
            "cel: disagreement (hand {expected}, ours {ours}, reference {theirs})"
        )
        .into());
    }
    let mut contenders = [
        Contender::new("hand_written", || {
            u64::from(hand_written_cel(black_box(&message)))
        }),
        Contender::new("ours_compiled", || {
            u64::from(
                compiled.evaluate(black_box(&message)).result == oatf::IndicatorResult::Matched,
            )
        }),
        Contender::new("ours_one_shot", || {
            let verdict = oatf::evaluate_indicator(
                &indicator,
                black_box(&message),
                &oatf::EvalOptions::from_evaluators(Some(cel.clone()), None),
            );
            u64::from(verdict.result == oatf::IndicatorResult::Matched)
        }),
        Contender::new("reference", || {
            let verdict = oatf_reference::evaluate::evaluate_indicator(
                &reference,
                black_box(&message),
                Some(&reference_cel),
                None,
            );
            u64::from(verdict.result == oatf_reference::enums::IndicatorResult::Matched)
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "cel: `{CEL_EXPRESSION}` on a {} byte tools/call message",
            message.to_string().len()
        ),
        &run,
        &[
            Row {
                label: "CEL indicator on a 10 KB message, ours ÷ hand-written Rust",
                numerator: 1,
                denominator: 0,
                target: "≤ 5×",
            },
            Row {
                label: "ours one-shot ÷ ours compiled",
                numerator: 2,
                denominator: 1,
                target: "",
            },
            Row {
                label: "reference ÷ ours compiled",
                numerator: 3,
                denominator: 1,
                target: "",
            },
        ],
    );
    Ok(())
}
