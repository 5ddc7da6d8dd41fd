//! Parse errors (SDK §7.1).

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
    pub(crate) rule: Option<&'static str>,
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
        self.rule
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

impl miette::Diagnostic for ParseError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.rule.unwrap_or(match self.kind {
            ParseErrorKind::Syntax => "oatf::parse::syntax",
            ParseErrorKind::TypeMismatch => "oatf::parse::type_mismatch",
            ParseErrorKind::UnknownVariant => "oatf::parse::unknown_variant",
        })))
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_with_span(
                Some(self.message.clone()),
                span.start..span.end.max(span.start),
            ),
        )))
    }
}

/// The non-empty list of problems returned by [`parse`](crate::parse), ordered by source location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseErrors {
    errors: Vec<ParseError>,
}

impl ParseErrors {
    /// Wraps a list; `None` when it is empty.
    pub fn new(errors: Vec<ParseError>) -> Option<Self> {
        (!errors.is_empty()).then_some(ParseErrors { errors })
    }

    pub(crate) fn single(error: ParseError) -> Self {
        ParseErrors {
            errors: vec![error],
        }
    }

    /// The errors in order.
    pub fn iter(&self) -> std::slice::Iter<'_, ParseError> {
        self.errors.iter()
    }

    /// Number of errors (at least one).
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always `false`: the list is never empty.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The first error.
    pub fn first(&self) -> Option<&ParseError> {
        self.errors.first()
    }

    /// The errors as a slice.
    pub fn as_slice(&self) -> &[ParseError] {
        &self.errors
    }

    /// The errors as a vector.
    pub fn into_vec(self) -> Vec<ParseError> {
        self.errors
    }
}

impl<'a> IntoIterator for &'a ParseErrors {
    type Item = &'a ParseError;
    type IntoIter = std::slice::Iter<'a, ParseError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl IntoIterator for ParseErrors {
    type Item = ParseError;
    type IntoIter = std::vec::IntoIter<ParseError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors.as_slice() {
            [single] => write!(f, "{single}"),
            errors => {
                write!(f, "{} parse errors", errors.len())?;
                for error in errors {
                    write!(f, "; {error}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ParseErrors {}

impl miette::Diagnostic for ParseErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self.errors.as_slice() {
            [single] => miette::Diagnostic::code(single),
            _ => Some(Box::new("oatf::parse")),
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(self.errors.iter().filter_map(|e| {
            let span = e.span.clone()?;
            let label = match e.rule {
                Some(rule) => format!("{rule}: {}", e.message),
                None => e.message.clone(),
            };
            Some(miette::LabeledSpan::new_with_span(Some(label), span))
        })))
    }
}
