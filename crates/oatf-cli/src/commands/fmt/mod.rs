//! `oatf fmt [--check] [--diff] PATH...`: lays documents out canonically (indentation, key order)
//! while keeping the author's text: comments, scalar styles, literal blocks, flow collections and
//! every value stay as written (`crate::layout`; decisions D-65, D-66). Normalization (SDK §3.3) is
//! `oatf normalize`'s job, never this one's.

use std::path::{Path, PathBuf};

use crate::input::source::read_input;
use crate::output::Output;
use crate::render::diagnostic::{parse_headline, render};

/// Arguments of `oatf fmt`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Documents or directories (walked for `*.yaml` and `*.yml` OATF documents, skipping `*.test.yaml`
    /// test files); `-` reads standard input and writes the result to standard output.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Write nothing; list the files that are not formatted and exit 1 if there is one.
    #[arg(long)]
    check: bool,
    /// Write nothing; print a unified diff of the changes and exit 1 if there is one.
    #[arg(long)]
    diff: bool,
    /// No notes or summary on stderr (errors are still printed).
    #[arg(long, short)]
    quiet: bool,
}

/// What happened to one file.
enum Outcome {
    Unchanged,
    Changed,
    Failed,
    Unreadable,
    /// The formatted text could not be written back (the file is left as it was).
    Unwritable,
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let Some(files) = collect(&args.paths, args.quiet) else {
        return 2;
    };
    let (mut changed, mut unchanged, mut failed, mut unreadable) = (0usize, 0usize, 0usize, 0usize);
    let mut unwritable = 0usize;
    for file in &files {
        match format_file(file, &args, out) {
            Outcome::Unchanged => unchanged += 1,
            Outcome::Changed => changed += 1,
            Outcome::Failed => failed += 1,
            Outcome::Unreadable => unreadable += 1,
            Outcome::Unwritable => unwritable += 1,
        }
    }
    let dry = args.check || args.diff;
    let only_stdin = files.iter().all(|f| f.as_os_str() == "-");
    if !args.quiet && !only_stdin {
        let verb = if dry {
            "would be reformatted"
        } else {
            "reformatted"
        };
        let mut parts = Vec::new();
        if changed > 0 || unchanged == 0 {
            parts.push(format!(
                "{changed} file{} {verb}",
                crate::render::plural(changed)
            ));
        }
        if unchanged > 0 {
            parts.push(format!(
                "{unchanged} file{} {}",
                crate::render::plural(unchanged),
                if dry {
                    "already formatted"
                } else {
                    "left unchanged"
                }
            ));
        }
        let not_formatted = failed + unreadable + unwritable;
        if not_formatted > 0 {
            parts.push(format!(
                "{not_formatted} file{} not formatted (errors above)",
                crate::render::plural(not_formatted)
            ));
        }
        eprintln!("{}", parts.join(", "));
    }
    if unwritable > 0 {
        crate::output::EXIT_IOERR
    } else if unreadable > 0 {
        2
    } else if failed > 0 || (dry && changed > 0) {
        1
    } else {
        0
    }
}

/// The files to format: files named on the command line, and the OATF documents under directories
/// ([`expand_path_args`](crate::input::library::expand_path_args)). Test files (`*.test.yaml`) are
/// skipped with a note; `None` when a directory cannot be read.
fn collect(paths: &[PathBuf], quiet: bool) -> Option<Vec<PathBuf>> {
    let expanded = crate::input::library::expand_path_args(paths, true, quiet, |path| {
        if !quiet {
            eprintln!(
                "note: {} is a test file (the cases of a document), not a document: not formatted",
                crate::input::library::shown(path)
            );
        }
    });
    (!expanded.unreadable).then_some(expanded.files)
}

fn read(file: &Path) -> Result<(String, String), String> {
    if file.as_os_str() == "-" {
        return read_input(&file.to_path_buf());
    }
    crate::input::library::read_text(file)
        .map(|text| (file.display().to_string(), text))
        .map_err(|problem| problem.to_string())
}

fn format_file(file: &Path, args: &Args, out: &mut Output<'_>) -> Outcome {
    let (name, source) = match read(file) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("error: {}", crate::render::safe_text::escape(&message));
            return Outcome::Unreadable;
        }
    };
    let shown = crate::render::safe_text::escape(&name).into_owned();
    let document = match oatf::parse(&source) {
        Ok(document) => document,
        Err(errors) => {
            for error in errors.iter() {
                eprint!("{}", render(error, parse_headline(error), &name, &source));
            }
            if let Some(note) = crate::input::library::test_file_note(&name, &source) {
                eprintln!("{note}");
            }
            eprintln!("error: {shown}: not formatted (the document does not parse)");
            return Outcome::Failed;
        }
    };
    let formatted = match crate::layout::format(&source, &document) {
        Ok(text) => text,
        Err(refusal) => {
            eprintln!(
                "error: {shown}:{}: cannot format: {}",
                refusal.line,
                crate::render::safe_text::escape(&refusal.message)
            );
            return Outcome::Failed;
        }
    };
    let stdin = file.as_os_str() == "-";
    if formatted == source {
        if stdin && !(args.check || args.diff) {
            out.write(&formatted);
        }
        return Outcome::Unchanged;
    }
    if args.diff {
        out.write(&unified_diff(&source, &formatted, &name));
    }
    if args.check && !args.diff {
        out.write(&format!("would reformat: {shown}\n"));
    }
    if args.check || args.diff {
        return Outcome::Changed;
    }
    if stdin {
        out.write(&formatted);
        return Outcome::Changed;
    }
    match write_back(file, &formatted) {
        Ok(()) => Outcome::Changed,
        Err(e) => {
            eprintln!("error: cannot write {shown}: {e} (the file is left as it was)");
            Outcome::Unwritable
        }
    }
}

/// Replaces `file` with `text` without ever leaving it half written: the text goes to a new file
/// beside it, which is renamed over it only once it is complete (a full disk leaves the original).
/// The original's permissions are kept.
fn write_back(file: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = file.with_file_name(format!(".{name}.oatf-fmt-{}.tmp", std::process::id()));
    let result = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        if let Ok(meta) = std::fs::metadata(file) {
            std::fs::set_permissions(&temp, meta.permissions())?;
        }
        std::fs::rename(&temp, file)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// A unified diff (`--- FILE`, `+++ FILE`, three lines of context), as `diff -u` and `ruff format --diff`
/// print it; attacker text in it is escaped like every other output.
fn unified_diff(before: &str, after: &str, name: &str) -> String {
    let diff = similar::TextDiff::from_lines(before, after);
    let name = crate::render::safe_text::escape(name);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string();
    // Control characters of the document (other than tabs and line breaks) are escaped.
    crate::render::safe_text::escape_keep_lines(&text).into_owned()
}
