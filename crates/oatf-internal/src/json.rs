//! Compact JSON with bounded recursion: the text of a non-string value that string operators see
//! (keys sorted, spec-decisions item 13) and the compact form templates and extractors write (keys in
//! document order), and the field lookup of message objects. Used by conditions in `oatf-primitives`, by the evaluator's per-message texts in
//! `oatf-eval` and by interpolation and extractors in `oatf-runtime`.

use serde_json::Value;

/// The field `name` of `object`. Messages' objects mostly have a handful of keys, and comparing
/// them costs less than hashing `name` with the map's SipHash, so small objects are scanned.
/// The field lookup of `oatf-primitives`' paths and of `oatf-cel`'s direct path.
pub fn field_of<'v>(object: &'v serde_json::Map<String, Value>, name: &str) -> Option<&'v Value> {
    if object.len() <= 8 {
        object
            .iter()
            .find(|(key, _)| key.as_str() == name)
            .map(|(_, v)| v)
    } else {
        object.get(name)
    }
}

/// The deepest value the writers (and `oatf-primitives`' deep equality) descend into; deeper parts are
/// written as `null`.
///
/// Values built by the SDK's parsers are never this deep (they bound nesting far below), so the limit
/// only guards hand-built values against exhausting the stack.
pub const MAX_VALUE_DEPTH: usize = 512;

/// Writes `value` as compact JSON with object keys sorted lexicographically (spec-decisions item 13).
///
/// Strings and numbers are written exactly as serde_json writes them.
pub fn write_compact_sorted(value: &Value, out: &mut String) {
    write_at(value, out, 0, true);
}

/// Writes `value` as compact JSON with object keys in document order, as serde_json writes it, but
/// with bounded recursion: values nested deeper than 512 levels are written as `null` (serde_json's
/// writer recurses without limit and overflows the stack on a hand-built 10,000-deep value).
pub fn write_compact(value: &Value, out: &mut String) {
    write_at(value, out, 0, false);
}

/// Returns `value` as compact JSON with object keys in document order; see [`write_compact`].
pub fn to_compact_json(value: &Value) -> String {
    let mut out = String::new();
    write_compact(value, &mut out);
    out
}

/// Returns `value` as compact JSON with object keys sorted; see [`write_compact_sorted`].
pub fn to_compact_sorted_json(value: &Value) -> String {
    let mut out = String::new();
    write_compact_sorted(value, &mut out);
    out
}

fn write_at(value: &Value, out: &mut String, depth: usize, sorted: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(s, out),
        _ if depth >= MAX_VALUE_DEPTH => out.push_str("null"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_at(item, out, depth + 1, sorted);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sorted {
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_at(item, out, depth + 1, sorted);
            }
            out.push('}');
        }
    }
}

/// Writes a JSON string literal with serde_json's escaping. Runs of characters that need no escape
/// are copied in one piece (only ASCII bytes are ever escaped, so a run never splits a character).
fn write_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            0x00..=0x1F => "",
            _ => continue,
        };
        out.push_str(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            for nibble in [byte >> 4, byte & 0xF] {
                out.push(char::from(
                    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                ));
            }
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_escaped_like_serde_json_in_bulk_runs() {
        // Every ASCII byte, in runs and alone, between multi-byte characters.
        let mut text = String::from("héllo");
        for b in 0u8..=0x7F {
            text.push(char::from(b));
            text.push_str("ü✓");
        }
        text.push_str("tail 🦀");
        for s in [text.as_str(), "", "\"", "plain", "\u{1f}x", "x\u{0}"] {
            let value = Value::String(s.to_owned());
            assert_eq!(
                to_compact_json(&value),
                serde_json::to_string(&value).unwrap_or_default(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn compact_json_in_document_order_matches_serde_json_and_is_bounded() {
        let value = json!({"b": [1, 1.5, -0.0, 1e300, "é\u{1}\"\\"], "a": {"z": null, "y": true}});
        assert_eq!(
            to_compact_json(&value),
            serde_json::to_string(&value).unwrap_or_default()
        );
        let mut deep = json!(1);
        for _ in 0..600 {
            deep = json!([deep]);
        }
        let text = to_compact_json(&deep);
        assert!(text.starts_with(&"[".repeat(512)) && text.contains("null"));
    }

    #[test]
    fn compact_json_sorts_keys_and_escapes_like_serde_json() {
        let value = json!({"b": 1, "a": {"d": [true, null], "c": "x\"y\n\u{1}"}, "é": 1.5});
        let got = to_compact_sorted_json(&value);
        assert_eq!(
            got,
            r#"{"a":{"c":"x\"y\n\u0001","d":[true,null]},"b":1,"é":1.5}"#
        );
        let reparsed: Value = serde_json::from_str(&got).unwrap();
        assert_eq!(reparsed, value);
    }
}
