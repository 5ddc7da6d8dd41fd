//! Campaigns: `oatf evaluate DOC TRACE...` with several traces (or directories of traces), and
//! `oatf evaluate --manifest FILE` pairing documents and traces, as a benchmark produces them.
//!
//! Each document is loaded and compiled once; the runs (one trace against one document) are evaluated
//! in parallel on all cores (rayon), each trace streamed as in a single evaluation, and the report
//! summarizes them: per attack the runs by result, the worst verdict and the highest tier; totals by
//! result, tier and category. The exit code is that of the worst run (`worst_code`).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, IsTerminal as _};
use std::path::{Path, PathBuf};

use oatf::trace::Compat;
use oatf::{AttackResult, AttackVerdict, CompiledAttack, Document, Tier};
use rayon::prelude::*;
use serde_json::{Value, json};

use oatf::report::campaign::{self, RunOutcome, severity_rank};
use oatf::report::html::HtmlRun;
use oatf::report::matrix::{Matrix, MatrixRun};
use oatf::report::{TraceStats, run_exit_code};

use super::trace::{
    EXIT_INVALID_DOCUMENT, EXIT_NO_INPUT, Format, one_line, result_and_tier, result_with_tier,
};
use crate::exit::EXIT_USAGE;
use crate::input::source::{document_given_as_trace, read_input, trace_given_as_document};
use crate::options::validate_options;
use crate::output::Output;
use crate::render::diagnostic::{parse_headline, render, with_path};

mod manifest_parts;

/// Trace files a directory contributes: JSON Lines by extension.
const TRACE_EXTENSIONS: [&str; 2] = ["jsonl", "ndjson"];

/// Directories nested deeper than this under a trace directory are not walked.
const MAX_WALK_DEPTH: usize = 32;

/// One trace to evaluate against one document.
#[derive(Debug)]
struct Run {
    document: usize,
    trace: PathBuf,
    /// The manifest's `group:` of the run (D-105).
    group: Option<String>,
    /// The compatibility profile of the run (D-100).
    compat: Compat,
}

/// What a campaign evaluates: the documents, and the runs that refer to them by index.
#[derive(Debug, Default)]
struct Plan {
    documents: Vec<PathBuf>,
    /// The index of each document in `documents`: a manifest of one entry per run names its
    /// documents many times (D-111).
    index: HashMap<PathBuf, usize>,
    runs: Vec<Run>,
}

/// A document's index, a trace argument, and the group and profile of its runs.
type Pair = (usize, PathBuf, (Option<String>, Compat));

/// What a trace argument is: a file (or standard input), or a directory and its trace files.
enum Expansion {
    File,
    Directory(Result<Vec<PathBuf>, String>),
}

impl Plan {
    fn document_index(&mut self, path: PathBuf) -> usize {
        if let Some(index) = self.index.get(&path) {
            return *index;
        }
        self.documents.push(path.clone());
        self.index.insert(path, self.documents.len() - 1);
        self.documents.len() - 1
    }

    /// Adds the runs of each `(document, trace)` in order: the file itself, or every trace file
    /// under a directory. The file system is asked in parallel: whether each trace is a directory,
    /// and the walk of each distinct directory (once, however many documents name it). The first
    /// error in order wins.
    fn add_all(&mut self, pairs: &[Pair]) -> Result<(), String> {
        let is_dir: Vec<bool> = pairs
            .par_iter()
            .map(|(_, trace, _)| trace.as_os_str() != "-" && trace.is_dir())
            .collect();
        let mut directories: Vec<&Path> = pairs
            .iter()
            .zip(&is_dir)
            .filter(|(_, dir)| **dir)
            .map(|((_, trace, _), _)| trace.as_path())
            .collect();
        directories.sort();
        directories.dedup();
        let mut walked: HashMap<&Path, (usize, Result<Vec<PathBuf>, String>)> = directories
            .par_iter()
            .map(|dir| (*dir, (0, trace_files(dir))))
            .collect();
        for ((_, trace, _), dir) in pairs.iter().zip(&is_dir) {
            if let (true, Some((uses, _))) = (*dir, walked.get_mut(trace.as_path())) {
                *uses += 1;
            }
        }
        for ((document, trace, (group, compat)), dir) in pairs.iter().zip(is_dir) {
            let expansion = if dir {
                // The last use takes the list; earlier ones copy it.
                let found = match walked.get_mut(trace.as_path()) {
                    Some((1, _)) => walked.remove(trace.as_path()).map(|(_, found)| found),
                    Some((uses, found)) => {
                        *uses -= 1;
                        Some(found.clone())
                    }
                    None => None,
                };
                Expansion::Directory(found.unwrap_or_else(|| Ok(Vec::new())))
            } else {
                Expansion::File
            };
            match expansion {
                Expansion::File => self.runs.push(Run {
                    document: *document,
                    trace: trace.clone(),
                    group: group.clone(),
                    compat: *compat,
                }),
                Expansion::Directory(found) => {
                    let found = found?;
                    if found.is_empty() {
                        return Err(format!(
                            "no trace file (*.jsonl, *.ndjson) under {}",
                            trace.display()
                        ));
                    }
                    self.runs.extend(found.into_iter().map(|trace| Run {
                        document: *document,
                        trace,
                        group: group.clone(),
                        compat: *compat,
                    }));
                }
            }
        }
        Ok(())
    }
}

