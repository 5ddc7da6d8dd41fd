//! The rows of a campaign (one per run: a document against a trace), as `oatf evaluate --manifest
//! --format csv` writes them and the Python package's campaigns (`oatf.campaign`, `oatf.dask`) return
//! them. The columns, their order and what a run without a verdict shows are decided here only.
//!
//! ```
//! use oatf_eval::{CompiledAttack, EvalOptions, TraceEvaluator};
//! use oatf_model::Document;
//! use oatf_report::TraceStats;
//! use oatf_report::campaign::{CSV_COLUMNS, Cell, RunOutcome, campaign_row, csv_line};
//!
//! let document: Document = serde_json::from_value(serde_json::json!({"oatf": "0.1", "attack": {
//!     "id": "OATF-900", "execution": {"mode": "mcp_server", "state": {"tools": []}},
//!     "indicators": [{"surface": "tools/call", "target": "arguments.path",
//!                     "pattern": {"contains": ".ssh/id_rsa"}}]}}))?;
//! let attack = CompiledAttack::new(&document, &EvalOptions::new());
//! let verdict = TraceEvaluator::new(&attack).finish();
//! let stats = TraceStats::new("run.jsonl");
//! let row = campaign_row("a.yaml", "OATF-900", "run.jsonl", None, RunOutcome::Verdict(&verdict, &stats));
//! assert_eq!(row.len(), CSV_COLUMNS.len());
//! assert_eq!(row[3], Cell::Text("error".into())); // a trace without messages
//! assert!(csv_line(&row).starts_with("a.yaml,OATF-900,run.jsonl,error,,5,"));
//!
//! // A run of a group (the model that produced the trace): the last column.
//! let failed = RunOutcome::Unreadable { reason: "cannot open the file: gone" };
//! let row = campaign_row("a.yaml", "OATF-900", "b.jsonl", Some("model-a"), failed);
//! assert_eq!(csv_line(&row), "a.yaml,OATF-900,b.jsonl,error,,66,,,,,,,cannot read b.jsonl: cannot open the file: gone,,model-a");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use oatf_eval::AttackVerdict;

pub use crate::nested::{Joined, Joining};
pub use crate::sarif_descriptor::SarifRules;

use crate::{TraceStats, run_exit_code, warnings};

/// Exit code of a run whose arguments are wrong, such as a document given as the trace (sysexits
/// `EX_USAGE`).
pub const EXIT_USAGE: u8 = 64;
/// Exit code of a run whose document does not parse or is invalid (sysexits `EX_DATAERR`).
pub const EXIT_INVALID_DOCUMENT: u8 = 65;
/// Exit code of a run whose document or trace cannot be read (sysexits `EX_NOINPUT`).
pub const EXIT_NO_INPUT: u8 = 66;

/// The columns of a campaign row, in order.
pub const CSV_COLUMNS: [&str; 15] = [
    "document",
    "attack_id",
    "trace",
    "result",
    "max_tier",
    "exit_code",
    "matched",
    "not_matched",
    "error",
    "skipped",
    "messages",
    "malformed_lines",
    "message",
    "warnings",
    "group",
];

/// The columns whose cells are [`Cell::Count`] (or [`Cell::Empty`] in a run without a verdict); the
/// others are text.
pub const COUNT_COLUMNS: [&str; 7] = [
    "exit_code",
    "matched",
    "not_matched",
    "error",
    "skipped",
    "messages",
    "malformed_lines",
];

/// One value of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cell {
    /// Text (a path, an id, a result, a message).
    Text(String),
    /// A count or an exit code.
    Count(u64),
    /// Nothing (no tier, no counts for a run without a verdict, no message).
    Empty,
}

impl Cell {
    fn text(text: &str) -> Cell {
        Cell::Text(text.to_owned())
    }

    /// The CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text a
    /// spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return)
    /// is prefixed with `'` (OWASP's advice against CSV injection): attack ids and trace names are
    /// attacker text.
    pub fn csv(&self) -> String {
        let text = match self {
            Cell::Text(text) => text,
            Cell::Count(n) => return n.to_string(),
            Cell::Empty => return String::new(),
        };
        let text = if text.starts_with(FORMULA_STARTS) {
            format!("'{text}")
        } else {
            text.clone()
        };
        if text.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text
        }
    }
}

/// The text of a CSV field that [`Cell::csv`] wrote (already unquoted by a CSV reader): without the
/// `'` that prefixes text a spreadsheet would run as a formula. Text that itself began with `'`
/// and one of those characters reads back without its `'` too (the prefix makes the two alike).
///
/// ```
/// use oatf_report::campaign::{Cell, csv_text};
/// assert_eq!(Cell::Text("@model".into()).csv(), "'@model");
/// assert_eq!(csv_text("'@model"), "@model");
/// assert_eq!(csv_text("'quoted'"), "'quoted'");
/// ```
pub fn csv_text(field: &str) -> &str {
    match field.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => field,
    }
}

