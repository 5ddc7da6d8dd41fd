//! The OATF document model and the document pipeline (SDK §2, §3, §7).
//!
//! This crate will own the typed document model (`Document`, `Attack`, `Execution`, `Actor`, `Phase`,
//! `Indicator` and every type of SDK §2), and the pipeline over it: `parse` (strict YAML 1.2 via
//! serde-saphyr, behind the `yaml` feature), `validate` (V-001 … V-049, W-001 … W-007), `normalize`
//! (N-001 … N-008), `serialize` and `load`.
//!
//! It must not know about evaluation, CEL, traces, clocks or I/O: CEL syntax checks reach it through a hook
//! that `oatf-cel` implements, so the model never depends on a CEL engine.
//!
//! # Crate features
//! - `yaml` (default): reading and writing YAML documents.
#![forbid(unsafe_code)]