/// The trace files under `root`, sorted; hidden entries are skipped and links to directories are
/// not followed.
fn trace_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < MAX_WALK_DEPTH {
                    stack.push((path, depth + 1));
                }
            } else if path
                .extension()
                .is_some_and(|e| TRACE_EXTENSIONS.iter().any(|t| e == *t))
            {
                found.push(path);
            }
        }
    }
    // In parallel: a directory of 100,000 traces takes a visible part of a campaign to sort.
    found.par_sort_unstable();
    Ok(found)
}

/// One entry of a manifest: a document and its traces (files or directories), relative to the
/// manifest.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestRun {
    document: PathBuf,
    #[serde(default)]
    trace: Option<PathBuf>,
    #[serde(default)]
    traces: Vec<PathBuf>,
    /// The group of these runs, for example the model that produced the traces (D-105).
    #[serde(default)]
    group: Option<String>,
    /// This run's compatibility profile; wins over the manifest's.
    #[serde(default)]
    compat: Option<CompatName>,
}

/// A compatibility profile's name in a manifest (D-100); an unknown one is an error at its line.
#[derive(Clone, Copy, Debug)]
struct CompatName(Compat);

impl<'de> serde::Deserialize<'de> for CompatName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse()
            .map(CompatName)
            .map_err(|e: oatf::trace::UnknownCompat| serde::de::Error::custom(e))
    }
}

/// A campaign manifest (`docs/guide.md`, "Campaigns").
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// The compatibility profile of every run that does not name its own; else `--compat`'s.
    #[serde(default)]
    compat: Option<CompatName>,
    runs: Vec<ManifestRun>,
}

/// Reads a manifest: a large one of the plain shape in parts on every core (D-114), the same
/// entries in the same order; any other, or one whose parts do not all read, whole.
fn parse_manifest(source: &str) -> Result<Manifest, serde_saphyr::Error> {
    if let Some(parts) = manifest_parts::split_runs(source, rayon::current_num_threads() * 4) {
        let read: Vec<Result<Manifest, serde_saphyr::Error>> = parts
            .par_iter()
            .map(|part| serde_saphyr::from_str(part))
            .collect();
        if read.iter().all(Result::is_ok) {
            let runs = read.into_iter().flatten().flat_map(|m| m.runs).collect();
            // The plain shape has no top-level key but `runs` (manifest_parts), so no `compat`.
            return Ok(Manifest { runs, compat: None });
        }
    }
    serde_saphyr::from_str(source)
}

fn plan_from_manifest(path: &PathBuf, compat: Compat) -> Result<Plan, String> {
    let (name, source) = read_input(path)?;
    let manifest =
        parse_manifest(&source).map_err(|e| format!("{name}: not a campaign manifest: {e}"))?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    let mut plan = Plan::default();
    let default = manifest.compat.map_or(compat, |c| c.0);
    let mut pairs = Vec::new();
    // An entry's own error comes after the runs of the entries before it are added (their
    // directories may fail first), as when each was added in turn.
    let mut entry_error = None;
    for (index, entry) in manifest.runs.into_iter().enumerate() {
        let compat = entry.compat.map_or(default, |c| c.0);
        let document = plan.document_index(base.join(&entry.document));
        let traces: Vec<PathBuf> = entry.trace.into_iter().chain(entry.traces).collect();
        if traces.is_empty() {
            entry_error = Some(format!(
                "{name}: runs[{index}] has no `trace` or `traces` for {}",
                entry.document.display()
            ));
            break;
        }
        if traces.iter().any(|trace| trace.as_os_str() == "-") {
            let before = traces.iter().take_while(|trace| trace.as_os_str() != "-");
            pairs.extend(
                before.map(|trace| (document, base.join(trace), (entry.group.clone(), compat))),
            );
            entry_error = Some(format!(
                "{name}: runs[{index}]: a manifest cannot name standard input"
            ));
            break;
        }
        pairs.extend(
            traces
                .iter()
                .map(|trace| (document, base.join(trace), (entry.group.clone(), compat))),
        );
    }
    plan.add_all(&pairs)?;
    if let Some(error) = entry_error {
        return Err(error);
    }
    if plan.runs.is_empty() {
        return Err(format!("{name}: the manifest has no runs"));
    }
    Ok(plan)
}

