//! The lexical syntax of templates (format §5.6, SDK §5.5): the one scanner that both validation and
//! interpolation use, so that what `validate` checks is what the runtime renders.
//!
//! A template is scanned once, left to right:
//! - `\{{` is a literal `{{` (no escape chaining: `\\{{` is a `\` followed by the escape);
//! - `{{name}}` is an expression ending at the first `}}` after its opening; it never spans another
//!   opening `{{` (no nesting): in `{{a{{b}}` the first `{` is literal, scanning resumes at the next
//!   `{`, and the result is the text `{{a` and the expression `b`, as a regex `\{\{(.*?)\}\}` without
//!   `{{` inside would find it;
//! - an opening `{{` with no `}}` after it is unclosed: the rest of the string is literal text (V-016
//!   reports it);
//! - everything else is literal text.
//!
//! The name of an expression is trimmed of surrounding whitespace; an empty name (`{{}}`, `{{ }}`) is
//! reported as such and renders as an undefined reference.

/// One lexical piece of a template, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateToken<'t> {
    /// Literal text.
    Text(&'t str),
    /// The escape `\{{`, standing for a literal `{{`.
    EscapedOpen,
    /// A `{{name}}` expression: the name, trimmed (possibly empty).
    Expression(&'t str),
    /// An opening `{{` without a closing `}}`: the rest of the template from that `{{` on.
    Unclosed(&'t str),
}

/// Scans `template` into [`TemplateToken`]s, calling `emit` for each in order.
///
/// ```
/// use oatf_internal::{TemplateToken, scan_template};
///
/// let mut tokens = Vec::new();
/// scan_template(r"a {{x}} \{{y}} {{a{{b}}", |t| tokens.push(t));
/// assert_eq!(
///     tokens,
///     [
///         TemplateToken::Text("a "),
///         TemplateToken::Expression("x"),
///         TemplateToken::Text(" "),
///         TemplateToken::EscapedOpen,
///         TemplateToken::Text("y}} "),
///         TemplateToken::Text("{"),
///         TemplateToken::Text("{a"),
///         TemplateToken::Expression("b"),
///     ]
/// );
/// ```
pub fn scan_template<'t>(template: &'t str, mut emit: impl FnMut(TemplateToken<'t>)) {
    let mut rest = template;
    while !rest.is_empty() {
        let Some(at) = rest.find("{{") else {
            emit(TemplateToken::Text(rest));
            return;
        };
        if at > 0 && rest.as_bytes().get(at - 1) == Some(&b'\\') {
            if at > 1 {
                emit(TemplateToken::Text(&rest[..at - 1]));
            }
            emit(TemplateToken::EscapedOpen);
            rest = &rest[at + 2..];
            continue;
        }
        if at > 0 {
            emit(TemplateToken::Text(&rest[..at]));
        }
        let after_open = &rest[at + 2..];
        let Some(close) = after_open.find("}}") else {
            emit(TemplateToken::Unclosed(&rest[at..]));
            return;
        };
        let name = &after_open[..close];
        if name.contains("{{") {
            // No nesting: this `{` is literal and scanning resumes at the next one.
            emit(TemplateToken::Text("{"));
            rest = &rest[at + 1..];
            continue;
        }
        emit(TemplateToken::Expression(name.trim()));
        rest = &after_open[close + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::TemplateToken::{self, EscapedOpen, Expression, Text, Unclosed};
    use super::scan_template;

    fn tokens(template: &str) -> Vec<TemplateToken<'_>> {
        let mut out = Vec::new();
        scan_template(template, |t| out.push(t));
        out
    }

    /// The literal text a renderer would produce with every expression replaced by `<name>`.
    fn rendered(template: &str) -> String {
        let mut out = String::new();
        scan_template(template, |t| match t {
            Text(s) | Unclosed(s) => out.push_str(s),
            EscapedOpen => out.push_str("{{"),
            Expression(name) => {
                out.push('<');
                out.push_str(name);
                out.push('>');
            }
        });
        out
    }

    #[test]
    fn plain_and_simple() {
        assert_eq!(tokens(""), []);
        assert_eq!(tokens("abc"), [Text("abc")]);
        assert_eq!(tokens("{{a}}"), [Expression("a")]);
        assert_eq!(
            tokens("x{{ a.b }}y"),
            [Text("x"), Expression("a.b"), Text("y")]
        );
        assert_eq!(tokens("{{}}"), [Expression("")]);
        assert_eq!(tokens("{{a}}{{b}}"), [Expression("a"), Expression("b")]);
    }

    #[test]
    fn nested_openings_never_nest() {
        assert_eq!(rendered("{{a{{b}}"), "{{a<b>");
        // The leftmost opening whose name holds no `{{` wins, as with the regex: here the second `{`.
        assert_eq!(rendered("{{{{b}}"), "{<{b>");
        assert_eq!(rendered("{{a{{b{{c}}"), "{{a{{b<c>");
        assert_eq!(rendered("{{{a}}}"), "<{a>}");
        assert_eq!(rendered("{{a{b}}"), "<a{b>");
        assert_eq!(rendered("{{a}}b}}"), "<a>b}}");
    }

    #[test]
    fn unbalanced_braces() {
        assert_eq!(tokens("x {{a"), [Text("x "), Unclosed("{{a")]);
        assert_eq!(tokens("{{a}"), [Unclosed("{{a}")]);
        assert_eq!(rendered("a}}"), "a}}");
        assert_eq!(rendered("{a}"), "{a}");
        assert_eq!(rendered("{{a}} {{b"), "<a> {{b");
    }

    #[test]
    fn escapes() {
        assert_eq!(tokens(r"\{{a}}"), [EscapedOpen, Text("a}}")]);
        assert_eq!(rendered(r"x\{{a}} {{b}}"), "x{{a}} <b>");
        // No chaining: `\\{{` is a backslash, then the escape.
        assert_eq!(rendered(r"\\{{a}}"), r"\{{a}}");
        assert_eq!(rendered(r"\{{a{{b}}"), "{{a<b>");
    }

    #[test]
    fn multibyte_text_is_kept() {
        assert_eq!(rendered("é{{ü}}ß\\{{"), "é<ü>ß{{");
    }
}
