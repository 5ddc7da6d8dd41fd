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
//! ([`text_defeats_literals`]), and the condition cannot fail on the texts (a text longer than a
//! member's [`CompiledCondition::regex_input_limit`], or a regex that
//! [`CompiledCondition::may_fail_to_build`], has the group evaluated in full so that the error is
//! reported as before). A target that resolves to nothing gives `not_matched` for every member, as
//! evaluation does. A ruled-out indicator is recorded as `not_matched` on the first message of its
//! class; on later messages of the class recording it would change nothing (it is `not_matched`,
//! `error` or decided already), so only the indicators to evaluate are visited and the cost of a
//! message grows with the candidates, not with the indicators. The differential test
//! (`prefilter_tests`) checks the two engines against each other on generated attacks and traces.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::mem::size_of;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};
use oatf_primitives::{WildcardPath, text_defeats_literals};
use serde_json::Value;

use crate::accumulator::Accumulator;
use crate::attack::CompiledAttack;
use crate::indicator::{CompiledIndicator, MessageTexts};

/// The most bytes of literals one group's automaton is built as a DFA for (about one DFA state
/// per byte, each a row of the byte classes' transitions: a few hundred KiB at most); past it
/// `aho-corasick` picks its own kind (a contiguous NFA).
const DFA_PATTERN_BYTES: usize = 4096;

/// The prefilter of one [`crate::TraceEvaluator`]: a plan per filter class, built on the class's
/// first message, and the per-message scratch space.
#[derive(Debug, Default)]
pub(crate) struct Prefilter {
    /// Per filter class (by its index in the filter table).
    plans: Vec<Option<Plan>>,
    /// The slots to evaluate for the current message, ascending.
    evaluate: Vec<u32>,
    /// Per applicable slot: listed in `evaluate` for the current message.
    listed: Vec<bool>,
    /// How many evaluations were ruled out so far (for tests).
    #[cfg(test)]
    ruled_out: u64,
}

/// The groups of one class of message.
#[derive(Debug)]
struct Plan {
    groups: Vec<Group>,
    /// The slots (positions in the class's applicable list) evaluated in full on every message.
    full: Box<[u32]>,
}

/// The prefiltered indicators of one class that share a target path.
#[derive(Debug)]
struct Group {
    /// An indicator of the group, whose target is the group's.
    indicator: u32,
    /// The slots of the members.
    members: Box<[u32]>,
    /// The automaton over the members' literals, when any member has literals.
    automaton: Option<AhoCorasick>,
    /// Per automaton pattern: the slots whose literal it is.
    pattern_slots: Box<[Box<[u32]>]>,
    /// The least regex input limit of the members: a longer text may fail, so the group is then
    /// evaluated in full.
    input_limit: usize,
    /// Whether a member's regex may fail to build (decided on first need, without building).
    may_fail_to_build: OnceLock<bool>,
}

/// The indicator at `index` of `attack`, when it compiled.
fn indicator(attack: &CompiledAttack, index: u32) -> Option<&CompiledIndicator> {
    attack
        .indicator_entries()
        .get(index as usize)?
        .as_ref()
        .ok()
}

impl Prefilter {
    /// A prefilter with no plan yet.
    pub(crate) fn new() -> Self {
        Prefilter::default()
    }

