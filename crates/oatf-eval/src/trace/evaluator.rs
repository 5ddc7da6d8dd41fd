//! [`TraceEvaluator`]: routes each message (its actor, its grace-period standing, its filter class;
//! before its content is read, D-91), runs the per-message strategy that fits it (`strategy.rs`),
//! keeps the context profile's derivations and its shadow (D-100, D-101), and assembles the verdict.

use std::mem::size_of;

use super::context::{self, ContextState};
use super::coverage::ActorCensus;
use super::evidence::no_applicable_message;
use super::filter::{self, FilterTable};
use super::grace::GraceState;
use super::live::NewMatches;
use super::message::{Body, Head, TraceDirection, TraceMessage};
use super::route::{Route, actor_of, protocol_and_direction};
use super::strategy::{Ledger, Message};
use crate::attack::CompiledAttack;
use crate::compat::Compat;
use crate::prefilter::Prefilter;
use crate::texts::MessageTexts;
use crate::verdict::{AttackResult, AttackVerdict};
use crate::warning::{SHAPE_CHECKS, TraceWarning, looks_like_trace_line};

/// Evaluates a whole trace against an attack, one message at a time (format §6).
///
/// Memory is fixed when it is created: one small state per indicator (its first matching message or
/// first error, with evidence truncated as the [`EvalOptions`](crate::EvalOptions) say) and one flag
/// per actor. Nothing of a message is kept after [`push`](Self::push) returns.
///
/// ```
/// use oatf_eval::{AttackResult, CompiledAttack, Document, EvalOptions, TraceDirection,
///                 TraceEvaluator, TraceMessage};
/// use serde_json::json;
///
/// let document: Document = serde_json::from_value(json!({
///     "oatf": "0.1",
///     "attack": {
///         "id": "OATF-900",
///         "execution": {"mode": "mcp_server", "state": {"tools": []}},
///         "indicators": [{
///             "surface": "tools/call", "direction": "request",
///             "target": "arguments.path", "pattern": {"contains": ".ssh/id_rsa"}
///         }]
///     }
/// }))?;
/// let attack = CompiledAttack::new(&document, &EvalOptions::new());
/// let mut evaluator = TraceEvaluator::new(&attack);
/// evaluator.push(
///     &TraceMessage::new(
///         TraceDirection::Incoming,
///         "tools/call",
///         json!({"name": "read", "arguments": {"path": "/home/u/.ssh/id_rsa"}}),
///     )
///     .with_actor("default")
///     .with_seq(7),
/// );
/// let verdict = evaluator.finish();
/// assert_eq!(verdict.result, AttackResult::Exploited);
/// assert_eq!(
///     verdict.indicator_verdicts[0].evidence.as_deref(),
///     Some("seq 7 (tools/call): /home/u/.ssh/id_rsa")
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TraceEvaluator<'a> {
    attack: &'a CompiledAttack,
    /// Per indicator: what the messages so far decided, and the counts every strategy changes.
    ledger: Ledger<'a>,
    /// The filter steps' outcome by class of message (format §6 filtering by lookup).
    filter: FilterTable<'a>,
    /// The literal prefilter (D-75); `None` runs the straightforward engine, the reference.
    pub(crate) prefilter: Option<Prefilter<'a>>,
    /// Messages per actor, declared or not (silent actors, the `not_matched` evidence).
    census: ActorCensus,
    /// How many indicators the last message matched first ([`NewMatches`], D-131).
    last_matched: usize,
    /// The first of the first messages whose content was a whole trace line (D-134).
    trace_line_at: Option<u64>,
    messages: u64,
    after_grace: u64,
    grace: GraceState,
    /// The compatibility profile (D-100); `SpecExact` by default.
    compat: Compat,
    /// The context profile's state: the entries to derive from and the counts of its warnings.
    context: Option<Box<ContextState>>,
    /// In the default profile, for a document with an AG-UI actor and a server actor: the same
    /// trace under the context profile, to warn when the verdict would change (D-101).
    shadow: Option<Box<TraceEvaluator<'a>>>,
}

