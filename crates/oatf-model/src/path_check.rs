//! The dot-path checks of validation (V-021, V-026, V-027): a path is valid when `oatf-primitives`
//! parses it, so that what validation accepts is what evaluation and the runtime resolve.

use oatf_primitives::{PathError, SimplePath, WildcardPath};

/// Checks that `path` is a valid simple dot-path (backs V-026 and V-027).
pub(crate) fn check_simple_path(path: &str) -> Result<(), PathError> {
    SimplePath::parse(path).map(drop)
}

/// Checks that `path` is a valid wildcard dot-path (backs V-021).
pub(crate) fn check_wildcard_path(path: &str) -> Result<(), PathError> {
    WildcardPath::parse(path).map(drop)
}
