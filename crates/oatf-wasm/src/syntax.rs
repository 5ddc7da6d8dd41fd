//! Syntax answers between the syntax module and the validation module (D-140, D-190): CEL (V-014),
//! regular expressions (V-013, V-042) and JSONPath (V-015).
//!
//! The validation module has none of these parsers. Its validation asks a [`CelSyntaxCheck`] and a
//! [`SyntaxCheck`] that answer from a cache filled by JavaScript and record each question they have no
//! answer for (`{ syntaxPending: { cel, regex, jsonpath } }`, arrays of texts); the wrapper then asks
//! the syntax module (`syntaxCheckJson`: the SDK's `CelEngine` and [`BuiltInSyntax`], the checks of
//! the full module) for those, hands each answer over (`syntaxMakeRoom`, then `rememberCel`,
//! `rememberRegex`, `rememberJsonPath`: plain arguments, so that the validation module parses no JSON)
//! and validates again. `syntaxCheckJson` answers with the same object of arrays, in the same order:
//! for CEL `null` (it parses) or `{ kind: "syntax" | "limit", message }`; for a regex `{ error,
//! captures }` (the V-013 message or `null`, and the number of capture groups or `null`); for a
//! JSONPath `{ error, unchecked }` (the parser's message or `null`; `true` when it was not checked).
//!
//! A regex's syntax tree (the regex module's, D-271) is asked during the validation itself, through
//! the one JavaScript function the validation module imports (`__askRegexTree`, D-320), which hands the
//! answer over with `rememberRegexTree`; only when the regex module is not loaded yet does the regex
//! become a `tree` question for the next pass.
//!
//! [`CelSyntaxCheck`]: oatf::model::CelSyntaxCheck
//! [`SyntaxCheck`]: oatf::syntax::SyntaxCheck
//! [`BuiltInSyntax`]: oatf::syntax::BuiltInSyntax

#[cfg(all(feature = "document", not(feature = "eval")))]
pub use answers::{
    remember_cel, remember_json_path, remember_regex, remember_regex_tree, syntax_make_room,
};
#[cfg(all(feature = "document", not(feature = "eval")))]
pub(crate) use answers::{take_pending, validate_options};
#[cfg(feature = "syntax")]
pub use check::syntax_check_json;
#[cfg(feature = "regex")]
pub use tree::regex_tree;

#[cfg(any(feature = "syntax", feature = "document"))]
use serde::{Deserialize, Serialize};

/// The questions of one validation, by kind (each text once): `tree` for the regex module, the
/// others for the syntax module.
#[cfg(any(feature = "syntax", feature = "document"))]
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
struct Questions {
    cel: Vec<String>,
    regex: Vec<String>,
    jsonpath: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tree: Vec<String>,
}

/// The regex module (D-271): V-013 of regexes decided by their syntax tree, which is most of them
/// (only a Unicode class needs the syntax module's tables).
#[cfg(feature = "regex")]
mod tree {
    use wasm_bindgen::prelude::*;

    use crate::sdk::syntax::BuiltInSyntax;

    /// V-013 of each regex of `patterns` by its syntax tree, in order: `true` (valid), its message
    /// (invalid), or `null` when the tree does not decide (a Unicode class: the syntax module's).
    #[wasm_bindgen(js_name = regexTree)]
    pub fn regex_tree(patterns: Vec<String>) -> Vec<JsValue> {
        patterns
            .iter()
            .map(|pattern| match BuiltInSyntax::regex_from_tree(pattern) {
                None => JsValue::NULL,
                Some(Ok(())) => JsValue::TRUE,
                Some(Err(message)) => JsValue::from_str(&message),
            })
            .collect()
    }
}

/// What the syntax module says of a regex: V-013's message, and V-042's count.
#[cfg(any(feature = "syntax", feature = "document"))]
#[derive(Serialize, Clone)]
struct RegexAnswer {
    error: Option<String>,
    captures: Option<usize>,
}

#[cfg(feature = "syntax")]
mod check {
    use crate::sdk::model::{CelSyntaxCheck, CelSyntaxError, CelSyntaxErrorKind};
    use crate::sdk::syntax::{BuiltInSyntax, JsonPathSyntax, SyntaxCheck};
    use serde::Serialize;
    use wasm_bindgen::prelude::*;

    use super::{Questions, RegexAnswer};

