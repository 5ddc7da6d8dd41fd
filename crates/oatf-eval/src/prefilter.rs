//! The literal prefilter of whole-trace evaluation (decision D-75): per message, one pass over each
//! distinct target's text finds every pattern indicator that could match, and only those are
//! evaluated in full, as intrusion detection engines do with their "fast patterns".
//!
//! For each class of message of the trace filter (`trace::filter`), the applicable pattern
//! indicators are grouped by target path. Each group has one Aho-Corasick automaton (ASCII
//! case-insensitive) over the required literals of its members' conditions
//! ([`CompiledCondition::required_literals`]). Per message, each group's target is resolved once
//! and the text of each resolved value (a string itself, anything else as compact sorted JSON,
//! spec-decisions 13) is searched once; a member none of whose literals occurs in any text is
//! `not_matched` without evaluation. Everything else, and every indicator that is not a pattern or
//! whose condition requires no literal, is evaluated in full by its own `evaluate_outcome`, so
//! verdicts, evidence and the first matching message are exactly those of the straightforward
//! engine.
//!
//! Exactness: a member is ruled out only when the condition's promise holds
//! ([`CompiledCondition::required_literals`]): no text holds `ſ` or `K`
//! ([`text_defeats_literals`]), and the condition cannot fail on the longest text
//! ([`CompiledCondition::may_fail`]: a regex over its input limit, or one that does not build, is
//! evaluated in full so that its error is reported as before). A target that resolves to nothing
//! gives `not_matched` for every member, as evaluation does. The differential test
//! (`prefilter_tests`) checks the two engines against each other on generated attacks and traces.

use std::cell::OnceCell;
use std::mem::size_of;

use aho_corasick::{AhoCorasick, Input, MatchKind};
use oatf_primitives::{CompiledCondition, WildcardPath, text_defeats_literals};
use serde_json::Value;

use crate::accumulator::Accumulator;
use crate::attack::CompiledAttack;
use crate::indicator::value_text;

/// A slot number that no class reaches (more than `u32::MAX` indicators).
const FULL: u32 = u32::MAX;

/// What to do with one applicable indicator for the current message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Evaluate it in full.
    Evaluate,
    /// It cannot match this message and cannot fail on it: record `not_matched`.
    NotMatched,
}

/// The prefilter of one [`crate::TraceEvaluator`]: a plan per filter class, built on the class's
/// first message, and the per-message scratch space.
#[derive(Debug, Default)]
pub(crate) struct Prefilter {
    /// Per indicator of the attack: its required literals, computed once.
    literals: Vec<OnceCell<Option<Vec<Vec<u8>>>>>,
    /// Per filter class (by its index in the filter table).
    plans: Vec<Option<Plan>>,
    /// Per applicable slot of the current message.
    decisions: Vec<Decision>,
    /// Per applicable slot: a literal of it was found in the current message.
    candidate: Vec<bool>,
    /// How many evaluations were ruled out so far.
    ruled_out: u64,
}

/// The groups of one class of message.
#[derive(Debug)]
struct Plan {
    groups: Vec<Group>,
}

/// The prefiltered indicators of one class that share a target path.
#[derive(Debug)]
struct Group {
    /// An indicator of the group, whose target is the group's.
    indicator: u32,
    /// The slots (positions in the class's applicable list) of the members.
    members: Box<[u32]>,
    /// The automaton over the members' literals, when any member has literals.
    automaton: Option<AhoCorasick>,
    /// Per automaton pattern: the slots whose literal it is.
    pattern_slots: Box<[Box<[u32]>]>,
}

impl Prefilter {
    /// A prefilter for `attack`, with no plan yet.
    pub(crate) fn new(attack: &CompiledAttack) -> Self {
        Prefilter {
            literals: (0..attack.indicator_entries().len())
                .map(|_| OnceCell::new())
                .collect(),
            ..Prefilter::default()
        }
    }

    /// What to do with each indicator of `applicable` (the indicators of filter class `class`)
    /// for a message with `content`; indicators already decided in `accumulators` are left to the
    /// caller, which skips them.
    pub(crate) fn decide(
        &mut self,
        attack: &CompiledAttack,
        class: usize,
        applicable: &[u32],
        content: &Value,
        accumulators: &[Accumulator],
    ) -> &[Decision] {
        if self.plans.len() <= class {
            self.plans.resize_with(class + 1, || None);
        }
        let Prefilter {
            literals,
            plans,
            decisions,
            candidate,
            ruled_out: ruled_out_count,
        } = self;
        let plan = match &mut plans[class] {
            Some(plan) => plan,
            slot => slot.insert(Plan::new(attack, applicable, literals)),
        };
        decisions.clear();
        decisions.resize(applicable.len(), Decision::Evaluate);
        candidate.clear();
        candidate.resize(applicable.len(), false);
        let entries = attack.indicator_entries();
        let condition_of = |slot: u32| {
            let index = *applicable.get(slot as usize)? as usize;
            entries.get(index)?.as_ref().ok()?.prefilter_parts()
        };
        let live = |slot: &u32| {
            applicable
                .get(*slot as usize)
                .and_then(|&i| accumulators.get(i as usize))
                .is_some_and(|a| !a.is_decided())
        };
        for group in &plan.groups {
            if !group.members.iter().any(live) {
                continue;
            }
            let Some(target) = entries
                .get(group.indicator as usize)
                .and_then(|e| e.as_ref().ok())
                .and_then(|i| i.prefilter_parts())
                .map(|(target, _)| target)
            else {
                continue;
            };
            let (resolved, longest, defeated) = group.search(target, content, candidate);
            for &slot in &*group.members {
                let ruled_out = !defeated
                    && !candidate.get(slot as usize).copied().unwrap_or(true)
                    && (!resolved || condition_of(slot).is_some_and(|(_, c)| !c.may_fail(longest)));
                if ruled_out && let Some(decision) = decisions.get_mut(slot as usize) {
                    *decision = Decision::NotMatched;
                    *ruled_out_count += 1;
                }
            }
        }
        decisions
    }

