//! `oatf validate FILE...`: parses and validates documents, printing every diagnostic.

use std::path::PathBuf;

use oatf::Diagnostic;
use oatf::ValidateOptions;
use oatf::ValidationError;
use oatf::model::Finding;
use oatf::model::ParseError;
use oatf::report::{ValidatedFile, validation_sarif};
use serde_json::{Value, json};

use crate::input::source::read_input;
use crate::options::validate_options;
use crate::output::Output;
use crate::render::diagnostic::{parse_headline, render, with_path};

/// Arguments of `oatf validate`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Documents or directories to validate (directories are walked recursively, like `oatf
    /// catalog`, skipping `*.test.yaml` test files); `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    files: Vec<PathBuf>,
    /// Output format: `text` (diagnostics with source snippets), `json` (for machines), `github`
    /// (workflow annotations) or `sarif` (SARIF 2.1.0, for GitHub code scanning).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Fail (exit 1) on warnings too.
    #[arg(long)]
    strict: bool,
    /// Print only the diagnostics: no line for a valid file without warnings, no notes.
    #[arg(long, short)]
    quiet: bool,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Human-readable diagnostics with source snippets.
    Text,
    /// One JSON document describing every file.
    Json,
    /// GitHub Actions workflow annotations (`::error file=..,line=..::message`), one per diagnostic.
    Github,
    /// SARIF 2.1.0 (GitHub code scanning): one result per diagnostic, the rules from the rule table.
    Sarif,
}

/// What the checked files gave so far: the JSON reports, or the SARIF findings.
#[derive(Default)]
struct Reports {
    json: Vec<Value>,
    sarif: Vec<ValidatedFile>,
}

fn location(line: Option<usize>, column: Option<usize>) -> Value {
    match (line, column) {
        (Some(line), Some(column)) => json!({"line": line, "column": column}),
        _ => Value::Null,
    }
}

fn parse_error_json(e: &ParseError) -> Value {
    json!({
        "rule": e.rule(),
        "kind": e.kind().as_str(),
        "path": e.path(),
        "message": e.message(),
        "location": location(e.line(), e.column()),
    })
}

fn validation_error_json(e: &ValidationError) -> Value {
    let l = e.location();
    json!({
        "rule": e.rule(),
        "spec_ref": e.spec_ref(),
        "path": e.path(),
        "message": e.message(),
        "location": location(l.map(|l| l.line), l.map(|l| l.column)),
    })
}

fn warning_json(d: &Diagnostic) -> Value {
    let l = d.location();
    json!({
        "code": d.code(),
        "path": d.path(),
        "message": d.message(),
        "location": location(l.map(|l| l.line), l.map(|l| l.column)),
    })
}

/// The outcome of one file.
enum Outcome {
    /// Valid, with this many warnings.
    Valid(usize),
    Invalid,
    Unreadable,
}

/// A workflow annotation for a diagnostic of `file`.
fn annotate(
    out: &mut Output<'_>,
    level: crate::render::github::Level,
    file: &str,
    location: Option<(usize, usize)>,
    code: Option<&str>,
    headline: &str,
) {
    let at = crate::render::github::At {
        file,
        line: location.map(|l| l.0),
        column: location.map(|l| l.1),
    };
    out.write(&crate::render::github::annotation(
        level, at, code, headline,
    ));
}