/// The first characters of text a spreadsheet runs as a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// How a run ended.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum RunOutcome<'a> {
    /// The trace was read: its verdict and what was read.
    Verdict(&'a AttackVerdict, &'a TraceStats),
    /// The trace could not be opened or read ([`EXIT_NO_INPUT`]); `reason` says why. The row's
    /// message is `cannot read TRACE: REASON`.
    Unreadable {
        /// Why, for example `cannot open the file: No such file or directory (os error 2)`.
        reason: &'a str,
    },
    /// No verdict for another reason, with the run's exit code and the whole message.
    Failed {
        /// The exit code of the run ([`EXIT_USAGE`], [`EXIT_INVALID_DOCUMENT`], [`EXIT_NO_INPUT`]).
        exit_code: u8,
        /// What went wrong.
        message: &'a str,
    },
}

impl RunOutcome<'_> {
    /// The exit code of the run: [`run_exit_code`] of the verdict (so `--strict`, set in
    /// [`TraceStats::strict`], counts), else the failure's.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunOutcome::Verdict(verdict, stats) => run_exit_code(verdict, stats),
            RunOutcome::Unreadable { .. } => EXIT_NO_INPUT,
            RunOutcome::Failed { exit_code, .. } => *exit_code,
        }
    }
}

/// How bad a run's exit code is, for "the worst run" of a campaign, an attack or a cell of the
/// matrix ([`crate::matrix`]): an invalid document or an unreadable input first (the campaign itself is
/// broken), then `boundary_breach` (3), `local_action` (2), `ingested` or no tier (1), partial
/// without tier (4), error (5), not_exploited with warnings under `--strict` (6), and not_exploited
/// (0) last. A higher rank is worse.
///
/// ```
/// use oatf_report::campaign::severity_rank;
/// assert!(severity_rank(3) > severity_rank(2));
/// assert!(severity_rank(1) > severity_rank(4)); // exploited beats partial without tier
/// assert!(severity_rank(66) > severity_rank(3));
/// ```
pub fn severity_rank(code: u8) -> u8 {
    match code {
        EXIT_INVALID_DOCUMENT | EXIT_NO_INPUT | EXIT_USAGE => 9,
        3 => 6,
        2 => 5,
        1 => 4,
        4 => 3,
        5 => 2,
        crate::EXIT_STRICT_WARNINGS => 1,
        _ => 0,
    }
}

/// The message of a run whose document could not be loaded (its diagnostics were reported with the
/// document).
pub const DOCUMENT_NOT_LOADED: &str = "the document could not be loaded";

/// The `attack_id` column of a document: its `attack.id`, else the document as the campaign names
/// it; for a document that could not be loaded, `DOCUMENT (not loaded)`.
pub fn attack_label(document: &str, loaded: bool, attack_id: Option<&str>) -> String {
    match (loaded, attack_id) {
        (false, _) => format!("{document} (not loaded)"),
        (true, Some(id)) => id.to_owned(),
        (true, None) => document.to_owned(),
    }
}

/// The message of a run whose trace could not be read: `cannot read TRACE: REASON`.
pub fn unreadable_message(trace: &str, reason: &str) -> String {
    format!("cannot read {trace}: {reason}")
}

/// The row of one run, one [`Cell`] per [`CSV_COLUMNS`] entry. `document` and `trace` name the
/// inputs as the campaign was given them; `attack_id` is the document's `attack.id` (or what the
/// caller shows without one); `group` is the run's group (a manifest's `group:`, for example the
/// model that produced the trace), empty without one.
pub fn campaign_row(
    document: &str,
    attack_id: &str,
    trace: &str,
    group: Option<&str>,
    outcome: RunOutcome<'_>,
) -> Vec<Cell> {
    let mut row = vec![
        Cell::text(document),
        Cell::text(attack_id),
        Cell::text(trace),
    ];
    let code = Cell::Count(u64::from(outcome.exit_code()));
    match outcome {
        RunOutcome::Verdict(verdict, stats) => {
            let s = &verdict.evaluation_summary;
            let count = |n: usize| Cell::Count(n as u64);
            row.extend([
                Cell::text(verdict.result.as_str()),
                verdict
                    .max_tier
                    .map_or(Cell::Empty, |t| Cell::text(t.as_str())),
                code,
                count(s.matched),
                count(s.not_matched),
                count(s.error),
                count(s.skipped),
                Cell::Count(stats.messages),
                Cell::Count(stats.malformed),
                verdict
                    .diagnostic
                    .as_deref()
                    .map_or(Cell::Empty, Cell::text),
                warnings_cell(verdict, stats),
            ]);
        }
        RunOutcome::Unreadable { reason } => {
            failed(&mut row, code, unreadable_message(trace, reason));
        }
        RunOutcome::Failed { message, .. } => failed(&mut row, code, message.to_owned()),
    }
    row.push(group.map_or(Cell::Empty, Cell::text));
    row
}

