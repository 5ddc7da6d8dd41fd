//! RE2 syntax checks for regular expressions (backs V-013 in `oatf-model`'s validation).

use std::fmt;
use std::ops::Range;

/// The syntax nesting limit of regexes: the default of `oatf-primitives`' `RegexLimits::nest_limit`
/// and the limit of [`check_regex`].
pub const REGEX_NEST_LIMIT: u32 = 100;

/// Why a pattern is not a valid RE2 regular expression, with the byte span of the fault in the pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexSyntaxError {
    message: String,
    span: Range<usize>,
}

impl RegexSyntaxError {
    /// What is wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte range in the pattern that the error points at.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }
}

impl fmt::Display for RegexSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.span.start)
    }
}

impl std::error::Error for RegexSyntaxError {}

/// Checks that `pattern` is valid RE2 syntax as the `regex` crate reads it.
///
/// What RE2 does not have is rejected with a message naming it, even where the `regex` crate would
/// accept it: look-around (`(?=`, `(?!`, `(?<=`, `(?<!`), backreferences (`\1`, `\k<n>`,
/// `(?P=n)`), atomic groups (`(?>…)`), conditionals (`(?(1)…)`), possessive and doubled quantifiers
/// (`a++`, `a*+`, `a**`, `a{2}{3}`), the flags `x`, `u` and `R`, `\u` escapes, class set operations
/// (`[a&&b]`, `[a--b]`, `[a~~b]`) and nested classes (`[a[b]]`), and the word boundaries `\<`, `\>`,
/// `\b{start}`, `\b{end}`, `\b{start-half}`, `\b{end-half}`.
pub fn check_regex(pattern: &str) -> Result<(), RegexSyntaxError> {
    if let Some(answer) = check_regex_tree(pattern) {
        return answer;
    }
    // Unicode mode cannot be turned off (the `u` flag is rejected), so the only errors of the
    // translation to HIR are Unicode class names it does not know (`\p{Nope}`): translate only
    // patterns with a Unicode class, the rest are valid once the syntax tree is.
    let ast = parser()
        .parse(pattern)
        .map_err(|e| tree_error(pattern, &e))?;
    regex_syntax::hir::translate::Translator::new()
        .translate(pattern, &ast)
        .map(drop)
        .map_err(|e| RegexSyntaxError {
            message: e.kind().to_string(),
            span: e.span().start.offset..e.span().end.offset,
        })
}

/// The first stage of [`check_regex`]: its answer when the syntax tree decides it (a syntax error, or
/// a pattern without a Unicode class, which is then valid); `None` when only the translation of a
/// Unicode class (`\p{…}`, `\P{…}`) can tell, the stage that needs `regex-syntax`'s Unicode tables.
/// A build that calls only this links no Unicode table (the npm validation module, D-190).
///
/// ```
/// use oatf_internal::check_regex_tree;
/// assert_eq!(check_regex_tree("key=(\\w+)"), Some(Ok(())));
/// assert!(check_regex_tree("(?=a)").is_some_and(|answer| answer.is_err()));
/// assert_eq!(check_regex_tree("\\p{Greek}+"), None);
/// ```
pub fn check_regex_tree(pattern: &str) -> Option<Result<(), RegexSyntaxError>> {
    let ast = match parser().parse(pattern) {
        Ok(ast) => ast,
        Err(e) => return Some(Err(tree_error(pattern, &e))),
    };
    match regex_syntax::ast::visit(&ast, Re2Only::default()) {
        Err(e) => Some(Err(e)),
        Ok(true) => None,
        Ok(false) => Some(Ok(())),
    }
}

/// The syntax-tree parser of [`check_regex`], under the SDK's nesting limit.
fn parser() -> regex_syntax::ast::parse::Parser {
    regex_syntax::ast::parse::ParserBuilder::new()
        .nest_limit(REGEX_NEST_LIMIT)
        .build()
}

/// A parse error of the syntax tree, in words.
fn tree_error(pattern: &str, e: &regex_syntax::ast::Error) -> RegexSyntaxError {
    RegexSyntaxError {
        message: explain(pattern, e.span().start.offset)
            .map_or_else(|| e.kind().to_string(), str::to_owned),
        span: e.span().start.offset..e.span().end.offset,
    }
}

