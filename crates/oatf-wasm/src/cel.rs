//! CEL syntax answers (V-014) between the CEL syntax module and the validation module (D-140).
//!
//! The validation module has no CEL parser. Its validation asks a [`CelSyntaxCheck`] that answers from
//! a cache filled by JavaScript and records each expression it has no answer for; the wrapper then
//! asks the CEL syntax module (`celCheckJson`, the SDK's `CelEngine`: the check of the full module)
//! for those, hands the answers over (`celRememberJson`) and validates again. An answer travels as
//! `null` (the expression parses) or `{ kind: "syntax" | "limit", message }`.

#[cfg(all(feature = "document", not(feature = "eval")))]
pub use answers::cel_remember_json;
#[cfg(all(feature = "document", not(feature = "eval")))]
pub(crate) use answers::{take_pending, validate_options};
#[cfg(feature = "cel-syntax")]
pub use check::cel_check_json;

use oatf::model::{CelSyntaxError, CelSyntaxErrorKind};
use serde::{Deserialize, Serialize};

/// One refusal as it crosses JavaScript.
#[derive(Serialize, Deserialize)]
struct Refusal {
    kind: String,
    message: String,
}

#[cfg(feature = "cel-syntax")]
impl From<&CelSyntaxError> for Refusal {
    fn from(error: &CelSyntaxError) -> Self {
        let kind = match error.kind() {
            CelSyntaxErrorKind::Limit => "limit",
            _ => "syntax",
        };
        Refusal {
            kind: kind.to_owned(),
            message: error.message().to_owned(),
        }
    }
}

#[cfg(all(feature = "document", not(feature = "eval")))]
impl From<Refusal> for CelSyntaxError {
    fn from(refusal: Refusal) -> Self {
        let kind = if refusal.kind == "limit" {
            CelSyntaxErrorKind::Limit
        } else {
            CelSyntaxErrorKind::Syntax
        };
        CelSyntaxError::new(kind, refusal.message)
    }
}

#[cfg(feature = "cel-syntax")]
mod check {
    use oatf::model::CelSyntaxCheck;
    use wasm_bindgen::prelude::*;

    use super::Refusal;

    /// The answers of the SDK's CEL syntax check (`CelEngine`, its limits included) for a JSON array
    /// of expressions: a JSON array, in the same order, of `null` or `{ kind, message }`. Input that
    /// is not an array of strings gives `null`.
    #[wasm_bindgen(js_name = celCheckJson)]
    pub fn cel_check_json(expressions_json: &str) -> String {
        let Ok(expressions) = serde_json::from_str::<Vec<String>>(expressions_json) else {
            return "null".to_owned();
        };
        let expressions: Vec<&str> = expressions.iter().map(String::as_str).collect();
        let answers: Vec<Option<Refusal>> = oatf::cel::CelEngine::new()
            .check_all(&expressions)
            .iter()
            .map(|answer| answer.as_ref().err().map(Refusal::from))
            .collect();
        serde_json::to_string(&answers).unwrap_or_else(|_| "null".to_owned())
    }
}

#[cfg(all(feature = "document", not(feature = "eval")))]
mod answers {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::sync::Arc;

    use oatf::model::{CelSyntaxCheck, CelSyntaxError};
    use wasm_bindgen::prelude::*;

    use super::Refusal;

    /// Answers kept at most: past this the cache is emptied before new answers go in (a document
    /// validated right after still finds all of its own).
    const MAX_ANSWERS: usize = 4096;

    thread_local! {
        /// The answers of the CEL syntax module, by expression. A WebAssembly instance has one thread.
        static ANSWERS: RefCell<HashMap<String, Result<(), CelSyntaxError>>> = RefCell::new(HashMap::new());
        /// Expressions validation met without an answer since the last `take_pending`.
        static PENDING: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    /// The check that answers from the cache; an expression without an answer is recorded and passes
    /// for now (the result of that validation is not shown: the wrapper validates again).
    struct Answers;

    impl CelSyntaxCheck for Answers {
        fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
            let known = ANSWERS.with(|answers| answers.borrow().get(expression).cloned());
            known.unwrap_or_else(|| {
                PENDING.with(|pending| pending.borrow_mut().push(expression.to_owned()));
                Ok(())
            })
        }
    }

    pub(crate) fn validate_options() -> oatf::ValidateOptions {
        PENDING.with(|pending| pending.borrow_mut().clear());
        oatf::ValidateOptions::new().with_cel_check(Arc::new(Answers))
    }

    /// The expressions met without an answer since [`validate_options`], if any.
    pub(crate) fn take_pending() -> Option<Vec<String>> {
        let pending = PENDING.with(|pending| std::mem::take(&mut *pending.borrow_mut()));
        (!pending.is_empty()).then_some(pending)
    }

    /// Keeps the answers of `celCheckJson` (a JSON array, in the order of the JSON array of
    /// expressions). Returns `false` when the two do not fit together.
    #[wasm_bindgen(js_name = celRememberJson)]
    pub fn cel_remember_json(expressions_json: &str, answers_json: &str) -> bool {
        let (Ok(expressions), Ok(answers)) = (
            serde_json::from_str::<Vec<String>>(expressions_json),
            serde_json::from_str::<Vec<Option<Refusal>>>(answers_json),
        ) else {
            return false;
        };
        if expressions.len() != answers.len() {
            return false;
        }
        ANSWERS.with(|cache| {
            let mut cache = cache.borrow_mut();
            if cache.len() + expressions.len() > MAX_ANSWERS {
                cache.clear();
            }
            for (expression, answer) in expressions.into_iter().zip(answers) {
                cache.insert(expression, answer.map_or(Ok(()), |r| Err(r.into())));
            }
        });
        true
    }
}

#[cfg(all(
    test,
    feature = "cel-syntax",
    feature = "document",
    not(feature = "eval")
))]
mod tests {
    use serde_json::Value;

    use super::*;

    const DOCUMENT: &str = "oatf: \"0.1\"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators:\n    - {surface: tools/call, target: arguments, expression: {cel: \"size(arguments) >\"}}\n    - {surface: tools/call, target: arguments, expression: {cel: \"true\"}}\n";

    #[test]
    fn validation_waits_for_the_answers_then_reports_v014() {
        let first: Value = serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
        let pending = first["celPending"].clone();
        assert_eq!(pending.as_array().map(Vec::len), Some(2), "{first}");
        let answers = cel_check_json(&pending.to_string());
        assert!(cel_remember_json(&pending.to_string(), &answers));
        let second: Value = serde_json::from_str(&crate::validate_json(DOCUMENT)).expect("JSON");
        assert_eq!(second["valid"], false, "{second}");
        let rules: Vec<&str> = second["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .filter_map(|e| e["rule"].as_str())
            .collect();
        assert_eq!(rules, ["V-014"], "{second}");
        assert!(!cel_remember_json("[\"a\"]", "[]"));
    }
}
