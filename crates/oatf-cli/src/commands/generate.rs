//! `oatf completions SHELL` (clap_complete) and the hidden `oatf __man DIR` that `cargo xtask man`
//! runs (clap_mangen): both generated from the clap definition, so they never drift from it.

use std::path::PathBuf;

use crate::output::Output;

/// Arguments of `oatf completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    #[arg(value_name = "SHELL")]
    shell: clap_complete::Shell,
}

/// Arguments of the hidden `oatf __man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// The directory to write `oatf.1` and one `oatf-COMMAND.1` per subcommand into.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// Prints the completion script of `full`, the whole command-line definition.
pub(crate) fn completions(args: CompletionsArgs, full: clap::Command, out: &mut Output<'_>) -> u8 {
    // Hidden subcommands (`__man`) are left out of what the shell offers.
    let mut command = clap::Command::new("oatf")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "oatf", &mut script);
    out.write(&String::from_utf8_lossy(&script));
    0
}

/// Writes the man pages of `full`, the whole command-line definition.
pub(crate) fn man(args: ManArgs, full: clap::Command) -> u8 {
    if let Err(e) = std::fs::create_dir_all(&args.dir) {
        eprintln!("error: cannot create {}: {e}", args.dir.display());
        return crate::output::EXIT_IOERR;
    }
    match clap_mangen::generate_to(full, &args.dir) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(
                "error: cannot write the man pages to {}: {e}",
                args.dir.display()
            );
            crate::output::EXIT_IOERR
        }
    }
}
