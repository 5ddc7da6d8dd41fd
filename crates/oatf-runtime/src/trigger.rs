//! Phase advancement (SDK §2.8–§2.8c, §5.8): `evaluate_trigger`, its compiled form and its state.

use std::fmt;
use std::time::Duration;

use oatf_model::Trigger;
use oatf_primitives::{CompiledPredicate, RegexLimits, parse_duration};
use serde_json::Value;

use crate::error::{CompileError, CompileErrorKind};

/// A protocol-level event observed by an actor (SDK §2.8a), borrowed from the caller's message.
///
/// `content` is the content root of the event (format §5.3: the JSON-RPC `params` of a request, the
/// `result` of a response, the SSE event object of AG-UI), against which `trigger.match` is evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProtocolEvent<'a> {
    /// The event type (`tools/call`, `message/send`, `run_started`, …).
    pub event_type: &'a str,
    /// The event payload.
    pub content: &'a Value,
}

impl<'a> ProtocolEvent<'a> {
    /// An event of type `event_type` carrying `content`.
    pub fn new(event_type: &'a str, content: &'a Value) -> Self {
        ProtocolEvent {
            event_type,
            content,
        }
    }
}

/// Why a phase advanced (SDK §2.8b).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdvanceReason {
    /// The required number of matching events was reached (`event_matched`).
    EventMatched,
    /// The `after` duration elapsed (`timeout`).
    Timeout,
}

impl AdvanceReason {
    /// The canonical string: `event_matched` or `timeout`.
    pub fn as_str(self) -> &'static str {
        match self {
            AdvanceReason::EventMatched => "event_matched",
            AdvanceReason::Timeout => "timeout",
        }
    }
}

impl fmt::Display for AdvanceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of evaluating a trigger (SDK §2.8b).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TriggerResult {
    /// The trigger condition is satisfied: advance to the next phase.
    Advanced {
        /// Why.
        reason: AdvanceReason,
    },
    /// The trigger condition is not yet satisfied: stay in the current phase.
    NotAdvanced,
}

impl TriggerResult {
    /// Whether the phase advances.
    pub fn is_advanced(self) -> bool {
        matches!(self, TriggerResult::Advanced { .. })
    }

    /// The reason of an advance, `None` when not advanced.
    pub fn reason(self) -> Option<AdvanceReason> {
        match self {
            TriggerResult::Advanced { reason } => Some(reason),
            TriggerResult::NotAdvanced => None,
        }
    }
}

/// Per-actor, per-phase trigger state (SDK §2.8c).
///
/// Create a fresh state (`TriggerState::default()`) when an actor enters a phase and pass the same
/// state to every evaluation of that phase's trigger; only the evaluation changes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TriggerState {
    event_count: u64,
}

impl TriggerState {
    /// The state on phase entry: no event counted.
    pub fn new() -> Self {
        TriggerState::default()
    }

    /// A state that has already counted `event_count` matching events (to resume a persisted run).
    pub fn with_event_count(event_count: u64) -> Self {
        TriggerState { event_count }
    }

    /// The number of fully matched events counted so far in this phase.
    pub fn event_count(&self) -> u64 {
        self.event_count
    }
}

/// A trigger compiled once (duration parsed, predicate compiled) and evaluated for every event and tick.
///
/// ```
/// use std::time::Duration;
/// use oatf_runtime::{CompiledTrigger, ProtocolEvent, Trigger, TriggerResult, TriggerState};
/// use serde_json::json;
///
/// let trigger: Trigger = serde_json::from_value(json!({"event": "tools/call", "count": 2, "after": "1m"}))?;
/// let trigger = CompiledTrigger::new(&trigger)?;
/// let mut state = TriggerState::new();
/// let params = json!({"name": "calc"});
/// let call = ProtocolEvent::new("tools/call", &params);
/// let at = Duration::from_secs(1);
/// assert_eq!(trigger.evaluate(Some(call), at, &mut state), TriggerResult::NotAdvanced);
/// assert!(trigger.evaluate(Some(call), at, &mut state).is_advanced());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CompiledTrigger {
    event: Option<Box<str>>,
    count: i64,
    predicate: Option<CompiledPredicate>,
    after: Option<Duration>,
}

