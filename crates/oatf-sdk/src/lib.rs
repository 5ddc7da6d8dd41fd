//! The Rust SDK for the Open Agent Threat Format (OATF v0.1): parse, validate, normalize and serialize
//! documents, evaluate indicators against protocol messages, and compute verdicts.
//!
//! This crate is the facade: it owns no logic. It re-exports the curated API of the workspace crates
//! (`oatf-primitives`, `oatf-model`, `oatf-eval`, `oatf-runtime`, `oatf-cel`) and forwards their features.
//! Depend on a single inner crate instead when that is all you need (for example `oatf-eval` alone to
//! embed just the evaluator).
//!
//! ```
//! use oatf::primitives::{CompiledCondition, Condition};
//! use serde_json::json;
//!
//! let condition = CompiledCondition::new(&Condition::from_value(json!({"contains": "/etc/passwd"}))?)?;
//! assert!(condition.evaluate(&json!("cat /etc/passwd"))?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Input safety
//! Documents and traces come from strangers: no input makes the SDK panic, recurse without bound or
//! allocate without bound, and each limit gives an error that says which limit was exceeded.
//! `docs/input-safety.md` explains each one; `tests/limits.rs` tests each just under and just over.
//!
//! | Limit | Default | Change it with |
//! | --- | --- | --- |
//! | YAML input size (checked before reading) | 10 MiB | `ParseOptions::max_input_bytes` |
//! | YAML nesting depth | 128 | `ParseOptions::max_depth` (at most 1024) |
//! | YAML nodes (scalars, collections, aliases) | 1,000,000 | `ParseOptions::max_nodes` |
//! | YAML anchors, aliases, merge keys, tags | none allowed (V-020), never expanded | fixed by the format |
//! | Invalid UTF-8 (`model::parse_bytes`) | rejected at the first bad byte | fixed |
//! | Path segments (simple and wildcard) | 64 | fixed (`primitives::MAX_PATH_DEPTH`) |
//! | Regex compiled program / lazy DFA | 1 MiB / 2 MiB | `RegexLimits` via `EvalOptions::with_regex_limits` |
//! | Regex syntax nesting | 100 | `RegexLimits::nest_limit` |
//! | Text a regex runs on | 16 MiB (`regex_timeout` beyond) | `RegexLimits::max_input_len` |
//! | CEL expression size | 16 KiB | `CelLimits::max_expression_len` |
//! | CEL bracket nesting / syntax tree depth | 64 / 32 | `CelLimits::max_nesting` / `max_ast_depth` |
//! | CEL comprehension iterations per evaluation | 1,000,000 | `CelLimits::max_iterations` |
//! | CEL bytes of values produced per evaluation | 64 MiB | `CelLimits::max_produced_bytes` |
//! | CEL cost per evaluation (arguments charged by size) | 100,000,000 | `CelLimits::max_cost` |
//! | CEL `matches` patterns compiled per evaluation | 64 | `CelLimits::max_regex_compiles` |
//! | Message depth converted for CEL | 128 | fixed |
//! | Template interpolation depth | 128 | fixed (`runtime::MAX_INTERPOLATION_DEPTH`) |
//! | Compact JSON and deep equality depth | 512 | fixed |
//! | Message depth for a `$..x` JSONPath extractor | 128 | fixed (`runtime::MAX_DESCENDANT_QUERY_DEPTH`) |
//! | Trace line length (`JsonlTraceReader`) | 16 MiB | `JsonlTraceReader::with_max_line_len` |
//! | JSON values of one trace line (counted before parsing) | 1,000,000 | `JsonlTraceReader::with_max_nodes` |
//! | Work of one JSONPath extractor query (checked before it runs) | 10,000,000 nodes | fixed (`runtime::MAX_JSONPATH_WORK`) |
//! | Integers beyond 64 bits in documents | rejected at their line, never made floats | fixed |
//! | Evidence length | 256 characters | `EvalOptions::with_evidence_chars` |
//!
//! Regexes have RE2 semantics: matching is linear in the text, so `(a+)+$` cannot backtrack.
//!
//! # Crate features
//! - `yaml` (default): YAML parsing and serialization of documents (serde-saphyr).
//! - `cel` (default): CEL expression indicators (the `cel` crate); without it expression indicators
//!   evaluate to `skipped` and V-014 reports that CEL syntax was not checked.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Execution primitives (SDK §5.1–§5.4, §5.9): dot-paths, durations, conditions, predicates.
pub mod primitives {
    pub use oatf_primitives::*;
}

