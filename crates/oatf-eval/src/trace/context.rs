//! ThoughtJack's context mode ([`Compat::ThoughtjackContext`], decision D-100): the messages its
//! evaluator derives from a trace before filtering, and the two filter changes.
//!
//! The derivation, in the order decision D-100 numbers it:
//!
//! 1. every `text_message_content` entry of an AG-UI actor whose `content.delta` is a string `D`
//!    is repeated, after all the original entries and in trace order, with the content
//!    `{"response": {"content": D}, "body": D, "content": D}` (its `seq`, `timestamp`, `phase` and
//!    method), once for each `_server` actor (direction `outgoing`) and once for the AG-UI actor
//!    itself (the entry's own direction): [`Derivations`] keeps what it needs of those entries,
//!    bounded by [`MAX_DERIVED_BYTES`], and the evaluator replays them when it finishes;
//! 2. an incoming A2A `tools/call` with an `arguments` key gains `a2a.task.message`
//!    ([`a2a_alias`]);
//! 3. `mcp` indicators also see the AG-UI actors' entries, and 4. indicators whose target is
//!    exactly `arguments` or `request.params.arguments` (`compat::narrows_to_calls`) see only
//!    incoming `tools/call`, `message/send` and `tasks/send` entries (both in
//!    `filter::filter_steps_passed`, which owns the filter steps);
//! 5. the spec's filters and evaluation.
//!
//! Entries nested deeper than [`MAX_ENTRY_DEPTH`] levels are skipped ([`content_too_deep`],
//! [`raw_too_deep`]). [`ContextState`] is what a `TraceEvaluator` in the profile keeps while reading,
//! with the profile's warnings and the default profile's `compat_would_change` (D-101).
//!
//! [`Compat::ThoughtjackContext`]: crate::Compat::ThoughtjackContext

use std::mem::size_of;
use std::ops::Range;

use serde_json::{Map, Value};

use super::filter::filter_steps_passed;
use super::lazy::nests_as_deep_as;
use super::message::{Body, Head, TraceDirection};
use crate::actor::{CompiledActor, Role};
use crate::attack::CompiledAttack;
use crate::compat::Compat;
use crate::verdict::AttackVerdict;
use crate::warning::{TraceWarning, TraceWarningKind};

/// Entries (whole trace lines, the line's own object being the first level) that nest arrays and
/// objects deeper than this are skipped by the context profile, as ThoughtJack skips them.
pub const MAX_ENTRY_DEPTH: usize = 64;

/// The most bytes the context profile keeps of a trace's AG-UI `text_message_content` entries until
/// it replays them at the end (their deltas, timestamps and phases, and a fixed record each);
/// entries past it are not derived, and the verdict warns of it.
pub const MAX_DERIVED_BYTES: usize = 32 * 1024 * 1024;

/// The method of the AG-UI entries whose text is derived (point 1).
pub(super) const TEXT_MESSAGE_CONTENT: &str = "text_message_content";

/// Whether the entry whose content is `content` nests deeper than [`MAX_ENTRY_DEPTH`] levels, its
/// line's object being the first.
pub(super) fn content_too_deep(content: &Value) -> bool {
    nests_as_deep_as(content, MAX_ENTRY_DEPTH)
}