/// Whether the arguments ask for a campaign rather than one evaluation: a manifest, several traces,
/// a directory of traces, or the CSV or HTML format.
pub(crate) fn is_campaign(manifest: Option<&PathBuf>, traces: &[PathBuf], format: Format) -> bool {
    manifest.is_some()
        || traces.len() > 1
        || matches!(format, Format::Csv | Format::Html)
        || traces.iter().any(|t| t.as_os_str() != "-" && t.is_dir())
}

/// A loaded, compiled document.
struct Attack {
    path: PathBuf,
    document: Document,
    compiled: CompiledAttack,
}

/// The outcome of one run.
struct Outcome {
    document: usize,
    group: Option<String>,
    trace: String,
    trace_path: PathBuf,
    /// The run's exit code, computed once by the worker that evaluated it.
    code: u8,
    /// The verdict's result and max tier, for the summaries; `None` for a run without a verdict.
    summary: Option<(AttackResult, Option<Tier>)>,
    kept: Kept,
}

/// What the report keeps of a run (D-112): the run itself for the formats that show every verdict
/// whole (SARIF, JUnit), or, for the others, its text in the report, written by the worker that
/// evaluated it (its JSON, its CSV row, its human line when it did not pass). Keeping every verdict
/// until the end cost 3.6 KB a short run, and the allocator and page faults took a tenth of the
/// campaign's time.
enum Kept {
    /// Boxed, so that an outcome in the campaign's list stays small.
    Run(Box<Result<(AttackVerdict, TraceStats), Failure>>),
    Text(String),
}

/// Why a run has no verdict.
struct Failure {
    code: u8,
    message: String,
}

/// What a report reads of a run kept as text where it needs the run: never, since runs are written
/// as text only for the formats that need no more (`Report::written`).
static NOT_KEPT: Result<(AttackVerdict, TraceStats), Failure> = Err(Failure {
    code: EXIT_USAGE,
    message: String::new(),
});

impl Outcome {
    fn new(
        document: usize,
        group: Option<String>,
        trace: String,
        trace_path: PathBuf,
        result: Result<(AttackVerdict, TraceStats), Failure>,
    ) -> Self {
        let code = match &result {
            Ok((verdict, stats)) => run_exit_code(verdict, stats),
            Err(failure) => failure.code,
        };
        Outcome {
            document,
            group,
            trace,
            trace_path,
            code,
            summary: result.as_ref().ok().map(|(v, _)| (v.result, v.max_tier)),
            kept: Kept::Run(Box::new(result)),
        }
    }

    fn code(&self) -> u8 {
        self.code
    }

    /// The run, kept whole (see `NOT_KEPT` otherwise).
    fn run(&self) -> &Result<(AttackVerdict, TraceStats), Failure> {
        match &self.kept {
            Kept::Run(result) => result,
            Kept::Text(_) => &NOT_KEPT,
        }
    }

    /// The run as the report crate reads it (the run kept whole: see `run`).
    fn run_outcome(&self) -> RunOutcome<'_> {
        match self.run() {
            Ok((verdict, stats)) => RunOutcome::Verdict(verdict, stats),
            Err(failure) => RunOutcome::Failed {
                exit_code: failure.code,
                message: &failure.message,
            },
        }
    }

    /// The run's text, when its worker wrote it.
    fn text(&self) -> Option<&str> {
        match &self.kept {
            Kept::Text(text) => Some(text),
            Kept::Run(_) => None,
        }
    }
}

