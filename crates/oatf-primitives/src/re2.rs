//! RE2 syntax checks for regular expressions (backs V-013).

use std::fmt;
use std::ops::Range;

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
/// Lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) and backreferences (`\1`) are rejected: they are outside RE2.
pub fn check_regex(pattern: &str) -> Result<(), RegexSyntaxError> {
    let mut parser = regex_syntax::ast::parse::ParserBuilder::new()
        .nest_limit(crate::RegexLimits::default().nest_limit)
        .build();
    let ast = parser.parse(pattern).map_err(|e| RegexSyntaxError {
        message: e.kind().to_string(),
        span: e.span().start.offset..e.span().end.offset,
    })?;
    regex_syntax::hir::translate::Translator::new()
        .translate(pattern, &ast)
        .map(drop)
        .map_err(|e| RegexSyntaxError {
            message: e.kind().to_string(),
            span: e.span().start.offset..e.span().end.offset,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
