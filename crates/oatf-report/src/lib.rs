//! Reports of an attack verdict that tools reuse: the JSON verdict document, SARIF 2.1.0, JUnit XML,
//! the exit-code mapping of spec-decisions 24 (ThoughtJack's codes) and the rows of a campaign
//! ([`campaign`]: the CSV of `oatf evaluate --manifest`, and the Python package's campaign rows).
//!
//! `oatf evaluate` only calls these; a tool that evaluates traces itself (a ThoughtJack-like runner)
//! emits the same documents by running the trace through a [`TraceRun`] (which drives the
//! [`TraceEvaluator`](oatf_eval::TraceEvaluator) and fills the [`TraceStats`]: lines, malformed
//! lines, the line of each match), or by filling a [`TraceStats`] itself:
//!
//! ```
//! use oatf_eval::{CompiledAttack, EvalOptions, TraceEvaluator, TraceMessage, TraceDirection};
//! use oatf_model::Document;
//! use oatf_report::{TraceStats, exit_code, json_document};
//! use serde_json::json;
//!
//! let document: Document = serde_json::from_value(json!({"oatf": "0.1", "attack": {
//!     "id": "OATF-900", "execution": {"mode": "mcp_server", "state": {"tools": []}},
//!     "indicators": [{"surface": "tools/call", "target": "arguments.path",
//!                     "pattern": {"contains": ".ssh/id_rsa"}}]}}))?;
//! let attack = CompiledAttack::new(&document, &EvalOptions::new());
//! let mut evaluator = TraceEvaluator::new(&attack);
//! let mut stats = TraceStats::new("run.jsonl");
//! evaluator.push(&TraceMessage::new(TraceDirection::Incoming, "tools/call",
//!     json!({"arguments": {"path": "/home/u/.ssh/id_rsa"}})));
//! stats.lines = 1;
//! stats.messages = evaluator.messages();
//! let verdict = evaluator.finish();
//! assert_eq!(exit_code(&verdict), 1);
//! assert_eq!(json_document(&verdict, &stats)["trace"]["messages"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod campaign;
mod file;
pub mod html;
mod junit;
pub mod matrix;
mod run;
mod sarif;
#[cfg(test)]
mod tests;
mod validation;
pub mod xml;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use oatf_eval::{AttackResult, AttackVerdict, IndicatorResult, TraceWarning, TraceWarningKind};
use oatf_model::{Document, Tier};
use serde_json::{Value, json};

pub use file::open_regular_file;
pub use junit::{junit, junit_suite};
pub use run::{FinishedRun, MAX_KEPT_MALFORMED, MalformedEntry, ReadStep, TraceRun};
pub use sarif::{CampaignRun, campaign_sarif, sarif};
pub use validation::{Finding, ValidatedFile, validation_sarif};

/// The exit code of a verdict (spec-decisions 24, ThoughtJack's codes): 0 `not_exploited`; 1, 2, 3
/// `exploited` with no tier or `ingested`, `local_action`, `boundary_breach`; 4 `partial` without a
/// tier (a tiered partial exits with its tier's code); 5 `error`.
///
/// ```
/// use oatf_eval::{AttackResult, AttackVerdict};
///
/// let verdict: AttackVerdict = serde_json::from_value(serde_json::json!({
///     "result": "not_exploited", "indicator_verdicts": [],
///     "evaluation_summary": {"matched": 0, "not_matched": 1, "error": 0, "skipped": 0}
/// }))?;
/// assert_eq!(verdict.result, AttackResult::NotExploited);
/// assert_eq!(oatf_report::exit_code(&verdict), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn exit_code(verdict: &AttackVerdict) -> u8 {
    let tier_code = |tier: Option<Tier>| match tier {
        None | Some(Tier::Ingested) => 1,
        Some(Tier::LocalAction) => 2,
        Some(Tier::BoundaryBreach) => 3,
    };
    match (verdict.result, verdict.max_tier) {
        (AttackResult::NotExploited, _) => 0,
        (AttackResult::Exploited, tier) => tier_code(tier),
        (AttackResult::Partial, None) => 4,
        (AttackResult::Partial, tier) => tier_code(tier),
        (AttackResult::Error, _) => 5,
    }
}

/// The exit code of a run under `--strict` whose verdict exits 0 (`not_exploited`) although the
/// evaluation had warnings or malformed trace lines (decision D-69): the result may be meaningless.
pub const EXIT_STRICT_WARNINGS: u8 = 6;

