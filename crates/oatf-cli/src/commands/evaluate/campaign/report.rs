//! A campaign's report in every format: the summaries, totals and matrix of the runs, and each run's
//! part, written by the worker that evaluated it (`Report::written`, D-112, D-181) and written here
//! in run order as the runs finish (`Writing`, D-260).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use oatf::report::campaign::{self, SarifRules, severity_rank};
use oatf::report::html::HtmlRun;
use oatf::report::matrix::{Matrix, MatrixRun};
use oatf::{AttackResult, Tier};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::io::Write as _;

use super::Attack;
use super::outcome::{Kept, Outcome, RunResult, outcome_of, worst_code};
use super::plan::Run;
use super::writing::Fact;
use crate::commands::evaluate::trace::{Format, one_line, result_and_tier, result_with_tier};
use crate::output::Output;

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

pub(super) struct Report<'a> {
    documents: &'a [PathBuf],
    attacks: &'a [Result<Attack, u8>],
    /// The plan's runs, in order: their groups, for the matrix.
    runs: &'a [Run],
    /// Per document: its `attack_id` column, its name as given and its category, made once
    /// (the per-run rows and totals only look them up).
    labels: Vec<String>,
    files: Vec<String>,
    categories: Vec<String>,
    /// Per document: its SARIF rules, written by the first worker that writes one of its runs
    /// (D-211).
    sarif_rules: Vec<OnceLock<SarifRules<'a>>>,
}

