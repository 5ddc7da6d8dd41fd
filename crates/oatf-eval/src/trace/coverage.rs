//! What trace evaluation records so that a miss is never silent (decision D-70): whether each
//! indicator's target resolved at least once, and which actors the messages came from.
//!
//! Both are kept apart from the filtering and evaluation of messages; the evaluator calls
//! [`TargetCoverage::observe`] after evaluating an indicator and [`ActorCensus::record`] once per
//! message. Once a target has resolved, observing it costs one test of a flag; until then, each
//! applicable message that did not match resolves the target once more, and the first
//! [`SAMPLED_MESSAGES`] of them also collect the keys that were there, for "did you mean".

use std::mem::size_of;

use oatf_internal::did_you_mean;
use oatf_primitives::WildcardPath;

use serde_json::Value;

use super::message::Head;
use crate::actor::CompiledActor;
use crate::indicator::CompiledIndicator;
use crate::texts::truncate;
use crate::verdict::IndicatorResult;
use crate::warning::TraceWarning;

/// Unresolved messages per indicator whose keys are collected for a suggestion.
const SAMPLED_MESSAGES: u32 = 16;
/// Keys kept per indicator for a suggestion.
const MAX_KEYS: usize = 32;
/// Keys longer than this (in bytes) are not kept: no target segment is that long in practice.
const MAX_KEY_LEN: usize = 64;
/// Names of undeclared actors kept with their counts; the messages of others are counted together.
const MAX_UNDECLARED: usize = 8;
/// Actors named in one evidence text.
const MAX_NAMED: usize = 6;

/// Per indicator: whether its target resolved in an applicable message, and, until it does, what
/// the messages had where it stopped.
#[derive(Debug)]
pub(super) struct TargetCoverage {
    /// Per indicator: the target resolved, or there is nothing to check (decided otherwise, no target).
    settled: Vec<bool>,
    /// Per indicator, allocated at its first applicable message whose target did not resolve.
    misses: Vec<Option<Box<Miss>>>,
}

/// What the applicable messages had where an indicator's target stopped resolving.
#[derive(Debug, Default)]
struct Miss {
    /// Applicable messages in which the target did not resolve.
    messages: u64,
    /// Of those, the ones whose keys were looked at.
    sampled: u32,
    /// The deepest dot-separated segment the target missed at, and the keys the objects there had.
    segment: Option<usize>,
    keys: Vec<Box<str>>,
}

impl TargetCoverage {
    pub(super) fn new(indicators: usize) -> Self {
        TargetCoverage {
            settled: vec![false; indicators],
            misses: std::iter::repeat_with(|| None).take(indicators).collect(),
        }
    }

    /// Records that `indicator` (number `index`) was evaluated against a message's `content` with
    /// `result`.
    #[inline]
    pub(super) fn observe(
        &mut self,
        index: usize,
        indicator: &CompiledIndicator,
        content: &Value,
        result: IndicatorResult,
    ) {
        if self.settled.get(index).is_none_or(|settled| *settled) {
            return;
        }
        self.observe_unsettled(index, indicator, content, result);
    }

    /// Whether nothing more needs to be seen of indicator `index` (its target resolved, it matched or
    /// erred, or its sample of misses is complete without a suggestion).
    #[inline]
    pub(super) fn is_settled(&self, index: usize) -> bool {
        self.settled.get(index).is_none_or(|settled| *settled)
    }

    #[cold]
    fn observe_unsettled(
        &mut self,
        index: usize,
        indicator: &CompiledIndicator,
        content: &Value,
        result: IndicatorResult,
    ) {
        let target = match (result, indicator.target()) {
            // Only a message that did not match can hide a target that never resolves: a match or
            // an error is not silent, and an expression has no target.
            (IndicatorResult::NotMatched, Some(target)) => target,
            _ => return self.settle(index),
        };
        if target.any(content, |_| true) {
            return self.settle(index);
        }
        let Some(slot) = self.misses.get_mut(index) else {
            return;
        };
        let miss = slot.get_or_insert_with(Box::default);
        miss.messages += 1;
        if miss.sampled >= SAMPLED_MESSAGES {
            return;
        }
        miss.sampled += 1;
        if let Some(missing) = target.missing_field(content) {
            if miss.segment.is_none_or(|s| s < missing.segment) {
                miss.segment = Some(missing.segment);
                miss.keys.clear();
            }
            if miss.segment == Some(missing.segment) {
                for key in missing.object.keys().take(4 * MAX_KEYS) {
                    if miss.keys.len() >= MAX_KEYS {
                        break;
                    }
                    if key.len() <= MAX_KEY_LEN && !miss.keys.iter().any(|k| **k == **key) {
                        miss.keys.push(key.as_str().into());
                    }
                }
            }
        }
        // With the sample complete, the keys are fixed: an absent optional field stays one, so
        // later messages need not be checked (the usual resisted run costs 16 checks, not one
        // per message).
        if miss.sampled == SAMPLED_MESSAGES && diagnose(miss, target).is_none() {
            self.settle(index);
        }
    }

