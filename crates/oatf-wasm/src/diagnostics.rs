//! Diagnostics as JavaScript sees them: `{ rule, path, line, column, message, kind, severity }`, the
//! fields of the Python package's `Diagnostic` (crates/oatf-py/src/document.rs).

use serde_json::json;

/// One finding: a parse error, a validation error (`V-…`) or a warning (`W-…`).
#[derive(Clone, Debug)]
pub(crate) struct Diagnostic {
    /// `error` or `warning`.
    severity: &'static str,
    /// `parse`, `validation` or `warning`.
    kind: &'static str,
    rule: Option<String>,
    path: Option<String>,
    message: String,
    /// 1-based line in the YAML source.
    line: Option<usize>,
    /// 1-based column (in characters) in the YAML source.
    column: Option<usize>,
}

impl Diagnostic {
    pub(crate) fn from_parse(error: &oatf::model::ParseError) -> Self {
        Diagnostic {
            severity: "error",
            kind: "parse",
            rule: error.rule().map(str::to_owned),
            path: error.path().map(str::to_owned),
            message: error.message().to_owned(),
            line: error.line(),
            column: error.column(),
        }
    }

    pub(crate) fn from_validation(error: &oatf::ValidationError) -> Self {
        Diagnostic {
            severity: "error",
            kind: "validation",
            rule: Some(error.rule().to_owned()),
            path: Some(error.path().to_owned()),
            message: error.message().to_owned(),
            line: error.location().map(|l| l.line),
            column: error.location().map(|l| l.column),
        }
    }

    pub(crate) fn from_warning(warning: &oatf::Diagnostic) -> Self {
        Diagnostic {
            severity: warning.severity().as_str(),
            kind: "warning",
            rule: Some(warning.code().to_owned()),
            path: warning.path().map(str::to_owned),
            message: warning.message().to_owned(),
            line: warning.location().map(|l| l.line),
            column: warning.location().map(|l| l.column),
        }
    }

    /// An error the SDK reports without a rule or a place.
    pub(crate) fn other(message: String) -> Self {
        Diagnostic {
            severity: "error",
            kind: "parse",
            rule: None,
            path: None,
            message,
            line: None,
            column: None,
        }
    }
}

impl serde::Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json!({
            "rule": self.rule, "path": self.path, "line": self.line, "column": self.column,
            "message": self.message, "kind": self.kind, "severity": self.severity,
        })
        .serialize(serializer)
    }
}

/// `{ ok: false, errors }` as JSON.
pub(crate) fn failure(errors: &[Diagnostic]) -> String {
    json!({ "ok": false, "errors": errors }).to_string()
}
