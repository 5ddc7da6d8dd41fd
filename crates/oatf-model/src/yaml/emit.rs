//! A small, deterministic YAML emitter over [`serde_json::Value`] (block style, canonical quoting).
//!
//! Strings are written plain when they read back as the same string under both YAML 1.2 and the
//! lenient YAML 1.1 readers still common in tools; a multi-line value is written as a literal block
//! (`|`, `|-` or `|+`) when a literal block reads back as the same string (`literal_chomping`);
//! otherwise strings are double-quoted with escapes for control characters only, so unicode text is
//! kept as written. Integers stay integers and floats keep
//! a fraction or exponent (`1.0` stays `1.0`).

use std::fmt::Write as _;

use serde_json::{Number, Value};

/// Nesting beyond this depth is written as `null` (documents read by `parse` are at most 128 deep).
pub(crate) const MAX_EMIT_DEPTH: usize = 512;

/// Emits `value` (a mapping at the root) as a YAML document with a trailing newline.
pub(crate) fn emit(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => write_map(map, 0, &mut out, 0),
        Value::Array(items) if !items.is_empty() => write_seq(items, 0, &mut out, 0),
        other => {
            write_scalar(other, &mut out);
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

fn is_block(value: &Value) -> bool {
    match value {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// Writes a mapping whose first line starts at the current position (already indented).
fn write_map(map: &serde_json::Map<String, Value>, level: usize, out: &mut String, depth: usize) {
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            indent(out, level);
        }
        write_string(key, out);
        out.push(':');
        write_child(value, level, out, depth);
    }
}

/// Writes a sequence whose first line starts at the current position (already indented).
fn write_seq(items: &[Value], level: usize, out: &mut String, depth: usize) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            indent(out, level);
        }
        out.push('-');
        if depth >= MAX_EMIT_DEPTH {
            out.push_str(" null\n");
            continue;
        }
        match item {
            Value::Object(m) if !m.is_empty() => {
                out.push(' ');
                write_map(m, level + 2, out, depth + 1);
            }
            Value::Array(a) if !a.is_empty() => {
                out.push(' ');
                write_seq(a, level + 2, out, depth + 1);
            }
            scalar => write_inline_value(scalar, level + 2, out),
        }
    }
}

/// Writes the value of a `key:` (block children on the following lines).
fn write_child(value: &Value, level: usize, out: &mut String, depth: usize) {
    if depth >= MAX_EMIT_DEPTH && is_block(value) {
        out.push_str(" null\n");
        return;
    }
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            write_map(m, level + 2, out, depth + 1);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            write_seq(a, level + 2, out, depth + 1);
        }
        scalar => write_inline_value(scalar, level + 2, out),
    }
}

/// Writes a scalar after `key:` or `-`, ending the line: a literal block indented by `content` when
/// it is a multi-line string a literal block keeps, else a plain or quoted scalar.
fn write_inline_value(value: &Value, content: usize, out: &mut String) {
    if let Value::String(s) = value
        && let Some(chomping) = literal_chomping(s)
    {
        out.push_str(" |");
        out.push_str(chomping);
        out.push('\n');
        let body = s.trim_end_matches('\n');
        for line in body.split('\n') {
            if !line.is_empty() {
                indent(out, content);
                out.push_str(line);
            }
            out.push('\n');
        }
        // `|+` keeps the final line break and these empty lines.
        for _ in 1..s.len() - body.len() {
            out.push('\n');
        }
        return;
    }
    out.push(' ');
    write_scalar(value, out);
    out.push('\n');
}

/// The chomping indicator (`-` strip, `` clip, `+` keep) with which a literal block scalar reads back
/// as exactly `s`, or `None` when `s` is better quoted: it has no line break, has a character that
/// needs an escape (or a tab or carriage return, which a block would keep only by accident of
/// whitespace rules), a line made of spaces only (read back as an empty line), a first line that
/// starts with a space (it would set the indentation), or nothing but line breaks.
fn literal_chomping(s: &str) -> Option<&'static str> {
    if !s.contains('\n')
        || s.chars()
            .any(|c| c != '\n' && (needs_escape(c) || c == '\t' || c == '\r'))
    {
        return None;
    }
    let body = s.trim_end_matches('\n');
    if body.is_empty() {
        return None;
    }
    let mut lines = body.split('\n');
    if lines
        .clone()
        .any(|line| !line.is_empty() && line.bytes().all(|b| b == b' '))
    {
        return None;
    }
    if lines
        .find(|line| !line.is_empty())
        .is_some_and(|line| line.starts_with(' '))
    {
        return None;
    }
    Some(match s.len() - body.len() {
        0 => "-",
        1 => "",
        _ => "+",
    })
}

