//! One trace run: the bookkeeping every tool that evaluates a trace does the same way (lines read,
//! malformed lines with the first [`MAX_KEPT_MALFORMED`] kept, the line of each indicator's first
//! match, the counts of [`TraceStats`]), owned here so that `oatf evaluate`, the Python package and
//! the npm package report a trace alike.

use std::io::BufRead;

use oatf_eval::{
    AttackVerdict, Compat, CompiledAttack, JsonlTraceReader, TraceError, TraceErrorKind,
    TraceEvaluator, TraceMessage,
};
use serde_json::Value;

use crate::json::json_document;
use crate::stats::TraceStats;

/// Malformed entries a [`TraceRun`] keeps with their line (the rest are only counted); `oatf
/// evaluate` prints as many on standard error.
pub const MAX_KEPT_MALFORMED: usize = 100;

/// A trace entry that is not a trace message: its line (or position in a stream of messages) and
/// what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MalformedEntry {
    /// The 1-based line of the trace, or position of the entry for messages pushed one by one.
    pub line: u64,
    /// What is wrong, without the line number.
    pub message: String,
}

/// What [`TraceRun::read_next`] read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadStep {
    /// A message, evaluated.
    Message,
    /// A malformed line, counted (and kept while fewer than [`MAX_KEPT_MALFORMED`] were): reading
    /// goes on unless the caller stops.
    Malformed(TraceError),
}

/// The evaluation of one trace against a compiled attack, with what the reports say of it: drives a
/// [`TraceEvaluator`], counts lines and malformed entries, keeps the first
/// [`MAX_KEPT_MALFORMED`] malformed entries and the line of the message each indicator first matched,
/// and ends with the verdict and its [`TraceStats`] ([`FinishedRun`]).
///
/// Feed it either from a [`JsonlTraceReader`] ([`read_to_end`](Self::read_to_end), or
/// [`read_next`](Self::read_next) to act on each line), or entry by entry
/// ([`push`](Self::push), [`push_malformed`](Self::push_malformed)) with their positions.
///
/// ```
/// use oatf_eval::{CompiledAttack, EvalOptions, JsonlTraceReader};
/// use oatf_model::Document;
/// use oatf_report::{TraceRun, run_exit_code};
/// use serde_json::json;
///
/// let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
///     "id": "OATF-900", "execution": {"mode": "mcp_server", "state": {"tools": []}},
///     "indicators": [{"id": "OATF-900-01", "surface": "tools/call", "target": "arguments.path",
///                     "pattern": {"contains": ".ssh/id_rsa"}}]}}))?;
/// let attack = CompiledAttack::new(&document, &EvalOptions::new());
/// let jsonl = "not json\n\
///     {\"direction\": \"incoming\", \"method\": \"tools/call\", \
///       \"content\": {\"arguments\": {\"path\": \"/home/u/.ssh/id_rsa\"}}}\n";
///
/// let mut run = TraceRun::new(&attack, "run.jsonl");
/// run.read_to_end(&mut JsonlTraceReader::new(jsonl.as_bytes()))?;
/// let done = run.finish();
/// assert_eq!((done.stats.lines, done.stats.messages, done.stats.malformed), (2, 1, 1));
/// assert_eq!(done.stats.matched_lines["OATF-900-01"], 2);
/// assert_eq!(done.malformed[0].line, 1);
/// assert_eq!(run_exit_code(&done.verdict, &done.stats), 1);
/// assert_eq!(done.json_document()["trace"]["malformed_lines"], 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TraceRun<'a> {
    evaluator: TraceEvaluator<'a>,
    stats: TraceStats,
    /// The evaluator's matched count when last looked at: a change means this message matched.
    matched: usize,
    kept: Vec<MalformedEntry>,
    /// The message number and line of each entry the compatibility profile derives messages from
    /// (D-100), to locate their matches at the end; as many as the evaluator keeps, bounded by it.
    derivation_lines: Vec<(u64, u64)>,
}

impl<'a> TraceRun<'a> {
    /// A run of `attack` over the trace the reports call `name` (a path, `<stdin>`, …).
    pub fn new(attack: &'a CompiledAttack, name: impl Into<String>) -> Self {
        Self::with_compat(attack, name, Compat::SpecExact)
    }

    /// A run of `attack` over the trace called `name`, in the compatibility profile `compat`
    /// ([`TraceEvaluator::with_compat`], decision D-100). A message the profile derives is evaluated
    /// when the run finishes; a match on it is located at the line of the entry it comes from.
    pub fn with_compat(
        attack: &'a CompiledAttack,
        name: impl Into<String>,
        compat: Compat,
    ) -> Self {
        let mut stats = TraceStats::new(name);
        stats.compat = compat;
        TraceRun {
            evaluator: TraceEvaluator::with_compat(attack, compat),
            stats,
            matched: 0,
            kept: Vec::new(),
            derivation_lines: Vec::new(),
        }
    }

    /// The trace's name, as given to [`new`](Self::new).
    pub fn name(&self) -> &str {
        &self.stats.name
    }

