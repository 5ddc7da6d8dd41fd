//! Reading a trace line's envelope first and its content only when an indicator needs it (D-91).
//!
//! [`Envelope`] is a [`TraceMessage`](super::TraceMessage) whose strings are borrowed from the line
//! and whose `content` is left as raw JSON text, which serde_json validates by skipping it. Skipping
//! accepts three things that parsing into a [`Value`] rejects: nesting deeper than the parser's
//! recursion limit (128), numbers out of `f64` range, and `\u` escapes of lone surrogates. So:
//!
//! - a content the evaluator does not need is not parsed, unless [`needs_full_parse`] flags it
//!   (generously: depth over [`MAX_LAZY_DEPTH`], any exponent, any run of more than
//!   [`MAX_LAZY_DIGITS`] digits, any `\u` escape of a surrogate);
//! - a content it needs is parsed on its own, and is kept unless it fails or nests deeper than
//!   [`MAX_CONTENT_DEPTH`] (on its own it may nest one level deeper than inside its line);
//! - anything else (a flagged or failing content, an envelope that does not parse) takes the full
//!   parse of the line, as before.
//!
//! So a line is malformed on the lazy path exactly when it is on the full one, with the same error,
//! and every other line yields the same values.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, de};
use serde_json::Value;
use serde_json::value::RawValue;

use super::message::{Head, TraceDirection};

/// Contents nested deeper than this (brackets, the envelope's own not counted) take the full
/// parse; serde_json's limit for a whole line is 128 levels, the envelope's included.
const MAX_LAZY_DEPTH: usize = 100;

/// The deepest nesting (arrays and objects) a line's content may have: serde_json's parser fails
/// on entering its 128th level, and the line's own object is the first.
pub(super) const MAX_CONTENT_DEPTH: usize = 126;

/// Contents with a run of more digits than this outside strings take the full parse: an integer
/// part of 309 digits or more is out of `f64` range (JSON numbers have no leading zeros).
const MAX_LAZY_DIGITS: usize = 300;

/// A trace line as the lazy path reads it: the fields of [`TraceMessage`](super::TraceMessage),
/// strings borrowed when they have no escapes, the content as `C`: raw text
/// (`Option<&RawValue>`, validated by skipping) or parsed (`Value`, in one pass with the rest).
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de> + Default"))]
pub(super) struct Envelope<'a, C> {
    #[serde(default)]
    seq: Option<u64>,
    #[serde(default, borrow)]
    timestamp: Option<Text<'a>>,
    #[serde(default, borrow)]
    actor: Option<Text<'a>>,
    #[serde(default, borrow)]
    phase: Option<Text<'a>>,
    direction: TraceDirection,
    #[serde(default, borrow)]
    method: Option<Text<'a>>,
    #[serde(default)]
    pub(super) content: C,
    #[serde(default, borrow)]
    protocol: Option<Text<'a>>,
}

/// An envelope whose content is left as raw text.
pub(super) type RawEnvelope<'a> = Envelope<'a, Option<&'a RawValue>>;

impl<C> Envelope<'_, C> {
    /// The fields other than `content`, borrowed from the envelope.
    pub(super) fn head(&self) -> Head<'_> {
        Head {
            seq: self.seq,
            timestamp: self.timestamp.as_ref().map(Text::as_str),
            actor: self.actor.as_ref().map(Text::as_str),
            phase: self.phase.as_ref().map(Text::as_str),
            direction: self.direction,
            method: self.method.as_ref().map(Text::as_str),
            protocol: self.protocol.as_ref().map(Text::as_str),
        }
    }
}

/// A JSON string, borrowed from the line unless it has escapes.
///
/// (serde borrows a `Cow<str>` field only when it is not inside an `Option`.)
pub(super) struct Text<'a>(Cow<'a, str>);

impl Text<'_> {
    fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(TextVisitor(std::marker::PhantomData))
    }
}

