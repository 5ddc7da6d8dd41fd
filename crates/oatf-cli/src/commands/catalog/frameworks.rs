//! Security frameworks that classification mappings point into (format §4.5): the shipped entry lists
//! and the canonical spelling of entry ids.
//!
//! Canonical means as the OATF spec writes ids (format §4.5): `LLM01`, `MCP-03`, `ASI-01`, `AML.T0051`,
//! `T1195.002`, `CWE-74`. Other spellings of the same entry (`ASI01`, `MCP01:2025`, `cwe-74`) are read
//! as that entry and get a warning naming the canonical spelling.

use serde::Deserialize;

/// The frameworks `--coverage` accepts (the spec's recommended values, `other` excluded).
pub(crate) const KNOWN: &[&str] = &[
    "owasp_llm",
    "owasp_mcp",
    "owasp_agentic",
    "atlas",
    "mitre_attack",
    "cwe",
];

/// A shipped list of the entries of one framework.
#[derive(Debug, Deserialize)]
pub(crate) struct EntryList {
    pub(crate) title: String,
    pub(crate) entries: Vec<Entry>,
}

/// One entry of a shipped list.
#[derive(Debug, Deserialize)]
pub(crate) struct Entry {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) title: Option<String>,
}

/// The shipped entry list of `framework`, for the frameworks that have one.
pub(crate) fn entry_list(framework: &str) -> Option<EntryList> {
    let text = match framework {
        "owasp_llm" => include_str!("../../../data/frameworks/owasp_llm.json"),
        "owasp_mcp" => include_str!("../../../data/frameworks/owasp_mcp.json"),
        "owasp_agentic" => include_str!("../../../data/frameworks/owasp_agentic.json"),
        _ => return None,
    };
    // The lists are checked by a unit test, so a parse failure here cannot happen in a release.
    serde_json::from_str(text).ok()
}

/// The result of reading a mapping id.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Canonical {
    /// The id to index and compare by.
    pub(crate) id: String,
    /// Why the written id deserves a warning, if it does (lowercase, no trailing period).
    pub(crate) warning: Option<String>,
}

/// Reads the id of a mapping of `framework`: the canonical id and a warning when the written form
/// differs from it or does not look like an id of that framework. Unknown frameworks are taken as
/// written (they mean `other`, format §4.5).
pub(crate) fn canonicalize(framework: &str, written: &str) -> Canonical {
    let trimmed = written.trim();
    let parsed = match framework {
        "owasp_llm" => numbered(trimmed, "LLM", "", Some("2025")).ok_or("LLM01"),
        "owasp_mcp" => numbered(trimmed, "MCP", "-", None).ok_or("MCP-03"),
        "owasp_agentic" => numbered(trimmed, "ASI", "-", None).ok_or("ASI-01"),
        "cwe" => cwe(trimmed).ok_or("CWE-74"),
        "atlas" => atlas(trimmed).ok_or("AML.T0051"),
        "mitre_attack" => attack(trimmed).ok_or("T1195.002"),
        _ => {
            return Canonical {
                id: written.to_owned(),
                warning: None,
            };
        }
    };
    match parsed {
        Ok(id) if framework == "owasp_llm" && id.contains(':') => Canonical {
            warning: Some(format!(
                "`{written}` names an entry of another edition of the OWASP LLM list: the shipped \
                 2025 list writes its entries `LLM01` … `LLM10`"
            )),
            id,
        },
        Ok(id) if id == written => Canonical { id, warning: None },
        Ok(id) => Canonical {
            warning: Some(format!(
                "non-canonical {framework} id `{written}`: write `{id}` (format §4.5)"
            )),
            id,
        },
        Err(example) => Canonical {
            id: written.to_owned(),
            warning: Some(format!(
                "`{written}` is not a {framework} id: ids look like `{example}` (format §4.5)"
            )),
        },
    }
}

/// A framework name written in another spelling of a known one (`OWASP-LLM` for `owasp_llm`).
pub(crate) fn framework_spelling(written: &str) -> Option<&'static str> {
    let folded = written.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    KNOWN
        .iter()
        .chain(&["other"])
        .find(|known| **known == folded && **known != written)
        .copied()
}

