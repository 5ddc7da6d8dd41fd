//! `parse` (SDK §3.1): strict YAML 1.2 → [`Document`].

use std::sync::Arc;

use serde::Deserialize;

use crate::de::TreeDe;
use crate::error::ParseError;
use crate::parse_errors::ParseErrors;
use crate::span::SpanIndex;
use crate::types::Document;
use crate::yaml::node::{self, Limits};

/// Limits applied while reading YAML.
///
/// ```
/// let options = oatf_model::ParseOptions::default().max_input_bytes(1024);
/// assert!(oatf_model::parse_with(&"#".repeat(2048), &options).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    max_input_bytes: usize,
    max_depth: usize,
    max_nodes: usize,
}

impl ParseOptions {
    /// The default input size limit: 10 MiB.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 10 * 1024 * 1024;
    /// The default nesting limit: 128 levels.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
    /// The default node budget: 1,000,000 YAML nodes (scalars, mappings, sequences and aliases), the
    /// event budget serde-saphyr uses by default.
    pub const DEFAULT_MAX_NODES: usize = 1_000_000;

    /// Sets the largest accepted input, in bytes.
    #[must_use]
    pub fn max_input_bytes(mut self, bytes: usize) -> Self {
        self.max_input_bytes = bytes;
        self
    }

    /// Sets the deepest accepted nesting of mappings and sequences (at most 1024).
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth.min(1024);
        self
    }

    /// Sets the most YAML nodes (scalars, mappings, sequences and aliases, keys included) a document
    /// may have. Each node costs a tree node and a path index entry, so this bounds the memory of a
    /// parse whatever the input looks like.
    #[must_use]
    pub fn max_nodes(mut self, nodes: usize) -> Self {
        self.max_nodes = nodes;
        self
    }
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_input_bytes: Self::DEFAULT_MAX_INPUT_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_nodes: Self::DEFAULT_MAX_NODES,
        }
    }
}

/// Parses a YAML string into an unvalidated [`Document`] (SDK §3.1) with the default [`ParseOptions`].
///
/// Fails for invalid YAML, an empty input, more than one document, a root that is not a mapping,
/// scalars of the wrong type, unknown non-`x-` keys, and the constructs of V-020 (anchors, aliases,
/// merge keys, custom tags), which are reported with `rule() == Some("V-020")` beside any other error
/// (spec-decisions 1, 6). Everything else, including missing `oatf`/`attack`/`execution` and unknown
/// values of closed enumerations, is left to [`validate`](crate::validate).
///
/// Every unknown key and value of the wrong type is reported in one run, each with its path, line and
/// column: the field is left out and reading goes on. The error keeps what could be read
/// ([`ParseErrors::partial_document`]) and validates it ([`ParseErrors::validate_rest`]), so a user
/// sees the `V-` findings of the rest of the document beside the parse errors.
///
/// ```
/// let document = oatf_model::parse("oatf: \"0.1\"\nattack:\n  severity: extreme\n")?;
/// assert_eq!(document.attack.and_then(|a| a.severity).map(|s| s.level().as_str().to_owned()),
///            Some("extreme".to_owned()));
/// # Ok::<(), oatf_model::ParseErrors>(())
/// ```
pub fn parse(input: &str) -> Result<Document, ParseErrors> {
    parse_with(input, &ParseOptions::default())
}

/// [`parse`] with explicit limits.
pub fn parse_with(input: &str, options: &ParseOptions) -> Result<Document, ParseErrors> {
    let read = node::read(
        input,
        Limits {
            max_input_bytes: options.max_input_bytes,
            max_depth: options.max_depth,
            max_nodes: options.max_nodes,
        },
    );
    let mut errors = read.errors;
    let mut document = None;
    let mut dropped = Vec::new();
    // A syntax failure leaves no tree; V-020 findings alone still let us look for other errors.
    if let Some(mut root) = read.root
        && errors.iter().all(|e| e.rule.is_some())
    {
        // The strings of the tree move into the document; the keys and locations stay, as the
        // document's span index.
        let (read, collected, left_out) =
            crate::de::collect_document(|| Document::deserialize(TreeDe::root(&mut root)));
        errors.extend(collected);
        if let Some(mut doc) = read {
            doc.source.spans = Some(Arc::new(SpanIndex::new(root)));
            document = Some(doc);
            dropped = left_out;
        }
    }
    if errors.is_empty()
        && let Some(doc) = document
    {
        return Ok(doc);
    }
    sort_errors(&mut errors);
    let errors = match document {
        Some(partial) => ParseErrors::with_partial(errors, partial, dropped),
        None => ParseErrors::new(errors),
    };
    Err(errors.unwrap_or_else(|| {
        ParseErrors::single(ParseError::new(
            crate::error::ParseErrorKind::Syntax,
            "the input could not be parsed",
        ))
    }))
}

