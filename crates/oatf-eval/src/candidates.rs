//! What the prefilters of whole-trace evaluation share (`crate::prefilter`, D-75;
//! `crate::literal_guard`, D-95): the list of a message's indicators to evaluate, the indicator of
//! an index, and the one way their Aho-Corasick automata are built and map an occurrence back to
//! members ([`Patterns`]).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::mem::size_of;

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};

use crate::accumulator::Accumulator;
use crate::attack::CompiledAttack;
use crate::indicator::CompiledIndicator;

/// Where the candidates of a message go.
pub(crate) struct Candidates<'a> {
    pub(crate) applicable: &'a [u32],
    pub(crate) accumulators: &'a [Accumulator],
    pub(crate) listed: &'a mut [bool],
    pub(crate) evaluate: &'a mut Vec<u32>,
}

impl Candidates<'_> {
    /// Lists `slot` for evaluation, once.
    pub(crate) fn list(&mut self, slot: u32) {
        if let Some(seen) = self.listed.get_mut(slot as usize)
            && !*seen
        {
            *seen = true;
            self.evaluate.push(slot);
        }
    }

    /// Whether `slot` is still to be decided on this message: not listed and not decided.
    pub(crate) fn wanted(&self, slot: u32) -> bool {
        !self.listed.get(slot as usize).copied().unwrap_or(true)
            && self
                .applicable
                .get(slot as usize)
                .and_then(|&i| self.accumulators.get(i as usize))
                .is_some_and(|a| !a.is_decided())
    }
}

/// The indicator at `index` of `attack`, when it compiled.
pub(crate) fn indicator(attack: &CompiledAttack, index: u32) -> Option<&CompiledIndicator> {
    attack
        .indicator_entries()
        .get(index as usize)?
        .as_ref()
        .ok()
}

/// The most bytes of literals an automaton is built as a DFA for (about one DFA state per byte,
/// each a row of the byte classes' transitions: a few hundred KiB at most); past it `aho-corasick`
/// picks its own kind (a contiguous NFA).
const DFA_PATTERN_BYTES: usize = 4096;

/// Distinct patterns, each with the members (slots or positions) it stands for, collected before
/// their automaton is built ([`PatternsBuilder::build`]).
#[derive(Default)]
pub(crate) struct PatternsBuilder<'a> {
    patterns: Vec<&'a [u8]>,
    members: Vec<Vec<u32>>,
    known: HashMap<&'a [u8], usize>,
}

impl<'a> PatternsBuilder<'a> {
    /// Adds `member` to the members of `pattern`, adding the pattern on its first use.
    pub(crate) fn add(&mut self, pattern: &'a [u8], member: u32) {
        match self.known.entry(pattern) {
            Entry::Occupied(p) => {
                if let Some(members) = self.members.get_mut(*p.get()) {
                    members.push(member);
                }
            }
            Entry::Vacant(v) => {
                v.insert(self.patterns.len());
                self.patterns.push(pattern);
                self.members.push(vec![member]);
            }
        }
    }

    /// Whether no pattern was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// One automaton reporting every occurrence of the patterns (overlapping,
    /// `MatchKind::Standard`), ASCII case-insensitively or exactly: the one way the prefilters
    /// build theirs. `None` when it cannot be built.
    pub(crate) fn build(self, ascii_case_insensitive: bool) -> Option<Patterns> {
        let mut builder = AhoCorasick::builder();
        builder
            .ascii_case_insensitive(ascii_case_insensitive)
            .match_kind(MatchKind::Standard);
        // A DFA scans about three times faster than the contiguous NFA the crate picks past 100
        // patterns (the white-space variants of the library's regexes make many); its table grows
        // with the patterns' bytes, so past the budget the crate chooses.
        let pattern_bytes: usize = self.patterns.iter().map(|p| p.len()).sum();
        if pattern_bytes <= DFA_PATTERN_BYTES {
            builder.kind(Some(AhoCorasickKind::DFA));
        }
        let automaton = builder
            .build(&self.patterns)
            // A DFA too large for its state identifiers: let the crate choose.
            .or_else(|_| builder.kind(None).build(&self.patterns))
            .ok()?;
        Some(Patterns {
            automaton,
            members: self
                .members
                .into_iter()
                .map(Vec::into_boxed_slice)
                .collect(),
        })
    }
}

/// An automaton over distinct patterns and, per pattern, the members it stands for.
#[derive(Debug)]
pub(crate) struct Patterns {
    automaton: AhoCorasick,
    members: Box<[Box<[u32]>]>,
}

impl Patterns {
    /// Calls `found` with the members of every pattern occurring in `text` (a member once per
    /// occurrence); `false` when the search fails.
    pub(crate) fn each_member(&self, text: &[u8], mut found: impl FnMut(u32)) -> bool {
        let Ok(matches) = self.automaton.try_find_overlapping_iter(Input::new(text)) else {
            return false;
        };
        for occurrence in matches {
            for &member in self
                .members
                .get(occurrence.pattern().as_usize())
                .map_or(&[][..], |m| &**m)
            {
                found(member);
            }
        }
        true
    }

    /// The heap bytes of the automaton and the member lists.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.automaton.memory_usage()
            + self
                .members
                .iter()
                .map(|m| size_of::<Box<[u32]>>() + m.len() * size_of::<u32>())
                .sum::<usize>()
    }
}
