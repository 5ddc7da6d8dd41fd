//! Indicator evaluation and attack verdicts (SDK §4, §6; format §6).
//!
//! This crate will own `evaluate_pattern`, `evaluate_expression`, `evaluate_indicator`, `compute_verdict`,
//! the compiled forms of indicators and attacks (built once, evaluated against any number of messages),
//! the `CelEvaluator`, `SemanticEvaluator` and `GenerationProvider` extension points, and whole-trace evaluation.
//!
//! It must not depend on a YAML parser, a CEL engine or a command-line library: a small tool can embed just
//! the evaluator and feed it indicators as JSON (`cargo tree -p oatf-eval --no-default-features` shows none).
//!
//! # Crate features
//! None yet.
#![forbid(unsafe_code)]
