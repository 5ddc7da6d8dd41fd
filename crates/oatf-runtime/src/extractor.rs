//! Value extraction (SDK §5.6, format §5.5): `evaluate_extractor` and its compiled form.

use oatf_model::{Extractor, ExtractorSource, ExtractorType};
use oatf_primitives::RegexLimits;
use regex::Regex;
use serde_json::Value;
use serde_json_path::JsonPath;

use crate::error::{CompileError, CompileErrorKind};

/// An extractor compiled once (JSONPath parsed or regex built) and applied to many messages.
///
/// ```
/// use oatf_runtime::{CompiledExtractor, Extractor, ExtractorSource};
/// use serde_json::json;
///
/// let extractor: Extractor = serde_json::from_value(json!({
///     "name": "command", "source": "request", "type": "json_path", "selector": "$.arguments.command",
/// }))?;
/// let extractor = CompiledExtractor::new(&extractor)?;
/// let request = json!({"name": "exec", "arguments": {"command": "id"}});
/// assert_eq!(extractor.evaluate(&request, ExtractorSource::Request).as_deref(), Some("id"));
/// assert_eq!(extractor.evaluate(&request, ExtractorSource::Response), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CompiledExtractor {
    name: Box<str>,
    source: ExtractorSource,
    selector: Selector,
    max_input_len: usize,
}

#[derive(Clone, Debug)]
enum Selector {
    /// The query, and its shape as far as its worst-case work goes (see [`query_work`]).
    JsonPath(JsonPath, QueryShape),
    Regex(Regex),
}

/// The deepest message a JSONPath query with a descendant segment (`$..x`) runs on: serde_json_path
/// walks descendants recursively, so a hand-built message thousands of levels deep would overflow the
/// stack. 128 is as deep as serde_json and the YAML reader nest by default.
pub const MAX_DESCENDANT_QUERY_DEPTH: usize = 128;

/// The most work one JSONPath extractor query may do on one message, in nodes (see
/// [`CompiledExtractor::extract`]): a query whose worst case is larger captures nothing.
///
/// serde_json_path builds every node a query selects before the first is taken, and a query with
/// several descendant segments (`$..*..*..*`) selects each node once per ancestor per segment: on a
/// deep message that is billions of nodes (40 s and 2 GB measured). The bound is checked before the
/// query runs, so the work and memory of one query stay below it (10,000,000 node references, 80 MB).
pub const MAX_JSONPATH_WORK: u64 = 10_000_000;

/// What of a query's text bounds its work: the number of descendant segments (`..`) and of
/// selector lists (`,`), each counted wherever it appears (in a filter too), an over-estimate.
#[derive(Clone, Copy, Debug)]
struct QueryShape {
    descendants: u32,
    commas: u32,
}

impl QueryShape {
    fn of(query: &str) -> Self {
        QueryShape {
            descendants: u32::try_from(query.matches("..").count()).unwrap_or(u32::MAX),
            commas: u32::try_from(query.matches(',').count()).unwrap_or(u32::MAX),
        }
    }
}

