//! `serialize_strings`: an arbitrary string, placed as a value, a mapping key and a document field,
//! is serialized and parsed back. Property: every string the serializer writes parses back identical
//! (noncharacters, controls, byte order marks, indicators, things that look like numbers).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let document = json!({
        "oatf": "0.1",
        "attack": {
            "name": s,
            "execution": {"mode": "mcp_server", "state": {"v": s, "k": {s: [s]}}},
            "indicators": [],
        }
    });
    let Ok(document) = serde_json::from_value::<oatf::Document>(document) else {
        return;
    };
    let yaml = oatf::model::serialize(&document);
    let reparsed = match oatf::parse(&yaml) {
        Ok(reparsed) => reparsed,
        Err(e) => panic!("{s:?} does not parse back: {e:?}\n{yaml}"),
    };
    let back = serde_json::to_value(&reparsed).unwrap_or_default();
    let state = &back["attack"]["execution"]["actors"][0]["phases"][0]["state"];
    assert_eq!(back["attack"]["name"].as_str(), Some(s), "{yaml}");
    assert_eq!(state["v"].as_str(), Some(s), "{yaml}");
    assert_eq!(state["k"][s][0].as_str(), Some(s), "{yaml}");
});