    fn settle(&mut self, index: usize) {
        if let Some(settled) = self.settled.get_mut(index) {
            *settled = true;
        }
        if let Some(slot) = self.misses.get_mut(index) {
            *slot = None;
        }
    }

    /// The warning for `indicator` (number `index`) when its target never resolved in the messages
    /// that applied to it, it did not match, and the messages suggest the path is wrong: a key close
    /// to the missing one was there, or the path stopped before its last segment (or at a value that
    /// is not an object).
    pub(super) fn warning(
        &self,
        index: usize,
        indicator: &CompiledIndicator,
        result: IndicatorResult,
    ) -> Option<TraceWarning> {
        if result != IndicatorResult::NotMatched || self.settled.get(index).is_none_or(|s| *s) {
            return None;
        }
        let miss = self.misses.get(index)?.as_deref()?;
        let target = indicator.target()?;
        let Diagnosis { suggestion, keys } = diagnose(miss, target)?;
        Some(TraceWarning::unresolved_target(
            indicator.id(),
            target.as_str(),
            miss.messages,
            keys.as_ref().map(|(prefix, keys)| (prefix.as_str(), *keys)),
            suggestion,
        ))
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.settled.capacity()
            + self.misses.capacity() * size_of::<Option<Box<Miss>>>()
            + self
                .misses
                .iter()
                .flatten()
                .map(|miss| {
                    size_of::<Miss>()
                        + miss.keys.capacity() * size_of::<Box<str>>()
                        + miss.keys.iter().map(|k| k.len()).sum::<usize>()
                })
                .sum::<usize>()
    }
}

/// Why a target that did not resolve looks wrong: the closest path the messages had, and the keys
/// where it stopped (the path up to there, and the keys).
struct Diagnosis<'m> {
    suggestion: Option<String>,
    keys: Option<(String, &'m [Box<str>])>,
}

/// Whether the misses of a target suggest the path is wrong (a warning, D-70): a key close to the
/// missing segment was there, or the path stopped above its last segment, or at a value that is
/// not an object. The last segment absent with no key close to it is what resistance looks like
/// for an optional field (the agent did not fill `notes`): `None`.
fn diagnose<'m>(miss: &'m Miss, target: &WildcardPath) -> Option<Diagnosis<'m>> {
    let path = target.as_str();
    let Some(segment) = miss.segment else {
        return Some(Diagnosis {
            suggestion: None,
            keys: None,
        });
    };
    let written = path.split('.').nth(segment).unwrap_or_default();
    let written = written.split('[').next().unwrap_or_default();
    let suggestion = did_you_mean(written, miss.keys.iter().map(|k| &**k))
        .map(|key| target.with_segment(segment, key));
    let leaf = path.split('.').count().saturating_sub(1);
    if segment == leaf && suggestion.is_none() {
        return None;
    }
    let prefix = path.split('.').take(segment).collect::<Vec<_>>().join(".");
    Some(Diagnosis {
        suggestion,
        keys: Some((prefix, miss.keys.as_slice())),
    })
}

/// How many messages came from each actor: the declared ones by index, the first
/// [`MAX_UNDECLARED`] undeclared names, and the messages no actor could be found for.
#[derive(Debug)]
pub(super) struct ActorCensus {
    /// Per declared actor: the messages attributed to it.
    pub(super) declared: Vec<u64>,
    /// Names the document does not declare, with their messages.
    undeclared: Vec<(Box<str>, u64)>,
    /// Messages of undeclared actors past the first [`MAX_UNDECLARED`] names (or with too long a name).
    other_undeclared: u64,
    /// Messages without an actor that were attributed to none.
    unattributed: u64,
}

impl ActorCensus {
    pub(super) fn new(actors: usize) -> Self {
        ActorCensus {
            declared: vec![0; actors],
            undeclared: Vec::new(),
            other_undeclared: 0,
            unattributed: 0,
        }
    }

    /// Counts `message`, attributed to the declared actor number `actor` when there is one.
    #[inline]
    pub(super) fn record(&mut self, actor: Option<usize>, message: &Head<'_>) {
        match actor.and_then(|index| self.declared.get_mut(index)) {
            Some(count) => *count += 1,
            None => self.record_unattributed(message),
        }
    }

