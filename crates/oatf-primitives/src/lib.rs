//! The execution primitives of OATF (SDK §5.1–§5.4, §5.9): dot-paths, durations, conditions and
//! match predicates, plus the value semantics they share and the lexical syntax of templates
//! ([`scan_template`], format §5.6), which validation and interpolation both use.
//!
//! This crate is the bottom of the workspace. It works on [`serde_json::Value`] alone: it knows nothing
//! of YAML, CEL, documents, clocks or I/O. Everything that is evaluated many times has a compiled form
//! built once ([`SimplePath`], [`WildcardPath`], [`CompiledCondition`], [`CompiledPredicate`]); the
//! functions named after the spec ([`resolve_simple_path`], [`evaluate_condition`], …) are thin
//! conveniences over them. Resolution is by reference: no message is cloned.
//!
//! ```
//! use oatf_primitives::{CompiledPredicate, MatchPredicate, parse_duration};
//! use serde_json::json;
//!
//! let predicate = MatchPredicate::from_value(json!({"arguments.command": {"contains": "rm"}}))?;
//! let compiled = CompiledPredicate::new(&predicate)?;
//! assert!(compiled.evaluate(&json!({"arguments": {"command": "rm -rf /"}}))?);
//! assert_eq!(parse_duration("PT1M")?.as_secs(), 60);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Input safety
//! - Paths have at most [`MAX_PATH_DEPTH`] (64) segments; wildcard traversal uses an explicit stack.
//! - Regexes have RE2 semantics (linear-time matching) and are bounded by [`RegexLimits`]: compiled size
//!   1 MiB, lazy DFA 2 MiB, syntax nesting 100, matched text 16 MiB.
//! - Deep equality and compact JSON ([`to_compact_sorted_json`], [`to_compact_json`]) descend at most
//!   512 levels into a value.
//!
//! Tests: unit tests beside each module; the conformance corpus in `conformance/primitives/` is run by
//! `oatf-conformance`.
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod condition;
mod condition_error;
mod duration;
mod lazy_regex;
mod literals;
mod path;
mod predicate;
mod protocol;
mod re2;
mod runs;
pub mod safe_text;
mod template;
mod value;

#[doc(hidden)]
pub use condition::PrefilterNeeds;
pub use condition::{CompiledCondition, Condition, MatchCondition, evaluate_condition};
pub use condition_error::{ConditionError, ConditionErrorKind};
pub use duration::{DurationError, parse_duration};
#[doc(hidden)]
pub use lazy_regex::RegexBranch;
pub use lazy_regex::RegexLimits;
pub use literals::text_defeats_literals;
pub use path::{
    MAX_PATH_DEPTH, MissingField, PathError, PathErrorKind, SimplePath, WildcardPath,
    resolve_simple_path, resolve_wildcard_path,
};
pub use predicate::{CompiledPredicate, MatchPredicate, evaluate_predicate};
pub use protocol::extract_protocol;
pub use re2::RegexSyntaxError;
pub use value::deep_equal;

// Shared by the workspace crates (validation in `oatf-model`, interpolation in `oatf-runtime`,
// evaluation in `oatf-eval`) so that each rule has one owner; not part of the public API and not
// re-exported by the `oatf` facade.
#[doc(hidden)]
pub use condition::OPERATORS;
#[doc(hidden)]
pub use path::{check_simple_path, check_wildcard_path, field_of};
#[doc(hidden)]
pub use re2::{check_regex, check_regex_tree};
#[doc(hidden)]
pub use template::{TemplateToken, scan_template};
#[doc(hidden)]
pub use value::{to_compact_json, to_compact_sorted_json, write_compact, write_compact_sorted};
