//! `load`: any bytes through `parse_bytes`, then parse → validate → normalize → serialize, the path
//! every document from a stranger takes. Properties: no panic; bytes that are not UTF-8 are located;
//! a document that loads serializes to YAML that parses.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let from_bytes = oatf::model::parse_bytes(data);
    let Ok(text) = std::str::from_utf8(data) else {
        let located = from_bytes
            .err()
            .and_then(|e| e.first().and_then(|e| e.span()));
        assert!(located.is_some(), "invalid utf-8 without a location");
        return;
    };
    if let Ok(document) = oatf::parse(text) {
        let _ = oatf::validate(&document);
    }
    if let Ok(loaded) = oatf::load(text) {
        let yaml = oatf::model::serialize(&loaded.document);
        if let Err(errors) = oatf::parse(&yaml) {
            panic!("serialized output of a loaded document does not parse: {errors}\n{yaml}");
        }
    }
});
