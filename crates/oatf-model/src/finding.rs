//! [`Finding`]: a parse error, a validation error or a warning in one flat shape, the diagnostic
//! of the Python and npm packages (D-175).

use std::fmt;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::error::ParseError;
use crate::rules::DiagnosticSeverity;
use crate::validate::{Diagnostic, ValidationError};

/// Which of the three kinds of finding a [`Finding`] was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// The YAML could not be read as a document ([`ParseError`]).
    Parse,
    /// A `V-` rule is broken ([`ValidationError`]).
    Validation,
    /// A `W-` warning ([`Diagnostic`]).
    Warning,
}

impl FindingKind {
    /// `parse`, `validation` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::Parse => "parse",
            FindingKind::Validation => "validation",
            FindingKind::Warning => "warning",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding of a document, whatever found it: a [`ParseError`], a [`ValidationError`] or a
/// warning ([`Diagnostic`]), with the fields they share. It is what a binding reports for each: the
/// Python package's `oatf.Diagnostic` and the npm package's diagnostic objects are this type, and
/// it serializes as their JSON, `{rule, path, line, column, message, kind, severity}` (`kind` and
/// `severity` as their [`as_str`](FindingKind::as_str) names; absent values as `null`).
///
/// ```
/// # #[cfg(feature = "yaml")] {
/// use oatf_model::{DiagnosticSeverity, Finding, FindingKind};
///
/// let source = "oatf: \"0.1\"\nattack:\n  severity: extreme\n  execution:\n    mode: mcp_server\n    state: {tools: []}\n  indicators:\n    - target: tools\n      pattern: {contains: x}\n";
/// let document = oatf_model::parse(source)?;
/// let result = oatf_model::validate(&document);
/// let findings: Vec<Finding> = result.errors().iter().map(Finding::from).collect();
/// let first = &findings[0];
/// assert_eq!(first.kind(), FindingKind::Validation);
/// assert_eq!(first.severity(), DiagnosticSeverity::Error);
/// assert_eq!(first.rule(), Some("V-005"));
/// assert_eq!(first.path(), Some("attack.severity"));
/// assert_eq!(first.line(), Some(3));
/// let json = serde_json::to_value(first)?;
/// assert_eq!(json["kind"], "validation");
/// assert_eq!(json["column"], 13);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    severity: DiagnosticSeverity,
    kind: FindingKind,
    rule: Option<String>,
    path: Option<String>,
    message: String,
    line: Option<usize>,
    column: Option<usize>,
}

