//! `interpolate_template`: an arbitrary template (first line… up to a NUL byte) against fixed
//! extractors and an arbitrary JSON request (after the NUL). Properties: no panic, linear output.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (template, rest) = text.split_once('\0').unwrap_or((text, ""));
    let request = serde_json::from_str::<Value>(rest)
        .unwrap_or_else(|_| json!({"params": {"name": "{{name}}", "arguments": {"x": [1, 2]}}}));
    let response = json!({"result": {"content": [{"type": "text", "text": "{{request.params}}"}]}});
    let extractors: HashMap<String, String> = [
        ("name", "{{name}}"),
        ("token", "sk-1"),
        ("request", "shadowed"),
        ("", "empty"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let (out, _) =
        oatf::runtime::interpolate_template(template, &extractors, Some(&request), Some(&response));
    // Each expression expands to at most one extractor value or one compact JSON of a message, so
    // the output is linear in the template.
    let bound = template.len() * (1 + rest.len() + 64) + 256;
    assert!(
        out.len() <= bound,
        "output of {} bytes for a template of {}",
        out.len(),
        template.len()
    );
    let _ = oatf::runtime::interpolate_value(
        &json!({"a": [template, {"b": template}]}),
        &extractors,
        Some(&request),
        None,
    );
});