/// [`content_too_deep`] for the raw JSON text of a content, valid as serde_json skips it: brackets
/// counted outside strings.
pub(super) fn raw_too_deep(raw: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in raw {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth >= MAX_ENTRY_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The content of an incoming A2A `tools/call` with the alias of point 2 added, when it has an
/// `arguments` key: `a2a.task.message` is `arguments.message` when that key exists, else the compact
/// JSON text of `arguments`. `None` when the content has no `arguments`.
pub(super) fn a2a_alias(content: &Value) -> Option<Value> {
    let arguments = content.as_object()?.get("arguments")?;
    let message = match arguments.as_object().and_then(|a| a.get("message")) {
        Some(message) => message.clone(),
        None => Value::String(arguments.to_string()),
    };
    let mut aliased = content.clone();
    let mut task = Map::new();
    task.insert(String::from("message"), message);
    let mut a2a = Map::new();
    a2a.insert(String::from("task"), Value::Object(task));
    if let Some(object) = aliased.as_object_mut() {
        object.insert(String::from("a2a"), Value::Object(a2a));
    }
    Some(aliased)
}

/// The content of a derived entry (point 1) for the delta `text`.
pub(super) fn derived_content(text: &str) -> Value {
    let mut response = Map::new();
    response.insert(String::from("content"), Value::String(text.to_owned()));
    let mut content = Map::new();
    content.insert(String::from("response"), Value::Object(response));
    content.insert(String::from("body"), Value::String(text.to_owned()));
    content.insert(String::from("content"), Value::String(text.to_owned()));
    Value::Object(content)
}

/// One AG-UI `text_message_content` entry kept for derivation: its head's fields and its delta as
/// ranges of [`Derivations::text`].
#[derive(Debug)]
pub(super) struct Source {
    /// The declared AG-UI actor the entry belongs to.
    pub(super) actor: usize,
    /// The number of the original entry (evidence and the match's line name it).
    pub(super) position: u64,
    pub(super) seq: Option<u64>,
    pub(super) direction: TraceDirection,
    timestamp: Option<Range<usize>>,
    phase: Option<Range<usize>>,
    delta: Range<usize>,
}

/// The AG-UI entries point 1 derives messages from, kept until the end of the trace: one record
/// and the texts (delta, timestamp, phase) in one buffer, at most [`MAX_DERIVED_BYTES`] in all.
#[derive(Debug, Default)]
pub(super) struct Derivations {
    text: String,
    sources: Vec<Source>,
    /// Entries not kept because the bound was reached.
    pub(super) dropped: u64,
}

impl Derivations {
    /// Keeps the entry `head` (number `position`, of the declared AG-UI actor `actor`) whose delta
    /// is `delta`, unless that would pass [`MAX_DERIVED_BYTES`]; says whether it was kept.
    pub(super) fn keep(
        &mut self,
        actor: usize,
        position: u64,
        head: &Head<'_>,
        delta: &str,
    ) -> bool {
        let adds = delta.len()
            + head.timestamp.map_or(0, str::len)
            + head.phase.map_or(0, str::len)
            + size_of::<Source>();
        if self.bytes().saturating_add(adds) > MAX_DERIVED_BYTES {
            self.dropped += 1;
            return false;
        }
        // Grown by doubling, but never past the bound, so the capacity stays within it.
        let needed = self.text.len() + adds - size_of::<Source>();
        if needed > self.text.capacity() {
            let capacity = (self.text.capacity() * 2)
                .max(needed)
                .min(MAX_DERIVED_BYTES);
            self.text.reserve_exact(capacity - self.text.len());
        }
        let mut push = |s: &str| {
            let start = self.text.len();
            self.text.push_str(s);
            start..self.text.len()
        };
        let delta = push(delta);
        let timestamp = head.timestamp.map(&mut push);
        let phase = head.phase.map(&mut push);
        self.sources.push(Source {
            actor,
            position,
            seq: head.seq,
            direction: head.direction,
            timestamp,
            phase,
            delta,
        });
        true
    }

    /// The bytes kept: texts and records.
    pub(super) fn bytes(&self) -> usize {
        self.text.len() + self.sources.len() * size_of::<Source>()
    }

    /// The heap bytes held (capacities).
    pub(super) fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.sources.capacity() * size_of::<Source>()
    }

    /// The entries kept, in trace order, and the buffer of their texts, taken out (the count of
    /// those dropped stays).
    pub(super) fn take(&mut self) -> (String, Vec<Source>) {
        (
            std::mem::take(&mut self.text),
            std::mem::take(&mut self.sources),
        )
    }
}

impl Source {
    /// The delta, timestamp and phase of this entry in `text` (the buffer it was kept in).
    pub(super) fn texts<'t>(&self, text: &'t str) -> (&'t str, Option<&'t str>, Option<&'t str>) {
        let get = |range: &Range<usize>| text.get(range.clone()).unwrap_or_default();
        (
            get(&self.delta),
            self.timestamp.as_ref().map(get),
            self.phase.as_ref().map(get),
        )
    }
}

