//! Validation results (SDK §3.2, §7.0, §7.2).

use std::fmt;
use std::ops::Range;

use crate::rules::{DiagnosticSeverity, Rule};

/// Where a finding is in the YAML source, when the document was parsed from YAML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    /// Byte range of the node.
    pub span: Range<usize>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// A conformance violation found by [`validate`](crate::validate) (SDK §7.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    pub(crate) rule: Rule,
    pub(crate) message: String,
    pub(crate) path: String,
    pub(crate) location: Option<SourceLocation>,
    /// A second place the user needs to see (the first occurrence of a duplicate), shown as a
    /// secondary source label.
    pub(crate) secondary: Option<SecondaryLabel>,
}

/// A secondary source label of a [`ValidationError`]: its text and the byte range it marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SecondaryLabel {
    pub(crate) text: String,
    pub(crate) span: Range<usize>,
}

impl ValidationError {
    /// Rule identifier (`V-001` … `V-050`).
    pub fn rule(&self) -> &str {
        self.rule.id()
    }

    /// The rule, with its severity, section and summary.
    pub fn rule_kind(&self) -> Rule {
        self.rule
    }

    /// Specification section of the rule (`§11.1.1`).
    pub fn spec_ref(&self) -> &str {
        self.rule.spec_section()
    }

    /// What is wrong (lowercase, no trailing period).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Dot-path of the offending field, as written (spec-decisions 1a).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Source location, when the document was parsed from YAML.
    pub fn location(&self) -> Option<&SourceLocation> {
        self.location.as_ref()
    }

    /// The error as a [`Diagnostic`] of severity error.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic {
            severity: DiagnosticSeverity::Error,
            code: self.rule.id().to_owned(),
            path: Some(self.path.clone()),
            message: self.message.clone(),
            location: self.location.clone(),
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)?;
        if !self.path.is_empty() {
            write!(f, " at `{}`", self.path)?;
        }
        if let Some(l) = &self.location {
            write!(f, " (line {}, column {})", l.line, l.column)?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationError {}

#[cfg(feature = "miette")]
impl miette::Diagnostic for ValidationError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(miette::Severity::Error)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        if self.location.is_none() && self.secondary.is_none() {
            return None;
        }
        let primary = self.location.as_ref().map(|location| {
            miette::LabeledSpan::new_with_span(Some(self.message.clone()), location.span.clone())
        });
        let secondary = self.secondary.as_ref().map(|label| {
            miette::LabeledSpan::new_with_span(Some(label.text.clone()), label.span.clone())
        });
        Some(Box::new(primary.into_iter().chain(secondary)))
    }
}

/// A diagnostic (SDK §7.0): a warning of `validate`, or any finding in a uniform shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub(crate) severity: DiagnosticSeverity,
    pub(crate) code: String,
    pub(crate) path: Option<String>,
    pub(crate) message: String,
    pub(crate) location: Option<SourceLocation>,
}

impl Diagnostic {
    /// A new diagnostic without source location.
    pub fn new(
        severity: DiagnosticSeverity,
        code: impl Into<String>,
        path: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code: code.into(),
            path,
            message: message.into(),
            location: None,
        }
    }

    /// `error` or `warning`.
    pub fn severity(&self) -> DiagnosticSeverity {
        self.severity
    }

    /// Machine-readable code (`W-001`, `V-018`, …).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Dot-path of the offending field, when there is one.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// What was found (lowercase, no trailing period).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Source location, when the document was parsed from YAML.
    pub fn location(&self) -> Option<&SourceLocation> {
        self.location.as_ref()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.severity, self.code, self.message)?;
        if let Some(path) = self.path.as_deref().filter(|p| !p.is_empty()) {
            write!(f, " at `{path}`")?;
        }
        if let Some(l) = &self.location {
            write!(f, " (line {}, column {})", l.line, l.column)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(feature = "miette")]
impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            DiagnosticSeverity::Error => miette::Severity::Error,
            DiagnosticSeverity::Warning => miette::Severity::Warning,
        })
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let location = self.location.as_ref()?;
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_with_span(Some(self.message.clone()), location.span.clone()),
        )))
    }
}

/// Everything [`validate`](crate::validate) found (SDK §3.2).
///
/// Both lists are ordered by source location when the document came from YAML, else in the order
/// validation walks the document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidationResult {
    /// Conformance violations; non-empty means the document is non-conforming.
    pub(crate) errors: Vec<ValidationError>,
    /// Non-fatal diagnostics.
    pub(crate) warnings: Vec<Diagnostic>,
}

impl ValidationResult {
    /// Whether the document is conforming (no errors; warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors.
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }

    /// The warnings.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The errors and the warnings, by value.
    pub fn into_parts(self) -> (Vec<ValidationError>, Vec<Diagnostic>) {
        (self.errors, self.warnings)
    }

    /// Every finding as a [`Diagnostic`], errors first.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.errors
            .iter()
            .map(ValidationError::to_diagnostic)
            .chain(self.warnings.iter().cloned())
            .collect()
    }
}
