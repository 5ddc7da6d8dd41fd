//! Diagnostics as people read them: a headline with the dot-path it is about, and a miette report
//! with a snippet of the source, control characters escaped and long lines clipped.

use miette::{NamedSource, Report};
use oatf::model::ParseError;

/// A diagnostic as the report shows it: the message as the headline (the code, path and labels are
/// shown by the renderer), with the code, severity and labels of the original.
#[derive(Debug)]
struct Shown {
    message: String,
    code: Option<String>,
    severity: Option<miette::Severity>,
    labels: Vec<miette::LabeledSpan>,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown {}

impl miette::Diagnostic for Shown {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn std::fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.severity
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// Renders one diagnostic with a snippet of its source.
pub(crate) fn render<D: miette::Diagnostic>(
    diagnostic: &D,
    headline: String,
    name: &str,
    source: &str,
) -> String {
    let labels: Vec<miette::LabeledSpan> = diagnostic
        .labels()
        .map(Iterator::collect)
        .unwrap_or_default();
    // Long lines are clipped and control characters escaped (see `safe_text`).
    let excerpt = crate::render::safe_text::Excerpt::new(name, source, &labels);
    let escaped_labels = |labels: Vec<miette::LabeledSpan>| -> Vec<miette::LabeledSpan> {
        labels
            .into_iter()
            .map(|l| {
                let text = l
                    .label()
                    .map(|t| crate::render::safe_text::escape(t).into_owned());
                miette::LabeledSpan::new_with_span(text, *l.inner())
            })
            .collect()
    };
    let shown = Shown {
        message: crate::render::safe_text::escape(&headline).into_owned(),
        code: diagnostic.code().map(|c| c.to_string()),
        severity: diagnostic.severity(),
        labels: escaped_labels(excerpt.as_ref().map_or(labels, |e| e.labels())),
    };
    let name = crate::render::safe_text::escape(name);
    let report = match excerpt {
        Some(excerpt) => Report::new(shown).with_source_code(excerpt),
        None => Report::new(shown).with_source_code(NamedSource::new(name, source.to_owned())),
    };
    format!("{report:?}")
}

/// The headline of a parse error: its message and, for V-020 findings, the rule.
pub(crate) fn parse_headline(e: &ParseError) -> String {
    with_path(e.message(), e.path())
}

/// A message followed by the dot-path it is about.
pub(crate) fn with_path(message: &str, path: Option<&str>) -> String {
    match path.filter(|p| !p.is_empty()) {
        Some(path) => format!("{message} (at `{path}`)"),
        None => message.to_owned(),
    }
}

/// Prints on standard error why a document did not load: every parse error with, after them, the
/// V- errors of the parts that parsed (all problems at once), or every validation error.
pub(crate) fn print_load_error(error: &oatf::LoadError, name: &str, source: &str) {
    let options = crate::options::validate_options();
    match error {
        oatf::LoadError::Parse(errors) => {
            for error in errors.iter() {
                eprint!("{}", render(error, parse_headline(error), name, source));
            }
            for error in errors.validate_rest(&options).errors() {
                let headline = with_path(error.message(), Some(error.path()));
                eprint!("{}", render(error, headline, name, source));
            }
        }
        oatf::LoadError::Invalid(errors) => {
            for error in errors {
                let headline = with_path(error.message(), Some(error.path()));
                eprint!("{}", render(error, headline, name, source));
            }
        }
        other => eprintln!("error: {}: {other}", crate::render::safe_text::escape(name)),
    }
}