/// The exit code of a run under `--strict` (decision D-69): [`exit_code`], except that a run that
/// would exit 0 exits [`EXIT_STRICT_WARNINGS`] (6) when it has [`warnings`] or malformed trace
/// lines. A verdict that already fails keeps its code: the warnings do not hide an exploit.
///
/// ```
/// use oatf_eval::AttackVerdict;
/// use oatf_report::{TraceStats, strict_exit_code};
///
/// let verdict: AttackVerdict = serde_json::from_value(serde_json::json!({
///     "result": "not_exploited", "indicator_verdicts": [],
///     "evaluation_summary": {"matched": 0, "not_matched": 1, "error": 0, "skipped": 0}
/// }))?;
/// let mut stats = TraceStats::new("run.jsonl");
/// assert_eq!(strict_exit_code(&verdict, &stats), 0);
/// stats.silent_actors.push("default".into());
/// assert_eq!(strict_exit_code(&verdict, &stats), 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn strict_exit_code(verdict: &AttackVerdict, stats: &TraceStats) -> u8 {
    match exit_code(verdict) {
        0 if stats.malformed > 0 || !warnings(verdict, stats).is_empty() => EXIT_STRICT_WARNINGS,
        code => code,
    }
}

/// The exit code of a run: [`strict_exit_code`] when [`TraceStats::strict`] is set, else [`exit_code`].
pub fn run_exit_code(verdict: &AttackVerdict, stats: &TraceStats) -> u8 {
    if stats.strict {
        strict_exit_code(verdict, stats)
    } else {
        exit_code(verdict)
    }
}

/// Whether `--strict` turns this run into a failure that the verdict alone is not.
fn strict_failure(verdict: &AttackVerdict, stats: &TraceStats) -> bool {
    stats.strict && exit_code(verdict) == 0 && run_exit_code(verdict, stats) != 0
}

/// The warning for a declared actor that no message of the trace belongs to (spec-decisions 23).
pub fn silent_actor_warning(actor: &str) -> String {
    TraceWarning::actor_without_messages(actor).message
}

/// The warnings of a run (decision D-70): the verdict's
/// ([`AttackVerdict::warnings`](oatf_eval::AttackVerdict::warnings)), and a warning for each actor
/// of [`TraceStats::silent_actors`] the verdict does not name already.
pub fn warnings(verdict: &AttackVerdict, stats: &TraceStats) -> Vec<TraceWarning> {
    let mut warnings = verdict.warnings.clone();
    for actor in &stats.silent_actors {
        let named = warnings.iter().any(|w| {
            w.kind == TraceWarningKind::ActorWithoutMessages && w.actor.as_deref() == Some(actor)
        });
        if !named {
            warnings.push(TraceWarning::actor_without_messages(actor));
        }
    }
    warnings
}

/// What was read of a trace besides the messages: the counts and positions the reports show.
///
/// Build it with [`TraceStats::new`] and set the fields while reading the trace.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct TraceStats {
    /// The trace as the reports name it (a path, or `<stdin>`).
    pub name: String,
    /// Messages evaluated ([`TraceEvaluator::messages`](oatf_eval::TraceEvaluator::messages)).
    pub messages: u64,
    /// Lines read, malformed ones included.
    pub lines: u64,
    /// Lines that were not a trace message.
    pub malformed: u64,
    /// Messages not evaluated because they came after the grace period (format §6).
    pub after_grace: u64,
    /// Declared actors without any message in the trace.
    pub silent_actors: Vec<String>,
    /// Warnings and malformed lines fail the run (`oatf evaluate --strict`, decision D-69): the
    /// exit code is [`strict_exit_code`], and the reports say so.
    pub strict: bool,
    /// Indicator id → line of the message that matched it.
    pub matched_lines: HashMap<String, u64>,
    /// The compatibility profile the trace was scored with (D-100); the JSON report names it when
    /// it is not the default.
    pub compat: oatf_eval::Compat,
}

impl TraceStats {
    /// Empty statistics for the trace called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        TraceStats {
            name: name.into(),
            ..TraceStats::default()
        }
    }

    /// Sets [`silent_actors`](Self::silent_actors) from `evaluator` (call it after setting
    /// [`messages`](Self::messages)): the declared actors without any message, when the trace had
    /// messages. Without any message the verdict is `error` already and naming every actor adds
    /// nothing. Every binding (CLI, Python, JavaScript) records it through here, so their rows and
    /// reports agree.
    pub fn record_silent_actors(&mut self, evaluator: &oatf_eval::TraceEvaluator<'_>) {
        self.silent_actors = if self.messages > 0 {
            evaluator.silent_actors().map(str::to_owned).collect()
        } else {
            Vec::new()
        };
    }
}

