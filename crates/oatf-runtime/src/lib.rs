//! Runtime primitives for tools that play the attacker (SDK §5.5–§5.8, §5.10): everything needed to
//! run the phases of an attack.
//!
//! The [`PhaseEngine`] composes them into one actor that moves through its phases as traffic
//! arrives (pure and synchronous: the caller passes each message and the time in).
//!
//! This crate owns phase advancement ([`evaluate_trigger`], [`CompiledTrigger`], [`TriggerState`]),
//! state inheritance ([`compute_effective_state`]), template interpolation ([`interpolate_template`],
//! [`interpolate_value`], [`Template`], [`ValueTemplate`]), value extraction ([`evaluate_extractor`],
//! [`CompiledExtractor`]) and response dispatch ([`select_response`], [`ResponseSelector`]).
//! It builds on `oatf-primitives` (paths, predicates, durations) and the `oatf-model` types.
//!
//! It must not know about transports, clocks, CEL, indicators or I/O, and must not depend on
//! `oatf-eval` or `oatf-cel`: the caller observes messages and time and passes them in.
//! Everything evaluated repeatedly has a compiled form built once; the functions named after the spec
//! are conveniences that compile on every call. Messages are read by reference, never cloned.
//!
//! ```
//! use std::collections::HashMap;
//! use std::time::Duration;
//! use oatf_runtime::{CompiledExtractor, CompiledTrigger, Extractor, ExtractorSource, ProtocolEvent,
//!                    Trigger, TriggerState, interpolate_template};
//! use serde_json::json;
//!
//! // Phase 1 advances on the first `tools/call` of `login`, capturing its password.
//! let trigger: Trigger = serde_json::from_value(json!({"event": "tools/call", "match": {"name": "login"}}))?;
//! let extractor: Extractor = serde_json::from_value(json!({
//!     "name": "password", "source": "request", "type": "json_path", "selector": "$.arguments.password",
//! }))?;
//! let (trigger, extractor) = (CompiledTrigger::new(&trigger)?, CompiledExtractor::new(&extractor)?);
//!
//! let params = json!({"name": "login", "arguments": {"password": "hunter2"}});
//! let mut extracted = HashMap::new();
//! if let Some(value) = extractor.evaluate(&params, ExtractorSource::Request) {
//!     extracted.insert(extractor.name().to_owned(), value);
//! }
//! let mut state = TriggerState::new();
//! let event = ProtocolEvent::new("tools/call", &params);
//! assert!(trigger.evaluate(Some(event), Duration::from_secs(2), &mut state).is_advanced());
//!
//! // Phase 2 echoes it back.
//! let (text, warnings) = interpolate_template("leaked: {{password}}", &extracted, None, None);
//! assert_eq!(text, "leaked: hunter2");
//! assert!(warnings.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Input safety
//! - Templates are scanned once, left to right, in linear time; substituted values are never
//!   re-scanned, so extracted attacker content cannot inject template expressions.
//! - [`interpolate_value`] descends at most [`MAX_INTERPOLATION_DEPTH`] (128) levels; deeper strings
//!   are left as written.
//! - Regexes (extractor selectors and predicate operators) have RE2 semantics (linear-time matching)
//!   and are bounded by [`RegexLimits`](oatf_primitives::RegexLimits): compiled size, lazy DFA size,
//!   syntax nesting, and the length of the text matched (a longer text matches nothing).
//! - JSONPath is RFC 9535 (serde_json_path): no scripting; evaluation is bounded by the message. A
//!   query with a descendant segment (`$..x`) captures nothing from a message nested deeper than
//!   [`MAX_DESCENDANT_QUERY_DEPTH`] (128) levels, because serde_json_path walks descendants
//!   recursively; and a query whose worst-case work on the message is more than
//!   [`MAX_JSONPATH_WORK`] node references (`$..*..*..*` on a deep message) captures nothing,
//!   decided before the query runs.
//! - Compact JSON of non-string values (templates, extractors) stops at 512 levels (`null` below),
//!   and [`interpolate_value`] copies values with an explicit stack, so hand-built values thousands
//!   of levels deep do not exhaust the stack.
//! - No function panics on any input: invalid selectors, durations and enumeration values are
//!   [`CompileError`]s in the compiled forms and "never matches" in the conveniences; counts saturate.
//!
//! Tests: unit tests beside each module; the conformance corpus in `conformance/primitives/`
//! (`interpolate-template`, `interpolate-value`, `evaluate-extractor`, `select-response`,
//! `evaluate-trigger`, `compute-effective-state`) is run by `oatf-conformance`.
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod engine;
mod error;
mod extractor;
mod generation;
mod response;
mod state;
mod template;
mod trigger;

pub use engine::{
    Direction, Dispatch, EngineError, EngineErrorKind, EntryAction, PhaseEngine, PhaseEntry,
    Response,
};
pub use error::{CompileError, CompileErrorKind};
pub use extractor::{
    CompiledExtractor, MAX_DESCENDANT_QUERY_DEPTH, MAX_JSONPATH_WORK, evaluate_extractor,
};
pub use generation::{GenerationError, GenerationErrorKind, GenerationProvider};
/// The model types that appear in this crate's signatures, for users of `oatf-runtime` alone.
pub use oatf_model::{
    Actor, Extractor, ExtractorSource, ExtractorType, Phase, ResponseEntry, Trigger,
};
pub use response::{ResponseSelector, select_response};
pub use state::compute_effective_state;
pub use template::{
    ExtractorLookup, MAX_INTERPOLATION_DEPTH, Template, TemplateDiagnostic, TemplateDiagnosticKind,
    ValueTemplate, interpolate_template, interpolate_value,
};
pub use trigger::{
    AdvanceReason, CompiledTrigger, ProtocolEvent, TriggerResult, TriggerState, evaluate_trigger,
};