impl CompiledTrigger {
    /// Compiles `trigger` with the default [`RegexLimits`].
    pub fn new(trigger: &Trigger) -> Result<Self, CompileError> {
        Self::with_limits(trigger, &RegexLimits::default())
    }

    /// Compiles `trigger` with explicit regex limits for its predicate.
    pub fn with_limits(trigger: &Trigger, limits: &RegexLimits) -> Result<Self, CompileError> {
        let after = trigger
            .after
            .as_deref()
            .map(|text| {
                parse_duration(text).map_err(|e| {
                    CompileError::new(
                        CompileErrorKind::InvalidDuration,
                        format!("invalid trigger.after {text:?}: {e}"),
                    )
                })
            })
            .transpose()?;
        let predicate = trigger
            .match_
            .as_ref()
            .map(|p| {
                CompiledPredicate::with_limits(p, limits)
                    .map_err(|e| CompileError::from_condition(&e, "invalid trigger.match"))
            })
            .transpose()?;
        Ok(CompiledTrigger {
            event: trigger.event.as_deref().map(Into::into),
            // SDK §2.8: `count` defaults to 1 when `event` is present.
            count: trigger.count.unwrap_or(1),
            predicate,
            after,
        })
    }

    /// The `after` duration, when present.
    pub fn after(&self) -> Option<Duration> {
        self.after
    }

    /// Evaluates the trigger (SDK §5.8) for an optional event at `elapsed` time since phase entry.
    ///
    /// 1. `after` present and `elapsed ≥ after`: advanced with reason `timeout` (the event, if any,
    ///    is not counted).
    /// 2. `event` present on both sides: a different event type, or content failing `match`, is not
    ///    advanced; otherwise the count is incremented and the trigger advances with reason
    ///    `event_matched` once the count reaches `count` (default 1).
    /// 3. Otherwise not advanced.
    ///
    /// A predicate that cannot be evaluated (a regex over a text longer than
    /// [`RegexLimits::max_input_len`]) does not match.
    pub fn evaluate(
        &self,
        event: Option<ProtocolEvent<'_>>,
        elapsed: Duration,
        state: &mut TriggerState,
    ) -> TriggerResult {
        if self.after.is_some_and(|after| elapsed >= after) {
            return TriggerResult::Advanced {
                reason: AdvanceReason::Timeout,
            };
        }
        let (Some(expected), Some(event)) = (self.event.as_deref(), event) else {
            return TriggerResult::NotAdvanced;
        };
        if event.event_type != expected {
            return TriggerResult::NotAdvanced;
        }
        if let Some(predicate) = &self.predicate
            && !predicate.evaluate(event.content).unwrap_or(false)
        {
            return TriggerResult::NotAdvanced;
        }
        state.event_count = state.event_count.saturating_add(1);
        // A count below 1 (rejected by validate) is reached by the first matching event.
        let reached = u64::try_from(self.count).map_or(true, |count| state.event_count >= count);
        if reached {
            TriggerResult::Advanced {
                reason: AdvanceReason::EventMatched,
            }
        } else {
            TriggerResult::NotAdvanced
        }
    }
}

