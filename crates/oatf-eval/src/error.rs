//! Evaluation and generation errors (SDK §7.3, §7.3a).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A runtime error while evaluating an indicator (SDK §7.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvaluationError {
    kind: EvaluationErrorKind,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    indicator_id: Option<String>,
}

/// The kind of an [`EvaluationError`] (SDK §2.20 `EvaluationErrorKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EvaluationErrorKind {
    /// A path could not be parsed or resolved.
    PathResolution,
    /// A regular expression exceeded its bounds (spec-decisions 17: compiled size or input length).
    RegexTimeout,
    /// The CEL engine failed: a syntax error, a missing field, an overflow, …
    CelError,
    /// A value had the wrong type, notably a CEL expression with a non-boolean result.
    TypeError,
    /// The semantic evaluator failed or returned an unusable score.
    SemanticError,
    /// The method, or a function it uses, is not supported by this evaluator (spec-decisions 19).
    UnsupportedMethod,
}

impl EvaluationErrorKind {
    /// The canonical string of the kind (`regex_timeout`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            EvaluationErrorKind::PathResolution => "path_resolution",
            EvaluationErrorKind::RegexTimeout => "regex_timeout",
            EvaluationErrorKind::CelError => "cel_error",
            EvaluationErrorKind::TypeError => "type_error",
            EvaluationErrorKind::SemanticError => "semantic_error",
            EvaluationErrorKind::UnsupportedMethod => "unsupported_method",
        }
    }
}

impl fmt::Display for EvaluationErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EvaluationError {
    /// An error of `kind` described by `message` (lowercase, no trailing period).
    pub fn new(kind: EvaluationErrorKind, message: impl Into<String>) -> Self {
        EvaluationError {
            kind,
            message: message.into(),
            indicator_id: None,
        }
    }

    /// The same error attributed to an indicator.
    pub fn with_indicator_id(mut self, indicator_id: impl Into<String>) -> Self {
        self.indicator_id = Some(indicator_id.into());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> EvaluationErrorKind {
        self.kind
    }

    /// A human-readable description.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The indicator being evaluated when the error occurred, when known.
    pub fn indicator_id(&self) -> Option<&str> {
        self.indicator_id.as_deref()
    }
}

impl fmt::Display for EvaluationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for EvaluationError {}
