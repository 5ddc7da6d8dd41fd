//! WebAssembly bindings of the oatf SDK: the low-level modules under the npm package `oatf`.
//!
//! A thin layer over the `oatf` facade: every rule, message, limit and verdict is the SDK's. Values
//! cross the boundary as JSON text (`serde_json` here, `JSON.parse` in JavaScript), so the JavaScript
//! wrappers (`js/`) get plain objects and this crate needs no conversion code of its own. The wrappers
//! give the public API (`validate`, `load`, `compile`, `OatfError`, …) and its TypeScript types;
//! `docs/javascript.md` is the user guide.
//!
//! Four modules are built from this crate, by features (D-140): the full package (`eval`, the
//! default), the validation module of `oatf/validate` (`document` alone: parse and validate, no CEL
//! engine, no evaluation, no normalization), the syntax module (`syntax`) that the validation
//! module's wrapper loads the first time a document has a CEL expression, a JSONPath selector, a
//! regex extractor or a regex with a Unicode class (the answers reach validation through
//! `syntax.rs`, D-190), and the normalize
//! module (`normalize` alone: parse, normalize, serialize) that it loads for `load`, `normalize` and
//! `serialize` (D-270). A regex's syntax tree is checked by a fourth small module, the regex module
//! (`regex` alone), loaded the first time a document has a regex (D-271).
#![forbid(unsafe_code)]

#[cfg(feature = "eval")]
mod attack;
#[cfg(any(feature = "document", feature = "normalize"))]
mod diagnostics;
#[cfg(any(feature = "document", feature = "normalize"))]
mod document;
#[cfg(any(
    feature = "syntax",
    feature = "regex",
    all(feature = "document", not(feature = "eval"))
))]
mod syntax;

use wasm_bindgen::prelude::*;

/// The full module's allocator: talc instead of the standard library's dlmalloc, in which a long
/// trace's evaluation in Node spent about a tenth of its time (D-233). The small modules keep it.
#[cfg(all(
    feature = "eval",
    target_family = "wasm",
    not(target_feature = "atomics")
))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The SDK's API as the bindings use it: the facade (`oatf`) where the module has it, and in the
/// validation module, which has neither evaluation nor CEL, the model's items it re-exports under the
/// same paths (D-221).
#[cfg(any(feature = "eval", feature = "syntax"))]
use oatf as sdk;

#[cfg(all(
    any(feature = "document", feature = "normalize", feature = "regex"),
    not(any(feature = "eval", feature = "syntax"))
))]
#[allow(
    unused_imports,
    reason = "the validation and the normalize module each use a part"
)]
mod sdk {
    pub(crate) use oatf_model::{
        LoadError, Loaded, ValidateOptions, load_with, parse, validate_with,
    };

    pub(crate) mod model {
        pub(crate) use oatf_model::{
            CelSyntaxCheck, CelSyntaxError, CelSyntaxErrorKind, Finding, normalize, parse_bytes,
            serialize,
        };
    }

    pub(crate) mod syntax {
        pub(crate) use oatf_model::{BuiltInSyntax, JsonPathSyntax, SyntaxCheck};
    }
}

#[cfg(feature = "eval")]
pub use attack::{
    WasmAttack, WasmTraceEvaluator, judge_answer, judge_call, judge_questions_json, judge_record,
};
#[cfg(all(feature = "document", feature = "normalize"))]
pub use document::load_json;
#[cfg(all(feature = "normalize", not(feature = "eval")))]
pub use document::loaded_json;
#[cfg(feature = "document")]
pub use document::{decode_errors_json, validate_json};
#[cfg(feature = "normalize")]
pub use document::{normalize_json, serialize_json};
#[cfg(feature = "regex")]
pub use syntax::regex_tree;
#[cfg(feature = "syntax")]
pub use syntax::syntax_check_json;
#[cfg(all(feature = "document", not(feature = "eval")))]
pub use syntax::{
    remember_cel, remember_json_path, remember_regex, remember_regex_tree, syntax_make_room,
};

/// The SDK version (the workspace version of the crates built into this module).
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