pub use oatf_primitives::{
    evaluate_condition, evaluate_predicate, extract_protocol, parse_duration, resolve_simple_path,
    resolve_wildcard_path,
};

/// Runtime primitives for tools that play the attacker (SDK §5.5–§5.8, §5.10): triggers, effective
/// state, templates, extractors and response dispatch, with their compiled forms and errors.
pub mod runtime {
    pub use oatf_runtime::*;
}

pub use oatf_runtime::{
    AdvanceReason, CompiledExtractor, CompiledTrigger, ProtocolEvent, ResponseSelector, Template,
    TemplateDiagnostic, TriggerResult, TriggerState, ValueTemplate, compute_effective_state,
    evaluate_extractor, evaluate_trigger, interpolate_template, interpolate_value, select_response,
};

/// Indicator evaluation and verdicts (SDK §4, §6): compiled indicators and attacks, extension points,
/// verdict and error types, with the model types their signatures use.
pub mod eval {
    pub use oatf_eval::*;
}

pub use oatf_eval::{
    AttackResult, AttackVerdict, CelEvaluator, CompiledAttack, CompiledCel, CompiledIndicator,
    DEFAULT_EVIDENCE_CHARS, DEFAULT_SEMANTIC_THRESHOLD, EvalOptions, EvaluationError,
    EvaluationErrorKind, EvaluationSummary, GenerationError, GenerationErrorKind,
    GenerationProvider, IndicatorResult, IndicatorVerdict, RegexLimits, SemanticEvaluator,
    compute_verdict, compute_verdict_for_ids, evaluate_expression, evaluate_indicator,
    evaluate_pattern,
};
pub use oatf_eval::{
    JsonlTraceReader, TraceDirection, TraceError, TraceErrorKind, TraceEvaluator, TraceMessage,
    evaluate_trace,
};

#[cfg(feature = "cel")]
pub use oatf_cel::{CelEngine, CelLimits, check_cel_syntax};

/// Verdict reports tools reuse (feature `report`): the JSON verdict document, SARIF 2.1.0, JUnit XML
/// and the exit codes of spec-decisions 24.
#[cfg(feature = "report")]
pub mod report {
    pub use oatf_report::{
        TraceStats, exit_code, json_document, json_report, junit, sarif, silent_actor_warning, xml,
    };
}

/// The document model and pipeline (SDK §2, §3, §7): parse, validate, normalize, serialize, load.
pub mod model {
    pub use oatf_model::*;
}

pub use oatf_model::{
    Action, ActionKind, Actor, Attack, CelSyntaxCheck, Classification, Closed, ClosedEnum,
    Correlation, Diagnostic, DiagnosticSeverity, Document, Execution, ExpressionMatch, Extractor,
    Indicator, NormalizedDocument, ParseError, ParseErrorKind, ParseErrors, PatternMatch, Phase,
    SemanticMatch, Severity, Tier, Trigger, ValidateOptions, ValidationError, ValidationResult,
    known_modes, known_protocols, normalize, normalized, validate_with,
};
#[cfg(feature = "yaml")]
pub use oatf_model::{LoadError, Loaded, ParseOptions, load_with, parse, parse_with, serialize};

/// The validation options of this build: with the `cel` feature, CEL expressions are syntax-checked for
/// V-014 by [`CelEngine`]; without it each expression gets a warning that its syntax was not checked.
pub fn default_validate_options() -> ValidateOptions {
    let options = ValidateOptions::new();
    #[cfg(feature = "cel")]
    let options = options.with_cel_check(std::sync::Arc::new(CelEngine::new()));
    options
}

/// The evaluation options of this build: with the `cel` feature, expression indicators are evaluated by
/// [`CelEngine`]; without it they evaluate to `skipped`. No semantic evaluator is installed (SDKs must not
/// ship one, format §6.4): add yours with [`EvalOptions::with_semantic_evaluator`].
pub fn default_eval_options() -> EvalOptions {
    let options = EvalOptions::new();
    #[cfg(feature = "cel")]
    let options = options.with_cel_evaluator(std::sync::Arc::new(CelEngine::new()));
    options
}

/// Validates a parsed document (SDK §3.2) with [`default_validate_options`].
pub fn validate(document: &Document) -> ValidationResult {
    validate_with(document, &default_validate_options())
}

/// Parses, validates and normalizes a document (SDK §3.5) with [`default_validate_options`].
#[cfg(feature = "yaml")]
pub fn load(input: &str) -> Result<Loaded, LoadError> {
    load_with(input, &default_validate_options())
}
