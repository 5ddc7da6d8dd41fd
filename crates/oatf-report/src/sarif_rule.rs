//! The parts of a SARIF rule and result that come from an indicator: its level, GitHub's
//! `security-severity`, the rule's name, short description and help (text and Markdown).

use std::collections::HashMap;

use oatf_model::{Document, Tier};

/// The indicators of the document by id (the document is normalized, so every one has its id).
pub(crate) fn indicators_by_id(document: &Document) -> HashMap<&str, &oatf_model::Indicator> {
    document
        .indicators()
        .iter()
        .filter_map(|i| i.id.as_deref().map(|id| (id, i)))
        .collect()
}

/// The SARIF level of an indicator: from its severity (else the attack's), raised by its tier: a
/// `boundary_breach` is always an error, a `local_action` at least a warning.
pub(crate) fn sarif_level(severity: Option<&str>, tier: Option<Tier>) -> &'static str {
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
pub(crate) fn security_severity(severity: Option<&str>, tier: Option<Tier>) -> String {
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

/// A rule's `name`: the indicator id with characters other than letters and digits as `-`.
pub(crate) fn rule_name(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The first sentence of `text` (up to the first `. ` or line break), for `shortDescription`.
pub(crate) fn first_sentence(text: &str) -> &str {
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
pub(crate) fn rule_help(
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
pub(crate) fn md(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        // A `match`, not a search of a string of them: this runs for every character of a rule's help.
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '{'
                | '}'
                | '['
                | ']'
                | '('
                | ')'
                | '<'
                | '>'
                | '#'
                | '+'
                | '!'
                | '|'
                | '~'
        ) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::md;

    #[test]
    fn markdown_escapes_exactly_its_markup_characters() {
        const MARKUP: &str = "\\`*_{}[]()<>#+!|~";
        for c in (' '..='~').chain(['é', '\n', '→']) {
            let expect = if MARKUP.contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            };
            assert_eq!(md(&c.to_string()), expect, "{c:?}");
        }
        assert_eq!(md("a_b [c](d)"), "a\\_b \\[c\\]\\(d\\)");
    }
}