/// The exit code of the worst of `codes` (0 when empty).
fn worst_code(codes: impl Iterator<Item = u8>) -> u8 {
    codes.max_by_key(|c| severity_rank(*c)).unwrap_or(0)
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
            plan.add_all(&pairs).map(|()| plan)
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
    let writer = Report::new(&plan.documents, &attacks, &[]);
    let outcomes: Vec<Outcome> = plan
        .runs
        .par_iter()
        // The bar is moved every 16 runs of a worker: once per run, every core wrote its counter.
        .map_init(
            || 0_u64,
            |done, run| {
                let outcome = evaluate_run(run, &attacks, options.max_line_len, options.strict);
                let outcome = writer.written(outcome, options.format, options.quiet);
                *done += 1;
                if *done % 16 == 0 {
                    progress.inc(16);
                }
                outcome
            },
        )
        .collect();
    progress.finish();

    let report = Report::new(&plan.documents, &attacks, &outcomes);
    let text = match options.format {
        Format::Human => {
            let text = report.human(options.quiet);
            if options.color {
                crate::render::color::paint_verdicts(&text)
            } else {
                text
            }
        }
        Format::Json => report.json(),
        Format::Csv => report.csv(),
        Format::Html => report.html(),
        Format::Sarif => report.sarif(),
        Format::Junit => report.junit(),
    };
    out.write(&text);
    let code = worst_code(outcomes.iter().map(Outcome::code));
    // Freed in parallel: a campaign of 100,000 runs holds that many verdicts.
    outcomes.into_par_iter().for_each(drop);
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
            run.trace.clone(),
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
            Ok((file, _)) => Box::new(BufReader::with_capacity(1 << 16, file)),
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
    Outcome::new(
        run.document,
        run.group.clone(),
        trace,
        run.trace.clone(),
        result,
    )
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

/// Counts of runs by result.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    exploited: usize,
    partial: usize,
    not_exploited: usize,
    error: usize,
}

impl Counts {
    fn add(&mut self, result: Option<AttackResult>) {
        match result {
            Some(AttackResult::Exploited) => self.exploited += 1,
            Some(AttackResult::Partial) => self.partial += 1,
            Some(AttackResult::NotExploited) => self.not_exploited += 1,
            // A run without a verdict counts as an error.
            _ => self.error += 1,
        }
    }

    fn total(&self) -> usize {
        self.exploited + self.partial + self.not_exploited + self.error
    }

    fn merge(&mut self, other: &Counts) {
        self.exploited += other.exploited;
        self.partial += other.partial;
        self.not_exploited += other.not_exploited;
        self.error += other.error;
    }

    fn json(&self) -> Value {
        json!({
            "exploited": self.exploited,
            "partial": self.partial,
            "not_exploited": self.not_exploited,
            "error": self.error,
        })
    }
}

/// The summary of one attack (document) over its runs.
struct AttackSummary {
    document: usize,
    counts: Counts,
    /// The exit code of its worst run.
    worst: u8,
    /// The verdict of its worst run, or `None` when that run has none.
    worst_verdict: Option<String>,
    max_tier: Option<Tier>,
}

struct Report<'a> {
    documents: &'a [PathBuf],
    attacks: &'a [Result<Attack, u8>],
    outcomes: &'a [Outcome],
    /// Per document: its `attack_id` column, its name as given and its category, made once
    /// (the per-run rows and totals only look them up).
    labels: Vec<String>,
    files: Vec<String>,
    categories: Vec<String>,
}

impl<'a> Report<'a> {
    fn new(
        documents: &'a [PathBuf],
        attacks: &'a [Result<Attack, u8>],
        outcomes: &'a [Outcome],
    ) -> Self {
        let mut report = Report {
            documents,
            attacks,
            outcomes,
            labels: Vec::new(),
            files: Vec::new(),
            categories: Vec::new(),
        };
        let count = documents.len().max(attacks.len());
        report.files = (0..count).map(|d| report.make_document_file(d)).collect();
        report.labels = (0..count).map(|d| report.make_attack_id(d)).collect();
        report.categories = (0..count).map(|d| report.make_category(d)).collect();
        report
    }

    fn attack_id(&self, document: usize) -> String {
        self.labels.get(document).cloned().unwrap_or_default()
    }

    fn document_file(&self, document: usize) -> String {
        self.files.get(document).cloned().unwrap_or_default()
    }

    fn category(&self, document: usize) -> String {
        self.categories
            .get(document)
            .cloned()
            .unwrap_or_else(|| "(none)".to_owned())
    }

