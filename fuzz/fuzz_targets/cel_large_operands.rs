//! `cel_large_operands`: an arbitrary CEL expression (first line) against a message with large
//! operands (a 1 MB string, a 100,000-element list, 1,000 distinct patterns), scaled by the second
//! line. Properties: no panic, and the budgets of `CelLimits` (bytes produced, cost by operand size,
//! iterations, regex compilations) keep every evaluation in bounded time and memory — libFuzzer's
//! `-rss_limit_mb` and `-timeout` catch a breach.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use oatf::cel::CelEngine;
use oatf::eval::CelEvaluator;
use serde_json::{Value, json};

static ENGINE: LazyLock<CelEngine> = LazyLock::new(CelEngine::new);

static MESSAGE: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "s": "a".repeat(1 << 20),
        "t": "ab".repeat(1 << 10),
        "xs": (0..100_000).collect::<Vec<_>>(),
        "ps": (0..1_000).map(|i| format!("^a{{{i}}}$")).collect::<Vec<_>>(),
        "m": (0..10_000).map(|i| (format!("k{i}"), json!(i))).collect::<serde_json::Map<_, _>>(),
    })
});

fuzz_target!(|data: &[u8]| {
    let Ok(expression) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(program) = ENGINE.compile(expression, &[]) {
        let _ = program.evaluate(&MESSAGE, &[]);
    }
});
