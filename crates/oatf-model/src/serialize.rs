//! `serialize` (SDK §3.4) and `load` (SDK §3.5).

use crate::normalize::{NormalizedDocument, normalize, normalized};
use crate::parse::parse;
use crate::parse_errors::ParseErrors;
use crate::types::Document;
use crate::validate::{Diagnostic, ValidateOptions, ValidationError, validate_with};
use crate::yaml::emit::emit;

/// Serializes a document to canonical YAML (SDK §3.4).
///
/// The document is written in its normalized multi-actor form (a normalized copy is made, so every
/// default is explicit whatever the input): `oatf` first, then `$schema`, then `attack` with fields in
/// specification order and `x-` extensions after the fields of their object; block style; strings
/// quoted whenever they would read back as another type. The output is deterministic, and
/// `serialize(&parse(&serialize(d))?)` equals `serialize(d)`.
///
/// ```
/// let document = oatf_model::parse("oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state: {}\n")?;
/// let yaml = oatf_model::serialize(&document);
/// assert!(yaml.starts_with("oatf: \"0.1\"\nattack:\n  name: Untitled\n"));
/// # Ok::<(), oatf_model::ParseErrors>(())
/// ```
pub fn serialize(document: &Document) -> String {
    let document = normalized(document);
    let value = serde_json::to_value(&document).unwrap_or(serde_json::Value::Null);
    emit(&value)
}

/// The result of a successful [`load`] (SDK §3.5 `LoadResult`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Loaded {
    /// The normalized, valid document.
    pub document: Document,
    /// Non-fatal diagnostics from validation.
    pub warnings: Vec<Diagnostic>,
}

impl Loaded {
    /// The post-normalization guarantees of the document as plain accessors.
    pub fn normalized(&self) -> NormalizedDocument<'_> {
        match NormalizedDocument::check(&self.document) {
            Ok(view) => view,
            // A loaded document is valid and normalized, so the check cannot fail; fall back to the
            // unchecked view whose accessors are defensive anyway.
            Err(_) => NormalizedDocument::trusted_or_empty(&self.document),
        }
    }
}

/// Why [`load`] failed (SDK §7.5 `OATFError`): the parse errors, or every validation error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// The input did not parse.
    Parse(ParseErrors),
    /// The document parsed but is not conforming.
    Invalid(Vec<ValidationError>),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Parse(errors) => write!(f, "{errors}"),
            LoadError::Invalid(errors) => {
                write!(
                    f,
                    "{} validation error{}",
                    errors.len(),
                    oatf_internal::plural(errors.len())
                )?;
                for e in errors {
                    write!(f, "; {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LoadError {}

#[cfg(feature = "miette")]
impl miette::Diagnostic for LoadError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        match self {
            LoadError::Parse(errors) => miette::Diagnostic::code(errors),
            LoadError::Invalid(_) => Some(Box::new("oatf::invalid")),
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            LoadError::Parse(errors) => miette::Diagnostic::labels(errors),
            LoadError::Invalid(errors) => Some(Box::new(errors.iter().filter_map(|e| {
                let location = e.location()?;
                Some(miette::LabeledSpan::new_with_span(
                    Some(format!("{}: {}", e.rule(), e.message())),
                    location.span.clone(),
                ))
            }))),
        }
    }
}

/// Parses, validates and normalizes (SDK §3.5) with default validation options.
pub fn load(input: &str) -> Result<Loaded, LoadError> {
    load_with(input, &ValidateOptions::default())
}

/// [`load`] with explicit validation options (for example a CEL syntax checker).
pub fn load_with(input: &str, options: &ValidateOptions) -> Result<Loaded, LoadError> {
    let document = parse(input).map_err(LoadError::Parse)?;
    let result = validate_with(&document, options);
    if !result.errors.is_empty() {
        return Err(LoadError::Invalid(result.errors));
    }
    Ok(Loaded {
        document: normalize(document),
        warnings: result.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = r#"attack:
  x-team: red
  indicators:
    - target: "content[*].text"
      pattern: {regex: "(?i)secret", target: "content[*]"}
      x-note: "kept"
  name: "Everything: at once"
  execution:
    mode: mcp_server
    phases:
      - name: trust
        state:
          tools:
            - name: calc
              description: "2026-02-15"
              inputSchema: {type: object, properties: {a: {type: number, minimum: 1.0}}}
              responses:
                - when: {arguments.a: {gt: 10}}
                  content: [{type: text, text: "yes"}]
                - content: [{type: text, text: "ünïcödé ✓ 'quoted' \"double\""}]
        on_enter:
          - log: {message: "entering {{request.name}}", level: info}
            x-why: trace
          - delay_ms: 500
        trigger: {event: tools/call, after: PT30S}
        x-phase: [1, 2.5, null, true, "~", ""]
      - name: swap
  severity: {level: critical}
oatf: "0.1"
"#;

    #[test]
    fn canonical_output() {
        let document = match parse(FULL) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let yaml = serialize(&document);
        insta::assert_snapshot!(yaml);
        // A fixed point.
        let again = match parse(&yaml) {
            Ok(d) => d,
            Err(e) => panic!("{e}\n{yaml}"),
        };
        assert_eq!(serialize(&again), yaml);
        assert_eq!(normalize(again), normalize(document));
    }

    #[test]
    fn load_reports_all_errors() {
        match load("oatf: \"0.1\"\nattack:\n  version: 0\n  execution: {}\n") {
            Err(LoadError::Invalid(errors)) => {
                let rules: Vec<_> = errors.iter().map(ValidationError::rule).collect();
                assert_eq!(rules, ["V-035", "V-030"]);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(load("a: [\n"), Err(LoadError::Parse(_))));
    }
}
