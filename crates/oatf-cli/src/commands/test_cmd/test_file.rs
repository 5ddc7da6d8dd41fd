//! The test file format of `oatf test` (`NAME.test.yaml`, described in `docs/test-files.md`): its
//! cases, their messages or traces and what each expects, read with every problem located.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use oatf::{AttackResult, IndicatorResult, Tier, TraceMessage};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_saphyr::Spanned;

use crate::input::library::Problem;

/// The largest test file read (the same bound as documents).
const MAX_TEST_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// The cases of a test file: a list of cases, or a mapping with `cases:`.
#[derive(Debug, Default)]
pub(crate) struct TestFile {
    pub(crate) cases: Vec<Spanned<Case>>,
}

impl<'de> Deserialize<'de> for TestFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FileVisitor;
        impl<'de> Visitor<'de> for FileVisitor {
            type Value = TestFile;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of test cases or a mapping with `cases`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TestFile, A::Error> {
                let mut cases = Vec::new();
                while let Some(case) = seq.next_element()? {
                    cases.push(case);
                }
                Ok(TestFile { cases })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TestFile, A::Error> {
                let mut cases = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "cases" if cases.is_none() => cases = Some(map.next_value()?),
                        "cases" => return Err(de::Error::duplicate_field("cases")),
                        _ => return Err(de::Error::unknown_field(&key, &["cases"])),
                    }
                }
                cases
                    .map(|cases| TestFile { cases })
                    .ok_or_else(|| de::Error::missing_field("cases"))
            }
        }
        deserializer.deserialize_any(FileVisitor)
    }
}

/// One test case.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    pub(crate) name: String,
    /// For the reader of the test file only.
    #[serde(default, rename = "description")]
    _description: Option<String>,
    /// One message as input.
    #[serde(default)]
    pub(crate) message: Option<CaseMessage>,
    /// A trace as input: inline messages or a JSONL file relative to the test file.
    #[serde(default)]
    pub(crate) trace: Option<TraceInput>,
    pub(crate) expect: Expect,
}

/// A message as written in a test file: the fields of a trace message, with `surface` accepted for
/// `method` and `direction` defaulting to `incoming` (from the agent under test).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaseMessage {
    #[serde(default)]
    seq: Option<u64>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    pub(crate) protocol: Option<String>,
    #[serde(default)]
    pub(crate) actor: Option<String>,
    #[serde(default)]
    phase: Option<String>,
    #[serde(default)]
    direction: Option<MessageDirection>,
    #[serde(default, alias = "surface")]
    method: Option<String>,
    #[serde(default)]
    content: Value,
}

/// `incoming` (from the agent under test) or `outgoing` (to it).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum MessageDirection {
    Incoming,
    Outgoing,
}

impl CaseMessage {
    /// The trace message this stands for.
    pub(crate) fn to_trace_message(&self) -> Result<TraceMessage, String> {
        let mut object = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                object.insert(key.to_owned(), value);
            }
        };
        put("seq", self.seq.map(Value::from));
        put("timestamp", self.timestamp.clone().map(Value::from));
        put("protocol", self.protocol.clone().map(Value::from));
        put("actor", self.actor.clone().map(Value::from));
        put("phase", self.phase.clone().map(Value::from));
        let direction = match self.direction {
            Some(MessageDirection::Outgoing) => "outgoing",
            Some(MessageDirection::Incoming) | None => "incoming",
        };
        put("direction", Some(Value::from(direction)));
        put("method", self.method.clone().map(Value::from));
        put("content", Some(self.content.clone()));
        serde_json::from_value(Value::Object(object))
            .map_err(|e| format!("not a trace message: {e}"))
    }
}

/// The `trace` of a case.
#[derive(Debug)]
pub(crate) enum TraceInput {
    /// A JSONL trace file, relative to the test file.
    File(String),
    /// Messages written in the test file.
    Inline(Vec<CaseMessage>),
}

impl<'de> Deserialize<'de> for TraceInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TraceVisitor;
        impl<'de> Visitor<'de> for TraceVisitor {
            type Value = TraceInput;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a path to a JSONL trace or a list of messages")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TraceInput, E> {
                Ok(TraceInput::File(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TraceInput, A::Error> {
                let mut messages = Vec::new();
                while let Some(message) = seq.next_element()? {
                    messages.push(message);
                }
                Ok(TraceInput::Inline(messages))
            }
        }
        deserializer.deserialize_any(TraceVisitor)
    }
}