    /// The slots of `applicable` (the indicators of filter class `class`) to evaluate in full on a
    /// message with `content`, ascending, and whether this is the class's first message (the other
    /// slots must then be recorded as `not_matched`; later, recording them changes nothing).
    pub(crate) fn decide(
        &mut self,
        attack: &CompiledAttack,
        class: usize,
        applicable: &[u32],
        (content, texts): (&Value, &mut MessageTexts),
        accumulators: &[Accumulator],
    ) -> (bool, &[u32]) {
        if self.plans.len() <= class {
            self.plans.resize_with(class + 1, || None);
        }
        let first = self.plans.get(class).is_some_and(Option::is_none);
        let Prefilter {
            plans,
            evaluate,
            listed,
            ..
        } = self;
        let Some(slot) = plans.get_mut(class) else {
            return (true, &[]);
        };
        let plan = slot.get_or_insert_with(|| Plan::new(attack, applicable));
        if listed.len() < applicable.len() {
            listed.resize(applicable.len(), false);
        }
        evaluate.clear();
        let mut list = |slot: u32, evaluate: &mut Vec<u32>| {
            if let Some(seen) = listed.get_mut(slot as usize)
                && !*seen
            {
                *seen = true;
                evaluate.push(slot);
            }
        };
        for &slot in &*plan.full {
            list(slot, evaluate);
        }
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
            let Some((target, _, _)) =
                indicator(attack, group.indicator).and_then(CompiledIndicator::prefilter_parts)
            else {
                continue;
            };
            let before = evaluate.len();
            let (resolved, all) = group.search(target, (content, texts), &mut |slot| {
                list(slot, evaluate);
            });
            let all = all
                || (resolved
                    && *group.may_fail_to_build.get_or_init(|| {
                        group.members.iter().any(|&slot| {
                            applicable
                                .get(slot as usize)
                                .and_then(|&i| indicator(attack, i))
                                .and_then(CompiledIndicator::prefilter_parts)
                                .is_none_or(|(_, condition, _)| condition.may_fail_to_build())
                        })
                    }));
            if all {
                for &slot in &*group.members {
                    list(slot, evaluate);
                }
            }
            #[cfg(test)]
            {
                let added = evaluate.len() - before;
                self.ruled_out += (group.members.len() - added.min(group.members.len())) as u64;
            }
            #[cfg(not(test))]
            let _ = before;
        }
        evaluate.sort_unstable();
        for &slot in evaluate.iter() {
            if let Some(seen) = listed.get_mut(slot as usize) {
                *seen = false;
            }
        }
        (first, evaluate)
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
                plan.full.len() * size_of::<u32>()
                    + plan
                        .groups
                        .iter()
                        .map(|g| {
                            size_of::<Group>()
                                + g.members.len() * size_of::<u32>()
                                + g.automaton.as_ref().map_or(0, AhoCorasick::memory_usage)
                                + g.pattern_slots
                                    .iter()
                                    .map(|s| size_of::<Box<[u32]>>() + s.len() * size_of::<u32>())
                                    .sum::<usize>()
                        })
                        .sum::<usize>()
            })
            .sum::<usize>()
            + self.plans.capacity() * size_of::<Option<Plan>>()
            + self.evaluate.capacity() * size_of::<u32>()
            + self.listed.capacity()
    }
}

