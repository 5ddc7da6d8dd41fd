//! A campaign's report written while its runs are evaluated (D-260): what comes before the runs first,
//! each run's part as the runs are handed over in run order (`ordered::in_order`), the rest at the
//! end.

use oatf::report::campaign::{self, Joining};
use oatf::{AttackResult, Tier};

use super::outcome::{Outcome, worst_code};
use super::report::Report;
use crate::commands::evaluate::trace::Format;
use crate::output::Output;

/// What the main thread keeps of every run once its part of the report is written (D-260): what the
/// summaries, the totals and the matrix need (its group is the plan's).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fact {
    pub(super) document: usize,
    pub(super) code: u8,
    /// The verdict's result and max tier; `None` for a run without a verdict.
    pub(super) summary: Option<(AttackResult, Option<Tier>)>,
}

impl Fact {
    fn of(outcome: &Outcome) -> Self {
        Fact {
            document: outcome.document,
            code: outcome.code(),
            summary: outcome.summary,
        }
    }
}

/// A campaign's report as the main thread writes it while the runs are evaluated (D-260): what comes
/// before the runs when it starts, each run's part as the runs are handed over in run order
/// (`ordered::in_order`), the rest at the end. The CSV, JSON and SARIF reports have nothing before
/// their runs that depends on them: a run's text is written and dropped as soon as every earlier
/// run's is. The human report lists the runs that did not pass after the table of attacks, and
/// JUnit's head counts the tests of every suite: those keep their runs' parts until the end, and
/// HTML keeps its runs whole. Every report keeps a [`Fact`] per run.
pub(super) struct Writing<'r, 'a, 'o, 'w> {
    report: &'r Report<'a>,
    out: &'o mut Output<'w>,
    format: Format,
    quiet: bool,
    /// The runs' array of the JSON and SARIF reports.
    around: Option<Joining>,
    facts: Vec<Fact>,
    /// The runs whose parts are written at the end.
    kept: Vec<Outcome>,
}

impl<'r, 'a, 'o, 'w> Writing<'r, 'a, 'o, 'w> {
    /// Starts the report of `count` runs in `format`: writes what comes before the runs.
    pub(super) fn start(
        report: &'r Report<'a>,
        out: &'o mut Output<'w>,
        format: Format,
        quiet: bool,
        count: usize,
    ) -> Self {
        let around = match format {
            // `{"runs": [...],` then the rest after its opening brace (`write_json_rest`).
            Format::Json => Some(Joining::new("{\n  \"runs\": ", count, 1, ",")),
            Format::Sarif => Some(campaign::sarif_log_around(count)),
            Format::Human | Format::Csv | Format::Junit | Format::Html => None,
        };
        if let Some(around) = &around {
            out.write_pieces(around.start());
        }
        if format == Format::Csv {
            let mut header = campaign::csv_header();
            header.push('\n');
            out.write(&header);
        }
        Writing {
            report,
            out,
            format,
            quiet,
            around,
            facts: Vec::with_capacity(count),
            kept: Vec::new(),
        }
    }

    /// The runs `first..first + outcomes.len()` of a report that streams (`streams`), every earlier
    /// run handed over already, as their workers wrote them (`Report::written`): written in one
    /// vectored write, then dropped.
    pub(super) fn take(&mut self, first: usize, outcomes: Vec<Outcome>) {
        self.facts.extend(outcomes.iter().map(Fact::of));
        match &self.around {
            // JSON and SARIF: each run after its separator in the runs' array.
            Some(around) => self.out.write_pieces(
                outcomes
                    .iter()
                    .enumerate()
                    .flat_map(|(k, o)| [around.before(first + k), o.as_ref()]),
            ),
            // CSV: the rows.
            None => self.out.write_pieces(outcomes.iter().map(AsRef::as_ref)),
        }
    }

    /// Whether the report writes its runs as they are handed over (`take`): CSV, JSON and SARIF.
    pub(super) fn streams(&self) -> bool {
        matches!(self.format, Format::Csv | Format::Json | Format::Sarif)
    }

    /// Every run at once, in order, for a report that does not stream (`streams`): the facts
    /// taken and the runs it does not keep dropped on the workers.
    pub(super) fn take_all(&mut self, outcomes: Vec<Outcome>) {
        use rayon::prelude::*;
        self.facts = outcomes.par_iter().map(Fact::of).collect();
        self.kept = match self.format {
            Format::Human if self.quiet => {
                outcomes.into_par_iter().for_each(drop);
                Vec::new()
            }
            Format::Human => outcomes.into_par_iter().filter(|o| o.code() != 0).collect(),
            _ => outcomes,
        };
    }

    /// Writes the rest of the report and gives the campaign's exit code (its worst run's) and the
    /// runs kept until now, for the caller to free.
    pub(super) fn finish(self, color: bool) -> (u8, Vec<Outcome>) {
        let Writing {
            report,
            out,
            format,
            quiet,
            around,
            facts,
            kept,
        } = self;
        if let Some(around) = &around {
            out.write_pieces(around.end());
        }
        match format {
            Format::Human => {
                let text = report.human(quiet, &facts, &kept);
                if color {
                    out.write(&crate::render::color::paint_verdicts(&text));
                } else {
                    out.write(&text);
                }
            }
            Format::Json => report.write_json_rest(out, &facts),
            Format::Junit => Report::write_junit(out, &kept),
            Format::Html => out.write(&report.html(&kept)),
            Format::Csv | Format::Sarif => {}
        }
        (worst_code(facts.iter().map(|f| f.code)), kept)
    }
}
