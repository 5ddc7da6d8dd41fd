//! "Did you mean …?" for misspelt keys and values, in words: the tails of the messages of the parse
//! errors (unknown fields and values) and of validation (closed enumerations, V-005/V-050; modes,
//! protocols, surfaces and events of the bindings registry, W-002, W-003, V-018, V-029). The rule that
//! picks the candidate is `oatf_internal::did_you_mean`, which `oatf-eval` also uses.

use oatf_internal::did_you_mean;

/// `"; did you mean `x`?"` for the closest candidate, or nothing.
pub(crate) fn hint<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    hint_of(did_you_mean(input, candidates))
}

/// The words of [`hint`], written once for every type of candidates (D-220).
fn hint_of(close: Option<&str>) -> String {
    close
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

/// `"; did you mean `x`? expected one of a, b"`, or `"; expected one of a, b"` when no candidate is
/// close: the tail of a message about an unknown key or value.
pub(crate) fn one_of(input: &str, candidates: &[&str]) -> String {
    let list = candidates.join(", ");
    match did_you_mean(input, candidates.iter().copied()) {
        Some(close) => format!("; did you mean `{close}`? expected one of {list}"),
        None => format!("; expected one of {list}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_the_closest_candidate() {
        let keys = ["id", "name", "indicators"];
        assert_eq!(hint("bogus", keys), "");
        assert_eq!(hint("nam", keys), "; did you mean `name`?");
        assert_eq!(
            one_of("nam", &keys),
            "; did you mean `name`? expected one of id, name, indicators"
        );
    }

    #[cfg(feature = "yaml")]
    #[test]
    fn parse_errors_and_validation_messages_suggest() {
        let document = "oatf: \"0.1\"\nattack:\n  name: x\n  severity: hgh\n  execution:\n    mode: mcp_servr\n    state: {}\n  indicaters: []\n";
        let errors = crate::parse(document)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            errors.contains("unknown field `indicaters`")
                && errors.contains("did you mean `indicators`?"),
            "{errors}"
        );

        let document = "oatf: \"0.1\"\nattack:\n  name: x\n  severity: hgh\n  execution:\n    mode: mpc_server\n    state: {}\n  indicators:\n    - {surface: tools/cal, target: arguments, pattern: {contains: a}, protocol: mcp}\n";
        let parsed = crate::parse(document);
        let Ok(parsed) = parsed else {
            panic!("{parsed:?}");
        };
        let result = crate::validate(&parsed);
        let messages: Vec<String> = result
            .errors
            .iter()
            .map(|e| format!("{} {}", e.rule(), e.message()))
            .chain(
                result
                    .warnings
                    .iter()
                    .map(|w| format!("{} {}", w.code(), w.message())),
            )
            .collect();
        let has = |rule: &str, text: &str| {
            messages
                .iter()
                .any(|m| m.starts_with(rule) && m.contains(text))
        };
        assert!(has("V-005", "did you mean `high`?"), "{messages:?}");
        assert!(has("W-002", "did you mean `mcp_server`?"), "{messages:?}");
        assert!(has("V-018", "did you mean `tools/call`?"), "{messages:?}");
    }
}