    fn make_attack_id(&self, document: usize) -> String {
        match self.attacks.get(document) {
            Some(Ok(attack)) => campaign::attack_label(
                &attack.path.display().to_string(),
                true,
                attack
                    .document
                    .attack
                    .as_ref()
                    .and_then(|a| a.id.as_deref()),
            ),
            _ => campaign::attack_label(&self.make_document_file(document), false, None),
        }
    }

    fn make_document_file(&self, document: usize) -> String {
        self.documents
            .get(document)
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    }

    fn make_category(&self, document: usize) -> String {
        let category = match self.attacks.get(document) {
            Some(Ok(attack)) => attack
                .document
                .attack
                .as_ref()
                .and_then(|a| a.classification.as_ref())
                .and_then(|c| c.category.as_ref())
                .map(|c| c.as_str().to_owned()),
            _ => None,
        };
        category.unwrap_or_else(|| "(none)".to_owned())
    }

    fn summaries(&self) -> Vec<AttackSummary> {
        let mut by_document: BTreeMap<usize, AttackSummary> = BTreeMap::new();
        for outcome in self.outcomes {
            let summary = by_document
                .entry(outcome.document)
                .or_insert_with(|| AttackSummary {
                    document: outcome.document,
                    counts: Counts::default(),
                    worst: 0,
                    worst_verdict: None,
                    max_tier: None,
                });
            let verdict = outcome.summary;
            summary.counts.add(verdict.map(|(result, _)| result));
            let code = outcome.code();
            if summary.counts.total() == 1 || severity_rank(code) > severity_rank(summary.worst) {
                summary.worst = code;
                summary.worst_verdict = verdict.map(|(result, tier)| {
                    if code == oatf::report::EXIT_STRICT_WARNINGS {
                        format!("{} with warnings (--strict)", result_and_tier(result, tier))
                    } else {
                        result_and_tier(result, tier)
                    }
                });
            }
            if let Some(tier) = verdict.and_then(|(_, tier)| tier) {
                summary.max_tier = Some(summary.max_tier.map_or(tier, |t| t.max(tier)));
            }
        }
        by_document.into_values().collect()
    }

    fn totals(&self) -> (Counts, [usize; 4], BTreeMap<String, Counts>) {
        let mut counts = Counts::default();
        // Exploited or partial runs by max_tier: none, ingested, local_action, boundary_breach.
        let mut tiers = [0; 4];
        // By document first, then by category: no string per run.
        let mut by_document: Vec<Counts> = vec![Counts::default(); self.categories.len()];
        for outcome in self.outcomes {
            let result = outcome.summary.map(|(result, _)| result);
            counts.add(result);
            if let Some(document) = by_document.get_mut(outcome.document) {
                document.add(result);
            }
            if let Some((result, tier)) = outcome.summary
                && matches!(result, AttackResult::Exploited | AttackResult::Partial)
            {
                tiers[tier_index(tier)] += 1;
            }
        }
        let mut categories: BTreeMap<String, Counts> = BTreeMap::new();
        for (document, c) in by_document.iter().enumerate() {
            if c.total() > 0 {
                categories
                    .entry(self.category(document))
                    .or_default()
                    .merge(c);
            }
        }
        (counts, tiers, categories)
    }

    /// The matrix attacks × groups of the runs (D-105).
    fn matrix(&self) -> Matrix {
        let ids: Vec<String> = self
            .outcomes
            .iter()
            .map(|o| self.attack_id(o.document))
            .collect();
        let runs: Vec<MatrixRun<'_>> = self
            .outcomes
            .iter()
            .zip(&ids)
            .map(|(o, id)| {
                let (result, tier) = o.summary.unwrap_or((AttackResult::Error, None));
                MatrixRun::new(id, o.group.as_deref(), result, tier, o.code())
            })
            .collect();
        Matrix::new(&runs)
    }

    /// The run's text in `format`, written by the worker that evaluated it (D-112): its line in the
    /// human report when it did not pass (none when it did), its CSV row or its JSON; for SARIF and
    /// JUnit the run is kept whole.
    fn written(&self, mut outcome: Outcome, format: Format, quiet: bool) -> Outcome {
        let text = match format {
            Format::Human if quiet || outcome.code() == 0 => String::new(),
            Format::Human => self.notable_line(&outcome),
            Format::Csv => self.csv_line(&outcome),
            Format::Json => self.json_text(&outcome),
            Format::Sarif | Format::Junit | Format::Html => return outcome,
        };
        outcome.kept = Kept::Text(text);
        outcome
    }

