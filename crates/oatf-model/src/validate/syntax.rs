//! Where the syntax of regular expressions (V-013, V-042) and JSONPath selectors (V-015) is checked
//! (D-190): by this crate's parsers ([`BuiltInSyntax`], the default), or by a [`SyntaxCheck`] a host
//! installs with [`ValidateOptions::with_syntax_check`](super::ValidateOptions::with_syntax_check) (the
//! npm package's validation module asks its on-demand module, which answers with [`BuiltInSyntax`]).
//! Either way each check is implemented once, here; the validator turns the answers into diagnostics.

/// Answers the syntax questions of V-013, V-042 and V-015. [`BuiltInSyntax`] is the implementation;
/// another checker only decides where it runs, and must answer what it would.
pub trait SyntaxCheck: Send + Sync {
    /// V-013: `Ok(())` when `pattern` is a regular expression the SDK accepts (RE2 syntax under the
    /// SDK's limits); otherwise why not.
    fn regex(&self, pattern: &str) -> Result<(), String>;

    /// V-042: how many explicit capture groups `pattern` has, `None` when it does not parse.
    fn capture_groups(&self, pattern: &str) -> Option<usize>;

    /// V-015: whether `selector` is a JSONPath (RFC 9535) query.
    fn json_path(&self, selector: &str) -> JsonPathSyntax;
}

/// The answer of [`SyntaxCheck::json_path`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonPathSyntax {
    /// The selector parses.
    Valid,
    /// The parser refused it: its message.
    Invalid(String),
    /// Not checked: this build has no JSONPath parser (`oatf-model` without `jsonpath`, D-130); the
    /// validator warns W-015.
    Unchecked,
}

/// The checks of this crate: [`oatf_internal::check_regex`], `regex-syntax`'s count of capture
/// groups, and `serde_json_path` (with the `jsonpath` feature).
///
/// ```
/// use oatf_model::{BuiltInSyntax, JsonPathSyntax, SyntaxCheck};
/// assert_eq!(BuiltInSyntax.capture_groups("key=(\\w+)"), Some(1));
/// assert!(BuiltInSyntax.regex("(?<=a)b").is_err());
/// if cfg!(feature = "jsonpath") {
///     assert_eq!(BuiltInSyntax.json_path("$.tools[0]"), JsonPathSyntax::Valid);
///     assert!(matches!(BuiltInSyntax.json_path("$.["), JsonPathSyntax::Invalid(_)));
/// } else {
///     // Without the feature nothing is checked (W-015 says so).
///     assert_eq!(BuiltInSyntax.json_path("$.["), JsonPathSyntax::Unchecked);
/// }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BuiltInSyntax;

impl BuiltInSyntax {
    /// What [`regex`](SyntaxCheck::regex) answers, when the regex's syntax tree decides it (a syntax
    /// error, or no Unicode class: [`oatf_internal::check_regex_tree`]); `None` when only the
    /// translation of a Unicode class can tell. A checker that keeps the Unicode tables elsewhere
    /// answers the rest from there (the npm validation module, D-190).
    ///
    /// ```
    /// use oatf_model::BuiltInSyntax;
    /// assert_eq!(BuiltInSyntax::regex_from_tree("a+"), Some(Ok(())));
    /// assert_eq!(BuiltInSyntax::regex_from_tree("\\p{Greek}"), None);
    /// ```
    pub fn regex_from_tree(pattern: &str) -> Option<Result<(), String>> {
        oatf_internal::check_regex_tree(pattern).map(|answer| answer.map_err(|e| e.to_string()))
    }
}

impl SyntaxCheck for BuiltInSyntax {
    fn regex(&self, pattern: &str) -> Result<(), String> {
        oatf_internal::check_regex(pattern).map_err(|e| e.to_string())
    }

    fn capture_groups(&self, pattern: &str) -> Option<usize> {
        super::patterns::capture_groups(pattern)
    }

