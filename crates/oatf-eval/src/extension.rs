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

    /// The program's literal guard (D-95), when it has one: what lets whole-trace evaluation
    /// rule the program out on a message without evaluating it. The default has none.
    #[doc(hidden)]
    fn literal_guard(&self) -> Option<CelGuard<'_>> {
        None
    }

    /// Evaluates the program's residual (D-95) with `message` bound. The contract: for a program
    /// without variables whose [`literal_guard`](Self::literal_guard) is `Some`, on a message
    /// none of whose strings (object keys and string values, at any depth) contains one of the
    /// guard's needles, `Some(result)` is exactly what [`evaluate`](Self::evaluate) returns as
    /// `Ok(result)`; and programs with equal guard keys return the same here on every message.
    /// `None`: no answer (the program must be evaluated). The default answers nothing.
    #[doc(hidden)]
    fn evaluate_residual(&self, message: &Value) -> Option<bool> {
        let _ = message;
        None
    }
}

/// The literal guard of a [`CompiledCel`] program (D-95): the literals its result depends on
/// finding in strings of the message, and the identity of its residual.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CelGuard<'a> {
    /// Non-empty literals: a message none of whose strings contains one of them is evaluated by
    /// the residual.
    pub needles: &'a [String],
    /// Programs whose residuals are the same have equal keys.
    pub key: &'a str,
}

impl<'a> CelGuard<'a> {
    /// A guard of `needles` and a residual identified by `key`.
    pub fn new(needles: &'a [String], key: &'a str) -> Self {
        CelGuard { needles, key }
    }
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