    /// The line of a run that did not pass, in the human report.
    fn notable_line(&self, outcome: &Outcome) -> String {
        let what = match outcome.run() {
            Ok((verdict, stats)) if outcome.code() == oatf::report::EXIT_STRICT_WARNINGS => {
                let warnings: Vec<String> = oatf::report::warnings(verdict, stats)
                    .into_iter()
                    .map(|w| w.message)
                    .collect();
                let mut what = format!(
                    "verdict: {}, failed by --strict: {}",
                    result_with_tier(verdict),
                    warnings.join("; ")
                );
                if stats.malformed > 0 {
                    what.push_str(&format!("; {} malformed lines", stats.malformed));
                }
                what
            }
            Ok((verdict, _)) => format!("verdict: {}", result_with_tier(verdict)),
            Err(failure) => format!("no verdict: {}", failure.message),
        };
        format!(
            "  {}  {}  {}\n",
            one_line(&self.attack_id(outcome.document)),
            one_line(&outcome.trace),
            one_line(&what)
        )
    }

    fn human(&self, quiet: bool) -> String {
        let mut text = String::new();
        let summaries = self.summaries();
        let ids: Vec<String> = summaries
            .iter()
            .map(|s| one_line(&self.attack_id(s.document)))
            .collect();
        let width = ids
            .iter()
            .map(|i| i.chars().count())
            .max()
            .unwrap_or(0)
            .max(6);
        text.push_str(&format!(
            "{:<width$}  {:>5}  {:>9}  {:>7}  {:>13}  {:>5}  worst\n",
            "attack", "runs", "exploited", "partial", "not_exploited", "error"
        ));
        for (summary, id) in summaries.iter().zip(&ids) {
            let c = &summary.counts;
            let worst = summary
                .worst_verdict
                .clone()
                .unwrap_or_else(|| format!("no verdict (exit {})", summary.worst));
            text.push_str(&format!(
                "{id:<width$}  {:>5}  {:>9}  {:>7}  {:>13}  {:>5}  {worst}\n",
                c.total(),
                c.exploited,
                c.partial,
                c.not_exploited,
                c.error
            ));
        }
        if !quiet {
            // Written in parallel, joined in run order.
            let notable: Vec<Cow<'_, str>> = self
                .outcomes
                .par_iter()
                .filter(|o| o.code() != 0)
                .map(|o| {
                    o.text()
                        .map_or_else(|| Cow::Owned(self.notable_line(o)), Cow::Borrowed)
                })
                .collect();
            if !notable.is_empty() {
                text.push_str(
                    "runs that did not pass (not not_exploited, or failed by --strict):\n",
                );
            }
            for line in notable {
                text.push_str(&line);
            }
        }
        let matrix = self.matrix();
        if matrix.has_groups() {
            text.push_str(&super::groups::human(&matrix));
        }
        let (counts, tiers, categories) = self.totals();
        text.push_str(&format!(
            "runs: {} ({} exploited, {} partial, {} not_exploited, {} error)\n",
            counts.total(),
            counts.exploited,
            counts.partial,
            counts.not_exploited,
            counts.error
        ));
        text.push_str(&format!(
            "max tier of exploited and partial runs: {} boundary_breach, {} local_action, {} ingested, {} without tier\n",
            tiers[3], tiers[2], tiers[1], tiers[0]
        ));
        for (category, c) in &categories {
            text.push_str(&format!(
                "category {}: {} runs, {} exploited, {} partial, {} not_exploited, {} error\n",
                one_line(category),
                c.total(),
                c.exploited,
                c.partial,
                c.not_exploited,
                c.error
            ));
        }
        text
    }

    /// The JSON of one run in the `runs` array.
    fn json_run(&self, o: &Outcome) -> Value {
        let mut run = json!({
            "document": self.document_file(o.document),
            "attack_id": self.attack_id(o.document),
            "trace": o.trace,
            "group": o.group,
            "exit_code": o.code(),
        });
        if let Some(object) = run.as_object_mut() {
            match o.run() {
                Ok((verdict, stats)) => {
                    object.insert(
                        "verdict".into(),
                        oatf::report::json_document(verdict, stats),
                    );
                }
                Err(failure) => {
                    object.insert("error".into(), json!(failure.message));
                }
            }
        }
        run
    }

