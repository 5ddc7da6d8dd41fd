//! Rendering for people and CI: diagnostics with source snippets, text made safe for a terminal,
//! colour, and GitHub workflow annotations.

pub(crate) mod color;
pub(crate) mod diagnostic;
pub(crate) mod github;
pub(crate) mod rule;
pub(crate) mod safe_text;

/// The plural ending of a count (`1 file`, `2 files`): the rule the model's and the reports' messages
/// also use, owned by `oatf-internal`.
pub(crate) use oatf_internal::plural;
