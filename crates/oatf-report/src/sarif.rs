//! The SARIF 2.1.0 report ([`sarif`](crate::sarif)), written through typed structures: each type
//! below is one SARIF object, its fields in the order they are written, so the report's shape is
//! checked by the compiler and the schema tests guard types, not strings.

use std::collections::HashMap;
use std::path::Path;

use oatf_eval::{AttackResult, AttackVerdict, IndicatorResult};
use oatf_model::{Document, Tier};
use serde::Serialize;

use crate::artifact::{SRCROOT, file_uri, relative_to_cwd};
use crate::exit::{run_exit_code, strict_failure};
use crate::json::TraceJson;
use crate::nested::{Joined, Joining, pretty_at_depth};
use crate::sarif_descriptor::Text;
use crate::sarif_descriptor::{Rule, RuleSource, SarifRules};
use crate::sarif_rule::sarif_level;
use crate::stats::{TraceStats, warnings};

/// The top-level `sarifLog`.
#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<AnyRun<'a>>,
}

impl<'a> Log<'a> {
    fn new(runs: Vec<AnyRun<'a>>) -> Self {
        Self {
            schema: "https://json.schemastore.org/sarif-2.1.0.json",
            version: "2.1.0",
            runs,
        }
    }

    /// The log as pretty-printed JSON, ending with a newline.
    fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// A run of the log: the evaluation of one trace, or (in a campaign) a run that gave no verdict.
#[derive(Serialize)]
#[serde(untagged)]
enum AnyRun<'a> {
    Verdict(Box<Run<'a>>),
    Failed(FailedRun<'a>),
}

/// A campaign run without a verdict: the tool, the failure as an error notification, no results.
#[derive(Serialize)]
struct FailedRun<'a> {
    tool: FailedTool,
    invocations: [Invocation<'a>; 1],
    results: [(); 0],
    properties: FailedRunProperties<'a>,
}

#[derive(Serialize)]
struct FailedTool {
    driver: FailedDriver,
}

/// The driver of a run without a verdict: no rules (there is no indicator verdict to describe).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FailedDriver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
}

#[derive(Serialize)]
struct FailedRunProperties<'a> {
    attack_id: &'a str,
    trace: FailedTrace<'a>,
}

#[derive(Serialize)]
struct FailedTrace<'a> {
    file: &'a str,
}

/// One run of a campaign's SARIF log ([`campaign_sarif`]).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum CampaignRun<'a> {
    /// A run with a verdict: the same run [`sarif`] writes for it.
    Verdict {
        /// The attack's document.
        document: &'a Document,
        /// The verdict of the run.
        verdict: &'a AttackVerdict,
        /// What the run read of its trace.
        stats: &'a TraceStats,
        /// The trace file, named by a URI relative to `%SRCROOT%`.
        path: &'a Path,
    },
    /// A run without a verdict (the document or the trace could not be read): a run whose
    /// invocation failed, with `message` as its error notification.
    Failed {
        /// The attack's id, or the document's file name when it has none.
        attack_id: &'a str,
        /// The trace as the user named it.
        trace: &'a str,
        /// Why there is no verdict.
        message: &'a str,
    },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    invocations: [Invocation<'a>; 1],
    automation_details: Id,
    original_uri_base_ids: OriginalUriBaseIds,
    artifacts: [Artifact<'a>; 1],
    results: Vec<SarifResult<'a>>,
    properties: RunProperties<'a>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
pub(crate) struct OwnedText {
    pub(crate) text: String,
}

#[derive(Serialize)]
pub(crate) struct Id {
    pub(crate) id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Invocation<'a> {
    pub(crate) execution_successful: bool,
    pub(crate) tool_execution_notifications: Vec<Notification<'a>>,
}

/// A tool execution notification: of an evaluation (an indicator in error, a warning), or of
/// validation (a file that could not be read, located at the file).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Notification<'a> {
    pub(crate) level: &'static str,
    pub(crate) message: OwnedText,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) locations: Option<[Location<'a>; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) descriptor: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) associated_rule: Option<Id>,
}

#[derive(Serialize)]
pub(crate) struct OriginalUriBaseIds {
    #[serde(rename = "%SRCROOT%")]
    pub(crate) srcroot: UriBase,
}

#[derive(Serialize)]
pub(crate) struct UriBase {
    pub(crate) description: Text<'static>,
}

#[derive(Serialize)]
pub(crate) struct Artifact<'a> {
    pub(crate) location: ArtifactLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArtifactLocation<'a> {
    pub(crate) uri: &'a str,
    pub(crate) uri_base_id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) index: Option<usize>,
}

