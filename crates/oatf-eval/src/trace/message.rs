//! The messages of a trace: [`TraceMessage`] as recorders write it, [`TraceDirection`], and the two
//! halves the evaluator reads of one, borrowed: its [`Head`] (every field but the content) and its
//! [`Body`] (the content, parsed or left unread by the lazy reader, D-91).

use oatf_model::Direction;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::Role;

/// One observed protocol message (`docs/trace-format.md`).
///
/// Only `direction` is required. Unknown fields are ignored when reading, so traces may carry more
/// (ids, raw frames, timings).
///
/// A recorder builds one in a line with [`TraceMessage::new`] and the `with_*` methods:
///
/// ```
/// use oatf_eval::{TraceDirection, TraceMessage};
/// use serde_json::json;
///
/// let message = TraceMessage::new(TraceDirection::Incoming, "tools/call", json!({"name": "read"}))
///     .with_actor("default")
///     .with_seq(7);
/// assert_eq!(message.method.as_deref(), Some("tools/call"));
/// assert_eq!(message.actor.as_deref(), Some("default"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TraceMessage {
    /// Position of the message in the trace as the recorder numbered it; named in evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// When the message was observed (RFC 3339); used for the grace period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The name of the document's actor on whose connection the message was observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// The phase the actor was in; a terminal phase (one without trigger) starts the grace period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// `incoming` (the agent sent it to the actor) or `outgoing` (the actor sent it to the agent).
    pub direction: TraceDirection,
    /// The protocol method or event name, compared with `indicator.surface`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The message as indicators see it (SDK §4.1): `params` of a request or notification, `result`
    /// of a response (with the request's `params` under `params` for client-mode responses,
    /// spec-decisions 20), the event object for AG-UI.
    #[serde(default)]
    pub content: Value,
    /// The protocol (`mcp`, `a2a`, `ag_ui`, …) when `actor` is not one the document declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

impl TraceMessage {
    /// A message observed travelling `direction`, with its protocol `method` (or event name) and its
    /// `content` as indicators see it; the optional fields are unset.
    pub fn new(direction: TraceDirection, method: impl Into<String>, content: Value) -> Self {
        TraceMessage {
            seq: None,
            timestamp: None,
            actor: None,
            phase: None,
            direction,
            method: Some(method.into()),
            content,
            protocol: None,
        }
    }

    /// A message without a method (a frame the recorder could not name), travelling `direction`.
    pub fn without_method(direction: TraceDirection, content: Value) -> Self {
        TraceMessage {
            method: None,
            ..TraceMessage::new(direction, "", content)
        }
    }

    /// Sets the position of the message in the trace.
    pub fn with_seq(mut self, seq: u64) -> Self {
        self.seq = Some(seq);
        self
    }

    /// Sets when the message was observed (RFC 3339).
    pub fn with_timestamp(mut self, timestamp: impl Into<String>) -> Self {
        self.timestamp = Some(timestamp.into());
        self
    }

    /// Sets when the message was observed from a time since the Unix epoch (a recorder's
    /// `SystemTime::now().duration_since(UNIX_EPOCH)`), written as RFC 3339 in UTC with milliseconds.
    ///
    /// ```
    /// use std::time::Duration;
    /// use oatf_eval::{TraceDirection, TraceMessage};
    /// use serde_json::json;
    ///
    /// let message = TraceMessage::new(TraceDirection::Outgoing, "tools/list", json!({}))
    ///     .with_timestamp_at(Duration::from_millis(1_795_658_407_114));
    /// assert_eq!(message.timestamp.as_deref(), Some("2026-11-26T02:00:07.114Z"));
    /// ```
    pub fn with_timestamp_at(self, since_unix_epoch: std::time::Duration) -> Self {
        let text = crate::verdict::format_unix_time(
            since_unix_epoch.as_secs(),
            Some(since_unix_epoch.subsec_millis()),
        );
        self.with_timestamp(text)
    }

    /// Sets the actor on whose connection the message was observed.
    pub fn with_actor(mut self, actor: impl Into<String>) -> Self {
        self.actor = Some(actor.into());
        self
    }

    /// Sets the phase the actor was in.
    pub fn with_phase(mut self, phase: impl Into<String>) -> Self {
        self.phase = Some(phase.into());
        self
    }

    /// Sets the protocol, for a message whose actor the document does not declare.
    pub fn with_protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = Some(protocol.into());
        self
    }
}

/// Which way a [`TraceMessage`] travelled, seen from the attacker's actor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceDirection {
    /// Sent by the agent under test to the actor.
    Incoming,
    /// Sent by the actor to the agent under test.
    Outgoing,
}

impl TraceDirection {
    /// `request` or `response` for an actor of `role` (format §6.1 `indicator.direction`).
    pub(super) fn as_seen_by(self, role: Role) -> Direction {
        match (role, self) {
            (Role::Server, TraceDirection::Incoming) | (Role::Client, TraceDirection::Outgoing) => {
                Direction::Request
            }
            _ => Direction::Response,
        }
    }
}

/// What the evaluator reads of a message besides its content: [`TraceMessage`]'s other fields,
/// borrowed (from a `TraceMessage`, or from a trace line by the reader's
/// `next_into`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head<'m> {
    pub(crate) seq: Option<u64>,
    pub(crate) timestamp: Option<&'m str>,
    pub(crate) actor: Option<&'m str>,
    pub(crate) phase: Option<&'m str>,
    pub(crate) direction: TraceDirection,
    pub(crate) method: Option<&'m str>,
    pub(crate) protocol: Option<&'m str>,
}

impl TraceMessage {
    /// The fields other than `content`, borrowed.
    pub(super) fn head(&self) -> Head<'_> {
        Head {
            seq: self.seq,
            timestamp: self.timestamp.as_deref(),
            actor: self.actor.as_deref(),
            phase: self.phase.as_deref(),
            direction: self.direction,
            method: self.method.as_deref(),
            protocol: self.protocol.as_deref(),
        }
    }
}

/// A message's content as the evaluator is given it: parsed, or left unread by the lazy reader
/// (D-91) because the route did not need it, with whether its raw text nests too deep for the
/// context profile (`TraceEvaluator::checks_depth`; `false` when it does not).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Body<'c> {
    Parsed(&'c Value),
    Unread { too_deep: bool },
}
