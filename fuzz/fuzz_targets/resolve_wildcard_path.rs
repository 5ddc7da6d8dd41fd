//! `resolve_wildcard_path`: an arbitrary path (first line) against an arbitrary JSON value (the rest)
//! (SDK §5.1.2). Properties: no panic; a path without `[*]` resolves like the simple path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (path, rest) = text.split_once('\n').unwrap_or((text, ""));
    let value = serde_json::from_str::<Value>(rest).unwrap_or_else(
        |_| json!({"tools": [{"d": 1}, {"d": [2, 3]}, 4], "a": {"b": {"c": true}}}),
    );
    let all = oatf::primitives::resolve_wildcard_path(path, &value);
    if !path.contains("[*]") {
        let simple = oatf::primitives::resolve_simple_path(path, &value);
        assert_eq!(
            all.first().copied(),
            simple,
            "wildcard-free path {path:?} disagrees"
        );
    }
});