/// A result: one per matched indicator.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: OwnedText,
    locations: [Location<'a>; 1],
    partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<ResultProperties>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Location<'a> {
    pub(crate) physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PhysicalLocation<'a> {
    pub(crate) artifact_location: ArtifactLocation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Region {
    pub(crate) start_line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) start_column: Option<u64>,
}

#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "oatfFinding/v1")]
    oatf_finding_v1: String,
}

#[derive(Serialize)]
struct ResultProperties {
    tier: Tier,
}

/// The run's `properties`: the verdict as `oatf evaluate --format json` gives it, in short.
#[derive(Serialize)]
struct RunProperties<'a> {
    attack_id: Option<&'a str>,
    verdict: AttackResult,
    max_tier: Option<Tier>,
    strict: bool,
    exit_code: u8,
    evaluation_summary: Summary,
    trace: TraceJson<'a>,
}

#[derive(Serialize)]
struct Summary {
    matched: usize,
    not_matched: usize,
    error: usize,
    skipped: usize,
}

/// SARIF 2.1.0: one rule per indicator, one result per matched indicator located at the trace line of
/// its message (`path` is the trace file, named by a relative URI), errors and skipped indicators and
/// silent actors as tool notifications. Written for GitHub code scanning: rules with
/// `fullDescription`, `help` (text and Markdown) and a `security` tag, results with stable
/// `partialFingerprints`, the run's `automationDetails.id`, URIs relative to `%SRCROOT%`.
pub fn sarif(
    document: &Document,
    verdict: &AttackVerdict,
    stats: &TraceStats,
    path: &Path,
) -> String {
    let uri = trace_uri(stats, path);
    Log::new(vec![AnyRun::Verdict(Box::new(verdict_run(
        document, verdict, stats, &uri, None,
    )))])
    .to_text()
}

/// A SARIF 2.1.0 log of a campaign (`oatf evaluate --manifest --format sarif`): one run per
/// evaluated pair, each as [`sarif`] writes it, and a failed run for a pair without a verdict.
///
/// ```
/// use oatf_report::{CampaignRun, campaign_sarif};
///
/// let log = campaign_sarif([CampaignRun::Failed {
///     attack_id: "OATF-001",
///     trace: "missing.jsonl",
///     message: "cannot read missing.jsonl",
/// }]);
/// let value: serde_json::Value = serde_json::from_str(&log)?;
/// assert_eq!(value["runs"][0]["invocations"][0]["executionSuccessful"], false);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn campaign_sarif<'a>(runs: impl IntoIterator<Item = CampaignRun<'a>>) -> String {
    // Each document's rules written once (D-211); a document is known by its address, which the
    // borrows of `runs` keep for the whole call.
    let mut rules: HashMap<*const Document, SarifRules<'a>> = HashMap::new();
    let runs: Vec<String> = runs
        .into_iter()
        .map(|run| match run {
            CampaignRun::Verdict { document, .. } => {
                let rules = rules
                    .entry(std::ptr::from_ref(document))
                    .or_insert_with(|| SarifRules::new(document));
                campaign_sarif_run(run, Some(rules))
            }
            CampaignRun::Failed { .. } => campaign_sarif_run(run, None),
        })
        .collect();
    campaign_sarif_log(&runs).to_text()
}

