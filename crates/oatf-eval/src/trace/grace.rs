//! The grace period (D-41): when every declared actor's terminal phases have ended, and which later
//! messages are past the period and not evaluated.

use super::message::Head;
use super::timestamp;
use crate::actor::CompiledActor;
use crate::attack::CompiledAttack;

/// When the terminal phases ended, for the grace period.
#[derive(Debug)]
pub(super) struct GraceState {
    /// The grace period in nanoseconds, when the attack has one.
    period: Option<i128>,
    /// Per declared actor: whether a message in one of its terminal phases was seen.
    terminal_seen: Vec<bool>,
    /// Actors not yet seen in a terminal phase.
    actors_pending: usize,
    /// The latest timestamp of a message in a terminal phase.
    terminal_end: Option<i128>,
}

impl GraceState {
    /// The state of a trace of `attack` before its first message.
    pub(super) fn new(attack: &CompiledAttack) -> Self {
        let actors = attack.compiled_actors().len();
        GraceState {
            period: attack
                .grace_period()
                .map(|g| i128::try_from(g.as_nanos()).unwrap_or(i128::MAX)),
            terminal_seen: vec![false; actors],
            actors_pending: actors,
            terminal_end: None,
        }
    }

    /// Where `message` stands with respect to the grace period, changing nothing; see
    /// [`record`](Self::record).
    ///
    /// The terminal phases have ended once every declared actor was seen in a terminal phase; from
    /// then on, a message that is not itself in a terminal phase and whose timestamp is more than
    /// the grace period after the last terminal-phase message is not evaluated. Messages without a
    /// readable timestamp are always evaluated.
    pub(super) fn assess(
        &self,
        actor: Option<(usize, &CompiledActor)>,
        message: &Head<'_>,
    ) -> Grace {
        let Some(period) = self.period else {
            return Grace::default();
        };
        let time = message.timestamp.and_then(timestamp::parse_rfc3339);
        let terminal = actor.filter(|(_, actor)| {
            message
                .phase
                .is_some_and(|phase| actor.terminal_phases.iter().any(|t| t == phase))
        });
        if let Some((index, _)) = terminal {
            return Grace {
                terminal: Some((index, time)),
                past: false,
            };
        }
        Grace {
            terminal: None,
            past: match (self.actors_pending, self.terminal_end, time) {
                (0, Some(end), Some(time)) => time > end.saturating_add(period),
                _ => false,
            },
        }
    }

    /// Records a message assessed as `grace` and says whether it is past the grace period.
    pub(super) fn record(&mut self, grace: Grace) -> bool {
        if let Some((index, time)) = grace.terminal {
            if let Some(seen) = self.terminal_seen.get_mut(index)
                && !*seen
            {
                *seen = true;
                self.actors_pending -= 1;
            }
            if let Some(time) = time {
                self.terminal_end = Some(self.terminal_end.map_or(time, |end| end.max(time)));
            }
        }
        grace.past
    }

    /// The heap bytes of the state: a flag per declared actor.
    pub(super) fn heap_bytes(&self) -> usize {
        self.terminal_seen.capacity()
    }
}

/// What [`GraceState::assess`] found of a message.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Grace {
    /// The message is in a terminal phase of the declared actor number `.0`, observed at `.1`.
    terminal: Option<(usize, Option<i128>)>,
    /// The message is past the grace period (never when it is in a terminal phase).
    pub(super) past: bool,
}