fn check_file(
    path: &PathBuf,
    format: Format,
    quiet: bool,
    options: &ValidateOptions,
    reports: &mut Reports,
    out: &mut Output<'_>,
) -> Outcome {
    let (name, source) = match read_input(path) {
        Ok(input) => input,
        Err(message) => {
            match format {
                Format::Text => eprintln!("error: {}", crate::render::safe_text::escape(&message)),
                Format::Json => reports
                    .json
                    .push(json!({"file": path.display().to_string(), "io_error": message})),
                Format::Sarif => reports.sarif.push(ValidatedFile::unreadable(
                    path.display().to_string(),
                    message,
                )),
                Format::Github => annotate(
                    out,
                    crate::render::github::Level::Error,
                    &path.display().to_string(),
                    None,
                    None,
                    &message,
                ),
            }
            return Outcome::Unreadable;
        }
    };
    let shown_name = crate::render::safe_text::escape(&name);
    // Every problem at once: the parse errors, and the V- findings of the parts that parsed.
    let (parse_errors, result) = match oatf::parse(&source) {
        Ok(document) => (None, oatf::validate_with(&document, options)),
        Err(errors) => {
            if let Some(hint) = trace_hint(&name, &source) {
                return not_a_document(&name, &hint, format, reports, out);
            }
            let rest = errors.validate_rest(options);
            (Some(errors), rest)
        }
    };
    let parse_errors: &[ParseError] = parse_errors.as_ref().map_or(&[], |e| e.as_slice());
    let valid = parse_errors.is_empty() && result.is_valid();
    match format {
        Format::Text => {
            for error in parse_errors {
                out.write(&render(error, parse_headline(error), &name, &source));
                out.write("\n");
            }
            for error in result.errors() {
                out.write(&render(
                    error,
                    with_path(error.message(), Some(error.path())),
                    &name,
                    &source,
                ));
                out.write("\n");
            }
            for warning in result.warnings() {
                out.write(&render(
                    warning,
                    with_path(warning.message(), warning.path()),
                    &name,
                    &source,
                ));
                out.write("\n");
            }
            let (p, e, w) = (
                parse_errors.len(),
                result.errors().len(),
                result.warnings().len(),
            );
            if valid {
                if !quiet || w > 0 {
                    out.write(&format!(
                        "{shown_name}: valid ({w} warning{})\n",
                        crate::render::plural(w)
                    ));
                }
            } else {
                let parsed = if p > 0 {
                    format!("{p} parse error{}, ", crate::render::plural(p))
                } else {
                    String::new()
                };
                out.write(&format!(
                    "{shown_name}: invalid ({parsed}{e} error{}, {w} warning{})\n",
                    crate::render::plural(e),
                    crate::render::plural(w)
                ));
                if p > 0
                    && let Some(note) = crate::input::library::test_file_note(&name, &source)
                {
                    eprintln!("{note}");
                }
            }
        }
        Format::Sarif => reports.sarif.push(
            ValidatedFile::new(name.clone()).with_findings(
                parse_errors
                    .iter()
                    .map(Finding::from)
                    .chain(result.errors().iter().map(Finding::from))
                    .chain(result.warnings().iter().map(Finding::from)),
            ),
        ),
        Format::Json => reports.json.push(json!({
            "file": name,
            "valid": valid,
            "parse_errors": parse_errors.iter().map(parse_error_json).collect::<Vec<_>>(),
            "errors": result.errors().iter().map(validation_error_json).collect::<Vec<_>>(),
            "warnings": result.warnings().iter().map(warning_json).collect::<Vec<_>>(),
        })),
        Format::Github => {
            for error in parse_errors {
                annotate(
                    out,
                    crate::render::github::Level::Error,
                    &name,
                    error.line().zip(error.column()),
                    error.rule(),
                    &parse_headline(error),
                );
            }
            for error in result.errors() {
                annotate(
                    out,
                    crate::render::github::Level::Error,
                    &name,
                    error.location().map(|l| (l.line, l.column)),
                    Some(error.rule()),
                    &with_path(error.message(), Some(error.path())),
                );
            }
            for warning in result.warnings() {
                annotate(
                    out,
                    crate::render::github::Level::Warning,
                    &name,
                    warning.location().map(|l| (l.line, l.column)),
                    Some(warning.code()),
                    &with_path(warning.message(), warning.path()),
                );
            }
        }
    }
    if valid {
        Outcome::Valid(result.warnings().len())
    } else {
        Outcome::Invalid
    }
}

/// When a file that does not parse as a document looks like a JSON Lines trace
/// ([`looks_like_a_trace`](crate::input::source::looks_like_a_trace)), what to tell the user instead of
/// YAML errors: that it is a trace, and the command that evaluates it.
fn trace_hint(name: &str, source: &str) -> Option<String> {
    crate::input::source::looks_like_a_trace(source).then(|| {
        // The argument as a shell word: `-` for standard input, quoted when it needs to be.
        let argument = match name {
            "<stdin>" => "-".to_owned(),
            plain
                if plain
                    .chars()
                    .all(|c| c.is_alphanumeric() || "./_-+:@%".contains(c)) =>
            {
                plain.to_owned()
            }
            other => format!("'{}'", other.replace('\'', "'\\''")),
        };
        format!(
            "{name} looks like a JSON Lines trace, not an OATF document; to evaluate it against a \
             document, run `oatf evaluate DOCUMENT.yaml {argument}`"
        )
    })
}

/// Reports a file that is not a document at all (see [`trace_hint`]).
fn not_a_document(
    name: &str,
    hint: &str,
    format: Format,
    reports: &mut Reports,
    out: &mut Output<'_>,
) -> Outcome {
    match format {
        Format::Text => out.write(&format!(
            "error: {}\n{}: invalid (not an OATF document)\n",
            crate::render::safe_text::escape(hint),
            crate::render::safe_text::escape(name)
        )),
        Format::Sarif => reports
            .sarif
            .push(ValidatedFile::new(name).with_findings([Finding::error(hint)])),
        Format::Json => reports.json.push(json!({
            "file": name,
            "valid": false,
            "parse_errors": [{
                "rule": null,
                "kind": "syntax",
                "path": null,
                "message": hint,
                "location": null,
            }],
            "errors": [],
            "warnings": [],
        })),
        Format::Github => annotate(
            out,
            crate::render::github::Level::Error,
            name,
            None,
            None,
            hint,
        ),
    }
    Outcome::Invalid
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let options = validate_options();
    let mut reports = Reports::default();
    let (mut invalid, mut unreadable, mut warned) = (false, false, false);
    let expanded = crate::input::library::expand_path_args(&args.files, true, args.quiet, |path| {
        let shown = crate::input::library::shown(path);
        eprintln!("error: {shown} is a test file: run its cases with `oatf test {shown}`");
        invalid = true;
    });
    unreadable |= expanded.unreadable;
    let files = expanded.files;
    for path in &files {
        match check_file(path, args.format, args.quiet, &options, &mut reports, out) {
            Outcome::Valid(warnings) => warned |= warnings > 0,
            Outcome::Invalid => invalid = true,
            Outcome::Unreadable => unreadable = true,
        }
    }
    match args.format {
        Format::Json => {
            let text = serde_json::to_string_pretty(&Value::Array(reports.json))
                .unwrap_or_else(|_| "[]".to_owned());
            out.write(&text);
            out.write("\n");
        }
        Format::Sarif => out.write(&validation_sarif(&reports.sarif)),
        Format::Text | Format::Github => {}
    }
    if unreadable {
        2
    } else if invalid || (args.strict && warned) {
        if !invalid {
            eprintln!("error: warnings are failures with --strict");
        }
        1
    } else {
        0
    }
}
