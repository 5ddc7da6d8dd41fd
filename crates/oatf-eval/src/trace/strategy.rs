//! The per-message strategies of whole-trace evaluation (D-160): how the indicators a message
//! applies to are evaluated, each a named method over one state, the [`Ledger`] of the indicators.
//!
//! The evaluator routes a message (its actor, grace and filter class) and then runs one of:
//!
//! - [`Ledger::evaluate_all`], the straightforward engine (no prefilter, the reference the others
//!   are tested and measured against): every applicable undecided indicator is evaluated;
//! - [`Ledger::first_of_class`], the prefilter (D-75) on the first message of a filter class: the
//!   indicators its plan lists are evaluated, the ones it rules out are recorded `not_matched`;
//! - [`Ledger::later_of_class`], the prefilter on a later message of the class: only the listed
//!   indicators are visited, the ruled-out ones are shown to the target coverage (D-70) until every
//!   indicator of the class is settled;
//! - [`Ledger::filter_each`], for a message of a class past the filter table's bound: the filter
//!   steps indicator by indicator, counted in the funnels.
//!
//! Every strategy records an outcome through the same [`Ledger::visit`] and [`Ledger::record`], so
//! the verdicts are the same whichever ran.

use std::mem::size_of;

use serde_json::Value;

use super::coverage::TargetCoverage;
use super::evidence::describe;
use super::message::Head;
use crate::accumulator::Accumulator;
use crate::attack::CompiledAttack;
use crate::error::EvaluationError;
use crate::indicator::CompiledIndicator;
use crate::texts::MessageTexts;
use crate::verdict::{IndicatorResult, IndicatorVerdict};
use crate::warning::TraceWarning;

/// The four filter steps of format §6; an indicator applies to a message that passed them all.
const FILTER_STEPS: usize = 4;

/// A message as the strategies evaluate it: its head, its content, and its number in the trace
/// (for a message the context profile derived, the number of its original entry).
#[derive(Clone, Copy, Debug)]
pub(super) struct Message<'h, 'm> {
    pub(super) head: &'h Head<'m>,
    pub(super) content: &'h Value,
    pub(super) position: u64,
}

/// What the messages so far decided of each indicator, and what every strategy changes: the
/// indicators' accumulators, their filter funnels and target coverage, the counts of undecided and
/// matched indicators, and the renders of the current message shared by the indicators.
#[derive(Debug)]
pub(super) struct Ledger<'a> {
    /// The attack's indicators, compiled or not, in declaration order.
    entries: &'a [Result<CompiledIndicator, (String, EvaluationError)>],
    /// Per indicator: its first matching message or first error.
    pub(super) accumulators: Vec<Accumulator>,
    /// Per indicator: how many evaluated messages passed filter steps 1, 2, 3 and 4, besides those
    /// counted by class in the filter table.
    pub(super) funnels: Vec<[u64; FILTER_STEPS]>,
    /// Per indicator: whether its target resolved (the unresolved-target warning, D-70).
    coverage: TargetCoverage,
    /// Per class of message (the filter table's): whether every indicator applicable to it has its
    /// target coverage settled, so ruled-out indicators need no visit for the warning (D-70).
    settled_classes: Vec<bool>,
    /// The renders of the current message's non-string values, shared by the prefilter and the
    /// indicators (kept only with the prefilter; the straightforward engine renders on each use).
    pub(super) texts: MessageTexts,
    /// How many indicators are not decided yet.
    pub(super) undecided: usize,
    /// How many indicators have matched.
    pub(super) matched: usize,
}

impl<'a> Ledger<'a> {
    /// The ledger of `attack` before any message: its indicators that did not compile are decided
    /// (`error`) already. `texts` keeps the renders of a message or not.
    pub(super) fn new(attack: &'a CompiledAttack, texts: MessageTexts) -> Self {
        let entries = attack.indicator_entries();
        let accumulators: Vec<Accumulator> = entries
            .iter()
            .map(|entry| match entry {
                Ok(_) => Accumulator::new(),
                Err((_, error)) => Accumulator::compile_error(error),
            })
            .collect();
        Ledger {
            entries,
            undecided: accumulators.iter().filter(|a| !a.is_decided()).count(),
            matched: 0,
            funnels: vec![[0; FILTER_STEPS]; accumulators.len()],
            coverage: TargetCoverage::new(accumulators.len()),
            accumulators,
            settled_classes: Vec::new(),
            texts,
        }
    }

