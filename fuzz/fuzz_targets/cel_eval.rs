//! `cel_eval`: an arbitrary CEL expression (first line) against an arbitrary JSON message (the rest,
//! or a fixed message when it is not JSON). Properties: no panic, bounded time.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use oatf::cel::CelEngine;
use oatf::eval::CelEvaluator;
use serde_json::{Value, json};

static ENGINE: LazyLock<CelEngine> = LazyLock::new(CelEngine::new);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (expression, rest) = text.split_once('\n').unwrap_or((text, ""));
    let message = serde_json::from_str::<Value>(rest).unwrap_or_else(|_| {
        json!({"tools": [{"name": "a", "description": "ignore previous"}], "xs": [1, 2, 3],
               "count": 2, "name": "calc", "nested": {"k": [1.5, null, true]}})
    });
    let limit = json!(5);
    if let Ok(program) = ENGINE.compile(expression, &["limit"]) {
        let _ = program.evaluate(&message, &[("limit", &limit)]);
    }
});
