//! `validate` (SDK §3.2): every V- rule and W- warning, collected, never stopping at the first.
//!
//! Paths follow spec-decisions 1a: the document as written, keys joined by `.`, list positions as
//! `[N]`, predicate keys and variable names appended verbatim.

mod execution;
mod indicators;
mod patterns;
mod registry;
mod rest;
mod result;
mod state;
mod syntax;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use crate::path_check::{check_simple_path, check_wildcard_path};
use oatf_primitives::{Condition, MatchPredicate, extract_protocol, parse_duration};
use serde_json::Value;

use patterns::{
    TemplateRef, duplicate_message, is_attack_id, is_cel_ident, is_lower_ident, is_mode, shown,
    split_numbered, template_refs,
};
pub use registry::{is_known_surface, known_events, known_modes, known_protocols};
pub use result::{Diagnostic, SourceLocation, ValidationError, ValidationResult};
pub use syntax::{BuiltInSyntax, JsonPathSyntax, SyntaxCheck};

use crate::rules::{DiagnosticSeverity, Rule};
use crate::span::{SpanIndex, join_index as idx, join_key as key};
use crate::types::{
    Action, Actor, Closed, ClosedEnum, Document, ElicitationAction, ElicitationMode, Execution,
    ExtractorType, Indicator, IndicatorMethod, Phase, Severity,
};

/// The warning code emitted for each CEL expression whose syntax could not be checked because no
/// [`CelSyntaxCheck`] was installed in [`ValidateOptions`].
pub const CEL_UNCHECKED: &str = Rule::W014.id();

/// Checks the syntax of CEL expressions for V-014; implemented outside the model (by `oatf-cel`).
pub trait CelSyntaxCheck: Send + Sync {
    /// `Ok(())` when `expression` parses; otherwise why it does not.
    fn check(&self, expression: &str) -> Result<(), CelSyntaxError>;

    /// What [`check`](Self::check) answers for each of `expressions`, in the same order. Validation
    /// calls this once per document with its distinct expressions; the default calls `check` for
    /// each, and a checker with a cost per call (`oatf-cel` hands each expression to its parser
    /// thread) overrides it to pay that cost once.
    fn check_all(&self, expressions: &[&str]) -> Vec<Result<(), CelSyntaxError>> {
        expressions.iter().map(|e| self.check(e)).collect()
    }
}

/// Any function with the right signature is a checker, for example `oatf_cel::check_cel_syntax`:
///
/// ```
/// use std::sync::Arc;
/// use oatf_model::{CelSyntaxError, CelSyntaxErrorKind};
/// fn never_ok(_: &str) -> Result<(), CelSyntaxError> {
///     Err(CelSyntaxError::new(CelSyntaxErrorKind::Syntax, "no"))
/// }
/// let options = oatf_model::ValidateOptions::new().with_cel_check(Arc::new(never_ok));
/// # let _ = options;
/// ```
impl<F> CelSyntaxCheck for F
where
    F: Fn(&str) -> Result<(), CelSyntaxError> + Send + Sync,
{
    fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
        self(expression)
    }
}

/// Why a CEL expression was refused by a [`CelSyntaxCheck`] (reported as V-014).
///
/// ```
/// use oatf_model::{CelSyntaxError, CelSyntaxErrorKind};
/// let error = CelSyntaxError::new(CelSyntaxErrorKind::Syntax, "1:3: syntax error");
/// assert_eq!(error.kind(), CelSyntaxErrorKind::Syntax);
/// assert_eq!(error.to_string(), "1:3: syntax error");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CelSyntaxError {
    kind: CelSyntaxErrorKind,
    message: String,
}

/// The kind of a [`CelSyntaxError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CelSyntaxErrorKind {
    /// The parser refused the expression (its diagnostic is the message).
    Syntax,
    /// The expression exceeds an input limit of the checker (its length, or how deep it nests), so
    /// it was refused without being parsed whole.
    Limit,
}

impl CelSyntaxError {
    /// A new error; `message` is lowercase, without a trailing period.
    pub fn new(kind: CelSyntaxErrorKind, message: impl Into<String>) -> Self {
        CelSyntaxError {
            kind,
            message: message.into(),
        }
    }

    /// What kind of refusal this is.
    pub fn kind(&self) -> CelSyntaxErrorKind {
        self.kind
    }

    /// What is wrong (lowercase, no trailing period; for a syntax error, the parser's first line).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for CelSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CelSyntaxError {}

/// Options of [`validate_with`].
#[derive(Clone)]
pub struct ValidateOptions {
    cel: Option<Arc<dyn CelSyntaxCheck>>,
    syntax: Arc<dyn SyntaxCheck>,
    binding_warnings: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        Self::with_syntax_check(Arc::new(BuiltInSyntax))
    }
}

