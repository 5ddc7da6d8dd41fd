//! The error of compiling a trigger, an extractor or a response list.

use oatf_primitives::{ConditionError, ConditionErrorKind};

/// Why a trigger, an extractor or a dispatch list could not be compiled.
///
/// Compilation fails only on what `validate` rejects in a document (an invalid duration, regex or
/// JSONPath, an unknown enumeration value), so a validated document always compiles.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CompileError {
    kind: CompileErrorKind,
    message: String,
}

/// The kind of a [`CompileError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompileErrorKind {
    /// `trigger.after` is not a duration of SDK §5.2 (V-036).
    InvalidDuration,
    /// A regex (of an extractor or a predicate) is not a valid RE2 pattern (V-013).
    InvalidRegex,
    /// A regex compiles beyond [`RegexLimits`](oatf_primitives::RegexLimits).
    RegexTooLarge,
    /// A JSONPath selector is not valid RFC 9535 (V-015).
    InvalidJsonPath,
    /// A predicate is malformed (for example a condition mixing operators and other keys).
    InvalidPredicate,
    /// A closed enumeration holds an unknown value (`source: sideways`, V-005).
    UnknownVariant,
}

impl CompileError {
    pub(crate) fn new(kind: CompileErrorKind, message: impl Into<String>) -> Self {
        CompileError {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn from_condition(error: &ConditionError, context: &str) -> Self {
        let kind = match error.kind() {
            ConditionErrorKind::InvalidRegex => CompileErrorKind::InvalidRegex,
            ConditionErrorKind::RegexTooLarge => CompileErrorKind::RegexTooLarge,
            _ => CompileErrorKind::InvalidPredicate,
        };
        CompileError::new(kind, format!("{context}: {}", error.message()))
    }

    /// What went wrong.
    pub fn kind(&self) -> CompileErrorKind {
        self.kind
    }

    /// A human-readable description (lowercase, no trailing period).
    pub fn message(&self) -> &str {
        &self.message
    }
}
