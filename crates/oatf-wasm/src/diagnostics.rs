//! Diagnostics as JavaScript sees them: `{ rule, path, line, column, message, kind, severity }`,
//! the JSON of the SDK's `oatf::model::Finding`, which the Python package's `Diagnostic` also
//! is (D-175).

use crate::sdk::model::Finding;
use serde_json::json;

/// `{ ok: false, errors }` as JSON.
pub(crate) fn failure(errors: &[Finding]) -> String {
    json_text(&json!({ "ok": false, "errors": errors }))
}

/// A JSON value as text: what its `Display` writes, through the serializer into a `Vec<u8>` that
/// the module already links, not through `Display`, which would link a second copy of the
/// serializer (and a pretty-printing third) into the validation module (D-311).
pub(crate) fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
