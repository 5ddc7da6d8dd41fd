//! `parse_duration`: arbitrary text (SDK §5.2). Properties: no panic; an accepted duration is written
//! with the grammar's characters only.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if oatf::primitives::parse_duration(text).is_ok() {
        assert!(
            text.bytes()
                .all(|b| b.is_ascii_digit() || b"PTDHMSdhms".contains(&b)),
            "accepted {text:?}"
        );
    }
});
