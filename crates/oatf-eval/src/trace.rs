//! Whole-trace evaluation (format §6): every indicator against the observed messages that apply to it.
//!
//! A trace is a sequence of [`TraceMessage`]s, usually read from JSON Lines by [`JsonlTraceReader`]
//! (`docs/trace-format.md`). [`TraceEvaluator`] takes them one at a time and keeps a fixed amount of
//! state per indicator, so memory does not depend on the length of the trace.
//!
//! For each message and indicator the trace-filtering procedure of format §6 decides whether the
//! message is fed to the indicator:
//!
//! 1. protocol: the protocol of the message's actor (from its mode, [`extract_protocol`]), or the
//!    message's own `protocol` when its actor is not declared, equals `indicator.protocol`;
//! 2. `indicator.surface`, when present, equals the message's `method`;
//! 3. `indicator.actor`, when present, is the message's actor;
//! 4. `indicator.direction`, when present, is the message's direction as seen from its actor's role:
//!    for a server-mode actor `incoming` is a request and `outgoing` a response, for a client-mode actor
//!    `outgoing` is a request and `incoming` a response.
//!
//! An indicator matches when any retained message matches it; the first match decides it and later
//! messages are not evaluated for it. An indicator no message applies to is `not_matched`, with
//! evidence naming the filter that removed the messages (spec-decisions 23: the agent never produced
//! the traffic the indicator looks for); a trace without any message gives `error`. The attribution
//! of messages to actors and the grace period are decision D-41 (`docs/decisions.md`).
//!
//! The rooms (D-160), each below the ones that use it:
//!
//! - `message.rs`: [`TraceMessage`], [`TraceDirection`], and the head and body the evaluator reads
//!   of a message;
//! - `evaluator.rs`: [`TraceEvaluator`], which routes each message (`route.rs`: its actor, grace
//!   and filter class, from its head alone), runs a per-message strategy on it and assembles the
//!   verdict; [`evaluate_trace`];
//! - `strategy.rs`: the per-message strategies (the straightforward engine, the prefilter on the
//!   first and on later messages of a class, filtering indicator by indicator), named methods over
//!   one state, the ledger of the indicators;
//! - `filter.rs` (the filter steps, by class of message), `grace.rs` (the grace period),
//!   `coverage.rs` (silent actors, unresolved targets, D-70), `evidence.rs` (the evidence texts),
//!   `context.rs` (the `thoughtjack-context` profile, D-100), `live.rs` ([`NewMatches`], D-131);
//! - `reader.rs` and `lazy.rs` ([`JsonlTraceReader`], D-91), `timestamp.rs` (RFC 3339).
//!
//! [`extract_protocol`]: oatf_primitives::extract_protocol

#[cfg(test)]
mod actor_tests;
mod context;
#[cfg(test)]
mod context_tests;
mod coverage;
#[cfg(test)]
mod coverage_tests;
mod evaluator;
mod evidence;
mod filter;
#[cfg(test)]
mod filter_tests;
mod grace;
mod lazy;
#[cfg(test)]
mod lazy_tests;
mod live;
#[cfg(test)]
mod live_tests;
mod message;
mod reader;
mod route;
mod strategy;
#[cfg(test)]
mod tests;
mod timestamp;

pub use context::{MAX_DERIVED_BYTES, MAX_ENTRY_DEPTH};
pub use evaluator::{TraceEvaluator, evaluate_trace};
pub use live::{NewMatch, NewMatches, NewMatchesIter};
pub use message::{TraceDirection, TraceMessage};
pub use reader::{
    DEFAULT_MAX_LINE_LEN, DEFAULT_MAX_LINE_NODES, JsonlTraceReader, TraceError, TraceErrorKind,
    describe_json_error,
};
