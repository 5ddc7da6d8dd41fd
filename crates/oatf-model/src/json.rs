//! Reading a document from JSON with every problem reported at its JSON path (D-133): the JSON
//! counterpart of `parse`, for tools built without a YAML parser (an evaluator fed indicators as JSON).
//!
//! A serde `Deserializer` over a borrowed [`serde_json::Value`] that knows the dot-path of the value it
//! reads, with the same collection of errors as `parse` (`types::collect`): an unknown key (with
//! "did you mean"), a value of the wrong type or a missing required field is recorded, the field is
//! left out, and reading goes on, so one call reports them all.

use std::cell::Cell;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::de::{DeError, Path, collect_document};
use crate::error::{ParseError, ParseErrorKind};
use crate::parse_errors::ParseErrors;
use crate::span::join_key;
use crate::types::{Document, collect};

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
            collect_document(|| Document::deserialize(ValueDe::root(value)));
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

/// Deserializer over one JSON value at a known path.
struct ValueDe<'a, 'p> {
    value: &'a Value,
    path: Path<'p>,
}

impl<'a> ValueDe<'a, 'static> {
    fn root(value: &'a Value) -> Self {
        ValueDe {
            value,
            path: Path::Root,
        }
    }
}

/// Attaches the path of the value at `path` to an error that has none yet.
fn locate(path: &Path<'_>, mut error: DeError, last_key: Option<&str>) -> DeError {
    if error.located.is_some() {
        return error;
    }
    let at = if let Some(field) = error.missing_field {
        join_key(&path.render(), field)
    } else if let (true, Some(key)) = (error.key_fault, last_key) {
        join_key(&path.render(), key)
    } else {
        path.render()
    };
    error.located = Some((at, None));
    error
}

impl<'de> de::Deserializer<'de> for ValueDe<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let ValueDe { value, path } = self;
        let result = match value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (None, None, Some(f)) => visitor.visit_f64(f),
                (None, None, None) => Err(de::Error::custom("a number out of range")),
            },
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visitor.visit_seq(SeqDe {
                items: items.iter(),
                index: 0,
                path: &path,
            }),
            Value::Object(map) => {
                let last_key = Cell::new(None);
                collect::enter_map();
                let result = visitor.visit_map(MapDe {
                    entries: map.iter(),
                    value: None,
                    path: &path,
                    last_key: &last_key,
                });
                collect::leave_map(result.is_ok(), || path.render());
                return result.map_err(|e| locate(&path, e, last_key.get()));
            }
        };
        result.map_err(|e| locate(&path, e, None))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct SeqDe<'a, 'p> {
    items: std::slice::Iter<'a, Value>,
    index: usize,
    path: &'p Path<'p>,
}

impl<'de> SeqAccess<'de> for SeqDe<'_, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(value) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(self.path, self.index);
        self.index += 1;
        seed.deserialize(ValueDe { value, path }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a, 'p> {
    entries: serde_json::map::Iter<'a>,
    value: Option<(&'a Value, &'a str)>,
    path: &'p Path<'p>,
    /// The key read last, where an error about a key (unknown, duplicate) is located.
    last_key: &'p Cell<Option<&'a str>>,
}

impl<'de> MapAccess<'de> for MapDe<'_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.last_key.set(Some(key.as_str()));
        self.value = Some((value, key.as_str()));
        let de: de::value::StrDeserializer<'_, DeError> = key.as_str().into_deserializer();
        seed.deserialize(de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((value, key)) = self.value.take() else {
            return Err(de::Error::custom("value requested before its key"));
        };
        let path = Path::Key(self.path, key);
        seed.deserialize(ValueDe { value, path }).map_err(|mut e| {
            // The path is written out only on failure.
            let path = path.render();
            if e.located.is_none() {
                e.located = Some((path.clone(), None));
            }
            if collect::collecting() {
                let fresh = (!e.recorded).then(|| e.to_parse_error());
                e.recorded = true;
                collect::record(fresh, &path);
            }
            e
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
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
