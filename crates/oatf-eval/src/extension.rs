//! Extension points of evaluation (SDK §6.1, §6.2): CEL and semantic evaluation, as traits. LLM
//! generation (SDK §6.3) serves the attacker side and lives in `oatf-runtime`.

use oatf_model::{SemanticExamples, SemanticIntentClass};
use serde_json::Value;

use crate::error::EvaluationError;

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

    /// [`compile`](Self::compile), and for an expression without `variables` the literal guard
    /// of the program when the engine can give one ([`CelGuard`], D-95). Whole-trace evaluation
    /// calls this for its expression indicators; the default gives no guard.
    fn compile_guarded(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<(Box<dyn CompiledCel>, Option<CelGuard>), EvaluationError> {
        Ok((self.compile(expression, variables)?, None))
    }
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

/// The literal guard of a CEL expression (D-95, D-166): the literals its result depends on finding in
/// strings of the message, and its *residual*, which decides the expression on a message without
/// them. Whole-trace evaluation (`TraceEvaluator`) searches each message's strings once for the
/// needles of all its guarded expression indicators, and evaluates an indicator whose needles are
/// absent by its residual, once per message for all the indicators whose residuals have the same
/// key; it evaluates the program when the residual does not answer `Some(false)`.
///
/// An engine offers guards through [`CelEvaluator::compile_guarded`]; without one every program
/// is evaluated on every message that reaches it. The verdicts are the same either way: a guard is
/// an optimization whose contract is exactness.
///
/// # Contract
/// On a message none of whose strings (object keys and string values, at any depth) contains one
/// of the needles, [`evaluate_residual`](Self::evaluate_residual) answering `Some(result)` means
/// the guarded program's [`evaluate`](CompiledCel::evaluate) returns `Ok(result)`; `None` is no
/// answer. Guards of one engine with equal [`key`](Self::key)s give the same answers on every
/// message. Needles are matched exactly (CEL's `contains` and `in` are case-sensitive).
///
/// ```
/// use oatf_eval::CelGuard;
/// use serde_json::{Value, json};
///
/// // The guard of `message.text.contains("rm -rf") || message.force == true`: without the needle
/// // in any string of the message, the expression is `message.force == true`.
/// let guard = CelGuard::new(vec!["rm -rf".into()], "force == true", |message: &Value| {
///     Some(message.get("force") == Some(&json!(true)))
/// })
/// .expect("needles are not empty");
/// assert_eq!(guard.needles(), ["rm -rf"]);
/// assert_eq!(guard.evaluate_residual(&json!({"text": "ls", "force": false})), Some(false));
/// assert!(CelGuard::new(vec![String::new()], "k", |_: &Value| None).is_none());
/// ```
pub struct CelGuard {
    needles: Vec<String>,
    key: String,
    residual: Box<Residual>,
}

/// The residual of a [`CelGuard`]: `Some(result)` or no answer.
type Residual = dyn Fn(&Value) -> Option<bool> + Send + Sync;

impl CelGuard {
    /// A guard of `needles` whose residual is `residual`, identified by `key` (equal keys, equal
    /// residuals); `None` when there is no needle or a needle is empty (no message lacks it).
    pub fn new(
        needles: Vec<String>,
        key: impl Into<String>,
        residual: impl Fn(&Value) -> Option<bool> + Send + Sync + 'static,
    ) -> Option<CelGuard> {
        if needles.is_empty() || needles.iter().any(String::is_empty) {
            return None;
        }
        Some(CelGuard {
            needles,
            key: key.into(),
            residual: Box::new(residual),
        })
    }

    /// The literals, none empty: a message none of whose strings contains one of them is decided
    /// by the residual.
    pub fn needles(&self) -> &[String] {
        &self.needles
    }

    /// The identity of the residual: guards of one engine with equal keys have the same residual.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Evaluates the residual with `message` bound as `message`: see the contract above.
    pub fn evaluate_residual(&self, message: &Value) -> Option<bool> {
        (self.residual)(message)
    }
}

impl std::fmt::Debug for CelGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CelGuard")
            .field("needles", &self.needles)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// A semantic inference engine (SDK §6.2). The SDK ships none: it is model- and deployment-specific.
pub trait SemanticEvaluator: Send + Sync {
    /// Scores how well `text` matches `intent`, between 0.0 and 1.0.
    ///
    /// A score outside that range, NaN included, is not a score: the indicator's evaluation
    /// reports it as an error of kind `semantic_error` (D-250).
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