    /// The answers to [`Questions`], in the same order.
    #[derive(Serialize)]
    struct Answers {
        cel: Vec<Option<Refusal>>,
        regex: Vec<RegexAnswer>,
        jsonpath: Vec<PathAnswer>,
    }

    /// A CEL refusal.
    #[derive(Serialize)]
    struct Refusal {
        kind: &'static str,
        message: String,
    }

    impl From<&CelSyntaxError> for Refusal {
        fn from(error: &CelSyntaxError) -> Self {
            let kind = match error.kind() {
                CelSyntaxErrorKind::Limit => "limit",
                _ => "syntax",
            };
            Refusal {
                kind,
                message: error.message().to_owned(),
            }
        }
    }

    /// What the syntax module says of a JSONPath selector: the parser's message when it refused it,
    /// or that it could not check it (neither: it parses).
    #[derive(Serialize)]
    struct PathAnswer {
        error: Option<String>,
        unchecked: bool,
    }

    impl From<JsonPathSyntax> for PathAnswer {
        fn from(answer: JsonPathSyntax) -> Self {
            let (error, unchecked) = match answer {
                JsonPathSyntax::Invalid(error) => (Some(error), false),
                JsonPathSyntax::Unchecked => (None, true),
                _ => (None, false),
            };
            PathAnswer { error, unchecked }
        }
    }

    /// The answers of the SDK's checks (`CelEngine` with its limits, [`BuiltInSyntax`]) to a JSON
    /// object of questions `{ cel, regex, jsonpath }` (arrays of texts): a JSON object of arrays of
    /// answers in the same order. Input that is not such an object gives `null`.
    #[wasm_bindgen(js_name = syntaxCheckJson)]
    pub fn syntax_check_json(questions_json: &str) -> String {
        let Ok(questions) = serde_json::from_str::<Questions>(questions_json) else {
            return "null".to_owned();
        };
        let cel: Vec<&str> = questions.cel.iter().map(String::as_str).collect();
        // The CEL engine is made only when asked about CEL (its first use costs most of a first answer).
        let cel = if cel.is_empty() {
            Vec::new()
        } else {
            crate::sdk::cel::CelEngine::new().check_all(&cel)
        };
        let answers = Answers {
            cel: cel
                .iter()
                .map(|answer| answer.as_ref().err().map(Refusal::from))
                .collect(),
            regex: questions
                .regex
                .iter()
                .map(|pattern| RegexAnswer {
                    error: BuiltInSyntax.regex(pattern).err(),
                    captures: BuiltInSyntax.capture_groups(pattern),
                })
                .collect(),
            jsonpath: questions
                .jsonpath
                .iter()
                .map(|selector| BuiltInSyntax.json_path(selector).into())
                .collect(),
        };
        serde_json::to_string(&answers).unwrap_or_else(|_| "null".to_owned())
    }
}

#[cfg(all(feature = "document", not(feature = "eval")))]
mod answers {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::sync::Arc;

    use crate::sdk::model::{CelSyntaxCheck, CelSyntaxError, CelSyntaxErrorKind};
    use crate::sdk::syntax::{JsonPathSyntax, SyntaxCheck};
    use wasm_bindgen::prelude::*;

    use super::{Questions, RegexAnswer};

    /// Answers kept at most (all kinds together): past this the cache is emptied before new answers
    /// go in (a document validated right after still finds all of its own).
    const MAX_ANSWERS: usize = 4096;

    /// The syntax module's answers, by text and kind: one map for every kind, so that the module
    /// compiles one hash table, not one per kind (D-311).
    #[derive(Default)]
    struct Cache {
        answers: HashMap<String, Answers>,
        /// The answers held, all kinds together.
        count: usize,
    }

    /// The answers known for one text.
    #[derive(Default)]
    struct Answers {
        cel: Option<Result<(), CelSyntaxError>>,
        regex: Option<RegexAnswer>,
        jsonpath: Option<JsonPathSyntax>,
        /// The regex module's answer: V-013 from the syntax tree, or none (the syntax module's).
        tree: Option<Option<Result<(), String>>>,
    }

    impl Cache {
        fn len(&self) -> usize {
            self.count
        }

        /// The answer of a kind (`field`) for `text`, if known.
        fn get<T: Clone>(&self, text: &str, field: fn(&Answers) -> &Option<T>) -> Option<T> {
            self.answers.get(text).and_then(|a| field(a).clone())
        }
    }