/// What the context profile keeps while reading (D-100).
#[derive(Debug, Default)]
pub(super) struct ContextState {
    /// The AG-UI text entries to derive messages from at the end (point 1).
    pub(super) derivations: Derivations,
    /// Whether a derived message could apply to an indicator at all; when not, nothing is kept.
    pub(super) useful: bool,
    /// The declared `_server` actors (indexes, document order), which derived messages go to.
    pub(super) servers: Vec<usize>,
    /// AG-UI `text_message_content` entries seen, those skipped for their depth included (the
    /// trace looks like context mode, D-101).
    pub(super) sources: u64,
    /// Entries kept for derivation (their number never decreases).
    pub(super) kept: u64,
    /// Entries skipped for nesting deeper than [`MAX_ENTRY_DEPTH`].
    pub(super) too_deep: u64,
}

impl ContextState {
    /// The state for `attack`: its server actors, and whether a derived message could apply to
    /// any indicator (when none can, no entry is kept).
    pub(super) fn new(attack: &CompiledAttack) -> Self {
        let actors = attack.compiled_actors();
        let servers: Vec<usize> = actors
            .iter()
            .enumerate()
            .filter(|(_, a)| a.role == Some(Role::Server))
            .map(|(index, _)| index)
            .collect();
        // Every (actor, direction) a derived message can have.
        let server_targets = servers.iter().map(|&i| (i, TraceDirection::Outgoing));
        let own_targets = actors
            .iter()
            .enumerate()
            .filter(|(_, a)| a.protocol == AG_UI)
            .flat_map(|(i, _)| [(i, TraceDirection::Incoming), (i, TraceDirection::Outgoing)]);
        let useful = server_targets.chain(own_targets).any(|(index, travel)| {
            let Some(actor) = actors.get(index) else {
                return false;
            };
            let direction = actor.role.map(|role| travel.as_seen_by(role));
            attack
                .indicator_entries()
                .iter()
                .flatten()
                .any(|indicator| {
                    filter_steps_passed(
                        indicator,
                        (Some(TEXT_MESSAGE_CONTENT), travel),
                        Some(actor),
                        Some(actor.protocol.as_str()),
                        direction,
                        Compat::ThoughtjackContext,
                    ) == 4
                })
        });
        ContextState {
            useful,
            servers,
            ..ContextState::default()
        }
    }

    /// Whether the context profile could change the verdict of a trace of `attack`: it has an
    /// AG-UI actor and a server actor, the shape of ThoughtJack's context mode (D-101).
    pub(super) fn may_change(attack: &CompiledAttack) -> bool {
        let actors = attack.compiled_actors();
        actors.iter().any(|a| a.protocol == AG_UI)
            && actors.iter().any(|a| a.role == Some(Role::Server))
    }

    /// Whether the entry `head` of `actor` is one point 1 derives messages from (before its
    /// content is read): a `text_message_content` entry of an AG-UI actor.
    pub(super) fn is_source(actor: Option<(usize, &CompiledActor)>, head: &Head<'_>) -> bool {
        head.method == Some(TEXT_MESSAGE_CONTENT) && actor.is_some_and(|(_, a)| a.protocol == AG_UI)
    }

    /// Applies points 1 and 2 to the original entry `head` (number `position`) of `actor`: keeps
    /// an AG-UI text entry's delta for the end (while an indicator is `undecided`), and returns
    /// the aliased content of an incoming A2A `tools/call` with `arguments`.
    pub(super) fn observe(
        &mut self,
        actor: Option<(usize, &CompiledActor)>,
        head: &Head<'_>,
        body: Body<'_>,
        position: u64,
        undecided: usize,
    ) -> Option<Value> {
        let (index, compiled) = actor?;
        if Self::is_source(actor, head) {
            if let Body::Parsed(content) = body
                && self.useful
                && undecided > 0
                && let Some(delta) = content.get("delta").and_then(Value::as_str)
                && self.derivations.keep(index, position, head, delta)
            {
                self.kept += 1;
            }
            return None;
        }
        match body {
            Body::Parsed(content)
                if compiled.protocol == "a2a"
                    && head.method == Some("tools/call")
                    && head.direction == TraceDirection::Incoming =>
            {
                a2a_alias(content)
            }
            _ => None,
        }
    }

