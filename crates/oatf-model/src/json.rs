//! Reading a document from JSON with every problem reported at its JSON path (D-133): the JSON
//! counterpart of `parse`, for tools built without a YAML parser (an evaluator fed indicators as JSON).
//!
//! The document deserializer of `de.rs` over a borrowed [`serde_json::Value`] (a [`TreeNode`]), which
//! knows the dot-path of the value it reads, with the same collection of errors as `parse` (`types::collect`): an unknown key (with
//! "did you mean"), a value of the wrong type or a missing required field is recorded, the field is
//! left out, and reading goes on, so one call reports them all.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::de::{TreeDe, TreeKey, TreeNode, TreeValue, collect_document};
use crate::error::{ParseError, ParseErrorKind};
use crate::parse_errors::ParseErrors;
use crate::span::Location;
use crate::types::Document;

/// The deepest nesting [`Document::from_json`] reads, as YAML's default `max_depth` (serde_json's
/// parser stops at 128 too).
const MAX_DEPTH: usize = 128;

impl Document {
    /// Reads a document from a JSON value, as `parse` reads YAML (SDK §3.1): unknown keys (with
    /// "did you mean") and values of the wrong type are reported in one run, each at its dot-path
    /// (`attack.indicators[0].patern`), and the document as far as it could be read is kept
    /// ([`ParseErrors::partial_document`]); missing required fields are recorded for `validate`
    /// ([`missing_fields`](Self::missing_fields)). Nesting deeper than 128 levels is an error. The document is not validated:
    /// call [`validate`](crate::validate) (or compile it with `oatf-eval`'s
    /// `CompiledAttack::try_new`, which does).
    ///
    /// ```
    /// use oatf_model::Document;
    /// use serde_json::json;
    ///
    /// let errors = Document::from_json(&json!({"oatf": "0.1", "attack": {
    ///     "execution": {"mode": "mcp_server", "state": {}},
    ///     "indicators": [{"target": "arguments", "patern": {"contains": "x"}}]}}))
    ///     .unwrap_err();
    /// let error = errors.first().expect("one error");
    /// assert_eq!(error.path(), Some("attack.indicators[0].patern"));
    /// assert!(error.message().contains("did you mean `pattern`?"), "{error}");
    /// ```
    pub fn from_json(value: &Value) -> Result<Document, ParseErrors> {
        // Deserialization recurses into pass-through values: bound it as `parse` bounds YAML.
        if depth_exceeds(value, MAX_DEPTH) {
            return Err(ParseErrors::single(ParseError::new(
                ParseErrorKind::Syntax,
                format!("the document nests deeper than {MAX_DEPTH} levels"),
            )));
        }
        let (document, mut errors, dropped) =
            collect_document(|| Document::deserialize(TreeDe::root(value)));
        if errors.is_empty()
            && let Some(document) = document
        {
            return Ok(document);
        }
        // Without source locations the order is the order of reading, which is the document's.
        errors.sort_by_key(|e| e.rule.is_none());
        let errors = match document {
            Some(partial) => ParseErrors::with_partial(errors, partial, dropped),
            None => ParseErrors::new(errors),
        };
        Err(errors.unwrap_or_else(|| {
            ParseErrors::single(ParseError::new(
                ParseErrorKind::Syntax,
                "the value could not be read as a document",
            ))
        }))
    }

    /// Reads a document from JSON text: [`from_json`](Self::from_json) after parsing it. Text that
    /// is not JSON (or nests deeper than 128 levels) is one syntax error with its line and column.
    ///
    /// ```
    /// let errors = oatf_model::Document::from_json_str("{\"oatf\": \"0.1\",\n \"attack\": }").unwrap_err();
    /// assert_eq!(errors.first().and_then(|e| e.line()), Some(2));
    /// ```
    pub fn from_json_str(text: &str) -> Result<Document, ParseErrors> {
        let value: Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(error) => {
                // The position goes into the error's line and column, not twice into the text.
                let text = error.to_string();
                let at = format!(" at line {} column {}", error.line(), error.column());
                let mut e = ParseError::new(
                    ParseErrorKind::Syntax,
                    format!(
                        "the input is not JSON: {}",
                        text.strip_suffix(&at).unwrap_or(&text)
                    ),
                );
                e.line = Some(error.line());
                e.column = Some(error.column());
                return Err(ParseErrors::single(e));
            }
        };
        Document::from_json(&value)
    }
}

