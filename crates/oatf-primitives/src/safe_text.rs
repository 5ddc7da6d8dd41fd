//! Attacker text made safe to print on a terminal or in a log line: the one owner of the escaping rules
//! (D-132).
//!
//! Documents, traces and evidence come from strangers. Text printed raw can carry ANSI escape
//! sequences (recolour or clear the screen, rewrite the line), carriage returns and line breaks
//! (forge a log line), bidi overrides (show `exe.txt` for `txt.exe`) and other controls. [`escape`]
//! turns each of them into a visible escape: `\n`, `\r`, or `\u{…}` with the code point in hex;
//! everything else, printable Unicode included, is kept as it is. Escaping is not reversible
//! (a backslash stays a backslash); it is for people, not for parsers: structured output (JSON, SARIF,
//! JUnit) escapes through its own encoder.
//!
//! ```
//! use oatf_primitives::safe_text::{escape, escape_keep_lines};
//!
//! assert_eq!(escape("ok – ünïcode"), "ok – ünïcode");
//! assert_eq!(escape("\u{1b}[2Jgone\r\nFAKE: ok"), "\\u{1b}[2Jgone\\r\\nFAKE: ok");
//! assert_eq!(escape("\u{202e}txt.exe"), "\\u{202e}txt.exe");
//! assert_eq!(escape_keep_lines("line 1\nline\u{7} 2"), "line 1\nline\\u{7} 2");
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal raw: C0 and C1 controls (tab excepted), DEL, and the
/// Unicode format characters that reorder or hide text (bidi embeddings, overrides and isolates,
/// line and paragraph separators, the BOM).
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// Appends `c` to `out`, escaped when it is a line break or [unsafe](is_unsafe).
pub fn push_escaped(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if is_unsafe(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// `text` with every unsafe character (see [`is_unsafe`]) and every line break escaped, for one
/// line of human output. Borrowed when nothing needed escaping.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\n' || is_unsafe(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(c, &mut out);
    }
    Cow::Owned(out)
}

/// Like [`escape`], but keeps line breaks (`\n`; a `\r` is still escaped): for a whole multi-line
/// report built from attacker text.
pub fn escape_keep_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\n' {
            out.push('\n');
        } else {
            push_escaped(c, &mut out);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_but_not_text() {
        assert_eq!(escape("plain – ünïcode\ttab"), "plain – ünïcode\ttab");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert_eq!(escape("over\rwrite\nline"), "over\\rwrite\\nline");
        assert_eq!(escape("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(escape("c1\u{9b}31m"), "c1\\u{9b}31m");
        assert_eq!(escape("del\u{7f}"), "del\\u{7f}");
        assert_eq!(escape("sep\u{2028}bom\u{feff}"), "sep\\u{2028}bom\\u{feff}");
        assert_eq!(escape_keep_lines("a\nb\u{7}\r"), "a\nb\\u{7}\\r");
    }

    #[test]
    fn the_escaped_form_holds_no_unsafe_character() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        let escaped = escape(&all);
        assert!(!escaped.chars().any(|c| c == '\n' || is_unsafe(c)));
        assert!(
            !escape_keep_lines(&all)
                .chars()
                .any(|c| c != '\n' && is_unsafe(c))
        );
    }
}
