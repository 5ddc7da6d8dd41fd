//! The list of parse errors returned by `parse`, with the document as far as it could be read
//! (SDK §7.1, D-67).

use std::fmt;

use crate::error::ParseError;
use crate::types::Document;

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

    /// The fields left out of the partial document, as dot-paths.
    pub(crate) fn dropped(&self) -> &[String] {
        &self.dropped
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

#[cfg(feature = "miette")]
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