    /// Keeps `answer` for `text` in the slot of its kind (`field`).
    fn remember<T>(text: String, answer: T, field: fn(&mut Answers) -> &mut Option<T>) {
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let added = field(cache.answers.entry(text).or_default())
                .replace(answer)
                .is_none();
            cache.count += usize::from(added);
        });
    }

    #[cfg(target_family = "wasm")]
    #[wasm_bindgen(raw_module = "./common.js")]
    extern "C" {
        /// Asks the regex module about `pattern` during a validation (D-320): `js/validate.js` (through
        /// `js/common.js`, which every instance of it imports under one URL) hands
        /// its answer over with [`remember_regex_tree`] and says `true`, or says `false` when the
        /// regex module is not loaded (in a browser before it has arrived), and the question then
        /// waits for the next pass, as the syntax module's do.
        #[wasm_bindgen(js_name = __askRegexTree)]
        fn ask_regex_tree(pattern: &str) -> bool;
    }

    /// Outside WebAssembly (the crate's tests) there is no JavaScript to ask.
    #[cfg(not(target_family = "wasm"))]
    fn ask_regex_tree(_pattern: &str) -> bool {
        false
    }

    /// The regex module's answer for `pattern` now, asked through JavaScript: none when the regex
    /// module is not loaded. It stays in the cache while the cache has room.
    fn ask_tree(pattern: &str) -> Option<Option<Result<(), String>>> {
        if !ask_regex_tree(pattern) {
            return None;
        }
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            if cache.len() > MAX_ANSWERS {
                let taken = cache
                    .answers
                    .get_mut(pattern)
                    .and_then(|answers| answers.tree.take());
                cache.count -= usize::from(taken.is_some());
                taken
            } else {
                cache.get(pattern, |a| &a.tree)
            }
        })
    }

    thread_local! {
        /// A WebAssembly instance has one thread.
        static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
        /// Questions validation met without an answer since the last `validate_options`.
        static PENDING: RefCell<Questions> = RefCell::new(Questions::default());
    }

    /// The checks that answer from the cache; a question without an answer is recorded and passes
    /// for now (the result of that validation is not shown: the wrapper validates again).
    struct Cached;

    fn pending(kind: fn(&mut Questions) -> &mut Vec<String>, text: &str) {
        PENDING.with(|pending| kind(&mut pending.borrow_mut()).push(text.to_owned()));
    }

    impl CelSyntaxCheck for Cached {
        fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
            let known = CACHE.with(|cache| cache.borrow().get(expression, |a| &a.cel));
            known.unwrap_or_else(|| {
                pending(|q| &mut q.cel, expression);
                Ok(())
            })
        }
    }

    impl SyntaxCheck for Cached {
        fn regex(&self, pattern: &str) -> Result<(), String> {
            // Most regexes are decided by their syntax tree, in the regex module; only a Unicode
            // class needs the syntax module's tables.
            let tree = CACHE
                .with(|cache| cache.borrow().get(pattern, |a| &a.tree))
                .or_else(|| ask_tree(pattern));
            match tree {
                None => {
                    pending(|q| &mut q.tree, pattern);
                    return Ok(());
                }
                Some(Some(answer)) => return answer,
                Some(None) => {}
            }
            let known =
                CACHE.with(|cache| cache.borrow().get(pattern, |a| &a.regex).map(|a| a.error));
            match known {
                Some(error) => error.map_or(Ok(()), Err),
                None => {
                    pending(|q| &mut q.regex, pattern);
                    Ok(())
                }
            }
        }

        fn capture_groups(&self, pattern: &str) -> Option<usize> {
            let known = CACHE.with(|cache| {
                cache
                    .borrow()
                    .get(pattern, |a| &a.regex)
                    .map(|a| a.captures)
            });
            known.unwrap_or_else(|| {
                pending(|q| &mut q.regex, pattern);
                Some(1)
            })
        }

        fn json_path(&self, selector: &str) -> JsonPathSyntax {
            let known = CACHE.with(|cache| cache.borrow().get(selector, |a| &a.jsonpath));
            known.unwrap_or_else(|| {
                pending(|q| &mut q.jsonpath, selector);
                JsonPathSyntax::Valid
            })
        }
    }

    /// The options of this module: every syntax question to the cache.
    pub(crate) fn validate_options() -> crate::sdk::ValidateOptions {
        PENDING.with(|pending| *pending.borrow_mut() = Questions::default());
        crate::sdk::ValidateOptions::with_syntax_check(Arc::new(Cached))
            .with_cel_check(Arc::new(Cached))
    }

    /// The questions met without an answer since [`validate_options`] as JSON (each text once), if any.
    pub(crate) fn take_pending() -> Option<serde_json::Value> {
        let mut questions = PENDING.with(|pending| std::mem::take(&mut *pending.borrow_mut()));
        for list in [
            &mut questions.cel,
            &mut questions.regex,
            &mut questions.jsonpath,
            &mut questions.tree,
        ] {
            list.sort_unstable();
            list.dedup();
        }
        if questions.cel.is_empty()
            && questions.regex.is_empty()
            && questions.jsonpath.is_empty()
            && questions.tree.is_empty()
        {
            return None;
        }
        serde_json::to_value(questions).ok()
    }

    /// Makes room for `count` answers about to be handed over: when they would not fit beside the
    /// kept ones, the cache is emptied first (a document validated right after still finds all of
    /// its own).
    #[wasm_bindgen(js_name = syntaxMakeRoom)]
    pub fn syntax_make_room(count: usize) {
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            if cache.len().saturating_add(count) > MAX_ANSWERS {
                *cache = Cache::default();
            }
        });
    }

    /// Keeps the syntax module's answer for a CEL expression: no `message` when it parses, else its
    /// refusal (`limit` for a refusal of the kind `limit`).
    #[wasm_bindgen(js_name = rememberCel)]
    pub fn remember_cel(expression: String, limit: bool, message: Option<String>) {
        let kind = if limit {
            CelSyntaxErrorKind::Limit
        } else {
            CelSyntaxErrorKind::Syntax
        };
        let answer = message.map_or(Ok(()), |m| Err(CelSyntaxError::new(kind, m)));
        remember(expression, answer, |a| &mut a.cel);
    }

    /// Keeps the syntax module's answer for a regex: its V-013 message (none: it is valid) and its
    /// number of capture groups (none: it does not parse).
    #[wasm_bindgen(js_name = rememberRegex)]
    pub fn remember_regex(pattern: String, error: Option<String>, captures: Option<u32>) {
        let captures = captures.and_then(|n| usize::try_from(n).ok());
        remember(pattern, RegexAnswer { error, captures }, |a| &mut a.regex);
    }

    /// Keeps the regex module's answer for a regex (D-271): `decided` with its V-013 message (none:
    /// it is valid), or not decided by its syntax tree (a Unicode class: the syntax module answers).
    #[wasm_bindgen(js_name = rememberRegexTree)]
    pub fn remember_regex_tree(pattern: String, decided: bool, error: Option<String>) {
        let answer = decided.then(|| error.map_or(Ok(()), Err));
        remember(pattern, answer, |a| &mut a.tree);
    }

    /// Keeps the syntax module's answer for a JSONPath selector: the parser's message (none: it
    /// parses), or that it could not be checked.
    #[wasm_bindgen(js_name = rememberJsonPath)]
    pub fn remember_json_path(selector: String, error: Option<String>, unchecked: bool) {
        let answer = match error {
            Some(error) => JsonPathSyntax::Invalid(error),
            None if unchecked => JsonPathSyntax::Unchecked,
            None => JsonPathSyntax::Valid,
        };
        remember(selector, answer, |a| &mut a.jsonpath);
    }
}