    fn json_path(&self, selector: &str) -> JsonPathSyntax {
        #[cfg(feature = "jsonpath")]
        {
            match serde_json_path::JsonPath::parse(selector) {
                Ok(_) => JsonPathSyntax::Valid,
                Err(e) => JsonPathSyntax::Invalid(e.to_string()),
            }
        }
        #[cfg(not(feature = "jsonpath"))]
        {
            let _ = selector;
            JsonPathSyntax::Unchecked
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::types::Document;
    use crate::validate::{ValidateOptions, validate_with};

    /// A regex at each place one is checked (an indicator's `regex` shorthand and its condition, a
    /// trigger's match predicate, a regex extractor) and a JSONPath extractor: all valid.
    fn document() -> Document {
        let result = Document::from_json_str(
            r#"{"oatf": "0.1", "attack": {
                "execution": {"mode": "mcp_server", "phases": [
                    {"name": "one", "state": {"tools": []},
                     "extractors": [
                        {"name": "a", "source": "request", "type": "regex", "selector": "id=(\\d+)"},
                        {"name": "b", "source": "request", "type": "json_path", "selector": "$.id"}],
                     "trigger": {"event": "tools/call", "match": {"name": {"regex": "^x"}}}},
                    {"name": "two"}]},
                "indicators": [
                    {"surface": "tools/call", "target": "arguments", "pattern": {"regex": "a+"}},
                    {"surface": "tools/call", "target": "arguments",
                     "pattern": {"condition": {"regex": "b+"}}}]}}"#,
        );
        match result {
            Ok(document) => document,
            Err(e) => panic!("{e}"),
        }
    }

    /// Refuses every regex, has no capture group and refuses every JSONPath.
    struct Refusing;

    impl SyntaxCheck for Refusing {
        fn regex(&self, pattern: &str) -> Result<(), String> {
            Err(format!("refused {pattern}"))
        }
        fn capture_groups(&self, _: &str) -> Option<usize> {
            Some(0)
        }
        fn json_path(&self, selector: &str) -> JsonPathSyntax {
            JsonPathSyntax::Invalid(format!("Refused {selector}"))
        }
    }

    /// Accepts every regex, finds no capture group, and checks no JSONPath.
    struct Unchecking;

    impl SyntaxCheck for Unchecking {
        fn regex(&self, _: &str) -> Result<(), String> {
            Ok(())
        }
        fn capture_groups(&self, _: &str) -> Option<usize> {
            Some(0)
        }
        fn json_path(&self, _: &str) -> JsonPathSyntax {
            JsonPathSyntax::Unchecked
        }
    }

    fn findings(options: &ValidateOptions) -> Vec<String> {
        let result = validate_with(&document(), options);
        result
            .errors()
            .iter()
            .map(|e| format!("{} {} {}", e.rule(), e.path(), e.message()))
            .chain(
                result
                    .warnings()
                    .iter()
                    .map(|w| format!("{} {}", w.code(), w.path().unwrap_or_default())),
            )
            .collect()
    }

    /// Every regex and JSONPath question goes to the installed checker: none is answered beside it.
    #[test]
    fn every_question_goes_to_the_installed_check() {
        let p = "attack.execution.phases[0]";
        // The built-in checker: everything valid; without the `jsonpath` feature it checks no JSONPath
        // and says so (W-015, D-130).
        let built_in: Vec<String> = if cfg!(feature = "jsonpath") {
            Vec::new()
        } else {
            vec![format!("W-015 {p}.extractors[1].selector")]
        };
        assert_eq!(findings(&ValidateOptions::new()), built_in);
        assert_eq!(
            findings(&ValidateOptions::with_syntax_check(Arc::new(Refusing))),
            [
                format!("V-013 {p}.extractors[0].selector invalid regular expression: refused id=(\\d+)"),
                format!("V-015 {p}.extractors[1].selector invalid jsonpath: refused $.id"),
                format!("V-013 {p}.trigger.match.name.regex invalid regular expression: refused ^x"),
                "V-013 attack.indicators[0].pattern.regex invalid regular expression: refused a+".to_owned(),
                "V-013 attack.indicators[1].pattern.condition.regex invalid regular expression: refused b+"
                    .to_owned(),
            ]
        );
        assert_eq!(
            findings(&ValidateOptions::with_syntax_check(Arc::new(Unchecking))),
            [
                format!(
                    "V-042 {p}.extractors[0].selector a regex extractor selector needs a capture group"
                ),
                format!("W-015 {p}.extractors[1].selector"),
            ]
        );
    }

    #[test]
    fn the_built_in_answers() {
        assert_eq!(BuiltInSyntax.regex("a(b)"), Ok(()));
        assert!(
            BuiltInSyntax
                .regex("(?P=name)")
                .is_err_and(|e| e.contains("backreferences"))
        );
        assert_eq!(BuiltInSyntax.capture_groups("(a)(?:b)(c)"), Some(2));
        assert_eq!(BuiltInSyntax.capture_groups("("), None);
        let path = BuiltInSyntax.json_path("$[?@.a ==]");
        if cfg!(feature = "jsonpath") {
            assert!(matches!(path, JsonPathSyntax::Invalid(_)), "{path:?}");
        } else {
            assert_eq!(path, JsonPathSyntax::Unchecked);
        }
    }
}
