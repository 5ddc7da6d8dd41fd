//! The `oatf` command: works with OATF documents and runs conformance suites.
//!
//! Each subcommand lives in its own module under `commands/` with an `Args` struct and a `run`
//! function that writes to the [`Output`] it is given and returns the process exit code; the shared
//! plumbing is `input/`, `render/`, `options`, `exit` and `output` (ARCHITECTURE.md has the map). Exit codes: 0 success, 1 the input failed the check, 2 an input cannot be read,
//! 64 usage (every subcommand); `oatf evaluate` has its own (its `--help`, spec-decisions 24): 0–5 by
//! verdict and tier, 64 usage, 65 invalid document, 66 input. Output that cannot be written (standard
//! output full or closed, an `--output` file) exits 74 (sysexits `EX_IOERR`) with a message, for every
//! command (D-61); a closed pipe ends quietly with the command's own code.
#![deny(unsafe_code)] // one module allows it: `startup`, a pre-main probe of standard output
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line program talks on stdout and stderr"
)]

use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, Subcommand};

// `eprint!` and `eprintln!` for every module below, in place of std's, which panic when standard
// error cannot be written (`2> /dev/full`): a failed write there is dropped, since there is nowhere
// left to report it, and the command keeps its exit code.
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::output::write_stderr(format_args!($($arg)*))
    };
}
macro_rules! eprintln {
    () => {
        $crate::output::write_stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod commands;
mod document_schema;
mod exit;
mod input;
mod layout;
mod options;
mod output;
mod render;
mod startup;

use commands::{
    catalog, conformance, diff, evaluate, explain, fmt, generate, normalize, schema, serve,
    test_cmd, validate,
};
use output::Output;

/// mimalloc, not the system allocator (D-210): a campaign's workers allocate and free a run's
/// messages, verdict and report text on every core; glibc's per-thread arenas grew and trimmed their
/// heaps with a system call at a time and were a fifth of a run's CPU time on short traces.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The exit codes every command shares, as `oatf --help` shows them.
const EXIT_CODES: &str = "\
Exit codes: 0 success, 1 a check failed, 2 an input cannot be read, 64 usage error,
74 the output cannot be written (standard output full or closed, an --output file);
`oatf evaluate --help` lists the verdict codes of `evaluate`.";

/// Work with Open Agent Threat Format documents.
#[derive(Debug, Parser)]
#[command(name = "oatf", version, about, long_about = None, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a conformance suite in the OATF fixture layout (default: the bundled corpus).
    Conformance(conformance::Args),
    /// Parse and validate documents, printing every diagnostic.
    Validate(validate::Args),
    /// Write the canonical (normalized) YAML form of a document to standard output.
    Normalize(normalize::Args),
    /// Lay documents out canonically (indentation, key order), keeping comments and the author's text.
    Fmt(fmt::Args),
    /// Check a threat library (valid documents, unique ids) and print its index or framework coverage.
    Catalog(catalog::Args),
    /// Run the test cases of a threat library (`NAME.test.yaml` beside `NAME.yaml`).
    Test(test_cmd::Args),
    /// Evaluate recorded traces (JSON Lines) against a document's indicators and report the verdict;
    /// several traces, a directory or a manifest make a campaign.
    Evaluate(evaluate::Args),
    /// Compare two campaign reports of `oatf evaluate` (JSON or CSV): the runs whose result or tier
    /// changed, the runs only in one, and a summary by attack and by group.
    Diff(diff::Args),
    /// Play a document's mcp_server actor over MCP stdio, recording the session as a trace.
    Serve(serve::Args),
    /// Explain a validation rule (`oatf explain V-013`), or list every rule.
    Explain(explain::Args),
    /// Print the JSON Schema of OATF documents (for editors: `oatf schema > oatf.schema.json`).
    Schema(schema::Args),
    /// Run the language server over standard input and output (diagnostics, hover, completion,
    /// symbols, definitions, formatting, code actions), for editors.
    Lsp(commands::lsp::Args),
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh).
    Completions(generate::CompletionsArgs),
    /// Write the man pages into a directory (used by `cargo xtask man`).
    #[command(name = "__man", hide = true)]
    Man(generate::ManArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--help` and `--version` go to standard output: a failed write is an error there too.
        Err(error)
            if error.exit_code() == 0 && !std::io::IsTerminal::is_terminal(&std::io::stdout()) =>
        {
            let mut out = Output::stdout();
            out.write(&error.render().to_string());
            return ExitCode::from(out.finish(0));
        }
        Err(error) => return ExitCode::from(evaluate::parse_error_code(&error)),
    };
    let mut out = Output::stdout();
    let code = run(cli.command, &mut out);
    ExitCode::from(out.finish(code))
}

/// Runs one subcommand, writing its report to `out`, and gives its exit code (before
/// [`Output::finish`] turns a failed write into exit 74).
fn run(command: Command, out: &mut Output<'_>) -> u8 {
    match command {
        Command::Conformance(args) => conformance::run(args, out),
        Command::Validate(args) => validate::run(args, out),
        Command::Normalize(args) => normalize::run(args, out),
        Command::Evaluate(args) => evaluate::run(args, out),
        Command::Diff(args) => diff::run(args, out),
        Command::Fmt(args) => fmt::run(args, out),
        Command::Catalog(args) => catalog::run(args, out),
        Command::Test(args) => test_cmd::run(args, out),
        Command::Schema(args) => schema::run(args, out),
        Command::Explain(args) => explain::run(args, out),
        Command::Lsp(args) => commands::lsp::run(args, out),
        Command::Serve(args) => serve::run(args, out),
        Command::Completions(args) => generate::completions(args, Cli::command(), out),
        Command::Man(args) => generate::man(args, Cli::command()),
    }
}

#[cfg(test)]
mod tests;
