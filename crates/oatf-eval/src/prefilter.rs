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
//! `not_matched` without evaluation. A regex's top-level branches without a useful literal (D-90,
//! [`CompiledCondition::prefilter_needs`]) are searched on their own, at most once per text for
//! all the members that have them (after one search of their union), and a match makes those
//! members candidates; a branch is not searched on a text that lacks a run of bytes its every
//! match holds (D-94, `RegexBranch::may_match`). Everything else, and every indicator that is not a pattern or whose
//! condition the prefilter cannot rule out, is evaluated in full by its own `evaluate_outcome`, so
//! verdicts, evidence and the first matching message are exactly those of the straightforward
//! engine.
//!
//! Exactness: a member is ruled out only when the condition's promise holds
//! ([`CompiledCondition::prefilter_needs`]): no text holds `ſ` or `K`
//! ([`text_defeats_literals`]), and the condition cannot fail on the texts (a text longer than a
//! member's [`CompiledCondition::regex_input_limit`], or a regex that
//! [`CompiledCondition::may_fail_to_build`], has the group evaluated in full so that the error is
//! reported as before). A target that resolves to nothing gives `not_matched` for every member, as
//! evaluation does. A ruled-out indicator is recorded as `not_matched` on the first message of its
//! class; on later messages of the class recording it would change nothing (it is `not_matched`,
//! `error` or decided already), so only the indicators to evaluate are visited and the cost of a
//! message grows with the candidates, not with the indicators. The differential test
//! (`prefilter_tests`) checks the two engines against each other on generated attacks and traces.

use std::mem::size_of;
use std::sync::OnceLock;

use oatf_primitives::{PrefilterNeeds, RegexBranch, WildcardPath, text_defeats_literals};
use serde_json::Value;

use crate::accumulator::Accumulator;
use crate::attack::CompiledAttack;
use crate::candidates::{Candidates, Patterns, PatternsBuilder, indicator};
use crate::indicator::CompiledIndicator;
use crate::literal_guard::CelPlan;
use crate::plan_cache::Cached;
use crate::texts::MessageTexts;

/// The prefilter of one [`crate::TraceEvaluator`]: a plan per filter class, taken from the
/// attack's [`PlanCache`](crate::plan_cache::PlanCache) on the class's first message, and the per-message scratch space.
#[derive(Debug, Default)]
pub(crate) struct Prefilter<'a> {
    /// Per filter class (by its index in the filter table): lent by the attack's cache (D-110).
    plans: Vec<Option<Cached<'a, Plan>>>,
    /// The slots to evaluate for the current message, ascending.
    evaluate: Vec<u32>,
    /// Per applicable slot: listed in `evaluate` for the current message.
    listed: Vec<bool>,
    /// How many evaluations were ruled out so far (for tests).
    #[cfg(test)]
    ruled_out: u64,
    /// How many branch searches found a match that made a member a candidate (for tests).
    #[cfg(test)]
    branch_hits: u64,
    /// Per guarded CEL member of the current message's class: a needle occurs (D-95).
    cel_present: Vec<bool>,
    /// Per residual of the current message's class: its answer, once evaluated (D-95).
    cel_residuals: Vec<Option<Option<bool>>>,
}

/// The groups of one class of message.
#[derive(Debug)]
struct Plan {
    groups: Vec<Group>,
    /// The slots (positions in the class's applicable list) evaluated in full on every message.
    full: Box<[u32]>,
    /// The CEL members with a literal guard (D-95).
    cel: Option<CelPlan>,
}

/// The prefiltered indicators of one class that share a target path.
#[derive(Debug)]
struct Group {
    /// An indicator of the group, whose target is the group's.
    indicator: u32,
    /// The slots of the members.
    members: Box<[u32]>,
    /// The automaton over the members' literals and, per literal, the slots that have it, when
    /// any member has literals.
    literals: Option<Patterns>,
    /// The distinct regex branches the members need searched (D-90), each searched at most once
    /// per text: where it is (an indicator, the position in its needs' branches) and the slots of
    /// the members that have it.
    branches: Box<[Branch]>,
    /// The union of the branches, when there are two or more: a text it does not match needs no
    /// branch searched (built on first use, per plan).
    union: Option<RegexBranch>,
    /// The least regex input limit of the members: a longer text may fail, so the group is then
    /// evaluated in full.
    input_limit: usize,
    /// Whether a member's regex may fail to build (decided on first need, without building).
    may_fail_to_build: OnceLock<bool>,
}

/// A regex branch of a group (D-90): searched on a text only while one of its members is still
/// to be decided on the message, and a match makes them all candidates.
#[derive(Debug)]
struct Branch {
    /// The indicator whose needs hold the branch (the first member that has it, so that every
    /// plan of the compiled attack searches, and builds, the same one).
    indicator: u32,
    /// Its position in that indicator's needs' branches.
    position: u32,
    /// The slots of the members that have it.
    slots: Box<[u32]>,
}