/// Whether `value` nests deeper than `max` levels (an explicit stack, no recursion).
fn depth_exceeds(value: &Value, max: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth >= max {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

/// The entries of an object, keys without a location.
pub(crate) struct Entries<'a>(serde_json::map::Iter<'a>);

impl<'a> Iterator for Entries<'a> {
    type Item = (TreeKey<'a>, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = self.0.next()?;
        let key = TreeKey {
            text: key,
            location: None,
        };
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// A JSON value is read in place (strings are copied into the document); it has no source location.
impl<'a> TreeNode<'a> for &'a Value {
    type Items = std::slice::Iter<'a, Value>;
    type Entries = Entries<'a>;

    fn location(&self) -> Option<Location> {
        None
    }

    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn into_parts(self) -> (Option<&'a Location>, TreeValue<'a, Self>) {
        let value = match self {
            Value::Null => TreeValue::Null,
            Value::Bool(b) => TreeValue::Bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => TreeValue::UInt(u),
                (None, Some(i), _) => TreeValue::Int(i),
                (None, None, Some(f)) => TreeValue::Float(f),
                (None, None, None) => TreeValue::Invalid("a number out of range"),
            },
            Value::String(s) => TreeValue::Str(Cow::Borrowed(s)),
            Value::Array(items) => TreeValue::Seq(items.iter()),
            Value::Object(map) => TreeValue::Map(Entries(map.iter())),
        };
        (None, value)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `path|message` of each error, or `ok`.
    fn errors_of(value: &Value) -> Vec<String> {
        match Document::from_json(value) {
            Ok(_) => vec![String::from("ok")],
            Err(errors) => errors
                .iter()
                .map(|e| format!("{}|{}", e.path().unwrap_or(""), e.message()))
                .collect(),
        }
    }

    #[test]
    fn every_problem_at_its_path_in_one_run() {
        let value = json!({"oatf": "0.1", "attack": {
        "severty": "high",
        "execution": {"mode": "mcp_server", "state": {}},
        "indicators": [
            {"target": "arguments", "pattern": {"contains": "x"}},
            {"target": 5, "pattern": {"contains": "x"}},
            {"target": "a", "patern": {"contains": "x"}}
        ]}});
        let errors = errors_of(&value);
        let expected = [
            "attack.severty|unknown field `severty`; did you mean `severity`? expected one of id,",
            "attack.indicators[1].target|expected a string, found the integer 5",
            "attack.indicators[2].patern|unknown field `patern`; did you mean `pattern`? expected",
        ];
        assert_eq!(errors.len(), expected.len(), "{errors:?}");
        for (error, expected) in errors.iter().zip(expected) {
            assert!(error.starts_with(expected), "{error}");
        }
        let errors = Document::from_json(&value).unwrap_err();
        let partial = errors.partial_document().expect("the rest was read");
        assert_eq!(partial.indicators().len(), 3);
        assert!(errors.first().is_some_and(|e| e.line().is_none()));
    }

    #[test]
    fn a_valid_document_reads_as_serde_reads_it() {
        let value = json!({"oatf": "0.1", "attack": {"id": "A-1",
            "execution": {"mode": "mcp_server", "state": {"tools": []}},
            "indicators": [{"surface": "tools/call", "direction": "requets",
                            "target": "arguments", "pattern": {"contains": "x"}}]}});
        let ours = Document::from_json(&value).expect("reads");
        let serde: Document = serde_json::from_value(value).expect("reads");
        assert_eq!(ours, serde);
        assert_eq!(ours.top_level_keys(), ["oatf", "attack"]);
    }

    #[test]
    fn missing_required_fields_are_left_to_validation() {
        let value = json!({"oatf": "0.1", "attack": {
            "execution": {"actors": [{"name": "a", "phases": [{"state": {}}]}]},
            "indicators": [{"pattern": {"contains": "x"}}]}});
        let document = Document::from_json(&value).expect("reads");
        assert_eq!(
            document.missing_fields(),
            [
                "attack.execution.actors[0].mode",
                "attack.indicators[0].target"
            ]
        );
        let result = crate::validate(&document);
        assert!(
            result
                .errors()
                .iter()
                .any(|e| e.path() == "attack.indicators[0].target"),
            "{:?}",
            result.errors()
        );
    }

    /// V-015 with the `jsonpath` feature; W-015 (never silence) without it (D-130).
    #[test]
    fn a_jsonpath_selector_is_checked_or_said_unchecked() {
        let document = Document::from_json(&json!({"oatf": "0.1", "attack": {"execution": {
        "mode": "mcp_server",
        "phases": [
            {"name": "one", "state": {}, "trigger": {"event": "tools/call"},
             "extractors": [{"name": "x", "source": "request", "type": "json_path",
                             "selector": "$.arguments[?"}]},
            {"name": "two"}
        ]}}}))
        .expect("reads");
        let result = crate::validate(&document);
        let path = "attack.execution.phases[0].extractors[0].selector";
        let errors: Vec<_> = result
            .errors()
            .iter()
            .map(|e| (e.rule(), e.path()))
            .collect();
        let warnings: Vec<_> = result
            .warnings()
            .iter()
            .map(|w| (w.code(), w.path().unwrap_or("")))
            .collect();
        if cfg!(feature = "jsonpath") {
            assert_eq!(errors, [("V-015", path)]);
            assert!(!warnings.iter().any(|w| w.0 == "W-015"), "{warnings:?}");
        } else {
            assert_eq!(errors, []);
            assert!(warnings.contains(&("W-015", path)), "{warnings:?}");
        }
    }

    #[test]
    fn text_that_is_not_json_or_too_deep() {
        let errors = Document::from_json_str("{\"oatf\": ").unwrap_err();
        assert!(errors.first().is_some_and(|e| e.line() == Some(1)));
        assert_eq!(
            errors_of(&json!([1])),
            ["|expected an OATF document mapping, found a list"]
        );
        let errors = Document::from_json_str("{\"oatf\": ").unwrap_err();
        assert!(
            errors.iter().all(|e| !e.message().contains("column")),
            "{errors}"
        );
        let mut deep = json!(null);
        for _ in 0..=MAX_DEPTH {
            deep = json!([deep]);
        }
        let errors = Document::from_json(&json!({"attack": {"x-deep": deep}})).unwrap_err();
        assert!(
            errors
                .first()
                .is_some_and(|e| e.message().contains("deeper")),
            "{errors}"
        );
        let mut ok = json!(null);
        for _ in 0..MAX_DEPTH - 2 {
            ok = json!([ok]);
        }
        assert_eq!(errors_of(&json!({"attack": {"x-deep": ok}})), ["ok"]);
    }
}
