//! Warnings of a trace evaluation: what did not make the verdict wrong but may make it meaningless
//! (decision D-70 in `docs/decisions.md`).
//!
//! A verdict of `not_exploited` says the agent resisted; it says nothing if the trace was never
//! compared with what the indicators look for. [`TraceEvaluator`](crate::TraceEvaluator) reports the
//! two ways that happens silently: a declared actor without any message (spec-decisions 23), and an
//! indicator whose target never resolved in any message that applied to it (a misspelt path). A tool
//! fails on them when asked to (`oatf evaluate --strict`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a [`TraceWarning`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TraceWarningKind {
    /// A declared actor had no message in the trace: it never ran, and the run may have failed
    /// (spec-decisions 23). [`TraceWarning::actor`] names it.
    ActorWithoutMessages,
    /// An indicator's target never resolved in any message that applied to it, so its condition was
    /// never tested: the path is likely misspelt. [`TraceWarning::indicator_id`] and
    /// [`TraceWarning::path`] name it; [`TraceWarning::suggestion`] is the closest path the messages
    /// had, when one is close.
    UnresolvedTarget,
    /// A message's content was a whole trace line (`{"direction": …, "method": …, "content": …}`)
    /// rather than the content indicators see (SDK §4.1): targets resolve under `content`, so most
    /// indicators could not match (D-134). [`TraceWarning::path`] is empty.
    ContentIsTraceLine,
    /// An indicator was not evaluated for want of an evaluator for its method (a CEL expression
    /// without a CEL engine, a semantic indicator without a [`SemanticEvaluator`](crate::SemanticEvaluator)):
    /// it is `skipped` and the verdict comes from the other indicators (D-134).
    /// [`TraceWarning::indicator_id`] names it.
    IndicatorSkipped,
    /// The trace looks like ThoughtJack's context mode and its verdict under the
    /// `thoughtjack-context` profile differs (D-101); the message names the option.
    CompatWouldChange,
    /// Under the `thoughtjack-context` profile, entries nested deeper than 64 levels were skipped
    /// (D-100).
    TooDeepEntriesSkipped,
    /// Under the `thoughtjack-context` profile, AG-UI text entries past the bound on what is kept
    /// were not derived (D-100): the verdict may miss a match.
    DerivationLimit,
}

impl TraceWarningKind {
    /// The canonical string of the kind (`actor_without_messages`, `unresolved_target`,
    /// `content_is_trace_line`, `indicator_skipped`, `compat_would_change`, `too_deep_entries_skipped`,
    /// `derivation_limit`).
    pub fn as_str(self) -> &'static str {
        match self {
            TraceWarningKind::ActorWithoutMessages => "actor_without_messages",
            TraceWarningKind::UnresolvedTarget => "unresolved_target",
            TraceWarningKind::ContentIsTraceLine => "content_is_trace_line",
            TraceWarningKind::IndicatorSkipped => "indicator_skipped",
            TraceWarningKind::CompatWouldChange => "compat_would_change",
            TraceWarningKind::TooDeepEntriesSkipped => "too_deep_entries_skipped",
            TraceWarningKind::DerivationLimit => "derivation_limit",
        }
    }
}

impl fmt::Display for TraceWarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A warning of a trace evaluation ([`AttackVerdict::warnings`](crate::AttackVerdict::warnings)).
///
/// ```
/// use oatf_eval::{CompiledAttack, Document, EvalOptions, TraceDirection, TraceEvaluator,
///                 TraceMessage, TraceWarningKind};
/// use serde_json::json;
///
/// let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
///     "execution": {"mode": "mcp_server", "state": {"tools": []}},
///     "indicators": [{"id": "I-1", "surface": "tools/call", "target": "arguments.ulr",
///                     "pattern": {"contains": "evil.example"}}]}}))?;
/// let attack = CompiledAttack::new(&document, &EvalOptions::new());
/// let mut evaluator = TraceEvaluator::new(&attack);
/// evaluator.push(&TraceMessage::new(TraceDirection::Incoming, "tools/call",
///     json!({"name": "fetch", "arguments": {"url": "https://evil.example"}})));
/// let verdict = evaluator.finish();
/// let warning = &verdict.warnings[0];
/// assert_eq!(warning.kind, TraceWarningKind::UnresolvedTarget);
/// assert_eq!(warning.indicator_id.as_deref(), Some("I-1"));
/// assert_eq!(warning.path.as_deref(), Some("arguments.ulr"));
/// assert_eq!(warning.suggestion.as_deref(), Some("arguments.url"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TraceWarning {
    /// What the warning is about.
    pub kind: TraceWarningKind,
    /// The indicator it concerns, for [`TraceWarningKind::UnresolvedTarget`] and
    /// [`TraceWarningKind::IndicatorSkipped`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicator_id: Option<String>,
    /// The declared actor it concerns, for [`TraceWarningKind::ActorWithoutMessages`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// The path that never resolved, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The closest path the messages had ("did you mean"), when one is close enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// The warning as people read it, one line.
    pub message: String,
}