/// One run of a campaign's SARIF log as it stands in the log (pretty-printed, indented to the depth
/// of `runs`): [`campaign_sarif_log`] joins them, so that the workers of a campaign write their own
/// runs (D-181). The rules of a run of `rules`' document are taken from `rules` (D-211).
pub(crate) fn campaign_sarif_run(run: CampaignRun<'_>, rules: Option<&SarifRules<'_>>) -> String {
    match run {
        CampaignRun::Verdict {
            document,
            verdict,
            stats,
            path,
        } => {
            let uri = trace_uri(stats, path);
            let run = AnyRun::Verdict(Box::new(verdict_run(document, verdict, stats, &uri, rules)));
            pretty_at_depth(&run, 2)
        }
        CampaignRun::Failed {
            attack_id,
            trace,
            message,
        } => pretty_at_depth(&AnyRun::Failed(failed_run(attack_id, trace, message)), 2),
    }
}

/// The SARIF log of runs written by [`campaign_sarif_run`], in order: the text
/// `serde_json::to_string_pretty` of the whole log gives.
pub(crate) fn campaign_sarif_log<S: AsRef<str>>(runs: &[S]) -> Joined<'_, S> {
    let (head, tail) = campaign_sarif_ends();
    Joined::new(head, runs, 1, tail)
}

/// The SARIF log of `count` runs around them, for runs written by [`campaign_sarif_run`] and
/// handed over one after the other: the text [`campaign_sarif_log`] gives of the same runs.
pub(crate) fn campaign_sarif_log_around(count: usize) -> Joining {
    let (head, tail) = campaign_sarif_ends();
    Joining::new(head, count, 1, tail)
}

/// The text of a campaign's SARIF log before its `runs` array and after it.
fn campaign_sarif_ends() -> (String, String) {
    // The log without runs ends with its empty `runs`, the last key at its depth.
    let skeleton = Log::new(Vec::new()).to_text();
    match skeleton.rsplit_once("[]") {
        Some((head, tail)) => (head.to_owned(), tail.to_owned()),
        None => (skeleton, String::new()),
    }
}

/// The run of a campaign pair without a verdict.
fn failed_run<'a>(attack_id: &'a str, trace: &'a str, message: &str) -> FailedRun<'a> {
    FailedRun {
        tool: FailedTool {
            driver: FailedDriver {
                name: "oatf",
                version: env!("CARGO_PKG_VERSION"),
                information_uri: "https://oatf.io",
            },
        },
        invocations: [Invocation {
            execution_successful: false,
            tool_execution_notifications: vec![Notification {
                level: "error",
                message: OwnedText {
                    text: message.to_owned(),
                },
                locations: None,
                descriptor: None,
                associated_rule: None,
            }],
        }],
        results: [],
        properties: FailedRunProperties {
            attack_id,
            trace: FailedTrace { file: trace },
        },
    }
}

/// The trace file as SARIF names it: a URI relative to `%SRCROOT%`, `stdin` for standard input.
fn trace_uri(stats: &TraceStats, path: &Path) -> String {
    if stats.name == "<stdin>" {
        "stdin".to_owned()
    } else {
        file_uri(&relative_to_cwd(path))
    }
}

impl<'a> SarifRules<'a> {
    /// The run of the campaign's SARIF log, as [`campaign::sarif_run`](crate::campaign::sarif_run)
    /// writes it; a run of another document is written without these rules.
    pub fn sarif_run(&self, run: CampaignRun<'_>) -> String {
        campaign_sarif_run(run, Some(self))
    }
}

