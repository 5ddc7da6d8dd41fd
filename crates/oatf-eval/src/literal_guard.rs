//! The literal guard of CEL indicators in whole-trace evaluation (D-95): the part of a class's
//! prefilter plan (`crate::prefilter`) for the expression indicators whose programs have a guard
//! ([`CelGuard`](crate::CelGuard), given by the engine's
//! [`compile_guarded`](crate::CelEvaluator::compile_guarded)).
//!
//! Exactness rests on the guard's contract: on a message none of whose strings contains one of a
//! program's needles, its residual's `Some(result)` is the program's `Ok(result)`. A member is
//! ruled out only when a search of every string of the message (object keys and string values, at
//! any depth) found none of its needles and its residual answers `false`; it is then recorded
//! `not_matched` like a literal-prefiltered indicator. Anything else (a needle present, a residual
//! that answers `true` or nothing, a message too deep to search) has it evaluated in full, and so
//! does every member when the search would cost more than it saves (its strings hold more bytes
//! than [`SEARCHED_BYTES_PER_SAVED_EVALUATION`] per evaluation saved). The
//! differential test is `oatf-sdk`'s `literal_guard` (the real CEL engine against the
//! straightforward engine).

use std::collections::HashMap;
use std::mem::size_of;

use serde_json::Value;

use crate::attack::CompiledAttack;
use crate::candidates::{Candidates, Patterns, PatternsBuilder, indicator};
use crate::indicator::CompiledIndicator;

/// How many bytes of a message's strings the needle search may read per evaluation it saves: the
/// search reads about a byte a nanosecond and a half, an evaluation on the direct path costs about
/// 0.15 µs, so the search pays off while it reads fewer than about a hundred bytes per evaluation
/// it saves (undecided members beyond one per distinct residual); this keeps a margin.
const SEARCHED_BYTES_PER_SAVED_EVALUATION: usize = 64;

/// Deeper messages than this are not searched for needles: their guarded members are evaluated.
const MAX_NEEDLE_DEPTH: usize = 512;

/// The CEL members of a class whose programs have a literal guard (D-95): one automaton over
/// their needles, searched once over every string of a message; a member none of whose needles
/// occurs is decided by its residual, evaluated once per message for all the members that share
/// it, and ruled out when the residual is `false`.
#[derive(Debug)]
pub(crate) struct CelPlan {
    /// The members' slots.
    members: Box<[u32]>,
    /// Per member: its residual (an index into `representatives`).
    residual_of: Box<[u32]>,
    /// Per residual: the indicator whose program evaluates it.
    representatives: Box<[u32]>,
    /// The needles, exactly (not case-insensitively: CEL's `contains` and `in` are exact), each
    /// with the members (positions in `members`) whose needle it is.
    needles: Patterns,
}

impl CelPlan {
    /// The plan of `members` (slot, indicator), each with a guarded program; `None` when the
    /// automaton cannot be built (the members are then evaluated in full).
    pub(crate) fn new(attack: &CompiledAttack, members: &[(u32, u32)]) -> Option<CelPlan> {
        let mut needles = PatternsBuilder::default();
        let mut keys: HashMap<&str, u32> = HashMap::new();
        let mut representatives = Vec::new();
        let mut residual_of = Vec::with_capacity(members.len());
        for (position, &(_, index)) in members.iter().enumerate() {
            let position = u32::try_from(position).ok()?;
            let guard = indicator(attack, index)?.cel_guard()?;
            for needle in guard.needles() {
                needles.add(needle.as_bytes(), position);
            }
            let next = u32::try_from(representatives.len()).ok()?;
            let residual = *keys.entry(guard.key()).or_insert_with(|| {
                representatives.push(index);
                next
            });
            residual_of.push(residual);
        }
        let needles = needles.build(false)?;
        Some(CelPlan {
            members: members.iter().map(|(slot, _)| *slot).collect(),
            residual_of: residual_of.into_boxed_slice(),
            representatives: representatives.into_boxed_slice(),
            needles,
        })
    }