impl TraceWarning {
    /// The warning for a declared actor that no message of the trace belongs to.
    pub fn actor_without_messages(actor: &str) -> Self {
        TraceWarning {
            kind: TraceWarningKind::ActorWithoutMessages,
            indicator_id: None,
            actor: Some(actor.to_owned()),
            path: None,
            suggestion: None,
            message: format!(
                "actor `{actor}` has no message in the trace: it never ran, and the run may have failed"
            ),
        }
    }

    /// A warning of the compatibility profiles (D-100, D-101), about the trace as a whole.
    pub(crate) fn compat_note(kind: TraceWarningKind, message: String) -> Self {
        TraceWarning {
            kind,
            indicator_id: None,
            actor: None,
            path: None,
            suggestion: None,
            message,
        }
    }

    /// The warning for an indicator whose target `path` never resolved in the `messages` that
    /// applied to it, with the keys the messages had where it stopped (`keys`: the path up to there
    /// and the keys) and the closest path among them.
    pub(crate) fn unresolved_target(
        indicator_id: &str,
        path: &str,
        messages: u64,
        keys: Option<(&str, &[Box<str>])>,
        suggestion: Option<String>,
    ) -> Self {
        let scope = if messages == 1 {
            String::from("in the one message")
        } else {
            format!("in any of the {messages} messages")
        };
        let mut message = format!(
            "indicator {indicator_id}: target `{path}` did not resolve {scope} it applied to, so its condition was never tested"
        );
        match (&suggestion, keys) {
            (Some(suggestion), _) => message.push_str(&format!("; did you mean `{suggestion}`?")),
            (None, Some((at, keys))) if !keys.is_empty() => {
                let at = if at.is_empty() {
                    String::from("the message")
                } else {
                    format!("`{at}`")
                };
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                message.push_str(&format!("; {at} had {}", keys.join(", ")));
            }
            _ => {}
        }
        TraceWarning {
            kind: TraceWarningKind::UnresolvedTarget,
            indicator_id: Some(indicator_id.to_owned()),
            actor: None,
            path: Some(path.to_owned()),
            suggestion,
            message,
        }
    }
}

impl TraceWarning {
    /// The warning for message number `position`, whose content was a whole trace line.
    pub(crate) fn content_is_trace_line(position: u64) -> Self {
        TraceWarning {
            kind: TraceWarningKind::ContentIsTraceLine,
            indicator_id: None,
            actor: None,
            path: None,
            suggestion: None,
            message: format!(
                "message {position}: its content is a whole trace line (with `direction` and `content`); \
                 indicators see a message's `content` (SDK §4.1): pass the line as a TraceMessage, or its `content`"
            ),
        }
    }

    /// The warning for an indicator that was not evaluated: `why` is its `skipped` evidence.
    pub(crate) fn indicator_skipped(indicator_id: &str, why: &str) -> Self {
        TraceWarning {
            kind: TraceWarningKind::IndicatorSkipped,
            indicator_id: Some(indicator_id.to_owned()),
            actor: None,
            path: None,
            suggestion: None,
            message: format!(
                "indicator {indicator_id} was not evaluated ({why}): the verdict comes from the other indicators"
            ),
        }
    }
}

/// Whether `content` looks like a whole trace line (`docs/trace-format.md`) rather than a message's
/// content: an object with a `direction` of `incoming` or `outgoing`, a `content`, and a `method` or
/// `seq`. Two or three lookups; used on the first messages only (D-134), and by the Python and npm
/// packages to refuse such a line where a content is expected (D-135, D-143).
///
/// ```
/// use serde_json::json;
///
/// let line = json!({"direction": "incoming", "method": "tools/call", "content": {"name": "x"}});
/// assert!(oatf_eval::looks_like_trace_line(&line));
/// assert!(!oatf_eval::looks_like_trace_line(&line["content"]));
/// ```
pub fn looks_like_trace_line(content: &serde_json::Value) -> bool {
    let Some(object) = content.as_object() else {
        return false;
    };
    matches!(
        object.get("direction").and_then(serde_json::Value::as_str),
        Some("incoming" | "outgoing")
    ) && object.contains_key("content")
        && (object.contains_key("method") || object.contains_key("seq"))
}

/// How many of the first messages [`looks_like_trace_line`] looks at: a caller that wraps messages
/// wraps them all.
pub(crate) const SHAPE_CHECKS: u64 = 8;

impl fmt::Display for TraceWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
