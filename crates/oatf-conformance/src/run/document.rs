//! `parse/`, `validate/`, `normalize/` and `roundtrip/` cases.

use super::Outcome;
use crate::fixture::Case;

pub(super) fn parse(_case: &Case) -> Result<Outcome, Outcome> {
    Ok(Outcome::not_implemented("parse"))
}

pub(super) fn validate(_case: &Case) -> Result<Outcome, Outcome> {
    Ok(Outcome::not_implemented("validate"))
}

pub(super) fn normalize(_case: &Case) -> Result<Outcome, Outcome> {
    Ok(Outcome::not_implemented("normalize"))
}

pub(super) fn roundtrip(_case: &Case) -> Result<Outcome, Outcome> {
    Ok(Outcome::not_implemented("serialize"))
}
