//! The error of compiling or evaluating a condition, shared by [`crate::condition`] and the
//! regexes it builds ([`crate::lazy_regex`]), so that neither module imports the other's error.

use std::fmt;

/// Why a condition could not be compiled or evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionError {
    kind: ConditionErrorKind,
    message: String,
}

/// The kind of a [`ConditionError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConditionErrorKind {
    /// The value is not a condition (for example an object mixing operators and other keys).
    Invalid,
    /// The `regex` operand is not a valid RE2 pattern.
    InvalidRegex,
    /// The `regex` operand compiles beyond [`RegexLimits`](crate::RegexLimits).
    RegexTooLarge,
    /// The text a regex would run against is longer than [`RegexLimits::max_input_len`](crate::RegexLimits::max_input_len).
    RegexInputTooLong,
}

impl ConditionError {
    pub(crate) fn new(kind: ConditionErrorKind, message: String) -> Self {
        ConditionError { kind, message }
    }

    /// What went wrong.
    pub fn kind(&self) -> ConditionErrorKind {
        self.kind
    }

    /// A human-readable description.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConditionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConditionError {}