/// The indicators of the document by id (the document is normalized, so every one has its id).
fn indicators_by_id(document: &Document) -> HashMap<&str, &oatf_model::Indicator> {
    document
        .indicators()
        .iter()
        .filter_map(|i| i.id.as_deref().map(|id| (id, i)))
        .collect()
}

/// The `trace` object of the JSON verdict document.
fn trace_json(stats: &TraceStats) -> Value {
    let mut matched: Vec<(&String, &u64)> = stats.matched_lines.iter().collect();
    matched.sort();
    let matched: serde_json::Map<String, Value> = matched
        .into_iter()
        .map(|(id, line)| (id.clone(), json!(line)))
        .collect();
    let mut trace = json!({
        "file": stats.name,
        "lines": stats.lines,
        "messages": stats.messages,
        "malformed_lines": stats.malformed,
        "after_grace_period": stats.after_grace,
        "matched_lines": matched,
        "verdict_from_partial_trace": stats.malformed > 0,
        "actors_without_messages": stats.silent_actors,
    });
    if stats.compat != oatf_eval::Compat::SpecExact
        && let Some(object) = trace.as_object_mut()
    {
        object.insert("compat".to_owned(), json!(stats.compat.as_str()));
    }
    trace
}

/// The warnings of a run ([`warnings`]) as objects: `kind` (and `code`, its older name),
/// `indicator_id`, `actor`, `path`, `suggestion` when they apply, and `message`.
fn warnings_json(verdict: &AttackVerdict, stats: &TraceStats) -> Vec<Value> {
    warnings(verdict, stats)
        .iter()
        .map(|warning| {
            let mut value = serde_json::to_value(warning).unwrap_or(Value::Null);
            if let Some(object) = value.as_object_mut() {
                object.insert("code".to_owned(), json!(warning.kind.as_str()));
            }
            value
        })
        .collect()
}

/// The JSON verdict document: the attack verdict (format §9.3) with a `trace` object (file, lines,
/// messages, malformed lines, messages after the grace period, the line each indicator matched at,
/// actors without messages), `warnings` (replacing the verdict's own, with actors of
/// [`TraceStats::silent_actors`] added), `strict` and `exit_code` ([`run_exit_code`]), as
/// `oatf evaluate --format json` writes it.
pub fn json_document(verdict: &AttackVerdict, stats: &TraceStats) -> Value {
    let mut value = serde_json::to_value(verdict).unwrap_or(Value::Null);
    if let Some(object) = value.as_object_mut() {
        object.insert("trace".to_owned(), trace_json(stats));
        object.insert(
            "warnings".to_owned(),
            Value::Array(warnings_json(verdict, stats)),
        );
        object.insert("strict".to_owned(), json!(stats.strict));
        object.insert("exit_code".to_owned(), json!(run_exit_code(verdict, stats)));
    }
    value
}

