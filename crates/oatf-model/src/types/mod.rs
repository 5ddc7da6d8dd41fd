//! The OATF document model (SDK §2).
//!
//! Field names follow the specification. Two keys are renamed because they are Rust keywords:
//! `type` (of an extractor) is `kind`, and `match` (of a trigger) is `match_`; `$schema` is `schema`.
//! Protocol payloads are [`serde_json::Value`] with key order kept. Every type serializes to exactly
//! the YAML document shape, so `serde_json::to_value(&document)` is the document as JSON.

#[macro_use]
mod macros;
mod attack;
pub(crate) mod collect;
mod enums;
mod execution;
mod indicator;

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

pub use attack::{
    Attack, Classification, Correlation, FrameworkMapping, Reference, Severity, SeverityObject,
};
pub use enums::{
    Category, Closed, ClosedEnum, CorrelationLogic, Direction, ElicitationAction, ElicitationMode,
    Extensions, ExtractorSource, ExtractorType, Framework, Impact, IndicatorMethod, LogLevel, Mode,
    Protocol, Relationship, SemanticIntentClass, SeverityLevel, Status, Surface, Tier,
    UnknownVariant,
};
pub use execution::{
    Action, ActionKind, Actor, Execution, Extractor, LogAction, Phase, ResponseEntry, SendAction,
    SynthesizeBlock, Trigger,
};
pub use indicator::{
    ExpressionMatch, Indicator, PatternMatch, SemanticExamples, SemanticMatch, Variables,
};

use crate::span::SpanIndex;

/// How a field of a model struct (`oatf_struct!`) is read and written. Most types are read as
/// themselves, `null` meaning absent; a closed enumeration is read and written as its text, with one
/// seed and one entry writer for every enumeration, so that a deserializer and a serializer compile
/// those once, not once per enumeration (D-280).
pub(crate) trait Field: Sized {
    /// Reads the value of the key read last: `None` for `null`, and when it failed and the error
    /// was recorded (`types::collect`).
    fn read<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Self>, A::Error>
    where
        Self: Deserialize<'de>,
    {
        Ok(collect::next_value::<A, Option<Self>>(map)?.flatten())
    }

    /// Writes the field as the entry `key`.
    fn write<M: SerializeMap>(map: &mut M, key: &'static str, value: &Self) -> Result<(), M::Error>
    where
        Self: Serialize,
    {
        map.serialize_entry(key, value)
    }
}

impl Field for String {}
impl Field for i64 {}
impl Field for f64 {}
impl Field for serde_json::Value {}
impl Field for oatf_primitives::MatchPredicate {}
impl<T> Field for Vec<T> {}

/// The specification version this crate implements (the value of `oatf`).
pub const OATF_VERSION: &str = "0.1";

/// A parsed OATF document (SDK §2.2).
///
/// `oatf` and `attack` are optional in the parsed model: a document without them still parses and
/// `validate` reports V-001 / V-003 (spec-decisions 1). A document read by `parse` also remembers
/// facts about its source that the model itself cannot hold: the order of the top-level keys (for
/// W-001), an `attack` that is not a mapping (for V-003), and the source location of every node (for
/// diagnostics). These are not part of equality.
#[derive(Clone, Debug, Default)]
pub struct Document {
    /// Specification version declared by the document (`"0.1"`).
    pub oatf: Option<String>,
    /// JSON Schema URL (`$schema` in YAML); preserved, never interpreted.
    pub schema: Option<String>,
    /// The attack definition.
    pub attack: Option<Attack>,
    pub(crate) source: SourceFacts,
}

/// What a document remembers about the text it was read from.
#[derive(Clone, Debug, Default)]
pub(crate) struct SourceFacts {
    /// Top-level keys in written order (W-001).
    pub(crate) top_level_keys: Vec<String>,
    /// The kind of value found for `attack` when it was not a mapping (V-003).
    pub(crate) attack_not_mapping: Option<&'static str>,
    /// Dot-path → source span index, when the document was parsed from YAML.
    pub(crate) spans: Option<Arc<SpanIndex>>,
    /// Paths of required fields that were missing in the source (reported by `validate`).
    pub(crate) missing_fields: Vec<String>,
}

impl PartialEq for Document {
    fn eq(&self, other: &Self) -> bool {
        self.oatf == other.oatf
            && self.schema == other.schema
            && self.attack == other.attack
            && self.source.attack_not_mapping == other.source.attack_not_mapping
    }
}

impl Document {
    /// A document declaring this crate's version ([`OATF_VERSION`]) around `attack`.
    pub fn new(attack: Attack) -> Self {
        Document {
            oatf: Some(OATF_VERSION.to_owned()),
            schema: None,
            attack: Some(attack),
            source: SourceFacts::default(),
        }
    }

    /// Paths of required fields (SDK §2 `Required: Yes`) that were missing when the document was
    /// parsed; they hold their type's default in the model and `validate` reports them.
    pub fn missing_fields(&self) -> &[String] {
        &self.source.missing_fields
    }

    /// The top-level keys in the order they were written, when the document was deserialized.
    pub fn top_level_keys(&self) -> &[String] {
        &self.source.top_level_keys
    }

    /// The execution profile, if `attack` and `attack.execution` are present.
    pub fn execution(&self) -> Option<&Execution> {
        self.attack.as_ref()?.execution.as_ref()
    }

