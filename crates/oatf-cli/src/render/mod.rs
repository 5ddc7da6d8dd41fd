//! Rendering for people and CI: diagnostics with source snippets, text made safe for a terminal,
//! colour, and GitHub workflow annotations.

pub(crate) mod color;
pub(crate) mod diagnostic;
pub(crate) mod github;
pub(crate) mod rule;
pub(crate) mod safe_text;

/// The plural ending of a count: `""` for one, `"s"` otherwise (`1 file`, `2 files`); the one
/// owner of this rule in the CLI.
pub(crate) fn plural<N: PartialEq + From<u8>>(n: N) -> &'static str {
    if n == N::from(1) { "" } else { "s" }
}