/// [`json_document`] as pretty-printed text ending with a line break.
pub fn json_report(verdict: &AttackVerdict, stats: &TraceStats) -> String {
    let value = json_document(verdict, stats);
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The SARIF level of an indicator: from its severity (else the attack's), raised by its tier: a
/// `boundary_breach` is always an error, a `local_action` at least a warning.
fn sarif_level(severity: Option<&str>, tier: Option<Tier>) -> &'static str {
    let by_severity = match severity {
        Some("critical" | "high") | None => "error",
        Some("medium") => "warning",
        _ => "note",
    };
    let floor = match tier {
        Some(Tier::BoundaryBreach) => "error",
        Some(Tier::LocalAction) => "warning",
        Some(Tier::Ingested) | None => "note",
    };
    let rank = |level: &str| match level {
        "note" => 0,
        "warning" => 1,
        _ => 2,
    };
    if rank(floor) > rank(by_severity) {
        floor
    } else {
        by_severity
    }
}

/// GitHub code scanning's `security-severity` (0.0–10.0) of an indicator: from its severity, raised
/// by its tier to at least 9.0 (`boundary_breach`), 7.0 (`local_action`) or 4.0 (`ingested`).
fn security_severity(severity: Option<&str>, tier: Option<Tier>) -> String {
    let by_severity: f64 = match severity {
        Some("critical") => 9.5,
        Some("high") | None => 8.0,
        Some("medium") => 5.5,
        Some("low") => 3.0,
        _ => 1.0,
    };
    let floor = match tier {
        Some(Tier::BoundaryBreach) => 9.0,
        Some(Tier::LocalAction) => 7.0,
        Some(Tier::Ingested) => 4.0,
        None => 0.0,
    };
    format!("{:.1}", by_severity.max(floor))
}

/// A relative or absolute file path as a URI reference (`/` separators, reserved bytes escaped).
fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(char::from(byte));
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

/// The base of every artifact URI: GitHub code scanning resolves it to the repository root.
const SRCROOT: &str = "%SRCROOT%";

/// `path` relative to the working directory when it lies below it (an absolute path of the machine
/// never reaches a report); otherwise as given, or its file name when it is absolute.
fn relative_to_cwd(path: &Path) -> PathBuf {
    if path.is_relative() {
        return path
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
    }
    let below = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    below.unwrap_or_else(|| path.file_name().map(PathBuf::from).unwrap_or_default())
}

/// A rule's `name`: the indicator id with characters other than letters and digits as `-`.
fn rule_name(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The first sentence of `text` (up to the first `. ` or line break), for `shortDescription`.
fn first_sentence(text: &str) -> &str {
    let end = text
        .find(". ")
        .map(|i| i + 1)
        .into_iter()
        .chain(text.find('\n'))
        .min()
        .unwrap_or(text.len());
    text[..end].trim()
}

/// A rule's `help` as text and Markdown: the indicator's description and scope, the attack's id,
/// name and description, and its framework mappings.
fn rule_help(
    document: &Document,
    indicator: Option<&oatf_model::Indicator>,
    id: &str,
) -> (String, String) {
    let attack = document.attack.as_ref();
    let attack_id = attack.and_then(|a| a.id.as_deref()).unwrap_or("(no id)");
    let attack_name = attack.and_then(|a| a.name.as_deref()).unwrap_or("Untitled");
    let mut text = String::new();
    let mut markdown = String::new();
    let indicator_description = indicator
        .and_then(|i| i.description.as_deref())
        .unwrap_or("This indicator of the attack matched the agent's traffic.");
    text.push_str(&format!("Indicator {id}: {indicator_description}\n"));
    markdown.push_str(&format!(
        "**Indicator {}**: {}\n",
        md(id),
        md(indicator_description)
    ));
    if let Some(indicator) = indicator {
        let scope: Vec<String> = [
            indicator
                .protocol
                .as_deref()
                .map(|p| format!("protocol {p}")),
            indicator.surface.as_deref().map(|s| format!("surface {s}")),
            Some(format!("target {}", indicator.target)),
        ]
        .into_iter()
        .flatten()
        .collect();
        text.push_str(&format!("Observed: {}.\n", scope.join(", ")));
        markdown.push_str(&format!("\nObserved: {}.\n", md(&scope.join(", "))));
    }
    text.push_str(&format!("\nAttack {attack_id}: {attack_name}\n"));
    markdown.push_str(&format!(
        "\n### Attack {}: {}\n",
        md(attack_id),
        md(attack_name)
    ));
    if let Some(description) = attack.and_then(|a| a.description.as_deref()) {
        text.push_str(&format!("{}\n", description.trim_end()));
        markdown.push_str(&format!("\n{}\n", md(description.trim_end())));
    }
    let mappings = attack
        .and_then(|a| a.classification.as_ref())
        .and_then(|c| c.mappings.as_ref())
        .filter(|m| !m.is_empty());
    if let Some(mappings) = mappings {
        text.push_str("\nFramework mappings:\n");
        markdown.push_str("\n#### Framework mappings\n\n");
        for mapping in mappings {
            let name = mapping
                .name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            text.push_str(&format!("- {} {}{name}\n", mapping.framework, mapping.id));
            let entry = format!("{}{}", md(&mapping.id), md(&name));
            let entry = match &mapping.url {
                Some(url) if url.starts_with("https://") => {
                    format!("[{entry}](<{}>)", url.replace(['<', '>', '\n'], ""))
                }
                _ => entry,
            };
            markdown.push_str(&format!("- {}: {entry}\n", md(&mapping.framework)));
        }
    }
    (text, markdown)
}

/// Text for Markdown: characters Markdown would read as markup or HTML are backslash-escaped.
fn md(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\`*_{}[]()<>#+!|~".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}