impl fmt::Debug for ValidateOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidateOptions")
            .field("cel", &self.cel.as_ref().map(|_| "installed"))
            .field("syntax", &"installed")
            .field("binding_warnings", &self.binding_warnings)
            .finish()
    }
}

impl ValidateOptions {
    /// Default options: no CEL checker (each expression gets a [`CEL_UNCHECKED`] warning), binding
    /// warnings on.
    pub fn new() -> Self {
        Self::default()
    }

    /// Options like [`new`](Self::new) whose regex and JSONPath syntax questions (V-013, V-042,
    /// V-015) go to `check` instead of [`BuiltInSyntax`] (D-190). A build that never calls `new` or
    /// `default` links none of the parsers: the npm validation module answers from its on-demand
    /// module this way.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use oatf_model::{BuiltInSyntax, JsonPathSyntax, SyntaxCheck, ValidateOptions};
    /// /// Every question answered by the built-in checks, counted.
    /// #[derive(Default)]
    /// struct Counting(std::sync::atomic::AtomicUsize);
    /// impl SyntaxCheck for Counting {
    ///     fn regex(&self, pattern: &str) -> Result<(), String> {
    ///         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///         BuiltInSyntax.regex(pattern)
    ///     }
    ///     fn capture_groups(&self, pattern: &str) -> Option<usize> {
    ///         BuiltInSyntax.capture_groups(pattern)
    ///     }
    ///     fn json_path(&self, selector: &str) -> JsonPathSyntax {
    ///         BuiltInSyntax.json_path(selector)
    ///     }
    /// }
    /// let counting = Arc::new(Counting::default());
    /// let options = ValidateOptions::with_syntax_check(counting.clone());
    /// let document = oatf_model::Document::from_json_str(r#"{"oatf": "0.1", "attack": {"indicators": [
    ///     {"surface": "tools/call", "pattern": {"regex": "(unclosed"}}]}}"#)?;
    /// let result = oatf_model::validate_with(&document, &options);
    /// assert!(result.errors().iter().any(|e| e.rule() == "V-013"));
    /// assert_eq!(counting.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    /// # Ok::<(), oatf_model::ParseErrors>(())
    /// ```
    pub fn with_syntax_check(check: Arc<dyn SyntaxCheck>) -> Self {
        ValidateOptions {
            cel: None,
            syntax: check,
            binding_warnings: true,
        }
    }

    /// Installs the CEL syntax checker used for V-014.
    #[must_use]
    pub fn with_cel_check(mut self, check: Arc<dyn CelSyntaxCheck>) -> Self {
        self.cel = Some(check);
        self
    }

    /// Turns the unrecognized-binding warnings (W-002, W-003, V-018, V-029) on or off.
    #[must_use]
    pub fn binding_warnings(mut self, on: bool) -> Self {
        self.binding_warnings = on;
        self
    }
}

/// Validates a parsed document with default options (SDK §3.2).
///
/// ```
/// let document = oatf_model::Document::from_json_str(r#"{"oatf": "0.1", "attack": {"severity": "extreme"}}"#)?;
/// let result = oatf_model::validate(&document);
/// let mut rules: Vec<_> = result.errors().iter().map(|e| (e.rule(), e.path())).collect();
/// rules.sort();
/// assert_eq!(rules, [("V-004", "attack.execution"), ("V-005", "attack.severity")]);
/// # Ok::<(), oatf_model::ParseErrors>(())
/// ```
pub fn validate(document: &Document) -> ValidationResult {
    validate_with(document, &ValidateOptions::default())
}

/// Validates a parsed document (SDK §3.2).
pub fn validate_with(document: &Document, options: &ValidateOptions) -> ValidationResult {
    let mut v = Validator {
        options,
        result: ValidationResult::default(),
        spans: document.source.spans.as_deref(),
        actors: Vec::new(),
        missing: HashSet::new(),
        cel_answers: options
            .cel
            .as_deref()
            .map(|check| cel_answers(document.indicators(), check))
            .unwrap_or_default(),
    };
    for path in document.missing_fields() {
        if let Some(rule) = missing_rule(path) {
            let field = path.rsplit('.').next().unwrap_or(path);
            v.error(
                rule,
                path.clone(),
                format!("required field `{field}` is missing"),
            );
        }
    }
    v.missing = document
        .missing_fields()
        .iter()
        .filter(|p| missing_rule(p).is_some())
        .cloned()
        .collect();
    v.document(document);
    v.finish()
}

/// `check`'s answer for each distinct CEL expression of `indicators`, asked in one
/// [`CelSyntaxCheck::check_all`] call; an expression without an answer (a checker that answered
/// fewer) is checked on its own when the walk reaches it.
fn cel_answers<'d>(
    indicators: &'d [Indicator],
    check: &dyn CelSyntaxCheck,
) -> HashMap<&'d str, Result<(), CelSyntaxError>> {
    let mut seen = HashSet::new();
    let distinct: Vec<&str> = indicators
        .iter()
        .filter_map(|i| i.expression.as_ref())
        .map(|e| e.cel.as_str())
        .filter(|cel| seen.insert(*cel))
        .collect();
    if distinct.is_empty() {
        return HashMap::new();
    }
    let answers = check.check_all(&distinct);
    distinct.into_iter().zip(answers).collect()
}

