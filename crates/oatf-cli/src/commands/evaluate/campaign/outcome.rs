//! The outcome of one run of a campaign, as the report keeps it (D-112, D-181).

use oatf::report::TraceStats;
use oatf::report::campaign::{RunOutcome, severity_rank};
use oatf::report::run_exit_code;
use oatf::report::xml::WrittenSuite;
use oatf::{AttackResult, AttackVerdict, Tier};

/// A run's verdict and what was read of its trace, or why it has none.
pub(super) type RunResult = Result<(AttackVerdict, TraceStats), Failure>;

/// The outcome of one run.
pub(super) struct Outcome {
    pub(super) document: usize,
    pub(super) group: Option<String>,
    pub(super) trace: String,
    /// The run's exit code, computed once by the worker that evaluated it.
    code: u8,
    /// The verdict's result and max tier, for the summaries; `None` for a run without a verdict.
    pub(super) summary: Option<(AttackResult, Option<Tier>)>,
    pub(super) kept: Kept,
}

/// What the report keeps of a run: its part of the report, written by the worker that evaluated it
/// (D-112, D-181: its human line when it did not pass, its CSV row, its JSON, its SARIF run, its
/// JUnit suite), or the run itself for the HTML report. Keeping every verdict until the end cost
/// 3.6 KB a short run, and the allocator and page faults took a tenth of the campaign's time;
/// writing the SARIF and JUnit parts on the main thread made half of a campaign serial.
pub(super) enum Kept {
    /// Boxed, so that an outcome in the campaign's list stays small.
    Run(Box<RunResult>),
    Text(String),
    Suite(WrittenSuite),
}

/// Why a run has no verdict.
pub(super) struct Failure {
    pub(super) code: u8,
    pub(super) message: String,
}

impl Outcome {
    pub(super) fn new(
        document: usize,
        group: Option<String>,
        trace: String,
        result: RunResult,
    ) -> Self {
        let code = match &result {
            Ok((verdict, stats)) => run_exit_code(verdict, stats),
            Err(failure) => failure.code,
        };
        Outcome {
            document,
            group,
            trace,
            code,
            summary: result.as_ref().ok().map(|(v, _)| (v.result, v.max_tier)),
            kept: Kept::Run(Box::new(result)),
        }
    }

    pub(super) fn code(&self) -> u8 {
        self.code
    }

    /// The run, while it is kept whole: until its worker writes its part of the report, and for
    /// the HTML report.
    pub(super) fn run(&self) -> Option<&RunResult> {
        match &self.kept {
            Kept::Run(result) => Some(result),
            Kept::Text(_) | Kept::Suite(_) => None,
        }
    }

    /// The run as the report crate reads it, while it is kept whole (see `run`).
    pub(super) fn run_outcome(&self) -> Option<RunOutcome<'_>> {
        self.run().map(outcome_of)
    }

    /// The run's text, when its worker wrote it.
    pub(super) fn text(&self) -> Option<&str> {
        match &self.kept {
            Kept::Text(text) => Some(text),
            Kept::Run(_) | Kept::Suite(_) => None,
        }
    }

    /// The run's JUnit suite, when its worker wrote it.
    pub(super) fn suite(&self) -> Option<&WrittenSuite> {
        match &self.kept {
            Kept::Suite(suite) => Some(suite),
            Kept::Run(_) | Kept::Text(_) => None,
        }
    }
}

/// The run's text as its worker wrote it (D-112, D-181), empty when it was not: the report's joins
/// take the outcomes as they are, without a list of their texts (D-212).
impl AsRef<str> for Outcome {
    fn as_ref(&self) -> &str {
        self.text().unwrap_or_default()
    }
}

/// A run as the report crate reads it.
pub(super) fn outcome_of(result: &RunResult) -> RunOutcome<'_> {
    match result {
        Ok((verdict, stats)) => RunOutcome::Verdict(verdict, stats),
        Err(failure) => RunOutcome::Failed {
            exit_code: failure.code,
            message: &failure.message,
        },
    }
}

/// The exit code of the worst of `codes` (0 when empty).
pub(super) fn worst_code(codes: impl Iterator<Item = u8>) -> u8 {
    codes.max_by_key(|c| severity_rank(*c)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_code_wins() {
        assert_eq!(worst_code([0, 1, 3, 2].into_iter()), 3);
        assert_eq!(worst_code([0, 5, 4].into_iter()), 4);
        assert_eq!(worst_code([0, 5].into_iter()), 5);
        assert_eq!(worst_code([3, 66].into_iter()), 66);
        assert_eq!(worst_code([0, 0].into_iter()), 0);
        assert_eq!(worst_code(std::iter::empty()), 0);
    }

    #[test]
    fn a_run_written_as_text_is_no_longer_kept_whole() {
        let failed = || {
            Outcome::new(
                0,
                None,
                "t.jsonl".into(),
                Err(Failure {
                    code: 66,
                    message: "gone".into(),
                }),
            )
        };
        let mut outcome = failed();
        assert_eq!(outcome.code(), 66);
        assert!(matches!(
            outcome.run_outcome(),
            Some(RunOutcome::Failed {
                exit_code: 66,
                message: "gone"
            })
        ));
        assert_eq!(outcome.text(), None);
        outcome.kept = Kept::Text("row\n".into());
        assert!(outcome.run().is_none());
        assert_eq!(outcome.text(), Some("row\n"));
        assert!(outcome.suite().is_none());
    }
}