impl Finding {
    /// An error with neither rule nor place, of kind [`FindingKind::Parse`]: what a binding reports
    /// when the input never reached the parser's rules (for example bytes it could not decode).
    pub fn error(message: impl Into<String>) -> Self {
        Finding {
            severity: DiagnosticSeverity::Error,
            kind: FindingKind::Parse,
            rule: None,
            path: None,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// `error` or `warning` (a parse or validation error is an error; a warning has its rule's).
    pub fn severity(&self) -> DiagnosticSeverity {
        self.severity
    }

    /// What found it.
    pub fn kind(&self) -> FindingKind {
        self.kind
    }

    /// The rule (`V-020`, `W-001`, …), when the finding has one.
    pub fn rule(&self) -> Option<&str> {
        self.rule.as_deref()
    }

    /// The dot-path of the offending field, when there is one.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The 1-based line in the YAML source, when known.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The 1-based column (in characters) in the YAML source, when known.
    pub fn column(&self) -> Option<usize> {
        self.column
    }
}

impl From<&ParseError> for Finding {
    fn from(error: &ParseError) -> Self {
        Finding {
            severity: DiagnosticSeverity::Error,
            kind: FindingKind::Parse,
            rule: error.rule().map(str::to_owned),
            path: error.path().map(str::to_owned),
            message: error.message().to_owned(),
            line: error.line(),
            column: error.column(),
        }
    }
}

impl From<&ValidationError> for Finding {
    fn from(error: &ValidationError) -> Self {
        Finding {
            severity: DiagnosticSeverity::Error,
            kind: FindingKind::Validation,
            rule: Some(error.rule().to_owned()),
            path: Some(error.path().to_owned()),
            message: error.message().to_owned(),
            line: error.location().map(|l| l.line),
            column: error.location().map(|l| l.column),
        }
    }
}

impl From<&Diagnostic> for Finding {
    fn from(warning: &Diagnostic) -> Self {
        Finding {
            severity: warning.severity(),
            kind: FindingKind::Warning,
            rule: Some(warning.code().to_owned()),
            path: warning.path().map(str::to_owned),
            message: warning.message().to_owned(),
            line: warning.location().map(|l| l.line),
            column: warning.location().map(|l| l.column),
        }
    }
}

impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Finding", 7)?;
        out.serialize_field("rule", &self.rule)?;
        out.serialize_field("path", &self.path)?;
        out.serialize_field("line", &self.line)?;
        out.serialize_field("column", &self.column)?;
        out.serialize_field("message", &self.message)?;
        out.serialize_field("kind", self.kind.as_str())?;
        out.serialize_field("severity", self.severity.as_str())?;
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the serialized fields of `finding` but its message (`rule path line:column kind
    /// severity`), and that its message starts with `message`.
    #[track_caller]
    fn check(finding: &Finding, expect: &str, message: &str) {
        let json = serde_json::to_value(finding).unwrap_or_default();
        let shown =
            ["rule", "path", "line", "column", "kind", "severity"].map(|key| json[key].to_string());
        let [rule, path, line, column, kind, severity] = shown;
        assert_eq!(
            format!("{rule} {path} {line}:{column} {kind} {severity}"),
            expect
        );
        assert_eq!(json["message"], finding.message());
        assert!(
            finding.message().starts_with(message),
            "{}",
            finding.message()
        );
    }

    #[test]
    fn an_error_without_a_place_serializes_every_field_in_order() {
        let json = serde_json::to_string(&Finding::error("bad bytes")).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"rule":null,"path":null,"line":null,"column":null,"message":"bad bytes","kind":"parse","severity":"error"}"#,
        );
    }

    #[cfg(feature = "yaml")]
    const DOCUMENT: &str = "oatf: \"0.1\"\nattack:\n  severity: high\n  execution:\n    mode: mcp_server\n    state: {tools: []}\n  indicators:\n    - target: tools\n      expression: {cel: \"true\"}\n";

    #[cfg(feature = "yaml")]
    #[test]
    fn parse_errors_keep_their_rule_and_place() {
        let source = DOCUMENT
            .replace("  severity: high\n", "  severity: high\n  bogus: 1\n")
            .replace("mode: mcp_server", "mode: &m mcp_server");
        let errors = crate::parse(&source).err();
        let findings: Vec<Finding> = errors
            .iter()
            .flat_map(|e| e.iter())
            .map(Finding::from)
            .collect();
        assert_eq!(findings.len(), 2);
        check(
            &findings[0],
            r#"null "attack.bogus" 4:3 "parse" "error""#,
            "unknown field `bogus`",
        );
        check(
            &findings[1],
            r#""V-020" "attack.execution.mode" 6:14 "parse" "error""#,
            "yaml anchors are not allowed",
        );
    }

    #[cfg(feature = "yaml")]
    #[test]
    fn a_validation_error_and_a_warning_keep_their_rule_and_place() {
        let source = DOCUMENT.replace("severity: high", "severity: extreme");
        let document = crate::parse(&source);
        let result = document.as_ref().map(crate::validate);
        let Ok(result) = result else {
            panic!("the document parses");
        };
        let errors: Vec<Finding> = result.errors().iter().map(Finding::from).collect();
        let warnings: Vec<Finding> = result.warnings().iter().map(Finding::from).collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(warnings.len(), 1);
        check(
            &errors[0],
            r#""V-005" "attack.severity" 3:13 "validation" "error""#,
            "unknown severity level `extreme`",
        );
        check(
            &warnings[0],
            r#""W-014" "attack.indicators[0].expression.cel" 9:25 "warning" "warning""#,
            "cel syntax not checked",
        );
    }
}
