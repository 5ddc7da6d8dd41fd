//! Trace filtering by lookup (format §6, steps 1–4), so that a message costs only the indicators
//! that apply to it.
//!
//! The four filter steps read only the protocol of a message (through its actor), its method, its
//! actor and its direction as seen from the actor's role. Messages that agree on those fall in one
//! *class*: the first message of a class runs the steps for every indicator once and the class keeps
//! the result (how many steps each indicator passed, and the indicators that apply); later messages
//! of the class only look their class up. A method or protocol is keyed by the indicator surface or
//! protocol it equals (or "none of them"), so the number of classes is bounded by the attack, not by
//! the trace; past [`MAX_CLASSES`] the caller filters the message indicator by indicator instead.
//!
//! Per indicator, the counts of messages that passed each step (for the `not_matched` evidence
//! "no applicable message: …") are the class counts weighted by the steps the indicator passed in
//! each class, summed in [`FilterTable::add_funnels`].

use std::mem::size_of;

use oatf_model::Direction;

use super::message::TraceDirection;
use crate::actor::CompiledActor;
use crate::attack::CompiledAttack;
use crate::compat::Compat;
use crate::indicator::CompiledIndicator;

/// At most this many classes are kept; a message of a further class is filtered indicator by
/// indicator (see the module documentation). Bounds the table at `MAX_CLASSES` × indicators bytes.
pub(super) const MAX_CLASSES: usize = 256;

/// The methods an `arguments` target sees under the context profile (D-100, point 4).
const CALL_METHODS: [&str; 3] = ["tools/call", "message/send", "tasks/send"];

/// A value of a key field that names none of the indicators' values.
const OTHER: u32 = u32::MAX - 1;
/// A key field that is absent (no actor, no method, no protocol).
const ABSENT: u32 = u32::MAX;

/// What the filter steps of format §6 read of a message, interned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Key {
    /// The index of the declared actor, or [`ABSENT`].
    actor: u32,
    /// The index of the protocol among the indicators' protocols, [`OTHER`] or [`ABSENT`].
    protocol: u32,
    /// The index of the method among the indicators' surfaces, [`OTHER`] or [`ABSENT`].
    method: u32,
    /// The direction as seen from the actor's role: 0 unknown, 1 request, 2 response.
    direction: u8,
    /// Under the context profile (D-100, point 4), whether the message is an incoming call;
    /// always `false` in the default profile.
    incoming_call: bool,
}

/// The outcome of the filter steps for every indicator, for the messages of one [`Key`].
#[derive(Debug)]
struct Class {
    key: Key,
    /// Per indicator (in attack order): how many filter steps it passed (4: the message applies).
    passed: Box<[u8]>,
    /// The indexes of the indicators that apply (passed all four steps), in attack order.
    applicable: Box<[u32]>,
    /// How many messages of this class were filtered.
    messages: u64,
}

/// The classes seen so far (see the module documentation).
#[derive(Debug)]
pub(super) struct FilterTable<'a> {
    /// The distinct `indicator.surface` values.
    surfaces: Vec<&'a str>,
    /// The distinct `indicator.protocol` values.
    protocols: Vec<&'a str>,
    /// The profile whose filters the classes follow.
    compat: Compat,
    classes: Vec<Class>,
    /// The class of the previous message, tried first (traces come in runs of one kind).
    last: usize,
}

impl<'a> FilterTable<'a> {
    /// An empty table for the indicators of `attack`, under the filters of `compat`.
    pub(super) fn new(attack: &'a CompiledAttack, compat: Compat) -> Self {
        let mut surfaces: Vec<&'a str> = Vec::new();
        let mut protocols: Vec<&'a str> = Vec::new();
        for indicator in attack.indicator_entries().iter().flatten() {
            if let Some(surface) = indicator.surface()
                && !surfaces.contains(&surface)
            {
                surfaces.push(surface);
            }
            if let Some(protocol) = indicator.protocol()
                && !protocols.contains(&protocol)
            {
                protocols.push(protocol);
            }
        }
        FilterTable {
            surfaces,
            protocols,
            compat,
            classes: Vec::new(),
            last: 0,
        }
    }

    /// The key of a message with `method` travelling `travel`, of the declared actor number
    /// `actor` (when it has one), whose protocol is `protocol` and whose direction, seen from its
    /// actor's role, is `direction`.
    pub(super) fn key(
        &self,
        actor: Option<usize>,
        protocol: Option<&str>,
        (method, travel): (Option<&str>, TraceDirection),
        direction: Option<Direction>,
    ) -> Key {
        Key {
            actor: actor.map_or(ABSENT, |index| {
                u32::try_from(index).unwrap_or(OTHER).min(OTHER)
            }),
            protocol: intern(&self.protocols, protocol),
            method: intern(&self.surfaces, method),
            direction: match direction {
                None => 0,
                Some(Direction::Request) => 1,
                Some(_) => 2,
            },
            incoming_call: self.compat.is_context() && is_incoming_call(method, travel),
        }
    }

    /// The class of `key` when the table has it, changing nothing.
    pub(super) fn find(&self, key: Key) -> Option<usize> {
        if self.classes.get(self.last).is_some_and(|c| c.key == key) {
            Some(self.last)
        } else {
            self.classes.iter().position(|c| c.key == key)
        }
    }

