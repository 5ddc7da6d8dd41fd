//! The `oatf` command: works with OATF documents and runs conformance suites.
//!
//! Each subcommand lives in its own module with an `Args` struct and a `run` function returning the
//! process exit code. Exit codes: 0 success, 1 the input failed the check, 2 usage or I/O error.
#![forbid(unsafe_code)]
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line program talks on stdout and stderr"
)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod conformance;
mod normalize;
mod validate;

/// Work with Open Agent Threat Format documents.
#[derive(Debug, Parser)]
#[command(name = "oatf", version, about, long_about = None)]
struct Cli {
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Conformance(args) => conformance::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Normalize(args) => normalize::run(args),
    };
    ExitCode::from(code)
}
