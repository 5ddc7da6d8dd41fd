//! Campaigns: `oatf evaluate DOC TRACE...` with several traces (or directories of traces), and
//! `oatf evaluate --manifest FILE` pairing documents and traces, as a benchmark produces them.
//!
//! Each document is loaded and compiled once; the runs (one trace against one document) are evaluated
//! in parallel on all cores (rayon), each trace streamed as in a single evaluation, and the report
//! summarizes them: per attack the runs by result, the worst verdict and the highest tier; totals by
//! result, tier and category. The exit code is that of the worst run (`worst_code`).

use std::io::{BufReader, IsTerminal as _};
use std::path::PathBuf;

use oatf::report::campaign;
use oatf::trace::Compat;
use oatf::{CompiledAttack, Document};
use rayon::prelude::*;

use super::trace::{EXIT_INVALID_DOCUMENT, EXIT_NO_INPUT, Format, one_line};
use crate::exit::EXIT_USAGE;
use crate::input::source::{document_given_as_trace, read_input, trace_given_as_document};
use crate::options::validate_options;
use crate::output::Output;
use crate::render::diagnostic::{parse_headline, render, with_path};

mod manifest_parts;
mod manifest_plain;
mod ordered;
mod outcome;
mod plan;
mod report;
mod writing;

use outcome::{Failure, Outcome};
use plan::{Pair, Plan, Run, plan_from_manifest};
use report::Report;
use writing::Writing;

/// Whether the arguments ask for a campaign rather than one evaluation: a manifest, several traces,
/// a directory of traces, or the CSV or HTML format.
pub(crate) fn is_campaign(manifest: Option<&PathBuf>, traces: &[PathBuf], format: Format) -> bool {
    manifest.is_some()
        || traces.len() > 1
        || matches!(format, Format::Csv | Format::Html)
        || traces.iter().any(|t| t.as_os_str() != "-" && t.is_dir())
}

/// A loaded, compiled document.
pub(super) struct Attack {
    pub(super) path: PathBuf,
    pub(super) document: Document,
    compiled: CompiledAttack,
}

/// The options of a campaign, from `oatf evaluate`'s arguments.
pub(crate) struct Options<'a> {
    pub(crate) manifest: Option<&'a PathBuf>,
    pub(crate) document: Option<&'a PathBuf>,
    pub(crate) traces: &'a [PathBuf],
    pub(crate) format: Format,
    pub(crate) max_line_len: usize,
    /// The compatibility profile of runs whose manifest names none (`--compat`, D-100).
    pub(crate) compat: Compat,
    pub(crate) quiet: bool,
    /// Warnings fail a run (`--strict`, exit 6).
    pub(crate) strict: bool,
    pub(crate) color: bool,
}

pub(crate) fn run(options: &Options<'_>, out: &mut Output<'_>) -> u8 {
    let plan = match (options.manifest, options.document) {
        (Some(manifest), _) => plan_from_manifest(manifest, options.compat),
        (None, Some(document)) => {
            let mut plan = Plan::default();
            let index = plan.document_index(document.clone());
            let pairs: Vec<Pair> = options
                .traces
                .iter()
                .map(|t| (index, t.clone(), (None, options.compat)))
                .collect();
            plan.add_all(vec![pairs]).map(|()| plan)
        }
        (None, None) => Err("give a document and traces, or --manifest".to_owned()),
    };
    let plan = match plan {
        Ok(plan) => plan,
        Err(message) => {
            eprintln!("error: {}", one_line(&message));
            return EXIT_NO_INPUT;
        }
    };
    let stdin_uses = plan
        .documents
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        + plan
            .runs
            .iter()
            .filter(|r| r.trace.as_os_str() == "-")
            .count();
    if stdin_uses > 1 {
        eprintln!("error: standard input (`-`) can be read only once");
        return EXIT_USAGE;
    }

    // Each document once, all in parallel; their diagnostics in document order.
    let attacks: Vec<Result<Attack, u8>> = plan
        .documents
        .par_iter()
        .map(load)
        .collect::<Vec<_>>()
        .into_iter()
        .map(|(attack, diagnostics)| {
            eprint!("{diagnostics}");
            attack
        })
        .collect();

    let progress = Progress::new(plan.runs.len(), options.quiet);
    let report = Report::new(&plan.documents, &attacks, &plan.runs);
    let mut writing = Writing::start(&report, out, options.format, options.quiet, plan.runs.len());
    let work = |run: &Run| {
        let outcome = evaluate_run(run, &attacks, options.max_line_len, options.strict);
        report.written(outcome, options.format, options.quiet, &run.trace)
    };
    if writing.streams() {
        // Each run's part of the report is written by its worker and handed to this thread in run
        // order as the runs finish, written here and dropped (D-260).
        ordered::in_order(&plan.runs, work, |first, outcomes| {
            progress.inc(outcomes.len() as u64);
            writing.take(first, outcomes);
        });
    } else {
        // The human, JUnit and HTML reports write their runs' parts after something that depends on
        // all of them: the runs are collected, and this thread only waits (D-260).
        let outcomes: Vec<Outcome> = plan
            .runs
            .par_iter()
            // The bar is moved every 16 runs of a worker: once per run, every core wrote its counter.
            .map_init(
                || 0_u64,
                |done, run| {
                    let outcome = work(run);
                    *done += 1;
                    if *done % 16 == 0 {
                        progress.inc(16);
                    }
                    outcome
                },
            )
            .collect();
        writing.take_all(outcomes);
    }
    progress.finish();
    let (code, kept) = writing.finish(options.color);
    // Freed in parallel: a campaign of 100,000 runs holds that many paths in its plan, and, for the
    // JUnit and HTML reports, that many runs (D-213).
    drop(report);
    rayon::join(
        || kept.into_par_iter().for_each(drop),
        || plan.runs.into_par_iter().for_each(drop),
    );
    code
}