/// Evaluates `trigger` (SDK §5.8); see [`CompiledTrigger::evaluate`].
///
/// A convenience that compiles on every call. Parts of a trigger that do not compile never fire: an
/// invalid `after` never times out and an invalid `match` never matches. Compile once with
/// [`CompiledTrigger`] to evaluate many events.
pub fn evaluate_trigger(
    trigger: &Trigger,
    event: Option<ProtocolEvent<'_>>,
    elapsed: Duration,
    state: &mut TriggerState,
) -> TriggerResult {
    if let Ok(compiled) = CompiledTrigger::new(trigger) {
        return compiled.evaluate(event, elapsed, state);
    }
    let after = trigger
        .after
        .as_deref()
        .and_then(|t| parse_duration(t).ok());
    let predicate = trigger
        .match_
        .as_ref()
        .and_then(|p| CompiledPredicate::new(p).ok());
    let matches_nothing = trigger.match_.is_some() && predicate.is_none();
    let compiled = CompiledTrigger {
        event: if matches_nothing {
            None
        } else {
            trigger.event.as_deref().map(Into::into)
        },
        count: trigger.count.unwrap_or(1),
        predicate,
        after,
    };
    compiled.evaluate(event, elapsed, state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(
        trigger: Value,
        event: Option<(&str, Value)>,
        elapsed: u64,
        count_before: u64,
        expect: Option<AdvanceReason>,
        count_after: u64,
    ) {
        let trigger: Trigger = serde_json::from_value(trigger).unwrap();
        let mut state = TriggerState::with_event_count(count_before);
        let event = event.as_ref().map(|(t, c)| ProtocolEvent::new(t, c));
        let result = evaluate_trigger(&trigger, event, Duration::from_secs(elapsed), &mut state);
        assert_eq!(result.reason(), expect, "{trigger:?}");
        assert_eq!(state.event_count(), count_after, "{trigger:?}");
    }

    #[test]
    fn timeout_is_checked_first_and_does_not_count() {
        let t = json!({"after": "30s"});
        check(t.clone(), None, 30, 0, Some(AdvanceReason::Timeout), 0);
        check(t.clone(), None, 29, 0, None, 0);
        let t = json!({"event": "tools/call", "after": "PT10S"});
        let e = Some(("tools/call", json!({})));
        check(t.clone(), e.clone(), 10, 0, Some(AdvanceReason::Timeout), 0);
        check(t, e, 9, 0, Some(AdvanceReason::EventMatched), 1);
    }

    #[test]
    fn events_are_counted_after_type_and_predicate() {
        let t = json!({"event": "tools/call", "count": 2, "match": {"name": "calc"}});
        let calc = || Some(("tools/call", json!({"name": "calc"})));
        check(t.clone(), calc(), 0, 0, None, 1);
        check(
            t.clone(),
            calc(),
            0,
            1,
            Some(AdvanceReason::EventMatched),
            2,
        );
        check(
            t.clone(),
            Some(("tools/call", json!({"name": "x"}))),
            0,
            1,
            None,
            1,
        );
        check(
            t.clone(),
            Some(("tools/list", json!({"name": "calc"}))),
            0,
            1,
            None,
            1,
        );
        check(t, None, 0, 1, None, 1);
    }

    #[test]
    fn degenerate_triggers_never_panic() {
        check(json!({}), Some(("a", json!(1))), 99, 0, None, 0);
        let e = Some(("a", json!(1)));
        check(
            json!({"event": "a", "count": 0}),
            e.clone(),
            0,
            0,
            Some(AdvanceReason::EventMatched),
            1,
        );
        check(
            json!({"event": "a", "count": -3}),
            e.clone(),
            0,
            u64::MAX,
            Some(AdvanceReason::EventMatched),
            u64::MAX,
        );
        // An invalid `after` never times out; an invalid regex never matches.
        check(
            json!({"event": "a", "after": "soon"}),
            e.clone(),
            999,
            0,
            Some(AdvanceReason::EventMatched),
            1,
        );
        check(
            json!({"event": "a", "match": {"x": {"regex": "("}}}),
            e,
            0,
            0,
            None,
            0,
        );
        assert!(
            CompiledTrigger::new(&serde_json::from_value(json!({"after": "-1s"})).unwrap())
                .is_err()
        );
    }
}
