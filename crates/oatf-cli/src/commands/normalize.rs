//! `oatf normalize FILE`: writes the canonical YAML form of a valid document to standard output;
//! `--check` exits 1 when a file is not in that form. Normalizing expands a document (SDK §3.3), so
//! the formatter check for hand-written files is `oatf fmt --check`, not this one.

use std::path::PathBuf;

use crate::input::source::read_input;
use crate::options::validate_options;
use crate::output::Output;
use crate::render::diagnostic::{parse_headline, render, with_path};

/// Arguments of `oatf normalize`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The document; `-` reads standard input. With `--check`, any number of documents and
    /// directories (walked for OATF documents, skipping `*.test.yaml` test files).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Write nothing; exit 1 if a file is not already in its normalized form (0 if all are). This
    /// expands the document (SDK §3.3); the formatter check that keeps the author's form is
    /// `oatf fmt --check`.
    #[arg(long)]
    check: bool,
    /// No warnings on stderr (errors are still printed).
    #[arg(long, short)]
    quiet: bool,
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    if !args.check && args.files.len() > 1 {
        eprintln!("error: give one FILE, or use --check to check several");
        return crate::exit::EXIT_USAGE;
    }
    let mut code = 0;
    let expanded = crate::input::library::expand_path_args(
        &args.files,
        args.check,
        args.quiet,
        |file| {
            let shown = crate::input::library::shown(file);
            if !args.check {
                eprintln!(
                    "error: {shown} is a test file (the cases of a document), not a document"
                );
                code = 1;
            } else if !args.quiet {
                eprintln!(
                    "note: {shown} is a test file (the cases of a document), not a document: not checked"
                );
            }
        },
    );
    if expanded.unreadable {
        code = 2;
    }
    let files = expanded.files;
    for file in &files {
        code = code.max(normalize_one(file, args.check, args.quiet, out));
    }
    code
}

/// Normalizes one file: 0 done (or canonical with `check`), 1 invalid (or not canonical), 2 unreadable.
fn normalize_one(file: &PathBuf, check: bool, quiet: bool, out: &mut Output<'_>) -> u8 {
    let (name, source) = match read_input(file) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("error: {}", crate::render::safe_text::escape(&message));
            return 2;
        }
    };
    match oatf::load_with(&source, &validate_options()) {
        Ok(loaded) => {
            for warning in loaded.warnings.iter().filter(|_| !quiet) {
                eprint!(
                    "{}",
                    render(
                        warning,
                        with_path(warning.message(), warning.path()),
                        &name,
                        &source
                    )
                );
            }
            let canonical = oatf::model::serialize(&loaded.document);
            if !check {
                out.write(&canonical);
                return 0;
            }
            if canonical == source {
                return 0;
            }
            let line = first_difference(&source, &canonical);
            eprintln!(
                "{}:{line}: not in canonical form (`oatf normalize {}` prints it)",
                crate::render::safe_text::escape(&name),
                crate::render::safe_text::escape(&file.display().to_string()),
            );
            1
        }
        Err(oatf::LoadError::Parse(errors)) => {
            for error in errors.iter() {
                eprint!("{}", render(error, parse_headline(error), &name, &source));
            }
            if let Some(note) = crate::input::library::test_file_note(&name, &source) {
                eprintln!("{note}");
            }
            1
        }
        Err(oatf::LoadError::Invalid(errors)) => {
            for error in &errors {
                eprint!(
                    "{}",
                    render(
                        error,
                        with_path(error.message(), Some(error.path())),
                        &name,
                        &source
                    )
                );
            }
            1
        }
        Err(other) => {
            eprintln!("error: {name}: {other}");
            1
        }
    }
}

/// The 1-based line where `a` and `b` first differ.
fn first_difference(a: &str, b: &str) -> usize {
    let mut a_lines = a.split_inclusive('\n');
    let mut b_lines = b.split_inclusive('\n');
    let mut line = 1;
    loop {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            _ => return line,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn first_difference() {
        assert_eq!(super::first_difference("a\nb\n", "a\nc\n"), 2);
        assert_eq!(super::first_difference("a\n", "a\nb\n"), 2);
        assert_eq!(super::first_difference("x", "y"), 1);
    }
}
