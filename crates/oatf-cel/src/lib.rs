//! CEL evaluation for OATF expression indicators (SDK §4.3, §6.1), on the `cel` crate.
//!
//! This crate will own a `CelEvaluator` implementation for `oatf-eval` and the CEL syntax hook that
//! `oatf-model` uses for V-014. It is the only crate of the workspace that depends on a CEL engine.
#![forbid(unsafe_code)]