/// An upper bound of the node references a query of `shape` builds on `value`, saturating: each
/// segment selects at most every node below the current ones (a descendant segment once per
/// ancestor, so up to `depth` times), and a selector list multiplies by its length (counted as 2
/// per comma). The walk stops as soon as the bound is over `limit`.
fn query_work(value: &Value, shape: QueryShape, limit: u64) -> u64 {
    if shape.descendants == 0 && shape.commas == 0 {
        // Child segments with one selector each select at most one node per node: linear.
        return 0;
    }
    let mut nodes = 0u64;
    let mut depth = 0u64;
    let mut stack = vec![(value, 1u64)];
    let factor = |nodes: u64, depth: u64| {
        let mut work = nodes;
        for _ in 1..shape.descendants.min(64) {
            work = work.saturating_mul(depth.max(1));
        }
        for _ in 0..shape.commas.min(64) {
            work = work.saturating_mul(2);
        }
        work
    };
    while let Some((value, level)) = stack.pop() {
        nodes += 1;
        depth = depth.max(level);
        if nodes.is_multiple_of(1024) && factor(nodes, depth) > limit {
            return factor(nodes, depth);
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    factor(nodes, depth)
}

/// Whether `value` nests deeper than `limit` levels (the value itself is level 0), without recursion.
fn deeper_than(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    false
}

impl CompiledExtractor {
    /// Compiles `extractor` with the default [`RegexLimits`].
    pub fn new(extractor: &Extractor) -> Result<Self, CompileError> {
        Self::with_limits(extractor, &RegexLimits::default())
    }

    /// Compiles `extractor` with explicit regex limits.
    pub fn with_limits(extractor: &Extractor, limits: &RegexLimits) -> Result<Self, CompileError> {
        let unknown = |e: oatf_model::UnknownVariant| {
            CompileError::new(CompileErrorKind::UnknownVariant, e.to_string())
        };
        let source = extractor.source.to_known().map_err(unknown)?;
        let selector = match extractor.kind.to_known().map_err(unknown)? {
            ExtractorType::JsonPath => JsonPath::parse(&extractor.selector)
                .map(|path| Selector::JsonPath(path, QueryShape::of(&extractor.selector)))
                .map_err(|e| {
                    CompileError::new(
                        CompileErrorKind::InvalidJsonPath,
                        format!("invalid JSONPath {:?}: {e}", extractor.selector),
                    )
                })?,
            ExtractorType::Regex => limits
                .compile(&extractor.selector)
                .map(Selector::Regex)
                .map_err(|e| CompileError::from_condition(&e, "invalid extractor selector"))?,
        };
        Ok(CompiledExtractor {
            name: extractor.name.as_str().into(),
            source,
            selector,
            max_input_len: limits.max_input_len,
        })
    }

    /// The variable name the value is stored under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The message direction the extractor reads.
    pub fn source(&self) -> ExtractorSource {
        self.source
    }

    /// Applies the extractor to `message` of direction `direction` (SDK §5.6): `None` when the
    /// directions differ or nothing matched; see [`CompiledExtractor::extract`].
    pub fn evaluate(&self, message: &Value, direction: ExtractorSource) -> Option<String> {
        if self.source != direction {
            return None;
        }
        self.extract(message)
    }

    /// Applies the extractor to `message` whatever its direction.
    ///
    /// - `json_path`: the first node in document order; a string as is, any other value as compact
    ///   JSON with object keys in document order (spec-decisions 13). `None` when no node matches,
    ///   and for a query with a descendant segment (`$..x`) on a message nested deeper than
    ///   [`MAX_DESCENDANT_QUERY_DEPTH`] levels or whose worst-case work on this message is more
    ///   than [`MAX_JSONPATH_WORK`] nodes (message nodes × depth for each descendant segment after
    ///   the first × 2 for each `,`); the work is checked before the query runs.
    /// - `regex`: the first capture group of the first match in the message's text (a string message
    ///   as is, any other as compact JSON in document order). `None` when the regex does not match,
    ///   the group did not take part in the match, or the text is longer than
    ///   [`RegexLimits::max_input_len`].
    pub fn extract(&self, message: &Value) -> Option<String> {
        match &self.selector {
            Selector::JsonPath(_, shape)
                if shape.descendants > 0 && deeper_than(message, MAX_DESCENDANT_QUERY_DEPTH) =>
            {
                None
            }
            Selector::JsonPath(_, shape)
                if query_work(message, *shape, MAX_JSONPATH_WORK) > MAX_JSONPATH_WORK =>
            {
                None
            }
            Selector::JsonPath(path, _) => path.query(message).first().map(|node| match node {
                Value::String(s) => s.clone(),
                other => compact(other),
            }),
            Selector::Regex(regex) => {
                let owned;
                let text = match message {
                    Value::String(s) => s.as_str(),
                    other => {
                        owned = compact(other);
                        owned.as_str()
                    }
                };
                if text.len() > self.max_input_len {
                    return None;
                }
                let group = regex.captures(text)?.get(1)?;
                Some(group.as_str().to_owned())
            }
        }
    }
}

/// Compact JSON in document (insertion) order, with bounded recursion.
fn compact(value: &Value) -> String {
    oatf_internal::json::to_compact_json(value)
}

/// Applies `extractor` to `message` of direction `direction` (SDK §5.6).
///
/// A convenience that compiles on every call; an extractor that does not compile (an unknown
/// `source` or `type`, an invalid selector) captures nothing. Compile once with
/// [`CompiledExtractor`] to apply it to many messages.
pub fn evaluate_extractor(
    extractor: &Extractor,
    message: &Value,
    direction: ExtractorSource,
) -> Option<String> {
    if extractor.source != direction {
        return None;
    }
    CompiledExtractor::new(extractor).ok()?.extract(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendant_queries_skip_messages_deeper_than_the_limit() {
        let nest = |levels: usize| {
            let mut value = serde_json::json!({"k": "found"});
            for _ in 0..levels {
                value = Value::Array(vec![value]);
            }
            value
        };
        let extractor: Extractor = serde_json::from_value(serde_json::json!({
            "name": "k", "source": "request", "type": "json_path", "selector": "$..k",
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let compiled = CompiledExtractor::new(&extractor).unwrap_or_else(|e| panic!("{e}"));
        // `"found"` is at level 128 under 127 arrays and one object: within the limit.
        assert_eq!(compiled.extract(&nest(127)).as_deref(), Some("found"));
        assert_eq!(compiled.extract(&nest(128)), None);
        assert!(!deeper_than(&serde_json::json!(1), 0));
        assert!(deeper_than(&serde_json::json!([1]), 0));
    }

    fn compiled(selector: &str) -> CompiledExtractor {
        let extractor: Extractor = serde_json::from_value(serde_json::json!({
            "name": "k", "source": "request", "type": "json_path", "selector": selector,
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        CompiledExtractor::new(&extractor).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A chain `{"k": {"k": … {"k": "leaf"}}}` of `levels` objects, `width` siblings at each level.
    fn deep(levels: usize, width: usize) -> Value {
        let mut value = serde_json::json!("leaf");
        for _ in 0..levels {
            let mut map = serde_json::Map::new();
            for i in 0..width {
                map.insert(format!("s{i}"), Value::from(i));
            }
            map.insert("k".to_owned(), value);
            value = Value::Object(map);
        }
        value
    }

    #[test]
    fn queries_whose_work_is_over_the_bound_capture_nothing_quickly() {
        let message = deep(120, 100);
        let started = std::time::Instant::now();
        // Each of these builds billions of nodes unbounded.
        for selector in [
            "$..*..*..*",
            "$..*..*..*..*",
            "$..[*,*]..[*,*]..[*,*]",
            "$..*..[?@..*..*]",
        ] {
            assert_eq!(compiled(selector).extract(&message), None, "{selector}");
        }
        // One descendant segment is linear: still answered.
        assert_eq!(compiled("$..k.s7").extract(&message).as_deref(), Some("7"));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        // Under the bound, several descendant segments still work.
        let small = deep(5, 2);
        assert_eq!(compiled("$..k..k.s1").extract(&small).as_deref(), Some("1"));
        assert_eq!(compiled("$..*..*..*").extract(&small).as_deref(), Some("0"));
    }

    #[test]
    fn the_work_estimate_bounds_the_real_result_count() {
        let shape = QueryShape::of("$..*..*");
        let message = deep(10, 3);
        let path = JsonPath::parse("$..*..*").unwrap_or_else(|e| panic!("{e}"));
        let real = path.query(&message).all().len() as u64;
        assert!(query_work(&message, shape, u64::MAX) >= real);
        assert!(!deeper_than(&serde_json::json!(1), 0));
        assert!(deeper_than(&serde_json::json!([1]), 0));
    }
    use serde_json::json;

    #[track_caller]
    fn check(kind: &str, selector: &str, message: Value, expect: Option<&str>) {
        let extractor: Extractor = serde_json::from_value(json!({
            "name": "x", "source": "response", "type": kind, "selector": selector,
        }))
        .unwrap();
        let actual = evaluate_extractor(&extractor, &message, ExtractorSource::Response);
        assert_eq!(
            actual.as_deref(),
            expect,
            "{kind} {selector:?} on {message}"
        );
        let request = evaluate_extractor(&extractor, &message, ExtractorSource::Request);
        assert_eq!(request, None);
    }

    #[test]
    fn json_path() {
        check(
            "json_path",
            "$.a[*].b",
            json!({"a": [{"b": "1"}, {"b": "2"}]}),
            Some("1"),
        );
        check(
            "json_path",
            "$.o",
            json!({"o": {"z": 1, "a": [null, 1.5]}}),
            Some(r#"{"z":1,"a":[null,1.5]}"#),
        );
        check("json_path", "$.s", json!({"s": ""}), Some(""));
        check("json_path", "$.n", json!({"n": false}), Some("false"));
        check("json_path", "$.missing", json!({}), None);
        check("json_path", "$[", json!({}), None);
    }

    #[test]
    fn regex() {
        check("regex", "id=([0-9]+)", json!("id=1 id=2"), Some("1"));
        check("regex", "k=([a-z]*);", json!("k=;"), Some(""));
        check(
            "regex",
            r#""b":"([^"]*)""#,
            json!({"b": "x", "a": 1}),
            Some("x"),
        );
        check("regex", r#"^\{"(\w)""#, json!({"b": 1, "a": 1}), Some("b"));
        check("regex", "(a)?b", json!("b"), None);
        check("regex", "no group", json!("no group"), None);
        check("regex", "nothing (here)", json!("text"), None);
        check("regex", "(", json!("("), None);
    }

    #[test]
    fn unknown_enumeration_values_do_not_compile() {
        let extractor: Extractor = serde_json::from_value(json!({
            "name": "x", "source": "sideways", "type": "regex", "selector": "(a)",
        }))
        .unwrap();
        let error = CompiledExtractor::new(&extractor).unwrap_err();
        assert_eq!(error.kind(), CompileErrorKind::UnknownVariant);
        assert_eq!(
            evaluate_extractor(&extractor, &json!("a"), ExtractorSource::Request),
            None
        );
    }
}