    #[cold]
    fn record_unattributed(&mut self, message: &Head<'_>) {
        let Some(name) = message.actor else {
            self.unattributed += 1;
            return;
        };
        if let Some((_, count)) = self.undeclared.iter_mut().find(|(n, _)| **n == *name) {
            *count += 1;
        } else if self.undeclared.len() < MAX_UNDECLARED && name.len() <= MAX_KEY_LEN {
            self.undeclared.push((name.into(), 1));
        } else {
            self.other_undeclared += 1;
        }
    }

    /// Whether some messages came from no declared actor.
    pub(super) fn has_unattributed(&self) -> bool {
        !self.undeclared.is_empty() || self.other_undeclared > 0 || self.unattributed > 0
    }

    /// The evidence of an indicator that no message passed the protocol step of, when some messages
    /// came from no declared actor: "no message from actor `default`; the trace has `docs-search`
    /// (12 messages)".
    ///
    /// `had` keeps the part after "the trace has", which depends on the trace alone: a run whose
    /// indicators all miss their actors writes it once, not once per indicator (its "did you mean"
    /// search was a tenth of a short trace's run, D-113).
    pub(super) fn no_message_from(
        &self,
        indicator: &CompiledIndicator,
        actors: &[CompiledActor],
        had: &std::cell::OnceCell<String>,
    ) -> String {
        let quoted = |name: &str| format!("`{}`", truncate(name, MAX_KEY_LEN));
        // The declared actors the indicator's messages could have come from.
        let wanted: Vec<&str> = match indicator.actor() {
            Some(actor) => vec![actor],
            None => actors
                .iter()
                .filter(|a| indicator.protocol().is_none_or(|p| p == a.protocol))
                .map(|a| a.name.as_str())
                .collect(),
        };
        let mut text = match wanted.as_slice() {
            [] => match indicator.protocol() {
                Some(protocol) => format!("no actor of protocol {}", truncate(protocol, 64)),
                None => String::from("no declared actor"),
            },
            [one] => format!("no message from actor {}", quoted(one)),
            many => {
                let names: Vec<String> = many.iter().take(MAX_NAMED).map(|n| quoted(n)).collect();
                let more = if many.len() > MAX_NAMED { ", …" } else { "" };
                format!("no message from actors {}{more}", names.join(", "))
            }
        };
        text.push_str("; the trace has ");
        text.push_str(had.get_or_init(|| self.trace_has(actors)));
        text
    }

    /// What the trace had instead: its undeclared actors by message count (with a "did you mean"
    /// for each), the declared ones that sent messages, and the messages of other or unknown actors.
    fn trace_has(&self, actors: &[CompiledActor]) -> String {
        let plural = |n: u64| if n == 1 { "message" } else { "messages" };
        let quoted = |name: &str| format!("`{}`", truncate(name, MAX_KEY_LEN));
        let mut had: Vec<String> = Vec::new();
        let declared_names: Vec<&str> = actors.iter().map(|a| a.name.as_str()).collect();
        let mut undeclared: Vec<&(Box<str>, u64)> = self.undeclared.iter().collect();
        undeclared.sort_by_key(|entry| std::cmp::Reverse(entry.1));
        for (name, count) in undeclared {
            let hint = did_you_mean(name, declared_names.iter().copied())
                .map(|d| format!("; did you mean {}?", quoted(d)))
                .unwrap_or_default();
            had.push(format!(
                "{} ({count} {}{hint})",
                quoted(name),
                plural(*count)
            ));
        }
        for (actor, &count) in actors.iter().zip(&self.declared) {
            if count > 0 {
                had.push(format!(
                    "{} ({count} {} {})",
                    quoted(&actor.name),
                    truncate(&actor.protocol, 64),
                    plural(count)
                ));
            }
        }
        let named = had.len().min(MAX_NAMED);
        let hidden: usize = had.len() - named;
        had.truncate(named);
        if hidden > 0 {
            had.push(format!("{hidden} more actors"));
        }
        if self.other_undeclared > 0 {
            let n = self.other_undeclared;
            had.push(format!("{n} {} from other actors", plural(n)));
        }
        if self.unattributed > 0 {
            let n = self.unattributed;
            had.push(format!("{n} {} without a known actor", plural(n)));
        }
        had.join(", ")
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.declared.capacity() * size_of::<u64>()
            + self.undeclared.capacity() * size_of::<(Box<str>, u64)>()
            + self.undeclared.iter().map(|(n, _)| n.len()).sum::<usize>()
    }
}
