//! The values the [`PhaseEngine`](super::PhaseEngine) takes and gives: directions, dispatch lists,
//! selected responses, phase entries with their actions, and its error.

use std::fmt;
use std::time::Duration;

use oatf_model::LogLevel;
use serde_json::{Map, Value};

use crate::template::TemplateDiagnostic;
use crate::trigger::AdvanceReason;

/// Which way a message travelled, seen from the actor the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The peer (the agent under test) sent it to the actor.
    Incoming,
    /// The actor sent it to the peer.
    Outgoing,
}

/// Why a [`PhaseEngine`](super::PhaseEngine) could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError {
    kind: EngineErrorKind,
    message: String,
}

/// The kind of an [`EngineError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EngineErrorKind {
    /// The document has no actor of the requested name.
    UnknownActor,
    /// No actor was named and the document does not have exactly one actor to choose.
    AmbiguousActor,
    /// The actor has no phase.
    NoPhases,
    /// A trigger, an extractor or a dispatch list does not compile (a document that fails
    /// validation); the message names its place.
    InvalidPhase,
}

impl EngineError {
    pub(super) fn new(kind: EngineErrorKind, message: impl Into<String>) -> Self {
        EngineError {
            kind,
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> EngineErrorKind {
        self.kind
    }

    /// A human-readable description (lowercase, no trailing period).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EngineError {}

/// A dispatch list of the effective state (spec-decisions 7), named for
/// [`PhaseEngine::respond`](super::PhaseEngine::respond).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dispatch<'a> {
    /// `tools[].responses` of the tool with this `name` (MCP `tools/call`).
    Tool(&'a str),
    /// `prompts[].responses` of the prompt with this `name` (MCP `prompts/get`).
    Prompt(&'a str),
    /// A list at the top of the state: `sampling_responses`, `elicitation_responses`,
    /// `task_responses`, `tool_responses`, or an MCP server's `elicitations` (selected the same way:
    /// the first entry whose `when` matches the triggering request, else the first without `when`).
    List(&'a str),
}

/// The response entry selected for a request, rendered against it.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub(super) index: usize,
    pub(super) entry: Map<String, Value>,
    pub(super) diagnostics: Vec<TemplateDiagnostic>,
}

impl Response {
    /// The position of the selected entry in its dispatch list.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The entry without `when`, every string rendered (`content`, `messages`, `action`, `synthesize`, …
    /// as written in the document; spec-decisions 21).
    pub fn entry(&self) -> &Map<String, Value> {
        &self.entry
    }

    /// The rendered `content` of the entry, when it has one.
    pub fn content(&self) -> Option<&Value> {
        self.entry.get("content")
    }

    /// Whether the entry asks for LLM synthesis (`synthesize`, reserved in v0.1) instead of giving
    /// `content`.
    pub fn is_synthesized(&self) -> bool {
        self.entry.contains_key("synthesize") && !self.entry.contains_key("content")
    }

    /// The W-004 warnings of the references that rendered empty.
    pub fn diagnostics(&self) -> &[TemplateDiagnostic] {
        &self.diagnostics
    }

    /// The rendered entry, taken.
    pub fn into_entry(self) -> Map<String, Value> {
        self.entry
    }
}

/// An entry action rendered at phase entry (format §5.6: `on_enter` templates resolve eagerly).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EntryAction {
    /// `send`: a protocol message to send (a notification, or a request).
    Send {
        /// The protocol method.
        method: String,
        /// The rendered `params`, when given.
        params: Option<Value>,
    },
    /// `log`: a message to log.
    Log {
        /// The rendered message.
        message: String,
        /// The level (`info` when absent or unknown).
        level: LogLevel,
    },
    /// A binding-specific action (its key and rendered value), or an object that is not exactly one
    /// action (key empty): tools skip what they do not implement and warn (SDK §2.7a).
    Other {
        /// The action key.
        key: String,
        /// Its rendered value.
        value: Value,
    },
}

/// The entry into a phase: where the actor is now, why, and the entry actions to run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PhaseEntry {
    /// The index of the phase entered.
    pub index: usize,
    /// Its name (`phase-N` when the document gives none).
    pub name: String,
    /// Why the previous phase ended; `None` for the first phase
    /// ([`PhaseEngine::start`](super::PhaseEngine::start)).
    pub reason: Option<AdvanceReason>,
    /// When the phase began, on the caller's clock.
    pub at: Duration,
    /// The phase's `on_enter` actions, rendered, in order.
    pub actions: Vec<EntryAction>,
    /// The W-004 warnings of rendering them.
    pub diagnostics: Vec<TemplateDiagnostic>,
}
