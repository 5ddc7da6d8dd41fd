//! SARIF 2.1.0 for `oatf validate` ([`validation_sarif`]): one result per diagnostic of a document,
//! its rule described from the rule table ([`Rule`]), so that CI pipelines that lint a threat library
//! show the findings in GitHub code scanning. A parse error without a rule is reported under
//! `parse/<kind>` (`parse/syntax`, `parse/type_mismatch`, `parse/unknown_variant`; SDK §7.1,
//! decision D-86). The findings are [`oatf_model::Finding`]s, the one diagnostic view of the
//! workspace (D-177); [`Finding::rule_id`] owns those ids.

use std::collections::BTreeMap;
use std::path::Path;

use oatf_model::{DiagnosticSeverity, Finding, Rule};
use serde::Serialize;

use crate::artifact::{SRCROOT, file_uri, relative_to_cwd};
use crate::sarif::{
    Artifact, ArtifactLocation, Id, Invocation, Location, Notification, OriginalUriBaseIds,
    OwnedText, PhysicalLocation, Region, UriBase,
};
use crate::sarif_descriptor::{Help, Level, Text};

/// A file `oatf validate` checked: its findings, or why it could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidatedFile {
    /// The file as given (`<stdin>` for standard input); reported relative to the working
    /// directory.
    pub file: String,
    /// Its findings, in the order they are reported.
    pub findings: Vec<Finding>,
    /// Why the file could not be read, if it could not (a tool notification, not a result; the
    /// reason names the file).
    pub unreadable: Option<String>,
}

impl ValidatedFile {
    /// A file without findings yet.
    pub fn new(file: impl Into<String>) -> Self {
        ValidatedFile {
            file: file.into(),
            findings: Vec::new(),
            unreadable: None,
        }
    }

    /// A file that could not be read, and why.
    pub fn unreadable(file: impl Into<String>, reason: impl Into<String>) -> Self {
        ValidatedFile {
            unreadable: Some(reason.into()),
            ..ValidatedFile::new(file)
        }
    }

    /// The file with `findings` added.
    pub fn with_findings(mut self, findings: impl IntoIterator<Item = Finding>) -> Self {
        self.findings.extend(findings);
        self
    }
}

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
    tool: Tool,
    invocations: [Invocation<'a>; 1],
    automation_details: Id,
    original_uri_base_ids: OriginalUriBaseIds,
    column_kind: &'static str,
    artifacts: Vec<Artifact<'a>>,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Descriptor>,
}

/// A rule, from the rule table.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    id: String,
    name: String,
    short_description: OwnedText,
    full_description: OwnedText,
    help: Help,
    default_configuration: Level,
    properties: DescriptorProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DescriptorProperties {
    #[serde(skip_serializing_if = "Option::is_none")]
    spec_section: Option<&'static str>,
    tags: [&'static str; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: OwnedText,
    locations: [ResultLocation<'a>; 1],
    partial_fingerprints: Fingerprints,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultLocation<'a> {
    physical_location: PhysicalLocation<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation<'a> {
    fully_qualified_name: &'a str,
    kind: &'static str,
}

#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "oatfDiagnostic/v1")]
    oatf_diagnostic_v1: String,
}

fn level(severity: DiagnosticSeverity) -> &'static str {
    match severity {
        DiagnosticSeverity::Error => "error",
        _ => "warning",
    }
}

/// The descriptor of `id`: from the rule table, from SDK §7.1 for `parse/<kind>`, else the bare id
/// (a tool-specific code, SDK §7.0).
fn descriptor(id: &str, severity: DiagnosticSeverity) -> Descriptor {
    if let Some(rule) = Rule::from_id(id) {
        let section = rule.spec_section();
        let explain = format!("`oatf explain {}` prints this text.", rule.id());
        return Descriptor {
            id: id.to_owned(),
            name: id.replace('-', ""),
            short_description: OwnedText {
                text: rule.summary().to_owned(),
            },
            full_description: OwnedText {
                text: rule.text().to_owned(),
            },
            help: Help {
                text: format!(
                    "{}\n\nSpecification: OATF v0.1 {section}. {explain}\n",
                    rule.text()
                ),
                markdown: format!(
                    "**{}** ({section})\n\n{}\n\n{explain}\n",
                    rule.id(),
                    rule.text()
                ),
            },
            default_configuration: Level {
                level: level(rule.severity()),
            },
            properties: DescriptorProperties {
                spec_section: Some(section),
                tags: ["oatf-validate"],
            },
        };
    }
    let (summary, text, section) = match id.strip_prefix("parse/") {
        Some(kind) => (
            format!("the document parses into the OATF model ({kind})"),
            match kind {
                "syntax" => {
                    "The document is one YAML 1.2 document within the input limits, without anchors, aliases, merge keys or custom tags."
                }
                "type_mismatch" => {
                    "Every value has the type its field requires, required fields are present, and typed objects have no unknown keys."
                }
                _ => "Every value of an enumeration that parsing must reject is a known member.",
            },
            Some("SDK §7.1"),
        ),
        None => (
            format!("diagnostic {id}"),
            "A diagnostic of this tool (SDK §7.0: SDKs may define additional warning codes).",
            None,
        ),
    };
    Descriptor {
        id: id.to_owned(),
        name: id.replace(['-', '/', '_'], ""),
        short_description: OwnedText {
            text: summary.clone(),
        },
        full_description: OwnedText {
            text: text.to_owned(),
        },
        help: Help {
            text: format!(
                "{text}\n\nSpecification: OATF v0.1 {}.\n",
                section.unwrap_or("SDK §7.0")
            ),
            markdown: format!("**{id}**\n\n{text}\n"),
        },
        default_configuration: Level {
            level: level(severity),
        },
        properties: DescriptorProperties {
            spec_section: section,
            tags: ["oatf-validate"],
        },
    }
}