    /// The JSON of one run as the report holds it, its lines indented to the depth of `runs`.
    fn json_text(&self, o: &Outcome) -> String {
        let text = serde_json::to_string_pretty(&self.json_run(o)).unwrap_or_default();
        let mut indented = String::with_capacity(text.len() + text.len() / 8);
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                indented.push('\n');
            }
            indented.push_str("    ");
            indented.push_str(line);
        }
        indented
    }

    /// The JSON report. Each run is built and written in parallel and set into the document at
    /// its depth (D-112): the text is the one `serde_json::to_string_pretty` of the whole document
    /// gives, since a nested value's lines are its own lines indented by its depth.
    fn json(&self) -> String {
        const RUNS: &str = "\n  \"runs\": \"runs\"";
        let runs: Vec<Cow<'_, str>> = self
            .outcomes
            .par_iter()
            .map(|o| {
                o.text()
                    .map_or_else(|| Cow::Owned(self.json_text(o)), Cow::Borrowed)
            })
            .collect();
        let attacks: Vec<Value> = self
            .summaries()
            .iter()
            .map(|s| {
                json!({
                    "attack_id": self.attack_id(s.document),
                    "document": self.document_file(s.document),
                    "category": self.category(s.document),
                    "runs": s.counts.total(),
                    "results": s.counts.json(),
                    "worst_verdict": s.worst_verdict,
                    "max_tier": s.max_tier,
                    "exit_code": s.worst,
                })
            })
            .collect();
        let (counts, tiers, categories) = self.totals();
        let value = json!({
            // Replaced by the runs below (`RUNS`): the top-level key is the only one at this depth.
            "runs": "runs",
            "attacks": attacks,
            "totals": {
                "runs": counts.total(),
                "by_result": counts.json(),
                "by_max_tier": {
                    "boundary_breach": tiers[3], "local_action": tiers[2],
                    "ingested": tiers[1], "none": tiers[0],
                },
                "by_category": categories.iter()
                    .map(|(k, c)| (k.clone(), c.json()))
                    .collect::<serde_json::Map<String, Value>>(),
            },
            "matrix": self.matrix().json(),
            "exit_code": worst_code(self.outcomes.iter().map(Outcome::code)),
        });
        let skeleton = serde_json::to_string_pretty(&value).unwrap_or_default();
        let Some(at) = skeleton.find(RUNS) else {
            return skeleton + "\n";
        };
        let mut text =
            String::with_capacity(skeleton.len() + runs.iter().map(|r| r.len() + 2).sum::<usize>());
        text.push_str(&skeleton[..at]);
        text.push_str("\n  \"runs\": ");
        if runs.is_empty() {
            text.push_str("[]");
        } else {
            text.push_str("[\n");
            for (i, run) in runs.iter().enumerate() {
                if i > 0 {
                    text.push_str(",\n");
                }
                text.push_str(run);
            }
            text.push_str("\n  ]");
        }
        text.push_str(&skeleton[at + RUNS.len()..]);
        text.push('\n');
        text
    }

    /// The CSV row of a run, with its line break.
    fn csv_line(&self, o: &Outcome) -> String {
        let outcome = o.run_outcome();
        let file = self.files.get(o.document).map_or("", String::as_str);
        let label = self.labels.get(o.document).map_or("", String::as_str);
        let mut line = campaign::csv_line(&campaign::campaign_row(
            file,
            label,
            &o.trace,
            o.group.as_deref(),
            outcome,
        ));
        line.push('\n');
        line
    }

    fn csv(&self) -> String {
        let mut text = campaign::csv_header();
        text.push('\n');
        // Rows written in parallel, joined in run order.
        let lines: Vec<Cow<'_, str>> = self
            .outcomes
            .par_iter()
            .map(|o| {
                o.text()
                    .map_or_else(|| Cow::Owned(self.csv_line(o)), Cow::Borrowed)
            })
            .collect();
        text.reserve(lines.iter().map(|l| l.len()).sum());
        for line in lines {
            text.push_str(&line);
        }
        text
    }

    /// The self-contained HTML report (`oatf::report::html`, D-107).
    fn html(&self) -> String {
        let ids: Vec<String> = self
            .outcomes
            .iter()
            .map(|o| self.attack_id(o.document))
            .collect();
        let runs: Vec<HtmlRun<'_>> = self
            .outcomes
            .iter()
            .zip(&ids)
            .map(|(o, id)| HtmlRun::new(id, o.group.as_deref(), &o.trace, o.run_outcome()))
            .collect();
        oatf::report::html::campaign_html("oatf campaign report", &runs)
    }

    /// SARIF: one run per pair (`oatf::report::campaign_sarif`), each as `oatf evaluate` writes it;
    /// a run without a verdict is a failed invocation with the reason as its notification.
    fn sarif(&self) -> String {
        use oatf::report::CampaignRun;
        // Owned here: a failed run borrows its attack's label.
        let attack_ids: Vec<String> = self
            .outcomes
            .iter()
            .map(|o| self.attack_id(o.document))
            .collect();
        let runs = self.outcomes.iter().zip(&attack_ids).map(|(o, attack_id)| {
            match (o.run(), self.attacks.get(o.document)) {
                (Ok((verdict, stats)), Some(Ok(attack))) => CampaignRun::Verdict {
                    document: &attack.document,
                    verdict,
                    stats,
                    path: &o.trace_path,
                },
                (result, _) => CampaignRun::Failed {
                    attack_id,
                    trace: &o.trace,
                    message: match result {
                        Err(failure) => &failure.message,
                        Ok(_) => "the document could not be loaded",
                    },
                },
            }
        });
        oatf::report::campaign_sarif(runs)
    }

    /// JUnit XML: the suite of each run's single report (`oatf::report::junit_suite`), named
    /// `ATTACK-ID TRACE`; a run without a verdict is a suite with one `run` case in error.
    fn junit(&self) -> String {
        use oatf::report::xml::{Outcome, TestCase, TestSuite, TestSuites};
        let mut junit = TestSuites::new("oatf evaluate");
        // The suites are made in parallel, in run order; the document is written on one thread.
        junit.suites = self
            .outcomes
            .par_iter()
            .map(|o| {
                let attack_id = self.attack_id(o.document);
                let name = format!("{attack_id} {}", o.trace);
                match (o.run(), self.attacks.get(o.document)) {
                    (Ok((verdict, stats)), Some(Ok(attack))) => {
                        let mut suite = oatf::report::junit_suite(&attack.document, verdict, stats);
                        suite.name = name;
                        suite
                    }
                    (result, _) => {
                        let message = match result {
                            Err(failure) => failure.message.clone(),
                            Ok(_) => "the document could not be loaded".to_owned(),
                        };
                        let mut suite = TestSuite::new(name);
                        suite.cases.push(TestCase::new(
                            attack_id.as_str(),
                            "run",
                            Outcome::error("no-verdict", message),
                        ));
                        suite
                    }
                }
            })
            .collect();
        junit.write()
    }
}

