//! The integration tests of `oatf-cli`, one binary: each module checks one behaviour of the `oatf`
//! command, run as a process (`support::oatf`) on files in temporary directories, the shipped examples
//! and the corpus. In-process tests of the commands live in `src/tests.rs`. The tests read the
//! repository's `examples/` and `conformance/`, which the published package does not hold, so the
//! package leaves `tests/` out.
#![allow(clippy::unwrap_used, reason = "test setup failures fail the test")]

mod support;

mod campaign_outputs;
mod campaigns;
mod catalog;
mod ci_formats;
mod compat;
mod conformance;
mod diagnostics;
mod diff;
mod evaluate;
mod examples;
mod exit_codes;
mod explain;
mod fmt;
mod groups;
mod input_limits;
#[cfg(target_os = "linux")]
mod output_errors;
mod schema;
mod serve;
#[cfg(unix)]
mod special_files;
mod strict;
mod terminal_safety;
mod test_command;
mod validate;
mod validate_sarif;