/// Whether the raw JSON `content` (valid as serde_json skips it) may hold something that parsing
/// it into a `Value` rejects, so that its line must take the full parse (see the module
/// documentation). Strings are skipped with `memchr2` up to their next `"` or `\`.
pub(super) fn needs_full_parse(content: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut digits = 0usize;
    let mut at = 0usize;
    while let Some(&b) = content.get(at) {
        at += 1;
        match b {
            b'0'..=b'9' => {
                digits += 1;
                if digits > MAX_LAZY_DIGITS {
                    return true;
                }
                continue;
            }
            b'e' | b'E' if digits > 0 => return true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_LAZY_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => loop {
                let rest = content.get(at..).unwrap_or_default();
                let Some(found) = memchr::memchr2(b'"', b'\\', rest) else {
                    return true;
                };
                at += found + 1;
                if rest.get(found) == Some(&b'"') {
                    break;
                }
                // A backslash: `\u` followed by `d` or `D` may start a surrogate (U+D800–DFFF).
                if content.get(at) == Some(&b'u')
                    && matches!(content.get(at + 1), Some(b'd' | b'D'))
                {
                    return true;
                }
                at += 1;
            },
            _ => {}
        }
        digits = 0;
    }
    false
}

/// Whether the content parsed from `raw` nests deeper than a line's content may
/// ([`MAX_CONTENT_DEPTH`]); the walk is needed only when `raw` has that many `[` and `{`.
pub(super) fn too_deep(raw: &str, content: &Value) -> bool {
    memchr::memchr2_iter(b'[', b'{', raw.as_bytes())
        .nth(MAX_CONTENT_DEPTH)
        .is_some()
        && nests_as_deep_as(content, MAX_CONTENT_DEPTH + 1)
}

/// Whether `value` nests arrays and objects `levels` deep or deeper (a scalar is 0 deep).
/// Recursion is bounded by the value's own depth, at most serde_json's limit of 128.
pub(super) fn nests_as_deep_as(value: &Value, levels: usize) -> bool {
    if levels == 0 {
        return true;
    }
    match value {
        Value::Array(items) => levels == 1 || items.iter().any(|v| nests_as_deep_as(v, levels - 1)),
        Value::Object(map) => levels == 1 || map.values().any(|v| nests_as_deep_as(v, levels - 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::needs_full_parse;

    /// The content's depth bound is serde_json's: a line whose content nests `MAX_CONTENT_DEPTH`
    /// levels parses, one more does not, though the content alone still does.
    #[test]
    fn the_content_depth_bound_is_the_parsers() {
        use super::{MAX_CONTENT_DEPTH, nests_as_deep_as};
        for depth in MAX_CONTENT_DEPTH - 1..=MAX_CONTENT_DEPTH + 1 {
            let content = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let line = format!("{{\"direction\": \"incoming\", \"content\": {content}}}");
            let in_line =
                serde_json::from_str::<crate::trace::message::TraceMessage>(&line).is_ok();
            assert_eq!(in_line, depth <= MAX_CONTENT_DEPTH, "depth {depth}");
            let alone: serde_json::Value = serde_json::from_str(&content).unwrap_or_default();
            assert!(alone.is_array(), "depth {depth} parses alone");
            assert_eq!(
                nests_as_deep_as(&alone, MAX_CONTENT_DEPTH + 1),
                !in_line,
                "depth {depth}"
            );
            assert_eq!(super::too_deep(&content, &alone), !in_line, "depth {depth}");
        }
        let object = serde_json::json!({"a": [{}], "b": 1});
        assert!(nests_as_deep_as(&object, 3));
        assert!(!nests_as_deep_as(&object, 4));
        assert!(!nests_as_deep_as(&serde_json::json!("s"), 1));
    }

    #[test]
    fn what_parsing_rejects_and_skipping_accepts_is_flagged() {
        for flagged in [
            &b"1e400"[..],
            b"[1.5E3]",
            b"{\"a\": -2e-5}",
            b"\"\\ud800\"",
            b"{\"k\\uDfff\": 1}",
        ] {
            assert!(
                needs_full_parse(flagged),
                "{}",
                String::from_utf8_lossy(flagged)
            );
        }
        let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
        assert!(needs_full_parse(deep.as_bytes()));
        let long = "9".repeat(301);
        assert!(needs_full_parse(long.as_bytes()));
        for plain in [
            &b"{\"text\": \"true e1 1e400 \\\\ud800 \\\" [[[[\", \"n\": [true, false, null, 1.5, -3]}"[..],
            b"\"\\u00e9\\n\"",
            b"{}",
        ] {
            assert!(!needs_full_parse(plain), "{}", String::from_utf8_lossy(plain));
        }
        let shallow = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(!needs_full_parse(shallow.as_bytes()));
        assert!(!needs_full_parse("9".repeat(300).as_bytes()));
    }
}