    /// Whether one of `indicators` (indexes in attack order) is undecided.
    pub(super) fn any_undecided(&self, indicators: &[u32]) -> bool {
        indicators.iter().any(|&index| {
            self.accumulators
                .get(index as usize)
                .is_some_and(|a| !a.is_decided())
        })
    }

    /// The straightforward engine: every indicator of `applicable` (indexes in attack order) that
    /// is undecided is evaluated against `message`.
    pub(super) fn evaluate_all(&mut self, message: Message<'_, '_>, applicable: &[u32]) {
        for &index in applicable {
            self.visit(message, index as usize);
        }
    }

    /// The prefilter on the first message of a class: of `applicable`, the undecided indicators
    /// whose slots are `listed` are evaluated and the others recorded `not_matched` (with the
    /// evidence naming the message, as the straightforward engine records them).
    pub(super) fn first_of_class(
        &mut self,
        message: Message<'_, '_>,
        class: usize,
        applicable: &[u32],
        listed: &[u32],
    ) {
        self.size_settled_classes(class);
        for (index, is_listed) in slots(applicable, listed) {
            if is_listed {
                self.visit(message, index);
            } else if let Some(Ok(indicator)) = self.entries.get(index)
                && self
                    .accumulators
                    .get(index)
                    .is_some_and(|a| !a.is_decided())
            {
                self.record(
                    index,
                    indicator,
                    (IndicatorResult::NotMatched, None),
                    message,
                );
            }
        }
    }

    /// The prefilter on a later message of class `class`: recording `not_matched` again for a
    /// ruled-out indicator would change nothing, so only the `listed` slots of `applicable` are
    /// visited. The ruled-out indicators did not match this message either: the target coverage
    /// (D-70) sees them as the straightforward engine would, until every indicator of the class is
    /// settled, after which nothing more is visited for it.
    pub(super) fn later_of_class(
        &mut self,
        message: Message<'_, '_>,
        class: usize,
        applicable: &[u32],
        listed: &[u32],
    ) {
        for &slot in listed {
            if let Some(&index) = applicable.get(slot as usize) {
                self.visit(message, index as usize);
            }
        }
        self.size_settled_classes(class);
        if self.settled_classes.get(class).copied().unwrap_or(false) {
            return;
        }
        let mut all_settled = true;
        for (index, is_listed) in slots(applicable, listed) {
            if !is_listed
                && let (Some(Ok(indicator)), Some(accumulator)) =
                    (self.entries.get(index), self.accumulators.get(index))
                && !accumulator.is_decided()
            {
                self.coverage.observe(
                    index,
                    indicator,
                    message.content,
                    IndicatorResult::NotMatched,
                );
            }
            all_settled &= self.coverage.is_settled(index);
        }
        if all_settled && let Some(flag) = self.settled_classes.get_mut(class) {
            *flag = true;
        }
    }

    /// Makes room for the flag of class `class`: on a class's first message, so that later
    /// messages allocate nothing.
    fn size_settled_classes(&mut self, class: usize) {
        if self.settled_classes.len() <= class {
            self.settled_classes.resize(class + 1, false);
        }
    }

    /// A message of a class the filter table does not keep: every undecided indicator goes through
    /// the filter steps (`steps_passed`: how many it passed), counted in its funnel, and is
    /// evaluated when it passed them all.
    pub(super) fn filter_each(
        &mut self,
        message: Message<'_, '_>,
        steps_passed: impl Fn(&CompiledIndicator) -> usize,
    ) {
        for (index, entry) in self.entries.iter().enumerate() {
            let Ok(indicator) = entry else { continue };
            if self
                .accumulators
                .get(index)
                .is_none_or(Accumulator::is_decided)
            {
                continue;
            }
            let passed = steps_passed(indicator);
            if let Some(funnel) = self.funnels.get_mut(index) {
                for count in funnel.iter_mut().take(passed) {
                    *count += 1;
                }
            }
            if passed >= FILTER_STEPS {
                self.visit(message, index);
            }
        }
    }

