//! Reports of an attack verdict that tools reuse: the JSON verdict document, SARIF 2.1.0, JUnit XML,
//! the exit-code mapping of spec-decisions 24 (ThoughtJack's codes) and the rows of a campaign
//! ([`campaign`]: the CSV of `oatf evaluate --manifest`, and the Python package's campaign rows).
//!
//! `oatf evaluate` only calls these; a tool that evaluates traces itself (a ThoughtJack-like runner)
//! emits the same documents by running the trace through a [`TraceRun`] (which drives the
//! [`TraceEvaluator`](oatf_eval::TraceEvaluator) and fills the [`TraceStats`]: lines, malformed
//! lines, the line of each match), or by filling a [`TraceStats`] itself:
//!
//! ```
//! use oatf_eval::{CompiledAttack, EvalOptions, TraceEvaluator, TraceMessage, TraceDirection};
//! use oatf_model::Document;
//! use oatf_report::{TraceStats, exit_code, json_document};
//! use serde_json::json;
//!
//! let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
//!     "id": "OATF-900", "execution": {"mode": "mcp_server", "state": {"tools": []}},
//!     "indicators": [{"surface": "tools/call", "target": "arguments.path",
//!                     "pattern": {"contains": ".ssh/id_rsa"}}]}}))?;
//! let attack = CompiledAttack::new(&document, &EvalOptions::new());
//! let mut evaluator = TraceEvaluator::new(&attack);
//! let mut stats = TraceStats::new("run.jsonl");
//! evaluator.push(&TraceMessage::new(TraceDirection::Incoming, "tools/call",
//!     json!({"arguments": {"path": "/home/u/.ssh/id_rsa"}})));
//! stats.lines = 1;
//! stats.messages = evaluator.messages();
//! let verdict = evaluator.finish();
//! assert_eq!(exit_code(&verdict), 1);
//! assert_eq!(json_document(&verdict, &stats)["trace"]["messages"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod artifact;
pub mod campaign;
mod exit;
mod fields;
mod file;
pub mod html;
mod json;
mod junit;
pub mod matrix;
mod nested;
mod run;
mod sarif;
mod sarif_descriptor;
mod sarif_rule;
mod stats;
#[cfg(test)]
mod tests;
mod validation;
pub mod xml;

pub use exit::{EXIT_STRICT_WARNINGS, exit_code, run_exit_code, strict_exit_code};
pub use file::open_regular_file;
pub use json::{JsonDocument, json_document, json_report};
pub use junit::{junit, junit_suite};
pub use run::{FinishedRun, MAX_KEPT_MALFORMED, MalformedEntry, ReadStep, TraceRun};
pub use sarif::{CampaignRun, campaign_sarif, sarif};
pub use stats::{TraceStats, silent_actor_warning, warnings};
pub use validation::{ValidatedFile, validation_sarif};
