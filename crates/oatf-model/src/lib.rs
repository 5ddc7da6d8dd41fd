//! The OATF document model and the document pipeline: parse, validate, normalize, serialize, load
//! (SDK §2, §3, §7).
//!
//! This crate owns the typed document model ([`Document`], [`Attack`], [`Execution`], [`Actor`],
//! [`Phase`], [`Indicator`] and every other type of SDK §2) and the pipeline over it:
//! `parse` (strict YAML 1.2, feature `yaml`), [`validate`] (V-001 … V-050, W-001 … W-007, W-014),
//! [`normalize`] (N-001 … N-008), `serialize` (canonical YAML) and `load` (all three at once).
//!
//! It must not know about evaluation, CEL, traces, clocks or I/O. CEL syntax checks (V-014) reach it
//! through the [`CelSyntaxCheck`] hook that `oatf-cel` implements; without a hook each expression gets a
//! [`CEL_UNCHECKED`] (`W-014`) warning instead of silently passing.
//!
//! ```
//! # #[cfg(feature = "yaml")] {
//! let source = r#"
//! oatf: "0.1"
//! attack:
//!   severity: high
//!   execution:
//!     mode: mcp_server
//!     state:
//!       tools: [{name: calc, description: "adds numbers"}]
//!   indicators:
//!     - target: "tools[*].description"
//!       pattern: {contains: "ignore previous"}
//! "#;
//! let document = oatf_model::parse(source)?;
//! let result = oatf_model::validate(&document);
//! assert!(result.is_valid());
//!
//! let loaded = oatf_model::load(source)?;
//! let view = loaded.normalized();
//! assert_eq!(view.indicators().next().map(|i| i.id().to_owned()), Some("indicator-01".to_owned()));
//! assert!(oatf_model::serialize(&loaded.document).starts_with("oatf: \"0.1\"\n"));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Design notes
//! - **Closed enumerations** are fields of type [`Closed<T>`]: a known value or the unknown string as
//!   written, so `severity: extreme` parses and `validate` reports V-005 at `attack.severity`
//!   (spec-decisions 1).
//! - **Required fields** (`Actor::mode`, `Indicator::target`, …) are plain values. When `parse` meets a
//!   document that lacks one, it records the path ([`Document::missing_fields`]), gives the field its
//!   default and lets `validate` report it (V-031 for actors, V-004 when no rule is more specific).
//! - **Post-normalization guarantees** are read through [`NormalizedDocument`] (checked once) and
//!   [`Loaded::normalized`], without `Option` where presence is guaranteed.
//! - **Every error at once.** `parse` records each unknown key and value of the wrong type, leaves the
//!   field out and reads on; [`ParseErrors::validate_rest`] validates what was read, so one run shows
//!   the parse errors and the `V-` findings together (at most 100 parse errors are kept).
//! - **Diagnostics** carry the dot-path of spec-decisions 1a and, for documents read by `parse`, the
//!   line, column and byte span; all error types implement `miette::Diagnostic` with source labels (feature `miette`).
//!
//! # Input safety
//! - Input larger than 10 MiB is rejected before reading ([`ParseOptions::max_input_bytes`]).
//! - Nesting deeper than 128 mappings/sequences is rejected ([`ParseOptions::max_depth`]); the YAML
//!   tree is built with an explicit stack.
//! - A document of more than 1,000,000 YAML nodes is rejected ([`ParseOptions::max_nodes`]), which
//!   bounds the memory of the tree and its path index.
//! - Bytes ([`parse_bytes`]) that are not UTF-8 are rejected with the offset, line and column of the
//!   first invalid byte; a byte order mark at the start of the stream is accepted (YAML 1.2 §5.2).
//! - Anchors, aliases, merge keys and custom tags are reported (V-020) and aliases are never expanded,
//!   so an alias bomb costs nothing; more than one YAML document is rejected; duplicate keys are errors.
//! - YAML 1.2 core schema, strictly: `yes`/`no`/`on`/`off` stay strings, `012` and `1_000` stay strings,
//!   `.inf`/`.nan` stay strings (JSON values cannot hold them).
//! - Validation walks pass-through state iteratively, at most 256 levels deep; regexes are checked with
//!   RE2 syntax and a nesting limit of 100; durations and paths use the bounded parsers of
//!   `oatf-primitives`.
//! - The YAML emitter writes values nested deeper than 512 levels as `null` (documents read by `parse`
//!   never are).
//! - No input makes any function of this crate panic.
//!
//! Tests: unit tests beside each module; the integration tests in `tests/it/` feed it hostile and malformed
//! documents. The conformance corpus in `conformance/` runs through `oatf-conformance`.
//!
//! # Crate features
//! - `yaml` (default): reading and writing YAML documents (`parse`, `serialize`, `load`); without it the
//!   model is built with serde from other formats (JSON).
//! - `miette` (default): every error type implements `miette::Diagnostic` with source labels; without
//!   it they are plain `std::error::Error`s (D-130).
//! - `jsonpath` (default): V-015 checks `json_path` extractor selectors with `serde_json_path`; without
//!   it each such selector gets a `W-015` warning instead (D-130). An evaluator needs neither.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(feature = "yaml"),
    allow(
        dead_code,
        reason = "source locations and missing-field records come from the YAML reader"
    )
)]

mod de;
mod error;
mod finding;
mod json;
mod normalize;
#[cfg(feature = "yaml")]
mod parse;
mod parse_errors;
mod path_check;
mod rules;
#[cfg(feature = "yaml")]
mod serialize;
mod span;
mod suggest;
mod types;
mod validate;
#[cfg(feature = "yaml")]
mod yaml;

pub use error::{ParseError, ParseErrorKind};
pub use finding::{Finding, FindingKind};
pub use normalize::{
    NormalizedDocument, NormalizedIndicator, NotNormalized, generated_indicator_id,
    generated_phase_name, normalize, normalized,
};
pub use oatf_primitives::{Condition, MatchCondition, MatchPredicate};
#[cfg(feature = "yaml")]
pub use parse::{ParseOptions, parse, parse_bytes, parse_bytes_with, parse_with};
pub use parse_errors::ParseErrors;
pub use rules::{DiagnosticSeverity, Rule};
#[cfg(feature = "yaml")]
pub use serialize::{LoadError, Loaded, load, load_with, serialize};
pub use types::{
    Action, ActionKind, Actor, Attack, Category, Classification, Closed, ClosedEnum, Correlation,
    CorrelationLogic, Direction, Document, ElicitationAction, ElicitationMode, Execution,
    ExpressionMatch, Extensions, Extractor, ExtractorSource, ExtractorType, Framework,
    FrameworkMapping, Impact, Indicator, IndicatorMethod, LogAction, LogLevel, Mode, OATF_VERSION,
    PatternMatch, Phase, Protocol, Reference, Relationship, ResponseEntry, SemanticExamples,
    SemanticIntentClass, SemanticMatch, SendAction, Severity, SeverityLevel, SeverityObject,
    Status, Surface, SynthesizeBlock, Tier, Trigger, UnknownVariant, Variables,
};
pub use validate::{
    BuiltInSyntax, CEL_UNCHECKED, CelSyntaxCheck, CelSyntaxError, CelSyntaxErrorKind, Diagnostic,
    JsonPathSyntax, SourceLocation, SyntaxCheck, ValidateOptions, ValidationError,
    ValidationResult, is_known_surface, known_events, known_modes, known_protocols, validate,
    validate_with,
};