/// `PREFIX` + optional separator + 1–2 digits + optional `:YEAR` → `PREFIX{sep}NN`. With
/// `edition`, a year other than it is kept (`LLM10:2023` is another list's entry).
fn numbered(text: &str, prefix: &str, separator: &str, edition: Option<&str>) -> Option<String> {
    let upper = text.to_ascii_uppercase();
    let rest = upper.strip_prefix(prefix)?;
    let rest = rest.strip_prefix(['-', '_', ' ', '.']).unwrap_or(rest);
    let (number, year) = match rest.split_once(':') {
        Some((number, year)) => (number, Some(year)),
        None => (rest, None),
    };
    if number.is_empty() || number.len() > 2 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = number.parse().ok()?;
    let id = format!("{prefix}{separator}{n:02}");
    match year {
        None => Some(id),
        Some(year) if year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit()) => {
            match edition {
                Some(edition) if edition != year => Some(format!("{id}:{year}")),
                _ => Some(id),
            }
        }
        Some(_) => None,
    }
}

fn cwe(text: &str) -> Option<String> {
    let upper = text.to_ascii_uppercase();
    let rest = upper.strip_prefix("CWE").unwrap_or(&upper);
    let rest = rest.strip_prefix(['-', '_', ' ', ':']).unwrap_or(rest);
    if rest.is_empty() || rest.len() > 6 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!("CWE-{}", rest.parse::<u32>().ok()?))
}

/// `T1234`, `T1234.001`, `TA0001`.
fn technique(text: &str) -> Option<String> {
    let (kind, rest) = if let Some(rest) = text.strip_prefix("TA") {
        ("TA", rest)
    } else {
        ("T", text.strip_prefix('T')?)
    };
    let (main, sub) = match rest.split_once(['.', '/']) {
        Some((main, sub)) if kind == "T" => (main, Some(sub)),
        Some(_) => return None,
        None => (rest, None),
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(main, 4) {
        return None;
    }
    match sub {
        None => Some(format!("{kind}{main}")),
        Some(sub) if digits(sub, 3) => Some(format!("{kind}{main}.{sub}")),
        Some(_) => None,
    }
}

fn attack(text: &str) -> Option<String> {
    technique(&text.to_ascii_uppercase())
}

fn atlas(text: &str) -> Option<String> {
    let upper = text.to_ascii_uppercase();
    let rest = upper.strip_prefix("AML")?;
    let rest = rest.strip_prefix(['.', '-', '_']).unwrap_or(rest);
    technique(rest).map(|t| format!("AML.{t}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(framework: &str, written: &str, id: &str, warns: bool) {
        let canonical = canonicalize(framework, written);
        assert_eq!(canonical.id, id, "{framework} {written}");
        assert_eq!(
            canonical.warning.is_some(),
            warns,
            "{framework} {written}: {:?}",
            canonical.warning
        );
    }

    #[test]
    fn canonical_spellings() {
        check("owasp_llm", "LLM01", "LLM01", false);
        check("owasp_llm", "LLM01:2025", "LLM01", true);
        check("owasp_llm", "llm-1", "LLM01", true);
        check("owasp_llm", "LLM10:2023", "LLM10:2023", true);
        check("owasp_mcp", "MCP-03", "MCP-03", false);
        check("owasp_mcp", "MCP03", "MCP-03", true);
        check("owasp_mcp", "MCP01:2025", "MCP-01", true);
        check("owasp_agentic", "ASI-01", "ASI-01", false);
        check("owasp_agentic", "ASI01", "ASI-01", true);
        check("owasp_agentic", "goal hijack", "goal hijack", true);
        check("cwe", "CWE-74", "CWE-74", false);
        check("cwe", "cwe74", "CWE-74", true);
        check("cwe", "CWE-074", "CWE-74", true);
        check("atlas", "AML.T0051.002", "AML.T0051.002", false);
        check("atlas", "aml.t0051", "AML.T0051", true);
        check("atlas", "AML.TA0011", "AML.TA0011", false);
        check("mitre_attack", "T1195.002", "T1195.002", false);
        check("mitre_attack", "ta0001", "TA0001", true);
        check("mitre_attack", "T11", "T11", true);
        check("other", "anything at all", "anything at all", false);
        check("owasp_mcp", "MCP-", "MCP-", true);
        check("owasp_mcp", "", "", true);
    }

    #[test]
    fn shipped_lists_parse_and_are_canonical() {
        for framework in ["owasp_llm", "owasp_mcp", "owasp_agentic"] {
            let list = entry_list(framework);
            assert!(list.is_some(), "{framework}");
            let list = list.into_iter().flat_map(|l| l.entries);
            let ids: Vec<String> = list.map(|e| e.id).collect();
            assert_eq!(ids.len(), 10, "{framework}");
            for id in &ids {
                assert_eq!(canonicalize(framework, id).warning, None, "{id}");
            }
        }
    }

    #[test]
    fn framework_names() {
        assert_eq!(framework_spelling("OWASP-LLM"), Some("owasp_llm"));
        assert_eq!(framework_spelling("owasp_llm"), None);
        assert_eq!(framework_spelling("nist"), None);
    }
}