impl<'a> Prefilter<'a> {
    /// A prefilter with no plan yet.
    pub(crate) fn new() -> Self {
        Prefilter::default()
    }

    /// The slots of `applicable` (the indicators of filter class `class`) to evaluate in full on a
    /// message with `content`, ascending, and whether this is the class's first message (the other
    /// slots must then be recorded as `not_matched`; later, recording them changes nothing).
    pub(crate) fn decide(
        &mut self,
        attack: &'a CompiledAttack,
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
            cel_present,
            cel_residuals,
            ..
        } = self;
        let Some(slot) = plans.get_mut(class) else {
            return (true, &[]);
        };
        let plan = slot.get_or_insert_with(|| {
            attack
                .plan_cache()
                .get_or_build(applicable, || Plan::new(attack, applicable))
        });
        if listed.len() < applicable.len() {
            listed.resize(applicable.len(), false);
        }
        evaluate.clear();
        let mut candidates = Candidates {
            applicable,
            accumulators,
            listed,
            evaluate,
        };
        for &slot in &*plan.full {
            candidates.list(slot);
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
            let before = candidates.evaluate.len();
            let (resolved, all, _hits) =
                group.search(attack, target, (content, texts), &mut candidates);
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
                    candidates.list(slot);
                }
            }
            #[cfg(test)]
            {
                let added = candidates.evaluate.len() - before;
                self.ruled_out += (group.members.len() - added.min(group.members.len())) as u64;
                self.branch_hits += _hits;
            }
            #[cfg(not(test))]
            let _ = before;
        }
        if let Some(cel) = &plan.cel {
            cel.decide(
                attack,
                content,
                &mut candidates,
                (cel_present, cel_residuals),
            );
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

    /// How many branch searches made a member a candidate so far.
    #[cfg(test)]
    pub(crate) fn branch_hit_count(&self) -> u64 {
        self.branch_hits
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
                                + g.literals.as_ref().map_or(0, Patterns::heap_bytes)
                                + g.branches
                                    .iter()
                                    .map(|b| size_of::<Branch>() + b.slots.len() * size_of::<u32>())
                                    .sum::<usize>()
                        })
                        .sum::<usize>()
            })
            .sum::<usize>()
            + self
                .plans
                .iter()
                .flatten()
                .filter_map(|plan| plan.cel.as_ref())
                .map(CelPlan::heap_bytes)
                .sum::<usize>()
            + self.cel_present.capacity()
            + self.cel_residuals.capacity() * size_of::<Option<Option<bool>>>()
            + self.plans.capacity() * size_of::<Option<Cached<'a, Plan>>>()
            + self.evaluate.capacity() * size_of::<u32>()
            + self.listed.capacity()
    }
}

