//! Parse, validate, load, normalize and serialize: the functions of the full module, of the
//! validation module (parse and validate) and of the normalize module (parse, normalize, serialize,
//! D-270). Validation uses [`validate_options`]: the SDK's checks in the full module, the answers
//! JavaScript gave in the validation module (`syntax.rs`), where a document whose CEL expressions,
//! regexes or JSONPath selectors have no answer yet gives `{ syntaxPending: { cel, regex, jsonpath }
//! }` instead of a result. `oatf/validate`'s `load` is the validation module's `validateJson`, then,
//! for a valid document, the normalize module's `loadedJson`: the same as [`load_json`], whose
//! errors are validation's (`load_with` fails with exactly the errors validation gives).

use crate::sdk::model::Finding;
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::diagnostics::{failure, json_text};

/// The validation options of this module (D-140).
#[cfg(feature = "document")]
fn validate_options() -> crate::sdk::ValidateOptions {
    #[cfg(feature = "eval")]
    {
        crate::sdk::default_validate_options()
    }
    #[cfg(not(feature = "eval"))]
    {
        crate::syntax::validate_options()
    }
}

/// `{ syntaxPending }` as JSON when validation met syntax questions without an answer (validation
/// module only; the full module checks them itself).
#[cfg(feature = "document")]
fn pending() -> Option<String> {
    #[cfg(feature = "eval")]
    {
        None
    }
    #[cfg(not(feature = "eval"))]
    {
        crate::syntax::take_pending()
            .map(|questions| json_text(&json!({ "syntaxPending": questions })))
    }
}

/// `validate(text)`: `{ valid, errors, warnings }` as JSON. Never fails: a document that does not
/// parse gives its parse errors.
#[cfg(feature = "document")]
#[wasm_bindgen(js_name = validateJson)]
pub fn validate_json(text: &str) -> String {
    let options = validate_options();
    let (errors, warnings): (Vec<Finding>, Vec<Finding>) = match crate::sdk::parse(text) {
        Ok(document) => {
            let result = crate::sdk::validate_with(&document, &options);
            (
                result.errors().iter().map(Finding::from).collect(),
                result.warnings().iter().map(Finding::from).collect(),
            )
        }
        Err(errors) => {
            // Every problem at once, as `oatf validate` and Python give them: the parse errors,
            // then the V- findings of the parts that parsed.
            let rest = errors.validate_rest(&options);
            (
                errors
                    .iter()
                    .map(Finding::from)
                    .chain(rest.errors().iter().map(Finding::from))
                    .collect(),
                rest.warnings().iter().map(Finding::from).collect(),
            )
        }
    };
    if let Some(pending) = pending() {
        return pending;
    }
    json_text(&json!({ "valid": errors.is_empty(), "errors": errors, "warnings": warnings }))
}

/// `load(text)`: `{ ok: true, document, warnings }` (the normalized document) or
/// `{ ok: false, errors }` as JSON.
#[cfg(all(feature = "document", feature = "normalize"))]
#[wasm_bindgen(js_name = loadJson)]
pub fn load_json(text: &str) -> String {
    let loaded = load(text);
    if let Some(pending) = pending() {
        return pending;
    }
    match loaded {
        Ok(loaded) => json_text(&json!({
            "ok": true,
            "document": document_value(&loaded.document),
            "warnings": loaded.warnings.iter().map(Finding::from).collect::<Vec<_>>(),
        })),
        Err(errors) => failure(&errors),
    }
}

/// A document as the JSON value JavaScript gets (its keys are the format's own).
#[cfg(feature = "normalize")]
fn document_value(document: &oatf_model::Document) -> serde_json::Value {
    serde_json::to_value(document).unwrap_or(serde_json::Value::Null)
}

/// `loadedJson(text)`: `{ ok: true, document }`, the document parsed and normalized without validation
/// (what `load` gives for a document that validation accepted), or `{ ok: false, errors }` as JSON.
/// `oatf/validate`'s `load` calls it once the validation module found the document valid (D-270).
#[cfg(all(feature = "normalize", not(feature = "eval")))]
#[wasm_bindgen(js_name = loadedJson)]
pub fn loaded_json(text: &str) -> String {
    match crate::sdk::parse(text) {
        Ok(document) => json_text(&json!({
            "ok": true,
            "document": document_value(&crate::sdk::model::normalize(document)),
        })),
        Err(errors) => failure(&errors.iter().map(Finding::from).collect::<Vec<_>>()),
    }
}

