//! The `oatf` command: works with OATF documents and runs conformance suites.
//!
//! Each subcommand lives in its own module with an `Args` struct and a `run` function returning the
//! process exit code. Exit codes: 0 success, 1 the input failed the check, 2 I/O error, 64 usage
//! (every subcommand); `oatf evaluate` has its own (its `--help`, spec-decisions 24): 0–5 by verdict and
//! tier, 64 usage, 65 invalid document, 66 input. A failed write of the output exits 2 (`evaluate`: 74,
//! EX_IOERR) with a message; a closed pipe ends quietly with the command's own code.
#![forbid(unsafe_code)]
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line program talks on stdout and stderr"
)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod campaign;
mod catalog;
mod color;
mod conformance;
mod evaluate;
mod frameworks;
mod generate;
mod github;
mod library;
mod normalize;
mod safe_fs;
mod safe_text;
mod schema;
mod stdout;
mod test_cmd;
mod testing;
mod validate;

/// Work with Open Agent Threat Format documents.
#[derive(Debug, Parser)]
#[command(name = "oatf", version, about, long_about = None)]
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
    /// Check a threat library (valid documents, unique ids) and print its index or framework coverage.
    Catalog(catalog::Args),
    /// Run the test cases of a threat library (`NAME.test.yaml` beside `NAME.yaml`).
    Test(test_cmd::Args),
    /// Evaluate recorded traces (JSON Lines) against a document's indicators and report the verdict;
    /// several traces, a directory or a manifest make a campaign.
    Evaluate(evaluate::Args),
    /// Print the JSON Schema of OATF documents (for editors: `oatf schema > oatf.schema.json`).
    Schema(schema::Args),
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh).
    Completions(generate::CompletionsArgs),
    /// Write the man pages into a directory (used by `cargo xtask man`).
    #[command(name = "__man", hide = true)]
    Man(generate::ManArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(evaluate::parse_error_code(&error)),
    };
    // A failed write of the output: 2 (an I/O error), 74 for `evaluate` (sysexits' EX_IOERR,
    // beside its 64/65/66).
    let (code, write_error) = match cli.command {
        Command::Conformance(args) => (conformance::run(args), 2),
        Command::Validate(args) => (validate::run(args), 2),
        Command::Normalize(args) => (normalize::run(args), 2),
        Command::Evaluate(args) => (evaluate::run(args), 74),
        Command::Catalog(args) => (catalog::run(args), 2),
        Command::Test(args) => (test_cmd::run(args), 2),
        Command::Schema(args) => (schema::run(args), 2),
        Command::Completions(args) => (generate::completions(args), 2),
        Command::Man(args) => (generate::man(args), 2),
    };
    ExitCode::from(stdout::finish(code, write_error))
}
