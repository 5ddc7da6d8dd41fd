//! The execution profile (SDK §2.6–§2.9, §2.23, §2.24).

use std::fmt;

use oatf_primitives::MatchPredicate;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::collect;
use super::enums::{Closed, Extensions, ExtractorSource, ExtractorType, LogLevel};

oatf_struct! {
    /// The execution profile (SDK §2.6): exactly one of `state` (single-phase form), `phases`
    /// (multi-phase form) or `actors` (multi-actor form), checked by V-030.
    ///
    /// After normalization only `actors` is present (N-006, N-007).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Execution ("an execution mapping") {
        /// Attacker posture, `{protocol}_{role}` (V-034).
        opt mode: String => "mode",
        /// Protocol state of the single-phase form (pass-through, key order kept).
        opt state: Value => "state",
        /// Phases of the multi-phase form.
        opt phases: Vec<Phase> => "phases",
        /// Actors of the multi-actor form.
        opt actors: Vec<Actor> => "actors",
    }
    [extensions]
}

oatf_struct! {
    /// A named concurrent actor (SDK §2.6a).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Actor ("an actor mapping") {
        /// Unique name matching `[a-z][a-z0-9_]*` (V-031).
        req name: String => "name",
        /// Attacker posture of this actor.
        req mode: String => "mode",
        /// Ordered phases, at least one (V-007).
        req phases: Vec<Phase> => "phases",
    }
    [extensions]
}

oatf_struct! {
    /// A stage of an actor's attack (SDK §2.7).
    ///
    /// `state` is a [`Value`] so that a non-object state still parses and is reported by validation.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Phase ("a phase mapping") {
        /// Label; default `phase-{N}` (1-based, within the actor).
        opt name: String => "name",
        /// Purpose of the phase.
        opt description: String => "description",
        /// Attacker posture; inherited from the actor (materialized by normalization).
        opt mode: String => "mode",
        /// Protocol state (pass-through); inherited from the preceding phase when absent.
        opt state: Value => "state",
        /// Value extractors, at least one when present (V-038).
        opt extractors: Vec<Extractor> => "extractors",
        /// Entry actions, at least one when present (V-043).
        opt on_enter: Vec<Action> => "on_enter",
        /// Advancement condition; absent on the terminal phase.
        opt trigger: Trigger => "trigger",
    }
    [extensions]
}

oatf_struct! {
    /// Phase advancement condition (SDK §2.8).
    ///
    /// The YAML key `match` is the Rust field `match_` (`match` is a keyword).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Trigger ("a trigger mapping") {
        /// Protocol event to match.
        opt event: String => "event",
        /// Matching events required; default `1` when `event` is present.
        opt count: i64 => "count",
        /// Content predicate on matching events (YAML key `match`).
        opt match_: MatchPredicate => "match",
        /// Unconditional advancement after this duration (V-036).
        opt after: String => "after",
    }
}

oatf_struct! {
    /// A value extractor (SDK §2.9).
    ///
    /// The YAML key `type` is the Rust field `kind`.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Extractor ("an extractor mapping") {
        /// Variable name matching `[a-z][a-z0-9_]*` (V-037).
        req name: String => "name",
        /// `request` or `response`.
        req source: Closed<ExtractorSource> => "source",
        /// `json_path` or `regex` (YAML key `type`).
        req kind: Closed<ExtractorType> => "type",
        /// The JSONPath (V-015) or regex (V-013, V-042) selector.
        req selector: String => "selector",
    }
}

oatf_struct! {
    /// The `send` entry action (SDK §2.7a).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct SendAction ("a send action mapping") {
        /// Protocol method name.
        req method: String => "method",
        /// Protocol-native parameters (pass-through).
        opt params: Value => "params",
    }
}

oatf_struct! {
    /// The `log` entry action (SDK §2.7a).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct LogAction ("a log action mapping") {
        /// Message text; supports `{{template}}` interpolation.
        req message: String => "message",
        /// `info`, `warn` or `error`.
        opt level: Closed<LogLevel> => "level",
    }
}

/// An entry action (SDK §2.7a): one action key plus optional `x-` extensions.
///
/// The parsed form keeps every key so that an object with zero or several action keys still parses
/// and is reported by V-041 (spec-decisions 4). Known actions are typed (`send`, `log`); any other
/// non-`x-` key is a binding-specific action kept with its value as written (`delay_ms: 500`,
/// `send_push_notification: {…}`). [`Action::kind`] gives the single action of a valid object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Action {
    /// The `send` action, when present.
    pub send: Option<SendAction>,
    /// The `log` action, when present.
    pub log: Option<LogAction>,
    /// Binding-specific actions (non-`x-` keys other than `send`/`log`) in their written order.
    pub binding: Extensions,
    /// Extension fields (`x-` keys) in their original relative order.
    pub extensions: Extensions,
}

