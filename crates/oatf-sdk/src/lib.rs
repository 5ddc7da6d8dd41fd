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
