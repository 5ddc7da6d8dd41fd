//! Parse errors (SDK §7.1).

use std::fmt;
use std::ops::Range;

use crate::span::parent_path;
use crate::types::Document;
use crate::validate::{ValidateOptions, ValidationResult, validate_with};

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
    pub(crate) rule: Option<crate::Rule>,
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
        self.rule.map(crate::Rule::id)
    }
}

impl ParseError {
    /// The message as a source label: without the list of known fields of an unknown key, which the
    /// headline already shows.
    fn label(&self) -> &str {
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

impl miette::Diagnostic for ParseError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.rule.map(crate::Rule::id).unwrap_or(
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

/// The non-empty list of problems returned by [`parse`](crate::parse), ordered by source location.
///
/// `parse` does not stop at the first unknown key or value of the wrong type: it reports each one,
/// leaves that field out and reads the rest, so one run shows every problem. What it could read is
/// kept ([`partial_document`](Self::partial_document)), and [`validate_rest`](Self::validate_rest)
/// gives the `V-` findings of the parts that parsed.
#[derive(Clone, Debug)]
pub struct ParseErrors {
    errors: Vec<ParseError>,
    partial: Option<Box<Document>>,
    dropped: Vec<String>,
}

impl PartialEq for ParseErrors {
    /// Two lists are equal when their errors are; the partial documents follow from the input.
    fn eq(&self, other: &Self) -> bool {
        self.errors == other.errors
    }
}

impl Eq for ParseErrors {}

impl ParseErrors {
    /// Wraps a list; `None` when it is empty.
    pub fn new(errors: Vec<ParseError>) -> Option<Self> {
        (!errors.is_empty()).then_some(ParseErrors {
            errors,
            partial: None,
            dropped: Vec::new(),
        })
    }

    pub(crate) fn single(error: ParseError) -> Self {
        ParseErrors {
            errors: vec![error],
            partial: None,
            dropped: Vec::new(),
        }
    }

    /// The errors, with the document read without the fields that failed (at `dropped`).
    pub(crate) fn with_partial(
        errors: Vec<ParseError>,
        partial: Document,
        dropped: Vec<String>,
    ) -> Option<Self> {
        let mut errors = ParseErrors::new(errors)?;
        errors.partial = Some(Box::new(partial));
        errors.dropped = dropped;
        Some(errors)
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

    /// The document as far as it could be read: each unknown key and each value of the wrong type
    /// left out, as if it had not been written. `None` when the YAML itself could not be read
    /// (syntax, limits) or the root is not a mapping.
    ///
    /// It is not a parsed document (parsing failed); use it to look at what was read, and
    /// [`validate_rest`](Self::validate_rest) to check it.
    pub fn partial_document(&self) -> Option<&Document> {
        self.partial.as_deref()
    }

    /// Validates the parts of the document that parsed ([`partial_document`](Self::partial_document)):
    /// the `V-` errors and warnings that the faulty fields do not explain. A finding at a field that
    /// failed, inside it, or at the object that holds it is left out, since leaving the field out is
    /// what the validator saw (an indicator whose `pattern` has the wrong type would otherwise also
    /// be "without a detection key"). Empty when there is no partial document.
    ///
    /// ```
    /// # #[cfg(feature = "yaml")] {
    /// let errors = oatf_model::parse(
    ///     "oatf: \"0.1\"\nattack:\n  version: \"two\"\n  severity: extreme\n  execution: {mode: mcp_server, state: {}}\n",
    /// ).unwrap_err();
    /// assert_eq!(errors.first().map(|e| e.message()),
    ///            Some("expected an integer, found the string \"two\""));
    /// let rest = errors.validate_rest(&oatf_model::ValidateOptions::default());
    /// let rules: Vec<_> = rest.errors().iter().map(|e| (e.rule(), e.path())).collect();
    /// assert_eq!(rules, [("V-005", "attack.severity")]);
    /// # }
    /// ```
    pub fn validate_rest(&self, options: &ValidateOptions) -> ValidationResult {
        let Some(document) = self.partial.as_deref() else {
            return ValidationResult::default();
        };
        let mut result = validate_with(document, options);
        let explained = |path: Option<&str>| {
            let path = path.unwrap_or_default();
            self.dropped.iter().any(|dropped| {
                path == dropped
                    || parent_path(dropped) == Some(path)
                    || path
                        .strip_prefix(dropped.as_str())
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
            })
        };
        result.errors.retain(|e| !explained(Some(e.path())));
        result.warnings.retain(|w| !explained(w.path()));
        result
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
                Some(rule) => format!("{rule}: {}", e.label()),
                None => e.label().to_owned(),
            };
            Some(miette::LabeledSpan::new_with_span(Some(label), span))
        })))
    }
}