    /// How many evaluations the prefilter ruled out so far.
    #[cfg(test)]
    pub(crate) fn ruled_out_count(&self) -> u64 {
        self.ruled_out
    }

    /// The heap bytes of the plans (bounded by the filter's class limit and the attack).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.plans
            .iter()
            .flatten()
            .map(|plan| {
                plan.groups
                    .iter()
                    .map(|g| {
                        size_of::<Group>()
                            + g.members.len() * size_of::<u32>()
                            + g.automaton.as_ref().map_or(0, AhoCorasick::memory_usage)
                            + g.pattern_slots
                                .iter()
                                .map(|s| 16 + s.len() * 4)
                                .sum::<usize>()
                    })
                    .sum::<usize>()
            })
            .sum::<usize>()
            + self.plans.capacity() * size_of::<Option<Plan>>()
            + self.decisions.capacity() * size_of::<Decision>()
            + self.candidate.capacity()
            + self
                .literals
                .iter()
                .filter_map(|l| l.get().and_then(Option::as_ref))
                .map(|set| set.iter().map(|s| s.len() + 24).sum::<usize>())
                .sum::<usize>()
            + self.literals.capacity() * size_of::<OnceCell<Option<Vec<Vec<u8>>>>>()
    }
}

impl Plan {
    fn new(
        attack: &CompiledAttack,
        applicable: &[u32],
        literals: &[OnceCell<Option<Vec<Vec<u8>>>>],
    ) -> Self {
        let entries = attack.indicator_entries();
        // Per group: its path, an indicator, and its members with their literals.
        let mut groups: Vec<(&WildcardPath, u32, Vec<(u32, &[Vec<u8>])>)> = Vec::new();
        for (slot, &index) in applicable.iter().enumerate() {
            let Some((target, condition)) = entries
                .get(index as usize)
                .and_then(|e| e.as_ref().ok())
                .and_then(|i| i.prefilter_parts())
            else {
                continue;
            };
            let Some(Some(set)) = literals
                .get(index as usize)
                .map(|cell| cell.get_or_init(|| condition_literals(condition)))
            else {
                continue;
            };
            let slot = u32::try_from(slot).unwrap_or(FULL);
            let group = match groups
                .iter()
                .position(|(path, _, _)| path.as_str() == target.as_str())
            {
                Some(group) => group,
                None => {
                    groups.push((target, index, Vec::new()));
                    groups.len() - 1
                }
            };
            if let Some((_, _, members)) = groups.get_mut(group) {
                members.push((slot, set));
            }
        }
        let mut built = Vec::with_capacity(groups.len());
        for (_, indicator, members) in groups {
            let mut patterns: Vec<&[u8]> = Vec::new();
            let mut pattern_slots: Vec<Vec<u32>> = Vec::new();
            for &(slot, set) in &members {
                for literal in set {
                    match patterns.iter().position(|p| *p == literal.as_slice()) {
                        Some(p) => pattern_slots[p].push(slot),
                        None => {
                            patterns.push(literal);
                            pattern_slots.push(vec![slot]);
                        }
                    }
                }
            }
            let automaton = if patterns.is_empty() {
                None
            } else {
                match AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&patterns)
                {
                    Ok(automaton) => Some(automaton),
                    // Cannot prefilter: its members keep the full evaluation.
                    Err(_) => continue,
                }
            };
            built.push(Group {
                indicator,
                members: members.iter().map(|(slot, _)| *slot).collect(),
                automaton,
                pattern_slots: pattern_slots
                    .into_iter()
                    .map(Vec::into_boxed_slice)
                    .collect(),
            });
        }
        Plan { groups: built }
    }
}

/// A condition's required literals, when they can prefilter it (none empty).
fn condition_literals(condition: &CompiledCondition) -> Option<Vec<Vec<u8>>> {
    condition
        .required_literals()
        .filter(|set| set.iter().all(|literal| !literal.is_empty()))
}

impl Group {
    /// Resolves the group's target in `content` and searches each resolved text, marking the slots
    /// whose literal occurs in `candidate`. Returns whether the target resolved, the length of the
    /// longest text, and whether a text holds a character that defeats literals.
    fn search(
        &self,
        target: &WildcardPath,
        content: &Value,
        candidate: &mut [bool],
    ) -> (bool, usize, bool) {
        let mut resolved = false;
        let mut longest = 0;
        let mut defeated = false;
        let _ = target.try_for_each(content, &mut |value| {
            resolved = true;
            let text = value_text(value);
            let bytes = text.as_bytes();
            longest = longest.max(bytes.len());
            if text_defeats_literals(bytes) {
                defeated = true;
                return std::ops::ControlFlow::Break(());
            }
            if let Some(automaton) = &self.automaton {
                let Ok(matches) = automaton.try_find_overlapping_iter(Input::new(bytes)) else {
                    // The search cannot run: rule nothing out.
                    defeated = true;
                    return std::ops::ControlFlow::Break(());
                };
                for found in matches {
                    for &slot in self
                        .pattern_slots
                        .get(found.pattern().as_usize())
                        .map_or(&[][..], |s| &**s)
                    {
                        if let Some(c) = candidate.get_mut(slot as usize) {
                            *c = true;
                        }
                    }
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        (resolved, longest, defeated)
    }
}