/// An actor as normalization will see it (single- and multi-phase forms become `default`).
struct ActorInfo {
    name: String,
    mode: Option<String>,
    extractors: HashSet<String>,
}

struct Validator<'a> {
    options: &'a ValidateOptions,
    result: ValidationResult,
    spans: Option<&'a SpanIndex>,
    actors: Vec<ActorInfo>,
    /// Required fields missing in the source: reported once, then their placeholder values are
    /// not checked again.
    missing: HashSet<String>,
    /// The installed checker's answer for each distinct CEL expression of the document, asked for
    /// all of them at once before the walk (V-014).
    cel_answers: HashMap<&'a str, Result<(), CelSyntaxError>>,
}

/// The rule reporting a missing required field (spec-decisions 1: parse keeps going, validate
/// reports). Fields without a rule of their own fall under V-004 (required fields present).
fn missing_rule(path: &str) -> Option<Rule> {
    let (parent, field) = match path.rsplit_once('.') {
        Some(split) => split,
        None => ("", path),
    };
    let last = parent.rsplit('.').next().unwrap_or("");
    Some(match field {
        // An empty `phases` list is reported by V-007 and V-031 already.
        "phases" => return None,
        "name" | "mode" if last.starts_with("actors[") => Rule::V031,
        "name" if last.starts_with("extractors[") => Rule::V037,
        "source" | "type" | "level" => Rule::V005,
        "selector" => Rule::V015,
        "target" => Rule::V021,
        "cel" => Rule::V014,
        _ => Rule::V004,
    })
}

/// The binding dispatch lists of a state value (spec-decisions 7): `(path, list)`.
fn dispatch_lists<'v>(state: &'v Value, base: &str) -> Vec<(String, &'v Vec<Value>)> {
    let mut lists = Vec::new();
    let Some(object) = state.as_object() else {
        return lists;
    };
    for owner in ["tools", "prompts"] {
        if let Some(Value::Array(items)) = object.get(owner) {
            for (i, item) in items.iter().enumerate() {
                if let Some(Value::Array(responses)) = item.get("responses") {
                    lists.push((key(&idx(&key(base, owner), i), "responses"), responses));
                }
            }
        }
    }
    for name in [
        "sampling_responses",
        "elicitation_responses",
        "task_responses",
        "tool_responses",
    ] {
        if let Some(Value::Array(entries)) = object.get(name) {
            lists.push((key(base, name), entries));
        }
    }
    lists
}

// ---------------------------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------------------------

