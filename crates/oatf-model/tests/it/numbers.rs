//! Numbers never change value: an integer beyond 64 bits is an error at its line (quoting it keeps it
//! as a string), and integers at the 64-bit bounds survive parse, normalize and serialize.

use oatf_model::{normalize, parse, serialize};

fn doc_with_state(value: &str) -> String {
    format!(
        "oatf: \"0.1\"\nattack:\n  name: x\n  execution:\n    mode: mcp_server\n    state:\n      v: {value}\n  indicators: []\n"
    )
}

#[test]
fn integers_beyond_64_bits_are_rejected_at_their_line() {
    for (value, line) in [
        ("18446744073709551616", 7),
        ("-9223372036854775809", 7),
        ("99999999999999999999999", 7),
        ("0x1FFFFFFFFFFFFFFFF", 7),
        ("0o7777777777777777777777777", 7),
        ("[1, 2, 100000000000000000000000000000]", 7),
        ("{a: {b: -99999999999999999999}}", 7),
        (
            "\n        - 1\n        - 340282366920938463463374607431768211456",
            9,
        ),
    ] {
        let errors = match parse(&doc_with_state(value)) {
            Ok(document) => panic!(
                "{value} was accepted and normalizes to:\n{}",
                serialize(&normalize(document))
            ),
            Err(errors) => errors,
        };
        let error = errors
            .iter()
            .find(|e| e.message().contains("outside the 64-bit range"))
            .unwrap_or_else(|| panic!("{value}: {errors:?}"));
        assert_eq!(error.line(), Some(line), "{value}");
        assert!(error.message().contains("quote it"), "{}", error.message());
    }
}

#[test]
fn integers_at_the_64_bit_bounds_and_quoted_big_numbers_keep_their_value() {
    for (value, written) in [
        ("18446744073709551615", "18446744073709551615"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("9223372036854775807", "9223372036854775807"),
        ("\"99999999999999999999999\"", "'99999999999999999999999'"),
        ("'-9223372036854775809'", "'-9223372036854775809'"),
    ] {
        let document = parse(&doc_with_state(value)).unwrap_or_else(|e| panic!("{value}: {e:?}"));
        let yaml = serialize(&normalize(document));
        assert!(
            yaml.contains(&format!("v: {written}"))
                || yaml.contains(&format!("v: \"{}\"", written.trim_matches('\''))),
            "{value}:\n{yaml}"
        );
        assert!(!yaml.contains("e+"), "{yaml}");
    }
}