    /// The indicators, or an empty slice.
    pub fn indicators(&self) -> &[Indicator] {
        self.attack
            .as_ref()
            .and_then(|a| a.indicators.as_deref())
            .unwrap_or(&[])
    }

    /// The byte range in the source of the node at a diagnostic dot-path (or of its nearest
    /// ancestor), when the document was parsed from YAML.
    pub fn source_span(&self, path: &str) -> Option<std::ops::Range<usize>> {
        self.source.spans.as_ref()?.span_of(path)
    }
}

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(oatf) = &self.oatf {
            map.serialize_entry("oatf", oatf)?;
        }
        if let Some(schema) = &self.schema {
            map.serialize_entry("$schema", schema)?;
        }
        if let Some(attack) = &self.attack {
            map.serialize_entry("attack", attack)?;
        }
        map.end()
    }
}

/// The `attack` slot: a mapping, or a note of what else was found.
enum AttackSlot {
    Mapping(Box<Attack>),
    Other(&'static str),
}

impl<'de> Deserialize<'de> for AttackSlot {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SlotVisitor;
        impl<'de> Visitor<'de> for SlotVisitor {
            type Value = AttackSlot;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an attack mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AttackSlot, A::Error> {
                Attack::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|a| AttackSlot::Mapping(Box::new(a)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<AttackSlot, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(AttackSlot::Other("a sequence"))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("a string"))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("a boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("an integer"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("an integer"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("a float"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("null"))
            }
            fn visit_none<E: de::Error>(self) -> Result<AttackSlot, E> {
                Ok(AttackSlot::Other("null"))
            }
        }
        deserializer.deserialize_any(SlotVisitor)
    }
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DocumentVisitor;
        impl<'de> Visitor<'de> for DocumentVisitor {
            type Value = Document;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an OATF document mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document, A::Error> {
                const FIELDS: &[&str] = &["oatf", "$schema", "attack"];
                let mut document = Document::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "oatf" => document.oatf = collect::next_value(&mut map)?.flatten(),
                        "$schema" => document.schema = collect::next_value(&mut map)?.flatten(),
                        "attack" => match collect::next_value::<_, AttackSlot>(&mut map)? {
                            Some(AttackSlot::Mapping(attack)) => document.attack = Some(*attack),
                            // Explicit null means absent: V-003 reports a missing attack.
                            Some(AttackSlot::Other("null")) | None => {}
                            Some(AttackSlot::Other(found)) => {
                                document.source.attack_not_mapping = Some(found);
                            }
                        },
                        // Decision 12: `x-` keys are not allowed at the root either.
                        _ => collect::unknown_field(&mut map, &key, FIELDS)?,
                    }
                    document.source.top_level_keys.push(key);
                }
                Ok(document)
            }
        }
        deserializer.deserialize_map(DocumentVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Deserializes `input` from JSON and checks that it serializes back to `expect`.
    #[track_caller]
    fn check(input: Value, expect: Value) {
        let document: Document = match serde_json::from_value(input) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(serde_json::to_value(&document).unwrap_or_default(), expect);
    }

    #[test]
    fn json_round_trip_keeps_shape() {
        let doc = json!({
            "oatf": "0.1",
            "$schema": "https://oatf.io/schemas/v0.1.json",
            "attack": {
                "status": "frozen",
                "severity": "high",
                "execution": {"actors": [{"name": "a", "mode": "mcp_server", "phases": [
                    {"state": {"z": 1, "a": 2}, "on_enter": [{"send": {"method": "m"}, "x-n": 1}, {"delay_ms": 5}],
                     "extractors": [{"name": "e", "source": "request", "type": "regex", "selector": "(x)"}],
                     "trigger": {"event": "tools/call", "match": {"a.b": {"contains": "x"}, "c": 1}}}
                ]}]},
                "indicators": [{"target": "", "pattern": {"regex": "x"}, "x-i": [1]}],
                "x-top": {"k": "v"}
            }
        });
        check(doc.clone(), doc);
        // An explicit null means absent.
        check(
            json!({"oatf": "0.1", "attack": {"name": null, "execution": null}}),
            json!({"oatf": "0.1", "attack": {}}),
        );
    }

    #[test]
    fn closed_and_action_accessors() {
        let action: Action =
            match serde_json::from_value(json!({"log": {"message": "m"}, "x-a": 1})) {
                Ok(a) => a,
                Err(e) => panic!("{e}"),
            };
        assert!(matches!(action.kind(), Some(ActionKind::Log(_))));
        assert_eq!(action.action_key_count(), 1);
        let status: Closed<Status> = Closed::from_name("draft");
        assert_eq!(status, Status::Draft);
        assert_eq!(
            Closed::<Status>::from_name("x")
                .to_known()
                .map_err(|e| e.to_string()),
            Err(
                "unknown status `x`, expected one of draft, experimental, stable, deprecated"
                    .to_owned()
            )
        );
    }

    #[test]
    fn rejected_shapes() {
        for bad in [
            json!({"oatf": "0.1", "x-root": 1}),
            json!({"oatf": "0.1", "attack": {"bogus": 1}}),
            json!({"oatf": "0.1", "attack": {"version": "1"}}),
            json!({"oatf": "0.1", "attack": {"indicators": [{"pattern": {"contains": "x"}}]}}),
        ] {
            assert!(
                serde_json::from_value::<Document>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
