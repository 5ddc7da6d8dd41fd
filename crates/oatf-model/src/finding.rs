//! [`Finding`]: a parse error, a validation error or a warning in one flat shape, the diagnostic
//! of the Python and npm packages (D-175).

use std::fmt;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::error::{ParseError, ParseErrorKind};
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
/// `severity` as their [`as_str`](FindingKind::as_str) names; absent values as `null`). The SARIF
/// log of `oatf validate` reports the same findings, each under its [`rule_id`](Finding::rule_id).
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
    rule: RuleId,
    path: Option<String>,
    message: String,
    line: Option<usize>,
    column: Option<usize>,
}

/// What a finding is reported under: its rule, or the kind of a parse error without one (D-177).
#[derive(Clone, Debug, PartialEq, Eq)]
enum RuleId {
    Rule(String),
    Parse(ParseErrorKind),
}

impl RuleId {
    fn of(rule: Option<&str>, kind: ParseErrorKind) -> Self {
        rule.map_or(RuleId::Parse(kind), |rule| RuleId::Rule(rule.to_owned()))
    }
}

/// `parse/<kind>`: the id a report gives a parse error without a rule (SDK §7.1, D-86).
fn parse_rule_id(kind: ParseErrorKind) -> &'static str {
    match kind {
        ParseErrorKind::Syntax => "parse/syntax",
        ParseErrorKind::TypeMismatch => "parse/type_mismatch",
        ParseErrorKind::UnknownVariant => "parse/unknown_variant",
    }
}

impl Finding {
    /// An error with neither rule nor place, of kind [`FindingKind::Parse`] (a syntax error, reported
    /// under `parse/syntax`): what a tool reports when the input never reached the parser's rules
    /// (bytes it could not decode, a file that is not a document at all).
    ///
    /// ```
    /// use oatf_model::{Finding, FindingKind};
    ///
    /// let finding = Finding::error("the input is not valid UTF-8");
    /// assert_eq!((finding.kind(), finding.rule()), (FindingKind::Parse, None));
    /// assert_eq!(finding.rule_id(), "parse/syntax");
    /// ```
    pub fn error(message: impl Into<String>) -> Self {
        Finding {
            severity: DiagnosticSeverity::Error,
            kind: FindingKind::Parse,
            rule: RuleId::Parse(ParseErrorKind::Syntax),
            path: None,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// A finding of a tool's own under `rule` (a rule id of [`Rule`](crate::Rule), or a code of the
    /// tool, SDK §7.0), without path or place (add them with [`with_path`](Finding::with_path) and
    /// [`with_location`](Finding::with_location)). Its kind follows its severity: a
    /// [`Warning`](FindingKind::Warning) for a warning, else a [`Validation`](FindingKind::Validation)
    /// error.
    ///
    /// ```
    /// use oatf_model::{DiagnosticSeverity, Finding, FindingKind};
    ///
    /// let finding = Finding::new("X-900", DiagnosticSeverity::Warning, "a tool's own warning")
    ///     .with_path("attack.name")
    ///     .with_location(4, 9);
    /// assert_eq!(finding.kind(), FindingKind::Warning);
    /// assert_eq!((finding.rule_id(), finding.path()), ("X-900", Some("attack.name")));
    /// assert_eq!((finding.line(), finding.column()), (Some(4), Some(9)));
    /// ```
    pub fn new(
        rule: impl Into<String>,
        severity: DiagnosticSeverity,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            severity,
            kind: match severity {
                DiagnosticSeverity::Warning => FindingKind::Warning,
                DiagnosticSeverity::Error => FindingKind::Validation,
            },
            rule: RuleId::Rule(rule.into()),
            path: None,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// The finding about the field at the dot-path `path`.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The finding at 1-based `line` and `column` (in characters) of the YAML source.
    pub fn with_location(mut self, line: usize, column: usize) -> Self {
        (self.line, self.column) = (Some(line), Some(column));
        self
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
        match &self.rule {
            RuleId::Rule(rule) => Some(rule),
            RuleId::Parse(_) => None,
        }
    }

    /// What a report files the finding under: its [`rule`](Finding::rule), or for a parse error
    /// without one `parse/<kind>` of its [`ParseErrorKind`] (`parse/syntax`,
    /// `parse/type_mismatch`, `parse/unknown_variant`; SDK §7.1, D-86). The `ruleId` of its result
    /// in the SARIF log of `oatf validate`.
    ///
    /// ```
    /// # #[cfg(feature = "yaml")] {
    /// use oatf_model::Finding;
    ///
    /// let errors = oatf_model::parse("oatf: \"0.1\"\nattack:\n  name: [1]\n").expect_err("a list");
    /// let finding = errors.iter().map(Finding::from).next().expect("one error");
    /// assert_eq!((finding.rule(), finding.rule_id()), (None, "parse/type_mismatch"));
    /// # }
    /// ```
    pub fn rule_id(&self) -> &str {
        match &self.rule {
            RuleId::Rule(rule) => rule,
            RuleId::Parse(kind) => parse_rule_id(*kind),
        }
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
            rule: RuleId::of(error.rule(), error.kind()),
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
            rule: RuleId::Rule(error.rule().to_owned()),
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
            rule: RuleId::Rule(warning.code().to_owned()),
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
        out.serialize_field("rule", &self.rule())?;
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

    #[test]
    fn a_parse_error_without_a_rule_is_filed_under_its_kind() {
        for kind in [
            ParseErrorKind::Syntax,
            ParseErrorKind::TypeMismatch,
            ParseErrorKind::UnknownVariant,
        ] {
            let finding = Finding::from(&ParseError::new(kind, "bad"));
            assert_eq!(finding.rule(), None);
            assert_eq!(finding.rule_id(), format!("parse/{kind}"));
            assert_eq!(finding.kind(), FindingKind::Parse);
        }
        let mut error = ParseError::new(ParseErrorKind::Syntax, "anchor");
        error.rule = Some(crate::rules::Rule::V020);
        assert_eq!(Finding::from(&error).rule_id(), "V-020");
        assert_eq!(Finding::error("bad bytes").rule_id(), "parse/syntax");
    }

    #[test]
    fn a_tools_own_finding_takes_its_kind_from_its_severity_and_keeps_its_place() {
        let warning = Finding::new("X-900", DiagnosticSeverity::Warning, "own")
            .with_path("attack.name")
            .with_location(3, 5);
        check(
            &warning,
            r#""X-900" "attack.name" 3:5 "warning" "warning""#,
            "own",
        );
        let error = Finding::new("V-013", DiagnosticSeverity::Error, "bad regex");
        check(
            &error,
            r#""V-013" null null:null "validation" "error""#,
            "bad regex",
        );
        assert_eq!(error.rule_id(), "V-013");
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
