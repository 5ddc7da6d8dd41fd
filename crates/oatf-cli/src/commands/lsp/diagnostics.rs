//! Diagnostics: every parse error and V-/W- finding of a document at once, as `oatf validate` gives
//! them (the same parse, `validate_rest` for a document that did not parse, the same options), each
//! at the range of its byte span.

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range, Uri,
};

use super::text::LineIndex;

/// The most diagnostics published for one document: past this many an editor shows nothing useful,
/// and a hostile document could otherwise make thousands (D-116).
pub(crate) const MAX_DIAGNOSTICS: usize = 1000;

/// The page that explains the rule `id` (`docs/format.md` has an anchor per rule), when it is a rule.
pub(crate) fn rule_page(id: &str) -> Option<Uri> {
    oatf::model::Rule::from_id(id)?;
    format!(
        "{}/blob/main/docs/format.md#{}",
        env!("CARGO_PKG_REPOSITORY"),
        id.to_ascii_lowercase()
    )
    .parse()
    .ok()
}

/// One LSP diagnostic.
fn diagnostic(
    text: &str,
    index: &LineIndex,
    span: Option<std::ops::Range<usize>>,
    line_column: Option<(usize, usize)>,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
) -> Diagnostic {
    let range = match (span, line_column) {
        (Some(span), _) => index.range(text, span),
        (None, Some((line, column))) => {
            // 1-based line and column in characters: a position on that line.
            let line = u32::try_from(line.saturating_sub(1)).unwrap_or(u32::MAX);
            let start = index.offset(text, Position::new(line, 0));
            let offset = text
                .get(start..)
                .unwrap_or("")
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(text.len(), |(i, _)| start + i);
            let position = index.position(text, offset);
            Range::new(position, position)
        }
        (None, None) => Range::default(),
    };
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_owned())),
        code_description: rule_page(code).map(|href| CodeDescription { href }),
        source: Some("oatf".to_owned()),
        message,
        ..Diagnostic::default()
    }
}

/// A message with the dot-path it is about, as `oatf validate` prints it.
fn with_path(message: &str, path: Option<&str>) -> String {
    crate::render::diagnostic::with_path(message, path)
}

/// The diagnostics of `text`: parse errors, then validation errors, then warnings.
pub(crate) fn diagnose(text: &str) -> Vec<Diagnostic> {
    let options = crate::options::validate_options();
    let (parse_errors, result) = match oatf::parse(text) {
        Ok(document) => (None, oatf::validate_with(&document, &options)),
        Err(errors) => {
            let rest = errors.validate_rest(&options);
            (Some(errors), rest)
        }
    };
    let index = LineIndex::new(text);
    let mut out = Vec::new();
    for e in parse_errors.as_ref().map_or(&[][..], |e| e.as_slice()) {
        let code = e.rule().unwrap_or(e.kind().as_str());
        let line_column = e.line().zip(e.column());
        out.push(diagnostic(
            text,
            &index,
            e.span(),
            line_column,
            DiagnosticSeverity::ERROR,
            code,
            with_path(e.message(), e.path()),
        ));
    }
    for e in result.errors() {
        let l = e.location();
        out.push(diagnostic(
            text,
            &index,
            l.map(|l| l.span.clone()),
            l.map(|l| (l.line, l.column)),
            DiagnosticSeverity::ERROR,
            e.rule(),
            with_path(e.message(), Some(e.path())),
        ));
    }
    for w in result.warnings() {
        let l = w.location();
        let severity = match w.severity() {
            oatf::model::DiagnosticSeverity::Error => DiagnosticSeverity::ERROR,
            _ => DiagnosticSeverity::WARNING,
        };
        out.push(diagnostic(
            text,
            &index,
            l.map(|l| l.span.clone()),
            l.map(|l| (l.line, l.column)),
            severity,
            w.code(),
            with_path(w.message(), w.path()),
        ));
    }
    out.truncate(MAX_DIAGNOSTICS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expect: &[(&str, DiagnosticSeverity, u32)]) {
        let got: Vec<(String, DiagnosticSeverity, u32)> = diagnose(text)
            .into_iter()
            .map(|d| {
                let code = match d.code {
                    Some(NumberOrString::String(c)) => c,
                    _ => String::new(),
                };
                (
                    code,
                    d.severity.unwrap_or(DiagnosticSeverity::HINT),
                    d.range.start.line,
                )
            })
            .collect();
        let expect: Vec<(String, DiagnosticSeverity, u32)> = expect
            .iter()
            .map(|(c, s, l)| ((*c).to_owned(), *s, *l))
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn parse_errors_and_findings_come_together_with_their_lines() {
        let e = DiagnosticSeverity::ERROR;
        // An unknown key (parse) and a V- finding of the part that parsed.
        check(
            "oatf: \"0.1\"\nattack:\n  nme: x\n  execution:\n    mode: mcp_server\n    phases: []\n",
            &[("type_mismatch", e, 2), ("V-007", e, 5)],
        );
        check("oatf: \"0.1\"\n", &[("V-003", e, 0)]);
    }

    #[test]
    fn rule_codes_link_their_text() {
        let page = rule_page("V-013").map(|u| u.as_str().to_owned());
        assert!(page.is_some_and(|p| p.ends_with("docs/format.md#v-013")));
        assert!(rule_page("type_mismatch").is_none());
    }
}
