//! Extension points of evaluation (SDK §6.1, §6.2): CEL and semantic evaluation, as traits. LLM
//! generation (SDK §6.3) serves the attacker side and lives in `oatf-runtime`.

use oatf_model::{SemanticExamples, SemanticIntentClass};
use serde_json::Value;

use crate::EvaluationError;

/// A CEL engine (SDK §6.1), split into compile and evaluate so that an indicator's program is compiled
/// once and run against any number of messages.
///
/// `oatf-cel` provides the default implementation. An implementation must be side-effect free and
/// must not panic on any expression or message; it should bound the work one evaluation can do.
pub trait CelEvaluator: Send + Sync {
    /// Compiles `expression` for a context binding `message` and each name of `variables`.
    ///
    /// A syntax error is a `cel_error`; a call of a function the engine lacks may be reported here or
    /// at evaluation as `unsupported_method` (spec-decisions 19).
    fn compile(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<Box<dyn CompiledCel>, EvaluationError>;
}

/// A CEL program compiled by a [`CelEvaluator`], evaluated against many messages.
pub trait CompiledCel: Send + Sync {
    /// Evaluates the program with `message` bound as `message` and each `(name, value)` of
    /// `variables` bound as `name` (an unresolved variable arrives as `null`, spec-decisions 15).
    ///
    /// Contract (SDK §4.3, §6.1): a boolean result is `Ok`; a non-boolean result is an error of kind
    /// `type_error`; a runtime failure such as a missing field is `cel_error`; an unsupported function
    /// is `unsupported_method`.
    fn evaluate(
        &self,
        message: &Value,
        variables: &[(&str, &Value)],
    ) -> Result<bool, EvaluationError>;
}

/// A semantic inference engine (SDK §6.2). The SDK ships none: it is model- and deployment-specific.
pub trait SemanticEvaluator: Send + Sync {
    /// Scores how well `text` matches `intent`, between 0.0 and 1.0.
    ///
    /// Failures (model unavailable, timeout, malformed response) are returned as an
    /// [`EvaluationError`] of kind `semantic_error`, never as a panic.
    fn evaluate(
        &self,
        text: &str,
        intent: &str,
        intent_class: Option<SemanticIntentClass>,
        threshold: Option<f64>,
        examples: Option<&SemanticExamples>,
    ) -> Result<f64, EvaluationError>;
}