impl Plan {
    fn new(attack: &CompiledAttack, applicable: &[u32]) -> Self {
        let mut full = Vec::new();
        // Per group: its path, an indicator, and its members with their indicator, needs and
        // input limit.
        type Members<'a> = Vec<(u32, u32, &'a PrefilterNeeds, Option<usize>)>;
        let mut groups: Vec<(&WildcardPath, u32, Members<'_>)> = Vec::new();
        let mut guarded = Vec::new();
        for (slot, &index) in applicable.iter().enumerate() {
            let Ok(slot) = u32::try_from(slot) else {
                break;
            };
            let Some((target, condition, needs)) =
                indicator(attack, index).and_then(CompiledIndicator::prefilter_parts)
            else {
                if indicator(attack, index)
                    .and_then(CompiledIndicator::cel_guard)
                    .is_some()
                {
                    guarded.push((slot, index));
                } else {
                    full.push(slot);
                }
                continue;
            };
            let member = (slot, index, needs, condition.regex_input_limit());
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
            // A member whose branches few others share costs more searched branch by branch than
            // evaluated in full, which searches its regex once: each branch costs a search shared
            // by the members that have it, and a member whose share adds up to more than one
            // search is evaluated in full (a lone regex of two such branches, say). A branch with
            // a required run (D-94) is searched only on the rare texts that hold the run: it
            // costs nothing here.
            let mut shares: Vec<(&RegexBranch, usize)> = Vec::new();
            for (_, _, needs, _) in &members {
                for branch in &needs.branches {
                    match shares.iter_mut().find(|(b, _)| *b == branch) {
                        Some((_, count)) => *count += 1,
                        None => shares.push((branch, 1)),
                    }
                }
            }
            let (members, alone): (Vec<_>, Vec<_>) =
                members.into_iter().partition(|(_, _, needs, _)| {
                    let searches: f64 = needs
                        .branches
                        .iter()
                        .filter(|branch| !branch.has_required_run())
                        .map(|branch| {
                            let count = shares
                                .iter()
                                .find(|(b, _)| *b == branch)
                                .map_or(1, |(_, count)| *count);
                            1.0 / count as f64
                        })
                        .sum();
                    searches <= 1.0
                });
            full.extend(alone.iter().map(|(slot, _, _, _)| *slot));
            if members.is_empty() {
                continue;
            }
            let mut literals = PatternsBuilder::default();
            // The distinct branches: the branch itself, where it is, and its slots.
            let mut branches: Vec<(&RegexBranch, u32, u32, Vec<u32>)> = Vec::new();
            for &(slot, index, needs, _) in &members {
                for literal in &needs.literals {
                    literals.add(literal, slot);
                }
                for (position, branch) in needs.branches.iter().enumerate() {
                    let Ok(position) = u32::try_from(position) else {
                        break;
                    };
                    match branches.iter_mut().find(|(b, _, _, _)| *b == branch) {
                        Some((_, _, _, slots)) => slots.push(slot),
                        None => branches.push((branch, index, position, vec![slot])),
                    }
                }
            }
            let literals = if literals.is_empty() {
                None
            } else {
                match literals.build(true) {
                    Some(literals) => Some(literals),
                    None => {
                        // Cannot prefilter: the members keep the full evaluation.
                        full.extend(members.iter().map(|(slot, _, _, _)| *slot));
                        continue;
                    }
                }
            };
            let union = RegexBranch::union(branches.iter().map(|(b, _, _, _)| *b));
            built.push(Group {
                indicator,
                union,
                members: members.iter().map(|(slot, _, _, _)| *slot).collect(),
                literals,
                branches: branches
                    .into_iter()
                    .map(|(_, indicator, position, slots)| Branch {
                        indicator,
                        position,
                        slots: slots.into_boxed_slice(),
                    })
                    .collect(),
                input_limit: members
                    .iter()
                    .filter_map(|(_, _, _, limit)| *limit)
                    .min()
                    .unwrap_or(usize::MAX),
                may_fail_to_build: OnceLock::new(),
            });
        }
        let cel = if guarded.is_empty() {
            None
        } else {
            let plan = CelPlan::new(attack, &guarded);
            if plan.is_none() {
                full.extend(guarded.iter().map(|(slot, _)| *slot));
            }
            plan
        };
        full.sort_unstable();
        Plan {
            groups: built,
            full: full.into_boxed_slice(),
            cel,
        }
    }
}

impl Group {
    /// Resolves the group's target in `content` and searches each resolved text, listing in
    /// `candidates` each member one of whose literals occurs or one of whose branches matches
    /// (a branch is searched only while one of its members is wanted). Returns whether the
    /// target resolved, whether every member must be evaluated (a text holds a character that
    /// defeats literals, is longer than a member's regex input limit, or cannot be searched), and
    /// how many branch matches listed a member.
    fn search(
        &self,
        attack: &CompiledAttack,
        target: &WildcardPath,
        (content, texts): (&Value, &mut MessageTexts),
        candidates: &mut Candidates<'_>,
    ) -> (bool, bool, u64) {
        use std::ops::ControlFlow;
        let mut resolved = false;
        let mut all = false;
        let mut hits = 0;
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
            if let Some(literals) = &self.literals
                && !literals.each_member(bytes, |slot| candidates.list(slot))
            {
                all = true;
                return ControlFlow::Break(());
            }
            let regex_branch = |branch: &Branch| {
                indicator(attack, branch.indicator)
                    .and_then(CompiledIndicator::prefilter_parts)
                    .and_then(|(_, _, needs)| needs.branches.get(branch.position as usize))
            };
            // The branches still wanted that the text may match: a text without the run of bytes
            // a branch's every match holds (D-94) needs neither the branch nor the union searched.
            let possible = self
                .branches
                .iter()
                .filter(|branch| {
                    branch.slots.iter().any(|&slot| candidates.wanted(slot))
                        && regex_branch(branch).is_none_or(|b| b.may_match(text))
                })
                .count();
            if possible == 0
                || (possible >= 2
                    && self
                        .union
                        .as_ref()
                        .is_some_and(|union| union.is_match(text) == Some(false)))
            {
                return ControlFlow::Continue(());
            }
            for branch in &*self.branches {
                if !branch.slots.iter().any(|&slot| candidates.wanted(slot)) {
                    continue;
                }
                let matched = regex_branch(branch)
                    // A branch that cannot be built rules nothing out.
                    .is_none_or(|b| b.is_match(text) != Some(false));
                if matched {
                    hits += 1;
                    for &slot in &*branch.slots {
                        candidates.list(slot);
                    }
                }
            }
            ControlFlow::Continue(())
        });
        (resolved, all, hits)
    }
}