impl<'a> TraceEvaluator<'a> {
    /// An evaluator for `attack`, before any message, in the default profile
    /// ([`Compat::SpecExact`]).
    pub fn new(attack: &'a CompiledAttack) -> Self {
        Self::with_compat(attack, Compat::SpecExact)
    }

    /// An evaluator for `attack` in the compatibility profile `compat` (D-100), before any message.
    ///
    /// [`Compat::ThoughtjackContext`] evaluates the trace as ThoughtJack's context mode does: it
    /// derives messages from the AG-UI text entries, which it keeps (at most
    /// [`MAX_DERIVED_BYTES`](context::MAX_DERIVED_BYTES)) and evaluates when
    /// [`finish`](Self::finish) is called.
    ///
    /// ```
    /// use oatf_eval::{AttackResult, Compat, CompiledAttack, Document, EvalOptions,
    ///                 TraceDirection, TraceEvaluator, TraceMessage};
    /// use serde_json::json;
    ///
    /// let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
    ///     "execution": {"actors": [
    ///         {"name": "ui", "mode": "ag_ui_client", "phases": [{"name": "p", "state": {}}]},
    ///         {"name": "tools", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}]},
    ///     "indicators": [{"protocol": "ag_ui", "target": "response.content",
    ///                     "pattern": {"contains": "rm -rf"}}]}}))?;
    /// let attack = CompiledAttack::new(&document, &EvalOptions::new());
    /// let text = TraceMessage::new(TraceDirection::Incoming, "text_message_content",
    ///     json!({"delta": "run rm -rf / now"})).with_actor("ui").with_seq(4);
    ///
    /// let mut exact = TraceEvaluator::new(&attack);
    /// exact.push(&text);
    /// assert_eq!(exact.finish().result, AttackResult::NotExploited);
    ///
    /// let mut context = TraceEvaluator::with_compat(&attack, Compat::ThoughtjackContext);
    /// context.push(&text);
    /// assert_eq!(context.finish().result, AttackResult::Exploited);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_compat(attack: &'a CompiledAttack, compat: Compat) -> Self {
        TraceEvaluator {
            attack,
            ledger: Ledger::new(attack, MessageTexts::per_message()),
            filter: FilterTable::new(attack, compat),
            prefilter: Some(Prefilter::new()),
            census: ActorCensus::new(attack.compiled_actors().len()),
            last_matched: 0,
            trace_line_at: None,
            messages: 0,
            after_grace: 0,
            grace: GraceState::new(attack),
            compat,
            context: compat
                .is_context()
                .then(|| Box::new(ContextState::new(attack))),
            shadow: (compat == Compat::SpecExact && ContextState::may_change(attack))
                .then(|| Box::new(Self::with_compat(attack, Compat::ThoughtjackContext))),
        }
    }

    /// The compatibility profile this evaluator applies.
    pub fn compat(&self) -> Compat {
        self.compat
    }

    /// Whether the lazy reader must tell whether an unread content nests too deep
    /// ([`Body::Unread`]): the context profile skips such entries.
    pub(crate) fn checks_depth(&self) -> bool {
        self.context.is_some() || self.shadow.is_some()
    }

    /// An evaluator that evaluates every applicable indicator in full on every message, without the
    /// literal prefilter (D-75): the straightforward engine, kept as the reference the prefiltered
    /// one is tested and measured against (the differential tests, the benchmarks). Its verdicts
    /// are the same as [`new`](Self::new)'s; it is slower on long traces.
    ///
    /// ```
    /// use oatf_eval::{CompiledAttack, Document, EvalOptions, TraceDirection, TraceEvaluator,
    ///                 TraceMessage};
    /// use serde_json::json;
    ///
    /// let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
    ///     "execution": {"mode": "mcp_server", "state": {"tools": []}},
    ///     "indicators": [{"surface": "tools/call", "target": "arguments.path",
    ///                     "pattern": {"contains": ".ssh/"}}]}}))?;
    /// let attack = CompiledAttack::new(&document, &EvalOptions::new());
    /// let trace = [
    ///     TraceMessage::new(TraceDirection::Incoming, "tools/call",
    ///         json!({"name": "read", "arguments": {"path": "/tmp/notes"}})),
    ///     TraceMessage::new(TraceDirection::Incoming, "tools/call",
    ///         json!({"name": "read", "arguments": {"path": "/home/u/.ssh/id_rsa"}})),
    /// ];
    /// let (mut fast, mut reference) =
    ///     (TraceEvaluator::new(&attack), TraceEvaluator::without_prefilter(&attack));
    /// for message in &trace {
    ///     fast.push(message);
    ///     reference.push(message);
    /// }
    /// assert_eq!(fast.finish(), reference.finish());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn without_prefilter(attack: &'a CompiledAttack) -> Self {
        Self::without_prefilter_in(attack, Compat::SpecExact)
    }

    /// [`without_prefilter`](Self::without_prefilter) in the profile `compat`.
    pub(crate) fn without_prefilter_in(attack: &'a CompiledAttack, compat: Compat) -> Self {
        let mut evaluator = Self::with_compat(attack, compat);
        evaluator.prefilter = None;
        evaluator.ledger.texts = MessageTexts::default();
        if evaluator.shadow.is_some() {
            evaluator.shadow = Some(Box::new(Self::without_prefilter_in(
                attack,
                Compat::ThoughtjackContext,
            )));
        }
        evaluator
    }

    /// Evaluates `message` against every undecided indicator it applies to, with the filters of
    /// format §6 (protocol, surface, actor, direction; the grace period), and returns the indicators
    /// it matched for the first time ([`NewMatches`]: empty, and nothing allocated, when it changed
    /// nothing; D-131). This is the live path: push each message as it is observed and alert on
    /// what is returned.
    ///
    /// Messages are numbered from 1 in the order they are pushed; evidence names a message by its
    /// `seq` or, without one, by that number.
    pub fn push(&mut self, message: &TraceMessage) -> NewMatches<'_> {
        let head = message.head();
        let route = self.route(&head);
        self.push_routed(&head, route, Body::Parsed(&message.content));
        self.new_matches()
    }

    /// The indicators the last message pushed matched for the first time: what
    /// [`push`](Self::push) returned, also after
    /// [`JsonlTraceReader::next_into`](super::JsonlTraceReader::next_into), which pushes
    /// without returning them. Empty before the first message.
    pub fn new_matches(&self) -> NewMatches<'_> {
        NewMatches::new(
            self.attack,
            &self.ledger.accumulators,
            self.messages,
            self.last_matched,
        )
    }

    /// Where the message `head` goes (its actor, its grace-period standing, its filter class) and
    /// whether evaluating it reads its content, changing nothing: the reader parses a line's content
    /// only when [`Route::needs_content`] says so (D-91). Pass the result to
    /// [`push_routed`](Self::push_routed) before anything else changes the evaluator.
    pub(crate) fn route(&self, head: &Head<'_>) -> Route<'a> {
        let mut route = self.route_own(head);
        if let Some(shadow) = &self.shadow {
            route.needs_content |= shadow.route(head).needs_content;
        }
        route
    }

    /// [`route`](Self::route) for this evaluator alone (not its shadow).
    fn route_own(&self, head: &Head<'_>) -> Route<'a> {
        let actor = actor_of(self.attack.compiled_actors(), head);
        let grace = self.grace.assess(actor, head);
        // The context profile reads an AG-UI text entry to keep its delta, whatever its grace.
        let derives = self.ledger.undecided > 0
            && self
                .context
                .as_ref()
                .is_some_and(|c| c.useful && ContextState::is_source(actor, head));
        let mut route = Route {
            actor,
            grace,
            class: None,
            needs_content: derives,
        };
        if grace.past || self.ledger.undecided == 0 {
            return route;
        }
        let (protocol, direction) = protocol_and_direction(actor, head);
        let key = self.filter.key(
            actor.map(|(index, _)| index),
            protocol,
            (head.method, head.direction),
            direction,
        );
        let found = self.filter.find(key);
        route.class = Some((key, found));
        route.needs_content |= match found {
            // A known class needs the content only while one of its indicators is undecided.
            Some(class) => self.ledger.any_undecided(self.filter.applicable_of(class)),
            // A new class, or one past the table: the content is read to be safe.
            None => true,
        };
        route
    }

    /// Evaluates the message `head` with `content`, routed by [`route`](Self::route) on this
    /// evaluator as it is now. `content` may be `None` when the route says it is not needed; then
    /// the message is only counted.
    pub(crate) fn push_routed(&mut self, head: &Head<'_>, route: Route<'a>, body: Body<'_>) {
        if let Some(shadow) = self.shadow.as_deref_mut() {
            let route = shadow.route_own(head);
            shadow.push_routed_own(head, route, body, None);
        }
        let matched_before = self.ledger.matched;
        self.push_routed_own(head, route, body, None);
        self.last_matched = self.ledger.matched.saturating_sub(matched_before);
    }

    /// [`push_routed`](Self::push_routed) for this evaluator alone (not its shadow). `derived`:
    /// the number of the original entry, for a message the context profile derived (D-100), which
    /// is evaluated but not counted as a message of the trace.
    fn push_routed_own(
        &mut self,
        head: &Head<'_>,
        route: Route<'a>,
        body: Body<'_>,
        derived: Option<u64>,
    ) {
        let aliased = match (&mut self.context, derived) {
            (Some(context), None) => {
                // Counted before the depth check: the trace has the entry even when ThoughtJack
                // skips it, and it makes the trace look like context mode (D-101).
                if ContextState::is_source(route.actor, head) {
                    context.sources += 1;
                }
                let too_deep = match body {
                    Body::Parsed(content) => context::content_too_deep(content),
                    Body::Unread { too_deep } => too_deep,
                };
                if too_deep {
                    // ThoughtJack skips it: not a message of the trace.
                    context.too_deep += 1;
                    return;
                }
                context.observe(
                    route.actor,
                    head,
                    body,
                    self.messages + 1,
                    self.ledger.undecided,
                )
            }
            _ => None,
        };
        let content = match (&aliased, body) {
            (Some(aliased), _) => Some(aliased),
            (None, Body::Parsed(content)) => Some(content),
            (None, Body::Unread { .. }) => None,
        };
        let position = match derived {
            Some(position) => position,
            None => {
                self.messages += 1;
                self.messages
            }
        };
        self.ledger.texts.clear();
        let actor = route.actor;
        if derived.is_none() {
            self.census.record(actor.map(|(index, _)| index), head);
        }
        if self.grace.record(route.grace) {
            if derived.is_none() {
                self.after_grace += 1;
            }
            return;
        }
        let Some(key) = route.class else {
            // No undecided indicator.
            return;
        };
        let (protocol, direction) = protocol_and_direction(actor, head);
        let applicable = self.filter.applicable(
            self.attack,
            key,
            (head.method, head.direction),
            actor,
            protocol,
            direction,
        );
        let Some(content) = content else {
            // Counted in its class; the route found every indicator the class applies to decided,
            // so evaluating it would change nothing (the lazy reader, D-91; with a content, the
            // message is evaluated as always, which the reader's differential test compares with).
            debug_assert!(
                !route.needs_content,
                "a message that needs its content was pushed without it"
            );
            return;
        };
        if position <= SHAPE_CHECKS
            && self.trace_line_at.is_none()
            && looks_like_trace_line(content)
        {
            self.trace_line_at = Some(position);
        }
        let message = Message {
            head,
            content,
            position,
        };
        let ledger = &mut self.ledger;
        match (applicable, &mut self.prefilter) {
            (Some((_, applicable)), None) => ledger.evaluate_all(message, applicable),
            (Some((class, applicable)), Some(prefilter)) => {
                let (first, listed) = prefilter.decide(
                    self.attack,
                    class,
                    applicable,
                    (content, &mut ledger.texts),
                    &ledger.accumulators,
                );
                if first {
                    ledger.first_of_class(message, class, applicable, listed);
                } else {
                    ledger.later_of_class(message, class, applicable, listed);
                }
            }
            // More kinds of message than the table keeps: filter indicator by indicator.
            (None, _) => {
                let (actor, compat) = (actor.map(|(_, actor)| actor), self.compat);
                ledger.filter_each(message, |indicator| {
                    filter::filter_steps_passed(
                        indicator,
                        (head.method, head.direction),
                        actor,
                        protocol,
                        direction,
                        compat,
                    )
                });
            }
        }
    }

    /// The per-indicator verdicts (evidence naming the deciding message) and the attack verdict
    /// computed from them with the attack's correlation logic (SDK §4.5).
    ///
    /// An indicator that no message applied to is `not_matched`, its evidence naming the filter that
    /// removed the messages (spec-decisions 23). A trace without any message is `error`: nothing
    /// was observed.
    ///
    /// [`AttackVerdict::warnings`] names the declared actors without messages (as
    /// [`silent_actors`](Self::silent_actors), when the trace has messages) and, for each
    /// `not_matched` indicator whose target never resolved in a message that applied to it, the
    /// path, with the closest path the messages had (decision D-70).
    pub fn finish(mut self) -> AttackVerdict {
        let shadow = self.shadow.take();
        self.evaluate_derived();
        let warnings = self.context.as_ref().map(|c| c.warnings());
        let mut verdict = self.finish_own();
        verdict.warnings.extend(warnings.into_iter().flatten());
        if let Some(shadow) = shadow {
            let sources = shadow.context.as_ref().map_or(0, |c| c.sources);
            let other = shadow.finish();
            if let Some(warning) = ContextState::would_change(&verdict, &other, sources) {
                verdict.warnings.push(warning);
            }
        }
        verdict
    }

    /// How many AG-UI text entries the context profile has kept so far to derive messages from
    /// (D-100): a tool that maps a message's number to its line keeps the lines of those whose push
    /// increased it, for the matches [`evaluate_derived`](Self::evaluate_derived) finds. Always 0
    /// in the default profile.
    ///
    /// ```
    /// use oatf_eval::{Compat, CompiledAttack, Document, EvalOptions, TraceDirection,
    ///                 TraceEvaluator, TraceMessage};
    /// use serde_json::json;
    ///
    /// let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
    ///     "execution": {"actors": [
    ///         {"name": "ui", "mode": "ag_ui_client", "phases": [{"name": "p", "state": {}}]},
    ///         {"name": "tools", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}]},
    ///     "indicators": [{"protocol": "ag_ui", "target": "response.content",
    ///                     "pattern": {"contains": "rm -rf"}}]}}))?;
    /// let attack = CompiledAttack::new(&document, &EvalOptions::new());
    /// let mut evaluator = TraceEvaluator::with_compat(&attack, Compat::ThoughtjackContext);
    /// evaluator.push(&TraceMessage::new(TraceDirection::Outgoing, "run_started", json!({}))
    ///     .with_actor("ui"));
    /// assert_eq!(evaluator.derivation_sources(), 0);
    /// evaluator.push(&TraceMessage::new(TraceDirection::Incoming, "text_message_content",
    ///     json!({"delta": "run rm -rf / now"})).with_actor("ui"));
    /// // The second message's push kept its text: a tool keeps that line to show a match on it.
    /// assert_eq!(evaluator.derivation_sources(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn derivation_sources(&self) -> u64 {
        self.context.as_ref().map_or(0, |c| c.kept)
    }

    /// Evaluates the messages the context profile derives from the AG-UI text entries kept
    /// (D-100, point 1), after all the original entries and in their order: for each, one message
    /// to every `_server` actor (`outgoing`) and one to its AG-UI actor (its own direction). A match
    /// on one is located at the original entry's number ([`matched_messages`](Self::matched_messages)).
    /// [`finish`](Self::finish) calls it; calling it before is for tools that locate matches, and
    /// no message may be pushed after it. Does nothing in another profile, or a second time.
    ///
    /// ```
    /// use oatf_eval::{AttackResult, Compat, CompiledAttack, Document, EvalOptions,
    ///                 TraceDirection, TraceEvaluator, TraceMessage};
    /// use serde_json::json;
    ///
    /// let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
    ///     "execution": {"actors": [
    ///         {"name": "ui", "mode": "ag_ui_client", "phases": [{"name": "p", "state": {}}]},
    ///         {"name": "tools", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]}]},
    ///     "indicators": [{"protocol": "ag_ui", "target": "response.content",
    ///                     "pattern": {"contains": "rm -rf"}}]}}))?;
    /// let attack = CompiledAttack::new(&document, &EvalOptions::new());
    /// let mut evaluator = TraceEvaluator::with_compat(&attack, Compat::ThoughtjackContext);
    /// evaluator.push(&TraceMessage::new(TraceDirection::Outgoing, "run_started", json!({}))
    ///     .with_actor("ui"));
    /// evaluator.push(&TraceMessage::new(TraceDirection::Incoming, "text_message_content",
    ///     json!({"delta": "run rm -rf / now"})).with_actor("ui"));
    /// // The entry's own content has no `response.content`: only its derived messages match.
    /// assert_eq!(evaluator.matched_messages().count(), 0);
    /// evaluator.evaluate_derived();
    /// let located: Vec<u64> = evaluator.matched_messages().map(|(_, number)| number).collect();
    /// assert_eq!(located, [2]);
    /// assert_eq!(evaluator.finish().result, AttackResult::Exploited);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evaluate_derived(&mut self) {
        let Some(context) = self.context.as_mut() else {
            return;
        };
        let (text, sources) = context.derivations.take();
        let servers = context.servers.clone();
        let actors = self.attack.compiled_actors();
        for source in &sources {
            if self.ledger.undecided == 0 {
                break;
            }
            let (delta, timestamp, phase) = source.texts(&text);
            let content = context::derived_content(delta);
            let targets = servers
                .iter()
                .map(|&server| (server, TraceDirection::Outgoing))
                .chain(std::iter::once((source.actor, source.direction)));
            for (index, direction) in targets {
                let Some(actor) = actors.get(index) else {
                    continue;
                };
                let head = Head {
                    seq: source.seq,
                    timestamp,
                    actor: Some(actor.name.as_str()),
                    phase,
                    direction,
                    method: Some(context::TEXT_MESSAGE_CONTENT),
                    protocol: None,
                };
                let route = self.route_own(&head);
                self.push_routed_own(&head, route, Body::Parsed(&content), Some(source.position));
            }
        }
    }

    /// [`finish`](Self::finish) for this evaluator alone, its derived messages evaluated.
    fn finish_own(mut self) -> AttackVerdict {
        let mut warnings = Vec::new();
        if let Some(position) = self.trace_line_at {
            warnings.push(TraceWarning::content_is_trace_line(position));
        }
        if self.messages > 0 {
            warnings.extend(
                self.silent_actors()
                    .map(TraceWarning::actor_without_messages),
            );
        }
        let evaluated = self.messages - self.after_grace;
        self.filter.add_funnels(&mut self.ledger.funnels);
        let actors = self.attack.compiled_actors();
        let (census, had) = (&self.census, std::cell::OnceCell::new());
        let (verdicts, unresolved) = self.ledger.finish(|indicator, funnel| {
            if funnel[0] == 0 && evaluated > 0 && census.has_unattributed() {
                let mut text = String::from("no applicable message: ");
                text.push_str(&census.no_message_from(indicator, actors, &had));
                text
            } else {
                no_applicable_message(indicator, evaluated, self.after_grace, funnel, self.compat)
            }
        });
        warnings.extend(unresolved);
        let mut verdict = self.attack.compute_verdict(&verdicts);
        // The attack's own warnings (indicators it cannot evaluate) after the trace's.
        warnings.append(&mut verdict.warnings);
        verdict.warnings = warnings;
        if self.messages == 0 {
            verdict.result = AttackResult::Error;
            verdict.diagnostic = Some(String::from(
                "the trace has no message: nothing was observed",
            ));
        }
        verdict
    }

    /// The declared actors (by name) that no message of the trace was attributed to so far: they
    /// never ran, and the run may have failed (spec-decisions 23). Tools report them as warnings.
    pub fn silent_actors(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.attack
            .compiled_actors()
            .iter()
            .zip(&self.census.declared)
            .filter(|(_, count)| **count == 0)
            .map(|(actor, _)| actor.name.as_str())
    }

    /// How many messages were pushed.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// How many pushed messages were not evaluated because they came after the grace period.
    pub fn messages_after_grace(&self) -> u64 {
        self.after_grace
    }

    /// How many indicators have matched so far.
    pub fn matched_count(&self) -> usize {
        self.ledger.matched
    }

    /// The indicators that have matched so far, with the number (1-based, in push order) of the
    /// message that matched each.
    pub fn matched_messages(&self) -> impl Iterator<Item = (&str, u64)> {
        self.attack
            .indicator_entries()
            .iter()
            .zip(&self.ledger.accumulators)
            .filter_map(|(entry, accumulator)| {
                let position = accumulator.matched_position()?;
                entry.as_ref().ok().map(|i| (i.id(), position))
            })
    }

    /// The heap and inline bytes this evaluator holds. It is bounded when the evaluator is created
    /// (evidence is truncated) and does not grow with the number of messages pushed, except for what
    /// the `thoughtjack-context` profile keeps of AG-UI text to derive messages from, at most
    /// [`MAX_DERIVED_BYTES`](context::MAX_DERIVED_BYTES) (D-100).
    pub fn retained_bytes(&self) -> usize {
        size_of::<Self>()
            + self.ledger.heap_bytes()
            + self.grace.heap_bytes()
            + self.census.heap_bytes()
            + self.filter.heap_bytes()
            + self.prefilter.as_ref().map_or(0, Prefilter::heap_bytes)
            + self.context.as_ref().map_or(0, |c| {
                size_of::<ContextState>()
                    + c.derivations.heap_bytes()
                    + c.servers.capacity() * size_of::<usize>()
            })
            + self
                .shadow
                .as_ref()
                .map_or(0, |shadow| shadow.retained_bytes())
    }
}

/// Evaluates `messages` against `attack` (format §6); see [`TraceEvaluator`].
pub fn evaluate_trace<'m>(
    attack: &CompiledAttack,
    messages: impl IntoIterator<Item = &'m TraceMessage>,
) -> AttackVerdict {
    let mut evaluator = TraceEvaluator::new(attack);
    for message in messages {
        evaluator.push(message);
    }
    evaluator.finish()
}

// The prefilter's plans live in `TraceEvaluator`, which callers share and move across threads (the
// Python binding's evaluator object, campaigns on rayon): it must stay `Send + Sync`.
const _: () = {
    const fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<TraceEvaluator<'static>>();
    send_and_sync::<CompiledAttack>();
};