/// Parses YAML bytes into an unvalidated [`Document`] with the default [`ParseOptions`]: [`parse`] for
/// input read from a file or the network.
///
/// The size limit is checked before anything else; bytes that are not UTF-8 are a syntax error that
/// says where the first invalid byte is (byte offset, line and column). A byte order mark at the start
/// is accepted (YAML 1.2 §5.2 allows one at the start of a stream).
///
/// ```
/// let errors = oatf_model::parse_bytes(b"oatf: \"0.1\"\nattack:\n  name: caf\xe9\n").unwrap_err();
/// assert_eq!(errors.first().and_then(|e| e.line()), Some(3));
/// assert!(errors.first().is_some_and(|e| e.message().contains("byte 31")));
/// ```
pub fn parse_bytes(input: &[u8]) -> Result<Document, ParseErrors> {
    parse_bytes_with(input, &ParseOptions::default())
}

/// [`parse_bytes`] with explicit limits.
pub fn parse_bytes_with(input: &[u8], options: &ParseOptions) -> Result<Document, ParseErrors> {
    if input.len() > options.max_input_bytes {
        return Err(ParseErrors::single(node::too_large(
            input.len(),
            options.max_input_bytes,
        )));
    }
    match std::str::from_utf8(input) {
        Ok(text) => parse_with(text, options),
        Err(error) => Err(ParseErrors::single(invalid_utf8(input, &error))),
    }
}

/// The error for bytes that are not UTF-8, located at the first invalid byte.
fn invalid_utf8(input: &[u8], error: &std::str::Utf8Error) -> ParseError {
    let offset = error.valid_up_to();
    let valid = String::from_utf8_lossy(&input[..offset]);
    let line = valid.matches('\n').count() + 1;
    let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let bad = input.get(offset).copied().unwrap_or_default();
    let mut e = ParseError::new(
        crate::error::ParseErrorKind::Syntax,
        format!("the input is not valid utf-8: invalid byte 0x{bad:02x} at byte {offset}"),
    );
    e.line = Some(line);
    e.column = Some(column);
    e.span = Some(offset..offset + error.error_len().unwrap_or(input.len() - offset));
    e
}