/// What a case expects: the attack result (scalar form) or a mapping.
#[derive(Debug)]
pub(crate) struct Expect {
    pub(crate) result: AttackResult,
    /// The expected `max_tier`, when the case states one.
    pub(crate) max_tier: Option<Tier>,
    pub(crate) indicators: BTreeMap<String, IndicatorResult>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectObject {
    result: AttackResult,
    #[serde(default)]
    max_tier: Option<Tier>,
    #[serde(default)]
    indicators: BTreeMap<String, IndicatorResult>,
}

impl<'de> Deserialize<'de> for Expect {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExpectVisitor;
        impl<'de> Visitor<'de> for ExpectVisitor {
            type Value = Expect;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "an attack result (exploited, not_exploited, partial, error) or a mapping with `result`",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Expect, E> {
                let result = AttackResult::deserialize(de::value::StrDeserializer::<E>::new(v))?;
                Ok(Expect {
                    result,
                    max_tier: None,
                    indicators: BTreeMap::new(),
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Expect, A::Error> {
                let object = ExpectObject::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Expect {
                    result: object.result,
                    max_tier: object.max_tier,
                    indicators: object.indicators,
                })
            }
        }
        deserializer.deserialize_any(ExpectVisitor)
    }
}

/// Reads a test file: every case, or the problem with file and line.
pub(crate) fn read_test_file(path: &Path) -> Result<TestFile, Problem> {
    let file = path.display().to_string();
    let too_big = std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_TEST_FILE_BYTES);
    if too_big {
        return Err(Problem::new(
            file,
            None,
            format!("test file larger than {MAX_TEST_FILE_BYTES} bytes"),
        ));
    }
    let text = crate::input::library::read_text(path)?;
    parse_test_file(&file, &text)
}

/// The YAML reader's budget errors read like Debug output (`budget breached: Nodes { nodes: 250001 }`):
/// this names the limit, its value, and what to do instead.
pub(super) fn budget_message(shown: &str) -> Option<String> {
    const MARK: &str = "budget breached: ";
    let rest = &shown[shown.find(MARK)? + MARK.len()..];
    let kind: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    let budget = serde_saphyr::budget::Budget::default();
    let (what, limit) = match kind.as_str() {
        "Nodes" => ("yaml nodes", budget.max_nodes),
        "Events" => ("yaml events", budget.max_events),
        "Depth" => ("nesting levels", budget.max_depth),
        "Aliases" => ("aliases", budget.max_aliases),
        "Anchors" => ("anchors", budget.max_anchors),
        "Documents" => ("yaml documents", budget.max_documents),
        "ScalarBytes" => ("bytes of scalar text", budget.max_total_scalar_bytes),
        _ => {
            return Some(format!(
                "the test file is over a limit of the yaml reader ({kind}); \
                 test files are read with fixed limits: split it into several files"
            ));
        }
    };
    Some(format!(
        "the test file has more than the limit of {limit} {what}; test files are read with fixed \
         limits: split it into several files"
    ))
}

/// Parses the text of a test file named `file`.
pub(crate) fn parse_test_file(file: &str, text: &str) -> Result<TestFile, Problem> {
    let empty = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if empty {
        return Err(Problem::new(
            file,
            None,
            "empty test file: expected a list of cases or a mapping with `cases`".to_owned(),
        ));
    }
    // The same strict YAML reading as the conformance fixtures (one owner).
    let options = oatf_conformance::strict_yaml_options();
    let parsed: Result<TestFile, _> = serde_saphyr::from_str_with_options(text, options);
    let test_file = parsed.map_err(|e| {
        let location = e.location();
        let line = location.map(|l| l.line()).filter(|l| *l > 0);
        let shown = e.to_string();
        let message = budget_message(&shown).unwrap_or_else(|| first_line(&shown));
        let mut problem = Problem::new(file, line.and_then(|l| usize::try_from(l).ok()), message);
        problem.column = location
            .map(|l| l.column())
            .filter(|c| *c > 0)
            .and_then(|c| usize::try_from(c).ok());
        problem
    })?;
    for case in &test_file.cases {
        let inputs =
            usize::from(case.value.message.is_some()) + usize::from(case.value.trace.is_some());
        if inputs != 1 {
            return Err(Problem::new(
                file,
                line(&case.referenced),
                format!(
                    "case `{}` must have exactly one input, `message` or `trace`",
                    case.value.name
                ),
            ));
        }
    }
    let mut seen: BTreeMap<&str, ()> = BTreeMap::new();
    for case in &test_file.cases {
        if seen.insert(case.value.name.as_str(), ()).is_some() {
            return Err(Problem::new(
                file,
                line(&case.referenced),
                format!("duplicate case name `{}`", case.value.name),
            ));
        }
    }
    Ok(test_file)
}

/// The first line of an error message (serde-saphyr appends a snippet on later lines), without the
/// `error: line N column M:` prefix (the location is reported separately).
pub(super) fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    let line = match line
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
    {
        Some((position, rest)) if position.contains("column") => rest,
        _ => line,
    };
    line.to_owned()
}

pub(super) fn line(location: &serde_saphyr::Location) -> Option<usize> {
    usize::try_from(location.line()).ok().filter(|l| *l > 0)
}