/// The run of one evaluated trace; its rules from `written` when they are `document`'s.
fn verdict_run<'a>(
    document: &'a Document,
    verdict: &'a AttackVerdict,
    stats: &'a TraceStats,
    uri: &'a str,
    written: Option<&'a SarifRules<'_>>,
) -> Run<'a> {
    let written = written.filter(|w| std::ptr::eq(w.source.document, document));
    let own;
    let source = match written {
        Some(written) => &written.source,
        None => {
            own = RuleSource::new(document);
            &own
        }
    };
    let rules: Vec<Rule<'_>> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| {
            let id = v.indicator_id.as_str();
            match written.and_then(|w| w.written.get(id)) {
                Some((tier, rule)) if *tier == v.tier => Rule::Written(rule),
                _ => Rule::Now(Box::new(source.rule(id, v.tier))),
            }
        })
        .collect();
    let severity_of = |id: &str| source.severity_of(id);
    let attack_id = verdict.attack_id.as_deref().unwrap_or("oatf");
    let results: Vec<SarifResult<'_>> = verdict
        .indicator_verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| v.result == IndicatorResult::Matched)
        .map(|(index, v)| {
            let text = match &v.evidence {
                Some(evidence) => format!("indicator {} matched: {evidence}", v.indicator_id),
                None => format!("indicator {} matched", v.indicator_id),
            };
            SarifResult {
                rule_id: &v.indicator_id,
                rule_index: index,
                level: sarif_level(severity_of(&v.indicator_id), v.tier),
                message: OwnedText { text },
                locations: [Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri,
                            uri_base_id: SRCROOT,
                            index: Some(0),
                        },
                        region: stats.matched_lines.get(&v.indicator_id).map(|&start_line| {
                            Region {
                                start_line,
                                start_column: None,
                            }
                        }),
                    },
                }],
                // Stable across runs: the same alert for the same attack, indicator and trace.
                partial_fingerprints: Fingerprints {
                    oatf_finding_v1: format!("{attack_id}/{}/{uri}", v.indicator_id),
                },
                properties: v.tier.map(|tier| ResultProperties { tier }),
            }
        })
        .collect();
    let notifications: Vec<Notification<'_>> = verdict
        .indicator_verdicts
        .iter()
        .filter(|v| matches!(v.result, IndicatorResult::Error | IndicatorResult::Skipped))
        .map(|v| Notification {
            level: if v.result == IndicatorResult::Error {
                "error"
            } else {
                "note"
            },
            message: OwnedText {
                text: format!(
                    "indicator {} {}: {}",
                    v.indicator_id,
                    v.result,
                    v.evidence.as_deref().unwrap_or("")
                ),
            },
            locations: None,
            descriptor: None,
            associated_rule: Some(Id {
                id: v.indicator_id.clone(),
            }),
        })
        .chain(warnings(verdict, stats).into_iter().map(|warning| {
            // Under `--strict` a warning fails the run, so it is an error (decision D-69).
            Notification {
                level: if stats.strict { "error" } else { "warning" },
                message: OwnedText {
                    text: warning.message,
                },
                locations: None,
                descriptor: Some(Id {
                    id: warning.kind.as_str().to_owned(),
                }),
                associated_rule: warning.indicator_id.map(|id| Id { id }),
            }
        }))
        .collect();
    let s = &verdict.evaluation_summary;
    Run {
        tool: Tool {
            driver: Driver {
                name: "oatf",
                version: env!("CARGO_PKG_VERSION"),
                information_uri: "https://oatf.io",
                rules,
            },
        },
        invocations: [Invocation {
            execution_successful: verdict.result != AttackResult::Error
                && !strict_failure(verdict, stats),
            tool_execution_notifications: notifications,
        }],
        automation_details: Id {
            id: format!("oatf/{attack_id}/{uri}/"),
        },
        original_uri_base_ids: OriginalUriBaseIds {
            srcroot: UriBase {
                description: Text {
                    text: "The directory oatf ran in: the repository root in CI.",
                },
            },
        },
        artifacts: [Artifact {
            location: ArtifactLocation {
                uri,
                uri_base_id: SRCROOT,
                index: None,
            },
        }],
        results,
        properties: RunProperties {
            attack_id: verdict.attack_id.as_deref(),
            verdict: verdict.result,
            max_tier: verdict.max_tier,
            strict: stats.strict,
            exit_code: run_exit_code(verdict, stats),
            evaluation_summary: Summary {
                matched: s.matched,
                not_matched: s.not_matched,
                error: s.error,
                skipped: s.skipped,
            },
            // The trace as the artifact names it: never an absolute path of this machine.
            trace: TraceJson { stats, file: uri },
        },
    }
}
