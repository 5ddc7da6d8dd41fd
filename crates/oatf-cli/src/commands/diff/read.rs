//! Reading a campaign report that `oatf evaluate` wrote: its JSON (`runs`), its CSV (the columns of
//! `oatf::report::campaign`, found by name, so a CSV without the `group` column of older versions
//! reads too), or the JSON of a single evaluation. Errors name the file and the line.

use std::fmt;
use std::io::Read as _;
use std::path::Path;

use oatf::{AttackResult, Tier};
use serde::Deserialize;

/// The largest report read, in bytes: a campaign of many thousand runs with their evidence fits.
pub(super) const MAX_REPORT_BYTES: u64 = 1 << 30;

/// What a diff needs of one run of a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ReportRun {
    pub(super) attack_id: String,
    pub(super) trace: String,
    pub(super) group: Option<String>,
    pub(super) result: AttackResult,
    pub(super) max_tier: Option<Tier>,
}

/// A report that cannot be read or is not one of `oatf evaluate`: the file, where, and why.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ReportError {
    pub(super) file: String,
    pub(super) line: Option<u64>,
    pub(super) column: Option<u64>,
    pub(super) message: String,
}

impl ReportError {
    fn new(file: &str, line: Option<u64>, column: Option<u64>, message: impl Into<String>) -> Self {
        ReportError {
            file: file.to_owned(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// What is expected, for errors about a file that is not a report.
const EXPECTED: &str =
    "expected a report of `oatf evaluate`: its JSON (`--format json`) or CSV (`--format csv`)";

/// Reads the report at `path`.
pub(super) fn read_report(path: &Path) -> Result<Vec<ReportRun>, ReportError> {
    let file = path.display().to_string();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_REPORT_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| ReportError::new(&file, None, None, format!("cannot read the file: {e}")))?;
    if bytes.len() as u64 > MAX_REPORT_BYTES {
        return Err(ReportError::new(
            &file,
            None,
            None,
            format!("larger than the limit of {MAX_REPORT_BYTES} bytes"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() as u64 + 1;
        ReportError::new(&file, Some(line), None, "not valid UTF-8")
    })?;
    parse_report(&file, &text)
}

/// Parses a report's text; `file` names it in errors.
pub(super) fn parse_report(file: &str, text: &str) -> Result<Vec<ReportRun>, ReportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match text.trim_start().chars().next() {
        Some('{') => parse_json(file, text),
        Some(_) => parse_csv(file, text),
        None => Err(ReportError::new(
            file,
            None,
            None,
            format!("empty file; {EXPECTED}"),
        )),
    }
}

fn json_error(file: &str, e: &serde_json::Error) -> ReportError {
    // serde_json's message ends with " at line L column C", which the location already says.
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m)
        .to_owned();
    ReportError::new(
        file,
        Some(e.line() as u64),
        Some(e.column() as u64),
        message,
    )
}

/// The keys that tell the two JSON reports apart.
#[derive(Deserialize)]
struct Shape {
    #[serde(default)]
    runs: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    result: Option<serde::de::IgnoredAny>,
    /// SARIF's `version` (a SARIF log also has `runs`).
    #[serde(default)]
    version: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct CampaignJson {
    runs: Vec<CampaignJsonRun>,
}

#[derive(Deserialize)]
struct CampaignJsonRun {
    attack_id: String,
    trace: String,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    verdict: Option<JsonVerdict>,
}

#[derive(Deserialize)]
struct JsonVerdict {
    result: AttackResult,
    #[serde(default)]
    max_tier: Option<Tier>,
}

#[derive(Deserialize)]
struct SingleJson {
    #[serde(default)]
    attack_id: Option<String>,
    result: AttackResult,
    #[serde(default)]
    max_tier: Option<Tier>,
    trace: SingleTrace,
}

#[derive(Deserialize)]
struct SingleTrace {
    file: String,
}

fn parse_json(file: &str, text: &str) -> Result<Vec<ReportRun>, ReportError> {
    let shape: Shape = serde_json::from_str(text).map_err(|e| json_error(file, &e))?;
    if shape.runs.is_some() && shape.version.is_some() {
        return Err(ReportError::new(
            file,
            Some(1),
            None,
            format!("a SARIF log, not a campaign report; {EXPECTED}"),
        ));
    }
    if shape.runs.is_some() {
        let report: CampaignJson = serde_json::from_str(text).map_err(|e| json_error(file, &e))?;
        return Ok(report
            .runs
            .into_iter()
            .map(|run| {
                // A run without a verdict (its `error` says why) is an `error` result without tier.
                let (result, max_tier) = run
                    .verdict
                    .map_or((AttackResult::Error, None), |v| (v.result, v.max_tier));
                ReportRun {
                    attack_id: run.attack_id,
                    trace: run.trace,
                    group: run.group,
                    result,
                    max_tier,
                }
            })
            .collect());
    }
    if shape.result.is_some() {
        let run: SingleJson = serde_json::from_str(text).map_err(|e| json_error(file, &e))?;
        return Ok(vec![ReportRun {
            attack_id: run.attack_id.unwrap_or_default(),
            trace: run.trace.file,
            group: None,
            result: run.result,
            max_tier: run.max_tier,
        }]);
    }
    Err(ReportError::new(
        file,
        Some(1),
        None,
        format!(
            "a JSON object without `runs` (a campaign) or `result` (one evaluation); {EXPECTED}"
        ),
    ))
}

/// The columns a CSV report must have.
const REQUIRED_COLUMNS: [&str; 4] = ["attack_id", "trace", "result", "max_tier"];

fn parse_csv(file: &str, text: &str) -> Result<Vec<ReportRun>, ReportError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let csv_error = |e: csv::Error| {
        let line = e.position().map(csv::Position::line);
        let message = match e.kind() {
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => format!("{len} fields where the header has {expected_len}"),
            _ => e.to_string(),
        };
        ReportError::new(file, line, None, message)
    };
    let header = reader.headers().map_err(csv_error)?.clone();
    let column = |name: &str| header.iter().position(|h| h == name);
    let mut indexes = [0; 4];
    for (index, name) in indexes.iter_mut().zip(REQUIRED_COLUMNS) {
        *index = column(name).ok_or_else(|| {
            ReportError::new(
                file,
                Some(1),
                None,
                format!("no column `{name}` in the header; {EXPECTED}"),
            )
        })?;
    }
    let [attack_id, trace, result, max_tier] = indexes;
    let group = column("group");
    let mut runs = Vec::new();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let line = record.position().map(csv::Position::line);
        // Text as it was before `Cell::csv` prefixed formula-like text with `'`.
        let field =
            |index: usize| oatf::report::campaign::csv_text(record.get(index).unwrap_or_default());
        let bad = |name: &str, value: &str, expected: &str| {
            ReportError::new(
                file,
                line,
                None,
                format!(
                    "column `{name}`: `{}` is not {expected}",
                    crate::render::safe_text::escape(value)
                ),
            )
        };
        let result = match field(result) {
            "exploited" => AttackResult::Exploited,
            "partial" => AttackResult::Partial,
            "not_exploited" => AttackResult::NotExploited,
            "error" => AttackResult::Error,
            other => {
                return Err(bad(
                    "result",
                    other,
                    "a result (exploited, partial, not_exploited, error)",
                ));
            }
        };
        let max_tier = match field(max_tier) {
            "" => None,
            "ingested" => Some(Tier::Ingested),
            "local_action" => Some(Tier::LocalAction),
            "boundary_breach" => Some(Tier::BoundaryBreach),
            other => {
                return Err(bad(
                    "max_tier",
                    other,
                    "a tier (ingested, local_action, boundary_breach) or empty",
                ));
            }
        };
        runs.push(ReportRun {
            attack_id: field(attack_id).to_owned(),
            trace: field(trace).to_owned(),
            group: group
                .map(field)
                .filter(|g| !g.is_empty())
                .map(str::to_owned),
            result,
            max_tier,
        });
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_error(text: &str, expect: &str) {
        match parse_report("r", text) {
            Ok(runs) => panic!("read {runs:?}"),
            Err(e) => assert_eq!(e.to_string(), expect),
        }
    }

    fn run(
        attack_id: &str,
        trace: &str,
        group: Option<&str>,
        result: AttackResult,
        max_tier: Option<Tier>,
    ) -> ReportRun {
        ReportRun {
            attack_id: attack_id.to_owned(),
            trace: trace.to_owned(),
            group: group.map(str::to_owned),
            result,
            max_tier,
        }
    }

    #[test]
    fn csv_with_and_without_group() {
        let text = "document,attack_id,trace,result,max_tier,exit_code,matched,not_matched,error,skipped,messages,malformed_lines,message,warnings,group\n\
                    d,A-001,t1,exploited,local_action,2,1,0,0,0,3,0,,,'@m\n\
                    d,A-001,\"t,2\",error,,66,,,,,,,\"cannot read t,2\",,\n";
        assert_eq!(
            parse_report("r", text),
            Ok(vec![
                run(
                    "A-001",
                    "t1",
                    Some("@m"),
                    AttackResult::Exploited,
                    Some(Tier::LocalAction)
                ),
                run("A-001", "t,2", None, AttackResult::Error, None),
            ])
        );
        let old = "attack_id,trace,result,max_tier\nA-001,t1,not_exploited,\n";
        assert_eq!(
            parse_report("r", old),
            Ok(vec![run(
                "A-001",
                "t1",
                None,
                AttackResult::NotExploited,
                None
            )])
        );
    }

    #[test]
    fn json_campaign_and_single_run() {
        let text = r#"{"runs": [
            {"attack_id": "A-001", "trace": "t1", "group": "m", "verdict": {"result": "partial", "max_tier": "ingested"}},
            {"attack_id": "A-001", "trace": "t2", "error": "cannot read t2"}
        ], "attacks": []}"#;
        assert_eq!(
            parse_report("r", text),
            Ok(vec![
                run(
                    "A-001",
                    "t1",
                    Some("m"),
                    AttackResult::Partial,
                    Some(Tier::Ingested)
                ),
                run("A-001", "t2", None, AttackResult::Error, None),
            ])
        );
        let single = r#"{"attack_id": "A-001", "result": "exploited", "max_tier": null, "trace": {"file": "t.jsonl"}}"#;
        assert_eq!(
            parse_report("r", single),
            Ok(vec![run(
                "A-001",
                "t.jsonl",
                None,
                AttackResult::Exploited,
                None
            )])
        );
    }

    #[test]
    fn errors_name_the_line() {
        check_error(
            "",
            "r: empty file; expected a report of `oatf evaluate`: its JSON (`--format json`) or CSV (`--format csv`)",
        );
        check_error(
            "document,trace\nd,t\n",
            "r:1: no column `attack_id` in the header; expected a report of `oatf evaluate`: its JSON (`--format json`) or CSV (`--format csv`)",
        );
        check_error(
            "attack_id,trace,result,max_tier\nA,t,exploited,\nA,u,pwned,\n",
            "r:3: column `result`: `pwned` is not a result (exploited, partial, not_exploited, error)",
        );
        check_error(
            "attack_id,trace,result,max_tier\nA,t,exploited,high\n",
            "r:2: column `max_tier`: `high` is not a tier (ingested, local_action, boundary_breach) or empty",
        );
        check_error(
            "attack_id,trace,result,max_tier\nA,t,exploited\n",
            "r:2: 3 fields where the header has 4",
        );
        check_error(
            "{\"runs\": [\n  {\"attack_id\": \"A\", \"trace\": \"t\",\n   \"verdict\": {\"result\": \"won\"}}]}",
            "r:3:30: unknown variant `won`, expected one of `exploited`, `not_exploited`, `partial`, `error`",
        );
        check_error(
            "{\"runs\": [\n{\"trace\": \"t\"}\n]}",
            "r:2:14: missing field `attack_id`",
        );
        check_error("{\"runs\": [", "r:1:10: EOF while parsing a list");
        check_error(
            "{\"version\": \"2.1.0\", \"runs\": []}",
            "r:1: a SARIF log, not a campaign report; expected a report of `oatf evaluate`: its JSON (`--format json`) or CSV (`--format csv`)",
        );
        check_error(
            "{\"version\": \"2.1.0\"}",
            "r:1: a JSON object without `runs` (a campaign) or `result` (one evaluation); expected a report of `oatf evaluate`: its JSON (`--format json`) or CSV (`--format csv`)",
        );
    }
}