    /// Evaluates indicator `index` against `message` when it is undecided and records the outcome:
    /// the visit of one applicable indicator, shared by every strategy.
    pub(super) fn visit(&mut self, message: Message<'_, '_>, index: usize) {
        if let (Some(Ok(indicator)), Some(accumulator)) =
            (self.entries.get(index), self.accumulators.get(index))
            && !accumulator.is_decided()
        {
            let outcome = indicator.evaluate_outcome_with(message.content, &mut self.texts);
            self.record(index, indicator, outcome, message);
        }
    }

    /// Records the outcome of the applicable, undecided indicator `index` on `message` (evidence
    /// naming the message when the accumulator keeps it), counts it when it decided the indicator,
    /// and shows it to the target coverage (D-70).
    fn record(
        &mut self,
        index: usize,
        indicator: &CompiledIndicator,
        (result, evidence): (IndicatorResult, Option<String>),
        message: Message<'_, '_>,
    ) {
        let Some(accumulator) = self.accumulators.get_mut(index) else {
            return;
        };
        let evidence = match result {
            // Why the method was not evaluated is not about this message.
            IndicatorResult::Skipped => evidence,
            _ if accumulator.keeps(result) => describe(
                message.head,
                message.position,
                evidence,
                indicator.evidence_chars(),
            ),
            _ => None,
        };
        accumulator.record(result, evidence, message.position);
        if accumulator.is_decided() {
            self.undecided -= 1;
            if result == IndicatorResult::Matched {
                self.matched += 1;
            }
        }
        self.coverage
            .observe(index, indicator, message.content, result);
    }

    /// The per-indicator verdicts, in declaration order (`unseen`: the evidence of an indicator no
    /// message applied to, from its funnel), and the warnings of the indicators whose target never
    /// resolved (D-70).
    pub(super) fn finish(
        self,
        unseen: impl Fn(&CompiledIndicator, &[u64; FILTER_STEPS]) -> String,
    ) -> (Vec<IndicatorVerdict>, Vec<TraceWarning>) {
        let verdicts: Vec<IndicatorVerdict> = self
            .entries
            .iter()
            .zip(self.accumulators)
            .zip(&self.funnels)
            .map(|((entry, accumulator), funnel)| match entry {
                Ok(indicator) => accumulator.finish(indicator.id(), || unseen(indicator, funnel)),
                Err((id, _)) => accumulator.finish(id, String::new),
            })
            .collect();
        let warnings = self
            .entries
            .iter()
            .zip(&verdicts)
            .enumerate()
            .filter_map(|(index, (entry, verdict))| {
                let indicator = entry.as_ref().ok()?;
                self.coverage.warning(index, indicator, verdict.result)
            })
            .collect();
        (verdicts, warnings)
    }

    /// The heap bytes of the ledger; fixed by the attack, and by the filter table's bound on classes.
    pub(super) fn heap_bytes(&self) -> usize {
        self.accumulators.capacity() * size_of::<Accumulator>()
            + self
                .accumulators
                .iter()
                .map(Accumulator::heap_bytes)
                .sum::<usize>()
            + self.funnels.capacity() * size_of::<[u64; FILTER_STEPS]>()
            + self.coverage.heap_bytes()
            + self.texts.heap_bytes()
            + self.settled_classes.capacity()
    }
}

/// The indicators of `applicable` (indexes in attack order) with whether the prefilter's plan
/// listed each: `listed` holds slots of `applicable`, in increasing order.
fn slots<'s>(applicable: &'s [u32], listed: &'s [u32]) -> impl Iterator<Item = (usize, bool)> + 's {
    let mut listed = listed.iter().copied().peekable();
    applicable.iter().enumerate().map(move |(slot, &index)| {
        let is_listed = listed
            .next_if_eq(&u32::try_from(slot).unwrap_or(u32::MAX))
            .is_some();
        (index as usize, is_listed)
    })
}