impl Validator<'_> {
    fn locate(&self, path: &str) -> Option<SourceLocation> {
        let location = self.spans?.locate(path)?;
        Some(SourceLocation {
            span: location.span.clone(),
            line: location.line,
            column: location.column,
        })
    }

    fn error(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>) {
        let path = path.into();
        let location = self.locate(&path);
        self.push_error(rule, path, location, message.into(), None);
    }

    /// An error whose path is the rule's address (spec-decisions 1a: the list for a property of the
    /// list as a whole, the object for a combination of fields, a present field that needs an absent
    /// one) while its source label points at `label`, the specific element.
    fn error_at(
        &mut self,
        rule: Rule,
        path: impl Into<String>,
        label: &str,
        message: impl Into<String>,
    ) {
        let path = path.into();
        let location = self.locate(label).or_else(|| self.locate(&path));
        self.push_error(rule, path, location, message.into(), None);
    }

    /// A duplicate identifier (spec-decisions 1a): the error is at `path`, the identifying field of
    /// the later occurrence; `first`, the first occurrence, gets a secondary source label. A
    /// generated name or id is not in the source: its label goes to the object that lacks it (the
    /// nearest located ancestor).
    fn duplicate(&mut self, rule: Rule, path: String, first: &str, message: String) {
        let location = self.locate(&path);
        let secondary = self.locate(first).map(|l| result::SecondaryLabel {
            text: "first used here".to_owned(),
            span: l.span,
        });
        self.push_error(rule, path, location, message, secondary);
    }

    fn push_error(
        &mut self,
        rule: Rule,
        path: String,
        location: Option<SourceLocation>,
        message: String,
        secondary: Option<result::SecondaryLabel>,
    ) {
        if self.missing.contains(&path) {
            return;
        }
        self.result.errors.push(ValidationError {
            rule,
            message,
            path,
            location,
            secondary,
        });
    }

    fn warn(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>) {
        let path = path.into();
        if self.missing.contains(&path) {
            return;
        }
        let location = self.locate(&path);
        self.result.warnings.push(Diagnostic {
            severity: DiagnosticSeverity::Warning,
            code: rule.id().to_owned(),
            path: Some(path),
            message: message.into(),
            location,
        });
    }

    fn finish(mut self) -> ValidationResult {
        if self.spans.is_some() {
            // Stable sorts keep the walk order among findings at the same place.
            self.result
                .errors
                .sort_by_key(|e| e.location.as_ref().map_or(usize::MAX, |l| l.span.start));
            self.result
                .warnings
                .sort_by_key(|d| d.location.as_ref().map_or(usize::MAX, |l| l.span.start));
        }
        self.result
    }

    /// V-005 (or the enumeration's own rule, [`ClosedEnum::RULE`]) for a closed-enumeration value.
    fn closed<T: ClosedEnum>(&mut self, value: &Closed<T>, path: String) {
        if let Closed::Unknown(s) = value {
            self.error(
                T::RULE,
                path,
                format!(
                    "unknown {} `{}`, expected one of {}{}",
                    T::LABEL,
                    shown(s),
                    T::expected(),
                    crate::suggest::hint(s, T::VARIANTS.iter().map(|v| v.as_str()))
                ),
            );
        }
    }

    fn mode_value(&mut self, mode: &str, path: String) {
        if !is_mode(mode) {
            self.error(
                Rule::V034,
                path,
                format!(
                    "mode `{}` does not match `[a-z][a-z0-9_]*_(server|client)`{}",
                    shown(mode),
                    crate::suggest::hint(mode, known_modes().iter().copied())
                ),
            );
        } else if self.options.binding_warnings && !known_modes().contains(&mode) {
            self.warn(
                Rule::W002,
                path,
                format!(
                    "unrecognized mode `{}`; known modes are {}{}",
                    shown(mode),
                    known_modes().join(", "),
                    crate::suggest::hint(mode, known_modes().iter().copied())
                ),
            );
        }
    }

    fn document(&mut self, document: &Document) {
        // V-001
        match document.oatf.as_deref() {
            None => self.error(Rule::V001, "oatf", "required field `oatf` is missing"),
            Some(crate::types::OATF_VERSION) => {}
            Some(other) => self.error(
                Rule::V001,
                "oatf",
                format!(
                    "unsupported oatf version `{}`, expected \"0.1\"",
                    shown(other)
                ),
            ),
        }
        // V-002, reported as W-001 (spec-decisions 2).
        let keys = document.top_level_keys();
        if keys.iter().any(|k| k == "oatf") && keys.first().is_some_and(|k| k != "oatf") {
            self.warn(
                Rule::W001,
                "oatf",
                "`oatf` should be the first key of the document (V-002)",
            );
        }
        // V-003
        let Some(attack) = &document.attack else {
            match document.source.attack_not_mapping {
                Some(found) => self.error(
                    Rule::V003,
                    "attack",
                    format!("`attack` must be a mapping, found {found}"),
                ),
                None => self.error(Rule::V003, "attack", "required field `attack` is missing"),
            }
            return;
        };
        // V-023
        if let Some(id) = &attack.id
            && !is_attack_id(id)
        {
            self.error(
                Rule::V023,
                "attack.id",
                format!(
                    "attack id `{}` does not match `^[A-Z][A-Z0-9-]*-[0-9]{{3,}}$`",
                    shown(id)
                ),
            );
        }
        // V-035
        if let Some(version) = attack.version
            && version < 1
        {
            self.error(
                Rule::V035,
                "attack.version",
                format!("version must be at least 1, found {version}"),
            );
        }
        if let Some(status) = &attack.status {
            self.closed(status, "attack.status".to_owned());
        }
        // V-046
        if let Some(grace) = &attack.grace_period
            && let Err(e) = parse_duration(grace)
        {
            self.error(Rule::V046, "attack.grace_period", e.to_string());
        }
        if let Some(severity) = &attack.severity {
            match severity {
                Severity::Scalar(level) => self.closed(level, "attack.severity".to_owned()),
                Severity::Object(object) => {
                    self.closed(&object.level, "attack.severity.level".to_owned());
                    // V-017
                    if let Some(c) = object.confidence
                        && !(0..=100).contains(&c)
                    {
                        self.error(
                            Rule::V017,
                            "attack.severity.confidence",
                            format!("confidence must be within 0–100, found {c}"),
                        );
                    }
                }
            }
        }
        if let Some(impact) = &attack.impact {
            let mut seen = HashSet::new();
            for (i, item) in impact.iter().enumerate() {
                let path = idx("attack.impact", i);
                self.closed(item, path.clone());
                // V-045
                if !seen.insert(item.as_str()) {
                    self.error_at(
                        Rule::V045,
                        "attack.impact",
                        &path,
                        format!("duplicate impact `{}` at `{path}`", shown(item.as_str())),
                    );
                }
            }
        }
        if let Some(classification) = &attack.classification {
            if let Some(category) = &classification.category {
                self.closed(category, "attack.classification.category".to_owned());
            }
            for (i, mapping) in classification.mappings.iter().flatten().enumerate() {
                if let Some(rel) = &mapping.relationship {
                    let path = key(&idx("attack.classification.mappings", i), "relationship");
                    self.closed(rel, path);
                }
            }
        }
        // V-004 and the execution profile.
        match &attack.execution {
            None => self.error(
                Rule::V004,
                "attack.execution",
                "required field `execution` is missing",
            ),
            Some(execution) => self.execution(execution),
        }
        // V-006
        if let Some(indicators) = &attack.indicators {
            if indicators.is_empty() {
                self.error(
                    Rule::V006,
                    "attack.indicators",
                    "`indicators` must contain at least one entry",
                );
            }
            let mode = attack.execution.as_ref().and_then(|e| e.mode.as_deref());
            self.indicators(indicators, attack.id.as_deref(), mode);
        }
        // V-047
        if let Some(correlation) = &attack.correlation {
            // Spec-decisions 1a: a present field that needs an absent one is reported at the
            // present field.
            if attack.indicators.is_none() {
                self.error(
                    Rule::V047,
                    "attack.correlation",
                    "`correlation` is only allowed when `indicators` is present",
                );
            }
            if let Some(logic) = &correlation.logic {
                self.closed(logic, "attack.correlation.logic".to_owned());
            }
        }
    }
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The actors normalization will produce, with the extractor names each declares.
fn collect_actors(execution: &Execution) -> Vec<ActorInfo> {
    fn extractor_names(phases: &[Phase]) -> HashSet<String> {
        phases
            .iter()
            .flat_map(|p| p.extractors.iter().flatten())
            .map(|e| e.name.clone())
            .collect()
    }
    if let Some(actors) = &execution.actors {
        return actors
            .iter()
            .map(|a| ActorInfo {
                name: a.name.clone(),
                mode: Some(a.mode.clone()),
                extractors: extractor_names(&a.phases),
            })
            .collect();
    }
    if let Some(phases) = &execution.phases {
        let mode = execution
            .mode
            .clone()
            .or_else(|| phases.first().and_then(|p| p.mode.clone()));
        return vec![ActorInfo {
            name: "default".to_owned(),
            mode,
            extractors: extractor_names(phases),
        }];
    }
    if execution.state.is_some() {
        return vec![ActorInfo {
            name: "default".to_owned(),
            mode: execution.mode.clone(),
            extractors: HashSet::new(),
        }];
    }
    Vec::new()
}

