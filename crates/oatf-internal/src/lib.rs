//! Helpers the `oatf-*` crates share, so that each rule has one owner without being part of any
//! crate's public API (D-165).
//!
//! **No stability promise.** This crate is published only because the published `oatf-*` crates
//! depend on it, each with an exact version requirement (`=x.y.z`); its API changes in any release.
//! Depend on `oatf-sdk` (imported as `oatf`) or on one of the `oatf-*` crates instead.
//!
//! It holds what two or more workspace crates need and no user does: the lexical scanner of
//! templates ([`scan_template`], format §5.6) that validation (`oatf-model`) and interpolation
//! (`oatf-runtime`) both use; the RE2 syntax check behind V-013 ([`check_regex`]); the compact JSON
//! writers ([`json`]) of conditions, the evaluator's message texts and the runtime; the "did you
//! mean" rule ([`did_you_mean`]); and the plural ending of a count ([`plural`]).
//!
//! It is the bottom of the workspace: it depends on `serde_json` and `regex-syntax` only, and knows
//! nothing of documents, CEL, clocks or I/O. Its tests are the unit tests beside each module.
//!
//! ```
//! let mut names = Vec::new();
//! oatf_internal::scan_template("{{ who }} says {{what}}", |token| {
//!     if let oatf_internal::TemplateToken::Expression(name) = token {
//!         names.push(name);
//!     }
//! });
//! assert_eq!(names, ["who", "what"]);
//! assert_eq!(oatf_internal::did_you_mean("indicaters", ["indicators", "id"]), Some("indicators"));
//! assert_eq!(format!("1 file{}, 2 file{}", oatf_internal::plural(1_u8), oatf_internal::plural(2_u8)), "1 file, 2 files");
//! oatf_internal::check_regex("key_[0-9]+")?; // V-013: RE2 syntax
//! assert!(oatf_internal::check_regex("(?=lookahead)").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod json;
mod re2;
mod suggest;
mod template;

pub use re2::{REGEX_NEST_LIMIT, RegexSyntaxError, check_regex, check_regex_tree};
pub use suggest::did_you_mean;
pub use template::{TemplateToken, scan_template};

/// The plural ending of a count: `""` for one, `"s"` otherwise (for the messages of the CLI, the
/// reports and the model's load errors).
pub fn plural<N: PartialEq + From<u8>>(n: N) -> &'static str {
    if n == N::from(1) { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plural_is_empty_for_one_only() {
        assert_eq!(super::plural(1_usize), "");
        assert_eq!(super::plural(0_usize), "s");
        assert_eq!(super::plural(2_u64), "s");
    }
}
