//! Indicator evaluation and attack verdicts (SDK §4, §6; format §6, §9).
//!
//! This crate owns [`evaluate_pattern`], [`evaluate_expression`], [`evaluate_indicator`] and
//! [`compute_verdict`], the compiled forms they are built on ([`CompiledIndicator`],
//! [`CompiledAttack`]: paths parsed, regexes built and CEL programs compiled once, then evaluated
//! against any number of messages by reference), the verdict and error types (SDK §2.19, §7.3), and
//! the extension points [`CelEvaluator`] and [`SemanticEvaluator`], and
//! whole-trace evaluation (format §6): [`TraceMessage`], the streaming [`TraceEvaluator`],
//! [`evaluate_trace`] and the JSON Lines [`JsonlTraceReader`].
//!
//! It must not depend on a YAML parser, a CEL engine or a command-line library: a small tool can embed
//! just the evaluator and feed it indicators as JSON (`cargo tree -p oatf-eval`
//! shows none). The default CEL engine lives in `oatf-cel`.
//!
//! ```
//! use oatf_eval::{CompiledIndicator, EvalOptions, Indicator, IndicatorResult};
//! use serde_json::json;
//!
//! let indicator: Indicator = serde_json::from_value(json!({
//!     "id": "OATF-001-01",
//!     "target": "arguments.command",
//!     "pattern": {"regex": "(id_rsa|passwd)"}
//! }))?;
//! let compiled = CompiledIndicator::new(&indicator, &EvalOptions::new())?;
//! let verdict = compiled.evaluate(&json!({"arguments": {"command": "cat /etc/passwd"}}));
//! assert_eq!(verdict.result, IndicatorResult::Matched);
//! assert_eq!(verdict.evidence.as_deref(), Some("cat /etc/passwd"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Input safety
//! - Messages are only borrowed: resolution and evaluation never clone them.
//! - Paths have at most 64 segments and wildcard fan-out is traversed with an explicit stack
//!   (`oatf-primitives`).
//! - Regexes have RE2 semantics and are bounded by [`RegexLimits`] (compiled size, input length); a
//!   text over the input bound is an error of kind `regex_timeout` (spec-decisions 17).
//! - Evidence is truncated to [`DEFAULT_EVIDENCE_CHARS`] characters by default.
//! - Trace evaluation keeps a fixed state per indicator ([`TraceEvaluator::retained_bytes`]): memory
//!   does not grow with the trace. [`JsonlTraceReader`] holds one line at a time, at most
//!   [`DEFAULT_MAX_LINE_LEN`] bytes (16 MiB); a longer line is skipped without being buffered.
//! - Bounding CEL work is the [`CelEvaluator`]'s job (`oatf-cel` bounds expression size and nesting).
//!
//! Tests: unit tests beside each module; the `evaluate/` and `verdict/` conformance corpus is run by
//! `oatf-conformance`.
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod accumulator;
mod actor;
mod attack;
mod candidates;
mod compat;
mod error;
mod extension;
mod indicator;
mod literal_guard;
mod plan_cache;
mod prefilter;
#[cfg(test)]
mod prefilter_tests;
mod texts;
mod trace;
mod verdict;
mod warning;

#[cfg(test)]
mod entry_point_tests;
#[cfg(test)]
mod tests;

pub use attack::{AttackError, CompiledAttack};
pub use compat::{Compat, UnknownCompat};
pub use error::{EvaluationError, EvaluationErrorKind};
pub use extension::{CelEvaluator, CelGuard, CompiledCel, SemanticEvaluator};
pub use indicator::{
    CompiledIndicator, DEFAULT_EVIDENCE_CHARS, DEFAULT_SEMANTIC_THRESHOLD, EvalOptions,
    evaluate_expression, evaluate_indicator, evaluate_pattern,
};
/// The model types that appear in this crate's signatures, for users of `oatf-eval` alone.
pub use oatf_model::{
    Attack, CorrelationLogic, Direction, Document, ExpressionMatch, Indicator, ParseError,
    ParseErrors, PatternMatch, SemanticExamples, SemanticIntentClass, SemanticMatch, Tier,
    ValidationError,
};
pub use oatf_primitives::RegexLimits;
/// Attacker text made safe to print (evidence, ids, messages): the escaping rules of D-132.
pub use oatf_primitives::safe_text;
pub use trace::{
    DEFAULT_MAX_LINE_LEN, DEFAULT_MAX_LINE_NODES, JsonlTraceReader, MAX_DERIVED_BYTES,
    MAX_ENTRY_DEPTH, NewMatch, NewMatches, NewMatchesIter, TraceDirection, TraceError,
    TraceErrorKind, TraceEvaluator, TraceMessage, describe_json_error, evaluate_trace,
};
pub use verdict::{
    AttackResult, AttackVerdict, EvaluationSummary, IndicatorResult, IndicatorVerdict,
    compute_verdict, max_tier,
};
pub use warning::{TraceWarning, TraceWarningKind, looks_like_trace_line};
