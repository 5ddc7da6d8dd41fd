//! The default CEL engine for OATF expression indicators (SDK §4.3, §6.1), on the `cel` crate.
//!
//! This crate owns [`CelEngine`], the implementation of [`oatf_eval::CelEvaluator`]: the CEL
//! environment is built once per engine, each expression is compiled once into a program, and each
//! evaluation binds `message` and the indicator's variables in a child scope of the program's
//! context. It also owns the CEL
//! syntax check used by V-014 ([`check_cel_syntax`]). It must not know about documents, YAML or
//! traces; `oatf-eval` does not depend on it (the evaluator sees only the trait).
//!
//! ```
//! use std::sync::Arc;
//! use oatf_cel::CelEngine;
//! use oatf_eval::{CompiledIndicator, EvalOptions, IndicatorResult};
//! use oatf_model::Indicator;
//! use serde_json::json;
//!
//! let options = EvalOptions::new().with_cel_evaluator(Arc::new(CelEngine::new()));
//! let indicator: Indicator = serde_json::from_value(json!({
//!     "target": "",
//!     "expression": {"cel": "message.count + 1 > limit", "variables": {"limit": "policy.limit"}}
//! }))?;
//! let compiled = CompiledIndicator::new(&indicator, &options)?;
//! let verdict = compiled.evaluate(&json!({"count": 10, "policy": {"limit": 5}}));
//! assert_eq!(verdict.result, IndicatorResult::Matched);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Supported functions (SDK §6.1 partial compliance)
//! The CEL standard library of the `cel` crate (0.15) with its `strings` extension: `size`,
//! `contains`, `startsWith`, `endsWith`, `matches`, the macros `has`, `exists`, `exists_one`, `all`,
//! `filter`, `map`, the conversions `int`, `uint`, `double`, `string`, `bytes`, `type`, and the string
//! extension functions (`lowerAscii`, `upperAscii`, `split`, `join`, `replace`, `trim`, …). The
//! `timestamp` and `duration` types are not supported (the crate's `chrono` feature is off). Calling a
//! function the engine does not define is an error of kind `unsupported_method` (spec-decisions 19).
//!
//! `matches` uses RE2 semantics (the `regex` crate), finds a match anywhere in the string (add `^…$`
//! for a full match), and is backed by a per-engine cache of compiled, size-limited regexes.
//!
//! Numbers: JSON integers become CEL `int` (or `uint` beyond `i64`), other numbers `double`, so
//! `message.count + 1` works. In this CEL dialect `1 == 1.0` is `true` (numeric equality across
//! types), unlike cel-go's strict type checking.
//!
//! # Two paths, one answer
//! Most indicator expressions use a small part of CEL: field selection, `has()`, comparisons,
//! `in`, `size`, `contains`, `startsWith`, `endsWith`, `matches`, `exists`, `all` and the boolean
//! operators. A program made only of these is also compiled for a direct path that evaluates it
//! straight on the `serde_json` values, about as fast as the same check written in Rust (a few
//! times its cost, against some 66 times through the `cel` crate's interpreter: docs/performance.md).
//! The direct path answers only when its answer is the interpreter's: a result, or the error of a
//! budget or of `matches`, which it reaches at the same point and absorbs or keeps by the same rules
//! (D-125); on anything else (another error, types it does not decide such as `1 == 1.0`, a message
//! nested too deep) it abstains and the interpreter runs, so results, error kinds and messages are
//! the interpreter's, and every limit below applies on both paths (decision D-81).
//!
//! # Input safety
//! - Expressions longer than [`CelLimits::max_expression_len`] (16 KiB) or whose brackets nest deeper
//!   than [`CelLimits::max_nesting`] (64) are rejected before parsing.
//! - Parsing runs on one dedicated thread with a large stack, started on first use and kept (the V-014
//!   check of a document hands all of its expressions over at once); a parsed
//!   expression whose syntax tree is deeper than [`CelLimits::max_ast_depth`] (32) is rejected, so
//!   evaluation recursion fits in a 2 MiB thread stack even in unoptimized builds.
//! - Messages nested deeper than 128 levels are an evaluation error, not a deep recursion.
//! - Any panic of the `cel` crate is caught and reported as `cel_error`.
//! - Comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) share an iteration budget per
//!   evaluation, [`CelLimits::max_iterations`] (default 1,000,000): each comprehension is charged the
//!   size of the list or map it iterates when it starts, and an evaluation that would go over the
//!   budget stops with a `cel_error` before running that comprehension. Nested comprehensions over
//!   large lists (`xs.all(x, xs.all(y, …))`, O(n²)) are therefore bounded, whatever the message.
//! - The values one evaluation produces are bounded by [`CelLimits::max_produced_bytes`] (64 MiB):
//!   every call's result is charged its size, and `replace`, `join` and `split` their worst case
//!   before they run, so `s + s` in a balanced tree or in a loop body cannot grow to gigabytes.
//! - The work of calls and loops is bounded by [`CelLimits::max_cost`] (100,000,000): every argument
//!   is charged its size, nested parts included, as in cel-go's cost model, so `size(s)`,
//!   `s.contains(t)` and `x in xs` on large operands cost what they scan, not one step; and every
//!   comprehension, when it starts, the elements it binds and its length times the size of its loop
//!   body (D-127), so a 16 KiB body in nested loops is bounded too. A value copied into a list,
//!   a map, an optional or a `map`/`filter` result is charged as a copy before it is made (D-330,
//!   D-351), a list or map compared by `==`, `!=` or `in` three units a value (D-353), and a
//!   refused charge spends the rest of the budget, so a loop that goes on after one does no more
//!   measuring (D-350).
//!   [`CelLimits::max_regex_compiles`] (64) bounds the distinct `matches` patterns one evaluation
//!   uses (counted whether or not they were compiled before, so the outcome does not depend on
//!   earlier evaluations); a pattern that cannot be compiled is remembered, with its error, and
//!   compiled once per engine (D-126).
//! - Each budget bounds time: docs/input-safety.md ("Time bounds of the CEL budgets") states the
//!   worst case per unit, about 4.3 s of CPU for one evaluation at the defaults (release build).
//! - Every budget error is a `cel_error` naming the limit, its value and the `CelLimits` field.
//!
//! Tests: unit tests in `src/tests.rs` and `src/reads.rs`; the `evaluate/` conformance corpus is run by `oatf-conformance`.
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod budget;
mod convert;
mod direct;
mod engine;
mod limits;
mod metering;
mod parse;
mod program;
mod reads;
mod regex_cache;

pub use engine::{CelEngine, check_cel_syntax};
pub use limits::CelLimits;

#[cfg(test)]
mod tests;
