//! `primitives/` cases of the runtime functions (SDK §5.5–§5.10): templates, extractors, responses,
//! triggers and effective state.

use super::Outcome;
use crate::fixture::Case;

/// Runs a runtime primitive case; `None` when `function` is not one of them.
pub(super) fn run(function: &str, _case: &Case) -> Option<Result<Outcome, Outcome>> {
    match function {
        "interpolate-template"
        | "interpolate-value"
        | "evaluate-extractor"
        | "select-response"
        | "evaluate-trigger"
        | "compute-effective-state" => Some(Ok(Outcome::not_implemented(function))),
        _ => None,
    }
}
