//! `evaluate/*.yaml` and `verdict/*.yaml` cases.

use super::Outcome;
use crate::fixture::Case;

pub(super) fn evaluate(_case: &Case) -> Result<Outcome, Outcome> {
    Ok(Outcome::not_implemented("evaluate_indicator"))
}

pub(super) fn verdict(_case: &Case) -> Result<Outcome, Outcome> {
    Ok(Outcome::not_implemented("compute_verdict"))
}