fn write_scalar(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
    }
}

fn write_number(n: &Number, out: &mut String) {
    if n.is_f64() {
        let text = n.to_string();
        out.push_str(&text);
        // Keep a float a float: `1` would read back as an integer.
        if !text.contains(['.', 'e', 'E']) {
            out.push_str(".0");
        }
    } else {
        let _ = write!(out, "{n}");
    }
}

/// Whether `s` can be written as a plain scalar and read back as the same string.
fn plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with(char::is_whitespace) || s.ends_with(char::is_whitespace) {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    // `<<` would read back as a merge key, `=` as the YAML 1.1 value key.
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') || s == "<<" || s == "=" {
        return false;
    }
    if s.chars().any(needs_escape) {
        return false;
    }
    !looks_typed(s)
}

/// Whether a YAML 1.2 or YAML 1.1 reader could take `s` for something other than a string:
/// null, booleans (including `yes`/`no`/`on`/`off`/`y`/`n`), numbers in any notation, dates.
fn looks_typed(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "~" | "null"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | ".inf"
            | "-.inf"
            | "+.inf"
            | ".nan"
    ) {
        return true;
    }
    // Anything starting like a number (digits, sign or dot followed by a digit) is quoted: this covers
    // integers, floats, octal/hex, sexagesimal, `1_000` and dates such as `2026-02-15`.
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('-' | '+' | '.') => chars.next().is_some_and(|c| c.is_ascii_digit() || c == '.'),
        _ => false,
    }
}

/// Whether `c` must be written as an escape: every character outside YAML 1.2's printable set
/// (§5.1: tab, line breaks, `x20`–`x7E`, `x85`, `xA0`–`xD7FF`, `xE000`–`xFFFD`, `x10000` and up,
/// so controls, DEL, C1 controls and the noncharacters U+FFFE and U+FFFF), and the characters a
/// reader takes for line breaks or a byte order mark (`x85`, U+2028, U+2029, U+FEFF).
fn needs_escape(c: char) -> bool {
    let printable = matches!(c,
        '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..);
    !printable || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

fn write_string(s: &str, out: &mut String) {
    if plain_safe(s) {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(value: Value, expect: &str) {
        assert_eq!(emit(&value), expect);
    }

    #[test]
    fn scalars_and_quoting() {
        check(
            json!({"a": "plain text", "b": "", "c": "yes", "d": "2026-02-15", "e": "012",
                   "f": "a: b", "g": "x #y", "h": "{{name}}", "i": " pad", "j": "ünïcödé ✓",
                   "k": "line\nbreak", "l": "-x", "m": "tools/call", "n": 1, "o": 1.0, "p": -2.5e-7,
                   "q": null, "r": true, "s": "~", "t": "*alias", "u": "1.0", "<<": "..."}),
            "a: plain text\nb: \"\"\nc: \"yes\"\nd: \"2026-02-15\"\ne: \"012\"\nf: \"a: b\"\ng: \"x #y\"\n\
             h: \"{{name}}\"\ni: \" pad\"\nj: ünïcödé ✓\nk: |-\n  line\n  break\nl: \"-x\"\nm: tools/call\n\
             \"n\": 1\no: 1.0\np: -2.5e-7\nq: null\nr: true\ns: \"~\"\nt: \"*alias\"\nu: \"1.0\"\n\"<<\": \"...\"\n",
        );
    }

    #[test]
    fn literal_blocks() {
        check(
            json!({"a": "x\ny\n", "b": ["p\n\n", "q\nr"], "c": {"d": "\n\ne\n  f"}}),
            "a: |\n  x\n  y\nb:\n  - |+\n    p\n\n  - |-\n    q\n    r\nc:\n  d: |-\n\n\n    e\n      f\n",
        );
        // Keys are never blocks; what a block cannot keep is quoted.
        check(
            json!({"a\nb": " x\ny", "c": "x\n \ny", "d": "x\ty\nz", "e": "\n\n"}),
            "\"a\\nb\": \" x\\ny\"\nc: \"x\\n \\ny\"\nd: \"x\\ty\\nz\"\ne: \"\\n\\n\"\n",
        );
    }

    #[test]
    fn nesting() {
        check(
            json!({"a": {"b": [1, {"c": [], "d": {}}, [2, 3]], "e": {"f": "g"}}}),
            "a:\n  b:\n    - 1\n    - c: []\n      d: {}\n    - - 2\n      - 3\n  e:\n    f: g\n",
        );
    }
}