#[cfg(all(test, feature = "syntax", feature = "document", not(feature = "eval")))]
mod tests {
    use serde_json::Value;

    use super::*;

    /// A CEL syntax error, a valid CEL expression, a regex extractor without a capture group, an
    /// invalid JSONPath, a regex with an unknown Unicode class (questions for the syntax module) and
    /// a regex whose syntax tree is broken (answered by the validation module itself).
    const DOCUMENT: &str = "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    phases:\n      - name: one\n        state: {tools: []}\n        extractors:\n          - {name: a, source: request, type: regex, selector: \"no group\"}\n          - {name: b, source: request, type: json_path, selector: \"$.[\"}\n        trigger: {event: tools/call}\n      - name: two\n  indicators:\n    - {surface: tools/call, target: arguments, expression: {cel: \"size(arguments) >\"}}\n    - {surface: tools/call, target: arguments, expression: {cel: \"true\"}}\n    - {surface: tools/call, target: arguments, pattern: {regex: \"(unclosed\"}}\n    - {surface: tools/call, target: arguments, pattern: {regex: \"\\\\p{Nope}\"}}\n";

    /// What `js/validate.js` does with the pending questions: asks the syntax module, hands the
    /// answers over.
    fn answer(pending: &Value) {
        let answers: Value =
            serde_json::from_str(&syntax_check_json(&pending.to_string())).expect("JSON");
        let texts = |kind: &str| -> Vec<String> {
            pending[kind]
                .as_array()
                .map(|list| {
                    list.iter()
                        .filter_map(|t| t.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let (cel, regex, jsonpath) = (texts("cel"), texts("regex"), texts("jsonpath"));
        let tree = texts("tree");
        syntax_make_room(cel.len() + regex.len() + jsonpath.len() + tree.len());
        // The regex module's answers (what `regexTree` gives).
        for pattern in tree {
            let answer = crate::sdk::syntax::BuiltInSyntax::regex_from_tree(&pattern);
            remember_regex_tree(pattern, answer.is_some(), answer.and_then(Result::err));
        }
        for (i, expression) in cel.into_iter().enumerate() {
            let refusal = &answers["cel"][i];
            remember_cel(
                expression,
                refusal["kind"] == "limit",
                text(&refusal["message"]),
            );
        }
        for (i, pattern) in regex.into_iter().enumerate() {
            let answer = &answers["regex"][i];
            let captures = answer["captures"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok());
            remember_regex(pattern, text(&answer["error"]), captures);
        }
        for (i, selector) in jsonpath.into_iter().enumerate() {
            let answer = &answers["jsonpath"][i];
            remember_json_path(
                selector,
                text(&answer["error"]),
                answer["unchecked"] == true,
            );
        }
    }

    fn rules(result: &Value) -> Vec<&str> {
        let mut rules: Vec<&str> = result["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .filter_map(|e| e["rule"].as_str())
            .collect();
        rules.sort_unstable();
        rules
    }

    #[test]
    fn validation_waits_for_the_answers_then_reports_them() {
        let first: Value = serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
        let pending = first["syntaxPending"].clone();
        assert_eq!(pending["cel"].as_array().map(Vec::len), Some(2), "{first}");
        // Every regex to the regex module first; the extractor's capture groups to the syntax module.
        assert_eq!(pending["tree"].as_array().map(Vec::len), Some(3), "{first}");
        assert_eq!(pending["regex"], serde_json::json!(["no group"]), "{first}");
        assert_eq!(
            pending["jsonpath"].as_array().map(Vec::len),
            Some(1),
            "{first}"
        );
        answer(&pending);
        // The regex with a Unicode class is not decided by its tree: the syntax module's.
        let again: Value = serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
        assert_eq!(
            again["syntaxPending"],
            serde_json::json!({ "cel": [], "regex": ["\\p{Nope}"], "jsonpath": [] }),
            "{again}"
        );
        answer(&again["syntaxPending"]);
        let second: Value = serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
        assert_eq!(second["valid"], false, "{second}");
        assert_eq!(
            rules(&second),
            ["V-013", "V-013", "V-014", "V-015", "V-042"],
            "{second}"
        );
        assert_eq!(syntax_check_json("[\"not an object\"]"), "null");
    }

    /// The same document through the built-in checks (what the full module does) gives the same
    /// diagnostics, message for message.
    #[test]
    fn the_answers_are_those_of_the_built_in_checks() {
        for _ in 0..2 {
            let pending: Value =
                serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
            answer(&pending["syntaxPending"]);
        }
        let answered: Value = serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
        let document = crate::sdk::parse(DOCUMENT).expect("parses");
        let built_in =
            crate::sdk::validate_with(&document, &crate::sdk::default_validate_options());
        let messages: Vec<String> = answered["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e["rule"],
                    e["message"].as_str().unwrap_or_default()
                )
            })
            .collect();
        let expected: Vec<String> = built_in
            .errors()
            .iter()
            .map(|e| format!("\"{}\" {}", e.rule(), e.message()))
            .collect();
        assert_eq!(messages, expected);
    }
}