    /// The indicators (indexes in attack order) that apply to the messages of class `class`.
    pub(super) fn applicable_of(&self, class: usize) -> &[u32] {
        self.classes.get(class).map_or(&[], |c| &c.applicable)
    }

    /// The class of a message of `key` (`found`: its class when [`find`](Self::find) found it) and
    /// the indicators (indexes in attack order) it applies to, counting the message in its class;
    /// `None` when the table is full and the caller must filter indicator by indicator. `method`,
    /// `actor`, `protocol` and `direction` are the message's, as for [`key`](Self::key).
    pub(super) fn applicable(
        &mut self,
        attack: &CompiledAttack,
        (key, found): (Key, Option<usize>),
        method: (Option<&str>, TraceDirection),
        actor: Option<(usize, &CompiledActor)>,
        protocol: Option<&str>,
        direction: Option<Direction>,
    ) -> Option<(usize, &[u32])> {
        let index = if let Some(index) = found {
            index
        } else if self.classes.len() < MAX_CLASSES {
            let entries = attack.indicator_entries();
            let mut passed = Vec::with_capacity(entries.len());
            let mut applicable = Vec::new();
            for (i, entry) in entries.iter().enumerate() {
                let steps = match entry {
                    Ok(indicator) => filter_steps_passed(
                        indicator,
                        method,
                        actor.map(|(_, a)| a),
                        protocol,
                        direction,
                        self.compat,
                    ),
                    Err(_) => 0,
                };
                if steps == 4 {
                    applicable.push(u32::try_from(i).unwrap_or(u32::MAX));
                }
                passed.push(u8::try_from(steps).unwrap_or(0));
            }
            self.classes.push(Class {
                key,
                passed: passed.into_boxed_slice(),
                applicable: applicable.into_boxed_slice(),
                messages: 0,
            });
            self.classes.len() - 1
        } else {
            return None;
        };
        self.last = index;
        let class = self.classes.get_mut(index)?;
        class.messages += 1;
        Some((index, &class.applicable))
    }

    /// Adds the messages counted by class to the per-indicator step counts `funnels`.
    pub(super) fn add_funnels(&self, funnels: &mut [[u64; 4]]) {
        for class in &self.classes {
            for (funnel, &passed) in funnels.iter_mut().zip(class.passed.iter()) {
                for count in funnel.iter_mut().take(usize::from(passed)) {
                    *count += class.messages;
                }
            }
        }
    }

    /// The heap bytes of the table; bounded by [`MAX_CLASSES`] and the attack.
    pub(super) fn heap_bytes(&self) -> usize {
        (self.surfaces.capacity() + self.protocols.capacity()) * size_of::<&str>()
            + self.classes.capacity() * size_of::<Class>()
            + self
                .classes
                .iter()
                .map(|c| c.passed.len() + c.applicable.len() * size_of::<u32>())
                .sum::<usize>()
    }
}

/// The index of `value` in `values`, [`OTHER`] when it is none of them, [`ABSENT`] without a value.
fn intern(values: &[&str], value: Option<&str>) -> u32 {
    match value {
        None => ABSENT,
        Some(value) => values
            .iter()
            .position(|v| *v == value)
            .and_then(|i| u32::try_from(i).ok())
            .map_or(OTHER, |i| i.min(OTHER - 1)),
    }
}

/// Whether an entry of `method` travelling `direction` is one an `arguments` target sees under the
/// context profile (D-100, point 4).
fn is_incoming_call(method: Option<&str>, direction: TraceDirection) -> bool {
    direction == TraceDirection::Incoming && method.is_some_and(|m| CALL_METHODS.contains(&m))
}

/// The trace-filtering procedure of format §6, steps 1–4, for one indicator and one message (its
/// `method` and the way it travelled, actor, protocol and direction as seen from the actor's
/// role) under the profile `compat`: how many steps the message passed, in order (4 means the
/// message applies to the indicator).
///
/// The context profile (D-100) relaxes step 1 (an `mcp` indicator also sees the AG-UI actors'
/// messages, point 3) and narrows step 2 (an `arguments` target sees only incoming calls, point 4).
pub(super) fn filter_steps_passed(
    indicator: &CompiledIndicator,
    (method, travel): (Option<&str>, TraceDirection),
    actor: Option<&CompiledActor>,
    protocol: Option<&str>,
    direction: Option<Direction>,
    compat: Compat,
) -> usize {
    // Step 1. An indicator without protocol (an invalid document, V-028) is not restricted.
    if let Some(wanted) = indicator.protocol()
        && protocol != Some(wanted)
        && !(compat.is_context() && wanted == "mcp" && actor.is_some_and(|a| a.protocol == "ag_ui"))
    {
        return 0;
    }
    // Point 4 of the context profile, counted with step 2 (which messages the target sees).
    if compat.is_context() && indicator.calls_only() && !is_incoming_call(method, travel) {
        return 1;
    }
    // Step 2.
    if let Some(surface) = indicator.surface()
        && method != Some(surface)
    {
        return 1;
    }
    // Step 3: only declared actors can be named by an indicator (V-035).
    if let Some(wanted) = indicator.actor()
        && actor.map(|a| a.name.as_str()) != Some(wanted)
    {
        return 2;
    }
    // Step 4: without a known role (an undeclared actor, a mode that is neither `_server` nor
    // `_client`) the direction cannot be told, so direction-restricted indicators skip the message.
    if let Some(wanted) = indicator.direction()
        && direction != Some(wanted)
    {
        return 3;
    }
    4
}
