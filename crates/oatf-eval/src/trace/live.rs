//! What one pushed message changed: the indicators it matched first (D-131), for a live tool that
//! alerts as messages arrive.

use std::borrow::Cow;
use std::iter::FusedIterator;

use oatf_model::Tier;

use crate::accumulator::Accumulator;
use crate::attack::CompiledAttack;
use crate::error::EvaluationError;
use crate::indicator::CompiledIndicator;

/// The indicators that the last message pushed into a [`TraceEvaluator`](crate::TraceEvaluator) matched for the first time,
/// in declaration order: what [`TraceEvaluator::push`](crate::TraceEvaluator::push) returns, and what
/// [`TraceEvaluator::new_matches`](crate::TraceEvaluator::new_matches) gives after [`JsonlTraceReader::next_into`](crate::JsonlTraceReader::next_into).
///
/// An indicator is decided by its first match (format §6), so each indicator appears at most once in
/// a whole trace. Nothing is allocated: when the message matched nothing, [`is_empty`](Self::is_empty)
/// is a comparison and iterating yields nothing; otherwise the iterator walks the indicators once.
///
/// ```
/// use oatf_eval::{CompiledAttack, Document, EvalOptions, TraceDirection, TraceEvaluator, TraceMessage};
/// use serde_json::json;
///
/// let document = Document::from_json_str(r#"{"oatf": "0.1", "attack": {
///     "execution": {"mode": "mcp_server", "state": {"tools": []}},
///     "indicators": [{"id": "I-1", "surface": "tools/call", "direction": "request", "tier": "ingested",
///                     "target": "arguments.path", "pattern": {"contains": ".ssh"}}]}}"#)?;
/// let attack = CompiledAttack::try_new(&document, &EvalOptions::new())?;
/// let mut evaluator = TraceEvaluator::new(&attack);
/// let listed = TraceMessage::new(TraceDirection::Outgoing, "tools/list", json!({}));
/// assert!(evaluator.push(&listed).is_empty());
/// let call = TraceMessage::new(TraceDirection::Incoming, "tools/call",
///     json!({"arguments": {"path": "~/.ssh/id_rsa\n"}}));
/// for hit in evaluator.push(&call) {
///     assert_eq!(hit.indicator_id(), "I-1");
///     assert_eq!(hit.message_number(), 2);
///     assert_eq!(hit.tier().map(|t| t.as_str()), Some("ingested"));
///     assert_eq!(hit.evidence_escaped().as_deref(), Some("message 2 (tools/call): ~/.ssh/id_rsa\\n"));
/// }
/// // Decided: the same match again changes nothing.
/// assert!(evaluator.push(&call).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct NewMatches<'e> {
    attack: &'e CompiledAttack,
    indicators: &'e [Accumulator],
    /// The number of the message.
    position: u64,
    /// How many indicators the message matched first.
    count: usize,
}

impl<'e> NewMatches<'e> {
    pub(super) fn new(
        attack: &'e CompiledAttack,
        indicators: &'e [Accumulator],
        position: u64,
        count: usize,
    ) -> Self {
        NewMatches {
            attack,
            indicators,
            position,
            count,
        }
    }

    /// Whether the message matched no indicator for the first time.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// How many indicators the message matched for the first time.
    pub fn len(&self) -> usize {
        self.count
    }

    /// The number (1-based, in push order) of the message these matches are from.
    pub fn message_number(&self) -> u64 {
        self.position
    }

    /// The new matches, in declaration order.
    pub fn iter(&self) -> NewMatchesIter<'e> {
        NewMatchesIter {
            entries: self.attack.indicator_entries().iter(),
            indicators: self.indicators.iter(),
            tiers: self.attack.declared_tiers().iter(),
            position: self.position,
            left: self.count,
        }
    }
}

impl std::fmt::Debug for NewMatches<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'e> IntoIterator for NewMatches<'e> {
    type Item = NewMatch<'e>;
    type IntoIter = NewMatchesIter<'e>;
    fn into_iter(self) -> NewMatchesIter<'e> {
        self.iter()
    }
}

impl<'e> IntoIterator for &NewMatches<'e> {
    type Item = NewMatch<'e>;
    type IntoIter = NewMatchesIter<'e>;
    fn into_iter(self) -> NewMatchesIter<'e> {
        self.iter()
    }
}

/// The iterator of [`NewMatches`].
#[derive(Clone)]
pub struct NewMatchesIter<'e> {
    entries: std::slice::Iter<'e, Result<CompiledIndicator, (String, EvaluationError)>>,
    indicators: std::slice::Iter<'e, Accumulator>,
    tiers: std::slice::Iter<'e, Option<Tier>>,
    position: u64,
    left: usize,
}

impl<'e> Iterator for NewMatchesIter<'e> {
    type Item = NewMatch<'e>;

    fn next(&mut self) -> Option<NewMatch<'e>> {
        while self.left > 0 {
            let entry = self.entries.next()?;
            let accumulator = self.indicators.next()?;
            let tier = self.tiers.next().copied().flatten();
            if let (Ok(indicator), Some(position)) = (entry, accumulator.matched_position())
                && position == self.position
            {
                self.left -= 1;
                return Some(NewMatch {
                    indicator,
                    tier,
                    evidence: accumulator.matched_evidence(),
                    position,
                });
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl std::fmt::Debug for NewMatchesIter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewMatchesIter")
            .field("message_number", &self.position)
            .field("left", &self.left)
            .finish()
    }
}

impl ExactSizeIterator for NewMatchesIter<'_> {}
impl FusedIterator for NewMatchesIter<'_> {}

/// One indicator that a message matched for the first time ([`NewMatches`]).
#[derive(Clone, Copy)]
pub struct NewMatch<'e> {
    indicator: &'e CompiledIndicator,
    tier: Option<Tier>,
    evidence: Option<&'e str>,
    position: u64,
}

impl<'e> NewMatch<'e> {
    /// The indicator's id.
    pub fn indicator_id(&self) -> &'e str {
        self.indicator.id()
    }

    /// The compiled indicator (its surface, actor, direction).
    pub fn indicator(&self) -> &'e CompiledIndicator {
        self.indicator
    }

    /// The indicator's outcome tier (format §6.5), when it declares a known one.
    pub fn tier(&self) -> Option<Tier> {
        self.tier
    }

    /// The number (1-based, in push order) of the message that matched.
    pub fn message_number(&self) -> u64 {
        self.position
    }

    /// The evidence as the verdict will carry it (`seq 7 (tools/call): <what matched>`), raw:
    /// attacker text. Print [`evidence_escaped`](Self::evidence_escaped).
    pub fn evidence(&self) -> Option<&'e str> {
        self.evidence
    }

    /// The evidence safe to print on one line (the rules of
    /// [`safe_text::escape`](crate::safe_text::escape), D-132).
    pub fn evidence_escaped(&self) -> Option<Cow<'e, str>> {
        self.evidence.map(oatf_primitives::safe_text::escape)
    }
}

impl std::fmt::Debug for NewMatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewMatch")
            .field("indicator_id", &self.indicator_id())
            .field("tier", &self.tier)
            .field("message_number", &self.position)
            .field("evidence", &self.evidence)
            .finish()
    }
}
