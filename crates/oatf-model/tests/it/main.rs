//! The integration tests of `oatf-model`, one binary: each module checks one behaviour of parsing,
//! validation, normalization and serialization on hostile and malformed documents.

#[cfg(feature = "yaml")]
mod input_limits;
#[cfg(feature = "yaml")]
mod numbers;
#[cfg(feature = "yaml")]
mod syntax_errors;
