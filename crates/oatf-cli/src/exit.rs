//! The exit code every command gives on a usage error. The others have one owner each: a failed
//! write is [`crate::output::EXIT_IOERR`], the verdict codes of `evaluate` are
//! [`crate::commands::evaluate`]'s (from `oatf::report`).

/// Exit code: bad arguments (sysexits `EX_USAGE`), for every command (spec-decisions 24).
pub(crate) const EXIT_USAGE: u8 = oatf::report::campaign::EXIT_USAGE;
