//! `evaluate_indicator`: arbitrary JSON messages against fixed indicators of every method and
//! operator, and arbitrary indicators (`{"indicator": …, "message": …}`) against their message.
//! Properties: no panic; where the reference evaluator of `crates/oatf-sdk/tests/it/reference.rs` knows the
//! answer (pattern indicators with its operators, methods without an evaluator), `evaluate_indicator`
//! and the compiled indicator both give that answer.
#![no_main]

#[path = "../../crates/oatf-sdk/tests/it/reference.rs"]
mod reference;

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use oatf::cel::CelEngine;
use oatf::eval::CelEvaluator;
use oatf::eval::CompiledIndicator;
use oatf::EvalOptions;
use oatf::model::Indicator;
use serde_json::{Value, json};

static CEL: LazyLock<Arc<dyn CelEvaluator>> = LazyLock::new(|| Arc::new(CelEngine::new()));

static FIXED: LazyLock<Vec<CompiledIndicator>> = LazyLock::new(|| {
    let options = EvalOptions::new().with_cel_evaluator(Arc::clone(&CEL));
    let patterns = [
        json!({"contains": "passwd"}),
        json!({"starts_with": "cat"}),
        json!({"ends_with": "sh"}),
        json!({"regex": "(a+)+$"}),
        json!({"regex": "(?i)ignore (all )?previous"}),
        json!({"any_of": ["x", 1, null, {"a": [1.5]}]}),
        json!({"gt": 3, "lt": 1e300}),
        json!({"gte": -1, "lte": 18446744073709551615u64}),
        json!({"exists": true}),
        json!({"exists": false}),
        json!({"k": [1, "2"]}),
        json!("exact"),
        json!(null),
    ];
    let targets = [
        "",
        "arguments.command",
        "tools[*].description",
        "a[*].b[*]",
        "x.y.z",
    ];
    let mut indicators = Vec::new();
    for target in targets {
        for condition in &patterns {
            indicators.push(json!({"target": target, "pattern": {"condition": condition}}));
        }
    }
    for cel in [
        "message.tools.exists(t, t.description.contains('ignore'))",
        "size(message) > 2 && has(message.arguments)",
        "message.xs.all(x, message.xs.all(y, x == y || true))",
        "message.name.matches('^[a-z]+$')",
        "message.count + 1 > 3",
    ] {
        indicators.push(json!({"target": "", "expression": {"cel": cel}}));
    }
    indicators.push(json!({"target": "", "semantic": {"intent": "exfiltration"}}));
    indicators
        .into_iter()
        .filter_map(|v| serde_json::from_value::<Indicator>(v).ok())
        .filter_map(|i| CompiledIndicator::new(&i, &options).ok())
        .collect()
});

fuzz_target!(|data: &[u8]| {
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for indicator in FIXED.iter() {
        let _ = indicator.evaluate(&input);
    }
    if let (Some(raw), Some(message)) = (input.get("indicator"), input.get("message"))
        && let Ok(indicator) = serde_json::from_value::<Indicator>(raw.clone())
    {
        let _ = oatf::evaluate_indicator(&indicator, message, &EvalOptions::from_evaluators(Some(Arc::clone(&CEL)), None));
        if reference::supports(raw) {
            let expected = reference::evaluate(raw, message);
            let entry_point = oatf::evaluate_indicator(&indicator, message, &EvalOptions::new());
            assert_eq!(entry_point.result, expected, "evaluate_indicator vs the reference");
            if let Ok(compiled) = CompiledIndicator::new(&indicator, &EvalOptions::new()) {
                assert_eq!(
                    compiled.evaluate(message).result,
                    expected,
                    "CompiledIndicator vs the reference"
                );
            }
        }
    }
});