    /// The warnings of the profile: entries skipped for their depth, entries not derived for the
    /// bound on what is kept.
    pub(super) fn warnings(&self) -> Vec<TraceWarning> {
        let mut warnings = Vec::new();
        if self.too_deep > 0 {
            warnings.push(TraceWarning::compat_note(
                TraceWarningKind::TooDeepEntriesSkipped,
                format!(
                    "{} trace {} nested deeper than {} levels, skipped as ThoughtJack skips them \
                     (--compat thoughtjack-context)",
                    self.too_deep,
                    if self.too_deep == 1 {
                        "entry"
                    } else {
                        "entries"
                    },
                    MAX_ENTRY_DEPTH
                ),
            ));
        }
        if self.derivations.dropped > 0 {
            warnings.push(TraceWarning::compat_note(
                TraceWarningKind::DerivationLimit,
                format!(
                    "{} AG-UI text_message_content {} not turned into responses: the \
                     thoughtjack-context profile keeps at most {} bytes of them, so the verdict \
                     may miss a match",
                    self.derivations.dropped,
                    if self.derivations.dropped == 1 {
                        "entry was"
                    } else {
                        "entries were"
                    },
                    MAX_DERIVED_BYTES
                ),
            ));
        }
        warnings
    }

    /// The warning of D-101: the spec-exact `verdict` of a trace that looks like ThoughtJack's
    /// context mode (`sources` AG-UI text entries beside server actors, and a target that never
    /// resolved) differs from `other`, its verdict under the context profile.
    pub(super) fn would_change(
        verdict: &AttackVerdict,
        other: &AttackVerdict,
        sources: u64,
    ) -> Option<TraceWarning> {
        let unresolved = verdict
            .warnings
            .iter()
            .any(|w| w.kind == TraceWarningKind::UnresolvedTarget);
        if sources == 0 || !unresolved {
            return None;
        }
        let outcome = |v: &AttackVerdict| match v.max_tier {
            Some(tier) => format!("{} ({})", v.result, tier.as_str()),
            None => v.result.to_string(),
        };
        let (now, then) = (outcome(verdict), outcome(other));
        (now != then).then(|| {
            TraceWarning::compat_note(
                TraceWarningKind::CompatWouldChange,
                format!(
                    "this trace looks like ThoughtJack's context mode (AG-UI text_message_content \
                     entries beside server actors, and a target that never resolved): scored as \
                     ThoughtJack scores context mode, the verdict would be {then} instead of {now}; \
                     re-score it with --compat thoughtjack-context (Python: \
                     compat=\"thoughtjack-context\"; JavaScript: {{compat: \"thoughtjack-context\"}})"
                ),
            )
        })
    }
}

/// The protocol of AG-UI actors (`ag_ui_client`, `ag_ui_server`).
pub(super) const AG_UI: &str = "ag_ui";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_raw_depth_agrees_with_the_parsed_one() {
        for depth in [0, 1, 62, 63, 64, 65, 100] {
            for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
                let raw = format!("{}1{}", open.repeat(depth), close.repeat(depth));
                let value: Value = match serde_json::from_str(&raw) {
                    Ok(value) => value,
                    Err(e) => panic!("{raw}: {e}"),
                };
                assert_eq!(
                    raw_too_deep(raw.as_bytes()),
                    content_too_deep(&value),
                    "{raw}"
                );
                // The line's object is the first level: a content 63 deep is a line 64 deep.
                assert_eq!(content_too_deep(&value), depth >= 64, "depth {depth}");
            }
        }
        // Brackets inside strings, escaped quotes included, do not count.
        let text = format!("{{\"a\": \"\\\"{}\"}}", "[".repeat(100));
        assert!(!raw_too_deep(text.as_bytes()));
    }

    #[test]
    fn the_alias_is_the_message_argument_or_the_compact_arguments() {
        let with_message = json!({"name": "delegate", "arguments": {"message": {"x": 1}, "b": 2}});
        assert_eq!(
            a2a_alias(&with_message).map(|v| v["a2a"]["task"]["message"].clone()),
            Some(json!({"x": 1}))
        );
        let without = json!({"name": "delegate", "arguments": {"z": 1, "a": [true, "s"]}});
        assert_eq!(
            a2a_alias(&without).map(|v| v["a2a"]["task"]["message"].clone()),
            Some(json!("{\"z\":1,\"a\":[true,\"s\"]}"))
        );
        // The rest of the content is kept, and a content without `arguments` has no alias.
        assert_eq!(
            a2a_alias(&without).map(|v| v["name"].clone()),
            Some(json!("delegate"))
        );
        assert_eq!(a2a_alias(&json!({"name": "x"})), None);
        assert_eq!(a2a_alias(&json!("text")), None);
    }
}
