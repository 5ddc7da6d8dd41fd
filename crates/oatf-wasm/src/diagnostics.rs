//! Diagnostics as JavaScript sees them: `{ rule, path, line, column, message, kind, severity }`,
//! the JSON of the SDK's `oatf::model::Finding`, which the Python package's `Diagnostic` also
//! is (D-175).

use crate::sdk::model::Finding;
use serde_json::json;

/// `{ ok: false, errors }` as JSON.
pub(crate) fn failure(errors: &[Finding]) -> String {
    json!({ "ok": false, "errors": errors }).to_string()
}
