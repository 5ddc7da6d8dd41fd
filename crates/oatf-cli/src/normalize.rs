//! `oatf normalize FILE`: writes the canonical YAML form of a valid document to standard output.

use std::path::PathBuf;

use crate::validate::{options, out, parse_headline, read_input, render, with_path};

/// Arguments of `oatf normalize`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The document; `-` reads standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub(crate) fn run(args: Args) -> u8 {
    let (name, source) = match read_input(&args.file) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    match oatf::load_with(&source, &options()) {
        Ok(loaded) => {
            for warning in &loaded.warnings {
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
            out(&oatf::serialize(&loaded.document));
            0
        }
        Err(oatf::LoadError::Parse(errors)) => {
            for error in errors.iter() {
                eprint!("{}", render(error, parse_headline(error), &name, &source));
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
    }
}
