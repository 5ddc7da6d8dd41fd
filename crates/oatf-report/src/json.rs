//! The JSON verdict document ([`json_document`]) that `oatf evaluate --format json` writes.
//!
//! The document is written straight from the verdict ([`JsonDocument`], D-180): the verdict's fields
//! in their order, with the report's entries in the place or after them, as inserting them into the
//! verdict's `serde_json::Value` gives. [`json_document`] is the same document as a `Value`.

use std::collections::HashMap;

use oatf_eval::{AttackVerdict, TraceWarning};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::exit::run_exit_code;
use crate::fields::{Entries, write_fields};
use crate::stats::{TraceStats, warnings};

/// The `trace` object of the JSON verdict document: the file (the trace as the report names it), then
/// the counts, in the order written.
pub(crate) struct TraceJson<'a> {
    pub(crate) stats: &'a TraceStats,
    /// The trace's name in the report: the stats' own, or (SARIF) the artifact's URI.
    pub(crate) file: &'a str,
}

/// The line each indicator first matched at, by indicator id.
struct MatchedLines<'a>(&'a HashMap<String, u64>);

impl Serialize for MatchedLines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut matched: Vec<(&String, &u64)> = self.0.iter().collect();
        matched.sort();
        serializer.collect_map(matched)
    }
}

impl Serialize for TraceJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let stats = self.stats;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("file", self.file)?;
        map.serialize_entry("lines", &stats.lines)?;
        map.serialize_entry("messages", &stats.messages)?;
        map.serialize_entry("malformed_lines", &stats.malformed)?;
        map.serialize_entry("after_grace_period", &stats.after_grace)?;
        map.serialize_entry("matched_lines", &MatchedLines(&stats.matched_lines))?;
        map.serialize_entry("verdict_from_partial_trace", &(stats.malformed > 0))?;
        map.serialize_entry("actors_without_messages", &stats.silent_actors)?;
        if stats.compat != oatf_eval::Compat::SpecExact {
            map.serialize_entry("compat", stats.compat.as_str())?;
        }
        map.end()
    }
}

/// A warning of the run ([`warnings`]): its fields, with `code` (the older name of `kind`).
struct WarningJson<'a>(&'a TraceWarning);

impl Entries for WarningJson<'_> {
    const KEYS: &'static [&'static str] = &["code"];

    fn write<M: SerializeMap>(&self, _: usize, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("code", self.0.kind.as_str())
    }
}

impl Serialize for WarningJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        write_fields(self.0, self, &mut map)?;
        map.end()
    }
}

/// The JSON verdict document of a run, written as it is serialized ([`json_document`] is the same
/// document as a `Value`): the attack verdict (format §9.3) with a `trace` object (file, lines,
/// messages, malformed lines, messages after the grace period, the line each indicator matched at,
/// actors without messages), `warnings` (replacing the verdict's own, with actors of
/// [`TraceStats::silent_actors`] added), `strict` and `exit_code` ([`run_exit_code`]).
///
/// ```
/// use oatf_eval::{CompiledAttack, EvalOptions, TraceEvaluator};
/// use oatf_model::Document;
/// use oatf_report::{JsonDocument, TraceStats, json_document};
///
/// let document: Document = serde_json::from_value(serde_json::json!({"oatf": "0.1", "attack": {
///     "id": "OATF-900", "execution": {"mode": "mcp_server", "state": {"tools": []}},
///     "indicators": [{"surface": "tools/call", "target": "arguments.path",
///                     "pattern": {"contains": ".ssh/id_rsa"}}]}}))?;
/// let attack = CompiledAttack::new(&document, &EvalOptions::new());
/// let verdict = TraceEvaluator::new(&attack).finish();
/// let stats = TraceStats::new("run.jsonl");
/// let text = serde_json::to_string(&JsonDocument::new(&verdict, &stats))?;
/// assert!(text.starts_with(r#"{"attack_id":"OATF-900","result":"error""#));
/// assert_eq!(serde_json::from_str::<serde_json::Value>(&text)?, json_document(&verdict, &stats));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct JsonDocument<'a> {
    verdict: &'a AttackVerdict,
    stats: &'a TraceStats,
}

impl<'a> JsonDocument<'a> {
    /// The document of `verdict` and what was read of its trace.
    pub fn new(verdict: &'a AttackVerdict, stats: &'a TraceStats) -> Self {
        JsonDocument { verdict, stats }
    }
}

/// The entries the document adds to the verdict's fields, with the run's warnings.
struct DocumentEntries<'a> {
    stats: &'a TraceStats,
    warnings: Vec<TraceWarning>,
    exit_code: u8,
}

impl Entries for DocumentEntries<'_> {
    const KEYS: &'static [&'static str] = &["trace", "warnings", "strict", "exit_code"];

    fn write<M: SerializeMap>(&self, index: usize, map: &mut M) -> Result<(), M::Error> {
        match index {
            0 => map.serialize_entry(
                "trace",
                &TraceJson {
                    stats: self.stats,
                    file: &self.stats.name,
                },
            ),
            1 => map.serialize_entry(
                "warnings",
                &self.warnings.iter().map(WarningJson).collect::<Vec<_>>(),
            ),
            2 => map.serialize_entry("strict", &self.stats.strict),
            _ => map.serialize_entry("exit_code", &self.exit_code),
        }
    }
}

impl Serialize for JsonDocument<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entries = DocumentEntries {
            stats: self.stats,
            warnings: warnings(self.verdict, self.stats),
            exit_code: run_exit_code(self.verdict, self.stats),
        };
        let mut map = serializer.serialize_map(None)?;
        write_fields(self.verdict, &entries, &mut map)?;
        map.end()
    }
}

/// The JSON verdict document ([`JsonDocument`]) as a `Value`, as `oatf evaluate --format json`
/// writes it.
pub fn json_document(verdict: &AttackVerdict, stats: &TraceStats) -> Value {
    serde_json::to_value(JsonDocument::new(verdict, stats)).unwrap_or(Value::Null)
}

/// [`json_document`] as pretty-printed text ending with a line break.
pub fn json_report(verdict: &AttackVerdict, stats: &TraceStats) -> String {
    let mut text =
        serde_json::to_string_pretty(&JsonDocument::new(verdict, stats)).unwrap_or_default();
    text.push('\n');
    text
}
