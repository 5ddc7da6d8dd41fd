//! Every string the serializer writes parses back identical: as a value, as a
//! mapping key and as a document field, whatever its characters (controls, noncharacters U+FFFE and
//! U+FFFF, byte order marks, line separators, indicators, things that look like numbers).

use proptest::prelude::*;
use serde_json::{Value, json};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Pieces a YAML reader treats specially, to be glued into strings.
fn tricky_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<char>().prop_map(String::from),
        prop::sample::select(vec![
            "\u{fffe}",
            "\u{ffff}",
            "\u{feff}",
            "\u{85}",
            "\u{2028}",
            "\u{2029}",
            "\u{7f}",
            "\u{9b}",
            "\u{0}",
            "\u{1b}[31m",
            "\r\n",
            "\r",
            "\n",
            "\t",
            " ",
            "\u{a0}",
            "- ",
            "? ",
            ": ",
            " #",
            "#",
            "&a",
            "*a",
            "!tag",
            "|",
            ">",
            "'",
            "\"",
            "%",
            "@",
            "`",
            "{",
            "}",
            "[",
            "]",
            ",",
            "<<",
            "=",
            "~",
            "null",
            "true",
            "No",
            "on",
            "0x1F",
            "0o7",
            "1e3",
            ".inf",
            ".5",
            "-.5",
            "2026-01-01",
            "12:30",
            "1_000",
            "---",
            "...",
            "\\",
            "\\n",
            "\u{1f600}",
        ])
        .prop_map(str::to_owned),
    ]
}

fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(tricky_piece(), 0..8).prop_map(|pieces| pieces.concat()),
    ]
}

#[track_caller]
fn round_trip(s: &str) -> Result<(), TestCaseError> {
    let document = json!({
        "oatf": "0.1",
        "attack": {
            "name": s,
            "description": s,
            "execution": {"mode": "mcp_server", "state": {"v": s, "k": {s: [s, {s: s}]}}},
            "indicators": [],
        }
    });
    let document: oatf::Document = match serde_json::from_value(document) {
        Ok(document) => document,
        Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
    };
    let yaml = oatf::model::serialize(&document);
    let reparsed = match oatf::parse(&yaml) {
        Ok(reparsed) => reparsed,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "{s:?} does not parse back: {e:?}\n{yaml}"
            )));
        }
    };
    let back = serde_json::to_value(&reparsed).unwrap_or(Value::Null);
    // `serialize` writes the normalized form: the state is in the one phase of the one actor.
    let state = &back["attack"]["execution"]["actors"][0]["phases"][0]["state"];
    prop_assert_eq!(back["attack"]["name"].as_str(), Some(s), "{}", yaml);
    if !s.is_empty() {
        // An empty description is the same as none in the model.
        prop_assert_eq!(back["attack"]["description"].as_str(), Some(s), "{}", yaml);
    }
    prop_assert_eq!(state["v"].as_str(), Some(s), "{}", yaml);
    prop_assert_eq!(&state["k"][s][0], &json!(s), "{}", yaml);
    prop_assert_eq!(&state["k"][s][1][s], &json!(s), "{}", yaml);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_string_parses_back_identical(s in tricky_string()) {
        round_trip(&s)?;
    }
}

#[test]
fn known_troublemakers_round_trip() -> Result<(), TestCaseError> {
    for s in [
        "\u{fffe}",
        "\u{ffff}",
        "a\u{ffff}b",
        "\u{feff}x",
        "x\u{85}y",
        "\u{2028}",
        "\u{7f}",
        "\u{9f}",
        "\u{1b}[2J",
        "",
        " ",
        "-",
        "- x",
        "null",
        "~",
        "0x10",
        "1e400",
        "\t",
        "a\r\nb",
        "<<",
        "a\nb",
        "a\n",
        "a\n\n",
        "a\n\n\nb\n\n",
        "\na",
        "\n\n a",
        "\n",
        "a\n  b\n    c",
        "#x\n# y\n",
        "---\n...\n",
        "a\n---\nb",
        "a\n- b\nc: d\n",
        "|\n>\n",
        "a\n \nb",
        "  \n",
        "a\n\t b",
        "a \nb  ",
        " a\nb",
        "\"quoted\"\n'single'\n",
        "{{tool}}\n[x]: {y}",
    ] {
        round_trip(s)?;
    }
    Ok(())
}

/// `oatf normalize` is used as a formatter: multi-line text comes out as a literal block, not as one
/// quoted line full of `\n`.
#[test]
fn multi_line_strings_are_literal_blocks() {
    let document: oatf::Document = serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "name": "x",
            "description": "First line.\nSecond line.\n",
            "execution": {"mode": "mcp_server", "state": {"v": "a\nb", "w": ["c\n\n"]}},
            "indicators": [],
        }
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let yaml = oatf::model::serialize(&document);
    assert!(
        yaml.contains("  description: |\n    First line.\n    Second line.\n"),
        "{yaml}"
    );
    assert!(yaml.contains("v: |-\n"), "{yaml}");
    assert!(yaml.contains("- |+\n"), "{yaml}");
    // Text a literal block cannot keep stays quoted.
    let document: oatf::Document = serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {"name": " lead\nx", "execution": {"mode": "mcp_server", "state": {}}, "indicators": []}
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(oatf::model::serialize(&document).contains("name: \" lead\\nx\""));
}
