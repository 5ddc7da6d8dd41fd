//! The subcommands, one module each: an `Args` struct (clap) and a `run` function that writes to the
//! [`Output`](crate::output::Output) it is given and returns the process exit code. A command
//! module uses the plumbing ([`crate::input`], [`crate::render`], [`crate::options`],
//! [`crate::output`]) and never another command.

pub(crate) mod catalog;
pub(crate) mod conformance;
pub(crate) mod diff;
pub(crate) mod evaluate;
pub(crate) mod explain;
pub(crate) mod fmt;
pub(crate) mod generate;
pub(crate) mod lsp;
pub(crate) mod normalize;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod test_cmd;
pub(crate) mod validate;
