//! `resolve_simple_path`: an arbitrary path (first line) against an arbitrary JSON value (the rest)
//! (SDK §5.1.1). Properties: no panic; the compiled path and the convenience agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oatf::primitives::SimplePath;
use serde_json::{Value, json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (path, rest) = text.split_once('\n').unwrap_or((text, ""));
    let value = serde_json::from_str::<Value>(rest)
        .unwrap_or_else(|_| json!({"a": {"b": [1, {"c": null}]}, "": {"": 1}, "0": "zero"}));
    let resolved = oatf::primitives::resolve_simple_path(path, &value);
    match SimplePath::parse(path) {
        Ok(compiled) => assert_eq!(compiled.resolve(&value), resolved),
        Err(_) => assert_eq!(resolved, None),
    }
});