#[cfg(all(test, feature = "yaml"))]
mod tests {
    use super::*;

    struct Cel;
    impl CelSyntaxCheck for Cel {
        fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
            if expression.trim_end().ends_with('+') {
                Err(CelSyntaxError::new(
                    CelSyntaxErrorKind::Syntax,
                    "unexpected end of expression",
                ))
            } else {
                Ok(())
            }
        }
    }

    /// Validates `body` (indented under `attack:`) and compares `CODE path` lines, errors then warnings.
    #[track_caller]
    fn check(body: &str, expect: &[&str]) {
        let source = format!("oatf: \"0.1\"\nattack:\n{body}");
        let document = match crate::parse(&source) {
            Ok(d) => d,
            Err(e) => panic!("does not parse: {e}\n{source}"),
        };
        let options = ValidateOptions::new().with_cel_check(Arc::new(Cel));
        let result = validate_with(&document, &options);
        let actual: Vec<String> = result
            .errors
            .iter()
            .map(|e| format!("{} {}", e.rule(), e.path()))
            .chain(
                result
                    .warnings
                    .iter()
                    .map(|w| format!("{} {}", w.code(), w.path().unwrap_or(""))),
            )
            .collect();
        assert_eq!(actual, expect, "\n{source}");
    }

    const SINGLE: &str = "  execution:\n    mode: mcp_server\n    state: {tools: []}\n";

    #[test]
    fn valid_single_phase() {
        check(SINGLE, &[]);
    }

    #[test]
    fn envelope_rules() {
        check(
            &format!(
                "  id: acme-1\n  version: 0\n  status: frozen\n  grace_period: 1h30m\n  severity: {{level: high, confidence: 101}}\n  impact: [data_tampering, data_tampering, oops]\n{SINGLE}  correlation: {{logic: most}}\n"
            ),
            &[
                "V-023 attack.id",
                "V-035 attack.version",
                "V-005 attack.status",
                "V-046 attack.grace_period",
                "V-017 attack.severity.confidence",
                "V-045 attack.impact",
                "V-005 attack.impact[2]",
                "V-047 attack.correlation",
                "V-005 attack.correlation.logic",
            ],
        );
    }

    #[test]
    fn execution_forms() {
        check("  execution: {}\n", &["V-030 attack.execution"]);
        check(
            "  execution:\n    state: {}\n    phases: [{state: {}}]\n",
            &[
                "V-030 attack.execution",
                "V-030 attack.execution.mode",
                "V-028 attack.execution.phases[0].mode",
            ],
        );
        check(
            "  execution:\n    actors: []\n",
            &["V-007 attack.execution.actors"],
        );
    }

    #[test]
    fn phases_and_triggers() {
        check(
            "  execution:\n    mode: mcp_server\n    phases:\n      - name: phase-2\n        trigger: {count: 2, after: 5x}\n      - extractors:\n          - {name: Bad, source: request, type: regex, selector: \"no group\"}\n          - {name: ok, source: request, type: json_path, selector: \"$[\"}\n        on_enter:\n          - {send: {method: x}, log: {message: y}}\n          - {delay_ms: 5, x-note: 1}\n        trigger: {event: tools/nope}\n      - state: {}\n",
            &[
                "V-009 attack.execution.phases[0]",
                "V-019 attack.execution.phases[0].trigger",
                "V-036 attack.execution.phases[0].trigger.after",
                // The generated name of the unnamed later phase is the duplicate (spec-decisions 10, 1a).
                "V-011 attack.execution.phases[1].name",
                "V-037 attack.execution.phases[1].extractors[0].name",
                "V-042 attack.execution.phases[1].extractors[0].selector",
                "V-015 attack.execution.phases[1].extractors[1].selector",
                "V-041 attack.execution.phases[1].on_enter[0]",
                "V-029 attack.execution.phases[1].trigger.event",
            ],
        );
    }

    #[test]
    fn multi_actor_rules() {
        check(
            "  execution:\n    actors:\n      - name: a\n        mode: mcp_server\n        phases:\n          - {name: p, mode: mcp_client, state: {}, trigger: {event: tools/call}}\n          - {name: p}\n      - name: a\n        mode: ghost_server\n        phases: []\n",
            &[
                "V-044 attack.execution.actors[0].phases[0].mode",
                "V-011 attack.execution.actors[0].phases[1].name",
                "V-031 attack.execution.actors[0].phases[1].name",
                "V-031 attack.execution.actors[1].name",
                "V-007 attack.execution.actors[1].phases",
                "V-031 attack.execution.actors[1].phases",
                "W-002 attack.execution.actors[1].mode",
            ],
        );
    }

    #[test]
    fn dispatch_lists_and_templates() {
        check(
            "  execution:\n    mode: mcp_client\n    state:\n      sampling_responses:\n        - content: a\n        - content: \"{{nope}} {{ghost.x}} {{request.a}} \\\\{{lit\"\n          synthesize: {prompt: p}\n      elicitation_responses:\n        - when: {\"a..b\": 1, c: {regex: \"(\"}}\n          action: maybe\n      elicitations:\n        - {message: m, mode: sms}\n      roots: [\"{{unclosed\"]\n",
            &[
                "V-033 attack.execution.state.sampling_responses",
                "V-032 attack.execution.state.sampling_responses[1].content",
                "V-027 attack.execution.state.elicitation_responses[0].when.a..b",
                "V-013 attack.execution.state.elicitation_responses[0].when.c.regex",
                "V-005 attack.execution.state.elicitation_responses[0].action",
                "V-005 attack.execution.state.elicitations[0].mode",
                "V-016 attack.execution.state.roots[0]",
                "W-004 attack.execution.state.sampling_responses[1].content",
                "W-006 attack.execution.state.sampling_responses[1].synthesize",
            ],
        );
    }

    #[test]
    fn indicator_rules() {
        check(
            &format!(
                "  id: ACME-001\n{SINGLE}  indicators:\n    - {{id: ACME-001-01, target: \"a[0]\", method: expression, pattern: {{regex: \"(?=x)\"}}, confidence: -1}}\n    - {{id: ACME-001-01, target: \"\", expression: {{cel: \"1 +\", variables: {{my-var: \"a[*]\"}}}}}}\n    - {{target: x, protocol: Bad, semantic: {{intent: i, threshold: 2.0}}, actor: ghost}}\n    - {{target: x, surface: nope, pattern: {{contains: a}}}}\n"
            ),
            &[
                "V-021 attack.indicators[0].target",
                "V-049 attack.indicators[0].method",
                "V-013 attack.indicators[0].pattern.regex",
                "V-025 attack.indicators[0].confidence",
                "V-010 attack.indicators[1].id",
                "V-014 attack.indicators[1].expression.cel",
                "V-039 attack.indicators[1].expression.variables.my-var",
                "V-026 attack.indicators[1].expression.variables.my-var",
                "V-034 attack.indicators[2].protocol",
                "V-022 attack.indicators[2].semantic.threshold",
                "V-048 attack.indicators[2].actor",
                "W-005 attack.indicators[2].protocol",
                "W-007 attack.indicators[2].semantic",
                "V-018 attack.indicators[3].surface",
            ],
        );
    }

    /// V-008 (spec-decisions 1a): a single terminal phase that is not last is a misplaced element,
    /// reported at that phase; two or more terminal phases are a property of the list.
    #[test]
    fn terminal_phases() {
        let phases = |triggers: &[bool]| {
            let mut body = "  execution:\n    mode: mcp_server\n    phases:\n".to_owned();
            for (i, &trigger) in triggers.iter().enumerate() {
                body.push_str(&format!("      - name: p{i}\n"));
                if i == 0 {
                    body.push_str("        state: {}\n");
                }
                if trigger {
                    body.push_str("        trigger: {event: tools/call}\n");
                }
            }
            body
        };
        check(&phases(&[true, false]), &[]);
        check(&phases(&[true, true]), &[]);
        check(
            &phases(&[false, true]),
            &["V-008 attack.execution.phases[0]"],
        );
        check(
            &phases(&[true, false, true]),
            &["V-008 attack.execution.phases[1]"],
        );
        check(&phases(&[false, false]), &["V-008 attack.execution.phases"]);
        check(
            &phases(&[false, false, true]),
            &["V-008 attack.execution.phases"],
        );
        check(
            &phases(&[false, true, false, false]),
            &["V-008 attack.execution.phases"],
        );
    }

    /// A duplicate is reported at the later occurrence (spec-decisions 1a); the message and a
    /// secondary source label show the first one.
    #[test]
    #[cfg(feature = "miette")]
    fn duplicates_show_the_first_occurrence() {
        let source = "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state: {}\n  indicators:\n    - {id: dup, target: a, pattern: {contains: x}}\n    - {id: other, target: a, pattern: {contains: x}}\n    - {id: dup, target: a, pattern: {contains: x}}\n";
        let document = match crate::parse(source) {
            Ok(d) => d,
            Err(e) => panic!("does not parse: {e}"),
        };
        let result = validate(&document);
        let [error] = result.errors() else {
            panic!("{:?}", result.errors());
        };
        assert_eq!(error.path(), "attack.indicators[2].id");
        assert!(
            error.message().contains("`attack.indicators[0].id`"),
            "{}",
            error.message()
        );
        let labels: Vec<(String, usize)> = miette::Diagnostic::labels(error)
            .map(|labels| {
                labels
                    .map(|l| (l.label().unwrap_or("").to_owned(), l.offset()))
                    .collect()
            })
            .unwrap_or_default();
        let at = |needle: &str, nth: usize| {
            source
                .match_indices(needle)
                .nth(nth)
                .map_or(usize::MAX, |(i, _)| i)
        };
        // The primary label on the later `dup`, the secondary on the first.
        assert_eq!(labels.len(), 2, "{labels:?}");
        assert_eq!(labels[0].1, at("dup", 1), "{labels:?}");
        assert_eq!(labels[1].1, at("dup", 0), "{labels:?}");
        assert_eq!(labels[1].0, "first used here", "{labels:?}");
    }

    /// Collisions with generated ids and names (spec-decisions 10) are reported at the later
    /// occurrence, whether its id or name is written or generated.
    #[test]
    fn collisions_with_generated_identifiers() {
        let indicator = "{target: a, pattern: {contains: x}}";
        check(
            &format!(
                "{SINGLE}  indicators:\n    - {{id: indicator-02, target: a, pattern: {{contains: x}}}}\n    - {indicator}\n"
            ),
            &["V-010 attack.indicators[1].id"],
        );
        check(
            &format!(
                "  id: ACME-001\n{SINGLE}  indicators:\n    - {indicator}\n    - {{id: ACME-001-01, target: a, pattern: {{contains: x}}}}\n"
            ),
            &["V-010 attack.indicators[1].id"],
        );
        check(
            "  execution:\n    mode: mcp_server\n    phases:\n      - {state: {}, trigger: {event: tools/call}}\n      - {name: phase-1}\n",
            &["V-011 attack.execution.phases[1].name"],
        );
    }

    /// V-025's bounds are inclusive: 0 and 100 are valid, -1 and 101 are not (a survivor of mutation
    /// testing: `0..=100` mutated to `0..100` passed every test before this one).
    #[test]
    fn confidence_bounds_are_inclusive() {
        for (confidence, expect) in [
            (0, &[][..]),
            (100, &[][..]),
            (101, &["V-025 attack.indicators[0].confidence"][..]),
            (-1, &["V-025 attack.indicators[0].confidence"][..]),
        ] {
            check(
                &format!(
                    "  id: ACME-001\n{SINGLE}  indicators:\n    - {{target: arguments, pattern: {{contains: a}}, confidence: {confidence}}}\n"
                ),
                expect,
            );
        }
    }

    /// Validation reads templates with the runtime's scanner: in `{{a{{b}}` the reference is `b`
    /// (the runtime renders `{{a` and the value of `b`), never an extractor named `a{{b`.
    #[test]
    fn templates_are_read_as_the_runtime_renders_them() {
        let source = "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state:\n      tools:\n        - {name: t, description: \"{{a{{b}}\", inputSchema: {type: object}}\n";
        let document = match crate::parse(source) {
            Ok(d) => d,
            Err(e) => panic!("does not parse: {e}\n{source}"),
        };
        let result = validate_with(&document, &ValidateOptions::new());
        let messages: Vec<String> = result.warnings.iter().map(ToString::to_string).collect();
        assert!(result.errors.is_empty(), "{:?}", result.errors);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("`{{b}}`"), "{messages:?}");
        assert!(!messages[0].contains("a{{b"), "{messages:?}");
    }

    #[test]
    fn missing_required_fields_and_top_level() {
        check(
            "  execution:\n    actors:\n      - phases: [{state: {}}]\n  indicators:\n    - pattern: {contains: a}\n      protocol: mcp\n",
            &[
                "V-031 attack.execution.actors[0].name",
                "V-031 attack.execution.actors[0].mode",
                "V-021 attack.indicators[0].target",
            ],
        );
        let document = match crate::parse(
            "attack:\n  execution: {mode: mcp_server, state: {}}\noatf: \"0.2\"\n",
        ) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let result = validate(&document);
        let codes: Vec<_> = result
            .errors
            .iter()
            .map(|e| e.rule())
            .chain(result.warnings.iter().map(|w| w.code()))
            .collect();
        assert_eq!(codes, ["V-001", "W-001"]);
    }

    #[test]
    fn cel_without_checker_warns() {
        let document = match crate::parse(&format!(
            "oatf: \"0.1\"\nattack:\n{SINGLE}  indicators:\n    - {{target: \"\", expression: {{cel: \"true\"}}}}\n"
        )) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let result = validate(&document);
        assert!(result.is_valid());
        let codes: Vec<_> = result.warnings.iter().map(|w| w.code()).collect();
        assert_eq!(codes, [CEL_UNCHECKED]);
    }

    /// A checker that answers as [`Cel`] and records how it was asked.
    #[derive(Default)]
    struct Recording {
        batches: std::sync::Mutex<Vec<Vec<String>>>,
        singles: std::sync::atomic::AtomicUsize,
        /// Answers no expression in `check_all`, so validation falls back to `check`.
        short: bool,
    }
    impl CelSyntaxCheck for Recording {
        fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
            self.singles
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Cel.check(expression)
        }
        fn check_all(&self, expressions: &[&str]) -> Vec<Result<(), CelSyntaxError>> {
            if let Ok(mut batches) = self.batches.lock() {
                batches.push(expressions.iter().map(|e| (*e).to_owned()).collect());
            }
            if self.short {
                return Vec::new();
            }
            expressions.iter().map(|e| Cel.check(e)).collect()
        }
    }

    /// V-014 asks the checker once per document for its distinct expressions, and reports each
    /// refusal where the walk reaches it: before the indicator's next finding, after the previous one.
    #[test]
    fn cel_expressions_are_checked_in_one_batch_in_walk_order() {
        let execution = serde_json::json!({"mode": "mcp_server", "state": {"tools": []}});
        let document: Document = match serde_json::from_value(serde_json::json!({
            "oatf": "0.1",
            "attack": {"execution": execution, "indicators": [
                {"target": "", "expression": {"cel": "1 +", "variables": {"my-var": "a"}}},
                {"target": "a..b", "expression": {"cel": "true"}},
                {"target": "", "expression": {"cel": "2 +"}, "confidence": 101},
                {"target": "", "expression": {"cel": "1 +"}},
            ]}
        })) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let expected = [
            "V-014 attack.indicators[0].expression.cel",
            "V-039 attack.indicators[0].expression.variables.my-var",
            "V-021 attack.indicators[1].target",
            "V-025 attack.indicators[2].confidence",
            "V-014 attack.indicators[2].expression.cel",
            "V-014 attack.indicators[3].expression.cel",
        ];
        for short in [false, true] {
            let checker = Arc::new(Recording {
                short,
                ..Recording::default()
            });
            let options = ValidateOptions::new().with_cel_check(checker.clone());
            let result = validate_with(&document, &options);
            let errors: Vec<String> = result
                .errors
                .iter()
                .map(|e| format!("{} {}", e.rule(), e.path()))
                .collect();
            assert_eq!(errors, expected, "short: {short}");
            let batches = checker
                .batches
                .lock()
                .map(|b| b.clone())
                .unwrap_or_default();
            assert_eq!(batches, [["1 +", "true", "2 +"]], "short: {short}");
            let singles = checker.singles.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(singles, if short { 4 } else { 0 });
        }
    }
}
