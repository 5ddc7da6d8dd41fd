//! Hostile documents, round 2 (issue 13): numbers never change value, every serialized string parses
//! back identical, mappings with many keys load in linear time.
#![cfg(feature = "yaml")]

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

#[track_caller]
fn syntax_error(input: &str) -> (String, Option<usize>, Option<usize>) {
    match parse(input) {
        Ok(_) => panic!("accepted:\n{input}"),
        Err(errors) => {
            let e = errors.first().unwrap_or_else(|| panic!("no error"));
            (e.message().to_owned(), e.line(), e.column())
        }
    }
}

#[test]
fn a_tab_used_for_indentation_is_reported_on_its_own_line() {
    for (input, line, column) in [
        (
            "oatf: \"0.1\"\nattack:\n  name: x\n\t  description: y\n",
            4,
            1,
        ),
        ("oatf: \"0.1\"\nattack:\n\tname: x\n", 3, 1),
        (
            "oatf: \"0.1\"\nattack:\n  name: x\n  \tdescription: y\n",
            4,
            3,
        ),
        (
            "oatf: \"0.1\"\nattack:\n  execution:\n    mode: x\n\t\tstate: {}\n",
            5,
            1,
        ),
    ] {
        let (message, l, c) = syntax_error(input);
        assert_eq!(
            (message.as_str(), l, c),
            (
                "a tab is used for indentation; yaml indents with spaces only",
                Some(line),
                Some(column)
            ),
            "{input:?}"
        );
    }
}

#[test]
fn an_unterminated_quote_is_reported_where_it_opens() {
    for (input, line, column, kind) in [
        (
            "oatf: \"0.1\"\nattack:\n  name: \"x\n  description: y\n",
            3,
            9,
            "double",
        ),
        (
            "oatf: \"0.1\"\nattack:\n  name: 'it''s\n  description: y\n",
            3,
            9,
            "single",
        ),
        (
            "oatf: \"0.1\"\nattack:\n  name: \"a \\\" b\n  description: \"ok\"\n",
            3,
            9,
            "double",
        ),
        (
            "oatf: \"0.1\"\n# it's a comment\nattack:\n  name: \"x\n",
            4,
            9,
            "double",
        ),
    ] {
        let (message, l, c) = syntax_error(input);
        assert!(
            message.starts_with(&format!("unterminated {kind}-quoted string")),
            "{input:?}: {message}"
        );
        assert_eq!((l, c), (Some(line), Some(column)), "{input:?}: {message}");
    }
}
