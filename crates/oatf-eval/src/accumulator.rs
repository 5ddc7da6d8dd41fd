//! The state one indicator keeps while messages are fed to it: its first match or first error.

use crate::error::EvaluationError;
use crate::verdict::{IndicatorResult, IndicatorVerdict};

/// What one indicator has seen of a trace so far.
#[derive(Debug)]
pub(crate) struct Accumulator {
    state: State,
}

#[derive(Debug)]
enum State {
    /// No message applied yet.
    Unseen,
    /// Messages applied, none matched, none failed.
    NotMatched,
    /// An evaluation failed (the first failure is kept); a later match still wins.
    Error(Option<String>),
    /// Decided: a message matched.
    Matched {
        evidence: Option<String>,
        position: u64,
    },
    /// Decided: no evaluator for the method (SDK §4.4).
    Skipped(Option<String>),
    /// Decided: the indicator did not compile.
    CompileError(String),
}

impl Accumulator {
    pub(crate) fn new() -> Self {
        Accumulator {
            state: State::Unseen,
        }
    }

    pub(crate) fn compile_error(error: &EvaluationError) -> Self {
        Accumulator {
            state: State::CompileError(error.to_string()),
        }
    }

    /// Whether later messages can no longer change the result.
    pub(crate) fn is_decided(&self) -> bool {
        matches!(
            self.state,
            State::Matched { .. } | State::Skipped(_) | State::CompileError(_)
        )
    }

    /// Whether recording `result` would keep its evidence (so that it is worth describing).
    pub(crate) fn keeps(&self, result: IndicatorResult) -> bool {
        match result {
            IndicatorResult::Matched | IndicatorResult::Skipped => true,
            IndicatorResult::Error => !matches!(self.state, State::Error(_)),
            IndicatorResult::NotMatched => false,
        }
    }

    /// Records the outcome of one applicable message (numbered `position`).
    pub(crate) fn record(
        &mut self,
        result: IndicatorResult,
        evidence: Option<String>,
        position: u64,
    ) {
        if self.is_decided() {
            return;
        }
        self.state = match (result, std::mem::replace(&mut self.state, State::Unseen)) {
            (IndicatorResult::Matched, _) => State::Matched { evidence, position },
            (IndicatorResult::Skipped, _) => State::Skipped(evidence),
            (IndicatorResult::Error, State::Error(first)) => State::Error(first),
            (IndicatorResult::Error, _) => State::Error(evidence),
            (IndicatorResult::NotMatched, State::Unseen) => State::NotMatched,
            (IndicatorResult::NotMatched, kept) => kept,
        };
    }

    pub(crate) fn matched_position(&self) -> Option<u64> {
        match self.state {
            State::Matched { position, .. } => Some(position),
            _ => None,
        }
    }

    /// The evidence of the match, when it matched.
    pub(crate) fn matched_evidence(&self) -> Option<&str> {
        match &self.state {
            State::Matched { evidence, .. } => evidence.as_deref(),
            _ => None,
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match &self.state {
            State::Unseen | State::NotMatched => 0,
            State::Error(evidence) | State::Matched { evidence, .. } | State::Skipped(evidence) => {
                evidence.as_ref().map_or(0, String::capacity)
            }
            State::CompileError(text) => text.capacity(),
        }
    }

    /// The indicator verdict; an indicator no message applied to is `not_matched`, with `unseen`
    /// as its evidence (spec-decisions 23).
    pub(crate) fn finish(self, id: &str, unseen: impl FnOnce() -> String) -> IndicatorVerdict {
        let (result, evidence) = match self.state {
            State::Unseen => (IndicatorResult::NotMatched, Some(unseen())),
            State::NotMatched => (IndicatorResult::NotMatched, None),
            State::Error(evidence) => (IndicatorResult::Error, evidence),
            State::Matched { evidence, .. } => (IndicatorResult::Matched, evidence),
            State::Skipped(evidence) => (IndicatorResult::Skipped, evidence),
            State::CompileError(text) => (IndicatorResult::Error, Some(text)),
        };
        IndicatorVerdict::new(id, result, evidence)
    }
}