/// Loads and compiles a document; `Err` holds the exit code. Its diagnostics are written to the
/// returned text, which the caller prints: documents load in parallel and print in order (D-111).
fn load(path: &PathBuf) -> (Result<Attack, u8>, String) {
    use std::fmt::Write as _;
    let mut diagnostics = String::new();
    let (name, source) = match read_input(path) {
        Ok(input) => input,
        Err(message) => {
            let _ = writeln!(diagnostics, "error: {}", one_line(&message));
            return (Err(EXIT_NO_INPUT), diagnostics);
        }
    };
    if let Some(hint) = trace_given_as_document(&source) {
        let _ = writeln!(diagnostics, "error: {}: {hint}", one_line(&name));
        return (Err(EXIT_USAGE), diagnostics);
    }
    let attack = match oatf::load_with(&source, &validate_options()) {
        Ok(loaded) => {
            for warning in &loaded.warnings {
                let headline = with_path(warning.message(), warning.path());
                diagnostics.push_str(&render(warning, headline, &name, &source));
            }
            let compiled = CompiledAttack::new(&loaded.document, &oatf::default_eval_options());
            Ok(Attack {
                path: path.clone(),
                document: loaded.document,
                compiled,
            })
        }
        Err(oatf::LoadError::Parse(errors)) => {
            for error in errors.iter() {
                diagnostics.push_str(&render(error, parse_headline(error), &name, &source));
            }
            Err(EXIT_INVALID_DOCUMENT)
        }
        Err(oatf::LoadError::Invalid(errors)) => {
            for error in &errors {
                let headline = with_path(error.message(), Some(error.path()));
                diagnostics.push_str(&render(error, headline, &name, &source));
            }
            Err(EXIT_INVALID_DOCUMENT)
        }
        Err(other) => {
            let _ = writeln!(diagnostics, "error: {}: {other}", one_line(&name));
            Err(EXIT_INVALID_DOCUMENT)
        }
    };
    (attack, diagnostics)
}

fn evaluate_run(
    run: &Run,
    attacks: &[Result<Attack, u8>],
    max_line_len: usize,
    strict: bool,
) -> Outcome {
    let trace = if run.trace.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        run.trace.display().to_string()
    };
    let failure = |code, message: String| {
        Outcome::new(
            run.document,
            run.group.clone(),
            trace.clone(),
            Err(Failure { code, message }),
        )
    };
    let attack = match attacks.get(run.document) {
        Some(Ok(attack)) => attack,
        Some(Err(code)) => return failure(*code, campaign::DOCUMENT_NOT_LOADED.to_owned()),
        None => return failure(EXIT_USAGE, "no document".to_owned()),
    };
    let input: Box<dyn std::io::BufRead> = if run.trace.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match crate::input::safe_fs::open_regular(&run.trace) {
            // A buffer the size of a short trace: a 64 KiB one for each run of 5 KB traces cost the
            // allocator a consolidation of its free lists at every free.
            Ok((file, len)) => Box::new(BufReader::with_capacity(
                usize::try_from(len)
                    .map_or(1 << 16, |len| len.saturating_add(1).clamp(1 << 12, 1 << 16)),
                file,
            )),
            Err(e) => return failure(EXIT_NO_INPUT, campaign::unreadable_message(&trace, &e)),
        }
    };
    let mut input = input;
    if let Some(hint) = document_given_as_trace(&mut input) {
        return failure(EXIT_USAGE, format!("{trace}: {hint}"));
    }
    let limits = (max_line_len, run.compat);
    let result = match super::trace::evaluate(&attack.compiled, input, trace.clone(), limits, false)
    {
        Ok((mut verdict, mut stats)) => {
            verdict.source = Some(format!("oatf {}", env!("CARGO_PKG_VERSION")));
            stats.strict = strict;
            Ok((verdict, stats))
        }
        Err(message) => Err(Failure {
            code: EXIT_NO_INPUT,
            message,
        }),
    };
    Outcome::new(run.document, run.group.clone(), trace, result)
}

/// A progress bar with counts and rate on stderr, only when stderr is a terminal and not `--quiet`.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(total: usize, quiet: bool) -> Self {
        if quiet || total < 2 || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} traces, {per_sec}, {elapsed} (eta {eta})",
        ) {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    fn inc(&self, runs: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(runs);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