    /// The evaluator, for its running counts
    /// ([`messages`](TraceEvaluator::messages), [`matched_count`](TraceEvaluator::matched_count)).
    pub fn evaluator(&self) -> &TraceEvaluator<'a> {
        &self.evaluator
    }

    /// Malformed entries so far.
    pub fn malformed_count(&self) -> u64 {
        self.stats.malformed
    }

    /// Evaluates `message`, the entry at `line` (its line in the trace, or its position in a stream
    /// of messages): an indicator it matches first is located at `line`.
    pub fn push(&mut self, message: &TraceMessage, line: u64) {
        self.stats.lines = line;
        self.evaluator.push(message);
        self.locate_matches(line);
    }

    /// Locates at `line` the indicators the message just pushed matched first, and remembers the
    /// line of a message the profile derives messages from.
    fn locate_matches(&mut self, line: u64) {
        if self.evaluator.derivation_sources() > self.derivation_lines.len() as u64 {
            self.derivation_lines
                .push((self.evaluator.messages(), line));
        }
        if self.evaluator.matched_count() != self.matched {
            self.matched = self.evaluator.matched_count();
            let position = self.evaluator.messages();
            for (id, at) in self.evaluator.matched_messages() {
                if at == position {
                    self.stats.matched_lines.insert(id.to_owned(), line);
                }
            }
        }
    }

    /// Counts the entry at `line` as malformed, keeping it while fewer than
    /// [`MAX_KEPT_MALFORMED`] are kept.
    pub fn push_malformed(&mut self, line: u64, message: impl Into<String>) {
        self.stats.lines = line;
        self.stats.malformed += 1;
        if self.kept.len() < MAX_KEPT_MALFORMED {
            self.kept.push(MalformedEntry {
                line,
                message: message.into(),
            });
        }
    }

    /// Reads one line of `reader`: a message is evaluated, a malformed line counted. `None` at the
    /// end of the trace; an I/O error ([`TraceErrorKind::Io`]) is returned and ends the trace.
    ///
    /// The line is read with [`JsonlTraceReader::next_into`]: its content is parsed only when an
    /// indicator needs it.
    pub fn read_next<R: BufRead>(
        &mut self,
        reader: &mut JsonlTraceReader<R>,
    ) -> Option<Result<ReadStep, TraceError>> {
        let item = reader.next_into(&mut self.evaluator);
        self.stats.lines = reader.lines_read();
        match item? {
            Ok(()) => {
                self.locate_matches(reader.lines_read());
                Some(Ok(ReadStep::Message))
            }
            Err(error) if error.kind() == TraceErrorKind::Io => Some(Err(error)),
            Err(error) => {
                self.push_malformed(error.line(), error.message());
                self.stats.lines = reader.lines_read();
                Some(Ok(ReadStep::Malformed(error)))
            }
        }
    }

    /// Reads `reader` to its end ([`read_next`](Self::read_next)); the first I/O error stops it.
    pub fn read_to_end<R: BufRead>(
        &mut self,
        reader: &mut JsonlTraceReader<R>,
    ) -> Result<(), TraceError> {
        while let Some(step) = self.read_next(reader) {
            step?;
        }
        Ok(())
    }

    /// The verdict (`TraceEvaluator::finish`), the statistics of the run and the malformed entries
    /// kept.
    pub fn finish(mut self) -> FinishedRun {
        // The messages the profile derives, located at the line of the entry they come from.
        self.evaluator.evaluate_derived();
        for (id, position) in self.evaluator.matched_messages() {
            if !self.stats.matched_lines.contains_key(id)
                && let Ok(found) = self
                    .derivation_lines
                    .binary_search_by_key(&position, |&(p, _)| p)
                && let Some(&(_, line)) = self.derivation_lines.get(found)
            {
                self.stats.matched_lines.insert(id.to_owned(), line);
            }
        }
        let mut stats = self.stats;
        stats.messages = self.evaluator.messages();
        stats.after_grace = self.evaluator.messages_after_grace();
        stats.record_silent_actors(&self.evaluator);
        FinishedRun {
            verdict: self.evaluator.finish(),
            stats,
            malformed: self.kept,
        }
    }
}

/// A finished [`TraceRun`]: what the reports ([`json_document`], [`sarif`](crate::sarif),
/// [`junit`](crate::junit), [`campaign`](crate::campaign) rows) are written from.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct FinishedRun {
    /// The attack verdict.
    pub verdict: AttackVerdict,
    /// What was read of the trace. Set [`TraceStats::strict`] for `--strict` exit codes.
    pub stats: TraceStats,
    /// The first [`MAX_KEPT_MALFORMED`] malformed entries, in order.
    pub malformed: Vec<MalformedEntry>,
}

impl FinishedRun {
    /// The JSON verdict document ([`json_document`]), as `oatf evaluate --format json` writes it.
    pub fn json_document(&self) -> Value {
        json_document(&self.verdict, &self.stats)
    }
}