fn sort_errors(errors: &mut [ParseError]) {
    errors.sort_by_key(|e| {
        (
            e.span.as_ref().map_or(usize::MAX, |s| s.start),
            e.rule.is_none(),
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `input` and renders the outcome as one line per error (`rule|kind|path|line:col`) or
    /// `ok <json>`.
    #[track_caller]
    fn check(input: &str, expect: &str) {
        let actual = match parse(input) {
            Ok(doc) => format!("ok {}", serde_json::to_string(&doc).unwrap_or_default()),
            Err(errors) => errors
                .iter()
                .map(|e| {
                    format!(
                        "{}|{}|{}|{}:{}|{}",
                        e.rule().unwrap_or("-"),
                        e.kind(),
                        e.path().unwrap_or("-"),
                        e.line().unwrap_or(0),
                        e.column().unwrap_or(0),
                        e.message()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
        };
        assert_eq!(actual, expect, "input:\n{input}");
    }

    #[test]
    fn node_budget_counts_every_node() {
        // root, `a`, the sequence and its three items: 6 nodes.
        let options = ParseOptions::default().max_nodes(6);
        let within = parse_with("a: [1, 2, 3]\n", &options).err();
        assert!(
            within
                .iter()
                .flatten()
                .all(|e| !e.message().contains("yaml nodes")),
            "{within:?}"
        );
        let errors = parse_with("a: [1, 2, 3, 4]\n", &options).err();
        let first = errors.as_ref().and_then(|e| e.first());
        assert_eq!(
            first.map(ParseError::message),
            Some("the document has more than the limit of 6 yaml nodes")
        );
        assert_eq!(first.and_then(ParseError::path), Some("a"));
    }

    #[test]
    fn parse_bytes_checks_size_first_then_utf8() {
        let options = ParseOptions::default().max_input_bytes(4);
        let errors = parse_bytes_with(b"\xff\xff\xff\xff\xff", &options).err();
        assert_eq!(
            errors
                .as_ref()
                .and_then(|e| e.first())
                .map(ParseError::message),
            Some("input is 5 bytes, more than the limit of 4 bytes")
        );
        let errors = parse_bytes(b"a: 1\nb: \xc3\x28\n").err();
        let first = errors.as_ref().and_then(|e| e.first());
        assert_eq!(
            first.map(|e| (e.line(), e.column(), e.span())),
            Some((Some(2), Some(4), Some(8..9)))
        );
        // A truncated sequence at the very end.
        let errors = parse_bytes(b"a: \xe2\x82").err();
        let first = errors.as_ref().and_then(|e| e.first());
        assert_eq!(first.and_then(ParseError::span), Some(3..5));
    }

    #[test]
    fn duplicate_keys_in_small_and_large_mappings() {
        check("a: 1\nb: 2\na: 3\n", "-|syntax|a|3:1|duplicate key `a`");
        // Past the first keys of a mapping the check goes through a hash set: a duplicate of an
        // early key and one of a late key are both found, at their own line.
        let mut input = String::from("m:\n");
        for i in 0..40 {
            input.push_str(&format!("  k{i}: {i}\n"));
        }
        input.push_str("  k3: again\n  k39: again\n  k40: new\n");
        check(
            &input,
            "-|syntax|m.k3|42:3|duplicate key `k3`\n-|syntax|m.k39|43:3|duplicate key `k39`",
        );
    }

    #[test]
    fn source_spans_by_dot_path() {
        let prefix = "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state:\n";
        let span_of = |body: &str, path: &str, text: &str| {
            let input = format!("{prefix}{body}");
            let document = parse(&input).expect("a document that parses");
            let start = input.rfind(text).expect("the text in the input");
            (document.source_span(path), start..start + text.len())
        };
        // A nested key and a key holding a dot write the same path: the node read first keeps it.
        let (found, expected) = span_of(
            "      a:\n        b: first\n      a.b: second\n",
            "attack.execution.state.a.b",
            "first",
        );
        assert_eq!(found, Some(expected));
        let (found, expected) = span_of(
            "      a.b: first\n      a:\n        b: second\n",
            "attack.execution.state.a.b",
            "first",
        );
        assert_eq!(found, Some(expected));
        // Sequence items, and the nearest located ancestor of a path that is not in the source.
        let (found, expected) = span_of(
            "      tools: [{name: x}, {name: y}]\n",
            "attack.execution.state.tools[1].name",
            "y",
        );
        assert_eq!(found, Some(expected));
        let (found, expected) = span_of(
            "      tools: [{name: x}, {name: y}]\n",
            "attack.execution.state.tools[1].description",
            "{name: y}",
        );
        assert_eq!(found, Some(expected));
    }

    #[test]
    fn minimal() {
        check(
            "oatf: \"0.1\"\nattack:\n  severity: high\n  execution:\n    mode: mcp_server\n    state: {tools: []}\n",
            r#"ok {"oatf":"0.1","attack":{"severity":"high","execution":{"mode":"mcp_server","state":{"tools":[]}}}}"#,
        );
    }

    #[test]
    fn strict_scalars() {
        check(
            "oatf: \"0.1\"\nattack:\n  x-a: [yes, no, on, off, 012, 0x1F, 1.0, 1e3, ~, True, 1_000, .inf, -5]\n",
            r#"ok {"oatf":"0.1","attack":{"x-a":["yes","no","on","off","012",31,1.0,1000.0,null,true,"1_000",".inf",-5]}}"#,
        );
    }

    #[test]
    fn unknown_key_and_type_mismatch() {
        check(
            "oatf: \"0.1\"\nattack:\n  bogus: 1\n",
            "-|type_mismatch|attack.bogus|3:3|unknown field `bogus`; expected one of id, name, version, status, created, modified, author, description, grace_period, severity, impact, classification, references, execution, indicators, correlation",
        );
        check(
            "oatf: \"0.1\"\nattack:\n  version: \"2\"\n",
            "-|type_mismatch|attack.version|3:12|expected an integer, found the string \"2\"",
        );
        check(
            "oatf: \"0.1\"\nattack:\n  descripton: x\n",
            "-|type_mismatch|attack.descripton|3:3|unknown field `descripton`; did you mean `description`? expected one of id, name, version, status, created, modified, author, description, grace_period, severity, impact, classification, references, execution, indicators, correlation",
        );
        check(
            "oatf: \"0.1\"\nattack:\n  name: [a]\n  severity: {level: high, confidence: true}\n  references: [{url: 5}]\n",
            "-|type_mismatch|attack.name|3:9|expected a string, found a list\n\
             -|type_mismatch|attack.severity.confidence|4:39|expected an integer, found the boolean true\n\
             -|type_mismatch|attack.references[0].url|5:22|expected a string, found the integer 5",
        );
    }

    #[test]
    fn a_node_of_another_kind_than_asked_names_what_it_is() {
        // Mappings, lists and strings asked for and given something else: the deserializer answers
        // these itself, with the words serde's visitors would use (D-220).
        check(
            "oatf: \"0.1\"\nattack:\n  status: 5\n  classification: text\n  references: {url: x}\n  execution: 5\n  indicators:\n    - target: [a]\n      pattern: 1.5\n      protocol: ~\n      surface: true\n",
            "-|type_mismatch|attack.status|3:11|expected a status string, found the integer 5\n\
             -|type_mismatch|attack.classification|4:19|expected a classification mapping, found the string \"text\"\n\
             -|type_mismatch|attack.references|5:15|expected a list, found a mapping\n\
             -|type_mismatch|attack.execution|6:14|expected an execution mapping, found the integer 5\n\
             -|type_mismatch|attack.indicators[0].target|8:15|expected a string, found a list\n\
             -|type_mismatch|attack.indicators[0].pattern|9:16|expected a pattern mapping, found the number 1.5\n\
             -|type_mismatch|attack.indicators[0].surface|11:16|expected a string, found the boolean true",
        );
    }

    #[test]
    fn every_error_of_a_document_at_once() {
        // Unknown keys at three depths, type mismatches in a struct, in a list and at the root: each
        // is reported and left out, and reading goes on (D-67).
        check(
            "oatf: 0.1\nbogus: 1\nattack:\n  nme: x\n  version: high\n  execution:\n    mode: mcp_server\n    state: {}\n    phases:\n      - name: p\n        triger: {event: x}\n  indicators:\n    - target: t\n      pattern: {contains: x, regx: y}\n      confidence: \"high\"\n",
            "V-001|type_mismatch|oatf|1:7|expected a string, found the number 0.1\n\
             -|type_mismatch|bogus|2:1|unknown field `bogus`; expected one of oatf, $schema, attack\n\
             -|type_mismatch|attack.nme|4:3|unknown field `nme`; did you mean `name`? expected one of id, name, version, status, created, modified, author, description, grace_period, severity, impact, classification, references, execution, indicators, correlation\n\
             -|type_mismatch|attack.version|5:12|expected an integer, found the string \"high\"\n\
             -|type_mismatch|attack.execution.phases[0].triger|11:9|unknown field `triger`; did you mean `trigger`? expected one of name, description, mode, state, extractors, on_enter, trigger\n\
             -|type_mismatch|attack.indicators[0].pattern.regx|14:30|unknown field `regx`; did you mean `regex`? expected one of target, condition, contains, starts_with, ends_with, regex, any_of, gt, lt, gte, lte, exists\n\
             -|type_mismatch|attack.indicators[0].confidence|15:19|expected an integer, found the string \"high\"",
        );
    }

    /// The four kinds of mistake of D-67 in one document: an unknown key, a type mismatch, a
    /// missing required field and a V- rule. One run reports all four, each where it is.
    #[test]
    fn four_mistakes_in_one_run() {
        let input = "oatf: \"0.1\"
attack:
  descripton: Tool poisoning
  severity:
    level: high
    confidence: \"high\"
  execution:
    actors:
      - name: server
        mode: mcp_server
        phases:
          - state: {tools: []}
      - name: client
        phases:
          - state: {}
  indicators:
    - actor: sever
      protocol: mcp
      target: content
      pattern: {contains: secret}
";
        let errors = match parse(input) {
            Ok(doc) => panic!("parsed: {doc:?}"),
            Err(errors) => errors,
        };
        let rest = errors.validate_rest(&crate::validate::ValidateOptions::default());
        let mut lines: Vec<String> = errors
            .iter()
            .map(|e| {
                format!(
                    "{}|{}|{}:{}|{}",
                    e.kind(),
                    e.path().unwrap_or("-"),
                    e.line().unwrap_or(0),
                    e.column().unwrap_or(0),
                    e.message()
                )
            })
            .collect();
        lines.extend(rest.errors().iter().map(|e| {
            let at = e.location().map_or((0, 0), |l| (l.line, l.column));
            format!(
                "{}|{}|{}:{}|{}",
                e.rule(),
                e.path(),
                at.0,
                at.1,
                e.message()
            )
        }));
        assert_eq!(
            lines,
            [
                "type_mismatch|attack.descripton|3:3|unknown field `descripton`; did you mean `description`? expected one of id, name, version, status, created, modified, author, description, grace_period, severity, impact, classification, references, execution, indicators, correlation",
                "type_mismatch|attack.severity.confidence|6:17|expected an integer, found the string \"high\"",
                "V-031|attack.execution.actors[1].mode|13:9|required field `mode` is missing",
                "V-048|attack.indicators[0].actor|17:14|indicator references unknown actor `sever`; did you mean `server`? the document's actors are `server`, `client`",
            ]
        );
    }

    /// The rules `validate_rest` reports for `input` (which must fail to parse).
    #[track_caller]
    fn check_rest(input: &str, expect: &[&str]) {
        let errors = match parse(input) {
            Ok(doc) => panic!("parsed: {doc:?}"),
            Err(errors) => errors,
        };
        let rest = errors.validate_rest(&crate::validate::ValidateOptions::default());
        let found: Vec<String> = rest
            .errors()
            .iter()
            .map(|e| format!("{} {}", e.rule(), e.path()))
            .chain(
                rest.warnings()
                    .iter()
                    .map(|w| format!("{} {}", w.code(), w.path().unwrap_or("-"))),
            )
            .collect();
        assert_eq!(found, expect, "input:\n{input}");
    }

    #[test]
    fn what_a_faulty_field_explains_is_not_reported_again() {
        const STATE: &str = "    mode: mcp_server\n    state: {tools: []}\n";
        // `execution` of the wrong type: no V-004 "missing execution" beside the type mismatch.
        check_rest("oatf: \"0.1\"\nattack:\n  execution: 5\n", &[]);
        // A `pattern` of the wrong type: no V-012 "no detection key" at the indicator holding it,
        // but V-013 in the next indicator is still reported.
        check_rest(
            &format!(
                "oatf: \"0.1\"\nattack:\n  execution:\n{STATE}  indicators:\n    - target: content\n      pattern: 5\n    - target: content\n      pattern: {{regex: \"(\"}}\n"
            ),
            &["V-013 attack.indicators[1].pattern.regex"],
        );
        // A required field of the wrong type is not also missing (V-031).
        check_rest(
            "oatf: \"0.1\"\nattack:\n  execution:\n    actors:\n      - name: a\n        mode: [mcp_server]\n        phases: [{state: {}}]\n",
            &[],
        );
        // An unknown key leaves its siblings checked.
        check_rest(
            &format!("oatf: \"0.1\"\nattack:\n  bogus: 1\n  version: 0\n  execution:\n{STATE}"),
            &["V-035 attack.version"],
        );
    }

    #[test]
    fn errors_are_bounded() {
        let mut input = String::from("oatf: \"0.1\"\nattack:\n");
        for i in 0..1000 {
            input.push_str(&format!("  k{i}: 1\n"));
        }
        let errors = parse(&input).err();
        let errors = errors.as_ref().map_or(&[][..], |e| e.as_slice());
        assert_eq!(errors.len(), crate::types::collect::MAX_ERRORS + 1);
        assert_eq!(
            errors.last().map(ParseError::message),
            Some("900 more errors of the same kinds after the first 100")
        );
    }

    #[test]
    fn partial_document_keeps_what_parsed() {
        let errors =
            match parse("oatf: \"0.1\"\nattack:\n  name: ok\n  version: high\n  bogus: 1\n") {
                Ok(doc) => panic!("parsed: {doc:?}"),
                Err(errors) => errors,
            };
        let attack = errors.partial_document().and_then(|d| d.attack.as_ref());
        assert_eq!(attack.and_then(|a| a.name.as_deref()), Some("ok"));
        assert_eq!(attack.map(|a| a.version), Some(None));
        // A syntax error leaves nothing to validate.
        let syntax = parse("a: [\n").err();
        assert!(
            syntax
                .as_ref()
                .is_some_and(|e| e.partial_document().is_none())
        );
    }

    #[test]
    fn anchors_reported_beside_other_errors() {
        check(
            "oatf: \"0.1\"\nattack:\n  name: &n x\n  author: *n\n  bogus: 1\n",
            "V-020|syntax|attack.name|3:12|yaml anchors are not allowed in oatf documents\n\
             V-020|syntax|attack.author|4:11|yaml aliases are not allowed in oatf documents\n\
             -|type_mismatch|attack.bogus|5:3|unknown field `bogus`; expected one of id, name, version, status, created, modified, author, description, grace_period, severity, impact, classification, references, execution, indicators, correlation",
        );
    }

    #[test]
    fn document_level_failures() {
        check("", "-|syntax|-|0:0|the input contains no yaml document");
        check(
            "a: 1\n---\nb: 2\n",
            "-|syntax|-|2:1|more than one yaml document in the input",
        );
        check(
            "- 1\n",
            "-|type_mismatch||1:1|the document root must be a mapping, found a sequence",
        );
        check("a: 1\na: 2\n", "-|syntax|a|2:1|duplicate key `a`");
    }
}
