//! The public contract of each primitive, checked in this crate itself (mutation testing found these
//! parts covered only by the conformance corpus, which runs from another crate). One binary; each
//! module checks one behaviour.
#![allow(clippy::unwrap_used, reason = "a failed setup should fail the test")]

mod conditions;
mod deep_values;
mod error_texts;
mod paths;
