//! Edits: formatting equal to `oatf fmt` (the same layout rewrite, refusing a document it cannot lay
//! out without losing a line), and code actions: the "did you mean" of a diagnostic applied, and a
//! `$schema` key added so that yaml-language-server finds the schema.

use std::collections::HashMap;
use std::ops::Range;

use lsp_types::{CodeAction, CodeActionKind, Diagnostic, Position, TextEdit, Uri, WorkspaceEdit};

use super::outline::Outline;
use super::text::LineIndex;

/// The edit that formats `text` as `oatf fmt` would (none when it is formatted already), or why it
/// cannot be formatted.
pub(crate) fn format(text: &str) -> Result<Vec<TextEdit>, String> {
    let document = oatf::parse(text).map_err(|errors| {
        format!(
            "cannot format: the document does not parse ({} error{}; see the diagnostics)",
            errors.len(),
            crate::render::plural(errors.len())
        )
    })?;
    let formatted = crate::layout::format(text, &document)
        .map_err(|refusal| format!("cannot format: {refusal}"))?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let index = LineIndex::new(text);
    Ok(vec![TextEdit::new(
        index.range(text, 0..text.len()),
        formatted,
    )])
}

/// The `X` and `Y` of a message "… `X` …; did you mean `Y`?".
fn suggestion(message: &str) -> Option<(&str, &str)> {
    let (before, after) = message.split_once("did you mean `")?;
    let good = &after[..after.find('`')?];
    let bad = before.split('`').nth(1)?;
    (!bad.is_empty() && bad != good).then_some((bad, good))
}

fn edit_action(
    uri: &Uri,
    title: String,
    kind: CodeActionKind,
    edits: Vec<TextEdit>,
    fixes: Option<Diagnostic>,
) -> CodeAction {
    #[allow(
        clippy::mutable_key_type,
        reason = "lsp-types keys a WorkspaceEdit's changes by Uri; its inner cell is a parse cache that never changes its hash"
    )]
    let changes = HashMap::from([(uri.clone(), edits)]);
    CodeAction {
        title,
        kind: Some(kind),
        diagnostics: fixes.map(|d| vec![d]),
        edit: Some(WorkspaceEdit::new(changes)),
        is_preferred: Some(true),
        ..CodeAction::default()
    }
}

/// The code actions for the diagnostics the client sends (those of this server) and the document.
pub(crate) fn code_actions(
    uri: &Uri,
    text: &str,
    outline: &Outline,
    diagnostics: &[Diagnostic],
    only: Option<&[CodeActionKind]>,
) -> Vec<CodeAction> {
    let wanted = |kind: &CodeActionKind| {
        only.is_none_or(|only| {
            only.iter().any(|o| {
                kind.as_str() == o.as_str()
                    || kind.as_str().starts_with(&format!("{}.", o.as_str()))
            })
        })
    };
    let index = LineIndex::new(text);
    let mut out = Vec::new();
    if wanted(&CodeActionKind::QUICKFIX) {
        for d in diagnostics
            .iter()
            .filter(|d| d.source.as_deref() == Some("oatf"))
        {
            let Some((bad, good)) = suggestion(&d.message) else {
                continue;
            };
            let start = index.offset(text, d.range.start);
            let end = index.offset(text, d.range.end);
            // The misspelt word is in the diagnostic's range, or starts where it starts.
            let span: Range<usize> = match text.get(start..end).and_then(|t| t.find(bad)) {
                Some(at) => start + at..start + at + bad.len(),
                None if text.get(start..).is_some_and(|t| t.starts_with(bad)) => {
                    start..start + bad.len()
                }
                None => continue,
            };
            let edit = TextEdit::new(index.range(text, span), good.to_owned());
            out.push(edit_action(
                uri,
                format!("Replace `{bad}` with `{good}`"),
                CodeActionKind::QUICKFIX,
                vec![edit],
                Some(d.clone()),
            ));
        }
    }
    // A `$schema` key, or yaml-language-server's modeline comment, already names a schema.
    let has_schema = outline.at_keys(&["$schema"]).is_some()
        || text.contains("# yaml-language-server: $schema=");
    if !has_schema
        && wanted(&CodeActionKind::SOURCE)
        && let Some(url) = super::schema::id()
    {
        // After `oatf:`, which stays the first key (W-001).
        let oatf_line = outline.at_keys(&["oatf"]).map(|n| outline.nodes[n].line);
        let (at, newline) = match oatf_line {
            None => (Position::new(0, 0), ""),
            Some(l) if l + 1 < index.line_count() => (
                Position::new(u32::try_from(l + 1).unwrap_or(u32::MAX), 0),
                "",
            ),
            Some(_) => (index.position(text, text.len()), "\n"),
        };
        let edit = TextEdit::new(
            lsp_types::Range::new(at, at),
            format!("{newline}$schema: {url}\n"),
        );
        out.push(edit_action(
            uri,
            "Add `$schema` (the OATF JSON Schema, for yaml-language-server)".to_owned(),
            CodeActionKind::SOURCE,
            vec![edit],
            None,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_read_from_messages() {
        assert_eq!(
            suggestion("unknown field `nme`; did you mean `name`? expected one of id, name"),
            Some(("nme", "name"))
        );
        assert_eq!(suggestion("unknown field `nme`"), None);
        assert_eq!(suggestion("did you mean `x`?"), None);
    }

    #[test]
    fn formatting_refuses_what_does_not_parse() {
        assert!(format("oatf: [").is_err());
        let edits = format(
            "oatf: \"0.1\"\nattack:\n    execution:\n        mode: mcp_server\n        state: {}\n",
        );
        let text = edits
            .ok()
            .and_then(|e| e.into_iter().next())
            .map(|e| e.new_text);
        assert_eq!(
            text.as_deref(),
            Some("oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state: {}\n")
        );
    }
}
