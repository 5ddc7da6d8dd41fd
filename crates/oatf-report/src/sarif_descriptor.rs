//! A SARIF rule (`reportingDescriptor`) as a run's driver lists it, one per indicator, and a document's
//! rules written once for all of its runs (D-211). `sarif.rs` and `validation.rs` import from here.

use std::collections::HashMap;

use oatf_model::{Document, Tier};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::nested::pretty_at_depth;
use crate::sarif_rule::{
    first_sentence, indicators_by_id, rule_help, rule_name, sarif_level, security_severity,
};

/// A rule: one per indicator.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReportingDescriptor<'a> {
    id: &'a str,
    name: String,
    short_description: Text<'a>,
    full_description: Text<'a>,
    help: Help,
    default_configuration: Level,
    properties: RuleProperties<'a>,
}

#[derive(Serialize)]
pub(crate) struct RuleProperties<'a> {
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
pub(crate) struct Help {
    pub(crate) text: String,
    pub(crate) markdown: String,
}

#[derive(Serialize)]
pub(crate) struct Level {
    pub(crate) level: &'static str,
}

/// What a document's rules are made of: its indicators by id and the attack's severity.
pub(crate) struct RuleSource<'a> {
    pub(crate) document: &'a Document,
    indicators: HashMap<&'a str, &'a oatf_model::Indicator>,
    attack_severity: Option<&'a str>,
}

impl<'a> RuleSource<'a> {
    pub(crate) fn new(document: &'a Document) -> Self {
        Self {
            document,
            indicators: indicators_by_id(document),
            attack_severity: document
                .attack
                .as_ref()
                .and_then(|a| a.severity.as_ref())
                .map(|s| s.level().as_str()),
        }
    }

    /// An indicator's severity, else the attack's.
    pub(crate) fn severity_of(&self, id: &str) -> Option<&'a str> {
        self.indicators
            .get(id)
            .and_then(|i| i.severity.as_ref())
            .map(|s| s.as_str())
            .or(self.attack_severity)
    }

    /// The rule of the indicator `id` whose verdict has `tier`.
    pub(crate) fn rule<'r>(&self, id: &'r str, tier: Option<Tier>) -> ReportingDescriptor<'r>
    where
        'a: 'r,
    {
        let indicator = self.indicators.get(id).copied();
        let description = indicator
            .and_then(|i| i.description.as_deref())
            .unwrap_or(id);
        let (help_text, help_markdown) = rule_help(self.document, indicator, id);
        let severity = self.severity_of(id);
        // GitHub code scanning shows `security` rules as security alerts.
        let properties = match indicator {
            Some(indicator) => RuleProperties {
                severity,
                tier,
                security_severity: security_severity(severity, tier),
                tags: std::iter::once("security")
                    .chain(tier.map(Tier::as_str))
                    .collect(),
                surface: indicator.surface.as_deref(),
                protocol: indicator.protocol.as_deref(),
                false_positives: indicator.false_positives.as_deref(),
            },
            None => RuleProperties {
                severity: None,
                tier: None,
                security_severity: security_severity(severity, tier),
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
                level: sarif_level(severity, tier),
            },
            properties,
        }
    }
}

/// The depth of a rule in a SARIF log: `runs` items are at 2, then `tool`, `driver`, `rules`.
const RULE_DEPTH: usize = 6;

/// The SARIF rules of one document, written once for all of its runs (D-211): a rule depends only on
/// the document, its indicator and the indicator's tier, and writing it (its help in text and
/// Markdown) was most of a campaign run's SARIF.
///
/// `SarifRules::sarif_run` (in `sarif.rs`) writes the run [`campaign::sarif_run`](crate::campaign::sarif_run)
/// writes, byte for byte, taking each rule of the document from here.
///
/// ```
/// use oatf_eval::{CompiledAttack, EvalOptions, TraceEvaluator};
/// use oatf_model::Document;
/// use oatf_report::campaign::{SarifRules, sarif_run};
/// use oatf_report::{CampaignRun, TraceStats};
///
/// let document: Document = serde_json::from_value(serde_json::json!({"oatf": "0.1", "attack": {
///     "id": "OATF-900", "execution": {"mode": "mcp_server", "state": {"tools": []}},
///     "indicators": [{"id": "OATF-900-01", "surface": "tools/call", "target": "arguments.path",
///                     "description": "Reads a key.", "pattern": {"contains": ".ssh/id_rsa"}}]}}))?;
/// let verdict = TraceEvaluator::new(&CompiledAttack::new(&document, &EvalOptions::new())).finish();
/// let stats = TraceStats::new("run.jsonl");
/// let path = std::path::Path::new("run.jsonl");
/// let run = CampaignRun::Verdict { document: &document, verdict: &verdict, stats: &stats, path };
/// let rules = SarifRules::new(&document);
/// assert_eq!(rules.sarif_run(run), sarif_run(run));
/// assert!(rules.sarif_run(run).contains("\"id\": \"OATF-900-01\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SarifRules<'a> {
    pub(crate) source: RuleSource<'a>,
    /// Per indicator id: the tier its rule was written with, and the rule as it stands in the log.
    pub(crate) written: HashMap<&'a str, (Option<Tier>, Box<RawValue>)>,
}

impl std::fmt::Debug for SarifRules<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SarifRules")
            .field("rules", &self.written.len())
            .finish_non_exhaustive()
    }
}

impl<'a> SarifRules<'a> {
    /// Writes the rule of every indicator of `document` (with the tier it declares).
    pub fn new(document: &'a Document) -> Self {
        let source = RuleSource::new(document);
        let written = source
            .indicators
            .iter()
            .filter_map(|(id, indicator)| {
                let tier = indicator.tier.as_ref().and_then(|t| t.known());
                let text = pretty_at_depth(&source.rule(id, tier), RULE_DEPTH);
                // As an item of `rules`: the array writes the first line's indentation.
                let text = text.trim_start_matches(' ').to_owned();
                RawValue::from_string(text)
                    .ok()
                    .map(|raw| (*id, (tier, raw)))
            })
            .collect();
        Self { source, written }
    }
}

/// A rule of a run: written once for its document ([`SarifRules`]), or now.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Rule<'a> {
    Written(&'a RawValue),
    Now(Box<ReportingDescriptor<'a>>),
}
