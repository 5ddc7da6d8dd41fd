//! One parse error and its kind (SDK §7.1). A leaf: the document types, the YAML reader and the
//! list of errors ([`ParseErrors`](crate::ParseErrors)) build on it.

use std::fmt;
use std::ops::Range;

/// What kind of problem stopped [`parse`](crate::parse) (SDK §2.20 `ParseErrorKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// Not YAML, more than one document, an empty document, a forbidden construct (V-020), or input
    /// beyond a limit of [`ParseOptions`](crate::ParseOptions).
    Syntax,
    /// A value of the wrong type, a missing required field, or an unknown key on a typed object.
    TypeMismatch,
    /// An unknown value of an enumeration that must be rejected while parsing.
    UnknownVariant,
}

impl ParseErrorKind {
    /// The canonical name (`syntax`, `type_mismatch`, `unknown_variant`).
    pub fn as_str(self) -> &'static str {
        match self {
            ParseErrorKind::Syntax => "syntax",
            ParseErrorKind::TypeMismatch => "type_mismatch",
            ParseErrorKind::UnknownVariant => "unknown_variant",
        }
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found while parsing a document (SDK §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub(crate) kind: ParseErrorKind,
    pub(crate) message: String,
    pub(crate) path: Option<String>,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
    pub(crate) span: Option<Range<usize>>,
    pub(crate) rule: Option<crate::rules::Rule>,
    /// An unknown key: kind `type_mismatch` (SDK §7.1 has no kind of its own for it, D-67), shown
    /// under the code `oatf::parse::unknown_field`.
    pub(crate) unknown_field: bool,
}

impl ParseError {
    pub(crate) fn new(kind: ParseErrorKind, message: impl Into<String>) -> Self {
        ParseError {
            kind,
            message: message.into(),
            path: None,
            line: None,
            column: None,
            span: None,
            rule: None,
            unknown_field: false,
        }
    }

    /// The kind of problem.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// What is wrong, in words (lowercase, no trailing period, no location).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Dot-path of the offending node (`attack.indicators[0].confidence`), when known.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// 1-based line in the source, when known.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// 1-based column (in characters) in the source, when known.
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// Byte range in the source, when known.
    pub fn span(&self) -> Option<Range<usize>> {
        self.span.clone()
    }

    /// The validation rule this finding also belongs to: `Some("V-020")` for anchors, aliases, merge
    /// keys and custom tags (spec-decisions 6).
    pub fn rule(&self) -> Option<&str> {
        self.rule.map(crate::rules::Rule::id)
    }
}

// Used by the `miette` labels only: without the feature it would be dead code.
#[cfg(feature = "miette")]
impl ParseError {
    /// The message as a source label: without the list of known fields of an unknown key, which the
    /// headline already shows.
    pub(crate) fn label(&self) -> &str {
        match self.message.find(" expected one of ") {
            Some(end) if self.unknown_field => self.message[..end].trim_end_matches(';'),
            _ => &self.message,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(rule) = self.rule {
            write!(f, "{rule}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(path) = self.path.as_deref().filter(|p| !p.is_empty()) {
            write!(f, " at `{path}`")?;
        }
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

#[cfg(feature = "miette")]
impl miette::Diagnostic for ParseError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.rule.map(crate::rules::Rule::id).unwrap_or(
            match self.kind {
                ParseErrorKind::Syntax => "oatf::parse::syntax",
                ParseErrorKind::TypeMismatch if self.unknown_field => "oatf::parse::unknown_field",
                ParseErrorKind::TypeMismatch => "oatf::parse::type_mismatch",
                ParseErrorKind::UnknownVariant => "oatf::parse::unknown_variant",
            },
        )))
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_with_span(
                Some(self.label().to_owned()),
                span.start..span.end.max(span.start),
            ),
        )))
    }
}