/// A clearer message for the constructs of other regex dialects the parser does not know, by what
/// starts at `offset` (the parser reports them as an unknown flag or escape).
fn explain(pattern: &str, offset: usize) -> Option<&'static str> {
    let window = pattern.get(offset.saturating_sub(2)..)?;
    let near = |construct: &str| window.find(construct).is_some_and(|i| i <= 2);
    if near("(?>") {
        Some("atomic groups `(?>…)` are not RE2 syntax")
    } else if near("(?(") {
        Some("conditionals `(?(…)…)` are not RE2 syntax")
    } else if near("(?P=") || near("\\k") {
        Some("backreferences are not RE2 syntax")
    } else {
        None
    }
}

/// Rejects what the `regex` crate parses but RE2 lacks (see [`check_regex`]); gives whether the
/// pattern has a Unicode class (`\p{…}`, `\P{…}`), whose name only the translation to HIR checks.
#[derive(Default)]
struct Re2Only {
    unicode_class: bool,
}

fn unsupported(what: &str, span: &regex_syntax::ast::Span) -> RegexSyntaxError {
    RegexSyntaxError {
        message: format!("{what} are not RE2 syntax"),
        span: span.start.offset..span.end.offset,
    }
}

impl regex_syntax::ast::Visitor for Re2Only {
    type Output = bool;
    type Err = RegexSyntaxError;

    fn finish(self) -> Result<bool, RegexSyntaxError> {
        Ok(self.unicode_class)
    }

    fn visit_pre(&mut self, ast: &regex_syntax::ast::Ast) -> Result<(), RegexSyntaxError> {
        use regex_syntax::ast::{
            AssertionKind, Ast, Flag, FlagsItemKind, GroupKind, HexLiteralKind, LiteralKind,
        };
        let flags_ok = |flags: &regex_syntax::ast::Flags| {
            flags.items.iter().try_for_each(|item| match item.kind {
                FlagsItemKind::Flag(Flag::IgnoreWhitespace | Flag::Unicode | Flag::CRLF) => {
                    Err(unsupported(
                        "the flags `x`, `u` and `R` (RE2 has `i`, `m`, `s`, `U`)",
                        &item.span,
                    ))
                }
                _ => Ok(()),
            })
        };
        if matches!(ast, Ast::ClassUnicode(_)) {
            self.unicode_class = true;
        }
        match ast {
            Ast::Repetition(rep) if matches!(*rep.ast, Ast::Repetition(_)) => Err(unsupported(
                "possessive and doubled quantifiers (`a++`, `a*+`, `a**`, `a{2}{3}`)",
                &rep.span,
            )),
            Ast::Flags(flags) => flags_ok(&flags.flags),
            Ast::Group(group) => match &group.kind {
                GroupKind::NonCapturing(flags) => flags_ok(flags),
                _ => Ok(()),
            },
            Ast::Literal(lit)
                if matches!(
                    lit.kind,
                    LiteralKind::HexFixed(
                        HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong
                    ) | LiteralKind::HexBrace(
                        HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong
                    )
                ) =>
            {
                Err(unsupported(
                    "`\\u` and `\\U` escapes (RE2 writes `\\x{…}`)",
                    &lit.span,
                ))
            }
            Ast::Assertion(assertion)
                if !matches!(
                    assertion.kind,
                    AssertionKind::StartLine
                        | AssertionKind::EndLine
                        | AssertionKind::StartText
                        | AssertionKind::EndText
                        | AssertionKind::WordBoundary
                        | AssertionKind::NotWordBoundary
                ) =>
            {
                Err(unsupported(
                    "the word boundaries `\\<`, `\\>` and `\\b{…}`",
                    &assertion.span,
                ))
            }
            _ => Ok(()),
        }
    }

    fn visit_class_set_item_pre(
        &mut self,
        item: &regex_syntax::ast::ClassSetItem,
    ) -> Result<(), RegexSyntaxError> {
        if matches!(item, regex_syntax::ast::ClassSetItem::Unicode(_)) {
            self.unicode_class = true;
        }
        match item {
            regex_syntax::ast::ClassSetItem::Bracketed(class) => Err(unsupported(
                "nested character classes (`[a[b]]`)",
                &class.span,
            )),
            _ => Ok(()),
        }
    }