/// Loads a document (parse, validate, normalize), or every diagnostic that prevents it.
#[cfg(all(feature = "document", feature = "normalize"))]
pub(crate) fn load(text: &str) -> Result<crate::sdk::Loaded, Vec<Finding>> {
    let options = validate_options();
    match crate::sdk::load_with(text, &options) {
        Ok(loaded) => Ok(loaded),
        Err(crate::sdk::LoadError::Parse(errors)) => {
            let rest = errors.validate_rest(&options);
            Err(errors
                .iter()
                .map(Finding::from)
                .chain(rest.errors().iter().map(Finding::from))
                .collect())
        }
        Err(crate::sdk::LoadError::Invalid(errors)) => {
            Err(errors.iter().map(Finding::from).collect())
        }
        Err(other) => Err(vec![Finding::error(other.to_string())]),
    }
}

/// `normalize(text)`: `{ ok: true, yaml }` (parsed and normalized without validation, SDK §3.3, then
/// serialized, §3.4) or `{ ok: false, errors }` as JSON.
#[cfg(feature = "normalize")]
#[wasm_bindgen(js_name = normalizeJson)]
pub fn normalize_json(text: &str) -> String {
    match crate::sdk::parse(text) {
        Ok(document) => json_text(
            &json!({ "ok": true, "yaml": crate::sdk::model::serialize(&crate::sdk::model::normalize(document)) }),
        ),
        Err(errors) => failure(&errors.iter().map(Finding::from).collect::<Vec<_>>()),
    }
}

/// `serialize(document)`: the document given as JSON text (JSON is YAML) read by the SDK's parser and
/// written as canonical YAML (SDK §3.4): `{ ok: true, yaml }` or `{ ok: false, errors }`.
#[cfg(feature = "normalize")]
#[wasm_bindgen(js_name = serializeJson)]
pub fn serialize_json(document_json: &str) -> String {
    match crate::sdk::parse(document_json) {
        Ok(document) => {
            json_text(&json!({ "ok": true, "yaml": crate::sdk::model::serialize(&document) }))
        }
        Err(errors) => failure(&errors.iter().map(Finding::from).collect::<Vec<_>>()),
    }
}

/// Bytes that are not UTF-8: `{ ok: false, errors }` with the parser's error for the first invalid byte
/// (its line and column), as JSON. The JavaScript layer calls it when `TextDecoder` refuses the bytes.
#[cfg(feature = "document")]
#[wasm_bindgen(js_name = decodeErrorsJson)]
pub fn decode_errors_json(bytes: &[u8]) -> String {
    let errors = match crate::sdk::model::parse_bytes(bytes) {
        Err(errors) => errors.iter().map(Finding::from).collect(),
        Ok(_) => vec![Finding::error("the input is not valid UTF-8")],
    };
    failure(&errors)
}

#[cfg(all(test, feature = "document"))]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).expect("the bindings return JSON")
    }

    #[test]
    fn validate_reports_a_parse_error_with_its_line() {
        let result = parsed(&validate_json(
            "oatf: \"0.1\"\nattack:\n  name: [unclosed\n",
        ));
        assert_eq!(result["valid"], false);
        let first = &result["errors"][0];
        assert_eq!(first["kind"], "parse");
        assert!(first["line"].as_u64().is_some(), "{first}");
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let result = parsed(&decode_errors_json(
            b"oatf: \"0.1\"\nattack:\n  name: \"\xff\"\n",
        ));
        assert_eq!(result["ok"], false);
        assert_eq!(result["errors"][0]["line"], 3);
        assert_eq!(result["errors"][0]["kind"], "parse");
    }

    #[cfg(feature = "normalize")]
    #[test]
    fn load_gives_the_normalized_document_or_the_errors() {
        let ok = parsed(&load_json(
            "oatf: \"0.1\"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n",
        ));
        assert_eq!(ok["ok"], true);
        assert_eq!(ok["document"]["attack"]["name"], "Untitled");
        let bad = parsed(&load_json("oatf: \"0.1\"\nattack: {}\n"));
        assert_eq!(bad["ok"], false);
        assert!(!bad["errors"].as_array().expect("errors").is_empty());
        assert_eq!(bad["errors"][0]["kind"], "validation");
    }

    /// What `oatf/validate`'s `load` gives for a document the validation module accepted: the full
    /// module's document, from the normalize module's `loadedJson` (D-270).
    #[cfg(all(feature = "normalize", not(feature = "eval")))]
    #[test]
    fn loaded_is_load_for_a_valid_document() {
        let text = "oatf: \"0.1\"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators:\n    - {surface: tools/call, target: arguments, pattern: {contains: x}}\n";
        let full = parsed(&load_json(text));
        let loaded = parsed(&loaded_json(text));
        assert_eq!(full["ok"], true, "{full}");
        assert_eq!(loaded["ok"], true, "{loaded}");
        assert_eq!(loaded["document"], full["document"]);
        assert_eq!(
            loaded["document"]["attack"]["indicators"][0]["id"],
            "indicator-01"
        );
        let broken = parsed(&loaded_json("oatf: \"0.1\"\nattack: [unclosed\n"));
        assert_eq!(broken["ok"], false, "{broken}");
        assert_eq!(broken["errors"][0]["kind"], "parse");
    }
}
