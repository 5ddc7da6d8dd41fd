//! Runtime primitives for tools that play the attacker (SDK §5.5–§5.11).
//!
//! This crate will own `evaluate_trigger` with `TriggerState`, `compute_effective_state`,
//! `interpolate_template`, `interpolate_value`, `evaluate_extractor` and `select_response`:
//! everything a tool needs to run the phases of an attack.
//!
//! It must not know about transports, clocks or I/O: the caller observes messages and time and passes them in.
#![forbid(unsafe_code)]
