//! Where a message goes, decided from its [`Head`] before its content is read (D-91): the declared
//! actor it belongs to (D-41), its protocol and direction as the filter steps read them, and the
//! [`Route`] the evaluator computes from them.

use oatf_model::Direction;

use super::filter::Key;
use super::grace::Grace;
use super::message::Head;
use crate::actor::CompiledActor;

/// Where a message goes, decided from its [`Head`] before its content is read
/// (`TraceEvaluator::route`): valid until the evaluator changes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Route<'a> {
    /// The declared actor of the message, with its number.
    pub(super) actor: Option<(usize, &'a CompiledActor)>,
    /// Where the message stands with respect to the grace period.
    pub(super) grace: Grace,
    /// The message's filter class key and its class when the table has it.
    pub(super) class: Option<(Key, Option<usize>)>,
    /// Whether evaluating the message reads its content: `false` only when it certainly does not
    /// (past the grace period, every indicator decided, or a known class whose applicable indicators
    /// are all decided).
    pub(crate) needs_content: bool,
}

/// The declared actor (of `actors`) a message belongs to: the one it names, or, when it names none,
/// the only actor of the document unless the message's own `protocol` says otherwise.
pub(super) fn actor_of<'a>(
    actors: &'a [CompiledActor],
    message: &Head<'_>,
) -> Option<(usize, &'a CompiledActor)> {
    match message.actor {
        Some(name) => actors.iter().enumerate().find(|(_, a)| a.name == name),
        None => match actors {
            [only] if message.protocol.is_none_or(|p| p == only.protocol) => Some((0, only)),
            _ => None,
        },
    }
}

/// The protocol of a message of `actor` (the actor's, or the message's own without a declared
/// actor) and its direction as seen from the actor's role.
pub(super) fn protocol_and_direction<'m>(
    actor: Option<(usize, &'m CompiledActor)>,
    head: &Head<'m>,
) -> (Option<&'m str>, Option<Direction>) {
    let actor = actor.map(|(_, actor)| actor);
    let protocol = match actor {
        Some(actor) => Some(actor.protocol.as_str()),
        None => head.protocol,
    };
    let direction = actor
        .and_then(|actor| actor.role)
        .map(|role| head.direction.as_seen_by(role));
    (protocol, direction)
}