/// The columns after `trace` of a run without a verdict: result `error`, its exit code, no counts,
/// the message, no warnings.
fn failed(row: &mut Vec<Cell>, code: Cell, message: String) {
    row.extend([Cell::text("error"), Cell::Empty, code]);
    row.extend(std::iter::repeat_n(Cell::Empty, 6));
    row.push(Cell::Text(message));
    row.push(Cell::Empty);
}

/// The `warnings` column: every warning of the run ([`warnings`]), joined by `; `.
fn warnings_cell(verdict: &AttackVerdict, stats: &TraceStats) -> Cell {
    let all = warnings(verdict, stats);
    if all.is_empty() {
        return Cell::Empty;
    }
    Cell::Text(
        all.into_iter()
            .map(|w| w.message)
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// The header line of the CSV (without a line break).
pub fn csv_header() -> String {
    CSV_COLUMNS.join(",")
}

/// A row as one CSV line (without a line break).
pub fn csv_line(row: &[Cell]) -> String {
    let mut line = String::with_capacity(128);
    for (i, cell) in row.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        match cell {
            // Counts and plain text without a copy: a campaign writes a row per run.
            Cell::Count(n) => {
                use std::fmt::Write as _;
                let _ = write!(line, "{n}");
            }
            Cell::Empty => {}
            Cell::Text(text)
                if !text.starts_with(['=', '+', '-', '@', '\t', '\r'])
                    && !text.contains([',', '"', '\n', '\r']) =>
            {
                line.push_str(text);
            }
            Cell::Text(_) => line.push_str(&cell.csv()),
        }
    }
    line
}

/// The JSON of one run in a campaign's JSON report (the `runs` of `oatf evaluate --manifest --format
/// json`), pretty-printed as it stands `depth` levels deep in the report (each level two spaces, its
/// first line indented too): `document`, `attack_id`, `trace`, `group`, `exit_code`, then the run's
/// JSON verdict document ([`JsonDocument`](crate::JsonDocument)) as `verdict`, or `error`, the
/// message of a run without a verdict. Written straight from the verdict (D-180): a campaign's
/// workers write their runs' text.
///
/// ```
/// use oatf_report::campaign::{RunOutcome, json_run};
///
/// let failed = RunOutcome::Failed { exit_code: 65, message: "the document could not be loaded" };
/// let text = json_run("a.yaml", "a.yaml (not loaded)", "t.jsonl", None, failed, 1);
/// assert!(text.starts_with("  {\n    \"document\": \"a.yaml\",\n"));
/// assert!(text.ends_with("\n    \"error\": \"the document could not be loaded\"\n  }"));
/// ```
pub fn json_run(
    document: &str,
    attack_id: &str,
    trace: &str,
    group: Option<&str>,
    outcome: RunOutcome<'_>,
    depth: usize,
) -> String {
    let run = JsonRun {
        document,
        attack_id,
        trace,
        group,
        outcome,
    };
    crate::nested::pretty_at_depth(&run, depth)
}

/// One run of a campaign's SARIF log ([`campaign_sarif`](crate::campaign_sarif)), written as it
/// stands in the log: a campaign's workers write their runs and [`sarif_log`] joins them (D-181).
///
/// ```
/// use oatf_report::{CampaignRun, campaign_sarif};
/// use oatf_report::campaign::{sarif_log, sarif_run};
///
/// let run = CampaignRun::Failed { attack_id: "OATF-001", trace: "t.jsonl", message: "gone" };
/// assert_eq!(sarif_log(&[sarif_run(run)]).to_text(), campaign_sarif([run]));
/// ```
pub fn sarif_run(run: crate::CampaignRun<'_>) -> String {
    crate::sarif::campaign_sarif_run(run, None)
}

/// The SARIF log of a campaign from its runs written by [`sarif_run`], in order, as the pieces of its
/// text ([`Joined`]): the text [`campaign_sarif`](crate::campaign_sarif) of the same runs gives.
pub fn sarif_log<S: AsRef<str>>(runs: &[S]) -> Joined<'_, S> {
    crate::sarif::campaign_sarif_log(runs)
}