    /// Lists in `candidates` the members to evaluate on a message with `content`.
    pub(crate) fn decide(
        &self,
        attack: &CompiledAttack,
        content: &Value,
        candidates: &mut Candidates<'_>,
        (present, residuals): (&mut Vec<bool>, &mut Vec<Option<Option<bool>>>),
    ) {
        // The evaluations the guard would save: the undecided members beyond one per residual.
        residuals.clear();
        residuals.resize(self.representatives.len(), None);
        let (mut live, mut distinct) = (0_usize, 0_usize);
        for (position, &slot) in self.members.iter().enumerate() {
            if !candidates.wanted(slot) {
                continue;
            }
            live += 1;
            if let Some(seen) = self
                .residual_of
                .get(position)
                .and_then(|&r| residuals.get_mut(r as usize))
                && seen.is_none()
            {
                // Marked for counting; cleared below before any answer is kept.
                *seen = Some(None);
                distinct += 1;
            }
        }
        if live == 0 {
            return;
        }
        let budget = (live - distinct).saturating_mul(SEARCHED_BYTES_PER_SAVED_EVALUATION);
        present.clear();
        present.resize(self.members.len(), false);
        if !strings_within(content, budget, 0).is_some_and(|_| self.search(content, present, 0)) {
            for &slot in &*self.members {
                candidates.list(slot);
            }
            return;
        }
        residuals.clear();
        residuals.resize(self.representatives.len(), None);
        for (position, &slot) in self.members.iter().enumerate() {
            if !candidates.wanted(slot) {
                continue;
            }
            if present.get(position).copied().unwrap_or(true) {
                candidates.list(slot);
                continue;
            }
            let residual = self
                .residual_of
                .get(position)
                .and_then(|&r| Some((r, *self.representatives.get(r as usize)?)));
            let answer = residual.and_then(|(r, representative)| {
                *residuals.get_mut(r as usize)?.get_or_insert_with(|| {
                    indicator(attack, representative)
                        .and_then(CompiledIndicator::cel_guard)
                        .and_then(|guard| guard.evaluate_residual(content))
                })
            });
            if answer != Some(false) {
                candidates.list(slot);
            }
        }
    }

    /// Marks in `present` the members whose needles occur in a string of `value` (object keys
    /// and string values, at any depth); `false` when the value is too deep or a search fails.
    fn search(&self, value: &Value, present: &mut [bool], depth: usize) -> bool {
        if depth > MAX_NEEDLE_DEPTH {
            return false;
        }
        match value {
            Value::String(s) => self.mark(s, present),
            Value::Array(items) => items
                .iter()
                .all(|item| self.search(item, present, depth + 1)),
            Value::Object(map) => map.iter().all(|(key, item)| {
                self.mark(key, present) && self.search(item, present, depth + 1)
            }),
            _ => true,
        }
    }

    fn mark(&self, text: &str, present: &mut [bool]) -> bool {
        self.needles.each_member(text.as_bytes(), |member| {
            if let Some(flag) = present.get_mut(member as usize) {
                *flag = true;
            }
        })
    }
}

/// The bytes of the strings of `value` (object keys and string values, at any depth) when they
/// are at most `budget` and the value is not too deep to search: what is left of the budget.
fn strings_within(value: &Value, budget: usize, depth: usize) -> Option<usize> {
    if depth > MAX_NEEDLE_DEPTH {
        return None;
    }
    match value {
        Value::String(s) => budget.checked_sub(s.len()),
        Value::Array(items) => items
            .iter()
            .try_fold(budget, |left, item| strings_within(item, left, depth + 1)),
        Value::Object(map) => map.iter().try_fold(budget, |left, (key, item)| {
            strings_within(item, left.checked_sub(key.len())?, depth + 1)
        }),
        _ => Some(budget),
    }
}

impl CelPlan {
    /// The heap bytes of the plan.
    pub(crate) fn heap_bytes(&self) -> usize {
        size_of::<CelPlan>()
            + self.needles.heap_bytes()
            + (self.members.len() + self.residual_of.len() + self.representatives.len())
                * size_of::<u32>()
    }
}
