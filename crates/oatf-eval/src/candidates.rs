//! What the prefilters of whole-trace evaluation share (`crate::prefilter`, D-75;
//! `crate::literal_guard`, D-95): the list of a message's indicators to evaluate, the indicator of
//! an index, and the one way their Aho-Corasick automata are built.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

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

/// An automaton reporting every occurrence of `patterns` (overlapping, `MatchKind::Standard`),
/// ASCII case-insensitively or exactly: the one way the prefilters build theirs. `None` when it
/// cannot be built.
pub(crate) fn automaton<P: AsRef<[u8]>>(
    patterns: &[P],
    ascii_case_insensitive: bool,
) -> Option<AhoCorasick> {
    let mut builder = AhoCorasick::builder();
    builder
        .ascii_case_insensitive(ascii_case_insensitive)
        .match_kind(MatchKind::Standard);
    // A DFA scans about three times faster than the contiguous NFA the crate picks past 100
    // patterns (the white-space variants of the library's regexes make many); its table grows
    // with the patterns' bytes, so past the budget the crate chooses.
    let pattern_bytes: usize = patterns.iter().map(|p| p.as_ref().len()).sum();
    if pattern_bytes <= DFA_PATTERN_BYTES {
        builder.kind(Some(AhoCorasickKind::DFA));
    }
    builder
        .build(patterns)
        // A DFA too large for its state identifiers: let the crate choose.
        .or_else(|_| builder.kind(None).build(patterns))
        .ok()
}