fn tier_index(tier: Option<Tier>) -> usize {
    match tier {
        None => 0,
        Some(Tier::Ingested) => 1,
        Some(Tier::LocalAction) => 2,
        Some(Tier::BoundaryBreach) => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_manifest() -> String {
        let mut text = String::from("runs:\n");
        for i in 0..12_000 {
            text.push_str(&format!(
                "  - document: \"d{}.yaml\"\n    trace: t/{i:06}.jsonl\n",
                i % 5
            ));
        }
        text
    }

    #[test]
    fn a_large_manifest_read_in_parts_reads_as_a_whole() {
        let text = big_manifest();
        assert!(manifest_parts::split_runs(&text, 8).is_some_and(|p| p.len() > 1));
        let whole: Result<Manifest, _> = serde_saphyr::from_str(&text);
        let parts = parse_manifest(&text);
        assert_eq!(format!("{parts:?}"), format!("{whole:?}"));
        assert_eq!(parts.map(|m| m.runs.len()).ok(), Some(12_000));
        // An error in one part is the error of the whole text, at its own line.
        let broken = text.replacen("    trace: t/009000.jsonl", "    trace: [t/009000.jsonl", 1);
        let whole: Result<Manifest, _> = serde_saphyr::from_str(&broken);
        let parts = parse_manifest(&broken);
        assert!(whole.is_err());
        assert_eq!(
            parts.err().map(|e| e.to_string()),
            whole.err().map(|e| e.to_string())
        );
    }

    #[test]
    fn the_worst_code_wins() {
        assert_eq!(worst_code([0, 1, 3, 2].into_iter()), 3);
        assert_eq!(worst_code([0, 5, 4].into_iter()), 4);
        assert_eq!(worst_code([0, 5].into_iter()), 5);
        assert_eq!(worst_code([3, 66].into_iter()), 66);
        assert_eq!(worst_code([0, 0].into_iter()), 0);
        assert_eq!(worst_code(std::iter::empty()), 0);
    }
}
