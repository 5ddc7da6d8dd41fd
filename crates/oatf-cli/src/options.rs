//! Options shared by the commands: the one place where the CLI configures the library.

use oatf::ValidateOptions;

/// The validation options the CLI uses: the facade's, with the CEL syntax checker installed.
pub(crate) fn validate_options() -> ValidateOptions {
    oatf::default_validate_options()
}