impl<'a> Report<'a> {
    pub(super) fn new(
        documents: &'a [PathBuf],
        attacks: &'a [Result<Attack, u8>],
        runs: &'a [Run],
    ) -> Self {
        let mut report = Report {
            documents,
            attacks,
            runs,
            labels: Vec::new(),
            files: Vec::new(),
            categories: Vec::new(),
            sarif_rules: Vec::new(),
        };
        let count = documents.len().max(attacks.len());
        report.files = (0..count).map(|d| report.make_document_file(d)).collect();
        report.labels = (0..count).map(|d| report.make_attack_id(d)).collect();
        report.categories = (0..count).map(|d| report.make_category(d)).collect();
        report.sarif_rules = (0..count).map(|_| OnceLock::new()).collect();
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

    fn summaries(facts: &[Fact]) -> Vec<AttackSummary> {
        let mut by_document: BTreeMap<usize, AttackSummary> = BTreeMap::new();
        for outcome in facts {
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
            let code = outcome.code;
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

    fn totals(&self, facts: &[Fact]) -> (Counts, [usize; 4], BTreeMap<String, Counts>) {
        let mut counts = Counts::default();
        // Exploited or partial runs by max_tier: none, ingested, local_action, boundary_breach.
        let mut tiers = [0; 4];
        // By document first, then by category: no string per run.
        let mut by_document: Vec<Counts> = vec![Counts::default(); self.categories.len()];
        for outcome in facts {
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
    fn matrix(&self, facts: &[Fact]) -> Matrix {
        // The labels are borrowed: a string per run on the main thread was a part of the serial share.
        // Collected in parallel: the workers, not the main thread, touch the list's memory.
        let runs: Vec<MatrixRun<'_>> = facts
            .par_iter()
            .zip(self.runs.par_iter())
            .map(|(o, run)| {
                let (result, tier) = o.summary.unwrap_or((AttackResult::Error, None));
                let id = self.labels.get(o.document).map_or("", String::as_str);
                MatrixRun::new(id, run.group.as_deref(), result, tier, o.code)
            })
            .collect();
        Matrix::new(&runs)
    }

    /// The run's part of the report in `format`, written by the worker that evaluated it (D-112,
    /// D-181): its line in the human report when it did not pass (none when it did), its CSV row, its
    /// JSON, its SARIF run or its JUnit suite; for HTML the run is kept whole. `path` is the trace file.
    pub(super) fn written(
        &self,
        mut outcome: Outcome,
        format: Format,
        quiet: bool,
        path: &Path,
    ) -> Outcome {
        let Some(run) = outcome.run() else {
            return outcome;
        };
        let kept = match format {
            Format::Human if quiet || outcome.code() == 0 => Kept::Text(String::new()),
            Format::Human => Kept::Text(self.notable_line(&outcome, run)),
            Format::Csv => Kept::Text(self.csv_line(&outcome, run)),
            Format::Json => Kept::Text(self.json_text(&outcome, run)),
            Format::Sarif => Kept::Text(self.sarif_run(&outcome, run, path)),
            Format::Junit => Kept::Suite(self.junit_suite(&outcome, run).written()),
            Format::Html => return outcome,
        };
        outcome.kept = kept;
        outcome
    }

    /// The line of a run that did not pass, in the human report.
    fn notable_line(&self, outcome: &Outcome, run: &RunResult) -> String {
        let what = match run {
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

    /// The human report; `notable` holds the runs that did not pass, in order, with their lines.
    pub(super) fn human(&self, quiet: bool, facts: &[Fact], notable: &[Outcome]) -> String {
        let mut text = String::new();
        let summaries = Self::summaries(facts);
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
            // Written by the workers (`written`), joined in run order.
            let notable: Vec<&str> = notable.iter().filter_map(Outcome::text).collect();
            if !notable.is_empty() {
                text.push_str(
                    "runs that did not pass (not not_exploited, or failed by --strict):\n",
                );
            }
            for line in notable {
                text.push_str(line);
            }
        }
        let matrix = self.matrix(facts);
        if matrix.has_groups() {
            text.push_str(&crate::commands::evaluate::groups::human(&matrix));
        }
        let (counts, tiers, categories) = self.totals(facts);
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

    /// The JSON of one run in the `runs` array, indented to its depth (`campaign::json_run`).
    fn json_text(&self, o: &Outcome, run: &RunResult) -> String {
        campaign::json_run(
            self.files.get(o.document).map_or("", String::as_str),
            self.labels.get(o.document).map_or("", String::as_str),
            &o.trace,
            o.group.as_deref(),
            outcome_of(run),
            2,
        )
    }

    /// The JSON report after its runs (`{"runs": [...],` was written by `Writing`). Each run is
    /// written by its worker (`written`) and set into the document at its depth (D-112, D-180): the
    /// text is the one `serde_json::to_string_pretty` of the whole document gives, since a nested
    /// value's lines are its own lines indented by its depth.
    pub(super) fn write_json_rest(&self, out: &mut Output<'_>, facts: &[Fact]) {
        /// The document after `runs`, its first key (D-212): no `Value` of the matrix, whose
        /// cells list every run's index.
        #[derive(serde::Serialize)]
        struct Rest<'m> {
            attacks: Vec<Value>,
            totals: Value,
            matrix: &'m Matrix,
            exit_code: u8,
        }
        let attacks: Vec<Value> = Self::summaries(facts)
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
        let (counts, tiers, categories) = self.totals(facts);
        let matrix = self.matrix(facts);
        let rest = Rest {
            attacks,
            totals: json!({
                "runs": counts.total(),
                "by_result": counts.json(),
                "by_max_tier": {
                    "boundary_breach": tiers[3], "local_action": tiers[2],
                    "ingested": tiers[1], "none": tiers[0],
                },
                "by_category": categories.iter()
                    .map(|(k, c)| (k.clone(), c.json()))
                    .collect::<serde_json::Map<String, Value>>(),
            }),
            matrix: &matrix,
            exit_code: worst_code(facts.iter().map(|f| f.code)),
        };
        // `{"runs": [...], REST}`: after the runs, the text of `rest` after its opening brace,
        // serialized straight to the output.
        let mut rest_out = std::io::BufWriter::with_capacity(1 << 16, AfterFirstByte(out, false));
        let _ = serde_json::to_writer_pretty(&mut rest_out, &rest);
        let _ = rest_out.write_all(b"\n").and_then(|()| rest_out.flush());
    }

    /// The CSV row of a run, with its line break.
    fn csv_line(&self, o: &Outcome, run: &RunResult) -> String {
        let outcome = outcome_of(run);
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

    /// The self-contained HTML report (`oatf::report::html`, D-107) of the runs, kept whole.
    pub(super) fn html(&self, outcomes: &[Outcome]) -> String {
        let ids: Vec<String> = outcomes
            .iter()
            .map(|o| self.attack_id(o.document))
            .collect();
        let runs: Vec<HtmlRun<'_>> = outcomes
            .iter()
            .zip(&ids)
            .map(|(o, id)| {
                // Kept whole for HTML (`written`).
                let outcome = o.run_outcome().unwrap_or(campaign::RunOutcome::Failed {
                    exit_code: o.code(),
                    message: "",
                });
                HtmlRun::new(id, o.group.as_deref(), &o.trace, outcome)
            })
            .collect();
        oatf::report::html::campaign_html("oatf campaign report", &runs)
    }

    /// A run of the SARIF log (`campaign::sarif_run`), as `oatf evaluate` writes it; a run without a
    /// verdict is a failed invocation with the reason as its notification.
    fn sarif_run(&self, o: &Outcome, run: &RunResult, path: &Path) -> String {
        use oatf::report::CampaignRun;
        let attack_id = self.labels.get(o.document).map_or("", String::as_str);
        let run = match (run, self.attacks.get(o.document)) {
            (Ok((verdict, stats)), Some(Ok(attack))) => {
                let run = CampaignRun::Verdict {
                    document: &attack.document,
                    verdict,
                    stats,
                    path,
                };
                // The document's rules are written once, not once per run (D-211).
                return match self.sarif_rules.get(o.document) {
                    Some(rules) => rules
                        .get_or_init(|| SarifRules::new(&attack.document))
                        .sarif_run(run),
                    None => campaign::sarif_run(run),
                };
            }
            (result, _) => CampaignRun::Failed {
                attack_id,
                trace: &o.trace,
                message: match result {
                    Err(failure) => &failure.message,
                    Ok(_) => campaign::DOCUMENT_NOT_LOADED,
                },
            },
        };
        campaign::sarif_run(run)
    }

    /// The JUnit suite of a run: its single report's (`oatf::report::junit_suite`), named
    /// `ATTACK-ID TRACE`; a run without a verdict is a suite with one `run` case in error.
    fn junit_suite(&self, o: &Outcome, run: &RunResult) -> oatf::report::xml::TestSuite {
        use oatf::report::xml::{Outcome, TestCase, TestSuite};
        let attack_id = self.labels.get(o.document).map_or("", String::as_str);
        let name = format!("{attack_id} {}", o.trace);
        match (run, self.attacks.get(o.document)) {
            (Ok((verdict, stats)), Some(Ok(attack))) => {
                let mut suite = oatf::report::junit_suite(&attack.document, verdict, stats);
                suite.name = name;
                suite
            }
            (result, _) => {
                let message = match result {
                    Err(failure) => failure.message.clone(),
                    Ok(_) => campaign::DOCUMENT_NOT_LOADED.to_owned(),
                };
                let mut suite = TestSuite::new(name);
                suite.cases.push(TestCase::new(
                    attack_id,
                    "run",
                    Outcome::error("no-verdict", message),
                ));
                suite
            }
        }
    }

    /// JUnit XML: the suites written by the workers, in run order, written to the output in pieces
    /// (D-212). They are kept until the end: the report's head counts their tests.
    pub(super) fn write_junit(out: &mut Output<'_>, outcomes: &[Outcome]) {
        let suites = outcomes.iter().filter_map(Outcome::suite);
        let mut chunk = Chunked::new(out);
        oatf::report::xml::TestSuites::new("oatf evaluate")
            .write_pieces_with(suites, |piece| chunk.push(piece));
        chunk.finish();
    }
}

/// A writer to the output that drops the first byte written to it (a JSON object's `{`, whose
/// members follow those written before).
struct AfterFirstByte<'o, 'w>(&'o mut Output<'w>, bool);

impl std::io::Write for AfterFirstByte<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let rest = match (self.1, bytes.split_first()) {
            (false, Some((_, rest))) => {
                self.1 = true;
                rest
            }
            _ => bytes,
        };
        self.0.write_all(rest)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Text written to an output in chunks of about 1 MiB, for pieces that live only while they are
/// handed over (the JUnit report's, `write_junit`).
struct Chunked<'o, 'w> {
    out: &'o mut Output<'w>,
    chunk: String,
}

impl<'o, 'w> Chunked<'o, 'w> {
    const CHUNK: usize = 1 << 20;

    fn new(out: &'o mut Output<'w>) -> Self {
        Chunked {
            out,
            chunk: String::with_capacity(Self::CHUNK),
        }
    }

    fn push(&mut self, piece: &str) {
        if self.chunk.len() + piece.len() > Self::CHUNK && !self.chunk.is_empty() {
            self.out.write(&self.chunk);
            self.chunk.clear();
        }
        if piece.len() >= Self::CHUNK {
            self.out.write(piece);
        } else {
            self.chunk.push_str(piece);
        }
    }

    fn finish(self) {
        self.out.write(&self.chunk);
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