/// The single action of an [`Action`] object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ActionKind<'a> {
    /// `send`.
    Send(&'a SendAction),
    /// `log`.
    Log(&'a LogAction),
    /// A binding-specific action: its key and value.
    Binding(&'a str, &'a Value),
}

impl Action {
    /// Number of non-`x-` keys (V-041 requires exactly one).
    pub fn action_key_count(&self) -> usize {
        usize::from(self.send.is_some()) + usize::from(self.log.is_some()) + self.binding.len()
    }

    /// The action when the object holds exactly one action key, else `None`.
    pub fn kind(&self) -> Option<ActionKind<'_>> {
        if self.action_key_count() != 1 {
            return None;
        }
        if let Some(send) = &self.send {
            return Some(ActionKind::Send(send));
        }
        if let Some(log) = &self.log {
            return Some(ActionKind::Log(log));
        }
        self.binding
            .iter()
            .next()
            .map(|(k, v)| ActionKind::Binding(k.as_str(), v))
    }

    /// The action keys in the order `send`, `log`, then binding-specific keys.
    pub fn action_keys(&self) -> impl Iterator<Item = &str> {
        self.send
            .as_ref()
            .map(|_| "send")
            .into_iter()
            .chain(self.log.as_ref().map(|_| "log"))
            .chain(self.binding.keys().map(String::as_str))
    }
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(send) = &self.send {
            map.serialize_entry("send", send)?;
        }
        if let Some(log) = &self.log {
            map.serialize_entry("log", log)?;
        }
        for (k, v) in self.binding.iter().chain(self.extensions.iter()) {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ActionVisitor;
        impl<'de> Visitor<'de> for ActionVisitor {
            type Value = Action;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an action mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Action, A::Error> {
                let mut action = Action::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "send" if action.send.is_none() => {
                            action.send = collect::next_value(&mut map)?;
                        }
                        "log" if action.log.is_none() => {
                            action.log = collect::next_value(&mut map)?;
                        }
                        "send" | "log" => return Err(de::Error::duplicate_field("action")),
                        _ if key.starts_with("x-") => {
                            let value = map.next_value::<Value>()?;
                            action.extensions.insert(key, value);
                        }
                        _ => {
                            let value = map.next_value::<Value>()?;
                            action.binding.insert(key, value);
                        }
                    }
                }
                Ok(action)
            }
        }
        deserializer.deserialize_map(ActionVisitor)
    }
}

oatf_struct! {
    /// Reserved LLM synthesis block (SDK §2.23); no semantics in v0.1 (W-006 warns when present).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct SynthesizeBlock ("a synthesize mapping") {
        /// Free-text prompt.
        opt prompt: String => "prompt",
    }
}

/// A conditional response entry of a binding dispatch list (SDK §2.24).
///
/// Dispatch lists live in pass-through `state`; this is a typed view built with
/// [`ResponseEntry::from_value`]. Binding-specific static fields (`messages` of prompt entries,
/// `action` of elicitation entries, …) are kept in `fields`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponseEntry {
    /// Predicate on the triggering request; absent on the fallback entry.
    pub when: Option<MatchPredicate>,
    /// Protocol-native response content (pass-through).
    pub content: Option<Value>,
    /// Reserved; see [`SynthesizeBlock`].
    pub synthesize: Option<SynthesizeBlock>,
    /// Other keys of the entry in order (binding-specific static fields).
    pub fields: Extensions,
}

impl ResponseEntry {
    /// Reads an entry from a state value. `None` when the value is not a mapping or `when` /
    /// `synthesize` do not have their shape.
    pub fn from_value(value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        let mut entry = ResponseEntry::default();
        for (key, v) in object {
            match key.as_str() {
                "when" if !v.is_null() => {
                    entry.when = Some(MatchPredicate::from_value(v.clone()).ok()?);
                }
                "content" if !v.is_null() => entry.content = Some(v.clone()),
                "synthesize" if !v.is_null() => {
                    entry.synthesize = Some(SynthesizeBlock::deserialize(v).ok()?);
                }
                "when" | "content" | "synthesize" => {}
                _ => {
                    entry.fields.insert(key.clone(), v.clone());
                }
            }
        }
        Some(entry)
    }
}

impl Serialize for ResponseEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(when) = &self.when {
            map.serialize_entry("when", when)?;
        }
        if let Some(content) = &self.content {
            map.serialize_entry("content", content)?;
        }
        if let Some(synthesize) = &self.synthesize {
            map.serialize_entry("synthesize", synthesize)?;
        }
        for (k, v) in &self.fields {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ResponseEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if !value.is_object() {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other("a non-mapping value"),
                &"a response entry mapping",
            ));
        }
        ResponseEntry::from_value(&value)
            .ok_or_else(|| de::Error::custom("invalid `when` or `synthesize` in response entry"))
    }
}