/// The SARIF log of a campaign of `count` runs around its runs ([`Joining`]), for runs written by
/// [`sarif_run`] and handed over in order as they finish, each dropped once written (D-260): the
/// text [`sarif_log`] gives of the same runs.
///
/// ```
/// use oatf_report::CampaignRun;
/// use oatf_report::campaign::{sarif_log, sarif_log_around, sarif_run};
///
/// let runs: Vec<String> = ["a.jsonl", "b.jsonl"]
///     .map(|trace| sarif_run(CampaignRun::Failed { attack_id: "OATF-001", trace, message: "gone" }))
///     .into();
/// let around = sarif_log_around(runs.len());
/// let mut text: String = around.start().concat();
/// for (i, run) in runs.iter().enumerate() {
///     text.push_str(around.before(i));
///     text.push_str(run);
/// }
/// text.push_str(&around.end().concat());
/// assert_eq!(text, sarif_log(&runs).to_text());
/// ```
pub fn sarif_log_around(count: usize) -> Joining {
    crate::sarif::campaign_sarif_log_around(count)
}

/// A run in a campaign's JSON report ([`json_run`]).
struct JsonRun<'a> {
    document: &'a str,
    attack_id: &'a str,
    trace: &'a str,
    group: Option<&'a str>,
    outcome: RunOutcome<'a>,
}

impl serde::Serialize for JsonRun<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("document", self.document)?;
        map.serialize_entry("attack_id", self.attack_id)?;
        map.serialize_entry("trace", self.trace)?;
        map.serialize_entry("group", &self.group)?;
        map.serialize_entry("exit_code", &self.outcome.exit_code())?;
        match self.outcome {
            RunOutcome::Verdict(verdict, stats) => {
                map.serialize_entry("verdict", &crate::JsonDocument::new(verdict, stats))?;
            }
            RunOutcome::Unreadable { reason } => {
                map.serialize_entry("error", &unreadable_message(self.trace, reason))?;
            }
            RunOutcome::Failed { message, .. } => map.serialize_entry("error", message)?,
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expect: &str) {
        assert_eq!(Cell::text(text).csv(), expect);
    }

    #[test]
    fn csv_fields() {
        check("plain", "plain");
        check("a,b", "\"a,b\"");
        check("say \"x\"\n", "\"say \"\"x\"\"\n\"");
        check("=HYPERLINK(1)", "'=HYPERLINK(1)");
        check("@x,y", "\"'@x,y\"");
        assert_eq!(Cell::Count(7).csv(), "7");
        assert_eq!(Cell::Empty.csv(), "");
    }

    #[test]
    fn a_line_is_its_cells_joined() {
        let row = [
            Cell::text("plain"),
            Cell::text("a,b"),
            Cell::text("=1"),
            Cell::text("-x"),
            Cell::text("say \"x\"\n"),
            Cell::Count(42),
            Cell::Empty,
            Cell::text(""),
        ];
        let joined: Vec<String> = row.iter().map(Cell::csv).collect();
        assert_eq!(csv_line(&row), joined.join(","));
        assert_eq!(
            csv_line(&row),
            "plain,\"a,b\",'=1,'-x,\"say \"\"x\"\"\n\",42,,"
        );
        assert_eq!(csv_line(&[]), "");
    }

    #[test]
    fn counts_are_where_count_columns_says() {
        let verdict: AttackVerdict = serde_json::from_value(serde_json::json!({
            "result": "exploited", "max_tier": "local_action", "indicator_verdicts": [],
            "evaluation_summary": {"matched": 1, "not_matched": 2, "error": 0, "skipped": 0},
            "diagnostic": "why"
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let mut stats = TraceStats::new("t.jsonl");
        stats.messages = 9;
        stats.malformed = 1;
        let row = campaign_row(
            "d",
            "A-1",
            "t.jsonl",
            Some("=m"),
            RunOutcome::Verdict(&verdict, &stats),
        );
        for (name, cell) in CSV_COLUMNS.iter().zip(&row) {
            let is_count = matches!(cell, Cell::Count(_));
            assert_eq!(
                is_count,
                COUNT_COLUMNS.contains(name),
                "column {name}: {cell:?}"
            );
        }
        assert_eq!(
            csv_line(&row),
            "d,A-1,t.jsonl,exploited,local_action,2,1,2,0,0,9,1,why,,'=m"
        );
    }

    #[test]
    fn a_failed_run_has_every_column() {
        let row = campaign_row(
            "d.yaml",
            "d.yaml (not loaded)",
            "t.jsonl",
            None,
            RunOutcome::Failed {
                exit_code: EXIT_INVALID_DOCUMENT,
                message: DOCUMENT_NOT_LOADED,
            },
        );
        assert_eq!(row.len(), CSV_COLUMNS.len());
        assert_eq!(
            csv_line(&row),
            "d.yaml,d.yaml (not loaded),t.jsonl,error,,65,,,,,,,the document could not be loaded,,"
        );
    }
}
