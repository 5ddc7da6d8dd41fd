//! The SARIF 2.1.0 report ([`sarif`](crate::sarif)), written through typed structures: each type
//! below is one SARIF object, its fields in the order they are written, so the report's shape is
//! checked by the compiler and the schema tests guard types, not strings.

use serde::Serialize;
use serde_json::Value;

use super::*;

/// The top-level `sarifLog`.
#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    invocations: [Invocation; 1],
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
    rules: Vec<ReportingDescriptor<'a>>,
}

/// A rule: one per indicator.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor<'a> {
    id: &'a str,
    name: String,
    short_description: Text<'a>,
    full_description: Text<'a>,
    help: Help,
    default_configuration: Level,
    properties: RuleProperties<'a>,
}

#[derive(Serialize)]
struct RuleProperties<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    severity: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tier: Option<Tier>,
    #[serde(rename = "security-severity")]
    security_severity: String,
    tags: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    surface: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    false_positives: Option<&'a [String]>,
}

#[derive(Serialize)]
pub(crate) struct Text<'a> {
    pub(crate) text: &'a str,
}

#[derive(Serialize)]
pub(crate) struct OwnedText {
    pub(crate) text: String,
}

#[derive(Serialize)]
pub(crate) struct Help {
    pub(crate) text: String,
    pub(crate) markdown: String,
}

#[derive(Serialize)]
pub(crate) struct Level {
    pub(crate) level: &'static str,
}

#[derive(Serialize)]
pub(crate) struct Id {
    pub(crate) id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: OwnedText,
    #[serde(skip_serializing_if = "Option::is_none")]
    descriptor: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    associated_rule: Option<Id>,
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
    trace: Value,
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
    let attack = document.attack.as_ref();
    let attack_severity = attack
        .and_then(|a| a.severity.as_ref())
        .map(|s| s.level().as_str());
    let indicators = indicators_by_id(document);
    let severity_of = |id: &str| {
        indicators
            .get(id)
            .and_then(|i| i.severity.as_ref())
            .map(|s| s.as_str())
            .or(attack_severity)
    };
    let rules: Vec<ReportingDescriptor<'_>> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| {
            let id = v.indicator_id.as_str();
            let indicator = indicators.get(id).copied();
            let description = indicator
                .and_then(|i| i.description.as_deref())
                .unwrap_or(id);
            let (help_text, help_markdown) = rule_help(document, indicator, id);
            // GitHub code scanning shows `security` rules as security alerts.
            let properties = match indicator {
                Some(indicator) => RuleProperties {
                    severity: severity_of(id),
                    tier: v.tier,
                    security_severity: security_severity(severity_of(id), v.tier),
                    tags: std::iter::once("security")
                        .chain(v.tier.map(Tier::as_str))
                        .collect(),
                    surface: indicator.surface.as_deref(),
                    protocol: indicator.protocol.as_deref(),
                    false_positives: indicator.false_positives.as_deref(),
                },
                None => RuleProperties {
                    severity: None,
                    tier: None,
                    security_severity: security_severity(severity_of(id), v.tier),
                    tags: vec!["security"],
                    surface: None,
                    protocol: None,
                    false_positives: None,
                },
            };
            ReportingDescriptor {
                id,
                name: rule_name(id),
                short_description: Text {
                    text: first_sentence(description),
                },
                full_description: Text { text: description },
                help: Help {
                    text: help_text,
                    markdown: help_markdown,
                },
                default_configuration: Level {
                    level: sarif_level(severity_of(id), v.tier),
                },
                properties,
            }
        })
        .collect();
    let uri = if stats.name == "<stdin>" {
        "stdin".to_owned()
    } else {
        file_uri(&relative_to_cwd(path))
    };
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
                            uri: &uri,
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
    let notifications: Vec<Notification> = verdict
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
                descriptor: Some(Id {
                    id: warning.kind.as_str().to_owned(),
                }),
                associated_rule: warning.indicator_id.map(|id| Id { id }),
            }
        }))
        .collect();
    let s = &verdict.evaluation_summary;
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
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
                    uri: &uri,
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
                trace: trace_json(&TraceStats {
                    // The trace as the artifact names it: never an absolute path of this machine.
                    name: uri.clone(),
                    ..stats.clone()
                }),
            },
        }],
    };
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}
