//! `extract_protocol` (SDK §5.9).

/// Extracts the protocol from a mode by stripping a trailing `_server` or `_client` (SDK §5.9).
///
/// A mode with neither suffix is returned unchanged (V-034 rejects such modes in documents).
///
/// ```
/// assert_eq!(oatf_primitives::extract_protocol("ag_ui_client"), "ag_ui");
/// assert_eq!(oatf_primitives::extract_protocol("mcp_server"), "mcp");
/// ```
pub fn extract_protocol(mode: &str) -> &str {
    mode.strip_suffix("_server")
        .or_else(|| mode.strip_suffix("_client"))
        .unwrap_or(mode)
}
