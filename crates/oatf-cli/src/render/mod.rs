//! Rendering for people and CI: diagnostics with source snippets, text made safe for a terminal,
//! colour, and GitHub workflow annotations.

pub(crate) mod color;
pub(crate) mod diagnostic;
pub(crate) mod github;
pub(crate) mod rule;
pub(crate) mod safe_text;