impl Plan {
    fn new(attack: &CompiledAttack, applicable: &[u32]) -> Self {
        let mut full = Vec::new();
        // Per group: its path, an indicator, and its members with their literals and input limit.
        type Members<'a> = Vec<(u32, &'a [Vec<u8>], Option<usize>)>;
        let mut groups: Vec<(&WildcardPath, u32, Members<'_>)> = Vec::new();
        for (slot, &index) in applicable.iter().enumerate() {
            let Ok(slot) = u32::try_from(slot) else {
                break;
            };
            let Some((target, condition, literals)) =
                indicator(attack, index).and_then(CompiledIndicator::prefilter_parts)
            else {
                full.push(slot);
                continue;
            };
            let member = (slot, literals, condition.regex_input_limit());
            match groups
                .iter_mut()
                .find(|(path, _, _)| path.as_str() == target.as_str())
            {
                Some((_, _, members)) => members.push(member),
                None => groups.push((target, index, vec![member])),
            }
        }
        let mut built = Vec::with_capacity(groups.len());
        for (_, indicator, members) in groups {
            let mut patterns: Vec<&[u8]> = Vec::new();
            let mut pattern_slots: Vec<Vec<u32>> = Vec::new();
            let mut known: HashMap<&[u8], usize> = HashMap::new();
            for &(slot, set, _) in &members {
                for literal in set {
                    match known.entry(literal.as_slice()) {
                        Entry::Occupied(p) => {
                            if let Some(slots) = pattern_slots.get_mut(*p.get()) {
                                slots.push(slot);
                            }
                        }
                        Entry::Vacant(v) => {
                            v.insert(patterns.len());
                            patterns.push(literal);
                            pattern_slots.push(vec![slot]);
                        }
                    }
                }
            }
            let automaton = if patterns.is_empty() {
                None
            } else {
                let mut builder = AhoCorasick::builder();
                builder
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard);
                // A DFA scans about three times faster than the contiguous NFA the crate picks
                // past 100 patterns (the white-space variants of the library's regexes make many);
                // its table grows with the patterns' bytes, so past the budget the crate chooses.
                let pattern_bytes: usize = patterns.iter().map(|p| p.len()).sum();
                if pattern_bytes <= DFA_PATTERN_BYTES {
                    builder.kind(Some(AhoCorasickKind::DFA));
                }
                let built = builder.build(&patterns).or_else(|_| {
                    // A DFA too large for its state identifiers: let the crate choose.
                    builder.kind(None).build(&patterns)
                });
                match built {
                    Ok(automaton) => Some(automaton),
                    Err(_) => {
                        // Cannot prefilter: the members keep the full evaluation.
                        full.extend(members.iter().map(|(slot, _, _)| *slot));
                        continue;
                    }
                }
            };
            built.push(Group {
                indicator,
                members: members.iter().map(|(slot, _, _)| *slot).collect(),
                automaton,
                pattern_slots: pattern_slots
                    .into_iter()
                    .map(Vec::into_boxed_slice)
                    .collect(),
                input_limit: members
                    .iter()
                    .filter_map(|(_, _, limit)| *limit)
                    .min()
                    .unwrap_or(usize::MAX),
                may_fail_to_build: OnceLock::new(),
            });
        }
        full.sort_unstable();
        Plan {
            groups: built,
            full: full.into_boxed_slice(),
        }
    }
}

impl Group {
    /// Resolves the group's target in `content` and searches each resolved text, calling
    /// `candidate` with each member one of whose literals occurs. Returns whether the target
    /// resolved, and whether every member must be evaluated (a text holds a character that defeats
    /// literals, is longer than a member's regex input limit, or cannot be searched).
    fn search(
        &self,
        target: &WildcardPath,
        (content, texts): (&Value, &mut MessageTexts),
        candidate: &mut impl FnMut(u32),
    ) -> (bool, bool) {
        use std::ops::ControlFlow;
        let mut resolved = false;
        let mut all = false;
        let _ = target.try_for_each(content, &mut |value| {
            resolved = true;
            let text = match value {
                Value::String(s) => s.as_str(),
                other => texts.text(other),
            };
            let bytes = text.as_bytes();
            if bytes.len() > self.input_limit || text_defeats_literals(bytes) {
                all = true;
                return ControlFlow::Break(());
            }
            if let Some(automaton) = &self.automaton {
                let Ok(matches) = automaton.try_find_overlapping_iter(Input::new(bytes)) else {
                    all = true;
                    return ControlFlow::Break(());
                };
                for found in matches {
                    for &slot in self
                        .pattern_slots
                        .get(found.pattern().as_usize())
                        .map_or(&[][..], |s| &**s)
                    {
                        candidate(slot);
                    }
                }
            }
            ControlFlow::Continue(())
        });
        (resolved, all)
    }
}

// The prefilter's plans live in `TraceEvaluator`, which callers share and move across threads (the
// Python binding's evaluator object, campaigns on rayon): it must stay `Send + Sync`.
const _: () = {
    const fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<crate::TraceEvaluator<'static>>();
    send_and_sync::<crate::CompiledAttack>();
};
