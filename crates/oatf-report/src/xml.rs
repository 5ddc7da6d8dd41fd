//! XML escaping for JUnit reports (this crate's [`junit`](crate::junit) and `oatf test --format junit`).
//!
//! Characters XML 1.0 cannot hold (C0 controls other than tab, newline and carriage return, U+FFFE,
//! U+FFFF) become U+FFFD. In attributes, tab, newline and carriage return are written as character
//! references, since an XML parser would otherwise normalize them to spaces.

use std::fmt::Write as _;

fn escape(text: &str, in_attribute: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\t' | '\n' | '\r' if in_attribute => {
                let _ = write!(escaped, "&#{};", u32::from(c));
            }
            '\t' | '\n' | '\r' => escaped.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                escaped.push('\u{FFFD}')
            }
            c => escaped.push(c),
        }
    }
    escaped
}

/// Escapes text for an attribute value.
pub fn attr(text: &str) -> String {
    escape(text, true)
}

/// Escapes text for element content (line breaks kept).
pub fn text(text: &str) -> String {
    escape(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_and_content() {
        assert_eq!(
            attr("a<b>&\"'\n\t\u{1}"),
            "a&lt;b&gt;&amp;&quot;&apos;&#10;&#9;\u{FFFD}"
        );
        assert_eq!(text("a<b>\n\t\u{FFFF}"), "a&lt;b&gt;\n\t\u{FFFD}");
    }
}