    fn visit_class_set_binary_op_pre(
        &mut self,
        op: &regex_syntax::ast::ClassSetBinaryOp,
    ) -> Result<(), RegexSyntaxError> {
        Err(unsupported(
            "character class set operations (`&&`, `--`, `~~`)",
            &op.span,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_class_names_are_checked_wherever_they_are() {
        for (pattern, valid) in [
            (r"\p{Nope}", false),
            (r"a|\P{Nope}", false),
            (r"[a\p{Nope}]", false),
            (r"[^\pQ]", false),
            (r"(?i)x(\p{Greek}|\p{Script=Nope})", false),
            (r"\p{Greek}[\P{Han}\pL]", true),
            (r"(?i)secret|token_[a-z0-9]{16}", true),
            (r"[^\x00-\x{10FFFF}]", true),
        ] {
            assert_eq!(check_regex(pattern).is_ok(), valid, "{pattern}");
            assert_eq!(regex::Regex::new(pattern).is_ok(), valid, "{pattern}");
        }
    }

    #[test]
    fn rejects_what_re2_lacks() {
        assert!(check_regex(r"key_[0-9]+").is_ok());
        assert!(check_regex(r"\p{Han}+").is_ok());
        for bad in [
            r"(?=a)",
            r"(?!a)",
            r"(?<=a)b",
            r"(a)\1",
            r"(unclosed",
            r"[z-a]",
        ] {
            assert!(check_regex(bad).is_err(), "{bad}");
        }
        let err = check_regex("ab(c").unwrap_err();
        assert_eq!(err.span().start, 2);
    }

    #[test]
    fn rejects_other_dialects_with_a_message_naming_the_construct() {
        for (bad, says) in [
            (r"a++", "possessive"),
            (r"x(ab)*+y", "possessive"),
            (r"a?+", "possessive"),
            (r"a{1,3}+", "possessive"),
            (r"a**", "doubled"),
            (r"a{2}{3}", "doubled"),
            (r"(?>ab)c", "atomic groups"),
            (r"x(?>a|b)", "atomic groups"),
            (r"(a)?(?(1)b|c)", "conditionals"),
            (r"(?P<n>a)(?P=n)", "backreferences"),
            (r"(?P<n>a)\k<n>", "backreferences"),
            (r"(a)\1", "backreferences"),
            (r"(?=a)", "look-around"),
            (r"(?<!a)b", "look-around"),
            (r"(?x)a b", "flags"),
            (r"(?iu:a)", "flags"),
            (r"(?R)a$", "flags"),
            (r"\u0041", "escapes"),
            (r"\U00000041", "escapes"),
            (r"[a-z&&[^aeiou]]", "class"),
            (r"[a-z--b]", "class"),
            (r"[a[bc]]", "nested character classes"),
            (r"\<word\>", "word boundaries"),
            (r"\b{start}x", "word boundaries"),
        ] {
            let err = check_regex(bad).expect_err(bad);
            assert!(err.message().contains(says), "{bad}: {}", err.message());
        }
        // RE2 has these: lazy quantifiers, counted repetition made lazy, flags i/m/s/U, classes.
        for good in [
            r"a*?",
            r"a+?",
            r"a??",
            r"a{2}?",
            r"a{2,}?",
            r"(?i:a)",
            r"(?sm-U)a",
            r"(?U)a*",
            r"[[:alpha:]]",
            r"\x{41}",
            r"\pN",
            r"(?P<n>a)",
            r"(?<n>a)",
            r"\bword\B",
            r"(?:a+)+",
            r"[^\d\s]",
            r"\A\z",
        ] {
            assert!(check_regex(good).is_ok(), "{good}: {:?}", check_regex(good));
        }
    }

    #[test]
    fn span_of_a_doubled_quantifier() {
        let err = check_regex("ab(c").unwrap_err();
        assert_eq!(err.span().start, 2);
    }
}
