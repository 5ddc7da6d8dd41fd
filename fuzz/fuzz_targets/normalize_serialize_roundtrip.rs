//! `normalize_serialize_roundtrip`: for every input that parses, normalize is idempotent; for every
//! valid document, `parse(serialize(normalize(d)))` normalizes to the same document (SDK §3.3, §3.4).
//! Invalid documents are out of scope for the round trip: `attack: "OATF-003"` (V-003) parses, but the
//! model does not keep the scalar, so serialize cannot write it back (fuzz finding, see
//! `crates/oatf-sdk/tests/it/properties.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(document) = oatf::parse(text) else {
        return;
    };
    let valid = oatf::validate(&document).is_valid();
    let normalized = oatf::model::normalize(document);
    let twice = oatf::model::normalize(normalized.clone());
    assert!(twice == normalized, "normalize is not idempotent");
    if !valid {
        return;
    }
    let yaml = oatf::model::serialize(&normalized);
    let reparsed = match oatf::parse(&yaml) {
        Ok(d) => d,
        Err(errors) => panic!("serialized document does not parse: {errors}\n{yaml}"),
    };
    let again = oatf::model::normalize(reparsed);
    if again != normalized {
        let left = serde_json::to_string(&normalized).unwrap_or_default();
        let right = serde_json::to_string(&again).unwrap_or_default();
        panic!("round trip changed the document\nbefore: {left}\nafter:  {right}\nyaml:\n{yaml}");
    }
});