/// The message of a result: what was found and, when known, the dot-path it is about.
fn message_text(finding: &Finding) -> String {
    match finding.path().filter(|p| !p.is_empty()) {
        Some(path) => format!("{} (at `{path}`)", finding.message()),
        None => finding.message().to_owned(),
    }
}

/// The URI of a checked file: relative to `%SRCROOT%`, `stdin` for standard input.
fn uri_of(file: &str) -> String {
    if file == "<stdin>" {
        "stdin".to_owned()
    } else {
        file_uri(&relative_to_cwd(Path::new(file)))
    }
}

/// SARIF 2.1.0 for `oatf validate`: one result per finding (`ruleId` its V-/W- id, `level` from its
/// severity, the file with line and column, the message with the dot-path), the rules used in
/// `tool.driver.rules` described from the rule table ([`Rule`]: summary, full text, specification
/// section, default level), unreadable files as tool notifications. URIs are relative to
/// `%SRCROOT%` and columns count characters (`columnKind: unicodeCodePoints`).
///
/// ```
/// use oatf_model::{DiagnosticSeverity, Finding};
/// use oatf_report::{ValidatedFile, validation_sarif};
///
/// let mut file = ValidatedFile::new("library/attack.yaml");
/// let finding = Finding::new("V-013", DiagnosticSeverity::Error, "invalid regex");
/// file.findings.push(finding.with_location(12, 20));
/// let sarif: serde_json::Value = serde_json::from_str(&validation_sarif(&[file]))?;
/// let run = &sarif["runs"][0];
/// assert_eq!(run["results"][0]["ruleId"], "V-013");
/// assert_eq!(run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 12);
/// assert_eq!(run["tool"]["driver"]["rules"][0]["properties"]["specSection"], "§6.2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn validation_sarif(files: &[ValidatedFile]) -> String {
    let uris: Vec<String> = files.iter().map(|f| uri_of(&f.file)).collect();
    // Rules in table order (V- before W-), then the others by id; each once.
    let mut used: BTreeMap<(usize, &str), DiagnosticSeverity> = BTreeMap::new();
    for finding in files.iter().flat_map(|f| &f.findings) {
        let order = Rule::from_id(finding.rule_id())
            .and_then(|rule| Rule::ALL.iter().position(|r| *r == rule))
            .unwrap_or(Rule::ALL.len());
        used.entry((order, finding.rule_id()))
            .or_insert(finding.severity());
    }
    let index: BTreeMap<&str, usize> = used
        .keys()
        .enumerate()
        .map(|(i, (_, id))| (*id, i))
        .collect();
    let rules: Vec<Descriptor> = used
        .iter()
        .map(|((_, id), severity)| descriptor(id, *severity))
        .collect();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for (artifact, (file, uri)) in files.iter().zip(&uris).enumerate() {
        if let Some(reason) = &file.unreadable {
            notifications.push(Notification {
                level: "error",
                message: OwnedText {
                    text: reason.clone(),
                },
                locations: Some([Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri,
                            uri_base_id: SRCROOT,
                            index: None,
                        },
                        region: None,
                    },
                }]),
                descriptor: None,
                associated_rule: None,
            });
        }
        for finding in &file.findings {
            let at = finding
                .path()
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .or_else(|| finding.line().map(|l| format!("line {l}")))
                .unwrap_or_else(|| finding.message().to_owned());
            results.push(SarifResult {
                rule_id: finding.rule_id(),
                rule_index: index.get(finding.rule_id()).copied().unwrap_or(0),
                level: level(finding.severity()),
                message: OwnedText {
                    text: message_text(finding),
                },
                locations: [ResultLocation {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri,
                            uri_base_id: SRCROOT,
                            index: Some(artifact),
                        },
                        region: finding.line().map(|line| Region {
                            start_line: line as u64,
                            start_column: finding.column().map(|c| c as u64),
                        }),
                    },
                    logical_locations: finding
                        .path()
                        .filter(|p| !p.is_empty())
                        .map(|path| LogicalLocation {
                            fully_qualified_name: path,
                            kind: "member",
                        })
                        .into_iter()
                        .collect(),
                }],
                // Stable while the finding stays: the rule, the file and the field (else its line,
                // else its message).
                partial_fingerprints: Fingerprints {
                    oatf_diagnostic_v1: format!("{}/{uri}/{at}", finding.rule_id()),
                },
            });
        }
    }
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
                execution_successful: notifications.is_empty(),
                tool_execution_notifications: notifications,
            }],
            automation_details: Id {
                id: "oatf-validate/".to_owned(),
            },
            original_uri_base_ids: OriginalUriBaseIds {
                srcroot: UriBase {
                    description: Text {
                        text: "The directory oatf ran in: the repository root in CI.",
                    },
                },
            },
            column_kind: "unicodeCodePoints",
            artifacts: uris
                .iter()
                .map(|uri| Artifact {
                    location: ArtifactLocation {
                        uri,
                        uri_base_id: SRCROOT,
                        index: None,
                    },
                })
                .collect(),
            results,
        }],
    };
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}
