//! Evaluating one trace against a compiled attack, shared by a single evaluation
//! ([`super`]) and by campaigns ([`super::campaign`]): the report formats, the exit codes, and the
//! loop that streams a trace through the evaluator.

use std::io::{BufRead, IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

use oatf::AttackVerdict;
use oatf::CompiledAttack;
use oatf::JsonlTraceReader;
use oatf::report::{MAX_KEPT_MALFORMED, ReadStep, TraceRun, TraceStats};
use oatf::trace::Compat;

/// Exit code: the document does not parse or is invalid (sysexits `EX_DATAERR`).
pub(crate) const EXIT_INVALID_DOCUMENT: u8 = oatf::report::campaign::EXIT_INVALID_DOCUMENT;
/// Exit code: an input cannot be read (sysexits `EX_NOINPUT`).
pub(crate) const EXIT_NO_INPUT: u8 = oatf::report::campaign::EXIT_NO_INPUT;

/// Malformed trace lines printed on stderr before the rest are only counted: those the run keeps.
const MAX_REPORTED_LINES: u64 = MAX_KEPT_MALFORMED as u64;

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// A summary for people: the result, one line per indicator with its evidence, the counts.
    Human,
    /// The attack verdict (format §9.3) with a `trace` object (messages, malformed lines).
    Json,
    /// SARIF 2.1.0: one result per matched indicator, located at the trace line of its message.
    Sarif,
    /// JUnit XML: one test case per indicator; a matched indicator is a failure.
    Junit,
    /// CSV, one row per run (document, trace, result, max tier, exit code, counts, group).
    Csv,
    /// One self-contained HTML file: the matrix attacks × groups coloured by worst tier, each cell
    /// opening its runs with their evidence.
    Html,
}

/// The verdict as people read it: `exploited (boundary_breach)`, or the bare result without tier.
pub(crate) fn result_with_tier(verdict: &AttackVerdict) -> String {
    result_and_tier(verdict.result, verdict.max_tier)
}

/// A result and its max tier as people read them (`result_with_tier`).
pub(crate) fn result_and_tier(result: oatf::AttackResult, tier: Option<oatf::Tier>) -> String {
    match tier {
        Some(tier) => format!("{result} ({tier})"),
        None => result.to_string(),
    }
}

/// Streams the trace through a [`TraceRun`] in the compatibility profile `compat` (D-100), reporting the malformed lines it keeps on stderr (and
/// the lines read, with `progress`, when stderr is a terminal).
pub(crate) fn evaluate(
    attack: &CompiledAttack,
    input: Box<dyn BufRead>,
    name: String,
    (max_line_len, compat): (usize, Compat),
    progress: bool,
) -> Result<(AttackVerdict, TraceStats), String> {
    let mut reader = JsonlTraceReader::new(input).with_max_line_len(max_line_len);
    let mut run = TraceRun::with_compat(attack, name, compat);
    let mut progress = Progress::new(progress);
    while let Some(step) = run.read_next(&mut reader) {
        match step {
            Ok(ReadStep::Malformed(error)) if run.malformed_count() <= MAX_REPORTED_LINES => {
                progress.clear();
                eprintln!("{}: {}", one_line(run.name()), one_line(&error.to_string()));
            }
            Err(error) => {
                progress.clear();
                return Err(format!("{}: {error}", run.name()));
            }
            Ok(_) => {}
        }
        progress.tick(reader.lines_read());
    }
    progress.clear();
    let done = run.finish();
    if done.stats.malformed > MAX_REPORTED_LINES {
        eprintln!(
            "{}: {} more malformed lines not shown",
            done.stats.name,
            done.stats.malformed - MAX_REPORTED_LINES
        );
    }
    Ok((done.verdict, done.stats))
}

/// A line count on stderr, only when it is a terminal and the trace takes more than a second.
struct Progress {
    enabled: bool,
    started: Instant,
    last: Option<Instant>,
    shown: bool,
}

impl Progress {
    fn new(wanted: bool) -> Self {
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
            started: Instant::now(),
            last: None,
            shown: false,
        }
    }

    fn tick(&mut self, lines: u64) {
        if !self.enabled || !lines.is_multiple_of(4096) {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.started) < Duration::from_secs(1)
            || self
                .last
                .is_some_and(|last| now.duration_since(last) < Duration::from_millis(250))
        {
            return;
        }
        self.last = Some(now);
        self.shown = true;
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\rreading the trace: {lines} lines");
        let _ = stderr.flush();
    }

    fn clear(&mut self) {
        if self.shown {
            self.shown = false;
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}

/// Text shown on one line: control characters escaped (`crate::render::safe_text`).
pub(crate) fn one_line(text: &str) -> String {
    crate::render::safe_text::escape(text).into_owned()
}
